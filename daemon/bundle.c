// SPDX-License-Identifier: GPL-2.0
/*
 * bundle.c - a run as one self-contained file, and that file stored back
 * as a run of another database (bundle.h).
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>
#include <zlib.h>

#include "arch.h"
#include "build.h"
#include "bundle.h"
#include "fetch.h"
#include "fsutil.h"
#include "ingest.h"
#include "remote.h"
#include "result.h"
#include "run.h"
#include "series.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

/* ---- making one ------------------------------------------------------ */

/*
 * A JSON string of database text, or NULL after error(): JSON carries
 * only UTF-8, and a bundle that silently dropped a byte of a diff would
 * give another commit.
 */
static json_t *jtext(const char *s, const char *what)
{
	json_t *v = json_string(s);

	if (!v)
		error("%s is not valid UTF-8: a bundle cannot carry it", what);
	return v;
}

static json_t *jopt(const char *s)
{
	json_t *v = s && *s ? json_string(s) : NULL;

	return v ? v : json_null();
}

/* the body of text @sha1: the texts table, else the file @path when its
 * content still has that hash; NULL when neither */
static char *text_of(struct db *db, const char *sha1, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *st;
	char now[41];
	char *body = NULL;

	if (!sha1 || !*sha1)
		return NULL;
	st = db_query(db, "SELECT body FROM texts WHERE sha1 = ?", "t", sha1);
	if (st && db_step(db, st) == DB_ROW)
		body = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	if (body || !path)
		return body;
	if (strbuf_read_file(&sb, path, 0) >= 0) {
		hash_hex(sb.buf, sb.len, now);
		if (!strcmp(now, sha1))
			body = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
	return body;
}

/* the remote and branch a commit is known on: a head, or a commit of one */
static json_t *remote_of(struct db *db, const char *commit, const char *ref)
{
	static const char *const q[] = {
		"SELECT h.remote, h.url, h.branch FROM heads h WHERE "
		"h.commit_id = ? ORDER BY h.id DESC LIMIT 1",
		"SELECT h.remote, h.url, h.branch FROM head_commits c JOIN "
		"heads h ON h.id = c.head_id WHERE c.commit_id = ? ORDER BY "
		"h.id DESC LIMIT 1",
	};
	json_t *r = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(q) && !r; i++) {
		sqlite3_stmt *st = db_query(db, q[i], "t", commit);

		if (st && db_step(db, st) == DB_ROW)
			r = json_pack("{s:s, s:s, s:s}", "name",
				      db_col_text(st, 0), "url",
				      db_col_text(st, 1), "branch",
				      db_col_text(st, 2));
		sqlite3_finalize(st);
	}
	if (!r && ref) {
		/* "mm/mm-unstable" or refs/remotes/mm/mm-unstable */
		const char *rest = ref, *slash;
		sqlite3_stmt *st;
		char *name;

		skip_prefix(ref, "refs/remotes/", &rest);
		slash = strchr(rest, '/');
		if (!slash)
			return json_null();
		name = xstrndup(rest, slash - rest);
		st = db_query(db, "SELECT url FROM remotes WHERE name = ?", "t",
			      name);
		if (st && db_step(db, st) == DB_ROW)
			r = json_pack("{s:s, s:s, s:s}", "name", name, "url",
				      db_col_text(st, 0), "branch", slash + 1);
		sqlite3_finalize(st);
		free(name);
	}
	return r ? r : json_null();
}

/*
 * The series as apply.c takes it: ingest_load_stored() (the typed rows of
 * migration 14, or the thread of an older series), each patch's message
 * with its trailers as it is committed
 */
static json_t *series_json(struct db *db, long long id, int upto)
{
	struct loaded_series ls = { 0 };
	json_t *s = NULL, *patches;
	sqlite3_stmt *st;
	size_t i;

	if (ingest_load_stored(db, id, &ls) < 0)
		return NULL;
	if (ls.s.nr < (size_t)upto) {
		error("series #%lld has %zu patch(es), its build applied %d",
		      id, ls.s.nr, upto);
		goto out;
	}
	patches = json_array();
	for (i = 0; i < ls.s.nr; i++) {
		const struct series_patch *p = &ls.s.patches[i];
		char *full = series_patch_full_message(p);
		json_t *msg = jtext(full, "a commit message");
		json_t *diff = jtext(p->diff, "a diff");

		free(full);
		if (!msg || !diff) {
			json_decref(msg);
			json_decref(diff);
			json_decref(patches);
			goto out;
		}
		json_array_append_new(patches, json_pack(
			"{s:i, s:i, s:o, s:o, s:o, s:I, s:o, s:o}",
			"idx", p->index, "version", p->version, "title",
			jopt(p->title), "author_name", jopt(p->author_name),
			"author_email", jopt(p->author_email), "date",
			(json_int_t)p->date, "commit_message", msg, "diff",
			diff));
	}
	s = json_pack("{s:I, s:o, s:i, s:i, s:b, s:o, s:i, s:o}", "id",
		      (json_int_t)id, "title", jopt(ls.s.title), "version",
		      ls.s.version, "total", ls.s.total, "rfc", ls.s.is_rfc,
		      "base_commit", jopt(ls.s.base_commit), "upto", upto,
		      "patches", patches);
	st = db_query(db, "SELECT coalesce(message_id, ''), coalesce(author, "
		      "'') FROM series WHERE id = ?", "i", id);
	if (s && st && db_step(db, st) == DB_ROW) {
		json_object_set_new(s, "message_id", jopt(db_col_text(st, 0)));
		json_object_set_new(s, "author", jopt(db_col_text(st, 1)));
	}
	sqlite3_finalize(st);
out:
	loaded_series_release(&ls);
	return s;
}

static json_t *kernel_json(struct db *db, const struct run_row *r)
{
	json_t *k, *base;
	sqlite3_stmt *st;
	char *frag, *dot, *artifacts = NULL, *tree_oid = NULL;
	char *base_commit = NULL, *base_ref = NULL, *dotpath = NULL;
	const char *name;

	if (!r->build_id)
		return json_pack("{s:s, s:s, s:s, s:o}", "kind", "prebuilt",
				 "path", r->kernel, "release", r->release,
				 "modules_root", jopt(r->modroot));
	if (!r->build_found) {
		error("run #%lld names build #%lld, which is not in the "
		      "database", r->id, r->build_id);
		return NULL;
	}
	st = db_query(db, "SELECT coalesce(artifacts, ''), tree_oid FROM "
		      "builds WHERE id = ?", "i", r->build_id);
	if (st && db_step(db, st) == DB_ROW) {
		artifacts = xstrdup(db_col_text(st, 0));
		tree_oid = xstrdup(db_col_text(st, 1));
	}
	sqlite3_finalize(st);
	if (r->series_id) {
		/* the apply of the whole series gave the per-patch commits
		 * too: its base is theirs (reproduce checks the result) */
		st = db_query(db, "SELECT base_commit, base_ref FROM applies "
			      "WHERE series_id = ? AND upto >= ? AND status = "
			      "'ok' ORDER BY head_commit = ? DESC, id DESC "
			      "LIMIT 1", "iit", r->series_id,
			      (long long)r->upto, r->commit);
		if (st && db_step(db, st) == DB_ROW) {
			base_commit = xstrdup(db_col_text(st, 0));
			base_ref = xstrdup(db_col_text(st, 1));
		}
		sqlite3_finalize(st);
		if (!base_commit) {
			error("build #%lld: no stored apply of series #%lld "
			      "gave commit %s: its base is unknown",
			      r->build_id, r->series_id, r->commit);
			free(artifacts);
			free(tree_oid);
			return NULL;
		}
	} else {
		base_commit = xstrdup(r->commit);
	}
	base = json_pack("{s:s, s:o, s:o}", "commit", base_commit, "ref",
			 jopt(base_ref), "remote",
			 remote_of(db, base_commit, base_ref));
	frag = text_of(db, r->config_hash, r->fragment);
	if (*artifacts)
		dotpath = xstrfmt("%s/config", artifacts);
	dot = text_of(db, r->dotconfig_hash, dotpath);
	name = strrchr(r->fragment, '/');
	k = json_pack("{s:s, s:s, s:o, s:o, s:o, s:i, s:o, s:{s:s, s:s, s:o}, "
		      "s:{s:o, s:o}}",
		      "kind", "build", "commit", r->commit, "tree",
		      jopt(tree_oid), "compiler", jopt(r->compiler),
		      "release", jopt(r->release), "hz", r->build_hz, "base",
		      base, "fragment", "name", name ? name + 1 : r->fragment,
		      "sha1", r->config_hash, "text", jopt(frag), "dotconfig",
		      "sha1", jopt(r->dotconfig_hash), "text", jopt(dot));
	if (k && r->series_id) {
		json_t *s = series_json(db, r->series_id, r->upto);

		if (!s) {
			json_decref(k);
			k = NULL;
		} else {
			json_object_set_new(k, "series", s);
		}
	}
	if (k && !frag)
		warning("run #%lld: the config fragment (sha1 %.12s) is "
			"neither stored nor readable: the bundle lacks it",
			r->id, r->config_hash);
	free(frag);
	free(dot);
	free(dotpath);
	free(artifacts);
	free(tree_oid);
	free(base_commit);
	free(base_ref);
	return k;
}

