// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - run one test guest through the libvirt C API.
 *
 * One call of vm_run() is one boot: expand the domain template, start a
 * transient domain with VIR_DOMAIN_START_AUTODESTROY, wait for its end
 * and destroy it. The workload is a single guest at a time on a small
 * host (2 cores, TCG): boots take seconds to minutes, so the waiting
 * loop wakes every 100 ms and costs nothing worth optimising.
 *
 * How the end is known: libvirt's lifecycle events (STOPPED with a
 * reason: shutdown, crashed, failed = QEMU died, destroyed) are read
 * by running libvirt's default event loop inside the waiting loop, and
 * virDomainGetState() is polled as a fallback. Poweroff, reboot and
 * crash all destroy the domain (on_poweroff/on_reboot/on_crash), so a
 * panicking kernel with panic=-1 ends the guest at once; the console log
 * then tells a poweroff ("reboot: Power down") from a panic ("Kernel
 * panic - not syncing") or an unexpected reboot.
 *
 * libvirt errors are turned into our error() messages at this boundary;
 * libvirt's own printing to stderr is switched off.
 *
 * Requests: while the guest runs, the waiting loop also reads the results
 * file the runner writes (ttyS1) and acts on its "request" lines; the only
 * one is a virtio-mem resize, done as `virsh update-memory-device` does:
 * the live <memory model='virtio-mem'> element with <requested> changed,
 * given to virDomainUpdateDeviceFlags(). The guest times the resize itself
 * (from the device's config interrupt), so the host's reaction time of up
 * to one loop turn does not count. What the host did is kept in
 * vm_result.host_log, one line per request.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "fsutil.h"
#include "interrupt.h"
#include "priv.h"
#include "strbuf.h"
#include "util.h"
#include "virt.h"
#include "vm.h"

#define VM_POLL_MS 100
/* while the host waits for the guest's answer to a resize (wall clock) */
#define VM_PENDING_POLL_MS 2
/* how long to keep reading events after the domain vanished */
#define VM_EVENT_GRACE_S 0.5
/* a pool volume untouched this long, with no domain, is a leftover */
#define VM_STALE_VOLUME_S 120

/* --- the libvirt boundary -------------------------------------------- */

static void vm_silent_error(void *opaque, virErrorPtr err)
{
	/* errors are reported by our callers with virGetLastErrorMessage() */
}

static void vm_libvirt_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	virSetErrorFunc(NULL, vm_silent_error);
	/* must precede the first connection for events to be delivered */
	if (virEventRegisterDefaultImpl() < 0)
		log_warnx("cannot register libvirt event loop: %s",
			  virGetLastErrorMessage());
}

const char *vm_uri(void)
{
	const char *uri = getenv("MMCI_LIBVIRT_URI");

	return uri && *uri ? uri : VM_DEFAULT_URI;
}

static virConnectPtr vm_connect(void)
{
	virConnectPtr conn;

	vm_libvirt_init();
	conn = virConnectOpen(vm_uri());
	if (!conn)
		error("cannot connect to libvirt at '%s': %s", vm_uri(),
		      virGetLastErrorMessage());
	return conn;
}

static int vm_conn_versions(virConnectPtr conn, char **qemu, char **libvirt)
{
	unsigned long hv = 0, lib = 0;

	if (virConnectGetVersion(conn, &hv) < 0)
		return error("cannot get the hypervisor version: %s",
			     virGetLastErrorMessage());
	if (virConnectGetLibVersion(conn, &lib) < 0)
		return error("cannot get the libvirt version: %s",
			     virGetLastErrorMessage());
	*qemu = vm_version_string(hv);
	*libvirt = vm_version_string(lib);
	return 0;
}

int vm_versions(char **qemu, char **libvirt)
{
	virConnectPtr conn;
	int ret;

	if (!vm_staged() && priv_active())
		return priv_versions(qemu, libvirt);
	conn = vm_connect();

	if (!conn)
		return -1;
	ret = vm_conn_versions(conn, qemu, libvirt);
	virConnectClose(conn);
	return ret;
}

/* --- remote hosts: volumes and console streams ------------------------ */

int vm_uri_is_remote(const char *uri)
{
	const char *p = strstr(uri, "://");

	return p && p[3] && p[3] != '/';
}

int vm_staged(void)
{
	const char *v = getenv("MMCI_LIBVIRT_STAGE");

	if (v && !strcmp(v, "pool"))
		return 1;
	return vm_uri_is_remote(vm_uri());
}

const char *vm_pool_name(void)
{
	const char *p = getenv("MMCI_LIBVIRT_POOL");

	return p && *p ? p : VM_DEFAULT_POOL;
}

/* what a boot put on a remote host: deleted on every path (vm_unstage) */
struct vm_stage {
	virStoragePoolPtr pool;
	virStorageVolPtr vol[4];	/* kernel, initrd, nvdimm, UEFI vars */
	char *path[4];
};

enum { STAGE_KERNEL, STAGE_INITRD, STAGE_NVDIMM, STAGE_NVRAM };

/*
 * A local file sent as a sparse stream: runs of zero chunks go as holes,
 * so the UEFI variable store (64 MiB of zeros) costs no bytes on the
 * wire and no blocks in the pool. The file need not be sparse on disk.
 */
#define UPLOAD_CHUNK (64 * 1024)

struct upload {
	int fd;
	off_t pos;		/* where the next read or skip starts */
	off_t size;
	unsigned long long data;	/* bytes sent as data */
	char buf[UPLOAD_CHUNK];
};

static int upload_source(virStreamPtr st, char *data, size_t nbytes,
			 void *opaque)
{
	struct upload *u = opaque;
	ssize_t n;

	do
		n = read(u->fd, data, nbytes);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		u->pos += n;
		u->data += (unsigned long long)n;
	}
	return (int)n;
}

/* 1 if the chunk at @off is all zeros, 0 if not, -1 on a read error */
static int chunk_is_zero(struct upload *u, off_t off, off_t *len)
{
	size_t want = UPLOAD_CHUNK;
	ssize_t n;

	if (u->size - off < (off_t)want)
		want = (size_t)(u->size - off);
	do
		n = pread(u->fd, u->buf, want, off);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	*len = n;
	return !u->buf[0] && !memcmp(u->buf, u->buf + 1, (size_t)n - 1);
}

/* the section at the current position: data or zeros, and its length */
static int upload_section(virStreamPtr st, int *in_data, long long *length,
			  void *opaque)
{
	struct upload *u = opaque;
	off_t off = u->pos, len;
	int zero = -1, z;

	while (off < u->size) {
		z = chunk_is_zero(u, off, &len);
		if (z < 0)
			return -1;
		if (zero >= 0 && z != zero)
			break;
		zero = z;
		off += len;
		/* data goes in sections of at most 1 MiB: no long read-ahead */
		if (!zero && off - u->pos >= 1024 * 1024)
			break;
	}
	*in_data = zero == 0;
	*length = off - u->pos;	/* 0 and 0 at the end of the file */
	return 0;
}

static int upload_skip(virStreamPtr st, long long length, void *opaque)
{
	struct upload *u = opaque;

	if (lseek(u->fd, (off_t)length, SEEK_CUR) < 0)
		return -1;
	u->pos += (off_t)length;
	return 0;
}

/* @local's @bytes into @vol: sparse if the host can take it, else whole */
static int upload_volume(virConnectPtr conn, virStorageVolPtr vol,
			 const char *local, unsigned long long bytes,
			 unsigned long long *sent)
{
	struct upload *u = xcalloc(1, sizeof(*u));
	unsigned int flags = VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM;
	virStreamPtr stream = NULL;
	int ret = -1, code;

	u->fd = open(local, O_RDONLY | O_CLOEXEC);
	if (u->fd < 0) {
		error_errno("cannot open '%s'", local);
		goto out;
	}
	u->size = (off_t)bytes;
again:
	stream = virStreamNew(conn, 0);
	if (stream && virStorageVolUpload(vol, stream, 0, bytes, flags) < 0) {
		code = vm_last_error_code();
		/* a libvirt before 3.4, or a backend without sparse streams */
		if (flags && (code == VIR_ERR_NO_SUPPORT ||
			      code == VIR_ERR_INVALID_ARG ||
			      code == VIR_ERR_ARGUMENT_UNSUPPORTED)) {
			virStreamFree(stream);
			flags = 0;
			goto again;
		}
		goto fail;
	}
	if (!stream)
		goto fail;
	if ((flags ? virStreamSparseSendAll(stream, upload_source,
					    upload_section, upload_skip, u) :
		     virStreamSendAll(stream, upload_source, u)) < 0 ||
	    virStreamFinish(stream) < 0)
		goto fail;
	*sent = u->data;
	ret = 0;
	goto out;
fail:
	error("cannot upload '%s' to volume '%s': %s", local,
	      virStorageVolGetName(vol), virGetLastErrorMessage());
	if (stream)
		virStreamAbort(stream);
out:
	if (stream)
		virStreamFree(stream);
	if (u->fd >= 0)
		close(u->fd);
	free(u);
	return ret;
}

