/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run-command.h - start and reap child processes (make, tar, the initramfs
 * builder, gnuplot, the daemon's jobs, polls and mails). Modelled on git's
 * run-command API.
 *
 * Fd rules: the child gets /dev/null on stdin, or `stdin_fd`; `pass_fd`
 * becomes its fd 3 (a listening socket bound before the drop). When
 * `log_path` is set, the child's stdout and stderr are appended to that
 * file (the parent never sees them); otherwise they are inherited. The
 * parent closes nothing of its own. A child that outlives `timeout_s` is
 * killed (SIGKILL to its whole process group) and finish_command()
 * reports it. Every child gets SIGTERM when the thread that started it
 * ends (PR_SET_PDEATHSIG, see run-command.c): a daemon killed with -9
 * leaves no build or job running behind it.
 *
 * mmci-priv's channel (MMCI_PRIV_FD) is close-on-exec (priv_init()) and
 * its name is dropped: only a child given `priv_fd` may ask the root
 * parent for guests (the daemon's jobs), not a poll, a mail child, the
 * web server or a kernel build.
 *
 * Environment: a child never inherits mmci's environment as a whole. It
 * gets PATH, HOME, LANG=C.UTF-8 and the few names listed in run-command.c
 * (the MMCI_* settings, ccache's and the sanitizers' own), and then what
 * `env` adds or removes; never a secret, by name (config_secret_name():
 * MMCI_SMTP_PASSWORD and its like) or by value (config_redact_value():
 * the password of a URL, cut out of every value, `env`'s too).
 *
 * User: with `as_user`, the child sets its groups, gid and uid (real,
 * effective and saved) before exec; a drop that fails is a child that
 * exits 127 after "error: cannot become uid N" (daemon/service-user.h).
 *
 * Everything the child needs (argv, the environment, the program's path
 * in PATH, the fds) is prepared before fork(); between fork() and exec
 * the child makes only async-signal-safe calls, as a process with threads
 * (mmci web's server, the libvirt event loop) requires.
 */
#ifndef MMCI_RUN_COMMAND_H
#define MMCI_RUN_COMMAND_H

#include <sys/types.h>

struct child_process {
	const char **argv;        /* NULL-terminated; argv[0] looked up in PATH */
	const char *dir;          /* chdir here first, or NULL */
	const char **env;         /* "NAME=value" added, "NAME" removed; NULL-terminated */
	const char *log_path;     /* append stdout+stderr here, or NULL */
	int stdin_fd;             /* > 0: the child's stdin (caller closes it); 0: /dev/null */
	int pass_fd;              /* > 0: also the child's fd 3 (caller closes it) */
	/*
	 * > 0: mmci-priv's channel (priv.h), kept open in the child and
	 * named by MMCI_PRIV_FD; otherwise the child gets neither
	 */
	int priv_fd;
	/* as_user: the child drops to uid/gid (no supplementary groups) */
	int as_user;
	uid_t uid;
	gid_t gid;
	unsigned int timeout_s;   /* 0 = none */
	/* called about once a second while finish_command() waits */
	void (*tick)(void *data);
	void *tick_data;
	pid_t pid;
	int timed_out;            /* set by finish_command() */
	double start_s;           /* monotonic seconds at start */
};

#define CHILD_PROCESS_INIT { 0 }

/*
 * start_command() - start the child. A program that cannot be run (not
 * in PATH, not executable) or a `dir` that cannot be entered still gives
 * a child, which exits 127 after "error: cannot run 'x': ..." went to
 * its log (or stderr): callers see one failure path.
 * Return: 0, or -1 after error() when no child could be made.
 */
int start_command(struct child_process *cmd);
/*
 * Wait for the child. Returns its exit code (0..255), 128+signal when it
 * was killed, or -1 when it could not be waited for.
 */
int finish_command(struct child_process *cmd);
/*
 * Has the child ended? 0: still running; 1: yes, *code as finish_command()
 * returns it; -1 after error(). For a loop that must also see signals.
 */
int poll_command(struct child_process *cmd, int *code);
/* @sig to the child's process group and to the child itself */
void signal_command(const struct child_process *cmd, int sig);
int run_command(struct child_process *cmd);
/* convenience: run argv in dir, output to log (may be NULL) */
int run_command_v(const char **argv, const char *dir, const char *log_path);

/*
 * Run argv and capture its stdout into `out` (stderr is inherited).
 * Returns the exit code as finish_command() does.
 */
struct strbuf;
int capture_command(const char **argv, const char *dir, struct strbuf *out);

/**
 * child_env() - the environment a child gets, as start_command() makes it
 * @env: "NAME=value" to add or replace, "NAME" to remove; may be NULL
 *
 * Return: a NULL-terminated array; caller frees it with child_env_free().
 */
char **child_env(const char *const *env);
void child_env_free(char **envp);

/* @name's path in PATH (/usr/bin:/bin without one), or NULL; caller frees */
char *find_in_path(const char *name);

#endif
