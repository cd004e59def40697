// SPDX-License-Identifier: GPL-2.0
/*
 * claims.c - performance claims of cover letters and changelogs.
 *
 * The workload: one mail or a whole series mbox (tens of KB, a few MB at
 * most), read once when a series is ingested. Lines are scanned one by one
 * with small hand-written matchers instead of regular expressions, so that
 * every rule that keeps ordinary mail out ("v6.12 -> v6.13", "%15" in a
 * Received header) is a visible line of code. What counts as a claim and
 * how its change is expressed is documented in claims.h.
 */
#include <ctype.h>
#include <math.h>
#include <strings.h>

#include "attribution.h"
#include "claims.h"
#include "db.h"
#include "ingest.h"
#include "mbox.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

/* lines without a space at least this long are base64 or similar */
#define BLOB_LINE_MIN 60
/* a word read for context, lowercase; longer words are cut */
#define WORD_MAX 32

enum ukind { UK_NONE, UK_TIME, UK_TPUT, UK_PCT, UK_FACTOR };

/* a number as read from a line, with its unit */
struct value {
	double v;		/* as written, without sign */
	int negative;		/* a '-' right before it */
	int sign;		/* a '-' or '+' right before it */
	size_t start, end;	/* [start, end) covers number and unit */
	enum ukind kind;
	double scale;		/* v * scale is in norm */
	const char *norm;	/* "ms", "MB/s", ...; NULL for UK_NONE */
};

struct unit_def {
	const char *name;
	double scale;
	const char *norm;
};

static const struct unit_def time_units[] = {
	{ "nanoseconds", 1e-6, "ms" }, { "nanosecond", 1e-6, "ms" },
	{ "nsecs", 1e-6, "ms" }, { "nsec", 1e-6, "ms" }, { "ns", 1e-6, "ms" },
	{ "microseconds", 1e-3, "ms" }, { "microsecond", 1e-3, "ms" },
	{ "usecs", 1e-3, "ms" }, { "usec", 1e-3, "ms" }, { "us", 1e-3, "ms" },
	{ "\xc2\xb5s", 1e-3, "ms" }, { "\xce\xbcs", 1e-3, "ms" },
	{ "\xc2\xb5sec", 1e-3, "ms" }, { "\xce\xbcsec", 1e-3, "ms" },
	{ "milliseconds", 1, "ms" }, { "millisecond", 1, "ms" },
	{ "msecs", 1, "ms" }, { "msec", 1, "ms" }, { "ms", 1, "ms" },
	{ "seconds", 1e3, "ms" }, { "second", 1e3, "ms" },
	{ "secs", 1e3, "ms" }, { "sec", 1e3, "ms" }, { "s", 1e3, "ms" },
	{ "minutes", 6e4, "ms" }, { "minute", 6e4, "ms" },
	{ "mins", 6e4, "ms" }, { "min", 6e4, "ms" },
};

/* "<prefix><per second>", e.g. "GB/s", "ops/sec", "MBps" */
static const struct unit_def tput_prefixes[] = {
	{ "GiB", 1024, "MiB/s" }, { "MiB", 1, "MiB/s" },
	{ "KiB", 1.0 / 1024, "MiB/s" }, { "GB", 1000, "MB/s" },
	{ "MB", 1, "MB/s" }, { "KB", 1e-3, "MB/s" },
	{ "ops", 1, "ops/s" }, { "pages", 1, "pages/s" },
	{ "requests", 1, "req/s" }, { "req", 1, "req/s" },
};

static const char *const tput_suffixes[] = {
	"/second", "/sec", "/s", " per second", " per sec", "ps",
};

static int is_word_char(int c)
{
	return isalnum(c) || c == '_';
}

/* @s at @pos starts with @word, case-insensitively, and a word ends there */
static size_t match_word_at(const char *s, size_t len, size_t pos,
			    const char *word)
{
	size_t n = strlen(word);

	if (pos + n > len || strncasecmp(s + pos, word, n))
		return 0;
	if (pos + n < len && (is_word_char((unsigned char)s[pos + n]) ||
			      s[pos + n] == '/'))
		return 0;
	return n;
}

/* a time or throughput unit at @pos (no leading space); its length or 0 */
static size_t match_unit(const char *s, size_t len, size_t pos,
			 struct value *v)
{
	size_t i, j, n;

	for (i = 0; i < ARRAY_SIZE(time_units); i++) {
		n = match_word_at(s, len, pos, time_units[i].name);
		if (n) {
			v->kind = UK_TIME;
			v->scale = time_units[i].scale;
			v->norm = time_units[i].norm;
			return n;
		}
	}
	n = match_word_at(s, len, pos, "IOPS");
	if (n) {
		v->kind = UK_TPUT;
		v->scale = 1;
		v->norm = "IOPS";
		return n;
	}
	for (i = 0; i < ARRAY_SIZE(tput_prefixes); i++) {
		size_t pn = strlen(tput_prefixes[i].name);

		if (pos + pn > len ||
		    strncasecmp(s + pos, tput_prefixes[i].name, pn))
			continue;
		for (j = 0; j < ARRAY_SIZE(tput_suffixes); j++) {
			n = match_word_at(s, len, pos + pn, tput_suffixes[j]);
			if (!n)
				continue;
			v->kind = UK_TPUT;
			v->scale = tput_prefixes[i].scale;
			v->norm = tput_prefixes[i].norm;
			return pn + n;
		}
	}
	return 0;
}

/*
 * read the number starting at @pos (a digit) and its unit. Returns 0 and
 * fills @v, or -1 for something that is not a standalone number: glued to
 * a word, a dot or a colon on the left ("v6", "x.5", "::1"), a version,
 * address or time of day on the right ("5.10.y", "10.0.0.1", "12:30"), or
 * followed by letters that are not a unit ("0x10", "100M").
 */
static int read_value(const char *s, size_t len, size_t pos, struct value *v)
{
	size_t p = pos, n, u;
	char buf[40];

	memset(v, 0, sizeof(*v));
	if (pos > 0) {
		unsigned char c = s[pos - 1];

		if (is_word_char(c) || c == '.' || c == ':' || c == '/' ||
		    c == ',')
			return -1;
		if (c == '-' && pos > 1 && is_word_char((unsigned char)s[pos - 2]))
			return -1;
		v->negative = c == '-';
		v->sign = c == '-' || c == '+';
	}
	while (p < len && isdigit((unsigned char)s[p]))
		p++;
	if (p + 1 < len && s[p] == '.' && isdigit((unsigned char)s[p + 1])) {
		p++;
		while (p < len && isdigit((unsigned char)s[p]))
			p++;
	}
	if (p - pos >= sizeof(buf))
		return -1;
	/* time(1)'s "0m36.2s" */
	if (p + 1 < len && s[p] == 'm' && isdigit((unsigned char)s[p + 1]) &&
	    !memchr(s + pos, '.', p - pos)) {
		size_t q = p + 1, sec_b = q;
		double min;

		while (q < len && (isdigit((unsigned char)s[q]) || s[q] == '.'))
			q++;
		if (q >= len || s[q] != 's' || q - sec_b >= sizeof(buf) ||
		    (q + 1 < len && is_word_char((unsigned char)s[q + 1])))
			return -1;
		memcpy(buf, s + pos, p - pos);
		buf[p - pos] = '\0';
		min = strtod(buf, NULL);
		memcpy(buf, s + sec_b, q - sec_b);
		buf[q - sec_b] = '\0';
		v->v = min * 60 + strtod(buf, NULL);
		v->start = pos;
		v->end = q + 1;
		v->kind = UK_TIME;
		v->scale = 1e3;
		v->norm = "ms";
		return 0;
	}
	if (p < len && (s[p] == '.' || s[p] == ':' || s[p] == ',') &&
	    p + 1 < len && isalnum((unsigned char)s[p + 1]))
		return -1;
	memcpy(buf, s + pos, p - pos);
	buf[p - pos] = '\0';
	v->v = strtod(buf, NULL);
	v->start = pos;
	v->end = p;
	v->kind = UK_NONE;

	/* "67%", "67 %" */
	n = (p < len && s[p] == ' ') ? 1 : 0;
	if (p + n < len && s[p + n] == '%') {
		if (p + n + 1 < len && isalnum((unsigned char)s[p + n + 1]))
			return -1;
		v->kind = UK_PCT;
		v->norm = "%";
		v->scale = 1;
		v->end = p + n + 1;
		return 0;
	}
	/* "8.3x", "8.3×" */
	if (p < len && (s[p] == 'x' || s[p] == 'X')) {
		if (p + 1 < len && is_word_char((unsigned char)s[p + 1]))
			return -1;
		v->kind = UK_FACTOR;
		v->norm = "x";
		v->scale = 1;
		v->end = p + 1;
		return 0;
	}
	if (p + 1 < len && !memcmp(s + p, "\xc3\x97", 2)) {
		v->kind = UK_FACTOR;
		v->norm = "x";
		v->scale = 1;
		v->end = p + 2;
		return 0;
	}
	n = (p < len && (s[p] == ' ' || s[p] == '\t')) ? 1 : 0;
	u = match_unit(s, len, p + n, v);
	if (u) {
		v->end = p + n + u;
		return 0;
	}
	if (p < len && is_word_char((unsigned char)s[p]))
		return -1;
	return 0;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t';
}

static size_t skip_space(const char *s, size_t len, size_t p)
{
	while (p < len && is_space((unsigned char)s[p]))
		p++;
	return p;
}

/* an arrow at @p: its length, or 0 */
static size_t match_arrow(const char *s, size_t len, size_t p)
{
	static const char *const arrows[] = {
		"-->", "->", "=>", "\xe2\x86\x92", "\xe2\x87\x92",
		"\xe2\x9f\xb6",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arrows); i++) {
		size_t n = strlen(arrows[i]);

		if (p + n <= len && !memcmp(s + p, arrows[i], n))
			return n;
	}
	return 0;
}

/*
 * the word after @p (letters and inner '-'), lowercase, into @w; skips
 * blanks only. Returns the end of the word, or @p if there is none.
 */
static size_t word_after(const char *s, size_t len, size_t p, char *w)
{
	size_t q = skip_space(s, len, p), n = 0;

	while (q < len && (isalpha((unsigned char)s[q]) ||
			   (s[q] == '-' && n && q + 1 < len &&
			    isalpha((unsigned char)s[q + 1])))) {
		if (n < WORD_MAX - 1)
			w[n++] = tolower((unsigned char)s[q]);
		q++;
	}
	w[n] = '\0';
	return n ? q : p;
}

/*
 * the word that ends before @p, lowercase, into @w; skips blanks and the
 * approximation signs "~", "≈", "(", "+", "-". Sets *@start to where the
 * word starts; returns 0 if there is no word (a digit, start of line).
 */
static int word_before(const char *s, size_t p, char *w, size_t *start)
{
	size_t e, b, n;

	while (p > 0 && (is_space((unsigned char)s[p - 1]) || s[p - 1] == '~' ||
			 s[p - 1] == '(' || s[p - 1] == '+' ||
			 s[p - 1] == '-' || (unsigned char)s[p - 1] >= 0x80))
		p--;
	e = p;
	while (p > 0 && (isalpha((unsigned char)s[p - 1]) ||
			 (s[p - 1] == '-' && p > 1 &&
			  isalpha((unsigned char)s[p - 2]) && p != e)))
		p--;
	b = p;
	if (b == e)
		return 0;
	n = e - b < WORD_MAX - 1 ? e - b : WORD_MAX - 1;
	for (p = 0; p < n; p++)
		w[p] = tolower((unsigned char)s[b + p]);
	w[n] = '\0';
	*start = b;
	return 1;
}

static int word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

/* what a word does to the metric; see the convention in claims.h */
enum effect { EFF_NONE, EFF_BETTER, EFF_WORSE, EFF_DOWN, EFF_UP };

struct effect_word {
	const char *word;
	enum effect effect;
	int needs_cue;		/* only a claim with a perf cue on the line */
};

/* words right after the number: "8.3x faster", "a 67% reduction" */
static const struct effect_word after_words[] = {
	{ "faster", EFF_BETTER, 0 }, { "quicker", EFF_BETTER, 0 },
	{ "speedup", EFF_BETTER, 0 }, { "speed-up", EFF_BETTER, 0 },
	{ "speedups", EFF_BETTER, 0 }, { "improvement", EFF_BETTER, 0 },
	{ "better", EFF_BETTER, 0 }, { "boost", EFF_BETTER, 0 },
	{ "slower", EFF_WORSE, 0 }, { "slowdown", EFF_WORSE, 0 },
	{ "slow-down", EFF_WORSE, 0 }, { "regression", EFF_WORSE, 0 },
	{ "worse", EFF_WORSE, 0 }, { "degradation", EFF_WORSE, 0 },
	{ "reduction", EFF_DOWN, 0 }, { "decrease", EFF_DOWN, 0 },
	{ "drop", EFF_DOWN, 0 }, { "cut", EFF_DOWN, 0 },
	{ "less", EFF_DOWN, 1 }, { "lower", EFF_DOWN, 1 },
	{ "fewer", EFF_DOWN, 1 }, { "smaller", EFF_DOWN, 1 },
	{ "shorter", EFF_DOWN, 1 }, { "saving", EFF_DOWN, 1 },
	{ "savings", EFF_DOWN, 1 },
	{ "increase", EFF_UP, 1 }, { "higher", EFF_UP, 1 },
	{ "more", EFF_UP, 1 }, { "longer", EFF_UP, 1 },
	{ "larger", EFF_UP, 1 }, { "bigger", EFF_UP, 1 },
	{ "overhead", EFF_UP, 0 },
};

