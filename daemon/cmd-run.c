// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-run.c - `mmci run`: boot one kernel B times and store the samples.
 */
#include <getopt.h>

#include "build.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "interrupt.h"
#include "measure.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

static const char run_usage[] =
	"usage: mmci run (--build ID | --kernel PATH [--modules-root DIR]\n"
	"                [--release REL] [--hz HZ]) [options]\n"
	"\n"
	"Boot a kernel in a libvirt/QEMU guest with a sparse NVDIMM and let\n"
	"the guest runner time the workloads; every sample goes to the\n"
	"database. Prints the run id.\n"
	"\n"
	RUN_OPTIONS_USAGE("fsdax")
	"  --boots B          boots of this kernel (1)\n"
	"  --clock MODE       icount (deterministic, TCG) or wall; default\n"
	"                     icount under TCG, wall under KVM\n"
	"  --backing KIND     tmpfs or disk for the NVDIMM file (auto)\n"
	"  --vcpus N          vCPUs in wall mode (2; icount always uses 1)\n"
	"  --pin, --no-pin    pin each vCPU to its own host CPU (the default\n"
	"                     in wall mode when the host has the CPUs)\n"
	"  --label TEXT       a name for the run\n";

int run_args_parse(struct run_args *a, int argc, char **argv)
{
	/* the run options (measure.h), then what `mmci bench` sets per
	 * setting and the boots */
	static const struct option opts[] = {
		RUN_OPTIONS,
		{ "boots", required_argument, NULL, 'B' },
		{ "clock", required_argument, NULL, 'c' },
		{ "backing", required_argument, NULL, 'K' },
		{ "vcpus", required_argument, NULL, 'C' },
		{ "pin", no_argument, NULL, 'X' },
		{ "no-pin", no_argument, NULL, 'Y' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, used;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		used = run_option_parse(&a->o, &a->build_id, &a->extra, c,
					optarg);
		if (used < 0)
			return 129;
		if (used)
			continue;
		switch (c) {
		case 'B': a->boots = parse_count("--boots", optarg); break;
		case 'c': a->o.clock = optarg; break;
		case 'K': a->o.backing = optarg; break;
		case 'C': a->o.vcpus = parse_count("--vcpus", optarg); break;
		case 'X': a->o.pin = 1; break;
		case 'Y': a->o.pin = 0; break;
		case 'l': a->o.label = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			return 1;
		default:
			fputs(run_usage, stderr);
			return 129;
		}
	}
	if (optind != argc) {
		error("unexpected argument '%s'", argv[optind]);
		fputs(run_usage, stderr);
		return 129;
	}
	if (a->o.backing && strcmp(a->o.backing, "tmpfs") &&
	    strcmp(a->o.backing, "disk"))
		die("--backing is tmpfs or disk, not '%s'", a->o.backing);
	return 0;
}

void run_args_init(struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	run_opts_init(&a->o);
	a->o.modroot = "/";
	a->boots = 1;
	strbuf_init(&a->extra, 0);
}

void run_args_release(struct run_args *a)
{
	strbuf_release(&a->extra);
}

int cmd_run(int argc, char **argv)
{
	struct build_result keep = { 0 };
	struct run_args a;
	struct mmci_config cfg;
	struct db db;
	long long run_id = 0;
	char *release = NULL;
	int ret;

	run_args_init(&a);
	ret = run_args_parse(&a, argc, argv);
	if (ret) {
		run_args_release(&a);
		return ret == 1 ? 0 : ret;
	}
	if (!!a.build_id == !!a.o.kernel) {
		error("give exactly one of --build and --kernel");
		fputs(run_usage, stderr);
		run_args_release(&a);
		return 129;
	}
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the run and its boot on SIGTERM */
	if (run_opts_kernel(&db, a.build_id, &a.o, &keep, &release) < 0)
		die("cannot run that kernel");
	ret = run_boots(&cfg, &db, &a.o, a.boots, &run_id) ? 1 : 0;
	if (run_id)
		printf("run #%lld: %s\n", run_id, ret ? "failed" : "ok");
	build_result_release(&keep);
	run_args_release(&a);
	free(release);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
