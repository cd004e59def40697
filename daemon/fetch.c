// SPDX-License-Identifier: GPL-2.0
/*
 * fetch.c - polite HTTP GET with a disk cache, on libcurl's easy interface.
 *
 * Workload: a handful of requests per ingest (one t.mbox.gz per thread, a
 * few MiB at most), from a CLI run or the nightly daemon, against lore, a
 * public service that asks robots to be gentle. So: one request at a time,
 * spaced per host, retried slowly, and never twice for the same bytes.
 * Files under <data>/fetch:
 *
 *	<sha1 of url>		the body as last transferred
 *	<sha1 of url>.meta	lines "url:", "etag:", "last-modified:" and
 *			"fetched-at:"
 *	hosts/<host>		Unix time of the last request to the host
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fetch.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"

#define FETCH_USER_AGENT "mmci/0.4 (kernel CI for Linux mm; libcurl)"

void fetch_opts_init(struct fetch_opts *fo)
{
	/* defaults and ranges in config.c; a bad value die()s, naming it */
	fo->max_attempts = config_number("MMCI_FETCH_ATTEMPTS");
	fo->backoff_ms = config_number("MMCI_FETCH_BACKOFF_MS");
	fo->max_backoff_ms = config_number("MMCI_FETCH_MAX_BACKOFF_MS");
	fo->min_interval_ms = config_number("MMCI_FETCH_INTERVAL_MS");
	fo->timeout_s = config_number("MMCI_FETCH_TIMEOUT");
	fo->max_bytes = config_number("MMCI_FETCH_MAX_SIZE");
	fo->refresh = 0;
}

void fetch_result_release(struct fetch_result *res)
{
	free(res->path);
	memset(res, 0, sizeof(*res));
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* validators and fetch time of a cached body */
struct fetch_meta {
	struct strbuf etag, last_modified;
	double fetched_at;
};

static void meta_read(const char *path, struct fetch_meta *m)
{
	FILE *fp = fopen(path, "r");
	struct strbuf line = STRBUF_INIT;
	const char *v;

	if (!fp)
		return;
	while (strbuf_getline(&line, fp) != EOF) {
		if (skip_prefix(line.buf, "etag: ", &v))
			strbuf_addstr(&m->etag, v);
		else if (skip_prefix(line.buf, "last-modified: ", &v))
			strbuf_addstr(&m->last_modified, v);
		else if (skip_prefix(line.buf, "fetched-at: ", &v))
			m->fetched_at = strtod(v, NULL);
	}
	strbuf_release(&line);
	fclose(fp);
}

static int meta_write(const char *path, const char *url,
		      const struct fetch_meta *m)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addf(&sb, "url: %s\n", url);
	if (m->etag.len)
		strbuf_addf(&sb, "etag: %s\n", m->etag.buf);
	if (m->last_modified.len)
		strbuf_addf(&sb, "last-modified: %s\n", m->last_modified.buf);
	strbuf_addf(&sb, "fetched-at: %.3f\n", m->fetched_at);
	ret = write_file(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static void meta_release(struct fetch_meta *m)
{
	strbuf_release(&m->etag);
	strbuf_release(&m->last_modified);
}

/*
 * Wait until min_interval_ms have passed since the last request to @host
 * (by any mmci process using this data directory), then record now. The
 * file lock is held while waiting, so concurrent fetches queue up.
 */
static void host_wait(const struct mmci_config *cfg, const char *host,
		      long min_interval_ms)
{
	char *dir = data_path(cfg, "fetch/hosts");
	char *path, *p, buf[64];
	ssize_t n;
	int fd;

	path = xstrfmt("%s/%s", dir, host);
	/* a host name from the URL parser; keep it one path component */
	for (p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/' || (*p == '.' && p[1] == '.'))
			*p = '_';
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		/* no record: still be polite within this process */
		log_warn("cannot open '%s'", path);
		sleep_ms(min_interval_ms);
		goto out;
	}
	if (flock(fd, LOCK_EX) < 0)
		log_warn("cannot lock '%s'", path);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		double last, wait_ms;

		buf[n] = '\0';
		last = strtod(buf, NULL);
		wait_ms = (last - wall_now()) * 1000 + min_interval_ms;
		if (wait_ms > min_interval_ms)	/* clock went backwards */
			wait_ms = min_interval_ms;
		if (wait_ms > 0) {
			log_debug("waiting %.0f ms before the next request "
				  "to %s", wait_ms, host);
			sleep_ms((long)wait_ms);
		}
	}
	n = xsnprintf(buf, sizeof(buf), "%.3f\n", wall_now());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, n, 0) != n)
		log_warn("cannot write '%s'", path);
	close(fd);	/* drops the lock */
