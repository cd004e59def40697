// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-test-series.c - `mmci test-series FILE --base REF`: the main job.
 *
 * ingest -> apply -> build base and base+series (with --per-patch also
 * base+1 .. base+N-1) -> boot them in interleaved rounds (base, +1, ..,
 * +N, base, ...: host drift hits all alike) -> more rounds while a
 * comparison is ambiguous, within --max-boots -> store -> compare the
 * series with its base, each patch with the step before, the claims of
 * the mails with the measurements, and this version with the previous
 * one. Everything belongs to one 'series' job.
 */
#include <getopt.h>

#include <jansson.h>

#include "attribution.h"
#include "builtin.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "interrupt.h"
#include "job.h"
#include "measure.h"
#include "strbuf.h"
#include "tree.h"
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
	MEASURE_USAGE
	"  --exit-code        exit 1 when a metric got worse\n";

/* the options of the job, as JSON, so the web page and a resume see them */
static char *job_params(const struct measure_args *ma, const char *file,
			int per_patch)
{
	const struct run_opts *o = &ma->o;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:i, s:i, "
			      "s:b, s:s?, s:s?, s:s?}",
			      "mbox", file, "workloads", o->workloads,
			      "map", o->map, "fsdax_align", o->fsdax_align,
			      "devdax_align", o->devdax_align, "iters",
			      o->iters, "nvdimm_mib", (json_int_t)o->nvdimm_mib,
			      "boots", ma->boots, "max_boots", ma->max_boots,
			      "per_patch", per_patch, "config", ma->fragment,
			      "clock", o->clock, "backing", o->backing);
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

	json_decref(j);
	return s;
}

/*
 * vN against vN-1: the final run of the newest finished job of the
 * previous version, when there is one measured the same way.
 */
static void print_versions(struct db *db, long long series_id,
			   long long run_new, struct strbuf *out)
{
	long long prev = db_int(db, 0, "SELECT coalesce(previous_id, 0) FROM "
				"series WHERE id = ?", "i", series_id);
	long long prev_run;
	struct run_comparison rc;

	if (!prev)
		return;
	/* modes and set-ups are never mixed: same clock, workloads, VM */
	prev_run = db_int(db, 0,
		"SELECT r.id FROM runs r JOIN builds b ON b.id = r.build_id "
		"JOIN jobs j ON j.id = r.job_id JOIN series s ON s.id = "
		"b.series_id JOIN runs n ON n.id = ? WHERE b.series_id = ? AND "
		"b.upto = s.total AND r.status = 'ok' AND j.status = 'done' "
		"AND r.clock = n.clock AND r.accel = n.accel AND r.workloads "
		"= n.workloads AND r.params = n.params AND r.nvdimm_mib = "
		"n.nvdimm_mib AND r.vcpus = n.vcpus ORDER BY r.id DESC LIMIT 1",
		"ii", run_new, prev);
	strbuf_addf(out, "\nthis version against the previous one (series "
		    "#%lld, v%lld):\n", prev,
		    db_int(db, 0, "SELECT version FROM series WHERE id = ?",
			   "i", prev));
	if (!prev_run) {
		strbuf_addstr(out, "  not measured yet the same way (clock, "
			      "workloads, VM): run mmci test-series on it "
			      "with the same options to compare\n");
		return;
	}
	if (compare_runs(db, prev_run, run_new, &rc) < 0) {
		strbuf_addf(out, "  not comparable: %s\n", last_error());
		return;
	}
	compare_format(db, &rc, out);
	run_comparison_release(&rc);
}

