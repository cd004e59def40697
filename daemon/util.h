/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - allocation, error reporting and logging used by every module.
 *
 * Rules (see docs/STYLE.md):
 *  - allocation failure aborts (xmalloc and friends), so error paths only
 *    handle real I/O and input errors;
 *  - error() logs "error: <msg>" and returns -1, for "return error(...)";
 *  - die() logs and exits 128; only main() and start-up code call it;
 *  - BUG() is for broken invariants and aborts;
 *  - log_* print "mmci: <level>: <msg>" to stderr (journald reads stderr
 *    under systemd); log_warn() appends strerror(errno).
 */
#ifndef MMCI_UTIL_H
#define MMCI_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NORETURN __attribute__((noreturn))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#define UNUSED __attribute__((unused))
#define MUST_CHECK __attribute__((warn_unused_result))

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string; caller frees */
char *xstrfmt(const char *fmt, ...) PRINTF(1, 2);
/* snprintf that BUG()s on truncation: for buffers whose size is known */
int xsnprintf(char *dst, size_t max, const char *fmt, ...) PRINTF(3, 4);

#define ALLOC_GROW(x, nr, alloc)                                              \
	do {                                                                  \
		if ((nr) > (alloc)) {                                         \
			(alloc) = (alloc) ? (alloc) * 2 : 16;                 \
			if ((alloc) < (nr))                                   \
				(alloc) = (nr);                               \
			(x) = xrealloc((x), (alloc) * sizeof(*(x)));          \
		}                                                             \
	} while (0)

/*
 * A growing array of doubles (samples, units, CVs), the one of mmci:
 *
 *	struct doubles d = DOUBLES_INIT;
 *
 *	doubles_push(&d, x);
 *	... d.v[0 .. d.nr - 1] ...
 *	doubles_release(&d);
 */
struct doubles {
	double *v;
	size_t nr, alloc;
};
#define DOUBLES_INIT { 0 }
void doubles_push(struct doubles *d, double x);
void doubles_release(struct doubles *d);

int error(const char *fmt, ...) PRINTF(1, 2);
/* like error(), with ": strerror(errno)" appended */
int error_errno(const char *fmt, ...) PRINTF(1, 2);
void warning(const char *fmt, ...) PRINTF(1, 2);
/* the text of the last error() in this process, for failure rows */
const char *last_error(void);
/*
 * Between these, error() and error_errno() are not printed, only kept for
 * last_error(): for a step whose caller reports its failure in a line of
 * its own (a boot that did not start: run.c says why, once). They nest.
 */
void error_hold(void);
void error_unhold(void);
NORETURN void die(const char *fmt, ...) PRINTF(1, 2);
NORETURN void die_errno(const char *fmt, ...) PRINTF(1, 2);
NORETURN void BUG_fl(const char *file, int line, const char *fmt, ...)
	PRINTF(3, 4);
#define BUG(...) BUG_fl(__FILE__, __LINE__, __VA_ARGS__)

/* 0 quiet, 1 normal (info), 2 debug; set from -v / -q / MMCI_VERBOSE */
extern int log_verbosity;
/* the name info, debug and warning lines start with, "mmci" if unset */
void set_log_name(const char *name);
void log_info(const char *fmt, ...) PRINTF(1, 2);
void log_debug(const char *fmt, ...) PRINTF(1, 2);
void log_warnx(const char *fmt, ...) PRINTF(1, 2);
void log_warn(const char *fmt, ...) PRINTF(1, 2);
/* one progress line for a long step: "[12:01:02] building base ..." */
void progress(const char *fmt, ...) PRINTF(1, 2);
/*
 * where a long step is now ("412 objects, 2 min 10 s, about 6 min
 * left"): on a terminal one line rewritten in place, ended by the next
 * message or progress_status_end(); in a log or the journal a plain line
 * every PROGRESS_LOG_S seconds of the step, none for a shorter one
 */
#define PROGRESS_LOG_S 30
void progress_status(const char *fmt, ...) PRINTF(1, 2);
void progress_status_end(void);

/* prefix/suffix helpers */
int starts_with(const char *str, const char *prefix);
int skip_prefix(const char *str, const char *prefix, const char **out);
int ends_with(const char *str, const char *suffix);
/* the value of a hex digit, -1 for any other character */
int hex_digit(int c);
/* a full commit id as git writes it: exactly 40 lowercase hex digits */
int is_commit_hex(const char *s);

/**
 * utf8_next() - decode the UTF-8 character at @s
 * @s: the text; need not be NUL-terminated
 * @len: bytes left in @s, at least 1
 * @cp: out, the character's code point when it is valid
 *
 * The one decoder of mbox.c (mail text and headers) and report.c (the
 * text a report mail shows). Overlong forms, surrogates (U+D800-DFFF)
 * and values above U+10FFFF are invalid (RFC 3629), and so is a
 * sequence cut short by @len.
 *
 * Return: the length of the valid sequence at @s (1 to 4; 1 for any
 * ASCII byte, NUL included), or 0 when @s does not start one.
 */
int utf8_next(const unsigned char *s, size_t len, unsigned int *cp);

/*
 * "4K", "2M", "100G", "1T", "512MiB", "4096": a size in bytes (K, M, G, T
 * are powers of 1024). Returns 0, or -1 for anything else, zero or an
 * overflow.
 */
int parse_size(const char *s, unsigned long long *bytes);
/* the same in MiB; a size that is not a whole number of MiB is invalid */
int parse_size_mib(const char *s, unsigned long long *mib);
/* every word of a comma list is a valid size; at most max words */
int valid_size_list(const char *list, int max);
/* 1 when @word is one of the comma list @list's items */
int has_word(const char *list, const char *word);

/* monotonic clock in nanoseconds / seconds as double */
uint64_t now_ns(void);
/* write all of @buf to @fd, again after EINTR; 0, or -1 with errno */
int write_in_full(int fd, const void *buf, size_t len);
double now_s(void);

#include "banned.h"

/* a positive integer option, or die() with the option's name */
long long parse_count(const char *opt, const char *arg);
/* "100G", "512M", "2048" (MiB): a size in MiB, or die() */
unsigned long long parse_mib(const char *opt, const char *arg);

/* is capability @cap (CAP_*) in our effective set? (capget(2), no libcap) */
int have_capability(int cap);

#endif
