// SPDX-License-Identifier: GPL-2.0
/*
 * test-series.c - unit tests of daemon/series.c: patch subjects, series
 * assembly from real lore threads and b4/patchwork fixtures, commit message
 * and diff extraction, review trailers from replies, and a synthetic
 * `git format-patch --cover-letter` mbox.
 *
 * Every case runs on the mails of tests/fixtures/mbox, written for these
 * tests (tests/fixtures/README.md); the real mails of $MMCI_FIXTURES
 * (default ../shared/fixtures/mbox) are an extra whose cases skip when the
 * directory is absent (fixtures.h). The expected trailers were read off the
 * replies in each fixture by hand.
 */
#include <fcntl.h>
#include <unistd.h>

#include "mbox.h"
#include "series.h"
#include "util.h"
#include "tap.h"
#include "fixtures.h"

#define LEDS "linux-mailinglist-archives+linux-leds.vger.kernel.org.0/"

static int load_from(const char *dir, const char *rel, struct mail **mails,
		     size_t *nr, struct series *s)
{
	char *path = xstrfmt("%s/%s", dir, rel);
	int ret = series_from_file(path, mails, nr, s);

	free(path);
	return ret;
}

/* the series of a file of the real-mail corpus */
static int load(const char *rel, struct mail **mails, size_t *nr,
		struct series *s)
{
	return load_from(shared_fixtures_dir(), rel, mails, nr, s);
}

/* the series of a file of our own, tests/fixtures/mbox */
static int own(const char *rel, struct mail **mails, size_t *nr,
	       struct series *s)
{
	return load_from(OWN_FIXTURES, rel, mails, nr, s);
}

/* the mails of @path, or NULL */
static struct mail *parse_file(const char *path, size_t *nr)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail *m = NULL;

	*nr = 0;
	if (strbuf_read_file(&sb, path, 0) >= 0 &&
	    mbox_parse(sb.buf, sb.len, &m, nr))
		m = NULL;
	strbuf_release(&sb);
	return m;
}

static int contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

static int has_problem(const struct series *s, const char *needle)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++)
		if (strstr(s->problems[i], needle))
			return 1;
	return 0;
}

/* the trailers of @p joined with '|', for one exact comparison */
static char *trailers(const struct series_patch *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < p->nr_trailers; i++) {
		if (i)
			strbuf_addch(&sb, '|');
		strbuf_addstr(&sb, p->trailers[i]);
	}
	return strbuf_detach(&sb, NULL);
}

static void check_trailers(const struct series *s, int index, const char *want,
			   const char *name)
{
	char *got = index <= (int)s->nr ? trailers(&s->patches[index - 1]) :
					  xstrdup("(no such patch)");

	is_str(got, want, name);
	free(got);
}

/* a diff as git apply wants it: starts right, no signature, ends "\n" */
static int diff_is_clean(const char *d)
{
	size_t n = strlen(d);

	return starts_with(d, "diff --git ") && n && d[n - 1] == '\n' &&
	       !contains(d, "\n-- \n2.") && !contains(d, "\n\n\n");
}