static json_t *boots_json(struct db *db, long long run_id, char **domain)
{
	json_t *boots = json_array();
	sqlite3_stmt *st, *ss, *se;
	int rc = DB_DONE;

	st = db_query(db, "SELECT id, idx, status, coalesce(end_kind, ''), "
		      "coalesce(error, ''), coalesce(domain_xml, ''), "
		      "duration_s FROM boots WHERE run_id = ? ORDER BY idx",
		      "i", run_id);
	ss = db_query(db, "SELECT workload, variant, metric, unit, iteration, "
		      "value FROM samples WHERE boot_id = ? ORDER BY id", "i",
		      0LL);
	se = db_query(db, "SELECT coalesce(workload, ''), coalesce(variant, "
		      "''), kind, coalesce(iteration, -1), coalesce(key, ''), "
		      "message FROM events WHERE boot_id = ? ORDER BY id", "i",
		      0LL);
	while (st && ss && se && (rc = db_step(db, st)) == DB_ROW) {
		json_t *samples = json_array(), *events = json_array();
		int src, erc;

		if (!*domain && *db_col_text(st, 5))
			*domain = xstrdup(db_col_text(st, 5));
		sqlite3_reset(ss);
		sqlite3_bind_int64(ss, 1, sqlite3_column_int64(st, 0));
		while ((src = db_step(db, ss)) == DB_ROW)
			json_array_append_new(samples, json_pack(
				"[s, s, s, s, i, f]", db_col_text(ss, 0),
				db_col_text(ss, 1), db_col_text(ss, 2),
				db_col_text(ss, 3), sqlite3_column_int(ss, 4),
				sqlite3_column_double(ss, 5)));
		sqlite3_reset(se);
		sqlite3_bind_int64(se, 1, sqlite3_column_int64(st, 0));
		while ((erc = db_step(db, se)) == DB_ROW) {
			json_t *m = json_string(db_col_text(se, 5));

			/* a guest's message that is not UTF-8 is not kept */
			json_array_append_new(events, json_pack(
				"[s, s, s, i, s, o]", db_col_text(se, 0),
				db_col_text(se, 1), db_col_text(se, 2),
				sqlite3_column_int(se, 3), db_col_text(se, 4),
				m ? m : json_string("(not UTF-8)")));
		}
		if (src < 0 || erc < 0) {
			rc = -1;
			json_decref(samples);
			json_decref(events);
			break;
		}
		json_array_append_new(boots, json_pack(
			"{s:i, s:s, s:o, s:o, s:f, s:o, s:o}", "idx",
			sqlite3_column_int(st, 1), "status",
			db_col_text(st, 2), "end_kind", jopt(db_col_text(st, 3)),
			"error", jopt(db_col_text(st, 4)), "duration_s",
			sqlite3_column_double(st, 6), "samples", samples,
			"events", events));
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ss);
	sqlite3_finalize(se);
	if (!st || !ss || !se || rc < 0) {
		json_decref(boots);
		return NULL;
	}
	return boots;
}

int bundle_make(struct db *db, long long run_id, json_t **out)
{
	struct run_row r = { 0 };
	json_t *b = NULL, *run, *kernel, *boots, *params;
	const char *web = getenv("MMCI_WEB_URL");
	char *domain = NULL, *page = NULL, *setup = NULL;
	long long concurrent = 1;
	sqlite3_stmt *st;

	*out = NULL;
	if (run_load(db, run_id, &r) < 0)
		return -1;
	if (!strcmp(r.status, "running")) {
		error("run #%lld is still running: no bundle yet", run_id);
		goto out;
	}
	st = db_query(db, "SELECT coalesce(setup_sha1, ''), concurrent FROM "
		      "runs WHERE id = ?", "i", run_id);
	if (st && db_step(db, st) == DB_ROW) {
		setup = xstrdup(db_col_text(st, 0));
		concurrent = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	params = r.pj ? json_incref(r.pj) : json_string(r.params);
	run = json_pack("{s:o, s:s, s:o, s:s, s:s, s:I, s:I, s:I, s:s, s:s, "
			"s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:f, "
			"s:f, s:I, s:s}",
			"label", jopt(r.label), "workloads", r.workloads,
			"params", params, "accel", r.accel, "clock", r.clock,
			"vcpus", (json_int_t)r.vcpus, "ram_mib",
			(json_int_t)r.ram_mib, "nvdimm_mib",
			(json_int_t)r.nvdimm_mib, "backing", r.backing,
			"kernel_release", r.release, "hz", r.hz, "qemu",
			jopt(r.qemu_v), "libvirt", jopt(r.libvirt_v),
			"runner_sha1", jopt(r.runner_sha1), "initrd",
			jopt(r.initrd), "initrd_sha1", jopt(r.initrd_sha1), "setup_sha1", jopt(setup),
			"status", r.status, "error", jopt(r.error),
			"started_at", r.started_at, "ended_at",
			r.ended_at < 0 ? r.started_at : r.ended_at,
			"concurrent", (json_int_t)concurrent, "arch", r.arch);
	kernel = kernel_json(db, &r);
	boots = boots_json(db, run_id, &domain);
	if (!run || !kernel || !boots) {
		json_decref(run);
		json_decref(kernel);
		json_decref(boots);
		if (!kernel || !boots)
			error("run #%lld: no bundle (see above)", run_id);
		else
			error("run #%lld: its rows do not make a bundle",
			      run_id);
		goto out;
	}
	if (web && *web)
		page = xstrfmt("%s/run/%lld", web, run_id);
	/* no time of making: the same rows give the same bytes */
	b = json_pack("{s:s, s:{s:s, s:I, s:o}, s:o, s:o, s:o, s:o, s:s}",
		      "format", BUNDLE_FORMAT, "origin", "host", r.host, "run",
		      (json_int_t)run_id, "page", jopt(page), "run", run,
		      "kernel", kernel,
		      "domain_xml", jopt(domain), "boots", boots,
		      "reproduce", "mmci reproduce --bundle FILE|URL");
	if (!b)
		error("run #%lld: its rows do not make a bundle", run_id);
out:
	*out = b;
	free(domain);
	free(page);
	free(setup);
	run_row_release(&r);
	return b ? 0 : -1;
}

int bundle_gzip(const json_t *b, struct strbuf *out)
{
	char *text = json_dumps(b, JSON_INDENT(1) | JSON_SORT_KEYS);
	z_stream zs = { 0 };
	size_t len;
	int rc;

	if (!text)
		return error("cannot encode the bundle as JSON");
	len = strlen(text);
	/* 16 + 15: a gzip header, as gzip(1) and browsers read */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(text);
		return error("zlib: cannot start deflate");
	}
	strbuf_grow(out, deflateBound(&zs, len));
	zs.next_in = (unsigned char *)text;
	zs.avail_in = len;
	zs.next_out = (unsigned char *)out->buf + out->len;
	zs.avail_out = out->alloc - out->len - 1;
	rc = deflate(&zs, Z_FINISH);
	if (rc == Z_STREAM_END)
		strbuf_setlen(out, out->len + zs.total_out);
	deflateEnd(&zs);
	free(text);
	return rc == Z_STREAM_END ? 0 : error("zlib: deflate failed (%d)", rc);
}

