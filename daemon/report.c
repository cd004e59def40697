// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - compose the report mail of a comparison (LKP style), store it,
 * send it, remember what happened.
 *
 * Workload: one mail per tested series and per nightly regression, a few
 * a day. The inputs are partly hostile: subjects, names and addresses come
 * from mails anyone can post to a list. The message is built here, header
 * by header, from cleaned values only (see report.h); the body is ours
 * except for one-line fields taken from the series, which are cleaned too.
 *
 * To and Cc are not in the database: they are read back from the thread's
 * mbox as ingested (threads.cache_path, else series.source). When that file
 * is gone, the report still goes to the series' author.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attribution.h"
#include "claims.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "mbox.h"
#include "report.h"
#include "run.h"
#include "smtp.h"
#include "strbuf.h"
#include "util.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* header lines are folded before this column */
#define FOLD_COLUMN 78
/* UTF-8 bytes per encoded-word: 52 base64 characters, a 64-byte word */
#define EW_BYTES 39
/* display names are cut to this many bytes */
#define MAX_NAME 128
/* body lines are broken before this many bytes (RFC 5322 allows 998) */
#define MAX_BODY_LINE 900

/* ---- text cleaning and header encoding ---- */

static int is_control(unsigned int cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	       cp == 0x2028 || cp == 0x2029;
}

void report_clean_text(struct strbuf *out, const char *in)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	size_t len = strlen((const char *)p), i = 0, start = out->len;
	int blank = 1;

	while (i < len) {
		unsigned int cp;
		int n = utf8_next(p + i, len - i, &cp);

		if (!n) {
			strbuf_addstr(out, "\xef\xbf\xbd");	/* U+FFFD */
			blank = 0;
			i++;
			continue;
		}
		if (is_control(cp) || cp == ' ') {
			if (!blank)
				strbuf_addch(out, ' ');
			blank = 1;
		} else {
			strbuf_add(out, p + i, n);
			blank = 0;
		}
		i += n;
	}
	if (out->len > start && out->buf[out->len - 1] == ' ')
		strbuf_setlen(out, out->len - 1);
}

/* cut @sb after at most @max bytes, at a character boundary */
static void cut_utf8(struct strbuf *sb, size_t max)
{
	size_t n = max;

	if (sb->len <= max)
		return;
	while (n > 0 && ((unsigned char)sb->buf[n] & 0xc0) == 0x80)
		n--;
	strbuf_setlen(sb, n);
}

/* does a cleaned value need RFC 2047 encoding? */
static int needs_encoding(const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			return 1;
	return strstr(s, "=?") != NULL;
}

static void base64_add(struct strbuf *out, const unsigned char *in,
		       size_t len)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789+/";
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		strbuf_addch(out, tab[in[i] >> 2]);
		strbuf_addch(out, tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)]);
		strbuf_addch(out, tab[((in[i + 1] & 15) << 2) |
				      (in[i + 2] >> 6)]);
		strbuf_addch(out, tab[in[i + 2] & 63]);
	}
	if (len - i == 1) {
		strbuf_addch(out, tab[in[i] >> 2]);
		strbuf_addch(out, tab[(in[i] & 3) << 4]);
		strbuf_addstr(out, "==");
	} else if (len - i == 2) {
		strbuf_addch(out, tab[in[i] >> 2]);
		strbuf_addch(out, tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)]);
		strbuf_addch(out, tab[(in[i + 1] & 15) << 2]);
		strbuf_addch(out, '=');
	}
}

/*
 * @s (valid UTF-8) as encoded-words of at most EW_BYTES bytes each, never
 * splitting a character, separated by @sep (" " or "\n ").
 */
static void add_encoded_words(struct strbuf *out, const char *s,
			      const char *sep)
{
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = len - i < EW_BYTES ? len - i : EW_BYTES;

		while (i + n < len && n > 1 &&
		       ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n--;
		if (i)
			strbuf_addstr(out, sep);
		strbuf_addstr(out, "=?UTF-8?B?");
		base64_add(out, (const unsigned char *)s + i, n);
		strbuf_addstr(out, "?=");
		i += n;
	}
}

/* plain ASCII words, folded at blanks before FOLD_COLUMN */
static void add_folded(struct strbuf *out, size_t col, const char *s)
{
	int first = 1;

	while (*s) {
		size_t n = strcspn(s, " ");

		if (!first && col + 1 + n > FOLD_COLUMN) {
			strbuf_addstr(out, "\n ");
			col = 1;
		} else if (!first) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, s, n);
		col += n;
		first = 0;
		s += n;
		while (*s == ' ')
			s++;
	}
}

static int has_long_word(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n > MAX_BODY_LINE - 100)
			return 1;
		s += n;
		s += strspn(s, " ");
	}
	return 0;
}

void report_add_header(struct strbuf *msg, const char *name,
		       const char *value)
{
	struct strbuf v = STRBUF_INIT;

	report_clean_text(&v, value);
	strbuf_addf(msg, "%s: ", name);
	if (needs_encoding(v.buf) || has_long_word(v.buf))
		add_encoded_words(msg, v.buf, "\n ");
	else
		add_folded(msg, strlen(name) + 2, v.buf);
	strbuf_addch(msg, '\n');
	strbuf_release(&v);
}

int report_valid_msgid(const char *id)
{
	const char *p, *at = NULL;

	if (!id || !*id || strlen(id) > 250)
		return 0;
	for (p = id; *p; p++) {
		unsigned char c = *p;

		if (c <= 0x20 || c >= 0x7f || strchr("<>()\",;:\\[]", c))
			return 0;
		if (c == '@') {
			if (at)
				return 0;
			at = p;
		}
	}
	return at && at != id && at[1];
}

/* ---- addresses ---- */

int report_addresses_add(struct report_addresses *l, const char *name,
			 const char *email)
{
	struct strbuf nm = STRBUF_INIT;
	size_t i;

	if (!email || !*email)
		return 0;
	if (!smtp_valid_address(email)) {
		struct strbuf shown = STRBUF_INIT;

		report_clean_text(&shown, email);
		cut_utf8(&shown, 80);
		warning("leaving out the address '%s': not a plain address",
			shown.buf);
		strbuf_release(&shown);
		return 0;
	}
	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->a[i].email, email))
			return 0;
	if (l->nr >= REPORT_MAX_RCPT) {
		warning("leaving out '%s': more than %d recipients", email,
			REPORT_MAX_RCPT);
		return 0;
	}
	report_clean_text(&nm, name);
	cut_utf8(&nm, MAX_NAME);
	/* a name that is the address itself says nothing */
	if (!strcasecmp(nm.buf, email))
		strbuf_reset(&nm);
	ALLOC_GROW(l->a, l->nr + 1, l->alloc);
	l->a[l->nr].name = strbuf_detach(&nm, NULL);
	l->a[l->nr].email = xstrdup(email);
	l->nr++;
	return 1;
}

/* "<a b@c>": a blank between the last '<' and the '>' after it */
static int blank_in_angle(const char *s)
{
	const char *lt = strrchr(s, '<'), *gt;

	if (!lt)
		return 0;
	gt = strchr(lt, '>');
	if (!gt)
		gt = lt + strlen(lt);
	while (++lt < gt)
		if (isspace((unsigned char)*lt))
			return 1;
	return 0;
}

void report_addresses_add_field(struct report_addresses *l, const char *raw)
{
	const char *p = raw, *start = raw;
	int quoted = 0, depth = 0, angle = 0;

	if (!raw)
		return;
	for (;; p++) {
		if (*p == '\\' && p[1] && (quoted || depth)) {
			p++;
			continue;
		}
		if (!*p || (*p == ',' && !quoted && !depth && !angle)) {
			char *one = xstrndup(start, p - start), *name, *email;

			mail_parse_address(one, &name, &email);
			/* the parser drops blanks in <a b@c>: refuse those */
			if (blank_in_angle(one))
				warning("leaving out an address with a blank "
					"in it");
			else
				report_addresses_add(l, name, email);
			free(one);
			free(name);
			free(email);
			if (!*p)
				break;
			start = p + 1;
		} else if (quoted) {
			quoted = *p != '"';
		} else if (depth) {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		} else if (*p == '"') {
			quoted = 1;
		} else if (*p == '(') {
			depth = 1;
		} else if (*p == '<') {
			angle = 1;
		} else if (*p == '>') {
			angle = 0;
		}
	}
}

