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
#include <errno.h>
#include <ftw.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

const char *sandbox_build_user(void)
{
	static const struct {
		int cap;
		const char *name;
	} need[] = {
		{ CAP_SETUID, "CAP_SETUID" },	/* setpriv */
		{ CAP_SETGID, "CAP_SETGID" },
		{ CAP_CHOWN, "CAP_CHOWN" },	/* own_dirs() */
		/* mmci writes into the build user's directories */
		{ CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE" },
	};
	static int warned;
	const char *v = getenv("MMCI_BUILD_USER");
	struct strbuf missing = STRBUF_INIT;
	size_t i;

	if (geteuid())
		return NULL;
	for (i = 0; i < ARRAY_SIZE(need); i++)
		if (!have_capability(need[i].cap))
			strbuf_addf(&missing, " %s", need[i].name);
	if (!missing.len)
		return v && *v ? v : SANDBOX_BUILD_USER;
	/*
	 * Root without them (systemd's CapabilityBoundingSet=) cannot hand
	 * the build to another user: the sandbox runs as before, uid 0
	 * outside without capabilities, and says so.
	 */
	if (!warned++)
		log_warnx("mmci runs as root without%s: the build sandbox "
			  "cannot change to the build user and runs as uid 0 "
			  "outside (without capabilities), which can read "
			  "root's files; grant those capabilities or run mmci "
			  "as an unprivileged user", missing.buf);
	strbuf_release(&missing);
	return NULL;
}

const char *sandbox_describe(const struct sandbox *sb)
{
	static struct strbuf desc = STRBUF_INIT;
	const char *user = sandbox_build_user();

	if (sb->kind == SANDBOX_NONE)
		return "none";
	if (!user)
		return "bwrap, no network, uid " STR(SANDBOX_UID);
	strbuf_reset(&desc);
	strbuf_addf(&desc, "bwrap, no network, user %s", user);
	return desc.buf;
}

/*
 * The build user's ids into @sb (sb->drop set), or nothing to do when mmci
 * does not run as root. Return: 0, or -1 after error().
 */
static int resolve_user(struct sandbox *sb)
{
	const char *name = sandbox_build_user();
	struct passwd *pw;

	sb->drop = 0;
	if (!name)
		return 0;
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return error("build user '%s' does not exist%s%s: create it "
			     "with vm-images/host-setup.sh or name another "
			     "with MMCI_BUILD_USER", name, errno ? ": " : "",
			     errno ? strerror(errno) : "");
	if (!pw->pw_uid || !pw->pw_gid)
		return error("build user '%s' is root (uid %d, gid %d): "
			     "MMCI_BUILD_USER must name an unprivileged user",
			     name, (int)pw->pw_uid, (int)pw->pw_gid);
	sb->uid = pw->pw_uid;
	sb->gid = pw->pw_gid;
	sb->drop = 1;
	return 0;
}

/* --- the build user owns what a build writes ------------------------- */

static uid_t own_uid;
static gid_t own_gid;
static int own_failed;
static const char *own_failed_path;

static int own_one(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	int link = type == FTW_SL || type == FTW_SLN;
	int dir = type == FTW_D || type == FTW_DP;
	/*
	 * no set-user-ID or set-group-ID file: with the group root, the
	 * build could leave a set-group-ID root program
	 */
	mode_t mode = (st->st_mode & (dir ? 07777 : 0777)) | S_IWGRP;

	if (type == FTW_NS || type == FTW_DNR)
		return 0;
	if (st->st_uid == own_uid && st->st_gid == own_gid &&
	    (link || (st->st_mode & 07777) == mode))
		return 0;
	/*
	 * A second link to a file we do not own may be a hard link the
	 * build made to a file elsewhere (protected_hardlinks off): never
	 * hand that over. Nothing mmci or kbuild writes has one.
	 */
	if (!dir && !link && st->st_nlink > 1)
		return 0;
	/*
	 * The mode first, while the file may still be ours: changing the
	 * mode of the build user's file takes CAP_FOWNER, which mmci.service
	 * does not keep. Such a file was handed over before with its group
	 * write bit; if the build took it away, writing it again takes
	 * CAP_DAC_OVERRIDE, which a build as the build user requires anyway
	 * (sandbox_build_user()). The chown clears set-ID bits.
	 */
	if (!link && (st->st_mode & 07777) != mode && chmod(path, mode) < 0 &&
	    errno != EPERM && !own_failed++)
		own_failed_path = xstrdup(path);
	if ((st->st_uid != own_uid || st->st_gid != own_gid) &&
	    lchown(path, own_uid, own_gid) < 0 && !own_failed++)
		own_failed_path = xstrdup(path);
	return 0;
}

/*
 * Hand every entry below the writable directories to the build user: mmci
 * (root) creates them and writes into them between the sandboxed commands
 * (the fragment's copy, the build log, the bench module's sources), and
 * ccache's cache is shared with builds made without the sandbox. The group
 * is root's (gid 0) and may write: mmci as root without CAP_DAC_OVERRIDE
 * (mmci.service, which builds as uid 0, see sandbox_build_user()) can then
 * still write what a build as the build user left, on the same data
 * directory. So it runs before each command and again after it
 * (sandbox_release()). Nothing of the build runs meanwhile (bwrap's PID
 * namespace ends with the command), and FTW_PHYS never follows a symbolic
 * link the build left (lchown changes the link itself, chmod is not used
 * on one). About 11,000 entries (object directory and a 60 MB ccache)
 * take some 30 ms.
 */
static void own_dirs(const struct sandbox *sb)
{
	const char **p;

	own_uid = sb->uid;
	own_gid = 0;
	for (p = sb->rw; p && *p; p++) {
		own_failed = 0;
		own_failed_path = NULL;
		if (nftw(*p, own_one, 32, FTW_PHYS | FTW_MOUNT) < 0 &&
		    errno != ENOENT)
			log_warn("cannot walk '%s'", *p);
		if (own_failed) {
			log_warnx("cannot hand %d file(s) below '%s' to the "
				  "build user (first: '%s'): the build may "
				  "fail to write them", own_failed, *p,
				  own_failed_path);
			free((char *)own_failed_path);
		}
	}
}

/*
 * A directory the build user may enter only by a grant to it alone (an
 * ACL, as host-setup.sh gives on root's home to reach ccache's cache):
 * not searchable by others. The sandbox lays a tmpfs over the topmost one
 * above each bound directory, so the build sees the bound directory there
 * and nothing else of it (root's home: only ~/.cache/ccache). NULL when
 * every directory above @path is open to all; caller frees.
 */
static char *private_parent(const char *path)
{
	char *dir = xstrdup(path), *slash;
	char *top = NULL;
	struct stat st;

	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (!stat(dir, &st) && S_ISDIR(st.st_mode) &&
		    !(st.st_mode & S_IXOTH)) {
			free(top);
			top = xstrdup(dir);
		}
	}
	free(dir);
	return top;
}

