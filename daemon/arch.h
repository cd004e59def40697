/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch.h - the guest architectures mmci builds and boots (docs/ARM64.md).
 *
 * An arch is part of a run's set-up, like the clock mode: its kernel is
 * built for it (cross-compiled when it is not the host's), its guest is
 * a QEMU machine of its own, and runs of two arches are never compared.
 * "arm64" and "arm64-64k" are one CPU architecture but two set-ups: the
 * page size changes what is measured (a 100 GiB namespace has 16 times
 * fewer struct pages with 64 KiB pages) and which alignments exist.
 *
 * x86_64 is the default and adds nothing to any key: its build cache
 * keys, config step keys and set-up hashes are those of before arches.
 */
#ifndef MMCI_ARCH_H
#define MMCI_ARCH_H

#include <stddef.h>

struct arch {
	const char *name;	/* "x86_64", "arm64", "arm64-64k" */
	const char *kernel_arch;	/* make ARCH=: "x86", "arm64" */
	const char *cross;	/* CROSS_COMPILE prefix, "" native */
	const char *image_target;	/* "bzImage", "Image" */
	const char *image_path;	/* under the object directory */
	/* fragments merged after the user's, kernel-patches/config/ */
	const char *fragments[3];
	const char *qemu_arch;	/* <type arch=>: "x86_64", "aarch64" */
	const char *qemu_binary;	/* for the error naming its package */
	const char *machine;	/* "q35", "virt" */
	const char *cpu_model;	/* TCG CPU model */
	const char *console;	/* the guest's console device */
	const char *results;	/* where the runner writes: "/dev/ttyS1" */
	const char *runner;	/* project path of the static runner */
	/* modules the initramfs loads after the usual ones, or NULL */
	const char *modules;
	unsigned int page_kib;	/* 4 or 64 */
	/*
	 * The guest RAM (MiB) from which 1 GiB of it is above 4 GiB, in
	 * ZONE_NORMAL: q35 keeps 2 GiB below 4 GiB once it has 2.75 GiB;
	 * virt's RAM starts at 1 GiB. Below it the guest has no ZONE_NORMAL
	 * of its own (run.c's guest_ram_mib()).
	 */
	unsigned int normal_ram_mib;
};

#define ARCH_DEFAULT "x86_64"
/* every name, for usage and errors */
#define ARCH_NAMES "x86_64, arm64 (4 KiB pages) or arm64-64k (64 KiB pages)"

/* the arch called @name (NULL: the default); NULL after error() */
const struct arch *arch_get(const char *name);
/* the same, NULL without a word */
const struct arch *arch_find(const char *name);

/* 1 when @a is the host's own: no cross compiler, KVM possible */
int arch_native(const struct arch *a);

/* the UEFI firmware of @a and its nvram template; NULL for x86_64 */
const char *arch_firmware(const struct arch *a);
const char *arch_nvram_template(const struct arch *a);

/* the static busybox of @a's initramfs (MMCI_ARM64_DIR for arm64) */
const char *arch_busybox(const struct arch *a);

/*
 * Can @a be built and booted here? For another arch than the host's:
 * checks the cross compiler, QEMU's system emulator, the firmware and
 * busybox, and names the missing package. 0, or -1 after error().
 */
int arch_check(const struct arch *a);

/*
 * The path of @a's @i-th own fragment under @project_dir's
 * kernel-patches/config/, or NULL past the last; caller frees.
 */
char *arch_fragment(const struct arch *a, size_t i, const char *project_dir);

/*
 * Fragment options that do not exist on @a and are not checked in its
 * .config (mmci.config's x86-only lines): "# mmci-arch-skip: NAME ..."
 * lines of @a's fragments, as " NAME " words. Owned by the caller.
 */
char *arch_skip_options(const struct arch *a, const char *project_dir);

/*
 * An alignment list for @a: on a 64 KiB-page kernel 2M (a PMD with 4 KiB
 * pages) is refused by the kernel, and 512M is its PMD size; 2M becomes
 * 512M, with a warning that says so. A new string, or NULL when nothing
 * changed.
 */
char *arch_fix_align(const struct arch *a, const char *what,
		     const char *list);

#endif
