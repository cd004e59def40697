// SPDX-License-Identifier: GPL-2.0
/*
 * test-calibrate.c - unit tests of daemon/calibrate.c: the Wilson interval,
 * A/A false alarms and detection on synthetic pools (normal, CV 8 %, as
 * boot medians under TCG; docs/FACTS.md), determinism, too small a pool,
 * constant pools (icount) and the thresholds' plumbing.
 */
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "calibrate.h"
#include "stats.h"
#include "util.h"
#include "tap.h"

#define MAX_POOL 64
#define MAX_METRICS 10
#define PER_BOOT 10   /* samples per boot in the icount pools */

static double vals[MAX_METRICS][MAX_POOL][PER_BOOT];
static struct calib_boot boots[MAX_METRICS][MAX_POOL];
static struct calib_metric metrics[MAX_METRICS];

/* nr metrics of pool boots, one value per boot: mean 100, sd cv * 100 */
static void normal_pool(size_t nr, size_t pool, double cv, unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i, j;

	gsl_rng_set(r, seed);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < pool; j++) {
			vals[i][j][0] = 100 + gsl_ran_gaussian(r, cv * 100);
			boots[i][j].v = vals[i][j];
			boots[i][j].n = 1;
		}
		metrics[i] = (struct calib_metric){
			.name = "synthetic", .boots = boots[i], .per_boot = 1,
			.lower_is_better = 1, .resolution = 0.001,
		};
	}
	gsl_rng_free(r);
}

/* one metric, every sample of every boot equal to v (icount) */
static void constant_pool(size_t pool, double v, double resolution,
			  int lower_is_better)
{
	size_t j, l;

	for (j = 0; j < pool; j++) {
		for (l = 0; l < PER_BOOT; l++)
			vals[0][j][l] = v;
		boots[0][j].v = vals[0][j];
		boots[0][j].n = PER_BOOT;
	}
	metrics[0] = (struct calib_metric){
		.name = "memmap", .boots = boots[0], .per_boot = 0,
		.lower_is_better = lower_is_better, .resolution = resolution,
	};
}

static struct calib_opts opts(size_t k, size_t trials)
{
	return (struct calib_opts){ .k = k, .trials = trials,
				    .seed = CALIB_SEED, .alpha = 0.05,
				    .min_effect_pct = 1 };
}

static void test_wilson(void)
{
	struct calib_rate r;

	/* p = .05, n = 100, z = 1.95996: center .066648, half .045103 */
	calib_rate_set(&r, 5, 100);
	is_double(r.pct, 5, 1e-12, "wilson 5/100: 5 %");
	is_double(r.lo_pct, 2.1545, 1e-3, "wilson 5/100: low 2.15 %");
	is_double(r.hi_pct, 11.175, 1e-3, "wilson 5/100: high 11.18 %");
	/* 0 of 10: [0, z^2 / (n + z^2)] = [0, 27.75 %] */
	calib_rate_set(&r, 0, 10);
	is_double(r.lo_pct, 0, 1e-12, "wilson 0/10: low 0");
	is_double(r.hi_pct, 27.753, 1e-3, "wilson 0/10: high 27.75 %");
	calib_rate_set(&r, 10, 10);
	ok(r.pct == 100 && r.hi_pct == 100 && r.lo_pct > 72 && r.lo_pct < 73,
	   "wilson 10/10: [72.2, 100]");
	calib_rate_set(&r, 0, 0);
	ok(isnan(r.pct) && isnan(r.lo_pct) && isnan(r.hi_pct),
	   "no trials: NAN");
}

/*
 * A/A at CV 8 %, 5 boots a side, on a pool of 40 (large enough that the
 * splits are nearly independent samples): the rate must stay below alpha
 * (test-stats.c measured ~2 % on independent draws), detection must grow
 * with the slowdown, and the family rate of 10 metrics lies between the
 * largest single rate and the sum.
 */
