/* SPDX-License-Identifier: GPL-2.0 */
/*
 * discover.h - new series from a list's public-inbox Atom feed.
 *
 * `mmci ingest discover` polls https://lore.kernel.org/linux-mm/new.atom
 * (conditionally: the feed changes all the time), keeps the entries that
 * open a series (a cover letter, patch 1 or a single patch; no replies),
 * fetches each new one's thread and keeps the series that touch mm. This
 * module holds the parts that need no network or database: the feed
 * parser (libxml2), the entry classifier and the path filter.
 */
#ifndef MMCI_DISCOVER_H
#define MMCI_DISCOVER_H

#include <regex.h>
#include <stddef.h>

#include "strbuf.h"

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

#endif
