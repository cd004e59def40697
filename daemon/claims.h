/* SPDX-License-Identifier: GPL-2.0 */
/*
 * claims.h - performance claims stated in cover letters and changelogs.
 *
 * mm series say what they gain ("memmap_init_zone_device() 221 ms -> 72
 * ms", "8.3x faster", "reduces ... by 67.5%"); mmci prints the claim next
 * to what it measured. claims_extract() finds the claims in a mail or a
 * whole mbox, claim_match_score() says which mmci metric a claim is about
 * and claim_agree() compares a claim with a measurement.
 *
 * Recognised forms, one line each (tables span lines):
 *  - before/after: "NUM [UNIT] ARROW NUM [UNIT]" with ARROW one of "->",
 *    "-->", "=>", "→", "⇒", "⟶", and "from NUM [UNIT] to NUM [UNIT]". At
 *    least one side must carry a time or throughput unit; a side without a
 *    unit takes the other side's.
 *  - factor: "8.3x faster", "8.3 times faster", "3x slower", "2x speedup",
 *    "speed-up of 3x", "improvement of 2x".
 *  - percent: "NUM% WORD" (faster, slower, speedup, improvement,
 *    regression, reduction, decrease, lower, less, higher, increase, ...),
 *    "VERB ... by [about|~|up to ...] NUM%" (reduce, decrease, cut, improve,
 *    speed up, regress, slow down, increase, ...), "NOUN of NUM%".
 *  - tables: a header line naming a before column and an after column
 *    (before/after, base/patched, old/new, vanilla/patched, unpatched/
 *    patched, without/with, w/o / w/, baseline/..., mainline/...), with an
 *    optional label column and optional other columns (change, delta, %,
 *    speedup, ratio), in plain or "| a | b |" markdown layout, then one
 *    claim per row until a blank or non-row line. The unit is in each
 *    cell or in the header ("before(ms)", "[ms]", "time (ms)").
 *  - labelled lines: "Before: 221 ms" and, at most 6 lines later, "After:
 *    72 ms" (any before/after word of the tables, then a colon, then the
 *    first number after the colon, which needs a time or throughput
 *    unit). The claim's text is both lines joined by " / ", its line the
 *    "after" line; its subject the words after the first colon, else the
 *    line before.
 *  - blocks: a heading line with a before word that ends in a colon and
 *    holds no value ("Base(v7.2-rc1):", "Before:", "base:", "Without the
 *    patch:"), lines "LABEL: NUM UNIT" (blank lines between groups
 *    allowed), then an after heading ("With this series applied:",
 *    "After:", "patched:") and the same lines with the new values. An
 *    after line pairs with the before line of the same label, else with
 *    the one at its place; the claim's subject is the label, its text
 *    both lines joined by " / ". A label that names no workload takes
 *    the one of its group ("First binding for nd_pmem driver: ..." then
 *    "Average of subsequent rebinds: ...").
 *  - tables also in grid layout ("+----+------+" rules, "| Plug Memory |
 *    256G | 10s | 3s | 70% |"), with "Time (before)" / "Time (after)"
 *    headings and a Size column: a row whose label is only a size takes
 *    the label of the row above ("Plug Memory 512G").
 *  - a sentence wrapped over lines is read as one: "This reduces the
 *    time measured during rebind\nfrom 221.07 ms to 155.00 ms" has the
 *    whole sentence as its text and subject, and its line is the line
 *    where the claim ends.
 *  - lines longer than 998 characters (a whole mail or paragraph on one
 *    line: mailers that do not wrap, flattened archives) are cut at table
 *    rules, " * " list items and sentence ends, and each piece is read as
 *    a line; a piece starting with '>' is quoted, and everything from a
 *    " diff --git " on is the patch.
 *
 * Repeats: a before/after claim with the same values as one found at
 * most 30 lines before in the same mail, and a percent or factor claim
 * whose change equals such a before/after claim's to the mail's rounding
 * (half a point, or 2 % of the change) restate it and are dropped: "from
 * 221.07 ms to 155.00 ms, or about 29.9%" after a Base/With block.
 *
 * Context: what the mail says around a claim is added to its subject in
 * brackets, when the claim's own line lacks it: the workload and what was
 * timed (words of the paragraph before a block or table: nd_pmem,
 * dax_pmem, memmap, online, ...), the last memory size of 1 GiB or more
 * the mail named ("a 100 GB fsdax namespace"), and the last machine it
 * named (KVM, a VM, a physical host): "Average of subsequent rebinds
 * [nd_pmem, memmap, 100 GB, VM]". claim_scale() reads size and machine
 * back from subject and text, so a claim stored and loaded again keeps
 * them.
 *
 * Units: ns, us/usec/µs, ms/msec, s/sec/seconds, min are times, normalised
 * to "ms" (also time(1)'s "1m36.2s"); GB/s, MB/s, KB/s (to "MB/s"),
 * GiB/s, MiB/s, KiB/s (to "MiB/s"), ops/s, pages/s, req/s and IOPS are
 * throughputs, where higher is better.
 *
 * Not claims (kept out on purpose): mail headers, quoted lines ("> "),
 * everything from a "diff --git", "--- a/", "Index: " or "-- " line until
 * the next mail of an mbox, long lines without spaces (base64), numbers
 * glued to letters, dots or colons ("v6.12", "5.10.y", "0x10", "fe80::1%15",
 * "10.0.0.1", "12:30", "order-8"), arrows between numbers without a time or
 * throughput unit ("Changes v1 -> v2", "0x10 -> 0x20") and percentages
 * without one of the words above ("100% of the time"). Words that only say
 * a number went up or down (increase, higher, more, longer, less, lower,
 * fewer, smaller, shorter) need a perf cue on the line: a time or
 * throughput unit or one of time, latency, runtime, duration, overhead,
 * throughput, bandwidth, speed, performance, cycles, cost, takes. A line
 * with a before/after claim yields no percent or factor claim (they would
 * restate it: "221 ms -> 72 ms, a 67% reduction").
 *
 * change_pct convention: the change of the METRIC's value, new vs base in
 * %, like struct comparison's change_pct in stats.h:
 *  - before/after: (after / before - 1) * 100: 221 -> 72 ms is -67.4;
 *  - quantity words (reduce, reduction, decrease, cut, drop, lower, less,
 *    increase, higher, ...) change the value by the percentage itself:
 *    "reduces X by 67.5%" is -67.5, "a 10% increase" is +10;
 *  - performance words scale the SPEED: "N% faster", "improves by N%",
 *    "N% speedup" mean speed * (1 + N/100), "N% slower", "regresses by N%"
 *    mean speed / (1 + N/100). For a time (the default) "20% faster" is
 *    (1/1.2 - 1) * 100 = -16.7 and "5% slower" is +5; for a throughput
 *    "20% faster" is +20 and "5% slower" is -4.8;
 *  - a percentage written with a sign is the metric's change itself,
 *    whatever the word: "a -12.3% regression of vm-scalability.throughput"
 *    (the kernel test robot's style) is -12.3, "+5% improvement" is +5;
 *  - factors likewise: "8.3x faster" of a time is (1/8.3 - 1) * 100 =
 *    -88.0, "3x slower" is +200; of a throughput +730 and -66.7.
 * A percent or factor claim is about a time unless its line names a
 * throughput (a throughput unit, or the word throughput, bandwidth, IOPS or
 * ops, as in "will-it-scale.per_process_ops").
 */