void report_addresses_release(struct report_addresses *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->a[i].name);
		free(l->a[i].email);
	}
	free(l->a);
	memset(l, 0, sizeof(*l));
}

static int has_address(const struct report_addresses *l, const char *email)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->a[i].email, email))
			return 1;
	return 0;
}

static void format_address(struct strbuf *out, const struct report_address *a)
{
	const char *p;
	int plain = 1;

	if (!*a->name) {
		strbuf_addstr(out, a->email);
		return;
	}
	if (needs_encoding(a->name)) {
		add_encoded_words(out, a->name, " ");
	} else {
		for (p = a->name; *p; p++)
			if (*p != ' ' && !isalnum((unsigned char)*p) &&
			    !strchr("!#$%&'*+-/=?^_`{|}~", *p))
				plain = 0;
		if (plain) {
			strbuf_addstr(out, a->name);
		} else {
			strbuf_addch(out, '"');
			for (p = a->name; *p; p++) {
				if (*p == '"' || *p == '\\')
					strbuf_addch(out, '\\');
				strbuf_addch(out, *p);
			}
			strbuf_addch(out, '"');
		}
	}
	strbuf_addf(out, " <%s>", a->email);
}

void report_add_address_header(struct strbuf *msg, const char *name,
			       const struct report_addresses *l)
{
	struct strbuf one = STRBUF_INIT;
	size_t i, col = strlen(name) + 2;

	if (!l->nr)
		return;
	strbuf_addf(msg, "%s: ", name);
	for (i = 0; i < l->nr; i++) {
		strbuf_reset(&one);
		format_address(&one, &l->a[i]);
		if (i && col + 2 + one.len > FOLD_COLUMN) {
			strbuf_addstr(msg, ",\n ");
			col = 1;
		} else if (i) {
			strbuf_addstr(msg, ", ");
			col += 2;
		}
		strbuf_addbuf(msg, &one);
		col += one.len;
	}
	strbuf_addch(msg, '\n');
	strbuf_release(&one);
}

/* ---- the subject ---- */

void report_metric_name(struct strbuf *out, const struct metric_comparison *m)
{
	strbuf_addstr(out, m->workload);
	if (m->variant && *m->variant)
		strbuf_addf(out, ".%s", m->variant);
	strbuf_addf(out, ".%s", m->metric);
}

const struct metric_comparison *
report_pick_metric(const struct run_comparison *rc)
{
	const struct metric_comparison *worse = NULL, *better = NULL;
	size_t i;

	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *m = &rc->m[i];
		const struct metric_comparison **best;
		double a = fabs(m->c.change_pct);

		if (m->c.verdict == VERDICT_WORSE)
			best = &worse;
		else if (m->c.verdict == VERDICT_BETTER)
			best = &better;
		else
			continue;
		if (!*best || (!isnan(a) &&
			       (isnan(fabs((*best)->c.change_pct)) ||
				a > fabs((*best)->c.change_pct))))
			*best = m;
	}
	return worse ? worse : better;
}

void report_subject(struct strbuf *out, const char *what,
		    const struct run_comparison *rc)
{
	const struct metric_comparison *m = report_pick_metric(rc);
	struct strbuf s = STRBUF_INIT;
	size_t i;
	int decided = 0;

	strbuf_addf(&s, "[mmci] %s: ", what);
	if (m) {
		/* the subject is short: the variant is in the body */
		strbuf_addf(&s, "%s.%s", m->workload, m->metric);
		if (!isnan(m->c.change_pct))
			strbuf_addf(&s, " %+.1f%%", m->c.change_pct);
		strbuf_addstr(&s, m->c.verdict == VERDICT_WORSE ?
				  " regression" : " improvement");
	} else {
		for (i = 0; i < rc->nr; i++)
			decided |= rc->m[i].c.verdict == VERDICT_NO_CHANGE;
		strbuf_addstr(&s, decided ? "no significant change" :
					    "insufficient data");
	}
	report_clean_text(out, s.buf);
	strbuf_release(&s);
}

/* ---- what the database and the thread say ---- */

/*
 * The single text value of statement @st into *@out (caller frees), or
 * NULL there when it gives no row or NULL. Finalizes @st (NULL: the
 * query failed). Returns 0, or -1 after error().
 */
static int text_of(struct db *db, sqlite3_stmt *st, char **out)
{
	int rc;

	*out = NULL;
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* the thread's mails, parsed again from the mbox as ingested */
struct thread_mails {
	struct mail *mails;
	size_t nr;
};

static void load_thread(const struct series_row *s, struct thread_mails *t)
{
	const char *paths[] = { s->cache_path, s->source };
	struct strbuf buf = STRBUF_INIT, damage = STRBUF_INIT;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!*paths[i] || !file_exists(paths[i]))
			continue;
		strbuf_reset(&buf);
		if (mbox_read_file(paths[i], &buf, &damage) < 0)
			continue;
		if (mbox_parse(buf.buf, buf.len, &t->mails, &t->nr) == 0)
			break;
	}
	if (!t->nr)
		warning("series #%lld: its mbox is gone; the report goes to "
			"the author only, not to the series' To and Cc", s->id);
	strbuf_release(&buf);
	strbuf_release(&damage);
}

static const struct mail *find_mail(const struct thread_mails *t,
				    const char *id)
{
	size_t i;

	for (i = 0; id && *id && i < t->nr; i++)
		if (t->mails[i].message_id &&
		    !strcmp(t->mails[i].message_id, id))
			return &t->mails[i];
	return NULL;
}

/* ---- the message ---- */

static char *host_cpu_model(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	struct strbuf line = STRBUF_INIT;
	char *ret = NULL;
	const char *v;

	if (!fp)
		return NULL;
	while (!ret && strbuf_getline(&line, fp) != EOF) {
		if (!starts_with(line.buf, "model name"))
			continue;
		v = strchr(line.buf, ':');
		if (v) {
			struct strbuf c = STRBUF_INIT;

			report_clean_text(&c, v + 1);
			ret = strbuf_detach(&c, NULL);
		}
	}
	strbuf_release(&line);
	fclose(fp);
	return ret;
}

