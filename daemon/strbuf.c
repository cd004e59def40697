// SPDX-License-Identifier: GPL-2.0
/*
 * strbuf.c - growable strings; see strbuf.h for the invariants.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "strbuf.h"
#include "util.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int new_buf = !sb->alloc;

	if (sb->len + extra + 1 <= sb->len)
		die("you want to use way too much memory");
	if (new_buf)
		sb->buf = NULL;
	if (sb->len + extra + 1 > sb->alloc) {
		size_t want = sb->len + extra + 1;

		sb->alloc = sb->alloc ? sb->alloc : 64;
		while (sb->alloc < want)
			sb->alloc = sb->alloc * 3 / 2 + 16;
		sb->buf = xrealloc(sb->buf, sb->alloc);
	}
	if (new_buf)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen() beyond buffer");
	sb->len = len;
	if (sb->buf != strbuf_slopbuf)
		sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int len;

	if (!strbuf_avail(sb))
		strbuf_grow(sb, 64);
	va_copy(cp, ap);
	len = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (len < 0)
		BUG("vsnprintf failed");
	if ((size_t)len >= strbuf_avail(sb)) {
		strbuf_grow(sb, len);
		len = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt,
				ap);
	}
	strbuf_setlen(sb, sb->len + len);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len > 0 && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void strbuf_ltrim(struct strbuf *sb)
{
	size_t i = 0;

	while (i < sb->len && isspace((unsigned char)sb->buf[i]))
		i++;
	if (!i)
		return;
	memmove(sb->buf, sb->buf + i, sb->len - i);
	strbuf_setlen(sb, sb->len - i);
}

void strbuf_trim(struct strbuf *sb)
{
	strbuf_rtrim(sb);
	strbuf_ltrim(sb);
}

ssize_t strbuf_read_fd(struct strbuf *sb, int fd, size_t hint)
{
	size_t oldlen = sb->len;

	strbuf_grow(sb, hint ? hint : 8192);
	for (;;) {
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_setlen(sb, oldlen);
			return -1;
		}
		if (!n)
			break;
		sb->len += n;
		sb->buf[sb->len] = '\0';
		if (sb->alloc - sb->len < 4096)
			strbuf_grow(sb, 8192);
	}
	return sb->len - oldlen;
}

ssize_t strbuf_read_file(struct strbuf *sb, const char *path, size_t hint)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = strbuf_read_fd(sb, fd, hint);
	err = errno;
	close(fd);
	errno = err;
	return n;
}

int strbuf_getline(struct strbuf *sb, FILE *fp)
{
	int c;

	strbuf_reset(sb);
	while ((c = getc(fp)) != EOF) {
		if (c == '\n')
			return 0;
		strbuf_addch(sb, c);
	}
	return sb->len ? 0 : EOF;
}

void strbuf_addnum(struct strbuf *sb, double v, int width)
{
	if (isnan(v))
		strbuf_addf(sb, "%*s", width, "-");
	else if (fabs(v) >= 1000)
		strbuf_addf(sb, "%*.0f", width, v);
	else if (fabs(v) >= 10)
		strbuf_addf(sb, "%*.1f", width, v);
	else
		strbuf_addf(sb, "%*.3f", width, v);
}
