// SPDX-License-Identifier: GPL-2.0
/*
 * mmci-runner - the workload program that runs inside the test VM.
 *
 * /init starts it after mounting proc, sysfs, devtmpfs and debugfs and
 * loading the nvdimm/dax modules. It reads its parameters from
 * /proc/cmdline, drives the nvdimm bus through sysfs (no ndctl in the
 * guest) and prints one JSON object per line, schema version 1:
 *
 *   {"v":1,"type":"hello","runner":"1","kernel":"..","cmdline":".."}
 *   {"v":1,"type":"info","workload":"fsdax","key":"pages","value":"4194304"}
 *   {"v":1,"type":"sample","workload":"fsdax","metric":"rebind_wall",
 *    "unit":"ms","iter":1,"value":190.412}
 *   {"v":1,"type":"error","workload":"fsdax","iter":3,"msg":".."}
 *   {"v":1,"type":"done","status":"ok"}
 *
 * "workload" and "iter" are left out of an error (and "workload" out of an
 * info) that does not belong to one. Every line is written with one write()
 * as soon as it is complete, so a guest that dies mid-run still leaves the
 * lines before.
 *
 * Workload: a namespace of a few to a hundred GiB on an emulated NVDIMM
 * (QEMU TCG, 1 GiB of RAM). Each bind of the fsdax (pfn) or devdax (dax)
 * personality initialises one struct page per 4 KiB page of it; the kernel
 * times that in memmap_init_zone_device() and says so with a pr_debug, which
 * this program enables and reads back from /dev/kmsg. It also times the bind
 * write itself (CLOCK_MONOTONIC).
 *
 * Every wait is bounded; a sysfs write that never returns is a kernel bug
 * the host catches with its own timeout.
 *
 * Module workloads (see runner/WORKLOADS.md): "vmap" and "memremap" load
 * mmci_bench (runner/mmci-bench/), "vmalloc" loads the kernel's
 * test_vmalloc. Both modules run their benchmark in their init function,
 * print the results to the kernel log and refuse to stay loaded (EAGAIN).
 * The runner loads them itself with finit_module() from
 * /lib/modules/REL/, not with busybox modprobe, which retries a failed
 * finit_module() with init_module() and so runs the benchmark twice. A
 * child process does the load while this one reads /dev/kmsg, so a long
 * run cannot overflow the kernel log buffer before it is read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/random.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

#define RUNNER_VERSION "1"
#define SCHEMA_VERSION 1

#define ND_DEVICES "/sys/bus/nd/devices"
#define ND_DRIVERS "/sys/bus/nd/drivers"
#define DEBUGFS "/sys/kernel/debug"
#define DYNDBG_CONTROL DEBUGFS "/dynamic_debug/control"
#define DYNDBG_FUNC "memmap_init_zone_device"
#define NAMESPACE "namespace0.0"
#define NAMESPACE_DRIVER "nd_pmem"

#define DEFAULT_WORKLOADS "fsdax,devdax"
#define DEFAULT_ITERS 30
#define MAX_ITERS 100000
#define DEFAULT_ALIGN 2097152UL
#define DEFAULT_OUT "/dev/ttyS1"
#define DEFAULT_VMEM_MIB 8192, 16384	/* virtio-mem plug steps */
#define DEFAULT_HOTPLUG_ITERS 3

#define NAMESPACE_WAIT_MS 30000	/* for namespace0.0 to appear */
#define MEMMAP_WAIT_MS 2000	/* for a memmap line after a bind returned */
#define OUTPUT_WAIT_MS 5000	/* for the output to take one line */
#define MAX_BIND_FAILURES 3	/* consecutive failed rebinds end a workload */
#define INFO_BLOCK_OFFSET 4096	/* pfn/dax/btt info block: 4 KiB at 4 KiB */
#define INFO_BLOCK_SIZE 4096

#define MODULES_DIR "/lib/modules"
#define BENCH_MODULE "mmci_bench"
#define VMALLOC_MODULE "test_vmalloc"
#define DEFAULT_BENCH_ITERS 10
#define MAX_BENCH_ITERS 100000
#define DEFAULT_MEMREMAP_SIZE "4G"
/* test_vmalloc: every test but align_shift_alloc_test (64), which fails */
#define DEFAULT_VMALLOC_MASK 0x7bfUL
#define DEFAULT_VMALLOC_LOOPS 10000
#define DEFAULT_VMALLOC_REPEAT 1
#define MODULE_WAIT_MS 1800000	/* for one module load to return */


/* one personality of namespace0.0 that a workload binds and rebinds */
struct workload {
	const char *name;
	const char *seed_attr;	/* region attribute naming the idle seed */
	const char *seed_default;
	const char *driver;	/* nd bus driver that binds the seed */
};

static const struct workload workloads[] = {
	{ "fsdax", "pfn_seed", "pfn0.0", "nd_pmem" },
	{ "devdax", "dax_seed", "dax0.0", "dax_pmem" },
};

/* what the kernel log said about one bind */
struct memmap_stat {
	unsigned long pages;
	unsigned long ms;
	unsigned int lines;	/* one per memmap range */
};

/* the state of one workload run */
struct run {
	const struct workload *w;
	const struct params *p;
	unsigned long align;	/* of this variant, bytes */
	int map_mem;		/* memmap in RAM ("mem") instead of on device */
	char seed[64];		/* e.g. "pfn0.0" */
	char region[PATH_MAX];	/* sysfs directory of the region */
	int samples;		/* samples written */
};

static int out_fd = -1;
static char variant[128];	/* of every record; "" for none */
static int profiling;		/* mmci.profile=1: mark the timed windows */
static const char *cur_workload;	/* the workload running, for marks */
static int kmsg_fd = -1;
static int dyndbg_ok;
static char pending[16][256];	/* errors found before the output is open */
static unsigned int nr_pending;


void *xrealloc(void *ptr, size_t size)
{
	void *ret = realloc(ptr, size);

	if (!ret) {
		fputs("mmci-runner: out of memory\n", stderr);
		abort();
	}
	return ret;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* snprintf for buffers whose size is known to suffice: abort if not */
int PRINTF(3, 4) xsnprintf(char *dst, size_t max, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, max, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= max) {
		fprintf(stderr, "mmci-runner: BUG: truncated '%s'\n", dst);
		abort();
	}
	return n;
}

void sb_init(struct sb *sb)
{
	sb->alloc = 256;
	sb->len = 0;
	sb->buf = xrealloc(NULL, sb->alloc);
	sb->buf[0] = '\0';
}

void sb_release(struct sb *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void sb_grow(struct sb *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	while (sb->len + extra + 1 > sb->alloc)
		sb->alloc *= 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
}

void sb_addch(struct sb *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void PRINTF(2, 0) sb_vaddf(struct sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sb_grow(sb, n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += n;
}

void PRINTF(2, 3) sb_addf(struct sb *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

/*
 * Append s as a JSON string with its quotes. Bytes outside printable ASCII
 * become \u00XX, so the line is valid JSON whatever the kernel printed.
 */
void sb_add_json(struct sb *sb, const char *s)
{
	const unsigned char *p;

	sb_addch(sb, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			sb_addch(sb, '\\');
			sb_addch(sb, *p);
		} else if (*p == '\n') {
			sb_addf(sb, "\\n");
		} else if (*p == '\t') {
			sb_addf(sb, "\\t");
		} else if (*p < 0x20 || *p >= 0x7f) {
			sb_addf(sb, "\\u%04x", *p);
		} else {
			sb_addch(sb, *p);
		}
	}
	sb_addch(sb, '"');
}

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* write all of buf, waiting at most OUTPUT_WAIT_MS whenever it is full */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, OUTPUT_WAIT_MS) <= 0)
				return -1;
			continue;
		}
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* finish the JSON object in sb and write it as one line */
static void emit(struct sb *sb)
{
	sb_addf(sb, "}\n");
	if (write_all(out_fd, sb->buf, sb->len))
		fprintf(stderr, "mmci-runner: cannot write a result line: %s\n",
			strerror(errno));
	sb_release(sb);
}

static void record_start(struct sb *sb, const char *type)
{
	sb_init(sb);
	sb_addf(sb, "{\"v\":%d,\"type\":\"%s\"", SCHEMA_VERSION, type);
}

/* the variant of a sample, info or error record */
static void add_variant(struct sb *sb)
{
	if (!variant[0])
		return;
	sb_addf(sb, ",\"variant\":");
	sb_add_json(sb, variant);
}

