// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-build.c - `mmci build REF [--series FILE [--upto N]]` and
 * `mmci apply FILE --base REF`.
 */
#include <getopt.h>

#include "arch.h"
#include "build.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "util.h"

static const char build_usage[] =
	"usage: mmci build REF [--series FILE [--upto N]] [--config FRAG]\n"
	"                  [--arch ARCH]\n"
	"\n"
	"Build the kernel at REF of the tree (with patches 1..N of the series\n"
	"in FILE applied on top) out of tree with ccache. The result is\n"
	"cached by source tree, config fragment, arch and compiler: asking\n"
	"twice builds nothing. Prints the build id and the artifacts\n"
	"directory. --arch arm64 or arm64-64k cross-builds for an arm64\n"
	"guest (4 or 64 KiB pages; x86_64 by default).\n";

static const char apply_usage[] =
	"usage: mmci apply FILE --base REF [--upto N]\n"
	"\n"
	"Parse the series in FILE, apply patches 1..N (all by default) on REF\n"
	"with libgit2 and print the resulting commit ids, one per patch.\n";

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "series", required_argument, NULL, 's' },
		{ "upto", required_argument, NULL, 'u' },
		{ "config", required_argument, NULL, 'f' },
		{ "arch", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *series = NULL, *fragment = NULL;
	const struct arch *arch = arch_get(NULL);
	struct loaded_series ls = { 0 };
	struct build_result br = { 0 };
	struct mmci_config cfg;
	struct db db;
	git_repository *repo = NULL;
	git_oid target;
	int c, upto = 0, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': series = optarg; break;
		case 'u': upto = parse_count("--upto", optarg); break;
		case 'f': fragment = optarg; break;
		case 'A':
			arch = arch_get(optarg);
			if (!arch)
				return 129;
			break;
		case 'h':
			fputs(build_usage, stdout);
			return 0;
		default:
			fputs(build_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 1) {
		fputs(build_usage, stderr);
		return 129;
	}
	if (series && check_input_file(series, "an mbox file") < 0)
		return 1;
	if (arch_check(arch) < 0)
		return 1;
	setup_command(&cfg, &db);
	if (ingest_apply_file(&db, cfg.tree_dir, &repo, argv[optind], series, &upto, &ls,
			   &target) < 0)
		goto out;
	if (build_kernel(&cfg, &db, repo, &target, ls.id, upto, fragment,
			 arch, &br) < 0)
		goto out;
	printf("build #%lld: %s%s%s %s%s\n", br.id, br.release,
	       arch_native(arch) ? "" : " ", arch_native(arch) ? "" :
	       arch->name, br.artifacts, br.cached ? " (cached)" : "");
	ret = 0;
out:
	build_result_release(&br);
	loaded_series_release(&ls);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "upto", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *base = NULL;
	struct loaded_series ls = { 0 };
	struct mmci_config cfg;
	struct db db;
	git_repository *repo = NULL;
	git_oid target;
	int c, upto = 0, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': base = optarg; break;
		case 'u': upto = parse_count("--upto", optarg); break;
		case 'h':
			fputs(apply_usage, stdout);
			return 0;
		default:
			fputs(apply_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 1 || !base) {
		fputs(apply_usage, stderr);
		return 129;
	}
	if (check_input_file(argv[optind], "an mbox file") < 0)
		return 1;
	setup_command(&cfg, &db);
	if (ingest_apply_file(&db, cfg.tree_dir, &repo, base, argv[optind], &upto, &ls,
			   &target) < 0)
		goto out;
	printf("series #%lld: patches 1-%d applied: %s\n", ls.id, upto,
	       git_oid_tostr_s(&target));
	ret = 0;
out:
	loaded_series_release(&ls);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
