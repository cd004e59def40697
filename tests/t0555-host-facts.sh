#!/bin/sh
# t0555-host-facts: runs comparable across hosts (daemon/hostfacts.h).
# Runs and boots are inserted with sqlite3 as run.c writes them (booting
# is t0545's and t0300's): a wall-clock comparison of two runs recorded on
# hosts with another CPU, SMT or host kernel is refused, the difference
# named; the same on the icount clock is compared, with a note; the load
# of a wall-clock run and the guests that ran beside its boots are noted
# in the table; runs recorded before migration 22 have no facts and are
# compared as before.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 inserts the runs"

FACTS_A='{"cpu":"AMD EPYC 7B13 64-Core Processor","governor":"performance","guests":0,"kernel":"6.1.0-28-amd64","load1":0.1,"microcode":"0xa0011d1","smt":"off","turbo":"off"}'
FACTS_B='{"cpu":"Intel(R) Xeon(R) Gold 6338","governor":"performance","guests":0,"kernel":"6.1.0-28-amd64","load1":0.1,"microcode":"0xd0003a5","smt":"off","turbo":"off"}'
FACTS_A_LOADED='{"cpu":"AMD EPYC 7B13 64-Core Processor","governor":"performance","guests":2,"kernel":"6.1.0-28-amd64","load1":3.4,"microcode":"0xa0011d1","smt":"off","turbo":"off"}'

# run ID CLOCK VALUE FACTS [LOAD_END [BESIDE]]: a run of 6 boots (wall,
# values that vary a little) or 1 boot (icount, exact), 5 rebinds each
run() {
	n=1 j=0; [ "$2" = wall ] && n=6 j=1
	echo "INSERT INTO runs (id, label, kernel, kernel_release, modules_root,
		hz, workloads, params, accel, clock, vcpus, ram_mib, nvdimm_mib,
		backing, qemu_version, libvirt_version, host, initrd, status,
		started_at, host_facts, load_end) VALUES ($1, 'r$1', '/k',
		'6.12.117', '/m', 1000, 'fsdax', '{\"iters\":5}',
		'$( [ "$2" = wall ] && echo kvm || echo tcg)', '$2', 1, 1024,
		1024, 'tmpfs', '7.2.22', '9.0.0', 'h', '/i', 'ok', 0,
		$( [ -n "$4" ] && echo "'$4'" || echo NULL), ${5:-NULL});"
	b=0
	while [ $b -lt $n ]; do
		echo "INSERT INTO boots (id, run_id, idx, status, started_at,
			guests_beside) VALUES ($1$b, $1, $b, 'ok', 0, ${6:-0});
		WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
					 WHERE i < 5)
		INSERT INTO samples (run_id, boot_id, workload, variant, metric,
			unit, iteration, value) SELECT $1, $1$b, 'fsdax',
			'align=2M,map=dev', 'rebind_wall', 'ms', i,
			$3 + $j * ($b * 0.01 + i * 0.001) FROM it;"
		b=$((b + 1))
	done
}

test_expect 'runs on two hosts, wall and icount, loaded and not' '
	"$MMCI" init --no-tree &&
	{ run 1 wall 100 "$FACTS_A" 0.2; run 2 wall 120 "$FACTS_B" 0.2
	  run 3 icount 100 "$FACTS_A"; run 4 icount 120 "$FACTS_B"
	  run 5 wall 100 "$FACTS_A" 0.2; run 6 wall 120 "$FACTS_A_LOADED" 2.9 1
	  run 7 wall 100 ""; run 8 wall 120 ""; } | sqlite3 -bail "$MMCI_DB"
'

test_expect 'wall clock on another CPU: refused, the difference named' '
	set +e; "$MMCI" compare 1 2 > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -qx "error: run #1 and run #2 ran on different hosts for the wall clock: CPU .AMD EPYC 7B13 64-Core Processor. vs .Intel(R) Xeon(R) Gold 6338., microcode .0xa0011d1. vs .0xd0003a5.; they are not compared" err &&
	[ "$(grep -c "^error:" err)" = 1 ] && [ ! -s out ]
'

test_expect 'icount on another CPU: compared, with a note' '
	"$MMCI" compare 3 4 > out 2> err && cat out err &&
	grep -q "^note: the runs. hosts have different CPUs (.AMD EPYC 7B13 64-Core Processor. vs .Intel(R) Xeon(R) Gold 6338.)" out &&
	grep -q "^verdict: WORSE" out
'

test_expect 'a loaded host and guests beside the boots: noted' '
	"$MMCI" compare 5 6 > out 2> err && cat out err &&
	grep -q "^note: host load 3.4 at the start and 2.9 at the end of run #6; 1 other guest(s) ran beside a boot of run #6$" out
'

test_expect 'runs made before the facts were recorded: compared as before' '
	"$MMCI" compare 7 8 > out 2> err && cat out err &&
	! grep -q "^note:" out && grep -q "^verdict: WORSE" out
'

test_done
