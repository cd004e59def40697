// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - `mmci report`: the comparison of two runs as an email.
 *
 * Also the daemon's mail child (hidden options): `mmci report --job N`
 * mails the report of finished job N, and `--retry` sends the failed
 * mails again, each in a process of its own, so an SMTP server that
 * hangs holds up that child (the daemon kills it after its limit), never
 * the daemon's loop. The daemon gives the SMTP password on stdin
 * (--password-stdin), not in the environment, which no child gets it in
 * (run-command.c).
 */
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>

#include <jansson.h>

#include "aim.h"
#include "attribution.h"
#include "claims.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "job.h"
#include "profile.h"
#include "report.h"
#include "run.h"
#include "series-job.h"
#include "smtp.h"
#include "strbuf.h"
#include "util.h"

static const char report_usage[] =
	"usage: mmci report --base RUN --new RUN [--series ID] [--patch N]\n"
	"                   [--commit SHA] [--to ADDR]... [--from ADDR]\n"
	"                   [--url BASE] [--outbox DIR] [--send [--smtp URL]]\n"
	"                   [--force]\n"
	"   or: mmci report --retry [--smtp URL]\n"
	"\n"
	"Write the report of a comparison as a mail in the style of the kernel\n"
	"test robot: subject naming the most significant change, threaded\n"
	"under the series' cover letter (or the patch that moved it), To the\n"
	"author and Cc the series' To and Cc, the comparison table, machine\n"
	"and kernel details, how to reproduce and a link to the web page.\n"
	"\n"
	"The mail policy (docs/MAIL.md) decides first: a regression (of the\n"
	"series or of a patch's own step) and a claimed improvement are\n"
	"mailed; no change, insufficient data and an improvement the series\n"
	"does not claim are not ('not mailed: REASON'); --force mails anyway.\n"
	"The message is always written to the outbox (<data>/outbox) as a .eml\n"
	"file, whose path is printed. Nothing is sent without --send, nor\n"
	"when the links would point to localhost (set --url or MMCI_WEB_URL).\n"
	"\n"
	"  --base RUN, --new RUN  the runs compared\n"
	"  --series ID   the series tested (default: the new run's build's)\n"
	"  --patch N     thread under patch N instead of the cover letter\n"
	"  --commit SHA  nightly report: the culprit commit (no series)\n"
	"  --to ADDR     another recipient (repeatable)\n"
	"  --from ADDR   sender (MMCI_MAIL_FROM, default " REPORT_DEFAULT_FROM ")\n"
	"  --url BASE    web pages (MMCI_WEB_URL, default "
	REPORT_DEFAULT_WEB_URL ")\n"
	"  --outbox DIR  where the .eml files go\n"
	"  --send        send it to the SMTP server of --smtp or MMCI_SMTP_URL\n"
	"  --smtp URL    smtp://host:port or smtps://host:port\n"
	"  --retry       send again every mail that failed (the messages of\n"
	"                the outbox, or of --outbox DIR, only)\n"
	"  --force       mail it whatever the policy says\n"
	"\n"
	"environment: MMCI_SMTP_URL, MMCI_SMTP_USER, MMCI_SMTP_PASSWORD,\n"
	"MMCI_SMTP_TLS=1 (require STARTTLS), MMCI_SMTP_TIMEOUT (s),\n"
	"MMCI_MAIL_FROM, MMCI_MAIL_DOMAIN (of message-ids), MMCI_WEB_URL,\n"
	"MMCI_MAIL_RATE_PER_HOUR (default 30), MMCI_MAIL_OPT_OUT (addresses).\n"
	"A server that refuses the message: exit 1, the .eml is kept and the\n"
	"mails table says 'failed' with the server's reply.\n";

static int do_retry(const struct mmci_config *cfg, struct db *db,
		    const struct smtp_settings *smtp, const char *outbox_arg,
		    int for_daemon)
{
	char *outbox = outbox_arg ? xstrdup(outbox_arg) :
				    data_path(cfg, "outbox");
	int sent, failed, ret;

	ret = report_retry(db, smtp, outbox, &sent, &failed);
	free(outbox);
	if (for_daemon)
		log_info("mail retry: %d sent, %d still failing", sent,
			 failed);
	else
		printf("retried %d mail(s): %d sent, %d failed\n",
		       sent + failed, sent, failed);
	return ret < 0 ? 1 : 0;
}

