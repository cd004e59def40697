// SPDX-License-Identifier: GPL-2.0
/*
 * notice.c - mm-commits notices to rows, linked to the patches they name.
 *
 * Workload: a few dozen notices a day on mm-commits, each a few KiB; one
 * pass over the lines of each. The wording assumed is in notice.h. The
 * mails are untrusted: every field is bounded by the mail itself, lists by
 * NOTICE_MAX_*, and anything missing becomes n->problem, never a failure.
 */
#include <time.h>

#include "db.h"
#include "mbox.h"
#include "notice.h"
#include "strbuf.h"
#include "util.h"

const char *notice_action_name(enum notice_action a)
{
	switch (a) {
	case NOTICE_ADDED: return "added";
	case NOTICE_REMOVED: return "removed";
	case NOTICE_MERGED: return "merged";
	}
	BUG("unknown notice action %d", (int)a);
}

void notice_release(struct notice *n)
{
	size_t i;

	free(n->branch);
	free(n->filename);
	free(n->title);
	free(n->reason);
	free(n->author);
	for (i = 0; i < n->nr_links; i++)
		free(n->links[i]);
	free(n->links);
	for (i = 0; i < n->nr_signoffs; i++)
		free(n->signoffs[i]);
	free(n->signoffs);
	free(n->problem);
	memset(n, 0, sizeof(*n));
}

char *notice_lore_msgid(const char *url, size_t len)
{
	static const char *const hosts[] = {
		"lore.kernel.org/", "lkml.kernel.org/", "patch.msgid.link/",
	};
	const char *p = url, *end = url + len, *seg;
	struct strbuf id = STRBUF_INIT;
	size_t i, n;

	if (len > 7 && !strncmp(p, "http://", 7))
		p += 7;
	else if (len > 8 && !strncmp(p, "https://", 8))
		p += 8;
	else
		return NULL;
	for (i = 0; i < ARRAY_SIZE(hosts); i++) {
		n = strlen(hosts[i]);
		if ((size_t)(end - p) > n && !strncasecmp(p, hosts[i], n))
			break;
	}
	if (i == ARRAY_SIZE(hosts))
		return NULL;
	p += n;
	/* the first path segment holding an '@': LIST/MSGID, r/MSGID, MSGID */
	for (seg = p; seg < end; seg = p + 1) {
		const char *q;

		p = memchr(seg, '/', end - seg);
		if (!p)
			p = end;
		for (q = seg; q < p && *q != '?' && *q != '#'; q++)
			;
		if (memchr(seg, '@', q - seg) ||
		    (q - seg > 3 && memmem(seg, q - seg, "%40", 3))) {
			for (; seg < q; seg++) {
				int hi, lo;

				if (*seg == '%' && q - seg >= 3 &&
				    (hi = hex_digit(seg[1])) >= 0 &&
				    (lo = hex_digit(seg[2])) >= 0) {
					strbuf_addch(&id, hi * 16 + lo);
					seg += 2;
				} else {
					strbuf_addch(&id, *seg);
				}
			}
			break;
		}
		if (q < p || p == end)
			break;
	}
	/* a message id has no blanks, controls or NULs */
	for (i = 0; i < id.len; i++)
		if ((unsigned char)id.buf[i] <= ' ' || id.buf[i] == '<' ||
		    id.buf[i] == '>')
			break;
	if (!id.len || i < id.len || !strchr(id.buf, '@')) {
		strbuf_release(&id);
		return NULL;
	}
	return strbuf_detach(&id, NULL);
}

