// SPDX-License-Identifier: GPL-2.0
/*
 * apply.c - patches to commits with git_apply_to_tree().
 */
#include "apply.h"
#include "tree.h"
#include "util.h"

static int make_commit(git_repository *repo, const git_oid *parent_id,
		       git_index *index, const struct apply_patch *p,
		       git_oid *out)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_oid tree_id;
	const char *name = p->author_name && *p->author_name ? p->author_name :
							       "unknown";
	const char *email = p->author_email && *p->author_email ?
				    p->author_email :
				    "unknown@unknown";
	int ret = -1;

	if (git_index_write_tree_to(&tree_id, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_commit_lookup(&parent, repo, parent_id) < 0 ||
	    git_signature_new(&sig, name, email, p->date, 0) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL,
			      p->message && *p->message ? p->message :
							  p->title,
			      tree, 1, (const git_commit **)&parent) < 0) {
		error("cannot commit patch '%s': %s", p->title, git_errmsg());
		goto out;
	}
	ret = 0;
out:
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(tree);
	return ret;
}

/*
 * git_apply_to_tree() in libgit2 1.5 lets a patch create a file that
 * already exists (it overwrites it), where `git am` refuses. Check the
 * preimage ourselves: a created file must be absent, a changed or deleted
 * one present.
 */
static int check_preimage(git_tree *tree, git_diff *diff, const char **why,
			  const char **path)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_tree_entry *e = NULL;
		int exists;

		if (d->status == GIT_DELTA_ADDED) {
			exists = !git_tree_entry_bypath(&e, tree,
							d->new_file.path);
			git_tree_entry_free(e);
			if (exists) {
				*why = "already exists";
				*path = d->new_file.path;
				return -1;
			}
		} else {
			exists = !git_tree_entry_bypath(&e, tree,
							d->old_file.path);
			git_tree_entry_free(e);
			if (!exists) {
				*why = "does not exist";
				*path = d->old_file.path;
				return -1;
			}
		}
	}
	return 0;
}

int apply_patches(git_repository *repo, const git_oid *base,
		  const struct apply_patch *patches, size_t n, git_oid *heads,
		  int *failed)
{
	git_oid cur;
	size_t i;
	char base_hex[13];

	git_oid_tostr(base_hex, sizeof(base_hex), base);
	*failed = -1;
	git_oid_cpy(&cur, base);
	for (i = 0; i < n; i++) {
		const struct apply_patch *p = &patches[i];
		git_diff *diff = NULL;
		git_commit *commit = NULL;
		git_tree *tree = NULL;
		git_index *index = NULL;
		const char *why = NULL, *path = NULL;
		int ok;

		if (!p->diff || !*p->diff) {
			*failed = i;
			return error("patch %zu/%zu '%s' has no diff", i + 1,
				     n, p->title);
		}
		ok = git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) >= 0;
		if (!ok) {
			*failed = i;
			return error("patch %zu/%zu '%s' is not a valid diff: %s",
				     i + 1, n, p->title, git_errmsg());
		}
		ok = git_commit_lookup(&commit, repo, &cur) >= 0 &&
		     git_commit_tree(&tree, commit) >= 0;
		if (ok && check_preimage(tree, diff, &why, &path) < 0) {
			git_error_set(GIT_ERROR_PATCH, "%s: %s", path, why);
			ok = 0;
		}
		ok = ok && git_apply_to_tree(&index, repo, tree, diff, NULL) >= 0;
		if (!ok) {
			*failed = i;
			if (i)
				error("patch %zu/%zu '%s' does not apply to "
				      "%s + patches 1-%zu: %s", i + 1, n,
				      p->title, base_hex, i, git_errmsg());
			else
				error("patch 1/%zu '%s' does not apply to %s: "
				      "%s", n, p->title, base_hex,
				      git_errmsg());
		} else if (make_commit(repo, &cur, index, p, &heads[i]) < 0) {
			*failed = i;
			ok = 0;
		} else {
			git_oid_cpy(&cur, &heads[i]);
		}
		git_index_free(index);
		git_tree_free(tree);
		git_commit_free(commit);
		git_diff_free(diff);
		if (!ok)
			return -1;
	}
	return 0;
}