static void test_subjects(void)
{
	static const struct {
		const char *subject;
		int is_patch, is_reply, rfc, resend, version, index, total;
		const char *prefix, *title;
	} cases[] = {
		{ "[PATCH] mm: fix", 1, 0, 0, 0, 0, 0, 0, "", "mm: fix" },
		{ "[PATCH v3 2/7] HID: lenovo: x", 1, 0, 0, 0, 3, 2, 7, "",
		  "HID: lenovo: x" },
		{ "[PATCH V2 0/4] PM / OPP: Minor cleanups", 1, 0, 0, 0, 2, 0, 4,
		  "", "PM / OPP: Minor cleanups" },
		{ "[RFC PATCH v2 1/3] mm: y", 1, 0, 1, 0, 2, 1, 3, "", "mm: y" },
		{ "[PATCH net-next v3 0/4] net: dsa: z", 1, 0, 0, 0, 3, 0, 4,
		  "net-next", "net: dsa: z" },
		{ "[PATCH -next] bpf: w", 1, 0, 0, 0, 0, 0, 0, "-next", "bpf: w" },
		{ "[PATCH 1/4] net: dsa", 1, 0, 0, 0, 0, 1, 4, "", "net: dsa" },
		{ "Re: [PATCH v3 5/7] HID: v", 0, 1, 0, 0, 3, 5, 7, "", "HID: v" },
		{ "Re: (subset) [PATCH v5 0/4] leds: u", 0, 1, 0, 0, 5, 0, 4, "",
		  "leds: u" },
		{ "[PATCH v5 RESEND 2/4] t", 1, 0, 0, 1, 5, 2, 4, "", "t" },
		{ "[PATCH mm-unstable] mm: s", 1, 0, 0, 0, 0, 0, 0, "mm-unstable",
		  "mm: s" },
		{ "[PATCH 01/12] r", 1, 0, 0, 0, 0, 1, 12, "", "r" },
		{ "[PATCH 3/3 v2] Xyzzy", 1, 0, 0, 0, 2, 3, 3, "", "Xyzzy" },
		{ "[PATCHv4 2/2] q", 1, 0, 0, 0, 4, 2, 2, "", "q" },
		{ "[RFC] mm: idea", 1, 0, 1, 0, 0, 0, 0, "", "mm: idea" },
		{ "[Navy-patches] [PATCH] p", 1, 0, 0, 0, 0, 0, 0, "", "p" },
		{ "re: [PATCH] another patch", 0, 1, 0, 0, 0, 0, 0, "",
		  "another patch" },
		{ "Fwd: [PATCH 6.1 1/2] o", 0, 1, 0, 0, 0, 1, 2, "6.1", "o" },
		{ "AW: Re[2]: [PATCH] n", 0, 1, 0, 0, 0, 0, 0, "", "n" },
		{ "[BUG] AB-BA deadlock", 0, 0, 0, 0, 0, 0, 0, "", "AB-BA deadlock" },
		{ "Revert \"mm: m\"", 0, 0, 0, 0, 0, 0, 0, "", "Revert \"mm: m\"" },
		{ "[PATCH v2 2/2] Re: l", 1, 0, 0, 0, 2, 2, 2, "", "Re: l" },
		{ "  [PATCH,RFC,v7,3/9] k  ", 1, 0, 1, 0, 7, 3, 9, "", "k" },
		{ "[PATCH v2 4/3", 0, 0, 0, 0, 0, 0, 0, "", "[PATCH v2 4/3" },
		{ "", 0, 0, 0, 0, 0, 0, 0, "", "" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct patch_subject ps;
		int ret = parse_patch_subject(cases[i].subject, &ps);
		int good = ret == cases[i].is_patch &&
			   ps.is_patch == cases[i].is_patch &&
			   ps.is_reply == cases[i].is_reply &&
			   ps.is_rfc == cases[i].rfc &&
			   ps.is_resend == cases[i].resend &&
			   ps.version == cases[i].version &&
			   ps.index == cases[i].index &&
			   ps.total == cases[i].total &&
			   !strcmp(ps.prefix, cases[i].prefix) &&
			   !strcmp(ps.title, cases[i].title);
		char *name = xstrfmt("subject '%s'", cases[i].subject);

		if (!ok(good, name))
			printf("#   got patch %d reply %d rfc %d resend %d v%d %d/%d prefix '%s' title '%s'\n",
			       ps.is_patch, ps.is_reply, ps.is_rfc,
			       ps.is_resend, ps.version, ps.index, ps.total,
			       ps.prefix, ps.title);
		free(name);
		patch_subject_release(&ps);
	}
}

static void test_hid_lenovo(void)
{
	static const char *const titles[] = {
		"HID: lenovo: Use brightness_set_blocking callback for setting LEDs brightness",
		"HID: lenovo: Fix lenovo_led_set_tp10ubkbd() error handling",
		"HID: lenovo: Check hid_get_drvdata() returns non NULL in lenovo_event()",
		"HID: lenovo: Remove lenovo_led_brightness_get()",
		"HID: lenovo: Set LEDs max_brightness value",
		"HID: lenovo: Map mic-mute button to KEY_F20 instead of KEY_MICMUTE",
		"HID: lenovo: Set default_triggers for the mute and micmute LEDs",
	};
	struct mail *m;
	struct series s;
	size_t nr, i;
	int good = 1;

	if (load(LEDS "hid-lenovo-mute-led-v3-0-7.mboxrd", &m, &nr, &s)) {
		ok(0, "hid: series assembles");
		return;
	}
	is_int(nr, 14, "hid: 14 mails");
	is_int(s.version, 3, "hid: version 3");
	is_int(s.total, 7, "hid: total 7");
	is_int(s.nr, 7, "hid: 7 patches");
	ok(s.cover == &m[0], "hid: cover letter is the first mail");
	is_str(s.title, "HID: lenovo: Mute LED handling fixes and improvements",
	       "hid: series title");
	is_int(s.nr_missing, 0, "hid: nothing missing");
	is_int(s.nr_problems, 0, "hid: no problem");
	ok(!s.base_commit, "hid: no base-commit");
	for (i = 0; i < s.nr; i++) {
		struct series_patch *p = &s.patches[i];

		good &= p->index == (int)i + 1 && p->version == 3 &&
			!strcmp(p->title, titles[i]) &&
			!strcmp(p->author_name, "Hans de Goede") &&
			!strcmp(p->author_email, "hdegoede@redhat.com") &&
			diff_is_clean(p->diff) && p->mail == &m[i + 1] &&
			contains(p->message, "\nSigned-off-by: Hans de Goede <hdegoede@redhat.com>\n");
	}
	ok(good, "hid: patches in order, with title, author, message, diff");
	if (s.nr == 7) {
		check_trailers(&s, 1, "", "hid: 1/7 has no reply trailer");
		check_trailers(&s, 2, "Reviewed-by: Marek Behún <kabel@kernel.org>",
			       "hid: 2/7 Reviewed-by from a QP reply with B-encoded From");
		check_trailers(&s, 3, "", "hid: 3/7 has none");
		check_trailers(&s, 4, "Acked-by: Pavel Machek <pavel@ucw.cz>",
			       "hid: 4/7 Acked-by from multipart/signed, quoted Reviewed-by ignored");
		check_trailers(&s, 5,
			       "Reviewed-by: Marek Behún <kabel@kernel.org>|Acked-by: Pavel Machek <pavel@ucw.cz>",
			       "hid: 5/7 two replies, in mail order");
		check_trailers(&s, 6, "Reviewed-by: Marek Behún <kabel@kernel.org>",
			       "hid: 6/7");
		check_trailers(&s, 7, "Acked-by: Pavel Machek <pavel@ucw.cz>",
			       "hid: 7/7 (Reviewed-by already in the message)");
		ok(contains(s.patches[6].message,
			    "\nReviewed-by: Marek Behún <kabel@kernel.org>\n"),
		   "hid: 7/7 message keeps its own trailers");
		is_str(s.patches[1].message,
		       "HID: lenovo: Fix lenovo_led_set_tp10ubkbd() error handling\n\n"
		       "Fix the following issues with lenovo_led_set_tp10ubkbd() error handling:\n\n"
		       "1. On success hid_hw_raw_request() returns the number of bytes sent.\n"
		       "   So we should check for (ret != 3) rather then for (ret != 0).\n\n"
		       "2. Actually propagate errors to the caller.\n\n"
		       "3. Since the LEDs are part of an USB keyboard-dock the mute LEDs can go\n"
		       "   away at any time. Don't log an error when ret == -ENODEV and set the\n"
		       "   LED_HW_PLUGGABLE flag to avoid errors getting logged when the USB gets\n"
		       "   disconnected.\n\n"
		       "Fixes: bc04b37ea0ec (\"HID: lenovo: Add ThinkPad 10 Ultrabook Keyboard support\")\n"
		       "Signed-off-by: Hans de Goede <hdegoede@redhat.com>\n",
		       "hid: 2/7 commit message (no Content-Type, 8bit)");
		is_int(s.patches[0].date, 1613906399, "hid: patch date");
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_privacy_led(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (load(LEDS "leds-privacy-led-devicetree-v5-0-4.mboxrd", &m, &nr, &s)) {
		ok(0, "privacy: series assembles");
		return;
	}
	is_int(s.version, 5, "privacy: version 5");
	is_int(s.nr, 4, "privacy: 4 patches");
	ok(s.cover == &m[0], "privacy: cover");
	is_str(s.base_commit, "3db46a82d467bd23d9ebc473d872a865785299d8",
	       "privacy: base-commit from the cover letter");
	is_int(s.nr_problems, 0, "privacy: no problem");
	is_int(s.nr_cover_trailers, 0, "privacy: b4 thanks mails add nothing");
	if (s.nr == 4) {
		check_trailers(&s, 1, "Reviewed-by: Rob Herring (Arm) <robh@kernel.org>",
			       "privacy: 1/4 Reviewed-by (no CTE)");
		check_trailers(&s, 2, "Reviewed-by: Rob Herring (Arm) <robh@kernel.org>",
			       "privacy: 2/4 Reviewed-by");
		check_trailers(&s, 3, "", "privacy: 3/4 discussion only");
		check_trailers(&s, 4,
			       "Reviewed-by: Konrad Dybcio <konrad.dybcio@oss.qualcomm.com>|Tested-by: Steev Klimaszewski <threeway@gmail.com>",
			       "privacy: 4/4 Reviewed-by, and Tested-by from a reply to a reply");
		is_str(s.patches[2].author_name, "Hans de Goede",
		       "privacy: in-body From overrides the sender");
		is_str(s.patches[2].author_email, "hansg@kernel.org",
		       "privacy: in-body From email");
		ok(starts_with(s.patches[2].message,
			       "leds: led-class: Add devicetree support to led_get()\n\nAdd 'name' argument"),
		   "privacy: in-body From line not in the message");
		is_str(s.patches[3].title,
		       "arm64: dts: qcom: sc8280xp-x13s: enable camera privacy indicator",
		       "privacy: folded subject");
		ok(diff_is_clean(s.patches[0].diff) &&
		   diff_is_clean(s.patches[3].diff), "privacy: diffs clean");
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_auxdisplay(void)
{
	struct mail *m;
	struct series s;
	size_t nr, i;
	int good = 1;

	if (load(LEDS "auxdisplay-7seg-v2-0-4-qp-base64.mboxrd", &m, &nr, &s)) {
		ok(0, "auxdisplay: series assembles");
		return;
	}
	is_int(s.version, 2, "auxdisplay: version 2");
	is_int(s.nr, 4, "auxdisplay: 4 patches");
	ok(s.cover == &m[0], "auxdisplay: cover");
	for (i = 0; i < s.nr; i++)
		good &= diff_is_clean(s.patches[i].diff) &&
			!contains(s.patches[i].diff, "=3D") &&
			!contains(s.patches[i].diff, "=\n") &&
			!s.patches[i].nr_trailers;
	ok(good, "auxdisplay: QP-decoded diffs, no trailers given");
	if (s.nr == 4) {
		ok(contains(s.patches[0].diff,
			    "\n+\tstruct seg_led_priv *priv = container_of(work, struct seg_led_priv, work.work);\n"),
		   "auxdisplay: a diff line with '=' and a soft break");
		ok(contains(s.patches[0].diff,
			    "\n+obj-$(CONFIG_SEG_LED)\t\t+= seg-led.o\n"),
		   "auxdisplay: a Makefile line with '+='");
		ok(contains(s.patches[0].message,
			    "\nSigned-off-by: Chris Packham <chris.packham@alliedtelesis.co.nz>\n") &&
		   !contains(s.patches[0].message, "Notes:"),
		   "auxdisplay: message stops at '---', notes left out");
		ok(starts_with(s.patches[0].diff,
			       "diff --git a/drivers/auxdisplay/Kconfig b/drivers/auxdisplay/Kconfig\n"),
		   "auxdisplay: diff starts at diff --git");
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_patchwork(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (!load("getpatchwork+patchwork/series-base-different-versions.mbox",
		  &m, &nr, &s)) {
		is_int(s.version, 3, "base-different-versions: version from the cover");
		is_int(s.nr, 4, "base-different-versions: 4 patches");
		ok(s.cover == &m[0], "base-different-versions: cover");
		is_str(s.title, "net: dsa: Multi-CPU ground work (v3)",
		       "base-different-versions: title");
		ok(s.nr == 4 && s.patches[0].version == 3 &&
		   s.patches[3].version == 3,
		   "base-different-versions: patches take the cover's version");
		if (s.nr == 4)
			is_str(s.patches[0].title,
			       "net: dsa: Remove master_netdev and use dst->cpu_dp->netdev",
			       "base-different-versions: folded title");
		is_int(s.nr_problems, 0, "base-different-versions: no problem");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "base-different-versions: series assembles");
	}

	if (!load("getpatchwork+patchwork/series-bugs-multiple-references.mbox",
		  &m, &nr, &s)) {
		is_int(s.version, 2, "multiple-references: upper-case V2");
		is_int(s.nr, 4, "multiple-references: 4 patches");
		ok(s.cover == &m[0], "multiple-references: cover");
		ok(s.nr == 4 && s.patches[1].mail == &m[2] &&
		   s.patches[3].mail == &m[4], "multiple-references: in order");
		if (s.nr == 4)
			is_str(s.patches[3].title,
			       "PM / OPP: Don't create debugfs \"supply-0\" directory unnecessarily",
			       "multiple-references: title");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "multiple-references: series assembles");
	}

	if (!load("getpatchwork+patchwork/series-bugs-multiple-content-types.mbox",
		  &m, &nr, &s)) {
		is_int(s.nr, 1, "content-types: one [PATCH -next]");
		ok(!s.cover, "content-types: no cover");
		check_trailers(&s, 1, "Acked-by: Björn Töpel <bjorn.topel@intel.com>",
			       "content-types: Acked-by in a format=flowed reply");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "content-types: series assembles");
	}

	if (!load("getpatchwork+patchwork/fuzz-refshdr.mbox", &m, &nr, &s)) {
		ok(s.nr == 1 && s.nr_missing == 1 && s.missing[0] == 1,
		   "fuzz-refshdr: 2/2 alone, 1/2 missing");
		ok(has_problem(&s, "1 of 2 patches missing"),
		   "fuzz-refshdr: problem recorded");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "fuzz-refshdr: assembles");
	}
	ok(load("getpatchwork+patchwork/fuzz-dateheader.mbox", &m, &nr, &s) == -1 &&
	   !m && !s.nr, "fuzz-dateheader: no series");
	series_release(&s);
}

static void test_abba(void)
{
	struct mail *m;
	struct series s;
	size_t nr, i;
	int patches = 0;
	char *path;

	ok(load(LEDS "leds-bug-abba-deadlock-thread-inline-format-patch.mboxrd",
		&m, &nr, &s) == -1 && !m && !s.nr && !s.patches,
	   "abba: a bug thread is not a series");
	series_release(&s);

	/* the reply holds a whole format-patch, but its subject is no patch */
	path = xstrfmt("%s/%s", shared_fixtures_dir(), LEDS
		       "leds-bug-abba-deadlock-thread-inline-format-patch.mboxrd");
	m = parse_file(path, &nr);
	free(path);
	if (!m) {
		ok(0, "abba: fixture parses");
		return;
	}
	for (i = 0; i < nr; i++) {
		struct patch_subject ps;

		patches += parse_patch_subject(m[i].subject, &ps);
		patch_subject_release(&ps);
	}
	is_int(patches, 0, "abba: no subject is a patch");
	ok(nr == 5 && mail_text_has_patch(m[2].body.buf, m[2].body.len),
	   "abba: yet mail 3 carries a diff");
	ok(series_from_mails(m, nr, &s) == -1 && !s.nr,
	   "abba: series_from_mails() refuses it too");
	series_release(&s);
	mails_free(m, nr);
}

static void test_attachment(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (load(LEDS "patch-as-base64-octet-stream-attachment.eml", &m, &nr, &s)) {
		ok(0, "attachment: series assembles");
		return;
	}
	is_int(s.nr, 1, "attachment: one patch");
	is_str(s.title, "leds: tests: clarify name conflict test",
	       "attachment: series title from the mail subject");
	if (s.nr == 1) {
		struct series_patch *p = &s.patches[0];

		ok(starts_with(p->diff,
			       "diff --git a/drivers/leds/led-test.c b/drivers/leds/led-test.c\n"
			       "index ddf9aa967..36aef3e13 100644\n"),
		   "attachment: the diff comes from the base64 attachment");
		ok(diff_is_clean(p->diff) &&
		   ends_with(p->diff, " MODULE_AUTHOR(\"Lee Jones <lee@kernel.org>\");\n"),
		   "attachment: signature of the attachment left out");
		is_str(p->author_email, "lorenzoegidioms@gmail.com",
		       "attachment: author");
		ok(starts_with(p->title, "leds: tests: clarify name conflict test It is a good practice"),
		   "attachment: title from the attached format-patch, as git am");
		ok(ends_with(p->message, "\n\nSigned-off-by: Lorenzo Egidio <lorenzoegidioms@gmail.com>\n") &&
		   !contains(p->message, "Best wishes"),
		   "attachment: message from the attachment, not the mail text");
		is_int(p->date, 1781025031, "attachment: date of the attached patch");
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_b4(void)
{
	struct mail *m;
	struct series s;
	size_t nr, i;
	int good = 1;

	if (!load("mricon+b4/trailers-thread-with-cover-followup.mbox", &m, &nr, &s)) {
		is_int(s.version, 1, "b4 cover-followup: version 1");
		is_int(s.nr, 4, "b4 cover-followup: 4 patches");
		is_str(s.base_commit, "f435c12df7c0ecf20ab8937859e63cddffacabb4",
		       "b4 cover-followup: base-commit");
		is_int(s.nr_cover_trailers, 1, "b4 cover-followup: one cover trailer");
		if (s.nr_cover_trailers == 1)
			is_str(s.cover_trailers[0],
			       "Reviewed-by: Cover Upper <cover.upper@example.org>",
			       "b4 cover-followup: the cover trailer");
		for (i = 0; i + 1 < s.nr; i++) {
			char *t = trailers(&s.patches[i]);

			good &= !strcmp(t, "Reviewed-by: Cover Upper <cover.upper@example.org>");
			free(t);
		}
		ok(good && s.nr == 4, "b4 cover-followup: cover trailer on patches 1-3");
		check_trailers(&s, 4,
			       "Tested-by: Follow Upper <follow.upper@example.org>|Link: https://example.org|Closes: https://example.org/bug/1234|Reviewed-by: Cover Upper <cover.upper@example.org>",
			       "b4 cover-followup: 4/4 own trailers, then the cover's");
		if (s.nr == 4) {
			char *full = series_patch_full_message(&s.patches[3]);

			ok(ends_with(full,
				     "\n\nSigned-off-by: Konstantin Ryabitsev <konstantin@linuxfoundation.org>\n"
				     "Tested-by: Follow Upper <follow.upper@example.org>\n"
				     "Link: https://example.org\n"
				     "Closes: https://example.org/bug/1234\n"
				     "Reviewed-by: Cover Upper <cover.upper@example.org>\n"),
			   "b4 cover-followup: full message appends to the trailer block");
			free(full);
		}
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "b4 cover-followup: series assembles");
	}

	if (!load("mricon+b4/trailers-followup-partial-reroll.mbox", &m, &nr, &s)) {
		is_int(s.version, 3, "b4 partial reroll: newest version wins");
		is_int(s.nr, 2, "b4 partial reroll: 2 patches");
		ok(s.nr == 2 && s.patches[0].version == 2 &&
		   s.patches[1].version == 3 && s.patches[1].mail == &m[5],
		   "b4 partial reroll: 1/2 from v2, 2/2 from v3");
		ok(has_problem(&s, "patch 1/2 taken from v2") &&
		   has_problem(&s, "cover letter taken from v2"),
		   "b4 partial reroll: noted");
		ok(s.cover == &m[0], "b4 partial reroll: v2 cover");
		check_trailers(&s, 1,
			       "Reviewed-by: Coverletter Reviewer1 <followup-reviewer1@example.com>",
			       "b4 partial reroll: cover trailer on 1/2");
		check_trailers(&s, 2,
			       "Reviewed-by: Coverletter Reviewer1 <followup-reviewer1@example.com>",
			       "b4 partial reroll: v2 2/2 review not carried to v3 2/2");
		ok(s.nr == 2 && contains(s.patches[1].diff, "b4/bogus.py"),
		   "b4 partial reroll: v3 diff");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "b4 partial reroll: series assembles");
	}
}

/* ------------------------------------------------- tests/fixtures/mbox */

static void check_truncated(const char *dir, const char *const *files,
			    size_t nr_files);

#define RUI "Reviewed-by: Rui Tavares (Corvid Labs) <rui.tavares@example.org>"
#define JIRI "Jiří Horák <jiri.horak@example.cz>"

static void test_own_thread(void)
{
	static const char *const titles[] = {
		"mm/vmalloc: bundle the state of the vmap() page-table walk",
		"mm/vmalloc: find physically contiguous runs in vmap()",
		"mm/vmalloc: map contiguous runs of pages in vmap() with PMD entries",
	};
	struct mail *m;
	struct series s;
	size_t nr, i;
	int good = 1;

	if (own("vmalloc-huge-vmap-v2.mboxrd", &m, &nr, &s)) {
		ok(0, "v2: series assembles");
		return;
	}
	is_int(nr, 12, "v2: 12 mails");
	is_int(s.version, 2, "v2: version 2");
	is_int(s.total, 3, "v2: total 3");
	is_int(s.nr, 3, "v2: 3 patches");
	ok(s.cover == &m[0], "v2: cover letter is the first mail");
	is_str(s.title, "mm/vmalloc: use huge mappings in vmap() for contiguous pages",
	       "v2: series title");
	is_int(s.nr_missing, 0, "v2: nothing missing");
	is_int(s.nr_problems, 0, "v2: no problem");
	is_str(s.base_commit, "5c1b2f7e9a0d43e8b6f2a17c3d9e4f5a6b7c8d90",
	       "v2: base-commit from the cover letter");
	for (i = 0; i < s.nr; i++) {
		struct series_patch *p = &s.patches[i];

		good &= p->index == (int)i + 1 && p->version == 2 &&
			!strcmp(p->title, titles[i]) &&
			!strcmp(p->author_email, i == 2 ? "lena.vogt@example.de" :
						       "kenji.hara@example.com") &&
			diff_is_clean(p->diff) && p->mail == &m[i + 1] &&
			contains(p->message, "\nSigned-off-by: Kenji Hara <kenji.hara@example.com>\n");
	}
	ok(good, "v2: patches in order, with title, author, message, diff");
	is_int(s.nr_cover_trailers, 1, "v2: one cover trailer, b4's thanks add none");
	if (s.nr != 3)
		goto out;
	check_trailers(&s, 1, "Reviewed-by: " JIRI "|" RUI,
		       "v2: 1/3 Reviewed-by from a QP reply with B-encoded From, then the cover's");
	check_trailers(&s, 2, "Acked-by: Pieter van Wyk <pieter@example.net>|" RUI,
		       "v2: 2/3 Acked-by from multipart/signed, quoted Suggested-by ignored");
	check_trailers(&s, 3, "Tested-by: Wei Zhang <wei.zhang@example.com>|" RUI,
		       "v2: 3/3 Tested-by three replies down; its own Reviewed-by not repeated");
	is_str(s.patches[2].author_name, "Lena Vogt",
	       "v2: in-body From overrides the sender");
	ok(starts_with(s.patches[2].message,
		       "mm/vmalloc: map contiguous runs of pages in vmap() with PMD entries\n\nWith vmap_contig_order() in place"),
	   "v2: folded title; in-body From line not in the message");
	is_str(s.patches[1].message,
	       "mm/vmalloc: find physically contiguous runs in vmap()\n\n"
	       "vmap() cannot use huge mappings unless it knows that the pages it maps\n"
	       "are physically contiguous and suitably aligned. Add vmap_contig_order(),\n"
	       "which returns the order of the aligned run that starts at the current\n"
	       "page.\n\n"
	       "Signed-off-by: Kenji Hara <kenji.hara@example.com>\n",
	       "v2: 2/3 message from QP, stops at '---', notes left out");
	ok(starts_with(s.patches[1].diff, "diff --git a/mm/vmalloc.c b/mm/vmalloc.c\n") &&
	   contains(s.patches[1].diff,
		    "\n+\t\t\tif (page_to_pfn(w->pages[w->idx + i]) != pfn + i)\n") &&
	   !contains(s.patches[1].diff, "=3D") && !contains(s.patches[1].diff, "=\n"),
	   "v2: 2/3 diff decoded from QP");
	is_int(s.patches[0].date, 1776159013, "v2: patch date");
	{
		char *full = series_patch_full_message(&s.patches[2]);

		ok(ends_with(full, "\nReviewed-by: " JIRI "\n"
				   "Tested-by: Wei Zhang <wei.zhang@example.com>\n"
				   RUI "\n"),
		   "v2: full message appends to the trailer block");
		free(full);
	}
out:
	series_release(&s);
	mails_free(m, nr);

	if (own("vmalloc-huge-vmap-v1.mbox", &m, &nr, &s)) {
		ok(0, "v1: series assembles");
		return;
	}
	is_int(s.version, 1, "v1: no version is version 1");
	is_int(s.nr, 2, "v1: 2 patches");
	is_str(s.title, "mm/vmalloc: huge mappings for contiguous pages in vmap()",
	       "v1: its own title");
	ok(s.nr == 2 && contains(s.patches[0].message,
				 "\n\nFrom the callers' point of view nothing changes yet"),
	   "v1: a body line 'From the...' stays in the message");
	series_release(&s);
	mails_free(m, nr);
}

static void test_own_reroll(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (own("memmap-pageblock-v2-v3-reroll.mbox", &m, &nr, &s)) {
		ok(0, "reroll: series assembles");
		return;
	}
	is_int(s.version, 3, "reroll: newest version wins");
	is_int(s.nr, 2, "reroll: 2 patches");
	ok(s.nr == 2 && s.patches[0].version == 2 && s.patches[0].mail == &m[1] &&
	   s.patches[1].version == 3 && s.patches[1].mail == &m[6],
	   "reroll: 1/2 from v2, 2/2 from v3");
	ok(has_problem(&s, "patch 1/2 taken from v2") &&
	   has_problem(&s, "cover letter taken from v2") &&
	   has_problem(&s, "ignored 1 patch mail(s)"),
	   "reroll: noted");
	ok(s.cover == &m[0], "reroll: v2 cover");
	is_str(s.base_commit, "9e6a4d1c2b7f80e3a5d6c4b2f1e0d9c8b7a69584",
	       "reroll: base-commit after b4's '---'");
	is_int(s.nr_cover_trailers, 1, "reroll: one cover trailer");
	check_trailers(&s, 1, "Reviewed-by: Hugo Brandt <hugo.brandt@example.org>",
		       "reroll: cover trailer on 1/2");
	check_trailers(&s, 2,
		       "Reported-by: " JIRI "|Closes: https://lore.kernel.org/linux-mm/20260422071830.GA30114@horak-t14.example.cz/|"
		       "Tested-by: " JIRI "|Reviewed-by: Hugo Brandt <hugo.brandt@example.org>",
		       "reroll: v3 2/2 own trailers, Closes too, then the cover's; v2 2/2's review not carried");
	ok(s.nr == 2 && contains(s.patches[1].diff, "min(ALIGN(block + 1, pageblock_nr_pages),") &&
	   diff_is_clean(s.patches[1].diff) && !contains(s.patches[1].diff, "Best regards"),
	   "reroll: v3 diff, b4's signature left out");
	if (s.nr == 2) {
		char *full = series_patch_full_message(&s.patches[1]);

		ok(ends_with(full,
			     "\n\nSigned-off-by: Ana Petrović <ana.petrovic@example.hr>\n"
			     "Reported-by: " JIRI "\n"
			     "Closes: https://lore.kernel.org/linux-mm/20260422071830.GA30114@horak-t14.example.cz/\n"
			     "Tested-by: " JIRI "\n"
			     "Reviewed-by: Hugo Brandt <hugo.brandt@example.org>\n"),
		   "reroll: full message appends to the trailer block");
		free(full);
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_own_shapes(void)
{
	struct mail *m;
	struct series s;
	size_t nr, i;
	int good = 1;

	if (!own("leds-exa3310-V3-folded-ids.mbox", &m, &nr, &s)) {
		is_int(s.version, 3, "leds: upper-case V3");
		is_int(s.nr, 3, "leds: 3 patches");
		ok(s.cover == &m[0], "leds: cover");
		for (i = 0; i < s.nr; i++)
			good &= s.patches[i].mail == &m[i + 1];
		ok(good && s.nr == 3, "leds: in order, whatever the chained headers say");
		is_str(s.title, "leds: exa3310: blink & brightness fixes", "leds: title");
		if (s.nr == 3)
			is_str(s.patches[1].title,
			       "leds: exa3310: pick a blink rate when the core leaves it to the driver",
			       "leds: folded title");
		is_int(s.nr_problems, 0, "leds: no problem");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "leds: series assembles");
	}

	if (!own("zswap-batch-v4-version-on-cover.mbox", &m, &nr, &s)) {
		is_int(s.version, 4, "zswap: version from the cover");
		is_int(s.nr, 3, "zswap: 3 patches");
		ok(s.cover == &m[0], "zswap: cover");
		is_str(s.title, "mm/zswap: write back in batches (v4)",
		       "zswap: title without the tree prefix");
		ok(s.nr == 3 && s.patches[0].version == 4 &&
		   s.patches[2].version == 4,
		   "zswap: patches take the cover's version");
		if (s.nr == 3)
			is_str(s.patches[2].title,
			       "mm/zswap: make the writeback batch size a module parameter so it can be tuned at run time",
			       "zswap: folded title");
		is_int(s.nr_problems, 0, "zswap: no problem");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "zswap: series assembles");
	}

	if (!own("hid-exampad-single-patch-flowed.mboxrd", &m, &nr, &s)) {
		is_int(s.nr, 1, "hid: one [PATCH -next]");
		ok(!s.cover, "hid: no cover");
		check_trailers(&s, 1, "Acked-by: Mikael Östberg <mikael.ostberg@example.se>",
			       "hid: Acked-by in a format=flowed reply");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "hid: series assembles");
	}

	if (!own("rfc2047-folded-headers.mbox", &m, &nr, &s)) {
		ok(s.nr == 1 && s.patches[0].mail == &m[8] && !s.cover,
		   "rfc2047: the one patch among the replies");
		if (s.nr == 1) {
			is_str(s.patches[0].author_name, "René Lefèvre",
			       "rfc2047: ISO-8859-1 Q author");
			ok(ends_with(s.patches[0].message,
				     "\n\nSigned-off-by: René Lefèvre <rene.lefevre@example.fr>\n") &&
			   diff_is_clean(s.patches[0].diff),
			   "rfc2047: message and diff from ISO-8859-1 QP");
		}
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "rfc2047: series assembles");
	}

	if (!own("selftests-lone-cr-crlf-base64.mbox", &m, &nr, &s)) {
		ok(s.nr == 1 && s.patches[0].mail == &m[1] &&
		   has_problem(&s, "duplicate patch 1/1, keeping the latest"),
		   "crlf: the later of two copies");
		ok(s.nr == 1 && contains(s.patches[0].message, "huge pages\rreserved 128") &&
		   diff_is_clean(s.patches[0].diff),
		   "crlf: base64 message keeps its lone CR; clean diff");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "crlf: series assembles");
	}

	if (!own("mboxrd-from-escapes.mboxrd", &m, &nr, &s)) {
		ok(s.nr == 2 && has_problem(&s, "patch 1/2 has no diff") &&
		   has_problem(&s, "patch 2/2 has no diff"),
		   "mboxrd: patches without a diff are noted");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "mboxrd: series assembles");
	}
}

