// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-test-series.c - `mmci test-series FILE --base REF`: the main job.
 *
 * ingest -> apply -> build base and base+series -> boot both, interleaved
 * (base, new, base, new: host drift hits both alike) -> store -> compare.
 */
#include <getopt.h>

#include "build.h"
#include "builtin.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "ingest.h"
#include "kvm-probe.h"
#include "run.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

static const char test_series_usage[] =
	"usage: mmci test-series FILE --base REF [options]\n"
	"\n"
	"Apply the patch series in FILE (an mbox, as git format-patch writes\n"
	"it) on REF of the tree, build the base and the patched kernel, boot\n"
	"each with a sparse NVDIMM, time the workloads, store everything and\n"
	"print the comparison with a verdict.\n"
	"\n"
	"  --base REF         base commit, tag or branch of the tree (required)\n"
	"  --config FRAG      kernel config fragment\n"
	"                     (kernel-patches/config/mmci.config)\n"
	"  --workloads LIST   comma list or 'all' (fsdax)\n"
	"  --map LIST         memmap on the device and/or in RAM (dev)\n"
	"  --align LIST       fsdax and devdax alignments (2M)\n"
	"  --iters N          rebinds per boot (30)\n"
	"  --nvdimm SIZE      namespace size (100G)\n"
	"  --boots B          boots per kernel, interleaved (icount: 2, wall: 5)\n"
	"  --clock MODE       icount or wall (icount under TCG, wall under KVM)\n"
	"  --backing KIND     tmpfs or disk (auto)\n"
	"  --timeout S        per boot\n"
	"  --exit-code        exit 1 when a metric got worse\n";

static void use_build(struct run_opts *o, const struct build_result *b,
		      const char *label)
{
	o->label = label;
	o->build_id = b->id;
	o->kernel = b->bzimage;
	o->modroot = b->modroot;
	o->release = b->release;
	o->hz = b->hz;
}

int cmd_test_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "config", required_argument, NULL, 'f' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "map", required_argument, NULL, 'p' },
		{ "align", required_argument, NULL, 'a' },
		{ "iters", required_argument, NULL, 'i' },
		{ "nvdimm", required_argument, NULL, 'n' },
		{ "boots", required_argument, NULL, 'B' },
		{ "clock", required_argument, NULL, 'c' },
		{ "backing", required_argument, NULL, 'K' },
		{ "timeout", required_argument, NULL, 't' },
		{ "exit-code", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *base_ref = NULL, *fragment = NULL;
	struct run_opts o;
	struct mmci_config cfg;
	struct db db;
	struct loaded_series ls = { 0 };
	struct build_result bb = { 0 }, bn = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf out = STRBUF_INIT;
	git_repository *repo = NULL;
	git_oid base, *heads = NULL;
	long long run_base = 0, run_new = 0;
	char *label_base = NULL, *label_new = NULL;
	int c, boots = 0, exit_code = 0, ret = 1, i;
	double t0 = now_s();

	run_opts_init(&o);
	/*
	 * The series' claim is usually about one path: by default one
	 * variant, the memmap on the device with 2 MiB alignment, as the
	 * seed measured it; --map/--align widen it.
	 */
	o.map = "dev";
	o.devdax_align = "2M";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': base_ref = optarg; break;
		case 'f': fragment = optarg; break;
		case 'w': o.workloads = optarg; break;
		case 'p': o.map = optarg; break;
		case 'a': o.fsdax_align = o.devdax_align = optarg; break;
		case 'i': o.iters = parse_count("--iters", optarg); break;
		case 'n': o.nvdimm_mib = parse_mib("--nvdimm", optarg); break;
		case 'B': boots = parse_count("--boots", optarg); break;
		case 'c': o.clock = optarg; break;
		case 'K': o.backing = optarg; break;
		case 't': o.timeout_s = parse_count("--timeout", optarg); break;
		case 'e': exit_code = 1; break;
		case 'h':
			fputs(test_series_usage, stdout);
			return 0;
		default:
			fputs(test_series_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 1 || !base_ref) {
		fputs(test_series_usage, stderr);
		return 129;
	}
	if (!boots) {
		char why[128];
		int wall = o.clock ? !strcmp(o.clock, "wall") :
				     kvm_usable(why, sizeof(why));

		boots = wall ? 5 : 2;
	}
	setup_command(&cfg, &db);
	if (tree_open(cfg.tree_dir, &repo) < 0 ||
	    tree_resolve(repo, base_ref, &base) < 0)
		goto out;

	progress("ingesting %s", argv[optind]);
	if (ingest_series_file(&db, argv[optind], &ls) < 0)
		goto out;
	heads = xcalloc(ls.s.nr, sizeof(*heads));
	progress("applying %zu patch(es) on %s", ls.s.nr, base_ref);
	if (apply_series(&db, repo, &ls, base_ref, &base, ls.s.nr, heads) < 0)
		goto out;

	progress("building the base kernel (%s)", base_ref);
	if (build_kernel(&cfg, &db, repo, &base, 0, 0, fragment, &bb) < 0)
		goto out;
	progress("building the patched kernel (series #%lld)", ls.id);
	if (build_kernel(&cfg, &db, repo, &heads[ls.s.nr - 1], ls.id,
			 ls.s.nr, fragment, &bn) < 0)
		goto out;

	label_base = xstrfmt("base %s", base_ref);
	label_new = xstrfmt("series #%lld v%d (%zu patches)", ls.id,
			    ls.s.version, ls.s.nr);
	use_build(&o, &bb, label_base);
	if (run_create(&cfg, &db, &o, &run_base) < 0)
		goto out;
	use_build(&o, &bn, label_new);
	if (run_create(&cfg, &db, &o, &run_new) < 0)
		goto out;
	for (i = 0; i < boots; i++) {
		progress("boot %d/%d of the base kernel (run #%lld)", i + 1,
			 boots, run_base);
		run_boot(&cfg, &db, run_base, i);
		progress("boot %d/%d of the patched kernel (run #%lld)", i + 1,
			 boots, run_new);
		run_boot(&cfg, &db, run_new, i);
	}
	if (!run_finish(&db, run_base) || !run_finish(&db, run_new)) {
		error("no usable boot for run #%lld or #%lld: see 'mmci show "
		      "run ID'", run_base, run_new);
		goto out;
	}
	if (compare_runs(&db, run_base, run_new, &rc) < 0)
		goto out;
	printf("\nmmci test-series: %s\n", ls.s.title);
	compare_format(&db, &rc, &out);
	fputs(out.buf, stdout);
	printf("\ntook %.0f s; details: mmci show run %lld; mmci show run %lld\n",
	       now_s() - t0, run_base, run_new);
	ret = exit_code && rc.worse ? 1 : 0;
out:
	run_comparison_release(&rc);
	strbuf_release(&out);
	build_result_release(&bb);
	build_result_release(&bn);
	loaded_series_release(&ls);
	free(heads);
	free(label_base);
	free(label_new);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
