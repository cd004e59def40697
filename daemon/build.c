// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - the build stage: checkout, configure, make, cache.
 *
 * Workload: Linux 6.12 from tinyconfig plus a fragment, on a 2-core host:
 * cold 7.5-10 min, warm ccache 35-60 s, one touched .c file 11-16 s
 * (docs/FACTS.md). Kconfig can silently drop an option whose dependencies are
 * not met, so every option of the fragment is checked in the final .config.
 *
 * Every command that runs the tree's own code (make, merge_config.sh) runs
 * in the sandbox (sandbox.h): no network, uid 65534, and writable only the
 * object directory, the build's artifacts directory and ccache's cache. The
 * worktree stays read-only: kbuild with O= writes nothing to the source
 * tree; merge_config.sh writes its temporary files into its current
 * directory, so it runs in the object directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "build.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "run-command.h"
#include "sandbox.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

#define BASE_RECIPE "tinyconfig+kvm_guest.config"
#define MAKE_TIMEOUT_S (2 * 3600)

void build_result_release(struct build_result *res)
{
	free(res->artifacts);
	free(res->bzimage);
	free(res->modroot);
	free(res->release);
	memset(res, 0, sizeof(*res));
}

char *build_compiler_version(const char *cross)
{
	char *gcc = xstrfmt("%sgcc", cross ? cross : "");
	const char *argv[] = { gcc, "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	char *nl;

	if (capture_command(argv, NULL, &out)) {
		strbuf_release(&out);
		error("cannot run %s: install %s", gcc, cross && *cross ?
		      "gcc-aarch64-linux-gnu (make setup)" : "build-essential");
		free(gcc);
		return NULL;
	}
	free(gcc);
	nl = strchr(out.buf, '\n');
	if (nl)
		strbuf_setlen(&out, nl - out.buf);
	return strbuf_detach(&out, NULL);
}

int config_hz(const char *dotconfig)
{
	FILE *fp = fopen(dotconfig, "r");
	char line[256];
	int hz = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
			break;
	fclose(fp);
	return hz;
}

/* value of CONFIG_<name> in a .config: "y", "m", "\"str\"", or NULL */
static char *dotconfig_value(const struct strbuf *dotconfig, const char *name)
{
	char *needle = xstrfmt("\n%s=", name);
	const char *p = strstr(dotconfig->buf, needle);
	char *v = NULL;

	if (p) {
		const char *s = p + strlen(needle);
		const char *e = strchrnul(s, '\n');

		v = xstrndup(s, e - s);
	}
	free(needle);
	return v;
}

/* the option a fragment line sets ("CONFIG_X=v", "# CONFIG_X is not set") */
static int fragment_option(const char *line, char name[128], char want[256])
{
	if (sscanf(line, "# %127[A-Z0-9_] is not set", name) == 1) {
		want[0] = 'n';
		want[1] = '\0';
		return 1;
	}
	return sscanf(line, "%127[A-Z0-9_]=%255s", name, want) == 2;
}

/* does a line after @rest set option @name again? (the last one wins) */
static int set_again(const char *rest, const char *name)
{
	char *copy = xstrdup(rest), *line, *save = NULL;
	int again = 0;

	for (line = strtok_r(copy, "\n", &save); line && !again;
	     line = strtok_r(NULL, "\n", &save)) {
		char n[128], w[256];

		again = fragment_option(line, n, w) && !strcmp(n, name);
	}
	free(copy);
	return again;
}

/*
 * Every "CONFIG_X=v" and "# CONFIG_X is not set" of the fragments (one
 * after the other in @frags, the last setting of an option wins) must
 * hold in the final .config, except the options named in @skip (" NAME "
 * words: options that do not exist on the arch). Lists the ones that do
 * not into `missing`.
 */
static int check_fragment(const char *frags, const char *skip,
			  const char *dotconfig_path, struct strbuf *missing)
{
	struct strbuf frag = STRBUF_INIT, dot = STRBUF_INIT;
	char *line, *save = NULL;
	int bad = 0;

	strbuf_addch(&dot, '\n'); /* so every line starts with "\n" */
	if (strbuf_read_file(&dot, dotconfig_path, 0) < 0) {
		strbuf_release(&dot);
		return error_errno("cannot read '%s'", dotconfig_path);
	}
	strbuf_addstr(&frag, frags);
	for (line = strtok_r(frag.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128], want[256], word[132];
		char *got;

		if (!fragment_option(line, name, want))
			continue;
		xsnprintf(word, sizeof(word), " %s ", name);
		if (strstr(skip, word) ||
		    set_again(frags + (line - frag.buf) + strlen(line), name))
			continue;
		if (line[0] == '#') {
			got = dotconfig_value(&dot, name);
			if (got && strcmp(got, "n")) {
				strbuf_addf(missing, " %s=%s(want n)", name,
					    got);
				bad++;
			}
			free(got);
			continue;
		}
		got = dotconfig_value(&dot, name);
		if (!got || strcmp(got, want)) {
			if (!(!got && !strcmp(want, "n"))) {
				strbuf_addf(missing, " %s=%s(got %s)", name,
					    want, got ? got : "unset");
				bad++;
			}
		}
		free(got);
	}
	strbuf_release(&frag);
	strbuf_release(&dot);
	return bad;
}

/* the first compiler/linker error in a build log, for the error line */
static void first_error_line(const char *log, struct strbuf *out)
{
	FILE *fp = fopen(log, "r");
	char line[1024];

	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(line, "error:") || strstr(line, "Error ") ||
		    strstr(line, "undefined reference") ||
		    starts_with(line, "bwrap: ")) {
			strbuf_addstr(out, line);
			strbuf_rtrim(out);
			break;
		}
	}
	fclose(fp);
}

/* hash of runner/mmci-bench's sources: the module is part of a build */
static void bench_source_hash(const struct mmci_config *cfg, char out[41])
{
	static const char *const files[] = { "mmci_bench.c", "Kbuild" };
	struct strbuf all = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xstrfmt("%s/runner/mmci-bench/%s", cfg->project_dir,
				  files[i]);

		if (strbuf_read_file(&all, p, 0) < 0)
			strbuf_addf(&all, "missing %s\n", files[i]);
		free(p);
	}
	hash_hex(all.buf, all.len, out);
	strbuf_release(&all);
}

