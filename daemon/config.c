// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - paths from the environment with the embedded defaults.
 */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"

extern char **environ;

/*
 * Paths are made absolute once, here: they end up in the database, in
 * libvirt domain XML, in CCACHE_BASEDIR and in the cwd of children.
 */
static char *absolute(const char *path)
{
	char *cwd, *abs, *out, *seg, *save = NULL;
	size_t len = 0;

	if (path[0] == '/') {
		abs = xstrdup(path);
	} else {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			die_errno("cannot get the current directory");
		abs = xstrfmt("%s/%s", cwd, path);
		free(cwd);
	}
	/*
	 * Lexically drop "." and "..": a path through a directory that is
	 * later removed (a test's scratch dir) must still name the target,
	 * and kbuild's M= mishandles "..".
	 */
	out = xmalloc(strlen(abs) + 2);
	out[0] = '\0';
	for (seg = strtok_r(abs, "/", &save); seg;
	     seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..")) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		len += xsnprintf(out + len, strlen(seg) + 2, "/%s", seg);
	}
	if (!len)
		xsnprintf(out, 2, "/");
	free(abs);
	return out;
}

static char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return absolute(v && *v ? v : def);
}

static char *binary_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	return xstrdup(dirname(buf));
}

void config_load(struct mmci_config *cfg)
{
	const char *proj = getenv("MMCI_PROJECT");
	const char *sandbox = getenv("MMCI_BUILD_SANDBOX");

	cfg->db_path = env_or("MMCI_DB", "mmci.db");
	cfg->data_dir = env_or("MMCI_DATA", "var");
	if (getenv("MMCI_TREE") && *getenv("MMCI_TREE"))
		cfg->tree_dir = absolute(getenv("MMCI_TREE"));
	else
		cfg->tree_dir = xstrfmt("%s/linux", cfg->data_dir);
	cfg->project_dir = proj && *proj ? absolute(proj) : binary_dir();
	if (sandbox_kind_parse(sandbox, &cfg->build_sandbox) < 0)
		die("MMCI_BUILD_SANDBOX must be 'bwrap' or 'none', not '%s'",
		    sandbox);
}

void config_release(struct mmci_config *cfg)
{
	free(cfg->db_path);
	free(cfg->data_dir);
	free(cfg->tree_dir);
	free(cfg->project_dir);
}

char *data_path(const struct mmci_config *cfg, const char *sub)
{
	char *p = xstrfmt("%s/%s", cfg->data_dir, sub);

	if (mkdir_p(p, 0755) < 0)
		die("cannot create the data directory '%s'", p);
	return p;
}

int sandbox_kind_parse(const char *s, enum sandbox_kind *kind)
{
	if (!s || !*s || !strcmp(s, "bwrap"))
		*kind = SANDBOX_BWRAP;
	else if (!strcmp(s, "none"))
		*kind = SANDBOX_NONE;
	else
		return -1;
	return 0;
}

char *project_path(const struct mmci_config *cfg, const char *sub)
{
	return xstrfmt("%s/%s", cfg->project_dir, sub);
}

/* ---- the settings that are numbers or words --------------------------- */

enum setting_kind {
	SETTING_NUMBER,	/* a whole number in min..max */
	SETTING_SIZE,	/* "256M", "1G" (parse_size()), bytes in min..max */
	SETTING_WORDS,	/* comma or blank separated words of @words */
	SETTING_WORD,	/* one word of @words, or empty */
};

struct setting_def {
	const char *name;
	enum setting_kind kind;
	long long def, min, max;
	const char *const *words;	/* NULL-terminated */
};

static const char *const source_words[] = { "discover", "tree", "commits",
					     "inbox", NULL };
static const char *const inbox_start_words[] = { "tip", "all", NULL };
static const char *const accel_words[] = { "kvm", "tcg", NULL };

