#!/bin/sh
# t0330-kvm-fallback: KVM or TCG is decided by a real boot (daemon/accel.h).
#
# Some hosts have a /dev/kvm on which the real-mode probe passes and every
# Linux guest then hangs with an empty console. The first KVM boot on a
# host is a trial with a deadline for the guest's first console line; its
# verdict is stored and later runs read it. Hosts here have no working KVM,
# so the seam MMCI_TEST_KVM_SEAM makes a TCG guest stand in for the KVM
# one: "hang" starts it paused (it never prints, like a guest on such a
# KVM), "works" lets it boot. The first case runs the real auto path and
# asserts only what holds on every kind of host: no /dev/kvm, a /dev/kvm
# that hangs guests, a working KVM.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
unset MMCI_ACCEL MMCI_TEST_KVM_SEAM MMCI_KVM_DEADLINE_S

# the boot timeout of these runs is 600 s: a fallback that waited for it
# instead of the first-line deadline (10 s) would show
run_small() {
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 1G --iters 1 \
		--workloads fsdax --map dev --timeout 600 "$@"
}

now() { date +%s.%N; }
# seconds from $1 to $2, and is it within [lo, hi]?
within() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" \
	'BEGIN { d = b - a; print "took " d " s"; exit !(d >= lo && d <= hi) }'; }

test_expect 'the auto path: a run on whatever this host has, mode and reason recorded' '
	t0=$(now) && run_small --label auto > out 2> err && t1=$(now) &&
	cat err && grep -q "^run #1: ok" out &&
	mode=$(sql "SELECT accel || \"/\" || clock FROM runs WHERE id = 1") &&
	echo "mode $mode" &&
	{ [ "$mode" = kvm/wall ] || [ "$mode" = tcg/icount ]; } &&
	[ -n "$(sql "SELECT accel_reason FROM runs WHERE id = 1")" ] &&
	if [ ! -e /dev/kvm ]; then
		[ "$mode" = tcg/icount ] &&
		[ "$(sql "SELECT count(*) FROM kvm_verdicts")" = 0 ]
	elif [ "$mode" = kvm/wall ]; then
		[ "$(sql "SELECT usable FROM kvm_verdicts")" = 1 ]
	else
		# a /dev/kvm that hangs guests: the verdict says so
		[ "$(sql "SELECT usable FROM kvm_verdicts")" = 0 ]
	fi &&
	within "$t0" "$t1" 0 300
'

test_expect 'a KVM that hangs guests: the trial gives up at the deadline, the run falls back to TCG with icount' '
	"$MMCI" hosts --forget --all &&
	t0=$(now) &&
	MMCI_TEST_KVM_SEAM=hang run_small --label fallback > out 2> err &&
	t1=$(now) && cat err && grep -q "^run #2: ok" out &&
	grep -q "KVM trial: booting $CLOUD_KERNEL, 10 s for its first console line$" err &&
	grep -q "^warning: KVM hangs Linux guests on this host (.*): a Linux guest printed nothing within 10 s under KVM; verdict stored, using TCG" err &&
	[ "$(grep -c "^warning: KVM hangs" err)" = 1 ] &&
	decided=$(sql "SELECT decided_at FROM kvm_verdicts") &&
	within "$t0" "$decided" 10 40 &&
	within "$t0" "$t1" 10 200 &&
	[ "$(sql "SELECT usable || \"|\" || deadline_s || \"|\" || (first_line_s IS NULL) FROM kvm_verdicts")" = "0|10.0|1" ] &&
	[ "$(sql "SELECT host_release FROM kvm_verdicts")" = "$(uname -r)" ] &&
	[ "$(sql "SELECT accel || \"/\" || clock || \"/\" || vcpus FROM runs WHERE id = 2")" = tcg/icount/1 ] &&
	[ "$(sql "SELECT accel_reason FROM runs WHERE id = 2")" = "trial boot: a Linux guest printed nothing within 10 s under KVM" ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = 2 AND status = \"ok\"")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 2 AND metric = \"rebind_memmap\"")" = 1 ] &&
	no_domains_left
'

test_expect 'the next run reads the stored verdict and boots no trial' '
	t0=$(now) &&
	MMCI_TEST_KVM_SEAM=hang run_small --label again > out 2> err &&
	t1=$(now) && cat err && grep -q "^run #3: ok" out &&
	! grep -q "KVM trial" err &&
	grep -q "KVM hangs guests on this host (stored verdict of .*): using TCG" err &&
	[ "$(sql "SELECT accel || \"/\" || clock FROM runs WHERE id = 3")" = tcg/icount ] &&
	sql "SELECT accel_reason FROM runs WHERE id = 3" |
		grep -q "^stored verdict of [0-9-]* [0-9:]*: a Linux guest printed nothing within 10 s under KVM$" &&
	[ "$(sql "SELECT count(*) FROM kvm_verdicts")" = 1 ]