struct make_ctx {
	const struct arch *arch;	/* ARCH=, CROSS_COMPILE= */
	const char *worktree;
	const char *objdir;
	const char *log;
	const struct sandbox *box;	/* kind and directories */
	/* progress: what the status line says while make runs */
	long long build_id;
	long expect;		/* .o files the previous like build wrote */
	time_t since;		/* .o files newer than this are this build's */
	double t0;		/* now_s() at the start of make */
	long objects;		/* .o files written so far */
	int watch;		/* show them while make runs */
};

/* --- progress: objects done, an estimate from the previous build ---- */

static time_t count_since;
static long count_found;

static int count_one(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	if (type == FTW_F && ends_with(path, ".o") &&
	    st->st_mtime >= count_since)
		count_found++;
	return 0;
}

/* .o files under @dir written since @since: what make compiled so far */
static long count_objects(const char *dir, time_t since)
{
	count_since = since;
	count_found = 0;
	nftw(dir, count_one, 32, FTW_PHYS);
	return count_found;
}

static void make_tick(void *data)
{
	struct make_ctx *mc = data;
	double el = now_s() - mc->t0;
	long n = count_objects(mc->objdir, mc->since);

	mc->objects = n;
	if (mc->expect > 0 && n > 0 && n < mc->expect)
		progress_status("build #%lld: %ld of ~%ld objects (%ld %%), "
				"%.0f s, about %.0f s left", mc->build_id, n,
				mc->expect, n * 100 / mc->expect, el,
				el / n * (mc->expect - n));
	else if (mc->expect > 0)
		progress_status("build #%lld: %ld objects (the previous like "
				"build: %ld), %.0f s", mc->build_id, n,
				mc->expect, el);
	else
		progress_status("build #%lld: %ld objects, %.0f s (no previous "
				"build of this config to estimate from)",
				mc->build_id, n, el);
}

/*
 * ccache's cache directory, asked once: "ccache -k" honours CCACHE_DIR and
 * the configuration files, which the sandbox leaves readable. It must be
 * writable in the sandbox, or every compile fails. ccache's temporary files
 * go to <cache_dir>/tmp there: XDG_RUNTIME_DIR is not passed in. NULL after
 * error().
 */
static const char *ccache_dir(void)
{
	static char *dir;
	const char *argv[] = { "ccache", "-k", "cache_dir", NULL };
	const char *env = getenv("CCACHE_DIR");
	struct strbuf out = STRBUF_INIT;

	if (dir)
		return dir;
	if (!capture_command(argv, NULL, &out)) {
		strbuf_trim(&out);
		if (out.len && out.buf[0] == '/')
			dir = strbuf_detach(&out, NULL);
	}
	strbuf_release(&out);
	if (!dir && env && *env == '/')
		dir = xstrdup(env);
	if (!dir) {
		error("cannot find ccache's cache directory ('ccache -k "
		      "cache_dir' failed and CCACHE_DIR is not set)");
		return NULL;
	}
	if (mkdir_p(dir, 0755) < 0) {
		free(dir);
		dir = NULL;
		return NULL;
	}
	return dir;
}

/* run a command of the tree in the sandbox; exit code as run_command() */
static int run_tree_command(const struct make_ctx *mc,
			    struct child_process *cmd)
{
	struct sandbox sb = SANDBOX_INIT;
	int code;

	sb.kind = mc->box->kind;
	sb.rw = mc->box->rw;
	sb.ro = mc->box->ro;
	sb.keep_env = mc->box->keep_env;
	sandbox_wrap(&sb, cmd);
	code = run_command(cmd);
	sandbox_release(&sb);
	return code;
}

