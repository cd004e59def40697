#!/bin/sh
# t0600-ingest-series: `mmci ingest series MSGID` against a real HTTP server
# (nginx, on loopback, started here with its own config) that serves the
# mbox fixtures gzipped and laid out as public-inbox does
# (<inbox>/<msgid>/t.mbox.gz); and `mmci ingest FILE`. Checks what the
# series assemble to, what is stored per mail, and the fetcher's manners
# (retries, Retry-After, conditional requests, limits) from nginx's log.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

. "$SRC/tests/lib-http.sh"
[ -d "$FIXTURES" ] || skip_all "no fixtures at $FIXTURES (set MMCI_FIXTURES)"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

LEDS="$FIXTURES/linux-mailinglist-archives+linux-leds.vger.kernel.org.0"
STABLE="$FIXTURES/linux-mailinglist-archives+stable.vger.kernel.org.1"
PW="$FIXTURES/getpatchwork+patchwork"
B4="$FIXTURES/mricon+b4"
HID='20210221112005.102116-1-hdegoede@redhat.com'
PRIV='20250910-leds-v5-0-bb90a0f897d5@vinarskis.com'
AUX='20240227212244.262710-1-chris.packham@alliedtelesis.co.nz'

# tests wait milliseconds, not seconds
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0
export MMCI_FETCH_ATTEMPTS=3 MMCI_FETCH_TIMEOUT=20

test_expect 'start nginx on a free loopback port, ETag on' '
	nginx_start "
			location /flaky/ {
				if (-f $TRASH/fail500) { return 500; }
			}
			location /busy/ {
				limit_req zone=busy nodelay;
				limit_req_status 429;
				add_header Retry-After 2 always;
			}"
'
PORT=$(cat "$TRASH/port" 2>/dev/null || echo 1)
export MMCI_LORE_URL="http://127.0.0.1:$PORT/all/"

test_expect 'serve the fixtures as public-inbox threads' '
	serve "$LEDS/hid-lenovo-mute-led-v3-0-7.mboxrd" all "$HID" &&
	serve "$LEDS/leds-privacy-led-devicetree-v5-0-4.mboxrd" all "$PRIV" &&
	serve "$LEDS/auxdisplay-7seg-v2-0-4-qp-base64.mboxrd" all "$AUX" &&
	serve "$PW/series-bugs-multiple-references.mbox" all pw-refs@test &&
	serve "$PW/series-base-different-versions.mbox" all pw-base@test &&
	serve "$B4/trailers-thread-with-cover-followup.mbox" all b4-cover@test &&
	serve "$STABLE/mm-commits-mm-new-added-samples-damon-mtier.eml" all \
		20260629044921.61DF81F000E9@smtp.kernel.org &&
	serve "$LEDS/hid-lenovo-mute-led-v3-0-7.mboxrd" linux-leds "$HID" &&
	serve "$PW/series-bugs-multiple-content-types.mbox" all "a/b?c%d@x" &&
	serve "$PW/series-bugs-multiple-content-types.mbox" flaky bpf@test &&
	serve "$PW/series-bugs-multiple-content-types.mbox" busy bpf@test &&
	curl -sf -o /dev/null "$MMCI_LORE_URL$HID/t.mbox.gz"
'

