#!/bin/sh
# t0630-ingest-inbox: `mmci ingest inbox` follows a real public-inbox v2
# inbox made here (public-inbox-init -V2), served by public-inbox-httpd
# on a port the kernel chose (an inherited socket, systemd style), as it
# would follow lore's linux-mm: bursts between two polls, series whose
# patches come late or never, a v2 while v1 waits, a purge that rewrites
# the history, an epoch roll-over, and servers that answer garbage or a
# truncated pack. Each case checks the queued jobs (by the series' first
# mail: each expected one exactly once, no other) and the mark (the tip
# of the newest epoch), the Atom feed left alone but in the one case
# that asks whether both sources make one job.
#
# Mails go in through PublicInbox::InboxWritable in one process per
# burst (deliver.pl: what public-inbox-mda calls; mda itself took 0.8 s
# a mail here, so it delivers only the late patch); the mails are made by
# gen.py: cover letter and [PATCH i/N] with In-Reply-To and References,
# each a small diff of mm/. 50 to 80 s here on two cores shared with a
# kernel build: the 292-mail burst is delivered in 1 s and read in 1 s;
# the slowest cases are the ten series (7 s: each stored, aimed and
# queued) and the one that waits MMCI_SERIES_WAIT_S out (7 s, 3 s asleep).
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/lib-http.sh"
. "$SRC/tests/lib-inbox.sh"
for t in public-inbox-init public-inbox-httpd public-inbox-mda \
	public-inbox-purge perl python3 sqlite3 git flock setpriv; do
	command -v $t >/dev/null ||
		skip_all "$t is not installed (make setup installs public-inbox)"
done

mkdir -p "$TRASH/mails"
INBOX="$TRASH/pi/linux-mm"
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0
export MMCI_FETCH_ATTEMPTS=2 MMCI_FETCH_TIMEOUT=20
export MMCI_SERIES_WAIT_S=3600
unset MMCI_INBOX_URL MMCI_INBOX_NAME MMCI_INBOX_START MMCI_DISCOVER_PATHS

# gen.py: the mails of made-up mm series, a file each
cat > gen.py <<'PYEOF'
import os, sys

