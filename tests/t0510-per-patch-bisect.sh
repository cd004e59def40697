#!/bin/sh
# t0510-per-patch-bisect: which patch moved the metric, two ways, on real
# kernels and guests. The example series gets a third patch (a new
# documentation file: no code change), so patch 2 of 3 is the culprit in
# the middle. `test-series --per-patch` must put the change on patch 2,
# with +1 and +3 unchanged; `mmci bisect` over the same commits must name
# patch 2's commit, cleanly; a range without a change has nothing to
# bisect. The kernels are cache hits or no-op rebuilds after t0500.
# A rebased BAD is bisected from its merge-base, and the culprit is found
# on the list by patch-id; a merge-base that moved already is upstream's.
# after-builds: its kernels are t0500's (cache hits; its third patch,
# a documentation file, takes the kernel and the run of its second):
# make test runs it at the end of the builds lane, where it evens the
# lanes out; alone, it builds them
# mmci-test-needs: vm kernel-build after-builds
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
RUNOPTS="--nvdimm 4G --iters 8"

# the example series as 3 patches: 1 comment, 2 slow, 3 a new doc file
sed -e 's/\[PATCH \([0-2]\)\/2\]/[PATCH \1\/3]/' \
	"$SRC/kernel-patches/examples/memmap-slow.mbox" > three.mbox
cat >> three.mbox <<'MBOX'

From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
Message-ID: <20250303100003.3.mmci-demo@example.org>
In-Reply-To: <20250303100000.0.mmci-demo@example.org>
References: <20250303100000.0.mmci-demo@example.org>
From: mmci demo <mmci-demo@example.org>
To: Andrew Morton <akpm@example.org>
Cc: linux-mm@example.org
Date: Mon, 3 Mar 2025 10:00:03 +0000
Subject: [PATCH 3/3] Documentation/mm: note the ZONE_DEVICE memmap check

A note for users of the check added in patch 2.

Signed-off-by: mmci demo <mmci-demo@example.org>
---
 Documentation/mm/zone-device-memmap-check.rst | 3 +++
 1 file changed, 3 insertions(+)
 create mode 100644 Documentation/mm/zone-device-memmap-check.rst

diff --git a/Documentation/mm/zone-device-memmap-check.rst b/Documentation/mm/zone-device-memmap-check.rst
new file mode 100644
index 000000000000..d3f5a12faa99
--- /dev/null
+++ b/Documentation/mm/zone-device-memmap-check.rst
@@ -0,0 +1,3 @@
+memmap_init_zone_device() re-reads the struct pages it initialised and
+warns once on the first one that is not as expected. It costs about two
+thirds more time per bind.
-- 
2.39.5
MBOX

test_expect 'init' '
	"$MMCI" init
'

test_expect 'per-patch: patch 2 moves rebind_memmap, 1 and 3 do not' '
	"$MMCI" test-series three.mbox --base debian-6.12 --per-patch \
		$RUNOPTS > out 2> err || { tail -30 err; exit 1; }
	cat out
	sed -n "/^fsdax align=2M,map=dev rebind_memmap/,/^$/p" out > block &&
	cat block &&
	grep -q "^  base debian-6.12 " block &&
	grep -q "^  +1 mm/mm_init: tidy .* no change .* no change$" block &&
	grep -q "^  +2 mm/mm_init: verify .* +[0-9.]*% \[.* worse .* worse$" block &&
	grep -q "^  +3 Documentation/mm: .* no change .* worse$" block
'

test_expect 'one series job owns three runs (+3 is +2'\''s kernel); the result is stored' '
	[ "$(sql "SELECT kind || \" \" || status FROM jobs")" = "series done" ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE job_id = 1 AND
	     status = \"ok\"")" = 3 ] &&
	[ "$(sql "SELECT group_concat(upto) FROM (SELECT b.upto FROM runs r
	     JOIN builds b ON b.id = r.build_id ORDER BY r.id)")" = "0,1,2" ] &&
	[ "$(sql "SELECT group_concat(source || \" \" || run_id) FROM
	     (SELECT * FROM job_steps WHERE job_id = 1 ORDER BY upto)")" = \
		"measured 1,measured 2,measured 3,reused 3" ] &&
	sql "SELECT result FROM jobs WHERE id = 1" | grep -q "\"worse\":[1-9]"
'

test_expect 'icount: every value is exact, so no adaptive repeat was needed' '
	! grep -q "^adaptive repeats:" out &&
	[ "$(sql "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM boots
	     GROUP BY run_id ORDER BY run_id)")" = "2,2,2" ]
'

P2=$(sql "SELECT commit_id FROM builds WHERE upto = 2 ORDER BY id DESC LIMIT 1")
P3=$(sql "SELECT commit_id FROM builds WHERE upto = 3 ORDER BY id DESC LIMIT 1")
P1=$(sql "SELECT commit_id FROM builds WHERE upto = 1 ORDER BY id DESC LIMIT 1")

