#!/bin/sh
# t0962-daemon-nonblocking: the daemon's loop never waits for a poll or a
# mail. A server on loopback accepts connections and never answers: the
# list archive of the poll (`mmci ingest discover`) and the SMTP server of
# the mail retry both hang on it. The daemon still starts and reaps queued
# jobs meanwhile, kills the poll after MMCI_POLL_TIMEOUT_S and says so,
# answers SIGTERM in well under 3 s (it sleeps at most a second) and
# leaves none of its children behind. No child has the SMTP password in
# its environment; the mail child reads it from a pipe. The jobs are
# bisect jobs whose child exits at once (a bad option from
# MMCI_RUN_ARGS): no kernel, no guest. Part of `make check`.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "python3 is not installed"
command -v sqlite3 > /dev/null || skip_all "sqlite3 is not installed"

unset MMCI_CONFIG MMCI_SOURCES MMCI_POLL_S MMCI_PER_PATCH MMCI_MAIL_SEND \
	MMCI_SMTP_TLS MMCI_SMTP_TIMEOUT MMCI_FETCH_MAX_SIZE MMCI_WEB_LISTEN \
	MMCI_SMTP_URL MMCI_SMTP_USER MMCI_DISCOVER_FEED MMCI_RUN_ARGS \
	MMCI_POLL_TIMEOUT_S MMCI_LIBVIRT_URIS
SECRET=hunter2-t0962

# the silent server: accepts, reads nothing, answers nothing
cat > silent.py <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
EOF

stop_all() {
	for f in daemon.pid silent.pid; do
		[ -s "$TRASH/$f" ] && kill "$(cat "$TRASH/$f")" 2>/dev/null
	done
	return 0
}
test_atexit stop_all

# children PID: "pid args" of each child of PID
children() { ps -o pid=,args= --ppid "$1" || true; }
# child_pid PID REGEX: the pid of the child of PID whose args match
child_pid() { children "$1" | awk -v re="$2" '$0 ~ re { print $1 }'; }

# running PID: the process is there and not a zombie (the daemon was
# started by an earlier case's shell: whoever reaps it may take a while)
running() {
	st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] &&
		[ "${st#Z}" = "$st" ]
}

# queue_job GOOD..BAD: a queued bisect job, as `mmci nightly` queues one
queue_job() {
	sqlite3 -batch "$MMCI_DB" "INSERT INTO jobs (kind, status, created_at,
		series_ref, params) VALUES ('bisect', 'queued', 0, '$1',
		'{\"metric\":\"m\"}')"
}


