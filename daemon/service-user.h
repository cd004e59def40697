/* SPDX-License-Identifier: GPL-2.0 */
/*
 * service-user.h - the unprivileged user that parses what the network
 * sends: mail and feeds (the daemon's polls), HTTP requests (the web
 * server) and the pages drawn from them (the render worker).
 *
 * mmci as root (mmci.service) keeps root for what needs it: kernel builds
 * (handed to MMCI_BUILD_USER, sandbox.h), libvirt's system connection and
 * the guest consoles virtlogd writes as root 0600. Everything that reads
 * bytes an outsider chose runs as MMCI_USER (default "mmci"), in a child
 * started with a cleared environment (no secret, run-command.h). That user
 * owns the database file (with its -wal and -shm, which SQLite keeps: see
 * db_open(); group root may write them too, for root without
 * CAP_DAC_OVERRIDE), <data>/www and <data>/fetch, and nothing else: not the
 * kernel tree, the build cache, the artifacts, the job logs, the settings
 * file or the outbox. Why a user that owns the database rather than
 * OpenBSD's privsep (parse unprivileged, hand typed rows to one writer): an
 * ingest stores a whole thread in one transaction and queues its job in the
 * same one (job_queue_series()), and the render worker reads and marks
 * pages; a channel carrying those would be a second, hand-written copy of
 * the schema. What the choice costs is named in docs/ARCHITECTURE.md
 * ("Trust"): a parser taken over can change stored results, not run
 * anything as root.
 *
 * When mmci does not run as root, none of this applies: it is already
 * unprivileged and service_user_init() reports no user.
 */
#ifndef MMCI_SERVICE_USER_H
#define MMCI_SERVICE_USER_H

#include <sys/types.h>

struct child_process;
struct mmci_config;

#define SERVICE_USER_DEFAULT "mmci"

struct service_user {
	int active;	/* 0: we are not root, children keep our ids */
	uid_t uid;
	gid_t gid;
	char name[64];
};

/*
 * Look up MMCI_USER when we run as root. Return: 0 (u->active says
 * whether there is a user to drop to), or -1 after error() naming the
 * user and how to create it.
 */
int service_user_init(struct service_user *u);

/*
 * Give the user what it writes: the database and its -wal and -shm files,
 * <data>/www and <data>/fetch with everything below them. First checks
 * that the user can reach them (search permission on every directory
 * above). Return: 0, or -1 after error() naming the path.
 */
int service_user_handover(const struct service_user *u,
			  const struct mmci_config *cfg);

/* make @cp run as the user (nothing when !u->active) */
void service_user_apply(const struct service_user *u,
			struct child_process *cp);

/*
 * Become the user in this process, for good (a command that has no child
 * to delegate to). The process keeps no secret of its environment either
 * (config_drop_secrets()), user or not: it is about to parse input.
 * Return: 0, or -1 after error().
 */
int service_user_become(const struct service_user *u);

#endif
