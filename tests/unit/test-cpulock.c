// SPDX-License-Identifier: GPL-2.0
/*
 * test-cpulock.c - cpu_lock_take() (fsutil.h), the host's cores shared
 * between builds and guests: guests side by side, a build alone, and a
 * build that waits keeps later guests out (no starvation). Processes
 * made with fork() play the builds and guests; the checks compare the
 * order of their CLOCK_MONOTONIC stamps, never a duration, so a loaded
 * machine cannot fail them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "tap.h"
#include "util.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A child that takes the lock (@exclusive), writes its stamp of taking
 * it to @fd, holds it @hold_ms, then writes its stamp of dropping it.
 */
static pid_t holder(int exclusive, int hold_ms, int fd)
{
	pid_t pid = fork();
	double t[2];
	int lk;

	if (pid)
		return pid;
	lk = cpu_lock_take(exclusive, exclusive ? "a build" : "a guest");
	t[0] = mono();
	if (write(fd, &t[0], sizeof(t[0])) != sizeof(t[0]))
		_exit(2);
	usleep(hold_ms * 1000);
	t[1] = mono();
	cpu_lock_drop(lk);
	if (write(fd, &t[1], sizeof(t[1])) != sizeof(t[1]))
		_exit(2);
	_exit(lk >= 0 ? 0 : 1);
}

static double stamp(int fd)
{
	double t = -1;

	if (read(fd, &t, sizeof(t)) != sizeof(t))
		return -1;
	return t;
}

static int reaped_ok(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st);
}

static void test_unset(void)
{
	unsetenv("MMCI_CPU_LOCK");
	is_int(cpu_lock_take(1, "a build"), -1,
	       "no MMCI_CPU_LOCK: nothing held, nothing waited for");
	setenv("MMCI_CPU_LOCK", "/nonexistent-dir/cpu.lock", 1);
	is_int(cpu_lock_take(0, "a guest"), -1,
	       "a lock file that cannot be made: goes on without it");
}

static void test_guests_share(const char *path)
{
	int a, b;

	setenv("MMCI_CPU_LOCK", path, 1);
	a = cpu_lock_take(0, "guest a");
	b = cpu_lock_take(0, "guest b");
	ok(a >= 0 && b >= 0, "two guests hold the cores together");
	cpu_lock_drop(a);
	cpu_lock_drop(b);
}

static void test_build_waits_for_guest(void)
{
	int p[2], lk;
	double in, out, mine;
	pid_t g;

	if (pipe(p) < 0)
		die_errno("pipe");
	g = holder(0, 300, p[1]);
	in = stamp(p[0]);
	lk = cpu_lock_take(1, "a build");
	mine = mono();
	out = stamp(p[0]);
	ok(lk >= 0 && in > 0 && mine >= out,
	   "a build starts only after the running guest ended");
	cpu_lock_drop(lk);
	ok(reaped_ok(g), "the guest held the lock");
	close(p[0]);
	close(p[1]);
}

static void test_guest_waits_for_build(void)
{
	int p[2], lk;
	double out, mine;
	pid_t b;

	if (pipe(p) < 0)
		die_errno("pipe");
	b = holder(1, 300, p[1]);
	stamp(p[0]);
	lk = cpu_lock_take(0, "a guest");
	mine = mono();
	out = stamp(p[0]);
	ok(lk >= 0 && mine >= out,
	   "a guest starts only after the running build ended");
	cpu_lock_drop(lk);
	ok(reaped_ok(b), "the build held the lock");
	close(p[0]);
	close(p[1]);
}

/*
 * Guest 1 holds the cores; a build comes and waits; then guest 2 comes.
 * Without the gate guest 2 would join guest 1 at once and a stream of
 * guests could keep the build out for ever: it must wait for the build.
 */
static void test_no_starvation(void)
{
	int pg[2], pb[2], lk;
	double g_out, b_in, b_out, mine;
	pid_t g, b;

	if (pipe(pg) < 0 || pipe(pb) < 0)
		die_errno("pipe");
	g = holder(0, 600, pg[1]);
	stamp(pg[0]);
	b = holder(1, 200, pb[1]);
	usleep(250 * 1000);	/* the build is at the gate by now */
	lk = cpu_lock_take(0, "guest 2");
	mine = mono();
	g_out = stamp(pg[0]);
	b_in = stamp(pb[0]);
	b_out = stamp(pb[0]);
	ok(b_in >= g_out, "the build waited for guest 1");
	ok(lk >= 0 && mine >= b_out,
	   "guest 2, come after the build, waited for it: no starvation");
	cpu_lock_drop(lk);
	ok(reaped_ok(g) && reaped_ok(b), "both children held the lock");
}

int main(void)
{
	char dir[] = "/tmp/test-cpulock.XXXXXX";
	char *path;

	log_verbosity = 0;
	if (!mkdtemp(dir))
		die_errno("mkdtemp");
	path = xstrfmt("%s/cpu.lock", dir);
	test_unset();
	test_guests_share(path);
	test_build_waits_for_guest();
	test_guest_waits_for_build();
	test_no_starvation();
	unlink(path);
	rmdir(dir);
	free(path);
	return done_testing();
}
