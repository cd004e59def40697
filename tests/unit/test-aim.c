// SPDX-License-Identifier: GPL-2.0
/*
 * test-aim.c - what a series is measured on (aim.h): the project's own
 * kernel-patches/aim.map against the paths of the three kinds of series
 * mmci was built for, a series touching two kinds, claims that add a
 * workload or a size, one outside the map, and malformed maps.
 */
#include <stdlib.h>

#include "aim.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

static struct aim_map map;

static const char *choose(const char *const *paths, size_t np,
			  const char *const *claims, size_t nc, long long max,
			  struct aim *a)
{
	static struct strbuf w = STRBUF_INIT;

	aim_choose(&map, paths, np, claims, nc, max, a);
	strbuf_reset(&w);
	aim_workloads(a->workloads, &w);
	return w.buf;
}

int main(void)
{
	const char *top = getenv("MMCI_SRC");
	char *path = xstrfmt("%s/kernel-patches/aim.map", top ? top : ".");
	struct aim a = AIM_INIT, back = AIM_INIT;
	struct aim_map bad;
	char *json;

	if (aim_map_load(path, &map) < 0)
		return 1;
	ok(map.nr > 10, "the project's aim.map loads");

	{	/* the memmap series: mm/mm_init.c */
		const char *p[] = { "mm/mm_init.c" };

		is_str(choose(p, 1, NULL, 0, 0, &a), "fsdax,devdax,memremap",
		       "mm/mm_init.c -> fsdax, devdax, memremap");
		ok(a.in_scope, "in scope");
		is_int((int)a.nvdimm_mib, 102400, "at 100 GiB");
		is_str(a.why.buf, "mm/mm_init.c -> fsdax,devdax,memremap",
		       "and says why");
	}
	{	/* the vmap/order-8 series: vmalloc and arm64's huge vmap */
		const char *p[] = { "mm/vmalloc.c", "arch/arm64/mm/pgtable.c" };

		is_str(choose(p, 2, NULL, 0, 0, &a), "vmap,vmalloc",
		       "mm/vmalloc.c, arch/arm64/mm/pgtable.c -> vmap, vmalloc");
		is_int((int)a.nvdimm_mib, 0, "no NVDIMM size of its own");
	}
	{	/* the virtio-mem series */
		const char *p[] = { "drivers/virtio/virtio_mem.c" };

		is_str(choose(p, 1, NULL, 0, 0, &a), "virtio-mem,kmem",
		       "virtio_mem.c -> virtio-mem, kmem");
	}
	{	/* kmem.c is kmem's, the rest of drivers/dax pmem's */
		const char *p[] = { "drivers/dax/kmem.c" };
		const char *q[] = { "drivers/dax/bus.c" };

		is_str(choose(p, 1, NULL, 0, 0, &a), "virtio-mem,kmem",
		       "the first rule decides: drivers/dax/kmem.c -> kmem");
		is_str(choose(q, 1, NULL, 0, 0, &a), "fsdax,devdax",
		       "drivers/dax/** -> fsdax, devdax");
	}
	{	/* a series touching two kinds gets both */
		const char *p[] = { "mm/vmalloc.c", "mm/memory_hotplug.c",
				    "Documentation/mm/vmalloc.rst" };

		is_str(choose(p, 3, NULL, 0, 0, &a),
		       "vmap,vmalloc,virtio-mem,kmem", "two kinds: both");
		ok(strstr(a.why.buf, "1 other path(s) mapped to nothing") != NULL,
		   "the unmapped path is counted");
	}
	{	/* a claim adds a workload and a size, within the host */
		const char *p[] = { "mm/memory_hotplug.c" };
		const char *c[] = { "rebinding a 512 GB fsdax namespace: "
				    "221 ms -> 72 ms" };

		is_str(choose(p, 1, c, 1, 102400, &a),
		       "fsdax,devdax,virtio-mem,kmem",
		       "a claim naming fsdax adds fsdax, devdax");
		is_int((int)a.nvdimm_mib, 102400, "512 GB scaled to 100 GiB");
		ok(strstr(a.why.buf, "NVDIMM 524288 MiB scaled to this host's "
			  "102400 MiB") != NULL, "and the scaling is said");
	}
	{	/* "vmapped" names no workload; "vmap()" does */
		const char *p[] = { "mm/memory_hotplug.c" };
		const char *c1[] = { "pages vmapped at boot: 20% faster" };
		const char *c2[] = { "vmap(100 MB) of order-8 pages: 8.3x faster" };

		is_str(choose(p, 1, c1, 1, 0, &a), "virtio-mem,kmem",
		       "\"vmapped\" adds nothing");
		is_str(choose(p, 1, c2, 1, 0, &a), "vmap,vmalloc,virtio-mem,kmem",
		       "\"vmap(100 MB)\" adds vmap, vmalloc");
		is_int((int)a.nvdimm_mib, 0, "100 MB is no NVDIMM size");
	}
	{	/* nothing mapped: a smoke run, said */
		const char *p[] = { "fs/ext4/inode.c", "Documentation/x.rst" };

		is_str(choose(p, 2, NULL, 0, 0, &a), AIM_SMOKE_WORKLOADS,
		       "outside the map: the smoke workload");
		ok(!a.in_scope, "out of scope");
		is_int((int)a.nvdimm_mib, (int)AIM_SMOKE_NVDIMM_MIB,
		       "at the smoke size");
		ok(starts_with(a.why.buf, "outside mmci's scope: none of its 2 "
			       "path(s)"), "and says so");
	}
	{	/* the job row keeps it; the daemon reads it back, checked */
		const char *p[] = { "mm/vmalloc.c" };

		choose(p, 1, NULL, 0, 0, &a);
		json = aim_params_json(&a);
		is_int(aim_from_params(json, &back), 1, "round trip");
		is_int((int)back.workloads, (int)a.workloads, "same workloads");
		is_str(back.why.buf, a.why.buf, "same reason");
		free(json);
		is_int(aim_from_params("{\"aim\":{\"in_scope\":true,\"workloads\":"
				       "\"vmap,--config=x\",\"nvdimm_mib\":0,"
				       "\"why\":\"\"}}", &back), -1,
		       "a forged option in the workloads is refused");
		is_int(aim_from_params("{\"aim\":{\"in_scope\":true,\"workloads\":"
				       "\"vmap\",\"nvdimm_mib\":-5,\"why\":\"\"}}",
				       &back), -1, "a negative size is refused");
		is_int(aim_from_params("{\"mbox\":\"x\"}", &back), 0,
		       "params without an aim: none");
	}
	ok(aim_match("arch/*/mm/**", "arch/x86/mm/pat/set_memory.c"),
	   "arch/*/mm/** matches below a level of '*'");
	ok(!aim_match("mm/*.c", "mm/damon/core.c"), "'*' stays in its level");
	is_int(aim_map_parse("mm/x.c vmap\nmm/y.c nosuch\n", "m", &bad), -1,
	       "an unknown workload is an error");
	is_int(aim_map_parse("mm/x.c vmap nvdimm=lots\n", "m", &bad), -1,
	       "a bad size is an error");
	is_int(aim_map_parse("# only a comment\n\nmm/x.c vmap # why\n", "m",
			     &bad), 0, "comments and blank lines");
	is_int((int)bad.nr, 1, "one rule");
	aim_map_release(&bad);
	aim_release(&a);
	aim_release(&back);
	aim_map_release(&map);
	free(path);
	return done_testing();
}
