// SPDX-License-Identifier: GPL-2.0
/*
 * test-base.c - the base of a series job (daemon/base.c), as MM CI
 * chooses it: the series' base-commit when the tree has it; a missing one
 * is waited for (MMCI_BASE_WAIT_S) and then the branches are tried in
 * order, the first the series applies to winning; none is a failure that
 * names each candidate. A real git repository (git(1)) with remote
 * branches mm/mm-unstable (a conflicting change) and mm/mm-new (an
 * unrelated one), a real SQLite file, mails from git format-patch.
 */
#include <git2.h>
#include <stdlib.h>

#include "base.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"
#include "sh.h"

#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=main "

static long long ingest(struct db *db, const char *dir, const char *name)
{
	char *path = xstrfmt("%s/%s", dir, name);
	struct loaded_series ls;
	long long id = -1;

	if (!ingest_series_file(db, path, &ls)) {
		id = ls.id;
		loaded_series_release(&ls);
	}
	free(path);
	return id;
}

static void choose(struct db *db, const struct mmci_config *cfg,
		   long long series, double age, enum base_outcome want,
		   const char *want_commit, const char *const *says,
		   const char *what)
{
	struct base_choice bc;
	double now = 2e9;
	int r = base_choose(db, cfg, series, now - age, now, &bc), i;
	int good;

	if (r != 0) {
		ok(0, what);
		printf("# %s\n", last_error());
		return;
	}
	good = bc.outcome == want &&
	       (!want_commit || !strcmp(bc.commit, want_commit));
	for (i = 0; says[i]; i++)
		good = good && bc.why && strstr(bc.why, says[i]);
	if (!ok(good, what))
		printf("# outcome %d, commit %s: %s\n", bc.outcome, bc.commit,
		       bc.why ? bc.why : "(none)");
	if (want == BASE_WAIT)
		ok(bc.wait_until == now - age + 86400, "waits a day from "
		   "the job's queueing");
	base_choice_release(&bc);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-base.XXXXXX", *dir, *path;
	char *base, *unstable, *mmnew;
	struct mmci_config cfg = { 0 };
	long long with_bc, missing_bc, no_bc;
	struct db db;

	log_verbosity = 0;
	git_libgit2_init();
	unsetenv("MMCI_BASE_BRANCHES");
	unsetenv("MMCI_BASE_WAIT_S");
	setenv("MMCI_BASE", "v0", 1);
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory"))
		return done_testing();
	/*
	 * main: base (tag v0) -> the patch, mailed with --base (bc.mbox).
	 * mm/mm-unstable: base -> line d changed (the patch conflicts).
	 * mm/mm-new: base -> a line added at the end (the patch applies).
	 */
	if (!ok(!sh("set -e; cd %s; " GIT "init -q; "
		    "printf 'a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\n' > mm.c; "
		    "git add mm.c; " GIT "commit -qm base; git tag v0; "
		    "git checkout -q -b unstable; sed -i s/^d$/D/ mm.c; "
		    GIT "commit -qam 'mm: rename d'; "
		    "git update-ref refs/remotes/mm/mm-unstable HEAD; "
		    "git checkout -q -b new v0; echo k >> mm.c; "
		    GIT "commit -qam 'mm: add k'; "
		    "git update-ref refs/remotes/mm/mm-new HEAD; "
		    "git checkout -q main; sed -i s/^d$/slow-d/ mm.c; "
		    GIT "commit -qam 'mm: make d slower'; "
		    GIT "format-patch -q -1 --stdout --base=v0 "
		    "--subject-prefix=PATCH > bc.mbox; "
		    "sed 's/^base-commit: .*/base-commit: "
		    "0123456789abcdef0123456789abcdef01234567/; "
		    "s/make d slower/make d slower, v2/' bc.mbox > missing.mbox; "
		    "sed '/^base-commit: /d; s/make d slower/make d slower, v3/' "
		    "bc.mbox > none.mbox", dir),
		"a tree with mm-unstable and mm-new"))
		return done_testing();
	base = sh_word("git -C %s rev-parse v0", dir);
	unstable = sh_word("git -C %s rev-parse mm/mm-unstable", dir);
	mmnew = sh_word("git -C %s rev-parse mm/mm-new", dir);
	path = xstrfmt("%s/mmci.db", dir);
	cfg.tree_dir = xstrdup(dir);
	if (!ok(db_open(&db, path) == 0, "a new database"))
		return done_testing();
	with_bc = ingest(&db, dir, "bc.mbox");
	missing_bc = ingest(&db, dir, "missing.mbox");
	no_bc = ingest(&db, dir, "none.mbox");
	ok(with_bc > 0 && missing_bc > 0 && no_bc > 0, "three series");

	choose(&db, &cfg, with_bc, 0, BASE_CHOSEN, base,
	       (const char *const[]){ "the series' base-commit", NULL },
	       "its base-commit, in the tree: used");
	choose(&db, &cfg, missing_bc, 3600, BASE_WAIT, NULL,
	       (const char *const[]){ "waiting for base-commit 0123456789ab",
				     "for 23 h more", NULL },
	       "a base-commit the tree lacks: wait for a fetch");
	choose(&db, &cfg, missing_bc, 2 * 86400, BASE_CHOSEN, mmnew,
	       (const char *const[]){ "not in the tree after 24 h",
				     "mm-unstable (", "does not apply",
				     "mm-new (", "applies",
				     "first of mm-unstable, mm-new", NULL },
	       "after a day: mm-unstable conflicts, mm-new is taken");
	choose(&db, &cfg, no_bc, 0, BASE_CHOSEN, mmnew,
	       (const char *const[]){ "no base-commit; ", NULL },
	       "no base-commit: the branches at once");
	ok(db_int(&db, 0, "SELECT count(*) FROM applies WHERE status = "
		  "'failed' AND base_ref = 'mm-unstable' AND base_commit = ?",
		  "t", unstable) == 2, "the failed applies are recorded");

	setenv("MMCI_BASE_BRANCHES", "mm-unstable,no-such-branch", 1);
	setenv("MMCI_BASE", "no-such-tag", 1);
	choose(&db, &cfg, no_bc, 0, BASE_NONE, NULL,
	       (const char *const[]){ "applies to none of mm-unstable, "
				     "no-such-branch, no-such-tag",
				     "no-such-branch: not in the tree",
				     "no-such-tag: not in the tree", NULL },
	       "none applies: a failure naming each candidate");
	setenv("MMCI_BASE_BRANCHES", "", 1);
	setenv("MMCI_BASE", "v0", 1);
	choose(&db, &cfg, no_bc, 0, BASE_CHOSEN, base,
	       (const char *const[]){ "v0 (", NULL },
	       "no branches: MMCI_BASE, applied to first");

	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	free(base);
	free(unstable);
	free(mmnew);
	free(cfg.tree_dir);
	git_libgit2_shutdown();
	return done_testing();
}
