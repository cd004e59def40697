#!/bin/sh
# t0916-web-branch: the branch pages (/branch/REMOTE/BRANCH) and the
# series page's per-boot plot, on a database written here as the
# commands write it, no guest. mm/mm-new has 14 nights of nightly jobs
# (the head run of each, and the previous head measured again beside it),
# fsdax rebind_memmap stepping from 100 to 125 ms at night 8 and a bisect
# job of the range 7..8; mm/mm-stable has 3 nights; a series job runs the
# same set-up meanwhile; two branches have names no file may have; the
# memmap-mixed example series is tested patch by patch as v1 (MIXED) and
# v2 (BETTER, as its cover letter claims). The pages are read with curl
# (tests/web-check.py) and in headless Chromium: its DOM, the layout at a
# phone's 390 px and at 1280 px, the index's filters
# (tests/web-measure.py), and screenshots copied to /work/screens
# (MMCI_SCREENS) for people to look at. Part of `make check`.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
command -v python3 >/dev/null || skip_all "python3 checks the pages"
. "$SRC/tests/lib-web.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
SCREENS=${MMCI_SCREENS:-/work/screens}
HOST=$(hostname)
T0=1767225600		# 2026-01-01 00:00 UTC; night N starts N days later
W=fsdax
V=align=2M,map=dev

# page PATH FILE: the page at http://127.0.0.1:PORT/PATH, status 200
page() {
	c=$(curl -s -o "$2" -w '%{http_code}' \
		"http://127.0.0.1:$(cat "$TRASH/port")$1") &&
	{ [ "$c" = 200 ] || { echo "$1: HTTP $c"; return 1; }; }
}

# dom PATH FILE: the DOM Chromium built for the page
dom() {
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --dump-dom \
		"http://127.0.0.1:$(cat "$TRASH/port")$1" > "$2" 2> "$2.err"
}

# shot PATH FILE: a screenshot of the page, a PNG, copied to $SCREENS
# when it can be: a directory shared with other runs and users is no
# part of what the test checks
shot() {
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --hide-scrollbars \
		--screenshot="$TRASH/$2" --window-size=1280,2400 \
		"http://127.0.0.1:$(cat "$TRASH/port")$1" 2> "$2.err" &&
	[ "$(head -c 8 "$TRASH/$2" | od -An -tx1 | tr -d " ")" = \
	  89504e470d0a1a0a ] &&
	[ "$(wc -c < "$TRASH/$2")" -gt 10000 ] &&
	{ { mkdir -p "$SCREENS" && cp "$TRASH/$2" "$SCREENS/$2"; } 2> /dev/null ||
	  echo "$2 not copied to $SCREENS (MMCI_SCREENS)"; }
}

# the commit of a head: hex, one per branch and night
commit() { printf '%s%02d%037d' "$1" "$2" "$2"; }

# run ID TIME LABEL JOB MEMMAP WALL [BUILD [BOOTS]]: a wall-clock run of
# BOOTS (3) ok boots, 5 rebinds
# each, every run on the same set-up; rebind_memmap of boot B is
# MEMMAP + B, rebind_wall is WALL (variables r_*: sh has no locals)
run_sql() {
	r_id=$1 r_t=$2 r_label=$3 r_job=$4 r_memmap=$5 r_wall=$6
	r_build=${7:-NULL} r_boots=${8:-3}
	echo "INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, host, initrd, status,
		started_at, ended_at, job_id) VALUES ($r_id, '$r_label', $r_build,
		'/k', '6.13.0', '/m', 1000, 'fsdax', '{\"iters\":5}', 'tcg',
		'wall', 1, 1280, 2048, 'tmpfs', '$HOST', '/i', 'ok', $r_t,
		$r_t + 600, $r_job);"
	r_b=0
	while [ $r_b -lt "$r_boots" ]; do
		echo "INSERT INTO boots (id, run_id, idx, status, end_kind,
			started_at, duration_s) VALUES ($r_id$r_b, $r_id, $r_b, 'ok',
			'poweroff', $r_t + $r_b * 100, 90);"
		for r_i in 1 2 3 4 5; do
			echo "INSERT INTO samples (run_id, boot_id, workload,
				variant, metric, unit, iteration, value) VALUES
				($r_id, $r_id$r_b, '$W', '$V', 'rebind_memmap', 'ms',
				 $r_i, $r_memmap + $r_b + ($r_i % 3 - 1) * 0.25),
				($r_id, $r_id$r_b, '$W', '$V', 'rebind_wall', 'ms', $r_i,
				 $r_wall + ($r_i % 2) * 0.1);"
		done
		r_b=$((r_b + 1))
	done
}

