// SPDX-License-Identifier: GPL-2.0
/*
 * test-mbox.c - unit tests of daemon/mbox.c: mbox splitting (mboxo,
 * mboxrd, .eml), header unfolding and RFC 2047, transfer encodings, MIME
 * walking, charsets, and robustness against fuzzed and truncated input.
 *
 * Every case runs on the mails of tests/fixtures/mbox, written for these
 * tests (tests/fixtures/README.md says what each file exercises). The real
 * mails of $MMCI_FIXTURES (default ../shared/fixtures/mbox; SOURCES.md there)
 * are an extra: their cases skip when the directory is absent (fixtures.h).
 * Expected values were read off the fixtures and, for the git t5100 files,
 * off git's own expected outputs (t/t5100/info*).
 */
#include "mbox.h"
#include "util.h"
#include "tap.h"
#include "fixtures.h"
#include "../utf8-valid.h"

/* the mails of fixture @rel in @dir; NULL (and a failed test) if unreadable */
static struct mail *load_from(const char *dir, const char *rel, size_t *nr,
			      struct strbuf *raw)
{
	char *path = xstrfmt("%s/%s", dir, rel);
	struct strbuf sb = STRBUF_INIT;
	struct mail *mails = NULL;

	*nr = 0;
	if (strbuf_read_file(&sb, path, 0) < 0) {
		ok(0, path);
		printf("#   cannot read '%s'\n", path);
	} else if (mbox_parse(sb.buf, sb.len, &mails, nr)) {
		ok(0, path);
	}
	free(path);
	if (raw)
		strbuf_addbuf(raw, &sb);
	strbuf_release(&sb);
	return mails;
}

/* a mail file of the real-mail corpus */
static struct mail *load(const char *rel, size_t *nr, struct strbuf *raw)
{
	return load_from(shared_fixtures_dir(), rel, nr, raw);
}

/* a mail file of our own, tests/fixtures/mbox */
static struct mail *own(const char *rel, size_t *nr)
{
	return load_from(OWN_FIXTURES, rel, nr, NULL);
}

static int utf8_valid(const char *s, size_t len)
{
	return utf8_valid_text(s, len, 0);
}

static int str_ok(const char *s)
{
	return s && utf8_valid(s, strlen(s));
}

static int mail_strings_ok(const struct mail *m)
{
	size_t i;

	if (!str_ok(m->from_name) || !str_ok(m->from_email) ||
	    !str_ok(m->subject) || !str_ok(m->to) || !str_ok(m->cc) ||
	    (m->date_raw && !str_ok(m->date_raw)) ||
	    (m->message_id && !str_ok(m->message_id)) ||
	    (m->problem && !str_ok(m->problem)) ||
	    !utf8_valid(m->body.buf, m->body.len) ||
	    strlen(m->body.buf) != m->body.len || strchr(m->subject, '\n'))
		return 0;
	for (i = 0; i < m->nr_references; i++)
		if (!str_ok(m->references[i]))
			return 0;
	return 1;
}

static int contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

struct fixture_file {
	const char *file;
	size_t mails;
};

/* every file of tests/fixtures/mbox that is mail */
static const struct fixture_file own_fixtures[] = {
	{ "bad-encodings.mbox", 8 },
	{ "broken-mangled-headers.mbox", 1 },
	{ "broken-references-patch-2-of-2.mbox", 1 },
	{ "hid-exampad-single-patch-flowed.mboxrd", 2 },
	{ "leds-exa3310-V3-folded-ids.mbox", 4 },
	{ "mboxrd-from-escapes.mboxrd", 2 },
	{ "memmap-pageblock-v2-v3-reroll.mbox", 8 },
	{ "memmap-soft-lockup-bug-thread.mboxrd", 5 },
	{ "mm-commits-added-vmap-contig-runs.eml", 1 },
	{ "no-from-header.eml", 1 },
	{ "page-owner-patch-as-attachment.eml", 1 },
	{ "rfc2047-folded-headers.mbox", 9 },
	{ "selftests-lone-cr-crlf-base64.mbox", 2 },
	{ "vmalloc-huge-vmap-v1.mbox", 3 },
	{ "vmalloc-huge-vmap-v2.mboxrd", 12 },
	{ "vmscan-untagged-send-email.mbox", 2 },
	{ "zswap-batch-v4-truncated.mbox", 3 },
	{ "zswap-batch-v4-version-on-cover.mbox", 4 },
};

static const struct fixture_file all_fixtures[] = {
	{ "getpatchwork+patchwork/fuzz-dateheader.mbox", 1 },
	{ "getpatchwork+patchwork/fuzz-refshdr.mbox", 1 },
	{ "getpatchwork+patchwork/mail-0015-with-invalid-utf8-headers.mbox", 1 },
	{ "getpatchwork+patchwork/series-base-different-versions.mbox", 5 },
	{ "getpatchwork+patchwork/series-bugs-multiple-content-types.mbox", 2 },
	{ "getpatchwork+patchwork/series-bugs-multiple-references.mbox", 5 },
	{ "git+git/t5100-quoted-cr.mbox", 2 },
	{ "git+git/t5100-rfc2047-samples.mbox", 11 },
	{ "git+git/t5100-sample.mbox", 18 },
	{ "git+git/t5100-sample.mboxrd", 2 },
	{ "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/auxdisplay-7seg-v2-0-4-qp-base64.mboxrd", 24 },
	{ "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/hid-lenovo-mute-led-v3-0-7.mboxrd", 14 },
	{ "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/leds-bug-abba-deadlock-thread-inline-format-patch.mboxrd", 5 },
	{ "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/leds-privacy-led-devicetree-v5-0-4.mboxrd", 20 },
	{ "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/patch-as-base64-octet-stream-attachment.eml", 1 },
	{ "linux-mailinglist-archives+stable.vger.kernel.org.1/mm-commits-mm-new-added-samples-damon-mtier.eml", 1 },
	{ "mricon+b4/trailers-followup-partial-reroll.mbox", 6 },
	{ "mricon+b4/trailers-thread-with-cover-followup.mbox", 7 },
};

#define LEDS "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/"

/* every file of @dir in @files: so many mails, only valid UTF-8 */
static void check_files(const char *dir, const struct fixture_file *files,
			size_t nr_files)
{
	size_t i, j;

	for (i = 0; i < nr_files; i++) {
		struct mail *m;
		size_t nr;
		int good = 1;
		char *name;

		m = load_from(dir, files[i].file, &nr, NULL);
		name = xstrfmt("%s: %zu mails", files[i].file, files[i].mails);
		is_int(nr, files[i].mails, name);
		free(name);
		for (j = 0; j < nr; j++)
			good &= mail_strings_ok(&m[j]);
		name = xstrfmt("%s: every string is valid UTF-8",
			       files[i].file);
		ok(good, name);
		free(name);
		mails_free(m, nr);
	}
}

static void test_all_fixtures(void)
{
	check_files(shared_fixtures_dir(), all_fixtures,
		    ARRAY_SIZE(all_fixtures));
}

/* every file cut short every 997 bytes: no crash, no invalid string */
static void check_truncated(const char *dir, const struct fixture_file *files,
			    size_t nr_files)
{
	size_t i, j, cut;

	for (i = 0; i < nr_files; i++) {
		struct strbuf raw = STRBUF_INIT;
		struct mail *m;
		size_t nr, parsed = 0;
		int good = 1;
		char *name;

		m = load_from(dir, files[i].file, &nr, &raw);
		mails_free(m, nr);
		for (cut = 0; cut < raw.len; cut += 997) {
			/* a private copy, so reading past @cut is caught */
			char *copy = xmalloc(cut ? cut : 1);

			memcpy(copy, raw.buf, cut);
			if (!mbox_parse(copy, cut, &m, &nr)) {
				parsed++;
				for (j = 0; j < nr; j++)
					good &= mail_strings_ok(&m[j]);
				mails_free(m, nr);
			}
			free(copy);
		}
		name = xstrfmt("%s: %zu truncated copies parse", files[i].file,
			       parsed);
		ok(good && (raw.len < 997 || parsed), name);
		free(name);
		strbuf_release(&raw);
	}
}

static void test_truncated(void)
{
	check_truncated(shared_fixtures_dir(), all_fixtures,
			ARRAY_SIZE(all_fixtures));
}

