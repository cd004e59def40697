#!/bin/sh
# t0963-service-user: mmci as root parses mail, feeds and HTTP as the
# service user (daemon/service-user.h), never as root. The daemon polls a
# real nginx serving a list feed and a series thread: the poll runs as the
# service user, stores the series and queues its job. Its web server and
# render worker run as that user, with no capability and no secret, and
# come back after kill -9; the daemon itself parses nothing. `mmci web`
# alone does the same. A missing user and a database the user cannot
# reach stop it with a message that says what to do. No kernel, no guest.
# mmci-test-needs: root
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "mmci drops to the service user only as root"
user=${MMCI_USER:-mmci}
getent passwd "$user" > /dev/null ||
	skip_all "no service user $user (run vm-images/host-setup.sh)"
command -v sqlite3 > /dev/null || skip_all "sqlite3 is not installed"
. "$SRC/tests/lib-http.sh"

unset MMCI_CONFIG MMCI_POLL_S MMCI_PER_PATCH MMCI_MAIL_SEND MMCI_WEB_LISTEN \
	MMCI_DISCOVER_PATHS MMCI_RUN_ARGS MMCI_LIBVIRT_URIS MMCI_USER
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0 MMCI_FETCH_ATTEMPTS=2
SECRET=hunter2-t0963
UID_OF_USER=$(id -u "$user")

# uid_of PID: the effective uid of a process
uid_of() { awk '/^Uid:/ { print $3 }' "/proc/$1/status"; }
capeff_of() { awk '/^CapEff:/ { print $2 }' "/proc/$1/status"; }
# child_of PID PATTERN: the pid of PID's child whose command line matches
child_of() { pgrep -P "$1" -f "$2" | head -n 1; }
owner() { stat -c %U "$1"; }

DPID=
stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill "$DPID" 2> /dev/null
	i=0; while kill -0 "$DPID" 2> /dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done
	DPID=
}
test_atexit stop_daemon

# wait_for CMD: up to 15 s for CMD to succeed
wait_for() {
	i=0; until eval "$1"; do
		i=$((i + 1)); [ $i -lt 150 ] || return 1; sleep 0.1; done
}

test_expect 'a list on nginx: a feed with one mm series' '
	nginx_start &&
	port=$(cat port) && base="http://127.0.0.1:$port" &&
	id=20250303100000.0.mmci-demo@example.org &&
	serve "$SRC/kernel-patches/examples/memmap-slow.mbox" linux-mm "$id" &&
	cat > "$WWW/linux-mm/new.atom" <<-EOA
	<?xml version="1.0" encoding="us-ascii"?>
	<feed xmlns="http://www.w3.org/2005/Atom">
	<title>linux-mm</title>
	<link rel="alternate" type="text/html" href="$base/linux-mm/"/>
	<id>mailto:linux-mm@kvack.org</id>
	<updated>2026-11-30T10:00:00Z</updated>
	<entry><author><name>Dev</name><email>dev@example.org</email></author><title>[PATCH 0/2] mm/mm_init: verify ZONE_DEVICE struct pages after init</title><updated>2026-11-30T09:00:00Z</updated><link
	href="$base/linux-mm/$id/"/><id>urn:uuid:00000001-0000-0000-0000-000000000000</id></entry>
	</feed>
	EOA
	"$MMCI" init --no-tree
'

test_expect 'the daemon: its poll stores the series as the service user' '
	export MMCI_DISCOVER_FEED="http://127.0.0.1:$(cat port)/linux-mm/new.atom" &&
	MMCI_SOURCES=discover MMCI_SMTP_PASSWORD=$SECRET MMCI_RUN_ARGS=--no-such-option \
		"$MMCI" daemon --listen 127.0.0.1:0 > d.out 2>&1 &
	DPID=$! && echo $DPID > daemon.pid &&
	wait_for "grep -q \"web pages on port\" d.out" &&
	wait_for "[ \"\$(sqlite3 \"$MMCI_DB\" \"SELECT count(*) FROM jobs\")\" = 1 ]" &&
	cat d.out &&
	grep -q "parsed as user $user (uid $UID_OF_USER)" d.out &&
	[ "$(sqlite3 "$MMCI_DB" "SELECT count(*) FROM series")" = 1 ] &&
	# its claims too: a job reads the rows and parses no mail
	[ "$(sqlite3 "$MMCI_DB" "SELECT count(*) FROM claims")" -ge 1 ] &&
	[ "$(uid_of "$DPID")" = 0 ] &&
	# what the poll fetched is the service user own: it ran as that user
	ls -ln "$MMCI_DATA/fetch" &&
	n=$(find "$MMCI_DATA/fetch" -type f ! -user "$user" | wc -l) &&
	[ "$n" = 0 ] &&
	[ "$(find "$MMCI_DATA/fetch" -type f -name "*.meta" | wc -l)" -ge 2 ] &&
	[ "$(owner "$MMCI_DB")" = "$user" ] &&
	[ "$(owner "$MMCI_DB-wal")" = "$user" ] &&
	[ "$(owner "$MMCI_DB-shm")" = "$user" ] &&
	[ "$(owner "$MMCI_DATA")" = root ] && [ "$(owner "$TRASH")" = root ] &&
	# group root may write too: root without capabilities (the nightly
	# unit) still records its heads
	[ "$(stat -c %G:%a "$MMCI_DB")" = root:664 ] &&
	setpriv --bounding-set=-all sqlite3 "$MMCI_DB" \
		"CREATE TABLE t0963_probe (x); DROP TABLE t0963_probe"
