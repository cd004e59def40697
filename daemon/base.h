/* SPDX-License-Identifier: GPL-2.0 */
/*
 * base.h - the base a series job is built on, chosen as the mm tree's own
 * CI chooses it (linux-mm/mm-ci with the kernel-patches daemon: try
 * mm-unstable, then mm-new, then mainline, and take the first the series
 * applies to), after the series' own base-commit.
 *
 *   1. The series' base-commit, when the kernel tree has it.
 *   2. A base-commit the tree lacks: wait for the tree's fetches (the
 *      daemon's `tree` poll, mmci-nightly.timer) until MMCI_BASE_WAIT_S
 *      after the job was queued. libgit2 1.5 cannot fetch one commit by
 *      id from servers that do not allow it, so the branches are fetched
 *      instead and the commit may come with them.
 *   3. Then the branches of MMCI_BASE_BRANCHES, in order, and MMCI_BASE
 *      last: the first the whole series applies to (an in-memory apply,
 *      recorded in `applies`). A name without '/' is a local branch or
 *      tag, else the same branch of any remote (refs/remotes/ * /NAME).
 *   4. None: the job fails with each candidate's reason. Never a silent
 *      fallback.
 * The choice and its reason are recorded on the job (jobs.base_note) and
 * printed at the top of the job's log.
 */
#ifndef MMCI_BASE_H
#define MMCI_BASE_H

struct db;
struct mmci_config;

enum base_outcome {
	BASE_CHOSEN,	/* build on @commit */
	BASE_WAIT,	/* the base-commit may come with a later fetch */
	BASE_NONE,	/* the series applies to no candidate: fail */
};

struct base_choice {
	enum base_outcome outcome;
	char commit[41];	/* BASE_CHOSEN: the commit id */
	char *why;		/* one line: which base and why; owned */
	double wait_until;	/* BASE_WAIT: when waiting ends (Unix s) */
};

#define BASE_DEFAULT_BRANCHES "mm-unstable,mm-new"

/*
 * base_choose() - choose the base of series @series_id for a job queued
 * at @queued_at (Unix seconds), at time @now.
 * Return: 0 with @out filled (release it with base_choice_release()), or
 * -1 after error() (the tree or the database cannot be read).
 */
int base_choose(struct db *db, const struct mmci_config *cfg,
		long long series_id, double queued_at, double now,
		struct base_choice *out);
void base_choice_release(struct base_choice *c);

#endif
