#!/bin/sh
# t0547-verdict-paths: the metamorphic matrix of docs/TESTING.md over rows.
# One job's result (its verdict, per-patch table, claims, mail subject and
# body, series page) must not depend on how the run of each step was
# obtained. The corpus is kernel-patches/examples/memmap-mixed.mbox: 1/4 a
# no-op, 2/4 a regression (+65.6 % fsdax rebind), 3/4 a no-op, 4/4 the
# improvement that gives it back (so the series as a whole is unchanged:
# a MIXED series whose regression is masked), and the cover letter's
# claim names patch 4. Each path is one layout of rows, as the code that
# makes that path writes them (icount values are exact, so "the same" is
# byte for byte once run ids, job ids and dates are taken out):
#   fresh      every step measured by the job itself
#   reused     the base is another series job's run (icount base reuse)
#   nightly    the base is a nightly's run
#   bisect     the base is a bisection's run
#   resumed    the job was killed (kill -9) in its first attempt: that
#              attempt's base and +1 runs are ok, +2 was interrupted
#              (failed, a partial boot); the second attempt reused its own
#              earlier base and measured the rest
#   remote     the steps' boots ran on a second libvirt host
#   shared     3/4 and 4/4 are the kernels of 2/4 and 1/4: their steps
#              stand on those steps' runs, booted once for both
# Then the failure paths: a step whose run is not finished makes the job
# unmailable (never judged on the series alone), and a step folded for
# lack of a kernel is a stated, mailed result. The booting counterpart is
# t0545 (a second series job on a reused base, through the daemon).
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

command -v sqlite3 >/dev/null || skip_all "sqlite3 inserts the rows"
SERIES="$SRC/kernel-patches/examples/memmap-mixed.mbox"
HOST=$(hostname)
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_DOMAIN MMCI_MAIL_SEND

# the rebind times of each step (ms, icount: every sample the same)
memmap() { case $1 in 0|1|4) echo 163 ;; 2|3) echo 270 ;; esac; }
wall() { case $1 in 0|1|4) echo 170.250 ;; 2|3) echo 277.875 ;; esac; }

# builds 1..5: the base and the series up to each patch, shared by all
builds() {
	for u in 0 1 2 3 4; do
		echo "INSERT INTO builds (id, cache_key, tree_path, commit_id,
			tree_oid, series_id, upto, config_fragment, config_hash,
			compiler, kernel_release, hz, status, started_at) VALUES
			($((u + 1)), 'k$u', '/t', '$u$u$u$u${u}000000000000000000000000000000000000',
			 't$u', $( [ $u = 0 ] && echo NULL || echo 1), $u,
			 'kernel-patches/config/mmci.config', 'cafe', 'gcc 12.2.0',
			 '6.12.117', 1000, 'ok', 0);"
		[ $u = 0 ] || echo "INSERT INTO applies (series_id, base_ref,
			base_commit, upto, head_commit, status, created_at) VALUES
			(1, 'debian-6.12', '00000000000000000000000000000000000000000',
			 $u, '$u$u$u$u${u}000000000000000000000000000000000000', 'ok', 0);"
	done
}

# run ID UPTO JOB [STATUS [BOOT_HOST [SAMPLES [LABEL]]]]: a run of step
# UPTO made by JOB, labelled as the job that made it labels its runs, one
# boot on BOOT_HOST (a libvirt URI; default this host) with SAMPLES (10)
# rebinds
run() {
	r_st=${4:-ok} r_host=${5:-$HOST} r_n=${6:-10}
	r_label=${7:-$( [ $2 = 0 ] && echo "base debian-6.12" ||
		echo "series #1 v1 +$2/4")}
	echo "INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, qemu_version, libvirt_version,
		host, initrd, status, started_at, job_id) VALUES
		($1, '$r_label', $(($2 + 1)), '/k', '6.12.117', '/m',
		 1000, 'fsdax', '{\"iters\":10}', 'tcg', 'icount', 1, 1024, 1024,
		 'tmpfs', '7.2.22', '9.0.0', '$HOST', '/i', '$r_st',
		 $((1741600000 + $1 * 1000)), $3);
	INSERT INTO boots (id, run_id, idx, status, started_at, host) VALUES
		($1, $1, 0, '$r_st', 0, '$r_host');
	WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
				 WHERE i < $r_n)
	INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
			     iteration, value)
		SELECT $1, $1, 'fsdax', 'align=2M,map=dev', 'rebind_memmap',
		       'ms', i, $(memmap $2) FROM it
		UNION ALL
		SELECT $1, $1, 'fsdax', 'align=2M,map=dev', 'rebind_wall',
		       'ms', i, $(wall $2) FROM it;"
}

