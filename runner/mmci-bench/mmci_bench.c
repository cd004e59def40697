// SPDX-License-Identifier: GPL-2.0
/*
 * mmci_bench - micro-benchmarks of the kernel's mapping primitives.
 *
 * mmci loads this module in its test VM to time what the kernel offers no
 * benchmark for: ioremap() of 1 MiB, vmalloc() and vmalloc_huge() of 1 MiB,
 * vmap() of 100 MiB made of order-8 blocks, and memremap_pages() of a
 * DEVICE_PRIVATE range (4 GiB by default). These are the cases the series
 * "mm/vmalloc: Speed up ioremap, vmalloc and vmap with contiguous memory"
 * and the ZONE_DEVICE memmap work measure.
 *
 * Everything runs from the module's init function, in the context of the
 * process that loads it, one test after the other, "iters" times each. Every
 * measurement is one line in the kernel log:
 *
 *   mmci_bench: vmap_100m_order8 iter 3 ns 1234567
 *   mmci_bench: memremap_pages error -12
 *   mmci_bench: done
 *
 * After the first mapping of each of ioremap, vmalloc, vmalloc_huge and
 * vmap, outside the timed call, the module walks the kernel page tables
 * of the range it mapped and says how the kernel mapped it:
 *
 *   mmci_bench: vmap_100m_order8 map ptes 25600 cont_ptes 0 pmds 0 holes 0
 *
 * ptes are 4 KiB (PAGE_SIZE) entries without the contiguous bit, cont_ptes
 * those with it (arm64's CONT_PTE: 16 entries, 64 KiB with 4 KiB pages),
 * pmds block entries (2 MiB, or 512 MiB with 64 KiB pages), holes pages
 * of the range with no mapping. On 6.12 this shows today's mapping; a
 * series that batches mappings (contiguous runs, huge vmap) moves them.
 * x86_64 asks lookup_address(); arm64 walks from TTBR1 (swapper_pg_dir,
 * which modules cannot name); other architectures say "map unsupported".
 *
 * The time is ktime_get_ns() around the one call (the set-up, e.g. the
 * allocation of the pages to vmap, is not timed). A test that fails prints
 * an error line and the next test runs. Like lib/test_vmalloc.c, init then
 * returns -EAGAIN: the module never stays loaded, so loading it again runs
 * the tests again and nothing has to unload it.
 *
 * Parameters (all read-only once loaded):
 *   tests          comma separated: ioremap, vmalloc, vmalloc_huge, vmap,
 *                  memremap (default: all of them, in this order)
 *   iters          repetitions of each test (default 10)
 *   ioremap_phys   physical address to ioremap (default 0: a free range of
 *                  the physical address space, taken from iomem_resource)
 *   vmap_compound  allocate the order-8 blocks with __GFP_COMP (default 1)
 *   memremap_size  size of the DEVICE_PRIVATE range, memparse syntax
 *                  (default "4G"); its memmap (64 bytes per 4 KiB page)
 *                  comes from RAM, and a range whose memmap would take more
 *                  than half of the available memory is refused (-ENOMEM)
 *                  before trying: a memremap_pages() that runs out of
 *                  memory half way does not give all of it back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pgtable.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#define BENCH_MAX_ITERS 100000
#define IOREMAP_SIZE SZ_1M
#define VMALLOC_SIZE SZ_1M
#define VMAP_SIZE (100 * SZ_1M)
#define VMAP_ORDER 8

static char *tests = "ioremap,vmalloc,vmalloc_huge,vmap,memremap";
module_param(tests, charp, 0444);
MODULE_PARM_DESC(tests,
		 "comma separated tests: ioremap,vmalloc,vmalloc_huge,vmap,memremap");

static unsigned int iters = 10;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "repetitions of each test (default 10)");

static unsigned long ioremap_phys;
module_param(ioremap_phys, ulong, 0444);
MODULE_PARM_DESC(ioremap_phys,
		 "physical address to ioremap (default 0: a free range)");

static bool vmap_compound = true;
module_param(vmap_compound, bool, 0444);
MODULE_PARM_DESC(vmap_compound,
		 "allocate the order-8 blocks of vmap as compound pages");

static char *memremap_size = "4G";
module_param(memremap_size, charp, 0444);
MODULE_PARM_DESC(memremap_size,
		 "size of the DEVICE_PRIVATE range of memremap (default 4G)");

static void report(const char *test, unsigned int iter, u64 ns)
{
	pr_info("%s iter %u ns %llu\n", test, iter, ns);
}

static void report_error(const char *test, int err)
{
	pr_info("%s error %d\n", test, err);
}

struct map_count {
	unsigned long ptes, cont_ptes, pmds, holes;
};

#if defined(CONFIG_X86)
/* one leaf at @addr: counted, *@step set to the bytes it maps from @addr */
static int map_leaf(unsigned long addr, struct map_count *c,
		    unsigned long *step)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	*step = PAGE_SIZE;
	if (!pte || !pte_present(*pte)) {
		c->holes++;
		return 0;
	}
	switch (level) {
	case PG_LEVEL_4K:
		c->ptes++;
		return 0;
	case PG_LEVEL_2M:
		c->pmds++;
		*step = PMD_SIZE - (addr & ~PMD_MASK);
		return 0;
	default:	/* 1 GiB: never for these sizes */
		return -EOPNOTSUPP;
	}
}
#elif defined(CONFIG_ARM64)
static int map_leaf(unsigned long addr, struct map_count *c,
		    unsigned long *step)
{
	/* swapper_pg_dir: bits 47:1 of TTBR1 (a PA below 2^48 here) */
	pgd_t *base = __va(read_sysreg(ttbr1_el1) & GENMASK_ULL(47, 1));
	pgd_t *pgd = pgd_offset_pgd(base, addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t *pte;

	*step = PAGE_SIZE;
	if (pgd_none(READ_ONCE(*pgd)))
		goto hole;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)))
		goto hole;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)))
		goto hole;
	if (pud_leaf(READ_ONCE(*pud)))
		return -EOPNOTSUPP;
	pmd = pmd_offset(pud, addr);
	if (pmd_none(READ_ONCE(*pmd)))
		goto hole;
	if (pmd_leaf(READ_ONCE(*pmd))) {
		c->pmds++;
		*step = PMD_SIZE - (addr & ~PMD_MASK);
		return 0;
	}
	pte = pte_offset_kernel(pmd, addr);
	if (!pte_present(__ptep_get(pte)))
		goto hole;
	if (pte_cont(__ptep_get(pte)))
		c->cont_ptes++;
	else
		c->ptes++;
	return 0;
