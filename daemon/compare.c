// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - load two runs' samples, compare each metric, print a table.
 */
#include <math.h>

#include "compare.h"
#include "db.h"
#include "hostfacts.h"
#include "result.h"	/* RESULT_VALUE_MAX, result_names_ok() */
#include "run.h"
#include "strbuf.h"
#include "util.h"
#include "workload.h"

int run_units_per_boot(const char *clock)
{
	return !strcmp(clock, "wall");
}

void unit_values_release(struct unit_values *u)
{
	free(u->v);
	free(u->cv);
	memset(u, 0, sizeof(*u));
}

/* the samples of one boot, done: its units into @out */
static void end_boot(const double *v, size_t n, int per_boot,
		     struct unit_values *out)
{
	struct summary s;
	size_t i;

	out->boots++;
	if (!per_boot) {
		ALLOC_GROW(out->v, out->nr + n, out->alloc);
		for (i = 0; i < n; i++)
			out->v[out->nr++] = v[i];
		return;
	}
	if (summarize(v, n, &s))
		return;
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	/* cv grows with v: both have out->alloc elements */
	out->cv = xrealloc(out->cv, out->alloc * sizeof(*out->cv));
	out->cv[out->nr] = s.cv;
	out->v[out->nr++] = s.median;
}

static int sample_ok(sqlite3_stmt *st, int col)
{
	int type = sqlite3_column_type(st, col);
	double v = sqlite3_column_double(st, col);

	return (type == SQLITE_FLOAT || type == SQLITE_INTEGER) &&
	       isfinite(v) && v >= 0 && v <= RESULT_VALUE_MAX;
}

