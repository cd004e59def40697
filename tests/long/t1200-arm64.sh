#!/bin/sh
# t1200-arm64: arm64 guests from the tree (docs/ARM64.md). The 6.12 tree
# is cross-built for arm64 (4 KiB pages) and arm64-64k (64 KiB pages),
# each with mmci.config + its arch fragments, the bench module and the
# modules; each boots under libvirt on QEMU's virt machine with UEFI,
# GICv3 and cortex-a57 in icount mode, with an NVDIMM (ACPI NFIT), and
# times fsdax and devdax rebinds and the vmap microbenchmarks with
# their page-table counts. With 64 KiB pages the 2 MiB alignment is
# replaced by 512 MiB with a warning. Runs of two arches are never
# compared. The memmap-rebind-arm64 recipe prints its table. Last, a
# series is tested on arm64 with a second libvirt host
# (tests/lib-libvirtd2.sh): the boots spread over both, the remote one's
# UEFI variables going up into its pool.
# Two cold cross-builds took 31 and 33 min here; with their object
# directories kept (a fresh database builds again, make finds nothing to
# do) the whole file takes 2-2.5 min, each boot 6-20 s.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/lib-libvirtd2.sh"
export MMCI_ACCEL=tcg

# e_machine of an ELF file, as hex bytes: b700 is aarch64, 3e00 x86-64
elf_machine() { od -An -tx1 -j18 -N2 "$1" | tr -d " "; }

need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
command -v aarch64-linux-gnu-gcc > /dev/null ||
	skip_all "no aarch64-linux-gnu-gcc (run make setup)"

command -v unshare > /dev/null || skip_all "no unshare (util-linux)"

# the shared tree and build cache of the checkout; a database of its own
export MMCI_DATA="$SRC/var" MMCI_TREE="$SRC/var/linux"
SERIES="$SRC/kernel-patches/examples/memmap-slow.mbox"
# the second host sees nothing of the checkout
H2="$TRASH/host2"
libvirtd2_hosts "$H2"

test_expect 'init: the 6.12 tree' '
	"$MMCI" init &&
	git -C "$MMCI_TREE" rev-parse -q --verify "debian-6.12^{commit}"
'

test_expect 'build --arch arm64: Image, modules, bench module, a checked config' '
	"$MMCI" build debian-6.12 --arch arm64 > out && cat out &&
	grep -q "^build #1: 6\.12\.[0-9]*+* arm64 " out &&
	art=$(sql "SELECT artifacts FROM builds WHERE id = 1") &&
	[ "$(sql "SELECT arch || \" \" || status FROM builds WHERE id = 1")" = "arm64 ok" ] &&
	[ -s "$art/Image" ] && ! [ -e "$art/bzImage" ] &&
	[ "$(od -An -c -j56 -N4 "$art/Image" | tr -d " ")" = ARMd ] &&
	[ "$(elf_machine "$art/mmci-bench/mmci_bench.ko")" = b700 ] &&
	grep -q "^CONFIG_ARM64_4K_PAGES=y" "$art/config" &&
	grep -q "^CONFIG_ACPI_NFIT=m" "$art/config" &&
	grep -q "^CONFIG_ZONE_DEVICE=y" "$art/config" &&
	grep -q "^CONFIG_VIRTIO_CONSOLE=y" "$art/config" &&
	sql "SELECT compiler FROM builds WHERE id = 1" | grep -q "^aarch64-linux-gnu-gcc"
'

test_expect 'asking again builds nothing; x86_64 is another build' '
	"$MMCI" build debian-6.12 --arch arm64 > out2 &&
	grep -q "^build #1: .*(cached)$" out2 &&
	[ "$(sql "SELECT count(*) FROM builds")" = 1 ]
'

test_expect 'an arm64 guest: fsdax, devdax and vmap with page-table counts' '
	"$MMCI" run --build 1 --workloads fsdax,devdax,vmap --nvdimm 2G \
		--iters 3 --align 2M --map dev --param mmci.bench_iters=3 \
		> out 2> err; rc=$?; cat out; tail -5 err; [ $rc = 0 ] &&
	[ "$(sql "SELECT arch || \" \" || clock || \" \" || accel || \" \" || status FROM runs WHERE id = 1")" = "arm64 icount tcg ok" ] &&
	xml=$(sql "SELECT domain_xml FROM boots WHERE run_id = 1") &&
	echo "$xml" | grep -q "arch=.aarch64. machine=.virt" &&
	echo "$xml" | grep -q "AAVMF_CODE.fd" &&
	console=$(sql "SELECT console_log FROM boots WHERE run_id = 1") &&
	grep -q "EFI stub: Booting Linux Kernel" "$console" &&
	! ls "$(dirname "$console")"/*uefi-vars* 2> /dev/null &&
	for m in fsdax/align=2M,map=dev/rebind_memmap \
		devdax/align=2M,map=dev/rebind_memmap \
		vmap//vmap_100m_order8 vmap//vmap_100m_order8_ptes \
		vmap//vmap_100m_order8_cont_ptes vmap//ioremap_1m_ptes; do
		w=${m%%/*} r=${m#*/} v=${r%/*} k=${r#*/} &&
		n=$(sql "SELECT count(*) FROM samples WHERE run_id = 1 AND
			workload = \"$w\" AND variant = \"$v\" AND metric = \"$k\"") &&
		echo "$m: $n sample(s)" && [ "$n" -ge 1 ] || exit 1
	done &&
	"$MMCI" show run 1 > show && grep -q "^arch  *arm64$" show
