// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-recipe.c - `mmci recipe list` and `mmci recipe run NAME`: an
 * author's experiment (recipe.h) repeated with `mmci run` or, with
 * --base and --series, `mmci test-series`, and printed beside the
 * authors' own table. A recipe run is one or a few runs of minutes to
 * hours, stored like any other.
 */
#include <getopt.h>
#include <math.h>

#include "arch.h"
#include "build.h"
#include "builtin.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "interrupt.h"
#include "recipe.h"
#include "run.h"
#include "series-job.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "workload.h"

static const char recipe_usage[] =
	"usage: mmci recipe list [--recipes DIR]\n"
	"   or: mmci recipe run NAME [--kernel PATH | --build ID |\n"
	"                            --base REF [--series FILE]]\n"
	"                            [--scale small] [--iters N] [--dry-run]\n"
	"                            [--recipes DIR]\n"
	"\n"
	"Repeat an author's experiment and print mmci's numbers beside\n"
	"theirs, in their table's layout. A recipe is a file NAME.recipe in\n"
	"DIR (MMCI_RECIPES, else kernel-patches/recipes; docs/RECIPES.md).\n"
	"\n"
	"  --kernel PATH      run this prebuilt kernel once ('mmci run'); the\n"
	"                     authors' 'before' is what it is compared with\n"
	"  --build ID         run a kernel built by 'mmci build' once\n"
	"  --base REF         build REF for the recipe's arch and run it\n"
	"                     once; with --series: 'mmci test-series'\n"
	"  --series FILE      semantics, before = REF, after = REF + the\n"
	"                     series (mbox)\n"
	"  --scale small      the recipe's small sizes (a few GiB) instead of\n"
	"                     the authors'\n"
	"  --iters N          rebinds per boot instead of the recipe's (in\n"
	"                     icount mode every rebind of a boot takes the\n"
	"                     same time: a few say what the authors' 30 do)\n"
	"  --dry-run          print the mmci commands and the memory check,\n"
	"                     boot nothing\n"
	"  --recipes DIR      read the recipes from DIR\n";

/* what one run of a recipe is given: its options as words, parsed */
struct recipe_run {
	const char *size;       /* the size of a per-size run, else NULL */
	char *line;             /* the options, $size expanded; owned */
	char *words;            /* a copy of line, cut into argv; owned */
	char **argv;            /* points into words */
	int argc;
	struct run_args a;
	long long run_id;       /* single run; or the series' run */
	long long base_run;     /* --base: the base's run */
};

struct recipe_plan {
	const struct recipe *r;
	char **sizes;           /* the authors' or the small sizes */
	int small;
	struct recipe_run *runs;
	size_t nr;
};

static char *recipes_dir(void)
{
	struct mmci_config cfg;
	const char *env = getenv("MMCI_RECIPES");
	char *dir;

	if (env && *env)
		return xstrdup(env);
	config_load(&cfg);
	dir = project_path(&cfg, "kernel-patches/recipes");
	config_release(&cfg);
	return dir;
}

static void split_words(char *line, char ***argv, int *argc)
{
	char *tok, *save = NULL;
	int n = 1, alloc = 0;
	char **v = NULL;

	ALLOC_GROW(v, 1, alloc);
	v[0] = "recipe";
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		ALLOC_GROW(v, n + 2, alloc);
		v[n++] = tok;
	}
	ALLOC_GROW(v, n + 1, alloc);
	v[n] = NULL;
	*argv = v;
	*argc = n;
}

