#!/bin/sh
# t0985-secrets: root acts on nothing a parser can forge, and no parser
# holds a secret (issue 30). Every setting that can hold one is set, with
# a password that starts with $S: MMCI_SMTP_PASSWORD and a name-secret
# MMCI_API_TOKEN by name, and by value the password of every URL setting
# (config.c lists them): MMCI_SMTP_URL, MMCI_LIBVIRT_URIS, MMCI_LORE_URL,
# MMCI_DISCOVER_FEED, MMCI_COMMITS_FEED, MMCI_REMOTES, MMCI_WEB_URL.
# `mmci daemon` runs its poll (hanging on a silent server), its web child
# and render worker, a job child and its mail children; `mmci web` runs
# by hand. The environment and the command line of each (/proc/PID) must
# hold no secret, with the URLs there, their passwords cut out; the web
# process's own environment is wiped, not only unlinked. The mail child
# still logs in with the user and password of MMCI_SMTP_URL: an SMTP
# server here records the AUTH PLAIN it gets. At the end no file the
# daemon, its children or the web server wrote (logs, database, pages,
# outbox) holds a secret. No guest, no kernel: part of `make check`.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "python3 is not installed"
command -v sqlite3 > /dev/null || skip_all "sqlite3 is not installed"

unset MMCI_CONFIG MMCI_SOURCES MMCI_POLL_S MMCI_PER_PATCH MMCI_MAIL_SEND \
	MMCI_SMTP_TLS MMCI_SMTP_TIMEOUT MMCI_FETCH_MAX_SIZE MMCI_WEB_LISTEN \
	MMCI_SMTP_URL MMCI_SMTP_USER MMCI_SMTP_PASSWORD MMCI_DISCOVER_FEED \
	MMCI_COMMITS_FEED MMCI_LORE_URL MMCI_REMOTES MMCI_WEB_URL \
	MMCI_RUN_ARGS MMCI_POLL_TIMEOUT_S MMCI_LIBVIRT_URIS MMCI_LIBVIRT_URI \
	MMCI_MAIL_FROM MMCI_MAIL_LOCAL_LINKS
# every secret starts with $S: one grep finds any of them anywhere
S=t0985-s3cr3t

# the silent server: accepts, reads nothing, answers nothing
cat > silent.py <<'PYEOF'
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
PYEOF

# an SMTP server offering AUTH PLAIN: records "user password" of each
# login in DIR/auth.txt (answering after 2 s, so that the test sees the
# mail child while it waits) and keeps each message as DIR/msg-N.eml
cat > smtp.py <<'PYEOF'
import base64, os, socket, sys, time
portf, out = sys.argv[1], sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(portf + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(portf + ".tmp", portf)
n = 0
while True:
    c = s.accept()[0]
    f = c.makefile("rb")
    say = lambda x: c.sendall(x.encode() + b"\r\n")
    try:
        say("220 t0985 ESMTP")
        while True:
            line = f.readline()
            if not line:
                break
            l = line.decode("latin-1").rstrip("\r\n")
            u = l.upper()
            if u.startswith("EHLO"):
                c.sendall(b"250-t0985\r\n250 AUTH PLAIN\r\n")
            elif u.startswith("AUTH PLAIN"):
                w = l.split()
                if len(w) > 2:
                    b = w[2]
                else:
                    say("334 ")
                    b = f.readline().decode().strip()
                time.sleep(2)
                z, user, pw = base64.b64decode(b).split(b"\0", 2)
                with open(os.path.join(out, "auth.txt"), "ab") as a:
                    a.write(user + b" " + pw + b"\n")
                say("235 2.7.0 accepted")
            elif u.startswith(("HELO", "MAIL", "RCPT", "RSET", "NOOP")):
                say("250 OK")
            elif u == "DATA":
                say("354 go")
                data = []
                while True:
                    d = f.readline()
                    if not d or d in (b".\r\n", b".\n"):
                        break
                    data.append(d)
                n += 1
                with open(os.path.join(out, "msg-%d.eml" % n), "wb") as m:
                    m.write(b"".join(data))
                say("250 accepted")
            elif u == "QUIT":
                say("221 bye")
                break
            else:
                say("502 no")
    except Exception:
        pass
    c.close()
PYEOF

stop_all() {
	for f in daemon.pid web.pid smtp.pid silent.pid; do
		[ -s "$TRASH/$f" ] && kill "$(cat "$TRASH/$f")" 2>/dev/null
	done
	return 0
}
test_atexit stop_all

# the service user the daemon drops its parsers (and its mail child) to:
# mmci as root when the user exists, else whoever runs the test
SVC=$(id -un)
if [ "$(id -u)" = 0 ] && id mmci > /dev/null 2>&1; then
	SVC=mmci
fi
# as_svc COMMAND...: COMMAND as that user (a compromised one, say)
as_svc() {
	if [ "$SVC" != "$(id -un)" ]; then
		runuser -u "$SVC" -- "$@"
	else
		"$@"
	fi
}

# children PID: "pid args" of each child of PID
children() { ps -o pid=,args= --ppid "$1" || true; }
# child_pid PID REGEX: the pid of the child of PID whose args match
child_pid() { children "$1" | awk -v re="$2" '$0 ~ re { print $1; exit }'; }


# queue_job GOOD..BAD: a queued bisect job, as `mmci nightly` queues one
queue_job() {
	sqlite3 -batch "$MMCI_DB" "INSERT INTO jobs (kind, status, created_at,
		series_ref, params) VALUES ('bisect', 'queued', 0, '$1',
		'{\"metric\":\"m\"}')"
}

