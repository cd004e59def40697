// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - boots, results, and the rows that record them.
 *
 * Everything a boot needs is read back from its run row, so a boot can be
 * retried or resumed by another process (the daemon) from the database
 * alone. The NVDIMM backing file lives only for one boot: it is created
 * sparse before and removed after, on every path.
 */
#include <jansson.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "arch.h"
#include "build.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "hosts.h"
#include "priv.h"
#include "image.h"
#include "interrupt.h"
#include "result.h"
#include "hostfacts.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"
#include "workload.h"


void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workloads = "fsdax";
	o->iters = 30;
	o->fsdax_align = "2M";
	o->devdax_align = "4K,2M,1G";
	o->map = "dev,mem";
	o->vmem_sizes = "8G,16G";
	o->hotplug_iters = 3;
	o->kmem_online = "online,online_movable";
	o->vmem_online = "online_movable";
	o->kmem_memmap = "ram,on_memory";
	o->memremap_size = "64G";
	o->nvdimm_mib = 100 << 10;
	o->vcpus = 2;
	o->pin = -1;
	o->memmap_on_memory = -1;
}

static int count_words(const char *list)
{
	int n = 1;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

/* the largest size of a list such as "8G,16G", in MiB; -1 if invalid */
static long long max_size_mib(const char *list)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	long long max = 0;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long mib;

		if (parse_size_mib(tok, &mib) < 0 || !mib) {
			max = -1;
			break;
		}
		if ((long long)mib > max)
			max = mib;
	}
	free(copy);
	return max;
}

/*
 * The memmap is 64 bytes per 4 KiB page: 1/64 of the memory it describes.
 * It lands in the guest's RAM for map=mem binds, for kmem without
 * memmap_on_memory and for plugged virtio-mem memory. The guest gets
 * 1 GiB plus the largest of those, plus a quarter for the page tables and
 * allocations around it. It depends on the sizes only, not on the variants
 * asked for, so that runs of other variants keep the same set-up and stay
 * comparable; RAM the guest does not touch costs the host nothing.
 */
/*
 * The memmap is 64 bytes per page: 1/64 of the memory with 4 KiB pages,
 * 1/1024 with 64 KiB pages (arm64-64k). An unknown arch counts as 4 KiB
 * here; run_create() refuses it.
 */
static unsigned long long memmap_div(const struct run_opts *o)
{
	const struct arch *a = o->arch ? arch_find(o->arch) : NULL;

	return 16ULL * (a ? a->page_kib : 4);
}

static unsigned long long guest_ram_mib(const struct run_opts *o,
					const char *wl, long long vmem_mib)
{
	const struct arch *a = arch_find(o->arch ? o->arch : ARCH_DEFAULT);
	unsigned long long need = 0, div = memmap_div(o), ram;

	if (o->ram_mib)
		return o->ram_mib;
	if (has_word(wl, "fsdax") || has_word(wl, "devdax") ||
	    has_word(wl, "kmem"))
		need = o->nvdimm_mib / div;
	if ((unsigned long long)vmem_mib / div > need)
		need = vmem_mib / div;
	/* mmci_bench refuses a memmap above half of MemAvailable */
	if (has_word(wl, "memremap")) {
		unsigned long long mib = 0;

		parse_size_mib(o->memremap_size, &mib);
		if (mib / 32 > need)
			need = mib / 32;
	}
	need += need / 4;
	ram = VM_DEFAULT_RAM_MIB + ((need + 255) & ~255ULL);
	/*
	 * Memory onlined to ZONE_NORMAL ("online") in a guest with none of
	 * its own is where every GFP_KERNEL allocation goes first: a slab
	 * or page-table page lands in it at once and its offlining fails
	 * with EBUSY (a 1 GiB kmem unplug did on 1280 and 2048 MiB of RAM,
	 * never on 4096). With boot memory in ZONE_NORMAL the onlined pages
	 * go to the tail of the free lists and are taken last, as on the
	 * authors' hosts. So such a run's guest gets 1 GiB above 4 GiB.
	 */
	if (((has_word(wl, "kmem") && has_word(o->kmem_online, "online")) ||
	     (has_word(wl, "virtio-mem") &&
	      has_word(o->vmem_online, "online"))) && a &&
	    ram < a->normal_ram_mib)
		ram = a->normal_ram_mib;
	return ram;
}

/*
 * The memmap of a namespace is 64 bytes per 4 KiB page (1/64 of its size);
 * with map=dev it is written into the backing file, which therefore grows
 * by that much: fsdax and devdax with map=dev. kmem's device keeps its
 * memmap in RAM (the whole namespace is plugged, as a CXL device's is),
 * counted by guest_ram_mib().
 */
static unsigned long long nvdimm_memmap_mib(const struct run_opts *o,
					    const char *wl)
{
	if (!has_word(o->map, "dev") ||
	    (!has_word(wl, "fsdax") && !has_word(wl, "devdax")))
		return 0;
	return o->nvdimm_mib / memmap_div(o);
}

/*
 * tmpfs is the default (disk-backed files gave 6 s outliers,
 * docs/FACTS.md) when the RAM can hold the file's memmap with 2 GiB to
 * spare for the guest.
 */
static const char *choose_backing(const struct run_opts *o, const char *wl,
				  unsigned long long ram_mib)
{
	long long need = nvdimm_memmap_mib(o, wl) + ram_mib + 2048;
	long long avail = mem_available_mib();

	if (o->backing)
		return o->backing;
	return avail > need ? "tmpfs" : "disk";
}

/*
 * Timeout per boot: generous, from what was measured under TCG (a 100 GiB
 * rebind takes ~2 s, a boot ~4 s), times 5 for a loaded host.
 */
static unsigned int default_timeout(const struct run_opts *o,
				    const char *wl, long long vmem_mib)
{
	unsigned long long per_bind_s = 1 + o->nvdimm_mib / (25 << 10);
	unsigned long long binds = 0, t = 120;
	int n;

	/* binds: (first + iters) per variant of map x align */
	n = has_word(o->map, "dev") + has_word(o->map, "mem");
	if (has_word(wl, "fsdax"))
		binds += n * count_words(o->fsdax_align) * (o->iters + 1);
	if (has_word(wl, "devdax"))
		binds += n * count_words(o->devdax_align) * (o->iters + 1);
	t += 5 * binds * per_bind_s;
	/*
	 * measured: unplug of 16 GiB ~16 s under TCG. kmem onlines and
	 * offlines the whole namespace once per iteration, policy and
	 * memmap placement, as virtio-mem does per iteration (a fixed
	 * count of binds gave 512 GiB under three policies 30 min; its
	 * boot took 26 min on the 6.1 kernel, beside a CI run).
	 */
	if (has_word(wl, "virtio-mem"))
		t += 5 * o->hotplug_iters * 2 * (10 + vmem_mib / 1024);
	if (has_word(wl, "kmem"))
		t += 5ULL * o->hotplug_iters * count_words(o->kmem_online) *
		     count_words(o->kmem_memmap) * 2 *
		     (10 + o->nvdimm_mib / 1024);
	/* modules: a few minutes at most each under TCG */
	t += 300 * (has_word(wl, "vmap") + has_word(wl, "memremap") +
		    has_word(wl, "vmalloc"));
	/* another arch under TCG: its firmware, and a slower translation */
	if (o->arch && strcmp(o->arch, ARCH_DEFAULT))
		t *= 2;
	return t;
}

