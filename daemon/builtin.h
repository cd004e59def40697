/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - one function per subcommand, each in daemon/cmd-<name>.c.
 */
#ifndef MMCI_BUILTIN_H
#define MMCI_BUILTIN_H

#include "run.h"
#include "strbuf.h"

struct db;
struct mmci_config;

int cmd_init(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_test_series(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_workloads(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_hosts(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_web(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
/* `mmci ingest tree` (cmd-ingest-tree.c), dispatched by cmd_ingest */
int cmd_ingest_tree(int argc, char **argv);

/*
 * `mmci run`'s options, parsed by run_args_parse() (cmd-run.c) for
 * cmd_run() and for the runs of a recipe (cmd-recipe.c).
 */
struct run_args {
	struct run_opts o;
	long long build_id;     /* --build, 0 none */
	int boots;              /* --boots, 1 */
	struct strbuf extra;    /* the --param words; o.extra points here */
};
void run_args_init(struct run_args *a);
void run_args_release(struct run_args *a);
/*
 * Parse @argv (argv[0] is skipped, getopt's optind must be 0 or 1) into
 * @a. Return: 0, 1 after --help printed its text, or 129 after a usage
 * error was printed; dies on a bad value, as the command line does.
 */
int run_args_parse(struct run_args *a, int argc, char **argv);

/* shared by the commands: load the config and open the database */
void setup_command(struct mmci_config *cfg, struct db *db);

#endif
