// SPDX-License-Identifier: GPL-2.0
/*
 * test-run-options.c - RUN_OPTIONS and run_option_parse() (measure.h),
 * the one table of a run's options that `mmci run` and `mmci bench` both
 * put in their getopt_long tables: every option of the table is parsed
 * into its field, none is parsed that the table lacks, and no code of it
 * can meet a command's own letters. No database, no guest.
 */
#include <getopt.h>

#include "measure.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

static const struct option table[] = { RUN_OPTIONS, { NULL, 0, NULL, 0 } };

/* a valid argument for option @name */
static const char *sample(const char *name)
{
	static const char *const args[][2] = {
		{ "build", "7" },		{ "hz", "250" },
		{ "iters", "5" },		{ "nvdimm", "2G" },
		{ "hotplug-iters", "4" },	{ "param", "mmci.a=1" },
		{ "memmap-on-memory", "off" },	{ "ram", "3G" },
		{ "timeout", "60" },		{ "arch", "arm64" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(args); i++)
		if (!strcmp(args[i][0], name))
			return args[i][1];
	return name;	/* a string option keeps what it is given */
}

static void test_table(void)
{
	size_t i, j, bad = 0;

	for (i = 0; table[i].name; i++) {
		if (table[i].val < 0x100 || table[i].flag ||
		    table[i].has_arg != required_argument)
			bad++;
		for (j = 0; j < i; j++)
			if (table[j].val == table[i].val ||
			    !strcmp(table[j].name, table[i].name))
				bad++;
	}
	is_int(i, 24, "24 run options");
	is_int(bad, 0, "codes above the letters, each once, with an argument");
}

static void test_parse(void)
{
	struct strbuf params = STRBUF_INIT;
	struct run_opts o;
	long long build_id = 0;
	size_t i, used = 0;

	run_opts_init(&o);
	for (i = 0; table[i].name; i++)
		used += run_option_parse(&o, &build_id, &params, table[i].val,
					 sample(table[i].name)) == 1;
	is_int(used, i, "every option of the table is parsed");
	is_int(build_id, 7, "--build");
	is_str(o.kernel, "kernel", "--kernel");
	is_str(o.modroot, "modules-root", "--modules-root");
	is_str(o.release, "release", "--release");
	is_int(o.hz, 250, "--hz");
	is_str(o.workloads, "workloads", "--workloads");
	is_int(o.iters, 5, "--iters");
	is_int(o.nvdimm_mib, 2048, "--nvdimm in MiB");
	/* --align came before --fsdax-align and --devdax-align */
	is_str(o.fsdax_align, "fsdax-align", "--fsdax-align");
	is_str(o.devdax_align, "devdax-align", "--devdax-align");
	is_str(o.map, "map", "--map");
	is_str(o.vmem_sizes, "vmem-sizes", "--vmem-sizes");
	is_int(o.hotplug_iters, 4, "--hotplug-iters");
	is_str(o.kmem_online, "kmem-online", "--kmem-online");
	is_str(o.vmem_online, "vmem-online", "--vmem-online");
	is_str(o.kmem_memmap, "kmem-memmap", "--kmem-memmap");
	is_str(o.extra, "mmci.a=1", "--param");
	is_str(o.memremap_size, "memremap-size", "--memremap-size");
	is_int(o.memmap_on_memory, 0, "--memmap-on-memory off");
	is_int(o.ram_mib, 3072, "--ram in MiB");
	is_int(o.timeout_s, 60, "--timeout");
	is_str(o.arch, "arm64", "--arch");
	is_str(o.initrd, "initrd", "--initrd");

	run_option_parse(&o, &build_id, &params, RUN_OPT_ALIGN, "1G");
	ok(!strcmp(o.fsdax_align, "1G") && !strcmp(o.devdax_align, "1G"),
	   "--align sets both alignments");
	run_option_parse(&o, &build_id, &params, RUN_OPT_PARAM, "mmci.b=2");
	is_str(o.extra, "mmci.a=1 mmci.b=2", "--param again: both words");
	run_option_parse(&o, &build_id, &params, RUN_OPT_MEMMAP_ON_MEMORY,
			 "on");
	is_int(o.memmap_on_memory, 1, "--memmap-on-memory on");
	is_int(run_option_parse(&o, &build_id, &params, RUN_OPT_ARCH, "vax"),
	       -1, "an unknown --arch: -1, a usage error");
	is_str(o.arch, "arm64", "and the arch stays");
	is_int(run_option_parse(&o, &build_id, &params, 'B', "3"), 0,
	       "a command's own letter is not a run option");
	is_int(run_option_parse(&o, &build_id, &params, RUN_OPT_INITRD + 1,
				"x"), 0, "nor a code after the table's");
	strbuf_release(&params);
}

int main(void)
{
	log_verbosity = 0;
	test_table();
	test_parse();
	return done_testing();
}
