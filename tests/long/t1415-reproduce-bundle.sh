#!/bin/sh
# t1415-reproduce-bundle: a run's bundle, reproduced on a second data
# directory that shares no tree, no build cache and no database with the
# first. The base is branch mm-stable of a local git server (git daemon;
# its objects borrowed from the shared tree), fetched by the first side
# with `mmci ingest tree`; a documentation patch of this test's own is
# built on it and run (2 icount boots). The bundle comes from the first
# side's web server (/bundle/1); the second side fetches the base from
# the remote the bundle names, applies the series from the bundle, builds
# the kernel in its own object directory (ccache is the host's), boots
# it twice and compares: in icount mode the verdict is "no significant
# change" on every metric and each median is the recorded one within
# 0.1 %. About 6.5 min: the base fetched over git:// (~2 min), a cold
# object directory (ccache warm, ~3 min), four 2 GiB boots.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/../lib.sh"
export MMCI_ACCEL=tcg
unset MMCI_REMOTES MMCI_WEB_URL

need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
git daemon -h 2>&1 | grep -q -- --base-path ||
	skip_all "git daemon is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
. "$SRC/tests/lib-web.sh"

A_DB="$TRASH/a.db"
B="$TRASH/b"
export MMCI_DATA="$SRC/var" MMCI_TREE="$SRC/var/linux" MMCI_DB="$A_DB"

cat > doc.mbox <<'MBOX'
From 4150000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Message-ID: <20250405100000.1.mmci-t0415@example.org>
From: mmci test <mmci-t0415@example.org>
To: linux-mm@example.org
Date: Sat, 5 Apr 2025 10:00:00 +0000
Subject: [PATCH] Documentation/mm: a note for mmci's bundle test

A file no build reads: the kernel is the base's, the commit is new.

Signed-off-by: mmci test <mmci-t0415@example.org>
---
 Documentation/mm/mmci-t0415.rst | 2 ++
 1 file changed, 2 insertions(+)
 create mode 100644 Documentation/mm/mmci-t0415.rst

diff --git a/Documentation/mm/mmci-t0415.rst b/Documentation/mm/mmci-t0415.rst
new file mode 100644
index 000000000000..4150000000aa
--- /dev/null
+++ b/Documentation/mm/mmci-t0415.rst
@@ -0,0 +1,2 @@
+mmci's t0415 bundles a run of this file's commit and reproduces it on
+a second data directory.
-- 
2.39.5
MBOX

# every mmci of this test, with its pid (NVDIMM files are mmci-<pid>-...)
mmci() {
	"$MMCI" "$@" & echo $! >> "$TRASH/pids"
	wait $!
}

# the second data directory: its own database, tree and build cache
side_b() {
	export MMCI_DATA="$B" MMCI_TREE="$B/linux" MMCI_DB="$B/mmci.db"
}

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
	[ -s "$TRASH/git-daemon.pid" ] && kill "$(cat "$TRASH/git-daemon.pid")" 2>/dev/null
	[ -s "$TRASH/web.pid" ] && kill "$(cat "$TRASH/web.pid")" 2>/dev/null
	git -C "$SRC/var/linux" update-ref -d refs/remotes/up/mm-stable 2>/dev/null
	return 0
}
test_atexit cleanup

base=$(git -C "$MMCI_TREE" rev-parse "debian-6.12^{commit}")

test_expect 'a git server whose mm-stable is the base' '
	git init -q --bare srv/up.git &&
	git -C "$MMCI_TREE" rev-parse --absolute-git-dir > gitdir &&
	echo "$(cat gitdir)/objects" > srv/up.git/objects/info/alternates &&
	git -C srv/up.git update-ref refs/heads/mm-stable $base &&
	touch srv/up.git/git-daemon-export-ok &&
	git daemon --reuseaddr --listen=127.0.0.1 --port=$PORT \
		--base-path="$TRASH/srv" --pid-file="$TRASH/git-daemon.pid" \
		--detach "$TRASH/srv" &&
	i=0 && until git ls-remote git://127.0.0.1:$PORT/up.git > ls 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.1; done &&
	grep -q "^$base	refs/heads/mm-stable$" ls
