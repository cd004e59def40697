#!/bin/sh
# t1450-long-series: a long series is measured on the steps that moved,
# found by bisection (test-series --steps=auto, the daemon's way; issue
# 29), and gives the verdict measuring every step gives.
#
# The series is made here, N patches (BISECT_N, default 12) on
# debian-6.12: documentation lines (a new file, built into nothing),
# and at K = N/2 and K+1 the two patches of kernel-patches/examples/
# memmap-slow.mbox (a comment tidy, then the verification pass that
# costs two thirds more per bind); patch K/2's changelog claims a faster
# rebind. Under icount base and head differ, so
# the middle of each interval whose ends differ is measured until the
# change is pinned to patch K+1; intervals whose ends are equal are
# folded, their note saying a change undone inside cannot be seen.
# Then --steps=all measures all N+1 kernels: the same verdict, the same
# patch named, the same own change of that patch. fsdax, 1 GiB NVDIMM,
# 8 rebinds, one boot per kernel. About 4 min at N=12 with a warm
# ccache (bisection: 5 kernels; every step: 13); BISECT_N=30 is the
# size of the issue's numbers.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/../lib.sh"
export MMCI_ACCEL=tcg
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_SEND MMCI_CONFIG \
	MMCI_SOURCES MMCI_LIBVIRT_URIS MMCI_BASE_BRANCHES

export MMCI_DATA="$SRC/var"
export MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
N=${BISECT_N:-12}
K=$((N / 2))
C=$((K / 2))	# a documentation patch whose changelog makes a claim
RUNOPTS="--workloads fsdax --nvdimm 1G --iters 8 --boots 1 --max-boots 1"

test_expect 'init' '
	"$MMCI" init
'

# the series, as commits of a scratch clone that shares the tree's
# objects (no checkout: a temporary index), then git format-patch
test_expect "a series of $N patches, the regression at $((K + 1))" '
	git clone -q --shared --no-checkout "$MMCI_TREE" gen &&
	mkdir gen/slow &&
	git -C gen mailsplit -o"$TRASH/gen/slow" \
		"$SRC/kernel-patches/examples/memmap-slow.mbox" > /dev/null &&
	export GIT_INDEX_FILE="$TRASH/gen/.git/scratch-index" \
		GIT_AUTHOR_NAME="A Uthor" GIT_AUTHOR_EMAIL="author@example.org" \
		GIT_COMMITTER_NAME="A Uthor" GIT_COMMITTER_EMAIL="author@example.org" \
		GIT_AUTHOR_DATE="1735689600 +0000" GIT_COMMITTER_DATE="1735689600 +0000" &&
	git -C gen read-tree debian-6.12 &&
	prev=$(git -C gen rev-parse debian-6.12) && : > doc &&
	i=1 && while [ $i -le $N ]; do
		if [ $i = $K ] || [ $i = $((K + 1)) ]; then
			m=$((i - K + 2)) &&
			git -C gen mailinfo msg patch < gen/slow/000$m > info &&
			git -C gen apply --cached "$TRASH/gen/patch" &&
			subj=$(sed -n "s/^Subject: //p" info)
		else
			echo "line $i of the notes" >> doc &&
			blob=$(git -C gen hash-object -w "$TRASH/doc") &&
			git -C gen update-index --add --cacheinfo \
				100644,$blob,Documentation/mm/mmci-notes.rst &&
			subj="Documentation/mm: mmci notes, line $i" &&
			if [ $i = $C ]; then
				subj="$subj

With this the fsdax rebind, memmap_init_zone_device(): 160 ms -> 80 ms."
			fi
		fi &&
		tree=$(git -C gen write-tree) &&
		prev=$(echo "$subj" | git -C gen commit-tree $tree -p $prev) &&
		i=$((i + 1)) || return 1
	done &&
	unset GIT_INDEX_FILE &&
	git -C gen format-patch -q -n --thread --stdout debian-6.12..$prev \
		> series.mbox &&
	[ "$(grep -c "^Subject: \[PATCH [0-9]*/$N\]" series.mbox)" = $N ] &&
	grep -q "^Subject: \[PATCH 0*$((K + 1))/$N\] mm/mm_init: verify" series.mbox
