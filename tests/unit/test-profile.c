// SPDX-License-Identifier: GPL-2.0
/*
 * test-profile.c - a profiling boot's files into functions (profile.h):
 * addresses mapped through the guest's own symbol table (modules and
 * user space included), counts summed per function, two profiles
 * compared and printed in at most 80 columns; and the bad inputs: no
 * symbol table, not the plugin's output, a window kind the runner never
 * named. Files are written here as the runner and the plugin write them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fsutil.h"
#include "profile.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

static const char syms[] =
	"ffffffff81000000 T _stext\\n"
	"ffffffff81001000 t memmap_init_zone_device\\n"
	"ffffffff81002000 t __init_zone_device_page\\n"
	"ffffffff81003000 T cond_resched\\n"
	"ffffffffc0001000 t nd_pmem_probe\\t[nd_pmem]\\n";

static void write_results(const char *path, const char *windows)
{
	FILE *f = fopen(path, "w");

	fprintf(f, "{\"v\":1,\"type\":\"hello\",\"kernel\":\"6.12\"}\n%s"
		"{\"v\":1,\"type\":\"ksyms\",\"text\":\"%s\"}\n"
		"{\"v\":1,\"type\":\"done\",\"status\":\"ok\"}\n", windows,
		syms);
	fclose(f);
}

static const char window0[] =
	"{\"v\":1,\"type\":\"info\",\"workload\":\"fsdax\",\"variant\":"
	"\"align=2M,map=dev\",\"key\":\"profile_window\",\"value\":\"0\"}\n";

/* a profiles row, then the files stored into it: 0 or -1 */
static long long store(struct db *db, const char *dir, const char *windows,
		       const char *counts_text)
{
	char *results = xstrfmt("%s/results.jsonl", dir);
	char *counts = xstrfmt("%s/counts.txt", dir);
	long long pid;
	int rc;

	write_results(results, windows);
	write_file(counts, counts_text, strlen(counts_text));
	db_run(db, "INSERT INTO profiles (run_id, status, method, started_at) "
	       "VALUES (1, 'running', 'test', 0)", "");
	pid = db_last_id(db);
	rc = profile_store(db, pid, results, counts, 1.0);
	free(results);
	free(counts);
	return rc < 0 ? -1 : pid;
}

static int max_width(const char *s)
{
	int w = 0, max = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			w = 0;
			continue;
		}
		if (++w > max)
			max = w;
	}
	return max;
}