test_expect 'hid-lenovo v3 0/7: 7 patches, reply trailers, every mail stored' '
	"$MMCI" ingest series "<$HID>" > out &&
	cat out &&
	grep -q "^series #1: HID: lenovo: Mute LED handling fixes and improvements" out &&
	grep -q "version: v3, 7 of 7 patch(es) found, with a cover letter" out &&
	grep -q "trailers: 6 from replies" out &&
	[ "$(sql "SELECT version || \" \" || total || \" \" || nr_found FROM series")" = "3 7 7" ] &&
	[ "$(sql "SELECT source_url FROM series")" = "${MMCI_LORE_URL}$HID/t.mbox.gz" ] &&
	[ "$(sql "SELECT fetched_at > 1e9 FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages WHERE series_id = 1")" = 14 ] &&
	[ "$(sql "SELECT group_concat(role || \":\" || n) FROM (SELECT role,
	     count(*) n FROM messages GROUP BY role ORDER BY role)")" = \
	  "cover:1,patch:7,reply:6" ] &&
	sql "SELECT p.idx || \" \" || t.trailer FROM patch_trailers t JOIN patches p
	     ON p.id = t.patch_id WHERE t.origin = \"reply\" ORDER BY p.idx, t.idx" > tr &&
	cat tr && [ $(wc -l < tr) = 6 ] &&
	grep -q "^2 Reviewed-by: Marek Behún <kabel@kernel.org>$" tr &&
	grep -q "^4 Acked-by: Pavel Machek <pavel@ucw.cz>$" tr &&
	[ "$(sql "SELECT count(*) FROM patch_trailers WHERE origin = \"patch\"
	     AND trailer LIKE \"Signed-off-by: Hans de Goede%\"")" = 7 ] &&
	[ "$(requests "/all/$HID/t.mbox.gz")" = 1 ]
'

test_expect 'the request names mmci as its User-Agent' '
	grep " \"/all/$HID/t.mbox.gz\" " "$LOG" | grep -q "\"mmci/"
'

test_expect 'a re-run does not touch the network (cached body)' '
	"$MMCI" ingest series "$HID" > out &&
	grep -q "already ingested" out &&
	[ "$(requests "/all/$HID/t.mbox.gz")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages")" = 14 ]
'

test_expect '--refresh makes a conditional request: 304 uses the cache' '
	"$MMCI" ingest series "$HID" --refresh > out 2> err &&
	cat out err &&
	[ "$(requests "/all/$HID/t.mbox.gz")" = 2 ] &&
	[ "$(statuses "/all/$HID/t.mbox.gz")" = "200 304 " ] &&
	grep " \"/all/$HID/t.mbox.gz\" " "$LOG" | tail -1 |
		grep -q " \"[\\\\]x22[0-9a-f]*-[0-9a-f]*[\\\\]x22\" " &&
	grep -q "already ingested" out &&
	[ "$(sql "SELECT count(*) FROM threads")" = 1 ]
'

test_expect 'leds-privacy v5: 4 patches, Reviewed-by and Tested-by, base-commit' '
	"$MMCI" ingest series "$PRIV" > out && cat out &&
	id=$(sql "SELECT id FROM series WHERE message_id = \"$PRIV\"") &&
	[ "$(sql "SELECT version || \" \" || total || \" \" || nr_found FROM series WHERE id = $id")" = "5 4 4" ] &&
	[ "$(sql "SELECT base_commit FROM series WHERE id = $id")" = 3db46a82d467bd23d9ebc473d872a865785299d8 ] &&
	sql "SELECT p.idx || \" \" || t.trailer FROM patch_trailers t JOIN patches p
	     ON p.id = t.patch_id WHERE p.series_id = $id AND t.origin = \"reply\"
	     ORDER BY p.idx, t.idx" > tr && cat tr &&
	grep -q "^1 Reviewed-by: Rob Herring (Arm) <robh@kernel.org>$" tr &&
	grep -q "^2 Reviewed-by: Rob Herring (Arm) <robh@kernel.org>$" tr &&
	grep -q "^4 Tested-by: Steev Klimaszewski <threeway@gmail.com>$" tr &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.series_id = $id")" = 20 ]
'

test_expect 'auxdisplay v2: 4 patches decoded from quoted-printable bodies' '
	"$MMCI" ingest series "$AUX" > out && cat out &&
	grep -q "version: v2, 4 of 4 patch(es) found" out &&
	id=$(sql "SELECT id FROM series WHERE message_id = \"$AUX\"") &&
	[ "$(sql "SELECT sum(has_diff) FROM patches WHERE series_id = $id")" = 4 ] &&
	[ "$(sql "SELECT title FROM patches WHERE series_id = $id AND idx = 1")" = \
	  "auxdisplay: Add 7 segment LED display driver" ] &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.series_id = $id")" = 24 ] &&
	[ "$(sql "SELECT count(DISTINCT p.id) FROM patch_trailers t JOIN patches p ON
	     p.id = t.patch_id WHERE p.series_id = $id AND t.origin = \"patch\" AND
	     t.trailer = \"Signed-off-by: Chris Packham <chris.packham@alliedtelesis.co.nz>\"")" = 4 ]