/*
 * What a run touches on the host, in MiB: the guest's RAM (*ram), the
 * NVDIMM's memmap when its file is on tmpfs (*nv) and 1 GiB to spare.
 */
static long long host_need_mib(const struct run_opts *o, const char *wl,
			       long long vmem_mib, unsigned long long *ram,
			       long long *nv)
{
	*ram = guest_ram_mib(o, wl, vmem_mib);
	*nv = strcmp(choose_backing(o, wl, *ram), "tmpfs") ? 0 :
	      (long long)nvdimm_memmap_mib(o, wl);
	return (long long)*ram + *nv + 1024;
}

long long run_host_need_mib(const struct run_opts *o, struct strbuf *why)
{
	struct strbuf wl = STRBUF_INIT;
	unsigned long long ram;
	long long vmem = 0, nv, need;

	if (workloads_expand(o->workloads, &wl) < 0)
		return -1;
	if (has_word(wl.buf, "virtio-mem")) {
		vmem = max_size_mib(o->vmem_sizes);
		if (vmem <= 0) {
			strbuf_release(&wl);
			return error("invalid virtio-mem sizes '%s' (e.g. "
				     "8G,16G)", o->vmem_sizes);
		}
	}
	need = host_need_mib(o, wl.buf, vmem, &ram, &nv);
	strbuf_addf(why, "the guest's %llu MiB of RAM", ram);
	if (vmem)
		strbuf_addf(why, " (with the %lld MiB memmap of %lld MiB of "
			    "virtio-mem)", vmem / (long long)memmap_div(o), vmem);
	if (nv)
		strbuf_addf(why, ", %lld MiB of NVDIMM memmap on tmpfs", nv);
	strbuf_addstr(why, ", 1024 MiB to spare");
	strbuf_release(&wl);
	return need;
}

/*
 * The virtio-mem steps, as asked, in whole memory blocks (128 MiB on x86):
 * never scaled. What a run touches is what must fit: libvirt 9.0 backs
 * virtio-mem with memory-backend-ram and reserve=false, so plugged memory
 * the guest does not write costs the host nothing, and what it writes
 * lies in its RAM: the plugged memory's memmap (1/64 of it; 6.12's
 * virtio-mem does not use memmap_on_memory), which guest_ram_mib() adds,
 * and the NVDIMM's memmap in its file when that is on tmpfs. 512 GiB thus
 * needs a guest of about 11 GiB. A run that does not fit is refused
 * before boot, with the numbers. Returns the largest step in MiB (0
 * without virtio-mem), -1 after error(); *steps gets the list the guest
 * is given, in MiB.
 */
static long long vmem_plan(const struct run_opts *o, const char *wl,
			   struct strbuf *steps)
{
	char *copy, *tok, *save = NULL;
	long long max = max_size_mib(o->vmem_sizes), avail, need, nv;
	unsigned long long ram;

	strbuf_reset(steps);
	if (!has_word(wl, "virtio-mem"))
		return 0;
	if (max <= 0)
		return error("invalid virtio-mem sizes '%s' (e.g. 8G,16G)",
			     o->vmem_sizes);
	need = host_need_mib(o, wl, max, &ram, &nv);
	avail = mem_available_mib();
	if (need > avail)
		return error("virtio-mem up to %lld MiB does not fit this host: "
			     "the run touches %lld MiB (the guest's %llu MiB "
			     "of RAM, which holds the %lld MiB memmap of the "
			     "plugged memory; %lld MiB of NVDIMM memmap; 1024 "
			     "MiB to spare) and the host has %lld MiB "
			     "available; plug less (--vmem-sizes) or free "
			     "memory", max, need, ram,
			     max / (long long)memmap_div(o), nv, avail);
	copy = xstrdup(o->vmem_sizes);
	max = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long mib = 0;
		long long v;

		parse_size_mib(tok, &mib);
		/* whole memory blocks (128 MiB on x86) */
		v = (long long)mib & ~127LL;
		if (v < 128)
			v = 128;
		strbuf_addf(steps, "%s%lldM", steps->len ? "," : "", v);
		if (v > max)
			max = v;
	}
	free(copy);
	return max;
}

/* every word of the comma list is one of the space separated words */
static int only_words(const char *list, const char *words)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int ok = 1, n = 0;

	for (tok = strtok_r(copy, ",", &save); tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *w = strstr(words, tok);
		size_t len = strlen(tok);

		n++;
		ok = 0;
		for (; w; w = strstr(w + 1, tok))
			if ((w == words || w[-1] == ' ') &&
			    (!w[len] || w[len] == ' '))
				ok = 1;
	}
	free(copy);
	return ok && n;
}

/* "mmci.a=1 mmci.b=x": words the runner parses; nothing else may pass */
static int valid_extra(const char *s)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int ok = 1;

	for (tok = strtok_r(copy, " ", &save); tok && ok;
	     tok = strtok_r(NULL, " ", &save))
		ok = starts_with(tok, "mmci.") && strchr(tok, '=') &&
		     !tok[strspn(tok, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=-")];
	free(copy);
	return ok;
}

static int check_opts(const struct run_opts *o)
{
	if (!valid_size_list(o->fsdax_align, 8))
		return error("invalid fsdax alignments '%s' (e.g. 2M)",
			     o->fsdax_align);
	if (!valid_size_list(o->devdax_align, 8))
		return error("invalid devdax alignments '%s' (e.g. 4K,2M,1G)",
			     o->devdax_align);
	if (!valid_size_list(o->vmem_sizes, 8))
		return error("invalid virtio-mem sizes '%s' (e.g. 8G,16G)",
			     o->vmem_sizes);
	if (!valid_size_list(o->memremap_size, 1))
		return error("invalid memremap size '%s' (e.g. 64G)",
			     o->memremap_size);
	if (!only_words(o->map, "dev mem"))
		return error("the memmap goes to dev, mem or dev,mem, not '%s'",
			     o->map);
	if (!only_words(o->vmem_online, "online online_movable offline"))
		return error("virtio-mem onlines to online, online_movable or "
			     "offline (the runner onlines), not '%s'",
			     o->vmem_online);
	if (!only_words(o->kmem_online, "online online_movable offline"))
		return error("kmem onlines to online, online_movable, offline "
			     "or a list of them, not '%s'", o->kmem_online);
	if (!only_words(o->kmem_memmap, "ram on_memory"))
		return error("kmem's memmap goes to ram, on_memory or both, "
			     "not '%s'", o->kmem_memmap);
	if (!o->hotplug_iters)
		return error("hotplug cycles must be at least 1");
	if (o->extra && !valid_extra(o->extra))
		return error("extra parameters are mmci.key=value words of "
			     "[A-Za-z0-9_.,=-], not '%s'", o->extra);
	return 0;
}

/*
 * The guest's kernel command line: everything the runner reads
 * (runner/mmci-runner.c, param_set) and what the kernel needs for the
 * workloads. It is stored with the run, so a boot is repeated from the
 * row alone.
 */
/*
 * The kernel's global memory_hotplug.memmap_on_memory switch (0444: one
 * value per boot), for the hotplug workloads: 1 or 0 as asked, else on
 * when kmem is to put its memmap on the memory (its per-device flag only
 * takes effect with the global switch on, mm/memory_hotplug.c). -1: not
 * set, the kernel's default. virtio-mem measured on and off is two runs;
 * the runner's memtotal_delta_kib tells whether the memmap went on the
 * plugged memory (6.12's virtio_mem never asks for it).
 */
static int hotplug_memmap(const struct run_opts *o, const char *wl)
{
	if (!has_word(wl, "kmem") && !has_word(wl, "virtio-mem"))
		return -1;
	if (o->memmap_on_memory >= 0)
		return o->memmap_on_memory;
	return has_word(wl, "kmem") && has_word(o->kmem_memmap, "on_memory") ?
	       1 : -1;
}

/* "4K,2MiB" as "4096,2097152": the runner reads plain byte counts too */
static const char *bytes_list(const char *list, struct strbuf *out)
{
	char *copy = xstrdup(list), *tok, *save = NULL;

	strbuf_reset(out);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long b = 0;

		parse_size(tok, &b);
		strbuf_addf(out, "%s%llu", out->len ? "," : "", b);
	}
	free(copy);
	return out->buf;
}

