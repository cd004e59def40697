// SPDX-License-Identifier: GPL-2.0
/*
 * test-build-key.c - what of a commit names its kernel in the build cache
 * (build_source_hash() in daemon/build.c).
 *
 * A real git repository made with git(1): a base with a Makefile, mm/ and
 * Documentation/ (its Kconfig and a page); commits that change the page
 * only, add a page, remove all of Documentation/ but its Kconfig, change
 * Documentation/Kconfig, change mm/, make a file executable. The first
 * three are built from what the base is built from; the others are not.
 */
#include <git2.h>

#include "build.h"
#include "fsutil.h"
#include "tree.h"
#include "util.h"
#include "tap.h"
#include "sh.h"

#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=main -C "

static void hash_of(git_repository *repo, const char *ref, char out[41])
{
	git_oid id, tree;

	out[0] = '\0';
	if (tree_resolve(repo, ref, &id) < 0 ||
	    tree_of_commit(repo, &id, &tree) < 0 ||
	    build_source_hash(repo, &tree, out) < 0)
		out[0] = '\0';
}

static void same(git_repository *repo, const char *ref, const char *base,
		 const char *name)
{
	char a[41], b[41];

	hash_of(repo, ref, a);
	hash_of(repo, base, b);
	ok(*a && !strcmp(a, b), name);
}

static void differs(git_repository *repo, const char *ref, const char *name)
{
	char a[41], b[41];

	hash_of(repo, ref, a);
	hash_of(repo, "base", b);
	ok(*a && *b && strcmp(a, b), name);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-build-key.XXXXXX", *dir;
	git_repository *repo = NULL;

	git_libgit2_init();
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory"))
		return done_testing();
	if (!ok(!sh("set -e; " GIT "%s init -q; cd %s; "
		    "mkdir -p mm Documentation/mm; echo 'all:' > Makefile; "
		    "echo 'int a;' > mm/a.c; "
		    "echo 'config WARN_MISSING_DOCUMENTS' > Documentation/Kconfig; "
		    "echo 'a page' > Documentation/mm/page.rst; "
		    "git add .; " GIT ". commit -qm base; git tag base; "
		    "echo 'the page, reworded' > Documentation/mm/page.rst; "
		    GIT ". commit -qam page; git tag page; "
		    "echo 'new' > Documentation/new.rst; git add .; "
		    GIT ". commit -qm new-page; git tag new-page; "
		    "git rm -rq Documentation/mm Documentation/new.rst; "
		    GIT ". commit -qm no-pages; git tag no-pages; "
		    "git checkout -q base; "
		    "echo 'config WARN_ABI_ERRORS' >> Documentation/Kconfig; "
		    GIT ". commit -qam kconfig; git tag kconfig; "
		    "git checkout -q base; echo 'int b;' >> mm/a.c; "
		    GIT ". commit -qam code; git tag code; "
		    "git checkout -q base; chmod +x mm/a.c; "
		    GIT ". commit -qam mode; git tag mode; "
		    "git checkout -q base; git rm -rq Documentation; "
		    GIT ". commit -qm no-doc; git tag no-doc", dir),
		"a repository: a base and six commits on it"))
		return done_testing();
	if (!ok(tree_open(dir, &repo) == 0, "the repository opens"))
		return done_testing();
	same(repo, "page", "base", "a page of Documentation/ changed: the same");
	same(repo, "new-page", "base", "a page added: the same");
	same(repo, "no-pages", "base",
	     "every page removed, Documentation/Kconfig kept: the same");
	differs(repo, "kconfig", "Documentation/Kconfig changed: another");
	differs(repo, "code", "mm/a.c changed: another");
	differs(repo, "mode", "mm/a.c made executable: another");
	differs(repo, "no-doc", "Documentation/ removed with its Kconfig: another");
	git_repository_free(repo);
	if (!tap_failed)
		remove_tree(dir);
	git_libgit2_shutdown();
	return done_testing();
}
