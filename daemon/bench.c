// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - `mmci bench`: which noise setting gives the smallest spread
 * (cmd-bench.c parses the options).
 *
 * Boots one kernel B times under each noise setting (clock icount or wall,
 * vCPUs pinned or not, NVDIMM file on tmpfs or on disk), every workload in
 * each boot, and prints one table: for every workload/variant/metric and
 * every setting, the spread that matters for `mmci compare`. The boots of
 * the settings are interleaved (icount, wall, ..., icount, wall, ...) so a
 * noisy spell on the host is shared by all settings instead of inflating
 * one. `--from-runs` prints the same table from runs already stored.
 *
 * The statistics, per metric and setting (docs/STATISTICS.md: the boot is
 * the unit):
 *  - n: ok boots with samples of the metric;
 *  - median: of the per-boot medians;
 *  - CV: between-boot coefficient of variation, sd / mean of the per-boot
 *    medians (sd with n - 1); undefined below 2 boots. With 3 boots it is a
 *    rough estimate (2 degrees of freedom): compare settings on many
 *    metrics, not on one;
 *  - wCV: within-boot CV (sd / mean of one boot's samples), median over
 *    the boots; undefined for once-per-boot metrics (the first bind);
 *  - MDC: the minimal detectable change, in % of the mean, of a two-sample
 *    t test on boot medians with k boots per side, alpha 0.05 two-sided,
 *    power 0.8, with the setting's CV as the common spread:
 *
 *	MDC = (t_{1-alpha/2, 2k-2} + t_{power, 2k-2}) * sqrt(2 / k) * CV
 *
 *    k is the number of boots per side `mmci test-series` uses by default
 *    (measure.h: MEASURE_BOOTS_ICOUNT 2, MEASURE_BOOTS_WALL 6), so MDC is
 *    what a default comparison is worth; --mdc-boots sets k. For k = 2 the
 *    factor is (4.303 + 1.061) * 1 = 5.36 * CV, for k = 6 it is
 *    (2.228 + 0.879) * 0.577 = 1.79 * CV. The normal-theory formula with t
 *    quantiles slightly understates the exact (noncentral t) value at such
 *    small df; it ranks settings correctly, which is its job here. MDC is
 *    never below one clock tick relative to the median (resolution /
 *    median): with icount the spread is often exactly 0, and then the
 *    tick (1000 / HZ ms for the kernel's memmap time) is all that limits.
 *    A median below one tick (0 jiffies for a small memmap in RAM) has no
 *    CV, wCV or MDC: a spread of 0 and 4 ms values is the clock's.
 *  - best: the setting with the smallest between-boot CV ("a=b" on a tie),
 *    none when a setting measured the metric below one tick.
 *
 * Then, by default after booting and with --calibrate on stored runs, the
 * calibration (calibrate.h): each setting's P ok boots are split again and
 * again into two groups of k and compared with compare_samples() as `mmci
 * compare` would, giving per k and threshold the false-alarm rate of the
 * kernel against itself and the detection rate of an injected 5 % and
 * 10 % slowdown. k needs P >= 2k: 12 boots for the wall clock's k = 6.
 */
#include <math.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "bench.h"
#include "build.h"
#include "calibrate.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "measure.h"
#include "run.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"
#include "workload.h"

#define BENCH_ALPHA 0.05
#define BENCH_POWER 0.8

/* one column of the table: a noise setting and the run that measured it */
struct bench_setting {
	char *name;           /* "wall-pin" */
	char *label;          /* the run's label, "bench:wall-pin" */
	const char *clock;    /* "icount" or "wall" */
	const char *backing;  /* "tmpfs" or "disk" */
	int pin;              /* 1 pinned, 0 not, -1 not recorded */
	unsigned int vcpus;   /* 0: run_opts' default */
	long long run_id;     /* 0 when the run could not be created */
	int mdc_boots;        /* k of the MDC formula */
	/* from the run row */
	char *accel, *rec_clock, *rec_backing, *release;
	int rec_vcpus, hz, boots_ok, boots;
	long long nvdimm_mib;
	double boot_s;        /* s, sum of the boots' durations */
};

/* the statistics of one metric under one setting; NAN when undefined */
struct bench_cell {
	int n;                /* ok boots with samples */
	double median;        /* of the per-boot medians, in the unit */
	double cv;            /* between-boot, a fraction */
	double wcv;           /* within-boot, a fraction, median over boots */
	double mdc;           /* % */
	double resolution;    /* in the unit, 0 unknown */
};

struct bench_row {
	char *workload, *variant, *metric, *unit;
	struct bench_cell *cells;   /* one per setting */
	int *best;                  /* 1 for each setting with the least CV */
};

struct bench {
	struct bench_setting *set;
	size_t nr_set, alloc_set;
	struct bench_row *rows;
	size_t nr_rows, alloc_rows;
	int mdc_boots;        /* --mdc-boots, 0: by clock */
	const char *release;  /* of the first run; owned by its setting */
};

static void setting_release(struct bench_setting *s)
{
	free(s->name);
	free(s->label);
	free(s->accel);
	free(s->rec_clock);
	free(s->rec_backing);
	free(s->release);
}

static void bench_release(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->nr_set; i++)
		setting_release(&b->set[i]);
	for (i = 0; i < b->nr_rows; i++) {
		free(b->rows[i].workload);
		free(b->rows[i].variant);
		free(b->rows[i].metric);
		free(b->rows[i].unit);
		free(b->rows[i].cells);
		free(b->rows[i].best);
	}
	free(b->set);
	free(b->rows);
	memset(b, 0, sizeof(*b));
}

/*
 * "wall-pin-disk": the clock, then -pin, -disk (or -tmpfs) and -<N>cpu in
 * any order. Returns -1 after error() on anything else.
 */
static int parse_setting(const char *spec, struct bench_setting *s)
{
	char *copy = xstrdup(spec), *tok, *save = NULL;
	int ret = 0, first = 1;

	memset(s, 0, sizeof(*s));
	s->backing = "tmpfs";
	for (tok = strtok_r(copy, "-", &save); tok;
	     tok = strtok_r(NULL, "-", &save), first = 0) {
		char *end;
		long n;

		if (first && (!strcmp(tok, "icount") || !strcmp(tok, "wall"))) {
			s->clock = !strcmp(tok, "wall") ? "wall" : "icount";
		} else if (first) {
			ret = error("setting '%s' does not start with a clock "
				    "(icount or wall)", spec);
			break;
		} else if (!strcmp(tok, "pin")) {
			s->pin = 1;
		} else if (!strcmp(tok, "disk") || !strcmp(tok, "tmpfs")) {
			s->backing = !strcmp(tok, "disk") ? "disk" : "tmpfs";
		} else if ((n = strtol(tok, &end, 10)) > 0 && n <= 64 &&
			   !strcmp(end, "cpu")) {
			s->vcpus = n;
		} else {
			ret = error("unknown part '%s' of setting '%s' (pin, "
				    "disk, tmpfs or <N>cpu)", tok, spec);
			break;
		}
	}
	if (!ret && !s->clock)
		ret = error("empty setting in the list");
	free(copy);
	if (ret)
		return ret;
	s->name = xstrdup(spec);
	s->label = xstrfmt("bench:%s", spec);
	return 0;
}

static int parse_settings(const char *list, struct bench *b)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int ret = 0;
	size_t i;

	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		struct bench_setting s;

		for (i = 0; i < b->nr_set; i++)
			if (!strcmp(b->set[i].name, tok))
				ret = error("setting '%s' given twice", tok);
		if (ret || parse_setting(tok, &s) < 0) {
			ret = -1;
			break;
		}
		ALLOC_GROW(b->set, b->nr_set + 1, b->alloc_set);
		b->set[b->nr_set++] = s;
	}
	if (!ret && !b->nr_set)
		ret = error("no setting given");
	free(copy);
	return ret;
}

