// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - the pages as files: HTML with inline SVG plots under
 * <data>/www, written when what they show changes (see render.h).
 *
 * Workload: a job that ends dirties a handful of pages (its runs, their
 * compare pages, the series, the index, the metric pages of its
 * metrics); the render worker wakes every second and writes those, a few
 * hundred milliseconds of SQL and gnuplot. A first start (or a new
 * RENDER_VERSION) writes every page once: minutes at 10,000 runs, in the
 * background, while the server answers "being rendered" for the pages
 * not written yet. The queries are those the server used to run per
 * request; they run here, in one process, never in a request.
 *
 * Rules of this file: every string that comes from the database or the
 * URL goes through html_esc() (or url_esc() inside an href) - subjects and
 * names come from mail, metric names from the guest; numbers are printed
 * with formats. No die() here: a failing query gives an error line on the
 * page, never a dead renderer.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "compare.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "run-command.h"
#include "run.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"
#include "aim.h"
#include "attribution.h"
#include "changepoint.h"
#include "claims.h"
#include "workload.h"
#include "profile.h"
#include "render.h"
#include "series-job.h"

#define WEB_BUSY_MS 30000		/* ms the renderer waits for a writer */
#define WEB_LIST_LIMIT 50		/* rows in the lists of / */
#define WEB_TREND_RUNS 500		/* newest runs on a metric page */
#define WEB_CONSOLE_TAIL (48 * 1024)	/* bytes of console log shown */
#define WEB_MAX_PLOTS 12		/* metric panels on a compare page */
#define PLOT_TIMEOUT 20			/* s for one gnuplot */

/* the value of one metric in one finished run, as a trend point shows it */
struct run_value {
	char *workload, *variant, *metric, *unit;
	double value;		/* in unit */
	int boots;		/* ok boots with samples */
	size_t n;		/* samples */
};

struct run_values {
	long long run;
	struct run_value *v;
	size_t nr, alloc;
	int failed;		/* the samples could not be read: v is not
				 * all of them, and nothing was cached */
};

struct renderer {
	struct db db;		/* read-write: pages_dirty */
	char *www;		/* <data>/www, absolute */
	char *db_real;		/* the database's absolute path */
	char *gnuplot;		/* absolute path, NULL when not installed */
	int watching;		/* render_loop(): passes so far */
	int pages;		/* files written (changed) */
	int same;		/* files rendered unchanged */
	struct run_values *memo;	/* this pass's run values, by run */
	size_t memo_nr, memo_alloc;
	/* the plots of the pages not stored yet (plots_flush()) */
	char *plot_dir;		/* NULL: no plot yet */
	struct strbuf plot_gp;	/* the gnuplot script */
	int plot_nr;
	struct held_page *held;
	size_t held_nr, held_alloc;
};

/* a page waiting for its plots */
struct held_page {
	char *rel;
	struct strbuf out;
};

/* one page: the renderer's database handle (not owned) and output */
struct page {
	const struct renderer *r;
	struct db db;
	struct strbuf out;
	int status;		/* HTTP status */
	int plots;		/* placeholders of plots in out */
};

/* ---- escaping and formatting ---------------------------------------- */

/*
 * The only way a string from the database or the URL reaches a page:
 * @len bytes of @s, which may hold NUL bytes (a console log written by a
 * guest whose kernel came from an untrusted patch). A NUL is shown as
 * U+2400 SYMBOL FOR NULL, so what follows it stays on the page.
 */
static void html_esc_mem(struct strbuf *sb, const char *s, size_t len)
{
	const char *end = s + len;

	for (; s < end; s++) {
		unsigned char c = *s;

		switch (c) {
		case '\0': strbuf_addstr(sb, "\xe2\x90\x80"); break; /* U+2400 */
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		case '\n':
		case '\t':
			strbuf_addch(sb, c);
			break;
		default:
			/* control characters (console escapes, \r) are dropped */
			if (c >= 0x20 && c != 0x7f)
				strbuf_addch(sb, c);
		}
	}
}

static void html_esc(struct strbuf *sb, const char *s)
{
	html_esc_mem(sb, s, strlen(s));
}

static void h(struct page *pg, const char *s)
{
	html_esc(&pg->out, s);
}

/* percent-encode one path segment or query value */
static void url_esc(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			strbuf_addch(sb, c);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[c >> 4]);
			strbuf_addch(sb, hex[c & 15]);
		}
	}
}

static void add_time(struct strbuf *sb, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (t <= 0 || !gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm)) {
		strbuf_addch(sb, '-');
		return;
	}
	strbuf_addstr(sb, buf);
}

static void add_num(struct page *pg, double v)
{
	strbuf_addnum(&pg->out, v, 0);
}

/* <td>escaped text</td> */
static void td(struct page *pg, const char *s)
{
	strbuf_addstr(&pg->out, "<td>");
	h(pg, s);
	strbuf_addstr(&pg->out, "</td>");
}

static void td_num(struct page *pg, double v)
{
	strbuf_addstr(&pg->out, "<td class=\"num\">");
	add_num(pg, v);
	strbuf_addstr(&pg->out, "</td>");
}

static void td_time(struct page *pg, double t)
{
	strbuf_addstr(&pg->out, "<td class=\"time\">");
	add_time(&pg->out, t);
	strbuf_addstr(&pg->out, "</td>");
}

/* a status cell coloured by its value (ok, failed, running, queued...) */
static void td_status(struct page *pg, const char *status)
{
	strbuf_addstr(&pg->out, "<td class=\"st st-");
	url_esc(&pg->out, status);
	strbuf_addstr(&pg->out, "\">");
	h(pg, status);
	strbuf_addstr(&pg->out, "</td>");
}

/* a row of a key/value table starts with its key, a row header */
#define TH_ROW "<tr><th scope=\"row\">"

static void th_row(struct page *pg, const char *const *names, size_t nr)
{
	size_t i;

	strbuf_addstr(&pg->out, "<thead><tr>");
	for (i = 0; i < nr; i++)
		strbuf_addf(&pg->out, "<th scope=\"col\">%s</th>",
			    names[i]);
	strbuf_addstr(&pg->out, "</tr></thead>\n");
}

/* one row of a key/value table: the key is a literal, the value escaped */
static void kv(struct page *pg, const char *key, const char *value)
{
	strbuf_addf(&pg->out, TH_ROW "%s</th><td>", key);
	h(pg, value && *value ? value : "-");
	strbuf_addstr(&pg->out, "</td></tr>\n");
}

static void kv_time(struct page *pg, const char *key, double t)
{
	strbuf_addf(&pg->out, TH_ROW "%s</th><td>", key);
	add_time(&pg->out, t);
	strbuf_addstr(&pg->out, " UTC</td></tr>\n");
}

static void metric_href(struct page *pg, const char *workload,
			const char *variant, const char *metric)
{
	strbuf_addstr(&pg->out, "/metric/");
	url_esc(&pg->out, workload);
	strbuf_addch(&pg->out, '/');
	url_esc(&pg->out, metric);
	if (*variant) {
		strbuf_addstr(&pg->out, "?variant=");
		url_esc(&pg->out, variant);
	}
}

static void branch_href(struct strbuf *sb, const char *remote,
			const char *branch)
{
	strbuf_addstr(sb, "/branch/");
	url_esc(sb, remote);
	strbuf_addch(sb, '/');
	url_esc(sb, branch);
}

/*
 * The next row of a page's query: 1, or 0 at the end and after an error;
 * an error also marks the page failed, so that page_store() keeps the
 * old file rather than store a page cut short.
 */
static int page_step(struct page *pg, sqlite3_stmt *st)
{
	int rc = db_step(&pg->db, st);

	if (rc < 0 && pg->status == 200)
		pg->status = 500;
	return rc == DB_ROW;
}

/* ---- page frame ------------------------------------------------------ */

/*
 * The frame of a page, up to its <h1>: @script, when not NULL, is the
 * URL of a script of ours (one of web_files[]) that enhances the page;
 * the page shows everything without it.
 */
static void page_head(struct page *pg, const char *title, const char *script)
{
	strbuf_addstr(&pg->out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width\">\n"
		      "<title>");
	h(pg, title);
	strbuf_addstr(&pg->out, " - mmci</title>\n"
		      "<link rel=\"stylesheet\" href=\"/style.css\">\n");
	if (script)
		strbuf_addf(&pg->out, "<script src=\"%s\" defer></script>\n",
			    script);
	strbuf_addstr(&pg->out, "</head>\n<body>\n<nav><a href=\"/\">mmci</a> "
		      "<span>Linux mm performance CI</span></nav>\n<main>\n"
		      "<h1>");
	h(pg, title);
	strbuf_addstr(&pg->out, "</h1>\n");
}

static void page_begin(struct page *pg, const char *title)
{
	page_head(pg, title, NULL);
}

static void page_end(struct page *pg)
{
	strbuf_addstr(&pg->out, "</main>\n<footer>mmci, read-only; times "
		      "are UTC</footer>\n</body>\n</html>\n");
}

/* an error line inside a page that otherwise works */
static void page_note_error(struct page *pg, const char *what)
{
	strbuf_addstr(&pg->out, "<p class=\"err\">");
	h(pg, what);
	strbuf_addstr(&pg->out, "</p>\n");
}

/* replace whatever was rendered by an error page */
static void page_fail(struct page *pg, int status, const char *title,
		      const char *msg)
{
	strbuf_reset(&pg->out);
	pg->status = status;
	page_begin(pg, title);
	strbuf_addstr(&pg->out, "<p class=\"err\" id=\"error\">");
	h(pg, msg);
	strbuf_addstr(&pg->out, "</p>\n<p><a href=\"/\">recent runs</a></p>\n");
	page_end(pg);
}

static void not_found(struct page *pg, const char *what)
{
	page_fail(pg, 404, "404 not found", what);
}

/* ---- input ----------------------------------------------------------- */

/* a positive decimal id, canonical: no sign, no leading zero, no junk */
static int parse_id(const char *s, long long *out)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n] || s[0] == '0' || n > 15)
		return -1;
	*out = strtoll(s, NULL, 10);
	return 0;
}

/* workload and metric names as the runner makes them */
static int valid_name(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789_.-");

	return n && !s[n] && n <= 64;
}

/*
 * a remote or branch name that can be a file name under www/branch/: a
 * valid_name() that does not start with a dot ("..", ".cache")
 */
static int valid_ref_name(const char *s)
{
	return valid_name(s) && s[0] != '.';
}

/* ---- plots: SVG from gnuplot ----------------------------------------- */

struct plot_line {
	char *title;
	const char *with;	/* gnuplot style, NULL: linespoints */
	double *x, *y;
	size_t nr, alloc;
};

#define PLOT_MAX_XTICS 4

struct plot {
	char *title, *xlabel, *ylabel;
	int time_x;		/* x is Unix time */
	/* named ticks at x = 0, 1, ...; 0 of them: numbers */
	char *xtics[PLOT_MAX_XTICS];
	int xtics_nr;
	struct plot_line *lines;
	size_t nr, alloc;
};

static struct plot_line *plot_line(struct plot *p, const char *title)
{
	struct plot_line *l;

	ALLOC_GROW(p->lines, p->nr + 1, p->alloc);
	l = &p->lines[p->nr++];
	memset(l, 0, sizeof(*l));
	l->title = xstrdup(title);
	return l;
}

static void plot_point(struct plot_line *l, double x, double y)
{
	size_t alloc = l->alloc;

	ALLOC_GROW(l->x, l->nr + 1, alloc);
	ALLOC_GROW(l->y, l->nr + 1, l->alloc);
	l->x[l->nr] = x;
	l->y[l->nr++] = y;
}

static void plot_release(struct plot *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->lines[i].title);
		free(p->lines[i].x);
		free(p->lines[i].y);
	}
	free(p->lines);
	free(p->title);
	free(p->xlabel);
	free(p->ylabel);
	for (i = 0; i < (size_t)p->xtics_nr; i++)
		free(p->xtics[i]);
	memset(p, 0, sizeof(*p));
}

/* a gnuplot string literal: only characters that need no quoting */
static void gp_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; s && *s; s++)
		strbuf_addch(sb, isalnum((unsigned char)*s) ||
				 strchr(" _.,:;=+#/()%<>&-", *s) ? *s : '_');
	strbuf_addch(sb, '"');
}

/*
 * Plots are drawn in batches: gnuplot takes 120 ms to start here and a
 * finished job's pages have 7 plots (bench/web.sh), so add_plot() only
 * adds the plot to the pass's gnuplot script and leaves a placeholder
 * in the page; plots_flush() runs one gnuplot for all of them and then
 * stores the pages with each placeholder replaced by its SVG (or by why
 * there is none).
 */
#define PLOT_MARK '\001'	/* "\001N\002": plot N of the batch */

/*
 * the batch: www/.plots-PID-XXXXXX with N.data, all.gp, N.svg; a worker
 * killed with -9 leaves its own, which the next renderer removes
 * (plots_remove_stale()); neither server maps a dot file to a URL
 */
static int plot_batch_dir(struct renderer *r, struct strbuf *why)
{
	char *dir;

	if (r->plot_dir)
		return 0;
	dir = xstrfmt("%s/.plots-%ld-XXXXXX", r->www, (long)getpid());
	if (!mkdtemp(dir)) {
		strbuf_addf(why, "no plot: cannot create a temporary "
			    "directory: %s", strerror(errno));
		free(dir);
		return -1;
	}
	r->plot_dir = dir;
	return 0;
}

/* the batch directories of renderers that are gone */
static void plots_remove_stale(struct renderer *r)
{
	DIR *d = opendir(r->www);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		long pid;
		char *p;

		if (sscanf(de->d_name, ".plots-%ld-", &pid) != 1 || pid <= 0 ||
		    !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		p = xstrfmt("%s/%s", r->www, de->d_name);
		remove_tree(p);
		free(p);
	}
	if (d)
		closedir(d);
}

/*
 * plot_add - add @nr panels (one below the other, @height px each) to the
 * batch. Returns the plot's number, or -1 with @why set.
 */
static int plot_add(struct renderer *r, struct plot *plots, size_t nr,
		    int height, struct strbuf *why)
{
	struct strbuf data = STRBUF_INIT, *gp = &r->plot_gp;
	char *data_p;
	size_t i, j, k, index = 0, panels = 0;
	int n;

	if (!r->gnuplot) {
		strbuf_addstr(why, "no plot: gnuplot is not installed "
			      "(Debian package gnuplot-nox)");
		return -1;
	}
	for (i = 0; i < nr; i++)
		for (j = 0; j < plots[i].nr; j++)
			if (plots[i].lines[j].nr) {
				panels++;
				break;
			}
	if (!panels) {
		strbuf_addstr(why, "no plot: no data");
		return -1;
	}
	if (plot_batch_dir(r, why) < 0)
		return -1;
	n = r->plot_nr;
	data_p = xstrfmt("%s/%d.data", r->plot_dir, n);
	strbuf_addf(gp, "reset\nset terminal svg size 900,%d dynamic "
		    "noenhanced font \"sans,10\" background rgb \"white\"\n"
		    "set output '%s/%d.svg'\n", height * (int)panels,
		    r->plot_dir, n);
	if (panels > 1)
		strbuf_addf(gp, "set multiplot layout %zu,1\n", panels);
	for (i = 0; i < nr; i++) {
		struct plot *p = &plots[i];
		int first = 1;

		for (j = 0; j < p->nr && !p->lines[j].nr; j++)
			;
		if (j == p->nr)
			continue;
		strbuf_addstr(gp, "set title ");
		gp_str(gp, p->title);
		strbuf_addstr(gp, "\nset xlabel ");
		gp_str(gp, p->xlabel);
		strbuf_addstr(gp, "\nset ylabel ");
		gp_str(gp, p->ylabel);
		strbuf_addstr(gp, "\nset grid\nset key below\n"
			      "set autoscale x\n");
		if (p->time_x) {
			strbuf_addstr(gp, "set xdata time\nset timefmt \"%s\"\n"
				      "set format x \"%m-%d\\n%H:%M\"\n");
		} else if (p->xtics_nr) {
			/* a strip per named tick, half a unit either side */
			strbuf_addf(gp, "set xdata\nset xrange [-0.5:%g]\n"
				    "set xtics (", p->xtics_nr - 0.5);
			for (k = 0; k < (size_t)p->xtics_nr; k++) {
				strbuf_addstr(gp, k ? ", " : "");
				gp_str(gp, p->xtics[k]);
				strbuf_addf(gp, " %zu", k);
			}
			strbuf_addstr(gp, ")\n");
		} else {
			strbuf_addstr(gp, "set xdata\nset format x \"% h\"\n"
				      "set xtics 1\n");
		}
		strbuf_addstr(gp, "plot ");
		for (j = 0; j < p->nr; j++) {
			struct plot_line *l = &p->lines[j];

			if (!l->nr)
				continue;
			for (k = 0; k < l->nr; k++)
				strbuf_addf(&data, "%.17g %.17g\n", l->x[k],
					    l->y[k]);
			strbuf_addstr(&data, "\n\n");
			strbuf_addf(gp, "%s'%s' index %zu using 1:2 with %s "
				    "title ", first ? "" : ", ", data_p, index++,
				    l->with ? l->with : "linespoints pt 7 ps 0.7");
			gp_str(gp, l->title);
			first = 0;
		}
		strbuf_addch(gp, '\n');
	}
	if (panels > 1)
		strbuf_addstr(gp, "unset multiplot\n");
	strbuf_addstr(gp, "set output\n");
	if (write_file(data_p, data.buf, data.len) < 0) {
		strbuf_addstr(why, "no plot: cannot write its input");
		n = -1;
	} else {
		r->plot_nr++;
	}
	free(data_p);
	strbuf_release(&data);
	return n;
}

/*
 * the plot in a <figure id="@id">, or why there is none (a note with the
 * id "no@id"); see plots_flush()
 */
static void add_plot_id(struct page *pg, struct plot *plots, size_t nr,
			int height, const char *caption, const char *id)
{
	struct renderer *r = (struct renderer *)pg->r;
	struct strbuf why = STRBUF_INIT;
	int n = plot_add(r, plots, nr, height, &why);

	if (n < 0) {
		strbuf_addf(&pg->out, "<p class=\"note\" id=\"no%s\">", id);
		h(pg, why.buf);
		strbuf_addstr(&pg->out, "</p>\n");
	} else {
		strbuf_addf(&pg->out, "<figure class=\"plot\" id=\"%s\">\n",
			    id);
		strbuf_addf(&pg->out, "%c%d%c", PLOT_MARK, n, PLOT_MARK + 1);
		strbuf_addstr(&pg->out, "\n<figcaption>");
		h(pg, caption);
		strbuf_addstr(&pg->out, "</figcaption></figure>\n");
		pg->plots++;
	}
	strbuf_release(&why);
}

static void add_plot(struct page *pg, struct plot *plots, size_t nr,
		     int height, const char *caption)
{
	add_plot_id(pg, plots, nr, height, caption, "plot");
}

/* ---- small numeric helpers ------------------------------------------- */

/* ---- / --------------------------------------------------------------- */

