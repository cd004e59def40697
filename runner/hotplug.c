// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug.c - the memory hotplug workloads of the guest runner: "kmem"
 * (an NVDIMM namespace onlined as system RAM by dax/kmem and removed
 * again) and "virtio-mem" (memory plugged and unplugged by the host).
 *
 * Both check their result exactly before they record a time: the sum of
 * the zones' "present" pages (/proc/zoneinfo) must have moved by exactly
 * the memory blocks added or removed, MemTotal (sysinfo) by the pages given
 * to or taken from the buddy allocator, and the "System RAM (kmem)" or
 * "System RAM (virtio_mem)" ranges in /proc/iomem must be gone after a
 * removal. Memory onlining and offlining only ever happen a whole memory
 * block (/sys/devices/system/memory/block_size_bytes) at a time, so every
 * target is a whole number of blocks.
 *
 * kmem: what "daxctl reconfigure-device --mode=system-ram" and back to
 * "--mode=devdax" do, done through sysfs. dev_dax_kmem_probe() calls
 * add_memory_driver_managed(), which onlines every block before it
 * returns when auto_online_blocks is not "offline" (add_memory_resource()
 * in mm/memory_hotplug.c), so the bind write returning is the end of the
 * onlining; under "offline" daxctl onlines each block itself (movable,
 * its default), and so does the runner. dev_dax_kmem_remove() can only
 * remove blocks that are all offline and gets one chance: if offlining
 * fails the device stays with kmem and the workload stops, as an unbind
 * would leave the memory plugged until the next boot.
 *
 * virtio-mem: the host resizes the device when it reads a request record
 * (daemon/vm.c). In QEMU's icount mode the guest clock jumps while the
 * guest idles, so the time spent waiting for the host means nothing: the
 * clock starts when the device's config-change interrupt has arrived (the
 * MSI-X "virtioN-config" vector, or the device's own INTx line: QEMU 7.2's
 * virtio-mem-pci has no MSI-X). The runner spins on that interrupt's count
 * as SCHED_FIFO, so the workqueue that does the plugging (queued from the
 * interrupt, on the same CPU) cannot run before the timestamp is taken; a
 * context switch seen just before the interrupt voids the sample. Then it
 * sleeps on memory uevents until the target is reached. Waits for the
 * host spin too: a sleeping guest's icount clock would race past any
 * deadline before the host has acted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "runner.h"

#define MEMORY_DIR "/sys/devices/system/memory"
#define AUTO_ONLINE MEMORY_DIR "/auto_online_blocks"
#define BLOCK_SIZE_FILE MEMORY_DIR "/block_size_bytes"
#define MHP_PARAMS "/sys/module/memory_hotplug/parameters"
#define DAX_DEVICES "/sys/bus/dax/devices"
#define DAX_DRIVERS "/sys/bus/dax/drivers"
#define VMEM_DRIVER "/sys/bus/virtio/drivers/virtio_mem"
#define ND_NAMESPACE "/sys/bus/nd/devices/namespace0.0"

#define KMEM_ALIGN (2UL << 20)	/* devdax alignment of the namespace */
#define NAMESPACE_WAIT_MS 30000	/* for namespace0.0 to appear */
#define OFFLINE_TIMEOUT_S 120	/* per memory block; SIGALRM ends it */
#define MAX_ZONES 32		/* nodes x zones in /proc/zoneinfo */

/*
 * request -> config interrupt, guest time: ~100x what the host needs. In
 * icount mode the spinning guest's clock runs at ~0.4x real time, and the
 * error record should come out before the host's boot timeout.
 */
#define IRQ_WAIT_S 30
#define IRQ_SPIN_MAX 200000000UL	/* the same bound in spins */
#define STEP_BASE_S 60		/* step timeout: base ... */
#define STEP_PER_GIB_S 10	/* ... plus this per GiB moved */
#define POLL_MS 20		/* fallback check while waiting */
#define RELEASE_POLL_MS 1	/* present reached, iomem not yet */
#define UEVENT_RCVBUF (4 << 20)

#define NS_PER_S 1000000000LL

/* "present" pages of one zone */
struct zone_pages {
	char name[24];		/* "0:Normal" */
	unsigned long present;
};

struct zones {
	struct zone_pages z[MAX_ZONES];
	unsigned int nr;
	unsigned long present;	/* sum, pages */
};

static long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

/* a whole file into sb (which the caller initialised); 0 or -errno */
static int read_all(const char *path, struct sb *sb)
{
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		sb_grow(sb, 4096);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		sb->len += n;
		sb->buf[sb->len] = '\0';
	}
	close(fd);
	return err;
}

/* a number in a sysfs file ("8000000" with base 16); 0 or -errno */
static int read_ul(const char *path, int base, unsigned long *v)
{
	char buf[64], *end;
	int rc;

	rc = read_file(path, buf, sizeof(buf));
	if (rc)
		return rc;
	errno = 0;
	*v = strtoul(buf, &end, base);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

/* the present pages of every zone, from /proc/zoneinfo; 0 or -errno */
static int zones_read(struct zones *zs)
{
	struct sb sb;
	char *line, *next, name[16];
	int node = -1, rc;

	memset(zs, 0, sizeof(*zs));
	sb_init(&sb);
	rc = read_all("/proc/zoneinfo", &sb);
	for (line = sb.buf; !rc && line && *line; line = next) {
		unsigned long v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "Node %d, zone %15s", &node, name) == 2) {
			if (zs->nr == MAX_ZONES) {
				rc = -E2BIG;
				break;
			}
			xsnprintf(zs->z[zs->nr].name, sizeof(zs->z[0].name),
				  "%d:%s", node, name);
			zs->nr++;
		} else if (zs->nr && sscanf(line, " present %lu", &v) == 1) {
			zs->z[zs->nr - 1].present = v;
			zs->present += v;
		}
	}
	sb_release(&sb);
	if (!rc && !zs->nr)
		rc = -ENODATA;
	return rc;
}

/* MemTotal in KiB, as /proc/meminfo shows it (totalram_pages) */
static unsigned long memtotal_kib(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return (unsigned long)si.totalram * si.mem_unit / 1024;
}

