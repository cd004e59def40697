// SPDX-License-Identifier: GPL-2.0
/*
 * accel.c - KVM or TCG, decided by a real boot (see accel.h).
 *
 * A trial costs about a second on a host where KVM works and
 * ACCEL_DEADLINE_S where it hangs guests, once per host set-up: the
 * verdict is stored and every later run reads it.
 */
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "arch.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "hosts.h"
#include "kvm-probe.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"

/*
 * A host libvirt reaches remotely (vm_staged()): its capabilities say
 * whether it offers KVM, and its set-up is named by libvirt alone; a
 * stored verdict then belongs to that host, not to this machine.
 */
static int staged_host(struct host *h)
{
	if (!vm_staged())
		return 0;
	memset(h, 0, sizeof(*h));
	h->uri = xstrdup(vm_uri());
	if (host_probe(h) < 0)
		log_warnx("host '%s': %s", h->uri, h->error);
	return 1;
}

static void staged_host_release(struct host *h)
{
	struct host *one = xmalloc(sizeof(*one));

	*one = *h;
	hosts_release(one, 1);
}

/* kvm_usable() for the host boots go to */
static int host_kvm_usable(char *why, size_t whylen)
{
	struct host h;
	int kvm;

	if (!staged_host(&h))
		return kvm_usable(why, whylen);
	kvm = h.up && h.kvm;
	xsnprintf(why, whylen, "%s: %s", h.uri, !h.up ? h.error :
		  kvm ? "its capabilities offer KVM" :
		  "its capabilities offer no KVM");
	staged_host_release(&h);
	return kvm;
}

static void local_host_key(struct host_key *k)
{
	struct utsname u;
	struct strbuf info = STRBUF_INIT;
	char *libvirt = NULL;
	const char *p;

	k->release = xstrdup(uname(&u) ? "unknown" : u.release);
	k->qemu = NULL;
	if (vm_versions(&k->qemu, &libvirt) < 0 || !k->qemu) {
		free(k->qemu);
		k->qemu = xstrdup("unknown");
	}
	free(libvirt);
	k->cpu = NULL;
	/* x86 names the model; arm64 gives only the implementer and part */
	if (strbuf_read_file(&info, "/proc/cpuinfo", 0) >= 0 &&
	    ((p = strstr(info.buf, "model name")) ||
	     (p = strstr(info.buf, "CPU part")))) {
		const char *colon = strchr(p, ':');
		const char *eol = strchrnul(p, '\n');

		if (colon && colon < eol) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			k->cpu = xstrndup(colon, eol - colon);
		}
	}
	if (!k->cpu)
		k->cpu = xstrdup("unknown");
	strbuf_release(&info);
}

void host_key_init(struct host_key *k)
{
	struct host h;

	if (!staged_host(&h)) {
		local_host_key(k);
		return;
	}
	k->release = xstrfmt("libvirt host %s", h.up ? h.hostname : h.uri);
	k->qemu = xstrdup(h.up ? h.qemu : "unknown");
	k->cpu = xstrdup(h.up && *h.cpu_model ? h.cpu_model : "unknown");
	staged_host_release(&h);
}

void host_key_release(struct host_key *k)
{
	free(k->release);
	free(k->qemu);
	free(k->cpu);
	k->release = k->qemu = k->cpu = NULL;
}

unsigned int accel_deadline_s(void)
{
	const char *v = getenv("MMCI_KVM_DEADLINE_S");
	char *end;
	long n;

	if (!v || !*v)
		return ACCEL_DEADLINE_S;
	n = strtol(v, &end, 10);
	if (*end || n <= 0 || n > 600)
		die("MMCI_KVM_DEADLINE_S must be a number of seconds in "
		    "1..600, not '%s'", v);
	return (unsigned int)n;
}

struct verdict {
	int found, usable;
	char reason[256];
	char date[32];
};

static void verdict_load(struct db *db, const struct host_key *k,
			 struct verdict *v)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT usable, reason, datetime(decided_at, 'unixepoch') "
		"FROM kvm_verdicts WHERE host_release = ? AND qemu_version = ? "
		"AND cpu_model = ?", "ttt", k->release, k->qemu, k->cpu);

	memset(v, 0, sizeof(*v));
	if (!st)
		return;
	/* a failed read is said; the host then gets a trial boot */
	if (db_step(db, st) == DB_ROW) {
		v->found = 1;
		v->usable = sqlite3_column_int(st, 0);
		xsnprintf(v->reason, sizeof(v->reason), "%s",
			  db_col_text(st, 1));
		xsnprintf(v->date, sizeof(v->date), "%s", db_col_text(st, 2));
	}
	sqlite3_finalize(st);
}

