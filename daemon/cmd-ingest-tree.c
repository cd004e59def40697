// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-ingest-tree.c - `mmci ingest tree`: fetch the configured remote
 * branches into the kernel tree, record their new heads and queue one
 * nightly job per new head (the work is in remote.c).
 *
 * Which remotes, first match wins:
 *  1. --remote NAME=URL[#B,...] or --remote NAME (a configured one), this
 *     run only; --save also writes NAME=URL ones to the remotes table;
 *  2. MMCI_REMOTES="NAME=URL[#B,...] ..." (white space or ';' between
 *     entries), replacing the table for this run, like the other MMCI_*
 *     variables replace the embedded defaults;
 *  3. the remotes table, which migration 0004 seeds with
 *     mm = akpm's mm.git, branch mm-new.
 * A remote without branches fetches mm-new; --branch replaces the
 * branches of every selected remote for this run.
 *
 * The tree is cfg->tree_dir (MMCI_TREE, default <data>/linux). When
 * nothing is there yet, an empty repository is created, so the ingest
 * needs no `mmci init` (which, note, replaces a repository that lacks its
 * debian-6.12 tag: run init first on a new machine).
 */
#include <getopt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "remote.h"
#include "util.h"

static const char ingest_tree_usage[] =
	"usage: mmci ingest tree [--remote NAME=URL[#B,...] | --remote NAME]...\n"
	"                        [--branch B]... [--save] [--max-commits N]\n"
	"   or: mmci ingest tree --list\n"
	"   or: mmci ingest tree --forget NAME\n"
	"\n"
	"Fetch remote branches with libgit2 into the kernel tree (MMCI_TREE,\n"
	"default ./var/linux; created empty when missing) as\n"
	"refs/remotes/<name>/<branch>: no tags, no local branch is touched.\n"
	"Each branch that moved gets a row in `heads` (initial, fast-forward,\n"
	"rewrite with its merge base, or unknown when the previous head is no\n"
	"longer in the tree), its new commits in `head_commits` (newest\n"
	"first, at most --max-commits, default 10000) and one queued\n"
	"'nightly' job. A branch that did not move prints \"up to date\". A\n"
	"remote that cannot be reached or a missing branch is an error row in\n"
	"`fetch_errors`; the other branches are still fetched (exit 1).\n"
	"URLs are anything libgit2 fetches: https://, git://, file://, a path.\n"
	"\n"
	"Remotes, first match wins: --remote options (this run; --save stores\n"
	"NAME=URL ones in the remotes table), MMCI_REMOTES (\"NAME=URL[#B,...]\"\n"
	"entries separated by spaces or ';'), the remotes table (seeded with\n"
	"mm = https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git,\n"
	"branch mm-new). --branch replaces the branches of every selected\n"
	"remote; a remote with none fetches mm-new.\n"
	"\n"
	"  --list           show the remotes, their branches and last heads\n"
	"  --forget NAME    delete a remote from the remotes table\n";

static void remote_copy(struct remote *dst, const struct remote *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->name = xstrdup(src->name);
	dst->url = src->url ? xstrdup(src->url) : NULL;
	dst->source = src->source;
	for (i = 0; i < src->nr_branches; i++)
		remote_add_branch(dst, src->branches[i]);
}

/* the remotes of this run: see the file's header comment */
static int select_remotes(struct db *db, char **specs, size_t nr_specs,
			  char **branches, size_t nr_branches, int save,
			  struct remote_list *out)
{
	struct remote_list conf = { 0 };
	const char *env = getenv("MMCI_REMOTES");
	size_t i, j;
	int ret = -1;

	if (env && *env ? remotes_from_env(&conf, env) < 0 :
			  remotes_from_db(db, &conf) < 0)
		goto out;
	if (!nr_specs) {
		*out = conf;
		memset(&conf, 0, sizeof(conf));
	}
	for (i = 0; i < nr_specs; i++) {
		struct remote *r, *c;

		if (remote_parse(out, specs[i], 1, "command line") < 0)
			goto out;
		r = &out->items[out->nr - 1];
		if (r->url)
			continue;
		c = remote_list_find(&conf, r->name);
		if (!c) {
			error("no remote '%s' is configured (%s); give its "
			      "URL: --remote %s=URL", r->name,
			      env && *env ? "MMCI_REMOTES" : "remotes table",
			      r->name);
			goto out;
		}
		remote_release(r);
		remote_copy(r, c);
	}
	for (i = 0; i < out->nr; i++) {
		struct remote *r = &out->items[i];

		if (nr_branches) {
			for (j = 0; j < r->nr_branches; j++)
				free(r->branches[j]);
			r->nr_branches = 0;
			for (j = 0; j < nr_branches; j++)
				remote_add_branch(r, branches[j]);
		}
		if (!r->nr_branches)
			remote_add_branch(r, REMOTE_DEFAULT_BRANCH);
	}
	/* --branch values are checked here, after they replaced the lists */
	for (i = 0; i < nr_branches; i++) {
		int valid = 0;

		if (git_branch_name_is_valid(&valid, branches[i]) < 0 ||
		    !valid) {
			error("'%s' is not a valid branch name", branches[i]);
			goto out;
		}
	}
	for (i = 0; save && i < nr_specs; i++) {
		const struct remote *r = &out->items[i];

		if (!strchr(specs[i], '='))
			continue;
		if (remote_save(db, r) < 0)
			goto out;
		log_info("saved remote '%s' (%s) in the database", r->name,
			 r->url);
	}
	ret = 0;
out:
	remote_list_release(&conf);
	return ret;
}

int cmd_ingest_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "remote", required_argument, NULL, 'r' },
		{ "branch", required_argument, NULL, 'b' },
		{ "save", no_argument, NULL, 's' },
		{ "forget", required_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'l' },
		{ "max-commits", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char **specs = xcalloc(argc, sizeof(char *));
	char **branches = xcalloc(argc, sizeof(char *));
	size_t nr_specs = 0, nr_branches = 0, i;
	struct remote_list remotes = { 0 };
	struct ingest_stats st = { 0 };
	struct mmci_config cfg;
	struct db db;
	git_repository *repo = NULL;
	const char *forget = NULL;
	long long max = REMOTE_MAX_COMMITS;
	int c, list = 0, save = 0, ret = 129;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': specs[nr_specs++] = optarg; break;
		case 'b': branches[nr_branches++] = optarg; break;
		case 's': save = 1; break;
		case 'f': forget = optarg; break;
		case 'l': list = 1; break;
		case 'm': max = parse_count("--max-commits", optarg); break;
		case 'h':
			fputs(ingest_tree_usage, stdout);
			ret = 0;
			goto out_args;
		default:
			fputs(ingest_tree_usage, stderr);
			goto out_args;
		}
	}
	if (optind != argc || (save && !nr_specs) ||
	    (forget && (nr_specs || nr_branches || list))) {
		fputs(ingest_tree_usage, stderr);
		goto out_args;
	}
	setup_command(&cfg, &db);
	ret = 1;
	if (forget) {
		int rc = remote_forget(&db, forget);

		if (rc == 1) {
			printf("forgot remote '%s'\n", forget);
			ret = 0;
		} else if (!rc) {
			error("no remote '%s' in the remotes table", forget);
		}
		goto out;
	}
	if (select_remotes(&db, specs, nr_specs, branches, nr_branches, save,
			   &remotes) < 0)
		goto out;
	if (list) {
		remote_list_print(&db, &remotes);
		ret = 0;
		goto out;
	}
	if (!remotes.nr) {
		error("no remotes to fetch: the remotes table is empty and "
		      "MMCI_REMOTES is not set (try --remote NAME=URL --save)");
		goto out;
	}
	if (tree_open_or_create(cfg.tree_dir, &repo) < 0)
		goto out;
	for (i = 0; i < remotes.nr; i++)
		remote_ingest(&db, repo, &remotes.items[i], max, &st);
	if (!st.new_heads && !st.errors)
		printf("up to date\n");
	else
		printf("%d new head%s, %d up to date, %d error%s\n",
		       st.new_heads, st.new_heads == 1 ? "" : "s",
		       st.up_to_date, st.errors, st.errors == 1 ? "" : "s");
	ret = st.errors ? 1 : 0;
out:
	git_repository_free(repo);
	remote_list_release(&remotes);
	db_close(&db);
	config_release(&cfg);
out_args:
	free(specs);
	free(branches);
	return ret;
}
