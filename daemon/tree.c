// SPDX-License-Identifier: GPL-2.0
/*
 * tree.c - kernel trees through libgit2: import, resolve, worktree.
 *
 * Workload: a full kernel tree (~90,000 files, 1.4 GB). Importing hashes
 * every file once (about a minute here); checkouts after that touch only
 * what changed between two commits.
 */
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "run-command.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

const char *git_errmsg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

int tree_open(const char *path, git_repository **repo)
{
	if (git_repository_open(repo, path) < 0)
		return error("cannot open the kernel tree '%s': %s (run "
			     "'mmci init' first)", path, git_errmsg());
	return 0;
}

int tree_resolve(git_repository *repo, const char *ref, git_oid *out)
{
	git_object *obj, *commit;
	int ret;

	if (git_revparse_single(&obj, repo, ref) < 0)
		return error("unknown revision '%s': %s", ref, git_errmsg());
	ret = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (ret < 0)
		return error("'%s' is not a commit: %s", ref, git_errmsg());
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	return 0;
}

int tree_of_commit(git_repository *repo, const git_oid *commit, git_oid *out)
{
	git_commit *c;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return error("cannot read commit %s: %s",
			     git_oid_tostr_s(commit), git_errmsg());
	git_oid_cpy(out, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

static int has_tag(const char *path, const char *tag)
{
	git_repository *repo;
	git_oid oid;
	char *ref = xstrfmt("refs/tags/%s", tag);
	int found;

	if (git_repository_open(&repo, path) < 0) {
		free(ref);
		return 0;
	}
	found = !git_reference_name_to_id(&oid, repo, ref);
	git_repository_free(repo);
	free(ref);
	return found;
}

/*
 * Add every file below the work tree by path. git_index_add_all() would
 * honour .gitignore, and Debian's kernel source ignores everything at its
 * top level (a "/ *" rule); with GIT_INDEX_ADD_FORCE libgit2 1.5 then fails on the
 * ignored directories. add_bypath() takes any path it is given.
 */
static git_index *walk_index;
static size_t walk_prefix;

static int add_one(const char *fpath, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	const char *rel = fpath + walk_prefix;

	if (flag == FTW_D && !strcmp(rel, ".git"))
		return FTW_SKIP_SUBTREE;
	if (flag != FTW_F && flag != FTW_SL)
		return FTW_CONTINUE;
	if (git_index_add_bypath(walk_index, rel) < 0)
		return error("cannot add '%s': %s", rel, git_errmsg()), FTW_STOP;
	return FTW_CONTINUE;
}

static int index_add_everything(git_index *index, const char *workdir)
{
	int ret;

	walk_index = index;
	walk_prefix = strlen(workdir) + 1;
	ret = nftw(workdir, add_one, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	walk_index = NULL;
	return ret == FTW_STOP || ret < 0 ? -1 : 0;
}

static int commit_workdir(const char *path, const char *tag,
			  const char *message)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid tree_id, commit_id;
	git_object *target = NULL;
	char *abs = real_path(path);
	int ret = -1;

	if (git_repository_init(&repo, path, 0) < 0 ||
	    git_repository_index(&index, repo) < 0 ||
	    index_add_everything(index, abs) < 0 ||
	    git_index_write(index) < 0 ||
	    git_index_write_tree(&tree_id, index) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_now(&sig, "mmci", "mmci@localhost") < 0 ||
	    git_commit_create(&commit_id, repo, "HEAD", sig, sig, NULL,
			      message, tree, 0, NULL) < 0 ||
	    git_object_lookup(&target, repo, &commit_id,
			      GIT_OBJECT_COMMIT) < 0 ||
	    git_tag_create_lightweight(&commit_id, repo, tag, target, 1) < 0) {
		error("cannot import '%s' into git: %s", path, git_errmsg());
		goto out;
	}
	ret = 0;
out:
	git_object_free(target);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_repository_free(repo);
	free(abs);
	return ret;
}

int tree_import_tarball(const char *tarball, const char *path,
			const char *tag, const char *message)
{
	const char *tar[] = { "tar", "-xf", tarball, "--strip-components=1",
			      "-C", path, NULL };
	double t0 = now_s();

	if (has_tag(path, tag)) {
		log_info("tree '%s' already has '%s'", path, tag);
		return 0;
	}
	if (!file_exists(tarball))
		return error("kernel source '%s' not found (install "
			     "linux-source-6.12)", tarball);
	if (dir_exists(path)) {
		log_info("removing the incomplete import in '%s'", path);
		if (remove_tree(path) < 0)
			return -1;
	}
	if (mkdir_p(path, 0755) < 0)
		return -1;
	progress("extracting %s", tarball);
	if (run_command_v(tar, NULL, NULL))
		return error("cannot extract '%s' into '%s'", tarball, path);
	progress("committing the source to git (about a minute)");
	if (commit_workdir(path, tag, message) < 0)
		return -1;
	progress("imported %s as '%s' in %.0f s", tarball, tag, now_s() - t0);
	return 0;
}

static int worktree_open(const struct mmci_config *cfg, git_repository *repo,
			 char **dir_out, git_repository **wt_repo)
{
	char *dir = xstrfmt("%s/worktree", cfg->data_dir);
	git_worktree *wt = NULL;

	if (git_worktree_lookup(&wt, repo, "mmci-build") < 0 ||
	    git_worktree_validate(wt) < 0) {
		git_worktree_add_options opts = GIT_WORKTREE_ADD_OPTIONS_INIT;

		if (wt) {
			git_worktree_prune_options popts =
				GIT_WORKTREE_PRUNE_OPTIONS_INIT;

			popts.flags = GIT_WORKTREE_PRUNE_VALID |
				      GIT_WORKTREE_PRUNE_WORKING_TREE;
			git_worktree_prune(wt, &popts);
			git_worktree_free(wt);
			wt = NULL;
		}
		remove_tree(dir);
		progress("creating the build worktree '%s'", dir);
		opts.checkout_options.checkout_strategy = GIT_CHECKOUT_NONE;
		if (git_worktree_add(&wt, repo, "mmci-build", dir, &opts) < 0) {
			error("cannot create worktree '%s': %s", dir,
			      git_errmsg());
			free(dir);
			return -1;
		}
	}
	git_worktree_free(wt);
	if (git_repository_open(wt_repo, dir) < 0) {
		error("cannot open worktree '%s': %s", dir, git_errmsg());
		free(dir);
		return -1;
	}
	*dir_out = dir;
	return 0;
}

int tree_checkout(const struct mmci_config *cfg, git_repository *repo,
		  const git_oid *commit, char **worktree_out)
{
	git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
	git_repository *wt;
	git_commit *c = NULL;
	char *dir;
	int ret = -1;

	if (worktree_open(cfg, repo, &dir, &wt) < 0)
		return -1;
	opts.checkout_strategy = GIT_CHECKOUT_FORCE |
				 GIT_CHECKOUT_REMOVE_UNTRACKED;
	if (git_commit_lookup(&c, wt, commit) < 0 ||
	    git_checkout_tree(wt, (git_object *)c, &opts) < 0 ||
	    git_repository_set_head_detached(wt, commit) < 0) {
		error("cannot check out %s in '%s': %s",
		      git_oid_tostr_s(commit), dir, git_errmsg());
		free(dir);
		goto out;
	}
	*worktree_out = dir;
	ret = 0;
out:
	git_commit_free(c);
	git_repository_free(wt);
	return ret;
}

int tree_patch_id_of_diff(const char *diff, char hex[GIT_OID_HEXSZ + 1])
{
	git_diff *d = NULL;
	git_oid id;
	int ret = -1;

	if (!diff || !strstr(diff, "diff --git "))
		return 1;
	/* quiet: a mail's diff may be mangled; the caller says what it means */
	if (git_diff_from_buffer(&d, diff, strlen(diff)) < 0)
		return -1;
	if (!git_diff_num_deltas(d))
		ret = 1;
	else if (!git_diff_patchid(&id, d, NULL)) {
		git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &id);
		ret = 0;
	}
	git_diff_free(d);
	return ret;
}

int tree_patch_id_of_commit(git_repository *repo, const git_oid *commit,
			    char hex[GIT_OID_HEXSZ + 1])
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *d = NULL;
	git_oid id;
	int ret = -1;

	if (git_commit_lookup(&c, repo, commit) < 0 ||
	    git_commit_tree(&t, c) < 0 ||
	    (git_commit_parentcount(c) &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&pt, parent) < 0)) ||
	    git_diff_tree_to_tree(&d, repo, pt, t, NULL) < 0) {
		error("cannot diff commit %s: %s", git_oid_tostr_s(commit),
		      git_errmsg());
		goto out;
	}
	if (!git_diff_num_deltas(d))
		ret = 1;
	else if (git_diff_patchid(&id, d, NULL) < 0)
		error("cannot hash commit %s: %s", git_oid_tostr_s(commit),
		      git_errmsg());
	else {
		git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &id);
		ret = 0;
	}
out:
	git_diff_free(d);
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(parent);
	git_commit_free(c);
	return ret;
}

int tree_fetch_progress(const git_indexer_progress *p, void *data)
{
	struct tree_fetch_progress *fp = data;
	double t = now_s();

	if (t - fp->last < 10.0)
		return 0;
	fp->last = t;
	progress("fetching %s: %u/%u objects, %zu MiB, %u/%u deltas",
		 fp->what, p->received_objects, p->total_objects,
		 p->received_bytes >> 20, p->indexed_deltas, p->total_deltas);
	return 0;
}
