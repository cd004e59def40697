// SPDX-License-Identifier: GPL-2.0
/*
 * test-runs: on a real SQLite file, run_load() reads one run's row (its
 * boots counted, its parameters parsed, its build joined) and says when
 * there is none; run_units() and run_value() apply the unit rule (every
 * sample of the ok boots in icount mode, one median per ok boot on the
 * wall clock) and tell a failed read from no data. Well under a second.
 * Its files are in tests/trash.test-runs.XXXXXX, removed when every case
 * passed.
 */
#include <math.h>
#include <unistd.h>

#include "tap.h"
#include "compare.h"
#include "db.h"
#include "fsutil.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

static int fill(struct db *db)
{
	static const char *const sql[] = {
		"INSERT INTO builds (id, cache_key, tree_path, commit_id, "
		"tree_oid, upto, config_fragment, config_hash, compiler, hz, "
		"status, started_at) VALUES (1, 'k', '/t', 'c0ffee', 'tt', 0, "
		"'frag.config', 'f1', 'gcc 12', 250, 'ok', 1)",
		/* run 1: a built kernel on the wall clock */
		"INSERT INTO runs (id, label, build_id, kernel, "
		"kernel_release, modules_root, workloads, params, accel, "
		"clock, vcpus, ram_mib, nvdimm_mib, backing, host, initrd, "
		"status, started_at, ended_at) VALUES (1, NULL, 1, '/k', "
		"'6.12.0', '/m', 'fsdax,devdax', '{\"cmdline\":\"console="
		"ttyS0 mmci.iters=3\",\"timeout_s\":600,\"vmem_max_mib\":"
		"16384,\"pin\":true}', 'tcg', 'wall', 2, 6144, 4096, 'tmpfs', "
		"'h1', '/i', 'ok', 100, 160)",
		"INSERT INTO boots (id, run_id, idx, status, started_at, "
		"duration_s) VALUES (1, 1, 0, 'ok', 100, 10), "
		"(2, 1, 1, 'ok', 120, 12), (3, 1, 2, 'failed', 140, 5)",
		/* boot 1: 1 2 3 (median 2); boot 2: 10 20 (15); boot 3
		 * failed: never a unit */
		"INSERT INTO samples (run_id, boot_id, workload, variant, "
		"metric, unit, iteration, value) VALUES "
		"(1, 1, 'fsdax', '2M', 'bind_ms', 'ms', 0, 3), "
		"(1, 1, 'fsdax', '2M', 'bind_ms', 'ms', 1, 1), "
		"(1, 1, 'fsdax', '2M', 'bind_ms', 'ms', 2, 2), "
		"(1, 2, 'fsdax', '2M', 'bind_ms', 'ms', 0, 10), "
		"(1, 2, 'fsdax', '2M', 'bind_ms', 'ms', 1, 20), "
		"(1, 3, 'fsdax', '2M', 'bind_ms', 'ms', 0, 100), "
		"(1, 3, 'fsdax', '2M', 'bind_ms', 'ms', 1, 100)",
		/* run 2: prebuilt, parameters an older mmci wrote */
		"INSERT INTO runs (id, label, kernel, kernel_release, "
		"modules_root, hz, workloads, params, accel, clock, vcpus, "
		"ram_mib, nvdimm_mib, backing, host, initrd, qemu_version, "
		"status, started_at) VALUES (2, 'old', '/boot/vmlinuz', "
		"'6.1.0', '/', 100, 'fsdax', 'iters=3', 'kvm', 'icount', 1, "
		"2048, 1024, 'disk', 'h2', '/i2', 'QEMU 9', 'running', 200)",
		/* run 3: names a build that is gone */
		"PRAGMA foreign_keys = OFF",
		"INSERT INTO runs (id, build_id, kernel, kernel_release, "
		"modules_root, workloads, params, accel, clock, vcpus, "
		"ram_mib, nvdimm_mib, backing, host, initrd, status, "
		"started_at) VALUES (3, 77, '/k', '6.12.0', '/m', 'fsdax', "
		"'{\"cmdline\":\"\",\"timeout_s\":60,\"pin\":false}', 'tcg', "
		"'icount', 1, 2048, 1024, 'tmpfs', 'h1', '/i', 'failed', 300)",
		"PRAGMA foreign_keys = ON",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sql); i++)
		if (db_run(db, sql[i], "") < 0)
			return -1;
	return 0;
}