'

test_expect 'build --arch arm64-64k: 64 KiB pages, an object directory of its own' '
	"$MMCI" build debian-6.12 --arch arm64-64k > out && cat out &&
	grep -q "^build #2: 6\.12\.[0-9]*+* arm64-64k " out &&
	art=$(sql "SELECT artifacts FROM builds WHERE id = 2") &&
	grep -q "^CONFIG_ARM64_64K_PAGES=y" "$art/config" &&
	! grep -q "^CONFIG_ARM64_4K_PAGES=y" "$art/config" &&
	[ "$(sql "SELECT count(DISTINCT cache_key) FROM builds")" = 2 ] &&
	ls -d "$MMCI_DATA"/kbuild/*-arm64 "$MMCI_DATA"/kbuild/*-arm64-64k
'

test_expect '64 KiB pages: 2M alignment becomes 512M, with a warning' '
	"$MMCI" run --build 2 --workloads fsdax,devdax --nvdimm 2G \
		--iters 3 --align 2M --map dev > out 2> err; rc=$?
	cat out err; [ $rc = 0 ] &&
	grep -q "warning: fsdax alignment on arm64-64k: 2M -> 512M: a 64 KiB-page kernel takes only 64K" err &&
	grep -q "warning: devdax alignment on arm64-64k: 2M -> 512M" err &&
	[ "$(sql "SELECT arch || \" \" || status FROM runs WHERE id = 2")" = "arm64-64k ok" ] &&
	n=$(sql "SELECT count(*) FROM samples WHERE run_id = 2 AND
		variant = \"align=512M,map=dev\" AND metric = \"rebind_memmap\"") &&
	[ "$n" -ge 6 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 2 AND
		variant LIKE \"%align=2M%\"")" = 0 ]
'

test_expect 'runs of two arches are never compared' '
	set +e; "$MMCI" compare 1 2 > out 2> err; rc=$?; set -e; cat err &&
	[ $rc = 1 ] &&
	grep -q "ran on different architectures: they are never compared" err
'

test_expect 'recipe memmap-rebind-arm64 (small): the authors table beside' '
	"$MMCI" recipe run memmap-rebind-arm64 --scale small --build 2 \
		--iters 3 > out && cat out &&
	grep -q "^nd_pmem " out && grep -q "^dax_pmem " out &&
	grep -q "27.93 ms" out && grep -q "16.27 ms" out &&
	grep -q "^mmci: accel tcg, clock icount" out &&
	grep -q "^machine: QEMU [0-9.]* virt, CPU cortex-a57, arm64-64k guest (64 KiB pages), 2048 MiB NVDIMM" out
'

test_expect 'test-series --arch arm64 on two hosts: boots on both' '
	libvirtd2_start "$H2" && libvirtd2_pool "$H2" mmci &&
	u2=$(cat "$H2/uri") &&
	MMCI_LIBVIRT_URIS="qemu:///system $u2" "$MMCI" test-series "$SERIES" \
		--base debian-6.12 --arch arm64 --nvdimm 1G --iters 2 \
		--boots 1 --max-boots 1 > out 2> err; rc=$?
	cat out; grep -i "host\|at once\|error" err; [ $rc = 0 ] &&
	grep -q "^verdict:" out &&
	grep -q "host .$u2.: [0-9] slot(s), QEMU" err &&
	job=$(sql "SELECT max(id) FROM jobs") &&
	sql "SELECT b.run_id, b.host, b.status FROM boots b JOIN runs r
	     ON r.id = b.run_id WHERE r.job_id = $job" > boots &&
	cat boots &&
	[ "$(sql "SELECT count(DISTINCT b.host) FROM boots b JOIN runs r
	     ON r.id = b.run_id WHERE r.job_id = $job AND b.status = \"ok\"")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE job_id = $job AND
	     arch = \"arm64\"")" = 2 ] &&
	sql "SELECT b.domain_xml FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = $job AND b.host = \"$u2\"" |
		grep -q "/var/lib/libvirt/mmci/mmci-.*\.vars</nvram>" &&
	[ -z "$(ls "$H2/lib/mmci")" ] &&
	[ -z "$(virsh -c "$u2" list --all --name)" ] &&
	no_domains_left
'

test_done
