// SPDX-License-Identifier: GPL-2.0
/*
 * web.c - serve the rendered pages (render.h) over HTTP with
 * libmicrohttpd, and keep the render worker running.
 *
 * Workload: people and crawlers on the internet, some of them slow or
 * hostile: hundreds of connections, most idle or trickling a header.
 * libmicrohttpd runs in epoll mode on a few threads (WEB_THREADS); a
 * connection costs a file descriptor and a little memory, not a thread,
 * so slow clients do not keep others out (measured in bench/web.sh).
 * libmicrohttpd's timeout starts again with every byte, so a client that
 * trickles its header would hold its connection for ever: the request
 * has a deadline of its own (WEB_REQUEST_S from accept), and when
 * WEB_MAX_WAITING connections wait for their header the oldest is closed
 * for a new one, so thousands of tricklers (tests/t0921) cannot fill the
 * connection limit and leave the next client in the listen queue. A
 * request maps its URL onto a file under <data>/www and sends it; it
 * never opens the database or forks. A page that is not written yet is
 * queued for the render worker (www/.queue/) and answered with 503 and
 * Refresh. The worker is a child process (`mmci web --render-loop`),
 * spawned with posix_spawn() (this process has threads: no fork() and
 * malloc in the child) and started again by a watcher thread when it
 * dies.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "render.h"
#include "run-command.h"
#include "strbuf.h"
#include "util.h"
#include "web.h"

#define WEB_THREADS 4			/* epoll threads */
#define WEB_MAX_CONNECTIONS 4000	/* all clients */
#define WEB_PER_IP 8			/* connections of one address */
#define WEB_CONN_TIMEOUT 10		/* s a connection may stay silent */
#define WEB_REQUEST_S 10		/* s from accept to the whole header */
#define WEB_MAX_WAITING 3000		/* connections short of their header */
#define WEB_CUT_LOG_S 60		/* s between notes of closed tricklers */
#define WEB_QUEUE_MAX 64		/* pages queued for the worker */
#define WEB_RETRY_S 2			/* Refresh of a page being rendered */
#define WEB_BACKLOG SOMAXCONN		/* connections waiting for accept() */
#define RENDER_RESTART_S 2		/* s between starts of the worker */

extern char **environ;

/*
 * A connection waiting for its request header: from accept (or from its
 * last response, were it kept alive) until the request handler sees it.
 */
struct web_conn {
	struct web_conn *prev, *next;	/* on ws->oldest, in order of @since */
	uint64_t since;			/* now_ns() at accept */
	int fd;				/* its socket, for shutdown() */
	int waiting;			/* on the list */
};

struct web_server {
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;	/* of the waiting connections */
	struct web_conn *oldest, *newest;
	unsigned int nr_waiting;
	unsigned long nr_late, nr_pushed;	/* closed: deadline, crowd */
	uint64_t cut_logged;	/* now_ns() of the last note of them */
	char *www;		/* <data>/www */
	int www_fd;		/* open directory of www */
	char *exe;		/* this binary, for the worker */
	char **render_env;	/* child_env() + MMCI_DB, MMCI_DATA */
	pid_t render_pid;	/* 0: not running */
	pthread_t watcher;
	int have_watcher;
	volatile int stopping;
	int port;
};

static const char *const url_kinds[] = { "run", "series" };

/* ---- responses ------------------------------------------------------- */

static void add_headers(struct MHD_Response *resp, const char *type)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY,
				"default-src 'none'; style-src 'self' "
				"'unsafe-inline'; img-src 'self' data:; "
				"form-action 'none'; frame-ancestors 'none'; "
				"script-src 'self'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				"no-cache");
}