#ifndef MMCI_CLAIMS_H
#define MMCI_CLAIMS_H

#include <stddef.h>

enum claim_kind {
	CLAIM_BEFORE_AFTER,	/* two values: "221 ms -> 72 ms", table rows */
	CLAIM_PERCENT,		/* a relative change: "reduces ... by 67.5%" */
	CLAIM_FACTOR,		/* a ratio: "8.3x faster" */
};

struct claim {
	enum claim_kind kind;
	/*
	 * what was measured: the line without the numbers and their glue
	 * words ("rebinding a 100 GB fsdax namespace:
	 * memmap_init_zone_device()"), a table row's label, or the text line
	 * before a claim or table that has none; never NULL, may be ""
	 */
	char *subject;
	char *text;		/* the source line, trimmed */
	double before, after;	/* in unit; NAN for PERCENT and FACTOR */
	char unit[16];		/* "ms", "MB/s", "MiB/s", "ops/s", "%", "x" */
	int higher_is_better;	/* 0 for times, 1 for throughputs */
	double change_pct;	/* the metric's change, %: see the convention */
	unsigned line;		/* 1-based line in the text */
	double size_mib;	/* MiB: the memory size it was measured at; 0 */
	char machine[16];	/* "KVM", "VM", "physical host", ...; "" */
};

struct claim_list {
	struct claim *v;
	size_t nr, alloc;
};

#define CLAIM_LIST_INIT { .v = NULL, .nr = 0, .alloc = 0 }

/**
 * claims_extract() - find the performance claims in a mail or mbox
 * @text: NUL-terminated text: one body, one raw mail or a whole mbox
 *	(headers are skipped after every "From " separator)
 * @out: the claims are appended, in line order; the caller releases it
 *	with claim_list_release()
 *
 * Return: the number of claims appended (0 if none), or -1 with an error
 * if @text or @out is NULL.
 */