static int run_make(struct make_ctx *mc, const char *what,
		    const char **targets)
{
	char *basedir = xstrfmt("CCACHE_BASEDIR=%s", mc->worktree);
	/*
	 * Kbuild passes absolute -I paths: with CCACHE_BASEDIR ccache hashes
	 * them relative to the worktree, so a checkout in another directory
	 * (CI's fresh clone) still hits the cache.
	 */
	const char *env[] = { "KBUILD_BUILD_USER=mmci",
			      "KBUILD_BUILD_HOST=mmci",
			      "KBUILD_BUILD_TIMESTAMP=1970-01-01", basedir,
			      "CCACHE_NOHASHDIR=1", NULL };
	char jobs[32], odir[4096], arch[64], cross[128], cc[160];
	const char *argv[24];
	struct child_process cmd = CHILD_PROCESS_INIT;
	int argc = 0, attempt, code = 0, cpu;

	xsnprintf(jobs, sizeof(jobs), "-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	xsnprintf(odir, sizeof(odir), "O=%s", mc->objdir);
	/*
	 * Below the guests: a guest beside a build keeps its core (nice 10
	 * weighs a tenth of nice 0), so a boot's wall time, and with it its
	 * timeout, does not depend on a build next to it
	 */
	argv[argc++] = "nice";
	argv[argc++] = "-n";
	argv[argc++] = "10";
	argv[argc++] = "make";
	argv[argc++] = "-s";
	argv[argc++] = jobs;
	argv[argc++] = odir;
	if (*mc->arch->cross) {
		/* CC= overrides $(CROSS_COMPILE)gcc; ld and friends follow it */
		xsnprintf(arch, sizeof(arch), "ARCH=%s", mc->arch->kernel_arch);
		xsnprintf(cross, sizeof(cross), "CROSS_COMPILE=%s",
			  mc->arch->cross);
		xsnprintf(cc, sizeof(cc), "CC=ccache %sgcc", mc->arch->cross);
		argv[argc++] = arch;
		argv[argc++] = cross;
		argv[argc++] = cc;
	} else {
		argv[argc++] = "CC=ccache gcc";
	}
	argv[argc++] = "HOSTCC=ccache gcc";
	while (*targets && argc < (int)ARRAY_SIZE(argv) - 1)
		argv[argc++] = *targets++;
	argv[argc] = NULL;

	/*
	 * docs/FACTS.md: one build in eleven failed once with no compiler message
	 * and passed on retry. Retry once, only in that case.
	 */
	for (attempt = 0; attempt < 2; attempt++) {
		struct strbuf err = STRBUF_INIT;

		cmd.argv = argv;
		cmd.dir = mc->worktree;
		cmd.env = env;
		cmd.log_path = mc->log;
		cmd.timeout_s = MAKE_TIMEOUT_S;
		if (mc->watch) {
			cmd.tick = make_tick;
			cmd.tick_data = mc;
		}
		cpu = cpu_lock_take(1, "the build");
		code = run_tree_command(mc, &cmd);
		cpu_lock_drop(cpu);
		progress_status_end();
		if (!code) {
			free(basedir);
			return 0;
		}
		first_error_line(mc->log, &err);
		if (err.len || cmd.timed_out || attempt) {
			error("kernel build failed at '%s' (exit %d)%s%s: see "
			      "%s", what, code, err.len ? ": " : "", err.buf,
			      mc->log);
			strbuf_release(&err);
			free(basedir);
			return -1;
		}
		strbuf_release(&err);
		log_warnx("'%s' failed with no compiler message; retrying once",
			  what);
	}
	free(basedir);
	return -1;
}

/*
 * mmci_bench.ko (runner/mmci-bench) times vmap, vmalloc, ioremap and
 * memremap_pages inside the guest; it is built against this kernel right
 * after it, into <artifacts>/mmci-bench/. A failure is a warning, not a
 * failed build: the kernel under test is fine, and the guest then reports
 * the vmap and memremap workloads as unavailable.
 */
static void build_bench_module(const struct mmci_config *cfg,
			       struct make_ctx *mc, const char *artifacts)
{
	static const char *const files[] = { "mmci_bench.c", "Kbuild" };
	char *dir = xstrfmt("%s/mmci-bench", artifacts);
	char *m = xstrfmt("M=%s", dir);
	const char *t[] = { m, "modules", NULL };
	size_t i;
	int bad = remove_tree(dir) < 0 || mkdir_p(dir, 0755) < 0;

	for (i = 0; !bad && i < ARRAY_SIZE(files); i++) {
		char *src = xstrfmt("%s/runner/mmci-bench/%s",
				    cfg->project_dir, files[i]);
		char *dst = xstrfmt("%s/%s", dir, files[i]);

		bad = copy_file(src, dst) < 0;
		free(src);
		free(dst);
	}
	if (bad || run_make(mc, "make M=mmci-bench modules", t) < 0)
		log_warnx("mmci_bench.ko not built: the vmap and memremap "
			  "workloads will be unavailable (see %s)", mc->log);
	free(dir);
	free(m);
}

/*
 * The config step: tinyconfig, then kvm_guest.config, the fragment and
 * the arch's fragments (arch.h) merged in that order, then olddefconfig;
 * every option asked for is checked in the result.
 */
static int configure(struct make_ctx *mc, const char *fragment,
		     const char *project_dir)
{
	const char *tiny[] = { "tinyconfig", NULL };
	const char *olddef[] = { "olddefconfig", NULL };
	char *dotconfig = xstrfmt("%s/.config", mc->objdir);
	char *kvm = xstrfmt("%s/kernel/configs/kvm_guest.config", mc->worktree);
	char *script = xstrfmt("%s/scripts/kconfig/merge_config.sh",
			       mc->worktree);
	/*
	 * The fragment may live where the sandbox does not look (/tmp is
	 * private there): merge_config.sh reads a copy in the object dir.
	 */
	char *frag_copy = xstrfmt("%s/mmci-fragment.config", mc->objdir);
	char *arch_copy[ARRAY_SIZE(mc->arch->fragments)] = { NULL };
	const char *merge[16] = { "sh", script, "-m", "-O", mc->objdir,
				  dotconfig, kvm, frag_copy };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf missing = STRBUF_INIT, frags = STRBUF_INIT;
	char *skip = arch_skip_options(mc->arch, project_dir), *src;
	size_t i, n = 8;
	int ret = -1, bad;

	if (copy_file(fragment, frag_copy) < 0 ||
	    strbuf_read_file(&frags, fragment, 0) < 0)
		goto out;
	for (i = 0; (src = arch_fragment(mc->arch, i, project_dir)); i++) {
		arch_copy[i] = xstrfmt("%s/mmci-%s", mc->objdir,
				       mc->arch->fragments[i]);
		strbuf_addch(&frags, '\n');
		bad = copy_file(src, arch_copy[i]) < 0 ||
		      strbuf_read_file(&frags, src, 0) < 0;
		free(src);
		if (bad)
			goto out;
		merge[n++] = arch_copy[i];
	}
	if (run_make(mc, "make tinyconfig", tiny) < 0)
		goto out;
	/* its mktemp files go to the current directory: not the worktree */
	cmd.argv = merge;
	cmd.dir = mc->objdir;
	cmd.log_path = mc->log;
	cmd.timeout_s = MAKE_TIMEOUT_S;
	if (run_tree_command(mc, &cmd)) {
		error("merge_config.sh failed for '%s': see %s", fragment,
		      mc->log);
		goto out;
	}
	if (run_make(mc, "make olddefconfig", olddef) < 0)
		goto out;
	bad = check_fragment(frags.buf, skip, dotconfig, &missing);
	if (bad < 0)
		goto out;
	if (bad) {
		error("%d option(s) of '%s'%s%s did not survive olddefconfig "
		      "(unmet dependencies?):%s", bad, fragment,
		      mc->arch->fragments[0] ? " and the fragments of arch " :
		      "", mc->arch->fragments[0] ? mc->arch->name : "",
		      missing.buf);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < ARRAY_SIZE(arch_copy); i++)
		free(arch_copy[i]);
	free(skip);
	strbuf_release(&frags);
	strbuf_release(&missing);
	free(dotconfig);
	free(kvm);
	free(script);
	free(frag_copy);
	return ret;
}

static int read_release(const char *objdir, char **release)
{
	char *path = xstrfmt("%s/include/config/kernel.release", objdir);
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		error_errno("cannot read '%s'", path);
		free(path);
		strbuf_release(&sb);
		return -1;
	}
	free(path);
	strbuf_trim(&sb);
	*release = strbuf_detach(&sb, NULL);
	return 0;
}

char *build_image_path(const char *artifacts)
{
	char *p = xstrfmt("%s/Image", artifacts);

	if (file_exists(p))
		return p;
	free(p);
	return xstrfmt("%s/bzImage", artifacts);
}

static void fill_paths(struct build_result *res, const char *artifacts)
{
	res->artifacts = xstrdup(artifacts);
	res->bzimage = build_image_path(artifacts);
	res->modroot = xstrfmt("%s/modroot", artifacts);
}

