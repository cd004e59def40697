// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-compare.c - `mmci compare BASE_RUN NEW_RUN`.
 */
#include <getopt.h>

#include "builtin.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "strbuf.h"
#include "util.h"

static const char compare_usage[] =
	"usage: mmci compare [--exit-code] BASE_RUN NEW_RUN\n"
	"\n"
	"For every metric of two runs: n, median, mean ± stddev on each side,\n"
	"the change in %, its 95 % confidence interval, the Mann-Whitney p\n"
	"and a verdict (better, worse, no significant change, insufficient\n"
	"data). Runs measured in different modes (accelerator, clock) are\n"
	"never compared.\n"
	"\n"
	"  --exit-code  exit 1 when a metric got worse\n";

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "exit-code", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mmci_config cfg;
	struct db db;
	struct run_comparison rc;
	struct strbuf out = STRBUF_INIT;
	int c, exit_code = 0, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			exit_code = 1;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return 0;
		default:
			fputs(compare_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 2) {
		fputs(compare_usage, stderr);
		return 129;
	}
	setup_command(&cfg, &db);
	if (compare_runs(&db, parse_count("BASE_RUN", argv[optind]),
			 parse_count("NEW_RUN", argv[optind + 1]), &rc) < 0) {
		ret = 1;
	} else {
		compare_format(&db, &rc, &out);
		fputs(out.buf, stdout);
		ret = exit_code && rc.worse ? 1 : 0;
	}
	run_comparison_release(&rc);
	strbuf_release(&out);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
