// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-daemon.c - `mmci daemon`: the service. One process per database.
 *
 * The loop (one thread; signal handlers only set flags, as ntpd does):
 *   - every MMCI_POLL_S seconds, poll the sources as child processes:
 *     `mmci ingest discover` (new series on the list: queues 'series'
 *     jobs) and `mmci ingest tree` (new heads: queues 'nightly' jobs);
 *   - run the oldest queued job as a child `mmci test-series|nightly|
 *     bisect --job N`, one per libvirt host (MMCI_LIBVIRT_URIS), its
 *     output in <data>/jobs/N.log; a nightly regression queues bisects;
 *   - report every finished job once: the mail (dry-run unless
 *     MMCI_MAIL_SEND=1), marked in jobs.reported_at; a mail the SMTP
 *     server did not take is sent again at every poll;
 *   - serve the web pages (web.c) from threads of libmicrohttpd.
 *
 * Crashes: children get SIGTERM when the daemon dies (run-command.c).
 * At start, jobs left 'running' by a dead process are queued again with
 * their interrupted runs and boots marked failed (job_recover()), and
 * domains of dead owners are destroyed (vm_cleanup_stale()). Builds are
 * cached and samples are committed per boot, so a retried job redoes at
 * most the boots of its unfinished runs and loses nothing stored.
 * SIGTERM/SIGINT: stop the jobs, queue them again, exit 0. SIGHUP: read
 * the settings file (MMCI_CONFIG) again.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/file.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "attribution.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "job.h"
#include "report.h"
#include "run-command.h"
#include "smtp.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "vm.h"
#include "web.h"

static const char daemon_usage[] =
	"usage: mmci daemon [--once] [--listen ADDR:PORT | --no-web]\n"
	"\n"
	"Poll the sources, run the queued jobs, mail the reports and serve\n"
	"the web pages, until SIGTERM. Settings come from the environment\n"
	"and from the file MMCI_CONFIG names (MMCI_NAME=value lines, read\n"
	"again on SIGHUP):\n"
	"  MMCI_POLL_S=300           seconds between polls of the sources\n"
	"  MMCI_SOURCES=discover,tree  what to poll ('' for nothing)\n"
	"  MMCI_BASE=debian-6.12     base of a series without a known base\n"
	"  MMCI_RUN_ARGS=            run options for every job (--nvdimm 4G)\n"
	"  MMCI_PER_PATCH=1          series jobs measure every patch\n"
	"  MMCI_LIBVIRT_URIS=        one job at a time per URI (default: one\n"
	"                            job, MMCI_LIBVIRT_URI or qemu:///system)\n"
	"  MMCI_WEB_LISTEN=127.0.0.1:8080, MMCI_MAIL_SEND=0, MMCI_SMTP_URL,\n"
	"  MMCI_MAIL_FROM, MMCI_WEB_URL   (see mmci report --help)\n"
	"A bad value (MMCI_POLL_S=3OO) stops the daemon from starting, with\n"
	"exit status 78; on SIGHUP a file with one is not used at all.\n"
	"\n"
	"  --once       poll once, run every queued job, report, exit\n"
	"  --listen A   serve the pages on A (MMCI_WEB_LISTEN)\n"
	"  --no-web     serve no pages\n";

/*
 * The children run the daemon's own binary, through the kernel's link to
 * it: after an upgrade (make install, a rebuild) the path names a new
 * file or none, and readlink() says "... (deleted)". The new version
 * takes over when the daemon is restarted, never half-way.
 */
#define SELF_EXE "/proc/self/exe"

/* seconds between looks for jobs of dead processes */
#define RECOVER_S 10

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

struct slot {
	char *uri;		/* NULL: the default connection */
	struct child_process cp;
	const char **argv;	/* owned strings, NULL-terminated */
	const char *env[3];
	char *env_uri, *log;
	long long job;		/* 0: idle */
};

struct daemon {
	struct mmci_config cfg;
	struct db db;
	struct slot *slots;
	size_t nr_slots;
	double next_poll;
	double next_recover;	/* monotonic s: next look for stale jobs */
	int once;
};

static const char *setting(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v ? v : def;
}