/*
 * Every setting whose value is a number or one of a few words, with its
 * default and range: one table, so that `mmci daemon` refuses to start
 * on a bad value (config_check()) and the module that reads a setting
 * reads the same thing (config_number()). The meanings are in
 * systemd/mmci.conf.example. MMCI_KVM_DEADLINE_S is read by accel.c
 * itself (accel_deadline_s(), 1..600); it is here so that the daemon
 * checks it at start and not at its first job.
 */
static const struct setting_def settings[] = {
	{ "MMCI_POLL_S", SETTING_NUMBER, 300, 1, 7 * 86400, NULL },
	{ "MMCI_POLL_TIMEOUT_S", SETTING_NUMBER, 1800, 1, 86400, NULL },
	/* base.c: how long a job waits for its base-commit to be fetched */
	{ "MMCI_BASE_WAIT_S", SETTING_NUMBER, 86400, 0, 30 * 86400, NULL },
	{ "MMCI_PER_PATCH", SETTING_NUMBER, 1, 0, 1, NULL },
	/* series-job.c: 1 profiles the steps that moved (profile.h) */
	{ "MMCI_PROFILE", SETTING_NUMBER, 1, 0, 1, NULL },
	/* aim.c: the largest NVDIMM a series job is aimed at */
	{ "MMCI_AIM_MAX_NVDIMM", SETTING_SIZE, 100ll << 30, 1ll << 20,
	  16ll << 40, NULL },
	{ "MMCI_MAIL_SEND", SETTING_NUMBER, 0, 0, 1, NULL },
	/* report.c: mails sent per hour at most; the rest wait (MAIL.md) */
	{ "MMCI_MAIL_RATE_PER_HOUR", SETTING_NUMBER, 30, 1, 100000, NULL },
	/* 1: a real send may link to localhost (readers on this host) */
	{ "MMCI_MAIL_LOCAL_LINKS", SETTING_NUMBER, 0, 0, 1, NULL },
	{ "MMCI_SMTP_TLS", SETTING_NUMBER, 0, 0, 1, NULL },
	{ "MMCI_SMTP_TIMEOUT", SETTING_NUMBER, 60, 1, 3600, NULL },
	{ "MMCI_FETCH_ATTEMPTS", SETTING_NUMBER, 4, 1, 100, NULL },
	{ "MMCI_FETCH_BACKOFF_MS", SETTING_NUMBER, 1000, 0, 3600000, NULL },
	{ "MMCI_FETCH_MAX_BACKOFF_MS", SETTING_NUMBER, 60000, 0, 3600000,
	  NULL },
	{ "MMCI_FETCH_INTERVAL_MS", SETTING_NUMBER, 1000, 0, 3600000, NULL },
	{ "MMCI_FETCH_TIMEOUT", SETTING_NUMBER, 120, 1, 86400, NULL },
	{ "MMCI_FETCH_MAX_SIZE", SETTING_SIZE, 256ll << 20, 1, 1ll << 40,
	  NULL },
	/* bundle.c: 1 lets a bundle's base come from a path of this host */
	{ "MMCI_BUNDLE_ALLOW_FILE", SETTING_NUMBER, 0, 0, 1, NULL },
	{ "MMCI_KVM_DEADLINE_S", SETTING_NUMBER, 10, 1, 600, NULL },
	{ "MMCI_VERBOSE", SETTING_NUMBER, 1, 0, 2, NULL },
	{ "MMCI_SOURCES", SETTING_WORDS, 0, 0, 0, source_words },
	/* inbox.c: how long a series waits for its missing mails */
	{ "MMCI_SERIES_WAIT_S", SETTING_NUMBER, 3600, 0, 7 * 86400, NULL },
	/* inbox.c: where a new mark starts */
	{ "MMCI_INBOX_START", SETTING_WORD, 0, 0, 0, inbox_start_words },
	{ "MMCI_ACCEL", SETTING_WORD, 0, 0, 0, accel_words },
};

