/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the run stage: boot a kernel, let the runner time the
 * workloads, store every sample.
 *
 * A run is one kernel with one set of parameters; it has one or more
 * boots. The boot is the unit of replication (docs/STATISTICS.md): in
 * wall-clock mode the same kernel moves 7-10 % from boot to boot, so `mmci
 * test-series` interleaves the boots of two runs (base, new, base, new).
 */
#ifndef MMCI_RUN_H
#define MMCI_RUN_H

struct build_result;
struct db;
struct json_t;
struct mmci_config;
struct strbuf;
struct vm_spec;

struct run_opts {
	const char *label;
	long long job_id;             /* jobs.id owning the run, 0 none */
	long long build_id;           /* 0 for a prebuilt kernel */
	const char *kernel;           /* bzImage / vmlinuz */
	const char *modroot;          /* holds lib/modules/<release> */
	const char *initrd;           /* NULL: build the runner's initramfs */
	const char *release;
	int hz;                       /* CONFIG_HZ, 0 unknown */
	const char *workloads;        /* "fsdax", "fsdax,devdax" */
	int iters;                    /* rebinds per boot */
	/* fsdax/devdax variants: lists of sizes ("2M", "4K,2M,1G") */
	const char *fsdax_align;
	const char *devdax_align;
	const char *map;              /* "dev", "mem" or "dev,mem" */
	const char *vmem_sizes;       /* virtio-mem plug steps, "8G,16G" */
	unsigned int hotplug_iters;   /* virtio-mem/kmem cycles per boot */
	const char *kmem_online;      /* "online,online_movable" */
	const char *vmem_online;      /* "online_movable" */
	const char *kmem_memmap;      /* "ram,on_memory" */
	const char *memremap_size;    /* DEVICE_PRIVATE range, "64G" */
	int memmap_on_memory;         /* memory_hotplug.memmap_on_memory=:
	                               * 1, 0, -1 = as kmem needs it */
	const char *extra;            /* more mmci.key=value words, or NULL */
	int pin;                      /* pin each vCPU to its own host CPU:
	                               * 1, 0, or -1 = in wall mode when the
	                               * host has the CPUs */
	unsigned long long nvdimm_mib;
	unsigned long long ram_mib;   /* 0 = from the workloads */
	unsigned int vcpus;
	const char *clock;            /* "icount", "wall" or NULL = default */
	const char *backing;          /* "tmpfs", "disk" or NULL = auto */
	unsigned int timeout_s;       /* per boot; 0 = from the size */
	const char *arch;             /* arch.h's name, NULL = x86_64; the
	                               * kernel must be built for it */
};

/*
 * struct run_row - one row of `runs`, typed, and what belongs to it: the
 * counts of its boots, its parameters parsed, and the builds row of the
 * kernel it booted. Loaded by run_load() only; every reader of one run's
 * row uses it. Strings are owned and never NULL: "" stands for SQL NULL
 * (a column not recorded).
 */
struct run_row {
	long long id;
	long long job_id;             /* 0: none */
	long long build_id;           /* 0: a prebuilt kernel */
	char *label, *status, *error;
	char *kernel, *release, *modroot, *initrd;
	char *workloads;              /* comma list */
	char *params;                 /* JSON text as stored */
	char *accel, *clock, *backing, *host;
	char *arch;                   /* arch.h: "x86_64", "arm64", ... */
	char *qemu_v, *libvirt_v, *runner_sha1, *initrd_sha1;
	int hz;                       /* runs.hz: CONFIG_HZ, 0 unknown */
	long long vcpus;
	long long ram_mib;            /* MiB */
	long long nvdimm_mib;         /* MiB */
	double started_at, ended_at;  /* s since the epoch; ended -1: not */
	int boots, ok_boots;          /* boots rows: all, status 'ok' */
	double boot_s;                /* s, total duration of its boots */

	/* params, parsed once */
	struct json_t *pj;            /* the object, NULL when not JSON */
	int params_ok;                /* cmdline and timeout_s are there, as
	                               * run_create() writes them */
	char *cmdline;                /* guest command line, "" if absent */
	long long timeout_s;          /* s, per boot; 0 absent */
	long long vmem_max_mib;       /* MiB, virtio-mem maximum; 0 none */
	int pin;                      /* vCPUs pinned: 1, 0, -1 not recorded */

	/* the builds row of build_id; build_found 0 when there is none */
	int build_found;
	char *commit, *fragment, *config_hash, *dotconfig_hash, *compiler;
	long long series_id;          /* 0: a base, not a series */
	int upto;                     /* patches applied */
	int build_hz;                 /* builds.hz, 0 unknown */
};

/*
 * run_load() - read run @id into @r (the one loader of a run's row).
 * Unreadable parameters are no error here (an older mmci wrote them):
 * @r->params_ok says whether the parsed fields are there.
 * Return: 0, or -1 after error() ("no run #ID in 'DB' ..." when there
 * is none); @r is then empty and needs no run_row_release().
 */
int run_load(struct db *db, long long id, struct run_row *r);
/* free what @r owns and zero it */
void run_row_release(struct run_row *r);
/*
 * run_store_imported() - store a finished run made elsewhere (a bundle's)
 * from @r: label, build_id (0: none), kernel, release, modroot, hz,
 * workloads, params, accel, clock, vCPUs, RAM, NVDIMM, backing, versions,
 * host, runner and initrd hashes, initrd, status, error, started_at,
 * ended_at, arch; @setup_sha1 and @concurrent (< 1: 1) beside. Checks the
 * words and bounds the schema cannot. The runs table's writer is this
 * file. Return: 0 with *@run_id, or -1 after error().
 */