# a nightly job of head HEAD-ID: the head run RUN and, after the first
# night, the previous head measured again (run PREV, 900 ms: a point of
# it on a page would show)
nightly_sql() {
	job=$1 head=$2 remote=$3 branch=$4 c=$5 n=$6 run=$7 prev=$8 memmap=$9
	t=$((T0 + n * 86400))
	res="{\"commit\":\"$c\",\"new_run\":$run"
	[ "$prev" = 0 ] || res="$res,\"base_run\":$prev"
	res="$res}"
	echo "INSERT INTO heads (id, remote, url, branch, ref, commit_id,
		kind, nr_commits, fetched_at) VALUES ($head, '$remote',
		'https://example.org/mm.git', '$branch',
		'refs/remotes/$remote/$branch', '$c', 'fast-forward', 1, $t);
	      INSERT INTO jobs (id, kind, head_id, series_ref, status,
		created_at, started_at, ended_at, result) VALUES ($job,
		'nightly', $head, '$c', 'done', $t, $t, $t + 3000, '$res');"
	[ "$prev" = 0 ] ||
		run_sql "$prev" "$t" "nightly $branch previous x" "$job" 900 80
	run_sql "$run" "$((t + 1000))" "nightly $branch $c" "$job" "$memmap" \
		"50.$((n % 3 * 2))"
}

add_nights() {
	{
	echo "BEGIN;"
	n=1
	while [ $n -le 14 ]; do
		# night n: head n, job n, head run n1, previous n2
		memmap=100; [ $n -lt 8 ] || memmap=125
		prev=0; [ $n = 1 ] || prev=${n}2
		nightly_sql $n $n mm mm-new "$(commit a $n)" $n ${n}1 $prev \
			$memmap
		n=$((n + 1))
	done
	for n in 1 2 3; do
		prev=0; [ $n = 1 ] || prev=$((200 + n))2
		nightly_sql $((20 + n)) $((20 + n)) mm mm-stable \
			"$(commit b $n)" $n $((200 + n))1 $prev 140
	done
	# names no file may have (heads.branch takes any text)
	nightly_sql 31 31 mm '<script>alert(6)</script>' "$(commit c 1)" 1 \
		3101 0 100
	nightly_sql 32 32 mm '..' "$(commit d 1)" 1 3201 0 100
	# a bisect of the range of night 8, 7..8 (the bad end abbreviated as
	# a person types it; nightly.c writes it in full), and a failed
	# one of mm-stable's 2..3
	echo "INSERT INTO jobs (id, kind, series_ref, params, status,
		created_at, ended_at, result, error) VALUES (50, 'bisect',
		'$(commit a 7)..$(commit a 8 | cut -c1-12)',
		'{\"workload\":\"$W\",\"variant\":\"$V\",\"metric\":\"rebind_memmap\"}',
		'done', $T0, $T0,
		'{\"first_bad\":\"c0ffee1234567890c0ffee1234567890c0ffee12\",\"workload\":\"$W\",\"variant\":\"$V\",\"metric\":\"rebind_memmap\",\"clean\":true,\"steps\":[]}', NULL),
		(51, 'bisect', '$(commit b 2)..$(commit b 3)',
		'{\"workload\":\"$W\",\"variant\":\"$V\",\"metric\":\"rebind_wall\"}',
		'failed', $T0, $T0, NULL, 'the build of b03 failed');"
	echo "COMMIT;"
	} > nights.sql &&
	sqlite3 -bail "$MMCI_DB" < nights.sql
}