'

test_expect 'mmci hosts shows the verdict' '
	MMCI_TEST_KVM_SEAM=hang "$MMCI" hosts > hosts &&
	cat hosts &&
	grep -q "^this host: kernel $(uname -r), QEMU [0-9.]*, CPU " hosts &&
	grep -q "^KVM probe: KVM usable (test seam MMCI_TEST_KVM_SEAM=hang)$" hosts &&
	grep -q "^guests: stored verdict of .*: a Linux guest printed nothing within 10 s under KVM$" hosts &&
	grep -q "^    KVM hangs guests: first line - s (deadline 10.0 s), " hosts
'

test_expect 'MMCI_ACCEL=kvm on such a host fails within the deadline, clearly' '
	t0=$(now) &&
	rc=0 && MMCI_ACCEL=kvm MMCI_TEST_KVM_SEAM=hang run_small \
		--label forced > out 2> err || rc=$? ; t1=$(now) && cat err &&
	[ $rc = 1 ] &&
	grep -q "^error: MMCI_ACCEL=kvm, but KVM does not run Linux guests on this host: a Linux guest printed nothing within 10 s under KVM (unset MMCI_ACCEL to fall back to TCG)$" err &&
	within "$t0" "$t1" 10 40 &&
	[ "$(sql "SELECT count(*) FROM runs WHERE label = \"forced\"")" = 0 ] &&
	no_domains_left
'

test_expect 'mmci hosts --forget: the next KVM boot is a trial again' '
	"$MMCI" hosts --forget > out && cat out &&
	grep -q "^forgot 1 KVM verdict(s): the next KVM boot on this host is a trial$" out &&
	[ "$(sql "SELECT count(*) FROM kvm_verdicts")" = 0 ] &&
	"$MMCI" hosts | grep -q "^no KVM verdict stored$"
'

test_expect 'a KVM that runs guests: the trial sees the first line, the run uses KVM and the wall clock' '
	MMCI_TEST_KVM_SEAM=works run_small --label works > out 2> err &&
	cat err && grep -q "^run #4: ok" out &&
	grep -q "KVM: trial boot: first console line after [0-9.]* s; verdict stored" err &&
	[ "$(sql "SELECT usable FROM kvm_verdicts")" = 1 ] &&
	[ "$(sql "SELECT first_line_s > 0 AND first_line_s < 10 FROM kvm_verdicts")" = 1 ] &&
	[ "$(sql "SELECT accel || \"/\" || clock FROM runs WHERE id = 4")" = kvm/wall ] &&
	sql "SELECT accel_reason FROM runs WHERE id = 4" |
		grep -q "^trial boot: first console line after [0-9.]* s$" &&
	MMCI_TEST_KVM_SEAM=works run_small --label works2 > out 2> err &&
	cat err && ! grep -q "KVM trial" err &&
	sql "SELECT accel || \" \" || accel_reason FROM runs WHERE id = 5" |
		grep -q "^kvm stored verdict of .*: trial boot: first console line after"
'

test_expect 'a guest that hangs after a good verdict fails in seconds, not after the timeout' '
	t0=$(now) &&
	rc=0 && MMCI_KVM_DEADLINE_S=2 MMCI_TEST_KVM_SEAM=hang run_small \
		--label changed > out 2> err || rc=$? ; t1=$(now) && cat err &&
	[ $rc = 1 ] &&
	grep -q "the guest printed nothing within 6 s under KVM, though KVM ran guests on this host before" err &&
	[ "$(sql "SELECT end_kind FROM boots WHERE run_id = 6")" = silent ] &&
	[ "$(sql "SELECT status FROM runs WHERE id = 6")" = failed ] &&
	within "$t0" "$t1" 6 40 &&
	no_domains_left
'

test_expect 'a bad deadline setting is refused, naming it' '
	rc=0 && MMCI_KVM_DEADLINE_S=10s MMCI_TEST_KVM_SEAM=hang run_small \
		2> err || rc=$? ; cat err && [ $rc != 0 ] &&
	grep -q "MMCI_KVM_DEADLINE_S must be a number of seconds in 1..600, not .10s." err
'

test_done