void set_variant(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(variant, sizeof(variant), fmt, ap);
	va_end(ap);
}

void clear_variant(void)
{
	variant[0] = '\0';
}

/*
 * Profile windows (runner/qemu-profile.c). 256 stubs, each one marker
 * instruction carrying its index and a return: stub i opens window kind
 * i (< 0x80), 0x80 | i closes it, 0xff asks the plugin to write its
 * counts. Without the plugin a marker is a no-op; without mmci.profile=1
 * none is called, so measuring boots run the same instructions as before.
 */
#if defined(__x86_64__)
__asm__(".pushsection .text\n"
	".balign 8\n"
	".globl mmci_marks\n"
	"mmci_marks:\n"
	".set mark_i, 0\n"
	".rept 256\n"
	"nopl 0x4d4d4300+mark_i(%rax)\n"	/* 0f 1f 80 disp32: 7 bytes */
	"ret\n"
	".set mark_i, mark_i + 1\n"
	".endr\n"
	".popsection\n");
#define MARK_STUB 8
#elif defined(__aarch64__)
__asm__(".pushsection .text\n"
	".balign 8\n"
	".globl mmci_marks\n"
	"mmci_marks:\n"
	".set mark_i, 0\n"
	".rept 256\n"
	"movz xzr, #(0x4d00 + mark_i), lsl #48\n"
	"ret\n"
	".set mark_i, mark_i + 1\n"
	".endr\n"
	".popsection\n");
#define MARK_STUB 8
#endif

#ifdef MARK_STUB
extern char mmci_marks[];

static void profile_mark(unsigned int code)
{
	void (*stub)(void) = (void (*)(void))(mmci_marks + MARK_STUB * code);

	stub();
}
#else
static void profile_mark(unsigned int code)
{
	(void)code;
}
#endif

#define MAX_WINDOW_KINDS 0x7f
static struct {
	char workload[32];
	char variant[128];
} window_kinds[MAX_WINDOW_KINDS];
static unsigned int nr_window_kinds;

/*
 * The window kind of the workload and variant running: a new pair gets
 * the next number, told to the host in an info record
 * ("profile_window"); -1 once all are taken.
 */
static int window_kind(void)
{
	const char *wl = cur_workload ? cur_workload : "";
	unsigned int i;

	for (i = 0; i < nr_window_kinds; i++)
		if (!strcmp(window_kinds[i].workload, wl) &&
		    !strcmp(window_kinds[i].variant, variant))
			return i;
	if (nr_window_kinds == MAX_WINDOW_KINDS)
		return -1;
	snprintf(window_kinds[i].workload, sizeof(window_kinds[i].workload),
		 "%s", wl);
	snprintf(window_kinds[i].variant, sizeof(window_kinds[i].variant),
		 "%s", variant);
	nr_window_kinds++;
	emit_info_ul(*wl ? wl : NULL, "profile_window", i);
	return i;
}

/* open a window of the running workload's kind: its kind, or -1 */
int window_open(void)
{
	int kind;

	if (!profiling)
		return -1;
	kind = window_kind();
	if (kind >= 0)
		profile_mark(kind);
	return kind;
}

void window_close(int kind)
{
	if (kind >= 0)
		profile_mark(0x80 | kind);
}

void emit_request(const char *workload, const char *fields)
{
	struct sb sb;

	record_start(&sb, "request");
	sb_addf(&sb, ",\"workload\":");
	sb_add_json(&sb, workload);
	sb_addf(&sb, ",%s", fields);
	emit(&sb);
}

void PRINTF(3, 4) emit_error(const char *workload, int iter,
				    const char *fmt, ...)
{
	struct sb msg, sb;
	va_list ap;

	sb_init(&msg);
	va_start(ap, fmt);
	sb_vaddf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "mmci-runner: error: %s%s%s\n",
		workload ? workload : "", workload ? ": " : "", msg.buf);

	record_start(&sb, "error");
	if (workload) {
		sb_addf(&sb, ",\"workload\":");
		sb_add_json(&sb, workload);
	}
	if (iter >= 0)
		sb_addf(&sb, ",\"iter\":%d", iter);
	add_variant(&sb);
	sb_addf(&sb, ",\"msg\":");
	sb_add_json(&sb, msg.buf);
	emit(&sb);
	sb_release(&msg);
}

void emit_info(const char *workload, const char *key, const char *value)
{
	struct sb sb;

	record_start(&sb, "info");
	if (workload) {
		sb_addf(&sb, ",\"workload\":");
		sb_add_json(&sb, workload);
	}
	add_variant(&sb);
	sb_addf(&sb, ",\"key\":");
	sb_add_json(&sb, key);
	sb_addf(&sb, ",\"value\":");
	sb_add_json(&sb, value);
	emit(&sb);
}

void emit_info_ul(const char *workload, const char *key,
			 unsigned long value)
{
	char buf[32];

	xsnprintf(buf, sizeof(buf), "%lu", value);
	emit_info(workload, key, buf);
}

void emit_sample_unit(const char *workload, const char *metric,
			     const char *unit, int iter, double value,
			     int decimals)
{
	struct sb sb;

	record_start(&sb, "sample");
	sb_addf(&sb, ",\"workload\":");
	sb_add_json(&sb, workload);
	add_variant(&sb);
	sb_addf(&sb, ",\"metric\":\"%s\",\"unit\":\"%s\",\"iter\":%d", metric,
		unit, iter);
	sb_addf(&sb, ",\"value\":%.*f", decimals, value);
	emit(&sb);
}

/* value in ms; wall times keep 3 decimals (us), the kernel's are whole ms */
static void emit_sample(struct run *r, const char *metric, int iter,
			double value, int decimals)
{
	emit_sample_unit(r->w->name, metric, "ms", iter, value, decimals);
	r->samples++;
}

/*
 * A profiling boot's symbols: the text symbols of /proc/kallsyms, core
 * and modules, as they are in this boot (KASLR and module addresses
 * included), in "ksyms" records of at most KSYMS_CHUNK bytes; then the
 * plugin is asked to write its counts (the guest may not reach exit).
 */
#define KSYMS_CHUNK 32768
static void emit_ksyms(void)
{
	char line[512];
	struct sb text, sb;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		emit_error(NULL, -1, "cannot read '/proc/kallsyms': %s",
			   strerror(errno));
		profile_mark(0xff);
		return;
	}
	sb_init(&text);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		/* "ffffffff81000000 T _stext" or "... t foo\t[nd_pmem]" */
		if (!sp || (sp[1] != 't' && sp[1] != 'T'))
			continue;
		sb_addf(&text, "%s", line);
		if (text.len < KSYMS_CHUNK)
			continue;
		record_start(&sb, "ksyms");
		sb_addf(&sb, ",\"text\":");
		sb_add_json(&sb, text.buf);
		emit(&sb);
		sb_release(&text);
		sb_init(&text);
	}
	fclose(f);
	if (text.len) {
		record_start(&sb, "ksyms");
		sb_addf(&sb, ",\"text\":");
		sb_add_json(&sb, text.buf);
		emit(&sb);
	}
	sb_release(&text);
	profile_mark(0xff);
}

static void emit_done(int failed)
{
	struct sb sb;

	record_start(&sb, "done");
	sb_addf(&sb, ",\"status\":\"%s\"", failed ? "error" : "ok");
	emit(&sb);
}

static void PRINTF(1, 2) pending_error(const char *fmt, ...)
{
	va_list ap;

	if (nr_pending >= ARRAY_SIZE(pending))
		return;
	va_start(ap, fmt);
	vsnprintf(pending[nr_pending++], sizeof(pending[0]), fmt, ap);
	va_end(ap);
}

/*
 * Read a small sysfs or proc file into buf, without the trailing newline.
 * Returns 0, or -errno.
 */
int read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * Write val to the sysfs attribute path in one write(). If ms is not NULL it
 * receives the time the write took. Returns 0, or -errno.
 */