/* a page made here: 404, 405, 503 */
static enum MHD_Result queue_page(struct MHD_Connection *conn, int status,
				  const char *title, const char *msg)
{
	struct strbuf out = STRBUF_INIT;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *buf;

	render_error_page(&out, title, msg);
	buf = strbuf_detach(&out, &len);
	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	add_headers(resp, "text/html; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					"GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE) {
		char secs[16];

		xsnprintf(secs, sizeof(secs), "%d", WEB_RETRY_S);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
		MHD_add_response_header(resp, "Refresh", secs);
	}
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result not_found(struct MHD_Connection *conn, const char *msg)
{
	return queue_page(conn, MHD_HTTP_NOT_FOUND, "404 not found", msg);
}

static enum MHD_Result being_rendered(struct MHD_Connection *conn)
{
	return queue_page(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			  "being rendered",
			  "this page is being rendered: it reloads by itself "
			  "in a few seconds");
}

/* www/@rel as the response, or -1 when there is no such file */
static int queue_file(const struct web_server *ws,
		      struct MHD_Connection *conn, const char *rel,
		      enum MHD_Result *ret)
{
	int fd = openat(ws->www_fd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct MHD_Response *resp;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	resp = MHD_create_response_from_fd((size_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		*ret = MHD_NO;
		return 0;
	}
	if (ends_with(rel, ".json.gz")) {
		/* a run's bundle (bundle.h): a download, not a page */
		const char *base = strrchr(rel, '/');
		char *cd = xstrfmt("attachment; filename=\"mmci-run-%s\"",
				   base ? base + 1 : rel);

		add_headers(resp, "application/gzip");
		MHD_add_response_header(resp, "Content-Disposition", cd);
		free(cd);
	} else {
		add_headers(resp, ends_with(rel, ".css") ?
			    "text/css; charset=utf-8" :
			    ends_with(rel, ".js") ?
			    "text/javascript; charset=utf-8" :
			    "text/html; charset=utf-8");
	}
	*ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return 0;
}

/* ---- pages not written yet ------------------------------------------- */

/* the newest run and series the renderer saw (www/.ids); -1: not yet */
static long long newest(const struct web_server *ws, const char *kind)
{
	char buf[128];
	long long runs = -1, series = -1;
	int fd = openat(ws->www_fd, ".ids", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "runs %lld series %lld", &runs, &series) != 2)
		return -1;
	return !strcmp(kind, "run") ? runs : series;
}

/* ask the worker for a page: an empty file www/.queue/@name */
static void ask_worker(const struct web_server *ws, const char *name)
{
	char *dir = xstrfmt("%s/.queue", ws->www), *p;
	DIR *d = opendir(dir);
	int n = 0, fd;

	while (d && readdir(d) && n <= WEB_QUEUE_MAX + 2)
		n++;
	if (d)
		closedir(d);
	if (n <= WEB_QUEUE_MAX + 2) {	/* "." and ".." */
		p = xstrfmt("%s/%s", dir, name);
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		free(p);
	}
	free(dir);
}

/*
 * No file for run/series @id: one the renderer knows of is being
 * rendered (and is asked for), a newer one does not exist.
 */
static enum MHD_Result missing(const struct web_server *ws,
			       struct MHD_Connection *conn, const char *kind,
			       long long id)
{
	long long max = newest(ws, kind);
	char *msg, *name;
	enum MHD_Result ret;

	if (max >= 0 && id > max) {
		msg = xstrfmt("no %s #%lld", kind, id);
		ret = not_found(conn, msg);
		free(msg);
		return ret;
	}
	name = xstrfmt("%s_%lld", kind, id);
	ask_worker(ws, name);
	free(name);
	return being_rendered(conn);
}

/* ---- clients that do not finish their request ------------------------ */

/*
 * Every connection is on a list in the order of its accept until its
 * request header is complete (web_conn). The watcher thread closes the
 * ones older than WEB_REQUEST_S (close_late()); a new connection that
 * makes the list longer than WEB_MAX_WAITING closes the oldest. Closing
 * is shutdown() of the socket under ws->lock: the connection's thread
 * reads the end of it and lets it go, and libmicrohttpd tells
 * conn_notify() (which takes the lock) before it closes the descriptor,
 * so the descriptor is never one of another connection.
 */
static void wait_add(struct web_server *ws, struct web_conn *wc)
{
	wc->since = now_ns();
	wc->prev = ws->newest;
	wc->next = NULL;
	if (ws->newest)
		ws->newest->next = wc;
	else
		ws->oldest = wc;
	ws->newest = wc;
	wc->waiting = 1;
	ws->nr_waiting++;
}

static void wait_del(struct web_server *ws, struct web_conn *wc)
{
	if (!wc->waiting)
		return;
	if (wc->prev)
		wc->prev->next = wc->next;
	else
		ws->oldest = wc->next;
	if (wc->next)
		wc->next->prev = wc->prev;
	else
		ws->newest = wc->prev;
	wc->prev = wc->next = NULL;
	wc->waiting = 0;
	ws->nr_waiting--;
}

static void cut(struct web_server *ws, struct web_conn *wc)
{
	wait_del(ws, wc);
	shutdown(wc->fd, SHUT_RDWR);
}

static struct web_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* MHD_OPTION_NOTIFY_CONNECTION: accepted, closed */
static void conn_notify(void *cls, struct MHD_Connection *conn,
			void **socket_context,
			enum MHD_ConnectionNotificationCode toe)
{
	struct web_server *ws = cls;
	struct web_conn *wc = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!wc)
			return;
		pthread_mutex_lock(&ws->lock);
		wait_del(ws, wc);
		pthread_mutex_unlock(&ws->lock);
		free(wc);
		*socket_context = NULL;
		return;
	}
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return;
	wc = xcalloc(1, sizeof(*wc));
	wc->fd = ci->connect_fd;
	*socket_context = wc;
	pthread_mutex_lock(&ws->lock);
	wait_add(ws, wc);
	while (ws->nr_waiting > WEB_MAX_WAITING) {
		cut(ws, ws->oldest);
		ws->nr_pushed++;
	}
	pthread_mutex_unlock(&ws->lock);
}