static int lookup_cached(struct db *db, const char *key, const char *tree,
			 struct build_result *res)
{
	/* the row of this very tree first (kbuild_own_row()) */
	sqlite3_stmt *st = db_query(db,
		"SELECT id, artifacts, kernel_release, hz, duration_s "
		"FROM builds WHERE cache_key = ? AND status = 'ok' "
		"ORDER BY tree_oid = ? DESC, id DESC LIMIT 1", "tt", key, tree);
	int found, rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	found = rc < 0 ? -1 : 0;
	if (rc == DB_ROW) {
		char *bz = build_image_path(db_col_text(st, 1));

		if (file_exists(bz)) {
			res->id = sqlite3_column_int64(st, 0);
			fill_paths(res, db_col_text(st, 1));
			res->release = xstrdup(db_col_text(st, 2));
			res->hz = sqlite3_column_int(st, 3);
			res->cached = 1;
			found = 1;
		}
		free(bz);
	}
	sqlite3_finalize(st);
	return found;
}

/*
 * The stamp of a finished build: <artifacts>/mmci-build.txt, written last
 * (temp file + rename) when a build succeeded (key, release, HZ and the
 * .config's hash), removed before a build of
 * the key starts. The artifacts directory is named by the cache key, so it
 * is the cache; a database's builds table only indexes it. A database that
 * shares the data directory with another (a second database on one host,
 * one restored from a backup, each test file of the suite) takes a stamped
 * build as its own instead of building it again (build_adopt()).
 */
#define BUILD_STAMP "mmci-build.txt"

static int stamp_write(const char *artifacts, const char *key,
		       const char *release, int hz, const char *dot_hash)
{
	char *path = xstrfmt("%s/" BUILD_STAMP, artifacts);
	char *body = xstrfmt("key %s\nrelease %s\nhz %d\ndotconfig %s\n",
			     key, release, hz, dot_hash);
	int ret = write_file(path, body, strlen(body));

	free(path);
	free(body);
	return ret;
}

struct build_stamp {
	char key[41], dotconfig[41];
	char *release;
	int hz;
};

/* 1 with *st filled, 0 when there is no stamp or it cannot be used */
static int stamp_read(const char *artifacts, struct build_stamp *st)
{
	char *path = xstrfmt("%s/" BUILD_STAMP, artifacts);
	struct strbuf sb = STRBUF_INIT;
	char release[256];
	int n = 0;

	memset(st, 0, sizeof(*st));
	if (file_exists(path) && strbuf_read_file(&sb, path, 0) >= 0)
		n = sscanf(sb.buf, "key %40[0-9a-f]\nrelease %255s\nhz %d\n"
			   "dotconfig %40[0-9a-f]\n", st->key, release,
			   &st->hz, st->dotconfig);
	free(path);
	strbuf_release(&sb);
	if (n != 4 || strlen(st->key) != 40 || strlen(st->dotconfig) != 40)
		return 0;
	st->release = xstrdup(release);
	return 1;
}

/* the data directory's build lock (flock), waiting for it; -1 on error */
static int build_lock(const char *kbuild_dir)
{
	char *path = xstrfmt("%s/build.lock", kbuild_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_errno("cannot open '%s'", path);
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		progress("waiting for another build to finish (%s)", path);
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				error_errno("cannot lock '%s'", path);
				close(fd);
				free(path);
				return -1;
			}
		}
	}
	free(path);
	return fd;
}

/* what one build_kernel() call works with, from key to recorded row */
struct kbuild {
	const struct arch *arch;
	const struct mmci_config *cfg;
	struct db *db;
	struct build_result *res;
	char *fragment;		/* absolute */
	char frag_hash[41], key[41], commit_hex[41], tree_hex[41];
	/* frag_hash, or with another arch that of it and the arch's ones */
	char frag_key[41];
	char config_key[41];	/* the config step's inputs; "" unknown */
	char *cc, *cache, *kb, *artifacts, *objdir, *log, *worktree;
	char *dotconfig;
	/* ccache's settings and its cache's place: the same inside */
	const char *keep_env[4], *rw[4], *ro[2];
	struct sandbox box;
	struct make_ctx mc;
	int cold, lock_fd;
	double t0;
};

static void kbuild_release(struct kbuild *k)
{
	free(k->fragment);
	free(k->cc);
	free(k->cache);
	free(k->kb);
	free(k->artifacts);
	free(k->objdir);
	free(k->log);
	free(k->worktree);
	free(k->dotconfig);
	if (k->lock_fd >= 0)
		close(k->lock_fd);
}

/*
 * The arch's own fragments, hashed with the user's into frag_key; for
 * x86_64, which has none, frag_key is frag_hash: its keys stay those
 * of before arches. 0, or -1 after error().
 */
static int kbuild_frag_key(struct kbuild *k)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	char *p;

	memcpy(k->frag_key, k->frag_hash, sizeof(k->frag_key));
	if (!k->arch->fragments[0])
		return 0;
	strbuf_addf(&sb, "fragment %s\narch %s\n", k->frag_hash,
		    k->arch->name);
	for (i = 0; (p = arch_fragment(k->arch, i, k->cfg->project_dir));
	     i++) {
		char h[41];
		int bad = hash_file_hex(p, h) < 0;

		free(p);
		if (bad) {
			strbuf_release(&sb);
			return -1;
		}
		strbuf_addf(&sb, "%s %s\n", k->arch->fragments[i], h);
	}
	hash_hex(sb.buf, sb.len, k->frag_key);
	strbuf_release(&sb);
	return 0;
}

/*
 * The top Kconfig sources Documentation/Kconfig; no target mmci makes
 * reads another file of Documentation/. Each root entry is a line, "mode
 * name id", and Documentation "mode Documentation/Kconfig id" (or no
 * line), so mm-new's nightly documentation commits take their parent's
 * kernel, and with it its runs (run_find_reusable()).
 */
int build_source_hash(git_repository *repo, const git_oid *tree_oid,
		      char out[41])
{
	struct strbuf sb = STRBUF_INIT;
	git_tree *tree = NULL;
	size_t i, n;

	if (git_tree_lookup(&tree, repo, tree_oid) < 0)
		return error("cannot read tree %.12s: %s",
			     git_oid_tostr_s(tree_oid), git_errmsg());
	strbuf_addstr(&sb, "mmci kernel source 1\n");
	n = git_tree_entrycount(tree);
	for (i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(e);
		git_tree_entry *kc = NULL;

		if (strcmp(name, "Documentation") ||
		    git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			strbuf_addf(&sb, "%06o %s %s\n",
				    (unsigned)git_tree_entry_filemode(e), name,
				    git_oid_tostr_s(git_tree_entry_id(e)));
			continue;
		}
		if (!git_tree_entry_bypath(&kc, tree, "Documentation/Kconfig")) {
			strbuf_addf(&sb, "%06o Documentation/Kconfig %s\n",
				    (unsigned)git_tree_entry_filemode(kc),
				    git_oid_tostr_s(git_tree_entry_id(kc)));
			git_tree_entry_free(kc);
		}
	}
	git_tree_free(tree);
	hash_hex(sb.buf, sb.len, out);
	strbuf_release(&sb);
	return 0;
}

