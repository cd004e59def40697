// SPDX-License-Identifier: GPL-2.0
/*
 * test-claims.c - unit tests of daemon/claims.c: every claim form of
 * claims.h with its exact numbers, the ordinary mail that must not look
 * like a claim, claim_match_score() against mmci's metrics, claim_agree(),
 * and every file of the mbox fixtures, which hold no performance claim.
 *
 * Expected change_pct values are (after / before - 1) * 100 by hand, e.g.
 * 221 -> 72 ms: 72 / 221 = 0.325792 -> -67.420814; "8.3x faster" of a
 * time: 1 / 8.3 = 0.120482 -> -87.951807; "20% faster": 1 / 1.2 -> -16.67.
 *
 * Our mails are in tests/fixtures/mbox (tests/fixtures/README.md); the real
 * mails of $MMCI_FIXTURES (default ../shared/fixtures/mbox) are an extra
 * whose case skips when the directory is absent (fixtures.h).
 *
 * Claims at their scale: the mails of the series mmci was built for, in
 * ../shared/fixtures/reference (flattened list mails, a skip naming the
 * directory when it is absent), and hotplug-claims-wordings-v3.mbox of our
 * own: each claim with its values, size, machine and the metric it must
 * match with at least CLAIM_MIN_SCORE (attribution.h).
 */
#include <dirent.h>

#include "attribution.h"
#include "claims.h"
#include "mbox.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"
#include "fixtures.h"

#define EPS 1e-3

struct expect {
	const char *text;
	enum claim_kind kind;
	double before, after;	/* NAN for PERCENT and FACTOR */
	const char *unit;
	int higher_is_better;
	double change_pct;
	const char *subject;	/* NULL: not checked */
};

/* one line, exactly one claim, every field as expected */
static void check_one(const struct expect *e)
{
	struct claim_list l = CLAIM_LIST_INIT;
	char *name;
	int n = claims_extract(e->text, &l);

	name = xstrfmt("'%s': one claim", e->text);
	is_int(n, 1, name);
	free(name);
	if (n == 1 && l.nr == 1) {
		const struct claim *c = &l.v[0];

		name = xstrfmt("'%s': kind, unit, direction", e->text);
		ok(c->kind == e->kind && !strcmp(c->unit, e->unit) &&
		   c->higher_is_better == e->higher_is_better && c->line == 1,
		   name);
		if (c->kind != e->kind || strcmp(c->unit, e->unit) ||
		    c->higher_is_better != e->higher_is_better)
			printf("#   got kind %d unit '%s' hib %d\n", c->kind,
			       c->unit, c->higher_is_better);
		free(name);
		name = xstrfmt("'%s': change %.3f%%", e->text, e->change_pct);
		is_double(c->change_pct, e->change_pct, EPS, name);
		free(name);
		name = xstrfmt("'%s': before/after", e->text);
		if (!ok(isnan(e->before) ?
				isnan(c->before) && isnan(c->after) :
				fabs(c->before - e->before) <= EPS &&
					fabs(c->after - e->after) <= EPS,
			name))
			printf("#   got before %g after %g\n", c->before,
			       c->after);
		free(name);
		if (e->subject) {
			name = xstrfmt("'%s': subject", e->text);
			is_str(c->subject, e->subject, name);
			free(name);
		}
	}
	claim_list_release(&l);
}

static const struct expect inline_claims[] = {
	/* before -> after */
	{ "rebinding a 100 GB fsdax namespace: memmap_init_zone_device() 221 ms -> 72 ms",
	  CLAIM_BEFORE_AFTER, 221, 72, "ms", 0, -67.420814,
	  "rebinding a 100 GB fsdax namespace: memmap_init_zone_device()" },
	{ "memmap_init_zone_device() 221.07 ms -> 71.93 ms",
	  CLAIM_BEFORE_AFTER, 221.07, 71.93, "ms", 0, -67.462795,
	  "memmap_init_zone_device()" },
	{ "memmap_init_zone_device() 221.07 ms \xe2\x86\x92 71.93 ms",
	  CLAIM_BEFORE_AFTER, 221.07, 71.93, "ms", 0, -67.462795,
	  "memmap_init_zone_device()" },
	{ "memmap_init_zone_device() 221.07ms => 71.93ms",
	  CLAIM_BEFORE_AFTER, 221.07, 71.93, "ms", 0, -67.462795,
	  "memmap_init_zone_device()" },
	{ "memmap_init_zone_device(): 221 --> 72 msec",
	  CLAIM_BEFORE_AFTER, 221, 72, "ms", 0, -67.420814,
	  "memmap_init_zone_device()" },
	{ "virtio-mem plug of 512 GB: 36 s -> 7 s",
	  CLAIM_BEFORE_AFTER, 36000, 7000, "ms", 0, -80.555556,
	  "virtio-mem plug of 512 GB" },
	{ "vmap 100M: 83 us -> 10 \xc2\xb5s",
	  CLAIM_BEFORE_AFTER, 0.083, 0.010, "ms", 0, -87.951807, "vmap 100M" },
	{ "ioremap: 1500 ns -> 1.2 usec",
	  CLAIM_BEFORE_AFTER, 0.0015, 0.0012, "ms", 0, -20.0, "ioremap" },
	{ "kmem online: 2 min -> 30 seconds",
	  CLAIM_BEFORE_AFTER, 120000, 30000, "ms", 0, -75.0, "kmem online" },
	{ "reduces the time of memmap_init_zone_device() from 221 ms to 72 ms",
	  CLAIM_BEFORE_AFTER, 221, 72, "ms", 0, -67.420814,
	  "reduces the time of memmap_init_zone_device()" },
	{ "The virtio-mem plug time improved from 36s to 7s.",
	  CLAIM_BEFORE_AFTER, 36000, 7000, "ms", 0, -80.555556,
	  "The virtio-mem plug time improved" },
	{ "fio read throughput: 1.2 GB/s -> 2.4 GB/s",
	  CLAIM_BEFORE_AFTER, 1200, 2400, "MB/s", 1, 100.0,
	  "fio read throughput" },
	{ "page migration: 100000 pages/s -> 150000 pages/s",
	  CLAIM_BEFORE_AFTER, 100000, 150000, "pages/s", 1, 50.0,
	  "page migration" },
	{ "dax-kmem offline 10 s -> 12 s, a small regression",
	  CLAIM_BEFORE_AFTER, 10000, 12000, "ms", 0, 20.0, NULL },
	/* factors */
	{ "vmap(100 MB) of order-8 pages: 8.3x faster",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, -87.951807,
	  "vmap(100 MB) of order-8 pages" },
	{ "vmap(100 MB) of order-8 pages: 8.3 times faster",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, -87.951807,
	  "vmap(100 MB) of order-8 pages" },
	{ "vmalloc_huge() gets a 2x speedup",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, -50.0, "vmalloc_huge() gets" },
	{ "ioremap sees a speed-up of 3x",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, -66.666667, "ioremap sees" },
	{ "iounmap is 3x slower",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, 200.0, "iounmap" },
	{ "memremap_pages() is 4\xc3\x97 faster",
	  CLAIM_FACTOR, NAN, NAN, "x", 0, -75.0, "memremap_pages()" },
	{ "zram write throughput is 2x faster",
	  CLAIM_FACTOR, NAN, NAN, "x", 1, 100.0, NULL },
	/* percentages */
	{ "This reduces the rebind time by about 67.5%.",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -67.5,
	  "This reduces the rebind time" },
	{ "a 67% reduction in memmap_init_zone_device() time",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -67.0,
	  "memmap_init_zone_device() time" },
	{ "It improves the vmalloc test by 20%",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -16.666667,
	  "It improves the vmalloc test" },
	{ "vfree_huge regresses by 5%",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, 5.0, "vfree_huge regresses" },
	{ "virtio-mem unplug is ~12% faster",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -10.714286, "virtio-mem unplug" },
	{ "virtio-mem unplug is 12% slower",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, 12.0, "virtio-mem unplug" },
	{ "memory bandwidth is 20% faster",
	  CLAIM_PERCENT, NAN, NAN, "%", 1, 20.0, "memory bandwidth" },
	{ "throughput regresses by 5%",
	  CLAIM_PERCENT, NAN, NAN, "%", 1, -4.761905, NULL },
	{ "fault latency is 30% lower",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -30.0, "fault latency" },
	{ "it cuts the boot time by up to 40 %",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, -40.0, NULL },
	{ "kernel test robot noticed a 94.7% improvement of will-it-scale.per_process_ops on:",
	  CLAIM_PERCENT, NAN, NAN, "%", 1, 94.7,
	  "kernel test robot noticed will-it-scale.per_process_ops" },
	{ "kernel test robot noticed a -12.3% regression of vm-scalability.throughput on:",
	  CLAIM_PERCENT, NAN, NAN, "%", 1, -12.3, NULL },
	{ "fault latency: +4.5% regression",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, 4.5, "fault latency" },
	{ "the patch adds 3% overhead to vmalloc",
	  CLAIM_PERCENT, NAN, NAN, "%", 0, 3.0, NULL },
};

