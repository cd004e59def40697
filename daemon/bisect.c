// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.c - `mmci bisect`: the stage (bisect.h). One phase per function:
 * the range, the ends, the steps, the table.
 */
#include <math.h>

#include <jansson.h>

#include "attribution.h"
#include "bisect.h"
#include "interrupt.h"
#include "job.h"
#include "notice.h"
#include "profile.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"
#include "workload.h"

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
	git_repository *repo;
	struct measure m;
	int kg, kb;		/* kernel indexes of GOOD and BAD */
	size_t first_bad;	/* in commits[] */
	long long job;
	enum verdict dir;	/* BAD vs GOOD: WORSE or BETTER */
	git_oid *commits;	/* commits[0] = GOOD .. commits[n] = BAD */
	git_oid good;		/* GOOD, also when commits[0] is not it */
	int rebased;		/* commits[0] is merge-base(GOOD, BAD) */
	size_t n;
	struct bisect_step *steps;
	size_t nr_steps, alloc_steps;
	int unclean;
};

/*
 * The commits to bisect, first parents, oldest first: GOOD..BAD, or, when
 * BAD does not descend from GOOD (mm-new was rebased), merge-base..BAD
 * with b->rebased set.
 */
static int collect_range(git_repository *repo, const git_oid *good,
			 const git_oid *bad, struct bisect *b)
{
	git_revwalk *walk = NULL;
	git_oid oid, start = *good;
	size_t alloc = 0;
	int rc;

	b->good = *good;
	if (!git_oid_cmp(good, bad))
		return error("GOOD and BAD are the same commit");
	if (git_graph_descendant_of(repo, bad, good) != 1) {
		if (git_merge_base(&start, repo, good, bad) < 0)
			return error("GOOD and BAD have no common history: "
				     "nothing to bisect");
		if (!git_oid_cmp(&start, bad))
			return error("BAD is not a descendant of GOOD: it is "
				     "an ancestor of it");
		b->rebased = 1;
	}
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL |
				      GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_simplify_first_parent(walk) < 0 ||
	    git_revwalk_push(walk, bad) < 0 ||
	    git_revwalk_hide(walk, &start) < 0) {
		git_revwalk_free(walk);
		return error("cannot walk GOOD..BAD: %s", git_errmsg());
	}
	ALLOC_GROW(b->commits, 1, alloc);
	b->commits[0] = start;
	b->n = 0;
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		ALLOC_GROW(b->commits, b->n + 2, alloc);
		b->commits[++b->n] = oid;
	}
	git_revwalk_free(walk);
	if (rc != GIT_ITEROVER)
		return error("cannot walk GOOD..BAD: %s", git_errmsg());
	if (!b->n || git_oid_cmp(&b->commits[b->n], bad))
		return error("BAD is not on the first-parent line from %s",
			     b->rebased ? "the merge-base of GOOD and BAD" :
			     "GOOD");
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

static char *bisect_json(const struct bisect *b,
			 const struct bisect_culprit *culprit)
{
	const struct measure *m = &b->m;
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
	/* the runs a report compares: the good end and the first bad one */
	bad_run = m->k[b->kb].run_id;
	for (i = 0; i < b->nr_steps; i++)
		if (b->steps[i].pos == b->first_bad)
			bad_run = m->k[b->steps[i].k].run_id;
	git_oid_tostr(hex, sizeof(hex), &b->commits[b->first_bad]);
	j = json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:o}", "first_bad",
		      hex, "workload", b->workload, "variant", b->variant,
		      "metric", b->metric, "clean", !b->unclean, "base_run",
		      (json_int_t)m->k[b->kg].run_id, "new_run",
		      (json_int_t)bad_run, "steps", steps);
	if (b->rebased) {
		git_oid_tostr(hex, sizeof(hex), &b->commits[0]);
		json_object_set_new(j, "merge_base", json_string(hex));
	}
	if (culprit->how)
		json_object_set_new(j, "patch", json_pack(
			"{s:I, s:I, s:i, s:i, s:s, s:s}", "patch_id",
			(json_int_t)culprit->patch_id, "series_id",
			(json_int_t)culprit->series_id, "idx", culprit->idx,
			"total", culprit->total, "message_id",
			culprit->message_id, "found_by", culprit->how));
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