/* nouns before "of": "speed-up of 3x", "a reduction of 20%" */
static const struct effect_word of_nouns[] = {
	{ "speedup", EFF_BETTER, 0 }, { "speed-up", EFF_BETTER, 0 },
	{ "improvement", EFF_BETTER, 0 }, { "boost", EFF_BETTER, 0 },
	{ "gain", EFF_BETTER, 1 },
	{ "slowdown", EFF_WORSE, 0 }, { "regression", EFF_WORSE, 0 },
	{ "degradation", EFF_WORSE, 0 },
	{ "reduction", EFF_DOWN, 0 }, { "decrease", EFF_DOWN, 0 },
	{ "drop", EFF_DOWN, 0 }, { "saving", EFF_DOWN, 1 },
	{ "savings", EFF_DOWN, 1 },
	{ "increase", EFF_UP, 1 }, { "overhead", EFF_UP, 0 },
};

/* verb stems before "by": "reduces ... by 67.5%", "improves by 20%" */
static const struct effect_word by_verbs[] = {
	{ "reduc", EFF_DOWN, 0 }, { "decreas", EFF_DOWN, 0 },
	{ "cut", EFF_DOWN, 0 }, { "drop", EFF_DOWN, 0 },
	{ "shrink", EFF_DOWN, 0 }, { "shrank", EFF_DOWN, 0 },
	{ "lower", EFF_DOWN, 1 }, { "shorten", EFF_DOWN, 1 },
	{ "save", EFF_DOWN, 1 }, { "saving", EFF_DOWN, 1 },
	{ "improv", EFF_BETTER, 0 }, { "faster", EFF_BETTER, 0 },
	{ "quicker", EFF_BETTER, 0 }, { "speed", EFF_BETTER, 0 },
	{ "sped", EFF_BETTER, 0 }, { "accelerat", EFF_BETTER, 0 },
	{ "boost", EFF_BETTER, 0 },
	{ "regress", EFF_WORSE, 0 }, { "slower", EFF_WORSE, 0 },
	{ "slow", EFF_WORSE, 0 }, { "degrad", EFF_WORSE, 0 },
	{ "increas", EFF_UP, 1 }, { "grow", EFF_UP, 1 },
	{ "rais", EFF_UP, 1 },
};

/* "by about 20%", "speedup of up to 3x": words between the cue and number */
static const char *const approx_words[] = {
	"about", "approximately", "approx", "roughly", "around", "nearly",
	"almost", "over", "up", "to", "more", "than", "at", "least", "some",
	"circa", "ca", "as", "much", "close", "an", "a", "another", "further",
	"additional", "of", NULL,
};

static const struct effect_word *find_effect(const struct effect_word *t,
					     size_t n, const char *w,
					     int prefix)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (prefix ? starts_with(w, t[i].word) : !strcmp(w, t[i].word))
			return &t[i];
	}
	return NULL;
}

/* a word that is one of @stems or starts with one of 4 letters or more */
static int has_word_stem(const char *s, size_t len, const char *const *stems)
{
	const char *const *st;
	size_t p = 0;
	char w[WORD_MAX];

	while (p < len) {
		if (!isalpha((unsigned char)s[p]) ||
		    (p > 0 && isalpha((unsigned char)s[p - 1]))) {
			p++;
			continue;
		}
		p = word_after(s, len, p, w);
		for (st = stems; *st; st++)
			if (!strcmp(w, *st) ||
			    (strlen(*st) >= 4 && starts_with(w, *st)))
				return 1;
	}
	return 0;
}

/* a number with a time or throughput unit somewhere on the line */
static int has_unit_value(const char *s, size_t len, enum ukind kind)
{
	size_t p;
	struct value v;

	for (p = 0; p < len; p++) {
		if (!isdigit((unsigned char)s[p]) ||
		    (p && isdigit((unsigned char)s[p - 1])))
			continue;
		if (!read_value(s, len, p, &v) && v.kind == kind)
			return 1;
	}
	return 0;
}

static int line_is_throughput(const char *s, size_t len)
{
	static const char *const words[] = {
		"throughput", "bandwidth", "iops", "ops", NULL,
	};

	return has_word_stem(s, len, words) || has_unit_value(s, len, UK_TPUT);
}

static int line_has_perf_cue(const char *s, size_t len)
{
	static const char *const words[] = {
		"time", "times", "timing", "latency", "latencies", "runtime",
		"duration", "overhead", "throughput", "bandwidth", "speed",
		"performance", "cycles", "cost", "costs", "takes", "took",
		"iops", "faster", "slower", "elapsed", "wall", NULL,
	};

	return has_word_stem(s, len, words) ||
	       has_unit_value(s, len, UK_TIME) ||
	       has_unit_value(s, len, UK_TPUT);
}

/* the line being scanned and what is needed to record its claims */
struct scan {
	struct claim_list *out;
	const char *s;		/* the line, not NUL-terminated */
	size_t len;
	unsigned lineno;
	const char *context;	/* the text line before, "" if none */
	int found;
	/*
	 * s holds the lines of the sentence before this one too: claims
	 * that end before @from were found on those lines
	 */
	size_t from;
	int ba_seen;		/* a before/after anywhere in s */
};

static const char *const lead_stop[] = {
	"in", "of", "for", "on", "to", "when", "with", "and", "by", NULL,
};

static const char *const trail_stop[] = {
	"by", "about", "of", "a", "an", "from", "to", "is", "was", "are",
	"were", "be", "been", "approximately", "approx", "roughly", "around",
	"nearly", "almost", "over", "up", "and", "with", "at", "than", "some",
	"as", "much", "least", "more", "circa", "takes", "took", "in", "on",
	"or", NULL,
};

static int is_trim_punct(int c)
{
	return is_space(c) || c == ':' || c == ';' || c == ',' || c == '=' ||
	       c == '~' || c == '-' || c == '*' || c == '|' || c == '.';
}

/* remove trailing stop words and punctuation of sb */
static void trim_trailing(struct strbuf *sb)
{
	for (;;) {
		size_t e = sb->len, b;
		char w[WORD_MAX];

		while (e > 0 && (is_trim_punct((unsigned char)sb->buf[e - 1]) ||
				 sb->buf[e - 1] == '('))
			e--;
		strbuf_setlen(sb, e);
		b = e;
		while (b > 0 && isalpha((unsigned char)sb->buf[b - 1]))
			b--;
		if (b == e || e - b >= WORD_MAX ||
		    (b > 0 && !is_space((unsigned char)sb->buf[b - 1])))
			return;
		memcpy(w, sb->buf + b, e - b);
		w[e - b] = '\0';
		for (e = 0; w[e]; e++)
			w[e] = tolower((unsigned char)w[e]);
		if (!word_in(w, trail_stop))
			return;
		strbuf_setlen(sb, b);
	}
}

/* remove leading punctuation, one parenthesis and stop words of sb */
static void trim_leading(struct strbuf *sb)
{
	for (;;) {
		size_t b = 0, e;
		char w[WORD_MAX];

		while (b < sb->len && (is_trim_punct((unsigned char)sb->buf[b]) ||
				       sb->buf[b] == ')'))
			b++;
		if (b < sb->len && sb->buf[b] == '(') {
			const char *close = memchr(sb->buf + b, ')', sb->len - b);

			if (close) {
				b = close - sb->buf + 1;
				memmove(sb->buf, sb->buf + b, sb->len - b);
				strbuf_setlen(sb, sb->len - b);
				continue;
			}
		}
		memmove(sb->buf, sb->buf + b, sb->len - b);
		strbuf_setlen(sb, sb->len - b);
		e = 0;
		while (e < sb->len && isalpha((unsigned char)sb->buf[e]))
			e++;
		if (!e || e >= WORD_MAX ||
		    (e < sb->len && !is_space((unsigned char)sb->buf[e])))
			return;
		for (b = 0; b < e; b++)
			w[b] = tolower((unsigned char)sb->buf[b]);
		w[e] = '\0';
		if (!word_in(w, lead_stop))
			return;
		memmove(sb->buf, sb->buf + e, sb->len - e);
		strbuf_setlen(sb, sb->len - e);
	}
}

/* append s[0..n) with runs of blanks collapsed to one space */
static void add_collapsed(struct strbuf *sb, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (is_space((unsigned char)s[i]) || s[i] == '\r') {
			if (sb->len && sb->buf[sb->len - 1] != ' ')
				strbuf_addch(sb, ' ');
			continue;
		}
		strbuf_addch(sb, s[i]);
	}
}

/* the line without [b, e), cleaned up; the context line if nothing is left */
static char *make_subject(const struct scan *sc, size_t b, size_t e)
{
	struct strbuf left = STRBUF_INIT, right = STRBUF_INIT;
	size_t q;

	add_collapsed(&left, sc->s, b);
	trim_trailing(&left);
	trim_leading(&left);
	/* "... (1235 us -> 149 us) Many thanks": the next sentence */
	q = e;
	while (q < sc->len && (sc->s[q] == ')' || is_space((unsigned char)sc->s[q])))
		q++;
	if (!(b > 0 && q > e && q < sc->len && isupper((unsigned char)sc->s[q]) &&
	      memchr(sc->s + e, ')', q - e)))
		add_collapsed(&right, sc->s + e, sc->len - e);
	trim_leading(&right);
	trim_trailing(&right);
	if (left.len && right.len)
		strbuf_addch(&left, ' ');
	strbuf_addbuf(&left, &right);
	strbuf_release(&right);
	if (!left.len) {
		add_collapsed(&left, sc->context, strlen(sc->context));
		trim_trailing(&left);
		trim_leading(&left);
	}
	return strbuf_detach(&left, NULL);
}

static char *make_text(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, s, len);
	strbuf_trim(&sb);
	return strbuf_detach(&sb, NULL);
}

