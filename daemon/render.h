/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render.h - the result pages as static files under <data>/www.
 *
 * A page is written when what it shows changes: migration 0010's
 * triggers name the dirty pages in `pages_dirty` (a run, its boots and
 * events, a job, a series, its patches and applies), and the renderer
 * writes them, each to a temporary file renamed over the old one, and
 * only when the content changed. Plots are gnuplot's SVG inside the
 * HTML. The files, by URL (web.c and web/nginx-mmci.conf map them):
 *
 *	/			index.html
 *	/style.css		style.css
 *	/filter.js		filter.js (the index's filters; the pages
 *				show everything without it)
 *	/run/N			run/N.html
 *	/series/N		series/N.html
 *	/compare/A/B		compare/A-B.html (the pairs the pages link),
 *				else ondemand/A-B.html (rendered on request)
 *	/metric/W/M?variant=V	metric/W/M/v=V.html (V as url_esc() writes it)
 *	/branch/REMOTE/BRANCH	branch/REMOTE/BRANCH.html (names that
 *				render_branch_path() takes)
 *
 * plus .ids (the newest run and series: what a 404 is), .version (the
 * layout and database the pages are of) and .queue/ (pages a request
 * asked for).
 *
 * A read that fails (a query, or its rows ending in an error) is never
 * taken for "no rows": the page keeps its last good file, the pass says
 * error() and its dirty keys stay for the next pass; a full render that
 * failed keeps the key 'all', so the next pass renders every page again.
 */
#ifndef MMCI_RENDER_H
#define MMCI_RENDER_H

#include <signal.h>
#include <sys/types.h>

struct mmci_config;
struct strbuf;

/**
 * render_pages() - one pass: write the dirty pages and those queued by
 * requests, or every page
 * @cfg: the database and the data directory
 * @all: every page, not only the dirty ones (also when www/.version is
 *	missing or older than this binary's layout)
 * @written: if not NULL, the number of files written (changed)
 *
 * Return: 0, or -1 after error() (a page that failed, or whose list of
 * pages could not be read, stays dirty).
 */
int render_pages(const struct mmci_config *cfg, int all, int *written);

/**
 * render_loop() - the render worker: a pass every second until *@stop
 * or until the parent process @parent is gone (0: no parent to watch)
 *
 * Return: 0, or -1 after error() when the database cannot be opened.
 */
int render_loop(const struct mmci_config *cfg, pid_t parent,
		volatile sig_atomic_t *stop);

/**
 * render_metric_path() - the file of a metric page, relative to www/
 * @workload, @metric: names as the runner makes them
 * @variant: the variant, "" for none
 *
 * Return: "metric/W/M/v=V.html" (caller frees), or NULL for names that
 * no page can have.
 */
char *render_metric_path(const char *workload, const char *metric,
			 const char *variant);

/**
 * render_branch_path() - the file of a branch's nightly page, relative to
 * www/
 * @remote, @branch: the names of heads.remote and heads.branch
 *
 * Return: "branch/REMOTE/BRANCH.html" (caller frees), or NULL when a
 * name is not one a file may have: letters, digits, '_', '.', '-', 64
 * at most, not starting with a dot (a branch with a '/' has no page).
 */
char *render_branch_path(const char *remote, const char *branch);

/**
 * render_error_page() - an error page (the site's frame, @title as <h1>,
 * @msg in <p id="error">), both escaped, replacing what @out holds
 */
void render_error_page(struct strbuf *out, const char *title,
		       const char *msg);

#endif
