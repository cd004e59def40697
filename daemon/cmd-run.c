// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-run.c - `mmci run`: boot one kernel B times and store the samples.
 */
#include <getopt.h>

#include "arch.h"
#include "build.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "interrupt.h"
#include "run.h"
#include "strbuf.h"
#include "util.h"

static const char run_usage[] =
	"usage: mmci run (--build ID | --kernel PATH [--modules-root DIR]\n"
	"                [--release REL] [--hz HZ]) [options]\n"
	"\n"
	"Boot a kernel in a libvirt/QEMU guest with a sparse NVDIMM and let\n"
	"the guest runner time the workloads; every sample goes to the\n"
	"database. Prints the run id.\n"
	"\n"
	"  --build ID         a kernel built by 'mmci build'\n"
	"  --kernel PATH      a prebuilt kernel, e.g. /boot/vmlinuz-<release>\n"
	"  --modules-root DIR directory holding lib/modules/<release> (/)\n"
	"  --release REL      kernel release (from vmlinuz-<REL> by default)\n"
	"  --hz HZ            CONFIG_HZ (from /boot/config-<REL> by default)\n"
	"  --workloads LIST   comma list or 'all' (fsdax); 'mmci workloads'\n"
	"                     lists them\n"
	"  --iters N          rebinds per boot and variant (30)\n"
	"  --nvdimm SIZE      namespace size, e.g. 100G, 512M (100G)\n"
	"  --align LIST       fsdax and devdax alignments, e.g. 4K,2M,1G\n"
	"  --fsdax-align LIST fsdax (pfn) alignments (2M)\n"
	"  --devdax-align LIST devdax alignments (4K,2M,1G)\n"
	"  --map LIST         memmap on the device and/or in RAM (dev,mem)\n"
	"  --vmem-sizes LIST  virtio-mem plug steps, then unplug (8G,16G)\n"
	"  --hotplug-iters N  virtio-mem and kmem cycles per boot (3)\n"
	"  --vmem-online LIST auto_online_blocks policies for virtio-mem\n"
	"                     (online_movable; offline: the runner onlines\n"
	"                     each added block, timed as metric 'online')\n"
	"  --kmem-online LIST auto-online policies for kmem\n"
	"                     (online,online_movable; also offline)\n"
	"  --kmem-memmap LIST where kmem puts the memmap (ram,on_memory)\n"
	"  --memmap-on-memory on|off  the kernel's global switch for\n"
	"                     virtio-mem and kmem (on if kmem needs it)\n"
	"  --memremap-size S DEVICE_PRIVATE range for memremap (64G)\n"
	"  --param K=V        a runner parameter, e.g. mmci.bench_iters=20\n"
	"                     (repeatable; see 'mmci workloads')\n"
	"  --boots B          boots of this kernel (1)\n"
	"  --clock MODE       icount (deterministic, TCG) or wall; default\n"
	"                     icount under TCG, wall under KVM\n"
	"  --backing KIND     tmpfs or disk for the NVDIMM file (auto)\n"
	"  --vcpus N          vCPUs in wall mode (2; icount always uses 1)\n"
	"  --pin, --no-pin    pin each vCPU to its own host CPU (the default\n"
	"                     in wall mode when the host has the CPUs)\n"
	"  --ram SIZE         guest RAM (1G plus the memmap the run needs)\n"
	"  --timeout S        per boot (from the workloads by default)\n"
	"  --arch ARCH        the guest: x86_64, arm64 or arm64-64k (the\n"
	"                     build's; a prebuilt kernel is x86_64 unless\n"
	"                     given)\n"
	"  --label TEXT       a name for the run\n"
	"  --initrd PATH      boot this initramfs instead of the runner's\n";