/* fill the recorded half of s from its run row */
static int load_setting(struct db *db, struct bench_setting *s)
{
	struct run_row r;

	if (run_load(db, s->run_id, &r) < 0)
		return -1;
	if (!s->label)
		s->label = xstrdup(r.label);
	s->rec_clock = xstrdup(r.clock);
	s->accel = xstrdup(r.accel);
	s->rec_backing = xstrdup(r.backing);
	s->rec_vcpus = r.vcpus;
	s->nvdimm_mib = r.nvdimm_mib;
	s->hz = r.hz;
	s->release = xstrdup(r.release);
	s->pin = r.pin;
	s->boots_ok = r.ok_boots;
	s->boots = r.boots;
	s->boot_s = r.boot_s;
	run_row_release(&r);
	return 0;
}

/*
 * A run given by id: its name is what `mmci bench` asked for (label
 * "bench:<setting>"), else what the row records; a name already taken
 * gets "#<id>".
 */
static void name_from_run(struct bench *b, struct bench_setting *s)
{
	const char *p;
	size_t i;

	if (skip_prefix(s->label, "bench:", &p) && *p) {
		s->name = xstrdup(p);
	} else {
		s->name = xstrfmt("%s%s%s", s->rec_clock,
				  s->pin == 1 ? "-pin" : "",
				  !strcmp(s->rec_backing, "disk") ? "-disk" :
								    "");
	}
	for (i = 0; i < b->nr_set; i++) {
		if (&b->set[i] != s && b->set[i].name &&
		    !strcmp(b->set[i].name, s->name)) {
			char *n = xstrfmt("%s#%lld", s->name, s->run_id);

			free(s->name);
			s->name = n;
			break;
		}
	}
}

/* the MDC formula of the file header, in %; NAN below 2 boots */
static double mdc_pct(const struct bench_cell *c, int k)
{
	double df = 2.0 * k - 2, factor, mdc, tick = 0;

	if (c->n < 2 || isnan(c->cv) || k < 2)
		return NAN;
	factor = gsl_cdf_tdist_Pinv(1 - BENCH_ALPHA / 2, df) +
		 gsl_cdf_tdist_Pinv(BENCH_POWER, df);
	mdc = factor * sqrt(2.0 / k) * fabs(c->cv) * 100;
	if (c->resolution > 0 && c->median > 0)
		tick = c->resolution / c->median * 100;
	return fmax(mdc, tick);
}

static struct bench_row *find_row(struct bench *b, const char *w,
				  const char *v, const char *m, const char *u)
{
	struct bench_row *r;
	size_t i;

	for (i = 0; i < b->nr_rows; i++) {
		r = &b->rows[i];
		if (!strcmp(r->workload, w) && !strcmp(r->variant, v) &&
		    !strcmp(r->metric, m) && !strcmp(r->unit, u))
			return r;
	}
	ALLOC_GROW(b->rows, b->nr_rows + 1, b->alloc_rows);
	r = &b->rows[b->nr_rows++];
	r->workload = xstrdup(w);
	r->variant = xstrdup(v);
	r->metric = xstrdup(m);
	r->unit = xstrdup(u);
	r->cells = xcalloc(b->nr_set, sizeof(*r->cells));
	r->best = xcalloc(b->nr_set, sizeof(*r->best));
	for (i = 0; i < b->nr_set; i++) {
		r->cells[i].median = r->cells[i].cv = r->cells[i].wcv = NAN;
		r->cells[i].mdc = NAN;
	}
	return r;
}

/*
 * One metric of one setting's run into its cell: the units are one median
 * per ok boot whatever the clock (run_units()), so that the spread between
 * boots is comparable across settings.
 */
static void fill_cell(struct bench *b, size_t si, const char *workload,
		      const char *variant, const char *metric,
		      const char *unit, const struct unit_values *u)
{
	const struct bench_setting *s = &b->set[si];
	struct doubles wcvs = { 0 };
	struct bench_cell *c;
	struct summary sm;
	size_t i;

	if (!u->nr)
		return;
	for (i = 0; i < u->nr; i++)
		if (!isnan(u->cv[i]))
			doubles_push(&wcvs, u->cv[i]);
	c = &find_row(b, workload, variant, metric, unit)->cells[si];
	summarize(u->v, u->nr, &sm);
	c->n = u->nr;
	c->median = sm.median;
	c->cv = sm.cv;
	summarize(wcvs.v, wcvs.nr, &sm);
	c->wcv = sm.median;
	c->resolution = metric_resolution(workload, metric, s->hz);
	if (!(c->median >= c->resolution && c->median > 0)) {
		/* below one tick: the spread is the clock's */
		c->cv = c->wcv = NAN;
	}
	c->mdc = mdc_pct(c, s->mdc_boots);
	free(wcvs.v);
}

/* every metric of the run's ok boots, into the rows' cells */
static int load_cells(struct db *db, struct bench *b, size_t si)
{
	long long run_id = b->set[si].run_id;
	sqlite3_stmt *st = db_query(db,
		"SELECT DISTINCT s.workload, s.variant, s.metric, s.unit "
		"FROM samples s JOIN boots bt ON bt.id = s.boot_id "
		"WHERE s.run_id = ? AND bt.status = 'ok' ORDER BY 1, 2, 3, 4",
		"i", run_id);
	struct unit_values u = UNIT_VALUES_INIT;
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		if (run_units(db, run_id, db_col_text(st, 0),
			      db_col_text(st, 1), db_col_text(st, 2), 1,
			      &u) < 0) {
			rc = -1;
			break;
		}
		fill_cell(b, si, db_col_text(st, 0), db_col_text(st, 1),
			  db_col_text(st, 2), db_col_text(st, 3), &u);
	}
	sqlite3_finalize(st);
	unit_values_release(&u);
	if (rc < 0)
		return error("cannot read the samples of run #%lld", run_id);
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct bench_row *a = pa, *b = pb;
	int c = strcmp(a->workload, b->workload);

	if (!c)
		c = strcmp(a->variant, b->variant);
	if (!c)
		c = strcmp(a->metric, b->metric);
	if (!c)
		c = strcmp(a->unit, b->unit);
	return c;
}