/*
 * Bytes of the /proc/iomem ranges called name, e.g. "System RAM (kmem)";
 * -errno if it cannot be read.
 */
static long long iomem_bytes(const char *name)
{
	struct sb sb;
	char *line, *next;
	long long total = 0;
	int rc;

	sb_init(&sb);
	rc = read_all("/proc/iomem", &sb);
	for (line = sb.buf; !rc && line && *line; line = next) {
		unsigned long long a, b;
		int off = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, " %llx-%llx : %n", &a, &b, &off) == 2 &&
		    off && !strcmp(line + off, name) && b >= a)
			total += b - a + 1;
	}
	sb_release(&sb);
	return rc ? rc : total;
}

/* report a sysfs value as info if the file exists */
static void info_file(const char *workload, const char *key, const char *path)
{
	char val[256];

	if (!read_file(path, val, sizeof(val)))
		emit_info(workload, key, val);
}

/* sysfs_write() that records a failure; 0 or -errno */
static int write_attr(const char *workload, int iter, const char *path,
		      const char *val, double *ms)
{
	int rc = sysfs_write(path, val, ms);

	if (rc)
		emit_error(workload, iter, "write '%s' to %s: %s", val, path,
			   strerror(-rc));
	return rc;
}

static void info_ll(const char *workload, const char *key, long long v)
{
	char buf[32];

	xsnprintf(buf, sizeof(buf), "%lld", v);
	emit_info(workload, key, buf);
}

/*
 * kmem
 */

struct kmem {
	const struct params *p;
	char dax[64];		/* dax bus device, e.g. "dax0.0" */
	char dir[PATH_MAX];	/* its sysfs directory */
	unsigned long block;	/* memory block size, bytes */
	unsigned long start;	/* the range kmem adds: block aligned, bytes */
	unsigned long size;
	unsigned long first;	/* its first memory block */
	unsigned long nr_blocks;
	int has_memmap_attr;	/* dax memmap_on_memory exists (6.8+) */
	int id_added;		/* dax written to kmem/new_id */
	int stuck;		/* memory left with kmem: no teardown */
	int samples;
};

static const char KMEM[] = "kmem";

/* the dax driver dev is bound to, "" if none */
static void dax_driver(const struct kmem *k, char *buf, size_t size)
{
	char path[PATH_MAX + 16], target[PATH_MAX];
	const char *base;
	ssize_t n;

	buf[0] = '\0';
	xsnprintf(path, sizeof(path), "%s/driver", k->dir);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	xsnprintf(buf, size, "%s", base ? base + 1 : target);
}

/* a write to /sys/bus/dax/drivers/<drv>/<attr> of the device name */
static int dax_drv_write(struct kmem *k, int iter, const char *drv,
			 const char *attr, double *ms)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/%s/%s", DAX_DRIVERS, drv, attr);
	return write_attr(KMEM, iter, path, k->dax, ms);
}

/* unbind the device from whatever dax driver holds it */
static int dax_unbind_any(struct kmem *k, int iter)
{
	char drv[NAME_MAX + 1];

	dax_driver(k, drv, sizeof(drv));
	if (!drv[0])
		return 0;
	return dax_drv_write(k, iter, drv, "unbind", NULL);
}

/*
 * The range dev_dax_kmem_range() hotplugs: the device's range with its
 * start rounded up and its end rounded down to memory blocks.
 */
static int kmem_range(struct kmem *k)
{
	char path[PATH_MAX + 16];
	unsigned long res, size, end;
	int rc;

	rc = read_ul(BLOCK_SIZE_FILE, 16, &k->block);
	if (rc || !k->block) {
		emit_error(KMEM, -1, "cannot read %s: %s", BLOCK_SIZE_FILE,
			   strerror(rc ? -rc : EINVAL));
		return -1;
	}
	xsnprintf(path, sizeof(path), "%s/resource", k->dir);
	rc = read_ul(path, 0, &res);
	if (!rc) {
		xsnprintf(path, sizeof(path), "%s/size", k->dir);
		rc = read_ul(path, 0, &size);
	}
	if (rc) {
		emit_error(KMEM, -1, "cannot read %s: %s", path,
			   strerror(-rc));
		return -1;
	}
	k->start = (res + k->block - 1) / k->block * k->block;
	end = (res + size) / k->block * k->block;
	if (end <= k->start) {
		emit_error(KMEM, -1,
			   "%s (%lu bytes at %#lx) holds no whole %lu-byte "
			   "memory block", k->dax, size, res, k->block);
		return -1;
	}
	k->size = end - k->start;
	k->first = k->start / k->block;
	k->nr_blocks = k->size / k->block;
	emit_info(KMEM, "dax_device", k->dax);
	emit_info_ul(KMEM, "dax_size", size);
	emit_info_ul(KMEM, "memory_block_size", k->block);
	emit_info_ul(KMEM, "hotplug_bytes", k->size);
	emit_info_ul(KMEM, "memory_blocks", k->nr_blocks);
	return 0;
}

/*
 * The state of every memory block of the range: how many are online, and
 * how many exist at all.
 */
static void kmem_blocks(const struct kmem *k, unsigned long *online,
			unsigned long *present)
{
	char path[PATH_MAX], state[32];
	unsigned long i;

	*online = *present = 0;
	for (i = 0; i < k->nr_blocks; i++) {
		xsnprintf(path, sizeof(path), "%s/memory%lu/state", MEMORY_DIR,
			  k->first + i);
		if (read_file(path, state, sizeof(state)))
			continue;
		(*present)++;
		if (!strcmp(state, "online"))
			(*online)++;
	}
}

/*
 * Online memory block n as online_movable, if it is offline: 1 when it
 * did, 0 when there was nothing to do, -1 after an error record. The
 * write's time is added to *ns, when given.
 */
static int block_online_movable(const char *workload, int iter,
				unsigned long n, long long *ns)
{
	char path[PATH_MAX], state[32];
	long long t;
	int rc;

	xsnprintf(path, sizeof(path), "%s/memory%lu/state", MEMORY_DIR, n);
	if (read_file(path, state, sizeof(state)) || strcmp(state, "offline"))
		return 0;
	t = now_ns();
	rc = sysfs_write(path, "online_movable", NULL);
	if (ns)
		*ns += now_ns() - t;
	if (rc) {
		emit_error(workload, iter, "write 'online_movable' to %s: %s",
			   path, strerror(-rc));
		return -1;
	}
	return 1;
}

