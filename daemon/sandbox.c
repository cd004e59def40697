// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox.c - bubblewrap around the commands that run a kernel tree's code.
 *
 * Workload: a few bwrap starts per build (configure, make, modules_install,
 * the bench module); setting up the namespaces costs a few ms, nothing next
 * to a kernel build. The sandbox does not change what is built: the paths
 * are the same inside, so CCACHE_BASEDIR and the object directory work as
 * before, and the build cache key does not mention it.
 *
 * Signals: run-command.c kills the child's process group on a timeout and
 * sends SIGTERM when mmci dies. The child is bwrap; --die-with-parent and
 * the PID namespace then end every process of the build, with SIGKILL (bwrap
 * forwards no signal). --new-session keeps the build off our terminal
 * (TIOCSTI), so it is in another process group than bwrap.
 */
#include <unistd.h>

#include "fsutil.h"
#include "run-command.h"
#include "sandbox.h"
#include "strbuf.h"
#include "util.h"

extern char **environ;

/* passed from our environment to every sandboxed command */
static const char *const base_env[] = { "PATH", "HOME", "LANG", "LC_ALL",
					"TZ", NULL };

#define STR_(x) #x
#define STR(x) STR_(x)

int sandbox_kind_parse(const char *s, enum sandbox_kind *kind)
{
	if (!s || !*s || !strcmp(s, "bwrap"))
		*kind = SANDBOX_BWRAP;
	else if (!strcmp(s, "none"))
		*kind = SANDBOX_NONE;
	else
		return -1;
	return 0;
}

const char *sandbox_describe(const struct sandbox *sb)
{
	if (sb->kind == SANDBOX_NONE)
		return "none";
	return "bwrap, no network, uid " STR(SANDBOX_UID);
}

static void push(struct sandbox *sb, const char *arg)
{
	ALLOC_GROW(sb->argv, sb->argc + 2, sb->alloc);
	sb->argv[sb->argc++] = xstrdup(arg);
	sb->argv[sb->argc] = NULL;
}

static void push2(struct sandbox *sb, const char *opt, const char *arg)
{
	push(sb, opt);
	push(sb, arg);
}

static void push3(struct sandbox *sb, const char *opt, const char *a,
		  const char *b)
{
	push(sb, opt);
	push(sb, a);
	push(sb, b);
}

/* is "NAME=value" (from environ) named by one of @names? */
static int env_kept(const char *entry, const char *const *names)
{
	size_t len = strchrnul(entry, '=') - entry;

	for (; names && *names; names++) {
		size_t n = strlen(*names);

		if (n && (*names)[n - 1] == '*') {
			if (len >= n - 1 && !strncmp(entry, *names, n - 1))
				return 1;
		} else if (len == n && !strncmp(entry, *names, n)) {
			return 1;
		}
	}
	return 0;
}

static void push_env(struct sandbox *sb, const char *entry)
{
	const char *eq = strchr(entry, '=');
	char *name;

	if (!eq) {
		push2(sb, "--unsetenv", entry);
		return;
	}
	name = xstrndup(entry, eq - entry);
	push3(sb, "--setenv", name, eq + 1);
	free(name);
}