# no_secret PID NAME: PID's environment (NAME.env) and command line hold
# no secret, by value or by name
no_secret() {
	tr "\0" "\n" < "/proc/$1/environ" > "$2.env" &&
	tr "\0" " " < "/proc/$1/cmdline" > "$2.cmd" &&
	echo "$2: $(cat "$2.cmd")" && sed "s/^/  /" "$2.env" &&
	! grep -q "$S" "$2.env" "$2.cmd" &&
	! grep -q "^MMCI_SMTP_PASSWORD=." "$2.env" &&
	! grep -q "^MMCI_API_TOKEN=." "$2.env"
}

# no_names NAME: a child's environment (NAME.env) has not even the names
no_names() {
	! grep -q "^MMCI_SMTP_PASSWORD=" "$1.env" &&
	! grep -q "^MMCI_API_TOKEN=" "$1.env"
}

# the URL settings, as a child must see them: the password cut out
urls_redacted() {
	grep -qx "MMCI_SMTP_URL=smtp://mailer@127.0.0.1:$SPORT" "$1.env" &&
	grep -qx "MMCI_DISCOVER_FEED=http://feed@127.0.0.1:$PORT/new.atom" \
		"$1.env" &&
	grep -qx "MMCI_LORE_URL=http://lore@127.0.0.1:$PORT/all/" "$1.env" &&
	grep -qx "MMCI_COMMITS_FEED=http://127.0.0.1:$PORT/mmc.atom" "$1.env" &&
	grep -qx "MMCI_REMOTES=mm=https://git@127.0.0.1:1/mm.git#mm-new x=https://u@127.0.0.1:1/x.git" \
		"$1.env" &&
	grep -qx "MMCI_WEB_URL=https://web@ci.example.org/" "$1.env"
}

test_expect 'the servers, a failed mail, a queued job' '
	{ "$PY" silent.py "$TRASH/port" & echo $! > "$TRASH/silent.pid"; } &&
	{ "$PY" smtp.py "$TRASH/sport" "$TRASH" & echo $! > "$TRASH/smtp.pid"; } &&
	wait_until 100 "the ports" "[ -s port ] && [ -s sport ]" &&
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
SPORT=$(cat "$TRASH/sport" 2>/dev/null)

# every setting that can hold a secret, each with one
export MMCI_SMTP_URL="smtp://mailer:$S-smtpurl@127.0.0.1:$SPORT"
export MMCI_SMTP_PASSWORD="$S-smtppw"
export MMCI_API_TOKEN="$S-token"
export MMCI_LIBVIRT_URIS="qemu+tcp://root:$S-uris@127.0.0.1:1/system"
export MMCI_LORE_URL="http://lore:$S-lore@127.0.0.1:$PORT/all/"
export MMCI_DISCOVER_FEED="http://feed:$S-feed@127.0.0.1:$PORT/new.atom"
export MMCI_COMMITS_FEED="http://:$S-commits@127.0.0.1:$PORT/mmc.atom"
export MMCI_REMOTES="mm=https://git:$S-remote@127.0.0.1:1/mm.git#mm-new x=https://u:$S-x%40y@127.0.0.1:1/x.git"
export MMCI_WEB_URL="https://web:$S-web@ci.example.org/"
export MMCI_MAIL_FROM="mmci <mmci@example.org>"

