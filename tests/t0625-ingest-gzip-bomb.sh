#!/bin/sh
# t0625-ingest-gzip-bomb: a t.mbox.gz that inflates to 2 GiB (zeros, 2 MB
# of gzip, made here, not kept) served by a real nginx on loopback, and the
# same file given to `mmci ingest FILE`. Each is refused with one error
# naming the cap, nothing is stored, and the peak RSS (GNU time) stays far
# below the cap: the data is counted through a small buffer, never held.
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/lib-http.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
[ -x /usr/bin/time ] || skip_all "no /usr/bin/time (Debian: time)"

BOMB='20261124120000.4242-1-bomb@example.org'
# INGEST_MAX_MBOX_SIZE, from the header that defines it
CAP=$(sed -n 's/^#define INGEST_MAX_MBOX_SIZE (1ull << \([0-9]*\))$/\1/p' \
	"$SRC/daemon/ingest.h")
CAP=$((1 << CAP))
# the peak RSS allowed, KiB: an eighth of the cap (a buffer that grows to
# the cap peaked at 1.5 GB; mmci's own baseline is some 20 MB)
MAX_RSS_KB=$((CAP / 8 / 1024))

export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0
export MMCI_FETCH_ATTEMPTS=1 MMCI_FETCH_TIMEOUT=60

test_expect 'make a gzip bomb: 2 GiB of zeros, 32 members of 64 MiB' '
	[ "$CAP" = 1073741824 ] &&
	python3 -c "
import zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
m = c.compress(bytes(64 << 20)) + c.flush()
assert zlib.decompress(m, 31) == bytes(64 << 20)
with open(\"bomb.gz\", \"wb\") as f:
    for i in range(32):
        f.write(m)
" &&
	size=$(stat -c %s bomb.gz) && echo "$size bytes of gzip" &&
	[ "$size" -lt 4000000 ]
'

test_expect 'start nginx on a free loopback port' '
	nginx_start &&
	mkdir -p "$WWW/all/$BOMB" && cp bomb.gz "$WWW/all/$BOMB/t.mbox.gz"
'
PORT=$(cat "$TRASH/port" 2>/dev/null || echo 1)
export MMCI_LORE_URL="http://127.0.0.1:$PORT/all/"

test_expect 'ingest series of a bomb: refused, nothing stored, small peak' '
	set +e
	/usr/bin/time -f "max RSS %M KiB" -o rss "$MMCI" ingest series "$BOMB" \
		> out 2> err
	rc=$?; set -e
	cat err rss &&
	[ $rc = 1 ] &&
	# the fetched body, in the fetch cache, is what is inflated
	grep -q "^error: .*/var/fetch/[0-9a-f]*. inflates to more than $CAP bytes (a gzip bomb?): refused, nothing of it is parsed$" err &&
	[ "$(grep -c "^error:" err)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM threads")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM messages")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM series")" = 0 ] &&
	rss=$(sed -n "s/^max RSS \([0-9]*\) KiB$/\1/p" rss) &&
	[ "$rss" -lt "$MAX_RSS_KB" ]
'

test_expect 'ingest FILE of the same bomb: the same' '
	set +e
	/usr/bin/time -f "max RSS %M KiB" -o rss "$MMCI" ingest bomb.gz \
		> out 2> err
	rc=$?; set -e
	cat err rss &&
	[ $rc = 1 ] &&
	grep -q "^error: .*/bomb.gz. inflates to more than $CAP bytes (a gzip bomb?): refused, nothing of it is parsed$" err &&
	[ "$(sql "SELECT count(*) FROM threads")" = 0 ] &&
	rss=$(sed -n "s/^max RSS \([0-9]*\) KiB$/\1/p" rss) &&
	[ "$rss" -lt "$MAX_RSS_KB" ]
'

test_expect 'a thread gzipped in two members still ingests whole' '
	f="$SRC/tests/fixtures/mbox/hid-exampad-single-patch-flowed.mboxrd" &&
	second=$(grep -n "^From " "$f" | sed -n "2s/:.*//p") &&
	{ head -n $((second - 1)) "$f" | gzip -9n
	  tail -n +$second "$f" | gzip -9n; } > two.mbox.gz &&
	"$MMCI" ingest two.mbox.gz > out 2> err && cat out err &&
	[ "$(sql "SELECT count(*) FROM messages")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ ! -s err ]
'

test_done
