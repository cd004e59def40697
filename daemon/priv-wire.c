// SPDX-License-Identifier: GPL-2.0
/*
 * priv-wire.c - one message and its descriptors over a channel of
 * mmci-priv (priv.h), for both ends: the parent and the service user.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv.h"
#include "util.h"

#define PRIV_MAX_FDS 4

ssize_t priv_send(int sock, const void *buf, size_t len, const int *fds,
		  int nfd, int flags)
{
	union {
		char buf[CMSG_SPACE(PRIV_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	if (nfd > PRIV_MAX_FDS)
		BUG("a message with %d descriptors", nfd);
	memset(&u, 0, sizeof(u));
	if (nfd) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t priv_recv(int sock, void *buf, size_t len, int *fds, int max,
		  int *got, int flags, int *truncated)
{
	union {
		char buf[CMSG_SPACE(PRIV_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;

	*got = 0;
	memset(&u, 0, sizeof(u));
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
	while (n < 0 && errno == EINTR);
	/* every descriptor that came is ours: kept or closed */
	for (c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
		int i, k, *p = (int *)CMSG_DATA(c);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			if (*got < max)
				fds[(*got)++] = p[i];
			else
				close(p[i]);
		}
	}
	if (truncated)
		*truncated = n >= 0 && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
	return n;
}
