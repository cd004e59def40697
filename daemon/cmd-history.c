// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-history.c - `mmci history --metric M`: one metric's nightly values
 * over time, the steps in them and any slow drift.
 *
 * A point is one finished run (status 'ok') with samples of the metric
 * from ok boots, in the order the runs started. Its value is the run's
 * unit of replication (run_value() of compare.c): the median of the
 * per-boot medians in wall-clock mode (boots move 7-10 % apart, rebinds
 * inside one ~4 %), the median of all samples in icount mode (they are
 * all equal anyway).
 * Runs are kept in separate series by mode (accelerator, clock), set-up
 * shape (NVDIMM size and backing, RAM, vCPUs, pinning), workload, variant
 * and unit: values from two modes are never on one line. The statistics
 * are changepoint.c's; this file only loads, groups and prints.
 */
#include <getopt.h>
#include <math.h>

#include "builtin.h"
#include "changepoint.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"
#include "workload.h"

static const char history_usage[] =
	"usage: mmci history --metric M [--workload W] [--variant V] "
	"[--tree-only]\n"
	"                    [--limit N]\n"
	"\n"
	"The metric's value in every finished run, oldest first, one series\n"
	"per mode and set-up (icount and wall-clock runs are never mixed),\n"
	"then the steps found in it (binary segmentation, Mann-Whitney ranks,\n"
	"permutation test) with the commits around each, a ready `mmci bisect`\n"
	"line, and the drift (Mann-Kendall test, Theil-Sen slope).\n"
	"\n"
	"  --metric M    the metric (see 'mmci workloads')\n"
	"  --workload W  only this workload's metric\n"
	"  --variant V   only this variant ('' is a workload's only one)\n"
	"  --tree-only   only runs of tree builds, not of series or prebuilt\n"
	"                kernels\n"
	"  --limit N     only the newest N runs of each series\n";

struct hist_point {
	long long run_id;
	char *date, *release, *label;
	char *commit;		/* build commit, full; "" when none */
	char *build;		/* "tree", "series #N", "prebuilt" */
	int hz;
	double value;
};

struct hist_series {
	char *clock, *accel, *shape, *workload, *variant, *unit;
	struct hist_point *p;
	size_t nr, alloc;
};

struct history {
	const char *metric;
	struct hist_series *s;
	size_t nr, alloc;
};

static void hist_point_release(struct hist_point *p)
{
	free(p->date);
	free(p->release);
	free(p->label);
	free(p->commit);
	free(p->build);
}

static void history_release(struct history *h)
{
	size_t i, j;

	for (i = 0; i < h->nr; i++) {
		struct hist_series *s = &h->s[i];

		for (j = 0; j < s->nr; j++)
			hist_point_release(&s->p[j]);
		free(s->p);
		free(s->clock);
		free(s->accel);
		free(s->shape);
		free(s->workload);
		free(s->variant);
		free(s->unit);
	}
	free(h->s);
	memset(h, 0, sizeof(*h));
}

static struct hist_series *series_get(struct history *h, const char *clock,
				      const char *accel, const char *shape,
				      const char *workload,
				      const char *variant, const char *unit)
{
	struct hist_series *s;
	size_t i;

	for (i = 0; i < h->nr; i++) {
		s = &h->s[i];
		if (!strcmp(s->clock, clock) && !strcmp(s->accel, accel) &&
		    !strcmp(s->shape, shape) &&
		    !strcmp(s->workload, workload) &&
		    !strcmp(s->variant, variant) && !strcmp(s->unit, unit))
			return s;
	}
	ALLOC_GROW(h->s, h->nr + 1, h->alloc);
	s = &h->s[h->nr++];
	memset(s, 0, sizeof(*s));
	s->clock = xstrdup(clock);
	s->accel = xstrdup(accel);
	s->shape = xstrdup(shape);
	s->workload = xstrdup(workload);
	s->variant = xstrdup(variant);
	s->unit = xstrdup(unit);
	return s;
}

