// SPDX-License-Identifier: GPL-2.0
/*
 * discover.c - Atom entries to candidate series, diffs to a keep decision,
 * a kept series to its rows and its one job.
 *
 * Workload: one feed per poll (lore's new.atom: the last 25 messages of
 * the list, about 100 KiB), a poll every few minutes; one pass over the
 * diffs of each new series. The feed is untrusted XML: libxml2 parses it
 * without network access and without expanding entities, and every field
 * kept is cut at DISCOVER_MAX_FIELD bytes. The series of both sources
 * (the feed's threads, the inbox's history: inbox.c) are stored and
 * queued by discover_take_series(), a few a day, each a few MiB at most.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "aim.h"
#include "claims.h"
#include "config.h"
#include "db.h"
#include "discover.h"
#include "ingest.h"
#include "job.h"
#include "mbox.h"
#include "notice.h"
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

/* ---- threads into the database ------------------------------------ */

/*
 * A message id as public-inbox puts it in a URL: without <>, and every
 * byte outside its safe set (RFC 3986 unreserved and sub-delims, ':' and
 * '@') percent-encoded; '/', '%', '?' and '#' must not reach the server
 * raw.
 */
void discover_add_msgid(struct strbuf *sb, const char *id)
{
	static const char safe[] = "-._~!$&'()*+,;=:@";
	size_t len = strlen(id);

	if (len && id[0] == '<' && id[len - 1] == '>') {
		id++;
		len -= 2;
	}
	for (; len; id++, len--) {
		unsigned char c = *id;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c && strchr(safe, c)))
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* the mm-commits notices of a thread: stored, linked, printed */
static int ingest_notices(struct db *db, const struct loaded_series *ls,
			  long long thread_id)
{
	size_t i, k;
	int nr = 0;

	for (i = 0; i < ls->nr_mails; i++) {
		const struct mail *m = &ls->mails[i];
		struct notice_link link;
		struct notice n;

		if (!notice_parse(m->subject, m->body.buf, &n)) {
			notice_release(&n);
			continue;
		}
		nr++;
		if (n.action == NOTICE_ADDED)
			printf("  mm-commits notice: '%s' added to %s\n",
			       n.filename, n.branch ? n.branch : "-mm tree");
		else if (n.action == NOTICE_MERGED)
			printf("  mm-commits notice: '%s' merged into %s\n",
			       n.filename, n.branch);
		else
			printf("  mm-commits notice: '%s' removed from -mm "
			       "tree\n", n.filename);
		printf("    patch: %s\n", n.title);
		if (n.author)
			printf("    author: %s\n", n.author);
		for (k = 0; k < n.nr_links; k++)
			printf("    link: %s\n", n.links[k]);
		if (n.reason)
			printf("    reason: %s\n", n.reason);
		if (n.problem)
			printf("    problem: %s\n", n.problem);
		if (notice_store(db, &n, m, thread_id, &link) < 0) {
			notice_release(&n);
			return -1;
		}
		if (link.patch_id)
			printf("    linked: notice #%lld -> patch #%lld (%d/%d "
			       "of series #%lld) by %s%s\n", link.notice_id,
			       link.patch_id, link.patch_idx,
			       link.series_total, link.series_id, link.how,
			       link.existing ? " (notice already stored)" :
			       "");
		else
			printf("    not linked: notice #%lld, no stored patch "
			       "has a Link: message id or the title%s\n",
			       link.notice_id, link.existing ?
			       " (notice already stored)" : "");
		notice_release(&n);
	}
	return nr;
}

