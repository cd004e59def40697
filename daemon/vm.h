/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - boot one test guest through libvirt and wait for its end.
 *
 * A guest is a transient libvirt domain started with
 * VIR_DOMAIN_START_AUTODESTROY: if mmci dies, libvirt destroys the guest
 * when the connection closes, so nothing leaks. The domain XML comes from
 * a template (vm-images/domain.xml.in) with @NAME@ placeholders, whose
 * values are XML-escaped, and "@if FLAG@ ... @endif@" blocks.
 *
 * The guest writes its console to ttyS0 and the runner's JSON lines to
 * ttyS1; libvirt sends both 16550 ports to host files, which it truncates
 * at start. The guest ends by powering itself off.
 */
#ifndef MMCI_VM_H
#define MMCI_VM_H

/* the most a profiling boot's plugin may write (profile.c reads it) */
#define VM_PLUGIN_OUT_MAX (256u << 20)

#include "domname.h"
#include "strbuf.h"

struct arch;

#define VM_DEFAULT_TEMPLATE "vm-images/domain.xml.in"
#define VM_DEFAULT_URI "qemu:///system"	/* MMCI_LIBVIRT_URI overrides */
/* the storage pool of a remote host (MMCI_LIBVIRT_POOL overrides) */
#define VM_DEFAULT_POOL "mmci"
#define VM_DEFAULT_VCPUS 2
#define VM_DEFAULT_RAM_MIB 1024
/* TCG only; KVM guests get host-passthrough */
#define VM_DEFAULT_CPU_MODEL "qemu64"

struct vm_spec {
	const char *name;	/* domain name, must start with "mmci-" */
	/* the guest's arch (arch.h), NULL = x86_64 */
	const struct arch *arch;
	/*
	 * arm64: the guest's UEFI variable store, a copy of the firmware's
	 * template that libvirt makes at start; vm_run() deletes it at
	 * the end (on a staged host a volume of the pool takes its place,
	 * vm_stage()). Ignored for x86_64.
	 */
	const char *nvram_path;
	const char *kernel;	/* bzImage */
	const char *initrd;	/* NULL = none */
	const char *cmdline;	/* NULL = empty */
	const char *console_log;	/* host file receiving ttyS0 */
	const char *results_log;	/* host file receiving ttyS1 */
	unsigned int vcpus;	/* 0 = VM_DEFAULT_VCPUS, or 1 with icount */
	unsigned long long ram_mib;	/* MiB, 0 = VM_DEFAULT_RAM_MIB */
	const char *nvdimm_path;	/* sparse backing file, NULL = none */
	unsigned long long nvdimm_mib;	/* MiB */
	int unlink_backing;	/* unlink nvdimm_path once QEMU has it open */
	/* KiB of label area; 0 = none: a raw namespace0.0 for nd_pmem */
	unsigned int nvdimm_label_kib;
	unsigned long long virtio_mem_max_mib;	/* MiB, 0 = no virtio-mem */
	int kvm;		/* 1 = <domain type='kvm'>, 0 = TCG */
	int icount;		/* 1 = -icount shift=0,sleep=off (TCG only);
				 * QEMU 7.2 then hangs bringing up a second
				 * vCPU, so icount guests get 1 vCPU */
	/*
	 * TCG only: QEMU's -plugin argument, "FILE.so,out=PATH" (a
	 * profiling boot, profile.h); NULL = none
	 */
	const char *plugin;
	/*
	 * The plugin's output file (PATH above). Under mmci-priv the
	 * parent loads its own plugin (runner/mmci-profile.so beside it)
	 * and hands back what it wrote, copied here at the end.
	 */
	const char *plugin_out;	/* at most VM_PLUGIN_OUT_MAX bytes */
	const char *cpu_model;	/* TCG CPU model, NULL = the arch's
				 * (VM_DEFAULT_CPU_MODEL for x86_64) */
	int pin;		/* vCPU i on host CPU ncpus - vcpus + i (<= 2) */
	unsigned int timeout_s;	/* s, hard limit for boot + run; 0 = none */
	/*
	 * s the guest has to print its first console line (the kernel's or
	 * the initramfs's, vm_console_started(); firmware lines do not
	 * count); 0 = no such deadline. Past it the domain is destroyed and
	 * the boot ends as VM_SILENT: a KVM that hangs Linux guests after
	 * the switch out of real mode looks like this (docs/OPERATIONS.md).
	 */
	unsigned int first_line_s;
	int stop_at_first_line;	/* destroy the guest once it printed (a
				 * trial boot): ends as VM_STOPPED */
	const char *template_path;	/* NULL = VM_DEFAULT_TEMPLATE */
	/* "run #3 boot 1": names the boot in the status line, which shows
	 * the runner's last sample (progress_status()); NULL = none */
	const char *label;
	/*
	 * 1 = the serial ports are ptys that vm_run() reads through libvirt
	 * streams (virDomainOpenConsole) into console_log and results_log;
	 * set by vm_run() for a remote host, whose files mmci cannot read.
	 */
	int streams;
	/*
	 * NULL, or does domain @name belong to a boot known to be over?
	 * Then volumes of that name left on a staged host are removed at
	 * once, not only after VM_STALE_VOLUME_S (vm.c); run.c asks its
	 * database.
	 */
	int (*boot_over)(const char *name, void *opaque);
	void *boot_over_data;
};

enum vm_exit_kind {
	VM_POWEROFF,		/* the guest powered itself off */
	VM_TIMEOUT,		/* timeout_s passed; mmci destroyed the guest */
	VM_CRASHED,		/* kernel panic, unexpected reboot, QEMU died */
	VM_START_FAILED,	/* the domain could not be started */
	VM_SILENT,		/* no console line within first_line_s */
	VM_STOPPED,		/* stopped after its first line, as asked */
	VM_INTERRUPTED,		/* mmci got SIGTERM/SIGINT (interrupt.h) */
	VM_HOST_LOST,		/* the connection to its libvirt broke */
};

