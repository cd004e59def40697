#!/bin/sh
# t0360-arm64-cloud: an arm64 guest without a cross-build (docs/ARM64.md).
# Debian's cloud-arm64 kernel, which make setup unpacks beside the arm64
# busybox, boots through libvirt on QEMU's virt machine with UEFI (AAVMF),
# GICv3 and cortex-a57, in icount mode; the arm64 runner plugs and
# unplugs virtio-mem and writes its results to the virtio console. The
# run records its arch; an x86_64 run of the same workload is never
# compared with it; what an arm64 run lacks is named before anything
# boots. The same guest then boots on a remote libvirt host
# (tests/lib-libvirtd2.sh): its UEFI variables go up into the host's pool
# as a volume and both its ports (PL011 and virtio console) come back as
# libvirt streams (the variables, zeros, as a sparse stream: holes, not
# bytes); a host without the arm64 firmware is named by `mmci
# hosts` and refused before anything is uploaded. An aarch64 host with
# KVM (played under test seams) gets a trial boot of the arm64 kernel and
# then KVM. About 1.5 min (five boots of 6-16 s). tests/long/t1200-arm64.sh cross-builds mmci's own arm64
# kernels and measures the NVDIMM there.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/lib-libvirtd2.sh"
export MMCI_ACCEL=tcg

# e_machine of an ELF file, as hex bytes: b700 is aarch64, 3e00 x86-64
elf_machine() { od -An -tx1 -j18 -N2 "$1" | tr -d " "; }

need_libvirt
ARM64_DIR=${MMCI_ARM64_DIR:-/usr/local/lib/mmci/arm64}
A64_KERNEL=$(ls "$ARM64_DIR"/cloud/boot/vmlinuz-*-cloud-arm64 2>/dev/null |
	sort -V | tail -n 1)
