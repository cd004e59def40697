// SPDX-License-Identifier: GPL-2.0
/*
 * attribution.c - per-patch own and cumulative effects of a series job.
 */
#include <math.h>

#include "attribution.h"
#include "db.h"
#include "strbuf.h"
#include "util.h"

const struct metric_comparison *
run_comparison_find(const struct run_comparison *rc, const char *workload,
		    const char *variant, const char *metric)
{
	size_t i;

	for (i = 0; i < rc->nr; i++)
		if (!strcmp(rc->m[i].workload, workload) &&
		    !strcmp(rc->m[i].variant, variant) &&
		    !strcmp(rc->m[i].metric, metric))
			return &rc->m[i];
	return NULL;
}

void attribution_release(struct attribution *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		free(a->s[i].label);
		free(a->s[i].subject);
		free(a->s[i].source);
		free(a->s[i].note);
		run_comparison_release(&a->s[i].own);
		run_comparison_release(&a->s[i].cum);
	}
	free(a->s);
	memset(a, 0, sizeof(*a));
}

const struct run_comparison *attribution_series(const struct attribution *a)
{
	return a && a->nr > 1 ? &a->s[a->nr - 1].cum : NULL;
}

int attribution_per_patch(const struct attribution *a)
{
	return a && a->nr > 2;
}

const struct attribution_step *
attribution_step(const struct attribution *a, int upto)
{
	size_t i;

	for (i = 0; a && i < a->nr; i++)
		if (a->s[i].upto == upto)
			return &a->s[i];
	return NULL;
}

/*
 * The steps as recorded, each checked: a step that names a run must name
 * a finished one. The base is named by the job's ref, never by the run's
 * label: a base reused from a nightly or another series job reads the
 * same as one measured here.
 */
static int load_steps(struct db *db, long long job_id, struct attribution *a)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT s.upto, coalesce(s.run_id, 0), s.source, s.note, "
		"r.status, coalesce(j.series_ref, ''), (SELECT p.title FROM "
		"patches p WHERE p.series_id = j.series_id AND p.idx = s.upto "
		"AND s.upto > 0), r.id IS NULL FROM job_steps s JOIN jobs j ON "
		"j.id = s.job_id LEFT JOIN runs r ON r.id = s.run_id WHERE "
		"s.job_id = ? ORDER BY s.upto", "i", job_id);
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct attribution_step *s;
		const char *status = db_col_text(st, 4);

		ALLOC_GROW(a->s, a->nr + 1, a->alloc);
		s = &a->s[a->nr++];
		memset(s, 0, sizeof(*s));
		s->upto = sqlite3_column_int(st, 0);
		s->run_id = sqlite3_column_int64(st, 1);
		s->source = xstrdup(db_col_text(st, 2));
		s->note = xstrdup(db_col_text(st, 3));
		s->folded = !strcmp(s->source, "folded");
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			s->subject = xstrdup(db_col_text(st, 6));
		if (!s->upto)
			s->label = xstrfmt("base %s", db_col_text(st, 5));
		else
			s->label = xstrfmt("+%d", s->upto);
		if (s->folded)
			continue;
		if (sqlite3_column_int(st, 7)) {
			sqlite3_finalize(st);
			return error("job #%lld: the run of step %d (run #%lld, "
				     "%s) is gone", job_id, s->upto,
				     s->run_id, s->source);
		}
		if (strcmp(status, "ok")) {
			error("job #%lld: the run of step %d (run #%lld, %s) is "
			      "%s, not a finished run", job_id, s->upto,
			      s->run_id, s->source, status);
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int attribution_load(struct db *db, long long job_id, struct attribution *a)
{
	size_t i, prev, measured = 0;

	memset(a, 0, sizeof(*a));
	a->job_id = job_id;
	if (db_int_checked(db, &a->series_id, "SELECT coalesce(series_id, 0) "
			   "FROM jobs WHERE id = ?", "i", job_id) < 0 ||
	    load_steps(db, job_id, a) < 0)
		return -1;
	if (!a->nr)
		return error("job #%lld has no recorded steps: it has not "
			     "finished measuring", job_id);
	if (a->s[0].upto != 0 || a->s[0].folded)
		return error("job #%lld has no finished base run", job_id);
	for (i = 1; i < a->nr; i++)
		measured += !a->s[i].folded;
	if (!measured || a->s[a->nr - 1].folded)
		return error("job #%lld has no finished run of the series",
			     job_id);
	for (i = 1, prev = 0; i < a->nr; i++) {
		if (a->s[i].folded)
			continue;
		if (compare_runs(db, a->s[prev].run_id, a->s[i].run_id,
				 &a->s[i].own) < 0 ||
		    compare_runs(db, a->s[0].run_id, a->s[i].run_id,
				 &a->s[i].cum) < 0)
			return -1;
		prev = i;
	}
	return 0;
}

void attribution_format_steps(const struct attribution *a,
			      struct strbuf *out)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		const struct attribution_step *s = &a->s[i];

		strbuf_addf(out, "  %-6s", s->upto ? s->label : "base");
		if (s->folded)
			strbuf_addstr(out, " no run, folded");
		else
			strbuf_addf(out, " run #%lld, %s", s->run_id,
				    s->source);
		strbuf_addf(out, ": %s\n", s->note);
	}
}

