/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host.h - one libvirt host as its connection describes it (hosts.h
 * lists and picks them; virt.c fills one from a connection, for mmci
 * and for the root parent, mmci-priv).
 */
#ifndef MMCI_HOST_H
#define MMCI_HOST_H

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

struct _virConnect;
/*
 * virt.c: fill @h's versions, capabilities, node info and count of
 * running mmci domains from @conn (not its pool or free memory); 0, or
 * -1 with @h->error
 */
int host_probe_conn(struct _virConnect *conn, struct host *h);

#endif
