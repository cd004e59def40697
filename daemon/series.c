// SPDX-License-Identifier: GPL-2.0
/*
 * series.c - patch subjects, series assembly, commit message and diff
 * extraction, and review trailers from replies.
 *
 * Input: the mails of one lore thread (tens to hundreds of mails), already
 * decoded by mbox.c. Message ids are looked up through a sorted index;
 * everything else is a linear pass over the thread. The rules follow what
 * `git am` and b4 do, so a series applies the way its author meant:
 *  - the commit message is the subject's title, a blank line, and the body
 *    up to the "---" line; in-body "From:", "Date:" and "Subject:" lines at
 *    the top of the body (or in an attached format-patch) override the
 *    mail's;
 *  - the diff is kept line by line, counting hunk lines, so the "-- "
 *    signature and text after the last hunk are left out;
 *  - trailers count only when not quoted, before the signature, in a
 *    paragraph that has a "*-by:" line.
 */
#include <ctype.h>
#include <stdarg.h>
#include <strings.h>

#include "mbox.h"
#include "series.h"
#include "strbuf.h"
#include "util.h"

/* ------------------------------------------------------------- subjects */

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* "Re:", "RE:", "Fwd:", "Aw:", "Re[2]:" at @s: return what follows, or NULL */
static const char *skip_reply_prefix(const char *s)
{
	static const char *const words[] = { "re", "fwd", "fw", "aw", "sv",
					     "antw" };
	size_t n = 0, i;

	while (isalpha((unsigned char)s[n]))
		n++;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == n && !strncasecmp(s, words[i], n))
			break;
	if (i == ARRAY_SIZE(words))
		return NULL;
	s += n;
	if (*s == '[') {
		while (isdigit((unsigned char)*++s))
			;
		if (*s++ != ']')
			return NULL;
	}
	if (*s != ':')
		return NULL;
	return s + 1;
}

/* "v3", "V3": the number, or 0 */
static int version_word(const char *w, size_t n)
{
	size_t i;
	int v = 0;

	if (n < 2 || n > 6 || (w[0] != 'v' && w[0] != 'V'))
		return 0;
	for (i = 1; i < n; i++) {
		if (!isdigit((unsigned char)w[i]))
			return 0;
		v = v * 10 + w[i] - '0';
	}
	return v;
}

/* "2/7", "01/12": 1 with *index and *total set, else 0 */
static int index_word(const char *w, size_t n, int *index, int *total)
{
	const char *slash = memchr(w, '/', n);
	size_t i;
	long a = 0, b = 0;

	if (!slash || slash == w || slash == w + n - 1)
		return 0;
	for (i = 0; i < n; i++) {
		if (w + i == slash)
			continue;
		if (!isdigit((unsigned char)w[i]) || i > 8)
			return 0;
		if (w + i < slash)
			a = a * 10 + w[i] - '0';
		else
			b = b * 10 + w[i] - '0';
	}
	*index = a;
	*total = b;
	return 1;
}

/* read the words of one "[...]" tag; return 1 if it marks a patch */
static int parse_tag(const char *s, size_t len, struct patch_subject *ps,
		     struct strbuf *prefix)
{
	struct patch_subject t = { 0 };
	struct strbuf words = STRBUF_INIT;
	size_t i = 0;
	int patch = 0, numbered = 0;

	while (i < len) {
		const char *w;
		size_t n = 0;
		int v;

		while (i < len && (isspace((unsigned char)s[i]) || s[i] == ','))
			i++;
		w = s + i;
		while (i + n < len && !isspace((unsigned char)w[n]) &&
		       w[n] != ',')
			n++;
		i += n;
		if (!n)
			continue;
		if (n >= 5 && !strncasecmp(w, "PATCH", 5) &&
		    (n == 5 || (n == 7 && !strncasecmp(w + 5, "ES", 2)) ||
		     version_word(w + 5, n - 5))) {
			patch = 1;
			if (n > 5 && (v = version_word(w + 5, n - 5)))
				t.version = v;
		} else if (n >= 3 && !strncasecmp(w, "RFC", 3) &&
			   (n == 3 || version_word(w + 3, n - 3))) {
			patch = t.is_rfc = 1;
			if (n > 3)
				t.version = version_word(w + 3, n - 3);
		} else if (n == 6 && !strncasecmp(w, "RESEND", 6)) {
			t.is_resend = 1;
		} else if ((v = version_word(w, n))) {
			t.version = v;
		} else if (index_word(w, n, &t.index, &t.total)) {
			numbered = 1;
		} else {
			if (words.len)
				strbuf_addch(&words, ' ');
			strbuf_add(&words, w, n);
		}
	}
	if (patch || numbered) {
		ps->is_rfc |= t.is_rfc;
		ps->is_resend |= t.is_resend;
		if (t.version)
			ps->version = t.version;
		if (numbered) {
			ps->index = t.index;
			ps->total = t.total;
		}
		if (words.len) {
			if (prefix->len)
				strbuf_addch(prefix, ' ');
			strbuf_addbuf(prefix, &words);
		}
	}
	strbuf_release(&words);
	return patch || numbered;
}

