#!/bin/sh
# t0320-hotplug: the kmem and virtio-mem workloads on Debian's cloud
# kernel (6.1): a devdax namespace onlined as system RAM and removed, and
# virtio-mem plugged and unplugged by the host through libvirt while the
# guest times it. Small sizes; the defaults are 100 GiB and 8/16 GiB.
# Memory onlined to ZONE_NORMAL unplugs when the guest has ZONE_NORMAL
# memory of its own (mmci gives it 1 GiB above 4 GiB), and does not on
# 1280 MiB of RAM, all of it below 4 GiB.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"

count() {
	sql "SELECT count(*) FROM samples WHERE run_id = $1 AND workload = \"$2\"
	     AND variant = \"$3\" AND metric = \"$4\" AND value > 0"
}

test_expect 'kmem: online_movable cycles measured, each checked exactly' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem --nvdimm 2G \
		--hotplug-iters 2 --kmem-online online_movable \
		--kmem-memmap ram > out &&
	grep -q "^run #1: ok" out &&
	v="online=online_movable,memmap_on_memory=0" &&
	[ "$(count 1 kmem "$v" online)" = 2 ] &&
	[ "$(count 1 kmem "$v" offline)" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = 1 AND
	     kind = \"error\"")" = 0 ] &&
	sql "SELECT key || \"=\" || message FROM events WHERE run_id = 1 AND
	     workload = \"kmem\" AND kind = \"info\"" > info && cat info &&
	grep -q "^memtotal_delta_kib=" info
'

test_expect 'kmem: memmap_on_memory needs 6.8, a recorded error on 6.1' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem --nvdimm 2G \
		--hotplug-iters 1 --kmem-online online_movable \
		--kmem-memmap ram,on_memory > out2 &&
	grep -q "^run #2: ok" out2 &&
	[ "$(count 2 kmem online=online_movable,memmap_on_memory=0 online)" = 1 ] &&
	sql "SELECT message FROM events WHERE run_id = 2 AND kind = \"error\"
	     AND variant = \"online=online_movable,memmap_on_memory=1\"" |
		grep -q "needs linux 6.8" &&
	sql "SELECT json_extract(params, \"$.cmdline\") FROM runs WHERE id = 2" |
		grep -q "memory_hotplug.memmap_on_memory=1"
'

test_expect 'virtio-mem: host resizes on request, guest times each step' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
		--nvdimm 1G --vmem-sizes 512M,1G --hotplug-iters 2 > out3 &&
	grep -q "^run #3: ok" out3 &&
	[ "$(count 3 virtio-mem to=512M plug)" = 2 ] &&
	[ "$(count 3 virtio-mem to=1G plug)" = 2 ] &&
	[ "$(count 3 virtio-mem from=1G unplug)" = 2 ] &&
	sql "SELECT message FROM events WHERE run_id = 3 AND kind = \"host\"" > host &&
	cat host && [ $(grep -c "virtio-mem-resize .*: done$" host) = 6 ] &&
	grep -q "request 3 virtio-mem-resize 0 MiB: done" host &&
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = 3 AND
	     kind = \"request\"")" = 6 ] &&
	sql "SELECT domain_xml FROM boots WHERE run_id = 3" |
		grep -q "<memory model=.virtio-mem.>" &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 3 AND
	     metric LIKE \"%_host\"")" = 0 ]
'

test_expect 'virtio-mem with memmap_on_memory off and on: two runs' '
	for mom in off on; do
		"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
			--nvdimm 1G --vmem-sizes 512M --hotplug-iters 1 \
			--memmap-on-memory $mom > out.$mom || exit 1
	done &&
	off=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out.off) &&
	on=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out.on) &&
	sql "SELECT json_extract(params, \"$.cmdline\") FROM runs
	     WHERE id = $off" | grep -q "memory_hotplug.memmap_on_memory=0" &&
	sql "SELECT json_extract(params, \"$.cmdline\") FROM runs
	     WHERE id = $on" | grep -q "memory_hotplug.memmap_on_memory=1" &&
	[ "$(count $off virtio-mem to=512M plug)" = 1 ] &&
	[ "$(count $on virtio-mem to=512M plug)" = 1 ] &&
	sql "SELECT run_id || \" \" || message FROM events WHERE
	     key = \"memtotal_delta_kib\" AND run_id IN ($off, $on)" > deltas &&
	cat deltas && [ $(wc -l < deltas) -ge 2 ]
'

