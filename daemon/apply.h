/* SPDX-License-Identifier: GPL-2.0 */
/*
 * apply.h - apply a series onto a base commit with libgit2, in memory.
 *
 * Each patch becomes a commit whose parent is the previous one, with the
 * mail's author and date as author and committer, so applying the same
 * series to the same base always gives the same commit ids (and the build
 * cache hits). No git binary is run and no work tree is touched.
 */
#ifndef MMCI_APPLY_H
#define MMCI_APPLY_H

#include <git2.h>
#include <time.h>

struct strbuf;

struct apply_patch {
	const char *title;           /* for messages */
	const char *author_name;
	const char *author_email;
	time_t date;
	const char *message;         /* full commit message */
	const char *diff;            /* unified diff, git style */
};

/*
 * apply_patches - apply patches[0..n) on top of `base`.
 * @heads: n commit ids out: heads[i] is base + patches 0..i.
 * @failed: set to the index of the patch that did not apply, or -1.
 * Returns 0, or -1 after error() naming the patch and the base.
 */
int apply_patches(git_repository *repo, const git_oid *base,
		  const struct apply_patch *patches, size_t n, git_oid *heads,
		  int *failed);

#endif
