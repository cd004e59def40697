#!/bin/sh
# t0600-ingest-series: `mmci ingest series MSGID` against a real HTTP server
# (nginx, on loopback, started here with its own config) that serves the
# mbox fixtures gzipped and laid out as public-inbox does
# (<inbox>/<msgid>/t.mbox.gz); and `mmci ingest FILE`. Checks what the
# series assemble to, what is stored per mail, and the fetcher's manners
# (retries, Retry-After, conditional requests, limits) from nginx's log.
# Every case runs on our own mails (tests/fixtures/mbox); the cases on the
# real mails of $MMCI_FIXTURES (../shared/fixtures/mbox) are extras that
# skip, saying so, when that directory is absent.
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/lib-http.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

OWN="$SRC/tests/fixtures/mbox"
V2='20260414093012.51234-1-kenji.hara@example.com'
LEDS_V3='cover.1776676262.git.ines.carvalho@example.pt'
ZSWAP='20260416121530.40917-1-priya.r@example.in'
HIDPATCH='20260422120312.8812-1-tomas.ferrante@example.it'
NOTICE='20260417235231.7C3A2C4CEF1@smtp.example.org'

# the real mails, when they are there
LEDS="$FIXTURES/linux-mailinglist-archives+linux-leds.vger.kernel.org.0"
STABLE="$FIXTURES/linux-mailinglist-archives+stable.vger.kernel.org.1"
PW="$FIXTURES/getpatchwork+patchwork"
B4="$FIXTURES/mricon+b4"
HID='20210221112005.102116-1-hdegoede@redhat.com'
PRIV='20250910-leds-v5-0-bb90a0f897d5@vinarskis.com'
AUX='20240227212244.262710-1-chris.packham@alliedtelesis.co.nz'

# test_expect_shared DESCRIPTION COMMANDS: a case on the real mails, or a
# skip that names their directory when it is absent
test_expect_shared() {
	if [ -d "$FIXTURES" ]; then
		test_expect "$@"
	else
		test_skip "$FIXTURES absent (MMCI_FIXTURES)" "$1"
	fi
}

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

test_expect 'serve our fixtures as public-inbox threads' '
	serve "$OWN/vmalloc-huge-vmap-v2.mboxrd" all "$V2" &&
	serve "$OWN/vmalloc-huge-vmap-v2.mboxrd" linux-mm "$V2" &&
	serve "$OWN/leds-exa3310-V3-folded-ids.mbox" all "$LEDS_V3" &&
	serve "$OWN/zswap-batch-v4-version-on-cover.mbox" all "$ZSWAP" &&
	serve "$OWN/mm-commits-added-vmap-contig-runs.eml" all "$NOTICE" &&
	serve "$OWN/hid-exampad-single-patch-flowed.mboxrd" all "a/b?c%d@x" &&
	serve "$OWN/hid-exampad-single-patch-flowed.mboxrd" flaky "$HIDPATCH" &&
	serve "$OWN/hid-exampad-single-patch-flowed.mboxrd" busy "$HIDPATCH" &&
	curl -sf -o /dev/null "$MMCI_LORE_URL$V2/t.mbox.gz"
'

test_expect 'vmalloc v2 0/3: 3 patches, reply trailers, every mail stored' '
	"$MMCI" ingest series "<$V2>" > out &&
	cat out &&
	grep -q "^series #1: mm/vmalloc: use huge mappings in vmap() for contiguous pages$" out &&
	grep -q "version: v2, 3 of 3 patch(es) found, with a cover letter" out &&
	grep -q "trailers: 6 from replies (3 via the cover letter)" out &&
	[ "$(sql "SELECT version || \" \" || total || \" \" || nr_found FROM series")" = "2 3 3" ] &&
	[ "$(sql "SELECT base_commit FROM series")" = 5c1b2f7e9a0d43e8b6f2a17c3d9e4f5a6b7c8d90 ] &&
	[ "$(sql "SELECT source_url FROM series")" = "${MMCI_LORE_URL}$V2/t.mbox.gz" ] &&
	[ "$(sql "SELECT fetched_at > 1e9 FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages WHERE series_id = 1")" = 12 ] &&
	[ "$(sql "SELECT group_concat(role || \":\" || n) FROM (SELECT role,
	     count(*) n FROM messages GROUP BY role ORDER BY role)")" = \
	  "cover:1,patch:3,reply:8" ] &&
	sql "SELECT p.idx || \" \" || t.trailer FROM patch_trailers t JOIN patches p
	     ON p.id = t.patch_id WHERE t.origin = \"reply\" ORDER BY p.idx, t.idx" > tr &&
	cat tr && [ $(wc -l < tr) = 3 ] &&
	grep -q "^1 Reviewed-by: Jiří Horák <jiri.horak@example.cz>$" tr &&
	grep -q "^2 Acked-by: Pieter van Wyk <pieter@example.net>$" tr &&
	grep -q "^3 Tested-by: Wei Zhang <wei.zhang@example.com>$" tr &&
	[ "$(sql "SELECT count(*) FROM patch_trailers WHERE origin = \"cover\" AND
	     trailer = \"Reviewed-by: Rui Tavares (Corvid Labs) <rui.tavares@example.org>\"")" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM patch_trailers WHERE origin = \"patch\"
	     AND trailer = \"Signed-off-by: Kenji Hara <kenji.hara@example.com>\"")" = 3 ] &&
	[ "$(requests "/all/$V2/t.mbox.gz")" = 1 ]
