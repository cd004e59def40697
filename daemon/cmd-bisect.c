// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bisect.c - `mmci bisect GOOD BAD --metric M`: the options; the
 * stage is bisect.c.
 */
#include <getopt.h>

#include "bisect.h"
#include "builtin.h"
#include "interrupt.h"
#include "util.h"

static const char bisect_usage[] =
	"usage: mmci bisect GOOD BAD --metric M [options]\n"
	"\n"
	"Find the first commit of GOOD..BAD (first parents) that moved metric\n"
	"M, building and booting each step; say when the result is not clean\n"
	"and which patch of the list the commit is.\n"
	"\n"
	"  --metric M         metric name, as `mmci workloads` lists it\n"
	"  --workload W       its workload, when several have M (the first)\n"
	"  --variant V        the variant to follow (the one GOOD..BAD moved\n"
	"                     most)\n"
	MEASURE_USAGE
	"\n"
	"When BAD does not descend from GOOD (a rebased branch), their merge-\n"
	"base is measured first and the range starts there.\n"
	"\n"
	"Exit status: 0 found and clean, 3 found but not clean, 2 GOOD and BAD\n"
	"do not differ, 4 the merge-base of a rebased BAD moved already (an\n"
	"upstream change, no patch of the branch), 1 error.\n";
int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "workload", required_argument, NULL, 'W' },
		{ "variant", required_argument, NULL, 'V' },
		{ "job", required_argument, NULL, 'J' },
		MEASURE_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct bisect_request req = { 0 };
	struct measure_args ma;
	struct mmci_config cfg;
	struct db db;
	int c, ret;

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': req.metric = optarg; break;
		case 'W': req.workload = optarg; break;
		case 'V': req.variant = optarg; break;
		case 'J': req.job = parse_count("--job", optarg); break;
		case 'h':
			fputs(bisect_usage, stdout);
			return 0;
		default:
			if (measure_args_parse(&ma, c, optarg))
				break;
			fputs(bisect_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 2 || !req.metric) {
		fputs(bisect_usage, stderr);
		return 129;
	}
	req.workload = bisect_workload(req.workload, req.metric);
	if (!req.workload)
		return 129;
	req.good = argv[optind];
	req.bad = argv[optind + 1];
	ma.o.workloads = req.workload;
	measure_args_finish(&ma);

	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	ret = bisect_run(&cfg, &db, &ma, &req);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
