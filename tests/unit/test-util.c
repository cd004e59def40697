// SPDX-License-Identifier: GPL-2.0
/*
 * test-util.c - utf8_next(), the one UTF-8 decoder of mbox.c and
 * report.c: every code point encoded and decoded again, and every
 * sequence of one to three bytes (16.8 million, a fraction of a second)
 * and the four-byte ones around the edges judged as tests/utf8-valid.h,
 * the tests' own check, judges them. No database, no files.
 */
#include "tap.h"
#include "util.h"

#include "../utf8-valid.h"

/* @cp as UTF-8 into @buf; return its length */
static int encode(unsigned int cp, unsigned char *buf)
{
	if (cp < 0x80) {
		buf[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = 0xc0 | cp >> 6;
		buf[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = 0xe0 | cp >> 12;
		buf[1] = 0x80 | (cp >> 6 & 0x3f);
		buf[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	buf[0] = 0xf0 | cp >> 18;
	buf[1] = 0x80 | (cp >> 12 & 0x3f);
	buf[2] = 0x80 | (cp >> 6 & 0x3f);
	buf[3] = 0x80 | (cp & 0x3f);
	return 4;
}

static void test_every_code_point(void)
{
	unsigned char buf[4];
	unsigned int cp, got, bad = 0, surrogates = 0;
	int n;

	for (cp = 0; cp <= 0x10ffff; cp++) {
		int len = encode(cp, buf);

		got = ~0u;
		n = utf8_next(buf, len, &got);
		if (cp >= 0xd800 && cp <= 0xdfff) {
			surrogates += n == 0;
			continue;
		}
		if (n != len || got != cp) {
			if (!bad++)
				printf("# U+%04X: length %d, U+%04X\n", cp, n,
				       got);
		}
	}
	is_int(bad, 0, "every code point decodes to itself, in its length");
	is_int(surrogates, 0x800, "every surrogate is invalid");
	n = encode(0x10ffff, buf);
	buf[0] = 0xf4, buf[1] = 0x90;	/* U+110000 */
	is_int(utf8_next(buf, n, &got), 0, "U+110000 is invalid");
}

/* the length utf8-valid.h gives the sequence of @len bytes at @s, or 0 */
static int oracle(const unsigned char *s, int len)
{
	int n;

	if (!s[0])
		return 1;	/* utf8_valid_text() refuses NUL; it is ASCII */
	for (n = 1; n <= len; n++)
		if (utf8_valid_text((const char *)s, n, 0))
			return n;
	return 0;
}

static void test_short_sequences(void)
{
	unsigned char s[3];
	unsigned int cp, wrong = 0, tried = 0;
	unsigned long v;
	int len;

	for (len = 1; len <= 3; len++) {
		for (v = 0; v < 1ul << (8 * len); v++) {
			int k;

			for (k = 0; k < len; k++)
				s[k] = v >> (8 * k);
			tried++;
			if (utf8_next(s, len, &cp) != oracle(s, len) &&
			    !wrong++)
				printf("# %d byte(s) %lx: %d, not %d\n", len, v,
				       utf8_next(s, len, &cp), oracle(s, len));
		}
	}
	is_int(wrong, 0, "1 to 3 bytes: the length the oracle gives");
	is_int(tried, 256 + 65536 + 16777216, "all of them tried");
}

static void test_four_bytes(void)
{
	static const unsigned char lead[] = { 0xef, 0xf0, 0xf3, 0xf4, 0xf5,
					      0xf7, 0xf8, 0xff };
	static const unsigned char cont[] = { 0x00, 0x7f, 0x80, 0x8f, 0x90,
					      0xbf, 0xc0, 0xff };
	unsigned char s[4];
	unsigned int cp, wrong = 0;
	size_t a, b, c, d;

	for (a = 0; a < sizeof(lead); a++)
		for (b = 0; b < sizeof(cont); b++)
			for (c = 0; c < sizeof(cont); c++)
				for (d = 0; d < sizeof(cont); d++) {
					s[0] = lead[a];
					s[1] = cont[b];
					s[2] = cont[c];
					s[3] = cont[d];
					wrong += utf8_next(s, 4, &cp) !=
						 oracle(s, 4);
				}
	is_int(wrong, 0, "4 bytes at the edges: the oracle's length");
	s[0] = 0xf0, s[1] = 0x9f, s[2] = 0x98, s[3] = 0x80;
	is_int(utf8_next(s, 4, &cp), 4, "U+1F600 is 4 bytes");
	is_int(cp, 0x1f600, "U+1F600");
	is_int(utf8_next(s, 3, &cp), 0, "cut short by the length: invalid");
	s[0] = 0xc0, s[1] = 0xaf;
	is_int(utf8_next(s, 2, &cp), 0, "overlong '/' is invalid");
	s[0] = 0xe0, s[1] = 0x80, s[2] = 0xaf;
	is_int(utf8_next(s, 3, &cp), 0, "overlong 3-byte '/' is invalid");
}

int main(void)
{
	test_every_code_point();
	test_short_sequences();
	test_four_bytes();
	ok(is_commit_hex("0123456789abcdef0123456789abcdef01234567"),
	   "is_commit_hex: 40 lowercase hex digits");
	ok(!is_commit_hex("0123456789ABCDEF0123456789abcdef01234567"),
	   "is_commit_hex: not upper case (git writes ids in lower case)");
	ok(!is_commit_hex("0123456789abcdef0123456789abcdef0123456"),
	   "is_commit_hex: not 39 digits");
	ok(!is_commit_hex("0123456789abcdef0123456789abcdef012345678"),
	   "is_commit_hex: not 41 digits");
	ok(!is_commit_hex("HEAD") && !is_commit_hex(NULL),
	   "is_commit_hex: not a ref, not NULL");
	return done_testing();
}
