// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-show.c - `mmci show`: what the database holds.
 */
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "util.h"

static const char show_usage[] =
	"usage: mmci show (runs | builds | series | run ID | series ID)\n"
	"\n"
	"List the newest runs, builds or series, or show one run: its\n"
	"provenance, boots, metrics and what the guest reported; or one\n"
	"series: its patches, its other versions and mm-commits notices.\n";

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
		for (i = 0; i < n; i++)
			printf("%s%s", i ? "\t" : "", db_col_text(st, i));
		putchar('\n');
	}
	sqlite3_finalize(st);
}

static int show_run(struct db *db, long long id)
{
	sqlite3_stmt *st = db_query(db, "SELECT * FROM runs WHERE id = ?", "i",
				    id);
	int i, rc;

	if (!st)
		return 1;
	rc = db_step(db, st);
	if (rc != DB_ROW) {
		sqlite3_finalize(st);
		if (rc == DB_DONE)
			error("no run #%lld", id);
		return 1;
	}
	for (i = 0; i < sqlite3_column_count(st); i++)
		printf("%-16s %s\n", sqlite3_column_name(st, i),
		       db_col_text(st, i));
	sqlite3_finalize(st);
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
	sqlite3_stmt *st = db_query(db, "SELECT * FROM series WHERE id = ?",
				    "i", id);
	int i, rc;

	if (!st)
		return 1;
	rc = db_step(db, st);
	if (rc != DB_ROW) {
		sqlite3_finalize(st);
		if (rc == DB_DONE)
			error("no series #%lld", id);
		return 1;
	}
	for (i = 0; i < sqlite3_column_count(st); i++)
		printf("%-16s %s\n", sqlite3_column_name(st, i),
		       db_col_text(st, i));
	sqlite3_finalize(st);
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
	else {
		fputs(show_usage, stderr);
		ret = 129;
	}
	db_close(&db);
	config_release(&cfg);
	return ret;
}