/* the runs of @r, their options parsed; 0, or -1 after error() */
static int plan_init(struct recipe_plan *p, const struct recipe *r, int small,
		     int iters)
{
	size_t i, n = recipe_per_size(r) ? r->nr_sizes : 1;

	memset(p, 0, sizeof(*p));
	p->r = r;
	p->small = small;
	p->sizes = small && r->small ? r->small : r->sizes;
	p->runs = xcalloc(n, sizeof(*p->runs));
	p->nr = n;
	for (i = 0; i < n; i++) {
		struct recipe_run *rr = &p->runs[i];
		struct strbuf sb = STRBUF_INIT;
		int ret;

		rr->size = recipe_per_size(r) ? p->sizes[i] : NULL;
		recipe_expand(r->run, rr->size, &sb);
		if (small && r->small_run) {
			strbuf_addch(&sb, ' ');
			recipe_expand(r->small_run, rr->size, &sb);
		}
		if (iters)	/* after the recipe's: the last one counts */
			strbuf_addf(&sb, " --iters %d", iters);
		rr->line = strbuf_detach(&sb, NULL);
		rr->words = xstrdup(rr->line);
		split_words(rr->words, &rr->argv, &rr->argc);
		run_args_init(&rr->a);
		rr->a.boots = 0;
		optind = 0;
		ret = run_args_parse(&rr->a, rr->argc, rr->argv);
		if (ret)
			return error("%s: the run options '%s' are not those "
				     "of 'mmci run'", r->file, rr->line);
		/* the recipe's arch is the runs' */
		if (rr->a.o.arch && strcmp(rr->a.o.arch, r->arch))
			return error("%s: the run options say --arch %s, the "
				     "recipe is for %s", r->file,
				     rr->a.o.arch, r->arch);
		rr->a.o.arch = r->arch;
	}
	return 0;
}

static void plan_release(struct recipe_plan *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		struct recipe_run *rr = &p->runs[i];

		free(rr->line);
		free(rr->words);
		free(rr->argv);
		run_args_release(&rr->a);
	}
	free(p->runs);
}

/*
 * Whether this host can run the plan. 1 yes, 0 no with the reason in
 * @why (*@short_mem set when memory is the reason), -1 after error().
 */
static int plan_fits(const struct recipe_plan *p, struct strbuf *why,
		     int *short_mem)
{
	const struct arch *a = arch_get(p->r->arch);
	long long need = 0, avail;
	struct strbuf parts = STRBUF_INIT;
	size_t i;

	*short_mem = 0;
	if (!a)
		return -1;
	/* a cross compiler, QEMU, firmware or busybox missing */
	if (arch_check(a) < 0) {
		strbuf_addstr(why, last_error());
		return 0;
	}
	for (i = 0; i < p->nr; i++) {
		struct strbuf w = STRBUF_INIT;
		long long n = run_host_need_mib(&p->runs[i].a.o, &w);

		if (n < 0) {
			strbuf_release(&w);
			strbuf_release(&parts);
			return -1;
		}
		if (n > need) {
			need = n;
			strbuf_reset(&parts);
			strbuf_addbuf(&parts, &w);
		}
		strbuf_release(&w);
	}
	avail = mem_available_mib();
	if (need > avail) {
		strbuf_addf(why, "needs %lld MiB of host memory (%s), the host "
			    "has %lld MiB available", need, parts.buf, avail);
		strbuf_release(&parts);
		*short_mem = 1;
		return 0;
	}
	strbuf_addf(why, "needs %lld MiB of host memory, %lld MiB available",
		    need, avail);
	strbuf_release(&parts);
	return 1;
}

static void join_sizes(char **sizes, size_t nr, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(out, "%s%s", i ? "," : "", sizes[i]);
}

