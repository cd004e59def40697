// SPDX-License-Identifier: GPL-2.0
/*
 * kcidb.c - builds and results as KernelCI's KCIDB JSON, for
 * `kcidb-submit` (`mmci export kcidb`, cmd-export.c, parses the options).
 *
 * The format is KCIDB I/O schema v5.3, whose JSON schema, taken from
 * kernelci/kcidb-io, is tests/fixtures/kcidb/kcidb-io-v5.3.schema.json
 * (t0970 validates every export against it; docs/KCIDB.md):
 * { "version": {"major": 5, "minor": 3}, "checkouts": [], "builds": [],
 * "tests": [] }. Every object has "id" ("<origin>:<local id>") and
 * "origin" (^[a-z0-9_]+$); a build names its checkout_id, a test its
 * build_id; no property may be null, timestamps are RFC 3339.
 *
 * What maps to what:
 *  - checkout: where a build's source came from. A tree build: its commit,
 *    patchset_hash "" (no patches). A series build: the base commit the
 *    series was applied on (the applies row of the build, else the
 *    series' "base-commit:") plus patches 1..upto, patchset_hash computed
 *    as KCIDB documents it (sha256 over the newline-terminated sha256 of
 *    each patch) over the diffs mmci applied, re-read from the stored
 *    thread (a patch file fetched from patchset_files is the whole mail,
 *    so it hashes differently); the id is "<origin>:<base>+<hash>", one
 *    checkout per distinct base and patch set. patchset_files are the
 *    public-inbox "raw" URLs of a series fetched from one. A failed
 *    apply is a checkout with valid false. The repository URL and branch
 *    come from the tree ingest's heads when one of them is the base.
 *  - build: one per builds row, architecture the CPU's (x86_64, arm64;
 *    the set-up, arm64-64k, in misc), config_name the fragment's file
 *    name, status PASS (ok), FAIL (failed), none while 'building'.
 *  - tests of a run (runs with a build; a prebuilt kernel has no source
 *    revision KCIDB could file it under, so its runs are skipped with a
 *    warning):
 *     - "boot", one per VM boot: PASS, FAIL (the guest crashed: panic),
 *       MISS (the domain did not start, or mmci was interrupted), ERROR
 *       (timeout, runner gave no result);
 *     - "mmci.<workload>.<metric>[.<variant>]", one per metric: number =
 *       the run's median as compare.c summarises a run (every sample in
 *       icount mode, per-boot medians in wall-clock mode), unit as stored;
 *       status DONE ("produced a performance measurement result", the
 *       schema's status for a measurement that says nothing about the
 *       code), ERROR when the run failed;
 *     - "mmci.<workload>", ERROR, when the guest reported errors for the
 *       workload or it gave no sample (MISS when no boot started);
 *     - "mmci.compare.<workload>.<metric>[.<variant>]" for every finished
 *       job whose result names a base and a new run (test-series,
 *       nightly): the verdict of `mmci compare BASE NEW`, FAIL (worse),
 *       PASS (better, no change), DONE (insufficient data); number = the
 *       change in %.
 *  - environment: the guest (accelerator, clock, vCPUs, RAM, NVDIMM,
 *    host, QEMU and libvirt versions); misc fields keep mmci's ids.
 * Local ids are database row ids with the row's start time, so a
 * re-created database does not reuse them. Log files become log_url only
 * with --log-url (the data directory served over HTTP); else their paths
 * are in misc. A URL is exported only when it is a URI of RFC 3986, as the
 * schema's "format": "uri" wants; a repository URL that is not one stays
 * in misc. docs/KCIDB.md lists what the export leaves out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <time.h>

#include <jansson.h>

#include "arch.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "ingest.h"
#include "kcidb.h"
#include "mbox.h"
#include "report.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

/* the schema's maxLength of log_excerpt, in characters */
#define KCIDB_EXCERPT_MAX 16384

/* ---------------------------------------------------------------- SHA-256 */

/* FIPS 180-4 SHA-256: KCIDB's patchset_hash needs it, libgit2 hashes SHA-1 */
struct sha256 {
	uint32_t h[8];
	uint64_t len;			/* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
	c->nbuf = 0;
}

static void sha256_block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, cc, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^
			      (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = c->h[0];
	b = c->h[1];
	cc = c->h[2];
	d = c->h[3];
	e = c->h[4];
	f = c->h[5];
	g = c->h[6];
	h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) +
		     ((a & b) ^ (a & cc) ^ (b & cc));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = cc;
		cc = b;
		b = a;
		a = t1 + t2;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
	c->h[5] += f;
	c->h[6] += g;
	c->h[7] += h;
}

static void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->len += len;
	while (len) {
		size_t n = 64 - c->nbuf;

		if (n > len)
			n = len;
		memcpy(c->buf + c->nbuf, p, n);
		c->nbuf += n;
		p += n;
		len -= n;
		if (c->nbuf == 64) {
			sha256_block(c, c->buf);
			c->nbuf = 0;
		}
	}
}

/* the digest as 64 lowercase hex digits and a NUL */
static void sha256_final_hex(struct sha256 *c, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t bits = c->len * 8;
	unsigned char pad = 0x80, zero = 0, lenbuf[8];
	int i;

	sha256_update(c, &pad, 1);
	while (c->nbuf != 56)
		sha256_update(c, &zero, 1);
	for (i = 0; i < 8; i++)
		lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, lenbuf, 8);
	for (i = 0; i < 32; i++) {
		unsigned char byte = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));

		out[2 * i] = hex[byte >> 4];
		out[2 * i + 1] = hex[byte & 15];
	}
	out[64] = '\0';
}

static void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final_hex(&c, out);
}

/* ------------------------------------------------------------ JSON values */

/*
 * A JSON string of any text from the database: jansson refuses invalid
 * UTF-8, so bytes that are not UTF-8 become U+FFFD (mbox.c's rule); the
 * control characters are kept, jansson escapes them.
 */
static json_t *jstr(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j = json_string(s);

	if (j)
		return j;
	mail_charset_to_utf8(&sb, "UTF-8", s, strlen(s));
	j = json_string(sb.buf);
	strbuf_release(&sb);
	if (!j)
		BUG("text is not UTF-8 after cleaning");
	return j;
}

static void set_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, jstr(s));
}

/* a column's text, not set when NULL or empty */
static void set_col(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL && *db_col_text(st, col))
		set_str(o, key, db_col_text(st, col));
}

static void set_int(json_t *o, const char *key, long long v)
{
	json_object_set_new(o, key, json_integer(v));
}

/* JSON has no NaN or infinity, and KCIDB no null: such values are left out */
static void set_real(json_t *o, const char *key, double v)
{
	if (isfinite(v))
		json_object_set_new(o, key, json_real(v));
}