/*
 * What daxctl reconfigure-device --mode=system-ram does after the bind
 * when the kernel left the blocks offline: online each one, movable (its
 * default). Returns how many it onlined, or -1 after an error record.
 */
static long kmem_online_all(const struct kmem *k, int iter)
{
	unsigned long i;
	long n = 0;
	int rc;

	for (i = 0; i < k->nr_blocks; i++) {
		rc = block_online_movable(KMEM, iter, k->first + i, NULL);
		if (rc < 0)
			return -1;
		n += rc;
	}
	return n;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Offline every block of the range, each write bounded by SIGALRM
 * (offline_pages() gives up with EINTR on any signal). 0, or -1 after
 * onlining again (to mode) the blocks it had offlined.
 */
static int kmem_offline(struct kmem *k, int iter, const char *mode)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	char path[PATH_MAX], state[32];
	unsigned long i;
	int rc = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);	/* no SA_RESTART */
	for (i = 0; i < k->nr_blocks && !rc; i++) {
		xsnprintf(path, sizeof(path), "%s/memory%lu/state", MEMORY_DIR,
			  k->first + i);
		if (!read_file(path, state, sizeof(state)) &&
		    !strcmp(state, "offline"))
			continue;
		alarm(OFFLINE_TIMEOUT_S);
		rc = sysfs_write(path, "offline", NULL);
		alarm(0);
		if (rc == -EINTR)
			emit_error(KMEM, iter,
				   "offlining memory%lu did not finish in %d s",
				   k->first + i, OFFLINE_TIMEOUT_S);
		else if (rc)
			emit_error(KMEM, iter, "write 'offline' to %s: %s",
				   path, strerror(-rc));
	}
	sigaction(SIGALRM, &old, NULL);
	if (!rc)
		return 0;
	/* the blocks offlined before the failure go back into use */
	while (i-- > 1) {
		xsnprintf(path, sizeof(path), "%s/memory%lu/state", MEMORY_DIR,
			  k->first + i - 1);
		if (!read_file(path, state, sizeof(state)) &&
		    !strcmp(state, "offline"))
			write_attr(KMEM, iter, path, mode, NULL);
	}
	return -1;
}

/* the zones that grew between a and b, e.g. "0:Movable+1048576" */
static void zones_grown(const struct zones *a, const struct zones *b,
			char *buf, size_t size)
{
	unsigned int i, j;
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < b->nr; i++) {
		unsigned long before = 0;

		for (j = 0; j < a->nr; j++)
			if (!strcmp(a->z[j].name, b->z[i].name))
				before = a->z[j].present;
		if (b->z[i].present == before || len + 64 > size)
			continue;
		len += xsnprintf(buf + len, size - len, "%s%s%+ld",
				 len ? "," : "", b->z[i].name,
				 (long)(b->z[i].present - before));
	}
}

/*
 * One iteration: kmem takes the device (timed: "online"), every block is
 * offlined and kmem lets go of it (timed together: "offline"), device_dax
 * takes it back. Returns 0, -1 if the variant should stop, -2 if the
 * memory stays plugged and the workload must stop.
 */
