// SPDX-License-Identifier: GPL-2.0
/*
 * test-bisect.c - finding a bisection's culprit on the list after a rebase
 * (bisect_find_patch() in daemon/bisect.c, the patch-ids of daemon/tree.c).
 *
 * A real git repository (made with git(1)), a real SQLite file: a patch is
 * mailed (git format-patch) and ingested; the branch is then rebased onto
 * a new upstream commit, so the commit has another id. The culprit must be
 * found by its Link: trailer when the commit has one, by git's patch-id
 * when it has none (the same as `git patch-id --stable` prints), and not
 * at all for a commit that was never on the list.
 */
#include <git2.h>

#include "bisect.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "tap.h"
#include "sh.h"

#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=main -C "

static void test_patch_ids(git_repository *repo, const char *dir)
{
	char *want = sh_word("git -C %s show rebased | git patch-id --stable",
			     dir);
	char *mbox = xstrfmt("%s/p.mbox", dir), got[GIT_OID_HEXSZ + 1];
	struct strbuf sb = STRBUF_INIT;
	git_oid id;
	const char *diff;

	ok(*want, "git patch-id printed an id");
	is_int(tree_resolve(repo, "rebased", &id), 0, "resolve 'rebased'");
	is_int(tree_patch_id_of_commit(repo, &id, got), 0,
	       "the patch-id of a commit");
	is_str(got, want, "it is git patch-id --stable's");
	strbuf_read_file(&sb, mbox, 0);
	diff = strstr(sb.buf, "diff --git ");
	is_int(tree_patch_id_of_diff(diff, got), 0,
	       "the patch-id of the mailed diff");
	is_str(got, want, "the same as the rebased commit's");
	is_int(tree_patch_id_of_diff("no diff here\n", got), 1,
	       "a text without a diff has none");
	strbuf_release(&sb);
	free(mbox);
	free(want);
}

static void find(struct db *db, git_repository *repo, const char *ref,
		 int want, const char *how, const char *name)
{
	struct bisect_culprit c;
	git_oid id;
	char *n1 = xstrfmt("%s: %s", name, want ? "found" : "not found");

	tree_resolve(repo, ref, &id);
	is_int(bisect_find_patch(db, repo, &id, &c), want, n1);
	if (want) {
		char *n2 = xstrfmt("%s: found by %s", name, how);

		is_str(c.how, how, n2);
		is_int(c.idx, 1, "  it is patch 1");
		is_str(c.title, "mm: make the memmap loop slower", "  its title");
		free(n2);
	}
	bisect_culprit_release(&c);
	free(n1);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-bisect.XXXXXX", *dir, *path, *mbox;
	struct loaded_series ls = { 0 };
	git_repository *repo = NULL;
	struct db db;

	git_libgit2_init();
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory"))
		return done_testing();
	/*
	 * main: base -> patch (mailed). upstream: base -> doc. rebased: the
	 * patch cherry-picked on upstream, no Link:. linked: the same with
	 * akpm's Link: trailer and another wording of the diff context.
	 * other: a commit never mailed.
	 */
	if (!ok(!sh("set -e; " GIT "%s init -q; cd %s; "
		    "printf 'a\\nb\\nc\\nd\\ne\\nf\\ng\\n' > mm.c; "
		    "git add mm.c; " GIT ". commit -qm base; "
		    "git branch upstream; "
		    "printf 'a\\nb\\nc\\nslow\\nd\\ne\\nf\\ng\\n' > mm.c; "
		    GIT ". commit -qam 'mm: make the memmap loop slower'; "
		    GIT ". format-patch -q -1 --stdout --thread --subject-prefix=PATCH "
		    "--numbered > p.mbox; "
		    GIT ". checkout -q upstream; echo doc > README; "
		    "git add README; " GIT ". commit -qm doc; "
		    GIT ". checkout -q -b rebased; " GIT ". cherry-pick main >/dev/null; "
		    GIT ". checkout -q -b linked upstream; "
		    GIT ". cherry-pick main >/dev/null; " GIT ". commit -q --amend -m "
		    "'mm: something else' -m "
		    "'Link: https://lkml.kernel.org/r/'\"$(sed -n "
		    "'s/^Message-ID: <\\(.*\\)>$/\\1/Ip' p.mbox)\"; "
		    GIT ". checkout -q -b other upstream; echo x >> mm.c; "
		    GIT ". commit -qam 'mm: never mailed'", dir),
		"a repository with a rebased branch"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	mbox = xstrfmt("%s/p.mbox", dir);
	if (!ok(db_open(&db, path) == 0, "a new database") ||
	    !ok(ingest_series_file(&db, mbox, &ls) == 0, "the mail ingested") ||
	    !ok(tree_open(dir, &repo) == 0, "the repository opens"))
		return done_testing();
	ok(db_int(&db, 0, "SELECT count(*) FROM patches WHERE patch_id IS "
		  "NOT NULL", "") == 1, "the stored patch has a patch-id");
	test_patch_ids(repo, dir);
	find(&db, repo, "rebased", 1, "patch-id", "rebased, no Link:");
	find(&db, repo, "linked", 1, "Link:", "with akpm's Link:");
	find(&db, repo, "other", 0, NULL, "a commit never mailed");
	git_repository_free(repo);
	loaded_series_release(&ls);
	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	free(mbox);
	git_libgit2_shutdown();
	return done_testing();
}
