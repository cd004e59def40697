// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-daemon.c - `mmci daemon`: the service. One process per database.
 *
 * The loop (one thread; signal handlers only set flags and write a byte
 * to a self-pipe, as ntpd does) never waits for slow work. Each turn
 * looks at its children without waiting for them, starts what is due,
 * and sleeps in poll() on the self-pipe for at most a second, so a
 * SIGTERM is answered at once:
 *   - every MMCI_POLL_S seconds, poll the sources, one child at a time:
 *     `mmci ingest discover` (new series on the list: queues 'series'
 *     jobs), `mmci ingest inbox` (the same, every message of the list
 *     from its public-inbox history), `mmci ingest tree` (new heads:
 *     queues 'nightly' jobs) and `mmci ingest commits` (akpm's
 *     mm-commits notices, linked to the stored patches),
 *     each killed after MMCI_POLL_TIMEOUT_S (1800 s), its output in
 *     <data>/jobs/poll-<source>.log; then one `mmci report --retry`
 *     child sends the mails the SMTP server did not take;
 *   - run the oldest queued job as a child `mmci test-series|nightly|
 *     bisect --job N`, one per libvirt host (MMCI_LIBVIRT_URIS), its
 *     output in <data>/jobs/N.log; a nightly regression queues bisects;
 *   - report every finished job once, through a child `mmci report
 *     --job N` at a time (cmd-report.c), which marks jobs.reported_at
 *     (job_mark_reported()) and writes the mail (dry-run unless
 *     MMCI_MAIL_SEND=1); killed after twice MMCI_SMTP_TIMEOUT and a
 *     minute; the SMTP password (MMCI_SMTP_PASSWORD, or the one of
 *     MMCI_SMTP_URL) reaches it on its stdin, never in an environment or
 *     an argument (run-command.c gives children none of the secrets);
 *   - serve the web pages: a child `mmci web --listen-fd=3` on the socket
 *     the daemon bound, started again when it ends.
 * Mail, feeds and HTTP are parsed as the service user (service-user.h):
 * the web child and the `discover` poll run as that user; the daemon
 * itself has no thread and parses none of them.
 * Before, a poll and the SMTP session ran inside the loop: a list
 * server that accepted and never answered held the loop (no job reaped
 * or started, SIGTERM unanswered) for the whole fetch timeout, 28 s of
 * a 30 s MMCI_FETCH_TIMEOUT as measured, up to the poll's 1800 s limit.
 *
 * Crashes: children get SIGTERM when the daemon dies (run-command.c).
 * At start, jobs left 'running' by a dead process are queued again with
 * their interrupted runs and boots marked failed (job_recover()), and
 * domains of dead owners are destroyed (vm_cleanup_stale()). Builds are
 * cached and samples are committed per boot, so a retried job redoes at
 * most the boots of its unfinished runs and loses nothing stored.
 * SIGTERM/SIGINT: kill the poll and the mail child, stop the jobs, queue
 * them again, exit 0. SIGHUP: read the settings file (MMCI_CONFIG) again.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "aim.h"
#include "base.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "job.h"
#include "priv.h"
#include "run-command.h"
#include "service-user.h"
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
	"  MMCI_POLL_TIMEOUT_S=1800  a poll still running then is killed\n"
	"  MMCI_SOURCES=discover,tree,commits  what to poll ('' for\n"
	"                            nothing); commits: mm-commits' notices;\n"
	"                            inbox: each message of the list, from\n"
	"                            its public-inbox git (MMCI_INBOX_URL)\n"
	"  MMCI_BASE_BRANCHES=mm-unstable,mm-new, then MMCI_BASE=debian-6.12:\n"
	"                            a series' base when its base-commit is\n"
	"                            not in the tree after MMCI_BASE_WAIT_S\n"
	"                            (86400): the first it applies to\n"
	"  MMCI_NIGHTLY_BRANCHES=    the fetched branches that get nightly\n"
	"                            jobs (mm-new); empty: every one\n"
	"  MMCI_RUN_ARGS=            run options for every job (--nvdimm 4G)\n"
	"  MMCI_PER_PATCH=1          series jobs measure every patch (above 8\n"
	"                            patches under icount: the steps that\n"
	"                            moved, by bisection)\n"
	"  MMCI_LIBVIRT_URIS=        one job at a time per URI (default: one\n"
	"                            job, MMCI_LIBVIRT_URI or qemu:///system);\n"
	"                            icount boots go to all of them (mmci hosts)\n"
	"  MMCI_LIBVIRT_POOL=mmci    a remote host's storage pool\n"
	"  MMCI_WEB_LISTEN=127.0.0.1:8080, MMCI_MAIL_SEND=0, MMCI_SMTP_URL,\n"
	"  MMCI_MAIL_FROM, MMCI_WEB_URL   (see mmci report --help)\n"
	"  MMCI_USER=mmci            as root: parse mail, feeds and HTTP as\n"
	"                            this user, which owns the database\n"
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