static int kmem_iter(struct kmem *k, const char *mode, int want_mm, int iter)
{
	/*
	 * "offline": kmem adds the blocks offline and the runner onlines
	 * them, movable, as daxctl does (timed with the bind: "online")
	 */
	const int offline = !strcmp(mode, "offline");
	unsigned long long size_pages = k->size / page_size();
	struct zones z0, z1, z2;
	unsigned long mt0, mt1, mt2, online, exist;
	long long t0, tadd, t1, t2, t3, delta_kib;
	long onlined = 0;
	int rc, bad = 0, effective, win;
	char grown[256];

	if (write_attr(KMEM, iter, AUTO_ONLINE, mode, NULL))
		return -1;
	rc = zones_read(&z0);
	if (rc) {
		emit_error(KMEM, iter, "cannot read /proc/zoneinfo: %s",
			   strerror(-rc));
		return -1;
	}
	mt0 = memtotal_kib();
	if (dax_unbind_any(k, iter))
		return -1;

	win = window_open();
	t0 = now_ns();
	rc = dax_drv_write(k, iter, "kmem", "bind", NULL);
	tadd = now_ns();
	if (rc) {
		window_close(win);
		dax_drv_write(k, iter, "device_dax", "bind", NULL);
		return -1;
	}
	if (offline) {
		onlined = kmem_online_all(k, iter);
		bad = onlined < 0;
	}
	t1 = now_ns();
	window_close(win);
	if (offline && iter == 0 && !bad) {
		info_ll(KMEM, "blocks_onlined_by_runner", onlined);
		/* kmem's part of it: add_memory() with nobody onlining */
		info_ll(KMEM, "add_us", (tadd - t0) / 1000);
	}

	/* all blocks online, present grown by exactly the range */
	kmem_blocks(k, &online, &exist);
	zones_read(&z1);
	mt1 = memtotal_kib();
	delta_kib = (long long)mt1 - (long long)mt0;
	if (!bad && (exist != k->nr_blocks || online != k->nr_blocks)) {
		emit_error(KMEM, iter,
			   "after the bind %lu of %lu memory blocks exist and "
			   "%lu are online (auto_online_blocks=%s)", exist,
			   k->nr_blocks, online, mode);
		bad = 1;
	}
	if (!bad && z1.present - z0.present != size_pages) {
		emit_error(KMEM, iter,
			   "present pages grew by %ld, not by the %llu pages "
			   "of the range", (long)(z1.present - z0.present),
			   size_pages);
		bad = 1;
	}
	/* the memmap on the memory is present but not managed */
	effective = delta_kib < (long long)(k->size / 1024);
	if (!bad && iter == 0) {
		zones_grown(&z0, &z1, grown, sizeof(grown));
		emit_info(KMEM, "zones_grown", grown);
		info_ll(KMEM, "memtotal_delta_kib", delta_kib);
		emit_info(KMEM, "memmap_on_memory_effective",
			  effective ? "1" : "0");
		if (effective)
			info_ll(KMEM, "memmap_kib",
				(long long)(k->size / 1024) - delta_kib);
	}
	if (!bad &&
	    (delta_kib > (long long)(k->size / 1024) || delta_kib <= 0 ||
		     (effective &&
		      ((k->size / 1024 - delta_kib) % k->nr_blocks)))) {
		emit_error(KMEM, iter,
			   "MemTotal grew by %lld KiB for a %lu KiB range",
			   delta_kib, k->size / 1024);
		bad = 1;
	}
	if (!bad && effective != want_mm) {
		emit_error(KMEM, iter,
			   "memmap_on_memory=%d asked for, but the memmap is "
			   "%s (MemTotal grew by %lld of %lu KiB)", want_mm,
			   effective ? "on the memory" : "in RAM", delta_kib,
			   k->size / 1024);
		bad = 1;
	}
	if (!bad) {
		emit_sample_unit(KMEM, "online", "ms", iter, (t1 - t0) / 1e6,
				 3);
		k->samples++;
	}

	/* offline and remove, timed together */
	win = window_open();
	t2 = now_ns();
	if (kmem_offline(k, iter, offline ? "online_movable" : mode)) {
		window_close(win);
		emit_error(KMEM, iter,
			   "%s stays with kmem (an unbind would leave its "
			   "memory plugged until reboot): stopping", k->dax);
		k->stuck = 1;
		return -2;
	}
	rc = dax_drv_write(k, iter, "kmem", "unbind", NULL);
	t3 = now_ns();
	window_close(win);
	if (rc) {
		k->stuck = 1;
		return -2;
	}

	/* blocks gone, present and MemTotal back, no kmem range left */
	kmem_blocks(k, &online, &exist);
	zones_read(&z2);
	mt2 = memtotal_kib();
	if (exist) {
		emit_error(KMEM, iter,
			   "%lu memory blocks of %s remain after the kmem unbind",
			   exist, k->dax);
		k->stuck = 1;
		return -2;
	}
	if (z2.present != z0.present || mt2 != mt0 ||
	    iomem_bytes("System RAM (kmem)") != 0) {
		emit_error(KMEM, iter,
			   "after removal present pages are %lu (before %lu), "
			   "MemTotal %lu KiB (before %lu KiB), kmem ranges in "
			   "/proc/iomem %lld bytes", z2.present, z0.present,
			   mt2, mt0, iomem_bytes("System RAM (kmem)"));
		bad = 1;
	} else if (!bad) {
		emit_sample_unit(KMEM, "offline", "ms", iter, (t3 - t2) / 1e6,
				 3);
		k->samples++;
	}
	fprintf(stderr, "mmci-runner: kmem %s iter %d: online %.3f ms, "
		"offline %.3f ms\n", mode, iter, (t1 - t0) / 1e6,
		(t3 - t2) / 1e6);

	if (dax_drv_write(k, iter, "device_dax", "bind", NULL))
		return -1;
	return bad ? -1 : 0;
}

/* one online mode x memmap placement; returns kmem_iter()'s worst */
static const char *online_mode(unsigned int online)
{
	return online == ONLINE_MOVABLE ? "online_movable" :
	       online == ONLINE_OFFLINE ? "offline" : "online";
}

/*
 * The policies in the order they run in one boot: online_movable first,
 * online (ZONE_NORMAL) last: offlining ZONE_NORMAL memory fails when
 * kernel allocations landed in it, and that ends the workload.
 */
static const unsigned int online_order[] = {
	ONLINE_MOVABLE, ONLINE_OFFLINE, ONLINE_KERNEL,
};

static int kmem_variant(struct kmem *k, unsigned int online, unsigned int mm)
{
	const char *mode = online_mode(online);
	int want_mm = mm == MEMMAP_ON_MEMORY;
	char path[PATH_MAX + 32];
	unsigned int i;
	int rc = 0;

	set_variant("online=%s,memmap_on_memory=%d", mode, want_mm);
	xsnprintf(path, sizeof(path), "%s/memmap_on_memory", k->dir);
	if (!k->has_memmap_attr && want_mm) {
		emit_error(KMEM, -1,
			   "no %s: a per-device memmap_on_memory needs linux "
			   "6.8 or later", path);
		return -1;
	}
	if (k->has_memmap_attr) {
		char drv[NAME_MAX + 1];

		/* the flag cannot change while kmem holds the device */
		dax_driver(k, drv, sizeof(drv));
		if (!strcmp(drv, "kmem"))
			dax_unbind_any(k, -1);
		rc = sysfs_write(path, want_mm ? "1" : "0", NULL);
		if (rc) {
			char param[8] = "?";

			read_file(MHP_PARAMS "/memmap_on_memory", param,
				  sizeof(param));
			emit_error(KMEM, -1,
				   "write '%d' to %s: %s (memory_hotplug."
				   "memmap_on_memory=%s)", want_mm, path,
				   strerror(-rc), param);
			return -1;
		}
		info_file(KMEM, "memmap_on_memory", path);
	}
	for (i = 0; i < k->p->hotplug_iters; i++) {
		rc = kmem_iter(k, mode, want_mm, i);
		if (rc)
			break;
	}
	return rc;
}

