// SPDX-License-Identifier: GPL-2.0
/*
 * priv-client.c - the service user's side of mmci-priv's requests
 * (priv.h): a channel per process, one request and one reply at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "priv.h"
#include "util.h"

static int priv_root_fd(void)
{
	const char *v = getenv(PRIV_FD_ENV);
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	if (*end || fd < 3 || fd > 1023)
		return -1;
	return (int)fd;
}

int priv_active(void)
{
	return priv_root_fd() >= 0;
}

int priv_fd(void)
{
	return priv_root_fd();
}

void priv_init(void)
{
	int fd = priv_root_fd();

	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die_errno("%s=%d is not an open descriptor", PRIV_FD_ENV, fd);
}

int priv_call(int ch, const struct priv_req *req, const int *fds, int nfd,
	      struct priv_reply *rep, int *fds_back, int max, int *got)
{
	int scratch[4], n_back = 0;
	ssize_t n;

	if (got)
		*got = 0;
	if (priv_send(ch, req, sizeof(*req), fds, nfd, 0) !=
	    (ssize_t)sizeof(*req))
		return error_errno("cannot send a request to mmci-priv");
	n = priv_recv(ch, rep, sizeof(*rep), fds_back ? fds_back : scratch,
		      fds_back ? max : 0, &n_back, 0, NULL);
	if (got)
		*got = n_back;
	if (n < 0)
		return error_errno("no answer from mmci-priv");
	if (n == 0)
		return error("mmci-priv closed the channel");
	if (n != (ssize_t)sizeof(*rep) || rep->magic != PRIV_MAGIC ||
	    rep->type != req->type)
		return error("mmci-priv answered with a message of %zd bytes, "
			     "not a reply to request %u", n, req->type);
	rep->error[sizeof(rep->error) - 1] = '\0';
	if (rep->status)
		return error("mmci-priv: %s", rep->error);
	return 0;
}

int priv_channel(void)
{
	struct priv_req req = { .magic = PRIV_MAGIC, .type = PRIV_CHANNEL };
	struct priv_reply *rep = xcalloc(1, sizeof(*rep));
	int root = priv_root_fd(), fd = -1, got = 0;

	if (root < 0)
		BUG("priv_channel without %s", PRIV_FD_ENV);
	if (priv_call(root, &req, NULL, 0, rep, &fd, 1, &got) == 0 && got != 1)
		error("mmci-priv sent no channel");
	free(rep);
	return got == 1 ? fd : -1;
}

#define COPY_FIELD(dst, src) \
	((dst) = xstrndup((src), strnlen((src), sizeof(src))))

int priv_host(struct host *h)
{
	struct priv_req req = { .magic = PRIV_MAGIC, .type = PRIV_HOST };
	struct priv_reply *rep = xcalloc(1, sizeof(*rep));
	int ch = priv_channel(), ret = -1;

	if (ch < 0) {
		snprintf(h->error, sizeof(h->error), "no channel to mmci-priv");
		free(rep);
		return -1;
	}
	error_hold();
	if (priv_call(ch, &req, NULL, 0, rep, NULL, 0, NULL) < 0) {
		error_unhold();
		snprintf(h->error, sizeof(h->error), "%s", last_error());
		goto out;
	}
	error_unhold();
	COPY_FIELD(h->qemu, rep->host.qemu);
	COPY_FIELD(h->libvirt, rep->host.libvirt);
	COPY_FIELD(h->arch, rep->host.arch);
	COPY_FIELD(h->cpu_model, rep->host.cpu_model);
	COPY_FIELD(h->hostname, rep->host.hostname);
	snprintf(h->arm64_why, sizeof(h->arm64_why), "%.*s",
		 (int)strnlen(rep->host.arm64_why, sizeof(rep->host.arm64_why)),
		 rep->host.arm64_why);
	h->kvm = !!rep->host.kvm;
	h->arm64 = !!rep->host.arm64;
	h->cores = rep->host.cores;
	h->mmci_domains = (int)rep->host.mmci_domains;
	h->mem_mib = rep->host.mem_mib;
	h->up = 1;
	ret = 0;
out:
	close(ch);
	free(rep);
	return ret;
}

int priv_versions(char **qemu, char **libvirt)
{
	struct host h = { 0 };

	if (priv_host(&h) < 0)
		return error("cannot get the versions from mmci-priv: %s",
			     h.error);
	*qemu = h.qemu;
	*libvirt = h.libvirt;
	free(h.arch);
	free(h.cpu_model);
	free(h.hostname);
	return 0;
}
