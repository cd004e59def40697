/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - what the guest runner can measure, as the host knows it.
 *
 * The runner (runner/mmci-runner.c) does the work; this table names each
 * workload, its parameters and its metrics with unit and direction, so the
 * host can list them (`mmci workloads`), check a --workloads list before
 * booting anything, and give each metric its clock resolution.
 */
#ifndef MMCI_WORKLOAD_H
#define MMCI_WORKLOAD_H

struct strbuf;

struct metric_def {
	const char *name;       /* exact, or a prefix ending in '*' */
	const char *unit;
	int lower_is_better;
	double resolution;      /* in unit; 0: from the kernel's HZ */
	const char *what;
};

struct workload_def {
	const char *name;
	const char *what;
	const char *params;     /* the mmci.* kernel parameters it reads */
	const struct metric_def *metrics;
};

extern const struct workload_def workload_defs[];

const struct workload_def *workload_find(const char *name);
/*
 * workloads_expand - check a comma list ("all" for every workload);
 * the canonical list goes to out. Returns -1 after error() naming an
 * unknown workload.
 */
int workloads_expand(const char *list, struct strbuf *out);
/* the metric's definition, NULL when the runner did not declare it */
const struct metric_def *metric_find(const char *workload, const char *metric);

/*
 * metric_resolution - the smallest step of a metric in its unit: the
 * table's, or one jiffy (1000/HZ ms; 10 ms when HZ is unknown) for the
 * kernel's own memmap times; 0 for a metric not in the table.
 */
double metric_resolution(const char *workload, const char *metric, int hz);

#endif
