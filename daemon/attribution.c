// SPDX-License-Identifier: GPL-2.0
/*
 * attribution.c - per-patch own and cumulative effects of a series job.
 */
#include <math.h>

#include "attribution.h"
#include "claims.h"
#include "db.h"
#include "ingest.h"
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
		run_comparison_release(&a->s[i].own);
		run_comparison_release(&a->s[i].cum);
	}
	free(a->s);
	memset(a, 0, sizeof(*a));
}

int attribution_load(struct db *db, long long job_id, struct attribution *a)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	memset(a, 0, sizeof(*a));
	a->job_id = job_id;
	a->series_id = db_int(db, 0, "SELECT coalesce(series_id, 0) FROM jobs "
			      "WHERE id = ?", "i", job_id);
	/* the latest run of each step: a resumed job may have left others */
	st = db_query(db,
		"SELECT r.id, b.upto, r.label, (SELECT p.title FROM patches p "
		"WHERE p.series_id = b.series_id AND p.idx = b.upto AND "
		"b.upto > 0) FROM runs r JOIN builds b ON b.id = r.build_id "
		"WHERE r.job_id = ? AND r.status = 'ok' AND r.id = (SELECT "
		"max(r2.id) FROM runs r2 JOIN builds b2 ON b2.id = r2.build_id "
		"WHERE r2.job_id = r.job_id AND b2.upto = b.upto AND "
		"r2.status = 'ok') ORDER BY b.upto", "i", job_id);
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct attribution_step *s;

		ALLOC_GROW(a->s, a->nr + 1, a->alloc);
		s = &a->s[a->nr++];
		memset(s, 0, sizeof(*s));
		s->run_id = sqlite3_column_int64(st, 0);
		s->upto = sqlite3_column_int(st, 1);
		s->label = xstrdup(db_col_text(st, 2));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			s->subject = xstrdup(db_col_text(st, 3));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	if (!a->nr || a->s[0].upto != 0)
		return error("job #%lld has no finished base run", job_id);
	if (a->nr < 2)
		return error("job #%lld has no finished run of the series",
			     job_id);
	for (i = 1; i < a->nr; i++) {
		if (compare_runs(db, a->s[i - 1].run_id, a->s[i].run_id,
				 &a->s[i].own) < 0 ||
		    compare_runs(db, a->s[0].run_id, a->s[i].run_id,
				 &a->s[i].cum) < 0)
			return -1;
	}
	return 0;
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

		if (i) {
			own = run_comparison_find(&s->own, key->workload,
						  key->variant, key->metric);
			cum = run_comparison_find(&s->cum, key->workload,
						  key->variant, key->metric);
			sum = cum ? &cum->c.new : NULL;
		} else if (a->nr > 1) {
			cum = run_comparison_find(&a->s[1].cum, key->workload,
						  key->variant, key->metric);
			sum = cum ? &cum->c.base : NULL;
			cum = NULL;
		}
		if (s->upto)
			xsnprintf(name, sizeof(name), "+%d %.38s", s->upto,
				  s->subject ? s->subject : s->label);
		else
			xsnprintf(name, sizeof(name), "%.44s", s->label);
		strbuf_addf(out, "  %-44s", name);
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
	strbuf_addf(out, "per-patch attribution (job #%lld): own = this step "
		    "vs the one before, cumulative = vs the base\n", a->job_id);
	/* a patch the series hides is said first, not found in a table */
	if (a->nr > 2) {
		struct strbuf v = STRBUF_INIT;

		if (attribution_verdict(a, last, &v) > 0)
			strbuf_addf(out, "per-patch verdict: %s\n", v.buf);
		strbuf_release(&v);
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

int attribution_verdict(const struct attribution *a,
			const struct run_comparison *final, struct strbuf *out)
{
	struct strbuf named = STRBUF_INIT;
	int n = 0, total;
	size_t i, j;

	/* one step (base vs +N): its own change is the series' */
	if (a && a->nr > 2) {
		total = a->s[a->nr - 1].upto;
		for (i = 1; i < a->nr; i++) {
			const struct run_comparison *own = &a->s[i].own;

			for (j = 0; j < own->nr; j++) {
				const struct metric_comparison *m = &own->m[j];

				if (m->c.verdict != VERDICT_WORSE)
					continue;
				if (n++ >= VERDICT_MAX_NAMED)
					continue;
				strbuf_addf(&named, "%s%d/%d regressed %s %s",
					    n > 1 ? ", " : "", a->s[i].upto,
					    total, m->workload, m->metric);
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
	if (n > VERDICT_MAX_NAMED)
		strbuf_addf(&named, " and %d more", n - VERDICT_MAX_NAMED);
	strbuf_addf(out, "%s: %s", final->worse ? "WORSE" : "MIXED",
		    named.buf);
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