static void index_runs(struct page *pg)
{
	static const char *const cols[] = {
		"run", "started", "label", "kernel", "status", "mode",
		"boots ok", "samples", "error",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT r.id, r.started_at, r.label, r.kernel_release, "
		"r.status, r.accel || '/' || r.clock, (SELECT count(*) FROM "
		"boots b WHERE b.run_id = r.id AND b.status = 'ok') || '/' || "
		"(SELECT count(*) FROM boots b WHERE b.run_id = r.id), "
		"(SELECT count(*) FROM samples s WHERE s.run_id = r.id), "
		"r.error FROM runs r ORDER BY r.id DESC LIMIT ?", "i",
		(long long)WEB_LIST_LIMIT);

	strbuf_addstr(&pg->out, "<h2>Recent runs</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the runs");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"runs\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		long long id = sqlite3_column_int64(st, 0);

		strbuf_addf(&pg->out, "<tr id=\"run-%lld\"><td><a href=\"/run/"
			    "%lld\">#%lld</a></td>", id, id, id);
		td_time(pg, sqlite3_column_double(st, 1));
		td(pg, db_col_text(st, 2));
		td(pg, db_col_text(st, 3));
		td_status(pg, db_col_text(st, 4));
		td(pg, db_col_text(st, 5));
		td(pg, db_col_text(st, 6));
		td(pg, db_col_text(st, 7));
		td(pg, db_col_text(st, 8));
		strbuf_addstr(&pg->out, "</tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	sqlite3_finalize(st);
}

/*
 * The verdict of a job as one word, for the badges of the index: from
 * the one verdict a series job stores (attribution_verdict(), led by
 * WORSE, MIXED or OUTSIDE), else from its numbers; a job that has not
 * ended says its status. VERDICT_RANK puts regressions and mixed results
 * first.
 */
#define VERDICT_BADGE_SQL(j) \
	"CASE WHEN " j ".id IS NULL THEN 'not tested' " \
	"WHEN " j ".status <> 'done' THEN " j ".status " \
	"WHEN NOT json_valid(" j ".result) THEN 'done' " \
	"WHEN json_extract(" j ".result, '$.verdict') LIKE 'OUTSIDE%' " \
	"THEN 'out of scope' " \
	"WHEN json_extract(" j ".result, '$.verdict') LIKE 'MIXED%' " \
	"THEN 'mixed' " \
	"WHEN json_extract(" j ".result, '$.verdict') LIKE 'WORSE%' OR " \
	"json_extract(" j ".result, '$.worse') > 0 THEN 'regressed' " \
	"WHEN json_extract(" j ".result, '$.verdict') LIKE 'BETTER%' OR " \
	"json_extract(" j ".result, '$.better') > 0 THEN 'better' " \
	"WHEN " j ".kind = 'bisect' THEN CASE WHEN json_extract(" j \
	".result, '$.first_bad') IS NOT NULL THEN 'culprit named' ELSE " \
	"'no culprit' END ELSE 'no change' END"
#define VERDICT_RANK_SQL(badge) \
	"CASE " badge " WHEN 'regressed' THEN 0 WHEN 'mixed' THEN 1 " \
	"WHEN 'failed' THEN 2 ELSE 3 END"

/* a verdict badge cell; @title (the verdict's words) on hover */
static void td_badge(struct page *pg, const char *badge, const char *title)
{
	strbuf_addstr(&pg->out, "<td><span class=\"badge b-");
	for (const char *p = badge; *p; p++)
		strbuf_addch(&pg->out, *p == ' ' ? '-' : *p);
	strbuf_addch(&pg->out, '"');
	if (title && *title) {
		strbuf_addstr(&pg->out, " title=\"");
		h(pg, title);
		strbuf_addch(&pg->out, '"');
	}
	strbuf_addstr(&pg->out, ">");
	h(pg, badge);
	strbuf_addstr(&pg->out, "</span></td>");
}

static void index_jobs(struct page *pg)
{
	static const char *const cols[] = {
		"job", "kind", "what", "verdict", "status", "created", "ended",
		"error",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT j.id, j.kind, j.status, j.created_at, j.ended_at, "
		"coalesce(j.error, CASE WHEN j.status = 'queued' THEN "
		"j.base_note END), j.series_id, "
		"h.remote || '/' || h.branch || ' ' || "
		"substr(h.commit_id, 1, 12), " VERDICT_BADGE_SQL("j") ", CASE "
		"WHEN json_valid(j.result) THEN json_extract(j.result, "
		"'$.verdict') END FROM jobs j LEFT JOIN heads h ON "
		"h.id = j.head_id ORDER BY j.id DESC LIMIT ?", "i",
		(long long)WEB_LIST_LIMIT);
	int rows = 0;

	strbuf_addstr(&pg->out, "<h2>Jobs</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the jobs");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"jobs\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		long long series = sqlite3_column_int64(st, 6);

		rows++;
		strbuf_addf(&pg->out, "<tr><td>#%lld</td>",
			    (long long)sqlite3_column_int64(st, 0));
		td(pg, db_col_text(st, 1));
		if (series)
			strbuf_addf(&pg->out, "<td><a href=\"/series/%lld\">"
				    "series #%lld</a></td>", series, series);
		else
			td(pg, db_col_text(st, 7));
		td_badge(pg, db_col_text(st, 8), db_col_text(st, 9));
		td_status(pg, db_col_text(st, 2));
		td_time(pg, sqlite3_column_double(st, 3));
		td_time(pg, sqlite3_column_double(st, 4));
		td(pg, db_col_text(st, 5));
		strbuf_addstr(&pg->out, "</tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	if (!rows)
		strbuf_addstr(&pg->out, "<p class=\"note\">no jobs yet</p>\n");
	sqlite3_finalize(st);
}

/* a data-NAME="escaped value" attribute, for filter.js */
static void data_attr(struct page *pg, const char *name, const char *value)
{
	strbuf_addf(&pg->out, " data-%s=\"", name);
	h(pg, value);
	strbuf_addch(&pg->out, '"');
}

/*
 * The series, each with the verdict of its newest series job as a badge;
 * those that regressed, then the mixed ones, then failed jobs, first:
 * a maintainer sees what needs a look without opening each. Each row
 * carries what web/filter.js filters by (verdict, the branch its patches
 * were last applied to, author, subject, Message-ID) as data-*
 * attributes; without the script the whole list shows.
 */
static void index_series(struct page *pg)
{
	static const char *const cols[] = {
		"series", "verdict", "title", "author", "base", "version",
		"patches", "ingested",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT * FROM (SELECT s.id, s.version, s.total, s.title, "
		"s.author, s.ingested_at, " VERDICT_BADGE_SQL("j") " AS badge, "
		"CASE WHEN json_valid(j.result) THEN json_extract(j.result, "
		"'$.verdict') END, coalesce((SELECT a.base_ref FROM applies a "
		"WHERE a.series_id = s.id ORDER BY a.id DESC LIMIT 1), "
		"j.series_ref, ''), s.message_id FROM series s LEFT JOIN jobs "
		"j ON j.id = (SELECT max(id) FROM jobs WHERE kind = 'series' "
		"AND series_id = s.id) ORDER BY s.id DESC LIMIT ?) ORDER BY "
		VERDICT_RANK_SQL("badge") ", id DESC", "i",
		(long long)WEB_LIST_LIMIT);

	strbuf_addstr(&pg->out, "<h2>Series</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the series");
		return;
	}
	/* the table's tag as it was: tests read the table by it */
	strbuf_addstr(&pg->out, "<div class=\"cards\"><table id=\"series\">"
		      "\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		long long id = sqlite3_column_int64(st, 0);

		strbuf_addstr(&pg->out, "<tr");
		data_attr(pg, "verdict", db_col_text(st, 6));
		data_attr(pg, "branch", db_col_text(st, 8));
		data_attr(pg, "author", db_col_text(st, 4));
		data_attr(pg, "subject", db_col_text(st, 3));
		data_attr(pg, "msgid", db_col_text(st, 9));
		strbuf_addf(&pg->out, "><td><a href=\"/series/%lld\">#%lld"
			    "</a></td>", id, id);
		td_badge(pg, db_col_text(st, 6), db_col_text(st, 7));
		/* as a card on a phone: the title a line of its own, the
		 * numbers said what they are */
		strbuf_addstr(&pg->out, "<td class=\"wide\">");
		h(pg, db_col_text(st, 3));
		strbuf_addstr(&pg->out, "</td>");
		td(pg, db_col_text(st, 4));
		strbuf_addstr(&pg->out, "<td data-label=\"base\">");
		h(pg, db_col_text(st, 8));
		strbuf_addf(&pg->out, "</td><td>v%d</td><td class=\"num\" "
			    "data-label=\"patches\">%d</td><td class=\"time\" "
			    "data-label=\"ingested\">",
			    sqlite3_column_int(st, 1),
			    sqlite3_column_int(st, 2));
		add_time(&pg->out, sqlite3_column_double(st, 5));
		strbuf_addstr(&pg->out, "</td></tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table></div>\n");
	sqlite3_finalize(st);
}

static int store(struct renderer *r, const char *rel,
		 const struct strbuf *sb);

/* ---- per-run metric values: www/.cache/N ----------------------------- */

/*
 * A metric page shows one value per finished run for the newest
 * WEB_TREND_RUNS runs, the index the metrics of those runs: read from the
 * samples that is 1.25 M rows at 2,500 samples a run, 1-2 s a page
 * (bench/web.sh). A finished run's samples do not change, so its values
 * are computed once, kept in www/.cache/N (tab-separated, escaped), and
 * dropped when the run changes (expand_run()).
 */
static void run_values_release(struct run_values *rv)
{
	size_t i;

	for (i = 0; i < rv->nr; i++) {
		free(rv->v[i].workload);
		free(rv->v[i].variant);
		free(rv->v[i].metric);
		free(rv->v[i].unit);
	}
	free(rv->v);
	memset(rv, 0, sizeof(*rv));
}

static struct run_value *run_value_add(struct run_values *rv, const char *w,
				       const char *v, const char *m,
				       const char *u)
{
	struct run_value *x;

	ALLOC_GROW(rv->v, rv->nr + 1, rv->alloc);
	x = &rv->v[rv->nr++];
	memset(x, 0, sizeof(*x));
	x->workload = xstrdup(w);
	x->variant = xstrdup(v);
	x->metric = xstrdup(m);
	x->unit = xstrdup(u);
	return x;
}

/* a run's value of each of its metrics: run_value() (compare.c, the
 * unit rule), with the ok boots and the samples it rests on */
static int run_values_compute(struct db *db, long long run, int wall,
			      struct run_values *rv)
{
	sqlite3_stmt *st = db_query(db,
		"SELECT s.workload, s.variant, s.metric, min(s.unit), "
		"count(DISTINCT s.boot_id), count(*) FROM samples s JOIN boots "
		"b ON b.id = s.boot_id WHERE s.run_id = ? AND b.status = 'ok' "
		"GROUP BY s.workload, s.variant, s.metric ORDER BY s.workload, "
		"s.variant, s.metric", "i", run);
	int rc, ret = 0;

	rv->run = run;
	if (!st)
		return -1;
	while ((rc = db_step(db, st)) == DB_ROW) {
		struct run_value *x = run_value_add(rv, db_col_text(st, 0),
						    db_col_text(st, 1),
						    db_col_text(st, 2),
						    db_col_text(st, 3));

		x->boots = sqlite3_column_int(st, 4);
		x->n = sqlite3_column_int64(st, 5);
		x->value = NAN;
		if (run_value(db, run, x->workload, x->variant, x->metric,
			      wall, &x->value) < 0)
			ret = -1;
	}
	sqlite3_finalize(st);
	return rc == DB_DONE ? ret : -1;
}

static void cache_esc(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		if (*s == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*s == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*s == '\n')
			strbuf_addstr(sb, "\\n");
		else
			strbuf_addch(sb, *s);
}

/* one field of a cache line, unescaped in place; NULL at the end */
static char *cache_field(char **p)
{
	char *start = *p, *in, *out;

	if (!start)
		return NULL;
	for (in = out = start; *in && *in != '\t'; in++) {
		if (*in == '\\' && in[1]) {
			in++;
			*out++ = *in == 't' ? '\t' : *in == 'n' ? '\n' : *in;
		} else {
			*out++ = *in;
		}
	}
	*p = *in ? in + 1 : NULL;
	*out = '\0';
	return start;
}

static void cache_drop(struct renderer *r, long long run)
{
	char *path = xstrfmt("%s/.cache/%lld", r->www, run);
	size_t i;

	unlink(path);
	free(path);
	for (i = 0; i < r->memo_nr; i++)
		if (r->memo[i].run == run) {
			run_values_release(&r->memo[i]);
			r->memo[i] = r->memo[--r->memo_nr];
			break;
		}
}

/*
 * The values of finished run @run (@wall: its clock), from the memo, the
 * cache file, or the samples (then cached). Not owned by the caller.
 */
static const struct run_values *run_values_get(struct renderer *r,
					       long long run, int wall)
{
	char *path = xstrfmt("%s/.cache/%lld", r->www, run);
	struct strbuf sb = STRBUF_INIT;
	struct run_values *rv;
	size_t i;

	for (i = 0; i < r->memo_nr; i++)
		if (r->memo[i].run == run) {
			free(path);
			return &r->memo[i];
		}
	ALLOC_GROW(r->memo, r->memo_nr + 1, r->memo_alloc);
	rv = &r->memo[r->memo_nr++];
	memset(rv, 0, sizeof(*rv));
	rv->run = run;
	if (strbuf_read_file(&sb, path, 0) >= 0 && starts_with(sb.buf, "v1\n")) {
		char *line = sb.buf + 3, *nl;

		for (; *line; line = nl + 1) {
			char *p = line, *w, *v, *m, *u, *val, *b, *n;
			struct run_value *x;

			nl = strchr(line, '\n');
			if (!nl)
				break;
			*nl = '\0';
			w = cache_field(&p);
			v = cache_field(&p);
			m = cache_field(&p);
			u = cache_field(&p);
			val = cache_field(&p);
			b = cache_field(&p);
			n = cache_field(&p);
			if (!n)
				continue;
			x = run_value_add(rv, w, v, m, u);
			x->value = strtod(val, NULL);
			x->boots = atoi(b);
			x->n = strtoul(n, NULL, 10);
		}
	} else if (run_values_compute(&r->db, run, wall, rv) < 0) {
		rv->failed = 1;
	} else {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "v1\n");
		for (i = 0; i < rv->nr; i++) {
			const struct run_value *x = &rv->v[i];

			cache_esc(&sb, x->workload);
			strbuf_addch(&sb, '\t');
			cache_esc(&sb, x->variant);
			strbuf_addch(&sb, '\t');
			cache_esc(&sb, x->metric);
			strbuf_addch(&sb, '\t');
			cache_esc(&sb, x->unit);
			strbuf_addf(&sb, "\t%.17g\t%d\t%zu\n", x->value, x->boots,
				    x->n);
		}
		store(r, path + strlen(r->www) + 1, &sb);
		r->pages--;	/* not a page */
	}
	strbuf_release(&sb);
	free(path);
	return rv;
}

static void memo_release(struct renderer *r)
{
	size_t i;

	for (i = 0; i < r->memo_nr; i++)
		run_values_release(&r->memo[i]);
	free(r->memo);
	r->memo = NULL;
	r->memo_nr = r->memo_alloc = 0;
}

/*
 * A run's mode and set-up, the line of a trend it is a point of: run.c's
 * words (run_sql_functions()), the arch among them, so that runs compare.c
 * would not compare never share a line.
 */
#define RUN_LINE_SQL \
	"mmci_run_setup(r.accel, r.clock, r.arch, r.nvdimm_mib, r.backing, " \
	"r.ram_mib, r.vcpus, json_extract(r.params, '$.pin'))"

/* the newest WEB_TREND_RUNS runs that finished, oldest first */
static sqlite3_stmt *trend_runs(struct db *db)
{
	return db_query(db,
		"SELECT r.id, r.started_at, r.clock, " RUN_LINE_SQL ", "
		"r.kernel_release, r.label FROM runs r WHERE r.status = 'ok' AND r.id > (SELECT coalesce(max(id), 0) "
		"FROM runs) - ? ORDER BY r.started_at, r.id", "i",
		(long long)WEB_TREND_RUNS);
}

struct metric_count {
	const struct run_value *v;
	int runs;
};

static int metric_count_cmp(const void *a, const void *b)
{
	const struct run_value *x = ((const struct metric_count *)a)->v;
	const struct run_value *y = ((const struct metric_count *)b)->v;
	int c = strcmp(x->workload, y->workload);

	if (!c)
		c = strcmp(x->variant, y->variant);
	if (!c)
		c = strcmp(x->metric, y->metric);
	return c ? c : strcmp(x->unit, y->unit);
}

static void index_metrics(struct page *pg)
{
	struct renderer *r = (struct renderer *)pg->r;
	sqlite3_stmt *st = trend_runs(&pg->db);
	struct metric_count *mc = NULL;
	size_t nr = 0, alloc = 0, i, j;

	strbuf_addstr(&pg->out, "<h2>Metrics</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the metrics");
		return;
	}
	while (page_step(pg, st)) {
		const struct run_values *rv = run_values_get(r,
			sqlite3_column_int64(st, 0),
			!strcmp(db_col_text(st, 2), "wall"));

		if (rv->failed)
			pg->status = 500;
		for (i = 0; i < rv->nr; i++) {
			struct metric_count key = { &rv->v[i], 0 };

			for (j = 0; j < nr; j++)
				if (!metric_count_cmp(&mc[j], &key))
					break;
			if (j == nr) {
				ALLOC_GROW(mc, nr + 1, alloc);
				mc[nr++] = key;
			}
			mc[j].runs++;
		}
	}
	sqlite3_finalize(st);
	if (nr)
		qsort(mc, nr, sizeof(*mc), metric_count_cmp);
	strbuf_addstr(&pg->out, "<ul id=\"metrics\" class=\"cols\">\n");
	for (i = 0; i < nr; i++) {
		const char *w = mc[i].v->workload, *v = mc[i].v->variant;
		const char *m = mc[i].v->metric;

		strbuf_addstr(&pg->out, "<li><a href=\"");
		metric_href(pg, w, v, m);
		strbuf_addstr(&pg->out, "\">");
		h(pg, w);
		strbuf_addch(&pg->out, ' ');
		h(pg, m);
		if (*v) {
			strbuf_addstr(&pg->out, " <small>");
			h(pg, v);
			strbuf_addstr(&pg->out, "</small>");
		}
		strbuf_addf(&pg->out, "</a> (%d runs)</li>\n", mc[i].runs);
	}
	strbuf_addstr(&pg->out, "</ul>\n");
	free(mc);
}

/* the branches nightly jobs measure, each linked to its page */
static void index_branches(struct page *pg)
{
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT h.remote, h.branch, count(DISTINCT j.id), max(j.created_at) "
		"FROM jobs j JOIN heads h ON h.id = j.head_id WHERE j.kind = "
		"'nightly' GROUP BY h.remote, h.branch ORDER BY h.remote, "
		"h.branch", "");
	int rows = 0;

	strbuf_addstr(&pg->out, "<h2>Branches</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the nightly jobs");
		return;
	}
	strbuf_addstr(&pg->out, "<ul id=\"branches\">\n");
	while (page_step(pg, st)) {
		const char *remote = db_col_text(st, 0);
		const char *branch = db_col_text(st, 1);
		int link = valid_ref_name(remote) && valid_ref_name(branch);

		rows++;
		strbuf_addstr(&pg->out, "<li>");
		if (link) {
			strbuf_addstr(&pg->out, "<a href=\"");
			branch_href(&pg->out, remote, branch);
			strbuf_addstr(&pg->out, "\">");
		}
		h(pg, remote);
		strbuf_addch(&pg->out, '/');
		h(pg, branch);
		strbuf_addstr(&pg->out, link ? "</a>" : " <small>(no page: "
			      "the name cannot be a file name)</small>");
		strbuf_addf(&pg->out, " (%d nightly job(s), the last queued ",
			    sqlite3_column_int(st, 2));
		add_time(&pg->out, sqlite3_column_double(st, 3));
		strbuf_addstr(&pg->out, ")</li>\n");
	}
	strbuf_addstr(&pg->out, "</ul>\n");
	if (!rows)
		strbuf_addstr(&pg->out, "<p class=\"note\">no nightly job "
			      "yet</p>\n");
	sqlite3_finalize(st);
}

static void page_index(struct page *pg)
{
	/* what needs a look first: the series by verdict, then the jobs */
	page_head(pg, "mmci: recent runs", "/filter.js");
	index_series(pg);
	index_jobs(pg);
	index_branches(pg);
	index_runs(pg);
	index_metrics(pg);
	page_end(pg);
}

