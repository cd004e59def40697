#!/bin/sh
# t0340-run-interrupt: SIGTERM to `mmci run` while its guest runs (Debian's
# cloud kernel, a 1 GiB NVDIMM, one fsdax rebind). The command must stop
# within seconds, die of the signal as it did before, and leave nothing
# 'running': its boot failed as 'interrupted', its run failed, both saying
# "interrupted: mmci received SIGTERM", no domain and no NVDIMM file left
# (daemon/interrupt.h says how). Then the same while the run waits for
# the cores (MMCI_CPU_LOCK, fsutil.h) that a build holds: it stops as
# promptly, and no guest was ever started; and a guest that waited
# longer than libvirt's keepalive still boots.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# tcg: the run must not stop in a KVM trial boot (t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
say "kernel $CLOUD_KERNEL"

# run_bg NAME: a small fsdax run in the background, its output in
# NAME.out and NAME.err, its pid in $TRASH/run.pid
run_bg() {
	{ "$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 1G --iters 1 \
		--workloads fsdax > "$1.out" 2> "$1.err" &
	  echo $! > "$TRASH/run.pid"; }
}

stop_run() {
	[ -s "$TRASH/run.pid" ] && kill -9 "$(cat "$TRASH/run.pid")" 2>/dev/null
	return 0
}
test_atexit stop_run

test_expect 'mmci run, SIGTERM once its guest runs: it stops, dies of it' '
	run_bg run && pid=$(cat "$TRASH/run.pid") && dom="$(domain_prefix)run1-boot0" &&
	i=0 && until [ "$(sql "SELECT status FROM boots WHERE run_id = 1" \
			  2>/dev/null)" = running ] &&
		virsh -c qemu:///system list --name | grep -qx "$dom"; do
		i=$((i + 1)); [ $i -lt 600 ] || { echo "no guest"; exit 1; }
		kill -0 "$pid" || { cat run.err; echo "mmci ended"; exit 1; }
		sleep 0.2
	done &&
	[ "$(sql "SELECT status FROM runs WHERE id = 1")" = running ] &&
	kill -TERM "$pid" && t0=$(date +%s) &&
	i=0 && while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.1; done &&
	rc=0 && wait "$pid" || rc=$?
	echo "exit $rc after $(( $(date +%s) - t0 )) s" && cat run.err &&
	[ $i -lt 300 ] && [ $rc = 143 ] &&
	grep -q "^error: run #1 boot 0 failed: interrupted: mmci received SIGTERM; the guest was destroyed: see .*/boot0-console.log$" run.err &&
	grep -qx "run #1: failed" run.out
'

test_expect 'the boot and the run are failed, saying why; nothing running' '
	sql "SELECT status, end_kind, error FROM boots WHERE run_id = 1" &&
	sql "SELECT status, error FROM runs WHERE id = 1" &&
	[ "$(sql "SELECT status || \" \" || end_kind FROM boots
	     WHERE run_id = 1 AND idx = 0")" = "failed interrupted" ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = 1 AND
	     error LIKE \"interrupted: mmci received SIGTERM; %\"")" = 1 ] &&
	[ "$(sql "SELECT status || \" \" || error FROM runs WHERE id = 1")" = \
	  "failed interrupted: mmci received SIGTERM (0 of 1 boot(s) ok)" ] &&
	[ "$(sql "SELECT ended_at IS NOT NULL FROM runs WHERE id = 1")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"running\"")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE status = \"running\"")" = 0 ]
'

test_expect 'no domain, no NVDIMM backing file left behind' '
	no_domains_left &&
	! ls /dev/shm/mmci-"$(cat "$TRASH/run.pid")"-run1-boot0.nvdimm 2>/dev/null
'

# hold.py LOCK: holds LOCK as a build does (its gate, then the cores)
# until killed; "held" on stdout once it has them
cat > hold.py <<'PYEOF'
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
def lock(kind, byte):
    fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, struct.pack("hhqqi4x", kind, 0, byte, 1, 0))
lock(fcntl.F_WRLCK, 0); lock(fcntl.F_WRLCK, 1); lock(fcntl.F_UNLCK, 0)
print("held", flush=True)
time.sleep(3600)
PYEOF
# hold_cores: hold.py on MMCI_CPU_LOCK in the background, once it holds
hold_cores() {
	rm -f hold.out &&
	{ python3 hold.py "$MMCI_CPU_LOCK" > hold.out & echo $! > "$TRASH/hold.pid"; } &&
	i=0 && until grep -qx held hold.out; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.1; done
}
stop_hold() {
	[ -s "$TRASH/hold.pid" ] && kill "$(cat "$TRASH/hold.pid")" 2>/dev/null
	return 0
}
test_atexit stop_hold

test_expect 'SIGTERM while it waits for the cores a build holds: no guest' '
	export MMCI_CPU_LOCK="$TRASH/cpu.lock" &&
	hold_cores &&
	run_bg run2 && pid=$(cat "$TRASH/run.pid") &&
	i=0 && until grep -q "waits for the cores ($MMCI_CPU_LOCK: a build holds them)" run2.err; do
		i=$((i + 1)); [ $i -lt 600 ] || { cat run2.err; exit 1; }
		sleep 0.1
	done &&
	kill -TERM "$pid" && t0=$(date +%s) &&
	i=0 && while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
		i=$((i + 1)); sleep 0.1; done &&
	rc=0 && wait "$pid" || rc=$?
	echo "exit $rc after $(( $(date +%s) - t0 )) s" && cat run2.err &&
	stop_hold &&
	[ $i -lt 100 ] && [ $rc = 143 ] &&
	r=$(sql "SELECT max(id) FROM runs") &&
	[ "$(sql "SELECT status || \" \" || end_kind FROM boots
	     WHERE run_id = $r AND idx = 0")" = "failed interrupted" ] &&
	[ "$(sql "SELECT status FROM runs WHERE id = $r")" = failed ] &&
	grep -q "^error: run #$r boot 0 failed: interrupted: mmci received SIGTERM while it waited for the cores; no guest was started$" run2.err &&
	no_domains_left
'

# libvirtd closes a connection whose keepalive nobody answers (5 probes
# 5 s apart): a guest that waited longer than that with its connection
# open died of SIGPIPE at its first write. It connects after the wait.
test_expect 'a guest that waited 40 s for the cores then boots, runs, ends' '
	export MMCI_CPU_LOCK="$TRASH/cpu.lock" &&
	hold_cores &&
	run_bg run3 && pid=$(cat "$TRASH/run.pid") &&
	sleep 40 && kill -0 "$pid" && stop_hold &&
	rc=0 && wait "$pid" || rc=$?
	cat run3.err &&
	[ $rc = 0 ] && grep -q "waits for the cores" run3.err &&
	r=$(sql "SELECT max(id) FROM runs") &&
	[ "$(sql "SELECT status FROM runs WHERE id = $r")" = ok ] &&
	no_domains_left
'

test_done
