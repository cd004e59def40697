// SPDX-License-Identifier: GPL-2.0
/*
 * run-command.c - child processes with logs and timeouts.
 *
 * Children run in their own process group so that a timeout kills make and
 * every compiler it started, not only the top process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "run-command.h"
#include "strbuf.h"
#include "util.h"

static void child_setup_env(const char **env)
{
	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');

		if (eq) {
			char *name = xstrndup(*env, eq - *env);

			setenv(name, eq + 1, 1);
			free(name);
		} else {
			unsetenv(*env);
		}
	}
}

static int start_command_fd(struct child_process *cmd, int out_fd)
{
	pid_t parent;
	int log_fd = -1;

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
	fflush(NULL);
	cmd->timed_out = 0;
	cmd->start_s = now_s();
	parent = getpid();
	cmd->pid = fork();
	if (cmd->pid < 0) {
		if (log_fd >= 0)
			close(log_fd);
		return error_errno("cannot fork '%s'", cmd->argv[0]);
	}
	if (!cmd->pid) {
		int null_fd = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		/*
		 * A child of a killed mmci must not go on: a make left
		 * running would race the retried job's make in the same
		 * object directory. SIGTERM lets make remove half-written
		 * targets.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		if (null_fd >= 0)
			dup2(null_fd, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		if (log_fd >= 0) {
			if (out_fd < 0)
				dup2(log_fd, 1);
			dup2(log_fd, 2);
		}
		if (cmd->dir && chdir(cmd->dir) < 0) {
			fprintf(stderr, "error: cannot chdir to '%s': %s\n",
				cmd->dir, strerror(errno));
			_exit(127);
		}
		child_setup_env(cmd->env);
		execvp(cmd->argv[0], (char *const *)cmd->argv);
		fprintf(stderr, "error: cannot run '%s': %s\n", cmd->argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(cmd->pid, cmd->pid);
	if (log_fd >= 0)
		close(log_fd);
	return 0;
}

int start_command(struct child_process *cmd)
{
	return start_command_fd(cmd, -1);
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
