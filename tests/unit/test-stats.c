// SPDX-License-Identifier: GPL-2.0
/*
 * test-stats.c - unit tests of daemon/stats.c (summaries, Welch, Mann-Whitney,
 * Hodges-Lehmann, bootstrap, the verdict rules) and a small false-alarm
 * check on simulated boots. Expected values are computed by hand in the
 * comments; random data come from gsl_rng with fixed seeds.
 */
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"
#include "util.h"
#include "tap.h"

#define EPS 1e-9

static void fill(double *x, size_t n, double v)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = v;
}

static void draw(gsl_rng *r, double *x, size_t n, double mean, double sd,
		 double scale)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = scale * (mean + gsl_ran_gaussian(r, sd));
}

static void test_summarize(void)
{
	const double odd[] = { 3, 1, 2 };
	const double even[] = { 4, 1, 3, 2 };
	const double one[] = { 5 };
	const double bad[] = { 1, NAN, 3, INFINITY };
	struct summary s;

	/* sorted 1 2 3: type-7 q1 at h = 2 * 0.25 = 0.5 -> 1.5, q3 -> 2.5 */
	is_int(summarize(odd, 3, &s), 0, "summarize odd n");
	is_int(s.n, 3, "odd n");
	is_double(s.min, 1, EPS, "odd min");
	is_double(s.max, 3, EPS, "odd max");
	is_double(s.median, 2, EPS, "odd median");
	is_double(s.mean, 2, EPS, "odd mean");
	is_double(s.stddev, 1, EPS, "odd stddev (n-1)");
	is_double(s.cv, 0.5, EPS, "odd cv");
	is_double(s.q1, 1.5, EPS, "odd q1 (type 7)");
	is_double(s.q3, 2.5, EPS, "odd q3 (type 7)");

	/*
	 * sorted 1 2 3 4: median (2+3)/2; q1 at h = 3 * 0.25 = 0.75 ->
	 * 1 + 0.75 = 1.75; q3 at 2.25 -> 3.25; sd = sqrt((2.25+0.25)*2/3)
	 */
	is_int(summarize(even, 4, &s), 0, "summarize even n");
	is_double(s.median, 2.5, EPS, "even median");
	is_double(s.q1, 1.75, EPS, "even q1 (type 7)");
	is_double(s.q3, 3.25, EPS, "even q3 (type 7)");
	is_double(s.stddev, 1.2909944487358056, EPS, "even stddev (n-1)");
	is_double(s.cv, 0.5163977794943222, EPS, "even cv");

	is_int(summarize(one, 1, &s), 0, "summarize one value");
	is_double(s.median, 5, EPS, "one value median");
	ok(isnan(s.stddev) && isnan(s.cv), "one value: stddev and cv are NAN");

	is_int(summarize(NULL, 0, &s), 0, "summarize nothing");
	ok(s.n == 0 && isnan(s.median) && isnan(s.mean), "nothing: NAN");

	is_int(summarize(bad, 4, &s), -1, "NaN and inf rejected");
	ok(s.n == 0 && isnan(s.median), "rejected: summary cleared");
}

static void test_welch(void)
{
	const double b[] = { 10, 12, 14 };
	const double n1[] = { 14, 16, 18 };
	const double n2[] = { 15, 17, 19, 21 };
	double lo, hi, df;

	/*
	 * base mean 12, s^2 4; new mean 16, s^2 4.
	 * se = sqrt(4/3 + 4/3) = sqrt(8/3) = 1.6329931619
	 * df = (8/3)^2 / ((4/3)^2/2 + (4/3)^2/2) = (64/9) / (16/9) = 4
	 * t(0.975, 4) = 2.7764451052 (table), half width 4.5339158711
	 * CI of the difference: 4 -+ 4.5339158711
	 */
	is_int(welch_ci(b, 3, n1, 3, 0.95, &lo, &hi, &df), 0, "welch equal var");
	is_double(df, 4, 1e-9, "welch df = 4");
	is_double(lo, 4 - 4.5339158711, 1e-8, "welch lo");
	is_double(hi, 4 + 4.5339158711, 1e-8, "welch hi");

	/*
	 * new {15,17,19,21}: mean 18, s^2 = (9+1+1+9)/3 = 20/3.
	 * a = 4/3, b = (20/3)/4 = 5/3, se = sqrt(3)
	 * df = 9 / ((16/9)/2 + (25/9)/3) = 9 / (24/27 + 25/27) = 243/49
	 */
	is_int(welch_ci(b, 3, n2, 4, 0.95, &lo, &hi, &df), 0, "welch unequal");
	is_double(df, 243.0 / 49, 1e-9, "welch-satterthwaite df = 243/49");
	is_double((lo + hi) / 2, 6, 1e-9, "welch centred on the difference");
	/* t(0.975, 4.96) lies between t(0.975, 5) = 2.5706 and t(.., 4) */
	ok((hi - lo) / 2 / sqrt(3) > 2.5706 && (hi - lo) / 2 / sqrt(3) < 2.7765,
	   "welch t quantile between df 5 and df 4");

	is_int(welch_ci(b, 1, n2, 4, 0.95, &lo, &hi, NULL), -1,
	       "welch needs 2 values a side");
}

