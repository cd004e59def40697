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
 * Limit: bwrap maps SANDBOX_UID to the uid that runs mmci. When that is
 * root, files are checked against host uid 0 without capabilities: the
 * build cannot write outside its directories nor reach the network, but it
 * can read root's files that are not world-readable (/etc/shadow, the
 * settings file). Only mmci running as another user, or a build uid that
 * owns the writable directories, would close that.
 *
 * MMCI_BUILD_SANDBOX=none (struct mmci_config.build_sandbox) runs the
 * command as it is, after a warning; it is for hosts where user
 * namespaces are disabled. There is no silent fallback: when bwrap is
 * missing or cannot set up, sandbox_check() fails and says so.
 */
#ifndef MMCI_SANDBOX_H
#define MMCI_SANDBOX_H

#include <stddef.h>

struct child_process;

/* nobody/nogroup: an id that owns nothing and exists in /etc/passwd */
#define SANDBOX_UID 65534
#define SANDBOX_GID 65534

enum sandbox_kind {
	SANDBOX_BWRAP = 0,	/* the default */
	SANDBOX_NONE,		/* MMCI_BUILD_SANDBOX=none */
};

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
};

#define SANDBOX_INIT { 0 }

/*
 * sandbox_kind_parse - "bwrap" (or empty) and "none".
 * Return: 0, or -1 for anything else.
 */
int sandbox_kind_parse(const char *s, enum sandbox_kind *kind);

/*
 * sandbox_describe - one line for logs: "bwrap, no network, uid 65534"
 * or "none".
 */
const char *sandbox_describe(const struct sandbox *sb);

/*
 * sandbox_check - can the sandbox start here, with these directories? Runs
 * "true" in it.
 * Return: 0, or -1 after error() naming bwrap's complaint and
 * MMCI_BUILD_SANDBOX=none as the way out.
 */
int sandbox_check(const struct sandbox *sb);

/*
 * sandbox_wrap - make @cmd run in @sb: cmd->argv becomes bwrap's command
 * line (owned by @sb), cmd->env goes into it as --setenv and becomes NULL,
 * cmd->dir stays (bwrap starts there, the command gets it with --chdir).
 * With SANDBOX_NONE, @cmd is left as it is. Call before start_command();
 * @sb must outlive the command, sandbox_release() frees the command line.
 */
void sandbox_wrap(struct sandbox *sb, struct child_process *cmd);
void sandbox_release(struct sandbox *sb);

#endif