/* the header is complete: the request handler has it */
static void request_started(struct web_server *ws, struct MHD_Connection *conn)
{
	struct web_conn *wc = conn_of(conn);

	if (!wc)
		return;
	pthread_mutex_lock(&ws->lock);
	wait_del(ws, wc);
	pthread_mutex_unlock(&ws->lock);
}

/*
 * MHD_OPTION_NOTIFY_COMPLETED: a response is sent. libmicrohttpd closes
 * the connection after it (the response is queued as soon as the header
 * is in, see MHD_queue_response()); should it keep one alive, the next
 * request has a deadline of its own.
 */
static void request_done(void *cls, struct MHD_Connection *conn,
			 void **req_cls, enum MHD_RequestTerminationCode toe)
{
	struct web_server *ws = cls;
	struct web_conn *wc = conn_of(conn);

	if (!wc || toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		return;
	pthread_mutex_lock(&ws->lock);
	if (!wc->waiting)
		wait_add(ws, wc);
	pthread_mutex_unlock(&ws->lock);
}

/* the watcher thread, ten times a second: close what is past its deadline */
static void close_late(struct web_server *ws)
{
	uint64_t now = now_ns(), late = now - WEB_REQUEST_S * 1000000000ull;
	unsigned long nr_late, nr_pushed;

	pthread_mutex_lock(&ws->lock);
	while (ws->oldest && ws->oldest->since <= late) {
		cut(ws, ws->oldest);
		ws->nr_late++;
	}
	nr_late = ws->nr_late;
	nr_pushed = ws->nr_pushed;
	if ((nr_late || nr_pushed) &&
	    now - ws->cut_logged >= WEB_CUT_LOG_S * 1000000000ull) {
		ws->nr_late = ws->nr_pushed = 0;
		ws->cut_logged = now;
	} else {
		nr_late = nr_pushed = 0;
	}
	pthread_mutex_unlock(&ws->lock);
	if (nr_late || nr_pushed)
		log_warnx("web: slow clients: closed %lu connection(s) at "
			  "the %d s request deadline, %lu as the oldest of "
			  "%d waiting for their request", nr_late,
			  WEB_REQUEST_S, nr_pushed, WEB_MAX_WAITING);
}

/* ---- routes ---------------------------------------------------------- */

/* a positive decimal id, canonical: no sign, no leading zero, no junk */
static int parse_id(const char *s, long long *out)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n] || s[0] == '0' || n > 15)
		return -1;
	*out = strtoll(s, NULL, 10);
	return 0;
}