static int cmd_recipe_list(const char *dir)
{
	struct recipe *r;
	size_t nr, i;

	if (recipe_load_dir(dir, &r, &nr) < 0)
		return 1;
	printf("%-22s %-9s %-12s %s\n", "NAME", "ARCH", "SIZES",
	       "ON THIS HOST");
	for (i = 0; i < nr; i++) {
		struct strbuf sizes = STRBUF_INIT, why = STRBUF_INIT;
		struct recipe_plan p;
		int fits = -1, short_mem = 0;

		join_sizes(r[i].sizes, r[i].nr_sizes, &sizes);
		if (plan_init(&p, &r[i], 0, 0) == 0)
			fits = plan_fits(&p, &why, &short_mem);
		plan_release(&p);
		if (fits == 0 && short_mem && r[i].small) {
			struct strbuf w2 = STRBUF_INIT;

			if (plan_init(&p, &r[i], 1, 0) == 0 &&
			    plan_fits(&p, &w2, &short_mem) == 1) {
				strbuf_addstr(&why, "; --scale small (");
				join_sizes(r[i].small, r[i].nr_sizes, &why);
				strbuf_addstr(&why, ") fits");
			}
			plan_release(&p);
			strbuf_release(&w2);
		}
		printf("%-22s %-9s %-12s %s%s\n  %s\n", r[i].name, r[i].arch,
		       sizes.buf, fits == 1 ? "yes: " : fits == 0 ? "no: " :
		       "error: ", fits < 0 ? last_error() : why.buf,
		       r[i].description);
		strbuf_release(&sizes);
		strbuf_release(&why);
	}
	recipe_free(r, nr);
	return 0;
}

/* a number of the authors', as they wrote it, with the unit; owned */
static char *fmt_theirs(const char *v, const char *unit)
{
	if (!strcmp(v, "-"))
		return xstrdup(v);
	return xstrfmt("%s %s", v, unit);
}

/* a measured number, with the unit; owned */
static char *fmt_value(double v, const char *unit)
{
	if (isnan(v))
		return xstrdup("-");
	if (fabs(v) >= 1)
		return xstrfmt("%.2f %s", v, unit);
	return xstrfmt("%.3g %s", v, unit);
}

static char *fmt_ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b == 0)
		return xstrdup("-");
	return xstrfmt("%.3f", a / b);
}

/* the measured value of @row in the recipe's unit, NAN when none */
static double measured(struct db *db, const struct recipe *r,
		       const struct recipe_row *row, long long run_id,
		       const char *size, const char *clock)
{
	const struct metric_def *m;
	struct strbuf variant = STRBUF_INIT;
	double v, f;
	int got;

	if (!run_id || !row->workload)
		return NAN;
	m = metric_find(row->workload, row->metric);
	recipe_expand(row->variant, size, &variant);
	got = run_value(db, run_id, row->workload, variant.buf, row->metric,
			run_units_per_boot(clock), &v);
	strbuf_release(&variant);
	if (got != 1)
		return NAN;
	f = m ? recipe_unit_s(m->unit) : 0;
	return f ? v * f / recipe_unit_s(r->unit) : v;
}

#define NCOL 8

/*
 * The authors' table: their label, size, before and after columns, each
 * number with mmci's beside it, then the ratio after/before of both (a
 * single run: mmci's over the authors' before). Cells: row 0 the
 * authors' headers (each spanning its two columns), row 1 whose number.
 */