int main(void)
{
	char tmpl[] = "tests/trash.test-profile.XXXXXX", *dir, *path;
	struct profile_diff d;
	struct strbuf out = STRBUF_INIT;
	long long base, cand, bad;
	struct db db;

	dir = mkdtemp(file_exists("tests/lib.sh") ? tmpl : tmpl + 6);
	if (!ok(dir != NULL, "a directory"))
		return done_testing();
	path = xstrfmt("%s/mmci.db", dir);
	if (!ok(db_open(&db, path) == 0, "a new database"))
		return done_testing();
	db_run(&db, "PRAGMA foreign_keys = OFF", "");

	/* two windows; per address counts, as the plugin prints them */
	base = store(&db, dir, window0,
		     "mmci-profile 1 x86_64\n"
		     "window 0 2 2600\n"
		     "0 ffffffff81001010 1000\n"
		     "0 ffffffff81001020 1000\n"
		     "0 ffffffff81002004 400\n"
		     "0 ffffffffc0001008 100\n"
		     "0 401000 100\n");
	ok(base > 0, "a profile is stored");
	is_int(db_int(&db, -1, "SELECT insns FROM profile_funcs WHERE "
		      "profile_id = ? AND func = 'memmap_init_zone_device'",
		      "i", base), 2000, "two addresses of one function summed");
	is_int(db_int(&db, -1, "SELECT insns FROM profile_funcs WHERE "
		      "profile_id = ? AND func = 'nd_pmem_probe [nd_pmem]'",
		      "i", base), 100, "a module's function, named with it");
	is_int(db_int(&db, -1, "SELECT insns FROM profile_funcs WHERE "
		      "profile_id = ? AND func = '[user]'", "i", base), 100,
	       "user-space instructions in one bucket");
	is_int(db_int(&db, -1, "SELECT windows FROM profile_windows WHERE "
		      "profile_id = ? AND workload = 'fsdax' AND variant = "
		      "'align=2M,map=dev'", "i", base), 2,
	       "the window kind named by the runner");
	is_int(db_int(&db, -1, "SELECT status = 'ok' FROM profiles WHERE "
		      "id = ?", "i", base), 1, "the row is 'ok'");

	/* the check inlined into memmap_init_zone_device: it does more */
	cand = store(&db, dir, window0,
		     "mmci-profile 1 x86_64\n"
		     "window 0 2 4200\n"
		     "0 ffffffff81001010 2400\n"
		     "0 ffffffff81001020 1000\n"
		     "0 ffffffff81002004 400\n"
		     "0 ffffffff81003000 200\n"
		     "0 ffffffffc0001008 100\n"
		     "0 401000 100\n");
	ok(cand > 0, "a second profile");
	is_int(profile_diff(&db, base, cand, "fsdax", NULL, &d), 0,
	       "the two compared");
	is_str(d.funcs[0].name, "memmap_init_zone_device",
	       "the largest mover first");
	is_double(profile_diff_total(&d), 800, 0.01,
		  "the total change per window");
	profile_diff_format(&d, 10, 0.01, 800, &out);
	printf("%s", out.buf);
	ok(strstr(out.buf, "+700  memmap_init_zone_device +70.0 %") != NULL,
	   "the mover, per window, with its own change");
	ok(strstr(out.buf, "cond_resched (new only)") != NULL,
	   "a function in one kernel only is said");
	ok(strstr(out.buf, "inlined in the other") != NULL,
	   "and what that may mean");
	ok(!strstr(out.buf, "apart"), "counts and timed writes agree: silent");
	ok(max_width(out.buf) <= 80, "at most 80 columns");
	strbuf_reset(&out);
	profile_diff_format(&d, 10, 0.01, 1000, &out);
	ok(strstr(out.buf, "counts +800 ns a write, timed writes +1000 ns: "
		  "20.0 % apart") != NULL,
	   "counts and timed writes more than 1 % apart: said");
	strbuf_reset(&out);
	profile_diff_format(&d, 1, 0.01, 1000, &out);
	is_int(max_width(out.buf) > 0, 1, "one line asked ...");
	ok(!strchr(out.buf, '\n') || strchr(out.buf, '\n') ==
	   out.buf + out.len - 1, "... one line given");
	profile_diff_release(&d);

	/* the same kernel twice: nothing moved, nothing named */
	strbuf_reset(&out);
	is_int(profile_diff(&db, base, base, "fsdax", NULL, &d), 0,
	       "a profile against itself");
	profile_diff_format(&d, 10, 0.01, 0, &out);
	is_str(out.buf, "", "names nothing");
	profile_diff_release(&d);
	is_int(profile_diff(&db, base, cand, "devdax", NULL, &d), 1,
	       "a workload neither profiled: no diff");
	profile_diff_release(&d);

	/* below the noise floor (0.001 % of a write): named nothing */
	{
		long long big1, big2;

		big1 = store(&db, dir, window0,
			     "mmci-profile 1 x86_64\nwindow 0 1 10000000\n"
			     "0 ffffffff81001010 10000000\n");
		big2 = store(&db, dir, window0,
			     "mmci-profile 1 x86_64\nwindow 0 1 10000000\n"
			     "0 ffffffff81001010 9999950\n"
			     "0 ffffffff81003000 50\n");
		strbuf_reset(&out);
		is_int(profile_diff(&db, big1, big2, "fsdax", NULL, &d), 0,
		       "two large profiles 50 instructions apart");
		is_double(profile_noise_floor(&d), 100, 0.001,
			  "the floor: 0.001 % of a write");
		profile_diff_format(&d, 10, 0.01, 0, &out);
		is_str(out.buf, "", "a change under the floor: named nothing");
		profile_diff_release(&d);
	}

	/* bad input: nothing stored, the reason given */
	bad = store(&db, dir, window0, "not the plugin\n");
	is_int(bad, -1, "a counts file that is not the plugin's: refused");
	ok(strstr(last_error(), "not the plugin's output") != NULL,
	   "and said");
	bad = store(&db, dir, "", "mmci-profile 1 x86_64\nwindow 3 1 10\n"
		    "3 ffffffff81001010 10\n");
	is_int(bad, -1, "a window kind the runner never named: refused");
	ok(strstr(last_error(), "never named") != NULL, "and said");
	bad = store(&db, dir, window0, "mmci-profile 1 x86_64\n");
	is_int(bad, -1, "no window at all: refused");
	is_int(db_int(&db, -1, "SELECT count(*) FROM profile_funcs f JOIN "
		      "profiles p ON p.id = f.profile_id WHERE p.status <> "
		      "'ok'", ""), 0, "nothing stored of the refused ones");

	db_close(&db);
	if (!tap_failed)
		remove_tree(dir);
	free(path);
	strbuf_release(&out);
	return done_testing();
}
