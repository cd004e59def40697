// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - instruction profiles of a run's set-up, stored per function,
 * and their differences (profile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "image.h"
#include "interrupt.h"
#include "priv.h"
#include "profile.h"
#include "run.h"
#include "strbuf.h"
#include "stats.h"
#include "util.h"
#include "vm.h"

/* a profiling boot is slower than a measuring one: QEMU counts blocks */
#define PROFILE_TIMEOUT_FACTOR 4
#define PROFILE_TIMEOUT_MIN_S 600
#define MAX_KINDS 0x7f
/* plugin output and symbol table: bounded, they come from a guest */
#define MAX_COUNTS_BYTES VM_PLUGIN_OUT_MAX
#define MAX_SYMS 2000000

long long profile_of_run(struct db *db, long long run_id)
{
	long long id = 0;
	/*
	 * the run's own profile, or one of a run of the same kernel (a
	 * build of the same cache key and .config, as run_find_reusable()
	 * matches: a commit that changes only Documentation/ has a row of
	 * its own on its parent's kernel, build.c) with the
	 * same set-up and parameters: under icount its boots execute the
	 * same instructions, so a reused, resumed or repeated run is
	 * explained by the same profile as a fresh one
	 */
	int rc = db_int_checked(db, &id, "SELECT max(p.id) FROM profiles p "
				"JOIN runs o ON o.id = p.run_id JOIN runs r ON "
				"r.id = ? LEFT JOIN builds ob ON ob.id = "
				"o.build_id LEFT JOIN builds rb ON rb.id = "
				"r.build_id WHERE p.status = 'ok' AND (o.id = "
				"r.id OR (ob.status = 'ok' AND rb.status = 'ok' "
				"AND ob.cache_key = rb.cache_key AND "
				"ob.dotconfig_hash IS rb.dotconfig_hash AND "
				"o.setup_sha1 IS r.setup_sha1 AND o.params = "
				"r.params AND o.workloads = r.workloads AND "
				"o.arch = r.arch))", "i", run_id);

	return rc < 0 ? -1 : rc ? id : 0;
}

struct sym {
	uint64_t addr;
	char *name;
};

struct kind {
	char *workload, *variant;
	long long windows, insns;
	int seen;
};

struct funcsum {
	char *name;
	long long insns;
};

struct prof {
	struct sym *syms;
	size_t nr_syms, alloc_syms;
	struct kind kinds[MAX_KINDS];
	char *symtext;			/* the ksyms records, joined */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "ffffffff81000000 T _stext" or "ffffffffc0001000 t probe\t[nd_pmem]" */
static int parse_syms(struct prof *p)
{
	char *line = p->symtext, *next;

	for (; line && *line; line = next) {
		char *end, *name, *tab;
		uint64_t addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		errno = 0;
		addr = strtoull(line, &end, 16);
		if (errno || end == line || strlen(end) < 4 || end[0] != ' ' ||
		    end[2] != ' ')
			continue;
		name = end + 3;
		tab = strchr(name, '\t');
		if (tab) {
			*tab = ' ';
			while (*++tab == ' ' || *tab == '\t')
				;
		}
		if (!addr || !*name)
			continue;
		if (p->nr_syms == MAX_SYMS)
			return error("the guest's symbol table has more than %d "
				     "entries", MAX_SYMS);
		if (p->nr_syms == p->alloc_syms) {
			p->alloc_syms = p->alloc_syms ? 2 * p->alloc_syms : 4096;
			p->syms = xrealloc(p->syms,
					   p->alloc_syms * sizeof(*p->syms));
		}
		p->syms[p->nr_syms].addr = addr;
		p->syms[p->nr_syms].name = name;
		p->nr_syms++;
	}
	if (!p->nr_syms)
		return error("the guest printed no symbol table (no "
			     "/proc/kallsyms: a kernel without KALLSYMS?)");
	qsort(p->syms, p->nr_syms, sizeof(*p->syms), cmp_sym);
	return 0;
}

/* the function @addr lies in; a user-space address is "[user]" */
static const char *sym_of(const struct prof *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_syms;

	if (!(addr >> 63))
		return "[user]";
	if (!p->nr_syms || addr < p->syms[0].addr)
		return "[unknown]";
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return p->syms[lo].name;
}

/*
 * The runner's records of a profiling boot: window kinds (info
 * "profile_window", with workload and variant) and the symbol table
 * ("ksyms" records). Every other record is the run's usual output.
 */
static int read_results(struct prof *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT, syms = STRBUF_INIT;
	char *line, *next;
	int ret = 0;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", path);
	}
	for (line = sb.buf; line && *line; line = next) {
		json_t *o, *v;
		const char *type;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		o = json_loads(line, 0, NULL);
		if (!json_is_object(o)) {
			json_decref(o);
			continue;
		}
		type = json_string_value(json_object_get(o, "type"));
		if (type && !strcmp(type, "ksyms")) {
			v = json_object_get(o, "text");
			if (json_is_string(v))
				strbuf_addstr(&syms, json_string_value(v));
		} else if (type && !strcmp(type, "info") &&
			   !strcmp(json_string_value(json_object_get(o, "key")) ?
				   json_string_value(json_object_get(o, "key")) :
				   "", "profile_window")) {
			const char *val = json_string_value(
				json_object_get(o, "value"));
			const char *wl = json_string_value(
				json_object_get(o, "workload"));
			const char *var = json_string_value(
				json_object_get(o, "variant"));
			long k = val ? strtol(val, NULL, 10) : -1;

			if (k >= 0 && k < MAX_KINDS && !p->kinds[k].workload) {
				p->kinds[k].workload = xstrdup(wl ? wl : "");
				p->kinds[k].variant = xstrdup(var ? var : "");
			}
		}
		json_decref(o);
	}
	strbuf_release(&sb);
	p->symtext = strbuf_detach(&syms, NULL);
	return ret;
}

static int cmp_funcsum(const void *a, const void *b)
{
	const struct funcsum *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * The plugin's counts (runner/qemu-profile.c): per window kind, the
 * instructions at each address, summed into functions and stored.
 */
static int store_counts(struct prof *p, struct db *db, long long pid,
			const char *path)
{
	struct funcsum *fs = NULL;
	size_t nr = 0, alloc = 0, i;
	struct strbuf sb = STRBUF_INIT;
	char *line, *next;
	int ret = -1, kinds = 0;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("the plugin wrote no counts ('%s')", path);
	}
	if (sb.len > MAX_COUNTS_BYTES || !starts_with(sb.buf, "mmci-profile 1 ")) {
		error("'%s' is not the plugin's output", path);
		goto out;
	}
	for (line = sb.buf; line && *line; line = next) {
		unsigned long long addr, count, a, b;
		int k;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "window %d %llu %llu", &k, &a, &b) == 3) {
			if (k < 0 || k >= MAX_KINDS)
				continue;
			p->kinds[k].windows = a;
			p->kinds[k].insns = b;
			p->kinds[k].seen = 1;
			continue;
		}
		if (sscanf(line, "%d %llx %llu", &k, &addr, &count) != 3 ||
		    k < 0 || k >= MAX_KINDS || !p->kinds[k].seen)
			continue;
		/* one list for all kinds: the kind goes first in the key */
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			fs = xrealloc(fs, alloc * sizeof(*fs));
		}
		fs[nr].name = xstrfmt("%03d %s", k, sym_of(p, addr));
		fs[nr].insns = count;
		nr++;
	}
	if (nr)
		qsort(fs, nr, sizeof(*fs), cmp_funcsum);
	for (i = 0; i < MAX_KINDS; i++) {
		if (!p->kinds[i].seen)
			continue;
		if (!p->kinds[i].workload) {
			error("the plugin counted window kind %zu, which the "
			      "runner never named (a runner older than "
			      "mmci.profile?)", i);
			goto out;
		}
		if (db_run(db, "INSERT INTO profile_windows (profile_id, "
			   "workload, variant, windows, insns) VALUES (?, ?, ?, "
			   "?, ?)", "ittii", pid, p->kinds[i].workload,
			   p->kinds[i].variant, p->kinds[i].windows,
			   p->kinds[i].insns) < 0)
			goto out;
		kinds++;
	}
	for (i = 0; i < nr;) {
		size_t j = i;
		long long sum = 0;
		int k = atoi(fs[i].name);

		while (j < nr && !strcmp(fs[j].name, fs[i].name))
			sum += fs[j++].insns;
		if (db_run(db, "INSERT INTO profile_funcs (profile_id, "
			   "workload, variant, func, insns) VALUES (?, ?, ?, ?, "
			   "?)", "ittti", pid, p->kinds[k].workload,
			   p->kinds[k].variant, fs[i].name + 4, sum) < 0)
			goto out;
		i = j;
	}
	if (!kinds) {
		error("the runner opened no window (no timed write in this "
		      "run's workloads?)");
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < nr; i++)
		free(fs[i].name);
	free(fs);
	strbuf_release(&sb);
	return ret;
}

