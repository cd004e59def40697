// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - `mmci report`: the comparison of two runs as an email.
 */
#include <getopt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
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

static int do_retry(struct db *db, const struct smtp_settings *smtp)
{
	int sent, failed, ret;

	ret = report_retry(db, smtp, &sent, &failed);
	printf("retried %d mail(s): %d sent, %d failed\n", sent + failed,
	       sent, failed);
	return ret < 0 ? 1 : 0;
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
	int c, send = 0, retry = 0, ret;

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
		ret = do_retry(&db, &smtp);
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
	db_close(&db);
	config_release(&cfg);
	return ret;
}