int bundle_write(const json_t *b, const char *path)
{
	struct strbuf gz = STRBUF_INIT;
	int ret = bundle_gzip(b, &gz);

	if (!ret)
		ret = write_file(path, gz.buf, gz.len);
	strbuf_release(&gz);
	return ret;
}

/* ---- reading one ----------------------------------------------------- */

/*
 * Gzip data @in into @out, never more than BUNDLE_MAX_JSON bytes: a bomb
 * stops at the bound, so the inflated text held is at most 64 MiB (an
 * mbox may inflate to 1 GiB, ingest.h; a bundle never needs that, and
 * jansson would take some GB of it). Members follow each other as
 * gzip(1) writes them; anything else after them is damage.
 */
static int gunzip_bounded(const char *src, const unsigned char *in,
			  size_t len, struct strbuf *out)
{
	z_stream z;
	int rc, ret = -1;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		BUG("inflateInit2 failed");
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	strbuf_reset(out);
	for (;;) {
		size_t room;

		if (out->len > BUNDLE_MAX_JSON) {
			error("bundle '%s' inflates to more than %u bytes, the "
			      "bound of a bundle's JSON (a gzip bomb?): "
			      "refused, nothing of it parsed", src,
			      BUNDLE_MAX_JSON);
			break;
		}
		if (out->alloc - out->len < (64u << 10) + 1)
			strbuf_grow(out, 64u << 10);
		room = out->alloc - out->len - 1;
		if (room > BUNDLE_MAX_JSON + 1 - out->len)
			room = BUNDLE_MAX_JSON + 1 - out->len;
		z.next_out = (unsigned char *)out->buf + out->len;
		z.avail_out = room;
		rc = inflate(&z, Z_NO_FLUSH);
		strbuf_setlen(out, out->len + room - z.avail_out);
		if (rc == Z_STREAM_END) {
			if (!z.avail_in) {
				ret = 0;
				break;
			}
			if (z.avail_in >= 2 && z.next_in[0] == 0x1f &&
			    z.next_in[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			error("bundle '%s': %u byte(s) of garbage after the "
			      "gzip data", src, z.avail_in);
			break;
		}
		if (rc == Z_OK)
			continue;
		if (rc == Z_BUF_ERROR && !z.avail_in)
			error("bundle '%s': truncated gzip data: it ends after "
			      "%zu bytes, inside the stream", src, len);
		else
			error("bundle '%s': corrupt gzip data at byte %zu of "
			      "%zu: %s", src, len - z.avail_in, len,
			      z.msg ? z.msg : "inflate failed");
		break;
	}
	inflateEnd(&z);
	return ret;
}

/* the JSON text of bundle file @path, within BUNDLE_MAX_JSON */
static int read_text(const char *src, const char *path, struct strbuf *text)
{
	struct strbuf raw = STRBUF_INIT;
	struct stat st;
	int ret;

	if (check_input_file(path, "bundle") < 0)
		return -1;
	if (stat(path, &st) < 0)
		return error_errno("cannot read '%s'", path);
	if ((unsigned long long)st.st_size > BUNDLE_MAX_JSON)
		return error("bundle '%s' is %lld bytes, above the bound of "
			     "%u", src, (long long)st.st_size,
			     BUNDLE_MAX_JSON);
	if (strbuf_read_file(&raw, path, st.st_size) < 0) {
		strbuf_release(&raw);
		return error_errno("cannot read '%s'", path);
	}
	if (raw.len > BUNDLE_MAX_JSON) {
		ret = error("bundle '%s' is %zu bytes, above the bound of %u",
			    src, raw.len, BUNDLE_MAX_JSON);
	} else if (raw.len >= 2 && (unsigned char)raw.buf[0] == 0x1f &&
		   (unsigned char)raw.buf[1] == 0x8b) {
		ret = gunzip_bounded(src, (unsigned char *)raw.buf, raw.len,
				     text);
	} else {
		strbuf_release(text);
		*text = raw;
		return 0;
	}
	strbuf_release(&raw);
	return ret;
}

/*
 * Count what jansson would build from @s before it builds it: the
 * elements (each comma and each container opens one), the containers and
 * the depth, outside strings. 970 KB of gzip'd empty objects parsed to
 * 6 GB before this; now that bundle is refused having held its text.
 */
static int count_values(const char *src, const char *s, size_t len)
{
	size_t i, elements = 1, containers = 0, depth = 0;
	int in_str = 0;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '\\':
			i += in_str;
			continue;
		case '"':
			in_str = !in_str;
			continue;
		}
		if (in_str)
			continue;
		switch (s[i]) {
		case '{': case '[':
			containers++;
			elements++;
			if (++depth > BUNDLE_MAX_DEPTH)
				return error("bundle '%s': JSON nested more "
					     "than %d deep, the bound of a "
					     "bundle", src, BUNDLE_MAX_DEPTH);
			break;
		case '}': case ']':
			depth -= depth > 0;
			break;
		case ',':
			elements++;
			break;
		default:
			continue;
		}
		if (containers > BUNDLE_MAX_CONTAINERS)
			return error("bundle '%s': more than %u JSON arrays "
				     "and objects, the bound of a bundle", src,
				     BUNDLE_MAX_CONTAINERS);
		if (elements > BUNDLE_MAX_VALUES)
			return error("bundle '%s': more than %u JSON values, "
				     "the bound of a bundle", src,
				     BUNDLE_MAX_VALUES);
	}
	return 0;
}

int bundle_read(const struct mmci_config *cfg, const char *src, json_t **out,
		char sha1[41])
{
	struct fetch_result res = { 0 };
	struct strbuf text = STRBUF_INIT;
	const char *path = src;
	json_error_t je;
	const char *fmt;
	json_t *b = NULL;
	int ret = -1;

	*out = NULL;
	if (starts_with(src, "http://") || starts_with(src, "https://")) {
		struct fetch_opts fo;

		fetch_opts_init(&fo);
		fo.refresh = 1;
		if (fo.max_bytes > BUNDLE_MAX_JSON)
			fo.max_bytes = BUNDLE_MAX_JSON;
		if (fetch_url(cfg, src, &fo, &res) < 0)
			goto out;
		path = res.path;
	}
	if (read_text(src, path, &text) < 0 ||
	    count_values(src, text.buf, text.len) < 0)
		goto out;
	hash_hex(text.buf, text.len, sha1);
	/* a key given twice would be checked once and read as the other */
	b = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &je);
	if (!b) {
		error("bundle '%s' is not JSON: %s (line %d)", src, je.text,
		      je.line);
		goto out;
	}
	fmt = json_string_value(json_object_get(b, "format"));
	if (!fmt || strcmp(fmt, BUNDLE_FORMAT)) {
		error("'%s' is not an mmci bundle (format %.40s, want %s)", src,
		      fmt ? fmt : "missing", BUNDLE_FORMAT);
		goto out;
	}
	if (bundle_check(b, src) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0) {
		json_decref(b);
		b = NULL;
	}
	*out = b;
	fetch_result_release(&res);
	strbuf_release(&text);
	return ret;
}

/* ---- checking one ---------------------------------------------------- */

/*
 * The schema of a bundle, as the import and reproduce use it. Each check
 * names the field as a path ("boots[2].samples[7][5]") in its one error
 * line, with the bound it broke.
 */
enum { OPT = 0, REQ = 1 };
/* what a string may hold: a name has no control character at all; a
 * text (a diff, a message) has tabs and newlines */
enum { NAME, TEXT };

static int bad(const char *src, const char *field, const char *fmt, ...)
	PRINTF(3, 4);
static int bad(const char *src, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("bundle '%s': %s %s", src, field, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static char *field_of(const char *obj, const char *key)
{
	return xstrfmt("%s.%s", obj, key);
}

static int check_chars(const char *src, const char *field, const char *s,
		       int kind)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && (kind == NAME || (*p != '\t' &&
						    *p != '\n'))) ||
		    *p == 0x7f)
			return bad(src, field, "holds control character "
				   "0x%02x at byte %zu", *p,
				   (size_t)(p - (const unsigned char *)s));
	return 0;
}

