// SPDX-License-Identifier: GPL-2.0
/*
 * test-run-command.c - children of daemon/run-command.c: the environment
 * they get (cleared, no secret, LANG=C.UTF-8, what `env` adds), stdin from
 * a pipe, a program or directory that is not there (exit 127, the error
 * in the log, printed by the parent), a blocked signal of the parent that
 * must not stay blocked in the child, a timeout, a descriptor passed as
 * fd 3, the drop to another user (as root only). (That the child calls
 * nothing unsafe after fork() is not tested here: glibc's fork() resets
 * malloc's locks in the child, so a test with threads that allocate
 * passes with setenv() after fork() too.)
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv.h"
#include "run-command.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

/* the environment `env` prints in a child, as "\nNAME=value\n" lines */
static void child_environment(struct strbuf *out)
{
	const char *argv[] = { "env", NULL };

	strbuf_reset(out);
	strbuf_addch(out, '\n');
	is_int(capture_command(argv, NULL, out), 0, "env runs");
}

static void test_env(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *add[] = { "MMCI_FOO", "NEW_ONE=1", NULL };
	char **envp;
	size_t i, nr;

	setenv("MMCI_FOO", "bar", 1);
	setenv("MMCI_SMTP_PASSWORD", "hunter2", 1);
	setenv("MMCI_API_TOKEN", "t0ken", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "s3cret", 1);
	setenv("CCACHE_DIR", "/c", 1);
	setenv("LANG", "de_DE.UTF-8", 1);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	setenv("SOMETHING_ELSE", "x", 1);
	child_environment(&out);
	ok(strstr(out.buf, "\nMMCI_FOO=bar\n") &&
	   strstr(out.buf, "\nCCACHE_DIR=/c\n") && strstr(out.buf, "\nPATH="),
	   "the child has MMCI_*, CCACHE_* and PATH");
	ok(!strstr(out.buf, "hunter2") && !strstr(out.buf, "t0ken") &&
	   !strstr(out.buf, "s3cret"), "and no password, token or secret");
	ok(strstr(out.buf, "\nLANG=C.UTF-8\n") && !strstr(out.buf, "LC_ALL") &&
	   !strstr(out.buf, "de_DE") && !strstr(out.buf, "SOMETHING_ELSE"),
	   "LANG=C.UTF-8, nothing else of the parent's");
	if (strstr(out.buf, "hunter2"))
		printf("# %s\n", out.buf);

	envp = child_env(add);
	for (nr = 0; envp[nr]; nr++)
		;
	for (i = 0; i < nr; i++)
		if (starts_with(envp[i], "MMCI_FOO="))
			break;
	ok(i == nr, "\"NAME\" in env removes a kept one");
	for (i = 0; i < nr; i++)
		if (!strcmp(envp[i], "NEW_ONE=1"))
			break;
	ok(i < nr, "\"NAME=value\" adds one");
	child_env_free(envp);

	unsetenv("PATH");
	child_environment(&out);
	ok(strstr(out.buf, "\nPATH=/usr/local/sbin:"), "no PATH: the default");
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
	unsetenv("MMCI_FOO");
	unsetenv("MMCI_SMTP_PASSWORD");
	unsetenv("MMCI_API_TOKEN");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("SOMETHING_ELSE");
	strbuf_release(&out);
}

static void test_stdin_and_failures(const char *dir)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *cat[] = { "cat", NULL };
	const char *none[] = { "mmci-no-such-program", NULL };
	char *log = xstrfmt("%s/log", dir);
	struct strbuf sb = STRBUF_INIT;
	int fds[2];

	if (pipe(fds) < 0 || write(fds[1], "the password\n", 13) != 13) {
		ok(0, "pipe");
		return;
	}
	close(fds[1]);
	cp.argv = cat;
	cp.log_path = log;
	cp.stdin_fd = fds[0];
	is_int(run_command(&cp), 0, "cat with stdin_fd");
	close(fds[0]);
	strbuf_read_file(&sb, log, 0);
	is_str(sb.buf, "the password\n", "read its stdin from the pipe");

	unlink(log);
	memset(&cp, 0, sizeof(cp));
	cp.argv = none;
	cp.log_path = log;
	is_int(run_command(&cp), 127, "a program not in PATH: exit 127");
	strbuf_reset(&sb);
	strbuf_read_file(&sb, log, 0);
	is_str(sb.buf, "error: cannot run 'mmci-no-such-program': No such "
	       "file or directory\n", "its error in the log");

	unlink(log);
	memset(&cp, 0, sizeof(cp));
	cp.argv = cat;
	cp.dir = "/nonexistent/dir";
	cp.log_path = log;
	is_int(run_command(&cp), 127, "a directory not there: exit 127");
	strbuf_reset(&sb);
	strbuf_read_file(&sb, log, 0);
	is_str(sb.buf, "error: cannot chdir to '/nonexistent/dir': No such "
	       "file or directory\n", "its error in the log");
	unlink(log);
	free(log);
	strbuf_release(&sb);
}

