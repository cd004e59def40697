// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bisect.c - `mmci bisect GOOD BAD --metric M`: the first commit of
 * GOOD..BAD that moved a metric.
 *
 * libgit2 walks the range (first parents, oldest first). GOOD and BAD
 * are built, booted in interleaved rounds and compared; when they do not
 * differ significantly there is nothing to bisect. Otherwise each step
 * builds the middle commit, boots it as many times, and compares it with
 * both ends (adaptive repeats while that is ambiguous): like GOOD -> the
 * change is later, like BAD -> it is here or earlier. A step that differs
 * from both ends (the change came in several steps), moves the other way,
 * or stays ambiguous after its budget is decided by the nearer median and
 * makes the result "not clean", with the reason.
 *
 * The ends are measured once, at the start: in wall-clock mode a slow
 * drift of the host over the bisection shows up as noise, which the
 * interval of each step (against boots of the ends) absorbs.
 */
#include <getopt.h>
#include <math.h>

#include <jansson.h>

#include "attribution.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "interrupt.h"
#include "job.h"
#include "measure.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "workload.h"

static const char bisect_usage[] =
	"usage: mmci bisect GOOD BAD --metric M [options]\n"
	"\n"
	"Find the first commit of GOOD..BAD (first parents) that moved metric\n"
	"M, building and booting each step; say when the result is not clean.\n"
	"\n"
	"  --metric M         metric name, as `mmci workloads` lists it\n"
	"  --workload W       its workload, when several have M (the first)\n"
	"  --variant V        the variant to follow (the one GOOD..BAD moved\n"
	"                     most)\n"
	MEASURE_USAGE
	"\n"
	"Exit status: 0 found and clean, 3 found but not clean, 2 GOOD and BAD\n"
	"do not differ, 1 error.\n";

struct bisect_step {
	size_t pos;		/* in the range: 0 is GOOD, n is BAD */
	int k;			/* kernel index in the measure */
	double median;
	double vs_good, vs_bad;	/* change %, NAN when not compared */
	enum verdict v_good, v_bad;
	const char *call;	/* "good", "bad" */
	char *note;		/* why it is not clean, or NULL */
};

struct bisect {
	const char *workload, *metric;
	char *variant;
	enum verdict dir;	/* BAD vs GOOD: WORSE or BETTER */
	git_oid *commits;	/* commits[0] = GOOD .. commits[n] = BAD */
	size_t n;
	struct bisect_step *steps;
	size_t nr_steps, alloc_steps;
	int unclean;
};

static int collect_range(git_repository *repo, const git_oid *good,
			 const git_oid *bad, struct bisect *b)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t alloc = 0;
	int rc;

	if (!git_oid_cmp(good, bad))
		return error("GOOD and BAD are the same commit");
	if (git_graph_descendant_of(repo, bad, good) != 1)
		return error("BAD is not a descendant of GOOD");
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL |
				      GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_simplify_first_parent(walk) < 0 ||
	    git_revwalk_push(walk, bad) < 0 || git_revwalk_hide(walk, good) < 0) {
		git_revwalk_free(walk);
		return error("cannot walk GOOD..BAD: %s", git_errmsg());
	}
	ALLOC_GROW(b->commits, 1, alloc);
	b->commits[0] = *good;
	b->n = 0;
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		ALLOC_GROW(b->commits, b->n + 2, alloc);
		b->commits[++b->n] = oid;
	}
	git_revwalk_free(walk);
	if (rc != GIT_ITEROVER)
		return error("cannot walk GOOD..BAD: %s", git_errmsg());
	if (git_oid_cmp(&b->commits[b->n], bad))
		return error("BAD is not on the first-parent line from GOOD");
	return 0;
}

static const struct metric_comparison *
focus(const struct bisect *b, const struct run_comparison *rc)
{
	return run_comparison_find(rc, b->workload, b->variant, b->metric);
}

/* GOOD vs BAD: which variant, which direction; 0 when there is a change */
static int check_ends(struct bisect *b, const struct run_comparison *rc)
{
	const struct metric_comparison *best = NULL;
	size_t i;

	for (i = 0; i < rc->nr; i++) {
		const struct metric_comparison *mc = &rc->m[i];

		if (strcmp(mc->workload, b->workload) ||
		    strcmp(mc->metric, b->metric))
			continue;
		if (b->variant && strcmp(mc->variant, b->variant))
			continue;
		if (mc->c.verdict != VERDICT_WORSE &&
		    mc->c.verdict != VERDICT_BETTER)
			continue;
		if (!best || fabs(mc->c.change_pct) > fabs(best->c.change_pct))
			best = mc;
	}
	if (!best)
		return -1;
	if (!b->variant)
		b->variant = xstrdup(best->variant);
	b->dir = best->c.verdict;
	return 0;
}

