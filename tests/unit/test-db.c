// SPDX-License-Identifier: GPL-2.0
/*
 * test-db: on a real SQLite file, db_step() tells the end of the rows from
 * an error, db_int() says a failure and db_int_checked() returns it, and
 * of several processes that claim one job (job_claim(), job_start() with
 * --job) or mark one job reported, exactly one wins. Forks a few
 * processes; well under a second. Its files are in
 * tests/trash.test-db.XXXXXX, removed when every case passed.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "db.h"
#include "fsutil.h"
#include "job.h"
#include "util.h"

#define NR_PROCS 8

/* the third row fails at run time: abs() of the smallest integer */
#define FAILING "SELECT CASE WHEN x < 3 THEN x ELSE " \
	"abs(-9223372036854775807 - 1) END FROM t ORDER BY x"
#define FAILING_SUM "SELECT sum(CASE WHEN x < 3 THEN x ELSE " \
	"abs(-9223372036854775807 - 1) END) FROM t"

static void test_step(struct db *db)
{
	sqlite3_stmt *st;
	long long v = 7;
	int rc, n = 0;

	ok(db_run(db, "CREATE TABLE t (x INTEGER PRIMARY KEY)", "") == 0 &&
	   db_run(db, "INSERT INTO t VALUES (1), (2), (3), (4), (5)", "") == 0,
	   "a table of five rows");
	st = db_query(db, FAILING, "");
	while (st && (rc = db_step(db, st)) == DB_ROW)
		n++;
	sqlite3_finalize(st);
	is_int(n, 2, "db_step: the two rows before the failing one");
	is_int(rc, -1, "db_step: then an error, not the end of the rows");
	ok(strstr(last_error(), "integer overflow") != NULL,
	   "db_step: the error says what failed");

	n = 0;
	st = db_query(db, "SELECT x FROM t WHERE x > 3", "");
	while (st && (rc = db_step(db, st)) == DB_ROW)
		n++;
	sqlite3_finalize(st);
	ok(n == 2 && rc == DB_DONE, "db_step: two rows, then DB_DONE");

	is_int(db_int(db, 42, FAILING_SUM, ""), 42,
	       "db_int: the default after an error");
	ok(strstr(last_error(), "sum(CASE") &&
	   strstr(last_error(), "integer overflow"),
	   "db_int: the error is said");
	is_int(db_int_checked(db, &v, FAILING_SUM, ""),
	       -1, "db_int_checked: -1 after an error");
	is_int(db_int_checked(db, &v, "SELECT x FROM t WHERE x = 9", ""), 0,
	       "db_int_checked: 0 for no row");
	is_int(db_int_checked(db, &v, "SELECT NULL", ""), 0,
	       "db_int_checked: 0 for NULL");
	is_int(v, 7, "db_int_checked: the value untouched by all three");
	is_int(db_int_checked(db, &v, "SELECT max(x) FROM t", ""), 1,
	       "db_int_checked: 1 for a value");
	is_int(v, 5, "db_int_checked: the value");
}

enum what { CLAIM, START, REPORTED, CLAIM_THEN_CHILD_STARTS };

/* in a child: wait for the start signal, then try; exit 0 won, 1 lost */
static void contend(const char *path, enum what what, long long id, int go)
{
	struct db db;
	pid_t pid;
	char c;
	int r = -1, status;

	if (db_open(&db, path) < 0)
		_exit(3);
	if (read(go, &c, 1) != 1)
		_exit(4);
	switch (what) {
	case CLAIM:
		r = job_claim(&db, id);
		break;
	case START:
		r = job_start(&db, id, "series", 0, NULL, NULL) == id ? 1 : 0;
		break;
	case REPORTED:
		r = job_mark_reported(&db, id);
		break;
	case CLAIM_THEN_CHILD_STARTS:
		/* a job this process claimed is its child's to start */
		if (job_claim(&db, id) != 1)
			_exit(1);
		pid = fork();
		if (pid == 0) {
			struct db cdb;

			if (db_open(&cdb, path) < 0)
				_exit(3);
			_exit(job_start(&cdb, id, "series", 0, NULL, NULL) ==
			      id ? 0 : 1);
		}
		r = pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && !WEXITSTATUS(status);
		break;
	}
	db_close(&db);
	_exit(r == 1 ? 0 : r == 0 ? 1 : 2);
}