'

test_expect 'the request names mmci as its User-Agent' '
	grep " \"/all/$V2/t.mbox.gz\" " "$LOG" | grep -q "\"mmci/"
'

test_expect 'a re-run does not touch the network (cached body)' '
	"$MMCI" ingest series "$V2" > out &&
	grep -q "already ingested" out &&
	[ "$(requests "/all/$V2/t.mbox.gz")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages")" = 12 ]
'

test_expect '--refresh makes a conditional request: 304 uses the cache' '
	"$MMCI" ingest series "$V2" --refresh > out 2> err &&
	cat out err &&
	[ "$(requests "/all/$V2/t.mbox.gz")" = 2 ] &&
	[ "$(statuses "/all/$V2/t.mbox.gz")" = "200 304 " ] &&
	grep " \"/all/$V2/t.mbox.gz\" " "$LOG" | tail -1 |
		grep -q " \"[\\\\]x22[0-9a-f]*-[0-9a-f]*[\\\\]x22\" " &&
	grep -q "already ingested" out &&
	[ "$(sql "SELECT count(*) FROM threads")" = 1 ]
'

test_expect 'quoted-printable, base64 and 8bit bodies: diffs and trailers decoded' '
	[ "$(sql "SELECT sum(has_diff) FROM patches WHERE series_id = 1")" = 3 ] &&
	[ "$(sql "SELECT title FROM patches WHERE series_id = 1 AND idx = 3")" = \
	  "mm/vmalloc: map contiguous runs of pages in vmap() with PMD entries" ] &&
	[ "$(sql "SELECT count(*) FROM patch_trailers t JOIN patches p ON p.id = t.patch_id
	     WHERE p.series_id = 1 AND p.idx = 3 AND t.origin = \"patch\" AND
	     t.trailer IN (\"Signed-off-by: Lena Vogt <lena.vogt@example.de>\",
	     \"Reviewed-by: Jiří Horák <jiri.horak@example.cz>\")")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM messages WHERE series_id = 1 AND problem IS NOT NULL")" = 0 ] &&
	[ "$(sql "SELECT subject FROM messages WHERE message_id =
	     \"SEZPR06MB69873D2A41C8E5F0B7A2C19DE4512@SEZPR06MB6987.apcprd06.prod.outlook.com\"")" = \
	  "Re: [PATCH v2 3/3] mm/vmalloc: map contiguous runs of pages in vmap() with PMD entries" ]
'

test_expect 'upper-case V3 and a version only on the cover' '
	"$MMCI" ingest series "$LEDS_V3" > out1 && cat out1 &&
	grep -q "version: v3, 3 of 3 patch(es) found, with a cover letter" out1 &&
	grep -q "leds: exa3310: blink & brightness fixes" out1 &&
	"$MMCI" ingest series "$ZSWAP" > out2 && cat out2 &&
	grep -q "version: v4, 3 of 3 patch(es) found, with a cover letter" out2 &&
	[ "$(sql "SELECT version FROM series WHERE title = \"mm/zswap: write back in batches (v4)\"")" = 4 ] &&
	[ "$(sql "SELECT count(*) FROM patches p JOIN series s ON s.id = p.series_id
	     WHERE s.message_id = \"$LEDS_V3\"")" = 3 ]
