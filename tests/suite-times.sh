#!/bin/sh
# suite-times.sh LOG: each test file's time, from the output of prove -v
# --timer (make test and .ci/run print it), as the Markdown table of
# docs/TESTING.md: the files sorted by time, longest first, then the
# totals: the files' own time added up, and prove's wall clock. A file that
# boots a guest or builds a kernel (the Makefile's sequence) is marked *.
# Then the kernels built and guests booted, from the files' "# ledger:"
# lines (tests/lib.sh, test_ledger).
#
#	sh tests/suite-times.sh /tmp/make-test.log [MIN_S]
#
# MIN_S (default 0): list only files that took at least that long.
set -eu
log=${1:?usage: suite-times.sh LOG [MIN_S]}
min=${2:-0}
top=$(cd "$(dirname "$0")/.." && pwd)
heavy=$(cd "$top" && grep -l -e '^# mmci-test-needs:.*\(vm\|kernel-build\)' \
	-e '^test_expect_vm ' tests/t[0-9]*.sh | tr '\n' ' ')
awk -v min="$min" -v heavy=" $heavy " '
/^ci: make [^:]*$/ { split("", t); total = seq = built = taken = boots = profiled = 0 }
/^(\[[0-9:]+\] )?(tests|build-sanitize)\/[^ ]+ \.+( |$)/ {
	file = $1 ~ /^\[/ ? $2 : $1
	next
}
/^# ledger: [0-9]+ built, [0-9]+ taken from the cache, [0-9]+ boots, [0-9]+ profiled$/ {
	built += $3; taken += $5; boots += $10; profiled += $12
	next
}
file != "" && /^(ok|not ok|Failed|Dubious|skipped)? *[0-9]+ ms/ {
	match($0, /[0-9]+ ms/)
	ms = substr($0, RSTART, RLENGTH - 3)
	t[file] = ms / 1000
	total += ms / 1000
	if (index(heavy, " " file " "))
		seq += ms / 1000
	file = ""
}
/^Files=[0-9]+, Tests=[0-9]+, +[0-9]+ wallclock/ {
	wall = $3
	files = $1
	tests = $2
	sub(/Files=/, "", files); sub(/,/, "", files)
	sub(/Tests=/, "", tests); sub(/,/, "", tests)
}
END {
	n = 0
	for (f in t)
		if (t[f] >= min)
			order[++n] = f
	for (i = 2; i <= n; i++)	# insertion sort, longest first
		for (j = i; j > 1 && t[order[j]] > t[order[j - 1]]; j--) {
			x = order[j]; order[j] = order[j - 1]; order[j - 1] = x
		}
	print "| file | s |"
	print "|---|---|"
	for (i = 1; i <= n; i++)
		printf "| %s%s | %.0f |\n", order[i],
		       index(heavy, " " order[i] " ") ? " *" : "", t[order[i]]
	printf "\n%d files, %d tests: %.0f s of file time (%.0f s in the " \
	       "sequence of files that boot or build, *), %s s wall\n",
	       files, tests, total, seq, wall
	printf "kernels: %d built, %d taken from the data directory'"'"'s " \
	       "cache; guests: %d boots measured, %d profiling boots\n",
	       built, taken, boots, profiled
}' "$log"
