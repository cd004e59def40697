#!/bin/sh
# t0120-db-concurrency: several mmci processes on one database file at
# once. Ten that open a new database all migrate it (the version is read
# under the write lock); ten that ingest one mbox store it once (the
# "stored before?" check runs inside the write transaction, and the
# content hash is a unique key); a database that the race filled with
# copies before is merged by the migration that adds the key; of several
# processes given one queued job (`test-series --job`), one runs it.
# About 20 s.
. "$(dirname "$0")/lib.sh"

export MMCI_TREE="$TRASH/repo"
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.org'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='c@example.org'

latest=$(ls "$SRC"/schema/[0-9]*.sql | sed -n '$s/.*\/0*\([0-9]*\)-.*/\1/p')
# the migration that makes the content hash unique, and the schema before
unique=$(ls "$SRC"/schema/[0-9]*-unique-sha1.sql |
	sed 's/.*\/0*\([0-9]*\)-.*/\1/')
mbox="$SRC/tests/fixtures/mbox/vmalloc-huge-vmap-v2.mboxrd"

# at_once N COMMAND...: N copies started together, each one's output in
# proc.I.out and exit status in proc.I.rc; then wait for all of them
at_once() {
	n=$1; shift
	rm -f proc.*
	pids=
	i=1
	while [ $i -le "$n" ]; do
		( set +e; "$@" > "proc.$i.out" 2>&1; echo $? > "proc.$i.rc" ) &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do
		wait "$p" || :
	done
	for i in $(seq "$n"); do
		echo "process $i, exit status $(cat "proc.$i.rc"):"
		cat "proc.$i.out"
	done
}

# how many processes exited with status 0 / said PATTERN
nr_ok() { grep -lx 0 proc.*.rc | wc -l; }
nr_said() { grep -l "$1" proc.*.out | wc -l; }

test_expect '10 mmci init at once on a new database: all succeed' '
	at_once 10 "$MMCI" init --no-tree &&
	[ "$(nr_ok)" = 10 ] &&
	! grep "error:" proc.*.out &&
	[ "$(sql "PRAGMA user_version")" = "$latest" ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ]
'

