/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - what the parts of the guest runner share: parameters, the
 * growable string, the JSON-lines records and small sysfs helpers.
 *
 * Every record (sample, info, error) carries the current variant when one
 * is set: the same workload measured with other settings inside one boot,
 * e.g. "align=2M,map=dev" for a devdax rebind or "online=online_movable,
 * memmap_on_memory=1" for kmem. The host keeps samples of different
 * variants apart.
 */
#ifndef MMCI_RUNNER_H
#define MMCI_RUNNER_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* the house rules: daemon/banned.h has no dependencies, so it serves here too */
#include "banned.h"

#define MAX_LIST 8		/* values in a list parameter */

/* what a bit of params.maps / kmem_online / kmem_memmap means */
enum { MAP_DEV = 1, MAP_MEM = 2 };
/* auto_online_blocks policies; OFFLINE: the runner onlines (virtio-mem) */
enum { ONLINE_KERNEL = 1, ONLINE_MOVABLE = 2, ONLINE_OFFLINE = 4 };
enum { MEMMAP_RAM = 1, MEMMAP_ON_MEMORY = 2 };

struct params {
	char *workloads;	/* comma separated */
	unsigned int iters;	/* rebinds after the first bind */
	/* fsdax and devdax alignments to measure, in bytes */
	unsigned long fsdax_align[MAX_LIST];
	unsigned int nr_fsdax_align;
	unsigned long devdax_align[MAX_LIST];
	unsigned int nr_devdax_align;
	unsigned int maps;	/* MAP_DEV | MAP_MEM: where the memmap goes */
	char *out;		/* path of the JSON lines output */
	/* module workloads (vmap, memremap, vmalloc) */
	unsigned int bench_iters; /* mmci_bench iters, test_vmalloc loads */
	char *memremap_size;	/* memparse syntax, e.g. "4G" */
	unsigned long ioremap_phys;	/* 0: a free physical range */
	unsigned long vmalloc_mask;	/* test_vmalloc run_test_mask */
	unsigned int vmalloc_loops;	/* test_vmalloc test_loop_count */
	unsigned int vmalloc_repeat;	/* test_vmalloc test_repeat_count */
	/* hotplug workloads (virtio-mem, kmem) */
	unsigned long vmem_mib[MAX_LIST];	/* plug steps, ascending */
	unsigned int nr_vmem;
	unsigned int hotplug_iters;	/* plug/unplug cycles per boot */
	unsigned int kmem_online;	/* ONLINE_KERNEL | ONLINE_MOVABLE | ... */
	unsigned int vmem_online;	/* the same, for virtio-mem */
	unsigned int kmem_memmap;	/* MEMMAP_RAM | MEMMAP_ON_MEMORY */
};

/* growable string; buf is never NULL after sb_init() */
struct sb {
	char *buf;
	size_t len, alloc;
};

void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
int PRINTF(3, 4) xsnprintf(char *dst, size_t max, const char *fmt, ...);
void sb_init(struct sb *sb);
void sb_release(struct sb *sb);
void sb_grow(struct sb *sb, size_t extra);
void sb_addch(struct sb *sb, char c);
void PRINTF(2, 3) sb_addf(struct sb *sb, const char *fmt, ...);
void sb_add_json(struct sb *sb, const char *s);

/* CLOCK_MONOTONIC in ns */
long long now_ns(void);

/*
 * The variant every following record belongs to ([a-z0-9_=,.-], NULL for
 * none). set_variant() formats it; the text is copied.
 */
void PRINTF(1, 2) set_variant(const char *fmt, ...);
void clear_variant(void);

/* records; workload may be NULL (boot-wide), iter -1 for none */
void PRINTF(3, 4) emit_error(const char *workload, int iter,
			     const char *fmt, ...);
void emit_info(const char *workload, const char *key, const char *value);
void emit_info_ul(const char *workload, const char *key, unsigned long value);
void emit_sample_unit(const char *workload, const char *metric,
		      const char *unit, int iter, double value, int decimals);
/*
 * A request to the host, e.g. {"action":"virtio-mem-resize",
 * "requested_mib":8192}: the host acts on it while the guest runs
 * (daemon/vm.c). fields is the inside of the JSON object, without braces.
 */
void emit_request(const char *workload, const char *fields);

/* a small file's text without its trailing newline and spaces; 0 or -errno */
int read_file(const char *path, char *buf, size_t size);
/* one write() of val to path, timed into *ms if not NULL; 0 or -errno */
int sysfs_write(const char *path, const char *val, double *ms);
/* "pmem\n" as 'pmem' for a message */
const char *shown(const char *val, char *buf, size_t size);
/* wait up to timeout_ms for path to exist; 0 or -1 */
int wait_for_path(const char *path, int timeout_ms);
/* drop the kernel log records not read yet */
void kmsg_skip(void);
/* a size as a variant names it: 4K, 2M, 1G, 512M; bare bytes otherwise */
void size_name(unsigned long long bytes, char *buf, size_t size);
/* a size with an optional K, M, G or T suffix (powers of 1024); 0 or -1 */
int parse_size(const char *s, unsigned long *bytes);

/*
 * nd namespace0.0 as a devdax device, for the kmem workload: release
 * whatever holds the namespace, make its dax seed a devdax device with
 * the memmap on the device and the given alignment, and bind it to
 * dax_pmem. The dax bus device it creates ("dax0.0" on /sys/bus/dax) is
 * written to daxdev. Returns 0, or -1 after an error record.
 */
int nd_devdax_setup(const char *workload, unsigned long align, char *daxdev,
		    size_t size);
/* undo nd_devdax_setup(): namespace0.0 back to raw, info block cleared */
void nd_devdax_teardown(const char *workload);

/* hotplug.c */
/*
 * A profile window around a timed section (runner/qemu-profile.c): with
 * mmci.profile=1 window_open() marks its start and returns its kind,
 * window_close() its end; otherwise they do nothing (-1).
 */
int window_open(void);
void window_close(int kind);

/* DYNDBG_FUNC's time in ns through kprobe events (mmci-runner.c) */
void ktime_clear(void);
long long ktime_collect(int *calls);

int run_virtio_mem(const struct params *p);
int run_kmem(const struct params *p);

#endif