/* the subject: action, file name and branch */
static int parse_subject(const char *subj, struct notice *n)
{
	const char *p, *sp, *rest;
	char *branch = NULL;

	if (skip_prefix(subj, "+ ", &p)) {
		n->action = NOTICE_ADDED;
	} else if (skip_prefix(subj, "- ", &p)) {
		n->action = NOTICE_REMOVED;
	} else if (skip_prefix(subj, "[merged ", &p)) {
		const char *close = strchr(p, ']');

		if (!close || close == p || memchr(p, ' ', close - p) ||
		    close[1] != ' ')
			return 0;
		n->action = NOTICE_MERGED;
		branch = xstrndup(p, close - p);
		p = close + 2;
	} else {
		return 0;
	}
	sp = strchr(p, ' ');
	if (!sp || sp == p)
		goto no;
	rest = sp + 1;
	if (n->action == NOTICE_ADDED) {
		const char *b;

		if (!strcmp(rest, "added to -mm tree")) {
			/* the old wording: no branch */
		} else if (skip_prefix(rest, "added to ", &b) &&
			   ends_with(b, " branch") && strlen(b) > 7 &&
			   !memchr(b, ' ', strlen(b) - 7)) {
			branch = xstrndup(b, strlen(b) - 7);
		} else {
			goto no;
		}
	} else if (strcmp(rest, "removed from -mm tree")) {
		goto no;
	}
	n->filename = xstrndup(p, sp - p);
	n->branch = branch;
	return 1;
no:
	free(branch);
	return 0;
}

static void add_problem(struct notice *n, const char *what)
{
	char *was = n->problem;

	n->problem = xstrfmt("%s%s%s", was ? was : "", was ? "; " : "", what);
	free(was);
}

/* one line of the body, without its "\n" and trailing blanks */
struct line {
	const char *p;
	size_t len;
};

static int next_line(const char **pos, const char *end, struct line *l)
{
	const char *eol;

	if (*pos >= end)
		return 0;
	eol = memchr(*pos, '\n', end - *pos);
	if (!eol)
		eol = end;
	l->p = *pos;
	l->len = eol - *pos;
	while (l->len && (l->p[l->len - 1] == ' ' || l->p[l->len - 1] == '\t' ||
			  l->p[l->len - 1] == '\r'))
		l->len--;
	*pos = eol < end ? eol + 1 : end;
	return 1;
}

static void line_ltrim(struct line *l)
{
	while (l->len && (*l->p == ' ' || *l->p == '\t')) {
		l->p++;
		l->len--;
	}
}

static int line_skip(const struct line *l, const char *prefix, struct line *rest)
{
	size_t n = strlen(prefix);

	if (l->len < n || strncmp(l->p, prefix, n))
		return 0;
	rest->p = l->p + n;
	rest->len = l->len - n;
	line_ltrim(rest);
	return 1;
}

/* the next non-blank line, trimmed */
static int next_text_line(const char **pos, const char *end, struct line *l)
{
	while (next_line(pos, end, l)) {
		line_ltrim(l);
		if (l->len)
			return 1;
	}
	return 0;
}

/* "Name <a@b>" of a trailer, blanks and a "# comment" cut off */
static char *trailer_value(const struct line *v)
{
	size_t len = v->len;
	const char *gt = memchr(v->p, '>', len);

	if (gt)
		len = gt - v->p + 1;
	return xstrndup(v->p, len);
}

/* the Link: lines and Signed-off-by: of the commit, up to its "---" */
static void parse_commit(const char *pos, const char *end, struct notice *n)
{
	size_t alloc_l = 0, alloc_s = 0;
	struct line l, v;
	char *title = NULL;
	int in_header = 1;

	while (next_line(&pos, end, &l)) {
		if (l.len == 3 && !strncmp(l.p, "---", 3))
			break;
		if (in_header && !l.len) {
			in_header = 0;
			continue;
		}
		if (in_header && !n->author && line_skip(&l, "From:", &v)) {
			n->author = xstrndup(v.p, v.len);
		} else if (in_header && !title && line_skip(&l, "Subject:", &v)) {
			title = xstrndup(v.p, v.len);
		} else if (line_skip(&l, "Link:", &v)) {
			size_t k = 0;
			char *id;

			while (k < v.len && v.p[k] != ' ' && v.p[k] != '\t' &&
			       v.p[k] != '>')
				k++;
			id = notice_lore_msgid(v.p, k);
			if (!id)
				continue;
			if (n->nr_links == NOTICE_MAX_LINKS) {
				free(id);
				continue;
			}
			ALLOC_GROW(n->links, n->nr_links + 1, alloc_l);
			n->links[n->nr_links++] = id;
		} else if (line_skip(&l, "Signed-off-by:", &v) && v.len &&
			   n->nr_signoffs < NOTICE_MAX_SIGNOFFS) {
			ALLOC_GROW(n->signoffs, n->nr_signoffs + 1, alloc_s);
			n->signoffs[n->nr_signoffs++] = trailer_value(&v);
		}
	}
	if (!n->title && title) {
		n->title = title;
		title = NULL;
	}
	free(title);
}

