// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-reproduce.c - `mmci reproduce RUN`: the kernel and the VM of a
 * stored run, again, and the comparison of the two.
 *
 * Every run row holds what is needed to repeat it (schema/0001): the
 * kernel (a build: commit, fragment, compiler; or a prebuilt file), the
 * workloads and their parameters, the accelerator, the clock mode and
 * the machine's shape. This command reads them back, rebuilds the kernel
 * through the build cache (a hit when tree, fragment and compiler are
 * unchanged), boots it with the same options as often as the original
 * was booted, and compares the original (base) with the new run the way
 * `mmci compare` does. Whatever differs from the recorded run - the
 * compiler, the .config, the QEMU or libvirt version, the runner, the
 * initramfs, the accelerator - is said before the boots start.
 *
 * A series commit is made by apply.c in the tree's object database but
 * no ref points at it, so a repack/prune can drop it: then the series is
 * applied again from the stored mails on the base it was applied to
 * (the applies table), which gives the same commit id (apply.h).
 */
#include <getopt.h>
#include <time.h>

#include <jansson.h>

#include "accel.h"
#include "arch.h"
#include "build.h"
#include "bundle.h"
#include "builtin.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "image.h"
#include "ingest.h"
#include "interrupt.h"
#include "run-command.h"
#include "run.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "vm.h"

static const char reproduce_usage[] =
	"usage: mmci reproduce RUN [--boots N] [--fragment FILE] [--dry-run]\n"
	"   or: mmci reproduce --bundle FILE|URL [--remote URL] [options]\n"
	"\n"
	"Re-create the kernel and the VM of run RUN and run it again: the\n"
	"same build (commit and config fragment, through the build cache) or\n"
	"prebuilt kernel, the same workloads and parameters, accelerator,\n"
	"clock mode, vCPUs, RAM, NVDIMM size and backing. Says what differs\n"
	"from the recorded run (compiler, .config, kernel release, QEMU,\n"
	"libvirt, runner, initramfs), stores the new run and prints its\n"
	"comparison with the original, as 'mmci compare RUN NEW' does.\n"
	"Exit 0 when the new run has a good boot, whatever the verdict.\n"
	"\n"
	"  --boots N          boots of the new run (as many as the original)\n"
	"  --fragment FILE    build with this config fragment instead of the\n"
	"                     recorded one (refused when that one changed)\n"
	"  --dry-run          print the build and run parameters, do nothing\n"
	"  --bundle FILE|URL  the run of a bundle ('mmci bundle', or a result\n"
	"                     page's /bundle/RUN) made on any host: it is\n"
	"                     stored here as a run, its base commit fetched\n"
	"                     from the remote it names when the tree lacks it,\n"
	"                     its series applied again, and then reproduced\n"
	"  --remote URL       fetch the bundle's base branch from URL (a\n"
	"                     mirror) instead of the remote the bundle names\n"
	"\n"
	"A bundle is checked whole before anything is fetched, built or\n"
	"stored: sizes (vCPUs, RAM, NVDIMM, iterations, timeouts, boots,\n"
	"samples, texts) within bounds, a kernel to build (never a prebuilt\n"
	"file), mmci's own initramfs, a remote over http(s), git or ssh\n"
	"(a local one with MMCI_BUNDLE_ALLOW_FILE=1).\n";

/* the builds row of a run that booted a built kernel must be there */
static int check_build_row(const struct run_row *r)
{
	if (!r->build_found)
		return error("run #%lld names build #%lld, which is not in "
			     "the database", r->id, r->build_id);
	return 0;
}

/* the value of KEY= among the space separated words of a command line */
static char *cmdline_value(const char *cmdline, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = cmdline; (p = strstr(p, key)); p += n)
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=')
			return xstrndup(p + n + 1, strcspn(p + n + 1, " "));
	return NULL;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * The run options of the recorded run. Everything the guest was given is
 * taken from the stored parameters; the memremap size and the hotplug
 * memmap switch are only in its command line. RAM, NVDIMM, backing,
 * vCPUs, pinning and the timeout are the recorded values, not defaults
 * worked out again on this host.
 */
