// SPDX-License-Identifier: GPL-2.0
/*
 * test-vm.c - the domain XML generation of daemon/vm.c, without libvirt.
 *
 * Runs from the top of the tree (as "make test" does) to read the real
 * template vm-images/domain.xml.in; MMCI_TEMPLATE overrides the path.
 */
#include <unistd.h>

#include "arch.h"
#include "strbuf.h"
#include "util.h"
#include "vm.h"

#include "tap.h"

static struct strbuf tmpl = STRBUF_INIT;

static struct vm_spec base_spec(void)
{
	struct vm_spec spec = {
		.name = "mmci-test-1",
		.kernel = "/boot/vmlinuz",
		.initrd = "/tmp/initrd.gz",
		.cmdline = "console=ttyS0 panic=-1",
		.console_log = "/tmp/console.log",
		.results_log = "/tmp/results.log",
		.nvdimm_path = "/dev/shm/nv",
		.nvdimm_mib = 4096,
		.virtio_mem_max_mib = 8192,
		.timeout_s = 60,
	};
	return spec;
}

static int has(const struct strbuf *sb, const char *needle)
{
	return strstr(sb->buf, needle) != NULL;
}

/* expand @spec with @text; the XML stays in @out */
static int gen(const struct vm_spec *spec, const char *text,
	       struct strbuf *out)
{
	strbuf_reset(out);
	return vm_domain_xml(spec, text, out);
}

static void test_full(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	is_int(gen(&spec, tmpl.buf, &x), 0, "full spec expands");
	ok(has(&x, "<domain type='qemu' xmlns:qemu="), "TCG domain type");
	ok(has(&x, "<name>mmci-test-1</name>"), "name");
	ok(has(&x, "<maxMemory slots='16' unit='MiB'>13312</maxMemory>"),
	   "maxMemory = ram + nvdimm + virtio-mem");
	ok(has(&x, "<cell id='0' cpus='0-1' memory='1024' unit='MiB'/>"),
	   "default 2 vCPUs and 1024 MiB in NUMA cell 0");
	ok(has(&x, "<model fallback='forbid'>qemu64</model>"),
	   "default TCG CPU model");
	ok(has(&x, "<path>/dev/shm/nv</path>") && has(&x, "<pmem/>"),
	   "nvdimm with pmem");
	ok(!has(&x, "<label>\n"), "no nvdimm label by default");
	ok(has(&x, "<memory model='virtio-mem'>") &&
	   has(&x, "<size unit='MiB'>8192</size>"), "virtio-mem");
	ok(has(&x, "<source path='/tmp/console.log'/>") &&
	   has(&x, "<target type='isa-serial' port='1'/>"), "two serial ports");
	ok(has(&x, "<label>+0:+0</label>"), "runs QEMU as root");
	ok(!has(&x, "qemu:commandline"), "no icount by default");
	ok(!has(&x, "@"), "no placeholder left");
	ok(!has(&x, "\n\n"), "no blank lines from directives");
	strbuf_release(&x);
}

static void test_plain_and_kvm(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	spec.nvdimm_path = NULL;
	spec.nvdimm_mib = 0;
	spec.virtio_mem_max_mib = 0;
	spec.initrd = NULL;
	spec.kvm = 1;
	spec.vcpus = 4;
	spec.ram_mib = 2048;
	is_int(gen(&spec, tmpl.buf, &x), 0, "plain KVM spec expands");
	ok(!has(&x, "maxMemory"), "no maxMemory without hotplug devices");
	ok(!has(&x, "<memory model="), "no memory devices");
	ok(!has(&x, "<initrd>"), "no initrd");
	ok(has(&x, "<domain type='kvm'"), "KVM domain type");
	ok(has(&x, "<cpu mode='host-passthrough'"), "KVM host-passthrough");
	ok(!has(&x, "<model fallback"), "no CPU model with KVM");
	ok(has(&x, "cpus='0-3' memory='2048'"), "4 vCPUs, 2048 MiB");
	strbuf_release(&x);
}