int run_kmem(const struct params *p)
{
	struct kmem k = { .p = p };
	char old_online[32] = "", path[PATH_MAX + 32];
	unsigned int on, mm;
	size_t i;
	int rc;

	if (access(AUTO_ONLINE, W_OK)) {
		emit_error(KMEM, -1, "no %s: %s (kernel without "
			   "CONFIG_MEMORY_HOTPLUG?)", AUTO_ONLINE,
			   strerror(errno));
		return -1;
	}
	if (access(DAX_DRIVERS "/kmem", F_OK)) {
		emit_error(KMEM, -1, "driver 'kmem' is not registered on the "
			   "dax bus (module kmem not loaded?)");
		return -1;
	}
	if (access(DAX_DRIVERS "/device_dax", F_OK)) {
		emit_error(KMEM, -1, "driver 'device_dax' is not registered "
			   "on the dax bus (module device_dax not loaded?)");
		return -1;
	}
	if (wait_for_path(ND_NAMESPACE, NAMESPACE_WAIT_MS)) {
		emit_error(KMEM, -1, "no %s after %d s", ND_NAMESPACE,
			   NAMESPACE_WAIT_MS / 1000);
		return -1;
	}
	info_file(KMEM, "mhp_memmap_on_memory",
		  MHP_PARAMS "/memmap_on_memory");
	info_file(KMEM, "mhp_online_policy", MHP_PARAMS "/online_policy");
	read_file(AUTO_ONLINE, old_online, sizeof(old_online));

	if (nd_devdax_setup(KMEM, KMEM_ALIGN, k.dax, sizeof(k.dax)))
		return -1;
	xsnprintf(k.dir, sizeof(k.dir), "%s/%s", DAX_DEVICES, k.dax);
	xsnprintf(path, sizeof(path), "%s/memmap_on_memory", k.dir);
	k.has_memmap_attr = !access(path, F_OK);
	if (kmem_range(&k))
		goto out;

	/*
	 * Let kmem match the device by name, as daxctl does: new_id while
	 * device_dax holds it attaches nothing, and every timed attach
	 * below is then the same "bind" write.
	 */
	if (dax_drv_write(&k, -1, "kmem", "new_id", NULL))
		goto out;
	k.id_added = 1;

	rc = 0;
	for (i = 0; i < ARRAY_SIZE(online_order) && rc != -2; i++) {
		on = online_order[i];
		if (!(p->kmem_online & on))
			continue;
		for (mm = MEMMAP_RAM; mm <= MEMMAP_ON_MEMORY && rc != -2;
		     mm <<= 1) {
			if (p->kmem_memmap & mm)
				rc = kmem_variant(&k, on, mm);
		}
	}
	clear_variant();
out:
	if (old_online[0])
		write_attr(KMEM, -1, AUTO_ONLINE, old_online, NULL);
	if (k.stuck) {
		emit_error(KMEM, -1, "%s left with kmem: namespace0.0 not "
			   "torn down", k.dax);
		return k.samples ? 0 : -1;
	}
	if (k.id_added)
		dax_drv_write(&k, -1, "kmem", "remove_id", NULL);
	nd_devdax_teardown(KMEM);
	return k.samples ? 0 : -1;
}

/*
 * virtio-mem
 */

struct vmem {
	const struct params *p;
	char dev[32];		/* "virtio0" */
	int irq;		/* of "<dev>-config", -1 if none */
	int count_fd;		/* its per_cpu_count, or /proc/interrupts */
	int count_proc;		/* count_fd is /proc/interrupts */
	int uevent_fd;		/* -1 if none */
	int fifo_ok;		/* sched_setscheduler() worked */
	unsigned long block;	/* memory block size, bytes */
	unsigned long base_present;	/* pages, before the first plug */
	unsigned long base_memtotal;	/* KiB */
	unsigned long requested_mib;	/* last request */
	int samples;
	/*
	 * auto_online_blocks=offline: virtio-mem adds blocks offline and
	 * stops adding while too much of its memory is offline (its
	 * offline_threshold), so the runner onlines each block it hears of
	 * (an "add" uevent) as online_movable, and times those writes.
	 */
	int offline;
	unsigned long pending[256];	/* blocks added, not onlined yet */
	unsigned int nr_pending;
	int rescan;		/* uevents lost: look at every block */
	long long online_ns;	/* spent onlining in this step */
	unsigned long onlined;	/* blocks the runner onlined */
};

static const char VMEM[] = "virtio-mem";
static unsigned int vmem_seq;	/* requests in this boot */

/* the first virtioN bound to virtio_mem */
static int vmem_find_device(struct vmem *v)
{
	struct dirent *de;
	DIR *dir;
	int rc = -1;

	dir = opendir(VMEM_DRIVER);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "virtio", 6) ||
		    !strchr("0123456789", de->d_name[6]) || !de->d_name[6])
			continue;
		xsnprintf(v->dev, sizeof(v->dev), "%s", de->d_name);
		rc = 0;
		break;
	}
	closedir(dir);
	return rc;
}

/*
 * The interrupt that tells the guest its config changed: the MSI-X vector
 * "<dev>-config", or else the device's INTx line if no other device shares
 * it (QEMU 7.2's virtio-mem-pci has no MSI-X). On the INTx line a config
 * change and a used buffer look the same, but the driver has no request in
 * flight while it waits for the host. Returns the irq (*kind says which)
 * or -1.
 */
static int vmem_config_irq(const struct vmem *v, const char **kind)
{
	char want[48], *line, *next;
	int irq = -1, intx = -1;
	struct sb sb;

	xsnprintf(want, sizeof(want), "%s-config", v->dev);
	sb_init(&sb);
	if (read_all("/proc/interrupts", &sb)) {
		sb_release(&sb);
		return -1;
	}
	for (line = sb.buf; line && *line && irq < 0; line = next) {
		char *end, *last;
		long n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strtol(line, &end, 10);
		if (end == line || *end != ':')
			continue;
		while ((last = strrchr(line, ' ')) && !last[1])
			*last = '\0';
		if (!last || !strstr(line, v->dev))
			continue;
		emit_info(VMEM, "interrupt", line);
		if (!strcmp(last + 1, want))
			irq = n;
		else if (!strcmp(last + 1, v->dev) && last[-1] != ',')
			intx = n;
	}
	sb_release(&sb);
	*kind = irq >= 0 ? "msix_config" : "intx";
	return irq >= 0 ? irq : intx;
}

