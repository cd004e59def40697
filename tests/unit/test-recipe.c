// SPDX-License-Identifier: GPL-2.0
/*
 * test-recipe.c - the recipe parser (daemon/recipe.c): a whole recipe
 * read field by field, each malformed line refused with the file and
 * line, $size expansion, units, and every file of kernel-patches/recipes
 * parsed.
 */
#include <math.h>

#include "recipe.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

static const char good[] =
	"# a comment\n"
	"description = rebinds\n"
	"arch = x86_64\n"
	"source = <id@host> \"[PATCH] x\"\n"
	"authors = a VM\n"
	"\n"
	"sizes = 256G 512G\n"
	"small = 1G,2G\n"
	"run = --workloads virtio-mem --vmem-sizes $size\n"
	"small_run = --hotplug-iters 1\n"
	"columns = | Size | Time (before) | Time (after)\n"
	"unit = s\n"
	"row = Plug Memory | 2 | virtio-mem/to=$size/plug | 36 | 7\n"
	"row = nd_pmem | - | fsdax/align=2M,map=dev/rebind_memmap | 221.07 "
	"| -\n"
	"  row = offline | 1 | - | 3.3 |\n";

/* the error recipe_parse() gives for @good with line @n replaced */
static void bad(int n, const char *line, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	struct recipe r;
	const char *p = good;
	int i = 1, ret;
	char *msg;

	for (; *p; i++) {
		const char *nl = strchr(p, '\n');

		if (i == n)
			strbuf_addf(&sb, "%s\n", line);
		else
			strbuf_add(&sb, p, nl - p + 1);
		p = nl + 1;
	}
	ret = recipe_parse("dir/x.recipe", sb.buf, &r);
	msg = xstrfmt("line %d '%s': %s", n, line, want);
	ok(ret == -1 && !strcmp(last_error(), want), msg);
	if (ret != -1 || strcmp(last_error(), want))
		printf("#   got %d, '%s'\n", ret, last_error());
	free(msg);
	recipe_release(&r);
	strbuf_release(&sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct recipe r, *all;
	size_t nr, i, arm = 0;

	is_int(recipe_parse("dir/hotplug.recipe", good, &r), 0, "parses");
	is_str(r.name, "hotplug", "name from the file name");
	is_str(r.arch, "x86_64", "arch");
	is_str(r.source, "<id@host> \"[PATCH] x\"", "source");
	is_int((int)r.nr_sizes, 2, "two sizes");
	is_str(r.sizes[1], "512G", "blank separated sizes");
	is_str(r.small[0], "1G", "comma separated small sizes");
	is_str(r.small_run, "--hotplug-iters 1", "small_run");
	is_str(r.columns[0], "", "empty label header");
	is_str(r.columns[3], "Time (after)", "after header");
	is_str(r.unit, "s", "unit");
	is_int((int)r.nr_rows, 3, "three rows");
	is_int(r.rows[0].size, 2, "row size index");
	is_str(r.rows[0].variant, "to=$size", "variant kept unexpanded");
	is_double(r.rows[0].before, 36, 0, "before");
	is_double(r.rows[0].after, 7, 0, "after");
	is_int(r.rows[1].size, 0, "'-': no size");
	is_str(r.rows[1].before_s, "221.07", "before as written");
	ok(isnan(r.rows[1].after), "'-' after: none");
	is_str(r.rows[1].after_s, "-", "none written as '-'");
	ok(!r.rows[2].workload && !r.rows[2].metric,
	   "'-' metric: nothing of mmci's");
	ok(isnan(r.rows[2].after), "empty after: none");
	ok(recipe_per_size(&r), "$size: one run per size");
	recipe_expand(r.run, "2G", &sb);
	is_str(sb.buf, "--workloads virtio-mem --vmem-sizes 2G", "expanded");
	strbuf_reset(&sb);
	recipe_expand("a $size b $size", NULL, &sb);
	is_str(sb.buf, "a $size b $size", "no size: as it is");
	recipe_release(&r);

	is_double(recipe_unit_s("ns"), 1e-9, 0, "ns");
	is_double(recipe_unit_s("ms"), 1e-3, 0, "ms");
	is_double(recipe_unit_s("min"), 0, 0, "unknown unit: 0");

	bad(2, "description", "dir/x.recipe:2: not 'key = value': "
	    "'description'");
	bad(3, "arch = riscv", "dir/x.recipe:3: arch is x86_64, arm64 (4 KiB "
	    "pages) or arm64-64k (64 KiB pages), not 'riscv'");
	bad(3, "colour = red", "dir/x.recipe:3: unknown key 'colour'");
	bad(5, "description = again", "dir/x.recipe:5: 'description' "
	    "given twice");
	bad(7, "sizes = 256X", "dir/x.recipe:7: invalid size '256X' (e.g. "
	    "100G, 512M)");
	bad(8, "small = 1G", "dir/x.recipe:8: 1 small size(s) for 2 size(s)");
	bad(11, "columns = a | b | c", "dir/x.recipe:11: columns are given "
	    "once, as 'label | size | before | after'");
	bad(12, "unit = min", "dir/x.recipe:12: unit is ns, us, ms or s, "
	    "not 'min'");
	bad(13, "row = Plug | 3 | virtio-mem/to=$size/plug | 36 | 7",
	    "dir/x.recipe:13: size '3' is not '-' or the number of one of "
	    "the 2 size(s)");
	bad(13, "row = Plug | 1 | virtio-mem/plug | 36 | 7",
	    "dir/x.recipe:13: 'virtio-mem/plug' is not "
	    "workload/variant/metric");
	bad(13, "row = Plug | 1 | virtio-mem/to=1G/plugs | 36 | 7",
	    "dir/x.recipe:13: no metric 'plugs' of workload 'virtio-mem' "
	    "(see 'mmci workloads')");
	bad(13, "row = Plug | 1 | virtio-mem/to=1G/plug | 36 s | 7",
	    "dir/x.recipe:13: 'before' is not a number: '36 s'");
	bad(13, "row = Plug | 1 | virtio-mem/to=1G/plug | 36 | x",
	    "dir/x.recipe:13: 'after' is not a number or '-': 'x'");
	bad(13, "row = Plug | 1 | virtio-mem/to=1G/plug | 36",
	    "dir/x.recipe:13: a row is 'label | size | "
	    "workload/variant/metric | before | after', not 4 field(s)");
	bad(7, "# no sizes", "dir/x.recipe:8: 'small' before 'sizes'");
	bad(12, "# no unit", "dir/x.recipe:15: no 'unit =' line");

	is_int(recipe_load_dir("kernel-patches/recipes", &all, &nr), 0,
	       "every recipe of the repository parses");
	ok(nr >= 7, "at least the seven of docs/RECIPES.md");
	for (i = 0; i < nr; i++) {
		arm += starts_with(all[i].arch, "arm64");
		ok(all[i].small, all[i].name);
		if (i)
			ok(strcmp(all[i - 1].name, all[i].name) < 0,
			   "sorted by name");
	}
	is_int((int)arm, 2, "two arm64 recipes");
	recipe_free(all, nr);
	strbuf_release(&sb);
	return done_testing();
}
