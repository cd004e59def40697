/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run-command.h - start and reap child processes (make, tar, the initramfs
 * builder). Modelled on git's run-command API.
 *
 * Fd rules: the child gets /dev/null on stdin. When `log_path` is set, the
 * child's stdout and stderr are appended to that file (the parent never
 * sees them); otherwise they are inherited. The parent closes nothing of
 * its own. A child that outlives `timeout_s` is killed (SIGKILL to its
 * whole process group) and finish_command() reports it. Every child gets
 * SIGTERM when mmci dies (PR_SET_PDEATHSIG): a daemon killed with -9 leaves
 * no build or job running behind it.
 */
#ifndef MMCI_RUN_COMMAND_H
#define MMCI_RUN_COMMAND_H

#include <sys/types.h>

struct child_process {
	const char **argv;        /* NULL-terminated; argv[0] looked up in PATH */
	const char *dir;          /* chdir here first, or NULL */
	const char **env;         /* "NAME=value" added, "NAME" removed; NULL-terminated */
	const char *log_path;     /* append stdout+stderr here, or NULL */
	unsigned int timeout_s;   /* 0 = none */
	/* called about once a second while finish_command() waits */
	void (*tick)(void *data);
	void *tick_data;
	pid_t pid;
	int timed_out;            /* set by finish_command() */
	double start_s;           /* monotonic seconds at start */
};

#define CHILD_PROCESS_INIT { 0 }

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
int run_command(struct child_process *cmd);
/* convenience: run argv in dir, output to log (may be NULL) */
int run_command_v(const char **argv, const char *dir, const char *log_path);

/*
 * Run argv and capture its stdout into `out` (stderr is inherited).
 * Returns the exit code as finish_command() does.
 */
struct strbuf;
int capture_command(const char **argv, const char *dir, struct strbuf *out);

#endif
