/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mbox.h - split mbox files into mails and parse each mail.
 *
 * Input comes from lore (t.mbox.gz, mboxrd), from `git format-patch`
 * (mboxo, "From <sha> Mon Sep 17 00:00:00 2001") or is a single .eml file.
 * Mails are untrusted: the parser never fails on a broken mail. Whatever it
 * could not make sense of is described in mail->problem and the rest of the
 * mbox is parsed as usual.
 *
 * Every string a struct mail hands out is valid, NUL-terminated UTF-8:
 * RFC 2047 encoded-words, transfer encodings and charsets are decoded, and
 * bytes that are not UTF-8 become U+FFFD. In decoded header fields
 * (subject, names, To, Cc) control characters and the bidirectional
 * controls U+202A-202E, U+2066-2069, U+200E, U+200F and U+061C become
 * U+FFFD too, so no subject can reorder the text it is shown in; so do
 * the C1 controls U+0080-009F. mail_clean_text() does the same for any
 * other text taken from a mail (the claims of claims.c).
 *
 * The limits below bound what a hostile mbox can cost; input beyond them
 * is dropped and noted in mail->problem.
 */
#ifndef MMCI_MBOX_H
#define MMCI_MBOX_H

#include <stddef.h>
#include <time.h>

#include "strbuf.h"

/* bytes of one mail; the rest of a longer mail is not parsed */
#define MBOX_MAX_MESSAGE_SIZE (64u << 20)
/* mails in one mbox; later ones are dropped */
#define MBOX_MAX_MESSAGES 100000
/* header fields of one mail or MIME part; later ones are dropped */
#define MAIL_MAX_HEADERS 1024
/* bytes of one unfolded header field value */
#define MAIL_MAX_HEADER_LEN (256u << 10)
/* References: message ids kept (the last ones, nearest the mail) */
#define MAIL_MAX_REFERENCES 1024
/* nesting of multipart entities (a plain mail is depth 0) */
#define MIME_MAX_DEPTH 8
/* MIME parts of one mail, all depths together */
#define MIME_MAX_PARTS 256

/* one header field as found in the mail: unfolded, not decoded */
struct mail_header {
	char *name;	/* as spelled in the mail */
	char *value;	/* raw bytes after "name:", leading blanks removed;
			 * NUL bytes are replaced by U+FFFD, 8-bit bytes kept */
};

struct mail {
	char *message_id;	/* without <>; NULL if absent, empty or bad */
	char *in_reply_to;	/* first msg-id of In-Reply-To, or NULL */
	char **references;	/* msg-ids of all References: fields */
	size_t nr_references;
	char *from_name;	/* decoded display name, "" if none */
	char *from_email;	/* "" if none */
	char *subject;		/* decoded, unfolded, blanks collapsed; "" */
	char *date_raw;		/* the Date: value as sent, or NULL */
	time_t date;		/* seconds since the epoch, 0 if unparsable */
	char *to, *cc;		/* decoded, unfolded; "" if absent */
	/*
	 * The text of the mail in UTF-8 with "\n" line ends: the text/plain
	 * parts, then the patch attachments (text/x-patch, text/x-diff, and
	 * application/octet-stream that holds a diff), in mail order.
	 */
	struct strbuf body;
	char *problem;		/* "; "-separated notes, or NULL */
	size_t offset;		/* byte offset of the mail in the mbox */
	size_t length;		/* bytes of the mbox the mail spans */
	struct mail_header *headers;	/* top-level header fields */
	size_t nr_headers;
};

/**
 * mbox_parse() - split an mbox and parse every mail in it
 * @buf: the mbox, mboxo ("From addr date" lines), mboxrd ("From mboxrd@z"
 *       first line: ">From " lines lose one '>') or one mail without a
 *       "From " line; it may hold NUL bytes and need not be NUL-terminated
 * @len: bytes in @buf
 * @mails: out, an array of *@nr mails; the caller frees it with
 *         mails_free(); set to NULL on error
 * @nr: out, number of mails
 *
 * Broken mails are returned with mail->problem set; they never stop the
 * parse of the mails after them.
 *
 * Return: 0 with at least one mail, or -1 after error() if the input is not
 * a mail at all (empty, neither a "From " line nor a header field at its
 * start, or "From " lines with nothing after them).
 */