static void add_date(struct strbuf *msg, time_t t)
{
	static const char *const days[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	strbuf_addf(msg, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\n",
		    days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
		    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static char *new_message_id(const char *domain, time_t t)
{
	unsigned char r[6];
	char hex[13], stamp[32];
	struct tm tm;
	size_t i;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t x = now_ns() ^ ((uint64_t)getpid() << 40);

		for (i = 0; i < sizeof(r); i++)
			r[i] = x >> (8 * i);
	}
	for (i = 0; i < sizeof(r); i++)
		xsnprintf(hex + 2 * i, 3, "%02x", r[i]);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	return xstrfmt("%s.%ld.%s.mmci@%s", stamp, (long)getpid(), hex,
		       domain);
}

static int valid_domain(const char *d)
{
	char *a = xstrfmt("x@%s", d);
	int ok = smtp_valid_address(a);

	free(a);
	return ok;
}

/* one-line text from the database, cleaned, for the body */
static const char *clean(struct strbuf *tmp, const char *s)
{
	strbuf_reset(tmp);
	report_clean_text(tmp, s);
	return tmp->buf;
}

static const char *short_commit(const char *c, char buf[13])
{
	size_t n = strspn(c, "0123456789abcdef");

	if (!n)
		return "(unknown)";
	xsnprintf(buf, 13, "%.*s", (int)(n < 12 ? n : 12), c);
	return buf;
}

/*
 * The body ends up in a mail: no NUL or CR, no line over MAX_BODY_LINE
 * bytes (broken at a character boundary), a final newline.
 */
static void add_body(struct strbuf *msg, const struct strbuf *body)
{
	size_t i, col = 0;

	for (i = 0; i < body->len; i++) {
		unsigned char c = body->buf[i];

		if (c == '\r')
			continue;
		if (c == '\n') {
			strbuf_addch(msg, '\n');
			col = 0;
			continue;
		}
		if (col >= MAX_BODY_LINE && (c & 0xc0) != 0x80) {
			strbuf_addch(msg, '\n');
			col = 0;
		}
		strbuf_addch(msg, c ? c : '?');
		col++;
	}
	if (!msg->len || msg->buf[msg->len - 1] != '\n')
		strbuf_addch(msg, '\n');
}

struct compose_ctx {
	struct report_input in;
	struct run_row base, new;
	struct series_row series;
	struct thread_mails thread;
	const struct mail *cover, *target;
	int patch_idx;
	char *target_msgid, *target_subject;
	char *commit_subject, *commit_author, *commit_branch;
	const char *web_url;
	struct report_addresses from, to, cc;
	struct run_comparison rc;
};

/*
 * The patch whose mail the report answers: the one given, else the one
 * the two runs' builds differ by (base has patches 1..k-1, new 1..k),
 * unless new has the whole series on a plain base (then the cover letter).
 */
static int pick_patch(const struct compose_ctx *x)
{
	long long sid = x->series.id, bu;

	if (x->in.patch_idx)
		return x->in.patch_idx;
	if (x->new.series_id != sid)
		return 0;
	if (x->base.series_id && x->base.series_id != sid)
		return 0;
	bu = x->base.series_id ? x->base.upto : 0;
	if (x->new.upto != bu + 1)
		return 0;
	if (bu == 0 && x->new.upto >= x->series.total)
		return 0;
	return (int)x->new.upto;
}

static int load_series_side(struct db *db, struct compose_ctx *x)
{
	struct series_row *s = &x->series;

	if (series_row_load(db, x->in.series_id, s) < 0)
		return -1;
	load_thread(s, &x->thread);
	x->cover = find_mail(&x->thread, s->message_id);
	x->patch_idx = pick_patch(x);
	return 0;
}

/*
 * patches.<col> of patch @idx of series @sid into *@out, NULL when there
 * is none; caller frees. Returns 0, or -1 after error().
 */
static int patch_text(struct db *db, const char *col, long long sid,
		      int idx, char **out)
{
	char *sql = xstrfmt("SELECT %s FROM patches WHERE series_id = ? AND "
			    "idx = ?", col);
	sqlite3_stmt *st = db_query(db, sql, "ii", sid, (long long)idx);

	free(sql);
	return text_of(db, st, out);
}

static void add_from_field(struct report_addresses *l, const char *raw)
{
	char *name, *email;

	if (!raw)
		return;
	mail_parse_address(raw, &name, &email);
	report_addresses_add(l, name, email);
	free(name);
	free(email);
}

/* To: the author; Cc: what the answered mail (and the cover) had */
static void series_recipients(struct compose_ctx *x, const char *own)
{
	const struct mail *mails[2] = { x->target, x->cover };
	struct report_addresses all = { 0 };
	size_t i, j;

	if (x->target)
		add_from_field(&all, mail_header(x->target, "From"));
	else if (x->cover)
		add_from_field(&all, mail_header(x->cover, "From"));
	if (!all.nr)
		add_from_field(&all, x->series.author);
	for (i = 0; i < all.nr; i++)
		if (strcasecmp(all.a[i].email, own))
			report_addresses_add(&x->to, all.a[i].name,
					     all.a[i].email);
	report_addresses_release(&all);
	for (i = 0; i < x->in.nr_to; i++)
		add_from_field(&all, x->in.to[i]);
	for (i = 0; i < all.nr; i++)
		report_addresses_add(&x->to, all.a[i].name, all.a[i].email);
	report_addresses_release(&all);
	for (j = 0; j < ARRAY_SIZE(mails); j++) {
		if (!mails[j] || (j && mails[j] == mails[0]))
			continue;
		report_addresses_add_field(&all, mail_header(mails[j], "To"));
		report_addresses_add_field(&all, mail_header(mails[j], "Cc"));
	}
	for (i = 0; i < all.nr; i++)
		if (strcasecmp(all.a[i].email, own) &&
		    !has_address(&x->to, all.a[i].email))
			report_addresses_add(&x->cc, all.a[i].name,
					     all.a[i].email);
	report_addresses_release(&all);
}

static void add_threading(struct strbuf *msg, struct compose_ctx *x)
{
	struct strbuf refs = STRBUF_INIT;
	const char *ids[REPORT_MAX_REFERENCES];
	size_t nr = 0, i, col;

	if (!report_valid_msgid(x->target_msgid)) {
		if (x->target_msgid && *x->target_msgid)
			warning("not threading the report: the message-id of "
				"the mail it answers is not valid");
		return;
	}
	if (x->target && x->target->nr_references) {
		size_t n = x->target->nr_references, from = 0;

		if (n > REPORT_MAX_REFERENCES - 1)
			from = n - (REPORT_MAX_REFERENCES - 1);
		for (i = from; i < n; i++)
			if (report_valid_msgid(x->target->references[i]) &&
			    strcmp(x->target->references[i], x->target_msgid))
				ids[nr++] = x->target->references[i];
	} else if (x->patch_idx && report_valid_msgid(x->series.message_id) &&
		   strcmp(x->series.message_id, x->target_msgid)) {
		ids[nr++] = x->series.message_id;
	}
	ids[nr++] = x->target_msgid;
	strbuf_addf(msg, "In-Reply-To: <%s>\n", x->target_msgid);
	strbuf_addstr(&refs, "References:");
	col = refs.len;
	for (i = 0; i < nr; i++) {
		size_t n = strlen(ids[i]) + 2;

		if (i && col + 1 + n > FOLD_COLUMN) {
			strbuf_addstr(&refs, "\n ");
			col = 1;
		} else {
			strbuf_addch(&refs, ' ');
			col++;
		}
		strbuf_addf(&refs, "<%s>", ids[i]);
		col += n;
	}
	strbuf_addbuf(msg, &refs);
	strbuf_addch(msg, '\n');
	strbuf_release(&refs);
}

static void add_run_details(struct strbuf *b, const char *side,
			    const struct run_row *r)
{
	struct strbuf t = STRBUF_INIT;
	char sc[13];

	/* no label: a reused run keeps the one its own job gave it */
	strbuf_addf(b, "%-5s run #%lld: kernel %s", side, r->id,
		    clean(&t, r->release));
	if (*r->commit)
		strbuf_addf(b, ", commit %s", short_commit(r->commit, sc));
	else
		strbuf_addf(b, ", prebuilt %s", clean(&t, r->kernel));
	if (r->series_id)
		strbuf_addf(b, ", series #%lld patches 1-%d", r->series_id,
			    r->upto);
	strbuf_addch(b, '\n');
	strbuf_release(&t);
}

/*
 * The config as the reader can rebuild it: the fragment's name and the
 * .config's sha1, never the options one by one (the bundle holds both
 * files) nor the path on the mmci host.
 */
static void add_config(struct strbuf *b, const char *fragment,
		       const char *hash)
{
	struct strbuf t = STRBUF_INIT;
	const char *base = strrchr(fragment, '/');

	base = base ? base + 1 : fragment;
	strbuf_addf(b, "config: tinyconfig + kvm_guest.config + %s (.config "
		    "sha1 %.12s)\n", clean(&t, base), hash);
	strbuf_release(&t);
}

/*
 * The metrics of @rc that moved, two lines each (name, then base -> new,
 * change, interval, verdict), then how many did not: a mail says what
 * changed, the page has every metric.
 */
static void mail_metrics(struct strbuf *b, const struct run_comparison *rc)
{
	size_t i, quiet = 0, unsure = 0;

	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *m = &rc->m[i];
		const struct comparison *c = &m->c;

		if (c->verdict != VERDICT_WORSE && c->verdict != VERDICT_BETTER) {
			if (c->verdict == VERDICT_INSUFFICIENT)
				unsure++;
			else
				quiet++;
			continue;
		}
		metric_comparison_format_mail(b, m, "  ");
	}
	if (quiet)
		strbuf_addf(b, "  %zu other metric(s): no significant change\n",
			    quiet);
	if (unsure)
		strbuf_addf(b, "  %zu other metric(s): insufficient data\n",
			    unsure);
}

/* the test behind a verdict, in one line: mode, unit, rule, alpha */
static void mail_test_line(struct strbuf *b, const struct run_comparison *rc)
{
	if (!strcmp(rc->clock, "icount"))
		strbuf_addstr(b, "test: icount clock, every sample a unit: a "
			      "change beyond the clock's resolution (1 jiffy "
			      "for the kernel's own times, 1 us for the "
			      "runner's) is a change; measured false alarms "
			      "0 of 37 metrics (bench/README.md)\n");
	else
		strbuf_addstr(b, "test: wall clock, the boot is the unit: "
			      "Mann-Whitney p < 0.005 and the 99.5 % interval "
			      "excluding 0; measured false alarms 0.1-0.2 % at "
			      "6 vs 6 boots (docs/STATISTICS.md)\n");
}

/*
 * Lines longer than REPORT_MAIL_COLUMNS are folded at a blank, their
 * continuation indented 2 more than the line; a word longer than the
 * line (a URL) stays whole on a line of its own.
 */
static void wrap_lines(struct strbuf *b)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = b->buf;

	while (*p) {
		const char *eol = strchrnul(p, '\n');
		size_t len = eol - p, indent = strspn(p, " "), col, n;
		const char *w = p + indent;
		int at_start;

		if (len <= REPORT_MAIL_COLUMNS) {
			strbuf_add(&out, p, len);
		} else {
			/* words, a blank between them, as many as fit */
			for (n = 0; n < indent; n++)
				strbuf_addch(&out, ' ');
			col = indent;
			at_start = 1;
			while (w < eol) {
				const char *e = w;
				size_t wl;

				while (e < eol && *e != ' ')
					e++;
				wl = e - w;
				if (!at_start && col + 1 + wl > REPORT_MAIL_COLUMNS) {
					strbuf_addch(&out, '\n');
					for (n = 0; n < indent + 2; n++)
						strbuf_addch(&out, ' ');
					col = indent + 2;
					at_start = 1;
				}
				if (!at_start) {
					strbuf_addch(&out, ' ');
					col++;
				}
				strbuf_add(&out, w, wl);
				col += wl;
				at_start = 0;
				w = e;
				while (w < eol && *w == ' ')
					w++;
			}
		}
		if (*eol)
			strbuf_addch(&out, '\n');
		p = *eol ? eol + 1 : eol;
	}
	strbuf_reset(b);
	strbuf_addbuf(b, &out);
	strbuf_release(&out);
}

