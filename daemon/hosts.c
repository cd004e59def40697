// SPDX-License-Identifier: GPL-2.0
/*
 * hosts.c - the libvirt hosts boots may go to (hosts.h).
 */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "fsutil.h"
#include "hosts.h"
#include "priv.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"

static void hosts_silent_error(void *opaque, virErrorPtr err)
{
	/* reported by the callers with virGetLastErrorMessage() */
}

size_t hosts_list(struct host **out)
{
	const char *env = getenv("MMCI_LIBVIRT_URIS");
	char *list = xstrdup(env && *env ? env : vm_uri()), *w, *save = NULL;
	struct host *h = NULL;
	size_t n = 0, alloc = 0;

	for (w = strtok_r(list, " ,\t\n", &save); w;
	     w = strtok_r(NULL, " ,\t\n", &save)) {
		ALLOC_GROW(h, n + 1, alloc);
		memset(&h[n], 0, sizeof(*h));
		h[n].uri = xstrdup(w);
		n++;
	}
	free(list);
	*out = h;
	return n;
}

static virConnectPtr host_connect(const char *uri, char *err, size_t len)
{
	virConnectPtr conn;

	virSetErrorFunc(NULL, hosts_silent_error);
	conn = virConnectOpen(uri);
	if (!conn)
		snprintf(err, len, "%s", virGetLastErrorMessage());
	return conn;
}

int host_alive(const char *uri)
{
	char err[256];
	virConnectPtr conn = host_connect(uri, err, sizeof(err));
	unsigned long v = 0;
	int ok;

	if (!conn)
		return 0;
	ok = virConnectGetLibVersion(conn, &v) == 0;
	virConnectClose(conn);
	return ok;
}

static void node_memory(virConnectPtr conn, struct host *h)
{
	virNodeMemoryStatsPtr params;
	int i, n = 0;

	if (virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, NULL,
				  &n, 0) < 0 || n <= 0)
		return;
	params = xcalloc(n, sizeof(*params));
	if (virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS,
				  params, &n, 0) == 0) {
		unsigned long long kib = 0;

		for (i = 0; i < n; i++)
			if (!strcmp(params[i].field, VIR_NODE_MEMORY_STATS_FREE) ||
			    !strcmp(params[i].field,
				    VIR_NODE_MEMORY_STATS_BUFFERS) ||
			    !strcmp(params[i].field,
				    VIR_NODE_MEMORY_STATS_CACHED))
				kib += params[i].value;
		h->avail_mib = kib >> 10;
	}
	free(params);
}

/* this machine's free memory: the same figure measure.c always used */
static void local_memory(struct host *h)
{
	long long m = mem_available_mib();

	h->avail_mib = m > 0 ? (unsigned long long)m : 0;
}

int host_probe(struct host *h)
{
	virConnectPtr conn;
	virStoragePoolPtr pool;

	h->remote = vm_uri_is_remote(h->uri);
	if (!h->remote && priv_active()) {
		/* its libvirt is mmci-priv's; its memory this machine's */
		if (priv_host(h) < 0)
			return -1;
		local_memory(h);
		return 0;
	}
	conn = host_connect(h->uri, h->error, sizeof(h->error));
	if (!conn)
		return -1;
	if (host_probe_conn(conn, h) < 0) {
		virConnectClose(conn);
		return -1;
	}
	if (h->remote) {
		node_memory(conn, h);
	} else {
		local_memory(h);
	}
	pool = virStoragePoolLookupByName(conn, vm_pool_name());
	if (pool) {
		virStoragePoolInfo pi;

		if (virStoragePoolGetInfo(pool, &pi) == 0 &&
		    pi.state == VIR_STORAGE_POOL_RUNNING) {
			h->pool_ok = 1;
			h->pool_avail_mib = pi.available >> 20;
			h->pool_cap_mib = pi.capacity >> 20;
		}
		virStoragePoolFree(pool);
	}
	virConnectClose(conn);
	h->up = 1;
	return 0;
}

int host_capacity(const struct host *h, long long need_mib)
{
	long long mem, cores;

	if (!h->up || need_mib <= 0)
		return 0;
	if (h->remote && !h->pool_ok)
		return 0;
	cores = (long long)h->cores - h->mmci_domains;
	mem = ((long long)h->avail_mib - 1024) / need_mib;
	if (mem < cores)
		cores = mem;
	return cores < 0 ? 0 : (int)cores;
}

int host_same_icount_setup(const struct host *a, const struct host *b)
{
	return a->up && b->up && !strcmp(a->qemu, b->qemu) &&
	       !strcmp(a->arch, b->arch);
}

int hosts_pick_home(void)
{
	struct host *h;
	size_t n, i;
	int ret = -1;
	char *home;

	if (host_alive(vm_uri()))
		return 0;
	home = xstrdup(vm_uri());
	n = hosts_list(&h);
	for (i = 0; i < n && ret < 0; i++) {
		if (!strcmp(h[i].uri, home) || !host_alive(h[i].uri))
			continue;
		log_warnx("libvirt host '%s' does not answer: this job's runs "
			  "go to '%s'", home, h[i].uri);
		if (setenv("MMCI_LIBVIRT_URI", h[i].uri, 1) == 0)
			ret = 1;
	}
	hosts_release(h, n);
	free(home);
	return ret;
}

void hosts_release(struct host *h, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(h[i].uri);
		free(h[i].qemu);
		free(h[i].libvirt);
		free(h[i].arch);
		free(h[i].cpu_model);
		free(h[i].hostname);
	}
	free(h);
}
