#!/bin/sh
# t0925-render-errors: a page whose rows cannot be read is not written as
# if they had ended. On a database made with sqlite3 (bench/web-gen.sh:
# 30 runs, 60 series), a table is replaced by a view that raises an
# error on one row ("integer overflow" from abs()), so that a query fails
# while it steps, after rows were read: the list of series of a full
# render, the samples of one run behind the index's metrics, a run (not
# a missing one: its page must not go). The pass
# must say so (error lines, exit 1), keep the keys dirty (the full
# render's 'all', the index's) and the last good page, and render them
# once the rows can be read again. Check tier: no VM, a few seconds.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}

command -v sqlite3 >/dev/null || skip_all "sqlite3 makes the database"

WWW=$MMCI_DATA/www
# a value that raises an error when SQLite computes it
BOOM='abs(-9223372036854775807 - 1)'

test_expect 'a full render whose list of series fails: error, exit 1, not complete' '
	"$MMCI" init --no-tree &&
	sh "$SRC/bench/web-gen.sh" "$MMCI_DB" 30 5 25 60 &&
	sh "$SRC/bench/web-gen.sh" --finish "$MMCI_DB" &&
	# series 2 is past the index list (50 rows): only the full
	# render'"'"'s list of every series reads it
	sql "ALTER TABLE series RENAME TO series_t;
	     CREATE VIEW series AS SELECT * FROM series_t
		WHERE CASE WHEN id = 2 THEN $BOOM ELSE 1 END" &&
	set +e; "$MMCI" web --render --all > out 2> err; rc=$?; set -e &&
	cat err &&
	[ $rc = 1 ] &&
	grep -q "^error: .*integer overflow" err &&
	grep -q "^error: render: 1 page(s) or list(s) of pages failed; the pass is not complete" err &&
	[ "$(sql "SELECT count(*) FROM pages_dirty WHERE key = '"'"'all'"'"'")" = 1 ] &&
	# what was read before the failure is written; the rest is not
	[ -f "$WWW/series/60.html" ] && [ -f "$WWW/series/3.html" ] &&
	[ ! -e "$WWW/series/2.html" ] && [ ! -e "$WWW/series/1.html" ] &&
	[ -f "$WWW/run/1.html" ] && [ -f "$WWW/.version" ]
'

test_expect 'the rows readable again, the next pass renders every page' '
	sql "DROP VIEW series; ALTER TABLE series_t RENAME TO series" &&
	cp "$WWW/run/1.html" run1.before &&
	"$MMCI" web --render > out 2> err &&
	cat err &&
	! grep "integer overflow\|not complete\|failed (HTTP" err &&
	grep -q "rendering every page" err &&
	[ -f "$WWW/series/2.html" ] && [ -f "$WWW/series/1.html" ] &&
	grep -q "mm: series 1 " "$WWW/series/1.html" &&
	cmp run1.before "$WWW/run/1.html" &&
	[ "$(sql "SELECT count(*) FROM pages_dirty")" = 0 ]
'

test_expect 'the index, one run'"'"'s samples unreadable: stays dirty, old page kept' '
	[ -f "$WWW/.cache/20" ] &&
	rm "$WWW/.cache/20" &&
	cp "$WWW/index.html" index.before &&
	grep -q "rebind_memmap.*(30 runs)" index.before &&
	sql "ALTER TABLE samples RENAME TO samples_t;
	     CREATE VIEW samples AS SELECT id, run_id, boot_id, workload,
		CASE WHEN run_id = 20 THEN $BOOM ELSE variant END AS variant,
		metric, unit, iteration, value FROM samples_t;
	     INSERT INTO pages_dirty (key) VALUES ('"'"'index'"'"')" &&
	set +e; "$MMCI" web --render > out 2> err; rc=$?; set -e &&
	cat err &&
	[ $rc = 1 ] &&
	grep -q "^error: .*integer overflow" err &&
	grep -q "^error: page '"'"'index.html'"'"' failed (HTTP 500), the old one stays" err &&
	[ "$(sql "SELECT group_concat(key) FROM pages_dirty")" = index ] &&
	cmp index.before "$WWW/index.html" &&
	[ ! -e "$WWW/.cache/20" ]
'

test_expect 'the samples readable again, the index is written and clean' '
	sql "DROP VIEW samples; ALTER TABLE samples_t RENAME TO samples" &&
	"$MMCI" web --render > out 2> err &&
	cat err &&
	! grep "integer overflow\|not complete\|failed (HTTP" err &&
	[ "$(sql "SELECT count(*) FROM pages_dirty")" = 0 ] &&
	[ -f "$WWW/.cache/20" ] &&
	grep -q "rebind_memmap.*(30 runs)" "$WWW/index.html"
'

test_expect 'a run that cannot be read is no missing run: its page stays' '
	cp "$WWW/run/25.html" run25.before &&
	sql "ALTER TABLE runs RENAME TO runs_t;
	     CREATE VIEW runs AS SELECT * FROM runs_t
		WHERE CASE WHEN id = 25 THEN $BOOM ELSE 1 END;
	     INSERT INTO pages_dirty (key) VALUES ('"'"'run/25'"'"')" &&
	set +e; "$MMCI" web --render > out 2> err; rc=$?; set -e &&
	cat err &&
	[ $rc = 1 ] &&
	grep -q "^error: run #25: cannot read which pages show it" err &&
	grep -q "^error: page '"'"'run/25.html'"'"' failed (HTTP 500), the old one stays" err &&
	cmp run25.before "$WWW/run/25.html" &&
	[ "$(sql "SELECT count(*) FROM pages_dirty WHERE key = '"'"'run/25'"'"'")" = 1 ] &&
	sql "DROP VIEW runs; ALTER TABLE runs_t RENAME TO runs" &&
	"$MMCI" web --render > out 2> err &&
	[ "$(sql "SELECT count(*) FROM pages_dirty")" = 0 ] &&
	cmp run25.before "$WWW/run/25.html"
'

test_done