/*
 * The guest's kernel command line. An x86 guest under icount gets
 * noapictimer: the local APIC timer's calibration spins on rdtsc for 100
 * ms of guest time, and under icount every rdtsc leaves the translated
 * code, so it took 2 of a boot's 6.2 s (docs/FACTS.md, "A boot under
 * icount"); the PIT then gives the ticks. And tsc=reliable: the TSC is
 * the icount clock itself, and the clocksource watchdog that checks it
 * every half second put 16,000 instructions into one timed write of
 * each boot. The workloads' counts move by +0.03 %; the command line,
 * kept with the run, says which.
 */
static char *guest_cmdline(const struct run_opts *o, const char *wl,
			   const char *vmem_steps, const char *clock)
{
	struct strbuf sb = STRBUF_INIT, fa = STRBUF_INIT, da = STRBUF_INIT;
	struct strbuf mr = STRBUF_INIT;

	const struct arch *a = arch_get(o->arch);

	strbuf_addf(&sb, "console=%s panic=-1 loglevel=4 ", a->console);
	if (!strcmp(clock, "icount") && !strcmp(a->name, ARCH_DEFAULT))
		strbuf_addstr(&sb, "noapictimer tsc=reliable ");
	strbuf_addf(&sb, "mmci.workload=%s mmci.iters=%d mmci.fsdax_align=%s "
		    "mmci.devdax_align=%s mmci.map=%s mmci.out=%s",
		    wl, o->iters, bytes_list(o->fsdax_align, &fa),
		    bytes_list(o->devdax_align, &da), o->map, a->results);
	if (has_word(wl, "virtio-mem") || has_word(wl, "kmem"))
		strbuf_addf(&sb, " mmci.hotplug_iters=%u",
			    o->hotplug_iters);
	if (has_word(wl, "virtio-mem"))
		strbuf_addf(&sb, " mmci.vmem_sizes=%s mmci.vmem_online=%s",
			    vmem_steps, o->vmem_online);
	if (has_word(wl, "memremap"))
		strbuf_addf(&sb, " mmci.memremap_size=%s",
			    bytes_list(o->memremap_size, &mr));
	if (has_word(wl, "kmem"))
		strbuf_addf(&sb, " mmci.kmem_online=%s mmci.kmem_memmap=%s",
			    o->kmem_online, o->kmem_memmap);
	if (hotplug_memmap(o, wl) >= 0)
		strbuf_addf(&sb, " memory_hotplug.memmap_on_memory=%d",
			    hotplug_memmap(o, wl));
	if (o->extra)
		strbuf_addf(&sb, " %s", o->extra);
	strbuf_release(&fa);
	strbuf_release(&da);
	strbuf_release(&mr);
	return strbuf_detach(&sb, NULL);
}

/*
 * vCPU pinning by default in wall-clock mode when the host has a CPU for
 * each vCPU: `mmci bench` measured the least between-boot spread with it
 * among the wall-clock settings (median CV 6.4 % pinned vs 12.6 %
 * unpinned vs 20.6 % disk-backed, 3 boots each, bench/README.md). icount
 * guests are unaffected by it and stay unpinned.
 */
static int choose_pin(const struct run_opts *o, const char *clock,
		      unsigned int vcpus)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->pin >= 0)
		return o->pin;
	return !strcmp(clock, "wall") && vcpus <= 2 && ncpu >= (long)vcpus;
}

/*
 * The set-up of the guest that the columns of runs do not say: the domain
 * template (machine type, guest CPU model, devices), the host's
 * architecture and, for another than x86_64, the guest's (its machine,
 * CPU model and firmware). 0, or -1 after error().
 */
static int setup_hash(const struct mmci_config *cfg, const struct arch *a,
		      char out[41])
{
	char *template = project_path(cfg, "vm-images/domain.xml.in");
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	int ret = -1;

	if (strbuf_read_file(&sb, template, 0) < 0) {
		error_errno("cannot read '%s'", template);
		goto out;
	}
	if (uname(&u) < 0) {
		error_errno("uname");
		goto out;
	}
	strbuf_addf(&sb, "\narch %s\n", u.machine);
	if (strcmp(a->name, ARCH_DEFAULT))
		strbuf_addf(&sb, "guest %s %s %s %s\n", a->name, a->machine,
			    a->cpu_model, arch_firmware(a));
	hash_hex(sb.buf, sb.len, out);
	ret = 0;
out:
	strbuf_release(&sb);
	free(template);
	return ret;
}

