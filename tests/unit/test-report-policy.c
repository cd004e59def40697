// SPDX-License-Identifier: GPL-2.0
/*
 * test-report-policy.c - the mail policy of report.c (report_policy()),
 * the series verdict that names a regressing patch (attribution_verdict())
 * and the checks of a real send's links and of the opt-out list. The
 * comparisons are built by hand: no database, no network.
 */
#include <math.h>
#include <stdlib.h>

#include "attribution.h"
#include "claims.h"
#include "compare.h"
#include "report.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

static void set_metric(struct metric_comparison *m, const char *w,
		       const char *metric, double pct, enum verdict v)
{
	memset(m, 0, sizeof(*m));
	m->workload = (char *)w;
	m->variant = (char *)"";
	m->metric = (char *)metric;
	m->unit = (char *)"ms";
	m->c.change_pct = pct;
	m->c.ci_lo_pct = m->c.ci_hi_pct = NAN;
	m->c.verdict = v;
}

/* a comparison of one fsdax and one devdax metric */
struct two {
	struct metric_comparison m[2];
	struct run_comparison rc;
};

static void set_two(struct two *t, double fsdax, enum verdict vf,
		    double devdax, enum verdict vd)
{
	memset(t, 0, sizeof(*t));
	set_metric(&t->m[0], "fsdax", "rebind_memmap", fsdax, vf);
	set_metric(&t->m[1], "devdax", "rebind_memmap", devdax, vd);
	t->rc.m = t->m;
	t->rc.nr = 2;
	t->rc.worse = (vf == VERDICT_WORSE) + (vd == VERDICT_WORSE);
	t->rc.better = (vf == VERDICT_BETTER) + (vd == VERDICT_BETTER);
}

static int decide(const struct run_comparison *rc,
		  const struct attribution *a, const struct claim_check *k,
		  size_t nr, struct strbuf *why)
{
	struct report_policy_input in = { 0 };

	in.series = rc;
	in.attr = a;
	in.claims = k;
	in.nr_claims = nr;
	return report_policy(&in, why);
}

static void test_series_only(void)
{
	struct strbuf why = STRBUF_INIT;
	struct claim_check k = { 0 };
	struct two t;

	set_two(&t, 65.6, VERDICT_WORSE, 0.5, VERDICT_NO_CHANGE);
	is_int(decide(&t.rc, NULL, NULL, 0, &why), 1, "a regression: mailed");
	is_str(why.buf, "regression: fsdax rebind_memmap +65.6 %",
	       "its reason names the metric");

	set_two(&t, 0.2, VERDICT_NO_CHANGE, 0.5, VERDICT_NO_CHANGE);
	is_int(decide(&t.rc, NULL, NULL, 0, &why), 0, "no change: not mailed");
	is_str(why.buf, "no significant change", "its reason");

	set_two(&t, NAN, VERDICT_INSUFFICIENT, NAN, VERDICT_INSUFFICIENT);
	is_int(decide(&t.rc, NULL, NULL, 0, &why), 0,
	       "insufficient data: not mailed");
	is_str(why.buf, "insufficient data", "its reason");

	set_two(&t, -30.0, VERDICT_BETTER, 0.5, VERDICT_NO_CHANGE);
	is_int(decide(&t.rc, NULL, NULL, 0, &why), 0,
	       "an unclaimed improvement: not mailed");
	ok(starts_with(why.buf, "improvement not claimed by the series"),
	   "its reason says it is not claimed");

	/* a claim on another workload does not make it claimed */
	k.patch = 0;
	k.workload = (char *)"devdax";
	k.metric = (char *)"rebind_memmap";
	k.claimed_pct = -25.0;
	k.claims_better = 1;
	k.measured = VERDICT_NO_CHANGE;
	k.measured_pct = 0.5;
	is_int(decide(&t.rc, NULL, &k, 1, &why), 0,
	       "an improvement claimed on another workload: not mailed");

	k.workload = (char *)"fsdax";
	k.measured = VERDICT_BETTER;
	k.measured_pct = -30.0;
	is_int(decide(&t.rc, NULL, &k, 1, &why), 1,
	       "a claimed improvement: mailed");
	is_str(why.buf, "claimed improvement: patch 0 claims -25.0 %, "
	       "measured fsdax rebind_memmap -30.0 %",
	       "claimed and measured side by side in the reason");

	/* a claim of a slowdown is no claim of an improvement */
	k.claims_better = 0;
	k.claimed_pct = 25.0;
	is_int(decide(&t.rc, NULL, &k, 1, &why), 0,
	       "a claimed slowdown does not let an improvement be mailed");

	set_two(&t, 12.0, VERDICT_WORSE, 0.5, VERDICT_NO_CHANGE);
	k.claims_better = 1;
	k.claimed_pct = -25.0;
	k.measured = VERDICT_WORSE;
	k.measured_pct = 12.0;
	is_int(decide(&t.rc, NULL, &k, 1, &why), 1,
	       "a claimed improvement measured as a regression: mailed");
	is_str(why.buf, "claimed improvement measured as a regression: "
	       "patch 0 claims -25.0 %, measured fsdax rebind_memmap "
	       "+12.0 %", "its reason says so before the regression");

	/* both ways in one series: a regression wins, never "improvement" */
	set_two(&t, 20.0, VERDICT_WORSE, -40.0, VERDICT_BETTER);
	is_int(decide(&t.rc, NULL, NULL, 0, &why), 1, "mixed series: mailed");
	ok(starts_with(why.buf, "regression: fsdax"),
	   "as a regression of the metric that regressed");
	strbuf_release(&why);
}

