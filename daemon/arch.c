// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c - the guest architectures: what building and booting each takes.
 */
#include <sys/utsname.h>

#include "arch.h"
#include "strbuf.h"
#include "util.h"

#define AAVMF_CODE "/usr/share/AAVMF/AAVMF_CODE.fd"
#define AAVMF_VARS "/usr/share/AAVMF/AAVMF_VARS.fd"
#define ARM64_DIR_DEFAULT "/usr/local/lib/mmci/arm64"

/*
 * What both arm64 arches share. cortex-a57: a stated model, fast under
 * TCG (`max` emulates every optional feature and is slow); it has no
 * LPA2, so 4 KiB pages give a 48-bit VA.
 */
#define ARM64_GUEST                                                    \
	.kernel_arch = "arm64", .cross = "aarch64-linux-gnu-",           \
	.image_target = "Image", .image_path = "arch/arm64/boot/Image",  \
	.qemu_arch = "aarch64",                                          \
	.qemu_binary = "/usr/bin/qemu-system-aarch64",                   \
	.machine = "virt", .cpu_model = "cortex-a57",                    \
	.console = "ttyAMA0", .results = "/dev/hvc0",                    \
	.runner = "runner/mmci-runner-arm64",                            \
	/* results on hvc0: a module in Debian's kernels */              \
	.modules = "virtio_console",                                     \
	.normal_ram_mib = 4096

static const struct arch arches[] = {
	{
		.name = "x86_64", .kernel_arch = "x86", .cross = "",
		.image_target = "bzImage",
		.image_path = "arch/x86/boot/bzImage",
		.qemu_arch = "x86_64",
		.qemu_binary = "/usr/bin/qemu-system-x86_64",
		.machine = "q35", .cpu_model = "qemu64",
		.console = "ttyS0", .results = "/dev/ttyS1",
		.runner = "runner/mmci-runner", .page_kib = 4,
		.normal_ram_mib = 3072,
	},
	{
		.name = "arm64", ARM64_GUEST, .page_kib = 4,
		.fragments = { "arm64.config" },
	},
	{
		.name = "arm64-64k", ARM64_GUEST, .page_kib = 64,
		.fragments = { "arm64.config", "arm64-64k.config" },
	},
};

const struct arch *arch_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		name = ARCH_DEFAULT;
	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const struct arch *arch_get(const char *name)
{
	const struct arch *a = arch_find(name);

	if (!a)
		error("unknown arch '%s' (%s)", name, ARCH_NAMES);
	return a;
}

int arch_native(const struct arch *a)
{
	struct utsname u;

	if (uname(&u) < 0)
		return 0;
	return !strcmp(u.machine, a->qemu_arch);
}

const char *arch_firmware(const struct arch *a)
{
	return strcmp(a->kernel_arch, "arm64") ? NULL : AAVMF_CODE;
}

const char *arch_nvram_template(const struct arch *a)
{
	return strcmp(a->kernel_arch, "arm64") ? NULL : AAVMF_VARS;
}

const char *arch_busybox(const struct arch *a)
{
	static char *arm64;
	const char *dir;

	if (strcmp(a->kernel_arch, "arm64"))
		return "/bin/busybox";
	if (!arm64) {
		dir = getenv("MMCI_ARM64_DIR");
		arm64 = xstrfmt("%s/busybox", dir && *dir ? dir :
					      ARM64_DIR_DEFAULT);
	}
	return arm64;
}

char *arch_fragment(const struct arch *a, size_t i, const char *project_dir)
{
	if (i >= ARRAY_SIZE(a->fragments) || !a->fragments[i])
		return NULL;
	return xstrfmt("%s/kernel-patches/config/%s", project_dir,
		       a->fragments[i]);
}

char *arch_skip_options(const struct arch *a, const char *project_dir)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;
	char *p;

	strbuf_addch(&out, ' ');
	for (i = 0; (p = arch_fragment(a, i, project_dir)); i++) {
		struct strbuf f = STRBUF_INIT;
		char *line, *save = NULL;

		if (strbuf_read_file(&f, p, 0) >= 0)
			for (line = strtok_r(f.buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				const char *v;

				if (!skip_prefix(line, "# mmci-arch-skip:", &v))
					continue;
				while (*v == ' ' || *v == '\t')
					v++;
				strbuf_addstr(&out, v);
				strbuf_addch(&out, ' ');
			}
		strbuf_release(&f);
		free(p);
	}
	return strbuf_detach(&out, NULL);
}

char *arch_fix_align(const struct arch *a, const char *what,
		     const char *list)
{
	struct strbuf out = STRBUF_INIT, said = STRBUF_INIT;
	char *copy, *tok, *save = NULL;

	if (a->page_kib != 64 || !list)
		return NULL;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long b = 0;
		const char *to = tok;

		if (parse_size(tok, &b) < 0)
			to = tok;	/* run.c's checks name it */
		else if (b < 64 << 10)
			to = "64K";
		else if (b == 2ULL << 20)
			to = "512M";
		else if (b == 1ULL << 30)
			to = NULL;
		if (to != tok)
			strbuf_addf(&said, "%s %s%s", said.len ? "," : "", tok,
				    to ? " -> " : " dropped");
		if (to != tok && to)
			strbuf_addstr(&said, to);
		if (to && !has_word(out.buf, to))
			strbuf_addf(&out, "%s%s", out.len ? "," : "", to);
	}
	free(copy);
	if (!said.len) {
		strbuf_release(&out);
		strbuf_release(&said);
		return NULL;
	}
	warning("%s alignment on %s:%s: a 64 KiB-page kernel takes only 64K "
		"(the page) and 512M (the PMD); it refuses 2M with EINVAL "
		"and has no 1G mapping", what, a->name, said.buf);
	if (!out.len)
		strbuf_addstr(&out, "512M");
	strbuf_release(&said);
	return strbuf_detach(&out, NULL);
}
