/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attribution.h - which patch of a series moved which metric.
 *
 * A 'series' job measured the base and the series applied up to each
 * patch (+1 .. +N with --per-patch, else only +N). Each step is compared
 * with the step before it (the patch's own effect) and with the base
 * (the cumulative effect), each with its interval and verdict from
 * stats.c. Loaded from the database, so the CLI, the web page and the
 * mail show the same numbers.
 */
#ifndef MMCI_ATTRIBUTION_H
#define MMCI_ATTRIBUTION_H

#include "compare.h"

struct db;
struct strbuf;

struct attribution_step {
	long long run_id;
	int upto;		/* patches applied: 0 is the base */
	char *label;		/* runs.label */
	char *subject;		/* the patch's subject, NULL for the base */
	struct run_comparison own;	/* vs the step before; empty for 0 */
	struct run_comparison cum;	/* vs the base; empty for 0 */
};

struct attribution {
	long long job_id, series_id;
	struct attribution_step *s;
	size_t nr, alloc;
};

/**
 * attribution_load() - the steps of a series job and their comparisons
 * Return: 0, or -1 after error() (no such job, no base run, runs that
 * cannot be compared).
 */
int attribution_load(struct db *db, long long job_id, struct attribution *a);
void attribution_release(struct attribution *a);

/* the metric's comparison in @rc, NULL when it has none */
const struct metric_comparison *
run_comparison_find(const struct run_comparison *rc, const char *workload,
		    const char *variant, const char *metric);

/*
 * attribution_format() - one block per metric that some step moved
 * (better or worse, own or cumulative): each step's median, own change
 * and cumulative change with their 95 % intervals and verdicts; then one
 * line for the metrics no step moved.
 */
void attribution_format(const struct attribution *a, struct strbuf *out);

struct loaded_series;

/*
 * claims_store() - extract the performance claims of a series' mails
 * (claims.c: cover letter = patch 0, then each patch's changelog) and
 * store them in the claims table, replacing the series' old rows.
 * Return: the number of claims, or -1 after error().
 */
int claims_store(struct db *db, const struct loaded_series *ls);

/*
 * claims_format() - claimed vs measured, one line per stored claim of
 * the series: the metric the claim fits best (claim_match_score() >=
 * CLAIM_MIN_SCORE), the measured change with its interval, and whether
 * they agree in direction and size (claim_agree()). A patch's claim is
 * held against that patch's own effect when @a has per-patch steps,
 * else against the whole series (@final, base vs +N).
 */
#define CLAIM_MIN_SCORE 40
void claims_format(struct db *db, long long series_id,
		   const struct attribution *a,
		   const struct run_comparison *final, struct strbuf *out);

#endif
