// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries and base-vs-new comparison of benchmark samples.
 *
 * The workload: a few to a few dozen values per side (boots in wall-clock
 * mode, rebinds in icount mode), compared once per metric per patch. Sizes
 * are small, so clarity beats speed: the exact Mann-Whitney distribution is
 * a table of at most 50 x 2500 doubles, the Hodges-Lehmann estimator sorts
 * all nb * nn differences, the bootstrap draws 2000 resamples.
 *
 * The decision rules and why they are what they are live in stats.h.
 */
#include <math.h>
#include <stdarg.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"
#include "util.h"

/* above this many values on a side, the rank test uses the normal law */
#define MW_EXACT_MAX 50

static const char *const method_none = "none";
static const char *const method_resolution = "resolution";
static const char *const method_table[2][2] = {
	/* [bootstrap][exact] */
	{ "welch-t on means, mann-whitney normal",
	  "welch-t on means, mann-whitney exact" },
	{ "bootstrap median ratio, mann-whitney normal",
	  "bootstrap median ratio, mann-whitney exact" },
};

/* return -1 with an error naming how many of the n values are NaN or inf */
static int check_finite(const char *what, const double *x, size_t n)
{
	size_t i, bad = 0, first = 0;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	if (!bad)
		return 0;
	return error("%s%s%zu of %zu values %s not finite (NaN or inf), first at index %zu",
		     what ? what : "", what ? ": " : "", bad, n,
		     bad == 1 ? "is" : "are", first);
}

static void summary_clear(struct summary *s)
{
	s->n = 0;
	s->min = s->max = s->median = s->mean = NAN;
	s->stddev = s->cv = s->q1 = s->q3 = NAN;
}

static void summarize_finite(const double *x, size_t n, struct summary *out)
{
	double *s;

	summary_clear(out);
	out->n = n;
	if (!n)
		return;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = gsl_stats_median_from_sorted_data(s, 1, n);
	out->q1 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.25);
	out->q3 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.75);
	out->mean = gsl_stats_mean(s, 1, n);
	if (n >= 2) {
		out->stddev = gsl_stats_sd_m(s, 1, n, out->mean);
		if (out->mean != 0)
			out->cv = out->stddev / out->mean;
	}
	free(s);
}

int summarize(const double *x, size_t n, struct summary *out)
{
	summary_clear(out);
	if (check_finite(NULL, x, n) < 0)
		return -1;
	summarize_finite(x, n, out);
	return 0;
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_INSUFFICIENT:
		return "insufficient data";
	case VERDICT_NO_CHANGE:
		return "no significant change";
	case VERDICT_BETTER:
		return "better";
	case VERDICT_WORSE:
		return "worse";
	}
	BUG("unknown verdict %d", (int)v);
}

double hodges_lehmann_shift(const double *base, size_t nb, const double *new,
			    size_t nn)
{
	double *d, shift;
	size_t i, j, k = 0;

	if (!nb || !nn)
		return NAN;
	if (nb > SIZE_MAX / sizeof(*d) / nn)
		BUG("hodges-lehmann on %zu x %zu values overflows", nb, nn);
	d = xmalloc(nb * nn * sizeof(*d));
	for (i = 0; i < nb; i++)
		for (j = 0; j < nn; j++)
			d[k++] = new[j] - base[i];
	gsl_sort(d, 1, k);
	shift = gsl_stats_median_from_sorted_data(d, 1, k);
	free(d);
	return shift;
}

struct ranked {
	double v;
	int from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v;
	double y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Exact null distribution of U for sizes m, n without ties: the number of
 * orderings with U = u is the coefficient of q^u in the Gaussian binomial
 * [m+n choose m], built with f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u).
 * Rows i = 0..m of length m*n+1 are updated in place for j = 1..n. Counts
 * reach C(98, 49) ~ 2.5e28: doubles keep the relative precision we need.
 * Returns P(U <= u) and P(U >= u).
 */