static void test_signals(void)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *sh[] = { "sh", "-c", "kill -TERM $$; exit 3", NULL };
	const char *sleep10[] = { "sleep", "10", NULL };
	sigset_t term, old;
	double t0;

	/* the daemon could block signals in its loop: not in a child */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	cp.argv = sh;
	is_int(run_command(&cp), 128 + SIGTERM, "a signal blocked in the "
	       "parent is not blocked in the child");
	sigprocmask(SIG_SETMASK, &old, NULL);

	memset(&cp, 0, sizeof(cp));
	cp.argv = sleep10;
	cp.timeout_s = 1;
	t0 = now_s();
	is_int(run_command(&cp), 128 + SIGKILL, "a timeout: SIGKILL");
	ok(cp.timed_out && now_s() - t0 < 3, "after about 1 s");
}

static void test_pass_fd_and_user(const char *dir)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *sh3[] = { "sh", "-c", "cat <&3", NULL };
	const char *ids[] = { "sh", "-c", "echo $(id -u) $(id -g) $(id -G); "
			      "grep ^CapEff: /proc/self/status", NULL };
	char *log = xstrfmt("%s/log", dir);
	struct strbuf sb = STRBUF_INIT;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0 || write(fds[1], "via fd 3\n", 9) != 9) {
		ok(0, "pipe");
		return;
	}
	close(fds[1]);
	cp.argv = sh3;
	cp.log_path = log;
	cp.pass_fd = fds[0];
	is_int(run_command(&cp), 0, "pass_fd: a close-on-exec pipe");
	close(fds[0]);
	strbuf_read_file(&sb, log, 0);
	is_str(sb.buf, "via fd 3\n", "the child read it on fd 3");
	unlink(log);

	if (geteuid()) {
		skip("as_user: the child drops to uid 65534", "not root");
		goto out;
	}
	memset(&cp, 0, sizeof(cp));
	cp.argv = ids;
	cp.log_path = log;
	cp.as_user = 1;
	cp.uid = 65534;
	cp.gid = 65534;
	is_int(run_command(&cp), 0, "as_user: runs");
	strbuf_reset(&sb);
	strbuf_read_file(&sb, log, 0);
	is_str(sb.buf, "65534 65534 65534\nCapEff:\t0000000000000000\n",
	       "as_user: its uid and gid, no other group, no capability");
out:
	unlink(log);
	free(log);
	strbuf_release(&sb);
}

/*
 * mmci-priv's channel: close-on-exec and its name dropped, unless a
 * child is given it (priv_fd), which then finds it open under that name
 */
static void test_priv_fd(const char *dir)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *sh[] = { "sh", "-c", NULL, NULL };
	char *log = xstrfmt("%s/priv", dir), *script, num[16];
	struct strbuf sb = STRBUF_INIT;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0) {
		ok(0, "socketpair");
		free(log);
		return;
	}
	snprintf(num, sizeof(num), "%d", sv[1]);
	/* the shell's own fds are its: look at the number we gave */
	sh[2] = script = xstrfmt("echo \"fd=$MMCI_PRIV_FD\"; "
				 "[ -e /proc/self/fd/%d ] && echo open; :",
				 sv[1]);
	setenv("MMCI_PRIV_FD", num, 1);
	priv_init();
	ok(fcntl(sv[1], F_GETFD) & FD_CLOEXEC, "priv_init: close-on-exec");

	cp.argv = sh;
	cp.log_path = log;
	is_int(run_command(&cp), 0, "a child without priv_fd runs");
	strbuf_read_file(&sb, log, 0);
	ok(strstr(sb.buf, "fd=\n") && !strstr(sb.buf, "open"),
	   "without priv_fd: no MMCI_PRIV_FD, no channel");
	unlink(log);
	strbuf_reset(&sb);

	memset(&cp, 0, sizeof(cp));
	cp.argv = sh;
	cp.log_path = log;
	cp.priv_fd = sv[1];
	is_int(run_command(&cp), 0, "a child with priv_fd runs");
	strbuf_read_file(&sb, log, 0);
	snprintf(num, sizeof(num), "fd=%d\nopen\n", sv[1]);
	ok(strstr(sb.buf, num) != NULL, "with priv_fd: named and open");
	ok(fcntl(sv[1], F_GETFD) & FD_CLOEXEC, "still close-on-exec here");
	unlink(log);
	unsetenv("MMCI_PRIV_FD");
	close(sv[0]);
	close(sv[1]);
	strbuf_release(&sb);
	free(script);
	free(log);
}

int main(void)
{
	char tmpl[] = "/tmp/test-run-command.XXXXXX";
	char *dir = mkdtemp(tmpl);

	log_verbosity = 0;
	if (!dir) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	test_env();
	test_stdin_and_failures(dir);
	test_signals();
	test_pass_fd_and_user(dir);
	test_priv_fd(dir);
	rmdir(dir);
	return done_testing();
}
