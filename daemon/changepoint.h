/* SPDX-License-Identifier: GPL-2.0 */
/*
 * changepoint.h - steps and slow drifts in a metric's nightly history.
 *
 * Pure functions: no I/O except error() on invalid input, no globals, no
 * GSL error handler changes. The permutation test draws from its own
 * gsl_rng (mt19937) with a fixed seed, so the same history always gives the
 * same change-points.
 *
 * The input is one value per run, in the order the runs started (the
 * caller chooses the value: the median of per-boot medians in wall-clock
 * mode, the median of all samples in icount mode; see cmd-history.c).
 * Every value must be finite; a failed run is left out by the caller, never
 * passed as NaN.
 *
 * Steps: changepoint_detect(), binary segmentation in the manner of
 * E-divisive (MongoDB's signal processing, Hunter) but with a rank
 * statistic, so one outlier night cannot make or hide a step:
 *  1. for a segment of m values, every split k with at least min_segment
 *     values on each side gets the standardized Mann-Whitney rank-sum
 *     |Z_k| of left vs right (mid-ranks, tie-corrected variance); the
 *     candidate is the split with the largest |Z_k|;
 *  2. its p-value is a permutation test of that maximum: the segment's
 *     ranks are shuffled `permutations` times and p = (1 + #{max |Z| of a
 *     shuffle >= the observed one}) / (permutations + 1). Taking the
 *     maximum over all splits inside the test is what keeps the false-alarm
 *     rate at alpha for the whole sequence, however many splits it has;
 *  3. p < alpha: split there and do the same on both sides; otherwise the
 *     segment has no step. Under "no change anywhere" only the first test
 *     can raise an alarm, so the whole sequence's false-alarm rate is alpha
 *     (measured 0.5 % at alpha 0.005 on 200 flat sequences, see
 *     tests/unit/test-changepoint.c);
 *  4. a significant split is reported only if the medians of the segments
 *     on either side (between the neighbouring reported change-points)
 *     differ by more than the metric's resolution (a clock tick is never a
 *     step) and by at least min_effect_pct; splits that fail are dropped
 *     and the segments around them merged, until every one passes.
 *
 * How many points? A segment of m values can reach at best p = 2 /
 * C(m, m/2) (m even; 4 / C(m, (m-1)/2) for m odd): the probability that a
 * shuffle separates the values perfectly in the middle. With the default
 * alpha of 0.005 that needs m >= 12; with min_segment 3 it also needs
 * m >= 6. changepoint_min_points() returns the larger. Fewer points is
 * "insufficient data", never "no change". A step near either end needs
 * more points than one in the middle: 3 nights after a step among 30 are a
 * weaker signal than 15 after 15, and may wait a few nights to be seen.
 *
 * Drift: drift_detect(), the Mann-Kendall trend test (S = sum of sign(x_j -
 * x_i) over i < j, tie-corrected variance, continuity correction, normal
 * law from GSL) plus the Theil-Sen slope (median of all pairwise slopes)
 * with its usual distribution-free 95 % interval. The slope is reported
 * per run and in % of the fitted first value (the Theil-Sen line at the
 * first point, median of x_i - slope * i: robust, unlike x_0 itself).
 * Drifting only if ALL of: p < alpha, the fitted change over the whole
 * sequence (slope * (n - 1)) is at least min_effect_pct of the fitted first
 * value, and more than the resolution. A drift of +0.5 %/night over 20
 * nights (9.5 % in all) is flagged at CV 1 % even when no single night is
 * a step. Needs at least DRIFT_MIN_POINTS (8) values: below that the normal
 * law of S is poor.
 *
 * Insufficient data (status CP_INSUFFICIENT, the reason says which):
 *  - fewer points than the minimum above;
 *  - a value <= 0: relative changes need positive values (times, counts);
 *    a metric that reads 0 is below its clock's resolution;
 *  - a NaN or infinite value: also an input error, the function returns -1.
 * All values equal (typical in icount mode) is not insufficient: it is an
 * exact answer, no step and no drift, with p NAN (n copies of one number
 * are one observation; a p-value from them would be a fiction).
 *
 * Limits: the tests assume independent nights. Slowly varying host noise
 * (a neighbour's load for a week) is serially correlated and both tests
 * then see more steps and drifts than alpha promises. A drift that is
 * large enough also shows up as one or more steps (binary segmentation
 * approximates a ramp by a staircase); read the drift line first then.
 */