static void mw_exact_tails(size_t m, size_t n, size_t u, double *le,
			   double *ge)
{
	size_t len = m * n + 1, i, j, k;
	double *f = xcalloc((m + 1) * len, sizeof(*f));
	double total = 0, below = 0, above = 0;

	for (i = 0; i <= m; i++)
		f[i * len] = 1;	/* j = 0: only U = 0 */
	/*
	 * Row i holds f(i, j-1, .) before the update; row i-1 was already
	 * brought to j (row 0 never changes), so rows go upward.
	 */
	for (j = 1; j <= n; j++)
		for (i = 1; i <= m; i++)
			for (k = j; k < len; k++)
				f[i * len + k] += f[(i - 1) * len + k - j];
	for (k = 0; k < len; k++) {
		double c = f[m * len + k];

		total += c;
		if (k <= u)
			below += c;
		if (k >= u)
			above += c;
	}
	free(f);
	*le = below / total;
	*ge = above / total;
}

double mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny,
		      int *exact)
{
	size_t n = nx + ny, i, j, k;
	struct ranked *r;
	double rank_sum = 0, ties = 0, u, p;
	int has_ties = 0;

	if (exact)
		*exact = 0;
	if (!nx || !ny)
		return NAN;
	r = xmalloc(n * sizeof(*r));
	for (i = 0; i < nx; i++) {
		r[i].v = x[i];
		r[i].from_x = 1;
	}
	for (i = 0; i < ny; i++) {
		r[nx + i].v = y[i];
		r[nx + i].from_x = 0;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double t, mid;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		mid = (double)(i + 1 + j) / 2;	/* mean of ranks i+1 .. j */
		if (j - i > 1) {
			has_ties = 1;
			ties += t * t * t - t;
		}
		for (k = i; k < j; k++)
			if (r[k].from_x)
				rank_sum += mid;
	}
	free(r);
	u = rank_sum - (double)nx * (nx + 1) / 2;

	if (!has_ties && nx < MW_EXACT_MAX && ny < MW_EXACT_MAX) {
		double le, ge;

		/* without ties u is an integer in 0 .. nx*ny */
		mw_exact_tails(nx, ny, (size_t)llround(u), &le, &ge);
		if (exact)
			*exact = 1;
		p = 2 * fmin(le, ge);
	} else {
		double dn = (double)n;
		double var = (double)nx * ny / 12 *
			     ((dn + 1) - ties / (dn * (dn - 1)));
		double z = u - (double)nx * ny / 2;

		if (var <= 0)
			return 1;	/* every value equal: no evidence */
		z -= z > 0 ? 0.5 : z < 0 ? -0.5 : 0;
		z /= sqrt(var);
		p = 2 * fmin(gsl_cdf_ugaussian_P(z), gsl_cdf_ugaussian_Q(z));
	}
	return fmin(p, 1);
}

double mann_whitney_min_p(size_t nx, size_t ny)
{
	double c = 1;
	size_t k;

	if (!nx || !ny)
		return 1;
	for (k = 1; k <= nx; k++)	/* C(nx+ny, nx), exactly for small sizes */
		c = c * (double)(ny + k) / (double)k;
	return fmin(2 / c, 1);
}

/* Welch standard error and Satterthwaite df from summary statistics */
static void welch_se_df(double sd_b, size_t nb, double sd_n, size_t nn,
			double *se, double *df)
{
	double a = sd_b * sd_b / (double)nb;
	double b = sd_n * sd_n / (double)nn;

	*se = sqrt(a + b);
	if (a + b > 0)
		*df = (a + b) * (a + b) /
		      (a * a / (double)(nb - 1) + b * b / (double)(nn - 1));
	else
		*df = NAN;
}

