#!/bin/sh
# t0967-daemon-aim: each series the daemon finds is measured on what it
# changes (daemon/aim.h, kernel-patches/aim.map). Five small series made
# here with git, one of each kind mmci was built for (a vmalloc/vmap
# series with a "vmap(100 MB) ... 8.3x faster" claim, a virtio-mem
# hotplug series, a ZONE_DEVICE memmap series with a 100 GB claim), one
# touching two kinds and one in mm/ that the map does not name, arrive
# through the list's feed (a real nginx on loopback): each queued job
# carries its aim, and the job the daemon starts gets those workloads and
# that NVDIMM size as options, with MMCI_RUN_ARGS after them. The jobs
# stop at once (MMCI_RUN_ARGS has a bad option, the tree is a stand-in):
# no kernel is built here; t0545 boots a job the daemon started.
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/lib-http.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
unset MMCI_CONFIG MMCI_SOURCES MMCI_POLL_S MMCI_MAIL_SEND MMCI_WEB_LISTEN \
	MMCI_BASE_BRANCHES MMCI_BASE_WAIT_S MMCI_LIBVIRT_URIS MMCI_AIM_MAP \
	MMCI_AIM_MAX_NVDIMM MMCI_DISCOVER_FEED MMCI_DISCOVER_PATHS MMCI_PER_PATCH
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0 MMCI_FETCH_ATTEMPTS=2
export MMCI_TREE="$TRASH/tree" MMCI_BASE=v0
GIT="git -c user.name=Dev -c user.email=dev@example.org -c init.defaultBranch=main"
export GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org

# series NAME "COVER CLAIM" FILE...: a one-patch series on v0 touching
# FILEs, its cover letter making the claim; served as lore serves it
series() {
	s_name=$1 s_claim=$2
	shift 2
	(cd tree && $GIT checkout -q -b "$s_name" v0 &&
	 for f in "$@"; do echo "/* $s_name */" >> "$f"; done &&
	 git add -A && $GIT commit -qm "$s_name: change" &&
	 git format-patch -q --stdout --cover-letter --thread=shallow -1 |
	 sed -e "s/\*\*\* SUBJECT HERE \*\*\*/$s_name: a series/" \
	     -e "s|\*\*\* BLURB HERE \*\*\*|$s_claim|" \
	     -e "s/^Message-I[Dd]: <\(.*\)>/Message-ID: <$s_name.\1>/" \
	     -e "s/^In-Reply-To: <\(.*\)>/In-Reply-To: <$s_name.\1>/" \
	     -e "s/^References: <\(.*\)>/References: <$s_name.\1>/" \
	     > "../$s_name.mbox" && $GIT checkout -q main) &&
	id=$(sed -n "s/^Message-ID: <\(.*\)>/\1/p" "$s_name.mbox" | head -1) &&
	echo "$id" > "$s_name.id" && serve "$s_name.mbox" linux-mm "$id"
}

test_expect 'a stand-in tree and five series, served on loopback' '
	nginx_start &&
	mkdir -p tree && cd tree && $GIT init -q &&
	mkdir -p mm/damon drivers/virtio arch/arm64/mm &&
	for f in mm/vmalloc.c mm/mm_init.c mm/memory_hotplug.c mm/damon/core.c \
		 drivers/virtio/virtio_mem.c arch/arm64/mm/pgtable.c; do
		echo "/* $f */" > "$f"
	done &&
	git add -A && $GIT commit -qm base && git tag v0 && cd .. &&
	series vmalloc "vmap(100 MB) of order-8 pages: 8.3x faster" \
		mm/vmalloc.c arch/arm64/mm/pgtable.c &&
	series vmem "virtio-mem plug of 512 GB: 36 s -> 7 s" \
		drivers/virtio/virtio_mem.c &&
	series memmap "rebinding a 100 GB fsdax namespace: memmap_init_zone_device() 221 ms -> 72 ms" \
		mm/mm_init.c &&
	series both "Two things at once." mm/vmalloc.c mm/memory_hotplug.c &&
	series damon "DAMON gets a knob." mm/damon/core.c &&
	port=$(cat "$TRASH/port") && mkdir -p "$WWW/linux-mm" &&
	{
		printf "<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n"
		printf "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>linux-mm</title>\n"
		for n in vmalloc vmem memmap both damon; do
			printf "<entry><author><name>Dev</name><email>dev@example.org</email></author>"
			printf "<title>[PATCH 0/1] %s: a series</title><updated>2026-12-03T09:00:00Z</updated>" "$n"
			printf "<link href=\"http://127.0.0.1:%s/linux-mm/%s/\"/><id>urn:uuid:%s</id></entry>\n" \
				"$port" "$(cat $n.id)" "$n"
		done
		echo "</feed>"
	} > "$WWW/linux-mm/new.atom"
