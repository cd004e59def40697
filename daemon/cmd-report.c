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
#include <unistd.h>

#include <jansson.h>

#include "attribution.h"
#include "claims.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "job.h"
#include "report.h"
#include "smtp.h"
#include "strbuf.h"
#include "util.h"

static const char report_usage[] =
	"usage: mmci report --base RUN --new RUN [--series ID] [--patch N]\n"
	"                   [--commit SHA] [--to ADDR]... [--from ADDR]\n"
	"                   [--url BASE] [--outbox DIR] [--send [--smtp URL]]\n"
	"   or: mmci report --retry [--smtp URL]\n"
	"\n"
	"Write the report of a comparison as a mail in the style of the kernel\n"
	"test robot: subject naming the most significant change, threaded\n"
	"under the series' cover letter (or the patch that moved it), To the\n"
	"author and Cc the series' To and Cc, the comparison table, machine\n"
	"and kernel details, how to reproduce and a link to the web page.\n"
	"\n"
	"The message is always written to the outbox (<data>/outbox) as a .eml\n"
	"file, whose path is printed. Nothing is sent without --send.\n"
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
	"  --retry       send again every mail that failed\n"
	"\n"
	"environment: MMCI_SMTP_URL, MMCI_SMTP_USER, MMCI_SMTP_PASSWORD,\n"
	"MMCI_SMTP_TLS=1 (require STARTTLS), MMCI_SMTP_TIMEOUT (s),\n"
	"MMCI_MAIL_FROM, MMCI_MAIL_DOMAIN (of message-ids), MMCI_WEB_URL.\n"
	"A server that refuses the message: exit 1, the .eml is kept and the\n"
	"mails table says 'failed' with the server's reply.\n";

static int do_retry(struct db *db, const struct smtp_settings *smtp,
		    int for_daemon)
{
	int sent, failed, ret;

	ret = report_retry(db, smtp, &sent, &failed);
	if (for_daemon)
		log_info("mail retry: %d sent, %d still failing", sent,
			 failed);
	else
		printf("retried %d mail(s): %d sent, %d failed\n",
		       sent + failed, sent, failed);
	return ret < 0 ? 1 : 0;
}

/*
 * The mail of a finished job, as the kernel test robot sends them: a
 * series job always (threaded under the series, with the per-patch table
 * and the claims appended to the comparison), a nightly only when a
 * metric got worse, a bisection when it named a commit. Dry-run (the
 * outbox) unless MMCI_MAIL_SEND=1 and MMCI_SMTP_URL say where to send.
 * reported_at is set first, and only once (job_mark_reported()): the
 * mail of a job never goes twice, whoever else reports it.
 * Return: 0 (mailed, written, or nothing to mail), -1 after error().
 */
static int report_job(struct db *db, const struct mmci_config *cfg,
		      struct smtp_settings *smtp, long long job)
{
	sqlite3_stmt *st;
	struct report_input in = { 0 };
	struct report r = { 0 };
	struct attribution attr = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf extra = STRBUF_INIT;
	char *kind = NULL, *status = NULL, *outbox = NULL, *path = NULL;
	const char *first_bad = NULL;
	json_t *res = NULL;
	long long series = 0;
	int ret = 0, send = config_number("MMCI_MAIL_SEND"), step;

	switch (job_mark_reported(db, job)) {
	case 1:
		break;
	case 0:
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
	if (send && !smtp->url) {
		warning("MMCI_MAIL_SEND=1 but no MMCI_SMTP_URL: dry run");
		send = 0;
	}
	outbox = data_path(cfg, "outbox");
	ret = report_deliver(db, &r, outbox, send ? smtp : NULL, &path, NULL);
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
	char *outbox = NULL, *path = NULL;
	size_t nr_to = 0, alloc_to = 0;
	int c, send = 0, retry = 0, ret, password_stdin = 0, for_daemon = 0;
	long long job = 0;
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
		ret = report_job(&db, &cfg, &smtp, job) < 0 ? 1 : 0;
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
		ret = do_retry(&db, &smtp, for_daemon);
		goto out;
	}
	ret = 1;
	if (report_compose(&db, &in, &rep) < 0)
		goto out;
	outbox = outbox_arg ? xstrdup(outbox_arg) : data_path(&cfg, "outbox");
	if (report_deliver(&db, &rep, outbox, send ? &smtp : NULL, &path,
			   NULL) == 0) {
		ret = 0;
		if (send)
			log_info("sent '%s' to %zu recipient(s)", rep.subject,
				 rep.nr_rcpt);
		else
			log_info("dry run: '%s' written, not sent (--send "
				 "sends it)", rep.subject);
	} else if (path) {
		error("the message is kept in '%s'; 'mmci report --retry' "
		      "sends it again", path);
	}
	if (path)
		printf("%s\n", path);
	report_release(&rep);
out:
	free(path);
	free(outbox);
	free(to);
	free(password);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
