// SPDX-License-Identifier: GPL-2.0
/*
 * base.c - the base a series job is built on (base.h).
 *
 * Workload: once per series job, in the daemon's loop: a few ref lookups
 * and, when the base-commit is not used, up to a few in-memory applies of
 * the series (libgit2, no work tree), tens of milliseconds each for a
 * series of a few patches.
 */
#include <git2.h>

#include "base.h"
#include "config.h"
#include "db.h"
#include "ingest.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

void base_choice_release(struct base_choice *c)
{
	free(c->why);
	memset(c, 0, sizeof(*c));
}

/* the commit @name names: 1 found, 0 not in the tree */
static int find_ref(git_repository *repo, const char *name, git_oid *oid)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	git_object *obj, *commit;
	char *glob;
	int found = 0;

	if (!git_revparse_single(&obj, repo, name)) {
		if (!git_object_peel(&commit, obj, GIT_OBJECT_COMMIT)) {
			git_oid_cpy(oid, git_object_id(commit));
			git_object_free(commit);
			found = 1;
		}
		git_object_free(obj);
		return found;
	}
	/* "mm-unstable": that branch of any remote, the first by name */
	if (strchr(name, '/') || strpbrk(name, "*?[\\"))
		return 0;
	glob = xstrfmt("refs/remotes/*/%s", name);
	if (!git_reference_iterator_glob_new(&it, repo, glob)) {
		while (!found && !git_reference_next(&ref, it)) {
			if (!git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT)) {
				git_oid_cpy(oid, git_object_id(obj));
				git_object_free(obj);
				found = 1;
			}
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
	}
	free(glob);
	return found;
}

/* is the (abbreviated) commit id @hex in the tree? Its full id in @oid */
static int have_commit(git_repository *repo, const char *hex, git_oid *oid)
{
	size_t len = strlen(hex);
	git_object *obj;

	if (len < 7 || len > GIT_OID_HEXSZ ||
	    git_oid_fromstrn(oid, hex, len) < 0 ||
	    git_object_lookup_prefix(&obj, repo, oid, len,
				     GIT_OBJECT_COMMIT) < 0)
		return 0;
	git_oid_cpy(oid, git_object_id(obj));
	git_object_free(obj);
	return 1;
}

/* the candidates after the base-commit: MMCI_BASE_BRANCHES, MMCI_BASE */
static void candidates(struct strbuf *list)
{
	const char *b = getenv("MMCI_BASE_BRANCHES");
	const char *last = getenv("MMCI_BASE");

	strbuf_addstr(list, b ? b : BASE_DEFAULT_BRANCHES);
	strbuf_addf(list, ",%s", last && *last ? last : "debian-6.12");
}

/*
 * The first candidate the series applies to, into @out; each one tried
 * goes into @tried ("mm-new: patch 2/3 does not apply").
 */
static int try_branches(struct db *db, git_repository *repo,
			const struct loaded_series *ls, struct base_choice *out,
			struct strbuf *tried, struct strbuf *names)
{
	struct strbuf list = STRBUF_INIT;
	git_oid *heads = xcalloc(ls->s.nr, sizeof(*heads));
	char *w, *save = NULL;
	int found = 0;

	candidates(&list);
	for (w = strtok_r(list.buf, ", \t", &save); w && !found;
	     w = strtok_r(NULL, ", \t", &save)) {
		git_oid oid;

		strbuf_addf(names, "%s%s", names->len ? ", " : "", w);
		if (!find_ref(repo, w, &oid)) {
			strbuf_addf(tried, "%s%s: not in the tree",
				    tried->len ? "; " : "", w);
			continue;
		}
		if (apply_series(db, repo, ls, w, &oid, (int)ls->s.nr,
				 heads) < 0) {
			strbuf_addf(tried, "%s%s (%.12s): %s",
				    tried->len ? "; " : "", w,
				    git_oid_tostr_s(&oid), last_error());
			continue;
		}
		git_oid_tostr(out->commit, sizeof(out->commit), &oid);
		strbuf_addf(tried, "%s%s (%.12s) applies", tried->len ? "; " : "",
			    w, out->commit);
		found = 1;
	}
	free(heads);
	strbuf_release(&list);
	return found;
}

int base_choose(struct db *db, const struct mmci_config *cfg,
		long long series_id, double queued_at, double now,
		struct base_choice *out)
{
	struct loaded_series ls;
	struct strbuf why = STRBUF_INIT, tried = STRBUF_INIT;
	struct strbuf names = STRBUF_INIT;
	git_repository *repo = NULL;
	long long wait_s = config_number("MMCI_BASE_WAIT_S");
	const char *bc;
	git_oid oid;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (ingest_load_stored(db, series_id, &ls) < 0)
		return -1;
	if (tree_open(cfg->tree_dir, &repo) < 0)
		goto out;
	bc = ls.s.base_commit;
	if (bc && have_commit(repo, bc, &oid)) {
		/* the author's own base: used as given */
		git_oid_tostr(out->commit, sizeof(out->commit), &oid);
		out->outcome = BASE_CHOSEN;
		out->why = xstrfmt("base: the series' base-commit %.12s",
				   out->commit);
		ret = 0;
		goto out;
	}
	if (bc && now < queued_at + wait_s) {
		out->outcome = BASE_WAIT;
		out->wait_until = queued_at + wait_s;
		out->why = xstrfmt("base: waiting for base-commit %.12s, not in "
				   "the tree yet: the tree's fetches may bring "
				   "it, for %.0f h more", bc,
				   (out->wait_until - now) / 3600.0);
		ret = 0;
		goto out;
	}
	if (bc)
		strbuf_addf(&why, "base-commit %.12s is not in the tree after "
			    "%lld %s of fetches; ", bc,
			    wait_s >= 3600 ? wait_s / 3600 : wait_s,
			    wait_s >= 3600 ? "h" : "s");
	else
		strbuf_addstr(&why, "no base-commit; ");
	if (try_branches(db, repo, &ls, out, &tried, &names)) {
		out->outcome = BASE_CHOSEN;
		out->why = xstrfmt("base: %sthe first of %s the series applies "
				   "to (%s)", why.buf, names.buf, tried.buf);
	} else {
		out->outcome = BASE_NONE;
		out->why = xstrfmt("base: %sthe series applies to none of %s "
				   "(%s)", why.buf, names.buf, tried.buf);
	}
	ret = 0;
out:
	git_repository_free(repo);
	loaded_series_release(&ls);
	strbuf_release(&why);
	strbuf_release(&tried);
	strbuf_release(&names);
	return ret;
}