int sysfs_write(const char *path, const char *val, double *ms)
{
	size_t len = strlen(val);
	long long t0, t1;
	ssize_t n;
	int fd, err, kind;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	kind = ms ? window_open() : -1;
	t0 = now_ns();
	n = write(fd, val, len);
	t1 = now_ns();
	err = errno;
	window_close(kind);
	close(fd);
	if (ms)
		*ms = (t1 - t0) / 1e6;
	if (n < 0)
		return -err;
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

/* quote a value for a message: "pmem\n" is shown as 'pmem' */
const char *shown(const char *val, char *buf, size_t size)
{
	size_t n = strlen(val);

	if (n && val[n - 1] == '\n')
		n--;
	snprintf(buf, size, "%.*s", (int)n, val);
	return buf;
}

/*
 * sysfs_write() to ND_DEVICES/dev/attr, or ND_DRIVERS/attr if dev is NULL,
 * that records a failure as an error record.
 */
static int attr_write(struct run *r, int iter, const char *dev,
		      const char *attr, const char *val, double *ms)
{
	char path[PATH_MAX], tmp[128];
	int rc;

	if (dev)
		xsnprintf(path, sizeof(path), "%s/%s/%s", ND_DEVICES, dev,
			  attr);
	else
		xsnprintf(path, sizeof(path), "%s/%s", ND_DRIVERS, attr);
	rc = sysfs_write(path, val, ms);
	if (rc)
		emit_error(r->w->name, iter, "write '%s' to %s: %s",
			   shown(val, tmp, sizeof(tmp)), path, strerror(-rc));
	return rc;
}

/* the nd bus driver dev is bound to, in buf ("" if none); 0 or -errno */
static int bound_driver(const char *dev, char *buf, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	buf[0] = '\0';
	xsnprintf(path, sizeof(path), "%s/%s/driver", ND_DEVICES, dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	xsnprintf(buf, size, "%s", base ? base + 1 : target);
	return 0;
}

/* unbind dev from whatever nd driver holds it; 0 if it was not bound */
static int unbind_any(struct run *r, int iter, const char *dev)
{
	char drv[NAME_MAX + 1], attr[NAME_MAX + 16];

	if (bound_driver(dev, drv, sizeof(drv)) || !drv[0])
		return 0;
	xsnprintf(attr, sizeof(attr), "%s/unbind", drv);
	return attr_write(r, iter, NULL, attr, dev, NULL);
}

int wait_for_path(const char *path, int timeout_ms)
{
	long long end = now_ns() + timeout_ms * 1000000LL;

	while (access(path, F_OK)) {
		if (now_ns() > end)
			return -1;
		usleep(100 * 1000);
	}
	return 0;
}

/*
 * Parse one kernel log record ("pri,seq,ts,flags;text\n") and add it to st
 * if it is the memmap line:
 *   memmap_init_zone_device initialised 4194304 pages in 137ms
 */
static void memmap_parse(const char *rec, struct memmap_stat *st)
{
	static const char key[] = DYNDBG_FUNC " initialised ";
	const char *p = strchr(rec, ';');
	unsigned long pages, ms;
	char *end;

	if (!p)
		return;
	p = strstr(p + 1, key);
	if (!p)
		return;
	p += strlen(key);
	pages = strtoul(p, &end, 10);
	if (end == p || strncmp(end, " pages in ", 10))
		return;
	p = end + 10;
	ms = strtoul(p, &end, 10);
	if (end == p)
		return;
	while (*end == ' ')
		end++;
	if (strncmp(end, "ms", 2))
		return;
	st->pages += pages;
	st->ms += ms;
	st->lines++;
}

/* read the kernel log records written since the last call */
static void kmsg_collect(struct memmap_stat *st)
{
	char rec[8192];

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);

		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records lost, go on */
		if (n <= 0)
			return;
		rec[n] = '\0';
		memmap_parse(rec, st);
	}
}

void kmsg_skip(void)
{
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * The memmap lines of the bind that just returned; they are printed inside
 * the bind, but give a late one MEMMAP_WAIT_MS before calling it missing.
 */
static void memmap_wait(struct memmap_stat *st)
{
	long long end = now_ns() + MEMMAP_WAIT_MS * 1000000LL;

	kmsg_collect(st);
	while (!st->lines && kmsg_fd >= 0 && dyndbg_ok) {
		struct pollfd pfd = { .fd = kmsg_fd, .events = POLLIN };
		long long left = (end - now_ns()) / 1000000LL;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		kmsg_collect(st);
	}
}

/*
 * One bind of the seed: time the write and read what the kernel said.
 * iter 0 is the first bind. Returns 0, or -errno of the bind.
 */
static int bind_once(struct run *r, int iter)
{
	struct memmap_stat st = { 0 };
	char attr[128];
	long long ns;
	double wall;
	int rc, calls;

	xsnprintf(attr, sizeof(attr), "%s/bind", r->w->driver);
	kmsg_skip();
	ktime_clear();
	rc = attr_write(r, iter, NULL, attr, r->seed, &wall);
	if (rc)
		return rc;
	ns = ktime_collect(&calls);
	memmap_wait(&st);

	emit_sample(r, iter ? "rebind_wall" : "first_bind_wall", iter, wall, 3);
	if (st.lines)
		emit_sample(r, iter ? "rebind_memmap" : "first_bind_memmap",
			    iter, st.ms, 0);
	else
		emit_error(r->w->name, iter,
			   "%s: no '" DYNDBG_FUNC "' line in the kernel log%s",
			   iter ? "rebind_memmap" : "first_bind_memmap",
			   dyndbg_ok ? "" : " (dynamic debug is off)");
	if (ns >= 0) {
		emit_sample_unit(r->w->name, iter ? "rebind_memmap_ns" :
				 "first_bind_memmap_ns", "ns", iter, (double)ns,
				 0);
		r->samples++;
	}
	if (!iter && st.lines) {
		emit_info_ul(r->w->name, "pages", st.pages);
		if (st.lines > 1)
			emit_info_ul(r->w->name, "memmap_ranges", st.lines);
	}
	fprintf(stderr, "mmci-runner: %s %s %d: memmap %lu ms, wall %.3f ms\n",
		r->w->name, iter ? "rebind" : "first bind", iter, st.ms, wall);
	return 0;
}

/*
 * Detach every pfn/dax/btt device that claims namespace0.0 (left by an
 * earlier workload, or made at boot from an info block a previous boot
 * wrote on the same image file), then unbind the namespace itself.
 */
static void release_namespace(struct run *r)
{
	char path[PATH_MAX], val[128];
	struct dirent *de;
	DIR *dir;

	dir = opendir(ND_DEVICES);
	if (!dir) {
		emit_error(r->w->name, -1, "cannot open '%s': %s", ND_DEVICES,
			   strerror(errno));
		return;
	}
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "pfn", 3) &&
		    strncmp(de->d_name, "dax", 3) &&
		    strncmp(de->d_name, "btt", 3))
			continue;
		xsnprintf(path, sizeof(path), "%s/%s/namespace", ND_DEVICES,
			  de->d_name);
		if (read_file(path, val, sizeof(val)) ||
		    strcmp(val, NAMESPACE))
			continue;
		emit_info(r->w->name, "released", de->d_name);
		unbind_any(r, -1, de->d_name);
		attr_write(r, -1, de->d_name, "namespace", "\n", NULL);
	}
	closedir(dir);
	unbind_any(r, -1, NAMESPACE);
}

/* find the region of namespace0.0 and its idle seed for this workload */
static void find_seed(struct run *r)
{
	char path[PATH_MAX], val[64];
	char *slash;

	xsnprintf(r->seed, sizeof(r->seed), "%s", r->w->seed_default);
	if (!realpath(ND_DEVICES "/" NAMESPACE, r->region))
		return;
	slash = strrchr(r->region, '/');
	if (slash)
		*slash = '\0';
	xsnprintf(path, sizeof(path), "%s/%s", r->region, r->w->seed_attr);
	if (!read_file(path, val, sizeof(val)) && val[0])
		xsnprintf(r->seed, sizeof(r->seed), "%s", val);
}

static void make_uuid(char *buf, size_t size)
{
	unsigned char u[16];
	int fd, i, ok = 0;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ok = read(fd, u, sizeof(u)) == sizeof(u);
		close(fd);
	}
	if (!ok) {
		unsigned long long x = now_ns() ^ ((long long)getpid() << 32);

		for (i = 0; i < 16; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			u[i] = x >> 56;
		}
	}
	u[6] = (u[6] & 0x0f) | 0x40;	/* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	xsnprintf(buf, size,
		  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		  "%02x%02x%02x%02x%02x%02x\n",
		  u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		  u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* report a seed attribute as the kernel shows it after our write */