static void compose_body(struct db *db, struct compose_ctx *x,
			 const char *from_line, struct strbuf *b)
{
	const struct metric_comparison *m = report_pick_metric(&x->rc);
	struct strbuf t = STRBUF_INIT, t2 = STRBUF_INIT, name = STRBUF_INIT;
	char host[256] = "", sc[13], sc2[13];
	char *cpu = NULL;
	size_t i;

	strbuf_addstr(b, "verdict: ");
	if (x->in.headline)
		strbuf_addstr(b, clean(&t, x->in.headline));
	else
		compare_verdict(&x->rc, b);
	strbuf_addstr(b, "\n\nHello,\n\n");
	if (x->in.headline) {
		strbuf_addstr(b, "mmci measured a patch of this series that "
			      "regressed in its own step:\n\n");
	} else if (m) {
		report_metric_name(&name, m);
		strbuf_addf(b, "mmci measured a %+.1f%% %s of %s on:\n\n",
			    m->c.change_pct, m->c.verdict == VERDICT_WORSE ?
			    "regression" : "improvement", name.buf);
	} else {
		strbuf_addf(b, "mmci measured no significant change in %zu "
			    "metric(s) on:\n\n", x->rc.nr);
	}
	if (x->series.id) {
		strbuf_addf(b, "series: %s\n", clean(&t, x->target_subject));
		strbuf_addf(b, "        (series #%lld, v%d, %d patch(es), by "
			    "%s)\n", x->series.id, x->series.version,
			    x->series.total, clean(&t, x->series.author));
		if (x->series.first_missing) {
			char *note = series_row_partial(&x->series);

			strbuf_addf(b, "        (%s)\n", note);
			free(note);
		}
		if (x->patch_idx)
			strbuf_addf(b, "patch:  %d/%d, the patch that moved "
				    "the numbers\n", x->patch_idx,
				    x->series.total);
		if (report_valid_msgid(x->target_msgid)) {
			strbuf_addstr(b, "link:   ");
			report_lore_url(b, x->target_msgid);
			strbuf_addch(b, '\n');
		}
	}
	if (x->in.commit) {
		strbuf_addf(b, "commit: %s", x->in.commit);
		if (x->commit_subject)
			strbuf_addf(b, " (\"%s\")",
				    clean(&t, x->commit_subject));
		strbuf_addch(b, '\n');
		if (x->commit_branch)
			strbuf_addf(b, "branch: %s\n",
				    clean(&t, x->commit_branch));
		if (x->commit_author)
			strbuf_addf(b, "author: %s\n",
				    clean(&t, x->commit_author));
	}
	strbuf_addch(b, '\n');
	add_run_details(b, "base:", &x->base);
	add_run_details(b, "new:", &x->new);
	strbuf_addch(b, '\n');

	strbuf_addstr(b, "testcase: ");
	for (i = 0; i < x->rc.nr; i++) {
		if (i && !strcmp(x->rc.m[i].workload, x->rc.m[i - 1].workload))
			continue;
		strbuf_addf(b, "%s%s", b->buf[b->len - 1] == ' ' ? "" : ", ",
			    clean(&t, x->rc.m[i].workload));
	}
	strbuf_addch(b, '\n');
	if (*x->new.fragment)
		add_config(b, x->new.fragment, x->new.config_hash);
	if (*x->new.compiler)
		strbuf_addf(b, "compiler: %s\n", clean(&t, x->new.compiler));
	gethostname(host, sizeof(host) - 1);
	if (!strcmp(host, x->new.host))
		cpu = host_cpu_model();
	strbuf_addf(b, "test machine: %s", clean(&t, x->new.host));
	if (cpu)
		strbuf_addf(b, ", %s, %ld CPU(s)", cpu,
			    sysconf(_SC_NPROCESSORS_ONLN));
	strbuf_addf(b, "\nguest: %lld vCPU(s), %lld MiB RAM, %lld MiB NVDIMM "
		    "on %s, HZ=%d\n", x->new.vcpus, x->new.ram_mib,
		    x->new.nvdimm_mib, x->new.backing,
		    x->new.hz ? x->new.hz : x->new.build_hz);
	strbuf_addf(b, "accelerator: %s, clock: %s (%s)\n", x->new.accel,
		    x->new.clock, !strcmp(x->new.clock, "icount") ?
		    "deterministic: counts instructions, not cache or memory "
		    "effects" : "wall clock: the boot is the unit");
	if (*x->new.qemu_v || *x->new.libvirt_v)
		strbuf_addf(b, "qemu: %s, libvirt: %s\n",
			    clean(&t, x->new.qemu_v),
			    clean(&t2, x->new.libvirt_v));
	if (x->new.cmdline && *x->new.cmdline)
		strbuf_addf(b, "guest command line: %s\n",
			    clean(&t, x->new.cmdline));
	mail_test_line(b, &x->rc);
	strbuf_addch(b, '\n');

	if (x->in.headline || (m && m->c.verdict == VERDICT_WORSE)) {
		strbuf_addf(b, "A commit that fixes this on its own (not a new "
			    "version of the same patch)\nmay carry these "
			    "tags:\n"
			    "| Reported-by: %s\n"
			    "| Closes: %s/compare/%lld/%lld\n\n", from_line,
			    x->web_url, x->base.id, x->new.id);
	}
	strbuf_addstr(b, "The numbers\n-----------\n\n");
	strbuf_addf(b, "Plots, every sample and what it takes to reproduce "
		    "them:\n%s/compare/%lld/%lld\n\n", x->web_url,
		    x->base.id, x->new.id);
	strbuf_addf(b, "commit:\n  %s (run #%lld, base)\n  %s (run #%lld)\n\n",
		    *x->base.commit ? short_commit(x->base.commit, sc) :
		    "prebuilt", x->base.id,
		    *x->new.commit ? short_commit(x->new.commit, sc2) :
		    "prebuilt", x->new.id);
	/* the patches' own steps first, then the series as a whole, whose
	 * verdict is part of the one verdict line above, not a second one */
	if (x->in.steps && *x->in.steps) {
		strbuf_addstr(b, x->in.steps);
		strbuf_rtrim(b);
		strbuf_addstr(b, "\n\n");
	}
	strbuf_addf(b, "The series as a whole (run #%lld against run #%lld): ",
		    x->new.id, x->base.id);
	compare_verdict(&x->rc, b);
	strbuf_addstr(b, "\n");
	if (x->rc.notes)
		strbuf_addf(b, "note: %s\n", x->rc.notes);
	mail_metrics(b, &x->rc);
	if (x->in.prev_run > 0) {
		struct run_comparison vrc;

		if (compare_runs(db, x->in.prev_run, x->new.id, &vrc) == 0) {
			strbuf_addf(b, "\nThis version against v%d (run #%lld "
				    "against run #%lld): ", x->in.prev_version,
				    x->new.id, x->in.prev_run);
			compare_verdict(&vrc, b);
			strbuf_addch(b, '\n');
			mail_metrics(b, &vrc);
			run_comparison_release(&vrc);
		}
	}
	if (x->in.profile && *x->in.profile) {
		strbuf_rtrim(b);
		strbuf_addstr(b, "\n\nWhere the instructions went (the same "
			      "kernels booted once more, QEMU\ncounting each "
			      "function's instructions in the timed writes; "
			      "per write,\n1 instruction = 1 ns under "
			      "icount):\n\n");
		strbuf_addstr(b, x->in.profile);
	}
	if (x->in.extra && *x->in.extra) {
		strbuf_rtrim(b);
		strbuf_addstr(b, "\n\n");
		strbuf_addstr(b, x->in.extra);
	}
	strbuf_rtrim(b);
	strbuf_addf(b, "\n\nTo reproduce on any host with mmci (each bundle "
		    "holds the kernel config,\nthe series, the base and its "
		    "remote, the VM and the recorded numbers):\n\n"
		    "        mmci reproduce --bundle %s/bundle/%lld\n"
		    "        mmci reproduce --bundle %s/bundle/%lld\n\n",
		    x->web_url, x->new.id, x->web_url, x->base.id);
	strbuf_addstr(b, "These numbers come from QEMU guests, not from "
		      "bare metal: another host,\nCPU or kernel "
		      "configuration can move them.\n\n");
	strbuf_addf(b, "-- \nmmci, kernel CI for Linux mm\n");
	if (x->series.id)
		strbuf_addf(b, "%s/series/%lld\n", x->web_url, x->series.id);
	else
		strbuf_addf(b, "%s/\n", x->web_url);
	free(cpu);
	strbuf_release(&t);
	strbuf_release(&t2);
	strbuf_release(&name);
}