static void test_own_broken(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (!own("broken-references-patch-2-of-2.mbox", &m, &nr, &s)) {
		ok(s.nr == 1 && s.nr_missing == 1 && s.missing[0] == 1,
		   "refs: 2/2 alone, 1/2 missing");
		ok(has_problem(&s, "1 of 2 patches missing"),
		   "refs: problem recorded");
		ok(s.nr == 1 && diff_is_clean(s.patches[0].diff),
		   "refs: its diff is clean");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "refs: assembles");
	}
	ok(own("broken-mangled-headers.mbox", &m, &nr, &s) == -1 && !m && !s.nr,
	   "mangled: no series");
	series_release(&s);

	if (!own("zswap-batch-v4-truncated.mbox", &m, &nr, &s)) {
		ok(s.nr == 2 && s.nr_missing == 1 && s.missing[0] == 3 &&
		   has_problem(&s, "1 of 3 patches missing"),
		   "truncated: 2 of 3 patches, 3/3 missing");
		ok(s.nr == 2 && ends_with(s.patches[1].diff, "\n+\t/* pages in the swap ca\n"),
		   "truncated: 2/2's diff ends where the file does");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "truncated: assembles");
	}

	if (!own("no-from-header.eml", &m, &nr, &s)) {
		ok(s.nr == 1 && !*s.patches[0].author_name &&
		   !*s.patches[0].author_email && diff_is_clean(s.patches[0].diff),
		   "no From: a patch without an author");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "no From: assembles");
	}
	ok(own("bare-diff-not-mail.patch", &m, &nr, &s) == -1 && !m,
	   "a bare diff is no series");
	series_release(&s);
	ok(own("bad-encodings.mbox", &m, &nr, &s) == -1 && !m,
	   "replies alone are no series");
	series_release(&s);
}

