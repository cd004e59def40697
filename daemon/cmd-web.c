// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-web.c - `mmci web`: serve the read-only pages until SIGINT/SIGTERM;
 * `mmci web --render`: write the pages that changed, once.
 *
 * The daemon serves its pages through this command too, as a child given
 * the socket it bound (`--listen-fd 3`). Alone, it is for a machine that
 * only shows results, for a renderer in front of nginx
 * (systemd/mmci-render.service), and for the tests. `--render-loop` is the
 * render worker web_start() spawns.
 *
 * Started as root, every mode binds first and then becomes the service
 * user (service-user.h) for good: requests, the render worker and the
 * files it writes are that user's, never root's.
 *
 * No mode needs a secret, and every mode parses what others wrote: the
 * environment's secrets (MMCI_SMTP_PASSWORD, a URL's password) are
 * wiped from the process at once, before the database is even opened
 * (config_drop_secrets()); `mmci web` started by hand with the settings
 * file's environment holds none while it serves.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "render.h"
#include "service-user.h"
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
	"  --listen-fd N       serve on the listening socket N (the daemon)\n"
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
		{ "listen-fd", required_argument, NULL, 'f' },
		{ "render", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "watch", no_argument, NULL, 'w' },
		{ "render-loop", no_argument, NULL, 'L' },
		{ "parent", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_addr = WEB_DEFAULT_LISTEN;
	struct service_user su;
	struct web_server *ws;
	struct mmci_config cfg;
	struct sigaction sa;
	struct db db;
	int c, ret, render = 0, all = 0, watch = 0, loop = 0, fd = -1;
	long parent = 0, n;
	char *end;

	config_drop_secrets();
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'f':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 3 || n > 1024)
				die("--listen-fd wants a descriptor number "
				    "above 2, not '%s'", optarg);
			fd = (int)n;
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
	/*
	 * Create or migrate the database as the caller. The server only
	 * reads files, but keeps this connection while it serves: SQLite
	 * then keeps the -wal and -shm files even when another program
	 * (sqlite3 as root) closes its connection, and the render worker,
	 * as the service user, can always open the database without
	 * creating files in a directory it does not own.
	 */
	setup_command(&cfg, &db);
	if (loop || render)
		db_close(&db);
	if (service_user_init(&su) < 0 ||
	    service_user_handover(&su, &cfg) < 0) {
		db_close(&db);
		config_release(&cfg);
		return 1;
	}
	/* a port below 1024 needs root: bind before the drop */
	if (!loop && !render && fd < 0 && web_listen(listen_addr, &fd) < 0) {
		db_close(&db);
		config_release(&cfg);
		return 1;
	}
	if (service_user_become(&su) < 0) {
		db_close(&db);
		config_release(&cfg);
		return 1;
	}
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

	if (web_start(&cfg, fd, &ws) < 0) {
		db_close(&db);
		config_release(&cfg);
		return 1;
	}
	if (su.active)
		log_info("web: serving as user %s (uid %ld)", su.name,
			 (long)su.uid);
	printf("mmci web: listening on port %d\n", web_port(ws));
	fflush(stdout);
	while (!web_stop_requested)
		poll(NULL, 0, 1000);
	log_info("web: signal %d, stopping", (int)web_stop_requested);
	web_stop(ws);
	db_close(&db);
	config_release(&cfg);
	return 0;
}
