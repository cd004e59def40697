/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.h - build a kernel out of tree, with ccache, into a keyed cache.
 *
 * The cache key is the SHA-1 of the source tree id, the config fragment's
 * content, the base config recipe and the compiler version: asking twice
 * for the same kernel builds nothing. Artifacts live in
 * <data>/cache/<key>/: bzImage, config, modroot/ (modules_install), and
 * build.log, and last the stamp mmci-build.txt (key, release, HZ, .config
 * hash): another database on the same data directory takes a stamped build
 * as its own instead of making it again. The object directory (make O=) is
 * shared by all builds with the same fragment, so a patch touching one
 * file rebuilds one file.
 */
#ifndef MMCI_BUILD_H
#define MMCI_BUILD_H

#include <git2.h>

struct arch;
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
 * @arch: the guest arch (arch.h), NULL for x86_64: another one is
 *        cross-built with its fragments merged after @fragment, in an
 *        object directory and under a cache key of its own.
 * Returns 0, or -1 after error() naming the failed step and its log; a
 * failed build leaves a 'failed' row.
 */
int build_kernel(const struct mmci_config *cfg, struct db *db,
		 git_repository *repo, const git_oid *commit,
		 long long series_id, int upto, const char *fragment,
		 const struct arch *arch, struct build_result *res);
void build_result_release(struct build_result *res);

/*
 * first line of `<cross>gcc --version` (@cross "" or NULL: the host's
 * gcc), part of the cache key; NULL after error()
 */
char *build_compiler_version(const char *cross);

/* the kernel image of a build's artifacts: <dir>/Image (arm64) or bzImage */
char *build_image_path(const char *artifacts);

/*
 * The config step (tinyconfig, merge of kvm_guest.config and the
 * fragment, olddefconfig) is cached by its inputs: its output .config is
 * kept in <data>/cache/config/<key>.config and copied into the object
 * directory on a hit (the build log says so).
 */
struct config_key_inputs {
	const char *recipe;		/* BASE_RECIPE */
	const char *fragment_sha1;	/* the fragment's content, and for
					 * arm64 its fragments' too */
	const char *arch;		/* arch.h's name: "x86_64", "arm64" */
	const char *cc;			/* build_compiler_version() */
	const char *kconfig_sha1;	/* of build_kconfig_inputs()'s text */
};

/* SHA-1 hex of the inputs: equal inputs, equal key; any change, another */
void build_config_key(const struct config_key_inputs *in, char out[41]);

/*
 * What the config step reads from @commit's tree, as text (appended to
 * @out): "path blob-id" of every Kconfig* file and the top Makefile,
 * "dir/ tree-id" of scripts/, kernel/configs/ and arch/x86/configs/.
 * 0, or -1 after error().
 */
struct strbuf;
int build_kconfig_inputs(git_repository *repo, const git_oid *commit,
			 struct strbuf *out);

/*
 * What a kernel of the tree @tree_oid (a commit's) is built from, the
 * build cache's key's part of it: SHA-1 hex of its root entries,
 * Documentation/ reduced to Documentation/Kconfig, the one file there a
 * build reads. A commit that changes only the documentation has its
 * parent's. 0, or -1 after error().
 */
int build_source_hash(git_repository *repo, const git_oid *tree_oid,
		      char out[41]);

/* CONFIG_HZ from a .config file, 0 if absent */
int config_hz(const char *dotconfig);

/*
 * The files a build used, kept by the SHA-1 of their content in the
 * texts table (the config fragment and the final .config), so that a
 * run's bundle is made from the database alone. build_text_store() keeps
 * @body (once); build_text_store_file() the file @path, whose content
 * must still have that SHA-1. Return: 0, or -1 after error().
 */
int build_text_store(struct db *db, const char *sha1, const char *body);

/*
 * A build made elsewhere (a bundle's), recorded so that a reproduction
 * builds it again: no cache lookup matches its key ("bundle:<sha1>").
 * build_store_imported() checks it (a full commit id, a known arch, HZ,
 * the series step) and writes the row as 'ok' with tree "(bundle)";
 * the builds table's writer is build.c. 0 with *@build_id, or -1.
 */
struct build_import {
	const char *cache_key, *commit, *tree_oid;
	const char *fragment, *fragment_sha1;   /* the file; its SHA-1 */
	const char *dotconfig_sha1, *compiler, *release, *arch;
	long long series_id;                    /* 0: a base */
	int upto, hz;
};
int build_store_imported(struct db *db, const struct build_import *bi,
			 long long *build_id);
int build_text_store_file(struct db *db, const char *sha1, const char *path);

#endif