'

test_expect 'patchwork: upper-case V2 and a version only on the cover' '
	"$MMCI" ingest series pw-refs@test > out1 && cat out1 &&
	grep -q "version: v2, 4 of 4 patch(es) found, with a cover letter" out1 &&
	grep -q "PM / OPP: Minor cleanups" out1 &&
	"$MMCI" ingest series pw-base@test > out2 && cat out2 &&
	grep -q "version: v3, 4 of 4 patch(es) found, with a cover letter" out2 &&
	[ "$(sql "SELECT version FROM series WHERE title LIKE \"net: dsa: Multi-CPU%\"")" = 3 ]
'

test_expect 'b4: trailers sent to the cover letter apply to every patch' '
	"$MMCI" ingest series b4-cover@test > out && cat out &&
	grep -q "trailers: 7 from replies (4 via the cover letter)" out &&
	id=$(sql "SELECT max(id) FROM series") &&
	[ "$(sql "SELECT count(*) FROM patch_trailers t JOIN patches p ON p.id = t.patch_id
	     WHERE p.series_id = $id AND t.origin = \"cover\" AND
	     t.trailer = \"Reviewed-by: Cover Upper <cover.upper@example.org>\"")" = 4 ]
'

test_expect 'the mm-commits notice is parsed and stored, no series claimed' '
	"$MMCI" ingest series "<20260629044921.61DF81F000E9@smtp.kernel.org>" > out &&
	cat out &&
	grep -q "mm-commits notice: .samples-damon-mtier-handle-damon_stop-failure.patch. added to mm-new" out &&
	[ "$(sql "SELECT subject FROM messages WHERE message_id =
	     \"20260629044921.61DF81F000E9@smtp.kernel.org\"")" = \
	  "+ samples-damon-mtier-handle-damon_stop-failure.patch added to mm-new branch" ] &&
	[ "$(sql "SELECT series_id IS NULL FROM threads ORDER BY id DESC LIMIT 1")" = 1 ]
'

test_expect '--list picks another inbox on the same server' '
	"$MMCI" ingest series "$HID" --list linux-leds > out &&
	[ "$(requests "/linux-leds/$HID/t.mbox.gz")" = 1 ]
'

test_expect 'a message id is percent-encoded as public-inbox wants' '
	"$MMCI" ingest series "a/b?c%d@x" > out && cat out &&
	[ "$(requests "/all/a%2Fb%3Fc%25d@x/t.mbox.gz")" = 1 ]
'

test_expect 'a 404 is a clear error naming URL and status, not retried, nothing stored' '
	before=$(sql "SELECT count(*) FROM threads") &&
	set +e; "$MMCI" ingest series no-such-thread@test 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -q "error: cannot fetch .http://127.0.0.1:$PORT/all/no-such-thread@test/t.mbox.gz.: HTTP 404" err &&
	[ "$(requests "/all/no-such-thread@test/t.mbox.gz")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM threads")" = "$before" ]
'

test_expect 'a 500 is retried with backoff, then the thread is stored' '
	touch fail500
	# the server recovers once it has answered 500 (mmci waits 1.5 s)
	(
		i=0
		until grep -q "\"/flaky/bpf@test/t.mbox.gz\"" "$LOG"; do
			i=$((i + 1)); [ $i -lt 400 ] || exit 1; sleep 0.05
		done
		rm -f fail500
	) &
	set +e
	MMCI_FETCH_BACKOFF_MS=1500 "$MMCI" ingest series bpf@test \
		--base-url "http://127.0.0.1:$PORT/flaky/" > out 2> err; rc=$?
	set -e
	wait
	cat out err && [ $rc = 0 ] &&
	[ "$(statuses "/flaky/bpf@test/t.mbox.gz")" = "500 200 " ] &&
	grep -q "retry 2/3 of" err &&
	grep -q "bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()" out
