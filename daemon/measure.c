// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - kernels of one job, booted in interleaved rounds, with
 * adaptive repeats (see measure.h).
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "fsutil.h"
#include "hosts.h"
#include "interrupt.h"
#include "measure.h"
#include "db.h"
#include "util.h"
#include "vm.h"

void measure_args_init(struct measure_args *a)
{
	memset(a, 0, sizeof(*a));
	run_opts_init(&a->o);
	/*
	 * A series' claim is usually about one path: by default one
	 * variant, the memmap on the device with 2 MiB alignment, as the
	 * seed measured it; --map/--align widen it.
	 */
	a->o.map = "dev";
	a->o.devdax_align = "2M";
}

int measure_args_parse(struct measure_args *a, int c, const char *arg)
{
	switch (c) {
	case 'f': a->fragment = arg; break;
	case 'w': a->o.workloads = arg; break;
	case 'p': a->o.map = arg; break;
	case 'a': a->o.fsdax_align = a->o.devdax_align = arg; break;
	case 'i': a->o.iters = parse_count("--iters", arg); break;
	case 'n': a->o.nvdimm_mib = parse_mib("--nvdimm", arg); break;
	case 'B': a->boots = parse_count("--boots", arg); break;
	case 'M': a->max_boots = parse_count("--max-boots", arg); break;
	case 'c': a->o.clock = arg; break;
	case 'K': a->o.backing = arg; break;
	case 't': a->o.timeout_s = parse_count("--timeout", arg); break;
	case 'A':
		if (!arch_get(arg))
			exit(129);
		a->o.arch = arg;
		break;
	default:
		return 0;
	}
	return 1;
}

int run_option_parse(struct run_opts *o, long long *build_id,
		     struct strbuf *params, int c, const char *arg)
{
	switch (c) {
	case RUN_OPT_BUILD: *build_id = parse_count("--build", arg); break;
	case RUN_OPT_KERNEL: o->kernel = arg; break;
	case RUN_OPT_MODROOT: o->modroot = arg; break;
	case RUN_OPT_RELEASE: o->release = arg; break;
	case RUN_OPT_HZ: o->hz = parse_count("--hz", arg); break;
	case RUN_OPT_WORKLOADS: o->workloads = arg; break;
	case RUN_OPT_ITERS: o->iters = parse_count("--iters", arg); break;
	case RUN_OPT_NVDIMM: o->nvdimm_mib = parse_mib("--nvdimm", arg); break;
	case RUN_OPT_ALIGN: o->fsdax_align = o->devdax_align = arg; break;
	case RUN_OPT_FSDAX_ALIGN: o->fsdax_align = arg; break;
	case RUN_OPT_DEVDAX_ALIGN: o->devdax_align = arg; break;
	case RUN_OPT_MAP: o->map = arg; break;
	case RUN_OPT_VMEM_SIZES: o->vmem_sizes = arg; break;
	case RUN_OPT_HOTPLUG_ITERS:
		o->hotplug_iters = parse_count("--hotplug-iters", arg);
		break;
	case RUN_OPT_KMEM_ONLINE: o->kmem_online = arg; break;
	case RUN_OPT_VMEM_ONLINE: o->vmem_online = arg; break;
	case RUN_OPT_KMEM_MEMMAP: o->kmem_memmap = arg; break;
	case RUN_OPT_PARAM:
		if (!starts_with(arg, "mmci."))
			die("--param takes mmci.KEY=VALUE, not '%s'", arg);
		strbuf_addf(params, "%s%s", params->len ? " " : "", arg);
		o->extra = params->buf;
		break;
	case RUN_OPT_MEMREMAP_SIZE: o->memremap_size = arg; break;
	case RUN_OPT_MEMMAP_ON_MEMORY:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			die("--memmap-on-memory is on or off, not '%s'", arg);
		o->memmap_on_memory = !strcmp(arg, "on");
		break;
	case RUN_OPT_RAM: o->ram_mib = parse_mib("--ram", arg); break;
	case RUN_OPT_TIMEOUT:
		o->timeout_s = parse_count("--timeout", arg);
		break;
	case RUN_OPT_ARCH:
		if (!arch_get(arg))
			return -1;
		o->arch = arg;
		break;
	case RUN_OPT_INITRD: o->initrd = arg; break;
	default:
		return 0;
	}
	return 1;
}

void measure_args_finish(struct measure_args *a)
{
	if (a->boots && a->max_boots && a->max_boots < a->boots)
		a->max_boots = a->boots;
}

