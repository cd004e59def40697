/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - summaries and base-vs-new comparison of benchmark samples.
 *
 * Pure functions: no I/O except error() on invalid input, no globals, no
 * GSL error handler changes. The bootstrap uses its own gsl_rng with a fixed
 * seed, so the same input always gives the same verdict.
 *
 * What is a sample? compare_samples() treats every value as one independent
 * replicate; choosing the replicates is the caller's job (see
 * docs/STATISTICS.md):
 *  - wall-clock mode: one value per BOOT (the median of the boot's samples).
 *    Boot-to-boot variation is 7-10 % while rebinds inside one boot vary
 *    ~4 %, so pooling the rebinds of a boot understates the noise and gave
 *    false alarms with tight intervals. Interleave boots (base, new, ...);
 *  - icount mode: every value (all rebinds); they are identical anyway, and
 *    the verdict rests on the clock's resolution (1 jiffy: 1 ms at HZ=1000,
 *    4 ms at HZ=250 for memmap_init_zone_device's "in M ms").
 *
 * Decision rules of compare_samples(), in order:
 *  1. fewer than 2 values on a side -> VERDICT_INSUFFICIENT, reason says
 *     which side and how many ("base has 1 sample, need at least 2"). A
 *     NaN or infinite value is an input error (-1), not a missing value:
 *     a failed run must be left out by the caller, not smuggled in as NaN.
 *     Relative changes need a positive base, so a base value <= 0 is also
 *     VERDICT_INSUFFICIENT (metrics are times and counts).
 *  2. both sides constant (min == max, typical in icount mode): the change
 *     is exact, there is no sampling noise to test. |median_new -
 *     median_base| > resolution and |change| >= min_effect_pct -> WORSE or
 *     BETTER, else NO_CHANGE. CI = change +- resolution/base*100; p_value
 *     is NAN (30 copies of one number are one observation, any p-value
 *     computed from them would be a fiction). method "resolution".
 *  3. otherwise, a CI of the relative change:
 *      - at least 8 values each side: bootstrap percentile CI of the ratio
 *        of medians (B = 2000, fixed seed); change_pct is of MEDIANS;
 *      - fewer: Welch t interval of mean_new - mean_base divided by
 *        mean_base (the denominator's own uncertainty is ignored; it is
 *        a few % of the interval's width at CV 8 %); change_pct is of MEANS.
 *        A bootstrap of 3-7 values has too few distinct resamples.
 *     The CI is widened by resolution/base*100 on each side so that a clock
 *     tick never looks like a change. p_value is the two-sided Mann-Whitney
 *     U test (exact without ties and below 50 per side, else normal with
 *     tie and continuity correction). Two CIs are computed: the
 *     STATS_CI_LEVEL (95 %) one is reported in ci_lo_pct/ci_hi_pct, the
 *     decision uses the 1 - alpha one (99.5 % at alpha 0.005). Significant
 *     only if ALL of: the 1 - alpha CI excludes 0, p < alpha, |change| >=
 *     min_effect_pct, |center_new - center_base| > resolution. Requiring
 *     both the interval and the rank test keeps the false-alarm rate below
 *     alpha (measured 0.1 % at 6 vs 6 boots, CV 8 %, alpha 0.005, see
 *     tests/unit/test-stats.c). Direction from lower_is_better.
 *  4. the rank test's smallest attainable p is 2 / C(nb + nn, nb): 0.1 for
 *     3 vs 3, 0.0079 for 5 vs 5, 0.0022 for 6 vs 6. When it is >= alpha no
 *     data could ever be significant, so the verdict is
 *     VERDICT_INSUFFICIENT (at alpha 0.005: "5 vs 5 samples can never
 *     reach p < 0.005 in a rank test (at best 0.00794); need 6 per side"),
 *     never a misleading "no significant change"; the numeric fields are
 *     still filled in. Rule 2 does not test, so it works from 2 per side.
 *
 * ambiguous (adaptive repeats, as Pinpoint does): set when more units
 * would likely settle a verdict that these cannot: rule 1 or rule 4 said
 * "insufficient" for lack of units, or rule 3 said "no significant
 * change" with STATS_AMBIGUOUS_P > p (suggestive) while the interval
 * still reaches past +-min_effect_pct (a real change is not excluded).
 * A clear "no change" (p >= STATS_AMBIGUOUS_P) is not ambiguous: noise
 * alone would otherwise ask for boots forever. Rule 2 is never ambiguous.
 * Optional stopping raises the false-alarm rate; `mmci bench
 * --calibrate` measures the procedure as test-series runs it.
 *
 * detectable_pct, the smallest change these data could detect with ~80 %
 * power (what "no significant change" is worth): (t_{1-alpha/2,df} +
 * t_{0.8,df}) * sqrt(s_b^2/n_b + s_n^2/n_n) / mean_base * 100, df from
 * Welch-Satterthwaite, floored at resolution/mean_base*100. It is not
 * floored at min_effect_pct: a reader may show the larger of the two.
 *
 * Outliers are never dropped: medians, the bootstrap of medians and the rank
 * test are robust to a few of them, and dropping data silently hides real
 * effects (a slow first bind is a separate metric, the caller's business).
 *
 * Quartiles: linear interpolation between order statistics at (n-1)*p
 * (Hyndman-Fan type 7, R's and GSL's default); stddev divides by n-1.
 */
#ifndef MMCI_STATS_H
#define MMCI_STATS_H

#include <stddef.h>

/* every field in the unit of the input, except n and cv; NAN if undefined */
struct summary {
	size_t n;
	double min, max;
	double median;
	double mean;
	double stddev;		/* sample (n-1) standard deviation; NAN if n < 2 */
	double cv;		/* stddev / mean, a fraction (0.08 = 8 %) */
	double q1, q3;		/* type-7 quartiles */
};

enum verdict {
	VERDICT_INSUFFICIENT,
	VERDICT_NO_CHANGE,
	VERDICT_BETTER,
	VERDICT_WORSE,
};

struct comparison {
	struct summary base, new;
	double change_pct;	/* new vs base in %, of medians or means: see method */
	double ci_lo_pct, ci_hi_pct;	/* STATS_CI_LEVEL (95 %) CI of the change, % */
	double p_value;		/* two-sided Mann-Whitney U; NAN for "resolution" */
	double hl_shift;	/* Hodges-Lehmann new - base, in the input's unit */
	double detectable_pct;	/* minimal detectable change at 80 % power, % */
	enum verdict verdict;
	int ambiguous;		/* more units would likely decide: see above */
	const char *method;	/* static string, e.g. "resolution" */
	char reason[160];	/* why this verdict, one lowercase line */
};

struct compare_opts {
	int lower_is_better;	/* 1 for times, 0 for throughput */
	double resolution;	/* clock resolution in the input's unit, 0 if unknown */
	double min_effect_pct;	/* practical threshold, % (default 1) */
	double alpha;		/* rank test's level, in (0, 1) (default 0.005) */
};

#define COMPARE_OPTS_INIT                                                     \
	{                                                                     \
		.lower_is_better = 1, .resolution = 0.0,                      \
		.min_effect_pct = 1.0, .alpha = 0.005                          \
	}

/* bootstrap defaults used by compare_samples() */
#define STATS_BOOTSTRAP_B 2000
#define STATS_BOOTSTRAP_SEED 20241201UL
/* the interval reported: 95 %; the decision uses 1 - alpha (rule 3) */
#define STATS_CI_LEVEL 0.95
/* a "no change" with p below this is suggestive: more units may decide */
#define STATS_AMBIGUOUS_P 0.2
/* below this many values on either side, the Welch interval is used */
#define STATS_BOOTSTRAP_MIN_N 8

/**
 * summarize() - describe one sample
 * @x: @n values (may be NULL if @n is 0); not modified
 * @n: number of values
 * @out: filled in; fields that need more values are NAN
 *
 * Return: 0, or -1 with an error naming how many values are NaN or infinite
 * (@out then has n = 0 and NAN fields).
 */
int summarize(const double *x, size_t n, struct summary *out);

/**
 * compare_samples() - decide whether new differs from base
 * @base, @nb: the base kernel's units (boots or samples, see above)
 * @new, @nn: the new kernel's units, same metric and mode
 * @opts: thresholds; NULL means COMPARE_OPTS_INIT
 * @out: always filled in, even on error (then VERDICT_INSUFFICIENT)
 *
 * Return: 0 when @out holds a verdict (VERDICT_INSUFFICIENT included), -1
 * with an error on invalid input (NaN/inf values, bad @opts).
 */
int compare_samples(const double *base, size_t nb, const double *new,
		    size_t nn, const struct compare_opts *opts,
		    struct comparison *out);

/* "better", "worse", "no significant change", "insufficient data" */
const char *verdict_name(enum verdict v);

/**
 * hodges_lehmann_shift() - median of all nb * nn differences new_j - base_i
 * Return: the shift in the input's unit; NAN if a side is empty.
 */
double hodges_lehmann_shift(const double *base, size_t nb, const double *new,
			    size_t nn);

/**
 * mann_whitney_p() - two-sided p-value of the Mann-Whitney U (rank-sum) test
 * @exact: if not NULL, set to 1 when the exact null distribution was used
 *	(no ties and both sides below 50), 0 for the normal approximation
 *	(tie-corrected variance, continuity correction 0.5)
 *
 * Return: p in (0, 1]; 1 if every value is equal; NAN if a side is empty.
 */
double mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny,
		      int *exact);

/* smallest two-sided p the exact rank test can reach: 2 / C(nx + ny, nx) */
double mann_whitney_min_p(size_t nx, size_t ny);

/**
 * welch_ci() - Welch t confidence interval of mean(new) - mean(base)
 * @level: confidence level, e.g. 0.95
 * @lo, @hi: the interval, in the input's unit
 * @df: if not NULL, the Welch-Satterthwaite degrees of freedom (NAN when
 *	both variances are 0; the interval is then the difference itself)
 *
 * Return: 0, or -1 with an error if a side has fewer than 2 values.
 */
int welch_ci(const double *base, size_t nb, const double *new, size_t nn,
	     double level, double *lo, double *hi, double *df);

/**
 * bootstrap_median_ratio_ci() - percentile bootstrap CI of
 * median(new) / median(base), as a change in %
 * @level: confidence level, e.g. 0.95
 * @b: number of resamples (STATS_BOOTSTRAP_B)
 * @seed: gsl_rng mt19937 seed (STATS_BOOTSTRAP_SEED): same input, same CI
 * @lo_pct, @hi_pct: (ratio - 1) * 100 at the (1-level)/2 and (1+level)/2
 *	quantiles (type 7) of the @b resampled ratios
 *
 * Both sides are resampled independently, with replacement.
 * Return: 0, or -1 with an error if a side is empty, @b < 2, or a
 * resampled base median is <= 0.
 */
int bootstrap_median_ratio_ci(const double *base, size_t nb,
			      const double *new, size_t nn, double level,
			      size_t b, unsigned long seed, double *lo_pct,
			      double *hi_pct);

#endif
