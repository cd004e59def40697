/* SPDX-License-Identifier: GPL-2.0 */
/*
 * remote.h - the tree ingest: fetch remote branches into the local tree
 * with libgit2, record every new head and the commits it brought, and
 * queue one nightly job per new head.
 *
 * Where the remotes come from (first match wins, see cmd-ingest-tree.c):
 * `--remote NAME=URL` on the command line, then MMCI_REMOTES, then the
 * `remotes` table (seeded by schema/0004-heads.sql with akpm's mm.git,
 * branch mm-new).
 *
 * Fetched branches land in refs/remotes/<name>/<branch> of the tree and
 * nowhere else: no tags are fetched, FETCH_HEAD is not written (libgit2
 * 1.5 truncates it to nothing) and the repository's config gets no
 * [remote] section (the remote is anonymous), so the tags and branches
 * builds use are never touched. The previous
 * head of a branch is the last one recorded in the database, not the ref,
 * so a crash between the fetch and the commit of its rows is recorded by
 * the next run.
 */
#ifndef MMCI_REMOTE_H
#define MMCI_REMOTE_H

#include <git2.h>
#include <stddef.h>

struct db;

#define REMOTE_DEFAULT_BRANCH "mm-new"
/* commits recorded per head at most, unless --max-commits says otherwise */
#define REMOTE_MAX_COMMITS 10000

struct remote {
	char *name;
	char *url;           /* NULL: only a name, to look up */
	char **branches;
	size_t nr_branches, alloc_branches;
	const char *source;  /* "command line", "MMCI_REMOTES", "database" */
};

struct remote_list {
	struct remote *items;
	size_t nr, alloc;
};

void remote_add_branch(struct remote *r, const char *branch);
void remote_release(struct remote *r);
void remote_list_release(struct remote_list *list);
struct remote *remote_list_find(struct remote_list *list, const char *name);

/*
 * remote_parse - "NAME=URL" or "NAME=URL#BRANCH[,BRANCH...]" (or a bare
 * "NAME" when allow_bare) into a new entry of list. Checks that NAME is a
 * valid remote name and every BRANCH a valid branch name. Returns 0 or -1
 * after error().
 */
int remote_parse(struct remote_list *list, const char *spec, int allow_bare,
		 const char *source);
/* MMCI_REMOTES: specs separated by white space or ';' */
int remotes_from_env(struct remote_list *list, const char *env);
int remotes_from_db(struct db *db, struct remote_list *list);
/* insert or replace a remote in the remotes table */
int remote_save(struct db *db, const struct remote *r);
/* 1 when it was there, 0 when not, -1 on error */
int remote_forget(struct db *db, const char *name);

/*
 * tree_open_or_create - open the local tree, creating an empty
 * (non-bare) repository at path when nothing is there yet, so that the
 * ingest works before (or without) `mmci init`'s import.
 */
int tree_open_or_create(const char *path, git_repository **repo);

struct ingest_stats {
	int new_heads;
	int up_to_date;
	int errors;        /* branches that could not be fetched or recorded */
};

/*
 * remote_ingest - fetch every branch of r into refs/remotes/<name>/<b>,
 * record each new head (heads, head_commits with at most max_commits
 * commits, one queued job) and each failure (fetch_errors). A remote that
 * cannot be reached fails all its branches; a missing branch fails alone.
 * Prints one line per branch on stdout and errors on stderr. Returns 0
 * when every branch was fetched and recorded, -1 otherwise; st counts.
 */
int remote_ingest(struct db *db, git_repository *repo, const struct remote *r,
		  long long max_commits, struct ingest_stats *st);

/* print the remotes and each branch's last recorded head */
void remote_list_print(struct db *db, const struct remote_list *list);

#endif