int parse_patch_subject(const char *subject, struct patch_subject *out)
{
	struct strbuf prefix = STRBUF_INIT, title = STRBUF_INIT;
	const char *s = skip_ws(subject), *next;
	int tagged = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		next = tagged ? NULL : skip_reply_prefix(s);
		if (next) {
			out->is_reply = 1;
			s = skip_ws(next);
			if (!strncasecmp(s, "(subset)", 8))
				s = skip_ws(s + 8);
			continue;
		}
		if (*s == '[') {
			const char *end = strchr(s, ']');

			if (!end)
				break;
			tagged |= parse_tag(s + 1, end - s - 1, out, &prefix);
			s = skip_ws(end + 1);
			continue;
		}
		break;
	}
	strbuf_addstr(&title, s);
	strbuf_rtrim(&title);
	out->title = strbuf_detach(&title, NULL);
	out->prefix = strbuf_detach(&prefix, NULL);
	out->is_patch = tagged && !out->is_reply;
	return out->is_patch;
}

void patch_subject_release(struct patch_subject *ps)
{
	free(ps->prefix);
	free(ps->title);
	memset(ps, 0, sizeof(*ps));
}

/* ---------------------------------------------------------------- lines */

struct line {
	const char *s;
	size_t len;		/* without the '\n' */
	const char *next;	/* start of the next line */
};

/* the line at @p, before @end; 0 at the end */
static int get_line(const char *p, const char *end, struct line *l)
{
	const char *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', end - p);
	l->s = p;
	l->len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	l->next = nl ? nl + 1 : end;
	return 1;
}

static int line_is(const struct line *l, const char *s)
{
	return l->len == strlen(s) && !memcmp(l->s, s, l->len);
}

static int line_starts(const struct line *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && !memcmp(l->s, s, n);
}

static int line_blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (!isspace((unsigned char)l->s[i]))
			return 0;
	return 1;
}

/* "-- " and "--": where a mail signature starts */
static int line_is_signature(const struct line *l)
{
	return line_is(l, "-- ") || line_is(l, "--");
}

/* "From <40 hex> Mon Sep 17 00:00:00 2001", the first line of format-patch */
static int line_is_format_patch(const struct line *l)
{
	size_t i;

	if (l->len < 70 || !line_starts(l, "From ") || l->s[45] != ' ')
		return 0;
	for (i = 5; i < 45; i++)
		if (!isxdigit((unsigned char)l->s[i]))
			return 0;
	return !memcmp(l->s + 46, "Mon Sep 17 00:00:00 2001", 24);
}

/* the first line of a diff: "diff --git " or "--- " followed by "+++ " */
static int line_starts_diff(const struct line *l, const char *end)
{
	struct line n;

	if (line_starts(l, "diff --git "))
		return 1;
	return line_starts(l, "--- ") && get_line(l->next, end, &n) &&
	       line_starts(&n, "+++ ");
}

/* ------------------------------------------------------------ the diff */

/* "@@ -a[,b] +c[,d] @@": set the line counts; 0 if not a hunk header */
static int parse_hunk_header(const struct line *l, long *old, long *new)
{
	const char *p = l->s, *end = l->s + l->len;
	long b;

	while (p < end && *p == '@')
		p++;
	if (p - l->s < 2 || p >= end || *p != ' ')
		return 0;
	for (;;) {
		char sign;

		while (p < end && *p == ' ')
			p++;
		if (p >= end || (*p != '-' && *p != '+'))
			break;
		sign = *p++;
		while (p < end && isdigit((unsigned char)*p))
			p++;	/* the start line */
		b = 1;
		if (p < end && *p == ',') {
			p++;
			b = 0;
			while (p < end && isdigit((unsigned char)*p) &&
			       b < 100000000)
				b = b * 10 + *p++ - '0';
		}
		if (sign == '-')
			*old = b;
		else
			*new = b;
	}
	return 1;
}

/* lines that may stand outside a hunk in a git diff */
static int line_is_diff_header(const struct line *l)
{
	static const char *const starts[] = {
		"diff ", "index ", "--- ", "+++ ", "new file mode ",
		"deleted file mode ", "old mode ", "new mode ",
		"similarity index ", "dissimilarity index ", "rename from ",
		"rename to ", "copy from ", "copy to ", "Binary files ",
		"\\",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(starts); i++)
		if (line_starts(l, starts[i]))
			return 1;
	return 0;
}

/*
 * Copy the diff that starts at @p into @out: headers, hunks (their lines
 * counted, so a "-- " inside a hunk is content) and binary patches. The
 * first "-- " line outside a hunk is the signature and ends the diff; text
 * between or after hunks (quilt's "Index:" lines, akpm's "_" footer, blank
 * lines) is dropped.
 */
static void extract_diff(const char *p, const char *end, struct strbuf *out)
{
	struct line l;
	long old = 0, new = 0;
	int binary = 0;

	for (; get_line(p, end, &l); p = l.next) {
		if (old > 0 || new > 0) {
			char c = l.len ? l.s[0] : ' ';

			if (c == ' ') {
				old--;
				new--;
			} else if (c == '-') {
				old--;
			} else if (c == '+') {
				new--;
			} else if (c != '\\') {
				old = new = 0;	/* a broken hunk: read on */
				goto outside;
			}
			strbuf_add(out, l.s, l.len);
			strbuf_addch(out, '\n');
			continue;
		}
outside:
		if (line_is_signature(&l))
			break;
		if (line_starts(&l, "diff "))
			binary = 0;
		if (line_starts(&l, "GIT binary patch"))
			binary = 1;
		/* hunk lines beyond the counts: a broken diff, keep them */
		if (parse_hunk_header(&l, &old, &new) || binary ||
		    line_is_diff_header(&l) ||
		    (l.len && strchr(" +-", l.s[0]))) {
			strbuf_add(out, l.s, l.len);
			strbuf_addch(out, '\n');
		}
	}
	/* blank lines that ended a binary patch at the very end */
	while (out->len >= 2 && out->buf[out->len - 1] == '\n' &&
	       out->buf[out->len - 2] == '\n')
		strbuf_setlen(out, out->len - 1);
}

