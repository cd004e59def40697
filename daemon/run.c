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
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "image.h"
#include "kvm-probe.h"
#include "result.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"
#include "workload.h"

#define TMPFS_DIR "/dev/shm"

void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workloads = "fsdax";
	o->iters = 30;
	o->align = 2 << 20;
	o->map = "dev";
	o->nvdimm_mib = 100 << 10;
	o->ram_mib = 1024;
	o->vcpus = 2;
}

/*
 * The memmap of a namespace is 64 bytes per 4 KiB page (1/64 of its size);
 * with map=dev it is written into the backing file, which therefore grows
 * by that much. tmpfs is the default (disk-backed files gave 6 s outliers,
 * DESIGN.md) when the RAM can hold it with 2 GiB to spare for the guest.
 */
static const char *choose_backing(const struct run_opts *o)
{
	long long need = o->nvdimm_mib / 64 + o->ram_mib + 2048;
	long long avail = mem_available_mib();

	if (o->backing)
		return o->backing;
	return avail > need ? "tmpfs" : "disk";
}

/*
 * Timeout per boot: generous, from what was measured under TCG (a 100 GiB
 * rebind takes ~2 s, a boot ~4 s), times 5 for a loaded host.
 */
static unsigned int default_timeout(const struct run_opts *o, int nwork)
{
	unsigned long long per_bind_s = 1 + o->nvdimm_mib / (25 << 10);

	return 120 + 5 * nwork * (o->iters + 2) * per_bind_s;
}