static void print_table(struct db *db, const struct recipe_plan *p,
			int series, const char *clock)
{
	const struct recipe *r = p->r;
	size_t nrow = r->nr_rows + 2, i, j, w[NCOL] = { 0 };
	char *(*cell)[NCOL] = xcalloc(nrow, sizeof(*cell));
	const char *head[2][NCOL] = {
		{ r->columns[0], r->columns[1], r->columns[2], "",
		  r->columns[3], "", series ? "after/before" : "mmci/authors",
		  "" },
		{ "", "", "authors", series ? "mmci" : "mmci (this kernel)",
		  "authors", "mmci", series ? "authors" : "before",
		  series ? "mmci" : "" },
	};
	int has_size = !!*r->columns[1];

	for (i = 0; i < 2; i++)
		for (j = 0; j < NCOL; j++)
			cell[i][j] = xstrdup(head[i][j]);
	for (i = 0; i < r->nr_rows; i++) {
		const struct recipe_row *row = &r->rows[i];
		const struct recipe_run *rr = &p->runs[0];
		const char *size = row->size ? p->sizes[row->size - 1] : NULL;
		const char *asize = row->size ? r->sizes[row->size - 1] : "";
		double mb, ma;
		char **c = cell[i + 2];

		if (recipe_per_size(r) && row->size)
			rr = &p->runs[row->size - 1];
		mb = measured(db, r, row, series ? rr->base_run : rr->run_id,
			      size, clock);
		ma = series ? measured(db, r, row, rr->run_id, size, clock) :
			      NAN;
		c[0] = xstrdup(row->label);
		if (size && strcmp(size, asize))
			c[1] = xstrfmt("%s (%s)", asize, size);
		else
			c[1] = xstrdup(asize);
		c[2] = fmt_theirs(row->before_s, r->unit);
		c[3] = row->workload ? fmt_value(mb, r->unit) : xstrdup("n/a");
		c[4] = fmt_theirs(row->after_s, r->unit);
		if (series)
			c[5] = row->workload ? fmt_value(ma, r->unit) :
					       xstrdup("n/a");
		else
			c[5] = xstrdup("");
		c[6] = fmt_ratio(series ? row->after : mb, row->before);
		c[7] = series ? fmt_ratio(ma, mb) : xstrdup("");
	}
	for (i = 1; i < nrow; i++)
		for (j = 0; j < NCOL; j++)
			if (strlen(cell[i][j]) > w[j])
				w[j] = strlen(cell[i][j]);
	for (j = 0; j < NCOL; j++) {
		size_t hl = strlen(cell[0][j]);

		if (j < 2 && hl > w[j])
			w[j] = hl;
		else if (j >= 2 && j % 2 == 0 && hl > w[j] + 2 + w[j + 1])
			w[j + 1] = hl - w[j] - 2;
	}
	for (i = 0; i < nrow; i++) {
		struct strbuf line = STRBUF_INIT;

		for (j = 0; j < NCOL; j++) {
			if (j == 1 && !has_size)
				continue;
			if (j)
				strbuf_addstr(&line, j < 2 || j % 2 == 0 ?
					      "| " : " ");
			if (!i && j >= 2 && j % 2 == 0) {
				strbuf_addf(&line, "%-*s ",
					    (int)(w[j] + 2 + w[j + 1]),
					    cell[i][j]);
				j++;
				continue;
			}
			strbuf_addf(&line, "%-*s ", (int)w[j], cell[i][j]);
		}
		strbuf_rtrim(&line);
		printf("%s\n", line.buf);
		strbuf_release(&line);
	}
	for (i = 0; i < nrow; i++)
		for (j = 0; j < NCOL; j++)
			free(cell[i][j]);
	free(cell);
}

static void print_command(const struct recipe_run *rr, const char *kernel,
			  long long build_id, const char *base,
			  const char *series)
{
	/*
	 * test-series takes only some of these options on its command
	 * line; the recipe hands them all to the job in-process
	 */
	if (series)
		printf("mmci test-series %s --base %s, run options: %s\n",
		       series, base, rr->line);
	else if (base)
		printf("mmci build %s --arch %s, then mmci run --build ID "
		       "%s\n", base, rr->a.o.arch, rr->line);
	else if (build_id)
		printf("mmci run --build %lld %s\n", build_id, rr->line);
	else
		printf("mmci run --kernel %s %s\n", kernel ? kernel : "PATH",
		       rr->line);
}

struct run_request {
	const char *kernel, *base, *series;
	long long build_id;
	int small, dry_run, iters;
};

