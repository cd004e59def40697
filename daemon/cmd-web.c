// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-web.c - `mmci web`: serve the read-only pages until SIGINT/SIGTERM;
 * `mmci web --render`: write the pages that changed, once.
 *
 * The daemon serves the same pages from its own loop (web_start() and
 * web_stop()); this command is for a machine that only shows results, for
 * a renderer in front of nginx (systemd/mmci-render.service), and for the
 * tests. `--render-loop` is the render worker web_start() spawns.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "render.h"
#include "util.h"
#include "web.h"

static const char web_usage[] =
	"usage: mmci web [--listen ADDR:PORT]\n"
	"   or: mmci web --render [--all]\n"
	"\n"
	"Serve the result pages (runs, jobs, series, metric trends,\n"
	"comparisons) read-only over HTTP until SIGINT or SIGTERM, from\n"
	"the files under $MMCI_DATA/www, which a render worker started\n"
	"alongside writes whenever the database changes.\n"
	"\n"
	"  --listen ADDR:PORT  numeric address and port (default "
	WEB_DEFAULT_LISTEN ");\n"
	"                      port 0 picks a free one, printed on stdout\n"
	"  --render            write the pages that changed, then exit\n"
	"                      (for nginx: web/nginx-mmci.conf)\n"
	"  --all               with --render: every page\n"
	"  --watch             with --render: again every second, until\n"
	"                      SIGINT or SIGTERM\n";

static volatile sig_atomic_t web_stop_requested;

static void on_signal(int sig)
{
	web_stop_requested = sig;
}

int cmd_web(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "render", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "watch", no_argument, NULL, 'w' },
		{ "render-loop", no_argument, NULL, 'L' },
		{ "parent", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_addr = WEB_DEFAULT_LISTEN;
	struct web_server *ws;
	struct mmci_config cfg;
	struct sigaction sa;
	struct db db;
	int c, ret, render = 0, all = 0, watch = 0, loop = 0;
	long parent = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'r':
			render = 1;
			break;
		case 'a':
			all = 1;
			break;
		case 'w':
			watch = 1;
			break;
		case 'L':
			loop = 1;
			break;
		case 'p':
			errno = 0;
			parent = strtol(optarg, &end, 10);
			if (errno || *end || parent <= 0)
				die("--parent wants a process id, not '%s'",
				    optarg);
			break;
		case 'h':
			fputs(web_usage, stdout);
			return 0;
		default:
			fputs(web_usage, stderr);
			return 129;
		}
	}
	if (optind != argc || ((all || watch) && !render) ||
	    (all && watch)) {
		fputs(web_usage, stderr);
		return 129;
	}
	/* create or migrate the database once; the server only reads files */
	setup_command(&cfg, &db);
	db_close(&db);
	if (loop || (render && watch)) {
		/* the worker: SIGTERM kills it, every file is whole */
		ret = render_loop(&cfg, (pid_t)parent, &web_stop_requested);
		config_release(&cfg);
		return ret < 0;
	}
	if (render) {
		ret = render_pages(&cfg, all, &c);
		if (!ret)
			printf("mmci web: %d page(s) written\n", c);
		config_release(&cfg);
		return ret < 0;
	}

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
