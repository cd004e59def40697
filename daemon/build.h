/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.h - build a kernel out of tree, with ccache, into a keyed cache.
 *
 * The cache key is the SHA-1 of the source tree id, the config fragment's
 * content, the base config recipe and the compiler version: asking twice
 * for the same kernel builds nothing. Artifacts live in
 * <data>/cache/<key>/: bzImage, config, modroot/ (modules_install), and
 * build.log. The object directory (make O=) is shared by all builds with
 * the same fragment, so a patch touching one file rebuilds one file.
 */
#ifndef MMCI_BUILD_H
#define MMCI_BUILD_H

#include <git2.h>

struct db;
struct mmci_config;

struct build_result {
	long long id;         /* builds.id */
	char *artifacts;      /* directory */
	char *bzimage;
	char *modroot;        /* holds lib/modules/<release> */
	char *release;        /* kernel release string */
	int hz;               /* CONFIG_HZ */
	int cached;           /* 1 when nothing was built */
	double duration_s;
};

/*
 * build_kernel - build (or find in the cache) the kernel at `commit`.
 * @series_id/@upto: provenance only (0 for a plain tree commit).
 * @fragment: config fragment path, NULL for the default
 *            kernel-patches/config/mmci.config.
 * Returns 0, or -1 after error() naming the failed step and its log; a
 * failed build leaves a 'failed' row.
 */
int build_kernel(const struct mmci_config *cfg, struct db *db,
		 git_repository *repo, const git_oid *commit,
		 long long series_id, int upto, const char *fragment,
		 struct build_result *res);
void build_result_release(struct build_result *res);

/* first line of `gcc --version`, part of the cache key; NULL after error() */
char *build_compiler_version(void);

/* CONFIG_HZ from a .config file, 0 if absent */
int config_hz(const char *dotconfig);

#endif
