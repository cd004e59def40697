#!/bin/sh
# t0800-report: `mmci report` against a real SMTP server on loopback
# (Debian's python3-aiosmtpd, with a handler written here that stores what
# it receives and can be told to refuse). A real series is ingested; the
# runs, boots and samples are inserted with sqlite3 (a VM run is too slow
# for this test): icount mode, fsdax rebind 163 -> 270 ms (worse), devdax
# 196 -> 197 ms (within a jiffy: no change).
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

PY=/usr/bin/python3
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
"$PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "python3-aiosmtpd is not installed (apt-get install python3-aiosmtpd)"
EXAMPLE="$SRC/kernel-patches/examples/memmap-slow.mbox"
[ -f "$EXAMPLE" ] || skip_all "no $EXAMPLE"
COVER='20250303100000.0.mmci-demo@example.org'
PATCH2='20250303100000.2.mmci-demo@example.org'
BOX="$TRASH/box"
HOST=$(hostname)

# the SMTP server: tests/catcher.py

# headers NAME... : the message's header field names, one a line
cat > "$TRASH/headers.py" <<'EOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                   policy=email.policy.default)
for k, v in m.items():
    assert "\r" not in str(v) and "\n" not in str(v), (k, v)
    print("%s: %s" % (k, v))
for k in ("From", "To", "Cc"):
    for a in m[k].addresses if m[k] else ():
        print("addr %s %s" % (k, a.addr_spec))
EOF

# the server's pid is read into SMTPD_PID as soon as it is up; lib.sh
# runs stop_smtpd however the test ends
SMTPD_PID=
stop_smtpd() {
	[ -n "$SMTPD_PID" ] && kill "$SMTPD_PID" 2>/dev/null
	return 0
}
test_atexit stop_smtpd

free_port() {
	"$PY" -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# the newest message the server received, and its envelope
last_msg() { ls -t "$BOX"/msg-*.eml | head -1; }
nr_received() { ls "$BOX"/msg-*.eml 2>/dev/null | wc -l; }
# the unfolded header block of a message, CRs removed
headers() { tr -d '\r' < "$1" | sed '/^$/q' | sed -e ':a' -e '$!N;s/\n[ \t]/ /;ta' -e 'P;D'; }

test_expect 'start aiosmtpd on a free loopback port' '
	mkdir -p "$BOX" &&
	port=$(free_port) && echo "$port" > "$TRASH/port" &&
	{ PYTHONPATH="$SRC/tests" "$PY" -m aiosmtpd -n -l "127.0.0.1:$port" \
		-c catcher.Catcher "$BOX" > "$TRASH/smtpd.log" 2>&1 &
	  echo $! > "$TRASH/smtpd.pid"; } &&
	i=0 && until "$PY" -c "import socket; socket.create_connection((\"127.0.0.1\", $port), 1)" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || { cat "$TRASH/smtpd.log"; exit 1; }; sleep 0.1; done
'
SMTPD_PID=$(cat "$TRASH/smtpd.pid" 2>/dev/null)
PORT=$(cat "$TRASH/port" 2>/dev/null || echo 1)
SMTP="smtp://127.0.0.1:$PORT"
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_DOMAIN

# add_runs SERIES UPTO_BASE UPTO_NEW BASE_ID NEW_ID NEW_FSDAX: two builds
# and runs with one boot each
add_runs() {
	sqlite3 "$MMCI_DB" <<-EOF
	INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
		series_id, upto, config_fragment, config_hash, compiler,
		kernel_release, hz, status, started_at) VALUES
		($4, 'k$4', '/t', '1111111111111111111111111111111111111111', 't',
		 $( [ "$2" = 0 ] && echo NULL || echo "$1"), $2, 'kernel-patches/config/mmci.config',
		 'cafecafecafecafecafe', 'gcc 12.2.0', '6.12.117', 1000, 'ok', 0),
		($5, 'k$5', '/t', '2222222222222222222222222222222222222222', 't',
		 $1, $3, 'kernel-patches/config/mmci.config',
		 'cafecafecafecafecafe', 'gcc 12.2.0', '6.12.117+', 1000, 'ok', 0);
	INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, qemu_version, libvirt_version,
		host, initrd, status, started_at) VALUES
		($4, 'base', $4, '/k', '6.12.117', '/m', 1000, 'fsdax,devdax',
		 '{"iters":10}', 'tcg', 'icount', 2, 1024, 16384, 'tmpfs',
		 '7.2.15', '9.0.0', '$HOST', '/i', 'ok', 0),
		($5, 'new', $5, '/k', '6.12.117+', '/m', 1000, 'fsdax,devdax',
		 '{"iters":10}', 'tcg', 'icount', 2, 1024, 16384, 'tmpfs',
		 '7.2.15', '9.0.0', '$HOST', '/i', 'ok', 0);
	INSERT INTO boots (id, run_id, idx, status, started_at) VALUES
		($4, $4, 0, 'ok', 0), ($5, $5, 0, 'ok', 0);
	WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
				 WHERE i < 10)
	INSERT INTO samples (run_id, boot_id, workload, metric, unit,
			     iteration, value)
		SELECT $4, $4, 'fsdax', 'rebind_memmap', 'ms', i, 163 FROM it
		UNION ALL
		SELECT $5, $5, 'fsdax', 'rebind_memmap', 'ms', i, $6 FROM it
		UNION ALL
		SELECT $4, $4, 'devdax', 'rebind_memmap', 'ms', i, 196 FROM it
		UNION ALL
		SELECT $5, $5, 'devdax', 'rebind_memmap', 'ms', i, 197 FROM it;
	EOF
}

