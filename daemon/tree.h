/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tree.h - the kernel tree: a git repository opened with libgit2.
 *
 * Builds never touch the repository's own work tree: they use one linked
 * worktree (<data>/worktree) that is moved from commit to commit with a
 * forced checkout. libgit2 only rewrites the files that differ, so their
 * mtimes tell make exactly what to rebuild in the out-of-tree build dir.
 */
#ifndef MMCI_TREE_H
#define MMCI_TREE_H

#include <git2.h>

struct mmci_config;

/* libgit2 error as text, for error() at the boundary */
const char *git_errmsg(void);

int tree_open(const char *path, git_repository **repo);
/* resolve a ref, tag, or (abbreviated) commit id to a commit */
int tree_resolve(git_repository *repo, const char *ref, git_oid *out);
/* the tree oid of a commit */
int tree_of_commit(git_repository *repo, const git_oid *commit, git_oid *out);

/*
 * tree_import_tarball - create the default tree: extract `tarball`
 * (Debian's linux-source) into `path`, commit it and tag it `tag`.
 * Does nothing when `path` already holds a repository with that tag.
 */
int tree_import_tarball(const char *tarball, const char *path,
			const char *tag, const char *message);

/*
 * tree_checkout - point the build worktree at `commit`, creating the
 * worktree on first use. *worktree_out is its directory (caller frees).
 */
int tree_checkout(const struct mmci_config *cfg, git_repository *repo,
		  const git_oid *commit, char **worktree_out);

/*
 * git's patch-id (git patch-id --stable) of a diff in git's text format,
 * as a mail carries it, or of a commit against its first parent: the
 * same change has the same id after a rebase. 0 with @hex set, 1 when
 * there is no diff to hash, -1 on an error (said for a commit; quiet for
 * a diff, which a mail may have mangled).
 */
int tree_patch_id_of_diff(const char *diff, char hex[GIT_OID_HEXSZ + 1]);
int tree_patch_id_of_commit(git_repository *repo, const git_oid *commit,
			    char hex[GIT_OID_HEXSZ + 1]);

/*
 * A fetch's progress as a line every 10 s ("fetching WHAT: 10/20 objects,
 * 3 MiB, 0/5 deltas"), for fetches that take minutes (a kernel tree, a
 * lore epoch): callbacks.transfer_progress, with a struct
 * tree_fetch_progress as the payload.
 */
struct tree_fetch_progress {
	const char *what;
	double last;	/* s, monotonic: the last line printed */
};
int tree_fetch_progress(const git_indexer_progress *p, void *data);

#endif
