// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate.c - how often compare_samples() cries wolf on one kernel
 * against itself, and how often it sees an injected slowdown.
 *
 * Workload: a pool of 5-20 boots of one kernel with a few dozen metrics;
 * T = 1000 trials cost 3 * T * metrics comparisons, milliseconds each at
 * most (the bootstrap only runs with 8 units or more a side, i.e. in
 * icount mode where the units are samples, and there the values are mostly
 * constant and take the cheap "resolution" rule). See calibrate.h for
 * what the rates mean and what they cannot mean.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

#include "calibrate.h"
#include "stats.h"
#include "util.h"

const double calib_slowdowns[CALIB_NR_SLOWDOWNS] = { 0.05, 0.10 };

void calib_rate_set(struct calib_rate *r, size_t hits, size_t trials)
{
	double z, n, p, denom, center, half;

	r->hits = hits;
	r->trials = trials;
	if (!trials) {
		r->pct = r->lo_pct = r->hi_pct = NAN;
		return;
	}
	z = gsl_cdf_ugaussian_Pinv(0.975);
	n = (double)trials;
	p = (double)hits / n;
	denom = 1 + z * z / n;
	center = (p + z * z / (2 * n)) / denom;
	half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom;
	r->pct = 100 * p;
	r->lo_pct = 100 * fmax(0, center - half);
	r->hi_pct = 100 * fmin(1, center + half);
}

/* the units of one side: boots idx[0..k-1] of m, every value times scale */
static void units_fill(struct doubles *u, const struct calib_metric *m,
		       const size_t *idx, size_t k, double scale)
{
	struct summary s;
	size_t i, j;

	u->nr = 0;
	for (i = 0; i < k; i++) {
		const struct calib_boot *b = &m->boots[idx[i]];

		if (!b->n)
			continue;
		if (m->per_boot) {
			if (summarize(b->v, b->n, &s) < 0)
				continue;
			ALLOC_GROW(u->v, u->nr + 1, u->alloc);
			u->v[u->nr++] = s.median * scale;
			continue;
		}
		ALLOC_GROW(u->v, u->nr + b->n, u->alloc);
		for (j = 0; j < b->n; j++)
			u->v[u->nr++] = b->v[j] * scale;
	}
}

static enum verdict verdict_of(const struct doubles *a, const struct doubles *b,
			       const struct compare_opts *co)
{
	struct comparison c;

	if (compare_samples(a->v, a->nr, b->v, b->nr, co, &c) < 0)
		return VERDICT_INSUFFICIENT;
	return c.verdict;
}

static int check_input(const struct calib_metric *m, size_t nr, size_t pool,
		       const struct calib_opts *o)
{
	size_t i, j, l;

	if (!o->k || !o->trials)
		return error("calibration needs k >= 1 boots per side and at "
			     "least one trial, not k %zu, %zu trials", o->k,
			     o->trials);
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->min_effect_pct >= 0) ||
	    isinf(o->min_effect_pct))
		return error("calibration thresholds out of range: alpha %g, "
			     "min effect %g %%", o->alpha, o->min_effect_pct);
	for (i = 0; i < nr; i++)
		for (j = 0; j < pool; j++)
			for (l = 0; l < m[i].boots[j].n; l++)
				if (!isfinite(m[i].boots[j].v[l]))
					return error("metric '%s', boot %zu: "
						     "value %zu is not finite",
						     m[i].name, j, l);
	return 0;
}

/*
 * The ordered splits (A, B) of boots 0..pool-1 into two disjoint groups of
 * k, as 2k indices each (A first), in a fixed order; NULL when there are
 * more than max of them (or the pool is too large to enumerate).
 */
static size_t *all_splits(size_t pool, size_t k, size_t max, size_t *nr)
{
	unsigned long a, b, all;
	size_t *out, n = 0, i, j;
	double count = gsl_sf_choose(pool, k) * gsl_sf_choose(pool - k, k);

	if (pool > 20 || count > (double)max)
		return NULL;
	out = xcalloc((size_t)count * 2 * k, sizeof(*out));
	all = (1UL << pool) - 1;
	for (a = 0; a <= all; a++) {
		if ((size_t)__builtin_popcountl(a) != k)
			continue;
		for (b = 0; b <= all; b++) {
			size_t *p = out + n * 2 * k;

			if ((a & b) || (size_t)__builtin_popcountl(b) != k)
				continue;
			for (i = 0, j = 0; i < pool; i++)
				if (a & (1UL << i))
					p[j++] = i;
			for (i = 0; i < pool; i++)
				if (b & (1UL << i))
					p[j++] = i;
			n++;
		}
	}
	*nr = n;
	return out;
}

