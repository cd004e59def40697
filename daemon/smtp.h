/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smtp.h - hand a finished mail to an SMTP server (libcurl), or to the
 * outbox directory.
 *
 * The outbox is the default and the safe place: every report is written
 * there as <timestamp>-<n>.eml whether or not it is also sent, so a
 * message a server refused is still on disk for a retry. Sending needs an
 * explicit server URL (docs/OPERATIONS.md: dry-run by default).
 *
 * Messages are composed with "\n" line ends (the .eml files keep them);
 * smtp_send() turns them into CRLF on the wire, and libcurl does the
 * dot-stuffing. Every envelope address is checked with
 * smtp_valid_address() first: nothing but a plain addr-spec reaches a
 * MAIL FROM or RCPT TO command.
 */
#ifndef MMCI_SMTP_H
#define MMCI_SMTP_H

#include <stddef.h>

struct strbuf;

struct smtp_settings {
	const char *url;	/* smtp://host[:port][/ehlo-name] or smtps:// */
	const char *username;	/* NULL: no AUTH */
	const char *password;
	int require_tls;	/* smtp://: STARTTLS or fail */
	long connect_timeout_s;	/* default 10 */
	long timeout_s;		/* the whole session, default 60 */
};

/*
 * smtp_settings_init - the defaults, then the environment: MMCI_SMTP_URL,
 * MMCI_SMTP_USER, MMCI_SMTP_PASSWORD, MMCI_SMTP_TLS=1 (require STARTTLS),
 * MMCI_SMTP_TIMEOUT (s). The strings point into the environment.
 */
void smtp_settings_init(struct smtp_settings *s);

/*
 * smtp_valid_address - is @addr a plain addr-spec ("local@domain.tld")
 * mmci is willing to put in an envelope or an address header? ASCII
 * only (no SMTPUTF8), no blanks, quotes, brackets or control characters,
 * at most 254 bytes. Returns 1 or 0.
 */
int smtp_valid_address(const char *addr);

/**
 * smtp_send() - deliver one message
 * @s: the server; s->url must be smtp:// or smtps://
 * @from: envelope sender (MAIL FROM), a valid address
 * @rcpt: @nr_rcpt envelope recipients (RCPT TO), valid addresses
 * @message: the whole RFC 5322 message, "\n" or "\r\n" line ends
 * @len: bytes in @message
 * @err: on failure, why: the command and the server's reply when the
 *       server refused ("RCPT TO:<a@b>: 550 no"), else libcurl's text
 *
 * Every recipient must be accepted, or nothing is sent.
 * Return: 0 when the server accepted the message, -1 after error().
 */
int smtp_send(const struct smtp_settings *s, const char *from,
	      const char *const *rcpt, size_t nr_rcpt, const char *message,
	      size_t len, struct strbuf *err);

/**
 * smtp_outbox_write() - store a message as <dir>/<UTC time>-<n>.eml
 * @dir: the outbox, created if missing
 * @message: the message; @len bytes
 * @path: out, the new file's path; caller frees
 *
 * The file is written under a temporary name, synced and linked to its
 * final name (never replacing another message), so a reader of the outbox
 * sees whole messages only.
 * Return: 0, or -1 after error().
 */
int smtp_outbox_write(const char *dir, const char *message, size_t len,
		      char **path);

/* @url without user:password@, for messages; caller frees */
char *smtp_redact_url(const char *url);

#endif