static void info_attr(struct run *r, const char *dev, const char *attr,
		      const char *key)
{
	char path[PATH_MAX], val[256];

	xsnprintf(path, sizeof(path), "%s/%s/%s", ND_DEVICES, dev, attr);
	if (!read_file(path, val, sizeof(val)))
		emit_info(r->w->name, key, val);
}

static int configure_seed(struct run *r)
{
	char uuid[64], align[32];

	make_uuid(uuid, sizeof(uuid));
	xsnprintf(align, sizeof(align), "%lu\n", r->align);
	if (attr_write(r, -1, r->seed, "uuid", uuid, NULL) ||
	    attr_write(r, -1, r->seed, "mode",
		       r->map_mem ? "ram\n" : "pmem\n", NULL) ||
	    attr_write(r, -1, r->seed, "align", align, NULL) ||
	    attr_write(r, -1, r->seed, "namespace", NAMESPACE "\n", NULL))
		return -1;
	emit_info(r->w->name, "seed", r->seed);
	emit_info(r->w->name, "map", r->map_mem ? "mem" : "dev");
	info_attr(r, r->seed, "mode", "mode");
	info_attr(r, r->seed, "align", "align");
	info_attr(r, NAMESPACE, "size", "namespace_size");
	return 0;
}

/* the first entry of dir that want() accepts, into buf; 0 or -1 */
static int first_entry(const char *path, int (*want)(const char *name),
		       char *buf, size_t size)
{
	struct dirent *de;
	DIR *dir;
	int rc = -1;

	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !want(de->d_name))
			continue;
		xsnprintf(buf, size, "%s", de->d_name);
		rc = 0;
		break;
	}
	closedir(dir);
	return rc;
}

static int any_name(const char *name)
{
	(void)name;
	return 1;
}

/* the block device of a bound raw namespace, e.g. "pmem0" */
static int namespace_blockdev(char *buf, size_t size)
{
	return first_entry(ND_DEVICES "/" NAMESPACE "/block", any_name, buf,
			   size);
}

/*
 * Zero the info block through the raw namespace, or nd_pmem would give the
 * namespace its pfn/dax personality back on the next bind (and at the next
 * boot on the same image file).
 */
static void zero_info_block(struct run *r)
{
	char dev[NAME_MAX + 1], path[PATH_MAX];
	char zero[INFO_BLOCK_SIZE] = { 0 };
	int fd;

	if (namespace_blockdev(dev, sizeof(dev))) {
		emit_error(r->w->name, -1, "no block device under %s/%s",
			   ND_DEVICES, NAMESPACE);
		return;
	}
	xsnprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		emit_error(r->w->name, -1, "cannot open '%s': %s", path,
			   strerror(errno));
		return;
	}
	if (pwrite(fd, zero, sizeof(zero), INFO_BLOCK_OFFSET) != sizeof(zero)
	    || fsync(fd))
		emit_error(r->w->name, -1,
			   "cannot clear the info block on %s: %s", path,
			   strerror(errno));
	close(fd);
}

/*
 * Leave namespace0.0 as the next workload expects it: seed detached and
 * reset, info block cleared, namespace bound to nd_pmem. The namespace is
 * bound in raw mode (force_raw) for that: a plain pmem namespace would put
 * its memmap in the guest's RAM, which a 100 GiB namespace does not fit.
 */
static void restore(struct run *r)
{
	if (unbind_any(r, -1, r->seed))
		return;
	attr_write(r, -1, r->seed, "namespace", "\n", NULL);
	if (attr_write(r, -1, NAMESPACE, "force_raw", "1\n", NULL) ||
	    attr_write(r, -1, NULL, NAMESPACE_DRIVER "/bind", NAMESPACE,
		       NULL))
		return;
	zero_info_block(r);
	attr_write(r, -1, NAMESPACE, "force_raw", "0\n", NULL);
}

void size_name(unsigned long long bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (bytes >= 1024 && !(bytes % 1024) && i < 3) {
		bytes /= 1024;
		i++;
	}
	if (i < 0)
		xsnprintf(buf, size, "%llu", bytes);
	else
		xsnprintf(buf, size, "%llu%c", bytes, units[i]);
}

/*
 * One variant of a workload: first bind, then p->iters rebinds. Returns
 * 0, or -1 if it produced nothing.
 */
static int run_variant(struct run *r)
{
	const struct workload *w = r->w;
	char attr[128];
	unsigned int i, failures = 0;
	int before = r->samples;

	release_namespace(r);
	find_seed(r);
	if (configure_seed(r)) {
		attr_write(r, -1, r->seed, "namespace", "\n", NULL);
		return -1;
	}
	if (bind_once(r, 0)) {
		restore(r);
		return -1;
	}

	xsnprintf(attr, sizeof(attr), "%s/unbind", w->driver);
	for (i = 1; i <= r->p->iters && failures < MAX_BIND_FAILURES; i++) {
		if (attr_write(r, i, NULL, attr, r->seed, NULL) ||
		    bind_once(r, i))
			failures++;
		else
			failures = 0;
	}
	if (failures >= MAX_BIND_FAILURES)
		emit_error(w->name, -1, "%u binds failed in a row, giving up",
			   failures);
	restore(r);
	return r->samples > before ? 0 : -1;
}

/*
 * Run one workload in each of its variants: every alignment asked for,
 * with the memmap on the device and/or in RAM. A variant the kernel
 * refuses (an alignment it does not support) is a recorded error; the
 * others still run. Returns 0 if any variant gave samples.
 */
static int run_workload(const struct workload *w, const struct params *p)
{
	struct run r = { .w = w, .p = p };
	const unsigned long *aligns = strcmp(w->name, "fsdax") ?
				      p->devdax_align : p->fsdax_align;
	unsigned int nr = strcmp(w->name, "fsdax") ? p->nr_devdax_align :
						     p->nr_fsdax_align;
	char path[PATH_MAX], aname[32];
	unsigned int i, m;
	int ok = 0;

	xsnprintf(path, sizeof(path), "%s/%s", ND_DRIVERS, w->driver);
	if (access(path, F_OK)) {
		emit_error(w->name, -1,
			   "driver '%s' is not registered (module not loaded?)",
			   w->driver);
		return -1;
	}
	for (m = MAP_DEV; m <= MAP_MEM; m <<= 1) {
		if (!(p->maps & m))
			continue;
		for (i = 0; i < nr; i++) {
			r.align = aligns[i];
			r.map_mem = m == MAP_MEM;
			size_name(r.align, aname, sizeof(aname));
			set_variant("align=%s,map=%s", aname,
				    r.map_mem ? "mem" : "dev");
			if (!run_variant(&r))
				ok = 1;
		}
	}
	clear_variant();
	return ok ? 0 : -1;
}

static int is_dax_bus_device(const char *name)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "/sys/bus/dax/devices/%s", name);
	return !strncmp(name, "dax", 3) && !access(path, F_OK);
}

/* the dax bus device under an nd dax device, e.g. dax0.0 */
static int dax_bus_device(const char *seed, char *buf, size_t size)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/%s", ND_DEVICES, seed);
	return first_entry(path, is_dax_bus_device, buf, size);
}

static const struct workload devdax_kmem = {
	"kmem", "dax_seed", "dax0.0", "dax_pmem"
};
static struct params kmem_params;
static struct run kmem_run = { .w = &devdax_kmem, .p = &kmem_params };

int nd_devdax_setup(const char *workload, unsigned long align, char *daxdev,
		    size_t size)
{
	struct run *r = &kmem_run;
	char path[PATH_MAX], attr[128];

	(void)workload;
	xsnprintf(path, sizeof(path), "%s/%s", ND_DRIVERS, r->w->driver);
	if (access(path, F_OK)) {
		emit_error(r->w->name, -1,
			   "driver '%s' is not registered (module not loaded?)",
			   r->w->driver);
		return -1;
	}
	r->align = align;
	/* memmap in RAM: kmem plugs the whole namespace, as a CXL device */
	r->map_mem = 1;
	release_namespace(r);
	find_seed(r);
	if (configure_seed(r)) {
		attr_write(r, -1, r->seed, "namespace", "\n", NULL);
		return -1;
	}
	xsnprintf(attr, sizeof(attr), "%s/bind", r->w->driver);
	if (attr_write(r, -1, NULL, attr, r->seed, NULL)) {
		restore(r);
		return -1;
	}
	if (dax_bus_device(r->seed, daxdev, size)) {
		emit_error(r->w->name, -1, "no dax bus device under %s/%s",
			   ND_DEVICES, r->seed);
		restore(r);
		return -1;
	}
	return 0;
}

