/* SPDX-License-Identifier: GPL-2.0 */
/*
 * discover.h - new series from a list's public-inbox Atom feed.
 *
 * `mmci ingest discover` polls https://lore.kernel.org/linux-mm/new.atom
 * (conditionally: the feed changes all the time), keeps the entries that
 * open a series (a cover letter, patch 1 or a single patch; no replies),
 * fetches each new one's thread and keeps the series that touch mm;
 * `mmci ingest inbox` (inbox.h) finds the same series in the inbox's git
 * history. This module holds the feed parser (libxml2), the entry
 * classifier and the path filter, which need no network or database, and
 * the one way a series found on the list becomes stored rows and a job
 * (discover_take_series()), which both sources call.
 */
#ifndef MMCI_DISCOVER_H
#define MMCI_DISCOVER_H

#include <regex.h>
#include <stddef.h>

#include "strbuf.h"

struct db;
struct ingest_source;
struct mmci_config;
struct series;

#define DISCOVER_DEFAULT_FEED "https://lore.kernel.org/linux-mm/new.atom"
/* akpm's notices: patches added to, moved or dropped from his branches */
#define COMMITS_DEFAULT_FEED "https://lore.kernel.org/mm-commits/new.atom"
/* entries read from one feed; the rest is ignored (lore sends 25-200) */
#define DISCOVER_MAX_ENTRIES 10000
/* bytes of one feed */
#define DISCOVER_MAX_FEED_SIZE (16u << 20)
/* feed fields longer than this are cut (titles, links) */
#define DISCOVER_MAX_FIELD 4096

/* one <entry> of the feed; every field "" when absent */
struct feed_entry {
	char *title;		/* blanks collapsed */
	char *link;		/* href of the alternate <link>: the message */
	char *id;		/* urn:uuid:... */
	char *updated;		/* RFC 3339, as written */
	char *author_name, *author_email;
};

/**
 * discover_parse_feed() - parse an Atom feed with libxml2
 * @buf: the feed; @len its bytes
 * @entries: out, *@nr entries in feed order; free with feed_entries_free()
 * @nr: out
 * @why: out, why the feed was refused
 *
 * No network access and no entity expansion (XML_PARSE_NONET, no
 * XML_PARSE_NOENT); libxml2's own limits on depth and entity
 * amplification apply. An entry without a title or a link is dropped.
 *
 * Return: 0, or -1 with @why set if @buf is not well-formed XML or not an
 * Atom feed (root element {http://www.w3.org/2005/Atom}feed).
 */
int discover_parse_feed(const char *buf, size_t len,
			struct feed_entry **entries, size_t *nr,
			struct strbuf *why);
void feed_entries_free(struct feed_entry *e, size_t nr);

/**
 * discover_link_msgid() - the message id of a public-inbox message URL
 * @link: "https://host/LIST/MSGID/" (the last path segment counts,
 *        percent-escapes decoded)
 * @thread_url: out, "https://host/LIST/MSGID/t.mbox.gz"; caller frees
 *
 * Return: the message id, caller frees; NULL if @link is not http(s) or
 * its last segment has no '@'.
 */
char *discover_link_msgid(const char *link, char **thread_url);

enum entry_kind {
	ENTRY_SERIES,		/* [PATCH 0/N], [PATCH 1/N], [PATCH] */
	ENTRY_REPLY,		/* Re:, Fwd: */
	ENTRY_LATER_PATCH,	/* [PATCH n/N], n > 1: its thread's first
				 * mail is the one that counts */
	ENTRY_OTHER,		/* not a patch */
};

/** discover_classify() - what a feed entry's title says it is */
enum entry_kind discover_classify(const char *title);

/* the regexes (POSIX extended, searched in each path) that keep a series */
struct path_filter {
	regex_t *re;
	char **src;
	size_t nr, alloc;
};

