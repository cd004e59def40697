/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcidb.h - mmci's builds and results as KernelCI's KCIDB JSON (I/O
 * schema v5.3; docs/KCIDB.md has what maps to what).
 */
#ifndef MMCI_KCIDB_H
#define MMCI_KCIDB_H

#include <stddef.h>

struct db;
struct mmci_config;

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

struct kcidb_request {
	const char *origin;      /* [a-z0-9_]+ */
	const char *log_url;     /* where MMCI_DATA is served, or NULL */
	const long long *runs;   /* these runs (their builds, checkouts) */
	size_t nr_runs;
	double since;            /* and all started at or after; -1: none */
};

/* a KCIDB origin: [a-z0-9_]+ */
int kcidb_valid_origin(const char *s);
/* an http(s) URL (RFC 3986) without query or fragment */
int kcidb_valid_log_url(const char *url);

/*
 * kcidb_export() - the selected runs, their builds and checkouts (and,
 * with @req->since, the builds and failed applies since then) as one
 * KCIDB document in *@text (newline-terminated; caller frees). A run of a
 * prebuilt kernel is skipped with a warning. Return: 0, or -1 after
 * error() (an unknown run, a read that failed: nothing is written).
 */
int kcidb_export(const struct mmci_config *cfg, struct db *db,
		 const struct kcidb_request *req, char **text);

#endif
