// SPDX-License-Identifier: GPL-2.0
/*
 * mbox.c - mbox splitting, header and MIME parsing, charset decoding.
 *
 * Workload: lore threads of a few to a few hundred mails (a few MB at
 * most), parsed once when a series is ingested, so clarity wins over speed.
 * Each mail is cut out of the mbox (mboxrd ">From " lines are un-escaped),
 * its header block is split into fields, and its body is walked as a MIME
 * tree that gathers the text/plain parts and the patch attachments into one
 * UTF-8 string.
 *
 * Nothing here trusts the input: every scan is bounded by the buffer
 * length (buffers may hold NUL bytes), recursion by MIME_MAX_DEPTH, and
 * whatever looks wrong is written to mail->problem instead of failing.
 */
#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdarg.h>
#include <strings.h>

#include "mbox.h"
#include "util.h"

/* mail->problem stops growing past this many bytes */
#define PROBLEM_MAX_LEN 2048

static const char replacement_char[] = "\xef\xbf\xbd";	/* U+FFFD */

static void PRINTF(2, 3) mail_problem(struct mail *m, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (m->problem) {
		if (strlen(m->problem) >= PROBLEM_MAX_LEN)
			return;
		strbuf_addstr(&sb, m->problem);
		strbuf_addstr(&sb, "; ");
		free(m->problem);
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	m->problem = strbuf_detach(&sb, NULL);
}

/* a short, printable-ASCII copy of @s for messages; caller frees */
static char *quote_short(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s && sb.len < 60; s++) {
		unsigned char c = *s;

		strbuf_addch(&sb, c >= 0x20 && c < 0x7f ? c : '?');
	}
	if (*s)
		strbuf_addstr(&sb, "...");
	return strbuf_detach(&sb, NULL);
}

static int is_blank_char(char c)
{
	return c == ' ' || c == '\t';
}

/* the line at @s, at most @len bytes: its length without the '\n' */
static size_t line_len(const char *s, size_t len)
{
	const char *nl = memchr(s, '\n', len);

	return nl ? (size_t)(nl - s) : len;
}

/* ---------------------------------------------------------------- UTF-8 */

enum utf8_mode {
	UTF8_TEXT,	/* NUL becomes U+FFFD, other controls are kept */
	UTF8_HEADER,	/* blanks become ' ', other controls and the
			 * bidirectional controls U+FFFD */
	UTF8_LINES,	/* as UTF8_HEADER, but '\n' and '\t' are kept and
			 * '\r' dropped (mail_clean_text()) */
};

/*
 * Is code point @cp a bidirectional formatting character (Unicode UAX
 * #9): an embedding or override U+202A-202E, an isolate U+2066-2069, or
 * a mark U+200E, U+200F, U+061C? In a subject or a name they reorder
 * what a reader sees of the text around them ("Trojan Source",
 * CVE-2021-42574), on the pages, in mails and in a terminal alike.
 *
 * They are replaced here, in the header mode of utf8_append(), because
 * every decoded header passes through it (Subject, the names of From,
 * To and Cc, the in-body From: and Subject: of a patch), so a series
 * title, a patch subject or a sender is clean wherever it is stored and
 * shown later: web pages, report mails, the CLI, exports, the commits
 * apply.c makes. Rendering code need not remember it, and the mail as
 * sent stays in the thread's mbox (threads.cache_path). Bodies are text
 * (UTF8_TEXT) and are left alone: a diff is applied as written.
 */
static int is_bidi_control(unsigned int cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * Is code point @cp a C1 control, U+0080-009F? A terminal takes U+009B
 * as ESC [ (CSI) and U+009D as the start of an OSC string, just as it
 * takes the ESC byte, which the ASCII test of utf8_append() already
 * catches.
 */
static int is_c1_control(unsigned int cp)
{
	return cp >= 0x80 && cp <= 0x9f;
}

/*
 * Append @len bytes to @out as valid UTF-8: every byte that does not start
 * a valid sequence becomes U+FFFD. Return the number of replacements.
 */
static size_t utf8_append(struct strbuf *out, const char *in, size_t len,
			  enum utf8_mode mode)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, bad = 0, n;
	unsigned int cp;

	strbuf_grow(out, len);
	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x80) {
			n = utf8_next(s + i, len - i, &cp);
			if (n && mode != UTF8_TEXT &&
			    (is_bidi_control(cp) || is_c1_control(cp))) {
				strbuf_addstr(out, replacement_char);
				bad++;
				i += n;
				continue;
			}
			if (n) {
				strbuf_add(out, s + i, n);
				i += n;
				continue;
			}
		} else if (c && (mode == UTF8_TEXT ||
				 (c >= 0x20 && c != 0x7f))) {
			strbuf_addch(out, c);
			i++;
			continue;
		} else if (mode == UTF8_LINES && (c == '\t' || c == '\n')) {
			strbuf_addch(out, c);
			i++;
			continue;
		} else if (mode == UTF8_LINES && c == '\r') {
			i++;
			continue;
		} else if (mode == UTF8_HEADER &&
			   (c == '\t' || c == '\n' || c == '\r')) {
			strbuf_addch(out, ' ');
			i++;
			continue;
		}
		strbuf_addstr(out, replacement_char);
		bad++;
		i++;
	}
	return bad;
}

size_t mail_clean_text(struct strbuf *out, const char *in, size_t len,
		       int lines)
{
	return utf8_append(out, in, len, lines ? UTF8_LINES : UTF8_HEADER);
}

/* charsets read as UTF-8: ASCII is a subset, the others say "unknown" */
static int charset_is_utf8(const char *cs)
{
	static const char *const names[] = {
		"", "utf-8", "utf8", "us-ascii", "ascii", "ansi_x3.4-1968",
		"unknown-8bit", "x-unknown", "unknown", "default",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(cs, names[i]))
			return 1;
	return 0;
}

/*
 * iconv_open() loads the gconv module of a charset and iconv_close() unloads
 * it when no descriptor uses it any more: about 2 ms for the pair, so a
 * header whose encoded-words alternate between two charsets cost 40 s per
 * 256 KiB. The descriptors are kept open instead, one per charset name for
 * the life of the process, and reset before each use. glibc knows about
 * 1200 names (the cache holds only names that opened), mails use a few.
 * Not thread-safe: mmci parses mail in one thread.
 */
