// SPDX-License-Identifier: GPL-2.0
/*
 * ingest.c - series files to rows, rows to commits.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "apply.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "notice.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

static void read_previous(struct db *db, long long id,
			  struct version_link *prev);

void loaded_series_release(struct loaded_series *ls)
{
	free(ls->partial);
	series_release(&ls->s);
	mails_free(ls->mails, ls->nr_mails);
	memset(ls, 0, sizeof(*ls));
}

/* one patches row and its trailers; 0, or -1 after the db's error */
static int store_patch(struct db *db, long long series_id,
		       const struct series *s, const struct series_patch *p);

/*
 * The series of @sha: the row stored before (*existing = 1), or a new one.
 * "Stored before?" is asked inside the write transaction, so two processes
 * reading the same file at once store it once: asked before BEGIN
 * IMMEDIATE, 10 ingests of one file at once stored 1 to 10 copies.
 * series.source_sha1 is unique (schema/0009-unique-sha1.sql).
 */
static int store_series(struct db *db, const char *path, const char *sha,
			struct loaded_series *ls, int *existing)
{
	const struct series *s = &ls->s;
	const struct mail *first = s->cover ? s->cover : s->patches[0].mail;
	struct strbuf problems = STRBUF_INIT, author = STRBUF_INIT;
	size_t i;
	int found;

	*existing = 0;
	for (i = 0; i < s->nr_problems; i++)
		strbuf_addf(&problems, "%s\n", s->problems[i]);
	strbuf_addf(&author, "%s <%s>", s->patches[0].author_name,
		    s->patches[0].author_email);
	if (db_begin(db) < 0)
		goto fail;
	found = db_int_checked(db, &ls->id, "SELECT id FROM series WHERE "
			       "source_sha1 = ?", "t", sha);
	if (found < 0)
		goto rollback;
	if (found) {
		db_rollback(db);	/* nothing written */
		*existing = 1;
		strbuf_release(&problems);
		strbuf_release(&author);
		return 0;
	}
	if (db_run(db, "INSERT INTO series (title, version, total, message_id, "
		   "author, source, source_sha1, base_commit, problems, "
		   "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tiittttttd", s->title, (long long)s->version,
		   (long long)s->total, first->message_id, author.buf, path,
		   sha, s->base_commit, problems.len ? problems.buf : NULL,
		   (double)time(NULL)) < 0)
		goto rollback;
	ls->id = db_last_id(db);
	for (i = 0; i < s->nr; i++)
		if (store_patch(db, ls->id, s, &s->patches[i]) < 0)
			goto rollback;
	if (db_commit(db) < 0)
		goto fail;
	strbuf_release(&problems);
	strbuf_release(&author);
	return 0;
rollback:
	db_rollback(db);
fail:
	strbuf_release(&problems);
	strbuf_release(&author);
	return -1;
}

int ingest_series_file(struct db *db, const char *path,
		       struct loaded_series *ls)
{
	char sha[41];
	size_t i;
	int existing;

	memset(ls, 0, sizeof(*ls));
	if (hash_file_hex(path, sha) < 0)
		return -1;
	if (series_from_file(path, &ls->mails, &ls->nr_mails, &ls->s) < 0)
		return error("'%s' is not a patch series", path);
	for (i = 0; i < ls->s.nr; i++) {
		if (!ls->s.patches[i].diff || !*ls->s.patches[i].diff) {
			error("patch %d/%d '%s' of '%s' has no diff",
			      ls->s.patches[i].index, ls->s.total,
			      ls->s.patches[i].title, path);
			return -1;
		}
	}
	if (ls->s.nr_missing) {
		struct strbuf miss = STRBUF_INIT;

		for (i = 0; i < ls->s.nr_missing; i++)
			strbuf_addf(&miss, "%s%d/%d", i ? ", " : "",
				    ls->s.missing[i], ls->s.total);
		error("series '%s' in '%s' is missing patch(es) %s",
		      ls->s.title, path, miss.buf);
		strbuf_release(&miss);
		return -1;
	}
	if (store_series(db, path, sha, ls, &existing) < 0)
		return -1;
	if (!existing) {
		struct ingest_report rep = { 0 };

		if (ingest_link_versions(db, ls, &rep) < 0)
			warning("series #%lld: versions not linked", ls->id);
		else if (rep.previous.id)
			log_info("series #%lld: v%d of series #%lld (%s)",
				 ls->id, ls->s.version, rep.previous.id,
				 rep.previous.how);
	}
	log_info("series #%lld: '%s' v%d, %zu patch(es)%s", ls->id,
		 ls->s.title, ls->s.version, ls->s.nr,
		 ls->s.cover ? " and a cover letter" : "");
	return 0;
}

int apply_series(struct db *db, git_repository *repo,
		 const struct loaded_series *ls, const char *base_ref,
		 const git_oid *base, int upto, git_oid *heads)
{
	struct apply_patch *ap = xcalloc(upto, sizeof(*ap));
	char **msgs = xcalloc(upto, sizeof(*msgs));
	char base_hex[41], head_hex[41] = "";
	int i, failed, ret;

	if (upto < 1 || (size_t)upto > ls->s.nr)
		BUG("apply_series: upto %d of %zu", upto, ls->s.nr);
	for (i = 0; i < upto; i++) {
		const struct series_patch *p = &ls->s.patches[i];

		msgs[i] = series_patch_full_message(p);
		ap[i].title = p->title;
		ap[i].author_name = p->author_name;
		ap[i].author_email = p->author_email;
		ap[i].date = p->date;
		ap[i].message = msgs[i];
		ap[i].diff = p->diff;
	}
	git_oid_tostr(base_hex, sizeof(base_hex), base);
	ret = apply_patches(repo, base, ap, upto, heads, &failed);
	if (!ret)
		git_oid_tostr(head_hex, sizeof(head_hex), &heads[upto - 1]);
	/* an apply that cannot be recorded did not happen for the pages */
	if (ingest_record_apply(db, ls->id, base_ref, base_hex, upto,
				ret ? NULL : head_hex,
				ret ? last_error() : NULL) < 0)
		ret = -1;
	for (i = 0; i < upto; i++)
		free(msgs[i]);
	free(msgs);
	free(ap);
	return ret;
}