static enum MHD_Result route(const struct web_server *ws,
			     struct MHD_Connection *conn, const char *url)
{
	enum MHD_Result ret = MHD_NO;
	const char *rest;
	long long a, b;
	size_t i;
	char *rel;

	if (!strcmp(url, "/")) {
		if (!queue_file(ws, conn, "index.html", &ret))
			return ret;
		return being_rendered(conn);
	}
	if (!strcmp(url, "/style.css")) {
		if (!queue_file(ws, conn, "style.css", &ret))
			return ret;
		return not_found(conn, "no style sheet");
	}
	/* the index's filters (web/filter.js); the page works without */
	if (!strcmp(url, "/filter.js")) {
		if (!queue_file(ws, conn, "filter.js", &ret))
			return ret;
		return not_found(conn, "no script");
	}
	for (i = 0; i < ARRAY_SIZE(url_kinds); i++) {
		char *prefix = xstrfmt("/%s/", url_kinds[i]);
		int match = skip_prefix(url, prefix, &rest);

		free(prefix);
		if (!match)
			continue;
		if (parse_id(rest, &a) < 0)
			return not_found(conn, i ? "no such series" :
					 "no such run");
		rel = xstrfmt("%s/%lld.html", url_kinds[i], a);
		if (queue_file(ws, conn, rel, &ret) < 0)
			ret = missing(ws, conn, url_kinds[i], a);
		free(rel);
		return ret;
	}
	if (skip_prefix(url, "/bundle/", &rest)) {
		if (parse_id(rest, &a) < 0)
			return not_found(conn, "a bundle is /bundle/RUN");
		rel = xstrfmt("bundle/%lld.json.gz", a);
		if (queue_file(ws, conn, rel, &ret) < 0) {
			free(rel);
			rel = xstrfmt("no bundle of run #%lld: no such run, or "
				      "it is not finished", a);
			ret = not_found(conn, rel);
		}
		free(rel);
		return ret;
	}
	if (skip_prefix(url, "/compare/", &rest)) {
		const char *slash = strchr(rest, '/');
		char *first = slash ? xstrndup(rest, slash - rest) : NULL;
		long long max = newest(ws, "run");
		int bad = !first || parse_id(first, &a) < 0 ||
			  parse_id(slash + 1, &b) < 0;

		free(first);
		if (bad)
			return not_found(conn, "compare wants "
					 "/compare/BASE-RUN/NEW-RUN");
		rel = xstrfmt("compare/%lld-%lld.html", a, b);
		if (!queue_file(ws, conn, rel, &ret))
			goto out;
		free(rel);
		rel = xstrfmt("ondemand/%lld-%lld.html", a, b);
		if (!queue_file(ws, conn, rel, &ret))
			goto out;
		if (max >= 0 && (a > max || b > max)) {
			free(rel);
			rel = xstrfmt("no run #%lld or no run #%lld", a, b);
			ret = not_found(conn, rel);
			goto out;
		}
		free(rel);
		rel = xstrfmt("ondemand_%lld-%lld", a, b);
		ask_worker(ws, rel);
		ret = being_rendered(conn);
out:
		free(rel);
		return ret;
	}
	if (skip_prefix(url, "/metric/", &rest)) {
		const char *slash = strchr(rest, '/');
		char *workload = slash ? xstrndup(rest, slash - rest) : NULL;
		const char *variant = MHD_lookup_connection_value(conn,
			MHD_GET_ARGUMENT_KIND, "variant");

		rel = workload ? render_metric_path(workload, slash + 1,
						    variant ? variant : "") :
				 NULL;
		free(workload);
		if (!rel)
			return not_found(conn, "metric wants /metric/WORKLOAD/"
					 "METRIC[?variant=V]");
		if (queue_file(ws, conn, rel, &ret) < 0)
			ret = not_found(conn, "no finished run measured this "
					"metric");
		free(rel);
		return ret;
	}
	if (skip_prefix(url, "/branch/", &rest)) {
		const char *slash = strchr(rest, '/');
		char *remote = slash ? xstrndup(rest, slash - rest) : NULL;

		rel = remote ? render_branch_path(remote, slash + 1) : NULL;
		free(remote);
		if (!rel)
			return not_found(conn, "branch wants /branch/REMOTE/"
					 "BRANCH");
		if (queue_file(ws, conn, rel, &ret) < 0)
			ret = not_found(conn, "no nightly job measured this "
					"branch");
		free(rel);
		return ret;
	}
	rel = xstrfmt("no page '%s'", url);
	ret = not_found(conn, rel);
	free(rel);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct web_server *ws = cls;