#define ICONV_CACHE_MAX 2048

struct iconv_entry {
	char *name;	/* upper case */
	iconv_t cd;
};

static struct iconv_entry *iconv_cache;	/* sorted by name */
static size_t iconv_cache_nr, iconv_cache_alloc;

/*
 * A descriptor from charset @name (upper case) to UTF-8 in its initial
 * state, or (iconv_t)-1. *cached says whether the cache owns it; if not,
 * the caller closes it.
 */
static iconv_t charset_open(const char *name, int *cached)
{
	size_t lo = 0, hi = iconv_cache_nr;
	iconv_t cd;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(iconv_cache[mid].name, name);

		if (!c) {
			*cached = 1;
			cd = iconv_cache[mid].cd;
			iconv(cd, NULL, NULL, NULL, NULL);
			return cd;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*cached = 0;
	cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1 || iconv_cache_nr >= ICONV_CACHE_MAX)
		return cd;
	ALLOC_GROW(iconv_cache, iconv_cache_nr + 1, iconv_cache_alloc);
	memmove(iconv_cache + lo + 1, iconv_cache + lo,
		(iconv_cache_nr - lo) * sizeof(*iconv_cache));
	iconv_cache[lo].name = xstrdup(name);
	iconv_cache[lo].cd = cd;
	iconv_cache_nr++;
	*cached = 1;
	return cd;
}

int mail_charset_to_utf8(struct strbuf *out, const char *charset,
			 const char *in, size_t len)
{
	struct strbuf name = STRBUF_INIT, tmp = STRBUF_INIT;
	char *ip = (char *)in;	/* iconv() does not write through it */
	size_t ileft = len, i;
	iconv_t cd;
	int ret = 0, cached;

	/* "utf-8", "\"UTF-8\"", "utf-8*en" (RFC 2231 language) */
	for (; charset && *charset && *charset != '*'; charset++)
		if (*charset != '"' && !isspace((unsigned char)*charset))
			strbuf_addch(&name, *charset);
	if (charset_is_utf8(name.buf))
		goto as_utf8;
	/* no "//IGNORE" suffixes or other surprises for iconv_open() */
	ret = -1;
	if (name.len > 64 ||
	    strspn(name.buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789.:_+-") != name.len)
		goto as_utf8;
	for (i = 0; i < name.len; i++)
		name.buf[i] = toupper((unsigned char)name.buf[i]);
	cd = charset_open(name.buf, &cached);
	if (cd == (iconv_t)-1)
		goto as_utf8;
	strbuf_grow(&tmp, len + len / 2 + 16);
	while (ileft) {
		char *op = tmp.buf + tmp.len;
		size_t oleft = tmp.alloc - tmp.len - 1, r;

		r = iconv(cd, &ip, &ileft, &op, &oleft);
		strbuf_setlen(&tmp, op - tmp.buf);
		if (r != (size_t)-1)
			break;
		if (errno == E2BIG) {
			strbuf_grow(&tmp, tmp.alloc);
			continue;
		}
		/* EILSEQ, or EINVAL: a sequence cut short at the end */
		strbuf_addstr(&tmp, replacement_char);
		ip++;
		ileft--;
	}
	if (!cached)
		iconv_close(cd);
	utf8_append(out, tmp.buf, tmp.len, UTF8_TEXT);
	strbuf_release(&tmp);
	strbuf_release(&name);
	return 0;

as_utf8:
	utf8_append(out, in, len, UTF8_TEXT);
	strbuf_release(&name);
	return ret;
}

/* ------------------------------------------------ transfer encodings */

static int base64_val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decode base64, skipping blanks and line ends. '=' ends a group, so
 * several concatenated encodings decode too. Return the number of bytes
 * that are not base64.
 */
static size_t base64_decode(struct strbuf *out, const char *in, size_t len)
{
	unsigned int acc = 0;
	size_t i, bad = 0;
	int bits = 0;

	for (i = 0; i < len; i++) {
		int v = base64_val((unsigned char)in[i]);

		if (v < 0) {
			if (in[i] == '=')
				bits = 0;
			else if (!isspace((unsigned char)in[i]))
				bad++;
			continue;
		}
		acc = (acc << 6) | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (acc >> bits) & 0xff);
		}
	}
	return bad;
}

/*
 * Decode quoted-printable: "=XX" is a byte, "=" before the line end is a
 * soft break. In @header mode (RFC 2047 "Q"), '_' is a space. A '=' that
 * starts neither is kept as it is.
 */
static void qp_decode(struct strbuf *out, const char *in, size_t len,
		      int header)
{
	size_t i = 0;

	while (i < len) {
		char c = in[i];
		int hi = i + 1 < len ? hex_digit((unsigned char)in[i + 1]) : -1;
		int lo = i + 2 < len ? hex_digit((unsigned char)in[i + 2]) : -1;

		if (c == '_' && header) {
			strbuf_addch(out, ' ');
			i++;
		} else if (c != '=') {
			strbuf_addch(out, c);
			i++;
		} else if (hi >= 0 && lo >= 0) {
			strbuf_addch(out, hi * 16 + lo);
			i += 3;
		} else {
			size_t j = i + 1;

			while (!header && j < len && is_blank_char(in[j]))
				j++;
			if (!header && j < len && in[j] == '\r')
				j++;
			if (!header && (j == len || in[j] == '\n')) {
				i = j < len ? j + 1 : j;	/* soft break */
			} else {
				strbuf_addch(out, '=');
				i++;
			}
		}
	}
}

/* "\r\n" -> "\n" in place; a lone '\r' stays */
static void crlf_to_lf(struct strbuf *sb)
{
	size_t i, j = 0;

	for (i = 0; i < sb->len; i++) {
		if (sb->buf[i] == '\r' && i + 1 < sb->len &&
		    sb->buf[i + 1] == '\n')
			continue;
		sb->buf[j++] = sb->buf[i];
	}
	strbuf_setlen(sb, j);
}

/* --------------------------------------------------- RFC 2047 headers */