/* Unix seconds as RFC 3339 in UTC: 2020-08-14T23:08:06.967000+00:00 */
static void set_time(json_t *o, const char *key, double t)
{
	char buf[64];
	time_t sec;
	struct tm tm;
	long usec;

	if (!isfinite(t) || t < 0 || t > 253402300799.0)	/* year 9999 */
		return;
	sec = (time_t)t;
	usec = lround((t - (double)sec) * 1e6);
	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	if (!gmtime_r(&sec, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	json_object_set_new(o, key,
			    json_sprintf("%s.%06ld+00:00", buf, usec));
}

static void set_col_time(json_t *o, const char *key, sqlite3_stmt *st,
			 int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		set_time(o, key, sqlite3_column_double(st, col));
}

/* a log excerpt: at most KCIDB_EXCERPT_MAX bytes, cut on a character */
static void set_excerpt(json_t *o, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;

	if (!text || !*text)
		return;
	mail_charset_to_utf8(&sb, "UTF-8", text, strlen(text));
	len = sb.len;
	if (len > KCIDB_EXCERPT_MAX) {
		len = KCIDB_EXCERPT_MAX;
		while (len && ((unsigned char)sb.buf[len] & 0xc0) == 0x80)
			len--;
		strbuf_setlen(&sb, len);
	}
	json_object_set_new(o, "log_excerpt", json_string(sb.buf));
	strbuf_release(&sb);
}

/*
 * One segment of a test path: KCIDB allows [a-zA-Z0-9_-] between the
 * dots. A variant "align=2M,map=dev" becomes "align-2M__map-dev"; the
 * exact variant is in the test's misc.
 */
static void path_add(struct strbuf *sb, const char *s)
{
	if (sb->len)
		strbuf_addch(sb, '.');
	if (!*s)
		strbuf_addch(sb, '_');
	for (; *s; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-')
			strbuf_addch(sb, c);
		else if (c == '=')
			strbuf_addch(sb, '-');
		else if (c == ',')
			strbuf_addstr(sb, "__");
		else
			strbuf_addch(sb, '_');
	}
}

/* percent-encode everything but unreserved characters (and '/' if slash) */
static void url_add_escaped(struct strbuf *sb, const char *s, int slash)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || c == '@' || c == '+' ||
		    (slash && c == '/'))
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* an unreserved character or a sub-delim of RFC 3986 */
static int uri_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("-._~!$&'()*+,;=", c));
}

static int uri_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/*
 * Skip the characters of @s that RFC 3986 allows in a path segment
 * (pchar), and those of @more; a percent sign must start "%XX".
 */
static const char *uri_skip(const char *s, const char *more)
{
	for (;;) {
		if (*s == '%') {
			if (!uri_hex(s[1]) || !uri_hex(s[2]))
				return s;
			s += 3;
		} else if (uri_plain(*s) || (*s && strchr(":@", *s)) ||
			   (*s && strchr(more, *s))) {
			s++;
		} else {
			return s;
		}
	}
}

/*
 * Whether @s is a URI of RFC 3986 (section 3): scheme ":" hier-part
 * ["?" query] ["#" fragment], what KCIDB's "format": "uri" accepts (the
 * rfc3987 module's rule "URI", which jsonschema checks with). A URL with
 * a space, a byte that is not ASCII or a stray '%' is not one.
 */
static int uri_valid(const char *s)
{
	const char *p = s, *end;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (*p++ != ':')
		return 0;
	if (starts_with(p, "//")) {	/* [userinfo "@"] host [":" port] */
		p += 2;
		end = p + strcspn(p, "/?#");
		if (memchr(p, '@', end - p)) {
			const char *u = p;

			while (u < end && *u != '@') {
				if (*u == '%') {
					if (!uri_hex(u[1]) || !uri_hex(u[2]))
						return 0;
					u += 3;
				} else if (uri_plain(*u) || *u == ':') {
					u++;
				} else {
					return 0;
				}
			}
			p = u + 1;
		}
		if (*p == '[') {	/* IP-literal */
			const char *q = p + 1;

			if (*q == 'v') {
				for (q++; uri_hex(*q); q++)
					;
				if (q == p + 2 || *q++ != '.' ||
				    !(uri_plain(*q) || *q == ':'))
					return 0;
				while (uri_plain(*q) || *q == ':')
					q++;
			} else {	/* IPv6address */
				char ip6[64];
				struct in6_addr a;

				while (uri_hex(*q) || *q == ':' || *q == '.')
					q++;
				if (q == p + 1 || q - p > (long)sizeof(ip6))
					return 0;
				memcpy(ip6, p + 1, q - p - 1);
				ip6[q - p - 1] = '\0';
				if (inet_pton(AF_INET6, ip6, &a) != 1)
					return 0;
			}
			if (*q != ']')
				return 0;
			p = q + 1;
		} else {		/* reg-name */
			for (;;) {
				if (*p == '%' && uri_hex(p[1]) && uri_hex(p[2]))
					p += 3;
				else if (uri_plain(*p))
					p++;
				else
					break;
			}
		}
		if (*p == ':')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		if (p != end)
			return 0;
	}
	p = uri_skip(p, "/");
	if (*p == '?')
		p = uri_skip(p + 1, "/?");
	if (*p == '#')
		p = uri_skip(p + 1, "/?");
	return !*p;
}