static int verdict_store(struct db *db, const struct host_key *k, int usable,
			 const char *reason, double first_line,
			 unsigned int deadline, const char *kernel)
{
	char host[256] = "unknown";

	gethostname(host, sizeof(host) - 1);
	return db_run(db, "INSERT OR REPLACE INTO kvm_verdicts (host_release, "
		      "qemu_version, cpu_model, hostname, usable, reason, "
		      "first_line_s, deadline_s, kernel, decided_at) VALUES "
		      "(?, ?, ?, ?, ?, ?, nullif(?, 0), ?, ?, ?)",
		      "ttttitddtd", k->release, k->qemu, k->cpu, host,
		      (long long)usable, reason, first_line, (double)deadline,
		      kernel, (double)time(NULL));
}

enum trial_end { TRIAL_PRINTED, TRIAL_SILENT, TRIAL_FAILED };

/*
 * Boot @kernel under KVM until its first console line, then destroy it.
 * The console log stays in <data>/hosts for whoever wants to look.
 */
static enum trial_end trial_boot(const struct mmci_config *cfg,
				 struct db *db, const struct arch *a,
				 const char *kernel, const char *initrd,
				 unsigned int deadline, double *first_line,
				 char *why, size_t whylen)
{
	char *dir = data_path(cfg, "hosts"), tag[9];
	char *console = xstrfmt("%s/kvm-trial-%d-console.log", dir,
				(int)getpid());
	char *results = xstrfmt("%s/kvm-trial-%d-results.log", dir,
				(int)getpid());
	/* arm64: UEFI variables of its own, deleted by vm_run() */
	char *nvram = arch_firmware(a) ? xstrfmt("%s/kvm-trial-%d-vars.fd",
						 dir, (int)getpid()) : NULL;
	char *cmdline = xstrfmt("console=%s panic=-1 loglevel=4 "
				"mmci.workload=none", a->console);
	char *tmpl = project_path(cfg, VM_DEFAULT_TEMPLATE);
	char *name;
	struct vm_spec spec;
	struct vm_result res;
	enum trial_end end = TRIAL_FAILED;

	db_tag(db, tag);
	name = xstrfmt("%s%s-kvmtrial-%d", VM_NAME_PREFIX, tag, (int)getpid());
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.arch = a;
	spec.nvram_path = nvram;
	spec.kernel = kernel;
	spec.initrd = initrd;
	spec.cmdline = cmdline;
	spec.console_log = console;
	spec.results_log = results;
	spec.vcpus = 1;
	spec.kvm = 1;
	spec.first_line_s = deadline;
	spec.stop_at_first_line = 1;
	spec.timeout_s = deadline + 30;
	spec.template_path = tmpl;
	progress("KVM trial: booting %s, %u s for its first console line",
		 kernel, deadline);
	if (vm_run(&spec, &res) < 0) {
		xsnprintf(why, whylen, "the trial domain did not start: %s",
			  res.error);
	} else if (res.exit_kind == VM_STOPPED) {
		*first_line = res.first_line_s;
		end = TRIAL_PRINTED;
		xsnprintf(why, whylen, "trial boot: first console line after "
			  "%.1f s", res.first_line_s);
	} else if (res.exit_kind == VM_SILENT) {
		end = TRIAL_SILENT;
		xsnprintf(why, whylen, "a Linux guest printed nothing within "
			  "%u s under KVM", deadline);
		log_info("KVM trial: console log %s", console);
	} else {
		/* it ended before its first line: a panic prints one */
		xsnprintf(why, whylen, "the trial guest ended (%s) before "
			  "printing: %s", vm_exit_kind_name(res.exit_kind),
			  res.error);
	}
	unlink(results);
	vm_result_release(&res);
	free(nvram);
	free(cmdline);
	free(name);
	free(tmpl);
	free(console);
	free(results);
	free(dir);
	return end;
}

/* the host's answer, once per process: 1 KVM, 0 TCG, -1 not yet asked */
static int host_kvm = -1;
static char host_why[256];

static int forced(const char *what)
{
	const char *v = getenv("MMCI_ACCEL");

	return v && !strcmp(v, what);
}

int accel_expect_kvm(struct db *db, char *why, size_t whylen)
{
	char pwhy[128];
	struct host_key k;
	struct verdict v;
	int kvm;

	if (host_kvm >= 0 && !forced("tcg")) {
		if (why)
			xsnprintf(why, whylen, "%s", host_why);
		return host_kvm;
	}
	kvm = host_kvm_usable(pwhy, sizeof(pwhy));
	if (why)
		xsnprintf(why, whylen, "%s", pwhy);
	if (!kvm || forced("kvm"))
		return kvm;
	host_key_init(&k);
	verdict_load(db, &k, &v);
	host_key_release(&k);
	if (v.found && !v.usable) {
		if (why)
			xsnprintf(why, whylen, "stored verdict of %s: %s",
				  v.date, v.reason);
		return 0;
	}
	return 1;
}