static int opts_from_run(struct run_row *r, struct run_opts *o,
			 char **memremap)
{
	const char *cmdline, *s;
	json_t *v;
	char *mom;

	cmdline = r->pj ? jstr(r->pj, "cmdline") : NULL;
	if (!cmdline)
		return error("run #%lld has unreadable parameters (made by an "
			     "older mmci?): %s", r->id, r->params);
	o->workloads = (s = jstr(r->pj, "workloads")) ? s : r->workloads;
	if ((v = json_object_get(r->pj, "iters")) && json_is_integer(v))
		o->iters = json_integer_value(v);
	if ((s = jstr(r->pj, "fsdax_align")))
		o->fsdax_align = s;
	if ((s = jstr(r->pj, "devdax_align")))
		o->devdax_align = s;
	if ((s = jstr(r->pj, "map")))
		o->map = s;
	/* the planned steps ("8192M,16384M"), "" without virtio-mem */
	if ((s = jstr(r->pj, "vmem_sizes")) && *s)
		o->vmem_sizes = s;
	if ((v = json_object_get(r->pj, "hotplug_iters")) &&
	    json_is_integer(v))
		o->hotplug_iters = json_integer_value(v);
	if ((s = jstr(r->pj, "kmem_online")))
		o->kmem_online = s;
	if ((s = jstr(r->pj, "vmem_online")))
		o->vmem_online = s;
	if ((s = jstr(r->pj, "kmem_memmap")))
		o->kmem_memmap = s;
	o->extra = jstr(r->pj, "extra");
	if ((v = json_object_get(r->pj, "pin")) && json_is_boolean(v))
		o->pin = json_is_true(v);
	if ((v = json_object_get(r->pj, "timeout_s")) && json_is_integer(v))
		o->timeout_s = json_integer_value(v);
	*memremap = cmdline_value(cmdline, "mmci.memremap_size");
	if (*memremap)
		o->memremap_size = *memremap;
	mom = cmdline_value(cmdline, "memory_hotplug.memmap_on_memory");
	if (mom)
		o->memmap_on_memory = atoi(mom);
	free(mom);
	o->clock = r->clock;
	o->arch = r->arch;
	o->vcpus = r->vcpus;
	o->ram_mib = r->ram_mib;
	o->nvdimm_mib = r->nvdimm_mib;
	o->backing = r->backing;
	return 0;
}

/* what build.c puts in builds.compiler: gcc --version's first line */
/* "same" or "differs" lines, counted for the summary */
static int nr_differ;

static void same_or_not(const char *what, const char *was, const char *now)
{
	if (!was || !*was) {
		printf("  %-16s %s (not recorded)\n", what, now ? now : "?");
	} else if (now && !strcmp(was, now)) {
		printf("  %-16s %s, as recorded\n", what, now);
	} else {
		printf("  %-16s DIFFERS: recorded %s, now %s\n", what, was,
		       now ? now : "unknown");
		warning("%s differs from the recorded run: %s, now %s", what,
			was, now ? now : "unknown");
		nr_differ++;
	}
}

/*
 * The config fragment to build with: the recorded one when its content
 * is unchanged (also found under this project's kernel-patches/config/
 * when the recorded path is gone, e.g. a fresh clone elsewhere), else
 * --fragment. Caller frees *path.
 */