static int history_load(struct db *db, struct history *h,
			const char *workload, const char *variant,
			int tree_only)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT r.id, strftime('%Y-%m-%d', r.started_at, 'unixepoch'), "
		"r.kernel_release, coalesce(r.label, ''), r.clock, r.accel, "
		"coalesce(r.hz, b.hz, 0), r.nvdimm_mib, r.backing, r.ram_mib, "
		"r.vcpus, coalesce(json_extract(r.params, '$.pin'), 0), "
		"r.build_id, coalesce(b.commit_id, ''), b.series_id, "
		"s.workload, s.variant, s.unit, r.arch "
		"FROM runs r JOIN (SELECT DISTINCT run_id, workload, variant, "
		"unit FROM samples WHERE metric = ?1) s ON s.run_id = r.id "
		"LEFT JOIN builds b ON b.id = r.build_id "
		"WHERE r.status = 'ok' AND (?2 IS NULL OR s.workload = ?2) "
		"AND (?3 IS NULL OR s.variant = ?3) AND (?4 = 0 OR "
		"(b.id IS NOT NULL AND b.series_id IS NULL)) "
		"ORDER BY r.started_at, r.id, s.workload, s.variant",
		"ttti", h->metric, workload, variant, (long long)tree_only);
	struct strbuf shape = STRBUF_INIT;
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		const char *clock = db_col_text(st, 4);
		/* the set-up words of run.c, from the columns of this join */
		struct run_row setup = {
			.nvdimm_mib = sqlite3_column_int64(st, 7),
			.backing = (char *)db_col_text(st, 8),
			.ram_mib = sqlite3_column_int64(st, 9),
			.vcpus = sqlite3_column_int64(st, 10),
			.pin = sqlite3_column_int(st, 11) != 0,
			.arch = (char *)db_col_text(st, 18),
		};
		struct hist_series *s;
		struct hist_point *p;
		double value;
		int got;

		got = run_value(db, sqlite3_column_int64(st, 0),
				db_col_text(st, 15), db_col_text(st, 16),
				h->metric, run_units_per_boot(clock), &value);
		if (got < 0) {
			rc = -1;
			break;
		}
		if (!got)
			continue;
		strbuf_reset(&shape);
		run_setup_shape(&setup, &shape);
		s = series_get(h, clock, db_col_text(st, 5), shape.buf,
			       db_col_text(st, 15), db_col_text(st, 16),
			       db_col_text(st, 17));
		ALLOC_GROW(s->p, s->nr + 1, s->alloc);
		p = &s->p[s->nr++];
		p->run_id = sqlite3_column_int64(st, 0);
		p->date = xstrdup(db_col_text(st, 1));
		p->release = xstrdup(db_col_text(st, 2));
		p->label = xstrdup(db_col_text(st, 3));
		p->hz = sqlite3_column_int(st, 6);
		p->commit = xstrdup(db_col_text(st, 13));
		if (sqlite3_column_type(st, 12) == SQLITE_NULL)
			p->build = xstrdup("prebuilt");
		else if (sqlite3_column_type(st, 14) == SQLITE_NULL)
			p->build = xstrdup("tree");
		else
			p->build = xstrfmt("series #%lld",
					   sqlite3_column_int64(st, 14));
		p->value = value;
	}
	sqlite3_finalize(st);
	strbuf_release(&shape);
	return rc == DB_DONE ? 0 : error("cannot read the runs of '%s'",
					 h->metric);
}

/* keep the newest limit points of every series */
static void history_limit(struct history *h, size_t limit)
{
	size_t i, j, drop;

	for (i = 0; i < h->nr; i++) {
		struct hist_series *s = &h->s[i];

		if (s->nr <= limit)
			continue;
		drop = s->nr - limit;
		for (j = 0; j < drop; j++)
			hist_point_release(&s->p[j]);
		memmove(s->p, s->p + drop, limit * sizeof(*s->p));
		s->nr = limit;
	}
}

/* a metric is known when the runner declares it or a sample has it */
static int metric_known(struct db *db, const char *workload,
			const char *metric)
{
	const struct workload_def *w;
	const struct metric_def *m;

	for (w = workload_defs; w->name; w++) {
		if (workload && strcmp(w->name, workload))
			continue;
		for (m = w->metrics; m->name; m++)
			if (!strcmp(m->name, metric))
				return 1;
	}
	return db_int(db, 0, "SELECT EXISTS (SELECT 1 FROM samples WHERE "
		      "metric = ?1 AND (?2 IS NULL OR workload = ?2))", "tt",
		      metric, workload) > 0;
}