static void test_mann_whitney(void)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double a4[] = { 1, 2, 3, 5 }, b4[] = { 4, 6, 7, 8 };
	const double t1[] = { 1, 2, 2, 3 }, t2[] = { 2, 3, 4, 5 };
	int exact;

	/* U = 0, P(U <= 0) = 1 / C(6,3) = 1/20, two-sided 0.1 */
	is_double(mann_whitney_p(a3, 3, b3, 3, &exact), 0.1, 1e-12,
		  "mw exact {1,2,3} vs {4,5,6}: p = 0.1");
	is_int(exact, 1, "mw exact used without ties");
	is_double(mann_whitney_p(b3, 3, a3, 3, NULL), 0.1, 1e-12,
		  "mw symmetric");
	/* 2 / C(10,5) = 2/252 */
	is_double(mann_whitney_p(a5, 5, b5, 5, NULL), 2.0 / 252, 1e-12,
		  "mw exact 5 vs 5: p = 2/252");
	/* only 5 > 4: U = 1; U <= 1 has 2 of C(8,4) = 70 orders: p = 4/70 */
	is_double(mann_whitney_p(a4, 4, b4, 4, NULL), 4.0 / 70, 1e-12,
		  "mw exact 4 vs 4, U = 1: p = 4/70");
	/*
	 * ties: ranks 1 | 2 2 2 -> 3 | 3 3 -> 5.5 | 7 | 8; R_x = 12.5,
	 * U = 2.5, mean 8, var = 16/12 * (9 - (24 + 6)/56) = 11.2857;
	 * z = (2.5 - 8 + 0.5) / sqrt(var) = -1.48835; p = 2 Phi(z)
	 * = erfc(1.48835 / sqrt 2) = 0.1366582477
	 */
	is_double(mann_whitney_p(t1, 4, t2, 4, &exact), 0.1366582477, 1e-9,
		  "mw normal with ties and continuity correction");
	is_int(exact, 0, "mw normal approximation with ties");
	is_double(mann_whitney_p(a3, 3, a3, 3, NULL), 1, 1e-12,
		  "mw all equal: p = 1");
	ok(isnan(mann_whitney_p(a3, 3, NULL, 0, NULL)), "mw empty side: NAN");

	is_double(mann_whitney_min_p(3, 3), 0.1, 1e-12, "min p 3 vs 3");
	is_double(mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12, "min p 4 vs 4");
}

static void test_hodges_lehmann(void)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	const double c[] = { 1, 2, 4 }, d[] = { 3, 7 };

	/* differences 3 2 1 4 3 2 5 4 3 -> sorted median 3 */
	is_double(hodges_lehmann_shift(a, 3, b, 3), 3, EPS, "hl shift 3");
	/* 3-1 3-2 3-4 7-1 7-2 7-4 = 2 1 -1 6 5 3 -> median (2+3)/2 */
	is_double(hodges_lehmann_shift(c, 3, d, 2), 2.5, EPS, "hl shift 2.5");
	ok(isnan(hodges_lehmann_shift(a, 3, NULL, 0)), "hl empty: NAN");
}

