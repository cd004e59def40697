/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ingest.h - the ingest stage: a series from a file into the database, and
 * from the database onto a base commit.
 */
#ifndef MMCI_INGEST_H
#define MMCI_INGEST_H

#include <git2.h>
#include <stddef.h>

#include "mbox.h"
#include "series.h"

struct db;

struct loaded_series {
	struct mail *mails;
	size_t nr_mails;
	struct series s;
	long long id;          /* series.id */
};

/*
 * ingest_series_file - parse an mbox into a series and store it (once: the
 * same file content gives the same row). A series with missing patches is
 * refused: it cannot be applied.
 */
int ingest_series_file(struct db *db, const char *path,
		       struct loaded_series *ls);
void loaded_series_release(struct loaded_series *ls);

/*
 * apply_series - apply patches 1..upto of a loaded series on `base`,
 * recording the attempt in the applies table. heads[i] receives the commit
 * of base + patches 1..i+1 (heads has room for upto entries).
 */
int apply_series(struct db *db, git_repository *repo,
		 const struct loaded_series *ls, const char *base_ref,
		 const git_oid *base, int upto, git_oid *heads);

#endif