static void test_mboxrd(void)
{
	struct mail *m;
	size_t nr;

	m = load("git+git/t5100-sample.mboxrd", &nr, NULL);
	if (nr != 2)
		return;
	is_str(m[0].body.buf,
	       "From the beginning, mbox should have been mboxrd\n"
	       ">From escaped\n"
	       "From not mangled but this line should have been escaped\n",
	       "mboxrd: >From and >>From lose one '>', a bare From stays");
	is_str(m[1].body.buf,
	       " >From unchanged\n"
	       " From also unchanged\n"
	       "no trailing space, no escaping necessary and '>' was intended:\n"
	       ">From\n",
	       "mboxrd: ' >From' and a final '>From' without space stay");
	is_str(m[1].subject, "[PATCH 2/2] another with fake From lines",
	       "mboxrd: second subject");
	is_int(m[1].date, 1149839056, "mboxrd: date -0700 in UTC");
	mails_free(m, nr);
}

static void test_rfc2047_samples(void)
{
	static const char *const subjects[] = {
		"If you can read this you understand the example.",
		"Time for ISO 10646?",
		"Re: RFC-HDR care and feeding",
		"Test of new header generator",
		"(a)", "(a b)", "(ab)", "(ab)", "(ab)", "(a b)", "(a b)",
	};
	struct mail *m;
	size_t nr, i;

	m = load("git+git/t5100-rfc2047-samples.mbox", &nr, NULL);
	if (nr != 11)
		return;
	for (i = 0; i < nr; i++) {
		char *name = xstrfmt("rfc2047 sample %zu subject", i + 1);

		is_str(m[i].subject, subjects[i], name);
		free(name);
	}
	is_str(m[0].from_name, "Keith Moore", "rfc2047: US-ASCII Q name");
	is_str(m[0].from_email, "moore@cs.utk.edu", "rfc2047: email");
	is_str(m[0].to, "Keld Jørn Simonsen <keld@dkuug.dk>",
	       "rfc2047: ISO8859-1 Q in To");
	is_str(m[0].cc, "André Pirard <PIRARD@vm1.ulg.ac.be>",
	       "rfc2047: word then plain text in Cc");
	is_str(m[1].from_name, "Olle Järnefors", "rfc2047: Olle");
	is_str(m[2].from_name, "Patrik Fältström", "rfc2047: Patrik");
	is_str(m[3].from_name, "Nathaniel Borenstein (םולש ןב ילטפנ)",
	       "rfc2047: ISO8859-8 b-encoded comment, as git mailinfo");
	is_str(m[3].from_email, "nsb@thumper.bellcore.com",
	       "rfc2047: email before a folded comment");
	is_str(m[3].to,
	       "Greg Vaudreuil <gvaudre@NRI.Reston.VA.US>, Ned Freed <ned@innosoft.com>, Keith Moore <moore@cs.utk.edu>",
	       "rfc2047: folded To unfolded");
	mails_free(m, nr);
}

static void test_git_sample(void)
{
	struct mail *m;
	size_t nr;

	m = load("git+git/t5100-sample.mbox", &nr, NULL);
	if (nr != 18)
		return;
	is_str(m[0].from_email, "a.u.thor@example.com",
	       "sample: folded From with comments");
	is_str(m[3].from_name, "YOSHIFUJI Hideaki / 吉藤英明",
	       "sample: ISO-2022-JP name");
	is_int(m[3].date, 1121951436, "sample: date with (EDT) comment");
	is_str(m[4].from_name, "David Kågedal", "sample: ISO8859-1 name");
	ok(contains(m[4].body.buf, "from importing a big CVS repository."),
	   "sample: QUOTED-PRINTABLE in upper case");
	is_str(m[11].subject,
	       "[Navy-patches] [PATCH] Изменён список пакетов необходимых для сборки",
	       "sample: UTF-8 B subject");
	is_str(m[12].from_name, "A U Thor", "sample: 'a@b (Name)' form");
	is_str(m[12].from_email, "a.u.thor@example.com",
	       "sample: 'a@b (Name)' email");
	ok(contains(m[8].body.buf,
		    "-      GIT_DIFF_OPTS=-c git-diff-index -p $(cat .git/HEAD)\n"),
	   "sample: QP =3D in a diff line");
	mails_free(m, nr);
}

static void test_invalid_utf8_header(void)
{
	struct mail *m;
	size_t nr;

	m = load("getpatchwork+patchwork/mail-0015-with-invalid-utf8-headers.mbox",
		 &nr, NULL);
	if (nr != 1)
		return;
	is_str(m[0].from_name, "Rafał Miłecki", "0015: utf-8 B name");
	ok(contains(m[0].cc,
		    "Rafa\xef\xbf\xbd\xef\xbf\xbd Mi\xef\xbf\xbd\xef\xbf\xbd" "ecki <zajec5@gmail.com>"),
	   "0015: bytes that are not UTF-8 become U+FFFD");
	ok(str_ok(m[0].cc), "0015: cc is valid UTF-8");
	ok(contains(m[0].cc, "linux-kernel@vger.kernel.org (open list)"),
	   "0015: folded cc kept whole");
	is_str(m[0].message_id,
	       "1464811283-10381-1-git-send-email-zajec5@gmail.com",
	       "0015: message id");
	is_int(m[0].date, 1464811254, "0015: date");
	ok(!m[0].problem, "0015: no problem");
	mails_free(m, nr);
}

static void test_fuzz(void)
{
	struct mail *m;
	size_t nr;

	m = load("getpatchwork+patchwork/fuzz-dateheader.mbox", &nr, NULL);
	if (nr == 1) {
		ok(m[0].problem != NULL, "fuzz-dateheader: problem recorded");
		ok(contains(m[0].problem, "cannot parse date"),
		   "fuzz-dateheader: bad date noted");
		ok(contains(m[0].problem, "bad message-id"),
		   "fuzz-dateheader: NUL bytes in message-id noted");
		is_int(m[0].date, 0, "fuzz-dateheader: date 0");
		ok(!m[0].message_id, "fuzz-dateheader: no message id");
		ok(contains(m[0].problem, "multipart"),
		   "fuzz-dateheader: broken multipart noted");
		ok(contains(m[0].body.buf, "diff --w."),
		   "fuzz-dateheader: the text is kept");
		ok(mail_header(&m[0], "Congth") != NULL,
		   "fuzz-dateheader: garbage field names are fields");
	}
	mails_free(m, nr);

	m = load("getpatchwork+patchwork/fuzz-refshdr.mbox", &nr, NULL);
	if (nr == 1) {
		ok(m[0].problem != NULL, "fuzz-refshdr: problem recorded");
		ok(contains(m[0].problem, "references"),
		   "fuzz-refshdr: binary references noted");
		is_str(m[0].in_reply_to,
		       "1473632524-8585-1-git-send-email-stephenfinucane@gmail.com",
		       "fuzz-refshdr: in-reply-to");
		is_int(m[0].date, 1473632524, "fuzz-refshdr: 'Date:,' parses");
		is_str(m[0].subject, "[PATCH 2/2] test: Cwn",
		       "fuzz-refshdr: subject");
		ok(contains(m[0].body.buf, "+++ d\n@@ -0,0 +1,8 @@\n"),
		   "fuzz-refshdr: body kept");
	}
	mails_free(m, nr);
}