static void test_inline(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inline_claims); i++)
		check_one(&inline_claims[i]);
}

static void check_row(const struct claim_list *l, size_t i, unsigned line,
		      double before, double after, const char *unit,
		      const char *subject, const char *what)
{
	char *name = xstrfmt("%s: row %zu", what, i);

	if (i >= l->nr) {
		ok(0, name);
		printf("#   only %zu claims\n", l->nr);
		free(name);
		return;
	}
	ok(l->v[i].kind == CLAIM_BEFORE_AFTER && l->v[i].line == line &&
		   fabs(l->v[i].before - before) <= EPS &&
		   fabs(l->v[i].after - after) <= EPS &&
		   !strcmp(l->v[i].unit, unit) &&
		   fabs(l->v[i].change_pct - (after / before - 1) * 100) <= EPS,
	   name);
	printf("#   line %u: %g -> %g %s, '%s'\n", l->v[i].line,
	       l->v[i].before, l->v[i].after, l->v[i].unit,
	       l->v[i].subject);
	free(name);
	name = xstrfmt("%s: row %zu subject", what, i);
	is_str(l->v[i].subject, subject, name);
	free(name);
}

static void test_tables(void)
{
	struct claim_list l = CLAIM_LIST_INIT;

	is_int(claims_extract("memmap_init_zone_device() when rebinding:\n"
			      "\n"
			      "    Before      After\n"
			      "    221.07ms    71.93ms\n",
			      &l),
	       1, "before/after table without a label");
	check_row(&l, 0, 4, 221.07, 71.93, "ms",
		  "memmap_init_zone_device() when rebinding", "plain table");
	claim_list_release(&l);

	is_int(claims_extract("Results:\n"
			      "    test            base      patched\n"
			      "    fsdax rebind    221 ms    72 ms\n"
			      "    vmap 100M       83 us     10 us\n"
			      "\n"
			      "Signed-off-by: A <a@example.org>\n",
			      &l),
	       2, "table with a label column");
	check_row(&l, 0, 3, 221, 72, "ms", "fsdax rebind", "label table");
	check_row(&l, 1, 4, 0.083, 0.010, "ms", "vmap 100M", "label table");
	claim_list_release(&l);

	is_int(claims_extract("| test | before | after | change |\n"
			      "|------|--------|-------|--------|\n"
			      "| fsdax rebind | 221 ms | 72 ms | -67% |\n"
			      "| devdax rebind | 200 ms | 70 ms | -65% |\n",
			      &l),
	       2, "markdown table");
	check_row(&l, 0, 3, 221, 72, "ms", "fsdax rebind", "markdown");
	check_row(&l, 1, 4, 200, 70, "ms", "devdax rebind", "markdown");
	claim_list_release(&l);

	is_int(claims_extract("| workload | before (ms) | after (ms) |\n"
			      "|---|---:|---:|\n"
			      "| virtio-mem plug | 36000 | 7000 |\n",
			      &l),
	       1, "markdown table, unit in the header cells");
	check_row(&l, 0, 3, 36000, 7000, "ms", "virtio-mem plug",
		  "header unit");
	claim_list_release(&l);

	is_int(claims_extract("time [usec]    vanilla    patched\n"
			      "--------------------------------\n"
			      "vmap            83         10\n"
			      "vunmap          40         38\n",
			      &l),
	       2, "header unit as its own word, rule line");
	check_row(&l, 0, 3, 0.083, 0.010, "ms", "vmap", "usec header");
	check_row(&l, 1, 4, 0.040, 0.038, "ms", "vunmap", "usec header");
	claim_list_release(&l);

	is_int(claims_extract("                 w/o patch    w/ patch\n"
			      "fio randread     1.0 GB/s     1.5 GB/s\n",
			      &l),
	       1, "w/o and w/ throughput table");
	check_row(&l, 0, 2, 1000, 1500, "MB/s", "fio randread", "w/o w/");
	ok(l.nr == 1 && l.v[0].higher_is_better, "throughput row: higher is better");
	claim_list_release(&l);

	is_int(claims_extract("memmap_init_zone_device() on rebind\n"
			      "Before: 221.07 ms (stddev 3 ms)\n"
			      "After:  71.93 ms\n",
			      &l),
	       1, "labelled before and after lines");
	check_row(&l, 0, 3, 221.07, 71.93, "ms", "memmap_init_zone_device() on rebind",
		  "labelled lines");
	ok(l.nr == 1 && !strcmp(l.v[0].text,
				"Before: 221.07 ms (stddev 3 ms) / After:  71.93 ms"),
	   "labelled lines: text joins both lines");
	claim_list_release(&l);

	is_int(claims_extract("  - without the patch: virtio-mem plug 36 s\n"
			      "  - with the patch:    virtio-mem plug 7 s\n",
			      &l),
	       1, "labelled without/with lines, label after the colon");
	check_row(&l, 0, 2, 36000, 7000, "ms", "virtio-mem plug",
		  "without/with lines");
	claim_list_release(&l);

	is_int(claims_extract("Without this patch:   real 1m36.2s\n"
			      "With this patch:      real 0m7.10s\n",
			      &l),
	       1, "labelled lines with time(1) output");
	check_row(&l, 0, 2, 96200, 7100, "ms", "real", "time(1) lines");
	claim_list_release(&l);

	is_int(claims_extract("Before: 221 ms\n1\n2\n3\n4\n5\n6\n7\n"
			      "After: 72 ms\n",
			      &l),
	       0, "labelled lines too far apart");
	claim_list_release(&l);

	is_int(claims_extract("    Before      After\n"
			      "    221         72\n"
			      "    3           4\n",
			      &l),
	       0, "a table without any unit is no claim");
	claim_list_release(&l);

	is_int(claims_extract("before after\n"
			      "the old and new code behave the same\n",
			      &l),
	       0, "header words without rows");
	claim_list_release(&l);
}

static void test_several(void)
{
	struct claim_list l = CLAIM_LIST_INIT;

	is_int(claims_extract("Hi,\n"
			      "\n"
			      "vmap: 83 us -> 10 us and vunmap: 40 us -> 38 us\n"
			      "\n"
			      "plug is 5x faster\n",
			      &l),
	       3, "two claims on a line and one on another");
	ok(l.nr == 3 && l.v[0].line == 3 && l.v[1].line == 3 &&
		   l.v[2].line == 5 && l.v[2].kind == CLAIM_FACTOR,
	   "lines and kinds of three claims");
	is_int(claims_extract("vfree: 1 ms -> 2 ms\n", &l), 1,
	       "claims are appended");
	is_int(l.nr, 4, "list holds four claims");
	claim_list_release(&l);
	ok(!l.v && !l.nr && !l.alloc, "released list is empty");

	is_int(claims_extract("rebind 221 ms -> 72 ms, a 67% reduction, "
			      "i.e. 3x faster\n",
			      &l),
	       1, "percent and factor restating a before/after are dropped");
	claim_list_release(&l);

	is_int(claims_extract("vmap is 3x faster\r\n", &l), 1, "CRLF line");
	ok(l.nr == 1 && !strcmp(l.v[0].text, "vmap is 3x faster"),
	   "text is trimmed without the CR");
	claim_list_release(&l);

	is_int(claims_extract("rebinding fsdax:\n221 ms -> 72 ms\n", &l), 1,
	       "claim alone on its line");
	ok(l.nr == 1 && !strcmp(l.v[0].subject, "rebinding fsdax"),
	   "subject taken from the line before");
	claim_list_release(&l);

	is_int(claims_extract(NULL, &l), -1, "NULL text is an error");
	is_int(claims_extract("", &l), 0, "empty text");
	claim_list_release(&l);
}