static struct claim *add_claim(struct scan *sc, enum claim_kind kind,
			       char *subject, const char *unit)
{
	struct claim *c;

	ALLOC_GROW(sc->out->v, sc->out->nr + 1, sc->out->alloc);
	c = &sc->out->v[sc->out->nr++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->subject = subject;
	c->text = make_text(sc->s, sc->len);
	c->before = c->after = NAN;
	xsnprintf(c->unit, sizeof(c->unit), "%s", unit);
	c->line = sc->lineno;
	sc->found++;
	return c;
}

static void claim_free_last(struct scan *sc)
{
	struct claim *c = &sc->out->v[--sc->out->nr];

	free(c->subject);
	free(c->text);
	sc->found--;
}

static int add_before_after(struct scan *sc, struct value *a, struct value *b,
			    char *subject)
{
	struct claim *c;
	double before, after;

	if (a->kind == UK_NONE && b->kind == UK_NONE)
		goto no;
	if (a->kind == UK_NONE) {
		a->kind = b->kind;
		a->scale = b->scale;
		a->norm = b->norm;
	} else if (b->kind == UK_NONE) {
		b->kind = a->kind;
		b->scale = a->scale;
		b->norm = a->norm;
	}
	if ((a->kind != UK_TIME && a->kind != UK_TPUT) ||
	    a->kind != b->kind || strcmp(a->norm, b->norm) || a->negative ||
	    b->negative)
		goto no;
	before = a->v * a->scale;
	after = b->v * b->scale;
	if (!(before > 0) || !(after >= 0))
		goto no;
	c = add_claim(sc, CLAIM_BEFORE_AFTER, subject, a->norm);
	c->before = before;
	c->after = after;
	c->higher_is_better = a->kind == UK_TPUT;
	c->change_pct = (after / before - 1) * 100;
	return 0;
no:
	free(subject);
	return -1;
}

/* "NUM [UNIT] -> NUM [UNIT]" and "from NUM [UNIT] to NUM [UNIT]" */
static void scan_before_after(struct scan *sc)
{
	const char *s = sc->s;
	size_t len = sc->len, p = 0;

	while (p < len) {
		struct value a, b;
		size_t q, n, from = 0, span_b;
		char w[WORD_MAX];
		int is_from;

		if (!isdigit((unsigned char)s[p]) || read_value(s, len, p, &a)) {
			while (p < len && isalnum((unsigned char)s[p]))
				p++;
			if (p < len && !isdigit((unsigned char)s[p]))
				p++;
			continue;
		}
		is_from = word_before(s, a.start, w, &from) &&
			  !strcmp(w, "from");
		q = skip_space(s, len, a.end);
		if (is_from && (n = match_word_at(s, len, q, "to")))
			q += n;
		else if ((n = match_arrow(s, len, q)))
			q += n;
		else
			goto next;
		q = skip_space(s, len, q);
		if (q < len && s[q] == '~')
			q++;
		if (q >= len || !isdigit((unsigned char)s[q]) ||
		    read_value(s, len, q, &b))
			goto next;
		span_b = is_from ? from : a.start;
		if (!add_before_after(sc, &a, &b, make_subject(sc, span_b, b.end))) {
			sc->ba_seen = 1;
			if (b.end <= sc->from) {
				/* found with its own line already */
				claim_free_last(sc);
			}
			p = b.end;
			continue;
		}
next:
		p = a.end > p ? a.end : p + 1;
	}
}

/*
 * what the words around @v say: sets *@eff, the span to cut from the
 * subject and whether the claim needs a perf cue; 0 if no effect word
 */
static int classify(const char *s, size_t len, const struct value *v,
		    size_t after_num, size_t *span_b, size_t *span_e,
		    enum effect *eff, int *needs_cue)
{
	const struct effect_word *ew;
	char w[WORD_MAX], w2[WORD_MAX];
	size_t e, b, b2;

	/* "8.3x faster", "67% reduction", "2x speed up" */
	e = word_after(s, len, after_num, w);
	if (e != after_num) {
		if (!strcmp(w, "speed")) {
			size_t e2 = word_after(s, len, e, w2);

			if (!strcmp(w2, "up")) {
				*eff = EFF_BETTER;
				*needs_cue = 0;
				*span_b = v->start;
				*span_e = e2;
				return 1;
			}
		}
		ew = find_effect(after_words, ARRAY_SIZE(after_words), w, 0);
		if (ew) {
			*eff = ew->effect;
			*needs_cue = ew->needs_cue;
			*span_b = v->start;
			*span_e = e;
			return 1;
		}
	}

	/* skip "about", "up to", ... backwards to "of" or "by" */
	b = v->start;
	for (;;) {
		if (!word_before(s, b, w, &b2))
			return 0;
		if (!strcmp(w, "of") || !strcmp(w, "by"))
			break;
		if (!word_in(w, approx_words))
			return 0;
		b = b2;
	}
	b = b2;
	if (!strcmp(w, "of")) {
		/* "speed-up of 3x", "speed up of 3x" */
		if (!word_before(s, b, w2, &b2))
			return 0;
		if (!strcmp(w2, "up")) {
			if (!word_before(s, b2, w2, &b2) || strcmp(w2, "speed"))
				return 0;
			*eff = EFF_BETTER;
			*needs_cue = 0;
		} else {
			ew = find_effect(of_nouns, ARRAY_SIZE(of_nouns), w2, 0);
			if (!ew)
				return 0;
			*eff = ew->effect;
			*needs_cue = ew->needs_cue;
		}
		*span_b = b2;
		*span_e = v->end;
		return 1;
	}
	/* "by": the nearest verb before it, at most 12 words back */
	{
		size_t at = b, wb;
		int i;

		for (i = 0; i < 12 && word_before(s, at, w2, &wb); i++) {
			if (!strcmp(w2, "down") || !strcmp(w2, "up")) {
				at = wb;
				continue;
			}
			ew = find_effect(by_verbs, ARRAY_SIZE(by_verbs), w2, 1);
			if (ew) {
				*eff = ew->effect;
				*needs_cue = ew->needs_cue;
				*span_b = b;
				*span_e = v->end;
				return 1;
			}
			at = wb;
		}
	}
	return 0;
}

/* "8.3x faster", "3 times slower", "reduces ... by 67.5%", "12% slower" */
static void scan_relative(struct scan *sc)
{
	const char *s = sc->s;
	size_t len = sc->len, p = 0;
	int tput = -1, cue = -1;

	while (p < len) {
		struct value v;
		size_t after_num, span_b, span_e;
		enum effect eff;
		int needs_cue, is_pct;
		double x, change = NAN;
		struct claim *c;
		char w[WORD_MAX];

		if (!isdigit((unsigned char)s[p]) || read_value(s, len, p, &v)) {
			while (p < len && isalnum((unsigned char)s[p]))
				p++;
			if (p < len && !isdigit((unsigned char)s[p]))
				p++;
			continue;
		}
		p = v.end > p ? v.end : p + 1;
		if (v.end <= sc->from)
			continue;
		after_num = v.end;
		if (v.kind == UK_NONE) {
			size_t e = word_after(s, len, v.end, w);

			if (e == v.end || strcmp(w, "times"))
				continue;
			v.kind = UK_FACTOR;
			v.norm = "x";
			after_num = v.end = e;
			p = e;
		}
		if (v.kind != UK_PCT && v.kind != UK_FACTOR)
			continue;
		if (!classify(s, len, &v, after_num, &span_b, &span_e, &eff,
			      &needs_cue))
			continue;
		if (v.sign && span_b == v.start)
			span_b--;
		/* "1.25x faster than v7": against an earlier version */
		{
			size_t e = word_after(s, len, span_e, w);

			if (e != span_e && !strcmp(w, "than")) {
				size_t q = skip_space(s, len, e);

				if (q + 1 < len && (s[q] == 'v' || s[q] == 'V') &&
				    isdigit((unsigned char)s[q + 1]))
					continue;
			}
		}
		if (needs_cue) {
			if (cue < 0)
				cue = line_has_perf_cue(s, len);
			if (!cue)
				continue;
		}
		if (tput < 0)
			tput = line_is_throughput(s, len);
		is_pct = v.kind == UK_PCT;
		x = v.v;
		if (is_pct && eff == EFF_DOWN && x > 100)
			continue;
		if (!is_pct && !(x > 0))
			continue;
		/* the value's factor: new = base * ratio */
		switch (is_pct && v.sign ? EFF_NONE : eff) {
		case EFF_NONE:
			/* "-12.3% regression": the metric's change itself */
			change = v.negative ? -x : x;
			break;
		case EFF_DOWN:
			change = is_pct ? -x : (1 / x - 1) * 100;
			break;
		case EFF_UP:
			change = is_pct ? x : (x - 1) * 100;
			break;
		case EFF_BETTER:
		case EFF_WORSE: {
			/* the speed's factor */
			double speed = is_pct ? 1 + x / 100 : x;

			if ((eff == EFF_BETTER) == !!tput)
				change = (speed - 1) * 100;
			else
				change = (1 / speed - 1) * 100;
			break;
		}
		}
		c = add_claim(sc, is_pct ? CLAIM_PERCENT : CLAIM_FACTOR,
			      make_subject(sc, span_b, span_e), v.norm);
		c->higher_is_better = tput;
		c->change_pct = change;
		if (span_e > p)
			p = span_e;
	}
}

/* scale and set-up: the memory size a claim was measured at, the machine */

struct size_hit {
	double mib;
	size_t start, end;
};

/*
 * the first memory size in s[from..len): "100 GB", "512G", "64 GiB",
 * "1 TB", "100MB"; not a rate ("GB/s"), nor an alignment or a page size
 * ("2 MiB alignment", "align=2M", "64 KB pages": KB is never a size here).
 * Units are case-sensitive so that "ms" is no "M". 1 and @h, else 0.
 */
static int find_size(const char *s, size_t len, size_t from,
		     struct size_hit *h)
{
	static const struct {
		const char *u;
		double mib;
	} units[] = {
		{ "TiB", 1048576 }, { "TB", 1048576 }, { "T", 1048576 },
		{ "GiB", 1024 }, { "GB", 1024 }, { "G", 1024 },
		{ "MiB", 1 }, { "MB", 1 }, { "M", 1 },
	};
	size_t p, i;

	for (p = from; p < len; p++) {
		size_t q, e, u;
		char num[32], w[WORD_MAX];

		if (!isdigit((unsigned char)s[p]) ||
		    (p && (isalnum((unsigned char)s[p - 1]) || s[p - 1] == '.' ||
			   s[p - 1] == '_' || s[p - 1] == '=' ||
			   s[p - 1] == '-')))
			continue;
		q = p;
		while (q < len && (isdigit((unsigned char)s[q]) ||
				   (s[q] == '.' && q + 1 < len &&
				    isdigit((unsigned char)s[q + 1]))))
			q++;
		if (q - p >= sizeof(num)) {
			p = q;
			continue;
		}
		e = q < len && s[q] == ' ' ? q + 1 : q;
		for (i = 0; i < ARRAY_SIZE(units); i++) {
			size_t n = strlen(units[i].u);

			if (e + n <= len && !strncmp(s + e, units[i].u, n) &&
			    (e + n == len ||
			     !(isalnum((unsigned char)s[e + n]) ||
			       s[e + n] == '/' || s[e + n] == '_')))
				break;
		}
		if (i == ARRAY_SIZE(units)) {
			p = q;
			continue;
		}
		u = e + strlen(units[i].u);
		if (word_after(s, len, u, w) != u &&
		    (starts_with(w, "align") || starts_with(w, "page")))
			continue;
		memcpy(num, s + p, q - p);
		num[q - p] = '\0';
		h->mib = strtod(num, NULL) * units[i].mib;
		h->start = p;
		h->end = u;
		if (h->mib > 0)
			return 1;
	}
	return 0;
}

/* "100 GB", "512 MB", "1.5 TB" */
static void size_str(double mib, char *buf, size_t n)
{
	if (mib >= 1048576)
		xsnprintf(buf, n, "%g TB", mib / 1048576);
	else if (mib >= 1024)
		xsnprintf(buf, n, "%g GB", mib / 1024);
	else
		xsnprintf(buf, n, "%g MB", mib);
}

/*
 * the machine a line says it measured on, strongest first: TCG with
 * icount, TCG, KVM, a physical host, a VM of unknown acceleration; NULL
 * if it names none. "physically contiguous" is no physical host.
 */
static const char *find_machine(const char *s, size_t len)
{
	static const struct {
		const char *word;
		const char *machine;
	} words[] = {
		{ "icount", "TCG/icount" }, { "tcg", "TCG" }, { "kvm", "KVM" },
		{ "physical", "physical host" }, { "bare-metal", "physical host" },
		{ "baremetal", "physical host" },
		{ "non-virtualized", "physical host" },
		{ "non-virtualised", "physical host" },
		{ "real-world", "physical host" }, { "soc", "physical host" },
		{ "physical-host", "physical host" },
		{ "board", "physical host" }, { "boards", "physical host" },
		{ "vm", "VM" }, { "vms", "VM" }, { "qemu", "VM" },
		{ "guest", "VM" },
	};
	size_t p = 0, i, best = ARRAY_SIZE(words);
	char w[WORD_MAX];

	while (p < len) {
		size_t e;

		if (!isalpha((unsigned char)s[p]) ||
		    (p && (isalnum((unsigned char)s[p - 1]) || s[p - 1] == '_'))) {
			p++;
			continue;
		}
		e = word_after(s, len, p, w);
		if (e < len && (isdigit((unsigned char)s[e]) || s[e] == '_')) {
			p = e;
			continue;
		}
		for (i = 0; i < best; i++)
			if (!strcmp(w, words[i].word))
				best = i;
		if (!strcmp(w, "bare") && word_after(s, len, e, w) != e &&
		    !strcmp(w, "metal") && best > 4)
			best = 4;
		p = e > p ? e : p + 1;
	}
	return best < ARRAY_SIZE(words) ? words[best].machine : NULL;
}

void claim_scale(const struct claim *c, double *size_mib,
		 const char **machine)
{
	struct size_hit h;
	const char *subj = c->subject ? c->subject : "";
	const char *text = c->text ? c->text : "";

	*size_mib = 0;
	if (find_size(subj, strlen(subj), 0, &h) ||
	    find_size(text, strlen(text), 0, &h))
		*size_mib = h.mib;
	*machine = find_machine(subj, strlen(subj));
	if (!*machine)
		*machine = find_machine(text, strlen(text));
}

/*
 * words of a paragraph that say what was measured, as mmci's metrics
 * name it: the workloads' drivers and functions and the operations. A
 * word matches its entry, or the entry followed by "s", "ing", "ed" or
 * "_...": "rebinds", "memmap_init_zone_device", "onlines".
 */
static const struct {
	const char *prefix, *keyword;
} context_words[] = {
	{ "nd_pmem", "nd_pmem" }, { "dax_pmem", "dax_pmem" },
	{ "fsdax", "fsdax" }, { "fs-dax", "fsdax" }, { "devdax", "devdax" },
	{ "device-dax", "devdax" }, { "virtio-mem", "virtio-mem" },
	{ "virtio_mem", "virtio-mem" }, { "memremap_pages", "memremap_pages" },
	{ "memunmap_pages", "memunmap_pages" }, { "memremap", "memremap" },
	{ "memunmap", "memunmap" }, { "test_hmm", "test_hmm" },
	{ "memmap", "memmap" }, { "vmap", "vmap" }, { "vunmap", "vunmap" },
	{ "vmalloc", "vmalloc" }, { "vfree", "vfree" },
	{ "ioremap", "ioremap" }, { "iounmap", "iounmap" },
	{ "kmem", "kmem" }, { "dax-kmem", "kmem" }, { "daxctl", "kmem" },
	{ "system-ram", "kmem" }, { "hotplug", "hotplug" },
	{ "unplug", "unplug" },
	{ "plug", "plug" }, { "online", "online" }, { "offline", "offline" },
};

#define CONTEXT_WORDS_MAX 6

/* the context words of s[0..len) appended to @sb, ", "-separated */
static void add_context_words(struct strbuf *sb, const char *s, size_t len)
{
	size_t p = 0, i;
	int n = 0;

	for (i = 0; i < sb->len; i++)
		n += sb->buf[i] == ',';
	n += sb->len > 0;
	while (p < len && n < CONTEXT_WORDS_MAX) {
		size_t b, e;
		char w[WORD_MAX];

		while (p < len && !isalnum((unsigned char)s[p]))
			p++;
		b = p;
		while (p < len && (isalnum((unsigned char)s[p]) || s[p] == '_' ||
				   s[p] == '-'))
			p++;
		e = p;
		if (e == b || e - b >= WORD_MAX)
			continue;
		for (i = 0; i < e - b; i++)
			w[i] = tolower((unsigned char)s[b + i]);
		w[e - b] = '\0';
		for (i = 0; i < ARRAY_SIZE(context_words); i++) {
			const char *rest;
			size_t k = strlen(context_words[i].prefix);

			if (strncmp(w, context_words[i].prefix, k))
				continue;
			rest = w + k;
			if (*rest && strcmp(rest, "s") && strcmp(rest, "ing") &&
			    strcmp(rest, "ed") && *rest != '_')
				continue;
			if (!strstr(sb->buf, context_words[i].keyword)) {
				if (sb->len)
					strbuf_addstr(sb, ", ");
				strbuf_addstr(sb, context_words[i].keyword);
				n++;
			}
			break;
		}
	}
}

/* tables: a header naming before and after columns, then rows */

enum col { COL_BEFORE, COL_AFTER, COL_OTHER };

#define TABLE_MAX_COLS 8

struct table {
	int active;
	int nval;			/* value columns */
	int before_idx, after_idx;	/* among the value columns */
	struct value unit;		/* header unit; kind UK_NONE if none */
	char *context;			/* subject of rows without a label */
	char *last_label;		/* the label of the row before, no size */
	int rows;			/* rows seen */
};

static const char *const before_words[] = {
	"before", "base", "baseline", "old", "vanilla", "unpatched",
	"without", "w/o", "orig", "original", "mainline", "stock",
	"unmodified", "upstream", NULL,
};
static const char *const after_words_hdr[] = {
	"after", "patched", "new", "with", "w/", "optimized", "optimised",
	"modified", "fixed", NULL,
};
static const char *const other_cols[] = {
	"change", "delta", "diff", "difference", "speedup", "speed-up",
	"ratio", "improvement", "gain", "%", "+/-", "regression",
	"reduction", "stddev", "sd", NULL,
};
static const char *const filler_words[] = {
	"patch", "patches", "series", "kernel", "time", NULL,
};

/* split a line into words, '|' counts as a blank; at most @max */
static int split_words(const char *s, size_t len, const char **w, size_t *wl,
		       int max)
{
	size_t p = 0;
	int n = 0;

	while (p < len) {
		size_t b;

		while (p < len && (is_space((unsigned char)s[p]) || s[p] == '|' ||
				   s[p] == '\r'))
			p++;
		if (p >= len)
			break;
		b = p;
		while (p < len && !is_space((unsigned char)s[p]) && s[p] != '|' &&
		       s[p] != '\r')
			p++;
		if (n == max)
			return -1;
		w[n] = s + b;
		wl[n++] = p - b;
	}
	return n;
}

/* a unit alone, maybe in brackets: "ms", "(ms)", "[usec]", "(MB/s)" */
static int unit_word(const char *w, size_t n, struct value *v)
{
	while (n && (*w == '(' || *w == '[')) {
		w++;
		n--;
	}
	while (n && (w[n - 1] == ')' || w[n - 1] == ']' || w[n - 1] == ':' ||
		     w[n - 1] == ','))
		n--;
	return n && match_unit(w, n, 0, v) == n;
}

static int table_header(const char *s, size_t len, struct table *t)
{
	const char *w[16];
	size_t wl[16];
	int n, i, nb = 0, na = 0, nval = 0, labels = 0, seen = 0;

	n = split_words(s, len, w, wl, 16);
	if (n < 2)
		return 0;
	memset(&t->unit, 0, sizeof(t->unit));
	for (i = 0; i < n; i++) {
		char word[WORD_MAX];
		size_t k, m = wl[i], paren;
		struct value u;

		if (m >= WORD_MAX)
			return 0;
		for (k = 0; k < m; k++)
			word[k] = tolower((unsigned char)w[i][k]);
		word[m] = '\0';
		/* "before(ms)", "after[us]", "Time (before)", "time(after)" */
		paren = strcspn(word, "([");
		if (paren < m && m - paren >= 3 &&
		    (word[m - 1] == ')' || word[m - 1] == ']')) {
			char inner[WORD_MAX];

			memcpy(inner, word + paren + 1, m - paren - 2);
			inner[m - paren - 2] = '\0';
			if (word_in(inner, before_words) ||
			    word_in(inner, after_words_hdr)) {
				memmove(word, inner, strlen(inner) + 1);
			} else if (paren) {
				if (!unit_word(w[i] + paren, m - paren, &u))
					return 0;
				t->unit = u;
				word[paren] = '\0';
			}
		} else if (paren && paren < m) {
			return 0;
		}
		while (strlen(word) > 1 && word[strlen(word) - 1] == ':')
			word[strlen(word) - 1] = '\0';
		if (word_in(word, before_words)) {
			if (nb++)
				return 0;
			t->before_idx = nval++;
			seen = 1;
		} else if (word_in(word, after_words_hdr)) {
			if (na++)
				return 0;
			t->after_idx = nval++;
			seen = 1;
		} else if (word_in(word, other_cols)) {
			if (!seen)
				return 0;
			nval++;
		} else if (unit_word(w[i], m, &u)) {
			t->unit = u;
		} else if (word_in(word, filler_words)) {
			continue;
		} else if (!seen && labels < 3 && !strpbrk(word, "0123456789")) {
			labels++;
		} else {
			return 0;
		}
	}
	if (nb != 1 || na != 1 || nval > TABLE_MAX_COLS)
		return 0;
	t->nval = nval;
	return 1;
}

/* "----  -----", "|---|:--:|", "=====", "+----+" */
static int table_rule(const char *s, size_t len)
{
	size_t i, dashes = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '-' || s[i] == '=')
			dashes++;
		else if (!is_space((unsigned char)s[i]) && s[i] != '|' &&
			 s[i] != '+' && s[i] != ':' && s[i] != '\r')
			return 0;
	}
	return dashes >= 3;
}