int run_create(const struct mmci_config *cfg, struct db *db,
	       const struct run_opts *o, long long *run_id)
{
	char setup_sha[41];
	char host[256] = "unknown", runner_sha[41], initrd_sha[41];
	const struct arch *arch = arch_get(o->arch);
	char *fsdax_align = NULL, *devdax_align = NULL;
	struct run_opts fixed;
	struct accel_choice ac;
	char *initrd = NULL, *runner = NULL, *params = NULL;
	char *qemu_v = NULL, *libvirt_v = NULL, *facts = NULL;
	struct host_facts hf;
	struct strbuf wl = STRBUF_INIT, steps = STRBUF_INIT;
	const char *accel, *clock;
	char *cmdline = NULL;
	unsigned long long ram_mib;
	long long vmem_mib;
	json_t *pj;
	int ret = -1, n, pin;
	unsigned int vcpus, timeout;

	if (!arch || arch_check(arch) < 0)
		goto out;
	/* 64 KiB pages: 2M is no alignment there (arch.h) */
	fixed = *o;
	fixed.arch = arch->name;
	fsdax_align = arch_fix_align(arch, "fsdax", o->fsdax_align);
	devdax_align = arch_fix_align(arch, "devdax", o->devdax_align);
	if (fsdax_align)
		fixed.fsdax_align = fsdax_align;
	if (devdax_align)
		fixed.devdax_align = devdax_align;
	o = &fixed;
	if (workloads_expand(o->workloads, &wl) < 0 ||
	    check_opts(o) < 0)
		goto out;
	vmem_mib = vmem_plan(o, wl.buf, &steps);
	if (vmem_mib < 0)
		goto out;
	ram_mib = guest_ram_mib(o, wl.buf, vmem_mib);
	/* a libvirt that does not answer: another one, or one error */
	hosts_pick_home();
	n = vm_cleanup_stale();
	if (n < 0)
		goto out;
	if (n > 0)
		log_info("destroyed %d domain(s) left by a killed mmci", n);
	if (o->clock && strcmp(o->clock, "icount") && strcmp(o->clock, "wall")) {
		error("unknown clock mode '%s' (icount or wall)", o->clock);
		goto out;
	}
	if (o->initrd) {
		initrd = real_path(o->initrd);
		if (hash_file_hex(initrd, initrd_sha) < 0)
			goto out;
	} else if (image_build(cfg, arch, o->release, o->modroot, &initrd,
			       initrd_sha) < 0) {
		goto out;
	}
	if (!accel_guest_native(arch, ac.why, sizeof(ac.why))) {
		/* no KVM for another arch than the host's: emulated */
		ac.kvm = 0;
	} else if (accel_choose(cfg, db, arch, o->clock, o->kernel, initrd,
				&ac) < 0) {
		/* may boot the kernel once under KVM as a trial (accel.h) */
		goto out;
	}
	accel = ac.kvm ? "kvm" : "tcg";
	clock = o->clock ? o->clock : (ac.kvm ? "wall" : "icount");
	log_info("accelerator %s (%s), clock %s", accel, ac.why, clock);
	/*
	 * icount runs all vCPUs round-robin on one host thread, so a second
	 * vCPU buys nothing, and QEMU 7.2 hung in SMP bring-up with two.
	 */
	vcpus = !strcmp(clock, "icount") ? 1 : o->vcpus;
	pin = choose_pin(o, clock, vcpus);
	runner = project_path(cfg, arch->runner);
	if (hash_file_hex(runner, runner_sha) < 0)
		goto out;
	if (setup_hash(cfg, arch, setup_sha) < 0)
		goto out;
	gethostname(host, sizeof(host) - 1);
	vm_versions(&qemu_v, &libvirt_v);
	cmdline = guest_cmdline(o, wl.buf, steps.buf, clock);
	timeout = o->timeout_s ? o->timeout_s :
				 default_timeout(o, wl.buf, vmem_mib);
	pj = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s*, "
		       "s:b, s:I, s:i, s:s, s:s*}",
		       "workloads", wl.buf, "iters", o->iters,
		       "fsdax_align", o->fsdax_align,
		       "devdax_align", o->devdax_align, "map", o->map,
		       "vmem_sizes", steps.buf,
		       "hotplug_iters", (int)o->hotplug_iters,
		       "kmem_online", o->kmem_online,
		       "kmem_memmap", o->kmem_memmap, "extra", o->extra,
		       "pin", pin, "vmem_max_mib",
		       (json_int_t)vmem_mib, "timeout_s", (int)timeout,
		       "cmdline", cmdline, "vmem_online",
		       has_word(wl.buf, "virtio-mem") ? o->vmem_online : NULL);
	if (!pj) {
		error("cannot encode the parameters of the run");
		goto out;
	}
	params = json_dumps(pj, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(pj);
	if (interrupted()) {
		error("no run made: %s", interrupt_reason());
		goto out;
	}
	host_facts_read(&hf);
	facts = host_facts_json(&hf);
	if (db_run(db, "INSERT INTO runs (label, job_id, build_id, kernel, "
		   "kernel_release, modules_root, hz, workloads, params, "
		   "accel, clock, vcpus, ram_mib, nvdimm_mib, backing, "
		   "qemu_version, libvirt_version, host, runner_sha1, initrd, "
		   "initrd_sha1, accel_reason, setup_sha1, status, started_at, "
		   "arch, host_facts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)",
		   "tIItttIttttiiitttttttttdtt", o->label, o->job_id,
		   o->build_id,
		   o->kernel,
		   o->release, o->modroot, (long long)o->hz, wl.buf,
		   params, accel, clock, (long long)vcpus,
		   (long long)ram_mib, (long long)o->nvdimm_mib,
		   choose_backing(o, wl.buf, ram_mib), qemu_v, libvirt_v, host,
		   runner_sha,
		   initrd, initrd_sha, ac.why, setup_sha,
		   (double)time(NULL), arch->name, facts) < 0)
		goto out;
	*run_id = db_last_id(db);
	ret = 0;
out:
	free(fsdax_align);
	free(devdax_align);
	strbuf_release(&wl);
	strbuf_release(&steps);
	free(cmdline);
	free(initrd);
	free(runner);
	free(params);
	free(qemu_v);
	free(libvirt_v);
	free(facts);
	return ret;
}

static int word_in(const char *w, const char *const *words)
{
	for (; w && *words; words++)
		if (!strcmp(w, *words))
			return 1;
	return 0;
}

int run_store_imported(struct db *db, const struct run_row *r,
		       const char *setup_sha1, int concurrent,
		       long long *run_id)
{
	static const char *const statuses[] = { "ok", "failed", NULL };
	static const char *const accels[] = { "kvm", "tcg", NULL };
	static const char *const clocks[] = { "icount", "wall", NULL };
	static const char *const backings[] = { "tmpfs", "disk", NULL };

	if (!word_in(r->status, statuses))
		return error("an imported run is 'ok' or 'failed', not '%.32s'",
			     r->status ? r->status : "");
	if (!word_in(r->accel, accels) || !word_in(r->clock, clocks) ||
	    !word_in(r->backing, backings))
		return error("an imported run names an unknown accelerator, "
			     "clock or backing");
	if (!r->arch || !arch_find(r->arch))
		return error("an imported run's arch '%.32s' is unknown",
			     r->arch ? r->arch : "");
	if (r->vcpus < 1 || r->ram_mib < 1 || r->nvdimm_mib < 0 ||
	    !r->workloads || !*r->workloads || !r->label)
		return error("an imported run lacks its workloads, vCPUs or "
			     "RAM");
	if (db_run(db, "INSERT INTO runs (label, build_id, kernel, "
		   "kernel_release, modules_root, hz, workloads, params, accel, "
		   "clock, vcpus, ram_mib, nvdimm_mib, backing, qemu_version, "
		   "libvirt_version, host, runner_sha1, initrd, initrd_sha1, "
		   "status, error, started_at, ended_at, setup_sha1, "
		   "concurrent, arch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tItttittttiiitttttttttddtit", r->label, r->build_id,
		   r->kernel, r->release, r->modroot, (long long)r->hz,
		   r->workloads, r->params, r->accel, r->clock, r->vcpus,
		   r->ram_mib, r->nvdimm_mib, r->backing, r->qemu_v,
		   r->libvirt_v, r->host, r->runner_sha1, r->initrd,
		   r->initrd_sha1, r->status, r->error, r->started_at,
		   r->ended_at, setup_sha1,
		   (long long)(concurrent > 0 ? concurrent : 1), r->arch) < 0)
		return -1;
	*run_id = db_last_id(db);
	return 0;
}