static void test_own_bug_thread(void)
{
	struct mail *m;
	struct series s;
	size_t nr, i;
	int patches = 0;

	ok(own("memmap-soft-lockup-bug-thread.mboxrd", &m, &nr, &s) == -1 &&
	   !m && !s.nr && !s.patches, "bug: a bug thread is not a series");
	series_release(&s);

	m = parse_file(OWN_FIXTURES "/memmap-soft-lockup-bug-thread.mboxrd", &nr);
	if (!m) {
		ok(0, "bug: fixture parses");
		return;
	}
	for (i = 0; i < nr; i++) {
		struct patch_subject ps;

		patches += parse_patch_subject(m[i].subject, &ps);
		patch_subject_release(&ps);
	}
	is_int(patches, 0, "bug: no subject is a patch");
	ok(nr == 5 && mail_text_has_patch(m[1].body.buf, m[1].body.len),
	   "bug: yet mail 2 carries a diff");
	is_int(series_thread_has_patch(m, nr), 0,
	       "bug: series_thread_has_patch() says no (a reply's diff)");
	ok(series_from_mails(m, nr, &s) == -1 && !s.nr,
	   "bug: series_from_mails() refuses it too");
	series_release(&s);
	mails_free(m, nr);
}

/* the series of the mbox text @text, mails in *m (caller frees) */
static int series_of_text(const char *text, struct mail **m, size_t *nr,
			  struct series *s)
{
	memset(s, 0, sizeof(*s));
	*m = NULL;
	*nr = 0;
	if (mbox_parse(text, strlen(text), m, nr) < 0)
		return -2;
	return series_from_mails(*m, *nr, s);
}