test_expect 'ingest the example series; runs 1 (base) and 2 (patches 1-2)' '
	"$MMCI" ingest "$EXAMPLE" &&
	[ "$(sql "SELECT message_id FROM series WHERE id = 1")" = "$COVER" ] &&
	add_runs 1 0 2 1 2 270 &&
	"$MMCI" compare 1 2 | grep -q "^fsdax .* worse$"
'

test_expect 'dry run (the default): an .eml in the outbox, nothing sent' '
	"$MMCI" report --base 1 --new 2 > out 2> err &&
	cat out err &&
	p=$(cat out) && [ -f "$p" ] && case "$p" in "$MMCI_DATA"/outbox/*.eml) ;; *) false;; esac &&
	cp "$p" dry.eml &&
	[ "$(nr_received)" = 0 ] &&
	grep -q "dry run" err &&
	[ "$(sql "SELECT status || \" \" || kind || \" \" || series_id || \" \" || base_run || \" \" || new_run FROM mails")" = "dry-run series 1 1 2" ] &&
	[ "$(sql "SELECT path FROM mails")" = "$p" ]
'

test_expect 'threaded under the cover letter; To the author, Cc its To and Cc' '
	headers dry.eml > h && cat h &&
	grep -qx "In-Reply-To: <$COVER>" h &&
	grep -qx "References: <$COVER>" h &&
	grep -qx "From: mmci <mmci@localhost>" h &&
	grep -qx "To: mmci demo <mmci-demo@example.org>" h &&
	grep -qx "Cc: Andrew Morton <akpm@example.org>, linux-mm@example.org" h &&
	# at most 100 characters: the title gives way, the verdict stays whole
	grep -qx "Subject: \[mmci\] \[PATCH 0/2\] mm/mm_init: verify ZONE_DEVICE struct\.\.\.: fsdax.rebind_memmap +65.6% regression" h &&
	grep -Eqx "Message-ID: <[0-9]{14}\.[0-9]+\.[0-9a-f]{12}\.mmci@localhost>" h &&
	grep -Eqx "Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} \+0000" h &&
	grep -qx "MIME-Version: 1.0" h &&
	grep -qx "Content-Type: text/plain; charset=UTF-8" h &&
	grep -qx "Content-Transfer-Encoding: 8bit" h &&
	[ "$(sql "SELECT message_id FROM mails")" = "$(sed -n "s/^Message-ID: <\(.*\)>$/\1/p" h)" ] &&
	[ "$(sql "SELECT recipients FROM mails")" = "mmci-demo@example.org, akpm@example.org, linux-mm@example.org" ] &&
	! grep -v "^[A-Za-z-]*: " h | grep -v "^$" &&
	tr -d "\r" < dry.eml | sed "/^$/q" | awk "length > 78 { print; exit 1 }"
'

test_expect 'the body: LKP-style text, the table, machine, reproduce, links' '
	cat dry.eml &&
	grep -q "^mmci measured a +65.6% regression of fsdax.rebind_memmap on:$" dry.eml &&
	grep -q "^series: \[PATCH 0/2\] mm/mm_init: verify ZONE_DEVICE struct pages after init$" dry.eml &&
	# only what moved, in lines of at most 80 columns
	grep -qx "  fsdax rebind_memmap (ms)" dry.eml &&
	grep -qx "    163.0 -> 270.0  +65.64% \[+65.03, +66.26\]  worse" dry.eml &&
	grep -qx "  1 other metric(s): no significant change" dry.eml &&
	! grep -q "devdax rebind_memmap" dry.eml &&
	! grep -q "CONFIG_" dry.eml &&
	grep -q "^test: icount clock, every sample a unit" dry.eml &&
	[ "$(sed "1,/^$/d" dry.eml | awk "length(\$0) > 80" | grep -cv "^ *https\?://[^ ]*$")" = 0 ] &&
	grep -q "^test machine: $HOST, .*CPU(s)$" dry.eml &&
	grep -q "^accelerator: tcg, clock: icount" dry.eml &&
	grep -q "^base: run #1: kernel 6.12.117, commit 111111111111$" dry.eml &&
	grep -q "^new:  run #2: kernel 6.12.117+, commit 222222222222, series #1 patches 1-2$" dry.eml &&
	grep -q "^compiler: gcc 12.2.0$" dry.eml &&
	grep -q "^| Reported-by: mmci <mmci@localhost>$" dry.eml &&
	grep -q "^| Closes: http://localhost:8080/compare/1/2$" dry.eml &&
	grep -q "^        mmci reproduce --bundle http://localhost:8080/bundle/2$" dry.eml &&
	grep -q "^        mmci reproduce --bundle http://localhost:8080/bundle/1$" dry.eml &&
	grep -q "^http://localhost:8080/series/1$" dry.eml
'

test_expect 'the body: the verdict first, then the table, claims above the signature' '
	sed "1,/^$/d" dry.eml > body &&
	[ "$(head -1 body)" = "verdict: WORSE: 1 metric(s) regressed" ] &&
	sig=$(grep -n "^-- $" body | cut -d: -f1) && [ -n "$sig" ] &&
	tab=$(grep -n "^    163.0 -> 270.0 .* worse$" body | cut -d: -f1) &&
	cl=$(grep -n "^claimed vs measured" body | head -1 | cut -d: -f1) &&
	[ -n "$tab" ] && [ -n "$cl" ] &&
	[ "$tab" -lt "$cl" ] && [ "$cl" -lt "$sig" ] &&
	[ "$(sed -n "$((sig + 1)),\$p" body | grep -c .)" -le 2 ] &&
	grep -qx "link:   https://lore.kernel.org/r/$COVER" body &&
	! grep -q "<$COVER>" body &&
	grep -q "^config: tinyconfig + kvm_guest.config + mmci.config (.config sha1 cafecafecafe)" body &&
	! grep -q "kernel-patches/config" body
'

test_expect '--url, --from and MMCI_WEB_URL change the links and the sender' '
	MMCI_WEB_URL=http://ci.example.net/ "$MMCI" report --base 1 --new 2 > out &&
	grep -q "^http://ci.example.net/compare/1/2$" "$(cat out)" &&
	"$MMCI" report --base 1 --new 2 --url https://x.example/mmci \
		--from "CI Bot <ci@example.net>" > out &&
	grep -q "^https://x.example/mmci/series/1$" "$(cat out)" &&
	grep -qx "From: CI Bot <ci@example.net>" "$(cat out)" &&
	grep -Eq "^Message-ID: <.*\.mmci@example\.net>$" "$(cat out)" &&
	[ "$(nr_received)" = 0 ]
'

# a real send links to a public address, never to the mmci host
MMCI_WEB_URL=https://mmci.example.org
export MMCI_WEB_URL

test_expect '--send delivers it to the SMTP server, as written' '
	"$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" > out 2> err &&
	cat out err &&
	[ "$(nr_received)" = 1 ] &&
	m=$(last_msg) && tr -d "\r" < "$m" > got &&
	cmp got "$(cat out)" &&
	env=${m%.eml}.env && cat "$env" &&
	[ "$(cat "$env")" = "from mmci@localhost
rcpt mmci-demo@example.org
rcpt akpm@example.org
rcpt linux-mm@example.org" ] &&
	"$PY" "$TRASH/headers.py" "$m" > h && cat h &&
	grep -qx "In-Reply-To: <$COVER>" h &&
	[ "$(sql "SELECT status FROM mails ORDER BY id DESC LIMIT 1")" = sent ] &&
	[ "$(sql "SELECT sent_at IS NOT NULL AND error IS NULL FROM mails ORDER BY id DESC LIMIT 1")" = 1 ]
'

test_expect 'MMCI_SMTP_URL alone does not send: --send is needed' '
	n=$(nr_received) &&
	MMCI_SMTP_URL="$SMTP" "$MMCI" report --base 1 --new 2 > out &&
	[ "$(nr_received)" = "$n" ] &&
	MMCI_SMTP_URL="$SMTP" "$MMCI" report --base 1 --new 2 --send > out &&
	[ "$(nr_received)" = $((n + 1)) ]
'

test_expect '--send without a server is refused' '
	{ "$MMCI" report --base 1 --new 2 --send 2> err; [ $? = 129 ]; } &&
	cat err && grep -q "needs an SMTP server" err
'

test_expect '--patch 2: threaded under patch 2, References cover then patch' '
	"$MMCI" report --base 1 --new 2 --patch 2 > out &&
	headers "$(cat out)" > h && cat h &&
	grep -qx "In-Reply-To: <$PATCH2>" h &&
	grep -qx "References: <$COVER> <$PATCH2>" h &&
	grep -q "^Subject: \[mmci\] \[PATCH 2/2\] mm/mm_init: verify ZONE_DEVICE struct\.\.\.: fsdax.rebind_memmap +65.6% regression$" h &&
	grep -q "^patch:  2/2, the patch that moved the numbers$" "$(cat out)"
'

test_expect 'patches 1 vs 1-2: threaded under patch 2 without --patch' '
	add_runs 1 1 2 3 4 270 &&
	"$MMCI" report --base 3 --new 4 > out &&
	headers "$(cat out)" > h && cat h &&
	grep -qx "In-Reply-To: <$PATCH2>" h
'

test_expect 'no change (patch 1 alone): the subject says so, no Reported-by' '
	"$MMCI" report --base 1 --new 3 --force > out &&
	headers "$(cat out)" > h && cat h &&
	grep -qx "In-Reply-To: <20250303100000.1.mmci-demo@example.org>" h &&
	grep -qx "Subject: \[mmci\] \[PATCH 1/2\] mm/mm_init: tidy comments around memmap_init_zone_device(): no significant change" h &&
	! grep -q "Reported-by" "$(cat out)"
'

test_expect 'a series whose patch 2 never arrived: the mail says what was measured' '
	sql "UPDATE series SET missing = \"2\", nr_found = 1 WHERE id = 1" &&
	"$MMCI" report --base 1 --new 3 --force > out &&
	cat "$(cat out)" &&
	grep -qx "        (patch(es) 2/2 never arrived; measured: patch 1 of 2)" \
		"$(cat out)" &&
	sql "UPDATE series SET missing = NULL, nr_found = NULL WHERE id = 1"
'

test_expect 'nightly: --commit, no threading, --to recipients' '
	"$MMCI" report --base 1 --new 2 --commit 2222222222222222222222222222222222222222 \
		--to "Linux MM <linux-mm@example.org>" --send --smtp "$SMTP" > out &&
	headers "$(cat out)" > h && cat h &&
	! grep -q "^In-Reply-To" h && ! grep -q "^References" h &&
	grep -qx "To: Linux MM <linux-mm@example.org>" h &&
	grep -qx "Subject: \[mmci\] 222222222222: fsdax.rebind_memmap +65.6% regression" h &&
	[ "$(sql "SELECT kind || \" \" || coalesce(series_id, \"-\") FROM mails ORDER BY id DESC LIMIT 1")" = "nightly -" ] &&
	grep -qx "rcpt linux-mm@example.org" "$(ls -t "$BOX"/msg-*.env | head -1)" &&
	! "$MMCI" report --base 1 --new 2 --commit "x; rm" 2> err &&
	grep -q "is not a commit id" err
'

# a series whose subject, sender and To hide a CR LF and a Bcc: line in
# RFC 2047 encoded-words
b64() { printf "$1" | base64 -w0; }
cat > "$TRASH/evil.mbox" <<EOF
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Message-ID: <evil-1@example.org>
From: =?UTF-8?B?$(b64 'Eve\r\nBcc: victim2@example.com')?= <eve@example.org>
To: linux-mm@example.org, "=?UTF-8?B?$(b64 'Ok\r\nBcc: victim3@example.com')?=" <ok@example.org>,
 "bad" <victim4@[127.0.0.1]>, <victim6@exa_mple.org>
Cc: =?UTF-8?B?$(b64 'Mallory\r\n\r\nbody')?= <mallory@example.org>,
 =?UTF-8?Q?Marek_Beh=C3=BAn?= <kabel@example.org>
Date: Mon, 3 Mar 2025 10:00:00 +0000
Subject: [PATCH] =?UTF-8?B?$(b64 'mm: evil Grüße\r\nBcc: victim@example.com')?=

Evil but harmless.

Signed-off-by: Eve <eve@example.org>
---
 mm/evil.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/evil.c b/mm/evil.c
new file mode 100644
--- /dev/null
+++ b/mm/evil.c
@@ -0,0 +1 @@
+/* evil */
--
2.39.5
EOF