# job ID KIND: a finished job (a series job of series 1 on debian-6.12)
job() {
	echo "INSERT INTO jobs (id, kind, status, created_at, series_id,
		series_ref, attempts, result) VALUES ($1, '$2', 'done',
		$((1741600000 + $1)), $( [ "$2" = series ] && echo 1 || echo NULL),
		'debian-6.12', ${3:-1}, NULL);"
}

# steps JOB SOURCE:RUN:UPTO...: the job's recorded steps and its result,
# as series-job.c writes them (job_set_steps(), then job_end())
steps() {
	s_job=$1
	shift
	for s in "$@"; do
		s_src=${s%%:*} s_rest=${s#*:} s_run=${s_rest%%:*} s_upto=${s_rest#*:}
		if [ "$s_src" = bisected ]; then
			# folded by a bisection (series-job.c): the ends of
			# the interval, 0 and 4 here, did not differ
			echo "INSERT INTO job_steps (job_id, upto, run_id, source,
				note) VALUES ($s_job, $s_upto, NULL, 'folded',
				'not measured: +0 and +4 do not differ (bisection), its effect is counted with patch 4''s; a change undone in between cannot be seen');"
		elif [ "$s_src" = folded ]; then
			echo "INSERT INTO job_steps (job_id, upto, run_id, source,
				note) VALUES ($s_job, $s_upto, NULL, 'folded',
				'no kernel (build failed): its effect is counted with patch $((s_upto + 1))''s');"
		else
			echo "INSERT INTO job_steps (job_id, upto, run_id, source,
				note) VALUES ($s_job, $s_upto, $s_run, '$s_src',
				'$s_src run #$s_run');"
		fi
	done
	echo "UPDATE jobs SET result = json_object('base_run',
		(SELECT run_id FROM job_steps WHERE job_id = $s_job AND upto = 0),
		'new_run', (SELECT run_id FROM job_steps WHERE job_id = $s_job
		AND upto = 4), 'worse', 0, 'better', 0) WHERE id = $s_job;"
}

# the job's outputs without what names the runs: run and job ids, a
# run's label (a reused run keeps the one its own job gave it), dates and
# message-ids
norm() {
	sed -E -e 's/(run|job|runs) #?[0-9]+/\1 #N/g' \
	    -e 's/reproduce( --bundle)? [^ ]*[0-9]+/reproduce\1 N/g' \
	    -e 's#/(bundle|run|runs)/[0-9]+#/\1/N#g' \
	    -e 's#compare/[0-9]+[/-][0-9]+#compare/N-N#g' \
	    -e 's/^(base|new):( +run #N) ("[^"]*"|.*\(kernel)/\1:\2 LABEL/' \
	    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:]+( UTC)?/DATE/g' \
	    -e 's/<[^>]*@[^>]*>/<ID>/g'
}

# outputs JOB NAME: NAME.verdict (show job's verdict and tables), NAME.mail
# (subject and body of `mmci report --job`), NAME.page (the series page's
# verdict and tables, without the runs' provenance, which is the path's)
outputs() {
	"$MMCI" show job "$1" > "$2.show" &&
	sed -n "/^verdict: /,\$p" "$2.show" | sed "/^runs made by this job:/,\$d" |
		norm > "$2.verdict" &&
	"$MMCI" report --job "$1" --force > "$2.report" 2>&1 &&
	p=$(sed -n "s/^job #$1: .*: \(\/.*\.eml\)\$/\1/p" "$2.report") &&
	[ -f "$p" ] &&
	{ sed "/^\$/q" "$p" | sed -e ":a" -e "\$!N;s/\n[ \t]/ /;ta" -e "P;D" |
		grep "^Subject:"; sed "1,/^\$/d" "$p"; } | norm > "$2.mail" &&
	"$MMCI" web --render > /dev/null &&
	page=$MMCI_DATA/www/series/1.html && [ -f "$page" ] &&
	sed -n "/id=\"series-verdict\"/p; /<pre id=\"attribution\">/,/<\/pre>/p" "$page" |
		sed "/the runs of job/,/^\$/d" | norm > "$2.page"
}

same_as_fresh() {
	for k in verdict mail page; do
		diff -u "fresh.$k" "$1.$k" || { echo "# $1.$k differs"; return 1; }
	done
}