static int choose_fragment(const struct mmci_config *cfg,
			   const struct run_row *r, const char *override,
			   char **path)
{
	char sha[41];

	if (override) {
		if (hash_file_hex(override, sha) < 0)
			return -1;
		*path = real_path(override);
		printf("  %-16s %s (--fragment), sha1 %.12s", "fragment", *path,
		       sha);
		if (strcmp(sha, r->config_hash)) {
			printf(": DIFFERS from build #%lld's %s (sha1 %.12s)\n",
			       r->build_id, r->fragment, r->config_hash);
			nr_differ++;
		} else {
			printf(", the content build #%lld used\n", r->build_id);
		}
		return 0;
	}
	if (file_exists(r->fragment)) {
		if (hash_file_hex(r->fragment, sha) < 0)
			return -1;
		if (strcmp(sha, r->config_hash))
			return error("the config fragment '%s' changed since "
				     "build #%lld (sha1 %.12s, recorded "
				     "%.12s): restore it, or give --fragment "
				     "FILE to build with another one",
				     r->fragment, r->build_id, sha,
				     r->config_hash);
		*path = xstrdup(r->fragment);
	} else {
		const char *base = strrchr(r->fragment, '/');
		char *sub = xstrfmt("kernel-patches/config/%s",
				    base ? base + 1 : r->fragment);
		char *cand = project_path(cfg, sub);

		free(sub);
		if (!file_exists(cand) || hash_file_hex(cand, sha) < 0 ||
		    strcmp(sha, r->config_hash)) {
			error("the config fragment '%s' of build #%lld is gone "
			      "(sha1 %.12s): give --fragment FILE", r->fragment,
			      r->build_id, r->config_hash);
			free(cand);
			return -1;
		}
		printf("  %-16s %s is gone; %s has its content\n", "fragment",
		       r->fragment, cand);
		*path = cand;
	}
	printf("  %-16s %s, sha1 %.12s as recorded\n", "fragment", *path, sha);
	return 0;
}

static int commit_present(git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int ok = git_commit_lookup(&c, repo, id) == 0;

	git_commit_free(c);
	return ok;
}

/*
 * The recorded commit is not in the tree: apply patches 1..upto of the
 * stored series again on a base it was applied to, and check that the
 * result is the recorded commit. dry_run only says what it would do.
 */
static int reapply(struct db *db, git_repository *repo,
		   const struct run_row *r, const git_oid *want, int dry_run)
{
	struct loaded_series ls = { 0 };
	git_oid *heads = NULL;
	sqlite3_stmt *st;
	int ret = -1, tried = 0, step = DB_DONE;

	if (!r->series_id || r->upto < 1)
		return error("commit %s of build #%lld is not in the tree and "
			     "is no series commit that could be re-created: "
			     "fetch it into the tree first", r->commit,
			     r->build_id);
	st = db_query(db, "SELECT base_commit, max(base_ref) FROM applies "
		      "WHERE series_id = ? AND upto >= ? AND status = 'ok' "
		      "GROUP BY base_commit ORDER BY max(id) DESC", "ii",
		      r->series_id, (long long)r->upto);
	if (!st)
		return -1;
	if (!dry_run && ingest_load_stored(db, r->series_id, &ls) < 0)
		goto out;
	if (!dry_run && (size_t)r->upto > ls.s.nr) {
		error("series #%lld has %zu patch(es) now, build #%lld applied "
		      "%d", r->series_id, ls.s.nr, r->build_id, r->upto);
		goto out;
	}
	heads = xcalloc(r->upto, sizeof(*heads));
	while (ret < 0 && (step = db_step(db, st)) == DB_ROW) {
		const char *base_hex = db_col_text(st, 0);
		const char *base_ref = db_col_text(st, 1);
		git_oid base;

		tried++;
		if (git_oid_fromstr(&base, base_hex) < 0 ||
		    !commit_present(repo, &base)) {
			printf("  %-16s base %.12s (%s) is not in the tree "
			       "either\n", "commit", base_hex, base_ref);
			continue;
		}
		if (dry_run) {
			printf("  %-16s %s is not in the tree: would apply "
			       "series #%lld patches 1-%d again on %.12s "
			       "(%s)\n", "commit", r->commit, r->series_id,
			       r->upto, base_hex, base_ref);
			ret = 0;
			break;
		}
		progress("commit %.12s is not in the tree: applying series "
			 "#%lld patches 1-%d again on %.12s", r->commit,
			 r->series_id, r->upto, base_hex);
		if (apply_series(db, repo, &ls, base_ref, &base, r->upto,
				 heads) < 0)
			continue;
		if (!git_oid_equal(&heads[r->upto - 1], want)) {
			error("series #%lld patches 1-%d on %.12s give commit "
			      "%s, not the recorded %s (the stored mails "
			      "changed?)", r->series_id, r->upto, base_hex,
			      git_oid_tostr_s(&heads[r->upto - 1]), r->commit);
			continue;
		}
		printf("  %-16s %s was not in the tree: series #%lld patches "
		       "1-%d applied again on %.12s gave it back\n", "commit",
		       r->commit, r->series_id, r->upto, base_hex);
		ret = 0;
	}
	if (step < 0)
		ret = -1;	/* the applies could not be read: said */
	else if (ret < 0 && !tried)
		error("commit %s of build #%lld is not in the tree and series "
		      "#%lld was never applied here with %d patch(es): no base "
		      "to apply it on", r->commit, r->build_id, r->series_id,
		      r->upto);
	else if (ret < 0)
		error("commit %s of build #%lld is not in the tree and cannot "
		      "be re-created from series #%lld (see above)", r->commit,
		      r->build_id, r->series_id);
out:
	sqlite3_finalize(st);
	free(heads);
	loaded_series_release(&ls);
	return ret;
}