struct encoded_word {
	const char *charset, *text, *end;
	size_t charset_len, text_len;
	char encoding;		/* 'B' or 'Q' */
};

/* "=?charset?B?text?=" at @p: fill @ew and return 1, or return 0 */
static int parse_encoded_word(const char *p, struct encoded_word *ew)
{
	const char *s;

	if (p[0] != '=' || p[1] != '?')
		return 0;
	ew->charset = s = p + 2;
	while (*s && *s != '?' && !isspace((unsigned char)*s))
		s++;
	if (*s != '?' || s == ew->charset || s - ew->charset > 64)
		return 0;
	ew->charset_len = s - ew->charset;
	s++;
	if (!*s || !strchr("BbQq", *s) || s[1] != '?')
		return 0;
	ew->encoding = toupper((unsigned char)*s);
	ew->text = s += 2;
	while (*s && *s != '?' && !isspace((unsigned char)*s))
		s++;
	if (s[0] != '?' || s[1] != '=')
		return 0;
	ew->text_len = s - ew->text;
	ew->end = s + 2;
	return 1;
}

static void flush_word_bytes(struct strbuf *out, struct strbuf *charset,
			     struct strbuf *bytes)
{
	struct strbuf tmp = STRBUF_INIT;

	if (!bytes->len)
		return;
	mail_charset_to_utf8(&tmp, charset->buf, bytes->buf, bytes->len);
	utf8_append(out, tmp.buf, tmp.len, UTF8_HEADER);
	strbuf_release(&tmp);
	strbuf_reset(bytes);
}

char *mail_decode_header(const char *raw)
{
	struct strbuf out = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf bytes = STRBUF_INIT, charset = STRBUF_INIT;
	struct strbuf blanks = STRBUF_INIT;
	struct encoded_word ew;
	const char *p = raw;
	int in_words = 0;

	/*
	 * Either plain text is pending in @text, or the decoded bytes of a
	 * run of encoded-words in one charset are pending in @bytes, with
	 * the blanks after the last word in @blanks: they are dropped if
	 * another word follows (RFC 2047 section 6.2).
	 */
	while (*p) {
		if (parse_encoded_word(p, &ew)) {
			if (!in_words)
				utf8_append(&out, text.buf, text.len,
					    UTF8_HEADER);
			strbuf_reset(&text);
			strbuf_reset(&blanks);
			if (in_words && (charset.len != ew.charset_len ||
					 strncasecmp(charset.buf, ew.charset,
						     ew.charset_len)))
				flush_word_bytes(&out, &charset, &bytes);
			strbuf_reset(&charset);
			strbuf_add(&charset, ew.charset, ew.charset_len);
			if (ew.encoding == 'B')
				base64_decode(&bytes, ew.text, ew.text_len);
			else
				qp_decode(&bytes, ew.text, ew.text_len, 1);
			in_words = 1;
			p = ew.end;
			continue;
		}
		if (in_words && isspace((unsigned char)*p)) {
			strbuf_addch(&blanks, *p++);
			continue;
		}
		if (in_words) {
			flush_word_bytes(&out, &charset, &bytes);
			strbuf_addbuf(&text, &blanks);
			strbuf_reset(&blanks);
			in_words = 0;
		}
		strbuf_addch(&text, *p++);
	}
	flush_word_bytes(&out, &charset, &bytes);
	strbuf_addbuf(&text, &blanks);
	utf8_append(&out, text.buf, text.len, UTF8_HEADER);
	strbuf_release(&text);
	strbuf_release(&bytes);
	strbuf_release(&charset);
	strbuf_release(&blanks);
	return strbuf_detach(&out, NULL);
}

/* blanks collapsed to one space, trimmed; caller frees */
static char *collapse_blanks(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	int blank = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = 1;
			continue;
		}
		if (blank && sb.len)
			strbuf_addch(&sb, ' ');
		blank = 0;
		strbuf_addch(&sb, *s);
	}
	return strbuf_detach(&sb, NULL);
}

static char *decode_collapse(const char *raw)
{
	char *decoded = mail_decode_header(raw);
	char *res = collapse_blanks(decoded);

	free(decoded);
	return res;
}

/* ----------------------------------------------------------- addresses */

/* remove quotes and backslash escapes, decode, collapse; caller frees */
static char *clean_name(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	char *res;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len)
			strbuf_addch(&sb, s[++i]);
		else if (s[i] != '"')
			strbuf_addch(&sb, s[i]);
	}
	res = decode_collapse(sb.buf);
	strbuf_release(&sb);
	len = strlen(res);
	/* "a@b (Name)" and "<a@b> (Name)": the comment is the name */
	if (len >= 2 && res[0] == '(' && res[len - 1] == ')' &&
	    !memchr(res + 1, '(', len - 2)) {
		memmove(res, res + 1, len - 2);
		res[len - 2] = '\0';
	}
	return res;
}

static char *clean_email(const char *s, size_t len)
{
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]) && s[i] != '<' && s[i] != '>')
			strbuf_addch(&raw, s[i]);
	utf8_append(&out, raw.buf, raw.len, UTF8_HEADER);
	strbuf_release(&raw);
	return strbuf_detach(&out, NULL);
}

void mail_parse_address(const char *raw, char **name, char **email)
{
	const char *p, *lt = NULL, *paren = NULL, *end;
	int quoted = 0, depth = 0;

	/* the first '<' or '(' outside quotes; a ',' there ends the address */
	for (p = raw; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (quoted) {
			quoted = *p != '"';
		} else if (depth) {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		} else if (*p == '"') {
			quoted = 1;
		} else if (*p == '(') {
			if (!paren)
				paren = p;
			depth = 1;
		} else if (*p == '<') {
			lt = p;
			break;
		} else if (*p == ',') {
			break;
		}
	}
	end = p;
	if (lt) {
		const char *gt = strchr(lt, '>');
		struct strbuf nm = STRBUF_INIT;

		if (!gt)
			gt = lt + strlen(lt);
		*email = clean_email(lt + 1, gt - lt - 1);
		strbuf_add(&nm, raw, lt - raw);
		if (*gt) {
			const char *c = gt + 1;

			while (isspace((unsigned char)*c))
				c++;
			if (*c == '(') {
				const char *e = strchr(c, ')');

				strbuf_addch(&nm, ' ');
				strbuf_add(&nm, c,
					   e ? (size_t)(e - c + 1) : strlen(c));
			}
		}
		*name = clean_name(nm.buf, nm.len);
		strbuf_release(&nm);
	} else if (paren) {
		const char *e = strchr(paren, ')');

		*email = clean_email(raw, paren - raw);
		*name = clean_name(paren + 1, e && e < end ? e - paren - 1 :
						    end - paren - 1);
	} else if (memchr(raw, '@', end - raw)) {
		*email = clean_email(raw, end - raw);
		*name = xstrdup("");
	} else {
		*email = xstrdup("");
		*name = clean_name(raw, end - raw);
	}
}

