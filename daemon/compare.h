/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - base run vs new run, metric by metric.
 *
 * Chooses the unit of replication from the runs' clock mode (icount: every
 * sample; wall clock: one median per boot, at least 2 boots a side), the
 * metric's resolution (a jiffy, 1000/HZ ms, for the kernel's own
 * memmap_init_zone_device time; 1 us for the runner's wall time), and
 * hands the numbers to stats.c. Runs in different modes are never
 * compared.
 */
#ifndef MMCI_COMPARE_H
#define MMCI_COMPARE_H

#include "stats.h"

struct db;
struct strbuf;

struct metric_comparison {
	char *workload, *variant, *metric, *unit;
	int base_boots, new_boots;
	struct comparison c;
};

struct run_comparison {
	long long base_id, new_id;
	char *clock, *accel;
	struct metric_comparison *m;
	size_t nr, alloc;
	int worse, better;
};

int compare_runs(struct db *db, long long base_id, long long new_id,
		 struct run_comparison *out);
void run_comparison_release(struct run_comparison *rc);
/*
 * compare_verdict - the verdict of a comparison in a few words: "WORSE: 2
 * metric(s) regressed", "BETTER: ...", both, or "no significant change"
 */
void compare_verdict(const struct run_comparison *rc, struct strbuf *out);

/* the table users read: one line per metric, then the verdict line */
void compare_format(struct db *db, const struct run_comparison *rc,
		    struct strbuf *out);

#endif
