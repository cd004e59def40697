// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-web.c - `mmci web`: serve the read-only pages until SIGINT/SIGTERM.
 *
 * The daemon serves the same pages from its own loop (web_start() and
 * web_stop()); this command is for a machine that only shows results, and
 * for the tests.
 */
#include <getopt.h>
#include <poll.h>
#include <signal.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "util.h"
#include "web.h"

static const char web_usage[] =
	"usage: mmci web [--listen ADDR:PORT]\n"
	"\n"
	"Serve the result pages (runs, jobs, series, metric trends,\n"
	"comparisons) read-only over HTTP until SIGINT or SIGTERM.\n"
	"\n"
	"  --listen ADDR:PORT  numeric address and port (default "
	WEB_DEFAULT_LISTEN ");\n"
	"                      port 0 picks a free one, printed on stdout\n";

static volatile sig_atomic_t web_stop_requested;

static void on_signal(int sig)
{
	web_stop_requested = sig;
}

int cmd_web(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_addr = WEB_DEFAULT_LISTEN;
	struct web_server *ws;
	struct mmci_config cfg;
	struct sigaction sa;
	struct db db;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'h':
			fputs(web_usage, stdout);
			return 0;
		default:
			fputs(web_usage, stderr);
			return 129;
		}
	}
	if (optind != argc) {
		fputs(web_usage, stderr);
		return 129;
	}
	/* create or migrate the database once; the pages only read it */
	setup_command(&cfg, &db);
	db_close(&db);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (web_start(&cfg, listen_addr, &ws) < 0) {
		config_release(&cfg);
		return 1;
	}
	printf("mmci web: listening on port %d\n", web_port(ws));
	fflush(stdout);
	while (!web_stop_requested)
		poll(NULL, 0, 1000);
	log_info("web: signal %d, stopping", (int)web_stop_requested);
	web_stop(ws);
	config_release(&cfg);
	return 0;
}
