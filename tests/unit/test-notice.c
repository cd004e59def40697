// SPDX-License-Identifier: GPL-2.0
/*
 * test-notice.c - the mm-commits notice parser (daemon/notice.c).
 *
 * The "added" notice is a mail of tests/fixtures/mbox, and a real one of
 * $MMCI_FIXTURES (default ../shared/fixtures/mbox) when that corpus is
 * there (fixtures.h). The "removed" and "merged" variants are hand-made
 * with the wording notice.h documents:
 *   Subject: - NAME.patch removed from -mm tree
 *   Subject: [merged BRANCH] NAME.patch removed from -mm tree
 *   "The quilt patch titled / Subject: T / has been removed from the -mm
 *   tree.  Its filename was / NAME.patch / This patch was dropped because
 *   REASON"
 */
#include "mbox.h"
#include "notice.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"
#include "fixtures.h"

/* the one mail of @path in *@mails, parsed as a notice into @n; 0 or -1 */
static int read_notice(const char *path, const char *what, struct mail **mails,
		       size_t *nr, struct notice *n)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	*mails = NULL;
	*nr = 0;
	if (strbuf_read_file(&sb, path, 0) < 0 ||
	    mbox_parse(sb.buf, sb.len, mails, nr) < 0 || *nr != 1) {
		ok(0, "read the mm-commits fixture");
		printf("#   cannot read '%s'\n", path);
	} else {
		char *name = xstrfmt("%s: a notice", what);

		is_int(notice_parse((*mails)[0].subject, (*mails)[0].body.buf, n),
		       1, name);
		free(name);
		ret = 0;
	}
	strbuf_release(&sb);
	return ret;
}

static void test_own_fixture(void)
{
	struct mail *mails;
	struct notice n;
	size_t nr;

	if (read_notice(OWN_FIXTURES "/mm-commits-added-vmap-contig-runs.eml",
			"own", &mails, &nr, &n))
		goto out;
	is_str(notice_action_name(n.action), "added", "own: added");
	is_str(n.branch, "mm-new", "own: branch mm-new");
	is_str(n.filename, "mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch",
	       "own: file name");
	is_str(n.title, "mm/vmalloc: find physically contiguous runs in vmap()",
	       "own: title");
	is_str(n.author, "Kenji Hara <kenji.hara@example.com>", "own: commit author");
	is_int(n.nr_links, 2, "own: two Link: lines");
	if (n.nr_links == 2) {
		is_str(n.links[0], "20260414093012.51234-3-kenji.hara@example.com",
		       "own: the patch's link first");
		is_str(n.links[1], "20260330151502.7712-1-kenji.hara@example.com",
		       "own: the [1] reference, LIST/MSGID/, second");
	}
	is_int(n.nr_signoffs, 2, "own: two Signed-off-by:");
	if (n.nr_signoffs == 2) {
		is_str(n.signoffs[0], "Kenji Hara <kenji.hara@example.com>",
		       "own: author's sign-off");
		is_str(n.signoffs[1], "Hugo Brandt <hugo.brandt@example.org>",
		       "own: the maintainer's sign-off");
	}
	is_str(n.reason, NULL, "own: no reason when added");
	is_str(n.problem, NULL, "own: no problem");
	notice_release(&n);
out:
	mails_free(mails, nr);
}

static void test_fixture(void)
{
	char *path = xstrfmt("%s/%s", shared_fixtures_dir(),
			     "linux-mailinglist-archives+stable.vger.kernel.org.1/"
			     "mm-commits-mm-new-added-samples-damon-mtier.eml");
	struct mail *mails;
	struct notice n;
	size_t nr;

	if (read_notice(path, "fixture", &mails, &nr, &n))
		goto out;
	is_str(notice_action_name(n.action), "added", "fixture: added");
	is_str(n.branch, "mm-new", "fixture: branch mm-new");
	is_str(n.filename, "samples-damon-mtier-handle-damon_stop-failure.patch",
	       "fixture: file name");
	is_str(n.title, "samples/damon/mtier: handle damon_stop() failure",
	       "fixture: title");
	is_str(n.author, "SJ Park <sj@kernel.org>", "fixture: commit author");
	is_int(n.nr_links, 2, "fixture: two Link: lines");
	if (n.nr_links == 2) {
		is_str(n.links[0], "20260628215447.96166-5-sj@kernel.org",
		       "fixture: the patch's link first");
		is_str(n.links[1], "20260609014219.3013-1-sj@kernel.org",
		       "fixture: the [1] reference second");
	}
	is_int(n.nr_signoffs, 2, "fixture: two Signed-off-by:");
	if (n.nr_signoffs == 2) {
		is_str(n.signoffs[0], "SJ Park <sj@kernel.org>",
		       "fixture: author's sign-off");
		is_str(n.signoffs[1],
		       "Andrew Morton <akpm@linux-foundation.org>",
		       "fixture: akpm's sign-off");
	}
	is_str(n.reason, NULL, "fixture: no reason when added");
	is_str(n.problem, NULL, "fixture: no problem");
	notice_release(&n);
out:
	mails_free(mails, nr);
	free(path);
}