/*
 * The default boots follow the clock the first run really got: a run
 * asked for on the wall clock may end up in icount mode when KVM turns
 * out to hang guests (accel.h), and then 6 boots a side would be waste.
 */
void measure_args_resolve(struct measure_args *a, const struct measure *m)
{
	if (!a->boots) {
		struct run_row r;
		int wall = 0;

		/* a run that cannot be read counts as icount, as before */
		if (m->nr && !run_load(m->db, m->k[0].run_id, &r)) {
			wall = !strcmp(r.clock, "wall");
			run_row_release(&r);
		}
		a->boots = wall ? MEASURE_BOOTS_WALL : MEASURE_BOOTS_ICOUNT;
	}
	if (!a->max_boots)
		a->max_boots = 2 * a->boots;
	if (a->max_boots < a->boots)
		a->max_boots = a->boots;
}

void measure_init(struct measure *m, const struct mmci_config *cfg,
		  struct db *db, git_repository *repo, const char *fragment,
		  const struct run_opts *opts)
{
	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->db = db;
	m->repo = repo;
	m->fragment = fragment;
	m->opts = *opts;
}

void measure_release(struct measure *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->k[i].label);
		build_result_release(&m->k[i].build);
	}
	free(m->k);
	m->k = NULL;
	m->nr = m->alloc = 0;
}

int measure_add(struct measure *m, const git_oid *commit, long long series_id,
		int upto, const char *label)
{
	struct measure_kernel *k;
	struct run_opts o = m->opts;
	const struct arch *arch = arch_get(o.arch);
	char hex[GIT_OID_HEXSZ + 1];

	ALLOC_GROW(m->k, m->nr + 1, m->alloc);
	k = &m->k[m->nr];
	memset(k, 0, sizeof(*k));
	git_oid_tostr(hex, sizeof(hex), commit);
	/* what the boots need, before a build of up to half an hour */
	if (!arch || arch_check(arch) < 0)
		return -1;
	progress("building %s (%.12s)", label, hex);
	if (build_kernel(m->cfg, m->db, m->repo, commit, series_id, upto,
			 m->fragment, arch, &k->build) < 0) {
		build_result_release(&k->build);
		return -1;
	}
	k->label = xstrdup(label);
	k->commit = *commit;
	k->series_id = series_id;
	k->upto = upto;
	o.label = k->label;
	o.build_id = k->build.id;
	o.kernel = k->build.bzimage;
	o.modroot = k->build.modroot;
	o.release = k->build.release;
	o.hz = k->build.hz;
	if (run_create(m->cfg, m->db, &o, &k->run_id) < 0) {
		free(k->label);
		build_result_release(&k->build);
		return -1;
	}
	return (int)m->nr++;
}

static int reuse(struct measure *m, size_t i, int boots, const char *name,
		 char **note);

int measure_reuse(struct measure *m, size_t i, int boots, char **note)
{
	return reuse(m, i, boots, i ? m->k[i].label : "base", note);
}

int measure_reuse_said(struct measure *m, size_t i, int boots)
{
	char *note = NULL;
	int ret = reuse(m, i, boots, m->k[i].label, &note);

	if (ret > 0)
		progress("%s", note);
	free(note);
	return ret;
}

static int reuse(struct measure *m, size_t i, int boots, const char *name,
		 char **note)
{
	struct measure_kernel *k = &m->k[i];
	long long old = run_find_reusable(m->db, k->run_id, boots);
	struct run_row r;
	char when[32];
	time_t t;
	struct tm tm;

	*note = NULL;
	if (old <= 0)
		return old < 0 ? -1 : 0;
	if (run_load(m->db, old, &r) < 0)
		return -1;
	if (run_drop_unbooted(m->db, k->run_id) < 0) {
		run_row_release(&r);
		return -1;
	}
	t = (time_t)r.started_at;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	*note = xstrfmt("%s: reusing run %lld, measured %s, same build and "
			"set-up (%d ok boot(s), icount; --remeasure boots "
			"it again)", name, old, when,
			r.ok_boots);
	k->run_id = old;
	k->reused = 1;
	k->boots = r.boots;
	run_row_release(&r);
	return 1;
}

