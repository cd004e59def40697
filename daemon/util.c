// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - allocation wrappers, error reporting and logging.
 *
 * Everything goes to stderr: in the foreground that is the terminal, under
 * systemd it is the journal. Allocation failure is not an error path: the
 * process aborts, as tmux's xmalloc.c does.
 */
#include <ctype.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int log_verbosity = 1;
static char last_err[4200];

const char *last_error(void)
{
	return last_err[0] ? last_err : "unknown error";
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die("out of memory reallocating %zu bytes", size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory duplicating a string");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die("out of memory duplicating a string");
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		die("out of memory formatting a string");
	va_end(ap);
	return p;
}

int xsnprintf(char *dst, size_t max, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(dst, max, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= max)
		BUG("attempt to snprintf into too-small buffer");
	return len;
}

/*
 * Under systemd, stderr is a stream to journald, which takes a "<N>"
 * syslog priority at the start of a line (sd-daemon(3)). It is that
 * stream when $JOURNAL_STREAM names stderr's device and inode
 * (systemd.exec(5)); a child whose stderr went to a file writes plain.
 */
static int stderr_is_journal(void)
{
	static int known = -1;
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (known >= 0)
		return known;
	known = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
		!fstat(STDERR_FILENO, &st) && st.st_dev == (dev_t)dev &&
		st.st_ino == (ino_t)ino;
	return known;
}

static const char *journal_priority(const char *prefix)
{
	if (!stderr_is_journal())
		return "";
	if (!strcmp(prefix, "fatal: "))
		return "<2>";
	if (!strcmp(prefix, "error: "))
		return "<3>";
	if (strstr(prefix, "warning: "))
		return "<4>";
	if (strstr(prefix, "debug: "))
		return "<7>";
	return "<6>";
}

/* an updating status line is on the terminal now (progress_status()) */
static int status_open;
static double status_logged;	/* now_s() of its last plain line, or of
				 * the step's start */

static void status_close(void)
{
	if (status_open)
		fputs("\r\033[K", stderr);
	status_open = 0;
}

static int errors_held;

void error_hold(void)
{
	errors_held++;
}

void error_unhold(void)
{
	if (!errors_held)
		BUG("error_unhold() without error_hold()");
	errors_held--;
}

static const char *log_name;

void set_log_name(const char *name)
{
	log_name = name;
}

static void vreport(const char *prefix, const char *fmt, va_list ap,
		    int with_errno, int err)
{
	const char *pri = journal_priority(prefix);
	int is_error = !strcmp(prefix, "error: ");
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (is_error) {
		if (with_errno)
			snprintf(last_err, sizeof(last_err), "%s: %s", msg,
				 strerror(err));
		else
			snprintf(last_err, sizeof(last_err), "%s", msg);
		if (errors_held)
			return;
	}
	status_close();
	/* "mmci: " lines of another program name it instead */
	if (log_name && !strncmp(prefix, "mmci: ", 6))
		fprintf(stderr, "%s%s: ", pri, log_name), prefix += 6, pri = "";
	if (with_errno)
		fprintf(stderr, "%s%s%s: %s\n", pri, prefix, msg,
			strerror(err));
	else
		fprintf(stderr, "%s%s%s\n", pri, prefix, msg);
	fflush(stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 1, err);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0, 0);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap, 0, 0);
	va_end(ap);
	exit(128);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap, 1, err);
	va_end(ap);
	exit(128);
}

void BUG_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport("mmci: ", fmt, ap, 0, 0);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 2)
		return;
	va_start(ap, fmt);
	vreport("mmci: debug: ", fmt, ap, 0, 0);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("mmci: warning: ", fmt, ap, 0, 0);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("mmci: warning: ", fmt, ap, 1, err);
	va_end(ap);
}

