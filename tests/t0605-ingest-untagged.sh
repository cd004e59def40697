#!/bin/sh
# t0605-ingest-untagged: `mmci ingest FILE` of a patch sent without a
# [PATCH] tag (git send-email, format-patch -k) stores it as a series of
# one, with its reply's Reviewed-by; a bug thread whose only diff is in a
# reply stays no series. Our own mails (tests/fixtures/mbox).
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
OWN="$SRC/tests/fixtures/mbox"

test_expect 'an untagged git send-email patch is a series of one' '
	"$MMCI" ingest "$OWN/vmscan-untagged-send-email.mbox" > out &&
	cat out &&
	grep -q "^series #1: mm/vmscan: never return a zero shrink batch$" out &&
	grep -q "^  version: v1, 1 of 1 patch(es) found$" out &&
	[ "$(sql "SELECT count(*) FROM patches WHERE series_id = 1")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM patch_trailers WHERE origin = \"reply\"")" = 1 ] &&
	sql "SELECT trailer FROM patch_trailers WHERE origin = \"reply\"" |
		grep -qx "Reviewed-by: Ilse Brandt <ilse.brandt@example.de>"
'

test_expect 'a bug thread with a diff only in a reply is still no series' '
	set +e
	"$MMCI" ingest "$OWN/memmap-soft-lockup-bug-thread.mboxrd" > out 2> err
	rc=$?; set -e
	cat out err &&
	[ $rc = 1 ] &&
	grep -q "^error: no patch series in .*memmap-soft-lockup-bug-thread.mboxrd. (5 message(s) stored)$" err &&
	[ "$(sql "SELECT count(*) FROM series WHERE title LIKE \"%soft lockup%\"")" = 0 ]
'

test_done