static void test_hid_lenovo(void)
{
	struct mail *m;
	size_t nr;

	m = load(LEDS "hid-lenovo-mute-led-v3-0-7.mboxrd", &nr, NULL);
	if (nr != 14)
		return;
	is_str(m[0].message_id, "20210221112005.102116-1-hdegoede@redhat.com",
	       "hid: cover message id");
	is_str(m[0].from_name, "Hans de Goede", "hid: vger padded From:");
	is_str(m[1].subject,
	       "[PATCH v3 1/7] HID: lenovo: Use brightness_set_blocking callback for setting LEDs brightness",
	       "hid: folded subject unfolded");
	ok(!mail_header(&m[2], "Content-Type") &&
	   contains(m[2].body.buf, "Fixes: bc04b37ea0ec (\"HID: lenovo"),
	   "hid: 8bit patch without Content-Type");
	is_str(m[8].from_name, "Marek Behún", "hid: utf-8 B From name");
	is_int(m[8].date, 1613906971, "hid: date +0100");
	is_str(m[8].body.buf, "Reviewed-by: Marek Behún <kabel@kernel.org>\n",
	       "hid: quoted-printable utf-8 body");
	is_str(m[8].in_reply_to, "20210221112005.102116-6-hdegoede@redhat.com",
	       "hid: in-reply-to");
	is_int(m[8].nr_references, 2, "hid: two folded references");
	if (m[8].nr_references == 2)
		is_str(m[8].references[1],
		       "20210221112005.102116-6-hdegoede@redhat.com",
		       "hid: second reference");
	ok(contains(m[11].body.buf, "> Reviewed-by: Marek Behún <kabel@kernel.org>"),
	   "hid: multipart/signed, iso-8859-1 QP part");
	ok(contains(m[11].body.buf, "\nAcked-by: Pavel Machek <pavel@ucw.cz>\n"),
	   "hid: signed part text");
	ok(!contains(m[11].body.buf, "PGP SIGNATURE"),
	   "hid: the signature part is left out");
	ok(contains(m[11].cc, "Marek Behún <kabel@kernel.org>"),
	   "hid: iso-8859-1 Q word in Cc");
	mails_free(m, nr);
}

static void test_privacy_led(void)
{
	struct mail *m;
	size_t nr;

	m = load(LEDS "leds-privacy-led-devicetree-v5-0-4.mboxrd", &nr, NULL);
	if (nr != 20)
		return;
	is_str(m[7].message_id,
	       "jsLJqyPfjA2iFNHMvAxgz-zO1WecVgleSahWgW_B5BshbYat4X1UqUuKpexfxlRxnD3oWlAnHqeLGpne8JebFV-ICVxvr5g-5nI8P2Q6dY8=@vinarskis.com",
	       "privacy: 100+ character message id");
	ok(contains(m[10].body.buf, "\nFrom IRC conversations, the issue"),
	   "privacy: >From un-escaped inside a QP body");
	ok(contains(m[10].body.buf, "\nTested-by: Steev Klimaszewski <threeway@gmail.com>\n"),
	   "privacy: QP reply text");
	is_str(m[13].from_name, "Rob Herring (Arm)",
	       "privacy: quoted display name with parentheses");
	ok(!mail_header(&m[13], "Content-Transfer-Encoding") &&
	   contains(m[13].body.buf, "Reviewed-by: Rob Herring (Arm) <robh@kernel.org>"),
	   "privacy: body without CTE");
	is_str(m[15].subject,
	       "Re: (subset) [PATCH v5 0/4] leds: privacy-led support for devicetree",
	       "privacy: b4 thanks subject");
	mails_free(m, nr);
}

static void test_auxdisplay(void)
{
	struct mail *m;
	size_t nr;

	m = load(LEDS "auxdisplay-7seg-v2-0-4-qp-base64.mboxrd", &nr, NULL);
	if (nr != 24)
		return;
	ok(contains(m[1].body.buf,
		    "\n+\tstruct seg_led_priv *priv = container_of(work, struct seg_led_priv, work.work);\n"),
	   "auxdisplay: QP soft break and =3D inside a diff line");
	ok(contains(m[1].body.buf, "\n+obj-$(CONFIG_SEG_LED)\t\t+= seg-led.o\n"),
	   "auxdisplay: QP tabs and =3D");
	ok(!contains(m[1].body.buf, "=3D") && !contains(m[1].body.buf, "=\n"),
	   "auxdisplay: no QP left");
	ok(starts_with(m[12].body.buf,
		       "\nOn 28/02/24 13:05, Andy Shevchenko wrote:\n"),
	   "auxdisplay: base64 Outlook reply");
	ok(!strchr(m[12].body.buf, '\r'), "auxdisplay: CRLF became LF");
	ok(contains(m[12].body.buf, "Tue, Feb 27, 2024 at 11:22\xe2\x80\xafPM"),
	   "auxdisplay: UTF-8 inside base64");
	is_str(m[23].from_name, "andy@kernel.org",
	       "auxdisplay: quoted address as display name");
	is_str(m[23].from_email, "andy@kernel.org", "auxdisplay: its email");
	mails_free(m, nr);
}

static void test_abba(void)
{
	struct mail *m;
	size_t nr;

	m = load(LEDS "leds-bug-abba-deadlock-thread-inline-format-patch.mboxrd",
		 &nr, NULL);
	if (nr != 5)
		return;
	is_str(m[0].message_id,
	       "OS7PR01MB13602B128BA1AD3FA38B6D1FFBC69A@OS7PR01MB13602.jpnprd01.prod.outlook.com",
	       "abba: folded Message-ID");
	ok(contains(m[2].body.buf,
		    "\nFrom bf4d66187585a1893d558cb9357f1ef63437b898 Mon Sep 17 00:00:00 2001\nFrom: Andrew Lunn <andrew@lunn.ch>\n"),
	   "abba: embedded format-patch un-escaped");
	ok(mail_text_has_patch(m[2].body.buf, m[2].body.len),
	   "abba: the reply holds a diff");
	ok(!mail_text_has_patch(m[1].body.buf, m[1].body.len),
	   "abba: a plain reply holds none");
	is_str(m[4].in_reply_to,
	       "OS7PR01MB13602E8AA4E5ADE00E7441B6CBC76A@OS7PR01MB13602.jpnprd01.prod.outlook.com",
	       "abba: in-reply-to");
	ok(!m[0].problem, "abba: Content-Type without charset is fine");
	mails_free(m, nr);
}

static void test_attachment(void)
{
	struct mail *m;
	size_t nr;

	m = load(LEDS "patch-as-base64-octet-stream-attachment.eml", &nr, NULL);
	if (nr != 1)
		return;
	is_int(m[0].offset, 0, "eml: a single mail at offset 0");
	ok(starts_with(m[0].body.buf, "Hi\n\nI noticed that"),
	   "eml: text/plain part first");
	ok(contains(m[0].body.buf, "\ndiff --git a/drivers/leds/led-test.c b/drivers/leds/led-test.c\n"),
	   "eml: octet-stream patch attachment appended");
	ok(contains(m[0].body.buf, "Subject: [PATCH] leds: tests: clarify name conflict test It is a good practice\n"),
	   "eml: attachment decoded from base64");
	ok(!m[0].problem, "eml: no problem");
	mails_free(m, nr);
}

static void test_other_fixtures(void)
{
	struct mail *m;
	size_t nr;

	m = load("getpatchwork+patchwork/series-bugs-multiple-references.mbox",
		 &nr, NULL);
	if (nr == 5) {
		is_str(m[2].message_id,
		       "ed9beaec36649c862369a34ea209822c00d86f52.1495511998.git.viresh.kumar@linaro.org",
		       "multiple-references: Message-Id on the next line");
		is_str(m[2].in_reply_to,
		       "b9f67b2be37d5e9740a5e1ed85b0e8b4e5c0eb91.1495511998.git.viresh.kumar@linaro.org",
		       "multiple-references: first of two In-Reply-To");
		is_int(m[2].nr_references, 2,
		       "multiple-references: both References fields");
		is_str(m[0].message_id, "cover.1495511998.git.viresh.kumar@linaro.org",
		       "multiple-references: cover id");
	}
	mails_free(m, nr);

	m = load("getpatchwork+patchwork/series-bugs-multiple-content-types.mbox",
		 &nr, NULL);
	if (nr == 2) {
		is_str(m[1].from_name, "Björn Töpel",
		       "content-types: B-encoded From");
		ok(contains(m[0].body.buf, "Signed-off-by: YueHaibing"),
		   "content-types: 7BIT in upper case");
		ok(!m[0].problem && !m[1].problem, "content-types: no problem");
	}
	mails_free(m, nr);

	m = load("git+git/t5100-quoted-cr.mbox", &nr, NULL);
	if (nr == 2) {
		ok(contains(m[0].body.buf, "distro, \rpytest"),
		   "quoted-cr: a lone CR stays");
		is_str(m[1].body.buf, m[0].body.buf,
		       "quoted-cr: CRLF and LF bodies are equal");
	}
	mails_free(m, nr);

	m = load("linux-mailinglist-archives+stable.vger.kernel.org.1/mm-commits-mm-new-added-samples-damon-mtier.eml",
		 &nr, NULL);
	if (nr == 1) {
		is_str(m[0].message_id, "20260629044921.61DF81F000E9@smtp.kernel.org",
		       "mm-commits: message id");
		is_str(m[0].from_name, "Andrew Morton", "mm-commits: from");
		ok(mail_text_has_patch(m[0].body.buf, m[0].body.len),
		   "mm-commits: a quilt diff counts as a patch");
	}
	mails_free(m, nr);
}

