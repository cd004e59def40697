#!/bin/sh
# throughput.sh - how long a series waits for its mail when the list
# sends many at once. Ten series of mixed kinds (1 to 5 patches: the
# memmap, vmalloc and hotplug kinds mmci was built for, one touching two
# kinds, one outside mmci's scope) are made on the debian-6.12 tree and
# put into a real public-inbox v2 inbox (tests/lib-inbox.sh) in one
# burst, while `mmci daemon` follows that inbox as it follows lore. For
# each series: arrival (the burst) -> queued -> started -> finished ->
# mail written, then the median and the maximum of arrival -> mail.
# Twice: on this host's libvirtd alone, then with a second libvirtd
# (tests/lib-libvirtd2.sh), where the daemon runs one job per host. The
# second round gets new series (other comments, so other trees and new
# builds) and a new database, so nothing the first measured or built for
# a series is reused; both take the base build from the build cache.
#
# Builds are real (out-of-tree, ccache, the checkout's build cache, one
# at a time: the data directory's build lock); boots are real icount
# guests. What keeps it to about 20 to 30 minutes a round on two CPUs
# (the knobs, all environment):
#   BENCH_TP_PER_PATCH=0     the daemon measures each series whole
#                            (MMCI_PER_PATCH; 1 measures every step, as
#                            the daemon's default does)
#   BENCH_TP_RUN_ARGS=...    MMCI_RUN_ARGS: one boot per run, a 1 GiB
#                            NVDIMM, 8 iterations, 2M only (below)
#   BENCH_TP_POLL_S=30       MMCI_POLL_S (the daemon's default is 300 s:
#                            up to that much more per series)
#   BENCH_TP_HOSTS="1 2"     the rounds: 1 host, 2 hosts
#   BENCH_TP_TIMEOUT_S=3600  a round that has not mailed every series by
#                            then fails
# Needs root, libvirt, public-inbox, Debian's cloud kernel and the
# checkout's debian-6.12 tree (make demo makes it). `make bench-throughput`
# runs it. Prints per-series tables (and why a series was not mailed)
# and the summary lines; exits non-zero if a series is never reported.
# mmci-test-needs: vm kernel-build root
. "$(dirname "$0")/../tests/lib.sh"
. "$SRC/tests/lib-inbox.sh"
. "$SRC/tests/lib-libvirtd2.sh"

[ "$(id -u)" = 0 ] || skip_all "it needs root (libvirt, a second libvirtd)"
need_libvirt
for t in public-inbox-init public-inbox-httpd perl python3 sqlite3 git; do
	command -v $t >/dev/null ||
		skip_all "$t is not installed (make setup installs it)"
done
export MMCI_DATA="$SRC/var" MMCI_TREE="$SRC/var/linux"
git -C "$MMCI_TREE" rev-parse -q --verify debian-6.12 >/dev/null ||
	skip_all "no debian-6.12 tree in $MMCI_TREE (run make demo first)"
unset MMCI_CONFIG MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_SEND \
	MMCI_LIBVIRT_URIS MMCI_BASE_BRANCHES MMCI_DISCOVER_FEED MMCI_AIM_MAP
export MMCI_ACCEL=tcg MMCI_BASE=debian-6.12 MMCI_INBOX_START=all
export MMCI_SOURCES=inbox MMCI_POLL_S=${BENCH_TP_POLL_S:-30}
export MMCI_PER_PATCH=${BENCH_TP_PER_PATCH:-0} MMCI_AIM_MAX_NVDIMM=1G
export MMCI_RUN_ARGS="${BENCH_TP_RUN_ARGS:---iters 8 --boots 1 --max-boots 1 --nvdimm 1G --align 2M --map dev}"
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0
# lib-inbox.sh's HOME has no git identity: format-patch needs one
export GIT_AUTHOR_NAME="Dev Eloper" GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME="Dev Eloper" GIT_COMMITTER_EMAIL=dev@example.org
HOSTS_ROUNDS=${BENCH_TP_HOSTS:-1 2}
TIMEOUT_S=${BENCH_TP_TIMEOUT_S:-3600}
H2="$TRASH/lv2"
LIBVIRTD2_HIDE="$SRC"
export LIBVIRTD2_HIDE
libvirtd2_hosts "$H2"

