#!/bin/sh
# t0400-build-kernel: build the real 6.12 kernel with the fragment, out of
# tree with ccache; the second request is a cache hit; a series that breaks
# the build gives one clear error and a failed row.
#
# Cold, this builds a kernel (7.5-10 min on two cores): the tree, worktree,
# object directory and ccache are shared with ./var of the checkout, so
# later runs and t0500 reuse them.
# mmci-test-needs: kernel-build
. "$(dirname "$0")/lib.sh"

# relative on purpose, as in `make demo` (./var): mmci makes them absolute
# (../../var from the trash directory, longer when lib.sh keeps it
# outside the checkout)
export MMCI_DATA="$(realpath -m --relative-to="$TRASH" "$SRC/var")"
export MMCI_TREE="$MMCI_DATA/linux"
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"

test_expect 'init imports the Debian 6.12 source (once)' '
	"$MMCI" init &&
	git -C "$MMCI_TREE" rev-parse -q --verify "debian-6.12^{commit}"
'

test_expect 'build debian-6.12: bzImage, modules, a checked config' '
	"$MMCI" build debian-6.12 > out &&
	grep -q "^build #1: 6\.12\.[0-9]*+* " out &&
	art=$(sql "SELECT artifacts FROM builds WHERE id = 1") &&
	[ -s "$art/bzImage" ] && [ -s "$art/build.log" ] &&
	case "$art" in /*/../*|*/./*) echo "not normalised: $art"; exit 1;; esac &&
	[ -s "$art/mmci-bench/mmci_bench.ko" ] &&
	rel=$(sql "SELECT kernel_release FROM builds WHERE id = 1") &&
	for m in nd_pmem dax_pmem device_dax nfit libnvdimm; do
		find "$art/modroot/lib/modules/$rel" -name "$m.ko" | grep -q . ||
			{ echo "no $m.ko"; exit 1; }
	done &&
	grep -q "^CONFIG_HZ_1000=y" "$art/config" &&
	grep -q "^CONFIG_ZONE_DEVICE=y" "$art/config" &&
	[ "$(sql "SELECT hz || \" \" || status FROM builds WHERE id = 1")" = "1000 ok" ]
'

test_expect 'asking again builds nothing (cache keyed by tree, config, cc)' '
	"$MMCI" build debian-6.12 > out2 &&
	grep -q "^build #1: .*(cached)$" out2 &&
	[ "$(sql "SELECT count(*) FROM builds")" = 1 ]
'

test_expect 'a series that breaks the build: one error line, failed row' '
	git -C "$MMCI_TREE" show debian-6.12:mm/mm_init.c > old.c &&
	sed "1a #error mmci-test-build-failure" old.c > new.c &&
	{ git diff --no-index old.c new.c || true; } |
		sed -e "s,a/old.c,a/mm/mm_init.c,g" -e "s,b/new.c,b/mm/mm_init.c,g" \
		    -e "s,^diff --git .*,diff --git a/mm/mm_init.c b/mm/mm_init.c," > diff &&
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: Test <test@example.org>"
		echo "Date: Mon, 30 Nov 2026 12:00:00 +0000"
		echo "Subject: [PATCH] mm: break the build"
		echo
		echo "This must not compile."
		echo "---"
		cat diff
	} > broken.mbox &&
	set +e; "$MMCI" build debian-6.12 --series broken.mbox 2> err; rc=$?
	set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "error: kernel build failed at .make bzImage modules. (exit [0-9]*): .*mmci-test-build-failure.*: see .*/build.log" err &&
	[ "$(sql "SELECT status FROM builds WHERE id = 2")" = failed ] &&
	sql "SELECT error FROM builds WHERE id = 2" | grep -q mmci-test-build-failure
'

test_expect 'the base still comes from the cache after the failure' '
	"$MMCI" build debian-6.12 > out3 && grep -q "(cached)$" out3
'

test_done