# three rounds: before the fix one round stored 1 to 10 copies
test_expect '10 ingests of one mbox at once on a new database: 1 series' '
	for round in 1 2 3; do
		rm -f mmci.db mmci.db-wal mmci.db-shm &&
		at_once 10 "$MMCI" ingest "$mbox" &&
		[ "$(nr_ok)" = 10 ] &&
		[ "$(nr_said "(already ingested)")" = 9 ] &&
		[ "$(sql "SELECT count(*) FROM threads")" = 1 ] &&
		[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
		[ "$(sql "SELECT count(*) FROM messages")" = 12 ] &&
		[ "$(sql "SELECT count(*) FROM patches")" = 3 ] || exit 1
	done
'

test_expect '10 ingests of one mbox at once on a migrated database: 1 series' '
	for round in 1 2 3; do
		rm -f mmci.db mmci.db-wal mmci.db-shm &&
		"$MMCI" init --no-tree &&
		at_once 10 "$MMCI" ingest "$mbox" &&
		[ "$(nr_ok)" = 10 ] &&
		[ "$(nr_said "(already ingested)")" = 9 ] &&
		[ "$(sql "SELECT count(*) FROM threads")" = 1 ] &&
		[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
		[ "$(sql "SELECT count(*) FROM patches")" = 3 ] || exit 1
	done
'

# The schema before the unique key, and what the race left in it: three
# copies of one series (1, 2, 3) each with its thread, two of another
# (5, 6); every table that names a series, a thread or a patch names a
# copy.
old_schema() {
	rm -f mmci.db mmci.db-wal mmci.db-shm
	for f in "$SRC"/schema/[0-9]*.sql; do
		n=$(basename "$f" | sed 's/^0*\([0-9]*\)-.*/\1/')
		[ "$n" -lt "$unique" ] && cat "$f"
	done | sqlite3 mmci.db &&
	sqlite3 mmci.db "PRAGMA user_version = $((unique - 1))"
}

test_expect 'the migration merges the copies the race stored' '
	old_schema &&
	sqlite3 mmci.db "PRAGMA foreign_keys = ON; BEGIN;
	INSERT INTO series (id, title, version, total, source, source_sha1,
			    ingested_at, source_url, previous_id) VALUES
		(1, \"mm: a\", 1, 2, \"a.mbox\", \"aaaa\", 0, NULL, NULL),
		(2, \"mm: a\", 1, 2, \"a.mbox\", \"aaaa\", 0, \"https://lore/a\", NULL),
		(3, \"mm: a\", 1, 2, \"a.mbox\", \"aaaa\", 0, NULL, NULL),
		(4, \"mm: a\", 2, 1, \"b.mbox\", \"bbbb\", 0, NULL, 3),
		(5, \"mm: c\", 1, 1, \"c.mbox\", \"cccc\", 0, NULL, NULL),
		(6, \"mm: c\", 1, 1, \"c.mbox\", \"cccc\", 0, NULL, NULL);
	INSERT INTO patches (id, series_id, idx, title, diff_sha1) VALUES
		(11, 1, 1, \"one\", \"d1\"), (12, 1, 2, \"two\", \"d2\"),
		(21, 2, 1, \"one\", \"d1\"), (22, 2, 2, \"two\", \"d2\"),
		(31, 3, 1, \"one\", \"d1\"), (32, 3, 2, \"two\", \"d2\"),
		(41, 4, 1, \"one v2\", \"e1\"), (51, 5, 1, \"c\", \"f1\"),
		(61, 6, 1, \"c\", \"f1\");
	INSERT INTO patch_trailers (patch_id, idx, origin, trailer) VALUES
		(12, 0, \"reply\", \"Acked-by: A <a@example.org>\"),
		(22, 0, \"reply\", \"Acked-by: A <a@example.org>\"),
		(32, 0, \"reply\", \"Acked-by: A <a@example.org>\");
	INSERT INTO threads (id, source, source_sha1, nr_messages, series_id,
			     ingested_at) VALUES
		(1, \"a.mbox\", \"aaaa\", 2, 1, 0), (2, \"a.mbox\", \"aaaa\", 2, 2, 0),
		(3, \"a.mbox\", \"aaaa\", 2, 3, 0), (4, \"b.mbox\", \"bbbb\", 1, 4, 0);
	INSERT INTO messages (thread_id, idx, subject, from_addr, date,
			      series_id, role, mbox_offset, mbox_length)
		SELECT t.id, i.idx, \"s\", \"f\", 0, t.series_id, \"patch\", 0, 1
		FROM threads t, (SELECT 0 AS idx UNION SELECT 1) i
		WHERE i.idx < t.nr_messages;
	INSERT INTO notices (thread_id, action, title, filename, patch_id,
			     series_id, created_at) VALUES
		(3, \"added\", \"two\", \"two.patch\", 22, 2, 0);
	INSERT INTO applies (series_id, base_ref, base_commit, upto, status,
			     created_at) VALUES (2, \"b\", \"c\", 2, \"ok\", 0);
	INSERT INTO builds (cache_key, tree_path, commit_id, tree_oid,
			    series_id, config_fragment, config_hash, status,
			    started_at) VALUES
		(\"k\", \"/t\", \"c\", \"t\", 3, \"f\", \"h\", \"ok\", 0);
	INSERT INTO jobs (id, kind, series_id, status, created_at) VALUES
		(1, \"series\", 2, \"done\", 0), (2, \"series\", 3, \"queued\", 0);
	INSERT INTO discovered (message_id, feed_url, title, link, decision,
				series_id, job_id, seen_at) VALUES
		(\"m@x\", \"f\", \"t\", \"l\", \"kept\", 3, 2, 0);
	INSERT INTO mails (kind, series_id, status) VALUES
		(\"series\", 2, \"sent\");
	INSERT INTO claims (series_id, patch, line, kind, subject, text, unit)
		VALUES (2, 0, 1, \"percent\", \"s\", \"t\", \"ms\"),
		       (2, 0, 2, \"percent\", \"s\", \"t\", \"ms\"),
		       (3, 0, 1, \"percent\", \"s\", \"t\", \"ms\"),
		       (5, 0, 1, \"percent\", \"s\", \"t\", \"ms\"),
		       (6, 0, 1, \"percent\", \"s\", \"t\", \"ms\");
	INSERT INTO series_links (series_id, message_id, url) VALUES
		(2, \"v1@x\", \"u\"), (3, \"v1@x\", \"u\"), (3, \"v2@x\", \"u\");
	COMMIT;" &&
	"$MMCI" init --no-tree &&
	[ "$(sql "PRAGMA user_version")" = "$latest" ] &&
	q() { sql "SELECT group_concat(v, \" \") FROM ($1)"; } &&
	[ "$(q "SELECT id AS v FROM series ORDER BY id")" = "1 4 5" ] &&
	[ "$(sql "SELECT source_url FROM series WHERE id = 1")" = https://lore/a ] &&
	[ "$(sql "SELECT previous_id FROM series WHERE id = 4")" = 1 ] &&
	[ "$(q "SELECT id || \":\" || series_id AS v FROM threads
	       ORDER BY id")" = "1:1 4:4" ] &&
	[ "$(q "SELECT thread_id || \":\" || series_id AS v FROM messages
	       ORDER BY thread_id, idx")" = "1:1 1:1 4:4" ] &&
	[ "$(q "SELECT id AS v FROM patches ORDER BY id")" = "11 12 41 51" ] &&
	[ "$(q "SELECT patch_id AS v FROM patch_trailers")" = 12 ] &&
	[ "$(sql "SELECT thread_id || \" \" || patch_id || \" \" || series_id
	     FROM notices")" = "1 12 1" ] &&
	[ "$(sql "SELECT series_id FROM applies")" = 1 ] &&
	[ "$(sql "SELECT series_id FROM builds")" = 1 ] &&
	[ "$(q "SELECT series_id AS v FROM jobs ORDER BY id")" = "1 1" ] &&
	[ "$(sql "SELECT series_id FROM discovered")" = 1 ] &&
	[ "$(sql "SELECT series_id FROM mails")" = 1 ] &&
	[ "$(q "SELECT series_id || \":\" || line AS v FROM claims
	       ORDER BY series_id, line")" = "1:1 1:2 5:1" ] &&
	[ "$(q "SELECT series_id || \":\" || message_id AS v FROM series_links
	       ORDER BY message_id")" = "1:v1@x 1:v2@x" ] &&
	[ -z "$(sql "PRAGMA foreign_key_check")" ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ] &&
	! sql "INSERT INTO series (title, total, source, source_sha1,
	       ingested_at) VALUES (\"again\", 1, \"x\", \"aaaa\", 0)" &&
	! sql "INSERT INTO threads (source, source_sha1, nr_messages,
	       ingested_at) VALUES (\"x\", \"aaaa\", 1, 0)"
'

# a thread of 200 patches: its ingest takes long enough to be killed in
big_mbox() {
	i=1
	while [ $i -le 200 ]; do
		cat <<EOF
From mmci@z Thu Jan  1 00:00:00 1970
From: A U Thor <author@example.org>
Subject: [PATCH $i/200] mm: step $i
Message-ID: <big.$i@example.org>
In-Reply-To: <big.1@example.org>
Date: Mon, 3 Mar 2025 10:00:00 +0000

step $i

Signed-off-by: A U Thor <author@example.org>
---
diff --git a/mm/f$i.c b/mm/f$i.c
--- a/mm/f$i.c
+++ b/mm/f$i.c
@@ -1 +1 @@
-old $i
+new $i

EOF
		i=$((i + 1))
	done
}

test_expect 'kill -9 during ingest, 20 times: all or nothing, never corrupt' '
	rm -f mmci.db mmci.db-wal mmci.db-shm &&
	big_mbox > big.mbox &&
	"$MMCI" init --no-tree > /dev/null &&
	for k in $(seq 20); do
		# another thread each time, so that each ingest writes
		sed "s/<big\./<big$k./" big.mbox > big.$k.mbox &&
		"$MMCI" ingest big.$k.mbox > /dev/null 2>&1 &
		pid=$!
		sleep "$(printf "0.%03d" $((k * 37 % 400 + 5)))"
		kill -9 $pid 2>/dev/null || :
		wait $pid 2>/dev/null || :
		[ "$(sql "PRAGMA integrity_check")" = ok ] ||
			{ echo "kill $k: integrity_check failed"; exit 1; }
		# a thread is stored whole or not at all
		[ "$(sql "SELECT count(*) FROM messages")" = \
		  "$(sql "SELECT coalesce(sum(nr_messages), 0) FROM threads")" ] &&
		[ "$(sql "SELECT count(*) FROM patches")" = \
		  "$(sql "SELECT coalesce(sum(nr_found), 0) FROM series")" ] ||
			{ echo "kill $k: a partial thread"; exit 1; }
	done &&
	echo "threads stored before their kill: $(sql "SELECT count(*) FROM threads") of 20" &&
	for k in $(seq 20); do
		"$MMCI" ingest big.$k.mbox > /dev/null || exit 1
	done &&
	[ "$(sql "SELECT count(*) FROM series")" = 20 ] &&
	[ "$(sql "SELECT count(*) FROM patches")" = 4000 ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ]
'

test_expect 'a tree and a series that applies to one base, not another' '
	rm -f mmci.db mmci.db-wal mmci.db-shm &&
	git init -q repo && cd repo &&
	printf "line %s\n" 1 2 3 4 5 6 7 8 9 10 > mm_init.c &&
	git add . && git commit -qm "base" && git tag base &&
	sed -i "s/line 3/line three/" mm_init.c && git commit -qam "mm: three" &&
	sed -i "s/line 9/line nine/" mm_init.c && git commit -qam "mm: nine" &&
	git format-patch -q --cover-letter --stdout base > ../series.mbox &&
	git checkout -q -b other base &&
	printf "unrelated\n" > mm_init.c && git commit -qam "rewrite" &&
	git tag other
'

test_expect '10 mmci apply of one mbox at once: 1 series, 10 applies' '
	for round in 1 2 3; do
		rm -f mmci.db mmci.db-wal mmci.db-shm &&
		"$MMCI" init --no-tree &&
		at_once 10 "$MMCI" apply series.mbox --base base &&
		[ "$(nr_ok)" = 10 ] &&
		[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
		[ "$(sql "SELECT count(*) FROM patches")" = 2 ] &&
		[ "$(sql "SELECT count(*) FROM applies WHERE status = \"ok\"
		     AND series_id = 1")" = 10 ] || exit 1
	done
'

test_expect 'a series read by apply, then ingested: still one series' '
	"$MMCI" ingest series.mbox > out &&
	grep "^series #1: " out &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT series_id FROM threads")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM messages WHERE series_id = 1")" = 3 ]
'

test_expect '5 test-series --job of one queued job at once: one runs it' '
	sql "INSERT INTO jobs (id, kind, series_id, series_ref, status,
	     created_at) VALUES (100, \"series\", 1, \"other\", \"queued\", 0)" &&
	at_once 5 "$MMCI" test-series --series 1 --base other --job 100 &&
	[ "$(nr_ok)" = 0 ] &&
	[ "$(nr_said "error: patch 1/2 .mm: three. does not apply")" = 1 ] &&
	[ "$(nr_said "error: job #100 is not queued: it is ")" = 4 ] &&
	[ "$(sql "SELECT status || \" \" || attempts FROM jobs
	     WHERE id = 100")" = "failed 1" ] &&
	[ "$(sql "SELECT count(*) FROM applies WHERE base_ref = \"other\"")" = 1 ]
'

test_done