/*
 * The built kernel: the recorded commit with the recorded fragment,
 * through build_kernel() and its cache. Fills o's kernel fields; the
 * strings are owned by *br.
 */
static int rebuild(const struct mmci_config *cfg, struct db *db,
		   struct run_row *r, const char *fragment_arg, int dry_run,
		   struct build_result *br, struct run_opts *o)
{
	git_repository *repo = NULL;
	char *fragment = NULL, *cc = NULL, *dot = NULL;
	const struct arch *arch;
	git_oid commit;
	int ret = -1;

	if (check_build_row(r) < 0)
		return -1;
	printf("kernel: build #%lld: commit %s", r->build_id, r->commit);
	if (r->series_id)
		printf(" (series #%lld, patches 1-%d)", r->series_id, r->upto);
	printf("\n");
	if (choose_fragment(cfg, r, fragment_arg, &fragment) < 0)
		goto out;
	arch = arch_get(r->arch);
	if (!arch || arch_check(arch) < 0)
		goto out;
	cc = build_compiler_version(arch->cross);
	same_or_not("compiler", r->compiler, cc);
	if (tree_open(cfg->tree_dir, &repo) < 0)
		goto out;
	if (git_oid_fromstr(&commit, r->commit) < 0) {
		error("build #%lld has an invalid commit id '%s'", r->build_id,
		      r->commit);
		goto out;
	}
	if (commit_present(repo, &commit))
		printf("  %-16s %s, in the tree %s\n", "commit", r->commit,
		       cfg->tree_dir);
	else if (reapply(db, repo, r, &commit, dry_run) < 0)
		goto out;
	if (dry_run) {
		printf("  %-16s would build it, or take it from the cache when "
		       "the tree, fragment, compiler and mmci-bench sources "
		       "are unchanged\n", "build");
		ret = 0;
		goto out;
	}
	if (build_kernel(cfg, db, repo, &commit, r->series_id, r->upto,
			 fragment, arch, br) < 0)
		goto out;
	if (br->cached)
		printf("  %-16s #%lld, from the cache%s\n", "build", br->id,
		       br->id == r->build_id ? " (the recorded build itself)" :
					       "");
	else
		printf("  %-16s #%lld, built in %.0f s\n", "build", br->id,
		       br->duration_s);
	/* the file, not the row: a cache hit is the recorded build's row */
	{
		char *path = xstrfmt("%s/config", br->artifacts);
		char sha[41];

		if (!hash_file_hex(path, sha))
			dot = xstrdup(sha);
		free(path);
	}
	same_or_not(".config sha1", r->dotconfig_hash, dot);
	same_or_not("kernel release", r->release, br->release);
	o->build_id = br->id;
	o->kernel = br->bzimage;
	o->modroot = br->modroot;
	o->release = br->release;
	o->hz = br->hz;
	ret = 0;
out:
	free(fragment);
	free(cc);
	free(dot);
	git_repository_free(repo);
	return ret;
}

