#!/bin/sh
# t0545-verdict-paths-boot: the booting case of the metamorphic matrix
# (docs/TESTING.md; t0547 lays out every path over rows). A masked
# series (kernel-patches/examples/memmap-mixed.mbox: 2/4 costs two thirds
# more per bind, 4/4 gives it back) is measured per patch twice on real
# kernels and guests, icount, a 1 GiB NVDIMM: first fresh by
# `mmci test-series`, then again as a queued job the daemon runs, which
# reuses the first job's base run instead of booting it. Both jobs must
# give the same verdict, the same per-patch table of rebind_memmap (the
# kernel's own time, exact under icount) and the same claim check, in
# the command's output, `mmci show job` and the mail. The kernels of
# patches 1-3 are t0510's; 4/4's tree is new (a cache hit in ccache).
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/lib.sh"
# it asserts icount values and the reuse of an icount base: pin TCG
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
SERIES="$SRC/kernel-patches/examples/memmap-mixed.mbox"
RUNOPTS="--workloads fsdax --nvdimm 1G --iters 8 --boots 1 --max-boots 1"
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_SEND MMCI_CONFIG \
	MMCI_SOURCES MMCI_LIBVIRT_URIS MMCI_BASE_BRANCHES
V="MIXED: patch 2/4 fsdax [a-z_]* +"

# what must be the same: the verdict, the rebind_memmap per-patch block
# and the claim checks, run and job ids taken out; the verdict once
# (the command prints it above and below its tables)
same_part() {
	sed -E -e 's/(run|job) #[0-9]+/\1 #N/g' "$1" |
	sed -n -e "/^verdict: /p" \
		-e "/^fsdax align=2M,map=dev rebind_memmap (ms):/,/^\$/p" \
		-e "/^claimed vs measured/,/^\$/p" |
	awk '!/^verdict: / || !seen++'	# the command says it twice
}

test_expect 'init' '
	"$MMCI" init
'

test_expect 'fresh: every step booted; MIXED, patch 2 named first' '
	"$MMCI" test-series "$SERIES" --base debian-6.12 --per-patch \
		$RUNOPTS > fresh.out 2> err || { tail -30 err; exit 1; }
	cat fresh.out &&
	grep -q "^verdict: $V[0-9]* %.*; the series as a whole: " fresh.out &&
	[ "$(grep -c "^verdict: " fresh.out)" = 2 ] &&
	[ "$(sql "SELECT group_concat(source) FROM job_steps WHERE job_id = 1
	     ORDER BY upto")" = "measured,measured,measured,measured,measured" ] &&
	grep -q "^  +2 mm/mm_init: verify .* worse .* worse$" fresh.out &&
	grep -q "^  +4 mm/mm_init: drop .* better .* no change$" fresh.out &&
	grep -q "(patch 4.s own step): agrees$" fresh.out
'

test_expect 'the daemon runs it again, on the first job'\''s base run' '
	sql "INSERT INTO jobs (kind, series_id, series_ref, status, created_at)
	     VALUES (\"series\", 1, \"debian-6.12\", \"queued\",
	     strftime(\"%s\", \"now\"))" &&
	# the data directory is shared with other files (the kernel tree and
	# the build cache): their daemons wrote jobs/2.log before this one
	rm -f "$MMCI_DATA/jobs/2.log" &&
	MMCI_SOURCES= MMCI_PER_PATCH=1 MMCI_RUN_ARGS="$RUNOPTS" \
		"$MMCI" daemon --once --no-web > daemon.out 2>&1 ||
		{ tail -30 daemon.out; exit 1; }
	[ "$(sql "SELECT status FROM jobs WHERE id = 2")" = done ] &&
	grep -q "^base: reusing run 1, measured" "$MMCI_DATA/jobs/2.log" &&
	[ "$(sql "SELECT source || \" \" || run_id FROM job_steps WHERE
	     job_id = 2 AND upto = 0")" = "reused 1" ] &&
	sql "SELECT note FROM job_steps WHERE job_id = 2 AND upto = 0" |
		grep -qx "run #1 of job #1, same build and set-up (icount)" &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = 2")" = 4 ]
'

test_expect 'the same verdict, table and claims, in output, show and mail' '
	sed -n "/^mmci test-series:/,\$p" "$MMCI_DATA/jobs/2.log" > daemon.out2 &&
	same_part fresh.out > a && same_part daemon.out2 > b &&
	cat a && [ -s a ] && grep -q "^verdict: " a && grep -q "agrees" a &&
	diff -u a b &&
	"$MMCI" show job 1 > show1 && "$MMCI" show job 2 > show2 &&
	same_part show1 > c && same_part show2 > d && diff -u c d &&
	diff -u a c &&
	# the daemon mailed both finished jobs (a dry run, to the outbox)
	p1=$(sql "SELECT path FROM mails WHERE new_run = (SELECT run_id FROM
	     job_steps WHERE job_id = 1 AND upto = 4)") && [ -f "$p1" ] &&
	p2=$(sql "SELECT path FROM mails WHERE new_run = (SELECT run_id FROM
	     job_steps WHERE job_id = 2 AND upto = 4)") && [ -f "$p2" ] &&
	for p in "$p1" "$p2"; do
		sed "/^\$/q" "$p" | sed -e ":a" -e "\$!N;s/\n[ \t]/ /;ta" -e "P;D" |
			sed -n "s/^Subject: //p"
	done > subjects && cat subjects &&
	[ "$(sort -u subjects | wc -l)" = 1 ] &&
	grep -q "MIXED: patch 2/4 fsdax [a-z_]* +" subjects &&
	same_part "$p1" > e && same_part "$p2" > f && diff -u e f &&
	grep -q "^verdict: $V" e
'

test_expect 'every run recorded the host it ran on (hostfacts.h)' '
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"ok\" AND
	     json_extract(host_facts, \"$.kernel\") = \"$(uname -r)\" AND
	     json_extract(host_facts, \"$.cpu\") <> \"\" AND load_end >= 0")" = 9 ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE guests_beside IS NULL")" = 0 ]
'

test_expect 'no domain and no NVDIMM file left' '
	nothing_left_behind
'

test_done