test_expect 'header injection from the series: no Bcc, no extra line' '
	"$MMCI" ingest "$TRASH/evil.mbox" &&
	sid=$(sql "SELECT id FROM series WHERE message_id = \"evil-1@example.org\"") &&
	[ -n "$sid" ] &&
	add_runs $sid 0 1 5 6 270 &&
	n=$(nr_received) &&
	"$MMCI" report --base 5 --new 6 --send --smtp "$SMTP" > out 2> err &&
	cat err && [ "$(nr_received)" = $((n + 1)) ] &&
	m=$(last_msg) && cat "$m" &&
	tr -d "\r" < "$m" | sed "/^$/q" > raw &&
	! grep -i "^bcc" raw && ! grep -i "^body" raw &&
	"$PY" "$TRASH/headers.py" "$m" > h && cat h &&
	! grep -i "^addr .*victim" h &&
	grep -qx "addr To eve@example.org" h &&
	grep -v "^addr " h | cut -d: -f1 | sort -u | tr "\n" " " > names &&
	[ "$(cat names)" = "Auto-Submitted Cc Content-Transfer-Encoding Content-Type Date From In-Reply-To MIME-Version Message-ID References Subject To X-Mailer X-mmci-runs " ] &&
	grep -qx "Subject: \[mmci\] \[PATCH\] mm: evil Grüße.*Bcc: victim@example.com: fsdax.rebind_memmap +65.6% regression" h &&
	grep -q "^Subject: =?UTF-8?B?" raw &&
	grep -q "^Cc: .*, Marek Behún <kabel@example.org>$" h &&
	grep -q "=?UTF-8?B?[A-Za-z0-9+/=]*?= <kabel@example.org>" raw &&
	grep -q "^To: .*<eve@example.org>$" h &&
	! grep -i "victim" "${m%.eml}.env" &&
	grep -qx "rcpt eve@example.org" "${m%.eml}.env" &&
	grep -qx "rcpt ok@example.org" "${m%.eml}.env" &&
	grep -qx "rcpt mallory@example.org" "${m%.eml}.env" &&
	grep -q "leaving out the address" err