int measure_share_kernels(struct measure *m)
{
	size_t i, j;
	int n = 0, same;

	for (i = 1; i < m->nr; i++) {
		struct measure_kernel *k = &m->k[i];

		if (k->reused)
			continue;
		for (j = 0; j < i; j++) {
			same = run_same_setup(m->db, m->k[j].run_id, k->run_id);
			if (same < 0)
				return -1;
			if (same)
				break;
		}
		if (j == i)
			continue;
		if (run_drop_unbooted(m->db, k->run_id) < 0)
			return -1;
		progress("%s: the kernel of %s (same build key and .config: "
			 "no file a build reads changed); one run for both, "
			 "#%lld (icount)", k->label, m->k[j].label,
			 m->k[j].run_id);
		k->run_id = m->k[j].run_id;
		k->reused = 1;
		k->twin = m->k[j].twin ? m->k[j].twin : j + 1;
		n++;
	}
	return n;
}

/* MiB one boot of the measure needs on its host; 0 = not all icount */
static long long boot_need_mib(const struct measure *m)
{
	long long need = 0;
	size_t i;

	for (i = 0; i < m->nr; i++) {
		struct run_row r;
		long long one;
		int icount;

		if (m->k[i].reused)
			continue;
		if (run_load(m->db, m->k[i].run_id, &r) < 0)
			return 0;
		icount = !strcmp(r.clock, "icount");
		one = r.ram_mib + 512 +
		      (!strcmp(r.backing, "tmpfs") ? r.nvdimm_mib / 64 : 0);
		run_row_release(&r);
		if (!icount)
			return 0;
		if (one > need)
			need = one;
	}
	return need;
}

/* MiB a boot takes in a remote host's pool: kernel and initramfs, memmap */
static long long boot_pool_mib(const struct measure *m)
{
	long long need = 0, one;
	const struct arch *a;
	size_t i;

	for (i = 0; i < m->nr; i++) {
		struct run_row r;

		if (m->k[i].reused || run_load(m->db, m->k[i].run_id, &r) < 0)
			continue;
		/* 64: kernel and initramfs; arm64's UEFI variables 64 more */
		a = arch_find(r.arch);
		one = 64 + (long long)r.nvdimm_mib / 64 +
		      (a && arch_firmware(a) ? 64 : 0);
		if (one > need)
			need = one;
		run_row_release(&r);
	}
	return need;
}

/*
 * The hosts the boots may use (hosts.h), each with its slots: the host
 * the runs were made on (vm_uri()), first, and in icount mode every
 * other host of MMCI_LIBVIRT_URIS with the same icount set-up (QEMU
 * version and architecture; machine type and guest CPU model come from
 * the one domain template) that can boot the run's arch (arm64: QEMU's
 * virt and its UEFI firmware there). On the wall clock the first host
 * alone (one boot at a time). Returns how many hosts *out holds (at
 * least 1).
 */
static size_t plan_hosts(const struct measure *m, struct host **out)
{
	long long need = boot_need_mib(m), pool_need = boot_pool_mib(m);
	const struct arch *a = arch_find(m->opts.arch);
	const int arm64 = a && arch_firmware(a);
	struct host *all, *h;
	size_t n = hosts_list(&all), nh = 0, i, home = n;

	h = xcalloc(n + 1, sizeof(*h));
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].uri, vm_uri()))
			home = i;
	/* the home host first, in the list or not */
	h[nh].uri = xstrdup(vm_uri());
	if (host_probe(&h[nh]) < 0)
		log_warnx("host '%s': %s", h[0].uri, h[0].error);
	h[nh].slots = need ? host_capacity(&h[nh], need) : 1;
	if (h[nh].slots < 1)
		h[nh].slots = 1;	/* its boots fail with their reason */
	nh++;
	for (i = 0; need && i < n; i++) {
		if (i == home)
			continue;
		if (host_probe(&all[i]) < 0) {
			log_warnx("host '%s' not used: %s", all[i].uri,
				  all[i].error);
			continue;
		}
		if (!host_same_icount_setup(&h[0], &all[i])) {
			log_warnx("host '%s' not used: QEMU %s on %s, not QEMU "
				  "%s on %s as '%s'", all[i].uri, all[i].qemu,
				  all[i].arch, h[0].qemu ? h[0].qemu : "?",
				  h[0].arch ? h[0].arch : "?", h[0].uri);
			continue;
		}
		if (arm64 && !all[i].arm64) {
			log_warnx("host '%s' not used: %s", all[i].uri,
				  all[i].arm64_why);
			continue;
		}
		all[i].slots = host_capacity(&all[i], need);
		/* a staged boot's files and memmap must fit in the pool */
		if (all[i].remote && pool_need > 0 &&
		    (long long)all[i].pool_avail_mib / pool_need < all[i].slots)
			all[i].slots = (int)(all[i].pool_avail_mib / pool_need);
		if (all[i].slots < 1) {
			log_info("host '%s' has no room now (%u cores, %d mmci "
				 "guest(s), %llu MiB available%s)", all[i].uri,
				 all[i].cores, all[i].mmci_domains,
				 all[i].avail_mib, all[i].remote &&
				 !all[i].pool_ok ? ", no active pool" : "");
			continue;
		}
		h[nh] = all[i];
		memset(&all[i], 0, sizeof(all[i]));
		nh++;
	}
	hosts_release(all, n);
	*out = h;
	return nh;
}