	request_started(ws, conn);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		log_debug("web: %s %s -> 405", method, url);
		return queue_page(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "405 method not allowed",
				  "these pages are read-only: GET or HEAD");
	}
	/* a GET with a body: the body is ignored */
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	return route(ws, conn, url);
}

/* ---- the render worker ----------------------------------------------- */

static void render_spawn(struct web_server *ws)
{
	char parent[32];
	const char *argv[] = { ws->exe, "web", "--render-loop", parent, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	pid_t pid;
	int rc;

	xsnprintf(parent, sizeof(parent), "--parent=%ld", (long)getpid());
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* whatever the caller blocks or ignores, SIGTERM ends the worker */
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGTERM);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGHUP);
	sigaddset(&deflt, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, ws->exe, &fa, &attr, (char **)argv,
			 ws->render_env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		log_warn("web: cannot start the render worker '%s'", ws->exe);
		return;
	}
	ws->render_pid = pid;
	log_info("web: render worker pid %ld", (long)pid);
}

/*
 * start the worker again when it dies (kill -9, a crash); close the
 * connections past their request deadline
 */
static void *render_watch(void *data)
{
	struct web_server *ws = data;
	time_t next = 0;

	while (!ws->stopping) {
		int status;

		close_late(ws);

		if (ws->render_pid > 0 &&
		    waitpid(ws->render_pid, &status, WNOHANG) ==
		    ws->render_pid) {
			log_warnx("web: the render worker %ld ended (%s %d); "
				  "starting it again", (long)ws->render_pid,
				  WIFSIGNALED(status) ? "signal" : "exit",
				  WIFSIGNALED(status) ? WTERMSIG(status) :
				  WEXITSTATUS(status));
			ws->render_pid = 0;
			next = time(NULL) + RENDER_RESTART_S;
		}
		if (!ws->render_pid && time(NULL) >= next)
			render_spawn(ws);
		usleep(100 * 1000);
	}
	return NULL;
}

/*
 * The environment of the worker: what run-command.c gives every child
 * (child_env(): no secret, the MMCI_* settings, PATH for gnuplot), and
 * the same database and data directory as absolute paths.
 */
static char **render_environ(const struct mmci_config *cfg)
{
	char *db = xstrfmt("MMCI_DB=%s", cfg->db_path);
	char *data = xstrfmt("MMCI_DATA=%s", cfg->data_dir);
	const char *add[] = { db, data, NULL };
	char **env = child_env(add);

	free(db);
	free(data);
	return env;
}

/* ---- server ---------------------------------------------------------- */

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	strbuf_rtrim(&sb);
	/* a client that goes away or times out is no news */
	if (strstr(sb.buf, "onnection"))
		log_debug("web: %s", sb.buf);
	else
		log_warnx("web: %s", sb.buf);
	strbuf_release(&sb);
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into @ss */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			socklen_t *len, int *v6)
{
	const char *colon = strrchr(s, ':');
	char *host;
	long port;
	char *end;
	int ok;

	if (!colon || !colon[1])
		return error("listen address '%s' is not ADDR:PORT", s);
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || errno || port < 0 || port > 65535 || colon[1] == '-' ||
	    colon[1] == '+')
		return error("bad port in listen address '%s'", s);
	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[' && colon > s && colon[-1] == ']') {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		host = xstrndup(s + 1, colon - s - 2);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		ok = inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1;
		*len = sizeof(*sin6);
		*v6 = 1;
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		host = xstrndup(s, colon - s);
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		ok = inet_pton(AF_INET, host, &sin->sin_addr) == 1;
		*len = sizeof(*sin);
		*v6 = 0;
	}
	free(host);
	if (!ok)
		return error("listen address '%s' wants a numeric address", s);
	return 0;
}