int claims_extract(const char *text, struct claim_list *out);

/* free every claim and the array; @list is then empty and reusable */
void claim_list_release(struct claim_list *list);

/**
 * claim_match_score() - how well a claim fits one mmci metric
 * @c: the claim; its subject and text are searched
 * @workload: "fsdax", "devdax", "vmap", "memremap", "vmalloc",
 *	"virtio-mem", "kmem" (others work by their own name); may be NULL
 * @variant: the workload's variant (a size, a test name); may be NULL
 * @metric: e.g. "rebind_memmap", "vmap_100m_order8", "plug"; may be NULL
 *
 * Scoring: 30 if the workload or one of its aliases is named (fsdax also
 * by "fs-dax" and "nd_pmem", devdax by "device-dax" and "dax_pmem", vmap
 * by vmap/vunmap/ioremap/iounmap/vmalloc/vfree, memremap by memunmap,
 * virtio-mem by "virtio_mem", kmem by "dax-kmem"); plus 55 times the
 * fraction of the metric's '_'-separated parts that are named, rounded,
 * plus one per named part up to 5, so that of two metrics matched in full
 * the more specific wins (vmalloc_huge_1m over vmalloc_1m); plus 10 if a
 * word of @variant is named; capped at 100. Parts: "1m" matches "1 MB",
 * "1M", "1MiB"; "order8" matches "order-8"; "memmap" matches
 * "memmap_init_zone_device()"; "wall" also "elapsed", "total", "overall".
 * A word matches a part when it is the part or starts with it (parts of
 * 4 letters or more, a final "e" dropped: "online" matches "onlining",
 * "rebind" matches "rebinding"), so "unplug" never matches "plug" and
 * "rebind" never matches "bind". Words come from the subject and the
 * text, split at every character that is not a letter or digit.
 *
 * Return: 0 (unrelated) .. 100. Compare the scores of all metrics and
 * take the best; below about 45 a claim names at most the workload or a
 * single part of the metric, so a caller should not pair them on that
 * alone.
 */
int claim_match_score(const struct claim *c, const char *workload,
		      const char *variant, const char *metric);

/**
 * claim_scale() - the memory size and machine a claim was measured at
 * @c: the claim; its subject, then its text are read
 * @size_mib: set to the first size named ("100 GB", "256G", "1 MB"), MiB;
 *	0 if none (alignments and page sizes are not sizes)
 * @machine: set to "TCG/icount", "TCG", "KVM", "physical host" or "VM"
 *	(the strongest named), or NULL; points to a constant
 */
void claim_scale(const struct claim *c, double *size_mib,
		 const char **machine);

enum claim_agreement {
	CLAIM_AGREES,
	CLAIM_SAME_DIRECTION_SMALLER,
	CLAIM_SAME_DIRECTION_LARGER,
	CLAIM_OPPOSITE,
	CLAIM_NOT_MEASURED,
};

/**
 * claim_agree() - does a measurement bear a claim out?
 * @c: the claim (its change_pct)
 * @measured_pct: the measured change of the same metric, new vs base, %
 * @ci_lo_pct, @ci_hi_pct: its confidence interval, %; NAN if unknown
 *
 * Rules, in order, with c the claimed and m the measured change:
 *  1. c or m NaN -> CLAIM_NOT_MEASURED;
 *  2. the interval is known and holds c -> CLAIM_AGREES;
 *  3. c == 0 (a "no change" claim): AGREES if |m| < 1, else
 *     SAME_DIRECTION_LARGER (there was a change after all);
 *  4. m has c's sign and max(|c|, |m|) <= 1.5 * min(|c|, |m|) ->
 *     CLAIM_AGREES;
 *  5. m has c's sign: |m| < |c| -> SAME_DIRECTION_SMALLER, else
 *     SAME_DIRECTION_LARGER;
 *  6. m is 0 or has the other sign: CLAIM_OPPOSITE if the interval lies
 *     wholly on the other side of 0 from c, or is unknown and m != 0;
 *     otherwise (the interval holds 0: no effect shown)
 *     SAME_DIRECTION_SMALLER.
 */
enum claim_agreement claim_agree(const struct claim *c, double measured_pct,
				 double ci_lo_pct, double ci_hi_pct);

/* "agrees", "smaller than claimed", "larger than claimed", "opposite",
 * "not measured" */
const char *claim_agreement_name(enum claim_agreement a);