int run_args_parse(struct run_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "build", required_argument, NULL, 'b' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "modules-root", required_argument, NULL, 'm' },
		{ "release", required_argument, NULL, 'r' },
		{ "hz", required_argument, NULL, 'z' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "iters", required_argument, NULL, 'i' },
		{ "nvdimm", required_argument, NULL, 'n' },
		{ "align", required_argument, NULL, 'a' },
		{ "fsdax-align", required_argument, NULL, 'F' },
		{ "devdax-align", required_argument, NULL, 'D' },
		{ "map", required_argument, NULL, 'p' },
		{ "vmem-sizes", required_argument, NULL, 'V' },
		{ "hotplug-iters", required_argument, NULL, 'H' },
		{ "kmem-online", required_argument, NULL, 'O' },
		{ "vmem-online", required_argument, NULL, 'Q' },
		{ "kmem-memmap", required_argument, NULL, 'M' },
		{ "param", required_argument, NULL, 'P' },
		{ "memremap-size", required_argument, NULL, 'S' },
		{ "memmap-on-memory", required_argument, NULL, 'N' },
		{ "vcpus", required_argument, NULL, 'C' },
		{ "pin", no_argument, NULL, 'X' },
		{ "no-pin", no_argument, NULL, 'Y' },
		{ "ram", required_argument, NULL, 'R' },
		{ "boots", required_argument, NULL, 'B' },
		{ "clock", required_argument, NULL, 'c' },
		{ "backing", required_argument, NULL, 'K' },
		{ "timeout", required_argument, NULL, 't' },
		{ "label", required_argument, NULL, 'l' },
		{ "arch", required_argument, NULL, 'A' },
		{ "initrd", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': a->build_id = parse_count("--build", optarg); break;
		case 'k': a->o.kernel = optarg; break;
		case 'm': a->o.modroot = optarg; break;
		case 'r': a->o.release = optarg; break;
		case 'z': a->o.hz = parse_count("--hz", optarg); break;
		case 'w': a->o.workloads = optarg; break;
		case 'i': a->o.iters = parse_count("--iters", optarg); break;
		case 'n':
			a->o.nvdimm_mib = parse_mib("--nvdimm", optarg);
			break;
		case 'a': a->o.fsdax_align = a->o.devdax_align = optarg; break;
		case 'F': a->o.fsdax_align = optarg; break;
		case 'D': a->o.devdax_align = optarg; break;
		case 'p': a->o.map = optarg; break;
		case 'V': a->o.vmem_sizes = optarg; break;
		case 'H':
			a->o.hotplug_iters = parse_count("--hotplug-iters",
							 optarg);
			break;
		case 'O': a->o.kmem_online = optarg; break;
		case 'Q': a->o.vmem_online = optarg; break;
		case 'M': a->o.kmem_memmap = optarg; break;
		case 'P':
			if (!starts_with(optarg, "mmci."))
				die("--param takes mmci.KEY=VALUE, not '%s'",
				    optarg);
			strbuf_addf(&a->extra, "%s%s", a->extra.len ? " " : "",
				    optarg);
			break;
		case 'S': a->o.memremap_size = optarg; break;
		case 'N':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die("--memmap-on-memory is on or off, not '%s'",
				    optarg);
			a->o.memmap_on_memory = !strcmp(optarg, "on");
			break;
		case 'C': a->o.vcpus = parse_count("--vcpus", optarg); break;
		case 'X': a->o.pin = 1; break;
		case 'Y': a->o.pin = 0; break;
		case 'R': a->o.ram_mib = parse_mib("--ram", optarg); break;
		case 'B': a->boots = parse_count("--boots", optarg); break;
		case 'c': a->o.clock = optarg; break;
		case 'K': a->o.backing = optarg; break;
		case 't':
			a->o.timeout_s = parse_count("--timeout", optarg);
			break;
		case 'l': a->o.label = optarg; break;
		case 'A':
			if (!arch_get(optarg))
				return 129;
			a->o.arch = optarg;
			break;
		case 'I': a->o.initrd = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			return 1;
		default:
			fputs(run_usage, stderr);
			return 129;
		}
	}
	if (optind != argc) {
		error("unexpected argument '%s'", argv[optind]);
		fputs(run_usage, stderr);
		return 129;
	}
	if (a->extra.len)
		a->o.extra = a->extra.buf;
	if (a->o.backing && strcmp(a->o.backing, "tmpfs") &&
	    strcmp(a->o.backing, "disk"))
		die("--backing is tmpfs or disk, not '%s'", a->o.backing);
	return 0;
}

void run_args_init(struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	run_opts_init(&a->o);
	a->o.modroot = "/";
	a->boots = 1;
	strbuf_init(&a->extra, 0);
}

void run_args_release(struct run_args *a)
{
	strbuf_release(&a->extra);
}

int cmd_run(int argc, char **argv)
{
	struct build_result keep = { 0 };
	struct run_args a;
	struct mmci_config cfg;
	struct db db;
	long long run_id = 0;
	char *release = NULL;
	int ret;

	run_args_init(&a);
	ret = run_args_parse(&a, argc, argv);
	if (ret) {
		run_args_release(&a);
		return ret == 1 ? 0 : ret;
	}
	if (!!a.build_id == !!a.o.kernel) {
		error("give exactly one of --build and --kernel");
		fputs(run_usage, stderr);
		run_args_release(&a);
		return 129;
	}
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the run and its boot on SIGTERM */
	if (run_opts_kernel(&db, a.build_id, &a.o, &keep, &release) < 0)
		die("cannot run that kernel");
	ret = run_boots(&cfg, &db, &a.o, a.boots, &run_id) ? 1 : 0;
	if (run_id)
		printf("run #%lld: %s\n", run_id, ret ? "failed" : "ok");
	build_result_release(&keep);
	run_args_release(&a);
	free(release);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