/* ---- /run/N ---------------------------------------------------------- */

/* the tail of a console log, escaped, in a <pre> */
static void add_console_tail(struct strbuf *sb, const char *path,
			     int open_it, int idx)
{
	struct strbuf buf = STRBUF_INIT;
	struct stat st;
	off_t off = 0;
	const char *start;
	int fd = *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	strbuf_addf(sb, "<details class=\"console\"%s><summary>boot %d "
		    "console: ", open_it ? " open" : "", idx);
	html_esc(sb, path);
	if (fd < 0 || fstat(fd, &st) < 0) {
		strbuf_addf(sb, " (cannot read: %s)</summary></details>\n",
			    !*path ? "no log recorded" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (st.st_size > WEB_CONSOLE_TAIL)
		off = st.st_size - WEB_CONSOLE_TAIL;
	strbuf_addf(sb, " (%lld bytes%s)</summary>\n", (long long)st.st_size,
		    off ? ", the end" : "");
	if (lseek(fd, off, SEEK_SET) < 0 ||
	    strbuf_read_fd(&buf, fd, WEB_CONSOLE_TAIL) < 0)
		strbuf_addstr(&buf, "(read error)");
	close(fd);
	if (buf.len > WEB_CONSOLE_TAIL)	/* the file grew meanwhile */
		strbuf_setlen(&buf, WEB_CONSOLE_TAIL);
	start = buf.buf;
	if (off) {	/* start at a whole line */
		const char *nl = memchr(start, '\n', buf.len);

		if (nl)
			start = nl + 1;
	}
	strbuf_addf(sb, "<pre id=\"console-%d\">", idx);
	/* the guest writes the log: it may hold NUL bytes */
	html_esc_mem(sb, start, buf.buf + buf.len - start);
	strbuf_addstr(sb, "</pre></details>\n");
	strbuf_release(&buf);
}

static void run_page_boots(struct page *pg, long long id)
{
	static const char *const cols[] = {
		"boot", "status", "end", "started", "seconds", "error",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT idx, status, end_kind, started_at, duration_s, error, "
		"console_log, domain_xml FROM boots WHERE run_id = ? ORDER BY "
		"idx", "i", id);
	struct strbuf logs = STRBUF_INIT, xml = STRBUF_INIT;
	int n = 0;

	strbuf_addstr(&pg->out, "<h2>Boots</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the boots");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"boots\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		int idx = sqlite3_column_int(st, 0);

		strbuf_addf(&pg->out, "<tr><td>%d</td>", idx);
		td_status(pg, db_col_text(st, 1));
		td(pg, db_col_text(st, 2));
		td_time(pg, sqlite3_column_double(st, 3));
		td_num(pg, sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN :
			   sqlite3_column_double(st, 4));
		td(pg, db_col_text(st, 5));
		strbuf_addstr(&pg->out, "</tr>\n");
		/* the logs go below the table */
		add_console_tail(&logs, db_col_text(st, 6), n == 0, idx);
		if (*db_col_text(st, 7)) {
			strbuf_addf(&xml, "<details><summary>boot %d libvirt "
				    "domain XML</summary><pre>", idx);
			html_esc(&xml, db_col_text(st, 7));
			strbuf_addstr(&xml, "</pre></details>\n");
		}
		n++;
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	sqlite3_finalize(st);
	strbuf_addbuf(&pg->out, &xml);
	strbuf_addstr(&pg->out, "<h2>Console log</h2>\n");
	if (n)
		strbuf_addbuf(&pg->out, &logs);
	else
		strbuf_addstr(&pg->out, "<p class=\"note\">no boot yet</p>\n");
	strbuf_release(&logs);
	strbuf_release(&xml);
}

static void run_metrics(struct page *pg, long long id)
{
	static const char *const cols[] = {
		"workload", "variant", "metric", "unit", "boots", "n",
		"median", "q1", "q3", "min", "max", "CV %",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT s.workload, s.variant, s.metric, s.unit, s.boot_id, "
		"s.value FROM samples s JOIN boots b ON b.id = s.boot_id "
		"WHERE s.run_id = ? AND b.status = 'ok' ORDER BY s.workload, "
		"s.variant, s.metric, s.unit, s.boot_id, s.iteration", "i", id);
	struct doubles vs = { 0 };
	char *w = NULL, *v = NULL, *m = NULL, *u = NULL;
	long long boot = -1;
	int boots = 0, rc, rows = 0;

	strbuf_addstr(&pg->out, "<h2>Metrics <small>(samples of the ok "
		      "boots)</small></h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the samples");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"metrics\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	do {
		int same;

		rc = page_step(pg, st) ? SQLITE_ROW : SQLITE_DONE;
		same = rc == SQLITE_ROW && w &&
		       !strcmp(w, db_col_text(st, 0)) &&
		       !strcmp(v, db_col_text(st, 1)) &&
		       !strcmp(m, db_col_text(st, 2)) &&
		       !strcmp(u, db_col_text(st, 3));
		if (!same && vs.nr) {
			struct summary s;

			summarize(vs.v, vs.nr, &s);
			rows++;
			strbuf_addstr(&pg->out, "<tr>");
			td(pg, w);
			td(pg, *v ? v : "-");
			strbuf_addstr(&pg->out, "<td><a href=\"");
			metric_href(pg, w, v, m);
			strbuf_addstr(&pg->out, "\">");
			h(pg, m);
			strbuf_addstr(&pg->out, "</a></td>");
			td(pg, u);
			strbuf_addf(&pg->out, "<td class=\"num\">%d</td>"
				    "<td class=\"num\">%zu</td>", boots, s.n);
			td_num(pg, s.median);
			td_num(pg, s.q1);
			td_num(pg, s.q3);
			td_num(pg, s.min);
			td_num(pg, s.max);
			td_num(pg, isnan(s.cv) ? NAN : s.cv * 100);
			strbuf_addstr(&pg->out, "</tr>\n");
			vs.nr = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		if (!same) {
			free(w);
			free(v);
			free(m);
			free(u);
			w = xstrdup(db_col_text(st, 0));
			v = xstrdup(db_col_text(st, 1));
			m = xstrdup(db_col_text(st, 2));
			u = xstrdup(db_col_text(st, 3));
			boots = 0;
			boot = -1;
		}
		if (sqlite3_column_int64(st, 4) != boot) {
			boot = sqlite3_column_int64(st, 4);
			boots++;
		}
		doubles_push(&vs, sqlite3_column_double(st, 5));
	} while (1);
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	if (!rows)
		strbuf_addstr(&pg->out, "<p class=\"note\">no samples</p>\n");
	sqlite3_finalize(st);
	free(w);
	free(v);
	free(m);
	free(u);
	free(vs.v);
}

static void run_events(struct page *pg, long long id)
{
	static const char *const cols[] = {
		"boot", "workload", "variant", "kind", "iteration", "key",
		"message",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT b.idx, e.workload, e.variant, e.kind, e.iteration, "
		"e.key, e.message FROM events e LEFT JOIN boots b ON b.id = "
		"e.boot_id WHERE e.run_id = ? ORDER BY e.id LIMIT 1000", "i",
		id);

	strbuf_addstr(&pg->out, "<h2>Events and errors</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the events");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"events\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		strbuf_addstr(&pg->out, "<tr class=\"ev-");
		url_esc(&pg->out, db_col_text(st, 3));
		strbuf_addstr(&pg->out, "\">");
		td(pg, db_col_text(st, 0));
		td(pg, db_col_text(st, 1));
		td(pg, db_col_text(st, 2));
		td(pg, db_col_text(st, 3));
		td(pg, db_col_text(st, 4));
		td(pg, db_col_text(st, 5));
		td(pg, db_col_text(st, 6));
		strbuf_addstr(&pg->out, "</tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	sqlite3_finalize(st);
}

/*
 * The previous finished run measured the same way, for a compare link:
 * its id, 0 when there is none, -1 after error().
 */
static long long previous_like(struct db *db, long long id)
{
	long long prev = 0;

	if (db_int_checked(db, &prev,
		"SELECT p.id FROM runs p JOIN runs r ON r.id = ?1 WHERE "
		"p.id < r.id AND p.status = 'ok' AND p.clock = r.clock AND "
		"p.accel = r.accel AND p.nvdimm_mib = r.nvdimm_mib AND "
		"p.backing = r.backing AND p.ram_mib = r.ram_mib AND "
		"p.vcpus = r.vcpus ORDER BY p.id DESC LIMIT 1", "i", id) < 0)
		return -1;
	return prev;
}

static void page_run(struct page *pg, long long id)
{
	struct run_row r = { 0 };
	struct strbuf t = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	long long prev, n = 0;
	char *title;

	if (db_int_checked(&pg->db, &n, "SELECT count(*) FROM runs WHERE "
			   "id = ?", "i", id) < 0) {
		page_fail(pg, 500, "error", "cannot read the run");
		return;
	}
	if (n != 1) {
		title = xstrfmt("no run #%lld", id);
		not_found(pg, title);
		free(title);
		return;
	}
	if (run_load(&pg->db, id, &r) < 0) {
		page_fail(pg, 500, "error", "cannot read the run");
		return;
	}
	title = xstrfmt("run #%lld", id);
	page_begin(pg, title);
	free(title);

	if (strcmp(r.status, "running"))
		strbuf_addf(&pg->out, "<p class=\"repro\">reproduce on any "
			    "host: <a id=\"bundle\" href=\"/bundle/%lld\">"
			    "the bundle</a> (kernel config, series, base, VM, "
			    "numbers), <code id=\"reproduce-bundle\">mmci "
			    "reproduce --bundle URL</code>; on this host: "
			    "<code id=\"reproduce\">mmci reproduce %lld</code>"
			    "</p>\n", id, id);
	else
		strbuf_addf(&pg->out, "<p class=\"repro\">reproduce: <code "
			    "id=\"reproduce\">mmci reproduce %lld</code></p>\n",
			    id);
	prev = previous_like(&pg->db, id);
	if (prev < 0)
		pg->status = 500;
	if (prev > 0)
		strbuf_addf(&pg->out, "<p>compare with the previous run measured "
			    "the same way: <a id=\"compare-prev\" href=\"/compare/"
			    "%lld/%lld\">#%lld vs #%lld</a></p>\n", prev, id, prev,
			    id);

	strbuf_addstr(&pg->out, "<h2>Provenance</h2>\n<table class=\"kv\" "
		      "id=\"provenance\">\n");
	kv(pg, "label", r.label);
	strbuf_addstr(&pg->out, TH_ROW "status</th>");
	td_status(pg, r.status);
	strbuf_addstr(&pg->out, "</tr>\n");
	if (*r.error)
		kv(pg, "error", r.error);
	kv_time(pg, "started", r.started_at);
	if (r.ended_at >= 0)
		kv_time(pg, "ended", r.ended_at);
	kv(pg, "kernel release", r.release);
	kv(pg, "kernel image", r.kernel);
	kv(pg, "modules", r.modroot);
	if (r.hz > 0)
		strbuf_addf(&t, "%d", r.hz);
	kv(pg, "CONFIG_HZ", t.buf);
	if (r.build_id) {
		/* what run_row leaves out: the tree, the series' title */
		st = db_query(&pg->db, "SELECT b.tree_path, s.title, s.version "
			      "FROM builds b LEFT JOIN series s ON s.id = "
			      "b.series_id WHERE b.id = ?", "i", r.build_id);
		if (!page_step(pg, st)) {
			sqlite3_finalize(st);
			st = NULL;
		}
		strbuf_reset(&t);
		strbuf_addf(&t, "#%lld", r.build_id);
		kv(pg, "build", t.buf);
		kv(pg, "commit", r.commit);
		kv(pg, "tree", st ? db_col_text(st, 0) : "");
		if (r.series_id) {
			strbuf_addf(&pg->out, TH_ROW "series</th><td><a href=\""
				    "/series/%lld\">#%lld v%d</a> ", r.series_id,
				    r.series_id, st ? sqlite3_column_int(st, 2) : 0);
			h(pg, st ? db_col_text(st, 1) : "");
			strbuf_addf(&pg->out, " (patches 1..%d)</td></tr>\n",
				    r.upto);
		} else {
			kv(pg, "series", "none (base tree)");
		}
		kv(pg, "config fragment", r.fragment);
		kv(pg, "config hash", r.config_hash);
		kv(pg, ".config hash", r.dotconfig_hash);
		kv(pg, "compiler", r.compiler);
		sqlite3_finalize(st);
	} else {
		kv(pg, "build", "none (a prebuilt kernel)");
	}
	kv(pg, "workloads", r.workloads);
	kv(pg, "parameters", r.params);
	strbuf_reset(&t);
	strbuf_addf(&t, "%s, clock %s", r.accel, r.clock);
	kv(pg, "mode", t.buf);
	strbuf_reset(&t);
	strbuf_addf(&t, "%lld vCPU(s), %lld MiB RAM, %lld MiB NVDIMM on %s",
		    r.vcpus, r.ram_mib, r.nvdimm_mib, r.backing);
	kv(pg, "VM", t.buf);
	kv(pg, "QEMU", r.qemu_v);
	kv(pg, "libvirt", r.libvirt_v);
	kv(pg, "host", r.host);
	kv(pg, "runner sha1", r.runner_sha1);
	kv(pg, "initramfs", r.initrd);
	kv(pg, "initramfs sha1", r.initrd_sha1);
	strbuf_addstr(&pg->out, "</table>\n");
	run_row_release(&r);
	strbuf_release(&t);

	run_metrics(pg, id);
	run_events(pg, id);
	run_page_boots(pg, id);
	page_end(pg);
}

/* ---- /compare/A/B ---------------------------------------------------- */

static const char *verdict_class(enum verdict v)
{
	switch (v) {
	case VERDICT_WORSE: return "v-worse";
	case VERDICT_BETTER: return "v-better";
	case VERDICT_NO_CHANGE: return "v-same";
	default: return "v-insufficient";
	}
}

/*
 * What compare_runs() checks before comparing, as text for the page (its
 * own error() goes to the log). NULL when the runs are comparable.
 */
static char *compare_obstacle(struct page *pg, long long a, long long b)
{
	struct run_row ra = { 0 }, rb = { 0 };
	struct strbuf ma = STRBUF_INIT, mb = STRBUF_INIT;
	struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
	char *why = NULL;

	if (run_load(&pg->db, a, &ra) < 0 || run_load(&pg->db, b, &rb) < 0) {
		why = xstrdup("cannot read the runs");
		goto out;
	}
	strbuf_addf(&ma, "%s, clock %s", ra.accel, ra.clock);
	strbuf_addf(&mb, "%s, clock %s", rb.accel, rb.clock);
	run_setup_shape(&ra, &sa);
	run_setup_shape(&rb, &sb);
	if (strcmp(ma.buf, mb.buf))
		why = xstrfmt("run #%lld (%s) and run #%lld (%s) were measured "
			      "in different modes: they are never compared", a,
			      ma.buf, b, mb.buf);
	else if (strcmp(sa.buf, sb.buf))
		why = xstrfmt("run #%lld (%s) and run #%lld (%s) measured "
			      "different set-ups: they are not compared", a,
			      sa.buf, b, sb.buf);
out:
	run_row_release(&ra);
	run_row_release(&rb);
	strbuf_release(&ma);
	strbuf_release(&mb);
	strbuf_release(&sa);
	strbuf_release(&sb);
	return why;
}

static void compare_side(struct page *pg, const char *role, long long id)
{
	struct run_row r = { 0 };

	strbuf_addf(&pg->out, TH_ROW "%s</th><td><a href=\"/run/%lld\">run "
		    "#%lld</a> ", role, id, id);
	if (run_load(&pg->db, id, &r) == 0) {
		h(pg, r.label);
		strbuf_addstr(&pg->out, " (kernel ");
		h(pg, r.release);
		strbuf_addf(&pg->out, ", %d ok boot(s))", r.ok_boots);
		run_row_release(&r);
	}
	strbuf_addstr(&pg->out, "</td></tr>\n");
}

static void add_side_cells(struct page *pg, const struct summary *s)
{
	strbuf_addf(&pg->out, "<td class=\"num\">%zu</td>", s->n);
	td_num(pg, s->median);
	strbuf_addstr(&pg->out, "<td class=\"num\">");
	add_num(pg, s->mean);
	strbuf_addstr(&pg->out, "±");
	add_num(pg, s->stddev);
	strbuf_addstr(&pg->out, "</td>");
}

/*
 * The per-boot medians of one metric of one run (run_units()) as points:
 * with @spread 0 at x = @x + i for the i-th ok boot; else spread evenly
 * over @spread around @x, so that a strip of equal values stays visible.
 */
static void load_boot_medians(struct page *pg, long long run,
			      const struct metric_comparison *m, double x,
			      double spread, struct plot_line *l)
{
	struct unit_values u = UNIT_VALUES_INIT;
	size_t i;

	if (run_units(&pg->db, run, m->workload, m->variant, m->metric, 1,
		      &u) < 0)
		return;
	for (i = 0; i < u.nr; i++)
		plot_point(l, !spread ? x + i : u.nr < 2 ? x :
			   x - spread / 2 + spread * i / (u.nr - 1), u.v[i]);
	unit_values_release(&u);
}

static void compare_plot(struct page *pg, const struct run_comparison *rc)
{
	struct plot plots[WEB_MAX_PLOTS];
	size_t i, nr = rc->nr < WEB_MAX_PLOTS ? rc->nr : WEB_MAX_PLOTS;
	char *base = xstrfmt("base #%lld", rc->base_id);
	char *new = xstrfmt("new #%lld", rc->new_id);

	strbuf_addstr(&pg->out, "<h2>Per-boot medians</h2>\n");
	memset(plots, 0, sizeof(plots));
	for (i = 0; i < nr; i++) {
		const struct metric_comparison *m = &rc->m[i];

		plots[i].title = xstrfmt("%s %s %s", m->workload, m->variant,
					 m->metric);
		plots[i].xlabel = xstrdup("boot");
		plots[i].ylabel = xstrdup(m->unit);
		load_boot_medians(pg, rc->base_id, m, -0.05, 0,
				  plot_line(&plots[i], base));
		load_boot_medians(pg, rc->new_id, m, 0.05, 0,
				  plot_line(&plots[i], new));
	}
	add_plot(pg, plots, nr, 220, rc->nr > nr ?
		 "the first metrics only; per-boot medians of ok boots" :
		 "per-boot medians of the ok boots");
	for (i = 0; i < nr; i++)
		plot_release(&plots[i]);
	free(base);
	free(new);
}

static void page_compare(struct page *pg, long long a, long long b)
{
	static const char *const cols[] = {
		"workload", "variant", "metric", "unit", "n", "base median",
		"mean±sd", "n", "new median", "mean±sd", "change", "95% CI", "p",
		"verdict",
	};
	struct run_comparison rc;
	char *title, *why;
	long long n = 0;
	size_t i;

	if (db_int_checked(&pg->db, &n, "SELECT count(*) FROM runs WHERE id "
			   "IN (?, ?)", "ii", a, b) < 0) {
		page_fail(pg, 500, "error", "cannot read the runs");
		return;
	}
	if (n < (a == b ? 1 : 2)) {
		title = xstrfmt("no run #%lld or no run #%lld", a, b);
		not_found(pg, title);
		free(title);
		return;
	}
	title = xstrfmt("run #%lld vs run #%lld", a, b);
	page_begin(pg, title);
	free(title);
	strbuf_addstr(&pg->out, "<table class=\"kv\" id=\"sides\">\n");
	compare_side(pg, "base", a);
	compare_side(pg, "new", b);
	strbuf_addstr(&pg->out, "</table>\n");

	why = compare_obstacle(pg, a, b);
	if (why) {
		strbuf_addstr(&pg->out, "<p class=\"err\" id=\"not-compared\">");
		h(pg, why);
		strbuf_addstr(&pg->out, "</p>\n");
		free(why);
		page_end(pg);
		return;
	}
	if (compare_runs(&pg->db, a, b, &rc) < 0) {
		page_note_error(pg, "the comparison failed (see the server's "
				"log)");
		page_end(pg);
		return;
	}
	strbuf_addstr(&pg->out, "<p>mode: ");
	h(pg, rc.accel);
	strbuf_addstr(&pg->out, ", clock ");
	h(pg, rc.clock);
	strbuf_addstr(&pg->out, !strcmp(rc.clock, "icount") ?
		      " (deterministic: units are samples, the verdict rests "
		      "on the clock resolution)</p>\n" :
		      " (wall clock: units are per-boot medians)</p>\n");
	strbuf_addstr(&pg->out, "<table id=\"comparison\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (i = 0; i < rc.nr; i++) {
		const struct metric_comparison *m = &rc.m[i];
		const struct comparison *c = &m->c;

		strbuf_addf(&pg->out, "<tr class=\"%s\">",
			    verdict_class(c->verdict));
		td(pg, m->workload);
		td(pg, *m->variant ? m->variant : "-");
		strbuf_addstr(&pg->out, "<td><a href=\"");
		metric_href(pg, m->workload, m->variant, m->metric);
		strbuf_addstr(&pg->out, "\">");
		h(pg, m->metric);
		strbuf_addstr(&pg->out, "</a></td>");
		td(pg, m->unit);
		add_side_cells(pg, &c->base);
		add_side_cells(pg, &c->new);
		if (isnan(c->change_pct))
			strbuf_addstr(&pg->out, "<td class=\"num\">-</td>");
		else
			strbuf_addf(&pg->out, "<td class=\"num\">%+.2f%%</td>",
				    c->change_pct);
		if (isnan(c->ci_lo_pct))
			strbuf_addstr(&pg->out, "<td>-</td>");
		else
			strbuf_addf(&pg->out, "<td class=\"num\">[%+.2f%%, "
				    "%+.2f%%]</td>", c->ci_lo_pct, c->ci_hi_pct);
		if (isnan(c->p_value))
			strbuf_addstr(&pg->out, "<td class=\"num\">-</td>");
		else
			strbuf_addf(&pg->out, "<td class=\"num\">%.4f</td>",
				    c->p_value);
		strbuf_addf(&pg->out, "<td class=\"verdict\">%s",
			    verdict_name(c->verdict));
		if (c->verdict == VERDICT_INSUFFICIENT && c->reason[0]) {
			strbuf_addstr(&pg->out, " <small>(");
			h(pg, c->reason);
			strbuf_addstr(&pg->out, ")</small>");
		} else if (c->verdict == VERDICT_NO_CHANGE &&
			   !isnan(c->detectable_pct)) {
			strbuf_addf(&pg->out, " <small>(could detect &ge; "
				    "%.*f%%)</small>",
				    c->detectable_pct < 0.1 ? 3 : 1,
				    c->detectable_pct);
		}
		strbuf_addstr(&pg->out, "</td></tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n<p id=\"verdict\" class=\"");
	if (rc.worse)
		strbuf_addf(&pg->out, "v-worse\">verdict: WORSE: %d metric(s) "
			    "regressed%s", rc.worse, rc.better ? ", " : "");
	else
		strbuf_addstr(&pg->out, rc.better ? "v-better\">verdict: " :
			      "v-same\">verdict: ");
	if (rc.better)
		strbuf_addf(&pg->out, "BETTER: %d metric(s) improved",
			    rc.better);
	if (!rc.worse && !rc.better)
		strbuf_addstr(&pg->out, "no significant change");
	strbuf_addstr(&pg->out, "</p>\n");
	if (rc.nr)
		compare_plot(pg, &rc);
	run_comparison_release(&rc);
	page_end(pg);
}

/* ---- /series/N ------------------------------------------------------- */

static void add_msgid_link(struct page *pg, const char *msgid)
{
	if (!*msgid) {
		strbuf_addch(&pg->out, '-');
		return;
	}
	strbuf_addstr(&pg->out, "<a href=\"https://lore.kernel.org/r/");
	url_esc(&pg->out, msgid);
	strbuf_addstr(&pg->out, "\">");
	h(pg, msgid);
	strbuf_addstr(&pg->out, "</a>");
}

static void series_patches(struct page *pg, long long id)
{
	static const char *const cols[] = {
		"#", "subject", "author", "message-id", "diff",
	};
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT idx, title, author, message_id, has_diff FROM patches "
		"WHERE series_id = ? ORDER BY idx", "i", id);

	strbuf_addstr(&pg->out, "<h2>Patches</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the patches");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"patches\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		strbuf_addf(&pg->out, "<tr><td class=\"num\">%d</td>",
			    sqlite3_column_int(st, 0));
		td(pg, db_col_text(st, 1));
		td(pg, db_col_text(st, 2));
		strbuf_addstr(&pg->out, "<td>");
		add_msgid_link(pg, db_col_text(st, 3));
		strbuf_addf(&pg->out, "</td><td>%s</td></tr>\n",
			    sqlite3_column_int(st, 4) ? "yes" : "no");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	sqlite3_finalize(st);
}

static void series_runs(struct page *pg, long long id)
{
	static const char *const cols[] = {
		"run", "started", "label", "patches", "commit", "kernel",
		"status", "mode", "compare",
	};
	/*
	 * The base run of a series run: the newest earlier run of a build
	 * of the series' base commit (without the series), same mode.
	 */
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT r.id, r.started_at, r.label, b.upto, "
		"substr(b.commit_id, 1, 12), r.kernel_release, r.status, "
		"r.accel || '/' || r.clock, (SELECT r2.id FROM runs r2 JOIN "
		"builds b2 ON b2.id = r2.build_id WHERE r2.id < r.id AND "
		"b2.series_id IS NULL AND b2.commit_id IN (SELECT base_commit "
		"FROM applies WHERE series_id = ?1) AND r2.clock = r.clock AND "
		"r2.accel = r.accel AND r2.status = 'ok' ORDER BY r2.id DESC "
		"LIMIT 1) FROM runs r JOIN builds b ON b.id = r.build_id WHERE "
		"b.series_id = ?1 ORDER BY r.id", "i", id);
	int rows = 0;

	strbuf_addstr(&pg->out, "<h2>Runs of its builds</h2>\n");
	if (!st) {
		page_note_error(pg, "cannot read the runs");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"series-runs\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	while (page_step(pg, st)) {
		long long run = sqlite3_column_int64(st, 0);
		long long base = sqlite3_column_int64(st, 8);

		rows++;
		strbuf_addf(&pg->out, "<tr><td><a href=\"/run/%lld\">#%lld</a>"
			    "</td>", run, run);
		td_time(pg, sqlite3_column_double(st, 1));
		td(pg, db_col_text(st, 2));
		strbuf_addf(&pg->out, "<td>1..%d</td>", sqlite3_column_int(st, 3));
		td(pg, db_col_text(st, 4));
		td(pg, db_col_text(st, 5));
		td_status(pg, db_col_text(st, 6));
		td(pg, db_col_text(st, 7));
		if (base)
			strbuf_addf(&pg->out, "<td><a class=\"cmp\" href=\""
				    "/compare/%lld/%lld\">vs base #%lld</a></td>",
				    base, run, base);
		else
			strbuf_addstr(&pg->out, "<td>no base run</td>");
		strbuf_addstr(&pg->out, "</tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	if (!rows)
		strbuf_addstr(&pg->out, "<p class=\"note\">not run yet</p>\n");
	sqlite3_finalize(st);
}

/* one change cell: "+12.3 % [+11.9, +12.8]", its class by verdict */
static void change_cell(struct page *pg, const struct comparison *c)
{
	const char *cls = c->verdict == VERDICT_WORSE ? "v-worse" :
			  c->verdict == VERDICT_BETTER ? "v-better" : "v-same";

	if (isnan(c->change_pct)) {
		strbuf_addstr(&pg->out, "<td>-</td><td>-</td>");
		return;
	}
	strbuf_addf(&pg->out, "<td class=\"num\">%+.2f %%", c->change_pct);
	if (!isnan(c->ci_lo_pct))
		strbuf_addf(&pg->out, " [%+.2f, %+.2f]", c->ci_lo_pct,
			    c->ci_hi_pct);
	strbuf_addf(&pg->out, "</td><td class=\"%s\">%s</td>", cls,
		    verdict_name(c->verdict));
}

/*
 * The per-patch table: for each metric some step moved, a row per step
 * with its median, its own change (vs the step before) and its change vs
 * the base, each with its 95 % interval and verdict.
 */
/* "worse: 2 metrics +63 .. +66 %", "better: 1 metric -40 %" */
static void change_range(struct strbuf *sb, const char *what, int n,
			 double from, double to)
{
	strbuf_addf(sb, "%s: %d metric%s %+.0f", what, n, n > 1 ? "s" : "",
		    from);
	if (n > 1 && lround(from) != lround(to))
		strbuf_addf(sb, " .. %+.0f", to);
	strbuf_addstr(sb, " %");
}

/* the Message-ID of patch @idx of series @series_id, NULL when none */
static char *patch_msgid(struct page *pg, long long series_id, int idx)
{
	sqlite3_stmt *st = db_query(&pg->db, "SELECT message_id FROM patches "
				    "WHERE series_id = ? AND idx = ?", "ii",
				    series_id, (long long)idx);
	char *id = NULL;

	if (st && db_step(&pg->db, st) == DB_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		id = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	return id;
}

/*
 * One row per patch, first on the series page: its own verdict as a badge
 * and the range of its own changes ("worse: 2 metrics +63 .. +66 %"), the
 * link to its mail; a folded step says so. The metric-by-metric table is
 * folded below it.
 */
static void patch_summary(struct page *pg, long long series_id,
			  const struct attribution *a)
{
	static const char *const cols[] = {
		"patch", "own verdict", "its own changes", "subject",
	};
	size_t i, j;

	if (!attribution_per_patch(a)) {
		strbuf_addstr(&pg->out, "<p class=\"note\">The patches were "
			      "measured together, not one by one.</p>\n");
		return;
	}
	strbuf_addstr(&pg->out, "<div class=\"scroll cards\"><table "
		      "id=\"patch-summary\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (i = 1; i < a->nr; i++) {
		const struct attribution_step *s = &a->s[i];
		int nw = 0, nb = 0;
		double wlo = 0, whi = 0, blo = 0, bhi = 0;
		struct strbuf ch = STRBUF_INIT;
		const char *badge;
		char *msgid;

		for (j = 0; j < s->own.nr; j++) {
			const struct comparison *c = &s->own.m[j].c;

			if (isnan(c->change_pct))
				continue;
			if (c->verdict == VERDICT_WORSE) {
				if (!nw++ || c->change_pct < wlo)
					wlo = c->change_pct;
				if (nw == 1 || c->change_pct > whi)
					whi = c->change_pct;
			} else if (c->verdict == VERDICT_BETTER) {
				if (!nb++ || c->change_pct > blo)
					blo = c->change_pct;
				if (nb == 1 || c->change_pct < bhi)
					bhi = c->change_pct;
			}
		}
		badge = s->folded ? "folded" : nw && nb ? "mixed" :
			nw ? "regressed" : nb ? "better" : "no change";
		if (s->folded)
			strbuf_addstr(&ch, s->note);
		if (nw)
			change_range(&ch, "worse", nw, wlo, whi);
		if (nw && nb)
			strbuf_addstr(&ch, "; ");
		if (nb)
			change_range(&ch, "better", nb, blo, bhi);
		if (!ch.len)
			strbuf_addstr(&ch, "no metric moved");
		strbuf_addf(&pg->out, "<tr><td>%d/%d</td>", s->upto,
			    a->s[a->nr - 1].upto);
		td_badge(pg, badge, NULL);
		td(pg, ch.buf);
		msgid = patch_msgid(pg, series_id, s->upto);
		strbuf_addstr(&pg->out, "<td class=\"wide\">");
		if (msgid && *msgid) {
			strbuf_addstr(&pg->out, "<a href=\"https://lore.kernel."
				      "org/r/");
			url_esc(&pg->out, msgid);
			strbuf_addstr(&pg->out, "\">");
			h(pg, s->subject ? s->subject : s->label);
			strbuf_addstr(&pg->out, "</a>");
		} else {
			h(pg, s->subject ? s->subject : s->label);
		}
		strbuf_addstr(&pg->out, "</td></tr>\n");
		free(msgid);
		strbuf_release(&ch);
	}
	strbuf_addstr(&pg->out, "</tbody></table></div>\n");
}

static void patches_table(struct page *pg, const struct attribution *a)
{
	static const char *const cols[] = {
		"metric", "step", "median", "own change [95 % CI]", "own",
		"vs base [95 % CI]", "vs base",
	};
	const struct run_comparison *last;
	size_t i, j;
	int rows = 0;

	if (a->nr < 2)
		return;
	last = &a->s[a->nr - 1].cum;
	strbuf_addstr(&pg->out, "<table id=\"per-patch\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (j = 0; j < last->nr; j++) {
		const struct metric_comparison *m = &last->m[j];
		int moved = 0;

		for (i = 1; i < a->nr && !moved; i++) {
			const struct metric_comparison *o, *c;

			o = run_comparison_find(&a->s[i].own, m->workload,
						m->variant, m->metric);
			c = run_comparison_find(&a->s[i].cum, m->workload,
						m->variant, m->metric);
			moved = (o && (o->c.verdict == VERDICT_WORSE ||
				       o->c.verdict == VERDICT_BETTER)) ||
				(c && (c->c.verdict == VERDICT_WORSE ||
				       c->c.verdict == VERDICT_BETTER));
		}
		if (!moved)
			continue;
		for (i = 0; i < a->nr; i++) {
			const struct metric_comparison *o, *c;
			const struct summary *sum;
			char *name;

			o = run_comparison_find(&a->s[i].own, m->workload,
						m->variant, m->metric);
			c = run_comparison_find(&a->s[i].cum, m->workload,
						m->variant, m->metric);
			sum = c ? &c->c.new : &m->c.base;
			name = xstrfmt("%s %s (%s)", m->workload, m->metric,
				       m->unit);
			strbuf_addstr(&pg->out, "<tr>");
			td(pg, i ? "" : name);
			free(name);
			if (i) {
				char *step = xstrfmt("+%d %s", a->s[i].upto,
						     a->s[i].subject ?
						     a->s[i].subject : "");

				td(pg, step);
				free(step);
			} else {
				td(pg, "base");
			}
			strbuf_addf(&pg->out, "<td class=\"num\">%.4g</td>",
				    sum->median);
			if (o)
				change_cell(pg, &o->c);
			else
				strbuf_addstr(&pg->out, "<td></td><td></td>");
			if (c)
				change_cell(pg, &c->c);
			else
				strbuf_addstr(&pg->out, "<td></td><td></td>");
			strbuf_addstr(&pg->out, "</tr>\n");
			rows++;
		}
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
	if (!rows)
		strbuf_addstr(&pg->out, "<p class=\"note\">no step moved a "
			      "metric</p>\n");
}

/*
 * The per-boot medians of the job's base run and its head run side by
 * side, a panel per metric: the metrics that moved first, then the
 * others, WEB_MAX_PLOTS at most.
 */
static void series_per_boot(struct page *pg, const struct run_comparison *rc)
{
	struct plot plots[WEB_MAX_PLOTS];
	const struct metric_comparison *pick[WEB_MAX_PLOTS];
	char *base = xstrfmt("base #%lld", rc->base_id);
	char *new = xstrfmt("new #%lld", rc->new_id);
	size_t i, nr = 0, moved = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < rc->nr && nr < WEB_MAX_PLOTS; i++) {
			enum verdict v = rc->m[i].c.verdict;
			int m = v == VERDICT_WORSE || v == VERDICT_BETTER;

			if (m == !pass) {
				pick[nr++] = &rc->m[i];
				moved += m;
			}
		}
	strbuf_addstr(&pg->out, "<h3>Per-boot medians, base and new</h3>\n");
	memset(plots, 0, sizeof(plots));
	for (i = 0; i < nr; i++) {
		const struct metric_comparison *m = pick[i];

		plots[i].title = xstrfmt("%s %s %s (%s)", m->workload,
					 m->variant, m->metric,
					 verdict_name(m->c.verdict));
		plots[i].xlabel = xstrdup("");
		plots[i].ylabel = xstrdup(m->unit);
		plots[i].xtics[0] = xstrdup(base);
		plots[i].xtics[1] = xstrdup(new);
		plots[i].xtics_nr = 2;
		load_boot_medians(pg, rc->base_id, m, 0, 0.3,
				  plot_line(&plots[i], base));
		load_boot_medians(pg, rc->new_id, m, 1, 0.3,
				  plot_line(&plots[i], new));
		plots[i].lines[0].with = plots[i].lines[1].with =
			"points pt 7 ps 0.8";
	}
	if (nr) {
		char *caption = xstrfmt("a point per ok boot, its median; "
					"%zu of %zu metric(s) moved%s", moved,
					rc->nr, nr < rc->nr ? " (the moved "
					"ones first, the others cut)" : "");

		add_plot_id(pg, plots, nr, 220, caption, "per-boot");
		free(caption);
	}
	for (i = 0; i < nr; i++)
		plot_release(&plots[i]);
	free(base);
	free(new);
}

/* ---- vN against vN-1 ------------------------------------------------- */

/*
 * The run of the last step of the newest finished job of series
 * @series_id (the step the page's attribution ends with): 1 with *@run
 * set, 0 when there is none, -1 after error().
 */
static int series_final_run(struct db *db, long long series_id,
			    long long *run)
{
	return db_int_checked(db, run, "SELECT t.run_id FROM job_steps t "
			      "WHERE t.job_id = (SELECT max(id) FROM jobs "
			      "WHERE kind = 'series' AND series_id = ? AND "
			      "status = 'done') ORDER BY t.upto DESC LIMIT 1",
			      "i", series_id);
}

/*
 * The run of the previous version of a series to hold against @new_run,
 * the last step of the series' newest finished job: the last step of a
 * finished job of @prev measured the same way (clock, accelerator,
 * workloads, parameters, VM), the run print_versions() in series-job.c
 * holds against it in the job's output.
 * Return: 1 with *@run set, 0 when there is none, -1 after error().
 */
static int previous_version_run(struct db *db, long long prev,
				long long new_run, long long *run)
{
	return db_int_checked(db, run,
		"SELECT r.id FROM job_steps t JOIN jobs j ON j.id = t.job_id "
		"JOIN series s ON s.id = j.series_id JOIN runs r ON r.id = "
		"t.run_id JOIN runs n ON n.id = ? WHERE j.series_id = ? AND "
		"j.kind = 'series' AND j.status = 'done' AND t.upto = s.total "
		"AND r.status = 'ok' AND r.clock = n.clock AND r.accel = "
		"n.accel AND r.workloads = n.workloads AND r.params = n.params "
		"AND r.nvdimm_mib = n.nvdimm_mib AND r.vcpus = n.vcpus "
		"ORDER BY j.id DESC LIMIT 1", "ii", new_run, prev);
}

/*
 * "vN against vN-1": when the series has a previous version, its final
 * run against this version's (@new_run), a row per metric: medians side
 * by side, the change with its 95 % interval, the verdict. A previous
 * version not measured the same way yet is said, with what to run.
 */
static void series_versions(struct page *pg, long long series_id,
			    long long new_run)
{
	static const char *const cols[] = {
		"workload", "metric", NULL, NULL, "change [95 % CI]", "verdict",
	};
	const char *names[ARRAY_SIZE(cols)];
	char *old_median, *new_median;
	sqlite3_stmt *st = db_query(&pg->db, "SELECT s.version, p.id, "
				    "p.version FROM series s JOIN series p ON "
				    "p.id = s.previous_id WHERE s.id = ?", "i",
				    series_id);
	struct run_comparison rc = { 0 };
	long long prev, prev_run = 0;
	int v, pv, rcode;
	size_t i;

	if (!st) {
		page_note_error(pg, "cannot read the previous version");
		return;
	}
	if (!page_step(pg, st)) {
		sqlite3_finalize(st);
		return;
	}
	v = sqlite3_column_int(st, 0);
	prev = sqlite3_column_int64(st, 1);
	pv = sqlite3_column_int(st, 2);
	sqlite3_finalize(st);
	strbuf_addf(&pg->out, "<section id=\"versions\">\n<h2>v%d against "
		    "v%d</h2>\n", v, pv);
	rcode = new_run ? previous_version_run(&pg->db, prev, new_run,
					       &prev_run) : 0;
	if (rcode < 0) {
		page_note_error(pg, "cannot read the runs of the previous "
				"version");
		pg->status = 500;
		goto out;
	}
	if (!rcode) {
		strbuf_addf(&pg->out, "<p class=\"note\">v%d (<a href=\""
			    "/series/%lld\">series #%lld</a>) has no "
			    "finished test measured the same way (clock, "
			    "workloads, VM): run mmci test-series on it with "
			    "the same options to compare.</p>\n", pv, prev,
			    prev);
		goto out;
	}
	strbuf_addf(&pg->out, "<p>v%d is <a href=\"/series/%lld\">series "
		    "#%lld</a>: its final run #%lld against this version's "
		    "#%lld (<a class=\"cmp\" href=\"/compare/%lld/%lld\">the "
		    "comparison</a>).</p>\n", pv, prev, prev, prev_run, new_run,
		    prev_run, new_run);
	if (compare_runs(&pg->db, prev_run, new_run, &rc) < 0) {
		strbuf_addstr(&pg->out, "<p class=\"note\">not comparable: ");
		h(pg, last_error());
		strbuf_addstr(&pg->out, "</p>\n");
		goto out;
	}
	old_median = xstrfmt("v%d median", pv);
	new_median = xstrfmt("v%d median", v);
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		names[i] = cols[i];
	names[2] = old_median;
	names[3] = new_median;
	strbuf_addstr(&pg->out, "<div class=\"scroll\"><table id=\"versions-"
		      "table\">\n");
	th_row(pg, names, ARRAY_SIZE(names));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (i = 0; i < rc.nr; i++) {
		const struct metric_comparison *m = &rc.m[i];
		char *w = *m->variant ? xstrfmt("%s %s", m->workload,
						 m->variant) :
			  xstrdup(m->workload);
		char *name = xstrfmt("%s (%s)", m->metric, m->unit);

		strbuf_addstr(&pg->out, "<tr>");
		td(pg, w);
		td(pg, name);
		strbuf_addf(&pg->out, "<td class=\"num\">%.4g</td><td class="
			    "\"num\">%.4g</td>", m->c.base.median,
			    m->c.new.median);
		change_cell(pg, &m->c);
		strbuf_addstr(&pg->out, "</tr>\n");
		free(w);
		free(name);
	}
	strbuf_addstr(&pg->out, "</tbody></table></div>\n");
	free(old_median);
	free(new_median);
	run_comparison_release(&rc);
out:
	strbuf_addstr(&pg->out, "</section>\n");
}

/* the base the newest job of the series was given, and why (base.c) */
static void series_base(struct page *pg, long long series_id)
{
	sqlite3_stmt *st = db_query(&pg->db, "SELECT id, status, base_note "
				    "FROM jobs WHERE kind = 'series' AND "
				    "series_id = ? AND base_note IS NOT NULL "
				    "ORDER BY id DESC LIMIT 1", "i", series_id);

	if (!st) {
		page_note_error(pg, "cannot read the series' jobs");
		return;
	}
	if (page_step(pg, st)) {
		strbuf_addf(&pg->out, "<p id=\"base\">job #%lld (",
			    (long long)sqlite3_column_int64(st, 0));
		html_esc(&pg->out, db_col_text(st, 1));
		strbuf_addstr(&pg->out, "): ");
		html_esc(&pg->out, db_col_text(st, 2));
		strbuf_addstr(&pg->out, "</p>\n");
	}
	sqlite3_finalize(st);
}

/* the commit the patches were last applied to, and the ref it came from */
static void series_base_commit(struct page *pg, long long series_id)
{
	sqlite3_stmt *st = db_query(&pg->db, "SELECT base_commit, base_ref "
				    "FROM applies WHERE series_id = ? AND "
				    "status = 'ok' ORDER BY id DESC LIMIT 1",
				    "i", series_id);

	if (!st) {
		page_note_error(pg, "cannot read the series' applies");
		return;
	}
	if (page_step(pg, st)) {
		strbuf_addstr(&pg->out, "<p id=\"base-commit\">base commit "
			      "<code>");
		h(pg, db_col_text(st, 0));
		strbuf_addstr(&pg->out, "</code> (");
		h(pg, db_col_text(st, 1));
		strbuf_addstr(&pg->out, "): the patches were applied to "
			      "it</p>\n");
	}
	sqlite3_finalize(st);
}

/*
 * The workloads job @job measured and why: its aim (aim.h), else the
 * workloads of its run @run, as given to it.
 */
static void series_workloads(struct page *pg, long long job, long long run)
{
	struct aim aim = AIM_INIT;
	sqlite3_stmt *st;

	if (series_job_aim(&pg->db, job, &aim) > 0) {
		struct strbuf w = STRBUF_INIT;

		aim_workloads(aim.workloads, &w);
		strbuf_addstr(&pg->out, "<p id=\"aim\">measured: ");
		html_esc(&pg->out, w.buf);
		strbuf_addstr(&pg->out, ", because ");
		html_esc(&pg->out, aim.why.buf);
		strbuf_addstr(&pg->out, "</p>\n");
		strbuf_release(&w);
		aim_release(&aim);
		return;
	}
	aim_release(&aim);
	st = db_query(&pg->db, "SELECT workloads FROM runs WHERE id = ?", "i",
		      run);
	if (st && page_step(pg, st)) {
		strbuf_addstr(&pg->out, "<p id=\"aim\">measured: ");
		h(pg, db_col_text(st, 0));
		strbuf_addf(&pg->out, ", the workloads job #%lld was given "
			    "(no aim: queued by hand, or before aims)</p>\n",
			    job);
	}
	sqlite3_finalize(st);
}

/*
 * How the series was measured: the base commit, why that base, which
 * workloads and why; nothing when none of them is known.
 */
static void series_setup(struct page *pg, long long series_id, long long job,
			 long long run)
{
	size_t start = pg->out.len, head;

	strbuf_addstr(&pg->out, "<section id=\"setup\">\n<h2>Base and "
		      "workloads</h2>\n");
	head = pg->out.len;
	series_base_commit(pg, series_id);
	series_base(pg, series_id);
	if (job)
		series_workloads(pg, job, run);
	if (pg->out.len == head)
		strbuf_setlen(&pg->out, start);
	else
		strbuf_addstr(&pg->out, "</section>\n");
}

/*
 * web_series_extra() - the newest finished series job of this series,
 * what a maintainer reads first: its one verdict, a row per patch, this
 * version against the previous one, the base and workloads; then folded,
 * the per-patch table metric by metric (own and cumulative effect of each
 * patch) and the claims of the mails against the measurement, as the CLI
 * prints them (attribution.c), escaped in a <pre>.
 */
/*
 * Where the instructions went (profile.h): for each comparison of the
 * job worth a profile (series_job_profile_targets(), the same as the
 * command's and the mail's), per moved workload and variant, the
 * functions that moved most as bars, and as a table below them.
 */
#define PROFILE_PAGE_BARS 10
#define PROFILE_PAGE_ROWS 30
#define PROFILE_SVG_W 720
#define PROFILE_SVG_LABEL 300
#define PROFILE_SVG_ROW 22

static void add_count(struct strbuf *out, double v, int sign)
{
	profile_add_count(out, v, sign, "&minus;");
}

static void profile_bars(struct page *pg, const struct profile_diff *d,
			 int id)
{
	/*
	 * label | numbers | bars left of the axis | bars right | numbers;
	 * when every change has one sign, the other side is left out
	 */
	double top = 0, margin = 100, half, axis;
	size_t i, n = 0;
	int pos = 0, neg = 0;

	for (i = 0; i < d->nr && n < PROFILE_PAGE_BARS; i++, n++) {
		double c = (double)d->funcs[i].cand / d->cand_windows -
			   (double)d->funcs[i].base / d->base_windows;

		if (fabs(c) < profile_noise_floor(d))
			break;
		if (fabs(c) > top)
			top = fabs(c);
		pos |= c > 0;
		neg |= c < 0;
	}
	if (!n || top < profile_noise_floor(d))
		return;
	half = PROFILE_SVG_W - PROFILE_SVG_LABEL - margin;
	if (pos && neg)
		half = (half - margin) / 2;
	axis = neg ? PROFILE_SVG_LABEL + margin + half : PROFILE_SVG_LABEL;
	/* presentation attributes: the picture reads without the CSS */
	strbuf_addf(&pg->out, "<svg class=\"profile-bars\" id=\"profile-"
		    "bars-%d\" role=\"img\" viewBox=\"0 0 %d %zu\" "
		    "font-family=\"sans-serif\" font-size=\"12\" "
		    "aria-labelledby=\"profile-bars-%d-t\"><title id=\""
		    "profile-bars-%d-t\">change of each function's "
		    "instructions per write: to the right (red) more, to the "
		    "left (green) fewer</title>\n", id, PROFILE_SVG_W,
		    n * PROFILE_SVG_ROW + 8, id, id);
	strbuf_addf(&pg->out, "<line x1=\"%.0f\" y1=\"0\" x2=\"%.0f\" "
		    "y2=\"%zu\" stroke=\"#333\"/>\n", axis, axis,
		    n * PROFILE_SVG_ROW + 8);
	for (i = 0; i < n; i++) {
		const struct profile_func *f = &d->funcs[i];
		double c = (double)f->cand / d->cand_windows -
			   (double)f->base / d->base_windows;
		double w = half * fabs(c) / top;
		double y = 4 + i * PROFILE_SVG_ROW;

		if (w < 1)
			w = 1;
		strbuf_addf(&pg->out, "<g class=\"%s\"><rect x=\"%.1f\" "
			    "y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			    "fill=\"%s\"/><text x=\"%d\" y=\"%.1f\" "
			    "text-anchor=\"end\" fill=\"#111\">",
			    c > 0 ? "more" : "fewer", c > 0 ? axis : axis - w,
			    y, w, PROFILE_SVG_ROW - 6,
			    c > 0 ? "#b3261e" : "#1b6e3a",
			    PROFILE_SVG_LABEL - 6, y + PROFILE_SVG_ROW - 10);
		html_esc(&pg->out, f->name);
		strbuf_addf(&pg->out, "</text><text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"%s\" fill=\"#111\">",
			    c > 0 ? axis + w + 4 : axis - w - 4,
			    y + PROFILE_SVG_ROW - 10, c > 0 ? "start" : "end");
		add_count(&pg->out, c, 1);
		strbuf_addstr(&pg->out, "</text></g>\n");
	}
	strbuf_addstr(&pg->out, "</svg>\n");
}

static void profile_table(struct page *pg, const struct profile_diff *d,
			  int id)
{
	size_t i;

	strbuf_addf(&pg->out, "<details><summary>every function that moved "
		    "(at most %d)</summary>\n<div class=\"scroll\"><table "
		    "class=\"profile\" id=\"profile-table-%d\">\n<thead><tr>"
		    "<th scope=\"col\">function</th><th scope=\"col\">base, "
		    "per write</th><th scope=\"col\">new, per write</th><th "
		    "scope=\"col\">change</th><th scope=\"col\">%%</th></tr>"
		    "</thead>\n<tbody>\n", PROFILE_PAGE_ROWS, id);
	for (i = 0; i < d->nr && i < PROFILE_PAGE_ROWS; i++) {
		const struct profile_func *f = &d->funcs[i];
		double b = (double)f->base / d->base_windows;
		double c = (double)f->cand / d->cand_windows;

		if (fabs(c - b) < profile_noise_floor(d))
			break;
		strbuf_addstr(&pg->out, "<tr><td>");
		html_esc(&pg->out, f->name);
		strbuf_addstr(&pg->out, "</td><td class=\"n\">");
		add_count(&pg->out, b, 0);
		strbuf_addstr(&pg->out, "</td><td class=\"n\">");
		add_count(&pg->out, c, 0);
		strbuf_addstr(&pg->out, "</td><td class=\"n\">");
		add_count(&pg->out, c - b, 1);
		strbuf_addstr(&pg->out, "</td><td class=\"n\">");
		if (f->base && f->cand)
			strbuf_addf(&pg->out, "%+.1f", 100 * (c - b) / b);
		else
			strbuf_addstr(&pg->out, f->base ? "gone" : "new");
		strbuf_addstr(&pg->out, "</td></tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table></div></details>\n");
}

static void series_profile(struct page *pg, const struct attribution *a)
{
	const struct run_comparison *rcs[PROFILE_MAX_STEPS];
	char *what[PROFILE_MAX_STEPS];
	size_t i, k, n = series_job_profile_targets(a, rcs, what);
	int shown = 0;

	for (i = 0; i < n; i++) {
		struct profile_diff *ds = NULL;
		size_t nr = 0;

		if (profile_diffs_for(&pg->db, rcs[i], &ds, &nr) < 0)
			log_warnx("render: the profile of %s is left out: %s",
				  what[i], last_error());
		for (k = 0; k < nr; k++) {
			const struct profile_diff *d = &ds[k];
			double total = profile_diff_total(d);

			if (!shown)
				strbuf_addstr(&pg->out, "<section id=\""
					      "profile\">\n<h2>Where the "
					      "instructions went</h2>\n<p>"
					      "The same kernels booted once "
					      "more, QEMU counting each "
					      "function's instructions in the "
					      "timed writes (exclusive counts; "
					      "inlined code counts for its "
					      "caller). Per write; under icount "
					      "one instruction is one "
					      "nanosecond.</p>\n");
			strbuf_addstr(&pg->out, "<h3>");
			html_esc(&pg->out, what[i]);
			strbuf_addstr(&pg->out, ", ");
			html_esc(&pg->out, d->workload);
			if (*d->variant) {
				strbuf_addch(&pg->out, ' ');
				html_esc(&pg->out, d->variant);
			}
			strbuf_addstr(&pg->out, ": ");
			add_count(&pg->out, total, 1);
			strbuf_addstr(&pg->out, " instructions per write");
			if (d->base_insns)
				strbuf_addf(&pg->out, " (%+.1f %%)",
					    100.0 * total /
					    ((double)d->base_insns /
					     d->base_windows));
			strbuf_addstr(&pg->out, "</h3>\n");
			profile_bars(pg, d, shown);
			profile_table(pg, d, shown);
			shown++;
		}
		profile_diffs_release(ds, nr);
		free(what[i]);
	}
	if (shown)
		strbuf_addstr(&pg->out, "</section>\n");
}

static void web_series_extra(struct page *pg, long long series_id)
{
	long long job = db_int(&pg->db, 0, "SELECT id FROM jobs WHERE kind = "
			       "'series' AND series_id = ? AND status = "
			       "'done' ORDER BY id DESC LIMIT 1", "i",
			       series_id);
	struct attribution a = { 0 };
	struct run_comparison rc = { 0 };
	struct strbuf txt = STRBUF_INIT, claims = STRBUF_INIT;
	long long final = 0;

	if (!job) {
		strbuf_addstr(&pg->out, "<section id=\"summary\">\n<h2>Per "
			      "patch, and claimed vs measured</h2>\n<p id=\""
			      "no-job\">No finished test of this series "
			      "yet.</p>\n</section>\n");
		series_setup(pg, series_id, 0, 0);
		return;
	}
	if (attribution_load(&pg->db, job, &a) == 0) {
		final = a.s[a.nr - 1].run_id;
		strbuf_addf(&txt, "the runs of job #%lld, step by step:\n",
			    job);
		attribution_format_steps(&a, &txt);
		strbuf_addch(&txt, '\n');
		attribution_format(&a, &txt);
		if (compare_runs(&pg->db, a.s[0].run_id, final, &rc) == 0) {
			struct strbuf v = STRBUF_INIT;
			int regressed;

			/* the job's one verdict, as the command and the mail */
			regressed = series_job_verdict(&pg->db, job, &a, &v);
			strbuf_addf(&pg->out, "<p id=\"series-verdict\" "
				    "class=\"%s\">job #%lld: verdict: ",
				    regressed || rc.worse ? "v-worse" :
				    rc.better ? "v-better" : "v-same", job);
			html_esc(&pg->out, v.buf);
			strbuf_addstr(&pg->out, "</p>\n");
			strbuf_release(&v);
			claims_format(&pg->db, series_id, a.nr > 2 ? &a : NULL,
				      &rc, &claims);
			strbuf_addbuf(&txt, &claims);
		}
	} else {
		strbuf_addf(&txt, "job #%lld: no comparison: %s\n", job,
			    last_error());
	}
	strbuf_addstr(&pg->out, "<section id=\"summary\">\n<h2>Per patch"
		      "</h2>\n");
	if (a.nr)
		patch_summary(pg, series_id, &a);
	strbuf_addstr(&pg->out, "</section>\n");
	if (claims.len) {
		strbuf_addstr(&pg->out, "<section id=\"claims\">\n<h2>Claimed "
			      "vs measured</h2>\n<pre id=\"claims-text\">");
		html_esc(&pg->out, claims.buf + (claims.buf[0] == '\n'));
		strbuf_addstr(&pg->out, "</pre>\n</section>\n");
	}
	if (a.nr)
		series_profile(pg, &a);
	if (final)
		series_versions(pg, series_id, final);
	series_setup(pg, series_id, job, final);
	strbuf_addstr(&pg->out, "<details id=\"per-metric\"><summary>every "
		      "metric, step by step</summary>\n<div class=\"scroll\">");
	if (a.nr)
		patches_table(pg, &a);
	if (rc.nr)
		series_per_boot(pg, &rc);
	strbuf_addstr(&pg->out, "</div></details>\n<details id=\"as-text\">"
		      "<summary>the steps' runs, the per-patch table and the "
		      "claims as text</summary>\n<pre id=\"attribution\">");
	html_esc(&pg->out, txt.buf);
	strbuf_addstr(&pg->out, "</pre></details>\n");
	strbuf_release(&txt);
	strbuf_release(&claims);
	attribution_release(&a);
	run_comparison_release(&rc);
}

static void page_series(struct page *pg, long long id)
{
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT title, version, total, message_id, author, source, "
		"base_commit, problems, ingested_at, is_rfc, nr_found, missing, "
		"previous_id, (SELECT max(id) FROM series n WHERE "
		"n.previous_id = series.id) FROM series WHERE id = ?", "i", id);
	struct strbuf t = STRBUF_INIT;
	long long other;
	char *title;
	int rc;

	if (!st) {
		page_fail(pg, 500, "error",
			  "cannot read the series");
		return;
	}
	rc = db_step(&pg->db, st);
	if (rc < 0) {
		sqlite3_finalize(st);
		page_fail(pg, 500, "error", "cannot read the series");
		return;
	}
	if (rc == DB_DONE) {
		sqlite3_finalize(st);
		title = xstrfmt("no series #%lld", id);
		not_found(pg, title);
		free(title);
		return;
	}
	page_begin(pg, db_col_text(st, 0));
	/* what a maintainer reads first: the verdict, what moved, claims */
	web_series_extra(pg, id);
	strbuf_addstr(&pg->out, "<h2>Series</h2>\n<table class=\"kv\" "
		      "id=\"series-info\">\n");
	strbuf_addf(&t, "#%lld, v%d%s, %d patch(es)", id,
		    sqlite3_column_int(st, 1),
		    sqlite3_column_int(st, 9) ? " RFC" : "",
		    sqlite3_column_int(st, 2));
	kv(pg, "series", t.buf);
	kv(pg, "author", db_col_text(st, 4));
	kv_time(pg, "ingested", sqlite3_column_double(st, 8));
	strbuf_addstr(&pg->out, TH_ROW "message-id</th><td>");
	add_msgid_link(pg, db_col_text(st, 3));
	strbuf_addstr(&pg->out, "</td></tr>\n");
	kv(pg, "source", db_col_text(st, 5));
	kv(pg, "base commit", db_col_text(st, 6));
	if (*db_col_text(st, 11))
		kv(pg, "missing patches", db_col_text(st, 11));
	if (*db_col_text(st, 7))
		kv(pg, "problems", db_col_text(st, 7));
	other = sqlite3_column_int64(st, 12);
	if (other)
		strbuf_addf(&pg->out, TH_ROW "previous version</th><td><a "
			    "href=\"/series/%lld\">#%lld</a></td></tr>\n",
			    other, other);
	other = sqlite3_column_int64(st, 13);
	if (other)
		strbuf_addf(&pg->out, TH_ROW "next version</th><td><a "
			    "href=\"/series/%lld\">#%lld</a></td></tr>\n",
			    other, other);
	strbuf_addstr(&pg->out, "</table>\n");
	sqlite3_finalize(st);
	strbuf_release(&t);

	series_patches(pg, id);
	series_runs(pg, id);
	page_end(pg);
}

/* ---- /metric/WORKLOAD/METRIC ----------------------------------------- */

/* one point of a trend: one finished run */
struct trend_point {
	long long run;
	double t, value;
	int boots;
	size_t n;
	char *line, *release, *label;
};

/*
 * The points, oldest first: a run's value is the median of its per-boot
 * medians in wall-clock mode, the median of all its samples in icount
 * mode (the compare rules). Only finished runs and ok boots count.
 */
static int load_trend(struct page *pg, const char *workload,
		      const char *variant, const char *metric,
		      struct trend_point **out, size_t *nr, char **unit)
{
	struct renderer *r = (struct renderer *)pg->r;
	sqlite3_stmt *st = trend_runs(&pg->db);
	struct trend_point *p = NULL;
	size_t alloc = 0, i;
	int rc, failed = 0;

	*out = NULL;
	*nr = 0;
	*unit = NULL;
	if (!st)
		return -1;
	while ((rc = db_step(&pg->db, st)) == DB_ROW) {
		long long run = sqlite3_column_int64(st, 0);
		const struct run_values *rv = run_values_get(r, run,
			!strcmp(db_col_text(st, 2), "wall"));

		if (rv->failed)
			failed = 1;
		for (i = 0; i < rv->nr; i++) {
			const struct run_value *x = &rv->v[i];
			struct trend_point *tp;

			if (strcmp(x->workload, workload) ||
			    strcmp(x->variant, variant) ||
			    strcmp(x->metric, metric))
				continue;
			ALLOC_GROW(p, *nr + 1, alloc);
			tp = &p[(*nr)++];
			tp->run = run;
			tp->t = sqlite3_column_double(st, 1);
			tp->line = xstrdup(db_col_text(st, 3));
			tp->release = xstrdup(db_col_text(st, 4));
			tp->label = xstrdup(db_col_text(st, 5));
			tp->value = x->value;
			tp->boots = x->boots;
			tp->n = x->n;
			if (!*unit)
				*unit = xstrdup(x->unit);
			break;
		}
	}
	sqlite3_finalize(st);
	*out = p;
	return rc == DB_DONE && !failed ? 0 : -1;
}

static void page_metric(struct page *pg, const char *workload,
			const char *metric, const char *variant)
{
	static const char *const cols[] = {
		"run", "started", "label", "kernel", "value", "boots", "samples",
	};
	struct trend_point *p;
	struct plot plot = { 0 };
	size_t nr, i, j;
	char *unit, *title;

	if (load_trend(pg, workload, variant, metric, &p, &nr, &unit) < 0) {
		page_fail(pg, 500, "error",
			  "cannot read the samples");
		return;
	}
	if (!nr) {
		title = xstrfmt("no finished run measured %s %s%s%s", workload,
				metric, *variant ? " with variant " : "",
				variant);
		not_found(pg, title);
		free(title);
		free(unit);
		return;
	}
	title = xstrfmt("%s %s%s%s", workload, metric, *variant ? " " : "",
			variant);
	page_begin(pg, title);
	free(title);
	strbuf_addstr(&pg->out, "<p>One point per finished run: the median of "
		      "the per-boot medians in wall-clock mode, the median of "
		      "all samples in icount mode. Modes and set-ups are never "
		      "mixed: one line each. Unit: ");
	h(pg, unit);
	strbuf_addstr(&pg->out, ".</p>\n");

	plot.title = xstrdup("");
	plot.xlabel = xstrdup("run started (UTC)");
	plot.ylabel = xstrdup(unit);
	plot.time_x = 1;
	for (i = 0; i < nr; i++) {
		struct plot_line *l = NULL;

		if (isnan(p[i].value))
			continue;
		for (j = 0; j < plot.nr; j++)
			if (!strcmp(plot.lines[j].title, p[i].line))
				l = &plot.lines[j];
		if (!l)
			l = plot_line(&plot, p[i].line);
		plot_point(l, p[i].t, p[i].value);
	}
	add_plot(pg, &plot, 1, 360, "trend over the finished runs");
	plot_release(&plot);

	/* the numbers, line by line */
	for (j = 0; j < nr; j++) {
		int seen = 0;

		for (i = 0; i < j && !seen; i++)
			seen = !strcmp(p[i].line, p[j].line);
		if (seen)
			continue;
		strbuf_addstr(&pg->out, "<h2>");
		h(pg, p[j].line);
		strbuf_addstr(&pg->out, "</h2>\n<table class=\"trend\">\n");
		th_row(pg, cols, ARRAY_SIZE(cols));
		strbuf_addstr(&pg->out, "<tbody>\n");
		for (i = j; i < nr; i++) {
			if (strcmp(p[i].line, p[j].line))
				continue;
			strbuf_addf(&pg->out, "<tr><td><a href=\"/run/%lld\">"
				    "#%lld</a></td>", p[i].run, p[i].run);
			td_time(pg, p[i].t);
			td(pg, p[i].label);
			td(pg, p[i].release);
			td_num(pg, p[i].value);
			strbuf_addf(&pg->out, "<td class=\"num\">%d</td><td "
				    "class=\"num\">%zu</td></tr>\n", p[i].boots,
				    p[i].n);
		}
		strbuf_addstr(&pg->out, "</tbody></table>\n");
	}
	page_end(pg);
	for (i = 0; i < nr; i++) {
		free(p[i].line);
		free(p[i].release);
		free(p[i].label);
	}
	free(p);
	free(unit);
}


/* ---- /branch/REMOTE/BRANCH ------------------------------------------- */

/*
 * A branch's page: its nightly head runs (the run a done nightly job
 * records as new_run, never the "previous" head it measured again, nor a
 * series or bench run of the same set-up), night by night, per metric a
 * trend with each night's per-boot medians, the change points of
 * changepoint.c as `mmci history` finds them, and the bisect jobs whose
 * range ends at one of its heads. A branch measured for a year is a few
 * hundred nights; the newest WEB_BRANCH_NIGHTS are shown.
 */
#define WEB_BRANCH_NIGHTS 200

char *render_branch_path(const char *remote, const char *branch)
{
	if (!valid_ref_name(remote) || !valid_ref_name(branch))
		return NULL;
	return xstrfmt("branch/%s/%s.html", remote, branch);
}

/*
 * The bisect jobs of a branch's ranges: GOOD..BAD with BAD a head of one
 * of its nightlies, in full or abbreviated (migration 0016 dirties the
 * page by the same rule). ?1 remote, ?2 branch.
 */
#define BRANCH_BISECTS_SQL \
	"WITH b AS (SELECT id, status, series_ref, error, substr(series_ref, " \
	"instr(series_ref, '..') + 2) AS bad, CASE WHEN json_valid(params) " \
	"THEN params END AS p, CASE WHEN json_valid(result) THEN result END " \
	"AS res FROM jobs WHERE kind = 'bisect' AND instr(series_ref, '..') " \
	"> 0) SELECT b.id, b.status, b.series_ref, coalesce(json_extract(" \
	"b.res, '$.workload'), json_extract(b.p, '$.workload'), ''), " \
	"coalesce(json_extract(b.res, '$.variant'), json_extract(b.p, " \
	"'$.variant')), coalesce(json_extract(b.res, '$.metric'), " \
	"json_extract(b.p, '$.metric'), ''), json_extract(b.res, " \
	"'$.first_bad'), json_extract(b.res, '$.clean'), json_extract(b.res, " \
	"'$.patch.series_id'), json_extract(b.res, '$.upstream'), " \
	"b.error, min(h.commit_id) FROM b JOIN heads h ON h.remote = ?1 AND " \
	"h.branch = ?2 AND h.commit_id GLOB b.bad || '*' JOIN jobs n ON " \
	"n.head_id = h.id AND n.kind = 'nightly' WHERE length(b.bad) >= 7 " \
	"AND b.bad NOT GLOB '*[^0-9a-f]*' GROUP BY b.id ORDER BY b.id"

struct branch_bisect {
	long long job, series;
	char *status, *range, *workload, *metric, *commit;
	char *variant;		/* NULL: any */
	char *outcome;		/* what it found, one line */
};

struct night {
	long long run;
	double t;
	char *date, *commit, *line;
	int hz, wall;
	const struct run_values *rv;	/* the renderer's memo */
};

struct branch {
	const char *remote, *name;
	struct night *n;
	size_t nr, alloc;
	struct branch_bisect *b;
	size_t b_nr, b_alloc;
};

static void branch_release(struct branch *br)
{
	size_t i;

	for (i = 0; i < br->nr; i++) {
		free(br->n[i].date);
		free(br->n[i].commit);
		free(br->n[i].line);
	}
	free(br->n);
	for (i = 0; i < br->b_nr; i++) {
		struct branch_bisect *b = &br->b[i];

		free(b->status);
		free(b->range);
		free(b->workload);
		free(b->variant);
		free(b->metric);
		free(b->commit);
		free(b->outcome);
	}
	free(br->b);
}

/* the nightly head runs, oldest first */
static int branch_load_nights(struct page *pg, struct branch *br)
{
	struct renderer *r = (struct renderer *)pg->r;
	sqlite3_stmt *st = db_query(&pg->db,
		"SELECT * FROM (SELECT r.id, r.started_at, strftime('%Y-%m-%d', "
		"r.started_at, 'unixepoch'), h.commit_id, " RUN_LINE_SQL ", "
		"coalesce(r.hz, b.hz, 0), r.clock = 'wall' FROM jobs j JOIN "
		"heads h ON h.id = j.head_id JOIN runs r ON r.id = CASE WHEN "
		"json_valid(j.result) THEN json_extract(j.result, '$.new_run') "
		"END LEFT JOIN builds b ON b.id = r.build_id WHERE j.kind = "
		"'nightly' AND j.status = 'done' AND h.remote = ? AND h.branch = "
		"? AND r.status = 'ok' ORDER BY r.started_at DESC, r.id DESC "
		"LIMIT ?) ORDER BY 2, 1", "tti", br->remote, br->name,
		(long long)WEB_BRANCH_NIGHTS);
	int rc;
	size_t i;

	if (!st)
		return -1;
	while ((rc = db_step(&pg->db, st)) == DB_ROW) {
		struct night *n;

		ALLOC_GROW(br->n, br->nr + 1, br->alloc);
		n = &br->n[br->nr++];
		memset(n, 0, sizeof(*n));
		n->run = sqlite3_column_int64(st, 0);
		n->t = sqlite3_column_double(st, 1);
		n->date = xstrdup(db_col_text(st, 2));
		n->commit = xstrdup(db_col_text(st, 3));
		n->line = xstrdup(db_col_text(st, 4));
		n->hz = sqlite3_column_int(st, 5);
		n->wall = sqlite3_column_int(st, 6);
	}
	sqlite3_finalize(st);
	/*
	 * after the query: run_values_get() may write the cache; and a
	 * second time, since the memo moves while it grows (the second
	 * calls find every run in it)
	 */
	for (i = 0; i < br->nr; i++)
		run_values_get(r, br->n[i].run, br->n[i].wall);
	for (i = 0; i < br->nr; i++) {
		br->n[i].rv = run_values_get(r, br->n[i].run, br->n[i].wall);
		if (br->n[i].rv->failed)
			rc = -1;
	}
	return rc == DB_DONE ? 0 : -1;
}

static int branch_load_bisects(struct page *pg, struct branch *br)
{
	sqlite3_stmt *st = db_query(&pg->db, BRANCH_BISECTS_SQL, "tt",
				    br->remote, br->name);
	int rc;

	if (!st)
		return -1;
	while ((rc = db_step(&pg->db, st)) == DB_ROW) {
		struct branch_bisect *b;
		const char *first_bad = db_col_text(st, 6);

		ALLOC_GROW(br->b, br->b_nr + 1, br->b_alloc);
		b = &br->b[br->b_nr++];
		memset(b, 0, sizeof(*b));
		b->job = sqlite3_column_int64(st, 0);
		b->status = xstrdup(db_col_text(st, 1));
		b->range = xstrdup(db_col_text(st, 2));
		b->workload = xstrdup(db_col_text(st, 3));
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			b->variant = xstrdup(db_col_text(st, 4));
		b->metric = xstrdup(db_col_text(st, 5));
		b->series = sqlite3_column_int64(st, 8);
		b->commit = xstrdup(db_col_text(st, 11));
		if (*first_bad)
			b->outcome = xstrfmt("first bad commit %.12s%s",
					     first_bad,
					     sqlite3_column_int(st, 7) ? "" :
					     " (not clean)");
		else if (*db_col_text(st, 9))
			b->outcome = xstrfmt("upstream: the merge-base %.12s "
					     "moved already",
					     db_col_text(st, 9));
		else if (!strcmp(b->status, "done"))
			b->outcome = xstrdup("no change between the ends");
		else if (!strcmp(b->status, "failed"))
			b->outcome = xstrfmt("failed: %s", db_col_text(st, 10));
		else
			b->outcome = xstrdup(b->status);
	}
	sqlite3_finalize(st);
	return rc == DB_DONE ? 0 : -1;
}

/* the bisect of this metric whose range ends at @commit, or NULL */
static const struct branch_bisect *night_bisect(const struct branch *br,
						const struct run_value *m,
						const char *commit)
{
	size_t i;

	for (i = 0; i < br->b_nr; i++) {
		const struct branch_bisect *b = &br->b[i];

		if (!strcmp(b->commit, commit) &&
		    !strcmp(b->workload, m->workload) &&
		    !strcmp(b->metric, m->metric) &&
		    (!b->variant || !strcmp(b->variant, m->variant)))
			return b;
	}
	return NULL;
}

/* the value of metric @m in night @n, or NULL */
static const struct run_value *night_value(const struct night *n,
					   const struct run_value *m)
{
	size_t i;

	for (i = 0; i < n->rv->nr; i++) {
		const struct run_value *x = &n->rv->v[i];

		if (!strcmp(x->workload, m->workload) &&
		    !strcmp(x->variant, m->variant) &&
		    !strcmp(x->metric, m->metric) && !strcmp(x->unit, m->unit))
			return x;
	}
	return NULL;
}

/* one metric of a branch: its nights, by set-up line */
struct branch_point {
	const struct night *n;
	double value;
	double cp_pct;		/* a change point starts here; NAN if not */
	const struct branch_bisect *bisect;
	struct unit_values u;	/* per-boot medians */
};

static void branch_metric(struct page *pg, const struct branch *br,
			  const struct run_value *m, int k)
{
	static const char *const cols[] = {
		"night", "set-up", "head commit", "median", "per-boot medians",
		"boots", "run", "marks",
	};
	struct branch_point *p = xcalloc(br->nr ? br->nr : 1, sizeof(*p));
	struct plot plot = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char **lines = NULL;
	size_t nr = 0, i, j, l, lines_nr = 0, lines_alloc = 0;
	double *x = xmalloc((br->nr ? br->nr : 1) * sizeof(*x));

	for (i = 0; i < br->nr; i++) {
		const struct run_value *v = night_value(&br->n[i], m);

		if (!v || !isfinite(v->value))
			continue;
		p[nr].n = &br->n[i];
		p[nr].value = v->value;
		p[nr].cp_pct = NAN;
		p[nr].bisect = night_bisect(br, m, br->n[i].commit);
		run_units(&pg->db, br->n[i].run, m->workload, m->variant,
			  m->metric, 1, &p[nr].u);
		for (l = 0; l < lines_nr; l++)
			if (!strcmp(lines[l], br->n[i].line))
				break;
		if (l == lines_nr) {
			ALLOC_GROW(lines, lines_nr + 1, lines_alloc);
			lines[lines_nr++] = br->n[i].line;
		}
		nr++;
	}

	strbuf_addf(&pg->out, "<h2 id=\"metric-%d\">", k);
	h(pg, m->workload);
	strbuf_addch(&pg->out, ' ');
	h(pg, m->metric);
	if (*m->variant) {
		strbuf_addstr(&pg->out, " <small>");
		h(pg, m->variant);
		strbuf_addstr(&pg->out, "</small>");
	}
	strbuf_addstr(&pg->out, " <small>(");
	h(pg, m->unit);
	strbuf_addstr(&pg->out, ", <a href=\"");
	metric_href(pg, m->workload, m->variant, m->metric);
	strbuf_addstr(&pg->out, "\">every run</a>)</small></h2>\n");

	/* change points per set-up line, as `mmci history` finds them */
	strbuf_addf(&pg->out, "<ul class=\"cps\" id=\"cp-%d\">\n", k);
	for (l = 0; l < lines_nr; l++) {
		struct cp_opts opts = CP_OPTS_INIT;
		struct cp_result res;
		size_t *idx = xmalloc(nr * sizeof(*idx)), n = 0, c;

		for (i = 0; i < nr; i++) {
			double res_i;

			if (strcmp(p[i].n->line, lines[l]))
				continue;
			res_i = metric_resolution(m->workload, m->metric,
						  p[i].n->hz);
			if (res_i > opts.resolution)
				opts.resolution = res_i;
			idx[n] = i;
			x[n++] = p[i].value;
		}
		strbuf_addstr(&pg->out, "<li>");
		if (lines_nr > 1) {
			h(pg, lines[l]);
			strbuf_addstr(&pg->out, ": ");
		}
		if (changepoint_detect(x, n, &opts, &res) < 0 ||
		    res.status == CP_INSUFFICIENT) {
			strbuf_addstr(&pg->out, "change points: insufficient "
				      "data");
			if (res.reason[0]) {
				strbuf_addstr(&pg->out, " (");
				h(pg, res.reason);
				strbuf_addch(&pg->out, ')');
			}
		} else if (!res.nr) {
			strbuf_addf(&pg->out, "change points: none in %zu "
				    "nights", n);
		} else {
			strbuf_addf(&pg->out, "change points: %zu in %zu "
				    "nights:", res.nr, n);
			for (c = 0; c < res.nr; c++) {
				struct branch_point *bp = &p[idx[res.cp[c].index]];

				bp->cp_pct = res.cp[c].change_pct;
				strbuf_addf(&pg->out, "%s %s (run #%lld) %+.2f %%"
					    ", p %.2g", c ? "," : "",
					    bp->n->date, bp->n->run,
					    res.cp[c].change_pct, res.cp[c].p);
			}
		}
		strbuf_addstr(&pg->out, "</li>\n");
		cp_result_release(&res);
		free(idx);
	}
	strbuf_addstr(&pg->out, "</ul>\n");

	plot.title = xstrdup("");
	plot.xlabel = xstrdup("night (UTC)");
	plot.ylabel = xstrdup(m->unit);
	plot.time_x = 1;
	for (l = 0; l < lines_nr; l++) {
		const char *suffix = lines_nr > 1 ? lines[l] : NULL;
		struct plot_line *med, *spread, *cp, *bis;
		char *t;

		t = xstrfmt("median%s%s", suffix ? ", " : "",
			    suffix ? suffix : "");
		med = plot_line(&plot, t);
		free(t);
		t = xstrfmt("per-boot medians%s%s", suffix ? ", " : "",
			    suffix ? suffix : "");
		spread = plot_line(&plot, t);
		spread->with = "points pt 1 ps 0.6";
		free(t);
		t = xstrfmt("change point%s%s", suffix ? ", " : "",
			    suffix ? suffix : "");
		cp = plot_line(&plot, t);
		cp->with = "points pt 6 ps 2.5 lw 2";
		free(t);
		t = xstrfmt("bisected%s%s", suffix ? ", " : "",
			    suffix ? suffix : "");
		bis = plot_line(&plot, t);
		bis->with = "points pt 8 ps 2.5 lw 2";
		free(t);
		for (i = 0; i < nr; i++) {
			if (strcmp(p[i].n->line, lines[l]))
				continue;
			plot_point(med, p[i].n->t, p[i].value);
			for (j = 0; j < p[i].u.nr; j++)
				plot_point(spread, p[i].n->t, p[i].u.v[j]);
			if (!isnan(p[i].cp_pct))
				plot_point(cp, p[i].n->t, p[i].value);
			if (p[i].bisect)
				plot_point(bis, p[i].n->t, p[i].value);
		}
	}
	strbuf_addf(&sb, "plot-%d", k);
	add_plot_id(pg, &plot, 1, 300, "a night's median (the run's value) "
		    "and the median of each of its ok boots; circles: change "
		    "points, triangles: nights a bisection started from", sb.buf);
	plot_release(&plot);

	strbuf_addf(&pg->out, "<table class=\"trend\" id=\"trend-%d\">\n", k);
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (i = 0; i < nr; i++) {
		const struct branch_point *bp = &p[i];
		struct summary s;
		int marks = 0;

		strbuf_addf(&pg->out, "<tr id=\"trend-%d-run-%lld\"%s>", k,
			    bp->n->run, isnan(bp->cp_pct) ? "" :
			    " class=\"cp\"");
		td(pg, bp->n->date);
		td(pg, bp->n->line);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.12s", bp->n->commit);
		strbuf_addstr(&pg->out, "<td><code>");
		h(pg, sb.buf);
		strbuf_addstr(&pg->out, "</code></td>");
		td_num(pg, bp->value);
		if (bp->u.nr) {
			summarize(bp->u.v, bp->u.nr, &s);
			strbuf_addstr(&pg->out, "<td class=\"num\">");
			add_num(pg, s.min);
			strbuf_addstr(&pg->out, " .. ");
			add_num(pg, s.max);
			strbuf_addstr(&pg->out, "</td>");
		} else {
			strbuf_addstr(&pg->out, "<td>-</td>");
		}
		strbuf_addf(&pg->out, "<td class=\"num\">%d</td><td><a href=\""
			    "/run/%lld\">#%lld</a></td><td class=\"marks\">",
			    bp->u.boots, bp->n->run, bp->n->run);
		if (!isnan(bp->cp_pct)) {
			strbuf_addf(&pg->out, "<span class=\"cp\">change point "
				    "%+.2f %%</span>", bp->cp_pct);
			marks++;
		}
		if (bp->bisect) {
			strbuf_addf(&pg->out, "%s<span class=\"bisect\">bisect "
				    "job #%lld: ", marks ? "; " : "",
				    bp->bisect->job);
			h(pg, bp->bisect->outcome);
			strbuf_addstr(&pg->out, "</span>");
		}
		strbuf_addstr(&pg->out, "</td></tr>\n");
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");

	for (i = 0; i < nr; i++)
		unit_values_release(&p[i].u);
	free(p);
	free(x);
	free(lines);
	strbuf_release(&sb);
}

static void branch_bisects(struct page *pg, const struct branch *br)
{
	static const char *const cols[] = {
		"job", "range", "metric", "status", "result", "on the list",
	};
	size_t i;

	strbuf_addstr(&pg->out, "<h2>Bisections of its ranges</h2>\n");
	if (!br->b_nr) {
		strbuf_addstr(&pg->out, "<p class=\"note\" id=\"no-bisects\">"
			      "no bisect job for a range of this branch</p>\n");
		return;
	}
	strbuf_addstr(&pg->out, "<table id=\"bisects\">\n");
	th_row(pg, cols, ARRAY_SIZE(cols));
	strbuf_addstr(&pg->out, "<tbody>\n");
	for (i = 0; i < br->b_nr; i++) {
		const struct branch_bisect *b = &br->b[i];
		const char *dots = strstr(b->range, "..");
		struct strbuf t = STRBUF_INIT;

		strbuf_addf(&pg->out, "<tr id=\"bisect-%lld\"><td>#%lld</td>",
			    b->job, b->job);
		if (dots)
			strbuf_addf(&t, "%.*s..%.12s", (int)(dots - b->range >
				    12 ? 12 : dots - b->range), b->range,
				    dots + 2);
		td(pg, t.buf);
		strbuf_reset(&t);
		strbuf_addf(&t, "%s %s%s%s", b->workload, b->metric,
			    b->variant && *b->variant ? " " : "",
			    b->variant ? b->variant : "");
		td(pg, t.buf);
		td_status(pg, b->status);
		td(pg, b->outcome);
		if (b->series)
			strbuf_addf(&pg->out, "<td><a href=\"/series/%lld\">"
				    "series #%lld</a></td>", b->series,
				    b->series);
		else
			strbuf_addstr(&pg->out, "<td>-</td>");
		strbuf_addstr(&pg->out, "</tr>\n");
		strbuf_release(&t);
	}
	strbuf_addstr(&pg->out, "</tbody></table>\n");
}

static void page_branch(struct page *pg, const char *remote,
			const char *name)
{
	struct branch br = { .remote = remote, .name = name };
	struct run_value *metrics = NULL;
	size_t nr = 0, alloc = 0, i, j;
	long long jobs = 0;
	char *title;

	if (branch_load_nights(pg, &br) < 0 ||
	    branch_load_bisects(pg, &br) < 0) {
		page_fail(pg, 500, "error", "cannot read the branch's nightly "
			  "jobs");
		branch_release(&br);
		return;
	}
	title = xstrfmt("%s/%s: nightly", remote, name);
	if (!br.nr && db_int_checked(&pg->db, &jobs, "SELECT count(*) FROM "
				     "jobs j JOIN heads h ON h.id = j.head_id "
				     "WHERE j.kind = 'nightly' AND h.remote = "
				     "? AND h.branch = ?", "tt", remote,
				     name) < 0) {
		free(title);
		page_fail(pg, 500, "error", "cannot read the branch's nightly "
			  "jobs");
		branch_release(&br);
		return;
	}
	if (!br.nr && !jobs) {
		free(title);
		title = xstrfmt("no nightly job measured %s/%s", remote, name);
		not_found(pg, title);
		free(title);
		branch_release(&br);
		return;
	}
	page_begin(pg, title);
	free(title);
	strbuf_addf(&pg->out, "<p id=\"branch-info\">The head of the branch, "
		    "measured by each nightly job that finished: %zu night(s)"
		    "%s. A night's value is the run's value (the median of its "
		    "per-boot medians on the wall clock, of its samples in "
		    "icount mode); change points are those of <code>mmci "
		    "history</code>, per mode and set-up.</p>\n", br.nr,
		    br.nr == WEB_BRANCH_NIGHTS ? ", the newest" : "");

	/* every metric of its nights, in the order of the index */
	for (i = 0; i < br.nr; i++)
		for (j = 0; j < br.n[i].rv->nr; j++) {
			const struct run_value *v = &br.n[i].rv->v[j];
			struct metric_count a = { v, 0 };
			size_t k;

			for (k = 0; k < nr; k++) {
				struct metric_count b = { &metrics[k], 0 };

				if (!metric_count_cmp(&a, &b))
					break;
			}
			if (k == nr) {
				ALLOC_GROW(metrics, nr + 1, alloc);
				metrics[nr++] = *v;	/* strings not owned */
			}
		}
	if (nr) {
		struct metric_count *mc = xcalloc(nr, sizeof(*mc));

		for (i = 0; i < nr; i++)
			mc[i].v = &metrics[i];
		qsort(mc, nr, sizeof(*mc), metric_count_cmp);
		for (i = 0; i < nr; i++)
			branch_metric(pg, &br, mc[i].v, (int)i);
		free(mc);
	} else {
		strbuf_addstr(&pg->out, "<p class=\"note\" id=\"no-nights\">no "
			      "nightly job of this branch finished with a "
			      "measured head yet</p>\n");
	}
	branch_bisects(pg, &br);
	free(metrics);
	branch_release(&br);
	page_end(pg);
}

void render_error_page(struct strbuf *out, const char *title, const char *msg)
{
	struct page pg = { .status = 200 };

	pg.out = *out;
	page_fail(&pg, 404, title, msg);
	*out = pg.out;
}

/* ---- pages as files -------------------------------------------------- */

/*
 * The layout under www/ (web.c maps URLs onto it, web/nginx-mmci.conf
 * does the same): bump RENDER_VERSION when it or the pages change, and
 * the next start renders everything again.
 */
#define RENDER_VERSION 5
#define RENDER_ALL_COMPARE 20	/* newest runs whose compare page a full
				 * render writes (a gnuplot each, 120 ms);
				 * older ones on demand */
#define RENDER_ONDEMAND_MAX 500	/* on-demand compare pages kept */
#define RENDER_QUEUE_MAX 64	/* requests queued per pass */
#define RENDER_RUNNING_S 5	/* s between pages of a running run */

/* a list of page keys, each once */
struct keyset {
	char **k;
	size_t nr, alloc;
};

static void keyset_add(struct keyset *ks, char *key)
{
	size_t i;

	for (i = 0; i < ks->nr; i++)
		if (!strcmp(ks->k[i], key)) {
			free(key);
			return;
		}
	ALLOC_GROW(ks->k, ks->nr + 1, ks->alloc);
	ks->k[ks->nr++] = key;
}

static void keyset_release(struct keyset *ks)
{
	size_t i;

	for (i = 0; i < ks->nr; i++)
		free(ks->k[i]);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}

static void page_init(struct page *pg, struct renderer *r)
{
	memset(pg, 0, sizeof(*pg));
	pg->r = r;
	pg->db = r->db;		/* a copy of the handle, not owned */
	pg->status = 200;
	strbuf_init(&pg->out, 16384);
}

/*
 * Write @sb to www/@rel unless the file already holds exactly that: a
 * temporary file renamed over the old one, so a reader (this server,
 * nginx) sees the old page or the new one, never half of one. No fsync:
 * a page lost in a crash is rendered again from the database.
 */
static int store(struct renderer *r, const char *rel, const struct strbuf *sb)
{
	char *path = xstrfmt("%s/%s", r->www, rel);
	char *tmp = NULL, *slash;
	struct strbuf old = STRBUF_INIT;
	int fd = -1, ret = -1;
	ssize_t n;

	if (strbuf_read_file(&old, path, 0) >= 0 && old.len == sb->len &&
	    !memcmp(old.buf, sb->buf, sb->len)) {
		r->same++;
		ret = 0;
		goto out;
	}
	slash = strrchr(path, '/');
	*slash = '\0';
	if (mkdir_p(path, 0755) < 0)
		goto out;
	*slash = '/';
	tmp = xstrfmt("%s.tmp%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_errno("cannot create '%s'", tmp);
		goto out;
	}
	n = write(fd, sb->buf, sb->len);
	if (close(fd) < 0 || n != (ssize_t)sb->len) {
		error_errno("cannot write '%s'", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		error_errno("cannot rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		goto out;
	}
	r->pages++;
	ret = 0;
out:
	strbuf_release(&old);
	free(path);
	free(tmp);
	return ret;
}

/* a rendered page to its file; a page that is gone (404) loses its file */
static int page_store(struct page *pg, const char *rel)
{
	struct renderer *r = (struct renderer *)pg->r;
	int ret = 0;

	if (pg->status == 200 && pg->plots) {
		struct held_page *hp;

		ALLOC_GROW(r->held, r->held_nr + 1, r->held_alloc);
		hp = &r->held[r->held_nr++];
		hp->rel = xstrdup(rel);
		hp->out = pg->out;	/* handed over */
		strbuf_init(&pg->out, 0);
	} else if (pg->status == 200) {
		ret = store(r, rel, &pg->out);
	} else if (pg->status == 404) {
		char *path = xstrfmt("%s/%s", r->www, rel);

		if (unlink(path) < 0 && errno != ENOENT)
			ret = error_errno("cannot remove '%s'", path);
		free(path);
	} else {
		/* keep the last good page; the key stays dirty */
		ret = error("page '%s' failed (HTTP %d), the old one stays",
			    rel, pg->status);
	}
	strbuf_release(&pg->out);
	return ret;
}

/* remove the batch's files */
static void plots_clean(struct renderer *r)
{
	DIR *d = r->plot_dir ? opendir(r->plot_dir) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xstrfmt("%s/%s", r->plot_dir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	if (r->plot_dir)
		rmdir(r->plot_dir);
	free(r->plot_dir);
	r->plot_dir = NULL;
	r->plot_nr = 0;
	strbuf_reset(&r->plot_gp);
}

/* one gnuplot for the batch, then the held pages with their plots */
static int plots_flush(struct renderer *r)
{
	struct strbuf why = STRBUF_INIT, svg = STRBUF_INIT;
	struct strbuf page = STRBUF_INIT;
	int errors = 0, rc = 0;
	size_t i;

	if (r->plot_nr) {
		char *gp_p = xstrfmt("%s/all.gp", r->plot_dir);
		char *log_p = xstrfmt("%s/log", r->plot_dir);
		const char *argv[] = { r->gnuplot, "-d", gp_p, NULL };
		struct child_process cmd = CHILD_PROCESS_INIT;

		if (write_file(gp_p, r->plot_gp.buf, r->plot_gp.len) < 0) {
			rc = -1;
			strbuf_addstr(&why, "no plot: cannot write its input");
		} else {
			cmd.argv = argv;
			cmd.log_path = log_p;
			cmd.timeout_s = PLOT_TIMEOUT + 2 * r->plot_nr;
			rc = run_command(&cmd);
			log_debug("render: gnuplot drew %d plot(s) in %.0f ms",
				  r->plot_nr, (now_s() - cmd.start_s) * 1e3);
		}
		if (rc > 0) {
			struct strbuf log = STRBUF_INIT;

			strbuf_read_file(&log, log_p, 0);
			strbuf_trim(&log);
			strbuf_addf(&why, "no plot: gnuplot failed (exit %d)%s%s",
				    rc, log.len ? ": " : "", log.buf);
			strbuf_release(&log);
		}
		free(gp_p);
		free(log_p);
	}
	for (i = 0; i < r->held_nr; i++) {
		struct held_page *hp = &r->held[i];
		const char *p = hp->out.buf, *mark;

		strbuf_reset(&page);
		while ((mark = strchr(p, PLOT_MARK))) {
			char *end, *path;
			long n = strtol(mark + 1, &end, 10);
			const char *start;

			strbuf_add(&page, p, mark - p);
			path = xstrfmt("%s/%ld.svg", r->plot_dir ? r->plot_dir :
				       "/nonexistent", n);
			strbuf_reset(&svg);
			if (strbuf_read_file(&svg, path, 0) >= 0 &&
			    (start = strstr(svg.buf, "<svg"))) {
				strbuf_addstr(&page, start);
			} else {
				strbuf_addstr(&page, "<p class=\"note\" "
					      "id=\"noplot\">");
				html_esc(&page, why.len ? why.buf :
					 "no plot: gnuplot wrote no SVG");
				strbuf_addstr(&page, "</p>");
			}
			free(path);
			p = *end == PLOT_MARK + 1 ? end + 1 : end;
		}
		strbuf_addstr(&page, p);
		errors += store(r, hp->rel, &page) < 0;
		free(hp->rel);
		strbuf_release(&hp->out);
	}
	r->held_nr = 0;
	plots_clean(r);
	strbuf_release(&why);
	strbuf_release(&svg);
	strbuf_release(&page);
	return errors ? -1 : 0;
}

/* www/metric/W/M/v=VARIANT.html, VARIANT as url_esc() writes it */
static char *metric_rel(const char *workload, const char *metric,
			const char *variant)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "metric/%s/%s/v=", workload, metric);
	url_esc(&sb, variant);
	strbuf_addstr(&sb, ".html");
	return strbuf_detach(&sb, NULL);
}

char *render_metric_path(const char *workload, const char *metric,
			 const char *variant)
{
	if (!valid_name(workload) || !valid_name(metric) ||
	    strlen(variant) > 256)
		return NULL;
	return metric_rel(workload, metric, variant);
}

/* render one key: "index", "run/N", "series/N", "compare/A-B",
 * "ondemand/A-B", "metric/W/M?VARIANT", "branch/REMOTE/BRANCH" */
static int render_key_1(struct renderer *r, const char *key);

static int render_key(struct renderer *r, const char *key)
{
	struct timespec t0, t1;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = render_key_1(r, key);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_debug("render: %s in %.0f ms", key, (t1.tv_sec - t0.tv_sec) *
		  1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return ret;
}

/*
 * www/bundle/N.json.gz of a finished run (bundle.h), served as
 * /bundle/N. The same rows give the same bytes (zlib writes no time), so
 * store() leaves an unchanged bundle alone.
 */
static void store_bundle(struct renderer *r, long long id)
{
	struct strbuf gz = STRBUF_INIT;
	json_t *b = NULL;
	char *rel;

	long long done = 0;

	if (db_int_checked(&r->db, &done, "SELECT count(*) FROM runs WHERE "
			   "id = ? AND status != 'running'", "i", id) < 0)
		warning("run #%lld: its bundle was not written", id);
	if (done != 1)
		return;
	rel = xstrfmt("bundle/%lld.json.gz", id);
	if (bundle_make(&r->db, id, &b) < 0 || bundle_gzip(b, &gz) < 0 ||
	    store(r, rel, &gz) < 0)
		warning("run #%lld: its bundle was not written", id);
	json_decref(b);
	strbuf_release(&gz);
	free(rel);
}

static int render_key_1(struct renderer *r, const char *key)
{
	struct page pg;
	const char *rest;
	long long a, b;
	char *rel = NULL;
	int ret;

	page_init(&pg, r);
	if (!strcmp(key, "index")) {
		page_index(&pg);
		return page_store(&pg, "index.html");
	}
	if (skip_prefix(key, "run/", &rest) && !parse_id(rest, &a)) {
		page_run(&pg, a);
		if (pg.status == 200)
			store_bundle(r, a);
		rel = xstrfmt("run/%lld.html", a);
	} else if (skip_prefix(key, "series/", &rest) && !parse_id(rest, &a)) {
		page_series(&pg, a);
		rel = xstrfmt("series/%lld.html", a);
	} else if ((skip_prefix(key, "compare/", &rest) ||
		    skip_prefix(key, "ondemand/", &rest)) &&
		   sscanf(rest, "%lld-%lld", &a, &b) == 2 && a > 0 && b > 0) {
		page_compare(&pg, a, b);
		rel = xstrfmt("%.*s/%lld-%lld.html", (int)(rest - key - 1),
			      key, a, b);
	} else if (skip_prefix(key, "metric/", &rest)) {
		const char *slash = strchr(rest, '/');
		const char *q = slash ? strchr(slash, '?') : NULL;
		char *w = slash ? xstrndup(rest, slash - rest) : NULL;
		char *m = q ? xstrndup(slash + 1, q - slash - 1) : NULL;

		if (w && m && (rel = render_metric_path(w, m, q + 1)))
			page_metric(&pg, w, m, q + 1);
		free(w);
		free(m);
	} else if (skip_prefix(key, "branch/", &rest)) {
		const char *slash = strchr(rest, '/');
		char *remote = slash ? xstrndup(rest, slash - rest) : NULL;

		rel = remote ? render_branch_path(remote, slash + 1) : NULL;
		if (rel) {
			page_branch(&pg, remote, slash + 1);
		} else {
			/* a name no file can have (the triggers take any):
			 * no page, and nothing wrong with the pass */
			log_debug("render: no page for '%s'", key);
			free(remote);
			strbuf_release(&pg.out);
			return 0;
		}
		free(remote);
	}
	if (!rel) {
		strbuf_release(&pg.out);
		return error("no page key '%s'", key);
	}
	ret = page_store(&pg, rel);
	free(rel);
	return ret;
}

/*
 * The pages that hold series @id against another version: the next
 * version's page, and the compare page of the final runs of this version
 * and the previous one, which the series page links.
 * Return: 0, or -1 after error() when they could not be read.
 */
static int expand_versions(struct renderer *r, struct keyset *ks,
			   long long id)
{
	struct db *db = &r->db;
	long long next = 0, prev = 0, final = 0, prev_run = 0;

	if (db_int_checked(db, &next, "SELECT max(id) FROM series WHERE "
			   "previous_id = ?", "i", id) < 0 ||
	    db_int_checked(db, &prev, "SELECT previous_id FROM series WHERE "
			   "id = ?", "i", id) < 0 ||
	    series_final_run(db, id, &final) < 0 ||
	    (prev && final &&
	     previous_version_run(db, prev, final, &prev_run) < 0))
		return error("series #%lld: cannot read its versions", id);
	if (next)
		keyset_add(ks, xstrfmt("series/%lld", next));
	if (prev_run)
		keyset_add(ks, xstrfmt("compare/%lld-%lld", prev_run, final));
	return 0;
}

/*
 * The compare pages a series page links: each run against its base.
 * Return: 0, or -1 after error() when they could not be read (the keys
 * read before the failure are added).
 */
static int expand_series(struct renderer *r, struct keyset *ks,
			 long long id)
{
	sqlite3_stmt *st = db_query(&r->db,
		"SELECT r.id, (SELECT r2.id FROM runs r2 JOIN builds b2 ON "
		"b2.id = r2.build_id WHERE r2.id < r.id AND b2.series_id IS "
		"NULL AND b2.commit_id IN (SELECT base_commit FROM applies "
		"WHERE series_id = ?1) AND r2.clock = r.clock AND r2.accel = "
		"r.accel AND r2.status = 'ok' ORDER BY r2.id DESC LIMIT 1) "
		"FROM runs r JOIN builds b ON b.id = r.build_id WHERE "
		"b.series_id = ?1 ORDER BY r.id", "i", id);
	int rc;

	keyset_add(ks, xstrfmt("series/%lld", id));
	if (!st)
		return error("series #%lld: cannot read its runs", id);
	while ((rc = db_step(&r->db, st)) == DB_ROW)
		if (sqlite3_column_int64(st, 1))
			keyset_add(ks, xstrfmt("compare/%lld-%lld",
					       (long long)sqlite3_column_int64(st, 1),
					       (long long)sqlite3_column_int64(st, 0)));
	sqlite3_finalize(st);
	if (rc < 0)
		return error("series #%lld: cannot read its runs", id);
	return expand_versions(r, ks, id);
}

/* forget the on-demand compare pages of run @id: they are stale */
static void drop_ondemand(struct renderer *r, long long id)
{
	char *dir = xstrfmt("%s/ondemand", r->www);
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		long long a, b;

		if (sscanf(de->d_name, "%lld-%lld.html", &a, &b) == 2 &&
		    (a == id || b == id)) {
			char *p = xstrfmt("%s/%s", dir, de->d_name);

			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

/*
 * A run changed: its page, the index, its compare page against the
 * previous run measured the same way, its series' page and compare
 * pages, and when it is finished the metric pages of its metrics.
 * Return: 0, or -1 after error() when what the run's pages are could not
 * be read (the keys found before the failure are added).
 */
static int expand_run(struct renderer *r, struct keyset *ks, long long id)
{
	long long prev, series = 0;
	sqlite3_stmt *st;
	int rc, ret = 0;

	keyset_add(ks, xstrfmt("run/%lld", id));
	keyset_add(ks, xstrdup("index"));
	prev = previous_like(&r->db, id);
	if (prev < 0)
		ret = -1;
	else if (prev)
		keyset_add(ks, xstrfmt("compare/%lld-%lld", prev, id));
	drop_ondemand(r, id);
	if (db_int_checked(&r->db, &series, "SELECT b.series_id FROM runs r "
			   "JOIN builds b ON b.id = r.build_id WHERE r.id = ?",
			   "i", id) < 0)
		ret = -1;
	else if (series && expand_series(r, ks, series) < 0)
		ret = -1;
	st = db_query(&r->db, "SELECT h.remote, h.branch FROM runs r JOIN jobs "
		      "j ON j.id = r.job_id JOIN heads h ON h.id = j.head_id "
		      "WHERE r.id = ? AND j.kind = 'nightly'", "i", id);
	rc = st ? db_step(&r->db, st) : -1;
	if (rc == DB_ROW)
		keyset_add(ks, xstrfmt("branch/%s/%s", db_col_text(st, 0),
				       db_col_text(st, 1)));
	else if (rc < 0)
		ret = -1;
	sqlite3_finalize(st);
	cache_drop(r, id);
	st = db_query(&r->db, "SELECT clock = 'wall' FROM runs WHERE id = ? "
		      "AND status = 'ok'", "i", id);
	rc = st ? db_step(&r->db, st) : -1;
	if (rc == DB_ROW) {
		const struct run_values *rv = run_values_get(r, id,
			sqlite3_column_int(st, 0));
		size_t i;

		if (rv->failed)
			ret = -1;
		for (i = 0; i < rv->nr; i++)
			keyset_add(ks, xstrfmt("metric/%s/%s?%s",
					       rv->v[i].workload,
					       rv->v[i].metric,
					       rv->v[i].variant));
	} else if (rc < 0) {
		ret = -1;
	}
	sqlite3_finalize(st);
	if (ret < 0)
		return error("run #%lld: cannot read which pages show it", id);
	return 0;
}

/* the pages of a dirty key; 0, or -1 after error() */
static int expand_key(struct renderer *r, struct keyset *ks, const char *key)
{
	const char *rest;
	long long id;

	if (skip_prefix(key, "run/", &rest) && !parse_id(rest, &id))
		return expand_run(r, ks, id);
	if (skip_prefix(key, "series/", &rest) && !parse_id(rest, &id))
		return expand_series(r, ks, id);
	keyset_add(ks, xstrdup(key));
	return 0;
}

/* www/.ids: the newest run and series, for the server's 404s */
static int store_ids(struct renderer *r)
{
	struct strbuf sb = STRBUF_INIT;
	long long runs = 0, series = 0;
	int ret;

	/* a failed read is not "no run": the server would 404 them all */
	if (db_int_checked(&r->db, &runs, "SELECT coalesce(max(id), 0) FROM "
			   "runs", "") < 0 ||
	    db_int_checked(&r->db, &series, "SELECT coalesce(max(id), 0) "
			   "FROM series", "") < 0)
		return -1;
	strbuf_addf(&sb, "runs %lld\nseries %lld\n", runs, series);
	ret = store(r, ".ids", &sb);
	strbuf_release(&sb);
	return ret;
}

/* every page: after the first start, a new layout, `--render --all` */
static int render_all(struct renderer *r)
{
	struct keyset ks = { 0 };
	sqlite3_stmt *st;
	long long max = 0;
	int errors = 0, rc;
	size_t i;

	progress("rendering every page into %s", r->www);
	errors += render_key(r, "index") < 0;
	/* nginx's 404 page (web/nginx-mmci.conf) */
	{
		struct strbuf nf = STRBUF_INIT;

		render_error_page(&nf, "404 not found", "no page here");
		errors += store(r, "404.html", &nf) < 0;
		strbuf_release(&nf);
	}
	/* each list of pages read to its end, or the pass is not complete
	 * (a step error ends a loop as the last row would) */
	errors += db_int_checked(&r->db, &max, "SELECT coalesce(max(id), 0) "
				 "FROM runs", "") < 0;
	st = db_query(&r->db, "SELECT id FROM runs ORDER BY id DESC", "");
	while (st && (rc = db_step(&r->db, st)) == DB_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		char *key = xstrfmt("run/%lld", id);
		long long prev;

		errors += render_key(r, key) < 0;
		free(key);
		if (id <= max - RENDER_ALL_COMPARE)
			continue;
		prev = previous_like(&r->db, id);
		errors += prev < 0;
		if (prev > 0) {
			key = xstrfmt("compare/%lld-%lld", prev, id);
			errors += render_key(r, key) < 0;
			free(key);
		}
	}
	errors += !st || rc < 0;
	sqlite3_finalize(st);
	st = db_query(&r->db, "SELECT id FROM series ORDER BY id DESC", "");
	while (st && (rc = db_step(&r->db, st)) == DB_ROW)
		errors += expand_series(r, &ks, sqlite3_column_int64(st, 0)) < 0;
	errors += !st || rc < 0;
	sqlite3_finalize(st);
	st = db_query(&r->db, "SELECT DISTINCT h.remote, h.branch FROM jobs j "
		      "JOIN heads h ON h.id = j.head_id WHERE j.kind = "
		      "'nightly'", "");
	while (st && (rc = db_step(&r->db, st)) == DB_ROW)
		keyset_add(&ks, xstrfmt("branch/%s/%s", db_col_text(st, 0),
					db_col_text(st, 1)));
	errors += !st || rc < 0;
	sqlite3_finalize(st);
	st = db_query(&r->db, "SELECT DISTINCT workload, metric, variant FROM "
		      "samples WHERE run_id > ?", "i",
		      (long long)(max - WEB_TREND_RUNS));
	while (st && (rc = db_step(&r->db, st)) == DB_ROW)
		keyset_add(&ks, xstrfmt("metric/%s/%s?%s", db_col_text(st, 0),
					db_col_text(st, 1), db_col_text(st, 2)));
	errors += !st || rc < 0;
	sqlite3_finalize(st);
	for (i = 0; i < ks.nr; i++)
		errors += render_key(r, ks.k[i]) < 0;
	keyset_release(&ks);
	errors += plots_flush(r) < 0;
	if (errors)
		return error("render: %d page(s) or list(s) of pages failed; "
			     "the pass is not complete and is done again",
			     errors);
	return 0;
}

/* the pages a request asked for: www/.queue/KIND_A[-B] */
static void read_queue(struct renderer *r, struct keyset *ks)
{
	char *dir = xstrfmt("%s/.queue", r->www);
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		long long a, b;
		char *p, end;

		if (de->d_name[0] == '.')
			continue;
		if (sscanf(de->d_name, "ondemand_%lld-%lld%c", &a, &b,
			   &end) == 2 && n < RENDER_QUEUE_MAX) {
			keyset_add(ks, xstrfmt("ondemand/%lld-%lld", a, b));
			n++;
		} else if (sscanf(de->d_name, "run_%lld%c", &a, &end) == 1 &&
			   n < RENDER_QUEUE_MAX) {
			keyset_add(ks, xstrfmt("run/%lld", a));
			n++;
		} else if (sscanf(de->d_name, "series_%lld%c", &a, &end) == 1 &&
			   n < RENDER_QUEUE_MAX) {
			keyset_add(ks, xstrfmt("series/%lld", a));
			n++;
		}
		p = xstrfmt("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* keep the newest RENDER_ONDEMAND_MAX on-demand compare pages */
static void prune_ondemand(struct renderer *r)
{
	char *dir = xstrfmt("%s/ondemand", r->www);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, NULL), i;
	struct ent { time_t t; char *name; } *e;
	int nr = 0;

	if (n < 0) {
		free(dir);
		return;
	}
	e = xcalloc(n + 1, sizeof(*e));
	for (i = 0; i < n; i++) {
		struct stat st;
		char *p = xstrfmt("%s/%s", dir, names[i]->d_name);

		if (names[i]->d_name[0] != '.' && !stat(p, &st)) {
			e[nr].t = st.st_mtime;
			e[nr++].name = p;
		} else {
			free(p);
		}
		free(names[i]);
	}
	free(names);
	while (nr > RENDER_ONDEMAND_MAX) {
		int oldest = 0;

		for (i = 1; i < nr; i++)
			if (e[i].t < e[oldest].t)
				oldest = i;
		unlink(e[oldest].name);
		free(e[oldest].name);
		e[oldest] = e[--nr];
	}
	for (i = 0; i < nr; i++)
		free(e[i].name);
	free(e);
	free(dir);
}

/* the files of web/ the pages use, copied into www/ as they are */
static const char *const web_files[] = { "style.css", "filter.js" };

static int renderer_open(struct renderer *r, const struct mmci_config *cfg)
{
	char *dst;
	size_t i;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->plot_gp, 0);
	if (db_open(&r->db, cfg->db_path) < 0)
		return -1;
	if (run_sql_functions(&r->db) < 0) {
		db_close(&r->db);
		return -1;
	}
	sqlite3_busy_timeout(r->db.handle, WEB_BUSY_MS);
	r->db_real = real_path(cfg->db_path);
	r->www = data_path(cfg, "www");
	plots_remove_stale(r);
	r->gnuplot = find_in_path("gnuplot");
	if (!r->gnuplot)
		log_warnx("render: gnuplot not found: pages show no plots "
			  "(install gnuplot-nox)");
	for (i = 0; i < ARRAY_SIZE(web_files); i++) {
		struct strbuf sb = STRBUF_INIT;
		char *rel = xstrfmt("web/%s", web_files[i]);
		char *path = project_path(cfg, rel);

		if (strbuf_read_file(&sb, path, 0) < 0)
			log_warnx("render: cannot read '%s': the pages go "
				  "without it", path);
		else
			store(r, web_files[i], &sb);
		strbuf_release(&sb);
		free(path);
		free(rel);
	}
	dst = xstrfmt("%s/.queue", r->www);
	mkdir_p(dst, 0755);
	free(dst);
	return 0;
}

static void renderer_release(struct renderer *r)
{
	plots_clean(r);
	strbuf_release(&r->plot_gp);
	free(r->held);
	db_close(&r->db);
	free(r->db_real);
	free(r->www);
	free(r->gnuplot);
}

struct dirty_row {
	char *key;
	long long gen;
};

/*
 * One pass: the dirty keys of the database and of the request queue,
 * expanded and rendered, each page once; then the rows whose gen did not
 * change meanwhile are deleted. @all renders every page.
 */
static int render_pass(struct renderer *r, int all)
{
	struct dirty_row *rows = NULL;
	size_t nr = 0, alloc = 0, i;
	struct keyset ks = { 0 };
	sqlite3_stmt *st;
	char *version = xstrfmt("%s/.version", r->www);
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	int errors = 0, rc, cleared = 1;

	st = db_query(&r->db, "SELECT key, gen FROM pages_dirty", "");
	if (!st) {
		free(version);
		return -1;
	}
	while ((rc = db_step(&r->db, st)) == DB_ROW) {
		ALLOC_GROW(rows, nr + 1, alloc);
		rows[nr].key = xstrdup(db_col_text(st, 0));
		rows[nr++].gen = sqlite3_column_int64(st, 1);
		if (!strcmp(rows[nr - 1].key, "all"))
			all = 1;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		errors++;
	/* the layout, and the database the pages are of: a data directory
	 * that another database rendered into (tests share one) is redone */
	strbuf_addf(&want, "%d %s\n", RENDER_VERSION, r->db_real);
	if (strbuf_read_file(&sb, version, 0) < 0 ||
	    strcmp(sb.buf, want.buf)) {
		/* nothing of another layout or database stays, the cache
		 * of run values least of all */
		static const char *const dirs[] = {
			"run", "series", "compare", "ondemand", "metric",
			"branch", ".cache",
		};
		size_t d;

		for (d = 0; d < ARRAY_SIZE(dirs); d++) {
			char *p = xstrfmt("%s/%s", r->www, dirs[d]);

			if (remove_tree(p) < 0) {
				errors++;
				cleared = 0;
			}
			free(p);
		}
		all = 1;
	}
	if (store_ids(r) < 0)
		errors++;
	read_queue(r, &ks);
	/* a running run's console log grows without a write to the
	 * database: its page is redone every RENDER_RUNNING_S */
	if (r->watching && r->watching++ % RENDER_RUNNING_S == 0) {
		st = db_query(&r->db, "SELECT id FROM runs WHERE status = "
			      "'running'", "");
		while (st && (rc = db_step(&r->db, st)) == DB_ROW)
			keyset_add(&ks, xstrfmt("run/%lld", (long long)
						sqlite3_column_int64(st, 0)));
		errors += !st || rc < 0;
		sqlite3_finalize(st);
	}
	if (all) {
		/*
		 * Once the old pages are gone, www/ is of this layout and
		 * database (.version); whether every page was written is
		 * the 'all' key's to say: a full render that failed keeps
		 * it dirty, and the next pass renders every page again
		 * without removing those that were written.
		 */
		int done = render_all(r) == 0;

		if (!done) {
			errors++;
			if (db_run(&r->db, "INSERT OR IGNORE INTO pages_dirty "
				   "(key) VALUES ('all')", "") < 0)
				cleared = 0;
		}
		if (cleared)
			errors += store(r, ".version", &want) < 0;
	} else {
		for (i = 0; i < nr; i++)
			errors += expand_key(r, &ks, rows[i].key) < 0;
	}
	for (i = 0; i < ks.nr; i++)
		errors += render_key(r, ks.k[i]) < 0;
	errors += plots_flush(r) < 0;
	if (ks.nr)
		prune_ondemand(r);
	/* a page that failed stays dirty: its row is kept */
	for (i = 0; i < nr; i++) {
		if (!errors && db_run(&r->db, "DELETE FROM pages_dirty WHERE "
				      "key = ? AND gen = ?", "tI", rows[i].key,
				      rows[i].gen) < 0)
			errors++;
		free(rows[i].key);
	}
	free(rows);
	keyset_release(&ks);
	strbuf_release(&sb);
	free(version);
	strbuf_release(&want);
	memo_release(r);
	return errors ? -1 : 0;
}

int render_pages(const struct mmci_config *cfg, int all, int *written)
{
	struct renderer r;
	int ret;

	double t0 = now_s();

	if (renderer_open(&r, cfg) < 0)
		return -1;
	ret = render_pass(&r, all);
	if (written)
		*written = r.pages;
	log_info("render: %d page(s) written, %d unchanged, in %.0f ms",
		 r.pages, r.same, (now_s() - t0) * 1e3);
	renderer_release(&r);
	return ret;
}

int render_loop(const struct mmci_config *cfg, pid_t parent,
		volatile sig_atomic_t *stop)
{
	struct renderer r;
	struct stat first;

	/* a server killed with -9 takes its worker along, even mid-render
	 * (the watcher thread that spawned it lives as long as the server) */
	if (parent && (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 ||
		       getppid() != parent))
		return error("render: the server %ld is gone", (long)parent);
	if (renderer_open(&r, cfg) < 0)
		return -1;
	log_info("render: watching %s for pages to write", cfg->db_path);
	r.watching = 1;
	if (stat(r.db_real, &first) < 0) {
		renderer_release(&r);
		return error_errno("cannot stat '%s'", cfg->db_path);
	}
	while (!*stop && (!parent || getppid() == parent)) {
		int before = r.pages;
		struct stat now;

		/* a database restored or replaced under its name is another
		 * file: a new worker opens it (the server or systemd starts
		 * one); this one would keep writing the old file's pages */
		if (stat(r.db_real, &now) < 0 || now.st_ino != first.st_ino ||
		    now.st_dev != first.st_dev) {
			renderer_release(&r);
			return error("render: '%s' is no longer the database "
				     "this worker opened; exiting",
				     cfg->db_path);
		}

		if (render_pass(&r, 0) < 0)
			log_warnx("render: a page failed; retrying in a second");
		if (r.pages != before)
			log_debug("render: %d page(s) written", r.pages - before);
		sleep(1);
	}
	renderer_release(&r);
	return 0;
}