'

# steps SOURCE JOB: the steps of JOB whose source is SOURCE, "0,6,7"
steps() {
	sql "SELECT group_concat(upto) FROM (SELECT upto FROM job_steps WHERE
	     job_id = $2 AND source = \"$1\" ORDER BY upto)"
}

test_expect 'bisected: patch K+1 named, a few kernels, the rest folded' '
	"$MMCI" test-series series.mbox --base debian-6.12 --steps=auto \
		$RUNOPTS > bisect.out 2> bisect.err ||
		{ tail -30 bisect.err; exit 1; }
	cat bisect.out && grep "bisection" bisect.err &&
	j=$(sql "SELECT max(id) FROM jobs") && echo $j > bisect.job &&
	m=$(steps measured $j),$(steps reused $j) && m=${m%,} &&
	echo "measured: $m" &&
	f=$(steps folded $j) && echo "folded: $f" &&
	echo "$m" | tr , "\n" | grep -qx $K &&
	echo "$m" | tr , "\n" | grep -qx $((K + 1)) &&
	# the claim of patch C is held against its own step: C-1 and C
	echo "$m" | tr , "\n" | grep -qx $((C - 1)) &&
	echo "$m" | tr , "\n" | grep -qx $C &&
	[ $(echo "$m" | tr , "\n" | grep -c .) -lt $((N / 2 + 2)) ] &&
	[ $(echo "$m,$f" | tr , "\n" | grep -c .) = $((N + 1)) ] &&
	grep -q "^verdict: WORSE: patch $((K + 1))/$N fsdax [a-z_]* +" bisect.out &&
	grep -q "^patches [0-9]*-[0-9]*: not measured: +[0-9]* and +[0-9]* do not differ (bisection).*a change undone in between cannot be seen$" bisect.out &&
	"$MMCI" show job $j > show.out && grep -q "folded" show.out
'

test_expect 'every step measured: the same verdict, the same patch' '
	"$MMCI" test-series series.mbox --base debian-6.12 --steps=all \
		$RUNOPTS > all.out 2> all.err || { tail -30 all.err; exit 1; }
	j=$(sql "SELECT max(id) FROM jobs") &&
	[ "$(steps folded $j)" = "" ] &&
	grep "^verdict: " bisect.out | sed -n 1p > v1 &&
	grep "^verdict: " all.out | sed -n 1p > v2 &&
	cat v1 v2 && cmp v1 v2 &&
	# the own and cumulative change of patch K+1 and their verdicts, to
	# the percent: its kernel may be built twice, and two builds of one
	# source differ by a few instructions in a million (the build
	# number, the time stamp), so the _ns medians differ in the last
	# digits; the ms medians and every verdict are the same
	own() {
		grep "^  +$((K + 1)) mm/mm_init: verify" "$1" |
		awk "{ printf \"%s %.0f%% %s %.0f%% %s\\n\", \$1, \$(NF - 7), \$(NF - 4), \$(NF - 3), \$NF }"
	} &&
	own bisect.out > o1 && own all.out > o2 &&
	cat o1 o2 && cmp o1 o2 && [ $(grep -c worse o1) = 3 ] &&
	grep -A2 "^  patch $C, line" bisect.out > c1 &&
	grep -A2 "^  patch $C, line" all.out > c2 &&
	cat c1 c2 && cmp c1 c2 &&
	b=$(cat bisect.job) &&
	echo "kernels: bisection $(sql "SELECT count(*) FROM job_steps WHERE
		job_id = $b AND source != \"folded\""), every step $(sql "SELECT
		count(*) FROM job_steps WHERE job_id = $j")"
'

test_done
