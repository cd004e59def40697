#!/bin/sh
# web.sh - the web pages at the size issue 14 measured them: 10,000
# runs, 2,500 samples in each of the newest 500, 2,000 series
# (bench/web-gen.sh, straight into SQLite). Prints the targets and what
# was measured:
#   - a first full render (`mmci web --render --all`: every run page and
#     bundle, the newest runs' compare pages, every series, the metric
#     pages): < 60 s
#   - rendering one finished job's pages (its 2 runs, their compare
#     pages, the series, the index, 5 metric pages): < 1 s
#   - a normal request with 200 slow clients attached (each from its own
#     127.1.x.y address, a header byte every 3 s): p50 and p99 < 100 ms
#   - 50 clients at once (4 requests each): all answered
#   - 200 idle connections: requests still answered
# Loopback only. `make bench-web` runs it on ./mmci; with
# BENCH_WEB_BEFORE=/path/to/older/mmci it measures that binary the same
# way (an mmci that renders per request: the job's pages are then timed
# as requests). BENCH_WEB_DIR keeps the databases (default: a temporary
# directory, removed). About 5 minutes per binary on 2 CPUs.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
MMCI=${MMCI:-$SRC/mmci}
LOAD="python3 $SRC/tests/t0920-web-load.py"
RUNS=${BENCH_WEB_RUNS:-10000} SAMPLED=${BENCH_WEB_SAMPLED:-500}
PER=${BENCH_WEB_PER:-2500} SERIES=${BENCH_WEB_SERIES:-2000}
DIR=${BENCH_WEB_DIR:-}
if [ -z "$DIR" ]; then
	DIR=$(mktemp -d /tmp/mmci-bench-web.XXXXXX)
	# run as root, mmci reads the database as its service user
	# (MMCI_USER), who must reach it: mktemp made the directory 0700
	chmod 755 "$DIR"
	trap 'rm -rf "$DIR"' EXIT
fi
PREV=$((RUNS - 1)) PREV2=$((RUNS - 2))
VARIANT='align%3D2M%2Cmap%3Ddev'
JOB_PAGES="/ /run/$RUNS /run/$PREV /compare/$PREV/$RUNS /compare/$PREV2/$PREV
/series/$SERIES"
for m in rebind_memmap rebind_wall probe_ms remove_ms add_ms; do
	JOB_PAGES="$JOB_PAGES /metric/fsdax/$m?variant=$VARIANT"
done
PATHS="--path / --path /run/$RUNS --path /run/$((RUNS / 2))
	--path /compare/$PREV/$RUNS --path /series/$SERIES
	--path /metric/fsdax/add_ms?variant=$VARIANT"

# (date, not python3: a pyenv shim takes a second under load)
now() { date +%s.%N; }
since() { echo "$1 $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }'; }
# CPU seconds of the children between two `times` outputs (run in this
# shell, not in a $(...): a subshell has children of its own)
cpu_diff() {
	awk 'FNR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		t = u[1] * 60 + u[2] + s[1] * 60 + s[2]
		if (NR == FNR) a = t; else b = t }
	     END { printf "%.1f", b - a }' "$1" "$2"
}
field() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"
}

