// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-run.c - `mmci run`: boot one kernel B times and store the samples.
 */
#include <getopt.h>

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
	"  --kmem-online LIST auto-online policies for kmem\n"
	"                     (online,online_movable)\n"
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
	"  --label TEXT       a name for the run\n"
	"  --initrd PATH      boot this initramfs instead of the runner's\n";

int cmd_run(int argc, char **argv)
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
		{ "initrd", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct build_result keep = { 0 };
	struct strbuf extra = STRBUF_INIT;
	struct run_opts o;
	struct mmci_config cfg;
	struct db db;
	long long build_id = 0, run_id = 0;
	char *release = NULL;
	int c, boots = 1, ret;

	run_opts_init(&o);
	o.modroot = "/";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': build_id = parse_count("--build", optarg); break;
		case 'k': o.kernel = optarg; break;
		case 'm': o.modroot = optarg; break;
		case 'r': o.release = optarg; break;
		case 'z': o.hz = parse_count("--hz", optarg); break;
		case 'w': o.workloads = optarg; break;
		case 'i': o.iters = parse_count("--iters", optarg); break;
		case 'n': o.nvdimm_mib = parse_mib("--nvdimm", optarg); break;
		case 'a': o.fsdax_align = o.devdax_align = optarg; break;
		case 'F': o.fsdax_align = optarg; break;
		case 'D': o.devdax_align = optarg; break;
		case 'p': o.map = optarg; break;
		case 'V': o.vmem_sizes = optarg; break;
		case 'H':
			o.hotplug_iters = parse_count("--hotplug-iters", optarg);
			break;
		case 'O': o.kmem_online = optarg; break;
		case 'M': o.kmem_memmap = optarg; break;
		case 'P':
			if (!starts_with(optarg, "mmci."))
				die("--param takes mmci.KEY=VALUE, not '%s'",
				    optarg);
			strbuf_addf(&extra, "%s%s", extra.len ? " " : "",
				    optarg);
			break;
		case 'S': o.memremap_size = optarg; break;
		case 'N':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die("--memmap-on-memory is on or off, not '%s'",
				    optarg);
			o.memmap_on_memory = !strcmp(optarg, "on");
			break;
		case 'C': o.vcpus = parse_count("--vcpus", optarg); break;
		case 'X': o.pin = 1; break;
		case 'Y': o.pin = 0; break;
		case 'R': o.ram_mib = parse_mib("--ram", optarg); break;
		case 'B': boots = parse_count("--boots", optarg); break;
		case 'c': o.clock = optarg; break;
		case 'K': o.backing = optarg; break;
		case 't': o.timeout_s = parse_count("--timeout", optarg); break;
		case 'l': o.label = optarg; break;
		case 'I': o.initrd = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			return 0;
		default:
			fputs(run_usage, stderr);
			return 129;
		}
	}
	if (optind != argc || !!build_id == !!o.kernel) {
		error("give exactly one of --build and --kernel");
		fputs(run_usage, stderr);
		return 129;
	}
	if (extra.len)
		o.extra = extra.buf;
	if (o.backing && strcmp(o.backing, "tmpfs") &&
	    strcmp(o.backing, "disk"))
		die("--backing is tmpfs or disk, not '%s'", o.backing);
	setup_command(&cfg, &db);
	interrupt_catch();	/* fails the run and its boot on SIGTERM */
	if (run_opts_kernel(&db, build_id, &o, &keep, &release) < 0)
		die("cannot run that kernel");
	ret = run_boots(&cfg, &db, &o, boots, &run_id) ? 1 : 0;
	if (run_id)
		printf("run #%lld: %s\n", run_id, ret ? "failed" : "ok");
	build_result_release(&keep);
	strbuf_release(&extra);
	free(release);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