int cmd_test_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		MEASURE_OPTIONS,
		{ "per-patch", no_argument, NULL, 'P' },
		{ "job", required_argument, NULL, 'J' },
		{ "series", required_argument, NULL, 'S' },
		{ "exit-code", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *base_ref = NULL;
	struct measure_args ma;
	struct mmci_config cfg;
	struct db db;
	struct loaded_series ls = { 0 };
	struct measure m = { 0 };
	struct measure_pair *pairs = NULL;
	struct run_comparison rc = { 0 };
	struct attribution attr = { 0 };
	struct strbuf out = STRBUF_INIT;
	git_repository *repo = NULL;
	git_oid base, *heads = NULL;
	long long job = 0, want_job = 0, series_id = 0;
	char *params = NULL, *label, *result;
	int c, per_patch = 0, exit_code = 0;
	int ret = 1, i, last;
	size_t np = 0;
	double t0 = now_s();

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': base_ref = optarg; break;
		case 'P': per_patch = 1; break;
		case 'J': want_job = parse_count("--job", optarg); break;
		case 'S': series_id = parse_count("--series", optarg); break;
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
	if (argc - optind != !series_id || !base_ref) {
		fputs(test_series_usage, stderr);
		return 129;
	}
	measure_args_finish(&ma);
	if (!series_id && check_input_file(argv[optind], "an mbox file") < 0)
		return 1;
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	job = want_job;
	if (tree_open(cfg.tree_dir, &repo) < 0 ||
	    tree_resolve(repo, base_ref, &base) < 0)
		goto fail;
	if (series_id) {
		progress("loading series #%lld", series_id);
		if (ingest_load_stored(&db, series_id, &ls) < 0)
			goto fail;
	} else {
		progress("ingesting %s", argv[optind]);
		if (ingest_series_file(&db, argv[optind], &ls) < 0)
			goto fail;
	}
	if (claims_store(&db, &ls) < 0)
		warning("the claims of series #%lld were not stored", ls.id);
	params = job_params(&ma, series_id ? "" : argv[optind], per_patch);
	job = job_start(&db, want_job, "series", ls.id, base_ref, params);
	if (job < 0)
		goto out;
	progress("job #%lld: series #%lld \"%s\"", job, ls.id, ls.s.title);
	heads = xcalloc(ls.s.nr, sizeof(*heads));
	progress("applying %zu patch(es) on %s", ls.s.nr, base_ref);
	if (apply_series(&db, repo, &ls, base_ref, &base, ls.s.nr, heads) < 0)
		goto fail;

	ma.o.job_id = job;
	measure_init(&m, &cfg, &db, repo, ma.fragment, &ma.o);
	label = xstrfmt("base %s", base_ref);
	i = measure_add(&m, &base, 0, 0, label);
	free(label);
	if (i < 0)
		goto fail;
	for (i = per_patch ? 1 : (int)ls.s.nr; i <= (int)ls.s.nr; i++) {
		if (i < (int)ls.s.nr)
			label = xstrfmt("series #%lld v%d +%d/%zu", ls.id,
					ls.s.version, i, ls.s.nr);
		else
			label = xstrfmt("series #%lld v%d (%zu patches)",
					ls.id, ls.s.version, ls.s.nr);
		last = measure_add(&m, &heads[i - 1], ls.id, i, label);
		free(label);
		if (last >= 0)
			continue;
		if (i == (int)ls.s.nr)
			goto fail;
		/* its effect shows up merged into the next patch's */
		warning("patch %d/%zu: no kernel (see above); its effect is "
			"counted with the next patch's", i, ls.s.nr);
	}
	pairs = xcalloc(2 * m.nr, sizeof(*pairs));
	for (i = 1; i < (int)m.nr; i++) {
		pairs[np++] = (struct measure_pair){ i - 1, i };
		if (i > 1)
			pairs[np++] = (struct measure_pair){ 0, i };
	}
	measure_args_resolve(&ma, &m);
	measure_rounds(&m, ma.boots);
	measure_adapt(&m, pairs, np, NULL, NULL, ma.max_boots);
	measure_finish(&m);
	if (run_finish(&db, m.k[0].run_id) <= 0 ||
	    run_finish(&db, m.k[m.nr - 1].run_id) <= 0) {
		error("no usable boot for run #%lld or #%lld: see 'mmci show "
		      "run ID'", m.k[0].run_id, m.k[m.nr - 1].run_id);
		goto fail;
	}
	if (compare_runs(&db, m.k[0].run_id, m.k[m.nr - 1].run_id, &rc) < 0)
		goto fail;
	printf("\nmmci test-series: %s\n", ls.s.title);
	compare_format(&db, &rc, &out);
	if (m.extra_rounds)
		strbuf_addf(&out, "adaptive repeats: %d more round(s) for "
			    "ambiguous comparisons (budget %d boots per "
			    "kernel)\n", m.extra_rounds, ma.max_boots);
	if (per_patch) {
		strbuf_addch(&out, '\n');
		if (attribution_load(&db, job, &attr) < 0)
			strbuf_addf(&out, "per-patch attribution: %s\n",
				    last_error());
		else
			attribution_format(&attr, &out);
	}
	claims_format(&db, ls.id, per_patch ? &attr : NULL, &rc, &out);
	print_versions(&db, ls.id, m.k[m.nr - 1].run_id, &out);
	fputs(out.buf, stdout);
	printf("\ntook %.0f s; job #%lld; details: mmci show run %lld; mmci "
	       "show run %lld\n", now_s() - t0, job, m.k[0].run_id,
	       m.k[m.nr - 1].run_id);
	result = xstrfmt("{\"base_run\":%lld,\"new_run\":%lld,\"worse\":%d,"
			 "\"better\":%d,\"extra_rounds\":%d}", m.k[0].run_id,
			 m.k[m.nr - 1].run_id, rc.worse, rc.better,
			 m.extra_rounds);
	job_end(&db, job, 1, NULL, result);
	free(result);
	ret = exit_code && rc.worse ? 1 : 0;
	goto out;
fail:
	measure_finish(&m);	/* no run of the job is left 'running' */
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (job > 0 && !(want_job && interrupted()))
		job_end(&db, job, 0, interrupt_or_last_error(), NULL);
out:
	attribution_release(&attr);
	run_comparison_release(&rc);
	strbuf_release(&out);
	measure_release(&m);
	loaded_series_release(&ls);
	free(pairs);
	free(heads);
	free(params);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