void progress(const char *fmt, ...)
{
	char prefix[32];
	struct tm tm;
	time_t t = time(NULL);
	va_list ap;

	if (log_verbosity < 1)
		return;
	localtime_r(&t, &tm);
	strftime(prefix, sizeof(prefix), "[%H:%M:%S] ", &tm);
	va_start(ap, fmt);
	vreport(prefix, fmt, ap, 0, 0);
	va_end(ap);
}

void progress_status(const char *fmt, ...)
{
	static int tty = -1;
	char msg[512], prefix[32];
	struct tm tm;
	time_t t = time(NULL);
	double now = now_s();
	va_list ap;

	if (log_verbosity < 1)
		return;
	if (tty < 0)
		tty = isatty(STDERR_FILENO) && !stderr_is_journal();
	/* in a log, a step shorter than PROGRESS_LOG_S says nothing more */
	if (!tty && !status_logged)
		status_logged = now;
	if (!tty && now - status_logged < PROGRESS_LOG_S)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	localtime_r(&t, &tm);
	strftime(prefix, sizeof(prefix), "[%H:%M:%S] ", &tm);
	if (tty) {
		/* one line, rewritten; cut to the usual terminal width */
		fprintf(stderr, "\r\033[K%s%.*s", prefix, 68, msg);
		status_open = 1;
	} else {
		fprintf(stderr, "%s%s%s\n", journal_priority(""), prefix, msg);
		status_logged = now;
	}
	fflush(stderr);
}

void progress_status_end(void)
{
	status_close();
	status_logged = 0;
	fflush(stderr);
}

int starts_with(const char *str, const char *prefix)
{
	return !strncmp(str, prefix, strlen(prefix));
}

int skip_prefix(const char *str, const char *prefix, const char **out)
{
	size_t len = strlen(prefix);

	if (strncmp(str, prefix, len))
		return 0;
	*out = str + len;
	return 1;
}

int ends_with(const char *str, const char *suffix)
{
	size_t len = strlen(str), slen = strlen(suffix);

	return len >= slen && !strcmp(str + len - slen, suffix);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int write_in_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

double now_s(void)
{
	return now_ns() / 1e9;
}

int parse_size(const char *s, unsigned long long *bytes)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
	}
	if (*end || !v || v > (~0ULL >> shift))
		return -1;
	*bytes = v << shift;
	return 0;
}

int parse_size_mib(const char *s, unsigned long long *mib)
{
	unsigned long long b;

	if (parse_size(s, &b) < 0 || b & ((1 << 20) - 1))
		return -1;
	*mib = b >> 20;
	return 0;
}

int valid_size_list(const char *list, int max)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	unsigned long long b;
	int n = 0, ok = 1;

	for (tok = strtok_r(copy, ",", &save); tok && ok;
	     tok = strtok_r(NULL, ",", &save))
		ok = parse_size(tok, &b) == 0 && ++n <= max;
	free(copy);
	return ok && n;
}

int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int utf8_next(const unsigned char *s, size_t len, unsigned int *cp)
{
	unsigned int c = s[0], min;
	int n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < (size_t)n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* --- command-line numbers: die() on bad input, for option parsing --- */

long long parse_count(const char *opt, const char *arg)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (*end || v <= 0)
		die("%s wants a positive number, not '%s'", opt, arg);
	return v;
}

unsigned long long parse_mib(const char *opt, const char *arg)
{
	unsigned long long v;

	/* a bare number is MiB here, as these options always took it */
	if (arg[strspn(arg, "0123456789")] == '\0' && *arg) {
		char *sized = xstrfmt("%sM", arg);
		int rc = parse_size_mib(sized, &v);

		free(sized);
		if (rc == 0)
			return v;
	}
	if (parse_size_mib(arg, &v) < 0)
		die("%s wants a size like 100G or 512M, not '%s'", opt, arg);
	return v;
}

int have_capability(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return 1;
	return 0;
}

void doubles_push(struct doubles *d, double x)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr++] = x;
}

void doubles_release(struct doubles *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

int is_commit_hex(const char *s)
{
	return s && strspn(s, "0123456789abcdef") == 40 && !s[40];
}
