#!/bin/sh
# run.sh - replay the fuzzers' regression inputs, then fuzz each target.
# Run from the project root after the targets are built (`make fuzz`).
# Exits non-zero if a regression input fails again or the fuzzer finds a
# crash, a leak, undefined behaviour, a broken promise or a hang; the input
# is then in tests/fuzz/crashes/.
#
#   FUZZ_SECONDS=600	 time for fuzz-mbox, the mail parser
#   FUZZ_HEADER_SECONDS=120 time for fuzz-header, the header decoders
#   FUZZ_TARGETS="mbox header"
#   FUZZ_MAX_LEN=1048576  largest input in bytes: above the biggest fixture
#			 (174 KB) and MAIL_MAX_HEADER_LEN (256 KiB), so the
#			 limits themselves are reached; far below what slows
#			 libFuzzer down
#   FUZZ_TIMEOUT=10	 seconds for one input: the parser is linear, a
#			 1 MiB input takes milliseconds, so 10 s is a hang
#   FUZZ_RSS_MB=2048	 memory for the process (and for one malloc)
#   FUZZ_FLAGS		 more libFuzzer flags, e.g. -jobs=2 -workers=2
set -eu

dir=tests/fuzz
seconds=${FUZZ_SECONDS:-600}
header_seconds=${FUZZ_HEADER_SECONDS:-120}
targets=${FUZZ_TARGETS:-mbox header}
opts="-max_len=${FUZZ_MAX_LEN:-1048576} -timeout=${FUZZ_TIMEOUT:-10}
	-rss_limit_mb=${FUZZ_RSS_MB:-2048} -malloc_limit_mb=${FUZZ_RSS_MB:-2048}"

say() { echo "fuzz: $*"; }

mkdir -p "$dir/crashes"
for t in $targets; do
	set -- $(find "$dir/regressions/$t" -type f 2>/dev/null | sort)
	[ $# -gt 0 ] || continue
	say "fuzz-$t: replaying $# regression input(s)"
	# shellcheck disable=SC2086
	if ! "$dir/fuzz-$t" $opts "$@" >"$dir/crashes/replay-$t.log" 2>&1; then
		cat "$dir/crashes/replay-$t.log"
		say "fuzz-$t: a regression input fails again (log above)" >&2
		exit 1
	fi
done

for t in $targets; do
	secs=$seconds
	[ "$t" = mbox ] || secs=$header_seconds
	[ "$secs" -gt 0 ] || continue
	mkdir -p "$dir/corpus/$t"
	say "fuzz-$t: $secs s, corpus $dir/corpus/$t ($(ls "$dir/corpus/$t" | wc -l) inputs)"
	# -close_fd_mask=2: error() logs a line for every input that is no
	# mail or no series; libFuzzer and sanitizer reports still show
	# shellcheck disable=SC2086
	if ! "$dir/fuzz-$t" $opts -max_total_time="$secs" \
			-dict="$dir/mbox.dict" -artifact_prefix="$dir/crashes/$t-" \
			-print_final_stats=1 -close_fd_mask=2 ${FUZZ_FLAGS:-} \
			"$dir/corpus/$t"; then
		say "fuzz-$t: found a bug, input in $dir/crashes/:" >&2
		ls -t "$dir/crashes" | grep -v '\.log$' | head -5 >&2
		say "replay it: $dir/fuzz-$t $dir/crashes/<file>" >&2
		exit 1
	fi
	say "fuzz-$t: corpus $dir/corpus/$t now $(ls "$dir/corpus/$t" | wc -l) inputs"
done