static void test_icount(void)
{
	struct compare_opts o = COMPARE_OPTS_INIT;
	double b[30], n[30];
	struct comparison c;

	/* 16 GiB fsdax in icount mode: 137 ms base, 182 ms patched */
	fill(b, 30, 137);
	fill(n, 30, 182);
	o.resolution = 1;
	is_int(compare_samples(b, 30, n, 30, &o, &c), 0, "icount compare");
	is_int(c.verdict, VERDICT_WORSE, "137 -> 182: worse");
	is_double(c.change_pct, 32.846715328, 1e-6, "137 -> 182: +32.85 %");
	is_str(c.method, "resolution", "method resolution");
	is_double(c.ci_lo_pct, 32.846715328 - 0.729927007, 1e-6,
		  "ci lo = change - 1/137");
	is_double(c.ci_hi_pct, 32.846715328 + 0.729927007, 1e-6,
		  "ci hi = change + 1/137");
	ok(isnan(c.p_value), "no p-value for constant samples");
	is_double(c.detectable_pct, 0.729927007, 1e-6,
		  "detectable = one tick");
	is_double(c.hl_shift, 45, EPS, "hl shift 45 ms");
	printf("# %s: %s\n", verdict_name(c.verdict), c.reason);

	o.lower_is_better = 0;
	compare_samples(b, 30, n, 30, &o, &c);
	is_int(c.verdict, VERDICT_BETTER, "higher is better: better");
	o.lower_is_better = 1;

	compare_samples(b, 30, b, 30, &o, &c);
	is_int(c.verdict, VERDICT_NO_CHANGE, "137 vs 137: no change");
	is_double(c.change_pct, 0, EPS, "137 vs 137: 0 %");

	fill(n, 30, 138);
	compare_samples(b, 30, n, 30, &o, &c);
	is_int(c.verdict, VERDICT_NO_CHANGE, "137 vs 138, resolution 1");
	printf("# %s: %s\n", verdict_name(c.verdict), c.reason);

	/* HZ=250: one 4 ms jiffy */
	fill(b, 30, 136);
	fill(n, 30, 140);
	o.resolution = 4;
	compare_samples(b, 30, n, 30, &o, &c);
	is_int(c.verdict, VERDICT_NO_CHANGE, "136 vs 140, resolution 4");

	/* two ticks is above the resolution, but below a 2 % threshold */
	fill(b, 30, 137);
	fill(n, 30, 139);
	o.resolution = 1;
	o.min_effect_pct = 2;
	compare_samples(b, 30, n, 30, &o, &c);
	is_int(c.verdict, VERDICT_NO_CHANGE, "137 vs 139, 2 % threshold");
	o.min_effect_pct = 1;
	compare_samples(b, 30, n, 30, &o, &c);
	is_int(c.verdict, VERDICT_WORSE, "137 vs 139, 1 % threshold: worse");

	/* constant works from 2 values a side */
	compare_samples(b, 2, n, 2, &o, &c);
	is_int(c.verdict, VERDICT_WORSE, "constant 2 vs 2: worse");
}

static void test_insufficient(void)
{
	const double one[] = { 100 };
	const double two[] = { 100, 104 };
	const double b3[] = { 100, 101, 102 }, n3[] = { 150, 151, 152 };
	const double bad[] = { 100, NAN, 101 };
	const double zero[] = { 0, 1, 2 };
	struct compare_opts o = COMPARE_OPTS_INIT;
	struct comparison c;

	is_int(compare_samples(one, 1, two, 2, NULL, &c), 0, "1 sample: ok");
	is_int(c.verdict, VERDICT_INSUFFICIENT, "1 sample: insufficient");
	is_str(c.reason, "base has 1 sample, need at least 2", "1 sample reason");
	ok(isnan(c.change_pct) && isnan(c.ci_lo_pct) && isnan(c.p_value),
	   "1 sample: numbers are NAN");
	is_double(c.base.median, 100, EPS, "1 sample: summary still filled");

	compare_samples(two, 2, NULL, 0, NULL, &c);
	is_str(c.reason, "new has no samples, need at least 2",
	       "no samples reason");
	compare_samples(NULL, 0, NULL, 0, NULL, &c);
	is_str(c.reason,
	       "base has no samples and new has no samples, need at least 2 each",
	       "both empty reason");

	is_int(compare_samples(bad, 3, two, 2, NULL, &c), -1, "NaN rejected");
	is_int(c.verdict, VERDICT_INSUFFICIENT, "NaN: insufficient");

	o.alpha = 0;
	is_int(compare_samples(two, 2, two, 2, &o, &c), -1, "alpha 0 rejected");

	compare_samples(zero, 3, two, 2, NULL, &c);
	is_int(c.verdict, VERDICT_INSUFFICIENT, "base <= 0: insufficient");

	/* +50 % but 3 vs 3 cannot reach p < 0.05: say so, give numbers */
	compare_samples(b3, 3, n3, 3, NULL, &c);
	is_int(c.verdict, VERDICT_INSUFFICIENT, "3 vs 3: insufficient");
	/* Welch branch: means 101 -> 151, +49.50 % */
	is_double(c.change_pct, 49.504950495, 1e-6, "3 vs 3: change still reported");
	ok(strstr(c.reason, "need 6 per side") != NULL,
	   "3 vs 3: need 6 at the default alpha 0.005");
	printf("# %s\n", c.reason);

	is_str(verdict_name(VERDICT_INSUFFICIENT), "insufficient data", "name");
	is_str(verdict_name(VERDICT_NO_CHANGE), "no significant change", "name");
	is_str(verdict_name(VERDICT_BETTER), "better", "name");
	is_str(verdict_name(VERDICT_WORSE), "worse", "name");
}

