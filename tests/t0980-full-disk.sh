#!/bin/sh
# t0980-full-disk: a full disk is a clear error and loses nothing stored.
# The database and the data directory live on a 2 MiB tmpfs mounted here;
# a series is stored and its page written (the render worker writes it
# after the daemon starts: the test waits for it), then the file system
# is filled. Ingesting another series must fail with a message that
# says the disk is full and leave the stored rows intact (SQLite's
# integrity check); a daemon started before must keep serving its pages,
# and an mmci started afterwards must fail the same way. Once space is
# freed, the same commands work. The series are our own mails
# (tests/fixtures/mbox).
# mmci-test-needs: root
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
SMALL="$TRASH/small"
mkdir -p "$SMALL"
mount -t tmpfs -o size=2m tmpfs "$SMALL" 2>/dev/null ||
	skip_all "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"
cleanup() {
	[ -s "$TRASH/daemon.pid" ] && kill "$(cat "$TRASH/daemon.pid")" 2>/dev/null
	cd / && umount "$SMALL" 2>/dev/null
	return 0
}
test_atexit cleanup
export MMCI_DB="$SMALL/mmci.db" MMCI_DATA="$SMALL/var"
unset MMCI_CONFIG MMCI_SOURCES
EXAMPLE="$SRC/kernel-patches/examples/memmap-slow.mbox"
OTHER="$SRC/tests/fixtures/mbox/vmalloc-huge-vmap-v2.mboxrd"
THIRD="$SRC/tests/fixtures/mbox/zswap-batch-v4-version-on-cover.mbox"

fill() {
	i=0
	while dd if=/dev/zero of="$SMALL/fill.$i" bs=64k count=64 2>/dev/null; do
		i=$((i + 1))
	done
	# what is left in the last blocks too
	dd if=/dev/zero of="$SMALL/fill.tail" bs=512 2>/dev/null || :
	[ "$(df --output=avail "$SMALL" | tail -1 | tr -d " ")" = 0 ]
}

test_expect 'a series is stored on the small file system' '
	"$MMCI" ingest "$EXAMPLE" > out && cat out &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	sql "SELECT count(*) FROM messages" > messages.before
'

test_expect 'a daemon serves the pages of that database' '
	port=$(python3 -c "import socket; s = socket.socket();
s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") && echo $port > port &&
	{ MMCI_SOURCES= MMCI_POLL_S=1 "$MMCI" daemon --listen "127.0.0.1:$port" \
		> daemon.log 2>&1 & echo $! > daemon.pid; } &&
	i=0 && until [ "$(curl -s -o /dev/null -w "%{http_code}" \
		"http://127.0.0.1:$port/series/1")" = 200 ]; do
		i=$((i + 1)); [ $i -lt 300 ] || { cat daemon.log; exit 1; }
		sleep 0.1; done
'
DAEMON_PID=$(cat daemon.pid 2>/dev/null)
PORT=$(cat port 2>/dev/null || echo 1)

test_expect 'the disk fills up' '
	fill && df "$SMALL"
'

test_expect 'ingest on a full disk: a clear error, exit 1, nothing lost' '
	set +e; "$MMCI" ingest "$OTHER" > out 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] &&
	grep -q "^error: .*: the file system holding it is full (No space left on device)$" err &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages")" = "$(cat messages.before)" ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ]
'

test_expect 'the daemon on the full disk keeps serving its pages' '
	sleep 3 && kill -0 "$DAEMON_PID" &&
	[ "$(curl -s -o page -w "%{http_code}" "http://127.0.0.1:$PORT/series/1")" = 200 ] &&
	grep -q "verify ZONE_DEVICE" page &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$PORT/run/99")" = 404 ] &&
	cat daemon.log
'

test_expect 'a new mmci on the full disk: ingest fails, saying the disk is full' '
	kill "$DAEMON_PID" && while kill -0 "$DAEMON_PID" 2>/dev/null; do sleep 0.2; done &&
	ls -la "$SMALL" &&
	set +e; "$MMCI" ingest "$THIRD" > out 2> err; rc=$?; set -e
	cat out err; [ $rc = 1 ] &&
	grep -q "^error: .*: the file system holding it is full (No space left on device)$" err &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages")" = "$(cat messages.before)" ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ]
'

test_expect 'space freed: the same ingests work' '
	rm -f "$SMALL"/fill.* &&
	"$MMCI" ingest "$OTHER" > out 2> err && cat out &&
	grep -q "version: v2, 3 of 3 patch(es) found" out &&
	"$MMCI" ingest "$THIRD" > out 2> err && cat out &&
	grep -q "version: v4, 3 of 3 patch(es) found" out &&
	[ "$(sql "SELECT count(*) FROM series")" = 3 ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ]
'

# the trash is removed by test_done: the tmpfs must be gone first
cd "$TRASH" && umount "$SMALL"
test_done
