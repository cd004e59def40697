// SPDX-License-Identifier: GPL-2.0
/*
 * job.c - rows of the jobs table for the commands and the daemon.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "job.h"
#include "run.h"
#include "util.h"

/* "host:pid" of @pid on this host; caller frees */
static char *owner_of(pid_t pid)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	return xstrfmt("%s:%ld", host, (long)pid);
}

char *job_owner(void)
{
	return owner_of(getpid());
}

int job_claim(struct db *db, long long id)
{
	char *me = job_owner();
	int rc;

	rc = db_run(db, "UPDATE jobs SET status = 'running', owner = ?, "
		    "started_at = ? WHERE id = ? AND status = 'queued'", "tdi",
		    me, (double)time(NULL), id);
	free(me);
	if (rc < 0)
		return -1;
	return db_changes(db) == 1;
}

/* why queued job @id could not be taken over: who has it */
static long long not_queued(struct db *db, long long id)
{
	sqlite3_stmt *st = db_query(db, "SELECT status, coalesce(owner, "
				    "'nobody') FROM jobs WHERE id = ?", "i",
				    id);
	int rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW)
		error("job #%lld is not queued: it is %s (owner %s)", id,
		      db_col_text(st, 0), db_col_text(st, 1));
	else if (rc == DB_DONE)
		error("no job #%lld", id);
	sqlite3_finalize(st);
	return -1;
}

long long job_queue(struct db *db, const char *kind, long long series_id,
		    long long head_id, const char *ref, const char *params)
{
	if (db_run(db, "INSERT INTO jobs (kind, series_id, head_id, "
		   "series_ref, params, status, created_at) VALUES (?, ?, ?, "
		   "?, ?, 'queued', ?)", "tIIttd", kind, series_id, head_id,
		   ref, params, (double)time(NULL)) < 0)
		return error("cannot queue a %s job", kind);
	return db_last_id(db);
}

long long job_queue_series(struct db *db, long long series_id,
			   const char *params, int *queued)
{
	long long id = 0;
	int rc;

	if (queued)
		*queued = 0;
	if (db_begin(db) < 0)
		return -1;
	/* a series stored twice (two sources, two mboxes): one job */
	rc = db_int_checked(db, &id, "SELECT j.id FROM series s JOIN jobs j ON "
			    "j.series_id = s.id AND j.kind = 'series' WHERE "
			    "s.id = ? OR s.message_id = (SELECT message_id "
			    "FROM series WHERE id = ?) ORDER BY j.id LIMIT 1",
			    "ii", series_id, series_id);
	if (rc == 0) {
		id = job_queue(db, "series", series_id, 0, NULL, params);
		if (queued && id > 0)
			*queued = 1;
	}
	if (rc < 0 || id < 0 || db_commit(db) < 0) {
		db_rollback(db);
		return error("no job for series #%lld", series_id);
	}
	return id;
}

long long job_start(struct db *db, long long id, const char *kind,
		    long long series_id, const char *ref, const char *params)
{
	char *me = job_owner(), *parent = owner_of(getppid());
	double now = (double)time(NULL);
	int rc;

	/*
	 * Queued job @id is taken only if it is still queued, or claimed
	 * for us by the daemon that started this process (job_claim(), the
	 * daemon as owner): one conditional write, so two processes given
	 * the same --job never both run it.
	 */
	if (id)
		rc = db_run(db, "UPDATE jobs SET status = 'running', owner = ?, "
			    "started_at = ?, ended_at = NULL, error = NULL, "
			    "attempts = attempts + 1 WHERE id = ? AND (status = "
			    "'queued' OR (status = 'running' AND owner = ?))",
			    "tdit", me, now, id, parent);
	else
		rc = db_run(db, "INSERT INTO jobs (kind, series_id, series_ref, "
			    "params, status, owner, created_at, started_at, "
			    "attempts) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, "
			    "1)", "tItttdd", kind, series_id, ref, params, me,
			    now, now);
	free(me);
	free(parent);
	if (rc < 0)
		return -1;
	if (id && db_changes(db) != 1)
		return not_queued(db, id);
	return id ? id : db_last_id(db);
}

int job_mark_reported(struct db *db, long long id)
{
	if (db_run(db, "UPDATE jobs SET reported_at = ? WHERE id = ? AND "
		   "reported_at IS NULL", "di", (double)time(NULL), id) < 0)
		return -1;
	return db_changes(db) == 1;
}

int job_nightly_bisect(struct db *db, long long id, long long *bisect)
{
	sqlite3_stmt *st = db_query(db, "SELECT b.id, b.status, "
		"json_extract(CASE WHEN json_valid(b.result) THEN b.result "
		"ELSE '{}' END, '$.first_bad') IS NOT NULL FROM jobs j, "
		JOB_BISECTS_OF_J " WHERE j.id = ? ORDER BY b.id", "i", id);
	int ret = 0, rc;

	*bisect = 0;
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		const char *status = db_col_text(st, 1);

		*bisect = sqlite3_column_int64(st, 0);
		if (!strcmp(status, "queued") || !strcmp(status, "running"))
			ret = 2;
		else if (ret < 2 && !strcmp(status, "done") &&
			 sqlite3_column_int(st, 2))
			ret = 1;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : ret;
}

int job_set_report_note(struct db *db, long long id, const char *note)
{
	return db_run(db, "UPDATE jobs SET report_note = ? WHERE id = ?", "ti",
		      note, id);
}

int job_end(struct db *db, long long id, int ok, const char *why,
	    const char *result)
{
	if (db_run(db, "UPDATE jobs SET status = ?, error = ?, result = "
		   "coalesce(?, result), ended_at = ? WHERE id = ?", "tttdi",
		   ok ? "done" : "failed", why, result, (double)time(NULL),
		   id) < 0)
		return error("job #%lld: its end ('%s') is not recorded; it "
			     "stays 'running' until the daemon's recovery",
			     id, ok ? "done" : "failed");
	return 0;
}