/* a descriptor per connection: the soft limit up to the hard one */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_cur > 65536)
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warn("web: cannot raise the limit of open files");
}

int web_listen(const char *listen_addr, int *fd_out)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int v6 = 0, fd, one = 1;

	*fd_out = -1;
	if (!listen_addr)
		listen_addr = WEB_DEFAULT_LISTEN;
	if (parse_listen(listen_addr, &ss, &len, &v6) < 0)
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return error_errno("cannot make a socket for '%s'",
				   listen_addr);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			      sizeof(one)) < 0) ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, WEB_BACKLOG) < 0) {
		error_errno("cannot serve on '%s'", listen_addr);
		close(fd);
		return -1;
	}
	*fd_out = fd;
	return 0;
}

int web_socket_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int web_start(const struct mmci_config *cfg, int listen_fd,
	      struct web_server **out)
{
	struct web_server *ws;
	int flags;

	*out = NULL;
	/* the worker threads accept in turn: the socket must not block */
	flags = fcntl(listen_fd, F_GETFL);
	if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    fcntl(listen_fd, F_SETFD, FD_CLOEXEC) < 0)
		return error_errno("fd %d is not a socket to serve on",
				   listen_fd);
	ws = xcalloc(1, sizeof(*ws));
	ws->www_fd = -1;
	pthread_mutex_init(&ws->lock, NULL);	/* cannot fail on Linux */
	ws->www = data_path(cfg, "www");
	ws->www_fd = open(ws->www, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ws->www_fd < 0) {
		error_errno("cannot open '%s'", ws->www);
		web_stop(ws);
		return -1;
	}
	ws->exe = real_path("/proc/self/exe");
	ws->render_env = render_environ(cfg);
	raise_nofile();

	ws->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				   MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
				   0, NULL, NULL, handle, ws,
				   MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				   MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
				   MHD_OPTION_THREAD_POOL_SIZE,
				   (unsigned int)WEB_THREADS,
				   MHD_OPTION_CONNECTION_LIMIT,
				   (unsigned int)WEB_MAX_CONNECTIONS,
				   MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				   (unsigned int)WEB_PER_IP,
				   MHD_OPTION_CONNECTION_TIMEOUT,
				   (unsigned int)WEB_CONN_TIMEOUT,
				   MHD_OPTION_NOTIFY_CONNECTION, conn_notify, ws,
				   MHD_OPTION_NOTIFY_COMPLETED, request_done, ws,
				   MHD_OPTION_END);
	if (!ws->mhd) {
		error("cannot serve on fd %d", listen_fd);
		web_stop(ws);
		return -1;
	}
	ws->port = web_socket_port(listen_fd);
	if (pthread_create(&ws->watcher, NULL, render_watch, ws)) {
		error("cannot start the render watcher thread");
		web_stop(ws);
		return -1;
	}
	ws->have_watcher = 1;
	log_info("web: serving port %d from %s as uid %ld", ws->port, ws->www,
		 (long)geteuid());
	*out = ws;
	return 0;
}

int web_port(const struct web_server *ws)
{
	return ws->port;
}

void web_stop(struct web_server *ws)
{
	if (!ws)
		return;
	if (ws->mhd)
		MHD_stop_daemon(ws->mhd);
	ws->stopping = 1;
	if (ws->have_watcher)
		pthread_join(ws->watcher, NULL);
	if (ws->render_pid > 0) {
		int i;

		kill(ws->render_pid, SIGTERM);
		for (i = 0; i < 50 && !waitpid(ws->render_pid, NULL, WNOHANG);
		     i++)
			usleep(100 * 1000);
		if (i == 50) {
			log_warnx("web: the render worker %ld ignores SIGTERM; "
				  "SIGKILL", (long)ws->render_pid);
			kill(ws->render_pid, SIGKILL);
			waitpid(ws->render_pid, NULL, 0);
		}
	}
	if (ws->www_fd >= 0)
		close(ws->www_fd);
	pthread_mutex_destroy(&ws->lock);
	child_env_free(ws->render_env);
	free(ws->exe);
	free(ws->www);
	free(ws);
}