static void vol_delete(virStorageVolPtr vol)
{
	const char *name = virStorageVolGetName(vol);

	/*
	 * on a host that went away it is left for vm_clean_volumes(); a
	 * warning: nothing fails for it, and it shows while vm_stage()'s
	 * errors are held
	 */
	if (virStorageVolDelete(vol, 0) < 0 &&
	    vm_last_error_code() != VIR_ERR_NO_STORAGE_VOL &&
	    virConnectIsAlive(virStorageVolGetConnect(vol)) == 1)
		warning("cannot delete volume '%s': %s", name ? name : "?",
			virGetLastErrorMessage());
}

/*
 * A raw volume @name of @bytes in @st->pool; with @local, its bytes are
 * uploaded from that file through a sparse stream (upload_volume()), else
 * it stays sparse (allocation 0: the NVDIMM's untouched pages cost nothing).
 */
static int stage_volume(virConnectPtr conn, struct vm_stage *st, int which,
			const char *name, const char *local,
			unsigned long long bytes)
{
	struct strbuf xml = STRBUF_INIT;
	virStorageVolPtr vol, old;
	unsigned long long sent = 0;
	double t0 = now_s();

	/* a volume of a boot that died before it could delete it */
	old = virStorageVolLookupByName(st->pool, name);
	if (old) {
		vol_delete(old);
		virStorageVolFree(old);
	}
	strbuf_addf(&xml, "<volume><name>%s</name>"
		    "<capacity unit='bytes'>%llu</capacity>"
		    "<allocation unit='bytes'>0</allocation>"
		    "<target><format type='raw'/></target></volume>",
		    name, bytes);
	vol = virStorageVolCreateXML(st->pool, xml.buf, 0);
	strbuf_release(&xml);
	if (!vol)
		return error("cannot create volume '%s' in pool '%s': %s", name,
			     vm_pool_name(), virGetLastErrorMessage());
	st->vol[which] = vol;
	if (local) {
		if (upload_volume(conn, vol, local, bytes, &sent) < 0)
			return -1;
		log_debug("uploaded '%s' (%llu bytes, %llu of them data) in "
			  "%.2f s", local, bytes, sent, now_s() - t0);
	}
	st->path[which] = virStorageVolGetPath(vol);
	if (!st->path[which])
		return error("no path for volume '%s': %s", name,
			     virGetLastErrorMessage());
	return 0;
}

/* seconds since volume @vol was last written, -1 if unknown */
static double vol_age_s(virStorageVolPtr vol)
{
	char *xml = virStorageVolGetXMLDesc(vol, 0);
	const char *p = xml ? strstr(xml, "<mtime>") : NULL;
	double age = -1;

	if (p)
		age = (double)time(NULL) - strtod(p + strlen("<mtime>"), NULL);
	free(xml);
	return age;
}

/*
 * Volumes of boots that died with their controller (a killed mmci, a
 * host that went away mid-boot and came back): named mmci-*, no active
 * domain of their name, untouched for VM_STALE_VOLUME_S. The age keeps a
 * boot of another controller that is uploading right now.
 */
static int vm_clean_volumes(virConnectPtr conn, virStoragePoolPtr pool,
			    const struct vm_spec *spec)
{
	virStorageVolPtr *vols = NULL;
	int i, n = virStoragePoolListAllVolumes(pool, &vols, 0), cleaned = 0;

	for (i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		const char *end = name ? strrchr(name, '-') : NULL;
		const char *dot = name ? strrchr(name, '.') : NULL;
		virDomainPtr dom;
		char *stem;

		if (!name || !starts_with(name, VM_NAME_PREFIX))
			goto next;
		if (dot && (!strcmp(dot, ".nvdimm") || !strcmp(dot, ".vars")))
			end = dot;
		if (!end)
			goto next;
		stem = xstrndup(name, end - name);
		if (!(spec && spec->boot_over &&
		      spec->boot_over(stem, spec->boot_over_data)) &&
		    vol_age_s(vols[i]) < VM_STALE_VOLUME_S) {
			free(stem);
			goto next;
		}
		dom = virDomainLookupByName(conn, stem);
		if (dom && virDomainIsActive(dom) == 1) {
			virDomainFree(dom);
			free(stem);
			goto next;
		}
		if (dom)
			virDomainFree(dom);
		free(stem);
		if (virStorageVolDelete(vols[i], 0) == 0) {
			log_info("removed stale volume '%s' of pool '%s' on "
				 "'%s'", name, vm_pool_name(), vm_uri());
			cleaned++;
		}
next:
		virStorageVolFree(vols[i]);
	}
	free(vols);
	return cleaned;
}

static void vm_unstage(struct vm_stage *st)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(st->vol); i++) {
		if (st->vol[i]) {
			vol_delete(st->vol[i]);
			virStorageVolFree(st->vol[i]);
			st->vol[i] = NULL;
		}
		free(st->path[i]);
		st->path[i] = NULL;
	}
	if (st->pool)
		virStoragePoolFree(st->pool);
	st->pool = NULL;
}

static unsigned long long file_bytes(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : (unsigned long long)sb.st_size;
}

/*
 * Put the kernel, the initramfs, a sparse NVDIMM and an arm64 guest's
 * UEFI variables (a copy of the firmware's template, made here: the
 * host's own copy would be a file outside the pool) into the host's pool
 * and point @made at them. The pool must hold what the guest will write:
 * the files and the NVDIMM's memmap (1/64 of it, as on tmpfs locally).
 */
static int vm_stage(virConnectPtr conn, const struct vm_spec *spec,
		    struct vm_spec *made, struct vm_stage *st)
{
	const char *pool = vm_pool_name(), *uri = vm_uri();
	unsigned long long kb = file_bytes(spec->kernel);
	unsigned long long ib = spec->initrd ? file_bytes(spec->initrd) : 0;
	const char *vars = spec->arch ? arch_nvram_template(spec->arch) : NULL;
	unsigned long long vb = vars ? file_bytes(vars) : 0;
	unsigned long long need = kb + ib + vb, nb = 0;
	virStoragePoolInfo info;
	char *name, why[256];

	if (vars && !vm_conn_boots_arch(conn, spec->arch, why, sizeof(why)))
		return error("host '%s' cannot boot %s guests: %s", uri,
			     spec->arch->name, why);
	if (vars && !vb)
		return error_errno("cannot read the UEFI variables template "
				   "'%s'", vars);
	st->pool = virStoragePoolLookupByName(conn, pool);
	if (!st->pool)
		return error("host '%s' has no storage pool '%s' (make one: "
			     "virsh -c %s pool-define-as %s dir --target "
			     "/var/lib/libvirt/%s; pool-build %s; pool-start "
			     "%s; or set MMCI_LIBVIRT_POOL)", uri, pool, uri,
			     pool, pool, pool, pool);
	if (virStoragePoolGetInfo(st->pool, &info) < 0)
		return error("cannot read pool '%s' on '%s': %s", pool, uri,
			     virGetLastErrorMessage());
	if (info.state != VIR_STORAGE_POOL_RUNNING)
		return error("pool '%s' on '%s' is not active (virsh -c %s "
			     "pool-start %s)", pool, uri, uri, pool);
	if (vm_clean_volumes(conn, st->pool, spec) > 0 &&
	    virStoragePoolGetInfo(st->pool, &info) < 0)
		return error("cannot read pool '%s' on '%s': %s", pool, uri,
			     virGetLastErrorMessage());
	if (spec->nvdimm_path) {
		nb = spec->nvdimm_mib << 20;
		need += nb / 64;
	}
	if (info.available < need)
		return error("pool '%s' on '%s' has %llu MiB free, the boot "
			     "needs %llu MiB (kernel, initramfs%s and the "
			     "NVDIMM's memmap)", pool, uri,
			     info.available >> 20, need >> 20,
			     vars ? ", the UEFI variables" : "");

