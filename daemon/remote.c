// SPDX-License-Identifier: GPL-2.0
/*
 * remote.c - fetch remote branches into the kernel tree and record what
 * moved (heads, head_commits, fetch_errors, jobs: schema/0004-heads.sql).
 *
 * Workload: a handful of remotes with one to a few branches each, fetched
 * nightly. A branch usually moves by tens to hundreds of commits a day
 * (mm-new is rebased often, so rewrites are normal, not an accident); the
 * first fetch of a kernel tree brings its whole history (about 1.3 million
 * commits, several GB over https), of which only the newest max_commits
 * are recorded.
 *
 * One connection per remote: connect, list the remote's refs (a branch
 * that is not there fails alone, with a clear message), then fetch the
 * branches that are there with explicit refspecs
 * "+refs/heads/<b>:refs/remotes/<name>/<b>" (forced: mm-new is rewritten).
 */
#include <dirent.h>
#include <time.h>

#include "db.h"
#include "fsutil.h"
#include "job.h"
#include "remote.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

void remote_add_branch(struct remote *r, const char *branch)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (!strcmp(r->branches[i], branch))
			return;
	ALLOC_GROW(r->branches, r->nr_branches + 1, r->alloc_branches);
	r->branches[r->nr_branches++] = xstrdup(branch);
}

void remote_release(struct remote *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		free(r->branches[i]);
	free(r->branches);
	free(r->name);
	free(r->url);
	memset(r, 0, sizeof(*r));
}

void remote_list_release(struct remote_list *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		remote_release(&list->items[i]);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

struct remote *remote_list_find(struct remote_list *list, const char *name)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->items[i].name, name))
			return &list->items[i];
	return NULL;
}

/* add the words of a comma list as branches */
static void add_branch_list(struct remote *r, const char *csv)
{
	while (*csv) {
		size_t n = strcspn(csv, ",");

		if (n) {
			char *b = xstrndup(csv, n);

			remote_add_branch(r, b);
			free(b);
		}
		csv += n;
		if (*csv == ',')
			csv++;
	}
}

static int remote_check(const struct remote *r)
{
	int valid = 0;
	size_t i;

	if (git_remote_name_is_valid(&valid, r->name) < 0 || !valid)
		return error("'%s' is not a valid remote name", r->name);
	if (r->url && !*r->url)
		return error("remote '%s' has an empty URL", r->name);
	for (i = 0; i < r->nr_branches; i++) {
		valid = 0;
		if (git_branch_name_is_valid(&valid, r->branches[i]) < 0 ||
		    !valid)
			return error("'%s' is not a valid branch name (remote "
				     "'%s')", r->branches[i], r->name);
	}
	return 0;
}

static int list_add(struct remote_list *list, struct remote *r)
{
	if (remote_check(r) < 0)
		return -1;
	if (remote_list_find(list, r->name))
		return error("remote '%s' is given twice", r->name);
	ALLOC_GROW(list->items, list->nr + 1, list->alloc);
	list->items[list->nr++] = *r;
	memset(r, 0, sizeof(*r));
	return 0;
}

int remote_parse(struct remote_list *list, const char *spec, int allow_bare,
		 const char *source)
{
	const char *eq = strchr(spec, '=');
	struct remote r = { 0 };
	char *hash;

	if (!eq && !allow_bare)
		return error("remote '%s' is not NAME=URL[#BRANCH,...]", spec);
	r.name = eq ? xstrndup(spec, eq - spec) : xstrdup(spec);
	r.source = source;
	if (eq) {
		r.url = xstrdup(eq + 1);
		hash = strrchr(r.url, '#');
		if (hash) {
			*hash = '\0';
			add_branch_list(&r, hash + 1);
		}
	}
	if (list_add(list, &r) < 0) {
		remote_release(&r);
		return -1;
	}
	return 0;
}

int remotes_from_env(struct remote_list *list, const char *env)
{
	static const char sep[] = " \t\n;";

	env += strspn(env, sep);
	while (*env) {
		size_t n = strcspn(env, sep);
		char *spec = xstrndup(env, n);
		int ret = remote_parse(list, spec, 0, "MMCI_REMOTES");

		free(spec);
		if (ret < 0)
			return error("cannot use MMCI_REMOTES");
		env += n;
		env += strspn(env, sep);
	}
	return 0;
}

