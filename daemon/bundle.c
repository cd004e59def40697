// SPDX-License-Identifier: GPL-2.0
/*
 * bundle.c - a run as one self-contained file, and that file stored back
 * as a run of another database (bundle.h).
 */
#include <string.h>

#include <git2.h>
#include <zlib.h>

#include "arch.h"
#include "build.h"
#include "bundle.h"
#include "fetch.h"
#include "fsutil.h"
#include "ingest.h"
#include "remote.h"
#include "run.h"
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

int bundle_read(const struct mmci_config *cfg, const char *src, json_t **out,
		char sha1[41])
{
	struct fetch_result res = { 0 };
	struct strbuf text = STRBUF_INIT, damage = STRBUF_INIT;
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
		if (fetch_url(cfg, src, &fo, &res) < 0)
			goto out;
		path = res.path;
	} else if (check_input_file(src, "bundle") < 0) {
		goto out;
	}
	if (mbox_read_file(path, &text, &damage) < 0)
		goto out;
	if (damage.len) {
		error("bundle '%s': %s", src, damage.buf);
		goto out;
	}
	hash_hex(text.buf, text.len, sha1);
	b = json_loadb(text.buf, text.len, 0, &je);
	if (!b) {
		error("bundle '%s' is not JSON: %s (line %d)", src, je.text,
		      je.line);
		goto out;
	}
	fmt = json_string_value(json_object_get(b, "format"));
	if (!fmt || strcmp(fmt, BUNDLE_FORMAT)) {
		error("'%s' is not an mmci bundle (format %s, want %s)", src,
		      fmt ? fmt : "missing", BUNDLE_FORMAT);
		json_decref(b);
		b = NULL;
		goto out;
	}
	ret = 0;
out:
	*out = b;
	fetch_result_release(&res);
	strbuf_release(&text);
	strbuf_release(&damage);
	return ret;
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
	size_t i;

	if (need(s, "series", keys) < 0 || !json_is_array(patches))
		return -1;
	if (db_run(db, "INSERT INTO series (title, version, total, is_rfc, "
		   "message_id, author, source, source_sha1, base_commit, "
		   "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tiiitttttd", js(s, "title"), ji(s, "version"),
		   ji(s, "total"), (long long)json_is_true(json_object_get(s,
		   "rfc")), json_string_value(json_object_get(s,
		   "message_id")), json_string_value(json_object_get(s,
		   "author")), src, sha1, json_string_value(
		   json_object_get(s, "base_commit")), now_s()) < 0)
		return -1;
	*id = db_last_id(db);
	json_array_foreach(patches, i, p) {
		const char *diff = js(p, "diff");
		char dsha[41], pid[GIT_OID_HEXSZ + 1], *author;
		int has_pid;

		hash_hex(diff, strlen(diff), dsha);
		author = xstrfmt("%s <%s>", js(p, "author_name"),
				 js(p, "author_email"));
		/* the patch-id, as the ingest stores it (nightly culprits) */
		has_pid = !tree_patch_id_of_diff(diff, pid);
		if (db_run(db, "INSERT INTO patches (series_id, idx, version, "
			   "title, author, diff_sha1, has_diff, patch_id, "
			   "author_name, author_email, date, commit_message, "
			   "diff) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
			   "?)", "iiitttitttitt", *id, ji(p, "idx"),
			   ji(p, "version"), js(p, "title"), author, dsha,
			   (long long)(*diff != '\0'), has_pid ? pid : NULL,
			   js(p, "author_name"), js(p, "author_email"),
			   ji(p, "date"), js(p, "commit_message"), diff) < 0) {
			free(author);
			return -1;
		}
		free(author);
	}
	return 0;
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

/* a string of the bundle, NULL for "" (a column that was NULL) */
static const char *opt_str(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && *s ? s : NULL;
}