static void print_summary(const struct ingest_source *src,
			  const struct loaded_series *ls,
			  const struct ingest_report *rep)
{
	const struct series *s = &ls->s;
	size_t i;

	printf("thread #%lld: %zu message(s) from %s%s\n", rep->thread_id,
	       rep->nr_messages, src->source,
	       rep->existing ? " (already ingested)" : "");
	if (rep->has_series) {
		printf("series #%lld: %s\n", ls->id, s->title);
		printf("  version: v%d%s, %zu of %d patch(es) found%s\n",
		       s->version, s->is_rfc ? " (RFC)" : "", s->nr, s->total,
		       s->cover ? ", with a cover letter" : "");
		printf("  trailers: %zu from replies (%zu via the cover "
		       "letter)\n", rep->nr_reply_trailers,
		       rep->nr_cover_trailers);
		if (s->base_commit)
			printf("  base-commit: %s\n", s->base_commit);
		for (i = 0; i < s->nr_missing; i++)
			printf("%s%d/%d%s", i ? ", " : "  problem: missing "
			       "patch(es) ", s->missing[i], s->total,
			       i + 1 == s->nr_missing ? "\n" : "");
		for (i = 0; i < s->nr_problems; i++)
			if (!ends_with(s->problems[i], "patches missing"))
				printf("  problem: %s\n", s->problems[i]);
		if (rep->previous.id)
			printf("  previous version: series #%lld (v%d), "
			       "linked by %s\n", rep->previous.id,
			       rep->previous.version, rep->previous.how);
		if (rep->next.id)
			printf("  next version: series #%lld (v%d) now links "
			       "here, by %s%s\n", rep->next.id,
			       rep->next.version, rep->next.how,
			       rep->nr_next > 1 ? " (and others)" : "");
		if (rep->nr_notices)
			printf("  mm-commits notices now linked: %d\n",
			       rep->nr_notices);
	}
	if (rep->problem)
		printf("  thread: %s\n", rep->problem);
	printf("  messages with problems: %zu of %zu\n",
	       rep->nr_problem_messages, rep->nr_messages);
}

int discover_store_thread(struct db *db, const char *path,
			  struct ingest_source *src, long long *series_id)
{
	struct strbuf mbox = STRBUF_INIT, damage = STRBUF_INIT;
	struct loaded_series ls;
	struct ingest_report rep;
	int ret = 1, nr_notices = 0;

	memset(&ls, 0, sizeof(ls));
	memset(&rep, 0, sizeof(rep));
	if (mbox_read_file(path, &mbox, &damage) < 0)
		goto out;
	src->damage = damage.len ? damage.buf : NULL;
	if (ingest_thread(db, mbox.buf, mbox.len, src, &ls, &rep) < 0)
		goto out;
	print_summary(src, &ls, &rep);
	if (series_id)
		*series_id = ls.id;
	/*
	 * The claims of the mails, now: a job reads the series from its
	 * rows (ingest_load_stored()) and parses no mail, the cover letter
	 * included.
	 */
	if (rep.has_series && ls.id && claims_store(db, &ls) < 0)
		warning("the claims of series #%lld were not stored", ls.id);
	if (!rep.has_series) {
		nr_notices = ingest_notices(db, &ls, rep.thread_id);
		if (nr_notices < 0)
			goto out;
	}
	if (damage.len) {
		error("%s in '%s'; the %zu byte(s) inflated before it were "
		      "parsed and stored (thread #%lld)", damage.buf, path,
		      mbox.len, rep.thread_id);
	} else if (!rep.has_series && nr_notices) {
		ret = 0;
	} else if (!rep.has_series) {
		error("no patch series in '%s' (%zu message(s) stored)",
		      src->source, rep.nr_messages);
	} else {
		ret = 0;
	}
out:
	loaded_series_release(&ls);
	ingest_report_release(&rep);
	strbuf_release(&mbox);
	strbuf_release(&damage);
	return ret;
}

/*
 * The options of series @id's job, as JSON (aim.h): the workloads and the
 * size its paths and claims call for, from kernel-patches/aim.map
 * (MMCI_AIM_MAP). NULL, with a warning, when the map cannot be read: the
 * job then runs on the defaults of `mmci run`.
 */