test_expect 'the daemon poll, web child and render worker: no secret' '
	{ MMCI_SOURCES=discover MMCI_POLL_S=3600 MMCI_POLL_TIMEOUT_S=4 \
	  MMCI_FETCH_ATTEMPTS=1 MMCI_FETCH_TIMEOUT=600 MMCI_MAIL_SEND=1 \
	  MMCI_RUN_ARGS=--no-such-option MMCI_VERBOSE=2 \
	  "$MMCI" daemon --listen 127.0.0.1:0 > daemon.out \
		2> "$TRASH/daemon.log" &
	  echo $! > "$TRASH/daemon.pid"; } &&
	pid=$(cat "$TRASH/daemon.pid") &&
	wait_until 100 "the poll child" \
		"children $pid | grep -q \" ingest discover\$\"" &&
	no_secret "$(child_pid $pid " ingest discover\$")" poll &&
	urls_redacted poll && no_names poll &&
	grep -qx "LANG=C.UTF-8" poll.env &&
	wait_until 100 "the web child" \
		"children $pid | grep -q \" web --listen-fd\"" &&
	w=$(child_pid $pid " web --listen-fd") &&
	no_secret "$w" webchild && urls_redacted webchild &&
	no_names webchild &&
	wait_until 100 "the render worker" \
		"children $w | grep -q \" web --render-loop\"" &&
	no_secret "$(child_pid $w " web --render-loop")" render &&
	urls_redacted render && no_names render
'

test_expect 'the job: its URI and the log without the password' '
	wait_until 100 "job 1 to end" \
		"[ \"\$(sql \"SELECT status FROM jobs WHERE id = 1\")\" = failed ]" &&
	grep "job #1 started" "$TRASH/daemon.log" &&
	grep -q "job #1 started on qemu+tcp://root@127.0.0.1:1/system " \
		"$TRASH/daemon.log"
'

test_expect 'the mail child: no secret, and it logs in with the URL'"'"'s' '
	pid=$(cat "$TRASH/daemon.pid") &&
	wait_until 200 "the mail retry child" \
		"children $pid | grep -q \" report --retry --for-daemon --password-stdin\$\"" &&
	m=$(child_pid $pid " report --retry") &&
	echo "the mail child runs as $(ps -o user= -p "$m"), want $SVC" &&
	[ "$(ps -o user= -p "$m")" = "$SVC" ] &&
	no_secret "$m" mail && urls_redacted mail && no_names mail &&
	grep -qx "MMCI_SMTP_USER=mailer" mail.env &&
	readlink "/proc/$m/fd/0" | grep -q "^pipe:" &&
	wait_until 100 "the retried mail to be sent" \
		"[ \"\$(sql \"SELECT status FROM mails WHERE id = 1\")\" = sent ]" &&
	cat auth.txt | sed "s/$S/\$S/" &&
	grep -qx "mailer $S-smtpurl" auth.txt &&
	! grep -v -x "mailer $S-smtpurl" auth.txt
'

