// SPDX-License-Identifier: GPL-2.0
/*
 * test-progress.c - the status line of long steps (progress_status() in
 * daemon/util.c): on a terminal one line rewritten in place and cleared
 * before any other message; in a log nothing for a step shorter than
 * PROGRESS_LOG_S; errors held by error_hold() are kept for last_error(),
 * not printed. Each case runs in a child whose stderr is a real pty
 * (posix_openpt) or a pipe, and the parent reads what it wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"
#include "util.h"

#include "tap.h"

enum sink { SINK_TTY, SINK_PIPE };

/* run @steps in a child with stderr on a pty or a pipe; its output */
static void capture(enum sink sink, void (*steps)(void), struct strbuf *out)
{
	int rd = -1, wr = -1, fds[2];
	char buf[4096];
	ssize_t n;
	pid_t pid;

	strbuf_reset(out);
	if (sink == SINK_TTY) {
		rd = posix_openpt(O_RDWR | O_NOCTTY);
		if (rd < 0 || grantpt(rd) || unlockpt(rd))
			return;
		wr = open(ptsname(rd), O_RDWR | O_NOCTTY);
	} else if (!pipe(fds)) {
		rd = fds[0];
		wr = fds[1];
	}
	if (rd < 0 || wr < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(rd);
		dup2(wr, STDERR_FILENO);
		unsetenv("JOURNAL_STREAM");
		log_verbosity = 1;
		steps();
		fflush(stderr);
		_exit(0);
	}
	close(wr);
	/* a pty's master reads EIO once the child's side is closed */
	while ((n = read(rd, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, n);
	close(rd);
	waitpid(pid, NULL, 0);
}

/* held errors are kept for last_error(), not printed; they nest */
static void held_errors(void)
{
	error_hold();
	error("the inner step failed");
	error_hold();
	errno = ENOENT;
	error_errno("cannot open 'x'");
	error_unhold();
	error_unhold();
	error("the step failed: %s", last_error());
}

static void two_updates(void)
{
	progress_status("build #%d: %d objects", 1, 10);
	progress_status("build #%d: %d objects", 1, 20);
	progress_status_end();
}

static void update_then_message(void)
{
	progress_status("run #1 boot 0: fsdax rebind_memmap #%d", 3);
	log_info("a message of its own");
}

/* "[HH:MM:SS] " after @p: the time stamp every line carries */
static int stamp_at(const char *p)
{
	return p[0] == '[' && p[3] == ':' && p[6] == ':' && p[9] == ']' &&
	       p[10] == ' ';
}

int main(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *p;

	capture(SINK_TTY, two_updates, &out);
	ok(starts_with(out.buf, "\r\033[K") && stamp_at(out.buf + 4) &&
	   !strncmp(out.buf + 15, "build #1: 10 objects", 20),
	   "terminal: the line starts at column 0, cleared, with its stamp");
	p = strstr(out.buf, "\r\033[K[");
	p = p ? strstr(p + 1, "\r\033[K[") : NULL;
	ok(p && stamp_at(p + 4) && !strncmp(p + 15, "build #1: 20 objects", 20),
	   "terminal: the update rewrites the same line");
	ok(!strchr(out.buf, '\n'), "terminal: no new line while it updates");
	ok(ends_with(out.buf, "20 objects\r\033[K"),
	   "terminal: the end clears the line");

	capture(SINK_TTY, update_then_message, &out);
	p = strstr(out.buf, "fsdax rebind_memmap #3\r\033[Kmmci: a message of its own");
	ok(p != NULL, "terminal: a message clears the status line first");
	if (!p)
		printf("#   got '%s'\n", out.buf);

	capture(SINK_PIPE, two_updates, &out);
	is_int(out.len, 0, "log: a step shorter than PROGRESS_LOG_S says nothing");
	capture(SINK_PIPE, update_then_message, &out);
	is_str(out.buf, "mmci: a message of its own\n",
	       "log: only the message, on a line of its own");

	capture(SINK_PIPE, held_errors, &out);
	is_str(out.buf, "error: the step failed: cannot open 'x': "
	       "No such file or directory\n",
	       "held errors: one line, the caller's, with the last held text");

	strbuf_release(&out);
	return done_testing();
}