	name = xstrfmt("%s-kernel", spec->name);
	if (stage_volume(conn, st, STAGE_KERNEL, name, spec->kernel, kb) < 0)
		goto fail;
	free(name);
	made->kernel = st->path[STAGE_KERNEL];
	if (spec->initrd) {
		name = xstrfmt("%s-initrd", spec->name);
		if (stage_volume(conn, st, STAGE_INITRD, name, spec->initrd,
				 ib) < 0)
			goto fail;
		free(name);
		made->initrd = st->path[STAGE_INITRD];
	}
	if (spec->nvdimm_path) {
		name = xstrfmt("%s.nvdimm", spec->name);
		if (stage_volume(conn, st, STAGE_NVDIMM, name, NULL, nb) < 0)
			goto fail;
		free(name);
		made->nvdimm_path = st->path[STAGE_NVDIMM];
	}
	if (vars) {
		name = xstrfmt("%s.vars", spec->name);
		if (stage_volume(conn, st, STAGE_NVRAM, name, vars, vb) < 0)
			goto fail;
		free(name);
		made->nvram_path = st->path[STAGE_NVRAM];
	}
	made->unlink_backing = 0;	/* the volume is deleted instead */
	made->streams = 1;
	return 0;
fail:
	free(name);
	return -1;
}

/* a serial port of the guest, read through libvirt into a local file */
struct vm_stream {
	const char *dev;	/* "serial0" */
	int fd;			/* the local file */
	virStreamPtr st;
	int watching;		/* the event callback is registered */
	int eof;
	unsigned long long bytes;
};

static void stream_event(virStreamPtr st, int events, void *opaque)
{
	struct vm_stream *s = opaque;
	char buf[16384];

	for (;;) {
		int n = virStreamRecv(st, buf, sizeof(buf));

		if (n == -2)
			return;	/* nothing more for now */
		if (n > 0) {
			const char *p = buf;

			s->bytes += n;
			while (n > 0) {
				ssize_t w = write(s->fd, p, n);

				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0) {
					log_warn("cannot write %s", s->dev);
					break;
				}
				p += w;
				n -= w;
			}
			continue;
		}
		if (n < 0)
			log_debug("stream %s: %s", s->dev,
				  virGetLastErrorMessage());
		s->eof = 1;
		virStreamEventRemoveCallback(st);
		s->watching = 0;
		return;
	}
}

static int stream_open(virDomainPtr dom, struct vm_stream *s,
		       const char *path)
{
	int tries = 0;

	s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return error_errno("cannot create '%s'", path);
	s->st = virStreamNew(virDomainGetConnect(dom), VIR_STREAM_NONBLOCK);
	if (!s->st)
		return error("cannot make a stream: %s",
			     virGetLastErrorMessage());
	/*
	 * libvirt locks a console by its pty's path; a pty just freed by a
	 * guest that ended may be given to this one while the old console
	 * stream is still being closed, and FORCE only breaks a lock of the
	 * same domain. The guest is paused: waiting loses nothing.
	 */
	while (virDomainOpenConsole(dom, s->dev, s->st,
				    VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (vm_last_error_code() != VIR_ERR_OPERATION_FAILED ||
		    !strstr(virGetLastErrorMessage(), "is locked") ||
		    ++tries > 50)
			return error("cannot open the guest's %s: %s", s->dev,
				     virGetLastErrorMessage());
		nanosleep(&ts, NULL);
	}
	if (virStreamEventAddCallback(s->st, VIR_STREAM_EVENT_READABLE |
				      VIR_STREAM_EVENT_ERROR |
				      VIR_STREAM_EVENT_HANGUP, stream_event, s,
				      NULL) < 0)
		return error("cannot watch the guest's %s: %s", s->dev,
			     virGetLastErrorMessage());
	s->watching = 1;
	return 0;
}

/*
 * The alias libvirt gave the guest's virtio console (the arm64 results
 * port: "console1" beside the PL011's "serial0"), read from the running
 * domain's XML; "console1" when the XML does not say.
 */
static const char *virtio_console_alias(virDomainPtr dom, char *buf,
					size_t len)
{
	char *xml = virDomainGetXMLDesc(dom, 0);
	const char *p = xml, *end, *a, *t;

	snprintf(buf, len, "console1");
	while (p && (p = strstr(p, "<console ")) != NULL) {
		end = strstr(p, "</console>");
		if (!end)
			break;
		t = strstr(p, "<target type='virtio'");
		a = strstr(p, "<alias name='");
		if (t && t < end && a && a < end) {
			a += strlen("<alias name='");
			snprintf(buf, len, "%.*s", (int)strcspn(a, "'"), a);
			break;
		}
		p = end;
	}
	free(xml);
	return buf;
}

/* what is still on its way after the guest's end, up to 3 s */
static void streams_drain(struct vm_stream *s, size_t n)
{
	double until = now_s() + 3;
	size_t i;

	for (;;) {
		int open = 0;

		for (i = 0; i < n; i++)
			open += s[i].watching && !s[i].eof;
		if (!open || now_s() >= until)
			break;
		if (virEventRunDefaultImpl() < 0)
			break;
	}
}

static void streams_close(struct vm_stream *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i].st) {
			if (s[i].watching)
				virStreamEventRemoveCallback(s[i].st);
			if (s[i].eof)
				virStreamFinish(s[i].st);
			else
				virStreamAbort(s[i].st);
			virStreamFree(s[i].st);
			s[i].st = NULL;
		}
		if (s[i].fd >= 0)
			close(s[i].fd);
		s[i].fd = -1;
	}
}

/* --- running a guest ------------------------------------------------- */

enum vm_wait_end {
	WAIT_ENDED,		/* the domain is gone */
	WAIT_TIMEOUT,		/* timeout_s passed */
	WAIT_SILENT,		/* no console line within first_line_s */
	WAIT_FIRST_LINE,	/* it printed, and stop_at_first_line asked */
	WAIT_INTERRUPTED,	/* mmci got SIGTERM/SIGINT (interrupt.h) */
};

struct vm_watch {
	const char *name;
	int stopped;		/* a STOPPED event arrived */
	int stop_detail;	/* virDomainEventStoppedDetailType */
	int crashed;		/* a CRASHED event arrived (pvpanic) */
	double t0;		/* now_s() before the start request */
	double end_s;		/* now_s() at SHUTDOWN (the guest's poweroff)
				 * or at STOPPED, whichever came first */
};

static int vm_lifecycle(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	struct vm_watch *w = opaque;
	const char *name = virDomainGetName(dom);

	if (!name || strcmp(name, w->name))
		return 0;
	log_debug("domain '%s': lifecycle event %d, detail %d at %.2f s", name,
		  event, detail, now_s() - w->t0);
	/*
	 * SHUTDOWN comes when the guest powers off or resets; STOPPED only
	 * once libvirt has torn QEMU down, 1.5-2 s later on a TCG host.
	 */
	if ((event == VIR_DOMAIN_EVENT_SHUTDOWN ||
	     event == VIR_DOMAIN_EVENT_STOPPED) && !w->end_s)
		w->end_s = now_s();
	if (event == VIR_DOMAIN_EVENT_STOPPED && !w->stopped) {
		w->stopped = 1;
		w->stop_detail = detail;
	} else if (event == VIR_DOMAIN_EVENT_CRASHED) {
		w->crashed = 1;
	}
	return 0;
}

/* --- the guest: through libvirt, or through mmci-priv (priv.h) ------- */

struct vm_guest {
	virConnectPtr conn;	/* libvirt directly */
	virDomainPtr dom;
	int ch;			/* mmci-priv's channel; -1 = libvirt */
	uint32_t boot;		/* the parent's id of the guest */
	/* mmci-priv: its serial logs, copied into the spec's as they grow */
	int in[2], out[2];
	int counts;		/* a profiling boot's, from DESTROY; -1 */
};

static void priv_req_init(struct priv_req *req, enum priv_type type,
			  const struct vm_guest *g)
{
	memset(req, 0, sizeof(*req));
	req->magic = PRIV_MAGIC;
	req->type = type;
	req->boot = g->boot;
}

static int guest_resize(struct vm_guest *g, unsigned long long mib)
{
	struct priv_req req;
	struct priv_reply *rep;
	int ret;

	if (g->ch < 0)
		return vmem_resize(g->dom, mib);
	priv_req_init(&req, PRIV_RESIZE, g);
	req.mib = mib;
	rep = xcalloc(1, sizeof(*rep));
	ret = priv_call(g->ch, &req, NULL, 0, rep, NULL, 0, NULL);
	free(rep);
	return ret;
}

