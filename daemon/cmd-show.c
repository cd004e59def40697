// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-show.c - `mmci show`: what the database holds.
 */
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "mbox.h"
#include "series-job.h"
#include "strbuf.h"
#include "util.h"

static const char show_usage[] =
	"usage: mmci show (runs | builds | series | jobs | run ID | series ID |\n"
	"                  job ID)\n"
	"\n"
	"List the newest runs, builds, series or jobs, or show one run: its\n"
	"provenance, boots, metrics and what the guest reported; one series:\n"
	"its patches, its other versions and mm-commits notices; or one job:\n"
	"its row, the run that stands for each step and why (measured by the\n"
	"job, or reused), the runs it made, why it was mailed or not, and its\n"
	"mails.\n";

/*
 * A stored value as text a terminal does not act on: the database is the
 * service user's, and a row may hold what no parser let through (controls,
 * escape sequences); mail_clean_text() makes each one U+FFFD.
 */
static void print_text(const char *s, int lines)
{
	struct strbuf sb = STRBUF_INIT;

	mail_clean_text(&sb, s, strlen(s), lines);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static void print_rows(struct db *db, const char *sql, long long id)
{
	sqlite3_stmt *st = id ? db_query(db, sql, "i", id) :
				db_query(db, sql, "");
	int i, n;

	if (!st)
		return;
	n = sqlite3_column_count(st);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "\t" : "", sqlite3_column_name(st, i));
	putchar('\n');
	/* a failed read is said after the rows read before it */
	while (db_step(db, st) == DB_ROW) {
		for (i = 0; i < n; i++) {
			if (i)
				putchar('\t');
			print_text(db_col_text(st, i), 0);
		}
		putchar('\n');
	}
	sqlite3_finalize(st);
}

/*
 * One row of @sql (a "SELECT * ... WHERE id = ?") as "column value"
 * lines. Return: 0, or 1 when there is no such row (said: "no @what #id")
 * or the read failed.
 */
static int print_record(struct db *db, const char *sql, const char *what,
			long long id)
{
	sqlite3_stmt *st = db_query(db, sql, "i", id);
	int i, rc;

	if (!st)
		return 1;
	rc = db_step(db, st);
	if (rc != DB_ROW) {
		sqlite3_finalize(st);
		if (rc == DB_DONE)
			error("no %s #%lld", what, id);
		return 1;
	}
	for (i = 0; i < sqlite3_column_count(st); i++) {
		printf("%-16s ", sqlite3_column_name(st, i));
		print_text(db_col_text(st, i), 1);
		putchar('\n');
	}
	sqlite3_finalize(st);
	return 0;
}

static int show_run(struct db *db, long long id)
{
	if (print_record(db, "SELECT * FROM runs WHERE id = ?", "run", id))
		return 1;
	printf("\nboots:\n");
	print_rows(db, "SELECT idx, status, end_kind, round(duration_s, 1) "
		   "AS seconds, error, console_log, host FROM boots WHERE "
		   "run_id = ? ORDER BY idx", id);
	printf("\nmetrics:\n");
	print_rows(db, "SELECT workload, variant, metric, unit, count(*) AS "
		   "n, round(min(value), 3) AS min, round(avg(value), 3) AS "
		   "mean, round(max(value), 3) AS max FROM samples WHERE "
		   "run_id = ? GROUP BY workload, variant, metric, unit ORDER "
		   "BY workload, variant, metric", id);
	printf("\nevents:\n");
	print_rows(db, "SELECT b.idx AS boot, e.workload, e.variant, e.kind, "
		   "e.iteration, e.key, e.message FROM events e LEFT JOIN "
		   "boots b ON "
		   "b.id = e.boot_id WHERE e.run_id = ? ORDER BY e.id", id);
	return 0;
}

static int show_series(struct db *db, long long id)
{
	if (print_record(db, "SELECT * FROM series WHERE id = ?", "series",
			 id))
		return 1;
	printf("\npatches:\n");
	print_rows(db, "SELECT idx, title, author, message_id, has_diff "
		   "FROM patches WHERE series_id = ? ORDER BY idx", id);
	/* older versions: follow previous_id; newer: who points here */
	printf("\nversions:\n");
	print_rows(db, "WITH RECURSIVE older(id, depth) AS (SELECT "
		   "previous_id, 1 FROM series WHERE id = ?1 AND previous_id "
		   "IS NOT NULL UNION ALL SELECT s.previous_id, o.depth + 1 "
		   "FROM series s JOIN older o ON s.id = o.id WHERE "
		   "s.previous_id IS NOT NULL AND o.depth < 50), newer(id, "
		   "depth) AS (SELECT id, 1 FROM series WHERE previous_id = ?1 "
		   "UNION ALL SELECT s.id, n.depth + 1 FROM series s JOIN "
		   "newer n ON s.previous_id = n.id WHERE n.depth < 50) "
		   "SELECT s.id, 'v' || s.version AS version, s.title, "
		   "s.previous_id, s.previous_how FROM series s WHERE s.id IN "
		   "(SELECT id FROM older UNION SELECT id FROM newer UNION "
		   "SELECT ?1) ORDER BY s.version, s.id", id);
	printf("\nnotices:\n");
	print_rows(db, "SELECT n.id, n.action, n.branch, n.filename, p.idx AS "
		   "patch, n.link_how FROM notices n LEFT JOIN patches p ON "
		   "p.id = n.patch_id WHERE n.series_id = ? ORDER BY n.id", id);
	return 0;
}

