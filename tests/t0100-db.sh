#!/bin/sh
# t0100-db: the SQLite store and its migrations, on a real database file.
. "$(dirname "$0")/lib.sh"

latest=$(ls "$SRC"/schema/[0-9]*.sql | sed -n '$s/.*\/0*\([0-9]*\)-.*/\1/p')

test_expect 'init creates the database at the newest schema' '
	"$MMCI" init --no-tree &&
	[ "$(sql "PRAGMA user_version")" = "$latest" ] &&
	[ "$(sql "PRAGMA journal_mode")" = wal ] &&
	for t in series patches applies builds runs boots samples events; do
		sql "SELECT count(*) FROM $t" >/dev/null || exit 1
	done
'

test_expect 'init again is a no-op that keeps the rows' '
	sql "INSERT INTO series (title, total, source, source_sha1,
	     ingested_at) VALUES (\"kept\", 1, \"x\", \"y\", 0)" &&
	"$MMCI" init --no-tree &&
	[ "$(sql "SELECT title FROM series")" = kept ]
'

test_expect 'a database from a newer mmci is refused, not changed' '
	sql "PRAGMA user_version = 999" &&
	set +e; "$MMCI" init --no-tree 2> err; rc=$?; set -e &&
	[ $rc != 0 ] && grep -q "schema 999, newer than this mmci" err &&
	[ "$(sql "PRAGMA user_version")" = 999 ]
'

test_expect 'a failing migration leaves the database as it was' '
	rm -f mmci.db* &&
	sqlite3 mmci.db "CREATE TABLE series (x); PRAGMA user_version = 0;" &&
	set +e; "$MMCI" init --no-tree 2> err; rc=$?; set -e &&
	[ $rc != 0 ] && grep -q "migration .0001-initial.sql. failed" err &&
	[ "$(sql "PRAGMA user_version")" = 0 ] &&
	[ -z "$(sql "SELECT name FROM sqlite_master WHERE name = \"runs\"")" ]
'

test_expect 'the samples table refuses a sample without a boot' '
	rm -f mmci.db* && "$MMCI" init --no-tree &&
	! sql "PRAGMA foreign_keys = ON; INSERT INTO samples (run_id, boot_id,
	       workload, metric, unit, iteration, value)
	       VALUES (1, 1, \"w\", \"m\", \"ms\", 0, 1.0)" 2>/dev/null
'

test_done