# a root-only file the rows below point at; its content is no $S secret
# (the last case looks for those in every file), it has its own marker
test_expect 'mails rows a compromised service user writes: never read' '
	mkdir -p "$TRASH/root-only" && chmod 700 "$TRASH/root-only" &&
	echo "root:t0985-SHADOW-hash:19000" > "$TRASH/root-only/shadow" &&
	chmod 600 "$TRASH/root-only/shadow" &&
	as_svc ln -s "$TRASH/root-only/shadow" "$MMCI_DATA/outbox/link.eml" &&
	as_svc sqlite3 -batch "$MMCI_DB" "INSERT INTO mails (created, kind,
		recipients, path, status) VALUES
		(datetime(\"now\"), \"series\", \"evil@example.org\",
		 \"$TRASH/root-only/shadow\", \"failed\"),
		(datetime(\"now\"), \"series\", \"evil@example.org\",
		 \"$MMCI_DATA/outbox/../../root-only/shadow\", \"failed\"),
		(datetime(\"now\"), \"series\", \"evil@example.org\",
		 \"$MMCI_DATA/outbox/link.eml\", \"failed\")" &&
	ls "$TRASH"/msg-*.eml > before 2> /dev/null || : &&
	STRACE=$(command -v strace || true) &&
	set +e &&
	if [ -n "$STRACE" ]; then
		"$STRACE" -f -qq -e trace=openat,open -o trace \
			"$MMCI" report --retry > out 2> err
	else
		"$MMCI" report --retry > out 2> err
	fi
	rc=$? &&
	set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -q "^error: mail #[0-9]* refused: .$TRASH/root-only/shadow. is not a message of the outbox .*: never read, never sent$" err &&
	grep -q "^error: mail #[0-9]* refused: .*/outbox/../../root-only/shadow. is not a message of the outbox" err &&
	grep -q "^error: mail #[0-9]* refused: .*/outbox/link.eml. is not a message of the outbox" err &&
	[ "$(sql "SELECT group_concat(status) FROM mails WHERE recipients =
		\"evil@example.org\"")" = "refused,refused,refused" ] &&
	ls "$TRASH"/msg-*.eml > after 2> /dev/null || : &&
	cmp before after &&
	! grep -rl "t0985-SHADOW" "$TRASH" --exclude-dir=root-only \
		--exclude=trace &&
	if [ -n "$STRACE" ]; then
		! grep "root-only/shadow\", O_RDONLY" trace | grep -v ENOENT
	fi &&
	"$MMCI" report --retry > out2 2> err2 &&
	cat out2 err2 && grep -q "retried 0 mail(s)" out2
'

# queue_job_as_svc GOOD..BAD: queue_job as the service user
queue_job_as_svc() {
	as_svc sqlite3 -batch "$MMCI_DB" "INSERT INTO jobs (kind, status,
		created_at, series_ref, params) VALUES ('bisect', 'queued', 0,
		'$1', '{\"metric\":\"m\"}')"
}

test_expect 'a job row a compromised service user writes: refused, said' '
	queue_job_as_svc "--config=/etc/shadow..HEAD" &&
	j=$(sql "SELECT max(id) FROM jobs") &&
	wait_until 300 "job $j to end" \
		"[ \"\$(sql \"SELECT status FROM jobs WHERE id = $j\")\" = failed ]" &&
	sql "SELECT error FROM jobs WHERE id = $j" > jerr && cat jerr &&
	grep -q "refused: its range .--config=/etc/shadow..HEAD. or metric is not a commit, ref or name" jerr &&
	grep -q "job #$j: refused" "$TRASH/daemon.log" &&
	! grep -q "job #$j started" "$TRASH/daemon.log"
'

# hostile_series N CACHE_PATH: as the service user, series N of one
# patch whose texts are gone (so a job reads its thread again) and
# whose thread row names CACHE_PATH, and a queued job for it
hostile_series() {
	as_svc sqlite3 -batch "$MMCI_DB" "INSERT INTO series (id, title,
		total, source, source_sha1, ingested_at) VALUES ($1,
		'hostile $1', 1, '$2', 'x$1', 0);
		INSERT INTO patches (series_id, idx, title, diff_sha1) VALUES
		($1, 1, 'p', 'x');
		INSERT INTO threads (source, cache_path, source_sha1,
		nr_messages, series_id, ingested_at) VALUES ('$2', '$2', 'x$1',
		1, $1, 0);
		INSERT INTO jobs (kind, status, created_at, series_id) VALUES
		('series', 'queued', 0, $1)"
}

test_expect 'thread paths a compromised service user writes: root reads none' '
	mkdir -p "$MMCI_DATA/fetch" && chown "$SVC" "$MMCI_DATA/fetch" &&
	as_svc ln -sf "$TRASH/root-only/shadow" "$MMCI_DATA/fetch/link.mbox" &&
	hostile_series 901 "$TRASH/root-only/shadow" &&
	hostile_series 902 "$MMCI_DATA/fetch/../../root-only/shadow" &&
	hostile_series 903 "$MMCI_DATA/fetch/link.mbox" &&
	for s in 901 902 903; do
		j=$(sql "SELECT id FROM jobs WHERE series_id = $s") &&
		wait_until 300 "job $j to end" \
			"[ \"\$(sql \"SELECT status FROM jobs WHERE id = $j\")\" = failed ]" &&
		sql "SELECT error FROM jobs WHERE id = $j" > jerr && cat jerr &&
		grep -q "series #$s: its thread .* is not a file below .*/fetch (.*), which is all root reads of a row.s path; not read" jerr &&
		grep -q "series #$s: its thread" "$TRASH/daemon.log" || exit 1
	done &&
	! grep -rl "t0985-SHADOW" "$TRASH" --exclude-dir=root-only \
		--exclude=trace
'

test_expect 'mmci web by hand: its own environment wiped, its worker clean' '
	if [ -s "$TRASH/daemon.pid" ]; then
		d=$(cat "$TRASH/daemon.pid") && kill "$d" &&
		wait_until 100 "the daemon to stop" "! kill -0 $d 2>/dev/null" &&
		: > "$TRASH/daemon.pid"
	fi &&
	{ "$MMCI" web --listen 127.0.0.1:0 > web.out 2> web.err &
	  echo $! > "$TRASH/web.pid"; } &&
	w=$(cat "$TRASH/web.pid") &&
	wait_until 100 "the server" "grep -q \"listening on port\" web.out" &&
	no_secret "$w" web && urls_redacted web &&
	wait_until 100 "the render worker" \
		"children $w | grep -q \" web --render-loop\"" &&
	no_secret "$(child_pid $w " web --render-loop")" webrender &&
	urls_redacted webrender && no_names webrender &&
	kill "$w" &&
	wait_until 100 "the server to stop" "! kill -0 $w 2>/dev/null" &&
	: > "$TRASH/web.pid"
'

test_expect 'no log, page, mail or database row holds a secret' '
	grep -rla "$S" "$TRASH" | grep -v "/auth.txt$" > leaks || true
	cat leaks && [ ! -s leaks ] &&
	[ -s "$MMCI_DB" ] && [ -s "$TRASH/daemon.log" ] &&
	ls "$MMCI_DATA/www" | grep -q .
'

test_done