const char *bisect_workload(const char *workload, const char *metric)
{
	const struct workload_def *w;

	/* by exact name: a wildcard (vmalloc's tests) needs --workload */
	for (w = workload_defs; w->name && !workload; w++) {
		const struct metric_def *md = metric_find(w->name, metric);

		if (md && !strchr(md->name, '*'))
			workload = w->name;
	}
	if (!workload || !metric_find(workload, metric)) {
		error("unknown metric '%s'%s%s: see mmci workloads", metric,
		      workload ? " of workload " : "", workload ? workload : "");
		return NULL;
	}
	return workload;
}

/*
 * GOOD and BAD, measured until their comparison is decided. 0 when they
 * differ (b->variant and b->dir set), BISECT_NO_CHANGE when not (said
 * on stdout, the job ended), -1 on an error.
 */
static int measure_ends(struct bisect *b, struct measure_args *ma,
			const git_oid *good, const git_oid *bad)
{
	struct run_comparison ends = { 0 };
	const struct metric_comparison *mc;
	int ret = -1;

	b->kg = measure_add(&b->m, good, 0, 0, "good");
	b->kb = b->kg < 0 ? -1 : measure_add(&b->m, bad, 0, 0, "bad");
	if (b->kg < 0 || b->kb < 0)
		return -1;
	measure_args_resolve(ma, &b->m);
	/* icount: the ends a nightly measured are not booted again */
	if (measure_reuse_said(&b->m, b->kg, ma->boots) < 0 ||
	    measure_reuse_said(&b->m, b->kb, ma->boots) < 0)
		return -1;
	measure_rounds(&b->m, ma->boots);
	measure_adapt(&b->m, &(struct measure_pair){ b->kg, b->kb }, 1,
		      b->workload, b->metric, ma->max_boots);
	if (measure_compare(&b->m, (struct measure_pair){ b->kg, b->kb },
			    &ends) < 0)
		goto out;
	if (check_ends(b, &ends) < 0) {
		struct strbuf out = STRBUF_INIT;

		mc = b->variant ? focus(b, &ends) : NULL;
		printf("GOOD and BAD do not differ significantly in %s %s: "
		       "nothing to bisect", b->workload, b->metric);
		if (mc)
			printf(" (%s%s%s)", verdict_name(mc->c.verdict),
			       mc->c.reason[0] ? ": " : "", mc->c.reason);
		putchar('\n');
		compare_format(b->m.db, &ends, &out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
		measure_finish(&b->m);	/* no run is left 'running' */
		ret = job_end(b->m.db, b->job, 1, NULL,
			      "{\"first_bad\":null}") < 0 ? BISECT_ERROR :
			      BISECT_NO_CHANGE;
		goto out;
	}
	mc = focus(b, &ends);
	printf("GOOD..BAD: %s %s %s %s %+.2f%% (%s); bisecting %zu "
	       "commit(s)\n", b->workload, b->variant, b->metric,
	       verdict_name(b->dir), mc->c.change_pct, mc->c.reason, b->n);
	ret = 0;
out:
	run_comparison_release(&ends);
	return ret;
}

/* the newest patch where @cond holds for @key; 1, 0 or -1 */
static int find_one(struct db *db, struct bisect_culprit *out,
		    const char *how, const char *sel, const char *cond,
		    const char *key)
{
	char *sql = xstrfmt("%s%s ORDER BY p.id DESC LIMIT 1", sel, cond);
	sqlite3_stmt *st = db_query(db, sql, "t", key);
	int rc;

	free(sql);
	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW) {
		out->patch_id = sqlite3_column_int64(st, 0);
		out->series_id = sqlite3_column_int64(st, 1);
		out->idx = sqlite3_column_int(st, 2);
		out->total = sqlite3_column_int(st, 3);
		out->message_id = xstrdup(db_col_text(st, 4));
		out->title = xstrdup(db_col_text(st, 5));
		out->how = how;
	}
	sqlite3_finalize(st);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
}

/*
 * BAD was rebased: GOOD is not its ancestor, so the range starts at their
 * merge-base, which must first be like GOOD. When it already moved as BAD
 * did, the change came with the new upstream base, not with a patch of
 * the branch: BISECT_UPSTREAM (said, job ended). 0: b->kg is now the
 * merge-base's kernel, the good end of the steps. -1 on an error.
 */