int run_store_imported(struct db *db, const struct run_row *r,
		       const char *setup_sha1, int concurrent,
		       long long *run_id);
/* one boot of such a run (no console, no domain): 0 with *@boot_id, -1 */
int run_store_imported_boot(struct db *db, long long run_id, int idx,
			    const char *status, const char *end_kind,
			    const char *why, double duration_s,
			    long long *boot_id);

/*
 * run_setup_shape() - the machine a run had, in the words of the tables
 * and mails: "4096 MiB NVDIMM on tmpfs, 6144 MiB RAM, 2 vCPU(s) pinned".
 * Two runs are comparable only when theirs are equal (compare.c).
 * Appended to @out.
 */
void run_setup_shape(const struct run_row *r, struct strbuf *out);
/* "tcg/icount, " then run_setup_shape(): a run's mode and machine */
void run_setup_line(const struct run_row *r, struct strbuf *out);
/*
 * run_sql_functions() - give @db's queries mmci_run_setup(accel, clock,
 * arch, nvdimm_mib, backing, ram_mib, vcpus, pin), run_setup_line() of
 * those columns (pin NULL: not recorded), so that what groups runs in SQL
 * (a trend's lines) is what compare.c compares. 0, or -1 after error().
 */
int run_sql_functions(struct db *db);

void run_opts_init(struct run_opts *o);

/*
 * run_opts_kernel - the kernel of `--build ID` (build_id != 0: its
 * artifacts, release and HZ, strings owned by *keep) or of o->kernel, a
 * prebuilt /boot/vmlinuz-REL (release from the name unless given, HZ from
 * /boot/config-REL; a release it had to guess goes to *release, which the
 * caller frees). Returns 0, or -1 after error().
 */
int run_opts_kernel(struct db *db, long long build_id, struct run_opts *o,
		    struct build_result *keep, char **release);

/*
 * run_host_need_mib() - the host memory in MiB a run of @o touches, as
 * run_create() counts it when it refuses a virtio-mem run that does not
 * fit (run.c, vmem_plan()): the guest's RAM, which holds the memmaps of
 * plugged memory, of map=mem binds and of memremap, the NVDIMM's memmap
 * when its file goes on tmpfs, and 1 GiB to spare. @why gets those parts
 * in words. Compare with mem_available_mib() (fsutil.h).
 * Return: MiB, or -1 after error() (bad workloads or sizes).
 */
long long run_host_need_mib(const struct run_opts *o, struct strbuf *why);

/* create the run row and its initramfs; *run_id out */
int run_create(const struct mmci_config *cfg, struct db *db,
	       const struct run_opts *o, long long *run_id);
/*
 * run_boot - boot the run's kernel once and store its samples.
 * Returns 0 when the boot produced results, -1 (after error()) when it
 * failed; either way a boots row records what happened, except after
 * SIGTERM/SIGINT (interrupt.h), when no boot is started and no row made.
 */
int run_boot(const struct mmci_config *cfg, struct db *db, long long run_id,
	     int idx);
/* run_create + `boots` boots + run_finish; -1 when no boot was ok */
int run_boots(const struct mmci_config *cfg, struct db *db,
	      const struct run_opts *o, int boots, long long *run_id);
/*
 * mark the run ok when at least one boot is; returns the ok boot count,
 * or -1 after error() when the run's row cannot be written.
 * After SIGTERM/SIGINT (interrupt.h) an unfinished run is failed with
 * interrupt_reason() instead, and 0 is returned.
 */
int run_finish(struct db *db, long long run_id);

/*
 * run_vm_spec() - fill what @spec takes from run @r's row: kernel,
 * initramfs, command line, sizes, accelerator, clock, timeout. The
 * caller names the domain and gives its files (console, results, NVDIMM
 * backing, template). Used by run_boot() and by profile.c's boots.
 */
void run_vm_spec(const struct run_row *r, struct db *db, struct vm_spec *spec);

/* the NVDIMM backing file of boot @idx of run @run_id (tmpfs or disk) */
char *run_backing_path(const struct mmci_config *cfg, const char *backing,
		       long long run_id, int idx);

/*
 * run_find_reusable() - an earlier run whose icount values @run_id (just
 * made, not booted) would repeat: same build, workloads, parameters and
 * set-up (run.c, reuse_sql), status ok, with at least @min_boots ok boots.
 * icount values are the same on every boot of the same set-up
 * (docs/FACTS.md), so its boots stand for new ones. Never a wall-clock
 * run. Return: its id, 0 when there is none, -1 after error().
 */
long long run_find_reusable(struct db *db, long long run_id, int min_boots);

/*
 * run_same_setup() - whether runs @a and @b, booted or not, are of one
 * icount kernel and set-up: every column run_find_reusable() compares is
 * equal, both clocks icount. Two steps of one measure whose commits
 * differ only in files no build reads (measure_share_kernels()). Return:
 * 1 or 0, -1 after error().
 */
int run_same_setup(struct db *db, long long a, long long b);

/* delete run @run_id, made but never booted (a reused one replaces it);
 * 0, or -1 after error() */
int run_drop_unbooted(struct db *db, long long run_id);

/* boot @idx of @run_id ran with @n boots on the host at once (1: alone);
 * the run keeps its largest. 0, or -1 after error() */
int run_mark_concurrent(struct db *db, long long run_id, int idx, int n);

/*
 * The runs of job @job_id still 'running', and their running boots, are
 * failed with @why (a dead owner: job_recover()). In the caller's
 * transaction. 0, or -1 after the database's error.
 */
int run_fail_job_runs(struct db *db, long long job_id, const char *why,
		      double now);

#endif
