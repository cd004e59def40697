// SPDX-License-Identifier: GPL-2.0
/*
 * test-nightly.c - what a nightly reports and bisects
 * (nightly_regressions()): every metric that got worse, and the largest
 * change among them, which the one bisect job of the range follows.
 */
#include <jansson.h>

#include "compare.h"
#include "nightly.h"
#include "stats.h"
#include "tap.h"

static void set(struct metric_comparison *m, const char *wl,
		const char *metric, enum verdict v, double pct)
{
	memset(m, 0, sizeof(*m));
	m->workload = (char *)wl;
	m->variant = (char *)"";
	m->metric = (char *)metric;
	m->unit = (char *)"ms";
	m->c.verdict = v;
	m->c.change_pct = pct;
}

int main(void)
{
	struct metric_comparison m[4];
	struct run_comparison rc = { .m = m, .nr = 4 };
	const struct metric_comparison *top;
	json_t *regs = json_array(), *top_json;

	set(&m[0], "fsdax", "rebind_memmap", VERDICT_WORSE, 12.5);
	set(&m[1], "fsdax", "bind_ms", VERDICT_BETTER, -40.0);
	set(&m[2], "vmap", "vmap_ns", VERDICT_WORSE, 66.0);
	set(&m[3], "devdax", "bind_ms", VERDICT_NO_CHANGE, 80.0);
	top = nightly_regressions(&rc, regs, &top_json);
	is_int(json_array_size(regs), 2, "two metrics got worse, both listed");
	ok(top == &m[2], "the largest regression is the one to bisect");
	is_str(json_string_value(json_object_get(top_json, "metric")),
	       "vmap_ns", "its object in the list is the one returned");
	is_double(json_real_value(json_object_get(json_array_get(regs, 0),
						  "change_pct")), 12.5, 1e-9,
		  "each with its change");
	ok(!json_object_get(json_array_get(regs, 0), "bisect_job"),
	   "no bisect job named before one is queued");
	json_decref(regs);

	/* a larger improvement or a no-change is never followed */
	regs = json_array();
	rc.nr = 2;
	set(&m[0], "fsdax", "rebind_memmap", VERDICT_NO_CHANGE, 30.0);
	top = nightly_regressions(&rc, regs, &top_json);
	ok(!top && !top_json, "nothing worse: no bisection");
	is_int(json_array_size(regs), 0, "and nothing listed");
	json_decref(regs);

	/* a faster metric counts by its size: -70 % worse (a count that
	 * should go up) beats +10 % */
	regs = json_array();
	set(&m[0], "kmem", "plugged_pages", VERDICT_WORSE, -70.0);
	set(&m[1], "kmem", "plug_ms", VERDICT_WORSE, 10.0);
	top = nightly_regressions(&rc, regs, &top_json);
	ok(top == &m[0], "the largest by magnitude, whatever its sign");
	json_decref(regs);
	return done_testing();
}
