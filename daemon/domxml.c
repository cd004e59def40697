// SPDX-License-Identifier: GPL-2.0
/*
 * domxml.c - what a test guest is made of: its libvirt domain XML, from
 * the template vm-images/domain.xml.in, and its sparse NVDIMM backing
 * file. No libvirt call, no parser: both mmci (vm.c) and the root parent
 * (mmci-priv, mmci-priv.c) link it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "arch.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"

/* --- the domain template ------------------------------------------- */

struct tvar {
	const char *name;
	const char *value;	/* NULL = not set (a false flag) */
};

static const struct tvar *tvar_find(const struct tvar *vars, size_t nr,
				    const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (strlen(vars[i].name) == len &&
		    !memcmp(vars[i].name, name, len))
			return &vars[i];
	return NULL;
}

/* XML 1.0 allows no control characters but tab, newline and return */
static int xml_escape(struct strbuf *out, const char *s, const char *what)
{
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '\'':
			strbuf_addstr(out, "&apos;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				return error("control character 0x%02x in %s",
					     c, what);
			strbuf_addch(out, c);
		}
	}
	return 0;
}

static int is_var_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* length of a variable name at s, up to the closing '@'; 0 if none */
static size_t var_name_len(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && is_var_char(*p))
		p++;
	return p > s && p < end && *p == '@' ? (size_t)(p - s) : 0;
}

static int expand_line(const char *line, size_t len, const struct tvar *vars,
		       size_t nr, struct strbuf *out)
{
	const char *p = line, *end = line + len;

	while (p < end) {
		const char *at = memchr(p, '@', end - p);
		const struct tvar *v;
		size_t n;

		if (!at) {
			strbuf_add(out, p, end - p);
			break;
		}
		strbuf_add(out, p, at - p);
		n = var_name_len(at + 1, end);
		if (!n) {
			strbuf_addch(out, '@');
			p = at + 1;
			continue;
		}
		v = tvar_find(vars, nr, at + 1, n);
		if (!v)
			return error("unknown template variable '%.*s'", (int)n,
				     at + 1);
		if (!v->value)
			return error("template variable '%s' is not set",
				     v->name);
		if (xml_escape(out, v->value, v->name) < 0)
			return -1;
		p = at + 1 + n + 1;
	}
	return 0;
}

#define TEMPLATE_MAX_DEPTH 8

static int expand_template(const char *tmpl, const struct tvar *vars,
			   size_t nr, struct strbuf *out)
{
	int active[TEMPLATE_MAX_DEPTH + 1] = { 1 };
	int depth = 0, lineno = 0;
	const char *p = tmpl;

	while (*p) {
		const char *eol = strchrnul(p, '\n');
		const char *s = p, *name;
		size_t len = eol - p;

		lineno++;
		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		if (skip_prefix(s, "@#", &name)) {
			/* comment */
		} else if (skip_prefix(s, "@if ", &name)) {
			size_t n = var_name_len(name, eol);
			const struct tvar *v = NULL;

			if (n)
				v = tvar_find(vars, nr, name, n);
			if (!n || name + n + 1 != eol)
				return error("template line %d: malformed @if@",
					     lineno);
			if (!v)
				return error("template line %d: unknown flag '%.*s'",
					     lineno, (int)n, name);
			if (depth == TEMPLATE_MAX_DEPTH)
				return error("template line %d: @if@ nested too deep",
					     lineno);
			depth++;
			active[depth] = active[depth - 1] && v->value;
		} else if (starts_with(s, "@endif@")) {
			if (s + strlen("@endif@") != eol)
				return error("template line %d: malformed @endif@",
					     lineno);
			if (!depth)
				return error("template line %d: @endif@ without @if@",
					     lineno);
			depth--;
		} else if (active[depth]) {
			if (expand_line(p, len, vars, nr, out) < 0)
				return error("in template line %d", lineno);
			strbuf_addch(out, '\n');
		}
		p = *eol ? eol + 1 : eol;
	}
	if (depth)
		return error("template ends inside @if@");
	return 0;
}

char *vm_absolute_path(const char *path)
{
	char *cwd, *ret;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		die_errno("cannot get the current directory");
	ret = xstrfmt("%s/%s", cwd, path);
	free(cwd);
	return ret;
}