/* a report child that ended before marking its job: tries, and the pause */
#define MAIL_TRIES 3
#define MAIL_RETRY_S 60

/* after SIGTERM, a poll or mail child still there this long is killed */
#define TASK_GRACE_MS 500

/* a web server child that ended is started again after this long */
#define WEB_RESTART_S 2
/* and has this long after SIGTERM: web_stop() waits 5 s for its worker */
#define WEB_GRACE_MS 6000

static volatile sig_atomic_t stop_requested, reload_requested;
static int wake_fd = -1;	/* the self-pipe's write end */

static void on_signal(int sig)
{
	int saved = errno;
	ssize_t n;

	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
	/* wakes the loop's poll(); a full pipe has woken it already */
	n = write(wake_fd, "", 1);
	(void)n;
	errno = saved;
}

struct slot {
	char *uri;		/* NULL: the default connection */
	struct child_process cp;
	const char **argv;	/* owned strings, NULL-terminated */
	const char *env[3];
	char *env_uri, *log;
	long long job;		/* 0: idle */
};

/* a child of the loop that is not a job: a poll of a source, a mail */
struct task {
	struct child_process cp;
	const char *argv[6];
	char *what;		/* "polling 'discover'", for messages; owned */
	char *log;		/* owned; NULL: the daemon's stderr */
	unsigned int limit_s;	/* s: killed after this; 0: never */
	long long job;		/* the job a report child mails, or 0 */
	int pass_fd;		/* > 0: the child's fd 3 */
	const char *env[2];	/* added to the child's environment */
	unsigned int grace_ms;	/* SIGTERM to SIGKILL; 0: TASK_GRACE_MS */
	int running;
};

/* a job whose report child ended before marking it */
struct mail_failure {
	long long job;
	int tries;
	double not_before;	/* monotonic s */
};

struct daemon {
	struct mmci_config cfg;
	struct db db;
	struct slot *slots;
	size_t nr_slots;
	double next_poll;
	double next_recover;	/* monotonic s: next look for stale jobs */
	int once;
	struct task poll, mail, web;
	struct service_user su;	/* parses mail, feeds and HTTP as root's proxy */
	int web_fd;		/* the listening socket, -1: no pages */
	double web_restart;	/* monotonic s: start the web child again */
	char **sources;		/* still to poll in this round; owned */
	size_t nr_sources, next_source;
	int retry_due;		/* send failed mails again after the polls */
	int reports_pending;	/* the last look found a job to report */
	struct mail_failure *failures;
	size_t nr_failures, alloc_failures;
	int wake_rd;		/* the self-pipe's read end */
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

/*
 * A commit or ref name from a jobs row, before it becomes an argument of
 * a root child: the rows belong to the service user, and a GOOD of
 * "--config=/etc/shadow" would be an option. Letters, digits and
 * "._/-~^" only, not starting with '-', no "..": 1 when it may be used.
 */
static int job_ref_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > 255 || *s == '-')
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/-~^", s[i]))
			return 0;
	return !memmem(s, len, "..", 2);
}

/* a workload, variant or metric name of a bisect job's parameters */
static int job_word_ok(const char *s)
{
	size_t n = 0;

	if (!s || *s == '-')
		return 0;
	for (; s[n]; n++)
		if (n >= 128 || (!isalnum((unsigned char)s[n]) &&
				 !strchr("_.,=-", s[n])))
			return 0;
	return n > 0;
}