#define UNTAGGED_HEAD \
	"From t@example.org Tue Nov 24 08:14:02 2026\n" \
	"From: T <t@example.org>\n" \
	"Date: Tue, 24 Nov 2026 09:14:02 +0100\n" \
	"Message-ID: <untagged-1@example.org>\n"
#define UNTAGGED_DIFF \
	"diff --git a/mm/x.c b/mm/x.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/mm/x.c\n" \
	"+++ b/mm/x.c\n" \
	"@@ -1,2 +1,3 @@\n" \
	" a\n" \
	"+b\n" \
	" c\n"

static void test_own_untagged(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (!own("vmscan-untagged-send-email.mbox", &m, &nr, &s)) {
		ok(s.nr == 1 && s.patches[0].mail == &m[0] && !s.cover,
		   "untagged: a git send-email without [PATCH] is a patch");
		is_str(s.title, "mm/vmscan: never return a zero shrink batch",
		       "untagged: title is the whole subject");
		if (s.nr == 1) {
			is_str(s.patches[0].author_name, "Tomasz Wierzba",
			       "untagged: author");
			ok(starts_with(s.patches[0].message,
				       "mm/vmscan: never return a zero shrink "
				       "batch\n\nshrink_batch() returns") &&
			   diff_is_clean(s.patches[0].diff),
			   "untagged: message and clean diff");
		}
		check_trailers(&s, 1,
			       "Reviewed-by: Ilse Brandt <ilse.brandt@example.de>",
			       "untagged: the reply's Reviewed-by counts");
		is_int(s.nr_problems, 0, "untagged: no problem");
		is_int(series_thread_has_patch(m, nr), 1,
		       "untagged: series_thread_has_patch() agrees");
		series_release(&s);
		mails_free(m, nr);
	} else {
		ok(0, "untagged: series assembles");
	}

	ok(series_of_text(UNTAGGED_HEAD "Subject: mm: half a diff\n\n"
			  "diff --git a/mm/x.c b/mm/x.c\n"
			  "is what I ran, no hunks here\n", &m, &nr, &s) == -1 &&
	   !s.nr, "untagged: a diff --git line without a hunk is no patch");
	series_release(&s);
	mails_free(m, nr);
	ok(series_of_text(UNTAGGED_HEAD "Subject: mm: plain diff\n\n"
			  "--- a/mm/x.c\n+++ b/mm/x.c\n@@ -1,2 +1,3 @@\n"
			  " a\n+b\n c\n", &m, &nr, &s) == -1 && !s.nr,
	   "untagged: a diff that is not git's is no patch");
	series_release(&s);
	mails_free(m, nr);
	ok(series_of_text(UNTAGGED_HEAD "Subject: Re: mm: x\n\n"
			  UNTAGGED_DIFF, &m, &nr, &s) == -1 && !s.nr,
	   "untagged: a reply with a git diff is no patch");
	series_release(&s);
	mails_free(m, nr);
	ok(series_of_text(UNTAGGED_HEAD "Subject: + mm-x-add-b.patch added to "
			  "mm-new branch\n\nThe patch titled\n" UNTAGGED_DIFF,
			  &m, &nr, &s) == -1 && !s.nr &&
	   !series_thread_has_patch(m, nr),
	   "untagged: an mm-commits notice quoting a git diff is no patch");
	series_release(&s);
	mails_free(m, nr);
	ok(series_of_text(UNTAGGED_HEAD "Subject: [merged mm-stable] "
			  "mm-x-add-b.patch removed from -mm tree\n\n"
			  UNTAGGED_DIFF, &m, &nr, &s) == -1 && !s.nr,
	   "untagged: a merged notice quoting a git diff is no patch");
	series_release(&s);
	mails_free(m, nr);
	ok(!series_of_text(UNTAGGED_HEAD "Subject: + mm: a patch whose title "
			   "starts with a plus\n\n" UNTAGGED_DIFF, &m, &nr,
			   &s) && s.nr == 1,
	   "untagged: a subject with + but no .patch file is a patch");
	series_release(&s);
	mails_free(m, nr);
	ok(!series_of_text(UNTAGGED_HEAD "Subject: [PATCH] mm: tagged\n\n"
			   UNTAGGED_DIFF "\n"
			   "From u@example.org Tue Nov 24 09:14:02 2026\n"
			   "From: U <u@example.org>\n"
			   "Date: Tue, 24 Nov 2026 10:14:02 +0100\n"
			   "Message-ID: <untagged-2@example.org>\n"
			   "In-Reply-To: <untagged-1@example.org>\n"
			   "Subject: mm: untagged fix-up\n\n" UNTAGGED_DIFF,
			   &m, &nr, &s) &&
	   s.nr == 1 && s.patches[0].mail == &m[0] && !s.nr_problems,
	   "untagged: a tagged patch in the thread wins, no duplicate");
	series_release(&s);
	mails_free(m, nr);
}