int remotes_from_db(struct db *db, struct remote_list *list)
{
	sqlite3_stmt *st = db_query(db, "SELECT name, url, branches FROM "
					"remotes ORDER BY name", "");
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct remote r = { 0 };

		r.name = xstrdup(db_col_text(st, 0));
		r.url = xstrdup(db_col_text(st, 1));
		add_branch_list(&r, db_col_text(st, 2));
		r.source = "database";
		if (list_add(list, &r) < 0) {
			remote_release(&r);
			sqlite3_finalize(st);
			return error("bad row in the remotes table");
		}
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return error("cannot read the remotes table");
	return 0;
}

static char *branch_csv(const struct remote *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", r->branches[i]);
	return strbuf_detach(&sb, NULL);
}

int remote_save(struct db *db, const struct remote *r)
{
	char *csv = branch_csv(r);
	int ret;

	if (!r->url)
		BUG("saving remote '%s' without a URL", r->name);
	ret = db_run(db, "INSERT INTO remotes (name, url, branches, added_at) "
			 "VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
			 "url = excluded.url, branches = excluded.branches",
		     "tttd", r->name, r->url, csv, (double)time(NULL));
	free(csv);
	return ret;
}

int remote_forget(struct db *db, const char *name)
{
	if (db_run(db, "DELETE FROM remotes WHERE name = ?", "t", name) < 0)
		return -1;
	return sqlite3_changes(db->handle) > 0;
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

int tree_open_or_create(const char *path, git_repository **repo)
{
	if (!git_repository_open(repo, path))
		return 0;
	if (dir_exists(path) && !dir_is_empty(path))
		return error("the kernel tree '%s' is not a git repository: %s",
			     path, git_errmsg());
	if (mkdir_p(path, 0755) < 0)
		return -1;
	if (git_repository_init(repo, path, 0) < 0)
		return error("cannot create the kernel tree '%s': %s", path,
			     git_errmsg());
	progress("created an empty kernel tree '%s'", path);
	return 0;
}

/* a branch that could not be fetched or recorded: say so, keep a row */
static void PRINTF(5, 6) branch_failed(struct db *db, const struct remote *r,
				       const char *branch,
				       struct ingest_stats *st,
				       const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	error("%s", msg.buf);
	if (db_run(db, "INSERT INTO fetch_errors (remote, url, branch, "
		   "error, at) VALUES (?, ?, ?, ?, ?)", "ttttd", r->name,
		   r->url, branch, msg.buf, (double)time(NULL)) < 0)
		error("%s/%s: the error above is not recorded in "
		      "fetch_errors", r->name, branch);
	st->errors++;
	strbuf_release(&msg);
}

/*
 * Walk the commits reachable from `from` and not from `hide` (NULL:
 * everything reachable), newest first. With a db, record each in
 * head_commits (position 1 is `from`); without, only count. Stops after
 * max commits and sets *capped when there were more.
 */
static int walk_range(struct db *db, long long head_id, git_repository *repo,
		      const git_oid *from, const git_oid *hide, long long max,
		      long long *nr, int *capped)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	int rc, ret = -1;

	*nr = 0;
	*capped = 0;
	/*
	 * With a hidden commit libgit2 limits the walk (it reads the range
	 * up front to find where the two histories meet), so topological
	 * order costs nothing more and puts children before parents even
	 * when they share a timestamp. Without one (a first fetch), any
	 * sorting would read the whole history (1.3 million commits for a
	 * kernel) before the first result: the unsorted walk streams from
	 * the head down and stops at the cap.
	 */
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, hide ? GIT_SORT_TOPOLOGICAL |
						  GIT_SORT_TIME :
					     GIT_SORT_NONE) < 0 ||
	    git_revwalk_push(walk, from) < 0 ||
	    (hide && git_revwalk_hide(walk, hide) < 0)) {
		error("cannot walk the commits of %s: %s",
		      git_oid_tostr_s(from), git_errmsg());
		goto out;
	}
	while (!(rc = git_revwalk_next(&oid, walk))) {
		git_commit *c;
		const git_signature *a;
		char *author;
		int r;

		if (*nr == max) {
			*capped = 1;
			break;
		}
		(*nr)++;
		if (!db)
			continue;
		if (git_commit_lookup(&c, repo, &oid) < 0) {
			error("cannot read commit %s: %s",
			      git_oid_tostr_s(&oid), git_errmsg());
			goto out;
		}
		a = git_commit_author(c);
		author = xstrfmt("%s <%s>", a->name, a->email);
		r = db_run(db, "INSERT INTO head_commits (head_id, position, "
			       "commit_id, subject, author, authored_at) "
			       "VALUES (?, ?, ?, ?, ?, ?)",
			   "iitttd", head_id, *nr, git_oid_tostr_s(&oid),
			   git_commit_summary(c) ? git_commit_summary(c) : "",
			   author, (double)a->when.time);
		free(author);
		git_commit_free(c);
		if (r < 0)
			goto out;
	}
	if (rc < 0 && rc != GIT_ITEROVER) {
		error("cannot walk the commits of %s: %s",
		      git_oid_tostr_s(from), git_errmsg());
		goto out;
	}
	ret = 0;