hole:
	c->holes++;
	return 0;
}
#else
static int map_leaf(unsigned long addr, struct map_count *c,
		    unsigned long *step)
{
	return -EOPNOTSUPP;
}
#endif

/* how [addr, addr + size) is mapped, one line (see the top) */
static void report_map(const char *test, const void *addr, unsigned long size)
{
	unsigned long a = (unsigned long)addr, end = a + size, step;
	struct map_count c = { 0 };

	for (; a < end; a += step) {
		if (map_leaf(a, &c, &step) < 0) {
			pr_info("%s map unsupported\n", test);
			return;
		}
	}
	pr_info("%s map ptes %lu cont_ptes %lu pmds %lu holes %lu\n", test,
		c.ptes, c.cont_ptes, c.pmds, c.holes);
}

/*
 * A physical range nothing uses, from the top of the physical address space:
 * ioremap() refuses RAM, and a free range is there on every machine.
 */
static struct resource *free_range(unsigned long size, const char *name)
{
	return request_free_mem_region(&iomem_resource, size, name);
}

static int bench_ioremap(void)
{
	struct resource *res = NULL;
	phys_addr_t phys = ioremap_phys;
	unsigned int i;
	void __iomem *p;
	int ret = 0;
	u64 t0, t1, t2;

	if (!phys) {
		res = free_range(IOREMAP_SIZE, "mmci_bench ioremap");
		if (IS_ERR(res))
			return PTR_ERR(res);
		phys = res->start;
	}
	pr_info("ioremap_1m phys %pa\n", &phys);

	for (i = 1; i <= iters; i++) {
		t0 = ktime_get_ns();
		p = ioremap(phys, IOREMAP_SIZE);
		t1 = ktime_get_ns();
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		if (i == 1)
			report_map("ioremap_1m", (__force void *)p,
				   IOREMAP_SIZE);
		iounmap(p);
		t2 = ktime_get_ns();
		report("ioremap_1m", i, t1 - t0);
		report("iounmap_1m", i, t2 - t1);
		cond_resched();
	}

	if (res)
		release_mem_region(res->start, resource_size(res));
	return ret;
}