static const char removed_body[] =
	"\n"
	"The quilt patch titled\n"
	"     Subject: mm/foo: fix bar\n"
	"has been removed from the -mm tree.  Its filename was\n"
	"     mm-foo-fix-bar.patch\n"
	"\n"
	"This patch was dropped because an updated version will be issued\n"
	"\n"
	"------------------------------------------------------\n"
	"From: Jane Doe <jane@example.org>\n"
	"Subject: mm/foo: fix bar\n"
	"Date: Mon, 1 Jun 2026 10:00:00 +0000\n"
	"\n"
	"Fix bar.\n"
	"\n"
	"Link: https://lkml.kernel.org/r/20260601100000.1234-1-jane@example.org\n"
	"Signed-off-by: Jane Doe <jane@example.org>\n"
	"Cc: Some One <s@example.org>\n"
	"Signed-off-by: Andrew Morton <akpm@linux-foundation.org>\n"
	"---\n"
	"\n"
	" mm/foo.c |    1 +\n"
	"Link: https://lore.kernel.org/not-this-one@example.org\n";

static void test_removed(void)
{
	struct notice n;

	is_int(notice_parse("- mm-foo-fix-bar.patch removed from -mm tree",
			    removed_body, &n), 1, "removed: a notice");
	is_str(notice_action_name(n.action), "removed", "removed: action");
	is_str(n.branch, NULL, "removed: no branch");
	is_str(n.filename, "mm-foo-fix-bar.patch", "removed: file name");
	is_str(n.title, "mm/foo: fix bar", "removed: title");
	is_str(n.reason, "an updated version will be issued",
	       "removed: the reason");
	is_int(n.nr_links, 1, "removed: Link: lines up to --- only");
	if (n.nr_links)
		is_str(n.links[0], "20260601100000.1234-1-jane@example.org",
		       "removed: lkml.kernel.org/r/ link");
	is_int(n.nr_signoffs, 2, "removed: sign-offs");
	is_str(n.problem, NULL, "removed: no problem");
	notice_release(&n);
}

static const char merged_body[] =
	"The quilt patch titled\n"
	"     Subject: mm/vmalloc: speed up vmap of large pages\n"
	"has been removed from the -mm tree.  Its filename was\n"
	"     mm-vmalloc-speed-up-vmap-of-large-pages.patch\n"
	"\n"
	"This patch was dropped because it was merged into the mm-stable branch\n"
	"of git://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm\n"
	"\n"
	"------------------------------------------------------\n"
	"From: A Uthor <a@example.org>\n"
	"Subject: mm/vmalloc: speed up vmap of large pages\n"
	"\n"
	"Link: https://lore.kernel.org/linux-mm/20260101-vmap-v2-1-abc%40example.org/\n"
	"Signed-off-by: A Uthor <a@example.org>\n"
	"---\n";

static void test_merged(void)
{
	struct notice n;

	is_int(notice_parse("[merged mm-stable] "
			    "mm-vmalloc-speed-up-vmap-of-large-pages.patch "
			    "removed from -mm tree", merged_body, &n), 1,
	       "merged: a notice");
	is_str(notice_action_name(n.action), "merged", "merged: action");
	is_str(n.branch, "mm-stable", "merged: branch from the subject");
	is_str(n.filename, "mm-vmalloc-speed-up-vmap-of-large-pages.patch",
	       "merged: file name");
	is_str(n.title, "mm/vmalloc: speed up vmap of large pages",
	       "merged: title");
	ok(n.reason && starts_with(n.reason, "it was merged into the "
				   "mm-stable branch of git://"),
	   "merged: reason joined over two lines");
	is_int(n.nr_links, 1, "merged: one link");
	if (n.nr_links)
		is_str(n.links[0], "20260101-vmap-v2-1-abc@example.org",
		       "merged: LIST/MSGID/ link, %40 decoded");
	is_str(n.problem, NULL, "merged: no problem");
	notice_release(&n);

	is_int(notice_parse("[merged mm-hotfixes-stable] x-fix.patch removed "
			    "from -mm tree", merged_body, &n), 1,
	       "merged hotfixes: a notice");
	is_str(n.branch, "mm-hotfixes-stable", "merged hotfixes: branch");
	ok(n.problem && strstr(n.problem, "other files") &&
	   strstr(n.problem, "other branches"),
	   "merged hotfixes: mismatches with the text are problems");
	notice_release(&n);
}