/* a string value @v: NULL or a string of at most @max bytes */
static int check_strv(const char *src, const char *field, const json_t *v,
		      int req, size_t max, int kind)
{
	size_t len;

	if (!v || json_is_null(v))
		return req ? bad(src, field, "is missing") : 0;
	if (!json_is_string(v))
		return bad(src, field, "is not a string");
	len = json_string_length(v);
	if (len > max)
		return bad(src, field, "is %zu bytes long, above the bound %zu",
			   len, max);
	if (req && !len)
		return bad(src, field, "is empty");
	return check_chars(src, field, json_string_value(v), kind);
}

static int check_str(const char *src, const json_t *o, const char *obj,
		     const char *key, int req, size_t max, int kind)
{
	char *f = field_of(obj, key);
	int ret = check_strv(src, f, json_object_get(o, key), req, max, kind);

	free(f);
	return ret;
}

static int check_intv(const char *src, const char *field, const json_t *v,
		      int req, long long min, long long max)
{
	long long n;

	if (!v || json_is_null(v))
		return req ? bad(src, field, "is missing") : 0;
	if (!json_is_integer(v))
		return bad(src, field, "is not an integer");
	n = json_integer_value(v);
	if (n < min)
		return bad(src, field, "is %lld, below the bound %lld", n, min);
	if (n > max)
		return bad(src, field, "is %lld, above the bound %lld", n, max);
	return 0;
}

static int check_int(const char *src, const json_t *o, const char *obj,
		     const char *key, int req, long long min, long long max)
{
	char *f = field_of(obj, key);
	int ret = check_intv(src, f, json_object_get(o, key), req, min, max);

	free(f);
	return ret;
}

/* a number, finite, in min..max */
static int check_numv(const char *src, const char *field, const json_t *v,
		      int req, double min, double max)
{
	double d;

	if (!v || json_is_null(v))
		return req ? bad(src, field, "is missing") : 0;
	if (!json_is_number(v))
		return bad(src, field, "is not a number");
	d = json_number_value(v);
	if (!isfinite(d) || d < min || d > max)
		return bad(src, field, "is %g, outside the bounds %g..%g", d,
			   min, max);
	return 0;
}

static int check_num(const char *src, const json_t *o, const char *obj,
		     const char *key, int req, double min, double max)
{
	char *f = field_of(obj, key);
	int ret = check_numv(src, f, json_object_get(o, key), req, min, max);

	free(f);
	return ret;
}

/* one of @words (NULL-terminated) */
static int check_word(const char *src, const json_t *o, const char *obj,
		      const char *key, int req, const char *const *words)
{
	const char *s = json_string_value(json_object_get(o, key));
	const char *const *w;
	struct strbuf all = STRBUF_INIT;
	char *f;

	if (check_str(src, o, obj, key, req, BUNDLE_MAX_NAME, NAME) < 0)
		return -1;
	if (!s)
		return 0;
	for (w = words; *w; w++)
		if (!strcmp(s, *w))
			return 0;
	for (w = words; *w; w++)
		strbuf_addf(&all, "%s%s", w == words ? "" : ", ", *w);
	f = field_of(obj, key);
	bad(src, f, "is '%.40s', not one of %s", s, all.buf);
	free(f);
	strbuf_release(&all);
	return -1;
}

/* hex digits, exactly @len of them (a commit id) or 1..@len */
static int check_hex(const char *src, const json_t *o, const char *obj,
		     const char *key, int req, size_t len, int exact)
{
	const char *s = json_string_value(json_object_get(o, key));
	int ret = check_str(src, o, obj, key, req, len, NAME);
	char *f;

	if (ret < 0 || !s || !*s)
		return ret;
	if (strspn(s, "0123456789abcdef") == strlen(s) &&
	    (!exact || strlen(s) == len))
		return 0;
	f = field_of(obj, key);
	ret = bad(src, f, "is '%.48s', not %s%zu hex digits", s,
		  exact ? "" : "at most ", len);
	free(f);
	return ret;
}

/* an array of at most @max elements (an absent one is empty when !req) */
static int check_array(const char *src, const json_t *o, const char *obj,
		       const char *key, int req, size_t max)
{
	const json_t *v = json_object_get(o, key);
	char *f = field_of(obj, key);
	int ret = 0;

	if (!v || json_is_null(v))
		ret = req ? bad(src, f, "is missing") : 0;
	else if (!json_is_array(v))
		ret = bad(src, f, "is not an array");
	else if (json_array_size(v) > max)
		ret = bad(src, f, "has %zu elements, above the bound %zu",
			  json_array_size(v), max);
	free(f);
	return ret;
}

static int check_object(const char *src, const json_t *o, const char *obj,
			const char *key, int req)
{
	const json_t *v = json_object_get(o, key);
	char *f = field_of(obj, key);
	int ret = 0;

	if (!v || json_is_null(v))
		ret = req ? bad(src, f, "is missing") : 0;
	else if (!json_is_object(v))
		ret = bad(src, f, "is not an object");
	free(f);
	return ret;
}

int bundle_remote_allowed(const char *url)
{
	static const char *const schemes[] = { "https://", "http://",
					       "git://", "ssh://", NULL };
	const char *const *p;
	const char *colon = strchr(url, ':'), *at = strchr(url, '@');

	for (p = schemes; *p; p++)
		if (starts_with(url, *p) && url[strlen(*p)])
			return 1;
	/* scp-like user@host:path, which git and libgit2 take as ssh */
	if (at && colon && at < colon && at > url && colon > at + 1 &&
	    strcspn(url, "/") > (size_t)(colon - url))
		return 1;
	/* file://, a path: a repository of this host, read as root */
	return config_number("MMCI_BUNDLE_ALLOW_FILE") == 1 &&
	       (starts_with(url, "file://") || *url == '/');
}

/* a branch name as the fetch's refspec takes it: no pattern, no ':' */
static int check_branch(const char *src, const char *field, const char *b)
{
	char *ref = xstrfmt("refs/heads/%s", b);
	int valid = 0;

	if (git_reference_name_is_valid(&valid, ref) < 0)
		valid = 0;
	free(ref);
	if (valid && !strpbrk(b, "*:?[\\ ") && *b != '-')
		return 0;
	return bad(src, field, "'%.80s' is not a branch name", b);
}

/*
 * The initramfs a run booted: mmci's own is <data>/images/<release>-
 * <key>.cpio.gz (image.c), made again here for the new kernel; any other
 * path is a file of the other host (or of this one: /etc/shadow). Only
 * the name is kept, under this host's <data>/images.
 */
static int check_initrd(const char *src, const json_t *run)
{
	const char *p = json_string_value(json_object_get(run, "initrd"));
	const char *rel = json_string_value(json_object_get(run,
							    "kernel_release"));
	const char *base, *key;
	size_t n;

	if (check_str(src, run, "run", "initrd", OPT, BUNDLE_MAX_NAME,
		      NAME) < 0)
		return -1;
	if (!p || !*p)
		return 0;	/* none recorded: mmci's own, made here */
	base = strrchr(p, '/');
	base = base ? base + 1 : p;
	n = strlen(rel);
	key = base + n + 1;
	if (!strstr(p, "/..") && base - p >= 8 &&
	    !strncmp(base - 8, "/images/", 8) && !strncmp(base, rel, n) &&
	    base[n] == '-' && strlen(key) > 8 &&
	    strspn(key, "0123456789abcdef") == strlen(key) - 8 &&
	    ends_with(key, ".cpio.gz"))
		return 0;
	return bad(src, "run.initrd", "'%.200s' is not mmci's own initramfs "
		   "(.../images/%s-KEY.cpio.gz): a bundle's run boots only "
		   "the initramfs mmci makes, never a file named by the "
		   "bundle", p, rel);
}