static void prof_release(struct prof *p)
{
	int i;

	for (i = 0; i < MAX_KINDS; i++) {
		free(p->kinds[i].workload);
		free(p->kinds[i].variant);
	}
	free(p->syms);
	free(p->symtext);
}

int profile_store(struct db *db, long long pid, const char *results,
		  const char *counts, double duration_s)
{
	struct prof p;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	if (read_results(&p, results) < 0 || parse_syms(&p) < 0 ||
	    db_begin(db) < 0)
		goto out;
	if (store_counts(&p, db, pid, counts) < 0 ||
	    db_run(db, "UPDATE profiles SET status = 'ok', symbols = ?, "
		   "duration_s = ? WHERE id = ?", "idi", (long long)p.nr_syms,
		   duration_s, pid) < 0 ||
	    db_commit(db) < 0) {
		db_rollback(db);
		goto out;
	}
	ret = 0;
out:
	prof_release(&p);
	return ret;
}

long long profile_run(const struct mmci_config *cfg, struct db *db,
		      long long run_id)
{
	struct run_row r;
	struct vm_spec spec;
	struct vm_result vres;
	struct strbuf why = STRBUF_INIT;
	char *dir = NULL, *sub = NULL, *plugin = NULL, *plugin_arg = NULL;
	char *console = NULL, *results = NULL, *counts = NULL, *name = NULL;
	char *backing = NULL, *cmdline = NULL, *template = NULL;
	char *nvram = NULL, *label = NULL, *initrd = NULL, tag[9];
	long long pid = -1, have;
	double t0 = now_s();
	int ok = 0;

	have = profile_of_run(db, run_id);
	if (have)
		return have;
	if (run_load(db, run_id, &r) < 0)
		return -1;
	memset(&vres, 0, sizeof(vres));
	strbuf_init(&vres.host_log, 0);
	strbuf_init(&vres.host_samples, 0);
	if (db_run(db, "INSERT INTO profiles (run_id, status, method, "
		   "started_at) VALUES (?, 'running', ?, ?)", "itd", run_id,
		   PROFILE_METHOD, (double)time(NULL)) < 0)
		goto out;
	pid = db_last_id(db);

	db_tag(db, tag);
	sub = xstrfmt("runs/%s/%lld", tag, run_id);
	dir = data_path(cfg, sub);
	console = xstrfmt("%s/profile%lld-console.log", dir, pid);
	results = xstrfmt("%s/profile%lld-results.jsonl", dir, pid);
	counts = xstrfmt("%s/profile%lld-counts.txt", dir, pid);
	nvram = xstrfmt("%s/profile%lld-uefi-vars.fd", dir, pid);
	unlink(console);
	unlink(results);
	unlink(counts);
	if (db_run(db, "UPDATE profiles SET console_log = ? WHERE id = ?",
		   "ti", console, pid) < 0)
		goto out;
	if (!r.params_ok) {
		strbuf_addf(&why, "run #%lld has unreadable parameters", run_id);
		goto record;
	}
	if (mkdir_p(dir, 0755) < 0) {
		strbuf_addf(&why, "cannot make '%s'", dir);
		goto record;
	}
	plugin = project_path(cfg, "runner/mmci-profile.so");
	if (access(plugin, R_OK)) {
		strbuf_addf(&why, "no QEMU plugin '%s' (make builds it)",
			    plugin);
		goto record;
	}
	/* QEMU splits -plugin's argument at commas */
	if (strchr(plugin, ',') || strchr(counts, ',')) {
		strbuf_addf(&why, "a path with a comma cannot be given to "
			    "QEMU's -plugin: '%s'", counts);
		goto record;
	}
	if (vm_staged()) {
		strbuf_addstr(&why, "profiles are made on the local libvirt "
			      "only (the plugin writes a file on the host "
			      "that runs QEMU)");
		goto record;
	}
	plugin_arg = xstrfmt("%s,out=%s", plugin, counts);
	cmdline = xstrfmt("%s mmci.profile=1", r.cmdline);
	backing = run_backing_path(cfg, r.backing, run_id, 1000 + (int)pid);
	name = xstrfmt("%s%s-run%lld-profile%lld", VM_NAME_PREFIX, tag, run_id,
		       pid);
	template = project_path(cfg, "vm-images/domain.xml.in");
	memset(&spec, 0, sizeof(spec));
	run_vm_spec(&r, db, &spec);
	if (!spec.arch) {
		strbuf_addf(&why, "run #%lld has an unknown arch", run_id);
		goto record;
	}
	spec.name = name;
	spec.nvram_path = nvram;
	spec.console_log = console;
	spec.results_log = results;
	spec.nvdimm_path = backing;
	spec.template_path = template;
	spec.cmdline = cmdline;
	spec.plugin = plugin_arg;
	spec.plugin_out = counts;
	/*
	 * the runner that marks windows is this mmci's: a new initramfs
	 * when mmci made the run's (same kernel, same modules); a run
	 * booted with the user's own initramfs keeps it, and its runner
	 * must know mmci.profile
	 */
	if (*r.modroot) {
		char sha[41];

		if (image_build(cfg, spec.arch, r.release, r.modroot, &initrd,
				sha) < 0) {
			strbuf_addf(&why, "no initramfs: %s", last_error());
			goto record;
		}
		spec.initrd = initrd;
	}
	/* counts are exact only where every boot runs the same code */
	spec.kvm = 0;
	spec.icount = 1;
	spec.vcpus = 1;
	spec.pin = 0;
	spec.first_line_s = 0;
	spec.timeout_s = r.timeout_s * PROFILE_TIMEOUT_FACTOR;
	if (spec.timeout_s < PROFILE_TIMEOUT_MIN_S)
		spec.timeout_s = PROFILE_TIMEOUT_MIN_S;
	spec.label = label = xstrfmt("run #%lld profile", run_id);
	/* through mmci-priv the parent makes it (priv.h) */
	if (!priv_active() && vm_create_backing(backing, r.nvdimm_mib) < 0) {
		strbuf_addf(&why, "cannot create the NVDIMM backing '%s'",
			    backing);
		goto record;
	}
	progress("run #%lld: profiling boot (TCG, icount, %s plugin)", run_id,
		 PROFILE_METHOD);
	if (vm_run(&spec, &vres) < 0) {
		vm_not_started_why(&vres, &why);
		goto record;
	}
	unlink(backing);
	/* a guest that died: whatever was counted is not the whole boot */
	if (vres.exit_kind != VM_POWEROFF) {
		strbuf_addf(&why, "the profiling guest ended as '%s'%s%s "
			    "before the runner finished: see %s",
			    vm_exit_kind_name(vres.exit_kind),
			    vres.error[0] ? ": " : "", vres.error, console);
		goto record;
	}
	if (profile_store(db, pid, results, counts, now_s() - t0) < 0) {
		strbuf_addf(&why, "%s", last_error());
		goto record;
	}
	ok = 1;
	progress("run #%lld: profile #%lld in %.0f s", run_id, pid,
		 now_s() - t0);
record:
	if (!ok) {
		error("run #%lld: no profile: %s", run_id, why.buf);
		db_run(db, "UPDATE profiles SET status = 'failed', error = ?, "
		       "duration_s = ? WHERE id = ?", "tdi", why.buf,
		       now_s() - t0, pid);
	}
out:
	if (backing)
		unlink(backing);
	vm_result_release(&vres);
	run_row_release(&r);
	strbuf_release(&why);
	free(dir);
	free(sub);
	free(plugin);
	free(plugin_arg);
	free(console);
	free(results);
	free(counts);
	free(name);
	free(backing);
	free(cmdline);
	free(template);
	free(nvram);
	free(label);
	free(initrd);
	return ok ? pid : -1;
}