/* ordinary kernel mail: no claim in any of these */
static const char *const not_claims[] = {
	"Changes v1 -> v2:\n - rebase\n",
	"Changes in v3 -> v4: fix the build\n",
	"rebased from v6.12 -> v6.13\n",
	"also for 5.10.y and 6.1.y -> 6.6.y\n",
	"Received: from [IPv6:fe80::1%15] by mx.example.org with ESMTP\n",
	"From: A <a@example.org>\nReceived: from host ([fe80::1%15])\n"
	"Subject: [PATCH] mm: speed up vmap by 3x\n\nbody\n",
	"the flags change 0x10 -> 0x20\n",
	"mapped at 0xffff888100000000 -> 0xffff888200000000\n",
	"route 10.0.0.1 -> 10.0.0.2\n",
	"Date: Sat, 30 Nov 2024 12:00:00 +0100\n",
	"on 2024-11-30 -> 2024-12-01 the tree moved\n",
	"from 12:00 to 13:00 on Monday\n",
	"it happens 100% of the time\n",
	"I am 100% sure\n",
	"order-8 -> order-9 pages\n",
	"nr_pages 512 -> 1024\n",
	"from 4 to 8 CPUs\n",
	"increases the count by 10%\n",
	"[PATCH v2 1/3] mm: foo\n",
	"Fixes: 1234abcd5678 (\"mm: bar\")\n",
	"> rebinding: 221 ms -> 72 ms\n",
	"  > > 8.3x faster\n",
	"diff --git a/mm/a.c b/mm/a.c\n+\t/* 221 ms -> 72 ms */\n",
	"thanks\n-- \nsig: 3x faster\n",
	"x86-64: 5 -> 6\n",
	"use 2x the memory\n",
	"the 1.5x factor of the heuristic\n",
	"  mm/vmalloc.c | 12 ++++++------\n  1 file changed, 6 insertions(+), 6 deletions(-)\n",
	"cpu0: 99% idle\n",
	"VGhpcyBpcyAxMDAgbXMgLT4gNTAgbXMsIDN4IGZhc3RlciBhbmQgbW9yZSBiYXNlNjQgdGV4dA==\n",
};

static void test_not_claims(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_claims); i++) {
		struct claim_list l = CLAIM_LIST_INIT;
		char *name = xstrfmt("no claim in '%.40s'", not_claims[i]);
		int n = claims_extract(not_claims[i], &l);

		is_int(n, 0, name);
		if (n > 0)
			printf("#   first: '%s'\n", l.v[0].text);
		free(name);
		claim_list_release(&l);
	}
}

/* after an mbox "From " line, headers are skipped, the body is not */
static void test_mbox_structure(void)
{
	struct claim_list l = CLAIM_LIST_INIT;
	const char *mbox =
		"From 1234 Mon Sep 17 00:00:00 2001\n"
		"From: A <a@example.org>\n"
		"Subject: [PATCH 0/2] mm: 221 ms -> 72 ms\n"
		"Received: from x ([fe80::1%15])\n"
		"\n"
		"memmap_init_zone_device() 221 ms -> 72 ms\n"
		"\n"
		"-- \n"
		"2.43.0\n"
		"\n"
		"From 1234 Mon Sep 17 00:00:00 2001\n"
		"From: A <a@example.org>\n"
		"\n"
		"vmap is 2x faster\n"
		"---\n"
		" mm/vmalloc.c | 2 +-\n"
		"diff --git a/mm/vmalloc.c b/mm/vmalloc.c\n"
		"+ 3 ms -> 1 ms\n"
		"-- \n"
		"2.43.0\n";

	is_int(claims_extract(mbox, &l), 2, "two claims in a two-mail mbox");
	ok(l.nr == 2 && l.v[0].line == 6 && l.v[1].line == 14,
	   "claims only from the bodies, not headers, diffs or signatures");
	claim_list_release(&l);
}

static struct claim make_claim(const char *subject, const char *text,
			       double change)
{
	struct claim c;

	memset(&c, 0, sizeof(c));
	c.kind = CLAIM_PERCENT;
	c.subject = (char *)subject;
	c.text = (char *)text;
	c.before = c.after = NAN;
	c.change_pct = change;
	return c;
}

static const struct {
	const char *workload, *metric;
} all_metrics[] = {
	{ "fsdax", "first_bind_memmap" }, { "fsdax", "first_bind_wall" },
	{ "fsdax", "rebind_memmap" }, { "fsdax", "rebind_wall" },
	{ "devdax", "first_bind_memmap" }, { "devdax", "first_bind_wall" },
	{ "devdax", "rebind_memmap" }, { "devdax", "rebind_wall" },
	{ "vmap", "ioremap_1m" }, { "vmap", "iounmap_1m" },
	{ "vmap", "vmalloc_1m" }, { "vmap", "vfree_1m" },
	{ "vmap", "vmalloc_huge_1m" }, { "vmap", "vfree_huge_1m" },
	{ "vmap", "vmap_100m_order8" }, { "vmap", "vunmap_100m_order8" },
	{ "memremap", "memremap_pages" }, { "memremap", "memunmap_pages" },
	{ "memremap", "memremap_memmap" },
	{ "virtio-mem", "plug" }, { "virtio-mem", "unplug" },
	{ "kmem", "online" }, { "kmem", "offline" },
};

/* the metric with the best score for the first claim found in @text */
static void check_best(const char *text, const char *workload,
		       const char *metric, int min_score)
{
	struct claim_list l = CLAIM_LIST_INIT;
	size_t i, best = 0, ties = 0;
	int best_score = -1, out_of_range = 0;
	char *name = xstrfmt("'%s' matches %s/%s best", text, workload, metric);

	if (claims_extract(text, &l) < 1) {
		ok(0, name);
		free(name);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(all_metrics); i++) {
		int s = claim_match_score(&l.v[0], all_metrics[i].workload,
					  NULL, all_metrics[i].metric);

		if (s < 0 || s > 100)
			out_of_range++;
		if (s > best_score) {
			best_score = s;
			best = i;
			ties = 0;
		} else if (s == best_score) {
			ties++;
		}
	}
	ok(!strcmp(all_metrics[best].workload, workload) &&
		   !strcmp(all_metrics[best].metric, metric) && !ties &&
		   best_score >= min_score && !out_of_range,
	   name);
	printf("#   best %s/%s score %d, %zu ties\n", all_metrics[best].workload,
	       all_metrics[best].metric, best_score, ties);
	free(name);
	claim_list_release(&l);
}