int welch_ci(const double *base, size_t nb, const double *new, size_t nn,
	     double level, double *lo, double *hi, double *df)
{
	double mb, mn, se, nu, diff, t;

	*lo = *hi = NAN;
	if (df)
		*df = NAN;
	if (nb < 2 || nn < 2)
		return error("welch interval needs 2 values a side, got %zu and %zu",
			     nb, nn);
	if (!(level > 0 && level < 1))
		return error("confidence level %g is not in (0, 1)", level);
	mb = gsl_stats_mean(base, 1, nb);
	mn = gsl_stats_mean(new, 1, nn);
	welch_se_df(gsl_stats_sd_m(base, 1, nb, mb), nb,
		    gsl_stats_sd_m(new, 1, nn, mn), nn, &se, &nu);
	diff = mn - mb;
	if (se > 0) {
		t = gsl_cdf_tdist_Pinv(0.5 + level / 2, nu);
		*lo = diff - t * se;
		*hi = diff + t * se;
	} else {
		*lo = *hi = diff;
	}
	if (df)
		*df = nu;
	return 0;
}

int bootstrap_median_ratio_ci(const double *base, size_t nb,
			      const double *new, size_t nn, double level,
			      size_t b, unsigned long seed, double *lo_pct,
			      double *hi_pct)
{
	double *rb, *rn, *ratio;
	gsl_rng *rng;
	size_t i, j;
	int ret = 0;

	*lo_pct = *hi_pct = NAN;
	if (!nb || !nn || b < 2)
		return error("bootstrap needs values on both sides and 2 resamples, got %zu, %zu and %zu",
			     nb, nn, b);
	if (!(level > 0 && level < 1))
		return error("confidence level %g is not in (0, 1)", level);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		die("out of memory allocating a random number generator");
	gsl_rng_set(rng, seed);
	rb = xmalloc(nb * sizeof(*rb));
	rn = xmalloc(nn * sizeof(*rn));
	ratio = xmalloc(b * sizeof(*ratio));
	for (i = 0; i < b; i++) {
		double mb, mn;

		for (j = 0; j < nb; j++)
			rb[j] = base[gsl_rng_uniform_int(rng, nb)];
		for (j = 0; j < nn; j++)
			rn[j] = new[gsl_rng_uniform_int(rng, nn)];
		mb = gsl_stats_median(rb, 1, nb);	/* reorders rb */
		mn = gsl_stats_median(rn, 1, nn);
		if (!(mb > 0)) {
			ret = error("bootstrap base median %g is not positive", mb);
			goto out;
		}
		ratio[i] = mn / mb;
	}
	gsl_sort(ratio, 1, b);
	*lo_pct = (gsl_stats_quantile_from_sorted_data(ratio, 1, b,
						       (1 - level) / 2) - 1) * 100;
	*hi_pct = (gsl_stats_quantile_from_sorted_data(ratio, 1, b,
						       (1 + level) / 2) - 1) * 100;
out:
	free(ratio);
	free(rn);
	free(rb);
	gsl_rng_free(rng);
	return ret;
}

static void set_reason(struct comparison *c, const char *fmt, ...)
	PRINTF(2, 3);