static const struct setting_def *setting_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(settings); i++)
		if (!strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}

static int is_word(const struct setting_def *d, const char *w, size_t len)
{
	const char *const *p;

	for (p = d->words; *p; p++)
		if (strlen(*p) == len && !strncmp(*p, w, len))
			return 1;
	return 0;
}

static void add_words(struct strbuf *sb, const struct setting_def *d)
{
	const char *const *p;

	for (p = d->words; *p; p++)
		strbuf_addf(sb, "%s'%s'", p == d->words ? "" :
			    p[1] ? ", " : " or ", *p);
}

/*
 * @v of setting @d: 0 and the value in *out, or -1 after error() naming
 * the setting and the value, after @where ("" or "FILE:LINE: ")
 */
static int setting_parse(const struct setting_def *d, const char *v,
			 const char *where, long long *out)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned long long bytes;
	const char *p;
	char *end;
	long long n;

	*out = d->def;
	if (!*v)
		return 0;
	switch (d->kind) {
	case SETTING_NUMBER:
		errno = 0;
		n = strtoll(v, &end, 10);
		/* digits only: no sign, no blanks, no "0x" */
		if (isdigit((unsigned char)*v) && !*end && !errno &&
		    n >= d->min && n <= d->max) {
			*out = n;
			return 0;
		}
		if (d->min == 0 && d->max == 1)
			return error("%s%s='%s' is not 0 or 1", where, d->name,
				     v);
		return error("%s%s='%s' is not a whole number in %lld..%lld",
			     where, d->name, v, d->min, d->max);
	case SETTING_SIZE:
		if (parse_size(v, &bytes) < 0 ||
		    bytes < (unsigned long long)d->min ||
		    bytes > (unsigned long long)d->max)
			return error("%s%s='%s' is not a size (4096, 512K, "
				     "256M, 1G) up to %lldG", where, d->name, v,
				     d->max >> 30);
		*out = (long long)bytes;
		return 0;
	case SETTING_WORD:
		if (is_word(d, v, strlen(v)))
			return 0;
		break;
	case SETTING_WORDS:
		for (p = v; *p; p += strcspn(p, ", \t")) {
			p += strspn(p, ", \t");
			if (*p && !is_word(d, p, strcspn(p, ", \t")))
				break;
		}
		if (!*p)
			return 0;
		break;
	}
	add_words(&sb, d);
	error("%s%s='%s' is not %s%s%s", where, d->name, v,
	      d->kind == SETTING_WORDS ? "a list of " : "", sb.buf,
	      d->kind == SETTING_WORD ? " (or empty)" : "");
	strbuf_release(&sb);
	return -1;
}

int config_check(void)
{
	char **e;
	size_t i;
	int ret = 0;

	/* the daemon hands only the SMTP password on (a pipe), no other */
	for (e = environ; e && *e; e++) {
		char *clean;

		if (!starts_with(*e, "MMCI_") ||
		    starts_with(*e, "MMCI_SMTP_URL="))
			continue;
		clean = config_redact_value(strchrnul(*e, '='));
		if (clean)
			warning("%.*s holds a password in a URL: mmci's "
				"children get the URL without it",
				(int)(strchrnul(*e, '=') - *e), *e);
		free(clean);
	}

	for (i = 0; i < ARRAY_SIZE(settings); i++) {
		const char *v = getenv(settings[i].name);
		long long n;

		if (v && setting_parse(&settings[i], v, "", &n) < 0)
			ret = -1;
	}
	return ret;
}

long long config_number(const char *name)
{
	const struct setting_def *d = setting_find(name);
	const char *v = getenv(name);
	long long n;

	if (!d || d->kind == SETTING_WORD || d->kind == SETTING_WORDS)
		BUG("'%s' is not a numeric setting", name);
	if (setting_parse(d, v ? v : "", "", &n) < 0)
		die("bad setting %s (see systemd/mmci.conf.example)", name);
	return n;
}