/*
 * The least between-boot CV wins; equal CVs (0 and 0 with icount) tie.
 * No winner when a setting with 2 boots or more has no CV (its median is
 * below one tick): the others' CVs are then of a clock's quantisation.
 */
static void mark_best(struct bench *b)
{
	size_t i, j;

	for (i = 0; i < b->nr_rows; i++) {
		struct bench_row *r = &b->rows[i];
		double best = INFINITY;

		for (j = 0; j < b->nr_set; j++) {
			if (r->cells[j].n >= 2 && isnan(r->cells[j].cv))
				break;
			if (!isnan(r->cells[j].cv))
				best = fmin(best, fabs(r->cells[j].cv));
		}
		if (j < b->nr_set)
			continue;
		for (j = 0; j < b->nr_set; j++)
			r->best[j] = !isnan(r->cells[j].cv) &&
				     fabs(r->cells[j].cv) <= best + 1e-12;
	}
}

static int bench_load(struct db *db, struct bench *b)
{
	const struct bench_setting *first = NULL;
	size_t i;

	for (i = 0; i < b->nr_set; i++) {
		struct bench_setting *s = &b->set[i];

		if (!s->run_id)
			continue;
		if (load_setting(db, s) < 0)
			return -1;
		if (!s->name)
			name_from_run(b, s);
		s->mdc_boots = b->mdc_boots ? b->mdc_boots :
			       !strcmp(s->rec_clock, "wall") ?
					       MEASURE_BOOTS_WALL :
					       MEASURE_BOOTS_ICOUNT;
		if (!first)
			first = s;
		else if (strcmp(s->release, first->release))
			warning("run #%lld booted kernel %s, run #%lld %s: "
				"the settings are not measured on one kernel",
				first->run_id, first->release, s->run_id,
				s->release);
	}
	for (i = 0; i < b->nr_set; i++)
		if (b->set[i].run_id && load_cells(db, b, i) < 0)
			return -1;
	b->release = first ? first->release : "?";
	if (b->nr_rows)
		qsort(b->rows, b->nr_rows, sizeof(*b->rows), cmp_rows);
	mark_best(b);
	return 0;
}

/*
 * Workloads some run asked for that no run measured: the kernel lacks
 * them (vmap without mmci_bench.ko, vmalloc without test_vmalloc). One
 * line each to out and one object each to jmissing (either may be NULL),
 * with the first error the guest reported.
 */
static void list_missing(struct db *db, const struct bench *b,
			 struct strbuf *out, json_t *jmissing)
{
	struct strbuf seen = STRBUF_INIT;
	size_t i, j;

	strbuf_addch(&seen, ',');
	for (i = 0; i < b->nr_set; i++) {
		sqlite3_stmt *st;
		struct run_row run;
		char *list, *tok, *save = NULL;

		if (!b->set[i].run_id)
			continue;
		if (run_load(db, b->set[i].run_id, &run) < 0)
			continue;
		list = xstrdup(run.workloads);
		run_row_release(&run);
		for (tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			char *key = xstrfmt(",%s,", tok);
			char *why = NULL;
			int found = 0;

			for (j = 0; j < b->nr_rows && !found; j++)
				found = !strcmp(b->rows[j].workload, tok);
			if (found || strstr(seen.buf, key)) {
				free(key);
				continue;
			}
			strbuf_addf(&seen, "%s,", tok);
			free(key);
			for (j = 0; j < b->nr_set && !why; j++) {
				if (!b->set[j].run_id)
					continue;
				st = db_query(db, "SELECT message FROM events "
					      "WHERE run_id = ? AND workload = "
					      "? AND kind = 'error' ORDER BY id "
					      "LIMIT 1", "it",
					      b->set[j].run_id, tok);
				/* a failed read is said; no reason then */
				if (st && db_step(db, st) == DB_ROW)
					why = xstrdup(db_col_text(st, 0));
				sqlite3_finalize(st);
			}
			if (out)
				strbuf_addf(out, "no data: %s%s%s\n", tok,
					    why ? ": " : "", why ? why : "");
			if (jmissing)
				json_array_append_new(jmissing, json_pack(
					"{s:s, s:s?}", "workload", tok,
					"error", why));
			free(why);
		}
		free(list);
	}
	strbuf_release(&seen);
}

static void fmt_pct(struct strbuf *sb, double pct, int width)
{
	if (isnan(pct))
		strbuf_addf(sb, "%*s", width, "-");
	else
		strbuf_addf(sb, "%*.2f", width, pct);
}

/* " n   median   CV%  wCV%   MDC%" */
#define CELL_WIDTH 38

static void fmt_setting_line(struct strbuf *out, const struct bench_setting *s,
			     int width)
{
	if (!s->run_id) {
		strbuf_addf(out, "  %-*s  no run (could not be created)\n",
			    width, s->name);
		return;
	}
	strbuf_addf(out, "  %-*s  run #%lld: %s, clock %s, %d vCPU%s%s, "
		    "%lld MiB NVDIMM on %s, %d/%d boots ok, %.0f s; MDC at %d "
		    "boots per side\n", width, s->name, s->run_id, s->accel,
		    s->rec_clock, s->rec_vcpus, s->rec_vcpus == 1 ? "" : "s",
		    s->pin == 1 ? " pinned" : s->pin == 0 ? " unpinned" : "",
		    s->nvdimm_mib, s->rec_backing, s->boots_ok, s->boots,
		    s->boot_s, s->mdc_boots);
}

static void bench_format(struct db *db, const struct bench *b,
			 struct strbuf *out)
{
	int ww = 8, vw = 7, mw = 6, uw = 4, sw = 4;
	size_t i, j;

	for (i = 0; i < b->nr_rows; i++) {
		const struct bench_row *r = &b->rows[i];

		ww = (int)fmax(ww, strlen(r->workload));
		vw = (int)fmax(vw, strlen(r->variant));
		mw = (int)fmax(mw, strlen(r->metric));
		uw = (int)fmax(uw, strlen(r->unit));
	}
	for (j = 0; j < b->nr_set; j++)
		sw = (int)fmax(sw, strlen(b->set[j].name));

	strbuf_addf(out, "mmci bench: kernel %s, %zu setting(s)\n",
		    b->release, b->nr_set);
	for (j = 0; j < b->nr_set; j++)
		fmt_setting_line(out, &b->set[j], sw);
	strbuf_addf(out,
		"\nn: ok boots with data; median: of the per-boot medians; "
		"CV%%: between-boot\n"
		"coefficient of variation of the per-boot medians (the boot is "
		"the unit);\n"
		"wCV%%: within-boot CV, median over the boots; MDC%%: smallest "
		"change a t test\n"
		"on boot medians detects at alpha %.2f (two-sided) with power "
		"%.1f, never\n"
		"below one clock tick; a median below one tick has no CV, wCV "
		"or MDC;\n"
		"best: least between-boot CV. icount counts instructions, not "
		"cache or\n"
		"memory effects: its spread is not the only criterion "
		"(docs/STATISTICS.md).\n\n",
		BENCH_ALPHA, BENCH_POWER);