/* ----------------------------------------------------------- patch mail */

struct inbody {
	struct strbuf from, date, subject;
};

/*
 * In-body header lines ("From:", "Date:", "Subject:", folded lines after
 * them) at @p. Return where the body text starts: after the blank line
 * that ends them, or @p if there are none.
 */
static const char *read_inbody_headers(const char *p, const char *end,
				       struct inbody *ib)
{
	static const char *const names[] = { "From:", "Date:", "Subject:" };
	struct strbuf *cur = NULL;
	const char *q = p;
	struct line l;
	int seen = 0;

	while (get_line(q, end, &l)) {
		size_t i;

		if (line_blank(&l)) {
			if (seen)
				q = l.next;
			break;
		}
		if (cur && (l.s[0] == ' ' || l.s[0] == '\t')) {
			strbuf_add(cur, l.s, l.len);
			q = l.next;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (l.len >= strlen(names[i]) &&
			    !strncasecmp(l.s, names[i], strlen(names[i])))
				break;
		if (i == ARRAY_SIZE(names))
			break;
		cur = i == 0 ? &ib->from : i == 1 ? &ib->date : &ib->subject;
		if (cur->len) {
			cur = NULL;	/* the first one counts */
		} else {
			strbuf_add(cur, l.s + strlen(names[i]),
				   l.len - strlen(names[i]));
			strbuf_trim(cur);
		}
		seen = 1;
		q = l.next;
	}
	return seen ? q : p;
}

/* where the text of a patch mail starts, having read any in-body headers */
static const char *patch_text_start(const char *body, const char *end,
				    struct inbody *ib)
{
	const char *p = body;
	struct line l;

	/* a format-patch inside the mail (an attachment) before any diff */
	for (; get_line(p, end, &l); p = l.next) {
		if (line_starts_diff(&l, end))
			break;
		if (line_is_format_patch(&l))
			return read_inbody_headers(l.next, end, ib);
	}
	for (p = body; get_line(p, end, &l) && line_blank(&l); p = l.next)
		;
	return read_inbody_headers(p, end, ib);
}

/* the end of the commit message: "---" line, a diff, or "Index: " */
static int line_ends_message(const struct line *l, const char *end)
{
	if (line_starts(l, "---") &&
	    (l->len == 3 || isspace((unsigned char)l->s[3])))
		return 1;
	return line_starts(l, "diff -") || line_starts(l, "Index: ") ||
	       line_starts_diff(l, end);
}

static void build_patch(struct series_patch *sp, struct mail *m,
			const struct patch_subject *ps)
{
	const char *end = m->body.buf + m->body.len, *p, *text;
	struct inbody ib = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct strbuf msg = STRBUF_INIT, body = STRBUF_INIT;
	struct strbuf diff = STRBUF_INIT;
	struct line l;

	sp->mail = m;
	text = patch_text_start(m->body.buf, end, &ib);

	if (ib.subject.len) {
		struct patch_subject sub;
		char *decoded = mail_decode_header(ib.subject.buf);
		char *clean = NULL;

		parse_patch_subject(decoded, &sub);
		clean = xstrdup(sub.title);
		patch_subject_release(&sub);
		free(decoded);
		sp->title = clean;
	} else {
		sp->title = xstrdup(ps->title);
	}
	if (ib.from.len) {
		mail_parse_address(ib.from.buf, &sp->author_name,
				   &sp->author_email);
		if (!*sp->author_email) {
			free(sp->author_name);
			free(sp->author_email);
			sp->author_name = sp->author_email = NULL;
		}
	}
	if (!sp->author_name) {
		sp->author_name = xstrdup(m->from_name);
		sp->author_email = xstrdup(m->from_email);
	}
	if (!ib.date.len || mail_parse_date(ib.date.buf, &sp->date))
		sp->date = m->date;

	for (p = text; get_line(p, end, &l); p = l.next) {
		if (line_ends_message(&l, end))
			break;
		strbuf_add(&body, l.s, l.len);
		strbuf_addch(&body, '\n');
	}
	strbuf_trim(&body);
	strbuf_addstr(&msg, sp->title);
	strbuf_addch(&msg, '\n');
	if (body.len) {
		strbuf_addch(&msg, '\n');
		strbuf_addbuf(&msg, &body);
		strbuf_addch(&msg, '\n');
	}
	sp->message = strbuf_detach(&msg, NULL);

	for (p = text; get_line(p, end, &l); p = l.next)
		if (line_starts_diff(&l, end))
			break;
	extract_diff(p, end, &diff);
	sp->diff = strbuf_detach(&diff, NULL);

	strbuf_release(&body);
	strbuf_release(&ib.from);
	strbuf_release(&ib.date);
	strbuf_release(&ib.subject);
}

/* ------------------------------------------------------------- trailers */

static const char *const trailer_names[] = {
	"Signed-off-by", "Reviewed-by", "Acked-by", "Tested-by",
	"Reported-by", "Suggested-by", "Co-developed-by", "Cc", "Link",
	"Fixes", "Closes",
};

/*
 * "Reviewed-by: A <a@b>": the trailer with its name spelled as in
 * trailer_names, or NULL. *person is set for "*-by" trailers.
 */
static char *parse_trailer(const struct line *l, int *person)
{
	const char *colon = memchr(l->s, ':', l->len);
	struct strbuf sb = STRBUF_INIT;
	char *res = NULL;
	size_t i, n;

	if (!colon)
		return NULL;
	n = colon - l->s;
	for (i = 0; i < ARRAY_SIZE(trailer_names); i++)
		if (strlen(trailer_names[i]) == n &&
		    !strncasecmp(l->s, trailer_names[i], n))
			break;
	if (i == ARRAY_SIZE(trailer_names))
		return NULL;
	strbuf_add(&sb, colon + 1, l->len - n - 1);
	strbuf_trim(&sb);
	*person = n > 3 && !strcasecmp(trailer_names[i] + n - 3, "-by");
	/* people are named with their address */
	if (sb.len && !((*person || !strcmp(trailer_names[i], "Cc")) &&
			!strchr(sb.buf, '@')))
		res = xstrfmt("%s: %s", trailer_names[i], sb.buf);
	strbuf_release(&sb);
	return res;
}

struct string_list {
	char **v;
	size_t nr, alloc;
};

static int list_has(char **v, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcasecmp(v[i], s))
			return 1;
	return 0;
}

