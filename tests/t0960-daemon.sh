#!/bin/sh
# t0960-daemon: the unattended path, end to end. `mmci daemon` runs with a
# settings file and no hand touches it: a series appears in the list
# archive (a real nginx serving a public-inbox style Atom feed and the
# thread), the daemon discovers it, builds base, +1 and +2, boots them
# interleaved, compares, and mails the LKP-style report to a real SMTP
# server (python3-aiosmtpd) threaded under the cover letter; its web page
# (headless Chromium) shows the per-patch table and the claim check. The
# SMTP server defers the first attempt (451): the mail is kept and sent
# at a later poll.
# Half-way through the first boots the daemon is killed with -9: its job
# child dies with it, nothing stored is lost, and a restarted daemon
# queues the job again and completes it. A second daemon on the same
# database is refused. The kernels are cache hits after t0500/t0510
# (shared build cache, as there), so the time goes into the boots.
# cached-kernels: its kernels, bisection included, are the example
# series', t0500's (cache hits): make test runs it late in the boots
# lane, beside the builds; alone, it builds them
# mmci-test-needs: vm kernel-build cached-kernels
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg
. "$SRC/tests/lib-http.sh"

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
PY=/usr/bin/python3
. "$SRC/tests/lib-smtp.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (make setup installs it)"
CHECK="$PY $SRC/tests/web-check.py"
EXAMPLE="$SRC/kernel-patches/examples/memmap-slow.mbox"
COVER='20250303100000.0.mmci-demo@example.org'
BOX="$TRASH/box"
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_SEND MMCI_CONFIG \
	MMCI_DISCOVER_PATHS MMCI_SOURCES MMCI_RUN_ARGS MMCI_PER_PATCH
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0 MMCI_FETCH_ATTEMPTS=2

DAEMON_PID=
cleanup() {
	[ -n "$DAEMON_PID" ] && kill -9 "$DAEMON_PID" 2>/dev/null
	# the git daemon of the nightly cases (--detach writes its pid)
	[ -s "$TRASH/git-daemon.pid" ] &&
		kill "$(cat "$TRASH/git-daemon.pid")" 2>/dev/null
	stop_nginx
}
test_atexit cleanup

# start_daemon: in the background, its pid in $TRASH/daemon.pid
start_daemon() {
	MMCI_CONFIG="$TRASH/mmci.conf" "$MMCI" daemon \
		--listen "127.0.0.1:$(cat "$TRASH/wport")" \
		>> "$TRASH/daemon.log" 2>&1 &
	echo $! > "$TRASH/daemon.pid"
}

test_expect 'the list archive (nginx), the SMTP server (aiosmtpd), the settings' '
	nginx_start &&
	port=$(cat "$TRASH/port") &&
	serve "$EXAMPLE" linux-mm "$COVER" &&
	cat > "$WWW/linux-mm/new.atom" <<-EOF &&
	<?xml version="1.0" encoding="us-ascii"?>
	<feed xmlns="http://www.w3.org/2005/Atom"><title>linux-mm</title>
	<link rel="self" href="http://127.0.0.1:$port/linux-mm/new.atom"/>
	<id>mailto:linux-mm@kvack.org</id><updated>2026-11-30T10:00:00Z</updated>
	<entry><author><name>mmci demo</name><email>mmci-demo@example.org</email></author>
	<title>[PATCH 0/2] mm/mm_init: verify ZONE_DEVICE struct pages after init</title>
	<updated>2026-11-30T09:00:00Z</updated>
	<link href="http://127.0.0.1:$port/linux-mm/$COVER/"/>
	<id>urn:uuid:00000000-0000-0000-0000-000000000001</id></entry>
	</feed>
	EOF
	mkdir -p "$BOX" && echo defer > "$BOX/mode" &&
	smtpd_start "$BOX" "$TRASH/sport" && sport=$(cat "$TRASH/sport") &&
	free_port > "$TRASH/wport" &&
	cat > "$TRASH/mmci.conf" <<-EOF
	# the daemon of this test: the local archive, fast polls, real mail
	MMCI_SOURCES=discover
	MMCI_DISCOVER_FEED=http://127.0.0.1:$port/linux-mm/new.atom
	MMCI_POLL_S=3
	MMCI_BASE=debian-6.12
	MMCI_BASE_BRANCHES=
	MMCI_PER_PATCH=1
	MMCI_RUN_ARGS=--nvdimm 4G --iters 8
	MMCI_MAIL_SEND=1
	MMCI_SMTP_URL=smtp://127.0.0.1:$sport
	MMCI_MAIL_FROM=mmci <mmci@example.org>
	MMCI_WEB_URL=http://127.0.0.1:$(cat "$TRASH/wport")
	MMCI_MAIL_LOCAL_LINKS=1
	EOF
