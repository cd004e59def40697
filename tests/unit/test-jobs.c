// SPDX-License-Identifier: GPL-2.0
/*
 * test-jobs: on a real SQLite file, job_queue() writes the one kind of
 * queued row the daemon starts, and job_queue_series() gives a series one
 * job however many processes queue it at once. Forks a few processes;
 * well under a second. Its files are in tests/trash.test-jobs.XXXXXX,
 * removed when every case passed.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "db.h"
#include "fsutil.h"
#include "job.h"
#include "util.h"

#define NR_PROCS 8

static void test_queue(struct db *db)
{
	long long id;
	int queued = -1;

	id = job_queue(db, "bisect", 0, 0, "v6.1..v6.2", "{\"metric\":\"m\"}");
	ok(id > 0, "job_queue: an id");
	is_int(db_int(db, 0, "SELECT count(*) FROM jobs WHERE id = ? AND "
		      "kind = 'bisect' AND status = 'queued' AND series_id "
		      "IS NULL AND head_id IS NULL AND series_ref = "
		      "'v6.1..v6.2' AND params = '{\"metric\":\"m\"}' AND "
		      "created_at > 0 AND attempts = 0 AND owner IS NULL", "i",
		      id), 1, "job_queue: a queued row with what was given");

	id = job_queue_series(db, 1, NULL, &queued);
	ok(id > 0 && queued == 1, "job_queue_series: a new job");
	is_int(db_int(db, 0, "SELECT count(*) FROM jobs WHERE id = ? AND "
		      "kind = 'series' AND series_id = 1 AND status = "
		      "'queued' AND series_ref IS NULL", "i", id), 1,
	       "job_queue_series: a queued series job");
	is_int(job_queue_series(db, 1, NULL, &queued), id,
	       "job_queue_series again: the same job");
	is_int(queued, 0, "job_queue_series again: none queued");

	is_int(job_queue(db, "nightly", 0, 999, NULL, NULL), -1,
	       "job_queue: a head that is not there: -1");
	is_str(last_error(), "cannot queue a nightly job",
	       "job_queue: the error names the job");
	is_int(db_int(db, -1, "SELECT count(*) FROM jobs WHERE kind = "
		      "'nightly'", ""), 0, "job_queue: nothing written then");
}

/* NR_PROCS processes queue series 2 at once: one job */
static void test_race(const char *path)
{
	pid_t pids[NR_PROCS];
	int fd[2], i, bad = 0, queued = 0;
	struct db db;

	if (!ok(pipe(fd) == 0, "a pipe"))
		return;
	for (i = 0; i < NR_PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct db cdb;
			int q = 0;
			char c;

			close(fd[1]);
			if (db_open(&cdb, path) < 0)
				_exit(3);
			if (read(fd[0], &c, 1) != 1)
				_exit(4);
			if (job_queue_series(&cdb, 2, NULL, &q) < 0)
				_exit(2);
			db_close(&cdb);
			_exit(q ? 0 : 1);
		}
	}
	close(fd[0]);
	/* every child opened its database meanwhile, or waits to read */
	usleep(200 * 1000);
	for (i = 0; i < NR_PROCS; i++)
		if (write(fd[1], "g", 1) != 1)
			bad++;
	close(fd[1]);
	for (i = 0; i < NR_PROCS; i++) {
		int status;

		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) > 1)
			bad++;
		else if (!WEXITSTATUS(status))
			queued++;
	}
	is_int(bad, 0, "every process got the series' job");
	is_int(queued, 1, "exactly one of them queued it");
	if (db_open(&db, path) < 0)
		return;
	is_int(db_int(&db, -1, "SELECT count(*) FROM jobs WHERE kind = "
		      "'series' AND series_id = 2", ""), 1,
	       "one job for the series in the database");
	db_close(&db);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-jobs.XXXXXX", *dir, *path;
	struct db db;

	/* from the top of the tree (make check), else where it runs */
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory for the database"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database") ||
	    !ok(db_run(&db, "INSERT INTO series (id, title, total, source, "
		       "source_sha1, ingested_at) VALUES (1, 'a', 1, 's1', "
		       "'h1', 0), (2, 'b', 1, 's2', 'h2', 0)", "") == 0,
		"two series"))
		return done_testing();
	test_queue(&db);
	db_close(&db);
	test_race(path);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	return done_testing();
}