static void test_subjects(void)
{
	static const char *const not_notices[] = {
		"Re: + foo.patch added to mm-new branch",
		"+ foo.patch added to mm-new",
		"+ foo.patch added to the mm-new branch",
		"+  added to mm-new branch",
		"- foo.patch removed from linux-next",
		"[merged] foo.patch removed from -mm tree",
		"[merged mm-stable]foo.patch removed from -mm tree",
		"[merged mm-stable foo.patch removed from -mm tree",
		"[PATCH] mm: foo",
		"",
	};
	struct notice n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_notices); i++) {
		char *name = xstrfmt("not a notice: '%s'", not_notices[i]);

		is_int(notice_parse(not_notices[i], removed_body, &n), 0, name);
		notice_release(&n);
		free(name);
	}
	is_int(notice_parse(NULL, NULL, &n), 0, "NULL subject");
	notice_release(&n);

	is_int(notice_parse("+ mm-foo.patch added to mm-unstable branch", "",
			    &n), 1, "empty body: still a notice");
	is_str(n.branch, "mm-unstable", "empty body: branch");
	is_str(n.title, "mm-foo.patch", "empty body: the file name as title");
	ok(n.problem && strstr(n.problem, "no commit") &&
	   strstr(n.problem, "no patch title"), "empty body: problems said");
	notice_release(&n);

	is_int(notice_parse("+ old.patch added to -mm tree", "", &n), 1,
	       "old wording: a notice");
	is_str(n.branch, NULL, "old wording: no branch");
	notice_release(&n);
}

static void test_msgid(void)
{
	static const struct {
		const char *url, *want;
	} t[] = {
		{ "https://lore.kernel.org/20260628215447.96166-5-sj@kernel.org",
		  "20260628215447.96166-5-sj@kernel.org" },
		{ "https://lore.kernel.org/linux-mm/a@b/", "a@b" },
		{ "https://lore.kernel.org/linux-mm/a@b/T/#u", "a@b" },
		{ "https://lore.kernel.org/r/a@b", "a@b" },
		{ "http://lkml.kernel.org/r/a%40b", "a@b" },
		{ "https://patch.msgid.link/a@b", "a@b" },
		{ "https://example.org/linux-mm/a@b/", NULL },
		{ "https://lore.kernel.org/linux-mm/", NULL },
		{ "https://lore.kernel.org/", NULL },
		{ "ftp://lore.kernel.org/a@b", NULL },
		{ "https://lore.kernel.org/linux-mm/a%20b@c/", NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char *got = notice_lore_msgid(t[i].url, strlen(t[i].url));

		is_str(got, t[i].want, t[i].url);
		free(got);
	}
}

/* hostile bodies: no crash, bounded lists */
static void test_hostile(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct notice n;
	int i;

	strbuf_addstr(&sb, "------------------------------------------\n\n");
	for (i = 0; i < 1000; i++)
		strbuf_addf(&sb, "Link: https://lore.kernel.org/x%d@y\n"
			    "Signed-off-by: X%d <x@y>\n", i, i);
	is_int(notice_parse("+ a.patch added to mm-new branch", sb.buf, &n), 1,
	       "1000 links: a notice");
	is_int(n.nr_links, NOTICE_MAX_LINKS, "links capped");
	is_int(n.nr_signoffs, NOTICE_MAX_SIGNOFFS, "sign-offs capped");
	notice_release(&n);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "The patch titled\n");	/* and nothing more */
	is_int(notice_parse("+ a.patch added to mm-new branch", sb.buf, &n), 1,
	       "truncated after 'titled': a notice");
	is_str(n.title, "a.patch", "truncated: file name as title");
	notice_release(&n);
	strbuf_release(&sb);
}

int main(void)
{
	static const struct shared_case shared[] = {
		{ "real mails: the mm-new notice", test_fixture },
	};

	test_own_fixture();
	run_shared_cases(shared, ARRAY_SIZE(shared));
	test_removed();
	test_merged();
	test_subjects();
	test_msgid();
	test_hostile();
	return done_testing();
}
