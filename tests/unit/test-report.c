// SPDX-License-Identifier: GPL-2.0
/*
 * test-report.c - header cleaning, encoding and folding, addresses,
 * message-ids, the subject and the lines of a metric of report mails;
 * envelope checks and the outbox of smtp.c. No database, no network.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "attribution.h"
#include "compare.h"
#include "fsutil.h"
#include "mbox.h"
#include "report.h"
#include "smtp.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

static char *cleaned(const char *in)
{
	struct strbuf sb = STRBUF_INIT;

	report_clean_text(&sb, in);
	return strbuf_detach(&sb, NULL);
}

static void test_clean(void)
{
	char *s;

	s = cleaned("a\r\nBcc: x@y.org");
	is_str(s, "a Bcc: x@y.org", "CR LF becomes one blank");
	free(s);
	s = cleaned("  tab\there \x01\x7f end \n");
	is_str(s, "tab here end", "C0, DEL, blanks collapsed and trimmed");
	free(s);
	s = cleaned("nel\xc2\x85ls\xe2\x80\xa8ps\xe2\x80\xa9.");
	is_str(s, "nel ls ps .", "U+0085, U+2028 and U+2029 become blanks");
	free(s);
	s = cleaned("bad\xff\xc3(ok) Beh\xc3\xban");
	is_str(s, "bad\xef\xbf\xbd\xef\xbf\xbd(ok) Beh\xc3\xban",
	       "invalid UTF-8 becomes U+FFFD, valid kept");
	free(s);
	s = cleaned("\xed\xa0\x80\xc0\xaf");
	is_str(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		  "\xef\xbf\xbd", "surrogates and overlong forms rejected");
	free(s);
	s = cleaned(NULL);
	is_str(s, "", "NULL is empty");
	free(s);
}

/* the value of a header written by report_add_header, unfolded */
static char *unfold(const char *msg, const char *name)
{
	struct strbuf v = STRBUF_INIT;
	size_t n = strlen(name);
	const char *p;

	if (strncmp(msg, name, n) || msg[n] != ':' || msg[n + 1] != ' ')
		return NULL;
	for (p = msg + n + 2; *p; p++) {
		if (*p == '\n' && p[1] == ' ')
			continue;
		if (*p == '\n')
			break;
		strbuf_addch(&v, *p);
	}
	return strbuf_detach(&v, NULL);
}

static int lines_ok(const char *msg, size_t max)
{
	const char *p = msg;
	size_t nl = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n > max)
			return 0;
		p += n;
		if (*p) {
			p++;
			nl++;
			/* every line after the first is a continuation */
			if (*p && *p != ' ')
				return 0;
		}
	}
	return nl >= 1 && msg[strlen(msg) - 1] == '\n';
}

static void check_header(const char *value, const char *want_decoded,
			 int want_encoded, const char *what)
{
	struct strbuf msg = STRBUF_INIT;
	char *v, *d, *name;

	report_add_header(&msg, "Subject", value);
	v = unfold(msg.buf, "Subject");
	name = xstrfmt("%s: lines <= 78, continuations only", what);
	ok(lines_ok(msg.buf, 78), name);
	free(name);
	name = xstrfmt("%s: %s", what, want_encoded ? "RFC 2047-encoded" :
		       "plain");
	ok(v && !strncmp(v, "=?UTF-8?B?", 10) == !!want_encoded, name);
	free(name);
	d = mail_decode_header(v ? v : "");
	name = xstrfmt("%s: decodes back", what);
	is_str(d, want_decoded, name);
	free(name);
	free(d);
	free(v);
	strbuf_release(&msg);
}

static void test_headers(void)
{
	struct strbuf msg = STRBUF_INIT, big = STRBUF_INIT;
	int i;

	report_add_header(&msg, "Subject", "hello world");
	is_str(msg.buf, "Subject: hello world\n", "short ASCII as is");
	strbuf_reset(&msg);
	report_add_header(&msg, "Subject", "x\r\nBcc: victim@example.com");
	is_str(msg.buf, "Subject: x Bcc: victim@example.com\n",
	       "CR LF cannot start a header line");
	strbuf_reset(&msg);
	report_add_header(&msg, "Subject", "x\n\nbody");
	ok(!strstr(msg.buf, "\n\n") && !strstr(msg.buf, "\nbody"),
	   "LF LF cannot end the header block");

	check_header("[mmci] [PATCH v2 0/3] mm: speed up foo: "
		     "fsdax.rebind_memmap -67.4% improvement of the thing",
		     "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		     "fsdax.rebind_memmap -67.4% improvement of the thing", 0,
		     "long ASCII");
	check_header("Beh\xc3\xban\r\nBcc: v@x.org", "Beh\xc3\xban Bcc: v@x.org",
		     1, "non-ASCII with CR LF");
	check_header("=?UTF-8?B?QmNjOiB4?=", "=?UTF-8?B?QmNjOiB4?=", 1,
		     "text that looks encoded is encoded");
	for (i = 0; i < 40; i++)
		strbuf_addstr(&big, "\xc3\xbc\xe2\x82\xac");	/* ü€ */
	check_header(big.buf, big.buf, 1, "200 bytes of 2- and 3-byte chars");
	strbuf_reset(&big);
	for (i = 0; i < 950; i++)
		strbuf_addch(&big, 'a');
	check_header(big.buf, big.buf, 1, "a 950-byte word");
	strbuf_release(&big);
	strbuf_release(&msg);
}