/* ---------------------------------------------------------------- dates */

static const char *skip_blanks(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int parse_num(const char **s, int maxdigits, int *out)
{
	const char *p = *s;
	int v = 0, n = 0;

	while (n < maxdigits && isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		n++;
	}
	if (!n)
		return -1;
	*s = p;
	*out = v;
	return n;
}

/* days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar */
static long long days_from_civil(int y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int parse_zone(const char *s, int *offset)
{
	static const struct {
		const char *name;
		int hours;
	} zones[] = {
		{ "UT", 0 }, { "UTC", 0 }, { "GMT", 0 }, { "Z", 0 },
		{ "EST", -5 }, { "EDT", -4 }, { "CST", -6 }, { "CDT", -5 },
		{ "MST", -7 }, { "MDT", -6 }, { "PST", -8 }, { "PDT", -7 },
	};
	size_t i, n = 0;

	*offset = 0;
	if (*s == '+' || *s == '-') {
		int sign = *s == '-' ? -1 : 1, hhmm;
		const char *p = s + 1;

		if (parse_num(&p, 4, &hhmm) != 4 || hhmm % 100 > 59)
			return -1;
		*offset = sign * ((hhmm / 100) * 3600 + (hhmm % 100) * 60);
		return 0;
	}
	while (isalpha((unsigned char)s[n]))
		n++;
	if (!n)
		return 0;	/* no zone: read as UTC */
	for (i = 0; i < ARRAY_SIZE(zones); i++) {
		if (strlen(zones[i].name) != n ||
		    strncasecmp(s, zones[i].name, n))
			continue;
		*offset = zones[i].hours * 3600;
		return 0;
	}
	return 0;		/* unknown zone names are UTC (RFC 5322 4.3) */
}

int mail_parse_date(const char *s, time_t *out)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	int day, mon, year, hour, min, sec = 0, zone, n;
	const char *p = skip_blanks(s);
	long long t;

	*out = 0;
	while (isalpha((unsigned char)*p))	/* weekday */
		p++;
	p = skip_blanks(p);
	if (*p == ',')
		p = skip_blanks(p + 1);
	if (parse_num(&p, 2, &day) < 0)
		return -1;
	p = skip_blanks(p);
	if (*p == '-')
		p++;
	for (mon = 0; mon < 12; mon++)
		if (!strncasecmp(p, months + 3 * mon, 3))
			break;
	if (mon == 12)
		return -1;
	p += 3;
	while (isalpha((unsigned char)*p))
		p++;
	p = skip_blanks(p);
	if (*p == '-')
		p++;
	n = parse_num(&p, 4, &year);
	if (n < 0)
		return -1;
	if (n <= 2)
		year += year < 50 ? 2000 : 1900;
	else if (n == 3)
		year += 1900;
	p = skip_blanks(p);
	if (parse_num(&p, 2, &hour) < 0 || *p++ != ':' ||
	    parse_num(&p, 2, &min) < 0)
		return -1;
	if (*p == ':') {
		p++;
		if (parse_num(&p, 2, &sec) < 0)
			return -1;
	}
	if (day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
		return -1;
	/* "11:0\x80\xff" is no time: a zone, a comment or nothing follows */
	if (*p && !isspace((unsigned char)*p) && !isalpha((unsigned char)*p) &&
	    !strchr("+-(", *p))
		return -1;
	if (parse_zone(skip_blanks(p), &zone) < 0)
		return -1;
	t = days_from_civil(year, mon + 1, day) * 86400LL + hour * 3600 +
	    min * 60 + sec - zone;
	*out = (time_t)t;
	return 0;
}

/* -------------------------------------------------------------- headers */

struct header_list {
	struct mail_header *v;
	size_t nr, alloc;
};

static void header_list_clear(struct header_list *hl)
{
	size_t i;

	for (i = 0; i < hl->nr; i++) {
		free(hl->v[i].name);
		free(hl->v[i].value);
	}
	free(hl->v);
	memset(hl, 0, sizeof(*hl));
}

static const char *header_find(const struct mail_header *h, size_t nr,
			       const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcasecmp(h[i].name, name))
			return h[i].value;
	return NULL;
}

const char *mail_header(const struct mail *mail, const char *name)
{
	return header_find(mail->headers, mail->nr_headers, name);
}

/*
 * "Name:" at the start of @line: return the length of the name (printable
 * ASCII but ':', blanks allowed before the colon) and set *colon, or 0.
 */
static size_t header_name_len(const char *line, size_t len, size_t *colon)
{
	size_t i = 0, n;

	while (i < len && (unsigned char)line[i] > ' ' &&
	       (unsigned char)line[i] < 0x7f && line[i] != ':')
		i++;
	n = i;
	while (i < len && is_blank_char(line[i]))
		i++;
	if (!n || i >= len || line[i] != ':')
		return 0;
	*colon = i;
	return n;
}

struct header_parse {
	struct header_list *hl;
	char *name;		/* field being unfolded, or NULL */
	struct strbuf value;
	size_t dropped, garbage;
	int too_long;
};

/* the value so far, with NUL bytes as U+FFFD; @len is bounded */
static void header_value_add(struct header_parse *hp, const char *s,
			     size_t len)
{
	size_t i;

	if (hp->value.len + len > MAIL_MAX_HEADER_LEN) {
		hp->too_long = 1;
		len = hp->value.len < MAIL_MAX_HEADER_LEN ?
		      MAIL_MAX_HEADER_LEN - hp->value.len : 0;
	}
	for (i = 0; i < len; i++) {
		if (s[i])
			strbuf_addch(&hp->value, s[i]);
		else
			strbuf_addstr(&hp->value, replacement_char);
	}
}

static void header_flush(struct header_parse *hp)
{
	struct header_list *hl = hp->hl;

	if (!hp->name)
		return;
	if (hl->nr >= MAIL_MAX_HEADERS) {
		hp->dropped++;
		free(hp->name);
		strbuf_reset(&hp->value);
	} else {
		ALLOC_GROW(hl->v, hl->nr + 1, hl->alloc);
		hl->v[hl->nr].name = hp->name;
		hl->v[hl->nr].value = strbuf_detach(&hp->value, NULL);
		hl->nr++;
	}
	hp->name = NULL;
}

static int is_blank_line(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * Read the header block at the start of @buf into @hl and return the
 * offset of the body: just past the blank line, or at the first line if
 * that is not a header field (a MIME part without headers). Lines that are
 * neither fields nor continuations are skipped and counted in @m.
 */
static size_t parse_headers(const char *buf, size_t len,
			    struct header_list *hl, struct mail *m)
{
	struct header_parse hp = { .hl = hl, .value = STRBUF_INIT };
	size_t pos = 0;

	while (pos < len) {
		const char *line = buf + pos;
		size_t l = line_len(line, len - pos), namelen, colon, v;
		size_t next = pos + l + (pos + l < len);

		if (is_blank_line(line, l)) {
			pos = next;
			break;
		}
		while (l && line[l - 1] == '\r')
			l--;
		if (is_blank_char(line[0])) {
			if (hp.name)
				header_value_add(&hp, line, l);
			else
				hp.garbage++;
			pos = next;
			continue;
		}
		namelen = header_name_len(line, l, &colon);
		if (!namelen) {
			if (!hp.name && !hl->nr && !hp.garbage)
				break;	/* no header block at all */
			hp.garbage++;
			pos = next;
			continue;
		}
		header_flush(&hp);
		hp.name = xstrndup(line, namelen);
		for (v = colon + 1; v < l && is_blank_char(line[v]); v++)
			;
		header_value_add(&hp, line + v, l - v);
		pos = next;
	}
	header_flush(&hp);
	strbuf_release(&hp.value);
	if (hp.garbage)
		mail_problem(m, "%zu malformed header line(s) ignored",
			     hp.garbage);
	if (hp.dropped)
		mail_problem(m, "more than %d header fields, %zu ignored",
			     MAIL_MAX_HEADERS, hp.dropped);
	if (hp.too_long)
		mail_problem(m, "header field longer than %u bytes cut",
			     MAIL_MAX_HEADER_LEN);
	return pos;
}

/* ---------------------------------------------------------- message ids */

/* the msg-id in "<id>" or a bare "id"; NULL if none; *bad if not ASCII */
static char *parse_msgid(const char *v, const char **rest, int *bad)
{
	const char *s, *e, *p;

	s = strchr(v, '<');
	if (s) {
		s++;
		e = strchr(s, '>');
		if (!e)
			e = s + strlen(s);
		*rest = *e ? e + 1 : e;
	} else {
		s = skip_blanks(v);
		for (e = s; *e && !isspace((unsigned char)*e); e++)
			;
		*rest = e;
	}
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e)
		return NULL;
	for (p = s; p < e; p++) {
		unsigned char c = *p;

		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>') {
			*bad = 1;
			return NULL;
		}
	}
	return xstrndup(s, e - s);
}

