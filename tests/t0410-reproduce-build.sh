#!/bin/sh
# t0410-reproduce-build: `mmci reproduce` of a run on a kernel mmci
# built from a series. The series is one documentation patch of this
# test's own on debian-6.12, so its commit is new (and used by no other
# test) while the kernel is the base's: its build cache key leaves
# Documentation/ out (build.c), so with the shared data directory
# (MMCI_DATA=$SRC/var, as t0510) it takes the base's kernel, built once
# by whichever test came first. The commit's object is then removed from
# the tree: reproduce must apply the stored series again on its base,
# get the same commit, hit the build cache and boot it. What must stop
# it: a config fragment that changed since (unless --fragment says which
# to use) or is gone, a commit no series can give back. What it must
# say: a compiler or .config that differs.
# At most one build (none in make test), five 2 GiB boots: about a minute.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"

cat > doc.mbox <<'MBOX'
From 4100000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Message-ID: <20250404100000.1.mmci-t0410@example.org>
From: mmci test <mmci-t0410@example.org>
To: linux-mm@example.org
Date: Fri, 4 Apr 2025 10:00:00 +0000
Subject: [PATCH] Documentation/mm: a note for mmci's reproduce test

A file no build reads: the kernel is the base's, the commit is new.

Signed-off-by: mmci test <mmci-t0410@example.org>
---
 Documentation/mm/mmci-t0410.rst | 2 ++
 1 file changed, 2 insertions(+)
 create mode 100644 Documentation/mm/mmci-t0410.rst

diff --git a/Documentation/mm/mmci-t0410.rst b/Documentation/mm/mmci-t0410.rst
new file mode 100644
index 000000000000..4100000000aa
--- /dev/null
+++ b/Documentation/mm/mmci-t0410.rst
@@ -0,0 +1,2 @@
+mmci's t0410 applies this file, removes its commit object and expects
+`mmci reproduce` to apply it again.
-- 
2.39.5
MBOX

# the fragment as a copy of the default (same content: same cache key),
# so that a test can change it
FRAG="$TRASH/frag.config"
cp "$SRC/kernel-patches/config/mmci.config" "$FRAG"

runs() { sql "SELECT count(*) FROM runs"; }

# every mmci of this test, with its pid (NVDIMM files are mmci-<pid>-...)
mmci() {
	"$MMCI" "$@" & echo $! >> "$TRASH/pids"
	wait $!
}

# the loose object file of a commit of the tree
object_file() {
	printf '%s/objects/%s/%s' "$(git -C "$MMCI_TREE" rev-parse \
		--absolute-git-dir)" "$(echo "$1" | cut -c1-2)" \
		"$(echo "$1" | cut -c3-)"
}

test_expect 'init; build debian-6.12 + the doc patch with the copied fragment' '
	mmci init &&
	mmci build debian-6.12 --series doc.mbox --config "$FRAG" > out 2> err ||
		{ tail -20 err; exit 1; }
	cat out
	grep -q "^build #1: 6\.12\." out &&
	[ "$(sql "SELECT series_id || \" \" || upto || \" \" || status FROM
	     builds WHERE id = 1")" = "1 1 ok" ] &&
	[ "$(sql "SELECT config_fragment FROM builds WHERE id = 1")" = "$FRAG" ]
'

test_expect 'a run of it: 2 boots' '
	mmci run --build 1 --nvdimm 2G --iters 4 --map dev --boots 2 \
		--label original > out 2> err || { tail -20 err; exit 1; }
	grep -q "^run #1: ok" out
'

test_expect '--dry-run: the commit, its series, the fragment, the compiler' '
	commit=$(sql "SELECT commit_id FROM builds WHERE id = 1") &&
	mmci reproduce 1 --dry-run > dry &&
	cat dry &&
	grep -q "^kernel: build #1: commit $commit (series #1, patches 1-1)$" dry &&
	grep -q "^  fragment  *$FRAG, sha1 [0-9a-f]\{12\} as recorded$" dry &&
	grep -q "^  compiler  *gcc .*, as recorded$" dry &&
	grep -q "^  commit  *$commit, in the tree " dry &&
	grep -q "^  build  *would build it" dry &&
	grep -q "^vm: tcg, clock icount, 1 vCPU(s), .* 2048 MiB NVDIMM on tmpfs, .* 2 boot(s)$" dry &&
	grep -q "^dry run: 0 difference(s)" dry &&
	[ "$(runs)" = 1 ]
'

