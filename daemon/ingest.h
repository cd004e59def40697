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
	char *partial;         /* NULL, or for a series some of whose
	                        * patches never arrived (loaded as far as
	                        * it goes): "patch(es) 3/5, 5/5 never
	                        * arrived: patches 1-2 of 5" */
};

/*
 * ingest_series_file - parse an mbox into a series and store it (once: the
 * same file content gives the same row). A series with missing patches is
 * refused: it cannot be applied.
 */
int ingest_series_file(struct db *db, const char *path,
		       struct loaded_series *ls);
void loaded_series_release(struct loaded_series *ls);

/* a series row as stored, with where its thread is (series_row_load()) */
struct series_row {
	long long id;
	int version, total, is_rfc;
	char *missing;		/* series.missing: "3,5", the patches no mail
				 * had; "" if none */
	int first_missing;	/* the lowest of them, 0 if none */
	char *title, *message_id, *author, *source;
	char *base_commit;	/* NULL if none */
	char *cache_path;	/* the newest thread's mbox as ingested
				 * (threads.cache_path), "" if none */
};

/**
 * series_row_load() - the row of series #@id, the one loader of it
 * @db: the database
 * @id: series.id
 * @r: out, zeroed first (r->id is @id); release with series_row_release(),
 *     also on failure
 *
 * ingest.c owns the series table: ingest_load_stored() and report.c read
 * a series through this, never with a query of their own.
 *
 * Return: 0, or -1 after error() (also when there is no series #@id).
 */
int series_row_load(struct db *db, long long id, struct series_row *r);
/*
 * series_row_partial() - for a series some of whose patches never arrived
 * (r->first_missing), what a job of it measures: "patch(es) 3/5, 5/5
 * never arrived; measured: patches 1-2 of 5"; caller frees. A job loads
 * such a series as far as it goes (ingest_load_stored()).
 */
char *series_row_partial(const struct series_row *r);
void series_row_release(struct series_row *r);

/*
 * ingest_load_stored - the stored series #@series_id, for a job queued by
 * `ingest discover` or the daemon: from the typed rows the ingest stored
 * (patches.commit_message, .diff, ...), so that a job, which runs as
 * root, never parses mail. A series stored before those columns existed
 * is parsed again from the thread it was found in (threads.cache_path) or
 * the file it was read from. Loaded from the rows, ls->mails is NULL and
 * so is patches[i].mail. Refuses a series with missing patches.
 * Returns 0, or -1 after error().
 */
int ingest_load_stored(struct db *db, long long series_id,
		       struct loaded_series *ls);

/* inflated bytes of one mbox at most: gzip data beyond it is refused */
#define INGEST_MAX_MBOX_SIZE (1ull << 30)

/**
 * mbox_read_file() - read an mbox, inflating it if it is gzip data
 * @path: plain mbox/.eml, or gzip (recognised by its magic, not its name)
 * @out: the mbox
 * @damage: out, why the gzip data stopped early (truncated, corrupt,
 *          garbage after it); empty when it is whole
 *
 * A damaged gzip is not a failure: @out holds what was inflated before the
 * damage and @damage says what happened. Gzip data that inflates to more
 * than INGEST_MAX_MBOX_SIZE is (a gzip bomb): it is counted through a
 * small buffer, never held, and refused.
 *
 * Return: 0, or -1 after error() if @path cannot be read or inflates to
 * more than INGEST_MAX_MBOX_SIZE.
 */
int mbox_read_file(const char *path, struct strbuf *out,
		   struct strbuf *damage);

/* where a thread came from */
struct ingest_source {
	const char *source;	/* URL or file path, as the user gave it */
	const char *url;	/* NULL for a local file */
	const char *cache_path;	/* the body on disk */
	double fetched_at;	/* Unix time of the transfer; 0 for a file */
	const char *damage;	/* why the data stopped early, or NULL */
};

/* what ingest_thread() did, for the summary */
struct ingest_report {
	long long thread_id;
	int existing;		/* the same mbox was ingested before */
	size_t nr_messages;
	size_t nr_problem_messages;
	int has_series;		/* ls->s is valid */
	size_t nr_reply_trailers;	/* over all patches */
	size_t nr_cover_trailers;	/* of those, sent to the cover */
	char *problem;		/* thread-level problem, or NULL */
	struct version_link {
		long long id;	/* 0: none */
		int version;
		const char *how;	/* "changelog link", "subject+author" */
	} previous, next;	/* vN-1 this series links to; a newer one
				 * that now links to this one */
	size_t nr_next;		/* newer series that now link here */
	int nr_notices;		/* mm-commits notices now linked to it */
};

