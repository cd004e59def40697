/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virt.h - libvirt calls shared by mmci and the root parent (virt.c).
 */
#ifndef MMCI_VIRT_H
#define MMCI_VIRT_H

#include <libvirt/libvirt.h>

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
