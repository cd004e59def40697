#!/bin/sh
# t0300-run-cloud: the boot/run/store/compare stages end to end on Debian's
# cloud kernel (no build): a real libvirt guest with a 2 GiB NVDIMM, the
# runner's fsdax workload, samples in SQLite, a comparison; then a guest
# that hangs and one that panics.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
say "kernel $CLOUD_KERNEL"

run_small() {
	"$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 4 --map dev "$@"
}

test_expect 'a run boots, times 1 first bind + 4 rebinds, stores them' '
	dead=$(sh -c "echo \$\$") &&
	stale=/dev/shm/mmci-$dead-run99-boot0.nvdimm && : > "$stale" &&
	run_small --label a > out 2> err &&
	cat err && ! [ -e "$stale" ] &&
	grep -q "removed .$stale. of dead pid $dead" err &&
	grep -q "^run #1: ok" out &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 1 AND
	     metric = \"rebind_memmap\"")" = 4 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 1 AND
	     metric = \"first_bind_wall\" AND iteration = 0")" = 1 ] &&
	[ "$(sql "SELECT min(value) > 0 FROM samples WHERE run_id = 1")" = 1 ]
'

test_expect 'a second database on the same data directory: two runs #1, two logs' '
	log1=$(sql "SELECT console_log FROM boots WHERE run_id = 1") &&
	sum1=$(md5sum < "$log1") &&
	MMCI_DB="$TRASH/other.db" run_small --iters 1 --label other > out 2> err &&
	cat err && grep -q "^run #1: ok" out &&
	log2=$(sqlite3 "$TRASH/other.db" "SELECT console_log FROM boots WHERE run_id = 1") &&
	echo "logs: $log1 and $log2" &&
	[ "$log1" = "$(run_dir 1)/boot0-console.log" ] &&
	[ "$log1" != "$log2" ] && grep -q "^mmci: init start" "$log2" &&
	[ "$(md5sum < "$log1")" = "$sum1" ]
'

test_expect 'the run row holds its provenance' '
	sql "SELECT accel, clock, kernel_release, qemu_version, libvirt_version,
	     backing, nvdimm_mib, hz, runner_sha1, initrd_sha1, status
	     FROM runs WHERE id = 1" > prov &&
	grep -q "^tcg|icount|.*-cloud-amd64|[0-9.]*|[0-9.]*|tmpfs|2048|250|[0-9a-f]\{40\}|[0-9a-f]\{40\}|ok$" prov &&
	[ "$(sql "SELECT end_kind FROM boots WHERE run_id = 1")" = poweroff ] &&
	grep -q "memmap_init_zone_device\|mmci-runner" \
		"$(sql "SELECT console_log FROM boots WHERE run_id = 1")"
'

test_expect 'the guest reported the namespace it measured' '
	[ "$(sql "SELECT message FROM events WHERE run_id = 1 AND
	     key = \"pages\"")" -gt 400000 ]
'

test_expect 'icount mode: every rebind of one boot took the same time' '
	[ "$(sql "SELECT count(DISTINCT value) FROM samples WHERE run_id = 1
	     AND metric = \"rebind_memmap\"")" = 1 ]
'

test_expect 'the same kernel twice: compare says no significant change' '
	run_small --label b > out2 && grep -q "^run #2: ok" out2 &&
	"$MMCI" compare 1 2 > cmp &&
	cat cmp &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .*no significant change" cmp &&
	grep -q "^fsdax *align=2M,map=dev *first_bind_memmap .*insufficient data" cmp &&
	grep -q "^verdict: no significant change" cmp
'

test_expect 'two boots of each: first bind becomes comparable' '
	run_small --boots 2 --label c > out3 && grep -q "^run #3: ok" out3 &&
	run_small --boots 2 --label d > out4 && grep -q "^run #4: ok" out4 &&
	"$MMCI" compare 3 4 > cmp2 &&
	grep -q "^fsdax *align=2M,map=dev *first_bind_memmap" cmp2 &&
	! grep -q "^fsdax .*first_bind_memmap .*insufficient" cmp2
'

test_expect 'a workload the kernel lacks: recorded error, the others run' '
	run_small --workloads fsdax,vmap,vmalloc --label lacks > out5 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" out5) &&
	# first bind and 4 rebinds: wall, jiffy and ns each
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     workload = \"fsdax\"")" = 15 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     workload IN (\"vmap\", \"vmalloc\")")" = 0 ] &&
	sql "SELECT workload || \": \" || message FROM events WHERE
	     run_id = $id AND kind = \"error\"" > errs && cat errs &&
	grep -q "^vmap: .*mmci_bench" errs && grep -q "^vmalloc: .*test_vmalloc" errs
'

test_expect 'runs in different modes are never compared' '
	sql "UPDATE runs SET clock = \"wall\" WHERE id = 2" &&
	set +e; "$MMCI" compare 1 2 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "different modes: they are never compared" err