'

test_expect 'a 429 waits as long as Retry-After says' '
	curl -s -o /dev/null "http://127.0.0.1:$PORT/busy/bpf@test/t.mbox.gz" &&
	"$MMCI" ingest series bpf@test --base-url "http://127.0.0.1:$PORT/busy/" \
		> out 2> err && cat out err &&
	[ "$(statuses "/busy/bpf@test/t.mbox.gz")" = "429 200 " ] &&
	grep " \"/busy/bpf@test/t.mbox.gz\" " "$LOG" | tail -2 | cut -d" " -f1 > t &&
	awk "NR == 1 { a = \$1 } NR == 2 { exit !(\$1 - a >= 1.95) }" t &&
	grep -q "retry 2/3 of .* in 2000 ms" err
'

test_expect 'requests to one host are spaced by the polite interval' '
	MMCI_FETCH_INTERVAL_MS=1200 "$MMCI" ingest series spaced1@test 2>/dev/null || :
	MMCI_FETCH_INTERVAL_MS=1200 "$MMCI" ingest series spaced2@test 2>/dev/null || :
	a=$(grep "\"/all/spaced1@test/t.mbox.gz\"" "$LOG" | cut -d" " -f1) &&
	b=$(grep "\"/all/spaced2@test/t.mbox.gz\"" "$LOG" | cut -d" " -f1) &&
	echo "$a $b" && awk -v a="$a" -v b="$b" "BEGIN { exit !(b - a >= 1.15) }"
'

test_expect 'a truncated .gz: clear error, what came before is parsed and stored' '
	mkdir -p "$WWW/all/cut@test" &&
	gzip -9nc < "$LEDS/auxdisplay-7seg-v2-0-4-qp-base64.mboxrd" > full.gz &&
	head -c $(($(wc -c < full.gz) * 2 / 3)) full.gz > "$WWW/all/cut@test/t.mbox.gz" &&
	set +e; "$MMCI" ingest series cut@test > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -q "error: truncated gzip data.*were parsed and stored" err &&
	t=$(sql "SELECT id FROM threads WHERE source LIKE \"%/cut@test/%\"") &&
	[ "$(sql "SELECT problem LIKE \"truncated gzip data%\" FROM threads WHERE id = $t")" = 1 ] &&
	n=$(sql "SELECT count(*) FROM messages WHERE thread_id = $t") &&
	[ "$n" -gt 5 ] && [ "$n" -lt 24 ] &&
	sql "SELECT problem FROM messages WHERE thread_id = $t ORDER BY idx DESC LIMIT 1" |
		grep -q "the mbox ends here" &&
	[ "$(sql "SELECT count(*) FROM series s JOIN threads t ON t.series_id = s.id
	     WHERE t.id = $t AND s.problems LIKE \"truncated gzip data%\"")" = 1 ]
'

test_expect 'a corrupt .gz: clear error naming the damage' '
	mkdir -p "$WWW/all/bad@test" &&
	{ head -c 2000 full.gz; head -c 3000 /dev/zero; } > "$WWW/all/bad@test/t.mbox.gz" &&
	set +e; "$MMCI" ingest series bad@test > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] && grep -q "error: corrupt gzip data at byte" err
'

test_expect 'a thread with a missing patch is stored, the problem recorded' '
	awk "/^From mboxrd@z/ { n++ } n != 4" \
		"$LEDS/hid-lenovo-mute-led-v3-0-7.mboxrd" > holes.mbox &&
	! grep -q "PATCH v3 3/7" holes.mbox &&
	serve holes.mbox all holes@test &&
	"$MMCI" ingest series holes@test > out && cat out &&
	grep -q "version: v3, 6 of 7 patch(es) found" out &&
	grep -q "problem: missing patch(es) 3/7" out &&
	id=$(sql "SELECT series_id FROM threads WHERE source LIKE \"%/holes@test/%\"") &&
	[ "$(sql "SELECT missing FROM series WHERE id = $id")" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM patches WHERE series_id = $id")" = 6 ] &&
	sql "SELECT problems FROM series WHERE id = $id" | grep -q "1 of 7 patches missing" &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.series_id = $id")" = 13 ]
