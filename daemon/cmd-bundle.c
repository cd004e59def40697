// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bundle.c - `mmci bundle RUN`: the run as one self-contained file
 * (bundle.h), for `mmci reproduce --bundle` on another host.
 */
#include <getopt.h>

#include "builtin.h"
#include "bundle.h"
#include "util.h"

static const char bundle_usage[] =
	"usage: mmci bundle RUN [-o FILE]\n"
	"\n"
	"Write finished run RUN as a bundle: gzip-compressed JSON with the\n"
	"kernel's config fragment and .config, its base commit with the remote\n"
	"and branch that carry it, its series as patches, the workloads and\n"
	"their parameters, the guest command line, the VM (domain XML,\n"
	"accelerator, clock, vCPUs, RAM, NVDIMM), the runner and initramfs\n"
	"hashes, and every boot's samples. 'mmci reproduce --bundle FILE'\n"
	"makes and runs it again on any host with mmci and compares. The web\n"
	"pages serve the same file as /bundle/RUN.\n"
	"\n"
	"  -o FILE    where to write it (default mmci-run-RUN.bundle.json.gz)\n";

int cmd_bundle(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mmci_config cfg;
	struct db db;
	json_t *b = NULL;
	char *path = NULL;
	const char *out = NULL;
	long long run;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h':
			fputs(bundle_usage, stdout);
			return 0;
		default:
			fputs(bundle_usage, stderr);
			return 129;
		}
	}
	if (argc - optind != 1) {
		fputs(bundle_usage, stderr);
		return 129;
	}
	run = parse_count("RUN", argv[optind]);
	setup_command(&cfg, &db);
	path = out ? xstrdup(out) : xstrfmt("mmci-run-%lld.bundle.json.gz",
					    run);
	if (bundle_make(&db, run, &b) < 0 || bundle_write(b, path) < 0)
		goto out;
	printf("bundle of run #%lld: %s\n", run, path);
	ret = 0;
out:
	json_decref(b);
	free(path);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