# bench NAME BINARY: one binary, its own database and data directory
bench() {
	name=$1 bin=$2 d=$DIR/$1
	rm -rf "$d" && mkdir -p "$d"
	export MMCI_DB=$d/mmci.db MMCI_DATA=$d/var
	"$bin" init --no-tree > /dev/null 2>&1
	t=$(now)
	sh "$SRC/bench/web-gen.sh" "$MMCI_DB" $RUNS $SAMPLED $PER $SERIES
	echo "$name: database generated in $(since "$t") s" \
	     "($(sqlite3 "$MMCI_DB" 'SELECT count(*) FROM samples') samples)"
	renders=0 first=-
	if "$bin" web --help | grep -q -- --render; then
		renders=1
		t=$(now)
		times > "$d/cpu0"
		"$bin" web --render --all > /dev/null 2> "$d/render-all.err" ||
			echo "$name: the first render failed:" \
			     "$(grep -c '^error:' "$d/render-all.err") error(s)" \
			     "in $d/render-all.err"
		times > "$d/cpu1"
		first="$(since "$t") s, $(cpu_diff "$d/cpu0" "$d/cpu1") s CPU"
		echo "$name: every page rendered in $first" \
		     "($(find "$MMCI_DATA/www" -name '*.html' | wc -l) files," \
		     "$(find "$MMCI_DATA/www/bundle" -name '*.json.gz' |
			wc -l) bundles)"
		sh "$SRC/bench/web-gen.sh" --finish "$MMCI_DB"
		t=$(now)
		"$bin" web --render > "$d/render-job.out" 2> "$d/render-job.err"
		echo "$name: one finished job's pages rendered in" \
		     "$(since "$t") s, the process; the pass:" \
		     "$(sed -n 's/.*render: //p' "$d/render-job.err")"
	else
		sh "$SRC/bench/web-gen.sh" --finish "$MMCI_DB"
	fi
	"$bin" web --listen 127.0.0.1:0 > "$d/web.out" 2> "$d/web.err" &
	pid=$!
	i=0
	until grep -q "listening on port" "$d/web.out"; do
		i=$((i + 1)); [ $i -lt 100 ] || { cat "$d/web.err"; exit 1; }
		sleep 0.1
	done
	port=$(sed -n 's/.*listening on port \([0-9]*\)$/\1/p' "$d/web.out")
	if [ $renders = 1 ]; then
		# a page that fails stays dirty: then say so and stop
		i=0
		until [ "$(sqlite3 "$MMCI_DB" 'SELECT count(*) FROM pages_dirty')" = 0 ]
		do
			i=$((i + 1))
			[ $i -lt 600 ] || {
				echo "$name: pages still dirty after 2 minutes:"
				sqlite3 "$MMCI_DB" 'SELECT key FROM pages_dirty'
				kill "$pid"; wait "$pid" || :
				cat "$d/web.err"; exit 1; }
			sleep 0.2
		done
	else
		# rendering per request: the job's pages, timed as requests
		t=$(now)
		for p in $JOB_PAGES; do
			curl -s -o /dev/null "http://127.0.0.1:$port$p"
		done
		echo "$name: one finished job's pages rendered in $(since "$t") s" \
		     "(as $(echo $JOB_PAGES | wc -w) requests)"
	fi
	$LOAD "$port" probe --requests 20 --timeout 5 $PATHS > "$d/quiet.json"
	echo "$name: no load: $(cat "$d/quiet.json")"
	req=100
	[ $renders = 1 ] || req=30	# each may wait for its 5 s timeout
	$LOAD "$port" probe --slow 200 --interval 3 --requests $req \
		--timeout 5 $PATHS > "$d/slow.json"
	echo "$name: 200 slow clients: $(cat "$d/slow.json")"
	$LOAD "$port" concurrent --clients 50 --requests 4 --timeout 10 \
		$PATHS > "$d/conc.json"
	echo "$name: 50 clients at once: $(cat "$d/conc.json")"
	$LOAD "$port" probe --idle 200 --requests 20 --timeout 5 \
		$PATHS > "$d/idle.json"
	echo "$name: 200 idle connections: $(cat "$d/idle.json")"
	kill "$pid"
	wait "$pid" || :
	printf '%s: p50 %s ms, p99 %s ms with 200 slow clients (target < 100);' \
	       "$name" "$(field "$d/slow.json" 'd["p50_ms"]')" \
	       "$(field "$d/slow.json" 'd["p99_ms"]')"
	printf ' %s of %s answered 200 from 50 clients at once;' \
	       "$(field "$d/conc.json" 'd["answered_200"]')" \
	       "$(field "$d/conc.json" 'd["requests"]')"
	printf ' first full render %s (target < 60 s)\n' "$first"
}

echo "targets: a first full render < 60 s; one job's pages < 1 s;" \
     "p50/p99 < 100 ms with 200 slow clients; 50 clients at once all" \
     "answered"
if [ -n "${BENCH_WEB_BEFORE:-}" ]; then
	bench before "$BENCH_WEB_BEFORE"
fi
bench after "$MMCI"