/*
 * The command line of queued job @id; NULL (job failed) if it has none.
 * A series job without a ref gets its base from base_choose() here; *note
 * is what it says (owned), and *defer, when the job is to wait for its
 * base-commit, the time to try again.
 */
static const char **job_argv(struct daemon *d, long long id, char **note,
			     double *defer)
{
	sqlite3_stmt *st = db_query(&d->db, "SELECT kind, coalesce(series_id, "
				    "0), series_ref, params, created_at FROM "
				    "jobs WHERE id = ?", "i", id);
	const char **argv = NULL;
	size_t nr = 0, alloc = 0;
	struct strbuf tmp = STRBUF_INIT;
	char *kind = NULL, *ref = NULL, *params = NULL;
	struct aim aim = AIM_INIT;
	long long series = 0;
	double created = 0;
	int step;

	*note = NULL;
	*defer = 0;

	if (!st)
		return NULL;
	step = db_step(&d->db, st);
	if (step == DB_ROW) {
		kind = xstrdup(db_col_text(st, 0));
		series = sqlite3_column_int64(st, 1);
		ref = xstrdup(db_col_text(st, 2));
		params = xstrdup(db_col_text(st, 3));
		created = sqlite3_column_double(st, 4);
	}
	sqlite3_finalize(st);
	if (step < 0)
		return NULL;	/* after error(): the job fails with it */
	if (!kind)
		goto fail;
	argv_push(&argv, &nr, &alloc, xstrdup(SELF_EXE));
	if (!strcmp(kind, "series") && series) {
		struct base_choice bc;
		char *base;

		if (ref && *ref) {
			base = xstrdup(ref);
		} else {
			if (base_choose(&d->db, &d->cfg, series, created,
					(double)time(NULL), &bc) < 0)
				goto fail_said;
			*note = bc.why;
			bc.why = NULL;
			if (bc.outcome == BASE_WAIT) {
				/* again at the next poll, which may fetch it */
				*defer = (double)time(NULL) +
					 config_number("MMCI_POLL_S");
				if (*defer > bc.wait_until)
					*defer = bc.wait_until;
				base_choice_release(&bc);
				goto fail_said;
			}
			if (bc.outcome == BASE_NONE) {
				error("%s", *note);
				base_choice_release(&bc);
				goto fail_said;
			}
			base = xstrdup(bc.commit);
			base_choice_release(&bc);
		}
		argv_push(&argv, &nr, &alloc, xstrdup("test-series"));
		argv_push(&argv, &nr, &alloc, xstrfmt("--series=%lld", series));
		argv_push(&argv, &nr, &alloc, xstrfmt("--base=%s", base));
		free(base);
		/* every step of a short series, bisected steps of a long
		 * one (series-job.h) */
		if (config_number("MMCI_PER_PATCH"))
			argv_push(&argv, &nr, &alloc,
				  xstrdup("--steps=auto"));
		/* what the series changes, chosen by the ingest (aim.h);
		 * every value checked before it is an option; MMCI_RUN_ARGS
		 * comes after and overrides it */
		switch (aim_from_params(params, &aim)) {
		case 1: {
			struct strbuf w = STRBUF_INIT;

			aim_workloads(aim.workloads, &w);
			argv_push(&argv, &nr, &alloc,
				  xstrfmt("--workloads=%s", w.buf));
			if (aim.nvdimm_mib)
				argv_push(&argv, &nr, &alloc,
					  xstrfmt("--nvdimm=%lldM",
						  aim.nvdimm_mib));
			strbuf_release(&w);
			break;
		}
		case 0:
			break;
		default:
			aim_release(&aim);
			goto fail_said;
		}
		aim_release(&aim);
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
		if (!job_ref_ok(ref, dots - ref) ||
		    !job_ref_ok(dots + 2, strlen(dots + 2)) ||
		    !job_word_ok(m) || (w && !job_word_ok(w)) ||
		    (v && *v && !job_word_ok(v))) {
			error("job #%lld: refused: its range '%.80s' or "
			      "metric is not a commit, ref or name (letters, "
			      "digits, '._/-~^', not starting with '-')", id,
			      ref);
			json_decref(p);
			goto fail_said;
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
fail_said:
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
	char *dir = data_path(&d->cfg, "jobs"), *note = NULL;
	double defer = 0;
	size_t i;

	/* claim it before the child does, so no other slot takes it */
	if (job_claim(&d->db, id) != 1) {
		free(dir);
		return;
	}
	s->argv = job_argv(d, id, &note, &defer);
	if (!s->argv && defer > 0) {
		if (job_defer(&d->db, id, defer, note) == 0)
			log_info("job #%lld: %s", id, note);
		else
			job_fail(&d->db, id, last_error());
		free(note);
		free(dir);
		return;
	}
	if (!s->argv) {
		if (note && job_set_base_note(&d->db, id, note) < 0)
			log_warnx("job #%lld: its note is not recorded: %s",
				  id, note);
		job_fail(&d->db, id, last_error());
		free(note);
		free(dir);
		return;
	}
	free(s->log);
	s->log = xstrfmt("%s/%lld.log", dir, id);
	free(dir);
	if (note) {
		/* the first line of the job's log, and on the job */
		FILE *f = fopen(s->log, "a");

		if (f) {
			fprintf(f, "%s\n", note);
			fclose(f);
		}
		log_info("job #%lld: %s", id, note);
		if (job_set_base_note(&d->db, id, note) < 0)
			log_warnx("job #%lld: its note is not recorded", id);
		free(note);
	}
	{
		/* what the job was asked to do, above what it says */
		FILE *f = fopen(s->log, "a");

		if (f) {
			fputs("job:", f);
			for (i = 1; s->argv[i]; i++)
				fprintf(f, " %s", s->argv[i]);
			fputc('\n', f);
			fclose(f);
		}
	}
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
	/* a job boots through mmci-priv, when the daemon runs under it */
	s->cp.priv_fd = priv_active() ? priv_fd() : 0;
	if (start_command(&s->cp) < 0) {
		job_fail(&d->db, id, last_error());
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

		job_fail(&d->db, s->job, why);
		free(why);
	}
	log_info("job #%lld ended (exit %d): %s", s->job, code,
		 db_int(&d->db, 0, "SELECT status = 'done' FROM jobs WHERE "
			"id = ?", "i", s->job) ? "done" : "failed");
	argv_free(s->argv);
	s->argv = NULL;
	s->job = 0;
}

/* ---- polls and mails: children the loop starts and reaps ------------ */

static void task_reset(struct task *t)
{
	free(t->what);
	free(t->log);
	free((char *)t->argv[2]);	/* the one owned argument */
	memset(t, 0, sizeof(*t));
}

/* @su: the service user to run as, or NULL for root's own work */
static int task_start(struct task *t, const char *what, int stdin_fd,
		      const struct service_user *su)
{
	memset(&t->cp, 0, sizeof(t->cp));
	t->cp.argv = t->argv;
	t->cp.log_path = t->log;
	t->cp.stdin_fd = stdin_fd;
	t->cp.pass_fd = t->pass_fd;
	t->cp.env = t->env;
	if (su)
		service_user_apply(su, &t->cp);
	t->what = xstrdup(what);
	if (start_command(&t->cp) < 0) {
		log_warnx("%s: not started: %s", what, last_error());
		task_reset(t);
		return -1;
	}
	t->running = 1;
	log_debug("%s (pid %ld)", what, (long)t->cp.pid);
	return 0;
}

/*
 * Has @t ended: 1 and its exit code, after a message when it failed, or
 * 0. One that outlived its limit is killed now and reaped at a later
 * turn; SIGKILL needs no grace.
 */
static int task_done(struct task *t, int *code)
{
	int r;

	if (!t->running)
		return 0;
	if (t->limit_s && !t->cp.timed_out &&
	    now_s() - t->cp.start_s > t->limit_s) {
		t->cp.timed_out = 1;
		signal_command(&t->cp, SIGKILL);
	}
	r = poll_command(&t->cp, code);
	if (r == 0)
		return 0;
	if (r < 0)
		*code = -1;
	t->running = 0;
	if (t->cp.timed_out) {
		*code = 128 + SIGKILL;
		log_warnx("%s: killed after %u s%s%s", t->what, t->limit_s,
			  t->log ? ", see " : "", t->log ? t->log : "");
		if (t->log) {
			FILE *f = fopen(t->log, "a");

			if (f) {
				fprintf(f, "error: killed by mmci daemon after "
					"%u s\n", t->limit_s);
				fclose(f);
			}
		}
	} else if (*code) {
		log_warnx("%s failed (exit %d)%s%s", t->what, *code,
			  t->log ? ": see " : "", t->log ? t->log : "");
	}
	return 1;
}

/* SIGTERM: the child's group gets SIGTERM, SIGKILL after TASK_GRACE_MS */
static void task_stop(struct task *t)
{
	double until = now_s() + (t->grace_ms ? t->grace_ms :
					TASK_GRACE_MS) / 1000.0;
	int code, killed = 0;

	if (!t->running)
		return;
	signal_command(&t->cp, SIGTERM);
	while (poll_command(&t->cp, &code) == 0) {
		if (now_s() > until && !killed) {
			signal_command(&t->cp, SIGKILL);
			killed = 1;
			until = now_s() + 5;
		} else if (now_s() > until) {
			/* not ours to signal (no CAP_KILL): do not hang */
			log_warnx("%s (pid %ld) does not stop; leaving it",
				  t->what, (long)t->cp.pid);
			break;
		}
		poll(NULL, 0, 10);
	}
	log_info("%s stopped", t->what);
	t->running = 0;
	task_reset(t);
}

static void free_sources(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_sources; i++)
		free(d->sources[i]);
	free(d->sources);
	d->sources = NULL;
	d->nr_sources = d->next_source = 0;
}

/* a new round: the sources of MMCI_SOURCES, polled one after the other */
static void queue_polls(struct daemon *d)
{
	struct strbuf list = STRBUF_INIT;
	char *w, *save = NULL;
	size_t alloc = 0;

	free_sources(d);
	strbuf_addstr(&list, setting("MMCI_SOURCES", "discover,tree,commits"));
	for (w = strtok_r(list.buf, ", \t", &save); w;
	     w = strtok_r(NULL, ", \t", &save)) {
		if (strcmp(w, "discover") && strcmp(w, "tree") &&
		    strcmp(w, "commits") && strcmp(w, "inbox")) {
			log_warnx("MMCI_SOURCES: unknown source '%s'", w);
			continue;
		}
		ALLOC_GROW(d->sources, d->nr_sources + 1, alloc);
		d->sources[d->nr_sources++] = xstrdup(w);
	}
	strbuf_release(&list);
	d->retry_due = 1;
}

static int polls_pending(const struct daemon *d)
{
	return d->poll.running || d->next_source < d->nr_sources;
}

static void run_polls(struct daemon *d)
{
	struct task *t = &d->poll;
	char *dir, *what;
	const char *w;
	int code;

	if (task_done(t, &code)) {
		if (!code)
			log_debug("%s: done", t->what);
		task_reset(t);
	}
	if (t->running || d->next_source >= d->nr_sources)
		return;
	w = d->sources[d->next_source++];
	dir = data_path(&d->cfg, "jobs");
	t->log = xstrfmt("%s/poll-%s.log", dir, w);
	free(dir);
	t->argv[0] = SELF_EXE;
	t->argv[1] = "ingest";
	t->argv[2] = xstrdup(w);
	t->argv[3] = NULL;
	t->limit_s = config_number("MMCI_POLL_TIMEOUT_S");
	what = xstrfmt("polling '%s'", w);
	/*
	 * Mail and feeds are parsed as the service user, and so is the
	 * inbox's history (its mirrors are below <data>/fetch, which is
	 * that user's); the tree's fetch (libgit2, from the configured
	 * remote into root's kernel tree, which the builds read) stays
	 * root's.
	 */
	task_start(t, what, 0, strcmp(w, "tree") ? &d->su : NULL);
	free(what);
}

/*
 * The SMTP credentials of a mail child. Its environment has MMCI_SMTP_URL
 * without a password (run-command.c cuts it out), so a password written
 * in the URL (smtp://user:pw@host) travels as MMCI_SMTP_PASSWORD does:
 * on the pipe. Who wins is what libcurl did with the URL as it was:
 * MMCI_SMTP_USER, when set, overrides the URL's user name and password
 * (CURLOPT_USERNAME, smtp.c) and MMCI_SMTP_PASSWORD goes with it; else
 * the URL's user name is passed as MMCI_SMTP_USER (*@user_env, caller
 * frees) with the URL's password, or MMCI_SMTP_PASSWORD when the URL has
 * none. Return: the password to pipe, caller frees; NULL for none.
 */
static char *smtp_secret(char **user_env)
{
	const char *env_user = getenv("MMCI_SMTP_USER");
	const char *env_pw = getenv("MMCI_SMTP_PASSWORD");
	char *user = NULL, *pw = NULL;

	*user_env = NULL;
	if ((!env_user || !*env_user) &&
	    config_url_userinfo(getenv("MMCI_SMTP_URL"), &user, &pw) &&
	    *user) {
		*user_env = xstrfmt("MMCI_SMTP_USER=%s", user);
		free(user);
		if (pw)
			return pw;
	} else {
		free(user);
		free(pw);
	}
	return env_pw && *env_pw ? xstrdup(env_pw) : NULL;
}

/*
 * The SMTP password @pw for a mail child, on a pipe that becomes its
 * stdin: written whole before the child starts (a pipe holds 64 KiB, the
 * password at most 4 KiB), so the daemon never waits on it. 0: no
 * password; -1 after error().
 */
static int password_pipe(const char *pw)
{
	size_t len = pw ? strlen(pw) : 0;
	int fds[2];

	if (!len)
		return 0;
	if (len > 4096)
		return error("the SMTP password is longer than 4096 bytes");
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return error_errno("cannot create a pipe");
	if (write(fds[1], pw, len) != (ssize_t)len ||
	    write(fds[1], "\n", 1) != 1) {
		close(fds[0]);
		close(fds[1]);
		return error_errno("cannot write the password to a pipe");
	}
	close(fds[1]);
	return fds[0];
}

static unsigned int mail_limit_s(void)
{
	/* composing takes seconds; the session MMCI_SMTP_TIMEOUT at most */
	return 2 * config_number("MMCI_SMTP_TIMEOUT") + 60;
}

static int start_mail(struct daemon *d, long long job)
{
	struct task *t = &d->mail;
	char *user_env, *pw = smtp_secret(&user_env), *what;
	int fd = password_pipe(pw), ret;

	if (pw)
		explicit_bzero(pw, strlen(pw));
	free(pw);
	if (fd < 0) {
		log_warnx("no mail sent: %s", last_error());
		free(user_env);
		return -1;
	}
	t->argv[0] = SELF_EXE;
	t->argv[1] = "report";
	t->argv[2] = job ? xstrfmt("--job=%lld", job) : xstrdup("--retry");
	t->argv[3] = "--for-daemon";
	t->argv[4] = fd ? "--password-stdin" : NULL;
	t->argv[5] = NULL;
	t->limit_s = mail_limit_s();
	t->job = job;
	what = job ? xstrfmt("the report of job #%lld", job) :
		     xstrdup("mail retry");
	t->env[0] = user_env;
	t->env[1] = NULL;
	/* as the service user: it re-reads stored mails and rows that user
	 * owns, so it gets nothing root could read and that user could not */
	ret = task_start(t, what, fd, &d->su);
	free(what);
	free(user_env);
	t->env[0] = NULL;
	if (fd > 0)
		close(fd);
	return ret;
}

static struct mail_failure *mail_failure(struct daemon *d, long long job)
{
	size_t i;

	for (i = 0; i < d->nr_failures; i++)
		if (d->failures[i].job == job)
			return &d->failures[i];
	return NULL;
}

/* a report child ended: did it mark its job? if not, try again later */
static void mail_ended(struct daemon *d, int code)
{
	long long job = d->mail.job;
	struct mail_failure *f;
	long long marked = 0;

	if (!job)
		return;
	/* a failed read: as not marked; the next child finds it marked */
	if (db_int_checked(&d->db, &marked, "SELECT reported_at IS NOT NULL "
			   "FROM jobs WHERE id = ?", "i", job) < 0)
		marked = 0;
	if (marked)
		return;
	f = mail_failure(d, job);
	if (!f) {
		ALLOC_GROW(d->failures, d->nr_failures + 1,
			   d->alloc_failures);
		f = &d->failures[d->nr_failures++];
		f->job = job;
		f->tries = 0;
	}
	f->tries++;
	f->not_before = now_s() + MAIL_RETRY_S;
	if (f->tries >= MAIL_TRIES)
		log_warnx("job #%lld: not reported: %d report children "
			  "failed (exit %d); a restarted daemon tries again",
			  job, f->tries, code);
}

/*
 * Mail the finished jobs, one report child at a time, and after a round
 * of polls send the failed mails again (MMCI_MAIL_SEND=1 only): mails
 * the SMTP server refused or could not take (down, full, 4xx) stay
 * 'failed' in the mails table with their .eml until it accepts them.
 */
static void run_mails(struct daemon *d)
{
	sqlite3_stmt *st;
	long long job = 0;
	double now = now_s();
	int code;

	if (task_done(&d->mail, &code)) {
		mail_ended(d, code);
		task_reset(&d->mail);
	}
	if (d->mail.running)
		return;
	/* a nightly regression waits for its bisection (job.h) */
	st = db_query(&d->db, "SELECT id FROM jobs j WHERE status IN ('done', "
		      "'failed') AND reported_at IS NULL AND NOT "
		      JOB_AWAITS_BISECT " ORDER BY id", "");
	d->reports_pending = 0;
	/* after a failed read, no report this turn; the next turn reads */
	while (st && db_step(&d->db, st) == DB_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		struct mail_failure *f = mail_failure(d, id);

		if (f && f->tries >= MAIL_TRIES)
			continue;
		d->reports_pending = 1;
		if (!f || now >= f->not_before) {
			job = id;
			break;
		}
	}
	sqlite3_finalize(st);
	if (job) {
		start_mail(d, job);
		return;
	}
	if (!d->retry_due || polls_pending(d))
		return;
	d->retry_due = 0;
	if (!config_number("MMCI_MAIL_SEND") || !getenv("MMCI_SMTP_URL") ||
	    !*getenv("MMCI_SMTP_URL") ||
	    !db_int(&d->db, 0, "SELECT count(*) FROM mails WHERE status = "
		    "'failed'", ""))
		return;
	start_mail(d, 0);
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
		id = job_next_queued(&d->db, (double)time(NULL));
		if (id <= 0)
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

/* ---- the web pages: a child `mmci web` as the service user ---------- */

/*
 * The daemon binds the socket (as root, so any port) and hands it to a
 * child that serves it as the service user, with its render worker. The
 * daemon itself has no thread and parses no HTTP. A child that ends (a
 * crash, kill -9) is started again after WEB_RESTART_S on the same
 * socket: connections wait in its backlog meanwhile.
 */
static void run_web(struct daemon *d)
{
	struct task *t = &d->web;
	int code;

	if (d->web_fd < 0)
		return;
	if (task_done(t, &code)) {
		log_warnx("%s ended (exit %d); starting it again in %d s",
			  t->what, code, WEB_RESTART_S);
		task_reset(t);
		d->web_restart = now_s() + WEB_RESTART_S;
	}
	if (t->running || now_s() < d->web_restart)
		return;
	t->argv[0] = SELF_EXE;
	t->argv[1] = "web";
	t->argv[2] = xstrdup("--listen-fd=3");
	t->argv[3] = NULL;
	t->limit_s = 0;
	t->pass_fd = d->web_fd;
	/* it stops its render worker first, which may take up to 5 s */
	t->grace_ms = WEB_GRACE_MS;
	if (task_start(t, "the web server", 0, &d->su) < 0)
		d->web_restart = now_s() + WEB_RESTART_S;
}

/*
 * SIGTERM: stop the children, queue their jobs again. The poll and the
 * mail child have nothing to save: SIGTERM, and SIGKILL when they do not
 * go within TASK_GRACE_MS (a fetch or an SMTP session that hangs). A
 * killed mail stays 'failed' with its .eml and goes at a later retry
 * (report_deliver()).
 */
static void stop_jobs(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_slots; i++)
		if (d->slots[i].job)
			signal_command(&d->slots[i].cp, SIGTERM);
	task_stop(&d->poll);
	task_stop(&d->mail);
	for (i = 0; i < d->nr_slots; i++) {
		struct slot *s = &d->slots[i];

		if (!s->job)
			continue;
		log_info("stopping job #%lld (pid %ld)", s->job,
			 (long)s->cp.pid);
		signal_command(&s->cp, SIGTERM);
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
		/* as the job child gets it and the log shows it (config.c) */
		char *clean = config_redact_value(w);

		ALLOC_GROW(d->slots, d->nr_slots + 1, alloc);
		memset(&d->slots[d->nr_slots], 0, sizeof(*d->slots));
		d->slots[d->nr_slots++].uri = clean ? clean : xstrdup(w);
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
	struct daemon d = { .web_fd = -1 };
	struct sigaction sa;
	const char *listen_addr = NULL, *listen_from = "--listen";
	int c, no_web = 0, lock_fd, n, ret = 0, wake[2];
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
	if (service_user_init(&d.su) < 0)
		return EX_CONFIG;
	if (service_user_handover(&d.su, &d.cfg) < 0) {
		error("mmci daemon does not start: the service user '%s' "
		      "must own what it writes", d.su.name);
		return 1;
	}
	if (d.su.active)
		log_info("mail, feeds and HTTP are parsed as user %s (uid %ld)",
			 d.su.name, (long)d.su.uid);
	/*
	 * The daemon holds the SMTP password for its mail children. Under
	 * mmci-priv it runs as the user its parsers run as, who could
	 * otherwise read its environment and memory (/proc/PID/environ,
	 * ptrace): not dumpable, those are root's only. Its children get
	 * the flag back at exec.
	 */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		log_warn("cannot make the daemon not dumpable");
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("cannot create the daemon's self-pipe");
	d.wake_rd = wake[0];
	wake_fd = wake[1];
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
		if (web_listen(listen_addr, &d.web_fd) < 0) {
			error("the web pages cannot be served on %s (%s)",
			      listen_addr, listen_from);
			ret = 1;
			goto out;
		}
		printf("mmci daemon: pid %ld, web pages on port %d\n",
		       (long)getpid(), web_socket_port(d.web_fd));
	} else {
		printf("mmci daemon: pid %ld, no web pages\n", (long)getpid());
	}
	fflush(stdout);

	while (!stop_requested) {
		double now = now_s();
		struct pollfd pfd = { .fd = d.wake_rd, .events = POLLIN };
		char drain[64];

		if (reload_requested) {
			reload_requested = 0;
			reload_settings();
		}
		if (now >= d.next_poll && !polls_pending(&d)) {
			queue_polls(&d);
			d.next_poll = now + config_number("MMCI_POLL_S");
		}
		run_web(&d);
		run_polls(&d);
		reap_jobs(&d);
		run_mails(&d);
		if (now >= d.next_recover) {
			recover_stale(&d);
			d.next_recover = now + RECOVER_S;
		}
		start_jobs(&d);
		if (d.once && !busy(&d) && !polls_pending(&d) &&
		    !d.mail.running && !d.retry_due && !d.reports_pending &&
		    job_next_queued(&d.db, (double)time(NULL)) == 0)
			break;
		/* a second at most; a signal's byte ends it at once */
		if (poll(&pfd, 1, 1000) > 0)
			while (read(d.wake_rd, drain, sizeof(drain)) > 0)
				;
	}
	if (stop_requested)
		log_info("stopping on a signal");
	stop_jobs(&d);
out:
	task_stop(&d.web);
	if (d.web_fd >= 0)
		close(d.web_fd);
	for (i = 0; i < d.nr_slots; i++) {
		free(d.slots[i].uri);
		free(d.slots[i].env_uri);
		free(d.slots[i].log);
	}
	free(d.slots);
	free_sources(&d);
	free(d.failures);
	db_close(&d.db);
	config_release(&d.cfg);
	wake_fd = -1;
	close(wake[0]);
	close(wake[1]);
	close(lock_fd);
	return ret;
}
