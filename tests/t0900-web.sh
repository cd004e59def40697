#!/bin/sh
# t0900-web: `mmci web` serves the read-only pages, checked in headless
# Chromium (the DOM it built, a screenshot) and with curl (status codes).
# Two real runs of the Debian cloud kernel give a console log and a
# comparison; a series with a hostile subject and sender checks that
# everything from mail is escaped; bad requests get 404/405 and the server
# keeps serving.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (make setup installs it)"
command -v curl >/dev/null || skip_all "curl is not installed"
. "$SRC/tests/lib-web.sh"

# dom PATH FILE: the DOM Chromium built for http://127.0.0.1:PORT/PATH
dom() {
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --dump-dom \
		"http://127.0.0.1:$(cat "$TRASH/port")$1" > "$2" 2> "$2.err"
}

run_small() {
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 4 --map dev "$@"
}

test_expect 'two short runs of the cloud kernel' '
	run_small --label web-base > out1 && grep -q "^run #1: ok" out1 &&
	run_small --label web-new > out2 && grep -q "^run #2: ok" out2
'

test_expect 'a series with a hostile subject and sender, linked to run 2' '
	"$MMCI" ingest "$SRC/tests/web-hostile.mbox" > out && cat out &&
	[ "$(sql "SELECT title FROM series WHERE id = 1")" = \
	  "<script>alert(1)</script> & \"quotes\"" ] &&
	# as test-series records them: a base build, the series build, the apply
	sql "INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
	     series_id, upto, config_fragment, config_hash, status, started_at)
	     VALUES (1, \"k1\", \"t\", \"aaaa\", \"t1\", NULL, 0, \"f\", \"h\",
	     \"ok\", 0), (2, \"k2\", \"t\", \"bbbb\", \"t2\", 1, 1, \"f\", \"h\",
	     \"ok\", 0);
	     INSERT INTO applies (series_id, base_ref, base_commit, upto,
	     head_commit, status, created_at) VALUES (1, \"base\", \"aaaa\", 1,
	     \"bbbb\", \"ok\", 0);
	     UPDATE runs SET build_id = id;
	     INSERT INTO jobs (kind, status, created_at, error, series_id) VALUES
	     (\"series\", \"failed\", 0, \"<script>alert(3)</script>\", 1);"
'

test_expect 'mmci web starts on a free loopback port' web_start

test_expect 'curl: pages answer 200, unknown ones 404, POST 405' web_status_codes

test_expect 'chromium: the index lists both runs, the series and the jobs' '
	dom / index.html &&
	$CHECK index.html rows:runs:2 href:/run/1 href:/run/2 \
		cell:runs:web-base cell:runs:web-new href:/series/1 \
		rows:jobs:1 "cell:jobs:<script>alert(3)</script>" \
		"href:/metric/fsdax/rebind_memmap?variant=$VARIANT" notag:script
'

test_expect 'chromium: a run page has provenance, metrics, the console log and the reproduce line' '
	dom /run/2 run.html &&
	log=$(sql "SELECT console_log FROM boots WHERE run_id = 2") &&
	line=$(grep -a -m1 "^mmci-runner: fsdax rebind" "$log" | tr -d "\r") &&
	echo "$line" &&
	$CHECK run.html "h1:run #2" "text:reproduce:mmci reproduce 2" \
		id:provenance cell:provenance:web-new minrows:metrics:4 \
		rows:boots:1 "text:console-0:$line" href:/compare/1/2 \
		href:/bundle/2 "text:reproduce-bundle:mmci reproduce --bundle" \
		"cell:provenance:$(sql "SELECT kernel_release FROM runs WHERE id = 2")"
'

test_expect 'curl: /bundle/2 is the run as gzip JSON, the hostile title kept as data' '
	curl -s -D hdr -o b2.gz "http://127.0.0.1:$(cat port)/bundle/2" &&
	grep -qi "^content-type: application/gzip" hdr &&
	zcat b2.gz > b2.json &&
	python3 - "$(sql "SELECT count(*) FROM samples WHERE run_id = 2")" <<-\EOF
	import json, sys
	b = json.load(open("b2.json"))
	assert b["format"] == "mmci-bundle/1"
	assert b["origin"]["run"] == 2
	assert b["run"]["label"] == "web-new"
	assert len(b["boots"]) == 1
	assert len(b["boots"][0]["samples"]) == int(sys.argv[1])
	s = b["kernel"]["series"]
	assert s["title"] == "<script>alert(1)</script> & \"quotes\"", s["title"]
	# the test made its build rows by hand: no fragment to carry
	assert b["kernel"]["fragment"]["text"] is None
	EOF
'

test_expect 'chromium: the compare page has the table, verdicts and a plot' '
	dom /compare/1/2 cmp.html &&
	$CHECK cmp.html "h1:run #1 vs run #2" minrows:comparison:4 id:verdict \
		"text:verdict:verdict:" &&
	# gnuplot is a dependency (host-setup.sh): no plot is a failure; one
	# point per boot and run, axes and key not counted
	$CHECK cmp.html tags:svg:1 id:plot "plot:1:base #1" "plot:1:new #2"
'

test_expect 'chromium: the series page shows the hostile subject as text' '
	dom /series/1 series.html &&
	$CHECK series.html "h1:<script>alert(1)</script> & \"quotes\"" \
		notag:script notag:b notag:img rows:patches:1 \
		"cell:patches:mm: <img src=x onerror=alert(2)> tweak" \
		"cell:series-info:Mallory <b>Bold</b> <mallory@example.org>" \
		rows:series-runs:1 href:/compare/1/2 \
		href:https://lore.kernel.org/r/patch-xss%40example.org
'

test_expect 'chromium: the metric page has the trend plot and its numbers' '
	dom "/metric/fsdax/rebind_memmap?variant=$VARIANT" metric.html &&
	$CHECK metric.html "h1:fsdax rebind_memmap align=2M,map=dev" \
		href:/run/1 href:/run/2 &&
	# one line per set-up, a point per run
	$CHECK metric.html tags:svg:1 id:plot \
		"plot:2:tcg/icount, 2048 MiB NVDIMM on tmpfs, 1280 MiB RAM, 1 vCPU(s)"
'

test_expect 'chromium: unknown pages get the 404 page, the path escaped' '
	dom /nope nope.html &&
	$CHECK nope.html "h1:404" "text:error:no page" &&
	dom "/<script>alert(4)</script>" xss.html &&
	$CHECK xss.html "h1:404" "text:error:<script>alert(4)</script>" \
		notag:script
'

test_expect 'chromium: a screenshot of the compare page is a PNG' '
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --hide-scrollbars \
		--screenshot="$TRASH/compare.png" --window-size=1280,1024 \
		"http://127.0.0.1:$(cat port)/compare/1/2" 2> shot.err &&
	[ "$(head -c 8 compare.png | od -An -tx1 | tr -d " ")" = \
	  89504e470d0a1a0a ] &&
	[ "$(wc -c < compare.png)" -gt 10000 ]
'

test_expect 'garbage requests do not stop the server' '
	python3 - "$(cat port)" <<-\EOP &&
	import socket, sys
	for req in (b"GARBAGE\r\n\r\n", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
	            b"GET /run/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabc",
	            b"\x00\xff\r\n\r\n"):
	    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
	    s.sendall(req)
	    s.shutdown(socket.SHUT_WR)
	    try:
	        print(s.recv(100)[:40])
	    except OSError as e:
	        print(e)
	    s.close()
	EOP
	[ "$(code /)" = 200 ] && [ "$(code /run/1)" = 200 ] &&
	kill -0 "$(cat web.pid)"
'

test_expect 'SIGTERM stops mmci web cleanly' web_stop

test_expect 'nothing is left behind: no domain' '
	no_domains_left
'

test_done