	/* header: the setting names over their column groups */
	strbuf_addf(out, "%-*s %-*s %-*s %-*s", ww, "", vw, "", mw, "", uw,
		    "");
	for (j = 0; j < b->nr_set; j++) {
		int len = (int)strlen(b->set[j].name), k;

		strbuf_addstr(out, "  --- ");
		strbuf_addstr(out, b->set[j].name);
		strbuf_addch(out, ' ');
		for (k = len + 5; k < CELL_WIDTH; k++)
			strbuf_addch(out, '-');
	}
	strbuf_addch(out, '\n');
	strbuf_addf(out, "%-*s %-*s %-*s %-*s", ww, "workload", vw, "variant",
		    mw, "metric", uw, "unit");
	for (j = 0; j < b->nr_set; j++)
		strbuf_addf(out, "  %2s %10s %7s %7s %7s", "n", "median", "CV%",
			    "wCV%", "MDC%");
	strbuf_addstr(out, "  best\n");

	for (i = 0; i < b->nr_rows; i++) {
		const struct bench_row *r = &b->rows[i];
		int first = 1;

		strbuf_addf(out, "%-*s %-*s %-*s %-*s", ww, r->workload, vw,
			    *r->variant ? r->variant : "-", mw, r->metric, uw,
			    r->unit);
		for (j = 0; j < b->nr_set; j++) {
			const struct bench_cell *c = &r->cells[j];

			strbuf_addf(out, "  %2d ", c->n);
			strbuf_addnum(out, c->median, 10);
			strbuf_addch(out, ' ');
			fmt_pct(out, c->cv * 100, 7);
			strbuf_addch(out, ' ');
			fmt_pct(out, c->wcv * 100, 7);
			strbuf_addch(out, ' ');
			fmt_pct(out, c->mdc, 7);
		}
		strbuf_addstr(out, "  ");
		for (j = 0; j < b->nr_set; j++) {
			if (!r->best[j])
				continue;
			strbuf_addf(out, "%s%s", first ? "" : "=",
				    b->set[j].name);
			first = 0;
		}
		if (first)
			strbuf_addch(out, '-');
		strbuf_addch(out, '\n');
	}
	if (!b->nr_rows)
		strbuf_addstr(out, "(no samples in any run)\n");
	list_missing(db, b, out, NULL);
}

/* per setting: metrics won, median CV and MDC over the metrics */
struct bench_summary {
	int wins, metrics;
	double median_cv, median_mdc;   /* %, NAN without any */
};

static void summarize_setting(const struct bench *b, size_t j,
			      struct bench_summary *bs)
{
	struct doubles cvs = { 0 }, mdcs = { 0 };
	struct summary s;
	size_t i;

	memset(bs, 0, sizeof(*bs));
	for (i = 0; i < b->nr_rows; i++) {
		const struct bench_cell *c = &b->rows[i].cells[j];

		bs->wins += b->rows[i].best[j];
		if (isnan(c->cv))
			continue;
		bs->metrics++;
		doubles_push(&cvs, fabs(c->cv) * 100);
		if (!isnan(c->mdc))
			doubles_push(&mdcs, c->mdc);
	}
	summarize(cvs.v, cvs.nr, &s);
	bs->median_cv = s.median;
	summarize(mdcs.v, mdcs.nr, &s);
	bs->median_mdc = s.median;
	free(cvs.v);
	free(mdcs.v);
}

/*
 * The setting with the least median between-boot CV (more wins break a
 * tie), among those measured with `clock` (NULL: all); -1 if none has a
 * CV. bs holds every setting's summary.
 */
static int least_spread(const struct bench *b, const struct bench_summary *bs,
			const char *clock)
{
	int best = -1;
	size_t j;

	for (j = 0; j < b->nr_set; j++) {
		if (isnan(bs[j].median_cv) ||
		    (clock && (!b->set[j].rec_clock ||
			       strcmp(b->set[j].rec_clock, clock))))
			continue;
		if (best < 0 || bs[j].median_cv < bs[best].median_cv ||
		    (bs[j].median_cv == bs[best].median_cv &&
		     bs[j].wins > bs[best].wins))
			best = (int)j;
	}
	return best;
}

/* how many settings measured with `clock` have a median CV */
static int nr_with_clock(const struct bench *b,
			 const struct bench_summary *bs, const char *clock)
{
	int n = 0;
	size_t j;

	for (j = 0; j < b->nr_set; j++)
		n += !isnan(bs[j].median_cv) && b->set[j].rec_clock &&
		     !strcmp(b->set[j].rec_clock, clock);
	return n;
}

static const char *const clocks[] = { "icount", "wall" };

static void bench_format_summary(const struct bench *b, struct strbuf *out)
{
	struct bench_summary *bs = xcalloc(b->nr_set, sizeof(*bs));
	int sw = 4, best, measured = 0;
	size_t i, j;

	for (i = 0; i < b->nr_rows; i++) {
		for (j = 0; j < b->nr_set; j++)
			if (b->rows[i].best[j])
				break;
		measured += j < b->nr_set;
	}
	for (j = 0; j < b->nr_set; j++)
		sw = (int)fmax(sw, strlen(b->set[j].name));
	strbuf_addf(out, "\nsummary (a tie is a win for each):\n");
	for (j = 0; j < b->nr_set; j++) {
		summarize_setting(b, j, &bs[j]);
		strbuf_addf(out, "  %-*s wins %2d of %d metrics, median CV ",
			    sw, b->set[j].name, bs[j].wins, measured);
		fmt_pct(out, bs[j].median_cv, 0);
		strbuf_addstr(out, " %, median MDC ");
		fmt_pct(out, bs[j].median_mdc, 0);
		strbuf_addf(out, " %% (over %d metrics with a CV)\n",
			    bs[j].metrics);
	}
	best = least_spread(b, bs, NULL);
	if (best >= 0)
		strbuf_addf(out, "least spread: %s (median between-boot CV "
			    "%.2f %%, wins %d of %d metrics)\n",
			    b->set[best].name, bs[best].median_cv,
			    bs[best].wins, measured);
	else
		strbuf_addstr(out, "least spread: undecided (no setting has "
			      "2 ok boots with data)\n");
	/* the modes are never compared, so each needs its own default */
	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		if (nr_with_clock(b, bs, clocks[i]) < 2)
			continue;
		best = least_spread(b, bs, clocks[i]);
		strbuf_addf(out, "least spread with the %s clock: %s (median "
			    "between-boot CV %.2f %%)\n", clocks[i],
			    b->set[best].name, bs[best].median_cv);
	}
	free(bs);
}

static json_t *jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/*
 * --calibrate: each setting's boots are a pool of one kernel against
 * itself (calibrate.h). For every k in the list with P >= 2k and every
 * threshold of the grid, the false-alarm rate (BETTER or WORSE in an A/A
 * comparison) and the detection rates of a 5 % and a 10 % slowdown, pooled
 * over the metrics that could be tested at all (a metric INSUFFICIENT in
 * every A/A trial, such as one below a clock tick, is left out of them;
 * the insufficient rate is over every metric, so 3 vs 3 boots, which can
 * never reach p < 0.05, shows 0 tested and 100 % insufficient).
 *
 * The recommendation, per setting at test-series' default k (else the
 * largest k calibrated): the threshold with a pooled false-alarm rate of
 * at most 1 % and the best detection of +5 % (then +10 %); ties go to the
 * earlier in the grid (the looser threshold).
 */