static void test_msgid(void)
{
	ok(report_valid_msgid("20250303100000.0.mmci-demo@example.org"),
	   "a usual message-id");
	ok(report_valid_msgid("a/b?c%d@x"), "atext specials are fine");
	ok(!report_valid_msgid("a b@x"), "blank refused");
	ok(!report_valid_msgid("a@x>\r\nBcc: v@x"), "CR LF refused");
	ok(!report_valid_msgid("<a@x>"), "angle brackets refused");
	ok(!report_valid_msgid("ax"), "no @ refused");
	ok(!report_valid_msgid("a@b@c"), "two @ refused");
	ok(!report_valid_msgid("@x") && !report_valid_msgid("a@"),
	   "empty side refused");
	ok(!report_valid_msgid("") && !report_valid_msgid(NULL), "empty");
	ok(!report_valid_msgid("a@\xc3\xbc"), "non-ASCII refused");
}

static void test_addresses(void)
{
	struct report_addresses l = { 0 };
	struct strbuf msg = STRBUF_INIT;

	ok(smtp_valid_address("a.b+c@ex-ample.org"), "valid address");
	ok(!smtp_valid_address("a b@x.org"), "blank");
	ok(!smtp_valid_address("a@x.org>\r\nRCPT TO:<v@x.org"), "CR LF");
	ok(!smtp_valid_address("a@x..org") && !smtp_valid_address(".a@x.org"),
	   "empty labels");
	ok(!smtp_valid_address("a@[127.0.0.1]"), "domain literal");
	ok(!smtp_valid_address("\"a\"@x.org"), "quoted local part");
	ok(!smtp_valid_address("j\xc3\xbc@x.org"), "non-ASCII (no SMTPUTF8)");

	report_addresses_add_field(&l, "\"Doe, John\" <john@example.org>, "
				   "Marek =?UTF-8?Q?Beh=C3=BAn?= "
				   "<kabel@example.org>, JOHN@example.org, "
				   "plain@example.org (Plain Name), "
				   "<bad address@x.org>, list:;, "
				   "\"q\\\"uote\" <q@example.org>");
	is_int(l.nr, 4, "four valid, unique addresses");
	if (l.nr == 4) {
		is_str(l.a[0].name, "Doe, John", "quoted comma kept in name");
		is_str(l.a[1].name, "Marek Beh\xc3\xban", "name decoded");
		is_str(l.a[2].email, "plain@example.org", "comment form");
		is_str(l.a[3].email, "q@example.org", "escaped quote");
	}
	report_add_address_header(&msg, "Cc", &l);
	{
		const char *q;

		printf("# ");
		for (q = msg.buf; *q; q++)
			printf(q[0] == '\n' && q[1] ? "\n# " : "%c", *q);
	}
	ok(strstr(msg.buf, "\"Doe, John\" <john@example.org>") != NULL,
	   "a name with a comma is quoted");
	ok(strstr(msg.buf, "=?UTF-8?B?TWFyZWsgQmVow7pu?= <kabel@example.org>")
	   != NULL, "a non-ASCII name is encoded");
	ok(strstr(msg.buf, "\"q\\\"uote\" <q@example.org>") != NULL,
	   "quotes escaped");
	ok(lines_ok(msg.buf, 78), "folded at 78 columns");
	report_addresses_release(&l);

	report_addresses_add(&l, "Eve\r\nBcc: v@x.org", "eve@example.org");
	strbuf_reset(&msg);
	report_add_address_header(&msg, "To", &l);
	is_str(msg.buf, "To: \"Eve Bcc: v@x.org\" <eve@example.org>\n",
	       "CR LF in a name: cleaned and quoted");
	report_addresses_release(&l);
	strbuf_release(&msg);
}

static void set_metric(struct metric_comparison *m, const char *w,
		       const char *variant, double pct, enum verdict v)
{
	memset(m, 0, sizeof(*m));
	m->workload = (char *)w;
	m->variant = (char *)variant;
	m->metric = (char *)"rebind_memmap";
	m->unit = (char *)"ms";
	m->c.change_pct = pct;
	m->c.verdict = v;
}

static void subject_is(struct run_comparison *rc, const char *what,
		       const char *want, const char *name)
{
	struct strbuf s = STRBUF_INIT;

	report_subject(&s, what, rc);
	is_str(s.buf, want, name);
	strbuf_release(&s);
}

