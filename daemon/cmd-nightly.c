// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-nightly.c - `mmci nightly`: its options; the work is nightly.c's.
 *
 * `mmci ingest tree` queues a 'nightly' job for every branch that moved;
 * the daemon runs it as `mmci nightly --job ID`.
 */
#include <getopt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "interrupt.h"
#include "measure.h"
#include "nightly.h"
#include "util.h"

static const char nightly_usage[] =
	"usage: mmci nightly (--job ID | REF [--previous REF]) [options]\n"
	"\n"
	"Build and boot a head of the tree and the head measured before it\n"
	"(the newest finished nightly of the same branch, or --previous),\n"
	"compare them and, when metrics got worse, queue a bisect job for the\n"
	"range on the largest regression.\n"
	"\n"
	"  --job ID           run queued nightly job ID (the daemon does this)\n"
	"  --previous REF     compare with REF instead\n"
	"  --no-bisect        do not queue bisect jobs\n"
	MEASURE_USAGE;

int cmd_nightly(int argc, char **argv)
{
	static const struct option opts[] = {
		MEASURE_OPTIONS,
		{ "job", required_argument, NULL, 'J' },
		{ "previous", required_argument, NULL, 'P' },
		{ "no-bisect", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct nightly_request req = { .bisect = 1 };
	struct measure_args ma;
	struct mmci_config cfg;
	struct db db;
	int c, ret;

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'J': req.job = parse_count("--job", optarg); break;
		case 'P': req.previous = optarg; break;
		case 'N': req.bisect = 0; break;
		case 'h':
			fputs(nightly_usage, stdout);
			return 0;
		default:
			if (measure_args_parse(&ma, c, optarg))
				break;
			fputs(nightly_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != !req.job) {
		fputs(nightly_usage, stderr);
		return 129;
	}
	if (!req.job)
		req.ref = argv[optind];
	measure_args_finish(&ma);
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	ret = nightly_run(&cfg, &db, &ma, &req) < 0 ? 1 : 0;
	db_close(&db);
	config_release(&cfg);
	return ret;
}