int accel_guest_native(const struct arch *a, char *why, size_t whylen)
{
	const char *seam = getenv("MMCI_TEST_HOST_ARCH");
	struct host h;
	int native;

	if (seam && *seam) {
		native = !strcmp(seam, a->qemu_arch);
		if (!native)
			xsnprintf(why, whylen, "an %s guest is emulated on this "
				  "host (TCG; test seam MMCI_TEST_HOST_ARCH=%s)",
				  a->name, seam);
		return native;
	}
	if (!staged_host(&h)) {
		native = arch_native(a);
		if (!native)
			xsnprintf(why, whylen, "an %s guest is emulated on this "
				  "host (TCG)", a->name);
		return native;
	}
	native = h.up && h.arch && !strcmp(h.arch, a->qemu_arch);
	if (!h.up)
		xsnprintf(why, whylen, "%s: %s", h.uri, h.error);
	else if (!native)
		xsnprintf(why, whylen, "an %s guest is emulated on %s, an %s "
			  "host (TCG)", a->name, h.uri,
			  h.arch ? h.arch : "unknown");
	staged_host_release(&h);
	return native;
}

int accel_choose(const struct mmci_config *cfg, struct db *db,
		 const struct arch *a, const char *clock, const char *kernel,
		 const char *initrd, struct accel_choice *c)
{
	unsigned int deadline = accel_deadline_s();
	char pwhy[128], twhy[256];
	struct host_key k;
	struct verdict v;
	double first_line = 0;
	enum trial_end end;

	memset(c, 0, sizeof(*c));
	if (forced("tcg")) {
		xsnprintf(c->why, sizeof(c->why), "forced by MMCI_ACCEL=tcg");
		return 0;
	}
	if (clock && !strcmp(clock, "icount")) {
		if (forced("kvm"))
			return error("clock 'icount' needs TCG, but "
				     "MMCI_ACCEL=kvm asks for KVM");
		xsnprintf(c->why, sizeof(c->why), "clock icount needs TCG");
		return 0;
	}
	if (host_kvm >= 0 && !forced("kvm")) {
		c->kvm = host_kvm;
		xsnprintf(c->why, sizeof(c->why), "%s", host_why);
		return 0;
	}
	if (!host_kvm_usable(pwhy, sizeof(pwhy))) {
		c->kvm = host_kvm = 0;
		xsnprintf(c->why, sizeof(c->why), "%s", pwhy);
		xsnprintf(host_why, sizeof(host_why), "%s", pwhy);
		return 0;
	}

	host_key_init(&k);
	verdict_load(db, &k, &v);
	if (v.found && (v.usable || !forced("kvm"))) {
		c->kvm = host_kvm = v.usable;
		xsnprintf(c->why, sizeof(c->why), "stored verdict of %s: %s",
			  v.date, v.reason);
		xsnprintf(host_why, sizeof(host_why), "%s", c->why);
		if (!v.usable)
			log_info("KVM hangs guests on this host (%s): using "
				 "TCG; 'mmci hosts --forget' after a host "
				 "change", c->why);
		goto out;
	}

	end = trial_boot(cfg, db, a, kernel, initrd, deadline, &first_line,
			 twhy, sizeof(twhy));
	if (end == TRIAL_FAILED) {
		/* no verdict: libvirt or the domain failed, not the guest */
		if (forced("kvm")) {
			host_key_release(&k);
			return error("MMCI_ACCEL=kvm, but %s", twhy);
		}
		c->kvm = host_kvm = 0;
		xsnprintf(c->why, sizeof(c->why), "KVM: %s", twhy);
		xsnprintf(host_why, sizeof(host_why), "%s", c->why);
		warning("%s: using TCG (no verdict stored)", c->why);
		goto out;
	}
	verdict_store(db, &k, end == TRIAL_PRINTED, twhy, first_line,
		      deadline, kernel);
	if (end == TRIAL_PRINTED) {
		c->kvm = host_kvm = 1;
		xsnprintf(c->why, sizeof(c->why), "%s", twhy);
		xsnprintf(host_why, sizeof(host_why), "%s", twhy);
		log_info("KVM: %s; verdict stored for %s, QEMU %s, %s", twhy,
			 k.release, k.qemu, k.cpu);
		goto out;
	}
	if (forced("kvm")) {
		error("MMCI_ACCEL=kvm, but KVM does not run Linux guests on "
		      "this host: %s (unset MMCI_ACCEL to fall back to TCG)",
		      twhy);
		host_key_release(&k);
		return -1;
	}
	c->kvm = host_kvm = 0;
	xsnprintf(c->why, sizeof(c->why), "trial boot: %s", twhy);
	xsnprintf(host_why, sizeof(host_why), "%s", c->why);
	warning("KVM hangs Linux guests on this host (%s, QEMU %s, %s): %s; "
		"verdict stored, using TCG ('mmci hosts --forget' clears it)",
		k.release, k.qemu, k.cpu, twhy);
out:
	host_key_release(&k);
	return 0;
}

int accel_forget(struct db *db, const struct host_key *k)
{
	int rc = k ? db_run(db, "DELETE FROM kvm_verdicts WHERE host_release "
			    "= ? AND qemu_version = ? AND cpu_model = ?",
			    "ttt", k->release, k->qemu, k->cpu) :
		     db_run(db, "DELETE FROM kvm_verdicts", "");

	return rc < 0 ? -1 : db_changes(db);
}