static void set_reason(struct comparison *c, const char *fmt, ...)
{
	va_list ap;

	/* a truncated diagnostic line is harmless; no BUG() here */
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void comparison_clear(struct comparison *c)
{
	summary_clear(&c->base);
	summary_clear(&c->new);
	c->change_pct = c->ci_lo_pct = c->ci_hi_pct = NAN;
	c->p_value = c->hl_shift = c->detectable_pct = NAN;
	c->verdict = VERDICT_INSUFFICIENT;
	c->ambiguous = 0;
	c->method = method_none;
	c->reason[0] = '\0';
}

static const char *count_str(size_t n, char *buf, size_t len)
{
	if (!n)
		return "no samples";
	if (n == 1)
		return "1 sample";
	snprintf(buf, len, "%zu samples", n);
	return buf;
}

static enum verdict direction(double change, int lower_is_better)
{
	return (change > 0) == !!lower_is_better ? VERDICT_WORSE :
						   VERDICT_BETTER;
}

/* rule 2: both sides constant, the change is exact up to the resolution */
static void compare_constant(const struct compare_opts *o,
			     struct comparison *c)
{
	double b = c->base.median, n = c->new.median;
	double diff = n - b, tick = o->resolution / b * 100;

	c->method = method_resolution;
	c->change_pct = (n / b - 1) * 100;
	c->ci_lo_pct = c->change_pct - tick;
	c->ci_hi_pct = c->change_pct + tick;
	c->detectable_pct = tick;
	if (fabs(diff) <= o->resolution) {
		c->verdict = VERDICT_NO_CHANGE;
		if (diff == 0)
			set_reason(c, "constant values, identical: %g", b);
		else
			set_reason(c, "constant values %g -> %g differ by no more than the resolution %g",
				   b, n, o->resolution);
	} else if (fabs(c->change_pct) < o->min_effect_pct) {
		c->verdict = VERDICT_NO_CHANGE;
		set_reason(c, "constant values %g -> %g: %+.2f %% is below the %g %% threshold",
			   b, n, c->change_pct, o->min_effect_pct);
	} else {
		c->verdict = direction(diff, o->lower_is_better);
		set_reason(c, "constant values %g -> %g (%+.2f %%), more than the resolution %g",
			   b, n, c->change_pct, o->resolution);
	}
}

/* rule 4: the smallest n per side whose exact rank test can reach alpha */
static size_t min_n_per_side(double alpha)
{
	size_t k;

	for (k = 2; k < MW_EXACT_MAX; k++)
		if (mann_whitney_min_p(k, k) < alpha)
			return k;
	return MW_EXACT_MAX;
}

/* the interval of the relative change at @level, in %, widened by @tick */
static void change_interval(const double *base, size_t nb, const double *new,
			    size_t nn, int boot, double center, double level,
			    double tick, double *lo_pct, double *hi_pct)
{
	if (boot) {
		if (bootstrap_median_ratio_ci(base, nb, new, nn, level,
					      STATS_BOOTSTRAP_B,
					      STATS_BOOTSTRAP_SEED, lo_pct,
					      hi_pct) < 0)
			BUG("bootstrap failed on checked input");
	} else {
		double lo, hi;

		if (welch_ci(base, nb, new, nn, level, &lo, &hi, NULL) < 0)
			BUG("welch interval failed on checked input");
		*lo_pct = lo / center * 100;
		*hi_pct = hi / center * 100;
	}
	*lo_pct -= tick;
	*hi_pct += tick;
}

/* rule 3: noisy samples */
static void compare_noisy(const double *base, size_t nb, const double *new,
			  size_t nn, const struct compare_opts *o,
			  struct comparison *c)
{
	double level = 1 - o->alpha, center, diff, se, df, tick, min_p;
	double dlo, dhi;
	int exact, boot = nb >= STATS_BOOTSTRAP_MIN_N &&
			  nn >= STATS_BOOTSTRAP_MIN_N;

	c->p_value = mann_whitney_p(base, nb, new, nn, &exact);
	c->method = method_table[boot][exact];
	center = boot ? c->base.median : c->base.mean;
	diff = (boot ? c->new.median : c->new.mean) - center;
	c->change_pct = diff / center * 100;
	tick = o->resolution / center * 100;
	/* reported: 95 %; decided on: 1 - alpha, as strict as the rank test */
	change_interval(base, nb, new, nn, boot, center, STATS_CI_LEVEL, tick,
			&c->ci_lo_pct, &c->ci_hi_pct);
	change_interval(base, nb, new, nn, boot, center, level, tick, &dlo,
			&dhi);

	welch_se_df(c->base.stddev, nb, c->new.stddev, nn, &se, &df);
	c->detectable_pct = 0;
	if (se > 0)
		c->detectable_pct = (gsl_cdf_tdist_Pinv(1 - o->alpha / 2, df) +
				     gsl_cdf_tdist_Pinv(0.8, df)) *
				    se / c->base.mean * 100;
	c->detectable_pct = fmax(c->detectable_pct,
				 o->resolution / c->base.mean * 100);

	min_p = mann_whitney_min_p(nb, nn);
	if (min_p >= o->alpha) {
		c->verdict = VERDICT_INSUFFICIENT;
		c->ambiguous = 1;
		set_reason(c, "%zu vs %zu samples can never reach p < %g in a rank test (at best %.3g); need %zu per side",
			   nb, nn, o->alpha, min_p, min_n_per_side(o->alpha));
		return;
	}

	c->verdict = VERDICT_NO_CHANGE;
	if (dlo <= 0 && dhi >= 0)
		set_reason(c, "the %g %% interval [%+.2f %%, %+.2f %%] contains 0",
			   level * 100, dlo, dhi);
	else if (!(c->p_value < o->alpha))
		set_reason(c, "p = %.3g is not below %g", c->p_value, o->alpha);
	else if (fabs(c->change_pct) < o->min_effect_pct)
		set_reason(c, "%+.2f %% is below the %g %% threshold",
			   c->change_pct, o->min_effect_pct);
	else if (fabs(diff) <= o->resolution)
		set_reason(c, "difference %g is within the resolution %g",
			   diff, o->resolution);
	else {
		c->verdict = direction(diff, o->lower_is_better);
		set_reason(c, "p = %.3g, %g %% interval [%+.2f %%, %+.2f %%]",
			   c->p_value, level * 100, dlo, dhi);
	}
	if (c->verdict == VERDICT_NO_CHANGE && c->p_value < STATS_AMBIGUOUS_P &&
	    (c->ci_lo_pct < -o->min_effect_pct ||
	     c->ci_hi_pct > o->min_effect_pct))
		c->ambiguous = 1;
}

int compare_samples(const double *base, size_t nb, const double *new,
		    size_t nn, const struct compare_opts *opts,
		    struct comparison *out)
{
	struct compare_opts def = COMPARE_OPTS_INIT;
	char b1[32], b2[32];

	comparison_clear(out);
	if (!opts)
		opts = &def;
	if (!(opts->alpha > 0 && opts->alpha < 1) ||
	    !(opts->resolution >= 0 && isfinite(opts->resolution)) ||
	    !(opts->min_effect_pct >= 0 && isfinite(opts->min_effect_pct))) {
		set_reason(out, "invalid comparison options");
		return error("invalid comparison options: alpha %g, resolution %g, min effect %g %%",
			     opts->alpha, opts->resolution,
			     opts->min_effect_pct);
	}
	if (check_finite("base", base, nb) < 0 ||
	    check_finite("new", new, nn) < 0) {
		set_reason(out, "values that are not finite");
		return -1;
	}
	summarize_finite(base, nb, &out->base);
	summarize_finite(new, nn, &out->new);

	/* rule 1 */
	out->ambiguous = nb < 2 || nn < 2;
	if (nb < 2 && nn < 2) {
		set_reason(out, "base has %s and new has %s, need at least 2 each",
			   count_str(nb, b1, sizeof(b1)),
			   count_str(nn, b2, sizeof(b2)));
		return 0;
	}
	if (nb < 2 || nn < 2) {
		set_reason(out, "%s has %s, need at least 2",
			   nb < 2 ? "base" : "new",
			   count_str(nb < 2 ? nb : nn, b1, sizeof(b1)));
		return 0;
	}
	if (!(out->base.min > 0)) {
		set_reason(out, "base has a value <= 0 (%g), a relative change is undefined",
			   out->base.min);
		return 0;
	}
	out->hl_shift = hodges_lehmann_shift(base, nb, new, nn);

	if (out->base.min == out->base.max && out->new.min == out->new.max)
		compare_constant(opts, out);
	else
		compare_noisy(base, nb, new, nn, opts, out);
	return 0;
}
