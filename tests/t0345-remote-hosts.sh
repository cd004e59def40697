#!/bin/sh
# t0345-remote-hosts: boots on a second libvirt host that mmci reaches only
# through libvirt's remote protocol (issue 15). The second host is a
# libvirtd of its own in its own mount and PID namespaces, on loopback TCP
# (tests/lib-libvirtd2.sh): it cannot see the checkout, the data directory,
# /boot, /tmp or /dev/shm of this machine, so the kernel and initramfs go
# up into its storage pool, the NVDIMM is a sparse volume there, and the
# serial ports come back as libvirt streams.
#  - mmci hosts: both hosts with what libvirt says of them;
#  - bad input: no pool, a pool too small, a URI that does not answer,
#    authentication refused: one-line errors, failed boots recorded;
#  - one run on the remote host: the same icount values as here, nothing
#    left in its pool;
#  - test-series with MMCI_LIBVIRT_URIS naming both: boots on both hosts,
#    identical values; then the second host is killed (its PID namespace,
#    QEMU with it) while its boots run, they are booted again here and the
#    job completes; the host comes back and its leftover volumes go.
# after-builds: its kernels are the example series', t0500's (cache
# hits): make test runs it at the end of the builds lane, where it evens
# the lanes out; alone, it builds them
# mmci-test-needs: vm kernel-build after-builds
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/lib-libvirtd2.sh"
# it asserts icount values: pin the accelerator (t0330 tests KVM)
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
SERIES="$SRC/kernel-patches/examples/memmap-slow.mbox"
need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
command -v unshare > /dev/null || skip_all "no unshare (util-linux)"

# two remote hosts, which see nothing of the checkout
H2="$TRASH/host2"
H3="$TRASH/host3"
libvirtd2_hosts "$H2" "$H3"

run_on() {
	uri=$1
	shift
	MMCI_LIBVIRT_URI=$uri "$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G \
		--iters 4 --map dev "$@"
}

job() {
	"$MMCI" test-series "$SERIES" --base debian-6.12 --nvdimm 1G \
		--iters 2 "$@" > out 2> err
	rc=$?
	cat out; grep -i "host\|at once\|again\|error" err || :
	return $rc
}

# rebind_memmap of every boot of run $1 on host $2, one line
values() {
	sql "SELECT group_concat(s.value) FROM samples s JOIN boots b
	     ON b.id = s.boot_id WHERE s.run_id = $1 AND b.host = \"$2\" AND
	     s.metric = \"rebind_memmap\""
}

test_expect 'a second libvirt host answers on loopback TCP only' '
	"$MMCI" init &&
	libvirtd2_start "$H2" &&
	uri=$(cat "$H2/uri") &&
	virsh -c "$uri" version &&
	! virsh -c "$uri" net-list --name | grep . &&
	virsh -c qemu:///system version > /dev/null
'
U2=$(cat "$H2/uri" 2> /dev/null || echo none)
HOSTS="qemu:///system $U2"

test_expect 'mmci hosts lists both, with what libvirt says' '
	MMCI_LIBVIRT_URIS="$HOSTS" "$MMCI" hosts > out &&
	cat out &&
	grep -q "^  qemu:///system: up, local, QEMU [0-9.]*, libvirt [0-9.]*, x86_64 " out &&
	grep -q "^  $U2: up, remote, QEMU [0-9.]*, .*, [0-9]* cores, [0-9]* MiB" out &&
	grep -q "pool .mmci.: missing or inactive: boots cannot go there" out &&
	grep -q "^jobs: 0 queued, 0 running" out
'

test_expect 'a host without the pool: a one-line error, a failed boot' '
	! run_on "$U2" --label nopool > out 2> err &&
	cat err &&
	grep -q "has no storage pool .mmci. (make one: virsh -c $U2 pool-define-as mmci dir" err &&
	[ "$(grep -c "no storage pool" err)" = 1 ] &&
	[ "$(sql "SELECT status FROM runs WHERE label = \"nopool\"")" = failed ] &&
	sql "SELECT b.error FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.label = \"nopool\"" | grep -q "no storage pool" &&
	[ -z "$(virsh -c "$U2" list --all --name)" ]
'

