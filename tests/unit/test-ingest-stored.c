// SPDX-License-Identifier: GPL-2.0
/*
 * test-ingest-stored.c - a job loads its series from the typed rows the
 * ingest stored (ingest_load_stored(), migration 14), not by parsing the
 * mails again: a job runs as root, mail is parsed only by the ingest, as
 * the service user. A real SQLite file; mails from tests/fixtures/mbox
 * (a re-rolled series with trailers sent in replies) and the example
 * series. The thread's file is removed before the load: the rows alone
 * must give the same patches, to the byte, as parsing did, trailers
 * included. A series stored before migration 14 (its new columns NULL)
 * is read from its file again, and fails without it. The row of a series
 * comes from series_row_load(), with its newest thread's mbox.
 */
#include <unistd.h>

#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "series.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

static void same_series(const struct series *a, const struct series *b,
			const char *what)
{
	size_t i;
	int same = a->nr == b->nr && a->version == b->version &&
		   a->total == b->total && !strcmp(a->title, b->title);

	for (i = 0; same && i < a->nr; i++) {
		const struct series_patch *p = &a->patches[i], *q = &b->patches[i];
		char *pm = series_patch_full_message(p);
		char *qm = series_patch_full_message(q);

		same = p->index == q->index && p->date == q->date &&
		       !strcmp(p->title, q->title) &&
		       !strcmp(p->author_name, q->author_name) &&
		       !strcmp(p->author_email, q->author_email) &&
		       !strcmp(p->diff, q->diff) && !strcmp(pm, qm);
		if (!same)
			printf("# patch %zu differs:\n# %s\n# ---\n# %s\n", i + 1,
			       pm, qm);
		free(pm);
		free(qm);
	}
	ok(same, what);
}

static void one(struct db *db, const char *dir, const char *fixture,
		int want_trailers)
{
	char *copy = xstrfmt("%s/%s", dir, strrchr(fixture, '/') + 1);
	struct loaded_series parsed, stored;
	struct strbuf sb = STRBUF_INIT;
	size_t i, trailers = 0;

	if (strbuf_read_file(&sb, fixture, 0) < 0 ||
	    write_file(copy, sb.buf, sb.len) < 0) {
		ok(0, "copy the fixture");
		return;
	}
	if (!ok(ingest_series_file(db, copy, &parsed) == 0, fixture))
		return;
	for (i = 0; i < parsed.s.nr; i++)
		trailers += parsed.s.patches[i].nr_trailers;
	if (want_trailers)
		ok(trailers > 0, "the parse found trailers in replies");
	unlink(copy);
	if (ok(ingest_load_stored(db, parsed.id, &stored) == 0,
	       "loaded with the mails' file gone")) {
		ok(!stored.mails && !stored.nr_mails, "no mail parsed");
		same_series(&parsed.s, &stored.s, "the same patches, trailers "
			    "in the commit messages");
		loaded_series_release(&stored);
	}
	/* a series stored before migration 14 */
	db_run(db, "UPDATE patches SET commit_message = NULL WHERE "
	       "series_id = ?", "i", parsed.id);
	ok(ingest_load_stored(db, parsed.id, &stored) < 0,
	   "rows from before: read from the file, which is gone");
	write_file(copy, sb.buf, sb.len);
	if (ok(ingest_load_stored(db, parsed.id, &stored) == 0,
	       "rows from before: read from the file again")) {
		ok(stored.mails != NULL, "by parsing it");
		same_series(&parsed.s, &stored.s, "the same patches");
		loaded_series_release(&stored);
	}
	loaded_series_release(&parsed);
	strbuf_release(&sb);
	free(copy);
}

/*
 * series_row_load(), the one loader of a series row (report.c reads it
 * too): the row as stored, the newest thread's mbox, which a series
 * stored before migration 14 is read from again, and no row for an
 * unknown id. The example series was stored by one() above, its rows
 * from before migration 14.
 */