# series 1 tested by job 40: base build (upto 0) and the series (upto 1),
# a run of each during night 5 on the nightly's set-up, 8 boots each,
# rebind_memmap 313.5 -> 375.5 ms
add_series_job() {
	t=$((T0 + 5 * 86400 + 5000))
	{
	echo "BEGIN;
	      INSERT INTO builds (id, cache_key, tree_path, commit_id,
		tree_oid, series_id, upto, config_fragment, config_hash,
		kernel_release, hz, status, started_at) VALUES
		(1, 'k1', '/t', 'aaaa', 't1', NULL, 0, 'f', 'h', '6.13.0',
		 1000, 'ok', 0),
		(2, 'k2', '/t', 'bbbb', 't2', 1, 1, 'f', 'h', '6.13.0', 1000,
		 'ok', 0);
	      INSERT INTO applies (series_id, base_ref, base_commit, upto,
		head_commit, status, created_at) VALUES (1, 'base', 'aaaa', 1,
		'bbbb', 'ok', 0);
	      INSERT INTO jobs (id, kind, series_id, status, created_at,
		started_at, ended_at) VALUES (40, 'series', 1, 'done', $t, $t,
		$t + 3000);"
	run_sql 301 "$t" base 40 310 60 1 8
	run_sql 302 "$((t + 10))" "series +1" 40 372 60 2 8
	# which run stands for each step, as a series job records them
	echo "INSERT INTO job_steps (job_id, upto, run_id, source, note)
		VALUES (40, 0, 301, 'measured', 'measured by this job'),
		(40, 1, 302, 'measured', 'measured by this job');"
	echo "COMMIT;"
	} > series.sql &&
	sqlite3 -bail "$MMCI_DB" < series.sql
}

# kernel-patches/examples/memmap-mixed.mbox as series 2 (v1) and a v2 of
# it as series 3, each tested patch by patch in icount mode (a boot of 10
# rebinds a step, every rebind the same) on mm-new: v1 is MIXED (patch 2
# costs 66 %, patch 4 gives it back), v2's patch 2 costs nothing and its
# patch 4 gains what the cover letter claims (270 -> 163 ms, -39.6 %):
# BETTER, and v2 is 40 % faster than v1
MIXED=$SRC/kernel-patches/examples/memmap-mixed.mbox
v1_memmap() { case $1 in 0|1|4) echo 163 ;; 2|3) echo 270 ;; esac; }
v2_memmap() { case $1 in 4) echo 98.5 ;; *) echo 163 ;; esac; }

# icount_sql ID BUILD JOB LABEL MEMMAP: one boot of 10 rebinds, each
# MEMMAP ms, the wall time 7.25 ms more
icount_sql() {
	t=$((T0 + 6 * 86400 + $1))
	echo "INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, host, initrd, status,
		started_at, ended_at, job_id) VALUES ($1, '$4', $2, '/k',
		'6.13.0', '/m', 1000, 'fsdax', '{\"iters\":10}', 'tcg',
		'icount', 1, 1024, 1024, 'tmpfs', '$HOST', '/i', 'ok', $t,
		$t + 600, $3);
	      INSERT INTO boots (id, run_id, idx, status, end_kind,
		started_at, duration_s) VALUES (${1}0, $1, 0, 'ok', 'poweroff',
		$t, 90);
	      WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
		WHERE i < 10)
	      INSERT INTO samples (run_id, boot_id, workload, variant, metric,
		unit, iteration, value)
		SELECT $1, ${1}0, '$W', '$V', 'rebind_memmap', 'ms', i, $5
		FROM it UNION ALL
		SELECT $1, ${1}0, '$W', '$V', 'rebind_wall', 'ms', i, $5 + 7.25
		FROM it;"
}