#ifndef MMCI_CHANGEPOINT_H
#define MMCI_CHANGEPOINT_H

#include <stddef.h>

struct cp_opts {
	size_t min_segment;	/* points on each side of a step (default 3) */
	double alpha;		/* false-alarm rate of the whole sequence */
	double min_effect_pct;	/* practical threshold, % (default 1) */
	double resolution;	/* clock tick in the input's unit, 0 if unknown */
	size_t permutations;	/* shuffles per test (default 9999) */
	unsigned long seed;	/* gsl_rng mt19937 seed of the shuffles */
};

#define CP_DEFAULT_ALPHA 0.005
#define CP_DEFAULT_PERMUTATIONS 9999
#define CP_DEFAULT_SEED 20250101UL
#define DRIFT_MIN_POINTS 8

#define CP_OPTS_INIT                                                          \
	{                                                                     \
		.min_segment = 3, .alpha = CP_DEFAULT_ALPHA,                  \
		.min_effect_pct = 1.0, .resolution = 0.0,                     \
		.permutations = CP_DEFAULT_PERMUTATIONS,                      \
		.seed = CP_DEFAULT_SEED                                       \
	}

enum cp_status {
	CP_OK,			/* the answer holds, whatever it is */
	CP_INSUFFICIENT,	/* the data cannot answer: see reason */
};

struct changepoint {
	size_t index;		/* first point after the step (0-based) */
	double before, after;	/* medians of the segments either side */
	double change_pct;	/* (after - before) / before * 100 */
	double p;		/* permutation p of the split when it was found */
};

struct cp_result {
	enum cp_status status;
	size_t n;		/* points analysed */
	struct changepoint *cp;	/* nr entries, by index; owned, see release */
	size_t nr, alloc;
	char reason[160];	/* one lowercase line, "" when nothing to say */
};

struct drift {
	enum cp_status status;
	int drifting;		/* 1: a significant and large enough trend */
	size_t n;
	double s;		/* Mann-Kendall S */
	double z, p;		/* its normal score and two-sided p; NAN if none */
	double slope;		/* Theil-Sen, input unit per point */
	double start;		/* fitted value at the first point */
	double slope_pct;	/* slope / start * 100, % per point */
	double slope_lo_pct, slope_hi_pct;	/* 95 % interval of slope_pct */
	double total_pct;	/* slope_pct * (n - 1): fitted change in all */
	char reason[160];
};

/**
 * changepoint_min_points() - the fewest points changepoint_detect() can
 * ever find a step in, with these options (see the header comment)
 * @opts: NULL means CP_OPTS_INIT
 *
 * Return: the number of points; 0 if @opts are invalid.
 */
size_t changepoint_min_points(const struct cp_opts *opts);

/**
 * changepoint_detect() - find the steps of a sequence
 * @x: @n values in run order; not modified
 * @n: number of values
 * @opts: thresholds; NULL means CP_OPTS_INIT
 * @out: always filled in (release it with cp_result_release()), even on
 *	error; then status is CP_INSUFFICIENT with the reason
 *
 * Return: 0 when @out holds an answer (CP_INSUFFICIENT included), -1 with
 * an error on invalid input (NaN or infinite values, bad @opts).
 */
int changepoint_detect(const double *x, size_t n, const struct cp_opts *opts,
		       struct cp_result *out);

void cp_result_release(struct cp_result *res);

/**
 * drift_detect() - Mann-Kendall trend test and Theil-Sen slope
 * @x, @n, @opts: as for changepoint_detect(); uses alpha, min_effect_pct
 *	and resolution
 * @out: always filled in; NAN in the fields the data cannot give
 *
 * Return: 0 when @out holds an answer (CP_INSUFFICIENT included), -1 with
 * an error on invalid input.
 */
int drift_detect(const double *x, size_t n, const struct cp_opts *opts,
		 struct drift *out);

/**
 * mann_kendall() - Mann-Kendall S, its tie-corrected variance and the
 * two-sided p of the normal law with continuity correction
 * @s, @var, @p: the results; p is NAN when var is 0 (all values equal)
 *
 * Exposed for the unit test; the values must be finite.
 */
void mann_kendall(const double *x, size_t n, double *s, double *var,
		  double *p);

#endif