static int check_name(const char *name)
{
	const char *p;

	if (!name || !starts_with(name, VM_NAME_PREFIX) ||
	    !name[strlen(VM_NAME_PREFIX)])
		return error("domain name '%s' does not start with '%s'",
			     name ? name : "", VM_NAME_PREFIX);
	if (strlen(name) > 64)
		return error("domain name '%s' is too long", name);
	for (p = name; *p; p++)
		if (!(is_var_char(*p) || (*p >= 'a' && *p <= 'z') ||
		      *p == '-' || *p == '.'))
			return error("domain name '%s' has invalid character '%c'",
				     name, *p);
	return 0;
}

static int check_spec(const struct vm_spec *spec)
{
	if (check_name(spec->name) < 0)
		return -1;
	if (!spec->kernel || !*spec->kernel)
		return error("no kernel given for domain '%s'", spec->name);
	if (!spec->console_log || !spec->results_log)
		return error("domain '%s' needs a console and a results log",
			     spec->name);
	if (spec->nvdimm_path && !spec->nvdimm_mib)
		return error("nvdimm '%s' has size 0", spec->nvdimm_path);
	if (!spec->nvdimm_path && spec->nvdimm_mib)
		return error("nvdimm of %llu MiB has no backing file",
			     spec->nvdimm_mib);
	if (spec->virtio_mem_max_mib % 2)
		return error("virtio-mem size %llu MiB is not a multiple of the 2 MiB block",
			     spec->virtio_mem_max_mib);
	if (spec->icount && spec->kvm)
		return error("icount needs TCG, domain '%s' asks for KVM",
			     spec->name);
	if (spec->arch && arch_firmware(spec->arch) && !spec->nvram_path)
		return error("domain '%s' (%s) needs a path for its UEFI "
			     "variables", spec->name, spec->arch->name);
	return 0;
}

int vm_domain_xml(const struct vm_spec *spec, const char *tmpl,
		  struct strbuf *out)
{
	unsigned int vcpus = spec->vcpus ? spec->vcpus :
			     spec->icount ? 1 : VM_DEFAULT_VCPUS;
	unsigned long long ram = spec->ram_mib ? spec->ram_mib :
						 VM_DEFAULT_RAM_MIB;
	unsigned long long nvdimm = spec->nvdimm_path ? spec->nvdimm_mib : 0;
	char vcpus_s[16], last_cpu[16], ram_s[24], maxmem[24], nvdimm_s[24];
	char label_s[16], vmem_s[24], pid_s[16], pin0[16], pin1[16];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *kernel = NULL, *initrd = NULL, *console = NULL, *results = NULL;
	char *backing = NULL, *nvram = NULL;
	const struct arch *a = spec->arch ? spec->arch : arch_get(NULL);
	const int arm64 = !strcmp(a->kernel_arch, "arm64");
	int ret = -1;

	if (check_spec(spec) < 0)
		return -1;
	if (spec->icount && vcpus > 1)
		log_warnx("domain '%s': icount with %u vCPUs hung in SMP bring-up with QEMU 7.2",
			  spec->name, vcpus);
	if (spec->pin && (vcpus > 2 || ncpu < (long)vcpus))
		return error("domain '%s': pinning takes 1 or 2 vCPUs and as "
			     "many host CPUs (%u vCPUs, %ld CPUs)", spec->name,
			     vcpus, ncpu);

	kernel = vm_absolute_path(spec->kernel);
	initrd = spec->initrd ? vm_absolute_path(spec->initrd) : NULL;
	console = vm_absolute_path(spec->console_log);
	results = vm_absolute_path(spec->results_log);
	backing = spec->nvdimm_path ? vm_absolute_path(spec->nvdimm_path) : NULL;
	nvram = arm64 ? vm_absolute_path(spec->nvram_path) : NULL;

