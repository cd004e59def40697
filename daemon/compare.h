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
	char *notes;	/* what a reader must know of the hosts: "host load
			 * 3.2 at the start of run #5; ..." (hostfacts.h);
			 * NULL when nothing */
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
/* the same table without the verdict line: a job whose verdict is more
 * than this comparison's (attribution_verdict()) prints its own.
 * Return: 0, or -1 after error() (a run that cannot be loaded) */
int compare_format_table(struct db *db, const struct run_comparison *rc,
			 struct strbuf *out);

/*
 * The statistical unit of a run (docs/STATISTICS.md), in one place for
 * every reader (compare, history, bench, the web pages): in icount mode
 * every sample of the run's ok boots is a unit; on the wall clock the
 * same kernel moves 7-10 % from boot to boot, so the unit is the median
 * of each ok boot. Boots that are not 'ok' never count.
 *
 *	struct unit_values u = UNIT_VALUES_INIT;
 *
 *	if (run_units(db, run_id, "fsdax", "2M", "bind_ms",
 *		      run_units_per_boot(clock), &u) < 0)
 *		return -1;
 *	... u.v[0 .. u.nr - 1], u.boots ...
 *	unit_values_release(&u);
 */
struct unit_values {
	double *v;      /* the units, boot by boot; owned */
	double *cv;     /* per_boot only: the CV of each unit's boot (a
	                 * fraction, NAN below 2 samples); else NULL */
	size_t nr, alloc;
	int boots;      /* ok boots with a sample of the metric */
};
#define UNIT_VALUES_INIT { 0 }

/* per_boot for run_units() from a run's clock: 1 for "wall", else 0 */
int run_units_per_boot(const char *clock);

/*
 * run_units() - the units of one metric of one run.
 * @workload, @variant, @metric: the metric, as in the samples table
 * @per_boot: 0 every sample, 1 the median of each ok boot (see
 *            run_units_per_boot())
 * @out: filled from empty (any earlier content is released)
 * Return: 0 (@out->nr may be 0: no sample of an ok boot), or -1 after
 * error(); @out is then empty.
 */
int run_units(struct db *db, long long run_id, const char *workload,
	      const char *variant, const char *metric, int per_boot,
	      struct unit_values *out);
void unit_values_release(struct unit_values *u);

/*
 * run_value() - "the run's value" of a metric, as the history and the
 * pages show it: the median of its units (run_units()).
 * @value: set when there is one
 * Return: 1 with *@value set, 0 when the run has no sample of an ok
 * boot, or -1 after error().
 */
int run_value(struct db *db, long long run_id, const char *workload,
	      const char *variant, const char *metric, int per_boot,
	      double *value);

#endif
