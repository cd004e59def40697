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

/**
 * attribution_verdict() - the series' verdict from the whole series and
 * from each patch's own step, so that a patch whose regression the next
 * patch hides is still named (issue 16 item 6: a 3-patch series whose
 * patch 2 saved about what patch 3 added was "BETTER" as a whole)
 * @a: the steps; with fewer than two patch steps (no --per-patch) only
 *	@final counts; may be NULL
 * @final: the series against its base (base vs +N)
 * @out: "MIXED: 3/3 regressed fsdax rebind_memmap +38 %" (the series as
 *	a whole did not regress), "WORSE: 2/2 regressed ..." (it did), at
 *	most 4 steps named and the rest counted; else compare_verdict()'s
 *	words for @final
 *
 * Return: the number of (step, metric) regressions of the patches' own
 * steps; 0 when the verdict is @final's alone.
 */
int attribution_verdict(const struct attribution *a,
			const struct run_comparison *final,
			struct strbuf *out);

/*
 * attribution_regressed_patches() - "3/3" or "1/3, 3/3": the patches
 * whose own step regressed some metric (per-patch steps only).
 * Return: how many.
 */
int attribution_regressed_patches(const struct attribution *a,
				  struct strbuf *out);

#endif