/* the interrupt count of v->irq, summed over the CPUs; 0 or -1 */
static int vmem_irq_count(struct vmem *v, unsigned long long *count)
{
	char buf[4096], *s, *end;
	unsigned long long sum = 0;
	ssize_t n;

	if (!v->count_proc) {
		n = pread(v->count_fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return -1;
		buf[n] = '\0';
		for (s = buf; *s; s = end) {
			sum += strtoull(s, &end, 10);
			if (end == s)
				break;
			if (*end == ',')
				end++;
		}
		*count = sum;
		return 0;
	} else {
		struct sb sb;
		char want[16];
		int rc = -1;

		xsnprintf(want, sizeof(want), "\n%d:", v->irq);
		sb_init(&sb);
		sb_addch(&sb, '\n');
		if (lseek(v->count_fd, 0, SEEK_SET) == 0) {
			for (;;) {
				sb_grow(&sb, 4096);
				n = read(v->count_fd, sb.buf + sb.len,
					 sb.alloc - sb.len - 1);
				if (n <= 0)
					break;
				sb.len += n;
				sb.buf[sb.len] = '\0';
			}
		}
		s = strstr(sb.buf, want);
		if (s) {
			s += strlen(want);
			for (;;) {
				unsigned long long c = strtoull(s, &end, 10);

				if (end == s)
					break;
				sum += c;
				s = end;
			}
			*count = sum;
			rc = 0;
		}
		sb_release(&sb);
		return rc;
	}
}

static void vmem_open_counter(struct vmem *v)
{
	char path[64];

	v->count_fd = -1;
	if (v->irq < 0)
		return;
	xsnprintf(path, sizeof(path), "/sys/kernel/irq/%d/per_cpu_count",
		  v->irq);
	v->count_fd = open(path, O_RDONLY | O_CLOEXEC);
	v->count_proc = v->count_fd < 0;
	if (v->count_proc)
		v->count_fd = open("/proc/interrupts", O_RDONLY | O_CLOEXEC);
}

static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = UEVENT_RCVBUF;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read every queued uevent; 1 if one was about a memory block (or some
 * were lost, which may have been), else 0. @each, when not NULL, sees
 * every message, and *lost (when not NULL) is set if some were lost.
 */
static int uevent_read(int fd, void (*each)(void *, const char *),
		       void *data, int *lost)
{
	char buf[8192];
	int memory = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			memory = 1;
			if (lost)
				*lost = 1;
			continue;
		}
		if (n <= 0)
			return memory;
		buf[n] = '\0';
		/* "online@/devices/system/memory/memory40" */
		if (strstr(buf, "@/devices/system/memory/memory"))
			memory = 1;
		if (each)
			each(data, buf);
	}
}

static int uevent_drain(int fd)
{
	return uevent_read(fd, NULL, NULL, NULL);
}

/* one uevent message: an "add" of a memory block goes to v->pending */
static void vmem_note_uevent(void *data, const char *msg)
{
	static const char add[] = "add@/devices/system/memory/memory";
	struct vmem *v = data;
	const char *p;
	char *end;
	unsigned long n;

	if (strncmp(msg, add, sizeof(add) - 1))
		return;
	p = msg + sizeof(add) - 1;
	n = strtoul(p, &end, 10);
	if (end == p || *end)
		return;
	if (v->nr_pending < ARRAY_SIZE(v->pending))
		v->pending[v->nr_pending++] = n;
	else
		v->rescan = 1;
}

/* uevent_drain(), keeping the memory blocks added for v->offline */
static int vmem_drain(struct vmem *v)
{
	if (!v->offline)
		return uevent_drain(v->uevent_fd);
	if (v->uevent_fd < 0) {
		v->rescan = 1;
		return 0;
	}
	return uevent_read(v->uevent_fd, vmem_note_uevent, v, &v->rescan);
}

/* online memory block n as online_movable if it is offline; timed */
static int vmem_online_block(struct vmem *v, unsigned long n)
{
	int rc = block_online_movable(VMEM, -1, n, &v->online_ns);

	if (rc > 0)
		v->onlined++;
	return rc;
}

/* online what virtio-mem added offline; a rescan looks at every block */
static void vmem_online_pending(struct vmem *v)
{
	unsigned int i;

	for (i = 0; i < v->nr_pending; i++)
		vmem_online_block(v, v->pending[i]);
	v->nr_pending = 0;
	if (v->rescan) {
		DIR *d = opendir(MEMORY_DIR);
		struct dirent *de;

		v->rescan = 0;
		while (d && (de = readdir(d))) {
			const char *p;
			char *end;
			unsigned long n;

			if (strncmp(de->d_name, "memory", 6))
				continue;
			p = de->d_name + strlen("memory");
			n = strtoul(p, &end, 10);
			if (end != p && !*end)
				vmem_online_block(v, n);
		}
		if (d)
			closedir(d);
	}
}

static void set_sched(int policy)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO };

	sched_setscheduler(0, policy, &sp);
}

static long involuntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_nivcsw;
}

/*
 * Spin as SCHED_FIFO until the config interrupt count moves past c0 and
 * take the time at once. Returns 0 with *t0, -ETIMEDOUT, or -EAGAIN if
 * the runner was switched out just before it saw the interrupt (the
 * workqueue may have run first: the start is not exact).
 */
static int vmem_wait_irq(struct vmem *v, unsigned long long c0,
			 long long deadline, long long *t0)
{
	unsigned long long c = c0;
	unsigned long spins;
	long sw;
	int rc = -ETIMEDOUT;

	if (v->fifo_ok)
		set_sched(SCHED_FIFO);
	sw = involuntary_switches();
	for (spins = 0; spins < IRQ_SPIN_MAX; spins++) {
		if (!vmem_irq_count(v, &c) && c != c0) {
			*t0 = now_ns();
			/* before SCHED_OTHER, which lets the worker in */
			rc = involuntary_switches() == sw ? 0 : -EAGAIN;
			break;
		}
		if (!(spins & 63) && now_ns() > deadline)
			break;
		sw = involuntary_switches();
	}
	if (v->fifo_ok)
		set_sched(SCHED_OTHER);
	return rc;
}

/*
 * Wait for the first memory uevent; 0 with *t0, or -ETIMEDOUT. It spins
 * (yielding to the workqueue) rather than sleeps: in icount mode an idle
 * guest's clock jumps ahead, and the deadline would pass at once while
 * the host has not acted yet.
 */
static int vmem_wait_uevent(struct vmem *v, long long deadline, long long *t0)
{
	unsigned long spins;

	for (spins = 0; spins < IRQ_SPIN_MAX; spins++) {
		if (vmem_drain(v)) {
			*t0 = now_ns();
			return 0;
		}
		if (!(spins & 63) && now_ns() > deadline)
			break;
		sched_yield();
	}
	return -ETIMEDOUT;
}