/*
 * The cache key of the build: the source (build_source_hash()), the
 * fragment, the base recipe, the compiler and the bench module's
 * sources; for an arch other than x86_64 also its name and fragments.
 * 0, or -1 after error().
 */
static int kbuild_key(struct kbuild *k, git_repository *repo,
		      const git_oid *commit, const char *fragment_arg)
{
	struct strbuf keysrc = STRBUF_INIT;
	char bench_hash[41], src_hash[41];
	git_oid tree_oid;

	if (!k->fragment)
		return error_errno("cannot read the config fragment '%s'",
				   fragment_arg);
	git_oid_tostr(k->commit_hex, sizeof(k->commit_hex), commit);
	if (tree_of_commit(repo, commit, &tree_oid) < 0 ||
	    hash_file_hex(k->fragment, k->frag_hash) < 0 ||
	    kbuild_frag_key(k) < 0)
		return -1;
	git_oid_tostr(k->tree_hex, sizeof(k->tree_hex), &tree_oid);
	if (build_source_hash(repo, &tree_oid, src_hash) < 0)
		return -1;
	k->cc = build_compiler_version(k->arch->cross);
	if (!k->cc)
		return -1;
	bench_source_hash(k->cfg, bench_hash);
	strbuf_addf(&keysrc, "source %s\nfragment %s\nbase %s\ncc %s\n"
		    "bench %s\n", src_hash, k->frag_hash, BASE_RECIPE,
		    k->cc, bench_hash);
	if (strcmp(k->arch->name, ARCH_DEFAULT))
		strbuf_addf(&keysrc, "arch %s %s\n", k->arch->name,
			    k->frag_key);
	hash_hex(keysrc.buf, keysrc.len, k->key);
	strbuf_release(&keysrc);
	return 0;
}

int build_store_imported(struct db *db, const struct build_import *bi,
			 long long *build_id)
{
	if (!bi->cache_key || strncmp(bi->cache_key, "bundle:", 7))
		return error("an imported build's key must begin 'bundle:'");
	if (!is_commit_hex(bi->commit))
		return error("an imported build names no full commit id");
	if (!bi->arch || !arch_find(bi->arch))
		return error("an imported build's arch '%.32s' is unknown",
			     bi->arch ? bi->arch : "");
	if (bi->hz < 0 || bi->hz > 10000 || bi->upto < 0 ||
	    (bi->upto && !bi->series_id) || !bi->fragment)
		return error("an imported build has a bad HZ, series step or "
			     "no config fragment");
	if (db_run(db, "INSERT INTO builds (cache_key, tree_path, commit_id, "
		   "tree_oid, series_id, upto, config_fragment, config_hash, "
		   "dotconfig_hash, compiler, kernel_release, hz, status, "
		   "started_at, arch) VALUES (?, '(bundle)', ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, 'ok', ?, ?)", "tttIitttttidt", bi->cache_key,
		   bi->commit, bi->tree_oid, bi->series_id,
		   (long long)bi->upto, bi->fragment, bi->fragment_sha1,
		   bi->dotconfig_sha1, bi->compiler, bi->release,
		   (long long)bi->hz, (double)time(NULL), bi->arch) < 0)
		return -1;
	*build_id = db_last_id(db);
	return 0;
}

/* the build's row, 'building', its id in res->id; 0 or -1 */
static int kbuild_insert_row(struct kbuild *k, long long series_id,
			     int upto, const char *artifacts, const char *log)
{
	if (db_run(k->db, "INSERT INTO builds (cache_key, tree_path, "
		   "commit_id, tree_oid, series_id, upto, config_fragment, "
		   "config_hash, compiler, status, artifacts, log_path, "
		   "started_at, arch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "'building', ?, ?, ?, ?)", "ttttIitttttdt", k->key,
		   k->cfg->tree_dir, k->commit_hex, k->tree_hex, series_id,
		   (long long)upto, k->fragment, k->frag_hash, k->cc,
		   artifacts, log, (double)time(NULL), k->arch->name) < 0)
		return -1;
	k->res->id = db_last_id(k->db);
	return 0;
}

/*
 * A build of the key that another database made in this data directory:
 * its stamp names the key, its image and modules are there and its
 * .config is the one it recorded. The row is this database's own, marked
 * as taken (duration 0, no object count) with the log of the build that
 * made it. 1 when taken (res is set), 0 when it is to be built, -1.
 */
static int build_adopt(struct kbuild *k, long long series_id, int upto)
{
	const char *artifacts = k->artifacts;
	char *cfg = xstrfmt("%s/config", artifacts);
	char *image = build_image_path(artifacts);
	char *modroot = xstrfmt("%s/modroot", artifacts);
	struct build_stamp st;
	char now[41];
	int ret = 0;

	if (!stamp_read(artifacts, &st))
		goto out;
	if (strcmp(st.key, k->key) || !file_exists(image) ||
	    !dir_exists(modroot) || hash_file_hex(cfg, now) < 0 ||
	    strcmp(now, st.dotconfig)) {
		log_warnx("the stamp in '%s' does not match what is there: "
			  "building again", artifacts);
		goto out;
	}
	ret = -1;
	if (kbuild_insert_row(k, series_id, upto, artifacts, k->log) < 0 ||
	    db_run(k->db, "UPDATE builds SET status = 'ok', kernel_release = "
		   "?, hz = ?, dotconfig_hash = ?, duration_s = 0 WHERE id = ?",
		   "titi", st.release, (long long)st.hz, st.dotconfig,
		   k->res->id) < 0)
		goto out;
	fill_paths(k->res, artifacts);
	k->res->release = st.release;
	st.release = NULL;
	k->res->hz = st.hz;
	k->res->cached = 1;
	/* the two config files travel in the run's bundle (bundle.h) */
	if (build_text_store_file(k->db, st.dotconfig, cfg) < 0 ||
	    build_text_store_file(k->db, k->frag_hash, k->fragment) < 0)
		warning("build #%lld: its config files are not kept for its "
			"bundles", k->res->id);
	ret = 1;
out:
	free(st.release);
	free(cfg);
	free(image);
	free(modroot);
	return ret;
}