/* keep the last MAIL_MAX_REFERENCES ids; return 1 if some were dropped */
static int trim_references(struct mail *m)
{
	size_t i, drop;

	if (m->nr_references <= MAIL_MAX_REFERENCES)
		return 0;
	drop = m->nr_references - MAIL_MAX_REFERENCES;
	for (i = 0; i < drop; i++)
		free(m->references[i]);
	memmove(m->references, m->references + drop,
		MAIL_MAX_REFERENCES * sizeof(*m->references));
	m->nr_references = MAIL_MAX_REFERENCES;
	return 1;
}

static void add_reference(struct mail *m, char *id, size_t *alloc,
			  int *dropped)
{
	if (m->nr_references >= 2 * MAIL_MAX_REFERENCES)
		*dropped |= trim_references(m);
	ALLOC_GROW(m->references, m->nr_references + 1, *alloc);
	m->references[m->nr_references++] = id;
}

static void extract_ids(struct mail *m)
{
	size_t i, alloc = 0;
	int empty_id = 0, bad_id = 0, bad_ref = 0, dropped = 0;

	for (i = 0; i < m->nr_headers; i++) {
		const char *name = m->headers[i].name;
		const char *v = m->headers[i].value, *rest;
		int bad = 0;
		char *id;

		if (!strcasecmp(name, "Message-ID")) {
			if (m->message_id)
				continue;
			m->message_id = parse_msgid(v, &rest, &bad);
			if (!m->message_id && !bad)
				empty_id = 1;
			bad_id |= bad;
		} else if (!strcasecmp(name, "In-Reply-To")) {
			if (!m->in_reply_to)
				m->in_reply_to = parse_msgid(v, &rest, &bad);
		} else if (!strcasecmp(name, "References")) {
			while (*v) {
				bad = 0;
				id = parse_msgid(v, &rest, &bad);
				if (id)
					add_reference(m, id, &alloc, &dropped);
				bad_ref |= bad;
				if (rest == v)
					break;
				v = rest;
			}
		}
	}
	dropped |= trim_references(m);
	if (dropped)
		mail_problem(m, "more than %d references, the oldest dropped",
			     MAIL_MAX_REFERENCES);
	if (!m->message_id && bad_id)
		mail_problem(m, "bad message-id");
	else if (!m->message_id && empty_id)
		mail_problem(m, "empty message-id");
	if (bad_ref)
		mail_problem(m, "bad message-id in references");
}