static void guest_destroy(struct vm_guest *g, const char *name)
{
	struct priv_req req;
	struct priv_reply *rep;

	if (g->ch < 0) {
		vm_destroy(g->dom, name);
		return;
	}
	priv_req_init(&req, PRIV_DESTROY, g);
	rep = xcalloc(1, sizeof(*rep));
	/* after a profiling boot, the plugin's counts come back */
	if (g->counts >= 0)
		close(g->counts);
	g->counts = -1;
	priv_call(g->ch, &req, NULL, 0, rep, &g->counts, 1, NULL);
	free(rep);
}

/* copy what the parent's serial logs got since the last call into ours */
static void guest_pump(struct vm_guest *g)
{
	char buf[65536];
	ssize_t n;
	int i;

	for (i = 0; i < 2; i++) {
		if (g->in[i] < 0 || g->out[i] < 0)
			continue;
		while ((n = read(g->in[i], buf, sizeof(buf))) > 0)
			if (write_in_full(g->out[i], buf, n) < 0) {
				log_warn("cannot copy a serial log");
				close(g->out[i]);
				g->out[i] = -1;
				break;
			}
	}
}

static void guest_release(struct vm_guest *g)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (g->in[i] >= 0)
			close(g->in[i]);
		if (g->out[i] >= 0)
			close(g->out[i]);
		g->in[i] = g->out[i] = -1;
	}
	if (g->ch >= 0)
		close(g->ch);	/* the parent destroys what is left */
	g->ch = -1;
	if (g->counts >= 0)
		close(g->counts);
	g->counts = -1;
}

/* --- requests from the guest ------------------------------------------ */

struct vm_requests {
	const char *path;	/* the results file */
	int fd;
	struct strbuf partial;	/* a line not finished yet */
	unsigned long long vmem_max_mib;
	struct strbuf *log;	/* vm_result.host_log */
	int handled;
	const char *label;	/* vm_spec.label, for the status line */
	/*
	 * Wall clock only (host_samples set): the resize the host made
	 * last, for its host-side time (vm_host_sample()); the event loop
	 * wakes every VM_PENDING_POLL_MS while one is pending.
	 */
	struct strbuf *host_samples;	/* vm_result.host_samples, or NULL */
	int timer;		/* the event loop's timer */
	int pending, fast;	/* fast: the timer at VM_PENDING_POLL_MS */
	double pending_at;	/* now_s() right before the resize call */
	long long pending_mib, pending_seq;
};

/* the status line: where the runner is, from its last sample */
static void vm_progress(const struct vm_requests *rq, const char *line,
			double t)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *wl = NULL, *metric = NULL, *variant = "";
	json_int_t it = -1;

	if (o && !json_unpack(o, "{s:s, s:s, s?:s, s?:I}", "workload", &wl,
			      "metric", &metric, "variant", &variant, "iter",
			      &it))
		progress_status("%s: %s%s%s %s #%lld, %.0f s", rq->label, wl,
				*variant ? " " : "", variant, metric,
				(long long)it, t);
	json_decref(o);
}

static void vm_request(struct vm_requests *rq, struct vm_guest *g,
		       const char *line, double t)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *type = NULL, *action = NULL;
	json_int_t mib = -1, seq = 0;
	int rc = -1;

	if (!o || json_unpack(o, "{s:s, s?:s, s?:I, s?:I}", "type", &type,
			      "action", &action, "requested_mib", &mib, "seq",
			      &seq) < 0 || strcmp(type, "request")) {
		json_decref(o);
		return;	/* not a request: result.c judges it later */
	}
	rq->handled++;
	if (!action || strcmp(action, "virtio-mem-resize"))
		error("unknown request '%s'", action ? action : "(none)");
	else if (!rq->vmem_max_mib)
		error("virtio-mem resize asked for, but the domain has no "
		      "virtio-mem device");
	else if (mib < 0 || (unsigned long long)mib > rq->vmem_max_mib ||
		 mib % 2)
		error("virtio-mem size %lld MiB is not a multiple of 2 MiB "
		      "within 0..%llu", (long long)mib, rq->vmem_max_mib);
	else {
		rq->pending_at = now_s();
		rc = guest_resize(g, mib);
	}
	rq->pending = !rc && rq->host_samples;
	rq->pending_mib = mib;
	rq->pending_seq = seq;
	strbuf_addf(rq->log, "%.3f s: request %lld %s %lld MiB: %s\n", t,
		    (long long)seq, action ? action : "?", (long long)mib,
		    rc ? last_error() : "done");
	json_decref(o);
}

/*
 * The guest's sample of a resize the host made: its host-side time, from
 * right before the host's resize call to the sample line read back on
 * the host, as the authors of the hotplug series timed it ("request ->
 * MemTotal"). A sample of its own (metric plug_host, unplug_host) in the
 * runner's format, the guest's variant and iteration; wall clock only,
 * a host time has no meaning beside icount's guest time. It includes the
 * serial line's way back and up to VM_PENDING_POLL_MS of polling.
 */
static void vm_host_sample(struct vm_requests *rq, const char *line,
			   double now)
{
	json_t *o, *out;
	const char *wl = NULL, *metric = NULL, *variant = "";
	json_int_t it = 0;
	char name[32], *text;

	if (!rq->pending)
		return;
	o = json_loads(line, 0, NULL);
	if (!o || json_unpack(o, "{s:s, s:s, s?:s, s?:I}", "workload", &wl,
			      "metric", &metric, "variant", &variant, "iter",
			      &it) < 0 || strcmp(wl, "virtio-mem") ||
	    (strcmp(metric, "plug") && strcmp(metric, "unplug"))) {
		json_decref(o);
		return;
	}
	xsnprintf(name, sizeof(name), "%s_host", metric);
	out = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:I, s:f}", "v", 1,
			"type", "sample", "workload", wl, "variant", variant,
			"metric",
			name, "unit", "ms", "iter", it, "value",
			(now - rq->pending_at) * 1000);
	text = out ? json_dumps(out, JSON_COMPACT) : NULL;
	if (text) {
		strbuf_addf(rq->host_samples, "%s\n", text);
		strbuf_addf(rq->log, "host time of request %lld (%lld MiB): "
			    "%.1f ms to the guest's %s sample\n",
			    rq->pending_seq, rq->pending_mib,
			    (now - rq->pending_at) * 1000, metric);
	}
	free(text);
	json_decref(out);
	json_decref(o);
	rq->pending = 0;
}

/* read what the runner wrote since the last call and act on requests */
static void vm_poll_requests(struct vm_requests *rq, struct vm_guest *g,
			     double t0)
{
	char buf[4096];
	ssize_t n;

	if (rq->fd < 0) {
		rq->fd = open(rq->path, O_RDONLY | O_CLOEXEC);
		if (rq->fd < 0)
			return;
	}
	while ((n = read(rq->fd, buf, sizeof(buf))) > 0) {
		const char *p = buf, *nl;

		while ((nl = memchr(p, '\n', buf + n - p))) {
			strbuf_add(&rq->partial, p, nl - p);
			if (strstr(rq->partial.buf, "\"request\"")) {
				vm_request(rq, g, rq->partial.buf,
					   now_s() - t0);
			} else if (strstr(rq->partial.buf, "\"sample\"")) {
				vm_host_sample(rq, rq->partial.buf, now_s());
				if (rq->label)
					vm_progress(rq, rq->partial.buf,
						    now_s() - t0);
			}
			strbuf_reset(&rq->partial);
			p = nl + 1;
		}
		/* the runner writes whole lines: a long tail is noise */
		if (rq->partial.len + (buf + n - p) < 65536)
			strbuf_add(&rq->partial, p, buf + n - p);
	}
	if (rq->timer >= 0 && rq->fast != rq->pending) {
		virEventUpdateTimeout(rq->timer, rq->pending ?
				      VM_PENDING_POLL_MS : VM_POLL_MS);
		rq->fast = rq->pending;
	}
}

/* --- the guest's first console line ---------------------------------- */

