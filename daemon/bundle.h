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
 * bundle_read() - a bundle from a file or an http(s) URL (gzip or plain).
 * @sha1: out, the SHA-1 of its JSON as read
 * Return: 0 with *@out a new reference, or -1 after error().
 */
int bundle_read(const struct mmci_config *cfg, const char *src, json_t **out,
		char sha1[41]);

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
