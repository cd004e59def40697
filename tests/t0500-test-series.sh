#!/bin/sh
# t0500-test-series: the main job end to end on real parts: the example
# series applied with libgit2 on Debian's 6.12, both kernels built, booted
# through libvirt with a small NVDIMM (4 GiB instead of 100), timed,
# stored, compared. The example's patch 2 adds work per page to
# memmap_init_zone_device(): the verdict must be "worse" for it, and
# patch 1 alone (a comment) must show no significant change.
# mmci-test-needs: vm kernel-build host-alone
# it builds before it holds the host alone (test_host_alone below)
TEST_HOST_ALONE_LATER=1
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
SERIES="$SRC/kernel-patches/examples/memmap-slow.mbox"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"

test_expect 'init (the tree is imported once, then reused)' '
	"$MMCI" init
'

# its kernels first, into the data directory's cache, where the prepared
# job takes them: in make test the other lane's guests run meanwhile,
# and the host is held alone only for this file's boots
# (a database of their own: the prepared job's copy replaces this file's,
# and the suite's ledger counts every database in the trash)
test_expect 'the kernels of the example series, built before any boot' '
	export MMCI_DB="$TRASH/builds.db" &&
	"$MMCI" build debian-6.12 > b0 &&
	"$MMCI" build debian-6.12 --series "$SERIES" --upto 1 > b1 &&
	"$MMCI" build debian-6.12 --series "$SERIES" > b2 && cat b0 b1 b2 &&
	[ "$(sql "SELECT count(*) FROM builds WHERE status = \"ok\"")" = 3 ]
'
test_host_alone

# the main job is test_prepared's (lib.sh): made once per suite run, by
# the first file that asks (this one, in name order; t0520 asks too)
test_expect 'test-series: builds, boots interleaved, says worse' '
	test_prepared_example_4g &&
	cp example-4g.out out && cp example-4g.err err &&
	rc=$(cat example-4g.rc) &&
	cat out; tail -20 err
	[ $rc = 1 ] &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .* worse$" out &&
	grep -q "^verdict: WORSE" out
'

test_expect 'both builds, both runs and every boot are stored' '
	[ "$(sql "SELECT count(*) FROM builds WHERE status = \"ok\"")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"ok\"")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM boots WHERE status = \"ok\"")" = 4 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE metric =
	     \"rebind_memmap\"")" = 32 ] &&
	# icount: two at once, every other round reversed (measure_rounds())
	[ "$(sql "SELECT group_concat(run_id) FROM (SELECT run_id FROM boots
	     ORDER BY id)")" = "1,2,2,1" ] &&
	[ "$(sql "SELECT group_concat(concurrent) FROM runs")" = "2,2" ] &&
	[ "$(sql "SELECT series_id || \"/\" || upto FROM builds WHERE
	     id = (SELECT build_id FROM runs WHERE id = 2)")" = 1/2 ]
'

test_expect 'the comment-only patch 1 alone: no significant change' '
	"$MMCI" build debian-6.12 --series "$SERIES" --upto 1 > b1 &&
	bid=$(sed -n "s/^build #\([0-9]*\):.*/\1/p" b1) &&
	"$MMCI" run --build 1 --nvdimm 4G --iters 8 --map dev --label base > r1 &&
	"$MMCI" run --build "$bid" --nvdimm 4G --iters 8 --map dev --label p1 > r2 &&
	a=$(sed -n "s/^run #\([0-9]*\):.*/\1/p" r1) &&
	b=$(sed -n "s/^run #\([0-9]*\):.*/\1/p" r2) &&
	"$MMCI" compare "$a" "$b" > cmp && cat cmp &&
	grep -q "^fsdax *align=2M,map=dev *rebind_memmap .*no significant change" cmp
'

test_expect 'every workload stores every metric on the built 6.12' '
	"$MMCI" run --build 1 --workloads all --nvdimm 2G --iters 2 \
		--devdax-align 4K,2M,1G --map dev,mem --vmem-sizes 512M,1G \
		--hotplug-iters 2 --kmem-online online_movable \
		--vmem-online online_movable,offline \
		--memremap-size 4G --label all > r3 &&
	id=$(sed -n "s/^run #\([0-9]*\): ok/\1/p" r3) &&
	"$MMCI" workloads | awk "/^[a-z-]*:/ { w = \$1; sub(\":\", \"\", w) }
		/^  [a-z_0-9]+ / { print w, \$1 }" > metrics &&
	[ $(wc -l < metrics) -ge 20 ] &&
	while read -r w m; do
		# mapping counts may be 0 (no PMD blocks on x86_64 6.12);
		# host-side times exist on the wall clock only (t0320)
		case $m in
		*_host) continue ;;
		*_cont_ptes|*_pmds) min=0 ;;
		*) min=1 ;;
		esac
		[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
		     workload = \"$w\" AND metric = \"$m\" AND value >= $min")" -ge 1 ] ||
			{ echo "no $w $m"; exit 1; }
	done < metrics &&
	map() { sql "SELECT group_concat(DISTINCT value) FROM samples WHERE
		     run_id = $id AND workload = \"vmap\" AND metric = \"$1\""; } &&
	# 6.12 on x86_64 maps each of these ranges with 4 KiB entries only
	[ "$(map vmap_100m_order8_ptes)" = 25600.0 ] &&
	[ "$(map vmap_100m_order8_pmds)" = 0.0 ] &&
	[ "$(map vmap_100m_order8_cont_ptes)" = 0.0 ] &&
	[ "$(map vmalloc_huge_1m_ptes)" = 256.0 ] &&
	[ "$(map ioremap_1m_ptes)" = 256.0 ] &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = $id AND
	     workload = \"vmalloc\" AND metric = \"fix_size_alloc_test\"")" -ge 1 ] &&
	[ "$(sql "SELECT count(DISTINCT variant) FROM samples WHERE
	     run_id = $id AND workload = \"devdax\"")" = 6 ] &&
	[ "$(sql "SELECT count(DISTINCT variant) FROM samples WHERE
	     run_id = $id AND workload = \"kmem\"")" = 2 ] &&
	sql "SELECT message FROM events WHERE run_id = $id AND kind = \"info\"
	     AND key = \"memmap_on_memory_effective\"" > mm && cat mm &&
	grep -qi "yes\|1\|true" mm
'

test_expect 'no domain and no NVDIMM file left' '
	nothing_left_behind
'

test_done