static int run_one(const struct mmci_config *cfg, struct db *db,
		   const struct recipe *r, struct recipe_run *rr,
		   const struct run_request *q)
{
	char *label = xstrfmt("recipe %s%s%s", r->name, rr->size ? " " : "",
			      rr->size ? rr->size : "");
	int ret = 0;

	if (!rr->a.o.label)
		rr->a.o.label = label;
	if (q->series) {
		struct series_job_request req = { 0 };
		struct measure_args ma;
		long long runs[2] = { 0, 0 };
		int worse;

		measure_args_init(&ma);
		ma.o = rr->a.o;
		ma.boots = rr->a.boots;
		measure_args_finish(&ma);
		req.file = q->series;
		req.base = q->base;
		req.runs = runs;
		ret = series_job_run(cfg, db, &ma, &req, &worse);
		rr->base_run = runs[0];
		rr->run_id = runs[1];
	} else {
		struct build_result keep = { 0 };
		char *release = NULL;

		rr->a.o.kernel = q->kernel;
		if (run_opts_kernel(db, q->build_id, &rr->a.o, &keep,
				    &release) < 0)
			ret = -1;
		else
			ret = run_boots(cfg, db, &rr->a.o,
					rr->a.boots ? rr->a.boots : 1,
					&rr->run_id);
		if (rr->run_id)
			printf("run #%lld: %s\n", rr->run_id,
			       ret ? "failed" : "ok");
		build_result_release(&keep);
		free(release);
	}
	rr->a.o.label = NULL;
	free(label);
	return ret;
}

/*
 * --base without --series: the kernel at @base built for the recipe's
 * arch (cached like any build); its id goes to q->build_id. 0 or -1.
 */
static int build_base(const struct mmci_config *cfg, struct db *db,
		      const struct recipe *r, struct run_request *q)
{
	struct build_result br = { 0 };
	git_repository *repo = NULL;
	git_oid commit;
	int ret = -1;

	if (tree_open(cfg->tree_dir, &repo) < 0 ||
	    tree_resolve(repo, q->base, &commit) < 0)
		goto out;
	progress("recipe %s: building %s for %s", r->name, q->base, r->arch);
	if (build_kernel(cfg, db, repo, &commit, 0, 0, NULL,
			 arch_get(r->arch), &br) < 0)
		goto out;
	q->build_id = br.id;
	q->base = NULL;
	ret = 0;
out:
	build_result_release(&br);
	git_repository_free(repo);
	return ret;
}

/*
 * What kmem plugged of each size: the dax device's range, whole memory
 * blocks of it (the block at its start, after the namespace's info
 * block, is not whole), as the runner recorded it (info hotplug_bytes).
 * virtio-mem plugs exactly the size asked, and says nothing here.
 */
static void print_plugged(struct db *db, const struct recipe_plan *p)
{
	static const char sql[] =
		"SELECT CAST(message AS INTEGER) FROM events WHERE run_id = ? "
		"AND key = 'hotplug_bytes' ORDER BY id LIMIT 1";
	long long bytes;
	size_t i;

	for (i = 0; i < p->nr; i++) {
		long long id = p->runs[i].run_id;

		if (!id || db_int_checked(db, &bytes, sql, "i", id) != 1)
			continue;
		printf("plugged by kmem%s%s: %lld bytes (%.3f GiB), run #%lld\n",
		       p->runs[i].size ? " at " : "",
		       p->runs[i].size ? p->runs[i].size : "", bytes,
		       bytes / (double)(1LL << 30), id);
	}
}

/*
 * The machine the numbers come from, as every table says it: QEMU, its
 * machine and CPU, and the guest's set-up (RAM, NVDIMM, vCPUs). When the
 * runs of the sizes had different set-ups (a 512 GiB plug needs more RAM
 * than a 256 GiB one), one line per run says each.
 */
