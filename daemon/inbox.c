// SPDX-License-Identifier: GPL-2.0
/*
 * inbox.c - a public-inbox v2 inbox followed through its git history.
 *
 * Workload: lore's linux-mm gets a few hundred messages a day; a poll
 * every MMCI_POLL_S (300 s) fetches the few new commits of the newest
 * epoch and reads them, a transaction each. The first fetch of an epoch
 * is the whole epoch (libgit2 1.5 has no shallow fetch): about 1 GB on
 * lore, once (docs/OPERATIONS.md). Reading from the start (--start=all)
 * costs a transaction per message of the history.
 *
 * The messages are untrusted mail: each is parsed by mbox.c, which never
 * fails on a broken one; what is odd about one (no Message-ID, a series
 * numbered 3/2) is a row of inbox_events, never a stop. The history is
 * untrusted too: a forced update (a purge) is followed, not believed
 * blindly (the mark's message must be found again), and a server that
 * answers garbage or a truncated pack leaves the mark where it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>
#include <zlib.h>

#include "config.h"
#include "db.h"
#include "discover.h"
#include "fetch.h"
#include "fsutil.h"
#include "inbox.h"
#include "ingest.h"
#include "mbox.h"
#include "series.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

struct mirror {
	int epoch;
	git_repository *repo;
};

struct inbox {
	struct db *db;
	const struct mmci_config *cfg;
	const struct inbox_opts *o;
	struct inbox_stats *st;
	char *name;		/* linux-mm */
	char *url;		/* without a trailing '/' */
	char *dir;		/* <data>/fetch/inbox/NAME */
	int lock_fd;
	struct mirror *mirrors;
	size_t nr_mirrors, alloc_mirrors;
	/* the mark, as read and as moved by this pass */
	int has_mark;
	int epoch;
	char commit[GIT_OID_HEXSZ + 1];	/* "" none of this epoch yet */
	double last_progress;	/* s, monotonic */
};

/* ---- names, the lock, the mark ---------------------------------------- */

/* "https://host/a/linux-mm/" -> "linux-mm"; NULL if there is none */
static char *name_of_url(const char *url)
{
	const char *p = strstr(url, "://"), *end, *s;

	if (!p)
		return NULL;
	p += 3;
	end = p + strlen(p);
	while (end > p && end[-1] == '/')
		end--;
	for (s = end; s > p && s[-1] != '/'; s--)
		;
	if (s == p || s == end)
		return NULL;	/* only the host */
	return xstrndup(s, end - s);
}

