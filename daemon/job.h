/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job.h - one unit of work in the jobs table: a series test, a bisection,
 * a nightly run. The CLI commands and the daemon record the same rows, so
 * the web pages and `mmci show job` see every job, wherever it ran.
 */
#ifndef MMCI_JOB_H
#define MMCI_JOB_H

#include <stddef.h>

#include "util.h"

struct db;

/*
 * job_start() - a new 'running' job owned by this process (owner
 * "host:pid"), or take over job @id when @id != 0: only while it is
 * queued, or claimed for this process by its parent (job_claim() in the
 * daemon that started it). A job another process runs or ran is refused
 * with an error naming its status and owner.
 * @kind: 'series', 'bisect', 'nightly'
 * @params: JSON text of the options, may be NULL
 * Return: the job's id, or -1 after error().
 */
long long job_start(struct db *db, long long id, const char *kind,
		    long long series_id, const char *ref, const char *params);

/*
 * job_queue() - a new 'queued' job for the daemon to start: the one
 * INSERT of a queued job (ingest, tree heads, nightly's bisection).
 * @kind: 'series', 'bisect', 'nightly'
 * @series_id, @head_id: the series or tree head the job is about, 0 none
 * @ref: a ref or range ("good..bad"), NULL none
 * @params: JSON text of the options, NULL none
 * Works inside the caller's transaction, when there is one.
 * Return: the job's id, or -1 after error().
 */
long long job_queue(struct db *db, const char *kind, long long series_id,
		    long long head_id, const char *ref, const char *params);

/*
 * job_queue_series() - the 'series' job of series @series_id, or of any
 * series with the same first mail (series.message_id: the cover letter,
 * else patch 1; two sources, the feed's thread and the inbox's history,
 * store one series as two rows when their mboxes differ), else a new
 * queued one. The check and the insert are one transaction, so a series
 * is queued once whichever source found it.
 * @params: JSON of the job's options (its aim, aim.h), NULL none
 * @queued: set to 1 when a job was queued now, 0 when one was there
 * (may be NULL)
 * Return: the job's id, or -1 after error().
 */
long long job_queue_series(struct db *db, long long series_id,
			   const char *params, int *queued);

/*
 * job_claim() - the daemon takes queued job @id for the child it is about
 * to start: 'running', owned by the daemon ("host:pid") until the child's
 * job_start() writes its own. One conditional write: of two claims of one
 * job, exactly one wins.
 * Return: 1 claimed, 0 not queued any more (taken, ended, gone), or -1
 * after error().
 */
int job_claim(struct db *db, long long id);

/*
 * job_mark_reported() - set reported_at of finished job @id, once: the
 * caller mails the report only when this returns 1, so a job's mail never
 * goes twice (a lost write or a second reporter).
 * Return: 1 marked now, 0 reported before, or -1 after error().
 */
int job_mark_reported(struct db *db, long long id);

/*
 * job_set_report_note() - why job @id was mailed or not (the mail
 * policy's reason, or why a mail was not sent), jobs.report_note.
 * Return: 0, or -1 after error().
 */
int job_set_report_note(struct db *db, long long id, const char *note);

/*
 * The bisections a nightly job queued (its result's regressions name
 * them): a nightly regression is mailed once, by its bisection when that
 * names a commit, else by the nightly itself once the bisection ended.
 * JOB_BISECTS_OF_J joins a jobs row aliased "j" to those bisections ("b");
 * JOB_AWAITS_BISECT is true while one of them is queued or running.
 */
#define JOB_BISECTS_OF_J \
	"json_each(CASE WHEN j.kind = 'nightly' AND json_valid(j.result) " \
	"THEN j.result ELSE '{}' END, '$.regressions') r JOIN jobs b ON " \
	"b.id = json_extract(r.value, '$.bisect_job')"
#define JOB_AWAITS_BISECT \
	"EXISTS (SELECT 1 FROM " JOB_BISECTS_OF_J " WHERE b.status IN " \
	"('queued', 'running'))"

/*
 * job_nightly_bisect() - how the bisection of nightly job @id stands.
 * @bisect: set to the bisection's job id, 0 when it queued none
 * Return: 2 a bisection is still queued or running, 1 one ended and
 * named a commit, 0 none did (none queued, failed, upstream, nothing to
 * bisect), or -1 after error().
 */
int job_nightly_bisect(struct db *db, long long id, long long *bisect);

/*
 * One step of a series job (job_steps): the run that stands for the base
 * (upto 0) or for the series applied up to patch @upto, and where it came
 * from: JOB_STEP_MEASURED (booted by this job), JOB_STEP_REUSED (another
 * run with the same build and set-up, made by another job or by an
 * earlier attempt of this one), JOB_STEP_FOLDED (no kernel: counted with
 * the next step; @run_id 0). @note says why, in words a page shows.
 */
#define JOB_STEP_MEASURED "measured"
#define JOB_STEP_REUSED "reused"
#define JOB_STEP_FOLDED "folded"

struct job_step {
	int upto;
	long long run_id;
	const char *source;
	const char *note;
};

/*
 * job_set_steps() - record the steps of job @id, replacing any recorded
 * before (a job run again records its own): one transaction.
 * Return: 0, or -1 after error().
 */
int job_set_steps(struct db *db, long long id, const struct job_step *s,
		  size_t nr);

/*
 * job_end() - status 'done' or 'failed' with @error (NULL when done),
 * @result JSON. Return: 0, or -1 after error() saying the job stays
 * 'running' (job_recover() fails it later): a caller that was to succeed
 * fails, a caller that was failing anyway has had it said.
 */
int job_end(struct db *db, long long id, int ok, const char *error,
	    const char *result) MUST_CHECK;
/*
 * job_fail() - job_end() as failed, on a path that fails anyway: when even
 * that is not recorded, job_end() has said so and job_recover() fails the
 * job later.
 */
void job_fail(struct db *db, long long id, const char *why);

/*
 * job_recover() - jobs left 'running' by a process that is gone (kill -9,
 * a crash, a reboot): their 'running' runs and boots become 'failed'
 * ("interrupted"), keeping every stored sample, and the job is queued
 * again, or failed after JOB_MAX_ATTEMPTS. A job whose owner is alive on
 * this host is left alone.
 * Return: the number of jobs recovered, or -1 after error().
 */
#define JOB_MAX_ATTEMPTS 3
int job_recover(struct db *db);

/* "host:pid" of this process; caller frees */
char *job_owner(void);

/*
 * job_defer() - give back job @id, which this process claimed, to the
 * queue until @not_before (Unix seconds), with @note saying why (its
 * base-commit is not fetched yet, base.h). Return: 0, or -1 after error().
 */
int job_defer(struct db *db, long long id, double not_before,
	      const char *note);
/* record the base of job @id and why (jobs.base_note) */
int job_set_base_note(struct db *db, long long id, const char *note);
/* the oldest queued job that may start now, 0 none, -1 after error() */
long long job_next_queued(struct db *db, double now);

#endif