out:
	git_revwalk_free(walk);
	return ret;
}

/* the last recorded head of a branch, or NULL; caller frees */
static char *last_head(struct db *db, const char *remote, const char *branch)
{
	sqlite3_stmt *st = db_query(db, "SELECT commit_id FROM heads WHERE "
					"remote = ? AND branch = ? "
					"ORDER BY id DESC LIMIT 1",
				    "tt", remote, branch);
	char *out = NULL;

	if (st && db_step(db, st) == DB_ROW)
		out = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

static int have_commit(git_repository *repo, const git_oid *oid)
{
	git_commit *c;

	if (git_commit_lookup(&c, repo, oid) < 0)
		return 0;
	git_commit_free(c);
	return 1;
}

struct move {
	const char *kind;    /* initial, fast-forward, rewrite, unknown */
	git_oid prev;        /* valid unless kind is initial */
	git_oid base;        /* rewrite: valid when has_base */
	int has_base;
	long long dropped;   /* rewrite: old commits gone; -1 otherwise */
	int dropped_capped;
};

/*
 * MMCI_NIGHTLY_BRANCHES: the branches whose new heads get a nightly job,
 * words split by commas or blanks; unset or empty: every fetched branch.
 * A branch fetched only as a base (mm-unstable under mm-new) is recorded
 * in `heads` all the same.
 */
static int wants_nightly(const char *branch)
{
	const char *list = getenv("MMCI_NIGHTLY_BRANCHES"), *p;
	size_t len = strlen(branch), n;

	if (!list || !*list)
		return 1;
	for (p = list; *p; p += n) {
		p += strspn(p, ", \t");
		n = strcspn(p, ", \t");
		if (n == len && !strncmp(p, branch, len))
			return 1;
	}
	return 0;
}

/* how the branch went from prev (hex, NULL for none) to cur */
static int classify(git_repository *repo, const char *prev,
		    const git_oid *cur, long long max, struct move *m)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->dropped = -1;
	if (!prev) {
		m->kind = "initial";
		return 0;
	}
	if (git_oid_fromstr(&m->prev, prev) < 0)
		return error("bad commit id '%s' in the heads table", prev);
	if (!have_commit(repo, &m->prev)) {
		m->kind = "unknown";
		return 0;
	}
	rc = git_graph_descendant_of(repo, cur, &m->prev);
	if (rc < 0)
		return error("cannot compare %s with %s: %s",
			     git_oid_tostr_s(cur), prev, git_errmsg());
	if (rc == 1) {
		m->kind = "fast-forward";
		return 0;
	}
	m->kind = "rewrite";
	rc = git_merge_base(&m->base, repo, cur, &m->prev);
	if (rc < 0 && rc != GIT_ENOTFOUND)
		return error("cannot find the merge base of %s and %s: %s",
			     git_oid_tostr_s(cur), prev, git_errmsg());
	m->has_base = !rc;
	return walk_range(NULL, 0, repo, &m->prev, cur, max, &m->dropped,
			  &m->dropped_capped);
}

