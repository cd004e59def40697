// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the table of the runner's workloads and metrics.
 */
#include "strbuf.h"
#include "util.h"
#include "workload.h"

/* the kernel's memmap_init_zone_device time counts jiffies: 1000/HZ ms */
#define JIFFY 0

static const struct metric_def bind_metrics[] = {
	{ "first_bind_memmap", "ms", 1, JIFFY,
	  "memmap_init_zone_device() of the first bind after boot" },
	{ "first_bind_wall", "ms", 1, 0.001,
	  "wall time of the first bind's sysfs write" },
	{ "rebind_memmap", "ms", 1, JIFFY,
	  "memmap_init_zone_device() of each rebind" },
	{ "rebind_wall", "ms", 1, 0.001, "wall time of each rebind" },
	{ "first_bind_memmap_ns", "ns", 1, 1,
	  "first_bind_memmap to the ns: kprobe events on the entry and the "
	  "return of memmap_init_zone_device()" },
	{ "rebind_memmap_ns", "ns", 1, 1, "rebind_memmap to the ns" },
	{ NULL }
};

#define MAP_COUNTS(t)                                                        \
	{ t "_ptes", "entries", 1, 1, "4 KiB page table entries of " t },    \
	{ t "_cont_ptes", "entries", 0, 1,                                   \
	  "contiguous-bit entries of " t " (arm64 CONT_PTE)" },              \
	{ t "_pmds", "entries", 0, 1, "PMD block entries of " t }

static const struct metric_def vmap_metrics[] = {
	{ "ioremap_1m", "us", 1, 0.001, "ioremap() of 1 MiB" },
	{ "iounmap_1m", "us", 1, 0.001, "iounmap() of 1 MiB" },
	{ "vmalloc_1m", "us", 1, 0.001, "vmalloc() of 1 MiB" },
	{ "vfree_1m", "us", 1, 0.001, "vfree() of 1 MiB" },
	{ "vmalloc_huge_1m", "us", 1, 0.001,
	  "vmalloc_huge() of 1 MiB (huge mappings allowed)" },
	{ "vfree_huge_1m", "us", 1, 0.001, "vfree() of the above" },
	{ "vmap_100m_order8", "us", 1, 0.001,
	  "vmap() of 100 MiB made of order-8 pages" },
	{ "vunmap_100m_order8", "us", 1, 0.001, "vunmap() of the above" },
	/* how the kernel mapped each range (mmci_bench.c): fewer 4 KiB
	 * entries means larger mappings, which the batching series bring */
	MAP_COUNTS("ioremap_1m"),
	MAP_COUNTS("vmalloc_1m"),
	MAP_COUNTS("vmalloc_huge_1m"),
	MAP_COUNTS("vmap_100m_order8"),
	{ NULL }
};

static const struct metric_def memremap_metrics[] = {
	{ "memremap_pages", "ms", 1, 0.001,
	  "memremap_pages() of a DEVICE_PRIVATE range" },
	{ "memunmap_pages", "ms", 1, 0.001, "memunmap_pages() of it" },
	{ "memremap_memmap", "ms", 1, JIFFY,
	  "memmap_init_zone_device() inside memremap_pages()" },
	{ "memremap_memmap_ns", "ns", 1, 1, "memremap_memmap to the ns" },
	{ NULL }
};

static const struct metric_def vmalloc_metrics[] = {
	{ "*", "us", 1, 1, "test_vmalloc's avg for each test, by name" },
	{ NULL }
};

static const struct metric_def vmem_metrics[] = {
	{ "plug", "ms", 1, 0.001,
	  "virtio-mem plug to the variant's size, from the device's config "
	  "interrupt until every block is present" },
	{ "unplug", "ms", 1, 0.001,
	  "virtio-mem unplug of everything, from the config interrupt until "
	  "the guest is back to its boot memory" },
	{ "online", "ms", 1, 0.001,
	  "auto_online_blocks=offline: the part of a plug the runner spent "
	  "onlining the blocks virtio-mem added offline" },
	/* vm.c: vm_host_sample(); the host polls every 2 ms meanwhile */
	{ "plug_host", "ms", 1, 2,
	  "wall clock only: the plug timed on the host, from its resize "
	  "request to the guest's plug sample read back (request -> "
	  "MemTotal, as the hotplug series' authors timed it)" },
	{ "unplug_host", "ms", 1, 2,
	  "wall clock only: the unplug timed on the host, from its resize "
	  "request to the guest's unplug sample read back" },
	{ NULL }
};