test_expect 'the silent server, a failed mail, a queued job' '
	{ "$PY" silent.py "$TRASH/port" & echo $! > "$TRASH/silent.pid"; } &&
	wait_until 100 "the port" "[ -s port ]" &&
	"$MMCI" show runs > /dev/null &&
	mkdir -p "$MMCI_DATA/outbox" &&
	printf "From: mmci <mmci@example.org>\nTo: a@example.org\nSubject: x\n\nx\n" \
		> "$MMCI_DATA/outbox/old.eml" &&
	sql "INSERT INTO mails (created, kind, recipients, path, status, error)
	     VALUES (datetime(\"now\"), \"series\", \"a@example.org\",
	     \"$MMCI_DATA/outbox/old.eml\", \"failed\", \"451 later\")" &&
	queue_job a..b &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE status = \"queued\"")" = 1 ]
'
PORT=$(cat "$TRASH/port" 2>/dev/null)

test_expect 'a poll that hangs: the queued job is run and reaped meanwhile' '
	{ MMCI_SOURCES=discover MMCI_POLL_S=3600 MMCI_POLL_TIMEOUT_S=5 \
	  MMCI_DISCOVER_FEED="http://127.0.0.1:$PORT/new.atom" \
	  MMCI_FETCH_ATTEMPTS=1 MMCI_FETCH_TIMEOUT=600 \
	  MMCI_MAIL_SEND=1 MMCI_SMTP_URL="smtp://127.0.0.1:$PORT" \
	  MMCI_SMTP_USER=mmci MMCI_SMTP_PASSWORD="$SECRET" \
	  MMCI_RUN_ARGS=--no-such-option MMCI_VERBOSE=2 \
	  "$MMCI" daemon --no-web > daemon.out 2> "$TRASH/daemon.log" &
	  echo $! > "$TRASH/daemon.pid"; } &&
	pid=$(cat "$TRASH/daemon.pid") &&
	wait_until 50 "the poll child" \
		"children $pid | grep -q \" ingest discover\$\"" &&
	child_pid $pid " ingest discover\$" > poll.pid &&
	wait_until 50 "job 1 to end" \
		"[ \"\$(sql \"SELECT status FROM jobs WHERE id = 1\")\" = failed ]" &&
	kill -0 "$(cat poll.pid)" &&
	sql "SELECT error FROM jobs WHERE id = 1" |
		grep -q "ended with status 129 without recording a result" &&
	grep -q "job #1 started" "$TRASH/daemon.log" &&
	tr "\0" "\n" < "/proc/$(cat poll.pid)/environ" > poll.env &&
	cat poll.env &&
	grep -qx "MMCI_DISCOVER_FEED=http://127.0.0.1:$PORT/new.atom" poll.env &&
	grep -qx "LANG=C.UTF-8" poll.env &&
	! grep -q "$SECRET" poll.env && ! grep -q PASSWORD poll.env
'

test_expect 'the poll is killed after MMCI_POLL_TIMEOUT_S, and said so' '
	pid=$(cat "$TRASH/daemon.pid") &&
	wait_until 100 "the poll to be killed" \
		"grep -q \"polling .discover.: killed after 5 s\" \"$TRASH/daemon.log\"" &&
	grep "killed after" "$TRASH/daemon.log" &&
	grep -qx "mmci: warning: polling .discover.: killed after 5 s, see $MMCI_DATA/jobs/poll-discover.log" \
		"$TRASH/daemon.log" &&
	tail -1 "$MMCI_DATA/jobs/poll-discover.log" |
		grep -qx "error: killed by mmci daemon after 5 s" &&
	! kill -0 "$(cat poll.pid)" 2>/dev/null &&
	kill -0 "$pid"
'

test_expect 'a mail that hangs: a queued job is still run; no password in its environment' '
	pid=$(cat "$TRASH/daemon.pid") &&
	wait_until 50 "the mail child" \
		"children $pid | grep -q \" report --retry --for-daemon --password-stdin\$\"" &&
	child_pid $pid " report --retry" > mail.pid &&
	m=$(cat mail.pid) &&
	tr "\0" "\n" < "/proc/$m/environ" > mail.env && cat mail.env &&
	grep -qx "MMCI_SMTP_URL=smtp://127.0.0.1:$PORT" mail.env &&
	! grep -q "$SECRET" mail.env && ! grep -q PASSWORD mail.env &&
	readlink "/proc/$m/fd/0" | grep -q "^pipe:" &&
	queue_job c..d &&
	wait_until 50 "job 2 to end" \
		"[ \"\$(sql \"SELECT status FROM jobs WHERE id = 2\")\" = failed ]" &&
	kill -0 "$m" &&
	grep -q "job #2 started" "$TRASH/daemon.log"
'

test_expect 'SIGTERM while the mail hangs: exit within 3 s, no child left' '
	pid=$(cat "$TRASH/daemon.pid") && m=$(cat mail.pid) &&
	kill -0 "$m" &&
	t0=$(date +%s%N) && kill -TERM "$pid" &&
	i=0 && while running "$pid"; do
		i=$((i + 1)); [ $i -lt 300 ] || { echo "still running"; exit 1; }
		sleep 0.01; done &&
	t1=$(date +%s%N) &&
	ms=$(( (t1 - t0) / 1000000 )) && echo "SIGTERM to exit: $ms ms" &&
	echo "$ms" > "$TRASH/sigterm.ms" &&
	[ "$ms" -lt 3000 ] &&
	grep -q "stopping on a signal" "$TRASH/daemon.log" &&
	grep -q "mail retry stopped" "$TRASH/daemon.log" &&
	! running "$m" &&
	[ "$(sql "SELECT status FROM mails WHERE id = 1")" = failed ]
'

test_expect 'the finished jobs are reported by report children, which mark them' '
	grep -q "the report of job #1 (pid" "$TRASH/daemon.log" &&
	[ "$(sql "SELECT reported_at IS NOT NULL FROM jobs WHERE id = 1")" = 1 ] &&
	[ "$(sql "SELECT reported_at IS NULL FROM jobs WHERE id = 2")" = 1 ] &&
	MMCI_SOURCES= MMCI_MAIL_SEND=0 MMCI_SMTP_PASSWORD="$SECRET" \
		timeout 30 "$MMCI" daemon --once --no-web > out 2> err &&
	cat err &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE reported_at IS NULL")" = 0 ]
'

[ -s "$TRASH/sigterm.ms" ] &&
	say "SIGTERM to exit with a mail hanging: $(cat "$TRASH/sigterm.ms") ms"
test_done
