// SPDX-License-Identifier: GPL-2.0
/*
 * mmci-priv.c - the root parent (priv.h).
 *
 *   mmci-priv [--user NAME] -- PROGRAM [ARGS...]
 *
 * As root: opens libvirt (MMCI_LIBVIRT_URI, a local URI), makes its own
 * directory MMCI_PRIV_DIR (default PRIV_DIR_DEFAULT, 0711 root: QEMU,
 * which libvirt may run as its own user, must reach the kernel; below
 * directories only root can change: libvirt is given paths in it, and a
 * path the service user could redirect would make libvirt read, and
 * relabel, a file of its choosing), starts PROGRAM as the service user
 * (MMCI_USER, default "mmci") with MMCI_PRIV_FD, and answers typed
 * requests on that channel and on the channels it hands out, until the
 * last channel closes; then it destroys what is left and exits with
 * PROGRAM's status. SIGTERM and SIGINT are passed on to PROGRAM.
 *
 * What it checks, each refusal a logged line and the reason in the
 * reply: the message's size and magic; every string NUL-terminated in
 * its field and of the characters its use takes (a domain name as vm.h
 * says, an arch of arch.h's table, a CPU model of [A-Za-z0-9._-], a
 * command line of printable ASCII); every number within the bounds
 * below; the kernel and initramfs descriptors regular files within
 * PRIV_FILE_MAX, copied into its own directory before libvirt sees
 * them; a guest id belonging to the channel that names it. It never
 * parses text of the service user's: no JSON, no mail, no patch.
 *
 * Its object list is explicit (Makefile PRIV_OBJS); tests/t0987 checks
 * what it links and what it opens.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "arch.h"
#include "host.h"
#include "priv.h"
#include "strbuf.h"
#include "util.h"
#include "virt.h"
#include "vm.h"

/* bounds of a request (a guest of the reference sizes fits well inside) */
#define PRIV_MAX_CHANNELS 64
#define PRIV_MAX_VCPUS 8
#define PRIV_MAX_RAM_MIB (256ull << 10)
#define PRIV_MAX_NVDIMM_MIB (1024ull << 10)
#define PRIV_MAX_VMEM_MIB (1024ull << 10)
#define PRIV_MAX_LABEL_KIB 1024
#define PRIV_FILE_MAX (512ll << 20)
#define PRIV_DIR_DEFAULT "/var/lib/mmci-priv"

/* a profiling boot's counts, in the boot's directory (and its .tmp) */
#define COUNTS_FILE "counts.txt"

struct boot {
	uint32_t id;
	char name[PRIV_NAME_MAX + 1];
	char *dir;		/* <MMCI_PRIV_DIR>/b<pid>-<id> */
	char *backing;		/* the NVDIMM file, until QEMU has it */
	virDomainPtr dom;
	char *counts;		/* profiling: <dir>/COUNTS_FILE, QEMU's at exit */
	uint64_t vmem_max_mib;
	struct priv_state st;
};

struct channel {
	int fd, watch;
	int root;		/* the one PROGRAM got */
	struct boot *boot;	/* at most one guest at a time */
};

static struct channel *channels[PRIV_MAX_CHANNELS];
static virConnectPtr conn;
static char *priv_dir, *template_text;
/* runner/mmci-profile.so beside the template, NULL: no profiling boots */
static char *plugin_path;
static uint32_t next_boot = 1;
static pid_t child = -1;
static int child_status, child_done, nchannels;
static volatile sig_atomic_t pass_signal;

static void silent(void *opaque, virErrorPtr err)
{
	/* reported with virGetLastErrorMessage() */
}

/* --- checks ---------------------------------------------------------- */

static int refuse(struct priv_reply *rep, const char *fmt, ...) PRINTF(2, 3);

static int refuse(struct priv_reply *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->error, sizeof(rep->error), fmt, ap);
	va_end(ap);
	rep->status = -1;
	log_warnx("refused: %s", rep->error);
	return -1;
}

/* a NUL inside the field, and only characters @ok accepts before it */
static int field_ok(const char *f, size_t size, int (*ok)(int c))
{
	const char *nul = memchr(f, '\0', size);
	const char *p;

	if (!nul)
		return 0;
	for (p = f; p < nul; p++)
		if (!ok((unsigned char)*p))
			return 0;
	return 1;
}

