/* SPDX-License-Identifier: GPL-2.0 */
/*
 * image.h - the guest's initramfs: busybox, the runner, the modules.
 */
#ifndef MMCI_IMAGE_H
#define MMCI_IMAGE_H

struct arch;
struct mmci_config;

/*
 * image_build - make (or reuse) the initramfs for a kernel.
 * @arch: the guest's arch (arch.h): its runner and busybox go in.
 * @release: kernel release; @modroot: directory holding lib/modules/<release>.
 * @out: path of the cpio.gz (caller frees); @sha1: its content hash.
 * The image is cached under <data>/images by the hashes of the runner,
 * the init script, the builder and the modules directory's path.
 */
int image_build(const struct mmci_config *cfg, const struct arch *arch,
		const char *release, const char *modroot, char **out,
		char sha1[41]);

#endif
