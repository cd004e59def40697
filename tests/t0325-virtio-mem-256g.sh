#!/bin/sh
# t0325-virtio-mem-256g: virtio-mem at the size of the hotplug series'
# own table: 256 GiB plugged into a guest and unplugged again with
# auto_online_blocks=online, as the authors did, on Debian's cloud kernel
# under TCG in icount mode. The host backs only what the guest writes
# (reserve=false): the guest's RAM, with the plugged memory's memmap,
# 6 GiB here, 4 GiB of it above 4 GiB (ZONE_NORMAL of its own,
# without which the unplug fails: t0320). In the guest's clock the plug
# takes 8.3 s and the unplug 60.1 s (online_movable: 32.0 and 81.8 s, and
# 7.5 min in all; online: 255 s). MemTotal grows by exactly 256 GiB. Issue 17: one test
# of make test plugs >= 256 GB; this one was in the long tier before.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"

test_expect 'virtio-mem: 256 GiB plugged and unplugged, online, as asked' '
	"$MMCI" init --no-tree > /dev/null &&
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
		--nvdimm 1G --vmem-sizes 256G --vmem-online online \
		--hotplug-iters 1 > out 2> err &&
	cat out err &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out) && [ -n "$id" ] &&
	[ "$(sql "SELECT json_extract(params, \"$.vmem_sizes\") FROM runs
	     WHERE id = $id")" = 262144M ] &&
	[ "$(sql "SELECT ram_mib FROM runs WHERE id = $id")" = 6144 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"to=256G,online=online\" AND metric = \"plug\" AND value > 0")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"from=256G,online=online\" AND metric = \"unplug\" AND value > 0")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = $id AND
	     kind = \"error\"")" = 0 ] &&
	sql "SELECT message FROM events WHERE run_id = $id AND
	     key = \"memtotal_delta_kib\"" | grep -qx 268435456
'

test_done