'

test_expect 'raw CR LF in the stored subject (mbox gone): cleaned to one line' '
	sid=$(sql "SELECT id FROM series WHERE message_id = \"evil-1@example.org\"") &&
	mv "$TRASH/evil.mbox" "$TRASH/evil.mbox.away" &&
	sql "UPDATE messages SET subject = \"[PATCH] x\" || char(13) || char(10) || \"Bcc: victim@example.com\" || char(10) || char(10) || \"body\" WHERE message_id = \"evil-1@example.org\"" &&
	sql "UPDATE series SET author = \"Eve\" || char(13) || char(10) || \"Bcc: victim5@example.com <eve@example.org>\" WHERE id = $sid" &&
	"$MMCI" report --base 5 --new 6 --send --smtp "$SMTP" > out 2> err &&
	cat err && grep -q "its mbox is gone" err &&
	m=$(last_msg) && tr -d "\r" < "$m" | sed "/^$/q" > raw && cat raw &&
	! grep -i "^bcc" raw && ! grep -i "^body" raw &&
	grep -q "^Subject: \[mmci\] \[PATCH\] x Bcc: victim@example.com body: fsdax" raw &&
	"$PY" "$TRASH/headers.py" "$m" > h && cat h &&
	! grep -i "^bcc" h && ! grep -i "^addr .*victim" h &&
	grep -qx "addr To eve@example.org" h &&
	! grep -i "victim" "${m%.eml}.env" &&
	mv "$TRASH/evil.mbox.away" "$TRASH/evil.mbox"