static int printk_stamp(const char *line)
{
	const char *p = line + 1;

	if (*line != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == ']';
}

int vm_console_started(const char *log)
{
	static const char *const anywhere[] = {
		"Linux version ", "Booting Linux", "EFI stub: ",
		"Kernel panic - not syncing",
	};
	const char *line = log;

	while (*line) {
		const char *eol = strchrnul(line, '\n');
		char *l = xstrndup(line, eol - line);
		const char *p = l;
		size_t i;
		int hit;

		while (*p == '\r')
			p++;
		hit = starts_with(p, "mmci: ") || printk_stamp(p);
		for (i = 0; !hit && i < ARRAY_SIZE(anywhere); i++)
			hit = strstr(p, anywhere[i]) != NULL;
		free(l);
		if (hit)
			return 1;
		line = *eol ? eol + 1 : eol;
	}
	return 0;
}

const char *vm_test_kvm_seam(void)
{
	const char *v = getenv("MMCI_TEST_KVM_SEAM");

	if (!v || !*v)
		return NULL;
	if (!strcmp(v, "hang") || !strcmp(v, "works"))
		return v;
	log_warnx("ignoring MMCI_TEST_KVM_SEAM='%s', expected 'hang' or "
		  "'works'", v);
	return NULL;
}

/* the head of the console log, read as it grows, until the guest speaks */
struct vm_console {
	const char *path;
	int fd;
	struct strbuf head;	/* the first 64 KiB, NULs made spaces */
	int started;
	double at;		/* s from the start request to the line */
};

static void vm_poll_console(struct vm_console *c, double t0)
{
	char buf[4096];
	ssize_t n, i;

	if (c->started)
		return;
	if (c->fd < 0) {
		c->fd = open(c->path, O_RDONLY | O_CLOEXEC);
		if (c->fd < 0)
			return;
	}
	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		if (c->head.len < 65536)
			strbuf_add(&c->head, buf, n);
	}
	if (vm_console_started(c->head.buf)) {
		c->started = 1;
		c->at = now_s() - t0;
	}
}

static void vm_tick(int timer, void *opaque)
{
	/* only there to make virEventRunDefaultImpl() return */
}

static void set_result_error(struct vm_result *res, const char *fmt, ...)
	PRINTF(2, 3);

static void set_result_error(struct vm_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
}

/* the first line of the console log containing @needle, into @res->error */
static int console_has(const struct strbuf *log, const char *needle,
		       struct vm_result *res, const char *what)
{
	const char *hit = strstr(log->buf, needle), *bol, *eol;

	if (!hit)
		return 0;
	if (res) {
		bol = hit;
		while (bol > log->buf && bol[-1] != '\n')
			bol--;
		eol = strchrnul(hit, '\n');
		while (eol > bol && eol[-1] == '\r')
			eol--;
		set_result_error(res, "%s: %.*s", what, (int)(eol - bol), bol);
	}
	return 1;
}

/* why did the guest end? look at what the event said and the console */
static void vm_classify(const struct vm_spec *spec, const struct vm_watch *w,
			enum vm_wait_end end, const char *lost,
			struct vm_result *res)
{
	struct strbuf log = STRBUF_INIT;
	int detail = w->stopped ? w->stop_detail : -1;

	if (strbuf_read_file(&log, spec->console_log, 0) < 0)
		log_debug("cannot read console log '%s': %s", spec->console_log,
			  strerror(errno));

	res->exit_kind = VM_CRASHED;
	if (console_has(&log, "Kernel panic - not syncing", res,
			"kernel panic")) {
		/* with panic=0 the guest hangs: a timeout, but say why */
	} else if (end == WAIT_INTERRUPTED) {
		res->exit_kind = VM_INTERRUPTED;
		set_result_error(res, "%s", interrupt_reason());
	} else if (lost) {
		res->exit_kind = VM_HOST_LOST;
		set_result_error(res, "lost domain '%s' on '%s': %s", spec->name,
				 vm_uri(), lost);
	} else if (end == WAIT_SILENT) {
		res->exit_kind = VM_SILENT;
		set_result_error(res, "the guest printed no console line within "
				 "%u s", spec->first_line_s);
	} else if (end == WAIT_FIRST_LINE) {
		res->exit_kind = VM_STOPPED;
		set_result_error(res, "stopped after its first console line, "
				 "%.1f s after the start", res->first_line_s);
	} else if (end == WAIT_TIMEOUT) {
		res->exit_kind = VM_TIMEOUT;
		set_result_error(res, "guest did not end within %u s",
				 spec->timeout_s);
	} else if (w->crashed || detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED) {
		set_result_error(res, "guest crashed");
	} else if (detail == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
		set_result_error(res, "qemu exited unexpectedly, see /var/log/libvirt/qemu/%s.log%s%s",
				 spec->name, spec->streams ? " on " : "",
				 spec->streams ? vm_uri() : "");
	} else if (detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED) {
		set_result_error(res, "domain '%s' was destroyed by someone else",
				 spec->name);
	} else if (!console_has(&log, "reboot: Power down", NULL, NULL) &&
		   console_has(&log, "reboot: Restarting system", res,
			       "guest rebooted")) {
		/* an unexpected reboot: on_reboot destroyed the domain */
	} else {
		res->exit_kind = VM_POWEROFF;
	}
	strbuf_release(&log);
}

/* libvirt creates the serial log files 0600; results are not secret */
static void make_readable(const char *path)
{
	if (chmod(path, 0644) < 0)
		log_debug("cannot chmod '%s': %s", path, strerror(errno));
}

static int vm_start_failed(struct vm_result *res, const char *fmt, ...)
	PRINTF(2, 3);

static int vm_start_failed(struct vm_result *res, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	res->exit_kind = VM_START_FAILED;
	set_result_error(res, "%s", msg.buf);
	/* for last_error(): the caller prints it, in its own line */
	error_hold();
	error("%s", msg.buf);
	error_unhold();
	strbuf_release(&msg);
	return -1;
}

/*
 * mmci-priv: is the guest still there? Its lifecycle events, which the
 * parent saw, go into @w; @gone_at is set when it is gone. -1 when the
 * parent did not answer (*@lost says why).
 */
static int guest_state(struct vm_guest *g, struct vm_watch *w,
		       double *gone_at, double now, char **lost)
{
	struct priv_req req;
	struct priv_reply *rep = xcalloc(1, sizeof(*rep));
	int ret = 0;

	priv_req_init(&req, PRIV_STATE, g);
	error_hold();
	if (priv_call(g->ch, &req, NULL, 0, rep, NULL, 0, NULL) < 0) {
		*lost = xstrdup(last_error());
		ret = -1;
	} else {
		if (rep->state.stopped && !w->stopped) {
			w->stopped = 1;
			w->stop_detail = rep->state.stop_detail;
		}
		if (rep->state.crashed)
			w->crashed = 1;
		if (rep->state.end_s > 0 && !w->end_s)
			w->end_s = rep->state.end_s;
		if (rep->state.gone)
			*gone_at = now;
		if (*gone_at && !w->end_s)
			w->end_s = now;
	}
	error_unhold();
	free(rep);
	return ret;
}

/*
 * wait for the end of @dom; fills @w. @t1 is when the start request
 * returned: the first-line deadline counts from there, so the time QEMU
 * takes to map a large NVDIMM is not the guest's.
 */
static enum vm_wait_end vm_wait(struct vm_guest *g,
				const struct vm_spec *spec, double t0,
				double t1, struct vm_watch *w,
				struct vm_requests *rq, struct vm_console *con,
				char **lost)
{
	double deadline = spec->timeout_s ? t0 + spec->timeout_s : 0;
	double next_poll = 0, gone_at = 0;
	int watch = spec->first_line_s || spec->stop_at_first_line;

	for (;;) {
		double now = now_s();

		guest_pump(g);
		if (w->stopped)
			return WAIT_ENDED;
		if (interrupted())
			return WAIT_INTERRUPTED;
		/* vanished without a STOPPED event: classify by the log */
		if (gone_at && now - gone_at > VM_EVENT_GRACE_S)
			return WAIT_ENDED;
		if (!gone_at && deadline && now >= deadline)
			return WAIT_TIMEOUT;
		if (!gone_at && watch && !con->started) {
			vm_poll_console(con, t0);
			if (!con->started && spec->first_line_s &&
			    now >= t1 + spec->first_line_s)
				return WAIT_SILENT;
		}
		if (con->started && spec->stop_at_first_line)
			return WAIT_FIRST_LINE;
		if (!gone_at && rq)
			vm_poll_requests(rq, g, t0);
		if (!gone_at && now >= next_poll && g->ch >= 0) {
			next_poll = now + 2 * VM_POLL_MS / 1000.0;
			if (guest_state(g, w, &gone_at, now, lost) < 0)
				return WAIT_ENDED;
		} else if (!gone_at && now >= next_poll) {
			int state, reason;

			next_poll = now + 2 * VM_POLL_MS / 1000.0;
			if (virDomainGetState(g->dom, &state, &reason, 0) < 0) {
				const char *msg = virGetLastErrorMessage();

				if (vm_last_error_code() != VIR_ERR_NO_DOMAIN) {
					*lost = xstrdup(msg);
					return WAIT_ENDED;
				}
				gone_at = now;
			} else if (state == VIR_DOMAIN_SHUTOFF ||
				   state == VIR_DOMAIN_CRASHED) {
				gone_at = now;
			}
			if (gone_at && !w->end_s)
				w->end_s = now;
		}
		if (g->ch >= 0) {
			/* the parent watches libvirt's events */
			poll(NULL, 0, rq && rq->pending ? VM_PENDING_POLL_MS :
							  VM_POLL_MS);
			continue;
		}
		if (virEventRunDefaultImpl() < 0) {
			*lost = xstrfmt("libvirt event loop failed: %s",
					virGetLastErrorMessage());
			return WAIT_ENDED;
		}
		if (!virConnectIsAlive(g->conn)) {
			*lost = xstrdup("connection to libvirt closed");
			return WAIT_ENDED;
		}
	}
}