int ingest_apply_file(struct db *db, const char *tree_dir,
		      git_repository **repo, const char *ref,
		      const char *series, int *upto, struct loaded_series *ls,
		      git_oid *target)
{
	git_oid base, *heads;
	int ret;

	if (tree_open(tree_dir, repo) < 0 ||
	    tree_resolve(*repo, ref, &base) < 0)
		return -1;
	if (!series) {
		git_oid_cpy(target, &base);
		return 0;
	}
	if (ingest_series_file(db, series, ls) < 0)
		return -1;
	if (!*upto || (size_t)*upto > ls->s.nr)
		*upto = ls->s.nr;
	heads = xcalloc(*upto, sizeof(*heads));
	ret = apply_series(db, *repo, ls, ref, &base, *upto, heads);
	if (!ret)
		git_oid_cpy(target, &heads[*upto - 1]);
	free(heads);
	return ret;
}

/*
 * Whole threads (`mmci ingest`): every mail gets a row, bad input is
 * described per mail and never stops the rest of the thread.
 */

/* inflate's output buffer while gunzip() only counts */
#define GUNZIP_SCRATCH (64 << 10)

/*
 * One pass of gzip data @in through inflate. With @out NULL it only counts
 * (into a GUNZIP_SCRATCH buffer) and stops once more than
 * INGEST_MAX_MBOX_SIZE bytes came out; else it fills @out, which has room
 * for @room bytes. Damage (truncated, corrupt, trailing garbage) goes to
 * @damage when that is not NULL. Return: the bytes inflated.
 */