'

test_expect 'init (the tree is shared with the other kernel tests)' '
	"$MMCI" init
'

date +%s > "$TRASH/t0"
test_expect 'the daemon starts and discovers the series by itself' '
	start_daemon &&
	wait_for 120 "the series job" \
		"SELECT count(*) = 1 FROM jobs WHERE kind = \"series\"" &&
	[ "$(sql "SELECT decision FROM discovered WHERE message_id = \"$COVER\"")" = kept ] &&
	sql "SELECT id, kind, status FROM jobs"
'
DAEMON_PID=$(cat "$TRASH/daemon.pid" 2>/dev/null)

test_expect 'a second daemon on the same database is refused' '
	! MMCI_CONFIG="$TRASH/mmci.conf" "$MMCI" daemon --no-web > out 2> err &&
	cat err &&
	grep -q "another mmci daemon (pid $DAEMON_PID) is using" err &&
	kill -0 "$DAEMON_PID"
'

test_expect 'the job runs: kernels built or cached, the first boots stored' '
	wait_for 2400 "a stored boot of the job" \
		"SELECT count(*) > 0 FROM boots b JOIN runs r ON r.id = b.run_id
		 WHERE r.job_id = 1 AND b.status = \"ok\"" &&
	sql "SELECT r.id, r.label, r.status, count(b.id) FROM runs r
	     LEFT JOIN boots b ON b.run_id = r.id WHERE r.job_id = 1
	     GROUP BY r.id"
'

test_expect 'kill -9 mid-run: the job child dies too, nothing stored is lost' '
	sql "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id
	     JOIN runs r ON r.id = b.run_id WHERE r.job_id = 1 AND
	     b.status = \"ok\"" > samples.before &&
	sql "SELECT group_concat(b.id) FROM boots b JOIN runs r ON
	     r.id = b.run_id WHERE r.job_id = 1 AND b.status = \"ok\"" > boots.before &&
	cat samples.before boots.before &&
	[ "$(cat samples.before)" -gt 0 ] &&
	# the job child and its boot children, of this daemon: not those of
	# another test next door
	job=$(for p in $(descendants "$DAEMON_PID"); do
		tr "\0" " " < /proc/$p/cmdline 2>/dev/null |
			grep -q "test-series --series=1 " && echo $p; done; :) &&
	echo "job processes: $job" && [ -n "$job" ] &&
	job=$(proc_ids $job) &&
	kill -9 "$DAEMON_PID" &&
	i=0 && while procs_running $job; do
		i=$((i + 1)); [ $i -lt 60 ] || { echo "job child still alive"; exit 1; }
		sleep 1; done &&
	[ "$(sql "SELECT status FROM jobs WHERE id = 1")" = running ] &&
	[ "$(sql "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id
	     JOIN runs r ON r.id = b.run_id WHERE r.job_id = 1 AND
	     b.status = \"ok\"")" -ge "$(cat samples.before)" ]
'

test_expect 'a restarted daemon queues the job again and completes it' '
	start_daemon &&
	wait_for 2400 "the job to end" \
		"SELECT status IN (\"done\", \"failed\") FROM jobs WHERE id = 1" &&
	sql "SELECT status, attempts, error FROM jobs WHERE id = 1" &&
	[ "$(sql "SELECT status || \" \" || attempts FROM jobs WHERE id = 1")" = "done 2" ] &&
	grep -q "job #1 queued again: interrupted" "$TRASH/daemon.log" &&
	date +%s > "$TRASH/t1"
'
DAEMON_PID=$(cat "$TRASH/daemon.pid" 2>/dev/null)

test_expect 'the interrupted attempt: its boots and samples kept, its runs failed' '
	for b in $(tr , " " < boots.before); do
		[ "$(sql "SELECT status FROM boots WHERE id = $b")" = ok ] || exit 1
	done &&
	[ "$(sql "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id
	     WHERE b.id IN ($(cat boots.before))")" = "$(cat samples.before)" ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE job_id = 1 AND status = \"failed\"
	     AND error LIKE \"interrupted:%\"")" -ge 1 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE job_id = 1 AND status = \"ok\"")" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"running\"")" = 0 ]
'

test_expect 'no libvirt domain is left behind' '
	no_domains_left
'

