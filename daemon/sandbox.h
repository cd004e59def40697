/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.h - run the kernel tree's own code (Makefiles, scripts) without
 * network and without privileges.
 *
 * A series from a mailing list is untrusted, and building it runs its code.
 * sandbox_wrap() rewrites a struct child_process so that it runs under
 * bubblewrap (bwrap): new user, network, IPC, PID, UTS and cgroup
 * namespaces, uid/gid SANDBOX_UID inside with no capabilities, the whole
 * file system read-only except the writable directories the caller names,
 * a private /tmp, /dev and /proc, and a cleared environment.
 *
 * bwrap maps SANDBOX_UID to the uid that starts it. When mmci runs as
 * root, that would be host uid 0, which owns /etc/shadow and the settings
 * file: so bwrap is started through setpriv as the build user
 * (MMCI_BUILD_USER, default "mmci-build", made by vm-images/host-setup.sh),
 * and sandbox_wrap() first hands the writable directories (object
 * directory, artifacts, ccache's cache) to that user. It owns nothing
 * else. When mmci runs as another user, that user is the build's, as
 * before.
 *
 * MMCI_BUILD_SANDBOX=none (struct mmci_config.build_sandbox) runs the
 * command as it is, after a warning; it is for hosts where user
 * namespaces are disabled. There is no silent fallback: when bwrap is
 * missing or cannot set up, sandbox_check() fails and says so.
 */
#ifndef MMCI_SANDBOX_H
#define MMCI_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "config.h"	/* enum sandbox_kind: the MMCI_BUILD_SANDBOX setting */

struct child_process;

/* nobody/nogroup: an id that owns nothing and exists in /etc/passwd */
#define SANDBOX_UID 65534
#define SANDBOX_GID 65534
/* who builds when mmci runs as root (MMCI_BUILD_USER) */
#define SANDBOX_BUILD_USER "mmci-build"

struct sandbox {
	enum sandbox_kind kind;
	const char **rw;	/* writable directories, NULL-terminated */
	const char **ro;	/* read-only even below a writable one */
	/*
	 * Names of variables passed from our environment (besides PATH,
	 * HOME, LANG, LC_ALL, TZ); "CCACHE_*" matches a prefix.
	 */
	const char **keep_env;

	/* private: the command line sandbox_wrap() built, all owned */
	char **argv;
	size_t argc, alloc;
	/* private: run bwrap as uid/gid (mmci runs as root) */
	int drop;
	uid_t uid;
	gid_t gid;
};

#define SANDBOX_INIT { 0 }

/*
 * sandbox_build_user - the user the sandbox runs as when mmci runs as
 * root: MMCI_BUILD_USER, or SANDBOX_BUILD_USER when that is unset or empty.
 * Return: the name (points into the environment or is static), or NULL
 * when mmci does not run as root and the build keeps mmci's own uid; NULL
 * too, after a warning, for root without CAP_SETUID, CAP_SETGID,
 * CAP_CHOWN or CAP_DAC_OVERRIDE (a systemd unit's bounding set): it
 * cannot hand the build over, which then runs as before.
 */
const char *sandbox_build_user(void);

/*
 * sandbox_describe - one line for logs: "bwrap, no network, uid 65534"
 * (mmci is not root), "bwrap, no network, user mmci-build" (it is), or
 * "none". Points to a static buffer.
 */
const char *sandbox_describe(const struct sandbox *sb);

/*
 * sandbox_check - can the sandbox start here, with these directories, as
 * the build user (which must exist when mmci is root)? Runs "true" in it.
 * Return: 0, or -1 after error() naming bwrap's complaint and
 * MMCI_BUILD_SANDBOX=none as the way out.
 */
int sandbox_check(const struct sandbox *sb);

/*
 * sandbox_wrap - make @cmd run in @sb: cmd->argv becomes bwrap's command
 * line (owned by @sb), cmd->env goes into it as --setenv and becomes NULL,
 * cmd->dir stays (bwrap starts there, the command gets it with --chdir).
 * As root, the entries below @sb->rw are first given to the build user
 * and the command line starts with setpriv.
 * With SANDBOX_NONE, @cmd is left as it is. Call before start_command();
 * @sb must outlive the command, sandbox_release() frees the command line.
 * After a command run as the build user, sandbox_release() walks the
 * writable directories again: the build user owns everything there, group
 * root may write it (no set-ID bits), so root without CAP_DAC_OVERRIDE
 * can too.
 */
void sandbox_wrap(struct sandbox *sb, struct child_process *cmd);
void sandbox_release(struct sandbox *sb);

#endif