/* ------------------------------------------------- tests/fixtures/mbox */

#define V2 "vmalloc-huge-vmap-v2.mboxrd"
#define V2ID(n) "20260414093012.51234-" #n "-kenji.hara@example.com"

/* threading, QP, base64, multipart/signed, RFC 2047, mboxrd: one thread */
static void test_own_thread(void)
{
	struct mail *m;
	size_t nr;

	m = own(V2, &nr);
	if (nr != 12)
		return;
	is_str(m[0].message_id, V2ID(1), "v2: cover message id");
	is_str(m[0].from_name, "Kenji Hara", "v2: vger padded From:");
	is_str(m[0].cc,
	       "Hugo Brandt <hugo.brandt@example.org>, Jiří Horák <jiri.horak@example.cz>, Lena Vogt <lena.vogt@example.de>, linux-kernel@vger.kernel.org",
	       "v2: folded Cc with a Q word, unfolded");
	is_str(m[3].subject,
	       "[PATCH v2 3/3] mm/vmalloc: map contiguous runs of pages in vmap() with PMD entries",
	       "v2: folded subject unfolded");
	is_str(m[3].in_reply_to, V2ID(1), "v2: patch answers the cover");
	ok(!mail_header(&m[1], "Content-Type") &&
	   contains(m[1].body.buf, "\nNo functional change.\n\nSigned-off-by: Kenji Hara <kenji.hara@example.com>\n"),
	   "v2: 8bit patch without Content-Type");
	ok(contains(m[2].body.buf,
		    "\n+ * that starts at w->pages[w->idx], capped at @max_order; 0 if the first page\n"),
	   "v2: QP soft break inside a diff line");
	ok(contains(m[2].body.buf,
		    "\n+\tunsigned int order, i, left = w->nr_pages - w->idx;\n"),
	   "v2: QP =3D and tabs in a diff line");
	ok(contains(m[3].body.buf,
		    "\n+\t\tif (IS_ENABLED(CONFIG_HAVE_ARCH_HUGE_VMAP) && next - addr == PMD_SIZE &&\n"),
	   "v2: QP soft break and =3D=3D in one line");
	ok(!contains(m[2].body.buf, "=3D") && !contains(m[2].body.buf, "=\n") &&
	   !contains(m[3].body.buf, "=20"), "v2: no QP left");

	/* a QP reply from a B-encoded sender, folded References */
	is_str(m[4].from_name, "Jiří Horák", "v2: UTF-8 B From name");
	is_int(m[4].date, 1776176227, "v2: date +0200");
	is_str(m[4].in_reply_to, V2ID(2), "v2: in-reply-to");
	is_int(m[4].nr_references, 2, "v2: two folded references");
	if (m[4].nr_references == 2)
		is_str(m[4].references[1], V2ID(2), "v2: second reference");
	ok(ends_with(m[4].body.buf, "\n\nReviewed-by: Jiří Horák <jiri.horak@example.cz>\n"),
	   "v2: quoted-printable UTF-8 body");

	/* PGP multipart/signed, ISO-8859-1 QP text */
	ok(contains(m[5].body.buf,
		    "\n> Suggested-by: Mateus Ørsted <mateus.orsted@example.net>\n"),
	   "v2: multipart/signed, ISO-8859-1 QP part");
	ok(contains(m[5].body.buf, "\n\nAcked-by: Pieter van Wyk <pieter@example.net>\n\n-- \nPieter\n"),
	   "v2: signed part text, =20 signature line");
	ok(!contains(m[5].body.buf, "PGP SIGNATURE") &&
	   !contains(m[5].body.buf, "k3qmt2mHTJ1bP9eW"),
	   "v2: the signature part is left out");
	ok(contains(m[5].cc, "Søren Mølgaard <soren@example.dk>"),
	   "v2: ISO-8859-1 Q word in Cc");

	/* Outlook: folded Message-ID, base64, CRLF, address as name */
	is_str(m[7].message_id,
	       "SEZPR06MB69873D2A41C8E5F0B7A2C19DE4512@SEZPR06MB6987.apcprd06.prod.outlook.com",
	       "v2: Message-ID folded onto the next line");
	ok(starts_with(m[7].body.buf, "Hi Kenji, Lena,\n\nDoes this also cover"),
	   "v2: base64 Outlook reply");
	ok(!strchr(m[7].body.buf, '\r'), "v2: CRLF became LF");
	ok(contains(m[7].body.buf, "\nWei (张伟)\n"), "v2: UTF-8 inside base64");
	is_str(m[7].from_name, "wei.zhang@example.com",
	       "v2: quoted address as display name");
	is_str(m[7].from_email, "wei.zhang@example.com", "v2: its email");
	is_int(m[7].nr_references, 1, "v2: Outlook names the parent only");

	/* a reply to a reply to a reply: mboxrd >From inside QP */
	is_str(m[9].in_reply_to, "3b1f7e20-5c8a-4d2e-9a41-7f0e2c6d8b15@example.com",
	       "v2: reply to a reply");
	ok(contains(m[9].body.buf, "\n\nFrom my runs on two machines over the night"),
	   "v2: >From un-escaped inside a QP body");
	ok(starts_with(m[9].body.buf, "On Wed, Apr 15, 2026 at 1:15\xe2\x80\xafPM Kenji"),
	   "v2: U+202F from QP");

	is_str(m[10].message_id,
	       "Qm7vR2xKp9LwT4zNc8YbE1sHd6JfA3uGo5iVe0nMq2Wk7tXy9ZrB4lCj8DhF6gSa1PoU3vIe5mKw_x0Tq8nYdRf2LcVb6HjGx9uE=@example.org",
	       "v2: 113-character message id");
	is_str(m[10].from_name, "Rui Tavares (Corvid Labs)",
	       "v2: quoted display name with parentheses");
	ok(!mail_header(&m[10], "Content-Transfer-Encoding") &&
	   ends_with(m[10].body.buf, "\nReviewed-by: Rui Tavares (Corvid Labs) <rui.tavares@example.org>\n"),
	   "v2: body without CTE");
	is_str(m[11].subject,
	       "Re: (subset) [PATCH v2 0/3] mm/vmalloc: use huge mappings in vmap() for contiguous pages",
	       "v2: b4 thanks subject");
	ok(!m[0].problem && !m[3].problem && !m[5].problem && !m[7].problem &&
	   !m[9].problem && !m[10].problem, "v2: no problem");
	mails_free(m, nr);

	m = own("vmalloc-huge-vmap-v1.mbox", &nr);
	if (nr == 3) {
		ok(contains(m[1].body.buf,
			    "\n\nFrom the callers' point of view nothing changes yet; the next patch\n"),
		   "v1: a body line 'From the...' is no separator");
		is_str(m[2].message_id, "20260330151502.7712-3-kenji.hara@example.com",
		       "v1: format-patch mboxo, third mail");
	}
	mails_free(m, nr);
}

