/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notice.h - mm-commits notices: akpm's mails saying a patch was added to,
 * removed from or merged into a branch of the mm tree.
 *
 * Wording assumed (the scripts that send them have used it for years):
 *
 *  added:   Subject: + NAME.patch added to BRANCH branch
 *           "The patch titled\n     Subject: TITLE\nhas been added to the
 *           -mm BRANCH branch.  Its filename is\n     NAME.patch"
 *           (older: "... added to -mm tree", "has been added to the -mm
 *           tree.": no branch)
 *  removed: Subject: - NAME.patch removed from -mm tree
 *           "The quilt patch titled\n     Subject: TITLE\nhas been removed
 *           from the -mm tree.  Its filename was\n     NAME.patch\n\nThis
 *           patch was dropped because REASON"
 *  merged:  Subject: [merged BRANCH] NAME.patch removed from -mm tree
 *           the same body, the reason being "it was merged into the BRANCH
 *           branch of git://..."
 *
 * then a line of dashes and the commit: "From: A <a@b>", "Subject:",
 * the message with its "Link: https://lore.kernel.org/MSGID" and
 * "Signed-off-by:" lines, "---" and the diff.
 */
#ifndef MMCI_NOTICE_H
#define MMCI_NOTICE_H

#include <stddef.h>

struct db;
struct mail;

/* Link: message ids kept from one notice */
#define NOTICE_MAX_LINKS 32
/* Signed-off-by: lines kept */
#define NOTICE_MAX_SIGNOFFS 64

enum notice_action { NOTICE_ADDED, NOTICE_REMOVED, NOTICE_MERGED };

struct notice {
	enum notice_action action;
	char *branch;		/* "mm-new", "mm-stable"; NULL: "-mm tree" */
	char *filename;		/* "foo.patch" */
	char *title;		/* the patch's subject */
	char *reason;		/* removed/merged: why it was dropped, or NULL */
	char *author;		/* the commit's From:, or NULL */
	char **links;		/* message ids of the Link: lines, in order */
	size_t nr_links;
	char **signoffs;	/* "Name <email>" of Signed-off-by:, in order */
	size_t nr_signoffs;
	char *problem;		/* what could not be found, or NULL */
};

/** notice_action_name() - "added", "removed" or "merged" */
const char *notice_action_name(enum notice_action a);

/**
 * notice_parse() - read an mm-commits notice
 * @subject: the decoded subject of the mail
 * @body: the text of the mail (UTF-8, "\n" line ends)
 * @n: out; release with notice_release() whatever is returned
 *
 * The subject decides whether the mail is a notice; the body fills in the
 * rest. What the body lacks is said in @n->problem (the subject's file
 * name and branch still count).
 *
 * Return: 1 for a notice, 0 if the mail is none.
 */
int notice_parse(const char *subject, const char *body, struct notice *n);
void notice_release(struct notice *n);

/**
 * notice_lore_msgid() - the message id of a lore URL
 * @url: "https://lore.kernel.org/LIST/MSGID/", ".../r/MSGID",
 *       "https://lore.kernel.org/MSGID", "https://lkml.kernel.org/r/MSGID",
 *       "https://patch.msgid.link/MSGID"; percent-escapes are decoded
 * @len: bytes of @url
 *
 * Return: the message id (caller frees), or NULL if @url is none of those
 * or names no message id (it must hold an '@').
 */
char *notice_lore_msgid(const char *url, size_t len);

/* what notice_store() linked */
struct notice_link {
	long long notice_id;
	int existing;		/* the same notice mail was stored before */
	long long patch_id, series_id;	/* 0 if not linked */
	int patch_idx, series_total;
	const char *how;	/* "message-id", "subject" or NULL */
};

/**
 * notice_store() - store a notice and link it to a stored patch
 * @db: the database
 * @n: the parsed notice
 * @mail: the notice mail (message id, date)
 * @thread_id: the thread it came in, or 0
 * @out: what was linked
 *
 * The patch is the newest one whose message id is a Link: of the notice,
 * else the newest whose title is the notice's title.
 *
 * Return: 0, or -1 after error() if the database fails.
 */
int notice_store(struct db *db, const struct notice *n,
		 const struct mail *mail, long long thread_id,
		 struct notice_link *out);

/**
 * notice_link_series() - link stored notices to a series just stored
 * @db: the database
 * @series_id: the new series; its patches are looked up by message id
 *
 * Return: the number of notices linked, or -1 after error().
 */
int notice_link_series(struct db *db, long long series_id);

#endif