/* run.params: the runner's parameters, a flat object (run.c) */
static int check_params(const char *src, const json_t *run)
{
	static const struct {
		const char *key;
		long long max;
	} ints[] = {
		{ "iters", BUNDLE_MAX_ITERS },
		{ "hotplug_iters", BUNDLE_MAX_ITERS },
		{ "timeout_s", BUNDLE_MAX_TIMEOUT_S },
		{ "vmem_max_mib", BUNDLE_MAX_RAM_MIB },
	};
	const json_t *pj = json_object_get(run, "params"), *v;
	const char *key;
	size_t i;

	if (json_is_string(pj))	/* an older mmci's: reproduce refuses it */
		return check_str(src, run, "run", "params", REQ,
				 BUNDLE_MAX_MESSAGE, NAME);
	if (check_object(src, run, "run", "params", REQ) < 0)
		return -1;
	if (json_object_size(pj) > 64)
		return bad(src, "run.params", "has %zu keys, above the bound "
			   "64", json_object_size(pj));
	if (check_str(src, pj, "run.params", "cmdline", REQ, 4096, NAME) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(ints); i++)
		if (check_int(src, pj, "run.params", ints[i].key, OPT, 0,
			      ints[i].max) < 0)
			return -1;
	json_object_foreach((json_t *)pj, key, v) {
		char *f = field_of("run.params", key);
		int ret = 0;

		if (strlen(key) > 64 ||
		    strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(key))
			ret = bad(src, "run.params", "has a key '%.64s' that "
				  "is not a parameter name", key);
		else if (json_is_string(v))
			ret = check_strv(src, f, v, OPT, 4096, NAME);
		else if (json_is_integer(v))
			ret = check_intv(src, f, v, OPT, -1, 1ll << 40);
		else if (!json_is_boolean(v) && !json_is_null(v) &&
			 !json_is_real(v))
			ret = bad(src, f, "is not a string, number or boolean");
		free(f);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int check_run(const char *src, const json_t *b)
{
	static const char *const accels[] = { "kvm", "tcg", NULL };
	static const char *const clocks[] = { "icount", "wall", NULL };
	static const char *const backings[] = { "tmpfs", "disk", NULL };
	static const char *const statuses[] = { "ok", "failed", NULL };
	const json_t *run = json_object_get(b, "run");
	const char *arch;

	if (check_object(src, b, "bundle", "run", REQ) < 0 ||
	    check_str(src, run, "run", "workloads", REQ, 256, NAME) < 0 ||
	    check_params(src, run) < 0 ||
	    check_word(src, run, "run", "accel", REQ, accels) < 0 ||
	    check_word(src, run, "run", "clock", REQ, clocks) < 0 ||
	    check_int(src, run, "run", "vcpus", REQ, 1, BUNDLE_MAX_VCPUS) < 0 ||
	    check_int(src, run, "run", "ram_mib", REQ, 1,
		      BUNDLE_MAX_RAM_MIB) < 0 ||
	    check_int(src, run, "run", "nvdimm_mib", REQ, 0,
		      BUNDLE_MAX_NVDIMM_MIB) < 0 ||
	    check_word(src, run, "run", "backing", REQ, backings) < 0 ||
	    check_str(src, run, "run", "kernel_release", REQ, 256, NAME) < 0 ||
	    check_int(src, run, "run", "hz", OPT, 0, 100000) < 0 ||
	    check_str(src, run, "run", "qemu", OPT, 256, NAME) < 0 ||
	    check_str(src, run, "run", "libvirt", OPT, 256, NAME) < 0 ||
	    check_str(src, run, "run", "runner_sha1", OPT, 64, NAME) < 0 ||
	    check_str(src, run, "run", "initrd_sha1", OPT, 64, NAME) < 0 ||
	    check_str(src, run, "run", "setup_sha1", OPT, 64, NAME) < 0 ||
	    check_word(src, run, "run", "status", REQ, statuses) < 0 ||
	    check_str(src, run, "run", "error", OPT, BUNDLE_MAX_MESSAGE,
		      TEXT) < 0 ||
	    check_num(src, run, "run", "started_at", OPT, 0, 1e11) < 0 ||
	    check_num(src, run, "run", "ended_at", OPT, 0, 1e11) < 0 ||
	    check_int(src, run, "run", "concurrent", OPT, 0, 1024) < 0 ||
	    check_str(src, run, "run", "arch", OPT, 32, NAME) < 0)
		return -1;
	/* the release names files: <data>/images/<release>-..., modules */
	if (strchr(json_string_value(json_object_get(run, "kernel_release")),
		   '/') ||
	    *json_string_value(json_object_get(run, "kernel_release")) == '.')
		return bad(src, "run.kernel_release", "is not a release name");
	arch = json_string_value(json_object_get(run, "arch"));
	if (arch && !arch_find(arch))
		return bad(src, "run.arch", "'%s' is no arch of this mmci",
			   arch);
	return check_initrd(src, run);
}

static int check_series(const char *src, const json_t *k)
{
	const json_t *s = json_object_get(k, "series"), *p;
	const json_t *patches = json_object_get(s, "patches");
	char *f;
	size_t i;
	int ret = 0;

	if (!s || json_is_null(s))
		return 0;
	if (check_object(src, k, "kernel", "series", REQ) < 0 ||
	    check_str(src, s, "kernel.series", "title", OPT, BUNDLE_MAX_NAME,
		      NAME) < 0 ||
	    check_int(src, s, "kernel.series", "version", REQ, 0, 1000) < 0 ||
	    check_int(src, s, "kernel.series", "total", REQ, 0,
		      SERIES_MAX_PATCHES) < 0 ||
	    check_str(src, s, "kernel.series", "message_id", OPT,
		      BUNDLE_MAX_NAME, NAME) < 0 ||
	    check_str(src, s, "kernel.series", "author", OPT,
		      BUNDLE_MAX_NAME, NAME) < 0 ||
	    check_hex(src, s, "kernel.series", "base_commit", OPT, 40, 0) < 0 ||
	    check_array(src, s, "kernel.series", "patches", REQ,
			SERIES_MAX_PATCHES) < 0 ||
	    check_int(src, s, "kernel.series", "upto", REQ, 1,
		      json_array_size(patches)) < 0)
		return -1;
	json_array_foreach(patches, i, p) {
		f = xstrfmt("kernel.series.patches[%zu]", i);
		if (!json_is_object(p))
			ret = bad(src, f, "is not an object");
		else if (check_int(src, p, f, "idx", REQ, 0,
				   SERIES_MAX_PATCHES) < 0 ||
			 check_int(src, p, f, "version", OPT, 0, 1000) < 0 ||
			 check_str(src, p, f, "title", OPT, BUNDLE_MAX_NAME,
				   NAME) < 0 ||
			 check_str(src, p, f, "author_name", OPT,
				   BUNDLE_MAX_NAME, NAME) < 0 ||
			 check_str(src, p, f, "author_email", OPT,
				   BUNDLE_MAX_NAME, NAME) < 0 ||
			 check_int(src, p, f, "date", OPT, 0, 1ll << 40) < 0 ||
			 check_str(src, p, f, "commit_message", REQ,
				   BUNDLE_MAX_MESSAGE * 16, TEXT) < 0 ||
			 check_str(src, p, f, "diff", REQ, BUNDLE_MAX_TEXT,
				   TEXT) < 0)
			ret = -1;
		free(f);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int check_kernel(const char *src, const json_t *b)
{
	const json_t *k = json_object_get(b, "kernel");
	const json_t *base = json_object_get(k, "base");
	const json_t *remote = json_object_get(base, "remote");
	const json_t *frag = json_object_get(k, "fragment");
	const char *kind, *url, *branch;

	if (check_object(src, b, "bundle", "kernel", REQ) < 0 ||
	    check_str(src, k, "kernel", "kind", REQ, 32, NAME) < 0)
		return -1;
	kind = json_string_value(json_object_get(k, "kind"));
	if (!strcmp(kind, "prebuilt"))
		return bad(src, "kernel.kind", "is 'prebuilt' (the file "
			   "'%.200s' of its host): a bundle's kernel is built "
			   "here from its commit and series, never a path the "
			   "bundle names", json_string_value(json_object_get(
			   k, "path")) ? json_string_value(json_object_get(
			   k, "path")) : "");
	if (strcmp(kind, "build"))
		return bad(src, "kernel.kind", "is '%.40s', not 'build'", kind);
	if (check_hex(src, k, "kernel", "commit", REQ, 40, 1) < 0 ||
	    check_str(src, k, "kernel", "tree", OPT, 64, NAME) < 0 ||
	    check_str(src, k, "kernel", "compiler", OPT, BUNDLE_MAX_NAME,
		      NAME) < 0 ||
	    check_str(src, k, "kernel", "release", OPT, 256, NAME) < 0 ||
	    check_int(src, k, "kernel", "hz", OPT, 0, 100000) < 0 ||
	    check_object(src, k, "kernel", "base", REQ) < 0 ||
	    check_hex(src, base, "kernel.base", "commit", REQ, 40, 1) < 0 ||
	    check_str(src, base, "kernel.base", "ref", OPT, 256, NAME) < 0 ||
	    check_object(src, base, "kernel.base", "remote", OPT) < 0 ||
	    check_str(src, remote, "kernel.base.remote", "name", OPT, 256,
		      NAME) < 0 ||
	    check_str(src, remote, "kernel.base.remote", "url", OPT,
		      BUNDLE_MAX_NAME, NAME) < 0 ||
	    check_str(src, remote, "kernel.base.remote", "branch", OPT, 256,
		      NAME) < 0 ||
	    check_object(src, k, "kernel", "fragment", REQ) < 0 ||
	    check_str(src, frag, "kernel.fragment", "name", REQ, 255,
		      NAME) < 0 ||
	    check_hex(src, frag, "kernel.fragment", "sha1", REQ, 40, 1) < 0 ||
	    check_str(src, frag, "kernel.fragment", "text", OPT,
		      BUNDLE_MAX_TEXT, TEXT) < 0 ||
	    check_object(src, k, "kernel", "dotconfig", OPT) < 0 ||
	    check_hex(src, json_object_get(k, "dotconfig"), "kernel.dotconfig",
		      "sha1", OPT, 40, 1) < 0 ||
	    check_str(src, json_object_get(k, "dotconfig"), "kernel.dotconfig",
		      "text", OPT, BUNDLE_MAX_TEXT, TEXT) < 0)
		return -1;
	url = json_string_value(json_object_get(remote, "url"));
	if (url && *url && !bundle_remote_allowed(url))
		return bad(src, "kernel.base.remote.url", "'%.200s' is not an "
			   "http(s)://, git:// or ssh:// URL (a repository of "
			   "this host is fetched only with "
			   "MMCI_BUNDLE_ALLOW_FILE=1)", url);
	branch = json_string_value(json_object_get(remote, "branch"));
	if (branch && *branch &&
	    check_branch(src, "kernel.base.remote.branch", branch) < 0)
		return -1;
	/* without a remote branch, the fetch takes the ref's last part */
	branch = json_string_value(json_object_get(base, "ref"));
	if (branch && strrchr(branch, '/'))
		branch = strrchr(branch, '/') + 1;
	if (branch && *branch &&
	    check_branch(src, "kernel.base.ref", branch) < 0)
		return -1;
	return check_series(src, k);
}

static int check_boots(const char *src, const json_t *b)
{
	static const char *const statuses[] = { "running", "ok", "failed",
						NULL };
	const json_t *boots = json_object_get(b, "boots"), *bt, *x;
	size_t i, j;
	int ret = 0;

	if (check_array(src, b, "bundle", "boots", REQ, BUNDLE_MAX_BOOTS) < 0)
		return -1;
	json_array_foreach(boots, i, bt) {
		char *f = xstrfmt("boots[%zu]", i);

		if (!json_is_object(bt))
			ret = bad(src, f, "is not an object");
		else if (check_int(src, bt, f, "idx", REQ, 0,
				   BUNDLE_MAX_BOOTS) < 0 ||
			 check_word(src, bt, f, "status", REQ, statuses) < 0 ||
			 check_str(src, bt, f, "end_kind", OPT, 64, NAME) < 0 ||
			 check_str(src, bt, f, "error", OPT,
				   BUNDLE_MAX_MESSAGE, TEXT) < 0 ||
			 check_num(src, bt, f, "duration_s", OPT, 0, 1e9) < 0 ||
			 check_array(src, bt, f, "samples", OPT,
				     BUNDLE_MAX_SAMPLES) < 0 ||
			 check_array(src, bt, f, "events", OPT,
				     BUNDLE_MAX_EVENTS) < 0)
			ret = -1;
		json_array_foreach(ret < 0 ? NULL :
				   json_object_get(bt, "samples"), j, x) {
			char *g = xstrfmt("%s.samples[%zu]", f, j);
			char *e[6];
			int k;

			for (k = 0; k < 6; k++)
				e[k] = xstrfmt("%s[%d]", g, k);
			if (!json_is_array(x) || json_array_size(x) != 6)
				ret = bad(src, g, "is not an array of 6");
			else if (check_strv(src, e[0], json_array_get(x, 0),
					    REQ, 64, NAME) < 0 ||
				 check_strv(src, e[1], json_array_get(x, 1),
					    OPT, 256, NAME) < 0 ||
				 check_strv(src, e[2], json_array_get(x, 2),
					    REQ, 128, NAME) < 0 ||
				 check_strv(src, e[3], json_array_get(x, 3),
					    REQ, 32, NAME) < 0 ||
				 check_intv(src, e[4], json_array_get(x, 4),
					    REQ, -1, BUNDLE_MAX_ITERS) < 0 ||
				 check_numv(src, e[5], json_array_get(x, 5),
					    REQ, -1e300, 1e300) < 0)
				ret = -1;
			for (k = 0; k < 6; k++)
				free(e[k]);
			free(g);
			if (ret < 0)
				break;
		}
		json_array_foreach(ret < 0 ? NULL :
				   json_object_get(bt, "events"), j, x) {
			char *g = xstrfmt("%s.events[%zu]", f, j);

			if (!json_is_array(x) || json_array_size(x) != 6)
				ret = bad(src, g, "is not an array of 6");
			else if (check_strv(src, g, json_array_get(x, 0), OPT,
					    64, NAME) < 0 ||
				 check_strv(src, g, json_array_get(x, 1), OPT,
					    256, NAME) < 0 ||
				 check_strv(src, g, json_array_get(x, 2), REQ,
					    64, NAME) < 0 ||
				 check_intv(src, g, json_array_get(x, 3), REQ,
					    -1, BUNDLE_MAX_ITERS) < 0 ||
				 check_strv(src, g, json_array_get(x, 4), OPT,
					    256, NAME) < 0 ||
				 check_strv(src, g, json_array_get(x, 5), REQ,
					    BUNDLE_MAX_MESSAGE, TEXT) < 0)
				ret = -1;
			free(g);
			if (ret < 0)
				break;
		}
		free(f);
		if (ret < 0)
			return -1;
	}
	return 0;
}

int bundle_check(const json_t *b, const char *src)
{
	const json_t *origin = json_object_get(b, "origin");

	if (!json_is_object(b))
		return error("bundle '%s' is not a JSON object", src);
	if (check_object(src, b, "bundle", "origin", REQ) < 0 ||
	    check_str(src, origin, "origin", "host", REQ, 255, NAME) < 0 ||
	    check_int(src, origin, "origin", "run", REQ, 1,
		      (1ll << 53)) < 0 ||
	    check_str(src, origin, "origin", "page", OPT, BUNDLE_MAX_NAME,
		      NAME) < 0 ||
	    check_run(src, b) < 0 || check_kernel(src, b) < 0 ||
	    check_boots(src, b) < 0 ||
	    check_str(src, b, "bundle", "domain_xml", OPT, BUNDLE_MAX_MESSAGE * 16,
		      TEXT) < 0)
		return -1;
	return 0;
}

int bundle_run_imported(struct db *db, long long run_id)
{
	long long n = 0;

	if (db_int_checked(db, &n, "SELECT count(*) FROM bundle_imports "
			   "WHERE run_id = ?", "i", run_id) < 0)
		return -1;
	return n > 0;
}

/* ---- storing one ----------------------------------------------------- */

static const char *js(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long ji(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static int need(const json_t *o, const char *what, const char *const *keys)
{
	for (; *keys; keys++)
		if (!json_object_get(o, *keys))
			return error("the bundle's %s has no '%s'", what, *keys);
	return 0;
}

static int import_series(struct db *db, const json_t *s, const char *src,
			 const char *sha1, long long *id)
{
	static const char *const keys[] = { "title", "version", "total",
					    "patches", "upto", NULL };
	const json_t *patches = json_object_get(s, "patches"), *p;
	struct imported_series is = { 0 };
	struct imported_patch *ip;
	size_t i;
	int ret;

	if (need(s, "series", keys) < 0 || !json_is_array(patches))
		return -1;
	ip = xcalloc(json_array_size(patches) + 1, sizeof(*ip));
	json_array_foreach(patches, i, p) {
		ip[i].idx = (int)ji(p, "idx");
		ip[i].version = (int)ji(p, "version");
		ip[i].title = js(p, "title");
		ip[i].author_name = js(p, "author_name");
		ip[i].author_email = js(p, "author_email");
		ip[i].date = ji(p, "date");
		ip[i].commit_message = js(p, "commit_message");
		ip[i].diff = js(p, "diff");
	}
	is.title = js(s, "title");
	is.version = (int)ji(s, "version");
	is.total = (int)ji(s, "total");
	is.is_rfc = json_is_true(json_object_get(s, "rfc"));
	is.message_id = json_string_value(json_object_get(s, "message_id"));
	is.author = json_string_value(json_object_get(s, "author"));
	is.base_commit = json_string_value(json_object_get(s,
							   "base_commit"));
	is.source = src;
	is.source_sha1 = sha1;
	is.patches = ip;
	is.nr = json_array_size(patches);
	/* ingest.c checks and writes it, as it does a mailed series */
	ret = ingest_store_imported(db, &is, id);
	free(ip);
	return ret;
}

/* the fragment as a file: <data>/bundles/<sha1>/<name>; caller frees */
static char *write_fragment(const struct mmci_config *cfg, const json_t *f,
			    const char *bsha)
{
	const char *name = js(f, "name"), *text;
	char *dir, *path;
	char sha[41];

	text = json_string_value(json_object_get(f, "text"));
	if (!text) {
		error("the bundle has no config fragment text (sha1 %.12s): "
		      "its build cannot be made again", js(f, "sha1"));
		return NULL;
	}
	hash_hex(text, strlen(text), sha);
	if (strcmp(sha, js(f, "sha1"))) {
		error("the bundle's config fragment has sha1 %.12s, it says "
		      "%.12s: the bundle is damaged", sha, js(f, "sha1"));
		return NULL;
	}
	if (!*name || strchr(name, '/') || *name == '.')
		name = "fragment.config";
	dir = xstrfmt("%s/bundles/%.16s", cfg->data_dir, bsha);
	path = xstrfmt("%s/%s", dir, name);
	if (mkdir_p(dir, 0755) < 0 ||
	    write_file(path, text, strlen(text)) < 0) {
		free(path);
		path = NULL;
	}
	free(dir);
	return path;
}

/* a refused import keeps no file: the fragment's folder goes */
static void forget_fragment(const struct mmci_config *cfg, const char *bsha)
{
	char *dir = xstrfmt("%s/bundles/%.16s", cfg->data_dir, bsha);
	char *top = xstrfmt("%s/bundles", cfg->data_dir);

	remove_tree(dir);
	rmdir(top);	/* when it is empty */
	free(dir);
	free(top);
}

/* a string of the bundle, NULL for "" (a column that was NULL) */
static const char *opt_str(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && *s ? s : NULL;
}

/*
 * A bundle's boots, samples and events, each through its owner (run.c's
 * boots, result.c's samples and events) and the checks a guest's own
 * lines get there.
 */
static int import_boots(struct db *db, const json_t *boots, long long run)
{
	const json_t *bt, *s;
	size_t i, j;

	json_array_foreach(boots, i, bt) {
		const json_t *samples = json_object_get(bt, "samples");
		const json_t *events = json_object_get(bt, "events");
		long long boot;

		if (run_store_imported_boot(db, run, (int)ji(bt, "idx"),
				js(bt, "status"),
				json_string_value(json_object_get(bt,
								  "end_kind")),
				json_string_value(json_object_get(bt, "error")),
				json_number_value(json_object_get(bt,
								  "duration_s")),
				&boot) < 0)
			return -1;
		json_array_foreach(samples, j, s) {
			struct result_record rec = { .type = "sample" };

			if (!json_is_array(s) || json_array_size(s) != 6 ||
			    !json_is_number(json_array_get(s, 5)))
				return error("the bundle has a bad sample "
					     "(boot %zu, sample %zu)", i, j);
			rec.workload = json_string_value(json_array_get(s, 0));
			rec.variant = json_string_value(json_array_get(s, 1));
			rec.metric = json_string_value(json_array_get(s, 2));
			rec.unit = json_string_value(json_array_get(s, 3));
			rec.iter = json_integer_value(json_array_get(s, 4));
			rec.value = json_number_value(json_array_get(s, 5));
			if (result_store_sample(db, run, boot, &rec) < 0)
				return -1;
		}
		/* [workload, variant, kind, iteration (-1: none), key, msg] */
		json_array_foreach(events, j, s) {
			struct result_record rec = { 0 };

			if (!json_is_array(s) || json_array_size(s) != 6)
				return error("the bundle has a bad event "
					     "(boot %zu, event %zu)", i, j);
			rec.workload = opt_str(json_array_get(s, 0));
			rec.variant = opt_str(json_array_get(s, 1));
			rec.iter = json_integer_value(json_array_get(s, 3));
			if (!json_is_integer(json_array_get(s, 3)))
				rec.iter = -1;
			if (result_store_event(db, run, boot,
				json_string_value(json_array_get(s, 2)), &rec,
				opt_str(json_array_get(s, 4)),
				json_string_value(json_array_get(s, 5))) < 0)
				return -1;
		}
	}
	return 0;
}

static int import_build(const struct mmci_config *cfg, struct db *db,
			const json_t *k, const char *arch, const char *src,
			const char *sha1, long long *build_id)
{
	static const char *const keys[] = { "commit", "base", "fragment",
					    NULL };
	const json_t *series = json_object_get(k, "series");
	const json_t *base = json_object_get(k, "base");
	const json_t *dot = json_object_get(k, "dotconfig");
	struct build_import bi = { 0 };
	long long series_id = 0, upto = 0;
	char *frag, *key;
	int ret;

	if (need(k, "kernel", keys) < 0)
		return -1;
	if (series) {
		upto = ji(series, "upto");
		if (import_series(db, series, src, sha1, &series_id) < 0)
			return -1;
		if (ingest_record_apply(db, series_id, *js(base, "ref") ?
					js(base, "ref") : js(base, "commit"),
					js(base, "commit"), (int)upto,
					js(k, "commit"), NULL) < 0)
			return -1;
	}
	frag = write_fragment(cfg, json_object_get(k, "fragment"), sha1);
	if (!frag)
		return -1;
	/* no cache lookup matches this key: the build is made again */
	key = xstrfmt("bundle:%s", sha1);
	bi.cache_key = key;
	bi.commit = js(k, "commit");
	bi.tree_oid = js(k, "tree");
	bi.series_id = series_id;
	bi.upto = (int)upto;
	bi.fragment = frag;
	bi.fragment_sha1 = js(json_object_get(k, "fragment"), "sha1");
	bi.dotconfig_sha1 = json_string_value(json_object_get(dot, "sha1"));
	bi.compiler = json_string_value(json_object_get(k, "compiler"));
	bi.release = json_string_value(json_object_get(k, "release"));
	bi.hz = (int)ji(k, "hz");
	bi.arch = arch;
	ret = build_store_imported(db, &bi, build_id);
	free(key);
	free(frag);
	if (ret < 0)
		return -1;
	/* the recorded .config, so that its text travels on */
	if (json_string_value(json_object_get(dot, "text")))
		ret = build_text_store(db, js(dot, "sha1"), js(dot, "text"));
	return ret;
}

int bundle_import(const struct mmci_config *cfg, struct db *db,
		  const json_t *b, const char *sha1, const char *src,
		  long long *run_id)
{
	static const char *const run_keys[] = { "workloads", "params",
		"accel", "clock", "vcpus", "ram_mib", "nvdimm_mib", "backing",
		"kernel_release", "status", NULL };
	const json_t *origin = json_object_get(b, "origin");
	const json_t *run = json_object_get(b, "run");
	const json_t *k = json_object_get(b, "kernel");
	const json_t *boots = json_object_get(b, "boots");
	struct run_row rr = { 0 };
	long long build_id = 0, have;
	char *label = NULL, *params = NULL, *initrd = NULL;
	const char *kernel = "(bundle)", *modroot = "(bundle)", *slash;
	/* a bundle made before arches is x86_64 */
	const char *arch = json_string_value(json_object_get(run, "arch"));
	int rc;

	if (!json_is_object(run) || !json_is_object(k) ||
	    !json_is_array(boots) || need(run, "run", run_keys) < 0)
		return error("bundle '%s' lacks its run, kernel or boots",
			     src);
	if (!arch)
		arch = ARCH_DEFAULT;
	if (!arch_find(arch))
		return error("bundle '%s': unknown arch '%s'", src, arch);
	rc = db_int_checked(db, &have, "SELECT run_id FROM bundle_imports "
			    "WHERE sha1 = ?", "t", sha1);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		printf("bundle: imported before as run #%lld\n", have);
		*run_id = have;
		return 0;
	}
	/* bundle_check(): a build, never a prebuilt file's path */
	if (strcmp(js(k, "kind"), "build"))
		return error("bundle '%s': kernel.kind '%s' is not 'build'",
			     src, js(k, "kind"));
	if (db_begin(db) < 0)
		return -1;
	if (!strcmp(js(k, "kind"), "build") &&
	    import_build(cfg, db, k, arch, src, sha1, &build_id) < 0)
		goto fail;
	/*
	 * The runner's initramfs (<data>/images/<release>-<key>.cpio.gz) is
	 * made again here for the new kernel: it is named as if this host
	 * had made it, which is how reproduce knows it. bundle_check()
	 * refused any other: only its name is kept, never a path.
	 */
	slash = strrchr(js(run, "initrd"), '/');
	initrd = slash ? xstrfmt("%s/images%s", cfg->data_dir, slash) :
			 xstrfmt("%s/images/%s-bundle.cpio.gz", cfg->data_dir,
				 js(run, "kernel_release"));
	label = xstrfmt("bundle: run %lld of %s", ji(origin, "run"),
			js(origin, "host"));
	params = json_is_string(json_object_get(run, "params")) ?
		 xstrdup(js(run, "params")) :
		 json_dumps(json_object_get(run, "params"), JSON_COMPACT);
	rr.label = label;
	rr.build_id = build_id;
	rr.kernel = (char *)kernel;
	rr.release = (char *)js(run, "kernel_release");
	rr.modroot = (char *)modroot;
	rr.hz = (int)ji(run, "hz");
	rr.workloads = (char *)js(run, "workloads");
	rr.params = params;
	rr.accel = (char *)js(run, "accel");
	rr.clock = (char *)js(run, "clock");
	rr.vcpus = ji(run, "vcpus");
	rr.ram_mib = ji(run, "ram_mib");
	rr.nvdimm_mib = ji(run, "nvdimm_mib");
	rr.backing = (char *)js(run, "backing");
	rr.qemu_v = (char *)json_string_value(json_object_get(run, "qemu"));
	rr.libvirt_v = (char *)json_string_value(json_object_get(run,
								 "libvirt"));
	rr.host = (char *)js(origin, "host");
	rr.runner_sha1 = (char *)json_string_value(json_object_get(run,
							"runner_sha1"));
	rr.initrd = initrd;
	rr.initrd_sha1 = (char *)json_string_value(json_object_get(run,
							"initrd_sha1"));
	rr.status = (char *)js(run, "status");
	rr.error = (char *)json_string_value(json_object_get(run, "error"));
	rr.started_at = json_number_value(json_object_get(run, "started_at"));
	rr.ended_at = json_number_value(json_object_get(run, "ended_at"));
	rr.arch = (char *)arch;
	/* run.c checks and writes it (the row is not ours to release) */
	if (run_store_imported(db, &rr, json_string_value(json_object_get(run,
			       "setup_sha1")), (int)ji(run, "concurrent"),
			       run_id) < 0)
		goto fail;
	if (import_boots(db, boots, *run_id) < 0 ||
	    db_run(db, "INSERT INTO bundle_imports (sha1, source, run_id, "
		   "origin_host, origin_run, imported_at) VALUES (?, ?, ?, ?, "
		   "?, ?)", "ttitid", sha1, src, *run_id, js(origin, "host"),
		   ji(origin, "run"), now_s()) < 0 ||
	    db_commit(db) < 0)
		goto fail;
	printf("bundle: run #%lld of %s stored here as run #%lld\n",
	       ji(origin, "run"), js(origin, "host"), *run_id);
	free(label);
	free(params);
	free(initrd);
	return 0;
fail:
	db_rollback(db);
	forget_fragment(cfg, sha1);
	free(label);
	free(params);
	free(initrd);
	return error("bundle '%s' not stored", src);
}

/* ---- its base -------------------------------------------------------- */

static int fetch_branch(git_repository *repo, const char *url,
			const char *branch)
{
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_remote *rem = NULL;
	char *spec = xstrfmt("+refs/heads/%s:refs/mmci/bundle/%s", branch,
			     branch);
	char *specs_v[1] = { spec };
	git_strarray specs = { specs_v, 1 };
	int ret = 0;

	progress("fetching branch '%s' of %s", branch, url);
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&rem, repo, url) < 0 ||
	    git_remote_fetch(rem, &specs, &fo, "mmci reproduce --bundle") < 0)
		ret = error("cannot fetch branch '%s' of %s: %s", branch, url,
			    git_errmsg());
	git_remote_free(rem);
	free(spec);
	return ret;
}

int bundle_fetch_base(const struct mmci_config *cfg, const json_t *b,
		      const char *remote_url)
{
	const json_t *k = json_object_get(b, "kernel");
	const json_t *base = json_object_get(k, "base");
	const json_t *remote = json_object_get(base, "remote");
	const char *hex = js(base, "commit"), *url, *branch;
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid id;
	int ret = -1;

	if (strcmp(js(k, "kind"), "build"))
		return 0;
	if (git_oid_fromstr(&id, hex) < 0)
		return error("the bundle's base commit '%s' is no commit id",
			     hex);
	if (tree_open_or_create(cfg->tree_dir, &repo) < 0)
		return -1;
	if (!git_commit_lookup(&c, repo, &id)) {
		printf("  %-16s %s, in the tree %s\n", "base", hex,
		       cfg->tree_dir);
		ret = 0;
		goto out;
	}
	url = remote_url ? remote_url : js(remote, "url");
	/* --remote is the operator's; the bundle's was checked, and is
	 * again here, where it is used */
	if (!remote_url && *url && !bundle_remote_allowed(url))
		return error("the bundle's remote '%s' is not an http(s)://, "
			     "git:// or ssh:// URL (MMCI_BUNDLE_ALLOW_FILE=1 "
			     "allows a repository of this host)", url);
	branch = js(remote, "branch");
	if (!*branch && *js(base, "ref")) {
		const char *slash = strrchr(js(base, "ref"), '/');

		branch = slash ? slash + 1 : js(base, "ref");
	}
	if (!*url || !*branch) {
		error("base %s (%s) is not in the tree %s and the bundle names "
		      "no remote that has it: fetch it into the tree, or give "
		      "--remote URL", hex, *js(base, "ref") ? js(base, "ref") :
		      "no ref", cfg->tree_dir);
		goto out;
	}
	if (fetch_branch(repo, url, branch) < 0)
		goto out;
	if (git_commit_lookup(&c, repo, &id) < 0) {
		error("branch '%s' of %s does not hold base %s (rebased "
		      "since?): fetch it into %s, or give --remote URL of a "
		      "mirror that has it", branch, url, hex, cfg->tree_dir);
		goto out;
	}
	printf("  %-16s %s, fetched from branch '%s' of %s\n", "base", hex,
	       branch, url);
	/* a tree made empty here has an unborn HEAD: worktrees need one */
	if (git_repository_head_unborn(repo) == 1 &&
	    git_repository_set_head_detached(repo, &id) < 0) {
		error("cannot set the HEAD of %s to %s: %s", cfg->tree_dir, hex,
		      git_errmsg());
		goto out;
	}
	ret = 0;
out:
	git_commit_free(c);
	git_repository_free(repo);
	return ret;
}