'

test_expect 'the mm-commits notice is stored and linked to the patch it names' '
	"$MMCI" ingest series "<$NOTICE>" > out &&
	cat out &&
	grep -q "mm-commits notice: .mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch. added to mm-new" out &&
	grep -q "linked: notice #1 -> patch #2 (2/3 of series #1) by message-id" out &&
	[ "$(sql "SELECT subject FROM messages WHERE message_id = \"$NOTICE\"")" = \
	  "+ mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch added to mm-new branch" ] &&
	[ "$(sql "SELECT series_id IS NULL FROM threads ORDER BY id DESC LIMIT 1")" = 1 ]
'

test_expect '--list picks another inbox on the same server' '
	"$MMCI" ingest series "$V2" --list linux-mm > out &&
	[ "$(requests "/linux-mm/$V2/t.mbox.gz")" = 1 ]
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
		until grep -q "\"/flaky/$HIDPATCH/t.mbox.gz\"" "$LOG"; do
			i=$((i + 1)); [ $i -lt 400 ] || exit 1; sleep 0.05
		done
		rm -f fail500
	) &
	set +e
	MMCI_FETCH_BACKOFF_MS=1500 "$MMCI" ingest series "$HIDPATCH" \
		--base-url "http://127.0.0.1:$PORT/flaky/" > out 2> err; rc=$?
	set -e
	wait
	cat out err && [ $rc = 0 ] &&
	[ "$(statuses "/flaky/$HIDPATCH/t.mbox.gz")" = "500 200 " ] &&
	grep -q "retry 2/3 of" err &&
	grep -q "HID: exampad: report the battery capacity in percent" out
'

test_expect 'a 429 waits as long as Retry-After says' '
	curl -s -o /dev/null "http://127.0.0.1:$PORT/busy/$HIDPATCH/t.mbox.gz" &&
	"$MMCI" ingest series "$HIDPATCH" --base-url "http://127.0.0.1:$PORT/busy/" \
		> out 2> err && cat out err &&
	[ "$(statuses "/busy/$HIDPATCH/t.mbox.gz")" = "429 200 " ] &&
	grep " \"/busy/$HIDPATCH/t.mbox.gz\" " "$LOG" | tail -2 | cut -d" " -f1 > t &&
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
	gzip -9nc < "$OWN/vmalloc-huge-vmap-v2.mboxrd" > full.gz &&
	head -c $(($(wc -c < full.gz) * 2 / 3)) full.gz > "$WWW/all/cut@test/t.mbox.gz" &&
	set +e; "$MMCI" ingest series cut@test > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -q "error: truncated gzip data.*were parsed and stored" err &&
	t=$(sql "SELECT id FROM threads WHERE source LIKE \"%/cut@test/%\"") &&
	[ "$(sql "SELECT problem LIKE \"truncated gzip data%\" FROM threads WHERE id = $t")" = 1 ] &&
	n=$(sql "SELECT count(*) FROM messages WHERE thread_id = $t") &&
	[ "$n" -gt 3 ] && [ "$n" -lt 12 ] &&
	sql "SELECT problem FROM messages WHERE thread_id = $t ORDER BY idx DESC LIMIT 1" |
		grep -q "the mbox ends here" &&
	[ "$(sql "SELECT count(*) FROM series s JOIN threads t ON t.series_id = s.id
	     WHERE t.id = $t AND s.problems LIKE \"truncated gzip data%\"")" = 1 ]
'

test_expect 'a corrupt .gz: clear error naming the damage' '
	mkdir -p "$WWW/all/bad@test" &&
	gzip -9nc < "$OWN/vmalloc-huge-vmap-v2.mboxrd" > full.gz &&
	{ head -c 2000 full.gz; head -c 3000 /dev/zero | tr "\0" "\377"; } \
		> "$WWW/all/bad@test/t.mbox.gz" &&
	set +e; "$MMCI" ingest series bad@test > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] && grep -q "error: corrupt gzip data at byte" err
'

