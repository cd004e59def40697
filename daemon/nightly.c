// SPDX-License-Identifier: GPL-2.0
/*
 * nightly.c - a new head against the previous nightly's (nightly.h).
 */
#include <math.h>

#include "compare.h"
#include "config.h"
#include "db.h"
#include "interrupt.h"
#include "job.h"
#include "measure.h"
#include "nightly.h"
#include "run.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

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

/*
 * The commit of the newest finished nightly of the branch, other than
 * @h's, in *@out (NULL: there is none, the first nightly). A failed read
 * is an error, never "nothing to compare". 0 or -1.
 */
static int previous_head(struct db *db, const struct head *h, char **out)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT h.commit_id FROM jobs j JOIN heads h ON h.id = "
		"j.head_id WHERE j.kind = 'nightly' AND j.status = 'done' AND "
		"h.remote = ? AND h.branch = ? AND h.commit_id != ? ORDER BY "
		"j.ended_at DESC, j.id DESC LIMIT 1", "ttt", h->remote,
		h->branch, h->commit);
	int rc;

	*out = NULL;
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW)
		*out = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return error("cannot read the previous nightly of %s",
			     h->branch);
	return 0;
}

const struct metric_comparison *
nightly_regressions(const struct run_comparison *rc, json_t *regs,
		    json_t **top_json)
{
	const struct metric_comparison *top = NULL;
	size_t i;

	*top_json = NULL;
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
			*top_json = p;
		}
	}
	return top;
}

/*
 * One bisect job for the range, on the largest regression. The metrics
 * of one workload usually move together (memmap time, bind time), and N
 * bisections of one range would boot the same kernels N times; the
 * bisection names the commit, the nightly's mail lists every metric. A
 * failure to queue is said; the nightly's verdict stands.
 */
static void queue_bisect(struct db *db, const char *good, const char *bad,
			 const struct run_comparison *rc, json_t *regs)
{
	json_t *top_json;
	const struct metric_comparison *top = nightly_regressions(rc, regs,
								  &top_json);
	char *params, *ref;
	long long job;

	if (!top)
		return;
	params = json_dumps(top_json, JSON_COMPACT | JSON_SORT_KEYS);
	ref = xstrfmt("%s..%s", good, bad);
	job = job_queue(db, "bisect", 0, 0, ref, params);
	if (job > 0) {
		json_object_set_new(top_json, "bisect_job", json_integer(job));
		progress("queued bisect job #%lld: %s %s %s, the largest of "
			 "%zu regression(s)", job, top->workload, top->variant,
			 top->metric, json_array_size(regs));
	}
	free(params);
	free(ref);
}

/* the comparison of the two runs, printed and put into @res */
static int compare_heads(struct db *db, const struct measure *m, int kp,
			 int kc, const git_oid *prev, const git_oid *cur,
			 int bisect, json_t *res)
{
	struct run_comparison rc = { 0 };
	struct strbuf out = STRBUF_INIT;
	json_t *regs;

	if (compare_runs(db, m->k[kp].run_id, m->k[kc].run_id, &rc) < 0)
		return -1;
	compare_format(db, &rc, &out);
	fputs(out.buf, stdout);
	json_object_set_new(res, "base_run", json_integer(m->k[kp].run_id));
	json_object_set_new(res, "previous",
			    json_string(git_oid_tostr_s(prev)));
	json_object_set_new(res, "worse", json_integer(rc.worse));
	json_object_set_new(res, "better", json_integer(rc.better));
	regs = json_array();
	if (bisect) {
		char good[GIT_OID_HEXSZ + 1];

		git_oid_tostr(good, sizeof(good), prev);
		queue_bisect(db, good, git_oid_tostr_s(cur), &rc, regs);
	}
	json_object_set_new(res, "regressions", regs);
	run_comparison_release(&rc);
	strbuf_release(&out);
	return 0;
}

int nightly_run(const struct mmci_config *cfg, struct db *db,
		struct measure_args *ma, const struct nightly_request *req)
{
	struct head h = { 0 };
	struct measure m = { 0 };
	git_repository *repo = NULL;
	git_oid cur, prev;
	char *prev_hex = NULL, *label, *result = NULL;
	long long job = req->job;
	int ret = -1, kp = -1, kc;
	json_t *res = NULL;

	if (req->job && load_head(db, req->job, &h) < 0)
		goto fail;
	if (!req->job) {
		h.commit = xstrdup(req->ref);
		h.remote = xstrdup("");
		h.branch = xstrdup(req->ref);
	}
	if (tree_open(cfg->tree_dir, &repo) < 0 ||
	    tree_resolve(repo, h.commit, &cur) < 0)
		goto fail;
	if (req->previous)
		prev_hex = xstrdup(req->previous);
	else if (req->job && previous_head(db, &h, &prev_hex) < 0)
		goto fail;
	if (prev_hex && tree_resolve(repo, prev_hex, &prev) < 0)
		goto fail;
	job = job_start(db, req->job, "nightly", 0, h.commit, NULL);
	if (job < 0)
		goto fail;

	ma->o.job_id = job;
	measure_init(&m, cfg, db, repo, ma->fragment, &ma->o);
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
	measure_args_resolve(ma, &m);
	/* icount: a head measured before (the previous night) is not booted
	 * again, nor a head that changes no built file over the previous */
	if ((kp >= 0 && measure_reuse_said(&m, kp, ma->boots) < 0) ||
	    measure_reuse_said(&m, kc, ma->boots) < 0 ||
	    measure_share_kernels(&m) < 0)
		goto fail;
	measure_rounds(&m, ma->boots);
	if (kp >= 0)
		measure_adapt(&m, &(struct measure_pair){ kp, kc }, 1, NULL,
			      NULL, ma->max_boots);
	measure_finish(&m);
	if ((!m.k[kc].reused || m.k[kc].twin) &&
	    run_finish(db, m.k[kc].run_id) <= 0) {
		error("no usable boot of %s (run #%lld)", h.commit,
		      m.k[kc].run_id);
		goto fail;
	}
	res = json_pack("{s:I, s:s}", "new_run", (json_int_t)m.k[kc].run_id,
			"commit", git_oid_tostr_s(&cur));
	if (kp < 0)
		printf("first nightly of %s: run #%lld, nothing to compare "
		       "with yet\n", h.branch, m.k[kc].run_id);
	else if (compare_heads(db, &m, kp, kc, &prev, &cur, req->bisect,
			       res) < 0)
		goto fail;
	result = json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS);
	if (job_end(db, job, 1, NULL, result) < 0)
		goto out;
	printf("job #%lld done\n", job);
	ret = 0;
	goto out;
fail:
	measure_finish(&m);	/* no run of the job is left 'running' */
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (job > 0 && !(req->job && interrupted()))
		job_fail(db, job, interrupt_or_last_error());
out:
	json_decref(res);
	free(result);
	free(prev_hex);
	head_release(&h);
	measure_release(&m);
	git_repository_free(repo);
	return ret;
}
