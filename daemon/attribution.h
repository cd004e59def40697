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
 *
 * The steps are the job's recorded ones (job_steps, job_set_steps()):
 * each names the run that stands for it, whoever measured that run (this
 * job, an earlier job or nightly whose icount base was reused, this
 * job's attempt before a kill). A job's own runs are never searched for
 * them, so a reused base, a resumed job and a run booted on another host
 * give the same attribution as a fresh measurement. A step without a
 * kernel is 'folded': it is shown and said, and the next measured step's
 * own change covers both patches.
 */
#ifndef MMCI_ATTRIBUTION_H
#define MMCI_ATTRIBUTION_H

#include "compare.h"

struct db;
struct strbuf;

struct attribution_step {
	long long run_id;	/* 0 for a folded step */
	int upto;		/* patches applied: 0 is the base */
	int folded;		/* no kernel: counted with the next step */
	char *label;		/* "base REF", or the patch's subject */
	char *subject;		/* the patch's subject, NULL for the base */
	char *source;		/* job_steps.source: measured, reused, folded */
	char *note;		/* job_steps.note: why this run */
	struct run_comparison own;	/* vs the step before; empty for 0 */
	struct run_comparison cum;	/* vs the base; empty for 0 */
};

struct attribution {
	long long job_id, series_id;
	struct attribution_step *s;
	size_t nr, alloc;
};

/**
 * attribution_load() - the recorded steps of a series job and their
 * comparisons
 * Return: 0, or -1 after error() naming the job and the step: no steps
 * recorded (the job has not finished measuring), no base, a step's run
 * gone or not finished, runs that cannot be compared.
 */
int attribution_load(struct db *db, long long job_id, struct attribution *a);
void attribution_release(struct attribution *a);

/* the series as a whole: base vs +N (the last step's cumulative) */
const struct run_comparison *attribution_series(const struct attribution *a);

/* 1 when the job measured the patches one by one (three steps or more) */
int attribution_per_patch(const struct attribution *a);

/* the step of patch @upto, NULL when the job has none */
const struct attribution_step *
attribution_step(const struct attribution *a, int upto);

/*
 * attribution_format_steps() - where each step's run came from, one line
 * a step ("+2: run #14, reused: ..."), for `mmci show job` and the page
 */
void attribution_format_steps(const struct attribution *a,
			      struct strbuf *out);

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
 * metric_comparison_format_mail() - a metric that moved, as a mail shows
 * it, in two lines
 * @out: where the lines are appended
 * @m: the metric's comparison
 * @indent: put before the first line, and with two blanks more before
 *          the second
 *
 * "fsdax rebind_memmap (ms)" (the variant, if any, after the workload),
 * then "163.0 -> 270.0  +65.64% [+65.03, +66.26]  worse": base -> new
 * median, the change and its interval when known, the verdict. The one
 * format of both tables of a report mail: report.c's of the two runs,
 * attribution_format_mail()'s patch by patch.
 */
void metric_comparison_format_mail(struct strbuf *out,
				   const struct metric_comparison *m,
				   const char *indent);

/*
 * attribution_format_mail() - the per-patch table of a mail, in lines of
 * at most 80 columns: each patch whose own step moved a metric, with
 * those metrics (base -> new median, change, interval, verdict); the
 * patches that moved none in one line; folded steps said.
 */
void attribution_format_mail(const struct attribution *a, struct strbuf *out);

/**
 * attribution_verdict() - the job's one verdict, from the whole series and
 * from each patch's own step, so that a patch whose regression the next
 * patch hides is still named (a 3-patch series whose patch 2 saved about
 * what patch 3 added was "BETTER" as a whole). The command, the page and
 * the mail all print this line and no other verdict.
 * @a: the steps; with fewer than two patch steps (no --per-patch) only
 *	@final counts; may be NULL
 * @final: the series against its base (base vs +N)
 * @out: "MIXED: patch 3/3 fsdax rebind_memmap +38 %; the series as a
 *	whole: BETTER: 2 metric(s) improved" (the series as a whole did not
 *	regress), "WORSE: patch 2/2 fsdax rebind_memmap +66 %, devdax
 *	rebind_memmap +23 %; the series as a whole: WORSE: ..." (it did):
 *	the regressing patches first, each once with the largest change of
 *	each workload it regressed, at most 4 (patch, workload) named and
 *	the rest counted, then the series; else compare_verdict()'s words
 *	for @final
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
