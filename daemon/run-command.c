// SPDX-License-Identifier: GPL-2.0
/*
 * run-command.c - child processes with logs and timeouts.
 *
 * Workload: a few children a minute at most (builds, the initramfs, the
 * daemon's jobs and polls, a plot per page), so building the child's
 * environment and looking its program up in PATH in the parent, for
 * every start, costs nothing worth measuring.
 *
 * Children run in their own process group so that a timeout kills make and
 * every compiler it started, not only the top process.
 *
 * After fork(). The daemon forks while libmicrohttpd's threads run; the
 * child of fork() in a process with threads may only make
 * async-signal-safe calls until it execs (signal-safety(7)): another
 * thread may have held malloc's lock or stdio's at the fork, and the
 * child would wait for it for ever. So everything is prepared before
 * fork(), as git's run-command.c does: argv, the environment (envp for
 * execve(), not setenv()), the program's path in PATH (execvp() may
 * allocate), /dev/null, the log file. The child then calls setpgid(),
 * prctl(), getppid(), sigprocmask(), signal(), dup2(), chdir(), execve(),
 * write() and _exit() only. A failed chdir() or execve() is not printed
 * by the child (fprintf() is not safe there): it writes the errno on a
 * close-on-exec pipe and exits 127; the parent, which reads that pipe
 * until the exec closes it, prints the error into the child's log.
 * posix_spawn() was not taken: it cannot set PR_SET_PDEATHSIG.
 *
 * PR_SET_PDEATHSIG (prctl(2)) fires when the *thread* that forked the
 * child ends, not the process. That is right for every caller here: a
 * command waits for its children in the thread that started them
 * (finish_command()), and the daemon starts its jobs, polls and mails
 * from its main thread, which lives as long as the process. A thread
 * that starts a child and ends without waiting for it (a pool thread of
 * libmicrohttpd) would have its child killed with it; start children
 * from such threads only through run_command().
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "interrupt.h"
#include "priv.h"	/* PRIV_FD_ENV */
#include "run-command.h"
#include "strbuf.h"
#include "util.h"

extern char **environ;

/*
 * What a child keeps of mmci's environment: what any program needs
 * (PATH, HOME, TMPDIR, TZ, the user's name), mmci's own settings for the
 * children that are mmci (jobs, polls), ccache's settings and cache place
 * for a build without the sandbox (sandbox.c passes the same into its
 * builds), the sanitizers' options for `make SANITIZE=1 check`,
 * JOURNAL_STREAM so that a child logging to the journal keeps the
 * priority prefixes (util.c), and XDG_RUNTIME_DIR for libvirt's session
 * URIs. A name ending in '*' is a prefix. Secrets are dropped even when
 * a prefix names them (config_secret_name()), and a URL's password is cut
 * out of every value a child keeps or is given (config_redact_value():
 * MMCI_SMTP_URL, the libvirt URIs, the feeds, MMCI_REMOTES): a child that
 * needs one gets it on a pipe (the daemon's mail child). LANG is always
 * C.UTF-8: the logs mmci parses and shows must not change with the locale.
 */
static const char *const kept_env[] = {
	"PATH", "HOME", "TMPDIR", "TZ", "USER", "LOGNAME", "MMCI_*",
	"CCACHE_*", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "JOURNAL_STREAM",
	NULL
};

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static size_t name_len(const char *entry)
{
	return strchrnul(entry, '=') - entry;
}

static int env_kept(const char *entry)
{
	size_t len = name_len(entry);
	const char *const *p;

	for (p = kept_env; *p; p++) {
		size_t n = strlen(*p);

		if ((*p)[n - 1] == '*') {
			if (len >= n - 1 && !strncmp(entry, *p, n - 1))
				return 1;
		} else if (len == n && !strncmp(entry, *p, n)) {
			return 1;
		}
	}
	return 0;
}

/* index of the entry named like @entry in @v[0..nr), or nr */
static size_t env_find(char **v, size_t nr, const char *entry)
{
	size_t len = name_len(entry), i;

	for (i = 0; i < nr; i++)
		if (name_len(v[i]) == len && !strncmp(v[i], entry, len))
			return i;
	return nr;
}