void job_fail(struct db *db, long long id, const char *why)
{
	if (job_end(db, id, 0, why, NULL) < 0)
		return;	/* said by job_end() */
}

/* is the "host:pid" owner a live process of this host? */
static int owner_alive(const char *owner)
{
	char host[256] = "";
	const char *colon = owner ? strrchr(owner, ':') : NULL;
	long pid;

	if (!colon)
		return 0;
	gethostname(host, sizeof(host) - 1);
	if ((size_t)(colon - owner) != strlen(host) ||
	    strncmp(owner, host, colon - owner))
		return 1;	/* another host's: not ours to judge */
	pid = strtol(colon + 1, NULL, 10);
	if (pid <= 0 || pid == (long)getpid())
		return 0;
	return !kill((pid_t)pid, 0) || errno == EPERM;
}

/* job @id, still 'running' for @owner, gone: 1 done, 0 not (it moved on) */
static int recover_one(struct db *db, long long id, const char *owner,
		       long long attempts)
{
	char *why = xstrfmt("interrupted: the process running job #%lld "
			    "ended before it (attempt %lld)", id, attempts);
	double now = (double)time(NULL);
	int requeue = attempts < JOB_MAX_ATTEMPTS, ret = -1;

	if (db_begin(db) < 0)
		goto out;
	/* only as it was read: not a job another process took meanwhile */
	if (db_run(db, "UPDATE jobs SET status = ?, error = ?, owner = NULL, "
		   "ended_at = ? WHERE id = ? AND status = 'running' AND "
		   "owner IS ?", "ttIit", requeue ? "queued" : "failed", why,
		   requeue ? 0LL : (long long)now, id, owner) < 0) {
		db_rollback(db);
		goto out;
	}
	if (db_changes(db) != 1) {
		db_rollback(db);
		ret = 0;
		goto out;
	}
	if (run_fail_job_runs(db, id, why, now) < 0) {
		db_rollback(db);
		goto out;
	}
	if (db_commit(db) < 0)
		goto out;
	log_info("job #%lld %s: %s", id, requeue ? "queued again" : "failed",
		 why);
	ret = 1;
out:
	free(why);
	return ret;
}

int job_recover(struct db *db)
{
	sqlite3_stmt *st = db_query(db, "SELECT id, owner, attempts FROM jobs "
				    "WHERE status = 'running' ORDER BY id", "");
	long long *ids = NULL, *att = NULL;
	char **owners = NULL;
	size_t nr = 0, alloc = 0, alloc2 = 0, alloc3 = 0, i;
	int n = 0, rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		if (owner_alive((const char *)sqlite3_column_text(st, 1)))
			continue;
		ALLOC_GROW(ids, nr + 1, alloc);
		ALLOC_GROW(att, nr + 1, alloc2);
		ALLOC_GROW(owners, nr + 1, alloc3);
		ids[nr] = sqlite3_column_int64(st, 0);
		owners[nr] = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL :
			     xstrdup(db_col_text(st, 1));
		att[nr++] = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	/* the jobs read before a failed read are recovered all the same */
	for (i = 0; i < nr; i++) {
		int r = recover_one(db, ids[i], owners[i], att[i]);

		if (r < 0)
			rc = -1;
		n += r > 0;
		free(owners[i]);
	}
	free(ids);
	free(att);
	free(owners);
	return rc < 0 ? -1 : n;
}

int job_defer(struct db *db, long long id, double not_before,
	      const char *note)
{
	char *me = job_owner();
	int ret;

	ret = db_run(db, "UPDATE jobs SET status = 'queued', owner = NULL, "
		     "started_at = NULL, not_before = ?, base_note = ? WHERE "
		     "id = ? AND status = 'running' AND owner = ?", "dtit",
		     not_before, note, id, me);
	free(me);
	if (!ret && db_changes(db) != 1)
		ret = error("job #%lld is no longer ours to give back", id);
	return ret;
}

int job_set_steps(struct db *db, long long id, const struct job_step *s,
		  size_t nr)
{
	size_t i;

	if (db_begin(db) < 0)
		return -1;
	if (db_run(db, "DELETE FROM job_steps WHERE job_id = ?", "i", id) < 0)
		goto fail;
	for (i = 0; i < nr; i++) {
		int folded = !strcmp(s[i].source, JOB_STEP_FOLDED);

		if (folded != !s[i].run_id) {
			error("job #%lld step %d: a %s step %s a run", id,
			      s[i].upto, s[i].source,
			      folded ? "cannot have" : "needs");
			goto fail;
		}
		if (db_run(db, "INSERT INTO job_steps (job_id, upto, run_id, "
			   "source, note) VALUES (?, ?, ?, ?, ?)", "iiItt", id,
			   (long long)s[i].upto, s[i].run_id, s[i].source,
			   s[i].note) < 0)
			goto fail;
	}
	if (db_commit(db) < 0)
		return -1;
	return 0;
fail:
	db_rollback(db);
	return error("job #%lld: its steps are not recorded: %s", id,
		     last_error());
}

int job_set_base_note(struct db *db, long long id, const char *note)
{
	return db_run(db, "UPDATE jobs SET base_note = ?, not_before = NULL "
		      "WHERE id = ?", "ti", note, id);
}

long long job_next_queued(struct db *db, double now)
{
	long long id = 0;

	if (db_int_checked(db, &id, "SELECT id FROM jobs WHERE status = "
			   "'queued' AND coalesce(not_before, 0) <= ? ORDER "
			   "BY id LIMIT 1", "d", now) < 0)
		return -1;
	return id;
}
