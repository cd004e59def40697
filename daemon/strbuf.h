/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strbuf.h - a growable, always NUL-terminated byte string.
 *
 * Modelled on git's strbuf: `buf` is never NULL (it points at a shared empty
 * string until the first growth), `len` excludes the terminating NUL, and
 * the buffer may hold NUL bytes. strbuf_detach() hands the buffer to the
 * caller, who then frees it.
 */
#ifndef MMCI_STRBUF_H
#define MMCI_STRBUF_H

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { .alloc = 0, .len = 0, .buf = strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* caller frees the result; sb is re-initialised */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline size_t strbuf_avail(const struct strbuf *sb)
{
	return sb->alloc ? sb->alloc - sb->len - 1 : 0;
}
#define strbuf_reset(sb) strbuf_setlen(sb, 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

void strbuf_trim(struct strbuf *sb);
void strbuf_rtrim(struct strbuf *sb);
void strbuf_ltrim(struct strbuf *sb);

/* read a whole file / fd; return bytes read or -1 (errno set) */
ssize_t strbuf_read_file(struct strbuf *sb, const char *path, size_t hint);
ssize_t strbuf_read_fd(struct strbuf *sb, int fd, size_t hint);
/* read one line without its '\n'; return EOF at end of file */
int strbuf_getline(struct strbuf *sb, FILE *fp);

/*
 * strbuf_addnum - a number for a table, right-aligned in @width: no
 * decimals from 1000 up, one from 10, three below; "-" for NaN.
 */
void strbuf_addnum(struct strbuf *sb, double v, int width);

#endif