static void env_set(char ***v, size_t *nr, size_t *alloc, const char *entry)
{
	size_t i = env_find(*v, *nr, entry);

	if (!strchr(entry, '=')) {	/* "NAME": remove */
		if (i < *nr) {
			free((*v)[i]);
			(*v)[i] = (*v)[--*nr];
		}
		return;
	}
	if (i < *nr) {
		free((*v)[i]);
		(*v)[i] = xstrdup(entry);
		return;
	}
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = xstrdup(entry);
}

/* @entry as a child may get it: no secret by name or in a URL */
static void env_set_clean(char ***v, size_t *nr, size_t *alloc,
			  const char *entry)
{
	char *name = xstrndup(entry, name_len(entry)), *clean = NULL;
	int secret = config_secret_name(name);

	free(name);
	if (secret)
		return;
	if (strchr(entry, '='))
		clean = config_redact_value(entry);
	env_set(v, nr, alloc, clean ? clean : entry);
	free(clean);
}

char **child_env(const char *const *env)
{
	char **v = NULL, **e;
	size_t nr = 0, alloc = 0;

	for (e = environ; e && *e; e++)
		if (env_kept(*e))
			env_set_clean(&v, &nr, &alloc, *e);
	/* given only with struct child_process.priv_fd */
	env_set(&v, &nr, &alloc, PRIV_FD_ENV);
	if (env_find(v, nr, "PATH=") == nr)
		env_set(&v, &nr, &alloc, "PATH=" DEFAULT_PATH);
	env_set(&v, &nr, &alloc, "LANG=C.UTF-8");
	for (; env && *env; env++)
		env_set_clean(&v, &nr, &alloc, *env);
	ALLOC_GROW(v, nr + 1, alloc);
	v[nr] = NULL;
	return v;
}

void child_env_free(char **envp)
{
	char **e;

	for (e = envp; e && *e; e++)
		free(*e);
	free(envp);
}

/*
 * The file execve() is given for @prog: @prog itself when it has a '/',
 * else the first executable regular file of that name in the child's
 * PATH (as execvp() does, but before fork()). NULL: none; caller frees.
 */
static char *locate_program(const char *prog, char **envp)
{
	const char *path = NULL, *p;
	size_t i;
	struct strbuf sb = STRBUF_INIT;

	if (strchr(prog, '/'))
		return xstrdup(prog);
	for (i = 0; envp[i]; i++)
		if (starts_with(envp[i], "PATH="))
			path = envp[i] + 5;
	for (p = path; p && *p; ) {
		size_t n = strcspn(p, ":");
		struct stat st;

		strbuf_reset(&sb);
		if (n)
			strbuf_add(&sb, p, n);
		else
			strbuf_addch(&sb, '.');
		strbuf_addf(&sb, "/%s", prog);
		if (!stat(sb.buf, &st) && S_ISREG(st.st_mode) &&
		    !access(sb.buf, X_OK))
			return strbuf_detach(&sb, NULL);
		p += n;
		if (*p == ':')
			p++;
	}
	strbuf_release(&sb);
	return NULL;
}

/* what the child writes on its error pipe before it exits 127 */
enum child_stage { CHILD_EXEC, CHILD_CHDIR, CHILD_USER };

struct child_failure {
	int stage;		/* enum child_stage */
	int err;		/* errno */
};

static void __attribute__((noreturn)) child_fail(int fd, int stage, int err)
{
	struct child_failure f = { stage, err };
	ssize_t n = write(fd, &f, sizeof(f));

	(void)n;
	_exit(127);
}

