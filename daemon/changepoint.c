// SPDX-License-Identifier: GPL-2.0
/*
 * changepoint.c - steps and slow drifts in a metric's nightly history.
 *
 * The workload: one value per nightly run, a few dozen to a few hundred
 * of them, analysed once per metric when `mmci history` runs. Sizes are
 * small: the permutation test shuffles a segment's ranks 9999 times and
 * scans every split of each shuffle (O(permutations * m) per segment), the
 * Theil-Sen slope sorts all n (n - 1) / 2 pairwise slopes.
 *
 * The rules and why they are what they are live in changepoint.h.
 */
#include <math.h>
#include <stdarg.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "changepoint.h"
#include "util.h"

static void set_reason(char *reason, size_t len, const char *fmt, ...)
	PRINTF(3, 4);

static void set_reason(char *reason, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, len, fmt, ap);
	va_end(ap);
}

static int check_opts(const struct cp_opts *o)
{
	if (!o->min_segment)
		return error("change-points: min_segment must be at least 1");
	if (!(o->alpha > 0 && o->alpha < 1))
		return error("change-points: alpha %g is not in (0, 1)",
			     o->alpha);
	if (!(o->min_effect_pct >= 0) || !isfinite(o->min_effect_pct))
		return error("change-points: min_effect_pct %g is not >= 0",
			     o->min_effect_pct);
	if (!(o->resolution >= 0) || !isfinite(o->resolution))
		return error("change-points: resolution %g is not >= 0",
			     o->resolution);
	if (1.0 / ((double)o->permutations + 1) >= o->alpha)
		return error("change-points: %zu permutations cannot reach "
			     "p < %g", o->permutations, o->alpha);
	return 0;
}

/*
 * Input checks shared by both tests: -1 with an error for NaN or inf, 1
 * with the reason for data that cannot answer, 0 when fine.
 */
static int check_values(const double *x, size_t n, char *reason, size_t len)
{
	size_t i, bad = 0, nonpos = 0, first = 0;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			if (!bad)
				first = i;
			bad++;
		} else if (x[i] <= 0) {
			nonpos++;
		}
	}
	if (bad) {
		set_reason(reason, len, "%zu of %zu values %s NaN or infinite",
			   bad, n, bad == 1 ? "is" : "are");
		return error("%zu of %zu values %s not finite (NaN or inf), "
			     "first at index %zu", bad, n,
			     bad == 1 ? "is" : "are", first);
	}
	if (nonpos) {
		set_reason(reason, len, "%zu of %zu values %s <= 0: a relative "
			   "change needs positive values", nonpos, n,
			   nonpos == 1 ? "is" : "are");
		return 1;
	}
	return 0;
}

static int all_equal(const double *x, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return 1;
}

static double median_of(const double *x, size_t n)
{
	double *tmp = xmalloc(n * sizeof(*tmp)), med;

	memcpy(tmp, x, n * sizeof(*tmp));
	gsl_sort(tmp, 1, n);
	med = gsl_stats_median_from_sorted_data(tmp, 1, n);
	free(tmp);
	return med;
}