/* --- differences ------------------------------------------------------ */

static int cmp_change(const void *a, const void *b)
{
	const struct profile_func *x = a, *y = b;
	long long dx = llabs(x->cand - x->base), dy = llabs(y->cand - y->base);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

int profile_diff(struct db *db, long long base_id, long long cand_id,
		 const char *workload, const char *variant,
		 struct profile_diff *d)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->workload = xstrdup(workload);
	d->variant = xstrdup(variant ? variant : "");
	st = db_query(db, "SELECT sum(CASE WHEN profile_id = ?1 THEN windows "
		      "END), sum(CASE WHEN profile_id = ?1 THEN insns END), "
		      "sum(CASE WHEN profile_id = ?2 THEN windows END), "
		      "sum(CASE WHEN profile_id = ?2 THEN insns END) FROM "
		      "profile_windows WHERE profile_id IN (?1, ?2) AND "
		      "workload = ?3 AND (?4 IS NULL OR variant = ?4)", "iitt",
		      base_id, cand_id, workload, variant);
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		d->base_windows = sqlite3_column_int64(st, 0);
		d->base_insns = sqlite3_column_int64(st, 1);
		d->cand_windows = sqlite3_column_int64(st, 2);
		d->cand_insns = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	if (!d->base_windows || !d->cand_windows)
		return 1;
	st = db_query(db, "SELECT func, sum(CASE WHEN profile_id = ?1 THEN "
		      "insns ELSE 0 END), sum(CASE WHEN profile_id = ?2 THEN "
		      "insns ELSE 0 END), count(DISTINCT profile_id), "
		      "max(profile_id = ?1) FROM profile_funcs WHERE "
		      "profile_id IN (?1, ?2) AND workload = ?3 AND (?4 IS "
		      "NULL OR variant = ?4) GROUP BY func", "iitt", base_id,
		      cand_id, workload, variant);
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct profile_func *f;

		if (d->nr == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			d->funcs = xrealloc(d->funcs, alloc * sizeof(*d->funcs));
		}
		f = &d->funcs[d->nr++];
		f->name = xstrdup(db_col_text(st, 0));
		f->base = sqlite3_column_int64(st, 1);
		f->cand = sqlite3_column_int64(st, 2);
		if (sqlite3_column_int(st, 3) == 1) {
			if (sqlite3_column_int(st, 4))
				d->only_base++;
			else
				d->only_cand++;
		}
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	if (d->nr)
		qsort(d->funcs, d->nr, sizeof(*d->funcs), cmp_change);
	return 0;
}

