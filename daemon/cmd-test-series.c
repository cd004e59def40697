// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-test-series.c - `mmci test-series FILE --base REF`: the options of
 * the main job; the stage is series-job.c.
 */
#include <getopt.h>

#include "builtin.h"
#include "fsutil.h"
#include "interrupt.h"
#include "series-job.h"
#include "util.h"

static const char test_series_usage[] =
	"usage: mmci test-series (FILE | --series ID) --base REF [options]\n"
	"\n"
	"Apply the patch series in FILE (an mbox, as git format-patch writes\n"
	"it) on REF of the tree, build the base and the patched kernel, boot\n"
	"each with a sparse NVDIMM, time the workloads, store everything and\n"
	"print the comparison with a verdict.\n"
	"\n"
	"  --base REF         base commit, tag or branch of the tree (required)\n"
	"  --series ID        a stored series (ingest discover, ingest series)\n"
	"  --job ID           run queued job ID (the daemon does this)\n"
	"  --per-patch        also build and run base+1 .. base+N-1: each\n"
	"                     patch's own and cumulative effect\n"
	"  --steps MODE       which steps: all (--per-patch); auto (every\n"
	"                     step up to 8 patches, above that under icount\n"
	"                     the steps where something moved, found by\n"
	"                     bisection; the daemon's); bisect (always so)\n"
	MEASURE_USAGE
	"  --remeasure        boot the base even when an icount run of the\n"
	"                     same build, parameters and set-up exists\n"
	"  --exit-code        exit 1 when a metric got worse\n";

int cmd_test_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		MEASURE_OPTIONS,
		{ "per-patch", no_argument, NULL, 'P' },
		{ "steps", required_argument, NULL, 's' },
		{ "remeasure", no_argument, NULL, 'R' },
		{ "job", required_argument, NULL, 'J' },
		{ "series", required_argument, NULL, 'S' },
		{ "exit-code", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct series_job_request req = { 0 };
	struct measure_args ma;
	struct mmci_config cfg;
	struct db db;
	int c, exit_code = 0, worse, ret;

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': req.base = optarg; break;
		case 'P': req.per_patch = 1; break;
		case 's':
			req.per_patch = 1;
			if (!strcmp(optarg, "all"))
				req.bisect_over = 0;
			else if (!strcmp(optarg, "auto"))
				req.bisect_over = SERIES_JOB_BISECT_OVER;
			else if (!strcmp(optarg, "bisect"))
				req.bisect_over = 1;
			else
				die("--steps is all, auto or bisect, not "
				    "'%s'", optarg);
			break;
		case 'R': req.remeasure = 1; break;
		case 'J': req.job = parse_count("--job", optarg); break;
		case 'S': req.series_id = parse_count("--series", optarg); break;
		case 'e': exit_code = 1; break;
		case 'h':
			fputs(test_series_usage, stdout);
			return 0;
		default:
			if (measure_args_parse(&ma, c, optarg))
				break;
			fputs(test_series_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != !req.series_id || !req.base) {
		fputs(test_series_usage, stderr);
		return 129;
	}
	measure_args_finish(&ma);
	if (!req.series_id) {
		req.file = argv[optind];
		if (check_input_file(req.file, "an mbox file") < 0)
			return 1;
	}
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	if (series_job_run(&cfg, &db, &ma, &req, &worse) < 0)
		ret = 1;
	else
		ret = exit_code && worse ? 1 : 0;
	db_close(&db);
	config_release(&cfg);
	return ret;
}