static int import_boots(struct db *db, const json_t *boots, long long run)
{
	const json_t *bt, *s;
	size_t i, j;

	json_array_foreach(boots, i, bt) {
		const json_t *samples = json_object_get(bt, "samples");
		const json_t *events = json_object_get(bt, "events");
		long long boot;

		if (db_run(db, "INSERT INTO boots (run_id, idx, status, "
			   "end_kind, error, started_at, duration_s) VALUES "
			   "(?, ?, ?, ?, ?, 0, ?)", "iitttd", run,
			   ji(bt, "idx"), js(bt, "status"),
			   json_string_value(json_object_get(bt, "end_kind")),
			   json_string_value(json_object_get(bt, "error")),
			   json_real_value(json_object_get(bt,
			   "duration_s"))) < 0)
			return -1;
		boot = db_last_id(db);
		json_array_foreach(samples, j, s) {
			if (!json_is_array(s) || json_array_size(s) != 6 ||
			    !json_is_string(json_array_get(s, 0)) ||
			    !json_is_string(json_array_get(s, 1)) ||
			    !json_is_string(json_array_get(s, 2)) ||
			    !json_is_string(json_array_get(s, 3)))
				return error("the bundle has a bad sample "
					     "(boot %zu, sample %zu)", i, j);
			if (db_run(db, "INSERT INTO samples (run_id, boot_id, "
				   "workload, variant, metric, unit, "
				   "iteration, value) VALUES (?, ?, ?, ?, ?, "
				   "?, ?, ?)", "iittttid", run, boot,
				   json_string_value(json_array_get(s, 0)),
				   json_string_value(json_array_get(s, 1)),
				   json_string_value(json_array_get(s, 2)),
				   json_string_value(json_array_get(s, 3)),
				   (long long)json_integer_value(
					   json_array_get(s, 4)),
				   json_number_value(json_array_get(s, 5))) < 0)
				return -1;
		}
		/* iteration -1: none (NULL) */
		json_array_foreach(events, j, s) {
			long long it;

			if (!json_is_array(s) || json_array_size(s) != 6 ||
			    !json_is_string(json_array_get(s, 2)) ||
			    !json_is_string(json_array_get(s, 5)))
				return error("the bundle has a bad event "
					     "(boot %zu, event %zu)", i, j);
			it = json_integer_value(json_array_get(s, 3));
			if (db_run(db, "INSERT INTO events (run_id, boot_id, "
				   "workload, variant, kind, iteration, key, "
				   "message) VALUES (?, ?, ?, ?, ?, NULLIF(?, "
				   "-1), ?, ?)", "iitttitt", run, boot,
				   opt_str(json_array_get(s, 0)),
				   opt_str(json_array_get(s, 1)),
				   json_string_value(json_array_get(s, 2)), it,
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
	long long series_id = 0, upto = 0;
	char *frag, *key;
	int ret;

	if (need(k, "kernel", keys) < 0)
		return -1;
	if (series) {
		upto = ji(series, "upto");
		if (import_series(db, series, src, sha1, &series_id) < 0)
			return -1;
		if (db_run(db, "INSERT INTO applies (series_id, base_ref, "
			   "base_commit, upto, head_commit, status, "
			   "created_at) VALUES (?, ?, ?, ?, ?, 'ok', ?)",
			   "ittitd", series_id, *js(base, "ref") ?
			   js(base, "ref") : js(base, "commit"),
			   js(base, "commit"), upto, js(k, "commit"),
			   now_s()) < 0)
			return -1;
	}
	frag = write_fragment(cfg, json_object_get(k, "fragment"), sha1);
	if (!frag)
		return -1;
	/* no cache lookup matches this key: the build is made again */
	key = xstrfmt("bundle:%s", sha1);
	ret = db_run(db, "INSERT INTO builds (cache_key, tree_path, commit_id, "
		     "tree_oid, series_id, upto, config_fragment, config_hash, "
		     "dotconfig_hash, compiler, kernel_release, hz, status, "
		     "started_at, arch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		     "?, ?, 'ok', ?, ?)", "ttttIitttttidt", key, "(bundle)",
		     js(k, "commit"),
		     js(k, "tree"), series_id, upto, frag,
		     js(json_object_get(k, "fragment"), "sha1"),
		     json_string_value(json_object_get(dot, "sha1")),
		     json_string_value(json_object_get(k, "compiler")),
		     json_string_value(json_object_get(k, "release")),
		     ji(k, "hz"), now_s(), arch);
	free(key);
	free(frag);
	if (ret < 0)
		return -1;
	*build_id = db_last_id(db);
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
	if (!strcmp(js(k, "kind"), "prebuilt")) {
		kernel = js(k, "path");
		modroot = js(k, "modules_root");
	} else if (strcmp(js(k, "kind"), "build")) {
		return error("bundle '%s': unknown kernel kind '%s'", src,
			     js(k, "kind"));
	}
	if (db_begin(db) < 0)
		return -1;
	if (!strcmp(js(k, "kind"), "build") &&
	    import_build(cfg, db, k, arch, src, sha1, &build_id) < 0)
		goto fail;
	/*
	 * The runner's initramfs (<data>/images/<release>-<key>.cpio.gz) is
	 * made again here for the new kernel: it is named as if this host
	 * had made it, which is how reproduce knows it. Any other initramfs
	 * was given by hand and is looked for where it was.
	 */
	slash = strstr(js(run, "initrd"), "/images/");
	initrd = slash ? xstrfmt("%s%s", cfg->data_dir, slash) :
			 xstrdup(*js(run, "initrd") ? js(run, "initrd") :
				 "(bundle)");
	label = xstrfmt("bundle: run %lld of %s", ji(origin, "run"),
			js(origin, "host"));
	params = json_is_string(json_object_get(run, "params")) ?
		 xstrdup(js(run, "params")) :
		 json_dumps(json_object_get(run, "params"), JSON_COMPACT);
	if (db_run(db, "INSERT INTO runs (label, build_id, kernel, "
		   "kernel_release, modules_root, hz, workloads, params, accel, "
		   "clock, vcpus, ram_mib, nvdimm_mib, backing, qemu_version, "
		   "libvirt_version, host, runner_sha1, initrd, initrd_sha1, "
		   "status, error, started_at, ended_at, setup_sha1, "
		   "concurrent, arch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "tItttittttiiitttttttttddtit", label, build_id, kernel,
		   js(run, "kernel_release"), modroot, ji(run, "hz"),
		   js(run, "workloads"), params, js(run, "accel"),
		   js(run, "clock"), ji(run, "vcpus"), ji(run, "ram_mib"),
		   ji(run, "nvdimm_mib"), js(run, "backing"),
		   json_string_value(json_object_get(run, "qemu")),
		   json_string_value(json_object_get(run, "libvirt")),
		   js(origin, "host"),
		   json_string_value(json_object_get(run, "runner_sha1")),
		   initrd,
		   json_string_value(json_object_get(run, "initrd_sha1")),
		   js(run, "status"),
		   json_string_value(json_object_get(run, "error")),
		   json_number_value(json_object_get(run, "started_at")),
		   json_number_value(json_object_get(run, "ended_at")),
		   json_string_value(json_object_get(run, "setup_sha1")),
		   ji(run, "concurrent") > 0 ? ji(run, "concurrent") : 1,
		   arch) < 0)
		goto fail;
	*run_id = db_last_id(db);
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
