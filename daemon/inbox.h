/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inbox.h - follow a list through its public-inbox v2 git history.
 *
 * A public-inbox v2 inbox (https://lore.kernel.org/linux-mm) is a set of
 * git repositories, its epochs, served at URL/git/N.git and listed in
 * URL/manifest.js.gz; each commit of an epoch adds one message as the
 * blob 'm' (public-inbox-v2-format(5)). `mmci ingest inbox` keeps a bare
 * mirror of every epoch it reads, fetches it with libgit2 and reads each
 * commit after its mark, oldest first, the way public-inbox mirrors
 * follow an inbox: a burst of mails between two polls, or a daemon
 * stopped for a day, loses nothing, where the Atom feed holds the last 25
 * messages. The mails of a series are collected as they arrive; a series
 * whose cover letter and patches are all there, or that waited
 * MMCI_SERIES_WAIT_S for the rest, goes to discover_take_series()
 * (discover.h), the way a feed entry's thread does.
 */
#ifndef MMCI_INBOX_H
#define MMCI_INBOX_H

#include <stddef.h>

struct db;
struct mmci_config;
struct path_filter;

#define INBOX_DEFAULT_URL "https://lore.kernel.org/linux-mm"
/* bytes of the manifest, inflated (lore's per-inbox one: under 4 KiB) */
#define INBOX_MAX_MANIFEST (16u << 20)
/* epochs of one inbox, and the highest epoch number taken */
#define INBOX_MAX_EPOCH 100000
/*
 * Commits of a rewritten epoch looked at, newest first, for one whose
 * message was read before (where reading goes on): a purge rewrites the
 * history after the purged message, usually the last days of it.
 */
#define INBOX_MAX_RESUME 100000

struct inbox_opts {
	const char *url;	/* the inbox, without "/git/N.git" */
	const char *name;	/* NULL: the URL's last path segment */
	const struct path_filter *filter; /* the paths that keep a series */
	int start_all;		/* a new mark: 1 every epoch from the first
				 * one, 0 the tip of the newest */
	int reset;		/* forget the mark first */
	long long wait_s;	/* s: an incomplete series waits this long */
};

struct inbox_stats {
	size_t read;		/* messages read now */
	size_t seen;		/* of those, read before (by Message-ID) */
	size_t replies, others;	/* not series mails */
	size_t mails;		/* cover letters and patches collected */
	size_t refused;		/* no Message-ID, numbered 3/2, 0/0, 1/1000 */
	size_t late;		/* a mail of a series decided before */
	size_t queued, partial;	/* jobs; of those, with patches missing */
	size_t skipped, superseded, failed;
	size_t waiting;		/* series still waiting after the pass */
	int epoch;		/* the mark's epoch after the pass */
};

/**
 * inbox_follow() - one pass over an inbox: fetch, read, decide
 * @db: the database
 * @cfg: the data directory (the mirrors are <data>/fetch/inbox/NAME/N.git)
 * @o: the inbox and the policy
 * @st: out, what the pass did
 *
 * Reads the manifest, fetches each epoch from the mark's on (a new epoch
 * only after the one before it is read to its tip), reads every commit
 * after the mark, first parent, oldest first, and moves the mark (table
 * inbox_marks) in the transaction that handles each message. An epoch
 * whose history was rewritten (the mark is no ancestor of its tip, or
 * gone) is read after the newest commit whose message (by Message-ID)
 * was read before, said in the log and in inbox_events. Then every
 * waiting series that is complete, or waited @o->wait_s, is taken
 * (discover_take_series()), once. A second process on the same inbox
 * is refused (a lock file).
 *
 * Return: 0, or -1 after error() when the manifest, a fetch or the
 * history cannot be read (the mark is kept where the last message read
 * put it; the series read before the failure are still decided) or the
 * database fails.
 */
int inbox_follow(struct db *db, const struct mmci_config *cfg,
		 const struct inbox_opts *o, struct inbox_stats *st);

#endif
