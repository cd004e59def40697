// SPDX-License-Identifier: GPL-2.0
/*
 * test-reuse: the keys of what mmci does not do twice. On a real SQLite
 * file, run_find_reusable() finds an earlier icount run of the same
 * build, parameters and set-up with enough ok boots, and no run when any
 * one of those differs, on the wall clock, or when it has too few boots;
 * run_same_setup() says two runs, booted or not, are one kernel and
 * set-up on the same columns, never on the wall clock;
 * run_drop_unbooted() drops only a run with nothing recorded. Then
 * build_config_key(): equal inputs, equal key; any one input changed,
 * another key. Well under a second. Its files are in
 * tests/trash.test-reuse.XXXXXX, removed when every case passed.
 */
#include <unistd.h>

#include "tap.h"
#include "build.h"
#include "db.h"
#include "fsutil.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

#define PARAMS "'{\"cmdline\":\"console=ttyS0\",\"timeout_s\":600}'"

static int sql(struct db *db, const char *s)
{
	return db_run(db, s, "");
}

/* run @id of build @build: set-up as run 1's unless @col = @val */
static int add_run(struct db *db, long long id, long long build,
		   const char *col, const char *val, const char *status)
{
	struct strbuf sb = STRBUF_INIT;
	const char *cols[] = { "workloads", "params", "accel", "clock",
			       "vcpus", "ram_mib", "nvdimm_mib", "backing",
			       "qemu_version", "libvirt_version",
			       "runner_sha1", "initrd_sha1", "setup_sha1",
			       "kernel_release", "arch" };
	const char *vals[] = { "'fsdax'", PARAMS, "'tcg'", "'icount'", "1",
			       "3072", "4096", "'tmpfs'", "'8.2.2'",
			       "'10.0.0'", "'r1'", "'i1'", "'s1'",
			       "'6.12.0'", "'x86_64'" };
	size_t i;
	int rc;

	strbuf_addf(&sb, "INSERT INTO runs (id, build_id, kernel, "
		    "modules_root, host, initrd, status, started_at");
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		strbuf_addf(&sb, ", %s", cols[i]);
	strbuf_addf(&sb, ") VALUES (%lld, %lld, '/k', '/m', 'h', '/i', "
		    "'%s', 1764547200", id, build, status);
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		strbuf_addf(&sb, ", %s",
			    col && !strcmp(col, cols[i]) ? val : vals[i]);
	strbuf_addstr(&sb, ")");
	rc = sql(db, sb.buf);
	strbuf_release(&sb);
	return rc;
}

static int add_boots(struct db *db, long long run, int ok, int failed)
{
	int i, rc = 0;

	for (i = 0; i < ok + failed && !rc; i++) {
		char *s = xstrfmt("INSERT INTO boots (run_id, idx, status, "
				  "started_at) VALUES (%lld, %d, '%s', 1)",
				  run, i, i < ok ? "ok" : "failed");

		rc = sql(db, s);
		free(s);
	}
	return rc;
}