test_expect 'the corpus: four patches, the cover letter names patch 4' '
	"$MMCI" init --no-tree &&
	"$MMCI" ingest "$SERIES" > out && cat out &&
	[ "$(sql "SELECT total FROM series WHERE id = 1")" = 4 ] &&
	[ "$(sql "SELECT step FROM claims WHERE patch = 0 AND text LIKE
	     \"Patch 4 reduces%\"")" = 4 ] &&
	builds | sqlite3 -bail "$MMCI_DB"
'

test_expect 'fresh: the job measured every step; MIXED, patch 2 named first' '
	{ job 11 series
	  for u in 0 1 2 3 4; do run $((110 + u)) $u 11; done
	  steps 11 measured:110:0 measured:111:1 measured:112:2 \
		measured:113:3 measured:114:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 11 fresh && cat fresh.verdict fresh.mail &&
	V="MIXED: patch 2/4 fsdax rebind_memmap +66 %; the series as a whole: no significant change" &&
	[ "$(head -1 fresh.verdict)" = "verdict: $V" ] &&
	grep -qx "Subject: \[mmci\] \[PATCH 0/4\] mm/mm_init:\.\.\.: MIXED: patch 2/4 fsdax rebind_memmap +66 %; series no change" fresh.mail &&
	[ "$(sed -n "2,/^$/p" fresh.mail | tr "\n" " " | sed "s/  */ /g; s/ $//")" = "verdict: $V" ] &&
	grep -q "^  +2 mm/mm_init: verify .* +65.64% .* worse .* +65.64% .* worse$" fresh.verdict &&
	grep -q "^  +4 mm/mm_init: drop .* -39.63% .* better .* +0.00% .* no change$" fresh.verdict &&
	C="claimed -39.6%, measured -39.6% \[-40.0, -39.3\] on fsdax align=2M,map=dev rebind_memmap (patch 4.*s own step): agrees" &&
	grep -q "$C" fresh.verdict &&
	# the mail folds its lines at 80 columns: read it unfolded
	tr "\n" " " < fresh.mail | sed "s/  */ /g" | grep -q "$C" &&
	[ "$(awk "length(\$0) > 80" fresh.mail | grep -cv "^Subject: ")" = 0 ] &&
	grep -q "$C" fresh.page &&
	grep -q "class=\"v-worse\">job #N: verdict: $V</p>" fresh.page &&
	! grep -q "^verdict: " fresh.mail.body 2>/dev/null &&
	[ "$(grep -c "verdict: " fresh.mail)" = 1 ]
'

test_expect 'reused: the base is an earlier series job'\''s run' '
	{ job 20 series; run 200 0 20
	  job 21 series; for u in 1 2 3 4; do run $((210 + u)) $u 21; done
	  steps 21 reused:200:0 measured:211:1 measured:212:2 \
		measured:213:3 measured:214:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 21 reused && same_as_fresh reused
'

test_expect 'nightly: the base is a nightly'\''s run' '
	{ job 30 nightly; run 300 0 30 ok "$HOST" 10 "nightly mm-new 000000000000"
	  job 31 series; for u in 1 2 3 4; do run $((310 + u)) $u 31; done
	  steps 31 reused:300:0 measured:311:1 measured:312:2 \
		measured:313:3 measured:314:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 31 nightly && same_as_fresh nightly
'

test_expect 'bisect: the base is a bisection'\''s run' '
	{ job 40 bisect; run 400 0 40 ok "$HOST" 10 good
	  job 41 series; for u in 1 2 3 4; do run $((410 + u)) $u 41; done
	  steps 41 reused:400:0 measured:411:1 measured:412:2 \
		measured:413:3 measured:414:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 41 bisect && same_as_fresh bisect
'

test_expect 'resumed: killed in its first attempt, its base reused' '
	{ job 51 series 2
	  run 510 0 51; run 511 1 51; run 512 2 51 failed "$HOST" 3
	  for u in 1 2 3 4; do run $((520 + u)) $u 51; done
	  steps 51 reused:510:0 measured:521:1 measured:522:2 \
		measured:523:3 measured:524:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 51 resumed && same_as_fresh resumed
'

test_expect 'remote: the steps booted on a second libvirt host' '
	{ job 61 series; run 610 0 61
	  for u in 1 2 3 4; do
		run $((610 + u)) $u 61 ok "qemu+tcp://127.0.0.2:16510/system"
	  done
	  steps 61 measured:610:0 measured:611:1 measured:612:2 \
		measured:613:3 measured:614:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 61 remote && same_as_fresh remote
'

test_expect 'the index: the series and its jobs with their verdict badges' '
	# job_end() stores the verdict the job printed: here show job'"'"'s
	for j in 11 21 31 41 51 61; do
		v=$("$MMCI" show job $j | sed -n "s/^verdict: //p" | head -1) &&
		sql "UPDATE jobs SET result = json_set(result, \"$.verdict\",
		     \"$v\") WHERE id = $j" || return 1
	done &&
	"$MMCI" web --render > /dev/null &&
	idx="$MMCI_DATA/www/index.html" &&
	sed -n "/<table id=\"series\">/,/<\/table>/p" "$idx" > series.html &&
	grep -q "<a href=\"/series/1\">#1</a></td><td><span class=\"badge b-mixed\" title=\"MIXED: patch 2/4 fsdax rebind_memmap +66 %; the series as a whole: no significant change\">mixed</span>" series.html &&
	sed -n "/<table id=\"jobs\">/,/<\/table>/p" "$idx" > jobs.html &&
	[ "$(grep -c "badge b-mixed" jobs.html)" = 6 ] &&
	grep -q "<tr><td>#30</td><td>nightly</td><td></td><td><span class=\"badge b-done\">done</span>" jobs.html
'

test_expect 'show job says which run stands for each step and why' '
	grep -q "^0	200	reused	20	ok	reused run #200$" reused.show &&
	grep -q "^2	212	measured	21	ok	measured run #212$" reused.show &&
	grep -q "^512	series #1 v1 +2/4	2	tcg	icount	failed	0	" resumed.show
'

# shared: 3/4 changes only documentation and 4/4 undoes 2/4, so their
# kernels are those of 2/4 and 1/4 (one build key and .config) and the
# job booted those once for both steps (measure_share_kernels())
test_expect 'shared: steps 3 and 4 stand on the runs of steps 2 and 1' '
	{ job 65 series
	  for u in 0 1 2; do run $((650 + u)) $u 65; done
	  steps 65 measured:650:0 measured:651:1 measured:652:2 \
		reused:652:3 reused:651:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 65 shared && same_as_fresh shared &&
	grep -q "^3	652	reused	65	ok	reused run #652$" shared.show
'

test_expect 'a step whose run is not finished: the job is not mailed' '
	{ job 71 series; run 710 0 71
	  for u in 1 3 4; do run $((710 + u)) $u 71; done
	  run 712 2 71 failed
	  steps 71 measured:710:0 measured:711:1 measured:712:2 \
		measured:713:3 measured:714:4; } | sqlite3 -bail "$MMCI_DB" &&
	n=$(sql "SELECT count(*) FROM mails") &&
	set +e; "$MMCI" report --job 71 > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -qx "error: job #71: not mailed: its steps cannot be attributed: job #71: the run of step 2 (run #712, measured) is failed, not a finished run" err &&
	[ "$(grep -c "^error:" err)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM mails")" = "$n" ] &&
	sql "SELECT report_note FROM jobs WHERE id = 71" | grep -q "^not mailed: its steps cannot be attributed: job #71: the run of step 2 (run #712, measured) is failed" &&
	"$MMCI" show job 71 | grep -q "^verdict: none: job #71: the run of step 2"
'

test_expect 'a step without a kernel is folded: said, and mailed' '
	{ job 81 series; for u in 0 1 2 4; do run $((810 + u)) $u 81; done
	  steps 81 measured:810:0 measured:811:1 measured:812:2 \
		folded:0:3 measured:814:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 81 folded && cat folded.verdict &&
	[ "$(head -1 folded.verdict)" = "$(head -1 fresh.verdict)" ] &&
	grep -q "^patch 3: no kernel (build failed): its effect is counted with patch 4.s$" folded.verdict &&
	grep -q "^  +3 Documentation/mm: .* no kernel: counted with the next step$" folded.verdict &&
	grep -q "^  +4 mm/mm_init: drop .* -39.63% .* better .* +0.00% .* no change$" folded.verdict &&
	grep -q "^patch 3/4: no kernel (build failed): its effect is counted with patch 4.s$" folded.mail &&
	grep -A2 "^patch 4/4 mm/mm_init: drop" folded.mail | grep -q "^    270.0 -> 163.0  -39.63% \[-40.00, -39.26\]  better$" &&
	grep -q "^Subject: .*MIXED: patch 2/4 fsdax rebind_memmap +66 %" folded.mail
'

# a long series is bisected (--steps=auto above 8 patches): base and head
# first. This corpus is the case bisection cannot see: 4/4 gives back
# what 2/4 took, so the ends do not differ and nothing in between is
# measured. Its result is not fresh's, and every output says why.
test_expect 'bisected, ends equal: no change, the folded steps say why' '
	{ job 91 series; for u in 0 4; do run $((910 + u)) $u 91; done
	  steps 91 measured:910:0 bisected:0:1 bisected:0:2 bisected:0:3 \
		measured:914:4; } | sqlite3 -bail "$MMCI_DB" &&
	outputs 91 bisected && cat bisected.verdict bisected.mail &&
	grep -q "^verdict: no significant change" bisected.verdict &&
	grep -q "^patches 1-3: not measured: +0 and +4 do not differ (bisection), its effect is counted with patch 4.s; a change undone in between cannot be seen$" bisected.verdict &&
	grep -q "(patches 1-4 together: the steps between were not measured): smaller than claimed$" bisected.verdict &&
	grep -q "^patches 1-3/4: not measured: +0 and +4 do not differ (bisection)" bisected.mail &&
	grep -q "a change undone in between cannot be seen" bisected.page
'

# forged_job J SET: job J of the series with its five steps measured
# (runs J*10 to J*10+4), then "UPDATE samples SET <SET>" on the first
# sample of step 2's run
forged_job() {
	r=$(($1 * 10))
	{ job $1 series
	  for u in 0 1 2 3 4; do run $((r + u)) $u $1; done
	  steps $1 measured:$r:0 measured:$((r + 1)):1 \
		measured:$((r + 2)):2 measured:$((r + 3)):3 measured:$((r + 4)):4
	  echo "UPDATE samples SET $2 WHERE id = (SELECT min(id)
		FROM samples WHERE run_id = $((r + 2)));"; } |
		sqlite3 -bail "$MMCI_DB"
}

# The database is the service user's, who parses the internet's mail: a
# parser taken over can write samples no guest sent. What reads them for a
# verdict takes only what a runner's line could have stored (result.c:
# a number in [0, 1e12]): anything else fails the job's report with the
# reason, and no verdict, mail or page is made from it.
test_expect 'forged samples (text, huge, negative): refused, said, not mailed' '
	j=100 &&
	for f in "'"'"'x; DROP'"'"'" 1e300 -5; do
		case $f in 1e300) w=1e+300 ;; -5) w=-5 ;; *) w=text ;; esac &&
		j=$((j + 1)) && r=$((j * 10)) && forged_job $j "value = $f" &&
		n=$(sql "SELECT count(*) FROM mails") &&
		{ "$MMCI" report --job $j > out 2> err; rc=$?; } &&
		cat err && [ $rc = 1 ] &&
		grep -q "^error: job #$j: not mailed: .*run #$((r + 2)): a stored sample of fsdax rebind_memmap is $w, not a number in \[0, 1e+12\] a guest can send: refused" err &&
		[ "$(sql "SELECT count(*) FROM mails")" = "$n" ] &&
		sql "SELECT report_note FROM jobs WHERE id = $j" | grep -q "a guest can send: refused" &&
		"$MMCI" show job $j > show 2>&1 && head -1 show &&
		grep -q "^verdict: none: .*a guest can send: refused" show || exit 1
	done
'

# The same for the names: a workload, variant, metric or unit that
# result.c would not have stored (an escape sequence, an over-long name,
# an unknown unit) fails the comparison without being printed, and
# `mmci show run` shows such a row with each control as U+FFFD.
test_expect 'forged sample names (controls, long, unit): refused, never printed' '
	j=200 && esc=$(printf "\033") &&
	for f in "metric = metric || char(27) || '"'"'[31m'"'"'" \
		 "workload = printf('"'"'%040d'"'"', 7)" \
		 "unit = '"'"'parsecs'"'"'"; do
		j=$((j + 1)) && r=$((j * 10)) && forged_job $j "$f" &&
		n=$(sql "SELECT count(*) FROM mails") &&
		{ "$MMCI" report --job $j > out 2> err; rc=$?; } &&
		cat err && [ $rc = 1 ] &&
		grep -q "^error: job #$j: not mailed: .*a stored sample names a workload, variant, metric or unit (.* bytes) no guest can send: refused" err &&
		! grep -q "$esc\|0000000007\|parsecs" err out &&
		[ "$(sql "SELECT count(*) FROM mails")" = "$n" ] &&
		"$MMCI" show job $j > show 2>&1 &&
		grep -q "^verdict: none: .*no guest can send: refused" show &&
		"$MMCI" show run $((r + 2)) > show 2>&1 &&
		! grep -q "$esc" show && cp show show.$j || exit 1
	done &&
	grep -q "$(printf "\357\277\275")\[31m" show.201
'

test_done