static void print_machine(struct db *db, const struct recipe_plan *p,
			  const struct run_row *first)
{
	const struct arch *a = arch_find(first->arch);
	struct strbuf *shape = xcalloc(p->nr + 1, sizeof(*shape));
	struct run_row row;
	size_t i, differ = 0;

	/* shape[p->nr]: the first run's; shape[i]: run i's, if stored */
	for (i = 0; i <= p->nr; i++)
		strbuf_init(&shape[i], 0);
	run_setup_shape(first, &shape[p->nr]);
	for (i = 0; i < p->nr; i++) {
		if (!p->runs[i].run_id ||
		    run_load(db, p->runs[i].run_id, &row))
			continue;
		run_setup_shape(&row, &shape[i]);
		differ += strcmp(shape[i].buf, shape[p->nr].buf) != 0;
		run_row_release(&row);
	}
	/* the shape names a non-default arch itself */
	printf("machine: QEMU %s %s, CPU %s%s%s%s\n",
	       *first->qemu_v ? first->qemu_v : "?", a ? a->machine : "?",
	       a ? a->cpu_model : "?",
	       a && !strcmp(a->name, ARCH_DEFAULT) ? " (x86_64)" : "",
	       differ ? "" : ", ", differ ? "" : shape[p->nr].buf);
	for (i = 0; differ && i < p->nr; i++)
		if (shape[i].len)
			printf("  run #%lld%s%s%s: %s\n", p->runs[i].run_id,
			       p->runs[i].size ? " (" : "",
			       p->runs[i].size ? p->runs[i].size : "",
			       p->runs[i].size ? ")" : "", shape[i].buf);
	for (i = 0; i <= p->nr; i++)
		strbuf_release(&shape[i]);
	free(shape);
}

static int cmd_recipe_run(const char *dir, const char *name,
			  const struct run_request *given)
{
	struct run_request req = *given, *q = &req;
	struct recipe *all, *r = NULL;
	struct recipe_plan p = { 0 };
	struct strbuf why = STRBUF_INIT, sizes = STRBUF_INIT;
	struct strbuf authors_sizes = STRBUF_INIT;
	struct mmci_config cfg;
	struct run_row row = { 0 };
	struct db db;
	size_t nr, i;
	int ret = 1, fits, opened = 0, failed = 0, short_mem;

	if (recipe_load_dir(dir, &all, &nr) < 0)
		return 1;
	for (i = 0; i < nr; i++)
		if (!strcmp(all[i].name, name))
			r = &all[i];
	if (!r) {
		struct strbuf names = STRBUF_INIT;

		for (i = 0; i < nr; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "",
				    all[i].name);
		error("no recipe '%s' in '%s'; there are: %s", name, dir,
		      names.buf);
		strbuf_release(&names);
		goto out;
	}
	if (plan_init(&p, r, q->small, q->iters) < 0)
		goto out;
	join_sizes(p.sizes, r->nr_sizes, &sizes);
	join_sizes(r->sizes, r->nr_sizes, &authors_sizes);
	fits = plan_fits(&p, &why, &short_mem);
	if (fits < 0)
		goto out;
	if (q->dry_run) {
		printf("recipe %s: %s\nsource: %s\nsizes: %s%s%s%s\n"
		       "this host: %s%s\n", r->name, r->description,
		       r->source, sizes.buf,
		       p.small ? " (--scale small; the authors': " : "",
		       p.small ? authors_sizes.buf : "", p.small ? ")" : "",
		       fits ? "fits, " : "cannot run it: ", why.buf);
		for (i = 0; i < p.nr; i++)
			print_command(&p.runs[i], q->kernel, q->build_id,
				      q->base, q->series);
		putchar('\n');
		print_table(NULL, &p, !!q->series, "icount");
		ret = 0;
		goto out;
	}
	if (!fits) {
		error("recipe '%s' (sizes %s) cannot run on this host: %s%s",
		      r->name, sizes.buf, why.buf,
		      short_mem && !p.small && r->small ?
		      "; try --scale small" : "");
		goto out;
	}
	setup_command(&cfg, &db);
	opened = 1;
	interrupt_catch();	/* fails the runs and boots on SIGTERM */
	if (q->base && !q->series && build_base(&cfg, &db, r, q) < 0)
		goto out;
	for (i = 0; i < p.nr && !interrupted(); i++) {
		progress("recipe %s: run %zu of %zu%s%s", r->name, i + 1, p.nr,
			 p.runs[i].size ? ", size " : "",
			 p.runs[i].size ? p.runs[i].size : "");
		if (run_one(&cfg, &db, r, &p.runs[i], q) < 0)
			failed++;
	}
	for (i = 0; i < p.nr && !row.id; i++)
		if (p.runs[i].run_id && run_load(&db, p.runs[i].run_id, &row))
			memset(&row, 0, sizeof(row));
	printf("\nrecipe %s: %s\n", r->name, r->description);
	printf("source: %s\n", r->source);
	if (r->authors)
		printf("authors: %s\n", r->authors);
	printf("mmci: accel %s, clock %s, kernel %s; sizes %s%s%s%s\n",
	       row.id ? row.accel : "?", row.id ? row.clock : "?",
	       row.id ? row.release : "?", sizes.buf,
	       p.small ? " (--scale small), not the authors' " : "",
	       p.small ? authors_sizes.buf : "",
	       p.small ? ": the sizes differ from theirs" : "");
	if (row.id)
		print_machine(&db, &p, &row);
	printf("runs:");
	for (i = 0; i < p.nr; i++) {
		if (p.runs[i].base_run)
			printf(" #%lld (before)", p.runs[i].base_run);
		printf(" #%lld%s", p.runs[i].run_id,
		       q->series ? " (after)" : "");
	}
	printf("\n\n");
	print_table(&db, &p, !!q->series, row.id ? row.clock : "icount");
	print_plugged(&db, &p);
	ret = failed ? 1 : 0;
out:
	if (row.id)
		run_row_release(&row);
	plan_release(&p);
	strbuf_release(&why);
	strbuf_release(&sizes);
	strbuf_release(&authors_sizes);
	recipe_free(all, nr);
	if (opened) {
		db_close(&db);
		config_release(&cfg);
	}
	return ret;
}

