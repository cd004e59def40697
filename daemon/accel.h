/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accel.h - KVM or TCG for this host's guests, decided by a real boot.
 *
 * kvm-probe.c runs four real-mode instructions: enough to see that
 * /dev/kvm is missing or refuses ioctls, not enough to see a KVM on
 * which every Linux guest hangs after the switch out of real mode (an
 * empty console, QEMU at 95 % CPU; such hosts exist, docs/OPERATIONS.md).
 * So the probe is only the first filter. The first KVM boot on a host
 * set-up (host kernel release, QEMU version, host CPU model) is a trial:
 * the run's own kernel and initramfs, with ACCEL_DEADLINE_S for the
 * guest's first console line (a Linux guest under KVM prints within
 * about a second). Its verdict goes into the kvm_verdicts table; later
 * runs read it and boot no trial. Without a line the domain is
 * destroyed, the verdict says "hangs", and the run is made under TCG
 * (with icount unless a clock was asked for). `mmci hosts --forget`
 * deletes a verdict after the host changed.
 *
 * MMCI_ACCEL=tcg skips all of it; MMCI_ACCEL=kvm skips the probe and a
 * stored "hangs" verdict, boots the trial and fails within its deadline
 * when KVM hangs guests, instead of falling back.
 */
#ifndef MMCI_ACCEL_H
#define MMCI_ACCEL_H

#include <stddef.h>

struct arch;
struct db;
struct mmci_config;

/* s for a KVM guest's first console line; MMCI_KVM_DEADLINE_S overrides */
#define ACCEL_DEADLINE_S 10

struct accel_choice {
	int kvm;		/* 1: KVM, 0: TCG */
	char why[256];		/* one line: the reason, for log and run row */
};

/* what a verdict is keyed by; strings owned, host_key_release() frees */
struct host_key {
	char *release;		/* uname -r */
	char *qemu;		/* QEMU version libvirt reports */
	char *cpu;		/* host CPU model */
};

void host_key_init(struct host_key *k);
void host_key_release(struct host_key *k);

/* the deadline in force: ACCEL_DEADLINE_S or MMCI_KVM_DEADLINE_S */
unsigned int accel_deadline_s(void);

/**
 * accel_guest_native() - can guests of @a use the boot host's KVM at all,
 * i.e. is @a the arch of the host boots go to (this machine, or a staged
 * host as its capabilities say)? When not, @why says the guest is
 * emulated. MMCI_TEST_HOST_ARCH=aarch64 (tests only) stands for the host's
 * arch, so an arm64 guest's KVM path runs on an x86_64 host under
 * MMCI_TEST_KVM_SEAM (vm.h).
 */
int accel_guest_native(const struct arch *a, char *why, size_t whylen);

/**
 * accel_choose() - the accelerator of a run about to be created
 * @cfg, @db: where trials log and verdicts are kept
 * @a: the guest's arch (accel_guest_native() said yes): what a trial boots
 * @clock: the clock asked for ("icount" needs TCG), NULL = default
 * @kernel, @initrd: what a trial boots (the run's own kernel)
 * @c: the choice
 *
 * Decided once per process: the second run of a comparison gets the
 * first one's answer without asking libvirt again.
 *
 * Return: 0, or -1 after error() when MMCI_ACCEL=kvm cannot be honoured
 * (icount asked for, or a trial that showed KVM hangs guests).
 */
int accel_choose(const struct mmci_config *cfg, struct db *db,
		 const struct arch *a, const char *clock, const char *kernel,
		 const char *initrd, struct accel_choice *c);

/**
 * accel_expect_kvm() - would accel_choose() use KVM, as far as can be
 * told without a trial? (MMCI_ACCEL, the probe, a stored verdict)
 * @why: receives the reason; may be NULL
 */
int accel_expect_kvm(struct db *db, char *why, size_t whylen);

/*
 * Forget the stored KVM verdicts of host set-up @k, or of every set-up
 * (@k NULL): the next KVM boot is a trial again. The number forgotten,
 * or -1 after the database's error.
 */
int accel_forget(struct db *db, const struct host_key *k);

#endif
