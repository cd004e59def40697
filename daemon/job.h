/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job.h - one unit of work in the jobs table: a series test, a bisection,
 * a nightly run. The CLI commands and the daemon record the same rows, so
 * the web pages and `mmci show job` see every job, wherever it ran.
 */
#ifndef MMCI_JOB_H
#define MMCI_JOB_H

struct db;

/*
 * job_start() - a new 'running' job owned by this process (owner
 * "host:pid"), or take over queued job @id when @id != 0.
 * @kind: 'series', 'bisect', 'nightly'
 * @params: JSON text of the options, may be NULL
 * Return: the job's id, or -1 after error().
 */
long long job_start(struct db *db, long long id, const char *kind,
		    long long series_id, const char *ref, const char *params);

/* status 'done' or 'failed' with @error (NULL when done), @result JSON */
int job_end(struct db *db, long long id, int ok, const char *error,
	    const char *result);

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

#endif