static void compose_ctx_release(struct compose_ctx *x)
{
	run_row_release(&x->base);
	run_row_release(&x->new);
	series_row_release(&x->series);
	mails_free(x->thread.mails, x->thread.nr);
	free(x->target_msgid);
	free(x->target_subject);
	free(x->commit_subject);
	free(x->commit_author);
	free(x->commit_branch);
	report_addresses_release(&x->from);
	report_addresses_release(&x->to);
	report_addresses_release(&x->cc);
	run_comparison_release(&x->rc);
}

static const char *env_default(const char *given, const char *env,
			       const char *def)
{
	const char *v = getenv(env);

	if (given && *given)
		return given;
	return v && *v ? v : def;
}

const char *report_web_url(const char *given)
{
	return env_default(given, "MMCI_WEB_URL", REPORT_DEFAULT_WEB_URL);
}

/* drop @l's addresses that are on the opt-out list; how many went */
static size_t drop_opted_out(struct report_addresses *l,
			     const struct report_addresses *out)
{
	size_t i, kept = 0, dropped = 0;

	for (i = 0; i < l->nr; i++) {
		if (has_address(out, l->a[i].email)) {
			free(l->a[i].name);
			free(l->a[i].email);
			dropped++;
			continue;
		}
		l->a[kept++] = l->a[i];
	}
	l->nr = kept;
	return dropped;
}

/*
 * MMCI_MAIL_OPT_OUT: an author or a list that asked for no mail. A
 * recipient on it is left out; the author on it means no mail at all,
 * which report_job() decides (out->author_opted_out).
 */
static int apply_opt_out(struct compose_ctx *x, struct report *out)
{
	struct report_addresses opt = { 0 }, author = { 0 };
	const char *v = getenv("MMCI_MAIL_OPT_OUT");
	size_t i;

	if (!v || !*v)
		return 0;
	if (report_opt_out_parse(v, &opt) < 0)
		return -1;
	if (x->series.author)
		add_from_field(&author, x->series.author);
	for (i = 0; i < author.nr; i++)
		if (has_address(&opt, author.a[i].email))
			out->author_opted_out = 1;
	out->nr_opted_out = drop_opted_out(&x->to, &opt) +
			    drop_opted_out(&x->cc, &opt);
	report_addresses_release(&author);
	report_addresses_release(&opt);
	return 0;
}

static int valid_commit(const char *c)
{
	size_t n = strspn(c, "0123456789abcdef");

	return !c[n] && n >= 7 && n <= 64;
}

/* the commit's subject, author and branch, when a tree head had it */
static int load_commit(struct db *db, struct compose_ctx *x)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT c.subject, c.author, h.remote || '/' || h.branch "
		"FROM head_commits c JOIN heads h ON h.id = c.head_id WHERE "
		"c.commit_id LIKE ? || '%' ORDER BY h.id DESC LIMIT 1", "t",
		x->in.commit);
	int rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		x->commit_subject = xstrdup(db_col_text(st, 0));
		x->commit_author = xstrdup(db_col_text(st, 1));
		x->commit_branch = xstrdup(db_col_text(st, 2));
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/*
 * A commit of a tree that came from the list (the title of a stored patch,
 * by the same author when both are known; the newest series first) is
 * reported in that patch's thread, as the kernel test robot replies to
 * the patch that caused a regression.
 */
