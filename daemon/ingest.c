// SPDX-License-Identifier: GPL-2.0
/*
 * ingest.c - series files to rows, rows to commits.
 */
#include <time.h>

#include "apply.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

void loaded_series_release(struct loaded_series *ls)
{
	series_release(&ls->s);
	mails_free(ls->mails, ls->nr_mails);
	memset(ls, 0, sizeof(*ls));
}

static int store_series(struct db *db, const char *path, const char *sha,
			struct loaded_series *ls)
{
	const struct series *s = &ls->s;
	const struct mail *first = s->cover ? s->cover : s->patches[0].mail;
	struct strbuf problems = STRBUF_INIT, author = STRBUF_INIT;
	size_t i;

	for (i = 0; i < s->nr_problems; i++)
		strbuf_addf(&problems, "%s\n", s->problems[i]);
	strbuf_addf(&author, "%s <%s>", s->patches[0].author_name,
		    s->patches[0].author_email);
	if (db_begin(db) < 0)
		goto fail;
	if (db_run(db, "INSERT INTO series (title, version, total, message_id, "
		   "author, source, source_sha1, base_commit, problems, "
		   "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tiittttttd", s->title, (long long)s->version,
		   (long long)s->total, first->message_id, author.buf, path,
		   sha, s->base_commit, problems.len ? problems.buf : NULL,
		   (double)time(NULL)) < 0)
		goto rollback;
	ls->id = db_last_id(db);
	for (i = 0; i < s->nr; i++) {
		const struct series_patch *p = &s->patches[i];
		char *who = xstrfmt("%s <%s>", p->author_name, p->author_email);
		char dsha[41];
		int bad;

		hash_hex(p->diff, strlen(p->diff), dsha);
		bad = db_run(db, "INSERT INTO patches (series_id, idx, title, "
			     "author, message_id, diff_sha1) VALUES "
			     "(?, ?, ?, ?, ?, ?)", "iittt" "t", ls->id,
			     (long long)p->index, p->title, who,
			     p->mail->message_id, dsha) < 0;
		free(who);
		if (bad)
			goto rollback;
	}
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
	ls->id = db_int(db, 0, "SELECT id FROM series WHERE source_sha1 = ? "
			"ORDER BY id LIMIT 1", "t", sha);
	if (!ls->id && store_series(db, path, sha, ls) < 0)
		return -1;
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
	db_run(db, "INSERT INTO applies (series_id, base_ref, base_commit, "
	       "upto, head_commit, status, error, created_at) VALUES "
	       "(?, ?, ?, ?, ?, ?, ?, ?)", "ittittt" "d", ls->id, base_ref,
	       base_hex, (long long)upto, ret ? NULL : head_hex,
	       ret ? "failed" : "ok", ret ? last_error() : NULL,
	       (double)time(NULL));
	for (i = 0; i < upto; i++)
		free(msgs[i]);
	free(msgs);
	free(ap);
	return ret;
}