static void row(struct db *db, const char *dir)
{
	char *copy = xstrfmt("%s/memmap-slow.mbox", dir);
	char *older = xstrfmt("%s/older.mbox", dir);
	char *thread = xstrfmt("%s/thread.mbox", dir);
	struct loaded_series ls, stored;
	struct series_row r;
	struct strbuf sb = STRBUF_INIT;

	if (!ok(ingest_series_file(db, copy, &ls) == 0, "the example again"))
		goto out;
	if (ok(series_row_load(db, ls.id, &r) == 0, "its row")) {
		ok(r.id == ls.id && r.version == ls.s.version &&
		   r.total == ls.s.total && !strcmp(r.title, ls.s.title),
		   "title, version and total as parsed");
		is_str(r.message_id, "20250303100000.0.mmci-demo@example.org",
		       "the cover letter's message id");
		is_str(r.source, copy, "the file it was read from");
		is_str(r.cache_path, "", "no thread");
		ok(!*r.missing && !r.first_missing && !r.is_rfc &&
		   !r.base_commit, "whole, no RFC, no base commit");
	}
	series_row_release(&r);
	db_run(db, "INSERT INTO threads (source, cache_path, source_sha1, "
	       "nr_messages, series_id, ingested_at) VALUES ('t', ?, 'a', 3, "
	       "?, 0), ('t', ?, 'b', 3, ?, 0)", "titi", older, ls.id, thread,
	       ls.id);
	if (ok(series_row_load(db, ls.id, &r) == 0, "its row, threads now"))
		is_str(r.cache_path, thread, "the newest thread's mbox");
	series_row_release(&r);
	if (strbuf_read_file(&sb, copy, 0) < 0 ||
	    write_file(thread, sb.buf, sb.len) < 0) {
		ok(0, "copy the example");
		goto out;
	}
	unlink(copy);
	if (ok(ingest_load_stored(db, ls.id, &stored) == 0,
	       "rows from before: read from the thread's mbox, the file "
	       "it came from gone")) {
		same_series(&ls.s, &stored.s, "the same patches");
		loaded_series_release(&stored);
	}
	/*
	 * the rows are the service user's to write: as root, a thread path
	 * outside <data>/fetch (MMCI_DATA, set by main()) is not read
	 */
	if (geteuid() == 0) {
		char *outside = xstrfmt("%s/../outside.mbox", dir);

		write_file(outside, sb.buf, sb.len);
		db_run(db, "UPDATE threads SET cache_path = ? WHERE "
		       "cache_path = ?", "tt", outside, thread);
		ok(ingest_load_stored(db, ls.id, &stored) < 0,
		   "as root, a thread outside <data>/fetch: refused");
		ok(strstr(last_error(), "is not a file below") != NULL,
		   "saying why");
		unlink(outside);
		free(outside);
	}
	ok(series_row_load(db, 999999, &r) < 0, "no series #999999: -1");
	ok(!r.title, "and nothing loaded");
	series_row_release(&r);
out:
	loaded_series_release(&ls);
	strbuf_release(&sb);
	free(copy);
	free(older);
	free(thread);
}

/*
 * memmap-mixed.mbox (a cover letter and 4 patches) without the mail of
 * patch @drop, stored as a whole thread (ingest_thread()), loaded
 * again: the id, or 0 when it was not stored.
 */
static long long without_patch(struct db *db, int drop)
{
	struct loaded_series ls = { 0 };
	struct ingest_report rep = { 0 };
	struct ingest_source src = { .source = "a thread with a hole" };
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	char *subject = xstrfmt("Subject: [PATCH %d/4]", drop);
	const char *p, *next;
	long long id = 0;

	if (strbuf_read_file(&sb, "kernel-patches/examples/memmap-mixed.mbox",
			     0) < 0)
		return 0;
	/* the mails, "From " to "From ", all but the one of @drop */
	for (p = sb.buf; *p; p = next) {
		const char *end = strstr(p + 1, "\nFrom ");

		next = end ? end + 1 : p + strlen(p);
		if (!memmem(p, next - p, subject, strlen(subject)))
			strbuf_add(&out, p, next - p);
	}
	if (ingest_thread(db, out.buf, out.len, &src, &ls, &rep) == 0)
		id = ls.id;
	loaded_series_release(&ls);
	ingest_report_release(&rep);
	strbuf_release(&sb);
	strbuf_release(&out);
	free(subject);
	return id;
}

/* a series whose patch never arrived: measured as far as it goes */
static void partial(struct db *db)
{
	struct loaded_series ls;
	long long id = without_patch(db, 3);

	if (!ok(id > 0, "patch 3/4 left out: the thread is stored"))
		return;
	if (ok(ingest_load_stored(db, id, &ls) == 0,
	       "a series without patch 3/4 loads")) {
		is_int(ls.s.nr, 2, "as far as it goes: patches 1 and 2");
		is_int(ls.s.patches[1].index, 2, "the second is patch 2");
		is_int(ls.s.total, 4, "of 4");
		is_str(ls.partial, "patch(es) 3/4 never arrived; measured: "
		       "patches 1-2 of 4", "and it says so");
	}
	loaded_series_release(&ls);
	id = without_patch(db, 1);
	ok(id > 0, "patch 1/4 left out: the thread is stored");
	ok(id > 0 && ingest_load_stored(db, id, &ls) < 0,
	   "without patch 1 there is nothing to apply: an error");
	loaded_series_release(&ls);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-ingest-stored.XXXXXX", *dir, *path;
	char *fetch;
	struct db db;

	log_verbosity = 0;
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database"))
		return done_testing();
	/* the mboxes where fetches keep threads: all root reads of a row */
	setenv("MMCI_DATA", dir, 1);
	fetch = xstrfmt("%s/fetch", dir);
	mkdir_p(fetch, 0755);
	one(&db, fetch, "tests/fixtures/mbox/memmap-pageblock-v2-v3-reroll.mbox",
	    1);
	one(&db, fetch, "kernel-patches/examples/memmap-slow.mbox", 0);
	row(&db, fetch);
	partial(&db);
	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	free(fetch);
	return done_testing();
}