static void test_match(void)
{
	struct claim c;

	check_best("rebinding a 100 GB fsdax namespace: memmap_init_zone_device() 221 ms -> 72 ms",
		   "fsdax", "rebind_memmap", 80);
	check_best("devdax rebind: memmap_init_zone_device() 221 ms -> 72 ms",
		   "devdax", "rebind_memmap", 80);
	check_best("first bind of a dax_pmem namespace, wall clock: 2 s -> 1 s",
		   "devdax", "first_bind_wall", 80);
	check_best("virtio-mem plug of 512 GB: 36 s -> 7 s", "virtio-mem",
		   "plug", 80);
	check_best("virtio-mem unplug of 512 GB: 36 s -> 7 s", "virtio-mem",
		   "unplug", 80);
	check_best("vmap(100 MB) of order-8 pages: 8.3x faster", "vmap",
		   "vmap_100m_order8", 80);
	check_best("vunmap(100 MB) of order-8 pages: 2x faster", "vmap",
		   "vunmap_100m_order8", 80);
	check_best("vmalloc(1 MB) with huge pages is 2x faster", "vmap",
		   "vmalloc_huge_1m", 80);
	check_best("vmalloc(1M) is 2x faster", "vmap", "vmalloc_1m", 80);
	check_best("ioremap of 1 MiB: 10 us -> 5 us", "vmap", "ioremap_1m", 80);
	check_best("memunmap_pages() is 3x faster", "memremap",
		   "memunmap_pages", 80);
	check_best("dax-kmem onlining 10 s -> 5 s", "kmem", "online", 80);
	check_best("kmem offlining is 20% slower", "kmem", "offline", 80);

	c = make_claim("memmap_init_zone_device()", "", -67.4);
	is_int(claim_match_score(&c, "fsdax", NULL, "rebind_memmap"), 55 + 2,
	       "memmap_init_zone_device() alone is each rebind's: both parts");
	ok(claim_match_score(&c, "fsdax", NULL, "rebind_memmap") >=
		   CLAIM_MIN_SCORE,
	   "memmap_init_zone_device() alone: enough for claims_format()");
	is_int(claim_match_score(&c, "memremap", NULL, "memremap_memmap"),
	       28 + 1, "memmap alone: half of memremap_memmap's parts");
	ok(claim_match_score(&c, "fsdax", NULL, "rebind_memmap") >
		   claim_match_score(&c, "fsdax", NULL, "first_bind_memmap"),
	   "memmap alone: rebind above first bind");
	/* a size in the subject ("16g" derived once, not again and again) */
	c = make_claim("check the first page only, so the check is almost "
		       "free: memmap_init_zone_device() [16 GB, VM]", "",
		       -40.0);
	is_int(claim_match_score(&c, "fsdax", NULL, "rebind_memmap"), 55 + 2,
	       "memmap_init_zone_device() with a size and a 'first page'");
	c = make_claim("fsdax rebind", "", -67.4);
	is_int(claim_match_score(&c, "fsdax", NULL, "rebind_wall"),
	       30 + 28 + 1, "workload and half the parts");
	is_int(claim_match_score(&c, "fsdax", "100G", "rebind_wall"),
	       30 + 28 + 1, "variant not named: no bonus");
	c = make_claim("rebinding a 100 GB fsdax namespace", "", -67.4);
	is_int(claim_match_score(&c, "fsdax", "100G", "rebind_wall"),
	       30 + 28 + 1 + 10, "variant 100G named as 100 GB");
	c = make_claim("the weather", "nice weather 3x faster", -66);
	is_int(claim_match_score(&c, "fsdax", NULL, "rebind_memmap"), 0,
	       "unrelated claim scores 0");
	is_int(claim_match_score(&c, NULL, NULL, NULL), 0, "nothing to match");
	c = make_claim("virtio-mem unplug", "", -10);
	is_int(claim_match_score(&c, "virtio-mem", NULL, "plug"), 30,
	       "unplug does not match plug");
	c = make_claim("first bind", "", -10);
	is_int(claim_match_score(&c, "fsdax", NULL, "rebind_wall"), 0,
	       "bind does not match rebind");
}

static void test_agree(void)
{
	struct claim c = make_claim("x", "x", -67.4);

	is_int(claim_agree(&c, -60, -70, -50), CLAIM_AGREES,
	       "claim inside the interval");
	is_int(claim_agree(&c, -50, -55, -45), CLAIM_AGREES,
	       "claim outside the interval but within 1.5x (67.4 / 50)");
	is_int(claim_agree(&c, -40, -45, -35), CLAIM_SAME_DIRECTION_SMALLER,
	       "measured a smaller improvement (67.4 / 40 > 1.5)");
	is_int(claim_agree(&c, -40, NAN, NAN), CLAIM_SAME_DIRECTION_SMALLER,
	       "smaller, no interval");
	c.change_pct = -20;
	is_int(claim_agree(&c, -50, -55, -45), CLAIM_SAME_DIRECTION_LARGER,
	       "measured a larger improvement");
	is_int(claim_agree(&c, 10, 5, 15), CLAIM_OPPOSITE,
	       "measured a significant regression");
	is_int(claim_agree(&c, 2, -3, 7), CLAIM_SAME_DIRECTION_SMALLER,
	       "opposite sign but the interval holds 0: no effect shown");
	is_int(claim_agree(&c, 2, NAN, NAN), CLAIM_OPPOSITE,
	       "opposite sign, no interval");
	is_int(claim_agree(&c, 0, NAN, NAN), CLAIM_SAME_DIRECTION_SMALLER,
	       "measured exactly nothing");
	is_int(claim_agree(&c, NAN, NAN, NAN), CLAIM_NOT_MEASURED,
	       "NaN measurement");
	c.change_pct = 200;
	is_int(claim_agree(&c, 150, 140, 160), CLAIM_AGREES,
	       "3x slower vs +150 %: within 1.5x");
	c.change_pct = 0;
	is_int(claim_agree(&c, 0.5, NAN, NAN), CLAIM_AGREES, "no-change claim");
	is_int(claim_agree(&c, 5, 3, 7), CLAIM_SAME_DIRECTION_LARGER,
	       "no-change claim, a change measured");
	c.change_pct = NAN;
	is_int(claim_agree(&c, -5, -6, -4), CLAIM_NOT_MEASURED, "NaN claim");

	is_str(claim_agreement_name(CLAIM_AGREES), "agrees", "name agrees");
	is_str(claim_agreement_name(CLAIM_SAME_DIRECTION_SMALLER),
	       "smaller than claimed", "name smaller");
	is_str(claim_agreement_name(CLAIM_SAME_DIRECTION_LARGER),
	       "larger than claimed", "name larger");
	is_str(claim_agreement_name(CLAIM_OPPOSITE), "opposite",
	       "name opposite");
	is_str(claim_agreement_name(CLAIM_NOT_MEASURED), "not measured",
	       "name not measured");
}

/* ---------------------------------------------- claims at their scale */

/*
 * a claim as the mails state it and the metric it must match: @metric
 * must be the best of all_metrics with a score of at least
 * CLAIM_MIN_SCORE (attribution.h), @workload too unless NULL (the claim
 * names no workload, fsdax and devdax tie)
 */
struct scaled {
	unsigned line;		/* 0: not checked */
	enum claim_kind kind;
	double before, after;	/* BEFORE_AFTER; else change_pct in after */
	const char *unit;
	const char *workload, *metric;	/* metric NULL: matches none */
	double size_mib;	/* 0: none */
	const char *machine;	/* "": none */
};

/* the best metric of all_metrics for @c; *@ties other metrics as good */
static size_t best_metric(const struct claim *c, int *score, size_t *ties)
{
	size_t i, best = 0;

	*score = -1;
	*ties = 0;
	for (i = 0; i < ARRAY_SIZE(all_metrics); i++) {
		int s = claim_match_score(c, all_metrics[i].workload, NULL,
					  all_metrics[i].metric);

		if (s > *score) {
			*score = s;
			best = i;
			*ties = 0;
		} else if (s == *score) {
			(*ties)++;
		}
	}
	return best;
}

/* one claim against what it must be; 1 if it matched its metric */
static int check_scaled(const char *what, size_t i, const struct claim *c,
			const struct scaled *w)
{
	char *name = xstrfmt("%s: claim %zu values", what, i);
	int score, matched;
	size_t ties, b = best_metric(c, &score, &ties);

	if (!ok(c->kind == w->kind && !strcmp(c->unit, w->unit) &&
			(!w->line || c->line == w->line) &&
			(w->kind == CLAIM_BEFORE_AFTER ?
				 fabs(c->before - w->before) <= EPS &&
					 fabs(c->after - w->after) <= EPS :
				 fabs(c->change_pct - w->after) <= EPS),
		name))
		printf("#   got line %u kind %d %g -> %g %s, %+.6f%%\n", c->line,
		       c->kind, c->before, c->after, c->unit, c->change_pct);
	free(name);
	name = xstrfmt("%s: claim %zu at %g MiB on '%s'", what, i, w->size_mib,
		       w->machine);
	if (!ok(fabs(c->size_mib - w->size_mib) <= EPS &&
			!strcmp(c->machine, w->machine),
		name))
		printf("#   got %g MiB, '%s' ('%s')\n", c->size_mib, c->machine,
		       c->subject);
	free(name);
	matched = score >= CLAIM_MIN_SCORE;
	if (w->metric) {
		name = xstrfmt("%s: claim %zu matches %s/%s", what, i,
			       w->workload ? w->workload : "*", w->metric);
		ok(matched && !strcmp(all_metrics[b].metric, w->metric) &&
			   (w->workload ?
				    !ties && !strcmp(all_metrics[b].workload,
						     w->workload) :
				    ties <= 1),
		   name);
	} else {
		name = xstrfmt("%s: claim %zu matches no metric", what, i);
		ok(!matched, name);
	}
	printf("#   '%s': %s/%s score %d, %zu ties\n", c->subject,
	       all_metrics[b].workload, all_metrics[b].metric, score, ties);
	free(name);
	return matched;
}

