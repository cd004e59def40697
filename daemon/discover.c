// SPDX-License-Identifier: GPL-2.0
/*
 * discover.c - Atom entries to candidate series, diffs to a keep decision.
 *
 * Workload: one feed per poll (lore's new.atom: the last 25 messages of
 * the list, about 100 KiB), a poll every few minutes; one pass over the
 * diffs of each new series. The feed is untrusted XML: libxml2 parses it
 * without network access and without expanding entities, and every field
 * kept is cut at DISCOVER_MAX_FIELD bytes.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "discover.h"
#include "mbox.h"
#include "series.h"
#include "util.h"

#define ATOM_NS "http://www.w3.org/2005/Atom"

void feed_entries_free(struct feed_entry *e, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(e[i].title);
		free(e[i].link);
		free(e[i].id);
		free(e[i].updated);
		free(e[i].author_name);
		free(e[i].author_email);
	}
	free(e);
}

/* libxml2 reports here instead of on stderr: keep the first error */
static void on_xml_error(void *arg, xmlErrorPtr err)
{
	struct strbuf *why = arg;

	if (why->len || !err)
		return;
	strbuf_addf(why, "line %d: %s", err->line,
		    err->message ? err->message : "XML error");
	strbuf_rtrim(why);
}

static int is_atom(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, ATOM_NS) &&
	       !strcmp((const char *)n->name, name);
}

/* the text of an element, blanks collapsed, cut at DISCOVER_MAX_FIELD */
static char *node_text(const xmlNode *n)
{
	xmlChar *c = n ? xmlNodeGetContent(n) : NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	for (p = c ? (const char *)c : ""; *p && sb.len < DISCOVER_MAX_FIELD;
	     p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	strbuf_rtrim(&sb);
	xmlFree(c);
	return strbuf_detach(&sb, NULL);
}

static char *attr(const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	char *s;

	if (!v)
		return NULL;
	s = xstrndup((const char *)v, DISCOVER_MAX_FIELD);
	xmlFree(v);
	return s;
}

static void read_entry(const xmlNode *e, struct feed_entry *out)
{
	const xmlNode *c, *a;

	for (c = e->children; c; c = c->next) {
		if (is_atom(c, "title") && !out->title) {
			out->title = node_text(c);
		} else if (is_atom(c, "link") && !out->link) {
			char *rel = attr(c, "rel");

			if (!rel || !strcmp(rel, "alternate"))
				out->link = attr(c, "href");
			free(rel);
		} else if (is_atom(c, "id") && !out->id) {
			out->id = node_text(c);
		} else if (is_atom(c, "updated") && !out->updated) {
			out->updated = node_text(c);
		} else if (is_atom(c, "author") && !out->author_name) {
			for (a = c->children; a; a = a->next) {
				if (is_atom(a, "name") && !out->author_name)
					out->author_name = node_text(a);
				else if (is_atom(a, "email") &&
					 !out->author_email)
					out->author_email = node_text(a);
			}
		}
	}
	if (!out->title)
		out->title = xstrdup("");
	if (!out->link)
		out->link = xstrdup("");
	if (!out->id)
		out->id = xstrdup("");
	if (!out->updated)
		out->updated = xstrdup("");
	if (!out->author_name)
		out->author_name = xstrdup("");
	if (!out->author_email)
		out->author_email = xstrdup("");
}

int discover_parse_feed(const char *buf, size_t len,
			struct feed_entry **entries, size_t *nr,
			struct strbuf *why)
{
	struct feed_entry *out = NULL;
	size_t n = 0, alloc = 0;
	const xmlNode *root, *c;
	xmlDocPtr doc;

	*entries = NULL;
	*nr = 0;
	if (len > DISCOVER_MAX_FEED_SIZE) {
		strbuf_addf(why, "%zu bytes, more than the limit of %u", len,
			    DISCOVER_MAX_FEED_SIZE);
		return -1;
	}
	if (!len) {
		strbuf_addstr(why, "the feed is empty");
		return -1;
	}
	xmlSetStructuredErrorFunc(why, on_xml_error);
	doc = xmlReadMemory(buf, (int)len, NULL, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOWARNING);
	xmlSetStructuredErrorFunc(NULL, NULL);
	if (!doc) {
		if (!why->len)
			strbuf_addstr(why, "not well-formed XML");
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || !is_atom(root, "feed")) {
		int atom_ns = root && root->ns && root->ns->href &&
			      !strcmp((const char *)root->ns->href, ATOM_NS);

		strbuf_reset(why);
		strbuf_addf(why, "not an Atom feed: the root element is <%s>%s",
			    root ? (const char *)root->name : "(none)",
			    root && !atom_ns ? " outside the Atom namespace" :
			    "");
		xmlFreeDoc(doc);
		return -1;
	}
	strbuf_reset(why);	/* recovered warnings are no refusal */
	for (c = root->children; c && n < DISCOVER_MAX_ENTRIES; c = c->next) {
		struct feed_entry e = { 0 };

		if (!is_atom(c, "entry"))
			continue;
		read_entry(c, &e);
		if (!*e.title || !*e.link) {
			free(e.title);
			free(e.link);
			free(e.id);
			free(e.updated);
			free(e.author_name);
			free(e.author_email);
			continue;
		}
		ALLOC_GROW(out, n + 1, alloc);
		out[n++] = e;
	}
	xmlFreeDoc(doc);
	*entries = out;
	*nr = n;
	return 0;
}

char *discover_link_msgid(const char *link, char **thread_url)
{
	const char *p, *end, *seg;
	struct strbuf id = STRBUF_INIT;
	size_t i;

	*thread_url = NULL;
	if (!skip_prefix(link, "https://", &p) &&
	    !skip_prefix(link, "http://", &p))
		return NULL;
	end = p + strcspn(p, "?#");
	while (end > p && end[-1] == '/')
		end--;
	for (seg = end; seg > p && seg[-1] != '/'; seg--)
		;
	if (seg == p)	/* only a host */
		return NULL;
	for (; seg < end; seg++) {
		int hi, lo;

		if (*seg == '%' && end - seg >= 3 &&
		    (hi = hex_digit(seg[1])) >= 0 && (lo = hex_digit(seg[2])) >= 0) {
			strbuf_addch(&id, hi * 16 + lo);
			seg += 2;
		} else {
			strbuf_addch(&id, *seg);
		}
	}
	for (i = 0; i < id.len; i++)
		if ((unsigned char)id.buf[i] <= ' ')
			break;
	if (i < id.len || !strchr(id.buf, '@')) {
		strbuf_release(&id);
		return NULL;
	}
	*thread_url = xstrfmt("%.*s/t.mbox.gz", (int)(end - link), link);
	return strbuf_detach(&id, NULL);
}

enum entry_kind discover_classify(const char *title)
{
	struct patch_subject ps;
	enum entry_kind k;

	if (!parse_patch_subject(title, &ps))
		k = ps.is_reply ? ENTRY_REPLY : ENTRY_OTHER;
	else if (ps.is_reply)
		k = ENTRY_REPLY;
	else if (ps.index > 1)
		k = ENTRY_LATER_PATCH;
	else
		k = ENTRY_SERIES;
	patch_subject_release(&ps);
	return k;
}

const char *const discover_default_paths[] = {
	"^mm/", "^include/linux/mm", "^drivers/nvdimm/", "^drivers/dax/",
	"^drivers/virtio/virtio_mem", NULL,
};

void path_filter_init(struct path_filter *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; discover_default_paths[i]; i++)
		if (path_filter_add(f, discover_default_paths[i]) < 0)
			BUG("bad default path regex '%s'",
			    discover_default_paths[i]);
}