static int name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

static int printable(int c)
{
	return c >= 0x20 && c < 0x7f;
}

static int check_boot(const struct priv_boot *b, struct priv_reply *rep)
{
	if (!field_ok(b->name, sizeof(b->name), name_char) ||
	    !starts_with(b->name, VM_NAME_PREFIX) ||
	    !b->name[strlen(VM_NAME_PREFIX)])
		return refuse(rep, "a domain name must be '%s' and [A-Za-z0-9._-]",
			      VM_NAME_PREFIX "...");
	if (!field_ok(b->arch, sizeof(b->arch), name_char) ||
	    !arch_find(b->arch) || !*b->arch)
		return refuse(rep, "domain '%s': unknown arch (%s)", b->name,
			      ARCH_NAMES);
	if (!field_ok(b->cpu_model, sizeof(b->cpu_model), name_char))
		return refuse(rep, "domain '%s': a CPU model is [A-Za-z0-9._-]",
			      b->name);
	if (!field_ok(b->cmdline, sizeof(b->cmdline), printable))
		return refuse(rep, "domain '%s': the command line is not "
			      "printable ASCII within %d bytes", b->name,
			      PRIV_CMDLINE_MAX);
	if (b->vcpus > PRIV_MAX_VCPUS || b->kvm > 1 || b->icount > 1 ||
	    b->pin > 1 || b->has_initrd > 1 || b->backing > PRIV_BACKING_DISK ||
	    b->profile > 1)
		return refuse(rep, "domain '%s': vCPUs, kvm, icount, pin, "
			      "initrd, backing or profile out of range",
			      b->name);
	if (b->profile && (b->kvm || !plugin_path))
		return refuse(rep, "domain '%s': a profiling boot is TCG only "
			      "and needs the plugin beside mmci-priv%s",
			      b->name, plugin_path ? "" : " (there is none)");
	if (b->ram_mib > PRIV_MAX_RAM_MIB || b->nvdimm_mib > PRIV_MAX_NVDIMM_MIB ||
	    b->virtio_mem_max_mib > PRIV_MAX_VMEM_MIB ||
	    b->nvdimm_label_kib > PRIV_MAX_LABEL_KIB)
		return refuse(rep, "domain '%s': RAM at most %llu MiB, NVDIMM "
			      "and virtio-mem at most %llu MiB, label at most "
			      "%d KiB", b->name, PRIV_MAX_RAM_MIB,
			      PRIV_MAX_NVDIMM_MIB, PRIV_MAX_LABEL_KIB);
	return 0;
}

/* copy the regular file behind @fd into @path, 0644 */
static int copy_fd(int fd, const char *path, struct priv_reply *rep,
		   const char *what)
{
	char buf[65536];
	struct stat st;
	ssize_t n;
	off_t off;
	int out;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > PRIV_FILE_MAX)
		return refuse(rep, "the %s is not a regular file of at most "
			      "%lld MiB", what, PRIV_FILE_MAX >> 20);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		   O_NOFOLLOW, 0644);
	if (out < 0)
		return refuse(rep, "cannot create '%s': %s", path,
			      strerror(errno));
	/*
	 * pread: the sender's offset is not ours to move; its size when it
	 * came, no more: a file that grows ends there
	 */
	for (off = 0, n = 0; off < st.st_size; off += n) {
		size_t want = st.st_size - off < (off_t)sizeof(buf) ?
			      (size_t)(st.st_size - off) : sizeof(buf);

		n = pread(fd, buf, want, off);
		if (!n)
			break;
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n < 0 || write_in_full(out, buf, n) < 0) {
			n = -1;
			break;
		}
	}
	if (close(out) < 0 || n < 0)
		return refuse(rep, "cannot copy the %s into '%s': %s", what,
			      path, strerror(errno));
	return 0;
}

/*
 * a new sparse NVDIMM file: never one that is there already, never
 * through a link (/dev/shm is everyone's)
 */
