// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-ingest.c - `mmci ingest`: find work.
 *
 *   mmci ingest tree ...             a git tree (cmd-ingest-tree.c)
 *   mmci ingest series MSGID         a thread from lore, as t.mbox.gz
 *   mmci ingest FILE                 a thread from a local mbox (or .gz)
 *   mmci ingest discover             new mm series from the list's feed
 *   mmci ingest inbox                every new mm series, from the list's
 *                                    public-inbox git history (inbox.c)
 *
 * A thread is stored whole (every mail, with the reason it was odd) and
 * the series found in it is stored even when patches are missing: ingest
 * records what was posted, apply refuses what cannot be applied.
 */
#include <getopt.h>
#include <time.h>

#include "aim.h"
#include "builtin.h"
#include "claims.h"
#include "config.h"
#include "db.h"
#include "discover.h"
#include "fetch.h"
#include "fsutil.h"
#include "inbox.h"
#include "ingest.h"
#include "job.h"
#include "notice.h"
#include "strbuf.h"
#include "util.h"

#define DEFAULT_LORE_URL "https://lore.kernel.org/all/"

static const char ingest_usage[] =
	"usage: mmci ingest tree [options]\n"
	"       mmci ingest series MSGID [--base-url URL] [--list NAME] "
	"[--refresh]\n"
	"       mmci ingest FILE\n"
	"       mmci ingest discover [--feed URL] [--filter REGEX]...\n"
	"       mmci ingest commits [--feed URL]\n"
	"       mmci ingest inbox [--url URL] [--name NAME] [--start tip|all] "
	"[--reset]\n"
	"                         [--filter REGEX]...\n"
	"\n"
	"'series' fetches the thread of MSGID as t.mbox.gz from a\n"
	"public-inbox (lore) and stores every mail and the series in it;\n"
	"FILE is a local mbox or .eml, plain or gzip.\n"
	"\n"
	"  --base-url URL   the inbox (" DEFAULT_LORE_URL ";\n"
	"                   env MMCI_LORE_URL)\n"
	"  --list NAME      another inbox of the same server: the last part\n"
	"                   of the base URL is replaced (all -> NAME)\n"
	"  --refresh        ask the server whether a thread fetched before\n"
	"                   has changed (a conditional request); without it a\n"
	"                   thread on disk is used without any request\n"
	"\n"
	"'discover' polls the list's Atom feed (a conditional request every\n"
	"time), fetches the thread of every new series (cover letter, patch 1\n"
	"or single patch; no replies) and keeps it when a diff touches mm;\n"
	"a kept series is stored and a 'series' job queued for it.\n"
	"\n"
	"  --feed URL       the feed (" DISCOVER_DEFAULT_FEED ";\n"
	"                   env MMCI_DISCOVER_FEED)\n"
	"  --filter REGEX   also keep a series with a path matching REGEX\n"
	"                   (POSIX extended; repeatable; env\n"
	"                   MMCI_DISCOVER_PATHS, blank-separated); mm/,\n"
	"                   include/linux/mm*, drivers/nvdimm/, drivers/dax/,\n"
	"                   drivers/virtio/virtio_mem* always count\n"
	"\n"
	"'inbox' follows the list through its public-inbox v2 git history,\n"
	"as a mirror does: it fetches the inbox's epochs (URL/git/N.git)\n"
	"into <data>/fetch/inbox/NAME and reads every message after its\n"
	"mark, oldest first. A series is taken when its cover letter and all\n"
	"its patches are there, or MMCI_SERIES_WAIT_S seconds after its first\n"
	"mail (what never arrived is noted); kept as 'discover' keeps it,\n"
	"one job per series whichever source found it.\n"
	"\n"
	"  --url URL        the inbox (" INBOX_DEFAULT_URL ";\n"
	"                   env MMCI_INBOX_URL)\n"
	"  --name NAME      its name, for the mark and the mirror (default\n"
	"                   the URL's last part; env MMCI_INBOX_NAME)\n"
	"  --start tip|all  where a new mark starts: the newest epoch's tip\n"
	"                   (nothing before it is read) or the first epoch's\n"
	"                   first message (env MMCI_INBOX_START; tip)\n"
	"  --reset          forget the mark first (a message read before is\n"
	"                   still not taken twice)\n"
	"  --filter REGEX   as for 'discover'\n"
	"\n"
	"'commits' polls the mm-commits list's feed (" COMMITS_DEFAULT_FEED
	";\n"
	"env MMCI_COMMITS_FEED), stores each new notice's thread and links the\n"
	"notices (patch added to, merged into or removed from akpm's branches)\n"
	"to the patches and series stored.\n"
	"\n"
	"environment: MMCI_FETCH_ATTEMPTS (4), MMCI_FETCH_BACKOFF_MS (1000),\n"
	"MMCI_FETCH_MAX_BACKOFF_MS (60000), MMCI_FETCH_INTERVAL_MS (1000),\n"
	"MMCI_FETCH_TIMEOUT (120 s), MMCI_FETCH_MAX_SIZE (256M)\n";