static void list_add(char ***v, size_t *nr, size_t *alloc, const char *s)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = xstrdup(s);
}

/*
 * Trailers a reviewer wrote in @m: unquoted lines before the signature (or
 * an embedded patch), in paragraphs that hold at least one "*-by:" line;
 * at most REPLY_MAX_TRAILERS of them.
 */
#define REPLY_MAX_TRAILERS 64
static void reply_trailers(const struct mail *m, struct string_list *out)
{
	const char *p = m->body.buf, *end = m->body.buf + m->body.len;
	struct string_list para = { 0 };
	int has_person = 0, done = 0;
	struct line l;
	size_t i;

	while (!done) {
		int person = 0;
		char *t = NULL;

		if (!get_line(p, end, &l) || line_is_signature(&l) ||
		    line_is_format_patch(&l) || line_starts_diff(&l, end) ||
		    line_starts(&l, "-----BEGIN PGP"))
			done = 1;
		else if (l.len && l.s[0] != '>')
			t = parse_trailer(&l, &person);
		if (t && out->nr + para.nr >= REPLY_MAX_TRAILERS) {
			free(t);
			t = NULL;
		}
		if (t) {
			has_person |= person;
			ALLOC_GROW(para.v, para.nr + 1, para.alloc);
			para.v[para.nr++] = t;
		}
		if (done || line_blank(&l)) {
			for (i = 0; i < para.nr; i++) {
				if (has_person && !list_has(out->v, out->nr,
							    para.v[i]))
					list_add(&out->v, &out->nr, &out->alloc,
						 para.v[i]);
				free(para.v[i]);
			}
			para.nr = 0;
			has_person = 0;
		}
		if (!done)
			p = l.next;
	}
	free(para.v);
}

/*
 * The lines of a commit message that could equal a trailer ("Name: ..."
 * with a name of trailer_names), right-trimmed and sorted without regard to
 * case: a reply trailer is looked up in log time. Comparing every trailer
 * with every line took minutes for a 1 MiB thread (a message of 250,000
 * lines, 27,000 reply trailers), and 20 s for 256 cover trailers.
 */
struct line_index {
	char **v;
	size_t nr, alloc;
};