/*
 * A cached build of the key whose tree is not this commit's: the two
 * differ in Documentation/ only (build_source_hash()). The commit gets a
 * row of its own (its commit, tree, series step), taken like an adopted
 * one (duration 0) and sharing the kernel, so that what names a step's
 * or a head's commit still finds it; runs of either row are reused for
 * the other (run_find_reusable() matches cache keys). A build of the
 * same tree keeps its one row, as before. 0, or -1 after error().
 */
static int kbuild_own_row(struct kbuild *k, long long series_id, int upto)
{
	long long from = k->res->id;
	int other;

	other = (int)db_int(k->db, -1, "SELECT tree_oid <> ? FROM builds "
			    "WHERE id = ?", "ti", k->tree_hex, from);
	if (other < 0)
		return error("build #%lld: its row is gone", from);
	if (!other)
		return 0;
	if (db_run(k->db, "INSERT INTO builds (cache_key, tree_path, "
		   "commit_id, tree_oid, series_id, upto, config_fragment, "
		   "config_hash, dotconfig_hash, compiler, kernel_release, hz, "
		   "status, artifacts, log_path, started_at, duration_s, arch) "
		   "SELECT cache_key, ?, ?, ?, ?, ?, ?, config_hash, "
		   "dotconfig_hash, compiler, kernel_release, hz, 'ok', "
		   "artifacts, log_path, ?, 0, arch FROM builds WHERE id = ?",
		   "tttIitdi", k->cfg->tree_dir, k->commit_hex, k->tree_hex,
		   series_id, (long long)upto, k->fragment, (double)time(NULL),
		   from) < 0)
		return -1;
	k->res->id = db_last_id(k->db);
	progress("kernel %.12s: only Documentation/ differs from build #%lld's "
		 "commit: its kernel, recorded as build #%lld", k->commit_hex,
		 from, k->res->id);
	return 0;
}

/*
 * The build's directories and its 'building' row, under the build lock.
 * 1 when a build of the key is cached (before or meanwhile: res is set),
 * 0 when it is to be made, -1 after error().
 */
static int kbuild_begin(struct kbuild *k, long long series_id, int upto)
{
	int found = lookup_cached(k->db, k->key, k->tree_hex, k->res), bad;
	char *stamp;

	if (found > 0 && kbuild_own_row(k, series_id, upto) < 0)
		return -1;
	if (found)
		return found;
	/*
	 * One build at a time per data directory: the worktree and the
	 * object directory are shared, and a daemon job may build while
	 * someone runs mmci by hand. The lock dies with its process.
	 */
	k->kb = data_path(k->cfg, "kbuild");
	k->lock_fd = build_lock(k->kb);
	if (k->lock_fd < 0)
		return -1;
	found = lookup_cached(k->db, k->key, k->tree_hex, k->res);
	if (found > 0 && kbuild_own_row(k, series_id, upto) < 0)
		return -1;
	if (found)
		return found < 0 ? -1 : 2;
	k->cache = data_path(k->cfg, "cache");
	k->artifacts = xstrfmt("%s/%s", k->cache, k->key);
	k->log = xstrfmt("%s/build.log", k->artifacts);
	found = build_adopt(k, series_id, upto);
	if (found)
		return found < 0 ? -1 : 3;
	/* one per fragment and arch: an x86_64 one keeps its old name */
	if (strcmp(k->arch->name, ARCH_DEFAULT))
		k->objdir = xstrfmt("%s/%.12s-%s", k->kb, k->frag_hash,
				    k->arch->name);
	else
		k->objdir = xstrfmt("%s/%.12s", k->kb, k->frag_hash);
	if (mkdir_p(k->artifacts, 0755) < 0 || mkdir_p(k->objdir, 0755) < 0)
		return -1;
	/* a build that stops half-way leaves no stamp for another to take */
	stamp = xstrfmt("%s/" BUILD_STAMP, k->artifacts);
	bad = unlink(stamp) < 0 && errno != ENOENT;
	if (bad)
		error_errno("cannot remove '%s'", stamp);
	free(stamp);
	if (bad)
		return -1;
	unlink(k->log);
	return kbuild_insert_row(k, series_id, upto, k->artifacts, k->log);
}

/*
 * What of the tree the config step reads, as text for its key: every
 * Kconfig* file (path and blob id), and whole the trees whose files
 * Kconfig's macros and the recipe run or merge (scripts/: cc-option and
 * friends; kernel/configs/, arch/x86/configs/: tinyconfig and
 * kvm_guest.config) and the top Makefile (the version in the header).
 * A patch to a .c file of mm/ leaves it unchanged, so base and series share it.
 */
struct kconfig_walk {
	struct strbuf *out;
};

static int kconfig_entry(const char *root, const git_tree_entry *e,
			 void *payload)
{
	struct kconfig_walk *w = payload;
	const char *name = git_tree_entry_name(e);
	char hex[GIT_OID_HEXSZ + 1];
	git_object_t type = git_tree_entry_type(e);
	int whole = 0;

	git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
	if (type == GIT_OBJECT_TREE) {
		whole = (!*root && !strcmp(name, "scripts")) ||
			(!strcmp(root, "kernel/") && !strcmp(name, "configs")) ||
			(!strcmp(root, "arch/x86/") &&
			 !strcmp(name, "configs"));
		if (!whole)
			return 0;
		strbuf_addf(w->out, "%s%s/ %s\n", root, name, hex);
		return 1;	/* its id says it all: skip its entries */
	}
	if (starts_with(name, "Kconfig") || (!*root && !strcmp(name, "Makefile")))
		strbuf_addf(w->out, "%s%s %s\n", root, name, hex);
	return 0;
}

int build_kconfig_inputs(git_repository *repo, const git_oid *commit,
			 struct strbuf *out)
{
	struct kconfig_walk w = { out };
	git_oid tree_oid;
	git_tree *tree = NULL;
	int rc;