static int line_has(const struct line *l, const char *what)
{
	return memmem(l->p, l->len, what, strlen(what)) != NULL;
}

static int is_dashes(const struct line *l)
{
	size_t i;

	if (l->len < 20)
		return 0;
	for (i = 0; i < l->len; i++)
		if (l->p[i] != '-')
			return 0;
	return 1;
}

int notice_parse(const char *subject, const char *body, struct notice *n)
{
	const char *pos = body ? body : "", *end = pos + strlen(pos);
	const char *commit = NULL;
	struct line l, v;
	char *file = NULL;

	memset(n, 0, sizeof(*n));
	if (!subject || !parse_subject(subject, n))
		return 0;
	while (next_line(&pos, end, &l)) {
		if (is_dashes(&l)) {
			commit = pos;
			break;
		}
		if (!n->title && (line_skip(&l, "The patch titled", &v) ||
				  line_skip(&l, "The quilt patch titled", &v))) {
			if (next_text_line(&pos, end, &l) &&
			    line_skip(&l, "Subject:", &v) && v.len)
				n->title = xstrndup(v.p, v.len);
		} else if (!file && (line_has(&l, "Its filename is") ||
				     line_has(&l, "Its filename was"))) {
			if (next_text_line(&pos, end, &l))
				file = xstrndup(l.p, l.len);
		} else if (!n->reason &&
			   line_skip(&l, "This patch was dropped because", &v)) {
			struct strbuf r = STRBUF_INIT;

			strbuf_add(&r, v.p, v.len);
			while (next_line(&pos, end, &l) && l.len) {
				line_ltrim(&l);
				strbuf_addch(&r, ' ');
				strbuf_add(&r, l.p, l.len);
			}
			n->reason = strbuf_detach(&r, NULL);
		}
	}
	if (commit)
		parse_commit(commit, end, n);
	else
		add_problem(n, "no commit after the notice text");
	if (!file)
		add_problem(n, "no \"Its filename is\" line");
	else if (strcmp(file, n->filename))
		add_problem(n, "the subject and the text name other files");
	free(file);
	if (!n->title) {
		add_problem(n, "no patch title");
		n->title = xstrdup(n->filename);
	}
	if (n->action == NOTICE_MERGED && n->reason) {
		const char *m = strstr(n->reason, "merged into the ");

		/* "... merged into the mm-stable branch of git://..." */
		if (m) {
			const char *b = m + 16, *e = strchr(b, ' ');

			if (e && !strncmp(e, " branch", 7) &&
			    (!n->branch || strncmp(n->branch, b, e - b) ||
			     n->branch[e - b]))
				add_problem(n, "the subject and the text name "
					    "other branches");
		}
	}
	if (commit && !n->nr_links)
		add_problem(n, "no Link: to lore");
	return 1;
}

/* where a patch row lives */
static int find_patch(struct db *db, const char *sql, const char *key,
		      struct notice_link *out)
{
	sqlite3_stmt *st = db_query(db, sql, "t", key);
	int found;

	if (!st)
		return -1;
	found = db_step(db, st);
	if (found == DB_ROW) {
		out->patch_id = sqlite3_column_int64(st, 0);
		out->series_id = sqlite3_column_int64(st, 1);
		out->patch_idx = sqlite3_column_int(st, 2);
		out->series_total = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	return found;
}

static int notice_find_link(struct db *db, const struct notice *n,
			    struct notice_link *out)
{
	size_t i;
	int r;