static void test_own_headers(void)
{
	struct mail *m;
	size_t nr;

	m = own("rfc2047-folded-headers.mbox", &nr);
	if (nr != 9)
		return;
	is_str(m[0].from_name, "René Lefèvre", "rfc2047: ISO-8859-1 Q name");
	is_str(m[0].from_email, "rene.lefevre@example.fr", "rfc2047: email");
	is_str(m[0].to, "Françoise Dupré <francoise.dupre@example.fr>",
	       "rfc2047: lower-case iso-8859-1 q in To");
	is_str(m[0].cc, "Jörg Schaefer <joerg.schaefer@example.de>",
	       "rfc2047: word then plain text in Cc");
	is_str(m[0].subject, "[RFC] mm: per-node vmap area caches",
	       "rfc2047: UTF-8 Q subject");
	is_str(m[1].from_name, "Paweł Kozłowski", "rfc2047: ISO-8859-2 Q name");
	is_str(m[1].subject, "Re: [RFC] mm: кэши областей vmap по узлам",
	       "rfc2047: two folded B words that split a letter");
	is_str(m[2].from_name, "山田 太郎", "rfc2047: ISO-2022-JP B name");
	is_int(m[2].date, 1776471330, "rfc2047: date with (JST) comment");
	is_str(m[3].from_name, "Ariadne Nikolaou", "rfc2047: 'a@b (Name)' form");
	is_str(m[3].from_email, "ariadne.nikolaou@example.gr",
	       "rfc2047: 'a@b (Name)' email");
	is_int(m[3].date, 1776496811, "rfc2047: date with (EDT) comment");
	is_str(m[4].from_name, "Tomasz Wrona (recenzent pamięci)",
	       "rfc2047: From folded before the address, a Q word in its comment");
	is_str(m[4].from_email, "tomasz.wrona@example.pl",
	       "rfc2047: its email");
	is_str(m[5].from_name, "Amélie Rousseau", "rfc2047: language tag");
	is_str(m[5].subject, "Re: [RFC] mm: caches par nœud",
	       "rfc2047: a letter split over two folded Q words");
	is_str(m[6].cc,
	       "Miros\xef\xbf\xbd" "aw Nowak <miroslaw.nowak@example.pl>, linux-mm@kvack.org (open list:MEMORY MANAGEMENT), linux-kernel@vger.kernel.org (open list)",
	       "rfc2047: bytes that are not UTF-8 become U+FFFD; folded Cc kept whole");
	ok(!m[6].problem, "rfc2047: no problem");
	is_str(m[7].to,
	       "Hugo Brandt <hugo.brandt@example.org>, Kenji Hara <kenji.hara@example.com>, René Lefèvre <rene.lefevre@example.fr>",
	       "rfc2047: folded To unfolded");
	is_str(m[7].subject,
	       "Re: [RFC] mm: per-node vmap area caches \xe2\x80\x93 a question",
	       "rfc2047: raw UTF-8 subject");
	ok(contains(m[8].body.buf,
		    "\nSigned-off-by: René Lefèvre <rene.lefevre@example.fr>\n"),
	   "rfc2047: QUOTED-PRINTABLE ISO-8859-1 body");
	ok(contains(m[8].body.buf,
		    "\n+\tbool isolated = folio_isolate_lru(folio);\n"),
	   "rfc2047: QP =3D in a diff line");
	mails_free(m, nr);

	m = own("leds-exa3310-V3-folded-ids.mbox", &nr);
	if (nr == 4) {
		is_str(m[2].message_id,
		       "7c1d9e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d.1776676262.git.ines.carvalho@example.pt",
		       "leds: Message-Id on the next line");
		is_str(m[2].in_reply_to,
		       "3f8e2a1b9c0d4e5f6a7b8c9d0e1f2a3b4c5d6e7f.1776676262.git.ines.carvalho@example.pt",
		       "leds: first of two In-Reply-To");
		is_int(m[2].nr_references, 2, "leds: both References fields");
		is_str(m[0].message_id, "cover.1776676262.git.ines.carvalho@example.pt",
		       "leds: cover id");
	}
	mails_free(m, nr);

	m = own("hid-exampad-single-patch-flowed.mboxrd", &nr);
	if (nr == 2) {
		is_str(m[1].from_name, "Mikael Östberg", "hid: B-encoded From");
		ok(contains(m[0].body.buf, "Signed-off-by: Tomas Ferrante"),
		   "hid: 7BIT in upper case");
		ok(!m[0].problem && !m[1].problem, "hid: no problem");
	}
	mails_free(m, nr);

	m = own("mm-commits-added-vmap-contig-runs.eml", &nr);
	if (nr == 1) {
		is_str(m[0].message_id, "20260417235231.7C3A2C4CEF1@smtp.example.org",
		       "mm-commits: message id");
		is_str(m[0].from_name, "Hugo Brandt", "mm-commits: from");
		ok(mail_text_has_patch(m[0].body.buf, m[0].body.len),
		   "mm-commits: a quilt diff counts as a patch");
		ok(contains(m[0].body.buf, "\nCc: Jiří Horák <jiri.horak@example.cz>\n"),
		   "mm-commits: raw UTF-8 without MIME headers");
	}
	mails_free(m, nr);
}

static void test_own_mboxrd(void)
{
	struct mail *m;
	size_t nr;

	m = own("mboxrd-from-escapes.mboxrd", &nr);
	if (nr != 2)
		return;
	is_str(m[0].body.buf,
	       "From now on vmap() may map with PMD entries.\n"
	       ">From here on the text quotes a mail.\n"
	       "From this line on, the writer did not escape anything.\n",
	       "mboxrd: >From and >>From lose one '>', a bare From stays");
	is_str(m[1].body.buf,
	       " >From with a blank in front stays as it is\n"
	       " From stays too\n"
	       "a last line that is only \">From\", without a blank after it:\n"
	       ">From\n",
	       "mboxrd: ' >From' and a final '>From' without a blank stay");
	is_str(m[1].subject, "[PATCH 2/2] docs/mm: lines that look like From lines",
	       "mboxrd: second subject");
	is_int(m[1].date, 1776679201, "mboxrd: date +0200 in UTC");
	mails_free(m, nr);

	m = own("selftests-lone-cr-crlf-base64.mbox", &nr);
	if (nr == 2) {
		ok(contains(m[0].body.buf,
			    "huge pages\rreserved 128 of 20000 huge pages\rreserved 192"),
		   "crlf: a lone CR stays");
		is_str(m[1].body.buf, m[0].body.buf,
		       "crlf: CRLF and LF bodies are equal");
	}
	mails_free(m, nr);
}

static void test_own_broken(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail *m;
	size_t nr;

	m = own("broken-mangled-headers.mbox", &nr);
	if (nr == 1) {
		ok(contains(m[0].problem, "cannot parse date"),
		   "mangled: 8-bit bytes in the date noted");
		is_int(m[0].date, 0, "mangled: date 0");
		ok(contains(m[0].problem, "bad message-id"),
		   "mangled: NUL bytes in message-id noted");
		ok(!m[0].message_id, "mangled: no message id");
		ok(contains(m[0].problem, "no boundary delimiter in multipart body"),
		   "mangled: broken multipart noted");
		ok(contains(m[0].body.buf, "\ndiff --git a/mm/page_alloc.c b/mm/page_alloc.c\n"),
		   "mangled: the text is kept");
		ok(mail_header(&m[0], "Conten-Lenth") != NULL &&
		   mail_header(&m[0], "ime-Versio") != NULL,
		   "mangled: garbage field names are fields");
		is_str(m[0].subject,
		       "mm/page_alloc: fix an overflow in the waterm\xef\xbf\xbdrk boost",
		       "mangled: an 8-bit byte in the subject is U+FFFD");
	}
	mails_free(m, nr);

	m = own("broken-references-patch-2-of-2.mbox", &nr);
	if (nr == 1) {
		ok(contains(m[0].problem, "bad message-id in references"),
		   "refs: binary references noted");
		ok(contains(m[0].problem, "bad message-id;"),
		   "refs: 'Message-ID:>' noted");
		is_str(m[0].in_reply_to,
		       "20260419164509.3312-1-hugo.brandt@example.org",
		       "refs: in-reply-to");
		is_int(m[0].date, 1776617110, "refs: 'Date:,' parses");
		is_str(m[0].subject, "[PATCH 2/2] mm/vmstat: count isolated pageblocks",
		       "refs: subject");
		ok(contains(m[0].body.buf, "+++ b/mm/vmstat.c\n@@ -1,2 +1,4 @@\n"),
		   "refs: body kept");
	}
	mails_free(m, nr);

	m = own("bad-encodings.mbox", &nr);
	if (nr == 8) {
		ok(contains(m[0].problem, "unknown transfer encoding 'x-uuencode'") &&
		   contains(m[0].problem, "unknown charset 'x-mac-klingon' read as utf-8"),
		   "bad: unknown transfer encoding and charset noted");
		is_str(m[1].body.buf, "Base64 with bytes that are not base64 in it.\n",
		       "bad: base64 decoded around bytes that are not base64");
		is_str(m[1].problem, "bad bytes in base64 data skipped",
		       "bad: and noted");
		is_str(m[2].body.buf, "Labelled UTF-8, written in Latin-1: caf\xef\xbf\xbd.\n",
		       "bad: Latin-1 labelled UTF-8 becomes U+FFFD");
		is_str(m[3].body.buf,
		       "Broken escapes: =ZZ, =4, and a lone = at the end of a lineand = in the middle.\n",
		       "bad: broken QP escapes kept as they are");
		is_str(m[4].problem, "malformed content-type",
		       "bad: Content-Type without a subtype");
		is_str(m[5].problem, "multipart without boundary",
		       "bad: multipart without a boundary");
		ok(contains(m[5].body.buf, "A multipart without a boundary"),
		   "bad: its text is kept");
		is_str(m[6].problem, "multipart body not terminated",
		       "bad: multipart never closed");
		is_str(m[6].body.buf, "The first part, and the closing delimiter never comes.\n",
		       "bad: its part is read");
		is_str(m[7].subject, "Re: =?utf-8?X?abc?= per-node caches",
		       "bad: a word with an unknown encoding stays as it is");
	}
	mails_free(m, nr);

	m = own("no-from-header.eml", &nr);
	if (nr == 1) {
		is_int(m[0].offset, 0, "no From line: one mail at offset 0");
		is_str(m[0].problem, "no from header", "no From: header noted");
		ok(!*m[0].from_name && !*m[0].from_email, "no From: no author");
		ok(mail_text_has_patch(m[0].body.buf, m[0].body.len),
		   "no From: the patch is there");
	}
	mails_free(m, nr);

	if (strbuf_read_file(&sb, OWN_FIXTURES "/bare-diff-not-mail.patch", 0) < 0)
		ok(0, "bare diff readable");
	else
		ok(mbox_parse(sb.buf, sb.len, &m, &nr) == -1 && !m && !nr,
		   "a bare diff is neither an mbox nor a mail");
	strbuf_release(&sb);

	m = own("zswap-batch-v4-truncated.mbox", &nr);
	if (nr == 3)
		ok(ends_with(m[2].body.buf, "\n+\t/* pages in the swap ca") &&
		   !m[2].problem, "truncated: the last mail ends where the file does");
	mails_free(m, nr);
}