static int create_backing(const char *path, unsigned long long mib,
			  struct priv_reply *rep)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);

	if (fd < 0)
		return refuse(rep, "cannot create '%s': %s", path,
			      strerror(errno));
	if (ftruncate(fd, (off_t)(mib << 20)) < 0) {
		refuse(rep, "cannot size '%s' to %llu MiB: %s", path, mib,
		       strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/* --- guests ------------------------------------------------------------ */

static void boot_free(struct boot *b)
{
	static const char *const files[] = {
		"kernel", "initrd", "console.log", "results.log", "nvdimm",
		"uefi-vars.fd", COUNTS_FILE, COUNTS_FILE ".tmp",
	};
	size_t i;

	if (!b)
		return;
	if (b->dom) {
		vm_destroy(b->dom, b->name);
		virDomainFree(b->dom);
	}
	if (b->backing)
		unlink(b->backing);
	for (i = 0; b->dir && i < ARRAY_SIZE(files); i++) {
		char *p = xstrfmt("%s/%s", b->dir, files[i]);

		unlink(p);
		free(p);
	}
	if (b->dir)
		rmdir(b->dir);
	free(b->backing);
	free(b->counts);
	free(b->dir);
	free(b);
}

static struct boot *boot_by_name(const char *name)
{
	int i;

	for (i = 0; i < PRIV_MAX_CHANNELS; i++)
		if (channels[i] && channels[i]->boot &&
		    !strcmp(channels[i]->boot->name, name))
			return channels[i]->boot;
	return NULL;
}

static int lifecycle(virConnectPtr c, virDomainPtr dom, int event,
		     int detail, void *opaque)
{
	const char *name = virDomainGetName(dom);
	struct boot *b = name ? boot_by_name(name) : NULL;

	if (!b)
		return 0;
	if ((event == VIR_DOMAIN_EVENT_SHUTDOWN ||
	     event == VIR_DOMAIN_EVENT_STOPPED) && !b->st.end_s)
		b->st.end_s = now_s();
	if (event == VIR_DOMAIN_EVENT_STOPPED && !b->st.stopped) {
		b->st.stopped = 1;
		b->st.stop_detail = detail;
	} else if (event == VIR_DOMAIN_EVENT_CRASHED) {
		b->st.crashed = 1;
	}
	return 0;
}

static int do_boot(struct channel *ch, const struct priv_req *req,
		   const int *fds, int nfd, struct priv_reply *rep,
		   int *back)
{
	const struct priv_boot *rb = &req->b;
	struct vm_spec spec = { 0 };
	struct strbuf xml = STRBUF_INIT;
	unsigned long hv = 0, lib = 0;
	char *kernel = NULL, *initrd = NULL, *console = NULL, *results = NULL;
	char *nvram = NULL, *plugin = NULL, *v;
	struct boot *b;
	int ret = -1;

	if (ch->boot)
		return refuse(rep, "this channel has guest %u already",
			      ch->boot->id);
	if (check_boot(rb, rep) < 0)
		return -1;
	if (nfd != 1 + (int)rb->has_initrd)
		return refuse(rep, "domain '%s': %d files sent, %u expected",
			      rb->name, nfd, 1 + rb->has_initrd);
	if (boot_by_name(rb->name))
		return refuse(rep, "domain '%s' is running already", rb->name);

	b = xcalloc(1, sizeof(*b));
	b->id = next_boot++;
	memcpy(b->name, rb->name, sizeof(b->name));
	b->vmem_max_mib = rb->virtio_mem_max_mib;
	b->dir = xstrfmt("%s/b%d-%u", priv_dir, (int)getpid(), b->id);
	if (mkdir(b->dir, 0711) < 0) {
		refuse(rep, "cannot create '%s': %s", b->dir, strerror(errno));
		free(b->dir);
		b->dir = NULL;
		goto out;
	}
	kernel = xstrfmt("%s/kernel", b->dir);
	if (copy_fd(fds[0], kernel, rep, "kernel") < 0)
		goto out;
	if (rb->has_initrd) {
		initrd = xstrfmt("%s/initrd", b->dir);
		if (copy_fd(fds[1], initrd, rep, "initramfs") < 0)
			goto out;
	}
	console = xstrfmt("%s/console.log", b->dir);
	results = xstrfmt("%s/results.log", b->dir);
	if (rb->nvdimm_mib) {
		b->backing = rb->backing == PRIV_BACKING_TMPFS ?
			xstrfmt("%s/mmci-%d-priv%u.nvdimm", VM_TMPFS_DIR,
				(int)getpid(), b->id) :
			xstrfmt("%s/nvdimm", b->dir);
		if (create_backing(b->backing, rb->nvdimm_mib, rep) < 0) {
			free(b->backing);
			b->backing = NULL;	/* not ours to remove */
			goto out;
		}
	}
	spec.name = b->name;
	spec.arch = arch_find(rb->arch);
	spec.kernel = kernel;
	spec.initrd = initrd;
	spec.cmdline = rb->cmdline;
	spec.console_log = console;
	spec.results_log = results;
	spec.vcpus = rb->vcpus;
	spec.ram_mib = rb->ram_mib;
	spec.nvdimm_path = b->backing;
	spec.nvdimm_mib = rb->nvdimm_mib;
	spec.nvdimm_label_kib = rb->nvdimm_label_kib;
	spec.virtio_mem_max_mib = rb->virtio_mem_max_mib;
	spec.kvm = rb->kvm;
	spec.icount = rb->icount;
	spec.pin = rb->pin;
	spec.cpu_model = *rb->cpu_model ? rb->cpu_model : NULL;
	if (arch_firmware(spec.arch))
		spec.nvram_path = nvram = xstrfmt("%s/uefi-vars.fd", b->dir);
	if (rb->profile) {
		/* QEMU writes it at its exit; DESTROY hands it back */
		b->counts = xstrfmt("%s/" COUNTS_FILE, b->dir);
		spec.plugin = plugin = xstrfmt("%s,out=%s", plugin_path,
					       b->counts);
	}
	error_hold();
	if (vm_domain_xml(&spec, template_text, &xml) < 0) {
		error_unhold();
		refuse(rep, "%s", last_error());
		goto out;
	}
	error_unhold();
	if (xml.len >= sizeof(rep->xml)) {
		refuse(rep, "domain '%s': its XML is longer than %d bytes",
		       rb->name, PRIV_XML_MAX);
		goto out;
	}
	b->dom = virDomainCreateXML(conn, xml.buf,
				    VIR_DOMAIN_START_AUTODESTROY);
	if (!b->dom) {
		refuse(rep, "cannot start domain '%s': %s", rb->name,
		       virGetLastErrorMessage());
		goto out;
	}
	/* QEMU has the NVDIMM mapped: its memory goes with QEMU */
	if (b->backing) {
		unlink(b->backing);
		free(b->backing);
		b->backing = NULL;
	}
	back[0] = open(console, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	back[1] = open(results, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (back[0] < 0 || back[1] < 0) {
		refuse(rep, "cannot open the serial logs of '%s': %s",
		       rb->name, strerror(errno));
		goto out;
	}
	if (virConnectGetVersion(conn, &hv) == 0) {
		v = vm_version_string(hv);
		snprintf(rep->host.qemu, sizeof(rep->host.qemu), "%s", v);
		free(v);
	}
	if (virConnectGetLibVersion(conn, &lib) == 0) {
		v = vm_version_string(lib);
		snprintf(rep->host.libvirt, sizeof(rep->host.libvirt), "%s", v);
		free(v);
	}
	memcpy(rep->xml, xml.buf, xml.len + 1);
	rep->boot = b->id;
	ch->boot = b;
	b = NULL;
	log_info("guest %u '%s' started", rep->boot, ch->boot->name);
	ret = 0;
out:
	if (ret < 0) {
		if (back[0] >= 0)
			close(back[0]);
		if (back[1] >= 0)
			close(back[1]);
		back[0] = back[1] = -1;
	}
	boot_free(b);
	strbuf_release(&xml);
	free(kernel);
	free(initrd);
	free(console);
	free(results);
	free(nvram);
	free(plugin);
	return ret;
}

static struct boot *own_boot(struct channel *ch, uint32_t id,
			     struct priv_reply *rep)
{
	if (!ch->boot || ch->boot->id != id) {
		refuse(rep, "guest %u is not this channel's", id);
		return NULL;
	}
	return ch->boot;
}

static int do_state(struct channel *ch, const struct priv_req *req,
		    struct priv_reply *rep)
{
	struct boot *b = own_boot(ch, req->boot, rep);
	int state, reason;

	if (!b)
		return -1;
	rep->state = b->st;
	if (!b->dom)
		rep->state.gone = 1;
	else if (virDomainGetState(b->dom, &state, &reason, 0) < 0) {
		if (vm_last_error_code() != VIR_ERR_NO_DOMAIN) {
			snprintf(rep->error, sizeof(rep->error), "%s",
				 virGetLastErrorMessage());
			rep->status = -1;
			return -1;
		}
		rep->state.gone = 1;
	} else if (state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED) {
		rep->state.gone = 1;
	}
	return 0;
}

static int do_resize(struct channel *ch, const struct priv_req *req,
		     struct priv_reply *rep)
{
	struct boot *b = own_boot(ch, req->boot, rep);

	if (!b)
		return -1;
	if (!b->dom || req->mib > b->vmem_max_mib || req->mib % 2)
		return refuse(rep, "guest %u: virtio-mem %llu MiB is not a "
			      "multiple of 2 MiB within 0..%llu", b->id,
			      (unsigned long long)req->mib,
			      (unsigned long long)b->vmem_max_mib);
	error_hold();
	if (vmem_resize(b->dom, req->mib) < 0) {
		error_unhold();
		return refuse(rep, "%s", last_error());
	}
	error_unhold();
	return 0;
}

/* a profiling boot's counts, when its QEMU wrote them: back[0] */
static int do_destroy(struct channel *ch, const struct priv_req *req,
		      struct priv_reply *rep, int *back)
{
	struct boot *b = own_boot(ch, req->boot, rep);

	if (!b)
		return -1;
	if (b->counts) {
		struct stat st;

		/* QEMU gone first: it renames the file into place at exit */
		if (b->dom)
			vm_destroy(b->dom, b->name);
		back[0] = open(b->counts, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (back[0] >= 0 && (fstat(back[0], &st) < 0 ||
				     !S_ISREG(st.st_mode))) {
			close(back[0]);
			back[0] = -1;
		}
	}
	boot_free(b);
	ch->boot = NULL;
	return 0;
}

static int do_host(struct priv_reply *rep)
{
	struct host h = { 0 };
	int ret = 0;

	if (host_probe_conn(conn, &h) < 0) {
		ret = refuse(rep, "%s", h.error);
		goto out;
	}
	snprintf(rep->host.qemu, sizeof(rep->host.qemu), "%s", h.qemu);
	snprintf(rep->host.libvirt, sizeof(rep->host.libvirt), "%s",
		 h.libvirt);
	snprintf(rep->host.arch, sizeof(rep->host.arch), "%s", h.arch);
	snprintf(rep->host.cpu_model, sizeof(rep->host.cpu_model), "%s",
		 h.cpu_model);
	snprintf(rep->host.hostname, sizeof(rep->host.hostname), "%s",
		 h.hostname);
	snprintf(rep->host.arm64_why, sizeof(rep->host.arm64_why), "%s",
		 h.arm64_why);
	rep->host.kvm = h.kvm;
	rep->host.arm64 = h.arm64;
	rep->host.cores = h.cores;
	rep->host.mmci_domains = h.mmci_domains;
	rep->host.mem_mib = h.mem_mib;
out:
	free(h.qemu);
	free(h.libvirt);
	free(h.arch);
	free(h.cpu_model);
	free(h.hostname);
	return ret;
}

/* --- channels ---------------------------------------------------------- */

static void on_channel(int watch, int fd, int events, void *opaque);

static struct channel *channel_add(int fd, int root)
{
	struct channel *ch;
	int i;

	for (i = 0; i < PRIV_MAX_CHANNELS && channels[i]; i++)
		;
	if (i == PRIV_MAX_CHANNELS)
		return NULL;
	ch = xcalloc(1, sizeof(*ch));
	ch->fd = fd;
	ch->root = root;
	ch->watch = virEventAddHandle(fd, VIR_EVENT_HANDLE_READABLE,
				      on_channel, ch, NULL);
	if (ch->watch < 0)
		die("cannot watch a channel: %s", virGetLastErrorMessage());
	channels[i] = ch;
	nchannels++;
	return ch;
}

static void channel_close(struct channel *ch)
{
	int i;

	if (ch->boot)
		log_info("guest %u '%s': its channel closed, destroying it",
			 ch->boot->id, ch->boot->name);
	boot_free(ch->boot);
	virEventRemoveHandle(ch->watch);
	close(ch->fd);
	for (i = 0; i < PRIV_MAX_CHANNELS; i++)
		if (channels[i] == ch)
			channels[i] = NULL;
	nchannels--;
	free(ch);
}

static void reply(struct channel *ch, struct priv_reply *rep, const int *fds,
		  int nfd)
{
	if (priv_send(ch->fd, rep, sizeof(*rep), fds, nfd, MSG_DONTWAIT) < 0)
		log_warn("cannot answer on a channel");
}

static void on_channel(int watch, int fd, int events, void *opaque)
{
	struct channel *ch = opaque;
	struct priv_req req = { 0 };
	struct priv_reply *rep = xcalloc(1, sizeof(*rep));
	int fds[4], nfd = 0, back[2] = { -1, -1 }, nback = 0, i, trunc = 0;
	ssize_t n;

	n = priv_recv(fd, &req, sizeof(req), fds, ARRAY_SIZE(fds), &nfd,
		      MSG_DONTWAIT, &trunc);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		free(rep);
		return;
	}
	if (n <= 0) {
		for (i = 0; i < nfd; i++)
			close(fds[i]);
		free(rep);
		channel_close(ch);
		return;
	}
	rep->magic = PRIV_MAGIC;
	rep->type = req.type;
	if (n != (ssize_t)sizeof(req) || req.magic != PRIV_MAGIC || trunc) {
		refuse(rep, "a message of %zd bytes (magic %08x), not a "
		       "request of protocol %08x (%zu bytes)", n,
		       n >= 4 ? req.magic : 0, PRIV_MAGIC, sizeof(req));
	} else if (nfd && req.type != PRIV_BOOT) {
		refuse(rep, "request %u takes no files", req.type);
	} else {
		switch (req.type) {
		case PRIV_CHANNEL: {
			int sv[2];

			if (nchannels >= PRIV_MAX_CHANNELS) {
				refuse(rep, "%d channels open already",
				       nchannels);
				break;
			}
			if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
				       0, sv) < 0) {
				refuse(rep, "socketpair: %s", strerror(errno));
				break;
			}
			channel_add(sv[0], 0);
			back[0] = sv[1];
			nback = 1;
			break;
		}
		case PRIV_HOST:
			do_host(rep);
			break;
		case PRIV_BOOT:
			if (do_boot(ch, &req, fds, nfd, rep, back) == 0)
				nback = 2;
			break;
		case PRIV_STATE:
			do_state(ch, &req, rep);
			break;
		case PRIV_RESIZE:
			do_resize(ch, &req, rep);
			break;
		case PRIV_DESTROY:
			if (do_destroy(ch, &req, rep, back) == 0 &&
			    back[0] >= 0)
				nback = 1;
			break;
		default:
			refuse(rep, "unknown request %u", req.type);
		}
	}
	reply(ch, rep, back, nback);
	for (i = 0; i < nback; i++)
		close(back[i]);
	for (i = 0; i < nfd; i++)
		close(fds[i]);
	free(rep);
}

/* --- start and end ----------------------------------------------------- */

static void on_signal(int sig)
{
	pass_signal = sig;
}

static void tick(int timer, void *opaque)
{
	int status;

	if (pass_signal && child > 0) {
		kill(child, pass_signal);
		pass_signal = 0;
	}
	if (child > 0 && !child_done && waitpid(child, &status, WNOHANG) ==
	    child) {
		child_done = 1;
		child_status = status;
	}
}

/*
 * As the service user: the database (its directory, when the file is not
 * there yet) and the data directory, when the environment names them (as
 * the units do; config.c has the defaults), must be writable; a root
 * installation moved over but not handed to the user would fail later,
 * in SQLite's words. EX_CONFIG: mmci.service does not restart on it.
 */
static void check_writable(const char *user)
{
	const char *db = getenv("MMCI_DB"), *data = getenv("MMCI_DATA");
	const char *paths[2];
	char *dir = NULL;
	int i, n = 0;

	if (db && *db && !access(db, F_OK)) {
		paths[n++] = db;
	} else if (db && *db) {
		const char *slash = strrchr(db, '/');

		dir = slash ? xstrndup(db, slash == db ? 1 : slash - db) :
			      xstrdup(".");
		paths[n++] = dir;
	}
	if (data && *data && !access(data, F_OK))
		paths[n++] = data;
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!access(paths[i], W_OK))
			continue;
		if (stat(paths[i], &st) < 0)
			st.st_uid = (uid_t)-1;
		error("'%s' is not writable by '%s', who runs mmci here (it "
		      "belongs to uid %ld): give it to that user, chown -R "
		      "%s: '%s' (docs/OPERATIONS.md)", paths[i], user,
		      (long)st.st_uid, user, paths[i]);
		exit(EX_CONFIG);
	}
	free(dir);
}

