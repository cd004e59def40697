#!/bin/sh
# t1110-hotplug-tables: the two hotplug recipes at the authors' sizes,
# 256 and 512 GiB, on Debian's cloud kernel under TCG in icount mode
# (docs/RECIPES.md). hotplug-kmem: a devdax namespace of each size
# plugged as system RAM and unplugged under auto_online_blocks online,
# online_movable and offline; hotplug-virtio-mem: the same sizes plugged
# and unplugged through virtio-mem with auto_online_blocks=online. Every
# row of both tables must hold a number: each plug and unplug completed
# and was checked (MemTotal and present pages grown by exactly the size,
# every block back out; kmem plugs the namespace's dax range, all of it
# but the first memory block). The 512 GiB runs touch about 12 GiB of
# this host (the guest's RAM, which holds the plugged memory's memmap).
# 50.5 min here beside a CI run: the kmem boots 519 and 1548 s, the
# virtio-mem boots 313 and 647 s; tables in docs/RECIPES.md.
# mmci-test-needs: vm
. "$(dirname "$0")/../lib.sh"
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"

# rows of a recipe table whose mmci column holds a number (not "-")
measured_rows() {
	grep -c "^[a-z_]*:* *[A-Z][a-z]* Memory  *| [0-9]*G | [0-9.]* s  *[0-9.]* s  *| [0-9.]* s  *| [0-9.]*$" "$1"
}

test_expect 'hotplug-kmem: 256 and 512 GiB, three policies, plug and unplug' '
	"$MMCI" init --no-tree > /dev/null &&
	"$MMCI" recipe run hotplug-kmem --kernel "$CLOUD_KERNEL" \
		> kmem 2> kmem.err || { tail -20 kmem.err; exit 1; }
	cat kmem &&
	grep -q "^mmci: accel tcg, clock icount, kernel .*-cloud-amd64; sizes 256G,512G$" kmem &&
	[ "$(measured_rows kmem)" = 12 ] &&
	for size in 262144 524288; do
		id=$(sql "SELECT id FROM runs WHERE nvdimm_mib = $size AND
		     status = \"ok\" ORDER BY id DESC LIMIT 1") && [ -n "$id" ] &&
		[ "$(sql "SELECT count(*) FROM events WHERE run_id = $id AND
		     kind = \"error\"")" = 0 ] &&
		for p in online online_movable offline; do
			v="online=$p,memmap_on_memory=0" &&
			for m in online offline; do
				[ "$(sql "SELECT count(*) FROM samples WHERE
				     run_id = $id AND workload = \"kmem\" AND
				     variant = \"$v\" AND metric = \"$m\" AND
				     value > 0")" = 1 ] ||
					{ echo "run $id: no $m sample of $v"; exit 1; }
			done
		done &&
		# the dax range, whole blocks: all of the size but its first
		bytes=$(sql "SELECT message FROM events WHERE run_id = $id AND
		     key = \"hotplug_bytes\"") &&
		[ "$bytes" = $(((size - 128) * 1048576)) ] &&
		grep -q "^plugged by kmem at [0-9]*G: $bytes bytes " kmem &&
		[ "$(sql "SELECT DISTINCT message FROM events WHERE run_id = $id AND
		     key = \"memtotal_delta_kib\"")" = $((bytes / 1024)) ] ||
			exit 1
	done &&
	no_domains_left
'

test_expect 'hotplug-virtio-mem: 256 and 512 GiB plugged and unplugged, online' '
	"$MMCI" recipe run hotplug-virtio-mem --kernel "$CLOUD_KERNEL" \
		> vmem 2> vmem.err || { tail -20 vmem.err; exit 1; }
	cat vmem &&
	[ "$(measured_rows vmem)" = 4 ] &&
	grep -q "^machine: QEMU [0-9.]* q35, CPU qemu64 (x86_64)$" vmem &&
	[ "$(grep -c "^  run #[0-9]* (\(256G\|512G\)): .* MiB RAM, 1 vCPU(s)$" vmem)" = 2 ] &&
	for size in 256G 512G; do
		id=$(sql "SELECT id FROM runs WHERE label = \"recipe hotplug-virtio-mem $size\"") &&
		[ -n "$id" ] &&
		[ "$(sql "SELECT count(*) FROM events WHERE run_id = $id AND
		     kind = \"error\"")" = 0 ] &&
		[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
		     variant IN (\"to=$size,online=online\",
		                 \"from=$size,online=online\") AND value > 0")" = 2 ] ||
			exit 1
	done &&
	sql "SELECT message FROM events WHERE key = \"memtotal_delta_kib\" AND
	     workload = \"virtio-mem\"" > deltas && cat deltas &&
	grep -qx 268435456 deltas && grep -qx 536870912 deltas &&
	no_domains_left
'

test_done