static int cmp_str_icase(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static void line_index_build(struct line_index *ix, const char *message)
{
	const char *p = message, *end = message + strlen(message);
	struct line l;

	for (; get_line(p, end, &l); p = l.next) {
		const char *colon = memchr(l.s, ':', l.len);
		size_t len = l.len, i, n;

		if (!colon)
			continue;
		n = colon - l.s;
		for (i = 0; i < ARRAY_SIZE(trailer_names); i++)
			if (strlen(trailer_names[i]) == n &&
			    !strncasecmp(l.s, trailer_names[i], n))
				break;
		if (i == ARRAY_SIZE(trailer_names))
			continue;
		while (len && isspace((unsigned char)l.s[len - 1]))
			len--;
		ALLOC_GROW(ix->v, ix->nr + 1, ix->alloc);
		ix->v[ix->nr++] = xstrndup(l.s, len);
	}
	if (ix->nr)
		qsort(ix->v, ix->nr, sizeof(*ix->v), cmp_str_icase);
}

/* is trailer @t a line of the message @ix indexes? */
static int line_index_has(const struct line_index *ix, const char *t)
{
	return ix->nr && bsearch(&t, ix->v, ix->nr, sizeof(*ix->v),
				 cmp_str_icase);
}

static void line_index_release(struct line_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nr; i++)
		free(ix->v[i]);
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

/* ------------------------------------------------------------- assembly */

struct candidate {
	struct mail *mail;
	size_t pos;		/* in the mbox */
	struct patch_subject ps;
	int version;		/* with the cover's filled in */
	int used;
};

struct msgid_entry {
	const char *id;
	struct mail *mail;
	struct candidate *cand;
};

struct assembly {
	struct mail *mails;
	size_t nr_mails;
	struct candidate *c;
	size_t nr_c, alloc_c;
	struct msgid_entry *ids;	/* all mails with an id, sorted */
	size_t nr_ids;
	struct msgid_entry *cids;	/* the candidates, sorted by id */
	size_t nr_cids;
	struct candidate **cand_at;	/* by mail position, or NULL */
	struct series *s;
	size_t alloc_problems;
	int trailers_dropped;
};

/* series->problems stops growing here, with a last "..." entry */
#define SERIES_MAX_PROBLEMS 64

static void PRINTF(2, 3) series_problem(struct assembly *a,
					const char *fmt, ...)
{
	struct series *s = a->s;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (s->nr_problems > SERIES_MAX_PROBLEMS)
		return;
	if (s->nr_problems == SERIES_MAX_PROBLEMS) {
		strbuf_addstr(&sb, "more problems not listed");
	} else {
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
	}
	ALLOC_GROW(s->problems, s->nr_problems + 1, a->alloc_problems);
	s->problems[s->nr_problems++] = strbuf_detach(&sb, NULL);
}

static int cmp_msgid(const void *a, const void *b)
{
	const struct msgid_entry *x = a, *y = b;

	return strcmp(x->id, y->id);
}

static struct mail *find_mail(struct assembly *a, const char *id)
{
	struct msgid_entry key = { .id = id }, *e;

	if (!id || !a->nr_ids)
		return NULL;
	e = bsearch(&key, a->ids, a->nr_ids, sizeof(*a->ids), cmp_msgid);
	return e ? e->mail : NULL;
}

/*
 * Does @text hold a git diff: a "diff --git " line, then its header with
 * "--- " and "+++ " lines, then a well-formed "@@ -a,b +c,d @@" hunk
 * header? A quoted diff, a lone "diff --git" line in prose or a diff
 * without hunks is not one.
 */
static int text_has_git_diff(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct line l;

	while (get_line(p, end, &l)) {
		int minus = 0, plus = 0;

		p = l.next;
		if (!line_starts(&l, "diff --git "))
			continue;
		while (get_line(p, end, &l) && line_is_diff_header(&l) &&
		       !line_starts(&l, "diff ")) {
			minus |= line_starts(&l, "--- ");
			plus |= line_starts(&l, "+++ ");
			p = l.next;
		}
		if (minus && plus && get_line(p, end, &l)) {
			long old = -1, new = -1;

			if (parse_hunk_header(&l, &old, &new) && old >= 0 &&
			    new >= 0)
				return 1;
		}
	}
	return 0;
}

/*
 * An mm-commits notice ("+ foo.patch added to mm-new branch", "- foo.patch
 * removed from -mm tree", "[merged mm-stable] foo.patch removed ..."):
 * akpm's scripts quote the patch, sometimes as a whole git diff, but the
 * mail is no patch (notice.c reads it).
 */
static int notice_subject(const char *subj)
{
	const char *p, *sp;

	if (!skip_prefix(subj, "+ ", &p) && !skip_prefix(subj, "- ", &p) &&
	    !(skip_prefix(subj, "[merged ", &p) && (p = strstr(p, "] ")) &&
	      (p += 2)))
		return 0;
	sp = strchr(p, ' ');
	return sp && sp - p > 6 && !strncmp(sp - 6, ".patch", 6);
}

int series_thread_has_patch(const struct mail *mails, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct patch_subject ps;
		int tagged = parse_patch_subject(mails[i].subject, &ps);
		int reply = ps.is_reply;

		patch_subject_release(&ps);
		if (tagged || (!reply && !notice_subject(mails[i].subject) &&
			       text_has_git_diff(mails[i].body.buf,
						 mails[i].body.len)))
			return 1;
	}
	return 0;
}

/*
 * The candidate that is @m, or a copy of it (same message id); with
 * @used_only, one that is part of the series. Of many copies of one id,
 * only the first CANDIDATE_COPIES are looked at.
 */