int measure_slots(const struct measure *m)
{
	struct host *h;
	size_t n = plan_hosts(m, &h), i;
	int slots = 0;

	for (i = 0; i < n; i++)
		slots += h[i].slots;
	hosts_release(h, n);
	return slots;
}

/* one boot of the pool: which kernel, which boot of it, its child */
struct pool_boot {
	size_t k;
	int idx;
	size_t host;		/* index into the pool's hosts */
	pid_t pid;
	int peers;		/* most boots running at once during it */
	int ok;
};

/* the child: its own connection to the database, one boot, its result */
static NORETURN void boot_child(const struct measure *m,
				const struct pool_boot *b, const char *uri)
{
	struct db db = { 0 };
	int rc = 1;

	/* like run-command.c's children: it goes when mmci goes */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
		_exit(1);
	if (uri && setenv("MMCI_LIBVIRT_URI", uri, 1) < 0)
		_exit(1);
	if (!db_open(&db, m->db->path)) {
		rc = run_boot(m->cfg, &db, m->k[b->k].run_id, b->idx) ? 1 : 0;
		db_close(&db);
	}
	_exit(rc);
}

/*
 * The boots rows keep the order of the boots (base, new, ...): the next
 * child starts once this one's row is there, or after 5 s, or when it
 * is gone.
 */
static void wait_boot_row(struct measure *m, const struct pool_boot *b)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 250; i++) {
		if (db_int(m->db, 0, "SELECT count(*) FROM boots WHERE run_id "
			   "= ? AND idx = ?", "ii", m->k[b->k].run_id,
			   (long long)b->idx) > 0 || kill(b->pid, 0) < 0)
			return;
		nanosleep(&ts, NULL);
	}
}

/* the host with the most free slots, or -1 when all are busy or lost */
static int pick_host(const struct host *h, size_t nh)
{
	int best = -1, free_best = 0;
	size_t i;

	for (i = 0; i < nh; i++) {
		int f = h[i].lost ? 0 : h[i].slots - h[i].running;

		if (f > free_best) {
			best = (int)i;
			free_best = f;
		}
	}
	return best;
}

static int any_host_left(const struct host *h, size_t nh)
{
	size_t i;

	for (i = 0; i < nh; i++)
		if (!h[i].lost)
			return 1;
	return 0;
}

/*
 * Up to each host's slots boots at once (plan_hosts()). A boot is our
 * own code (run_boot()), not a program: a fork, not run-command.h. The
 * child opens the database again (an SQLite connection must not cross a
 * fork), takes its host as MMCI_LIBVIRT_URI, and libvirt's connection is
 * opened per boot (vm.c). A boot that fails on a host that no longer
 * answers is booted again, as a new boot of its kernel, on another host:
 * the failed boot stays recorded with its reason. On SIGTERM/SIGINT the
 * children get it too and fail their boots as interrupted.
 */
