// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-mbox.c - libFuzzer target for the mail parser.
 *
 * The input is an mbox (or one mail) as `mmci ingest` and `mmci
 * test-series` read it from lore or a mailbox: untrusted bytes, with NULs,
 * no terminating NUL, any length up to -max_len. It goes through
 * mbox_parse(), which splits it and parses every mail (header fields,
 * RFC 2047 words, MIME tree, quoted-printable, base64, charsets), then
 * through series_from_mails() and series_patch_full_message(), which read
 * patch subjects, in-body headers, commit messages, diffs and trailers.
 *
 * Besides the sanitizers (ASan, UBSan, LeakSanitizer), the target checks
 * what mbox.h and series.h promise the rest of mmci; a broken promise
 * aborts, which libFuzzer reports as a crash with its input.
 */
#include <stdint.h>

#include "mbox.h"
#include "series.h"
#include "util.h"
#include "../utf8-valid.h"

#define check(cond, what)                                                  \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "fuzz-mbox: broken promise: %s\n", \
				what);                                     \
			abort();                                           \
		}                                                          \
	} while (0)

static int utf8_valid(const char *s, size_t len)
{
	return utf8_valid_text(s, len, 0);
}

static int str_ok(const char *s)
{
	return s && utf8_valid(s, strlen(s));
}

static void check_mail(const struct mail *m, size_t mbox_len)
{
	size_t i;

	check(str_ok(m->from_name), "from_name is UTF-8");
	check(str_ok(m->from_email), "from_email is UTF-8");
	check(str_ok(m->subject), "subject is UTF-8");
	check(!strchr(m->subject, '\n'), "subject is unfolded");
	check(str_ok(m->to), "to is UTF-8");
	check(str_ok(m->cc), "cc is UTF-8");
	check(!m->date_raw || str_ok(m->date_raw), "date_raw is UTF-8");
	check(!m->message_id || (*m->message_id && str_ok(m->message_id)),
	      "message_id is NULL or a non-empty UTF-8 string");
	check(!m->in_reply_to || str_ok(m->in_reply_to),
	      "in_reply_to is UTF-8");
	check(m->nr_references <= MAIL_MAX_REFERENCES, "references bounded");
	for (i = 0; i < m->nr_references; i++)
		check(str_ok(m->references[i]), "reference is UTF-8");
	check(!m->problem || str_ok(m->problem), "problem is UTF-8");
	check(m->body.buf && strlen(m->body.buf) == m->body.len,
	      "body has no NUL");
	check(utf8_valid(m->body.buf, m->body.len), "body is UTF-8");
	check(m->nr_headers <= MAIL_MAX_HEADERS, "header fields bounded");
	for (i = 0; i < m->nr_headers; i++) {
		check(m->headers[i].name && *m->headers[i].name,
		      "header name not empty");
		check(m->headers[i].value, "header value not NULL");
		check(strlen(m->headers[i].value) <= 3 * MAIL_MAX_HEADER_LEN,
		      "header value bounded");
	}
	check(m->offset <= mbox_len && m->length <= mbox_len - m->offset,
	      "mail lies inside the mbox");
}

static void check_series(const struct series *s, const struct mail *mails,
			 size_t nr_mails)
{
	size_t i, j;

	check(s->nr > 0, "a series has a patch");
	check(s->total >= 1 && s->total <= SERIES_MAX_PATCHES, "total bounded");
	check(s->nr + s->nr_missing == (size_t)s->total,
	      "every index is a patch or missing");
	check(s->title, "series title not NULL");
	check(!s->cover || (s->cover >= mails && s->cover < mails + nr_mails),
	      "cover points into the mails");
	check(s->nr_problems <= 65, "problems bounded");
	for (i = 0; i < s->nr_problems; i++)
		check(s->problems[i], "problem not NULL");
	check(s->nr_cover_trailers <= SERIES_MAX_TRAILERS,
	      "cover trailers bounded");
	for (i = 0; i < s->nr_missing; i++)
		check(s->missing[i] >= 1 && s->missing[i] <= s->total,
		      "missing index in 1..total");
	for (i = 0; i < s->nr; i++) {
		const struct series_patch *p = &s->patches[i];
		char *full;

		check(p->index >= 1 && p->index <= s->total,
		      "patch index in 1..total");
		check(!i || p->index > s->patches[i - 1].index,
		      "patches ordered by index");
		check(p->mail >= mails && p->mail < mails + nr_mails,
		      "patch mail points into the mails");
		check(p->author_name && p->author_email && p->title && p->diff,
		      "patch strings not NULL");
		check(p->message && *p->message &&
			      p->message[strlen(p->message) - 1] == '\n',
		      "commit message ends with a line end");
		check(p->nr_trailers <= SERIES_MAX_TRAILERS,
		      "patch trailers bounded");
		for (j = 0; j < p->nr_trailers; j++)
			check(p->trailers[j], "trailer not NULL");
		full = series_patch_full_message(p);
		check(full && strlen(full) >= p->nr_trailers,
		      "full message built");
		free(full);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mail *mails;
	struct series s;
	size_t nr, i;

	if (mbox_parse((const char *)data, size, &mails, &nr)) {
		check(!mails && !nr, "nothing to free after an error");
		return 0;
	}
	check(mails && nr >= 1 && nr <= MBOX_MAX_MESSAGES,
	      "a parsed mbox has a mail");
	for (i = 0; i < nr; i++)
		check_mail(&mails[i], size);
	if (!series_from_mails(mails, nr, &s))
		check_series(&s, mails, nr);
	series_release(&s);
	mails_free(mails, nr);
	return 0;
}