static char *thread_url(const char *base, const char *list, const char *id)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, base);
	if (list) {
		/* https://lore.kernel.org/all/ -> https://lore.kernel.org/ */
		strbuf_rtrim(&sb);
		while (sb.len && sb.buf[sb.len - 1] == '/')
			strbuf_setlen(&sb, sb.len - 1);
		while (sb.len && sb.buf[sb.len - 1] != '/')
			strbuf_setlen(&sb, sb.len - 1);
		strbuf_addstr(&sb, list);
	}
	if (!sb.len || sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	discover_add_msgid(&sb, id);
	strbuf_addstr(&sb, "/t.mbox.gz");
	return strbuf_detach(&sb, NULL);
}

static int ingest_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base-url", required_argument, NULL, 'u' },
		{ "list", required_argument, NULL, 'l' },
		{ "refresh", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *base = getenv("MMCI_LORE_URL"), *list = NULL;
	struct ingest_source src = { 0 };
	struct fetch_result res = { 0 };
	struct fetch_opts fo;
	struct mmci_config cfg;
	struct db db;
	char *url;
	int c, ret = 1;

	fetch_opts_init(&fo);
	if (!base || !*base)
		base = DEFAULT_LORE_URL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': base = optarg; break;
		case 'l': list = optarg; break;
		case 'r': fo.refresh = 1; break;
		case 'h':
			fputs(ingest_usage, stdout);
			return 0;
		default:
			fputs(ingest_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 1 || !*argv[optind]) {
		fputs(ingest_usage, stderr);
		return 129;
	}
	if (list && (!*list || strchr(list, '/')))
		die("--list wants an inbox name like linux-mm, not '%s'", list);
	url = thread_url(base, list, argv[optind]);
	setup_command(&cfg, &db);
	if (fetch_url(&cfg, url, &fo, &res) < 0) {
		error("nothing stored for '%s'", argv[optind]);
		goto out;
	}
	if (res.from_cache && !res.requests)
		log_info("'%s' is on disk, not fetched again (--refresh asks "
			 "the server)", url);
	src.source = url;
	src.url = url;
	src.cache_path = res.path;
	src.fetched_at = res.fetched_at;
	ret = discover_store_thread(&db, res.path, &src, NULL);
out:
	fetch_result_release(&res);
	free(url);
	db_close(&db);
	config_release(&cfg);
	return ret;
}

static int ingest_file(int argc, char **argv)
{
	struct ingest_source src = { 0 };
	struct mmci_config cfg;
	struct db db;
	char *abs;
	int ret;

	if (argc != 2) {
		fputs(ingest_usage, stderr);
		return 129;
	}
	if (check_input_file(argv[1], "an mbox file") < 0)
		return 1;
	abs = real_path(argv[1]);
	setup_command(&cfg, &db);
	src.source = argv[1];
	src.cache_path = abs;
	ret = discover_store_thread(&db, abs, &src, NULL);
	free(abs);
	db_close(&db);
	config_release(&cfg);
	return ret;
}

/* tries of an entry whose thread could not be fetched or read */
#define DISCOVER_MAX_ATTEMPTS 3

