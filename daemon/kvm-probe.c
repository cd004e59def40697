// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-probe.c - decide between KVM and TCG by running a tiny guest.
 *
 * The probe forks a child that creates a VM with one page of memory
 * holding four real-mode instructions:
 *
 *	mov dx, 0x3f8 ; mov al, 'K' ; out dx, al ; hlt
 *
 * and runs it: a working KVM exits to user space first with KVM_EXIT_IO
 * (the out) and then with KVM_EXIT_HLT. The child reports each step to
 * the parent over a pipe as fixed-size records, so the parent can say
 * which step failed or hung; it waits KVM_PROBE_TIMEOUT_MS at most and
 * then kills the child. Only the child touches /dev/kvm: a hung KVM_RUN
 * cannot block mmci itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kvm-probe.h"
#include "util.h"
#include "vm.h"

#define PROBE_GUEST_ADDR 0x1000
#define PROBE_PORT 0x3f8
#define PROBE_BYTE 'K'

enum probe_step {
	STEP_OPEN,
	STEP_API_VERSION,
	STEP_CREATE_VM,
	STEP_SET_MEMORY,
	STEP_CREATE_VCPU,
	STEP_MMAP_RUN,
	STEP_SET_REGS,
	STEP_RUN_IO,
	STEP_RUN_HLT,
	STEP_DONE,
};

static const char *const step_name[] = {
	[STEP_OPEN] = "open /dev/kvm",
	[STEP_API_VERSION] = "KVM_GET_API_VERSION",
	[STEP_CREATE_VM] = "KVM_CREATE_VM",
	[STEP_SET_MEMORY] = "KVM_SET_USER_MEMORY_REGION",
	[STEP_CREATE_VCPU] = "KVM_CREATE_VCPU",
	[STEP_MMAP_RUN] = "mmap of kvm_run",
	[STEP_SET_REGS] = "KVM_SET_SREGS/KVM_SET_REGS",
	[STEP_RUN_IO] = "KVM_RUN",
	[STEP_RUN_HLT] = "KVM_RUN (to hlt)",
	[STEP_DONE] = "done",
};

enum probe_status {
	PROBE_STARTED,
	PROBE_FAILED,	/* err is an errno value, or 0 with detail set */
	PROBE_OK,	/* only with STEP_DONE */
};

/* one record on the pipe; the child writes, the parent reads */
struct probe_msg {
	int step;
	int status;
	int err;
	unsigned int detail;	/* exit reason or value found, when err == 0 */
};

static const unsigned char probe_code[] = {
	0xba, PROBE_PORT & 0xff, PROBE_PORT >> 8,	/* mov dx, 0x3f8 */
	0xb0, PROBE_BYTE,				/* mov al, 'K' */
	0xee,						/* out dx, al */
	0xf4,						/* hlt */
};

static void probe_send(int fd, int step, int status, int err,
		       unsigned int detail)
{
	struct probe_msg m = {
		.step = step, .status = status, .err = err, .detail = detail,
	};

	/* a record is far below PIPE_BUF: the write is atomic */
	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(2);
}

#define STEP(s) probe_send(fd, (s), PROBE_STARTED, 0, 0)
#define FAIL(s, e, d)                                                         \
	do {                                                                  \
		probe_send(fd, (s), PROBE_FAILED, (e), (d));                  \
		_exit(1);                                                     \
	} while (0)

/* runs in the child; never returns */
static NORETURN void probe_child(int fd)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs = { 0 };
	struct kvm_run *run;
	unsigned char *mem;
	int kvm, vm, vcpu, ret;
	long run_size;

	STEP(STEP_OPEN);
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		FAIL(STEP_OPEN, errno, 0);

	STEP(STEP_API_VERSION);
	ret = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (ret < 0)
		FAIL(STEP_API_VERSION, errno, 0);
	if (ret != KVM_API_VERSION)
		FAIL(STEP_API_VERSION, 0, ret);

	STEP(STEP_CREATE_VM);
	vm = ioctl(kvm, KVM_CREATE_VM, 0UL);
	if (vm < 0)
		FAIL(STEP_CREATE_VM, errno, 0);

	STEP(STEP_SET_MEMORY);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		FAIL(STEP_SET_MEMORY, errno, 0);
	memcpy(mem, probe_code, sizeof(probe_code));
	region.slot = 0;
	region.guest_phys_addr = PROBE_GUEST_ADDR;
	region.memory_size = 4096;
	region.userspace_addr = (unsigned long)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		FAIL(STEP_SET_MEMORY, errno, 0);

	STEP(STEP_CREATE_VCPU);
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0UL);
	if (vcpu < 0)
		FAIL(STEP_CREATE_VCPU, errno, 0);

	STEP(STEP_MMAP_RUN);
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (long)sizeof(*run))
		FAIL(STEP_MMAP_RUN, run_size < 0 ? errno : 0,
		     (unsigned int)run_size);
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu,
		   0);
	if (run == MAP_FAILED)
		FAIL(STEP_MMAP_RUN, errno, 0);

	/* real mode, flat: cs = 0, ip = the page */
	STEP(STEP_SET_REGS);
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		FAIL(STEP_SET_REGS, errno, 0);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		FAIL(STEP_SET_REGS, errno, 0);
	regs.rip = PROBE_GUEST_ADDR;
	regs.rflags = 0x2;	/* bit 1 is reserved and always set */
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		FAIL(STEP_SET_REGS, errno, 0);

	STEP(STEP_RUN_IO);
	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		FAIL(STEP_RUN_IO, errno, 0);
	if (run->exit_reason != KVM_EXIT_IO)
		FAIL(STEP_RUN_IO, 0, run->exit_reason);
	if (run->io.direction != KVM_EXIT_IO_OUT ||
	    run->io.port != PROBE_PORT || run->io.size != 1 ||
	    *((unsigned char *)run + run->io.data_offset) != PROBE_BYTE)
		FAIL(STEP_RUN_IO, 0, 1000 + run->io.port);

	STEP(STEP_RUN_HLT);
	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		FAIL(STEP_RUN_HLT, errno, 0);
	if (run->exit_reason != KVM_EXIT_HLT)
		FAIL(STEP_RUN_HLT, 0, run->exit_reason);

	probe_send(fd, STEP_DONE, PROBE_OK, 0, 0);
	_exit(0);
}