/* a whole word as a value: "221.07ms", "72", "-67%", "3.1x", "+5.2%" */
static int word_value(const char *w, size_t n, struct value *v)
{
	size_t p = 0;

	if (n && (*w == '+' || *w == '-' || *w == '~'))
		p = 1;
	if (p >= n || !isdigit((unsigned char)w[p]) || read_value(w, n, p, v))
		return 0;
	return v->end == n;
}

/*
 * a row whose label is only a size, or empty, continues the label of the
 * row above: "| Plug Memory | 256G | ..." then "|  | 512G | ..." is "Plug
 * Memory 512G"; remembers the label without its size for the next row
 */
static void table_label(struct table *t, struct strbuf *label)
{
	struct size_hit h;
	struct strbuf rest = STRBUF_INIT;
	size_t i;
	int words = 0;

	if (find_size(label->buf, label->len, 0, &h)) {
		strbuf_add(&rest, label->buf, h.start);
		strbuf_addch(&rest, ' ');
		strbuf_add(&rest, label->buf + h.end, label->len - h.end);
	} else {
		strbuf_addbuf(&rest, label);
	}
	for (i = 0; i < rest.len; i++)
		words += isalpha((unsigned char)rest.buf[i]) &&
			 (!i || !isalpha((unsigned char)rest.buf[i - 1]));
	strbuf_trim(&rest);
	if (words) {
		free(t->last_label);
		t->last_label = strbuf_detach(&rest, NULL);
		return;
	}
	strbuf_release(&rest);
	if (!t->last_label || !*t->last_label)
		return;
	strbuf_addstr(&rest, t->last_label);
	if (label->len)
		strbuf_addch(&rest, ' ');
	strbuf_addbuf(&rest, label);
	strbuf_reset(label);
	strbuf_addbuf(label, &rest);
	strbuf_release(&rest);
}

/*
 * one table row: 1 if it is a row (a claim was added when its units
 * allow), 0 if the line is not a row of this table
 */
static int table_row(struct scan *sc, struct table *t)
{
	const char *w[32];
	size_t wl[32];
	struct value vals[TABLE_MAX_COLS], u;
	int n, k;
	struct strbuf label = STRBUF_INIT;
	char *subject;

	n = split_words(sc->s, sc->len, w, wl, 32);
	if (n < t->nval)
		return 0;
	for (k = t->nval - 1; k >= 0; k--) {
		if (n > 0 && word_value(w[n - 1], wl[n - 1], &vals[k])) {
			n--;
		} else if (n > 1 && unit_word(w[n - 1], wl[n - 1], &u) &&
			   word_value(w[n - 2], wl[n - 2], &vals[k]) &&
			   vals[k].kind == UK_NONE) {
			vals[k].kind = u.kind;
			vals[k].scale = u.scale;
			vals[k].norm = u.norm;
			n -= 2;
		} else {
			return 0;
		}
	}
	for (k = 0; k < n; k++) {
		if (k)
			strbuf_addch(&label, ' ');
		strbuf_add(&label, w[k], wl[k]);
	}
	t->rows++;
	for (k = 0; k < 2; k++) {
		struct value *v = &vals[k ? t->after_idx : t->before_idx];

		if (v->kind == UK_NONE && t->unit.kind != UK_NONE) {
			v->kind = t->unit.kind;
			v->scale = t->unit.scale;
			v->norm = t->unit.norm;
		}
	}
	trim_trailing(&label);
	trim_leading(&label);
	table_label(t, &label);
	subject = label.len ? strbuf_detach(&label, NULL) : xstrdup(t->context);
	strbuf_release(&label);
	add_before_after(sc, &vals[t->before_idx], &vals[t->after_idx],
			 subject);
	return 1;
}

static void table_end(struct table *t)
{
	free(t->context);
	free(t->last_label);
	memset(t, 0, sizeof(*t));
}

/*
 * two lines: "Before: 221 ms", then within LABELLED_GAP lines "After: 72
 * ms" (also "Without the patch: ...", "Patched: ...")
 */
#define LABELLED_GAP 6
/* a labelled line is short; a longer one is prose that starts "Base:" */
#define LABELLED_LINE_MAX 160

struct pending {
	int active;
	unsigned lineno;
	struct value v;
	char *text;		/* the "before" line, trimmed */
	char *subject;
};

static void pending_clear(struct pending *pd)
{
	free(pd->text);
	free(pd->subject);
	memset(pd, 0, sizeof(*pd));
}

/* a block heading's word: 1 "before"/"base", 2 "after"/"patched", 0 */
static int block_side(const char *w)
{
	return word_in(w, before_words) ? 1 :
	       word_in(w, after_words_hdr) ? 2 : 0;
}

/*
 * 1 for "<before word> ...: NUM UNIT ...", 2 for an after word, else 0;
 * @v is the first value after the colon, which must have a time or
 * throughput unit, @colon where the colon is
 */
static int labelled_value(const char *s, size_t len, struct value *v,
			  size_t *colon)
{
	char w[WORD_MAX];
	size_t p = 0, e, q;
	int which;

	if (len > LABELLED_LINE_MAX)
		return 0;
	while (p < len && (is_space((unsigned char)s[p]) || s[p] == '-' ||
			   s[p] == '*'))
		p++;
	e = word_after(s, len, p, w);
	if (e == p)
		return 0;
	which = block_side(w);
	if (!which)
		return 0;
	q = e;
	while (q < len && s[q] != ':')
		q++;
	if (q >= len || q - e > 40)
		return 0;
	*colon = q;
	for (q++; q < len; q++) {
		if (!isdigit((unsigned char)s[q]) || isdigit((unsigned char)s[q - 1]))
			continue;
		if (read_value(s, len, q, v))
			continue;
		return v->kind == UK_TIME || v->kind == UK_TPUT ? which : 0;
	}
	return 0;
}

