/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - `mmci bench`: one kernel booted under each noise setting (or
 * runs already stored), the spread of every metric per setting, the
 * smallest change a default comparison could detect, and the A/A
 * calibration (docs/STATISTICS.md). bench.c has the formulas.
 */
#ifndef MMCI_BENCH_H
#define MMCI_BENCH_H

struct db;
struct mmci_config;
struct run_opts;

struct bench_request {
	const struct run_opts *o;  /* the kernel, workloads, run options */
	long long build_id;        /* --build, 0: o->kernel */
	int boots;                 /* per setting, interleaved */
	const char *settings;      /* "icount,wall,wall-pin,wall-disk" */
	const char *from_runs;     /* "3,4": no boot, these runs */
	int mdc_boots;             /* k of the MDC; 0: by clock */
	int calibrate;             /* 1, 0; -1: when it boots */
	const char *calib_ks;      /* "3,4,5,6", NULL: by clock */
	int calib_trials;          /* 0: CALIB_TRIALS */
	int json;                  /* machine-readable output */
};

/* the settings or run ids and workloads of @req, before any work: 0, -1 */
int bench_check(const struct bench_request *req);

/*
 * bench_run() - boot (or load the runs), tabulate, calibrate, print the
 * table or JSON. Return: 0; 1 when a boot failed (the table has the
 * rest); -1 after error().
 */
int bench_run(const struct mmci_config *cfg, struct db *db,
	      const struct bench_request *req);

#endif