test_expect 'a thread with a missing patch is stored, the problem recorded' '
	awk "/^From mboxrd@z/ { n++ } n != 3" \
		"$OWN/vmalloc-huge-vmap-v2.mboxrd" > holes.mbox &&
	! grep -q "^Subject: \[PATCH v2 2/3\]" holes.mbox &&
	serve holes.mbox all holes@test &&
	"$MMCI" ingest series holes@test > out && cat out &&
	grep -q "version: v2, 2 of 3 patch(es) found" out &&
	grep -q "problem: missing patch(es) 2/3" out &&
	id=$(sql "SELECT series_id FROM threads WHERE source LIKE \"%/holes@test/%\"") &&
	[ "$(sql "SELECT missing FROM series WHERE id = $id")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM patches WHERE series_id = $id")" = 2 ] &&
	sql "SELECT problems FROM series WHERE id = $id" | grep -q "1 of 3 patches missing" &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.series_id = $id")" = 11 ]
'

test_expect 'broken mails: no crash, a reason per mail, the rest still ingested' '
	# one lore-style thread: the two broken mails, then a good patch
	for f in broken-references-patch-2-of-2 broken-mangled-headers; do
		echo "From mboxrd@z Thu Jan  1 00:00:00 1970"
		tail -n +2 "$OWN/$f.mbox"
		echo
	done > broken.mbox &&
	cat "$OWN/hid-exampad-single-patch-flowed.mboxrd" >> broken.mbox &&
	serve broken.mbox all broken@test &&
	rc=0 && { "$MMCI" ingest series broken@test > out 2> err || rc=$?; } &&
	cat out err &&
	[ $rc -lt 2 ] &&
	t=$(sql "SELECT id FROM threads WHERE source LIKE \"%/broken@test/%\"") &&
	sql "SELECT idx || \": \" || problem FROM messages WHERE thread_id = $t
	     AND problem IS NOT NULL" > probs && cat probs &&
	grep -q "^0: .*bad message-id in references" probs &&
	grep -q "^1: .*cannot parse date" probs &&
	grep -q "^1: .*no boundary delimiter in multipart body" probs &&
	[ "$(sql "SELECT count(*) FROM messages WHERE thread_id = $t")" = 4 ] &&
	sql "SELECT subject FROM messages WHERE thread_id = $t" |
		grep -q "HID: exampad: report the battery capacity in percent" &&
	for f in broken-references-patch-2-of-2 broken-mangled-headers; do
		serve "$OWN/$f.mbox" all "$f@test" &&
		rc=0
		"$MMCI" ingest series "$f@test" > /dev/null 2>&1 || rc=$?
		[ $rc -lt 2 ] || exit 1
		[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON
		     t.id = m.thread_id WHERE t.source LIKE \"%/$f@test/%\"
		     AND m.problem IS NOT NULL")" = 1 ] || exit 1
	done
'

test_expect 'a body over the size limit is refused, not retried' '
	serve "$OWN/vmalloc-huge-vmap-v2.mboxrd" big "$V2" &&
	set +e; MMCI_FETCH_MAX_SIZE=1K "$MMCI" ingest series "$V2" \
		--base-url "http://127.0.0.1:$PORT/big/" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && grep -q "is larger than 1024 bytes" err &&
	[ "$(requests "/big/$V2/t.mbox.gz")" = 1 ]
'

test_expect 'no server: retried, then a clear error' '
	set +e; MMCI_FETCH_ATTEMPTS=2 "$MMCI" ingest series x@test \
		--base-url "http://127.0.0.1:1/all/" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -q "giving up on .http://127.0.0.1:1/all/x@test/t.mbox.gz. after 2 attempt(s)" err
'

test_expect 'mmci ingest FILE: plain and gzip, stored once' '
	"$MMCI" ingest "$OWN/memmap-pageblock-v2-v3-reroll.mbox" > out && cat out &&
	grep -q "version: v3, 2 of 2 patch(es) found" out &&
	gzip -nc < "$OWN/memmap-pageblock-v2-v3-reroll.mbox" > reroll.mbox.gz &&
	"$MMCI" ingest reroll.mbox.gz > out2 && cat out2 &&
	grep -q "already ingested" out2 &&
	[ "$(sql "SELECT count(*) FROM threads WHERE source LIKE \"%v2-v3-reroll%\"")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
	     WHERE t.source LIKE \"%v2-v3-reroll%\" AND m.role = \"unused-patch\"
	     AND m.problem LIKE \"not used: v2, superseded by v3%\"")" = 1 ]
'