static int measure_merge_base(struct bisect *b, struct measure_args *ma)
{
	struct run_comparison rc = { 0 };
	const struct metric_comparison *mc;
	char line[96], *result, hex[GIT_OID_HEXSZ + 1];
	int k, i, ret = -1;

	commit_line(b->repo, &b->commits[0], line, sizeof(line));
	progress("BAD does not descend from GOOD (rebased): measuring their "
		 "merge-base %s", line);
	k = measure_add(&b->m, &b->commits[0], 0, 0, "merge-base");
	if (k < 0 || measure_reuse_said(&b->m, k, ma->boots) < 0)
		return -1;
	for (i = 0; i < ma->boots; i++)
		measure_round(&b->m, (size_t[]){ k }, 1);
	measure_adapt(&b->m, &(struct measure_pair){ b->kg, k }, 1,
		      b->workload, b->metric, ma->max_boots);
	if (measure_compare(&b->m, (struct measure_pair){ b->kg, k }, &rc) < 0)
		return -1;
	mc = focus(b, &rc);
	if (mc && mc->c.verdict == b->dir) {
		printf("the merge-base %s already moved %s %s %s %+.2f%% "
		       "against GOOD (%s): the change came with the new "
		       "upstream base, not with a patch of the branch\n",
		       line, b->workload, b->variant, b->metric,
		       mc->c.change_pct, verdict_name(mc->c.verdict));
		git_oid_tostr(hex, sizeof(hex), &b->commits[0]);
		result = xstrfmt("{\"first_bad\":null,\"upstream\":\"%s\","
				 "\"base_run\":%lld,\"new_run\":%lld}", hex,
				 b->m.k[b->kg].run_id, b->m.k[k].run_id);
		measure_finish(&b->m);
		ret = job_end(b->m.db, b->job, 1, NULL, result) < 0 ?
		      BISECT_ERROR : BISECT_UPSTREAM;
		free(result);
		goto out;
	}
	printf("BAD was rebased: bisecting from the merge-base %s (against "
	       "GOOD: %s%s%s), %zu commit(s)\n", line,
	       mc ? verdict_name(mc->c.verdict) : "not compared",
	       mc && mc->c.reason[0] ? ", " : "", mc ? mc->c.reason : "",
	       b->n);
	if (!mc || mc->c.verdict != VERDICT_NO_CHANGE)
		b->unclean = 1;	/* noted in the table's result line */
	b->kg = k;
	ret = 0;
out:
	run_comparison_release(&rc);
	return ret;
}

/*
 * The culprit on the list: by the Link: trailers of its message (akpm's
 * commits carry one), by git's patch-id (the same across rebases), by an
 * mm-commits notice of its title, or by its title. 1 found, 0 not, -1 on
 * an error.
 */
int bisect_find_patch(struct db *db, git_repository *repo,
		      const git_oid *commit, struct bisect_culprit *out)
{
	static const char sel[] =
		"SELECT p.id, p.series_id, p.idx, s.total, "
		"coalesce(p.message_id, ''), p.title FROM patches p JOIN "
		"series s ON s.id = p.series_id WHERE ";
	git_commit *c = NULL;
	const char *msg, *l;
	char pid[GIT_OID_HEXSZ + 1];
	int found = 0;

	memset(out, 0, sizeof(*out));
	if (git_commit_lookup(&c, repo, commit) < 0)
		return error("no commit %s: %s", git_oid_tostr_s(commit),
			     git_errmsg());
	msg = git_commit_message(c);
	for (l = msg; l && *l && !found; l = strchr(l, '\n')) {
		const char *u;
		char *id;
		size_t len = 0;

		l += *l == '\n';
		if (strncmp(l, "Link:", 5))
			continue;
		u = l + 5 + strspn(l + 5, " \t");
		while (u[len] && !strchr(" \t\n>", u[len]))
			len++;
		id = notice_lore_msgid(u, len);
		if (id)
			found = find_one(db, out, "Link:", sel,
					 "p.message_id = ?", id);
		free(id);
	}
	if (!found && !tree_patch_id_of_commit(repo, commit, pid))
		found = find_one(db, out, "patch-id", sel, "p.patch_id = ?",
				 pid);
	if (!found)
		found = find_one(db, out, "mm-commits notice", sel,
				 "p.id = (SELECT patch_id FROM notices WHERE "
				 "title = ? AND patch_id IS NOT NULL ORDER BY "
				 "id DESC LIMIT 1)", git_commit_summary(c));
	if (!found)
		found = find_one(db, out, "title", sel, "p.title = ?",
				 git_commit_summary(c));
	git_commit_free(c);
	return found;
}