int cmd_recipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "build", required_argument, NULL, 'b' },
		{ "base", required_argument, NULL, 'B' },
		{ "series", required_argument, NULL, 'S' },
		{ "scale", required_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "iters", required_argument, NULL, 'i' },
		{ "recipes", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_request q = { 0 };
	char *dir = NULL;
	const char *sub;
	int c, ret;

	if (argc < 2) {
		fputs(recipe_usage, stderr);
		return 129;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		fputs(recipe_usage, stdout);
		return 0;
	}
	if (strcmp(sub, "list") && strcmp(sub, "run")) {
		error("unknown recipe command '%s' (list or run)", sub);
		fputs(recipe_usage, stderr);
		return 129;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': q.kernel = optarg; break;
		case 'b': q.build_id = parse_count("--build", optarg); break;
		case 'B': q.base = optarg; break;
		case 'S': q.series = optarg; break;
		case 's':
			if (strcmp(optarg, "small"))
				die("--scale takes 'small', not '%s'", optarg);
			q.small = 1;
			break;
		case 'n': q.dry_run = 1; break;
		case 'i': q.iters = parse_count("--iters", optarg); break;
		case 'd': free(dir); dir = xstrdup(optarg); break;
		case 'h':
			fputs(recipe_usage, stdout);
			return 0;
		default:
			fputs(recipe_usage, stderr);
			return 129;
		}
	}
	if (!dir)
		dir = recipes_dir();
	if (!strcmp(sub, "list")) {
		if (optind != argc) {
			fputs(recipe_usage, stderr);
			free(dir);
			return 129;
		}
		ret = cmd_recipe_list(dir);
		free(dir);
		return ret;
	}
	if (argc - optind != 1 || (q.series && !q.base) ||
	    (q.base && (q.kernel || q.build_id)) ||
	    (q.kernel && q.build_id) ||
	    (!q.dry_run && !q.base && !q.kernel && !q.build_id)) {
		error("give a recipe name and one of --kernel, --build or "
		      "--base (with or without --series)");
		fputs(recipe_usage, stderr);
		free(dir);
		return 129;
	}
	if (q.series && check_input_file(q.series, "an mbox file") < 0) {
		free(dir);
		return 1;
	}
	ret = cmd_recipe_run(dir, argv[optind], &q);
	free(dir);
	return ret;
}