	if (tree_of_commit(repo, commit, &tree_oid) < 0)
		return -1;
	if (git_tree_lookup(&tree, repo, &tree_oid) < 0)
		return error("cannot read tree %.12s: %s",
			     git_oid_tostr_s(&tree_oid), git_errmsg());
	rc = git_tree_walk(tree, GIT_TREEWALK_PRE, kconfig_entry, &w);
	git_tree_free(tree);
	if (rc < 0)
		return error("cannot walk tree %.12s: %s",
			     git_oid_tostr_s(&tree_oid), git_errmsg());
	return 0;
}

void build_config_key(const struct config_key_inputs *in, char out[41])
{
	struct strbuf sb = STRBUF_INIT;

	/* one field a line, each named: no two inputs give one text */
	strbuf_addf(&sb, "mmci config step 1\nrecipe %s\nfragment %s\n"
		    "arch %s\ncc %s\nkconfig %s\n", in->recipe,
		    in->fragment_sha1, in->arch, in->cc, in->kconfig_sha1);
	hash_hex(sb.buf, sb.len, out);
	strbuf_release(&sb);
}

/* the key of the config step, or "" when it cannot be told (no cache) */
static void kbuild_config_key(struct kbuild *k, git_repository *repo,
			      const git_oid *commit)
{
	struct strbuf kc = STRBUF_INIT;
	struct config_key_inputs in = { 0 };
	char kc_hash[41];

	k->config_key[0] = '\0';
	if (build_kconfig_inputs(repo, commit, &kc) < 0) {
		log_warnx("the config step is not cached: its inputs cannot be "
			  "read (%s)", last_error());
		strbuf_release(&kc);
		return;
	}
	hash_hex(kc.buf, kc.len, kc_hash);
	in.recipe = BASE_RECIPE;
	in.fragment_sha1 = k->frag_key;
	in.arch = k->arch->name;
	in.cc = k->cc;
	in.kconfig_sha1 = kc_hash;
	build_config_key(&in, k->config_key);
	strbuf_release(&kc);
}

/* the checkout and the sandbox around the tree's commands; 0 or -1 */
static int kbuild_prepare(struct kbuild *k, git_repository *repo,
			  const git_oid *commit)
{
	struct make_ctx *mc = &k->mc;
	char *line, *vmlinux;
	int bad;

	progress("build #%lld: checking out %.12s", k->res->id,
		 k->commit_hex);
	if (tree_checkout(k->cfg, repo, commit, &k->worktree) < 0)
		return -1;
	k->box.kind = k->cfg->build_sandbox;
	k->box.rw = k->rw;
	k->box.ro = k->ro;
	k->box.keep_env = k->keep_env;
	k->keep_env[0] = "CCACHE_*";
	k->keep_env[1] = "XDG_CACHE_HOME";
	k->keep_env[2] = "XDG_CONFIG_HOME";
	k->rw[0] = k->objdir;
	k->rw[1] = k->artifacts;
	k->ro[0] = k->worktree;
	if (k->box.kind != SANDBOX_NONE) {
		k->rw[2] = ccache_dir();
		if (!k->rw[2] || sandbox_check(&k->box) < 0)
			return -1;
	}
	mc->arch = k->arch;
	mc->worktree = k->worktree;
	mc->objdir = k->objdir;
	mc->log = k->log;
	mc->box = &k->box;
	line = xstrfmt("mmci: build #%lld of %s, sandbox: %s\n", k->res->id,
		       k->commit_hex, sandbox_describe(&k->box));
	bad = write_file(k->log, line, strlen(line)) < 0;
	free(line);
	if (bad)
		return -1;
	/* cold: nothing of an earlier build in the object directory */
	vmlinux = xstrfmt("%s/vmlinux", k->objdir);
	k->cold = !file_exists(vmlinux);
	free(vmlinux);
	kbuild_config_key(k, repo, commit);
	return 0;
}

/* a line at the end of the build log; 0 or -1 after error() */
static int append_line(const char *path, const char *line)
{
	FILE *f = fopen(path, "a");

	if (!f)
		return error_errno("cannot open '%s'", path);
	if (fputs(line, f) == EOF) {
		fclose(f);
		return error_errno("cannot write to '%s'", path);
	}
	if (fclose(f))
		return error_errno("cannot write to '%s'", path);
	return 0;
}

/*
 * The config step, or its cached output: the .config it made from the
 * same inputs (build_config_key()) is copied into the object directory
 * and the step is skipped; its 25-60 s are one build's, not every one's.
 * 0 or -1.
 */
static int kbuild_configure(struct kbuild *k)
{
	struct make_ctx *mc = &k->mc;
	char *dir = data_path(k->cfg, "cache/config");
	char *cached = NULL, *dotconfig = xstrfmt("%s/.config", k->objdir);
	char *line, *tmp = NULL;
	int ret = -1;

	if (k->config_key[0]) {
		cached = xstrfmt("%s/%s.config", dir, k->config_key);
		if (file_exists(cached)) {
			if (copy_file(cached, dotconfig) < 0)
				goto out;
			line = xstrfmt("mmci: config step cached: %s (key %s), "
				       "not run\n", cached, k->config_key);
			ret = append_line(k->log, line);
			free(line);
			progress("build #%lld: config step cached (key %.12s)",
				 k->res->id, k->config_key);
			goto out;
		}
	}
	progress("build #%lld: configuring (%s)", k->res->id, k->fragment);
	if (configure(mc, k->fragment, k->cfg->project_dir) < 0)
		goto out;
	ret = 0;
	if (!cached)
		goto out;
	/* into the cache under another name first: a reader sees all or none */
	tmp = xstrfmt("%s.%d.tmp", cached, (int)getpid());
	if (mkdir_p(dir, 0755) < 0 || copy_file(dotconfig, tmp) < 0 ||
	    rename(tmp, cached) < 0) {
		log_warnx("the config step's output is not cached in '%s'",
			  dir);
		unlink(tmp);
		goto out;
	}
	line = xstrfmt("mmci: config step cached as %s (key %s)\n", cached,
		       k->config_key);
	if (append_line(k->log, line) < 0)
		log_warnx("the build log '%s' does not say so", k->log);
	free(line);
out:
	free(dir);
	free(cached);
	free(dotconfig);
	free(tmp);
	return ret;
}