/* all fields called @name, decoded and joined with ", " */
static char *join_fields(const struct mail *m, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *res;
	size_t i;

	for (i = 0; i < m->nr_headers; i++) {
		if (strcasecmp(m->headers[i].name, name))
			continue;
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, m->headers[i].value);
	}
	res = decode_collapse(sb.buf);
	strbuf_release(&sb);
	return res;
}

static void extract_fields(struct mail *m)
{
	const char *v;

	extract_ids(m);

	v = mail_header(m, "From");
	if (v) {
		mail_parse_address(v, &m->from_name, &m->from_email);
	} else {
		m->from_name = xstrdup("");
		m->from_email = xstrdup("");
		mail_problem(m, "no from header");
	}

	v = mail_header(m, "Subject");
	m->subject = v ? decode_collapse(v) : xstrdup("");

	v = mail_header(m, "Date");
	if (v) {
		struct strbuf sb = STRBUF_INIT;
		char *raw;

		utf8_append(&sb, v, strlen(v), UTF8_HEADER);
		raw = strbuf_detach(&sb, NULL);
		m->date_raw = collapse_blanks(raw);
		free(raw);
		if (mail_parse_date(m->date_raw, &m->date)) {
			char *q = quote_short(m->date_raw);

			mail_problem(m, "cannot parse date '%s'", q);
			free(q);
		}
	}
	m->to = join_fields(m, "To");
	m->cc = join_fields(m, "Cc");
}

/* ----------------------------------------------------------------- MIME */

/* "text/plain" from "Text/Plain; charset=..."; "" if malformed */
static char *mime_type(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = skip_blanks(v);

	while (*p && *p != ';' && !isspace((unsigned char)*p))
		strbuf_addch(&sb, tolower((unsigned char)*p++));
	if (!strchr(sb.buf, '/'))
		strbuf_reset(&sb);
	return strbuf_detach(&sb, NULL);
}

/* the value of parameter @attr in "type/sub; a=b; c=\"d\"", or NULL */
static char *header_param(const char *v, const char *attr)
{
	size_t alen = strlen(attr);
	const char *p = v ? strchr(v, ';') : NULL;

	while (p && *p == ';') {
		struct strbuf val = STRBUF_INIT;
		const char *a, *ae;

		p = skip_blanks(p + 1);
		a = p;
		while (*p && *p != '=' && *p != ';' &&
		       !isspace((unsigned char)*p))
			p++;
		ae = p;
		p = skip_blanks(p);
		if (*p != '=') {
			p = strchr(p, ';');
			continue;
		}
		p = skip_blanks(p + 1);
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				strbuf_addch(&val, *p);
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != ';' && !isspace((unsigned char)*p))
				strbuf_addch(&val, *p++);
		}
		if ((size_t)(ae - a) == alen && !strncasecmp(a, attr, alen))
			return strbuf_detach(&val, NULL);
		strbuf_release(&val);
		p = strchr(p, ';');
	}
	return NULL;
}

int mail_text_has_patch(const char *text, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = text + pos;
		size_t l = line_len(line, len - pos);
		size_t next = pos + l + (pos + l < len);

		if (l >= 11 && !memcmp(line, "diff --git ", 11))
			return 1;
		if (l >= 4 && !memcmp(line, "--- ", 4) && len - next >= 4 &&
		    !memcmp(text + next, "+++ ", 4))
			return 1;
		pos = next;
	}
	return 0;
}

struct body_walk {
	struct mail *m;
	unsigned int parts;
	int parts_dropped, depth_dropped;
};

enum part_use {
	PART_SKIP,
	PART_TEXT,		/* text/plain: always */
	PART_IF_PATCH,		/* attachments: only if they hold a diff */
};

static enum part_use part_use(const char *type, const char *disposition,
			      int top)
{
	static const char *const patch_types[] = {
		"text/x-patch", "text/x-diff", "text/diff", "text/patch",
		"application/x-patch", "application/x-diff",
	};
	int attachment;
	size_t i;

	if (top)
		return PART_TEXT;	/* whatever it says, it is the mail */
	for (i = 0; i < ARRAY_SIZE(patch_types); i++)
		if (!strcmp(type, patch_types[i]))
			return PART_TEXT;
	if (!strcmp(type, "application/octet-stream"))
		return PART_IF_PATCH;
	if (strcmp(type, "text/plain") && *type)
		return PART_SKIP;
	attachment = disposition &&
		     !strncasecmp(skip_blanks(disposition), "attachment", 10);
	return attachment ? PART_IF_PATCH : PART_TEXT;
}

/* decode @cte into @out; unknown encodings are copied as they are */
static void decode_transfer(struct body_walk *w, const char *cte,
			    const char *in, size_t len, struct strbuf *out)
{
	const char *p = cte ? skip_blanks(cte) : "";
	size_t n = 0;

	while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ';' &&
	       p[n] != '(')
		n++;
	if (n == 16 && !strncasecmp(p, "quoted-printable", n)) {
		qp_decode(out, in, len, 0);
	} else if (n == 6 && !strncasecmp(p, "base64", n)) {
		if (base64_decode(out, in, len))
			mail_problem(w->m, "bad bytes in base64 data skipped");
	} else {
		if (n && !(n == 4 && (!strncasecmp(p, "7bit", 4) ||
				      !strncasecmp(p, "8bit", 4))) &&
		    !(n == 6 && !strncasecmp(p, "binary", 6))) {
			char *q = quote_short(p);

			mail_problem(w->m, "unknown transfer encoding '%s'", q);
			free(q);
		}
		strbuf_add(out, in, len);
	}
}

static void body_append(struct body_walk *w, const char *charset,
			const char *in, size_t len)
{
	struct strbuf tmp = STRBUF_INIT;
	struct strbuf *body = &w->m->body;

	if (mail_charset_to_utf8(&tmp, charset, in, len)) {
		char *q = quote_short(charset);

		mail_problem(w->m, "unknown charset '%s' read as utf-8", q);
		free(q);
	}
	crlf_to_lf(&tmp);
	if (body->len && body->buf[body->len - 1] != '\n')
		strbuf_addch(body, '\n');
	strbuf_addbuf(body, &tmp);
	strbuf_release(&tmp);
}