/* the claims of @text are exactly @want; returns how many match a metric */
static size_t check_scaled_text(const char *what, const char *text,
				const struct scaled *want, size_t nr)
{
	struct claim_list l = CLAIM_LIST_INIT;
	size_t i, matched = 0;
	char *name = xstrfmt("%s: %zu claims", what, nr);

	is_int(claims_extract(text, &l), nr, name);
	free(name);
	for (i = 0; i < l.nr && i < nr; i++)
		matched += check_scaled(what, i, &l.v[i], &want[i]);
	for (; i < l.nr; i++)
		printf("#   extra: line %u '%s'\n", l.v[i].line, l.v[i].text);
	claim_list_release(&l);
	return matched;
}

#define GB 1024.0

static const struct scaled wordings_claims[] = {
	{ 28, CLAIM_BEFORE_AFTER, 12400, 3100, "ms", "virtio-mem", "plug",
	  256 * GB, "KVM" },
	{ 30, CLAIM_BEFORE_AFTER, 40000, 6500, "ms", "virtio-mem", "plug",
	  512 * GB, "KVM" },
	{ 32, CLAIM_BEFORE_AFTER, 9800, 4000, "ms", "virtio-mem", "unplug",
	  256 * GB, "KVM" },
	{ 34, CLAIM_BEFORE_AFTER, 31000, 7900, "ms", "virtio-mem", "unplug",
	  512 * GB, "KVM" },
	{ 44, CLAIM_BEFORE_AFTER, 2410, 1120, "ms", "kmem", "online",
	  128 * GB, "physical host" },
	{ 45, CLAIM_BEFORE_AFTER, 1950, 1900, "ms", "kmem", "offline",
	  128 * GB, "physical host" },
	{ 48, CLAIM_BEFORE_AFTER, 310.4, 121.7, "ms", "devdax",
	  "rebind_memmap", 64 * GB, "physical host" },
	{ 52, CLAIM_BEFORE_AFTER, 0.0041, 0.00256, "ms", "vmap", "ioremap_1m",
	  2, "physical host" },
	{ 53, CLAIM_BEFORE_AFTER, 1.19, 0.151, "ms", "vmap",
	  "vmap_100m_order8", 100, "physical host" },
	{ 54, CLAIM_FACTOR, NAN, -25.925926, "x", "vmap", "vmalloc_huge_1m", 1,
	  "physical host" },
	{ 93, CLAIM_BEFORE_AFTER, 233.9, 158.2, "ms", "fsdax", "rebind_memmap",
	  100 * GB, "KVM" },
	{ 95, CLAIM_PERCENT, NAN, -18.032787, "%", "virtio-mem", "unplug",
	  64 * GB, "KVM" },
	{ 131, CLAIM_BEFORE_AFTER, 2500, 1500, "ms", NULL, "rebind_memmap", 0,
	  "" },
	{ 135, CLAIM_BEFORE_AFTER, 0.91, 0.40, "ms", "vmap", "vfree_huge_1m", 1,
	  "" },
};

/* our mbox in the wordings of mm series: every claim at its scale */
static void test_wordings_fixture(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *path = OWN_FIXTURES "/hotplug-claims-wordings-v3.mbox";
	size_t n;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		ok(0, path);
		return;
	}
	n = check_scaled_text("wordings", sb.buf, wordings_claims,
			      ARRAY_SIZE(wordings_claims));
	is_int(n, ARRAY_SIZE(wordings_claims),
	       "wordings: every claim matches a measured metric");
	strbuf_release(&sb);
}

/* claims spread over lines, one case each, with their exact numbers */
static void test_scaled_inline(void)
{
	static const struct scaled block[] = {
		{ 9, CLAIM_BEFORE_AFTER, 221.07, 155.00, "ms", "fsdax",
		  "rebind_memmap", 100 * GB, "VM" },
	};
	static const struct scaled pairs[] = {
		{ 7, CLAIM_BEFORE_AFTER, 1462, 1354, "ms", "devdax",
		  "first_bind_memmap", 0, "physical host" },
		{ 8, CLAIM_BEFORE_AFTER, 273.31, 119.04, "ms", "devdax",
		  "rebind_memmap", 0, "physical host" },
		{ 9, CLAIM_BEFORE_AFTER, 1456, 1272, "ms", "fsdax",
		  "first_bind_memmap", 0, "physical host" },
	};
	static const struct scaled sentence[] = {
		{ 2, CLAIM_BEFORE_AFTER, 244.28, 217.19, "ms", NULL,
		  "rebind_memmap", 0, "" },
	};
	static const struct scaled grid[] = {
		{ 4, CLAIM_BEFORE_AFTER, 10000, 3000, "ms", "virtio-mem", "plug",
		  256 * GB, "" },
		{ 6, CLAIM_BEFORE_AFTER, 36000, 7000, "ms", "virtio-mem", "plug",
		  512 * GB, "" },
	};
	static const struct scaled factor[] = {
		{ 1, CLAIM_BEFORE_AFTER, 1.235, 0.149, "ms", "vmap",
		  "vmap_100m_order8", 100, "" },
		{ 2, CLAIM_FACTOR, NAN, -25.925926, "x", "vmap", "iounmap_1m",
		  1, "" },
	};
	static const struct scaled memremap[] = {
		{ 7, CLAIM_BEFORE_AFTER, 116.689362, 54.607108, "ms",
		  "memremap", "memremap_pages", 64 * GB, "physical host" },
	};

	check_scaled_text("block",
		"Tested in a VM with a 100 GB fsdax namespace.\n"
		"\n"
		"Rebind the nd_pmem driver 30 times and collect the memmap\n"
		"initialization time from memmap_init_zone_device().\n"
		"Base(v7.3-rc1):\n"
		"  Average of rebinds for nd_pmem driver: 221.07 ms\n"
		"\n"
		"With this patch and its prerequisites applied:\n"
		"  Average of rebinds for nd_pmem driver: 155.00 ms\n"
		"\n"
		"This reduces the average memmap initialization time measured during\n"
		"rebind from 221.07 ms to 155.00 ms, or about 29.9%.\n",
		block, ARRAY_SIZE(block));
	/* labels in another order, a group's workload for the next line */
	check_scaled_text("pairs by label",
		"Ran once on the physical host, memmap_init_zone_device() times:\n"
		"without the series:\n"
		"  First binding for nd_pmem driver: 1456 ms\n"
		"  First binding for dax_pmem driver: 1462 ms\n"
		"  Average of rebinds: 273.31 ms\n"
		"with the series:\n"
		"  First binding for dax_pmem driver: 1354 ms\n"
		"  Average of rebinds: 119.04 ms\n"
		"  First binding for nd_pmem driver: 1272 ms\n",
		pairs, ARRAY_SIZE(pairs));
	check_scaled_text("wrapped sentence",
		"This reduces the average memmap initialization time measured during rebind\n"
		"from 244.28 ms to 217.19 ms, or about 11%.\n",
		sentence, ARRAY_SIZE(sentence));
	check_scaled_text("grid table",
		"+----------------+------+---------------+--------------+----------------+\n"
		"|                | Size | Time (before) | Time (after) | Time Reduction |\n"
		"|                +------+---------------+--------------+----------------+\n"
		"| Plug Memory    | 256G | 10s           | 3s           | 70%            |\n"
		"|                +------+---------------+--------------+----------------+\n"
		"|                | 512G | 36s           | 7s           | 81%            |\n"
		"+----------------+------+---------------+--------------+----------------+\n",
		grid, ARRAY_SIZE(grid));
	check_scaled_text("factor and arrow",
		"* vmap(100MB) with order-8 pages: 8.3x faster (1235 us -> 149 us)\n"
		"* iounmap(1M): 1.35x faster\n",
		factor, ARRAY_SIZE(factor));
	check_scaled_text("ns values, size from the paragraph",
		"I measured test_hmm.ko on the same physical host, ten 64 GB\n"
		"memremap_pages()/memunmap_pages() iterations.\n"
		"\n"
		"Base (v7.2-rc1):\n"
		"  avg memremap_pages: 116689362 ns, 116539263 ns\n"
		"With this series applied:\n"
		"  avg memremap_pages: 54607108 ns, 54458236 ns\n",
		memremap, ARRAY_SIZE(memremap));
}

