// SPDX-License-Identifier: GPL-2.0
/*
 * series-job.c - the main job (series-job.h), one phase per function:
 * prepare (tree, series, job, apply), kernels, measure, report.
 */
#include <jansson.h>

#include "aim.h"
#include "attribution.h"
#include "claims.h"
#include "compare.h"
#include "ingest.h"
#include "interrupt.h"
#include "job.h"
#include "profile.h"
#include "series-job.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

struct series_job {
	const struct series_job_request *req;
	const struct mmci_config *cfg;
	struct db *db;
	struct loaded_series ls;
	struct measure m;
	char *reuse_note;	/* "base: reusing run N ...", or NULL */
	git_repository *repo;
	git_oid base, *heads;
	char **folded;		/* [upto]: why patch upto has no run */
	int bisecting;		/* the steps are chosen by bisection */
	long long job;
	double t0;
};

/* the kernel of step @upto in sj->m, or -1 when it has none */
static int kernel_of(const struct series_job *sj, int upto)
{
	size_t i;

	for (i = 0; i < sj->m.nr; i++)
		if (sj->m.k[i].upto == upto)
			return (int)i;
	return -1;
}

/* is the run of kernel @k on the icount clock? */
static int icount_kernel(const struct series_job *sj, int k)
{
	long long yes = 0;

	if (db_int_checked(sj->db, &yes, "SELECT clock = 'icount' FROM runs "
			   "WHERE id = ?", "i", sj->m.k[k].run_id) < 0)
		return -1;
	return yes != 0;
}

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

long long series_job_previous_run(struct db *db, long long series_id,
				  long long run_new, long long *prev_series,
				  int *prev_version)
{
	long long prev = 0, run = 0;

	*prev_series = 0;
	*prev_version = 0;
	if (db_int_checked(db, &prev, "SELECT previous_id FROM series WHERE "
			   "id = ?", "i", series_id) < 0)
		return -1;
	if (!prev)
		return 0;
	*prev_series = prev;
	*prev_version = (int)db_int(db, 0, "SELECT version FROM series WHERE "
				    "id = ?", "i", prev);
	/* modes and set-ups are never mixed: same clock, workloads, VM */
	/* the run that stood for the last step of a finished job of it */
	if (db_int_checked(db, &run,
		"SELECT r.id FROM job_steps t JOIN jobs j ON j.id = t.job_id "
		"JOIN series s ON s.id = j.series_id JOIN runs r ON r.id = "
		"t.run_id JOIN runs n ON n.id = ? WHERE j.series_id = ? AND "
		"j.kind = 'series' AND j.status = 'done' AND t.upto = s.total "
		"AND r.status = 'ok' AND r.clock = n.clock AND r.accel = "
		"n.accel AND r.workloads = n.workloads AND r.params = n.params "
		"AND r.nvdimm_mib = n.nvdimm_mib AND r.vcpus = n.vcpus ORDER BY "
		"j.id DESC LIMIT 1", "ii", run_new, prev) < 0)
		return -1;
	return run;
}

