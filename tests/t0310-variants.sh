#!/bin/sh
# t0310-variants: one boot measures a workload in several variants
# (alignments, memmap on the device or in RAM), each stored apart; an
# alignment the kernel refuses is a recorded error while the others run.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"

test_expect 'devdax 4K/2M/1G x dev/mem and fsdax dev/mem in one boot' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 2 \
		--workloads fsdax,devdax --devdax-align 4K,2M,1G \
		--map dev,mem > out &&
	grep -q "^run #1: ok" out &&
	sql "SELECT workload || \" \" || variant FROM samples WHERE
	     metric = \"rebind_memmap\" GROUP BY workload, variant
	     HAVING count(*) = 2" > variants &&
	cat variants &&
	[ $(wc -l < variants) = 8 ] &&
	for v in "devdax align=4K,map=dev" "devdax align=2M,map=dev" \
		 "devdax align=1G,map=dev" "devdax align=4K,map=mem" \
		 "devdax align=2M,map=mem" "devdax align=1G,map=mem" \
		 "fsdax align=2M,map=dev" "fsdax align=2M,map=mem"; do
		grep -qx "$v" variants || exit 1
	done
'

test_expect 'the kernel saw the alignment and memmap placement asked for' '
	sql "SELECT variant || \" \" || key || \"=\" || message FROM events
	     WHERE run_id = 1 AND workload = \"devdax\" AND key IN
	     (\"align\", \"mode\")" > seen &&
	grep -qx "align=1G,map=dev align=1073741824" seen &&
	grep -qx "align=4K,map=mem align=4096" seen &&
	grep -qx "align=2M,map=mem mode=ram" seen &&
	grep -qx "align=2M,map=dev mode=pmem" seen
'

test_expect 'variants are compared variant by variant' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 2 \
		--workloads devdax --devdax-align 4K,1G --map dev > out2 &&
	"$MMCI" compare 1 2 > cmp && cat cmp &&
	grep -q "^devdax *align=1G,map=dev *rebind_memmap .*no significant change" cmp &&
	grep -q "^devdax *align=4K,map=dev *rebind_memmap .*no significant change" cmp
'

test_expect 'a refused alignment is a recorded error; the others still run' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 1 \
		--workloads devdax --devdax-align 3M,2M --map dev > out3 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out3) &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"align=2M,map=dev\"")" -gt 0 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     variant = \"align=3M,map=dev\"")" = 0 ] &&
	sql "SELECT message FROM events WHERE run_id = $id AND
	     kind = \"error\" AND variant = \"align=3M,map=dev\"" > err &&
	cat err && grep -q "align" err
'

test_expect 'bad variant lists are refused before anything boots' '
	set +e
	"$MMCI" run --kernel "$CLOUD_KERNEL" --map dev,ram 2> e1; r1=$?
	"$MMCI" run --kernel "$CLOUD_KERNEL" --devdax-align 2X 2> e2; r2=$?
	"$MMCI" run --kernel "$CLOUD_KERNEL" --param foo=1 2> e3; r3=$?
	set -e
	[ $r1 = 1 ] && grep -q "dev, mem or dev,mem" e1 &&
	[ $r2 = 1 ] && grep -q "invalid devdax alignments" e2 &&
	[ $r3 != 0 ] && grep -q "mmci.KEY=VALUE" e3 &&
	[ "$(sql "SELECT count(*) FROM runs")" = 3 ] &&
	no_domains_left
'

test_expect 'runner parameters pass through --param' '
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 1G --iters 1 \
		--workloads fsdax --map dev --param mmci.iters=3 > out4 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out4) &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     metric = \"rebind_memmap\"")" = 3 ] &&
	sql "SELECT json_extract(params, \"$.cmdline\") FROM runs
	     WHERE id = $id" | grep -q "mmci.iters=3$"
'

test_done