/* numbers in mails that are no claims, and no size or machine either */
static void test_scaled_not_claims(void)
{
	static const char *const texts[] = {
		"Reported-by: kernel test robot <lkp@intel.com> 2024\n",
		"Changes v2 -> v3:\n- rebase onto 6.13-rc1\n",
		"[PATCH 3/7] mm: add a template\n",
		"Tested on 6.12.3 and 6.13-rc1 in 2024-11-30 builds\n",
		"the range moves from 0x1000 to 0x2000\n",
		"0x1000 -> 0x2000\n",
		"Base(v7.2-rc1):\n  First binding: 1456\nWith this series:\n"
		"  First binding: 1272\n",
		"Base:\n  2 MiB alignment: 1 -> 2\n",
		"Changes since v11: 1.25x faster than v7 on ioremap\n",
		"From v6.12 to v6.13 the span moved by 3 pages\n",
		"Link: https://lore.kernel.org/r/20241130.1234-1-a@example.org\n",
		"date: 2024-11-30 12:00:05 +0100 (3 s ago)\n",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		struct claim_list l = CLAIM_LIST_INIT;
		char *name = xstrfmt("no claim in '%.40s'", texts[i]);

		is_int(claims_extract(texts[i], &l), 0, name);
		if (l.nr)
			printf("#   '%s'\n", l.v[0].text);
		free(name);
		claim_list_release(&l);
	}
}

/* claim_scale(), the ratios, claim_ratio_format() */
static void test_ratio(void)
{
	struct claim c = make_claim("Plug Memory 512G [KVM]", "| | 512G | 36s | 7s |",
				    -80.555556);
	struct strbuf sb = STRBUF_INIT;
	double size;
	const char *machine;

	c.kind = CLAIM_BEFORE_AFTER;
	c.before = 36000;
	c.after = 7000;
	claim_scale(&c, &size, &machine);
	is_double(size, 512 * GB, EPS, "scale: 512G in the subject");
	is_str(machine, "KVM", "scale: KVM in the subject");
	is_double(claim_ratio(&c), 36.0 / 7, EPS, "ratio: 36 s -> 7 s");
	is_double(claim_ratio_tolerance(36.0 / 7), pow(36.0 / 7, 1.0 / 3), EPS,
		  "tolerance of 5.14x: its cube root");
	is_double(claim_ratio_tolerance(1.1), CLAIM_RATIO_FLOOR, EPS,
		  "tolerance of 1.1x: the floor");
	is_double(claim_ratio_tolerance(1 / 1.1), CLAIM_RATIO_FLOOR, EPS,
		  "tolerance of a slowdown: the same as of the speedup");
	/* 5.14x claimed holds from 5.14 / 1.726 = 2.98x to 8.88x */
	is_int(claim_ratio_agree(&c, (1 / 3.0 - 1) * 100), CLAIM_AGREES,
	       "3x measured: holds");
	is_int(claim_ratio_agree(&c, (1 / 2.9 - 1) * 100),
	       CLAIM_SAME_DIRECTION_SMALLER, "2.9x measured: smaller");
	is_int(claim_ratio_agree(&c, (1 / 9.0 - 1) * 100),
	       CLAIM_SAME_DIRECTION_LARGER, "9x measured: larger");
	is_int(claim_ratio_agree(&c, 10), CLAIM_OPPOSITE,
	       "+10 % measured: opposite");
	is_int(claim_ratio_agree(&c, NAN), CLAIM_NOT_MEASURED, "no measurement");

	claim_ratio_format(&c, (1 / 3.0 - 1) * 100, 16 * GB, "TCG/icount", &sb);
	is_str(sb.buf, "claimed 5.14x at 512 GB on KVM; measured 3.00x at "
		       "16 GB under TCG/icount: holds (within 1.73x); measured "
		       "at another size and machine than claimed",
	       "format: both ratios, both scales, the difference");
	strbuf_reset(&sb);
	claim_ratio_format(&c, (1 / 2.0 - 1) * 100, 512 * GB, "KVM", &sb);
	is_str(sb.buf, "claimed 5.14x at 512 GB on KVM; measured 2.00x at "
		       "512 GB under KVM: does not hold (smaller than claimed; "
		       "2.98x..8.88x would)",
	       "format: same scale, outside the tolerance");
	strbuf_reset(&sb);

	c = make_claim("vmalloc_huge(1 MB)", "vmalloc_huge(1 MB) is 1.35x faster",
		       (1 / 1.35 - 1) * 100);
	c.kind = CLAIM_FACTOR;
	is_double(claim_ratio(&c), 1.35, EPS, "ratio of a factor claim");
	claim_ratio_format(&c, -24, 1, NULL, &sb);
	is_str(sb.buf, "claimed 1.35x at 1 MB; measured 1.32x at 1 MB: holds "
		       "(within 1.11x)",
	       "format: no machine on either side");
	strbuf_release(&sb);
}

/* the reference mails of the series mmci was built for */
#define REFERENCE_DIR "../shared/fixtures/reference"

struct reference {
	const char *file;
	const struct scaled *c;
	size_t nr;
};

static const struct scaled ref_v11[] = {
	{ 39, CLAIM_BEFORE_AFTER, 221.07, 155.00, "ms", "fsdax",
	  "rebind_memmap", 100 * GB, "VM" },
};

static const struct scaled ref_v8[] = {
	{ 60, CLAIM_BEFORE_AFTER, 1456, 1272, "ms", "fsdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 61, CLAIM_BEFORE_AFTER, 244.28, 96.79, "ms", "fsdax",
	  "rebind_memmap", 100 * GB, "VM" },
	{ 63, CLAIM_BEFORE_AFTER, 1462, 1354, "ms", "devdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 64, CLAIM_BEFORE_AFTER, 273.31, 119.04, "ms", "devdax",
	  "rebind_memmap", 100 * GB, "VM" },
	{ 90, CLAIM_BEFORE_AFTER, 179, 82, "ms", "fsdax", "rebind_memmap",
	  100 * GB, "physical host" },
	{ 91, CLAIM_BEFORE_AFTER, 264, 113, "ms", "devdax", "rebind_memmap",
	  100 * GB, "physical host" },
	{ 113, CLAIM_BEFORE_AFTER, 116.689362, 54.607108, "ms", "memremap",
	  "memremap_memmap", 64 * GB, "physical host" },
	{ 433, CLAIM_BEFORE_AFTER, 1456, 1440, "ms", "fsdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 434, CLAIM_BEFORE_AFTER, 244.28, 217.19, "ms", "fsdax",
	  "rebind_memmap", 100 * GB, "VM" },
	{ 569, CLAIM_BEFORE_AFTER, 1462, 1403, "ms", "devdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 570, CLAIM_BEFORE_AFTER, 273.31, 244.37, "ms", "devdax",
	  "rebind_memmap", 100 * GB, "VM" },
	{ 970, CLAIM_BEFORE_AFTER, 1456, 1272, "ms", "fsdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 971, CLAIM_BEFORE_AFTER, 244.28, 96.79, "ms", "fsdax",
	  "rebind_memmap", 100 * GB, "VM" },
	{ 973, CLAIM_BEFORE_AFTER, 1462, 1354, "ms", "devdax",
	  "first_bind_memmap", 100 * GB, "VM" },
	{ 974, CLAIM_BEFORE_AFTER, 273.31, 119.04, "ms", "devdax",
	  "rebind_memmap", 100 * GB, "VM" },
};