/*
 * `mmci run --kernel` records the path as given: a relative one is
 * relative to where mmci ran, which is not recorded. Try the current
 * directory, then the database's (the usual place to run mmci from).
 * Replaces *path when found elsewhere.
 */
static void find_recorded(const struct db *db, char **path)
{
	char *dir, *slash, *p;

	if (**path == '/' || file_exists(*path) || dir_exists(*path) ||
	    !(dir = realpath(db->path, NULL)))
		return;
	slash = strrchr(dir, '/');
	*slash = '\0';
	p = xstrfmt("%s/%s", dir, *path);
	if (file_exists(p) || dir_exists(p)) {
		printf("  %-16s '%s' is relative: found under %s\n", "path",
		       *path, dir);
		free(*path);
		*path = p;
	} else {
		free(p);
	}
	free(dir);
}

static int prebuilt(const struct db *db, struct run_row *r,
		    const char *fragment_arg, struct run_opts *o)
{
	char *moddir;
	int ret = 0;

	if (fragment_arg)
		return error("--fragment is for a built kernel: run #%lld "
			     "booted the prebuilt '%s'", r->id, r->kernel);
	printf("kernel: prebuilt %s (release %s, HZ %d), modules under %s\n",
	       r->kernel, r->release, r->hz, r->modroot);
	find_recorded(db, &r->kernel);
	find_recorded(db, &r->modroot);
	if (!file_exists(r->kernel))
		return error("the kernel '%s' of run #%lld is gone: it was a "
			     "prebuilt file (no build to make it again); put "
			     "it back to reproduce the run", r->kernel, r->id);
	moddir = xstrfmt("%s/lib/modules/%s", r->modroot, r->release);
	if (!dir_exists(moddir))
		ret = error("the modules of run #%lld ('%s') are gone: the "
			    "guest needs them", r->id, moddir);
	free(moddir);
	o->kernel = r->kernel;
	o->modroot = r->modroot;
	o->release = r->release;
	o->hz = r->hz;
	return ret;
}

/*
 * The accelerator of the recorded run. A tcg run stays tcg on a host with
 * KVM; a kvm run falls back to tcg (said, and the modes then differ, so
 * the runs are not compared) when this host has no usable KVM: no
 * /dev/kvm, or a stored verdict that KVM hangs guests here (accel.h).
 * Without a verdict run_create() boots its trial and may still fall back;
 * the run row then says so.
 */
static const char *choose_accel(struct db *db, const struct run_row *r)
{
	char why[256];

	if (!strcmp(r->accel, "tcg")) {
		setenv("MMCI_ACCEL", "tcg", 1);
		return "tcg";
	}
	if (accel_expect_kvm(db, why, sizeof(why)))
		return "kvm";
	warning("run #%lld used KVM, this host has none usable (%s): using "
		"TCG, the new run is not comparable with it", r->id, why);
	setenv("MMCI_ACCEL", "tcg", 1);
	return "tcg";
}

/*
 * The initramfs: the runner's image (<data>/images/<release>-<key>.cpio.gz)
 * is made again for this kernel; any other file was given with --initrd
 * and is booted as it is.
 */
static int is_runner_image(const struct run_row *r)
{
	const char *base = strrchr(r->initrd, '/');
	size_t n = strlen(r->release);

	base = base ? base + 1 : r->initrd;
	return base - r->initrd >= 8 &&
	       !strncmp(base - 8, "/images/", 8) &&
	       !strncmp(base, r->release, n) && base[n] == '-' &&
	       ends_with(base, ".cpio.gz");
}

