/* SPDX-License-Identifier: GPL-2.0 */
/*
 * domname.h - how mmci's libvirt domains are known: by their name's
 * prefix and our metadata element.
 */
#ifndef MMCI_DOMNAME_H
#define MMCI_DOMNAME_H

#define VM_NAME_PREFIX "mmci-"
/* namespace of our <metadata> element: who started the domain */
#define VM_METADATA_NS "https://mmci.invalid/xmlns/run/1"

#endif