'

test_expect 'server refuses RCPT: exit 1, its reply shown, .eml kept, row failed' '
	echo rcpt > "$BOX/mode" && n=$(nr_received) &&
	! "$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" > out 2> err &&
	cat out err &&
	grep -q "refused the message: RCPT TO:<mmci-demo@example.org>: 550 no" err &&
	grep -q "the message is kept in" err &&
	[ -f "$(cat out)" ] && [ "$(nr_received)" = "$n" ] &&
	[ "$(sql "SELECT status || \" \" || error FROM mails ORDER BY id DESC LIMIT 1")" = "failed RCPT TO:<mmci-demo@example.org>: 550 no" ] &&
	[ "$(sql "SELECT path FROM mails ORDER BY id DESC LIMIT 1")" = "$(cat out)" ]
'

test_expect 'server refuses the DATA: the same' '
	echo data > "$BOX/mode" && n=$(nr_received) &&
	! "$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" > out 2> err &&
	cat out err &&
	grep -q "refused the message: end of DATA: 550 no" err &&
	[ -f "$(cat out)" ] && [ "$(nr_received)" = "$n" ] &&
	[ "$(sql "SELECT status FROM mails ORDER BY id DESC LIMIT 1")" = failed ]
'

test_expect 'unreachable server (closed port): a clear error, row failed' '
	rm -f "$BOX/mode" && closed=$(free_port) &&
	! "$MMCI" report --base 1 --new 2 --send --smtp "smtp://127.0.0.1:$closed" > out 2> err &&
	cat err &&
	grep -q "cannot send to SMTP server smtp://127.0.0.1:$closed: Couldn.t connect to server" err &&
	[ -f "$(cat out)" ] &&
	[ "$(sql "SELECT status FROM mails ORDER BY id DESC LIMIT 1")" = failed ] &&
	! "$MMCI" report --base 1 --new 2 --send --smtp "http://127.0.0.1:$PORT/" 2> err &&
	grep -q "is not an smtp:// or smtps:// URL" err
