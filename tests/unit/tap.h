/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - a tiny TAP producer for mmci's C unit tests.
 *
 *	ok(cond, "what was checked");
 *	is_int(got, want, "name");  is_str(got, want, "name");
 *	is_double(got, want, tolerance, "name");
 *	skip("name", "why it cannot run here");
 *	return done_testing();
 *
 * Prints "ok N - name" / "not ok N - name" with a diagnostic ("ok N - name
 * # SKIP why" for a skip), then the plan "1..N" at the end; the exit status
 * is non-zero if any test failed.
 */
#ifndef MMCI_TAP_H
#define MMCI_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *file, int line,
			 const char *name)
{
	tap_count++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_count, name);
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, name) tap_ok(!!(cond), __FILE__, __LINE__, name)

#define is_int(got, want, name)                                              \
	do {                                                                 \
		long long g_ = (got), w_ = (want);                           \
		if (!ok(g_ == w_, name))                                     \
			printf("#   got %lld, want %lld\n", g_, w_);         \
	} while (0)

#define is_str(got, want, name)                                              \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		int same_ = (g_ && w_) ? !strcmp(g_, w_) : g_ == w_;         \
		if (!ok(same_, name))                                        \
			printf("#   got '%s', want '%s'\n",                  \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");      \
	} while (0)

#define is_double(got, want, tol, name)                                      \
	do {                                                                 \
		double g_ = (got), w_ = (want);                              \
		if (!ok(fabs(g_ - w_) <= (tol), name))                       \
			printf("#   got %.10g, want %.10g (tolerance %g)\n", \
			       g_, w_, (double)(tol));                       \
	} while (0)

/*
 * skip("what was not checked", "why"): "ok N - name # SKIP why", for a
 * case that cannot run here (an input that is absent); it never fails
 */
static inline void skip(const char *name, const char *why)
{
	tap_count++;
	printf("ok %d - %s # SKIP %s\n", tap_count, name, why);
	fflush(stdout);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