static const double calib_alphas[] = { 0.05, 0.01, 0.005 };
static const double calib_min_effects[] = { 1, 2, 3 };
#define CALIB_GRID (ARRAY_SIZE(calib_alphas) * ARRAY_SIZE(calib_min_effects))
#define CALIB_TARGET_PCT 1.0

struct calib_pool_metric {
	char *workload, *variant, *metric, *unit;
	struct doubles *boots;          /* one per ok boot of the run */
	struct calib_boot *cb;       /* views of boots, for calibrate() */
};

struct calib_line {
	size_t k;
	double alpha, min_effect_pct;
	int ret;                     /* calibrate()'s: 1 = pool too small */
	size_t tested;               /* metrics not always insufficient */
	struct calib_rate fa, ins, det[CALIB_NR_SLOWDOWNS];
	double max_fa_pct;           /* the worst single metric */
	struct calib_result family;
	struct calib_result *res;    /* one per metric of the pool */
};

/* the calibration of one setting */
struct calib_setting {
	size_t set;                  /* index into bench.set */
	size_t pool;                 /* P, ok boots */
	size_t default_k;
	struct calib_pool_metric *m;
	size_t nr, alloc;
	struct calib_line *lines;
	size_t nr_lines;
	int best;                    /* index into lines, -1 none */
	int best_k_missing;          /* the default k needs more boots */
};

struct calib_all {
	struct calib_setting *s;
	size_t nr, alloc;
	size_t trials;
	unsigned long seed;
};

static void calib_all_release(struct calib_all *ca)
{
	size_t i, j, l;

	for (i = 0; i < ca->nr; i++) {
		struct calib_setting *cs = &ca->s[i];

		for (j = 0; j < cs->nr; j++) {
			for (l = 0; l < cs->pool; l++)
				free(cs->m[j].boots[l].v);
			free(cs->m[j].boots);
			free(cs->m[j].cb);
			free(cs->m[j].workload);
			free(cs->m[j].variant);
			free(cs->m[j].metric);
			free(cs->m[j].unit);
		}
		for (j = 0; j < cs->nr_lines; j++)
			free(cs->lines[j].res);
		free(cs->m);
		free(cs->lines);
	}
	free(ca->s);
	memset(ca, 0, sizeof(*ca));
}

/* every sample of the run's ok boots, per metric and boot */
static int calib_load(struct db *db, long long run_id,
		      struct calib_setting *cs)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT s.workload, s.variant, s.metric, s.unit, "
		"(SELECT count(*) FROM boots b2 WHERE b2.run_id = s.run_id "
		"AND b2.status = 'ok' AND b2.id < s.boot_id), s.value "
		"FROM samples s JOIN boots bt ON bt.id = s.boot_id WHERE "
		"s.run_id = ? AND bt.status = 'ok' ORDER BY 1, 2, 3, 4, "
		"s.boot_id, s.iteration", "i", run_id);
	struct calib_pool_metric *cur = NULL;
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		size_t boot = (size_t)sqlite3_column_int64(st, 4);

		if (!cur || strcmp(cur->workload, db_col_text(st, 0)) ||
		    strcmp(cur->variant, db_col_text(st, 1)) ||
		    strcmp(cur->metric, db_col_text(st, 2)) ||
		    strcmp(cur->unit, db_col_text(st, 3))) {
			ALLOC_GROW(cs->m, cs->nr + 1, cs->alloc);
			cur = &cs->m[cs->nr++];
			cur->workload = xstrdup(db_col_text(st, 0));
			cur->variant = xstrdup(db_col_text(st, 1));
			cur->metric = xstrdup(db_col_text(st, 2));
			cur->unit = xstrdup(db_col_text(st, 3));
			cur->boots = xcalloc(cs->pool, sizeof(*cur->boots));
			cur->cb = xcalloc(cs->pool, sizeof(*cur->cb));
		}
		if (boot >= cs->pool)
			BUG("ok boot %zu of a pool of %zu", boot, cs->pool);
		doubles_push(&cur->boots[boot], sqlite3_column_double(st, 5));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return error("cannot read the samples of run #%lld", run_id);
	return 0;
}

static void calib_pool_rates(struct calib_setting *cs, struct calib_line *cl)
{
	size_t j, s, tr = 0, fa = 0, ins = 0, all = 0;
	size_t det[CALIB_NR_SLOWDOWNS] = { 0 };

	cl->tested = 0;
	cl->max_fa_pct = NAN;
	for (j = 0; j < cs->nr; j++) {
		const struct calib_result *r = &cl->res[j];

		/* insufficient: over every metric, the rest over the tested */
		ins += r->insufficient.hits;
		all += r->insufficient.trials;
		if (!r->false_alarm.trials ||
		    r->insufficient.hits == r->insufficient.trials)
			continue;
		cl->tested++;
		tr += r->false_alarm.trials;
		fa += r->false_alarm.hits;
		for (s = 0; s < CALIB_NR_SLOWDOWNS; s++)
			det[s] += r->detect[s].hits;
		if (isnan(cl->max_fa_pct) || r->false_alarm.pct > cl->max_fa_pct)
			cl->max_fa_pct = r->false_alarm.pct;
	}
	calib_rate_set(&cl->fa, fa, tr);
	calib_rate_set(&cl->ins, ins, all);
	for (s = 0; s < CALIB_NR_SLOWDOWNS; s++)
		calib_rate_set(&cl->det[s], det[s], tr);
}

/* the calibration of setting si: every k of ks, every threshold */
static int calib_setting_run(struct db *db, const struct bench *b, size_t si,
			     const size_t *ks, size_t nr_ks,
			     struct calib_all *ca)
{
	const struct bench_setting *s = &b->set[si];
	struct calib_metric *cm;
	struct calib_setting *cs;
	size_t i, j, a, e;
	int wall = !strcmp(s->rec_clock, "wall");

