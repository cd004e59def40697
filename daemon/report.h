/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - the report stage: a base-vs-new comparison as an email in the
 * style of the kernel test robot (LKP), threaded under the series it tested.
 *
 * Two kinds of report:
 *  - series: a tested series. Threaded under its cover letter (or under
 *    the patch that moved the numbers), To the author, Cc what the mail it
 *    answers had in To and Cc; the subject is that mail's subject plus the
 *    most significant change ("...: fsdax.rebind_memmap +67.4% regression");
 *  - nightly: two runs of a tree and, if known, the culprit commit; no
 *    threading, recipients from --to (and the commit's author when the
 *    tree ingest recorded it).
 *
 * Everything that goes into a header field and comes from a mail (subjects,
 * names, addresses, message-ids) is untrusted: control characters (CR and
 * LF above all) are removed, non-ASCII text is RFC 2047-encoded, long
 * fields are folded, addresses must be plain addr-specs and message-ids
 * plain <left@right> with no blanks. What fails a check is left out, with a
 * warning, never passed through.
 *
 * Every message is written to the outbox first (smtp.h); sending is opt-in.
 * What happened to it is a row of the mails table (schema/0006-jobs.sql).
 */
#ifndef MMCI_REPORT_H
#define MMCI_REPORT_H

#include <stddef.h>
#include <time.h>

#include "strbuf.h"

struct db;
struct run_comparison;
struct metric_comparison;
struct smtp_settings;

#define REPORT_DEFAULT_FROM "mmci <mmci@localhost>"
#define REPORT_DEFAULT_WEB_URL "http://localhost:8080"
/* recipients of one report at most; a hostile Cc list stops here */
#define REPORT_MAX_RCPT 64
/* References: ids kept, the nearest to the mail answered */
#define REPORT_MAX_REFERENCES 8

/*
 * A subject is at most this many bytes: the verdict stays whole, the
 * series' or commit's title before it is shortened ("...") to make room.
 */
#define REPORT_SUBJECT_MAX 100
/* a body line is at most this many columns (a URL may be longer) */
#define REPORT_MAIL_COLUMNS 80

struct report_input {
	long long base_run, new_run;	/* runs.id; required */
	long long series_id;	/* 0: the new run's build's series, if any */
	long long job;		/* a series job: the runs stand for its
				 * steps (job_steps), which name the commit
				 * and patches, not the run's build (a run
				 * stands for every step of its kernel,
				 * measure_share_kernels()); 0: the builds */
	int patch_idx;		/* thread under patch N; 0: the cover letter,
				 * or the patch the runs' builds differ by */
	const char *commit;	/* nightly: the culprit commit (hex), or NULL */
	const char *from;	/* "Name <addr>"; NULL: MMCI_MAIL_FROM or
				 * REPORT_DEFAULT_FROM */
	const char *web_url;	/* NULL: MMCI_WEB_URL or the default */
	const char *msgid_domain;	/* NULL: MMCI_MAIL_DOMAIN or From's */
	const char *const *to;	/* extra recipients (To), "Name <addr>" */
	size_t nr_to;
	time_t date;		/* Date:; 0 means now */
	const char *headline;	/* a series whose patches' own steps
				 * regressed: attribution_verdict()'s words,
				 * the verdict line; the subject too when
				 * the runs did not regress ("MIXED: ...");
				 * NULL: the runs' verdict */
	const char *regressed;	/* those patches, "1/3, 3/3": the subject
				 * of a regressed series names them */
	const char *steps;	/* the per-patch table, put before the
				 * series as a whole (the patches first);
				 * may be NULL */
	long long prev_run;	/* vN-1's run measured the same way
				 * (series_job_previous_run()); 0 none */
	int prev_version;	/* its version number */
	const char *profile;	/* where the instructions went
				 * (series_job_profiles(), at most
				 * PROFILE_MAIL_LINES lines); may be NULL */
	const char *extra;	/* the claims, put after the comparison,
				 * above the signature; may be NULL */
};

struct report {
	struct strbuf text;	/* the whole message, "\n" line ends */
	const char *kind;	/* "series" or "nightly" (static) */
	long long series_id;	/* 0 for nightly */
	long long base_run, new_run;
	char *message_id;	/* without <> */
	char *subject;		/* cleaned, before encoding */
	char *from;		/* envelope sender: the bare address */
	char **rcpt;		/* To then Cc, bare addresses, unique */
	size_t nr_rcpt;
	size_t nr_opted_out;	/* recipients left out: MMCI_MAIL_OPT_OUT */
	int author_opted_out;	/* the series' author is on that list */
};

/**
 * report_compose() - compare two runs and write the report mail
 * @db: the store
 * @in: what to report
 * @out: the message and its envelope; released with report_release()
 *
 * Return: 0, or -1 after error() (no such run, runs not comparable, no
 * valid From address).
 */
int report_compose(struct db *db, const struct report_input *in,
		   struct report *out);
void report_release(struct report *r);

/*
 * The mails table (schema/0006-jobs.sql): what was written, sent or
 * refused. status: 'dry-run' (in the outbox only), 'sent', 'failed' (the
 * error says why; the .eml at path is kept for `mmci report --retry`).
 */

/**
 * report_deliver() - store the message in @outbox, send it if @smtp is
 * not NULL, and record what happened in the mails table
 * @path: out, the .eml; caller frees (set even when sending failed)
 * @mail_id: out, mails.id; may be NULL
 *
 * Return: 0 when the message is stored (and sent, if asked), -1 after
 * error() otherwise; a refused message stays in the outbox, its row
 * 'failed' with the server's reply.
 */
int report_deliver(struct db *db, const struct report *r, const char *outbox,
		   const struct smtp_settings *smtp, char **path,
		   long long *mail_id);