static void test_find(struct db *db)
{
	static const struct {
		const char *col, *val, *why;
	} differ[] = {
		{ "workloads", "'fsdax,devdax'", "other workloads" },
		{ "params", "'{\"cmdline\":\"x\",\"timeout_s\":600}'",
		  "other parameters" },
		{ "clock", "'wall'", "the wall clock" },
		{ "accel", "'kvm'", "another accelerator" },
		{ "vcpus", "2", "another vCPU count" },
		{ "ram_mib", "4096", "another RAM size" },
		{ "nvdimm_mib", "8192", "another NVDIMM size" },
		{ "backing", "'disk'", "another backing" },
		{ "qemu_version", "'9.0.0'", "another QEMU" },
		{ "libvirt_version", "'11.0.0'", "another libvirt" },
		{ "runner_sha1", "'r2'", "another runner" },
		{ "initrd_sha1", "'i2'", "another initramfs" },
		{ "setup_sha1", "'s2'", "another set-up (machine, CPU, arch)" },
		{ "setup_sha1", "NULL", "a set-up not recorded" },
		{ "arch", "'arm64'", "another guest arch" },
	};
	long long id = 100;
	size_t i;

	/* builds 1 and 2: one kernel (same key, same .config); 3 another */
	if (!ok(sql(db, "INSERT INTO builds (id, cache_key, tree_path, "
		    "commit_id, tree_oid, upto, config_fragment, config_hash, "
		    "compiler, status, dotconfig_hash, started_at) VALUES "
		    "(1, 'k1', '/t', 'c', 't', 0, 'f', 'h', 'gcc', 'ok', 'd1', 1),"
		    "(2, 'k1', '/t', 'c', 't', 0, 'f', 'h', 'gcc', 'ok', 'd1', 2),"
		    "(3, 'k2', '/t', 'c2', 't2', 0, 'f', 'h', 'gcc', 'ok', 'd2', 3)")
		== 0, "three builds, two of one kernel") ||
	    !ok(add_run(db, 1, 1, NULL, NULL, "ok") == 0 &&
		add_boots(db, 1, 2, 1) == 0, "run 1: icount, 2 of 3 boots ok"))
		return;

	ok(add_run(db, 2, 2, NULL, NULL, "running") == 0, "run 2: just made");
	is_int(run_find_reusable(db, 2, 2), 1, "same build and set-up: run 1");
	is_int(run_find_reusable(db, 2, 3), 0, "not when it has too few boots");
	is_int(run_find_reusable(db, 1, 1), 0, "never the run itself");
	is_int(run_same_setup(db, 1, 2), 1, "runs 1 and 2: one kernel and set-up");
	ok(add_run(db, 6, 1, NULL, NULL, "running") == 0, "run 6: just made");
	is_int(run_same_setup(db, 2, 6), 1, "two runs not booted yet: one kernel");

	ok(add_run(db, 3, 3, NULL, NULL, "running") == 0, "run 3");
	is_int(run_find_reusable(db, 3, 1), 0, "another kernel: no reuse");
	is_int(run_same_setup(db, 2, 3), 0, "another kernel: not shared");

	for (i = 0; i < ARRAY_SIZE(differ); i++) {
		char *name = xstrfmt("%s: no reuse", differ[i].why);

		if (add_run(db, ++id, 2, differ[i].col, differ[i].val,
			    "running") < 0) {
			ok(0, name);
		} else {
			is_int(run_find_reusable(db, id, 1), 0, name);
			free(name);
			name = xstrfmt("%s: not shared", differ[i].why);
			is_int(run_same_setup(db, 2, id), 0, name);
		}
		free(name);
	}

	/* a wall-clock run is never reused, even by a wall-clock run */
	ok(add_run(db, 4, 1, "clock", "'wall'", "ok") == 0 &&
	   add_boots(db, 4, 6, 0) == 0, "run 4: wall clock, 6 ok boots");
	ok(add_run(db, 5, 1, "clock", "'wall'", "running") == 0, "run 5");
	is_int(run_find_reusable(db, 5, 1), 0, "wall clock: no reuse");
	is_int(run_same_setup(db, 4, 5), 0, "wall clock: never shared");

	/* a failed run is not reused */
	ok(sql(db, "UPDATE runs SET status = 'failed' WHERE id = 1") == 0,
	   "run 1 failed");
	is_int(run_find_reusable(db, 2, 1), 0, "a failed run: no reuse");

	is_int(run_drop_unbooted(db, 2), 0, "an unbooted run is dropped");
	is_int(db_int(db, -1, "SELECT count(*) FROM runs WHERE id = 2", ""), 0,
	       "and gone");
	ok(run_drop_unbooted(db, 1) < 0, "a run with boots is not dropped");
	is_int(db_int(db, -1, "SELECT count(*) FROM runs WHERE id = 1", ""), 1,
	       "and stays");

	is_int(run_mark_concurrent(db, 4, 1, 2), 0, "boot 1 of run 4 ran with 2");
	is_int(db_int(db, -1, "SELECT concurrent FROM runs WHERE id = 4", ""),
	       2, "run 4 says 2 at once");
	is_int(db_int(db, -1, "SELECT concurrent FROM boots WHERE run_id = 4 "
		      "AND idx = 0", ""), 1, "its boot 0 ran alone");
}

static void test_config_key(void)
{
	struct config_key_inputs a = { "tinyconfig+kvm_guest.config", "f1",
				       "x86_64", "gcc 12.2.0", "k1" }, b;
	char ka[41], kb[41];
	const char **field[] = { &b.recipe, &b.fragment_sha1, &b.arch, &b.cc,
				 &b.kconfig_sha1 };
	const char *name[] = { "recipe", "fragment", "arch", "compiler",
			       "Kconfig files" };
	size_t i;

	build_config_key(&a, ka);
	b = a;
	build_config_key(&b, kb);
	is_str(kb, ka, "equal inputs, equal key");
	is_int((int)strlen(ka), 40, "a SHA-1 in hex");
	for (i = 0; i < ARRAY_SIZE(field); i++) {
		char *what = xstrfmt("another %s, another key", name[i]);

		b = a;
		*field[i] = "changed";
		build_config_key(&b, kb);
		ok(strcmp(ka, kb), what);
		free(what);
	}
	/* a value's end cannot move into the next field */
	b = a;
	b.arch = "x86_64\ncc gcc 12.2.0";
	b.cc = "";
	build_config_key(&b, kb);
	ok(strcmp(ka, kb), "fields do not run into each other");
}

int main(void)
{
	char tmpl[] = "tests/trash.test-reuse.XXXXXX", *dir, *path;
	struct db db;

	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory for the database"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database"))
		return done_testing();
	test_find(&db);
	db_close(&db);
	test_config_key();
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	return done_testing();
}