out:
	free(path);
	free(dir);
}

/* what one transfer collects */
struct transfer {
	FILE *fp;
	unsigned long long bytes, max_bytes;
	int too_big;
	struct fetch_meta got;	/* validators of the final response */
	struct strbuf why;	/* what went wrong with the last attempt */
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb;

	if (t->bytes + n > t->max_bytes) {
		t->too_big = 1;
		return 0;	/* makes curl fail with CURLE_WRITE_ERROR */
	}
	t->bytes += n;
	return fwrite(data, 1, n, t->fp);
}

/* the status line of a fetch: bytes so far, of how many if known */
static int on_progress(void *arg, curl_off_t total, curl_off_t now,
		       curl_off_t utotal, curl_off_t unow)
{
	const char *url = arg;

	if (now <= 0)
		return 0;
	if (total > 0)
		progress_status("fetching %s: %lld of %lld bytes", url,
				(long long)now, (long long)total);
	else
		progress_status("fetching %s: %lld bytes", url,
				(long long)now);
	return 0;
}

static void header_value(const char *line, size_t len, const char *name,
			 struct strbuf *out)
{
	size_t nl = strlen(name);

	if (len <= nl || strncasecmp(line, name, nl) || line[nl] != ':')
		return;
	strbuf_reset(out);
	strbuf_add(out, line + nl + 1, len - nl - 1);
	strbuf_trim(out);
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb;

	/* a new status line (redirect, 100 Continue): forget the last one */
	if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
		strbuf_reset(&t->got.etag);
		strbuf_reset(&t->got.last_modified);
	}
	header_value(data, n, "etag", &t->got.etag);
	header_value(data, n, "last-modified", &t->got.last_modified);
	return n;
}

static int retryable_curl_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return 1;
	default:
		return 0;
	}
}

static char *url_host(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL, *scheme = NULL, *ret = NULL;

	if (!u)
		BUG("curl_url: out of memory");
	if (!curl_url_set(u, CURLUPART_URL, url, 0) &&
	    !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    (!strcmp(scheme, "http") || !strcmp(scheme, "https")) &&
	    !curl_url_get(u, CURLUPART_HOST, &host, 0) && *host)
		ret = xstrdup(host);
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ret;
}

/*
 * One GET. Returns 0 when the transfer ended (*status set), -1 on a curl
 * error (*retry says whether another attempt may help).
 */
static int get_once(CURL *c, const char *url, const char *tmp,
		    const struct fetch_opts *fo, const struct fetch_meta *old,
		    struct transfer *t, long *status, long *retry_after_s,
		    int *retry)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL;
	curl_off_t ra = -1;
	CURLcode rc;
	int ret = 0;

	*status = 0;
	*retry_after_s = -1;
	*retry = 0;
	t->fp = fopen(tmp, "wb");
	if (!t->fp)
		return error_errno("cannot create '%s'", tmp);
	t->bytes = 0;
	t->too_big = 0;
	if (old && old->etag.len) {
		char *h = xstrfmt("If-None-Match: %s", old->etag.buf);

		hdrs = curl_slist_append(hdrs, h);
		free(h);
	}
	if (old && old->last_modified.len) {
		char *h = xstrfmt("If-Modified-Since: %s",
				  old->last_modified.buf);

		hdrs = curl_slist_append(hdrs, h);
		free(h);
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, FETCH_USER_AGENT);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, fo->timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 fo->timeout_s < 30 ? fo->timeout_s : 30L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
			 (curl_off_t)fo->max_bytes);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)url);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	if (hdrs)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	rc = curl_easy_perform(c);
	progress_status_end();
	if (fclose(t->fp) && !rc)
		ret = error_errno("cannot write '%s'", tmp);
	t->fp = NULL;
	curl_slist_free_all(hdrs);
	if (ret)
		return ret;
	if (t->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return error("'%s' is larger than %llu bytes (the limit)",
			     url, fo->max_bytes);
	if (rc != CURLE_OK) {
		const char *why = *errbuf ? errbuf : curl_easy_strerror(rc);

		*retry = retryable_curl_error(rc);
		strbuf_reset(&t->why);
		strbuf_addstr(&t->why, why);
		if (*retry) {
			log_warnx("cannot fetch '%s': %s", url, why);
			return -1;
		}
		return error("cannot fetch '%s': %s", url, why);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK &&
	    ra > 0)
		*retry_after_s = (long)ra;
	return 0;
}

