// SPDX-License-Identifier: GPL-2.0
/*
 * test-changepoint.c - unit tests of daemon/changepoint.c: steps found by
 * binary segmentation with a permutation test, the Mann-Kendall drift test
 * and the Theil-Sen slope, the "insufficient data" rules, and the
 * false-alarm rate on flat noisy histories. Random data come from gsl_rng
 * with fixed seeds, so every run checks the same sequences.
 */
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "changepoint.h"
#include "util.h"
#include "tap.h"

#define EPS 1e-9

/* x[i] = level(i) * (1 + cv * N(0, 1)) */
static void noisy(gsl_rng *r, double *x, size_t n, double cv)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] *= 1 + gsl_ran_gaussian(r, cv);
}

static void fill(double *x, size_t n, double v)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = v;
}

static void test_min_points(void)
{
	struct cp_opts o = CP_OPTS_INIT;

	/* 2 / C(12, 6) = 0.0022 < 0.005; 4 / C(11, 5) = 0.0087 is not */
	is_int(changepoint_min_points(NULL), 12, "default: 12 points");
	/* 2 / C(8, 4) = 0.029 < 0.05; 4 / C(7, 3) = 0.114 is not */
	o.alpha = 0.05;
	is_int(changepoint_min_points(&o), 8, "alpha 0.05: 8 points");
	/* min_segment 5 needs 10 even where alpha would allow fewer */
	o.min_segment = 5;
	is_int(changepoint_min_points(&o), 10, "min segment 5: 10 points");
	o = (struct cp_opts)CP_OPTS_INIT;
	o.permutations = 100;	/* p can never go below 1/101 > 0.005 */
	is_int(changepoint_min_points(&o), 0, "too few permutations: invalid");
}

static void test_mann_kendall(void)
{
	const double up[] = { 1, 2, 3, 4, 5 };
	const double tied[] = { 1, 1, 2 };
	const double same[] = { 7, 7, 7, 7 };
	double s, var, p;

	/*
	 * 1..5: every pair rises, S = 10; var = 5 * 4 * 15 / 18 = 16.667;
	 * z = (10 - 1) / 4.0825 = 2.2045; p = 2 Q(2.2045) = 0.027486
	 */
	mann_kendall(up, 5, &s, &var, &p);
	is_double(s, 10, EPS, "MK S of a rising sequence");
	is_double(var, 300.0 / 18, EPS, "MK variance without ties");
	is_double(p, 0.027486, 1e-5, "MK p (normal, continuity-corrected)");
	/* 1 1 2: S = 0 + 1 + 1; var = (3*2*11 - 2*1*9) / 18 = 48 / 18 */
	mann_kendall(tied, 3, &s, &var, &p);
	is_double(s, 2, EPS, "MK S with a tie");
	is_double(var, 48.0 / 18, EPS, "MK tie-corrected variance");
	mann_kendall(same, 4, &s, &var, &p);
	ok(s == 0 && var == 0 && isnan(p), "MK of equal values: p is NaN");
}

static void test_theil_sen(void)
{
	double x[10];
	struct drift d;
	size_t i;

	/* an exact line 100 + 2 i: slope 2, fitted start 100, 2 % a run */
	for (i = 0; i < 10; i++)
		x[i] = 100 + 2.0 * (double)i;
	x[4] = 500;	/* one wild night moves neither estimate */
	is_int(drift_detect(x, 10, NULL, &d), 0, "drift of a line");
	is_double(d.slope, 2, EPS, "Theil-Sen slope ignores an outlier");
	is_double(d.start, 100, EPS, "fitted first value");
	is_double(d.slope_pct, 2, EPS, "slope in % of the first value");
	is_double(d.total_pct, 18, EPS, "total: 9 runs of 2 %");
	ok(d.slope_lo_pct <= 2 && d.slope_hi_pct >= 2,
	   "Sen's interval holds the slope");
	ok(d.drifting && d.status == CP_OK, "a steady climb is a drift");
}

/*
 * The false-alarm rate: 200 flat histories of 20 nights at CV 1 % (seeds
 * 1..200). Neither test may call more than 1 % of them.
 */