'

test_expect 'runs with different set-ups are not compared' '
	sql "UPDATE runs SET nvdimm_mib = 4096 WHERE id = 4" &&
	set +e; "$MMCI" compare 3 4 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "measured different set-ups: they are not compared" err
'

test_expect 'nothing is left behind: no domain, no NVDIMM file' '
	nothing_left_behind
'

test_expect 'kill -9 of mmci mid-boot: libvirt destroys the guest' '
	before=$(sql "SELECT count(*) FROM samples") &&
	{ "$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 2G --iters 4 \
		--label killed > /dev/null 2>&1 & pid=$!; } &&
	i=0 &&
	prefix=$(domain_prefix) &&
	until virsh -c qemu:///system list --name | grep -q "^$prefix"; do
		i=$((i + 1)); [ $i -lt 300 ] || exit 1; sleep 0.2
	done &&
	sleep 2 && kill -9 $pid &&
	i=0 &&
	while virsh -c qemu:///system list --all --name | grep -q "^$prefix"; do
		i=$((i + 1)); [ $i -lt 60 ] || exit 1; sleep 0.5
	done &&
	! ls /dev/shm/mmci-$pid-* 2>/dev/null &&
	! kill -0 $pid 2>/dev/null &&
	[ "$(sql "SELECT count(*) FROM samples")" = "$before" ]
'

# guests that misbehave, from hand-made initramfs images
mkinit() {
	rm -rf "init.$1" && mkdir -p "init.$1/bin" &&
	cp /bin/busybox "init.$1/bin/busybox" &&
	ln -s busybox "init.$1/bin/sh" &&
	printf "#!/bin/sh\n%s\n" "$2" > "init.$1/init" &&
	chmod +x "init.$1/init" &&
	(cd "init.$1" && find . | cpio -o -H newc 2>/dev/null | gzip) > "$1.cpio.gz"
}

test_expect 'a guest that hangs is destroyed at the timeout, boot failed' '
	mkinit hang "/bin/busybox sleep 100000" &&
	set +e; run_small --initrd hang.cpio.gz --timeout 30 2> err; rc=$?
	set -e
	[ $rc = 1 ] &&
	grep -q "error: run #[0-9]* boot 0 failed: the guest did not finish within 30 s" err &&
	[ "$(sql "SELECT end_kind || \" \" || status FROM boots WHERE
	     run_id = (SELECT max(id) FROM runs)")" = "timeout failed" ] &&
	[ "$(sql "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" = failed ] &&
	no_domains_left
'

test_expect 'a kernel that panics: boot failed, reason recorded' '
	head -c 4096 /dev/urandom > garbage.cpio.gz &&
	set +e; run_small --initrd garbage.cpio.gz --timeout 120 2> err; rc=$?
	set -e
	[ $rc = 1 ] && grep -q "the guest crashed" err &&
	[ "$(sql "SELECT end_kind FROM boots WHERE
	     run_id = (SELECT max(id) FROM runs)")" = crashed ] &&
	sql "SELECT error FROM boots WHERE run_id = (SELECT max(id) FROM runs)" |
		grep -q "Kernel panic" &&
	no_domains_left
'

test_expect 'a runner that says nothing: boot failed, samples of other runs kept' '
	mkinit silent "/bin/busybox poweroff -f" &&
	before=$(sql "SELECT count(*) FROM samples") &&
	set +e; run_small --initrd silent.cpio.gz --timeout 60 2> err; rc=$?
	set -e
	[ $rc = 1 ] && grep -q "the runner did not finish" err &&
	[ "$(sql "SELECT count(*) FROM samples")" = "$before" ]
'

test_expect 'garbage on the results port is rejected line by line' '
	cat > liar.sh <<-\EOS &&
	/bin/busybox mkdir -p /dev
	/bin/busybox mount -t devtmpfs dev /dev
	out=/dev/ttyS1
	echo "{not json" > $out
	echo "{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\",\"metric\":\"x\",\"unit\":\"ms\",\"iter\":1,\"value\":-1}" > $out
	echo "{\"v\":1,\"type\":\"done\",\"status\":\"ok\"}" > $out
	/bin/busybox poweroff -f
	EOS
	mkinit liar "$(cat liar.sh)" &&
	set +e; run_small --initrd liar.cpio.gz --timeout 60 2> err; rc=$?
	set -e
	[ $rc = 1 ] && grep -q "the runner produced no sample" err &&
	[ "$(sql "SELECT count(*) FROM events WHERE kind = \"rejected\"
	     AND run_id = (SELECT max(id) FROM runs)")" = 2 ] &&
	sql "SELECT key FROM events WHERE kind = \"rejected\"" | grep -q "finite number"
'

test_done