out = "mails"
def clock():
    p = os.path.join(out, ".clock")
    n = int(open(p).read()) + 1 if os.path.exists(p) else 0
    open(p, "w").write("%d" % n)
    return "Thu, 04 Dec 2025 %02d:%02d:%02d +0000" % (
        10 + n // 3600, n // 60 % 60, n % 60)

def mail(path, subject, msgid, irt=None, refs=(), body="",
         author="Dev Eloper <dev@example.org>"):
    h = ["From: %s" % author, "To: linux-mm@kvack.org",
         "Subject: %s" % subject, "Date: %s" % clock()]
    if msgid:
        h.append("Message-ID: <%s>" % msgid)
    if irt:
        h.append("In-Reply-To: <%s>" % irt)
    if refs:
        h.append("References: %s" % " ".join("<%s>" % r for r in refs))
    open(os.path.join(out, path), "w").write("\n".join(h) + "\n\n" + body)

def diff(tag, i):
    return ("---\n mm/%s.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
            "diff --git a/mm/%s.c b/mm/%s.c\nindex 1111111..2222222 100644\n"
            "--- a/mm/%s.c\n+++ b/mm/%s.c\n@@ -1 +1,2 @@\n int a;\n"
            "+int b%d;\n-- \n2.39.5\n" % (tag, tag, tag, tag, tag, i))

# series TAG N [vV] [nocover] [skip=K] [irt=ID] [author=A]: TAG-00.eml
# (cover, <TAG.0@example.org>) and TAG-NN.eml (<TAG.N@example.org>)
def series(tag, n, *opts):
    o = dict(x.split("=", 1) if "=" in x else (x, "1") for x in opts)
    v = [x for x in opts if x.startswith("v") and x[1:].isdigit()]
    ver = (v[0] + " ") if v else ""
    skip = set(int(k) for k in o.get("skip", "").split(",") if k)
    author = o.get("author", "Dev Eloper <dev@example.org>")
    title = o.get("title", "mm/%s: a series" % tag)
    cover = "%s.0@example.org" % tag
    root = [o["irt"]] if "irt" in o else []
    if "nocover" not in o:
        mail("%s-00.eml" % tag, "[PATCH %s0/%d] %s" % (ver, n, title), cover,
             o.get("irt"), root, "The cover letter of %s.\n" % tag, author)
        parent = root + [cover]
    else:
        parent = None
    for i in range(1, n + 1):
        if i in skip:
            continue
        pid = "%s.%d@example.org" % (tag, i)
        if parent is None:
            irt, refs = (None, ()) if i == 1 else \
                ("%s.1@example.org" % tag, ["%s.1@example.org" % tag])
        else:
            irt, refs = cover, parent
        subj = "[PATCH %s%d/%d] mm/%s: step %d" % (ver, i, n, tag, i)
        if n == 1 and "single" in o:
            subj = "[PATCH %s] mm/%s: one step" % (ver.strip(), tag)
            subj = subj.replace("[PATCH ]", "[PATCH]")
        mail("%s-%02d.eml" % (tag, i), subj, pid, irt, refs,
             "Step %d of %s.\n\nSigned-off-by: %s\n%s" %
             (i, tag, author, diff(tag, i)), author)

# replies TAG COUNT SERIES-TAG N: COUNT replies to SERIES-TAG's patches,
# some with a diff of their own (a suggestion), some with a trailer
def replies(tag, count, stag, n):
    n = int(n)
    for k in range(int(count)):
        i = k % n + 1
        target = "%s.%d@example.org" % (stag, i)
        body = "> Step %d\n\nReviewed-by: Rev Iewer <rev@example.org>\n" % i
        if k % 3 == 0:
            body = "How about this?\n\n" + diff(stag, 100 + k)
        mail("%s-r%03d.eml" % (tag, k), "Re: [PATCH %d/%d] mm/%s: step %d"
             % (i, n, stag, i), "%s.r%d@example.org" % (tag, k), target,
             ["%s.0@example.org" % stag, target], body,
             "Rev Iewer <rev@example.org>")

# one FILE SUBJECT MSGID|- [diff]: a mail of its own
def one(path, subject, msgid, withdiff=""):
    mail(path, subject, None if msgid == "-" else msgid, None, (),
         "Something.\n\n" + (diff("one", 1) if withdiff else ""))

{"series": lambda a: series(a[0], int(a[1]), *a[2:]),
 "replies": lambda a: replies(*a), "one": lambda a: one(*a)}[sys.argv[1]](
    sys.argv[2:])
PYEOF

# proxy.py PORTFILE UPSTREAM: forwards to UPSTREAM, but each git-upload-pack
# answer (the pack) is cut to half its bytes
cat > proxy.py <<'PYEOF'
import http.client, http.server, sys, urllib.parse
up = urllib.parse.urlsplit(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0], 16)
                data += self.rfile.read(n)
                self.rfile.readline()
                if not n:
                    return data
        n = int(self.headers.get("Content-Length", 0))
        return self.rfile.read(n) if n else None
    def fwd(self):
        body = self.body() if self.command == "POST" else None
        c = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
        hdrs = {k: v for k, v in self.headers.items() if k.lower() not in
                ("host", "connection", "transfer-encoding", "content-length")}
        c.request(self.command, self.path, body=body, headers=hdrs)
        r = c.getresponse()
        data = r.read()
        if self.path.endswith("/git-upload-pack"):
            data = data[:len(data) // 2]
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "content-length",
                                 "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = fwd
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write("%d\n" % s.server_address[1])
s.serve_forever()
PYEOF

test_atexit 'stop "$TRASH/httpd.pid"'
test_atexit 'stop "$TRASH/proxy.pid"'

gen() { python3 "$TRASH/gen.py" "$@"; }
deliver() { inbox_deliver linux-mm "$@"; }
# the mails of series TAG, in order
mails_of() { ls "$TRASH/mails/$1"-[0-9][0-9].eml; }

# poll [ARGS]: one pass; rc in $TRASH/rc, output in out and err
poll() {
	rc=0
	"$MMCI" ingest inbox --url "$URL" "$@" > out 2> err || rc=$?
	echo $rc > "$TRASH/rc"
	cat out err
}
# the first mails of the queued series, sorted, one line each
jobs() {
	sql "SELECT s.message_id FROM jobs j JOIN series s ON s.id = j.series_id
	     WHERE j.kind = 'series' ORDER BY s.message_id"
}
# jobs_are ID...: the queued series are exactly these, each once
jobs_are() {
	: > expected.jobs &&
	{ [ $# = 0 ] || printf '%s\n' "$@" | sort > expected.jobs; } &&
	jobs > found.jobs &&
	diff expected.jobs found.jobs &&
	[ "$(sql "SELECT count(*) FROM jobs")" = $# ]
}
# mark_is_tip: the mark is the tip of the newest epoch being served
mark_is_tip() {
	e=$(ls "$INBOX/git" | sed -n 's/^\([0-9]*\)\.git$/\1/p' | sort -n | tail -1) &&
	tip=$(git -C "$INBOX/git/$e.git" rev-parse refs/heads/master) &&
	echo "mark: $(sql "SELECT epoch || ' ' || commit_id FROM inbox_marks
			WHERE inbox = 'linux-mm'"), tip: $e $tip" &&
	[ "$(sql "SELECT epoch || ' ' || commit_id FROM inbox_marks
		 WHERE inbox = 'linux-mm'")" = "$e $tip" ]
}

test_expect 'a v2 inbox, public-inbox-httpd on a port the kernel chose' '
	inbox_init linux-mm "$INBOX" && inbox_serve &&
	curl -s "http://127.0.0.1:$(cat httpd.port)/linux-mm/manifest.js.gz" |
		gunzip | grep -qx "{}"
'
PORT=$(cat "$TRASH/httpd.port" 2>/dev/null || echo 1)
URL="http://127.0.0.1:$PORT/linux-mm"

test_expect 'an empty inbox: a mark at epoch 0 from its start, nothing queued' '
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox linux-mm: a new mark at the start of epoch 0: every message is read$" out &&
	[ "$(sql "SELECT epoch || \"|\" || ifnull(commit_id, \"-\") FROM inbox_marks")" = "0|-" ] &&
	jobs_are
'

test_expect 'a burst between two polls: three 30-patch series, 200 replies (292 mails)' '
	gen series burst1 30 && gen series burst2 30 v2 &&
	gen series burst3 30 nocover && gen replies rb 200 burst1 30 &&
	# interleaved as a list gets them: series mails and replies mixed
	ls mails/burst*-[0-9][0-9].eml mails/rb-r*.eml |
		awk "{ printf \"%s %s\\n\", (NR * 7919) % 292, \$0 }" |
		sort -n | cut -d" " -f2 > order &&
	[ $(wc -l < order) = 292 ] &&
	start=$(date +%s) && deliver $(cat order) &&
	echo "delivered 292 mails in $(( $(date +%s) - start )) s" &&
	start=$(date +%s) && poll && [ $(cat rc) = 0 ] &&
	echo "read them in $(( $(date +%s) - start )) s" &&
	grep -q "^inbox: 292 message(s) read (0 read before), mark in epoch 0; 92 series mail(s), 200 replies, 0 other(s), 0 refused, 0 late; series: 3 queued (0 with mails missing), 0 skipped, 0 superseded, 0 failed, 0 waiting$" out &&
	jobs_are burst1.0@example.org burst2.0@example.org burst3.1@example.org &&
	[ "$(sql "SELECT group_concat(nr_found || \"/\" || total || \":\" || ifnull(missing, \"-\"), \" \") FROM series")" = "30/30:- 30/30:- 30/30:-" ] &&
	mark_is_tip
'

test_expect 'a second poll reads nothing and queues nothing' '
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox: 0 message(s) read" out &&
	jobs_are burst1.0@example.org burst2.0@example.org burst3.1@example.org &&
	mark_is_tip
'

JOBS="burst1.0@example.org burst2.0@example.org burst3.1@example.org"

test_expect 'ten series while nobody polls (with and without cover letters)' '
	for k in 1 2 3 4 5; do gen series ten$k 2; done &&
	for k in 6 7 8 9; do gen series ten$k 3 nocover; done &&
	gen series ten10 1 nocover single &&
	deliver $(ls mails/ten*-[0-9][0-9].eml) &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "series: 10 queued (0 with mails missing), 0 skipped" out &&
	jobs_are $JOBS ten1.0@example.org ten2.0@example.org \
		ten3.0@example.org ten4.0@example.org ten5.0@example.org \
		ten6.1@example.org ten7.1@example.org ten8.1@example.org \
		ten9.1@example.org ten10.1@example.org &&
	mark_is_tip
'
JOBS="$JOBS ten1.0@example.org ten2.0@example.org ten3.0@example.org
ten4.0@example.org ten5.0@example.org ten6.1@example.org ten7.1@example.org
ten8.1@example.org ten9.1@example.org ten10.1@example.org"

test_expect 'patch 7/12 late: the series waits, then is queued whole (mda)' '
	gen series late 12 skip=7 && deliver $(mails_of late) &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "series: 0 queued (0 with mails missing), 0 skipped, 0 superseded, 0 failed, 1 waiting" out &&
	jobs_are $JOBS &&
	[ "$(sql "SELECT status FROM inbox_series WHERE head_id = \"late.0@example.org\"")" = waiting ] &&
	mark_is_tip &&
	gen series late7 12 && sed "s/late7/late/g" mails/late7-07.eml > mails/late-07.eml &&
	start=$(date +%s%N) &&
	ORIGINAL_RECIPIENT=linux-mm@kvack.org public-inbox-mda < mails/late-07.eml &&
	echo "public-inbox-mda: $(( ($(date +%s%N) - start) / 1000000 )) ms" &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "series: 1 queued (0 with mails missing)" out &&
	jobs_are $JOBS late.0@example.org &&
	[ "$(sql "SELECT nr_found || \"/\" || total || \":\" || ifnull(missing, \"-\") FROM series WHERE message_id = \"late.0@example.org\"")" = "12/12:-" ] &&
	mark_is_tip
'
JOBS="$JOBS late.0@example.org"

test_expect 'patch 7/12 never comes: queued after MMCI_SERIES_WAIT_S, the gap noted' '
	gen series gap 12 skip=7 && deliver $(mails_of gap) &&
	MMCI_SERIES_WAIT_S=2 poll && [ $(cat rc) = 0 ] &&
	grep -q "1 waiting$" out && jobs_are $JOBS &&
	sleep 3 &&
	MMCI_SERIES_WAIT_S=2 poll && [ $(cat rc) = 0 ] &&
	grep -q "series: 1 queued (1 with mails missing)" out &&
	jobs_are $JOBS gap.0@example.org &&
	[ "$(sql "SELECT status || \"|\" || missing || \"|\" || decision FROM inbox_series WHERE head_id = \"gap.0@example.org\"")" = \
	  "queued|7|kept: series #$(sql "SELECT id FROM series WHERE message_id = \"gap.0@example.org\""), job #$(sql "SELECT j.id FROM jobs j JOIN series s ON s.id = j.series_id WHERE s.message_id = \"gap.0@example.org\""); never arrived: 7/12" ] &&
	[ "$(sql "SELECT nr_found || \"/\" || total || \":\" || missing FROM series WHERE message_id = \"gap.0@example.org\"")" = "11/12:7" ] &&
	mark_is_tip &&
	# the straggler: recorded as late, no second job
	gen series gap7 12 && sed "s/gap7/gap/g" mails/gap7-07.eml > mails/gap-07.eml &&
	deliver mails/gap-07.eml && poll && [ $(cat rc) = 0 ] &&
	grep -q "1 late; series: 0 queued" out &&
	[ "$(sql "SELECT decision FROM inbox_events WHERE message_id = \"gap.7@example.org\"")" = \
	  "late: 7/12 of a series already queued ($(sql "SELECT decision FROM inbox_series WHERE head_id = \"gap.0@example.org\""))" ] &&
	jobs_are $JOBS gap.0@example.org && mark_is_tip
'
JOBS="$JOBS gap.0@example.org"

test_expect 'a v2 posted while v1 waits: v2 queued, v1 superseded' '
	gen series vone 4 skip=4 "title=mm/vers: Tidy up the  path" &&
	deliver $(mails_of vone) && poll && [ $(cat rc) = 0 ] &&
	grep -q "1 waiting$" out &&
	gen series vtwo 4 v2 "title=mm/vers: tidy up the path" &&
	deliver $(mails_of vtwo) && poll && [ $(cat rc) = 0 ] &&
	grep -q "series: 1 queued (0 with mails missing), 0 skipped, 1 superseded, 0 failed, 0 waiting$" out &&
	jobs_are $JOBS vtwo.0@example.org &&
	[ "$(sql "SELECT status || \"|\" || decision FROM inbox_series WHERE head_id = \"vone.0@example.org\"")" = \
	  "superseded|superseded by v2 <vtwo.0@example.org>" ] &&
	mark_is_tip
'
JOBS="$JOBS vtwo.0@example.org"

test_expect 'no Message-ID, numbered 3/2, 0/0 and 1/1000: decisions, no job' '
	gen one odd-32.eml "[PATCH 3/2] mm: three of two" odd32@example.org diff &&
	gen one odd-00.eml "[PATCH 0/0] mm: nothing" odd00@example.org diff &&
	gen one odd-1k.eml "[PATCH 1/1000] mm: too many" odd1k@example.org diff &&
	gen one odd-rfc.eml "[RFC] mm: no diff, no series" oddrfc@example.org &&
	deliver mails/odd-32.eml mails/odd-00.eml mails/odd-1k.eml mails/odd-rfc.eml &&
	# public-inbox gives a mail without one a Message-ID: this commit is
	# made by hand, as a rewritten or foreign history could hold it
	gen one odd-noid.eml "[PATCH] mm: who am I" - diff &&
	G="$INBOX/git/0.git" &&
	B=$(git -C "$G" hash-object -w "$TRASH/mails/odd-noid.eml") &&
	T=$(printf "100644 blob %s\tm\n" "$B" | git -C "$G" mktree) &&
	C=$(git -C "$G" -c user.name=X -c user.email=x@example.org \
		commit-tree "$T" -p refs/heads/master -m "no id") &&
	git -C "$G" update-ref refs/heads/master "$C" &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox: 5 message(s) read (0 read before), mark in epoch 0; 0 series mail(s), 0 replies, 1 other(s), 4 refused" out &&
	sql "SELECT ifnull(message_id, \"-\") || \"|\" || decision FROM inbox_events ORDER BY id" > events &&
	cat events &&
	grep -qx "odd32@example.org|refused: numbered 3/2" events &&
	grep -qx "odd00@example.org|refused: numbered 0/0" events &&
	grep -qx "odd1k@example.org|refused: numbered 1/1000, more than 999 patches" events &&
	grep -qx -- "-|refused: no Message-ID" events &&
	jobs_are $JOBS && mark_is_tip
'

test_expect 'a purge rewrites the epoch: the mark survives, nothing queued again' '
	old=$(sql "SELECT commit_id FROM inbox_marks") &&
	gen series after 2 && deliver $(mails_of after) &&
	public-inbox-purge "$INBOX" < mails/rb-r005.eml &&
	! git -C "$INBOX/git/0.git" merge-base --is-ancestor "$old" refs/heads/master &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox linux-mm: epoch 0 was rewritten (its mark, commit $old, is no longer in its history): reading after commit [0-9a-f]*, the newest whose message (no Message-ID, blob:$(git hash-object mails/odd-noid.eml)) was read before$" out &&
	grep -q "^inbox: 3 message(s) read (0 read before)" out &&
	grep -q "series: 1 queued" out &&
	jobs_are $JOBS after.0@example.org &&
	[ "$(sql "SELECT count(*) FROM inbox_events WHERE decision LIKE \"epoch 0 was rewritten%\"")" = 1 ] &&
	mark_is_tip
'
JOBS="$JOBS after.0@example.org"

test_expect 'an epoch roll-over: epoch 0 read to its tip, then epoch 1 from its start' '
	gen series roll 4 &&
	# the cover and patches 1 and 2 in epoch 0, patches 3 and 4 in epoch 1
	deliver mails/roll-00.eml mails/roll-01.eml mails/roll-02.eml --roll \
		mails/roll-03.eml mails/roll-04.eml &&
	[ "$(git -C "$INBOX/git/1.git" rev-list --count refs/heads/master)" = 2 ] &&
	curl -s "$URL/manifest.js.gz" | gunzip | grep -q "\"/linux-mm/git/1.git\"" &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox linux-mm: epoch 0: 3 commit(s) read, up to $(git -C "$INBOX/git/0.git" rev-parse refs/heads/master)$" out &&
	grep -q "^inbox linux-mm: epoch 1: 2 commit(s) read, up to $(git -C "$INBOX/git/1.git" rev-parse refs/heads/master)$" out &&
	grep -q "series: 1 queued (0 with mails missing)" out &&
	jobs_are $JOBS roll.0@example.org &&
	[ "$(sql "SELECT nr_found || \"/\" || total || \":\" || ifnull(missing, \"-\") FROM series WHERE message_id = \"roll.0@example.org\"")" = "4/4:-" ] &&
	[ "$(sql "SELECT group_concat(epoch, \",\") FROM (SELECT epoch FROM inbox_mails m JOIN inbox_series s ON s.id = m.inbox_series_id WHERE s.head_id = \"roll.0@example.org\" ORDER BY idx)")" = "0,0,0,1,1" ] &&
	[ -d "$MMCI_DATA/fetch/inbox/linux-mm/1.git" ] &&
	mark_is_tip
'
JOBS="$JOBS roll.0@example.org"

test_expect 'a new mark starts at the tip by default: nothing before it read' '
	MMCI_DB="$TRASH/tip.db" "$MMCI" ingest inbox --url "$URL" > tip.out 2> tip.err &&
	cat tip.out tip.err &&
	tip=$(git -C "$INBOX/git/1.git" rev-parse refs/heads/master) &&
	grep -qx "inbox linux-mm: a new mark at the tip of epoch 1 ($tip): the history before it is not read (--start=all reads it)" tip.out &&
	grep -q "^inbox: 0 message(s) read" tip.out &&
	[ "$(sqlite3 "$TRASH/tip.db" "SELECT epoch || \" \" || commit_id FROM inbox_marks")" = "1 $tip" ] &&
	[ "$(sqlite3 "$TRASH/tip.db" "SELECT count(*) FROM jobs")" = 0 ]
'

test_expect 'the daemon polls it as source "inbox" (as the service user, when root)' '
	mkdir -p daemon && chmod 755 daemon &&
	MMCI_DB="$TRASH/daemon/mmci.db" MMCI_DATA="$TRASH/daemon/var" \
	MMCI_SOURCES=inbox MMCI_INBOX_URL="$URL" MMCI_USER=${MMCI_USER:-mmci} \
		"$MMCI" daemon --once --no-web > daemon.out 2> daemon.err &&
	cat daemon.out daemon.err daemon/var/jobs/poll-inbox.log &&
	tip=$(git -C "$INBOX/git/1.git" rev-parse refs/heads/master) &&
	grep -qx "inbox linux-mm: a new mark at the tip of epoch 1 ($tip): the history before it is not read (--start=all reads it)" daemon/var/jobs/poll-inbox.log &&
	[ "$(sqlite3 daemon/mmci.db "SELECT epoch || \" \" || commit_id FROM inbox_marks")" = "1 $tip" ] &&
	if [ "$(id -u)" = 0 ]; then
		[ -z "$(find daemon/var/fetch/inbox -not -user "${MMCI_USER:-mmci}")" ]
	fi
'

test_expect 'the feed (this public-inbox'\''s new.atom) and the inbox find one series: one job' '
	# a reply in the thread: the thread discover fetches is not the mbox
	# of cover and patches the inbox makes, so two series rows
	gen replies fill 30 after 2 && gen series both 2 &&
	gen replies bothr 1 both 2 &&
	deliver $(ls mails/fill-r*.eml) $(mails_of both) mails/bothr-r000.eml &&
	"$MMCI" ingest discover --feed "$URL/new.atom" > disc.out 2> disc.err &&
	cat disc.out disc.err &&
	grep -q "^discovered: 2 kept, 0 skipped, 0 error(s), 0 seen before; ignored: 22 replies, 1 later patch(es)" disc.out &&
	jobs_are $JOBS both.0@example.org &&
	job=$(sql "SELECT j.id FROM jobs j JOIN series s ON s.id = j.series_id WHERE s.message_id = \"both.0@example.org\"") &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox: 34 message(s) read (0 read before)" out &&
	grep -q "series: 1 queued" out &&
	[ "$(sql "SELECT decision FROM inbox_series WHERE head_id = \"both.0@example.org\"")" = \
	  "kept: series #$(sql "SELECT max(id) FROM series WHERE message_id = \"both.0@example.org\""), job #$job (queued before, the same first mail)" ] &&
	[ "$(sql "SELECT count(*) FROM series WHERE message_id = \"both.0@example.org\"")" = 2 ] &&
	jobs_are $JOBS both.0@example.org && mark_is_tip
'
JOBS="$JOBS both.0@example.org"

# as the daemon's poll runs it: the service user, with root's HOME
# (whose ~/.gitconfig it cannot even stat), its own database and data
if [ "$(id -u)" = 0 ] && id "${MMCI_USER:-mmci}" >/dev/null 2>&1 &&
	test_open_to_all "$TRASH"; then
test_expect 'as the service user with root'\''s HOME: all read, its mirrors its own' '
	su_user=${MMCI_USER:-mmci} &&
	mkdir -p su && chown "$su_user" su &&
	setpriv --reuid="$su_user" --regid="$(id -g "$su_user")" --clear-groups \
		env HOME=/root MMCI_DB="$TRASH/su/mmci.db" MMCI_DATA="$TRASH/su/var" \
		"$MMCI" ingest inbox --url "$URL" --start all > su.out 2> su.err &&
	cat su.out su.err &&
	tip=$(git -C "$INBOX/git/1.git" rev-parse refs/heads/master) &&
	[ "$(sqlite3 su/mmci.db "SELECT epoch || \" \" || commit_id FROM inbox_marks")" = "1 $tip" ] &&
	sqlite3 su/mmci.db "SELECT s.message_id FROM jobs j JOIN series s ON s.id = j.series_id ORDER BY 1" > su.jobs &&
	printf "%s\n" $JOBS | sort > expected.jobs && diff expected.jobs su.jobs &&
	[ -z "$(find su/var -not -user "$su_user")" ]
'
else
	test_skip "needs root, the service user ${MMCI_USER:-mmci} and a trash directory it can reach" \
		"as the service user with root's HOME: all read, its mirrors its own"
fi

MARK_Q="SELECT epoch || ' ' || commit_id FROM inbox_marks WHERE inbox = 'linux-mm'"

test_expect 'a clone URL that answers garbage, a garbage manifest: error, mark kept' '
	nginx_start &&
	NG="http://127.0.0.1:$(cat "$TRASH/port")" &&
	mkdir -p "$WWW/linux-mm/git/1.git/info" "$WWW/junk" &&
	printf "{\"/linux-mm/git/1.git\":{\"modified\":1}}" | gzip > "$WWW/linux-mm/manifest.js.gz" &&
	echo "this is no git server" > "$WWW/linux-mm/git/1.git/info/refs" &&
	echo "no json here" | gzip > "$WWW/junk/manifest.js.gz" &&
	gen series bad 2 && deliver $(mails_of bad) &&
	mark=$(sql "$MARK_Q") &&
	poll --url "$NG/linux-mm" && [ $(cat rc) = 1 ] &&
	grep -q "^error: cannot fetch epoch 1 of inbox .linux-mm. ($NG/linux-mm/git/1.git): ." err &&
	grep -qx "error: inbox .linux-mm.: the mark (epoch ${mark% *}, commit ${mark#* }) is kept" err &&
	[ "$(sql "$MARK_Q")" = "$mark" ] &&
	poll --url "$NG/junk" --name linux-mm && [ $(cat rc) = 1 ] &&
	grep -q "^error: .$NG/junk/manifest.js.gz. is not a public-inbox manifest (a JSON object): ." err &&
	grep -qx "error: inbox .linux-mm.: the mark (epoch ${mark% *}, commit ${mark#* }) is kept" err &&
	[ "$(sql "$MARK_Q")" = "$mark" ] &&
	jobs_are $JOBS
'

test_expect 'a truncated pack: error, mark kept; the next whole fetch reads on, once' '
	{ python3 proxy.py "$TRASH/proxy.port" "http://127.0.0.1:$PORT" &
	  echo $! > "$TRASH/proxy.pid"; } &&
	wait_port "$TRASH/proxy.port" &&
	mark=$(sql "$MARK_Q") &&
	M="$MMCI_DATA/fetch/inbox/linux-mm/1.git" &&
	find "$M/objects" -type f | sort > objects.before &&
	poll --url "http://127.0.0.1:$(cat proxy.port)/linux-mm" && [ $(cat rc) = 1 ] &&
	grep -q "^error: cannot fetch epoch 1 of inbox .linux-mm. (http://127.0.0.1:$(cat proxy.port)/linux-mm/git/1.git): early EOF$" err &&
	[ "$(sql "$MARK_Q")" = "$mark" ] &&
	# no half pack left in the mirror
	find "$M/objects" -type f | sort > objects.after &&
	diff objects.before objects.after &&
	jobs_are $JOBS &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox: 3 message(s) read (0 read before)" out &&
	jobs_are $JOBS bad.0@example.org && mark_is_tip
'
JOBS="$JOBS bad.0@example.org"

test_expect 'the epoch of the mark disappears: error, mark kept; back, nothing new' '
	mark=$(sql "$MARK_Q") &&
	ALT="$INBOX/all.git/objects/info/alternates" && cp "$ALT" alternates &&
	mv "$INBOX/git/1.git" "$INBOX/gone-1.git" &&
	grep -v "/1.git/" alternates > "$ALT" &&
	poll && [ $(cat rc) = 1 ] &&
	grep -qx "error: inbox .linux-mm.: epoch 1, where the mark is, is not in the manifest any more (it lists 1 epoch(s), 0 to 0); the mark (commit ${mark#* }) is kept" err &&
	[ "$(sql "$MARK_Q")" = "$mark" ] && jobs_are $JOBS &&
	mv "$INBOX/gone-1.git" "$INBOX/git/1.git" && cp alternates "$ALT" &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox: 0 message(s) read" out &&
	jobs_are $JOBS && mark_is_tip
'

test_expect 'a second pass while one runs: refused, nothing read' '
	mark=$(sql "$MARK_Q") &&
	gen series locked 1 nocover single && deliver $(mails_of locked) &&
	rc=0 && flock "$MMCI_DATA/fetch/inbox/linux-mm/lock" \
		"$MMCI" ingest inbox --url "$URL" > out 2> err || rc=$? &&
	cat out err && [ $rc = 1 ] &&
	grep -qx "error: another process is reading inbox .linux-mm. (it holds .$MMCI_DATA/fetch/inbox/linux-mm/lock.); try again when it is done" err &&
	[ "$(sql "$MARK_Q")" = "$mark" ] && jobs_are $JOBS &&
	poll && [ $(cat rc) = 0 ] &&
	jobs_are $JOBS locked.1@example.org && mark_is_tip
'
JOBS="$JOBS locked.1@example.org"

test_expect 'a mark on a commit that is not there: read on after the last message read' '
	tip=$(git -C "$INBOX/git/1.git" rev-parse refs/heads/master) &&
	sql "UPDATE inbox_marks SET commit_id = \"0123456789abcdef0123456789abcdef01234567\"" &&
	cp mmci.db lost.db && sqlite3 lost.db "DELETE FROM inbox_read" &&
	poll && [ $(cat rc) = 0 ] &&
	grep -q "^inbox linux-mm: epoch 1 was rewritten (its mark, commit 0123456789abcdef0123456789abcdef01234567, is no longer in its history): reading after commit $tip, the newest whose message <locked.1@example.org> was read before$" out &&
	grep -q "^inbox: 0 message(s) read" out &&
	jobs_are $JOBS && mark_is_tip &&
	# and with no message read before in sight: an error, the mark kept
	rc=0 && { MMCI_DB="$TRASH/lost.db" "$MMCI" ingest inbox --url "$URL" \
		> lost.out 2> lost.err || rc=$?; } &&
	cat lost.out lost.err && [ $rc = 1 ] &&
	grep -qx "error: inbox .linux-mm.: epoch 1 was rewritten and none of the last 100000 commits of its new history holds a message read before; the mark (commit 0123456789abcdef0123456789abcdef01234567) is kept" lost.err &&
	[ "$(sqlite3 lost.db "$MARK_Q")" = "1 0123456789abcdef0123456789abcdef01234567" ] &&
	[ "$(sqlite3 lost.db "SELECT count(*) FROM jobs")" = "$(sql "SELECT count(*) FROM jobs")" ]
'

test_done