static void test_own_inline_patches(void)
{
	struct mail *m;
	size_t nr;

	m = own("memmap-soft-lockup-bug-thread.mboxrd", &nr);
	if (nr == 5) {
		is_str(m[0].message_id,
		       "TYCPR01MB11437F2E08A5D3C9B61E4A7D2C8F55@TYCPR01MB11437.jpnprd01.prod.outlook.com",
		       "bug: folded Message-ID");
		ok(contains(m[1].body.buf,
			    "\nFrom 2b9e4f7a1c3d5e6f8a0b2c4d6e8f0a1b3c5d7e9f Mon Sep 17 00:00:00 2001\nFrom: Hugo Brandt <hugo.brandt@example.org>\n"),
		   "bug: embedded format-patch un-escaped");
		ok(mail_text_has_patch(m[1].body.buf, m[1].body.len),
		   "bug: the reply holds a diff");
		ok(!mail_text_has_patch(m[0].body.buf, m[0].body.len),
		   "bug: the report holds none");
		is_str(m[3].in_reply_to,
		       "20260425093207.4e1d8b2c6a0f3e57d19b8c42@example.org",
		       "bug: in-reply-to");
		is_int(m[3].nr_references, 1, "bug: References name the parent only");
		ok(!m[0].problem && !m[3].problem,
		   "bug: Content-Type without charset is fine");
	}
	mails_free(m, nr);

	m = own("page-owner-patch-as-attachment.eml", &nr);
	if (nr == 1) {
		is_int(m[0].offset, 0, "eml: a single mail at offset 0");
		ok(starts_with(m[0].body.buf, "Hi,\n\nThe patch is attached"),
		   "eml: text/plain part first");
		ok(contains(m[0].body.buf,
			    "\ndiff --git a/mm/page_owner.c b/mm/page_owner.c\n"),
		   "eml: octet-stream patch attachment appended");
		ok(contains(m[0].body.buf,
			    "\nSubject: [PATCH] mm/page_owner: print migratetype names instead of\n numbers\n"),
		   "eml: attachment decoded from base64");
		ok(!m[0].problem, "eml: no problem");
	}
	mails_free(m, nr);
}

static void test_own_files(void)
{
	check_files(OWN_FIXTURES, own_fixtures, ARRAY_SIZE(own_fixtures));
}

static void test_own_truncated(void)
{
	check_truncated(OWN_FIXTURES, own_fixtures, ARRAY_SIZE(own_fixtures));
}

static void test_decode_header(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "=?utf-8?q?caf=C3=A9_au_lait?=", "café au lait" },
		{ "=?UTF-8?B?w6k=?= =?UTF-8?B?w6k=?=", "éé" },
		/* a character split over two words */
		{ "=?UTF-8?B?ww==?= =?UTF-8?B?qQ==?=", "é" },
		{ "=?UTF-8?Q?=C3?=\n =?UTF-8?Q?=A9?=", "é" },
		{ "a =?iso-8859-1?q?=E9?= b", "a é b" },
		{ "=?iso-8859-1?q?a?=  b", "a  b" },
		{ "=?us-ascii?Q?x?==?us-ascii?Q?y?=", "xy" },
		{ "=?utf-8*en?Q?lang?=", "lang" },
		{ "=?no-such-charset?Q?abc?=", "abc" },
		{ "=?utf-8?X?abc?=", "=?utf-8?X?abc?=" },
		{ "=?utf-8?Q?unterminated", "=?utf-8?Q?unterminated" },
		{ "=?utf-8?Q?a=0Ab=00c?=", "a b\xef\xbf\xbd" "c" },
		{ "raw \xc3\xa9 \xff", "raw é \xef\xbf\xbd" },
		{ "=?UTF-8?B?!!!?=", "" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = mail_decode_header(cases[i].in);
		char *name = xstrfmt("decode '%s'", cases[i].out);

		is_str(got, cases[i].out, name);
		free(name);
		free(got);
	}
}