/*
 * The folded steps from @i on that share @i's note (a bisection folds an
 * interval with one note): the index of the last of them.
 */
static size_t folded_run(const struct attribution *a, size_t i)
{
	while (i + 1 < a->nr && a->s[i + 1].folded &&
	       a->s[i + 1].upto == a->s[i].upto + 1 &&
	       !strcmp(a->s[i + 1].note, a->s[i].note))
		i++;
	return i;
}

static int moved(const struct metric_comparison *mc)
{
	return mc && (mc->c.verdict == VERDICT_BETTER ||
		      mc->c.verdict == VERDICT_WORSE);
}

static void fmt_change(struct strbuf *out, const struct metric_comparison *mc)
{
	char buf[96];

	if (!mc || isnan(mc->c.change_pct)) {
		strbuf_addf(out, " %-28s %-12s", "-",
			    mc ? verdict_name(mc->c.verdict) : "-");
		return;
	}
	if (isnan(mc->c.ci_lo_pct))
		xsnprintf(buf, sizeof(buf), "%+.2f%%", mc->c.change_pct);
	else
		xsnprintf(buf, sizeof(buf), "%+.2f%% [%+.2f, %+.2f]",
			  mc->c.change_pct, mc->c.ci_lo_pct, mc->c.ci_hi_pct);
	strbuf_addf(out, " %-28s %-12s", buf,
		    mc->c.verdict == VERDICT_NO_CHANGE ? "no change" :
		    verdict_name(mc->c.verdict));
}

static void fmt_metric(const struct attribution *a,
		       const struct metric_comparison *key,
		       struct strbuf *out)
{
	size_t i;

	strbuf_addf(out, "\n%s%s%s %s (%s):\n", key->workload,
		    key->variant[0] ? " " : "", key->variant, key->metric,
		    key->unit);
	strbuf_addf(out, "  %-44s %10s %-28s %-12s %-28s %s\n", "step",
		    "median", "own change [95% CI]", "own", "cumulative",
		    "cumulative");
	for (i = 0; i < a->nr; i++) {
		const struct attribution_step *s = &a->s[i];
		const struct metric_comparison *own = NULL, *cum = NULL;
		const struct summary *sum = NULL;
		char name[45];

		if (s->upto)
			xsnprintf(name, sizeof(name), "+%d %.38s", s->upto,
				  s->subject ? s->subject : s->label);
		else
			xsnprintf(name, sizeof(name), "%.44s", s->label);
		strbuf_addf(out, "  %-44s", name);
		if (s->folded) {
			strbuf_addstr(out, strncmp(s->note, "not measured", 12) ?
				      " no kernel: counted with the next step\n" :
				      " not measured: counted with the next "
				      "measured step\n");
			continue;
		}
		if (i) {
			own = run_comparison_find(&s->own, key->workload,
						  key->variant, key->metric);
			cum = run_comparison_find(&s->cum, key->workload,
						  key->variant, key->metric);
			sum = cum ? &cum->c.new : NULL;
		} else {
			cum = run_comparison_find(attribution_series(a),
						  key->workload, key->variant,
						  key->metric);
			sum = cum ? &cum->c.base : NULL;
			cum = NULL;
		}
		strbuf_addnum(out, sum ? sum->median : NAN, 10);
		if (!i) {
			strbuf_addch(out, '\n');
			continue;
		}
		fmt_change(out, own);
		fmt_change(out, cum);
		strbuf_rtrim(out);
		strbuf_addch(out, '\n');
	}
}