/*
 * a local guest waits for the host's cores: beside other guests, never
 * beside a build (fsutil.h); a stop while it waits starts nothing
 * (@res says so). cpu_lock_take()'s answer.
 */
static int vm_take_cores(const struct vm_spec *spec, struct vm_result *res)
{
	char *who = xstrfmt("domain '%s'", spec->name);
	int cpu = cpu_lock_take(0, who);

	free(who);
	if (cpu == CPU_LOCK_STOPPED) {
		res->exit_kind = VM_INTERRUPTED;
		set_result_error(res, "%s", interrupt_reason());
	}
	return cpu;
}

/* what vm_wait() read the results and the console with */
static void readers_release(struct vm_requests *rq, struct vm_console *con)
{
	if (rq->fd >= 0)
		close(rq->fd);
	if (con->fd >= 0)
		close(con->fd);
	strbuf_release(&con->head);
	strbuf_release(&rq->partial);
}

/*
 * vm_wait() with the guest's requests handled into @res, then the guest
 * destroyed (a lost host took it along) and its times in @res
 */
static enum vm_wait_end vm_wait_end(struct vm_guest *g,
				    const struct vm_spec *spec, double t0,
				    double t1, struct vm_watch *w,
				    struct vm_requests *rq,
				    struct vm_console *con,
				    struct vm_result *res, char **lost)
{
	enum vm_wait_end end;

	rq->path = spec->results_log;
	rq->vmem_max_mib = spec->virtio_mem_max_mib;
	rq->log = &res->host_log;
	rq->label = spec->label;
	if (!spec->icount)
		rq->host_samples = &res->host_samples;
	end = vm_wait(g, spec, t0, t1, w, rq, con, lost);
	if (end != WAIT_ENDED && !w->end_s)
		w->end_s = now_s();
	if (end == WAIT_TIMEOUT)
		log_info("domain '%s' timed out after %u s, destroying it",
			 spec->name, spec->timeout_s);
	else if (end == WAIT_SILENT)
		log_info("domain '%s' printed nothing within %u s, destroying "
			 "it", spec->name, spec->first_line_s);
	progress_status_end();
	/* a broken channel to mmci-priv has destroyed it already */
	if (g->ch < 0 || !*lost)
		guest_destroy(g, spec->name);
	res->boot_to_end_s = (w->end_s ? w->end_s : now_s()) - t0;
	res->first_line_s = con->started ? con->at : 0;
	return end;
}

/* copy @src into the fixed-size @dst, or -1 when it does not fit */
static int put_field(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src ? src : "");

	if (n >= size)
		return -1;
	memcpy(dst, src ? src : "", n + 1);
	return 0;
}

/*
 * What the parent's plugin wrote, behind @fd, into @path: QEMU wrote it at
 * its exit, so the guest has ended. 0, or -1 after error().
 */
static int copy_plugin_out(int fd, const char *path)
{
	char buf[65536];
	unsigned long long total = 0;
	ssize_t n;
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (out < 0)
		return error_errno("cannot create '%s'", path);
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(out);
		return error_errno("cannot read the plugin's counts");
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		total += (unsigned long long)n;
		if (total > VM_PLUGIN_OUT_MAX) {
			close(out);
			return error("the plugin's counts are over %llu bytes",
				     (unsigned long long)VM_PLUGIN_OUT_MAX);
		}
		if (write_in_full(out, buf, (size_t)n) < 0) {
			close(out);
			return error_errno("cannot write '%s'", path);
		}
	}
	if (close(out) < 0 || n < 0)
		return error_errno("cannot copy the plugin's counts to '%s'",
				   path);
	return 0;
}

/*
 * vm_run() for a child of mmci-priv (priv.h): the parent, root, makes
 * the XML from the typed request and starts the guest; this process, the
 * service user, sends the kernel and the initramfs as open files, reads
 * the serial logs the parent hands back, acts on the guest's requests
 * and decides when it ends, as vm_run() does with libvirt itself.
 */