/*
 * The policy's inputs for a series job or two runs: the comparison of
 * the whole series, the per-patch steps when the job measured them, the
 * claims. Fills @steps with the per-patch table (the mail shows it before
 * the series as a whole), @extra with the claims (above its signature)
 * and @headline with the job's one
 * verdict (attribution_verdict()). A series job's steps are its recorded
 * ones, whoever measured their runs; a job whose steps cannot be loaded
 * is not mailed at all (-1): judged on the series alone it could call a
 * patch's regression an improvement. Return: 1 mail, 0 not (@reason
 * says why), -1 after error().
 */
static int decide(struct db *db, long long job, long long series,
		  const struct run_comparison *rc, struct strbuf *steps,
		  struct strbuf *profile,
		  struct strbuf *extra, struct strbuf *headline,
		  struct strbuf *regressed, struct strbuf *reason)
{
	struct attribution attr = { 0 };
	struct claim_checks cc = { 0 };
	struct report_policy_input pin = { 0 };
	struct strbuf v = STRBUF_INIT;
	int per_patch = 0, mail;

	if (job) {
		int loaded;

		/* said once, by the caller, with why the job is not mailed */
		error_hold();
		loaded = attribution_load(db, job, &attr);
		error_unhold();
		if (loaded < 0) {
			attribution_release(&attr);
			return -1;
		}
		per_patch = attribution_per_patch(&attr);
		if (per_patch)
			attribution_format_mail(&attr, steps);
		if (series_job_profiles(db, &attr, PROFILE_MAIL_LINES,
					profile) < 0)
			warning("job #%lld: its profile is left out of the "
				"mail: %s", job, last_error());
	} else if (profile_explain(db, rc, NULL, PROFILE_MAIL_LINES,
				   profile) < 0) {
		warning("the profile is left out of the mail: %s",
			last_error());
	}
	if (series) {
		claims_format(db, series, per_patch ? &attr : NULL, rc, extra);
		if (claims_check(db, series, per_patch ? &attr : NULL, rc,
				 &cc) < 0)
			warning("the claims of series #%lld are left out of "
				"the mail policy: %s", series, last_error());
	}
	pin.series = rc;
	pin.attr = per_patch ? &attr : NULL;
	pin.claims = cc.v;
	pin.nr_claims = cc.nr;
	mail = report_policy(&pin, reason);
	if (job) {
		struct aim aim = AIM_INIT;

		/* a smoke run outside mmci's scope is never mailed */
		if (series_job_aim(db, job, &aim) > 0 && !aim.in_scope) {
			strbuf_reset(reason);
			strbuf_addf(reason, "%s", aim.why.buf);
			mail = 0;
		}
		aim_release(&aim);
	}
	if (attribution_verdict(pin.attr, rc, &v) > 0) {
		strbuf_addbuf(headline, &v);
		attribution_regressed_patches(pin.attr, regressed);
	}
	strbuf_release(&v);
	claim_checks_release(&cc);
	attribution_release(&attr);
	return mail;
}

/* say and record why job @job was (not) mailed */
static void note(struct db *db, long long job, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	printf("job #%lld: %s\n", job, sb.buf);
	fflush(stdout);
	if (job_set_report_note(db, job, sb.buf) < 0)
		warning("job #%lld: the reason is not recorded: %s", job,
			last_error());
	strbuf_release(&sb);
}

/*
 * A real send must not link to the mmci host itself: the list's readers
 * cannot open http://localhost:8080. Return: 1 may send, 0 not (said).
 */
static int public_links(const char *url_arg, struct strbuf *why)
{
	const char *url = report_web_url(url_arg);

	if (report_public_url(url) ||
	    config_number("MMCI_MAIL_LOCAL_LINKS"))
		return 1;
	strbuf_addf(why, "not sent: the links would point to '%s', which is "
		    "not a public address; set MMCI_WEB_URL (or --url) to "
		    "the pages' public address", url);
	return 0;
}

/*
 * Send @r (or write it to the outbox when !@send), unless the links are
 * not public or the hour's rate is used up (then it waits as a 'failed'
 * row that the retry round sends). Return: 0, or -1 after error().
 */
static int deliver(struct db *db, const struct mmci_config *cfg,
		   const char *outbox_arg, const char *url_arg,
		   struct smtp_settings *smtp, int send, const struct report *r,
		   struct strbuf *what, char **path)
{
	char *outbox = outbox_arg ? xstrdup(outbox_arg) :
				    data_path(cfg, "outbox");
	long long room;
	int ret;