	ALLOC_GROW(ca->s, ca->nr + 1, ca->alloc);
	cs = &ca->s[ca->nr++];
	memset(cs, 0, sizeof(*cs));
	cs->set = si;
	cs->pool = s->boots_ok;
	cs->default_k = wall ? MEASURE_BOOTS_WALL :
			       MEASURE_BOOTS_ICOUNT;
	cs->best = -1;
	if (calib_load(db, s->run_id, cs) < 0)
		return -1;
	cm = xcalloc(cs->nr ? cs->nr : 1, sizeof(*cm));
	for (j = 0; j < cs->nr; j++) {
		struct calib_pool_metric *pm = &cs->m[j];
		const struct metric_def *md = metric_find(pm->workload,
							  pm->metric);

		for (i = 0; i < cs->pool; i++) {
			pm->cb[i].v = pm->boots[i].v;
			pm->cb[i].n = pm->boots[i].nr;
		}
		cm[j].name = pm->metric;
		cm[j].boots = pm->cb;
		/* the units of `mmci compare` (compare.c) */
		cm[j].per_boot = wall;
		cm[j].lower_is_better = md ? md->lower_is_better : 1;
		cm[j].resolution = metric_resolution(pm->workload, pm->metric,
						     s->hz);
	}
	cs->lines = xcalloc(nr_ks * CALIB_GRID, sizeof(*cs->lines));
	for (i = 0; i < nr_ks; i++) {
		for (a = 0; a < ARRAY_SIZE(calib_alphas); a++) {
			for (e = 0; e < ARRAY_SIZE(calib_min_effects); e++) {
				struct calib_line *cl =
					&cs->lines[cs->nr_lines++];
				struct calib_opts o = {
					.k = ks[i], .trials = ca->trials,
					.seed = ca->seed,
					.alpha = calib_alphas[a],
					.min_effect_pct = calib_min_effects[e],
				};

				cl->k = ks[i];
				cl->alpha = o.alpha;
				cl->min_effect_pct = o.min_effect_pct;
				cl->res = xcalloc(cs->nr ? cs->nr : 1,
						  sizeof(*cl->res));
				cl->ret = calibrate(cm, cs->nr, cs->pool, &o,
						    cl->res, &cl->family);
				if (cl->ret < 0) {
					free(cm);
					return -1;
				}
				calib_pool_rates(cs, cl);
			}
		}
	}
	free(cm);

	/* the recommendation at the default k, else the largest k done */
	for (i = 0; i < cs->nr_lines; i++)
		if (cs->lines[i].k == cs->default_k && !cs->lines[i].ret)
			break;
	cs->best_k_missing = i == cs->nr_lines;
	for (i = 0; i < cs->nr_lines; i++) {
		const struct calib_line *cl = &cs->lines[i];
		const struct calib_line *best = cs->best < 0 ? NULL :
						&cs->lines[cs->best];

		if (cl->ret || !cl->tested ||
		    (!cs->best_k_missing && cl->k != cs->default_k) ||
		    !(cl->fa.pct <= CALIB_TARGET_PCT))
			continue;
		if (!best || (cs->best_k_missing && cl->k > best->k) ||
		    (cl->k == best->k &&
		     (cl->det[0].pct > best->det[0].pct ||
		      (cl->det[0].pct == best->det[0].pct &&
		       cl->det[1].pct > best->det[1].pct))))
			cs->best = (int)i;
	}
	return 0;
}

/* "3,4,5,6" into ks; 0 entries when list is NULL */
static size_t parse_ks(const char *list, size_t *ks, size_t max)
{
	char *copy, *tok, *save = NULL;
	size_t n = 0;

	if (!list)
		return 0;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save))
		ks[n++] = parse_count("--calib-boots", tok);
	free(copy);
	return n;
}

static int bench_calibrate(struct db *db, const struct bench *b,
			   const char *ks_list, struct calib_all *ca)
{
	static const size_t wall_ks[] = { 3, 4, 5, 6 };
	static const size_t icount_ks[] = { 2, 3 };
	size_t ks[16], nr_ks, j;

	nr_ks = parse_ks(ks_list, ks, ARRAY_SIZE(ks));
	for (j = 0; j < b->nr_set; j++) {
		const struct bench_setting *s = &b->set[j];
		int wall;

		if (!s->run_id || !s->rec_clock)
			continue;
		wall = !strcmp(s->rec_clock, "wall");
		if (!ks_list) {
			nr_ks = wall ? ARRAY_SIZE(wall_ks) :
				       ARRAY_SIZE(icount_ks);
			memcpy(ks, wall ? wall_ks : icount_ks,
			       nr_ks * sizeof(*ks));
		}
		progress("bench: calibrating %s (run #%lld, %d boots)",
			 s->name, s->run_id, s->boots_ok);
		if (calib_setting_run(db, b, j, ks, nr_ks, ca) < 0)
			return -1;
	}
	return 0;
}

static void fmt_rate(struct strbuf *sb, const struct calib_rate *r,
		     int width)
{
	fmt_pct(sb, r->pct, width);
}

static void calib_format(const struct bench *b, const struct calib_all *ca,
			 struct strbuf *out)
{
	size_t i, j, l;

	strbuf_addf(out,
		"\ncalibration: the kernel against itself (A/A). A trial "
		"draws two disjoint\n"
		"groups of k boots from a setting's P ok boots and compares "
		"them as\n"
		"`mmci compare` would (wall: boot medians; icount: every "
		"sample). FA%%:\n"
		"better or worse, a false alarm; det+5%%, det+10%%: worse "
		"after slowing the\n"
		"second group by 5 or 10 %%; ins%%: insufficient, over all "
		"metrics; famFA%%:\n"
		"trials with a false alarm in any metric; maxFA%%: the worst "
		"metric. FA%% and\n"
		"det%% pool the metrics that could be tested (not always "
		"insufficient);\n"
		"CI: 95 %% Wilson over the pooled trials. The "
		"splits are resamples\n"
		"of one pool, not new experiments: the precision is bounded "
		"by P, not by T\n"
		"(%zu random splits, seed %lu, or every split when there are "
		"fewer).\n", ca->trials, ca->seed);
	for (i = 0; i < ca->nr; i++) {
		const struct calib_setting *cs = &ca->s[i];
		const struct bench_setting *s = &b->set[cs->set];

		strbuf_addf(out, "\ncalibration %s: run #%lld, clock %s, P %zu "
			    "boots, %zu metrics; test-series default k %zu\n",
			    s->name, s->run_id, s->rec_clock, cs->pool, cs->nr,
			    cs->default_k);
		strbuf_addf(out, "  %2s %5s %5s %6s %6s %15s %6s %6s %7s %7s "
			    "%6s\n", "k", "alpha", "min%", "tested", "FA%",
			    "[95% CI]", "maxFA%", "famFA%", "det+5%",
			    "det+10%", "ins%");
		for (l = 0; l < cs->nr_lines; l++) {
			const struct calib_line *cl = &cs->lines[l];

			if (cl->ret) {
				/* one line for the k, not one per threshold */
				if (!l || cs->lines[l - 1].k != cl->k)
					strbuf_addf(out, "  %2zu needs P >= %zu "
						    "boots, has %zu\n", cl->k,
						    2 * cl->k, cs->pool);
				continue;
			}
			strbuf_addf(out, "  %2zu %5g %5.0f ", cl->k,
				    cl->alpha, cl->min_effect_pct);
			strbuf_addf(out, "%6zu ", cl->tested);
			fmt_rate(out, &cl->fa, 6);
			if (isnan(cl->fa.pct)) {
				strbuf_addf(out, " %15s", "-");
			} else {
				char ci[40];

				xsnprintf(ci, sizeof(ci), "[%.2f, %.2f]",
					  cl->fa.lo_pct, cl->fa.hi_pct);
				strbuf_addf(out, " %15s", ci);
			}
			strbuf_addch(out, ' ');
			fmt_pct(out, cl->max_fa_pct, 6);
			strbuf_addch(out, ' ');
			fmt_rate(out, &cl->family.false_alarm, 6);
			strbuf_addch(out, ' ');
			fmt_rate(out, &cl->det[0], 7);
			strbuf_addch(out, ' ');
			fmt_rate(out, &cl->det[1], 7);
			strbuf_addch(out, ' ');
			fmt_rate(out, &cl->ins, 6);
			strbuf_addch(out, '\n');
		}
		if (cs->best < 0) {
			strbuf_addf(out, "  recommended %s: none (no threshold "
				    "keeps FA%% <= %.0f %% at k %zu%s)\n",
				    s->name, CALIB_TARGET_PCT, cs->default_k,
				    cs->best_k_missing ? ", not calibrated: "
				    "too few boots or not asked for" : "");
			continue;
		}
		{
			const struct calib_line *cl = &cs->lines[cs->best];

			strbuf_addf(out, "  recommended %s: k %zu, alpha "
				    "%g, min effect %.0f %%: FA %.2f %%, "
				    "det+5 %.1f %%, det+10 %.1f %%%s\n",
				    s->name, cl->k, cl->alpha,
				    cl->min_effect_pct, cl->fa.pct,
				    cl->det[0].pct, cl->det[1].pct,
				    cs->best_k_missing ? " (the default k "
				    "was not calibrated)" : "");
			strbuf_addf(out, "  per metric at k %zu, alpha %g, "
				    "min effect %.0f %%:\n", cl->k, cl->alpha,
				    cl->min_effect_pct);
			for (j = 0; j < cs->nr; j++) {
				const struct calib_pool_metric *pm = &cs->m[j];
				const struct calib_result *r = &cl->res[j];

				strbuf_addf(out, "    %s %s %s %s ",
					    pm->workload,
					    *pm->variant ? pm->variant : "-",
					    pm->metric, pm->unit);
				strbuf_addstr(out, "FA ");
				fmt_rate(out, &r->false_alarm, 0);
				strbuf_addstr(out, " ins ");
				fmt_rate(out, &r->insufficient, 0);
				strbuf_addstr(out, " det+5 ");
				fmt_rate(out, &r->detect[0], 0);
				strbuf_addstr(out, " det+10 ");
				fmt_rate(out, &r->detect[1], 0);
				strbuf_addch(out, '\n');
			}
		}
	}
	if (!ca->nr)
		strbuf_addstr(out, "\ncalibration: no run to calibrate\n");
}