struct discover_stats {
	size_t kept, skipped, errors, seen;
	size_t replies, later, other, bad_links;
};

static int record_entry(struct db *db, const char *feed,
			const struct feed_entry *e, const char *msgid,
			const char *decision, const char *paths,
			long long series_id, long long job_id)
{
	char *author = xstrfmt("%s <%s>", e->author_name, e->author_email);
	int ret;

	if (db_int(db, 0, "SELECT count(*) FROM discovered WHERE "
		   "message_id = ?", "t", msgid))
		ret = db_run(db, "UPDATE discovered SET decision = ?, paths = "
			     "?, series_id = ?, job_id = ?, attempts = "
			     "attempts + 1, seen_at = ? WHERE message_id = ?",
			     "ttIIdt", decision, paths, series_id, job_id,
			     (double)time(NULL), msgid);
	else
		ret = db_run(db, "INSERT INTO discovered (message_id, "
			     "feed_url, entry_id, title, link, author, "
			     "updated, decision, paths, series_id, job_id, "
			     "seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
			     "?, ?)", "ttttttttt" "IId", msgid, feed, e->id,
			     e->title, e->link, author, e->updated, decision,
			     paths, series_id, job_id, (double)time(NULL));
	free(author);
	return ret;
}

/* do @a and @b share scheme, host and port ("https://host:port/")? */
static int same_origin(const char *a, const char *b)
{
	const char *pa = strstr(a, "://"), *pb = strstr(b, "://");
	size_t la, lb;

	if (!pa || !pb)
		return 0;
	la = pa + 3 - a + strcspn(pa + 3, "/?#");
	lb = pb + 3 - b + strcspn(pb + 3, "/?#");
	return la == lb && !strncasecmp(a, b, la);
}

/*
 * One entry that opens a series: fetch its thread unless it was decided
 * before, keep it if it touches the filter's paths. Returns -1 only when
 * the database fails; a bad thread is a decision like any other.
 */
static int discover_entry(struct db *db, const struct mmci_config *cfg,
			  const struct fetch_opts *fo, const char *feed,
			  const struct feed_entry *e,
			  const struct path_filter *f,
			  struct discover_stats *st)
{
	struct fetch_result res = { 0 };
	struct discover_take t = DISCOVER_TAKE_INIT;
	struct ingest_source src = { 0 };
	char *turl = NULL, *msgid;
	sqlite3_stmt *q;
	int ret = -1, rc;

	msgid = discover_link_msgid(e->link, &turl);
	if (!msgid) {
		warning("feed entry '%s': link '%s' names no message", e->title,
			e->link);
		st->bad_links++;
		return 0;
	}
	q = db_query(db, "SELECT decision, attempts FROM discovered WHERE "
		     "message_id = ?", "t", msgid);
	if (!q)
		goto out;
	rc = db_step(db, q);
	if (rc < 0) {
		sqlite3_finalize(q);
		goto out;
	}
	if (rc == DB_ROW &&
	    (!starts_with(db_col_text(q, 0), "error:") ||
	     sqlite3_column_int(q, 1) >= DISCOVER_MAX_ATTEMPTS)) {
		sqlite3_finalize(q);
		st->seen++;
		ret = 0;
		goto out;
	}
	sqlite3_finalize(q);
	printf("new: %s\n  <%s>\n", e->title, msgid);
	fflush(stdout);
	rc = discover_series_job(db, msgid, &t.series_id, &t.job_id);
	if (rc < 0)
		goto out;
	if (rc) {
		t.decision = xstrdup("kept");
		strbuf_addstr(&t.paths,
			      "(a mail of a series discovered before)");
		goto decided;
	}
	if (!same_origin(feed, turl)) {
		t.decision = xstrfmt("error: the link '%s' is not on the "
				     "feed's server", e->link);
		goto decided;
	}
	if (fetch_url(cfg, turl, fo, &res) < 0) {
		t.decision = xstrfmt("error: %s", last_error());
		goto decided;
	}
	src.source = turl;
	src.url = turl;
	src.cache_path = res.path;
	src.fetched_at = res.fetched_at;
	if (discover_take_series(db, cfg, res.path, &src, f, &t) < 0)
		goto out;
decided:
	if (!strcmp(t.decision, "kept")) {
		if (t.nr_paths)
			printf("  kept: series #%lld, job #%lld (%zu mm "
			       "path(s): %s)\n", t.series_id, t.job_id,
			       t.nr_paths, t.paths.buf);
		else
			printf("  kept: series #%lld, job #%lld %s\n",
			       t.series_id, t.job_id, t.paths.buf);
		st->kept++;
	} else if (starts_with(t.decision, "skipped")) {
		printf("  %s\n", t.decision);
		st->skipped++;
	} else {
		printf("  %s\n", t.decision);
		st->errors++;
	}
	if (record_entry(db, feed, e, msgid, t.decision,
			 t.paths.len ? t.paths.buf : NULL, t.series_id,
			 t.job_id) < 0)
		goto out;
	ret = 0;
out:
	discover_take_release(&t);
	fetch_result_release(&res);
	free(msgid);
	free(turl);
	return ret;
}