struct counts {
	size_t fa, ins, det[CALIB_NR_SLOWDOWNS], dins[CALIB_NR_SLOWDOWNS];
};

static void counts_to_result(const struct counts *c, size_t trials,
			     struct calib_result *r)
{
	size_t s;

	calib_rate_set(&r->false_alarm, c->fa, trials);
	calib_rate_set(&r->insufficient, c->ins, trials);
	for (s = 0; s < CALIB_NR_SLOWDOWNS; s++) {
		calib_rate_set(&r->detect[s], c->det[s], trials);
		calib_rate_set(&r->detect_insufficient[s], c->dins[s], trials);
	}
}

int calibrate(const struct calib_metric *m, size_t nr, size_t pool,
	      const struct calib_opts *o, struct calib_result *out,
	      struct calib_result *family)
{
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct counts *cnt, fam = { 0 };
	struct doubles a = { 0 }, b = { 0 };
	size_t *src, *pick, *splits, nr_splits = 0, trials, i, t, s;
	gsl_rng *rng;
	int ret;

	ret = check_input(m, nr, pool, o);
	if (!ret && pool < 2 * o->k)
		ret = 1;
	if (ret) {
		for (i = 0; i < nr; i++)
			counts_to_result(&(struct counts){ 0 }, 0, &out[i]);
		if (family)
			counts_to_result(&fam, 0, family);
		return ret;
	}

	co.alpha = o->alpha;
	co.min_effect_pct = o->min_effect_pct;
	cnt = xcalloc(nr, sizeof(*cnt));
	src = xcalloc(pool, sizeof(*src));
	pick = xcalloc(2 * o->k, sizeof(*pick));
	for (i = 0; i < pool; i++)
		src[i] = i;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o->seed);
	splits = all_splits(pool, o->k, o->trials, &nr_splits);
	trials = splits ? nr_splits : o->trials;

	for (t = 0; t < trials; t++) {
		int any_fa = 0, any_ins = 0;
		int any_det[CALIB_NR_SLOWDOWNS] = { 0 };
		int any_dins[CALIB_NR_SLOWDOWNS] = { 0 };

		if (splits) {
			memcpy(pick, splits + t * 2 * o->k,
			       2 * o->k * sizeof(*pick));
		} else {
			/* 2k distinct boots in random order: A, then B */
			gsl_ran_choose(rng, pick, 2 * o->k, src, pool,
				       sizeof(*pick));
			gsl_ran_shuffle(rng, pick, 2 * o->k, sizeof(*pick));
		}
		for (i = 0; i < nr; i++) {
			enum verdict v;

			co.lower_is_better = m[i].lower_is_better;
			co.resolution = m[i].resolution;
			units_fill(&a, &m[i], pick, o->k, 1);
			units_fill(&b, &m[i], pick + o->k, o->k, 1);
			v = verdict_of(&a, &b, &co);
			if (v == VERDICT_BETTER || v == VERDICT_WORSE) {
				cnt[i].fa++;
				any_fa = 1;
			} else if (v == VERDICT_INSUFFICIENT) {
				cnt[i].ins++;
				any_ins = 1;
			}
			for (s = 0; s < CALIB_NR_SLOWDOWNS; s++) {
				double f = 1 + calib_slowdowns[s];

				units_fill(&b, &m[i], pick + o->k, o->k,
					   m[i].lower_is_better ? f : 1 / f);
				v = verdict_of(&a, &b, &co);
				if (v == VERDICT_WORSE) {
					cnt[i].det[s]++;
					any_det[s] = 1;
				} else if (v == VERDICT_INSUFFICIENT) {
					cnt[i].dins[s]++;
					any_dins[s] = 1;
				}
			}
		}
		fam.fa += any_fa;
		fam.ins += any_ins;
		for (s = 0; s < CALIB_NR_SLOWDOWNS; s++) {
			fam.det[s] += any_det[s];
			fam.dins[s] += any_dins[s];
		}
	}

	for (i = 0; i < nr; i++)
		counts_to_result(&cnt[i], trials, &out[i]);
	if (family)
		counts_to_result(&fam, trials, family);
	gsl_rng_free(rng);
	free(splits);
	free(cnt);
	free(src);
	free(pick);
	free(a.v);
	free(b.v);
	return 0;
}