static void test_load(struct db *db)
{
	struct run_row r;
	struct strbuf sb = STRBUF_INIT;

	if (!ok(run_load(db, 1, &r) == 0, "run_load: run #1"))
		return;
	is_int(r.id, 1, "id");
	is_int(r.build_id, 1, "build_id");
	is_str(r.label, "", "a NULL label is \"\"");
	is_str(r.release, "6.12.0", "kernel release");
	is_str(r.workloads, "fsdax,devdax", "workloads");
	is_str(r.clock, "wall", "clock");
	is_str(r.qemu_v, "", "QEMU version not recorded: \"\"");
	is_int(r.hz, 0, "runs.hz NULL: 0");
	is_int(r.boots, 3, "3 boots");
	is_int(r.ok_boots, 2, "2 of them ok");
	is_double(r.boot_s, 27, 1e-9, "27 s of boots");
	is_double(r.ended_at, 160, 1e-9, "ended_at");
	ok(r.params_ok, "the parameters are readable");
	is_str(r.cmdline, "console=ttyS0 mmci.iters=3", "cmdline");
	is_int(r.timeout_s, 600, "timeout_s");
	is_int(r.vmem_max_mib, 16384, "vmem_max_mib");
	is_int(r.pin, 1, "pinned");
	ok(r.pj != NULL, "the parameters parsed");
	ok(r.build_found, "its build is there");
	is_str(r.commit, "c0ffee", "the build's commit");
	is_str(r.compiler, "gcc 12", "the build's compiler");
	is_str(r.dotconfig_hash, "", "no .config hash: \"\"");
	is_int(r.build_hz, 250, "the build's HZ");
	run_setup_shape(&r, &sb);
	is_str(sb.buf, "4096 MiB NVDIMM on tmpfs, 6144 MiB RAM, 2 vCPU(s) "
	       "pinned", "run_setup_shape");
	run_row_release(&r);
	ok(r.label == NULL && r.pj == NULL, "run_row_release: zeroed");

	if (ok(run_load(db, 2, &r) == 0, "run_load: run #2")) {
		is_int(r.build_id, 0, "prebuilt: no build");
		ok(!r.build_found, "prebuilt: no build row");
		is_int(r.hz, 100, "runs.hz");
		is_str(r.qemu_v, "QEMU 9", "QEMU version");
		is_double(r.ended_at, -1, 1e-9, "still running: ended_at -1");
		ok(!r.params_ok && r.pj == NULL,
		   "unreadable parameters: no error, params_ok 0");
		is_str(r.cmdline, "", "no cmdline: \"\"");
		is_int(r.pin, -1, "pinning not recorded: -1");
		strbuf_reset(&sb);
		run_setup_shape(&r, &sb);
		is_str(sb.buf, "1024 MiB NVDIMM on disk, 2048 MiB RAM, "
		       "1 vCPU(s)", "run_setup_shape: not pinned");
		run_row_release(&r);
	}
	if (ok(run_load(db, 3, &r) == 0, "run_load: run #3")) {
		ok(r.build_id == 77 && !r.build_found,
		   "a build that is gone: build_id kept, build_found 0");
		ok(r.params_ok && r.pin == 0, "pin false: 0");
		run_row_release(&r);
	}
	is_int(run_load(db, 42, &r), -1, "run_load: no run #42");
	ok(strstr(last_error(), "no run #42 in '") != NULL,
	   "run_load: the error names the run and the database");
	ok(r.label == NULL, "run_load: nothing to release after a failure");
	strbuf_release(&sb);
}

static void test_units(struct db *db)
{
	struct unit_values u = UNIT_VALUES_INIT;
	double v = -1;

	ok(run_units_per_boot("wall") == 1 &&
	   run_units_per_boot("icount") == 0,
	   "run_units_per_boot: wall 1, icount 0");
	is_int(run_units(db, 1, "fsdax", "2M", "bind_ms", 1, &u), 0,
	       "run_units: per boot");
	if (ok(u.nr == 2, "per boot: one unit per ok boot")) {
		is_double(u.v[0], 2, 1e-9, "boot 1: median 2");
		is_double(u.v[1], 15, 1e-9, "boot 2: median 15");
		is_double(u.cv[1], sqrt(50) / 15, 1e-9,
			  "boot 2: its CV, stddev / mean");
	}
	is_int(u.boots, 2, "per boot: 2 ok boots, the failed one left out");
	is_int(run_units(db, 1, "fsdax", "2M", "bind_ms", 0, &u), 0,
	       "run_units: every sample");
	if (ok(u.nr == 5, "every sample of the ok boots")) {
		is_double(u.v[0], 3, 1e-9, "in boot and iteration order");
		is_double(u.v[4], 20, 1e-9, "the last of boot 2");
	}
	ok(u.cv == NULL, "no CVs for samples");
	is_int(u.boots, 2, "every sample: 2 ok boots");
	is_int(run_units(db, 1, "fsdax", "4K", "bind_ms", 1, &u), 0,
	       "run_units: a variant the run does not have");
	ok(u.nr == 0 && u.boots == 0, "no units, no boots");

	is_int(run_value(db, 1, "fsdax", "2M", "bind_ms", 1, &v), 1,
	       "run_value: per boot");
	is_double(v, 8.5, 1e-9, "the median of the boots' medians 2, 15");
	is_int(run_value(db, 1, "fsdax", "2M", "bind_ms", 0, &v), 1,
	       "run_value: every sample");
	is_double(v, 3, 1e-9, "the median of 1 2 3 10 20");
	v = -1;
	is_int(run_value(db, 2, "fsdax", "2M", "bind_ms", 1, &v), 0,
	       "run_value: a run without samples: 0");
	is_double(v, -1, 0, "value untouched");

	/* a read that fails is an error, not "no samples" */
	if (db_run(db, "ALTER TABLE samples RENAME TO gone", "") < 0)
		return;
	is_int(run_units(db, 1, "fsdax", "2M", "bind_ms", 1, &u), -1,
	       "run_units: a failed query: -1");
	ok(u.nr == 0 && u.v == NULL, "run_units: empty after a failure");
	is_int(run_value(db, 1, "fsdax", "2M", "bind_ms", 1, &v), -1,
	       "run_value: a failed query: -1");
	unit_values_release(&u);
}

int main(void)
{
	char tmpl[] = "tests/trash.test-runs.XXXXXX", *dir, *path;
	struct db db;

	/* from the top of the tree (make check), else where it runs */
	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory for the database"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database") ||
	    !ok(fill(&db) == 0, "a build, three runs, boots and samples"))
		return done_testing();
	test_load(&db);
	test_units(&db);
	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	return done_testing();
}
