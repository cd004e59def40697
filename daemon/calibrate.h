/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate.h - false-alarm and detection rates of compare_samples() on
 * the boots of ONE kernel (A/A tests by resampling).
 *
 * The input is a pool of P boots of one kernel in one setting: per metric,
 * the samples each boot measured. A trial draws two disjoint random groups
 * of k boots from the pool (the same split for every metric of the run),
 * forms each side's units the way `mmci compare` does (one median per boot
 * in wall-clock mode, every sample in icount mode) and calls
 * compare_samples() three times:
 *  - A/A: the two groups as they are; BETTER or WORSE is a false alarm;
 *  - the second group slowed down by 5 % and by 10 % (values times 1.05 or
 *    1.10 for a lower-is-better metric, divided by them otherwise): WORSE
 *    is a detection.
 * INSUFFICIENT is counted separately in each case. The "family" rate is
 * the fraction of trials in which ANY metric raised a false alarm: what a
 * report comparing all metrics at once suffers.
 *
 * Limits, stated with every result: the splits are resamples of one pool,
 * not independent experiments. With P boots there are only
 * C(P, k) * C(P - k, k) ordered splits (16632 for P = 12, k = 5), the
 * splits share boots, and a pool that happens to hold an odd boot is seen
 * in many trials. The binomial interval describes the resampling error
 * over T trials given this pool; the precision of the estimate of the true
 * rate is bounded by P, not T. P must be at least 2k. When there are at
 * most T ordered splits (P = 6, k = 2: 90), each is used exactly once
 * instead of drawing T at random: the rates are then exact for the pool,
 * and the trials count is the number of splits.
 *
 * Pure: no I/O except error() on invalid input; a gsl_rng (mt19937) of
 * its own with the caller's seed, so the same input gives the same rates.
 */
#ifndef MMCI_CALIBRATE_H
#define MMCI_CALIBRATE_H

#include <stddef.h>

/* the injected slowdowns, fractions */
#define CALIB_NR_SLOWDOWNS 2
extern const double calib_slowdowns[CALIB_NR_SLOWDOWNS];   /* 0.05, 0.10 */

#define CALIB_TRIALS 1000
#define CALIB_SEED 20250101UL

/* one boot's samples of one metric; n = 0 if the boot lacks the metric */
struct calib_boot {
	const double *v;
	size_t n;
};

/* one metric of the pool */
struct calib_metric {
	const char *name;               /* for messages only */
	const struct calib_boot *boots; /* the pool's P boots, same order for
					   every metric */
	int per_boot;           /* 1: a boot's median is one unit (wall),
				   0: every sample is (icount) */
	int lower_is_better;
	double resolution;      /* in the metric's unit, 0 unknown */
};

struct calib_opts {
	size_t k;               /* boots per side */
	size_t trials;          /* T, random splits (all, if fewer) */
	unsigned long seed;
	double alpha;           /* compare_opts.alpha */
	double min_effect_pct;  /* compare_opts.min_effect_pct */
};

/* hits of trials, in % with a 95 % Wilson score interval */
struct calib_rate {
	size_t hits, trials;
	double pct, lo_pct, hi_pct;
};

struct calib_result {
	struct calib_rate false_alarm;          /* A/A: BETTER or WORSE */
	struct calib_rate insufficient;         /* A/A: INSUFFICIENT */
	struct calib_rate detect[CALIB_NR_SLOWDOWNS];   /* WORSE */
	struct calib_rate detect_insufficient[CALIB_NR_SLOWDOWNS];
};

/**
 * calib_rate_set() - fill in @r from @hits of @trials
 *
 * pct = 100 * hits / trials with the 95 % Wilson score interval; all NAN
 * when @trials is 0.
 */
void calib_rate_set(struct calib_rate *r, size_t hits, size_t trials);

/**
 * calibrate() - A/A false-alarm and injected-slowdown detection rates
 * @m: @nr metrics, each with the same @pool boots
 * @pool: P, the number of boots in the pool
 * @opts: k, T, seed and thresholds (resolution and direction are per
 *	metric)
 * @out: @nr results, one per metric, always filled in (NAN rates when
 *	P < 2k)
 * @family: if not NULL, the fraction of trials with a false alarm in at
 *	least one metric (detection fields: a WORSE in at least one metric)
 *
 * Return: 0; 1 when @pool < 2 * k (nothing to draw: every rate is NAN, the
 * caller says "need 2k boots"); -1 with an error on invalid input (k < 1,
 * T = 0, bad thresholds, NaN or infinite values).
 */
int calibrate(const struct calib_metric *m, size_t nr, size_t pool,
	      const struct calib_opts *opts, struct calib_result *out,
	      struct calib_result *family);

#endif
