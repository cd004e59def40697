/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvm-probe.h - is hardware acceleration usable on this host?
 *
 * /dev/kvm can exist and accept ioctls while guests never run (nested
 * virtualisation without support underneath): a KVM guest then hangs
 * instead of failing. The probe runs a few real-mode instructions in a
 * throw-away VM, in a child process, and gives up after a short deadline.
 */
#ifndef MMCI_KVM_PROBE_H
#define MMCI_KVM_PROBE_H

#include <stddef.h>

/* how long the parent waits for the probe child */
#define KVM_PROBE_TIMEOUT_MS 2000

/**
 * kvm_usable() - probe /dev/kvm with a tiny guest
 * @why: receives a short human-readable reason ("KVM_RUN hung for 2 s",
 *       "KVM usable", "forced by MMCI_ACCEL=tcg"); may be NULL
 * @whylen: size of @why
 *
 * MMCI_ACCEL=kvm or MMCI_ACCEL=tcg in the environment skips the probe and
 * forces the answer. Any other value of MMCI_ACCEL is ignored with a
 * warning. Under the test seam MMCI_TEST_KVM_SEAM (vm.h) the answer is
 * yes. A yes is only the first filter: accel.h decides by a real boot.
 *
 * Return: 1 if KVM guests run, 0 if not. Never fails otherwise.
 */
int kvm_usable(char *why, size_t whylen);

#endif