static int add_env_filters(struct path_filter *f)
{
	const char *env = getenv("MMCI_DISCOVER_PATHS");
	char *copy, *p, *save = NULL;
	int ret = 0;

	if (!env || !*env)
		return 0;
	copy = xstrdup(env);
	for (p = strtok_r(copy, " \t\n", &save); p && !ret;
	     p = strtok_r(NULL, " \t\n", &save))
		ret = path_filter_add(f, p);
	free(copy);
	return ret;
}

/*
 * The entries of an Atom feed, asked for conditionally every time (a
 * feed changes all the time). Return: 0, or -1 after error().
 */
static int poll_feed(const struct mmci_config *cfg, const char *feed,
		     struct feed_entry **entries, size_t *nr)
{
	struct fetch_result res = { 0 };
	struct strbuf body = STRBUF_INIT, why = STRBUF_INIT;
	struct fetch_opts fo;
	int ret = -1;

	fetch_opts_init(&fo);
	fo.refresh = 1;
	if (fo.max_bytes > DISCOVER_MAX_FEED_SIZE)
		fo.max_bytes = DISCOVER_MAX_FEED_SIZE;
	if (fetch_url(cfg, feed, &fo, &res) < 0) {
		error("cannot poll the feed '%s'; nothing stored", feed);
		goto out;
	}
	if (strbuf_read_file(&body, res.path, 0) < 0) {
		error_errno("cannot read '%s'", res.path);
		goto out;
	}
	if (discover_parse_feed(body.buf, body.len, entries, nr, &why) < 0) {
		error("malformed feed '%s': %s; nothing stored", feed, why.buf);
		goto out;
	}
	printf("feed %s: %zu entr%s%s\n", feed, *nr, *nr == 1 ? "y" : "ies",
	       res.from_cache && res.requests ?
	       ", not modified (HTTP 304)" : "");
	ret = 0;
out:
	fetch_result_release(&res);
	strbuf_release(&body);
	strbuf_release(&why);
	return ret;
}

/*
 * One entry of the mm-commits feed: its thread fetched and stored, the
 * notices in it linked to the stored patches (discover_store_thread()).
 * An entry seen before is not fetched again, unless it failed fewer than
 * DISCOVER_MAX_ATTEMPTS times. 1 stored, 0 seen, -1 failed (said).
 */
