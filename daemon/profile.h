/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - why a kernel got slower: the guest instructions each kernel
 * function executed inside the timed writes, counted exactly, and their
 * difference between two kernels.
 *
 * A profile is one more boot of a measured run's set-up (its kernel, its
 * command line, its sizes), always under TCG with icount, with QEMU's
 * counting plugin (runner/qemu-profile.c) and the runner told to mark its
 * timed writes (mmci.profile=1). The measured boots never carry the
 * plugin. The guest prints its own symbol table (/proc/kallsyms, modules
 * included) at the end, so addresses map to functions as they were in
 * that boot. Counts are exclusive: an instruction counts for the function
 * its address lies in; code the compiler inlined counts for the caller.
 * Under icount shift=0 one instruction is one nanosecond of the guest's
 * clock, so a count and a time can be held against each other.
 */
#ifndef MMCI_PROFILE_H
#define MMCI_PROFILE_H

#include <stddef.h>

struct db;
struct mmci_config;
struct run_comparison;
struct strbuf;

#define PROFILE_METHOD "qemu-plugin insns"
/* lines of profile_explain() in a command's output, and in a mail */
#define PROFILE_TEXT_LINES 20
#define PROFILE_MAIL_LINES 10

/*
 * profile_run() - profile run @run_id's set-up (see above), or find the
 * profile already made of it.
 * Return: the profiles row's id; -1 after error() when the profile could
 * not be made (its row says why, status 'failed').
 */
long long profile_run(const struct mmci_config *cfg, struct db *db,
		      long long run_id);

/*
 * profile_store() - read a profiling boot's files into profile @pid (a
 * 'running' row): @results, the runner's JSON lines (window kinds and
 * the guest's symbol table), @counts, the plugin's output. In one
 * transaction the counts are summed per function and the row marked
 * 'ok'. Return: 0, or -1 after error() saying what was wrong (no symbol
 * table, not the plugin's output, a window kind the runner never named,
 * no window at all); nothing is stored then.
 */
int profile_store(struct db *db, long long pid, const char *results,
		  const char *counts, double duration_s);

/* the newest 'ok' profile of run @run_id: its id, 0 none, -1 error() */
long long profile_of_run(struct db *db, long long run_id);

struct profile_func {
	char *name;
	long long base, cand;	/* instructions per window, summed */
};

struct profile_diff {
	char *workload, *variant;
	long long base_windows, cand_windows;
	long long base_insns, cand_insns;	/* in all windows */
	struct profile_func *funcs;	/* by |change| descending */
	size_t nr;
	/* functions only one side has: renamed, or inlined in one build */
	size_t only_base, only_cand;
};

/*
 * profile_diff() - profiles @base_id and @cand_id of @workload's windows
 * (all its variants summed when @variant is NULL), per function.
 * Return: 0, 1 when either has no window of that workload, -1 error().
 */
int profile_diff(struct db *db, long long base_id, long long cand_id,
		 const char *workload, const char *variant,
		 struct profile_diff *d);
void profile_diff_release(struct profile_diff *d);

/*
 * The smallest change of a function a report names, per window: 0.001 %
 * of the base's instructions per window, at least 1. Two builds whose
 * code differs only in comments still place the kernel's data a little
 * differently, and the guest's page cache and LRU lists then take a few
 * different branches: 18 instructions in 10.5 million per write were
 * seen (tests/t0545). A real change of the code measured is far above.
 */
#define PROFILE_NOISE_FLOOR 1e-5
double profile_noise_floor(const struct profile_diff *d);

/*
 * profile_add_count() - a count with thousands separated: 1234567.4 ->
 * "1,234,567", "+1,234,567" with @sign; a negative one after @minus
 * ("-" in text, "&minus;" in a page)
 */
void profile_add_count(struct strbuf *out, double v, int sign,
		       const char *minus);

/* change per window of the whole profile, in instructions */
double profile_diff_total(const struct profile_diff *d);

/*
 * profile_diff_format() - the functions that moved most, at most
 * @max_lines lines of at most 80 columns, per window:
 *   "  +668,000,123  memmap_init_zone_device  (1.0e9 -> 1.7e9)"
 * Functions whose change is under @min_share of the largest are left out;
 * nothing when no function moved. @metric_ns: the measured change of the
 * same windows in ns (0 = unknown): a line says when the profile's total
 * and it are more than 1 % apart.
 */
void profile_diff_format(const struct profile_diff *d, int max_lines,
			 double min_share, double metric_ns,
			 struct strbuf *out);

/*
 * profile_wall_change_ns() - how much longer (ns) @new_run's timed writes
 * of a workload and variant took than @base_run's, on average: the mean
 * of their "_wall" samples (the profile's windows); 0 when unknown
 */
double profile_wall_change_ns(struct db *db, long long base_run,
			      long long new_run, const char *workload,
			      const char *variant);

/*
 * profile_diffs_for() - the profile diffs a comparison worth a report
 * shows: one per workload and variant with a metric that moved (worse or
 * better), of the profiles of @rc's two runs (or of runs of the same
 * builds and set-up). None when either has no profile.
 * Return: 0 (*@out holds *@nr diffs, release with profile_diffs_release),
 * -1 after error().
 */
int profile_diffs_for(struct db *db, const struct run_comparison *rc,
		      struct profile_diff **out, size_t *nr);
void profile_diffs_release(struct profile_diff *d, size_t nr);

/*
 * profile_explain() - where the instructions went, for a comparison
 * worth a report: for each workload with a metric that moved (worse or
 * better), the profiles of @rc's two runs compared, a heading line
 * ("@what, fsdax align=2M,map=dev: +668,118,904 instructions a timed
 * write (+65.9 %)") and the functions that moved most, at most
 * @max_lines lines in all, of at most 80 columns. Nothing when either
 * run has no profile. Return: the lines written, -1 after error().
 */
int profile_explain(struct db *db, const struct run_comparison *rc,
		    const char *what, int max_lines, struct strbuf *out);

/*
 * profile_runs_for() - make the profiles profile_explain() would show:
 * both runs of @rc when some metric moved. Failures are warned about and
 * change no verdict. Return: profiles made or found.
 */
int profile_runs_for(const struct mmci_config *cfg, struct db *db,
		     const struct run_comparison *rc);

#endif