	if (send && !public_links(url_arg, what)) {
		error("%s", what->buf);
		/* the dry run still goes to the outbox, for a person */
		if (report_deliver(db, r, outbox, NULL, path, NULL) < 0)
			warning("not written to the outbox either");
		free(outbox);
		return -1;
	}
	room = send ? report_rate_room(db) : 1;
	if (room < 0) {
		free(outbox);
		return -1;
	}
	if (!room) {
		strbuf_addf(what, "held: MMCI_MAIL_RATE_PER_HOUR=%lld mails "
			    "went in the last hour; the retry round sends it",
			    config_number("MMCI_MAIL_RATE_PER_HOUR"));
		ret = report_hold(db, r, outbox, what->buf, path);
		free(outbox);
		return ret;
	}
	ret = report_deliver(db, r, outbox, send ? smtp : NULL, path, NULL);
	strbuf_addstr(what, ret < 0 ? "not sent, kept for a retry" :
		      send ? "sent" : "written (dry run)");
	free(outbox);
	return ret;
}

/*
 * The mail of a finished job, as the kernel test robot sends them: a
 * series job when report_policy() says so (a regression in the series or
 * in a patch's own step, a claimed improvement, a claimed improvement
 * measured as a regression; never "no change" alone), a bisection when
 * it named a commit, a nightly when a metric got worse and its bisection
 * (waited for) named none: one mail per nightly regression. Dry-run (the
 * outbox) unless MMCI_MAIL_SEND=1 and MMCI_SMTP_URL say where to send.
 * reported_at is set first, and only once (job_mark_reported()): the
 * mail of a job never goes twice, whoever else reports it; a job the
 * policy does not mail is marked too, its reason in jobs.report_note.
 * @force: mail whatever the policy and the opt-out list say, and even a
 * job reported before (a person asking; the daemon never does).
 * Return: 0 (mailed, written, or nothing to mail), -1 after error().
 */
static int report_job(struct db *db, const struct mmci_config *cfg,
		      struct smtp_settings *smtp, long long job, int force)
{
	sqlite3_stmt *st;
	struct report_input in = { 0 };
	struct report r = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf extra = STRBUF_INIT, headline = STRBUF_INIT;
	struct strbuf reason = STRBUF_INIT, what = STRBUF_INIT;
	struct strbuf regressed = STRBUF_INIT, steps = STRBUF_INIT;
	struct strbuf profile = STRBUF_INIT;
	char *kind = NULL, *status = NULL, *path = NULL;
	const char *first_bad = NULL;
	json_t *res = NULL;
	long long series = 0, bisect;
	int ret = 0, send = config_number("MMCI_MAIL_SEND"), step, mail;
	/* a nightly's bisection: an ended one stays as it ended */
	int bisected = job_nightly_bisect(db, job, &bisect);