void nd_devdax_teardown(const char *workload)
{
	(void)workload;
	restore(&kmem_run);
}

/*
 * Module workloads: a kernel module that runs a benchmark in its init
 * function and prints the results to the kernel log.
 */

/* one load of a benchmark module and what its log lines said */
struct modload {
	const char *workload;
	const char *module;	/* name, e.g. "mmci_bench" */
	const char *args;	/* module parameters */
	/* called with the text of each kernel log line during the load */
	void (*line)(struct modload *m, const char *text);
	void *data;		/* of line() */
	unsigned int lost;	/* kernel log records overwritten unread */
};

/* "test-vmalloc" and "test_vmalloc" name the same module */
static int modname_eq(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen; i++, a++) {
		char ca = *a == '-' ? '_' : *a;
		char cb = b[i] == '-' ? '_' : b[i];

		if (!*a || ca != cb)
			return 0;
	}
	return !*a;
}

/*
 * The path of module name under MODULES_DIR/REL and its dependencies
 * (modules.dep order: the last one loads first), from modules.dep; without
 * an entry there, extra/NAME.ko. Returns 0, or -ENOENT.
 */
static int module_find(const char *rel, const char *name, struct sb *path,
		       struct sb *deps)
{
	char file[PATH_MAX], line[4096];
	FILE *f;
	int rc = -ENOENT;

	xsnprintf(file, sizeof(file), "%s/%s/modules.dep", MODULES_DIR, rel);
	f = fopen(file, "re");
	while (f && rc && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base, *dot;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		dot = strstr(base, ".ko");
		if (!dot || !modname_eq(name, base, dot - base))
			continue;
		sb_addf(path, "%s/%s/%s", MODULES_DIR, rel, line);
		colon[strcspn(colon + 1, "\n") + 1] = '\0';
		sb_addf(deps, "%s", colon + 1);
		rc = 0;
	}
	if (f)
		fclose(f);
	if (rc) {
		xsnprintf(file, sizeof(file), "%s/%s/extra/%s.ko", MODULES_DIR,
			  rel, name);
		if (!access(file, R_OK)) {
			sb_addf(path, "%s", file);
			rc = 0;
		}
	}
	return rc;
}

static int finit_module_path(const char *path, const char *args)
{
	int fd, rc, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	rc = syscall(SYS_finit_module, fd, args, 0);
	err = errno;
	close(fd);
	return rc ? err : 0;
}

/* load the dependencies of a module, last first; failures are reported */
static void module_load_deps(struct modload *m, const char *rel, char *deps)
{
	char path[PATH_MAX], *dep;
	int err;

	while ((dep = strrchr(deps, ' ')) || *deps) {
		if (dep)
			*dep++ = '\0';
		else
			dep = deps;
		if (*dep) {
			xsnprintf(path, sizeof(path), "%s/%s/%s", MODULES_DIR,
				  rel, dep);
			err = finit_module_path(path, "");
			if (err && err != EEXIST)
				emit_error(m->workload, -1,
					   "cannot load '%s': %s", path,
					   strerror(err));
		}
		if (dep == deps)
			break;
	}
}

/* hand the kernel log records written since the last call to m->line() */
static void modload_collect(struct modload *m)
{
	char rec[8192];

	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *text, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			m->lost++;
			continue;
		}
		if (n <= 0)
			return;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		m->line(m, text);
	}
}

/*
 * Load m->module with m->args in a child process and feed the kernel log
 * to m->line() until the load returns. Returns the errno of the load (0 if
 * the module stayed loaded: it is then removed), or -1 if it could not be
 * tried (an error record says why).
 */