[ -n "$A64_KERNEL" ] ||
	skip_all "no $ARM64_DIR/cloud/boot/vmlinuz-*-cloud-arm64 (run make setup)"
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
A64_REL=${A64_KERNEL##*/vmlinuz-}
command -v unshare > /dev/null || skip_all "no unshare (util-linux)"

# two remote hosts, which see nothing of the checkout
H2="$TRASH/host2"
H3="$TRASH/host3"
libvirtd2_hosts "$H2" "$H3"

vmem() {
	"$MMCI" run --workloads virtio-mem --nvdimm 1G --vmem-sizes 512M \
		--hotplug-iters 1 "$@"
}

test_expect 'an unknown arch is refused by every measuring command' '
	for cmd in "run --kernel $A64_KERNEL" "build debian-6.12" \
		"test-series x.mbox --base debian-6.12"; do
		set +e; "$MMCI" $cmd --arch sparc64 > out 2> err; rc=$?; set -e
		cat err && [ $rc = 129 ] &&
		grep -qx "error: unknown arch .sparc64. (x86_64, arm64 (4 KiB pages) or arm64-64k (64 KiB pages))" err ||
			exit 1
	done
'

test_expect 'without an arm64 busybox: refused before boot, the package named' '
	set +e; MMCI_ARM64_DIR=$PWD/nowhere vmem --kernel "$A64_KERNEL" \
		--modules-root "$ARM64_DIR/cloud" --arch arm64 > out 2> err
	rc=$?; set -e; cat err &&
	[ $rc = 1 ] &&
	grep -qx "error: arch arm64: no static busybox at .$PWD/nowhere/busybox. for the initramfs: make setup downloads busybox-static:arm64 there (or set MMCI_ARM64_DIR)" err &&
	! [ -e "$MMCI_DB" ] || [ "$(sql "SELECT count(*) FROM runs")" = 0 ]
'

test_expect_vm 'an arm64 guest: UEFI, virt, virtio-mem plugged and unplugged' '
	vmem --kernel "$A64_KERNEL" --modules-root "$ARM64_DIR/cloud" \
		--arch arm64 --hz 250 > out 2> err; rc=$?
	cat out err; [ $rc = 0 ] &&
	grep -q "^run #1: ok" out &&
	grep -q "run #1 boot 0: arm64 tcg, icount" err &&
	[ "$(sql "SELECT arch || \" \" || accel || \" \" || clock || \" \" || kernel_release FROM runs WHERE id = 1")" = "arm64 tcg icount $A64_REL" ] &&
	sql "SELECT accel_reason FROM runs WHERE id = 1" |
		grep -qx "an arm64 guest is emulated on this host (TCG)" &&
	sql "SELECT domain_xml FROM boots WHERE run_id = 1" > dom.xml &&
	grep -q "<type arch=.aarch64. machine=.virt.>hvm</type>" dom.xml &&
	grep -q "<loader readonly=.yes. type=.pflash.>/usr/share/AAVMF/AAVMF_CODE.fd</loader>" dom.xml &&
	grep -q "<gic version=.3./>" dom.xml &&
	grep -q "<model fallback=.forbid.>cortex-a57</model>" dom.xml &&
	grep -q "<model name=.pl011./>" dom.xml &&
	grep -q "<target type=.virtio./>" dom.xml &&
	grep -q "console=ttyAMA0 .*mmci.out=/dev/hvc0" dom.xml &&
	rd=$(run_dir 1) &&
	[ "$(sql "SELECT console_log FROM boots WHERE run_id = 1")" = "$rd/boot0-console.log" ] &&
	! ls "$rd"/*uefi-vars* 2> /dev/null &&
	grep -q "EFI stub: Booting Linux Kernel" "$rd/boot0-console.log" &&
	grep -q "modules loaded: .*virtio_console" "$rd/boot0-console.log" &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 1 AND
	     workload = \"virtio-mem\" AND variant = \"to=512M\" AND
	     metric = \"plug\" AND value > 0")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 1 AND
	     workload = \"virtio-mem\" AND variant = \"from=512M\" AND
	     metric = \"unplug\" AND value > 0")" = 1 ] &&
	sql "SELECT message FROM events WHERE run_id = 1 AND key = \"interrupt\"" |
		grep -q "GICv3" &&
	initrd=$(sql "SELECT initrd FROM runs WHERE id = 1") &&
	zcat "$initrd" | cpio -i --quiet --to-stdout bin/busybox > bb &&
	[ "$(elf_machine bb)" = b700 ] &&
	zcat "$initrd" | cpio -i --quiet --to-stdout bin/mmci-runner > runner &&
	[ "$(elf_machine runner)" = b700 ] &&
	no_domains_left
'

test_expect_vm 'an x86_64 run of the same workload is never compared with it' '
	vmem --kernel "$CLOUD_KERNEL" > out 2> err; rc=$?; cat out; [ $rc = 0 ] &&
	grep -q "^run #2: ok" out &&
	[ "$(sql "SELECT arch FROM runs WHERE id = 2")" = x86_64 ] &&
	[ "$(sql "SELECT setup_sha1 = (SELECT setup_sha1 FROM runs WHERE id = 1) FROM runs WHERE id = 2")" = 0 ] &&
	set +e; "$MMCI" compare 2 1 > out 2> err; rc=$?; set -e; cat err &&
	[ $rc = 1 ] &&
	grep -qx "error: run #2 (x86_64 guest) and run #1 (arm64 guest) ran on different architectures: they are never compared" err
'

# An aarch64 host with KVM, played by this one: MMCI_TEST_HOST_ARCH makes
# the arm64 guest native, MMCI_TEST_KVM_SEAM makes KVM usable and runs
# the "KVM" domains under TCG (accel.h, vm.h)
test_expect_vm 'an aarch64 host with KVM: a trial boot of the arm64 kernel, then KVM' '
	MMCI_ACCEL= MMCI_TEST_HOST_ARCH=aarch64 MMCI_TEST_KVM_SEAM=works \
		vmem --kernel "$A64_KERNEL" --modules-root "$ARM64_DIR/cloud" \
		--arch arm64 --label kvm > out 2> err; rc=$?
	cat out err; [ $rc = 0 ] &&
	id=$(sql "SELECT id FROM runs WHERE label = \"kvm\"") &&
	[ "$(sql "SELECT arch || \" \" || accel || \" \" || clock FROM runs
	     WHERE id = $id")" = "arm64 kvm wall" ] &&
	sql "SELECT accel_reason FROM runs WHERE id = $id" |
		grep -q "^trial boot: first console line after" &&
	[ "$(sql "SELECT count(*) FROM kvm_verdicts WHERE usable = 1")" = 1 ] &&
	trial=$(ls "$MMCI_DATA"/hosts/kvm-trial-*-console.log) &&
	grep -q "EFI stub: Booting Linux Kernel" $trial &&
	! ls "$MMCI_DATA"/hosts/*vars* 2> /dev/null &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     metric IN (\"plug\", \"unplug\") AND value > 0")" = 2 ] &&
	no_domains_left
'

test_expect_vm 'a remote host: the UEFI variables go up into its pool, the ports come back' '
	libvirtd2_start "$H2" && libvirtd2_pool "$H2" mmci &&
	u2=$(cat "$H2/uri") &&
	MMCI_VERBOSE=2 MMCI_LIBVIRT_URI=$u2 vmem --kernel "$A64_KERNEL" \
		--modules-root "$ARM64_DIR/cloud" --arch arm64 --hz 250 \
		--label remote > out 2> err; rc=$?
	cat out err; [ $rc = 0 ] &&
	vars=$(sed -n "s/.*uploaded .*VARS.fd. (\([0-9]*\) bytes, \([0-9]*\) of them data).*/\1 \2/p" err) &&
	echo "UEFI variables: bytes, data sent: $vars" &&
	set -- $vars && [ $# = 2 ] && [ "$1" -gt 0 ] && [ "$2" -lt "$1" ] &&
	id=$(sql "SELECT id FROM runs WHERE label = \"remote\"") &&
	grep -q "^run #$id: ok" out &&
	[ "$(sql "SELECT host FROM boots WHERE run_id = $id")" = "$u2" ] &&
	sql "SELECT domain_xml FROM boots WHERE run_id = $id" > dom.xml &&
	grep -q "<nvram template=.*>/var/lib/libvirt/mmci/mmci-.*\.vars</nvram>" dom.xml &&
	grep -q "<kernel>/var/lib/libvirt/mmci/mmci-.*-kernel</kernel>" dom.xml &&
	grep -q "<model name=.pl011./>" dom.xml &&
	grep -q "<console type=.pty.>" dom.xml &&
	grep -q "EFI stub: Booting Linux Kernel" "$(sql "SELECT console_log
		FROM boots WHERE run_id = $id")" &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     metric IN (\"plug\", \"unplug\") AND value > 0")" = 2 ] &&
	vols=$(virsh -q -c "$u2" vol-list mmci) && [ -z "$vols" ] &&
	[ -z "$(ls "$H2/lib/mmci")" ] &&
	[ -z "$(virsh -c "$u2" list --all --name)" ]
'
U2=$(cat "$H2/uri" 2> /dev/null || echo none)

test_expect 'a host without the arm64 firmware: named, and refused before any upload' '
	LIBVIRTD2_HIDE="$SRC /usr/share/AAVMF /usr/share/qemu/firmware" \
		libvirtd2_start "$H3" && libvirtd2_pool "$H3" mmci &&
	u3=$(cat "$H3/uri") &&
	MMCI_LIBVIRT_URIS="qemu:///system $U2 $u3" "$MMCI" hosts > out &&
	cat out &&
	[ "$(grep -c "^    arm64 guests: yes" out)" = 2 ] &&
	grep -qx "    arm64 guests: no: no UEFI firmware ./usr/share/AAVMF/AAVMF_CODE.fd. for arm64 guests (install qemu-efi-aarch64 there)" out &&
	set +e; MMCI_LIBVIRT_URI=$u3 vmem --kernel "$A64_KERNEL" \
		--modules-root "$ARM64_DIR/cloud" --arch arm64 --label nofw \
		> out 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] &&
	grep -q "host .$u3. cannot boot arm64 guests: no UEFI firmware" err &&
	[ "$(grep -c "cannot boot arm64 guests" err)" = 1 ] &&
	[ "$(sql "SELECT status FROM runs WHERE label = \"nofw\"")" = failed ] &&
	sql "SELECT b.error FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.label = \"nofw\"" | grep -q "cannot boot arm64 guests" &&
	[ -z "$(ls "$H3/lib/mmci")" ]
'

test_expect 'nothing left behind' '
	nothing_left_behind
'

test_done
