// SPDX-License-Identifier: GPL-2.0
/*
 * mmci.c - the mmci binary: git-style subcommands.
 *
 * Every stage of the pipeline is a command a user can run by hand; the
 * daemon only schedules them.
 */
#include <git2.h>
#include <libvirt/libvirt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "interrupt.h"
#include "priv.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd commands[] = {
	{ "init", cmd_init, "create the database and import the default tree" },
	{ "ingest", cmd_ingest,
	  "find work: ingest tree | discover | series MSGID | FILE" },
	{ "apply", cmd_apply, "apply a series on a base commit (libgit2)" },
	{ "build", cmd_build, "build a kernel (cached by tree, config, compiler)" },
	{ "run", cmd_run, "boot a kernel and time the workloads" },
	{ "compare", cmd_compare, "compare two runs, metric by metric" },
	{ "reproduce", cmd_reproduce,
	  "run a stored run again: same kernel, VM, workloads; compare" },
	{ "bundle", cmd_bundle,
	  "a run as one file, for 'mmci reproduce --bundle' elsewhere" },
	{ "test-series", cmd_test_series,
	  "build, run and compare base vs base+series" },
	{ "daemon", cmd_daemon,
	  "the service: poll, run jobs, mail reports, serve the pages" },
	{ "nightly", cmd_nightly,
	  "measure a new head of the tree against the previous one" },
	{ "bisect", cmd_bisect,
	  "find the first commit of GOOD..BAD that moved a metric" },
	{ "bench", cmd_bench,
	  "measure which noise setting gives the least spread" },
	{ "workloads", cmd_workloads, "list the workloads and their metrics" },
	{ "recipe", cmd_recipe,
	  "list the authors' experiments; run one beside their numbers" },
	{ "hosts", cmd_hosts, "this host's set-up and KVM verdicts; --forget" },
	{ "show", cmd_show, "list runs, builds and series; show one" },
	{ "report", cmd_report, "write (and send) the report mail of two runs" },
	{ "web", cmd_web, "serve the result pages over HTTP (read-only)" },
	{ "history", cmd_history, "a metric over time: steps and drift" },
	{ "profile", cmd_profile,
	  "count each kernel function's instructions; diff two runs" },
	{ "export", cmd_export,
	  "builds and results as KCIDB JSON, for KernelCI" },
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: mmci [-v|-q] <command> [<args>]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\n'mmci <command> --help' describes a command.\n"
		    "environment: MMCI_DB (default ./mmci.db), MMCI_DATA "
		    "(./var), MMCI_TREE (./var/linux), MMCI_ACCEL (kvm|tcg)\n");
}

void setup_command(struct mmci_config *cfg, struct db *db)
{
	config_load(cfg);
	if (db_open(db, cfg->db_path) < 0)
		die("cannot use the database '%s'", cfg->db_path);
}

int main(int argc, char **argv)
{
	size_t i;

	/* 0, 1 or 2; anything else die()s, naming it (config.c) */
	log_verbosity = config_number("MMCI_VERBOSE");
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v"))
			log_verbosity = 2;
		else if (!strcmp(argv[1], "-q"))
			log_verbosity = 0;
		else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		} else {
			error("unknown option '%s'", argv[1]);
			usage(stderr);
			return 129;
		}
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return 129;
	}
	git_libgit2_init();
	priv_init();
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int ret = commands[i].fn(argc - 1, argv + 1);

			git_libgit2_shutdown();
			/* a command stopped by SIGTERM dies of it now */
			interrupt_exit();
			return ret;
		}
	}
	error("'%s' is not an mmci command", argv[1]);
	usage(stderr);
	return 129;
}