# the series: kind, patch count, the files patches 2.. touch in turn.
# Patch 1 makes the kind's kernel slower (slow_patch), so that each
# series in scope has a regression to mail; "outside" touches only
# mm/damon/ (a smoke run, reported as outside mmci's scope, no mail).
SERIES="memmap 2 mm/memremap.c
vmalloc 1 -
hotplug 3 drivers/virtio/virtio_mem.c,drivers/dax/kmem.c
memmap 5 mm/memremap.c,drivers/nvdimm/pfn_devs.c,drivers/dax/device.c,mm/mm_init.c
vmalloc 2 mm/ioremap.c
hotplug 1 -
outside 1 -
vmalloc 4 mm/ioremap.c,mm/vmalloc.c,mm/vmalloc.c
memmap 1 -
both 2 -"

# slow_patch KIND: "FILE|FUNCTION'S FIRST LINE|ITERATIONS" of its patch
# 1: a noinline loop the function calls first (instructions, so icount
# sees it), as a declaration, so no statement comes before a declaration
slow_patch() {
	case $1 in
	memmap) echo "mm/mm_init.c|void __ref memmap_init_zone_device(struct zone *zone,|5000000" ;;
	vmalloc|both) echo "mm/vmalloc.c|void *vmap(struct page **pages, unsigned int count,|200000" ;;
	hotplug) echo "mm/memory_hotplug.c|int online_pages(unsigned long pfn, unsigned long nr_pages,|2000000" ;;
	*) echo "mm/damon/core.c|-|0" ;;
	esac
}

# edit SIG N TAG: a C file on stdin with the loop before the function
# whose first line is SIG (and its call), or with a comment (SIG -)
edit() {
	awk -v sig="$1" -v n="$2" -v tag="$3" '
		sig != "-" && !done && $0 == sig {
			print "static noinline unsigned long mmci_bench_slow(unsigned long n)"
			print "{"
			print "\tunsigned long i;"
			print ""
			print "\tfor (i = 0; i < n; i++)"
			print "\t\tbarrier();"
			print "\treturn i;"
			print "}"
			print ""
			armed = 1
		}
		{ print }
		armed && $0 == "{" {
			printf "\tunsigned long mmci_slow __maybe_unused = mmci_bench_slow(%d);\n", n
			armed = 0; done = 1
		}
		END {
			if (sig == "-") print "/* throughput bench: " tag " */"
			else if (!done) exit 1
		}'
}