static const char *direction(double change, int lower_is_better)
{
	if (change == 0)
		return "";
	return (change > 0) == !!lower_is_better ? " (worse)" : " (better)";
}

static void print_value(double v)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addnum(&sb, v, 10);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static void print_step(const struct hist_series *s, const char *metric,
		       const struct changepoint *cp, int lower_is_better)
{
	const struct hist_point *good = &s->p[cp->index - 1];
	const struct hist_point *bad = &s->p[cp->index];

	printf("  step at run #%lld (%s): %.6g -> %.6g %s, %+.2f %%%s, "
	       "p %.2g\n", bad->run_id, bad->date, cp->before, cp->after,
	       s->unit, cp->change_pct,
	       direction(cp->change_pct, lower_is_better), cp->p);
	printf("    between run #%lld (%s, %s%.12s) and run #%lld (%s, "
	       "%s%.12s)\n", good->run_id, good->release,
	       good->commit[0] ? "commit " : "no build commit", good->commit,
	       bad->run_id, bad->release,
	       bad->commit[0] ? "commit " : "no build commit", bad->commit);
	if (!good->commit[0] || !bad->commit[0]) {
		printf("    no bisect: a prebuilt kernel has no commit\n");
	} else if (!strcmp(good->commit, bad->commit)) {
		printf("    no bisect: both runs booted commit %.12s, the step "
		       "is not in the kernel's code (host, toolchain, "
		       "set-up?)\n", good->commit);
	} else {
		printf("    commits: %.12s..%.12s\n", good->commit, bad->commit);
		printf("    mmci bisect %s %s --metric %s --workload %s%s%s "
		       "--clock %s\n", good->commit, bad->commit, metric,
		       s->workload, s->variant[0] ? " --variant " : "",
		       s->variant, s->clock);
	}
}