	if (bisected < 0)
		return -1;
	if (bisected == 2 && !force) {
		log_info("job #%lld: waits for its bisection, job #%lld", job,
			 bisect);
		return 0;
	}
	switch (job_mark_reported(db, job)) {
	case 1:
		break;
	case 0:
		if (force)
			break;
		log_info("job #%lld: reported before", job);
		return 0;
	default:
		return -1;
	}
	st = db_query(db, "SELECT kind, status, result, coalesce(series_id, "
		      "0) FROM jobs WHERE id = ?", "i", job);
	if (!st)
		return -1;
	step = db_step(db, st);
	if (step == DB_ROW) {
		kind = xstrdup(db_col_text(st, 0));
		status = xstrdup(db_col_text(st, 1));
		res = json_loads(db_col_text(st, 2), 0, NULL);
		series = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (step < 0) {
		ret = error("job #%lld: no report: %s", job, last_error());
		goto out;
	}
	if (!kind || strcmp(status, "done") || !res)
		goto out;	/* a failed job is in the log and on the page */
	in.base_run = json_integer_value(json_object_get(res, "base_run"));
	in.new_run = json_integer_value(json_object_get(res, "new_run"));
	if (!strcmp(kind, "series")) {
		in.series_id = series;
		in.job = job;
		if (compare_runs(db, in.base_run, in.new_run, &rc) < 0) {
			ret = error("job #%lld: no report: %s", job,
				    last_error());
			goto out;
		}
		mail = decide(db, job, series, &rc, &steps, &profile, &extra,
			      &headline, &regressed, &reason);
		if (mail < 0) {
			char *why = xstrfmt("not mailed: its steps cannot be "
					    "attributed: %s", last_error());

			ret = error("job #%lld: %s", job, why);
			note(db, job, "%s", why);
			free(why);
			goto out;
		}
		if (!mail && !force) {
			note(db, job, "not mailed: %s", reason.buf);
			goto out;
		}
		if (headline.len) {
			in.headline = headline.buf;
			in.regressed = regressed.buf;
		}
		in.steps = steps.buf;
		in.profile = profile.buf;
		{
			long long prev_series;

			in.prev_run = series_job_previous_run(db, series,
							      in.new_run,
							      &prev_series,
							      &in.prev_version);
			if (in.prev_run < 0)
				warning("job #%lld: the previous version is "
					"left out of the mail: %s", job,
					last_error());
		}
		in.extra = extra.buf;
	} else if (!strcmp(kind, "nightly")) {
		if (json_integer_value(json_object_get(res, "worse")) <= 0 &&
		    !force) {
			note(db, job, "not mailed: nothing got worse");
			goto out;
		}
		/* one mail per nightly regression: the bisection's names the
		 * commit; the nightly's goes only when it named none */
		if (bisected == 1 && !force) {
			note(db, job, "not mailed: its bisection (job #%lld) "
			     "mails this regression with the commit", bisect);
			goto out;
		}
		strbuf_addstr(&reason, bisect ? "nightly regression, its "
			      "bisection named no commit" :
			      "nightly regression");
		in.commit = json_string_value(json_object_get(res, "commit"));
	} else if (!strcmp(kind, "bisect")) {
		first_bad = json_string_value(json_object_get(res,
							      "first_bad"));
		if (!first_bad) {
			note(db, job, "not mailed: the bisection named no "
			     "commit");
			goto out;
		}
		strbuf_addstr(&reason, "bisection named a commit");
		in.commit = first_bad;
	} else {
		goto out;
	}
	if (!in.base_run || !in.new_run)
		goto out;
	if (force) {
		struct strbuf t = STRBUF_INIT;

		strbuf_addf(&t, "--force (policy: %s)", reason.buf);
		strbuf_reset(&reason);
		strbuf_addbuf(&reason, &t);
		strbuf_release(&t);
	}
	if (report_compose(db, &in, &r) < 0) {
		ret = error("job #%lld: no report: %s", job, last_error());
		goto out;
	}
	if ((r.author_opted_out || !r.nr_rcpt) && !force) {
		note(db, job, "not mailed: %s (MMCI_MAIL_OPT_OUT); %s",
		     r.author_opted_out ? "the author opted out" :
		     "every recipient opted out", reason.buf);
		goto out;
	}
	if (send && !smtp->url) {
		warning("MMCI_MAIL_SEND=1 but no MMCI_SMTP_URL: dry run");
		send = 0;
	}
	ret = deliver(db, cfg, NULL, NULL, smtp, send, &r, &what, &path);
	note(db, job, "%s: %s: %s", what.buf, reason.buf, path ? path : "-");
out:
	json_decref(res);
	report_release(&r);
	run_comparison_release(&rc);
	strbuf_release(&steps);
	strbuf_release(&profile);
	strbuf_release(&extra);
	strbuf_release(&headline);
	strbuf_release(&regressed);
	strbuf_release(&reason);
	strbuf_release(&what);
	free(kind);
	free(status);
	free(path);
	return ret;
}

/* the SMTP password from stdin (the daemon's pipe): up to 4 KiB, one line */
static char *read_password(void)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_fd(&sb, 0, 4096) < 0)
		die_errno("cannot read the SMTP password from stdin");
	if (sb.len > 4096)
		die("the SMTP password on stdin is longer than 4096 bytes");
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "new", required_argument, NULL, 'n' },
		{ "series", required_argument, NULL, 'S' },
		{ "patch", required_argument, NULL, 'p' },
		{ "commit", required_argument, NULL, 'c' },
		{ "to", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'f' },
		{ "url", required_argument, NULL, 'u' },
		{ "outbox", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 's' },
		{ "smtp", required_argument, NULL, 'm' },
		{ "retry", no_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'F' },
		/* the daemon's mail child (cmd-daemon.c) */
		{ "job", required_argument, NULL, 'j' },
		{ "password-stdin", no_argument, NULL, 'P' },
		{ "for-daemon", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_input in = { 0 };
	struct smtp_settings smtp;
	struct mmci_config cfg;
	struct report rep;
	struct db db;
	const char **to = NULL;
	const char *outbox_arg = NULL;
	char *path = NULL;
	size_t nr_to = 0, alloc_to = 0;
	int c, send = 0, retry = 0, ret, password_stdin = 0, for_daemon = 0;
	int force = 0, mail;
	struct run_comparison rc = { 0 };
	struct strbuf extra = STRBUF_INIT, headline = STRBUF_INIT;
	struct strbuf reason = STRBUF_INIT, what = STRBUF_INIT;
	struct strbuf regressed = STRBUF_INIT, steps = STRBUF_INIT;
	struct strbuf profile = STRBUF_INIT;
	long long job = 0, series;
	char *password = NULL;

	smtp_settings_init(&smtp);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			in.base_run = parse_count("--base", optarg);
			break;
		case 'n':
			in.new_run = parse_count("--new", optarg);
			break;
		case 'S':
			in.series_id = parse_count("--series", optarg);
			break;
		case 'p':
			in.patch_idx = (int)parse_count("--patch", optarg);
			break;
		case 'c':
			in.commit = optarg;
			break;
		case 't':
			ALLOC_GROW(to, nr_to + 1, alloc_to);
			to[nr_to++] = optarg;
			break;
		case 'f':
			in.from = optarg;
			break;
		case 'u':
			in.web_url = optarg;
			break;
		case 'o':
			outbox_arg = optarg;
			break;
		case 's':
			send = 1;
			break;
		case 'm':
			smtp.url = optarg;
			break;
		case 'r':
			retry = 1;
			break;
		case 'F':
			force = 1;
			break;
		case 'j':
			job = parse_count("--job", optarg);
			break;
		case 'P':
			password_stdin = 1;
			break;
		case 'D':
			for_daemon = 1;
			break;
		case 'h':
			fputs(report_usage, stdout);
			free(to);
			return 0;
		default:
			fputs(report_usage, stderr);
			free(to);
			return 129;
		}
	}
	in.to = to;
	in.nr_to = nr_to;
	if (password_stdin) {
		password = read_password();
		smtp.password = password;
	}
	if (job) {
		if (optind != argc || retry || in.base_run || in.new_run) {
			fputs(report_usage, stderr);
			free(to);
			free(password);
			return 129;
		}
		setup_command(&cfg, &db);
		ret = report_job(&db, &cfg, &smtp, job, force) < 0 ? 1 : 0;
		goto out;
	}
	if (optind != argc || (!retry && (!in.base_run || !in.new_run))) {
		fputs(report_usage, stderr);
		free(to);
		return 129;
	}
	if ((send || retry) && !smtp.url) {
		error("%s needs an SMTP server: --smtp URL or MMCI_SMTP_URL",
		      retry ? "--retry" : "--send");
		free(to);
		return 129;
	}
	if (smtp.url && !send && !retry)
		log_info("dry run: the SMTP server is used only with --send");

	setup_command(&cfg, &db);
	if (retry) {
		ret = do_retry(&cfg, &db, &smtp, outbox_arg, for_daemon);
		goto out;
	}
	ret = 1;
	if (compare_runs(&db, in.base_run, in.new_run, &rc) < 0)
		goto out;
	series = in.series_id;
	if (!series && !in.commit) {
		struct run_row nr;

		/* the series the new run's build applied, for its claims */
		if (run_load(&db, in.new_run, &nr) < 0)
			goto out;
		series = nr.series_id;
		run_row_release(&nr);
	}
	mail = decide(&db, 0, series, &rc, &steps, &profile, &extra,
		      &headline, &regressed, &reason);
	if (!mail && !force) {
		printf("not mailed: %s (--force writes it anyway)\n",
		       reason.buf);
		ret = 0;
		goto out;
	}
	in.extra = extra.buf;
	in.profile = profile.buf;
	if (report_compose(&db, &in, &rep) < 0)
		goto out;
	if (deliver(&db, &cfg, outbox_arg, in.web_url, &smtp, send, &rep,
		    &what, &path) == 0) {
		ret = 0;
		if (starts_with(what.buf, "held"))
			log_info("%s", what.buf);
		else if (send)
			log_info("sent '%s' to %zu recipient(s)", rep.subject,
				 rep.nr_rcpt);
		else
			log_info("dry run: '%s' written, not sent (--send "
				 "sends it)", rep.subject);
	} else if (path && !starts_with(what.buf, "not sent: the links")) {
		error("the message is kept in '%s'; 'mmci report --retry' "
		      "sends it again", path);
	}
	if (path)
		printf("%s\n", path);
	report_release(&rep);
out:
	run_comparison_release(&rc);
	strbuf_release(&steps);
	strbuf_release(&profile);
	strbuf_release(&extra);
	strbuf_release(&headline);
	strbuf_release(&regressed);
	strbuf_release(&reason);
	strbuf_release(&what);
	free(path);
	free(to);
	free(password);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