/*
 * Paths that make a series an mm series by default: mm/, include/linux/mm*,
 * drivers/nvdimm/, drivers/dax/, drivers/virtio/virtio_mem*.
 */
extern const char *const discover_default_paths[];

/* path_filter_init() - the defaults */
void path_filter_init(struct path_filter *f);
/* path_filter_add() - one more regex; -1 after error() if it is invalid */
int path_filter_add(struct path_filter *f, const char *regex);
void path_filter_release(struct path_filter *f);

/**
 * discover_series_paths() - the paths of a series' diffs the filter keeps
 * @s: an assembled series
 * @f: the filter
 * @out: the matching paths, ", "-separated, each once (the first 20)
 *
 * Return: the number of matching paths (files) of the series.
 */
size_t discover_series_paths(const struct series *s,
			     const struct path_filter *f, struct strbuf *out);

/**
 * discover_add_msgid() - a message id as public-inbox puts it in a URL
 * @sb: where it is appended
 * @id: the message id, with or without <>
 *
 * Every byte outside public-inbox's safe set (RFC 3986 unreserved and
 * sub-delims, ':' and '@') is percent-encoded: '/', '%', '?' and '#'
 * must not reach the server raw.
 */
void discover_add_msgid(struct strbuf *sb, const char *id);

/**
 * discover_store_thread() - store a thread file and print what it held
 * @db: the database
 * @path: the mbox, plain or gzip
 * @src: where it came from; src->damage is set here
 * @series_id: out, the series stored (0 if none); may be NULL
 *
 * Every mail is stored (ingest_thread()), the series with its claims
 * (claims_store()); a thread without a series has its mm-commits notices
 * stored and linked. The summary goes to stdout.
 *
 * Return: the exit code: 0, or 1 after error() (no series and no
 * notice, a damaged gzip, the database).
 */
int discover_store_thread(struct db *db, const char *path,
			  struct ingest_source *src, long long *series_id);

/**
 * discover_series_job() - the job of a stored series that holds @msgid
 * @db: the database
 * @msgid: any mail of the series' thread (without <>)
 * @series_id: out, the newest such series with a 'series' job, or 0
 * @job_id: out, its job, or 0
 *
 * Return: 1 found, 0 none, -1 after error().
 */
int discover_series_job(struct db *db, const char *msgid,
			long long *series_id, long long *job_id);

/* what discover_take_series() decided */
struct discover_take {
	char *decision;		/* "kept", "skipped: no mm path" or
				 * "error: <why>"; owned */
	struct strbuf paths;	/* the paths that kept it (the first 20) */
	size_t nr_paths;
	long long series_id;	/* stored, 0 none */
	long long job_id;	/* its job, 0 none */
	int queued;		/* 1: the job was queued now; 0: a job of
				 * the same first mail was there */
};
#define DISCOVER_TAKE_INIT { NULL, STRBUF_INIT, 0, 0, 0, 0 }
void discover_take_release(struct discover_take *t);

/**
 * discover_take_series() - a series found on the list, to a job
 * @db: the database
 * @cfg: for the aim map (kernel-patches/aim.map, or MMCI_AIM_MAP)
 * @path: the mbox of the series' mails (a lore thread, or the mails
 *        the inbox's history held)
 * @src: where it came from
 * @f: the paths that keep a series
 * @t: out; release with discover_take_release()
 *
 * A series none of whose paths @f keeps is skipped, unstored. A kept one
 * is stored with discover_store_thread() and gets one 'series' job, aimed
 * at what it changes (aim.h): unless a job of a series with the same
 * first mail (series.message_id: the cover letter, else patch 1) is
 * there, whichever source stored it; the check and the insert are one
 * transaction.
 *
 * Return: 0 with @t->decision set (a broken mbox is a decision, not a
 * failure), or -1 after error() when the database fails.
 */
int discover_take_series(struct db *db, const struct mmci_config *cfg,
			 const char *path, struct ingest_source *src,
			 const struct path_filter *f, struct discover_take *t);

#endif
