#!/bin/sh
# t0325-virtio-mem-256g: virtio-mem at the size of the hotplug series'
# own table: 256 GiB plugged into a guest and unplugged again, on
# Debian's cloud kernel under TCG in icount mode. The host backs only
# what the guest writes (reserve=false): the guest's RAM, with the
# plugged memory's memmap, 4 GiB here. Measured on the 2-core, 24 GiB
# development host: 7 min 26 s in all; in the guest's clock the plug
# took 32.0 s and the unplug 81.8 s. MemTotal grows by exactly 256 GiB.
# It was in the long tier until make test had room for it (issue 17:
# one test of make test plugs >= 256 GB).
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"

test_expect 'virtio-mem: 256 GiB plugged and unplugged, as asked' '
	"$MMCI" init --no-tree > /dev/null &&
	"$MMCI" run --kernel "$CLOUD_KERNEL" --workloads virtio-mem \
		--nvdimm 1G --vmem-sizes 256G --hotplug-iters 1 > out 2> err &&
	cat out err &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out) && [ -n "$id" ] &&
	[ "$(sql "SELECT json_extract(params, \"$.vmem_sizes\") FROM runs
	     WHERE id = $id")" = 262144M ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"to=256G\" AND metric = \"plug\" AND value > 0")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"from=256G\" AND metric = \"unplug\" AND value > 0")" = 1 ] &&
	sql "SELECT message FROM events WHERE run_id = $id AND
	     key = \"memtotal_delta_kib\"" | grep -qx 268435456
'

test_done