static void print_series(const struct history *h, size_t idx,
			 const struct cp_opts *base_opts)
{
	const struct hist_series *s = &h->s[idx];
	const struct metric_def *md = metric_find(s->workload, h->metric);
	int lower_is_better = md ? md->lower_is_better : 1;
	struct cp_opts opts = *base_opts;
	struct cp_result res;
	struct drift d;
	double *x = xmalloc((s->nr ? s->nr : 1) * sizeof(*x));
	size_t i, next_cp = 0;

	for (i = 0; i < s->nr; i++) {
		double r = metric_resolution(s->workload, h->metric, s->p[i].hz);

		x[i] = s->p[i].value;
		if (r > opts.resolution)	/* the coarsest clock decides */
			opts.resolution = r;
	}
	changepoint_detect(x, s->nr, &opts, &res);
	drift_detect(x, s->nr, &opts, &d);

	printf("series %zu of %zu: %s %s (%s, %s is better)%s%s\n", idx + 1,
	       h->nr, s->workload, h->metric, s->unit,
	       lower_is_better ? "lower" : "higher",
	       s->variant[0] ? ", variant " : "", s->variant);
	printf("mode: %s, clock %s (%s); set-up: %s\n", s->accel, s->clock,
	       !strcmp(s->clock, "wall") ?
		       "a run's value is the median of its boots' medians" :
		       "a run's value is the median of its samples",
	       s->shape);
	printf("%6s  %-10s  %-24s  %-12s  %-10s  %-16s %10s\n", "run",
	       "date", "kernel", "commit", "build", "label", "value");
	for (i = 0; i < s->nr; i++) {
		const struct hist_point *p = &s->p[i];

		printf("%6lld  %-10s  %-24s  %-12.12s  %-10s  %-16s ",
		       p->run_id, p->date, p->release,
		       p->commit[0] ? p->commit : "-", p->build,
		       p->label[0] ? p->label : "-");
		print_value(p->value);
		if (next_cp < res.nr && res.cp[next_cp].index == i) {
			printf("  <- step %+.2f %%",
			       res.cp[next_cp].change_pct);
			next_cp++;
		}
		putchar('\n');
	}

	printf("change-points (ranks, permutation p < %g over the whole "
	       "series; >= %zu runs a side, >= %g %%, > %g %s): ",
	       opts.alpha, opts.min_segment, opts.min_effect_pct,
	       opts.resolution, s->unit);
	if (res.status == CP_INSUFFICIENT)
		printf("insufficient data (%s)\n", res.reason);
	else if (!res.nr)
		printf("none%s%s%s\n", res.reason[0] ? " (" : "", res.reason,
		       res.reason[0] ? ")" : "");
	else
		printf("%zu\n", res.nr);
	for (i = 0; res.status == CP_OK && i < res.nr; i++)
		print_step(s, h->metric, &res.cp[i], lower_is_better);

	printf("drift (Mann-Kendall, Theil-Sen): ");
	if (d.status == CP_INSUFFICIENT)
		printf("insufficient data (%s)\n", d.reason);
	else if (isnan(d.p))
		printf("none (%s)\n", d.reason);
	else
		printf("%s: %+.3f %%/run (95 %% CI [%+.3f, %+.3f]), %+.2f %% "
		       "over %zu runs, p %.2g%s%s%s\n",
		       d.drifting ? "DRIFTING" : "none", d.slope_pct,
		       d.slope_lo_pct, d.slope_hi_pct, d.total_pct, d.n, d.p,
		       d.drifting ? direction(d.total_pct, lower_is_better) :
				    "",
		       d.reason[0] ? "; " : "", d.reason);
	if (d.drifting && res.status == CP_OK && res.nr)
		printf("  (a step is a trend too for this test: the values "
		       "above show whether they ramp or jump)\n");
	cp_result_release(&res);
	free(x);
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "workload", required_argument, NULL, 'w' },
		{ "variant", required_argument, NULL, 'V' },
		{ "tree-only", no_argument, NULL, 't' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cp_opts cpo = CP_OPTS_INIT;
	const char *workload = NULL, *variant = NULL;
	struct history h = { 0 };
	struct mmci_config cfg;
	long long limit = 0;
	int c, tree_only = 0, ret = 0;
	struct db db;
	size_t i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			h.metric = optarg;
			break;
		case 'w':
			workload = optarg;
			break;
		case 'V':
			variant = optarg;
			break;
		case 't':
			tree_only = 1;
			break;
		case 'l':
			limit = parse_count("--limit", optarg);
			break;
		case 'h':
			fputs(history_usage, stdout);
			return 0;
		default:
			fputs(history_usage, stderr);
			return 129;
		}
	}
	if (optind != argc || !h.metric || !*h.metric) {
		if (!h.metric)
			error("--metric is required");
		fputs(history_usage, stderr);
		return 129;
	}
	if (workload && !workload_find(workload))
		return error("unknown workload '%s' (see 'mmci workloads')",
			     workload), 1;
	setup_command(&cfg, &db);
	if (!metric_known(&db, workload, h.metric)) {
		error("unknown metric '%s'%s%s (see 'mmci workloads')",
		      h.metric, workload ? " of workload " : "",
		      workload ? workload : "");
		ret = 1;
		goto out;
	}
	if (history_load(&db, &h, workload, variant, tree_only) < 0) {
		ret = 1;
		goto out;
	}
	if (limit)
		history_limit(&h, (size_t)limit);
	if (!h.nr) {
		printf("history of %s: insufficient data (no finished run%s "
		       "has samples of it%s%s%s%s)\n", h.metric,
		       tree_only ? " of a tree build" : "",
		       workload ? " in workload " : "",
		       workload ? workload : "",
		       variant ? ", variant " : "",
		       variant ? (*variant ? variant : "''") : "");
		goto out;
	}
	printf("history of %s: %zu series (one per mode, set-up, workload "
	       "and variant; never mixed)\n", h.metric, h.nr);
	for (i = 0; i < h.nr; i++) {
		putchar('\n');
		print_series(&h, i, &cpo);
	}
out:
	history_release(&h);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