'

test_expect 'first side: the branch fetched, the series built on it, 2 boots' '
	mmci init > /dev/null &&
	mmci ingest tree --remote up=git://127.0.0.1:$PORT/up.git#mm-stable \
		> out && cat out &&
	mmci build up/mm-stable --series doc.mbox > out 2> err ||
		{ tail -20 err; exit 1; }
	cat out &&
	mmci run --build 1 --nvdimm 2G --iters 4 --map dev --boots 2 \
		--label original > out 2> err || { tail -20 err; exit 1; }
	grep -q "^run #1: ok" out &&
	[ "$(sql "SELECT clock FROM runs WHERE id = 1")" = icount ]
'

test_expect 'mmci bundle: the config files, the base and its remote, the series, the samples' '
	mmci bundle 1 -o b1.json.gz > out && cat out &&
	grep -q "^bundle of run #1: b1.json.gz$" out &&
	zcat b1.json.gz > b1.json &&
	sql "SELECT count(*) FROM samples WHERE run_id = 1" > nsamples &&
	frag=$(sql "SELECT config_fragment FROM builds WHERE id = 1") &&
	dot=$(sql "SELECT artifacts FROM builds WHERE id = 1")/config &&
	python3 - "$base" "$PORT" "$(cat nsamples)" "$frag" "$dot" <<-\EOF
	import json, sys
	base, port, nsamples, frag, dot = sys.argv[1:]
	b = json.load(open("b1.json"))
	k = b["kernel"]
	assert b["format"] == "mmci-bundle/1", b["format"]
	assert b["origin"]["run"] == 1
	assert k["kind"] == "build"
	assert k["base"]["commit"] == base, k["base"]
	assert k["base"]["remote"] == {"name": "up", "branch": "mm-stable",
		"url": "git://127.0.0.1:%s/up.git" % port}, k["base"]["remote"]
	assert k["fragment"]["text"] == open(frag).read()
	assert k["dotconfig"]["text"] == open(dot).read()
	s = k["series"]
	assert s["upto"] == 1 and len(s["patches"]) == 1
	assert s["patches"][0]["title"].startswith("Documentation/mm: a note")
	assert "+mmci\x27s t0415 bundles" in s["patches"][0]["diff"]
	assert len(b["boots"]) == 2
	assert sum(len(x["samples"]) for x in b["boots"]) == int(nsamples)
	assert "<domain" in b["domain_xml"]
	assert "mmci.iters=4" in b["run"]["params"]["cmdline"] or \
		b["run"]["params"]["iters"] == 4
	EOF
'

test_expect 'the first side serves the same bundle as /bundle/1, linked from the run page' '
	( export MMCI_DATA="$TRASH/a-web"; web_start ) &&
	p=$(cat port) &&
	curl -s -D hdr -o web1.json.gz "http://127.0.0.1:$p/bundle/1" &&
	grep -qi "^content-type: application/gzip" hdr &&
	grep -qi "^content-disposition: attachment; filename=\"mmci-run-1.json.gz\"" hdr &&
	cmp web1.json.gz b1.json.gz &&
	curl -s "http://127.0.0.1:$p/run/1" | grep -q "href=\"/bundle/1\"" &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$p/bundle/2")" = 404 ] &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$p/bundle/x")" = 404 ]
'