'

test_expect '--retry sends the failed ones once the server accepts' '
	[ "$(sql "SELECT count(*) FROM mails WHERE status = \"failed\"")" = 4 ] &&
	n=$(nr_received) &&
	"$MMCI" report --retry --smtp "$SMTP" > out && cat out &&
	grep -q "retried 4 mail(s): 4 sent, 0 failed" out &&
	[ "$(nr_received)" = $((n + 4)) ] &&
	[ "$(sql "SELECT count(*) FROM mails WHERE status = \"failed\"")" = 0 ] &&
	"$MMCI" report --retry --smtp "$SMTP" | grep -q "retried 0 mail(s)"
'

# add_job ID KIND BASE_RUN NEW_RUN: a finished job of series 1
# add_job ID KIND BASE_RUN NEW_RUN: a finished job; a series job records
# its steps as series-job.c does: the base run (reused when another job
# made it), each step's run the job made, and the new run
add_job() {
	sql "INSERT INTO jobs (id, kind, status, created_at, series_id, result)
	     VALUES ($1, '$2', 'done', 0, 1,
	     '{\"base_run\":$3,\"new_run\":$4,\"worse\":0,\"better\":0}')" &&
	if [ "$2" = series ]; then
		sql "INSERT INTO job_steps (job_id, upto, run_id, source, note)
		     SELECT $1, 0, $3, CASE WHEN job_id IS $1 THEN \"measured\"
		     ELSE \"reused\" END, \"test\" FROM runs WHERE id = $3;
		     INSERT OR IGNORE INTO job_steps (job_id, upto, run_id,
		     source, note) SELECT $1, b.upto, max(r.id), \"measured\",
		     \"test\" FROM runs r JOIN builds b ON b.id = r.build_id
		     WHERE r.job_id = $1 AND b.upto > 0 GROUP BY b.upto;
		     INSERT OR IGNORE INTO job_steps (job_id, upto, run_id,
		     source, note) SELECT $1, coalesce((SELECT b.upto FROM builds
		     b WHERE b.id = r.build_id AND b.upto > 0), 1), r.id,
		     CASE WHEN r.job_id IS $1 THEN \"measured\" ELSE
		     \"reused\" END, \"test\" FROM runs r WHERE r.id = $4"
	fi
}

test_expect 'a no-change job is not mailed; marked, its reason recorded' '
	add_job 11 series 1 3 &&
	n=$(sql "SELECT count(*) FROM mails") &&
	"$MMCI" report --job 11 > out 2> err && cat out err &&
	grep -qx "job #11: not mailed: no significant change" out &&
	[ "$(sql "SELECT count(*) FROM mails")" = "$n" ] &&
	[ "$(sql "SELECT reported_at IS NOT NULL FROM jobs WHERE id = 11")" = 1 ] &&
	[ "$(sql "SELECT report_note FROM jobs WHERE id = 11")" = "not mailed: no significant change" ] &&
	"$MMCI" report --job 11 > out 2> err && cat out err &&
	[ "$(sql "SELECT count(*) FROM mails")" = "$n" ]
'

test_expect '--force mails the no-change job anyway' '
	n=$(sql "SELECT count(*) FROM mails") &&
	"$MMCI" report --job 11 --force > out 2> err && cat out err &&
	grep -q "^job #11: written (dry run): --force (policy: no significant change): " out &&
	[ "$(sql "SELECT count(*) FROM mails")" = $((n + 1)) ] &&
	headers "$(sql "SELECT path FROM mails ORDER BY id DESC LIMIT 1")" |
		grep -q "^Subject: .*: no significant change$"
'

test_expect 'a regression job is mailed once, the reason recorded' '
	add_job 12 series 1 2 &&
	n=$(sql "SELECT count(*) FROM mails") &&
	"$MMCI" report --job 12 > out 2> err && cat out err &&
	grep -q "^job #12: written (dry run): regression: fsdax rebind_memmap +65.6 %: " out &&
	[ "$(sql "SELECT count(*) FROM mails")" = $((n + 1)) ] &&
	"$MMCI" report --job 12 > out 2> err && cat out err &&
	[ "$(sql "SELECT count(*) FROM mails")" = $((n + 1)) ]
'