static void test_addresses(void)
{
	static const struct {
		const char *in, *name, *email;
	} cases[] = {
		{ "Hans de Goede <hdegoede@redhat.com>", "Hans de Goede",
		  "hdegoede@redhat.com" },
		{ "\"Rob Herring (Arm)\" <robh@kernel.org>", "Rob Herring (Arm)",
		  "robh@kernel.org" },
		{ "\"Doe, John \\\"JD\\\"\" <jd@x.org>", "Doe, John \"JD\"",
		  "jd@x.org" },
		{ "<a@b.c>", "", "a@b.c" },
		{ "a@b.c", "", "a@b.c" },
		{ "a@b.c (Some One)", "Some One", "a@b.c" },
		{ "bogosity", "bogosity", "" },
		{ "", "", "" },
		{ "Marek =?UTF-8?B?QmVow7pu?= <kabel@kernel.org>", "Marek Behún",
		  "kabel@kernel.org" },
		{ "One <one@x.org>, Two <two@x.org>", "One", "one@x.org" },
		{ "Broken <no-end@x.org", "Broken", "no-end@x.org" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *name, *email, *t;

		mail_parse_address(cases[i].in, &name, &email);
		t = xstrfmt("address '%s' name", cases[i].in);
		is_str(name, cases[i].name, t);
		free(t);
		t = xstrfmt("address '%s' email", cases[i].in);
		is_str(email, cases[i].email, t);
		free(t);
		free(name);
		free(email);
	}
}

static void test_dates(void)
{
	static const struct {
		const char *in;
		int ret;
		long long t;
	} cases[] = {
		{ "Sun, 21 Feb 2021 12:29:31 +0100", 0, 1613906971 },
		{ "Sun, 21 Feb 2021 12:29:31 +0100 (CET)", 0, 1613906971 },
		{ "21 Feb 2021 11:29:31 GMT", 0, 1613906971 },
		{ "Sun, 21 Feb 2021 06:29:31 EST", 0, 1613906971 },
		{ "Sun,  21 feb 2021 11:29 +0000", 0, 1613906940 },
		{ "Fri, 1 Jan 99 00:00:00 +0000", 0, 915148800 },
		{ "Thu, 1 Jan 1970 00:00:00 +0000", 0, 0 },
		{ "Wed, 29 Feb 2024 23:59:60 -0000", 0, 1709251200 },
		{ "yesterday", -1, 0 },
		{ "Wed, 4 Jun 2014 17:50:\x80\xff", -1, 0 },
		{ "Sun, 19 Apr 2026 11:0\x80\xff\xfe", -1, 0 },
		{ "Sun, 19 Apr 2026 11:07+0200", 0, 1776589620 },
		{ "Sun, 19 Apr 2026 11:07(CEST)", 0, 1776596820 },
		{ "Wed, 32 Jun 2014 17:50:00 +0000", -1, 0 },
		{ "", -1, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		time_t t = 42;
		int ret = mail_parse_date(cases[i].in, &t);
		char *name = xstrfmt("date '%s'", cases[i].in);

		ok(ret == cases[i].ret && (long long)t == cases[i].t, name);
		if (ret != cases[i].ret || (long long)t != cases[i].t)
			printf("#   got %d %lld\n", ret, (long long)t);
		free(name);
	}
}

static void test_charsets(void)
{
	struct strbuf sb = STRBUF_INIT;

	is_int(mail_charset_to_utf8(&sb, "iso-8859-1", "caf\xe9", 4), 0,
	       "latin-1 is known");
	is_str(sb.buf, "café", "latin-1 to UTF-8");
	strbuf_reset(&sb);
	mail_charset_to_utf8(&sb, "\"UTF-8\"", "ok \xe2\x82\xac bad \xe2\x82 \xc0\xaf", 16);
	is_str(sb.buf, "ok € bad \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd",
	       "invalid UTF-8 replaced byte by byte");
	strbuf_reset(&sb);
	is_int(mail_charset_to_utf8(&sb, "x-klingon", "abc", 3), -1,
	       "unknown charset reported");
	is_str(sb.buf, "abc", "unknown charset read as UTF-8");
	strbuf_reset(&sb);
	is_int(mail_charset_to_utf8(&sb, "latin1//IGNORE", "\xe9", 1), -1,
	       "iconv suffixes in a charset name refused");
	is_str(sb.buf, "\xef\xbf\xbd", "and the text read as UTF-8");
	strbuf_reset(&sb);
	mail_charset_to_utf8(&sb, "us-ascii", "a\0b", 3);
	is_str(sb.buf, "a\xef\xbf\xbd" "b", "NUL becomes U+FFFD");
	strbuf_reset(&sb);
	mail_charset_to_utf8(&sb, "utf-8", "\xed\xa0\x80\xf4\x90\x80\x80", 7);
	ok(!strcmp(sb.buf, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
	   "surrogates and > U+10FFFF rejected");
	strbuf_reset(&sb);
	mail_charset_to_utf8(&sb, "ISO-2022-JP", "\x1b$B5HF#\x1b(B", 10);
	is_str(sb.buf, "吉藤", "stateful ISO-2022-JP");
	strbuf_reset(&sb);
	mail_charset_to_utf8(&sb, "windows-1252", "\x93quoted\x94 \x81", 10);
	is_str(sb.buf, "“quoted” \xef\xbf\xbd",
	       "windows-1252, with an unmapped byte");
	strbuf_release(&sb);
}

static int parse_one(const char *text, struct mail **m, size_t *nr)
{
	return mbox_parse(text, strlen(text), m, nr);
}

static void test_synthetic(void)
{
	static const char nul_mail[] =
		"subject: first\nSUBJECT: second\ngarbage line\n"
		"Message-ID: \n <id@x>\nX-Nul: a\0b\n\nbody\0tail\n";
	struct strbuf sb = STRBUF_INIT;
	struct mail *m;
	size_t nr, i;
	int ret;

	ret = mbox_parse("", 0, &m, &nr);
	ok(ret == -1 && !m && !nr, "empty input is an error");
	ret = mbox_parse(" \n\n\t", 4, &m, &nr);
	ok(ret == -1 && !m, "blank input is an error");
	ret = mbox_parse("\x89PNG\r\n\x1a\n\0\0", 10, &m, &nr);
	ok(ret == -1 && !m, "binary input is an error");

	/* CRLF mbox, two mails, headers only on the second */
	ret = parse_one("From a@b Mon Jan  1 00:00:00 2024\r\n"
			"Subject: one\r\n"
			"Message-ID: <1@x>\r\n\r\n"
			"body one\r\n\r\n"
			"From a@b Mon Jan  1 00:00:01 2024\r\n"
			"Subject: two\r\n", &m, &nr);
	ok(!ret && nr == 2, "CRLF mbox splits");
	if (!ret && nr == 2) {
		is_str(m[0].subject, "one", "CRLF subject");
		is_str(m[0].message_id, "1@x", "CRLF message id");
		is_str(m[0].body.buf, "body one\n", "CRLF body");
		is_str(m[1].body.buf, "", "mail without body");
		is_int(m[1].offset, 82, "offset of the second mail");
	}
	mails_free(m, nr);

	/* nested multipart: mixed > alternative > (plain, html), a patch */
	ret = parse_one("Subject: nest\nFrom: a@b.c\n"
			"Content-Type: multipart/mixed; boundary=\"outer\"\n\n"
			"preamble\n--outer\n"
			"Content-Type: multipart/alternative; boundary=inner\n\n"
			"--inner\nContent-Type: text/html\n\n<p>html</p>\n"
			"--inner\nContent-Type: text/plain; charset=iso-8859-1\n"
			"Content-Transfer-Encoding: quoted-printable\n\n"
			"plain caf=E9 =\nsoft\n--inner--\n"
			"--outer\nContent-Type: text/x-diff; name=a.diff\n"
			"Content-Disposition: attachment\n"
			"Content-Transfer-Encoding: BASE64\n\n"
			"LS0tIGEveAorKysgYi94CkBAIC0xICsxIEBACi14Cit5Cg==\n"
			"--outer\nContent-Type: image/png\n"
			"Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"
			"--outer\nContent-Type: text/plain\n"
			"Content-Disposition: attachment; filename=config\n\n"
			"CONFIG_X=y\n"
			"--outer--\nepilogue\n", &m, &nr);
	ok(!ret && nr == 1, "nested multipart parses");
	if (!ret && nr == 1) {
		is_str(m[0].body.buf,
		       "plain café soft\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n",
		       "plain alternative, then the diff attachment; html, image and config left out");
		is_str(m[0].problem, NULL, "nested multipart: no problem");
	}
	mails_free(m, nr);

	/* multipart nested deeper than MIME_MAX_DEPTH */
	strbuf_addstr(&sb, "Subject: deep\n");
	for (i = 0; i < 12; i++)
		strbuf_addf(&sb, "Content-Type: multipart/mixed; boundary=b%zu\n\n--b%zu\n",
			    i, i);
	strbuf_addstr(&sb, "Content-Type: text/plain\n\ndeep text\n");
	ret = parse_one(sb.buf, &m, &nr);
	ok(!ret && nr == 1 && contains(m[0].problem, "nested deeper than 8"),
	   "MIME depth limit");
	mails_free(m, nr);
	strbuf_reset(&sb);

	/* more header fields than MAIL_MAX_HEADERS */
	for (i = 0; i < MAIL_MAX_HEADERS + 10; i++)
		strbuf_addf(&sb, "X-H%zu: v\n", i);
	strbuf_addstr(&sb, "Subject: late\n\nbody\n");
	ret = parse_one(sb.buf, &m, &nr);
	ok(!ret && nr == 1 && m[0].nr_headers == MAIL_MAX_HEADERS &&
	   contains(m[0].problem, "header fields"), "header count limit");
	if (!ret && nr == 1)
		is_str(m[0].body.buf, "body\n", "body after too many fields");
	mails_free(m, nr);
	strbuf_reset(&sb);

	/* NUL bytes, garbage lines, duplicate and case-folded fields */
	strbuf_add(&sb, nul_mail, sizeof(nul_mail) - 1);
	ret = mbox_parse(sb.buf, sb.len, &m, &nr);
	ok(!ret && nr == 1, "mail with NUL bytes parses");
	if (!ret && nr == 1) {
		is_str(m[0].subject, "first", "first of duplicate subjects");
		is_str(m[0].message_id, "id@x", "folded message id");
		is_str(mail_header(&m[0], "x-nul"), "a\xef\xbf\xbd" "b",
		       "NUL in a field");
		is_str(m[0].body.buf, "body\xef\xbf\xbdtail\n", "NUL in the body");
		ok(contains(m[0].problem, "1 malformed header line"),
		   "garbage line noted");
	}
	mails_free(m, nr);
	strbuf_release(&sb);

	/* unknown transfer encoding, charset; body without blank line */
	ret = parse_one("Subject: x\nContent-Type: text/plain; charset=x-none\n"
			"Content-Transfer-Encoding: x-uuencode\n\nbody\n",
			&m, &nr);
	ok(!ret && nr == 1 && contains(m[0].problem, "unknown transfer encoding 'x-uuencode'") &&
	   contains(m[0].problem, "unknown charset 'x-none'") &&
	   !strcmp(m[0].body.buf, "body\n"), "unknown encoding and charset");
	mails_free(m, nr);

	ret = parse_one("From nobody Mon Sep 17 00:00:00 2001\nFrom: x\n", &m, &nr);
	ok(!ret && nr == 1 && !strcmp(m[0].from_name, "x"),
	   "mbox of one mail without body");
	mails_free(m, nr);
}

/*
 * Bidirectional controls in headers become U+FFFD (mbox.c,
 * is_bidi_control()): raw, in encoded-words, in names; their neighbours
 * in the code charts stay; a body keeps them.
 */
#define FFFD "\xef\xbf\xbd"
static void test_bidi_headers(void)
{
	static const struct {
		const char *in, *out, *what;
	} cases[] = {
		{ "a\xe2\x80\xaa" "b\xe2\x80\xab" "c\xe2\x80\xac" "d",
		  "a" FFFD "b" FFFD "c" FFFD "d", "U+202A-202C" },
		{ "mm: fix \xe2\x80\xad" "x\xe2\x80\xae" "cod.exe",
		  "mm: fix " FFFD "x" FFFD "cod.exe", "U+202D, U+202E" },
		{ "\xe2\x81\xa6" "a\xe2\x81\xa9\xe2\x81\xa7" "b\xe2\x81\xa8",
		  FFFD "a" FFFD FFFD "b" FFFD, "U+2066-2069" },
		{ "l\xe2\x80\x8er\xe2\x80\x8f" "a\xd8\x9c" "z",
		  "l" FFFD "r" FFFD "a" FFFD "z", "U+200E, U+200F, U+061C" },
		{ "=?UTF-8?B?eOKBp3nigak=?=", "x" FFFD "y" FFFD,
		  "U+2067, U+2069 in a B encoded-word" },
		{ "=?utf-8?q?mm:_=E2=80=AEtxt?=", "mm: " FFFD "txt",
		  "U+202E in a Q encoded-word" },
		/* C1 controls: U+0085 (NEL), U+009B (CSI), U+009F */
		{ "a\xc2\x85" "b\xc2\x9b" "2Jc\xc2\x9f",
		  "a" FFFD "b" FFFD "2Jc" FFFD, "C1 controls U+0085, 009B, 009F" },
		{ "=?UTF-8?Q?x=C2=9B31my?=", "x" FFFD "31my",
		  "U+009B in a Q encoded-word" },
		/* neighbours of C1: U+007E, U+00A0, U+00A1 */
		{ "~\xc2\xa0\xc2\xa1", "~\xc2\xa0\xc2\xa1", "U+00A0, 00A1 kept" },
		/* neighbours: U+200D, 2010, 2029, 202F, 2065, 206A, 061B */
		{ "\xe2\x80\x8d\xe2\x80\x90\xe2\x80\xa9\xe2\x80\xaf"
		  "\xe2\x81\xa5\xe2\x81\xaa\xd8\x9b",
		  "\xe2\x80\x8d\xe2\x80\x90\xe2\x80\xa9\xe2\x80\xaf"
		  "\xe2\x81\xa5\xe2\x81\xaa\xd8\x9b", "their neighbours kept" },
	};
	static const char mail[] =
		"From: =?UTF-8?Q?Mallory_=E2=80=8F?= <m@x.org>\n"
		"To: \"Bob \xe2\x80\xae\" <b@x.org>\n"
		"Subject: [PATCH] mm: \xe2\x80\xae" "fix\xe2\x80\xac\n"
		"\n"
		"body \xe2\x80\xae" "kept\n";
	struct mail *m;
	size_t nr, i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = mail_decode_header(cases[i].in);

		is_str(got, cases[i].out, cases[i].what);
		free(got);
	}
	ok(!mbox_parse(mail, strlen(mail), &m, &nr) && nr == 1,
	   "a mail with bidi controls parses");
	if (nr != 1)
		return;
	is_str(m[0].subject, "[PATCH] mm: " FFFD "fix" FFFD,
	       "bidi controls of the subject replaced");
	is_str(m[0].from_name, "Mallory " FFFD,
	       "bidi control of the sender's name replaced");
	ok(!strstr(m[0].to, "\xe2\x80\xae") && strstr(m[0].to, FFFD),
	   "bidi control of To replaced");
	is_str(m[0].body.buf, "body \xe2\x80\xae" "kept\n",
	       "the body keeps its bidi control");
	mails_free(m, nr);
}

/*
 * mail_clean_text(), the same cleaning for text from bodies: as one line
 * (tab and line ends become spaces) and as lines (tab and '\n' kept,
 * '\r' dropped); ESC, BEL, DEL, NUL, C1 and bidi controls, and bytes
 * that are not UTF-8 become one U+FFFD each, the count returned.
 */
static void test_clean_text(void)
{
	static const char in[] = "a\x1b[2J\tb\r\nc\x07\x7f\0"
				 "d\xc2\x9b\x9b\xe2\x80\xae\xc3\xa9";
	struct strbuf sb = STRBUF_INIT;

	is_int((int)mail_clean_text(&sb, in, sizeof(in) - 1, 0), 7,
	       "clean one line: 7 replaced");
	is_str(sb.buf, "a" FFFD "[2J b  c" FFFD FFFD FFFD "d" FFFD FFFD FFFD
	       "\xc3\xa9", "clean one line: text");
	strbuf_reset(&sb);
	is_int((int)mail_clean_text(&sb, in, sizeof(in) - 1, 1), 7,
	       "clean lines: 7 replaced");
	is_str(sb.buf, "a" FFFD "[2J\tb\nc" FFFD FFFD FFFD "d" FFFD FFFD FFFD
	       "\xc3\xa9", "clean lines: text, tab and newline kept");
	strbuf_reset(&sb);
	is_int((int)mail_clean_text(&sb, "plain\n", 6, 1), 0,
	       "clean lines: plain text unchanged, none replaced");
	is_str(sb.buf, "plain\n", "clean lines: plain text");
	strbuf_release(&sb);
}

int main(void)
{
	static const struct shared_case shared[] = {
		{ "real mails: counts, valid UTF-8", test_all_fixtures },
		{ "real mails: git's mboxrd sample", test_mboxrd },
		{ "real mails: RFC 2047 samples", test_rfc2047_samples },
		{ "real mails: git's t5100 sample", test_git_sample },
		{ "real mails: invalid UTF-8 header", test_invalid_utf8_header },
		{ "real mails: fuzzed headers", test_fuzz },
		{ "real mails: hid-lenovo thread", test_hid_lenovo },
		{ "real mails: privacy-led thread", test_privacy_led },
		{ "real mails: auxdisplay QP and base64", test_auxdisplay },
		{ "real mails: AB-BA bug thread", test_abba },
		{ "real mails: patch as attachment", test_attachment },
		{ "real mails: patchwork, quoted CR, mm-commits", test_other_fixtures },
		{ "real mails: truncated copies", test_truncated },
	};

	test_decode_header();
	test_bidi_headers();
	test_clean_text();
	test_addresses();
	test_dates();
	test_charsets();
	test_synthetic();
	test_own_files();
	test_own_thread();
	test_own_headers();
	test_own_mboxrd();
	test_own_broken();
	test_own_inline_patches();
	test_own_truncated();
	run_shared_cases(shared, ARRAY_SIZE(shared));
	return done_testing();
}