# version_sql SERIES JOB BUILDS RUNS MEMMAP-FN: the series' builds
# BUILDS+1 .. BUILDS+4 and applies on mm-new, its job JOB, whose base
# step is run 401 (measured by job 41, reused by the others) and whose
# patch steps are runs RUNS+1 .. RUNS+4
version_sql() {
	vs_series=$1 vs_job=$2 vs_builds=$3 vs_runs=$4 vs_fn=$5
	t=$((T0 + 6 * 86400))
	echo "INSERT INTO jobs (id, kind, series_id, series_ref, status,
		created_at, started_at, ended_at, params, base_note) VALUES
		($vs_job, 'series', $vs_series, 'mm-new', 'done', $t, $t,
		 $t + 3000, '{\"aim\":{\"in_scope\":true,\"workloads\":\"fsdax\",\"nvdimm_mib\":0,\"why\":\"mm/mm_init.c -> fsdax\"}}',
		 'base: no base-commit; mm-new (aaaa) applies');"
	[ "$vs_job" != 41 ] || icount_sql 401 1 41 "base mm-new" 163
	echo "INSERT INTO job_steps (job_id, upto, run_id, source, note)
		VALUES ($vs_job, 0, 401, '$( [ "$vs_job" = 41 ] &&
		echo measured || echo reused)', 'run #401');"
	for u in 1 2 3 4; do
		echo "INSERT INTO builds (id, cache_key, tree_path, commit_id,
			tree_oid, series_id, upto, config_fragment, config_hash,
			kernel_release, hz, status, started_at) VALUES
			($((vs_builds + u)), 'k$vs_series$u', '/t',
			 'c$vs_series$u', 't$vs_series$u', $vs_series, $u, 'f',
			 'h', '6.13.0', 1000, 'ok', 0);
		      INSERT INTO applies (series_id, base_ref, base_commit,
			upto, head_commit, status, created_at) VALUES
			($vs_series, 'mm-new', 'aaaa', $u, 'c$vs_series$u', 'ok',
			 0);"
		icount_sql $((vs_runs + u)) $((vs_builds + u)) "$vs_job" \
			"series #$vs_series +$u/4" "$($vs_fn $u)"
		echo "INSERT INTO job_steps (job_id, upto, run_id, source,
			note) VALUES ($vs_job, $u, $((vs_runs + u)), 'measured',
			'measured by this job');"
	done
	echo "UPDATE jobs SET result = json_object('base_run', 401,
		'new_run', $((vs_runs + 4)), 'worse', 0, 'better', 0)
		WHERE id = $vs_job;"
}

# the verdict a job stored (job_end()): here show job's
store_verdict() {
	v=$("$MMCI" show job "$1" | sed -n "s/^verdict: //p" | head -1) &&
	echo "job #$1: $v" &&
	sql "UPDATE jobs SET result = json_set(result, \"$.verdict\", \"$v\")
	     WHERE id = $1"
}

add_versions() {
	"$MMCI" ingest "$MIXED" > mixed.out &&
	sed -e "s/\[PATCH \([0-9]\)/[PATCH v2 \1/" \
	    -e "s/mmci-mixed@/mmci-mixed-v2@/g" "$MIXED" > mixed-v2.mbox &&
	"$MMCI" ingest mixed-v2.mbox > mixed-v2.out &&
	[ "$(sql "SELECT previous_id FROM series WHERE id = 3")" = 2 ] &&
	{ echo "BEGIN;"
	  version_sql 2 41 10 410 v1_memmap
	  version_sql 3 42 20 420 v2_memmap
	  echo "COMMIT;"; } > versions.sql &&
	sqlite3 -bail "$MMCI_DB" < versions.sql &&
	store_verdict 41 && store_verdict 42
}

