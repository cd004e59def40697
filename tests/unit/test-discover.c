// SPDX-License-Identifier: GPL-2.0
/*
 * test-discover.c - the pure parts of discovery (daemon/discover.c): the
 * Atom parser on good, odd and hostile feeds, the entry classifier, the
 * message id of a link and the mm path filter.
 */
#include "discover.h"
#include "series.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

#define FEED_HEAD "<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n" \
	"<feed xmlns=\"http://www.w3.org/2005/Atom\" " \
	"xmlns:thr=\"http://purl.org/syndication/thread/1.0\">" \
	"<title>linux-mm.kvack.org archive mirror</title>" \
	"<link rel=\"alternate\" type=\"text/html\" " \
	"href=\"https://lore.kernel.org/linux-mm/\"/>" \
	"<id>mailto:linux-mm@kvack.org</id>" \
	"<updated>2026-11-30T10:00:00Z</updated>"

static int parse(const char *xml, struct feed_entry **e, size_t *nr,
		 struct strbuf *why)
{
	strbuf_reset(why);
	return discover_parse_feed(xml, strlen(xml), e, nr, why);
}

static void test_feed(void)
{
	static const char good[] = FEED_HEAD
		"<entry><author><name>A &amp; B</name><email>a@b.org</email>"
		"</author><title>[PATCH v2 0/3]\n  mm: x &lt;y&gt;</title>"
		"<updated>2026-11-30T09:00:00Z</updated>"
		"<link\nhref=\"https://lore.kernel.org/linux-mm/x%2Fy@b.org/\"/>"
		"<id>urn:uuid:1-2-3</id>"
		"<thr:in-reply-to ref=\"urn:uuid:0\" href=\"https://lore.kernel.org/linux-mm/p@b/\"/>"
		"<content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">"
		"<pre>body</pre></div></content></entry>"
		"<entry><title>no link</title></entry>"
		"<entry><link rel=\"self\" href=\"https://x/self\"/>"
		"<link href=\"https://x/l/m@n/\"/><title>t</title></entry>"
		"</feed>";
	struct strbuf why = STRBUF_INIT;
	struct feed_entry *e = NULL;
	size_t nr = 0;

	is_int(parse(good, &e, &nr, &why), 0, "good feed parses");
	is_int(nr, 2, "entry without a link dropped");
	if (nr == 2) {
		is_str(e[0].title, "[PATCH v2 0/3] mm: x <y>",
		       "title: entities decoded, blanks collapsed");
		is_str(e[0].link, "https://lore.kernel.org/linux-mm/x%2Fy@b.org/",
		       "link href");
		is_str(e[0].id, "urn:uuid:1-2-3", "id");
		is_str(e[0].updated, "2026-11-30T09:00:00Z", "updated");
		is_str(e[0].author_name, "A & B", "author name");
		is_str(e[0].author_email, "a@b.org", "author email");
		is_str(e[1].link, "https://x/l/m@n/", "rel=self skipped");
		is_str(e[1].author_email, "", "missing fields are empty");
	}
	feed_entries_free(e, nr);

	ok(parse(FEED_HEAD "<entry><title>x", &e, &nr, &why) < 0 &&
	   starts_with(why.buf, "line "), "truncated: refused with a line");
	is_int(nr, 0, "truncated: no entries");
	ok(parse("<rss><channel/></rss>", &e, &nr, &why) < 0 &&
	   strstr(why.buf, "<rss> outside the Atom namespace"), "rss refused");
	ok(parse("<feed><entry/></feed>", &e, &nr, &why) < 0,
	   "feed without the Atom namespace refused");
	ok(parse("", &e, &nr, &why) < 0 && !strcmp(why.buf, "the feed is empty"),
	   "empty refused");
	ok(parse("\x01\x02garbage", &e, &nr, &why) < 0, "garbage refused");
	ok(parse("<!DOCTYPE f [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		 "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>"
		 "&x;</title><link href=\"https://l/a@b/\"/></entry></feed>",
		 &e, &nr, &why) < 0 || nr == 0 ||
	   !strstr(e[0].title, "root:"),
	   "external entity never read");
	feed_entries_free(e, nr);
	e = NULL;
	nr = 0;
	strbuf_release(&why);
}

