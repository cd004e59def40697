// SPDX-License-Identifier: GPL-2.0
/*
 * smtp.c - one message to one SMTP server with libcurl, and the outbox.
 *
 * Workload: a few mails a night (one per tested series, one per nightly
 * regression), each a few KiB, to a local relay or a submission port. So:
 * one connection per message, no pipelining, short timeouts, and an error
 * that says which command the server refused and what it answered,
 * because that is what the operator needs to fix it. The session is
 * logged at -v, except AUTH lines.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "smtp.h"
#include "strbuf.h"
#include "util.h"

/* bytes of a server reply kept for the error message */
#define SMTP_MAX_REPLY 512

static const char *env_or_null(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void smtp_settings_init(struct smtp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->url = env_or_null("MMCI_SMTP_URL");
	s->username = env_or_null("MMCI_SMTP_USER");
	s->password = env_or_null("MMCI_SMTP_PASSWORD");
	/* strict, as the daemon checked them at start (config.c) */
	s->require_tls = config_number("MMCI_SMTP_TLS");
	s->connect_timeout_s = 10;
	s->timeout_s = config_number("MMCI_SMTP_TIMEOUT");
}

static int atext(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+/=?^_`{|}~-", c));
}

int smtp_valid_address(const char *addr)
{
	const char *at, *p;
	int dots_ok = 1;

	if (!addr || !*addr || strlen(addr) > 254)
		return 0;
	at = strrchr(addr, '@');
	if (!at || at == addr || at - addr > 64 || !at[1])
		return 0;
	/* local part: dot-atom */
	for (p = addr; p < at; p++) {
		if (*p == '.') {
			if (p == addr || p[1] == '@' || p[-1] == '.')
				return 0;
		} else if (!atext((unsigned char)*p)) {
			return 0;
		}
	}
	/* domain: labels of letters, digits and '-' */
	for (p = at + 1; *p; p++) {
		if (*p == '.') {
			if (dots_ok)
				return 0;
			dots_ok = 1;
		} else if ((*p >= 'a' && *p <= 'z') ||
			   (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '-') {
			dots_ok = 0;
		} else {
			return 0;
		}
	}
	return !dots_ok;
}

char *smtp_redact_url(const char *url)
{
	const char *host = strstr(url, "://"), *at, *slash;

	if (!host)
		return xstrdup(url);
	host += 3;
	slash = host + strcspn(host, "/?#");
	at = memchr(host, '@', slash - host);
	if (!at)
		return xstrdup(url);
	return xstrfmt("%.*s***@%s", (int)(host - url), url, at + 1);
}

/* what the session looked like, for the error message and -v */
struct session {
	struct strbuf cmd;	/* the last command sent, "RCPT TO:<a@b>" */
	struct strbuf reply;	/* the server's reply to it */
	int quitting;		/* QUIT sent: its reply is not news */
};

/* untrusted text from the server: printable ASCII, one line */
static void add_clean(struct strbuf *sb, const char *data, size_t size,
		      size_t max)
{
	size_t i;

	for (i = 0; i < size && sb->len < max; i++) {
		unsigned char c = data[i];

		if (c == '\r' || c == '\n')
			continue;
		strbuf_addch(sb, c >= 0x20 && c < 0x7f ? c : '?');
	}
}

/*
 * The commands shown in errors and at -v; anything else is the AUTH
 * exchange (its base64 lines carry the password) and shows as "AUTH".
 */
static int is_plain_command(const char *data, size_t size)
{
	static const char *const verbs[] = {
		"MAIL FROM:", "RCPT TO:", "DATA", "EHLO ", "HELO ",
		"STARTTLS", "RSET", "NOOP",
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		n = strlen(verbs[i]);
		if (size >= n && !strncasecmp(data, verbs[i], n))
			return 1;
	}
	return 0;
}

static int debug_cb(CURL *c, curl_infotype type, char *data, size_t size,
		    void *ptr)
{
	struct session *ss = ptr;

	if (type == CURLINFO_HEADER_OUT) {
		if (size >= 4 && !strncasecmp(data, "QUIT", 4)) {
			ss->quitting = 1;
			return 0;
		}
		strbuf_reset(&ss->cmd);
		strbuf_reset(&ss->reply);
		if (is_plain_command(data, size))
			add_clean(&ss->cmd, data, size, SMTP_MAX_REPLY);
		else
			strbuf_addstr(&ss->cmd, "AUTH");
		log_debug("smtp> %s", ss->cmd.buf);
	} else if (type == CURLINFO_DATA_OUT && !strcmp(ss->cmd.buf, "DATA")) {
		/* the server's next reply is to the end of the message */
		strbuf_reset(&ss->cmd);
		strbuf_reset(&ss->reply);
		strbuf_addstr(&ss->cmd, "end of DATA");
	} else if (type == CURLINFO_HEADER_IN && !ss->quitting) {
		struct strbuf line = STRBUF_INIT;

		add_clean(&line, data, size, SMTP_MAX_REPLY);
		log_debug("smtp< %s", line.buf);
		if (ss->reply.len && ss->reply.len < SMTP_MAX_REPLY)
			strbuf_addstr(&ss->reply, " / ");
		add_clean(&ss->reply, line.buf, line.len, SMTP_MAX_REPLY);
		strbuf_release(&line);
	}
	return 0;
}

struct upload {
	const char *buf;
	size_t len, pos;
};

static size_t read_cb(char *dst, size_t size, size_t nmemb, void *ptr)
{
	struct upload *up = ptr;
	size_t n = size * nmemb;

	if (n > up->len - up->pos)
		n = up->len - up->pos;
	memcpy(dst, up->buf + up->pos, n);
	up->pos += n;
	return n;
}

/* "\n" and lone "\r" become "\r\n": SMTP wants CRLF line ends */
static void to_crlf(struct strbuf *out, const char *msg, size_t len)
{
	size_t i;

	strbuf_grow(out, len + len / 32 + 2);
	for (i = 0; i < len; i++) {
		if (msg[i] == '\r') {
			if (i + 1 < len && msg[i + 1] == '\n')
				i++;
			strbuf_add(out, "\r\n", 2);
		} else if (msg[i] == '\n') {
			strbuf_add(out, "\r\n", 2);
		} else {
			strbuf_addch(out, msg[i]);
		}
	}
	if (out->len < 2 || memcmp(out->buf + out->len - 2, "\r\n", 2))
		strbuf_add(out, "\r\n", 2);
}

int smtp_send(const struct smtp_settings *s, const char *from,
	      const char *const *rcpt, size_t nr_rcpt, const char *message,
	      size_t len, struct strbuf *err)
{
	struct session ss = { STRBUF_INIT, STRBUF_INIT, 0 };
	struct strbuf wire = STRBUF_INIT;
	struct curl_slist *list = NULL;
	struct upload up;
	char errbuf[CURL_ERROR_SIZE] = "", *shown, *mail_from;
	long code = 0;
	CURLcode rc;
	CURL *c;
	size_t i;
	int ret = -1;

	strbuf_reset(err);
	if (!s->url || (!starts_with(s->url, "smtp://") &&
			!starts_with(s->url, "smtps://"))) {
		strbuf_addf(err, "'%s' is not an smtp:// or smtps:// URL",
			    s->url ? s->url : "");
		return error("%s", err->buf);
	}
	if (!smtp_valid_address(from)) {
		strbuf_addstr(err, "invalid envelope sender");
		return error("invalid envelope sender '%s'", from ? from : "");
	}
	if (!nr_rcpt) {
		strbuf_addstr(err, "no recipients");
		return error("no recipients");
	}
	for (i = 0; i < nr_rcpt; i++) {
		char *r;

		if (!smtp_valid_address(rcpt[i])) {
			curl_slist_free_all(list);
			strbuf_addstr(err, "invalid recipient");
			return error("invalid recipient '%s'", rcpt[i]);
		}
		r = xstrfmt("<%s>", rcpt[i]);
		list = curl_slist_append(list, r);
		free(r);
		if (!list)
			BUG("curl_slist_append failed");
	}
	to_crlf(&wire, message, len);
	up.buf = wire.buf;
	up.len = wire.len;
	up.pos = 0;
	shown = smtp_redact_url(s->url);
	mail_from = xstrfmt("<%s>", from);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	c = curl_easy_init();
	if (!c)
		BUG("curl_easy_init failed");
	curl_easy_setopt(c, CURLOPT_URL, s->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, list);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &up);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)up.len);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, s->connect_timeout_s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, s->timeout_s);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &ss);
	if (s->require_tls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (s->username) {
		curl_easy_setopt(c, CURLOPT_USERNAME, s->username);
		curl_easy_setopt(c, CURLOPT_PASSWORD,
				 s->password ? s->password : "");
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK) {
		ret = 0;
	} else if (code >= 400 && ss.reply.len) {
		strbuf_addf(err, "%s: %s", ss.cmd.len ? ss.cmd.buf :
			    "greeting", ss.reply.buf);
		error("SMTP server %s refused the message: %s", shown,
		      err->buf);
	} else {
		strbuf_addf(err, "%s", curl_easy_strerror(rc));
		if (*errbuf)
			strbuf_addf(err, " (%s)", errbuf);
		if (ss.reply.len)
			strbuf_addf(err, "; last reply to %s: %s",
				    ss.cmd.len ? ss.cmd.buf : "greeting",
				    ss.reply.buf);
		error("cannot send to SMTP server %s: %s", shown, err->buf);
	}
	curl_easy_cleanup(c);
	curl_slist_free_all(list);
	free(mail_from);
	free(shown);
	strbuf_release(&wire);
	strbuf_release(&ss.cmd);
	strbuf_release(&ss.reply);
	return ret;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

int smtp_outbox_write(const char *dir, const char *message, size_t len,
		      char **path)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	char *tmp;
	int fd, n;

	*path = NULL;
	if (mkdir_p(dir, 0755) < 0)
		return error_errno("cannot create the outbox '%s'", dir);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	tmp = xstrfmt("%s/.tmp-%ld-%ld.eml", dir, (long)getpid(),
		      (long)ts.tv_nsec);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		return -1;
	}
	if (write_all(fd, message, len) < 0 || fsync(fd) < 0) {
		error_errno("cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	close(fd);
	/* link() never replaces: the first free <stamp>-<n>.eml wins */
	for (n = 1; n < 100000; n++) {
		char *p = xstrfmt("%s/%s-%d.eml", dir, stamp, n);

		if (!link(tmp, p)) {
			*path = p;
			break;
		}
		free(p);
		if (errno != EEXIST) {
			error_errno("cannot store the message in '%s'", dir);
			break;
		}
	}
	unlink(tmp);
	free(tmp);
	return *path ? 0 : -1;
}