test_expect 'the nightly jobs of two branches, a bisect and a series job' '
	"$MMCI" init --no-tree &&
	"$MMCI" ingest "$SRC/tests/web-hostile.mbox" > out &&
	add_nights && add_series_job &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"nightly\"")" = 19 ] &&
	[ "$(sql "SELECT count(*) FROM runs")" = 36 ]
'

test_expect 'two versions of a series tested patch by patch: MIXED, then BETTER' '
	add_versions &&
	sql "SELECT json_extract(result, \"$.verdict\") FROM jobs WHERE id = 41" |
		grep -q "^MIXED: patch 2/4 fsdax rebind_memmap +66 %" &&
	sql "SELECT json_extract(result, \"$.verdict\") FROM jobs WHERE id = 42" |
		grep -q "^BETTER"
'

test_expect 'the triggers name the branch pages, not the names of no file' '
	sql "DELETE FROM pages_dirty" &&
	sql "UPDATE jobs SET reported_at = 1 WHERE id IN (3, 22, 31, 50)" &&
	sql "SELECT key FROM pages_dirty ORDER BY key" > keys && cat keys &&
	grep -qx "branch/mm/mm-new" keys && grep -qx "branch/mm/mm-stable" keys &&
	grep -qx "branch/mm/<script>alert(6)</script>" keys &&
	# bisect 50 ends at a head of mm-new only
	sql "DELETE FROM pages_dirty" &&
	sql "UPDATE jobs SET reported_at = 2 WHERE id = 50" &&
	[ "$(sql "SELECT group_concat(key) FROM pages_dirty")" = \
	  "branch/mm/mm-new,index" ]
'

test_expect 'mmci web starts on a free loopback port' web_start

test_expect 'branch pages: 200; names no file may have and others 404' '
	for p in /branch/mm/mm-new /branch/mm/mm-stable; do
		c=$(code "$p"); echo "$c $p"; [ "$c" = 200 ] || return 1
	done &&
	for p in /branch/mm/nosuch /branch/mm /branch/mm/ /branch/mm/.. \
		/branch/mm/..%2F..%2Fwww /branch/..%2Fmm/mm-new \
		"/branch/mm/%3Cscript%3Ealert(6)%3C%2Fscript%3E" \
		/branch/mm/mm-new/x /branch/mm/.mm-new; do
		c=$(code "$p"); echo "$c $p"; [ "$c" = 404 ] || return 1
	done &&
	# the only branch files are those of the two branches
	(cd "$MMCI_DATA/www" && find branch -type f | sort) > files &&
	cat files &&
	printf "%s\n" branch/mm/mm-new.html branch/mm/mm-stable.html |
		cmp - files
'

test_expect 'the index lists the branches, linked, the others escaped' '
	page / index.html &&
	$CHECK index.html href:/branch/mm/mm-new href:/branch/mm/mm-stable \
		"text:branches:mm/<script>alert(6)</script> (no page" \
		"text:branches:mm/.. (no page" notag:script &&
	[ "$(grep -c "href=\"/branch/" index.html)" = 2 ]
'

test_expect 'mm-new: only its 14 head runs, by night, each linked' '
	page /branch/mm/mm-new new.html &&
	$CHECK new.html "h1:mm/mm-new: nightly" rows:trend-0:14 \
		rows:trend-1:14 "cell:trend-0:2026-01-02" \
		"cell:trend-0:2026-01-15" \
		"cell:trend-0:$(commit a 8 | cut -c1-12)" &&
	n=1 && while [ $n -le 14 ]; do
		$CHECK new.html "href:/run/${n}1" || return 1
		n=$((n + 1))
	done &&
	# not the previous heads measured again, not the series job runs,
	# not another branch: no link to any of them
	for r in 22 142 301 302 2011 2031 3101; do
		! grep -q "href=\"/run/$r\"" new.html || return 1
	done &&
	# oldest first: night 1 before night 14
	[ "$(grep -o "trend-0-run-[0-9]*" new.html | head -1)" = trend-0-run-11 ] &&
	[ "$(grep -o "trend-0-run-[0-9]*" new.html | tail -1)" = trend-0-run-141 ]