/* vN against vN-1, when there is a previous version */
static void print_versions(struct db *db, long long series_id,
			   long long run_new, struct strbuf *out)
{
	long long prev, prev_run;
	struct run_comparison rc;
	int version;

	prev_run = series_job_previous_run(db, series_id, run_new, &prev,
					   &version);
	if (!prev)
		return;
	strbuf_addf(out, "\nthis version against the previous one (series "
		    "#%lld, v%d):\n", prev, version);
	if (prev_run < 0) {
		strbuf_addf(out, "  cannot be read: %s\n", last_error());
		return;
	}
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


/* the tree, the series, the job, the patches applied: 0 or -1 */
static int prepare(struct series_job *sj, struct measure_args *ma,
		   const struct mmci_config *cfg)
{
	const struct series_job_request *req = sj->req;
	struct loaded_series *ls = &sj->ls;
	char *params;

	if (tree_open(cfg->tree_dir, &sj->repo) < 0 ||
	    tree_resolve(sj->repo, req->base, &sj->base) < 0)
		return -1;
	if (req->series_id) {
		progress("loading series #%lld", req->series_id);
		if (ingest_load_stored(sj->db, req->series_id, ls) < 0)
			return -1;
	} else {
		progress("ingesting %s", req->file);
		if (ingest_series_file(sj->db, req->file, ls) < 0)
			return -1;
	}
	/*
	 * A series loaded from its rows has no mails (ingest_load_stored()):
	 * its claims were stored when it was ingested and stand.
	 */
	if (ls->mails && claims_store(sj->db, ls) < 0)
		warning("the claims of series #%lld were not stored", ls->id);
	params = job_params(ma, req->series_id ? "" : req->file,
			    req->per_patch);
	sj->job = job_start(sj->db, req->job, "series", ls->id, req->base,
			    params);
	free(params);
	if (sj->job < 0)
		return -1;
	progress("job #%lld: series #%lld \"%s\"", sj->job, ls->id,
		 ls->s.title);
	if (ls->partial)
		progress("series #%lld is not whole: %s", ls->id, ls->partial);
	sj->heads = xcalloc(ls->s.nr, sizeof(*sj->heads));
	progress("applying %zu patch(es) on %s", ls->s.nr, req->base);
	return apply_series(sj->db, sj->repo, ls, req->base, &sj->base,
			    ls->s.nr, sj->heads);
}

/* base, (+1 .. +N-1,) +N: the kernels of the measure; 0 or -1 */
static int add_kernels(struct series_job *sj)
{
	const struct loaded_series *ls = &sj->ls;
	int n = (int)ls->s.nr, i, k;
	char *label;

	label = xstrfmt("base %s", sj->req->base);
	k = measure_add(&sj->m, &sj->base, 0, 0, label);
	free(label);
	if (k < 0)
		return -1;
	/*
	 * A long series under icount (the base's run says the clock): the
	 * base and the head only; the steps in between are chosen by
	 * bisect_kernels() from what moved.
	 */
	if (sj->req->per_patch && sj->req->bisect_over &&
	    n > sj->req->bisect_over) {
		int icount = icount_kernel(sj, k);

		if (icount < 0)
			return -1;
		if (icount) {
			sj->bisecting = 1;
			progress("%d patches, more than %d: the steps are "
				 "bisected from base and head (icount)", n,
				 sj->req->bisect_over);
		} else {
			progress("%d patches on the wall clock: every step is "
				 "measured (bisection needs icount's exact "
				 "values)", n);
		}
	}
	for (i = sj->req->per_patch && !sj->bisecting ? 1 : n; i <= n; i++) {
		if (i < n)
			label = xstrfmt("series #%lld v%d +%d/%d", ls->id,
					ls->s.version, i, n);
		else
			label = xstrfmt("series #%lld v%d (%d patches)",
					ls->id, ls->s.version, n);
		k = measure_add(&sj->m, &sj->heads[i - 1], ls->id, i, label);
		free(label);
		if (k >= 0)
			continue;
		if (i == n)
			return -1;
		/* its effect shows up merged into the next patch's */
		warning("patch %d/%d: no kernel (see above); its effect is "
			"counted with the next patch's", i, n);
		sj->folded[i] = xstrfmt("no kernel (%s): its effect is "
					"counted with patch %d's", last_error(),
					i + 1);
	}
	return 0;
}

/*
 * Which run stands for each step and why (job_steps): measured here,
 * reused (an earlier run with the same build and set-up: another job's,
 * a nightly's, or this job's attempt before it was interrupted), or
 * folded into the next step for lack of a kernel. The attribution, the
 * page and the mail read these rows, never the job's own runs.
 */
static int record_steps(struct series_job *sj)
{
	const struct measure *m = &sj->m;
	int n = (int)sj->ls.s.nr, upto;
	struct job_step *st = xcalloc(n + 1, sizeof(*st));
	char **notes = xcalloc(n + 1, sizeof(*notes));
	size_t nr = 0, i;
	int ret;

	for (upto = 0; upto <= n; upto++) {
		const struct measure_kernel *k = NULL;

		for (i = 0; i < m->nr && !k; i++)
			if (m->k[i].upto == upto)
				k = &m->k[i];
		if (!k && sj->folded[upto]) {
			st[nr++] = (struct job_step){ upto, 0, JOB_STEP_FOLDED,
						      sj->folded[upto] };
			continue;
		}
		if (!k)
			continue;
		if (k->twin) {
			int of = m->k[k->twin - 1].upto;
			char *step = of ? xstrfmt("patch %d", of) :
					  xstrdup("the base");

			notes[upto] = xstrfmt("run #%lld, the kernel of %s "
					      "(same build key and .config: "
					      "no file a build reads changed), "
					      "one run for both (icount)",
					      k->run_id, step);
			free(step);
		} else if (k->reused) {
			long long of = 0;

			if (db_int_checked(sj->db, &of, "SELECT coalesce("
					   "job_id, 0) FROM runs WHERE id = ?",
					   "i", k->run_id) < 0)
				goto fail;
			notes[upto] = of == sj->job ?
				xstrfmt("run #%lld of this job's earlier attempt"
					", same build and set-up (icount)",
					k->run_id) :
				of ? xstrfmt("run #%lld of job #%lld, same build "
					     "and set-up (icount)", k->run_id,
					     of) :
				xstrfmt("run #%lld, made outside a job, same "
					"build and set-up (icount)", k->run_id);
		} else {
			notes[upto] = xstrfmt("measured by this job: %d "
					      "boot(s)", k->boots);
		}
		st[nr++] = (struct job_step){ upto, k->run_id,
			k->reused ? JOB_STEP_REUSED : JOB_STEP_MEASURED,
			notes[upto] };
	}
	ret = job_set_steps(sj->db, sj->job, st, nr);
	goto out;
fail:
	ret = -1;
out:
	for (upto = 0; upto <= n; upto++)
		free(notes[upto]);
	free(notes);
	free(st);
	return ret;
}

/*
 * A long series under icount: base and head are booted; an interval whose
 * ends differ in any metric is split at its middle, which is built and
 * booted, until each change is pinned to one step. icount's values are
 * exact, so one comparison decides, and N patches with one change cost
 * about 2 + log2(N) kernels. The steps inside an interval whose ends do
 * not differ are not measured: folded into the interval's last step, with
 * a note that a change undone between its ends cannot be seen.
 */
/* build (or find) and boot step @upto of the series: its kernel, or -1 */
static int measure_step(struct series_job *sj, struct measure_args *ma,
			int upto)
{
	struct measure *m = &sj->m;
	size_t *which;
	char *label;
	int k, i;

	label = xstrfmt("series #%lld v%d +%d/%zu", sj->ls.id,
			sj->ls.s.version, upto, sj->ls.s.nr);
	k = measure_add(m, &sj->heads[upto - 1], sj->ls.id, upto, label);
	free(label);
	if (k < 0)
		return -1;
	if (measure_reuse_said(m, k, ma->boots) < 0 ||
	    (!m->k[k].reused && measure_share_kernels(m) < 0))
		return -1;
	if (!m->k[k].reused) {
		which = xcalloc(ma->boots, sizeof(*which));
		for (i = 0; i < ma->boots; i++)
			which[i] = k;
		measure_round(m, which, ma->boots);
		free(which);
	}
	return k;
}

/*
 * The steps a claim is held against (the patch whose changelog makes it,
 * or the one its words name) and the step before each: in @point[upto].
 */
static int claim_points(struct series_job *sj, char *point)
{
	int n = (int)sj->ls.s.nr, rc;
	sqlite3_stmt *st = db_query(sj->db, "SELECT DISTINCT coalesce(step, "
				    "patch) FROM claims WHERE series_id = ?",
				    "i", sj->ls.id);

	if (!st)
		return -1;
	while ((rc = db_step(sj->db, st)) == DB_ROW) {
		int p = sqlite3_column_int(st, 0);

		if (p >= 1 && p <= n)
			point[p] = point[p - 1] = 1;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

static int bisect_kernels(struct series_job *sj, struct measure_args *ma)
{
	struct measure *m = &sj->m;
	const struct loaded_series *ls = &sj->ls;
	int n = (int)ls->s.nr, i, nr = 0, ret = -1, last;
	int (*todo)[2] = xcalloc(2 * (size_t)n + 2, sizeof(*todo));
	char *point = xcalloc(n + 1, 1);

	/* base, head, and what the claims name: the first points */
	point[0] = point[n] = 1;
	if (claim_points(sj, point) < 0)
		goto out;
	for (i = 1; i < n; i++)
		if (point[i] && kernel_of(sj, i) < 0) {
			progress("bisection: +%d is measured for a claim", i);
			if (measure_step(sj, ma, i) < 0)
				point[i] = 0;	/* folded below, if at all */
		}
	for (i = n, last = n; i-- > 0;)
		if (point[i] && kernel_of(sj, i) >= 0) {
			todo[nr][0] = i;
			todo[nr++][1] = last;
			last = i;
		}
	while (nr) {
		struct run_comparison rc = { 0 };
		int a = todo[nr - 1][0], b = todo[nr - 1][1], mid, k, moved;

		nr--;
		if (b - a < 2)
			continue;
		if (measure_compare(m, (struct measure_pair){
				(size_t)kernel_of(sj, a),
				(size_t)kernel_of(sj, b) }, &rc) < 0)
			goto out;
		moved = rc.worse + rc.better;
		run_comparison_release(&rc);
		if (!moved) {
			for (i = a + 1; i < b; i++)
				sj->folded[i] = xstrfmt("not measured: +%d and "
					"+%d do not differ (bisection), its "
					"effect is counted with patch %d's; a "
					"change undone in between cannot be "
					"seen", a, b, b);
			continue;
		}
		mid = a + (b - a) / 2;
		progress("bisection: +%d and +%d differ in %d metric(s): "
			 "measuring +%d", a, b, moved, mid);
		k = measure_step(sj, ma, mid);
		if (k < 0) {
			for (i = a + 1; i < b; i++)
				sj->folded[i] = xstrfmt("not measured: no "
					"kernel of +%d (%s); the change between "
					"+%d and +%d is counted with patch "
					"%d's", mid, last_error(), a, b, b);
			continue;
		}
		todo[nr][0] = mid;
		todo[nr++][1] = b;
		todo[nr][0] = a;
		todo[nr++][1] = mid;
	}
	ret = 0;
out:
	free(point);
	free(todo);
	return ret;
}

/*
 * Interleaved rounds, then more while a step (each kernel against the
 * one before) or a cumulative effect (each against the base) is
 * ambiguous. 0 when the base and the series have usable boots.
 */
static int measure_kernels(struct series_job *sj, struct measure_args *ma)
{
	struct measure *m = &sj->m;
	struct measure_pair *pairs = xcalloc(2 * m->nr, sizeof(*pairs));
	int head = kernel_of(sj, (int)sj->ls.s.nr);
	size_t np = 0, i;

	for (i = 1; i < m->nr; i++) {
		pairs[np++] = (struct measure_pair){ i - 1, i };
		if (i > 1)
			pairs[np++] = (struct measure_pair){ 0, i };
	}
	measure_args_resolve(ma, m);
	if (sj->req->remeasure) {
		progress("base: measured again (--remeasure)");
	} else if (measure_reuse(m, 0, ma->boots, &sj->reuse_note) < 0) {
		free(pairs);
		return -1;
	} else if (sj->reuse_note) {
		progress("%s", sj->reuse_note);
	}
	if (measure_share_kernels(m) < 0) {
		free(pairs);
		return -1;
	}
	measure_rounds(m, ma->boots);
	if (sj->bisecting) {
		if (bisect_kernels(sj, ma) < 0) {
			free(pairs);
			return -1;
		}
	} else {
		measure_adapt(m, pairs, np, NULL, NULL, ma->max_boots);
	}
	free(pairs);
	measure_finish(m);
	if ((!m->k[0].reused && run_finish(sj->db, m->k[0].run_id) <= 0) ||
	    run_finish(sj->db, m->k[head].run_id) <= 0)
		return error("no usable boot for run #%lld or #%lld: see "
			     "'mmci show run ID'", m->k[0].run_id,
			     m->k[head].run_id);
	return 0;
}

int series_job_aim(struct db *db, long long job, struct aim *a)
{
	char *params = NULL;
	sqlite3_stmt *st = db_query(db, "SELECT params FROM jobs WHERE id = ?",
				    "i", job);
	int rc, ret;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		params = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	ret = aim_from_params(params, a);
	free(params);
	return ret;
}

int series_job_verdict(struct db *db, long long job,
		       const struct attribution *a, struct strbuf *out)
{
	struct aim aim = AIM_INIT;
	int regressed, has_aim = series_job_aim(db, job, &aim);

	if (has_aim > 0 && !aim.in_scope)
		strbuf_addstr(out, "OUTSIDE MMCI'S SCOPE (a smoke run only): ");
	regressed = attribution_verdict(attribution_per_patch(a) ? a : NULL,
					attribution_series(a), out);
	aim_release(&aim);
	return has_aim < 0 ? -1 : regressed;
}

size_t series_job_profile_targets(const struct attribution *a,
				  const struct run_comparison **rcs,
				  char **what)
{
	const struct run_comparison *whole = attribution_series(a);
	int total = a->nr ? a->s[a->nr - 1].upto : 0;
	size_t i, n = 0;
	int pass;

	if (!attribution_per_patch(a)) {
		if (!whole || (!whole->worse && !whole->better))
			return 0;
		rcs[0] = whole;
		what[0] = xstrdup("the series");
		return 1;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 1; i < a->nr && n < PROFILE_MAX_STEPS; i++) {
			const struct attribution_step *st = &a->s[i];

			if (st->folded || !st->run_id)
				continue;
			if (pass == 0 ? !st->own.worse :
			    st->own.worse || !st->own.better)
				continue;
			rcs[n] = &st->own;
			what[n] = xstrfmt("patch %d/%d", st->upto, total);
			n++;
		}
	}
	return n;
}

int series_job_profile(const struct mmci_config *cfg, struct db *db,
		       long long job)
{
	const struct run_comparison *rcs[PROFILE_MAX_STEPS];
	char *what[PROFILE_MAX_STEPS];
	struct attribution attr = { 0 };
	size_t i, n;
	int made = 0;

	if (!config_number("MMCI_PROFILE"))
		return 0;
	if (attribution_load(db, job, &attr) < 0) {
		attribution_release(&attr);
		return -1;
	}
	n = series_job_profile_targets(&attr, rcs, what);
	for (i = 0; i < n; i++) {
		made += profile_runs_for(cfg, db, rcs[i]);
		free(what[i]);
	}
	attribution_release(&attr);
	return made;
}

int series_job_profiles(struct db *db, const struct attribution *a,
			int max_lines, struct strbuf *out)
{
	const struct run_comparison *rcs[PROFILE_MAX_STEPS];
	char *what[PROFILE_MAX_STEPS];
	size_t i, n = series_job_profile_targets(a, rcs, what);
	int lines = 0, got = 0;

	for (i = 0; i < n; i++) {
		if (lines < max_lines) {
			got = profile_explain(db, rcs[i], what[i],
					      max_lines - lines, out);
			if (got < 0)
				lines = max_lines;
			else
				lines += got;
		}
		free(what[i]);
	}
	return got < 0 ? -1 : lines;
}

/* "not whole: patch(es) 3/5 never arrived; ..." when it is not; 0 or -1 */
static int series_partial(struct db *db, long long series_id,
			  struct strbuf *out)
{
	struct series_row row;
	char *note;

	if (series_row_load(db, series_id, &row) < 0) {
		series_row_release(&row);
		return -1;
	}
	if (row.first_missing) {
		note = series_row_partial(&row);
		strbuf_addf(out, "not whole: %s\n\n", note);
		free(note);
	}
	series_row_release(&row);
	return 0;
}

int series_job_summary(struct db *db, long long job, struct strbuf *verdict,
		       struct strbuf *out, struct series_job_outcome *o)
{
	struct attribution attr = { 0 };
	struct aim aim = AIM_INIT;
	const struct run_comparison *rc;
	int per_patch, ret = -1;

	memset(o, 0, sizeof(*o));
	if (attribution_load(db, job, &attr) < 0)
		goto out;
	rc = attribution_series(&attr);
	per_patch = attribution_per_patch(&attr);
	o->regressed_steps = series_job_verdict(db, job, &attr, verdict);
	if (o->regressed_steps < 0)
		goto out;
	if (series_job_aim(db, job, &aim) > 0) {
		struct strbuf w = STRBUF_INIT;

		aim_workloads(aim.workloads, &w);
		strbuf_addf(out, "measured: %s, because %s\n\n", w.buf,
			    aim.why.buf);
		strbuf_release(&w);
	}
	if (attr.series_id && series_partial(db, attr.series_id, out) < 0)
		goto out;
	o->base_run = rc->base_id;
	o->new_run = rc->new_id;
	o->worse = rc->worse;
	o->better = rc->better;
	if (per_patch) {
		attribution_format(&attr, out);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "the series as a whole:\n");
	if (compare_format_table(db, rc, out) < 0)
		goto out;
	if (attr.series_id) {
		claims_format(db, attr.series_id, per_patch ? &attr : NULL, rc,
			      out);
		print_versions(db, attr.series_id, rc->new_id, out);
	}
	{
		struct strbuf prof = STRBUF_INIT;

		if (series_job_profiles(db, &attr, PROFILE_TEXT_LINES,
					&prof) > 0)
			strbuf_addf(out, "\nwhere the instructions went (the "
				    "same kernels booted once more, QEMU "
				    "counting each function's instructions "
				    "in the timed writes; per write, 1 "
				    "instruction = 1 ns under icount):\n%s",
				    prof.buf);
		strbuf_release(&prof);
	}
	ret = 0;
out:
	aim_release(&aim);
	attribution_release(&attr);
	return ret;
}

/*
 * The job's one verdict, then the steps, the series as a whole, the
 * claims and the previous version, on stdout; the job ends. A job whose
 * steps cannot be attributed fails: it is never judged on the series
 * alone (a reused base once hid a patch's regression that way).
 */
static int report(struct series_job *sj, const struct measure_args *ma,
		  int *worse)
{
	const struct measure *m = &sj->m;
	struct strbuf out = STRBUF_INIT, verdict = STRBUF_INIT;
	struct series_job_outcome o;
	json_t *res;
	char *result;
	int ret = -1;

	if (record_steps(sj) < 0)
		goto out;
	/* a profile explains a verdict; it never changes one */
	if (series_job_profile(sj->cfg, sj->db, sj->job) < 0)
		warning("job #%lld: no profile: %s", sj->job, last_error());
	if (series_job_summary(sj->db, sj->job, &verdict, &out, &o) < 0)
		goto out;
	printf("\nmmci test-series: %s\n", sj->ls.s.title);
	if (sj->reuse_note)
		printf("%s\n", sj->reuse_note);
	printf("verdict: %s\n\n", verdict.buf);
	fputs(out.buf, stdout);
	if (m->extra_rounds)
		printf("adaptive repeats: %d more round(s) for ambiguous "
		       "comparisons (budget %d boots per kernel)\n",
		       m->extra_rounds, ma->max_boots);
	printf("\nverdict: %s\n", verdict.buf);
	printf("\ntook %.0f s; job #%lld; details: mmci show job %lld\n",
	       now_s() - sj->t0, sj->job, sj->job);
	res = json_pack("{s:I, s:I, s:i, s:i, s:i, s:b, s:s, s:i}",
			"base_run", (json_int_t)o.base_run, "new_run",
			(json_int_t)o.new_run, "worse", o.worse, "better",
			o.better, "extra_rounds", m->extra_rounds,
			"base_reused", m->k[0].reused, "verdict", verdict.buf,
			"regressed_steps", o.regressed_steps);
	result = json_dumps(res, JSON_COMPACT);
	json_decref(res);
	if (job_end(sj->db, sj->job, 1, NULL, result) < 0)
		warning("job #%lld: its end is not recorded: %s", sj->job,
			last_error());
	free(result);
	/* --exit-code: a patch's own regression counts as one */
	*worse = o.worse ? o.worse : o.regressed_steps;
	ret = 0;
out:
	strbuf_release(&verdict);
	strbuf_release(&out);
	return ret;
}

int series_job_run(const struct mmci_config *cfg, struct db *db,
		   struct measure_args *ma, const struct series_job_request *req,
		   int *worse)
{
	struct series_job sj = { .req = req, .cfg = cfg, .db = db,
				 .job = req->job, .t0 = now_s() };
	size_t i;
	int ret = -1;

	*worse = 0;
	if (prepare(&sj, ma, cfg) < 0)
		goto fail;
	ma->o.job_id = sj.job;
	sj.folded = xcalloc(sj.ls.s.nr + 1, sizeof(*sj.folded));
	measure_init(&sj.m, cfg, db, sj.repo, ma->fragment, &ma->o);
	if (add_kernels(&sj) < 0 || measure_kernels(&sj, ma) < 0 ||
	    report(&sj, ma, worse) < 0)
		goto fail;
	if (req->runs) {
		req->runs[0] = sj.m.k[0].run_id;
		req->runs[1] = sj.m.k[kernel_of(&sj, (int)sj.ls.s.nr)].run_id;
	}
	ret = 0;
	goto out;
fail:
	measure_finish(&sj.m);	/* no run of the job is left 'running' */
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (sj.job > 0 && !(req->job && interrupted()))
		job_fail(db, sj.job, interrupt_or_last_error());
out:
	measure_release(&sj.m);
	free(sj.reuse_note);
	for (i = 0; sj.folded && i <= sj.ls.s.nr; i++)
		free(sj.folded[i]);
	free(sj.folded);
	loaded_series_release(&sj.ls);
	free(sj.heads);
	git_repository_free(sj.repo);
	return ret;
}