static void test_flat(void)
{
	size_t seq, steps = 0, drifts = 0, insufficient = 0;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double x[20];

	for (seq = 1; seq <= 200; seq++) {
		struct cp_result res;
		struct drift d;

		gsl_rng_set(r, seq);
		fill(x, 20, 100);
		noisy(r, x, 20, 0.01);
		if (changepoint_detect(x, 20, NULL, &res) < 0 ||
		    res.status != CP_OK)
			insufficient++;
		steps += res.nr > 0;
		cp_result_release(&res);
		if (drift_detect(x, 20, NULL, &d) < 0 || d.status != CP_OK)
			insufficient++;
		drifts += d.drifting;
	}
	gsl_rng_free(r);
	printf("# flat histories (200 x 20 nights, CV 1 %%): %zu with a "
	       "step, %zu with a drift\n", steps, drifts);
	is_int(insufficient, 0, "flat: every history gets an answer");
	ok(steps <= 2, "flat: steps in at most 1 % of 200 histories");
	ok(drifts <= 2, "flat: drifts in at most 1 % of 200 histories");
}

static void test_one_step(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t seq, found = 0, exact = 0, extra = 0;
	struct cp_result res;
	double x[20];

	/* one shown in detail: 10 nights at 100, then 10 at 105, CV 1 % */
	gsl_rng_set(r, 42);
	fill(x, 10, 100);
	fill(x + 10, 10, 105);
	noisy(r, x, 20, 0.01);
	is_int(changepoint_detect(x, 20, NULL, &res), 0, "5 % step: runs");
	is_int(res.nr, 1, "5 % step: one change-point");
	if (res.nr == 1) {
		is_int(res.cp[0].index, 10, "5 % step: at the first run after");
		is_double(res.cp[0].before, 100, 1.5, "5 % step: before ~100");
		is_double(res.cp[0].after, 105, 1.5, "5 % step: after ~105");
		is_double(res.cp[0].change_pct, 5, 1.5, "5 % step: ~+5 %");
		ok(res.cp[0].p < 0.005, "5 % step: p < alpha");
	}
	cp_result_release(&res);

	/* and its power over 100 histories */
	for (seq = 1; seq <= 100; seq++) {
		gsl_rng_set(r, 1000 + seq);
		fill(x, 10, 100);
		fill(x + 10, 10, 105);
		noisy(r, x, 20, 0.01);
		changepoint_detect(x, 20, NULL, &res);
		found += res.nr >= 1;
		extra += res.nr > 1;
		exact += res.nr == 1 && res.cp[0].index == 10;
		cp_result_release(&res);
	}
	gsl_rng_free(r);
	printf("# 5 %% step at CV 1 %%: found in %zu of 100, at the right "
	       "night in %zu, more than one in %zu\n", found, exact, extra);
	ok(found >= 95, "5 % step: found in at least 95 of 100");
	ok(exact >= 90, "5 % step: at the right night in at least 90");
}

static void test_two_steps(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cp_result res;
	double x[30];

	/* 100, then +5 % at night 10, then back down 8 % at night 20 */
	gsl_rng_set(r, 7);
	fill(x, 10, 100);
	fill(x + 10, 10, 105);
	fill(x + 20, 10, 96.6);
	noisy(r, x, 30, 0.01);
	is_int(changepoint_detect(x, 30, NULL, &res), 0, "two steps: runs");
	is_int(res.nr, 2, "two steps: two change-points");
	if (res.nr == 2) {
		is_int(res.cp[0].index, 10, "two steps: first at 10");
		is_int(res.cp[1].index, 20, "two steps: second at 20");
		ok(res.cp[0].change_pct > 3, "two steps: first goes up");
		ok(res.cp[1].change_pct < -6, "two steps: second goes down");
		is_double(res.cp[1].before, res.cp[0].after, EPS,
			  "two steps: the middle segment is shared");
	}
	cp_result_release(&res);
	gsl_rng_free(r);
}