static int bench_vmalloc(bool huge)
{
	const char *map = huge ? "vmalloc_huge_1m" : "vmalloc_1m";
	const char *unmap = huge ? "vfree_huge_1m" : "vfree_1m";
	unsigned int i;
	u64 t0, t1, t2;
	void *p;

	for (i = 1; i <= iters; i++) {
		t0 = ktime_get_ns();
		p = huge ? vmalloc_huge(VMALLOC_SIZE, GFP_KERNEL) :
			   vmalloc(VMALLOC_SIZE);
		t1 = ktime_get_ns();
		if (!p)
			return -ENOMEM;
		if (i == 1)
			report_map(map, p, VMALLOC_SIZE);
		vfree(p);
		t2 = ktime_get_ns();
		report(map, i, t1 - t0);
		report(unmap, i, t2 - t1);
		cond_resched();
	}
	return 0;
}

/*
 * vmap() of VMAP_SIZE made of order-VMAP_ORDER blocks: the page array lists
 * every 4 KiB page, as a driver that allocated high-order pages passes it.
 */
static int bench_vmap(void)
{
	const unsigned int nr_blocks = VMAP_SIZE >> (PAGE_SHIFT + VMAP_ORDER);
	const unsigned int nr_pages = VMAP_SIZE >> PAGE_SHIFT;
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct page **blocks, **pages;
	unsigned int i, j;
	int ret = 0;
	u64 t0, t1, t2;
	void *p;

	if (vmap_compound)
		gfp |= __GFP_COMP;
	blocks = kcalloc(nr_blocks, sizeof(*blocks), GFP_KERNEL);
	pages = kvmalloc_array(nr_pages, sizeof(*pages), GFP_KERNEL);
	if (!blocks || !pages) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr_blocks; i++) {
		blocks[i] = alloc_pages(gfp, VMAP_ORDER);
		if (!blocks[i]) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = 0; j < (1U << VMAP_ORDER); j++)
			pages[(i << VMAP_ORDER) + j] = nth_page(blocks[i], j);
	}

	for (i = 1; i <= iters; i++) {
		t0 = ktime_get_ns();
		p = vmap(pages, nr_pages, VM_MAP, PAGE_KERNEL);
		t1 = ktime_get_ns();
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		if (i == 1)
			report_map("vmap_100m_order8", p, VMAP_SIZE);
		vunmap(p);
		t2 = ktime_get_ns();
		report("vmap_100m_order8", i, t1 - t0);
		report("vunmap_100m_order8", i, t2 - t1);
		cond_resched();
	}

out:
	if (blocks) {
		for (i = 0; i < nr_blocks && blocks[i]; i++)
			__free_pages(blocks[i], VMAP_ORDER);
	}
	kvfree(pages);
	kfree(blocks);
	return ret;
}

/*
 * DEVICE_PRIVATE pages are never mapped into a process here: the callbacks
 * exist because memremap_pages() requires them.
 */
static void bench_page_free(struct page *page)
{
}

