// SPDX-License-Identifier: GPL-2.0
/*
 * arch-check.c - arch_check(): is this host's toolchain there for an
 * arch? Apart from arch.c, whose table the root parent (mmci-priv)
 * links without the process and file helpers this needs.
 */
#include "arch.h"
#include "fsutil.h"
#include "run-command.h"
#include "util.h"

int arch_check(const struct arch *a)
{
	/* the host's own: libvirt and the initramfs script say what lacks */
	if (arch_native(a))
		return 0;
	if (*a->cross) {
		char *gcc = xstrfmt("%sgcc", a->cross);
		char *found = find_in_path(gcc);
		int ok = found != NULL;

		if (!ok)
			error("arch %s: the cross compiler '%s' is missing: "
			      "install gcc-aarch64-linux-gnu (make setup)",
			      a->name, gcc);
		free(gcc);
		free(found);
		if (!ok)
			return -1;
	}
	if (!file_exists(a->qemu_binary))
		return error("arch %s: '%s' is missing: install %s (make "
			     "setup)", a->name, a->qemu_binary,
			     strcmp(a->kernel_arch, "arm64") ?
			     "qemu-system-x86" : "qemu-system-arm");
	if (arch_firmware(a) && (!file_exists(arch_firmware(a)) ||
				 !file_exists(arch_nvram_template(a))))
		return error("arch %s: the UEFI firmware '%s' is missing (the "
			     "NVDIMM is ACPI-only on virt): install "
			     "qemu-efi-aarch64 (make setup)", a->name,
			     arch_firmware(a));
	if (!file_exists(arch_busybox(a)))
		return error("arch %s: no static busybox at '%s' for the "
			     "initramfs: make setup downloads "
			     "busybox-static:arm64 there (or set "
			     "MMCI_ARM64_DIR)", a->name, arch_busybox(a));
	return 0;
}
