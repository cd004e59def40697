// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-init.c - `mmci init`: the database and the default tree.
 */
#include <getopt.h>

#include "builtin.h"
#include "config.h"
#include "db.h"
#include "fsutil.h"
#include "run-command.h"
#include "strbuf.h"
#include "tree.h"
#include "util.h"

#define DEFAULT_TARBALL "/usr/src/linux-source-6.12.tar.xz"
#define DEFAULT_TAG "debian-6.12"

static const char init_usage[] =
	"usage: mmci init [--tarball PATH] [--tag NAME] [--no-tree]\n"
	"\n"
	"Create (or migrate) the database and import Debian's kernel source\n"
	"into a local git repository, the default tree, tagged NAME.\n"
	"\n"
	"  --tarball PATH  kernel source tarball (default " DEFAULT_TARBALL ")\n"
	"  --tag NAME      tag of the imported commit (default " DEFAULT_TAG ")\n"
	"  --no-tree       only the database\n";

static char *package_version(void)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}",
			       "linux-source-6.12", NULL };
	struct strbuf out = STRBUF_INIT;

	if (capture_command(argv, NULL, &out) || !out.len)
		strbuf_addstr(&out, "unknown");
	return strbuf_detach(&out, NULL);
}

int cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tarball", required_argument, NULL, 't' },
		{ "tag", required_argument, NULL, 'g' },
		{ "no-tree", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *tarball = DEFAULT_TARBALL, *tag = DEFAULT_TAG;
	struct mmci_config cfg;
	struct db db;
	int c, no_tree = 0, ret = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			tarball = optarg;
			break;
		case 'g':
			tag = optarg;
			break;
		case 'n':
			no_tree = 1;
			break;
		case 'h':
			fputs(init_usage, stdout);
			return 0;
		default:
			fputs(init_usage, stderr);
			return 129;
		}
	}
	setup_command(&cfg, &db);
	log_info("database '%s' at schema %d", cfg.db_path,
		 db_schema_version(&db));
	if (!no_tree) {
		char *ver = package_version();
		char *msg = xstrfmt("Import %s\n\nDebian package linux-source-6.12 "
				    "version %s, imported by mmci init.\n",
				    tarball, ver);

		if (mkdir_p(cfg.data_dir, 0755) < 0 ||
		    tree_import_tarball(tarball, cfg.tree_dir, tag, msg) < 0)
			ret = 1;
		free(msg);
		free(ver);
	}
	db_close(&db);
	config_release(&cfg);
	return ret;
}
