/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aim.h - what a series job measures: the workloads and the size chosen
 * from the paths its diffs touch and the claims its mails make.
 *
 * The mapping is data, kernel-patches/aim.map (MMCI_AIM_MAP names
 * another file): "PATTERN WORKLOADS [nvdimm=SIZE]" a line, the first
 * rule matching a path deciding for it; a series gets the union of its
 * paths' workloads and the largest size. A claim that names a workload
 * ("vmap(100 MB) ... 8.3x faster", "hotplug", "rebinding a 100 GB fsdax
 * namespace") adds that workload, and a size it names raises the NVDIMM
 * up to the host's limit (said when it was scaled down). A series none of
 * whose paths matches is outside mmci's scope: it gets a smoke run
 * (AIM_SMOKE_*), and its report says so instead of "no change".
 *
 * The choice is made when the series is queued, by the ingest (which
 * runs as the service user and parses the mails); the job row keeps it
 * as typed JSON (aim_params_json()) that the daemon checks value by
 * value before it becomes options of the job (aim_from_params()).
 */
#ifndef MMCI_AIM_H
#define MMCI_AIM_H

#include <stddef.h>

#include "strbuf.h"

struct db;

struct aim_rule {
	char *pattern;
	unsigned workloads;	/* bit i: workload_defs[i] */
	long long nvdimm_mib;	/* 0: the default */
	unsigned line;
};

struct aim_map {
	struct aim_rule *r;
	size_t nr, alloc;
};

/* a smoke run for a series outside the map: the cheapest workload */
#define AIM_SMOKE_WORKLOADS "fsdax"
#define AIM_SMOKE_NVDIMM_MIB 1024LL

struct aim {
	int in_scope;		/* some path matched a rule */
	unsigned workloads;	/* bit i: workload_defs[i] */
	long long nvdimm_mib;	/* 0: the run's default */
	struct strbuf why;	/* "mm/vmalloc.c -> vmap, vmalloc; ..." */
};

#define AIM_INIT { 0, 0, 0, STRBUF_INIT }

/*
 * aim_map_parse() - the rules of @text (the file @name, for errors).
 * Return: 0, or -1 after error() naming the file and line.
 */
int aim_map_parse(const char *text, const char *name, struct aim_map *m);
/* aim_map_load() - aim_map_parse() of the file @path */
int aim_map_load(const char *path, struct aim_map *m);
void aim_map_release(struct aim_map *m);

/* 1 when @pattern (aim.map's syntax) matches the tree path @path */
int aim_match(const char *pattern, const char *path);

/*
 * aim_choose() - the aim of a series that touches @paths and whose mails
 * make the claims @claims (each its subject and text, one string)
 * @max_nvdimm_mib: the largest NVDIMM this host gives a job; a larger
 *	size (of a rule or a claim) is scaled down to it, and said
 * Return: 0.
 */
int aim_choose(const struct aim_map *m, const char *const *paths,
	       size_t nr_paths, const char *const *claims, size_t nr_claims,
	       long long max_nvdimm_mib, struct aim *out);

/*
 * aim_series() - aim_choose() for stored series @series_id: the paths of
 * its patches' diffs (patches.diff), the claims of its mails (claims).
 * Return: 0, or -1 after error().
 */
int aim_series(struct db *db, long long series_id, const struct aim_map *m,
	       long long max_nvdimm_mib, struct aim *out);

/* "vmap,vmalloc": the workloads in `mmci workloads` order */
void aim_workloads(unsigned workloads, struct strbuf *out);

/*
 * aim_params_json() - the aim as the job row keeps it:
 * {"aim":{"in_scope":true,"workloads":"vmap,vmalloc","nvdimm_mib":0,
 * "why":"..."}}; the caller frees it.
 */
char *aim_params_json(const struct aim *a);

/*
 * aim_from_params() - the aim back from a job's params, every value
 * checked (known workloads only, a size within 1 MiB .. 16 TiB).
 * Return: 1 the params hold an aim, 0 they hold none, -1 after error()
 * (a value that is not what aim_params_json() writes).
 */
int aim_from_params(const char *params, struct aim *out);

void aim_release(struct aim *a);

#endif