static int link_commit_to_patch(struct db *db, struct compose_ctx *x)
{
	const char *a = x->commit_author, *lt, *gt;
	char *email = NULL;
	sqlite3_stmt *st;
	int rc = -1;

	if (!x->commit_subject)
		return 0;
	lt = a ? strrchr(a, '<') : NULL;
	gt = lt ? strchr(lt, '>') : NULL;
	if (gt)
		email = xstrndup(lt, gt - lt + 1);
	st = db_query(db, "SELECT series_id, idx FROM patches WHERE title = ? "
		      "AND (? IS NULL OR author IS NULL OR instr(author, ?) > "
		      "0) ORDER BY series_id DESC, idx LIMIT 1", "ttt",
		      x->commit_subject, email, email);
	if (st)
		rc = db_step(db, st);
	if (rc == DB_ROW) {
		x->in.series_id = sqlite3_column_int64(st, 0);
		x->in.patch_idx = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	free(email);
	return rc < 0 ? -1 : 0;
}

/*
 * report_compose() in steps: the sender, the two runs and their
 * comparison, what the report answers (a patch of a series, a commit, or
 * only the two runs), the envelope, the headers, the body. Each step
 * fills the context or the report; a step that fails has said why.
 */

/* From, the message-id domain and the web address; *domain points into
 * x->from or the environment, @url holds the web address */
static int compose_sender(struct compose_ctx *x, const char **domain,
			  struct strbuf *url)
{
	const char *from, *own;

	from = env_default(x->in.from, "MMCI_MAIL_FROM", REPORT_DEFAULT_FROM);
	add_from_field(&x->from, from);
	if (!x->from.nr)
		return error("no valid sender address in '%s' (--from, "
			     "MMCI_MAIL_FROM)", from);
	own = x->from.a[0].email;
	*domain = env_default(x->in.msgid_domain, "MMCI_MAIL_DOMAIN",
			      strchr(own, '@') + 1);
	if (!valid_domain(*domain)) {
		warning("'%s' is not a domain name; message-ids use "
			"'localhost'", *domain);
		*domain = "localhost";
	}
	report_clean_text(url, report_web_url(x->in.web_url));
	while (url->len && url->buf[url->len - 1] == '/')
		strbuf_setlen(url, url->len - 1);
	x->web_url = url->buf;
	return 0;
}

/*
 * Run @r as the last step of series job @job it stands for: its commit
 * and patches are that step's (the head the job applied on the base's
 * commit), when they are not the run's own build's (a run shared by two
 * steps of one kernel). 0, or -1 after error().
 */
static int as_job_step(struct db *db, long long job, long long series,
		       const char *base_commit, struct run_row *r)
{
	long long upto = -1;
	sqlite3_stmt *st;
	int rc;

	if (db_int_checked(db, &upto, "SELECT max(upto) FROM job_steps WHERE "
			   "job_id = ? AND run_id = ?", "ii", job, r->id) < 0)
		return -1;
	if (upto <= 0 || (r->series_id == series && r->upto == upto))
		return 0;
	st = db_query(db, "SELECT head_commit FROM applies WHERE series_id = ? "
		      "AND upto = ? AND base_commit = ? AND status = 'ok' AND "
		      "head_commit IS NOT NULL ORDER BY id DESC LIMIT 1", "iit",
		      series, upto, base_commit);
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		free(r->commit);
		r->commit = xstrdup(db_col_text(st, 0));
		r->series_id = series;
		r->upto = (int)upto;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* the two runs, their comparison, and the series or commit they test */
static int compose_load(struct db *db, struct compose_ctx *x)
{
	if (run_load(db, x->in.base_run, &x->base) < 0 ||
	    run_load(db, x->in.new_run, &x->new) < 0)
		return -1;
	if (x->in.job && x->in.series_id &&
	    as_job_step(db, x->in.job, x->in.series_id, x->base.commit,
			&x->new) < 0)
		return -1;
	if (compare_runs(db, x->in.base_run, x->in.new_run, &x->rc) < 0)
		return -1;
	if (!x->in.series_id && !x->in.commit)
		x->in.series_id = x->new.series_id;
	if (!x->in.series_id && x->in.commit &&
	    (load_commit(db, x) < 0 || link_commit_to_patch(db, x) < 0))
		return -1;
	return 0;
}

/* a series: the mail answered (a patch or the cover letter), its subject
 * into @what, the series' people as recipients */
static int compose_series_target(struct db *db, struct compose_ctx *x,
				 struct strbuf *what)
{
	if (load_series_side(db, x) < 0)
		return -1;
	if (x->patch_idx) {
		if (patch_text(db, "message_id", x->series.id, x->patch_idx,
			       &x->target_msgid) < 0)
			return -1;
		if (!x->target_msgid && x->in.patch_idx)
			return error("series #%lld has no patch %d",
				     x->series.id, x->patch_idx);
	}
	if (!x->target_msgid) {
		x->patch_idx = 0;
		x->target_msgid = xstrdup(x->series.message_id);
	}
	x->target = find_mail(&x->thread, x->target_msgid);
	if (x->target && *x->target->subject)
		x->target_subject = xstrdup(x->target->subject);
	if (!x->target_subject &&
	    text_of(db, db_query(db, "SELECT subject FROM messages WHERE "
				 "message_id = ? ORDER BY id DESC LIMIT 1",
				 "t", x->target_msgid),
		    &x->target_subject) < 0)
		return -1;
	if (!x->target_subject && x->patch_idx) {
		char *title;

		if (patch_text(db, "title", x->series.id, x->patch_idx,
			       &title) < 0)
			return -1;
		if (title)
			x->target_subject = xstrfmt("[PATCH v%d %d/%d] %s",
						    x->series.version,
						    x->patch_idx,
						    x->series.total, title);
		free(title);
	}
	if (!x->target_subject)
		x->target_subject = xstrfmt("[PATCH v%d %d/%d] %s",
					    x->series.version, x->patch_idx,
					    x->series.total, x->series.title);
	strbuf_addstr(what, x->target_subject);
	series_recipients(x, x->from.a[0].email);
	return 0;
}

/* no series: a commit of a tree, or only the two runs; --to recipients */
static void compose_other_target(struct compose_ctx *x, struct strbuf *what)
{
	char sc[13];
	size_t i;

	if (x->in.commit) {
		if (x->commit_branch)
			strbuf_addf(what, "[%s] ", x->commit_branch);
		strbuf_addf(what, "%s", short_commit(x->in.commit, sc));
		if (x->commit_subject)
			strbuf_addf(what, " %s", x->commit_subject);
		if (x->commit_author)
			add_from_field(&x->to, x->commit_author);
	} else {
		strbuf_addf(what, "run #%lld vs run #%lld", x->in.base_run,
			    x->in.new_run);
	}
	for (i = 0; i < x->in.nr_to; i++)
		add_from_field(&x->to, x->in.to[i]);
}

/* the subject of @x's report, @what being the series' or commit's title */
static void subject_for(const struct compose_ctx *x, const char *what,
			struct strbuf *s)
{
	if (x->in.headline && !x->rc.worse) {
		/* the series hides a patch's regression: say so, the
		 * patches first; the series as a whole in a word */
		struct strbuf h = STRBUF_INIT;
		const char *cut = strstr(x->in.headline, "; the series as a "
					 "whole: ");

		strbuf_addf(&h, "[mmci] %s: %.*s", what,
			    cut ? (int)(cut - x->in.headline) :
				  (int)strlen(x->in.headline),
			    x->in.headline);
		if (cut)
			strbuf_addf(&h, "; series %s", x->rc.better ?
				    "better" : "no change");
		report_clean_text(s, h.buf);
		strbuf_release(&h);
	} else if (x->in.regressed && *x->in.regressed) {
		struct strbuf h = STRBUF_INIT;

		strbuf_addf(&h, "%s: patch%s %s", what,
			    strchr(x->in.regressed, ',') ? "es" : "",
			    x->in.regressed);
		report_subject(s, h.buf, &x->rc);
		strbuf_release(&h);
	} else {
		report_subject(s, what, &x->rc);
	}
}

/* what the report is, its message-id, sender, subject and recipients */
static void compose_envelope(const struct compose_ctx *x, const char *domain,
			     time_t date, const char *what, struct report *out)
{
	struct strbuf s = STRBUF_INIT;
	size_t i;

	out->kind = x->series.id && !x->in.commit ? "series" : "nightly";
	out->series_id = x->series.id;
	out->base_run = x->in.base_run;
	out->new_run = x->in.new_run;
	out->message_id = new_message_id(domain, date);
	out->from = xstrdup(x->from.a[0].email);
	/* the subject names the verdict whole; the series' title gives way */
	{
		size_t len = strlen(what), min = 16, n;
		char *w;

		for (;;) {
			w = len < strlen(what) ? xstrfmt("%.*s...", (int)len,
							 what) : xstrdup(what);
			strbuf_reset(&s);
			subject_for(x, w, &s);
			free(w);
			if (s.len <= REPORT_SUBJECT_MAX || len <= min)
				break;
			len = s.len - REPORT_SUBJECT_MAX + 3 < len - min ?
			      len - (s.len - REPORT_SUBJECT_MAX + 3) : min;
			/* at the end of a word when one ends nearby, and
			 * never in the middle of a UTF-8 character */
			for (n = len; n > min && len - n < 16; n--)
				if (what[n - 1] != ' ' && what[n] == ' ')
					break;
			if (n > min && len - n < 16)
				len = n;
			while (len > min && ((unsigned char)what[len] & 0xc0) ==
						    0x80)
				len--;
		}
	}
	out->subject = strbuf_detach(&s, NULL);
	out->rcpt = xcalloc(x->to.nr + x->cc.nr + 1, sizeof(*out->rcpt));
	for (i = 0; i < x->to.nr + x->cc.nr; i++) {
		const struct report_address *a = i < x->to.nr ? &x->to.a[i] :
					&x->cc.a[i - x->to.nr];

		out->rcpt[out->nr_rcpt++] = xstrdup(a->email);
	}
	if (!out->nr_rcpt)
		warning("the report has no recipients (no series, no --to)");
}

/* the headers: every value goes through the cleaning functions */
static void compose_headers(struct compose_ctx *x, time_t date,
			    struct report *out)
{
	report_add_address_header(&out->text, "From", &x->from);
	report_add_address_header(&out->text, "To", &x->to);
	report_add_address_header(&out->text, "Cc", &x->cc);
	report_add_header(&out->text, "Subject", out->subject);
	add_date(&out->text, date);
	strbuf_addf(&out->text, "Message-ID: <%s>\n", out->message_id);
	if (x->series.id)
		add_threading(&out->text, x);
	strbuf_addstr(&out->text,
		      "MIME-Version: 1.0\n"
		      "Content-Type: text/plain; charset=UTF-8\n"
		      "Content-Transfer-Encoding: 8bit\n"
		      "Auto-Submitted: auto-generated\n"
		      "X-Mailer: mmci\n");
	strbuf_addf(&out->text, "X-mmci-runs: %lld %lld\n", x->in.base_run,
		    x->in.new_run);
	strbuf_addch(&out->text, '\n');
}

int report_compose(struct db *db, const struct report_input *in,
		   struct report *out)
{
	struct compose_ctx x;
	struct strbuf what = STRBUF_INIT, body = STRBUF_INIT;
	struct strbuf from_line = STRBUF_INIT, url = STRBUF_INIT;
	const char *domain = NULL;
	time_t date = in->date ? in->date : time(NULL);
	int ret = -1;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->text, 0);
	memset(&x, 0, sizeof(x));
	x.in = *in;
	if (in->commit && !valid_commit(in->commit))
		return error("'%s' is not a commit id (7 to 64 lower-case hex "
			     "digits)", in->commit);
	if (compose_sender(&x, &domain, &url) < 0 || compose_load(db, &x) < 0)
		goto out;
	if (x.in.series_id) {
		if (compose_series_target(db, &x, &what) < 0)
			goto out;
	} else {
		compose_other_target(&x, &what);
	}
	if (apply_opt_out(&x, out) < 0)
		goto out;
	compose_envelope(&x, domain, date, what.buf, out);
	compose_headers(&x, date, out);
	format_address(&from_line, &x.from.a[0]);
	compose_body(db, &x, from_line.buf, &body);
	wrap_lines(&body);
	add_body(&out->text, &body);
	ret = 0;
out:
	if (ret < 0)
		report_release(out);
	compose_ctx_release(&x);
	strbuf_release(&what);
	strbuf_release(&body);
	strbuf_release(&from_line);
	strbuf_release(&url);
	return ret;
}

void report_release(struct report *r)
{
	size_t i;

	strbuf_release(&r->text);
	free(r->message_id);
	free(r->subject);
	free(r->from);
	for (i = 0; i < r->nr_rcpt; i++)
		free(r->rcpt[i]);
	free(r->rcpt);
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->text, 0);
}

