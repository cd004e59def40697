// SPDX-License-Identifier: GPL-2.0
/*
 * virt.c - the libvirt calls mmci (vm.c, hosts.c) and the root parent
 * (mmci-priv, mmci-priv.c) both make: what a connection says of its host
 * (versions, capabilities, node info, its running mmci guests), a live
 * virtio-mem resize, destroying a domain. No parser but libvirt's own
 * XML, read with strstr().
 */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "domname.h"
#include "host.h"
#include "strbuf.h"
#include "util.h"
#include "virt.h"

char *vm_version_string(unsigned long v)
{
	return xstrfmt("%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

/* the text of the first <tag>...</tag> inside <host>, or "" */
static char *caps_host_field(const char *caps, const char *tag)
{
	const char *host = strstr(caps, "<host>"), *end, *p, *q;
	char open[32];

	if (!host)
		return xstrdup("");
	end = strstr(host, "</host>");
	xsnprintf(open, sizeof(open), "<%s>", tag);
	p = strstr(host, open);
	if (!p || (end && p > end))
		return xstrdup("");
	p += strlen(open);
	q = strchr(p, '<');
	return q ? xstrndup(p, q - p) : xstrdup("");
}

int vm_conn_boots_arch(virConnectPtr conn, const struct arch *a,
		       char *why, size_t len)
{
	const char *fw = arch_firmware(a);
	char *caps, *value;
	int ok;

	caps = virConnectGetDomainCapabilities(conn, NULL, a->qemu_arch,
					       a->machine, "qemu", 0);
	if (!caps) {
		snprintf(why, len, "no QEMU for %s guests: %s", a->qemu_arch,
			 virGetLastErrorMessage());
		return 0;
	}
	/* its firmware among the loaders libvirt found (firmware JSONs) */
	value = fw ? xstrfmt("<value>%s</value>", fw) : NULL;
	ok = !value || strstr(caps, value) != NULL;
	if (!ok)
		snprintf(why, len, "no UEFI firmware '%s' for %s guests "
			 "(install qemu-efi-aarch64 there)", fw, a->name);
	free(value);
	free(caps);
	return ok;
}

int host_probe_conn(virConnectPtr conn, struct host *h)
{
	virNodeInfo ni;
	virDomainPtr *doms = NULL;
	unsigned long hv = 0, lib = 0;
	char *caps;
	int i, n;

	if (virConnectGetVersion(conn, &hv) < 0 ||
	    virConnectGetLibVersion(conn, &lib) < 0 ||
	    virNodeGetInfo(conn, &ni) < 0) {
		snprintf(h->error, sizeof(h->error), "%s",
			 virGetLastErrorMessage());
		return -1;
	}
	h->qemu = vm_version_string(hv);
	h->libvirt = vm_version_string(lib);
	h->cores = ni.cpus;
	h->mem_mib = ni.memory >> 10;
	caps = virConnectGetCapabilities(conn);
	h->arch = caps_host_field(caps ? caps : "", "arch");
	h->kvm = caps && strstr(caps, "<domain type='kvm'") != NULL;
	h->hostname = virConnectGetHostname(conn);
	if (!h->hostname)
		h->hostname = xstrdup("unknown");
	h->cpu_model = caps_host_field(caps ? caps : "", "model");
	free(caps);
	h->arm64 = vm_conn_boots_arch(conn, arch_get("arm64"), h->arm64_why,
				      sizeof(h->arm64_why));
	n = virConnectListAllDomains(conn, &doms,
				     VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && starts_with(name, VM_NAME_PREFIX))
			h->mmci_domains++;
		virDomainFree(doms[i]);
	}
	free(doms);
	return 0;
}

int vm_last_error_code(void)
{
	virErrorPtr err = virGetLastError();

	return err ? err->code : VIR_ERR_OK;
}

/*
 * Replace the text of <requested ...>N</requested> inside the virtio-mem
 * element of a live domain XML; *out gets the element alone.
 */
static int vmem_element(const char *xml, unsigned long long kib,
			struct strbuf *out)
{
	const char *start = strstr(xml, "<memory model='virtio-mem'");
	const char *end = start ? strstr(start, "</memory>") : NULL;
	const char *req, *req_end, *gt;

	if (!end)
		return error("no virtio-mem device in the live domain XML");
	end += strlen("</memory>");
	req = strstr(start, "<requested");
	gt = req && req < end ? strchr(req, '>') : NULL;
	req_end = gt ? strstr(gt, "</requested>") : NULL;
	if (!req_end || req_end > end)
		return error("no <requested> in the virtio-mem device");
	strbuf_reset(out);
	strbuf_add(out, start, req - start);
	strbuf_addf(out, "<requested unit='KiB'>%llu", kib);
	strbuf_add(out, req_end, end - req_end);
	return 0;
}

int vmem_resize(virDomainPtr dom, unsigned long long mib)
{
	struct strbuf el = STRBUF_INIT;
	char *xml = virDomainGetXMLDesc(dom, 0);
	int ret = -1;

	if (!xml)
		return error("cannot read the live domain XML: %s",
			     virGetLastErrorMessage());
	if (vmem_element(xml, mib << 10, &el) == 0) {
		if (virDomainUpdateDeviceFlags(dom, el.buf,
					       VIR_DOMAIN_AFFECT_LIVE) < 0)
			error("virDomainUpdateDeviceFlags: %s",
			      virGetLastErrorMessage());
		else
			ret = 0;
	}
	free(xml);
	strbuf_release(&el);
	return ret;
}

/* destroy @dom unless it is gone already; a transient domain vanishes */
void vm_destroy(virDomainPtr dom, const char *name)
{
	int code;

	if (!virDomainDestroy(dom))
		return;
	code = vm_last_error_code();
	/* a host that went away took its domains along */
	if (!virConnectIsAlive(virDomainGetConnect(dom)))
		return;
	if (code != VIR_ERR_NO_DOMAIN && code != VIR_ERR_OPERATION_INVALID)
		error("cannot destroy domain '%s': %s", name,
		      virGetLastErrorMessage());
}