static vm_fault_t bench_migrate_to_ram(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops bench_pagemap_ops = {
	.page_free = bench_page_free,
	.migrate_to_ram = bench_migrate_to_ram,
};

/* the owner of our DEVICE_PRIVATE pages: any unique pointer */
static int bench_owner;

/*
 * memremap_pages()/memunmap_pages() of one DEVICE_PRIVATE range, set up as
 * lib/test_hmm.c does: the range is free physical address space, and the
 * kernel allocates and initialises a struct page for each of its pages.
 */
static int bench_memremap(void)
{
	unsigned long long size, memmap, avail;
	struct dev_pagemap *pgmap;
	struct resource *res;
	unsigned int i;
	int ret = 0;
	u64 t0, t1, t2;
	void *p;

	size = memparse(memremap_size, NULL);
	if (!size || !IS_ALIGNED(size, PAGE_SIZE))
		return -EINVAL;
	memmap = (size >> PAGE_SHIFT) * sizeof(struct page);
	avail = (u64)si_mem_available() << PAGE_SHIFT;
	if (memmap > avail / 2) {
		pr_info("memremap_pages needs %llu MiB of memmap, %llu MiB available\n",
			memmap >> 20, avail >> 20);
		return -ENOMEM;
	}
	pgmap = kzalloc(sizeof(*pgmap), GFP_KERNEL);
	if (!pgmap)
		return -ENOMEM;
	res = free_range(size, "mmci_bench memremap");
	if (IS_ERR(res)) {
		kfree(pgmap);
		return PTR_ERR(res);
	}
	pr_info("memremap_pages range %pR pages %llu\n", res,
		size >> PAGE_SHIFT);

	for (i = 1; i <= iters; i++) {
		memset(pgmap, 0, sizeof(*pgmap));
		pgmap->type = MEMORY_DEVICE_PRIVATE;
		pgmap->range.start = res->start;
		pgmap->range.end = res->end;
		pgmap->nr_range = 1;
		pgmap->ops = &bench_pagemap_ops;
		pgmap->owner = &bench_owner;

		t0 = ktime_get_ns();
		p = memremap_pages(pgmap, numa_node_id());
		t1 = ktime_get_ns();
		if (IS_ERR(p)) {
			ret = PTR_ERR(p);
			break;
		}
		memunmap_pages(pgmap);
		t2 = ktime_get_ns();
		report("memremap_pages", i, t1 - t0);
		report("memunmap_pages", i, t2 - t1);
		cond_resched();
	}

	release_mem_region(res->start, resource_size(res));
	kfree(pgmap);
	return ret;
}

static int bench_vmalloc_plain(void)
{
	return bench_vmalloc(false);
}

static int bench_vmalloc_huge(void)
{
	return bench_vmalloc(true);
}

struct bench_test {
	const char *name;	/* in the "tests" parameter */
	const char *metric;	/* of the first measurement, names errors */
	int (*run)(void);
};

static const struct bench_test bench_tests[] = {
	{ "ioremap", "ioremap_1m", bench_ioremap },
	{ "vmalloc", "vmalloc_1m", bench_vmalloc_plain },
	{ "vmalloc_huge", "vmalloc_huge_1m", bench_vmalloc_huge },
	{ "vmap", "vmap_100m_order8", bench_vmap },
	{ "memremap", "memremap_pages", bench_memremap },
};

/* is name one of the comma separated words of list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == len && !strncmp(p, name, len))
			return true;
		p = *end ? end + 1 : NULL;
	}
	return false;
}

static int __init mmci_bench_init(void)
{
	const char *p = tests;
	unsigned int i;
	int ret;

	/* reject a test name we do not know: a typo would measure nothing */
	while (p && *p) {
		const char *end = strchrnul(p, ',');
		bool known = false;

		for (i = 0; i < ARRAY_SIZE(bench_tests); i++)
			if ((size_t)(end - p) == strlen(bench_tests[i].name) &&
			    !strncmp(p, bench_tests[i].name, end - p))
				known = true;
		if (!known && end != p) {
			pr_info("unknown test '%.*s'\n", (int)(end - p), p);
			return -EINVAL;
		}
		p = *end ? end + 1 : NULL;
	}
	if (!iters || iters > BENCH_MAX_ITERS) {
		pr_info("iters %u out of range 1..%u\n", iters,
			BENCH_MAX_ITERS);
		return -EINVAL;
	}

	pr_info("start tests %s iters %u\n", tests, iters);
	for (i = 0; i < ARRAY_SIZE(bench_tests); i++) {
		if (!in_list(tests, bench_tests[i].name))
			continue;
		ret = bench_tests[i].run();
		if (ret)
			report_error(bench_tests[i].metric, ret);
	}
	pr_info("done\n");

	/* like test_vmalloc: a failed init unloads the module at once */
	return -EAGAIN;
}

module_init(mmci_bench_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmci micro-benchmarks: ioremap, vmalloc, vmap, memremap_pages");
