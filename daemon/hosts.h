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

#include "host.h"


/* the hosts of MMCI_LIBVIRT_URIS (or vm_uri()), not probed yet */
size_t hosts_list(struct host **out);

/* fill @h from its libvirt; 0, or -1 with @h->error when it is down */
int host_probe(struct host *h);

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