static void test_drift(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct drift d;
	struct cp_result res;
	double x[20];
	size_t i, seq, flagged = 0;

	/* +0.5 % a night over 20 nights, CV 1 %, no step anywhere */
	gsl_rng_set(r, 3);
	for (i = 0; i < 20; i++)
		x[i] = 100 * (1 + 0.005 * (double)i);
	noisy(r, x, 20, 0.01);
	is_int(drift_detect(x, 20, NULL, &d), 0, "drift: runs");
	ok(d.status == CP_OK && d.drifting, "drift of 0.5 %/night flagged");
	is_double(d.slope_pct, 0.5, 0.2, "drift: slope ~0.5 %/night");
	ok(d.p < 0.005, "drift: Mann-Kendall p < alpha");
	ok(d.slope_lo_pct > 0 && d.slope_hi_pct > d.slope_lo_pct,
	   "drift: the interval excludes 0");
	printf("# drift: %+.3f %%/run [%+.3f, %+.3f], %+.1f %% in all, p "
	       "%.2g\n", d.slope_pct, d.slope_lo_pct, d.slope_hi_pct,
	       d.total_pct, d.p);
	changepoint_detect(x, 20, NULL, &res);
	printf("# the same history has %zu step(s)\n", res.nr);
	cp_result_release(&res);

	/* power over 100 such histories */
	for (seq = 1; seq <= 100; seq++) {
		gsl_rng_set(r, 5000 + seq);
		for (i = 0; i < 20; i++)
			x[i] = 100 * (1 + 0.005 * (double)i);
		noisy(r, x, 20, 0.01);
		drift_detect(x, 20, NULL, &d);
		flagged += d.drifting;
	}
	printf("# 0.5 %%/night drift: flagged in %zu of 100\n", flagged);
	ok(flagged >= 95, "drift: flagged in at least 95 of 100");

	/* a significant but tiny trend is not a drift */
	for (i = 0; i < 20; i++)
		x[i] = 100 + 0.01 * (double)i;	/* 0.19 % in all */
	drift_detect(x, 20, NULL, &d);
	ok(d.status == CP_OK && !d.drifting && d.p < 0.005,
	   "drift below min effect: not flagged");
	ok(strstr(d.reason, "below") != NULL, "drift below min effect: says so");
	gsl_rng_free(r);
}

static void test_exact_mode(void)
{
	struct cp_opts o = CP_OPTS_INIT;
	struct cp_result res;
	struct drift d;
	double x[12];

	/* icount: 6 nights of exactly 137 ms, then 6 of 182 ms */
	fill(x, 6, 137);
	fill(x + 6, 6, 182);
	o.resolution = 4;	/* HZ=250 */
	is_int(changepoint_detect(x, 12, &o, &res), 0, "icount step: runs");
	is_int(res.nr, 1, "icount step: found");
	if (res.nr == 1) {
		is_int(res.cp[0].index, 6, "icount step: at night 6");
		is_double(res.cp[0].before, 137, EPS, "icount step: before");
		is_double(res.cp[0].after, 182, EPS, "icount step: after");
		is_double(res.cp[0].change_pct, 45.0 / 137 * 100, 1e-9,
			  "icount step: change %");
	}
	cp_result_release(&res);

	/* one tick up is never a step, however clean */
	fill(x + 6, 6, 141);
	changepoint_detect(x, 12, &o, &res);
	is_int(res.nr, 0, "a step of one clock tick: not counted");
	ok(strstr(res.reason, "resolution") != NULL,
	   "a step of one clock tick: the reason says why");
	cp_result_release(&res);

	/* all equal: an exact "no change", not insufficient */
	fill(x, 12, 137);
	is_int(changepoint_detect(x, 12, &o, &res), 0, "all equal: runs");
	ok(res.status == CP_OK && res.nr == 0, "all equal: no change-point");
	ok(strstr(res.reason, "equal") != NULL, "all equal: says so");
	cp_result_release(&res);
	is_int(drift_detect(x, 12, &o, &d), 0, "all equal: drift runs");
	ok(d.status == CP_OK && !d.drifting, "all equal: no drift");
	ok(isnan(d.p) && d.slope == 0, "all equal: slope 0, no p made up");
}