void bisect_culprit_release(struct bisect_culprit *c)
{
	free(c->message_id);
	free(c->title);
	memset(c, 0, sizeof(*c));
}

/* one step: build, boot and call the middle of (lo, hi) */
static int bisect_step(struct bisect *b, const struct measure_args *ma,
		       size_t mid)
{
	struct bisect_step *s;
	struct measure_pair p[2];
	char label[48], hex[13], line[96];
	int k, i;

	git_oid_tostr(hex, sizeof(hex), &b->commits[mid]);
	xsnprintf(label, sizeof(label), "step %zu %s", b->nr_steps + 1, hex);
	k = measure_add(&b->m, &b->commits[mid], 0, 0, label);
	if (k < 0)
		/* a commit that does not build cannot be called */
		return error("%s does not build: bisect cannot step over it "
			     "here", hex);
	if (measure_reuse_said(&b->m, k, ma->boots) < 0)
		return -1;
	for (i = 0; i < ma->boots; i++)
		measure_round(&b->m, (size_t[]){ k }, 1);
	p[0] = (struct measure_pair){ b->kg, k };
	p[1] = (struct measure_pair){ k, b->kb };
	measure_adapt(&b->m, p, 2, b->workload, b->metric, ma->max_boots);
	ALLOC_GROW(b->steps, b->nr_steps + 1, b->alloc_steps);
	s = &b->steps[b->nr_steps++];
	memset(s, 0, sizeof(*s));
	s->pos = mid;
	s->k = k;
	step_compare(&b->m, b, b->kg, b->kb, s);
	commit_line(b->repo, &b->commits[mid], line, sizeof(line));
	progress("%s: %s (vs GOOD %+.2f%% %s, vs BAD %+.2f%% %s)%s%s", line,
		 s->call, s->vs_good, verdict_name(s->v_good), s->vs_bad,
		 verdict_name(s->v_bad), s->note ? ": " : "",
		 s->note ? s->note : "");
	return 0;
}

/* halve the range until one commit is left: b->first_bad */
static int narrow(struct bisect *b, const struct measure_args *ma)
{
	size_t lo = 0, hi = b->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (interrupted() || bisect_step(b, ma, mid) < 0)
			return -1;
		if (!strcmp(b->steps[b->nr_steps - 1].call, "bad"))
			hi = mid;
		else
			lo = mid;
	}
	b->first_bad = hi;
	return 0;
}

