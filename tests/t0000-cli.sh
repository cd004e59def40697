#!/bin/sh
# t0000-cli: the binary, its commands and their help.
. "$(dirname "$0")/lib.sh"

test_expect 'mmci --help lists the pipeline commands' '
	"$MMCI" --help > help &&
	for c in init apply build run compare test-series show; do
		grep -q "^  $c " help || { echo "no $c"; exit 1; }
	done
'

for c in init apply build run compare test-series show workloads; do
	test_expect "mmci $c --help prints its usage" "
		\"\$MMCI\" $c --help > out.help &&
		grep -q '^usage: mmci $c' out.help
	"
done

test_expect 'mmci workloads lists every workload with its metrics' '
	"$MMCI" workloads > wl &&
	for w in fsdax devdax vmap memremap vmalloc; do
		grep -q "^$w: " wl || { echo "no $w"; exit 1; }
	done &&
	grep -q "^  rebind_memmap *ms  lower is better" wl &&
	grep -q "^  vmap_100m_order8 *us " wl
'

test_expect 'an unknown workload is refused before anything boots' '
	set +e; "$MMCI" run --kernel "$MMCI" --release x --workloads fsdax,nope \
		2> err; rc=$?; set -e
	[ $rc = 1 ] && grep -q "unknown workload .nope." err &&
	[ "$(sql "SELECT count(*) FROM runs")" = 0 ]
'

test_expect 'an unknown command fails with 129 and a clear message' '
	set +e; "$MMCI" frobnicate 2> err; rc=$?; set -e
	[ $rc = 129 ] && grep -q "error: .frobnicate. is not an mmci command" err
'

test_expect 'a bad option value is refused' '
	set +e; "$MMCI" run --kernel /nonexistent --iters x 2> err; rc=$?
	set -e
	[ $rc != 0 ] && grep -q "iters wants a positive number" err
'

test_expect 'run refuses a missing kernel with one error line' '
	set +e; "$MMCI" run --kernel /nonexistent/vmlinuz-1 2> err; rc=$?
	set -e
	[ $rc != 0 ] && grep -q "kernel ./nonexistent/vmlinuz-1. not found" err
'

test_expect 'under journald (JOURNAL_STREAM names stderr) lines carry a priority' '
	: > jerr &&
	set +e
	JOURNAL_STREAM=$(stat -c "%d:%i" jerr) "$MMCI" run --kernel /nonexistent/vmlinuz-1 2>> jerr
	JOURNAL_STREAM=1:1 "$MMCI" run --kernel /nonexistent/vmlinuz-1 2> plain
	set -e
	cat jerr plain &&
	grep -q "^<3>error: kernel ./nonexistent/vmlinuz-1. not found" jerr &&
	grep -q "^error: kernel ./nonexistent/vmlinuz-1. not found" plain
'

test_done