/* ---- secrets ---------------------------------------------------------- */

/*
 * The settings that can hold a secret (systemd/mmci.conf.example lists
 * every setting; these are all that can):
 *   by name   MMCI_SMTP_PASSWORD, and any variable whose name says
 *             PASSWORD, PASSWD, SECRET or TOKEN (config_secret_name());
 *   by value  the password of a URL's userinfo, scheme://user:PW@host,
 *             in MMCI_SMTP_URL, MMCI_LIBVIRT_URI, MMCI_LIBVIRT_URIS,
 *             MMCI_LORE_URL, MMCI_DISCOVER_FEED, MMCI_COMMITS_FEED,
 *             MMCI_REMOTES (NAME=URL#BRANCH lists) and MMCI_WEB_URL.
 * The rest are paths, numbers, words, branch names, addresses and `mmci
 * run` options: MMCI_SMTP_USER is a name, not a secret. The value rule
 * is applied to every variable a child keeps, not only to those named,
 * so a URL setting added later is covered without being listed here.
 * A user name stays: libvirt's qemu+ssh://root@host needs it, and a
 * token goes as the password (https://x-access-token:TOKEN@host), as
 * the forges document it.
 */

/*
 * The next URL with a password in @v from *@pos on: *@ui is the start of
 * its userinfo, [*@colon, *@at) is ":password". The authority ends at
 * '/', '?', '#', a blank or ';' (MMCI_REMOTES' separator); the userinfo
 * at its last '@', as a password with a bare '@' would have it.
 * Return: 1, *@pos after the '@'; or 0 when there is none.
 */
static int next_url_password(const char **pos, const char **ui,
			     const char **colon, const char **at)
{
	const char *p = *pos;

	while ((p = strstr(p, "://"))) {
		const char *a = p + 3, *end = a + strcspn(a, "/?# \t\n;");
		const char *q, *last = NULL;

		for (q = a; q < end; q++)
			if (*q == '@')
				last = q;
		p = a;
		if (!last)
			continue;
		q = memchr(a, ':', last - a);
		if (!q)
			continue;
		*ui = a;
		*colon = q;
		*at = last;
		*pos = last + 1;
		return 1;
	}
	return 0;
}

char *config_redact_value(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *pos = v, *done = v, *ui, *colon, *at;

	while (next_url_password(&pos, &ui, &colon, &at)) {
		/* "user:pw@host" -> "user@host"; ":pw@host" -> "host" */
		strbuf_add(&sb, done, colon - done);
		done = colon == ui ? at + 1 : at;
	}
	if (done == v)
		return NULL;
	strbuf_addstr(&sb, done);
	return strbuf_detach(&sb, NULL);
}

