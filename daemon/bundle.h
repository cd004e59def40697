/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMCI_BUNDLE_H
#define MMCI_BUNDLE_H

/*
 * bundle.h - a run, self-contained: what another host needs to make the
 * same kernel and VM and to compare with the recorded numbers.
 *
 * A bundle is one JSON object, gzip-compressed ("mmci-bundle/1"):
 *   origin   the host, run id and page of the recorded run
 *   run      workloads, parameters (the guest command line among them),
 *            accelerator, clock, vCPUs, RAM, NVDIMM, backing, the QEMU
 *            and libvirt versions, runner and initramfs SHA-1s
 *   kernel   a build: commit, compiler, the config fragment and the final
 *            .config as text, the base (commit, ref, and the remote URL
 *            and branch that carry it when the database knows one) and
 *            the series as typed patches (author, date, message, diff:
 *            what apply.c needs, the same fields as schema/0014); or a
 *            prebuilt kernel's path, which no other host has
 *   domain   the libvirt domain XML of the first boot
 *   boots    every boot with its status and samples
 * It is made from the database alone (schema/0017's texts hold the two
 * config files), so the service user's render worker writes one per
 * finished run as www/bundle/RUN.json.gz, served as /bundle/RUN.
 */
#include <jansson.h>

#include "config.h"
#include "db.h"
#include "strbuf.h"

#define BUNDLE_FORMAT "mmci-bundle/1"

/*
 * A bundle is input from anyone (a URL in a mail, a file): it is read
 * within these bounds and checked field by field (bundle_read()) before
 * anything is fetched, built, booted or written. The sizes of the whole:
 * jansson holds a JSON value in 40 to 330 bytes (an empty object, 3 bytes
 * of text, costs 220: measured with jansson 2.14), so the values are
 * counted in the text before it is parsed. At every bound at once (63
 * MB of text, 131000 objects, 780000 strings) mmci peaked at 312 MB RSS;
 * a bundle of a real run (some boots of some hundred samples, a series,
 * two config files) is a few MB. tests/t0986 measures the bombs.
 */
#define BUNDLE_MAX_JSON (64u << 20)	/* bytes, inflated or read */
#define BUNDLE_MAX_VALUES (1u << 20)	/* JSON values of all kinds */
#define BUNDLE_MAX_CONTAINERS (128u << 10) /* arrays and objects */
#define BUNDLE_MAX_DEPTH 16		/* a bundle's own is 5 */
/* the machine and the run: what this host would be asked to give */
#define BUNDLE_MAX_VCPUS 256
#define BUNDLE_MAX_RAM_MIB (1ll << 20)		/* 1 TiB */
#define BUNDLE_MAX_NVDIMM_MIB (16ll << 20)	/* 16 TiB, MMCI_AIM_MAX_NVDIMM's */
#define BUNDLE_MAX_ITERS 100000			/* rebinds, cycles per boot */
#define BUNDLE_MAX_TIMEOUT_S 86400		/* per boot */
#define BUNDLE_MAX_BOOTS 100			/* reproduce boots as many */
#define BUNDLE_MAX_SAMPLES 100000		/* per boot */
#define BUNDLE_MAX_EVENTS 10000			/* per boot */
/* strings: names and short values, messages, texts (the .config, a diff) */
#define BUNDLE_MAX_NAME 1024			/* bytes */
#define BUNDLE_MAX_MESSAGE (64u << 10)
#define BUNDLE_MAX_TEXT (16u << 20)

/*
 * bundle_make() - the bundle of finished run @run_id.
 * Return: 0 with *@out a new reference, or -1 after error() (no such run,
 * still running, the database failed).
 */
int bundle_make(struct db *db, long long run_id, json_t **out);

/* @b as gzip-compressed JSON into @path (atomically); 0 or -1 */
int bundle_write(const json_t *b, const char *path);
/* the same bytes in @out */
int bundle_gzip(const json_t *b, struct strbuf *out);

/*
 * bundle_read() - a bundle from a file or an http(s) URL (gzip or plain),
 * read within the bounds above and checked (bundle_check()).
 * @sha1: out, the SHA-1 of its JSON as read
 * Return: 0 with *@out a new reference, or -1 after one error() naming
 * the field and its bound.
 */
int bundle_read(const struct mmci_config *cfg, const char *src, json_t **out,
		char sha1[41]);

/*
 * bundle_check() - whether @b, read from @src, is a bundle this host may
 * act on: every field the import and reproduce use present with its
 * type, within its bounds (above), the kernel one to build from its
 * commit (never a prebuilt file: its path names another host's file),
 * the initramfs mmci's own (<data>/images/RELEASE-KEY.cpio.gz, made
 * again here: never a path of this host), the base's remote an
 * http(s)://, git://, ssh:// or user@host: URL (a local path or file://
 * only with MMCI_BUNDLE_ALLOW_FILE=1), its branch a branch name.
 * Return: 0, or -1 after one error() naming the field and the bound.
 */
int bundle_check(const json_t *b, const char *src);

/* whether the base of a bundle may be fetched from @url (see above) */
int bundle_remote_allowed(const char *url);

/*
 * bundle_run_imported() - whether run @run_id came from a bundle: its
 * paths (kernel, initramfs) then name no file of this host.
 * Return: 1, 0, or -1 after error().
 */
int bundle_run_imported(struct db *db, long long run_id);

/*
 * bundle_import() - store the recorded run of @b as a run of this
 * database (label "bundle: run N of HOST"), with its boots and samples,
 * its build as a builds row no cache lookup matches, its series as typed
 * patch rows and the apply that gave its commit, so that `mmci reproduce`
 * treats it as any stored run. The config fragment is written under
 * <data>/bundles/. The same bundle imported again gives the same run.
 * @run_id: out
 * Return: 0, or -1 after error() naming what the bundle lacks.
 */
int bundle_import(const struct mmci_config *cfg, struct db *db,
		  const json_t *b, const char *sha1, const char *src,
		  long long *run_id);

/*
 * bundle_fetch_base() - make sure the base of imported bundle @b is in
 * the tree: when its commit is missing, fetch the branch of the
 * bundle's remote (or of @remote_url when given) into
 * refs/mmci/bundle/<branch>. Return: 0, or -1 after error().
 */
int bundle_fetch_base(const struct mmci_config *cfg, const json_t *b,
		      const char *remote_url);

#endif