/* the "before" line's subject: its words after the colon but the value */
static char *labelled_subject(const char *s, size_t len, size_t colon,
			      const struct value *v, const char *context)
{
	struct strbuf sb = STRBUF_INIT;

	add_collapsed(&sb, s + colon + 1, v->start - colon - 1);
	strbuf_addch(&sb, ' ');
	add_collapsed(&sb, s + v->end, len - v->end);
	trim_trailing(&sb);
	trim_leading(&sb);
	if (!sb.len) {
		add_collapsed(&sb, context, strlen(context));
		trim_trailing(&sb);
		trim_leading(&sb);
	}
	return strbuf_detach(&sb, NULL);
}

/* handle a labelled line; 1 if it was one (nothing else to scan) */
static int labelled_line(struct scan *sc, struct pending *pd)
{
	struct value v;
	size_t colon;
	int which = labelled_value(sc->s, sc->len, &v, &colon);

	if (pd->active && sc->lineno - pd->lineno > LABELLED_GAP)
		pending_clear(pd);
	if (which == 1) {
		pending_clear(pd);
		pd->active = 1;
		pd->lineno = sc->lineno;
		pd->v = v;
		pd->text = make_text(sc->s, sc->len);
		pd->subject = labelled_subject(sc->s, sc->len, colon, &v,
					       sc->context);
		return 1;
	}
	if (which != 2 || !pd->active)
		return 0;
	if (!add_before_after(sc, &pd->v, &v, pd->subject)) {
		struct claim *c = &sc->out->v[sc->out->nr - 1];
		char *after = c->text;

		c->text = xstrfmt("%s / %s", pd->text, after);
		free(after);
	}
	pd->subject = NULL;
	pending_clear(pd);
	return 1;
}

/* mail structure */

static const char *const header_names[] = {
	"From:", "Received:", "Return-Path:", "Date:", "Message-ID:",
	"Message-Id:", "Subject:", "To:", "Cc:", "Delivered-To:",
	"MIME-Version:", "Content-Type:", "Reply-To:", "In-Reply-To:",
	"References:", "Sender:", "DKIM-Signature:", "Authentication-Results:",
	"X-", "ARC-", "List-", NULL,
};

static int looks_like_header(const char *s, size_t len)
{
	const char *const *h;

	for (h = header_names; *h; h++) {
		size_t n = strlen(*h);

		if (len >= n && !strncasecmp(s, *h, n))
			return 1;
	}
	return 0;
}

static int is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is_blob(const char *s, size_t len)
{
	return len >= BLOB_LINE_MIN && !memchr(s, ' ', len) &&
	       !memchr(s, '\t', len);
}

static int starts_diff(const char *s, size_t len)
{
	static const char *const starts[] = {
		"diff --git ", "--- a/", "+++ b/", "Index: ", "@@ ", NULL,
	};
	const char *const *p;

	if ((len == 3 && !memcmp(s, "-- ", 3)) ||
	    (len == 4 && !memcmp(s, "-- \r", 4)))
		return 1;
	for (p = starts; *p; p++)
		if (len >= strlen(*p) && !memcmp(s, *p, strlen(*p)))
			return 1;
	return 0;
}

enum mail_state { ST_BODY, ST_HEADER, ST_SKIP };

/*
 * blocks of values: a "before" heading ("Base(v7.2-rc1):", "Before:",
 * "Without the patch:"), lines "LABEL: NUM UNIT", then an "after"
 * heading ("With this series applied:", "patched:") and the same labels
 * again. Each after line pairs with the before line of the same label,
 * else with the one at its position.
 */
#define BLOCK_MAX 16

struct block_entry {
	char *label;		/* collapsed, lowercase-compared */
	char *text;		/* the line, trimmed */
	char *group;		/* workload words of its group, "" if none */
	struct value v;
	int used;
};

struct block {
	int state;		/* 0 none, 1 before values, 2 after values */
	struct block_entry e[BLOCK_MAX];
	int nr, nafter;
	char *context;		/* context words of the paragraph before */
	char group[64];		/* workload words of the current group */
	unsigned lineno;	/* the last line of the block */
};

static void block_end(struct block *b)
{
	int i;

	for (i = 0; i < b->nr; i++) {
		free(b->e[i].label);
		free(b->e[i].text);
		free(b->e[i].group);
	}
	free(b->context);
	memset(b, 0, sizeof(*b));
}

/* 1: a before heading, 2: an after heading, else 0 */
static int block_heading(const char *s, size_t len)
{
	char w[WORD_MAX];
	size_t p = skip_space(s, len, 0), e, i, words = 0;
	int which;

	while (len && is_space((unsigned char)s[len - 1]))
		len--;
	if (!len || s[len - 1] != ':' || len - p > 80)
		return 0;
	e = word_after(s, len, p, w);
	if (e == p)
		return 0;
	which = block_side(w);
	if (!which)
		return 0;
	for (i = p; i < len; i++) {
		struct value v;

		if (s[i] == ' ' && i + 1 < len && s[i + 1] != ' ')
			words++;
		if (isdigit((unsigned char)s[i]) &&
		    (!i || !isdigit((unsigned char)s[i - 1])) &&
		    !read_value(s, len, i, &v) &&
		    (v.kind == UK_TIME || v.kind == UK_TPUT))
			return 0;
	}
	return words <= 10 ? which : 0;
}

/*
 * "LABEL: NUM UNIT ...": the first value with a time or throughput unit,
 * after a label of at least one word; @label gets the label, collapsed
 */
static int block_value(const char *s, size_t len, struct value *v,
		       struct strbuf *label)
{
	size_t p;

	for (p = 0; p < len; p++) {
		if (!isdigit((unsigned char)s[p]) ||
		    (p && isdigit((unsigned char)s[p - 1])))
			continue;
		if (read_value(s, len, p, v))
			continue;
		if (v->kind != UK_TIME && v->kind != UK_TPUT)
			return 0;
		strbuf_reset(label);
		add_collapsed(label, s, v->start);
		trim_trailing(label);
		trim_leading(label);
		return label->len > 0;
	}
	return 0;
}

/* the state of one claims_extract() call */
struct extract {
	struct claim_list *out;
	size_t mail_first;	/* the first claim of the current mail */
	struct table t;
	struct pending pd;
	struct block b;
	struct strbuf context;	/* the text line before */
	struct strbuf sentence;	/* the lines of the sentence so far */
	struct strbuf para;	/* the paragraph so far */
	struct strbuf prev_para; /* the paragraph before it */
	int para_start;		/* the next text line starts a paragraph */
	double mail_size;	/* MiB: the last size of 1 GiB or more named */
	const char *mail_machine; /* the last machine named */
	int found;
};

/* a claim that repeats one found at most this many lines before it */
#define RESTATE_LINES 30

/*
 * a percent or factor restates a before/after claim when their changes
 * agree to the rounding of the mail: half a point, or 2 % of the change
 */
static int restates(const struct claim *ba, const struct claim *c)
{
	double tol = fmax(0.5, fabs(ba->change_pct) * 0.02);

	return fabs(ba->change_pct - c->change_pct) <= tol;
}

static int duplicate(const struct extract *ex, size_t i, int prose)
{
	const struct claim *c = &ex->out->v[i];
	size_t k;

	for (k = ex->mail_first; k < i; k++) {
		const struct claim *o = &ex->out->v[k];

		if (o->kind != CLAIM_BEFORE_AFTER ||
		    c->line > o->line + RESTATE_LINES)
			continue;
		if (c->kind != CLAIM_BEFORE_AFTER) {
			if (restates(o, c))
				return 1;
			continue;
		}
		if (prose && !strcmp(o->unit, c->unit) &&
		    fabs(o->before - c->before) <= 1e-9 * fabs(o->before) &&
		    fabs(o->after - c->after) <= 1e-9 * fabs(o->after))
			return 1;
	}
	return 0;
}

/*
 * the claims from @first on: drop the ones that repeat an earlier claim
 * of the mail, then add what the mail says around them to the subject
 * ("[nd_pmem, memmap, 100 GB, VM]": @words, the size and the machine the
 * claim's own words lack) and fill size_mib and machine
 */
static void finish_claims(struct extract *ex, size_t first, const char *words,
			  int prose)
{
	size_t i = first;

	while (i < ex->out->nr) {
		struct claim *c = &ex->out->v[i];
		struct strbuf extra = STRBUF_INIT;
		double size;
		const char *machine;

		if (duplicate(ex, i, prose)) {
			free(c->subject);
			free(c->text);
			memmove(c, c + 1,
				(ex->out->nr - i - 1) * sizeof(*c));
			ex->out->nr--;
			ex->found--;
			continue;
		}
		if (words && *words) {
			struct strbuf own = STRBUF_INIT, w = STRBUF_INIT;
			const char *p = words;
			size_t k;

			strbuf_addf(&own, "%s %s", c->subject, c->text);
			for (k = 0; k < own.len; k++)
				own.buf[k] = tolower((unsigned char)own.buf[k]);
			while (*p) {
				size_t n = strcspn(p, ",");

				strbuf_reset(&w);
				strbuf_add(&w, p, n);
				strbuf_trim(&w);
				if (w.len && !strstr(own.buf, w.buf) &&
				    !strstr(extra.buf, w.buf))
					strbuf_addf(&extra, "%s%s",
						    extra.len ? ", " : "", w.buf);
				p += n + (p[n] == ',');
			}
			strbuf_release(&own);
			strbuf_release(&w);
		}
		claim_scale(c, &size, &machine);
		if (!size && ex->mail_size > 0) {
			char buf[32];

			size_str(ex->mail_size, buf, sizeof(buf));
			strbuf_addf(&extra, "%s%s", extra.len ? ", " : "", buf);
		}
		if (!machine && ex->mail_machine)
			strbuf_addf(&extra, "%s%s", extra.len ? ", " : "",
				    ex->mail_machine);
		if (extra.len) {
			char *subj = xstrfmt("%s%s[%s]", c->subject,
					     *c->subject ? " " : "", extra.buf);

			free(c->subject);
			c->subject = subj;
		}
		strbuf_release(&extra);
		claim_scale(c, &c->size_mib, &machine);
		xsnprintf(c->machine, sizeof(c->machine), "%s",
			  machine ? machine : "");
		i++;
	}
}

/* words of a sentence that says where something was measured */
static const char *const measure_words[] = {
	"test", "ran", "run", "runs", "measur", "benchmark", "result",
	"setup", NULL,
};

/* the size and the machine a line of the mail names */
static void note_setup(struct extract *ex, const char *s, size_t len)
{
	struct size_hit h;
	size_t from = 0;
	const char *m;

	while (find_size(s, len, from, &h)) {
		if (h.mib >= 1024)
			ex->mail_size = h.mib;
		from = h.end;
	}
	/* "tested in a VM", "ran ... on the same physical host" */
	m = find_machine(s, len);
	if (m && has_word_stem(s, len, measure_words))
		ex->mail_machine = m;
}

static void scan_init(struct extract *ex, struct scan *sc, const char *s,
		      size_t len, unsigned lineno)
{
	memset(sc, 0, sizeof(*sc));
	sc->out = ex->out;
	sc->s = s;
	sc->len = len;
	sc->lineno = lineno;
	sc->context = ex->context.buf;
}

static const char *const op_words[] = {
	"memmap", "online", "offline", "plug", "unplug", "hotplug", NULL,
};

enum word_pick { ALL_WORDS, OP_WORDS, NON_OP_WORDS };

/* the words of the list @words ("a, b") that @pick keeps, added to @out */
static void pick_words(struct strbuf *out, const char *words,
		       enum word_pick pick)
{
	while (words && *words) {
		size_t n = strcspn(words, ",");
		char w[WORD_MAX];

		while (*words == ' ') {
			words++;
			n--;
		}
		if (n && n < WORD_MAX) {
			int op;

			memcpy(w, words, n);
			w[n] = '\0';
			op = word_in(w, op_words);
			if (pick == ALL_WORDS || op == (pick == OP_WORDS))
				strbuf_addf(out, "%s%s", out->len ? ", " : "",
					    w);
		}
		words += n + (words[n] == ',');
	}
}

/* remove the operations from a list of context words: the workloads stay */
static void drop_ops(struct strbuf *words)
{
	struct strbuf keep = STRBUF_INIT;

	pick_words(&keep, words->buf, NON_OP_WORDS);
	strbuf_reset(words);
	strbuf_addbuf(words, &keep);
	strbuf_release(&keep);
}

/* @words of a block's paragraph; only the operations if @ops_only */
static void block_context(struct strbuf *ctx, const char *words, int ops_only)
{
	pick_words(ctx, words, ops_only ? OP_WORDS : ALL_WORDS);
}

