// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-nightly.c - `mmci nightly`: measure a new head of a tree against
 * the head measured before it.
 *
 * `mmci ingest tree` queues a 'nightly' job for every branch that moved.
 * The job builds the new head and the previous nightly's head of the same
 * remote and branch, boots them in interleaved rounds (the previous one is
 * measured again, not taken from yesterday's numbers: the host is not the
 * same host a day later), and compares. Every metric that got worse is a
 * regression: a 'bisect' job is queued for the range, per metric, so the
 * daemon can name the commit. The runs of the new head are the points of
 * `mmci history`.
 */
#include <getopt.h>
#include <math.h>

#include <jansson.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "interrupt.h"
#include "job.h"
#include "measure.h"
#include "strbuf.h"
#include "tree.h"
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

struct head {
	char *commit, *remote, *branch;
};

static void head_release(struct head *h)
{
	free(h->commit);
	free(h->remote);
	free(h->branch);
}

static int load_head(struct db *db, long long job, struct head *h)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT h.commit_id, h.remote, h.branch FROM jobs j JOIN heads h "
		"ON h.id = j.head_id WHERE j.id = ? AND j.kind = 'nightly'",
		"i", job);
	int ret = -1, rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		h->commit = xstrdup(db_col_text(st, 0));
		h->remote = xstrdup(db_col_text(st, 1));
		h->branch = xstrdup(db_col_text(st, 2));
		ret = 0;
	} else if (rc == DB_DONE) {
		error("job #%lld is not a nightly job of a fetched head", job);
	}
	sqlite3_finalize(st);
	return ret;
}

/* the commit of the newest finished nightly of the branch, other than @h */
static char *previous_head(struct db *db, const struct head *h)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT h.commit_id FROM jobs j JOIN heads h ON h.id = "
		"j.head_id WHERE j.kind = 'nightly' AND j.status = 'done' AND "
		"h.remote = ? AND h.branch = ? AND h.commit_id != ? ORDER BY "
		"j.ended_at DESC, j.id DESC LIMIT 1", "ttt", h->remote,
		h->branch, h->commit);
	char *prev = NULL;

	if (!st)
		return NULL;
	if (db_step(db, st) == DB_ROW)
		prev = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	return prev;
}

/*
 * Every metric that got worse is listed in @regs; one bisect job is queued
 * for the range, on the largest regression. The metrics of one workload
 * usually move together (memmap time, bind time), and N bisections of one
 * range would boot the same kernels N times; the bisection names the
 * commit, the nightly's mail lists every metric.
 */