test_expect 'a partial re-roll: cover trailers on both, a v2 review not carried to v3' '
	"$MMCI" ingest "$OWN/memmap-pageblock-v2-v3-reroll.mbox" > out && cat out &&
	grep -q "trailers: 5 from replies (2 via the cover letter)" out &&
	grep -q "base-commit: 9e6a4d1c2b7f80e3a5d6c4b2f1e0d9c8b7a69584" out &&
	id=$(sql "SELECT series_id FROM threads WHERE source LIKE \"%v2-v3-reroll%\"") &&
	sql "SELECT p.idx || \" \" || p.version || \" \" || t.origin || \" \" || t.trailer
	     FROM patch_trailers t JOIN patches p ON p.id = t.patch_id
	     WHERE p.series_id = $id AND t.origin != \"patch\" ORDER BY p.idx, t.idx" > tr &&
	cat tr && [ $(wc -l < tr) = 5 ] &&
	grep -q "^1 2 cover Reviewed-by: Hugo Brandt <hugo.brandt@example.org>$" tr &&
	grep -q "^2 3 reply Reported-by: Jiří Horák <jiri.horak@example.cz>$" tr &&
	grep -q "^2 3 reply Closes: https://lore.kernel.org/linux-mm/20260422071830.GA30114@horak-t14.example.cz/$" tr &&
	grep -q "^2 3 reply Tested-by: Jiří Horák <jiri.horak@example.cz>$" tr &&
	grep -q "^2 3 cover Reviewed-by: Hugo Brandt <hugo.brandt@example.org>$" tr &&
	! grep -q "Wei Zhang" tr
'

test_expect 'mmci ingest of a file that is not mail: an error, nothing stored' '
	before=$(sql "SELECT count(*) FROM threads") &&
	printf "\n\n" > empty.txt &&
	set +e; "$MMCI" ingest empty.txt 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && grep -q "is not mail" err &&
	set +e; "$MMCI" ingest "$OWN/bare-diff-not-mail.patch" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -q "error: .*bare-diff-not-mail.patch. is not mail" err &&
	[ "$(sql "SELECT count(*) FROM threads")" = "$before" ]
'

test_expect 'mmci ingest of a directory, a FIFO, a missing file: says which' '
	before=$(sql "SELECT count(*) FROM threads") &&
	mkdir adir && mkfifo afifo &&
	set +e; timeout 20 "$MMCI" ingest adir 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && [ "$(wc -l < err)" = 1 ] &&
	grep -qx "error: .adir. is a directory, not an mbox file" err &&
	set +e; timeout 20 "$MMCI" ingest afifo 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && [ "$(wc -l < err)" = 1 ] &&
	grep -qx "error: .afifo. is a FIFO, not a regular file (an mbox file expected)" err &&
	set +e; timeout 20 "$MMCI" ingest nosuch.mbox 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && [ "$(wc -l < err)" = 1 ] &&
	grep -qx "error: cannot read .nosuch.mbox.: No such file or directory" err &&
	[ "$(sql "SELECT count(*) FROM threads")" = "$before" ]
'

# ------------------------------------------------ the real mails, if there

test_expect_shared 'real mails: serve them as public-inbox threads' '
	serve "$LEDS/hid-lenovo-mute-led-v3-0-7.mboxrd" all "$HID" &&
	serve "$LEDS/leds-privacy-led-devicetree-v5-0-4.mboxrd" all "$PRIV" &&
	serve "$LEDS/auxdisplay-7seg-v2-0-4-qp-base64.mboxrd" all "$AUX" &&
	serve "$PW/series-bugs-multiple-references.mbox" all pw-refs@test &&
	serve "$PW/series-base-different-versions.mbox" all pw-base@test &&
	serve "$B4/trailers-thread-with-cover-followup.mbox" all b4-cover@test &&
	serve "$STABLE/mm-commits-mm-new-added-samples-damon-mtier.eml" all \
		20260629044921.61DF81F000E9@smtp.kernel.org
'