void attribution_format(const struct attribution *a, struct strbuf *out)
{
	const struct run_comparison *last;
	size_t i, j, quiet = 0;

	if (a->nr < 2)
		return;
	last = &a->s[a->nr - 1].cum;
	/* the verdict, a patch the series hides named first, is the job's
	 * headline (attribution_verdict()): printed above this, not here */
	strbuf_addf(out, "per-patch attribution (job #%lld): own = this step "
		    "vs the one before, cumulative = vs the base\n", a->job_id);
	for (i = 1; i < a->nr; i++) {
		size_t end;

		if (!a->s[i].folded)
			continue;
		end = folded_run(a, i);
		if (end > i)
			strbuf_addf(out, "patches %d-%d: %s\n", a->s[i].upto,
				    a->s[end].upto, a->s[i].note);
		else
			strbuf_addf(out, "patch %d: %s\n", a->s[i].upto,
				    a->s[i].note);
		i = end;
	}
	for (i = 0; i < last->nr; i++) {
		const struct metric_comparison *key = &last->m[i];
		int any = 0;

		for (j = 1; j < a->nr && !any; j++)
			any = moved(run_comparison_find(&a->s[j].own,
							key->workload,
							key->variant,
							key->metric)) ||
			      moved(run_comparison_find(&a->s[j].cum,
							key->workload,
							key->variant,
							key->metric));
		if (any)
			fmt_metric(a, key, out);
		else
			quiet++;
	}
	if (quiet)
		strbuf_addf(out, "\n%zu other metric(s): no step changed them "
			    "significantly\n", quiet);
}

/* at most this many regressed steps are named; the rest are counted */
#define VERDICT_MAX_NAMED 4

/* the worse metric of @own with the largest change in @workload */
static const struct metric_comparison *
largest_worse(const struct run_comparison *own, const char *workload)
{
	const struct metric_comparison *best = NULL;
	size_t j;

	for (j = 0; j < own->nr; j++) {
		const struct metric_comparison *m = &own->m[j];

		if (m->c.verdict != VERDICT_WORSE ||
		    strcmp(m->workload, workload))
			continue;
		if (!best || (!isnan(m->c.change_pct) &&
			      (isnan(best->c.change_pct) ||
			       m->c.change_pct > best->c.change_pct)))
			best = m;
	}
	return best;
}

int attribution_verdict(const struct attribution *a,
			const struct run_comparison *final, struct strbuf *out)
{
	struct strbuf named = STRBUF_INIT;
	int n = 0, items = 0, total;
	size_t i, j, k;

	/*
	 * One step (base vs +N): its own change is the series'. Otherwise
	 * each patch whose own step regressed is named once, with the
	 * largest change of each workload it regressed:
	 * "patch 2/4 fsdax rebind_memmap +66 %, devdax rebind_memmap +23 %"
	 */
	if (a && a->nr > 2) {
		total = a->s[a->nr - 1].upto;
		for (i = 1; i < a->nr; i++) {
			const struct run_comparison *own = &a->s[i].own;
			int said = 0;

			for (j = 0; j < own->nr; j++) {
				const struct metric_comparison *m = &own->m[j];

				if (m->c.verdict != VERDICT_WORSE)
					continue;
				n++;
				/* a workload is named at its first metric */
				for (k = 0; k < j; k++)
					if (own->m[k].c.verdict ==
						    VERDICT_WORSE &&
					    !strcmp(own->m[k].workload,
						    m->workload))
						break;
				if (k < j || items++ >= VERDICT_MAX_NAMED)
					continue;
				m = largest_worse(own, m->workload);
				if (!said++)
					strbuf_addf(&named, "%spatch %d/%d ",
						    named.len ? "; " : "",
						    a->s[i].upto, total);
				else
					strbuf_addstr(&named, ", ");
				strbuf_addf(&named, "%s %s", m->workload,
					    m->metric);
				if (!isnan(m->c.change_pct))
					strbuf_addf(&named, " %+.0f %%",
						    m->c.change_pct);
			}
		}
	}
	if (!n) {
		compare_verdict(final, out);
		return 0;
	}
	if (items > VERDICT_MAX_NAMED)
		strbuf_addf(&named, " and %d more", items - VERDICT_MAX_NAMED);
	/* the regressing patches first, then the series as a whole */
	strbuf_addf(out, "%s: %s; the series as a whole: ",
		    final->worse ? "WORSE" : "MIXED", named.buf);
	compare_verdict(final, out);
	strbuf_release(&named);
	return n;
}