#undef STEP
#undef FAIL

static void set_why(char *why, size_t whylen, const char *fmt, ...)
	PRINTF(3, 4);

static void set_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);	/* truncation is fine here */
	va_end(ap);
}

static void describe_failure(const struct probe_msg *m, char *why,
			     size_t whylen)
{
	const char *name = step_name[m->step];

	if (m->step == STEP_OPEN && m->err == ENOENT)
		set_why(why, whylen, "no /dev/kvm");
	else if (m->err)
		set_why(why, whylen, "%s failed: %s", name, strerror(m->err));
	else if (m->step == STEP_API_VERSION)
		set_why(why, whylen, "KVM API version %u, expected %d",
			m->detail, KVM_API_VERSION);
	else if (m->step == STEP_RUN_IO && m->detail >= 1000)
		set_why(why, whylen, "KVM_RUN: unexpected I/O on port 0x%x",
			m->detail - 1000);
	else if (m->step == STEP_RUN_IO)
		set_why(why, whylen, "%s: exit reason %u, expected KVM_EXIT_IO",
			name, m->detail);
	else if (m->step == STEP_RUN_HLT)
		set_why(why, whylen, "%s: exit reason %u, expected KVM_EXIT_HLT",
			name, m->detail);
	else
		set_why(why, whylen, "%s failed (%u)", name, m->detail);
}

/* reap the child, killing it first if asked; bounded, a task stuck in
 * the kernel may not die at once */
static void reap_child(pid_t pid, int kill_it)
{
	int i;

	if (kill_it)
		kill(pid, SIGKILL);
	for (i = 0; i < 100; i++) {
		pid_t r = waitpid(pid, NULL, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return;
		usleep(10 * 1000);
	}
	log_warnx("kvm probe child %d does not exit, leaving it", (int)pid);
}

static int probe(char *why, size_t whylen)
{
	struct probe_msg last = { .step = -1 };
	uint64_t deadline;
	int fds[2], ok = 0, timed_out = 0, done = 0;
	pid_t pid;

	if (access("/dev/kvm", F_OK) < 0) {
		set_why(why, whylen, "no /dev/kvm");
		return 0;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		set_why(why, whylen, "pipe failed: %s", strerror(errno));
		return 0;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		set_why(why, whylen, "fork failed: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (!pid) {
		close(fds[0]);
		probe_child(fds[1]);
	}
	close(fds[1]);

	deadline = now_ns() + (uint64_t)KVM_PROBE_TIMEOUT_MS * 1000000;
	while (!done) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		struct probe_msg m;
		uint64_t now = now_ns();
		ssize_t n;
		int ret;

		if (now >= deadline) {
			timed_out = 1;
			break;
		}
		ret = poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			set_why(why, whylen, "poll failed: %s",
				strerror(errno));
			done = 2;
			break;
		}
		if (!ret)
			continue;
		n = read(fds[0], &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m) || m.step < 0 || m.step > STEP_DONE) {
			/* EOF or garbage: the child died without a verdict */
			done = 3;
			break;
		}
		last = m;
		if (m.status == PROBE_OK) {
			ok = 1;
			done = 1;
		} else if (m.status == PROBE_FAILED) {
			describe_failure(&m, why, whylen);
			done = 1;
		}
	}
	close(fds[0]);
	reap_child(pid, timed_out || done != 1);

	if (ok) {
		set_why(why, whylen, "KVM usable");
		return 1;
	}
	if (timed_out) {
		set_why(why, whylen, "%s hung for %d s",
			last.step >= 0 ? step_name[last.step] : "probe start",
			KVM_PROBE_TIMEOUT_MS / 1000);
	} else if (done == 3) {
		set_why(why, whylen, "probe child died during %s",
			last.step >= 0 ? step_name[last.step] : "start");
	}
	return 0;
}

int kvm_usable(char *why, size_t whylen)
{
	const char *force = getenv("MMCI_ACCEL");
	int ret;

	if (force && !strcmp(force, "kvm")) {
		set_why(why, whylen, "forced by MMCI_ACCEL=kvm");
		return 1;
	}
	if (force && !strcmp(force, "tcg")) {
		set_why(why, whylen, "forced by MMCI_ACCEL=tcg");
		return 0;
	}
	if (force && *force)
		log_warnx("ignoring MMCI_ACCEL='%s', expected 'kvm' or 'tcg'",
			  force);
	if (vm_test_kvm_seam()) {
		set_why(why, whylen, "KVM usable (test seam "
			"MMCI_TEST_KVM_SEAM=%s)", vm_test_kvm_seam());
		return 1;
	}

	ret = probe(why, whylen);
	log_debug("kvm probe: %s", why && whylen ? why : ret ? "yes" : "no");
	return ret;
}