/* an inbox name is a directory name of ours: [A-Za-z0-9._-], not . or .. */
static int valid_name(const char *n)
{
	const char *p;

	if (!*n || !strcmp(n, ".") || !strcmp(n, "..") || strlen(n) > 200)
		return 0;
	for (p = n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._-", *p)))
			return 0;
	return 1;
}

static int lock_inbox(struct inbox *in)
{
	char *path = xstrfmt("%s/lock", in->dir);
	int ret = 0;

	/* read-only: a lock file root made opens for the service user too */
	in->lock_fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (in->lock_fd < 0)
		ret = error_errno("cannot open '%s'", path);
	else if (flock(in->lock_fd, LOCK_EX | LOCK_NB) < 0)
		ret = error("another process is reading inbox '%s' (it holds "
			    "'%s'); try again when it is done", in->name, path);
	free(path);
	return ret;
}

static int load_mark(struct inbox *in)
{
	sqlite3_stmt *q = db_query(in->db, "SELECT epoch, coalesce(commit_id, "
				   "'') FROM inbox_marks WHERE inbox = ?", "t",
				   in->name);
	int rc;

	if (!q)
		return -1;
	rc = db_step(in->db, q);
	if (rc == DB_ROW) {
		in->has_mark = 1;
		in->epoch = sqlite3_column_int(q, 0);
		xsnprintf(in->commit, sizeof(in->commit), "%.40s",
			  db_col_text(q, 1));
	}
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

/*
 * The mark at @epoch, @commit (NULL: its start), in the caller's
 * transaction; set_mark() once it is committed.
 */
static int save_mark(struct inbox *in, int epoch, const char *commit,
		     const char *msgid)
{
	if (db_run(in->db, "INSERT INTO inbox_marks (inbox, url, epoch, "
		   "commit_id, message_id, updated_at) VALUES (?, ?, ?, ?, ?, "
		   "?) ON CONFLICT (inbox) DO UPDATE SET url = excluded.url, "
		   "epoch = excluded.epoch, commit_id = excluded.commit_id, "
		   "message_id = excluded.message_id, updated_at = "
		   "excluded.updated_at", "ttittd", in->name, in->url,
		   (long long)epoch, commit, msgid, (double)time(NULL)) < 0)
		return -1;
	return 0;
}

static void set_mark(struct inbox *in, int epoch, const char *commit)
{
	in->has_mark = 1;
	in->epoch = epoch;
	xsnprintf(in->commit, sizeof(in->commit), "%s", commit ? commit : "");
}

/* a decision about a message or the history, kept (inbox_events) */
static int event(struct inbox *in, int epoch, const char *commit,
		 const struct mail *m, const char *decision)
{
	return db_run(in->db, "INSERT INTO inbox_events (inbox, epoch, "
		      "commit_id, message_id, subject, decision, at) VALUES "
		      "(?, ?, ?, ?, ?, ?, ?)", "tittttd", in->name,
		      (long long)epoch, commit, m ? m->message_id : NULL,
		      m ? m->subject : NULL, decision, (double)time(NULL));
}

/* ---- the manifest ------------------------------------------------------ */

/* gzip data @in into @out, at most @max bytes; -1 after error() */
static int gunzip_bounded(const char *what, const struct strbuf *in,
			  struct strbuf *out, size_t max)
{
	z_stream z;
	int rc = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return error("cannot inflate '%s': %s", what, z.msg ? z.msg :
			     "zlib refused");
	z.next_in = (unsigned char *)in->buf;
	z.avail_in = in->len;
	while (rc != Z_STREAM_END) {
		strbuf_grow(out, 64 << 10);
		z.next_out = (unsigned char *)out->buf + out->len;
		z.avail_out = out->alloc - out->len - 1;
		rc = inflate(&z, Z_NO_FLUSH);
		strbuf_setlen(out, (char *)z.next_out - out->buf);
		if (out->len > max) {
			inflateEnd(&z);
			return error("'%s' inflates to more than %zu bytes",
				     what, max);
		}
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK) {
			inflateEnd(&z);
			return error("'%s' is not whole gzip data: %s", what,
				     z.msg ? z.msg : (rc == Z_BUF_ERROR ?
						      "truncated" : "corrupt"));
		}
	}
	inflateEnd(&z);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* "/linux-mm/git/12.git" -> 12; -1 if the key names no epoch */
static int key_epoch(const char *key)
{
	const char *p = strstr(key, "/git/"), *q;
	long n = 0;

	while (p && strstr(p + 1, "/git/"))
		p = strstr(p + 1, "/git/");
	if (!p)
		return -1;
	for (q = p + 5; *q >= '0' && *q <= '9'; q++) {
		n = n * 10 + (*q - '0');
		if (n > INBOX_MAX_EPOCH)
			return -1;
	}
	if (q == p + 5 || strcmp(q, ".git"))
		return -1;
	return (int)n;
}

/*
 * The epochs the inbox's manifest.js.gz lists (a JSON object keyed
 * "/NAME/git/N.git"), ascending, once each. Return: 0, or -1 after error().
 */
static int read_manifest(struct inbox *in, int **epochs, size_t *nr)
{
	struct fetch_result res = { 0 };
	struct strbuf raw = STRBUF_INIT, js = STRBUF_INIT;
	struct fetch_opts fo;
	char *url = xstrfmt("%s/manifest.js.gz", in->url);
	json_error_t jerr;
	json_t *root = NULL, *v;
	const char *key;
	size_t alloc = 0, i, k;
	int ret = -1, e;

	*epochs = NULL;
	*nr = 0;
	fetch_opts_init(&fo);
	fo.refresh = 1;		/* it changes whenever a message comes */
	if (fo.max_bytes > INBOX_MAX_MANIFEST)
		fo.max_bytes = INBOX_MAX_MANIFEST;
	if (fetch_url(in->cfg, url, &fo, &res) < 0)
		goto out;
	if (strbuf_read_file(&raw, res.path, 0) < 0) {
		error_errno("cannot read '%s'", res.path);
		goto out;
	}
	if (raw.len >= 2 && (unsigned char)raw.buf[0] == 0x1f &&
	    (unsigned char)raw.buf[1] == 0x8b) {
		if (gunzip_bounded(url, &raw, &js, INBOX_MAX_MANIFEST) < 0)
			goto out;
	} else {
		strbuf_addbuf(&js, &raw);	/* served inflated */
	}
	root = json_loadb(js.buf, js.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root || !json_is_object(root)) {
		error("'%s' is not a public-inbox manifest (a JSON object): %s",
		      url, root ? "not an object" : jerr.text);
		goto out;
	}
	json_object_foreach(root, key, v) {
		e = key_epoch(key);
		if (e < 0 || !json_is_object(v))
			continue;
		ALLOC_GROW(*epochs, *nr + 1, alloc);
		(*epochs)[(*nr)++] = e;
	}
	if (*nr)	/* qsort(NULL, 0, ...) is undefined (UBSan says so) */
		qsort(*epochs, *nr, sizeof(**epochs), cmp_int);
	for (i = k = 0; i < *nr; i++)
		if (!k || (*epochs)[k - 1] != (*epochs)[i])
			(*epochs)[k++] = (*epochs)[i];
	*nr = k;
	ret = 0;
out:
	json_decref(root);
	fetch_result_release(&res);
	strbuf_release(&raw);
	strbuf_release(&js);
	free(url);
	return ret;
}

/* ---- the mirrors ------------------------------------------------------- */


/* the mirror of @epoch, made when it is not there; NULL after error() */
static git_repository *mirror(struct inbox *in, int epoch)
{
	git_repository *repo;
	struct mirror *m;
	char *path;
	size_t i;

	for (i = 0; i < in->nr_mirrors; i++)
		if (in->mirrors[i].epoch == epoch)
			return in->mirrors[i].repo;
	path = xstrfmt("%s/%d.git", in->dir, epoch);
	if (dir_exists(path) ? git_repository_open_bare(&repo, path) < 0 :
			       git_repository_init(&repo, path, 1) < 0) {
		error("cannot open the mirror '%s': %s", path, git_errmsg());
		free(path);
		return NULL;
	}
	free(path);
	ALLOC_GROW(in->mirrors, in->nr_mirrors + 1, in->alloc_mirrors);
	m = &in->mirrors[in->nr_mirrors++];
	m->epoch = epoch;
	m->repo = repo;
	return repo;
}

/*
 * Fetch epoch @epoch (a forced update of its master: a purge rewrites
 * it). @tip: its master after the fetch. Return: 1 with @tip, 0 the
 * epoch has no commit yet, -1 after error().
 */
static int fetch_epoch(struct inbox *in, int epoch, git_repository *repo,
		       git_oid *tip)
{
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	char *url = xstrfmt("%s/git/%d.git", in->url, epoch);
	char *what = xstrfmt("epoch %d of inbox '%s'", epoch, in->name);
	char *spec = "+refs/heads/master:refs/heads/master";
	/* the first fetch of a lore epoch is about 1 GB */
	struct tree_fetch_progress fp = { what, now_s() };
	git_strarray specs = { &spec, 1 };
	git_remote *rem = NULL;
	int ret = -1;

	fo.callbacks.transfer_progress = tree_fetch_progress;
	fo.callbacks.payload = &fp;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	log_info("fetching %s (%s)", what, url);
	if (git_remote_create_anonymous(&rem, repo, url) < 0 ||
	    git_remote_fetch(rem, &specs, &fo, "mmci ingest inbox") < 0) {
		error("cannot fetch %s (%s): %s", what, url, git_errmsg());
		goto out;
	}
	if (git_reference_name_to_id(tip, repo, "refs/heads/master") < 0) {
		ret = 0;
		log_info("%s has no commit yet", what);
		goto out;
	}
	ret = 1;
out:
	git_remote_free(rem);
	free(what);
	free(url);
	return ret;
}

/*
 * The message of commit @oid: its blob 'm' into @raw, @blob its id.
 * Return: 1, 0 when the commit holds none (a deletion: 'd'; a purged
 * message: an empty 'm'), -1 after error().
 */
static int commit_message(git_repository *repo, const git_oid *oid,
			  git_oid *blob, struct strbuf *raw)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_blob *b = NULL;
	const git_tree_entry *te;
	size_t len;
	int ret = -1;

	strbuf_reset(raw);
	if (git_commit_lookup(&c, repo, oid) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		error("cannot read commit %s: %s", git_oid_tostr_s(oid),
		      git_errmsg());
		goto out;
	}
	te = git_tree_entry_byname(t, "m");
	if (!te || git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		ret = 0;
		goto out;
	}
	git_oid_cpy(blob, git_tree_entry_id(te));
	if (git_blob_lookup(&b, repo, blob) < 0) {
		error("cannot read the message of commit %s: %s",
		      git_oid_tostr_s(oid), git_errmsg());
		goto out;
	}
	len = git_blob_rawsize(b);
	if (len > MBOX_MAX_MESSAGE_SIZE)
		len = MBOX_MAX_MESSAGE_SIZE;	/* mbox.h's bound */
	strbuf_add(raw, git_blob_rawcontent(b), len);
	ret = len ? 1 : 0;
out:
	git_blob_free(b);
	git_tree_free(t);
	git_commit_free(c);
	return ret;
}

/* ---- one message ------------------------------------------------------- */

static char *message_key(const struct strbuf *raw, const git_oid *blob);

/* a "[PATCH 0/0]" tag: parse_patch_subject() reads it as no number */
static int numbered_zero(const char *subject)
{
	const char *p = subject, *end, *q, *r;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '[' || !(end = strchr(p, ']')))
			return 0;
		/* a word "0/0", "00/00" of the tag */
		for (q = p + 1; q < end; q++) {
			if (*q != '0' || (q[-1] != '[' && q[-1] != ' '))
				continue;
			for (r = q; r < end && *r == '0'; r++)
				;
			if (r == end || *r++ != '/' || r == end || *r != '0')
				continue;
			while (r < end && *r == '0')
				r++;
			if (r == end || *r == ' ' || *r == ',')
				return 1;
		}
		p = end + 1;
	}
}