static int boot_pool(struct measure *m, struct pool_boot **bp, size_t *np,
		     size_t *alloc, struct host *h, size_t nh)
{
	size_t next = 0, i;
	int running = 0, ok = 0, forwarded = 0;

	while (next < *np || running) {
		struct pool_boot *b = *bp;
		pid_t pid;
		int st, hi;

		while (next < *np && !interrupted() &&
		       (hi = pick_host(h, nh)) >= 0) {
			struct measure_kernel *k = &m->k[b[next].k];

			b[next].host = hi;
			progress("boot %d of %s (run #%lld)%s%s%s",
				 b[next].idx + 1, k->label, k->run_id,
				 running ? ", next to others" : "",
				 nh > 1 ? " on " : "", nh > 1 ? h[hi].uri : "");
			fflush(stdout);
			fflush(stderr);
			pid = fork();
			if (pid < 0) {
				error_errno("cannot fork for a boot");
				break;
			}
			if (!pid)
				boot_child(m, &b[next], nh > 1 ? h[hi].uri :
								  NULL);
			b[next].pid = pid;
			wait_boot_row(m, &b[next]);
			running++;
			h[hi].running++;
			for (i = 0; i <= next; i++)
				if (b[i].pid > 0 && b[i].peers < running)
					b[i].peers = running;
			next++;
		}
		if (!running)
			break;	/* interrupted, no fork, or no host left */
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno != EINTR)
				return error_errno("waitpid");
			if (interrupted() && !forwarded) {
				for (i = 0; i < next; i++)
					if (b[i].pid > 0)
						kill(b[i].pid, SIGTERM);
				forwarded = 1;
			}
			continue;
		}
		for (i = 0; i < next; i++) {
			struct host *bh = &h[b[i].host];

			if (b[i].pid != pid)
				continue;
			b[i].pid = 0;
			b[i].ok = WIFEXITED(st) && !WEXITSTATUS(st);
			ok += b[i].ok;
			running--;
			bh->running--;
			if (run_mark_concurrent(m->db, m->k[b[i].k].run_id,
						b[i].idx, b[i].peers) < 0)
				log_warnx("boot %d of run #%lld ran with %d "
					  "at once", b[i].idx,
					  m->k[b[i].k].run_id, b[i].peers);
			if (b[i].ok || interrupted() || nh < 2)
				continue;
			/* failed on a host that answers: its own reason */
			if (!bh->lost && host_alive(bh->uri))
				continue;
			bh->lost = 1;
			if (!any_host_left(h, nh)) {
				error("host '%s' is gone, and no other host is "
				      "left", bh->uri);
				continue;
			}
			/* boot it again elsewhere, as a new boot */
			ALLOC_GROW(*bp, *np + 1, *alloc);
			b = *bp;
			b[*np] = b[i];
			b[*np].pid = 0;
			b[*np].peers = 0;
			b[*np].ok = 0;
			b[*np].idx = m->k[b[i].k].boots++;
			progress("host '%s' is gone: boot %d of %s is booted "
				 "again on another host as boot %d", bh->uri,
				 b[i].idx + 1, m->k[b[i].k].label,
				 b[*np].idx + 1);
			(*np)++;
		}
	}
	return ok;
}

/* boot @which[0..n) in that order, as many at once as the host allows */
static int measure_boots(struct measure *m, const size_t *which, size_t n)
{
	struct pool_boot *b = xcalloc(n ? n : 1, sizeof(*b));
	size_t nb = 0, i, alloc = n ? n : 1, nh;
	struct host *h;
	int slots = 0, ok = 0;

	nh = plan_hosts(m, &h);
	for (i = 0; i < nh; i++)
		slots += h[i].slots;

	for (i = 0; i < n; i++) {
		struct measure_kernel *k = &m->k[which[i]];

		if (k->reused)
			continue;
		b[nb].k = which[i];
		b[nb].idx = k->boots++;
		nb++;
	}
	if (slots > 1 && nb > 1) {
		progress("%zu boot(s), up to %d at once%s%s (icount: the "
			 "values do not depend on the host's load)", nb, slots,
			 nh > 1 ? " on " : "", nh > 1 ? "several hosts" : "");
		for (i = 0; nh > 1 && i < nh; i++)
			progress("host '%s': %d slot(s), QEMU %s, %s, %u cores, "
				 "%llu MiB available", h[i].uri, h[i].slots,
				 h[i].qemu ? h[i].qemu : "?",
				 h[i].arch ? h[i].arch : "?", h[i].cores,
				 h[i].avail_mib);
		ok = boot_pool(m, &b, &nb, &alloc, h, nh);
	} else {
		for (i = 0; i < nb; i++) {
			struct measure_kernel *k = &m->k[b[i].k];

			progress("boot %d of %s (run #%lld)", b[i].idx + 1,
				 k->label, k->run_id);
			ok += run_boot(m->cfg, m->db, k->run_id, b[i].idx) == 0;
		}
	}
	free(b);
	hosts_release(h, nh);
	return ok;
}

int measure_round(struct measure *m, const size_t *which, size_t n)
{
	return measure_boots(m, which, n);
}

/*
 * In icount mode all rounds go to the pool at once, and every other
 * round in reverse: the series' boots are the longer ones when it adds
 * work, and base, new, new, base on two slots ends when the sum of one
 * of each does (174 s at 100 GiB, against 200 s for base, new, base,
 * new). On the wall clock the rounds stay in order, one boot at a time.
 */