'

test_expect 'fuzzed mails: no crash, a reason per mail, the rest still ingested' '
	# one lore-style thread: the two fuzzed mails, then a good patch
	for f in fuzz-refshdr fuzz-dateheader; do
		echo "From mboxrd@z Thu Jan  1 00:00:00 1970"
		tail -n +2 "$PW/$f.mbox"
		echo
	done > fuzz.mbox &&
	cat "$PW/series-bugs-multiple-content-types.mbox" >> fuzz.mbox &&
	serve fuzz.mbox all fuzz@test &&
	rc=0 && { "$MMCI" ingest series fuzz@test > out 2> err || rc=$?; } &&
	cat out err &&
	[ $rc -lt 2 ] &&
	t=$(sql "SELECT id FROM threads WHERE source LIKE \"%/fuzz@test/%\"") &&
	sql "SELECT idx || \": \" || problem FROM messages WHERE thread_id = $t
	     AND problem IS NOT NULL" > probs && cat probs &&
	grep -q "^0: .*bad message-id" probs &&
	grep -q "^1: .*cannot parse date" probs &&
	[ "$(sql "SELECT count(*) FROM messages WHERE thread_id = $t")" = 4 ] &&
	sql "SELECT subject FROM messages WHERE thread_id = $t" |
		grep -q "bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()" &&
	for f in fuzz-refshdr fuzz-dateheader; do
		serve "$PW/$f.mbox" all "$f@test" &&
		rc=0
		"$MMCI" ingest series "$f@test" > /dev/null 2>&1 || rc=$?
		[ $rc -lt 2 ] || exit 1
		[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON
		     t.id = m.thread_id WHERE t.source LIKE \"%/$f@test/%\"
		     AND m.problem IS NOT NULL")" = 1 ] || exit 1
	done
'

test_expect 'a body over the size limit is refused, not retried' '
	serve "$LEDS/leds-privacy-led-devicetree-v5-0-4.mboxrd" big "$PRIV" &&
	set +e; MMCI_FETCH_MAX_SIZE=1K "$MMCI" ingest series "$PRIV" \
		--base-url "http://127.0.0.1:$PORT/big/" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && grep -q "is larger than 1024 bytes" err &&
	[ "$(requests "/big/$PRIV/t.mbox.gz")" = 1 ]
'

test_expect 'no server: retried, then a clear error' '
	set +e; MMCI_FETCH_ATTEMPTS=2 "$MMCI" ingest series x@test \
		--base-url "http://127.0.0.1:1/all/" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -q "giving up on .http://127.0.0.1:1/all/x@test/t.mbox.gz. after 2 attempt(s)" err
'

test_expect 'mmci ingest FILE: plain and gzip, stored once' '
	"$MMCI" ingest "$B4/trailers-followup-partial-reroll.mbox" > out && cat out &&
	grep -q "version: v3, 2 of 2 patch(es) found" out &&
	gzip -nc < "$B4/trailers-followup-partial-reroll.mbox" > reroll.mbox.gz &&
	"$MMCI" ingest reroll.mbox.gz > out2 && cat out2 &&
	grep -q "already ingested" out2 &&
	[ "$(sql "SELECT count(*) FROM threads WHERE source LIKE \"%partial-reroll%\"")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.source LIKE \"%partial-reroll%\" AND m.role = \"unused-patch\"
	     AND m.problem LIKE \"not used: v2, superseded by v3%\"")" = 1 ]
'

test_expect 'mmci ingest of a file that is not mail: an error, nothing stored' '
	before=$(sql "SELECT count(*) FROM threads") &&
	printf "\n\n" > empty.txt &&
	set +e; "$MMCI" ingest empty.txt 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && grep -q "is not mail" err &&
	[ "$(sql "SELECT count(*) FROM threads")" = "$before" ]
'

stop_nginx
test_done