void profile_diff_release(struct profile_diff *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->funcs[i].name);
	free(d->funcs);
	free(d->workload);
	free(d->variant);
	memset(d, 0, sizeof(*d));
}

/* per window: the counts are sums over all windows of each profile */
static double per_window(long long v, long long windows)
{
	return windows ? (double)v / windows : 0;
}

double profile_noise_floor(const struct profile_diff *d)
{
	double f = PROFILE_NOISE_FLOOR * per_window(d->base_insns,
						    d->base_windows);

	return f > 1 ? f : 1;
}

double profile_diff_total(const struct profile_diff *d)
{
	return per_window(d->cand_insns, d->cand_windows) -
	       per_window(d->base_insns, d->base_windows);
}

void profile_add_count(struct strbuf *out, double v, int sign,
		       const char *minus)
{
	char digits[32];
	long long n = llround(fabs(v));
	int len, i;

	len = snprintf(digits, sizeof(digits), "%lld", n);
	if (v < 0)
		strbuf_addstr(out, minus);
	else if (sign)
		strbuf_addch(out, '+');
	for (i = 0; i < len; i++) {
		strbuf_addch(out, digits[i]);
		if ((len - i - 1) % 3 == 0 && i != len - 1)
			strbuf_addch(out, ',');
	}
}