struct vm_result {
	enum vm_exit_kind exit_kind;
	double start_s;		/* s spent in virDomainCreateXML */
	double boot_to_end_s;	/* s from the start request to the guest's
				 * poweroff (libvirt's SHUTDOWN event) */
	double first_line_s;	/* s from the start request to the guest's
				 * first console line, 0 = none seen */
	char *qemu_version;	/* "7.2.0", caller frees (vm_result_release) */
	char *libvirt_version;	/* "9.0.0", caller frees */
	char *domain_xml;	/* the XML libvirt was given, caller frees */
	char error[256];	/* why, when exit_kind != VM_POWEROFF */
	/* what the host did on the guest's requests, a line each */
	struct strbuf host_log;
	/*
	 * wall clock: the host-side times of the virtio-mem resizes, as
	 * sample records in the runner's format (plug_host, unplug_host)
	 */
	struct strbuf host_samples;
};

/**
 * vm_run() - boot a guest and wait until it powers off, crashes or times out
 * @spec: what to boot
 * @res: filled on every path; release with vm_result_release()
 *
 * The domain is destroyed on every path before vm_run() returns.
 *
 * A local guest first waits for the host's cores while a build holds
 * them (MMCI_CPU_LOCK, fsutil.h).
 *
 * Return: 0 when the guest ran (its end is in @res->exit_kind, a timeout
 * or a crash is not an error), -1 when it did not start: after error()
 * (@res->exit_kind = VM_START_FAILED, @res->error says why), or stopped
 * while it waited for the cores (VM_INTERRUPTED, no error() printed).
 */
int vm_run(const struct vm_spec *spec, struct vm_result *res);
/* why a vm_run() that returned -1 started no guest, for the boot's row */
void vm_not_started_why(const struct vm_result *res, struct strbuf *why);

void vm_result_release(struct vm_result *res);
const char *vm_exit_kind_name(enum vm_exit_kind kind);

/**
 * vm_console_started() - has the guest's OS printed on its console?
 * @log: what the console log holds so far
 *
 * True for a line of the kernel (a printk time stamp, "Linux version",
 * "Booting Linux", the EFI stub, a panic) or of mmci's initramfs
 * ("mmci: "); firmware output (SeaBIOS, iPXE, UEFI) does not count.
 */
int vm_console_started(const char *log);

/*
 * MMCI_TEST_KVM_SEAM=hang|works, for tests on hosts without KVM: a domain
 * asked for with kvm = 1 is made a TCG domain instead, and with "hang" it
 * is started paused, so it never prints, as a guest on a KVM that hangs
 * Linux guests; kvm_usable() then says yes. Returns "hang", "works" or
 * NULL (unset); any other value is refused at the first use.
 */
const char *vm_test_kvm_seam(void);

/* domxml.c: the domain's XML and its NVDIMM backing file */

/* @path made absolute against the current directory; caller frees */
char *vm_absolute_path(const char *path);

/**
 * vm_domain_xml() - expand a domain template for @spec
 * @spec: the guest; relative paths are made absolute against the cwd
 * @tmpl: template text (the contents of vm-images/domain.xml.in)
 * @out: receives the XML
 *
 * Pure apart from getcwd() and getpid(): no libvirt, no file access.
 *
 * Return: 0, or -1 after error() for an invalid spec or template.
 */
int vm_domain_xml(const struct vm_spec *spec, const char *tmpl,
		  struct strbuf *out);

/**
 * vm_create_backing() - create a fresh sparse NVDIMM backing file
 * @path: file to create; an existing file is emptied first, so every
 *        boot starts from holes
 * @mib: size in MiB
 *
 * Return: 0, or -1 after error().
 */
int vm_create_backing(const char *path, unsigned long long mib);

/* "tmpfs" or "disk": what backs @path, to record with a run */
const char *vm_backing_kind(const char *path);

/* where NVDIMM backing files on tmpfs go: mmci-<pid>-run<R>-boot<B>.nvdimm */
#define VM_TMPFS_DIR "/dev/shm"

/**
 * vm_cleanup_stale() - destroy and undefine "mmci-*" domains left behind,
 * and remove the tmpfs NVDIMM backing files of dead processes
 *
 * A domain whose metadata names a live process other than us (another
 * mmci running a guest right now) is left alone.
 *
 * Return: the number of domains and files removed, or -1 after error().
 */
int vm_cleanup_stale(void);

/* QEMU and libvirt daemon versions ("7.2.0", "9.0.0"); caller frees */
int vm_versions(char **qemu, char **libvirt);


/*
 * Remote hosts. A URI naming a host (qemu+tcp://h/system, qemu+ssh://...)
 * cannot see this machine's files: vm_run() uploads the kernel and the
 * initramfs into the host's storage pool (vm_pool_name()), makes the
 * NVDIMM a sparse volume there, uploads an arm64 guest's UEFI variables
 * (the firmware's template) as a volume too, deletes them when the boot
 * ends, and reads both ports (an arm64 guest's PL011 and virtio console)
 * through libvirt streams into the local logs.
 */
int vm_uri_is_remote(const char *uri);

/*
 * does vm_run() stage through the pool? For a remote URI, or when
 * MMCI_LIBVIRT_STAGE=pool (a libvirtd that cannot see this machine's
 * files although it runs on it, e.g. in a container)
 */
int vm_staged(void);
const char *vm_pool_name(void);
/* MMCI_LIBVIRT_URI, or VM_DEFAULT_URI */
const char *vm_uri(void);

#endif