test_expect 'a real send with localhost links is refused unless MMCI_MAIL_LOCAL_LINKS=1' '
	add_job 13 series 1 2 &&
	n=$(nr_received) && m=$(sql "SELECT count(*) FROM mails") &&
	! MMCI_WEB_URL= MMCI_MAIL_SEND=1 MMCI_SMTP_URL="$SMTP" \
		"$MMCI" report --job 13 > out 2> err &&
	cat out err &&
	[ "$(grep -c "^error: " err)" = 1 ] &&
	grep -q "^error: not sent: the links would point to .http://localhost:8080., which is not a public address; set MMCI_WEB_URL" err &&
	[ "$(nr_received)" = "$n" ] &&
	[ "$(sql "SELECT status FROM mails ORDER BY id DESC LIMIT 1")" = dry-run ] &&
	[ "$(sql "SELECT count(*) FROM mails")" = $((m + 1)) ] &&
	sql "SELECT report_note FROM jobs WHERE id = 13" | grep -q "^not sent: the links would point to" &&
	add_job 14 series 1 2 &&
	! MMCI_WEB_URL=http://127.0.0.1:8080 MMCI_MAIL_SEND=1 MMCI_SMTP_URL="$SMTP" \
		"$MMCI" report --job 14 > out 2> err &&
	grep -q "127.0.0.1:8080.*not a public address" err &&
	[ "$(nr_received)" = "$n" ] &&
	! MMCI_WEB_URL=http://[::1]:8080 "$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" > out 2> err &&
	grep -q "not a public address" err && [ "$(nr_received)" = "$n" ] &&
	add_job 20 series 1 2 &&
	MMCI_WEB_URL= MMCI_MAIL_LOCAL_LINKS=1 MMCI_MAIL_SEND=1 MMCI_SMTP_URL="$SMTP" \
		"$MMCI" report --job 20 > out 2> err &&
	cat out err && [ "$(nr_received)" = $((n + 1)) ] &&
	n=$((n + 1)) &&
	add_job 15 series 1 2 &&
	MMCI_MAIL_SEND=1 MMCI_SMTP_URL="$SMTP" "$MMCI" report --job 15 > out 2> err &&
	cat out err && [ "$(nr_received)" = $((n + 1)) ] &&
	grep -q "^job #15: sent: regression" out
'

# add_step RUN UPTO FSDAX_MS JOB: a build of series 1 up to patch UPTO and
# its run (one boot, icount, fsdax only) made by job JOB
add_step() {
	sqlite3 "$MMCI_DB" <<-EOF
	INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
		series_id, upto, config_fragment, config_hash, compiler,
		kernel_release, hz, status, started_at) VALUES
		($1, 'k$1', '/t', '333333333333333333333333333333333333333$2', 't',
		 $( [ "$2" = 0 ] && echo NULL || echo 1), $2,
		 'kernel-patches/config/mmci.config', 'cafecafecafecafecafe',
		 'gcc 12.2.0', '6.12.117', 1000, 'ok', 0);
	INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus,
		ram_mib, nvdimm_mib, backing, qemu_version, libvirt_version,
		host, initrd, status, started_at, job_id) VALUES
		($1, 'step$2', $1, '/k', '6.12.117', '/m', 1000, 'fsdax',
		 '{"iters":10}', 'tcg', 'icount', 2, 1024, 16384, 'tmpfs',
		 '7.2.15', '9.0.0', '$HOST', '/i', 'ok', 0, $4);
	INSERT INTO boots (id, run_id, idx, status, started_at) VALUES
		($1, $1, 0, 'ok', 0);
	WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
				 WHERE i < 10)
	INSERT INTO samples (run_id, boot_id, workload, metric, unit,
			     iteration, value)
		SELECT $1, $1, 'fsdax', 'rebind_memmap', 'ms', i, $3 FROM it;
	EOF
}