int run_store_imported_boot(struct db *db, long long run_id, int idx,
			    const char *status, const char *end_kind,
			    const char *why, double duration_s,
			    long long *boot_id)
{
	static const char *const statuses[] = { "running", "ok", "failed",
						NULL };

	if (!word_in(status, statuses) || idx < 0 || !(duration_s >= 0))
		return error("run #%lld: an imported boot %d has status "
			     "'%.32s' or a negative duration", run_id, idx,
			     status ? status : "");
	if (db_run(db, "INSERT INTO boots (run_id, idx, status, end_kind, "
		   "error, started_at, duration_s) VALUES (?, ?, ?, ?, ?, 0, "
		   "?)", "iitttd", run_id, (long long)idx, status, end_kind,
		   why, duration_s) < 0)
		return -1;
	*boot_id = db_last_id(db);
	return 0;
}

void run_row_release(struct run_row *r)
{
	char **s[] = { &r->label, &r->status, &r->error, &r->kernel,
		       &r->release, &r->modroot, &r->initrd, &r->workloads,
		       &r->params, &r->accel, &r->clock, &r->backing,
		       &r->host, &r->qemu_v, &r->libvirt_v, &r->runner_sha1,
		       &r->initrd_sha1, &r->cmdline, &r->commit,
		       &r->fragment, &r->config_hash, &r->dotconfig_hash,
		       &r->compiler, &r->arch };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		free(*s[i]);
	json_decref(r->pj);
	memset(r, 0, sizeof(*r));
}

/* cmdline, timeout_s, vmem_max_mib and pin out of r->params */
static void run_parse_params(struct run_row *r)
{
	json_t *pj = json_loads(r->params, 0, NULL), *v;
	const char *cmdline = NULL;

	r->pin = -1;
	r->cmdline = xstrdup("");
	if (!json_is_object(pj)) {
		json_decref(pj);
		return;
	}
	r->pj = pj;
	v = json_object_get(pj, "cmdline");
	if (json_is_string(v))
		cmdline = json_string_value(v);
	v = json_object_get(pj, "timeout_s");
	if (cmdline && json_is_integer(v)) {
		free(r->cmdline);
		r->cmdline = xstrdup(cmdline);
		r->timeout_s = json_integer_value(v);
		r->params_ok = 1;
	}
	v = json_object_get(pj, "vmem_max_mib");
	if (json_is_integer(v))
		r->vmem_max_mib = json_integer_value(v);
	v = json_object_get(pj, "pin");
	if (json_is_boolean(v))
		r->pin = json_is_true(v);
	else if (json_is_integer(v))
		r->pin = json_integer_value(v) != 0;
}

int run_load(struct db *db, long long id, struct run_row *r)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT coalesce(r.job_id, 0), coalesce(r.build_id, 0), "
		"r.label, r.status, r.error, r.kernel, r.kernel_release, "
		"r.modules_root, r.initrd, r.workloads, r.params, r.accel, "
		"r.clock, r.backing, r.host, r.qemu_version, "
		"r.libvirt_version, r.runner_sha1, r.initrd_sha1, "
		"coalesce(r.hz, 0), r.vcpus, r.ram_mib, r.nvdimm_mib, "
		"r.started_at, coalesce(r.ended_at, -1), "
		"(SELECT count(*) FROM boots WHERE run_id = r.id), "
		"(SELECT count(*) FROM boots WHERE run_id = r.id AND "
		"status = 'ok'), (SELECT total(duration_s) FROM boots WHERE "
		"run_id = r.id), b.id IS NOT NULL, b.commit_id, "
		"b.config_fragment, b.config_hash, b.dotconfig_hash, "
		"b.compiler, coalesce(b.series_id, 0), coalesce(b.upto, 0), "
		"coalesce(b.hz, 0), r.arch FROM runs r LEFT JOIN builds b "
		"ON b.id = r.build_id WHERE r.id = ?", "i", id);
	char **text[] = { &r->label, &r->status, &r->error, &r->kernel,
			  &r->release, &r->modroot, &r->initrd,
			  &r->workloads, &r->params, &r->accel, &r->clock,
			  &r->backing, &r->host, &r->qemu_v, &r->libvirt_v,
			  &r->runner_sha1, &r->initrd_sha1 };
	char **btext[] = { &r->commit, &r->fragment, &r->config_hash,
			   &r->dotconfig_hash, &r->compiler };
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc != DB_ROW) {
		sqlite3_finalize(st);
		if (rc == DB_DONE)
			error("no run #%lld in '%s' (see 'mmci show runs')",
			      id, db->path);
		return -1;
	}
	r->id = id;
	r->job_id = sqlite3_column_int64(st, 0);
	r->build_id = sqlite3_column_int64(st, 1);
	for (i = 0; i < ARRAY_SIZE(text); i++)
		*text[i] = xstrdup(db_col_text(st, 2 + i));
	r->hz = sqlite3_column_int(st, 19);
	r->vcpus = sqlite3_column_int64(st, 20);
	r->ram_mib = sqlite3_column_int64(st, 21);
	r->nvdimm_mib = sqlite3_column_int64(st, 22);
	r->started_at = sqlite3_column_double(st, 23);
	r->ended_at = sqlite3_column_double(st, 24);
	r->boots = sqlite3_column_int(st, 25);
	r->ok_boots = sqlite3_column_int(st, 26);
	r->boot_s = sqlite3_column_double(st, 27);
	r->build_found = sqlite3_column_int(st, 28);
	for (i = 0; i < ARRAY_SIZE(btext); i++)
		*btext[i] = xstrdup(db_col_text(st, 29 + i));
	r->series_id = sqlite3_column_int64(st, 34);
	r->upto = sqlite3_column_int(st, 35);
	r->build_hz = sqlite3_column_int(st, 36);
	r->arch = xstrdup(db_col_text(st, 37));
	sqlite3_finalize(st);
	run_parse_params(r);
	return 0;
}

void run_setup_shape(const struct run_row *r, struct strbuf *out)
{
	/* x86_64 says nothing: the words of every run before arches */
	const struct arch *a = arch_find(r->arch);

	if (r->arch && *r->arch && strcmp(r->arch, ARCH_DEFAULT))
		strbuf_addf(out, "%s guest (%s), ", r->arch,
			    !a ? "unknown" : a->page_kib == 64 ?
			    "64 KiB pages" : "4 KiB pages");
	strbuf_addf(out, "%lld MiB NVDIMM on %s, %lld MiB RAM, %lld "
		    "vCPU(s)%s", r->nvdimm_mib, r->backing, r->ram_mib,
		    r->vcpus, r->pin == 1 ? " pinned" : "");
}

void run_setup_line(const struct run_row *r, struct strbuf *out)
{
	strbuf_addf(out, "%s/%s, ", r->accel, r->clock);
	run_setup_shape(r, out);
}

/* mmci_run_setup(accel, clock, arch, nvdimm_mib, backing, ram_mib, vcpus,
 * pin): run_setup_line() of those columns */
