# lib-web.sh - `mmci web` for the page tests (t0900 on real runs, t0910
# on a database written with sqlite), sourced after lib.sh:
#
#	. "$SRC/tests/lib-web.sh"
#	test_expect 'mmci web starts on a free loopback port' web_start
#	test_expect '...: 200, 404, 405' web_status_codes
#
# web_start leaves the port in $TRASH/port and returns once the render
# worker has written every page (www/.version); test_atexit stops the
# server, which stops its worker. web_rendered waits for the worker to
# take in what the test wrote to the database since.
# Both files have runs 1 and 2, series 1 and the variant $VARIANT of
# fsdax rebind_memmap, so they check the same status codes.

CHECK="python3 $SRC/tests/web-check.py"
VARIANT='align%3D2M%2Cmap%3Ddev'

stop_web() {
	[ -s "$TRASH/web.pid" ] && kill "$(cat "$TRASH/web.pid")" 2>/dev/null
	return 0
}
test_atexit stop_web

# code PATH [CURL-OPTIONS]: the HTTP status of a request
code() {
	p=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' "$@" \
		"http://127.0.0.1:$(cat "$TRASH/port")$p"
}

web_start() {
	# a restart: the old server's web.out must not answer the wait
	# below before the new one's shell has truncated it
	rm -f web.out port &&
	{ "$MMCI" web --listen 127.0.0.1:0 > web.out 2> web.err &
	  echo $! > web.pid; } &&
	i=0 &&
	until grep -q "listening on port" web.out; do
		i=$((i + 1)); [ $i -lt 100 ] || { cat web.err; return 1; }
		sleep 0.1
	done &&
	sed -n "s/.*listening on port \([0-9]*\)$/\1/p" web.out > port &&
	[ "$(cat port)" -gt 0 ] &&
	i=0 &&
	until [ -s "$MMCI_DATA/www/.version" ]; do
		i=$((i + 1)); [ $i -lt 600 ] || { cat web.err; return 1; }
		sleep 0.1
	done &&
	web_rendered
}

# web_rendered: no page is dirty any more (the worker renders every second)
web_rendered() {
	i=0 &&
	until [ "$(sqlite3 "$MMCI_DB" "SELECT count(*) FROM pages_dirty")" = 0 ]
	do
		i=$((i + 1)); [ $i -lt 600 ] || { cat "$TRASH/web.err"; return 1; }
		sleep 0.1
	done
}

web_status_codes() {
	for p in / /run/1 /run/2 /compare/1/2 /series/1 /style.css \
		"/metric/fsdax/rebind_memmap?variant=$VARIANT"; do
		c=$(code "$p"); echo "$c $p"; [ "$c" = 200 ] || return 1
	done &&
	for p in /nope /run/999 /run/01 /run/1x "/run/-1" /run/ /compare/1 \
		/compare/1/999 /series/2 /metric/fsdax/nosuch \
		"/metric/fsdax/rebind_memmap?variant=nosuch" /metric/a%2Fb/c \
		"/%3Cscript%3Ealert(1)%3C/script%3E"; do
		c=$(code "$p"); echo "$c $p"; [ "$c" = 404 ] || return 1
	done &&
	[ "$(code / -X POST -d x=1)" = 405 ] &&
	[ "$(code /run/1 -X DELETE)" = 405 ] &&
	[ "$(code /run/1 -I)" = 200 ] &&
	curl -s -D - -o /dev/null "http://127.0.0.1:$(cat port)/style.css" |
		grep -qi "^content-type: text/css"
}

# web_stop: SIGTERM stops the server started by web_start, which says so
web_stop() {
	pid=$(cat web.pid) && kill -TERM "$pid" &&
	i=0 &&
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.1
	done &&
	: > web.pid &&
	grep -q "stopping" web.err
}
