// SPDX-License-Identifier: GPL-2.0
/*
 * aim.c - the workloads and size a series is measured on (aim.h).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <strings.h>

#include <jansson.h>

#include "aim.h"
#include "claims.h"
#include "db.h"
#include "util.h"
#include "workload.h"

/* the largest NVDIMM a rule or a job may name, MiB (16 TiB) */
#define AIM_MAX_MIB (16LL << 20)

static int workload_bit(const char *name, unsigned *bits)
{
	size_t i;

	for (i = 0; workload_defs[i].name; i++)
		if (!strcmp(workload_defs[i].name, name)) {
			*bits |= 1u << i;
			return 0;
		}
	return -1;
}

/* a comma list of workload names as bits; -1 names the unknown one */
static int workload_bits(const char *list, unsigned *bits, const char **bad)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int ret = 0;

	*bits = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (workload_bit(tok, bits) < 0) {
			*bad = strstr(list, tok);
			ret = -1;
			break;
		}
	}
	free(copy);
	return ret || !*bits ? -1 : 0;
}

void aim_workloads(unsigned workloads, struct strbuf *out)
{
	size_t i, n = 0;

	for (i = 0; workload_defs[i].name; i++)
		if (workloads & (1u << i))
			strbuf_addf(out, "%s%s", n++ ? "," : "",
				    workload_defs[i].name);
}

void aim_map_release(struct aim_map *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->r[i].pattern);
	free(m->r);
	memset(m, 0, sizeof(*m));
}

int aim_map_parse(const char *text, const char *name, struct aim_map *m)
{
	char *copy = xstrdup(text), *line;
	unsigned lineno = 0;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	/* strtok_r skips empty lines, so count them from the text */
	for (line = copy; line && !ret; ) {
		char *next = strchr(line, '\n'), *w[4], *p, *sv = NULL;
		struct aim_rule r = { 0 };
		size_t nw = 0;
		const char *bad = NULL;

		if (next)
			*next++ = '\0';
		lineno++;
		if ((p = strchr(line, '#')))
			*p = '\0';
		for (p = strtok_r(line, " \t\r", &sv); p && nw < 4;
		     p = strtok_r(NULL, " \t\r", &sv))
			w[nw++] = p;
		line = next;
		if (!nw)
			continue;
		if (nw < 2 || nw > 3) {
			ret = error("%s:%u: want 'PATTERN WORKLOADS "
				    "[nvdimm=SIZE]'", name, lineno);
			break;
		}
		if (workload_bits(w[1], &r.workloads, &bad) < 0) {
			ret = error("%s:%u: '%s' is not a list of workloads "
				    "(mmci workloads)", name, lineno, w[1]);
			break;
		}
		if (nw == 3) {
			unsigned long long mib;

			if (strncmp(w[2], "nvdimm=", 7) ||
			    parse_size_mib(w[2] + 7, &mib) < 0 || !mib ||
			    (long long)mib > AIM_MAX_MIB) {
				ret = error("%s:%u: '%s' is not nvdimm=SIZE "
					    "(1M .. 16T)", name, lineno, w[2]);
				break;
			}
			r.nvdimm_mib = (long long)mib;
		}
		r.pattern = xstrdup(w[0]);
		r.line = lineno;
		ALLOC_GROW(m->r, m->nr + 1, m->alloc);
		m->r[m->nr++] = r;
	}
	free(copy);
	if (ret < 0)
		aim_map_release(m);
	return ret;
}

int aim_map_load(const char *path, struct aim_map *m)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&sb, path, 1 << 20) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read the aim map '%s'", path);
	}
	ret = aim_map_parse(sb.buf, path, m);
	strbuf_release(&sb);
	return ret;
}

int aim_match(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (n >= 3 && !strcmp(pattern + n - 3, "/**")) {
		char *dir = xstrndup(pattern, n - 3);
		size_t d = strlen(dir);
		int ok = !fnmatch(dir, path, FNM_PATHNAME) ||
			 (!strncmp(path, dir, d) && path[d] == '/');

		/* a directory with a '*' in it: match its levels one by one */
		if (!ok && strpbrk(dir, "*?[")) {
			const char *slash = path;
			size_t levels = 1;
			char *prefix;

			for (const char *q = dir; *q; q++)
				levels += *q == '/';
			while (levels-- && slash)
				slash = strchr(slash + 1, '/');
			if (slash) {
				prefix = xstrndup(path, slash - path);
				ok = !fnmatch(dir, prefix, FNM_PATHNAME);
				free(prefix);
			}
		}
		free(dir);
		return ok;
	}
	return !fnmatch(pattern, path, FNM_PATHNAME);
}