/* configure, make, install the modules, keep the artifacts; 0 or -1 */
static int kbuild_make(struct kbuild *k)
{
	struct make_ctx *mc = &k->mc;
	const char *t[] = { k->arch->image_target, "modules", NULL };
	char *modroot, *mp, *bz, *bzdst, *cfgdst;
	int bad;

	if (kbuild_configure(k) < 0)
		return -1;
	mc->build_id = k->res->id;
	mc->expect = db_int(k->db, 0, "SELECT objects FROM builds WHERE "
			    "config_hash = ? AND compiler = ? AND cold = ? AND "
			    "status = 'ok' AND objects > 0 ORDER BY id DESC "
			    "LIMIT 1", "tti", k->frag_hash, k->cc,
			    (long long)k->cold);
	mc->since = time(NULL);
	mc->t0 = now_s();
	mc->objects = 0;
	progress("build #%lld: make %s%s%s modules (sandbox: %s; log: %s)",
		 k->res->id, *k->arch->cross ? "ARCH=" : "",
		 *k->arch->cross ? k->arch->kernel_arch : "",
		 *k->arch->cross ? " Image" : "bzImage",
		 sandbox_describe(&k->box), k->log);
	modroot = xstrfmt("%s/modroot", k->artifacts);
	mp = xstrfmt("INSTALL_MOD_PATH=%s", modroot);
	bz = xstrfmt("%s/%s", k->objdir, k->arch->image_path);
	bzdst = xstrfmt("%s/%s", k->artifacts, k->arch->image_target);
	cfgdst = xstrfmt("%s/config", k->artifacts);
	k->dotconfig = xstrfmt("%s/.config", k->objdir);
	remove_tree(modroot);
	mc->watch = 1;
	bad = run_make(mc, *k->arch->cross ? "make Image modules" :
		       "make bzImage modules", t) < 0;
	mc->watch = 0;
	mc->objects = count_objects(k->objdir, mc->since);
	{
		const char *inst[] = { "modules_install", mp,
				       "INSTALL_MOD_STRIP=1", NULL };

		bad = bad || run_make(mc, "make modules_install", inst) < 0 ||
		      copy_file(bz, bzdst) < 0 ||
		      copy_file(k->dotconfig, cfgdst) < 0;
	}
	free(modroot);
	free(mp);
	free(bz);
	free(bzdst);
	free(cfgdst);
	if (bad || read_release(k->objdir, &k->res->release) < 0)
		return -1;
	build_bench_module(k->cfg, mc, k->artifacts);
	return 0;
}

/* the build row says 'ok', with what was built; 0 or -1 */
static int kbuild_record(struct kbuild *k)
{
	struct build_result *res = k->res;
	char dot_hash[41];

	res->hz = config_hz(k->dotconfig);
	fill_paths(res, k->artifacts);
	res->duration_s = now_s() - k->t0;
	if (hash_file_hex(k->dotconfig, dot_hash) < 0 ||
	    db_run(k->db, "UPDATE builds SET status = 'ok', kernel_release = "
		   "?, hz = ?, dotconfig_hash = ?, duration_s = ?, objects = "
		   "?, cold = ? WHERE id = ?", "titdiii", res->release,
		   (long long)res->hz, dot_hash, res->duration_s,
		   (long long)k->mc.objects, (long long)k->cold, res->id) < 0)
		return -1;
	/* the two config files travel in the run's bundle (bundle.h) */
	if (build_text_store_file(k->db, dot_hash, k->dotconfig) < 0 ||
	    build_text_store_file(k->db, k->frag_hash, k->fragment) < 0)
		warning("build #%lld: its config files are not kept for its "
			"bundles", res->id);
	if (stamp_write(k->artifacts, k->key, res->release, res->hz,
			dot_hash) < 0)
		warning("build #%lld: not stamped: another database on this "
			"data directory will build it again", res->id);
	progress("build #%lld: %s built in %.0f s (%ld objects, %s)",
		 res->id, res->release, res->duration_s, k->mc.objects,
		 k->cold ? "cold" : "incremental");
	return 0;
}

int build_kernel(const struct mmci_config *cfg, struct db *db,
		 git_repository *repo, const git_oid *commit,
		 long long series_id, int upto, const char *fragment_arg,
		 const struct arch *arch, struct build_result *res)
{
	struct kbuild k = {
		.arch = arch ? arch : arch_get(NULL),
		.cfg = cfg, .db = db, .res = res, .lock_fd = -1,
		.box = SANDBOX_INIT, .t0 = now_s(),
		/* absolute: recorded with the build, read from the objdir */
		.fragment = fragment_arg ? realpath(fragment_arg, NULL) :
			    project_path(cfg, "kernel-patches/config/mmci.config"),
	};
	int ret = -1, rc;

	memset(res, 0, sizeof(*res));
	if (kbuild_key(&k, repo, commit, fragment_arg) < 0)
		goto out;
	rc = kbuild_begin(&k, series_id, upto);
	if (rc < 0)
		goto out;
	if (rc) {
		progress("kernel %.12s: %s (build #%lld)", k.commit_hex,
			 rc == 1 ? "cached" : rc == 2 ? "built meanwhile" :
			 "built before in this data directory, taken from "
			 "its cache", res->id);
		ret = 0;
		goto out;
	}
	if (kbuild_prepare(&k, repo, commit) < 0 || kbuild_make(&k) < 0 ||
	    kbuild_record(&k) < 0) {
		if (db_run(db, "UPDATE builds SET status = 'failed', error = "
			   "?, duration_s = ? WHERE id = ?", "tdi",
			   last_error(), now_s() - k.t0, res->id) < 0)
			error("build #%lld: its failure is not recorded, it "
			      "stays 'building'", res->id);
		goto out;
	}
	ret = 0;
out:
	kbuild_release(&k);
	return ret;
}

/* the texts table (migration 17) is the build stage's: one writer */
int build_text_store(struct db *db, const char *sha1, const char *body)
{
	if (!sha1 || !*sha1 || !body)
		return 0;
	return db_run(db, "INSERT OR IGNORE INTO texts (sha1, body) VALUES "
		      "(?, ?)", "tt", sha1, body);
}

int build_text_store_file(struct db *db, const char *sha1, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char now[41];
	int ret;

	if (!sha1 || !*sha1)
		return 0;
	if (db_int(db, 0, "SELECT count(*) FROM texts WHERE sha1 = ?", "t",
		   sha1) > 0)
		return 0;
	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", path);
	}
	hash_hex(sb.buf, sb.len, now);
	if (strcmp(now, sha1)) {
		strbuf_release(&sb);
		return error("'%s' changed since it was used (sha1 %.12s, "
			     "recorded %.12s)", path, now, sha1);
	}
	ret = build_text_store(db, sha1, sb.buf);
	strbuf_release(&sb);
	return ret;
}
