/* SPDX-License-Identifier: GPL-2.0 */
/*
 * priv.h - the root parent's typed requests (mmci-priv, mmci-priv.c).
 *
 * mmci-priv is a small root process, its own executable, that starts the
 * program it is given (the daemon, `mmci run`, ...) as the service user
 * with one end of a socketpair as MMCI_PRIV_FD, and does for it only what
 * needs root: start, watch, resize and destroy libvirt guests on this
 * host. Every message is one fixed-size struct over SOCK_SEQPACKET; the
 * files a guest boots (kernel, initramfs) travel as open descriptors
 * (SCM_RIGHTS), never as paths; what the parent writes (the domain XML,
 * the NVDIMM backing file, the serial logs) lives in directories it
 * chose itself at start. Its answers to a boot are the serial logs'
 * descriptors, read by the service user's process.
 *
 * Every channel serves one process: a process that forks asks for a
 * channel of its own (PRIV_CHANNEL), so answers never cross. A guest
 * belongs to the channel that booted it; closing the channel destroys
 * it, as libvirt's autodestroy destroys the parent's guests if the
 * parent dies.
 */
#ifndef MMCI_PRIV_H
#define MMCI_PRIV_H

#include <stdint.h>

#define PRIV_FD_ENV "MMCI_PRIV_FD"
#define PRIV_MAGIC 0x6d6d7031u	/* "mmp1": protocol 1 */

#define PRIV_NAME_MAX 64
#define PRIV_CMDLINE_MAX 2048
#define PRIV_XML_MAX 16384

enum priv_type {
	PRIV_CHANNEL = 1,	/* a channel of one's own: its fd comes back */
	PRIV_HOST,		/* what libvirt says of this host */
	PRIV_BOOT,		/* start a guest; fds: kernel [, initramfs];
			 * back: the two serial logs */
	PRIV_STATE,		/* is the guest of .boot still there? */
	PRIV_RESIZE,		/* its virtio-mem to .mib */
	PRIV_DESTROY,		/* destroy it; back, after a profiling boot:
				 * the counts its plugin wrote */
};

enum priv_backing {
	PRIV_BACKING_TMPFS,	/* /dev/shm */
	PRIV_BACKING_DISK,	/* the parent's directory */
};

struct priv_boot {
	char name[PRIV_NAME_MAX + 1];	/* "mmci-...", vm.h's rules */
	char arch[16];			/* arch.h's names */
	char cpu_model[32];		/* "" = the arch's */
	char cmdline[PRIV_CMDLINE_MAX + 1];	/* printable ASCII */
	uint32_t vcpus, kvm, icount, pin, has_initrd, backing;
	uint32_t profile;	/* 1: with the parent's counting plugin (TCG) */
	uint32_t nvdimm_label_kib;
	uint64_t ram_mib, nvdimm_mib, virtio_mem_max_mib;
};

struct priv_req {
	uint32_t magic;
	uint32_t type;		/* enum priv_type */
	uint32_t boot;		/* STATE, RESIZE, DESTROY: BOOT's answer */
	uint64_t mib;		/* RESIZE */
	struct priv_boot b;	/* BOOT */
};

struct priv_host {
	char qemu[32], libvirt[32], arch[32], cpu_model[64];
	char hostname[128], arm64_why[256];
	uint32_t kvm, arm64, cores, mmci_domains;
	uint64_t mem_mib;
};

struct priv_state {
	int32_t gone;		/* shut off, crashed or vanished */
	int32_t stopped;	/* a STOPPED event came, with stop_detail */
	int32_t stop_detail;
	int32_t crashed;	/* a CRASHED event came */
	double end_s;		/* now_s() (CLOCK_MONOTONIC) of the end, 0 */
};

struct priv_reply {
	uint32_t magic;
	uint32_t type;		/* the request's */
	int32_t status;		/* 0 done; -1 refused or failed: .error */
	char error[512];
	uint32_t boot;		/* BOOT: the guest's id on this channel */
	struct priv_host host;	/* HOST; BOOT: qemu and libvirt */
	struct priv_state state;	/* STATE */
	char xml[PRIV_XML_MAX];	/* BOOT: the XML libvirt was given */
};

#include <sys/types.h>

/*
 * priv-wire.c, both ends: send @len bytes with @nfd descriptors (at most
 * 4); receive one message into @buf, up to @max descriptors into @fds
 * (*@got of them, the rest closed), *@truncated when the message or its
 * descriptors did not fit. The counts of sendmsg()/recvmsg().
 */
ssize_t priv_send(int sock, const void *buf, size_t len, const int *fds,
		  int nfd, int flags);
ssize_t priv_recv(int sock, void *buf, size_t len, int *fds, int max,
		  int *got, int flags, int *truncated);

/* client side (priv-client.c), in mmci */

/* is this process a child of mmci-priv (MMCI_PRIV_FD)? */
int priv_active(void);
/*
 * priv_init - at start: the channel from mmci-priv, when there is one,
 * made close-on-exec, so that only a child given it (struct
 * child_process.priv_fd) can ask the parent for anything.
 */
void priv_init(void);
/* the channel from mmci-priv (MMCI_PRIV_FD), or -1 */
int priv_fd(void);

/* a channel of this process's own, or -1 after error() */
int priv_channel(void);

/*
 * one request on @ch with @nfd descriptors, its reply and up to @max
 * descriptors back (*@got of them); 0 when the parent did it, -1 after
 * error() when it refused (its reason) or the channel broke
 */
int priv_call(int ch, const struct priv_req *req, const int *fds, int nfd,
	      struct priv_reply *rep, int *fds_back, int max, int *got);

struct host;
/* what libvirt says of this host (host_probe_conn()), asked of the parent */
int priv_host(struct host *h);
/* vm_versions() of this host, asked of the parent */
int priv_versions(char **qemu, char **libvirt);

#endif
