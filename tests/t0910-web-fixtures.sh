#!/bin/sh
# t0910-web-fixtures: the pages of `mmci web` on a database written here,
# no guest: two runs of one boot each (fsdax rebind 163 -> 270 ms in
# icount mode, console logs with hostile text and a NUL byte), a series
# with a hostile subject and sender, a failed job. The pages are fetched
# with curl and checked as HTML (tests/web-check.py); t0900 checks the
# same pages in Chromium on real runs. Part of `make check`.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
PY=$(command -v python3) || skip_all "python3 checks the pages"
. "$SRC/tests/lib-web.sh"
HOST=$(hostname)

# page PATH FILE: the page at http://127.0.0.1:PORT/PATH, status 200
page() {
	c=$(curl -s -o "$2" -w '%{http_code}' \
		"http://127.0.0.1:$(cat "$TRASH/port")$1") &&
	{ [ "$c" = 200 ] || { echo "$1: HTTP $c"; return 1; }; }
}

test_expect 'a series with a hostile subject and sender' '
	"$MMCI" init --no-tree &&
	"$MMCI" ingest "$SRC/tests/web-hostile.mbox" > out && cat out &&
	[ "$(sql "SELECT title FROM series WHERE id = 1")" = \
	  "<script>alert(1)</script> & \"quotes\"" ]
'

# two builds (base, base + the series), a run of one boot on each with
# ten rebinds, as mmci run stores them; the console logs as the guest
# writes them, one line with markup in it, and in run 2 a NUL byte before
# the lines the page must still show
add_runs() {
	for r in 1 2; do
		{ printf "%s\r\n" "[    0.000000] Linux version 6.12.$r" &&
		  { [ $r = 1 ] ||
		    printf "mmci-runner: a NUL\000in the middle\r\n"; } &&
		  printf "%s\r\n" "mmci-runner: fsdax rebind 1/10 of run $r" \
			"mmci-runner: <script>alert(5)</script> from the guest"
		} > "$TRASH/console-$r.log" || return 1
	done
	sqlite3 -bail "$MMCI_DB" <<-EOF
	INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
		series_id, upto, config_fragment, config_hash, compiler,
		kernel_release, hz, status, started_at) VALUES
		(1, 'k1', '/t', 'aaaa', 't1', NULL, 0,
		 'kernel-patches/config/mmci.config', 'h', 'gcc 12.2.0',
		 '6.12.1', 1000, 'ok', 0),
		(2, 'k2', '/t', 'bbbb', 't2', 1, 1,
		 'kernel-patches/config/mmci.config', 'h', 'gcc 12.2.0',
		 '6.12.2', 1000, 'ok', 0);
	INSERT INTO applies (series_id, base_ref, base_commit, upto,
		head_commit, status, created_at) VALUES
		(1, 'base', 'aaaa', 1, 'bbbb', 'ok', 0);
	INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, qemu_version, libvirt_version,
		host, initrd, status, started_at, ended_at) VALUES
		(1, 'web-base', 1, '/k1', '6.12.1', '/m', 1000, 'fsdax',
		 '{"iters":10}', 'tcg', 'icount', 1, 1280, 2048, 'tmpfs',
		 '7.2.15', '9.0.0', '$HOST', '/i', 'ok', 1700000000, 1700000060),
		(2, 'web-new', 2, '/k2', '6.12.2', '/m', 1000, 'fsdax',
		 '{"iters":10}', 'tcg', 'icount', 1, 1280, 2048, 'tmpfs',
		 '7.2.15', '9.0.0', '$HOST', '/i', 'ok', 1700000100, 1700000160);
	INSERT INTO boots (id, run_id, idx, status, end_kind, console_log,
		started_at, duration_s) VALUES
		(1, 1, 0, 'ok', 'poweroff', '$TRASH/console-1.log', 1700000000, 60),
		(2, 2, 0, 'ok', 'poweroff', '$TRASH/console-2.log', 1700000100, 60);
	WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
				 WHERE i < 10)
	INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
			     iteration, value)
		SELECT 1, 1, 'fsdax', 'align=2M,map=dev', 'rebind_memmap', 'ms',
		       i, 163 FROM it
		UNION ALL
		SELECT 2, 2, 'fsdax', 'align=2M,map=dev', 'rebind_memmap', 'ms',
		       i, 270 FROM it
		UNION ALL
		SELECT 1, 1, 'fsdax', 'align=2M,map=dev', 'rebind_wall', 'ms',
		       i, 170 + i % 2 FROM it
		UNION ALL
		SELECT 2, 2, 'fsdax', 'align=2M,map=dev', 'rebind_wall', 'ms',
		       i, 171 - i % 2 FROM it;
	INSERT INTO jobs (kind, status, created_at, error, series_id) VALUES
		('series', 'failed', 0, '<script>alert(3)</script>', 1);
	EOF
}

test_expect 'runs 1 (base) and 2 (the series): boots, samples, console logs' '
	add_runs &&
	"$MMCI" compare 1 2 > cmp && cat cmp &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .* worse$" cmp
'

test_expect 'mmci web starts on a free loopback port' web_start

test_expect 'pages answer 200, unknown ones 404, POST 405' web_status_codes

test_expect 'the index lists both runs, the series and the job, escaped' '
	page / index.html &&
	$CHECK index.html rows:runs:2 href:/run/1 href:/run/2 \
		cell:runs:web-base cell:runs:web-new href:/series/1 \
		rows:jobs:1 "cell:jobs:<script>alert(3)</script>" \
		"href:/metric/fsdax/rebind_memmap?variant=$VARIANT" notag:script
