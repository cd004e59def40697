#!/bin/sh
# t0335-recipes: `mmci recipe list` and `mmci recipe run`: every recipe of
# kernel-patches/recipes listed with whether this host can run it, the
# memmap rebind recipe run for real at --scale small on Debian's cloud
# kernel (one short boot) and at the authors' 100 GiB (one boot, about 2
# min), each printed beside the authors' numbers, a recipe of two sizes
# whose guests differ (a set-up line per run), the hotplug recipe's exact `mmci run` options, and the errors: an unknown
# recipe, a malformed recipe file, a recipe the host cannot fit.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# the header line is asserted: pin the accelerator (t0330 tests KVM)
export MMCI_ACCEL=tcg

RECIPES="$SRC/kernel-patches/recipes"

# runs stored so far (no database yet: none)
runs() {
	if [ -e "$MMCI_DB" ]; then sql "SELECT count(*) FROM runs"; else echo 0; fi
}

avail_mib() {
	echo $(($(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024))
}

test_expect 'list: every recipe, its arch, memory checked' '
	"$MMCI" recipe list > out && cat out &&
	for f in "$RECIPES"/*.recipe; do
		n=$(basename "$f" .recipe) &&
		arch=$(sed -n "s/^arch = //p" "$f") &&
		grep -q "^$n  *$arch  *[0-9MG,]*  *\(yes\|no\): " out || exit 1
	done &&
	[ "$(grep -c "^[a-z0-9-]*  *\(x86_64\|arm64\|arm64-64k\) " out)" = \
	  "$(ls "$RECIPES"/*.recipe | wc -l)" ] &&
	[ "$(grep -l "^arch = arm64" "$RECIPES"/*.recipe | wc -l)" -ge 2 ] &&
	grep -q "^memmap-rebind-arm64  *arm64-64k  *100G  *yes: needs [0-9]* MiB" out &&
	grep -q "^vmap-contig-arm64  *arm64  .* yes: needs [0-9]* MiB" out &&
	need() { sed -n "s/^$1  .*needs \([0-9]*\) MiB of host memory.*/\1/p" out; } &&
	x86=$(need memmap-rebind) && a64=$(need memmap-rebind-arm64) &&
	echo "100 GiB: x86_64 needs $x86 MiB, arm64-64k $a64 MiB" &&
	[ "$a64" -lt "$x86" ] &&
	line=$(grep "^hotplug-virtio-mem " out) &&
	need=$(echo "$line" | sed -n "s/.*needs \([0-9]*\) MiB of host memory.*/\1/p") &&
	[ "$need" -gt 11264 ] &&
	avail=$(avail_mib) &&
	if [ "$need" -gt $((avail + 512)) ]; then
		echo "$line" | grep -q " no: needs $need MiB of host memory (.*), the host has [0-9]* MiB available; --scale small (1G,2G) fits$"
	elif [ "$need" -lt $((avail - 512)) ]; then
		echo "$line" | grep -q " yes: needs $need MiB of host memory, [0-9]* MiB available$"
	fi
'

test_expect 'list: a recipe larger than the host is refused with numbers' '
	mkdir -p big &&
	sed -e "s/^sizes = .*/sizes = 4T 8T/" \
		"$RECIPES/hotplug-virtio-mem.recipe" > big/huge-plug.recipe &&
	"$MMCI" recipe list --recipes big > out && cat out &&
	avail=$(avail_mib) &&
	need=$(sed -n "s/.* no: needs \([0-9]*\) MiB of host memory (.*), the host has \([0-9]*\) MiB available; --scale small (1G,2G) fits$/\1/p" out) &&
	[ "$need" -gt 131072 ] && [ "$need" -gt "$avail" ] &&
	set +e; "$MMCI" recipe run huge-plug --recipes big --kernel "$CLOUD_KERNEL" \
		> out2 2> err; rc=$?; set -e && cat err &&
	[ $rc = 1 ] &&
	grep -q "^error: recipe .huge-plug. (sizes 4T,8T) cannot run on this host: needs $need MiB of host memory (the guest.s [0-9]* MiB of RAM (with the 131072 MiB memmap of 8388608 MiB of virtio-mem).*), the host has [0-9]* MiB available; try --scale small$" err &&
	! [ -s out2 ] &&
	[ "$(runs)" = 0 ]
'

test_expect 'dry run of the hotplug recipe: the exact mmci run options' '
	"$MMCI" recipe run hotplug-virtio-mem --dry-run > out && cat out &&
	[ "$(grep -c "^mmci run " out)" = 2 ] &&
	grep -qx "mmci run --kernel PATH --workloads virtio-mem --vmem-sizes 256G --vmem-online online --hotplug-iters 1" out &&
	grep -qx "mmci run --kernel PATH --workloads virtio-mem --vmem-sizes 512G --vmem-online online --hotplug-iters 1" out &&
	grep -q "^Plug Memory  *| 512G *| 36 s  *-  *| 7 s  *| -$" out &&
	grep -q "^source: <20260409023552.GA2807@AE> " out &&
	"$MMCI" recipe run hotplug-virtio-mem --dry-run --scale small \
		--kernel /boot/vmlinuz-x > small && cat small &&
	grep -qx "sizes: 1G,2G (--scale small; the authors.: 256G,512G)" small &&
	grep -qx "mmci run --kernel /boot/vmlinuz-x --workloads virtio-mem --vmem-sizes 2G --vmem-online online --hotplug-iters 1" small &&
	grep -q "^Unplug Memory  *| 512G (2G) | 36 s " small &&
	[ "$(runs)" = 0 ]
'

test_expect 'dry run with --base and --series: test-series per size' '
	printf "From x\n" > one.mbox &&
	"$MMCI" recipe run hotplug-virtio-mem --dry-run --scale small \
		--base v6.12 --series one.mbox > out && cat out &&
	[ "$(grep -c "^mmci test-series " out)" = 2 ] &&
	grep -qx "mmci test-series one.mbox --base v6.12, run options: --workloads virtio-mem --vmem-sizes 1G --vmem-online online --hotplug-iters 1" out &&
	grep -q "^ *| *| authors  *mmci  *| authors  *mmci  *| authors  *mmci$" out &&
	grep -q "^Plug Memory  *| 256G (1G) | 10 s  *-  *| 3 s  *-  *| 0.300  *-$" out &&
	"$MMCI" recipe run memmap-rebind-arm64 --dry-run --scale small \
		--base v6.12 > out && cat out &&
	grep -qx "mmci build v6.12 --arch arm64-64k, then mmci run --build ID --workloads fsdax,devdax --nvdimm 2G --map dev --fsdax-align 64K --devdax-align 512M --iters 30 --iters 4" out &&
	for bad in "--base v6.12 --build 1" "--series one.mbox" \
		"--base v6.12 --series one.mbox --kernel /x" ""; do
		set +e; "$MMCI" recipe run memmap-rebind $bad > o 2> e; rc=$?
		set -e
		[ $rc = 129 ] && ! [ -s o ] &&
		grep -qx "error: give a recipe name and one of --kernel, --build or --base (with or without --series)" e ||
			{ echo "not refused: $bad"; exit 1; }
	done &&
	[ "$(runs)" = 0 ]
'

test_expect 'an unknown recipe: exit 1, the names it has' '
	set +e; "$MMCI" recipe run no-such --kernel /x > out 2> err; rc=$?
	set -e; cat err &&
	[ $rc = 1 ] && ! [ -s out ] &&
	names=$(ls "$RECIPES"/*.recipe | xargs -n1 basename | sed "s/\.recipe$//" |
		sort | paste -sd, | sed "s/,/, /g") &&
	grep -qx "error: no recipe .no-such. in .$RECIPES.; there are: $names" err
'

test_expect 'a malformed recipe file: the error names file and line' '
	mkdir -p bad &&
	cp "$RECIPES/memmap-rebind.recipe" bad/ &&
	sed "s#dev/rebind_memmap | 221.07 | 71.93#dev/rebind_memap | 221.07 | 71.93#" \
		"$RECIPES/memmap-rebind.recipe" > bad/typo.recipe &&
	line=$(grep -n "rebind_memap" bad/typo.recipe | cut -d: -f1) &&
	set +e; MMCI_RECIPES=$PWD/bad "$MMCI" recipe list > out 2> err; rc=$?
	set -e; cat err &&
	[ $rc = 1 ] && ! [ -s out ] &&
	grep -qx "error: $PWD/bad/typo.recipe:$line: no metric .rebind_memap. of workload .fsdax. (see .mmci workloads.)" err &&
	printf "description = x\narch = riscv\n" > bad/typo.recipe &&
	set +e; MMCI_RECIPES=$PWD/bad "$MMCI" recipe run memmap-rebind --dry-run 2> err; rc=$?
	set -e; cat err &&
	[ $rc = 1 ] &&
	grep -qx "error: $PWD/bad/typo.recipe:2: arch is x86_64, arm64 (4 KiB pages) or arm64-64k (64 KiB pages), not .riscv." err
'

test_expect 'an arm64 recipe without an arm64 busybox is refused before boot' '
	set +e; MMCI_ARM64_DIR=$PWD/nowhere "$MMCI" recipe run \
		memmap-rebind-arm64 --scale small --kernel "$CLOUD_KERNEL" \
		2> err; rc=$?; set -e && cat err &&
	[ $rc = 1 ] &&
	grep -qx "error: recipe .memmap-rebind-arm64. (sizes 2G) cannot run on this host: arch arm64-64k: no static busybox at .$PWD/nowhere/busybox. for the initramfs: make setup downloads busybox-static:arm64 there (or set MMCI_ARM64_DIR)" err &&
	[ "$(runs)" = 0 ] &&
	MMCI_ARM64_DIR=$PWD/nowhere "$MMCI" recipe list > out 2> err &&
	grep -q "^memmap-rebind-arm64  *arm64-64k  *100G  *no: arch arm64-64k: no static busybox" out
'

test_expect_vm 'memmap-rebind at --scale small: measured beside the authors' '
	"$MMCI" recipe run memmap-rebind --scale small --kernel "$CLOUD_KERNEL" \
		> out 2> err && cat out &&
	id=$(sed -n "s/^run #\([0-9]*\): ok$/\1/p" out) && [ -n "$id" ] &&
	[ "$(sql "SELECT status || \" \" || nvdimm_mib || \" \" || label FROM runs
	     WHERE id = $id")" = "ok 2048 recipe memmap-rebind 2G" ] &&
	grep -qx "runs: #$id" out &&
	grep -q "^mmci: accel tcg, clock icount, kernel .*-cloud-amd64; sizes 2G (--scale small), not the authors. 100G: the sizes differ from theirs$" out &&
	grep -q "^source: <20260831111638.76012-1-lizhe.67@bytedance.com> " out &&
	v=$(sql "SELECT value FROM samples WHERE run_id = $id AND
	     workload = \"fsdax\" AND metric = \"rebind_memmap\" LIMIT 1") &&
	m=$(printf "%.2f" "$v") &&
	r=$(awk -v m="$m" "BEGIN { printf \"%.3f\", m / 221.07 }") &&
	grep -q "^nd_pmem  *| 100G (2G) | 221.07 ms  *$m ms  *| 71.93 ms  *| $r$" out &&
	grep -q "^nd_pmem, patch 3/7 alone  *| 100G (2G) | 221.07 ms  *$m ms  *| 155.00 ms  *| $r$" out &&
	grep -q "^dax_pmem  *| 100G (2G) | 191.20 ms  *[0-9.]* ms  *| 87.37 ms  *| [0-9.]*$" out &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     metric = \"rebind_memmap\"")" = 8 ] &&
	no_domains_left
'

# the authors' size: 100 GiB namespaces (fsdax map=dev, devdax 2 MiB) in
# one icount boot; 2 rebinds of each, since every rebind of a boot takes
# the same time there (the small case above checks it with 4). About 2 min.
test_expect_vm 'memmap-rebind at the authors'"'"' size: 100 GiB, one boot' '
	"$MMCI" recipe run memmap-rebind --iters 2 --kernel "$CLOUD_KERNEL" \
		> out 2> err || { tail -20 err; exit 1; }
	cat out &&
	id=$(sed -n "s/^run #\([0-9]*\): ok$/\1/p" out) && [ -n "$id" ] &&
	[ "$(sql "SELECT status || \" \" || nvdimm_mib || \" \" || clock || \" \" ||
	     label FROM runs WHERE id = $id")" = "ok 102400 icount recipe memmap-rebind 100G" ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = $id")" = 1 ] &&
	grep -q "^mmci: accel tcg, clock icount, kernel .*-cloud-amd64; sizes 100G$" out &&
	grep -q "^machine: QEMU [0-9.]* q35, CPU qemu64 (x86_64), 102400 MiB NVDIMM on tmpfs, [0-9]* MiB RAM, 1 vCPU(s)$" out &&
	for w in fsdax devdax; do
		[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
		     workload = \"$w\" AND metric = \"rebind_memmap\"")" = 2 ] || exit 1
	done &&
	v=$(sql "SELECT value FROM samples WHERE run_id = $id AND
	     workload = \"fsdax\" AND metric = \"rebind_memmap\" LIMIT 1") &&
	m=$(printf "%.2f" "$v") &&
	grep -q "^nd_pmem  *| 100G | 221.07 ms  *$m ms  *| 71.93 ms  *| [0-9.]*$" out &&
	grep -q "^dax_pmem  *| 100G | 191.20 ms  *[0-9.]* ms  *| 87.37 ms  *| [0-9.]*$" out &&
	# the namespace the guest bound was the whole 100 GiB
	[ "$(sql "SELECT group_concat(DISTINCT message) FROM events WHERE
	     run_id = $id AND key = \"namespace_size\"")" = 107374182400 ] &&
	no_domains_left
'

# two sizes whose guests differ (the RAM holds each size's memmap): the
# machine line names QEMU, machine and CPU, and one line per run its
# set-up, as the 256 and 512 GiB hotplug runs need. Two short boots.
test_expect_vm 'two sizes, two set-ups: one machine line per run' '
	mkdir -p two &&
	cat > two/two-sizes.recipe <<-\EOF &&
	description = fsdax rebinds of a small and a larger namespace
	arch = x86_64
	source = <t0335@mmci> "two sizes"
	sizes = 1G 16G
	run = --workloads fsdax --nvdimm $size --map dev --fsdax-align 2M --iters 1
	columns = Driver | Size | Rebind (before) | Rebind (after)
	unit = ms
	row = nd_pmem | 1 | fsdax/align=2M,map=dev/rebind_memmap | 1 | 1
	row = nd_pmem | 2 | fsdax/align=2M,map=dev/rebind_memmap | 2 | 2
	EOF
	"$MMCI" recipe run two-sizes --recipes two --kernel "$CLOUD_KERNEL" \
		> out 2> err || { tail -20 err; exit 1; }
	cat out &&
	grep -q "^machine: QEMU [0-9.]* q35, CPU qemu64 (x86_64)$" out &&
	a=$(sed -n "s/^  run #\([0-9]*\) (1G): 1024 MiB NVDIMM on tmpfs, \([0-9]*\) MiB RAM, 1 vCPU(s)$/\1 \2/p" out) &&
	b=$(sed -n "s/^  run #\([0-9]*\) (16G): 16384 MiB NVDIMM on tmpfs, \([0-9]*\) MiB RAM, 1 vCPU(s)$/\1 \2/p" out) &&
	echo "$a / $b" && [ -n "$a" ] && [ -n "$b" ] &&
	for x in "$a" "$b"; do
		set -- $x &&
		[ "$(sql "SELECT ram_mib FROM runs WHERE id = $1")" = "$2" ] || exit 1
	done &&
	[ "${a#* }" -lt "${b#* }" ] &&
	[ "$(grep -c "^  run #" out)" = 2 ] &&
	no_domains_left
'

test_done