static const struct metric_def kmem_metrics[] = {
	{ "online", "ms", 1, 0.001,
	  "kmem takes the devdax device: add_memory and the onlining of all "
	  "of it (auto-online, or under auto_online_blocks=offline the "
	  "runner's, as daxctl's)" },
	{ "offline", "ms", 1, 0.001,
	  "offline of every block and removal (kmem unbind)" },
	{ NULL }
};

const struct workload_def workload_defs[] = {
	{ "fsdax",
	  "nd_pmem: convert namespace0.0 to fsdax (pfn), bind it, rebind N "
	  "times",
	  "mmci.iters mmci.fsdax_align mmci.map", bind_metrics },
	{ "devdax",
	  "dax_pmem: convert namespace0.0 to devdax, bind it, rebind N times",
	  "mmci.iters mmci.devdax_align mmci.map", bind_metrics },
	{ "vmap",
	  "mmci_bench.ko: ioremap, vmalloc, vmalloc_huge and vmap timings",
	  "mmci.bench_iters mmci.ioremap_phys", vmap_metrics },
	{ "memremap",
	  "mmci_bench.ko: memremap_pages/memunmap_pages of DEVICE_PRIVATE "
	  "memory",
	  "mmci.bench_iters mmci.memremap_size", memremap_metrics },
	{ "vmalloc",
	  "the kernel's test_vmalloc performance tests",
	  "mmci.bench_iters mmci.vmalloc_mask mmci.vmalloc_loops "
	  "mmci.vmalloc_repeat", vmalloc_metrics },
	{ "virtio-mem",
	  "virtio-mem plug in steps and unplug, resized by the host through "
	  "libvirt",
	  "mmci.vmem_sizes mmci.vmem_online mmci.hotplug_iters",
	  vmem_metrics },
	{ "kmem",
	  "namespace0.0 as devdax, onlined as system RAM by kmem and taken "
	  "back",
	  "mmci.kmem_online mmci.kmem_memmap mmci.hotplug_iters",
	  kmem_metrics },
	{ NULL }
};

const struct workload_def *workload_find(const char *name)
{
	const struct workload_def *w;

	for (w = workload_defs; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

/*
 * Workloads run in the table's order whatever order they were named in:
 * kmem comes last because a failed offline can leave namespace0.0 with
 * kmem until reboot, and a boot then measures the same way every time.
 */
int workloads_expand(const char *list, struct strbuf *out)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	const struct workload_def *w;
	unsigned long long want = 0;
	int ret = 0, i;

	strbuf_reset(out);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			want = ~0ULL;
			continue;
		}
		w = workload_find(tok);
		if (!w) {
			ret = error("unknown workload '%s' (see 'mmci "
				    "workloads')", tok);
			break;
		}
		want |= 1ULL << (w - workload_defs);
	}
	for (w = workload_defs, i = 0; !ret && w->name; w++, i++)
		if (want & (1ULL << i))
			strbuf_addf(out, "%s%s", out->len ? "," : "", w->name);
	if (!ret && !out->len)
		ret = error("no workload given");
	free(copy);
	return ret;
}

const struct metric_def *metric_find(const char *workload, const char *metric)
{
	const struct workload_def *w = workload_find(workload);
	const struct metric_def *m;

	for (m = w ? w->metrics : NULL; m && m->name; m++)
		if (!strcmp(m->name, metric) || !strcmp(m->name, "*"))
			return m;
	return NULL;
}

double metric_resolution(const char *workload, const char *metric, int hz)
{
	const struct metric_def *m = metric_find(workload, metric);

	if (!m)
		return 0;
	if (m->resolution > 0)
		return m->resolution;
	return hz > 0 ? 1000.0 / hz : 10.0;
}
