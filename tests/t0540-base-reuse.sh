#!/bin/sh
# t0540-base-reuse: the turnaround of test-series on one host, on real
# kernels and guests (1 GiB NVDIMM, 2 rebinds, 1 boot a kernel: each boot
# is short). In icount mode the base and the series boot at the same time
# (each boot records it), and a base measured before with the same build,
# parameters and set-up is reused, not booted: a second job on the same
# base says so and boots only the series. --remeasure boots the base
# again; another set-up parameter (the NVDIMM size) is not reused; on the
# wall clock nothing is reused and no two boots share the host. Then the
# config step's cache: a second build of the same Kconfig inputs (patch 1
# of the example, a comment, on the same tree) copies the .config the
# first one made and says so in its log.
# mmci-test-needs: vm kernel-build host-alone
. "$(dirname "$0")/lib.sh"
# it asserts icount provenance: pin the accelerator (t0330 tests KVM)
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
SERIES="$SRC/kernel-patches/examples/memmap-slow.mbox"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
SMALL="--nvdimm 1G --iters 2 --boots 1 --max-boots 1"

job() {
	"$MMCI" test-series "$SERIES" --base debian-6.12 "$@" > out 2> err
	rc=$?
	cat out; grep -i "reusing\|at once\|again\|error" err || :
	return $rc
}

test_expect 'init' '
	"$MMCI" init
'

test_expect 'a first job boots the base and the series at once' '
	job $SMALL &&
	! grep -q "reusing run" out &&
	[ "$(sql "SELECT count(*) FROM boots WHERE status = \"ok\"")" = 2 ] &&
	grep -q "2 boot(s), up to 2 at once" err &&
	[ "$(sql "SELECT group_concat(concurrent) FROM boots")" = 2,2 ] &&
	[ "$(sql "SELECT group_concat(concurrent) FROM runs")" = 2,2 ]
'

test_expect 'a second job on the same base reuses its run' '
	job $SMALL &&
	grep -q "^base: reusing run 1, measured .* UTC, same build and set-up" out &&
	[ "$(sql "SELECT count(*) FROM boots WHERE run_id = 1")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM runs")" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM boots")" = 3 ] &&
	[ "$(sql "SELECT json_extract(result, \"$.base_run\") || \"/\" ||
	     json_extract(result, \"$.base_reused\") FROM jobs
	     ORDER BY id DESC LIMIT 1")" = 1/1 ] &&
	grep -q "^verdict:" out
'

test_expect '--remeasure boots the base again' '
	job $SMALL --remeasure &&
	! grep -q "reusing run" out &&
	grep -q "base: measured again (--remeasure)" err &&
	[ "$(sql "SELECT count(*) FROM runs")" = 5 ] &&
	[ "$(sql "SELECT count(*) FROM boots")" = 5 ]
'

test_expect 'another NVDIMM size is not reused' '
	job --nvdimm 2G --iters 2 --boots 1 --max-boots 1 &&
	! grep -q "reusing run" out &&
	[ "$(sql "SELECT count(*) FROM boots")" = 7 ]
'

test_expect 'the wall clock: nothing reused, one boot at a time' '
	job $SMALL --clock wall &&
	job $SMALL --clock wall &&
	! grep -q "reusing run" out &&
	[ "$(sql "SELECT count(*) FROM boots b JOIN runs r ON r.id = b.run_id
	     WHERE r.clock = \"wall\"")" = 4 ] &&
	[ "$(sql "SELECT max(b.concurrent) FROM boots b JOIN runs r
	     ON r.id = b.run_id WHERE r.clock = \"wall\"")" = 1 ] &&
	[ "$(sql "SELECT group_concat(r.label, \"|\") FROM (SELECT b.run_id
	     FROM boots b JOIN runs r ON r.id = b.run_id WHERE r.clock =
	     \"wall\" ORDER BY b.started_at, b.id) x JOIN runs r
	     ON r.id = x.run_id")" != "" ]
'

test_expect 'the config step is cached by its inputs' '
	"$MMCI" build debian-6.12 > b0 &&
	"$MMCI" build debian-6.12 --series "$SERIES" --upto 1 > b1 &&
	cat b1 &&
	bid=$(sed -n "s/^build #\([0-9]*\):.*/\1/p" b1) &&
	log=$(sql "SELECT log_path FROM builds WHERE id = $bid") &&
	grep "config step" "$log" &&
	grep -q "^mmci: config step cached: .*, not run$" "$log"
'

test_done
