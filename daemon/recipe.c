// SPDX-License-Identifier: GPL-2.0
/*
 * recipe.c - read the recipe files (kernel-patches/recipes/NAME.recipe):
 * key = value lines, one `row` line per row of the authors' table. A
 * handful of files of a few dozen lines, read whole on every command, so
 * the parser favours exact messages (file and line) over speed.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "recipe.h"
#include "strbuf.h"
#include "util.h"
#include "workload.h"

/* split @s at @sep into trimmed, owned fields; returns their number */
static size_t split(const char *s, int sep, char ***out)
{
	char **f = NULL;
	size_t nr = 0, alloc = 0;
	const char *p = s, *end;

	for (;;) {
		struct strbuf sb = STRBUF_INIT;

		end = strchr(p, sep);
		strbuf_add(&sb, p, end ? (size_t)(end - p) : strlen(p));
		strbuf_trim(&sb);
		ALLOC_GROW(f, nr + 1, alloc);
		f[nr++] = strbuf_detach(&sb, NULL);
		if (!end)
			break;
		p = end + 1;
	}
	*out = f;
	return nr;
}

static void free_fields(char **f, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(f[i]);
	free(f);
}

/* the sizes of "100G" or "256G, 512G" or "256G 512G", checked */
static int parse_sizes(const char *where, const char *v, char ***out,
		       size_t *nr)
{
	struct strbuf sb = STRBUF_INIT;
	char **f;
	size_t n, i, k = 0;
	int ret = 0;

	strbuf_addstr(&sb, v);
	for (i = 0; i < sb.len; i++)
		if (sb.buf[i] == ' ' || sb.buf[i] == '\t')
			sb.buf[i] = ',';
	n = split(sb.buf, ',', &f);
	strbuf_release(&sb);
	for (i = 0; i < n; i++) {
		unsigned long long mib;

		if (!*f[i]) {
			free(f[i]);
			continue;
		}
		if (parse_size_mib(f[i], &mib) < 0 || !mib) {
			ret = error("%s: invalid size '%s' (e.g. 100G, 512M)",
				    where, f[i]);
			free(f[i]);
			continue;
		}
		f[k++] = f[i];
	}
	if (!ret && !k)
		ret = error("%s: no size given", where);
	if (ret < 0) {
		free_fields(f, k);
		return -1;
	}
	*out = f;
	*nr = k;
	return 0;
}

static int parse_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && !errno && isfinite(*v) ? 0 : -1;
}

/* label | size | workload/variant/metric or - | before | after */
static int parse_row(const char *where, const char *v, struct recipe *r)
{
	struct recipe_row row = { 0 };
	char **f, **m = NULL;
	size_t n, nm = 0;
	int ret = -1;

	n = split(v, '|', &f);
	if (n != 5) {
		error("%s: a row is 'label | size | workload/variant/metric | "
		      "before | after', not %zu field(s)", where, n);
		goto out;
	}
	if (!r->nr_sizes) {
		error("%s: a row before 'sizes ='", where);
		goto out;
	}
	if (strcmp(f[1], "-")) {
		double s;

		if (parse_number(f[1], &s) < 0 || s < 1 ||
		    s > (double)r->nr_sizes || s != (int)s) {
			error("%s: size '%s' is not '-' or the number of one "
			      "of the %zu size(s)", where, f[1], r->nr_sizes);
			goto out;
		}
		row.size = (int)s;
	}
	if (!strcmp(f[2], "-"))
		goto numbers;
	nm = split(f[2], '/', &m);
	if (nm != 3 || !*m[0] || !*m[2]) {
		error("%s: '%s' is not workload/variant/metric", where, f[2]);
		goto out;
	}
	if (!metric_find(m[0], m[2])) {
		error("%s: no metric '%s' of workload '%s' (see 'mmci "
		      "workloads')", where, m[2], m[0]);
		goto out;
	}
	row.workload = xstrdup(m[0]);
	row.variant = xstrdup(m[1]);
	row.metric = xstrdup(m[2]);
numbers:
	if (parse_number(f[3], &row.before) < 0) {
		error("%s: 'before' is not a number: '%s'", where, f[3]);
		goto out;
	}
	row.after = NAN;
	if (*f[4] && strcmp(f[4], "-") &&
	    parse_number(f[4], &row.after) < 0) {
		error("%s: 'after' is not a number or '-': '%s'", where, f[4]);
		goto out;
	}
	row.label = xstrdup(f[0]);
	row.before_s = xstrdup(f[3]);
	row.after_s = xstrdup(isnan(row.after) ? "-" : f[4]);
	ALLOC_GROW(r->rows, r->nr_rows + 1, r->alloc_rows);
	r->rows[r->nr_rows++] = row;
	ret = 0;
out:
	if (ret < 0) {
		free(row.workload);
		free(row.variant);
		free(row.metric);
	}
	free_fields(f, n);
	free_fields(m, nm);
	return ret;
}