/*
 * Wait until present is exactly target_pages and the "System RAM
 * (virtio_mem)" ranges are exactly target_bytes (a removal releases them
 * last). MemTotal is checked on every wake-up, /proc/zoneinfo only when
 * MemTotal or a memory block changed: present changes only when a block
 * is onlined or offlined, and each one sends a uevent. Returns 0 with *t1,
 * or -ETIMEDOUT with the last present value in *seen.
 */
static int vmem_wait_target(struct vmem *v, unsigned long target_pages,
			    long long target_bytes, long long deadline,
			    long long *t1, unsigned long *seen)
{
	unsigned long mt, last_mt = 0;
	int check = 1, present_ok = 0;
	struct zones z;

	*seen = 0;
	for (;;) {
		struct pollfd pfd = { .fd = v->uevent_fd, .events = POLLIN };

		if (v->offline && (v->nr_pending || v->rescan)) {
			vmem_online_pending(v);
			check = 1;
		}
		mt = memtotal_kib();
		if (mt != last_mt || check || v->uevent_fd < 0) {
			last_mt = mt;
			check = 0;
			if (!zones_read(&z))
				*seen = z.present;
			present_ok = *seen == target_pages;
		}
		if (present_ok && iomem_bytes("System RAM (virtio_mem)") ==
				  target_bytes) {
			*t1 = now_ns();
			return 0;
		}
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		if (poll(&pfd, v->uevent_fd < 0 ? 0 : 1,
			 present_ok ? RELEASE_POLL_MS : POLL_MS) > 0)
			check = vmem_drain(v);
		else if (v->offline && v->uevent_fd < 0)
			v->rescan = 1;	/* no uevents: look now and then */
	}
}

static void vmem_request(struct vmem *v, unsigned long mib)
{
	char fields[128];

	xsnprintf(fields, sizeof(fields),
		  "\"action\":\"virtio-mem-resize\",\"requested_mib\":%lu,"
		  "\"seq\":%u", mib, ++vmem_seq);
	emit_request(VMEM, fields);
	v->requested_mib = mib;
}

/* the block-rounded bytes a request of mib plugs */
static long long vmem_target_bytes(const struct vmem *v, unsigned long mib)
{
	unsigned long long b = (unsigned long long)mib << 20;

	return (b + v->block - 1) / v->block * v->block;
}

/* present and the virtio_mem ranges are the target already */
static int vmem_at_target(unsigned long target_pages, long long target_bytes)
{
	struct zones z;

	return !zones_read(&z) && z.present == target_pages &&
	       iomem_bytes("System RAM (virtio_mem)") == target_bytes;
}

/*
 * One resize to mib: request it, start the clock at the config interrupt
 * and stop it when the target is reached. A sample is written if metric
 * is not NULL. Returns 0 (with a sample, or an error record if the start
 * was not exact), or -1 if the target was not reached: the workload stops.
 */
static int vmem_step(struct vmem *v, const char *metric, unsigned long mib,
		     int iter)
{
	const char *what = metric ? metric : "unplug of everything";
	long long target_bytes = vmem_target_bytes(v, mib);
	unsigned long target = v->base_present + target_bytes / page_size();
	unsigned long long c0 = 0, moved;
	unsigned long seen;
	long long t0 = 0, t1, timeout;
	int rc, have_irq;

	moved = (unsigned long long)(mib > v->requested_mib ?
				     mib - v->requested_mib :
				     v->requested_mib - mib) << 20;
	timeout = (STEP_BASE_S + STEP_PER_GIB_S * ((moved + (1ULL << 30) - 1) >>
						   30)) * NS_PER_S;
	uevent_drain(v->uevent_fd);
	v->nr_pending = 0;
	v->online_ns = 0;
	v->onlined = 0;
	v->rescan = 0;
	have_irq = v->count_fd >= 0 && !vmem_irq_count(v, &c0);

	vmem_request(v, mib);
	if (!metric && vmem_at_target(target, target_bytes))
		return 0;	/* nothing plugged: no need to wait */
	if (have_irq)
		rc = vmem_wait_irq(v, c0, now_ns() + IRQ_WAIT_S * NS_PER_S,
				   &t0);
	else if (v->uevent_fd >= 0)
		rc = vmem_wait_uevent(v, now_ns() + IRQ_WAIT_S * NS_PER_S,
				      &t0);
	else
		rc = -EAGAIN;
	if (rc == -ETIMEDOUT) {
		emit_error(VMEM, iter,
			   "%s to %lu MiB: no %s within %d s (guest time) of "
			   "request %u: did the host act on it?", what, mib,
			   have_irq ? "config interrupt" : "memory uevent",
			   IRQ_WAIT_S, vmem_seq);
		return -1;
	}
	if (rc == -EAGAIN && metric)
		emit_error(VMEM, iter,
			   "%s to %lu MiB: the runner was switched out just "
			   "before it saw the config interrupt, the start is "
			   "not exact: no sample", what, mib);
	if (rc)
		t0 = 0;

	rc = vmem_wait_target(v, target, target_bytes,
			      (t0 ? t0 : now_ns()) + timeout, &t1, &seen);
	if (rc) {
		emit_error(VMEM, iter,
			   "%s to %lu MiB not done in %lld s: present pages "
			   "%lu, target %lu (%lu before the first plug + %lld "
			   "bytes)", what, mib, timeout / NS_PER_S, seen,
			   target, v->base_present, target_bytes);
		return -1;
	}
	if (!metric)
		return 0;
	if (t0) {
		emit_sample_unit(VMEM, metric, "ms", iter, (t1 - t0) / 1e6, 3);
		v->samples++;
		/* the part of a plug the runner spent onlining */
		if (v->offline && mib > 0)
			emit_sample_unit(VMEM, "online", "ms", iter,
					 v->online_ns / 1e6, 3);
	}
	if (v->offline && mib > 0 && iter == 0)
		info_ll(VMEM, "blocks_onlined_by_runner", (long long)v->onlined);
	fprintf(stderr, "mmci-runner: virtio-mem %s to %lu MiB iter %d: "
		"%.3f ms\n", metric, mib, iter, t0 ? (t1 - t0) / 1e6 : -1.0);
	if (iter == 0)
		info_ll(VMEM, "memtotal_delta_kib",
			(long long)memtotal_kib() - (long long)v->base_memtotal);
	return 0;
}