static void test_many_entries(void)
{
	struct strbuf x = STRBUF_INIT, why = STRBUF_INIT;
	struct feed_entry *e = NULL;
	size_t nr = 0, i;

	strbuf_addstr(&x, FEED_HEAD);
	for (i = 0; i < DISCOVER_MAX_ENTRIES + 5; i++)
		strbuf_addf(&x, "<entry><title>t</title><link href=\"https://"
			    "l/%zu@x/\"/></entry>", i);
	strbuf_addstr(&x, "</feed>");
	is_int(discover_parse_feed(x.buf, x.len, &e, &nr, &why), 0,
	       "a huge feed parses");
	is_int(nr, DISCOVER_MAX_ENTRIES, "entries capped");
	feed_entries_free(e, nr);
	strbuf_release(&x);
	strbuf_release(&why);
}

static void test_classify(void)
{
	is_int(discover_classify("[PATCH v3 0/7] mm: a"), ENTRY_SERIES, "0/N");
	is_int(discover_classify("[PATCH 1/2] mm: a"), ENTRY_SERIES, "1/N");
	is_int(discover_classify("[PATCH] mm: a"), ENTRY_SERIES, "single");
	is_int(discover_classify("[RFC PATCH v2 1/3] mm: a"), ENTRY_SERIES, "RFC");
	is_int(discover_classify("[PATCH 2/2] mm: a"), ENTRY_LATER_PATCH, "2/N");
	is_int(discover_classify("Re: [PATCH 0/2] mm: a"), ENTRY_REPLY, "Re:");
	is_int(discover_classify("Re: mm: a"), ENTRY_REPLY, "plain Re:");
	is_int(discover_classify("[GIT PULL] mm"), ENTRY_OTHER, "pull");
	is_int(discover_classify(""), ENTRY_OTHER, "empty");
}

static void test_link(void)
{
	char *url, *id;

	id = discover_link_msgid("https://lore.kernel.org/linux-mm/a%2Fb@c/", &url);
	is_str(id, "a/b@c", "msgid decoded");
	is_str(url, "https://lore.kernel.org/linux-mm/a%2Fb@c/t.mbox.gz",
	       "thread url keeps the escape");
	free(id);
	free(url);
	id = discover_link_msgid("http://h:1/l/m@n", &url);
	is_str(url, "http://h:1/l/m@n/t.mbox.gz", "no trailing slash");
	free(id);
	free(url);
	id = discover_link_msgid("https://h/", &url);
	ok(!id && !url, "no message id");
	id = discover_link_msgid("file:///a@b/", &url);
	ok(!id && !url, "not http");
	id = discover_link_msgid("https://h/l/no-at/", &url);
	ok(!id && !url, "no @");
}

static void test_paths(void)
{
	struct series s = { 0 };
	struct series_patch p[2] = { 0 };
	struct path_filter f;
	struct strbuf out = STRBUF_INIT;

	p[0].diff = "diff --git a/mm/vmalloc.c b/mm/vmalloc.c\n"
		    "--- a/mm/vmalloc.c\n+++ b/mm/vmalloc.c\n@@ -1 +1 @@\n"
		    "---- a/include/linux/mm.h\n";
	p[1].diff = "diff --git a/drivers/leds/x.c b/drivers/leds/x.c\n"
		    "--- /dev/null\n+++ b/drivers/dax/new.c\n";
	s.patches = p;
	s.nr = 2;
	path_filter_init(&f);
	is_int(discover_series_paths(&s, &f, &out), 2, "mm paths counted once");
	is_str(out.buf, "mm/vmalloc.c, drivers/dax/new.c", "the mm paths");
	strbuf_reset(&out);
	ok(path_filter_add(&f, "drivers/leds/") == 0, "add a filter");
	is_int(discover_series_paths(&s, &f, &out), 3, "with drivers/leds/");
	ok(path_filter_add(&f, "(") < 0, "a bad regex is refused");
	path_filter_release(&f);
	p[0].diff = "";
	p[1].diff = "diff --git a/mmx b/mmx\n";
	path_filter_init(&f);
	strbuf_reset(&out);
	is_int(discover_series_paths(&s, &f, &out), 0, "mmx is no mm path");
	path_filter_release(&f);
	strbuf_release(&out);
}

int main(void)
{
	test_feed();
	test_many_entries();
	test_classify();
	test_link();
	test_paths();
	return done_testing();
}