static int module_run(struct modload *m)
{
	struct sb path, deps;
	struct utsname u;
	long long end;
	int status, rc = -1;
	pid_t pid;

	if (kmsg_fd < 0) {
		emit_error(m->workload, -1, "no /dev/kmsg to read '%s' from",
			   m->module);
		return -1;
	}
	if (uname(&u)) {
		emit_error(m->workload, -1, "uname: %s", strerror(errno));
		return -1;
	}
	sb_init(&path);
	sb_init(&deps);
	if (module_find(u.release, m->module, &path, &deps)) {
		emit_error(m->workload, -1,
			   "module '%s' not found in %s/%s (not built, or not "
			   "in the initramfs)", m->module, MODULES_DIR,
			   u.release);
		goto out;
	}
	module_load_deps(m, u.release, deps.buf);

	kmsg_skip();
	ktime_clear();
	pid = fork();
	if (pid < 0) {
		emit_error(m->workload, -1, "fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		_exit(finit_module_path(path.buf, m->args) & 0xff);

	end = now_ns() + MODULE_WAIT_MS * 1000000LL;
	for (;;) {
		struct pollfd pfd = { .fd = kmsg_fd, .events = POLLIN };
		pid_t w = waitpid(pid, &status, WNOHANG);

		modload_collect(m);
		if (w == pid)
			break;
		if (now_ns() > end) {
			emit_error(m->workload, -1,
				   "loading '%s' did not return in %d s",
				   m->module, MODULE_WAIT_MS / 1000);
			goto out;
		}
		poll(&pfd, 1, 200);
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
	if (!rc && syscall(SYS_delete_module, m->module, O_NONBLOCK))
		emit_error(m->workload, -1, "cannot unload '%s': %s",
			   m->module, strerror(errno));
	if (m->lost)
		emit_error(m->workload, -1,
			   "%u kernel log records lost while '%s' ran",
			   m->lost, m->module);
out:
	sb_release(&path);
	sb_release(&deps);
	return rc;
}

/* a metric name from a kernel log line: [a-z0-9_], at most 63 characters */
static int valid_metric(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n && n < 64 && !s[n];
}

/* what one load of mmci_bench said */
struct bench {
	const char *unit;	/* of the samples: "us" or "ms" */
	double div;		/* ns per unit */
	unsigned int samples;
	unsigned int memremaps;	/* memremap_pages samples so far */
	int done;		/* saw "mmci_bench: done" */
	char last[256];		/* last line we did not understand */
};

/*
 * mmci_bench's lines ("mmci_bench: vmap_100m_order8 iter 3 ns 1234567",
 * "mmci_bench: memremap_pages error -12", "mmci_bench: done") and the
 * memmap_init_zone_device line of each memremap_pages().
 */
static void bench_line(struct modload *m, const char *text)
{
	static const char prefix[] = BENCH_MODULE ": ";
	struct bench *b = m->data;
	struct memmap_stat st = { 0 };
	unsigned long long iter, ns, map[4];
	char metric[64], val[128];
	int err;

	if (strncmp(text, prefix, strlen(prefix))) {
		/* memmap_parse() wants a whole record */
		xsnprintf(val, sizeof(val), ";%.120s", text);
		memmap_parse(val, &st);
		if (st.lines) {
			int calls;
			long long ns = ktime_collect(&calls);

			emit_sample_unit(m->workload, "memremap_memmap", "ms",
					 b->memremaps + 1, st.ms, 0);
			/* the return is recorded before the line is read */
			if (ns >= 0)
				emit_sample_unit(m->workload,
						 "memremap_memmap_ns", "ns",
						 b->memremaps + 1, (double)ns,
						 0);
		}
		if (st.lines && !b->memremaps)
			emit_info_ul(m->workload, "pages", st.pages);
		return;
	}
	text += strlen(prefix);
	if (!strcmp(text, "done")) {
		b->done = 1;
	} else if (sscanf(text, "%63s iter %llu ns %llu", metric, &iter,
			  &ns) == 3 && valid_metric(metric) && iter &&
		   iter <= MAX_BENCH_ITERS) {
		emit_sample_unit(m->workload, metric, b->unit, (int)iter,
				 ns / b->div, 3);
		b->samples++;
		b->last[0] = '\0';
		if (!strcmp(metric, "memremap_pages"))
			b->memremaps++;
	} else if (sscanf(text, "%63s map ptes %llu cont_ptes %llu pmds %llu "
			  "holes %llu", metric, &map[0], &map[1], &map[2],
			  &map[3]) == 5 && valid_metric(metric)) {
		/* how the kernel mapped the range: counts, one per boot */
		static const char *const kind[] = { "ptes", "cont_ptes",
						    "pmds" };
		char name[96];
		size_t k;

		for (k = 0; k < 3; k++) {
			xsnprintf(name, sizeof(name), "%s_%s", metric,
				  kind[k]);
			emit_sample_unit(m->workload, name, "entries", 1,
					 (double)map[k], 0);
		}
		if (map[3])
			emit_error(m->workload, -1, "%s: %llu page(s) of the "
				   "mapped range are not mapped", metric,
				   map[3]);
		b->last[0] = '\0';
	} else if (sscanf(text, "%63s error %d", metric, &err) == 2) {
		/* the line before may say why */
		emit_error(m->workload, -1, "%s: %s%s%s%s", metric,
			   strerror(err < 0 ? -err : err),
			   b->last[0] ? " (" : "", b->last,
			   b->last[0] ? ")" : "");
		b->last[0] = '\0';
	} else if (sscanf(text, "%63s phys %127s", metric, val) == 2) {
		emit_info(m->workload, "ioremap_phys", val);
		b->last[0] = '\0';
	} else if (strncmp(text, "start ", 6) &&
		   !strstr(text, " range ")) {
		xsnprintf(b->last, sizeof(b->last), "%.200s", text);
	}
}

/* one load of mmci_bench with the given tests; 0 if it gave samples */
static int run_bench(const char *workload, const struct params *p,
		     const char *tests, const char *unit, double div)
{
	struct bench b = { .unit = unit, .div = div };
	struct modload m = {
		.workload = workload,
		.module = BENCH_MODULE,
		.line = bench_line,
		.data = &b,
	};
	struct sb args;
	int rc;

	sb_init(&args);
	sb_addf(&args, "tests=%s iters=%u", tests, p->bench_iters);
	if (!strcmp(tests, "memremap"))
		sb_addf(&args, " memremap_size=%s", p->memremap_size);
	if (p->ioremap_phys && strstr(tests, "ioremap"))
		sb_addf(&args, " ioremap_phys=%#lx", p->ioremap_phys);
	m.args = args.buf;
	emit_info(workload, "module_args", args.buf);

	rc = module_run(&m);
	if (rc > 0 && rc != EAGAIN)
		emit_error(workload, -1, "loading '%s' failed: %s%s%s",
			   BENCH_MODULE, strerror(rc), b.last[0] ? ": " : "",
			   b.last);
	else if (rc >= 0 && !b.done)
		emit_error(workload, -1, "no '%s: done' line in the kernel log",
			   BENCH_MODULE);
	sb_release(&args);
	return b.samples ? 0 : -1;
}

/* ioremap, vmalloc, vmalloc_huge and vmap timings; us */
static int run_vmap(const struct params *p)
{
	return run_bench("vmap", p, "ioremap,vmalloc,vmalloc_huge,vmap", "us",
			 1e3);
}

/* memremap_pages()/memunmap_pages() of a DEVICE_PRIVATE range; ms */
static int run_memremap(const struct params *p)
{
	emit_info("memremap", "size", p->memremap_size);
	return run_bench("memremap", p, "memremap", "ms", 1e6);
}

/* what one load of test_vmalloc said */
struct vmtest {
	int iter;		/* which load */
	unsigned int samples;
};

/*
 * "Summary: fix_size_alloc_test passed: 1 failed: 0 repeat: 1 loops: 10000
 * avg: 4226 usec": the time of test_loop_count loops, averaged over
 * test_repeat_count repeats
 */
static void vmalloc_line(struct modload *m, const char *text)
{
	struct vmtest *t = m->data;
	unsigned long long avg;
	int passed, failed, repeat, loops;
	char name[64];

	if (sscanf(text, "Summary: %63s passed: %d failed: %d repeat: %d "
			 "loops: %d avg: %llu usec", name, &passed, &failed,
		   &repeat, &loops, &avg) != 6)
		return;
	if (!valid_metric(name)) {
		emit_error(m->workload, t->iter, "bad test name in '%.200s'",
			   text);
	} else if (failed) {
		emit_error(m->workload, t->iter, "%s: %d of %d runs failed",
			   name, failed, passed + failed);
	} else {
		emit_sample_unit(m->workload, name, "us", t->iter, avg, 0);
		t->samples++;
	}
}

/* test_vmalloc, loaded bench_iters times: one sample per test and load */
static int run_vmalloc(const struct params *p)
{
	struct vmtest t = { 0 };
	struct modload m = {
		.workload = "vmalloc",
		.module = VMALLOC_MODULE,
		.line = vmalloc_line,
		.data = &t,
	};
	unsigned int total = 0;
	struct sb args;
	int rc;

	sb_init(&args);
	sb_addf(&args,
		"run_test_mask=%lu nr_threads=1 test_repeat_count=%u "
		"test_loop_count=%u sequential_test_order=1",
		p->vmalloc_mask, p->vmalloc_repeat, p->vmalloc_loops);
	m.args = args.buf;
	emit_info(m.workload, "module_args", args.buf);

	for (t.iter = 1; t.iter <= (int)p->bench_iters; t.iter++) {
		t.samples = 0;
		rc = module_run(&m);
		if (rc < 0)
			break;
		if (rc != EAGAIN && rc)
			emit_error(m.workload, t.iter,
				   "loading '%s' failed: %s", VMALLOC_MODULE,
				   strerror(rc));
		else if (!t.samples)
			emit_error(m.workload, t.iter,
				   "no 'Summary:' line in the kernel log");
		total += t.samples;
		if (!t.samples)
			break;
	}
	sb_release(&args);
	return total ? 0 : -1;
}

/* a workload that loads a module */
struct modwork {
	const char *name;
	int (*run)(const struct params *p);
};

static const struct modwork modworks[] = {
	{ "vmap", run_vmap },
	{ "memremap", run_memremap },
	{ "vmalloc", run_vmalloc },
	{ "virtio-mem", run_virtio_mem },
	{ "kmem", run_kmem },
};

static int parse_ulong(const char *s, int base, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, base);
	return (errno || end == s || *end || *s == '-') ? -1 : 0;
}

/* a size as memparse() reads it: digits and an optional K, M, G or T */
static int valid_size(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n || n > 16)
		return 0;
	return !s[n] || (strchr("KMGTkmgt", s[n]) && !s[n + 1]);
}

int parse_size(const char *s, unsigned long *bytes)
{
	static const char units[] = "KMGT";
	unsigned long v;
	char *end;
	const char *u;
	int shift;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno)
		return -1;
	if (!*end) {
		*bytes = v;
		return 0;
	}
	u = strchr(units, toupper((unsigned char)*end));
	if (!u || end[1])
		return -1;
	shift = 10 * (int)(u - units + 1);
	if (v > (~0UL >> shift))
		return -1;
	*bytes = v << shift;
	return 0;
}

/* "4K,2M,1G": up to MAX_LIST non-zero sizes; *nr is kept on an error */
static int parse_sizes(const char *val, unsigned long *out, unsigned int *nr)
{
	unsigned long tmp[MAX_LIST];
	char *copy = xstrdup(val), *tok, *save = NULL;
	unsigned int n = 0;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST || parse_size(tok, &tmp[n]) || !tmp[n])
			rc = -1;
		n++;
	}
	free(copy);
	if (rc || !n)
		return -1;
	memcpy(out, tmp, n * sizeof(*out));
	*nr = n;
	return 0;
}

/* "dev,mem" against names[]: bit i for names[i]; *bits kept on an error */
static int parse_flags(const char *val, const char *const *names,
		       unsigned int *bits)
{
	char *copy = xstrdup(val), *tok, *save = NULL;
	unsigned int b = 0, i;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; names[i] && strcmp(names[i], tok); i++)
			;
		if (!names[i])
			rc = -1;
		b |= 1U << i;
	}
	free(copy);
	if (rc || !b)
		return -1;
	*bits = b;
	return 0;
}