	xsnprintf(vcpus_s, sizeof(vcpus_s), "%u", vcpus);
	xsnprintf(last_cpu, sizeof(last_cpu), "%u", vcpus - 1);
	xsnprintf(ram_s, sizeof(ram_s), "%llu", ram);
	xsnprintf(maxmem, sizeof(maxmem), "%llu",
		  ram + nvdimm + spec->virtio_mem_max_mib);
	xsnprintf(nvdimm_s, sizeof(nvdimm_s), "%llu", nvdimm);
	xsnprintf(label_s, sizeof(label_s), "%u", spec->nvdimm_label_kib);
	xsnprintf(vmem_s, sizeof(vmem_s), "%llu", spec->virtio_mem_max_mib);
	xsnprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	/* vCPU i on host CPU ncpu - vcpus + i: the last ones, away from 0 */
	xsnprintf(pin0, sizeof(pin0), "%ld", ncpu - (long)vcpus);
	xsnprintf(pin1, sizeof(pin1), "%ld", ncpu - (long)vcpus + 1);

	{
		const int hotplug = backing || spec->virtio_mem_max_mib;
		const struct tvar vars[] = {
			{ "NAME", spec->name },
			{ "DOMAIN_TYPE", spec->kvm ? "kvm" : "qemu" },
			{ "VCPUS", vcpus_s },
			{ "LAST_CPU", last_cpu },
			{ "RAM_MIB", ram_s },
			{ "MAXMEM_MIB", hotplug ? maxmem : NULL },
			{ "KERNEL", kernel },
			{ "INITRD", initrd },
			{ "CMDLINE", spec->cmdline ? spec->cmdline : "" },
			{ "CONSOLE_LOG", console },
			{ "RESULTS_LOG", results },
			{ "CPU_MODEL", spec->cpu_model ? spec->cpu_model :
							 a->cpu_model },
			{ "ARCH", a->qemu_arch },
			{ "MACHINE", a->machine },
			{ "LOADER", arch_firmware(a) },
			{ "NVRAM_TEMPLATE", arch_nvram_template(a) },
			{ "NVRAM_PATH", nvram },
			{ "NVDIMM_PATH", backing },
			{ "NVDIMM_MIB", backing ? nvdimm_s : NULL },
			{ "NVDIMM_LABEL_KIB", spec->nvdimm_label_kib ? label_s :
								       NULL },
			{ "VIRTIO_MEM_MIB", spec->virtio_mem_max_mib ? vmem_s :
									NULL },
			{ "PID", pid_s },
			{ "METADATA_NS", VM_METADATA_NS },
			/* flags */
			{ "HOTPLUG", hotplug ? "1" : NULL },
			{ "KVM", spec->kvm ? "1" : NULL },
			{ "TCG", spec->kvm ? NULL : "1" },
			{ "NVDIMM", backing ? "1" : NULL },
			{ "NVDIMM_LABEL", backing && spec->nvdimm_label_kib ?
						  "1" : NULL },
			{ "VIRTIO_MEM", spec->virtio_mem_max_mib ? "1" : NULL },
			{ "ICOUNT", spec->icount ? "1" : NULL },
			{ "PLUGIN", spec->kvm ? NULL : spec->plugin },
			{ "QEMU_ARGS", spec->icount || (!spec->kvm &&
							spec->plugin) ? "1" :
									NULL },
			{ "PIN", spec->pin ? "1" : NULL },
			{ "PIN_CPU0", spec->pin ? pin0 : NULL },
			{ "PIN_CPU1", spec->pin && vcpus > 1 ? pin1 : NULL },
			{ "PIN1", spec->pin && vcpus > 1 ? "1" : NULL },
			{ "SERIAL_FILE", spec->streams ? NULL : "1" },
			{ "SERIAL_PTY", spec->streams ? "1" : NULL },
			{ "X86", arm64 ? NULL : "1" },
			{ "ARM64", arm64 ? "1" : NULL },
		};

		ret = expand_template(tmpl, vars, ARRAY_SIZE(vars), out);
	}

	free(kernel);
	free(initrd);
	free(console);
	free(results);
	free(backing);
	free(nvram);
	return ret;
}

/* --- backing files and leftovers --------------------------------------- */

int vm_create_backing(const char *path, unsigned long long mib)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_errno("cannot create nvdimm backing file '%s'",
				   path);
	/* drop old blocks first: each boot starts from a sparse file */
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)(mib << 20)) < 0) {
		error_errno("cannot size nvdimm backing file '%s' to %llu MiB",
			    path, mib);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return error_errno("cannot close nvdimm backing file '%s'",
				   path);
	return 0;
}

const char *vm_backing_kind(const char *path)
{
	struct statfs sfs;

	if (statfs(path, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC)
		return "tmpfs";
	return "disk";
}