/* ---- the outbox, the server, the mails table ---- */


static void join_rcpt(struct strbuf *sb, char *const *rcpt, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", rcpt[i]);
}

static int record_result(struct db *db, long long id, int ok,
			 const char *err)
{
	if (ok)
		return db_run(db, "UPDATE mails SET status = 'sent', error = "
			      "NULL, sent_at = " NOW_SQL " WHERE id = ?", "i",
			      id);
	return db_run(db, "UPDATE mails SET status = 'failed', error = ? "
		      "WHERE id = ?", "ti", err, id);
}

/* the .eml in @outbox (*path, caller frees) and its mails row */
static int store_mail(struct db *db, const struct report *r,
		      const char *outbox, const char *status, const char *err,
		      char **path)
{
	struct strbuf rcpt = STRBUF_INIT;
	int ret;

	if (smtp_outbox_write(outbox, r->text.buf, r->text.len, path) < 0)
		return -1;
	join_rcpt(&rcpt, r->rcpt, r->nr_rcpt);
	ret = db_run(db, "INSERT INTO mails (created, kind, series_id, "
		     "base_run, new_run, message_id, subject, recipients, "
		     "path, status, error) VALUES (" NOW_SQL ", ?, ?, ?, ?, "
		     "?, ?, ?, ?, ?, ?)", "tIiitttttt", r->kind, r->series_id,
		     r->base_run, r->new_run, r->message_id, r->subject,
		     rcpt.buf, *path, status, err);
	strbuf_release(&rcpt);
	return ret;
}

int report_hold(struct db *db, const struct report *r, const char *outbox,
		const char *why, char **path)
{
	*path = NULL;
	return store_mail(db, r, outbox, "failed", why, path);
}

int report_deliver(struct db *db, const struct report *r, const char *outbox,
		   const struct smtp_settings *smtp, char **path,
		   long long *mail_id)
{
	struct strbuf err = STRBUF_INIT;
	long long id;
	int ret = -1, sent;

	*path = NULL;
	if (mail_id)
		*mail_id = 0;
	/* 'failed' until the server says otherwise: a crash means a retry */
	if (store_mail(db, r, outbox, smtp ? "failed" : "dry-run",
		       smtp ? "not sent yet (interrupted)" : NULL, path) < 0)
		goto out;
	id = db_last_id(db);
	if (mail_id)
		*mail_id = id;
	if (!smtp) {
		ret = 0;
		goto out;
	}
	sent = smtp_send(smtp, r->from, (const char *const *)r->rcpt,
			 r->nr_rcpt, r->text.buf, r->text.len, &err) == 0;
	if (record_result(db, id, sent, err.buf) < 0)
		warning("mail #%lld: could not record that it was %s", id,
			sent ? "sent" : "refused");
	ret = sent ? 0 : -1;
out:
	strbuf_release(&err);
	return ret;
}

struct failed_mail {
	long long id;
	char *path, *rcpt;
};

/*
 * @path resolved (symbolic links, "..") in *@real when that is a regular
 * file directly in @outbox_real, else NULL with why in @err.
 */