static void test_random(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double b[10], n[10];
	struct comparison c, c2;

	gsl_rng_set(r, 1);
	draw(r, b, 10, 100, 5, 1);
	draw(r, n, 10, 100, 5, 1);
	compare_samples(b, 10, n, 10, NULL, &c);
	is_int(c.verdict, VERDICT_NO_CHANGE, "same distribution: no change");
	is_str(c.method, "bootstrap median ratio, mann-whitney exact",
	       "n = 10: bootstrap");
	ok(c.ci_lo_pct < 0 && c.ci_hi_pct > 0, "same: CI contains 0");
	printf("# same: %+.2f %% [%+.2f, %+.2f] p %.3f detectable %.1f %%\n",
	       c.change_pct, c.ci_lo_pct, c.ci_hi_pct, c.p_value,
	       c.detectable_pct);

	compare_samples(b, 10, n, 10, NULL, &c2);
	ok(c.ci_lo_pct == c2.ci_lo_pct && c.ci_hi_pct == c2.ci_hi_pct,
	   "bootstrap is reproducible");

	draw(r, n, 10, 100, 5, 1.2);
	compare_samples(b, 10, n, 10, NULL, &c);
	is_int(c.verdict, VERDICT_WORSE, "+20 %: worse");
	ok(c.ci_lo_pct < 20 && c.ci_hi_pct > 20, "+20 %: CI contains 20");
	printf("# +20 %%: %+.2f %% [%+.2f, %+.2f] p %.3g\n", c.change_pct,
	       c.ci_lo_pct, c.ci_hi_pct, c.p_value);

	/* 5 boots: Welch interval (5 vs 5 needs alpha > 2/252) */
	{
		struct compare_opts o = COMPARE_OPTS_INIT;

		o.alpha = 0.01;
		compare_samples(b, 5, n, 5, &o, &c);
	}
	is_int(c.verdict, VERDICT_WORSE, "+20 %, 5 boots: worse");
	is_str(c.method, "welch-t on means, mann-whitney exact",
	       "n = 5: welch");
	ok(c.ci_lo_pct < 20 && c.ci_hi_pct > 20, "5 boots: CI contains 20");
	gsl_rng_free(r);
}

/*
 * False alarms: identical kernels, boot means with CV 8 % (docs/FACTS.md),
 * as many pairs as a month of nightly runs; the verdict must say "worse" or
 * "better" in at most alpha of them. Power at +20 % is printed alongside.
 */
static void false_alarms(size_t boots, size_t pairs, double limit)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i, alarms = 0, hits = 0;
	double b[16], n[16];
	struct comparison c;
	char name[80];

	gsl_rng_set(r, 12345);
	for (i = 0; i < pairs; i++) {
		draw(r, b, boots, 100, 8, 1);
		draw(r, n, boots, 100, 8, 1);
		compare_samples(b, boots, n, boots, NULL, &c);
		alarms += c.verdict == VERDICT_WORSE ||
			  c.verdict == VERDICT_BETTER;
		draw(r, n, boots, 100, 8, 1.2);
		compare_samples(b, boots, n, boots, NULL, &c);
		hits += c.verdict == VERDICT_WORSE;
	}
	printf("# %zu vs %zu boots, sd 8 %%: false-alarm rate %.3f (%zu/%zu), power at +20 %% %.3f, detectable ~%.1f %%\n",
	       boots, boots, (double)alarms / pairs, alarms, pairs,
	       (double)hits / pairs, c.detectable_pct);
	snprintf(name, sizeof(name), "false alarms %zu vs %zu <= %g",
		 boots, boots, limit);
	ok((double)alarms / pairs <= limit, name);
	gsl_rng_free(r);
}

