// SPDX-License-Identifier: GPL-2.0
/*
 * test-interrupt.c - SIGTERM in a command that waits for a child
 * (daemon/interrupt.c, run-command.c): the child is stopped at once, one
 * that ignores SIGTERM is killed after the grace period, no other child
 * starts, and the command dies of the signal at the end.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"
#include "run-command.h"
#include "util.h"
#include "tap.h"

/* SIGTERM to ourselves @after_s seconds from now, from a helper process */
static pid_t term_later(double after_s)
{
	pid_t me = getpid(), pid = fork();

	if (pid == 0) {
		usleep((useconds_t)(after_s * 1e6));
		kill(me, SIGTERM);
		_exit(0);
	}
	return pid;
}

static void test_child_stopped(void)
{
	const char *sleep_argv[] = { "sleep", "30", NULL };
	const char *sh_argv[] = { "sh", "-c", "sleep 30", NULL };
	const char *true_argv[] = { "true", NULL };
	struct child_process cp = CHILD_PROCESS_INIT;
	pid_t helper;
	double t0;
	int code;

	ok(!interrupted() && !interrupt_reason(), "not interrupted yet");
	interrupt_catch();
	ok(interrupt_armed(), "armed");

	/* no timeout, no tick: finish_command() would block in waitpid() */
	cp.argv = sleep_argv;
	t0 = now_s();
	helper = term_later(0.3);
	code = run_command(&cp);
	waitpid(helper, NULL, 0);
	is_int(interrupted(), SIGTERM, "the flag holds SIGTERM");
	is_int(code, 128 + SIGTERM, "the child was stopped with SIGTERM");
	ok(now_s() - t0 < 3, "at once, not after its 30 s");
	is_str(last_error(),
	       "'sleep' stopped: interrupted: mmci received SIGTERM",
	       "and the error says so");

	/* from now on nothing starts */
	memset(&cp, 0, sizeof(cp));
	cp.argv = sh_argv;
	t0 = now_s();
	is_int(run_command(&cp), -1, "after the signal, no child starts");
	is_str(last_error(),
	       "'sh' not started: interrupted: mmci received SIGTERM",
	       "saying why");
	ok(now_s() - t0 < 1, "without waiting");
	memset(&cp, 0, sizeof(cp));
	cp.argv = true_argv;
	is_int(run_command(&cp), -1, "not even 'true'");
}

/* a child that ignores SIGTERM is killed after the grace period */
static void test_stubborn_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		const char *argv[] = { "sh", "-c", "trap '' TERM; sleep 30",
				       NULL };
		struct child_process cp = CHILD_PROCESS_INIT;
		pid_t helper;
		double t0;
		int code;

		log_verbosity = 0;
		interrupt_catch();
		cp.argv = argv;
		if (start_command(&cp) < 0)
			_exit(1);
		t0 = now_s();
		helper = term_later(0.3);
		code = finish_command(&cp);
		waitpid(helper, NULL, 0);
		/* SIGKILL after 5 s of grace */
		_exit(code == 128 + SIGKILL && now_s() - t0 > 4.5 &&
		      now_s() - t0 < 10 ? 0 : 2);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0,
	   "a child that ignores SIGTERM is killed 5 s later");
}

/* interrupt_exit(): the process dies of the signal that interrupted it */
static void test_exit(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		interrupt_catch();
		raise(SIGTERM);
		interrupt_exit();
		_exit(0);	/* not reached when interrupted */
	}
	ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	   WTERMSIG(status) == SIGTERM, "interrupt_exit() dies of SIGTERM");

	pid = fork();
	if (pid == 0) {
		interrupt_catch();
		interrupt_exit();
		_exit(7);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 7, "without a signal it returns");
}

int main(void)
{
	log_verbosity = 0;
	test_stubborn_child();
	test_exit();
	test_child_stopped();	/* last: it leaves this process interrupted */
	return done_testing();
}