static int set_once(const char *where, const char *key, char **field,
		    const char *v)
{
	if (*field)
		return error("%s: '%s' given twice", where, key);
	if (!*v)
		return error("%s: '%s' is empty", where, key);
	*field = xstrdup(v);
	return 0;
}

static int parse_line(const char *where, const char *key, const char *v,
		      struct recipe *r)
{
	if (!strcmp(key, "description"))
		return set_once(where, key, &r->description, v);
	if (!strcmp(key, "source"))
		return set_once(where, key, &r->source, v);
	if (!strcmp(key, "authors"))
		return set_once(where, key, &r->authors, v);
	if (!strcmp(key, "run"))
		return set_once(where, key, &r->run, v);
	if (!strcmp(key, "small_run"))
		return set_once(where, key, &r->small_run, v);
	if (!strcmp(key, "arch")) {
		if (!arch_find(v))
			return error("%s: arch is " ARCH_NAMES ", not '%s'",
				     where, v);
		return set_once(where, key, &r->arch, v);
	}
	if (!strcmp(key, "unit")) {
		if (!recipe_unit_s(v))
			return error("%s: unit is ns, us, ms or s, not '%s'",
				     where, v);
		return set_once(where, key, &r->unit, v);
	}
	if (!strcmp(key, "sizes")) {
		if (r->sizes)
			return error("%s: 'sizes' given twice", where);
		return parse_sizes(where, v, &r->sizes, &r->nr_sizes);
	}
	if (!strcmp(key, "small")) {
		char **small;
		size_t n;

		if (r->small)
			return error("%s: 'small' given twice", where);
		if (!r->sizes)
			return error("%s: 'small' before 'sizes'", where);
		if (parse_sizes(where, v, &small, &n) < 0)
			return -1;
		if (n != r->nr_sizes) {
			free_fields(small, n);
			return error("%s: %zu small size(s) for %zu size(s)",
				     where, n, r->nr_sizes);
		}
		r->small = small;	/* as many as r->sizes */
		return 0;
	}
	if (!strcmp(key, "columns")) {
		char **f;
		size_t n = split(v, '|', &f), i;

		if (r->columns[0] || n != 4) {
			free_fields(f, n);
			return error("%s: columns are given once, as 'label | "
				     "size | before | after'", where);
		}
		for (i = 0; i < 4; i++)
			r->columns[i] = f[i];
		free(f);
		return 0;
	}
	if (!strcmp(key, "row"))
		return parse_row(where, v, r);
	return error("%s: unknown key '%s'", where, key);
}