/**
 * report_retry() - send again every mail whose row is 'failed'
 * @outbox: the directory the messages were written to; a row whose path
 *	is not a file in it (a row anyone with the database could write:
 *	/etc/shadow, ../..) is never read, and becomes 'refused' with why
 * @nr_sent, @nr_failed: out, counts (a refused one counts as failed)
 *
 * Return: 0 when every one went out (or there were none), -1 otherwise.
 */
int report_retry(struct db *db, const struct smtp_settings *smtp,
		 const char *outbox, int *nr_sent, int *nr_failed);

/*
 * The mail policy (docs/MAIL.md), as the kernel test robot mails: only a
 * significant change, never "no change" or "insufficient data" alone
 * (those stay on the web page).
 */
struct attribution;
struct claim_check;
struct report_addresses;

struct report_policy_input {
	const struct run_comparison *series;	/* base vs +N; required */
	const struct attribution *attr;	/* the per-patch steps, or NULL */
	const struct claim_check *claims;	/* claims_check()'s */
	size_t nr_claims;
};

/**
 * report_policy() - mail a series job's result or not, and why
 * @in: the comparisons and the claims
 * @reason: out, one line: what decided it ("regression: ...", "patch 3/3
 *	regressed ...", "claimed improvement measured as a regression: ...",
 *	"claimed improvement: ...", "improvement not claimed by the series:
 *	...", "no significant change", "insufficient data")
 *
 * In this order: a claimed improvement measured as a regression, a
 * regression of the series, a regression of a patch's own step: mail; an
 * improvement (series or own step) on a workload the series claims an
 * improvement on: mail; any other improvement, no change, insufficient
 * data: no mail.
 *
 * Return: 1 to mail, 0 not.
 */
int report_policy(const struct report_policy_input *in,
		  struct strbuf *reason);

/**
 * report_public_url() - may a real mail link to @url: an http(s) address
 * whose host is not localhost, *.localhost, 127.0.0.0/8, ::1 or 0.0.0.0
 * Return: 1 or 0.
 */
int report_public_url(const char *url);

/* the web address reports link to: --url, MMCI_WEB_URL or the default;
 * points into the environment or a constant */
const char *report_web_url(const char *given);

/**
 * report_opt_out_parse() - MMCI_MAIL_OPT_OUT: addresses (authors or
 * lists) that get no mail, separated by commas or blanks; every entry
 * must be a plain addr-spec
 * @l: filled; released with report_addresses_release()
 * Return: 0, or -1 after error() naming the bad entry.
 */
int report_opt_out_parse(const char *v, struct report_addresses *l);

/**
 * report_rate_room() - how many more mails may be sent this hour under
 * MMCI_MAIL_RATE_PER_HOUR (mails rows 'sent' in the last 3600 s count)
 * Return: 0 or more, or -1 after error().
 */
long long report_rate_room(struct db *db);

/**
 * report_hold() - store the message in @outbox with a 'failed' row whose
 * error is @why, so `mmci report --retry` (the daemon's retry round)
 * sends it when the rate limit has room again
 * @path: out, the .eml; caller frees
 * Return: 0, or -1 after error().
 */
int report_hold(struct db *db, const struct report *r, const char *outbox,
		const char *why, char **path);

/* https://lore.kernel.org/r/<id>, the id percent-encoded where a URL
 * needs it */
void report_lore_url(struct strbuf *out, const char *msgid);

/*
 * The pieces, exported for the unit tests.
 */

/* one line of plain text: control characters (C0, DEL, C1, U+2028/9)
 * become blanks, runs of blanks one, invalid UTF-8 U+FFFD; trimmed */
void report_clean_text(struct strbuf *out, const char *in);

/* "Name: value\n", cleaned, RFC 2047-encoded when not plain ASCII (or
 * when it holds "=?"), folded at 78 columns */
void report_add_header(struct strbuf *msg, const char *name,
		       const char *value);

/* a message-id without <>: printable ASCII, no blanks or <>()",;:\ and
 * exactly one '@' with text either side, at most 250 bytes; 1 or 0 */
int report_valid_msgid(const char *id);

struct report_address {
	char *name;		/* cleaned UTF-8, "" if none */
	char *email;		/* a valid addr-spec */
};

struct report_addresses {
	struct report_address *a;
	size_t nr, alloc;
};

/*
 * report_addresses_add - add one address unless it is invalid (warning),
 * already present (the comparison ignores case) or the list is full
 * (REPORT_MAX_RCPT). Returns 1 if added.
 */
int report_addresses_add(struct report_addresses *l, const char *name,
			 const char *email);
/* every address of a raw (undecoded) To/Cc/From field value */
void report_addresses_add_field(struct report_addresses *l, const char *raw);
void report_addresses_release(struct report_addresses *l);
/* "To: A <a@b>,\n B <c@d>\n": names quoted or encoded, folded */
void report_add_address_header(struct strbuf *msg, const char *name,
			       const struct report_addresses *l);

/*
 * report_pick_metric - the metric a subject names: the largest regression,
 * else the largest improvement; NULL when nothing changed significantly.
 */
const struct metric_comparison *
report_pick_metric(const struct run_comparison *rc);

/*
 * report_subject - "[mmci] <what>: <metric> +12.1% regression",
 * "... -67.4% improvement", "...: no significant change" or
 * "...: insufficient data" (no metric could be decided). @what is the
 * series' subject or the commit; the result is cleaned.
 */
void report_subject(struct strbuf *out, const char *what,
		    const struct run_comparison *rc);

/* "fsdax.rebind_memmap", "devdax.align-2M.rebind_memmap" */
void report_metric_name(struct strbuf *out, const struct metric_comparison *m);

#endif