int run_create(const struct mmci_config *cfg, struct db *db,
	       const struct run_opts *o, long long *run_id)
{
	char why[128], host[256] = "unknown", runner_sha[41], initrd_sha[41];
	char *initrd = NULL, *runner = NULL, *params = NULL;
	char *qemu_v = NULL, *libvirt_v = NULL;
	struct strbuf wl = STRBUF_INIT;
	const char *accel, *clock;
	json_t *pj;
	int kvm, nwork = 1, ret = -1, n;
	unsigned int vcpus;
	const char *p;

	if (workloads_expand(o->workloads, &wl) < 0)
		return -1;
	for (p = wl.buf; *p; p++)
		nwork += *p == ',';
	n = vm_cleanup_stale();
	if (n > 0)
		log_info("destroyed %d domain(s) left by a killed mmci", n);
	kvm = kvm_usable(why, sizeof(why));
	accel = kvm ? "kvm" : "tcg";
	clock = o->clock ? o->clock : (kvm ? "wall" : "icount");
	if (!strcmp(clock, "icount") && kvm) {
		error("clock 'icount' needs TCG, but KVM is in use (set "
		      "MMCI_ACCEL=tcg)");
		goto out;
	}
	if (strcmp(clock, "icount") && strcmp(clock, "wall")) {
		error("unknown clock mode '%s' (icount or wall)", clock);
		goto out;
	}
	log_info("accelerator %s (%s), clock %s", accel, why, clock);
	/*
	 * icount runs all vCPUs round-robin on one host thread, so a second
	 * vCPU buys nothing, and QEMU 7.2 hung in SMP bring-up with two.
	 */
	vcpus = !strcmp(clock, "icount") ? 1 : o->vcpus;

	if (o->initrd) {
		initrd = real_path(o->initrd);
		if (hash_file_hex(initrd, initrd_sha) < 0)
			goto out;
	} else if (image_build(cfg, o->release, o->modroot, &initrd,
			       initrd_sha) < 0) {
		goto out;
	}
	runner = project_path(cfg, "runner/mmci-runner");
	if (hash_file_hex(runner, runner_sha) < 0)
		goto out;
	gethostname(host, sizeof(host) - 1);
	vm_versions(&qemu_v, &libvirt_v);
	pj = json_pack("{s:s, s:i, s:I, s:s, s:i}", "workloads", wl.buf,
		       "iters", o->iters, "align", (json_int_t)o->align,
		       "map", o->map, "timeout_s",
		       o->timeout_s ? (int)o->timeout_s :
				      (int)default_timeout(o, nwork));
	params = json_dumps(pj, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(pj);
	if (db_run(db, "INSERT INTO runs (label, build_id, kernel, "
		   "kernel_release, modules_root, hz, workloads, params, "
		   "accel, clock, vcpus, ram_mib, nvdimm_mib, backing, "
		   "qemu_version, libvirt_version, host, runner_sha1, initrd, "
		   "initrd_sha1, status, started_at) VALUES (?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)",
		   "tItttIttttiiitttttttd", o->label, o->build_id, o->kernel,
		   o->release, o->modroot, (long long)o->hz, wl.buf,
		   params, accel, clock, (long long)vcpus,
		   (long long)o->ram_mib, (long long)o->nvdimm_mib,
		   choose_backing(o), qemu_v, libvirt_v, host, runner_sha,
		   initrd, initrd_sha, (double)time(NULL)) < 0)
		goto out;
	*run_id = db_last_id(db);
	ret = 0;
out:
	strbuf_release(&wl);
	free(initrd);
	free(runner);
	free(params);
	free(qemu_v);
	free(libvirt_v);
	return ret;
}

struct run_row {
	char *kernel, *initrd, *workloads, *map, *accel, *clock, *backing;
	long long iters, align, timeout_s, vcpus, ram_mib, nvdimm_mib;
};

static void run_row_release(struct run_row *r)
{
	free(r->kernel);
	free(r->initrd);
	free(r->workloads);
	free(r->map);
	free(r->accel);
	free(r->clock);
	free(r->backing);
}

static int load_run(struct db *db, long long run_id, struct run_row *r)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT kernel, initrd, workloads, params, accel, clock, "
		"backing, vcpus, ram_mib, nvdimm_mib FROM runs WHERE id = ?",
		"i", run_id);
	json_t *pj = NULL;
	const char *map = NULL;
	json_int_t iters = 0, align = 0, timeout = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		error("no run #%lld", run_id);
		goto out;
	}
	pj = json_loads(db_col_text(st, 3), 0, NULL);
	if (!pj || json_unpack(pj, "{s:I, s:I, s:s, s:I}", "iters", &iters,
			       "align", &align, "map", &map, "timeout_s",
			       &timeout) < 0) {
		error("run #%lld has unreadable parameters", run_id);
		goto out;
	}
	r->kernel = xstrdup(db_col_text(st, 0));
	r->initrd = xstrdup(db_col_text(st, 1));
	r->workloads = xstrdup(db_col_text(st, 2));
	r->map = xstrdup(map);
	r->accel = xstrdup(db_col_text(st, 4));
	r->clock = xstrdup(db_col_text(st, 5));
	r->backing = xstrdup(db_col_text(st, 6));
	r->vcpus = sqlite3_column_int64(st, 7);
	r->ram_mib = sqlite3_column_int64(st, 8);
	r->nvdimm_mib = sqlite3_column_int64(st, 9);
	r->iters = iters;
	r->align = align;
	r->timeout_s = timeout;
	ret = 0;
out:
	json_decref(pj);
	sqlite3_finalize(st);
	return ret;
}

