/* SPDX-License-Identifier: GPL-2.0 */
/*
 * result.h - read what the guest runner printed, without trusting it.
 *
 * The runner writes one JSON object per line (schema "v":1) to the
 * guest's second serial port: hello, sample, info, error, request, done.
 * Samples, infos and errors may name a variant ("align=2M,map=dev"): the
 * same workload with other settings inside one boot. Every line
 * is checked (types, names, units, finite values, bounds) before anything
 * is stored; a bad line becomes a 'rejected' event with the reason.
 */
#ifndef MMCI_RESULT_H
#define MMCI_RESULT_H

#include <stddef.h>

struct db;

#define RESULT_SCHEMA 1
#define RESULT_MAX_LINE 8192
#define RESULT_MAX_LINES 200000
#define RESULT_MAX_VARIANT 127

struct result_counts {
	int samples;
	int infos;
	int errors;      /* error records from the guest */
	int rejected;    /* lines that failed validation */
	int done;        /* a "done" record was seen */
	int done_ok;     /* ... with status "ok" */
	char *kernel;    /* from "hello"; caller frees */
};

/*
 * result_ingest - validate a results file and store it for one boot, in
 * one transaction. Returns 0, or -1 when the file cannot be read or the
 * database write failed.
 */
int result_ingest(struct db *db, long long run_id, long long boot_id,
		  const char *path, struct result_counts *counts);

/* validate one line; on success fills the fields (pointers into json) */
struct result_record {
	const char *type, *workload, *variant, *metric, *unit, *key, *msg;
	long long iter;
	double value;
	const char *text_value;
};
int result_parse_line(const char *line, void **json_out,
		      struct result_record *rec, char *why, size_t whylen);
void result_free_json(void *json);

/* the largest value a sample may have (what a guest can send) */
#define RESULT_VALUE_MAX 1e12

/*
 * result_store_sample() - store one sample of boot @boot_id of run
 * @run_id (a bundle's, say) after the checks a runner's line gets: names,
 * variant, unit, a finite value in [0, 1e12], the iteration. The samples
 * table is written here only.
 * Return: 0; -1 after error() naming what is wrong, or the database's.
 */
int result_store_sample(struct db *db, long long run_id, long long boot_id,
			const struct result_record *rec);
/*
 * result_names_ok() - whether a stored sample's workload, variant (""
 * for none), metric and unit are what result_store_sample() takes: what
 * reads the samples table for a verdict checks them, since the database
 * is the service user's and a row may have been written any other way.
 * Return: 1 or 0.
 */
int result_names_ok(const char *workload, const char *variant,
		    const char *metric, const char *unit);
/*
 * result_store_event() - one event of @kind (info, error, rejected,
 * request, host) with the workload, variant and iteration of @rec (NULL:
 * none), @key and @msg, checked as result_store_sample() checks.
 */
int result_store_event(struct db *db, long long run_id, long long boot_id,
		       const char *kind, const struct result_record *rec,
		       const char *key, const char *msg);

/*
 * One 'host' event: what the host did on a guest's request (run.c). The
 * events table is written here only. 0, or -1 after the database's error.
 */
int result_host_event(struct db *db, long long run_id, long long boot_id,
		      const char *msg);

#endif