/*
 * The case of issue 16 item 6: patch 2 of 3 saves what patch 3 adds on
 * fsdax, devdax gets better in patch 1: as a whole "BETTER".
 */
struct steps {
	struct two own[4];
	struct attribution_step s[4];
	struct attribution a;
};

static void set_steps(struct steps *x)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	set_two(&x->own[1], 0.1, VERDICT_NO_CHANGE, -20.0, VERDICT_BETTER);
	set_two(&x->own[2], -27.6, VERDICT_BETTER, 0.2, VERDICT_NO_CHANGE);
	set_two(&x->own[3], 38.2, VERDICT_WORSE, 0.1, VERDICT_NO_CHANGE);
	for (i = 0; i < 4; i++) {
		x->s[i].upto = (int)i;
		x->s[i].label = (char *)(i ? "new" : "base");
		x->s[i].own = x->own[i].rc;
	}
	x->a.s = x->s;
	x->a.nr = 4;
}

static void test_per_patch(void)
{
	struct strbuf why = STRBUF_INIT, v = STRBUF_INIT;
	struct claim_check k = { 0 };
	struct steps x;
	struct two series;

	set_steps(&x);
	/* base vs +3: fsdax unchanged, devdax better */
	set_two(&series, 0.0, VERDICT_NO_CHANGE, -20.0, VERDICT_BETTER);

	is_int(attribution_verdict(&x.a, &series.rc, &v), 1,
	       "one own step regressed");
	is_str(v.buf, "MIXED: patch 3/3 fsdax rebind_memmap +38 %; the "
	       "series as a whole: BETTER: 1 metric(s) improved",
	       "the verdict names the patch the series hides, then the series");
	x.s[3].cum = series.rc;
	strbuf_reset(&v);
	attribution_format(&x.a, &v);
	ok(!strstr(v.buf, "verdict"),
	   "the per-patch table has no verdict of its own: the job has one");
	x.s[3].cum.nr = 0;
	x.s[3].cum.m = NULL;
	strbuf_reset(&v);
	attribution_verdict(&x.a, &series.rc, &v);
	is_int(decide(&series.rc, &x.a, NULL, 0, &why), 1,
	       "a series hiding a patch's regression: mailed");
	is_str(why.buf, "patch 3/3 regressed in its own step: fsdax "
	       "rebind_memmap +38.2 %", "its reason names the patch");

	/* without the steps the same series is only an improvement */
	strbuf_reset(&v);
	is_int(attribution_verdict(NULL, &series.rc, &v), 0,
	       "no steps: the series' verdict alone");
	is_str(v.buf, "BETTER: 1 metric(s) improved", "compare_verdict()'s");
	is_int(decide(&series.rc, NULL, NULL, 0, &why), 0,
	       "and as an unclaimed improvement not mailed");

	/* the whole series regressed too: WORSE, still naming the patch */
	set_two(&series, 38.0, VERDICT_WORSE, -20.0, VERDICT_BETTER);
	strbuf_reset(&v);
	attribution_verdict(&x.a, &series.rc, &v);
	is_str(v.buf, "WORSE: patch 3/3 fsdax rebind_memmap +38 %; the "
	       "series as a whole: WORSE: 1 metric(s) regressed, BETTER: 1 "
	       "metric(s) improved", "a regressed series names its patch first");

	/* one patch, two metrics of one workload and another workload:
	 * named once, the largest change of each workload */
	set_two(&x.own[3], 38.2, VERDICT_WORSE, 23.0, VERDICT_WORSE);
	x.own[3].m[1].workload = (char *)"devdax";
	x.s[3].own = x.own[3].rc;
	strbuf_reset(&v);
	attribution_verdict(&x.a, &series.rc, &v);
	ok(starts_with(v.buf, "WORSE: patch 3/3 fsdax rebind_memmap +38 %, "
		       "devdax "), "one patch named once, each workload once");
	ok(!strstr(v.buf + 10, "patch 3/3"), "and not twice");

	/* no own step regressed: an improvement claimed per patch */
	set_two(&x.own[3], 0.1, VERDICT_NO_CHANGE, 0.1, VERDICT_NO_CHANGE);
	x.s[3].own = x.own[3].rc;
	set_two(&series, -27.0, VERDICT_BETTER, -20.0, VERDICT_BETTER);
	strbuf_reset(&v);
	is_int(attribution_verdict(&x.a, &series.rc, &v), 0,
	       "no own regression: nothing named");
	is_str(v.buf, "BETTER: 2 metric(s) improved", "the series' verdict");
	k.patch = 2;
	k.workload = (char *)"fsdax";
	k.metric = (char *)"rebind_memmap";
	k.claimed_pct = -30.0;
	k.claims_better = 1;
	k.measured = VERDICT_BETTER;
	k.measured_pct = -27.6;
	is_int(decide(&series.rc, &x.a, &k, 1, &why), 1,
	       "patch 2's claimed improvement: mailed");
	strbuf_release(&why);
	strbuf_release(&v);
}

