/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series.h - assemble a patch series from the mails of a thread.
 *
 * A thread from lore (or a `git format-patch --cover-letter` mbox) holds
 * a cover letter "[PATCH v3 0/7]", the patches "[PATCH v3 n/7]" and the
 * replies. series_from_mails() picks the newest version, orders its patches,
 * and splits each into author, commit message and diff, the way `git am`
 * would. Trailers that reviewers send in replies (Reviewed-by: and friends)
 * are attached to the patch they answer, or to every patch when they answer
 * the cover letter.
 *
 * Whatever was odd (duplicates, missing patches, patches borrowed from an
 * older version) is listed in series->problems; only a thread without any
 * patch is an error.
 */
#ifndef MMCI_SERIES_H
#define MMCI_SERIES_H

#include <stddef.h>
#include <time.h>

struct mail;

/* patches in one series; "[PATCH 1000/1200]" is not taken as a series */
#define SERIES_MAX_PATCHES 999
/* reply trailers kept per patch (and for the cover); more are dropped */
#define SERIES_MAX_TRAILERS 256

/* what the subject of a mail says about it */
struct patch_subject {
	int is_patch;		/* a PATCH, RFC or "n/N" tag; not a reply */
	int is_reply;		/* "Re:", "Fwd:", "Re: (subset)" in front */
	int is_rfc;
	int is_resend;
	int version;		/* 3 for "v3" or "V3", 0 if not given */
	int index, total;	/* 2, 7 for "2/7"; 0, 0 if not numbered */
	char *prefix;		/* other words of the tag: "net-next", "-next",
				 * "mm-unstable"; "" if none */
	char *title;		/* the subject after the tags */
};

/**
 * parse_patch_subject() - read the "[PATCH ...]" tags of a subject
 * @subject: a decoded subject, e.g. "Re: [RFC PATCH v2 1/3] mm: foo"
 * @out: filled in; the caller frees it with patch_subject_release()
 *
 * Tags without PATCH, RFC or "n/N" ("[Navy-patches] [PATCH] x", "[BUG]")
 * are dropped from the title, as `git am` does. The words of a tag may come
 * in any order ("[PATCH 3/3 v2]"). Reply prefixes count only before the
 * tags.
 *
 * Return: 1 if the subject is that of a patch or cover letter (@out->is_patch),
 * else 0.
 */
int parse_patch_subject(const char *subject, struct patch_subject *out);

/**
 * series_thread_has_patch() - could series_from_mails() find a patch here?
 * @mails: the thread
 * @nr: number of mails
 *
 * A mail counts when its subject is tagged as a patch or cover letter
 * (parse_patch_subject()), or when it is no reply and its body holds a
 * whole git diff ("diff --git", "---", "+++", a "@@" hunk) though its
 * subject has no tag (git send-email without a prefix).
 *
 * Return: 1 if a mail counts, else 0.
 */
int series_thread_has_patch(const struct mail *mails, size_t nr);

/** patch_subject_release() - free what parse_patch_subject() allocated */
void patch_subject_release(struct patch_subject *ps);

struct series_patch {
	int index;		/* 1..total */
	int version;		/* as posted: lower than the series' version
				 * when borrowed from an older one */
	struct mail *mail;	/* borrowed from the caller's mails */
	char *author_name;	/* the in-body "From:" line, else the mail's */
	char *author_email;
	char *title;		/* subject without the tags */
	char *message;		/* commit message: title, blank line, body up
				 * to the "---" line; ends with "\n" */
	char *diff;		/* from the first "diff --git" (or a "--- ",
				 * "+++ " pair) to the end, without the "-- "
				 * signature; "" if the mail has no diff */
	time_t date;		/* in-body "Date:", else the mail's */
	char **trailers;	/* "Reviewed-by: A <a@b>" lines sent in replies
				 * to this patch or to the cover letter, and not
				 * already in @message; in mail order */
	size_t nr_trailers;
};

struct series {
	int version;		/* 1 if no version is given */
	int total;		/* N of "n/N" */
	int is_rfc;
	char *title;		/* subject title of the cover letter, else of
				 * the first patch mail */
	struct mail *cover;	/* the 0/N mail, borrowed; NULL if none */
	struct series_patch *patches;	/* ordered by index */
	size_t nr;
	int *missing;		/* indices in 1..total that no mail has */
	size_t nr_missing;
	char *base_commit;	/* "base-commit: <sha>" from the cover or a
				 * patch, or NULL */
	char **cover_trailers;	/* trailers sent in replies to the cover */
	size_t nr_cover_trailers;
	char **problems;	/* human-readable notes, e.g. "duplicate
				 * patch 2/4, keeping the latest" */
	size_t nr_problems;
};

/**
 * series_from_mails() - assemble the series found in a thread
 * @mails: the thread, in any order; they must outlive @out, which points
 *         into them
 * @nr: number of mails
 * @out: overwritten; release it with series_release(), also on failure
 *
 * The newest version wins. Its missing patches are taken from an older
 * version when one has them (a partial re-roll), which is noted in
 * @out->problems. Of duplicates the latest mail is kept.
 *
 * Return: 0, or -1 after error() if no mail is a patch (a cover letter
 * alone is no series either).
 */
int series_from_mails(struct mail *mails, size_t nr, struct series *out);

/**
 * series_from_file() - read an mbox file and assemble its series
 * @path: the mbox or .eml file
 * @mails: out, the mails the series points into; the caller frees them
 *         with mails_free() after series_release(); NULL on failure
 * @nr: out, number of mails
 * @out: as for series_from_mails()
 *
 * Return: 0, or -1 after error() if the file cannot be read, is not a mail,
 * or holds no patch (nothing is left for the caller to free but @out).
 */
int series_from_file(const char *path, struct mail **mails, size_t *nr,
		     struct series *out);

/**
 * series_patch_full_message() - the commit message with the reply trailers
 * @p: a patch of an assembled series
 *
 * Return: @p->message with @p->trailers appended to its trailer block;
 * a new string, caller frees.
 */
char *series_patch_full_message(const struct series_patch *p);

/** series_release() - free what a struct series owns, leaving it zeroed */
void series_release(struct series *s);

#endif