/* a line of a before or after block; 1 if it was one */
static int block_line(struct extract *ex, const char *s, size_t len,
		      unsigned lineno)
{
	struct block *b = &ex->b;
	int h = block_heading(s, len);
	struct strbuf label = STRBUF_INIT, words = STRBUF_INIT;
	struct value v;
	int i, k;

	if (h == 1) {
		block_end(b);
		b->state = 1;
		b->lineno = lineno;
		/* the paragraph the heading ends, else the one before it */
		if (ex->para.len)
			add_context_words(&words, ex->para.buf, ex->para.len);
		else
			add_context_words(&words, ex->prev_para.buf,
					  ex->prev_para.len);
		b->context = strbuf_detach(&words, NULL);
		return 1;
	}
	if (!b->state)
		return 0;
	if (h == 2 && b->state == 1 && b->nr) {
		b->state = 2;
		b->lineno = lineno;
		return 1;
	}
	if (h || !block_value(s, len, &v, &label)) {
		strbuf_release(&label);
		block_end(b);
		return 0;
	}
	b->lineno = lineno;
	add_context_words(&words, label.buf, label.len);
	drop_ops(&words);
	if (b->state == 1) {
		if (b->nr == BLOCK_MAX) {
			strbuf_release(&label);
			strbuf_release(&words);
			return 1;
		}
		if (words.len)
			xsnprintf(b->group, sizeof(b->group), "%s", words.buf);
		b->e[b->nr].label = strbuf_detach(&label, NULL);
		b->e[b->nr].text = make_text(s, len);
		b->e[b->nr].group = xstrdup(b->group);
		b->e[b->nr].v = v;
		b->nr++;
		strbuf_release(&words);
		return 1;
	}
	/* an after value: the before value of its label, else of its place */
	for (k = -1, i = 0; i < b->nr; i++)
		if (!b->e[i].used && !strcasecmp(b->e[i].label, label.buf)) {
			if (k >= 0) {
				k = -1;
				break;
			}
			k = i;
		}
	if (k < 0 && b->nafter < b->nr && !b->e[b->nafter].used)
		k = b->nafter;
	b->nafter++;
	if (k >= 0) {
		struct block_entry *e = &b->e[k];
		struct scan sc;
		size_t first = ex->out->nr;
		char *subject = xstrdup(e->label);

		scan_init(ex, &sc, s, len, lineno);
		e->used = 1;
		if (!add_before_after(&sc, &e->v, &v, subject)) {
			struct claim *c = &ex->out->v[ex->out->nr - 1];
			struct strbuf ctx = STRBUF_INIT;
			char *after = c->text;

			c->text = xstrfmt("%s / %s", e->text, after);
			free(after);
			ex->found += sc.found;
			/*
			 * the workload of the group when the label lacks one;
			 * of the paragraph before, only what was timed when
			 * the group names its workload
			 */
			strbuf_addstr(&ctx, words.len ? "" : e->group);
			block_context(&ctx, b->context,
				      words.len || *e->group);
			finish_claims(ex, first, ctx.buf, 0);
			strbuf_release(&ctx);
		}
	}
	strbuf_release(&label);
	strbuf_release(&words);
	return 1;
}

/* the sentence goes on after this line unless the line ends one */
static void sentence_update(struct strbuf *sentence, const char *s,
			    size_t len)
{
	size_t i, cut = 0;

	while (len && is_space((unsigned char)s[len - 1]))
		len--;
	if (!len || strchr(".!?:", s[len - 1]) || len > 400) {
		strbuf_reset(sentence);
		return;
	}
	for (i = 0; i + 1 < len; i++)
		if (strchr(".!?", s[i]) && s[i + 1] == ' ')
			cut = i + 2;
	if (cut) {
		strbuf_reset(sentence);
		add_collapsed(sentence, s + cut, len - cut);
		return;
	}
	if (sentence->len + len > 600)
		strbuf_reset(sentence);
	if (sentence->len)
		strbuf_addch(sentence, ' ');
	add_collapsed(sentence, s + skip_space(s, len, 0),
		      len - skip_space(s, len, 0));
}

/* a list item starts a sentence of its own */
static int starts_item(const char *s, size_t len)
{
	size_t p = skip_space(s, len, 0);

	if (p + 1 < len && strchr("*-+", s[p]) && s[p + 1] == ' ')
		return 1;
	while (p < len && isdigit((unsigned char)s[p]))
		p++;
	return p < len && p > skip_space(s, len, 0) &&
	       (s[p] == '.' || s[p] == ')') && p + 1 < len && s[p + 1] == ' ';
}

/* a quoted line, a blank line: whatever spans lines ends */
static void body_break(struct extract *ex, int blank)
{
	table_end(&ex->t);
	strbuf_reset(&ex->sentence);
	if (!blank)
		block_end(&ex->b);
	if (blank && !ex->para_start) {
		strbuf_reset(&ex->prev_para);
		strbuf_addbuf(&ex->prev_para, &ex->para);
		ex->para_start = 1;
	}
}

/* one line of a body (or a piece of a long one) that is not blank */
static void body_line(struct extract *ex, const char *s, size_t len,
		      unsigned lineno)
{
	struct scan sc;
	struct strbuf win = STRBUF_INIT;
	size_t ind = skip_space(s, len, 0), first = ex->out->nr;

	if (ex->para_start) {
		strbuf_reset(&ex->para);
		ex->para_start = 0;
	}
	scan_init(ex, &sc, s, len, lineno);
	if (ex->t.active) {
		if (table_rule(s, len))
			return;
		if (table_row(&sc, &ex->t)) {
			ex->found += sc.found;
			finish_claims(ex, first, NULL, 0);
			return;
		}
		table_end(&ex->t);
	}
	if (table_header(s, len, &ex->t)) {
		struct strbuf ctx = STRBUF_INIT;

		strbuf_addbuf(&ctx, &ex->context);
		trim_trailing(&ctx);
		ex->t.context = strbuf_detach(&ctx, NULL);
		ex->t.active = 1;
		strbuf_reset(&ex->sentence);
		return;
	}
	if (block_line(ex, s, len, lineno)) {
		strbuf_reset(&ex->sentence);
		return;
	}
	if (labelled_line(&sc, &ex->pd)) {
		ex->found += sc.found;
		finish_claims(ex, first, NULL, 0);
		strbuf_reset(&ex->sentence);
		return;
	}
	if (starts_item(s, len))
		strbuf_reset(&ex->sentence);
	if (ex->sentence.len) {
		strbuf_addbuf(&win, &ex->sentence);
		strbuf_addch(&win, ' ');
		sc.from = win.len;
		strbuf_add(&win, s + ind, len - ind);
		sc.s = win.buf;
		sc.len = win.len;
	}
	note_setup(ex, sc.s, sc.len);
	scan_before_after(&sc);
	if (!sc.ba_seen)
		scan_relative(&sc);
	ex->found += sc.found;
	finish_claims(ex, first, NULL, 1);
	strbuf_release(&win);
	sentence_update(&ex->sentence, s, len);
	if (ex->para.len)
		strbuf_addch(&ex->para, ' ');
	add_collapsed(&ex->para, s + ind, len - ind);
	strbuf_reset(&ex->context);
	add_collapsed(&ex->context, s + ind, len - ind);
}

/* no line of a mail is longer (RFC 5322 2.1.1): longer ones were joined */
#define LONG_LINE_MIN 998

/* a run of "+-=|:" with at least 3 dashes: a table rule, its length */
static size_t rule_token(const char *s, size_t len, size_t p)
{
	size_t q = p, dashes = 0;

	while (q < len && strchr("+-=|:", s[q])) {
		dashes += s[q] == '-' || s[q] == '=';
		q++;
	}
	if (dashes < 3 || (q < len && !is_space((unsigned char)s[q])))
		return 0;
	return q - p;
}

/*
 * a paragraph, a whole mail or thread on one line (a mailer that does
 * not wrap, an archive that flattened the mail): cut it where its lines
 * would have been, at table rules, list items and sentence ends, and
 * read each piece as a line; a piece that starts with '>' is quoted.
 * Everything from a "diff --git" on is the patch.
 */
static void long_line(struct extract *ex, const char *s, size_t len,
		      unsigned lineno)
{
	size_t p, b = 0, i;
	static const char *const stops[] = { " diff --git ", " --- a/", NULL };

	for (i = 0; stops[i]; i++) {
		const char *d = memmem(s, len, stops[i], strlen(stops[i]));

		if (d)
			len = d - s;
	}
	for (p = 0; p <= len; p++) {
		size_t next = p, cut = p, n;

		if (p == len) {
			next = len;
		} else if ((!p || s[p - 1] == ' ') &&
			   (n = rule_token(s, len, p))) {
			next = p + n;
		} else if (p && s[p - 1] == ' ' && s[p] == '*' && p + 1 < len &&
			   s[p + 1] == ' ') {
			next = p;
		} else if (strchr(".!?", s[p]) && p + 2 < len &&
			   s[p + 1] == ' ' && isupper((unsigned char)s[p + 2])) {
			cut = p + 1;
			next = p + 2;
		} else {
			continue;
		}
		while (b < cut && is_space((unsigned char)s[b]))
			b++;
		if (b < cut) {
			if (s[b] == '>')
				body_break(ex, 0);
			else
				body_line(ex, s + b, cut - b, lineno);
		}
		b = next;
		if (next > p)
			p = next - 1;
	}
}

static void new_mail(struct extract *ex)
{
	table_end(&ex->t);
	pending_clear(&ex->pd);
	block_end(&ex->b);
	strbuf_reset(&ex->context);
	strbuf_reset(&ex->sentence);
	strbuf_reset(&ex->para);
	strbuf_reset(&ex->prev_para);
	ex->para_start = 1;
	ex->mail_first = ex->out->nr;
	ex->mail_size = 0;
	ex->mail_machine = NULL;
}

/*
 * @s, text from a mail, cleaned in place (mail_clean_text(), one line):
 * a claim's subject and text go to the database, the pages, the report
 * mails and the terminal of `mmci show`, and a sender's ESC [2J, C1 CSI
 * or U+202E must act on none of them. Done once here, where every claim
 * of every form has been made, so the database never holds one.
 */
static void clean_claim_string(char **s)
{
	struct strbuf sb = STRBUF_INIT;

	if (!mail_clean_text(&sb, *s, strlen(*s), 0)) {
		strbuf_release(&sb);
		return;
	}
	free(*s);
	*s = strbuf_detach(&sb, NULL);
}

int claims_extract(const char *text, struct claim_list *out)
{
	const char *s, *nl;
	unsigned lineno = 0;
	enum mail_state st = ST_BODY;
	struct extract ex;
	int prev_blank = 1, blank_before = 1;
	size_t first, i;

	if (!text || !out)
		return error("claims_extract: no %s", text ? "list" : "text");
	first = out->nr;
	memset(&ex, 0, sizeof(ex));
	ex.out = out;
	ex.mail_first = out->nr;
	ex.para_start = 1;
	strbuf_init(&ex.context, 0);
	strbuf_init(&ex.sentence, 0);
	strbuf_init(&ex.para, 0);
	strbuf_init(&ex.prev_para, 0);
	for (s = text; *s; s = nl ? nl + 1 : s + strlen(s)) {
		size_t len, ind;
		int blank;

		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		while (len && s[len - 1] == '\r')
			len--;
		lineno++;
		blank = is_blank(s, len);

		if (len >= 5 && !memcmp(s, "From ", 5) && prev_blank) {
			st = ST_HEADER;
			new_mail(&ex);
			prev_blank = 0;
			if (len > LONG_LINE_MIN) {
				/* a whole mail flattened onto its separator */
				st = ST_BODY;
				long_line(&ex, s, len, lineno);
			}
			continue;
		}
		if (lineno == 1 && looks_like_header(s, len))
			st = ST_HEADER;
		prev_blank = blank;
		if (st == ST_HEADER) {
			if (blank)
				st = ST_BODY;
			continue;
		}
		/*
		 * a thread saved as text, without "From " lines: a subject
		 * "[PATCH ...]" after a blank line starts the next mail
		 */
		if (st == ST_SKIP && blank_before && len > 7 &&
		    !memcmp(s, "[PATCH", 6)) {
			st = ST_BODY;
			new_mail(&ex);
		}
		blank_before = blank;
		if (st == ST_SKIP)
			continue;
		if (starts_diff(s, len)) {
			st = ST_SKIP;
			table_end(&ex.t);
			block_end(&ex.b);
			continue;
		}
		ind = skip_space(s, len, 0);
		if ((ind < len && s[ind] == '>') || is_blob(s, len)) {
			body_break(&ex, 0);
			continue;
		}
		if (blank) {
			body_break(&ex, 1);
			continue;
		}
		if (len > LONG_LINE_MIN)
			long_line(&ex, s, len, lineno);
		else
			body_line(&ex, s, len, lineno);
	}
	table_end(&ex.t);
	pending_clear(&ex.pd);
	block_end(&ex.b);
	strbuf_release(&ex.context);
	strbuf_release(&ex.sentence);
	strbuf_release(&ex.para);
	strbuf_release(&ex.prev_para);
	for (i = first; i < out->nr; i++) {
		clean_claim_string(&out->v[i].subject);
		clean_claim_string(&out->v[i].text);
	}
	return ex.found;
}