static void print_move(const struct remote *r, const char *branch,
		       long long head_id, long long job_id,
		       const git_oid *cur, const struct move *m,
		       long long nr, int capped, long long max)
{
	char now[GIT_OID_HEXSZ + 1], prev[GIT_OID_HEXSZ + 1];
	char base[GIT_OID_HEXSZ + 1];

	git_oid_tostr(now, 13, cur);
	git_oid_tostr(prev, 13, &m->prev);
	printf("%s/%s: ", r->name, branch);
	if (!strcmp(m->kind, "initial")) {
		printf("new head %s (first fetch), %lld commit%s", now, nr,
		       nr == 1 ? "" : "s");
	} else if (!strcmp(m->kind, "fast-forward")) {
		printf("%s..%s fast-forward, %lld new commit%s", prev, now,
		       nr, nr == 1 ? "" : "s");
	} else if (!strcmp(m->kind, "rewrite")) {
		if (m->has_base)
			git_oid_tostr(base, 13, &m->base);
		printf("%s...%s forced update (rewrite, merge base %s), "
		       "%lld new commit%s, %lld%s dropped", prev, now,
		       m->has_base ? base : "none", nr, nr == 1 ? "" : "s",
		       m->dropped, m->dropped_capped ? "+" : "");
	} else {
		printf("%s -> %s, the previous head is not in the tree: "
		       "%lld commit%s from the new head", prev, now, nr,
		       nr == 1 ? "" : "s");
	}
	if (capped)
		printf(" (capped: only the newest %lld recorded)", max);
	if (job_id)
		printf(", head #%lld, job #%lld queued\n", head_id, job_id);
	else
		printf(", head #%lld, no nightly (MMCI_NIGHTLY_BRANCHES)\n",
		       head_id);
}

/*
 * Record the branch's new position, if it moved, in one transaction:
 * the heads row, its commits and the queued job appear together or not
 * at all.
 */
static int record_branch(struct db *db, git_repository *repo,
			 const struct remote *r, const char *branch,
			 long long max, struct ingest_stats *st)
{
	char *ref = xstrfmt("refs/remotes/%s/%s", r->name, branch);
	char *prev = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	const git_oid *hide;
	git_oid cur;
	struct move m;
	long long head_id, job_id, nr = 0;
	int capped = 0, ret = -1;
	double now = (double)time(NULL);

	if (git_reference_name_to_id(&cur, repo, ref) < 0) {
		branch_failed(db, r, branch, st, "fetched branch '%s' of remote "
			      "'%s' but '%s' is missing: %s", branch, r->name,
			      ref, git_errmsg());
		goto out_free;
	}
	git_oid_tostr(hex, sizeof(hex), &cur);
	if (db_begin(db) < 0)
		goto fail;
	prev = last_head(db, r->name, branch);
	if (prev && !strcmp(prev, hex)) {
		db_rollback(db);
		printf("%s/%s: up to date at %.12s\n", r->name, branch, hex);
		st->up_to_date++;
		ret = 0;
		goto out_free;
	}
	if (classify(repo, prev, &cur, max, &m) < 0)
		goto rollback;
	if (db_run(db, "INSERT INTO heads (remote, url, branch, ref, "
		       "commit_id, prev_commit, kind, merge_base, nr_commits, "
		       "capped, nr_dropped, fetched_at) "
		       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)",
		   "ttttttttId", r->name, r->url, branch, ref, hex, prev,
		   m.kind, m.has_base ? git_oid_tostr_s(&m.base) : NULL,
		   m.dropped > 0 ? m.dropped : 0LL, now) < 0)
		goto rollback;
	head_id = db_last_id(db);
	/* a rewrite hides the old head too: only the commits it lacked */
	hide = !strcmp(m.kind, "fast-forward") || !strcmp(m.kind, "rewrite") ?
		       &m.prev : NULL;
	if (walk_range(db, head_id, repo, &cur, hide, max, &nr, &capped) < 0)
		goto rollback;
	if (db_run(db, "UPDATE heads SET nr_commits = ?, capped = ? "
		       "WHERE id = ?",
		   "iii", nr, (long long)capped, head_id) < 0 ||
	    (job_id = !wants_nightly(branch) ? 0 :
	     job_queue(db, "nightly", 0, head_id, NULL, NULL)) < 0)
		goto rollback;
	if (db_commit(db) < 0)
		goto rollback;
	print_move(r, branch, head_id, job_id, &cur, &m, nr, capped, max);
	st->new_heads++;
	ret = 0;
	goto out_free;
rollback:
	db_rollback(db);
fail:
	branch_failed(db, r, branch, st, "cannot record the new head of "
		      "branch '%s' of remote '%s': %s", branch, r->name,
		      last_error());
out_free:
	free(prev);
	free(ref);
	return ret;
}


static int sideband_progress(const char *str, int len, void *data)
{
	log_debug("remote: %.*s", len, str);
	return 0;
}

