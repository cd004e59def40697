#!/bin/sh
# t0545-verdict-paths-boot: the booting case of the metamorphic matrix
# (docs/TESTING.md; t0547 lays out every path over rows). A masked
# series (kernel-patches/examples/memmap-mixed.mbox: 2/4 costs two thirds
# more per bind, 4/4 gives it back) is measured per patch twice on real
# kernels and guests, icount, a 1 GiB NVDIMM: first fresh by
# `mmci test-series` as root, then again as a queued job the daemon runs
# as the service user under the root parent (`mmci-priv -- mmci daemon`,
# on that user's copy of the data), which reuses the first job's base run
# instead of booting it and boots the rest through the parent. Both jobs must
# give the same verdict, the same per-patch table of rebind_memmap (the
# kernel's own time, exact under icount) and the same claim check, in
# the command's output, `mmci show job` and the mail. The kernels of
# patches 1 and 2 are t0510's; 3/4 (documentation only) and 4/4 (2/4
# undone) build nothing and boot nothing: their kernels are those of 2/4
# and 1/4, and their steps take those steps' runs.
#
# The profiles (profile.h) ride on the same kernels: 2/4 and 4/4 moved a
# metric, so their steps are booted once more with QEMU's counting
# plugin; the profile must name the function the patches change
# (memmap_init_zone_device, into which the static check is inlined) with
# a delta that accounts for the whole change within 1 %, name nothing
# for the comment-only 1/4, and be the same on the daemon's path, which
# reuses the profiles of runs of the same builds instead of booting.
# Last, the resolution case: kernel-patches/examples/memmap-tiny.mbox
# adds 0.05 % of work; the jiffy metric must not see it, the ns metric
# must, by the same amount in every rebind.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/lib.sh"
# it asserts icount values and the reuse of an icount base: pin TCG
export MMCI_ACCEL=tcg
# the profiles are part of what must be the same on every path
export MMCI_PROFILE=1

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
		-e "/^claimed vs measured/,/^\$/p" \
		-e "/^patch [0-9]\/4, fsdax .* instructions per write/p" \
		-e "/^  *[-+][0-9,]*  [a-z_]/p" |
	awk '!/^verdict: / || !seen++'	# the command says it twice
}

test_expect 'init' '
	"$MMCI" init
'

test_expect 'fresh: each kernel booted once; MIXED, patch 2 named first' '
	"$MMCI" test-series "$SERIES" --base debian-6.12 --per-patch \
		$RUNOPTS > fresh.out 2> err || { tail -30 err; exit 1; }
	cat fresh.out &&
	grep -q "^verdict: $V[0-9]* %.*; the series as a whole: " fresh.out &&
	[ "$(grep -c "^verdict: " fresh.out)" = 2 ] &&
	# 3/4 and 4/4 are the kernels of 2/4 and 1/4: one run for each pair
	[ "$(sql "SELECT group_concat(source) FROM job_steps WHERE job_id = 1
	     ORDER BY upto")" = "measured,measured,measured,reused,reused" ] &&
	[ "$(sql "SELECT group_concat(run_id) FROM job_steps WHERE job_id = 1
	     ORDER BY upto")" = "1,2,3,3,2" ] &&
	[ "$(sql "SELECT count(*) FROM runs")" = 3 ] &&
	sql "SELECT note FROM job_steps WHERE job_id = 1 AND upto >= 3" > notes &&
	cat notes && grep -q "^run #3, the kernel of patch 2 (same build key" notes &&
	grep -q "^run #2, the kernel of patch 1 (same build key" notes &&
	grep -q "\] series #1 v1 +3/4: the kernel of series #1 v1 +2/4 " err &&
	grep -q "^  +2 mm/mm_init: verify .* worse .* worse$" fresh.out &&
	grep -q "^  +4 mm/mm_init: drop .* better .* no change$" fresh.out &&
	grep -q "(patch 4.s own step): agrees$" fresh.out