int run_units(struct db *db, long long run_id, const char *workload,
	      const char *variant, const char *metric, int per_boot,
	      struct unit_values *out)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT s.boot_id, s.value FROM samples s JOIN boots b ON "
		"b.id = s.boot_id WHERE s.run_id = ? AND s.workload = ? AND "
		"s.variant = ? AND s.metric = ? AND b.status = 'ok' ORDER BY "
		"s.boot_id, s.iteration", "ittt", run_id, workload, variant,
		metric);
	double *boot = NULL;
	size_t nr = 0, alloc = 0;
	long long cur = -1;
	int rc;

	unit_values_release(out);
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		long long b = sqlite3_column_int64(st, 0);

		if (b != cur && nr) {
			end_boot(boot, nr, per_boot, out);
			nr = 0;
		}
		cur = b;
		/*
		 * what the runner's lines could have stored (result.c): a
		 * row written any other way (the database is the service
		 * user's) is not compared
		 */
		if (!sample_ok(st, 1)) {
			int type = sqlite3_column_type(st, 1);
			char what[32];

			/* never the stored text itself: it may hold controls */
			if (type == SQLITE_FLOAT || type == SQLITE_INTEGER)
				snprintf(what, sizeof(what), "%g",
					 sqlite3_column_double(st, 1));
			else
				snprintf(what, sizeof(what), "%s",
					 type == SQLITE_TEXT ? "text" :
					 type == SQLITE_BLOB ? "a blob" : "NULL");
			error("run #%lld: a stored sample of %s %s is %s, not "
			      "a number in [0, %g] a guest can send: refused, "
			      "the run is not compared", run_id, workload,
			      metric, what, RESULT_VALUE_MAX);
			rc = -1;
			break;
		}
		ALLOC_GROW(boot, nr + 1, alloc);
		boot[nr++] = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (rc == DB_DONE && nr)
		end_boot(boot, nr, per_boot, out);
	free(boot);
	if (rc < 0) {
		unit_values_release(out);
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int run_value(struct db *db, long long run_id, const char *workload,
	      const char *variant, const char *metric, int per_boot,
	      double *value)
{
	struct unit_values u = UNIT_VALUES_INIT;
	size_t n;

	if (run_units(db, run_id, workload, variant, metric, per_boot,
		      &u) < 0)
		return -1;
	n = u.nr;
	if (n) {
		qsort(u.v, n, sizeof(*u.v), cmp_double);
		*value = n % 2 ? u.v[n / 2] : (u.v[n / 2 - 1] + u.v[n / 2]) / 2;
	}
	unit_values_release(&u);
	return n ? 1 : 0;
}

static int compare_one(struct db *db, const struct run_comparison *rc,
			const struct run_row *bi, const struct run_row *ni,
			struct metric_comparison *mc)
{
	struct compare_opts opts = COMPARE_OPTS_INIT;
	int per_boot = run_units_per_boot(rc->clock);
	struct unit_values b = UNIT_VALUES_INIT, n = UNIT_VALUES_INIT;
	int hz = bi->hz > ni->hz ? ni->hz : bi->hz;

	if (!hz)
		hz = bi->hz ? bi->hz : ni->hz;
	opts.resolution = metric_resolution(mc->workload, mc->metric, hz);
	{
		const struct metric_def *md = metric_find(mc->workload,
							  mc->metric);

		opts.lower_is_better = md ? md->lower_is_better : 1;
	}
	if (run_units(db, rc->base_id, mc->workload, mc->variant, mc->metric,
		      per_boot, &b) < 0)
		return -1;
	if (run_units(db, rc->new_id, mc->workload, mc->variant, mc->metric,
		      per_boot, &n) < 0) {
		unit_values_release(&b);
		return -1;
	}
	mc->base_boots = b.boots;
	mc->new_boots = n.boots;
	if (compare_samples(b.v, b.nr, n.v, n.nr, &opts, &mc->c) < 0)
		mc->c.verdict = VERDICT_INSUFFICIENT;
	if (per_boot && (b.boots < 2 || n.boots < 2)) {
		mc->c.verdict = VERDICT_INSUFFICIENT;
		mc->c.ambiguous = 1;
		snprintf(mc->c.reason, sizeof(mc->c.reason),
			 "wall-clock mode compares boots (7-10 %% apart): "
			 "%d vs %d boots, need at least 2 each",
			 b.boots, n.boots);
	}
	unit_values_release(&b);
	unit_values_release(&n);
	return 0;
}

/* a wall-clock run's load is a note above this (1-min load average) */
#define COMPARE_NOTE_LOAD 1.0

/* @r's facts; 0 when it has none (made before migration 22), -1 error */
static int run_facts(struct db *db, long long id, struct host_facts *f,
		     double *load_end, long long *beside)
{
	sqlite3_stmt *st = db_query(db, "SELECT host_facts, coalesce(load_end, "
				    "-1), (SELECT coalesce(max(guests_beside), "
				    "0) FROM boots WHERE run_id = r.id) FROM "
				    "runs r WHERE id = ?", "i", id);
	int rc, ret = -1;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		ret = sqlite3_column_type(st, 0) != SQLITE_NULL &&
		      host_facts_from_json(db_col_text(st, 0), f) == 0;
		*load_end = sqlite3_column_double(st, 1);
		*beside = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : ret;
}

/*
 * The hosts of two runs (hostfacts.h): a wall-clock comparison across CPU
 * model, microcode, SMT, governor, turbo or host kernel is refused with
 * the difference named; its load and the guests that ran beside its
 * boots are notes; an icount comparison across CPU models is a note.
 * Return: 0, or -1 after error() (refused, or a read failed).
 */
static int compare_hosts(struct db *db, const struct run_row *bi,
			 const struct run_row *ni, struct run_comparison *rc)
{
	struct host_facts fb, fn;
	struct strbuf diff = STRBUF_INIT, notes = STRBUF_INIT;
	double eb, en;
	long long gb, gn;
	int hb = run_facts(db, bi->id, &fb, &eb, &gb);
	int hn = run_facts(db, ni->id, &fn, &en, &gn);
	int wall = !strcmp(bi->clock, "wall"), ret = 0;

	if (hb < 0 || hn < 0)
		return -1;
	if (hb && hn && host_facts_differ(&fb, &fn, &diff)) {
		if (wall) {
			ret = error("run #%lld and run #%lld ran on different "
				    "hosts for the wall clock: %s; they are "
				    "not compared", bi->id, ni->id, diff.buf);
			goto out;
		}
		if (strcmp(fb.cpu, fn.cpu))
			strbuf_addf(&notes, "the runs' hosts have different "
				    "CPUs ('%s' vs '%s'): icount counts the "
				    "guest's instructions, the same on both, "
				    "but QEMU's code paths may differ; ",
				    fb.cpu, fn.cpu);
	}
	if (strcmp(bi->qemu_v ? bi->qemu_v : "", ni->qemu_v ? ni->qemu_v : ""))
		strbuf_addf(&notes, "QEMU %s vs %s; ", bi->qemu_v ? bi->qemu_v :
			    "?", ni->qemu_v ? ni->qemu_v : "?");
	if (wall) {
		const struct {
			const struct run_row *r;
			int has;
			const struct host_facts *f;
			double end;
			long long beside;
		} s[] = { { bi, hb, &fb, eb, gb }, { ni, hn, &fn, en, gn } };
		size_t i;

		for (i = 0; i < 2; i++) {
			if (!s[i].has)
				continue;
			if (s[i].f->load1 > COMPARE_NOTE_LOAD ||
			    s[i].end > COMPARE_NOTE_LOAD)
				strbuf_addf(&notes, "host load %.1f at the start "
					    "and %.1f at the end of run #%lld; ",
					    s[i].f->load1, s[i].end,
					    s[i].r->id);
			if (s[i].beside > 0)
				strbuf_addf(&notes, "%lld other guest(s) ran "
					    "beside a boot of run #%lld; ",
					    s[i].beside, s[i].r->id);
		}
	}
	if (notes.len) {
		strbuf_setlen(&notes, notes.len - 2);
		rc->notes = strbuf_detach(&notes, NULL);
	}
out:
	strbuf_release(&diff);
	strbuf_release(&notes);
	return ret;
}

int compare_runs(struct db *db, long long base_id, long long new_id,
		 struct run_comparison *rc)
{
	struct run_row bi, ni;
	struct strbuf bshape = STRBUF_INIT, nshape = STRBUF_INIT;
	sqlite3_stmt *st;
	int ret = -1, step;

	memset(rc, 0, sizeof(*rc));
	rc->base_id = base_id;
	rc->new_id = new_id;
	if (run_load(db, base_id, &bi) < 0)
		return -1;
	if (run_load(db, new_id, &ni) < 0) {
		run_row_release(&bi);
		return -1;
	}
	run_setup_shape(&bi, &bshape);
	run_setup_shape(&ni, &nshape);
	if (strcmp(bi.arch, ni.arch)) {
		error("run #%lld (%s guest) and run #%lld (%s guest) ran on "
		      "different architectures: they are never compared",
		      base_id, bi.arch, new_id, ni.arch);
		goto out;
	}
	if (strcmp(bi.clock, ni.clock) || strcmp(bi.accel, ni.accel)) {
		error("run #%lld (%s, %s) and run #%lld (%s, %s) were measured "
		      "in different modes: they are never compared", base_id,
		      bi.accel, bi.clock, new_id, ni.accel, ni.clock);
		goto out;
	}
	if (strcmp(bshape.buf, nshape.buf)) {
		error("run #%lld (%s) and run #%lld (%s) measured different "
		      "set-ups: they are not compared", base_id, bshape.buf,
		      new_id, nshape.buf);
		goto out;
	}
	if (compare_hosts(db, &bi, &ni, rc) < 0)
		goto out;
	rc->clock = xstrdup(bi.clock);
	rc->accel = xstrdup(bi.accel);
	st = db_query(db,
		"SELECT workload, variant, metric, unit FROM samples WHERE "
		"run_id IN (?, ?) GROUP BY workload, variant, metric, unit "
		"ORDER BY workload, variant, metric", "ii", base_id, new_id);
	if (!st)
		goto out;
	while ((step = db_step(db, st)) == DB_ROW) {
		struct metric_comparison *mc;

		/* names as result.c stores them; never printed (run_units()) */
		if (!result_names_ok(db_col_text(st, 0), db_col_text(st, 1),
				     db_col_text(st, 2), db_col_text(st, 3))) {
			error("run #%lld or #%lld: a stored sample names a "
			      "workload, variant, metric or unit (%zu, %zu, "
			      "%zu and %zu bytes) no guest can send: refused, "
			      "the runs are not compared", base_id, new_id,
			      strlen(db_col_text(st, 0)),
			      strlen(db_col_text(st, 1)),
			      strlen(db_col_text(st, 2)),
			      strlen(db_col_text(st, 3)));
			step = -1;
			break;
		}
		ALLOC_GROW(rc->m, rc->nr + 1, rc->alloc);
		mc = &rc->m[rc->nr++];
		memset(mc, 0, sizeof(*mc));
		mc->workload = xstrdup(db_col_text(st, 0));
		mc->variant = xstrdup(db_col_text(st, 1));
		mc->metric = xstrdup(db_col_text(st, 2));
		mc->unit = xstrdup(db_col_text(st, 3));
		if (compare_one(db, rc, &bi, &ni, mc) < 0) {
			step = -1;
			break;
		}
		rc->worse += mc->c.verdict == VERDICT_WORSE;
		rc->better += mc->c.verdict == VERDICT_BETTER;
	}
	sqlite3_finalize(st);
	if (step < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0) {		/* nothing half-done for the caller */
		run_comparison_release(rc);
		rc->base_id = base_id;
		rc->new_id = new_id;
	}
	strbuf_release(&bshape);
	strbuf_release(&nshape);
	run_row_release(&bi);
	run_row_release(&ni);
	return ret;
}

void run_comparison_release(struct run_comparison *rc)
{
	size_t i;

	for (i = 0; i < rc->nr; i++) {
		free(rc->m[i].workload);
		free(rc->m[i].variant);
		free(rc->m[i].metric);
		free(rc->m[i].unit);
	}
	free(rc->m);
	free(rc->clock);
	free(rc->accel);
	free(rc->notes);
	memset(rc, 0, sizeof(*rc));
}

static void fmt_side(struct strbuf *sb, const struct summary *s)
{
	struct strbuf tmp = STRBUF_INIT;

	/* a space of its own: a ns median has 10 digits and more */
	strbuf_addf(sb, " %4zu ", s->n);
	strbuf_addnum(sb, s->median, 8);
	strbuf_addnum(&tmp, s->mean, 0);
	strbuf_addstr(&tmp, "±");
	strbuf_addnum(&tmp, s->stddev, 0);
	strbuf_addf(sb, " %-15s", tmp.buf);
	strbuf_release(&tmp);
}

void compare_verdict(const struct run_comparison *rc, struct strbuf *out)
{
	if (rc->worse)
		strbuf_addf(out, "WORSE: %d metric(s) regressed", rc->worse);
	if (rc->worse && rc->better)
		strbuf_addstr(out, ", ");
	if (rc->better)
		strbuf_addf(out, "BETTER: %d metric(s) improved", rc->better);
	if (!rc->worse && !rc->better)
		strbuf_addstr(out, "no significant change");
}

void compare_format(struct db *db, const struct run_comparison *rc,
		    struct strbuf *out)
{
	if (compare_format_table(db, rc, out) < 0)
		return;
	strbuf_addf(out, "\nverdict: ");
	compare_verdict(rc, out);
	strbuf_addch(out, '\n');
}

int compare_format_table(struct db *db, const struct run_comparison *rc,
			 struct strbuf *out)
{
	struct run_row bi, ni;
	size_t i;

	if (run_load(db, rc->base_id, &bi) < 0)
		return -1;
	if (run_load(db, rc->new_id, &ni) < 0) {
		run_row_release(&bi);
		return -1;
	}
	strbuf_addf(out, "base: run #%lld %s (kernel %s, %d ok boot(s))\n",
		    rc->base_id, bi.label, bi.release, bi.ok_boots);
	strbuf_addf(out, "new:  run #%lld %s (kernel %s, %d ok boot(s))\n",
		    rc->new_id, ni.label, ni.release, ni.ok_boots);
	strbuf_addstr(out, "set-up: ");
	run_setup_shape(&bi, out);
	strbuf_addch(out, '\n');
	if (rc->notes)
		strbuf_addf(out, "note: %s\n", rc->notes);
	strbuf_addf(out, "mode: %s, clock %s (%s)\n\n", rc->accel, rc->clock,
		    !strcmp(rc->clock, "icount") ?
			    "deterministic: units are samples, the verdict "
			    "rests on the clock resolution" :
			    "wall clock: units are per-boot medians");
	strbuf_addf(out, "%-10s %-22s %-18s %-4s %4s %9s %-15s %4s %9s %-15s "
		    "%8s %-19s %7s  %s\n", "workload", "variant", "metric",
		    "unit", "n",
		    "base med", "mean±sd", "n", "new med", "mean±sd", "change",
		    "95% CI", "p", "verdict");
	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *m = &rc->m[i];
		const struct comparison *c = &m->c;

		strbuf_addf(out, "%-10s %-22s %-18s %-4s", m->workload,
			    m->variant[0] ? m->variant : "-", m->metric,
			    m->unit);
		fmt_side(out, &c->base);
		fmt_side(out, &c->new);
		if (isnan(c->change_pct))
			strbuf_addf(out, " %8s", "-");
		else
			strbuf_addf(out, " %+7.2f%%", c->change_pct);
		if (isnan(c->ci_lo_pct))
			strbuf_addf(out, " %-19s", "-");
		else {
			char ci[64];

			xsnprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]",
				  c->ci_lo_pct, c->ci_hi_pct);
			strbuf_addf(out, " %-19s", ci);
		}
		if (isnan(c->p_value))
			strbuf_addf(out, " %7s", "-");
		else
			strbuf_addf(out, " %7.4f", c->p_value);
		strbuf_addf(out, "  %s", verdict_name(c->verdict));
		if (c->verdict == VERDICT_INSUFFICIENT && c->reason[0])
			strbuf_addf(out, " (%s)", c->reason);
		else if (c->verdict == VERDICT_NO_CHANGE &&
			 !isnan(c->detectable_pct))
			strbuf_addf(out, " (could detect >= %.*f%%)",
				    c->detectable_pct < 0.1 ? 3 : 1,
				    c->detectable_pct);
		strbuf_addch(out, '\n');
	}
	run_row_release(&bi);
	run_row_release(&ni);
	return 0;
}