# make_series ROUND K KIND N FILES: series K of round ROUND as mails in
# $TRASH/mails/ROUND/K/, on debian-6.12, with a base-commit trailer.
# Commits are made without a worktree (a private index). The loop's
# iteration count differs by round, so every round builds new kernels.
make_series() {
	ms_dir="$TRASH/mails/$1/$2" &&
	ms_base=$(git -C "$MMCI_TREE" rev-parse "debian-6.12^{commit}") &&
	ms_parent=$ms_base && mkdir -p "$ms_dir" &&
	GIT_INDEX_FILE="$TRASH/index.$1.$2" && export GIT_INDEX_FILE &&
	git -C "$MMCI_TREE" read-tree "$ms_parent" &&
	files=$(slow_patch "$3" | cut -d"|" -f1) &&
	{ [ "$5" = - ] || files="$files,$5"; } &&
	{ [ "$3" != both ] || files="$files,mm/memory_hotplug.c"; } &&
	i=1 && for f in $(echo "$files" | tr , " "); do
		sig=- n=0 kind=$3
		[ "$3" = both ] && [ $i = 2 ] && kind=hotplug
		if [ $i = 1 ] || [ "$kind" != "$3" ]; then
			sig=$(slow_patch "$kind" | cut -d"|" -f2)
			n=$(( $(slow_patch "$kind" | cut -d"|" -f3) + $1 ))
		fi
		blob=$(git -C "$MMCI_TREE" cat-file blob "$ms_parent:$f" |
			edit "$sig" "$n" "round $1, series $2, patch $i" |
			git -C "$MMCI_TREE" hash-object -w --stdin) &&
		{ [ "$sig" = - ] || git -C "$MMCI_TREE" cat-file blob "$blob" |
			grep -q "mmci_bench_slow($n)"; } &&
		git -C "$MMCI_TREE" update-index --cacheinfo "100644,$blob,$f" &&
		tree=$(git -C "$MMCI_TREE" write-tree) &&
		ms_parent=$(printf "%s: %s %d\n\nFor the throughput bench.\n\nSigned-off-by: Dev Eloper <dev@example.org>\n" \
			"$(basename "$f" .c)" "$([ "$sig" = - ] && echo note || echo "slower, step")" "$i" |
			GIT_AUTHOR_NAME="Dev Eloper" GIT_AUTHOR_EMAIL=dev@example.org \
			GIT_COMMITTER_NAME="Dev Eloper" GIT_COMMITTER_EMAIL=dev@example.org \
			GIT_AUTHOR_DATE="2026-12-04T10:00:00Z" \
			GIT_COMMITTER_DATE="2026-12-04T10:00:00Z" \
			git -C "$MMCI_TREE" commit-tree "$tree" -p "$ms_parent") &&
		i=$((i + 1)) || return 1
	done &&
	[ $((i - 1)) = "$4" ] &&
	unset GIT_INDEX_FILE && rm -f "$TRASH/index.$1.$2" &&
	git -C "$MMCI_TREE" format-patch -q -o "$ms_dir" --cover-letter \
		--thread=shallow --base="$ms_base" --to=linux-mm@kvack.org \
		"$ms_base..$ms_parent" &&
	sed -i -e "s/\*\*\* SUBJECT HERE \*\*\*/$3: throughput bench series $2 (round $1)/" \
		-e "s/\*\*\* BLURB HERE \*\*\*/Series $2 of the burst, kind $3./" \
		-e "s/^Message-I[Dd]: <\(.*\)>/Message-ID: <r$1.s$2.\1>/" \
		-e "s/^In-Reply-To: <\(.*\)>/In-Reply-To: <r$1.s$2.\1>/" \
		-e "s/^References: <\(.*\)>/References: <r$1.s$2.\1>/" \
		"$ms_dir"/*.patch &&
	# one mail a file, without the mbox "From " line
	for p in "$ms_dir"/*.patch; do
		sed -i "1{/^From /d}" "$p" || return 1
	done
}

# round R NHOSTS: the burst into a new inbox, the daemon following it
# with a new database, until every job is reported (mailed or not)
round() {
	r=$1 nhosts=$2
	export MMCI_DB="$TRASH/round$r.db"
	if [ "$nhosts" = 2 ]; then
		export MMCI_LIBVIRT_URIS="qemu:///system $(cat "$H2/uri")"
		export MMCI_LIBVIRT_POOL=mmci
	else
		unset MMCI_LIBVIRT_URIS MMCI_LIBVIRT_POOL
	fi
	"$MMCI" init --no-tree > /dev/null || return 1
	inbox_init "lm$r" "$TRASH/pi/lm$r" || return 1
	stop "$TRASH/httpd.pid" && inbox_serve || return 1
	export MMCI_INBOX_URL="http://127.0.0.1:$INBOX_PORT/lm$r"
	k=1
	echo "$SERIES" | while read -r kind n files; do
		make_series "$r" "$k" "$kind" "$n" "$files" || exit 1
		k=$((k + 1))
	done || return 1
	"$MMCI" daemon --no-web >> "$TRASH/daemon$r.log" 2>&1 &
	echo $! > "$TRASH/daemon.pid"
	# the first poll makes the mark on the empty inbox
	i=0
	until [ "$(sql "SELECT count(*) FROM inbox_marks")" = 1 ]; do
		i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.5
	done
	t0=$(date +%s)
	inbox_deliver "lm$r" "$TRASH"/mails/$r/*/*.patch || return 1
	say "round $r ($nhosts host(s)): 10 series, $(ls "$TRASH"/mails/$r/*/*.patch | wc -l) mails into the inbox at $(date -u -d @$t0 +%T)"
	while :; do
		jobs=$(sql "SELECT count(*) FROM jobs")
		open=$(sql "SELECT count(*) FROM jobs WHERE reported_at IS NULL")
		[ "$jobs" -ge 10 ] && [ "$open" = 0 ] && break
		[ $(( $(date +%s) - t0 )) -lt "$TIMEOUT_S" ] || {
			say "round $r: not done after $TIMEOUT_S s: $jobs job(s), $open not reported"
			break
		}
		sleep 5
	done
	stop "$TRASH/daemon.pid"
	report "$r" "$nhosts" "$t0"
}