'

# the median of run $1's samples of metric $2
median() {
	sql "SELECT value FROM samples s JOIN boots b ON b.id = s.boot_id
	     WHERE s.run_id = $1 AND s.metric = \"$2\" AND b.status = \"ok\"
	     ORDER BY value LIMIT 1 OFFSET (SELECT count(*) / 2 FROM samples
	     WHERE run_id = $1 AND metric = \"$2\")"
}

# "patch 2/4, fsdax align=2M,map=dev: +N instructions per write (+X %)"
# then "    +M  memmap_init_zone_device +Y %": M within 1 % of N
profile_accounts() {
	total=$(sed -n "s/^patch $1\/4, fsdax [^:]*: \([-+][0-9,]*\) instructions per write.*/\1/p" "$2" | tr -d ,) &&
	func=$(sed -n "/^patch $1\/4, fsdax/,/^patch/p" "$2" |
		sed -n "s/^  *\([-+][0-9,]*\)  memmap_init_zone_device .*/\1/p" |
		head -1 | tr -d ,) &&
	echo "patch $1/4: total $total, memmap_init_zone_device $func" &&
	[ -n "$total" ] && [ -n "$func" ] &&
	case "$3" in +) [ "$total" -gt 0 ] ;; -) [ "$total" -lt 0 ] ;; esac &&
	awk -v t="$total" -v f="$func" "BEGIN {
		d = t - f; if (d < 0) d = -d; if (t < 0) t = -t
		exit !(d <= 0.01 * t) }"
}

test_expect 'the profile names the function each moving patch changed' '
	grep -A12 "^where the instructions went" fresh.out &&
	profile_accounts 2 fresh.out + &&
	profile_accounts 4 fresh.out - &&
	# the counts and the timed writes agree: no line says they part
	! grep -q "ns a write, timed writes" fresh.out &&
	# profiled: the runs of steps 1 and 2 (around 2/4); 3/4 changes only
	# documentation and 4/4 gives 2/4 back, so steps 3 and 4 have the
	# kernels of steps 2 and 1 (build.c keys the tree without
	# Documentation/) and, for 4/4, the profiles of those kernels
	sql "SELECT s.upto, b.cache_key FROM job_steps s JOIN runs r ON
	     r.id = s.run_id JOIN builds b ON b.id = r.build_id
	     WHERE s.job_id = 1 ORDER BY s.upto" > steps &&
	cat steps && b() { sed -n "s/^$1|//p" steps; } &&
	[ "$(b 3)" = "$(b 2)" ] && [ "$(b 4)" = "$(b 1)" ] &&
	[ "$(cut -d"|" -f2 steps | sort -u | wc -l)" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM profiles WHERE status = \"ok\"")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM profile_funcs WHERE insns <= 0")" = 0 ]
'

test_expect 'the comment-only patch 1/4: the profile names nothing' '
	r0=$(sql "SELECT run_id FROM job_steps WHERE job_id = 1 AND upto = 0") &&
	r1=$(sql "SELECT run_id FROM job_steps WHERE job_id = 1 AND upto = 1") &&
	"$MMCI" profile "$r1" "$r0" > noop.out 2> err || { cat err; exit 1; }
	cat noop.out &&
	grep -qx "  no function moved" noop.out
'

# The daemon's path is also the service user's: `mmci-priv -- mmci daemon`
# on a data directory of that user's own (a copy of this database; a
# clone of the kernel tree that borrows its objects; the builds of job 1
# found through the copied rows, read-only), booting through the root
# parent. The rest of the file goes on with the copy.
SVC=${MMCI_USER:-mmci}
D="$TRASH/svc"

