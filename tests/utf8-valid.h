/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utf8-valid.h - the check the tests and fuzzers make of what mbox.h
 * promises: every string it hands out is valid UTF-8 without NUL bytes
 * (shortest forms, no surrogates, nothing above U+10FFFF).
 */
#ifndef MMCI_TESTS_UTF8_VALID_H
#define MMCI_TESTS_UTF8_VALID_H

#include <stddef.h>

/* @len bytes of valid UTF-8 without NUL; @no_ctl: no C0 controls or DEL */
static inline int utf8_valid_text(const char *s, size_t len, int no_ctl)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;
	unsigned int cp;

	while (i < len) {
		if (!p[i] || (no_ctl && (p[i] < 0x20 || p[i] == 0x7f)))
			return 0;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			n = 2, cp = p[i] & 0x1f;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			n = 3, cp = p[i] & 0x0f;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			n = 4, cp = p[i] & 0x07;
		else
			return 0;
		if (len - i < n)
			return 0;
		for (k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n;
	}
	return 1;
}

#endif