static char *lower(const char *s)
{
	char *r = xstrdup(s ? s : ""), *p;

	for (p = r; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = *p - 'A' + 'a';
	return r;
}

/*
 * Older versions of series @id that still wait are superseded by it, and
 * it is, when a newer version was read before it. The same series across
 * versions: the same sender, and the same normalised title or the same
 * thread (a v2 sent in reply to v1). 0, or -1 after error().
 */
static int supersede(struct inbox *in, long long id)
{
	sqlite3_stmt *q;
	char *who = NULL;
	long long newer;
	int rc;

	q = db_query(in->db, "SELECT 'superseded by v' || version || ' <' || "
		     "coalesce(head_id, root) || '>' FROM inbox_series WHERE "
		     "id = ?", "i", id);
	if (!q)
		return -1;
	rc = db_step(in->db, q);
	if (rc == DB_ROW)
		who = xstrdup(db_col_text(q, 0));
	sqlite3_finalize(q);
	if (rc != DB_ROW)
		return rc < 0 ? -1 : 0;
#define SAME_SERIES_AS_ME \
	"o.inbox = me.inbox AND o.id != me.id AND o.author_email = " \
	"me.author_email AND (o.norm_title = me.norm_title OR o.root = " \
	"me.root)"
	rc = db_run(in->db, "UPDATE inbox_series AS o SET status = "
		    "'superseded', decision = ?, decided_at = ? FROM "
		    "inbox_series AS me WHERE me.id = ? AND o.status = "
		    "'waiting' AND o.version < me.version AND "
		    SAME_SERIES_AS_ME, "tdi", who, (double)time(NULL), id);
	if (!rc)
		in->st->superseded += db_changes(in->db);
	free(who);
	if (rc < 0)
		return -1;
	rc = db_int_checked(in->db, &newer, "SELECT o.id FROM inbox_series o, "
			    "inbox_series me WHERE me.id = ? AND me.status = "
			    "'waiting' AND o.version > me.version AND "
			    SAME_SERIES_AS_ME " ORDER BY o.version DESC LIMIT "
			    "1", "i", id);
#undef SAME_SERIES_AS_ME
	if (rc <= 0)
		return rc;
	q = db_query(in->db, "SELECT 'superseded by v' || version || ' <' || "
		     "coalesce(head_id, root) || '>' FROM inbox_series WHERE "
		     "id = ?", "i", newer);
	if (!q)
		return -1;
	rc = db_step(in->db, q);
	if (rc == DB_ROW)
		rc = db_run(in->db, "UPDATE inbox_series SET status = "
			    "'superseded', decision = ?, decided_at = ? WHERE "
			    "id = ? AND status = 'waiting'", "tdi",
			    db_col_text(q, 0), (double)time(NULL), id);
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	in->st->superseded += db_changes(in->db);
	return 0;
}

/*
 * A cover letter or patch: into the waiting series it belongs to (made
 * when it is the first mail of one). The key is the thread's root (the
 * first References: entry, else In-Reply-To:, else the mail itself; an
 * unnumbered "[PATCH]" is a series of its own), the sender, the version,
 * the number of patches and the RFC tag. 0, or -1 after error().
 */
static int collect(struct inbox *in, int epoch, const char *commit,
		   const char *blob, const struct mail *m,
		   const struct patch_subject *ps, int idx, int total,
		   int single)
{
	const char *root;
	char *author = lower(m->from_email), *norm = NULL, *why = NULL;
	long long id = 0, version = ps->version;
	sqlite3_stmt *q;
	int rc, ret = -1;

	if (single)
		root = m->message_id;
	else if (m->nr_references)
		root = m->references[0];
	else if (m->in_reply_to)
		root = m->in_reply_to;
	else
		root = m->message_id;
	/* a patch without "vN" has the version of the series it answers */
	if (!version &&
	    db_int_checked(in->db, &version, "SELECT version FROM inbox_series "
			   "WHERE inbox = ? AND root = ? AND author_email = ? "
			   "AND total = ? AND is_rfc = ? AND status = "
			   "'waiting' ORDER BY id DESC LIMIT 1", "tttii",
			   in->name, root, author, (long long)total,
			   (long long)ps->is_rfc) < 0)
		goto out;
	if (!version)
		version = 1;
	q = db_query(in->db, "SELECT id, status, coalesce(decision, '') FROM "
		     "inbox_series WHERE inbox = ? AND root = ? AND "
		     "author_email = ? AND version = ? AND total = ? AND "
		     "is_rfc = ?", "tttiii", in->name, root, author, version,
		     (long long)total, (long long)ps->is_rfc);
	if (!q)
		goto out;
	rc = db_step(in->db, q);
	if (rc == DB_ROW) {
		id = sqlite3_column_int64(q, 0);
		if (strcmp(db_col_text(q, 1), "waiting"))
			why = xstrfmt("late: %d/%d of a series already %s "
				      "(%s)", idx, total, db_col_text(q, 1),
				      db_col_text(q, 2));
	}
	sqlite3_finalize(q);
	if (rc < 0)
		goto out;
	if (why) {
		in->st->late++;
		printf("  late: %s (%s)\n", m->subject, why);
		ret = event(in, epoch, commit, m, why);
		goto out;
	}
	if (!id) {
		if (db_run(in->db, "INSERT INTO inbox_series (inbox, root, "
			   "author_email, version, total, is_rfc, first_at) "
			   "VALUES (?, ?, ?, ?, ?, ?, ?)", "tttiiid", in->name,
			   root, author, version, (long long)total,
			   (long long)ps->is_rfc, (double)time(NULL)) < 0)
			goto out;
		id = db_last_id(in->db);
	}
	/* a mail sent twice: the latest counts (series_from_mails() too) */
	if (db_run(in->db, "INSERT OR REPLACE INTO inbox_mails "
		   "(inbox_series_id, idx, message_id, in_reply_to, epoch, "
		   "commit_id, blob_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
		   "iittitt", id, (long long)idx, m->message_id,
		   m->in_reply_to, (long long)epoch, commit, blob) < 0)
		goto out;
	norm = ingest_norm_title(ps->title);
	if (idx <= 1 &&
	    db_run(in->db, "UPDATE inbox_series SET title = ?, norm_title = ?, "
		   "head_id = ? WHERE id = ? AND (? = 0 OR head_id IS NULL)",
		   "tttii", ps->title, norm, m->message_id, id,
		   (long long)idx) < 0)
		goto out;
	in->st->mails++;
	ret = supersede(in, id);
out:
	free(author);
	free(norm);
	free(why);
	return ret;
}

/*
 * What a message is: a cover letter or patch is collected, the rest
 * counted; a mail that cannot belong to a series gets its decision
 * recorded. In the caller's transaction. 0, or -1 after error().
 */
static int classify(struct inbox *in, int epoch, const char *commit,
		    const char *blob, const struct mail *m)
{
	struct patch_subject ps;
	char *why = NULL;
	int tagged, idx, total, single = 0, ret = 0;

	tagged = parse_patch_subject(m->subject, &ps);
	idx = ps.index;
	total = ps.total;
	if (ps.is_reply) {
		in->st->replies++;
		goto out;
	}
	if (!tagged) {
		in->st->others++;
		goto out;
	}
	if (!idx && !total && numbered_zero(m->subject)) {
		why = xstrdup("refused: numbered 0/0");
	} else if (!idx && !total) {
		/* "[PATCH] foo": a series of one, if it holds a diff */
		if (!mail_text_has_patch(m->body.buf, m->body.len)) {
			in->st->others++;
			goto out;
		}
		idx = total = single = 1;
	} else if (!total || idx > total) {
		why = xstrfmt("refused: numbered %d/%d", idx, total);
	} else if (total > SERIES_MAX_PATCHES) {
		why = xstrfmt("refused: numbered %d/%d, more than %d patches",
			      idx, total, SERIES_MAX_PATCHES);
	}
	if (why) {
		in->st->refused++;
		printf("  %s: %s <%s>\n", why, m->subject, m->message_id);
		ret = event(in, epoch, commit, m, why);
		goto out;
	}
	ret = collect(in, epoch, commit, blob, m, &ps, idx, total, single);
out:
	patch_subject_release(&ps);
	free(why);
	return ret;
}

/*
 * Commit @oid of @epoch, holding the message @raw (NULL: none), read:
 * the message handled once (by Message-ID) and the mark moved, in one
 * transaction. 0, or -1 after error().
 */
static int read_commit(struct inbox *in, int epoch, const git_oid *oid,
		       const git_oid *blob, const struct strbuf *raw)
{
	char chex[GIT_OID_HEXSZ + 1], bhex[GIT_OID_HEXSZ + 1];
	char key[GIT_OID_HEXSZ + 6];
	struct mail m;
	int ret = -1;

	memset(&m, 0, sizeof(m));
	git_oid_tostr(chex, sizeof(chex), oid);
	if (raw) {
		mail_parse(raw->buf, raw->len, &m);
		in->st->read++;
		git_oid_tostr(bhex, sizeof(bhex), blob);
		xsnprintf(key, sizeof(key), "blob:%s", bhex);
	}
	if (db_begin(in->db) < 0)
		goto out;
	/* a message read before (a rewritten history, a message sent twice)
	 * is handled once */
	if (raw && db_run(in->db, "INSERT OR IGNORE INTO inbox_read (inbox, "
			  "message_id, epoch, commit_id, read_at) VALUES (?, "
			  "?, ?, ?, ?)", "ttitd", in->name, m.message_id ?
			  m.message_id : key, (long long)epoch, chex,
			  (double)time(NULL)) < 0)
		goto rollback;
	if (raw && !db_changes(in->db)) {
		in->st->seen++;
	} else if (raw && !m.message_id) {
		in->st->refused++;
		printf("  refused: no Message-ID: %s (commit %s)\n", m.subject,
		       chex);
		if (event(in, epoch, chex, &m, "refused: no Message-ID") < 0)
			goto rollback;
	} else if (raw && classify(in, epoch, chex, bhex, &m) < 0) {
		goto rollback;
	}
	if (save_mark(in, epoch, chex, m.message_id) < 0 ||
	    db_commit(in->db) < 0)
		goto rollback;
	set_mark(in, epoch, chex);
	ret = 0;
	goto out;
rollback:
	db_rollback(in->db);
out:
	mail_release(&m);
	return ret;
}

/* ---- an epoch ---------------------------------------------------------- */

/*
 * The key of a message in inbox_read, from its header only: its
 * Message-ID, else "blob:" and its blob's id (the same blob in a history
 * rewritten around it). Caller frees.
 */
static char *message_key(const struct strbuf *raw, const git_oid *blob)
{
	const char *end = strstr(raw->buf, "\n\n");
	struct mail m;
	char *id;

	mail_parse(raw->buf, end ? (size_t)(end - raw->buf) + 1 : raw->len,
		   &m);
	id = m.message_id ? xstrdup(m.message_id) :
			    xstrfmt("blob:%s", git_oid_tostr_s(blob));
	mail_release(&m);
	return id;
}

/*
 * Where a rewritten epoch goes on: the newest commit (first parent, from
 * @tip) whose message was read before. Return: 1 with @out and @msgid
 * (caller frees), 0 none in INBOX_MAX_RESUME commits, -1 after error().
 */
static int resume_point(struct inbox *in, git_repository *repo,
			const git_oid *tip, git_oid *out, char **msgid)
{
	struct strbuf raw = STRBUF_INIT;
	git_revwalk *w = NULL;
	git_oid oid, blob;
	long long found;
	size_t n = 0;
	int rc, ret = -1;

	*msgid = NULL;
	if (git_revwalk_new(&w, repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL) < 0 ||
	    git_revwalk_simplify_first_parent(w) < 0 ||
	    git_revwalk_push(w, tip) < 0) {
		error("cannot walk epoch %d: %s", in->epoch, git_errmsg());
		goto out;
	}
	while (n++ < INBOX_MAX_RESUME && !(rc = git_revwalk_next(&oid, w))) {
		char *id;

		rc = commit_message(repo, &oid, &blob, &raw);
		if (rc < 0)
			goto out;
		if (!rc)
			continue;
		id = message_key(&raw, &blob);
		rc = db_int_checked(in->db, &found, "SELECT 1 FROM inbox_read "
				    "WHERE inbox = ? AND message_id = ?", "tt",
				    in->name, id);
		if (rc < 0) {
			free(id);
			goto out;
		}
		if (rc) {
			git_oid_cpy(out, &oid);
			*msgid = id;
			ret = 1;
			goto out;
		}
		free(id);
	}
	ret = 0;
out:
	git_revwalk_free(w);
	strbuf_release(&raw);
	return ret;
}

/*
 * The mark is in @epoch but no ancestor of @tip (or not in the mirror):
 * the epoch was rewritten. @after: where reading goes on. 0, or -1 after
 * error() with the mark kept.
 */
static int follow_rewrite(struct inbox *in, int epoch, git_repository *repo,
			  const git_oid *tip, git_oid *after)
{
	char hex[GIT_OID_HEXSZ + 1], *msgid = NULL, *note;
	int rc;

	rc = resume_point(in, repo, tip, after, &msgid);
	if (rc < 0)
		return -1;
	if (!rc) {
		note = xstrfmt("epoch %d was rewritten and none of the last %d "
			       "commits of its new history holds a message "
			       "read before; the mark (commit %s) is kept",
			       epoch, INBOX_MAX_RESUME, in->commit);
		error("inbox '%s': %s", in->name, note);
		event(in, epoch, in->commit, NULL, note);
		free(note);
		return -1;
	}
	git_oid_tostr(hex, sizeof(hex), after);
	note = xstrfmt("epoch %d was rewritten (its mark, commit %s, is no "
		       "longer in its history): reading after commit %s, the "
		       "newest whose message %s%s%s was read before", epoch,
		       in->commit, hex, starts_with(msgid, "blob:") ?
		       "(no Message-ID, " : "<", msgid, starts_with(msgid,
		       "blob:") ? ")" : ">");
	log_info("inbox '%s': %s", in->name, note);
	printf("inbox %s: %s\n", in->name, note);
	/* the mark moves there now, whether or not a message follows */
	rc = -1;
	if (db_begin(in->db) < 0 || event(in, epoch, hex, NULL, note) < 0 ||
	    save_mark(in, epoch, hex, starts_with(msgid, "blob:") ? NULL :
		      msgid) < 0 || db_commit(in->db) < 0) {
		db_rollback(in->db);
	} else {
		set_mark(in, epoch, hex);
		rc = 0;
	}
	free(note);
	free(msgid);
	return rc;
}

/* every commit of @epoch after the mark (or from its start), in order */
static int read_epoch(struct inbox *in, int epoch, git_repository *repo,
		      const git_oid *tip)
{
	struct strbuf raw = STRBUF_INIT;
	git_revwalk *w = NULL;
	git_oid oid, blob, after;
	int rc, has_after = 0, ret = -1;
	size_t n = 0;

	if (epoch == in->epoch && *in->commit) {
		git_commit *c = NULL;

		has_after = 1;
		if (git_oid_fromstr(&after, in->commit) < 0 ||
		    git_commit_lookup(&c, repo, &after) < 0 ||
		    (!git_oid_equal(&after, tip) &&
		     git_graph_descendant_of(repo, tip, &after) != 1)) {
			git_commit_free(c);
			if (follow_rewrite(in, epoch, repo, tip, &after) < 0)
				goto out;
		} else {
			git_commit_free(c);
		}
		if (git_oid_equal(&after, tip)) {
			ret = 0;	/* nothing new */
			goto out;
		}
	}
	if (git_revwalk_new(&w, repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
		    0 ||
	    git_revwalk_simplify_first_parent(w) < 0 ||
	    git_revwalk_push(w, tip) < 0 ||
	    (has_after && git_revwalk_hide(w, &after) < 0)) {
		error("cannot walk epoch %d of inbox '%s': %s", epoch, in->name,
		      git_errmsg());
		goto out;
	}
	while (!(rc = git_revwalk_next(&oid, w))) {
		rc = commit_message(repo, &oid, &blob, &raw);
		if (rc < 0 || read_commit(in, epoch, &oid, &blob,
					  rc ? &raw : NULL) < 0)
			goto out;
		if (!(++n % 1000) && now_s() - in->last_progress >= 10.0) {
			in->last_progress = now_s();
			progress("inbox '%s': epoch %d: %zu commit(s) read",
				 in->name, epoch, n);
		}
	}
	if (rc != GIT_ITEROVER) {
		error("cannot walk epoch %d of inbox '%s': %s", epoch, in->name,
		      git_errmsg());
		goto out;
	}
	if (n)
		printf("inbox %s: epoch %d: %zu commit(s) read, up to %s\n",
		       in->name, epoch, n, in->commit);
	ret = 0;
out:
	git_revwalk_free(w);
	strbuf_release(&raw);
	return ret;
}

/* ---- series: waiting, complete, taken ---------------------------------- */

struct waiting {
	long long id;
	int version, total;
	char *root, *head, *title;
	double first_at;
};

struct series_mail {
	int idx, epoch;
	char *message_id, *in_reply_to, *blob;
};

static void series_mails_free(struct series_mail *sm, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(sm[i].message_id);
		free(sm[i].in_reply_to);
		free(sm[i].blob);
	}
	free(sm);
}

static int load_mails(struct inbox *in, long long id, struct series_mail **sm,
		      size_t *nr)
{
	sqlite3_stmt *q = db_query(in->db, "SELECT idx, epoch, message_id, "
				   "in_reply_to, blob_id FROM inbox_mails "
				   "WHERE inbox_series_id = ? ORDER BY idx",
				   "i", id);
	size_t alloc = 0;
	int rc;

	*sm = NULL;
	*nr = 0;
	if (!q)
		return -1;
	while ((rc = db_step(in->db, q)) == DB_ROW) {
		struct series_mail *s;

		ALLOC_GROW(*sm, *nr + 1, alloc);
		s = &(*sm)[(*nr)++];
		s->idx = sqlite3_column_int(q, 0);
		s->epoch = sqlite3_column_int(q, 1);
		s->message_id = xstrdup(db_col_text(q, 2));
		s->in_reply_to = sqlite3_column_type(q, 3) == SQLITE_NULL ?
				 NULL : xstrdup(db_col_text(q, 3));
		s->blob = xstrdup(db_col_text(q, 4));
	}
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

/* one message as an mboxrd entry: ">From " lines get one more '>' */
static void add_mboxrd(struct strbuf *mbox, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	strbuf_addstr(mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p), *q = p;
		size_t n = eol ? (size_t)(eol - p + 1) : (size_t)(end - p);

		while (q < p + n && *q == '>')
			q++;
		if ((size_t)(p + n - q) >= 5 && !memcmp(q, "From ", 5))
			strbuf_addch(mbox, '>');
		strbuf_add(mbox, p, n);
		p += n;
	}
	if (len && buf[len - 1] != '\n')
		strbuf_addch(mbox, '\n');
	strbuf_addch(mbox, '\n');
}

/*
 * The series' mails as an mbox file of their own, where the report finds
 * its To and Cc (threads.cache_path). A blob the mirror lost is a missing
 * mail, noted in @lost. Return: the path, caller frees; NULL after error().
 */
static char *write_mbox(struct inbox *in, const struct waiting *w,
			const struct series_mail *sm, size_t nr,
			struct strbuf *lost)
{
	struct strbuf mbox = STRBUF_INIT;
	char *dir = xstrfmt("%s/series", in->dir), *path = NULL;
	size_t i;

	for (i = 0; i < nr; i++) {
		git_repository *repo = mirror(in, sm[i].epoch);
		git_blob *b = NULL;
		git_oid oid;

		if (!repo || git_oid_fromstr(&oid, sm[i].blob) < 0 ||
		    git_blob_lookup(&b, repo, &oid) < 0) {
			strbuf_addf(lost, "%s%d/%d <%s>: not in the mirror of "
				    "epoch %d", lost->len ? ", " : "",
				    sm[i].idx, w->total, sm[i].message_id,
				    sm[i].epoch);
			continue;
		}
		add_mboxrd(&mbox, git_blob_rawcontent(b), git_blob_rawsize(b));
		git_blob_free(b);
	}
	if (mkdir_p(dir, 0755) < 0) {
		error_errno("cannot make '%s'", dir);
		goto out;
	}
	path = xstrfmt("%s/%lld.mbox", dir, w->id);
	if (write_file(path, mbox.buf, mbox.len) < 0) {
		free(path);
		path = NULL;
	}
out:
	strbuf_release(&mbox);
	free(dir);
	return path;
}

/*
 * Series @w: decided now when it is complete (its cover letter, unless
 * it has none, and every patch) or waited long enough; then it goes to
 * discover_take_series(), once (the row's status moves from 'waiting' in
 * a conditional write). 0, or -1 after error().
 */
static int settle_one(struct inbox *in, const struct waiting *w, double now)
{
	struct discover_take t = DISCOVER_TAKE_INIT;
	struct ingest_source src = { 0 };
	struct strbuf missing = STRBUF_INIT, why = STRBUF_INIT;
	struct strbuf lost = STRBUF_INIT, url = STRBUF_INIT;
	struct series_mail *sm = NULL;
	char *have = xcalloc(w->total + 1, 1), *path = NULL, *decision = NULL;
	const char *status;
	const struct series_mail *p1 = NULL;
	size_t nr = 0, i, nr_missing = 0;
	long long read_before = 0;
	int cover_expected = 1, ret = -1, k;

	if (load_mails(in, w->id, &sm, &nr) < 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (sm[i].idx >= 0 && sm[i].idx <= w->total)
			have[sm[i].idx] = 1;
		if (sm[i].idx == 1)
			p1 = &sm[i];
	}
	/*
	 * No cover letter to wait for when patch 1 starts the thread, or
	 * answers a message read before that is not this series' cover.
	 */
	if (p1 && (!p1->in_reply_to || !strcmp(w->root, p1->message_id)))
		cover_expected = 0;
	else if (p1 && !have[0] &&
		 db_int_checked(in->db, &read_before, "SELECT 1 FROM "
				"inbox_read WHERE inbox = ? AND message_id = ?",
				"tt", in->name, p1->in_reply_to) < 0)
		goto out;
	if (read_before)
		cover_expected = 0;
	for (k = 1; k <= w->total; k++) {
		if (have[k])
			continue;
		strbuf_addf(&missing, "%s%d", nr_missing ? "," : "", k);
		strbuf_addf(&why, "%s%d/%d", nr_missing ? ", " : "", k,
			    w->total);
		nr_missing++;
	}
	if (cover_expected && !have[0])
		strbuf_addf(&why, "%sthe cover letter", why.len ? ", " : "");
	if (why.len && now - w->first_at < in->o->wait_s) {
		in->st->waiting++;
		ret = 0;
		goto out;
	}
	path = write_mbox(in, w, sm, nr, &lost);
	if (!path)
		goto out;
	strbuf_addf(&url, "%s/", in->url);
	discover_add_msgid(&url, *w->head ? w->head : w->root);
	strbuf_addch(&url, '/');
	src.source = url.buf;
	src.url = url.buf;
	src.cache_path = path;
	src.fetched_at = now;
	if (discover_take_series(in->db, in->cfg, path, &src, in->o->filter,
				 &t) < 0)
		goto out;
	if (!strcmp(t.decision, "kept")) {
		status = "queued";
		decision = xstrfmt("kept: series #%lld, job #%lld%s%s%s%s%s",
				   t.series_id, t.job_id, t.queued ? "" :
				   " (queued before, the same first mail)",
				   why.len ? "; never arrived: " : "", why.buf,
				   lost.len ? "; lost: " : "", lost.buf);
	} else if (starts_with(t.decision, "skipped")) {
		status = "skipped";
		decision = xstrdup(t.decision);
	} else {
		status = "failed";
		decision = xstrdup(t.decision);
	}
	if (db_run(in->db, "UPDATE inbox_series SET status = ?, decision = ?, "
		   "missing = ?, series_id = ?, job_id = ?, decided_at = ? "
		   "WHERE id = ? AND status = 'waiting'", "tttIIdi", status,
		   decision, missing.len ? missing.buf : NULL, t.series_id,
		   t.job_id, now, w->id) < 0)
		goto out;
	if (!strcmp(status, "queued")) {
		in->st->queued++;
		in->st->partial += why.len != 0;
	} else if (!strcmp(status, "skipped")) {
		in->st->skipped++;
	} else {
		in->st->failed++;
	}
	printf("  %s: v%d %s <%s>: %s\n", status, w->version, w->title,
	       *w->head ? w->head : w->root, decision);
	ret = 0;
out:
	discover_take_release(&t);
	series_mails_free(sm, nr);
	strbuf_release(&missing);
	strbuf_release(&why);
	strbuf_release(&lost);
	strbuf_release(&url);
	free(decision);
	free(have);
	free(path);
	return ret;
}

static int settle(struct inbox *in)
{
	sqlite3_stmt *q = db_query(in->db, "SELECT id, version, total, root, "
				   "coalesce(head_id, ''), coalesce(title, "
				   "''), first_at FROM inbox_series WHERE "
				   "inbox = ? AND status = 'waiting' ORDER BY "
				   "id", "t", in->name);
	struct waiting *w = NULL;
	size_t nr = 0, alloc = 0, i;
	double now = (double)time(NULL);
	int rc, ret = 0;

	if (!q)
		return -1;
	while ((rc = db_step(in->db, q)) == DB_ROW) {
		ALLOC_GROW(w, nr + 1, alloc);
		w[nr].id = sqlite3_column_int64(q, 0);
		w[nr].version = sqlite3_column_int(q, 1);
		w[nr].total = sqlite3_column_int(q, 2);
		w[nr].root = xstrdup(db_col_text(q, 3));
		w[nr].head = xstrdup(db_col_text(q, 4));
		w[nr].title = xstrdup(db_col_text(q, 5));
		w[nr].first_at = sqlite3_column_double(q, 6);
		nr++;
	}
	sqlite3_finalize(q);
	if (rc < 0)
		ret = -1;
	for (i = 0; i < nr && !ret; i++)
		ret = settle_one(in, &w[i], now);
	for (i = 0; i < nr; i++) {
		free(w[i].root);
		free(w[i].head);
		free(w[i].title);
	}
	free(w);
	return ret;
}

/* ---- the pass ---------------------------------------------------------- */

/* a new mark: the newest epoch's tip, or the first epoch's start */
static int new_mark(struct inbox *in, const int *epochs, size_t nr)
{
	git_repository *repo;
	struct strbuf raw = STRBUF_INIT;
	char hex[GIT_OID_HEXSZ + 1], *msgid = NULL;
	git_oid tip, blob;
	int epoch, rc, ret = -1;

	if (!nr || in->o->start_all) {
		epoch = nr ? epochs[0] : 0;
		if (db_begin(in->db) < 0 ||
		    save_mark(in, epoch, NULL, NULL) < 0 ||
		    db_commit(in->db) < 0) {
			db_rollback(in->db);
			return -1;
		}
		set_mark(in, epoch, NULL);
		printf("inbox %s: a new mark at the start of epoch %d: every "
		       "message is read\n", in->name, epoch);
		return 0;
	}
	epoch = epochs[nr - 1];
	repo = mirror(in, epoch);
	if (!repo)
		return -1;
	rc = fetch_epoch(in, epoch, repo, &tip);
	if (rc < 0)
		return -1;
	if (rc && commit_message(repo, &tip, &blob, &raw) > 0)
		msgid = message_key(&raw, &blob);
	if (rc)
		git_oid_tostr(hex, sizeof(hex), &tip);
	if (db_begin(in->db) < 0 ||
	    save_mark(in, epoch, rc ? hex : NULL, msgid &&
		      !starts_with(msgid, "blob:") ? msgid : NULL) < 0 ||
	    (msgid && db_run(in->db, "INSERT OR IGNORE INTO inbox_read "
			     "(inbox, message_id, epoch, commit_id, read_at) "
			     "VALUES (?, ?, ?, ?, ?)", "ttitd", in->name,
			     msgid, (long long)epoch, hex,
			     (double)time(NULL)) < 0) ||
	    db_commit(in->db) < 0) {
		db_rollback(in->db);
		goto out;
	}
	set_mark(in, epoch, rc ? hex : NULL);
	printf("inbox %s: a new mark at the tip of epoch %d (%s): the history "
	       "before it is not read (--start=all reads it)\n", in->name,
	       epoch, rc ? hex : "no commit yet");
	ret = 0;
out:
	strbuf_release(&raw);
	free(msgid);
	return ret;
}

/* read every epoch from the mark's on; 0, or -1 after error() */
static int read_epochs(struct inbox *in, const int *epochs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr && epochs[i] < in->epoch; i++)
		;
	/* an epoch of which nothing was read yet may be made later */
	if ((i == nr || epochs[i] != in->epoch) && *in->commit) {
		char *note;

		if (nr)
			note = xstrfmt("epoch %d, where the mark is, is not in "
				       "the manifest any more (it lists %zu "
				       "epoch(s), %d to %d); the mark (commit "
				       "%s) is kept", in->epoch, nr, epochs[0],
				       epochs[nr - 1], in->commit);
		else
			note = xstrfmt("epoch %d, where the mark is, is not in "
				       "the manifest any more (it lists none); "
				       "the mark (commit %s) is kept",
				       in->epoch, in->commit);
		error("inbox '%s': %s", in->name, note);
		if (event(in, in->epoch, NULL, NULL, note) < 0)
			warning("the decision was not recorded");
		free(note);
		return -1;
	}
	for (; i < nr; i++) {
		git_repository *repo = mirror(in, epochs[i]);
		git_oid tip;
		int rc;

		if (!repo)
			return -1;
		rc = fetch_epoch(in, epochs[i], repo, &tip);
		if (rc < 0)
			return error("inbox '%s': the mark (epoch %d, commit "
				     "%s) is kept", in->name, in->epoch,
				     *in->commit ? in->commit : "none");
		if (rc && read_epoch(in, epochs[i], repo, &tip) < 0)
			return -1;
	}
	return 0;
}