/* ascending, without duplicates: the plug steps in MiB */
static unsigned int vmem_steps(const struct params *p, unsigned long *mib)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < p->nr_vmem && i < MAX_LIST; i++) {
		unsigned long m = p->vmem_mib[i];

		if (!m)
			continue;
		for (j = n; j > 0 && mib[j - 1] > m; j--)
			mib[j] = mib[j - 1];
		if (j > 0 && mib[j - 1] == m) {
			memmove(&mib[j], &mib[j + 1], (n - j) * sizeof(*mib));
			continue;
		}
		mib[j] = m;
		n++;
	}
	return n;
}

int run_virtio_mem(const struct params *p)
{
	struct vmem v = { .p = p, .irq = -1, .count_fd = -1, .uevent_fd = -1 };
	unsigned long mib[MAX_LIST];
	char old_online[32] = "", name[32];
	const char *kind = NULL;
	unsigned int nr, cycle, i;
	size_t pi;
	long long plugged;
	struct sched_param sp = { .sched_priority = 1 };
	struct zones z;
	int rc = 0;

	if (vmem_find_device(&v)) {
		emit_error(VMEM, -1, "no virtio-mem device (no <memory "
			   "model='virtio-mem'> in the domain, or virtio_mem "
			   "not loaded)");
		return -1;
	}
	nr = vmem_steps(p, mib);
	if (!nr) {
		emit_error(VMEM, -1, "no plug sizes");
		return -1;
	}
	if (read_ul(BLOCK_SIZE_FILE, 16, &v.block) || !v.block) {
		emit_error(VMEM, -1, "cannot read %s", BLOCK_SIZE_FILE);
		return -1;
	}
	emit_info(VMEM, "device", v.dev);
	emit_info_ul(VMEM, "memory_block_size", v.block);
	plugged = iomem_bytes("System RAM (virtio_mem)");
	if (plugged) {
		emit_error(VMEM, -1, "virtio-mem memory in /proc/iomem before "
			   "the first plug: %lld (the targets assume none)",
			   plugged);
		return -1;
	}
	for (i = 0; i < nr; i++)
		if ((unsigned long long)vmem_target_bytes(&v, mib[i]) !=
		    (unsigned long long)mib[i] << 20)
			emit_info_ul(VMEM, "rounded_to_memory_block_mib",
				     mib[i]);

	v.irq = vmem_config_irq(&v, &kind);
	vmem_open_counter(&v);
	if (v.count_fd >= 0) {
		emit_info_ul(VMEM, "config_irq", v.irq);
		emit_info(VMEM, "clock_start", kind);
		emit_info(VMEM, "irq_count_from",
			  v.count_proc ? "/proc/interrupts" : "per_cpu_count");
	} else {
		emit_info(VMEM, "clock_start", "first_uevent");
	}
	v.uevent_fd = uevent_open();
	if (v.uevent_fd < 0) {
		emit_error(VMEM, -1, "no uevent socket (%s): polling every "
			   "%d ms", strerror(errno), POLL_MS);
		if (v.count_fd < 0) {
			emit_error(VMEM, -1, "neither a config interrupt nor "
				   "uevents to start the clock");
			goto out;
		}
	}
	v.fifo_ok = !sched_setscheduler(0, SCHED_FIFO, &sp);
	if (v.fifo_ok)
		set_sched(SCHED_OTHER);
	else
		emit_info(VMEM, "sched_fifo", strerror(errno));

	read_file(AUTO_ONLINE, old_online, sizeof(old_online));

	rc = zones_read(&z);
	if (rc) {
		emit_error(VMEM, -1, "cannot read /proc/zoneinfo: %s",
			   strerror(-rc));
		goto out;
	}
	v.base_present = z.present;
	v.base_memtotal = memtotal_kib();
	emit_info_ul(VMEM, "memtotal_kib", v.base_memtotal);
	emit_info_ul(VMEM, "present_pages", v.base_present);

	/*
	 * One policy after the other (online_order: ZONE_NORMAL memory,
	 * which may not unplug, last). online_movable, the default, keeps
	 * the variants "to=SIZE" and "from=SIZE" of earlier runs; the others
	 * add ",online=POLICY".
	 */
	for (pi = 0, rc = 0; pi < ARRAY_SIZE(online_order) && !rc; pi++) {
		const char *mode = online_mode(online_order[pi]);
		char suffix[32] = "";

		if (!(p->vmem_online & online_order[pi]))
			continue;
		if (online_order[pi] != ONLINE_MOVABLE)
			xsnprintf(suffix, sizeof(suffix), ",online=%s", mode);
		v.offline = online_order[pi] == ONLINE_OFFLINE;
		if (write_attr(VMEM, -1, AUTO_ONLINE, mode, NULL)) {
			rc = -1;
			break;
		}
		info_file(VMEM, "auto_online_blocks", AUTO_ONLINE);
		for (cycle = 0; cycle < p->hotplug_iters && !rc; cycle++) {
			for (i = 0; i < nr && !rc; i++) {
				size_name((unsigned long long)mib[i] << 20,
					  name, sizeof(name));
				set_variant("to=%s%s", name, suffix);
				rc = vmem_step(&v, "plug", mib[i], cycle);
			}
			if (rc)
				break;
			set_variant("from=%s%s", name, suffix);
			rc = vmem_step(&v, "unplug", 0, cycle);
		}
		clear_variant();
	}
	v.offline = 0;

	/* leave nothing plugged, whatever happened */
	if (v.requested_mib || rc) {
		v.requested_mib = mib[nr - 1];	/* for the timeout */
		vmem_step(&v, NULL, 0, -1);
	}
out:
	if (old_online[0])
		write_attr(VMEM, -1, AUTO_ONLINE, old_online, NULL);
	if (v.uevent_fd >= 0)
		close(v.uevent_fd);
	if (v.count_fd >= 0)
		close(v.count_fd);
	return v.samples ? 0 : -1;
}