static unsigned long long inflate_pass(const unsigned char *in, size_t len,
				       char *out, size_t room,
				       struct strbuf *damage)
{
	unsigned char *scratch = out ? NULL : xmalloc(GUNZIP_SCRATCH);
	unsigned long long total = 0;
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 16: gzip only; members are read one after the other */
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		BUG("inflateInit2 failed");
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	for (;;) {
		size_t avail = out ? room - total : GUNZIP_SCRATCH;

		z.next_out = out ? (unsigned char *)out + total : scratch;
		z.avail_out = avail;
		rc = inflate(&z, Z_NO_FLUSH);
		total += avail - z.avail_out;
		if (!out && total > INGEST_MAX_MBOX_SIZE)
			break;
		if (rc == Z_STREAM_END) {
			if (!z.avail_in)
				break;
			if (z.avail_in >= 2 && z.next_in[0] == 0x1f &&
			    z.next_in[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			if (damage)
				strbuf_addf(damage, "%u byte(s) of garbage "
					    "after the gzip data ignored",
					    z.avail_in);
			break;
		}
		if (rc == Z_OK)
			continue;
		if (!damage)
			break;
		if (rc == Z_BUF_ERROR)
			strbuf_addf(damage, "truncated gzip data: it ends "
				    "after %zu bytes, inside the stream", len);
		else
			strbuf_addf(damage, "corrupt gzip data at byte %zu of "
				    "%zu: %s", len - z.avail_in, len,
				    z.msg ? z.msg : "inflate failed");
		break;
	}
	inflateEnd(&z);
	free(scratch);
	return total;
}

/*
 * Inflate @in into @out. A gzip bomb must not cost memory: a first pass
 * only counts what comes out, through a 64 KiB buffer, and refuses data
 * that inflates to more than INGEST_MAX_MBOX_SIZE before anything is kept;
 * the second allocates exactly what the first counted and inflates into
 * it. Peak memory is then the compressed file plus the mbox, never the
 * cap: 2 GiB of zeros (2 MB of gzip) peak at 22 MB RSS, mmci's baseline
 * (tests/t0625-ingest-gzip-bomb.sh), where a buffer grown up to the cap
 * peaked at 1.1-1.6 GB. Inflating twice costs a lore thread of a few MB
 * some milliseconds. Return: 0, or -1 after error().
 */
static int gunzip(const char *path, const unsigned char *in, size_t len,
		  struct strbuf *out, struct strbuf *damage)
{
	unsigned long long total = inflate_pass(in, len, NULL, 0, damage);

	if (total > INGEST_MAX_MBOX_SIZE) {
		strbuf_reset(damage);
		return error("'%s' inflates to more than %llu bytes (a gzip "
			     "bomb?): refused, nothing of it is parsed",
			     path, INGEST_MAX_MBOX_SIZE);
	}
	/* exactly total + 1: strbuf_grow() would round up by half */
	strbuf_release(out);
	out->buf = xmalloc(total + 1);
	out->alloc = total + 1;
	if (inflate_pass(in, len, out->buf, total + 1, NULL) != total)
		BUG("'%s' inflated to another size the second time", path);
	out->len = total;
	out->buf[total] = '\0';
	return 0;
}

int mbox_read_file(const char *path, struct strbuf *out,
		   struct strbuf *damage)
{
	struct strbuf raw = STRBUF_INIT;

	if (strbuf_read_file(&raw, path, 0) < 0) {
		strbuf_release(&raw);
		return error_errno("cannot read '%s'", path);
	}
	if (raw.len >= 2 && (unsigned char)raw.buf[0] == 0x1f &&
	    (unsigned char)raw.buf[1] == 0x8b) {
		int ret = gunzip(path, (unsigned char *)raw.buf, raw.len, out,
				 damage);

		strbuf_release(&raw);
		return ret;
	}
	strbuf_release(out);
	*out = raw;
	return 0;
}

void ingest_report_release(struct ingest_report *rep)
{
	free(rep->problem);
	memset(rep, 0, sizeof(*rep));
}

/* sorted message ids of a thread, for lookups */
struct id_index {
	const char **ids;
	size_t *pos;	/* index into the mails, parallel to ids */
	size_t nr;
};

static int cmp_pos(const void *a, const void *b, void *ids)
{
	const char *const *all = ids;

	return strcmp(all[*(const size_t *)a], all[*(const size_t *)b]);
}

static void id_index_build(struct id_index *ix, const struct mail *mails,
			   size_t nr)
{
	const char **all = xcalloc(nr + 1, sizeof(*all));
	size_t i, n = 0;

	ix->pos = xcalloc(nr + 1, sizeof(*ix->pos));
	for (i = 0; i < nr; i++) {
		all[i] = mails[i].message_id;
		if (mails[i].message_id)
			ix->pos[n++] = i;
	}
	qsort_r(ix->pos, n, sizeof(*ix->pos), cmp_pos, all);
	ix->ids = xcalloc(n + 1, sizeof(*ix->ids));
	for (i = 0; i < n; i++)
		ix->ids[i] = all[ix->pos[i]];
	ix->nr = n;
	free(all);
}

/* the position of the mail with @id (the last one of duplicates), or -1 */
static long id_index_find(const struct id_index *ix, const char *id)
{
	size_t lo = 0, hi = ix->nr;

	if (!id)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->ids[mid], id);

		if (!c) {
			while (mid + 1 < ix->nr &&
			       !strcmp(ix->ids[mid + 1], id))
				mid++;
			return (long)ix->pos[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void id_index_release(struct id_index *ix)
{
	free(ix->ids);
	free(ix->pos);
	memset(ix, 0, sizeof(*ix));
}

enum mail_role { ROLE_OTHER, ROLE_COVER, ROLE_PATCH, ROLE_REPLY, ROLE_UNUSED };

static const char *const role_names[] = {
	[ROLE_OTHER] = "other", [ROLE_COVER] = "cover", [ROLE_PATCH] = "patch",
	[ROLE_REPLY] = "reply", [ROLE_UNUSED] = "unused-patch",
};

/* does @m answer (directly or through its ancestors) a mail of the series? */
static int answers_series(const struct mail *mails, const struct id_index *ix,
			  const enum mail_role *role, const struct mail *m)
{
	int depth;
	size_t i;

	for (depth = 0; m && depth < 64; depth++) {
		long p;

		for (i = 0; i < m->nr_references; i++) {
			p = id_index_find(ix, m->references[i]);
			if (p >= 0 && (role[p] == ROLE_COVER ||
				       role[p] == ROLE_PATCH))
				return 1;
		}
		p = id_index_find(ix, m->in_reply_to);
		if (p < 0)
			return 0;
		if (role[p] == ROLE_COVER || role[p] == ROLE_PATCH)
			return 1;
		m = &mails[p];
	}
	return 0;
}

static const char *const message_trailer_keys[] = {
	"Signed-off-by", "Acked-by", "Reviewed-by", "Tested-by", "Reported-by",
	"Suggested-by", "Co-developed-by", "Fixes", "Link", "Closes", "Cc",
};

/* the trailers in the last paragraph of a commit message, in order */
static void message_trailers(const char *msg, struct strbuf *out, size_t *nr)
{
	const char *last = msg, *p, *end = msg + strlen(msg);

	while (end > msg && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = msg; p < end; p++)
		if (p[0] == '\n' && p + 1 < end && p[1] == '\n')
			last = p + 2;
	for (p = last; p < end;) {
		const char *eol = memchr(p, '\n', end - p);
		size_t i, n;

		if (!eol)
			eol = end;
		n = eol - p;
		for (i = 0; i < ARRAY_SIZE(message_trailer_keys); i++) {
			size_t k = strlen(message_trailer_keys[i]);

			if (n > k + 2 &&
			    !strncasecmp(p, message_trailer_keys[i], k) &&
			    p[k] == ':' && p[k + 1] == ' ') {
				strbuf_add(out, p, n);
				strbuf_addch(out, '\0');
				(*nr)++;
				break;
			}
		}
		p = eol + 1;
	}
}

static int str_in(char **v, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static int store_patch_trailers(struct db *db, long long patch_id,
				const struct series *s,
				const struct series_patch *p)
{
	struct strbuf own = STRBUF_INIT;
	size_t i, nr_own = 0, idx = 0;
	const char *t;
	int ret = 0;

	message_trailers(p->message, &own, &nr_own);
	for (i = 0, t = own.buf; i < nr_own && !ret; i++, t += strlen(t) + 1)
		ret = db_run(db, "INSERT INTO patch_trailers (patch_id, idx, "
			     "origin, trailer) VALUES (?, ?, 'patch', ?)",
			     "iit", patch_id, (long long)idx++, t);
	for (i = 0; i < p->nr_trailers && !ret; i++)
		ret = db_run(db, "INSERT INTO patch_trailers (patch_id, idx, "
			     "origin, trailer) VALUES (?, ?, ?, ?)", "iitt",
			     patch_id, (long long)idx++,
			     str_in(s->cover_trailers, s->nr_cover_trailers,
				    p->trailers[i]) ? "cover" : "reply",
			     p->trailers[i]);
	strbuf_release(&own);
	return ret;
}

/*
 * The patches row, from a mail or a bundle: the diff's SHA-1 and git's
 * patch-id are computed here, whatever the source. 0 or -1.
 */
static int insert_patch_row(struct db *db, long long series_id,
			    const struct imported_patch *p,
			    const char *message_id)
{
	char *who = xstrfmt("%s <%s>", p->author_name, p->author_email);
	char dsha[41], pid[GIT_OID_HEXSZ + 1];
	int bad, has_pid;

	hash_hex(p->diff, strlen(p->diff), dsha);
	/* an unreadable diff has no patch-id; the patch is stored anyway */
	has_pid = !tree_patch_id_of_diff(p->diff, pid);
	/* what a job applies: ingest_load_stored() reads these back */
	bad = db_run(db, "INSERT INTO patches (series_id, idx, title, author, "
		     "message_id, diff_sha1, version, has_diff, patch_id, "
		     "author_name, author_email, date, commit_message, diff) "
		     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		     "iitttt" "iit" "ttitt",
		     series_id, (long long)p->idx, p->title, who, message_id,
		     dsha, (long long)p->version,
		     (long long)(*p->diff != '\0'), has_pid ? pid : NULL,
		     p->author_name, p->author_email, p->date,
		     p->commit_message, p->diff) < 0;
	free(who);
	return bad ? -1 : 0;
}

static int store_patch(struct db *db, long long series_id,
		       const struct series *s, const struct series_patch *p)
{
	char *msg = series_patch_full_message(p);
	struct imported_patch row = {
		.idx = p->index, .version = p->version, .title = p->title,
		.author_name = p->author_name,
		.author_email = p->author_email, .date = p->date,
		.commit_message = msg, .diff = p->diff,
	};
	int bad = insert_patch_row(db, series_id, &row, p->mail->message_id);

	free(msg);
	if (bad || store_patch_trailers(db, db_last_id(db), s, p) < 0)
		return -1;
	return 0;
}

int ingest_store_imported(struct db *db, const struct imported_series *s,
			  long long *series_id)
{
	size_t i;

	if (!s->title || !*s->title || s->version < 1 || s->total < 1 ||
	    s->total > SERIES_MAX_PATCHES || s->nr > (size_t)s->total)
		return error("an imported series needs a title, a version and "
			     "1..%d patches, at most its total",
			     SERIES_MAX_PATCHES);
	for (i = 0; i < s->nr; i++) {
		const struct imported_patch *p = &s->patches[i];

		if (p->idx < 1 || p->idx > s->total ||
		    (i && p->idx <= s->patches[i - 1].idx) || !p->title ||
		    !p->author_name || !p->author_email || !p->diff ||
		    !p->commit_message)
			return error("imported patch %zu: index %d of %d out "
				     "of order, or a field missing", i + 1,
				     p->idx, s->total);
	}
	if (db_run(db, "INSERT INTO series (title, version, total, is_rfc, "
		   "message_id, author, source, source_sha1, base_commit, "
		   "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tiiitttttd", s->title, (long long)s->version,
		   (long long)s->total, (long long)!!s->is_rfc, s->message_id,
		   s->author, s->source, s->source_sha1, s->base_commit,
		   (double)time(NULL)) < 0)
		return -1;
	*series_id = db_last_id(db);
	for (i = 0; i < s->nr; i++)
		if (insert_patch_row(db, *series_id, &s->patches[i],
				     NULL) < 0)
			return -1;
	return 0;
}

int ingest_record_apply(struct db *db, long long series_id,
			const char *base_ref, const char *base_commit,
			int upto, const char *head_commit, const char *why)
{
	if (upto < 1 || (!head_commit && !why))
		return error("series #%lld: an apply of %d patches with "
			     "neither a head nor an error", series_id, upto);
	return db_run(db, "INSERT INTO applies (series_id, base_ref, "
		      "base_commit, upto, head_commit, status, error, "
		      "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      "ittittt" "d", series_id, base_ref, base_commit,
		      (long long)upto, head_commit, head_commit ? "ok" :
		      "failed", head_commit ? NULL : why, (double)time(NULL));
}

/* "2,5": the indices of the missing patches, or NULL; points into @sb */
static const char *missing_list(const struct series *s, struct strbuf *sb)
{
	size_t i;

	strbuf_reset(sb);
	for (i = 0; i < s->nr_missing; i++)
		strbuf_addf(sb, "%s%d", i ? "," : "", s->missing[i]);
	return sb->len ? sb->buf : NULL;
}

static long long store_thread_series(struct db *db, const char *sha,
				     const struct ingest_source *src,
				     const struct series *s,
				     const char *damage)
{
	const struct mail *first = s->cover ? s->cover : s->patches[0].mail;
	struct strbuf problems = STRBUF_INIT, author = STRBUF_INIT;
	struct strbuf missing = STRBUF_INIT;
	long long id = -1;
	size_t i;

	if (damage)
		strbuf_addf(&problems, "%s\n", damage);
	for (i = 0; i < s->nr_problems; i++)
		strbuf_addf(&problems, "%s\n", s->problems[i]);
	strbuf_addf(&author, "%s <%s>", s->patches[0].author_name,
		    s->patches[0].author_email);
	if (db_run(db, "INSERT INTO series (title, version, total, message_id, "
		   "author, source, source_sha1, base_commit, problems, "
		   "ingested_at, source_url, fetched_at, is_rfc, nr_found, "
		   "missing) VALUES "
		   "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tiittttttdtdiit", s->title, (long long)s->version,
		   (long long)s->total, first->message_id, author.buf,
		   src->source, sha, s->base_commit,
		   problems.len ? problems.buf : NULL, (double)time(NULL),
		   src->url, src->fetched_at, (long long)s->is_rfc,
		   (long long)s->nr, missing_list(s, &missing)) < 0)
		goto out;
	id = db_last_id(db);
	for (i = 0; i < s->nr; i++) {
		if (store_patch(db, id, s, &s->patches[i]) < 0) {
			id = -1;
			goto out;
		}
	}
out:
	strbuf_release(&problems);
	strbuf_release(&author);
	strbuf_release(&missing);
	return id;
}

/* the per-mail note of a mail the series did not use */
static void unused_reason(const struct series *s, const struct mail *m,
			  struct strbuf *out)
{
	struct patch_subject ps;

	parse_patch_subject(m->subject, &ps);
	if (ps.version && ps.version < s->version)
		strbuf_addf(out, "not used: v%d, superseded by v%d",
			    ps.version, s->version);
	else if (ps.index && ps.total == s->total && ps.index <= s->total)
		strbuf_addf(out, "not used: another mail is patch %d/%d",
			    ps.index, ps.total);
	else
		strbuf_addstr(out, "not used: not part of the series");
	patch_subject_release(&ps);
}

static void note(struct strbuf *sb, const char *what)
{
	if (sb->len)
		strbuf_addstr(sb, "; ");
	strbuf_addstr(sb, what);
}

/*
 * Parse the mbox and find its series: 0, or -1 when it is not mail.
 * ls->s is released when the thread holds no series (rep->has_series 0).
 */
static int parse_thread(const char *buf, size_t len,
			const struct ingest_source *src,
			struct loaded_series *ls, struct ingest_report *rep,
			struct strbuf *tp)
{
	struct series *s = &ls->s;

	if (mbox_parse(buf, len, &ls->mails, &ls->nr_mails) < 0 ||
	    !ls->nr_mails) {
		if (src->damage)
			error("%s", src->damage);
		return error("'%s' is not mail", src->source);
	}
	rep->nr_messages = ls->nr_mails;
	if (src->damage) {
		struct mail *last = &ls->mails[ls->nr_mails - 1];
		char *was = last->problem;

		note(tp, src->damage);
		/* the damage cut the mbox inside or right after this mail */
		last->problem = xstrfmt("%s%sthe mbox ends here (%s)",
					was ? was : "", was ? "; " : "",
					src->damage);
		free(was);
	}
	/* series_from_mails() would call a thread without patches an error */
	rep->has_series = series_thread_has_patch(ls->mails, ls->nr_mails);
	if (rep->has_series)
		rep->has_series = !series_from_mails(ls->mails, ls->nr_mails,
						     s);
	if (!rep->has_series) {
		series_release(s);
		note(tp, "no patch series in the thread");
	}
	return 0;
}

/* what each mail is to the series; the trailer counts of the report */
static enum mail_role *classify_mails(const struct loaded_series *ls,
				      struct ingest_report *rep)
{
	const struct series *s = &ls->s;
	enum mail_role *role = xcalloc(ls->nr_mails, sizeof(*role));
	struct id_index ix = { 0 };
	size_t i, j;

	if (rep->has_series) {
		for (i = 0; i < ls->nr_mails; i++) {
			struct mail *m = &ls->mails[i];

			if (m == s->cover)
				role[i] = ROLE_COVER;
			for (j = 0; j < s->nr; j++)
				if (m == s->patches[j].mail)
					role[i] = ROLE_PATCH;
		}
		for (i = 0; i < s->nr; i++) {
			rep->nr_reply_trailers += s->patches[i].nr_trailers;
			for (j = 0; j < s->patches[i].nr_trailers; j++)
				rep->nr_cover_trailers +=
					str_in(s->cover_trailers,
					       s->nr_cover_trailers,
					       s->patches[i].trailers[j]);
		}
	}
	id_index_build(&ix, ls->mails, ls->nr_mails);
	for (i = 0; i < ls->nr_mails; i++) {
		struct patch_subject ps;
		const struct mail *m = &ls->mails[i];

		if (role[i] != ROLE_OTHER)
			continue;
		if (parse_patch_subject(m->subject, &ps) && !ps.is_reply &&
		    rep->has_series)
			role[i] = ROLE_UNUSED;
		else if (rep->has_series &&
			 answers_series(ls->mails, &ix, role, m))
			role[i] = ROLE_REPLY;
		patch_subject_release(&ps);
	}
	id_index_release(&ix);
	return role;
}

/* one row of messages per mail, with its role and problems: 0 or -1 */
static int store_messages(struct db *db, const struct loaded_series *ls,
			  const enum mail_role *role,
			  struct ingest_report *rep)
{
	const struct series *s = &ls->s;
	size_t i, j;

	for (i = 0; i < ls->nr_mails; i++) {
		const struct mail *m = &ls->mails[i];
		struct strbuf pb = STRBUF_INIT, from = STRBUF_INIT;
		int bad;

		if (m->problem)
			note(&pb, m->problem);
		if (!m->message_id && !(m->problem &&
					strstr(m->problem, "message-id")))
			note(&pb, "no message-id");
		if (role[i] == ROLE_UNUSED) {
			struct strbuf why = STRBUF_INIT;

			unused_reason(s, m, &why);
			note(&pb, why.buf);
			strbuf_release(&why);
		}
		for (j = 0; role[i] == ROLE_PATCH && j < s->nr; j++)
			if (s->patches[j].mail == m && !*s->patches[j].diff)
				note(&pb, "patch without a diff");
		if (*m->from_name)
			strbuf_addf(&from, "%s <%s>", m->from_name,
				    m->from_email);
		else
			strbuf_addstr(&from, m->from_email);
		bad = db_run(db, "INSERT INTO messages (thread_id, idx, "
			     "message_id, subject, from_addr, date, series_id, "
			     "role, problem, mbox_offset, mbox_length) VALUES "
			     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "iitttdIttii",
			     rep->thread_id, (long long)i, m->message_id,
			     m->subject, from.buf,
			     m->date ? (double)m->date : 0.0,
			     role[i] == ROLE_OTHER || role[i] == ROLE_UNUSED ?
			     0 : ls->id, role_names[role[i]],
			     pb.len ? pb.buf : NULL, (long long)m->offset,
			     (long long)m->length) < 0;
		rep->nr_problem_messages += pb.len != 0;
		strbuf_release(&pb);
		strbuf_release(&from);
		if (bad)
			return -1;
	}
	return 0;
}

/* a thread stored before: what the report says of it */
static void read_existing(struct db *db, struct loaded_series *ls,
			  struct ingest_report *rep)
{
	rep->existing = 1;
	ls->id = db_int(db, 0, "SELECT series_id FROM threads WHERE id = ?",
			"i", rep->thread_id);
	rep->nr_problem_messages = db_int(db, 0, "SELECT count(*) FROM "
			"messages WHERE thread_id = ? AND problem IS NOT NULL",
			"i", rep->thread_id);
	if (ls->id)
		read_previous(db, ls->id, &rep->previous);
}

/*
 * The thread, its series and its messages, in one transaction. "Stored
 * before?" is asked inside it: the same mbox read by ten processes at
 * once is stored once (asked before BEGIN IMMEDIATE, 7 to 10 copies
 * were). threads.source_sha1 and series.source_sha1 are unique
 * (schema/0009-unique-sha1.sql). 0 or -1 (nothing written).
 */
static int store_thread(struct db *db, const char *sha,
			const struct ingest_source *src,
			struct loaded_series *ls, const enum mail_role *role,
			struct ingest_report *rep)
{
	const struct series *s = &ls->s;
	struct strbuf missing = STRBUF_INIT;
	int found;

	ls->id = 0;
	if (db_begin(db) < 0)
		return -1;
	found = db_int_checked(db, &rep->thread_id, "SELECT id FROM threads "
			       "WHERE source_sha1 = ?", "t", sha);
	if (found < 0)
		goto rollback;
	if (found) {
		db_rollback(db);	/* nothing written */
		read_existing(db, ls, rep);
		return 0;
	}
	/* a series read from this very file (`mmci test-series FILE`) */
	found = !rep->has_series ? 0 :
		db_int_checked(db, &ls->id, "SELECT id FROM series WHERE "
			       "source_sha1 = ?", "t", sha);
	if (found < 0)
		goto rollback;
	if (found && db_run(db, "UPDATE series SET source_url = "
			    "coalesce(source_url, ?), fetched_at = "
			    "coalesce(fetched_at, ?), is_rfc = ?, nr_found = "
			    "?, missing = ? WHERE id = ?", "tdiiti", src->url,
			    src->fetched_at, (long long)s->is_rfc,
			    (long long)s->nr, missing_list(s, &missing),
			    ls->id) < 0)
		goto rollback;
	if (!found && rep->has_series) {
		ls->id = store_thread_series(db, sha, src, s, src->damage);
		if (ls->id < 0)
			goto rollback;
	}
	if (db_run(db, "INSERT INTO threads (source, source_url, cache_path, "
		   "source_sha1, fetched_at, nr_messages, series_id, problem, "
		   "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "tttt"
		   "diItd", src->source, src->url, src->cache_path, sha,
		   src->fetched_at, (long long)ls->nr_mails, ls->id,
		   rep->problem, (double)time(NULL)) < 0)
		goto rollback;
	rep->thread_id = db_last_id(db);
	if (store_messages(db, ls, role, rep) < 0)
		goto rollback;
	strbuf_release(&missing);
	return db_commit(db);
rollback:
	db_rollback(db);
	strbuf_release(&missing);
	return -1;
}

int ingest_thread(struct db *db, const char *buf, size_t len,
		  const struct ingest_source *src, struct loaded_series *ls,
		  struct ingest_report *rep)
{
	enum mail_role *role;
	struct strbuf tp = STRBUF_INIT;
	char sha[41];
	int n;

	memset(ls, 0, sizeof(*ls));
	memset(rep, 0, sizeof(*rep));
	hash_hex(buf, len, sha);
	if (parse_thread(buf, len, src, ls, rep, &tp) < 0) {
		strbuf_release(&tp);
		return -1;
	}
	role = classify_mails(ls, rep);
	if (tp.len)
		rep->problem = xstrdup(tp.buf);
	strbuf_release(&tp);
	if (store_thread(db, sha, src, ls, role, rep) < 0) {
		free(role);
		ls->id = 0;
		return -1;
	}
	free(role);
	if (ls->id > 0 && !rep->existing) {
		/* the rows are in: a failed link is reported, not fatal */
		if (ingest_link_versions(db, ls, rep) < 0)
			warning("series #%lld: versions not linked", ls->id);
		n = notice_link_series(db, ls->id);
		rep->nr_notices = n > 0 ? n : 0;
	}
	return 0;
}

/*
 * Versions of a series. The key of a series across versions is its title
 * without the tags, lower case, blanks collapsed, plus the author's
 * address; an explicit lore link in the cover letter wins over the key.
 */

static char *norm_title(const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	for (p = title ? title : ""; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
		} else {
			strbuf_addch(&sb, *p >= 'A' && *p <= 'Z' ?
				     *p - 'A' + 'a' : *p);
		}
	}
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

char *ingest_norm_title(const char *title)
{
	return norm_title(title);
}

/* the lower-case address of "Name <a@b>" (or of a bare address) */
static char *author_email(const char *author)
{
	const char *lt = author ? strrchr(author, '<') : NULL, *gt;
	char *e, *p;

	if (lt && (gt = strchr(lt, '>')))
		e = xstrndup(lt + 1, gt - lt - 1);
	else
		e = xstrdup(author ? author : "");
	for (p = e; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = *p - 'A' + 'a';
	return e;
}

/* rows stored before migration 5 get their key the first time it counts */
static int backfill_keys(struct db *db)
{
	sqlite3_stmt *st = db_query(db, "SELECT id, title, author FROM series "
				    "WHERE norm_title IS NULL", "");
	long long *ids = NULL;
	char **t = NULL, **a = NULL;
	size_t nr = 0, alloc = 0, alloc2 = 0, alloc3 = 0, i;
	int ret = 0, rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ALLOC_GROW(t, nr + 1, alloc2);
		ALLOC_GROW(a, nr + 1, alloc3);
		ids[nr] = sqlite3_column_int64(st, 0);
		t[nr] = norm_title(db_col_text(st, 1));
		a[nr] = author_email(db_col_text(st, 2));
		nr++;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		ret = -1;
	for (i = 0; i < nr; i++) {
		if (!ret && db_run(db, "UPDATE series SET norm_title = ?, "
				   "author_email = ? WHERE id = ?", "tti",
				   t[i], a[i], ids[i]) < 0)
			ret = -1;
		free(t[i]);
		free(a[i]);
	}
	free(ids);
	free(t);
	free(a);
	return ret;
}

static int own_msgid(const struct loaded_series *ls, const char *id)
{
	size_t i;

	for (i = 0; i < ls->nr_mails; i++)
		if (ls->mails[i].message_id &&
		    !strcmp(ls->mails[i].message_id, id))
			return 1;
	return 0;
}

/* lore links of the cover letter (or of patch 1) into series_links */
static int store_changelog_links(struct db *db, const struct loaded_series *ls)
{
	const struct mail *m = ls->s.cover ? ls->s.cover :
			       ls->s.patches[0].mail;
	const char *p = m->body.buf, *end = m->body.buf + m->body.len;
	size_t nr = 0;

	while (p < end && nr < INGEST_MAX_CHANGELOG_LINKS) {
		const char *h = memmem(p, end - p, "http", 4), *q;
		size_t len;
		char *id;

		if (!h)
			break;
		for (q = h; q < end && !strchr(" \t\n<>()[]\"'", *q); q++)
			;
		len = q - h;
		while (len && strchr(".,;:", h[len - 1]))
			len--;
		p = q;
		id = notice_lore_msgid(h, len);
		if (!id)
			continue;
		if (!own_msgid(ls, id) &&
		    !db_int(db, 0, "SELECT count(*) FROM series_links WHERE "
			    "series_id = ? AND message_id = ?", "it", ls->id,
			    id)) {
			char *url = xstrndup(h, len);
			int bad = db_run(db, "INSERT INTO series_links "
					 "(series_id, message_id, url) VALUES "
					 "(?, ?, ?)", "itt", ls->id, id,
					 url) < 0;

			free(url);
			if (bad) {
				free(id);
				return -1;
			}
			nr++;
		}
		free(id);
	}
	return 0;
}

/* the series (id, version) a query returns in its first row */
static int query_series(struct db *db, sqlite3_stmt *st, long long *id,
			int *version)
{
	int found;

	if (!st)
		return -1;
	found = db_step(db, st);
	if (found == DB_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*version = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return found;
}

static int find_previous(struct db *db, const struct loaded_series *ls,
			 const char *key, const char *email,
			 struct version_link *prev)
{
	sqlite3_stmt *st;
	long long id = 0;
	int v = 0, r, rc;

	memset(prev, 0, sizeof(*prev));
	st = db_query(db, "SELECT message_id FROM series_links WHERE "
		      "series_id = ?", "i", ls->id);
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		const char *m = db_col_text(st, 0);

		r = query_series(db, db_query(db,
			"SELECT id, version FROM series WHERE id != ?1 AND "
			"version < ?2 AND (message_id = ?3 OR id IN (SELECT "
			"series_id FROM patches WHERE message_id = ?3) OR id "
			"IN (SELECT series_id FROM messages WHERE message_id "
			"= ?3 AND series_id IS NOT NULL)) ORDER BY version "
			"DESC, id DESC LIMIT 1", "iit", ls->id,
			(long long)ls->s.version, m), &id, &v);
		if (r < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		if (r && v > prev->version) {
			prev->id = id;
			prev->version = v;
			prev->how = "changelog link";
		}
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	if (prev->id)
		return 0;
	r = query_series(db, db_query(db, "SELECT id, version FROM series "
		"WHERE id != ? AND version < ? AND norm_title = ? AND "
		"author_email = ? ORDER BY version DESC, id DESC LIMIT 1",
		"iitt", ls->id, (long long)ls->s.version, key, email), &id, &v);
	if (r < 0)
		return -1;
	if (r) {
		prev->id = id;
		prev->version = v;
		prev->how = "subject+author";
	}
	return 0;
}

/* newer series (by link or key) whose previous one is missing or older */
static int link_newer(struct db *db, const struct loaded_series *ls,
		      const char *sql, const char *types, const char *a,
		      const char *b, const char *how, struct ingest_report *rep)
{
	sqlite3_stmt *st = db_query(db, sql, types, (long long)ls->s.version,
				    a, b);
	long long ids[16];
	int vers[16], n = 0, i, rc = DB_DONE;

	if (!st)
		return -1;
	while (n < 16 && (rc = db_step(db, st)) == DB_ROW) {
		ids[n] = sqlite3_column_int64(st, 0);
		vers[n++] = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (ids[i] == ls->id)
			continue;
		if (db_run(db, "UPDATE series SET previous_id = ?, "
			   "previous_how = ? WHERE id = ?", "iti", ls->id, how,
			   ids[i]) < 0)
			return -1;
		if (!rep->next.id) {
			rep->next.id = ids[i];
			rep->next.version = vers[i];
			rep->next.how = how;
		}
		rep->nr_next++;
	}
	return 0;
}

/* a newer one qualifies if it has no previous or an older previous one */
#define NEWER_FREE "(s.previous_id IS NULL OR (SELECT version FROM series " \
	"WHERE id = s.previous_id) < ?1)"

int ingest_link_versions(struct db *db, const struct loaded_series *ls,
			 struct ingest_report *rep)
{
	char *key, *email, *author;
	size_t i;
	int ret = -1;

	if (!ls->id || !ls->s.nr)
		return 0;
	key = norm_title(ls->s.title);
	author = xstrfmt("<%s>", ls->s.patches[0].author_email);
	email = author_email(author);
	free(author);
	if (db_begin(db) < 0)
		goto out;
	if (backfill_keys(db) < 0 ||
	    db_run(db, "UPDATE series SET norm_title = ?, author_email = ? "
		   "WHERE id = ?", "tti", key, email, ls->id) < 0 ||
	    store_changelog_links(db, ls) < 0 ||
	    find_previous(db, ls, key, email, &rep->previous) < 0)
		goto rollback;
	if (rep->previous.id &&
	    db_run(db, "UPDATE series SET previous_id = ?, previous_how = ? "
		   "WHERE id = ?", "iti", rep->previous.id, rep->previous.how,
		   ls->id) < 0)
		goto rollback;
	/* newer versions that link to a mail of this thread */
	for (i = 0; i < ls->nr_mails; i++) {
		if (!ls->mails[i].message_id)
			continue;
		if (link_newer(db, ls, "SELECT DISTINCT s.id, s.version FROM "
			       "series_links l JOIN series s ON s.id = "
			       "l.series_id WHERE l.message_id = ?2 AND "
			       "s.version > ?1 AND ?3 IS NOT NULL AND "
			       NEWER_FREE " ORDER BY s.version, s.id", "itt",
			       ls->mails[i].message_id, "", "changelog link",
			       rep) < 0)
			goto rollback;
	}
	if (link_newer(db, ls, "SELECT s.id, s.version FROM series s WHERE "
		       "s.norm_title = ?2 AND s.author_email = ?3 AND "
		       "s.version > ?1 AND " NEWER_FREE " AND NOT EXISTS "
		       "(SELECT 1 FROM series_links l WHERE l.series_id = "
		       "s.id AND l.message_id IN (SELECT message_id FROM "
		       "messages WHERE series_id = s.previous_id)) ORDER BY "
		       "s.version, s.id", "itt", key, email, "subject+author",
		       rep) < 0)
		goto rollback;
	if (db_commit(db) < 0)
		goto out;
	ret = 0;
	goto out;
rollback:
	db_rollback(db);
out:
	free(key);
	free(email);
	return ret;
}

/* what an earlier ingest linked, for the summary of a repeated one */
static void read_previous(struct db *db, long long id, struct version_link *prev)
{
	sqlite3_stmt *st = db_query(db, "SELECT p.id, p.version, "
				    "s.previous_how FROM series s JOIN series "
				    "p ON p.id = s.previous_id WHERE s.id = ?",
				    "i", id);

	memset(prev, 0, sizeof(*prev));
	if (!st)
		return;
	/* a failure is said; the summary then names no previous version */
	if (db_step(db, st) == DB_ROW) {
		const char *how = db_col_text(st, 2);

		prev->id = sqlite3_column_int64(st, 0);
		prev->version = sqlite3_column_int(st, 1);
		prev->how = !strcmp(how, "changelog link") ? "changelog link" :
			    "subject+author";
	}
	sqlite3_finalize(st);
}

void series_row_release(struct series_row *r)
{
	free(r->title);
	free(r->base_commit);
	free(r->message_id);
	free(r->author);
	free(r->source);
	free(r->cache_path);
	free(r->missing);
	memset(r, 0, sizeof(*r));
}

/* the lowest number of "3,5" (series.missing), 0 when there is none */
static int first_of_list(const char *list)
{
	int low = 0;

	while (*list) {
		char *end;
		long v = strtol(list, &end, 10);

		if (end == list)
			break;
		if (v > 0 && v <= SERIES_MAX_PATCHES && (!low || v < low))
			low = (int)v;
		list = end + (*end == ',');
	}
	return low;
}

int series_row_load(struct db *db, long long id, struct series_row *r)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT title, version, total, is_rfc, base_commit, "
		"coalesce(missing, ''), message_id, author, source, "
		"(SELECT cache_path FROM threads WHERE series_id = s.id AND "
		"cache_path IS NOT NULL ORDER BY id DESC LIMIT 1) "
		"FROM series s WHERE id = ?", "i", id);
	int ret = -1, rc;

	memset(r, 0, sizeof(*r));
	r->id = id;
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		r->title = xstrdup(db_col_text(st, 0));
		r->version = sqlite3_column_int(st, 1);
		r->total = sqlite3_column_int(st, 2);
		r->is_rfc = sqlite3_column_int(st, 3);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			r->base_commit = xstrdup(db_col_text(st, 4));
		r->missing = xstrdup(db_col_text(st, 5));
		r->first_missing = first_of_list(r->missing);
		r->message_id = xstrdup(db_col_text(st, 6));
		r->author = xstrdup(db_col_text(st, 7));
		r->source = xstrdup(db_col_text(st, 8));
		r->cache_path = xstrdup(db_col_text(st, 9));
		ret = 0;
	} else if (rc == DB_DONE) {
		error("no series #%lld", id);
	}
	sqlite3_finalize(st);
	return ret;
}

char *series_row_partial(const struct series_row *row)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = row->missing;
	int n = 0;

	strbuf_addstr(&sb, "patch(es) ");
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		strbuf_addf(&sb, "%s%ld/%d", n++ ? ", " : "", v, row->total);
		p = end + (*end == ',');
	}
	if (row->first_missing > 2)
		strbuf_addf(&sb, " never arrived; measured: patches 1-%d of %d",
			    row->first_missing - 1, row->total);
	else if (row->first_missing == 2)
		strbuf_addf(&sb, " never arrived; measured: patch 1 of %d",
			    row->total);
	else
		strbuf_addstr(&sb, " never arrived; nothing to measure");
	return strbuf_detach(&sb, NULL);
}

/*
 * The series of @row from its typed rows (migration 14), without a mail
 * parser: 1 when loaded, 0 when its rows predate them, -1 after error().
 * A series some of whose patches never arrived is loaded as far as it
 * goes: the patches before the first missing one (ls->partial says so);
 * without patch 1 there is nothing to apply, an error.
 */
static int load_stored_rows(struct db *db, const struct series_row *row,
			    struct loaded_series *ls)
{
	struct series *s = &ls->s;
	sqlite3_stmt *st;
	size_t alloc = 0;
	long long texts = -1;
	int rc, want = row->first_missing ? row->first_missing - 1 :
					     row->total;

	if (!row->total)
		return 0;
	if (row->first_missing == 1)
		return error("series #%lld '%s': patch 1/%d never arrived: "
			     "there is nothing to apply", row->id, row->title,
			     row->total);
	if (db_int_checked(db, &texts, "SELECT count(*) FROM patches WHERE "
			   "series_id = ? AND idx <= ? AND diff IS NOT NULL "
			   "AND commit_message IS NOT NULL", "ii", row->id,
			   (long long)want) < 0)
		return -1;
	if (texts != want)
		return 0;
	s->title = xstrdup(row->title);
	s->version = row->version;
	s->total = row->total;
	s->is_rfc = row->is_rfc;
	if (row->base_commit)
		s->base_commit = xstrdup(row->base_commit);
	st = db_query(db, "SELECT idx, coalesce(version, 0), title, "
		      "author_name, author_email, date, commit_message, diff "
		      "FROM patches WHERE series_id = ? AND idx <= ? ORDER BY "
		      "idx", "ii", row->id, (long long)want);
	if (!st) {
		series_release(s);
		return -1;
	}
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct series_patch *p;

		ALLOC_GROW(s->patches, s->nr + 1, alloc);
		p = &s->patches[s->nr++];
		memset(p, 0, sizeof(*p));
		p->index = sqlite3_column_int(st, 0);
		p->version = sqlite3_column_int(st, 1);
		p->title = xstrdup(db_col_text(st, 2));
		p->author_name = xstrdup(db_col_text(st, 3));
		p->author_email = xstrdup(db_col_text(st, 4));
		p->date = (time_t)sqlite3_column_int64(st, 5);
		p->message = xstrdup(db_col_text(st, 6));
		p->diff = xstrdup(db_col_text(st, 7));
	}
	sqlite3_finalize(st);
	if (rc < 0 || s->nr != (size_t)want) {
		series_release(s);
		return rc < 0 ? -1 : 0;
	}
	ls->id = row->id;
	if (row->first_missing)
		ls->partial = series_row_partial(row);
	return 1;
}

int ingest_load_stored(struct db *db, long long series_id,
		       struct loaded_series *ls)
{
	struct strbuf mbox = STRBUF_INIT, damage = STRBUF_INIT;
	struct series_row row;
	const char *path;
	int ret = -1, rc;

	memset(ls, 0, sizeof(*ls));
	if (series_row_load(db, series_id, &row) < 0)
		return -1;
	rc = load_stored_rows(db, &row, ls);
	if (rc) {
		series_row_release(&row);
		return rc < 0 ? -1 : 0;
	}
	log_info("series #%lld was stored before migration 14: reading its "
		 "thread again", series_id);
	/* a thread fetched or read whole, else the file the series came from */
	path = *row.cache_path ? row.cache_path : row.source;
	if (geteuid() == 0) {
		/*
		 * the row is the service user's to write: as root, read only
		 * a thread the fetches cached, below <data>/fetch
		 */
		struct mmci_config cfg;
		char *fetch, *proc;
		int fd;

		config_load(&cfg);
		fetch = xstrfmt("%s/fetch", cfg.data_dir);
		fd = open_beneath(fetch, path);
		if (fd < 0) {
			error("series #%lld: its thread '%s' is not a file "
			      "below %s (%s), which is all root reads of a "
			      "row's path; not read (ingest the series again)",
			      series_id, path, fetch,
			      errno == EXDEV ? "outside it" :
			      errno == ELOOP ? "a symbolic link on the way" :
			      strerror(errno));
			free(fetch);
			config_release(&cfg);
			goto out;
		}
		free(fetch);
		config_release(&cfg);
		proc = xstrfmt("/proc/self/fd/%d", fd);
		rc = mbox_read_file(proc, &mbox, &damage);
		free(proc);
		close(fd);
		if (rc < 0)
			goto out;
	} else if (mbox_read_file(path, &mbox, &damage) < 0) {
		goto out;
	}
	if (mbox_parse(mbox.buf, mbox.len, &ls->mails, &ls->nr_mails)) {
		error("cannot parse '%s', the mails of series #%lld", path,
		      series_id);
		goto out;
	}
	if (series_from_mails(ls->mails, ls->nr_mails, &ls->s) < 0) {
		error("'%s' holds no series any more (series #%lld)", path,
		      series_id);
		goto out;
	}
	if (ls->s.nr_missing) {
		error("series #%lld '%s' is missing %zu patch(es): it cannot "
		      "be applied", series_id, ls->s.title, ls->s.nr_missing);
		goto out;
	}
	ls->id = series_id;
	ret = 0;
out:
	series_row_release(&row);
	strbuf_release(&mbox);
	strbuf_release(&damage);
	return ret;
}