test_expect 'auto_online_blocks=offline: the runner onlines, for virtio-mem and kmem' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem,virtio-mem \
		--nvdimm 1G --vmem-sizes 1G --hotplug-iters 1 \
		--vmem-online online_movable,offline --kmem-online offline \
		--kmem-memmap ram > out6 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out6) &&
	[ "$(count $id virtio-mem to=1G plug)" = 1 ] &&
	[ "$(count $id virtio-mem to=1G,online=offline plug)" = 1 ] &&
	[ "$(count $id virtio-mem to=1G,online=offline online)" = 1 ] &&
	[ "$(count $id virtio-mem from=1G,online=offline unplug)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"to=1G\" AND metric = \"online\"")" = 0 ] &&
	[ "$(sql "SELECT (SELECT value FROM samples WHERE run_id = $id AND
	     variant = \"to=1G,online=offline\" AND metric = \"online\") <=
	     (SELECT value FROM samples WHERE run_id = $id AND
	     variant = \"to=1G,online=offline\" AND metric = \"plug\")")" = 1 ] &&
	[ "$(sql "SELECT message FROM events WHERE run_id = $id AND
	     workload = \"virtio-mem\" AND
	     key = \"blocks_onlined_by_runner\"")" = 8 ] &&
	v="online=offline,memmap_on_memory=0" &&
	[ "$(count $id kmem "$v" online)" = 1 ] &&
	[ "$(count $id kmem "$v" offline)" = 1 ] &&
	# kmem added the blocks offline, the runner onlined them as daxctl
	# does: 7 of 128 MiB (the first block of the namespace is partial)
	[ "$(sql "SELECT message FROM events WHERE run_id = $id AND
	     workload = \"kmem\" AND
	     key = \"blocks_onlined_by_runner\"")" = 7 ] &&
	add=$(sql "SELECT message FROM events WHERE run_id = $id AND
	     workload = \"kmem\" AND key = \"add_us\"") &&
	[ "$(sql "SELECT $add > 0 AND $add < 1000 * value FROM samples
	     WHERE run_id = $id AND workload = \"kmem\" AND
	     variant = \"$v\" AND metric = \"online\"")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = $id AND
	     kind = \"error\"")" = 0 ] &&
	sql "SELECT json_extract(params, \"$.cmdline\") FROM runs WHERE id = $id" |
		grep -q "mmci.vmem_online=online_movable,offline" &&
	! "$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
		--vmem-online sideways 2> err6 &&
	grep -q "virtio-mem onlines to online, online_movable or offline" err6
'

test_expect 'a size whose memmap the host cannot hold: refused before boot' '
	"$MMCI" init --no-tree > /dev/null &&
	runs=$(sql "SELECT count(*) FROM runs") &&
	rc=0 && "$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
		--nvdimm 1G --vmem-sizes 200T --hotplug-iters 1 \
		--timeout 1 > out4 2> err4 || rc=$?
	cat err4 && [ $rc != 0 ] &&
	grep -q "virtio-mem up to 209715200 MiB does not fit this host: the run touches [0-9]* MiB" err4 &&
	grep -q "which holds the 3276800 MiB memmap of the plugged memory" err4 &&
	grep -q "the host has [0-9]* MiB available" err4 &&
	! grep -q "scaled" err4 &&
	[ "$(sql "SELECT count(*) FROM runs")" = "$runs" ]
'

test_expect 'the workload list is run in table order, kmem last' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem,fsdax --map dev \
		--nvdimm 1G --iters 1 --hotplug-iters 1 \
		--kmem-online online_movable --kmem-memmap ram > out5 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out5) &&
	[ "$(sql "SELECT workloads FROM runs WHERE id = $id")" = fsdax,kmem ] &&
	[ "$(count $id fsdax align=2M,map=dev rebind_memmap)" = 1 ] &&
	[ "$(count $id kmem online=online_movable,memmap_on_memory=0 online)" = 1 ]
'

test_expect 'wall clock: each resize also timed on the host, request to answer' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem --clock wall \
		--nvdimm 1G --vmem-sizes 512M --hotplug-iters 2 > out6 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out6) &&
	[ "$(sql "SELECT clock FROM runs WHERE id = $id")" = wall ] &&
	[ "$(count $id virtio-mem to=512M plug_host)" = 2 ] &&
	[ "$(count $id virtio-mem from=512M unplug_host)" = 2 ] &&
	ls "$(run_dir $id)/boot0-host.jsonl" &&
	sql "SELECT g.iteration, g.value, h.value FROM samples g JOIN samples h
	     ON h.run_id = g.run_id AND h.boot_id = g.boot_id AND
	     h.iteration = g.iteration AND h.variant = g.variant AND
	     h.metric = g.metric || \"_host\" WHERE g.run_id = $id" > pairs &&
	cat pairs && [ "$(wc -l < pairs)" = 4 ] &&
	awk -F"|" "\$3 < 0.9 * \$2 || \$3 > \$2 + 30000 { bad = 1 } END { exit bad }" pairs &&
	sql "SELECT message FROM events WHERE run_id = $id AND kind = \"host\"" |
		grep -q "^host time of request [0-9]* (512 MiB): [0-9.]* ms to the guest.s plug sample$"
'

test_expect 'auto_online_blocks=online: a ZONE_NORMAL of its own, then it unplugs' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem,virtio-mem \
		--nvdimm 1G --vmem-sizes 1G --hotplug-iters 2 \
		--vmem-online online --kmem-online online \
		--kmem-memmap ram > out7 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out7) &&
	[ "$(sql "SELECT ram_mib FROM runs WHERE id = $id")" = 3072 ] &&
	v="online=online,memmap_on_memory=0" &&
	[ "$(count $id kmem "$v" online)" = 2 ] &&
	[ "$(count $id kmem "$v" offline)" = 2 ] &&
	[ "$(count $id virtio-mem to=1G,online=online plug)" = 2 ] &&
	[ "$(count $id virtio-mem from=1G,online=online unplug)" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = $id AND
	     kind = \"error\"")" = 0 ] &&
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads kmem --ram 1280 \
		--nvdimm 1G --hotplug-iters 1 --kmem-online online \
		--kmem-memmap ram > out8 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out8) &&
	sql "SELECT message FROM events WHERE run_id = $id AND kind = \"error\"" |
		grep -q "Device or resource busy"
'

test_expect 'nothing left behind' '
	nothing_left_behind
'

test_done