static json_t *jrate(const struct calib_rate *r)
{
	return json_pack("{s:I, s:I, s:o, s:o, s:o}", "hits",
			 (json_int_t)r->hits, "trials", (json_int_t)r->trials,
			 "pct", jnum(r->pct), "lo_pct", jnum(r->lo_pct),
			 "hi_pct", jnum(r->hi_pct));
}

static json_t *calib_json(const struct bench *b, const struct calib_all *ca)
{
	json_t *root = json_object(), *jset = json_array();
	size_t i, j, l;

	json_object_set_new(root, "trials", json_integer(ca->trials));
	json_object_set_new(root, "seed", json_integer(ca->seed));
	json_object_set_new(root, "target_false_alarm_pct",
			    json_real(CALIB_TARGET_PCT));
	for (i = 0; i < ca->nr; i++) {
		const struct calib_setting *cs = &ca->s[i];
		json_t *jl = json_array(), *jm = json_array(), *best;

		for (l = 0; l < cs->nr_lines; l++) {
			const struct calib_line *cl = &cs->lines[l];

			json_array_append_new(jl, json_pack(
				"{s:I, s:f, s:f, s:b, s:I, s:o, s:o, s:o, "
				"s:o, s:o, s:o}", "k", (json_int_t)cl->k,
				"alpha", cl->alpha, "min_effect_pct",
				cl->min_effect_pct, "pool_too_small",
				cl->ret == 1, "tested", (json_int_t)cl->tested,
				"false_alarm", jrate(&cl->fa),
				"max_false_alarm_pct", jnum(cl->max_fa_pct),
				"family_false_alarm",
				jrate(&cl->family.false_alarm), "detect_5",
				jrate(&cl->det[0]), "detect_10",
				jrate(&cl->det[1]), "insufficient",
				jrate(&cl->ins)));
		}
		best = json_null();
		if (cs->best >= 0) {
			const struct calib_line *cl = &cs->lines[cs->best];

			best = json_pack("{s:I, s:f, s:f}", "k",
					 (json_int_t)cl->k, "alpha", cl->alpha,
					 "min_effect_pct", cl->min_effect_pct);
			for (j = 0; j < cs->nr; j++) {
				const struct calib_pool_metric *pm = &cs->m[j];
				const struct calib_result *r = &cl->res[j];

				json_array_append_new(jm, json_pack(
					"{s:s, s:s, s:s, s:s, s:o, s:o, s:o, "
					"s:o}", "workload", pm->workload,
					"variant", pm->variant, "metric",
					pm->metric, "unit", pm->unit,
					"false_alarm", jrate(&r->false_alarm),
					"insufficient",
					jrate(&r->insufficient), "detect_5",
					jrate(&r->detect[0]), "detect_10",
					jrate(&r->detect[1])));
			}
		}
		json_array_append_new(jset, json_pack(
			"{s:s, s:I, s:s, s:I, s:I, s:o, s:o, s:o}", "setting",
			b->set[cs->set].name, "run_id",
			(json_int_t)b->set[cs->set].run_id, "clock",
			b->set[cs->set].rec_clock, "pool",
			(json_int_t)cs->pool, "default_k",
			(json_int_t)cs->default_k, "lines", jl, "recommended",
			best, "metrics_at_recommended", jm));
	}
	json_object_set_new(root, "settings", jset);
	return root;
}