static void add_grouped(struct strbuf *out, double v, int sign)
{
	profile_add_count(out, v, sign, "-");
}

void profile_diff_format(const struct profile_diff *d, int max_lines,
			 double min_share, double metric_ns,
			 struct strbuf *out)
{
	double top, floor, total = profile_diff_total(d);
	int lines = 0, one_sided = 0;
	size_t i;

	if (!d->nr)
		return;
	floor = profile_noise_floor(d);
	top = fabs(per_window(d->funcs[0].cand, d->cand_windows) -
		   per_window(d->funcs[0].base, d->base_windows));
	if (top < floor)
		return;
	for (i = 0; i < d->nr && lines < max_lines; i++) {
		const struct profile_func *f = &d->funcs[i];
		double b = per_window(f->base, d->base_windows);
		double c = per_window(f->cand, d->cand_windows);
		struct strbuf num = STRBUF_INIT;

		if (fabs(c - b) < min_share * top || fabs(c - b) < floor)
			break;
		add_grouped(&num, c - b, 1);
		strbuf_addf(out, "  %14s  ", num.buf);
		strbuf_release(&num);
		/* 2 + 14 + 2 = 18 columns before the name; 80 in all */
		if (!f->base || !f->cand)
			one_sided++;
		if (!f->base)
			strbuf_addf(out, "%.46s (new only)\n", f->name);
		else if (!f->cand)
			strbuf_addf(out, "%.46s (base only)\n", f->name);
		else
			strbuf_addf(out, "%.46s %+.1f %%\n", f->name,
				    100.0 * (c - b) / b);
		lines++;
	}
	if (one_sided && lines < max_lines) {
		strbuf_addstr(out, "  a function in one kernel only was "
			      "inlined in the other, added or removed\n");
		lines++;
	}
	/* under icount an instruction is a ns: the rest is idle time */
	if (metric_ns != 0 && lines < max_lines &&
	    fabs(total - metric_ns) > 0.01 * fabs(metric_ns))
		strbuf_addf(out, "  counts %+.0f ns a write, timed writes "
			    "%+.0f ns: %.1f %% apart\n", total, metric_ns,
			    100.0 * fabs(total - metric_ns) / fabs(metric_ns));
}