/**
 * ingest_thread() - store a thread: every mail, and the series in it
 * @db: the database
 * @buf: the mbox (inflated); @len its bytes
 * @src: where it came from
 * @ls: out, the mails and the series (ls->id 0 if none); the caller
 *      releases it with loaded_series_release(), also on failure
 * @rep: out; release with ingest_report_release()
 *
 * Unlike ingest_series_file(), a series with missing patches or patches
 * without a diff is stored with its problems (apply refuses it later), and
 * a thread without any series still has its mails stored. The same mbox
 * content is stored once.
 *
 * Return: 0, or -1 after error() if @buf is not mail at all or the
 * database fails.
 */
int ingest_thread(struct db *db, const char *buf, size_t len,
		  const struct ingest_source *src, struct loaded_series *ls,
		  struct ingest_report *rep);
void ingest_report_release(struct ingest_report *rep);

/**
 * ingest_link_versions() - link a stored series to its other versions
 * @db: the database
 * @ls: the series just stored (ls->id)
 * @rep: out, rep->previous, rep->next and rep->nr_next
 *
 * vN gets the nearest lower version stored as its previous one: the series
 * a lore link of its cover letter (or of patch 1 when there is no cover)
 * points into, else the one with the same normalised title and author
 * address. Newer versions already stored that lack a nearer previous one
 * are linked to this one the same way.
 *
 * Return: 0, or -1 after error() if the database fails.
 */
int ingest_link_versions(struct db *db, const struct loaded_series *ls,
			 struct ingest_report *rep);

/**
 * ingest_norm_title() - the key of a series' title across its versions
 * @title: a title without its tags
 *
 * Return: @title in lower case, blanks collapsed (series.norm_title);
 * caller frees.
 */
char *ingest_norm_title(const char *title);

/*
 * A series that comes with a bundle (no mails): ingest_store_imported()
 * checks it (a title, 1..SERIES_MAX_PATCHES patches in order within its
 * total, every field there) and stores it and its patches as a mailed one
 * is stored, the diff's SHA-1 and patch-id computed here. The series and
 * patches tables have this file as their writer. 0 with *@series_id, -1.
 */
struct imported_patch {
	int idx, version;
	const char *title, *author_name, *author_email;
	const char *commit_message, *diff;
	long long date;
};
struct imported_series {
	const char *title, *message_id, *author, *base_commit;
	const char *source, *source_sha1;
	int version, total, is_rfc;
	const struct imported_patch *patches;
	size_t nr;
};
int ingest_store_imported(struct db *db, const struct imported_series *s,
			  long long *series_id);
/*
 * ingest_record_apply() - one applies row: patches 1..@upto of a series on
 * @base_commit (@base_ref as asked), ok with @head_commit, else failed
 * with @why. 0, or -1 after error().
 */
int ingest_record_apply(struct db *db, long long series_id,
			const char *base_ref, const char *base_commit,
			int upto, const char *head_commit, const char *why);

/* the links of a cover letter kept per series (series_links) */
#define INGEST_MAX_CHANGELOG_LINKS 64

/*
 * apply_series - apply patches 1..upto of a loaded series on `base`,
 * recording the attempt in the applies table. heads[i] receives the commit
 * of base + patches 1..i+1 (heads has room for upto entries).
 */
int apply_series(struct db *db, git_repository *repo,
		 const struct loaded_series *ls, const char *base_ref,
		 const git_oid *base, int upto, git_oid *heads);

/*
 * ingest_apply_file() - what `mmci build --series` and `mmci apply` build
 * on: open the tree at @tree_dir (*@repo, caller frees) and resolve @ref;
 * with @series (an mbox file), ingest it into @ls and apply patches
 * 1..*@upto (0, or more than it has: all; *@upto is set) on it. *@target:
 * the commit, @ref's or the last patch's. 0, or -1 after error().
 */
int ingest_apply_file(struct db *db, const char *tree_dir,
		      git_repository **repo, const char *ref,
		      const char *series, int *upto, struct loaded_series *ls,
		      git_oid *target);

#endif