static int vm_run_priv(const struct vm_spec *spec, const struct vm_spec *made,
		       int hang, struct vm_result *res)
{
	struct vm_watch w = { .name = spec->name };
	struct vm_requests rq = { .fd = -1, .partial = STRBUF_INIT,
				  .timer = -1 };
	struct vm_console con = { .path = spec->console_log, .fd = -1,
				  .head = STRBUF_INIT };
	struct vm_guest g = { .ch = -1, .in = { -1, -1 }, .out = { -1, -1 },
			     .counts = -1 };
	struct priv_req *req = xcalloc(1, sizeof(*req));
	struct priv_reply *rep = xcalloc(1, sizeof(*rep));
	const struct arch *a = made->arch ? made->arch : arch_get(NULL);
	int fds[2] = { -1, -1 }, back[2] = { -1, -1 }, got = 0, nfd = 1;
	int ret = -1, cpu = -1, i;
	enum vm_wait_end end;
	char *lost = NULL;
	double t0, t1;

	if (hang) {
		vm_start_failed(res, "domain '%s': the paused KVM test seam "
				"needs libvirt, not mmci-priv", spec->name);
		goto out;
	}
	if (made->plugin && !made->plugin_out) {
		vm_start_failed(res, "domain '%s': a profiling boot through "
				"mmci-priv needs the plugin's output file",
				spec->name);
		goto out;
	}
	req->magic = PRIV_MAGIC;
	req->type = PRIV_BOOT;
	if (put_field(req->b.name, sizeof(req->b.name), spec->name) < 0 ||
	    put_field(req->b.arch, sizeof(req->b.arch), a->name) < 0 ||
	    put_field(req->b.cpu_model, sizeof(req->b.cpu_model),
		      made->cpu_model) < 0 ||
	    put_field(req->b.cmdline, sizeof(req->b.cmdline),
		      spec->cmdline) < 0) {
		vm_start_failed(res, "domain '%s': its name, arch, CPU model or "
				"command line is longer than mmci-priv takes",
				spec->name);
		goto out;
	}
	req->b.vcpus = made->vcpus;
	req->b.kvm = !!made->kvm;
	req->b.icount = !!made->icount;
	req->b.pin = !!made->pin;
	req->b.ram_mib = made->ram_mib;
	req->b.nvdimm_mib = made->nvdimm_path ? made->nvdimm_mib : 0;
	req->b.nvdimm_label_kib = made->nvdimm_label_kib;
	req->b.virtio_mem_max_mib = made->virtio_mem_max_mib;
	req->b.profile = !!made->plugin;
	req->b.backing = made->nvdimm_path &&
			 starts_with(made->nvdimm_path, VM_TMPFS_DIR "/") ?
			 PRIV_BACKING_TMPFS : PRIV_BACKING_DISK;
	fds[0] = open(spec->kernel, O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0) {
		vm_start_failed(res, "cannot read kernel '%s': %s",
				spec->kernel, strerror(errno));
		goto out;
	}
	if (spec->initrd) {
		fds[1] = open(spec->initrd, O_RDONLY | O_CLOEXEC);
		if (fds[1] < 0) {
			vm_start_failed(res, "cannot read initrd '%s': %s",
					spec->initrd, strerror(errno));
			goto out;
		}
		req->b.has_initrd = 1;
		nfd = 2;
	}
	for (i = 0; i < 2; i++) {
		const char *path = i ? spec->results_log : spec->console_log;

		g.out[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				0644);
		if (g.out[i] < 0) {
			vm_start_failed(res, "cannot create '%s': %s", path,
					strerror(errno));
			goto out;
		}
	}

	cpu = vm_take_cores(spec, res);
	if (cpu == CPU_LOCK_STOPPED)
		goto out;
	g.ch = priv_channel();
	if (g.ch < 0) {
		vm_start_failed(res, "cannot start domain '%s': no channel to "
				"mmci-priv", spec->name);
		goto out;
	}
	log_debug("starting domain '%s' through mmci-priv", spec->name);
	t0 = w.t0 = now_s();
	error_hold();
	if (priv_call(g.ch, req, fds, nfd, rep, back, 2, &got) < 0 ||
	    got != 2) {
		error_unhold();
		vm_start_failed(res, "cannot start domain '%s': %s", spec->name,
				got == 2 ? last_error() :
				"mmci-priv sent no serial logs");
		for (i = 0; i < got; i++)
			close(back[i]);
		goto out;
	}
	error_unhold();
	t1 = now_s();
	g.boot = rep->boot;
	g.in[0] = back[0];
	g.in[1] = back[1];
	rep->xml[sizeof(rep->xml) - 1] = '\0';
	rep->host.qemu[sizeof(rep->host.qemu) - 1] = '\0';
	rep->host.libvirt[sizeof(rep->host.libvirt) - 1] = '\0';
	res->domain_xml = xstrdup(rep->xml);
	res->qemu_version = xstrdup(rep->host.qemu);
	res->libvirt_version = xstrdup(rep->host.libvirt);
	res->start_s = t1 - t0;
	log_debug("domain '%s' started in %.2f s", spec->name, res->start_s);

	end = vm_wait_end(&g, spec, t0, t1, &w, &rq, &con, res, &lost);
	guest_pump(&g);
	if (made->plugin && (g.counts < 0 ||
			     copy_plugin_out(g.counts, made->plugin_out) < 0))
		log_warnx("domain '%s': no counts from the plugin%s%s",
			  spec->name, g.counts < 0 ? "" : ": ",
			  g.counts < 0 ? "" : last_error());
	vm_classify(made, &w, end, lost, res);
	log_debug("domain '%s' ended: %s after %.2f s%s%s", spec->name,
		  vm_exit_kind_name(res->exit_kind), res->boot_to_end_s,
		  res->error[0] ? ", " : "", res->error);
	ret = 0;
out:
	guest_release(&g);
	cpu_lock_drop(cpu);
	for (i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(lost);
	readers_release(&rq, &con);
	free(req);
	free(rep);
	return ret;
}

int vm_run(const struct vm_spec *spec, struct vm_result *res)
{
	struct strbuf tmpl = STRBUF_INIT, xml = STRBUF_INIT;
	const char *tpath = spec->template_path ? spec->template_path :
						  VM_DEFAULT_TEMPLATE;
	struct vm_watch w = { .name = spec->name };
	struct vm_requests rq = { .fd = -1, .partial = STRBUF_INIT,
				  .timer = -1 };
	struct vm_console con = { .path = spec->console_log, .fd = -1,
				  .head = STRBUF_INIT };
	const char *seam = spec->kvm ? vm_test_kvm_seam() : NULL;
	struct vm_spec made = *spec;
	struct vm_stage stage = { 0 };
	struct vm_stream ports[2] = {
		{ .dev = "serial0", .fd = -1 },
		{ .dev = "serial1", .fd = -1 },
	};
	int remote = vm_staged(), hang = 0, staged;
	char alias[64];
	unsigned int flags = VIR_DOMAIN_START_AUTODESTROY;
	struct vm_guest g = { .ch = -1, .in = { -1, -1 }, .out = { -1, -1 },
			     .counts = -1 };
	virConnectPtr conn = NULL;
	virDomainPtr dom = NULL;
	int cb = -1, timer = -1, ret = -1, cpu = -1;
	enum vm_wait_end end;
	char *lost = NULL;
	double t0, t1;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->host_log, 0);
	strbuf_init(&res->host_samples, 0);
	res->exit_kind = VM_START_FAILED;

	if (strbuf_read_file(&tmpl, tpath, 4096) < 0) {
		vm_start_failed(res, "cannot read domain template '%s': %s",
				tpath, strerror(errno));
		goto out;
	}
	if (seam) {
		/* a TCG guest stands in for the KVM one (vm.h) */
		made.kvm = 0;
		if (!strcmp(seam, "hang")) {
			flags |= VIR_DOMAIN_START_PAUSED;
			hang = 1;
		}
		log_info("test seam MMCI_TEST_KVM_SEAM=%s: domain '%s' runs "
			 "under TCG%s in place of KVM", seam, spec->name,
			 !strcmp(seam, "hang") ? ", paused" : "");
	}
	if (!remote && priv_active()) {
		/* the root parent makes the XML and starts the guest */
		strbuf_release(&tmpl);
		return vm_run_priv(spec, &made, hang, res);
	}
	if (vm_domain_xml(&made, tmpl.buf, &xml) < 0) {
		vm_start_failed(res, "cannot make the XML of domain '%s'",
				spec->name ? spec->name : "");
		goto out;
	}
	res->domain_xml = xstrdup(xml.buf);
	if (access(spec->kernel, R_OK) < 0) {
		vm_start_failed(res, "cannot read kernel '%s': %s",
				spec->kernel, strerror(errno));
		goto out;
	}
	if (spec->initrd && access(spec->initrd, R_OK) < 0) {
		vm_start_failed(res, "cannot read initrd '%s': %s",
				spec->initrd, strerror(errno));
		goto out;
	}

	/*
	 * before the connection: libvirtd closes one whose keepalive nobody
	 * answers, and the next write is a SIGPIPE
	 */
	if (!remote) {
		cpu = vm_take_cores(spec, res);
		if (cpu == CPU_LOCK_STOPPED)
			goto out;
	}
	conn = vm_connect();
	if (!conn) {
		vm_start_failed(res, "cannot start domain '%s' without libvirt",
				spec->name);
		goto out;
	}
	if (vm_conn_versions(conn, &res->qemu_version,
			     &res->libvirt_version) < 0)
		log_warnx("unknown qemu/libvirt versions for domain '%s'",
			  spec->name);
	if (remote) {
		/* its files go into the host's pool; the XML names them */
		error_hold();
		staged = vm_stage(conn, spec, &made, &stage);
		error_unhold();
		if (staged < 0) {
			vm_start_failed(res, "cannot put domain '%s' on '%s': "
					"%s", spec->name, vm_uri(),
					last_error());
			goto out;
		}
		strbuf_reset(&xml);
		if (vm_domain_xml(&made, tmpl.buf, &xml) < 0) {
			vm_start_failed(res, "cannot make the XML of domain "
					"'%s'", spec->name);
			goto out;
		}
		free(res->domain_xml);
		res->domain_xml = xstrdup(xml.buf);
		/* paused until both serial ports are read */
		flags |= VIR_DOMAIN_START_PAUSED;
	}

	/* register before the start: a guest may end before we look */
	cb = virConnectDomainEventRegisterAny(
		conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
		VIR_DOMAIN_EVENT_CALLBACK(vm_lifecycle), &w, NULL);
	if (cb < 0)
		log_warnx("no lifecycle events for domain '%s', polling only: %s",
			  spec->name, virGetLastErrorMessage());
	timer = virEventAddTimeout(VM_POLL_MS, vm_tick, NULL, NULL);
	if (timer < 0) {
		vm_start_failed(res, "cannot add a libvirt event timer: %s",
				virGetLastErrorMessage());
		goto out;
	}

	log_debug("starting domain '%s'", spec->name);
	t0 = w.t0 = now_s();
	dom = virDomainCreateXML(conn, xml.buf, flags);
	t1 = now_s();
	if (!dom) {
		vm_start_failed(res, "cannot start domain '%s': %s", spec->name,
				virGetLastErrorMessage());
		goto out;
	}
	if (made.streams) {
		size_t i;

		/* arm64: the results port is a virtio console */
		if (made.arch && arch_firmware(made.arch))
			ports[1].dev = virtio_console_alias(dom, alias,
							    sizeof(alias));
		for (i = 0; i < ARRAY_SIZE(ports); i++) {
			const char *path = i ? spec->results_log :
					       spec->console_log;

			if (stream_open(dom, &ports[i], path) < 0)
				break;
		}
		if (i < ARRAY_SIZE(ports) || (!hang && virDomainResume(dom) < 0)) {
			vm_start_failed(res, "cannot start domain '%s' on "
					"'%s': %s", spec->name, vm_uri(),
					last_error());
			vm_destroy(dom, spec->name);
			goto out;
		}
		t1 = now_s();
		/*
		 * QEMU has the NVDIMM and the UEFI variables open: the
		 * memmap goes with QEMU, nothing reads the variables later
		 */
		for (i = STAGE_NVDIMM; i <= STAGE_NVRAM; i++) {
			if (!stage.vol[i])
				continue;
			vol_delete(stage.vol[i]);
			virStorageVolFree(stage.vol[i]);
			stage.vol[i] = NULL;
		}
	}
	res->start_s = t1 - t0;
	log_debug("domain '%s' started in %.2f s", spec->name, res->start_s);
	/*
	 * QEMU has the backing file open and mapped now: unlinking it means
	 * its memory (the memmap written on tmpfs, ~1.6 % of the size) goes
	 * back to the host when QEMU exits, even if mmci is killed.
	 */
	if (made.unlink_backing && spec->nvdimm_path &&
	    unlink(spec->nvdimm_path) < 0)
		log_warn("cannot unlink '%s'", spec->nvdimm_path);
	/* the UEFI variables: QEMU has them open, nothing reads them later */
	if (spec->nvram_path && spec->arch && arch_firmware(spec->arch))
		unlink(spec->nvram_path);

	rq.timer = timer;
	g.conn = conn;
	g.dom = dom;
	end = vm_wait_end(&g, spec, t0, t1, &w, &rq, &con, res, &lost);
	if (made.streams) {
		streams_drain(ports, ARRAY_SIZE(ports));
		streams_close(ports, ARRAY_SIZE(ports));
		log_debug("domain '%s': %llu console and %llu result bytes "
			  "through libvirt streams", spec->name,
			  ports[0].bytes, ports[1].bytes);
	}

	make_readable(spec->console_log);
	make_readable(spec->results_log);
	vm_classify(&made, &w, end, lost, res);
	log_debug("domain '%s' ended: %s after %.2f s%s%s", spec->name,
		  vm_exit_kind_name(res->exit_kind), res->boot_to_end_s,
		  res->error[0] ? ", " : "", res->error);
	ret = 0;
out:
	if (dom)
		virDomainFree(dom);	/* destroyed above on every path */
	cpu_lock_drop(cpu);
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	if (cb >= 0)
		virConnectDomainEventDeregisterAny(conn, cb);
	streams_close(ports, ARRAY_SIZE(ports));
	vm_unstage(&stage);
	if (conn)
		virConnectClose(conn);
	if (spec->nvram_path && spec->arch && arch_firmware(spec->arch))
		unlink(spec->nvram_path);	/* a start that failed */
	free(lost);
	readers_release(&rq, &con);
	strbuf_release(&tmpl);
	strbuf_release(&xml);
	return ret;
}

