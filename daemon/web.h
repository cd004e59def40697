/* SPDX-License-Identifier: GPL-2.0 */
/*
 * web.h - the result pages over HTTP, served by libmicrohttpd from the
 * files the renderer writes (render.h).
 *
 * Pages: / (recent runs, jobs, series, metrics), /run/N, /compare/A/B,
 * /series/N, /metric/WORKLOAD/METRIC[?variant=V], /style.css. Anything
 * else is a 404 page, a method other than GET or HEAD a 405; a page not
 * rendered yet is a 503 with Refresh while the render worker writes it.
 *
 * The server runs in libmicrohttpd's own threads (epoll, a few threads,
 * thousands of connections, a short inactivity timeout, a limit per
 * client address, and a deadline for the request header however slowly
 * it trickles in), so a caller's loop only starts and stops it. A
 * request opens a file and sends it: it never reads the database and
 * never forks. web_start() also starts the render worker, a child
 * process (`mmci web --render-loop`) that writes the pages when the
 * database says they changed; web_stop() stops it.
 */
#ifndef MMCI_WEB_H
#define MMCI_WEB_H

struct mmci_config;
struct web_server;

#define WEB_DEFAULT_LISTEN "127.0.0.1:8080"

/**
 * web_listen() - bind and listen, before privileges are dropped
 * @listen_addr: "ADDR:PORT" with a numeric IPv4 address or "[IPv6]:PORT";
 *	NULL means WEB_DEFAULT_LISTEN. Port 0 picks a free port (see
 *	web_socket_port()).
 * @fd: the listening socket (close-on-exec)
 *
 * Return: 0, or -1 after error() (bad address, port in use).
 */
int web_listen(const char *listen_addr, int *fd);

/* the port socket @fd is bound to, or -1 */
int web_socket_port(int fd);

/**
 * web_start() - serve in the background on a socket from web_listen()
 * @cfg: where the database and data directory are; copied, the caller
 *	may release it afterwards
 * @listen_fd: the listening socket; the server owns it from now on
 * @out: the running server, for web_stop()
 *
 * The server and the render worker it starts run with the ids of the
 * caller: mmci as root drops to the service user first (service-user.h).
 *
 * Return: 0, or -1 after error().
 */
int web_start(const struct mmci_config *cfg, int listen_fd,
	      struct web_server **out);

/* the port the server listens on */
int web_port(const struct web_server *ws);

/* stop serving (waits for the requests in flight) and free @ws; NULL is ok */
void web_stop(struct web_server *ws);

#endif