static void commit_line(git_repository *repo, const git_oid *id, char *buf,
			size_t len)
{
	git_commit *c = NULL;
	char hex[13];

	git_oid_tostr(hex, sizeof(hex), id);
	if (git_commit_lookup(&c, repo, id) < 0) {
		xsnprintf(buf, len, "%s", hex);
		return;
	}
	xsnprintf(buf, len, "%s %.60s", hex, git_commit_summary(c));
	git_commit_free(c);
}

static void step_compare(struct measure *m, struct bisect *b, int good,
			 int bad, struct bisect_step *s)
{
	struct run_comparison rg, rb;
	const struct metric_comparison *g = NULL, *x = NULL;

	s->vs_good = s->vs_bad = s->median = NAN;
	s->v_good = s->v_bad = VERDICT_INSUFFICIENT;
	if (!measure_compare(m, (struct measure_pair){ good, s->k }, &rg))
		g = focus(b, &rg);
	if (!measure_compare(m, (struct measure_pair){ s->k, bad }, &rb))
		x = focus(b, &rb);
	if (g) {
		s->vs_good = g->c.change_pct;
		s->v_good = g->c.verdict;
		s->median = g->c.new.median;
	}
	if (x)
		s->v_bad = x->c.verdict;
	if (x)
		s->vs_bad = x->c.change_pct;
	/* the distance to each end, to decide what the tests cannot */
	if (g && x && !isnan(g->c.base.median) && !isnan(x->c.new.median)) {
		double dg = fabs(g->c.new.median - g->c.base.median);
		double db = fabs(x->c.new.median - g->c.new.median);

		if (s->v_good == b->dir && s->v_bad == VERDICT_NO_CHANGE)
			s->call = "bad";
		else if (s->v_good == VERDICT_NO_CHANGE && s->v_bad == b->dir)
			s->call = "good";
		else {
			s->call = dg > db ? "bad" : "good";
			if (s->v_good == b->dir && s->v_bad == b->dir)
				s->note = xstrdup("differs from both ends: the "
						  "change came in several "
						  "steps");
			else if ((s->v_good != VERDICT_NO_CHANGE &&
				  s->v_good != b->dir &&
				  s->v_good != VERDICT_INSUFFICIENT) ||
				 (s->v_bad != VERDICT_NO_CHANGE &&
				  s->v_bad != b->dir &&
				  s->v_bad != VERDICT_INSUFFICIENT))
				s->note = xstrdup("moved the metric the other "
						  "way");
			else
				s->note = xstrfmt("like neither end after its "
						  "budget (noise): called %s by "
						  "the nearer median",
						  s->call);
		}
	} else {
		s->call = "bad";
		s->note = xstrdup("no comparable boots: called bad");
	}
	if (s->note)
		b->unclean = 1;
	run_comparison_release(&rg);
	run_comparison_release(&rb);
}