static void walk_entity(struct body_walk *w, const struct mail_header *h,
			size_t nr, const char *body, size_t len, int depth);

struct range {
	size_t start, end;
};

/* is the rest of a "--boundary" line a delimiter? *close for "--" */
static int delimiter_tail(const char *s, size_t len, int *close)
{
	*close = len >= 2 && s[0] == '-' && s[1] == '-';
	if (*close) {
		s += 2;
		len -= 2;
	}
	return is_blank_line(s, len);
}

static void walk_part(struct body_walk *w, const char *body,
		      const struct range *r, int depth)
{
	struct header_list hl = { 0 };
	size_t off;

	off = parse_headers(body + r->start, r->end - r->start, &hl, w->m);
	walk_entity(w, hl.v, hl.nr, body + r->start + off,
		    r->end - r->start - off, depth);
	header_list_clear(&hl);
}

static const char *part_type(const char *body, const struct range *r,
			     struct mail *m, char **type)
{
	struct header_list hl = { 0 };
	const char *ct;

	parse_headers(body + r->start, r->end - r->start, &hl, m);
	ct = header_find(hl.v, hl.nr, "Content-Type");
	*type = ct ? mime_type(ct) : xstrdup("text/plain");
	header_list_clear(&hl);
	return *type;
}

static void walk_multipart(struct body_walk *w, const char *type,
			   const char *boundary, const char *body, size_t len,
			   int depth)
{
	size_t blen = strlen(boundary), pos = 0, nr = 0, alloc = 0, i;
	size_t start = 0;
	struct range *parts = NULL;
	int in_part = 0, found = 0, closed = 0;

	while (pos < len && !closed) {
		const char *line = body + pos;
		size_t l = line_len(line, len - pos);
		size_t next = pos + l + (pos + l < len);
		int close;

		if (l >= 2 + blen && line[0] == '-' && line[1] == '-' &&
		    !memcmp(line + 2, boundary, blen) &&
		    delimiter_tail(line + 2 + blen, l - 2 - blen, &close)) {
			found = 1;
			if (in_part) {
				/* the line end before a delimiter is its own */
				size_t end = pos;

				if (end > start && body[end - 1] == '\n')
					end--;
				if (end > start && body[end - 1] == '\r')
					end--;
				ALLOC_GROW(parts, nr + 1, alloc);
				parts[nr].start = start;
				parts[nr++].end = end;
			}
			in_part = !close;
			closed = close;
			start = next;
		}
		pos = next;
	}
	if (in_part) {
		ALLOC_GROW(parts, nr + 1, alloc);
		parts[nr].start = start;
		parts[nr++].end = len;
		mail_problem(w->m, "multipart body not terminated");
	}
	if (!nr) {
		mail_problem(w->m, found ? "multipart body without parts" :
				   "no boundary delimiter in multipart body");
		body_append(w, NULL, body, len);
		return;
	}

	if (!strcmp(type, "multipart/alternative")) {
		/* one of them: the plain text if there is one */
		size_t pick = 0;

		for (i = 0; i < nr; i++) {
			char *t;

			if (!strcmp(part_type(body, &parts[i], w->m, &t),
				    "text/plain")) {
				free(t);
				pick = i;
				break;
			}
			free(t);
		}
		walk_part(w, body, &parts[pick], depth + 1);
	} else {
		for (i = 0; i < nr; i++)
			walk_part(w, body, &parts[i], depth + 1);
	}
	free(parts);
}

/*
 * Add what an entity contributes to the body: @h are its header fields,
 * @body its content, @depth 0 for the mail itself.
 */
static void walk_entity(struct body_walk *w, const struct mail_header *h,
			size_t nr, const char *body, size_t len, int depth)
{
	const char *ct = header_find(h, nr, "Content-Type");
	const char *cte = header_find(h, nr, "Content-Transfer-Encoding");
	const char *cd = header_find(h, nr, "Content-Disposition");
	char *type = ct ? mime_type(ct) : xstrdup("text/plain");
	char *charset = NULL;
	struct strbuf raw = STRBUF_INIT;
	enum part_use use;

	if (depth > 0 && ++w->parts > MIME_MAX_PARTS) {
		if (!w->parts_dropped++)
			mail_problem(w->m, "more than %d mime parts, rest ignored",
				     MIME_MAX_PARTS);
		goto out;
	}
	if (starts_with(type, "multipart/")) {
		char *boundary = header_param(ct, "boundary");

		if (depth >= MIME_MAX_DEPTH) {
			if (!w->depth_dropped++)
				mail_problem(w->m,
					     "mime parts nested deeper than %d ignored",
					     MIME_MAX_DEPTH);
		} else if (!boundary || !*boundary) {
			mail_problem(w->m, "multipart without boundary");
			body_append(w, NULL, body, len);
		} else {
			walk_multipart(w, type, boundary, body, len, depth);
		}
		free(boundary);
		goto out;
	}

	use = part_use(type, cd, depth == 0);
	if (use == PART_SKIP)
		goto out;
	if (ct && !*type)
		mail_problem(w->m, "malformed content-type");
	if (depth == 0 && *type && !starts_with(type, "text/") &&
	    strcmp(type, "application/octet-stream")) {
		char *q = quote_short(type);

		mail_problem(w->m, "unexpected content type '%s'", q);
		free(q);
	}
	decode_transfer(w, cte, body, len, &raw);
	if (use == PART_IF_PATCH && !mail_text_has_patch(raw.buf, raw.len))
		goto out;
	if (starts_with(type, "text/"))
		charset = header_param(ct, "charset");
	body_append(w, charset, raw.buf, raw.len);
out:
	strbuf_release(&raw);
	free(charset);
	free(type);
}

/* ---------------------------------------------------------------- mails */

void mail_parse(const char *buf, size_t len, struct mail *mail)
{
	struct header_list hl = { 0 };
	struct body_walk w = { .m = mail };
	size_t body;

	memset(mail, 0, sizeof(*mail));
	strbuf_init(&mail->body, 0);
	mail->length = len;
	body = parse_headers(buf, len, &hl, mail);
	mail->headers = hl.v;
	mail->nr_headers = hl.nr;
	if (!hl.nr)
		mail_problem(mail, "no header fields");
	extract_fields(mail);
	walk_entity(&w, mail->headers, mail->nr_headers, buf + body,
		    len - body, 0);
}