static NORETURN void run_child(const struct passwd *pw, int fd, char **argv)
{
	const char *user = pw->pw_name;
	char num[16];

	/*
	 * the user's own groups, no more: the kvm group, when the operator
	 * gave it, lets its KVM probe open /dev/kvm (docs/OPERATIONS.md)
	 */
	if (initgroups(user, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0)
		die_errno("cannot become '%s'", user);
	if (!setuid(0))
		die("still root after becoming '%s'", user);
	/* a credential change clears it: set after, so we take it along */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
		die("mmci-priv ended before '%s' started", argv[0]);
	check_writable(user);
	xsnprintf(num, sizeof(num), "%d", fd);
	/* the user's own, as runuser gives them: root's home is closed */
	if (setenv(PRIV_FD_ENV, num, 1) < 0 ||
	    setenv("HOME", pw->pw_dir, 1) < 0 || setenv("USER", user, 1) < 0 ||
	    setenv("LOGNAME", user, 1) < 0)
		die_errno("setenv");
	execvp(argv[0], argv);
	die_errno("cannot run '%s'", argv[0]);
}

static int dead(long pid)
{
	return pid != getpid() && kill((pid_t)pid, 0) < 0 && errno != EPERM;
}

static void cleanup_leftovers(void)
{
	DIR *d = opendir(VM_TMPFS_DIR);
	struct dirent *de;

	/* NVDIMM files of parents killed before QEMU had them */
	while (d && (de = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(de->d_name, "mmci-", 5))
			continue;
		pid = strtol(de->d_name + 5, &end, 10);
		if (end > de->d_name + 5 && !strncmp(end, "-priv", 5) &&
		    dead(pid))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
	d = opendir(priv_dir);

	if (!d)
		return;
	/* directories of parents that died: b<pid>-<id> */
	while ((de = readdir(d))) {
		long pid;
		char *end, *p;
		DIR *sub;
		struct dirent *f;

		if (de->d_name[0] != 'b')
			continue;
		pid = strtol(de->d_name + 1, &end, 10);
		if (end == de->d_name + 1 || *end != '-' || !dead(pid))
			continue;
		p = xstrfmt("%s/%s", priv_dir, de->d_name);
		sub = opendir(p);
		while (sub && (f = readdir(sub)))
			if (f->d_name[0] != '.')
				unlinkat(dirfd(sub), f->d_name, 0);
		if (sub)
			closedir(sub);
		rmdir(p);
		free(p);
	}
	closedir(d);
}

/*
 * @dir is root's and writable by no one else, and so is every directory
 * above it
 * (a sticky one, as /tmp, keeps root's entries root's); its real path,
 * or die
 */
static char *check_own_dir(const char *dir)
{
	char *real = realpath(dir, NULL), *p;
	struct stat st;

	if (!real)
		die_errno("cannot resolve '%s'", dir);
	if (lstat(real, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid ||
	    (st.st_mode & 022))
		die("'%s' must be a directory of root's that no one else can "
		    "write, as mkdir -m 711 makes it (MMCI_PRIV_DIR)",
		    real);
	for (p = strrchr(real, '/'); p; p = strrchr(real, '/')) {
		*p = '\0';
		if (lstat(*real ? real : "/", &st) < 0)
			die_errno("cannot stat '%s'", *real ? real : "/");
		if (st.st_uid || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
			die("'%s' is below '%s', which someone but root can "
			    "change: libvirt would follow what they put there",
			    dir, *real ? real : "/");
		if (!*real)
			break;
	}
	free(real);
	return realpath(dir, NULL);
}

static char *binary_dir(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

int main(int argc, char **argv)
{
	const char *user = getenv("MMCI_USER"), *uri = getenv("MMCI_LIBVIRT_URI");
	const char *pdir = getenv("MMCI_PRIV_DIR"), *proj = getenv("MMCI_PROJECT");
	struct sigaction sa = { .sa_handler = on_signal };
	struct strbuf tmpl = STRBUF_INIT;
	char *project, *tpath;
	struct passwd *pw;
	int sv[2], i = 1, timer;

	set_log_name("mmci-priv");
	if (!user || !*user)
		user = "mmci";
	while (i < argc && strcmp(argv[i], "--")) {
		if (!strcmp(argv[i], "--user") && i + 1 < argc)
			user = argv[(i += 2) - 1];
		else
			die("usage: mmci-priv [--user NAME] -- PROGRAM [ARGS...]");
	}
	if (i + 1 >= argc)
		die("usage: mmci-priv [--user NAME] -- PROGRAM [ARGS...]");
	if (geteuid())
		die("mmci-priv is the root parent: run it as root");
	if (!uri || !*uri)
		uri = VM_DEFAULT_URI;
	if (strstr(uri, "://") && strstr(uri, "://")[3] != '/')
		die("mmci-priv starts guests on this host only, not on '%s'",
		    uri);

	project = proj && *proj ? vm_absolute_path(proj) : binary_dir();
	tpath = vm_absolute_path(pdir && *pdir ? pdir : PRIV_DIR_DEFAULT);
	if (mkdir(tpath, 0711) < 0 && errno != EEXIST)
		die_errno("cannot create '%s'", tpath);
	/* the path with no link left in it is the one libvirt gets */
	priv_dir = check_own_dir(tpath);
	free(tpath);
	tpath = xstrfmt("%s/%s", project, VM_DEFAULT_TEMPLATE);
	if (strbuf_read_file(&tmpl, tpath, 4096) < 0)
		die_errno("cannot read the domain template '%s'", tpath);
	template_text = strbuf_detach(&tmpl, NULL);
	free(tpath);
	/* QEMU splits -plugin's argument at commas */
	tpath = xstrfmt("%s/runner/mmci-profile.so", project);
	if (!access(tpath, R_OK) && !strchr(tpath, ',') &&
	    !strchr(priv_dir, ','))
		plugin_path = vm_absolute_path(tpath);
	cleanup_leftovers();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die_errno("socketpair");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	pw = getpwnam(user);
	if (!pw)
		die("no user '%s' to run %s as (vm-images/host-setup.sh "
		    "makes it)", user, argv[i + 1]);
	if (!pw->pw_uid)
		die("user '%s' is root: mmci-priv runs %s as a user without "
		    "rights", user, argv[i + 1]);
	child = fork();
	if (child < 0)
		die_errno("fork");
	if (!child) {
		/* the child's end, inherited across exec */
		int fd = dup(sv[1]);

		if (fd < 0)
			die_errno("dup");
		run_child(pw, fd, argv + i + 1);
	}
	close(sv[1]);
	/* libvirt after the fork: the child shares no connection with us */
	virSetErrorFunc(NULL, silent);
	if (virEventRegisterDefaultImpl() < 0)
		die("cannot start libvirt's event loop: %s",
		    virGetLastErrorMessage());
	conn = virConnectOpen(uri);
	if (!conn)
		die("cannot connect to libvirt at '%s': %s", uri,
		    virGetLastErrorMessage());
	if (virConnectDomainEventRegisterAny(conn, NULL,
					     VIR_DOMAIN_EVENT_ID_LIFECYCLE,
					     VIR_DOMAIN_EVENT_CALLBACK(lifecycle),
					     NULL, NULL) < 0)
		die("no lifecycle events from libvirt: %s",
		    virGetLastErrorMessage());

	channel_add(sv[0], 1);
	log_info("started '%s' as '%s' (pid %d), serving its requests",
		 argv[i + 1], user, (int)child);
	timer = virEventAddTimeout(100, tick, NULL, NULL);
	if (timer < 0)
		die("cannot add a timer: %s", virGetLastErrorMessage());

	/* until the last channel closes, PROGRAM's and its children's */
	while (nchannels > 0)
		if (virEventRunDefaultImpl() < 0)
			die("libvirt's event loop failed: %s",
			    virGetLastErrorMessage());
	while (!child_done) {
		int status;

		if (waitpid(child, &status, 0) == child) {
			child_done = 1;
			child_status = status;
		} else if (errno != EINTR) {
			break;
		}
	}
	virConnectClose(conn);
	if (WIFSIGNALED(child_status))
		return 128 + WTERMSIG(child_status);
	return WEXITSTATUS(child_status);
}