#define CANDIDATE_COPIES 64
static struct candidate *candidate_of(struct assembly *a, struct mail *m,
				      int used_only)
{
	struct candidate *c = a->cand_at[m - a->mails];
	size_t lo = 0, hi = a->nr_cids, n;

	if (c && (!used_only || c->used))
		return c;
	if (!m->message_id)
		return NULL;
	while (lo < hi) {	/* the first entry with this id */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(a->cids[mid].id, m->message_id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo < a->nr_cids && n < CANDIDATE_COPIES; lo++, n++) {
		if (strcmp(a->cids[lo].id, m->message_id))
			break;
		if (!used_only || a->cids[lo].cand->used)
			return a->cids[lo].cand;
	}
	return NULL;
}

/* the mail @m answers: In-Reply-To, else the last known References */
static struct mail *parent_of(struct assembly *a, const struct mail *m)
{
	struct mail *parent = find_mail(a, m->in_reply_to);
	size_t k;

	for (k = m->nr_references; !parent && k > 0; k--)
		parent = find_mail(a, m->references[k - 1]);
	return parent == m ? NULL : parent;
}

static int is_later(const struct candidate *x, const struct candidate *y)
{
	if (x->mail->date != y->mail->date)
		return x->mail->date > y->mail->date;
	return x->pos > y->pos;
}

static void collect_candidates(struct assembly *a)
{
	struct candidate *untagged = NULL;
	size_t i, nr_untagged = 0, alloc_untagged = 0;

	for (i = 0; i < a->nr_mails; i++) {
		struct mail *m = &a->mails[i];
		struct candidate c = { .mail = m, .pos = i };

		if (!parse_patch_subject(m->subject, &c.ps)) {
			/*
			 * No patch tag ("git send-email" without a subject
			 * prefix, format-patch -k): a patch of one if it is
			 * not a reply and holds a whole git diff. Only when
			 * no mail of the thread is tagged, so an untagged
			 * fix-up never displaces a tagged patch; a reply's
			 * diff (a suggestion in a bug thread) is no patch.
			 */
			if (!c.ps.is_reply && !notice_subject(m->subject) &&
			    text_has_git_diff(m->body.buf, m->body.len)) {
				c.ps.index = c.ps.total = 1;
				ALLOC_GROW(untagged, nr_untagged + 1,
					   alloc_untagged);
				untagged[nr_untagged++] = c;
				continue;
			}
			patch_subject_release(&c.ps);
			continue;
		}
		if (!c.ps.total && !c.ps.index) {
			/* "[PATCH] foo": a series of one, if it has a diff */
			if (!mail_text_has_patch(m->body.buf, m->body.len)) {
				patch_subject_release(&c.ps);
				continue;
			}
			c.ps.index = c.ps.total = 1;
		}
		if (c.ps.index > c.ps.total || !c.ps.total ||
		    c.ps.total > SERIES_MAX_PATCHES) {
			series_problem(a, "ignoring patch numbered %d/%d",
				       c.ps.index, c.ps.total);
			patch_subject_release(&c.ps);
			continue;
		}
		ALLOC_GROW(a->c, a->nr_c + 1, a->alloc_c);
		a->c[a->nr_c++] = c;
	}
	if (!a->nr_c) {
		for (i = 0; i < nr_untagged; i++) {
			ALLOC_GROW(a->c, a->nr_c + 1, a->alloc_c);
			a->c[a->nr_c++] = untagged[i];
		}
	} else {
		for (i = 0; i < nr_untagged; i++)
			patch_subject_release(&untagged[i].ps);
	}
	free(untagged);

	/* a->c is final now: index it */
	a->cand_at = xcalloc(a->nr_mails ? a->nr_mails : 1,
			     sizeof(*a->cand_at));
	a->cids = xcalloc(a->nr_c ? a->nr_c : 1, sizeof(*a->cids));
	for (i = 0; i < a->nr_c; i++) {
		struct candidate *c = &a->c[i];

		a->cand_at[c->pos] = c;
		if (!c->mail->message_id)
			continue;
		a->cids[a->nr_cids].id = c->mail->message_id;
		a->cids[a->nr_cids].mail = c->mail;
		a->cids[a->nr_cids++].cand = c;
	}
	qsort(a->cids, a->nr_cids, sizeof(*a->cids), cmp_msgid);
}

/* the version of the cover letter mail @id names, or 0 */
static int cover_version(struct assembly *a, const char *id)
{
	struct mail *m = find_mail(a, id);
	struct candidate *c = m ? candidate_of(a, m, 0) : NULL;

	return c && !c->ps.index ? c->ps.version : 0;
}

/* a patch without "vN" has the version of the cover it answers, else 1 */
static void resolve_versions(struct assembly *a)
{
	size_t i, k;

	for (i = 0; i < a->nr_c; i++) {
		struct candidate *c = &a->c[i];
		struct mail *m = c->mail;

		c->version = c->ps.version;
		if (c->version)
			continue;
		c->version = cover_version(a, m->in_reply_to);
		for (k = 0; k < m->nr_references && !c->version; k++)
			c->version = cover_version(a, m->references[k]);
		if (!c->version)
			c->version = 1;
	}
}

/* the total of version @v: its cover's, else the most common one */
static int pick_total(struct assembly *a, int v)
{
	size_t *count, i;
	int t, best = 0;

	for (i = 0; i < a->nr_c; i++)
		if (a->c[i].version == v && !a->c[i].ps.index)
			return a->c[i].ps.total;
	count = xcalloc(SERIES_MAX_PATCHES + 1, sizeof(*count));
	for (i = 0; i < a->nr_c; i++)
		if (a->c[i].version == v)
			count[a->c[i].ps.total]++;
	for (t = 1; t <= SERIES_MAX_PATCHES; t++)
		if (count[t] && count[t] >= count[best])
			best = t;	/* of a tie, the larger total */
	free(count);
	return best;
}

/*
 * The mail for slot @index (0: the cover) of version @v, the latest of
 * duplicates; NULL if none. With @v 0, the newest older version that has it.
 */
static struct candidate *pick_slot(struct assembly *a, int index, int total,
				   int v, int below)
{
	struct candidate *best = NULL;
	size_t i, count = 0;

	for (i = 0; i < a->nr_c; i++) {
		struct candidate *c = &a->c[i];

		if (c->ps.index != index || c->ps.total != total)
			continue;
		if (below ? c->version >= v : c->version != v)
			continue;
		if (!best || c->version > best->version ||
		    (c->version == best->version && is_later(c, best)))
			best = c;
		count += !below;
	}
	if (count > 1 && index)
		series_problem(a, "duplicate patch %d/%d, keeping the latest",
			       index, total);
	else if (count > 1)
		series_problem(a, "duplicate cover letter 0/%d, keeping the latest",
			       total);
	return best;
}

static void add_patch(struct assembly *a, struct candidate *c)
{
	struct series *s = a->s;
	struct series_patch *sp = &s->patches[s->nr++];

	memset(sp, 0, sizeof(*sp));
	c->used = 1;
	sp->index = c->ps.index;
	sp->version = c->version;
	build_patch(sp, c->mail, &c->ps);
	if (!*sp->diff)
		series_problem(a, "patch %d/%d has no diff", sp->index,
			       s->total);
}

/* "base-commit: <hex>" in @m, or NULL */
static char *find_base_commit(const struct mail *m)
{
	const char *p = m->body.buf, *end = p + m->body.len;
	struct line l;

	for (; get_line(p, end, &l); p = l.next) {
		size_t i = 12, n = 0;

		if (!line_starts(&l, "base-commit:"))
			continue;
		while (i < l.len && isspace((unsigned char)l.s[i]))
			i++;
		while (i + n < l.len && isxdigit((unsigned char)l.s[i + n]))
			n++;
		if (n >= 7 && n <= 64)
			return xstrndup(l.s + i, n);
	}
	return NULL;
}

/*
 * The used patch or cover a reply answers: go up the thread through
 * @parent until a patch mail is met; NULL if that is not part of the
 * series (an older version), or if there is none within REPLY_MAX_DEPTH.
 */
#define REPLY_MAX_DEPTH 256
static struct candidate *reply_target(struct assembly *a,
				      struct mail **parent, struct mail *m)
{
	int hops;

	for (hops = 0; hops < REPLY_MAX_DEPTH; hops++) {
		struct mail *p = parent[m - a->mails];

		if (!p)
			return NULL;
		if (candidate_of(a, p, 0))
			return candidate_of(a, p, 1);
		m = p;
	}
	return NULL;
}

/*
 * Add @t to the list *@v unless it is a line of the message @msg (if any)
 * or one of the first @known entries of the list.
 */
static void add_trailer(struct assembly *a, char ***v, size_t *nr,
			size_t *alloc, size_t known,
			const struct line_index *msg, const char *t)
{
	if ((msg && line_index_has(msg, t)) || list_has(*v, known, t))
		return;
	if (*nr >= SERIES_MAX_TRAILERS) {
		if (!a->trailers_dropped++)
			series_problem(a, "more than %d trailers for one patch, rest ignored",
				       SERIES_MAX_TRAILERS);
		return;
	}
	list_add(v, nr, alloc, t);
}

static void collect_trailers(struct assembly *a)
{
	struct series *s = a->s;
	struct mail **parent = xcalloc(a->nr_mails ? a->nr_mails : 1,
				       sizeof(*parent));
	size_t *alloc = xcalloc(s->nr ? s->nr : 1, sizeof(*alloc));
	struct line_index *msg = xcalloc(s->nr ? s->nr : 1, sizeof(*msg));
	size_t i, j, k, cover_alloc = 0;

	for (i = 0; i < a->nr_mails; i++)
		parent[i] = parent_of(a, &a->mails[i]);
	for (k = 0; k < s->nr; k++)
		line_index_build(&msg[k], s->patches[k].message);
	for (i = 0; i < a->nr_mails; i++) {
		struct mail *m = &a->mails[i];
		struct string_list found = { 0 };
		struct candidate *target;

		if (candidate_of(a, m, 0))
			continue;	/* patches are not reviews */
		target = reply_target(a, parent, m);
		if (!target)
			continue;
		reply_trailers(m, &found);
		for (j = 0; j < found.nr; j++) {
			if (!target->ps.index)
				add_trailer(a, &s->cover_trailers,
					    &s->nr_cover_trailers, &cover_alloc,
					    s->nr_cover_trailers, NULL,
					    found.v[j]);
			for (k = 0; target->ps.index && k < s->nr; k++) {
				struct series_patch *p = &s->patches[k];

				if (p->mail == target->mail)
					add_trailer(a, &p->trailers,
						    &p->nr_trailers, &alloc[k],
						    p->nr_trailers, &msg[k],
						    found.v[j]);
			}
			free(found.v[j]);
		}
		free(found.v);
	}
	/*
	 * What was said to the cover letter is said to every patch. The
	 * cover's trailers differ from each other already, so each is
	 * compared with the patch's own ones only (999 x 256 x 256
	 * comparisons took seconds).
	 */
	for (k = 0; k < s->nr; k++) {
		struct series_patch *p = &s->patches[k];
		size_t own = p->nr_trailers;

		for (j = 0; j < s->nr_cover_trailers; j++)
			add_trailer(a, &p->trailers, &p->nr_trailers, &alloc[k],
				    own, &msg[k], s->cover_trailers[j]);
		line_index_release(&msg[k]);
	}
	free(msg);
	free(alloc);
	free(parent);
}

static int assemble(struct assembly *a)
{
	struct series *s = a->s;
	struct candidate *cover, *first = NULL;
	size_t i, ignored = 0, alloc_missing = 0;
	int v = 0, idx;

	collect_candidates(a);
	if (!a->nr_c)
		return -1;
	resolve_versions(a);
	for (i = 0; i < a->nr_c; i++)
		if (a->c[i].version > v)
			v = a->c[i].version;
	s->version = v;
	s->total = pick_total(a, v);

	cover = pick_slot(a, 0, s->total, v, 0);
	if (!cover) {
		cover = pick_slot(a, 0, s->total, v, 1);
		if (cover)
			series_problem(a, "cover letter taken from v%d",
				       cover->version);
	}
	if (cover) {
		cover->used = 1;
		s->cover = cover->mail;
		s->is_rfc = cover->ps.is_rfc;
	}

	s->patches = xcalloc(s->total, sizeof(*s->patches));
	for (idx = 1; idx <= s->total; idx++) {
		struct candidate *c = pick_slot(a, idx, s->total, v, 0);

		if (!c) {
			c = pick_slot(a, idx, s->total, v, 1);
			if (c)
				series_problem(a, "patch %d/%d taken from v%d",
					       idx, s->total, c->version);
		}
		if (!c) {
			ALLOC_GROW(s->missing, s->nr_missing + 1,
				   alloc_missing);
			s->missing[s->nr_missing++] = idx;
			continue;
		}
		add_patch(a, c);
		if (!first)
			first = c;
	}
	if (s->nr_missing)
		series_problem(a, "%zu of %d patches missing", s->nr_missing,
			       s->total);
	for (i = 0; i < a->nr_c; i++)
		ignored += !a->c[i].used;
	if (ignored)
		series_problem(a, "ignored %zu patch mail(s) of other versions or series",
			       ignored);

	if (cover) {
		s->title = xstrdup(cover->ps.title);
		s->base_commit = find_base_commit(cover->mail);
	} else if (first) {
		s->title = xstrdup(first->ps.title);
		s->is_rfc = first->ps.is_rfc;
	} else {
		s->title = xstrdup("");
	}
	for (i = 0; i < s->nr && !s->base_commit; i++)
		s->base_commit = find_base_commit(s->patches[i].mail);

	collect_trailers(a);
	return s->nr ? 0 : -1;	/* a cover letter alone is no series */
}

static int assemble_mails(struct mail *mails, size_t nr, struct series *out)
{
	struct assembly a = { .mails = mails, .nr_mails = nr, .s = out };
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	a.ids = xcalloc(nr ? nr : 1, sizeof(*a.ids));
	for (i = 0; i < nr; i++)
		if (mails[i].message_id) {
			a.ids[a.nr_ids].id = mails[i].message_id;
			a.ids[a.nr_ids++].mail = &mails[i];
		}
	qsort(a.ids, a.nr_ids, sizeof(*a.ids), cmp_msgid);

	ret = assemble(&a);
	for (i = 0; i < a.nr_c; i++)
		patch_subject_release(&a.c[i].ps);
	free(a.c);
	free(a.ids);
	free(a.cids);
	free(a.cand_at);
	if (ret)
		series_release(out);
	return ret;
}

int series_from_mails(struct mail *mails, size_t nr, struct series *out)
{
	if (assemble_mails(mails, nr, out))
		return error("'%s' is not a patch series",
			     nr ? mails[0].subject : "(no mail)");
	return 0;
}

int series_from_file(const char *path, struct mail **mails, size_t *nr,
		     struct series *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	*mails = NULL;
	*nr = 0;
	memset(out, 0, sizeof(*out));
	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", path);
	}
	ret = mbox_parse(sb.buf, sb.len, mails, nr);
	strbuf_release(&sb);
	if (ret)
		return error("cannot parse '%s'", path);
	if (assemble_mails(*mails, *nr, out)) {
		mails_free(*mails, *nr);
		*mails = NULL;
		*nr = 0;
		return error("'%s' is not a patch series", path);
	}
	return 0;
}