static void test_subject(void)
{
	struct metric_comparison m[4];
	struct run_comparison rc = { 0 };
	const char *what = "[PATCH v2 0/3] mm: speed up foo";

	rc.m = m;
	rc.nr = 4;
	set_metric(&m[0], "devdax", "", 3.0, VERDICT_NO_CHANGE);
	set_metric(&m[1], "fsdax", "", -67.43, VERDICT_BETTER);
	set_metric(&m[2], "memremap", "", 12.1, VERDICT_WORSE);
	set_metric(&m[3], "fsdax", "align-2M", 30.0, VERDICT_WORSE);
	subject_is(&rc, what, "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		   "fsdax.rebind_memmap +30.0% regression",
		   "the largest regression wins over an improvement");
	m[3].c.verdict = VERDICT_INSUFFICIENT;
	subject_is(&rc, what, "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		   "memremap.rebind_memmap +12.1% regression",
		   "the only regression");
	m[2].c.verdict = VERDICT_NO_CHANGE;
	subject_is(&rc, what, "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		   "fsdax.rebind_memmap -67.4% improvement",
		   "no regression: the largest improvement");
	m[1].c.verdict = VERDICT_NO_CHANGE;
	subject_is(&rc, what, "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		   "no significant change", "nothing changed");
	m[0].c.verdict = m[1].c.verdict = m[2].c.verdict =
		VERDICT_INSUFFICIENT;
	subject_is(&rc, what, "[mmci] [PATCH v2 0/3] mm: speed up foo: "
		   "insufficient data", "nothing could be decided");
	subject_is(&rc, "x\r\nBcc: v@x.org", "[mmci] x Bcc: v@x.org: "
		   "insufficient data", "the subject is cleaned");
	rc.nr = 0;
	ok(report_pick_metric(&rc) == NULL, "no metrics, no pick");
}

static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += starts_with(e->d_name, prefix);
	closedir(d);
	return n;
}

static void test_outbox(void)
{
	char tmpl[] = "/tmp/test-report.XXXXXX";
	char *dir, *box, *p1 = NULL, *p2 = NULL, *url;
	struct strbuf got = STRBUF_INIT;

	dir = mkdtemp(tmpl);
	if (!ok(dir != NULL, "temporary directory"))
		return;
	box = xstrfmt("%s/outbox/sub", dir);
	ok(smtp_outbox_write(box, "A: b\n\nhi\n", 9, &p1) == 0 &&
	   smtp_outbox_write(box, "A: c\n\nho\n", 9, &p2) == 0,
	   "two messages written (the outbox is created)");
	ok(p1 && p2 && strcmp(p1, p2) && ends_with(p1, ".eml") &&
	   ends_with(p2, ".eml"), "under two .eml names");
	ok(p2 && strbuf_read_file(&got, p2, 0) == 9 &&
	   !strcmp(got.buf, "A: c\n\nho\n"), "content as given");
	is_int(count_files(box, ".tmp"), 0, "no temporary file left");
	is_int(count_files(box, "2"), 2, "two files named by the UTC time");
	url = smtp_redact_url("smtps://user:secret@mail.example.org:465/x");
	is_str(url, "smtps://***@mail.example.org:465/x",
	       "credentials left out of messages");
	free(url);
	url = smtp_redact_url("smtp://127.0.0.1:25");
	is_str(url, "smtp://127.0.0.1:25", "nothing to redact");
	free(url);
	remove_tree(dir);
	free(box);
	free(p1);
	free(p2);
	strbuf_release(&got);
}

/*
 * metric_comparison_format_mail(): the two lines of a metric that moved,
 * one format for report.c's table and attribution_format_mail()'s
 */
static void test_metric_lines(void)
{
	struct metric_comparison m = {
		.workload = "fsdax", .variant = "align=2M,map=dev",
		.metric = "rebind_memmap", .unit = "ms",
	};
	struct strbuf sb = STRBUF_INIT;

	m.c.base.median = 163;
	m.c.new.median = 270;
	m.c.change_pct = 65.644;
	m.c.ci_lo_pct = 65.03;
	m.c.ci_hi_pct = 66.26;
	m.c.verdict = VERDICT_WORSE;
	metric_comparison_format_mail(&sb, &m, "  ");
	is_str(sb.buf, "  fsdax align=2M,map=dev rebind_memmap (ms)\n"
		       "    163.0 -> 270.0  +65.64% [+65.03, +66.26]  worse\n",
	       "a metric in two lines, the numbers indented two more");
	strbuf_reset(&sb);
	m.variant = "";
	m.c.change_pct = m.c.ci_lo_pct = NAN;
	m.c.verdict = VERDICT_BETTER;
	metric_comparison_format_mail(&sb, &m, "");
	is_str(sb.buf, "fsdax rebind_memmap (ms)\n"
		       "  163.0 -> 270.0  better\n",
	       "no variant, no change or interval known: left out");
	strbuf_release(&sb);
}

int main(void)
{
	test_clean();
	test_metric_lines();
	test_headers();
	test_msgid();
	test_addresses();
	test_subject();
	test_outbox();
	return done_testing();
}