static char *backing_path(const struct mmci_config *cfg, const char *backing,
			  long long run_id, int idx)
{
	char *dir, *p;

	if (!strcmp(backing, "tmpfs"))
		return xstrfmt("%s/mmci-%d-run%lld-boot%d.nvdimm", TMPFS_DIR,
			       (int)getpid(), run_id, idx);
	dir = data_path(cfg, "nvdimm");
	p = xstrfmt("%s/run%lld-boot%d.nvdimm", dir, run_id, idx);
	free(dir);
	return p;
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
	char *backing = NULL, *cmdline = NULL, *name = NULL;
	char *template = NULL;
	long long boot_id;
	double t0 = now_s();
	int ok = 0, started;

	memset(&vres, 0, sizeof(vres));
	vres.exit_kind = VM_START_FAILED;
	if (load_run(db, run_id, &r) < 0)
		return -1;
	sub = xstrfmt("runs/%lld", run_id);
	dir = data_path(cfg, sub);
	console = xstrfmt("%s/boot%d-console.log", dir, idx);
	results = xstrfmt("%s/boot%d-results.jsonl", dir, idx);
	unlink(console);
	unlink(results);
	if (db_run(db, "INSERT OR REPLACE INTO boots (run_id, idx, status, "
		   "console_log, results_log, started_at) VALUES "
		   "(?, ?, 'running', ?, ?, ?)", "iittd", run_id,
		   (long long)idx, console, results, (double)time(NULL)) < 0)
		goto out;
	boot_id = db_last_id(db);

	backing = backing_path(cfg, r.backing, run_id, idx);
	cmdline = xstrfmt("console=ttyS0 panic=-1 loglevel=4 "
			  "mmci.workload=%s mmci.iters=%lld mmci.align=%lld "
			  "mmci.map=%s mmci.out=/dev/ttyS1", r.workloads,
			  r.iters, r.align, r.map);
	{
		/*
		 * Run ids are per database: the domain name carries a tag of
		 * the database's path so that two databases sharing one
		 * libvirt (a test suite next to the service) never collide.
		 */
		char *abs = real_path(db->path), tag[41];

		hash_hex(abs, strlen(abs), tag);
		free(abs);
		name = xstrfmt("mmci-%.8s-run%lld-boot%d", tag, run_id, idx);
	}
	template = project_path(cfg, "vm-images/domain.xml.in");
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.kernel = r.kernel;
	spec.initrd = r.initrd;
	spec.cmdline = cmdline;
	spec.console_log = console;
	spec.results_log = results;
	spec.vcpus = r.vcpus;
	spec.ram_mib = r.ram_mib;
	spec.nvdimm_path = backing;
	spec.nvdimm_mib = r.nvdimm_mib;
	spec.unlink_backing = 1;
	spec.kvm = !strcmp(r.accel, "kvm");
	spec.icount = !strcmp(r.clock, "icount");
	spec.timeout_s = r.timeout_s;
	spec.template_path = template;

	if (vm_create_backing(backing, r.nvdimm_mib) < 0) {
		strbuf_addf(&why, "cannot create the NVDIMM backing '%s'",
			    backing);
		goto record;
	}
	progress("run #%lld boot %d: %s, %s, %llu GiB NVDIMM on %s, "
		 "timeout %lld s", run_id, idx, r.accel, r.clock,
		 (unsigned long long)r.nvdimm_mib >> 10, r.backing,
		 r.timeout_s);
	started = vm_run(&spec, &vres) == 0;
	unlink(backing);
	if (!started) {
		strbuf_addf(&why, "the VM did not start: %s", last_error());
		goto record;
	}
	if (result_ingest(db, run_id, boot_id, results, &counts) < 0) {
		strbuf_addf(&why, "cannot store the results of '%s'", results);
		goto record;
	}
	if (vres.exit_kind == VM_TIMEOUT)
		strbuf_addf(&why, "the guest did not finish within %lld s "
			    "(hung?): see %s", r.timeout_s, console);
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
	db_run(db, "UPDATE boots SET status = ?, end_kind = ?, error = ?, "
	       "domain_xml = ?, duration_s = ? WHERE id = ?", "ttttdi",
	       ok ? "ok" : "failed", vm_exit_kind_name(vres.exit_kind),
	       ok ? NULL : why.buf, vres.domain_xml, now_s() - t0, boot_id);
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
	free(cmdline);
	free(name);
	free(template);
	return ok ? 0 : -1;
}

int run_finish(struct db *db, long long run_id)
{
	long long nok = db_int(db, 0, "SELECT count(*) FROM boots WHERE "
			       "run_id = ? AND status = 'ok'", "i", run_id);
	long long n = db_int(db, 0, "SELECT count(*) FROM boots WHERE "
			     "run_id = ?", "i", run_id);
	char *err = nok ? NULL : xstrfmt("all %lld boot(s) failed", n);

	db_run(db, "UPDATE runs SET status = ?, error = ?, ended_at = ? "
	       "WHERE id = ?", "ttdi", nok ? "ok" : "failed", err,
	       (double)time(NULL), run_id);
	free(err);
	return (int)nok;
}

int run_boots(const struct mmci_config *cfg, struct db *db,
	      const struct run_opts *o, int boots, long long *run_id)
{
	int i;

	if (run_create(cfg, db, o, run_id) < 0)
		return -1;
	for (i = 0; i < boots; i++)
		run_boot(cfg, db, *run_id, i);
	return run_finish(db, *run_id) ? 0 : -1;
}
