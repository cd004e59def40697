#!/bin/sh
# t0920-web-stress: `mmci web` under load on loopback, on a database made
# with sqlite3 (bench/web-gen.sh: 300 runs, 30 with 250 samples, 50
# series). 200 slow clients, 200 idle ones and 50 at once, each from its
# own 127.x.y.z address (the server limits connections per address);
# ingest and a job ending while pages are fetched; kill -9 of the server
# and of its render worker. Bounded: about a minute. The same client
# (t0920-web-load.py) measures the targets in bench/web.sh; the limits
# here are generous (tests are no benchmarks). Numbers go to the output.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
command -v python3 >/dev/null || skip_all "python3 drives the clients"
. "$SRC/tests/lib-web.sh"
LOAD="python3 $SRC/tests/t0920-web-load.py"
PATHS="--path / --path /run/300 --path /run/150 --path /series/50
	--path /compare/299/300 --path /metric/fsdax/add_ms?variant=$VARIANT"

# field JSON-FILE EXPR: a value of the load client's output
field() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1]));
print($2)" "$1"
}

# page_sum: a checksum of the pages the restart cases compare
page_sum() {
	for p in / /run/300 /run/1 /series/50 /compare/299/300; do
		curl -sf "http://127.0.0.1:$(cat "$TRASH/port")$p" || return 1
	done | md5sum
}

test_expect 'a database of 300 runs, 30 of them with 250 samples' '
	"$MMCI" init --no-tree &&
	sh "$SRC/bench/web-gen.sh" "$MMCI_DB" 300 30 250 50 &&
	[ "$(sql "SELECT count(*) FROM samples")" = $((30 * 250 + 270 * 100)) ] &&
	sh "$SRC/bench/web-gen.sh" --finish "$MMCI_DB"
'

test_expect 'mmci web starts and renders every page' '
	web_start &&
	[ -s "$MMCI_DATA/www/run/1.html" ] && [ -s "$MMCI_DATA/www/run/300.html" ] &&
	[ -s "$MMCI_DATA/www/compare/299-300.html" ] &&
	[ "$(code /run/301)" = 404 ] && [ "$(code /series/51)" = 404 ] &&
	[ "$(code /compare/1/301)" = 404 ]
'

test_expect 'a compare page no page links: 503 with Refresh, then rendered' '
	[ ! -e "$MMCI_DATA/www/compare/1-300.html" ] &&
	curl -s -D h503 -o b503 "http://127.0.0.1:$(cat port)/compare/1/300" &&
	head -n 1 h503 | grep -q " 503 " && grep -qi "^refresh: 2" h503 &&
	grep -qi "^retry-after: 2" h503 && grep -q "being rendered" b503 &&
	i=0 && until [ "$(code /compare/1/300)" = 200 ]; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	[ -s "$MMCI_DATA/www/ondemand/1-300.html" ] &&
	curl -s "http://127.0.0.1:$(cat port)/compare/1/300" > c.html &&
	$CHECK c.html "h1:run #1 vs run #300" minrows:comparison:5
'

