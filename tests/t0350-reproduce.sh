#!/bin/sh
# t0350-reproduce: `mmci reproduce RUN` on Debian's cloud kernel (a
# prebuilt kernel, no build): a small run, then the same kernel, VM and
# workloads again, stored as a new run and compared with the original.
# In icount mode the memmap metrics are exact, so the two runs must agree
# on them. Then what cannot be reproduced: an unknown run, a kernel file
# that is gone; --dry-run makes nothing; a KVM run on a host without KVM.
# Four 2 GiB boots under TCG, about a minute.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
say "kernel $CLOUD_KERNEL"

# a copy, so that a test can take it away; the name keeps the release
KERNEL="$TRASH/$(basename "$CLOUD_KERNEL")"
cp "$CLOUD_KERNEL" "$KERNEL"

runs() { sql "SELECT count(*) FROM runs"; }

# every mmci of this test, with its pid: the NVDIMM files are named
# mmci-<pid>-..., and other tests may boot guests next to this one
mmci() {
	"$MMCI" "$@" & echo $! >> "$TRASH/pids"
	wait $!
}

test_expect 'the original: 2 boots of the cloud kernel' '
	mmci run --kernel "$KERNEL" --nvdimm 2G --iters 4 --map dev \
		--boots 2 --label original > out &&
	grep -q "^run #1: ok" out &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = 1 AND
	     status = \"ok\"")" = 2 ]
'

test_expect '--dry-run prints the kernel, the VM and the environment, runs nothing' '
	mmci reproduce 1 --dry-run > dry &&
	cat dry &&
	grep -q "^reproduce run #1 \"original\" (ok, 2 boot(s))$" dry &&
	grep -q "^kernel: prebuilt $KERNEL (release .*-cloud-amd64, HZ 250), modules under /$" dry &&
	grep -q "^workloads: fsdax$" dry &&
	grep -q "^vm: tcg, clock icount, 1 vCPU(s), [0-9]* MiB RAM, 2048 MiB NVDIMM on tmpfs, timeout [0-9]* s, 2 boot(s)$" dry &&
	grep -q "^guest command line: .*mmci.iters=4 .*mmci.map=dev " dry &&
	grep -q "^  qemu  *[0-9.]*, as recorded$" dry &&
	grep -q "^  runner sha1  *[0-9a-f]\{40\}, as recorded$" dry &&
	grep -q "^dry run: 0 difference(s); no kernel built, no run made$" dry &&
	[ "$(runs)" = 1 ]
'

test_expect 'reproduce: a new run with the same kernel, VM and workloads' '
	mmci reproduce 1 > out 2> err || { cat err; exit 1; }
	cat out
	grep -q "^new run: #2 \"reproduce of run 1\"$" out &&
	grep -q "^set-up of run #2: as run #1 " out &&
	grep -q "^  initramfs sha1  *[0-9a-f]\{40\}, as recorded$" out &&
	grep -q "^run #2: ok (2 of 2 boot(s) ok)$" out &&
	[ "$(sql "SELECT label || \"|\" || status FROM runs WHERE id = 2")" = \
	  "reproduce of run 1|ok" ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = 2")" = 2 ] &&
	for col in kernel kernel_release modules_root hz workloads params \
		   accel clock vcpus ram_mib nvdimm_mib backing initrd_sha1; do
		[ "$(sql "SELECT count(DISTINCT $col) FROM runs")" = 1 ] ||
			{ echo "$col differs"; sql "SELECT $col FROM runs"; exit 1; }
	done
'

test_expect 'the comparison is printed as mmci compare prints it' '
	"$MMCI" compare 1 2 > cmp &&
	sed -n "/^base: run #1 /,/^verdict: /p" out > table &&
	cmp table cmp
'

test_expect 'icount: the memmap metrics are the same, no significant change' '
	grep -q "^fsdax *align=2M,map=dev *first_bind_memmap .*no significant change" out &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .*no significant change" out &&
	grep -q "^verdict: no significant change$" out &&
	grep -q "^reproduced: run 1 -> run 2: no significant change (6 metric(s): [1-6] no significant change" out &&
	for m in first_bind_memmap rebind_memmap; do
		[ "$(sql "SELECT count(DISTINCT value) FROM samples WHERE
		     metric = \"$m\"")" = 1 ] || { echo "$m differs"; exit 1; }
	done
'

test_expect '--boots overrides the number of boots' '
	mmci reproduce 1 --boots 5 --dry-run > dry5 &&
	grep -q "^vm: .* 5 boot(s)$" dry5 && [ "$(runs)" = 2 ]
'

test_expect 'an unknown run: one error line, exit 1, nothing made' '
	set +e; mmci reproduce 99 > o 2> err; rc=$?; set -e
	cat err
	[ $rc = 1 ] && grep -q "^error: no run #99 in " err && [ "$(runs)" = 2 ]
'

test_expect 'a KVM run on a host without KVM: TCG, said so (dry run)' '
	sql "INSERT INTO runs (label, kernel, kernel_release, modules_root,
	     hz, workloads, params, accel, clock, vcpus, ram_mib, nvdimm_mib,
	     backing, host, initrd, status, started_at) SELECT \"kvm\", kernel,
	     kernel_release, modules_root, hz, workloads, params, \"kvm\",
	     \"wall\", 2, ram_mib, nvdimm_mib, backing, host, initrd, status,
	     started_at FROM runs WHERE id = 1" &&
	id=$(sql "SELECT max(id) FROM runs") &&
	( export MMCI_ACCEL=tcg; mmci reproduce $id --dry-run ) > dryk 2> errk &&
	cat dryk errk &&
	grep -q "^vm: tcg (FALLBACK: the run used kvm), clock wall, 2 vCPU(s)" dryk &&
	grep -q "^warning: run #$id used KVM, this host has none usable (forced by MMCI_ACCEL=tcg): using TCG" errk &&
	grep -q "^dry run: 1 difference(s)" dryk &&
	sql "DELETE FROM runs WHERE id = $id"
'

test_expect 'the kernel file is gone: one error line naming it, exit 1' '
	rm "$KERNEL" &&
	set +e; mmci reproduce 1 > o 2> err; rc=$?; set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "^error: the kernel .$KERNEL. of run #1 is gone" err &&
	[ "$(runs)" = 2 ]
'

test_expect 'nothing is left behind: no domain, no NVDIMM file' \
	nothing_left_behind

test_done