static void test_public_url(void)
{
	ok(report_public_url("https://mmci.example.org"), "a public name");
	ok(report_public_url("http://203.0.113.7:8080/mmci"),
	   "a public address and port");
	ok(!report_public_url("http://localhost:8080"), "localhost");
	ok(!report_public_url("http://LOCALHOST"), "LOCALHOST");
	ok(!report_public_url("http://ci.localhost/"), "*.localhost");
	ok(!report_public_url("http://127.0.0.1:8080"), "127.0.0.1");
	ok(!report_public_url("http://127.1.2.3"), "127.x");
	ok(!report_public_url("http://[::1]:8080/"), "::1");
	ok(!report_public_url("http://0.0.0.0/"), "0.0.0.0");
	ok(!report_public_url("http://localhost@evil.example/"),
	   "user info is refused");
	ok(!report_public_url(""), "empty");
	ok(!report_public_url(NULL), "unset");
	ok(!report_public_url("ftp://mmci.example.org"), "not http(s)");
}

static void test_opt_out_and_lore(void)
{
	struct report_addresses l;
	struct strbuf sb = STRBUF_INIT;

	is_int(report_opt_out_parse("a@example.org, linux-mm@kvack.org", &l),
	       0, "two addresses");
	is_int((int)l.nr, 2, "both kept");
	is_str(l.a[1].email, "linux-mm@kvack.org", "the list");
	report_addresses_release(&l);
	is_int(report_opt_out_parse("a@example.org,Bob <b@example.org>", &l),
	       -1, "a name is not an address: refused");
	is_int(report_opt_out_parse("", &l), 0, "empty: nobody");
	is_int((int)l.nr, 0, "empty list");
	report_addresses_release(&l);

	report_lore_url(&sb, "20250303100000.0.mmci-demo@example.org");
	is_str(sb.buf, "https://lore.kernel.org/r/20250303100000.0.mmci-demo"
	       "@example.org", "a lore link");
	strbuf_reset(&sb);
	report_lore_url(&sb, "a/b?c#d%@x");
	is_str(sb.buf, "https://lore.kernel.org/r/a%2Fb%3Fc%23d%25@x",
	       "URL characters encoded");
	strbuf_release(&sb);
}

int main(void)
{
	test_series_only();
	test_per_patch();
	test_public_url();
	test_opt_out_and_lore();
	return done_testing();
}