void claim_list_release(struct claim_list *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free(list->v[i].subject);
		free(list->v[i].text);
	}
	free(list->v);
	list->v = NULL;
	list->nr = list->alloc = 0;
}

/* matching claims to metrics */

#define MATCH_MAX_WORDS 256

struct words {
	char *w[MATCH_MAX_WORDS];
	int nr;
};

static void words_add(struct words *ws, const char *s, size_t n)
{
	size_t i;
	char *w;

	if (ws->nr == MATCH_MAX_WORDS || !n)
		return;
	w = xstrndup(s, n);
	for (i = 0; i < n; i++)
		w[i] = tolower((unsigned char)w[i]);
	ws->w[ws->nr++] = w;
}

static int is_size_unit(const char *w, char *letter)
{
	static const char *const units[] = {
		"k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "t", "tb",
		"tib", NULL,
	};

	if (!word_in(w, units))
		return 0;
	*letter = w[0];
	return 1;
}

/*
 * the lowercase alphanumeric words of @s, plus composed tokens: "100m" for
 * "100 MB" or "100MiB", "order8" for "order-8"
 */
static void words_split(struct words *ws, const char *s)
{
	int first = ws->nr, last, i;

	while (*s) {
		size_t n = 0;

		while (*s && !isalnum((unsigned char)*s))
			s++;
		while (isalnum((unsigned char)s[n]))
			n++;
		words_add(ws, s, n);
		s += n;
	}
	/* the words split, not those derived here ("16g" is not split again) */
	last = ws->nr;
	for (i = first; i < last; i++) {
		const char *w = ws->w[i];
		size_t d = strspn(w, "0123456789");
		char letter;

		if (d && d < strlen(w) && is_size_unit(w + d, &letter)) {
			char *t = xstrfmt("%.*s%c", (int)d, w, letter);

			words_add(ws, t, strlen(t));
			free(t);
		} else if (d && !w[d] && i + 1 < ws->nr &&
			   is_size_unit(ws->w[i + 1], &letter)) {
			char *t = xstrfmt("%s%c", w, letter);

			words_add(ws, t, strlen(t));
			free(t);
		} else if (!strcmp(w, "order") && i + 1 < ws->nr &&
			   strspn(ws->w[i + 1], "0123456789") ==
				   strlen(ws->w[i + 1])) {
			char *t = xstrfmt("order%s", ws->w[i + 1]);

			words_add(ws, t, strlen(t));
			free(t);
		}
	}
}

static void words_clear(struct words *ws)
{
	int i;

	for (i = 0; i < ws->nr; i++)
		free(ws->w[i]);
	ws->nr = 0;
}

/* @part (lowercase) is one of the words, or starts one (see claims.h) */
static int words_have(const struct words *ws, const char *part)
{
	size_t n = strlen(part);
	char stem[WORD_MAX];
	int i;

	if (n >= WORD_MAX || !n)
		return 0;
	memcpy(stem, part, n + 1);
	if (n >= 5 && stem[n - 1] == 'e')
		stem[--n] = '\0';
	for (i = 0; i < ws->nr; i++) {
		if (!strcmp(ws->w[i], part))
			return 1;
		if (n >= 4 && isalpha((unsigned char)part[0]) &&
		    starts_with(ws->w[i], stem))
			return 1;
	}
	return 0;
}

/* every word of @phrase ("virtio mem") appears in a row */
static int words_have_phrase(const struct words *ws, const char *phrase)
{
	struct words p = { .nr = 0 };
	int i, j, hit = 0;

	words_split(&p, phrase);
	for (i = 0; p.nr && i + p.nr <= ws->nr && !hit; i++) {
		for (j = 0; j < p.nr; j++)
			if (strcmp(ws->w[i + j], p.w[j]))
				break;
		hit = j == p.nr;
	}
	words_clear(&p);
	return hit;
}

/*
 * the words mm authors name mmci's workloads by: the drivers (nd_pmem
 * binds fsdax namespaces, dax_pmem devdax ones), the functions a workload
 * times, and for virtio-mem the operation itself ("Plug Memory", "memory
 * hotplug"), as in the tables of memory hotplug series
 */
static const struct {
	const char *workload;
	const char *alias[10];
} workload_aliases[] = {
	{ "fsdax", { "fsdax", "fs dax", "nd pmem", "nd_pmem", NULL } },
	{ "devdax", { "devdax", "device dax", "dax pmem", "dev dax", NULL } },
	{ "vmap", { "vmap", "vunmap", "ioremap", "iounmap", "vmalloc",
		    "vfree", NULL } },
	{ "memremap", { "memremap", "memunmap", "test hmm", NULL } },
	{ "vmalloc", { "vmalloc", "vfree", "test vmalloc", NULL } },
	{ "virtio-mem", { "virtio mem", "virtiomem", "hotplug", "plug",
			  "unplug", "hot plug", "hot unplug", "hotunplug",
			  NULL } },
	{ "kmem", { "kmem", "dax kmem", "system ram", "daxctl", NULL } },
};

static const struct {
	const char *part;
	const char *alias[4];
} part_aliases[] = {
	{ "wall", { "elapsed", "total", "overall", NULL } },
	{ "memmap", { "memmap", NULL } },
};

static int workload_named(const struct words *ws, const char *workload)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(workload_aliases); i++) {
		if (strcasecmp(workload, workload_aliases[i].workload))
			continue;
		for (j = 0; workload_aliases[i].alias[j]; j++)
			if (words_have_phrase(ws, workload_aliases[i].alias[j]))
				return 1;
	}
	return words_have_phrase(ws, workload);
}

static int part_named(const struct words *ws, const char *part)
{
	size_t i, j;

	if (words_have(ws, part))
		return 1;
	for (i = 0; i < ARRAY_SIZE(part_aliases); i++) {
		if (strcmp(part, part_aliases[i].part))
			continue;
		for (j = 0; part_aliases[i].alias[j]; j++)
			if (words_have(ws, part_aliases[i].alias[j]))
				return 1;
	}
	return 0;
}

int claim_match_score(const struct claim *c, const char *workload,
		      const char *variant, const char *metric)
{
	struct words ws = { .nr = 0 };
	int score = 0;

	if (!c)
		return 0;
	words_split(&ws, c->subject ? c->subject : "");
	words_split(&ws, c->text ? c->text : "");
	/*
	 * memmap_init_zone_device() named alone: the time of each rebind,
	 * what mm authors measure 30 times in a row (the pr_debug() of
	 * mm/mm_init.c), unless the claim says which bind or memremap. A
	 * "first" alone is not the first bind ("check the first page")
	 */
	if (words_have(&ws, "memmap") &&
	    !words_have(&ws, "bind") && !words_have(&ws, "rebind") &&
	    !words_have(&ws, "memremap") && !words_have(&ws, "hmm"))
		words_add(&ws, "rebind", 6);
	if (workload && *workload && workload_named(&ws, workload))
		score += 30;
	if (metric && *metric) {
		char *m = xstrdup(metric), *tok, *save = NULL;
		int nparts = 0, hit = 0;

		for (tok = strtok_r(m, "_", &save); tok;
		     tok = strtok_r(NULL, "_", &save)) {
			size_t i;

			for (i = 0; tok[i]; i++)
				tok[i] = tolower((unsigned char)tok[i]);
			nparts++;
			hit += part_named(&ws, tok);
		}
		free(m);
		if (nparts)
			score += (55 * hit + nparts / 2) / nparts +
				 (hit < 5 ? hit : 5);
	}
	if (variant && *variant) {
		struct words vw = { .nr = 0 };
		int i;

		words_split(&vw, variant);
		for (i = 0; i < vw.nr; i++) {
			if (strlen(vw.w[i]) >= 2 && words_have(&ws, vw.w[i])) {
				score += 10;
				break;
			}
		}
		words_clear(&vw);
	}
	words_clear(&ws);
	return score > 100 ? 100 : score;
}

/* agreement of a claim with a measurement */

enum claim_agreement claim_agree(const struct claim *c, double measured_pct,
				 double ci_lo_pct, double ci_hi_pct)
{
	double cl, m = measured_pct, big, small;
	int have_ci = !isnan(ci_lo_pct) && !isnan(ci_hi_pct);

	if (!c || isnan(c->change_pct) || isnan(m))
		return CLAIM_NOT_MEASURED;
	cl = c->change_pct;
	if (have_ci && ci_lo_pct <= cl && cl <= ci_hi_pct)
		return CLAIM_AGREES;
	if (cl == 0)
		return fabs(m) < 1 ? CLAIM_AGREES : CLAIM_SAME_DIRECTION_LARGER;
	if ((m > 0 && cl > 0) || (m < 0 && cl < 0)) {
		big = fmax(fabs(cl), fabs(m));
		small = fmin(fabs(cl), fabs(m));
		if (big <= 1.5 * small)
			return CLAIM_AGREES;
		return fabs(m) < fabs(cl) ? CLAIM_SAME_DIRECTION_SMALLER :
					    CLAIM_SAME_DIRECTION_LARGER;
	}
	if (have_ci) {
		if ((cl > 0 && ci_hi_pct < 0) || (cl < 0 && ci_lo_pct > 0))
			return CLAIM_OPPOSITE;
		return CLAIM_SAME_DIRECTION_SMALLER;
	}
	return m != 0 ? CLAIM_OPPOSITE : CLAIM_SAME_DIRECTION_SMALLER;
}

const char *claim_agreement_name(enum claim_agreement a)
{
	switch (a) {
	case CLAIM_AGREES:
		return "agrees";
	case CLAIM_SAME_DIRECTION_SMALLER:
		return "smaller than claimed";
	case CLAIM_SAME_DIRECTION_LARGER:
		return "larger than claimed";
	case CLAIM_OPPOSITE:
		return "opposite";
	case CLAIM_NOT_MEASURED:
		return "not measured";
	}
	return "unknown";
}

/* ratios */

double claim_ratio(const struct claim *c)
{
	double f;

	if (!c)
		return NAN;
	if (c->kind == CLAIM_BEFORE_AFTER && c->before > 0 && c->after > 0)
		return c->higher_is_better ? c->after / c->before :
					     c->before / c->after;
	f = 1 + c->change_pct / 100;
	if (isnan(f) || !(f > 0))
		return NAN;
	return c->higher_is_better ? f : 1 / f;
}

double claim_ratio_tolerance(double ratio)
{
	double g = ratio >= 1 ? ratio : 1 / ratio;

	if (isnan(ratio) || !(ratio > 0))
		return NAN;
	return fmax(CLAIM_RATIO_FLOOR, pow(g, CLAIM_RATIO_EXP));
}

/* the measured ratio of a change in %, in the claim's direction */
static double measured_ratio(const struct claim *c, double measured_pct)
{
	double f = 1 + measured_pct / 100;

	if (isnan(f) || !(f > 0))
		return NAN;
	return c->higher_is_better ? f : 1 / f;
}

enum claim_agreement claim_ratio_agree(const struct claim *c,
				       double measured_pct)
{
	double rc = claim_ratio(c), rm, tol;

	if (!c)
		return CLAIM_NOT_MEASURED;
	rm = measured_ratio(c, measured_pct);
	if (isnan(rc) || isnan(rm))
		return CLAIM_NOT_MEASURED;
	tol = claim_ratio_tolerance(rc);
	if (rm >= rc / tol && rm <= rc * tol)
		return CLAIM_AGREES;
	if ((rc > 1 && rm < 1) || (rc < 1 && rm > 1))
		return CLAIM_OPPOSITE;
	/* the gain, away from 1, is smaller or larger than claimed */
	return fabs(log(rm)) < fabs(log(rc)) ? CLAIM_SAME_DIRECTION_SMALLER :
					       CLAIM_SAME_DIRECTION_LARGER;
}

/* "at 100 GB on KVM", "at 16 GB under TCG/icount", "" */
static void where(struct strbuf *out, double mib, const char *machine,
		  const char *on)
{
	char buf[32];

	if (mib > 0) {
		size_str(mib, buf, sizeof(buf));
		strbuf_addf(out, " at %s", buf);
	}
	if (machine && *machine)
		strbuf_addf(out, " %s %s", on, machine);
}

/* sizes differ when one is more than 10 % off the other */
static int sizes_differ(double a, double b)
{
	return a > 0 && b > 0 && fmax(a, b) > 1.1 * fmin(a, b);
}

/* KVM and a VM are the same kind of machine; TCG and icount are not */
static int machines_differ(const char *claimed, const char *measured)
{
	if (!claimed || !*claimed || !measured || !*measured)
		return 0;
	if (!strcmp(claimed, "VM") && !strcmp(measured, "KVM"))
		return 0;
	return strcmp(claimed, measured) != 0;
}

void claim_ratio_format(const struct claim *c, double measured_pct,
			double size_mib, const char *machine,
			struct strbuf *out)
{
	double rc = claim_ratio(c), rm, size;
	const char *cm;
	int ds, dm;