static void sql_run_setup(sqlite3_context *ctx, int argc UNUSED,
			  sqlite3_value **v)
{
	struct strbuf sb = STRBUF_INIT;
	struct run_row r = { 0 };

	r.accel = (char *)sqlite3_value_text(v[0]);
	r.clock = (char *)sqlite3_value_text(v[1]);
	r.arch = (char *)sqlite3_value_text(v[2]);
	r.nvdimm_mib = sqlite3_value_int64(v[3]);
	r.backing = (char *)sqlite3_value_text(v[4]);
	r.ram_mib = sqlite3_value_int64(v[5]);
	r.vcpus = sqlite3_value_int64(v[6]);
	r.pin = sqlite3_value_type(v[7]) == SQLITE_NULL ? -1 :
		!!sqlite3_value_int(v[7]);
	run_setup_line(&r, &sb);
	sqlite3_result_text(ctx, sb.buf, (int)sb.len, SQLITE_TRANSIENT);
	strbuf_release(&sb);
}

int run_sql_functions(struct db *db)
{
	if (sqlite3_create_function(db->handle, "mmci_run_setup", 8,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    sql_run_setup, NULL, NULL) != SQLITE_OK)
		return error("cannot add mmci_run_setup() to '%s': %s",
			     db->path, sqlite3_errmsg(db->handle));
	return 0;
}

/*
 * The host-side times of a wall-clock boot (vm_result.host_samples) go to
 * runs/<tag>/N/bootB-host.jsonl, beside the guest's results, and are stored as
 * its samples. 0, or -1 after error().
 */
static int store_host_samples(struct db *db, long long run_id,
			      long long boot_id, const char *dir, int idx,
			      const struct strbuf *samples,
			      struct result_counts *counts)
{
	struct result_counts hc = { 0 };
	char *path;
	int ret;

	if (!samples->len)
		return 0;
	path = xstrfmt("%s/boot%d-host.jsonl", dir, idx);
	ret = write_file(path, samples->buf, samples->len);
	if (!ret)
		ret = result_ingest(db, run_id, boot_id, path, &hc);
	counts->samples += hc.samples;
	counts->rejected += hc.rejected;
	free(hc.kernel);
	free(path);
	return ret;
}

/* what the host did on the guest's requests: a 'host' event per line */
static int store_host_log(struct db *db, long long run_id, long long boot_id,
			  const char *log)
{
	while (*log) {
		const char *nl = strchrnul(log, '\n');
		char *line = xstrndup(log, nl - log);
		int rc = result_host_event(db, run_id, boot_id, line);

		free(line);
		if (rc < 0)
			return -1;
		log = *nl ? nl + 1 : nl;
	}
	return 0;
}

char *run_backing_path(const struct mmci_config *cfg, const char *backing,
		       long long run_id, int idx)
{
	char *dir, *p;

	if (!strcmp(backing, "tmpfs"))
		return xstrfmt("%s/mmci-%d-run%lld-boot%d.nvdimm", VM_TMPFS_DIR,
			       (int)getpid(), run_id, idx);
	dir = data_path(cfg, "nvdimm");
	p = xstrfmt("%s/run%lld-boot%d.nvdimm", dir, run_id, idx);
	free(dir);
	return p;
}

/*
 * vm_spec.boot_over: a domain of this database's boots (named as in
 * run_boot()) whose row is not 'running' any more
 */
static int boot_over(const char *name, void *opaque)
{
	struct db *db = opaque;
	char tag[9];
	const char *rest;
	long long run_id;
	int idx, end = 0;

	db_tag(db, tag);
	if (!skip_prefix(name, VM_NAME_PREFIX, &rest) ||
	    !skip_prefix(rest, tag, &rest) ||
	    sscanf(rest, "-run%lld-boot%d%n", &run_id, &idx, &end) != 2 ||
	    rest[end])
		return 0;
	return db_int(db, 0, "SELECT count(*) FROM boots WHERE run_id = ? "
		      "AND idx = ? AND status != 'running'", "ii", run_id,
		      (long long)idx) > 0;
}

void run_vm_spec(const struct run_row *r, struct db *db, struct vm_spec *spec)
{
	spec->arch = arch_get(r->arch);
	spec->kernel = r->kernel;
	spec->initrd = r->initrd;
	spec->cmdline = r->cmdline;
	spec->vcpus = r->vcpus;
	spec->ram_mib = r->ram_mib;
	spec->nvdimm_mib = r->nvdimm_mib;
	spec->unlink_backing = 1;
	spec->virtio_mem_max_mib = r->vmem_max_mib;
	spec->pin = r->pin == 1;
	spec->kvm = !strcmp(r->accel, "kvm");
	/*
	 * KVM worked on this host when the run was made (accel.h); should
	 * it hang this guest anyway, the boot fails in seconds, not after
	 * the whole timeout.
	 */
	if (spec->kvm)
		spec->first_line_s = 3 * accel_deadline_s();
	spec->icount = !strcmp(r->clock, "icount");
	spec->timeout_s = r->timeout_s;
	spec->boot_over = boot_over;
	spec->boot_over_data = db;
}