static char *bench_json(struct db *db, const struct bench *b,
			json_t *calib)
{
	json_t *root = json_object(), *jset = json_array();
	json_t *jrows = json_array(), *jmissing = json_array();
	json_t *by_clock = json_object();
	struct bench_summary *bs = xcalloc(b->nr_set, sizeof(*bs));
	char *text;
	size_t i, j;
	int best;

	json_object_set_new(root, "kernel_release",
			    json_string(b->release));
	json_object_set_new(root, "alpha", json_real(BENCH_ALPHA));
	json_object_set_new(root, "power", json_real(BENCH_POWER));
	for (j = 0; j < b->nr_set; j++) {
		const struct bench_setting *s = &b->set[j];

		summarize_setting(b, j, &bs[j]);
		json_array_append_new(jset, json_pack(
			"{s:s, s:I, s:s?, s:s?, s:s?, s:i, s:o, s:I, s:i, "
			"s:i, s:f, s:i, s:i, s:o, s:o}",
			"name", s->name, "run_id", (json_int_t)s->run_id,
			"accel", s->accel, "clock", s->rec_clock, "backing",
			s->rec_backing, "vcpus", s->rec_vcpus, "pin",
			s->pin < 0 ? json_null() : json_boolean(s->pin),
			"nvdimm_mib", (json_int_t)s->nvdimm_mib, "boots_ok",
			s->boots_ok, "boots", s->boots, "boot_s", s->boot_s,
			"mdc_boots", s->mdc_boots, "wins", bs[j].wins,
			"median_cv_pct", jnum(bs[j].median_cv),
			"median_mdc_pct", jnum(bs[j].median_mdc)));
	}
	for (i = 0; i < b->nr_rows; i++) {
		const struct bench_row *r = &b->rows[i];
		json_t *cells = json_object(), *winners = json_array();

		for (j = 0; j < b->nr_set; j++) {
			const struct bench_cell *c = &r->cells[j];

			json_object_set_new(cells, b->set[j].name, json_pack(
				"{s:i, s:o, s:o, s:o, s:o, s:o}", "n", c->n,
				"median", jnum(c->median), "cv_pct",
				jnum(c->cv * 100), "within_cv_pct",
				jnum(c->wcv * 100), "mdc_pct", jnum(c->mdc),
				"resolution", jnum(c->resolution)));
			if (r->best[j])
				json_array_append_new(
					winners, json_string(b->set[j].name));
		}
		json_array_append_new(jrows, json_pack(
			"{s:s, s:s, s:s, s:s, s:o, s:o}", "workload",
			r->workload, "variant", r->variant, "metric",
			r->metric, "unit", r->unit, "settings", cells, "best",
			winners));
	}
	list_missing(db, b, NULL, jmissing);
	json_object_set_new(root, "settings", jset);
	json_object_set_new(root, "metrics", jrows);
	json_object_set_new(root, "no_data", jmissing);
	best = least_spread(b, bs, NULL);
	json_object_set_new(root, "least_spread",
			    best < 0 ? json_null() :
				       json_string(b->set[best].name));
	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		best = least_spread(b, bs, clocks[i]);
		if (best >= 0)
			json_object_set_new(by_clock, clocks[i],
					    json_string(b->set[best].name));
	}
	json_object_set_new(root, "least_spread_by_clock", by_clock);
	if (calib)
		json_object_set_new(root, "calibration", calib);
	free(bs);
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
				 JSON_REAL_PRECISION(12));
	json_decref(root);
	return text;
}

/*
 * Create one run per setting, then boot them in turns: boot 0 of every
 * setting, boot 1 of every setting, ... Returns the number of settings
 * whose every boot failed.
 */
static int bench_boot(const struct mmci_config *cfg, struct db *db,
		      struct bench *b, const struct run_opts *base, int boots)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double t0 = now_s();
	int i, failed = 0;
	size_t j;

	for (j = 0; j < b->nr_set; j++) {
		struct bench_setting *s = &b->set[j];
		struct run_opts o = *base;

		o.clock = s->clock;
		o.backing = s->backing;
		o.pin = s->pin;
		if (s->vcpus)
			o.vcpus = s->vcpus;
		o.label = s->label;
		if (s->pin && ncpu > 0 && ncpu < (long)o.vcpus) {
			error("setting '%s' pins %u vCPUs but the host has %ld "
			      "CPU(s): skipped", s->name, o.vcpus, ncpu);
			failed++;
			continue;
		}
		if (run_create(cfg, db, &o, &s->run_id) < 0) {
			error("setting '%s': cannot create its run", s->name);
			s->run_id = 0;
			failed++;
		}
	}
	for (i = 0; i < boots; i++) {
		for (j = 0; j < b->nr_set; j++) {
			struct bench_setting *s = &b->set[j];

			if (!s->run_id)
				continue;
			progress("bench: boot %d of %d, setting %s (run #%lld), "
				 "%.0f s so far", i + 1, boots, s->name,
				 s->run_id, now_s() - t0);
			run_boot(cfg, db, s->run_id, i);
		}
	}
	for (j = 0; j < b->nr_set; j++)
		if (b->set[j].run_id && run_finish(db, b->set[j].run_id) <= 0)
			failed++;
	progress("bench: %d boot(s) in %.0f s", boots * (int)b->nr_set,
		 now_s() - t0);
	return failed;
}

static int parse_run_ids(const char *list, struct bench *b)
{
	char *copy = xstrdup(list), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(b->set, b->nr_set + 1, b->alloc_set);
		memset(&b->set[b->nr_set], 0, sizeof(*b->set));
		b->set[b->nr_set++].run_id = parse_count("--from-runs", tok);
	}
	free(copy);
	return b->nr_set ? 0 : error("--from-runs wants run ids, like 3,4");
}

int bench_check(const struct bench_request *req)
{
	struct strbuf wl = STRBUF_INIT;
	struct bench b = { 0 };
	int ret;

	ret = req->from_runs ? parse_run_ids(req->from_runs, &b) :
			       (parse_settings(req->settings, &b) < 0 ||
				workloads_expand(req->o->workloads, &wl) < 0 ?
				-1 : 0);
	bench_release(&b);
	strbuf_release(&wl);
	return ret;
}

int bench_run(const struct mmci_config *cfg, struct db *db,
	      const struct bench_request *req)
{
	struct run_opts o = *req->o;
	struct build_result keep = { 0 };
	struct strbuf wl = STRBUF_INIT, out = STRBUF_INIT;
	struct bench b = { .mdc_boots = req->mdc_boots };
	struct calib_all ca = { .trials = req->calib_trials ?
				req->calib_trials : CALIB_TRIALS,
				.seed = CALIB_SEED };
	char *release = NULL;
	int ret = -1, failed = 0, calib = req->calibrate;

	if (req->from_runs ? parse_run_ids(req->from_runs, &b) < 0 :
			     (parse_settings(req->settings, &b) < 0 ||
			      workloads_expand(o.workloads, &wl) < 0))
		goto out;
	if (!req->from_runs) {
		o.workloads = wl.buf;
		if (run_opts_kernel(db, req->build_id, &o, &keep,
				    &release) < 0)
			goto out;
		progress("bench: %s, settings %s, %d boot(s) each, workloads "
			 "%s", o.release, req->settings, req->boots, wl.buf);
		failed = bench_boot(cfg, db, &b, &o, req->boots);
	}
	if (bench_load(db, &b) < 0)
		goto out;
	if (calib < 0)
		calib = !req->from_runs;
	if (calib && bench_calibrate(db, &b, req->calib_ks, &ca) < 0)
		goto out;
	if (req->json) {
		char *text = bench_json(db, &b, calib ? calib_json(&b, &ca) :
							NULL);

		puts(text);
		free(text);
	} else {
		bench_format(db, &b, &out);
		bench_format_summary(&b, &out);
		if (calib)
			calib_format(&b, &ca, &out);
		fputs(out.buf, stdout);
	}
	ret = failed ? 1 : 0;
out:
	calib_all_release(&ca);
	strbuf_release(&out);
	strbuf_release(&wl);
	build_result_release(&keep);
	free(release);
	bench_release(&b);
	return ret;
}