void mail_release(struct mail *mail)
{
	size_t i;

	if (!mail)
		return;
	free(mail->message_id);
	free(mail->in_reply_to);
	for (i = 0; i < mail->nr_references; i++)
		free(mail->references[i]);
	free(mail->references);
	free(mail->from_name);
	free(mail->from_email);
	free(mail->subject);
	free(mail->date_raw);
	free(mail->to);
	free(mail->cc);
	strbuf_release(&mail->body);
	free(mail->problem);
	for (i = 0; i < mail->nr_headers; i++) {
		free(mail->headers[i].name);
		free(mail->headers[i].value);
	}
	free(mail->headers);
	memset(mail, 0, sizeof(*mail));
	strbuf_init(&mail->body, 0);
}

void mails_free(struct mail *mails, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		mail_release(&mails[i]);
	free(mails);
}

/* ----------------------------------------------------------------- mbox */

/*
 * A "From " line that starts a mail: "From <addr> <date>", where the
 * date has an hh:mm time and, after it, a four-digit year. A body line
 * like "From the beginning, ..." is not one (git's mailsplit heuristic).
 */
static int is_from_line(const char *line, size_t len)
{
	size_t i, j;

	if (len < 20 || memcmp(line, "From ", 5))
		return 0;
	for (i = 6; i + 2 < len; i++) {
		if (line[i] != ':' || !isdigit((unsigned char)line[i - 1]) ||
		    !isdigit((unsigned char)line[i + 1]) ||
		    !isdigit((unsigned char)line[i + 2]))
			continue;
		for (j = i + 3; j + 4 <= len; j++) {
			if (!isspace((unsigned char)line[j - 1]) ||
			    !isdigit((unsigned char)line[j]) ||
			    !isdigit((unsigned char)line[j + 1]) ||
			    !isdigit((unsigned char)line[j + 2]) ||
			    !isdigit((unsigned char)line[j + 3]))
				continue;
			if (j + 4 == len || isspace((unsigned char)line[j + 4]))
				return 1;
		}
		return 0;
	}
	return 0;
}

/* mboxrd: a line matching ^>+From loses one '>' */
static void mboxrd_unescape(struct strbuf *sb, const char *msg, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = msg + pos;
		size_t l = line_len(line, len - pos), k = 0;

		l += pos + l < len;	/* with its '\n' */
		while (k < l && line[k] == '>')
			k++;
		if (k && l - k >= 5 && !memcmp(line + k, "From ", 5))
			strbuf_add(sb, line + 1, l - 1);
		else
			strbuf_add(sb, line, l);
		pos += l;
	}
}

struct mbox_split {
	const char *buf;
	struct mail *mails;
	size_t nr, alloc, dropped;
	int mboxrd;
};

/* the mail whose "From " line is at @start and header block at @hdr */
static void add_mail(struct mbox_split *s, size_t start, size_t hdr,
		     size_t end)
{
	const char *msg = s->buf + hdr;
	size_t len = end - hdr;
	struct strbuf sb = STRBUF_INIT;
	int truncated = 0;
	struct mail *m;

	if (is_blank_line(msg, len))
		return;
	if (s->nr >= MBOX_MAX_MESSAGES) {
		s->dropped++;
		return;
	}
	if (len > MBOX_MAX_MESSAGE_SIZE) {
		len = MBOX_MAX_MESSAGE_SIZE;
		truncated = 1;
	}
	/* the blank line before the next "From " is the mbox's, not ours */
	if (len >= 2 && msg[len - 1] == '\n' && msg[len - 2] == '\n')
		len--;
	else if (len >= 4 && !memcmp(msg + len - 4, "\r\n\r\n", 4))
		len -= 2;
	if (s->mboxrd) {
		mboxrd_unescape(&sb, msg, len);
		msg = sb.buf;
		len = sb.len;
	}
	ALLOC_GROW(s->mails, s->nr + 1, s->alloc);
	m = &s->mails[s->nr++];
	mail_parse(msg, len, m);
	m->offset = start;
	m->length = end - start;
	if (truncated)
		mail_problem(m, "mail longer than %u bytes, the rest ignored",
			     MBOX_MAX_MESSAGE_SIZE);
	strbuf_release(&sb);
}

int mbox_parse(const char *buf, size_t len, struct mail **mails, size_t *nr)
{
	struct mbox_split s = { .buf = buf };
	size_t pos = 0, start, hdr, colon;

	*mails = NULL;
	*nr = 0;
	while (pos < len && isspace((unsigned char)buf[pos]))
		pos++;
	if (pos == len)
		return error("no mail in input");
	if (len - pos < 5 || memcmp(buf + pos, "From ", 5)) {
		if (!header_name_len(buf + pos, line_len(buf + pos, len - pos),
				     &colon))
			return error("input is neither an mbox nor a mail");
		add_mail(&s, pos, pos, len);
		goto done;
	}

	s.mboxrd = len - pos >= 12 && !memcmp(buf + pos + 5, "mboxrd", 6) &&
		   (buf[pos + 11] == '@' || buf[pos + 11] == ' ');
	start = pos;
	pos += line_len(buf + pos, len - pos);
	pos += pos < len;
	hdr = pos;
	while (pos < len) {
		size_t l = line_len(buf + pos, len - pos);

		if (buf[pos] == 'F' && is_from_line(buf + pos, l)) {
			add_mail(&s, start, hdr, pos);
			start = pos;
			hdr = pos + l + (pos + l < len);
		}
		pos += l + (pos + l < len);
	}
	add_mail(&s, start, hdr, len);

done:
	/* "From " lines and blank lines only: no mail, so no mails[0] */
	if (!s.nr)
		return error("no mail in input");
	if (s.dropped)
		mail_problem(&s.mails[s.nr - 1],
			     "more than %d mails in the mbox, %zu ignored",
			     MBOX_MAX_MESSAGES, s.dropped);
	*mails = s.mails;
	*nr = s.nr;
	return 0;
}