test_expect '200 slow clients: every page request answered, within 1 s' '
	$LOAD "$(cat port)" probe --slow 200 --interval 2 --requests 60 \
		$PATHS > slow.json &&
	cat slow.json &&
	[ "$(field slow.json "d[\"holders_open_before\"]")" = 200 ] &&
	[ "$(field slow.json "d[\"holders_open_after\"]")" = 200 ] &&
	[ "$(field slow.json "d[\"statuses\"]")" = "{'\''200'\'': 60}" ] &&
	[ "$(field slow.json "d[\"broken_bodies\"]")" = 0 ] &&
	[ "$(field slow.json "int(d[\"max_ms\"] < 1000)")" = 1 ]
'

test_expect '50 clients at once, 4 requests each: all 200 answered' '
	$LOAD "$(cat port)" concurrent --clients 50 --requests 4 $PATHS \
		> conc.json &&
	cat conc.json &&
	[ "$(field conc.json "d[\"answered_200\"]")" = 200 ] &&
	[ "$(field conc.json "d[\"broken_bodies\"]")" = 0 ]
'

test_expect '200 idle connections do not block, and time out after 10 s' '
	$LOAD "$(cat port)" probe --idle 200 --requests 20 --hold-after 12 \
		$PATHS > idle.json &&
	cat idle.json &&
	[ "$(field idle.json "d[\"holders_open_before\"]")" = 200 ] &&
	[ "$(field idle.json "d[\"statuses\"]")" = "{'\''200'\'': 20}" ] &&
	[ "$(field idle.json "int(d[\"max_ms\"] < 1000)")" = 1 ] &&
	[ "$(field idle.json "d[\"holders_open_later\"]")" = 0 ]
'

test_expect 'one address gets 8 connections, the next are closed' '
	python3 - "$(cat port)" > perip.out <<-\EOP &&
	import socket, sys, time
	socks = []
	for i in range(12):
	    s = socket.socket()
	    s.bind(("127.3.0.1", 0))
	    s.connect(("127.0.0.1", int(sys.argv[1])))
	    socks.append(s)
	time.sleep(0.5)
	open_ = 0
	for s in socks:
	    s.setblocking(False)
	    try:
	        open_ += s.recv(1, socket.MSG_PEEK) != b""
	    except BlockingIOError:
	        open_ += 1
	    except OSError:
	        pass
	print(open_)
	EOP
	cat perip.out && [ "$(cat perip.out)" = 8 ]
'

# five versions of the hostile series (other message-ids, so five threads)
test_expect 'ingest and a relabelled run while pages are fetched' '
	for i in 1 2 3 4 5; do
		sed "s/example\.org/ex$i.org/g" "$SRC/tests/web-hostile.mbox" \
			> "s$i.mbox" || exit 1
	done &&
	$LOAD "$(cat port)" probe --requests 150 --pause 0.02 $PATHS \
		> during.json &
	load=$! &&
	for i in 1 2 3 4 5; do "$MMCI" ingest "s$i.mbox" > "ingest$i.out" ||
		exit 1; done &&
	sql "UPDATE runs SET label = \"relabelled-300\" WHERE id = 300" &&
	wait $load && cat during.json &&
	[ "$(field during.json "d[\"statuses\"]")" = "{'\''200'\'': 150}" ] &&
	[ "$(field during.json "d[\"broken_bodies\"]")" = 0 ] &&
	web_rendered &&
	[ "$(sql "SELECT max(id) FROM series")" = 55 ] &&
	for n in 51 52 53 54 55; do [ "$(code /series/$n)" = 200 ] || exit 1; done &&
	curl -s "http://127.0.0.1:$(cat port)/" > index.html &&
	$CHECK index.html href:/series/55 cell:runs:relabelled-300 notag:script
'

test_expect 'kill -9 of the server: the restart serves the same pages' '
	page_sum > before.sum &&
	mtime=$(stat -c %Y "$MMCI_DATA/www/index.html") &&
	worker=$(sed -n "s/.*render worker pid \([0-9]*\).*/\1/p" web.err |
		 tail -n 1) &&
	kill -9 "$(cat web.pid)" &&
	i=0 && while kill -0 "$worker" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.1; done &&
	# the plot directory a worker killed with -9 would leave, owned
	# like www/ (the service user when the test runs as root)
	mkdir "$MMCI_DATA/www/.plots-$worker-test" &&
	echo 1 2 > "$MMCI_DATA/www/.plots-$worker-test/0.data" &&
	chown -R --reference="$MMCI_DATA/www" "$MMCI_DATA/www/.plots-$worker-test" &&
	mv web.err web.err.1 && web_start && page_sum > after.sum &&
	cat before.sum after.sum && cmp before.sum after.sum &&
	[ ! -e "$MMCI_DATA/www/.plots-$worker-test" ] &&
	[ "$(stat -c %Y "$MMCI_DATA/www/index.html")" = "$mtime" ]
'

test_expect 'kill -9 of the render worker: pages stay up, it comes back' '
	worker=$(sed -n "s/.*render worker pid \([0-9]*\).*/\1/p" web.err |
		 tail -n 1) &&
	kill -9 "$worker" &&
	[ "$(code /run/300)" = 200 ] &&
	sql "UPDATE series SET title = \"retitled after the kill\" WHERE id = 50" &&
	i=0 && until grep -q "the render worker $worker ended" web.err; do
		i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.1; done &&
	web_rendered &&
	curl -s "http://127.0.0.1:$(cat port)/series/50" > s50.html &&
	$CHECK s50.html "h1:retitled after the kill" &&
	[ "$(sed -n "s/.*render worker pid \([0-9]*\).*/\1/p" web.err |
	     tail -n 1)" != "$worker" ]
'

test_expect 'SIGTERM stops mmci web and its worker' '
	pid=$(cat web.pid) &&
	worker=$(sed -n "s/.*render worker pid \([0-9]*\).*/\1/p" web.err |
		 tail -n 1) &&
	kill -TERM "$pid" &&
	i=0 &&
	while kill -0 "$pid" 2>/dev/null || kill -0 "$worker" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1
	done &&
	: > web.pid
'

test_done