/* the ambiguous flag: what "more units would likely decide" means */
static void test_ambiguous(void)
{
	const double two_b[] = { 100, 104 }, two_n[] = { 120, 126 };
	const double flat_b[] = { 100, 100, 100 }, flat_n[] = { 150, 150, 150 };
	const double same_b[] = { 100, 108, 92, 104, 96 };
	const double same_n[] = { 101, 107, 93, 103, 97 };
	const double sugg_b[] = { 100, 108, 92, 104, 96 };
	const double sugg_n[] = { 110, 118, 97, 107, 105 };
	const double one[] = { 100 };
	struct compare_opts o = COMPARE_OPTS_INIT;
	struct comparison c;

	o.alpha = 0.05;	/* 5 vs 5 values can reach it */
	compare_samples(two_b, 2, two_n, 2, NULL, &c);
	ok(c.verdict == VERDICT_INSUFFICIENT && c.ambiguous,
	   "2 vs 2 noisy: insufficient and ambiguous (more boots help)");
	compare_samples(one, 1, two_n, 2, NULL, &c);
	ok(c.ambiguous, "1 vs 2: ambiguous");
	compare_samples(flat_b, 3, flat_n, 3, NULL, &c);
	ok(c.verdict == VERDICT_WORSE && !c.ambiguous,
	   "constant sides: decided by the resolution, never ambiguous");
	compare_samples(same_b, 5, same_n, 5, &o, &c);
	ok(c.verdict == VERDICT_NO_CHANGE && !c.ambiguous,
	   "a clear no change (p >= 0.2) is not ambiguous");
	printf("# same: p %.3f\n", c.p_value);
	compare_samples(sugg_b, 5, sugg_n, 5, &o, &c);
	printf("# suggestive: %+.2f %% [%+.2f, %+.2f] p %.3f\n",
	       c.change_pct, c.ci_lo_pct, c.ci_hi_pct, c.p_value);
	ok(c.verdict == VERDICT_NO_CHANGE && c.ambiguous,
	   "no change with 0.05 <= p < 0.2 and a wide interval: ambiguous");
	compare_samples(same_b, 5, same_n, 5, NULL, &c);
	ok(c.verdict == VERDICT_INSUFFICIENT && c.ambiguous,
	   "5 vs 5 at alpha 0.005: cannot reach it, ambiguous (need 6)");
}

/*
 * The adaptive procedure as test-series runs it: start with k boots a
 * side, add one boot a side while ambiguous, up to 2k. Optional stopping
 * gives the test more chances, so its false-alarm rate is measured here
 * on identical kernels (CV 8 %), and its power at +10 %.
 */
static void adaptive_false_alarms(size_t k, size_t pairs, double limit)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i, n, alarms = 0, hits = 0, extra = 0;
	double b[32], x[32];
	struct comparison c;
	char name[96];
	int pass;

	gsl_rng_set(r, 777);
	for (pass = 0; pass < 2; pass++) {
		double shift = pass ? 1.1 : 1.0;

		for (i = 0; i < pairs; i++) {
			draw(r, b, 2 * k, 100, 8, 1);
			draw(r, x, 2 * k, 100, 8, shift);
			for (n = k;; n++) {
				compare_samples(b, n, x, n, NULL, &c);
				if (!c.ambiguous || n == 2 * k)
					break;
			}
			extra += n - k;
			if (!pass)
				alarms += c.verdict == VERDICT_WORSE ||
					  c.verdict == VERDICT_BETTER;
			else
				hits += c.verdict == VERDICT_WORSE;
		}
	}
	printf("# adaptive %zu..%zu boots, sd 8 %%: false-alarm rate %.3f (%zu/%zu), power at +10 %% %.3f, %.2f extra boots a side on average\n",
	       k, 2 * k, (double)alarms / pairs, alarms, pairs,
	       (double)hits / pairs, (double)extra / (2 * pairs));
	snprintf(name, sizeof(name), "adaptive %zu..%zu: false alarms <= %g",
		 k, 2 * k, limit);
	ok((double)alarms / pairs <= limit, name);
	gsl_rng_free(r);
}

int main(void)
{
	const char *tier;

	test_summarize();
	test_welch();
	test_mann_whitney();
	test_hodges_lehmann();
	test_icount();
	test_insufficient();
	test_random();
	false_alarms(6, 1000, 0.01);
	false_alarms(10, 1000, 0.01);
	test_ambiguous();
	/*
	 * the fast tier (make check) simulates a quarter of the pairs: the
	 * bootstrap makes the 4000 take about 30 s on two cores
	 */
	tier = getenv("MMCI_TEST_TIER");
	adaptive_false_alarms(6, tier && !strcmp(tier, "check") ? 1000 : 4000,
			      0.01);
	return done_testing();
}