int remote_ingest(struct db *db, git_repository *repo, const struct remote *r,
		  long long max_commits, struct ingest_stats *st)
{
	git_remote_callbacks cbs = GIT_REMOTE_CALLBACKS_INIT;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	/* a first kernel fetch takes many minutes */
	struct tree_fetch_progress fp = { r->name, now_s() };
	const git_remote_head **refs;
	git_remote *rem = NULL;
	git_strarray specs = { NULL, 0 };
	char *found = xcalloc(r->nr_branches ? r->nr_branches : 1, 1);
	char *reflog = xstrfmt("mmci ingest tree: fetch %s", r->name);
	size_t nr_refs, i, j;
	int errors = st->errors;

	if (!r->url)
		BUG("remote '%s' without a URL", r->name);
	cbs.transfer_progress = tree_fetch_progress;
	cbs.sideband_progress = sideband_progress;
	cbs.payload = &fp;
	log_info("fetching %s (%s)", r->name, r->url);
	if (git_remote_create_anonymous(&rem, repo, r->url) < 0 ||
	    git_remote_connect(rem, GIT_DIRECTION_FETCH, &cbs, NULL, NULL) < 0 ||
	    git_remote_ls(&refs, &nr_refs, rem) < 0) {
		char *msg = xstrdup(git_errmsg());

		for (i = 0; i < r->nr_branches; i++)
			branch_failed(db, r, r->branches[i], st,
				      "cannot fetch branch '%s' of remote '%s' "
				      "(%s): %s", r->branches[i], r->name,
				      r->url, msg);
		free(msg);
		goto out;
	}
	specs.strings = xcalloc(r->nr_branches ? r->nr_branches : 1,
				sizeof(char *));
	for (i = 0; i < r->nr_branches; i++) {
		char *name = xstrfmt("refs/heads/%s", r->branches[i]);

		for (j = 0; j < nr_refs && !found[i]; j++)
			found[i] = !strcmp(refs[j]->name, name);
		free(name);
		if (!found[i]) {
			branch_failed(db, r, r->branches[i], st,
				      "remote '%s' (%s) has no branch '%s'",
				      r->name, r->url, r->branches[i]);
			continue;
		}
		specs.strings[specs.count++] =
			xstrfmt("+refs/heads/%s:refs/remotes/%s/%s",
				r->branches[i], r->name, r->branches[i]);
	}
	if (!specs.count)
		goto out;
	/* tags, FETCH_HEAD and pruning would touch refs builds use */
	fo.callbacks = cbs;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_fetch(rem, &specs, &fo, reflog) < 0) {
		char *msg = xstrdup(git_errmsg());

		for (i = 0; i < r->nr_branches; i++)
			if (found[i])
				branch_failed(db, r, r->branches[i], st,
					      "cannot fetch branch '%s' of "
					      "remote '%s' (%s): %s",
					      r->branches[i], r->name, r->url,
					      msg);
		free(msg);
		goto out;
	}
	for (i = 0; i < r->nr_branches; i++)
		if (found[i])
			record_branch(db, repo, r, r->branches[i], max_commits,
				      st);
out:
	for (i = 0; i < specs.count; i++)
		free(specs.strings[i]);
	free(specs.strings);
	git_remote_free(rem);
	free(reflog);
	free(found);
	return st->errors > errors ? -1 : 0;
}

void remote_list_print(struct db *db, const struct remote_list *list)
{
	size_t i, j;

	for (i = 0; i < list->nr; i++) {
		const struct remote *r = &list->items[i];

		printf("%s\t%s\t(%s)\n", r->name, r->url ? r->url : "?",
		       r->source);
		for (j = 0; j < r->nr_branches; j++) {
			sqlite3_stmt *st = db_query(
				db, "SELECT id, commit_id, kind, nr_commits, "
				    "strftime('%Y-%m-%d %H:%M:%S', fetched_at, "
				    "'unixepoch') FROM heads WHERE remote = ? "
				    "AND branch = ? ORDER BY id DESC LIMIT 1",
				"tt", r->name, r->branches[j]);

			if (st && db_step(db, st) == DB_ROW)
				printf("  %-24s head #%lld %.12s %s, %lld "
				       "commits, fetched %s UTC\n",
				       r->branches[j],
				       (long long)sqlite3_column_int64(st, 0),
				       db_col_text(st, 1), db_col_text(st, 2),
				       (long long)sqlite3_column_int64(st, 3),
				       db_col_text(st, 4));
			else
				printf("  %-24s never fetched\n",
				       r->branches[j]);
			sqlite3_finalize(st);
		}
	}
}