char *series_patch_full_message(const struct series_patch *p)
{
	struct strbuf sb = STRBUF_INIT;
	const char *last;
	size_t i;
	int person = 0;

	strbuf_addstr(&sb, p->message);
	strbuf_rtrim(&sb);
	if (p->nr_trailers) {
		/* a trailer block is the last paragraph, if it has trailers */
		struct line l;
		const char *q;

		last = strstr(sb.buf, "\n\n");
		while (last && strstr(last + 2, "\n\n"))
			last = strstr(last + 2, "\n\n");
		q = last ? last + 2 : sb.buf;
		for (; !person && get_line(q, sb.buf + sb.len, &l);
		     q = l.next)
			free(parse_trailer(&l, &person));
		strbuf_addstr(&sb, person ? "\n" : "\n\n");
		for (i = 0; i < p->nr_trailers; i++) {
			strbuf_addstr(&sb, p->trailers[i]);
			strbuf_addch(&sb, '\n');
		}
	} else {
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb, NULL);
}

static void free_strings(char **v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

void series_release(struct series *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		struct series_patch *p = &s->patches[i];

		free(p->author_name);
		free(p->author_email);
		free(p->title);
		free(p->message);
		free(p->diff);
		free_strings(p->trailers, p->nr_trailers);
	}
	free(s->patches);
	free(s->missing);
	free(s->title);
	free(s->base_commit);
	free_strings(s->cover_trailers, s->nr_cover_trailers);
	free_strings(s->problems, s->nr_problems);
	memset(s, 0, sizeof(*s));
}