static void test_min_effect(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cp_result res;
	double x[20];

	/* a 0.5 % step at CV 0.05 %: significant, but below 1 % */
	gsl_rng_set(r, 11);
	fill(x, 10, 100);
	fill(x + 10, 10, 100.5);
	noisy(r, x, 20, 0.0005);
	changepoint_detect(x, 20, NULL, &res);
	is_int(res.nr, 0, "0.5 % step: below min effect, not counted");
	ok(strstr(res.reason, "significant split") != NULL,
	   "0.5 % step: the reason names the dropped split");
	cp_result_release(&res);

	/* one wild night in a flat history is not a step */
	gsl_rng_set(r, 12);
	fill(x, 20, 100);
	noisy(r, x, 20, 0.01);
	x[9] = 300;
	changepoint_detect(x, 20, NULL, &res);
	is_int(res.nr, 0, "one outlier night: no step");
	cp_result_release(&res);
	gsl_rng_free(r);
}

static void test_insufficient(void)
{
	double x[12] = { 100, 101, 99, 100, 102 };
	struct cp_result res;
	struct drift d;

	is_int(changepoint_detect(x, 5, NULL, &res), 0, "5 points: no error");
	ok(res.status == CP_INSUFFICIENT && res.nr == 0,
	   "5 points: insufficient");
	ok(strstr(res.reason, "need at least 12") != NULL,
	   "5 points: reason says how many");
	cp_result_release(&res);
	is_int(drift_detect(x, 5, NULL, &d), 0, "5 points: drift no error");
	ok(d.status == CP_INSUFFICIENT && isnan(d.slope) && isnan(d.p),
	   "5 points: drift insufficient, no numbers");
	ok(strstr(d.reason, "need at least 8") != NULL,
	   "5 points: drift reason says how many");

	changepoint_detect(NULL, 0, NULL, &res);
	ok(res.status == CP_INSUFFICIENT, "no points: insufficient");
	cp_result_release(&res);

	fill(x, 12, 100);
	x[3] = NAN;
	is_int(changepoint_detect(x, 12, NULL, &res), -1, "NaN: an error");
	ok(res.status == CP_INSUFFICIENT && res.nr == 0 &&
	   strstr(res.reason, "NaN") != NULL, "NaN: insufficient, says why");
	cp_result_release(&res);
	is_int(drift_detect(x, 12, NULL, &d), -1, "NaN: drift error");
	ok(d.status == CP_INSUFFICIENT && isnan(d.slope),
	   "NaN: drift insufficient");
	x[3] = INFINITY;
	is_int(drift_detect(x, 12, NULL, &d), -1, "inf: drift error");

	x[3] = 0;
	is_int(changepoint_detect(x, 12, NULL, &res), 0, "a 0: no error");
	ok(res.status == CP_INSUFFICIENT && strstr(res.reason, "<= 0"),
	   "a 0: insufficient, relative change undefined");
	cp_result_release(&res);

	{
		struct cp_opts o = CP_OPTS_INIT;

		x[3] = 100;
		o.alpha = 0;
		is_int(changepoint_detect(x, 12, &o, &res), -1,
		       "alpha 0: an error");
		cp_result_release(&res);
	}
}

static void test_deterministic(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cp_result a, b;
	double x[16];

	gsl_rng_set(r, 99);
	fill(x, 8, 100);
	fill(x + 8, 8, 103);
	noisy(r, x, 16, 0.01);
	changepoint_detect(x, 16, NULL, &a);
	changepoint_detect(x, 16, NULL, &b);
	ok(a.nr == b.nr && (!a.nr || a.cp[0].p == b.cp[0].p),
	   "same input, same change-points and p");
	cp_result_release(&a);
	cp_result_release(&b);
	gsl_rng_free(r);
}

int main(void)
{
	test_min_points();
	test_mann_kendall();
	test_theil_sen();
	test_flat();
	test_one_step();
	test_two_steps();
	test_drift();
	test_exact_mode();
	test_min_effect();
	test_insufficient();
	test_deterministic();
	return done_testing();
}