'
FEED="http://127.0.0.1:$(cat "$TRASH/port" 2>/dev/null)/linux-mm/new.atom"

# aim NAME: the queued job's workloads, NVDIMM MiB and in-scope flag
aim() {
	sql "SELECT json_extract(j.params, '$.aim.workloads') || ' ' ||
	     json_extract(j.params, '$.aim.nvdimm_mib') || ' ' ||
	     json_extract(j.params, '$.aim.in_scope') FROM jobs j JOIN series s
	     ON s.id = j.series_id WHERE s.title = '$1: a series'"
}

test_expect 'the poll queues each series aimed at what it changes' '
	"$MMCI" init --no-tree &&
	"$MMCI" ingest discover --feed "$FEED" > out 2> err &&
	cat out err &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE status = \"queued\"")" = 5 ] &&
	[ "$(aim vmalloc)" = "vmap,vmalloc 0 1" ] &&
	[ "$(aim vmem)" = "virtio-mem,kmem 0 1" ] &&
	[ "$(aim memmap)" = "fsdax,devdax,memremap 102400 1" ] &&
	[ "$(aim both)" = "vmap,vmalloc,virtio-mem,kmem 0 1" ] &&
	[ "$(aim damon)" = "fsdax 1024 0" ] &&
	grep -q "^ *aim: vmap,vmalloc: arch/arm64/mm/pgtable.c, mm/vmalloc.c -> vmap,vmalloc$" out &&
	grep -q "^ *aim: fsdax: outside mmci.s scope: none of its 1 path(s) is in kernel-patches/aim.map" out
'

test_expect 'a claim adds its workload; a size above the host is scaled, said' '
	sql "DELETE FROM jobs; DELETE FROM discovered" &&
	MMCI_AIM_MAX_NVDIMM=16G "$MMCI" ingest discover --feed "$FEED" > out 2>&1 &&
	cat out &&
	[ "$(aim memmap)" = "fsdax,devdax,memremap 16384 1" ] &&
	sql "SELECT json_extract(params, \"$.aim.why\") FROM jobs" |
		grep -q "NVDIMM 102400 MiB scaled to this host.s 16384 MiB (MMCI_AIM_MAX_NVDIMM)"
'

test_expect 'the daemon starts each job with its aim, MMCI_RUN_ARGS last' '
	sql "DELETE FROM jobs; DELETE FROM discovered" &&
	"$MMCI" ingest discover --feed "$FEED" > /dev/null 2>&1 &&
	MMCI_SOURCES= MMCI_RUN_ARGS=--no-such-option \
		"$MMCI" daemon --once --no-web > out 2>&1 ||
		{ cat out; exit 1; }
	for n in vmalloc vmem memmap both damon; do
		j=$(sql "SELECT j.id FROM jobs j JOIN series s ON s.id =
		     j.series_id WHERE s.title = \"$n: a series\"") &&
		sed -n "s/^job: //p" "$MMCI_DATA/jobs/$j.log" > "$n.argv" &&
		cat "$n.argv" || return 1
	done &&
	grep -q -- "--steps=auto --workloads=vmap,vmalloc --job=[0-9]* --no-such-option$" vmalloc.argv &&
	grep -q -- " --workloads=virtio-mem,kmem --job=" vmem.argv &&
	grep -q -- " --workloads=fsdax,devdax,memremap --nvdimm=102400M --job=" memmap.argv &&
	grep -q -- " --workloads=vmap,vmalloc,virtio-mem,kmem --job=" both.argv &&
	grep -q -- " --workloads=fsdax --nvdimm=1024M --job=" damon.argv &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE status = \"failed\"")" = 5 ]
'

test_expect 'a forged aim is refused by the daemon, with the reason' '
	sql "UPDATE jobs SET status = \"queued\", params =
	     json_object(\"aim\", json_object(\"in_scope\", json(\"true\"),
	     \"workloads\", \"vmap,--config=/etc/shadow\", \"nvdimm_mib\", 0,
	     \"why\", \"x\")) WHERE id = 1" &&
	MMCI_SOURCES= MMCI_RUN_ARGS=--no-such-option \
		"$MMCI" daemon --once --no-web > out 2>&1 || { cat out; exit 1; }
	cat out &&
	[ "$(sql "SELECT status FROM jobs WHERE id = 1")" = failed ] &&
	sql "SELECT error FROM jobs WHERE id = 1" |
		grep -q "the job.s aim names an unknown workload in .vmap,--config=/etc/shadow."
'

test_done
