// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bench.c - `mmci bench`: its options; the work is bench.c's.
 */
#include <getopt.h>

#include "bench.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "measure.h"
#include "run.h"
#include "util.h"

static const char bench_usage[] =
	"usage: mmci bench (--build ID | --kernel PATH [--modules-root DIR]\n"
	"                  [--release REL] [--hz HZ]) [options]\n"
	"   or: mmci bench --from-runs ID,ID,... [--json] [--mdc-boots K]\n"
	"                  [--calibrate]\n"
	"\n"
	"Boot one kernel B times under each noise setting and print, for every\n"
	"metric and setting, the median, the between-boot and within-boot\n"
	"coefficients of variation and the smallest change a default\n"
	"comparison could detect; then which setting has the least spread.\n"
	"It takes the options of 'mmci run' but --clock, --backing, --vcpus,\n"
	"--pin and --label: each setting (--settings) gives those.\n"
	"\n"
	RUN_OPTIONS_USAGE("all")
	"  --boots B          boots per setting, interleaved (3)\n"
	"  --settings LIST    comma list of CLOCK[-pin][-disk][-Ncpu], CLOCK\n"
	"                     icount or wall; NVDIMM on tmpfs unless -disk\n"
	"                     (icount,wall,wall-pin,wall-disk)\n"
	"  --from-runs LIST   no boot: the table of these runs, one per setting\n"
	"                     (--run-ids is the same)\n"
	"  --mdc-boots K      boots per side for the MDC (test-series' default:\n"
	"                     icount 2, wall 6)\n"
	"  --calibrate        also the A/A calibration: false alarms and the\n"
	"                     detection of a 5 % and 10 % slowdown per\n"
	"                     threshold (default when booting; needs 2k boots)\n"
	"  --no-calibrate     not even when booting\n"
	"  --calib-boots LIST k, boots per side, to calibrate (wall 3,4,5,6;\n"
	"                     icount 2,3)\n"
	"  --calib-trials T   random splits per k and threshold (1000); the\n"
	"                     thresholds: alpha 0.05, 0.01, 0.005 times a\n"
	"                     minimal effect of 1, 2, 3 %\n"
	"  --json             machine-readable output\n";

int cmd_bench(int argc, char **argv)
{
	/* the run options (measure.h) and bench's own */
	static const struct option opts[] = {
		RUN_OPTIONS,
		{ "boots", required_argument, NULL, 'B' },
		{ "settings", required_argument, NULL, 's' },
		{ "from-runs", required_argument, NULL, 'R' },
		{ "run-ids", required_argument, NULL, 'R' },
		{ "mdc-boots", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "calibrate", no_argument, NULL, 'c' },
		{ "no-calibrate", no_argument, NULL, 'C' },
		{ "calib-boots", required_argument, NULL, 'K' },
		{ "calib-trials", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_request req = {
		.settings = "icount,wall,wall-pin,wall-disk", .calibrate = -1,
	};
	struct run_args a;
	struct mmci_config cfg;
	struct db db;
	int c, used, ret = 129;

	run_args_init(&a);
	a.o.workloads = "all";
	a.boots = 3;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		used = run_option_parse(&a.o, &a.build_id, &a.extra, c, optarg);
		if (used > 0)
			continue;
		if (used < 0)
			goto out;
		switch (c) {
		case 'B': a.boots = parse_count("--boots", optarg); break;
		case 's': req.settings = optarg; break;
		case 'R': req.from_runs = optarg; break;
		case 'M':
			req.mdc_boots = parse_count("--mdc-boots", optarg);
			if (req.mdc_boots < 2)
				die("--mdc-boots wants at least 2 (boots per "
				    "side), not '%s'", optarg);
			break;
		case 'j': req.json = 1; break;
		case 'c': req.calibrate = 1; break;
		case 'C': req.calibrate = 0; break;
		case 'K': req.calib_ks = optarg; break;
		case 'T':
			req.calib_trials = parse_count("--calib-trials",
						       optarg);
			if (!req.calib_trials)
				die("--calib-trials wants at least 1");
			break;
		case 'h':
			fputs(bench_usage, stdout);
			ret = 0;
			goto out;
		default:
			fputs(bench_usage, stderr);
			goto out;
		}
	}
	if (optind != argc ||
	    (!req.from_runs && !!a.build_id == !!a.o.kernel) ||
	    (req.from_runs && (a.build_id || a.o.kernel))) {
		error("give exactly one of --build, --kernel and --from-runs");
		fputs(bench_usage, stderr);
		goto out;
	}
	req.o = &a.o;
	req.build_id = a.build_id;
	req.boots = a.boots;
	if (bench_check(&req) < 0)
		goto out;
	setup_command(&cfg, &db);
	ret = bench_run(&cfg, &db, &req) ? 1 : 0;
	db_close(&db);
	config_release(&cfg);
out:
	run_args_release(&a);
	return ret;
}
