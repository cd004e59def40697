// SPDX-License-Identifier: GPL-2.0
/*
 * test-arch.c - the guest arches (daemon/arch.c): lookup, what each
 * builds and boots with, the alignments a 64 KiB-page kernel takes, and
 * the fragment options arm64.config says do not exist there.
 *
 * Runs from the top of the tree, as "make test" does.
 */
#include "arch.h"
#include "strbuf.h"
#include "util.h"

#include "tap.h"

static void test_lookup(void)
{
	const struct arch *x = arch_get(NULL), *a = arch_get("arm64");
	const struct arch *k = arch_get("arm64-64k");

	ok(x && !strcmp(x->name, "x86_64"), "the default is x86_64");
	ok(arch_get("") == x, "an empty name is the default");
	ok(a && k && a != k, "arm64 and arm64-64k are two arches");
	ok(!arch_find("riscv64"), "riscv64: none");
	ok(!arch_get("arm"), "arm: none, with an error");
	is_str(last_error(), "unknown arch 'arm' (x86_64, arm64 (4 KiB pages) "
	       "or arm64-64k (64 KiB pages))", "the error names the arches");
	if (!a || !k || !x)
		return;
	is_str(x->cross, "", "x86_64: native gcc");
	is_str(a->cross, "aarch64-linux-gnu-", "arm64: the cross compiler");
	is_str(a->image_target, "Image", "arm64: make Image");
	is_str(x->image_path, "arch/x86/boot/bzImage", "x86_64: bzImage");
	is_int((int)a->page_kib, 4, "arm64: 4 KiB pages");
	is_int((int)k->page_kib, 64, "arm64-64k: 64 KiB pages");
	ok(!x->fragments[0], "x86_64 merges no fragment of its own");
	is_str(k->fragments[1], "arm64-64k.config",
	       "arm64-64k: arm64.config, then arm64-64k.config");
	is_str(a->results, "/dev/hvc0", "arm64 results on the virtio console");
	is_str(a->console, "ttyAMA0", "arm64 console on the PL011");
	is_str(a->machine, "virt", "virt machine");
	is_str(a->cpu_model, "cortex-a57", "a stated CPU model");
	ok(!arch_firmware(x), "x86_64: no firmware");
	is_str(arch_firmware(a), "/usr/share/AAVMF/AAVMF_CODE.fd",
	       "arm64: AAVMF");
	ok(arch_native(x), "this x86_64 host is x86_64's own");
	ok(!arch_native(a), "arm64 is not");
}

static void test_align(void)
{
	static const struct {
		const char *in, *out, *why;
	} fix[] = {
		{ "4K,2M,1G", "64K,512M",
		  "64 KiB pages: 4K -> 64K, 2M -> 512M, 1G gone" },
		{ "2M", "512M", "2M alone: 512M" },
		{ "512M,2M", "512M", "2M beside 512M: once" },
		{ "1G", "512M", "1G alone: the PMD size" },
	};
	const struct arch *a = arch_get("arm64"), *k = arch_get("arm64-64k");
	size_t i;
	char *s;

	ok(!arch_fix_align(a, "fsdax", "4K,2M,1G"),
	   "4 KiB pages: every alignment as asked");
	for (i = 0; i < ARRAY_SIZE(fix); i++) {
		s = arch_fix_align(k, "devdax", fix[i].in);
		is_str(s, fix[i].out, fix[i].why);
		free(s);
	}
	ok(!arch_fix_align(k, "fsdax", "64K,512M"), "allowed ones: unchanged");
}

static void test_skip(void)
{
	char *x = arch_skip_options(arch_get("x86_64"), ".");
	char *a = arch_skip_options(arch_get("arm64-64k"), ".");

	is_str(x, " ", "x86_64 skips nothing");
	ok(strstr(a, " CONFIG_KERNEL_GZIP ") && strstr(a, " CONFIG_HPET_TIMER ")
	   && strstr(a, " CONFIG_X86_PM_TIMER ") &&
	   strstr(a, " CONFIG_X86_64_ACPI_NUMA "),
	   "arm64 skips mmci.config's four x86 options");
	ok(!strstr(a, " CONFIG_ACPI "), "and nothing else of it");
	free(x);
	free(a);
}

int main(void)
{
	test_lookup();
	test_align();
	test_skip();
	return done_testing();
}