	for (i = 0; i < n->nr_links; i++) {
		r = find_patch(db, "SELECT p.id, p.series_id, p.idx, s.total "
			       "FROM patches p JOIN series s ON s.id = "
			       "p.series_id WHERE p.message_id = ? ORDER BY "
			       "p.id DESC LIMIT 1", n->links[i], out);
		if (r < 0)
			return -1;
		if (r) {
			out->how = "message-id";
			return 0;
		}
	}
	r = find_patch(db, "SELECT p.id, p.series_id, p.idx, s.total FROM "
		       "patches p JOIN series s ON s.id = p.series_id WHERE "
		       "p.title = ? ORDER BY p.id DESC LIMIT 1", n->title, out);
	if (r < 0)
		return -1;
	if (r)
		out->how = "subject";
	return 0;
}

int notice_store(struct db *db, const struct notice *n,
		 const struct mail *mail, long long thread_id,
		 struct notice_link *out)
{
	struct strbuf links = STRBUF_INIT, sobs = STRBUF_INIT;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (mail->message_id) {
		sqlite3_stmt *st = db_query(db, "SELECT id, patch_id, "
					    "series_id, link_how FROM notices "
					    "WHERE message_id = ? ORDER BY id "
					    "LIMIT 1", "t", mail->message_id);
		int rc;

		if (!st)
			return -1;
		rc = db_step(db, st);
		if (rc == DB_ROW)
			out->notice_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (rc < 0)
			return -1;
		if (out->notice_id) {
			out->existing = 1;
			/* it may have been linked since: look again */
			if (notice_find_link(db, n, out) < 0)
				return -1;
			return 0;
		}
	}
	if (notice_find_link(db, n, out) < 0)
		return -1;
	for (i = 0; i < n->nr_links; i++)
		strbuf_addf(&links, "%s\n", n->links[i]);
	for (i = 0; i < n->nr_signoffs; i++)
		strbuf_addf(&sobs, "%s\n", n->signoffs[i]);
	if (db_begin(db) < 0)
		goto out;
	if (db_run(db, "INSERT INTO notices (message_id, thread_id, action, "
		   "branch, title, filename, reason, author, signed_off_by, "
		   "links, patch_id, series_id, link_how, problem, date, "
		   "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?)", "tIttttttttIIttdd", mail->message_id, thread_id,
		   notice_action_name(n->action), n->branch, n->title,
		   n->filename, n->reason, n->author,
		   sobs.len ? sobs.buf : NULL, links.len ? links.buf : NULL,
		   out->patch_id, out->series_id, out->how, n->problem,
		   (double)mail->date, (double)time(NULL)) < 0)
		goto rollback;
	out->notice_id = db_last_id(db);
	for (i = 0; i < n->nr_links; i++)
		if (db_run(db, "INSERT INTO notice_links (notice_id, "
			   "message_id) VALUES (?, ?)", "it", out->notice_id,
			   n->links[i]) < 0)
			goto rollback;
	if (db_commit(db) < 0)
		goto out;
	ret = 0;
	goto out;
rollback:
	db_rollback(db);
out:
	strbuf_release(&links);
	strbuf_release(&sobs);
	return ret;
}

int notice_link_series(struct db *db, long long series_id)
{
	if (db_run(db, "UPDATE notices SET patch_id = (SELECT p.id FROM "
		   "notice_links l JOIN patches p ON p.message_id = "
		   "l.message_id WHERE l.notice_id = notices.id AND "
		   "p.series_id = ?1 ORDER BY p.idx LIMIT 1), series_id = ?1, "
		   "link_how = 'message-id' WHERE (patch_id IS NULL OR "
		   "link_how = 'subject') AND id IN (SELECT l.notice_id FROM "
		   "notice_links l JOIN patches p ON p.message_id = "
		   "l.message_id WHERE p.series_id = ?1)", "i", series_id) < 0)
		return -1;
	return sqlite3_changes(db->handle);
}