static int initrd_now(const struct mmci_config *cfg, const struct run_row *r,
		      const struct run_opts *o, int dry_run, int imported,
		      char **path, char sha[41])
{
	if (!is_runner_image(r) && imported)
		return error("run #%lld came from a bundle and names the "
			     "initramfs '%s', not mmci's own: refused, a "
			     "bundle's path is never opened on this host",
			     r->id, r->initrd);
	if (!is_runner_image(r)) {
		printf("  %-16s %s (given to the original run)\n", "initramfs",
		       r->initrd);
		if (!file_exists(r->initrd))
			return error("the initramfs '%s' of run #%lld is gone",
				     r->initrd, r->id);
		*path = xstrdup(r->initrd);
		return hash_file_hex(*path, sha);
	}
	if (dry_run) {
		xsnprintf(sha, 41, "(made at run time)");
		return 0;
	}
	{
		const struct arch *a = arch_get(o->arch);

		if (!a || arch_check(a) < 0)
			return -1;
		return image_build(cfg, a, o->release, o->modroot, path, sha);
	}
}

static void print_plan(const struct run_row *r, const struct run_opts *o,
		       const char *accel, int boots)
{
	json_t *cl = json_object_get(r->pj, "cmdline");

	printf("workloads: %s\n", o->workloads);
	printf("vm: %s%s, clock %s, %lld vCPU(s)%s, %lld MiB RAM, %lld MiB "
	       "NVDIMM on %s, timeout %u s, %d boot(s)\n", accel,
	       strcmp(accel, r->accel) ? " (FALLBACK: the run used kvm)" : "",
	       r->clock, r->vcpus, o->pin > 0 ? " pinned" : "", r->ram_mib,
	       r->nvdimm_mib, r->backing, o->timeout_s, boots);
	printf("guest command line: %s\n", json_string_value(cl));
}

static void differs_str(struct strbuf *diff, const char *what,
			 const char *x, const char *y)
{
	if (strcmp(x, y))
		strbuf_addf(diff, "  %s: %s -> %s\n", what, x, y);
}

static void differs_int(struct strbuf *diff, const char *what, long long x,
			long long y)
{
	if (x != y)
		strbuf_addf(diff, "  %s: %lld -> %lld\n", what, x, y);
}

/* the parameters and set-up of the new run @n against the recorded @r */
static void check_setup(const struct run_row *r, const struct run_row *n)
{
	struct strbuf diff = STRBUF_INIT;
	const char *key;
	json_t *v;

	differs_str(&diff, "workloads", r->workloads, n->workloads);
	differs_str(&diff, "accel", r->accel, n->accel);
	differs_str(&diff, "clock", r->clock, n->clock);
	differs_int(&diff, "vcpus", r->vcpus, n->vcpus);
	differs_int(&diff, "ram_mib", r->ram_mib, n->ram_mib);
	differs_int(&diff, "nvdimm_mib", r->nvdimm_mib, n->nvdimm_mib);
	differs_str(&diff, "backing", r->backing, n->backing);
	differs_str(&diff, "kernel_release", r->release, n->release);
	differs_int(&diff, "hz", r->hz, n->hz);
	json_object_foreach(r->pj, key, v) {
		json_t *w = json_object_get(n->pj, key);

		if (!w || !json_equal(v, w)) {
			char *x = json_dumps(v, JSON_ENCODE_ANY);
			char *y = w ? json_dumps(w, JSON_ENCODE_ANY) : NULL;

			strbuf_addf(&diff, "  params.%s: %s -> %s\n", key, x,
				    y ? y : "(none)");
			free(x);
			free(y);
		}
	}
	if (diff.len)
		printf("set-up of run #%lld DIFFERS from run #%lld:\n%s",
		       n->id, r->id, diff.buf);
	else
		printf("set-up of run #%lld: as run #%lld (workloads, "
		       "parameters, guest command line, accel, clock, vCPUs, "
		       "RAM, NVDIMM, backing, kernel release, HZ)\n", n->id,
		       r->id);
	strbuf_release(&diff);
}

/*
 * "no significant change (4 metric(s): 3 no significant change,
 * 1 insufficient data)": the verdict line of compare_format() with the
 * count of each verdict
 */