/* a remote host: both serial ports are ptys, read as libvirt streams */
static void test_streams(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	ok(has(&tmpl, "<serial type='file'>"), "the template has file ports");
	spec.streams = 1;
	is_int(gen(&spec, tmpl.buf, &x), 0, "streamed spec expands");
	ok(!has(&x, "<serial type='file'>") && !has(&x, "console.log"),
	   "no host file named with streams");
	ok(has(&x, "<serial type='pty'>\n      <target type='isa-serial' "
	       "port='0'/>") &&
	   has(&x, "<serial type='pty'>\n      <target type='isa-serial' "
	       "port='1'/>"), "two pty ports, 0 and 1");
	spec.streams = 0;
	is_int(gen(&spec, tmpl.buf, &x), 0, "file spec expands");
	ok(!has(&x, "type='pty'"), "no pty without streams");
	strbuf_release(&x);
}

/* an arm64 guest: virt, UEFI with its variables, GICv3, PL011 + hvc0 */
static void test_arm64(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	spec.arch = arch_get("arm64-64k");
	spec.icount = 1;
	is_int(gen(&spec, tmpl.buf, &x), -1, "arm64 without a variable store "
	       "is refused");
	spec.nvram_path = "/tmp/vars.fd";
	is_int(gen(&spec, tmpl.buf, &x), 0, "arm64 spec expands");
	ok(has(&x, "<type arch='aarch64' machine='virt'>hvm</type>"),
	   "aarch64 virt machine");
	ok(has(&x, "<loader readonly='yes' type='pflash'>"
	       "/usr/share/AAVMF/AAVMF_CODE.fd</loader>") &&
	   has(&x, "<nvram template='/usr/share/AAVMF/AAVMF_VARS.fd'>"
	       "/tmp/vars.fd</nvram>"), "UEFI code and its variables");
	ok(has(&x, "<gic version='3'/>"), "GICv3");
	ok(has(&x, "<model fallback='forbid'>cortex-a57</model>") &&
	   !has(&x, "pdpe1gb"), "cortex-a57, no x86 feature");
	ok(has(&x, "<model name='pl011'/>") &&
	   has(&x, "<source path='/tmp/console.log'/>"), "console on PL011");
	ok(has(&x, "<console type='file'>\n      <source path="
	       "'/tmp/results.log'/>\n      <target type='virtio'/>"),
	   "results on a virtio console");
	ok(!has(&x, "isa-serial"), "no ISA serial port");
	ok(has(&x, "<memory model='nvdimm'"), "the NVDIMM");
	ok(has(&x, "-icount"), "icount");
	ok(!has(&x, "@") && !has(&x, "\n\n"), "no placeholder, no blank line");
	/* a staged host: the ports are ptys read as streams (vm_stage()) */
	spec.streams = 1;
	spec.nvram_path = "/var/lib/libvirt/mmci/mmci-t.vars";
	is_int(gen(&spec, tmpl.buf, &x), 0, "arm64 on a staged host expands");
	ok(has(&x, "<serial type='pty'>\n      <target type='system-serial' "
	       "port='0'>\n        <model name='pl011'/>") &&
	   has(&x, "<console type='pty'>\n      <target type='virtio'/>"),
	   "staged arm64: PL011 and virtio console on ptys");
	ok(!has(&x, "isa-serial") && !has(&x, "type='file'"),
	   "staged arm64: no ISA port, no host file");
	ok(has(&x, ">/var/lib/libvirt/mmci/mmci-t.vars</nvram>"),
	   "staged arm64: the variables are the pool's volume");
	spec.streams = 0;
	spec.nvram_path = "/tmp/vars.fd";
	/* an aarch64 host's KVM: its CPU and its GIC */
	spec.kvm = 1;
	spec.icount = 0;
	is_int(gen(&spec, tmpl.buf, &x), 0, "arm64 KVM spec expands");
	ok(has(&x, "<domain type='kvm'") &&
	   has(&x, "<cpu mode='host-passthrough'") &&
	   has(&x, "<gic version='host'/>") && !has(&x, "<gic version='3'/>") &&
	   !has(&x, "cortex-a57"), "arm64 KVM: host CPU and GIC");
	ok(has(&x, "<type arch='aarch64' machine='virt'>hvm</type>") &&
	   has(&x, "AAVMF_CODE.fd"), "arm64 KVM: virt with UEFI");
	spec.kvm = 0;
	spec.icount = 1;
	spec.arch = arch_get("x86_64");
	is_int(gen(&spec, tmpl.buf, &x), 0, "x86_64 spec expands");
	ok(has(&x, "<type arch='x86_64' machine='q35'>hvm</type>") &&
	   !has(&x, "<loader") && !has(&x, "<gic") && !has(&x, "pl011"),
	   "x86_64: q35, no firmware, no GIC, no PL011");
	strbuf_release(&x);
}