test_expect 'the SMTP server refuses the report: kept, sent again at a later poll' '
	# reported_at is set before the mail goes, report_note after it
	wait_for 60 "the report" "SELECT count(*) > 0 FROM jobs WHERE id = 1 AND report_note IS NOT NULL" &&
	sql "SELECT id, status, error FROM mails" &&
	[ "$(sql "SELECT count(*) FROM mails WHERE status = \"failed\" AND error LIKE \"%451%\"")" = 1 ] &&
	! ls "$BOX"/msg-*.eml 2> /dev/null &&
	rm "$BOX/mode" &&
	wait_for 60 "the mail to be sent" "SELECT count(*) = 1 FROM mails WHERE status = \"sent\"" &&
	grep -q "mail retry: 1 sent, 0 still failing" "$TRASH/daemon.log"
'

test_expect 'the report reached the SMTP server, threaded under the cover letter' '
	ls "$BOX" && m=$(ls "$BOX"/msg-*.eml | head -1) &&
	[ "$(ls "$BOX"/msg-*.eml | wc -l)" = 1 ] &&
	headers "$m" > h && cat h &&
	grep -qx "In-Reply-To: <$COVER>" h &&
	grep -qx "References: <$COVER>" h &&
	# the subject keeps its verdict whole within 100 characters; the
	# title before it may be shortened
	grep -q "^Subject: \[mmci\] \[PATCH 0/2\] mm/mm_init: .*: fsdax\.[a-z_]*memmap\(_ns\)\{0,1\} +6[0-9.]*% regression$" h &&
	grep -qx "To: mmci demo <mmci-demo@example.org>" h &&
	grep -q "^Cc: Andrew Morton <akpm@example.org>, linux-mm@example.org$" h &&
	grep -qi "rcpt akpm@example.org" "${m%.eml}.env" &&
	tr -d "\r" < "$m" > body &&
	grep -q "rebind_memmap" body &&
	grep -q "^patch 2/2 mm/mm_init: verify ZONE_DEVICE" body &&
	grep -q "^    [0-9.]* -> [0-9.]*  +6[0-9.]*% \[.*\]  worse$" body &&
	grep -q "http://127.0.0.1:$(cat "$TRASH/wport")/" body &&
	# the new run and its base, each as a bundle the daemon serves
	grep "^        mmci reproduce --bundle http://127.0.0.1:$(cat "$TRASH/wport")/bundle/[0-9]*$" body > repro &&
	[ "$(wc -l < repro)" = 2 ] &&
	for url in $(sed "s/.* //" repro); do
		i=0 && until $PY -c "import gzip, json, sys, urllib.request
b = json.loads(gzip.decompress(urllib.request.urlopen(sys.argv[1]).read()))
assert b[\"format\"] == \"mmci-bundle/1\" and b[\"boots\"], b" "$url"; do
			i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.2; done
	done
'

# dom PATH FILE: the DOM Chromium built from the daemon's page, once the
# render worker has written every page: Chromium dumps the DOM of what
# it got first, and a page not written yet is a 503 that reloads itself
dom() {
	i=0 &&
	until [ "$(sql "SELECT count(*) FROM pages_dirty")" = 0 ] &&
		curl -sf -o /dev/null "http://127.0.0.1:$(cat "$TRASH/wport")$1"; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "$1: not rendered in 120 s"; return 1; }
		sleep 0.2
	done &&
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --dump-dom \
		"http://127.0.0.1:$(cat "$TRASH/wport")$1" > "$2" 2> "$2.err"
}

test_expect 'chromium: the series page served by the daemon has the per-patch table and the claims' '
	dom /series/1 series.html &&
	$CHECK series.html "h1:mm/mm_init: verify ZONE_DEVICE" id:patches \
		id:attribution "text:attribution:rebind_memmap" \
		"text:attribution:+2 mm/mm_init: verify" \
		"text:attribution:claimed +66.7%, measured +" \
		"notext:attribution:no measured metric fits it" \
		"text:series-verdict:verdict: WORSE: patch 2/2 fsdax " \
		minrows:per-patch:3 "text:per-patch:+2 mm/mm_init: verify" \
		"text:base:base: no base-commit; the first of debian-6.12" &&
	dom / index.html && $CHECK index.html minrows:runs:3
'

BASE_C=$(git -C "$MMCI_TREE" rev-parse "debian-6.12^{commit}")
P2=$(sql "SELECT commit_id FROM builds WHERE upto = 2 ORDER BY id DESC LIMIT 1")
PATCH2='20250303100000.2.mmci-demo@example.org'