static void verdict_summary(const struct run_comparison *rc,
			    struct strbuf *out)
{
	static const enum verdict order[] = { VERDICT_NO_CHANGE,
					      VERDICT_INSUFFICIENT,
					      VERDICT_BETTER, VERDICT_WORSE };
	int n[4] = { 0 }, first = 1;
	size_t i;

	for (i = 0; i < rc->nr; i++)
		n[rc->m[i].c.verdict]++;
	compare_verdict(rc, out);
	strbuf_addf(out, " (%zu metric(s)", rc->nr);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!n[order[i]])
			continue;
		strbuf_addf(out, "%s %d %s", first ? ":" : ",", n[order[i]],
			    verdict_name(order[i]));
		first = 0;
	}
	strbuf_addch(out, ')');
}

/*
 * --bundle: the bundle's run stored here (once), its base in the tree;
 * then it is reproduced as any stored run
 */
static int from_bundle(const struct mmci_config *cfg, struct db *db,
		       const char *src, const char *remote, long long *run_id)
{
	char sha1[41];
	json_t *b = NULL;
	int ret = -1;

	if (bundle_read(cfg, src, &b, sha1) < 0)
		return -1;
	printf("bundle %s: run #%lld of %s, sha1 %.12s\n", src,
	       (long long)json_integer_value(json_object_get(
		       json_object_get(b, "origin"), "run")),
	       json_string_value(json_object_get(json_object_get(b, "origin"),
						 "host")), sha1);
	if (bundle_import(cfg, db, b, sha1, src, run_id) < 0 ||
	    bundle_fetch_base(cfg, b, remote) < 0)
		goto out;
	ret = 0;
out:
	json_decref(b);
	return ret;
}