/* what a claim's words name: a workload and its siblings */
static const struct {
	const char *word;
	const char *workloads;
} claim_words[] = {
	{ "vmap", "vmap,vmalloc" },
	{ "vmalloc", "vmap,vmalloc" },
	{ "ioremap", "vmap" },
	{ "memremap", "memremap" },
	{ "memmap_init_zone_device", "fsdax,devdax" },
	{ "rebind", "fsdax,devdax" },
	{ "rebinding", "fsdax,devdax" },
	{ "rebinds", "fsdax,devdax" },
	{ "nd_pmem", "fsdax" },
	{ "fsdax", "fsdax" },
	{ "dax_pmem", "devdax" },
	{ "devdax", "devdax" },
	{ "virtio-mem", "virtio-mem" },
	{ "virtio_mem", "virtio-mem" },
	{ "hotplug", "virtio-mem,kmem" },
	{ "hot-plug", "virtio-mem,kmem" },
	{ "kmem", "kmem" },
	{ "system-ram", "kmem" },
	{ "daxctl", "kmem" },
	{ NULL, NULL }
};

/* @word in @text as a word of its own (letters, digits, '_' around it) */
static int names_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while ((p = strcasestr(p, word))) {
		int before = p > text && (isalnum((unsigned char)p[-1]) ||
					  p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';

		/* "vmap()" and "vmap(100 MB)" name it; "vmapped" does not */
		if (!before && !after)
			return 1;
		p += n;
	}
	return 0;
}

static void say(struct strbuf *why, const char *fmt, ...) PRINTF(2, 3);
static void say(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;

	if (why->len)
		strbuf_addstr(why, "; ");
	va_start(ap, fmt);
	strbuf_vaddf(why, fmt, ap);
	va_end(ap);
}

static void say_workloads(struct strbuf *why, unsigned bits)
{
	struct strbuf w = STRBUF_INIT;

	aim_workloads(bits, &w);
	strbuf_addstr(why, w.buf);
	strbuf_release(&w);
}

int aim_choose(const struct aim_map *m, const char *const *paths,
	       size_t nr_paths, const char *const *claims, size_t nr_claims,
	       long long max_nvdimm_mib, struct aim *out)
{
	unsigned pmem = 0;
	long long want = 0;
	size_t i, j, unmatched = 0, *rule_of;

	out->in_scope = 0;
	out->workloads = 0;
	out->nvdimm_mib = 0;
	strbuf_reset(&out->why);
	workload_bit("fsdax", &pmem);
	workload_bit("devdax", &pmem);
	workload_bit("kmem", &pmem);
	/* which rule decides for each path: the first that matches */
	rule_of = xcalloc(nr_paths ? nr_paths : 1, sizeof(*rule_of));
	for (i = 0; i < nr_paths; i++) {
		for (j = 0; j < m->nr; j++)
			if (aim_match(m->r[j].pattern, paths[i]))
				break;
		rule_of[i] = j;
		if (j == m->nr) {
			unmatched++;
			continue;
		}
		out->in_scope = 1;
		out->workloads |= m->r[j].workloads;
		if (m->r[j].nvdimm_mib > want)
			want = m->r[j].nvdimm_mib;
	}
	/* one reason per set of workloads: "a.c, b.c -> vmap,vmalloc" */
	for (i = 0; i < nr_paths; i++) {
		size_t k, n = 0;

		if (rule_of[i] == m->nr)
			continue;
		for (k = 0; k < i; k++)
			if (rule_of[k] < m->nr && m->r[rule_of[k]].workloads ==
			    m->r[rule_of[i]].workloads)
				break;
		if (k < i)
			continue;	/* said with the first of them */
		for (k = i; k < nr_paths; k++) {
			if (rule_of[k] == m->nr || m->r[rule_of[k]].workloads !=
			    m->r[rule_of[i]].workloads)
				continue;
			if (n++)
				strbuf_addf(&out->why, ", %s", paths[k]);
			else
				say(&out->why, "%s", paths[k]);
		}
		strbuf_addstr(&out->why, " -> ");
		say_workloads(&out->why, m->r[rule_of[i]].workloads);
	}
	free(rule_of);
	if (!out->in_scope) {
		strbuf_addf(&out->why, "outside mmci's scope: none of its %zu "
			    "path(s) is in kernel-patches/aim.map; a smoke "
			    "run (%s, %lld MiB)", nr_paths,
			    AIM_SMOKE_WORKLOADS, AIM_SMOKE_NVDIMM_MIB);
		workload_bit(AIM_SMOKE_WORKLOADS, &out->workloads);
		out->nvdimm_mib = AIM_SMOKE_NVDIMM_MIB;
		return 0;
	}
	/* a claim names a workload, or the size it was measured at */
	for (i = 0; i < nr_claims; i++) {
		struct claim c = { .subject = (char *)claims[i],
				   .text = (char *)"" };
		unsigned add = 0;
		double size = 0;
		const char *machine;

		for (j = 0; claim_words[j].word; j++)
			if (names_word(claims[i], claim_words[j].word)) {
				const char *bad;
				unsigned b;

				if (workload_bits(claim_words[j].workloads, &b,
						  &bad) == 0)
					add |= b;
			}
		if (add & ~out->workloads) {
			say(&out->why, "a claim (\"%.40s\") -> ", claims[i]);
			say_workloads(&out->why, add & ~out->workloads);
			out->workloads |= add;
		}
		claim_scale(&c, &size, &machine);
		if ((add & pmem) && size > want)
			want = (long long)size;
	}
	if (want && !(out->workloads & pmem))
		want = 0;	/* the size is the NVDIMM's: no pmem workload */
	if (max_nvdimm_mib > 0 && want > max_nvdimm_mib) {
		say(&out->why, "NVDIMM %lld MiB scaled to this host's %lld MiB "
		    "(MMCI_AIM_MAX_NVDIMM)", want, max_nvdimm_mib);
		want = max_nvdimm_mib;
	}
	out->nvdimm_mib = want;
	if (unmatched)
		say(&out->why, "%zu other path(s) mapped to nothing",
		    unmatched);
	return 0;
}