int kcidb_valid_origin(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

/* ------------------------------------------------------------- the export */

/* the patches of a series as KCIDB hashes them, computed once per series */
struct series_hashes {
	long long id;
	size_t nr;		/* 0 when the patches could not be read */
	char (*hex)[65];	/* sha256 of each patch's diff, in order */
};

struct export {
	struct db *db;
	const struct mmci_config *cfg;
	const char *origin;
	const char *log_url;	/* where the data directory is served, or NULL */
	json_t *checkouts, *builds, *tests;
	json_t *checkout_index;	/* checkout id -> its object (borrowed) */
	json_t *build_index;	/* builds.id as text -> KCIDB build id */
	long long *runs;	/* selected run ids, sorted */
	size_t nr_runs;
	struct series_hashes *sh;
	size_t nr_sh, alloc_sh;
	struct strbuf prebuilt;	/* "#4, #7": runs skipped */
	int nr_prebuilt;
	int failed;		/* a lookup failed: the export is incomplete */
};

/* "<log-url>/<path below the data directory>", or NULL; caller frees */
static char *file_url(const struct export *ex, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *rest;
	size_t n;

	if (!ex->log_url || !path || !*path ||
	    !skip_prefix(path, ex->cfg->data_dir, &rest) || *rest != '/')
		return NULL;
	while (*rest == '/')
		rest++;
	strbuf_addstr(&sb, ex->log_url);
	n = sb.len;
	while (n && sb.buf[n - 1] == '/')
		n--;
	strbuf_setlen(&sb, n);
	strbuf_addch(&sb, '/');
	url_add_escaped(&sb, rest, 1);
	return strbuf_detach(&sb, NULL);
}

/* a log: log_url when the data directory is served, else its path in misc */
static void set_log(const struct export *ex, json_t *o, json_t *misc,
		    const char *misc_key, const char *path)
{
	char *url = file_url(ex, path);

	if (url)
		json_object_set_new(o, "log_url", json_string(url));
	else if (path && *path)
		set_str(misc, misc_key, path);
	free(url);
}

/* a KCIDB resource: a file name and its URL */
static json_t *resource(const char *name, const char *url)
{
	json_t *r = json_object();

	json_object_set_new(r, "name", jstr(name));
	json_object_set_new(r, "url", jstr(url));
	return r;
}

/* a resource of a file below the data directory; KCIDB wants a name */
static void add_file(const struct export *ex, json_t *list, const char *name,
		     const char *path)
{
	char *url = *name ? file_url(ex, path) : NULL;

	if (url)
		json_array_append_new(list, resource(name, url));
	free(url);
}

static const struct series_hashes *series_hashes(struct export *ex,
						 long long series_id)
{
	struct loaded_series ls;
	struct series_hashes *h;
	sqlite3_stmt *st;
	size_t i;

	for (i = 0; i < ex->nr_sh; i++)
		if (ex->sh[i].id == series_id)
			return &ex->sh[i];
	ALLOC_GROW(ex->sh, ex->nr_sh + 1, ex->alloc_sh);
	h = &ex->sh[ex->nr_sh++];
	memset(h, 0, sizeof(*h));
	h->id = series_id;
	if (ingest_load_stored(ex->db, series_id, &ls) < 0) {
		warning("series #%lld: its mails cannot be read again, so its "
			"checkouts have no patchset_hash", series_id);
		return h;
	}
	/* the diffs must be the ones stored when the series was applied */
	st = db_query(ex->db, "SELECT idx, diff_sha1 FROM patches WHERE "
		      "series_id = ? ORDER BY idx", "i", series_id);
	h->hex = xcalloc(ls.s.nr ? ls.s.nr : 1, sizeof(*h->hex));
	/* a failed read is said, and the checkouts go without the hash */
	for (i = 0; st && db_step(ex->db, st) == DB_ROW; i++) {
		char sha1[41];

		if (i >= ls.s.nr || sqlite3_column_int(st, 0) != (int)i + 1)
			break;
		hash_hex(ls.s.patches[i].diff, strlen(ls.s.patches[i].diff),
			 sha1);
		if (strcmp(sha1, db_col_text(st, 1)))
			break;
		sha256_hex(ls.s.patches[i].diff, strlen(ls.s.patches[i].diff),
			   h->hex[i]);
	}
	if (st)
		sqlite3_finalize(st);
	if (i == ls.s.nr && i) {
		h->nr = i;
	} else {
		warning("series #%lld: the mails read again differ from the "
			"stored patches, so its checkouts have no "
			"patchset_hash", series_id);
		free(h->hex);
		h->hex = NULL;
	}
	loaded_series_release(&ls);
	return h;
}

/* sha256 over the newline-terminated sha256 of patches 1..upto */
static int patchset_hash(struct export *ex, long long series_id, int upto,
			 char out[65])
{
	const struct series_hashes *h = series_hashes(ex, series_id);
	struct sha256 c;
	int i;

	if (upto < 1 || (size_t)upto > h->nr)
		return -1;
	sha256_init(&c);
	for (i = 0; i < upto; i++) {
		sha256_update(&c, h->hex[i], 64);
		sha256_update(&c, "\n", 1);
	}
	sha256_final_hex(&c, out);
	return 0;
}

/*
 * Repository, branch and remote of a commit the tree ingest saw as a
 * head; *fetched is when it was fetched, left alone when it was not seen.
 */
static void checkout_add_head(struct export *ex, json_t *co, json_t *misc,
			      const char *commit, double *fetched)
{
	sqlite3_stmt *st = db_query(ex->db, "SELECT remote, url, branch, "
				    "fetched_at FROM heads WHERE commit_id = ? "
				    "ORDER BY id LIMIT 1", "t", commit);
	int rc;

	if (!st) {
		ex->failed = 1;
		return;
	}
	rc = db_step(ex->db, st);
	if (rc != DB_ROW && rc != DB_DONE)
		ex->failed = 1;
	if (rc == DB_ROW) {
		const char *url = db_col_text(st, 1);

		set_col(co, "tree_name", st, 0);
		/* KCIDB takes https:// URIs only */
		if (starts_with(url, "https://") && uri_valid(url))
			set_str(co, "git_repository_url", url);
		else
			set_str(misc, "git_url", url);
		set_col(co, "git_repository_branch", st, 2);
		*fetched = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
}

/*
 * The patch files of a series fetched from a public-inbox: its thread URL
 * is <inbox>/<msgid>/t.mbox.gz, a patch is <inbox>/<msgid>/raw.
 */
static void checkout_add_files(struct export *ex, json_t *co,
			       long long series_id, int upto)
{
	sqlite3_stmt *st;
	struct strbuf inbox = STRBUF_INIT;
	json_t *files = json_array();
	char *url;
	size_t n;

	url = xstrdup("");
	st = db_query(ex->db, "SELECT coalesce(source_url, '') FROM series "
		      "WHERE id = ?", "i", series_id);
	if (st && db_step(ex->db, st) == DB_ROW) {
		free(url);
		url = xstrdup(db_col_text(st, 0));
	}
	if (st)
		sqlite3_finalize(st);
	if (!(starts_with(url, "https://") || starts_with(url, "http://")) ||
	    !ends_with(url, "/t.mbox.gz"))
		goto out;
	strbuf_add(&inbox, url, strlen(url) - strlen("/t.mbox.gz"));
	n = inbox.len;
	while (n && inbox.buf[n - 1] != '/')
		n--;
	strbuf_setlen(&inbox, n);	/* "https://lore.kernel.org/all/" */
	st = db_query(ex->db, "SELECT idx, coalesce(message_id, '') FROM "
		      "patches WHERE series_id = ? AND idx <= ? ORDER BY idx",
		      "ii", series_id, (long long)upto);
	/* a failed read is said, and the checkout goes without the files */
	while (st && db_step(ex->db, st) == DB_ROW) {
		struct strbuf u = STRBUF_INIT;
		char name[32];

		if (!report_valid_msgid(db_col_text(st, 1)))
			break;
		strbuf_addbuf(&u, &inbox);
		url_add_escaped(&u, db_col_text(st, 1), 0);
		strbuf_addstr(&u, "/raw");
		if (!uri_valid(u.buf)) {	/* the inbox's URL is no URI */
			strbuf_release(&u);
			break;
		}
		xsnprintf(name, sizeof(name), "%04d.patch",
			  sqlite3_column_int(st, 0));
		json_array_append_new(files, resource(name, u.buf));
		strbuf_release(&u);
	}
	if (st)
		sqlite3_finalize(st);
	if (json_array_size(files) == (size_t)upto)
		json_object_set(co, "patchset_files", files);
out:
	json_decref(files);
	strbuf_release(&inbox);
	free(url);
}

/*
 * The checkout of base + patches 1..upto of series_id (0: a tree commit),
 * made once; returns its id (owned by the checkout object).
 * @start: when it was checked out (the apply), 0 if unknown
 * @valid: 1 when the source could be combined, 0 for a failed apply
 * @why: the apply's error when it failed
 */
static const char *checkout_get(struct export *ex, const char *base,
				long long series_id, int upto, double start,
				int valid, const char *why, const char *base_ref)
{
	struct strbuf id = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	char hash[65] = "";
	json_t *co, *misc;

	if (series_id) {
		st = db_query(ex->db, "SELECT title, version, total, "
			      "coalesce(message_id, ''), author, source, "
			      "source_sha1 FROM series WHERE id = ?", "i",
			      series_id);
		int rc = st ? db_step(ex->db, st) : -1;

		/* no row: an export of what there is; a failed read: none */
		if (rc != DB_ROW) {
			if (rc != DB_DONE)
				ex->failed = 1;
			sqlite3_finalize(st);
			st = NULL;
		}
	}
	strbuf_addf(&id, "%s:%s", ex->origin, *base ? base : "unknown");
	if (series_id && !patchset_hash(ex, series_id, upto, hash))
		strbuf_addf(&id, "+%s", hash);
	else if (series_id)	/* no hash: the mbox's content names it */
		strbuf_addf(&id, "+series-%lld-%d-%.12s", series_id, upto,
			    st ? db_col_text(st, 6) : "");
	/* the key as the id will read: the base may not be UTF-8 */
	co = jstr(id.buf);
	strbuf_reset(&id);
	strbuf_addstr(&id, json_string_value(co));
	json_decref(co);
	co = json_object_get(ex->checkout_index, id.buf);
	if (co) {
		if (valid)
			json_object_set_new(co, "valid", json_true());
		goto out;
	}
	co = json_object();
	misc = json_object();
	json_object_set_new(co, "id", jstr(id.buf));
	set_str(co, "origin", ex->origin);
	if (is_commit_hex(base)) {
		double fetched = 0;

		set_str(co, "git_commit_hash", base);
		checkout_add_head(ex, co, misc, base, &fetched);
		/* a tree commit was checked out when it was fetched */
		if (fetched > 0 && (!series_id || !(start > 0)))
			start = fetched;
	} else if (*base) {
		set_str(misc, "base", base);
	}
	if (!series_id)
		set_str(co, "patchset_hash", "");
	else if (hash[0])
		set_str(co, "patchset_hash", hash);
	if (series_id)
		checkout_add_files(ex, co, series_id, upto);
	if (st) {
		int total = sqlite3_column_int(st, 2);
		char *comment;

		if (upto < total)
			comment = xstrfmt("%s (patches 1-%d of %d)",
					  db_col_text(st, 0), upto, total);
		else
			comment = xstrdup(db_col_text(st, 0));
		set_str(co, "comment", comment);
		free(comment);
		if (report_valid_msgid(db_col_text(st, 3)))
			set_str(co, "message_id", db_col_text(st, 3));
		set_int(misc, "series_id", series_id);
		set_int(misc, "series_version", sqlite3_column_int(st, 1));
		set_int(misc, "patches", upto);
		set_int(misc, "total", total);
		set_col(misc, "author", st, 4);
		set_col(misc, "source", st, 5);
	}
	if (base_ref && *base_ref)
		set_str(misc, "base_ref", base_ref);
	if (start > 0)
		set_time(co, "start_time", start);
	json_object_set_new(co, "valid", json_boolean(valid));
	if (!valid)
		set_excerpt(co, why);
	if (json_object_size(misc))
		json_object_set(co, "misc", misc);
	json_decref(misc);
	json_array_append_new(ex->checkouts, co);
	json_object_set(ex->checkout_index, id.buf, co);
out:
	if (st)
		sqlite3_finalize(st);
	strbuf_release(&id);
	return json_string_value(json_object_get(co, "id"));
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* one builds row, with its checkout */
static int export_build(struct export *ex, long long build_id)
{
	sqlite3_stmt *st = db_query(ex->db,
		"SELECT b.commit_id, coalesce(b.series_id, 0), b.upto, "
		"b.config_fragment, b.config_hash, b.dotconfig_hash, b.compiler, "
		"b.kernel_release, b.hz, b.status, b.artifacts, b.log_path, "
		"b.error, b.started_at, b.duration_s, b.cache_key, "
		"coalesce(s.base_commit, ''), b.arch "
		"FROM builds b LEFT JOIN series s ON s.id = b.series_id "
		"WHERE b.id = ?", "i", build_id);
	const char *checkout_id, *status, *base = "";
	const struct arch *arch;
	json_t *b, *misc, *files;
	char key[32];
	char *id, *comment, *base_copy = NULL, *ref = NULL;
	long long series_id;
	double start;
	int step;

	if (!st)
		return -1;
	step = db_step(ex->db, st);
	if (step != DB_ROW) {
		sqlite3_finalize(st);
		return step < 0 ? -1 : error("no build #%lld", build_id);
	}
	series_id = sqlite3_column_int64(st, 1);
	start = sqlite3_column_double(st, 13);
	if (!series_id) {
		checkout_id = checkout_get(ex, db_col_text(st, 0), 0, 0, start,
					   1, NULL, NULL);
	} else {
		/* the apply the build came from: the one that made its
		 * commit, else the newest one before the build started */
		sqlite3_stmt *ap = db_query(ex->db,
			"SELECT base_commit, created_at, base_ref FROM applies "
			"WHERE series_id = ? AND status = 'ok' ORDER BY "
			"head_commit = ? DESC, created_at <= ? DESC, "
			"created_at DESC, id DESC LIMIT 1", "itd", series_id,
			db_col_text(st, 0), start);
		double applied = 0;

		base = "";
		if (ap && db_step(ex->db, ap) == DB_ROW) {
			base_copy = xstrdup(db_col_text(ap, 0));
			ref = xstrdup(db_col_text(ap, 2));
			applied = sqlite3_column_double(ap, 1);
			base = base_copy;
		}
		if (ap)
			sqlite3_finalize(ap);
		if (!*base && is_commit_hex(db_col_text(st, 16)))
			base = db_col_text(st, 16);
		checkout_id = checkout_get(ex, base, series_id,
					   sqlite3_column_int(st, 2), applied,
					   1, NULL, ref);
	}
	id = xstrfmt("%s:build-%lld-%lld", ex->origin, build_id,
		     (long long)start);
	b = json_object();
	misc = json_object();
	json_object_set_new(b, "id", jstr(id));
	set_str(b, "origin", ex->origin);
	set_str(b, "checkout_id", checkout_id);
	if (series_id)
		comment = xstrfmt("series #%lld, patches 1-%d, on %.12s%s%s",
				  series_id, sqlite3_column_int(st, 2),
				  *base ? base : "an unknown base",
				  *db_col_text(st, 7) ? ": Linux " : "",
				  db_col_text(st, 7));
	else
		comment = xstrfmt("%.12s%s%s", db_col_text(st, 0),
				  *db_col_text(st, 7) ? ": Linux " : "",
				  db_col_text(st, 7));
	set_str(b, "comment", comment);
	free(comment);
	set_col_time(b, "start_time", st, 13);
	if (sqlite3_column_type(st, 14) != SQLITE_NULL)
		set_real(b, "duration", sqlite3_column_double(st, 14));
	/* the CPU architecture; a set-up such as arm64-64k is in misc */
	arch = arch_find(db_col_text(st, 17));
	if (arch)
		set_str(b, "architecture",
			strcmp(arch->kernel_arch, "x86") ? arch->kernel_arch :
			"x86_64");
	set_col(misc, "arch", st, 17);
	set_col(b, "compiler", st, 6);
	set_str(b, "config_name", basename_of(db_col_text(st, 3)));
	status = db_col_text(st, 9);
	if (!strcmp(status, "ok"))
		set_str(b, "status", "PASS");
	else if (!strcmp(status, "failed"))
		set_str(b, "status", "FAIL");
	set_excerpt(b, db_col_text(st, 12));
	set_log(ex, b, misc, "log_path", db_col_text(st, 11));
	if (!strcmp(status, "ok") && *db_col_text(st, 10)) {
		char *config = xstrfmt("%s/config", db_col_text(st, 10));
		char *bz = xstrfmt("%s/%s", db_col_text(st, 10),
				   arch ? arch->image_target : "bzImage");
		char *url = file_url(ex, config);

		if (url)
			set_str(b, "config_url", url);
		free(url);
		files = json_array();
		add_file(ex, files, basename_of(bz), bz);
		if (json_array_size(files))
			json_object_set(b, "output_files", files);
		json_decref(files);
		free(config);
		free(bz);
	}
	set_int(misc, "build_id", build_id);
	set_col(misc, "commit", st, 0);
	set_col(misc, "kernel_release", st, 7);
	if (sqlite3_column_type(st, 8) != SQLITE_NULL)
		set_int(misc, "hz", sqlite3_column_int(st, 8));
	set_col(misc, "config_fragment", st, 3);
	set_col(misc, "config_hash", st, 4);
	set_col(misc, "dotconfig_hash", st, 5);
	set_col(misc, "cache_key", st, 15);
	set_col(misc, "artifacts", st, 10);
	if (series_id) {
		set_int(misc, "series_id", series_id);
		set_int(misc, "patches", sqlite3_column_int(st, 2));
	}
	set_str(misc, "mmci_status", status);
	json_object_set_new(b, "misc", misc);
	json_array_append_new(ex->builds, b);
	xsnprintf(key, sizeof(key), "%lld", build_id);
	json_object_set_new(ex->build_index, key, json_string(id));
	free(id);
	free(base_copy);
	free(ref);
	sqlite3_finalize(st);
	return 0;
}

/* failed applies: checkouts whose patches did not apply (valid false) */
static int export_failed_applies(struct export *ex, double since)
{
	sqlite3_stmt *st = db_query(ex->db,
		"SELECT base_commit, series_id, upto, created_at, error, "
		"base_ref FROM applies WHERE status = 'failed' AND "
		"created_at >= ? ORDER BY id", "d", since);
	int step;

	if (!st)
		return -1;
	while ((step = db_step(ex->db, st)) == DB_ROW)
		checkout_get(ex, db_col_text(st, 0),
			     sqlite3_column_int64(st, 1),
			     sqlite3_column_int(st, 2),
			     sqlite3_column_double(st, 3), 0,
			     db_col_text(st, 4), db_col_text(st, 5));
	sqlite3_finalize(st);
	return step < 0 ? -1 : 0;
}

/* what a run's tests share: the row, and what is derived from it */
struct export_run {
	struct run_row row;
	char *prefix;		/* "<origin>:run-<id>-<start>" */
	const char *kcidb_build;
	json_t *env;		/* the environment object, shared */
};

static void export_run_release(struct export_run *r)
{
	run_row_release(&r->row);
	free(r->prefix);
	json_decref(r->env);
}

/* the KCIDB environment of run @r: the machine it ran on */
static json_t *run_environment(const struct run_row *r)
{
	json_t *env = json_object(), *misc;
	char *comment;

	comment = xstrfmt("libvirt/QEMU guest on %s: %s, clock %s, %lld "
			  "vCPU(s)%s, %lld MiB RAM, %lld MiB NVDIMM on %s",
			  r->host, r->accel, r->clock, r->vcpus,
			  r->pin == 1 ? " pinned" : "", r->ram_mib,
			  r->nvdimm_mib, r->backing);
	set_str(env, "comment", comment);
	free(comment);
	misc = json_object();
	set_str(misc, "host", r->host);
	set_str(misc, "accel", r->accel);
	set_str(misc, "clock", r->clock);
	set_int(misc, "vcpus", r->vcpus);
	json_object_set_new(misc, "pinned", json_boolean(r->pin == 1));
	set_int(misc, "ram_mib", r->ram_mib);
	set_int(misc, "nvdimm_mib", r->nvdimm_mib);
	set_str(misc, "nvdimm_backing", r->backing);
	if (*r->qemu_v)
		set_str(misc, "qemu_version", r->qemu_v);
	if (*r->libvirt_v)
		set_str(misc, "libvirt_version", r->libvirt_v);
	json_object_set_new(env, "misc", misc);
	return env;
}

static int export_run_load(struct export *ex, long long id,
			   struct export_run *r)
{
	memset(r, 0, sizeof(*r));
	if (run_load(ex->db, id, &r->row) < 0)
		return -1;
	r->prefix = xstrfmt("%s:run-%lld-%lld", ex->origin, id,
			    (long long)r->row.started_at);
	r->env = run_environment(&r->row);
	return 0;
}

/* a test of a run, with what every test of the run carries */
static json_t *run_test(const struct export *ex, const struct export_run *r,
			const char *local_id, const char *path,
			const char *status)
{
	json_t *t = json_object();
	char *id = xstrfmt("%s:%s", r->prefix, local_id);

	json_object_set_new(t, "id", jstr(id));
	free(id);
	set_str(t, "origin", ex->origin);
	json_object_set_new(t, "build_id", json_string(r->kcidb_build));
	json_object_set(t, "environment", r->env);
	set_str(t, "path", path);
	set_str(t, "status", status);
	return t;
}

static json_t *run_misc(const struct export_run *r)
{
	json_t *misc = json_object();
	char *mode = xstrfmt("%s, clock %s", r->row.accel, r->row.clock);

	set_int(misc, "run_id", r->row.id);
	if (*r->row.label)
		set_str(misc, "run_label", r->row.label);
	if (r->row.job_id)
		set_int(misc, "job_id", r->row.job_id);
	set_str(misc, "mode", mode);
	free(mode);
	set_str(misc, "kernel_release", r->row.release);
	if (r->row.hz)
		set_int(misc, "hz", r->row.hz);
	set_int(misc, "boots", r->row.ok_boots);
	set_str(misc, "run_status", r->row.status);
	if (*r->row.error)
		set_str(misc, "run_error", r->row.error);
	if (*r->row.qemu_v)
		set_str(misc, "qemu_version", r->row.qemu_v);
	if (*r->row.libvirt_v)
		set_str(misc, "libvirt_version", r->row.libvirt_v);
	return misc;
}

/* "boot": one test per VM boot */
static int export_boots(struct export *ex, const struct export_run *r)
{
	sqlite3_stmt *st = db_query(ex->db,
		"SELECT idx, status, coalesce(end_kind, ''), console_log, "
		"results_log, error, started_at, duration_s FROM boots WHERE "
		"run_id = ? AND status != 'running' ORDER BY idx", "i",
		r->row.id);
	int step;

	if (!st)
		return -1;
	while ((step = db_step(ex->db, st)) == DB_ROW) {
		const char *kind = db_col_text(st, 2), *status;
		char local[32];
		json_t *t, *misc = run_misc(r), *files = json_array();

		if (!strcmp(db_col_text(st, 1), "ok"))
			status = "PASS";
		else if (!strcmp(kind, "crashed"))
			status = "FAIL";	/* the kernel panicked */
		else if (!strcmp(kind, "start-failed") ||
			 !strcmp(kind, "interrupted") ||
			 !strcmp(kind, "host-lost"))
			status = "MISS";	/* the harness failed */
		else
			status = "ERROR";	/* timeout, no result */
		xsnprintf(local, sizeof(local), "boot-%d",
			  sqlite3_column_int(st, 0));
		t = run_test(ex, r, local, "boot", status);
		set_col_time(t, "start_time", st, 6);
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			set_real(t, "duration", sqlite3_column_double(st, 7));
		set_excerpt(t, db_col_text(st, 5));
		set_log(ex, t, misc, "console_log", db_col_text(st, 3));
		add_file(ex, files, basename_of(db_col_text(st, 4)),
			 db_col_text(st, 4));
		if (json_array_size(files))
			json_object_set(t, "output_files", files);
		else if (*db_col_text(st, 4))
			set_str(misc, "results_log", db_col_text(st, 4));
		json_decref(files);
		set_int(misc, "boot", sqlite3_column_int(st, 0));
		if (*kind)
			set_str(misc, "end_kind", kind);
		json_object_set_new(t, "misc", misc);
		json_array_append_new(ex->tests, t);
	}
	sqlite3_finalize(st);
	return step < 0 ? -1 : 0;
}

static void summary_misc(json_t *misc, const struct summary *s)
{
	set_real(misc, "min", s->min);
	set_real(misc, "max", s->max);
	set_real(misc, "mean", s->mean);
	set_real(misc, "q1", s->q1);
	set_real(misc, "q3", s->q3);
	set_real(misc, "stddev", s->stddev);
}

static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * "mmci.<workload>": the errors the guest reported for a workload, or a
 * workload of the run that gave no sample at all
 */
static int export_workload_errors(struct export *ex, const struct export_run *r,
				  const struct run_comparison *rc)
{
	sqlite3_stmt *st = db_query(ex->db,
		"SELECT workload, group_concat(CASE WHEN coalesce(variant, "
		"'') = '' THEN message ELSE variant || ': ' || message END, "
		"char(10)), count(*) FROM events WHERE run_id = ? AND kind = "
		"'error' AND workload IS NOT NULL GROUP BY workload ORDER BY "
		"workload", "i", r->row.id);
	struct strbuf seen = STRBUF_INIT, list = STRBUF_INIT;
	const char *w, *next;
	size_t i;
	int step;

	if (!st)
		return -1;
	while ((step = db_step(ex->db, st)) == DB_ROW) {
		struct strbuf path = STRBUF_INIT;
		json_t *t, *misc = run_misc(r);
		char *local;

		w = db_col_text(st, 0);
		path_add(&path, "mmci");
		path_add(&path, w);
		local = xstrfmt("%s:errors", w);
		t = run_test(ex, r, local, path.buf, "ERROR");
		free(local);
		set_time(t, "start_time", r->row.started_at);
		set_excerpt(t, db_col_text(st, 1));
		set_str(misc, "workload", w);
		set_int(misc, "errors", sqlite3_column_int(st, 2));
		json_object_set_new(t, "misc", misc);
		json_array_append_new(ex->tests, t);
		strbuf_addf(&seen, ",%s", w);
		strbuf_release(&path);
	}
	sqlite3_finalize(st);
	if (step < 0) {
		strbuf_release(&seen);
		return -1;
	}

	/* workloads of the run with neither a sample nor an error */
	strbuf_addstr(&list, r->row.workloads);
	for (w = list.buf; *w; w = next) {
		struct strbuf path = STRBUF_INIT;
		char *word;
		int has = 0;
		json_t *t, *misc;

		next = strchr(w, ',');
		word = next ? xstrndup(w, next - w) : xstrdup(w);
		next = next ? next + 1 : w + strlen(w);
		for (i = 0; i < rc->nr; i++)
			has |= !strcmp(rc->m[i].workload, word) &&
			       rc->m[i].c.base.n > 0;
		if (!*word || has || in_list(seen.buf, word)) {
			free(word);
			continue;
		}
		path_add(&path, "mmci");
		path_add(&path, word);
		misc = run_misc(r);
		/* no boot got as far as the guest: the harness failed */
		t = run_test(ex, r, word, path.buf,
			     !r->row.ok_boots &&
			     !strcmp(r->row.status, "failed") &&
			     db_int(ex->db, 0, "SELECT count(*) FROM boots "
				    "WHERE run_id = ? AND end_kind NOT IN "
				    "('start-failed', 'interrupted', "
				    "'host-lost')", "i",
				    r->row.id) == 0 ? "MISS" : "ERROR");
		set_time(t, "start_time", r->row.started_at);
		set_excerpt(t, *r->row.error ? r->row.error :
			    "the workload gave no sample and reported no "
			    "error");
		set_str(misc, "workload", word);
		json_object_set_new(t, "misc", misc);
		json_array_append_new(ex->tests, t);
		strbuf_release(&path);
		free(word);
	}
	strbuf_release(&seen);
	strbuf_release(&list);
	return 0;
}

static void metric_path(struct strbuf *sb, const char *top,
			const struct metric_comparison *mc)
{
	path_add(sb, "mmci");
	if (top)
		path_add(sb, top);
	path_add(sb, mc->workload);
	path_add(sb, mc->metric);
	if (*mc->variant)
		path_add(sb, mc->variant);
}

/*
 * "mmci.<workload>.<metric>[.<variant>]": the run's value. compare.c
 * chooses a run's units (every sample in icount mode, the median of each
 * boot in wall-clock mode) and summarises them; comparing the run with
 * itself gives that summary, the numbers `mmci compare` shows.
 */
static int export_metrics(struct export *ex, const struct export_run *r)
{
	struct run_comparison rc;
	int per_boot = !strcmp(r->row.clock, "wall");
	size_t i;

	if (compare_runs(ex->db, r->row.id, r->row.id, &rc) < 0)
		return -1;
	for (i = 0; i < rc.nr; i++) {
		const struct metric_comparison *mc = &rc.m[i];
		const struct summary *s = &mc->c.base;
		struct strbuf path = STRBUF_INIT;
		json_t *t, *misc = run_misc(r);
		char *local;

		metric_path(&path, NULL, mc);
		local = xstrfmt("%s:%s:%s", mc->workload, mc->variant,
				mc->metric);
		t = run_test(ex, r, local, path.buf,
			     !strcmp(r->row.status, "ok") ? "DONE" : "ERROR");
		free(local);
		if (s->n > 0 && isfinite(s->median)) {
			json_t *num = json_object();

			set_real(num, "value", s->median);
			set_str(num, "unit", mc->unit);
			json_object_set_new(t, "number", num);
		}
		set_time(t, "start_time", r->row.started_at);
		if (r->row.ended_at >= r->row.started_at)
			set_real(t, "duration",
				 r->row.ended_at - r->row.started_at);
		if (!strcmp(r->row.status, "failed"))
			set_excerpt(t, r->row.error);
		set_str(misc, "workload", mc->workload);
		set_str(misc, "variant", mc->variant);
		set_str(misc, "metric", mc->metric);
		set_int(misc, "units", (long long)s->n);
		set_str(misc, "unit_of_replication",
			per_boot ? "median of a boot" : "sample");
		set_int(misc, "sample_boots", mc->base_boots);
		summary_misc(misc, s);
		json_object_set_new(t, "misc", misc);
		json_array_append_new(ex->tests, t);
		strbuf_release(&path);
	}
	export_workload_errors(ex, r, &rc);
	run_comparison_release(&rc);
	return 0;
}

static int run_selected(const struct export *ex, long long id)
{
	size_t lo = 0, hi = ex->nr_runs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ex->runs[mid] == id)
			return 1;
		if (ex->runs[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* the tests of one run; 1 when it was skipped */
static int export_run(struct export *ex, long long id)
{
	struct export_run r;
	char key[32];
	int ret = 0;

	if (export_run_load(ex, id, &r) < 0)
		return -1;
	if (!strcmp(r.row.status, "running")) {
		warning("run #%lld is still running: not exported", id);
		ret = 1;
		goto out;
	}
	if (!r.row.build_id) {
		strbuf_addf(&ex->prebuilt, "%s#%lld", ex->nr_prebuilt ? ", " :
			    "", id);
		ex->nr_prebuilt++;
		ret = 1;
		goto out;
	}
	xsnprintf(key, sizeof(key), "%lld", r.row.build_id);
	r.kcidb_build = json_string_value(json_object_get(ex->build_index,
							  key));
	if (!r.kcidb_build) {	/* export_build() said why */
		ret = error("run #%lld: build #%lld is not exported", id,
			    r.row.build_id);
		goto out;
	}
	if (export_boots(ex, &r) < 0 || export_metrics(ex, &r) < 0)
		ret = -1;
out:
	export_run_release(&r);
	return ret;
}

/* "mmci.compare...": the verdicts of the finished jobs' comparisons */
static int export_comparisons(struct export *ex)
{
	sqlite3_stmt *st = db_query(ex->db,
		"SELECT id, kind, b, n FROM (SELECT id, kind, CASE WHEN "
		"json_valid(result) THEN CAST(json_extract(result, "
		"'$.base_run') AS INTEGER) END AS b, CASE WHEN "
		"json_valid(result) THEN CAST(json_extract(result, "
		"'$.new_run') AS INTEGER) END AS n FROM jobs WHERE status = "
		"'done') WHERE b IS NOT NULL AND n IS NOT NULL ORDER BY id",
		"");
	struct strbuf done = STRBUF_INIT;
	int step;

	if (!st)
		return -1;
	while ((step = db_step(ex->db, st)) == DB_ROW) {
		long long job = sqlite3_column_int64(st, 0);
		long long base = sqlite3_column_int64(st, 2);
		long long new = sqlite3_column_int64(st, 3);
		struct run_comparison rc;
		struct export_run r;
		char key[64];
		size_t i;

		xsnprintf(key, sizeof(key), ",%lld-%lld,", base, new);
		if (!run_selected(ex, new) || strstr(done.buf, key))
			continue;
		strbuf_addstr(&done, key);
		if (export_run_load(ex, new, &r) < 0)
			continue;
		xsnprintf(key, sizeof(key), "%lld", r.row.build_id);
		r.kcidb_build = json_string_value(
			json_object_get(ex->build_index, key));
		if (!r.kcidb_build || strcmp(r.row.status, "ok")) {
			export_run_release(&r);
			continue;
		}
		if (compare_runs(ex->db, base, new, &rc) < 0) {
			warning("job #%lld: run #%lld and run #%lld are not "
				"compared", job, base, new);
			export_run_release(&r);
			continue;
		}
		for (i = 0; i < rc.nr; i++) {
			const struct metric_comparison *mc = &rc.m[i];
			const struct comparison *c = &mc->c;
			struct strbuf path = STRBUF_INIT;
			json_t *t, *misc = run_misc(&r);
			const char *status;
			char *local;

			switch (c->verdict) {
			case VERDICT_WORSE:
				status = "FAIL";
				break;
			case VERDICT_BETTER:
			case VERDICT_NO_CHANGE:
				status = "PASS";
				break;
			default:
				status = "DONE";
			}
			metric_path(&path, "compare", mc);
			local = xstrfmt("compare-%lld:%s:%s:%s", base,
					mc->workload, mc->variant, mc->metric);
			t = run_test(ex, &r, local, path.buf, status);
			free(local);
			if (isfinite(c->change_pct)) {
				json_t *num = json_object();

				set_real(num, "value", c->change_pct);
				set_str(num, "unit", "%");
				json_object_set_new(t, "number", num);
			}
			set_time(t, "start_time", r.row.started_at);
			set_str(t, "comment", verdict_name(c->verdict));
			set_int(misc, "job_id", job);
			set_str(misc, "job_kind", db_col_text(st, 1));
			set_int(misc, "base_run", base);
			set_int(misc, "new_run", new);
			set_str(misc, "workload", mc->workload);
			set_str(misc, "variant", mc->variant);
			set_str(misc, "metric", mc->metric);
			set_str(misc, "unit", mc->unit);
			set_str(misc, "verdict", verdict_name(c->verdict));
			if (c->reason[0])
				set_str(misc, "reason", c->reason);
			if (c->method)
				set_str(misc, "method", c->method);
			set_real(misc, "change_pct", c->change_pct);
			set_real(misc, "ci_lo_pct", c->ci_lo_pct);
			set_real(misc, "ci_hi_pct", c->ci_hi_pct);
			set_real(misc, "p_value", c->p_value);
			set_real(misc, "detectable_pct", c->detectable_pct);
			set_real(misc, "base_median", c->base.median);
			set_real(misc, "new_median", c->new.median);
			set_int(misc, "base_units", (long long)c->base.n);
			set_int(misc, "new_units", (long long)c->new.n);
			set_int(misc, "base_boots", mc->base_boots);
			set_int(misc, "new_boots", mc->new_boots);
			json_object_set_new(misc, "ambiguous",
					    json_boolean(c->ambiguous));
			json_object_set_new(t, "misc", misc);
			json_array_append_new(ex->tests, t);
			strbuf_release(&path);
		}
		run_comparison_release(&rc);
		export_run_release(&r);
	}
	sqlite3_finalize(st);
	strbuf_release(&done);
	return step < 0 ? -1 : 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * The selection: the listed runs, and with since >= 0 every run started
 * at or after it. Then the builds of those runs and, with since >= 0, the
 * builds and applies of that period.
 */
static int export_all(struct export *ex, const long long *ids, size_t nr_ids,
		      double since)
{
	size_t alloc = 0, i, j, nr_builds = 0, alloc_builds = 0;
	long long *builds = NULL;
	sqlite3_stmt *st;
	int ret = 0, step;

	for (i = 0; i < nr_ids; i++) {
		ALLOC_GROW(ex->runs, ex->nr_runs + 1, alloc);
		ex->runs[ex->nr_runs++] = ids[i];
	}
	if (since >= 0) {
		st = db_query(ex->db, "SELECT id FROM runs WHERE started_at >= "
			      "? ORDER BY id", "d", since);
		if (!st)
			return -1;
		while ((step = db_step(ex->db, st)) == DB_ROW) {
			ALLOC_GROW(ex->runs, ex->nr_runs + 1, alloc);
			ex->runs[ex->nr_runs++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (step < 0)
			return -1;
	}
	if (ex->nr_runs)
		qsort(ex->runs, ex->nr_runs, sizeof(*ex->runs), cmp_ll);
	for (i = j = 0; i < ex->nr_runs; i++)
		if (!j || ex->runs[j - 1] != ex->runs[i])
			ex->runs[j++] = ex->runs[i];
	ex->nr_runs = j;

	/* builds first: the tests name them */
	for (i = 0; i < ex->nr_runs; i++) {
		long long b = db_int(ex->db, 0, "SELECT coalesce(build_id, 0) "
				     "FROM runs WHERE id = ?", "i", ex->runs[i]);

		if (b > 0) {
			ALLOC_GROW(builds, nr_builds + 1, alloc_builds);
			builds[nr_builds++] = b;
		}
	}
	if (since >= 0) {
		st = db_query(ex->db, "SELECT id FROM builds WHERE started_at "
			      ">= ? ORDER BY id", "d", since);
		if (!st) {
			free(builds);
			return -1;
		}
		while ((step = db_step(ex->db, st)) == DB_ROW) {
			ALLOC_GROW(builds, nr_builds + 1, alloc_builds);
			builds[nr_builds++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (step < 0) {
			free(builds);
			return -1;
		}
	}
	if (nr_builds)
		qsort(builds, nr_builds, sizeof(*builds), cmp_ll);
	for (i = 0; i < nr_builds; i++)
		if ((!i || builds[i - 1] != builds[i]) &&
		    export_build(ex, builds[i]) < 0)
			ret = -1;
	free(builds);
	if (since >= 0 && export_failed_applies(ex, since) < 0)
		ret = -1;
	for (i = 0; i < ex->nr_runs; i++)
		if (export_run(ex, ex->runs[i]) < 0)
			ret = -1;
	if (export_comparisons(ex) < 0 || ex->failed)
		ret = -1;
	if (ex->nr_prebuilt)
		warning("skipped %d run(s) of prebuilt kernels (%s): KCIDB "
			"files tests under a build of a source checkout, and "
			"mmci built none for them", ex->nr_prebuilt,
			ex->prebuilt.buf);
	return ret;
}

int kcidb_valid_log_url(const char *url)
{
	/* files are appended to it: no query or fragment */
	return (starts_with(url, "https://") || starts_with(url, "http://")) &&
	       uri_valid(url) && !strpbrk(url, "?#");
}

int kcidb_export(const struct mmci_config *cfg, struct db *db,
		 const struct kcidb_request *req, char **text)
{
	struct export ex = { 0 };
	size_t i;
	int ret = -1;
	json_t *root;

	*text = NULL;
	for (i = 0; i < req->nr_runs; i++) {
		if (!db_int(db, 0, "SELECT count(*) FROM runs WHERE id = ?",
			    "i", req->runs[i]))
			return error("no run #%lld (see 'mmci show runs')",
				     req->runs[i]);
	}
	ex.db = db;
	ex.cfg = cfg;
	ex.origin = req->origin;
	ex.log_url = req->log_url;
	ex.checkouts = json_array();
	ex.builds = json_array();
	ex.tests = json_array();
	ex.checkout_index = json_object();
	ex.build_index = json_object();
	strbuf_init(&ex.prebuilt, 0);
	if (export_all(&ex, req->runs, req->nr_runs, req->since) < 0) {
		error("the export is incomplete: see above");
		goto release;
	}
	root = json_pack("{s:{s:i, s:i}, s:O, s:O, s:O}", "version",
			 "major", KCIDB_MAJOR, "minor", KCIDB_MINOR,
			 "checkouts", ex.checkouts, "builds", ex.builds,
			 "tests", ex.tests);
	*text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
	json_decref(root);
	if (!*text) {
		error("cannot format the export as JSON");
		goto release;
	}
	{
		char *nl = xstrfmt("%s\n", *text);

		free(*text);
		*text = nl;
	}
	log_info("exported %zu checkout(s), %zu build(s), %zu test(s)",
		 json_array_size(ex.checkouts), json_array_size(ex.builds),
		 json_array_size(ex.tests));
	ret = 0;
release:
	json_decref(ex.checkouts);
	json_decref(ex.builds);
	json_decref(ex.tests);
	json_decref(ex.checkout_index);
	json_decref(ex.build_index);
	for (i = 0; i < ex.nr_sh; i++)
		free(ex.sh[i].hex);
	free(ex.sh);
	free(ex.runs);
	strbuf_release(&ex.prebuilt);
	return ret;
}