static void test_own_attachment(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (own("page-owner-patch-as-attachment.eml", &m, &nr, &s)) {
		ok(0, "eml: series assembles");
		return;
	}
	is_int(s.nr, 1, "eml: one patch");
	is_str(s.title, "mm/page_owner: print migratetype names",
	       "eml: series title from the mail subject");
	if (s.nr == 1) {
		struct series_patch *p = &s.patches[0];

		ok(starts_with(p->diff,
			       "diff --git a/mm/page_owner.c b/mm/page_owner.c\n"
			       "index 2613218..623a204 100644\n"),
		   "eml: the diff comes from the base64 attachment");
		ok(diff_is_clean(p->diff) && ends_with(p->diff, "pageblock_mt]);\n }\n"),
		   "eml: signature of the attachment left out");
		is_str(p->author_email, "dmitri.volkov@example.net", "eml: author");
		is_str(p->title, "mm/page_owner: print migratetype names instead of numbers",
		       "eml: title from the attached format-patch's folded Subject, as git am");
		ok(starts_with(p->message, "mm/page_owner: print migratetype names instead of numbers\n\n/sys/kernel/debug/page_owner prints") &&
		   ends_with(p->message, "\n\nSigned-off-by: Dmitri Volkov <dmitri.volkov@example.net>\n") &&
		   !contains(p->message, "Best wishes"),
		   "eml: message from the attachment, not the mail text");
		is_int(p->date, 1776708849, "eml: date of the attached patch");
	}
	series_release(&s);
	mails_free(m, nr);
}