test_expect 'bisect debian-6.12..+3 names patch 2, cleanly' '
	[ -n "$P2" ] && [ -n "$P3" ] &&
	"$MMCI" bisect debian-6.12 "$P3" --metric rebind_memmap $RUNOPTS \
		> bis 2> err || { cat bis; tail -30 err; exit 1; }
	cat bis &&
	grep -q "^GOOD..BAD: fsdax align=2M,map=dev rebind_memmap worse" bis &&
	grep -q "^first commit that moved fsdax align=2M,map=dev rebind_memmap: $(echo "$P2" | cut -c1-12) mm/mm_init: verify" bis &&
	grep -q "^result: clean" bis &&
	[ "$(sql "SELECT status FROM jobs WHERE kind = \"bisect\"")" = done ] &&
	sql "SELECT result FROM jobs WHERE kind = \"bisect\"" | grep -q "\"first_bad\":\"$P2\""
'

test_expect 'a range without a change: nothing to bisect (exit 2)' '
	set +e
	"$MMCI" bisect debian-6.12 "$P1" --metric rebind_memmap $RUNOPTS > nb 2> err
	rc=$?
	set -e
	cat nb; [ $rc = 2 ] &&
	grep -q "do not differ significantly.*nothing to bisect" nb
'

test_expect 'bad input: unknown metric (129), BAD not after GOOD (1)' '
	set +e
	"$MMCI" bisect debian-6.12 "$P3" --metric no_such_metric 2> e1
	r1=$?
	"$MMCI" bisect "$P3" debian-6.12 --metric rebind_memmap 2> e2
	r2=$?
	set -e
	cat e1 e2
	[ $r1 = 129 ] && grep -q "unknown metric .no_such_metric." e1 &&
	[ $r2 = 1 ] && grep -q "BAD is not a descendant of GOOD" e2
'

# mm-new is rebased most days. A "rebase" whose trees are those built
# above (cache hits, no compile): a new upstream commit U with the base's
# tree, then the three patches again on U (new ids, same trees).
# merge-base(P1, N3) is debian-6.12, which is like P1: the range
# debian-6.12..N3 is bisected and N2 is patch 2 of the series on the
# list, found by git's patch-id (the commits have no Link:).
git_t() {
	git -C "$MMCI_TREE" -c user.name=T -c user.email=t@example.org "$@"
}
on_top() {	# TREE-COMMIT PARENT: a commit with that tree and message
	git_t commit-tree "$1^{tree}" -p "$2" -m "$(git_t log -1 --format=%B "$1")"
}
if [ -n "$P3" ]; then
	U=$(git_t commit-tree "debian-6.12^{tree}" -p debian-6.12 -m "upstream: a new base")
	N1=$(on_top "$P1" "$U")
	N2=$(on_top "$P2" "$N1")
	N3=$(on_top "$P3" "$N2")
	R=$(git_t commit-tree "debian-6.12^{tree}" -p "$P2" -m "revert the check")
fi

test_expect 'a rebased BAD: bisected from the merge-base, patch 2 named' '
	[ -n "$N3" ] &&
	"$MMCI" bisect "$P1" "$N3" --metric rebind_memmap $RUNOPTS \
		> reb 2> err || { cat reb; tail -30 err; exit 1; }
	cat reb &&
	grep -q "^BAD was rebased: bisecting from the merge-base $(git_t rev-parse --short=12 debian-6.12) .*no significant change.*, 4 commit(s)$" reb &&
	grep -q "^first commit that moved fsdax align=2M,map=dev rebind_memmap: $(echo "$N2" | cut -c1-12) mm/mm_init: verify" reb &&
	grep -q "^result: clean" reb &&
	grep -q "^on the list: series #1 patch 2/3 \"mm/mm_init: verify.*(found by patch-id)$" reb &&
	sql "SELECT result FROM jobs WHERE kind = \"bisect\" ORDER BY id DESC LIMIT 1" > res &&
	grep -q "\"merge_base\":\"$(git_t rev-parse debian-6.12)\"" res &&
	grep -q "\"idx\":2,\"total\":3" res
'

test_expect 'a rebased BAD whose merge-base moved already: upstream (4)' '
	[ -n "$R" ] &&
	set +e
	"$MMCI" bisect "$R" "$P3" --metric rebind_memmap $RUNOPTS > up 2> err
	rc=$?
	set -e
	cat up; [ $rc = 4 ] || { tail -30 err; exit 1; }
	grep -q "^the merge-base $(echo "$P2" | cut -c1-12) .* already moved .* against GOOD (worse): the change came with the new upstream base" up &&
	sql "SELECT result FROM jobs WHERE kind = \"bisect\" ORDER BY id DESC LIMIT 1" |
		grep -q "\"first_bad\":null,\"upstream\":\"$P2\"" &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"running\"")" = 0 ]
'

test_expect 'no domain and no NVDIMM file left' '
	nothing_left_behind
'

test_done