'

test_expect 'mm-new: the change point at night 8, in rebind_memmap only' '
	$CHECK new.html "text:trend-0-run-81:change point +" \
		"notext:trend-0-run-71:change point" \
		"notext:trend-0-run-91:change point" \
		"text:cp-0:change points: 1 in 14 nights: 2026-01-09 (run #81) +2" \
		"text:cp-1:change points: none in 14 nights" \
		"notext:trend-1:change point +" &&
	[ "$(grep -o "change point +[0-9.]* %" new.html | sort -u)" = \
	  "change point +24.75 %" ]
'

test_expect 'mm-new: the bisect of 7..8 marked at night 8 and listed' '
	$CHECK new.html \
		"text:trend-0-run-81:bisect job #50: first bad commit c0ffee123456" \
		"notext:trend-1-run-81:bisect" "notext:trend-0-run-71:bisect" \
		rows:bisects:1 "text:bisect-50:first bad commit c0ffee123456" \
		"cell:bisects:$(commit a 7 | cut -c1-12)..$(commit a 8 | cut -c1-12)"
'

test_expect 'mm-stable: its 3 nights, too few for change points, its bisect' '
	page /branch/mm/mm-stable stable.html &&
	$CHECK stable.html rows:trend-0:3 href:/run/2011 href:/run/2031 \
		"text:cp-0:change points: insufficient data" rows:bisects:1 \
		"text:bisect-51:failed: the build of b03 failed" "notext:trend-0:change point +" &&
	! grep -q "href=\"/run/11\"" stable.html
'

# the plots come from gnuplot (make setup installs it)
if command -v gnuplot >/dev/null; then
	test_expect 'plots: the trend with per-boot points and its marks' '
		# 14 medians, 3 boots a night, one change point, one bisect
		$CHECK new.html "plotin:plot-0:14:median" \
			"plotin:plot-0:42:per-boot medians" \
			"plotin:plot-0:1:change point" "plotin:plot-0:1:bisected" \
			"plotin:plot-1:0:change point" \
			"plotin:plot-1:42:per-boot medians"
	'
	# two metrics, a panel each, eight boots a run
	test_expect 'the series page: per-boot medians of base and new' '
		page /series/1 series.html &&
		$CHECK series.html "text:series-verdict:verdict: WORSE" \
			id:per-boot "plotin:per-boot:16:base #301" \
			"plotin:per-boot:16:new #302" notag:script \
			"text:per-boot:1 of 2 metric(s) moved" &&
		# after the per-patch steps, before the claims
		awk "/id=\"per-boot\"/ { p = NR } /id=\"attribution\"/ { a = NR }
		     /id=\"series-verdict\"/ { v = NR }
		     END { exit !(v && p > v && a > p) }" series.html
	'
else
	test_skip "gnuplot is not installed (make setup installs it)" \
		"plots: the trend with per-boot points and its marks"
	test_skip "gnuplot is not installed (make setup installs it)" \
		"the series page: per-boot medians of base and new"
fi

