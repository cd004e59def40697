// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-profile.c - `mmci profile RUN [BASE-RUN]`: profile a run's set-up
 * (profile.h) and, given a second run, print which functions moved.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "profile.h"
#include "strbuf.h"
#include "util.h"

static const char profile_usage[] =
	"usage: mmci profile [--workload W] [--variant V] [--lines N] RUN "
	"[BASE-RUN]\n"
	"\n"
	"Boot RUN's kernel and set-up once more, under TCG with icount and\n"
	"QEMU's counting plugin, and store how many guest instructions each\n"
	"kernel function executed inside the runner's timed writes (a stored\n"
	"profile of the run is used again). With BASE-RUN, profile it too and\n"
	"print the functions whose counts moved most, per timed write: under\n"
	"icount one instruction is one nanosecond of the guest's clock.\n"
	"\n"
	"  --workload W  the workload to compare (default: the first profiled)\n"
	"  --variant V   only this variant (default: all of the workload's)\n"
	"  --lines N     at most N functions (default 10)\n";

static char *first_workload(struct db *db, long long pid)
{
	sqlite3_stmt *st = db_query(db, "SELECT workload FROM profile_windows "
				    "WHERE profile_id = ? ORDER BY workload "
				    "LIMIT 1", "i", pid);
	char *w = NULL;

	if (st && db_step(db, st) == DB_ROW)
		w = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	return w;
}

static void print_profile(struct db *db, long long pid)
{
	sqlite3_stmt *st = db_query(db, "SELECT workload, variant, windows, "
				    "insns FROM profile_windows WHERE "
				    "profile_id = ? ORDER BY workload, variant",
				    "i", pid);

	while (st && db_step(db, st) == DB_ROW)
		printf("profile #%lld: %s%s%s: %lld timed writes, %lld "
		       "instructions\n", pid, db_col_text(st, 0),
		       *db_col_text(st, 1) ? " " : "", db_col_text(st, 1),
		       (long long)sqlite3_column_int64(st, 2),
		       (long long)sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
}

int cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "variant", required_argument, NULL, 'V' },
		{ "lines", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *variant = NULL;
	char *workload = NULL;
	struct mmci_config cfg;
	struct profile_diff d;
	struct strbuf out = STRBUF_INIT;
	long long run, base = 0, pid, base_pid;
	long long lines = 10;
	int c, ret = 1, rc;
	struct db db;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			free(workload);
			workload = xstrdup(optarg);
			break;
		case 'V':
			variant = optarg;
			break;
		case 'n':
			lines = parse_count("--lines", optarg);
			break;
		case 'h':
			fputs(profile_usage, stdout);
			return 0;
		default:
			fputs(profile_usage, stderr);
			return 129;
		}
	}
	if (optind == argc || argc - optind > 2) {
		fputs(profile_usage, stderr);
		return 129;
	}
	run = parse_count("RUN", argv[optind]);
	if (argc - optind == 2)
		base = parse_count("BASE-RUN", argv[optind + 1]);
	setup_command(&cfg, &db);
	pid = profile_run(&cfg, &db, run);
	if (pid < 0)
		goto out;
	print_profile(&db, pid);
	if (!base) {
		ret = 0;
		goto out;
	}
	base_pid = profile_run(&cfg, &db, base);
	if (base_pid < 0)
		goto out;
	print_profile(&db, base_pid);
	if (!workload)
		workload = first_workload(&db, pid);
	if (!workload) {
		error("profile #%lld has no window", pid);
		goto out;
	}
	rc = profile_diff(&db, base_pid, pid, workload, variant, &d);
	if (rc < 0)
		goto out;
	if (rc > 0) {
		error("the two profiles do not both have windows of '%s'",
		      workload);
		goto out;
	}
	printf("%s%s%s: run #%lld against run #%lld, per timed write: "
	       "%+.0f instructions (%.0f -> %.0f)\n", workload,
	       variant ? " " : "", variant ? variant : "", run, base,
	       profile_diff_total(&d),
	       (double)d.base_insns / d.base_windows,
	       (double)d.cand_insns / d.cand_windows);
	profile_diff_format(&d, (int)lines, 0.01,
			    variant ? profile_wall_change_ns(&db, base, run,
							     workload, variant)
				    : 0, &out);
	fputs(out.len ? out.buf : "  no function moved\n", stdout);
	profile_diff_release(&d);
	ret = 0;
out:
	strbuf_release(&out);
	free(workload);
	db_close(&db);
	return ret;
}