/* C(n, k) as a double: exact while it fits, which is all we need */
static double binomial(size_t n, size_t k)
{
	double c = 1;
	size_t i;

	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/*
 * The smallest permutation p a segment of m values can reach: only the
 * shuffles that separate the values perfectly at the middle split reach
 * the largest |Z| (2 of C(m, m/2) for m even; 4 of C(m, (m-1)/2) for m
 * odd, where the two middle splits tie). Ties only make it larger.
 */
static double segment_min_p(size_t m)
{
	if (m < 2)
		return 1;
	return fmin((m % 2 ? 4 : 2) / binomial(m, m / 2), 1);
}

size_t changepoint_min_points(const struct cp_opts *opts)
{
	struct cp_opts def = CP_OPTS_INIT;
	const struct cp_opts *o = opts ? opts : &def;
	size_t m;

	if (check_opts(o) < 0)
		return 0;
	for (m = 2 * o->min_segment; segment_min_p(m) >= o->alpha; m++)
		;
	return m;
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v;
	double y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Mid-ranks of x[0..m) into rank[], and the tie term sum(t^3 - t) over
 * groups of t equal values.
 */
static double midranks(const double *x, size_t m, double *rank)
{
	struct ranked *r = xmalloc(m * sizeof(*r));
	double ties = 0;
	size_t i, j, k;

	for (i = 0; i < m; i++) {
		r[i].v = x[i];
		r[i].i = i;
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (i = 0; i < m; i = j) {
		double t, mid;

		for (j = i + 1; j < m && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		mid = (double)(i + 1 + j) / 2;
		ties += t * t * t - t;
		for (k = i; k < j; k++)
			rank[r[k].i] = mid;
	}
	free(r);
	return ties;
}

/*
 * The largest standardized rank-sum |Z_k| over the splits k with at least
 * min_seg values on each side; *at gets that k. The variance of the left
 * rank sum is k (m - k) / 12 * c with c = (m + 1) - ties / (m (m - 1)),
 * the same c for every split of the segment. Returns 0 when c is 0 (every
 * value equal): no split says anything.
 */
static double max_z(const double *rank, size_t m, size_t min_seg, double c,
		    size_t *at)
{
	double sum = 0, best = 0, dm = (double)m;
	size_t k;

	*at = 0;
	if (c <= 0)
		return 0;
	for (k = 1; k + min_seg <= m; k++) {
		double dk = (double)k, z;

		sum += rank[k - 1];
		if (k < min_seg)
			continue;
		z = fabs(sum - dk * (dm + 1) / 2) /
		    sqrt(dk * (dm - dk) / 12 * c);
		if (z > best) {
			best = z;
			*at = k;
		}
	}
	return best;
}

struct cp_search {
	const double *x;
	const struct cp_opts *o;
	gsl_rng *rng;
	double *rank, *shuffled;	/* scratch, n each */
	struct cp_result *out;
	size_t nr_small;		/* significant splits dropped for size */
};

/*
 * Permutation p of the observed maximum. Stops as soon as the answer can
 * no longer be below alpha: a p that is not reported need not be exact.
 */
static double permutation_p(struct cp_search *cs, size_t m, double c,
			    double observed)
{
	const struct cp_opts *o = cs->o;
	double limit = o->alpha * ((double)o->permutations + 1);
	double tol = observed * 1e-12;
	size_t b, ge = 0, at;

	memcpy(cs->shuffled, cs->rank, m * sizeof(double));
	for (b = 0; b < o->permutations; b++) {
		gsl_ran_shuffle(cs->rng, cs->shuffled, m, sizeof(double));
		if (max_z(cs->shuffled, m, o->min_segment, c, &at) >=
		    observed - tol)
			ge++;
		if ((double)(ge + 1) >= limit)
			return 1.0 * (ge + 1) / (double)(b + 2);
	}
	return (double)(ge + 1) / ((double)o->permutations + 1);
}

/* binary segmentation of x[lo..hi) */
static void segment_search(struct cp_search *cs, size_t lo, size_t hi)
{
	const struct cp_opts *o = cs->o;
	size_t m = hi - lo, k;
	double ties, c, observed, p, dm = (double)m;
	struct changepoint *cp;

	if (m < 2 * o->min_segment || segment_min_p(m) >= o->alpha)
		return;
	ties = midranks(cs->x + lo, m, cs->rank);
	c = (dm + 1) - ties / (dm * (dm - 1));
	observed = max_z(cs->rank, m, o->min_segment, c, &k);
	if (observed <= 0)
		return;
	p = permutation_p(cs, m, c, observed);
	if (p >= o->alpha)
		return;
	ALLOC_GROW(cs->out->cp, cs->out->nr + 1, cs->out->alloc);
	cp = &cs->out->cp[cs->out->nr++];
	memset(cp, 0, sizeof(*cp));
	cp->index = lo + k;
	cp->p = p;
	segment_search(cs, lo, lo + k);
	segment_search(cs, lo + k, hi);
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = ((const struct changepoint *)a)->index;
	size_t y = ((const struct changepoint *)b)->index;

	return (x > y) - (x < y);
}

/*
 * Medians either side of each change-point, between its neighbours; drop
 * the weakest one that is a tick or below min_effect_pct, and again, until
 * every remaining one passes.
 */
static void apply_effect(struct cp_search *cs, size_t n)
{
	struct cp_result *res = cs->out;
	const struct cp_opts *o = cs->o;

	if (res->nr > 1)	/* qsort's base must not be NULL, even for 0 */
		qsort(res->cp, res->nr, sizeof(*res->cp), cmp_index);
	for (;;) {
		size_t i, weakest = res->nr;
		double weakest_pct = INFINITY;

		for (i = 0; i < res->nr; i++) {
			struct changepoint *cp = &res->cp[i];
			size_t prev = i ? res->cp[i - 1].index : 0;
			size_t next = i + 1 < res->nr ? res->cp[i + 1].index : n;

			cp->before = median_of(cs->x + prev, cp->index - prev);
			cp->after = median_of(cs->x + cp->index,
					      next - cp->index);
			cp->change_pct = (cp->after - cp->before) /
					 cp->before * 100;
			if ((fabs(cp->after - cp->before) <= o->resolution ||
			     fabs(cp->change_pct) < o->min_effect_pct) &&
			    fabs(cp->change_pct) < weakest_pct) {
				weakest = i;
				weakest_pct = fabs(cp->change_pct);
			}
		}
		if (weakest == res->nr)
			break;
		memmove(res->cp + weakest, res->cp + weakest + 1,
			(res->nr - weakest - 1) * sizeof(*res->cp));
		res->nr--;
		cs->nr_small++;
	}
}

static void cp_result_clear(struct cp_result *res, size_t n)
{
	memset(res, 0, sizeof(*res));
	res->status = CP_INSUFFICIENT;
	res->n = n;
}

int changepoint_detect(const double *x, size_t n, const struct cp_opts *opts,
		       struct cp_result *out)
{
	struct cp_opts def = CP_OPTS_INIT;
	const struct cp_opts *o = opts ? opts : &def;
	struct cp_search cs = { 0 };
	size_t need;
	int rc;

	cp_result_clear(out, n);
	if (check_opts(o) < 0) {
		set_reason(out->reason, sizeof(out->reason), "invalid options");
		return -1;
	}
	rc = check_values(x, n, out->reason, sizeof(out->reason));
	if (rc)
		return rc < 0 ? -1 : 0;
	need = changepoint_min_points(o);
	if (n < need) {
		set_reason(out->reason, sizeof(out->reason),
			   "%zu point%s, need at least %zu to reach p < %g "
			   "with %zu or more a side", n, n == 1 ? "" : "s",
			   need, o->alpha, o->min_segment);
		return 0;
	}
	out->status = CP_OK;
	if (all_equal(x, n)) {
		set_reason(out->reason, sizeof(out->reason),
			   "all %zu values are equal", n);
		return 0;
	}
	cs.x = x;
	cs.o = o;
	cs.out = out;
	cs.rank = xmalloc(n * sizeof(*cs.rank));
	cs.shuffled = xmalloc(n * sizeof(*cs.shuffled));
	cs.rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!cs.rng)
		BUG("gsl_rng_alloc failed");
	gsl_rng_set(cs.rng, o->seed);
	segment_search(&cs, 0, n);
	apply_effect(&cs, n);
	if (cs.nr_small)
		set_reason(out->reason, sizeof(out->reason),
			   "%zu significant split%s below %g %% or the "
			   "resolution (%g) not counted", cs.nr_small,
			   cs.nr_small == 1 ? "" : "s", o->min_effect_pct,
			   o->resolution);
	gsl_rng_free(cs.rng);
	free(cs.rank);
	free(cs.shuffled);
	return 0;
}

void cp_result_release(struct cp_result *res)
{
	free(res->cp);
	res->cp = NULL;
	res->nr = res->alloc = 0;
}

void mann_kendall(const double *x, size_t n, double *s, double *var,
		  double *p)
{
	double *sorted, dn = (double)n, ties = 0, sum = 0, z;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			sum += (x[j] > x[i]) - (x[j] < x[i]);
	sorted = xmalloc((n ? n : 1) * sizeof(*sorted));
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	for (i = 0; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && sorted[j] == sorted[i]; j++)
			;
		t = (double)(j - i);
		ties += t * (t - 1) * (2 * t + 5);
	}
	free(sorted);
	*s = sum;
	*var = (dn * (dn - 1) * (2 * dn + 5) - ties) / 18;
	if (*var <= 0) {
		*var = 0;
		*p = NAN;
		return;
	}
	z = sum > 0 ? sum - 1 : sum < 0 ? sum + 1 : 0;
	z /= sqrt(*var);
	*p = fmin(2 * gsl_cdf_ugaussian_Q(fabs(z)), 1);
}

/* linear interpolation at a 1-based position of sorted[0..n), clamped */
static double at_position(const double *sorted, size_t n, double pos)
{
	double f;
	size_t i;

	if (pos <= 1)
		return sorted[0];
	if (pos >= (double)n)
		return sorted[n - 1];
	i = (size_t)floor(pos);
	f = pos - (double)i;
	return sorted[i - 1] + f * (sorted[i] - sorted[i - 1]);
}

static void drift_clear(struct drift *d, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->status = CP_INSUFFICIENT;
	d->n = n;
	d->s = d->z = d->p = NAN;
	d->slope = d->start = d->slope_pct = NAN;
	d->slope_lo_pct = d->slope_hi_pct = d->total_pct = NAN;
}

int drift_detect(const double *x, size_t n, const struct cp_opts *opts,
		 struct drift *out)
{
	struct cp_opts def = CP_OPTS_INIT;
	const struct cp_opts *o = opts ? opts : &def;
	double *slopes, *resid, var, c, npairs;
	size_t i, j, k;
	int rc;

	drift_clear(out, n);
	if (check_opts(o) < 0) {
		set_reason(out->reason, sizeof(out->reason), "invalid options");
		return -1;
	}
	rc = check_values(x, n, out->reason, sizeof(out->reason));
	if (rc)
		return rc < 0 ? -1 : 0;
	if (n < DRIFT_MIN_POINTS) {
		set_reason(out->reason, sizeof(out->reason),
			   "%zu point%s, need at least %d for a trend test",
			   n, n == 1 ? "" : "s", DRIFT_MIN_POINTS);
		return 0;
	}
	out->status = CP_OK;
	mann_kendall(x, n, &out->s, &var, &out->p);
	if (var > 0) {
		double s = out->s;

		out->z = (s > 0 ? s - 1 : s < 0 ? s + 1 : 0) / sqrt(var);
	}

	/* Theil-Sen: the median of the n (n - 1) / 2 pairwise slopes */
	npairs = (double)n * ((double)n - 1) / 2;
	slopes = xmalloc((size_t)npairs * sizeof(*slopes));
	for (i = 0, k = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			slopes[k++] = (x[j] - x[i]) / (double)(j - i);
	gsl_sort(slopes, 1, k);
	out->slope = gsl_stats_median_from_sorted_data(slopes, 1, k);
	resid = xmalloc(n * sizeof(*resid));
	for (i = 0; i < n; i++)
		resid[i] = x[i] - out->slope * (double)i;
	out->start = median_of(resid, n);
	free(resid);

	if (out->start <= 0) {
		free(slopes);
		set_reason(out->reason, sizeof(out->reason),
			   "the fitted first value is <= 0: no relative slope");
		return 0;
	}
	out->slope_pct = out->slope / out->start * 100;
	out->total_pct = out->slope_pct * (double)(n - 1);
	/*
	 * Sen's interval (Gilbert 1987): C = z_0.975 sqrt(var S); the bounds
	 * are the ((N - C) / 2)-th and ((N + C) / 2 + 1)-th ordered slopes.
	 */
	c = gsl_cdf_ugaussian_Pinv(0.975) * sqrt(var);
	out->slope_lo_pct = at_position(slopes, k, (npairs - c) / 2) /
			    out->start * 100;
	out->slope_hi_pct = at_position(slopes, k, (npairs + c) / 2 + 1) /
			    out->start * 100;
	free(slopes);

	if (var <= 0) {
		set_reason(out->reason, sizeof(out->reason),
			   "all %zu values are equal", n);
		return 0;
	}
	if (!(out->p < o->alpha))
		return 0;
	if (fabs(out->slope) * (double)(n - 1) <= o->resolution ||
	    fabs(out->total_pct) < o->min_effect_pct) {
		set_reason(out->reason, sizeof(out->reason),
			   "a significant trend (p %.2g) of only %+.2f %% in "
			   "all, below %g %% or the resolution (%g)", out->p,
			   out->total_pct, o->min_effect_pct, o->resolution);
		return 0;
	}
	out->drifting = 1;
	return 0;
}
