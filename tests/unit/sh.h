/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sh.h - shell scripts for unit tests that build a git repository with
 * git(1): every "%s" of the script is the test's directory. Include after
 * util.h.
 */
#ifndef MMCI_TEST_SH_H
#define MMCI_TEST_SH_H

#include <stdio.h>
#include <stdlib.h>

/* the script is the format on purpose */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* run @fmt with every %s (at most six) replaced by @dir; system()'s status */
static inline int sh(const char *fmt, const char *dir)
{
	char *cmd = xstrfmt(fmt, dir, dir, dir, dir, dir, dir);
	int rc = system(cmd);

	free(cmd);
	return rc;
}

/* the first word of the first line @fmt prints, or ""; caller frees */
static inline char *sh_word(const char *fmt, const char *dir)
{
	char *cmd = xstrfmt(fmt, dir, dir, dir, dir, dir, dir), buf[256] = "";
	FILE *f = popen(cmd, "r");

	free(cmd);
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		pclose(f);
	}
	buf[strcspn(buf, " \n")] = '\0';
	return xstrdup(buf);
}

#pragma GCC diagnostic pop

#endif