/* the paths of a diff: each "diff --git a/X b/Y" gives X and Y */
static void diff_paths(const char *diff, char ***v, size_t *nr, size_t *alloc)
{
	const char *p = diff;

	while (p && *p) {
		const char *eol = strchrnul(p, '\n');

		if (starts_with(p, "diff --git a/")) {
			const char *a = p + 13, *b = NULL, *q;

			for (q = a; q + 3 < eol; q++)
				if (!strncmp(q, " b/", 3))
					b = q;
			if (b) {
				char *pa = xstrndup(a, b - a);
				char *pb = xstrndup(b + 3, eol - b - 3);

				ALLOC_GROW(*v, *nr + 2, *alloc);
				(*v)[(*nr)++] = pb;
				if (strcmp(pa, pb))
					(*v)[(*nr)++] = pa;
				else
					free(pa);
			}
		}
		p = *eol ? eol + 1 : eol;
	}
}

int aim_series(struct db *db, long long series_id, const struct aim_map *m,
	       long long max_nvdimm_mib, struct aim *out)
{
	char **paths = NULL, **claims = NULL;
	size_t np = 0, ap = 0, nc = 0, ac = 0, i, j;
	sqlite3_stmt *st;
	int rc, ret = -1;

	st = db_query(db, "SELECT coalesce(diff, '') FROM patches WHERE "
		      "series_id = ? ORDER BY idx", "i", series_id);
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW)
		diff_paths(db_col_text(st, 0), &paths, &np, &ap);
	sqlite3_finalize(st);
	if (rc < 0)
		goto out;
	/* each path once, in the order the diffs name them */
	for (i = 0; i < np; i++)
		for (j = i + 1; j < np; j++)
			if (!strcmp(paths[i], paths[j])) {
				free(paths[j]);
				paths[j--] = paths[--np];
			}
	st = db_query(db, "SELECT subject || ' ' || text FROM claims WHERE "
		      "series_id = ? ORDER BY patch, line", "i", series_id);
	if (!st)
		goto out;
	while ((rc = db_step(db, st)) == DB_ROW) {
		ALLOC_GROW(claims, nc + 1, ac);
		claims[nc++] = xstrdup(db_col_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		goto out;
	ret = aim_choose(m, (const char *const *)paths, np,
			 (const char *const *)claims, nc, max_nvdimm_mib, out);
out:
	for (i = 0; i < np; i++)
		free(paths[i]);
	for (i = 0; i < nc; i++)
		free(claims[i]);
	free(paths);
	free(claims);
	return ret;
}

char *aim_params_json(const struct aim *a)
{
	struct strbuf w = STRBUF_INIT;
	json_t *j;
	char *s;

	aim_workloads(a->workloads, &w);
	j = json_pack("{s:{s:b, s:s, s:I, s:s}}", "aim", "in_scope",
		      a->in_scope, "workloads", w.buf, "nvdimm_mib",
		      (json_int_t)a->nvdimm_mib, "why", a->why.buf);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	strbuf_release(&w);
	return s;
}

int aim_from_params(const char *params, struct aim *out)
{
	json_t *j, *a, *w, *n, *why, *scope;
	const char *bad = NULL;
	int ret = -1;

	if (!params || !*params)
		return 0;
	j = json_loads(params, 0, NULL);
	if (!j)
		return error("the job's parameters are not JSON");
	a = json_object_get(j, "aim");
	if (!a) {
		json_decref(j);
		return 0;
	}
	w = json_object_get(a, "workloads");
	n = json_object_get(a, "nvdimm_mib");
	why = json_object_get(a, "why");
	scope = json_object_get(a, "in_scope");
	if (!json_is_string(w) || !json_is_integer(n) || !json_is_string(why) ||
	    !json_is_boolean(scope)) {
		error("the job's aim is not what mmci writes");
		goto out;
	}
	if (workload_bits(json_string_value(w), &out->workloads, &bad) < 0) {
		error("the job's aim names an unknown workload in '%.60s'",
		      json_string_value(w));
		goto out;
	}
	if (json_integer_value(n) < 0 || json_integer_value(n) > AIM_MAX_MIB) {
		error("the job's aim has an NVDIMM of %lld MiB",
		      (long long)json_integer_value(n));
		goto out;
	}
	out->nvdimm_mib = json_integer_value(n);
	out->in_scope = json_is_true(scope);
	strbuf_reset(&out->why);
	strbuf_addstr(&out->why, json_string_value(why));
	ret = 1;
out:
	json_decref(j);
	return ret;
}

void aim_release(struct aim *a)
{
	strbuf_release(&a->why);
}