/* a finished series job's verdict and tables, from its steps */
static void show_series_job(struct db *db, long long id)
{
	struct strbuf verdict = STRBUF_INIT, out = STRBUF_INIT;
	struct series_job_outcome o;

	if (series_job_summary(db, id, &verdict, &out, &o) < 0)
		printf("\nverdict: none: %s\n", last_error());
	else
		printf("\nverdict: %s\n\n%s", verdict.buf, out.buf);
	strbuf_release(&verdict);
	strbuf_release(&out);
}

/*
 * A job: its row; the steps of a series job (the run standing for each,
 * measured here or reused, and why: job_steps); the runs it made itself;
 * its mails (those of its base and new run, job_set_report_note()'s note
 * in the row says why it was mailed or not).
 */
static int show_job(struct db *db, long long id)
{
	if (print_record(db, "SELECT id, kind, status, series_id, series_ref, "
			 "head_id, params, result, error, base_note, "
			 "report_note, attempts, owner, datetime(created_at, "
			 "'unixepoch') AS created, datetime(started_at, "
			 "'unixepoch') AS started, datetime(ended_at, "
			 "'unixepoch') AS ended, datetime(reported_at, "
			 "'unixepoch') AS reported FROM jobs WHERE id = ?",
			 "job", id))
		return 1;
	printf("\nsteps:\n");
	print_rows(db, "SELECT s.upto AS step, s.run_id AS run, s.source, "
		   "r.job_id AS run_of_job, r.status, s.note FROM job_steps s "
		   "LEFT JOIN runs r ON r.id = s.run_id WHERE s.job_id = ? "
		   "ORDER BY s.upto", id);
	if (db_int(db, 0, "SELECT kind = 'series' AND status = 'done' FROM "
		   "jobs WHERE id = ?", "i", id))
		show_series_job(db, id);
	printf("\nruns made by this job:\n");
	print_rows(db, "SELECT r.id, r.label, b.upto, r.accel, r.clock, "
		   "r.status, (SELECT count(*) FROM boots WHERE run_id = r.id "
		   "AND status = 'ok') AS ok_boots, r.error FROM runs r LEFT "
		   "JOIN builds b ON b.id = r.build_id WHERE r.job_id = ? "
		   "ORDER BY r.id", id);
	printf("\nmails:\n");
	print_rows(db, "SELECT m.id, m.status, m.subject, m.path, m.sent_at, "
		   "m.error FROM mails m JOIN jobs j ON j.id = ?1 WHERE "
		   "json_valid(j.result) AND m.base_run = json_extract("
		   "j.result, '$.base_run') AND m.new_run = json_extract("
		   "j.result, '$.new_run') ORDER BY m.id", id);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct mmci_config cfg;
	struct db db;
	int ret = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(show_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 129 : 0;
	}
	setup_command(&cfg, &db);
	if (!strcmp(argv[1], "runs"))
		print_rows(&db, "SELECT id, label, kernel_release, build_id, "
			   "workloads, accel, clock, status, error FROM runs "
			   "ORDER BY id DESC LIMIT 50", 0);
	else if (!strcmp(argv[1], "builds"))
		print_rows(&db, "SELECT id, substr(commit_id, 1, 12) AS commit_id, "
			   "series_id, upto, kernel_release, status, "
			   /* a build another database made here (build.c) */
			   "CASE WHEN status = 'ok' AND objects IS NULL AND "
			   "duration_s = 0 THEN 'taken from the cache' WHEN "
			   "status = 'ok' THEN 'built' END AS made, "
			   "round(duration_s) AS seconds, log_path, error "
			   "FROM builds ORDER BY id DESC LIMIT 50", 0);
	else if (!strcmp(argv[1], "series") && argc == 3)
		ret = show_series(&db, parse_count("ID", argv[2]));
	else if (!strcmp(argv[1], "series"))
		print_rows(&db, "SELECT id, version, total, title, author, "
			   "previous_id AS previous, source FROM series ORDER "
			   "BY id DESC LIMIT 50", 0);
	else if (!strcmp(argv[1], "run") && argc == 3)
		ret = show_run(&db, parse_count("ID", argv[2]));
	else if (!strcmp(argv[1], "job") && argc == 3)
		ret = show_job(&db, parse_count("ID", argv[2]));
	else if (!strcmp(argv[1], "jobs"))
		print_rows(&db, "SELECT id, kind, status, series_id, series_ref, "
			   "CASE WHEN json_valid(result) THEN json_extract("
			   "result, '$.verdict') END AS verdict, error FROM "
			   "jobs ORDER BY id DESC LIMIT 50", 0);
	else {
		fputs(show_usage, stderr);
		ret = 129;
	}
	db_close(&db);
	config_release(&cfg);
	return ret;
}
