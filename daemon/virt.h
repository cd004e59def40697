/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virt.h - libvirt calls shared by mmci and the root parent (virt.c).
 */
#ifndef MMCI_VIRT_H
#define MMCI_VIRT_H

#include <libvirt/libvirt.h>
#include <stddef.h>

struct arch;

/* libvirt's version number (major * 1000000 + ...) as "7.2.0" */
char *vm_version_string(unsigned long v);

/*
 * Can the host of @conn boot guests of @a? Its libvirt must find a QEMU
 * for the arch's machine and, for a UEFI arch, the firmware's code at
 * the path mmci writes in the domain (its domain capabilities). 1 yes,
 * 0 no with the reason in @why.
 */
int vm_conn_boots_arch(virConnectPtr conn, const struct arch *a,
		       char *why, size_t len);

/* the code of libvirt's last error, VIR_ERR_OK if none */
int vm_last_error_code(void);

/*
 * set the <requested> size of @dom's virtio-mem device to @mib, live;
 * 0, or -1 after error()
 */
int vmem_resize(virDomainPtr dom, unsigned long long mib);

/*
 * destroy @dom unless it is gone already (a transient domain vanishes
 * when it ends); an error only for a live host that refused
 */
void vm_destroy(virDomainPtr dom, const char *name);

#endif
