/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - build a set of kernels and boot them, interleaved, until
 * the comparisons that matter are decided or the boot budget is spent.
 *
 * test-series (base, +1 .. +N) and bisect (GOOD, BAD, midpoints) measure
 * the same way: every kernel is one run (one build, one set of run
 * options) owned by the job; a round boots each kernel once, in order,
 * so host drift hits all of them alike; the boot is the unit
 * (docs/STATISTICS.md).
 *
 * Adaptive repeats (Pinpoint's idea): after the first rounds, each pair
 * of interest is compared; while a comparison is ambiguous (stats.h: too
 * few boots for the rank test, or a suggestive p with an interval that
 * does not exclude a real change) and a kernel of that pair has boots
 * left in its budget, one more round of those kernels is booted.
 */
#ifndef MMCI_MEASURE_H
#define MMCI_MEASURE_H

#include <git2.h>

#include "build.h"
#include "compare.h"
#include "run.h"

struct db;
struct mmci_config;
struct strbuf;

struct measure_kernel {
	char *label;
	git_oid commit;
	long long series_id;	/* provenance of the build, 0 for a commit */
	int upto;		/* patches of the series applied */
	struct build_result build;
	long long run_id;
	int boots;		/* boots made, ok or not */
	int reused;		/* run_id is an earlier run's: never booted */
	size_t twin;		/* 1 + the kernel of this measure whose run
				   this one shares (measure_share_kernels()),
				   0 if none */
};

struct measure {
	const struct mmci_config *cfg;
	struct db *db;
	git_repository *repo;
	const char *fragment;	/* config fragment, NULL for the default */
	struct run_opts opts;	/* template: the kernel fields are per run */
	struct measure_kernel *k;
	size_t nr, alloc;
	int extra_rounds;	/* rounds added by measure_adapt() */
};

/*
 * The options test-series, bisect and nightly share: what to run and how
 * many boots. MEASURE_OPTIONS goes into a getopt_long table, the short
 * codes below are taken; measure_args_parse() says whether it used one.
 */
struct measure_args {
	struct run_opts o;
	const char *fragment;
	int boots, max_boots;
};

#define MEASURE_OPTIONS                                                  \
	{ "config", required_argument, NULL, 'f' },                      \
	{ "workloads", required_argument, NULL, 'w' },                   \
	{ "map", required_argument, NULL, 'p' },                         \
	{ "align", required_argument, NULL, 'a' },                       \
	{ "iters", required_argument, NULL, 'i' },                       \
	{ "nvdimm", required_argument, NULL, 'n' },                      \
	{ "boots", required_argument, NULL, 'B' },                       \
	{ "max-boots", required_argument, NULL, 'M' },                   \
	{ "clock", required_argument, NULL, 'c' },                       \
	{ "backing", required_argument, NULL, 'K' },                     \
	{ "timeout", required_argument, NULL, 't' },                     \
	{ "arch", required_argument, NULL, 'A' }

#define MEASURE_USAGE                                                    \
	"  --config FRAG      kernel config fragment\n"                   \
	"                     (kernel-patches/config/mmci.config)\n"      \
	"  --workloads LIST   comma list or 'all' (fsdax)\n"              \
	"  --map LIST         memmap on the device and/or in RAM (dev)\n" \
	"  --align LIST       fsdax and devdax alignments (2M)\n"         \
	"  --iters N          rebinds per boot (30)\n"                    \
	"  --nvdimm SIZE      namespace size (100G)\n"                    \
	"  --boots B          boots per kernel, interleaved (icount: 2,\n" \
	"                     wall: 6)\n"                                 \
	"  --max-boots M      adaptive repeats: boot again while a\n"     \
	"                     comparison is ambiguous, up to M boots\n"   \
	"                     per kernel (2 x B)\n"                       \
	"  --clock MODE       icount or wall (icount under TCG, wall\n"   \
	"                     under KVM)\n"                               \
	"  --backing KIND     tmpfs or disk (auto)\n"                     \
	"  --timeout S        per boot\n"                                \
	"  --arch ARCH        the guest: x86_64 (default), arm64 or\n"    \
	"                     arm64-64k (4 or 64 KiB pages, cross-built\n" \
	"                     and emulated; docs/ARM64.md)\n"

/*
 * The options of one kernel's run, in one table, so that `mmci run` (and
 * the runs of a recipe, cmd-recipe.c) and `mmci bench` take the same
 * ones: the kernel, what the guest runs, its memory and its limits.
 * RUN_OPTIONS goes into a getopt_long table, RUN_OPTIONS_USAGE() into the
 * --help text; run_option_parse() parses them. Their codes come after
 * the letters, so they never meet a command's own options. Not in it:
 * the noise setting (--clock, --backing, --vcpus, --pin, --no-pin) and
 * --label, which `mmci bench` sets per setting (--settings), and --boots,
 * which each command counts its own way.
 */
enum run_option {
	RUN_OPT_BUILD = 0x100,
	RUN_OPT_KERNEL,
	RUN_OPT_MODROOT,
	RUN_OPT_RELEASE,
	RUN_OPT_HZ,
	RUN_OPT_WORKLOADS,
	RUN_OPT_ITERS,
	RUN_OPT_NVDIMM,
	RUN_OPT_ALIGN,
	RUN_OPT_FSDAX_ALIGN,
	RUN_OPT_DEVDAX_ALIGN,
	RUN_OPT_MAP,
	RUN_OPT_VMEM_SIZES,
	RUN_OPT_HOTPLUG_ITERS,
	RUN_OPT_KMEM_ONLINE,
	RUN_OPT_VMEM_ONLINE,
	RUN_OPT_KMEM_MEMMAP,
	RUN_OPT_PARAM,
	RUN_OPT_MEMREMAP_SIZE,
	RUN_OPT_MEMMAP_ON_MEMORY,
	RUN_OPT_RAM,
	RUN_OPT_TIMEOUT,
	RUN_OPT_ARCH,
	RUN_OPT_INITRD,
};

#define RUN_OPTIONS                                                        \
	{ "build", required_argument, NULL, RUN_OPT_BUILD },               \
	{ "kernel", required_argument, NULL, RUN_OPT_KERNEL },             \
	{ "modules-root", required_argument, NULL, RUN_OPT_MODROOT },      \
	{ "release", required_argument, NULL, RUN_OPT_RELEASE },           \
	{ "hz", required_argument, NULL, RUN_OPT_HZ },                     \
	{ "workloads", required_argument, NULL, RUN_OPT_WORKLOADS },       \
	{ "iters", required_argument, NULL, RUN_OPT_ITERS },               \
	{ "nvdimm", required_argument, NULL, RUN_OPT_NVDIMM },             \
	{ "align", required_argument, NULL, RUN_OPT_ALIGN },               \
	{ "fsdax-align", required_argument, NULL, RUN_OPT_FSDAX_ALIGN },   \
	{ "devdax-align", required_argument, NULL, RUN_OPT_DEVDAX_ALIGN }, \
	{ "map", required_argument, NULL, RUN_OPT_MAP },                   \
	{ "vmem-sizes", required_argument, NULL, RUN_OPT_VMEM_SIZES },     \
	{ "hotplug-iters", required_argument, NULL, RUN_OPT_HOTPLUG_ITERS }, \
	{ "kmem-online", required_argument, NULL, RUN_OPT_KMEM_ONLINE },   \
	{ "vmem-online", required_argument, NULL, RUN_OPT_VMEM_ONLINE },   \
	{ "kmem-memmap", required_argument, NULL, RUN_OPT_KMEM_MEMMAP },   \
	{ "param", required_argument, NULL, RUN_OPT_PARAM },               \
	{ "memremap-size", required_argument, NULL, RUN_OPT_MEMREMAP_SIZE }, \
	{ "memmap-on-memory", required_argument, NULL,                     \
	  RUN_OPT_MEMMAP_ON_MEMORY },                                      \
	{ "ram", required_argument, NULL, RUN_OPT_RAM },                   \
	{ "timeout", required_argument, NULL, RUN_OPT_TIMEOUT },           \
	{ "arch", required_argument, NULL, RUN_OPT_ARCH },                 \
	{ "initrd", required_argument, NULL, RUN_OPT_INITRD }

/* the --help lines of RUN_OPTIONS; @wl: the command's default workloads */
#define RUN_OPTIONS_USAGE(wl)                                              \
	"  --build ID         a kernel built by 'mmci build'\n"                \
	"  --kernel PATH      a prebuilt kernel, e.g. /boot/vmlinuz-<release>\n" \
	"  --modules-root DIR directory holding lib/modules/<release> (/)\n"   \
	"  --release REL      kernel release (from vmlinuz-<REL> by default)\n" \
	"  --hz HZ            CONFIG_HZ (from /boot/config-<REL> by default)\n" \
	"  --workloads LIST   comma list or 'all' (" wl "); 'mmci workloads'\n" \
	"                     lists them\n"                                    \
	"  --iters N          rebinds per boot and variant (30)\n"            \
	"  --nvdimm SIZE      namespace size, e.g. 100G, 512M (100G)\n"       \
	"  --align LIST       fsdax and devdax alignments, e.g. 4K,2M,1G\n"   \
	"  --fsdax-align LIST fsdax (pfn) alignments (2M)\n"                  \
	"  --devdax-align LIST devdax alignments (4K,2M,1G)\n"                \
	"  --map LIST         memmap on the device and/or in RAM (dev,mem)\n" \
	"  --vmem-sizes LIST  virtio-mem plug steps, then unplug (8G,16G)\n"  \
	"  --hotplug-iters N  virtio-mem and kmem cycles per boot (3)\n"      \
	"  --vmem-online LIST auto_online_blocks policies for virtio-mem\n"   \
	"                     (online_movable; offline: the runner onlines\n" \
	"                     each added block, timed as metric 'online')\n"  \
	"  --kmem-online LIST auto-online policies for kmem\n"                \
	"                     (online,online_movable; also offline)\n"        \
	"  --kmem-memmap LIST where kmem puts the memmap (ram,on_memory)\n"   \
	"  --memmap-on-memory on|off  the kernel's global switch for\n"       \
	"                     virtio-mem and kmem (on if kmem needs it)\n"    \
	"  --memremap-size S DEVICE_PRIVATE range for memremap (64G)\n"       \
	"  --param K=V        a runner parameter, e.g. mmci.bench_iters=20\n" \
	"                     (repeatable; see 'mmci workloads')\n"           \
	"  --ram SIZE         guest RAM (1G plus the memmap the run needs)\n" \
	"  --timeout S        per boot (from the workloads by default)\n"     \
	"  --arch ARCH        the guest: x86_64, arm64 or arm64-64k (the\n"   \
	"                     build's; a prebuilt kernel is x86_64 unless\n"  \
	"                     given)\n"                                        \
	"  --initrd PATH      boot this initramfs instead of the runner's\n"

/**
 * run_option_parse() - one option of RUN_OPTIONS
 * @o: the run's options; strings point into @arg
 * @build_id: out, --build
 * @params: the --param words so far; @o->extra points into it
 * @c: getopt_long's code
 * @arg: its argument (optarg)
 *
 * Dies on a bad value, as measure_args_parse() does.
 * Return: 1 when @c was one of RUN_OPTIONS, 0 when not, -1 after an
 * unknown --arch was said (a usage error, exit 129).
 */
int run_option_parse(struct run_opts *o, long long *build_id,
		     struct strbuf *params, int c, const char *arg);

/* defaults: one variant (memmap on the device, 2 MiB), as the seed had */
void measure_args_init(struct measure_args *a);
/* 1 when @c was one of MEASURE_OPTIONS (dies on a bad number), else 0 */
int measure_args_parse(struct measure_args *a, int c, const char *arg);
/* boots per kernel of a comparison when --boots is not given */
#define MEASURE_BOOTS_ICOUNT 2
#define MEASURE_BOOTS_WALL 6

/* after parsing: checks what was given (max_boots >= boots) */
void measure_args_finish(struct measure_args *a);

struct measure;
/*
 * once the first kernel's run exists (measure_add()): the boots not
 * given, by the clock mode that run really got, max_boots 2 x. Wall
 * clock: 6, the fewest for which the rank test can reach the default
 * alpha 0.005 (2 / C(12, 6) = 0.0022; 5 vs 5 is at best 0.0079).
 * icount: 2, the verdict rests on the clock's resolution.
 */
void measure_args_resolve(struct measure_args *a, const struct measure *m);

/* which two kernels to compare, by index in measure.k */
struct measure_pair {
	size_t base, new;
};

/* @opts is copied; its job_id tags every run */
void measure_init(struct measure *m, const struct mmci_config *cfg,
		  struct db *db, git_repository *repo, const char *fragment,
		  const struct run_opts *opts);
void measure_release(struct measure *m);

/**
 * measure_add() - build (or find in the cache) a kernel and create its run
 * @label: shown in tables ("base mm-new", "+2/5 mm: foo"); copied
 *
 * Return: the kernel's index in m->k, or -1 after error() (the failed
 * build is recorded by build_kernel()).
 */
int measure_add(struct measure *m, const git_oid *commit, long long series_id,
		int upto, const char *label);

/*
 * measure_reuse() - kernel @i takes an earlier run with the same build,
 * parameters and set-up instead of its own (run_find_reusable()), in
 * icount mode only, when that run has @boots ok boots. Its own run, not
 * booted yet, is dropped; the kernel is booted no more.
 * Return: 1 reused (its "base: reusing run N ..." line in *note, caller
 * frees), 0 not, -1 after error().
 */
int measure_reuse(struct measure *m, size_t i, int boots, char **note);

/*
 * measure_reuse_said() - measure_reuse() for a kernel of a nightly or a
 * bisection (an earlier nightly measured the previous head, the nightly
 * the two ends of its bisection), the note on the progress line, named
 * by the kernel's label.
 * Return: 1 reused, 0 not, -1 after error().
 */
int measure_reuse_said(struct measure *m, size_t i, int boots);

/*
 * measure_share_kernels() - one run for the kernels of this measure that
 * are one kernel. A commit that changes no file a build reads (a
 * documentation patch; a patch and its revert, seen from before both)
 * has the build key and .config of an earlier kernel of the measure;
 * under icount their boots would give the same values, so the later one
 * takes the earlier one's run (run_same_setup()), its own run dropped
 * before any boot, and is booted no more (->reused, ->twin). Wall-clock
 * runs are never shared. Return: how many kernels share, -1 after
 * error().
 */
int measure_share_kernels(struct measure *m);

/*
 * How many boots run on the host at once: 1 unless every run is in
 * icount mode, whose values do not depend on the host's load; then one
 * per host CPU, as far as the memory the guests take (RAM, and the
 * memmap in a tmpfs NVDIMM file) leaves 1 GiB available.
 */
int measure_slots(const struct measure *m);

/*
 * boot kernels @which[0..n) once each, in that order; never fails: a
 * failed boot is a boots row. In icount mode up to measure_slots() boots
 * run at once, each in a child process (each boot records how many ran
 * with it); on the wall clock one after another.
 * Return: how many boots produced results.
 */
int measure_round(struct measure *m, const size_t *which, size_t n);

/* @rounds rounds of every kernel; in icount mode every other round is
 * reversed, so two slots end together (measure.c) */
void measure_rounds(struct measure *m, int rounds);

/**
 * measure_adapt() - more rounds while a pair's comparison is ambiguous
 * @workload, @metric: only this metric decides (bisect), NULL for all
 * @max_boots: budget per kernel
 *
 * Return: the number of rounds added.
 */
int measure_adapt(struct measure *m, const struct measure_pair *pairs,
		  size_t npairs, const char *workload, const char *metric,
		  int max_boots);

/* mark every run ok (>= 1 ok boot) or failed; return how many are ok */
size_t measure_finish(struct measure *m);

/* compare_runs() of a pair */
int measure_compare(struct measure *m, struct measure_pair p,
		    struct run_comparison *out);

#endif