test_expect_shared 'real mails: hid-lenovo v3 0/7, 7 patches, reply trailers' '
	"$MMCI" ingest series "<$HID>" > out &&
	cat out &&
	grep -q "^series #[0-9]*: HID: lenovo: Mute LED handling fixes and improvements" out &&
	grep -q "version: v3, 7 of 7 patch(es) found, with a cover letter" out &&
	grep -q "trailers: 6 from replies" out &&
	id=$(sql "SELECT id FROM series WHERE message_id = \"$HID\"") &&
	[ "$(sql "SELECT version || \" \" || total || \" \" || nr_found FROM series WHERE id = $id")" = "3 7 7" ] &&
	[ "$(sql "SELECT count(*) FROM messages WHERE series_id = $id")" = 14 ] &&
	sql "SELECT p.idx || \" \" || t.trailer FROM patch_trailers t JOIN patches p
	     ON p.id = t.patch_id WHERE p.series_id = $id AND t.origin = \"reply\"
	     ORDER BY p.idx, t.idx" > tr &&
	cat tr && [ $(wc -l < tr) = 6 ] &&
	grep -q "^2 Reviewed-by: Marek Behún <kabel@kernel.org>$" tr &&
	grep -q "^4 Acked-by: Pavel Machek <pavel@ucw.cz>$" tr &&
	[ "$(sql "SELECT count(*) FROM patch_trailers t JOIN patches p ON p.id = t.patch_id
	     WHERE p.series_id = $id AND t.origin = \"patch\"
	     AND t.trailer LIKE \"Signed-off-by: Hans de Goede%\"")" = 7 ]
'

test_expect_shared 'real mails: leds-privacy v5, Reviewed-by and Tested-by, base-commit' '
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

test_expect_shared 'real mails: auxdisplay v2, 4 patches from quoted-printable bodies' '
	"$MMCI" ingest series "$AUX" > out && cat out &&
	grep -q "version: v2, 4 of 4 patch(es) found" out &&
	id=$(sql "SELECT id FROM series WHERE message_id = \"$AUX\"") &&
	[ "$(sql "SELECT sum(has_diff) FROM patches WHERE series_id = $id")" = 4 ] &&
	[ "$(sql "SELECT title FROM patches WHERE series_id = $id AND idx = 1")" = \
	  "auxdisplay: Add 7 segment LED display driver" ] &&
	[ "$(sql "SELECT count(DISTINCT p.id) FROM patch_trailers t JOIN patches p ON
	     p.id = t.patch_id WHERE p.series_id = $id AND t.origin = \"patch\" AND
	     t.trailer = \"Signed-off-by: Chris Packham <chris.packham@alliedtelesis.co.nz>\"")" = 4 ]
'

test_expect_shared 'real mails: patchwork, upper-case V2 and a version only on the cover' '
	"$MMCI" ingest series pw-refs@test > out1 && cat out1 &&
	grep -q "version: v2, 4 of 4 patch(es) found, with a cover letter" out1 &&
	grep -q "PM / OPP: Minor cleanups" out1 &&
	"$MMCI" ingest series pw-base@test > out2 && cat out2 &&
	grep -q "version: v3, 4 of 4 patch(es) found, with a cover letter" out2 &&
	[ "$(sql "SELECT version FROM series WHERE title LIKE \"net: dsa: Multi-CPU%\"")" = 3 ]
'

test_expect_shared 'real mails: b4, trailers sent to the cover letter apply to every patch' '
	"$MMCI" ingest series b4-cover@test > out && cat out &&
	grep -q "trailers: 7 from replies (4 via the cover letter)" out &&
	id=$(sql "SELECT series_id FROM threads WHERE source LIKE \"%/b4-cover@test/%\"") &&
	[ "$(sql "SELECT count(*) FROM patch_trailers t JOIN patches p ON p.id = t.patch_id
	     WHERE p.series_id = $id AND t.origin = \"cover\" AND
	     t.trailer = \"Reviewed-by: Cover Upper <cover.upper@example.org>\"")" = 4 ]
'

test_expect_shared 'real mails: the mm-new notice is parsed and stored' '
	"$MMCI" ingest series "<20260629044921.61DF81F000E9@smtp.kernel.org>" > out &&
	cat out &&
	grep -q "mm-commits notice: .samples-damon-mtier-handle-damon_stop-failure.patch. added to mm-new" out &&
	[ "$(sql "SELECT subject FROM messages WHERE message_id =
	     \"20260629044921.61DF81F000E9@smtp.kernel.org\"")" = \
	  "+ samples-damon-mtier-handle-damon_stop-failure.patch added to mm-new branch" ]
'

test_expect_shared 'real mails: fuzzed mails, no crash, a reason per mail' '
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
		grep -q "bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()"
'

stop_nginx
test_done