static void param_set(struct params *p, const char *key, const char *val)
{
	unsigned long v;

	if (!strcmp(key, "mmci.workload")) {
		free(p->workloads);
		p->workloads = xstrdup(val);
	} else if (!strcmp(key, "mmci.iters")) {
		if (parse_ulong(val, 10, &v) || v > MAX_ITERS)
			pending_error("invalid mmci.iters '%s', using %u", val,
				      p->iters);
		else
			p->iters = v;
	} else if (!strcmp(key, "mmci.align")) {
		/* both workloads, as before the lists existed */
		if (parse_sizes(val, p->fsdax_align, &p->nr_fsdax_align) ||
		    parse_sizes(val, p->devdax_align, &p->nr_devdax_align))
			pending_error("invalid mmci.align '%s'", val);
	} else if (!strcmp(key, "mmci.fsdax_align")) {
		if (parse_sizes(val, p->fsdax_align, &p->nr_fsdax_align))
			pending_error("invalid mmci.fsdax_align '%s'", val);
	} else if (!strcmp(key, "mmci.devdax_align")) {
		if (parse_sizes(val, p->devdax_align, &p->nr_devdax_align))
			pending_error("invalid mmci.devdax_align '%s'", val);
	} else if (!strcmp(key, "mmci.map")) {
		static const char *const names[] = { "dev", "mem", NULL };

		if (parse_flags(val, names, &p->maps))
			pending_error("invalid mmci.map '%s' (dev,mem)", val);
	} else if (!strcmp(key, "mmci.vmem_sizes")) {
		unsigned long b[MAX_LIST];
		unsigned int n, i;

		if (parse_sizes(val, b, &n)) {
			pending_error("invalid mmci.vmem_sizes '%s'", val);
		} else {
			for (i = 0; i < n; i++)
				p->vmem_mib[i] = b[i] >> 20;
			p->nr_vmem = n;
		}
	} else if (!strcmp(key, "mmci.hotplug_iters")) {
		if (parse_ulong(val, 10, &v) || !v || v > MAX_ITERS)
			pending_error("invalid mmci.hotplug_iters '%s', using %u",
				      val, p->hotplug_iters);
		else
			p->hotplug_iters = v;
	} else if (!strcmp(key, "mmci.kmem_online") ||
		   !strcmp(key, "mmci.vmem_online")) {
		/* bit order: ONLINE_KERNEL, ONLINE_MOVABLE, ONLINE_OFFLINE */
		static const char *const names[] = { "online",
						     "online_movable",
						     "offline", NULL };

		if (parse_flags(val, names, key[5] == 'k' ? &p->kmem_online :
							    &p->vmem_online))
			pending_error("invalid %s '%s' "
				      "(online,online_movable,offline)", key,
				      val);
	} else if (!strcmp(key, "mmci.kmem_memmap")) {
		static const char *const names[] = { "ram", "on_memory", NULL };

		if (parse_flags(val, names, &p->kmem_memmap))
			pending_error("invalid mmci.kmem_memmap '%s' "
				      "(ram,on_memory)", val);
	} else if (!strcmp(key, "mmci.profile")) {
		profiling = !strcmp(val, "1");
	} else if (!strcmp(key, "mmci.out")) {
		free(p->out);
		p->out = xstrdup(val);
	} else if (!strcmp(key, "mmci.bench_iters")) {
		if (parse_ulong(val, 10, &v) || !v || v > MAX_BENCH_ITERS)
			pending_error("invalid mmci.bench_iters '%s', using %u",
				      val, p->bench_iters);
		else
			p->bench_iters = v;
	} else if (!strcmp(key, "mmci.memremap_size")) {
		if (!valid_size(val))
			pending_error("invalid mmci.memremap_size '%s', using %s",
				      val, p->memremap_size);
		else {
			free(p->memremap_size);
			p->memremap_size = xstrdup(val);
		}
	} else if (!strcmp(key, "mmci.ioremap_phys")) {
		if (parse_ulong(val, 0, &v))
			pending_error("invalid mmci.ioremap_phys '%s', using a "
				      "free range", val);
		else
			p->ioremap_phys = v;
	} else if (!strcmp(key, "mmci.vmalloc_mask")) {
		if (parse_ulong(val, 0, &v) || !v || v > INT_MAX)
			pending_error("invalid mmci.vmalloc_mask '%s', using %#lx",
				      val, p->vmalloc_mask);
		else
			p->vmalloc_mask = v;
	} else if (!strcmp(key, "mmci.vmalloc_loops")) {
		if (parse_ulong(val, 10, &v) || !v || v > INT_MAX)
			pending_error("invalid mmci.vmalloc_loops '%s', using %u",
				      val, p->vmalloc_loops);
		else
			p->vmalloc_loops = v;
	} else if (!strcmp(key, "mmci.vmalloc_repeat")) {
		if (parse_ulong(val, 10, &v) || !v || v > INT_MAX)
			pending_error("invalid mmci.vmalloc_repeat '%s', using %u",
				      val, p->vmalloc_repeat);
		else
			p->vmalloc_repeat = v;
	} else if (!strncmp(key, "mmci.", 5)) {
		pending_error("unknown parameter '%s'", key);
	}
}

/* split the kernel command line into key=value words ("" quotes a value) */
static void parse_cmdline(struct params *p, const char *cmdline)
{
	struct sb word;
	const char *s = cmdline;

	while (*s) {
		int quoted = 0;
		char *eq;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		sb_init(&word);
		for (; *s && (quoted || !isspace((unsigned char)*s)); s++) {
			if (*s == '"')
				quoted = !quoted;
			else
				sb_addch(&word, *s);
		}
		eq = strchr(word.buf, '=');
		if (eq) {
			*eq = '\0';
			param_set(p, word.buf, eq + 1);
		}
		sb_release(&word);
	}
}

