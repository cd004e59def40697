/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect.h - the first commit of GOOD..BAD that moved a metric.
 *
 * libgit2 walks the range (first parents, oldest first). GOOD and BAD
 * are built, booted in interleaved rounds and compared; when they do not
 * differ significantly there is nothing to bisect. Otherwise each step
 * builds the middle commit, boots it as many times, and compares it with
 * both ends (adaptive repeats while that is ambiguous): like GOOD -> the
 * change is later, like BAD -> it is here or earlier. A step that differs
 * from both ends (the change came in several steps), moves the other way,
 * or stays ambiguous after its budget is decided by the nearer median and
 * makes the result "not clean", with the reason.
 *
 * When BAD does not descend from GOOD (mm-new is rebased most days), the
 * range starts at their merge-base, which is measured first: when it
 * already moved as BAD did, the change is upstream of the branch (no
 * patch is blamed); else merge-base..BAD is bisected. The first bad
 * commit is then looked up on the list (bisect_find_patch()).
 *
 * The ends are measured once, at the start: in wall-clock mode a slow
 * drift of the host over the bisection shows up as noise, which the
 * interval of each step (against boots of the ends) absorbs.
 */
#ifndef MMCI_BISECT_H
#define MMCI_BISECT_H

#include "config.h"
#include "db.h"
#include "measure.h"

/* the exit statuses of `mmci bisect` */
enum bisect_result {
	BISECT_CLEAN = 0,	/* found, every step like one end */
	BISECT_ERROR = 1,
	BISECT_NO_CHANGE = 2,	/* GOOD and BAD do not differ */
	BISECT_UNCLEAN = 3,	/* found, with notes */
	BISECT_UPSTREAM = 4,	/* rebased, and the merge-base moved already */
};

struct bisect_request {
	const char *good, *bad;	/* refs of the tree */
	const char *workload;	/* NULL: the one workload that has the metric */
	const char *metric;
	const char *variant;	/* NULL: the one GOOD..BAD moved most */
	long long job;		/* a queued job of the daemon, or 0 */
};

/* a patch of the list that a commit is */
struct bisect_culprit {
	long long patch_id, series_id;
	int idx, total;		/* patch idx/total of the series */
	char *message_id, *title;
	const char *how;	/* "Link:", "patch-id", "mm-commits notice",
				   "title" */
};

/*
 * The patch of the list that @commit is: by its Link: trailers, by git's
 * patch-id (the same after a rebase), by an mm-commits notice of its
 * title, or by its title. 1 found (@out set), 0 not found, -1 on an error.
 */
int bisect_find_patch(struct db *db, git_repository *repo,
		      const git_oid *commit, struct bisect_culprit *out);
void bisect_culprit_release(struct bisect_culprit *c);

/*
 * The workload of @metric when the request names none: the first whose
 * metric of that exact name exists. NULL (with an error) when none has it.
 */
const char *bisect_workload(const char *workload, const char *metric);

/*
 * Measure and bisect; the table and the result on stdout, the job's
 * result in the database. @ma was finished by measure_args_finish().
 */
enum bisect_result bisect_run(const struct mmci_config *cfg, struct db *db,
			      struct measure_args *ma,
			      const struct bisect_request *req);

#endif