test_expect 'the commit is gone: the series is applied again, same commit, cached build' '
	commit=$(sql "SELECT commit_id FROM builds WHERE id = 1") &&
	obj=$(object_file $commit) && [ -f "$obj" ] &&
	rm -f "$obj" &&
	! git -C "$MMCI_TREE" cat-file -e "$commit" 2>/dev/null &&
	mmci reproduce 1 --dry-run > dry2 &&
	grep -q "^  commit  *$commit is not in the tree: would apply series #1 patches 1-1 again on [0-9a-f]\{12\} (debian-6.12)$" dry2 &&
	! git -C "$MMCI_TREE" cat-file -e "$commit" 2>/dev/null &&
	mmci reproduce 1 > out 2> err || { cat out; tail -20 err; exit 1; }
	cat out
	git -C "$MMCI_TREE" cat-file -e "$commit" &&
	grep -q "^  commit  *$commit was not in the tree: series #1 patches 1-1 applied again on [0-9a-f]\{12\} gave it back$" out &&
	grep -q "^  build  *#1, from the cache (the recorded build itself)$" out &&
	grep -q "^  \.config sha1  *[0-9a-f]\{40\}, as recorded$" out &&
	grep -q "^  kernel release  *6\.12\.[^ ]*, as recorded$" out &&
	grep -q "^new run: #2 \"reproduce of run 1\"$" out &&
	grep -q "^set-up of run #2: as run #1 " out &&
	[ "$(sql "SELECT build_id FROM runs WHERE id = 2")" = 1 ] &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .*no significant change" out &&
	grep -q "^reproduced: run 1 -> run 2: no significant change " out
'

test_expect 'a .config that differs from the recorded one is said, not fatal' '
	sql "UPDATE builds SET dotconfig_hash = \"0123456789012345678901234567890123456789\"
	     WHERE id = 1" &&
	mmci reproduce 1 --boots 1 > out3 2> err3 || { tail -20 err3; exit 1; }
	grep -q "^  \.config sha1  *DIFFERS: recorded 0123456789012345678901234567890123456789, now [0-9a-f]\{40\}$" out3 &&
	grep -q "^warning: \.config sha1 differs" err3 &&
	grep -q "^run #3: ok (1 of 1 boot(s) ok)$" out3 &&
	grep -q "^reproduced: run 1 -> run 3: " out3
'

test_expect 'another compiler is said (dry run)' '
	sql "UPDATE builds SET compiler = \"gcc (mmci test) 0.1\" WHERE id = 1" &&
	mmci reproduce 1 --dry-run > dry3 &&
	grep -q "^  compiler  *DIFFERS: recorded gcc (mmci test) 0.1, now gcc " dry3 &&
	grep -q "^dry run: 1 difference(s)" dry3
'

test_expect 'the fragment changed: refused with one error line' '
	echo "# changed after the build" >> "$FRAG" &&
	set +e; mmci reproduce 1 > o 2> err; rc=$?; set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "^error: the config fragment .$FRAG. changed since build #1 (sha1 [0-9a-f]\{12\}, recorded [0-9a-f]\{12\}): restore it, or give --fragment FILE" err &&
	[ "$(runs)" = 3 ]
'

test_expect '--fragment names the one to build with' '
	mmci reproduce 1 --dry-run --fragment "$SRC/kernel-patches/config/mmci.config" > dryf &&
	grep -q "^  fragment  *$SRC/kernel-patches/config/mmci.config (--fragment), sha1 [0-9a-f]\{12\}, the content build #1 used$" dryf &&
	mmci reproduce 1 --dry-run --fragment "$FRAG" > dryf2 &&
	grep -q "(--fragment), sha1 [0-9a-f]\{12\}: DIFFERS from build #1" dryf2
'

test_expect 'the fragment is gone: refused, --fragment suggested' '
	rm "$FRAG" &&
	set +e; mmci reproduce 1 --dry-run > o 2> err; rc=$?; set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "^error: the config fragment .$FRAG. of build #1 is gone (sha1 [0-9a-f]\{12\}): give --fragment FILE" err
'

test_expect 'a commit no stored apply can give back: refused, nothing built' '
	commit=$(sql "SELECT commit_id FROM builds WHERE id = 1") &&
	rm -f "$(object_file $commit)" &&
	sql "UPDATE applies SET status = \"failed\"" &&
	builds=$(sql "SELECT count(*) FROM builds") &&
	set +e
	mmci reproduce 1 --fragment "$SRC/kernel-patches/config/mmci.config" \
		> o 2> err
	rc=$?; set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "^error: commit $commit of build #1 is not in the tree and series #1 was never applied here with 1 patch(es): no base to apply it on" err &&
	[ "$(sql "SELECT count(*) FROM builds")" = "$builds" ] &&
	[ "$(runs)" = 3 ] &&
	sql "UPDATE applies SET status = \"ok\" WHERE head_commit = \"$commit\"" &&
	mmci apply doc.mbox --base debian-6.12 > /dev/null &&
	git -C "$MMCI_TREE" cat-file -e "$commit"
'

test_expect 'nothing is left behind: no domain, no NVDIMM file' \
	nothing_left_behind

test_done