test_expect 'per patch: patch 2 hides patch 1, the mail names it (MIXED)' '
	add_step 21 0 163 16 && add_step 22 1 225 16 && add_step 23 2 163 16 &&
	add_job 16 series 21 23 &&
	"$MMCI" compare 21 23 | grep -q "^verdict: no significant change" &&
	"$MMCI" report --job 16 > out 2> err && cat out err &&
	grep -q "^job #16: written (dry run): patch 1/2 regressed in its own step: fsdax rebind_memmap +38.0 %: " out &&
	p=$(sql "SELECT path FROM mails ORDER BY id DESC LIMIT 1") &&
	headers "$p" > h && cat h &&
	grep -qx "Subject: \[mmci\] \[PATCH 0/2\] mm/mm_init:\.\.\.: MIXED: patch 1/2 fsdax rebind_memmap +38 %; series no change" h &&
	sed "1,/^$/d" "$p" > body &&
	# the verdict paragraph, folded at 80 columns, read as one line
	[ "$(sed "/^$/q" body | tr "\n" " " | sed "s/  */ /g; s/ $//")" = "verdict: MIXED: patch 1/2 fsdax rebind_memmap +38 %; the series as a whole: no significant change" ] &&
	grep -q "^| Reported-by: " body &&
	sig=$(grep -n "^-- $" body | cut -d: -f1) &&
	pp=$(grep -n "^Patch by patch (each against the step before it)" body | cut -d: -f1) &&
	grep -q "^patch 1/2 " body &&
	[ -n "$pp" ] && [ "$pp" -lt "$sig" ]
'

test_expect 'per patch, the series regressed: the subject names patch 2/2' '
	add_step 41 0 163 19 && add_step 42 1 163 19 && add_step 43 2 225 19 &&
	add_job 19 series 41 43 &&
	"$MMCI" report --job 19 > out 2> err && cat out err &&
	grep -q "^job #19: written (dry run): regression: fsdax rebind_memmap +38.0 %: " out &&
	p=$(sql "SELECT path FROM mails ORDER BY id DESC LIMIT 1") &&
	headers "$p" > h && cat h &&
	grep -qx "Subject: \[mmci\] \[PATCH 0/2\] mm/mm_init: verify\.\.\.: patch 2/2: fsdax.rebind_memmap +38.0% regression" h &&
	[ "$(sed "1,/^$/d" "$p" | sed "/^$/q" | tr "\n" " " | sed "s/  */ /g; s/ $//")" = "verdict: WORSE: patch 2/2 fsdax rebind_memmap +38 %; the series as a whole: WORSE: 1 metric(s) regressed" ]
'

test_expect 'a claimed improvement is mailed; an unclaimed one is not' '
	add_step 31 0 163 17 && add_step 32 2 120 17 &&
	add_job 17 series 31 32 &&
	sql "DELETE FROM claims WHERE series_id = 1" &&
	"$MMCI" report --job 17 > out 2> err && cat out err &&
	grep -q "^job #17: not mailed: improvement not claimed by the series" out &&
	sql "INSERT INTO claims (series_id, patch, line, kind, subject, text,
	     before, after, unit, change_pct, higher_is_better) VALUES (1, 0,
	     9, \"before-after\", \"fsdax rebind memmap\",
	     \"fsdax rebind memmap: 163 ms -> 120 ms\", 163, 120, \"ms\",
	     -26.4, 0)" &&
	"$MMCI" report --job 17 --force > out 2> err && cat out err &&
	grep -q "^job #17: written (dry run): --force (policy: claimed improvement: patch 0 claims -26.4 %, measured fsdax rebind_memmap -26.4 %)" out &&
	p=$(sql "SELECT path FROM mails ORDER BY id DESC LIMIT 1") &&
	grep -q "claimed -26.4%, measured -26.4%" "$p"
'

test_expect 'MMCI_MAIL_RATE_PER_HOUR holds a send; --retry sends it later' '
	n=$(nr_received) &&
	MMCI_MAIL_RATE_PER_HOUR=1 "$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" > out 2> err &&
	cat out err && [ "$(nr_received)" = "$n" ] &&
	grep -q "held: MMCI_MAIL_RATE_PER_HOUR=1" err &&
	[ "$(sql "SELECT status FROM mails ORDER BY id DESC LIMIT 1")" = failed ] &&
	MMCI_MAIL_RATE_PER_HOUR=1 "$MMCI" report --retry --smtp "$SMTP" > out 2> err &&
	cat out err && [ "$(nr_received)" = "$n" ] &&
	"$MMCI" report --retry --smtp "$SMTP" > out && cat out &&
	[ "$(nr_received)" = $((n + 1)) ] &&
	! MMCI_MAIL_RATE_PER_HOUR=1x "$MMCI" report --base 1 --new 2 --send --smtp "$SMTP" 2> err &&
	grep -q "MMCI_MAIL_RATE_PER_HOUR=.1x. is not a whole number" err
'

test_expect 'MMCI_MAIL_OPT_OUT: a list is left out, an author gets nothing' '
	MMCI_MAIL_OPT_OUT="linux-mm@example.org" "$MMCI" report --base 1 --new 2 > out &&
	headers "$(cat out)" > h && cat h &&
	grep -qx "Cc: Andrew Morton <akpm@example.org>" h &&
	add_job 18 series 1 2 &&
	MMCI_MAIL_OPT_OUT="x@example.org MMCI-demo@example.org" "$MMCI" report --job 18 > out 2> err &&
	cat out err &&
	grep -q "^job #18: not mailed: the author opted out (MMCI_MAIL_OPT_OUT)" out &&
	! MMCI_MAIL_OPT_OUT="not-an-address" "$MMCI" report --base 1 --new 2 2> err &&
	grep -q "MMCI_MAIL_OPT_OUT: .not-an-address. is not an address" err
'

test_expect 'bad input: unknown run, bad --from, usage' '
	! "$MMCI" report --base 1 --new 99 2> err && grep -q "no run #99" err &&
	! "$MMCI" report --base 1 --new 2 --from "x<y" 2> err &&
	grep -q "no valid sender address" err &&
	{ "$MMCI" report --base 1 2> err; [ $? = 129 ]; } &&
	"$MMCI" report --help | grep -q "^usage: mmci report"
'

test_done