static int commits_entry(struct db *db, const struct mmci_config *cfg,
			 const struct fetch_opts *fo, const char *feed,
			 const struct feed_entry *e)
{
	struct fetch_result res = { 0 };
	struct ingest_source src = { 0 };
	char *turl = NULL, *msgid, *decision = NULL;
	int ret = -1;

	msgid = discover_link_msgid(e->link, &turl);
	if (!msgid) {
		printf("  no message link: '%s'\n", e->title);
		return 0;
	}
	if (db_int(db, 0, "SELECT count(*) FROM discovered WHERE message_id "
		   "= ? AND (decision NOT LIKE 'error%' OR attempts >= ?)",
		   "ti", msgid, (long long)DISCOVER_MAX_ATTEMPTS)) {
		ret = 0;
		goto out;
	}
	if (!same_origin(feed, turl))
		decision = xstrfmt("error: the link '%s' is not on the feed's "
				   "server", e->link);
	else if (fetch_url(cfg, turl, fo, &res) < 0)
		decision = xstrfmt("error: %s", last_error());
	if (!decision) {
		src.source = turl;
		src.url = turl;
		src.cache_path = res.path;
		src.fetched_at = res.fetched_at;
		if (discover_store_thread(db, res.path, &src, NULL))
			decision = xstrfmt("error: %s", last_error());
		else
			decision = xstrfmt("notice: %lld stored",
					   db_int(db, 0, "SELECT count(*) FROM "
						  "notices WHERE message_id = "
						  "?", "t", msgid));
	}
	printf("  %s: %s\n", e->title, decision);
	if (record_entry(db, feed, e, msgid, decision, NULL, 0, 0) < 0)
		goto out;
	ret = starts_with(decision, "error") ? -1 : 1;
out:
	fetch_result_release(&res);
	free(decision);
	free(msgid);
	free(turl);
	return ret;
}

/*
 * `mmci ingest commits`: the mm-commits list's feed, where akpm's scripts
 * announce each patch added to, moved between or dropped from his
 * branches. Its notices are linked to the patches and series stored
 * (notice.c) as they arrive.
 */
static int ingest_commits(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "feed", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *feed = getenv("MMCI_COMMITS_FEED");
	struct feed_entry *entries = NULL;
	struct fetch_opts fo;
	struct mmci_config cfg;
	struct db db;
	size_t nr = 0, i, stored = 0, seen = 0, errors = 0;
	int c, r;

	if (!feed || !*feed)
		feed = COMMITS_DEFAULT_FEED;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': feed = optarg; break;
		case 'h':
			fputs(ingest_usage, stdout);
			return 0;
		default:
			fputs(ingest_usage, stderr);
			return 129;
		}
	}
	if (argc != optind) {
		fputs(ingest_usage, stderr);
		return 129;
	}
	fetch_opts_init(&fo);
	setup_command(&cfg, &db);
	if (poll_feed(&cfg, feed, &entries, &nr) < 0) {
		errors++;
		goto out;
	}
	/* oldest first: a notice that moves a patch follows the one that added it */
	for (i = nr; i-- > 0; ) {
		r = commits_entry(&db, &cfg, &fo, feed, &entries[i]);
		if (r > 0)
			stored++;
		else if (!r)
			seen++;
		else
			errors++;
	}
	printf("mm-commits: %zu entr%s stored, %zu seen before, %zu "
	       "error(s)\n", stored, stored == 1 ? "y" : "ies", seen, errors);
out:
	feed_entries_free(entries, nr);
	db_close(&db);
	config_release(&cfg);
	return errors ? 1 : 0;
}

static int ingest_discover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "feed", required_argument, NULL, 'f' },
		{ "filter", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *feed = getenv("MMCI_DISCOVER_FEED");
	struct discover_stats st = { 0 };
	struct feed_entry *entries = NULL;
	struct fetch_opts thread_fo;
	struct path_filter f;
	struct mmci_config cfg;
	struct db db;
	size_t nr = 0, i;
	int c, ret = 1;

	if (!feed || !*feed)
		feed = DISCOVER_DEFAULT_FEED;
	path_filter_init(&f);
	if (add_env_filters(&f) < 0) {
		path_filter_release(&f);
		return 129;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': feed = optarg; break;
		case 'F':
			if (path_filter_add(&f, optarg) < 0) {
				path_filter_release(&f);
				return 129;
			}
			break;
		case 'h':
			path_filter_release(&f);
			fputs(ingest_usage, stdout);
			return 0;
		default:
			path_filter_release(&f);
			fputs(ingest_usage, stderr);
			return 129;
		}
	}
	if (argc != optind) {
		path_filter_release(&f);
		fputs(ingest_usage, stderr);
		return 129;
	}
	fetch_opts_init(&thread_fo);
	setup_command(&cfg, &db);
	if (poll_feed(&cfg, feed, &entries, &nr) < 0)
		goto out;
	for (i = 0; i < nr; i++) {
		switch (discover_classify(entries[i].title)) {
		case ENTRY_SERIES:
			if (discover_entry(&db, &cfg, &thread_fo, feed,
					   &entries[i], &f, &st) < 0)
				goto out;
			break;
		case ENTRY_REPLY: st.replies++; break;
		case ENTRY_LATER_PATCH: st.later++; break;
		case ENTRY_OTHER: st.other++; break;
		}
	}
	printf("discovered: %zu kept, %zu skipped, %zu error(s), %zu seen "
	       "before; ignored: %zu repl%s, %zu later patch(es), %zu not "
	       "patches, %zu without a message link\n", st.kept, st.skipped,
	       st.errors, st.seen, st.replies, st.replies == 1 ? "y" : "ies",
	       st.later, st.other, st.bad_links);
	ret = st.errors ? 1 : 0;