static int contains(char *const *list, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
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
	char **e, **hidden = NULL;
	size_t nr_hidden = 0, alloc_hidden = 0, i;

	if (sb->drop) {
		char id[64];

		/*
		 * setpriv (util-linux) drops root before bwrap starts, so the
		 * user namespace belongs to the build user and SANDBOX_UID
		 * inside is that user outside. A change of uid clears the
		 * parent-death signal run-command.c set: "keep" restores it.
		 */
		push(sb, "setpriv");
		if (sb->uid == (uid_t)-1) {
			char *a = xstrfmt("--reuid=%s", sandbox_build_user());

			push(sb, a);
			free(a);
			push(sb, "--regid=-");
		} else {
			xsnprintf(id, sizeof(id), "--reuid=%d", (int)sb->uid);
			push(sb, id);
			xsnprintf(id, sizeof(id), "--regid=%d", (int)sb->gid);
			push(sb, id);
		}
		push(sb, "--clear-groups");
		push2(sb, "--pdeathsig", "keep");
		push(sb, "--");
	}
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
	for (i = 0; sb->drop && i < 2; i++) {
		for (p = i ? sb->ro : sb->rw; p && *p; p++) {
			char *top = private_parent(*p);

			if (!top || contains(hidden, nr_hidden, top)) {
				free(top);
				continue;
			}
			ALLOC_GROW(hidden, nr_hidden + 1, alloc_hidden);
			hidden[nr_hidden++] = top;
			push2(sb, "--tmpfs", top);
		}
	}
	for (i = 0; i < nr_hidden; i++)
		free(hidden[i]);
	free(hidden);
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

	/* what the command made: group root may write it too */
	if (sb->argv && sb->drop && sb->uid != (uid_t)-1)
		own_dirs(sb);
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
	/*
	 * A build user that cannot be resolved (sandbox_check() said so
	 * first) leaves its name to setpriv, which then fails: closed.
	 */
	if (resolve_user(sb) < 0) {
		sb->drop = 1;
		sb->uid = (uid_t)-1;
		sb->gid = (gid_t)-1;
	} else if (sb->drop) {
		own_dirs(sb);
	}
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
	if (resolve_user(&sb) < 0)
		return -1;
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
	/*
	 * run-command's child says "cannot run 'bwrap'" when exec fails,
	 * setpriv "failed to execute bwrap"
	 */
	if (code == 127 && strstr(out.buf, "cannot run 'setpriv'"))
		error("cannot start the build sandbox: setpriv is not "
		      "installed (Debian: util-linux); it drops root for the "
		      "build user '%s'", sandbox_build_user());
	else if (code == 127 && (strstr(out.buf, "cannot run 'bwrap'") ||
				 strstr(out.buf, "failed to execute bwrap")))
		error("cannot start the build sandbox: bwrap is not installed "
		      "(Debian: bubblewrap); set MMCI_BUILD_SANDBOX=none to "
		      "build without a sandbox");
	else if (strstr(out.buf, "namespace") || strstr(out.buf, "uid map") ||
		 strstr(out.buf, "not permitted"))
		error("cannot start the build sandbox (bwrap, exit %d): %s; "
		      "bwrap needs unprivileged user namespaces (sysctl "
		      "user.max_user_namespaces); set MMCI_BUILD_SANDBOX=none "
		      "to build without a sandbox", code, out.buf);
	else if (sb.drop && strstr(out.buf, "setpriv: "))
		error("cannot change to the build user '%s' (exit %d): %s; "
		      "set MMCI_BUILD_SANDBOX=none to build without a sandbox",
		      sandbox_build_user(), code, out.buf);
	else if (sb.drop && strstr(out.buf, "Permission denied"))
		error("cannot start the build sandbox (bwrap, exit %d): %s; "
		      "the build user '%s' must reach every directory the "
		      "build uses (vm-images/host-setup.sh grants it the way "
		      "to ccache's cache); set MMCI_BUILD_SANDBOX=none to "
		      "build without a sandbox", code, out.buf,
		      sandbox_build_user());
	else
		error("cannot start the build sandbox (bwrap, exit %d)%s%s; "
		      "set MMCI_BUILD_SANDBOX=none to build without a sandbox",
		      code, out.len ? ": " : "", out.buf);
	strbuf_release(&out);
	return -1;
}