static void queue_bisect(struct db *db, const char *good, const char *bad,
			 const struct run_comparison *rc, json_t *regs)
{
	const struct metric_comparison *top = NULL;
	json_t *top_json = NULL;
	size_t i;

	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *mc = &rc->m[i];
		json_t *p;

		if (mc->c.verdict != VERDICT_WORSE)
			continue;
		p = json_pack("{s:s, s:s, s:s, s:f}", "workload", mc->workload,
			      "variant", mc->variant, "metric", mc->metric,
			      "change_pct", mc->c.change_pct);
		json_array_append_new(regs, p);
		if (!top || fabs(mc->c.change_pct) > fabs(top->c.change_pct)) {
			top = mc;
			top_json = p;
		}
	}
	if (top) {
		char *params = json_dumps(top_json, JSON_COMPACT |
					  JSON_SORT_KEYS);
		char *ref = xstrfmt("%s..%s", good, bad);
		/* a failure is said; the nightly's verdict stands */
		long long job = job_queue(db, "bisect", 0, 0, ref, params);

		if (job > 0) {
			json_object_set_new(top_json, "bisect_job",
					    json_integer(job));
			progress("queued bisect job #%lld: %s %s %s, the "
				 "largest of %zu regression(s)", job,
				 top->workload, top->variant, top->metric,
				 json_array_size(regs));
		}
		free(params);
		free(ref);
	}
}

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
	struct measure_args ma;
	struct mmci_config cfg;
	struct db db;
	struct head h = { 0 };
	struct measure m = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf out = STRBUF_INIT;
	git_repository *repo = NULL;
	git_oid cur, prev;
	const char *prev_ref = NULL;
	char *prev_hex = NULL, *label, *result = NULL;
	long long job = 0, want_job = 0;
	int c, ret = 1, bisect = 1, kp = -1, kc;
	json_t *res = NULL, *regs;

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'J': want_job = parse_count("--job", optarg); break;
		case 'P': prev_ref = optarg; break;
		case 'N': bisect = 0; break;
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
	if (argc - optind != !want_job) {
		fputs(nightly_usage, stderr);
		return 129;
	}
	measure_args_finish(&ma);
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	job = want_job;
	if (want_job && load_head(&db, want_job, &h) < 0)
		goto fail;
	if (!want_job) {
		h.commit = xstrdup(argv[optind]);
		h.remote = xstrdup("");
		h.branch = xstrdup(argv[optind]);
	}
	if (tree_open(cfg.tree_dir, &repo) < 0 ||
	    tree_resolve(repo, h.commit, &cur) < 0)
		goto fail;
	if (prev_ref)
		prev_hex = xstrdup(prev_ref);
	else if (want_job)
		prev_hex = previous_head(&db, &h);
	if (prev_hex && tree_resolve(repo, prev_hex, &prev) < 0)
		goto fail;
	job = job_start(&db, want_job, "nightly", 0, h.commit, NULL);
	if (job < 0)
		goto fail;

	ma.o.job_id = job;
	measure_init(&m, &cfg, &db, repo, ma.fragment, &ma.o);
	if (prev_hex) {
		label = xstrfmt("nightly %s previous %.12s", h.branch,
				git_oid_tostr_s(&prev));
		kp = measure_add(&m, &prev, 0, 0, label);
		free(label);
		if (kp < 0)
			goto fail;
	}
	label = xstrfmt("nightly %s %.12s", h.branch, git_oid_tostr_s(&cur));
	kc = measure_add(&m, &cur, 0, 0, label);
	free(label);
	if (kc < 0)
		goto fail;
	measure_args_resolve(&ma, &m);
	/* icount: a head measured before (the previous night) is not booted
	 * again */
	if ((kp >= 0 && measure_reuse_said(&m, kp, ma.boots) < 0) ||
	    measure_reuse_said(&m, kc, ma.boots) < 0)
		goto fail;
	measure_rounds(&m, ma.boots);
	if (kp >= 0)
		measure_adapt(&m, &(struct measure_pair){ kp, kc }, 1, NULL,
			      NULL, ma.max_boots);
	measure_finish(&m);
	if (!m.k[kc].reused && run_finish(&db, m.k[kc].run_id) <= 0) {
		error("no usable boot of %s (run #%lld)", h.commit,
		      m.k[kc].run_id);
		goto fail;
	}
	res = json_pack("{s:I, s:s}", "new_run", (json_int_t)m.k[kc].run_id,
			"commit", git_oid_tostr_s(&cur));
	if (kp < 0) {
		printf("first nightly of %s: run #%lld, nothing to compare "
		       "with yet\n", h.branch, m.k[kc].run_id);
	} else {
		if (compare_runs(&db, m.k[kp].run_id, m.k[kc].run_id, &rc) < 0)
			goto fail;
		compare_format(&db, &rc, &out);
		fputs(out.buf, stdout);
		json_object_set_new(res, "base_run",
				    json_integer(m.k[kp].run_id));
		json_object_set_new(res, "previous",
				    json_string(git_oid_tostr_s(&prev)));
		json_object_set_new(res, "worse", json_integer(rc.worse));
		json_object_set_new(res, "better", json_integer(rc.better));
		regs = json_array();
		if (bisect) {
			char good[GIT_OID_HEXSZ + 1];

			git_oid_tostr(good, sizeof(good), &prev);
			queue_bisect(&db, good, git_oid_tostr_s(&cur), &rc,
				      regs);
		}
		json_object_set_new(res, "regressions", regs);
	}
	result = json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS);
	job_end(&db, job, 1, NULL, result);
	printf("job #%lld done\n", job);
	ret = 0;
	goto out;
fail:
	measure_finish(&m);	/* no run of the job is left 'running' */
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (job > 0 && !(want_job && interrupted()))
		job_end(&db, job, 0, interrupt_or_last_error(), NULL);
out:
	json_decref(res);
	free(result);
	free(prev_hex);
	head_release(&h);
	run_comparison_release(&rc);
	strbuf_release(&out);
	measure_release(&m);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