int inbox_follow(struct db *db, const struct mmci_config *cfg,
		 const struct inbox_opts *o, struct inbox_stats *st)
{
	static const int config_levels[] = {
		GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
		GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA,
	};
	struct inbox in;
	char *fetch_dir;
	int *epochs = NULL, ret = -1, failed = 0;
	size_t nr = 0, i;

	memset(&in, 0, sizeof(in));
	memset(st, 0, sizeof(*st));
	in.db = db;
	in.cfg = cfg;
	in.o = o;
	in.st = st;
	in.lock_fd = -1;
	in.last_progress = now_s();
	in.url = xstrdup(o->url);
	while (*in.url && in.url[strlen(in.url) - 1] == '/')
		in.url[strlen(in.url) - 1] = '\0';
	if (!starts_with(in.url, "http://") &&
	    !starts_with(in.url, "https://")) {
		error("inbox URL '%s' is not http:// or https://", o->url);
		goto out;
	}
	in.name = o->name && *o->name ? xstrdup(o->name) : name_of_url(in.url);
	if (!in.name || !valid_name(in.name)) {
		error("no inbox name in '%s' (give one with --name: letters, "
		      "digits, '.', '_', '-')", o->name && *o->name ? o->name :
		      o->url);
		goto out;
	}
	fetch_dir = data_path(cfg, "fetch");
	in.dir = xstrfmt("%s/inbox/%s", fetch_dir, in.name);
	free(fetch_dir);
	if (mkdir_p(in.dir, 0755) < 0) {
		error_errno("cannot make '%s'", in.dir);
		goto out;
	}
	if (lock_inbox(&in) < 0)
		goto out;
	/*
	 * The mirrors are read with their own config only: the daemon's
	 * poll runs as the service user with root's HOME, whose
	 * ~/.gitconfig it may not even stat (libgit2 then refuses to open
	 * any repository), and no user's git settings should change what
	 * is fetched.
	 */
	for (i = 0; i < ARRAY_SIZE(config_levels); i++)
		if (git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, config_levels[i],
				     "") < 0) {
			error("cannot keep libgit2 from the user's git config: "
			      "%s", git_errmsg());
			goto out;
		}
	if (o->reset && db_run(db, "DELETE FROM inbox_marks WHERE inbox = ?",
			       "t", in.name) < 0)
		goto out;
	if (load_mark(&in) < 0)
		goto out;
	if (read_manifest(&in, &epochs, &nr) < 0) {
		if (in.has_mark)
			error("inbox '%s': the mark (epoch %d, commit %s) is "
			      "kept", in.name, in.epoch,
			      *in.commit ? in.commit : "none");
		failed = 1;
	} else if (!in.has_mark && new_mark(&in, epochs, nr) < 0) {
		failed = 1;
	} else if (read_epochs(&in, epochs, nr) < 0) {
		failed = 1;
	}
	/* what was read before a failure is decided all the same */
	if (settle(&in) < 0)
		goto out;
	st->epoch = in.epoch;
	ret = failed ? -1 : 0;
out:
	for (i = 0; i < in.nr_mirrors; i++)
		git_repository_free(in.mirrors[i].repo);
	free(in.mirrors);
	if (in.lock_fd >= 0)
		close(in.lock_fd);
	free(epochs);
	free(in.name);
	free(in.url);
	free(in.dir);
	return ret;
}