/*
 * Ratios. A claim and a measurement are compared as the factor by which
 * the metric got better, base over new for a time (221 -> 72 ms is
 * 3.07x), new over base for a throughput; below 1 it got worse. The
 * claim holds when the measured ratio lies within a factor
 * claim_ratio_tolerance() of the claimed one (docs/STATISTICS.md).
 */
#define CLAIM_RATIO_FLOOR 1.05	/* the tolerance of a small claim */
#define CLAIM_RATIO_EXP (1.0 / 3) /* of a large one: its ratio ^ this */

/* the claimed ratio: from before/after, else from change_pct; NAN */
double claim_ratio(const struct claim *c);

/* max(CLAIM_RATIO_FLOOR, g ^ CLAIM_RATIO_EXP), g = max(r, 1 / r) */
double claim_ratio_tolerance(double ratio);

/**
 * claim_ratio_agree() - does a measured change bear the claimed ratio?
 * @c: the claim
 * @measured_pct: the measured change of the metric, new vs base, %
 *
 * Return: CLAIM_NOT_MEASURED if either is unknown; CLAIM_AGREES if the
 * measured ratio is within the tolerance; CLAIM_OPPOSITE if it is on the
 * other side of 1 (the claim says better, it got worse, or the other way)
 * and outside the tolerance; else SAME_DIRECTION_SMALLER or _LARGER.
 */
enum claim_agreement claim_ratio_agree(const struct claim *c,
				       double measured_pct);

struct strbuf;

/**
 * claim_ratio_format() - the claimed and the measured ratio, and where
 * @c: the claim (its size and machine, see claim_scale())
 * @measured_pct: the measured change, new vs base, %; NAN if none
 * @size_mib: the memory size the workload measured at, MiB; 0 if unknown
 * @machine: where mmci measured ("TCG/icount", "TCG", "KVM"); may be NULL
 * @out: one line is appended, without a newline, e.g. "claimed 3.07x at
 *	100 GB on KVM; measured 2.45x at 16 GB under TCG/icount: holds
 *	(within 1.45x); measured at another size and machine than claimed"
 */
void claim_ratio_format(const struct claim *c, double measured_pct,
			double size_mib, const char *machine,
			struct strbuf *out);

/* --- the claims table (written here only) --- */

struct db;
struct attribution;
struct run_comparison;
struct loaded_series;

/*
 * claims_store() - extract the performance claims of a series' mails
 * (claims.c: cover letter = patch 0, then each patch's changelog) and
 * store them in the claims table, replacing the series' old rows.
 * Return: the number of claims, or -1 after error().
 */
int claims_store(struct db *db, const struct loaded_series *ls);

/*
 * claim_named_patch() - the patch a claim's words name ("Patch 2 reduces
 * ...", "after patch 3/5", "with patch #2"), of a series of @total
 * patches: its number, or 0 when none or more than one is named, or the
 * number is out of range. claims_store() stores it as the claim's step:
 * the claim is then held against that patch's own step.
 */
int claim_named_patch(const char *text, int total);

/*
 * claims_format() - claimed vs measured, one line per stored claim of
 * the series: the metric the claim fits best (claim_match_score() >=
 * CLAIM_MIN_SCORE), the measured change with its interval, and whether
 * they agree in direction and size (claim_agree()). A patch's claim is
 * held against that patch's own effect when @a has per-patch steps,
 * else against the whole series (@final, base vs +N).
 */
#define CLAIM_MIN_SCORE 40
void claims_format(struct db *db, long long series_id,
		   const struct attribution *a,
		   const struct run_comparison *final, struct strbuf *out);

/* a stored claim against what was measured: the mail policy's input */
struct claim_check {
	int patch;		/* 0: the cover letter */
	char *workload, *variant, *metric;	/* the metric it fits; NULL:
						 * none fits (owned) */
	double claimed_pct;	/* the claimed change of the metric, % */
	int claims_better;	/* the claim says the metric got better */
	int measured;		/* enum verdict of that metric (own step or
				 * series, as claims_format() holds it) */
	double measured_pct;	/* %; NAN when not measured */
};

struct claim_checks {
	struct claim_check *v;
	size_t nr, alloc;
};

/**
 * claims_check() - each stored claim of @series_id with the metric it
 * fits and that metric's measured verdict, held against the same
 * comparison as claims_format() holds it (@a, @final)
 * @out: appended to; released with claim_checks_release()
 *
 * Return: 0, or -1 after error() (a failed read).
 */
int claims_check(struct db *db, long long series_id,
		 const struct attribution *a,
		 const struct run_comparison *final, struct claim_checks *out);
void claim_checks_release(struct claim_checks *l);

#endif