static int outbox_file(const char *outbox_real, const char *path,
		       char **real, struct strbuf *err)
{
	const char *slash;
	size_t n = strlen(outbox_real);
	struct stat st;

	*real = realpath(path, NULL);
	if (!*real) {
		strbuf_addf(err, "cannot read '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	slash = strrchr(*real, '/');
	if (strncmp(*real, outbox_real, n) || (*real)[n] != '/' ||
	    slash != *real + n || stat(*real, &st) < 0 ||
	    !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "'%s' is not a message of the outbox %s: "
			    "never read, never sent", path, outbox_real);
		free(*real);
		*real = NULL;
		return -1;
	}
	return 0;
}

/* resend one stored message: envelope from its From: and the row */
static int resend(const struct smtp_settings *smtp, const struct failed_mail *f,
		  const char *path, struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	struct mail m;
	char **rcpt = NULL;
	size_t nr = 0, alloc = 0, i;
	const char *p = f->rcpt;
	int ret = -1;

	if (strbuf_read_file(&msg, path, 0) < 0) {
		strbuf_addf(err, "cannot read '%s': %s", f->path,
			    strerror(errno));
		strbuf_release(&msg);
		return error("%s", err->buf);
	}
	mail_parse(msg.buf, msg.len, &m);
	while (*p) {
		size_t n = strcspn(p, ", ");

		if (n) {
			ALLOC_GROW(rcpt, nr + 1, alloc);
			rcpt[nr++] = xstrndup(p, n);
		}
		p += n;
		p += strspn(p, ", ");
	}
	ret = smtp_send(smtp, m.from_email, (const char *const *)rcpt, nr,
			msg.buf, msg.len, err);
	for (i = 0; i < nr; i++)
		free(rcpt[i]);
	free(rcpt);
	mail_release(&m);
	strbuf_release(&msg);
	return ret;
}

int report_retry(struct db *db, const struct smtp_settings *smtp,
		 const char *outbox, int *nr_sent, int *nr_failed)
{
	struct failed_mail *f = NULL;
	size_t nr = 0, alloc = 0, i;
	char *outbox_real = realpath(outbox, NULL);
	sqlite3_stmt *st;
	long long room;
	int rc;

	*nr_sent = *nr_failed = 0;
	if (!outbox_real)
		/* no outbox: nothing was ever written to retry */
		outbox_real = xstrdup(outbox);
	st = db_query(db, "SELECT id, path, recipients FROM mails WHERE "
		      "status = 'failed' ORDER BY id", "");
	if (!st)
		return -1;
	/* the mails read before a failed read are sent; the failure is said */
	while ((rc = db_step(db, st)) == DB_ROW) {
		ALLOC_GROW(f, nr + 1, alloc);
		f[nr].id = sqlite3_column_int64(st, 0);
		f[nr].path = xstrdup(db_col_text(st, 1));
		f[nr].rcpt = xstrdup(db_col_text(st, 2));
		nr++;
	}
	sqlite3_finalize(st);
	room = nr ? report_rate_room(db) : 0;
	for (i = 0; i < nr; i++) {
		struct strbuf err = STRBUF_INIT;
		char *real;
		int ok;

		if (room <= 0) {
			/* the rest waits for the next hour's room */
			log_info("%zu mail(s) held: MMCI_MAIL_RATE_PER_HOUR "
				 "reached", nr - i);
			for (; i < nr; i++) {
				free(f[i].path);
				free(f[i].rcpt);
			}
			break;
		}
		if (outbox_file(outbox_real, f[i].path, &real, &err) < 0) {
			/* a row the outbox never had: said, and never again */
			error("mail #%lld refused: %s", f[i].id, err.buf);
			if (db_run(db, "UPDATE mails SET status = 'refused', "
				   "error = ? WHERE id = ?", "ti", err.buf,
				   f[i].id) < 0)
				warning("mail #%lld: could not record that it "
					"was refused", f[i].id);
			(*nr_failed)++;
			strbuf_release(&err);
			free(f[i].path);
			free(f[i].rcpt);
			continue;
		}
		ok = resend(smtp, &f[i], real, &err) == 0;
		free(real);
		room -= ok;

		record_result(db, f[i].id, ok, err.buf);
		if (ok) {
			(*nr_sent)++;
			log_info("mail #%lld sent: %s", f[i].id, f[i].path);
		} else {
			(*nr_failed)++;
		}
		strbuf_release(&err);
		free(f[i].path);
		free(f[i].rcpt);
	}
	free(f);
	free(outbox_real);
	return *nr_failed || rc < 0 ? -1 : 0;
}

/* ---- the mail policy ---- */

/* "fsdax rebind_memmap +38.2 %" */
static void add_metric_change(struct strbuf *out, const char *workload,
			      const char *metric, double pct)
{
	strbuf_addf(out, "%s %s", workload, metric);
	if (!isnan(pct))
		strbuf_addf(out, " %+.1f %%", pct);
}

/* a claim of an improvement on @m's workload */
static const struct claim_check *
claimed_on(const struct report_policy_input *in,
	   const struct metric_comparison *m)
{
	size_t i;

	for (i = 0; i < in->nr_claims; i++)
		if (in->claims[i].claims_better && in->claims[i].workload &&
		    !strcmp(in->claims[i].workload, m->workload))
			return &in->claims[i];
	return NULL;
}

/* the first metric of @rc with verdict @v, NULL if none */
static const struct metric_comparison *
first_with(const struct run_comparison *rc, enum verdict v)
{
	size_t i;

	for (i = 0; i < rc->nr; i++)
		if (rc->m[i].c.verdict == v)
			return &rc->m[i];
	return NULL;
}

int report_policy(const struct report_policy_input *in,
		  struct strbuf *reason)
{
	const struct run_comparison *rc = in->series;
	const struct attribution *a = in->attr && in->attr->nr > 2 ?
				      in->attr : NULL;
	const struct metric_comparison *m;
	const struct claim_check *k;
	size_t i, unclaimed = 0;
	int decided = 0, total = a ? a->s[a->nr - 1].upto : 0;

	strbuf_reset(reason);
	for (i = 0; i < in->nr_claims; i++) {
		k = &in->claims[i];
		if (!k->claims_better || k->measured != VERDICT_WORSE)
			continue;
		strbuf_addf(reason, "claimed improvement measured as a "
			    "regression: patch %d claims %+.1f %%, measured ",
			    k->patch, k->claimed_pct);
		add_metric_change(reason, k->workload, k->metric,
				  k->measured_pct);
		return 1;
	}
	m = report_pick_metric(rc);
	if (m && m->c.verdict == VERDICT_WORSE) {
		strbuf_addstr(reason, "regression: ");
		add_metric_change(reason, m->workload, m->metric,
				  m->c.change_pct);
		return 1;
	}
	for (i = 1; a && i < a->nr; i++) {
		m = first_with(&a->s[i].own, VERDICT_WORSE);
		if (!m)
			continue;
		strbuf_addf(reason, "patch %d/%d regressed in its own step: ",
			    a->s[i].upto, total);
		add_metric_change(reason, m->workload, m->metric,
				  m->c.change_pct);
		return 1;
	}
	/* improvements: the series', then each patch's own */
	for (i = 0; i < (a ? a->nr : 1); i++) {
		const struct run_comparison *c = i ? &a->s[i].own : rc;
		size_t j;

		for (j = 0; j < c->nr; j++) {
			m = &c->m[j];
			decided |= m->c.verdict != VERDICT_INSUFFICIENT;
			if (m->c.verdict != VERDICT_BETTER)
				continue;
			k = claimed_on(in, m);
			if (!k) {
				unclaimed++;
				continue;
			}
			strbuf_addf(reason, "claimed improvement: patch %d "
				    "claims %+.1f %%, measured ", k->patch,
				    k->claimed_pct);
			add_metric_change(reason, m->workload, m->metric,
					  m->c.change_pct);
			if (i)
				strbuf_addf(reason, " in patch %d/%d's own "
					    "step", a->s[i].upto, total);
			return 1;
		}
	}
	if (unclaimed)
		strbuf_addf(reason, "improvement not claimed by the series "
			    "(%zu metric(s)): on the web page only",
			    unclaimed);
	else
		strbuf_addstr(reason, decided ? "no significant change" :
				      "insufficient data");
	return 0;
}

int report_public_url(const char *url)
{
	struct strbuf host = STRBUF_INIT;
	const char *p;
	int ok;

	if (!url)
		return 0;
	if (starts_with(url, "https://"))
		p = url + 8;
	else if (starts_with(url, "http://"))
		p = url + 7;
	else
		return 0;
	if (*p == '[') {
		strbuf_add(&host, p + 1, strcspn(p + 1, "]"));
	} else {
		strbuf_add(&host, p, strcspn(p, ":/?#"));
	}
	for (p = host.buf; *p; p++)
		host.buf[p - host.buf] = tolower((unsigned char)*p);
	ok = host.len && strcmp(host.buf, "localhost") &&
	     !ends_with(host.buf, ".localhost") &&
	     !starts_with(host.buf, "127.") && strcmp(host.buf, "::1") &&
	     strcmp(host.buf, "0.0.0.0") && strcmp(host.buf, "::") &&
	     strcmp(host.buf, "0:0:0:0:0:0:0:1") &&
	     !strchr(host.buf, '@');
	strbuf_release(&host);
	return ok;
}

int report_opt_out_parse(const char *v, struct report_addresses *l)
{
	const char *p = v;

	memset(l, 0, sizeof(*l));
	while (*p) {
		size_t n;
		char *w;

		p += strspn(p, ", \t");
		n = strcspn(p, ", \t");
		if (!n)
			break;
		w = xstrndup(p, n);
		if (!smtp_valid_address(w)) {
			error("MMCI_MAIL_OPT_OUT: '%s' is not an address "
			      "(user@domain)", w);
			free(w);
			report_addresses_release(l);
			return -1;
		}
		/* every entry: the list's cap is for a mail's recipients */
		ALLOC_GROW(l->a, l->nr + 1, l->alloc);
		l->a[l->nr].name = xstrdup("");
		l->a[l->nr++].email = w;
		p += n;
	}
	return 0;
}

long long report_rate_room(struct db *db)
{
	long long limit = config_number("MMCI_MAIL_RATE_PER_HOUR"), sent;

	if (db_int_checked(db, &sent, "SELECT count(*) FROM mails WHERE "
			   "status = 'sent' AND sent_at >= strftime("
			   "'%Y-%m-%dT%H:%M:%SZ', 'now', '-3600 seconds')",
			   "") < 0)
		return -1;
	return sent >= limit ? 0 : limit - sent;
}

void report_lore_url(struct strbuf *out, const char *msgid)
{
	const unsigned char *p;

	strbuf_addstr(out, "https://lore.kernel.org/r/");
	for (p = (const unsigned char *)msgid; *p; p++) {
		if (isalnum(*p) || strchr("-._~@+=$!*'&", *p))
			strbuf_addch(out, *p);
		else
			strbuf_addf(out, "%%%02X", *p);
	}
}