static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* @len bytes of @s with %XX decoded (RFC 3986), as curl decodes them */
static char *pct_decode(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < len; i++) {
		int hi, lo;

		/* %00 is kept as written: a C string cannot hold it */
		if (s[i] == '%' && i + 2 < len &&
		    (hi = hex_val((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hex_val((unsigned char)s[i + 2])) >= 0 &&
		    (hi || lo)) {
			strbuf_addch(&sb, hi << 4 | lo);
			i += 2;
			continue;
		}
		strbuf_addch(&sb, s[i]);
	}
	return strbuf_detach(&sb, NULL);
}

int config_url_userinfo(const char *url, char **user, char **password)
{
	const char *p, *a, *end, *q, *at = NULL, *colon;

	*user = *password = NULL;
	if (!url || !(p = strstr(url, "://")))
		return 0;
	a = p + 3;
	end = a + strcspn(a, "/?# \t\n;");
	for (q = a; q < end; q++)
		if (*q == '@')
			at = q;
	if (!at)
		return 0;
	colon = memchr(a, ':', at - a);
	*user = pct_decode(a, (colon ? colon : at) - a);
	if (colon)
		*password = pct_decode(colon + 1, at - colon - 1);
	return 1;
}

void config_drop_secrets(void)
{
	char **e, **names = NULL;
	size_t nr = 0, alloc = 0, i;

	for (e = environ; e && *e; e++) {
		char *eq = strchr(*e, '='), *name, *clean;
		size_t n;

		if (!eq)
			continue;
		name = xstrndup(*e, eq - *e);
		if (config_secret_name(name)) {
			/* the string, not only the pointer: /proc/PID/environ */
			explicit_bzero(eq + 1, strlen(eq + 1));
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = name;
			continue;
		}
		free(name);
		clean = config_redact_value(eq + 1);
		if (!clean)
			continue;
		/* shorter than the value: written over it, the rest zeroed */
		n = strlen(eq + 1);
		memcpy(eq + 1, clean, strlen(clean));
		explicit_bzero(eq + 1 + strlen(clean), n - strlen(clean));
		free(clean);
	}
	for (i = 0; i < nr; i++) {
		unsetenv(names[i]);
		free(names[i]);
	}
	free(names);
}

int config_secret_name(const char *name)
{
	static const char *const words[] = { "PASSWORD", "PASSWD", "SECRET",
					     "TOKEN", NULL };
	const char *const *w;

	for (w = words; *w; w++)
		if (strstr(name, *w))
			return 1;
	return 0;
}

int config_read_env_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT, where = STRBUF_INIT;
	char *line, *next, **names = NULL, **vals = NULL;
	size_t nr = 0, alloc = 0, alloc2 = 0, i;
	int lineno = 0, ret = -1, secret = 0;
	struct stat st;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		error_errno("cannot read the settings file '%s'", path);
		goto out;
	}
	if (stat(path, &st) < 0) {
		error_errno("cannot stat the settings file '%s'", path);
		goto out;
	}
	/* every line is checked before any is used: all or nothing */
	for (line = sb.buf; line && *line; line = next) {
		const struct setting_def *d;
		char *eq, *val, *end;
		long long num;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq || !starts_with(line, "MMCI_")) {
			error("%s:%d: not a MMCI_NAME=value line", path, lineno);
			goto out;
		}
		*eq = '\0';
		val = eq + 1;
		end = val + strlen(val);
		while (end > val && (end[-1] == ' ' || end[-1] == '\t' ||
				     end[-1] == '\r'))
			*--end = '\0';
		if (end - val >= 2 && *val == '"' && end[-1] == '"') {
			end[-1] = '\0';
			val++;
		}
		if (strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    strlen(line)) {
			error("%s:%d: bad name '%s'", path, lineno, line);
			goto out;
		}
		d = setting_find(line);
		strbuf_reset(&where);
		strbuf_addf(&where, "%s:%d: ", path, lineno);
		if (d && setting_parse(d, val, where.buf, &num) < 0)
			goto out;
		if (*val && config_secret_name(line))
			secret = 1;
		ALLOC_GROW(names, nr + 1, alloc);
		ALLOC_GROW(vals, nr + 1, alloc2);
		names[nr] = line;
		vals[nr++] = val;
	}
	/*
	 * ssh refuses a private key others can read, for the same reason:
	 * the password is then not a secret any more, and saying so at once
	 * beats finding out later. mmci.service reads the file as root.
	 */
	if (secret && (st.st_mode & (S_IRGRP | S_IROTH))) {
		error("the settings file '%s' holds a password and is mode "
		      "%04o: readable by %s; chmod 600 it", path,
		      (unsigned)(st.st_mode & 07777),
		      st.st_mode & S_IROTH ? "everyone" : "its group");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (setenv(names[i], vals[i], 1) < 0) {
			error_errno("%s: cannot set %s", path, names[i]);
			goto out;
		}
	}
	ret = (int)nr;
out:
	free(names);
	free(vals);
	strbuf_release(&where);
	strbuf_release(&sb);
	return ret;
}
