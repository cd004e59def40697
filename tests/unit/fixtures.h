/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixtures.h - where the unit tests find their mails.
 *
 * OWN_FIXTURES, tests/fixtures/mbox: mails written for the tests, in the
 * repository (tests/fixtures/README.md says what each one exercises).
 * Every case the parser tests make runs on them.
 *
 * $MMCI_FIXTURES (default ../shared/fixtures/mbox): a corpus of real list
 * mails that may sit beside the checkout. It is an extra: the cases on it
 * run when it is there and are TAP skips that name it when it is not.
 *
 * Both paths are relative to the project root, where the tests run.
 */
#ifndef MMCI_FIXTURES_H
#define MMCI_FIXTURES_H

#include <stdlib.h>
#include <sys/stat.h>

#include "tap.h"
#include "util.h"

#define OWN_FIXTURES "tests/fixtures/mbox"

static inline const char *shared_fixtures_dir(void)
{
	const char *dir = getenv("MMCI_FIXTURES");

	return dir && *dir ? dir : "../shared/fixtures/mbox";
}

/* NULL when the real-mail corpus is there, else why its cases skip */
static inline const char *shared_fixtures_absent(void)
{
	static char *why;
	struct stat st;

	if (!stat(shared_fixtures_dir(), &st) && S_ISDIR(st.st_mode))
		return NULL;
	if (!why)
		why = xstrfmt("%s absent (MMCI_FIXTURES)", shared_fixtures_dir());
	return why;
}

/* a group of cases on the real-mail corpus */
struct shared_case {
	const char *name;
	void (*run)(void);
};

/* run each group, or say with one skip each that the corpus is absent */
static inline void run_shared_cases(const struct shared_case *c, size_t nr)
{
	const char *why = shared_fixtures_absent();
	size_t i;

	for (i = 0; i < nr; i++) {
		if (why)
			skip(c[i].name, why);
		else
			c[i].run();
	}
}

#endif