static int start_command_fd(struct child_process *cmd, int out_fd)
{
	pid_t parent;
	int log_fd = -1, null_fd = -1, err_pipe[2] = { -1, -1 }, ret = -1;
	char **envp = NULL, *prog = NULL;
	sigset_t none;
	struct child_failure f;
	ssize_t n;

	if (!cmd->argv || !cmd->argv[0])
		BUG("start_command without argv");
	if (interrupted())
		return error("'%s' not started: %s", cmd->argv[0],
			     interrupt_reason());
	if (cmd->log_path) {
		log_fd = open(cmd->log_path,
			      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0)
			return error_errno("cannot open log '%s'",
					   cmd->log_path);
	}
	if (cmd->stdin_fd <= 0) {
		null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null_fd < 0) {
			error_errno("cannot open /dev/null");
			goto out;
		}
	}
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		error_errno("cannot create a pipe");
		goto out;
	}
	envp = child_env(cmd->env);
	if (cmd->priv_fd > 0) {
		size_t n = 0;

		while (envp[n])
			n++;
		envp = xrealloc(envp, (n + 2) * sizeof(*envp));
		envp[n] = xstrfmt("%s=%d", PRIV_FD_ENV, cmd->priv_fd);
		envp[n + 1] = NULL;
	}
	prog = locate_program(cmd->argv[0], envp);
	sigemptyset(&none);
	fflush(NULL);
	cmd->timed_out = 0;
	cmd->start_s = now_s();
	parent = getpid();
	cmd->pid = fork();
	if (cmd->pid < 0) {
		error_errno("cannot fork '%s'", cmd->argv[0]);
		goto out;
	}
	if (!cmd->pid) {
		/* async-signal-safe calls only, up to execve() (see above) */
		setpgid(0, 0);
		/*
		 * The drop comes first: a change of credentials clears
		 * the parent-death signal (prctl(2)). setgroups() and
		 * setres[ug]id() are plain system calls in a child with
		 * one thread.
		 */
		if (cmd->as_user &&
		    (setgroups(0, NULL) < 0 ||
		     setresgid(cmd->gid, cmd->gid, cmd->gid) < 0 ||
		     setresuid(cmd->uid, cmd->uid, cmd->uid) < 0))
			child_fail(err_pipe[1], CHILD_USER, errno);
		/*
		 * A child of a killed mmci must not go on: a make left
		 * running would race the retried job's make in the same
		 * object directory. SIGTERM lets make remove half-written
		 * targets.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127);
		/* a mask or an ignored SIGPIPE of ours is not the child's */
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(cmd->stdin_fd > 0 ? cmd->stdin_fd : null_fd, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		if (cmd->priv_fd > 0)
			fcntl(cmd->priv_fd, F_SETFD, 0);
		if (cmd->pass_fd > 0) {
			if (cmd->pass_fd == 3)
				fcntl(3, F_SETFD, 0);
			else
				dup2(cmd->pass_fd, 3);
		}
		if (log_fd >= 0) {
			if (out_fd < 0)
				dup2(log_fd, 1);
			dup2(log_fd, 2);
		}
		if (cmd->dir && chdir(cmd->dir) < 0)
			child_fail(err_pipe[1], CHILD_CHDIR, errno);
		if (!prog)
			child_fail(err_pipe[1], CHILD_EXEC, ENOENT);
		execve(prog, (char *const *)cmd->argv, envp);
		child_fail(err_pipe[1], CHILD_EXEC, errno);
	}
	setpgid(cmd->pid, cmd->pid);
	close(err_pipe[1]);
	err_pipe[1] = -1;
	/* EOF when the exec closed it; a failure report otherwise */
	do {
		n = read(err_pipe[0], &f, sizeof(f));
	} while (n < 0 && errno == EINTR);
	if (n == sizeof(f)) {
		struct strbuf msg = STRBUF_INIT;

		if (f.stage == CHILD_CHDIR)
			strbuf_addf(&msg, "error: cannot chdir to '%s': %s\n",
				    cmd->dir, strerror(f.err));
		else if (f.stage == CHILD_USER)
			strbuf_addf(&msg, "error: cannot become uid %ld gid "
				    "%ld to run '%s': %s\n", (long)cmd->uid,
				    (long)cmd->gid, cmd->argv[0],
				    strerror(f.err));
		else
			strbuf_addf(&msg, "error: cannot run '%s': %s\n",
				    cmd->argv[0], strerror(f.err));
		/* where the child's own message would have gone */
		if (write(log_fd >= 0 ? log_fd : 2, msg.buf, msg.len) !=
		    (ssize_t)msg.len)
			log_warn("cannot write to the log of '%s'",
				 cmd->argv[0]);
		strbuf_release(&msg);
	}
	ret = 0;
out:
	child_env_free(envp);
	free(prog);
	if (err_pipe[0] >= 0)
		close(err_pipe[0]);
	if (err_pipe[1] >= 0)
		close(err_pipe[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (log_fd >= 0)
		close(log_fd);
	return ret;
}

int start_command(struct child_process *cmd)
{
	return start_command_fd(cmd, -1);
}

void signal_command(const struct child_process *cmd, int sig)
{
	if (cmd->pid <= 0)
		BUG("signal_command without a child");
	kill(-cmd->pid, sig);
	kill(cmd->pid, sig);
}

static int decode_status(struct child_process *cmd, int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return error("unexpected wait status %d for '%s'", status,
		     cmd->argv[0]);
}

int poll_command(struct child_process *cmd, int *code)
{
	int status;
	pid_t r = waitpid(cmd->pid, &status, WNOHANG);

	if (r == 0)
		return 0;
	if (r < 0)
		return errno == EINTR ? 0 :
		       error_errno("cannot wait for '%s'", cmd->argv[0]);
	*code = decode_status(cmd, status);
	return 1;
}

/* SIGTERM to an interrupted mmci's child, then SIGKILL after this */
#define INTERRUPT_GRACE_S 5

int finish_command(struct child_process *cmd)
{
	int status;
	double next_tick = now_s() + 1, stopped_at = 0;

	for (;;) {
		pid_t r;

		if (cmd->tick && now_s() >= next_tick) {
			cmd->tick(cmd->tick_data);
			next_tick = now_s() + 1;
		}
		if (cmd->timeout_s &&
		    now_s() - cmd->start_s > cmd->timeout_s &&
		    !cmd->timed_out) {
			cmd->timed_out = 1;
			kill(-cmd->pid, SIGKILL);
			kill(cmd->pid, SIGKILL);
		}
		/* mmci got SIGTERM/SIGINT (interrupt.h): stop the child */
		if (interrupted() && !stopped_at) {
			stopped_at = now_s();
			kill(-cmd->pid, SIGTERM);
			kill(cmd->pid, SIGTERM);
		} else if (stopped_at &&
			   now_s() - stopped_at > INTERRUPT_GRACE_S) {
			kill(-cmd->pid, SIGKILL);
			kill(cmd->pid, SIGKILL);
		}
		/* a blocking wait would miss a signal that came just now */
		r = waitpid(cmd->pid, &status,
			    cmd->timeout_s || cmd->tick || interrupt_armed() ?
			    WNOHANG : 0);
		if (r == cmd->pid)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return error_errno("cannot wait for '%s'",
					   cmd->argv[0]);
		}
		/* WNOHANG and still running: poll ten times a second */
		poll(NULL, 0, 100);
	}
	if (cmd->timed_out) {
		error("'%s' killed after %u s", cmd->argv[0], cmd->timeout_s);
		return 128 + SIGKILL;
	}
	if (stopped_at)
		error("'%s' stopped: %s", cmd->argv[0], interrupt_reason());
	return decode_status(cmd, status);
}

int run_command(struct child_process *cmd)
{
	if (start_command(cmd) < 0)
		return -1;
	return finish_command(cmd);
}

int run_command_v(const char **argv, const char *dir, const char *log_path)
{
	struct child_process cmd = CHILD_PROCESS_INIT;

	cmd.argv = argv;
	cmd.dir = dir;
	cmd.log_path = log_path;
	return run_command(&cmd);
}

int capture_command(const char **argv, const char *dir, struct strbuf *out)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	int fds[2], ret;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return error_errno("cannot create a pipe");
	cmd.argv = argv;
	cmd.dir = dir;
	if (start_command_fd(&cmd, fds[1]) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	if (strbuf_read_fd(out, fds[0], 0) < 0)
		error_errno("cannot read the output of '%s'", argv[0]);
	close(fds[0]);
	ret = finish_command(&cmd);
	return ret;
}

char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	const char *p, *colon;

	for (p = path ? path : "/usr/bin:/bin"; p && *p; p = colon ?
	     colon + 1 : NULL) {
		char *cand;

		colon = strchr(p, ':');
		cand = xstrfmt("%.*s/%s", (int)(colon ? colon - p :
			       (ptrdiff_t)strlen(p)), p, name);
		if (*cand == '/' && !access(cand, X_OK))
			return cand;
		free(cand);
	}
	return NULL;
}