static void test_remote_uris(void)
{
	static const char *const remote[] = {
		"qemu+tcp://127.0.0.1:16509/system", "qemu+ssh://root@h/system",
		"qemu+tls://h.example.org/system", "qemu://h/system",
	};
	static const char *const local[] = {
		"qemu:///system", "qemu:///session",
		"qemu+unix:///system?socket=/run/x.sock", "test:///default",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(remote); i++)
		ok(vm_uri_is_remote(remote[i]), remote[i]);
	for (i = 0; i < ARRAY_SIZE(local); i++)
		ok(!vm_uri_is_remote(local[i]), local[i]);
}

static void test_icount_and_label(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	spec.icount = 1;
	spec.nvdimm_label_kib = 128;
	is_int(gen(&spec, tmpl.buf, &x), 0, "icount spec expands");
	ok(has(&x, "<qemu:arg value='-icount'/>") &&
	   has(&x, "<qemu:arg value='shift=0,sleep=off'/>"), "icount args");
	ok(has(&x, "<vcpu>1</vcpu>") && has(&x, "cpus='0-0'"),
	   "icount defaults to 1 vCPU");
	ok(has(&x, "<size unit='KiB'>128</size>"), "nvdimm label");

	spec.kvm = 1;
	is_int(gen(&spec, tmpl.buf, &x), -1, "icount with KVM is refused");
	strbuf_release(&x);
}

static void test_pinning(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char want[64];

	spec.pin = 1;
	spec.vcpus = 1;
	is_int(gen(&spec, tmpl.buf, &x), 0, "a pinned 1-vCPU spec expands");
	xsnprintf(want, sizeof(want), "<vcpupin vcpu='0' cpuset='%ld'/>",
		  ncpu - 1);
	ok(has(&x, want), "vCPU 0 on the last host CPU");
	ok(!has(&x, "vcpu='1'"), "no second vcpupin");
	spec.vcpus = 3;
	is_int(gen(&spec, tmpl.buf, &x), -1, "3 pinned vCPUs are refused");
	spec.pin = 0;
	is_int(gen(&spec, tmpl.buf, &x), 0, "unpinned expands");
	ok(!has(&x, "cputune"), "no cputune unpinned");
	strbuf_release(&x);
}

static void test_escaping_and_paths(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;
	char *cwd = getcwd(NULL, 0), *want;

	spec.cmdline = "a<b & c>'d\"";
	spec.console_log = "out/console.log";
	is_int(gen(&spec, tmpl.buf, &x), 0, "odd cmdline expands");
	ok(has(&x, "<cmdline>a&lt;b &amp; c&gt;&apos;d&quot;</cmdline>"),
	   "cmdline is XML-escaped");
	want = xstrfmt("<source path='%s/out/console.log'/>", cwd);
	ok(has(&x, want), "relative log path made absolute");
	free(want);
	free(cwd);

	spec.cmdline = "bad\001char";
	is_int(gen(&spec, tmpl.buf, &x), -1, "control character refused");
	strbuf_release(&x);
}

