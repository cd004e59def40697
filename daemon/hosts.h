/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hosts.h - the libvirt hosts boots may go to, as libvirt describes them.
 *
 * The list is MMCI_LIBVIRT_URIS (blank- or comma-separated URIs), else
 * the one host of vm_uri(). Everything known of a host comes from its
 * libvirt connection: versions, capabilities (architecture, CPU model),
 * node info (cores, memory), the storage pool a remote host needs
 * (vm.h), and the mmci domains running there. Those domains are how
 * capacity is claimed on a host: two controllers sharing one see each
 * other's guests, whatever their databases say.
 */
#ifndef MMCI_HOSTS_H
#define MMCI_HOSTS_H

struct host {
	char *uri;
	int remote;		/* staged through a pool (vm_staged()) */
	int up;			/* it answered */
	char error[256];	/* why not, when !up */
	char *qemu, *libvirt;	/* versions, "7.2.0" */
	char *arch;		/* <host><cpu><arch> of its capabilities */
	char *cpu_model;	/* <host><cpu><model>, "" if none */
	char *hostname;		/* virConnectGetHostname() */
	int kvm;		/* its capabilities offer <domain type='kvm'> */
	int arm64;		/* it boots arm64 guests (vm_conn_boots_arch) */
	char arm64_why[256];	/* why not, when !arm64 */
	unsigned int cores;
	unsigned long long mem_mib;	/* node memory */
	unsigned long long avail_mib;	/* free + buffers + cached */
	int pool_ok;		/* its pool is there and active */
	unsigned long long pool_avail_mib, pool_cap_mib;
	int mmci_domains;	/* active domains named mmci-* */
	/* set by the boot pool (measure.c) */
	int slots, running, lost;
};

/* the hosts of MMCI_LIBVIRT_URIS (or vm_uri()), not probed yet */
size_t hosts_list(struct host **out);

/* fill @h from its libvirt; 0, or -1 with @h->error when it is down */
int host_probe(struct host *h);

struct _virConnect;
/*
 * hostprobe.c: fill @h's versions, capabilities, node info and count of
 * running mmci domains from @conn (not its pool or free memory); 0, or
 * -1 with @h->error
 */
int host_probe_conn(struct _virConnect *conn, struct host *h);

/* does @h answer at all? (connect and ask its version) */
int host_alive(const char *uri);

/* boots of @need_mib each that fit on @h now, by cores and memory */
int host_capacity(const struct host *h, long long need_mib);

/* do boots on @a and @b give the same icount values? */
int host_same_icount_setup(const struct host *a, const struct host *b);

/*
 * When vm_uri() does not answer and MMCI_LIBVIRT_URIS names a host that
 * does, make that one MMCI_LIBVIRT_URI for the rest of this process (a
 * daemon slot whose host went away still runs its job). Returns 1 when
 * it moved, 0 when it stays, -1 when no host answers.
 */
int hosts_pick_home(void);

void hosts_release(struct host *h, size_t n);

#endif
