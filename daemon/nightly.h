/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nightly.h - a new head of a branch measured against the head measured
 * before it (`mmci nightly`, and the daemon's 'nightly' jobs).
 *
 * The job builds the new head and the previous nightly's head of the same
 * remote and branch, boots them in interleaved rounds (the previous one is
 * measured again, not taken from yesterday's numbers: the host is not the
 * same host a day later; under icount a run measured before is reused),
 * and compares. Every metric that got worse is a regression; one 'bisect'
 * job is queued for the range, on the largest, so that the daemon can
 * name the commit. The runs of the new head are the points of
 * `mmci history`.
 */
#ifndef MMCI_NIGHTLY_H
#define MMCI_NIGHTLY_H

#include <jansson.h>

struct db;
struct measure_args;
struct metric_comparison;
struct mmci_config;
struct run_comparison;

struct nightly_request {
	long long job;          /* a queued nightly job; 0: none (by hand) */
	const char *ref;        /* without a job: the head to measure */
	const char *previous;   /* compare with this; NULL: the newest
	                         * finished nightly of the branch */
	int bisect;             /* queue a bisect job on a regression */
};

/*
 * nightly_run() - measure, compare, record the job's end and result
 * ({new_run, commit[, base_run, previous, worse, better, regressions]}),
 * print the comparison. Return: 0, or -1 after error() (the job failed,
 * or is left to recovery when the daemon's job was interrupted).
 */
int nightly_run(const struct mmci_config *cfg, struct db *db,
		struct measure_args *ma, const struct nightly_request *req);

/*
 * nightly_regressions() - every metric of @rc that got worse, appended to
 * @regs as {workload, variant, metric, change_pct}. Return: the largest
 * change among them (the one a bisection follows), its object in @regs in
 * *@top_json; NULL when nothing got worse.
 */
const struct metric_comparison *
nightly_regressions(const struct run_comparison *rc, json_t *regs,
		    json_t **top_json);

#endif
