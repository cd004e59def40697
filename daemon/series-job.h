/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series-job.h - the main job: a series against its base.
 *
 * ingest -> apply -> build base and base+series (with per_patch also
 * base+1 .. base+N-1) -> boot them in interleaved rounds (base, +1, ..,
 * +N, base, ...: host drift hits all alike) -> more rounds while a
 * comparison is ambiguous, within max_boots -> store -> compare the
 * series with its base, each patch with the step before, the claims of
 * the mails with the measurements, and this version with the previous
 * one. Everything belongs to one 'series' job.
 *
 * In icount mode a base already measured with the same build, parameters
 * and set-up is not booted again: its earlier run stands in
 * (measure_reuse(); the run then belongs to the job that made it).
 *
 * A series of more than SERIES_JOB_BISECT_OVER patches (--steps=auto, the
 * daemon's) is not measured step by step under icount: base and head,
 * then the middle of every interval whose ends differ, until each change
 * is one step's; the steps in between are folded, each with a note.
 */
#ifndef MMCI_SERIES_JOB_H
#define MMCI_SERIES_JOB_H

#include "config.h"
#include "db.h"
#include "measure.h"
#include "strbuf.h"

struct attribution;
struct run_comparison;

/* per patch up to this many patches; bisected above (icount) */
#define SERIES_JOB_BISECT_OVER 8

struct series_job_request {
	const char *file;	/* an mbox, or NULL with series_id */
	long long series_id;	/* a stored series, or 0 */
	const char *base;	/* a ref of the tree */
	int per_patch;		/* every step (unless bisect_over says) */
	int bisect_over;	/* 0; or N: a series of more than N patches
				 * under icount has its steps bisected */
	int remeasure;		/* boot the base even when a run can be reused */
	long long job;		/* a queued job of the daemon, or 0 */
	long long *runs;	/* out, or NULL: [0] the base's run, [1] the
				 * series' run (mmci recipe run) */
};

/*
 * Run the job; its tables on stdout. 0 with *worse = the number of
 * metrics that got worse, -1 on an error (the job failed, said why).
 */
int series_job_run(const struct mmci_config *cfg, struct db *db,
		   struct measure_args *ma, const struct series_job_request *req,
		   int *worse);

struct aim;
struct attribution;

/*
 * series_job_aim() - what job @job was aimed at (its params, aim.h).
 * Return: 1 an aim, 0 none (a job queued by hand, or before aims), -1
 * after error().
 */
int series_job_aim(struct db *db, long long job, struct aim *a);

/*
 * series_job_verdict() - the job's one verdict in @out: its steps'
 * (attribution_verdict()), said to be a smoke run outside mmci's scope
 * when its aim is. Return: the patches' own regressions, or -1 after
 * error().
 */
int series_job_verdict(struct db *db, long long job,
		       const struct attribution *a, struct strbuf *out);

/* what series_job_summary() found */
struct series_job_outcome {
	long long base_run, new_run;
	int worse, better;	/* metrics of the series as a whole */
	int regressed_steps;	/* (step, metric) regressions of the patches */
};

/*
 * series_job_summary() - what a series job found, from its recorded steps
 * (job_steps), whoever measured their runs: the one verdict in @verdict
 * (attribution_verdict()), and in @out the per-patch table (per-patch
 * jobs), the series as a whole, the claims and the previous version. The
 * job's own output, `mmci show job` and (through the same attribution)
 * the page and the mail say the same.
 * Return: 0, or -1 after error() (the steps cannot be attributed).
 */
int series_job_summary(struct db *db, long long job, struct strbuf *verdict,
		       struct strbuf *out, struct series_job_outcome *o);

/*
 * series_job_previous_run() - vN-1 for "this version against the
 * previous one": the run that stood for the last step of the newest
 * finished job of the previous version, measured the same way as
 * @run_new (clock, accelerator, workloads, parameters, VM).
 * @prev_series, @prev_version: the previous version (0 when none)
 * Return: its run id; 0 when there is no previous version or it was not
 * measured the same way; -1 after error().
 */
long long series_job_previous_run(struct db *db, long long series_id,
				  long long run_new, long long *prev_series,
				  int *prev_version);

/*
 * series_job_profile_targets() - the comparisons of a job worth a
 * profile: each patch's own step that moved a metric, regressions first,
 * at most PROFILE_MAX_STEPS; without per-patch steps the series as a
 * whole when it moved. @rcs and @what get them and "patch 2/4" or "the
 * series" (the caller frees each @what). Return: how many.
 */
#define PROFILE_MAX_STEPS 3
size_t series_job_profile_targets(const struct attribution *a,
				  const struct run_comparison **rcs,
				  char **what);

/*
 * series_job_profile() - profile (profile.h) the runs of the job's
 * comparisons worth it: each patch's own step that moved a metric
 * (regressions first, at most three), or the series as a whole without
 * per-patch steps; nothing when MMCI_PROFILE is 0. A profile that cannot
 * be made is warned about. Return: profiles made or found, -1 error().
 */
int series_job_profile(const struct mmci_config *cfg, struct db *db,
		       long long job);

/*
 * series_job_profiles() - the lines profile_explain() gives for those
 * comparisons ("patch 2/2, fsdax align=2M,map=dev: +672,490,272
 * instructions per timed write (+65.7 %)", then the functions), at most
 * @max_lines in all. The CLI, the page and the mail show these.
 * Return: lines written, -1 error().
 */
int series_job_profiles(struct db *db, const struct attribution *a,
			int max_lines, struct strbuf *out);

#endif
