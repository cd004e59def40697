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
#include "util.h"

char *job_owner(void)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	return xstrfmt("%s:%ld", host, (long)getpid());
}

long long job_start(struct db *db, long long id, const char *kind,
		    long long series_id, const char *ref, const char *params)
{
	char *me = job_owner();
	double now = (double)time(NULL);
	int rc;

	if (id)
		rc = db_run(db, "UPDATE jobs SET status = 'running', owner = ?, "
			    "started_at = ?, ended_at = NULL, error = NULL, "
			    "attempts = attempts + 1 WHERE id = ?", "tdi", me,
			    now, id);
	else
		rc = db_run(db, "INSERT INTO jobs (kind, series_id, series_ref, "
			    "params, status, owner, created_at, started_at, "
			    "attempts) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, "
			    "1)", "tItttdd", kind, series_id, ref, params, me,
			    now, now);
	free(me);
	if (rc < 0)
		return -1;
	return id ? id : db_last_id(db);
}

int job_end(struct db *db, long long id, int ok, const char *error,
	    const char *result)
{
	return db_run(db, "UPDATE jobs SET status = ?, error = ?, result = "
		      "coalesce(?, result), ended_at = ? WHERE id = ?", "tttdi",
		      ok ? "done" : "failed", error, result,
		      (double)time(NULL), id);
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

static int recover_one(struct db *db, long long id, long long attempts)
{
	char *why = xstrfmt("interrupted: the process running job #%lld "
			    "ended before it (attempt %lld)", id, attempts);
	double now = (double)time(NULL);
	int requeue = attempts < JOB_MAX_ATTEMPTS, ret = -1;

	if (db_begin(db) < 0)
		goto out;
	if (db_run(db, "UPDATE boots SET status = 'failed', end_kind = "
		   "'interrupted', error = ? WHERE status = 'running' AND "
		   "run_id IN (SELECT id FROM runs WHERE job_id = ?)", "ti",
		   why, id) < 0 ||
	    db_run(db, "UPDATE runs SET status = 'failed', error = ?, "
		   "ended_at = ? WHERE status = 'running' AND job_id = ?",
		   "tdi", why, now, id) < 0 ||
	    db_run(db, "UPDATE jobs SET status = ?, error = ?, owner = NULL, "
		   "ended_at = ? WHERE id = ?", "ttIi",
		   requeue ? "queued" : "failed", why,
		   requeue ? 0LL : (long long)now, id) < 0) {
		db_rollback(db);
		goto out;
	}
	if (db_commit(db) < 0)
		goto out;
	log_info("job #%lld %s: %s", id, requeue ? "queued again" : "failed",
		 why);
	ret = 0;
out:
	free(why);
	return ret;
}

int job_recover(struct db *db)
{
	sqlite3_stmt *st = db_query(db, "SELECT id, owner, attempts FROM jobs "
				    "WHERE status = 'running' ORDER BY id", "");
	long long *ids = NULL, *att = NULL;
	size_t nr = 0, alloc = 0, alloc2 = 0, i;
	int n = 0;

	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (owner_alive((const char *)sqlite3_column_text(st, 1)))
			continue;
		ALLOC_GROW(ids, nr + 1, alloc);
		ALLOC_GROW(att, nr + 1, alloc2);
		ids[nr] = sqlite3_column_int64(st, 0);
		att[nr++] = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	for (i = 0; i < nr; i++)
		if (recover_one(db, ids[i], att[i]) == 0)
			n++;
	free(ids);
	free(att);
	return n;
}