int path_filter_add(struct path_filter *f, const char *regex)
{
	regex_t re;
	int rc = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char msg[256];

		regerror(rc, &re, msg, sizeof(msg));
		return error("invalid path regex '%s': %s", regex, msg);
	}
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 8;
		f->re = xrealloc(f->re, f->alloc * sizeof(*f->re));
		f->src = xrealloc(f->src, f->alloc * sizeof(*f->src));
	}
	f->re[f->nr] = re;
	f->src[f->nr++] = xstrdup(regex);
	return 0;
}

void path_filter_release(struct path_filter *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		regfree(&f->re[i]);
		free(f->src[i]);
	}
	free(f->re);
	free(f->src);
	memset(f, 0, sizeof(*f));
}

static int path_matches(const struct path_filter *f, const char *path)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (!regexec(&f->re[i], path, 0, NULL, 0))
			return 1;
	return 0;
}

/* one path of a diff header: "a/x/y" -> "x/y"; /dev/null is none */
static void consider(const char *p, size_t len, const struct path_filter *f,
		     struct strbuf *seen, struct strbuf *out, size_t *nr)
{
	char *path;

	if (len > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/') {
		p += 2;
		len -= 2;
	} else {
		return;	/* /dev/null, or no git prefix */
	}
	path = xstrfmt("\n%.*s\n", (int)len, p);
	if (!strstr(seen->buf, path)) {
		strbuf_addstr(seen, path + 1);
		path[len + 1] = '\0';
		if (path_matches(f, path + 1)) {
			if (*nr < 20)
				strbuf_addf(out, "%s%s", out->len ? ", " : "",
					    path + 1);
			(*nr)++;
		}
	}
	free(path);
}

size_t discover_series_paths(const struct series *s,
			     const struct path_filter *f, struct strbuf *out)
{
	struct strbuf seen = STRBUF_INIT;
	size_t i, nr = 0;

	strbuf_addch(&seen, '\n');
	for (i = 0; i < s->nr; i++) {
		const char *p = s->patches[i].diff, *eol;

		for (; p && *p; p = *eol ? eol + 1 : eol) {
			const char *v, *b, *q;

			eol = strchrnul(p, '\n');
			if (skip_prefix(p, "diff --git ", &v)) {
				/* "a/X b/Y": split at the last " b/" */
				b = NULL;
				for (q = v; q + 3 < eol; q++)
					if (!strncmp(q, " b/", 3))
						b = q;
				if (b) {
					consider(v, b - v, f, &seen, out, &nr);
					consider(b + 1, eol - b - 1, f, &seen,
						 out, &nr);
				}
			} else if (skip_prefix(p, "+++ ", &v) ||
				   skip_prefix(p, "--- ", &v)) {
				size_t len = eol - v;
				const char *tab = memchr(v, '\t', len);

				consider(v, tab ? (size_t)(tab - v) : len, f,
					 &seen, out, &nr);
			}
		}
	}
	strbuf_release(&seen);
	return nr;
}