#define CXL(b, a, what, size) \
	{ 1, CLAIM_BEFORE_AFTER, b, a, "ms", "virtio-mem", what, size * GB, \
	  "physical host" }

/* the reply's own CXL tables; the quoted virtio-mem ones are not its claims */
static const struct scaled ref_hotplug[] = {
	CXL(6700, 4400, "plug", 256), CXL(18000, 8700, "plug", 512),
	CXL(2800, 2600, "unplug", 256), CXL(5200, 5000, "unplug", 512),
	CXL(4500, 4400, "plug", 256), CXL(18600, 6600, "plug", 512),
	CXL(2200, 2600, "unplug", 256), CXL(5200, 4200, "unplug", 512),
	CXL(3300, 4400, "plug", 256), CXL(6700, 6600, "plug", 512),
	CXL(2200, 2600, "unplug", 256), CXL(4400, 4200, "unplug", 512),
};

static const struct scaled ref_vmalloc[] = {
	{ 1, CLAIM_BEFORE_AFTER, 0.003407, 0.002526, "ms", "vmap",
	  "ioremap_1m", 1, "physical host" },
	{ 1, CLAIM_BEFORE_AFTER, 0.005, 0.00353, "ms", "vmap",
	  "vmalloc_huge_1m", 1, "physical host" },
	{ 1, CLAIM_BEFORE_AFTER, 1.235, 0.149, "ms", "vmap",
	  "vmap_100m_order8", 100, "physical host" },
};

static const struct reference references[] = {
	{ "zone-device-memmap-v11-3of7-template-fast-path.txt", ref_v11,
	  ARRAY_SIZE(ref_v11) },
	{ "zone-device-memmap-v8-0of9-thread.txt", ref_v8, ARRAY_SIZE(ref_v8) },
	{ "memory-hotplug-zone-contiguous-reply-with-cxl-tables.txt",
	  ref_hotplug, ARRAY_SIZE(ref_hotplug) },
	{ "vmalloc-contiguous-v12-00of10-cover.txt", ref_vmalloc,
	  ARRAY_SIZE(ref_vmalloc) },
};

/*
 * the flattened mm-commits notice: its blocks are run together on one
 * line, so only the sentences that restate them in percent are claims
 */
static void check_reference_notice(size_t *claims, size_t *matched)
{
	struct strbuf sb = STRBUF_INIT;
	struct claim_list l = CLAIM_LIST_INIT;
	static const double change[] = { -67.5, -66.4, -59.9, -48.0 };
	const char *path = REFERENCE_DIR "/mm-commits-mm-new-added-zone-device-refcount-comment.txt";
	size_t i, good = 0;
	int score;
	size_t ties;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		ok(0, path);
		return;
	}
	is_int(claims_extract(sb.buf, &l), ARRAY_SIZE(change),
	       "notice: its four percent claims");
	for (i = 0; i < l.nr && i < ARRAY_SIZE(change); i++) {
		good += l.v[i].kind == CLAIM_PERCENT &&
			fabs(l.v[i].change_pct - change[i]) <= EPS;
		best_metric(&l.v[i], &score, &ties);
		*matched += score >= CLAIM_MIN_SCORE;
	}
	*claims += l.nr;
	is_int(good, ARRAY_SIZE(change), "notice: each percent as written");
	claim_list_release(&l);
	strbuf_release(&sb);
}

static void test_reference(void)
{
	struct stat st;
	size_t i, claims = 0, matched = 0;

	if (stat(REFERENCE_DIR, &st) || !S_ISDIR(st.st_mode)) {
		skip("claims of the reference mails", REFERENCE_DIR " absent");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(references); i++) {
		char *path = xstrfmt("%s/%s", REFERENCE_DIR, references[i].file);
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, path, 0) < 0) {
			ok(0, path);
		} else {
			matched += check_scaled_text(references[i].file, sb.buf,
						     references[i].c,
						     references[i].nr);
			claims += references[i].nr;
		}
		strbuf_release(&sb);
		free(path);
	}
	check_reference_notice(&claims, &matched);
	printf("# reference mails: %zu of %zu claims match a metric\n",
	       matched, claims);
	is_int(matched, claims, "reference mails: every claim matches a "
				"measured metric (it was 0 of 5)");
}

/* every file under @dir, recursively, in readdir order */
static void collect_files(const char *dir, char ***files, size_t *nr,
			  size_t *alloc)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		ok(0, "fixture directory readable");
		printf("#   cannot open '%s'\n", dir);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (de->d_name[0] == '.')
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		if (stat(path, &st)) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			collect_files(path, files, nr, alloc);
			free(path);
		} else if (S_ISREG(st.st_mode)) {
			ALLOC_GROW(*files, *nr + 1, *alloc);
			(*files)[(*nr)++] = path;
		} else {
			free(path);
		}
	}
	closedir(d);
}

static void report_claims(const struct claim_list *l)
{
	size_t i;

	for (i = 0; i < l->nr && i < 5; i++)
		printf("#   line %u: '%s'\n", l->v[i].line, l->v[i].text);
}

/* a claim a fixture holds: before/after, or a change when before is NAN */
struct file_claim {
	size_t mail;		/* the mail of the file that holds it */
	double before, after;	/* in unit; NAN, change_pct */
	const char *unit;
	const char *subject;	/* a part of its subject */
};

/*
 * @path's claims are @want: in the raw file and in the decoded bodies
 * (mbox.c undoes QP and base64); every cut of it every 997 bytes yields
 * at most as many, without a crash
 */
static void check_file(const char *path, const struct file_claim *want,
		       size_t nr_want)
{
	struct strbuf sb = STRBUF_INIT;
	struct claim_list l = CLAIM_LIST_INIT;
	struct mail *mails = NULL;
	size_t nmails = 0, j, k, cut, found = 0, bad = 0;
	char *name;
	int n;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		ok(0, path);
		printf("#   cannot read '%s'\n", path);
		return;
	}
	n = claims_extract(sb.buf, &l);
	name = xstrfmt("%s: %zu claim(s) in the raw file", path, nr_want);
	is_int(n, nr_want, name);
	report_claims(&l);
	free(name);
	claim_list_release(&l);

	if (!mbox_parse(sb.buf, sb.len, &mails, &nmails)) {
		for (j = 0; j < nmails; j++) {
			if (claims_extract(mails[j].body.buf, &l) < 0)
				bad++;
			for (k = 0; k < l.nr; k++, found++) {
				const struct claim *c = &l.v[k];
				const struct file_claim *w =
					found < nr_want ? &want[found] : NULL;

				if (!w || w->mail != j ||
				    (isnan(w->before) ?
					     c->kind == CLAIM_BEFORE_AFTER ||
						     fabs(c->change_pct -
							  w->after) > EPS :
					     c->kind != CLAIM_BEFORE_AFTER ||
						     fabs(c->before - w->before) > EPS ||
						     fabs(c->after - w->after) > EPS ||
						     fabs(c->change_pct -
							  (w->after / w->before - 1) *
								  100) > EPS) ||
				    strcmp(c->unit, w->unit) ||
				    !strstr(c->subject, w->subject)) {
					bad++;
					printf("#   mail %zu line %u: %g -> %g %s, '%s'\n",
					       j, c->line, c->before, c->after,
					       c->unit, c->subject);
				}
			}
			claim_list_release(&l);
		}
	}
	name = xstrfmt("%s: %zu claim(s) in %zu decoded bodies, as expected",
		       path, nr_want, nmails);
	ok(found == nr_want && !bad, name);
	free(name);
	mails_free(mails, nmails);

	bad = 0;
	for (cut = 997; cut < sb.len; cut += 997) {
		char *part = xstrndup(sb.buf, cut);

		if (claims_extract(part, &l) < 0 || l.nr > nr_want)
			bad++;
		claim_list_release(&l);
		free(part);
	}
	name = xstrfmt("%s: at most %zu claim(s) in any truncated copy", path,
		       nr_want);
	is_int(bad, 0, name);
	free(name);
	strbuf_release(&sb);
}