void vm_not_started_why(const struct vm_result *res, struct strbuf *why)
{
	if (res->exit_kind == VM_INTERRUPTED)
		strbuf_addf(why, "%s while it waited for the cores; no guest "
			    "was started", res->error);
	else
		strbuf_addf(why, "the VM did not start: %s", last_error());
}

void vm_result_release(struct vm_result *res)
{
	free(res->qemu_version);
	free(res->libvirt_version);
	free(res->domain_xml);
	res->qemu_version = res->libvirt_version = res->domain_xml = NULL;
	strbuf_release(&res->host_log);
	strbuf_release(&res->host_samples);
}

const char *vm_exit_kind_name(enum vm_exit_kind kind)
{
	switch (kind) {
	case VM_POWEROFF:
		return "poweroff";
	case VM_TIMEOUT:
		return "timeout";
	case VM_SILENT:
		return "silent";
	case VM_STOPPED:
		return "stopped";
	case VM_CRASHED:
		return "crashed";
	case VM_START_FAILED:
		return "start-failed";
	case VM_INTERRUPTED:
		return "interrupted";
	case VM_HOST_LOST:
		return "host-lost";
	}
	BUG("unknown vm exit kind %d", (int)kind);
}

/* --- leftovers ------------------------------------------------------- */

/* the pid in our metadata element, 0 if there is none */
static long vm_owner_pid(virDomainPtr dom)
{
	char *meta = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
					  VM_METADATA_NS,
					  VIR_DOMAIN_AFFECT_CURRENT);
	const char *p;
	long pid = 0;

	if (!meta)
		return 0;
	p = strstr(meta, "pid=");
	if (p && (p[4] == '\'' || p[4] == '"'))
		pid = strtol(p + 5, NULL, 10);
	free(meta);
	return pid;
}

static int vm_owner_alive(long pid)
{
	if (pid <= 0 || pid == (long)getpid())
		return 0;
	return !kill((pid_t)pid, 0) || errno == EPERM;
}

#define VM_UNDEFINE_ALL                                                       \
	(VIR_DOMAIN_UNDEFINE_MANAGED_SAVE |                                   \
	 VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA |                             \
	 VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA | VIR_DOMAIN_UNDEFINE_NVRAM)

/*
 * NVDIMM backing files on tmpfs are named mmci-<pid>-run<R>-boot<B>.nvdimm
 * (run.c) and unlinked once QEMU has them open; a process killed before
 * that leaves gigabytes of RAM behind. Remove those of dead processes.
 */
static int cleanup_stale_backing(void)
{
	DIR *dir = opendir(VM_TMPFS_DIR);
	struct dirent *de;
	int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		const char *rest;
		char *end, *path;
		long pid;

		if (!skip_prefix(de->d_name, "mmci-", &rest) ||
		    !ends_with(de->d_name, ".nvdimm"))
			continue;
		pid = strtol(rest, &end, 10);
		if (end == rest || *end != '-' || pid == (long)getpid() ||
		    vm_owner_alive(pid))
			continue;
		path = xstrfmt("%s/%s", VM_TMPFS_DIR, de->d_name);
		if (unlink(path) == 0) {
			log_info("removed '%s' of dead pid %ld", path, pid);
			n++;
		}
		free(path);
	}
	closedir(dir);
	return n;
}

/*
 * On a staged host the owner pids in the metadata are of processes of
 * other machines, and its mmci domains all belong to live connections
 * (VIR_DOMAIN_START_AUTODESTROY): what can be left there are volumes.
 */
static int cleanup_staged(virConnectPtr conn)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn,
							    vm_pool_name());
	int n;

	if (!pool)
		return 0;
	n = vm_clean_volumes(conn, pool, NULL);
	virStoragePoolFree(pool);
	return n;
}

int vm_cleanup_stale(void)
{
	virConnectPtr conn;
	virDomainPtr *doms = NULL;
	int i, n, cleaned = 0;

	/* the root parent's guests end with their channels (priv.h) */
	if (!vm_staged() && priv_active())
		return cleanup_stale_backing();
	conn = vm_connect();
	if (!conn)
		return -1;
	if (vm_staged()) {
		cleaned = cleanup_staged(conn);
		virConnectClose(conn);
		return cleaned + cleanup_stale_backing();
	}
	n = virConnectListAllDomains(conn, &doms, 0);
	if (n < 0) {
		error("cannot list libvirt domains: %s",
		      virGetLastErrorMessage());
		virConnectClose(conn);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		long pid;

		if (!name || !starts_with(name, VM_NAME_PREFIX))
			goto next;
		pid = vm_owner_pid(doms[i]);
		if (vm_owner_alive(pid)) {
			log_debug("domain '%s' of running pid %ld kept", name,
				  pid);
			goto next;
		}
		if (virDomainIsActive(doms[i]) == 1 &&
		    virDomainDestroy(doms[i]) < 0 &&
		    vm_last_error_code() != VIR_ERR_NO_DOMAIN) {
			error("cannot destroy stale domain '%s': %s", name,
			      virGetLastErrorMessage());
			goto next;
		}
		if (virDomainIsPersistent(doms[i]) == 1 &&
		    virDomainUndefineFlags(doms[i], VM_UNDEFINE_ALL) < 0) {
			error("cannot undefine stale domain '%s': %s", name,
			      virGetLastErrorMessage());
			goto next;
		}
		log_info("removed stale domain '%s'", name);
		cleaned++;
next:
		virDomainFree(doms[i]);
	}
	free(doms);
	virConnectClose(conn);
	return cleaned + cleanup_stale_backing();
}