/* --- reports ---------------------------------------------------------- */

/* the mean of @run's "_wall" samples of a workload and variant, in ms:
 * the duration of its timed writes, the windows the profile counted */
static double wall_mean(struct db *db, long long run, const char *workload,
			const char *variant)
{
	sqlite3_stmt *st = db_query(db, "SELECT avg(s.value) FROM samples s "
				    "JOIN boots b ON b.id = s.boot_id WHERE "
				    "s.run_id = ? AND b.status = 'ok' AND "
				    "s.workload = ? AND s.variant = ? AND "
				    "s.unit = 'ms' AND s.metric LIKE '%\\_wall' "
				    "ESCAPE '\\'", "itt", run, workload,
				    variant);
	double v = NAN;

	if (st && db_step(db, st) == DB_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

double profile_wall_change_ns(struct db *db, long long base_run,
			      long long new_run, const char *workload,
			      const char *variant)
{
	double b = wall_mean(db, base_run, workload, variant);
	double n = wall_mean(db, new_run, workload, variant);

	return isfinite(b) && isfinite(n) ? (n - b) * 1e6 : 0;
}

int profile_diffs_for(struct db *db, const struct run_comparison *rc,
		      struct profile_diff **out, size_t *nr)
{
	long long bp, np;
	size_t i, j, alloc = 0;

	*out = NULL;
	*nr = 0;
	bp = profile_of_run(db, rc->base_id);
	np = profile_of_run(db, rc->new_id);
	if (bp < 0 || np < 0)
		return -1;
	if (!bp || !np)
		return 0;
	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *m = &rc->m[i];
		struct profile_diff d;
		int got;

		if (m->c.verdict != VERDICT_WORSE &&
		    m->c.verdict != VERDICT_BETTER)
			continue;
		/* one diff per workload and variant */
		for (j = 0; j < i; j++)
			if ((rc->m[j].c.verdict == VERDICT_WORSE ||
			     rc->m[j].c.verdict == VERDICT_BETTER) &&
			    !strcmp(rc->m[j].workload, m->workload) &&
			    !strcmp(rc->m[j].variant, m->variant))
				break;
		if (j < i)
			continue;
		got = profile_diff(db, bp, np, m->workload, m->variant, &d);
		if (got < 0) {
			profile_diffs_release(*out, *nr);
			*out = NULL;
			*nr = 0;
			return -1;
		}
		if (got > 0)
			continue;
		if (*nr == alloc) {
			alloc = alloc ? 2 * alloc : 4;
			*out = xrealloc(*out, alloc * sizeof(**out));
		}
		(*out)[(*nr)++] = d;
	}
	return 0;
}

void profile_diffs_release(struct profile_diff *d, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		profile_diff_release(&d[i]);
	free(d);
}

int profile_explain(struct db *db, const struct run_comparison *rc,
		    const char *what, int max_lines, struct strbuf *out)
{
	struct profile_diff *ds;
	size_t i, j, nr;
	int lines = 0;

	if (profile_diffs_for(db, rc, &ds, &nr) < 0)
		return -1;
	for (i = 0; i < nr && lines < max_lines; i++) {
		const struct profile_diff *d = &ds[i];
		struct strbuf body = STRBUF_INIT, num = STRBUF_INIT;
		double total = profile_diff_total(d);
		double metric_ns;

		metric_ns = profile_wall_change_ns(db, rc->base_id, rc->new_id,
						   d->workload, d->variant);
		add_grouped(&num, total, 1);
		strbuf_addf(out, "%s%s%s%s%s: %s instructions per write",
			    what ? what : "", what ? ", " : "", d->workload,
			    *d->variant ? " " : "", d->variant, num.buf);
		if (d->base_insns)
			strbuf_addf(out, " (%+.1f %%)",
				    100.0 * total /
				    ((double)d->base_insns / d->base_windows));
		strbuf_addch(out, '\n');
		lines++;
		profile_diff_format(d, max_lines - lines, 0.01, metric_ns,
				    &body);
		for (j = 0; j < body.len; j++)
			lines += body.buf[j] == '\n';
		strbuf_addbuf(out, &body);
		strbuf_release(&body);
		strbuf_release(&num);
	}
	profile_diffs_release(ds, nr);
	return lines;
}

int profile_runs_for(const struct mmci_config *cfg, struct db *db,
		     const struct run_comparison *rc)
{
	size_t i;
	int n = 0;

	for (i = 0; i < rc->nr; i++)
		if (rc->m[i].c.verdict == VERDICT_WORSE ||
		    rc->m[i].c.verdict == VERDICT_BETTER)
			break;
	if (i == rc->nr)
		return 0;
	if (profile_run(cfg, db, rc->base_id) < 0)
		warning("run #%lld has no profile; the verdict stands",
			rc->base_id);
	else
		n++;
	if (profile_run(cfg, db, rc->new_id) < 0)
		warning("run #%lld has no profile; the verdict stands",
			rc->new_id);
	else
		n++;
	return n;
}