test_expect 'nightly: mm-new appears on a git daemon; SIGHUP adds it; its first head is measured' '
	[ -n "$P2" ] && [ -n "$BASE_C" ] &&
	git init -q --bare srv/mm.git &&
	echo "$MMCI_TREE/.git/objects" > srv/mm.git/objects/info/alternates &&
	git -C srv/mm.git update-ref refs/heads/mm-new "$BASE_C" &&
	free_port > gport && gport=$(cat gport) &&
	git daemon --export-all --base-path="$TRASH/srv" --port=$gport \
		--reuseaddr --listen=127.0.0.1 --detach \
		--pid-file="$TRASH/git-daemon.pid" &&
	i=0 && until git ls-remote "git://127.0.0.1:$gport/mm.git" > /dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	sed -i "s/^MMCI_SOURCES=.*/MMCI_SOURCES=discover,tree/" mmci.conf &&
	echo "MMCI_REMOTES=mm=git://127.0.0.1:$gport/mm.git#mm-new" >> mmci.conf &&
	kill -HUP "$DAEMON_PID" &&
	wait_for 900 "the first nightly" "SELECT count(*) = 1 FROM jobs
		WHERE kind = \"nightly\" AND status IN (\"done\", \"failed\")" &&
	grep -q "settings: 13 from" daemon.log &&
	sql "SELECT id, kind, status, result FROM jobs" &&
	[ "$(sql "SELECT status FROM jobs WHERE kind = \"nightly\"")" = done ] &&
	[ "$(sql "SELECT commit_id FROM heads")" = "$BASE_C" ]
'

test_expect 'mm-new moves to the series: the regression is found, bisected to patch 2, mailed' '
	git -C srv/mm.git update-ref refs/heads/mm-new "$P2" &&
	wait_for 1800 "the bisection" "SELECT count(*) = 1 FROM jobs
		WHERE kind = \"bisect\" AND status IN (\"done\", \"failed\")" &&
	sql "SELECT id, kind, status, series_ref, result FROM jobs" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"nightly\" AND
	     status = \"done\"")" = 2 ] &&
	sql "SELECT result FROM jobs WHERE kind = \"nightly\" ORDER BY id DESC
	     LIMIT 1" | grep -q "\"worse\":[1-9]" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"bisect\"")" = 1 ] &&
	[ "$(sql "SELECT status || \" \" || series_ref FROM jobs WHERE
	     kind = \"bisect\"")" = "done $BASE_C..$P2" ] &&
	sql "SELECT result FROM jobs WHERE kind = \"bisect\"" |
		grep -q "\"first_bad\":\"$P2\"" &&
	# reported_at is set before the mail goes, report_note after it
	wait_for 60 "the mails" "SELECT count(*) = 0 FROM jobs WHERE
		reported_at IS NULL OR report_note IS NULL" &&
	ls "$BOX" && [ "$(ls "$BOX"/msg-*.eml | wc -l)" = 2 ] &&
	# one mail per nightly regression: the one of the bisection, naming it
	sql "SELECT report_note FROM jobs WHERE kind = \"nightly\" ORDER BY
	     id DESC LIMIT 1" | grep -q "^not mailed: its bisection (job #[0-9]*)"
'

test_expect 'the bisection'"'"'s mail names the commit, in patch 2'"'"'s thread' '
	m="$BOX"/msg-2.eml &&
	headers "$m" > h && cat h &&
	grep -qx "In-Reply-To: <$PATCH2>" h &&
	grep -qx "References: <$COVER> <$PATCH2>" h &&
	grep -q "^Subject: \[mmci\] \[PATCH 2/2\] mm/mm_init: .*: fsdax\..* +[0-9.]*% regression$" h &&
	tr -d "\r" < "$m" > body &&
	grep -q "^commit: $P2" body
'

test_expect 'SIGTERM: the daemon stops cleanly and frees the database' '
	kill -TERM "$DAEMON_PID" &&
	i=0 && while kill -0 "$DAEMON_PID" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 60 ] || exit 1; sleep 1; done &&
	tail -3 "$TRASH/daemon.log" &&
	grep -q "stopping on a signal" "$TRASH/daemon.log" &&
	MMCI_SOURCES= "$MMCI" daemon --once --no-web > out 2>&1 &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE status NOT IN (\"done\", \"failed\")")" = 0 ]
'

if [ -s "$TRASH/t0" ] && [ -s "$TRASH/t1" ]; then
	say "unattended path: $(( $(cat "$TRASH/t1") - $(cat "$TRASH/t0") )) s" \
		"from the daemon's start to the finished job (one kill -9 and" \
		"restart included)"
fi
test_done
