// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-hosts.c - `mmci hosts`: what this host's guests run on, the
 * libvirt hosts boots may go to (hosts.h) with what libvirt says of
 * them, the job queue, and the stored KVM verdicts (accel.h); `--forget`
 * deletes those.
 */
#include <getopt.h>

#include "accel.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "hosts.h"
#include "kvm-probe.h"
#include "util.h"
#include "vm.h"

static const char hosts_usage[] =
	"usage: mmci hosts [--forget [--all]]\n"
	"\n"
	"Show this host's set-up (kernel release, QEMU version, CPU model),\n"
	"what the KVM probe says and the stored verdicts: whether a Linux\n"
	"guest printed its first console line within the deadline under KVM\n"
	"(the first KVM boot on a host set-up is that trial). Then each\n"
	"libvirt host of MMCI_LIBVIRT_URIS (or MMCI_LIBVIRT_URI): whether it\n"
	"answers, its QEMU, architecture, CPU model, cores and memory, its\n"
	"storage pool (MMCI_LIBVIRT_POOL, needed by a remote host), whether\n"
	"it boots arm64 guests (QEMU's virt machine and the UEFI firmware),\n"
	"the mmci guests running there, and room for more; and the job\n"
	"queue.\n"
	"  --forget   delete this host's verdict: the next KVM boot is a\n"
	"             trial again (after a new host kernel, QEMU or CPU, the\n"
	"             set-up differs and a trial happens by itself)\n"
	"  --all      with --forget: every stored verdict\n";

static void list_libvirt_hosts(struct db *db)
{
	struct host *h;
	size_t n = hosts_list(&h), i;

	printf("\nlibvirt hosts (%s):\n", getenv("MMCI_LIBVIRT_URIS") &&
	       *getenv("MMCI_LIBVIRT_URIS") ? "MMCI_LIBVIRT_URIS" :
	       "MMCI_LIBVIRT_URI");
	for (i = 0; i < n; i++) {
		if (host_probe(&h[i]) < 0) {
			printf("  %s: down: %s\n", h[i].uri, h[i].error);
			continue;
		}
		printf("  %s: up, %s, QEMU %s, libvirt %s, %s %s, %u cores, "
		       "%llu MiB (%llu available)\n", h[i].uri,
		       h[i].remote ? "remote" : "local",
		       h[i].qemu, h[i].libvirt, h[i].arch,
		       *h[i].cpu_model ? h[i].cpu_model : "(no CPU model)",
		       h[i].cores, h[i].mem_mib, h[i].avail_mib);
		if (h[i].pool_ok)
			printf("    pool '%s': %llu of %llu MiB free\n",
			       vm_pool_name(), h[i].pool_avail_mib,
			       h[i].pool_cap_mib);
		else
			printf("    pool '%s': %s\n", vm_pool_name(),
			       h[i].remote ? "missing or inactive: boots "
			       "cannot go there" : "none (not needed)");
		if (h[i].arm64)
			printf("    arm64 guests: yes (QEMU's virt machine and "
			       "its UEFI firmware)\n");
		else
			printf("    arm64 guests: no: %s\n", h[i].arm64_why);
		printf("    %d mmci guest(s) running; room for %d more of "
		       "1.5 GiB now\n", h[i].mmci_domains,
		       host_capacity(&h[i], 1536));
	}
	hosts_release(h, n);
	printf("jobs: %lld queued, %lld running\n",
	       db_int(db, 0, "SELECT count(*) FROM jobs WHERE status = "
		      "'queued'", ""),
	       db_int(db, 0, "SELECT count(*) FROM jobs WHERE status = "
		      "'running'", ""));
}

static void list_verdicts(struct db *db)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT host_release, qemu_version, cpu_model, usable, "
		"coalesce(round(first_line_s, 2), '-'), deadline_s, "
		"datetime(decided_at, 'unixepoch'), coalesce(hostname, ''), "
		"reason FROM kvm_verdicts ORDER BY decided_at DESC", "");
	int n = 0;

	if (!st)
		return;
	/* a failed read is said after the verdicts read before it */
	while (db_step(db, st) == DB_ROW) {
		if (!n++)
			printf("\nstored KVM verdicts:\n");
		printf("  %s | QEMU %s | %s\n    %s: first line %s s "
		       "(deadline %s s), %s on %s: %s\n",
		       db_col_text(st, 0), db_col_text(st, 1),
		       db_col_text(st, 2),
		       sqlite3_column_int(st, 3) ? "KVM runs guests" :
						   "KVM hangs guests",
		       db_col_text(st, 4), db_col_text(st, 5),
		       db_col_text(st, 6), db_col_text(st, 7),
		       db_col_text(st, 8));
	}
	sqlite3_finalize(st);
	if (!n)
		printf("\nno KVM verdict stored\n");
}

int cmd_hosts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "forget", no_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mmci_config cfg;
	struct db db;
	struct host_key k;
	char why[256];
	int c, forget = 0, all = 0, ret = 1, kvm;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': forget = 1; break;
		case 'a': all = 1; break;
		case 'h': fputs(hosts_usage, stdout); return 0;
		default: fputs(hosts_usage, stderr); return 129;
		}
	}
	if (optind != argc || (all && !forget)) {
		fputs(hosts_usage, stderr);
		return 129;
	}
	setup_command(&cfg, &db);
	host_key_init(&k);
	if (forget) {
		int n = accel_forget(&db, all ? NULL : &k);

		if (n < 0)
			goto out;
		printf("forgot %d KVM verdict(s): the next KVM boot on this "
		       "host is a trial\n", n);
		ret = 0;
		goto out;
	}
	printf("this host: kernel %s, QEMU %s, CPU %s\n", k.release, k.qemu,
	       k.cpu);
	kvm = kvm_usable(why, sizeof(why));
	printf("KVM probe: %s\n", why);
	if (kvm) {
		kvm = accel_expect_kvm(&db, why, sizeof(why));
		printf("guests: %s\n", kvm ? "KVM (a trial boot decides, "
		       "unless a verdict says it runs guests)" : why);
	} else {
		printf("guests: TCG\n");
	}
	printf("first-line deadline of a KVM trial: %u s\n",
	       accel_deadline_s());
	list_libvirt_hosts(&db);
	list_verdicts(&db);
	ret = 0;
out:
	host_key_release(&k);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