out:
	feed_entries_free(entries, nr);
	path_filter_release(&f);
	db_close(&db);
	config_release(&cfg);
	return ret;
}

static int parse_start(const char *v)
{
	if (!v || !*v || !strcmp(v, "tip"))
		return 0;
	if (!strcmp(v, "all"))
		return 1;
	return -1;
}

/*
 * `mmci ingest inbox`: one pass over the list's public-inbox history
 * (inbox.c), the series it completes stored and queued as discover's.
 */
static int ingest_inbox(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "name", required_argument, NULL, 'n' },
		{ "start", required_argument, NULL, 's' },
		{ "reset", no_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct inbox_opts o = { 0 };
	struct inbox_stats st;
	struct path_filter f;
	struct mmci_config cfg;
	struct db db;
	const char *start = getenv("MMCI_INBOX_START");
	int c, ret = 129;

	o.url = getenv("MMCI_INBOX_URL");
	if (!o.url || !*o.url)
		o.url = INBOX_DEFAULT_URL;
	o.name = getenv("MMCI_INBOX_NAME");
	path_filter_init(&f);
	if (add_env_filters(&f) < 0)
		goto usage_out;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'n': o.name = optarg; break;
		case 's': start = optarg; break;
		case 'r': o.reset = 1; break;
		case 'F':
			if (path_filter_add(&f, optarg) < 0)
				goto usage_out;
			break;
		case 'h':
			fputs(ingest_usage, stdout);
			ret = 0;
			goto usage_out;
		default:
			fputs(ingest_usage, stderr);
			goto usage_out;
		}
	}
	if (argc != optind) {
		fputs(ingest_usage, stderr);
		goto usage_out;
	}
	o.start_all = parse_start(start);
	if (o.start_all < 0) {
		error("--start wants 'tip' or 'all', not '%s'", start);
		goto usage_out;
	}
	o.filter = &f;
	/* defaults and range in config.c; a bad value die()s, naming it */
	o.wait_s = config_number("MMCI_SERIES_WAIT_S");
	setup_command(&cfg, &db);
	ret = inbox_follow(&db, &cfg, &o, &st) < 0 ? 1 : 0;
	printf("inbox: %zu message(s) read (%zu read before), mark in epoch "
	       "%d; %zu series mail(s), %zu repl%s, %zu other(s), %zu "
	       "refused, %zu late; series: %zu queued (%zu with mails "
	       "missing), %zu skipped, %zu superseded, %zu failed, %zu "
	       "waiting\n", st.read, st.seen, st.epoch, st.mails, st.replies,
	       st.replies == 1 ? "y" : "ies", st.others, st.refused, st.late,
	       st.queued, st.partial, st.skipped, st.superseded, st.failed,
	       st.waiting);
	db_close(&db);
	config_release(&cfg);
usage_out:
	path_filter_release(&f);
	return ret;
}

int cmd_ingest(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "tree"))
		return cmd_ingest_tree(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "series"))
		return ingest_series(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "discover"))
		return ingest_discover(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "commits"))
		return ingest_commits(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "inbox"))
		return ingest_inbox(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		fputs(ingest_usage, stdout);
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-')
		return ingest_file(argc, argv);
	fputs(ingest_usage, stderr);
	return 129;
}