void measure_rounds(struct measure *m, int rounds)
{
	size_t *all = xcalloc(m->nr * rounds + 1, sizeof(*all));
	size_t i, n = 0;
	int r, pool = measure_slots(m) > 1;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < m->nr; i++)
			all[n++] = pool && r % 2 ? m->nr - 1 - i : i;
	measure_boots(m, all, n);
	free(all);
}

int measure_compare(struct measure *m, struct measure_pair p,
		    struct run_comparison *out)
{
	return compare_runs(m->db, m->k[p.base].run_id, m->k[p.new].run_id,
			    out);
}

/*
 * Could @max_boots boots a side ever decide @mc? Units grow with boots
 * (one per boot, or a boot's samples in icount mode); when even that many
 * cannot reach the rank test's alpha, more boots are wasted (icount's
 * once-per-boot first bind: 4 vs 4 is at best p = 0.029).
 */
static int reachable(const struct metric_comparison *mc, int max_boots)
{
	struct compare_opts def = COMPARE_OPTS_INIT;
	size_t nb = mc->c.base.n, nn = mc->c.new.n;

	if (mc->base_boots > 0)
		nb = nb * max_boots / mc->base_boots;
	if (mc->new_boots > 0)
		nn = nn * max_boots / mc->new_boots;
	if (nb < 2 || nn < 2)
		return max_boots > mc->base_boots || max_boots > mc->new_boots;
	return mann_whitney_min_p(nb, nn) < def.alpha;
}

/* is any metric of interest of this pair ambiguous? its name in *what */
static int pair_ambiguous(struct measure *m, struct measure_pair p,
			  const char *workload, const char *metric,
			  int max_boots, char **what)
{
	struct run_comparison rc;
	size_t i;
	int amb = 0;

	if (measure_compare(m, p, &rc) < 0)
		return 0;
	for (i = 0; i < rc.nr && !amb; i++) {
		const struct metric_comparison *mc = &rc.m[i];

		if (workload && strcmp(mc->workload, workload))
			continue;
		if (metric && strcmp(mc->metric, metric))
			continue;
		if (!mc->c.ambiguous)
			continue;
		if (!reachable(mc, max_boots))
			continue;
		amb = 1;
		*what = xstrfmt("%s %s%s%s: %s", mc->workload,
				mc->variant[0] ? mc->variant : "",
				mc->variant[0] ? " " : "", mc->metric,
				mc->c.reason);
	}
	run_comparison_release(&rc);
	return amb;
}

int measure_adapt(struct measure *m, const struct measure_pair *pairs,
		  size_t npairs, const char *workload, const char *metric,
		  int max_boots)
{
	unsigned char *want = xcalloc(m->nr ? m->nr : 1, 1);
	size_t *which = xcalloc(m->nr ? m->nr : 1, sizeof(*which));
	int added = 0;

	for (;;) {
		size_t i, n = 0;

		memset(want, 0, m->nr);
		for (i = 0; i < npairs; i++) {
			struct measure_pair p = pairs[i];
			char *what = NULL;

			if (m->k[p.base].boots >= max_boots &&
			    m->k[p.new].boots >= max_boots)
				continue;
			if (!pair_ambiguous(m, p, workload, metric, max_boots,
					    &what))
				continue;
			progress("ambiguous, %s vs %s: %s", m->k[p.base].label,
				 m->k[p.new].label, what);
			free(what);
			want[p.base] = want[p.new] = 1;
		}
		for (i = 0; i < m->nr; i++)	/* a twin's run is its root's */
			if (want[i] && m->k[i].twin)
				want[m->k[i].twin - 1] = 1;
		for (i = 0; i < m->nr; i++)
			if (want[i] && !m->k[i].reused &&
			    m->k[i].boots < max_boots)
				which[n++] = i;
		if (!n)
			break;
		progress("adaptive repeat: one more boot of %zu kernel(s) "
			 "(budget %d boots each)", n, max_boots);
		measure_round(m, which, n);
		added++;
	}
	m->extra_rounds += added;
	free(want);
	free(which);
	return added;
}

size_t measure_finish(struct measure *m)
{
	size_t i, ok = 0;

	for (i = 0; i < m->nr; i++)
		ok += m->k[i].reused ||
		      run_finish(m->db, m->k[i].run_id) > 0;
	return ok;
}