static char *series_aim(const struct mmci_config *cfg, struct db *db,
			long long id)
{
	const char *env = getenv("MMCI_AIM_MAP");
	char *path = env && *env ? xstrdup(env) :
				   project_path(cfg, "kernel-patches/aim.map");
	struct aim_map map;
	struct aim a = AIM_INIT;
	char *json = NULL;

	if (aim_map_load(path, &map) < 0) {
		warning("series #%lld: no aim (%s): its job runs on the "
			"defaults", id, last_error());
		free(path);
		return NULL;
	}
	if (aim_series(db, id, &map, config_number("MMCI_AIM_MAX_NVDIMM") >> 20,
		       &a) == 0) {
		struct strbuf w = STRBUF_INIT;

		aim_workloads(a.workloads, &w);
		printf("  aim: %s: %s\n", w.buf, a.why.buf);
		json = aim_params_json(&a);
		strbuf_release(&w);
	} else {
		warning("series #%lld: no aim (%s): its job runs on the "
			"defaults", id, last_error());
	}
	aim_release(&a);
	aim_map_release(&map);
	free(path);
	return json;
}

/* ---- a series found on the list, to a job -------------------------- */

int discover_series_job(struct db *db, const char *msgid,
			long long *series_id, long long *job_id)
{
	int rc;

	*series_id = *job_id = 0;
	/* the thread of a cover letter and of its patch 1 is one thread */
	rc = db_int_checked(db, series_id, "SELECT m.series_id FROM messages "
			    "m JOIN jobs j ON j.series_id = m.series_id AND "
			    "j.kind = 'series' WHERE m.message_id = ? ORDER BY "
			    "m.series_id DESC LIMIT 1", "t", msgid);
	if (rc <= 0)
		return rc;
	if (db_int_checked(db, job_id, "SELECT id FROM jobs WHERE kind = "
			   "'series' AND series_id = ? ORDER BY id LIMIT 1",
			   "i", *series_id) < 0)
		return -1;
	return 1;
}

void discover_take_release(struct discover_take *t)
{
	free(t->decision);
	strbuf_release(&t->paths);
	memset(t, 0, sizeof(*t));
	strbuf_init(&t->paths, 0);
}

int discover_take_series(struct db *db, const struct mmci_config *cfg,
			 const char *path, struct ingest_source *src,
			 const struct path_filter *f, struct discover_take *t)
{
	struct strbuf mbox = STRBUF_INIT, damage = STRBUF_INIT;
	struct mail *mails = NULL;
	struct series s = { 0 };
	size_t nr_mails = 0;
	char *params;
	int ret = 0;

	if (mbox_read_file(path, &mbox, &damage) < 0 ||
	    mbox_parse(mbox.buf, mbox.len, &mails, &nr_mails) < 0) {
		t->decision = xstrfmt("error: %s", last_error());
		goto out;
	}
	if (series_from_mails(mails, nr_mails, &s) < 0) {
		t->decision = xstrdup("error: no patch series in the thread");
		goto out;
	}
	t->nr_paths = discover_series_paths(&s, f, &t->paths);
	if (!t->nr_paths) {
		t->decision = xstrdup("skipped: no mm path");
		goto out;
	}
	discover_store_thread(db, path, src, &t->series_id);
	if (!t->series_id) {
		t->decision = xstrfmt("error: %s", last_error());
		goto out;
	}
	/* one job per series, however many entries lead to it, aimed at
	 * what it changes (aim.h), here where mail is parsed: the daemon
	 * only checks the values */
	params = series_aim(cfg, db, t->series_id);
	t->job_id = job_queue_series(db, t->series_id, params, &t->queued);
	free(params);
	if (t->job_id < 0) {
		t->job_id = 0;
		ret = -1;
		goto out;
	}
	t->decision = xstrdup("kept");
out:
	series_release(&s);
	mails_free(mails, nr_mails);
	strbuf_release(&mbox);
	strbuf_release(&damage);
	return ret;
}