int recipe_parse(const char *path, const char *text, struct recipe *r)
{
	const char *base = strrchr(path, '/'), *p = text;
	struct strbuf line = STRBUF_INIT;
	int lineno = 0, ret = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	base = base ? base + 1 : path;
	r->file = xstrdup(path);
	r->name = ends_with(base, ".recipe") ?
		xstrndup(base, strlen(base) - strlen(".recipe")) :
		xstrdup(base);
	while (*p && !ret) {
		const char *nl = strchr(p, '\n');
		char *eq, *where;

		strbuf_reset(&line);
		strbuf_add(&line, p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : p + strlen(p);
		lineno++;
		strbuf_trim(&line);
		if (!line.len || line.buf[0] == '#')
			continue;
		where = xstrfmt("%s:%d", path, lineno);
		eq = strchr(line.buf, '=');
		if (!eq) {
			ret = error("%s: not 'key = value': '%s'", where,
				    line.buf);
		} else {
			struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;

			strbuf_add(&key, line.buf, eq - line.buf);
			strbuf_addstr(&val, eq + 1);
			strbuf_trim(&key);
			strbuf_trim(&val);
			ret = parse_line(where, key.buf, val.buf, r);
			strbuf_release(&key);
			strbuf_release(&val);
		}
		free(where);
	}
	strbuf_release(&line);
	if (ret < 0)
		return -1;
	{
		const struct { const char *key; const void *have; } req[] = {
			{ "description", r->description }, { "arch", r->arch },
			{ "source", r->source }, { "sizes", r->sizes },
			{ "run", r->run }, { "columns", r->columns[0] },
			{ "unit", r->unit },
		};

		for (i = 0; i < ARRAY_SIZE(req); i++)
			if (!req[i].have)
				return error("%s:%d: no '%s =' line", path,
					     lineno, req[i].key);
	}
	if (!r->nr_rows)
		return error("%s:%d: no 'row =' line", path, lineno);
	return 0;
}

void recipe_release(struct recipe *r)
{
	size_t i;

	free(r->name);
	free(r->file);
	free(r->description);
	free(r->arch);
	free(r->source);
	free(r->authors);
	free_fields(r->sizes, r->nr_sizes);
	if (r->small)
		free_fields(r->small, r->nr_sizes);
	free(r->run);
	free(r->small_run);
	for (i = 0; i < 4; i++)
		free(r->columns[i]);
	free(r->unit);
	for (i = 0; i < r->nr_rows; i++) {
		free(r->rows[i].label);
		free(r->rows[i].workload);
		free(r->rows[i].variant);
		free(r->rows[i].metric);
		free(r->rows[i].before_s);
		free(r->rows[i].after_s);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct recipe *)a)->name,
		      ((const struct recipe *)b)->name);
}

int recipe_load_dir(const char *dir, struct recipe **out, size_t *nr)
{
	struct recipe *r = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	*out = NULL;
	*nr = 0;
	if (!d)
		return error_errno("cannot open the recipes in '%s'", dir);
	while (!ret && (de = readdir(d))) {
		struct strbuf text = STRBUF_INIT;
		char *path;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".recipe"))
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		ALLOC_GROW(r, n + 1, alloc);
		if (strbuf_read_file(&text, path, 0) < 0) {
			ret = error_errno("cannot read '%s'", path);
			memset(&r[n], 0, sizeof(r[n]));
		} else if (recipe_parse(path, text.buf, &r[n]) < 0) {
			ret = -1;
		}
		n++;
		strbuf_release(&text);
		free(path);
	}
	closedir(d);
	if (ret < 0) {
		recipe_free(r, n);
		return -1;
	}
	if (!n)
		return error("no recipes (*.recipe) in '%s'", dir);
	qsort(r, n, sizeof(*r), by_name);
	*out = r;
	*nr = n;
	return 0;
}

void recipe_free(struct recipe *r, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		recipe_release(&r[i]);
	free(r);
}

int recipe_per_size(const struct recipe *r)
{
	return !!strstr(r->run, "$size");
}

void recipe_expand(const char *s, const char *size, struct strbuf *out)
{
	const char *p;

	while (size && (p = strstr(s, "$size"))) {
		strbuf_add(out, s, p - s);
		strbuf_addstr(out, size);
		s = p + strlen("$size");
	}
	strbuf_addstr(out, s);
}

double recipe_unit_s(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1e-9;
	if (!strcmp(unit, "us"))
		return 1e-6;
	if (!strcmp(unit, "ms"))
		return 1e-3;
	if (!strcmp(unit, "s"))
		return 1;
	return 0;
}