static int lock_database(const char *db_path)
{
	char *path = xstrfmt("%s.daemon.lock", db_path);
	char pid[32] = "";
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0) {
		error_errno("cannot open '%s'", path);
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		if (n > 0)
			pid[strcspn(pid, "\n")] = '\0';
		error("another mmci daemon%s%s%s is using '%s' (lock '%s')",
		      *pid ? " (pid " : "", pid, *pid ? ")" : "", db_path,
		      path);
		close(fd);
		free(path);
		return -1;
	}
	xsnprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, strlen(pid), 0) < 0)
		warning("cannot write the pid to '%s'", path);
	free(path);
	return fd;		/* held until exit */
}

/* the settings file: 0, or -1 when it is bad and nothing of it was used */
static int reload_settings(void)
{
	const char *path = getenv("MMCI_CONFIG");
	int n;

	if (!path || !*path)
		return 0;
	n = config_read_env_file(path);
	if (n < 0) {
		log_warnx("settings file '%s' not used: %s", path,
			  last_error());
		return -1;
	}
	log_info("settings: %d from '%s'", n, path);
	return 0;
}

static void split_words(const char *s, struct strbuf *tmp,
			const char ***argv, size_t *nr, size_t *alloc)
{
	char *w, *save = NULL;

	strbuf_reset(tmp);
	strbuf_addstr(tmp, s ? s : "");
	for (w = strtok_r(tmp->buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		ALLOC_GROW(*argv, *nr + 1, *alloc);
		(*argv)[(*nr)++] = xstrdup(w);
	}
}

static void argv_push(const char ***argv, size_t *nr, size_t *alloc,
		      char *owned)
{
	ALLOC_GROW(*argv, *nr + 1, *alloc);
	(*argv)[(*nr)++] = owned;
}

static void argv_free(const char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free((char *)argv[i]);
	free(argv);
}

/* the base of a series: its base-commit when the tree has it */
static char *series_base(struct daemon *d, long long series_id)
{
	char *bc = NULL;
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_oid oid;
	sqlite3_stmt *st = db_query(&d->db, "SELECT base_commit FROM series "
				    "WHERE id = ?", "i", series_id);

	if (st && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		bc = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	if (bc && tree_open(d->cfg.tree_dir, &repo) == 0 &&
	    git_oid_fromstr(&oid, bc) == 0 &&
	    git_commit_lookup(&commit, repo, &oid) == 0) {
		git_commit_free(commit);
		git_repository_free(repo);
		return bc;
	}
	git_repository_free(repo);
	free(bc);
	return xstrdup(setting("MMCI_BASE", "debian-6.12"));
}

/* the command line of queued job @id; NULL (job failed) if it has none */
static const char **job_argv(struct daemon *d, long long id)
{
	sqlite3_stmt *st = db_query(&d->db, "SELECT kind, coalesce(series_id, "
				    "0), series_ref, params FROM jobs WHERE id "
				    "= ?", "i", id);
	const char **argv = NULL;
	size_t nr = 0, alloc = 0;
	struct strbuf tmp = STRBUF_INIT;
	char *kind = NULL, *ref = NULL, *params = NULL;
	long long series = 0;

	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		kind = xstrdup(db_col_text(st, 0));
		series = sqlite3_column_int64(st, 1);
		ref = xstrdup(db_col_text(st, 2));
		params = xstrdup(db_col_text(st, 3));
	}
	sqlite3_finalize(st);
	if (!kind)
		goto fail;
	argv_push(&argv, &nr, &alloc, xstrdup(SELF_EXE));
	if (!strcmp(kind, "series") && series) {
		char *base = ref && *ref ? xstrdup(ref) :
					   series_base(d, series);

		argv_push(&argv, &nr, &alloc, xstrdup("test-series"));
		argv_push(&argv, &nr, &alloc, xstrfmt("--series=%lld", series));
		argv_push(&argv, &nr, &alloc, xstrfmt("--base=%s", base));
		free(base);
		if (config_number("MMCI_PER_PATCH"))
			argv_push(&argv, &nr, &alloc, xstrdup("--per-patch"));
	} else if (!strcmp(kind, "nightly")) {
		argv_push(&argv, &nr, &alloc, xstrdup("nightly"));
	} else if (!strcmp(kind, "bisect") && ref && strstr(ref, "..")) {
		json_t *p = json_loads(params, 0, NULL);
		const char *w = json_string_value(json_object_get(p, "workload"));
		const char *v = json_string_value(json_object_get(p, "variant"));
		const char *m = json_string_value(json_object_get(p, "metric"));
		char *dots = strstr(ref, "..");

		if (!m) {
			json_decref(p);
			goto fail;
		}
		argv_push(&argv, &nr, &alloc, xstrdup("bisect"));
		argv_push(&argv, &nr, &alloc, xstrndup(ref, dots - ref));
		argv_push(&argv, &nr, &alloc, xstrdup(dots + 2));
		argv_push(&argv, &nr, &alloc, xstrfmt("--metric=%s", m));
		if (w)
			argv_push(&argv, &nr, &alloc,
				  xstrfmt("--workload=%s", w));
		if (v)
			argv_push(&argv, &nr, &alloc,
				  xstrfmt("--variant=%s", v));
		json_decref(p);
	} else {
		goto fail;
	}
	argv_push(&argv, &nr, &alloc, xstrfmt("--job=%lld", id));
	split_words(setting("MMCI_RUN_ARGS", ""), &tmp, &argv, &nr, &alloc);
	argv_push(&argv, &nr, &alloc, NULL);
	strbuf_release(&tmp);
	free(kind);
	free(ref);
	free(params);
	return argv;
fail:
	error("job #%lld: cannot run a job of kind '%s'%s", id,
	      kind ? kind : "?", ref ? "" : " (no parameters)");
	argv_push(&argv, &nr, &alloc, NULL);
	argv_free(argv);
	strbuf_release(&tmp);
	free(kind);
	free(ref);
	free(params);
	return NULL;
}

static void slot_start(struct daemon *d, struct slot *s, long long id)
{
	char *dir = data_path(&d->cfg, "jobs");
	size_t i;

	/* claim it before the child does, so no other slot takes it */
	if (job_claim(&d->db, id) != 1) {
		free(dir);
		return;
	}
	s->argv = job_argv(d, id);
	if (!s->argv) {
		job_end(&d->db, id, 0, last_error(), NULL);
		free(dir);
		return;
	}
	free(s->log);
	s->log = xstrfmt("%s/%lld.log", dir, id);
	free(dir);
	memset(&s->cp, 0, sizeof(s->cp));
	s->cp.argv = s->argv;
	s->cp.log_path = s->log;
	i = 0;
	if (s->uri) {
		free(s->env_uri);
		s->env_uri = xstrfmt("MMCI_LIBVIRT_URI=%s", s->uri);
		s->env[i++] = s->env_uri;
	}
	s->env[i] = NULL;
	s->cp.env = s->env;
	if (start_command(&s->cp) < 0) {
		job_end(&d->db, id, 0, last_error(), NULL);
		argv_free(s->argv);
		s->argv = NULL;
		return;
	}
	s->job = id;
	log_info("job #%lld started on %s (pid %ld, log %s)", id,
		 s->uri ? s->uri : "the default libvirt", (long)s->cp.pid,
		 s->log);
}

static void slot_reap(struct daemon *d, struct slot *s, int code)
{
	long long running = db_int(&d->db, 0, "SELECT count(*) FROM jobs "
				   "WHERE id = ? AND status = 'running'", "i",
				   s->job);

	/* a child that died without saying how: its job failed */
	if (running) {
		char *why = xstrfmt("the job's process ended with status %d "
				    "without recording a result (log %s)",
				    code, s->log);

		job_end(&d->db, s->job, 0, why, NULL);
		free(why);
	}
	log_info("job #%lld ended (exit %d): %s", s->job, code,
		 db_int(&d->db, 0, "SELECT status = 'done' FROM jobs WHERE "
			"id = ?", "i", s->job) ? "done" : "failed");
	argv_free(s->argv);
	s->argv = NULL;
	s->job = 0;
}

static void poll_sources(struct daemon *d)
{
	struct strbuf list = STRBUF_INIT;
	char *w, *save = NULL;

	strbuf_addstr(&list, setting("MMCI_SOURCES", "discover,tree"));
	for (w = strtok_r(list.buf, ", ", &save); w && !stop_requested;
	     w = strtok_r(NULL, ", ", &save)) {
		const char *argv[] = { SELF_EXE, "ingest", w, NULL };
		char *dir = data_path(&d->cfg, "jobs");
		char *log = xstrfmt("%s/poll-%s.log", dir, w);
		struct child_process cp = CHILD_PROCESS_INIT;
		int rc;

		if (strcmp(w, "discover") && strcmp(w, "tree")) {
			log_warnx("MMCI_SOURCES: unknown source '%s'", w);
			goto next;
		}
		cp.argv = argv;
		cp.log_path = log;
		cp.timeout_s = 1800;
		rc = run_command(&cp);
		if (rc)
			log_warnx("polling '%s' failed (exit %d): see %s", w,
				  rc, log);
		else
			log_debug("polled '%s'", w);
next:
		free(dir);
		free(log);
	}
	strbuf_release(&list);
}

/*
 * The mail of a finished job, as the kernel test robot sends them: a
 * series job always (threaded under the series, with the per-patch table
 * and the claims appended to the comparison), a nightly only when a
 * metric got worse, a bisection when it named a commit. Dry-run (the
 * outbox) unless MMCI_MAIL_SEND=1 and MMCI_SMTP_URL say where to send.
 */
static int daemon_report_job(struct db *db, const struct mmci_config *cfg,
			     long long job)
{
	sqlite3_stmt *st = db_query(db, "SELECT kind, status, result, "
				    "coalesce(series_id, 0) FROM jobs WHERE "
				    "id = ?", "i", job);
	struct report_input in = { 0 };
	struct report r = { 0 };
	struct smtp_settings smtp;
	struct attribution attr = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf extra = STRBUF_INIT;
	char *kind = NULL, *status = NULL, *outbox = NULL, *path = NULL;
	const char *first_bad = NULL;
	json_t *res = NULL;
	long long series = 0;
	int ret = 0, send = config_number("MMCI_MAIL_SEND");

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		kind = xstrdup(db_col_text(st, 0));
		status = xstrdup(db_col_text(st, 1));
		res = json_loads(db_col_text(st, 2), 0, NULL);
		series = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (!kind || strcmp(status, "done") || !res)
		goto out;	/* a failed job is in the log and on the page */
	in.base_run = json_integer_value(json_object_get(res, "base_run"));
	in.new_run = json_integer_value(json_object_get(res, "new_run"));
	if (!strcmp(kind, "series")) {
		in.series_id = series;
		if (attribution_load(db, job, &attr) == 0 && attr.nr > 2)
			attribution_format(&attr, &extra);
		if (compare_runs(db, in.base_run, in.new_run, &rc) == 0)
			claims_format(db, series, attr.nr > 2 ? &attr : NULL,
				      &rc, &extra);
	} else if (!strcmp(kind, "nightly")) {
		if (json_integer_value(json_object_get(res, "worse")) <= 0)
			goto out;
		in.commit = json_string_value(json_object_get(res, "commit"));
	} else if (!strcmp(kind, "bisect")) {
		first_bad = json_string_value(json_object_get(res,
							      "first_bad"));
		if (!first_bad)
			goto out;
		in.commit = first_bad;
	} else {
		goto out;
	}
	if (!in.base_run || !in.new_run)
		goto out;
	if (report_compose(db, &in, &r) < 0) {
		ret = error("job #%lld: no report: %s", job, last_error());
		goto out;
	}
	if (extra.len) {
		strbuf_rtrim(&r.text);
		strbuf_addstr(&r.text, "\n\n");
		strbuf_addbuf(&r.text, &extra);
	}
	smtp_settings_init(&smtp);
	if (send && !smtp.url) {
		warning("MMCI_MAIL_SEND=1 but no MMCI_SMTP_URL: dry run");
		send = 0;
	}
	outbox = data_path(cfg, "outbox");
	ret = report_deliver(db, &r, outbox, send ? &smtp : NULL, &path, NULL);
	log_info("job #%lld: report %s: %s", job,
		 ret < 0 ? "not sent, kept for a retry" :
		 send ? "sent" : "written (dry run)", path ? path : "-");
out:
	json_decref(res);
	report_release(&r);
	attribution_release(&attr);
	run_comparison_release(&rc);
	strbuf_release(&extra);
	free(kind);
	free(status);
	free(outbox);
	free(path);
	return ret;
}

/*
 * Mails the SMTP server refused or could not take (down, full, 4xx) stay
 * 'failed' in the mails table with their .eml: every poll sends them again
 * until the server accepts them.
 */
static void retry_mails(struct daemon *d)
{
	struct smtp_settings smtp;
	int sent, failed;

	if (!config_number("MMCI_MAIL_SEND"))
		return;
	smtp_settings_init(&smtp);
	if (!smtp.url || !db_int(&d->db, 0, "SELECT count(*) FROM mails "
				  "WHERE status = 'failed'", ""))
		return;
	if (report_retry(&d->db, &smtp, &sent, &failed) == 0)
		log_info("mail retry: %d sent, %d still failing", sent, failed);
}

static void report_finished(struct daemon *d)
{
	sqlite3_stmt *st = db_query(&d->db, "SELECT id FROM jobs WHERE status "
				    "IN ('done', 'failed') AND reported_at IS "
				    "NULL ORDER BY id", "");
	long long *ids = NULL;
	size_t nr = 0, alloc = 0, i;

	if (!st)
		return;
	/* after a failed read, the jobs read are reported; the rest next turn */
	while (db_step(&d->db, st) == DB_ROW) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (i = 0; i < nr; i++) {
		/* marked first, and only once: its mail never goes twice */
		if (job_mark_reported(&d->db, ids[i]) != 1)
			continue;
		/* a mail that could not be sent is kept for a retry */
		daemon_report_job(&d->db, &d->cfg, ids[i]);
	}
	free(ids);
}

static int busy(const struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_slots; i++)
		if (d->slots[i].job)
			return 1;
	return 0;
}