int run_boot(const struct mmci_config *cfg, struct db *db, long long run_id,
	     int idx)
{
	struct run_row r;
	struct vm_spec spec;
	struct vm_result vres;
	struct result_counts counts = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *dir = NULL, *sub = NULL, *console = NULL, *results = NULL;
	char *backing = NULL, *name = NULL;
	char *template = NULL, *label = NULL, *nvram = NULL, tag[9];
	long long boot_id;
	double t0 = now_s();
	int ok = 0, started;

	/* no boot row for a boot that never starts (interrupt.h) */
	if (interrupted())
		return error("run #%lld boot %d not started: %s", run_id, idx,
			     interrupt_reason());
	memset(&vres, 0, sizeof(vres));
	strbuf_init(&vres.host_log, 0);
	strbuf_init(&vres.host_samples, 0);
	vres.exit_kind = VM_START_FAILED;
	if (run_load(db, run_id, &r) < 0)
		return -1;
	if (!r.params_ok) {
		error("run #%lld has unreadable parameters (made by an older "
		      "mmci?)", run_id);
		run_row_release(&r);
		return -1;
	}
	/*
	 * run ids are per database, and databases may share a data
	 * directory (its tree and build cache): the database's tag keeps
	 * their logs apart, as it keeps their domains (db.h)
	 */
	db_tag(db, tag);
	sub = xstrfmt("runs/%s/%lld", tag, run_id);
	dir = data_path(cfg, sub);
	console = xstrfmt("%s/boot%d-console.log", dir, idx);
	results = xstrfmt("%s/boot%d-results.jsonl", dir, idx);
	unlink(console);
	unlink(results);
	/* the QEMU processes already running: this job's or any other's */
	if (db_run(db, "INSERT OR REPLACE INTO boots (run_id, idx, status, "
		   "console_log, results_log, started_at, host, guests_beside) "
		   "VALUES (?, ?, 'running', ?, ?, ?, ?, ?)", "iittdti", run_id,
		   (long long)idx, console, results, (double)time(NULL),
		   vm_uri(), (long long)host_qemu_guests()) < 0)
		goto out;
	boot_id = db_last_id(db);

	backing = run_backing_path(cfg, r.backing, run_id, idx);
	name = xstrfmt("%s%s-run%lld-boot%d", VM_NAME_PREFIX, tag, run_id,
		       idx);
	template = project_path(cfg, "vm-images/domain.xml.in");
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	run_vm_spec(&r, db, &spec);
	if (!spec.arch) {
		strbuf_addf(&why, "run #%lld has an unknown arch", run_id);
		goto record;
	}
	spec.nvram_path = nvram = xstrfmt("%s/boot%d-uefi-vars.fd", dir, idx);
	spec.console_log = console;
	spec.results_log = results;
	spec.nvdimm_path = backing;
	spec.template_path = template;
	spec.label = label = xstrfmt("run #%lld boot %d", run_id, idx);

	/*
	 * a staged boot gets a sparse volume on its host instead (vm.h),
	 * one through mmci-priv a file the parent makes (priv.h)
	 */
	if (!vm_staged() && !priv_active() &&
	    vm_create_backing(backing, r.nvdimm_mib) < 0) {
		strbuf_addf(&why, "cannot create the NVDIMM backing '%s'",
			    backing);
		goto record;
	}
	progress("run #%lld boot %d: %s%s%s, %s, %llu GiB NVDIMM on %s, "
		 "timeout %lld s%s%s", run_id, idx,
		 strcmp(r.arch, ARCH_DEFAULT) ? r.arch : "",
		 strcmp(r.arch, ARCH_DEFAULT) ? " " : "", r.accel, r.clock,
		 (unsigned long long)r.nvdimm_mib >> 10, r.backing,
		 r.timeout_s, vm_staged() ? ", on " : "",
		 vm_staged() ? vm_uri() : "");
	started = vm_run(&spec, &vres) == 0;
	unlink(backing);
	if (!started) {
		vm_not_started_why(&vres, &why);
		goto record;
	}
	if (store_host_log(db, run_id, boot_id, vres.host_log.buf) < 0) {
		strbuf_addstr(&why, "cannot store what the host did");
		goto record;
	}
	if (result_ingest(db, run_id, boot_id, results, &counts) < 0) {
		strbuf_addf(&why, "cannot store the results of '%s'", results);
		goto record;
	}
	if (store_host_samples(db, run_id, boot_id, dir, idx,
			       &vres.host_samples, &counts) < 0) {
		strbuf_addstr(&why, "cannot store the host-side times");
		goto record;
	}
	if (vres.exit_kind == VM_INTERRUPTED)
		strbuf_addf(&why, "%s; the guest was destroyed: see %s",
			    interrupt_reason(), console);
	else if (vres.exit_kind == VM_SILENT)
		strbuf_addf(&why, "the guest printed nothing within %u s under "
			    "KVM, though KVM ran guests on this host before "
			    "(did the host change? 'mmci hosts --forget' makes "
			    "the next run try again): see %s",
			    spec.first_line_s, console);
	else if (vres.exit_kind == VM_TIMEOUT)
		strbuf_addf(&why, "the guest did not finish within %lld s "
			    "(hung?): see %s", r.timeout_s, console);
	else if (vres.exit_kind == VM_HOST_LOST)
		strbuf_addf(&why, "the host went away "
			    "during the boot: %s: see %s", vres.error, console);
	else if (vres.exit_kind == VM_CRASHED)
		strbuf_addf(&why, "the guest crashed%s%s: see %s",
			    vres.error[0] ? ": " : "", vres.error, console);
	else if (!counts.done)
		strbuf_addf(&why, "the runner did not finish (no 'done' "
			    "record): see %s", console);
	else if (!counts.samples)
		strbuf_addf(&why, "the runner produced no sample (%d errors): "
			    "see 'mmci show run %lld'", counts.errors, run_id);
	else
		ok = 1;
	if (counts.rejected)
		log_warnx("run #%lld boot %d: %d result line(s) rejected",
			  run_id, idx, counts.rejected);
record:
	if (!ok)
		error("run #%lld boot %d failed: %s", run_id, idx, why.buf);
	else
		progress("run #%lld boot %d: %d samples, %d errors in %.0f s",
			 run_id, idx, counts.samples, counts.errors,
			 now_s() - t0);
	if (db_run(db, "UPDATE boots SET status = ?, end_kind = ?, "
		   "error = ?, domain_xml = ?, duration_s = ? WHERE id = ?",
		   "ttttdi", ok ? "ok" : "failed",
		   vm_exit_kind_name(vres.exit_kind), ok ? NULL : why.buf,
		   vres.domain_xml, now_s() - t0, boot_id) < 0) {
		/* its samples are stored, but only an ok boot counts */
		error("run #%lld boot %d: its end is not recorded, the boot "
		      "stays 'running'", run_id, idx);
		ok = 0;
	}
out:
	unlink(backing ? backing : "");
	vm_result_release(&vres);
	free(counts.kernel);
	strbuf_release(&why);
	run_row_release(&r);
	free(sub);
	free(dir);
	free(console);
	free(results);
	free(backing);
	free(name);
	free(nvram);
	free(template);
	free(label);
	return ok ? 0 : -1;
}

int run_finish(struct db *db, long long run_id)
{
	long long nok = db_int(db, 0, "SELECT count(*) FROM boots WHERE "
			       "run_id = ? AND status = 'ok'", "i", run_id);
	long long n = db_int(db, 0, "SELECT count(*) FROM boots WHERE "
			     "run_id = ?", "i", run_id);
	char *err;
	int rc;

	/*
	 * Interrupted (interrupt.h): a run not finished yet is failed,
	 * whatever its boots gave, and the caller stops; one that was
	 * finished keeps its status.
	 */
	if (interrupted()) {
		err = xstrfmt("%s (%lld of %lld boot(s) ok)",
			      interrupt_reason(), nok, n);
		rc = db_run(db, "UPDATE runs SET status = 'failed', error = ?, "
			    "ended_at = ? WHERE id = ? AND status = 'running'",
			    "tdi", err, (double)time(NULL), run_id);
		free(err);
		if (rc < 0)
			return error("run #%lld: its end is not recorded, it "
				     "stays 'running'", run_id);
		return 0;
	}
	err = nok ? NULL : n ? xstrfmt("all %lld boot(s) failed", n) :
	      xstrdup("not booted: the command failed before its first "
		      "boot");
	{
		struct host_facts hf;

		host_facts_read(&hf);
		rc = db_run(db, "UPDATE runs SET status = ?, error = ?, "
			    "ended_at = ?, load_end = ? WHERE id = ?", "ttddi",
			    nok ? "ok" : "failed", err, (double)time(NULL),
			    hf.load1, run_id);
	}
	free(err);
	if (rc < 0)
		return error("run #%lld: its end is not recorded, it stays "
			     "'running'", run_id);
	return (int)nok;
}

int run_boots(const struct mmci_config *cfg, struct db *db,
	      const struct run_opts *o, int boots, long long *run_id)
{
	int i;

	if (run_create(cfg, db, o, run_id) < 0)
		return -1;
	for (i = 0; i < boots && !interrupted(); i++)
		run_boot(cfg, db, *run_id, i);
	return run_finish(db, *run_id) > 0 ? 0 : -1;
}