test_expect 'a run on the remote host: the values of a run here' '
	libvirtd2_pool "$H2" mmci &&
	run_on qemu:///system --label here > out 2> err &&
	run_on "$U2" --label there > out 2> err &&
	cat err &&
	grep -q "^run #[0-9]*: ok" out &&
	here=$(sql "SELECT id FROM runs WHERE label = \"here\"") &&
	there=$(sql "SELECT id FROM runs WHERE label = \"there\"") &&
	v1=$(values $here qemu:///system) && v2=$(values $there "$U2") &&
	echo "here $v1, there $v2" &&
	[ -n "$v1" ] && [ "$v1" = "$v2" ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $there")" -ge 10 ] &&
	sql "SELECT domain_xml FROM boots WHERE run_id = $there" > xml &&
	grep -q "<kernel>/var/lib/libvirt/mmci/mmci-.*-kernel</kernel>" xml &&
	grep -q "<serial type=.pty.>" xml &&
	grep -q "^mmci: init start" "$(sql "SELECT console_log FROM boots
		WHERE run_id = $there")" &&
	vols=$(virsh -q -c "$U2" vol-list mmci) && [ -z "$vols" ] &&
	[ -z "$(ls "$H2/lib/mmci")" ]
'

test_expect 'a pool too small: the numbers, before any upload' '
	nsenter -t "$(cat "$H2/nspid")" -m -- sh -c \
		"mkdir -p /var/lib/libvirt/tiny &&
		 mount -t tmpfs -o size=4m tiny /var/lib/libvirt/tiny" &&
	virsh -q -c "$U2" pool-create-as tiny dir --target /var/lib/libvirt/tiny &&
	! MMCI_LIBVIRT_POOL=tiny run_on "$U2" --label tiny > out 2> err &&
	cat err &&
	grep -q "pool .tiny. on .$U2. has [0-4] MiB free, the boot needs [0-9]* MiB" err &&
	[ "$(grep -c "MiB free, the boot needs" err)" = 1 ] &&
	[ -z "$(ls "$H2/lib/tiny" 2> /dev/null)" ]
'

test_expect 'a host that does not answer, and one that refuses us' '
	port=$(python3 -c "import socket; s = socket.socket()
s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	dead="qemu+tcp://127.0.0.1:$port/system" &&
	! run_on "$dead" --label dead > out 2> err &&
	cat err &&
	grep -q "cannot connect to libvirt at .$dead.: .*Connection refused" err &&
	test_line_count() { [ "$(grep -c "$1" "$2")" = "$3" ]; } &&
	test_line_count "^error: cannot connect" err 1 &&
	MMCI_LIBVIRT_URIS="$dead qemu:///system" run_on "$dead" --label moved \
		> out 2> err &&
	grep -q "libvirt host .$dead. does not answer: this job.s runs go to .qemu:///system." err &&
	[ "$(sql "SELECT b.host FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.label = \"moved\"")" = qemu:///system ] &&
	libvirtd2_start "$H3" sasl &&
	u3=$(cat "$H3/uri") &&
	MMCI_LIBVIRT_URIS="qemu:///system $dead $u3" "$MMCI" hosts > out &&
	cat out &&
	grep -q "^  $dead: down: .*Connection refused" out &&
	grep -q "^  $u3: down: .*authentication" out &&
	! run_on "$u3" --label refused > out 2> err &&
	grep -q "cannot connect to libvirt at .$u3.: .*authentication" err &&
	libvirtd2_stop "$H3"
'

test_expect 'test-series on two hosts: boots on both, the same values' '
	MMCI_LIBVIRT_URIS="$HOSTS" job --boots 1 --max-boots 1 &&
	grep -q "^verdict:" out &&
	grep -q "up to [0-9]* at once on several hosts" err &&
	grep -q "host .$U2.: [0-9] slot(s), QEMU" err &&
	sql "SELECT b.run_id, b.host, b.status FROM boots b JOIN runs r
	     ON r.id = b.run_id WHERE r.job_id IS NOT NULL" > boots &&
	cat boots &&
	[ "$(sql "SELECT count(DISTINCT b.host) FROM boots b JOIN runs r
	     ON r.id = b.run_id WHERE r.job_id IS NOT NULL AND
	     b.status = \"ok\"")" = 2 ]
'

test_expect 'the second host dies mid-run: its boots go to the first' '
	( MMCI_LIBVIRT_URIS="$HOSTS" job --boots 2 --max-boots 2 --remeasure;
	  echo $? > rc ) &
	i=0 &&
	until [ "$(sql "SELECT count(*) FROM boots WHERE host = \"$U2\" AND
	      status = \"running\"")" -gt 0 ] &&
	      virsh -c "$U2" list --name | grep -q "^mmci-"; do
		i=$((i + 1)); [ $i -lt 600 ] || break; sleep 0.5
	done &&
	sleep 3 &&
	virsh -c "$U2" list --name &&
	libvirtd2_kill "$H2" &&
	wait &&
	[ "$(cat rc)" = 0 ] &&
	cat err | grep "is gone" &&
	grep -q "host .$U2. is gone: boot [0-9] of .* is booted again on another host as boot [0-9]" err &&
	grep -q "^verdict:" out &&
	job=$(sql "SELECT max(id) FROM jobs") &&
	sql "SELECT b.run_id, b.idx, b.host, b.status, b.error FROM boots b
	     JOIN runs r ON r.id = b.run_id WHERE r.job_id = $job" > boots &&
	cat boots &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = $job AND b.host = \"$U2\" AND
	     b.status = \"failed\" AND b.end_kind = \"host-lost\" AND
	     b.error LIKE \"the host went away during the boot: %\"")" -ge 1 ] &&
	! grep "client socket is closed" err &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.job_id = $job AND b.status = \"ok\"")" = 4 ] &&
	no_domains_left
'

test_expect 'the host comes back: its leftover volumes are removed' '
	ls "$H2/lib/mmci" > left &&
	cat left && [ -s left ] &&
	libvirtd2_start "$H2" &&
	[ "$(cat "$H2/uri")" = "$U2" ] &&
	MMCI_LIBVIRT_URIS="$HOSTS" "$MMCI" hosts > hosts &&
	grep -q "^  $U2: up, remote" hosts &&
	grep -q "pool .mmci.: [0-9]* of [0-9]* MiB free" hosts &&
	run_on "$U2" --label back > out 2> err &&
	cat err &&
	grep -q "removed stale volume .mmci-" err &&
	[ -z "$(ls "$H2/lib/mmci")" ]
'

test_done