static void test_own_truncated(void)
{
	static const char *const files[] = {
		"vmalloc-huge-vmap-v2.mboxrd", "vmalloc-huge-vmap-v1.mbox",
		"memmap-pageblock-v2-v3-reroll.mbox",
		"leds-exa3310-V3-folded-ids.mbox",
		"zswap-batch-v4-version-on-cover.mbox",
		"hid-exampad-single-patch-flowed.mboxrd",
		"page-owner-patch-as-attachment.eml",
		"memmap-soft-lockup-bug-thread.mboxrd",
		"rfc2047-folded-headers.mbox", "bad-encodings.mbox",
		"broken-mangled-headers.mbox",
		"broken-references-patch-2-of-2.mbox",
	};

	check_truncated(OWN_FIXTURES, files, ARRAY_SIZE(files));
}

static const char format_patch_mbox[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: Alice Maintainer <alice@example.org>\n"
	"Date: Mon, 2 Jun 2025 10:00:00 +0200\n"
	"Subject: [PATCH 0/2] mm: make things faster\n"
	"\n"
	"This series makes things faster.\n"
	"\n"
	"Alice Maintainer (1):\n"
	"  mm: add the fast path\n"
	"\n"
	"Bob Contributor (1):\n"
	"  mm: use the fast path\n"
	"\n"
	" mm/fast.c | 2 ++\n"
	" 1 file changed, 2 insertions(+)\n"
	"\n"
	"base-commit: 0123456789abcdef0123456789abcdef01234567\n"
	"-- \n"
	"2.43.0\n"
	"\n"
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: Alice Maintainer <alice@example.org>\n"
	"Date: Mon, 2 Jun 2025 09:00:00 +0200\n"
	"Subject: [PATCH 1/2] mm: add the fast path\n"
	"\n"
	"Add a fast path.\n"
	"\n"
	"Signed-off-by: Alice Maintainer <alice@example.org>\n"
	"---\n"
	" mm/fast.c | 2 +-\n"
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/mm/fast.c b/mm/fast.c\n"
	"index 1234567..89abcde 100644\n"
	"--- a/mm/fast.c\n"
	"+++ b/mm/fast.c\n"
	"@@ -1,3 +1,3 @@\n"
	" int a;\n"
	"-- \n"
	"+int fast;\n"
	" int b;\n"
	"-- \n"
	"2.43.0\n"
	"\n"
	"From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001\n"
	"From: Alice Maintainer <alice@example.org>\n"
	"Date: Mon, 2 Jun 2025 09:00:01 +0200\n"
	"Subject: [PATCH 2/2] mm: use the fast path\n"
	"\n"
	"From: Bob Contributor <bob@example.com>\n"
	"Date: Sun, 1 Jun 2025 08:00:00 +0000\n"
	"\n"
	"Use it.\n"
	"\n"
	"Signed-off-by: Bob Contributor <bob@example.com>\n"
	"Signed-off-by: Alice Maintainer <alice@example.org>\n"
	"---\n"
	" mm/fast.c | 1 +\n"
	" 1 file changed, 1 insertion(+)\n"
	"\n"
	"diff --git a/mm/fast.c b/mm/fast.c\n"
	"index 89abcde..fedcba9 100644\n"
	"--- a/mm/fast.c\n"
	"+++ b/mm/fast.c\n"
	"@@ -3,0 +4 @@ int b;\n"
	"+int use = fast;\n"
	"-- \n"
	"2.43.0\n"
	"\n";

static void test_format_patch(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (mbox_parse(format_patch_mbox, sizeof(format_patch_mbox) - 1,
		       &m, &nr)) {
		ok(0, "format-patch: parses");
		return;
	}
	is_int(nr, 3, "format-patch: 3 mails");
	if (series_from_mails(m, nr, &s)) {
		ok(0, "format-patch: series assembles");
		mails_free(m, nr);
		return;
	}
	is_int(s.version, 1, "format-patch: version 1");
	is_int(s.total, 2, "format-patch: total 2");
	is_int(s.nr, 2, "format-patch: 2 patches");
	ok(s.cover == &m[0], "format-patch: cover letter");
	is_str(s.title, "mm: make things faster", "format-patch: title");
	is_str(s.base_commit, "0123456789abcdef0123456789abcdef01234567",
	       "format-patch: base-commit");
	is_int(s.nr_problems, 0, "format-patch: no problem");
	if (s.nr == 2) {
		struct series_patch *p1 = &s.patches[0], *p2 = &s.patches[1];

		is_str(p1->author_name, "Alice Maintainer", "format-patch: 1/2 author");
		is_str(p1->message,
		       "mm: add the fast path\n\nAdd a fast path.\n\n"
		       "Signed-off-by: Alice Maintainer <alice@example.org>\n",
		       "format-patch: 1/2 message");
		is_str(p1->diff,
		       "diff --git a/mm/fast.c b/mm/fast.c\n"
		       "index 1234567..89abcde 100644\n"
		       "--- a/mm/fast.c\n"
		       "+++ b/mm/fast.c\n"
		       "@@ -1,3 +1,3 @@\n"
		       " int a;\n"
		       "-- \n"
		       "+int fast;\n"
		       " int b;\n",
		       "format-patch: 1/2 diff keeps a '-- ' hunk line, drops the signature");
		is_int(p1->date, 1748847600, "format-patch: 1/2 date");
		is_str(p2->author_name, "Bob Contributor",
		       "format-patch: in-body From overrides");
		is_str(p2->author_email, "bob@example.com",
		       "format-patch: in-body email");
		is_int(p2->date, 1748764800, "format-patch: in-body Date overrides");
		is_str(p2->message,
		       "mm: use the fast path\n\nUse it.\n\n"
		       "Signed-off-by: Bob Contributor <bob@example.com>\n"
		       "Signed-off-by: Alice Maintainer <alice@example.org>\n",
		       "format-patch: 2/2 message without in-body headers");
		is_str(p2->diff,
		       "diff --git a/mm/fast.c b/mm/fast.c\n"
		       "index 89abcde..fedcba9 100644\n"
		       "--- a/mm/fast.c\n"
		       "+++ b/mm/fast.c\n"
		       "@@ -3,0 +4 @@ int b;\n"
		       "+int use = fast;\n",
		       "format-patch: 2/2 diff");
		ok(!p1->nr_trailers && !p2->nr_trailers,
		   "format-patch: no reply, no trailer");
		{
			char *full = series_patch_full_message(p1);

			is_str(full, p1->message,
			       "format-patch: full message without trailers is the message");
			free(full);
		}
	}
	series_release(&s);
	mails_free(m, nr);
}

#define HDR(from, id, date, subj) \
	"From x@y Mon Jun  2 10:00:00 2025\n" \
	"From: " from "\nMessage-ID: <" id ">\nDate: " date \
	"\nSubject: " subj "\n"

static const char thread_mbox[] =
	HDR("A <a@x.org>", "c2@x", "Mon, 2 Jun 2025 10:00:00 +0000",
	    "[PATCH v2 0/3] thing") "\nCover.\n\n"
	HDR("A <a@x.org>", "a1@x", "Mon, 2 Jun 2025 10:00:01 +0000",
	    "[PATCH v2 1/3] one") "In-Reply-To: <c2@x>\n\nOne.\n---\n"
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\n"
	HDR("A <a@x.org>", "a2@x", "Mon, 2 Jun 2025 10:00:02 +0000",
	    "[PATCH v2 2/3] two") "In-Reply-To: <c2@x>\n\nTwo.\n---\n"
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+old\n\n"
	HDR("A <a@x.org>", "a2b@x", "Mon, 2 Jun 2025 11:00:00 +0000",
	    "[PATCH v2 RESEND 2/3] two") "In-Reply-To: <c2@x>\n\nTwo.\n---\n"
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+new\n\n"
	HDR("C <carol@example.net>", "r1@x", "Mon, 2 Jun 2025 12:00:00 +0000",
	    "Re: [PATCH v2 1/3] one") "In-Reply-To: <a1@x>\n\n"
	"> One.\n> Acked-by: Quoted <q@x.org>\n\nLooks good.\n\n"
	"Reviewed-by: Carol <carol@example.net>\n\nLink: https://example.net/no-person\n\n"
	HDR("D <dan@example.net>", "r2@x", "Mon, 2 Jun 2025 13:00:00 +0000",
	    "Re: [PATCH v2 1/3] one") "In-Reply-To: <r1@x>\nReferences: <a1@x> <r1@x>\n\n"
	"Tested-by: Dan <dan@example.net>\n\n"
	HDR("E <eve@example.net>", "r3@x", "Mon, 2 Jun 2025 14:00:00 +0000",
	    "Re: [PATCH v2 0/3] thing") "References: <c2@x>\n\n"
	"Acked-by: Eve <eve@example.net>\n-- \nReviewed-by: Sig <sig@x.org>\n\n"
	HDR("A <a@x.org>", "o1@x", "Sun, 1 Jun 2025 10:00:00 +0000",
	    "[PATCH 1/3] one") "\nOld one.\n---\n"
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+c\n\n"
	HDR("O <old@x.org>", "r4@x", "Sun, 1 Jun 2025 11:00:00 +0000",
	    "Re: [PATCH 1/3] one") "In-Reply-To: <o1@x>\n\n"
	"Reviewed-by: Old <old@x.org>\n";

static void test_thread(void)
{
	struct mail *m;
	struct series s;
	size_t nr;

	if (mbox_parse(thread_mbox, sizeof(thread_mbox) - 1, &m, &nr)) {
		ok(0, "thread: parses");
		return;
	}
	is_int(nr, 9, "thread: 9 mails");
	if (series_from_mails(m, nr, &s)) {
		ok(0, "thread: assembles");
		mails_free(m, nr);
		return;
	}
	is_int(s.version, 2, "thread: version 2");
	is_int(s.nr, 2, "thread: 2 of 3 patches");
	ok(s.nr_missing == 1 && s.missing[0] == 3, "thread: 3/3 missing");
	ok(has_problem(&s, "duplicate patch 2/3, keeping the latest"),
	   "thread: duplicate noted");
	ok(has_problem(&s, "1 of 3 patches missing"), "thread: missing noted");
	ok(has_problem(&s, "ignored 2 patch mail(s)"),
	   "thread: older duplicate and v1 patch ignored");
	if (s.nr == 2) {
		ok(s.patches[1].mail == &m[3] &&
		   contains(s.patches[1].diff, "\n+new\n"),
		   "thread: the resent 2/3 is kept");
		check_trailers(&s, 1,
			       "Reviewed-by: Carol <carol@example.net>|Tested-by: Dan <dan@example.net>|Acked-by: Eve <eve@example.net>",
			       "thread: 1/3 reply, reply to reply, then cover trailers");
		check_trailers(&s, 2, "Acked-by: Eve <eve@example.net>",
			       "thread: 2/3 gets the cover trailer only");
		{
			char *full = series_patch_full_message(&s.patches[0]);

			is_str(full,
			       "one\n\nOne.\n\n"
			       "Reviewed-by: Carol <carol@example.net>\n"
			       "Tested-by: Dan <dan@example.net>\n"
			       "Acked-by: Eve <eve@example.net>\n",
			       "thread: full message gets its own trailer block");
			free(full);
		}
	}
	series_release(&s);
	mails_free(m, nr);
}

/* parse every file cut short every 997 bytes, and assemble it */
static void check_truncated(const char *dir, const char *const *files,
			    size_t nr_files)
{
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	size_t i, cut;

	fflush(stderr);
	if (devnull >= 0)
		dup2(devnull, 2);	/* "is not a patch series", many times */
	for (i = 0; i < nr_files; i++) {
		char *path = xstrfmt("%s/%s", dir, files[i]);
		struct strbuf raw = STRBUF_INIT;
		size_t series = 0;
		int good = 1;
		char *name;

		if (strbuf_read_file(&raw, path, 0) < 0)
			good = 0;
		for (cut = 0; good && cut < raw.len + 997; cut += 997) {
			size_t len = cut < raw.len ? cut : raw.len;
			char *copy = xmalloc(len ? len : 1);
			struct mail *m;
			struct series s;
			size_t nr, k;

			memcpy(copy, raw.buf, len);
			if (mbox_parse(copy, len, &m, &nr)) {
				free(copy);
				continue;
			}
			if (!series_from_mails(m, nr, &s))
				series++;
			for (k = 0; k < s.nr; k++)
				good &= s.patches[k].index >= 1 &&
					s.patches[k].index <= s.total &&
					s.patches[k].diff != NULL;
			series_release(&s);
			mails_free(m, nr);
			free(copy);
		}
		name = xstrfmt("%s: truncated copies (%zu series)", files[i], series);
		ok(good, name);
		free(name);
		strbuf_release(&raw);
		free(path);
	}
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (devnull >= 0)
		close(devnull);
}

static void test_truncated(void)
{
	static const char *const files[] = {
		LEDS "hid-lenovo-mute-led-v3-0-7.mboxrd",
		LEDS "leds-privacy-led-devicetree-v5-0-4.mboxrd",
		LEDS "auxdisplay-7seg-v2-0-4-qp-base64.mboxrd",
		LEDS "leds-bug-abba-deadlock-thread-inline-format-patch.mboxrd",
		LEDS "patch-as-base64-octet-stream-attachment.eml",
		"getpatchwork+patchwork/series-base-different-versions.mbox",
		"getpatchwork+patchwork/series-bugs-multiple-references.mbox",
		"getpatchwork+patchwork/series-bugs-multiple-content-types.mbox",
		"getpatchwork+patchwork/fuzz-refshdr.mbox",
		"getpatchwork+patchwork/fuzz-dateheader.mbox",
		"git+git/t5100-sample.mbox",
		"mricon+b4/trailers-followup-partial-reroll.mbox",
		"mricon+b4/trailers-thread-with-cover-followup.mbox",
	};

	check_truncated(shared_fixtures_dir(), files, ARRAY_SIZE(files));
}

int main(void)
{
	static const struct shared_case shared[] = {
		{ "real mails: hid-lenovo v3 thread", test_hid_lenovo },
		{ "real mails: privacy-led v5 thread", test_privacy_led },
		{ "real mails: auxdisplay QP thread", test_auxdisplay },
		{ "real mails: patchwork series and fuzzed mails", test_patchwork },
		{ "real mails: AB-BA bug thread", test_abba },
		{ "real mails: patch as attachment", test_attachment },
		{ "real mails: b4 trailer samples", test_b4 },
		{ "real mails: truncated copies", test_truncated },
	};

	test_subjects();
	test_format_patch();
	test_thread();
	test_own_thread();
	test_own_reroll();
	test_own_shapes();
	test_own_broken();
	test_own_bug_thread();
	test_own_untagged();
	test_own_attachment();
	test_own_truncated();
	run_shared_cases(shared, ARRAY_SIZE(shared));
	return done_testing();
}
