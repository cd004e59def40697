// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-ingest.c - `mmci ingest`: find work.
 *
 *   mmci ingest tree ...             a git tree (cmd-ingest-tree.c)
 *   mmci ingest series MSGID         a thread from lore, as t.mbox.gz
 *   mmci ingest FILE                 a thread from a local mbox (or .gz)
 *
 * A thread is stored whole (every mail, with the reason it was odd) and
 * the series found in it is stored even when patches are missing: ingest
 * records what was posted, apply refuses what cannot be applied.
 */
#include <getopt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fetch.h"
#include "fsutil.h"
#include "ingest.h"
#include "strbuf.h"
#include "util.h"

#define DEFAULT_LORE_URL "https://lore.kernel.org/all/"

static const char ingest_usage[] =
	"usage: mmci ingest tree [options]\n"
	"       mmci ingest series MSGID [--base-url URL] [--list NAME] "
	"[--refresh]\n"
	"       mmci ingest FILE\n"
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
	"environment: MMCI_FETCH_ATTEMPTS (4), MMCI_FETCH_BACKOFF_MS (1000),\n"
	"MMCI_FETCH_MAX_BACKOFF_MS (60000), MMCI_FETCH_INTERVAL_MS (1000),\n"
	"MMCI_FETCH_TIMEOUT (120 s), MMCI_FETCH_MAX_SIZE (256M)\n";

/*
 * A message id as public-inbox puts it in a URL: without <>, and every
 * byte outside its safe set (RFC 3986 unreserved and sub-delims, ':' and
 * '@') percent-encoded; '/', '%', '?' and '#' must not reach the server
 * raw.
 */
static void add_msgid_escaped(struct strbuf *sb, const char *id)
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
	add_msgid_escaped(&sb, id);
	strbuf_addstr(&sb, "/t.mbox.gz");
	return strbuf_detach(&sb, NULL);
}

/* an mm-commits notice: "+ foo.patch added to mm-new branch" */
static int mm_commits_notice(const struct loaded_series *ls,
			     struct strbuf *out)
{
	size_t i;

	for (i = 0; i < ls->nr_mails; i++) {
		const char *subj = ls->mails[i].subject, *p, *added;

		if (!skip_prefix(subj, "+ ", &p))
			continue;
		added = strstr(p, ".patch added to ");
		if (!added || !ends_with(subj, " branch"))
			continue;
		strbuf_addf(out,
			    "mm-commits notice: '%.*s.patch' added to %.*s",
			    (int)(added - p), p,
			    (int)(strlen(added) - 16 - 7), added + 16);
		return 1;
	}
	return 0;
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
	}
	if (rep->problem)
		printf("  thread: %s\n", rep->problem);
	printf("  messages with problems: %zu of %zu\n",
	       rep->nr_problem_messages, rep->nr_messages);
}

static int ingest_one(struct db *db, const char *path,
		      struct ingest_source *src)
{
	struct strbuf mbox = STRBUF_INIT, damage = STRBUF_INIT;
	struct strbuf notice = STRBUF_INIT;
	struct loaded_series ls;
	struct ingest_report rep;
	int ret = 1;

	memset(&ls, 0, sizeof(ls));
	memset(&rep, 0, sizeof(rep));
	if (mbox_read_file(path, &mbox, &damage) < 0)
		goto out;
	src->damage = damage.len ? damage.buf : NULL;
	if (ingest_thread(db, mbox.buf, mbox.len, src, &ls, &rep) < 0)
		goto out;
	print_summary(src, &ls, &rep);
	if (damage.len) {
		error("%s in '%s'; the %zu byte(s) inflated before it were "
		      "parsed and stored (thread #%lld)", damage.buf, path,
		      mbox.len, rep.thread_id);
	} else if (!rep.has_series && mm_commits_notice(&ls, &notice)) {
		printf("  %s\n", notice.buf);
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
	strbuf_release(&notice);
	return ret;
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
	ret = ingest_one(&db, res.path, &src);
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
	if (!file_exists(argv[1])) {
		error_errno("cannot read '%s'", argv[1]);
		return 1;
	}
	abs = real_path(argv[1]);
	setup_command(&cfg, &db);
	src.source = argv[1];
	src.cache_path = abs;
	ret = ingest_one(&db, abs, &src);
	free(abs);
	db_close(&db);
	config_release(&cfg);
	return ret;
}

int cmd_ingest(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "tree"))
		return cmd_ingest_tree(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "series"))
		return ingest_series(argc - 1, argv + 1);
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