/* the claims of tests/fixtures/mbox; its other files hold none */
static const struct {
	const char *file;
	size_t nr;
	struct file_claim c[14];
} own_claims[] = {
	{ "vmalloc-huge-vmap-v2.mboxrd", 3, {
		{ 0, 1.890, 0.212, "ms", "vmap 100M" },
		{ 0, 0.640, 0.118, "ms", "vunmap 100M" },
		{ 3, 1.890, 0.212, "ms", "" } } },
	{ "vmalloc-huge-vmap-v1.mbox", 1, {
		{ 0, 1.890, 0.240, "ms", "vmap() of 100 MB of order-9 pages" } } },
	{ "memmap-pageblock-v2-v3-reroll.mbox", 1, {
		{ 0, 131, 97, "ms", "rebind memmap" } } },
	{ "zswap-batch-v4-version-on-cover.mbox", 1, {
		{ 0, 210, 480, "MB/s", "throughput" } } },
	{ "zswap-batch-v4-truncated.mbox", 1, {
		{ 0, 210, 480, "MB/s", "throughput" } } },
	{ "hotplug-claims-wordings-v3.mbox", 14, {
		{ 0, 12400, 3100, "ms", "Plug Memory 256G" },
		{ 0, 40000, 6500, "ms", "Plug Memory 512G" },
		{ 0, 9800, 4000, "ms", "Unplug Memory 256G" },
		{ 0, 31000, 7900, "ms", "Unplug Memory 512G" },
		{ 0, 2410, 1120, "ms", "online [kmem, 128 GB" },
		{ 0, 1950, 1900, "ms", "offline [kmem, 128 GB" },
		{ 0, 310.4, 121.7, "ms", "64 GB devdax namespace" },
		{ 0, 0.0041, 0.00256, "ms", "ioremap(2 MB)" },
		{ 0, 1.19, 0.151, "ms", "vmap(100MB) of order-8 pages" },
		{ 0, NAN, -25.925926, "x", "vmalloc_huge(1 MB)" },
		{ 1, 233.9, 158.2, "ms", "(nd_pmem) [100 GB, KVM]" },
		{ 1, NAN, -18.032787, "%", "virtio-mem unplug of a 64 GB" },
		{ 2, 2500, 1500, "ms", "memmap_init_zone_device()" },
		{ 2, 0.91, 0.40, "ms", "vfree() of a 1 MB huge mapping" } } },
};

static void test_own_fixtures(void)
{
	char **files = NULL;
	size_t nr = 0, alloc = 0, i, k, seen = 0;

	collect_files(OWN_FIXTURES, &files, &nr, &alloc);
	ok(nr >= 18, "at least 18 files of our own");
	for (i = 0; i < nr; i++) {
		const char *base = strrchr(files[i], '/') + 1;

		for (k = 0; k < ARRAY_SIZE(own_claims); k++)
			if (!strcmp(base, own_claims[k].file))
				break;
		if (k < ARRAY_SIZE(own_claims)) {
			check_file(files[i], own_claims[k].c, own_claims[k].nr);
			seen++;
		} else {
			check_file(files[i], NULL, 0);
		}
		free(files[i]);
	}
	free(files);
	is_int(seen, ARRAY_SIZE(own_claims), "every file with claims was read");
}

/* the real mails hold no performance claim */
static void test_fixtures(void)
{
	char **files = NULL;
	size_t nr = 0, alloc = 0, i;

	collect_files(shared_fixtures_dir(), &files, &nr, &alloc);
	ok(nr >= 18, "at least 18 fixture files");
	for (i = 0; i < nr; i++) {
		check_file(files[i], NULL, 0);
		free(files[i]);
	}
	free(files);
}

/* every prefix of every example: no crash, no claim out of thin air */
static void test_prefixes(void)
{
	size_t i, k;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(inline_claims); i++) {
		const char *t = inline_claims[i].text;

		for (k = 0; k <= strlen(t); k++) {
			struct claim_list l = CLAIM_LIST_INIT;
			char *p = xstrndup(t, k);

			if (claims_extract(p, &l) < 0 || l.nr > 1)
				bad++;
			claim_list_release(&l);
			free(p);
		}
	}
	is_int(bad, 0, "every prefix of every example: at most one claim");
}

/*
 * Text from mail is text: the controls a sender may put in a claim line
 * (an ANSI escape sequence, C1 CSI as UTF-8 and as a lone byte, DEL, BEL,
 * the bidi override U+202E) each become one U+FFFD in the claim's text
 * and subject (mail_clean_text() in mbox.c), so the database, the pages,
 * the mails and a terminal never get them; a tab becomes a space. The
 * claim itself is still found, with its numbers.
 */
static void test_hostile_text(void)
{
	struct claim_list l = CLAIM_LIST_INIT;
	const char *line = "fsdax \x1b[31mrebind\x1b[0m \xe2\x80\xae"
			   "tnirp\xc2\x9b" "2J\x9b\x7f\x07:\t221 ms -> 72 ms";
	size_t i;
	int clean = 1;

	is_int(claims_extract(line, &l), 1, "hostile line: one claim");
	if (l.nr != 1)
		goto out;
	ok(fabs(l.v[0].before - 221) <= EPS && fabs(l.v[0].after - 72) <= EPS,
	   "hostile line: 221 -> 72 ms");
	is_str(l.v[0].text, "fsdax \xef\xbf\xbd[31mrebind\xef\xbf\xbd[0m "
	       "\xef\xbf\xbdtnirp\xef\xbf\xbd" "2J\xef\xbf\xbd\xef\xbf\xbd"
	       "\xef\xbf\xbd: 221 ms -> 72 ms",
	       "hostile line: each control one U+FFFD in the text");
	is_str(l.v[0].subject, "fsdax \xef\xbf\xbd[31mrebind\xef\xbf\xbd"
	       "[0m \xef\xbf\xbdtnirp\xef\xbf\xbd" "2J\xef\xbf\xbd"
	       "\xef\xbf\xbd\xef\xbf\xbd",
	       "hostile line: and in the subject");
	claim_list_release(&l);

	/* a table row's label and a labelled block take other paths */
	is_int(claims_extract("    test                  base      patched\n"
			      "    \x1b]0;pwned\x07rebind    221 ms    72 ms\n"
			      "\n"
			      "\xe2\x81\xa6zap\xe2\x81\xa9 \xd8\x9c\xe2\x80\x8f"
			      "on rebind\xe2\x80\x8e\n"
			      "Before: 10 ms\n"
			      "After:  5 ms\n", &l),
	       2, "hostile table row and labelled lines: two claims");
	for (i = 0; i < l.nr; i++) {
		const char *f[] = { l.v[i].text, l.v[i].subject };
		size_t k;

		printf("#   text '%s', subject '%s'\n", l.v[i].text,
		       l.v[i].subject);
		for (k = 0; k < 2; k++)
			if (strpbrk(f[k], "\x1b\x07\x7f") ||
			    strstr(f[k], "\xe2\x81\xa6") ||
			    strstr(f[k], "\xe2\x81\xa9") ||
			    strstr(f[k], "\xd8\x9c") ||
			    strstr(f[k], "\xe2\x80\x8f") ||
			    strstr(f[k], "\xe2\x80\x8e"))
				clean = 0;
	}
	ok(clean, "hostile table and labelled lines: no control left");
	if (l.nr == 2)
		is_str(l.v[0].subject, "\xef\xbf\xbd]0;pwned\xef\xbf\xbdrebind",
		       "hostile table row: its label cleaned");
out:
	claim_list_release(&l);
}

int main(void)
{
	static const struct shared_case shared[] = {
		{ "real mails: no claim in any", test_fixtures },
	};

	test_inline();
	test_tables();
	test_several();
	test_not_claims();
	test_mbox_structure();
	test_match();
	test_agree();
	test_scaled_inline();
	test_scaled_not_claims();
	test_ratio();
	test_wordings_fixture();
	test_reference();
	test_own_fixtures();
	run_shared_cases(shared, ARRAY_SIZE(shared));
	test_prefixes();
	test_hostile_text();
	return done_testing();
}