int fetch_url(const struct mmci_config *cfg, const char *url,
	      const struct fetch_opts *fo, struct fetch_result *res)
{
	struct fetch_meta old = { STRBUF_INIT, STRBUF_INIT, 0 };
	struct transfer t = { 0 };
	char key[41], *dir, *meta_path = NULL, *tmp = NULL, *host;
	long wait_ms = fo->backoff_ms;
	int cached, attempt, ret = -1;
	CURL *c = NULL;

	memset(res, 0, sizeof(res[0]));
	host = url_host(url);
	if (!host)
		return error("'%s' is not an http(s) URL", url);
	dir = data_path(cfg, "fetch");
	hash_hex(url, strlen(url), key);
	res->path = xstrfmt("%s/%s", dir, key);
	meta_path = xstrfmt("%s.meta", res->path);
	cached = file_exists(res->path) && file_exists(meta_path);
	if (cached)
		meta_read(meta_path, &old);
	if (cached && !fo->refresh) {
		log_debug("'%s' from the cache '%s'", url, res->path);
		res->from_cache = 1;
		res->fetched_at = old.fetched_at;
		ret = 0;
		goto out;
	}
	tmp = xstrfmt("%s.tmp.%ld", res->path, (long)getpid());
	c = curl_easy_init();
	if (!c)
		BUG("curl_easy_init failed");
	t.got = (struct fetch_meta){ STRBUF_INIT, STRBUF_INIT, 0 };
	strbuf_init(&t.why, 0);
	t.max_bytes = fo->max_bytes;
	for (attempt = 1;; attempt++) {
		long status, retry_after_s;
		int retry;

		host_wait(cfg, host, fo->min_interval_ms);
		res->requests++;
		if (get_once(c, url, tmp, fo, cached ? &old : NULL, &t,
			     &status, &retry_after_s, &retry) < 0) {
			if (!retry)
				goto out;
		} else {
			res->status = status;
			if (status == 200)
				break;
			if (status == 304 && cached) {
				log_info("'%s' has not changed (HTTP 304)",
					 url);
				res->from_cache = 1;
				res->fetched_at = old.fetched_at;
				ret = 0;
				goto out;
			}
			if (status != 429 && status < 500) {
				error("cannot fetch '%s': HTTP %ld", url,
				      status);
				goto out;
			}
			strbuf_reset(&t.why);
			strbuf_addf(&t.why, "HTTP %ld", status);
			log_warnx("cannot fetch '%s': HTTP %ld", url, status);
		}
		if (attempt >= fo->max_attempts) {
			error("giving up on '%s' after %d attempt(s): %s", url,
			      attempt, t.why.buf);
			goto out;
		}
		if (retry_after_s >= 0) {
			if (retry_after_s * 1000 > fo->max_backoff_ms) {
				error("'%s' asks to retry after %ld s, longer "
				      "than the longest wait (%ld ms)", url,
				      retry_after_s, fo->max_backoff_ms);
				goto out;
			}
			if (retry_after_s * 1000 > wait_ms)
				wait_ms = retry_after_s * 1000;
		}
		if (wait_ms > fo->max_backoff_ms)
			wait_ms = fo->max_backoff_ms;
		log_info("retry %d/%d of '%s' in %ld ms", attempt + 1,
			 fo->max_attempts, url, wait_ms);
		sleep_ms(wait_ms);
		wait_ms = wait_ms * 2 > fo->max_backoff_ms ?
			fo->max_backoff_ms : wait_ms * 2;
	}
	if (rename(tmp, res->path) < 0) {
		error_errno("cannot rename '%s' to '%s'", tmp, res->path);
		goto out;
	}
	t.got.fetched_at = res->fetched_at = wall_now();
	if (meta_write(meta_path, url, &t.got) < 0)
		goto out;
	log_info("fetched '%s': %llu bytes", url, t.bytes);
	ret = 0;
out:
	if (tmp)
		unlink(tmp);
	if (c)
		curl_easy_cleanup(c);
	meta_release(&t.got);
	meta_release(&old);
	strbuf_release(&t.why);
	free(tmp);
	free(meta_path);
	free(dir);
	free(host);
	return ret;
}