/*
 * Everything that decides an icount value, compared column by column:
 * the kernel build (its cache key: tree, fragment, recipe, compiler,
 * bench module; and the .config it gave), workloads and parameters (with
 * the guest's command line and timeout), the accelerator and clock, the
 * guest's shape and backing, QEMU and libvirt versions, the runner and
 * the initramfs (hashes) and the rest of the set-up (setup_hash()).
 */
#define SAME_SETUP_SQL \
	"n.clock = 'icount' " \
	"AND r.clock = 'icount' AND rb.status = 'ok' AND nb.status = 'ok' " \
	"AND rb.cache_key = nb.cache_key " \
	"AND rb.dotconfig_hash IS nb.dotconfig_hash " \
	"AND r.kernel_release = n.kernel_release " \
	"AND r.workloads = n.workloads AND r.params = n.params " \
	"AND r.accel = n.accel AND r.vcpus = n.vcpus " \
	"AND r.ram_mib = n.ram_mib AND r.nvdimm_mib = n.nvdimm_mib " \
	"AND r.backing = n.backing AND r.arch = n.arch " \
	"AND r.qemu_version IS NOT NULL AND r.qemu_version = n.qemu_version " \
	"AND r.libvirt_version = n.libvirt_version " \
	"AND r.runner_sha1 IS NOT NULL AND r.runner_sha1 = n.runner_sha1 " \
	"AND r.initrd_sha1 IS NOT NULL AND r.initrd_sha1 = n.initrd_sha1 " \
	"AND r.setup_sha1 IS NOT NULL AND r.setup_sha1 = n.setup_sha1 "

static const char reuse_sql[] =
	"SELECT r.id FROM runs r JOIN runs n ON n.id = ?1 "
	"JOIN builds rb ON rb.id = r.build_id "
	"JOIN builds nb ON nb.id = n.build_id "
	"WHERE r.id <> n.id AND r.status = 'ok' AND " SAME_SETUP_SQL
	"AND (SELECT count(*) FROM boots WHERE run_id = r.id AND "
	"status = 'ok') >= ?2 "
	"ORDER BY r.id DESC LIMIT 1";

/* the same columns between two given runs, booted or not */
static const char same_sql[] =
	"SELECT count(*) FROM runs r JOIN runs n ON n.id = ?2 "
	"JOIN builds rb ON rb.id = r.build_id "
	"JOIN builds nb ON nb.id = n.build_id "
	"WHERE r.id = ?1 AND " SAME_SETUP_SQL;

int run_same_setup(struct db *db, long long a, long long b)
{
	long long n = 0;

	if (db_int_checked(db, &n, same_sql, "ii", a, b) < 0)
		return -1;
	return n > 0;
}

long long run_find_reusable(struct db *db, long long run_id, int min_boots)
{
	long long id = 0;

	if (db_int_checked(db, &id, reuse_sql, "ii", run_id,
			   (long long)min_boots) < 0)
		return -1;
	return id;
}

int run_drop_unbooted(struct db *db, long long run_id)
{
	if (db_run(db, "DELETE FROM runs WHERE id = ? AND status = 'running' "
		   "AND NOT EXISTS (SELECT 1 FROM boots WHERE run_id = ?) AND "
		   "NOT EXISTS (SELECT 1 FROM samples WHERE run_id = ?) AND "
		   "NOT EXISTS (SELECT 1 FROM events WHERE run_id = ?)",
		   "iiii", run_id, run_id, run_id, run_id) < 0)
		return -1;
	if (db_changes(db) != 1)
		return error("run #%lld was not dropped: it has boots or "
			     "results already", run_id);
	return 0;
}

int run_mark_concurrent(struct db *db, long long run_id, int idx, int n)
{
	if (db_run(db, "UPDATE boots SET concurrent = ? WHERE run_id = ? AND "
		   "idx = ?", "iii", (long long)n, run_id, (long long)idx) < 0 ||
	    db_run(db, "UPDATE runs SET concurrent = max(concurrent, ?) WHERE "
		   "id = ?", "ii", (long long)n, run_id) < 0)
		return error("run #%lld boot %d: its concurrency is not "
			     "recorded", run_id, idx);
	return 0;
}

/* --- the kernel of a run ------------------------------------------- */

static int prebuilt_hz(const char *release)
{
	char *path = xstrfmt("/boot/config-%s", release);
	int hz = config_hz(path);

	free(path);
	return hz;
}

/* fill o from a builds row; strings are owned by *keep */
static int from_build(struct db *db, long long id, struct run_opts *o,
		      struct build_result *keep)
{
	sqlite3_stmt *st = db_query(db, "SELECT artifacts, kernel_release, hz, "
				    "arch FROM builds WHERE id = ? AND "
				    "status = 'ok'", "i", id);
	const struct arch *a;
	int ret = -1, rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		/* the build's arch is the run's; --arch may only agree */
		a = arch_get(db_col_text(st, 3));
		if (!a || (o->arch && strcmp(o->arch, a->name))) {
			if (a)
				error("build #%lld is a kernel for %s, not %s",
				      id, a->name, o->arch);
			sqlite3_finalize(st);
			return -1;
		}
		o->arch = a->name;
		keep->artifacts = xstrdup(db_col_text(st, 0));
		keep->bzimage = build_image_path(keep->artifacts);
		keep->modroot = xstrfmt("%s/modroot", keep->artifacts);
		keep->release = xstrdup(db_col_text(st, 1));
		o->build_id = id;
		o->kernel = keep->bzimage;
		o->modroot = keep->modroot;
		o->release = keep->release;
		o->hz = sqlite3_column_int(st, 2);
		ret = 0;
	} else if (rc == DB_DONE) {
		error("no successful build #%lld", id);
	}
	sqlite3_finalize(st);
	return ret;
}

int run_opts_kernel(struct db *db, long long build_id,
			  struct run_opts *o, struct build_result *keep,
			  char **release)
{
	const char *base;

	if (build_id)
		return from_build(db, build_id, o, keep);
	if (!file_exists(o->kernel))
		return error("kernel '%s' not found", o->kernel);
	base = strrchr(o->kernel, '/');
	base = base ? base + 1 : o->kernel;
	if (!o->release && skip_prefix(base, "vmlinuz-", &base))
		o->release = *release = xstrdup(base);
	if (!o->release)
		return error("cannot tell the release of '%s': give --release",
			     o->kernel);
	if (!o->hz)
		o->hz = prebuilt_hz(o->release);
	return 0;
}

int run_fail_job_runs(struct db *db, long long job_id, const char *why,
		      double now)
{
	if (db_run(db, "UPDATE boots SET status = 'failed', end_kind = "
		   "'interrupted', error = ? WHERE status = 'running' AND "
		   "run_id IN (SELECT id FROM runs WHERE job_id = ?)", "ti",
		   why, job_id) < 0 ||
	    db_run(db, "UPDATE runs SET status = 'failed', error = ?, "
		   "ended_at = ? WHERE status = 'running' AND job_id = ?",
		   "tdi", why, now, job_id) < 0)
		return -1;
	return 0;
}