/* a raw tty: "\n" must not become "\r\n" on the way to the host */
static void open_output(const char *path)
{
	int flags = O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	struct termios t;

	if (strcmp(path, "-") && strcmp(path, "stdout")) {
		if (strncmp(path, "/dev/", 5))
			flags |= O_CREAT | O_APPEND;
		out_fd = open(path, flags, 0644);
		if (out_fd < 0)
			pending_error("cannot open '%s': %s, using stdout",
				      path, strerror(errno));
	}
	if (out_fd < 0) {
		out_fd = STDOUT_FILENO;
		return;
	}
	if (isatty(out_fd) && !tcgetattr(out_fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(out_fd, TCSANOW, &t);
	}
}

static void emit_hello(const char *cmdline)
{
	struct utsname u;
	struct sb sb;

	if (uname(&u))
		xsnprintf(u.release, sizeof(u.release), "unknown");
	record_start(&sb, "hello");
	sb_addf(&sb, ",\"runner\":\"%s\",\"kernel\":", RUNNER_VERSION);
	sb_add_json(&sb, u.release);
	sb_addf(&sb, ",\"cmdline\":");
	sb_add_json(&sb, cmdline);
	emit(&sb);
}

/*
 * The kernel's time in DYNDBG_FUNC to the nanosecond: kprobe events on
 * its entry and its return, recorded in the trace ring buffer with the
 * trace clock ("local": sched_clock, ns), read in the "raw" format
 * ("PID CPU TS type: ID"), which prints the timestamp in ns where the
 * default format rounds it to us. A kprobe is a breakpoint set at run
 * time: the function's own code is the shipped code, and the two traps
 * cost the same in every kernel. Without CONFIG_KPROBE_EVENTS the _ns
 * metrics are missing and an error says why.
 */
#define TRACEFS "/sys/kernel/tracing"
#define KPROBE_SETTLE_MS 200
static int ktime_in_id = -1, ktime_out_id = -1;

static int tracefs_write(const char *file, const char *val, int flags)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	xsnprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	n = len ? write(fd, val, len) : 0;
	close(fd);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int event_id(const char *name)
{
	char path[PATH_MAX], val[32];

	xsnprintf(path, sizeof(path), "%s/events/mmci/%s/id", TRACEFS, name);
	if (read_file(path, val, sizeof(val)))
		return -1;
	return atoi(val);
}

static void ktime_setup(void)
{
	static const char probes[] = "p:mmci/mzd_in " DYNDBG_FUNC "\n"
				     "r:mmci/mzd_out " DYNDBG_FUNC "\n";
	int rc;

	if (access(TRACEFS "/kprobe_events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/kprobe_events", F_OK)) {
		emit_error(NULL, -1, "no %s/kprobe_events (a kernel without "
			   "CONFIG_KPROBE_EVENTS): no _ns metrics", TRACEFS);
		return;
	}
	rc = tracefs_write("kprobe_events", probes, O_APPEND);
	if (!rc)
		rc = tracefs_write("options/raw", "1", 0);
	if (!rc)
		rc = tracefs_write("events/mmci/enable", "1", 0);
	if (!rc)
		rc = tracefs_write("trace", "", O_TRUNC);
	if (rc) {
		emit_error(NULL, -1, "kprobe events on %s: %s: no _ns metrics",
			   DYNDBG_FUNC, strerror(-rc));
		return;
	}
	ktime_in_id = event_id("mzd_in");
	ktime_out_id = event_id("mzd_out");
	if (ktime_in_id < 0 || ktime_out_id < 0)
		emit_error(NULL, -1, "no ids for the kprobe events on %s",
			   DYNDBG_FUNC);
	/*
	 * the kernel turns the breakpoints into jumps (optprobes) a few
	 * jiffies after they are set, patching its text: let that happen
	 * now, not inside the first timed bind
	 */
	usleep(KPROBE_SETTLE_MS * 1000);
}

/* forget the events recorded so far */
void ktime_clear(void)
{
	if (ktime_in_id >= 0)
		tracefs_write("trace", "", O_TRUNC);
}

/*
 * The ns spent in DYNDBG_FUNC since ktime_clear(): the sum over its
 * calls, *calls their number; -1 when not measured.
 */
long long ktime_collect(int *calls)
{
	long long sum = 0, in = -1;
	char line[256];
	FILE *f;

	*calls = 0;
	if (ktime_in_id < 0 || ktime_out_id < 0)
		return -1;
	f = fopen(TRACEFS "/trace", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ts;
		int pid, cpu, id;

		if (sscanf(line, "%d %d %llu type: %d", &pid, &cpu, &ts,
			   &id) != 4)
			continue;
		if (id == ktime_in_id) {
			in = (long long)ts;
		} else if (id == ktime_out_id && in >= 0) {
			sum += (long long)ts - in;
			in = -1;
			(*calls)++;
		}
	}
	fclose(f);
	ktime_clear();
	return *calls ? sum : -1;
}

/*
 * The crng's first seeding (a reseed and its "random: crng init done"
 * printk) came when interrupts had credited it enough bits: at a point
 * of guest time that fell inside a timed write in some boots and not in
 * others, about 23,000 instructions in one write of a 10 ms rebind
 * (docs/FACTS.md, "A boot under icount"). Credit the bits here, before
 * anything is timed: the guest is a throwaway test machine whose keys
 * protect nothing. Without /dev/random or the ioctl, a line on the console.
 */
static void seed_crng(void)
{
	struct {
		struct rand_pool_info info;
		uint32_t buf[8];
	} seed = { .info = { .entropy_count = 256, .buf_size = 32 } };
	int fd = open("/dev/random", O_WRONLY | O_CLOEXEC), rc = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		seed.buf[i] = 0x6d6d6369u ^ i;	/* "mmci" */
	if (fd < 0 || ioctl(fd, RNDADDENTROPY, &seed.info) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc)
		fprintf(stderr, "mmci-runner: the crng is not seeded before the "
			"workloads: %s\n", strerror(-rc));
}

/*
 * An x86 kernel refines its TSC calibration a second of guest time after
 * it started the TSC (a delayed work: three printks and the switch from
 * "tsc-early" to "tsc"), which fell among the timed writes in some
 * runs (a 4 GiB one) and between them in others. Wait for it, idle
 * (no instructions to count, and under icount no wall time either),
 * before anything is timed: at most CLOCKSOURCE_WAIT_MS, then go on
 * and say so.
 */
#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define CLOCKSOURCE_WAIT_MS 3000

static void wait_clocksource(void)
{
	long long end = now_ns() + CLOCKSOURCE_WAIT_MS * 1000000LL;
	char cur[64];

	while (!read_file(CLOCKSOURCE, cur, sizeof(cur)) &&
	       !strcmp(cur, "tsc-early")) {
		if (now_ns() > end) {
			fprintf(stderr, "mmci-runner: the clocksource is still "
				"tsc-early after %d ms\n", CLOCKSOURCE_WAIT_MS);
			return;
		}
		usleep(10 * 1000);
	}
}

/*
 * Turn on the memmap pr_debug and check that it took: a query that matches
 * nothing is not an error for the kernel.
 */
static void enable_dyndbg(void)
{
	static const char query[] = "func " DYNDBG_FUNC " +p\n";
	char line[512];
	FILE *f;
	int rc;

	if (access(DYNDBG_CONTROL, F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	rc = sysfs_write(DYNDBG_CONTROL, query, NULL);
	if (rc) {
		emit_error(NULL, -1, "write 'func %s +p' to %s: %s",
			   DYNDBG_FUNC, DYNDBG_CONTROL, strerror(-rc));
		return;
	}
	f = fopen(DYNDBG_CONTROL, "re");
	if (!f) {
		emit_error(NULL, -1, "cannot open '%s': %s", DYNDBG_CONTROL,
			   strerror(errno));
		return;
	}
	/* "mm/mm_init.c:1120 [mm_init]memmap_init_zone_device =p \"..\"" */
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "]" DYNDBG_FUNC " =p"))
			dyndbg_ok = 1;
	fclose(f);
	if (!dyndbg_ok)
		emit_error(NULL, -1, "pr_debug of %s not enabled: not in %s",
			   DYNDBG_FUNC, DYNDBG_CONTROL);
}

static const struct workload *find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(workloads); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

static const struct modwork *find_modwork(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(modworks); i++)
		if (!strcmp(modworks[i].name, name))
			return &modworks[i];
	return NULL;
}

int main(void)
{
	struct params p = {
		.workloads = xstrdup(DEFAULT_WORKLOADS),
		.iters = DEFAULT_ITERS,
		.fsdax_align = { DEFAULT_ALIGN },
		.nr_fsdax_align = 1,
		.devdax_align = { DEFAULT_ALIGN },
		.nr_devdax_align = 1,
		.maps = MAP_DEV,
		.vmem_mib = { DEFAULT_VMEM_MIB },
		.nr_vmem = 2,
		.hotplug_iters = DEFAULT_HOTPLUG_ITERS,
		.kmem_online = ONLINE_KERNEL | ONLINE_MOVABLE,
		.vmem_online = ONLINE_MOVABLE,
		.kmem_memmap = MEMMAP_RAM | MEMMAP_ON_MEMORY,
		.out = xstrdup(DEFAULT_OUT),
		.bench_iters = DEFAULT_BENCH_ITERS,
		.memremap_size = xstrdup(DEFAULT_MEMREMAP_SIZE),
		.vmalloc_mask = DEFAULT_VMALLOC_MASK,
		.vmalloc_loops = DEFAULT_VMALLOC_LOOPS,
		.vmalloc_repeat = DEFAULT_VMALLOC_REPEAT,
	};
	char cmdline[4096] = "", *name, *next;
	int rc, failed = 0, have_ns = -1;	/* -1: not looked for yet */
	unsigned int i;

	rc = read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	if (rc)
		pending_error("cannot read /proc/cmdline: %s", strerror(-rc));
	parse_cmdline(&p, cmdline);
	open_output(p.out);
	emit_hello(cmdline);
	for (i = 0; i < nr_pending; i++)
		emit_error(NULL, -1, "%s", pending[i]);

	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		emit_error(NULL, -1, "cannot open '/dev/kmsg': %s",
			   strerror(errno));
	enable_dyndbg();
	ktime_setup();
	seed_crng();
	wait_clocksource();

	for (name = p.workloads; name; name = next) {
		const struct workload *w;
		const struct modwork *mw;

		next = strchr(name, ',');
		if (next)
			*next++ = '\0';
		if (!*name)
			continue;
		w = find_workload(name);
		mw = w ? NULL : find_modwork(name);
		cur_workload = name;
		/* only the nvdimm workloads wait for the namespace */
		if (w && have_ns < 0) {
			have_ns = !wait_for_path(ND_DEVICES "/" NAMESPACE,
						 NAMESPACE_WAIT_MS);
			if (!have_ns)
				emit_error(NULL, -1, "no %s/%s after %d s",
					   ND_DEVICES, NAMESPACE,
					   NAMESPACE_WAIT_MS / 1000);
		}
		if (mw) {
			if (mw->run(&p))
				failed = 1;
		} else if (!w) {
			emit_error(name, -1, "unknown workload '%s'", name);
			failed = 1;
		} else if (!have_ns || run_workload(w, &p)) {
			failed = 1;
		}
	}

	cur_workload = NULL;
	if (profiling)
		emit_ksyms();
	emit_done(failed);
	free(p.workloads);
	free(p.out);
	free(p.memremap_size);
	return failed;
}