int mbox_parse(const char *buf, size_t len, struct mail **mails, size_t *nr);

/**
 * mail_parse() - parse one mail (no "From " separator line)
 * @buf: header block, blank line, body
 * @len: bytes in @buf
 * @mail: out; released by the caller with mail_release()
 *
 * Never fails: a broken mail gets mail->problem.
 */
void mail_parse(const char *buf, size_t len, struct mail *mail);

/**
 * mail_release() - free what a struct mail owns, leaving it zeroed
 * @mail: may be NULL
 */
void mail_release(struct mail *mail);

/**
 * mails_free() - release @nr mails and free the array itself
 * @mails: as returned by mbox_parse(); may be NULL
 * @nr: number of mails
 */
void mails_free(struct mail *mails, size_t nr);

/**
 * mail_header() - the raw value of the first header field called @name
 * @mail: a parsed mail
 * @name: field name, compared without regard to case
 *
 * Return: the unfolded, undecoded value, owned by @mail; NULL if absent.
 */
const char *mail_header(const struct mail *mail, const char *name);

/**
 * mail_decode_header() - decode RFC 2047 encoded-words into UTF-8
 * @raw: an unfolded header value (B and Q encodings, any charset iconv
 *       knows; blanks between two encoded-words are dropped)
 *
 * Return: a new string, caller frees. Bytes that are not UTF-8,
 * control characters and bidirectional controls become U+FFFD.
 */
char *mail_decode_header(const char *raw);

/**
 * mail_clean_text() - untrusted text as text that is safe to show
 * @out: where the clean text is appended
 * @in: the text, UTF-8 or not; need not be NUL-terminated
 * @len: bytes in @in
 * @lines: 1: keep '\n' and '\t' (and drop '\r'); 0: they become ' ',
 *         one line of text, as in a decoded header
 *
 * Every byte that does not start valid UTF-8, every other control
 * character (C0 with NUL and ESC, DEL, C1 U+0080-009F) and the
 * bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F,
 * U+061C) become U+FFFD, one per character: an escape sequence "ESC [31m"
 * becomes "\uFFFD[31m", which no terminal, page or mail reader acts on,
 * and a reader still sees that something was there. It is the cleaning
 * mail_decode_header() does, for text found in bodies.
 * Return: the number of replacements.
 */
size_t mail_clean_text(struct strbuf *out, const char *in, size_t len,
		       int lines);

/**
 * mail_parse_address() - split "Name <email>" into its parts
 * @raw: an undecoded address ("Name <a@b>", "\"Name\" <a@b>", "<a@b>",
 *       "a@b (Name)", "a@b"); only the first address is read
 * @name: out, decoded display name, "" if none; caller frees
 * @email: out, address without <>, "" if none; caller frees
 */
void mail_parse_address(const char *raw, char **name, char **email);

/**
 * mail_parse_date() - parse an RFC 5322 date ("Sun, 21 Feb 2021 12:29:31
 * +0100 (CET)"), tolerating a missing weekday, seconds or zone
 * @s: the date string
 * @out: set to seconds since the epoch, 0 on failure
 *
 * Return: 0, or -1 if @s is not a date (no error() is logged).
 */
int mail_parse_date(const char *s, time_t *out);

/**
 * mail_text_has_patch() - does the text hold a unified diff?
 * @text: UTF-8 text
 * @len: bytes in @text
 *
 * Return: 1 if a line starts with "diff --git " or a "--- " line is
 * directly followed by a "+++ " line, else 0.
 */
int mail_text_has_patch(const char *text, size_t len);

/**
 * mail_charset_to_utf8() - append @len bytes in @charset to @out as UTF-8
 * @out: where the text goes
 * @charset: a MIME charset name; NULL, "" or unknown means "UTF-8"
 * @in: the text; need not be NUL-terminated
 * @len: bytes in @in
 *
 * Bytes that do not convert become U+FFFD, and so do NUL bytes.
 * Return: 0, or -1 if @charset is unknown (the text is then read as UTF-8).
 */
int mail_charset_to_utf8(struct strbuf *out, const char *charset,
			 const char *in, size_t len);

#endif