static void start_jobs(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_slots && !stop_requested; i++) {
		long long id;

		if (d->slots[i].job)
			continue;
		id = db_int(&d->db, 0, "SELECT id FROM jobs WHERE status = "
			    "'queued' ORDER BY id LIMIT 1", "");
		if (!id)
			return;
		slot_start(d, &d->slots[i], id);
	}
}

static void reap_jobs(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_slots; i++) {
		struct slot *s = &d->slots[i];
		int code;

		if (s->job && poll_command(&s->cp, &code) == 1)
			slot_reap(d, s, code);
	}
}

/* SIGTERM: stop the children, queue their jobs again */
static void stop_jobs(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_slots; i++) {
		struct slot *s = &d->slots[i];

		if (!s->job)
			continue;
		log_info("stopping job #%lld (pid %ld)", s->job,
			 (long)s->cp.pid);
		kill(-s->cp.pid, SIGTERM);
		kill(s->cp.pid, SIGTERM);
		finish_command(&s->cp);
		argv_free(s->argv);
		s->argv = NULL;
		s->job = 0;
	}
	/* their owners are gone now: the same path as after a crash */
	if (job_recover(&d->db) > 0)
		vm_cleanup_stale();
}

/*
 * Jobs left 'running' by a process that is gone (a daemon killed with -9,
 * a job child that was still dying when this daemon started, a crashed
 * `mmci test-series`) are queued again, their domains destroyed. Only
 * while no child of ours runs: a job this daemon has just claimed has no
 * owner until its child writes one, and must not be taken back.
 */
