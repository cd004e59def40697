/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostfacts.h - what a run's numbers depend on outside the guest: the
 * host's CPU model and microcode, its frequency governor and turbo, SMT,
 * the host kernel, its load, and the other guests running beside a boot.
 *
 * Every run records the facts of the host that starts it (runs.host_facts,
 * JSON, at its start; runs.load_end at its end) and every boot how many
 * QEMU processes already ran when it started (boots.guests_beside), of
 * any job or controller. compare.c refuses a wall-clock comparison across
 * CPU model, microcode, SMT, governor, turbo or host kernel, naming the
 * difference, and flags load and guests beside a wall-clock boot; an
 * icount comparison across CPU models is flagged (icount counts guest
 * instructions, which a host CPU does not change, but QEMU's code paths
 * may). Facts are the controller's: a boot on a remote libvirt host has
 * the facts of the host that started it (the limit is said in
 * docs/OPERATIONS.md).
 */
#ifndef MMCI_HOSTFACTS_H
#define MMCI_HOSTFACTS_H

struct strbuf;

struct host_facts {
	char cpu[96];		/* /proc/cpuinfo "model name" */
	char microcode[24];	/* "0x..." or "" (a VM host has none) */
	char governor[24];	/* cpufreq of cpu0, "" without cpufreq */
	char turbo[8];		/* "on", "off", "" unknown */
	char smt[8];		/* "on", "off", "" unknown */
	char kernel[96];	/* uname -r */
	double load1;		/* /proc/loadavg, 1 min */
	int guests;		/* QEMU processes running */
};

/* the facts of this host now */
void host_facts_read(struct host_facts *f);

/*
 * host_facts_parse_cpuinfo() - model name and microcode of the first CPU
 * of /proc/cpuinfo's @text (x86's "model name", arm64's "CPU part" when
 * there is no model name). For tests; host_facts_read() uses it.
 */
void host_facts_parse_cpuinfo(const char *text, struct host_facts *f);

/* QEMU processes running on this host (any job, any user) */
int host_qemu_guests(void);

/* as JSON (runs.host_facts); the caller frees it */
char *host_facts_json(const struct host_facts *f);
/* back from JSON; 0, or -1 when @json is not host_facts_json()'s */
int host_facts_from_json(const char *json, struct host_facts *f);

/*
 * host_facts_differ() - the facts that make wall-clock numbers of @a and
 * @b incomparable, said in @out ("CPU 'X' vs 'Y', host kernel 6.1 vs
 * 6.12"). Return: how many differ.
 */
int host_facts_differ(const struct host_facts *a, const struct host_facts *b,
		      struct strbuf *out);

#endif