static void test_normal(void)
{
	struct calib_result res[MAX_METRICS], fam, again[MAX_METRICS];
	struct calib_opts o = opts(5, 1000);
	size_t i, fa = 0, d5 = 0, d10 = 0, max_fa = 0, trials = 0;
	int ret;

	normal_pool(MAX_METRICS, 40, 0.08, 1);
	ret = calibrate(metrics, MAX_METRICS, 40, &o, res, &fam);
	is_int(ret, 0, "normal pool: calibrate returns 0");
	for (i = 0; i < MAX_METRICS; i++) {
		fa += res[i].false_alarm.hits;
		max_fa = res[i].false_alarm.hits > max_fa ?
				 res[i].false_alarm.hits : max_fa;
		d5 += res[i].detect[0].hits;
		d10 += res[i].detect[1].hits;
		trials += res[i].false_alarm.trials;
	}
	printf("# P 40, k 5, CV 8 %%: false alarms %.2f %%, detection +5 %% "
	       "%.1f %%, +10 %% %.1f %%, family %.1f %%\n",
	       100.0 * fa / trials, 100.0 * d5 / trials, 100.0 * d10 / trials,
	       fam.false_alarm.pct);
	is_int(trials, MAX_METRICS * 1000, "every metric ran T trials");
	ok(fa <= 0.05 * trials, "A/A false alarms <= alpha (5 %)");
	ok(d10 > d5, "detection of +10 % beats +5 %");
	ok(d5 > fa, "detection of +5 % beats the false-alarm rate");
	ok(d10 > 0.25 * trials, "+10 % at CV 8 %, 5 vs 5: seen often");
	ok(fam.false_alarm.hits >= max_fa && fam.false_alarm.hits <= fa,
	   "family rate between the largest single rate and the sum");
	ok(res[0].insufficient.hits == 0, "5 vs 5 boots: never insufficient");
	ok(res[0].false_alarm.lo_pct <= res[0].false_alarm.pct &&
	   res[0].false_alarm.pct <= res[0].false_alarm.hi_pct,
	   "the interval contains the estimate");

	/* same seed, same rates; another seed, other splits */
	calibrate(metrics, MAX_METRICS, 40, &o, again, NULL);
	for (i = 0; i < MAX_METRICS; i++)
		if (again[i].false_alarm.hits != res[i].false_alarm.hits ||
		    again[i].detect[0].hits != res[i].detect[0].hits ||
		    again[i].detect[1].hits != res[i].detect[1].hits)
			break;
	is_int(i, MAX_METRICS, "same seed: same counts");
	o.seed++;
	calibrate(metrics, MAX_METRICS, 40, &o, again, NULL);
	for (i = 0; i < MAX_METRICS; i++)
		if (again[i].detect[0].hits != res[i].detect[0].hits)
			break;
	ok(i < MAX_METRICS, "another seed: other splits");

	/* stricter thresholds never alarm more often on the same splits */
	o.seed = CALIB_SEED;
	o.alpha = 0.01;
	o.min_effect_pct = 3;
	calibrate(metrics, MAX_METRICS, 40, &o, again, NULL);
	for (i = 0; i < MAX_METRICS; i++)
		if (again[i].false_alarm.hits > res[i].false_alarm.hits ||
		    again[i].detect[1].hits > res[i].detect[1].hits)
			break;
	is_int(i, MAX_METRICS, "alpha .01, 3 %: no more alarms than .05, 1 %");
}

/* a real-sized pool: 12 boots, the rates are those of this one pool */
static void test_small_pool(void)
{
	struct calib_result res[1], fam;
	struct calib_opts o = opts(5, 500);

	normal_pool(1, 12, 0.08, 7);
	is_int(calibrate(metrics, 1, 12, &o, res, &fam), 0, "P 12, k 5: ok");
	printf("# P 12, k 5: false alarms %.1f %% [%.1f, %.1f], detection "
	       "+5 %% %.1f %%, +10 %% %.1f %%\n", res[0].false_alarm.pct,
	       res[0].false_alarm.lo_pct, res[0].false_alarm.hi_pct,
	       res[0].detect[0].pct, res[0].detect[1].pct);
	ok(res[0].detect[1].pct >= res[0].detect[0].pct,
	   "P 12: +10 % detected at least as often as +5 %");
	ok(fam.false_alarm.hits == res[0].false_alarm.hits,
	   "one metric: the family rate is the metric's");

	/* P = 2k is the smallest pool; P < 2k cannot be split */
	o.k = 6;
	is_int(calibrate(metrics, 1, 12, &o, res, NULL), 0, "P 12, k 6: ok");
	o.k = 7;
	is_int(calibrate(metrics, 1, 12, &o, res, &fam), 1,
	       "P 12, k 7: returns 1 (pool too small)");
	ok(res[0].false_alarm.trials == 0 && isnan(res[0].false_alarm.pct) &&
	   isnan(res[0].detect[1].pct) && isnan(fam.false_alarm.pct),
	   "pool too small: no trials, NAN rates");
}