static void test_bad_specs(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	spec.name = "test-1";
	is_int(gen(&spec, tmpl.buf, &x), -1, "name without mmci- refused");
	spec.name = "mmci-a b";
	is_int(gen(&spec, tmpl.buf, &x), -1, "name with a space refused");
	spec = base_spec();
	spec.nvdimm_mib = 0;
	is_int(gen(&spec, tmpl.buf, &x), -1, "nvdimm of size 0 refused");
	spec = base_spec();
	spec.virtio_mem_max_mib = 1023;
	is_int(gen(&spec, tmpl.buf, &x), -1, "odd virtio-mem size refused");
	spec = base_spec();
	spec.kernel = NULL;
	is_int(gen(&spec, tmpl.buf, &x), -1, "missing kernel refused");
	strbuf_release(&x);
}

static void test_template_syntax(void)
{
	struct vm_spec spec = base_spec();
	struct strbuf x = STRBUF_INIT;

	is_int(gen(&spec, "a @NAME@ b@\n", &x), 0, "inline variable");
	is_str(x.buf, "a mmci-test-1 b@\n", "lone @ kept");
	is_int(gen(&spec, "@if KVM@\nk\n@endif@\n@if TCG@\nt\n@endif@\n", &x),
	       0, "flags");
	is_str(x.buf, "t\n", "only the TCG block");
	is_int(gen(&spec, "@if TCG@\n@if KVM@\nx\n@endif@\ny\n@endif@\n", &x),
	       0, "nested blocks");
	is_str(x.buf, "y\n", "inner false block dropped");
	is_int(gen(&spec, "@# comment\nz\n", &x), 0, "comment line");
	is_str(x.buf, "z\n", "comment dropped");
	is_int(gen(&spec, "@NOPE@\n", &x), -1, "unknown variable refused");
	is_int(gen(&spec, "@if TCG@\n", &x), -1, "unclosed @if@ refused");
	is_int(gen(&spec, "@endif@\n", &x), -1, "stray @endif@ refused");
	spec.kvm = 1;
	spec.icount = 0;
	is_int(gen(&spec, "@CPU_MODEL@ @NVDIMM_LABEL_KIB@\n", &x), -1,
	       "unset variable refused");
	strbuf_release(&x);
}

/* the first-line deadline counts the guest's own lines, not firmware's */
static void test_console_started(void)
{
	static const char *const firmware[] = {
		"",
		"SeaBIOS (version 1.16.2-debian-1.16.2-1)\r\n",
		"Booting from ROM..\r\n",
		"iPXE (http://ipxe.org) 00:02.0 C000 PCI2.10 PnP PMM+\n",
		"BdsDxe: loading Boot0001 \"UEFI Misc Device\"\r\n"
		"BdsDxe: starting Boot0001\r\n",
		"[0x1000] not a time stamp\n",
		"[   12.] half a time stamp\n",
		"xmmci: not at the start of a line\n",
	};
	static const char *const guest[] = {
		"[    0.000000] Linux version 6.12.57 (gcc 12.2.0)\n",
		"mmci: init start\n",
		"SeaBIOS (version 1.16.2)\r\nBooting from ROM..\r\n"
		"\rmmci: init start\r\n",
		"EFI stub: Booting Linux Kernel...\n",
		"[   12.345678] virtio_mem virtio0: start address: 0x140000000\n",
		"Kernel panic - not syncing: VFS: Unable to mount root fs\n",
		"Booting Linux on physical CPU 0x0000000000 [0x411fd070]\n",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(firmware); i++)
		ok(!vm_console_started(firmware[i]),
		   "firmware output is not the guest's first line");
	for (i = 0; i < ARRAY_SIZE(guest); i++)
		ok(vm_console_started(guest[i]),
		   "a kernel or initramfs line is the guest's first line");
}

int main(void)
{
	const char *path = getenv("MMCI_TEMPLATE");

	if (!path)
		path = VM_DEFAULT_TEMPLATE;
	if (strbuf_read_file(&tmpl, path, 0) < 0) {
		printf("1..0 # skip cannot read '%s'\n", path);
		return 0;
	}
	log_verbosity = 0;
	test_full();
	test_plain_and_kvm();
	test_icount_and_label();
	test_streams();
	test_arm64();
	test_remote_uris();
	test_escaping_and_paths();
	test_pinning();
	test_bad_specs();
	test_template_syntax();
	test_console_started();
	strbuf_release(&tmpl);
	return done_testing();
}