/* NR_PROCS processes try at once; the number that won, or -1 */
static int race(const char *path, enum what what, long long id,
		pid_t *winner)
{
	pid_t pids[NR_PROCS];
	int fd[2], i, won = 0, bad = 0;

	if (pipe(fd) < 0)
		return -1;
	for (i = 0; i < NR_PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(fd[1]);
			contend(path, what, id, fd[0]);
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
		    !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
			bad++;
			continue;
		}
		if (!WEXITSTATUS(status)) {
			won++;
			*winner = pids[i];
		}
	}
	return bad ? -1 : won;
}

static long long queue_job(struct db *db)
{
	if (db_run(db, "INSERT INTO jobs (kind, status, created_at) VALUES "
		   "('series', 'queued', 0)", "") < 0)
		return -1;
	return db_last_id(db);
}

static char *job_text(struct db *db, const char *col, long long id)
{
	char *sql = xstrfmt("SELECT coalesce(%s, '') FROM jobs WHERE id = ?",
			    col);
	sqlite3_stmt *st = db_query(db, sql, "i", id);
	char *v = NULL;

	if (st && db_step(db, st) == DB_ROW)
		v = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	free(sql);
	return v ? v : xstrdup("?");
}

static void test_claims(struct db *db, const char *path)
{
	pid_t winner = 0;
	char *owner, *want, *s;
	long long id;

	id = queue_job(db);
	is_int(race(path, CLAIM, id, &winner), 1,
	       "job_claim: of 8 processes at once, exactly one wins");
	owner = job_text(db, "owner", id);
	s = job_text(db, "status", id);
	want = xstrfmt(":%ld", (long)winner);
	ok(!strcmp(s, "running") && ends_with(owner, want),
	   "job_claim: the job runs, owned by the winner");
	free(owner);
	free(want);
	free(s);
	is_int(job_claim(db, id), 0, "job_claim: a running job is not taken");

	id = queue_job(db);
	is_int(race(path, START, id, &winner), 1,
	       "job_start --job: of 8 processes at once, exactly one runs it");
	is_int(db_int(db, -1, "SELECT attempts FROM jobs WHERE id = ?", "i",
		      id), 1, "job_start --job: one attempt counted");
	is_int(job_start(db, id, "series", 0, NULL, NULL), -1,
	       "job_start --job: a job another process runs is refused");
	ok(strstr(last_error(), "is not queued: it is running (owner ") !=
	   NULL, "job_start --job: the error names its status and owner");

	id = queue_job(db);
	is_int(race(path, CLAIM_THEN_CHILD_STARTS, id, &winner), 1,
	       "a claimed job: the claimer's child starts it, no one else");
	is_int(db_int(db, -1, "SELECT attempts FROM jobs WHERE id = ?", "i",
		      id), 1, "a claimed job: one attempt counted");

	id = queue_job(db);
	ok(db_run(db, "UPDATE jobs SET status = 'done' WHERE id = ?", "i",
		  id) == 0, "a finished job");
	is_int(race(path, REPORTED, id, &winner), 1,
	       "job_mark_reported: of 8 processes at once, exactly one marks");
	is_int(job_mark_reported(db, id), 0,
	       "job_mark_reported: a reported job is not marked again");
}

int main(void)
{
	char tmpl[] = "tests/trash.test-db.XXXXXX", *dir, *path;
	struct db db;

	/* from the top of the tree (make check), else where it runs */
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory for the database"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database"))
		return done_testing();
	test_step(&db);
	test_claims(&db, path);
	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	return done_testing();
}