test_expect 'second side, nothing shared: base fetched, series applied, built, booted, equal numbers' '
	side_b && mkdir -p "$B" &&
	mmci reproduce --bundle "http://127.0.0.1:$(cat port)/bundle/1" \
		> out 2> err || { cat out; tail -30 err; exit 1; }
	cat out &&
	commit=$(sqlite3 "$A_DB" "SELECT commit_id FROM builds WHERE id = 1") &&
	grep -q "^bundle: run #1 of .* stored here as run #1$" out &&
	grep -q "^  base  *$base, fetched from branch .mm-stable. of git://127.0.0.1:$PORT/up.git$" out &&
	grep -q "^  commit  *$commit was not in the tree: series #1 patches 1-1 applied again on [0-9a-f]\{12\} gave it back$" out &&
	grep -q "^  build  *#2, built in [0-9]* s$" out &&
	grep -q "^  \.config sha1  *[0-9a-f]\{40\}, as recorded$" out &&
	grep -q "^set-up of run #2: as run #1 " out &&
	# every metric compared (the variants came along), none moved
	n=$(sql "SELECT count(*) FROM (SELECT DISTINCT workload, variant,
	     metric FROM samples WHERE run_id = 1)") && [ "$n" -gt 0 ] &&
	grep "^reproduced: run 1 -> run 2: " out > verdict &&
	grep -q "^reproduced: run 1 -> run 2: no significant change ($n metric(s): " verdict &&
	! grep -q "better\|worse" verdict &&
	[ "$(sql "SELECT label FROM runs WHERE id = 1")" = "bundle: run 1 of $(hostname)" ] &&
	[ "$(sql "SELECT tree_path FROM builds WHERE id = 2")" = "$B/linux" ] &&
	# icount: the same medians, metric by metric. Not bit for bit: two
	# boots of one kernel differ by a few instructions in the _wall
	# metrics (0.001 ms of 23.5 in run 1 itself), and this kernel was
	# built in another directory
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 2")" = "$(cat nsamples)" ] &&
	python3 - "$MMCI_DB" <<-\EOF &&
	import sqlite3, statistics, sys
	db = sqlite3.connect(sys.argv[1])
	def medians(run):
	    rows = db.execute("SELECT workload, variant, metric, value FROM "
	                      "samples WHERE run_id = ?", (run,)).fetchall()
	    out = {}
	    for w, v, m, x in rows:
	        out.setdefault((w, v, m), []).append(x)
	    return {k: statistics.median(x) for k, x in out.items()}
	a, b = medians(1), medians(2)
	assert a.keys() == b.keys(), (a.keys(), b.keys())
	for k in a:
	    print(k, a[k], b[k])
	    assert abs(a[k] - b[k]) <= 0.001 * abs(a[k]), (k, a[k], b[k])
	EOF
	# what the guest said besides samples came along too
	[ "$(sql "SELECT count(*) FROM events WHERE run_id = 1")" = \
	  "$(sqlite3 "$A_DB" "SELECT count(*) FROM events WHERE run_id = 1")" ]
'

test_expect 'the same bundle again: found, not stored twice' '
	side_b &&
	mmci reproduce --bundle b1.json.gz --dry-run > out 2> err ||
		{ cat err; exit 1; }
	grep -q "^bundle: imported before as run #1$" out &&
	[ "$(sql "SELECT count(*) FROM bundle_imports")" = 1 ]
'

test_expect 'bad bundles: not JSON, not a bundle, a base no remote has' '
	side_b &&
	printf "not json" | gzip > junk.gz &&
	set +e; mmci reproduce --bundle junk.gz > o 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] && grep -q "^error: bundle .junk.gz. is not JSON" err &&
	echo "{\"format\": \"other\"}" > other.json &&
	set +e; mmci reproduce --bundle other.json > o 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] &&
	grep -q "^error: .other.json. is not an mmci bundle (format other, want mmci-bundle/1)$" err &&
	python3 -c "
import json
b = json.load(open(\"b1.json\"))
b[\"kernel\"][\"base\"][\"commit\"] = \"1\" * 40
json.dump(b, open(\"moved.json\", \"w\"))" &&
	set +e; mmci reproduce --bundle moved.json > o 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] &&
	grep -q "^error: branch .mm-stable. of git://127.0.0.1:$PORT/up.git does not hold base 1111111111111111111111111111111111111111 (rebased since?)" err &&
	set +e; mmci reproduce --bundle "http://127.0.0.1:$(cat port)/bundle/9" > o 2> err; rc=$?; set -e
	cat err; [ $rc = 1 ] && grep -q "404" err
'

test_expect 'nothing is left behind: no domain, no NVDIMM file' \
	nothing_left_behind

test_done