int attribution_regressed_patches(const struct attribution *a,
				  struct strbuf *out)
{
	int n = 0, total;
	size_t i;

	if (!a || a->nr <= 2)
		return 0;
	total = a->s[a->nr - 1].upto;
	for (i = 1; i < a->nr; i++) {
		size_t j;

		for (j = 0; j < a->s[i].own.nr; j++)
			if (a->s[i].own.m[j].c.verdict == VERDICT_WORSE)
				break;
		if (j == a->s[i].own.nr)
			continue;
		strbuf_addf(out, "%s%d/%d", n++ ? ", " : "", a->s[i].upto,
			    total);
	}
	return n;
}

void metric_comparison_format_mail(struct strbuf *out,
				   const struct metric_comparison *m,
				   const char *indent)
{
	strbuf_addf(out, "%s%s%s%s %s (%s)\n", indent, m->workload,
		    m->variant[0] ? " " : "", m->variant, m->metric, m->unit);
	strbuf_addf(out, "%s  ", indent);
	strbuf_addnum(out, m->c.base.median, 0);
	strbuf_addstr(out, " -> ");
	strbuf_addnum(out, m->c.new.median, 0);
	if (!isnan(m->c.change_pct))
		strbuf_addf(out, "  %+.2f%%", m->c.change_pct);
	if (!isnan(m->c.ci_lo_pct))
		strbuf_addf(out, " [%+.2f, %+.2f]", m->c.ci_lo_pct,
			    m->c.ci_hi_pct);
	strbuf_addf(out, "  %s\n", verdict_name(m->c.verdict));
}

void attribution_format_mail(const struct attribution *a, struct strbuf *out)
{
	struct strbuf quiet = STRBUF_INIT;
	size_t i, j;
	int total;

	if (a->nr < 3)
		return;
	total = a->s[a->nr - 1].upto;
	strbuf_addstr(out, "Patch by patch (each against the step before "
		      "it), the metrics that moved:\n");
	for (i = 1; i < a->nr; i++) {
		const struct attribution_step *s = &a->s[i];
		int any = 0;

		if (s->folded) {
			size_t last = folded_run(a, i);

			if (last > i)
				strbuf_addf(out, "patches %d-%d/%d: %s\n",
					    s->upto, a->s[last].upto, total,
					    s->note);
			else
				strbuf_addf(out, "patch %d/%d: %s\n", s->upto,
					    total, s->note);
			i = last;
			continue;
		}
		for (j = 0; j < s->own.nr; j++) {
			const struct metric_comparison *m = &s->own.m[j];

			if (m->c.verdict != VERDICT_WORSE &&
			    m->c.verdict != VERDICT_BETTER)
				continue;
			if (!any++)
				strbuf_addf(out, "patch %d/%d %.64s\n", s->upto,
					    total, s->subject ? s->subject :
					    s->label);
			metric_comparison_format_mail(out, m, "  ");
		}
		if (!any)
			strbuf_addf(&quiet, "%s%d/%d", quiet.len ? ", " : "",
				    s->upto, total);
	}
	if (quiet.len)
		strbuf_addf(out, "no metric moved in the own step of patch%s "
			    "%s\n", strchr(quiet.buf, ',') ? "es" : "",
			    quiet.buf);
	strbuf_release(&quiet);
}