test_expect 'the index: each series row carries what the filters read' '
	page / idx.html &&
	$CHECK idx.html rows:series:3 notag:script &&
	grep -q "<script src=\"/filter.js\" defer></script>" idx.html &&
	cmp "$MMCI_DATA/www/filter.js" "$SRC/web/filter.js" &&
	# (web.c serves it once its route and script-src are there)
	{ [ "$(code /filter.js)" = 200 ] || echo "mmci web: no /filter.js"; } &&
	# the form is the script'"'"'s: without it, the whole list
	! grep -q "class=\"filters\"" idx.html &&
	sed -n "/<table id=\"series\"/,/<\/table>/p" idx.html > rows.html &&
	grep -q "<tr data-verdict=\"mixed\" data-branch=\"mm-new\" data-author=\"mmci demo &lt;mmci-demo@example.org&gt;\" data-subject=\"mm/mm_init: ZONE_DEVICE memmap check, tried and dropped\" data-msgid=\"20250310100000.0.mmci-mixed@example.org\"><td><a href=\"/series/2\">#2</a></td><td><span class=\"badge b-mixed\"" rows.html &&
	grep -q "<tr data-verdict=\"better\" data-branch=\"mm-new\" .* data-msgid=\"20250310100000.0.mmci-mixed-v2@example.org\"><td><a href=\"/series/3\">" rows.html &&
	grep -q "data-subject=\"&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;\"" rows.html &&
	# the worst first: mixed, then the others newest first
	[ "$(grep -o "href=\"/series/[0-9]*\"" rows.html | tr -dc "0-9")" = 231 ]
'

test_expect 'the series page of v1: MIXED, then per patch, the claim, base and workloads' '
	page /series/2 v1.html &&
	$CHECK v1.html "text:series-verdict:verdict: MIXED: patch 2/4" \
		rows:patch-summary:4 "text:claims-text:(patch 4" \
		"text:claims-text:: agrees" \
		"text:base-commit:base commit aaaa (mm-new)" \
		"text:base:job #41 (done): base: no base-commit" \
		"text:aim:measured: fsdax, because mm/mm_init.c -> fsdax" \
		notag:script &&
	! grep -q "id=\"versions\"" v1.html &&
	# what a reader needs first, in this order, the details folded below
	awk "/id=\"series-verdict\"/ { v = NR } /id=\"summary\"/ { s = NR }
	     /id=\"claims\"/ { c = NR } /id=\"setup\"/ { b = NR }
	     /id=\"per-metric\"/ { m = NR }
	     END { exit !(v && v < s && s < c && c < b && b < m) }" v1.html
'

test_expect 'the series page of v2: v2 against v1, a row per metric' '
	page /series/3 v2.html &&
	$CHECK v2.html "text:series-verdict:verdict: BETTER" \
		"text:versions:v2 against v1" href:/series/2 \
		href:/compare/414/424 rows:versions-table:2 \
		"cell:versions-table:rebind_memmap (ms)" \
		"cell:versions-table:fsdax align=2M,map=dev" \
		"cell:versions-table:163" "cell:versions-table:98.5" \
		"cell:versions-table:-39.57 % [-40.18, -38.96]" \
		"cell:versions-table:better" "text:claims-text:: agrees" &&
	# the pair it links is rendered with it
	[ -f "$MMCI_DATA/www/compare/414-424.html" ] &&
	awk "/id=\"claims\"/ { c = NR } /id=\"versions\"/ { w = NR }
	     /id=\"setup\"/ { b = NR } END { exit !(c && c < w && w < b) }" v2.html
'

test_expect 'a new night is rendered by the worker, with its run' '
	{ echo "BEGIN;" &&
	  nightly_sql 15 15 mm mm-new "$(commit a 15)" 15 151 152 125 &&
	  echo "COMMIT;"; } > night15.sql &&
	sqlite3 -bail "$MMCI_DB" < night15.sql &&
	web_rendered &&
	page /branch/mm/mm-new new15.html &&
	$CHECK new15.html rows:trend-0:15 href:/run/151 &&
	! grep -q "href=\"/run/152\"" new15.html
'