static void build_argv(struct sandbox *sb, const char *dir,
		       const char **env, const char **argv)
{
	const char **p;
	char **e;

	push(sb, "bwrap");
	/*
	 * --unshare-all makes the user namespace optional; --unshare-user
	 * makes it required, and --disable-userns keeps the build from
	 * nesting one (more kernel surface, no use to kbuild).
	 */
	push(sb, "--unshare-all");
	push(sb, "--unshare-user");
	push(sb, "--disable-userns");
	push2(sb, "--uid", STR(SANDBOX_UID));
	push2(sb, "--gid", STR(SANDBOX_GID));
	push2(sb, "--cap-drop", "ALL");
	push(sb, "--die-with-parent");
	push(sb, "--new-session");
	push3(sb, "--ro-bind", "/", "/");
	push2(sb, "--dev", "/dev");
	push2(sb, "--proc", "/proc");
	push2(sb, "--tmpfs", "/tmp");
	/* writable first, then read-only ones, which may lie below them */
	for (p = sb->rw; p && *p; p++)
		push3(sb, "--bind", *p, *p);
	for (p = sb->ro; p && *p; p++)
		push3(sb, "--ro-bind", *p, *p);
	if (dir)
		push2(sb, "--chdir", dir);
	/*
	 * The daemon's environment holds secrets (MMCI_SMTP_PASSWORD) and
	 * make variables (ARCH, KCFLAGS) that are not part of the cache key:
	 * the build sees only what is named here.
	 */
	push(sb, "--clearenv");
	for (e = environ; *e; e++)
		if (env_kept(*e, base_env) || env_kept(*e, sb->keep_env))
			push_env(sb, *e);
	for (p = env; p && *p; p++)
		push_env(sb, *p);
	push(sb, "--");
	for (p = argv; *p; p++)
		push(sb, *p);
}

void sandbox_release(struct sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->argc; i++)
		free(sb->argv[i]);
	free(sb->argv);
	sb->argv = NULL;
	sb->argc = sb->alloc = 0;
}

void sandbox_wrap(struct sandbox *sb, struct child_process *cmd)
{
	static int warned;

	if (sb->kind == SANDBOX_NONE) {
		if (!warned)
			log_warnx("MMCI_BUILD_SANDBOX=none: the kernel tree's "
				  "code runs unsandboxed, with network and as "
				  "uid %d", (int)getuid());
		warned = 1;
		return;
	}
	sandbox_release(sb);
	build_argv(sb, cmd->dir, cmd->env, cmd->argv);
	cmd->argv = (const char **)sb->argv;
	cmd->env = NULL;
}

int sandbox_check(const struct sandbox *sb_arg)
{
	struct sandbox sb = *sb_arg;
	struct child_process cmd = CHILD_PROCESS_INIT;
	const char *argv[] = { "true", NULL };
	char log[] = "/tmp/mmci-sandbox-XXXXXX";
	struct strbuf out = STRBUF_INIT;
	int fd, code;

	if (sb.kind == SANDBOX_NONE)
		return 0;
	sb.argv = NULL;
	sb.argc = sb.alloc = 0;
	fd = mkstemp(log);
	if (fd < 0)
		return error_errno("cannot create '%s'", log);
	close(fd);
	cmd.argv = argv;
	cmd.log_path = log;
	cmd.timeout_s = 60;
	sandbox_wrap(&sb, &cmd);
	code = run_command(&cmd);
	strbuf_read_file(&out, log, 0);
	unlink(log);
	sandbox_release(&sb);
	strbuf_trim(&out);
	if (!code) {
		strbuf_release(&out);
		return 0;
	}
	/* run-command's child says "cannot run 'bwrap'" when exec fails */
	if (code == 127 && strstr(out.buf, "cannot run 'bwrap'"))
		error("cannot start the build sandbox: bwrap is not installed "
		      "(Debian: bubblewrap); set MMCI_BUILD_SANDBOX=none to "
		      "build without a sandbox");
	else if (strstr(out.buf, "namespace") || strstr(out.buf, "uid map") ||
		 strstr(out.buf, "not permitted"))
		error("cannot start the build sandbox (bwrap, exit %d): %s; "
		      "bwrap needs unprivileged user namespaces (sysctl "
		      "user.max_user_namespaces); set MMCI_BUILD_SANDBOX=none "
		      "to build without a sandbox", code, out.buf);
	else
		error("cannot start the build sandbox (bwrap, exit %d)%s%s; "
		      "set MMCI_BUILD_SANDBOX=none to build without a sandbox",
		      code, out.len ? ": " : "", out.buf);
	strbuf_release(&out);
	return -1;
}