'

test_expect 'its web server and render worker: the service user, no secret' '
	web=$(child_of "$(cat daemon.pid)" "web --listen-fd") && [ -n "$web" ] &&
	wait_for "[ -n \"\$(child_of $web render-loop)\" ]" &&
	worker=$(child_of "$web" render-loop) &&
	for p in $web $worker; do
		[ "$(uid_of $p)" = "$UID_OF_USER" ] &&
		[ "$(capeff_of $p)" = 0000000000000000 ] &&
		! tr "\0" "\n" < /proc/$p/environ | grep -q "$SECRET" || exit 1
	done &&
	port=$(sed -n "s/.*web pages on port //p" d.out) &&
	wait_for "[ -s \"$MMCI_DATA/www/series/1.html\" ]" &&
	curl -sf "http://127.0.0.1:$port/series/1" | grep -q "ZONE_DEVICE" &&
	[ "$(owner "$MMCI_DATA/www/series/1.html")" = "$user" ]
'

test_expect 'kill -9 of the web server: the daemon starts it again' '
	web=$(child_of "$(cat daemon.pid)" "web --listen-fd") &&
	kill -9 "$web" &&
	wait_for "grep -q \"the web server ended (exit 137)\" d.out" &&
	wait_for "n=\$(child_of $(cat daemon.pid) \"web --listen-fd\") && [ -n \"\$n\" ] && [ \"\$n\" != $web ]" &&
	port=$(sed -n "s/.*web pages on port //p" d.out) &&
	wait_for "curl -sf http://127.0.0.1:$port/ > /dev/null" &&
	new=$(child_of "$(cat daemon.pid)" "web --listen-fd") &&
	[ "$(uid_of "$new")" = "$UID_OF_USER" ]
'

test_expect 'SIGTERM: the daemon stops with its web server and worker' '
	web=$(child_of "$(cat daemon.pid)" "web --listen-fd") && [ -n "$web" ] &&
	wait_for "[ -n \"\$(child_of $web render-loop)\" ]" &&
	worker=$(child_of "$web" render-loop) &&
	# the web server and worker of this daemon, not another mmci web of
	# the service user on this host
	ids=$(proc_ids $web $worker) && [ "$(echo $ids | wc -w)" = 2 ] &&
	kill "$(cat daemon.pid)" &&
	wait_for "! kill -0 $(cat daemon.pid) 2> /dev/null" && DPID= &&
	wait_for "! pgrep -f \"$MMCI_DATA\" > /dev/null" &&
	wait_for "! procs_running $ids"
'

test_expect '`mmci web` alone as root serves and renders as the service user' '
	"$MMCI" web --listen 127.0.0.1:0 > w.out 2> w.err &
	wpid=$! &&
	wait_for "grep -q \"listening on port\" w.out" &&
	[ "$(uid_of $wpid)" = "$UID_OF_USER" ] &&
	grep -q "serving as user $user" w.err &&
	kill $wpid && wait $wpid &&
	"$MMCI" web --render --all > r.out &&
	[ -z "$(find "$MMCI_DATA/www" ! -user "$user")" ]
'

test_expect 'no such user: the daemon and mmci web refuse, naming the fix' '
	rc=0 && MMCI_USER=no-such-mmci-user "$MMCI" daemon --once --no-web \
		> out 2> err || rc=$? &&
	cat err && [ $rc = 78 ] &&
	grep -q "user .no-such-mmci-user. (MMCI_USER) does not exist" err &&
	grep -q "host-setup.sh" err &&
	rc=0 && MMCI_USER=no-such-mmci-user "$MMCI" web --render > out 2> err ||
		rc=$? &&
	[ $rc = 1 ] && grep -q "does not exist" err &&
	rc=0 && MMCI_USER=root "$MMCI" daemon --once --no-web > out 2> err ||
		rc=$? &&
	[ $rc = 78 ] && grep -q "must name an unprivileged user" err
'

test_expect 'a database the user cannot reach: refused, naming the directory' '
	mkdir -p closed && chmod 700 closed &&
	rc=0 && MMCI_DB="$TRASH/closed/mmci.db" "$MMCI" daemon --once --no-web \
		> out 2> err || rc=$? &&
	cat err && [ $rc = 1 ] &&
	grep -q "user .$user. (MMCI_USER) cannot reach .*closed/mmci.db.: .*closed. is mode 0700" err
'

test_done