/* icount: every sample the same, the verdict rests on the resolution */
static void test_constant(void)
{
	struct calib_result res[1];
	struct calib_opts o = opts(2, 200);

	/* 137 ms, 1 ms jiffy: +5 % = 6.85 ms and +10 % exceed one tick */
	constant_pool(6, 137, 1, 1);
	is_int(calibrate(metrics, 1, 6, &o, res, NULL), 0, "constant: ok");
	is_int(res[0].false_alarm.hits, 0, "constant: no false alarm");
	is_int(res[0].insufficient.hits, 0, "constant: never insufficient");
	/* C(6, 2) * C(4, 2) = 90 ordered splits < T: each once */
	is_int(res[0].false_alarm.trials, 90, "P 6, k 2: all 90 splits once");
	is_int(res[0].detect[0].hits, 90, "constant: +5 % always detected");
	is_int(res[0].detect[1].hits, 90, "constant: +10 % always detected");

	/* 15 ms: +5 % = 0.75 ms is below a 1 ms tick, +10 % = 1.5 ms not */
	constant_pool(6, 15, 1, 1);
	calibrate(metrics, 1, 6, &o, res, NULL);
	ok(res[0].false_alarm.hits == 0 && res[0].detect[0].hits == 0 &&
	   res[0].detect[1].hits == 90,
	   "15 ms at 1 ms resolution: +5 % invisible, +10 % always seen");

	/* higher is better: a slowdown divides, and is still WORSE */
	constant_pool(6, 500, 1, 0);
	calibrate(metrics, 1, 6, &o, res, NULL);
	ok(res[0].false_alarm.hits == 0 && res[0].detect[0].hits == 90,
	   "higher-is-better metric: slowdown detected as worse");

	/* min effect 6 %: the exact 5 % change is below it, 10 % is not */
	constant_pool(6, 137, 1, 1);
	o.min_effect_pct = 6;
	calibrate(metrics, 1, 6, &o, res, NULL);
	ok(res[0].detect[0].hits == 0 && res[0].detect[1].hits == 90,
	   "min effect 6 %: +5 % not reported, +10 % reported");
}

/* a metric missing from some boots, and input errors */
static void test_edges(void)
{
	struct calib_result res[1];
	struct calib_opts o = opts(2, 100);
	double bad[1] = { NAN };

	constant_pool(6, 137, 1, 1);
	/* only boots 0 and 1 have the metric: most splits lack a side */
	boots[0][2].n = boots[0][3].n = boots[0][4].n = boots[0][5].n = 0;
	is_int(calibrate(metrics, 1, 6, &o, res, NULL), 0, "sparse: ok");
	/*
	 * both sides have data only when A holds one of boots 0, 1 and B
	 * the other: 2 * 4 * 3 = 24 of the 90 splits
	 */
	ok(res[0].insufficient.hits == 66 && res[0].false_alarm.hits == 0,
	   "a metric missing from boots: insufficient, not an alarm");

	constant_pool(6, 137, 1, 1);
	boots[0][3].v = bad;
	boots[0][3].n = 1;
	is_int(calibrate(metrics, 1, 6, &o, res, NULL), -1, "NaN: error");
	constant_pool(6, 137, 1, 1);
	o.k = 0;
	is_int(calibrate(metrics, 1, 6, &o, res, NULL), -1, "k 0: error");
	o.k = 2;
	o.alpha = 1;
	is_int(calibrate(metrics, 1, 6, &o, res, NULL), -1, "alpha 1: error");
}

int main(void)
{
	test_wilson();
	test_normal();
	test_small_pool();
	test_constant();
	test_edges();
	return done_testing();
}
