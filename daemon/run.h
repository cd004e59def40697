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
struct mmci_config;

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
};

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
 * mark the run ok when at least one boot is; returns the ok boot count.
 * After SIGTERM/SIGINT (interrupt.h) an unfinished run is failed with
 * interrupt_reason() instead, and 0 is returned.
 */
int run_finish(struct db *db, long long run_id);

#endif