	claim_scale(c, &size, &cm);
	strbuf_addstr(out, "claimed ");
	if (isnan(rc))
		strbuf_addstr(out, "no ratio");
	else
		strbuf_addf(out, "%.2fx", rc);
	where(out, size, cm, "on");
	rm = measured_ratio(c, measured_pct);
	strbuf_addstr(out, "; measured ");
	if (isnan(rm))
		strbuf_addstr(out, "no ratio");
	else
		strbuf_addf(out, "%.2fx", rm);
	where(out, size_mib, machine, "under");
	if (!isnan(rc) && !isnan(rm)) {
		enum claim_agreement a = claim_ratio_agree(c, measured_pct);
		double tol = claim_ratio_tolerance(rc);

		if (a == CLAIM_AGREES)
			strbuf_addf(out, ": holds (within %.2fx)", tol);
		else
			strbuf_addf(out, ": does not hold (%s; %.2fx..%.2fx "
				    "would)", claim_agreement_name(a),
				    rc / tol, rc * tol);
	}
	ds = sizes_differ(size, size_mib);
	dm = machines_differ(cm, machine);
	if (ds || dm)
		strbuf_addf(out, "; measured at another %s than claimed",
			    ds && dm ? "size and machine" :
			    ds ? "size" : "machine");
}

/* --- claims ------------------------------------------------------- */

static const char *const claim_kind_names[] = {
	[CLAIM_BEFORE_AFTER] = "before-after",
	[CLAIM_PERCENT] = "percent",
	[CLAIM_FACTOR] = "factor",
};

int claim_named_patch(const char *text, int total)
{
	const char *p = text;
	int found = 0;

	while (p && (p = strcasestr(p, "patch"))) {
		const char *q = p + 5;
		char *end;
		long v;

		/* a word of its own: not "dispatch", not "patched", not "patches" */
		if ((p > text && (isalnum((unsigned char)p[-1]) ||
				  p[-1] == '_')) ||
		    isalpha((unsigned char)*q)) {
			p = q;
			continue;
		}
		p = q;
		while (*q == ' ' || *q == '#')
			q++;
		if (!isdigit((unsigned char)*q))
			continue;
		v = strtol(q, &end, 10);
		/* "patch 2/5": the total, when given, must be the series' */
		if (*end == '/' && isdigit((unsigned char)end[1]) &&
		    strtol(end + 1, NULL, 10) != total)
			continue;
		if (isalpha((unsigned char)*end) ||
		    (*end == '.' && isdigit((unsigned char)end[1])))
			continue;	/* "patch 2a", "patch 1.5" */
		if (v < 1 || v > total)
			continue;
		if (found && found != v)
			return 0;	/* two patches named: neither */
		found = (int)v;
	}
	return found;
}

static int store_text(struct db *db, long long series_id, int patch,
		      int total, const char *text)
{
	struct claim_list cl = CLAIM_LIST_INIT;
	size_t i;
	int n = 0;

	if (!text || claims_extract(text, &cl) < 0)
		return 0;
	for (i = 0; i < cl.nr; i++) {
		const struct claim *c = &cl.v[i];
		/* "Patch 2 reduces ...": held against patch 2's own step */
		int step = claim_named_patch(c->text, total);

		if (!step)
			step = claim_named_patch(c->subject, total);
		if (step == patch)
			step = 0;
		if (db_run(db, "INSERT INTO claims (series_id, patch, line, "
			   "kind, subject, text, before, after, unit, "
			   "change_pct, higher_is_better, step) VALUES (?, ?, "
			   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "iiitttddtdiI",
			   series_id, (long long)patch, (long long)c->line,
			   claim_kind_names[c->kind], c->subject, c->text,
			   c->before, c->after, c->unit, c->change_pct,
			   (long long)c->higher_is_better, (long long)step) == 0)
			n++;
	}
	claim_list_release(&cl);
	return n;
}

int claims_store(struct db *db, const struct loaded_series *ls)
{
	size_t i;
	int n = 0;

	if (db_begin(db) < 0)
		return -1;
	if (db_run(db, "DELETE FROM claims WHERE series_id = ?", "i",
		   ls->id) < 0) {
		db_rollback(db);
		return -1;
	}
	if (ls->s.cover)
		n += store_text(db, ls->id, 0, (int)ls->s.nr,
				ls->s.cover->body.buf);
	for (i = 0; i < ls->s.nr; i++)
		n += store_text(db, ls->id, ls->s.patches[i].index,
				(int)ls->s.nr, ls->s.patches[i].message);
	if (db_commit(db) < 0)
		return -1;
	return n;
}

/*
 * The comparison a claim is held against: the own step of @patch (the
 * patch whose changelog makes it, or the one its words name), or of the
 * next measured step when that patch's was folded; the series as a
 * whole for the cover letter's unnamed claims and without per-patch
 * steps. @what says which, in words ("own", "patch 2's own step",
 * "patches 1-4 together" when the steps before it were not measured).
 */
static const struct run_comparison *
claim_target(const struct attribution *a, const struct run_comparison *final,
	     int patch, int named, char *what, size_t len)
{
	size_t i, prev = 0;

	if (patch > 0 && attribution_per_patch(a))
		for (i = 1; i < a->nr; i++) {
			if (a->s[i].upto < patch || a->s[i].folded) {
				if (!a->s[i].folded)
					prev = i;
				continue;
			}
			if (a->s[i].upto == patch &&
			    a->s[prev].upto == patch - 1)
				xsnprintf(what, len, named ? "patch %d's own "
					  "step" : "own", patch);
			else if (a->s[i].upto == patch)
				xsnprintf(what, len, "patches %d-%d together: "
					  "the steps between were not measured",
					  a->s[prev].upto + 1, patch);
			else
				xsnprintf(what, len, "patch %d was not "
					  "measured: with patch %d's step",
					  patch, a->s[i].upto);
			return &a->s[i].own;
		}
	xsnprintf(what, len, "series");
	return final;
}

/*
 * The memory size a metric was measured at, MiB: a virtio-mem variant's
 * "to=512M"/"from=512M", else the NVDIMM of the pmem workloads; 0 when
 * unknown.
 */
static double measured_size_mib(const struct metric_comparison *mc,
				const struct run_row *r)
{
	const char *v = strstr(mc->variant, "to=");
	char *end;
	double n;

	if (!v)
		v = strstr(mc->variant, "from=");
	if (v) {
		v = strchr(v, '=') + 1;
		n = strtod(v, &end);
		if (end == v)
			return 0;
		switch (*end) {
		case 'T': return n * 1024 * 1024;
		case 'G': return n * 1024;
		case 'M': return n;
		default: return 0;
		}
	}
	if (!strcmp(mc->workload, "fsdax") || !strcmp(mc->workload, "devdax"))
		return (double)r->nvdimm_mib;
	return 0;
}

/* where mmci measured, in claim_scale()'s words */
static const char *measured_machine(const struct run_row *r)
{
	if (!strcmp(r->accel, "kvm"))
		return "KVM";
	return !strcmp(r->clock, "icount") ? "TCG/icount" : "TCG";
}

/* a row of CLAIMS_SELECT as a claim whose strings point into @st */
static int claim_row(sqlite3_stmt *st, struct claim *c)
{
	c->kind = !strcmp(db_col_text(st, 1), "percent") ? CLAIM_PERCENT :
		  !strcmp(db_col_text(st, 1), "factor") ? CLAIM_FACTOR :
		  CLAIM_BEFORE_AFTER;
	c->subject = (char *)db_col_text(st, 2);
	c->text = (char *)db_col_text(st, 3);
	c->before = sqlite3_column_double(st, 4);
	c->after = sqlite3_column_double(st, 5);
	xsnprintf(c->unit, sizeof(c->unit), "%s", db_col_text(st, 6));
	c->change_pct = sqlite3_column_double(st, 7);
	c->higher_is_better = sqlite3_column_int(st, 8);
	c->line = sqlite3_column_int(st, 9);
	if (sqlite3_column_type(st, 4) == SQLITE_TEXT)
		c->before = c->after = NAN;
	return sqlite3_column_int(st, 0);
}

#define CLAIMS_SELECT \
	"SELECT patch, kind, subject, text, coalesce(before, 'nan'), " \
	"coalesce(after, 'nan'), unit, change_pct, higher_is_better, " \
	"line, coalesce(step, 0) FROM claims WHERE series_id = ? ORDER BY " \
	"patch, line"

/* the metric of @rc that @c fits best, NULL below CLAIM_MIN_SCORE */
static const struct metric_comparison *
claim_best_metric(const struct claim *c, const struct run_comparison *rc)
{
	const struct metric_comparison *best = NULL;
	int score = 0;
	size_t i;

	for (i = 0; rc && i < rc->nr; i++) {
		int sc = claim_match_score(c, rc->m[i].workload,
					   rc->m[i].variant, rc->m[i].metric);

		if (sc > score) {
			score = sc;
			best = &rc->m[i];
		}
	}
	return score < CLAIM_MIN_SCORE ? NULL : best;
}

int claims_check(struct db *db, long long series_id,
		 const struct attribution *a,
		 const struct run_comparison *final, struct claim_checks *out)
{
	sqlite3_stmt *st = db_query(db, CLAIMS_SELECT, "i", series_id);
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct claim c = { 0 };
		const struct metric_comparison *best;
		struct claim_check *k;
		char what[64];
		int patch = claim_row(st, &c), named = sqlite3_column_int(st, 10);

		best = claim_best_metric(&c, claim_target(a, final,
							  named ? named : patch,
							  named, what,
							  sizeof(what)));
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		k = &out->v[out->nr++];
		memset(k, 0, sizeof(*k));
		k->patch = patch;
		k->claimed_pct = c.change_pct;
		k->claims_better = c.higher_is_better ? c.change_pct > 0 :
							c.change_pct < 0;
		k->measured = VERDICT_INSUFFICIENT;
		k->measured_pct = NAN;
		if (!best)
			continue;
		k->workload = xstrdup(best->workload);
		k->variant = xstrdup(best->variant);
		k->metric = xstrdup(best->metric);
		k->measured = best->c.verdict;
		k->measured_pct = best->c.change_pct;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

void claim_checks_release(struct claim_checks *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].workload);
		free(l->v[i].variant);
		free(l->v[i].metric);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void claims_format(struct db *db, long long series_id,
		   const struct attribution *a,
		   const struct run_comparison *final, struct strbuf *out)
{
	sqlite3_stmt *st = db_query(db, CLAIMS_SELECT, "i", series_id);
	struct run_row run = { 0 };
	int any = 0, have_run;

	if (!st)
		return;
	/* the set-up of the measurement: its size and machine */
	have_run = final && final->new_id > 0 &&
		   run_load(db, final->new_id, &run) == 0;
	/* a failed read is said after the claims read before it */
	while (db_step(db, st) == DB_ROW) {
		struct claim c = { 0 };
		const struct run_comparison *rc;
		const struct metric_comparison *best;
		char claimed[48], measured[64], what[64];
		int patch = claim_row(st, &c), named = sqlite3_column_int(st, 10);

		if (!any++)
			strbuf_addf(out, "\nclaimed vs measured (claims of "
				    "the mails; %d = cover letter):\n", 0);
		rc = claim_target(a, final, named ? named : patch, named, what,
				  sizeof(what));
		best = claim_best_metric(&c, rc);
		xsnprintf(claimed, sizeof(claimed), "%+.1f%%", c.change_pct);
		strbuf_addf(out, "  patch %d, line %u: \"%.70s\"\n", patch,
			    c.line, c.text);
		if (!best) {
			strbuf_addf(out, "    claimed %s; no measured metric "
				    "fits it\n", claimed);
			continue;
		}
		if (isnan(best->c.change_pct))
			xsnprintf(measured, sizeof(measured), "no number (%s)",
				  verdict_name(best->c.verdict));
		else if (isnan(best->c.ci_lo_pct))
			xsnprintf(measured, sizeof(measured), "%+.1f%%",
				  best->c.change_pct);
		else
			xsnprintf(measured, sizeof(measured),
				  "%+.1f%% [%+.1f, %+.1f]", best->c.change_pct,
				  best->c.ci_lo_pct, best->c.ci_hi_pct);
		strbuf_addf(out, "    claimed %s, measured %s on %s %s %s "
			    "(%s): %s\n", claimed, measured, best->workload,
			    best->variant, best->metric, what,
			    claim_agreement_name(claim_agree(
				    &c, best->c.change_pct, best->c.ci_lo_pct,
				    best->c.ci_hi_pct)));
		if (have_run) {
			strbuf_addstr(out, "    ");
			claim_ratio_format(&c, best->c.change_pct,
					   measured_size_mib(best, &run),
					   measured_machine(&run), out);
			strbuf_addch(out, '\n');
		}
	}
	sqlite3_finalize(st);
	if (have_run)
		run_row_release(&run);
	if (!any)
		strbuf_addstr(out, "\nclaimed vs measured: the mails make no "
			      "performance claim mmci recognises\n");
}