if [ -n "$CHROMIUM" ]; then
	test_expect 'chromium: the branch page DOM and a screenshot' '
		dom /branch/mm/mm-new new-dom.html &&
		$CHECK new-dom.html "h1:mm/mm-new: nightly" rows:trend-0:15 \
			"text:trend-0-run-81:change point +" \
			"text:trend-0-run-81:bisect job #50" id:plot-0 \
			notag:script &&
		shot /branch/mm/mm-new branch.png
	'
	test_expect 'chromium: the series page DOM and a screenshot' '
		dom /series/1 series-dom.html &&
		$CHECK series-dom.html id:per-boot id:per-patch notag:script &&
		shot /series/1 series.png
	'
	# the pages as mmci web and nginx serve them, with the script
	# allowed from the site itself (web-measure.py --www)
	MEASURE="python3 $SRC/tests/web-measure.py --chromium $CHROMIUM --www $MMCI_DATA/www"
	# shots WIDTH: the screenshots of a measure, copied to $SCREENS
	shots() {
		for f in "$TRASH"/shots/*-"$1".png; do
			{ [ -f "$f" ] || continue; } &&
			{ { mkdir -p "$SCREENS" && cp "$f" "$SCREENS/"; } 2> /dev/null ||
			  echo "$f not copied to $SCREENS (MMCI_SCREENS)"; }
		done
	}
	test_expect 'chromium, a phone (390 px): no page scrolls sideways, the summary first' '
		mkdir -p shots &&
		$MEASURE --mobile --size 390x844 --shots "$TRASH/shots" \
			/ "scroll<=390" "top:series<844" \
			/series/2 "scroll<=390" "top:summary<844" \
			/series/3 "scroll<=390" "top:summary<844" \
			/series/1 "scroll<=390" "top:summary<844" \
			/branch/mm/mm-new "scroll<=390" /compare/414/424 "scroll<=390" &&
		shots 390
	'
	test_expect 'chromium, 1280 px: no page scrolls sideways either' '
		mkdir -p shots &&
		$MEASURE --size 1280x900 --shots "$TRASH/shots" \
			/ "scroll<=1280" "top:series<900" \
			/series/2 "scroll<=1280" "top:summary<900" \
			/series/3 "scroll<=1280" "top:summary<900" \
			/series/1 "scroll<=1280" /branch/mm/mm-new "scroll<=1280" &&
		shots 1280
	'
	test_expect 'chromium: the index filters by verdict, branch, author, subject, message-id' '
		$MEASURE --size 1280x900 \
			/ shown:series:3 "text:series-count:all 3 shown" \
			"/#verdict=mixed" shown:series:1 \
			"text:series-count:1 of 3 shown" \
			"/#verdict=better" shown:series:1 \
			"/#verdict=regressed" shown:series:0 \
			"/#branch=mm-new" shown:series:2 \
			"/#verdict=mixed&branch=base" shown:series:0 \
			"/#author=mmci+demo+%3Cmmci-demo%40example.org%3E" shown:series:2 \
			"/#q=zone_device" shown:series:2 \
			"/#q=20250310100000.0.mmci-mixed-v2" shown:series:1 \
			"/#q=%3C20250310100000.0.mmci-mixed%40example.org%3E" shown:series:1 \
			"/#q=https%3A%2F%2Flore.kernel.org%2Fr%2F20250310100000.0.mmci-mixed%2540example.org" shown:series:1 \
			"/#q=%3Cscript%3E" shown:series:1 &&
		# without the script: every row, whatever the fragment says
		$MEASURE --no-js --size 390x844 "/#verdict=mixed" shown:series:3
	'
else
	test_skip "chromium is not installed (make setup installs it)" \
		"chromium: the branch page DOM and a screenshot"
	test_skip "chromium is not installed (make setup installs it)" \
		"chromium: the series page DOM and a screenshot"
	for t in "chromium, a phone (390 px): no page scrolls sideways, the summary first" \
		"chromium, 1280 px: no page scrolls sideways either" \
		"chromium: the index filters by verdict, branch, author, subject, message-id"; do
		test_skip "chromium is not installed (make setup installs it)" "$t"
	done
fi

test_expect 'SIGTERM stops mmci web cleanly' web_stop

test_done