'

test_expect 'a run page: provenance, metrics, boots, the console log escaped' '
	page /run/2 run.html &&
	$CHECK run.html "h1:run #2" "text:reproduce:mmci reproduce 2" \
		id:provenance cell:provenance:web-new cell:provenance:6.12.2 \
		minrows:metrics:2 rows:boots:1 href:/compare/1/2 \
		"text:console-0:mmci-runner: fsdax rebind 1/10 of run 2" \
		"text:console-0:mmci-runner: <script>alert(5)</script> from the guest" \
		notag:script
'

test_expect 'a NUL byte in a console log is shown, and all that follows it' '
	page /run/2 run.html &&
	$CHECK run.html \
		"text:console-0:mmci-runner: a NUL$(printf "\342\220\200")in the middle" \
		"text:console-0:mmci-runner: fsdax rebind 1/10 of run 2" \
		"text:console-0:mmci-runner: <script>alert(5)</script> from the guest" &&
	[ "$(tr -cd "\000" < "$TRASH/console-2.log" | wc -c)" = 1 ]
'

test_expect 'the compare page: the table and the verdict' '
	page /compare/1/2 cmp.html &&
	$CHECK cmp.html "h1:run #1 vs run #2" minrows:comparison:2 \
		id:verdict "text:verdict:verdict:" "text:comparison:worse"
'

test_expect 'the series page shows the hostile subject and sender as text' '
	page /series/1 series.html &&
	$CHECK series.html "h1:<script>alert(1)</script> & \"quotes\"" \
		notag:script notag:b notag:img rows:patches:1 \
		"cell:patches:mm: <img src=x onerror=alert(2)> tweak" \
		"cell:series-info:Mallory <b>Bold</b> <mallory@example.org>" \
		rows:series-runs:1 href:/compare/1/2 \
		href:https://lore.kernel.org/r/patch-xss%40example.org
'

test_expect 'the metric page links both runs' '
	page "/metric/fsdax/rebind_memmap?variant=$VARIANT" metric.html &&
	$CHECK metric.html "h1:fsdax rebind_memmap align=2M,map=dev" \
		href:/run/1 href:/run/2
'

# the plots come from gnuplot (make setup installs it): without it the
# pages say so and these two cases are skipped, visibly
if command -v gnuplot >/dev/null; then
	test_expect 'plots: a point per boot on the compare page' '
		$CHECK cmp.html tags:svg:1 id:plot "plot:1:base #1" "plot:1:new #2"
	'
	test_expect 'plots: a point per run on the metric page' '
		$CHECK metric.html tags:svg:1 id:plot \
			"plot:2:tcg/icount, 2048 MiB NVDIMM on tmpfs, 1280 MiB RAM, 1 vCPU(s)"
	'
	# an arm64 run of the same machine otherwise: compare.c never
	# compares it with an x86_64 one, so it is a line of its own
	test_expect 'plots: an arm64 run of the same set-up is a line of its own' '
		sqlite3 -bail "$MMCI_DB" <<-EOF &&
		INSERT INTO runs (id, label, build_id, kernel, kernel_release,
			modules_root, hz, workloads, params, accel, clock, vcpus,
			ram_mib, nvdimm_mib, backing, qemu_version,
			libvirt_version, host, initrd, status, started_at,
			ended_at, arch) VALUES
			(3, "web-arm64", 1, "/k3", "6.12.1", "/m", 1000, "fsdax",
			 "{}", "tcg", "icount", 1, 1280, 2048, "tmpfs",
			 "7.2.15", "9.0.0", "$HOST", "/i", "ok", 1700000200,
			 1700000260, "arm64");
		INSERT INTO boots (id, run_id, idx, status, end_kind,
			started_at, duration_s) VALUES
			(3, 3, 0, "ok", "poweroff", 1700000200, 60);
		INSERT INTO samples (run_id, boot_id, workload, variant, metric,
			unit, iteration, value) VALUES
			(3, 3, "fsdax", "align=2M,map=dev", "rebind_memmap", "ms",
			 1, 400), (3, 3, "fsdax", "align=2M,map=dev",
			 "rebind_memmap", "ms", 2, 401);
		EOF
		web_rendered &&
		page "/metric/fsdax/rebind_memmap?variant=$VARIANT" arm.html &&
		$CHECK arm.html tags:svg:1 \
			"plot:2:tcg/icount, 2048 MiB NVDIMM on tmpfs, 1280 MiB RAM, 1 vCPU(s)" \
			"plot:1:tcg/icount, arm64 guest (4 KiB pages), 2048 MiB NVDIMM on tmpfs, 1280 MiB RAM, 1 vCPU(s)"
	'
else
	test_skip "gnuplot is not installed (make setup installs it)" \
		"plots: a point per boot on the compare page"
	test_skip "gnuplot is not installed (make setup installs it)" \
		"plots: a point per run on the metric page"
	test_skip "gnuplot is not installed (make setup installs it)" \
		"plots: an arm64 run of the same set-up is a line of its own"
fi

test_expect 'unknown pages get the 404 page, the path escaped' '
	curl -s -o nope.html "http://127.0.0.1:$(cat port)/nope" &&
	$CHECK nope.html "h1:404" "text:error:no page" &&
	curl -s -o xss.html \
		"http://127.0.0.1:$(cat port)/%3Cscript%3Ealert(4)%3C/script%3E" &&
	$CHECK xss.html "h1:404" "text:error:<script>alert(4)</script>" \
		notag:script
'

test_expect 'SIGTERM stops mmci web cleanly' web_stop

test_done
