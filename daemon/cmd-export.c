// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-export.c - `mmci export kcidb`: its options; the export is
 * kcidb.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "kcidb.h"
#include "util.h"

static const char export_usage[] =
	"usage: mmci export kcidb [--run ID]... [--since UNIX_TIME | --all]\n"
	"                         [-o FILE] [--origin NAME] [--log-url URL]\n"
	"\n"
	"Write builds, their checkouts and the runs' results as KCIDB JSON\n"
	"(I/O schema v5.3) for KernelCI: `kcidb-submit -p PROJECT -t TOPIC\n"
	"< FILE` submits it. Without a selection, everything is exported.\n"
	"\n"
	"  --run ID         this run, its build and its checkout (repeatable)\n"
	"  --since T        runs, builds and applies started at or after T\n"
	"                   (Unix seconds)\n"
	"  --all            every run, build and apply\n"
	"  -o, --output F   write F (atomically) instead of standard output\n"
	"  --origin NAME    the KCIDB origin, [a-z0-9_]+ (default mmci)\n"
	"  --log-url URL    the data directory (MMCI_DATA) is served at URL:\n"
	"                   logs and kernels become log_url and output_files\n";

static int write_out(const char *path, const char *text)
{
	size_t len = strlen(text);

	if (path)
		return write_file(path, text, len);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout))
		return error_errno("cannot write the export");
	return 0;
}

static int usage_error(long long *ids)
{
	fputs(export_usage, stderr);
	free(ids);
	return 129;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "since", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "origin", required_argument, NULL, 'O' },
		{ "log-url", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct kcidb_request req = { .origin = "mmci", .since = -1 };
	struct mmci_config cfg;
	struct db db;
	long long *ids = NULL;
	size_t nr_ids = 0, alloc_ids = 0;
	const char *out = NULL;
	int c, all = 0, ret = 1;
	char *text = NULL, *end;

	if (argc >= 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs(export_usage, stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "kcidb")) {
		if (argc >= 2)
			error("unknown export format '%s' (only 'kcidb')",
			      argv[1]);
		return usage_error(NULL);
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ALLOC_GROW(ids, nr_ids + 1, alloc_ids);
			ids[nr_ids++] = parse_count("--run", optarg);
			break;
		case 's':
			errno = 0;
			req.since = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(req.since) || req.since < 0) {
				error("--since wants Unix seconds, not '%s'",
				      optarg);
				free(ids);
				return 129;
			}
			break;
		case 'a': all = 1; break;
		case 'o': out = optarg; break;
		case 'O': req.origin = optarg; break;
		case 'L': req.log_url = optarg; break;
		case 'h':
			fputs(export_usage, stdout);
			free(ids);
			return 0;
		default:
			return usage_error(ids);
		}
	}
	if (optind != argc || (all && req.since >= 0)) {
		if (all && req.since >= 0)
			error("--since and --all exclude each other");
		return usage_error(ids);
	}
	if (!kcidb_valid_origin(req.origin)) {
		error("the origin '%s' is not a KCIDB origin ([a-z0-9_]+)",
		      req.origin);
		free(ids);
		return 129;
	}
	if (req.log_url && !kcidb_valid_log_url(req.log_url)) {
		error("--log-url wants an http(s) URL (RFC 3986, '%%' as "
		      "\"%%XX\", no query), not '%s'", req.log_url);
		free(ids);
		return 129;
	}
	if (all || (!nr_ids && req.since < 0))
		req.since = 0;	/* everything */
	req.runs = ids;
	req.nr_runs = nr_ids;

	setup_command(&cfg, &db);
	if (kcidb_export(&cfg, &db, &req, &text) == 0 &&
	    write_out(out, text) == 0) {
		if (out)
			log_info("the export is in %s", out);
		ret = 0;
	}
	free(text);
	free(ids);
	db_close(&db);
	config_release(&cfg);
	return ret;
}