static char *bisect_json(const struct bisect *b, const struct measure *m,
			 int kg, int kb, size_t first_bad)
{
	json_t *steps = json_array(), *j;
	char hex[GIT_OID_HEXSZ + 1], *s;
	long long bad_run;
	size_t i;

	for (i = 0; i < b->nr_steps; i++) {
		const struct bisect_step *st = &b->steps[i];

		git_oid_tostr(hex, sizeof(hex), &b->commits[st->pos]);
		json_array_append_new(steps, json_pack(
			"{s:s, s:I, s:s, s:s?}", "commit", hex, "run",
			(json_int_t)m->k[st->k].run_id, "call", st->call,
			"note", st->note));
	}
	/* the runs a report compares: GOOD and the first bad commit's */
	bad_run = m->k[kb].run_id;
	for (i = 0; i < b->nr_steps; i++)
		if (b->steps[i].pos == first_bad)
			bad_run = m->k[b->steps[i].k].run_id;
	git_oid_tostr(hex, sizeof(hex), &b->commits[first_bad]);
	j = json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:o}", "first_bad",
		      hex, "workload", b->workload, "variant", b->variant,
		      "metric", b->metric, "clean", !b->unclean, "base_run",
		      (json_int_t)m->k[kg].run_id, "new_run",
		      (json_int_t)bad_run, "steps", steps);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "workload", required_argument, NULL, 'W' },
		{ "variant", required_argument, NULL, 'V' },
		{ "job", required_argument, NULL, 'J' },
		MEASURE_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *variant = NULL;
	struct measure_args ma;
	struct bisect b = { 0 };
	struct mmci_config cfg;
	struct db db;
	struct measure m = { 0 };
	struct run_comparison ends = { 0 };
	struct strbuf out = STRBUF_INIT;
	git_repository *repo = NULL;
	git_oid good, bad;
	long long job = 0, want_job = 0;
	char *ref = NULL, *result = NULL, line[96];
	int c, ret = 1, kg, kb;
	size_t lo, hi, i;
	double t0 = now_s();

	measure_args_init(&ma);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': b.metric = optarg; break;
		case 'W': b.workload = optarg; break;
		case 'V': variant = optarg; break;
		case 'J': want_job = parse_count("--job", optarg); break;
		case 'h':
			fputs(bisect_usage, stdout);
			return 0;
		default:
			if (measure_args_parse(&ma, c, optarg))
				break;
			fputs(bisect_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 2 || !b.metric) {
		fputs(bisect_usage, stderr);
		return 129;
	}
	if (!b.workload) {
		const struct workload_def *w;

		/* by exact name: a wildcard (vmalloc's tests) needs --workload */
		for (w = workload_defs; w->name && !b.workload; w++) {
			const struct metric_def *md = metric_find(w->name,
								  b.metric);

			if (md && !strchr(md->name, '*'))
				b.workload = w->name;
		}
	}
	if (!b.workload || !metric_find(b.workload, b.metric)) {
		error("unknown metric '%s'%s%s: see mmci workloads", b.metric,
		      b.workload ? " of workload " : "",
		      b.workload ? b.workload : "");
		return 129;
	}
	if (variant)
		b.variant = xstrdup(variant);
	ma.o.workloads = b.workload;
	measure_args_finish(&ma);

	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the runs, boots, job on SIGTERM */
	job = want_job;
	if (tree_open(cfg.tree_dir, &repo) < 0 ||
	    tree_resolve(repo, argv[optind], &good) < 0 ||
	    tree_resolve(repo, argv[optind + 1], &bad) < 0 ||
	    collect_range(repo, &good, &bad, &b) < 0)
		goto fail;
	ref = xstrfmt("%s..%s", argv[optind], argv[optind + 1]);
	job = job_start(&db, want_job, "bisect", 0, ref, NULL);
	if (job < 0)
		goto out;
	progress("job #%lld: bisect %s for %s %s, %zu commit(s)", job, ref,
		 b.workload, b.metric, b.n);
	ma.o.job_id = job;
	measure_init(&m, &cfg, &db, repo, ma.fragment, &ma.o);
	commit_line(repo, &good, line, sizeof(line));
	kg = measure_add(&m, &good, 0, 0, "good");
	kb = kg < 0 ? -1 : measure_add(&m, &bad, 0, 0, "bad");
	if (kg < 0 || kb < 0)
		goto fail;
	measure_args_resolve(&ma, &m);
	measure_rounds(&m, ma.boots);
	measure_adapt(&m, &(struct measure_pair){ kg, kb }, 1, b.workload,
		      b.metric, ma.max_boots);
	if (measure_compare(&m, (struct measure_pair){ kg, kb }, &ends) < 0)
		goto fail;
	if (check_ends(&b, &ends) < 0) {
		const struct metric_comparison *mc = b.variant ?
			focus(&b, &ends) : NULL;

		printf("GOOD and BAD do not differ significantly in %s %s: "
		       "nothing to bisect", b.workload, b.metric);
		if (mc)
			printf(" (%s%s%s)", verdict_name(mc->c.verdict),
			       mc->c.reason[0] ? ": " : "", mc->c.reason);
		putchar('\n');
		compare_format(&db, &ends, &out);
		fputs(out.buf, stdout);
		job_end(&db, job, 1, NULL, "{\"first_bad\":null}");
		ret = 2;
		goto out;
	}
	{
		const struct metric_comparison *mc = focus(&b, &ends);

		printf("GOOD..BAD: %s %s %s %s %+.2f%% (%s); bisecting %zu "
		       "commit(s)\n", b.workload, b.variant, b.metric,
		       verdict_name(b.dir), mc->c.change_pct, mc->c.reason,
		       b.n);
	}
	lo = 0;
	hi = b.n;
	while (hi - lo > 1) {
		struct bisect_step *s;
		size_t mid = lo + (hi - lo) / 2;
		char label[48], hex[13];
		int k;

		if (interrupted())
			goto fail;
		git_oid_tostr(hex, sizeof(hex), &b.commits[mid]);
		xsnprintf(label, sizeof(label), "step %zu %s", b.nr_steps + 1,
			  hex);
		k = measure_add(&m, &b.commits[mid], 0, 0, label);
		if (k < 0) {
			/* a commit that does not build cannot be called */
			warning("%s does not build: bisect cannot step over "
				"it here", hex);
			goto fail;
		}
		for (i = 0; i < (size_t)ma.boots; i++)
			measure_round(&m, (size_t[]){ k }, 1);
		{
			struct measure_pair p[2] = { { kg, k }, { k, kb } };

			measure_adapt(&m, p, 2, b.workload, b.metric,
				      ma.max_boots);
		}
		ALLOC_GROW(b.steps, b.nr_steps + 1, b.alloc_steps);
		s = &b.steps[b.nr_steps++];
		memset(s, 0, sizeof(*s));
		s->pos = mid;
		s->k = k;
		step_compare(&m, &b, kg, kb, s);
		commit_line(repo, &b.commits[mid], line, sizeof(line));
		progress("%s: %s (vs GOOD %+.2f%% %s, vs BAD %+.2f%% %s)%s%s",
			 line, s->call, s->vs_good, verdict_name(s->v_good),
			 s->vs_bad, verdict_name(s->v_bad), s->note ? ": " : "",
			 s->note ? s->note : "");
		if (!strcmp(s->call, "bad"))
			hi = mid;
		else
			lo = mid;
	}
	measure_finish(&m);

	strbuf_addf(&out, "\n%-8s %-74s %10s %-22s %-22s\n", "call",
		    "commit", "median", "vs GOOD", "vs BAD");
	for (i = 0; i < b.nr_steps; i++) {
		const struct bisect_step *s = &b.steps[i];
		char vg[40], vb[40];

		commit_line(repo, &b.commits[s->pos], line, sizeof(line));
		xsnprintf(vg, sizeof(vg), "%+.2f%% %s", s->vs_good,
			  s->v_good == VERDICT_NO_CHANGE ? "same" :
			  verdict_name(s->v_good));
		xsnprintf(vb, sizeof(vb), "%+.2f%% %s", s->vs_bad,
			  s->v_bad == VERDICT_NO_CHANGE ? "same" :
			  verdict_name(s->v_bad));
		strbuf_addf(&out, "%-8s %-74s", s->call, line);
		strbuf_addnum(&out, s->median, 10);
		strbuf_addf(&out, " %-22s %-22s%s%s\n", vg, vb,
			    s->note ? " " : "", s->note ? s->note : "");
	}
	commit_line(repo, &b.commits[hi], line, sizeof(line));
	strbuf_addf(&out, "\nfirst commit that moved %s %s %s: %s\n",
		    b.workload, b.variant, b.metric, line);
	if (b.unclean)
		strbuf_addstr(&out, "result: NOT CLEAN, see the notes above\n");
	else
		strbuf_addstr(&out, "result: clean (every step was like one "
			      "end and unlike the other)\n");
	fputs(out.buf, stdout);
	printf("took %.0f s, %zu step(s); job #%lld\n", now_s() - t0,
	       b.nr_steps, job);
	result = bisect_json(&b, &m, kg, kb, hi);
	job_end(&db, job, 1, NULL, result);
	ret = b.unclean ? 3 : 0;
	goto out;
fail:
	measure_finish(&m);
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (job > 0 && !(want_job && interrupted()))
		job_end(&db, job, 0, interrupt_or_last_error(), NULL);
out:
	for (i = 0; i < b.nr_steps; i++)
		free(b.steps[i].note);
	free(b.steps);
	free(b.commits);
	free(b.variant);
	free(ref);
	free(result);
	run_comparison_release(&ends);
	strbuf_release(&out);
	measure_release(&m);
	git_repository_free(repo);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