int cmd_reproduce(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "boots", required_argument, NULL, 'B' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "bundle", required_argument, NULL, 'b' },
		{ "remote", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *fragment = NULL, *accel, *bundle = NULL, *remote = NULL;
	struct build_result br = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct run_row r = { 0 }, nr = { 0 };
	struct run_opts o;
	struct mmci_config cfg;
	struct db db;
	char *initrd = NULL, *runner = NULL, *label = NULL, *memremap = NULL;
	char *qemu_v = NULL, *libvirt_v = NULL;
	char runner_sha[41] = "", initrd_sha[41] = "";
	long long run_id, new_id = 0;
	int c, boots = 0, dry_run = 0, ret = 1, i, ok, imported;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'B': boots = parse_count("--boots", optarg); break;
		case 'f': fragment = optarg; break;
		case 'n': dry_run = 1; break;
		case 'b': bundle = optarg; break;
		case 'r': remote = optarg; break;
		case 'h':
			fputs(reproduce_usage, stdout);
			return 0;
		default:
			fputs(reproduce_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != !bundle || (remote && !bundle)) {
		fputs(reproduce_usage, stderr);
		return 129;
	}
	run_id = bundle ? 0 : parse_count("RUN", argv[optind]);
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the new run and its boot on SIGTERM */
	run_opts_init(&o);
	if (bundle && from_bundle(&cfg, &db, bundle, remote, &run_id) < 0)
		goto out;
	if (run_load(&db, run_id, &r) < 0 ||
	    opts_from_run(&r, &o, &memremap) < 0)
		goto out;
	if (!boots)
		boots = r.boots > 0 ? r.boots : 1;
	printf("reproduce run #%lld%s%s%s (%s, %d boot(s))\n", r.id,
	       *r.label ? " \"" : "", r.label, *r.label ? "\"" : "",
	       r.status, r.boots);
	if (strcmp(r.status, "ok"))
		warning("run #%lld is %s: the comparison may have little or "
			"nothing to compare", r.id, r.status);
	/* an imported run's paths are the other host's (bundle.h): one
	 * imported before bundle_check() existed is refused here */
	imported = bundle ? 1 : bundle_run_imported(&db, r.id);
	if (imported < 0)
		goto out;
	if (!r.build_id && imported) {
		error("run #%lld came from a bundle and booted the prebuilt "
		      "kernel '%s' of its host: refused, a bundle's kernel is "
		      "built here from its commit", r.id, r.kernel);
		goto out;
	}
	if (r.build_id ? rebuild(&cfg, &db, &r, fragment, dry_run, &br, &o) :
			 prebuilt(&db, &r, fragment, &o))
		goto out;
	accel = choose_accel(&db, &r);
	print_plan(&r, &o, accel, boots);

	if (initrd_now(&cfg, &r, &o, dry_run, imported, &initrd,
		       initrd_sha) < 0)
		goto out;
	runner = project_path(&cfg, "runner/mmci-runner");
	if (hash_file_hex(runner, runner_sha) < 0)
		xsnprintf(runner_sha, sizeof(runner_sha), "(missing)");
	vm_versions(&qemu_v, &libvirt_v);
	printf("environment:\n");
	same_or_not("qemu", r.qemu_v, qemu_v);
	same_or_not("libvirt", r.libvirt_v, libvirt_v);
	same_or_not("runner sha1", r.runner_sha1, runner_sha);
	if (dry_run && is_runner_image(&r))
		printf("  %-16s recorded %s, made at run time\n",
		       "initramfs sha1", *r.initrd_sha1 ? r.initrd_sha1 : "-");
	else
		same_or_not("initramfs sha1", r.initrd_sha1, initrd_sha);
	if (strcmp(accel, r.accel))
		nr_differ++;
	if (dry_run) {
		printf("dry run: %d difference(s); no kernel built, no run "
		       "made\n", nr_differ);
		ret = 0;
		goto out;
	}
	fflush(stdout);

	label = xstrfmt("reproduce of run %lld", r.id);
	o.label = label;
	o.initrd = initrd;
	if (run_create(&cfg, &db, &o, &new_id) < 0)
		goto out;
	printf("new run: #%lld \"%s\"\n", new_id, label);
	if (run_load(&db, new_id, &nr) < 0)
		goto out;
	if (!strcmp(nr.accel, "tcg"))
		accel = "tcg";	/* the trial showed KVM hangs guests */
	check_setup(&r, &nr);
	fflush(stdout);
	for (i = 0; i < boots && !interrupted(); i++) {
		progress("boot %d of %d (run #%lld)", i + 1, boots, new_id);
		run_boot(&cfg, &db, new_id, i);
	}
	ok = run_finish(&db, new_id);
	if (ok < 0)
		goto out;
	if (interrupted()) {
		error("run #%lld failed: %s", new_id, interrupt_reason());
		goto out;
	}
	printf("run #%lld: %s (%d of %d boot(s) ok)\n\n", new_id,
	       ok ? "ok" : "failed", ok, boots);
	if (!ok) {
		error("run #%lld failed: no boot produced results (see 'mmci "
		      "show run %lld')", new_id, new_id);
		printf("reproduced: run %lld -> run %lld: failed, no boot "
		       "produced results\n", r.id, new_id);
		goto out;
	}
	if (compare_runs(&db, r.id, new_id, &rc) < 0) {
		strbuf_addf(&out, "not compared: %s", last_error());
	} else {
		struct strbuf table = STRBUF_INIT;

		compare_format(&db, &rc, &table);
		fputs(table.buf, stdout);
		strbuf_release(&table);
		verdict_summary(&rc, &out);
	}
	if (strcmp(accel, r.accel))
		strbuf_addf(&out, " [%s instead of %s]", accel, r.accel);
	printf("\nreproduced: run %lld -> run %lld: %s\n", r.id, new_id,
	       out.buf);
	ret = 0;
out:
	run_comparison_release(&rc);
	strbuf_release(&out);
	build_result_release(&br);
	run_row_release(&r);
	run_row_release(&nr);
	free(memremap);
	free(initrd);
	free(runner);
	free(label);
	free(qemu_v);
	free(libvirt_v);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