# median and maximum of the numbers in FILE, one a line, sorted
med_max() {
	awk '{ v[NR] = $1 } END { if (!NR) { print "- -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[NR] }' "$1"
}

# report ROUND NHOSTS T0: one line per series, then the summary line
# (hosts, jobs, reported, mailed, report median/max, mail median/max)
report() {
	mail_of="(SELECT min(strftime('%s', m.created)) FROM mails m
		  WHERE m.series_id = s.id)"
	sql "SELECT s.title, j.status, round(j.created_at - $3),
	       round(j.started_at - $3), round(j.ended_at - $3),
	       round(j.reported_at - $3), ifnull($mail_of - $3, '-'),
	       json_extract(j.params, '$.aim.workloads')
	     FROM jobs j JOIN series s ON s.id = j.series_id ORDER BY j.id" |
	awk -F'|' -v r="$1" -v h="$2" '
		BEGIN { printf "# round %s, %s host(s): seconds after the burst\n", r, h
			printf "# %-44s %-6s %6s %6s %6s %6s %6s  %s\n", "series",
				"job", "queued", "start", "end", "report", "mail",
				"workloads" }
		{ printf "# %-44.44s %-6s %6d %6d %6d %6d %6s  %s\n", $1, $2, $3,
			$4, $5, $6, $7, $8 }'
	sql "SELECT s.title || ': ' || ifnull(j.report_note, '?') FROM jobs j
	     JOIN series s ON s.id = j.series_id WHERE $mail_of IS NULL
	     ORDER BY j.id" | sed 's/^/# /'
	sql "SELECT round(reported_at - $3) FROM jobs WHERE reported_at
	     IS NOT NULL ORDER BY 1" > "$TRASH/report.$1"
	sql "SELECT $mail_of - $3 FROM series s WHERE $mail_of IS NOT NULL
	     ORDER BY 1" > "$TRASH/mail.$1"
	line="$2 $(sql "SELECT count(*) FROM jobs") $(grep -c . "$TRASH/report.$1") $(grep -c . "$TRASH/mail.$1") $(med_max "$TRASH/report.$1") $(med_max "$TRASH/mail.$1")"
	echo "$line" >> "$TRASH/summary"
	set -- $line
	say "round $r, $1 host(s): $3 of $2 jobs reported (median $5 s, max $6 s after the burst), $4 mailed (median $7 s, max $8 s)"
}

test_expect 'the second libvirtd, its pool' '
	libvirtd2_start "$H2" && libvirtd2_pool "$H2" mmci
'

r=0
for h in $HOSTS_ROUNDS; do
	r=$((r + 1))
	test_expect "round $r, $h host(s): ten series at once, each queued once and reported" '
		round '"$r $h"' &&
		sed -n "'"$r"'p" summary | {
			read -r h jobs reported mailed rest &&
			[ "$jobs" = 10 ] && [ "$reported" = 10 ] && [ "$mailed" -ge 1 ]
		}
	'
done

test_expect 'the summary: arrival -> report and -> mail, per round' '
	while read -r h jobs reported mailed rmed rmax mmed mmax; do
		echo "$h host(s): arrival -> report median $rmed s, max $rmax s ($reported of $jobs); arrival -> mail median $mmed s, max $mmax s ($mailed mailed)"
	done < summary
'
test_done