test_expect 'the daemon, as the service user under mmci-priv, reuses job 1'\''s base' '
	[ "$(id -u)" = 0 ] && id "$SVC" > /dev/null && command -v strace > /dev/null ||
		{ echo "needs root, user $SVC and strace (make setup)"; exit 1; }
	mkdir -p "$D" && git clone -q --bare --shared "$MMCI_TREE" "$D/linux" &&
	# moved, not copied: one database in the trash, counted once
	sqlite3 "$MMCI_DB" ".backup '\''$D/mmci.db'\''" &&
	rm -f "$MMCI_DB" "$MMCI_DB-wal" "$MMCI_DB-shm" &&
	sqlite3 "$D/mmci.db" "INSERT INTO jobs (kind, series_id, series_ref,
	     status, created_at) VALUES (\"series\", 1, \"debian-6.12\",
	     \"queued\", strftime(\"%s\", \"now\"))" &&
	chown -R "$SVC": "$D" &&
	( export MMCI_DB="$D/mmci.db" MMCI_DATA="$D" MMCI_TREE="$D/linux" \
		MMCI_PRIV_DIR="$TRASH/priv" MMCI_SOURCES= MMCI_PER_PATCH=1 \
		MMCI_RUN_ARGS="$RUNOPTS"
	  exec strace -o "$TRASH/priv.trace" -e trace=openat,open \
		"$SRC/mmci-priv" -- "$MMCI" daemon --once --no-web ) \
		> daemon.out 2>&1 &
	spid=$! &&
	wait_until 600 "the job child" "ps -eo user:16,pid,ppid,args > ps.now &&
		grep -q \"^$SVC .* test-series \" ps.now && cp ps.now ps.job"
	# who runs what: the parent as root, the daemon and its job as the
	# service user (ours: the children of this parent); while it runs
	(
	pp=$(awk -v s="$spid" "\$3 == s { print \$2 }" ps.job) &&
	grep -E "^root +$pp +$spid [^ ]*mmci-priv -- " ps.job | cut -c1-140 &&
	awk -v p="$pp" "\$3 == p" ps.job > daemon.ps && cut -c1-140 daemon.ps &&
	grep -Eq "^$SVC +[0-9]+ +$pp [^ ]*/mmci daemon " daemon.ps &&
	dd=$(awk "{ print \$2 }" daemon.ps) &&
	awk -v p="$dd" "\$3 == p" ps.job > job.ps && cut -c1-140 job.ps &&
	# the job: the daemon binary itself (/proc/self/exe)
	grep -Eq "^$SVC +[0-9]+ +$dd [^ ]* test-series " job.ps &&
	! grep -v "^$SVC " job.ps &&
	# the daemon, which would hold the SMTP password, is not dumpable:
	# its parsers, the same user, cannot read its environment
	tr "\0" "\n" < /proc/$dd/environ | grep -q "^MMCI_PRIV_FD=" &&
	! runuser -u "$SVC" -- cat /proc/$dd/environ > /dev/null 2>&1
	) > who.out 2>&1
	rc=$? && cat who.out &&
	wait $spid || { tail -30 daemon.out; exit 1; }
	[ $rc = 0 ] &&
	# root, the parent alone, opened nothing but its fixed list
	priv_opened "$TRASH/priv.trace" - "$(realpath "$TRASH/priv")"
'
export MMCI_DB="$D/mmci.db"

test_expect 'the service user'\''s job: on job 1'\''s base run and profiles' '
	[ "$(sql "SELECT status FROM jobs WHERE id = 2")" = done ] &&
	grep -q "^base: reusing run 1, measured" "$D/jobs/2.log" &&
	[ "$(sql "SELECT source || \" \" || run_id FROM job_steps WHERE
	     job_id = 2 AND upto = 0")" = "reused 1" ] &&
	sql "SELECT note FROM job_steps WHERE job_id = 2 AND upto = 0" |
		grep -qx "run #1 of job #1, same build and set-up (icount)" &&
	[ "$(sql "SELECT group_concat(source) FROM job_steps WHERE job_id = 2
	     ORDER BY upto")" = "reused,measured,measured,reused,reused" ] &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = 2")" = 2 ] &&
	# its runs are of the same builds and set-up: their profiles stand
	# (two of job 1 and the base, profiled for the comment-only case)
	[ "$(sql "SELECT count(*) FROM profiles")" = 3 ] &&
	# booted by the parent: the XML names its directory, the logs are
	# the service user'\''s
	PD=$(realpath "$TRASH/priv") &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = 2 AND b.domain_xml LIKE \"%<kernel>$PD/%\"")" = 2 ] &&
	for log in $(sql "SELECT b.console_log FROM boots b JOIN runs r ON
		     r.id = b.run_id WHERE r.job_id = 2"); do
		[ "$(stat -c %U "$log")" = "$SVC" ] || exit 1
	done &&
	ls -A "$TRASH/priv" > left && ! [ -s left ]
'

test_expect 'the same verdict, table and claims, in output, show and mail' '
	sed -n "/^mmci test-series:/,\$p" "$D/jobs/2.log" > daemon.out2 &&
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

test_expect '0.05 % more work: the ns metric sees it, the jiffy one not' '
	"$MMCI" test-series "$SRC/kernel-patches/examples/memmap-tiny.mbox" \
		--base debian-6.12 $RUNOPTS > tiny.out 2> err ||
		{ tail -30 err; exit 1; }
	cat tiny.out &&
	j=$(sql "SELECT max(id) FROM jobs") &&
	b=$(sql "SELECT run_id FROM job_steps WHERE job_id = $j AND upto = 0") &&
	n=$(sql "SELECT run_id FROM job_steps WHERE job_id = $j AND upto = 1") &&
	ms_b=$(median $b rebind_memmap) && ms_n=$(median $n rebind_memmap) &&
	ns_b=$(median $b rebind_memmap_ns) && ns_n=$(median $n rebind_memmap_ns) &&
	echo "rebind_memmap $ms_b -> $ms_n ms; rebind_memmap_ns $ns_b -> $ns_n ns" &&
	[ "$ms_b" = "$ms_n" ] &&
	awk -v b="$ns_b" -v n="$ns_n" "BEGIN {
		p = 100 * (n - b) / b; print \"ns change: \" p \" %\"
		exit !(p > 0.02 && p < 0.1) }" &&
	# in every rebind, not in the median only: the guests count the same
	# instructions but for the patch, so the kernel'\''s periodic work
	# falls into the same rebind of both boots
	sql "SELECT x.iteration, x.value, y.value FROM samples x JOIN samples y
	     ON y.iteration = x.iteration AND y.metric = x.metric
	     WHERE x.run_id = $b AND y.run_id = $n AND
	     x.metric = \"rebind_memmap_ns\" ORDER BY x.iteration" > each &&
	cat each && [ "$(wc -l < each)" = 8 ] &&
	awk -F"|" "{ p = 100 * (\$3 - \$2) / \$2; if (p <= 0.02 || p >= 0.1) bad++ }
		END { exit bad > 0 }" each &&
	grep -q "rebind_memmap_ns" tiny.out &&
	# the profile of the two runs names the function, and nothing else
	"$MMCI" profile "$n" "$b" > tinyprof.out 2> err || { cat err; exit 1; }
	cat tinyprof.out &&
	sed -n "2,\$p" tinyprof.out | grep "^  *+[0-9,]*  " > moved &&
	[ "$(wc -l < moved)" -ge 1 ] &&
	head -1 moved | grep -q "  memmap_init_zone_device "
'

test_expect 'every run recorded the host it ran on (hostfacts.h)' '
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"ok\" AND
	     json_extract(host_facts, \"$.kernel\") = \"$(uname -r)\" AND
	     json_extract(host_facts, \"$.cpu\") <> \"\" AND load_end >= 0")" = 6 ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE guests_beside IS NULL")" = 0 ]
'

test_expect 'no domain and no NVDIMM file left' '
	nothing_left_behind
'

test_done
