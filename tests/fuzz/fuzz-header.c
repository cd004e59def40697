// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-header.c - libFuzzer target for the decoders of one header value.
 *
 * fuzz-mbox reaches these too, but only behind a mail that parses; here a
 * few bytes go straight in, so the mutations are spent on the grammar of
 * one value. The first input byte picks the decoder, the rest is its
 * argument:
 *
 *	0  mail_decode_header()		RFC 2047 words, B and Q, charsets
 *	1  mail_parse_address()		"Name <a@b>", "a@b (Name)", quotes
 *	2  mail_parse_date()		RFC 5322 dates and zones
 *	3  parse_patch_subject()	"Re: [RFC PATCH v2 1/3] title"
 *	4  mail_charset_to_utf8()	"charset\n" then the bytes (iconv)
 *	5  mail_text_has_patch()	a body, NULs and all
 *
 * Each result is checked against what mbox.h and series.h promise.
 */
#include <stdint.h>

#include "mbox.h"
#include "series.h"
#include "util.h"
#include "../utf8-valid.h"

#define check(cond, what)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "fuzz-header: broken promise: %s\n", \
				what);                                       \
			abort();                                             \
		}                                                            \
	} while (0)

static int utf8_valid(const char *s, size_t len, int header)
{
	return utf8_valid_text(s, len, header);
}

static int str_ok(const char *s, int header)
{
	return s && utf8_valid(s, strlen(s), header);
}

static void fuzz_charset(const char *in, size_t len)
{
	const char *nl = memchr(in, '\n', len);
	struct strbuf out = STRBUF_INIT;
	char *charset;

	if (!nl)
		return;
	charset = xstrndup(in, nl - in);
	len -= nl + 1 - in;
	mail_charset_to_utf8(&out, charset, nl + 1, len);
	check(strlen(out.buf) == out.len, "converted text has no NUL");
	check(utf8_valid(out.buf, out.len, 0), "converted text is UTF-8");
	strbuf_release(&out);
	free(charset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	struct patch_subject ps;
	char *s, *a, *b;
	time_t t;

	if (!size)
		return 0;
	/* a header value is a C string: it ends at the first NUL */
	s = xstrndup(in, len);
	switch (data[0] % 6) {
	case 0:
		a = mail_decode_header(s);
		check(str_ok(a, 1), "decoded header is UTF-8, no controls");
		free(a);
		break;
	case 1:
		mail_parse_address(s, &a, &b);
		check(str_ok(a, 1), "display name is UTF-8, no controls");
		check(str_ok(b, 1), "email is UTF-8, no controls");
		free(a);
		free(b);
		break;
	case 2:
		t = 42;
		if (mail_parse_date(s, &t))
			check(t == 0, "a failed date is 0");
		break;
	case 3:
		check(parse_patch_subject(s, &ps) == ps.is_patch,
		      "parse_patch_subject() returns is_patch");
		check(ps.title && ps.prefix, "title and prefix not NULL");
		check(!(ps.is_patch && ps.is_reply), "a reply is no patch");
		check(ps.index >= 0 && ps.total >= 0 && ps.version >= 0,
		      "numbers not negative");
		patch_subject_release(&ps);
		break;
	case 4:
		fuzz_charset(in, len);
		break;
	case 5:
		mail_text_has_patch(in, len);
		break;
	}
	free(s);
	return 0;
}