static void recover_stale(struct daemon *d)
{
	int n;

	if (busy(d))
		return;
	n = job_recover(&d->db);
	if (n > 0)
		log_info("%d interrupted job(s) queued again", n);
	if (n <= 0)
		return;
	n = vm_cleanup_stale();
	if (n > 0)
		log_info("destroyed %d domain(s) of dead processes", n);
}

static void make_slots(struct daemon *d)
{
	struct strbuf list = STRBUF_INIT;
	char *w, *save = NULL;
	size_t alloc = 0;

	strbuf_addstr(&list, setting("MMCI_LIBVIRT_URIS", ""));
	for (w = strtok_r(list.buf, " ,", &save); w;
	     w = strtok_r(NULL, " ,", &save)) {
		ALLOC_GROW(d->slots, d->nr_slots + 1, alloc);
		memset(&d->slots[d->nr_slots], 0, sizeof(*d->slots));
		d->slots[d->nr_slots++].uri = xstrdup(w);
	}
	if (!d->nr_slots) {
		d->slots = xcalloc(1, sizeof(*d->slots));
		d->nr_slots = 1;
	}
	strbuf_release(&list);
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "listen", required_argument, NULL, 'l' },
		{ "no-web", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon d = { 0 };
	struct web_server *web = NULL;
	struct sigaction sa;
	const char *listen_addr = NULL, *listen_from = "--listen";
	int c, no_web = 0, lock_fd, n, ret = 0;
	size_t i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': d.once = 1; break;
		case 'l': listen_addr = optarg; break;
		case 'n': no_web = 1; break;
		case 'h':
			fputs(daemon_usage, stdout);
			return 0;
		default:
			fputs(daemon_usage, stderr);
			return 129;
		}
	}
	if (argc != optind) {
		fputs(daemon_usage, stderr);
		return 129;
	}
	/*
	 * A bad value refuses to start (a typo in MMCI_POLL_S polled every
	 * second); EX_CONFIG, which mmci.service does not restart on. On
	 * SIGHUP a bad file is not used and the settings stay as they were.
	 */
	if (reload_settings() < 0 || config_check() < 0) {
		error("mmci daemon does not start with a bad setting (see "
		      "mmci daemon --help and systemd/mmci.conf.example)");
		return EX_CONFIG;
	}
	setup_command(&d.cfg, &d.db);
	lock_fd = lock_database(d.cfg.db_path);
	if (lock_fd < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	n = job_recover(&d.db);
	if (n > 0)
		log_info("%d interrupted job(s) queued again", n);
	n = vm_cleanup_stale();
	if (n > 0)
		log_info("destroyed %d domain(s) of dead processes", n);
	d.next_recover = now_s() + RECOVER_S;
	make_slots(&d);
	if (!listen_addr) {
		listen_addr = setting("MMCI_WEB_LISTEN", WEB_DEFAULT_LISTEN);
		listen_from = "MMCI_WEB_LISTEN";
	}
	if (!no_web && *listen_addr && strcmp(listen_addr, "off")) {
		if (web_start(&d.cfg, listen_addr, &web) < 0) {
			error("the web pages cannot be served on %s (%s)",
			      listen_addr, listen_from);
			ret = 1;
			goto out;
		}
		printf("mmci daemon: pid %ld, web pages on port %d\n",
		       (long)getpid(), web_port(web));
	} else {
		printf("mmci daemon: pid %ld, no web pages\n", (long)getpid());
	}
	fflush(stdout);

	while (!stop_requested) {
		double now = now_s();

		if (reload_requested) {
			reload_requested = 0;
			reload_settings();
		}
		if (now >= d.next_poll) {
			poll_sources(&d);
			retry_mails(&d);
			d.next_poll = now_s() + config_number("MMCI_POLL_S");
		}
		reap_jobs(&d);
		report_finished(&d);
		if (now >= d.next_recover) {
			recover_stale(&d);
			d.next_recover = now + RECOVER_S;
		}
		start_jobs(&d);
		if (d.once && !busy(&d) &&
		    !db_int(&d.db, 0, "SELECT count(*) FROM jobs WHERE status "
			    "= 'queued'", ""))
			break;
		sleep(1);	/* a signal ends it early */
	}
	if (stop_requested)
		log_info("stopping on a signal");
	stop_jobs(&d);
out:
	web_stop(web);
	for (i = 0; i < d.nr_slots; i++) {
		free(d.slots[i].uri);
		free(d.slots[i].env_uri);
		free(d.slots[i].log);
	}
	free(d.slots);
	db_close(&d.db);
	config_release(&d.cfg);
	close(lock_fd);
	return ret;
}