static void print_steps(const struct bisect *b)
{
	struct strbuf out = STRBUF_INIT;
	char line[96];
	size_t i;

	strbuf_addf(&out, "\n%-8s %-74s %10s %-22s %-22s\n", "call",
		    "commit", "median", "vs GOOD", "vs BAD");
	for (i = 0; i < b->nr_steps; i++) {
		const struct bisect_step *s = &b->steps[i];
		char vg[40], vb[40];

		commit_line(b->repo, &b->commits[s->pos], line, sizeof(line));
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
	commit_line(b->repo, &b->commits[b->first_bad], line, sizeof(line));
	strbuf_addf(&out, "\nfirst commit that moved %s %s %s: %s\n",
		    b->workload, b->variant, b->metric, line);
	if (b->unclean)
		strbuf_addstr(&out, "result: NOT CLEAN, see the notes above\n");
	else
		strbuf_addstr(&out, "result: clean (every step was like one "
			      "end and unlike the other)\n");
	fputs(out.buf, stdout);
	strbuf_release(&out);
}

static void bisect_release(struct bisect *b)
{
	size_t i;

	for (i = 0; i < b->nr_steps; i++)
		free(b->steps[i].note);
	free(b->steps);
	free(b->commits);
	free(b->variant);
	measure_release(&b->m);
	git_repository_free(b->repo);
}

/*
 * The named commit's profile (profile.h): the two runs its report
 * compares, the good end and the first bad commit, booted with the
 * counting plugin, and the functions that moved printed. A profile
 * explains the result; it never changes it.
 */
static void profile_culprit(const struct mmci_config *cfg, struct bisect *b)
{
	const struct measure *m = &b->m;
	struct run_comparison rc = { 0 };
	struct strbuf out = STRBUF_INIT;
	long long bad_run = m->k[b->kb].run_id;
	size_t i;

	if (!config_number("MMCI_PROFILE"))
		return;
	for (i = 0; i < b->nr_steps; i++)
		if (b->steps[i].pos == b->first_bad)
			bad_run = m->k[b->steps[i].k].run_id;
	if (compare_runs(m->db, m->k[b->kg].run_id, bad_run, &rc) < 0) {
		warning("no profile of the first bad commit: %s",
			last_error());
		return;
	}
	profile_runs_for(cfg, m->db, &rc);
	if (profile_explain(m->db, &rc, "first bad", PROFILE_TEXT_LINES,
			    &out) > 0)
		printf("where the instructions went (run #%lld against run "
		       "#%lld):\n%s", bad_run, m->k[b->kg].run_id, out.buf);
	strbuf_release(&out);
	run_comparison_release(&rc);
}

enum bisect_result bisect_run(const struct mmci_config *cfg, struct db *db,
			      struct measure_args *ma,
			      const struct bisect_request *req)
{
	struct bisect b = { 0 };
	struct bisect_culprit culprit = { 0 };
	git_oid good, bad;
	char *ref = NULL, *result;
	double t0 = now_s();
	int ret = BISECT_ERROR, rc;

	b.workload = req->workload;
	b.metric = req->metric;
	b.variant = req->variant ? xstrdup(req->variant) : NULL;
	b.job = req->job;
	if (tree_open(cfg->tree_dir, &b.repo) < 0 ||
	    tree_resolve(b.repo, req->good, &good) < 0 ||
	    tree_resolve(b.repo, req->bad, &bad) < 0 ||
	    collect_range(b.repo, &good, &bad, &b) < 0)
		goto fail;
	ref = xstrfmt("%s..%s", req->good, req->bad);
	b.job = job_start(db, req->job, "bisect", 0, ref, NULL);
	if (b.job < 0)
		goto out;
	progress("job #%lld: bisect %s for %s %s, %zu commit(s)", b.job, ref,
		 b.workload, b.metric, b.n);
	ma->o.job_id = b.job;
	measure_init(&b.m, cfg, db, b.repo, ma->fragment, &ma->o);
	rc = measure_ends(&b, ma, &good, &bad);
	if (!rc && b.rebased)
		rc = measure_merge_base(&b, ma);
	if (rc == BISECT_NO_CHANGE || rc == BISECT_UPSTREAM) {
		ret = rc;
		goto out;
	}
	if (rc < 0 || narrow(&b, ma) < 0)
		goto fail;
	measure_finish(&b.m);
	print_steps(&b);
	if (bisect_find_patch(db, b.repo, &b.commits[b.first_bad],
			      &culprit) > 0)
		printf("on the list: series #%lld patch %d/%d \"%s\" <%s> "
		       "(found by %s)\n", culprit.series_id, culprit.idx,
		       culprit.total, culprit.title, culprit.message_id,
		       culprit.how);
	else
		printf("on the list: no stored patch is this commit (by "
		       "Link:, patch-id, mm-commits notice or title)\n");
	printf("took %.0f s, %zu step(s); job #%lld\n", now_s() - t0,
	       b.nr_steps, b.job);
	profile_culprit(cfg, &b);
	result = bisect_json(&b, &culprit);
	ret = b.unclean ? BISECT_UNCLEAN : BISECT_CLEAN;
	if (job_end(db, b.job, 1, NULL, result) < 0)
		ret = BISECT_ERROR;
	free(result);
	goto out;
fail:
	measure_finish(&b.m);
	/* a job of the daemon's queue is left to job_recover() (interrupt.h) */
	if (b.job > 0 && !(req->job && interrupted()))
		job_fail(db, b.job, interrupt_or_last_error());
out:
	free(ref);
	bisect_culprit_release(&culprit);
	bisect_release(&b);
	return ret;
}
