#!/bin/sh
# t0986-bundle-hostile: a bundle is input from anyone (issue 30, item 3).
# A real bundle is made with `mmci bundle` from a run inserted with
# sqlite3 (no guest boots here) and passes `mmci reproduce --bundle
# --dry-run` on a second database; then each hostile variant of it, made
# with python3 from its JSON, must be refused before any work: exit 1,
# one `error:` line naming the field and its bound, no row in the second
# database, nothing fetched, and (with strace) no file opened below the
# directory of "host secrets" the bundles point at. The JSON bombs run
# under a memory limit and their peak RSS is checked with /usr/bin/time.
. "$(dirname "$0")/lib.sh"

PY=$(command -v python3) || skip_all "python3 makes the hostile bundles"
command -v sqlite3 >/dev/null || skip_all "sqlite3 inserts the run"

T0=1735689600
# the bounds, as daemon/bundle.h defines them
bound() {
	"$PY" - "$1" "$SRC/daemon/bundle.h" <<-\EOF
	import re, sys
	m = re.search(r"^#define %s\s+(.*?)\s*(/\*.*)?$" % sys.argv[1],
	              open(sys.argv[2]).read(), re.M)
	print(int(eval(re.sub(r"(?<=\d)(u|ll)\b", "", m.group(1)))))
	EOF
}
SERIES_MAX=$(sed -n 's/^#define SERIES_MAX_PATCHES \([0-9]*\)$/\1/p' \
	"$SRC/daemon/series.h")

# side A made the bundle; side B reads it (its own database and data)
B_DB="$TRASH/b.db"
B_DATA="$TRASH/b"
# what a hostile bundle points at: files of "this host" outside the data
SECRET="$TRASH/secret"

on_b() {
	MMCI_DB="$B_DB" MMCI_DATA="$B_DATA" MMCI_TREE="$TRASH/tree" "$@"
}

# every table an import writes, counted on side B
b_rows() {
	sqlite3 "$B_DB" "SELECT (SELECT count(*) FROM runs) + (SELECT count(*)
		FROM builds) + (SELECT count(*) FROM series) + (SELECT count(*)
		FROM patches) + (SELECT count(*) FROM applies) + (SELECT count(*)
		FROM boots) + (SELECT count(*) FROM samples) + (SELECT count(*)
		FROM events) + (SELECT count(*) FROM texts) + (SELECT count(*)
		FROM bundle_imports)"
}

# mutate NAME 'python statements on b': hostile/NAME.json from good.json
mutate() {
	mkdir -p hostile &&
	"$PY" - "$1" "$2" <<-\EOF
	import json, sys
	b = json.load(open("good.json"))
	exec(sys.argv[2])
	json.dump(b, open("hostile/%s.json" % sys.argv[1], "w"))
	EOF
}

STRACE=$(command -v strace || true)
# an ASan build (make SANITIZE=1 check): LeakSanitizer cannot run under
# strace (ptrace), and ASan's shadow memory needs more address space than
# the bombs' limit and more memory than their bound: its leak check is off
# under strace, and the bombs are measured without the address-space limit
# and against a bound 3 times as large
ASAN=
grep -q __asan_init "$MMCI" 2>/dev/null && ASAN=1
PEAK_KB=204800
[ -z "$ASAN" ] || PEAK_KB=614400
# refused FILE 'error line regex': exit 1, that one error line and no
# other, no row written, nothing fetched, no file of $SECRET opened
refused() {
	set +e
	if [ -n "$STRACE" ]; then
		on_b env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$STRACE" -f -qq -e trace=openat -o trace \
			"$MMCI" reproduce --bundle "$1" --dry-run > out 2> err
	else
		on_b "$MMCI" reproduce --bundle "$1" --dry-run > out 2> err
	fi
	rc=$?
	set -e
	cat err
	[ $rc = 1 ] || { echo "exit $rc, want 1"; return 1; }
	[ "$(grep -c "^error: " err)" = 1 ] || { echo "not one error line"; return 1; }
	grep -q "^error: $2$" err || { echo "want: error: $2"; return 1; }
	! grep -v "^error: " err | grep -q . || { echo "more on stderr"; return 1; }
	[ "$(b_rows)" = 0 ] || { echo "rows written: $(b_rows)"; return 1; }
	[ ! -e "$B_DATA/bundles" ] && [ ! -e "$B_DATA/fetch" ] ||
		{ echo "files written under $B_DATA"; return 1; }
	[ -z "$(git -C "$TRASH/tree" for-each-ref refs/mmci)" ] ||
		{ echo "a ref was fetched"; return 1; }
	if [ -n "$STRACE" ]; then
		! grep -F "$SECRET" trace || { echo "opened a secret"; return 1; }
	fi
}

test_expect 'a run inserted on side A, its bundle made with mmci bundle' '
	git init -q tree &&
	git -C tree -c user.name=t -c user.email=t@example.org commit -q \
		--allow-empty -m base &&
	C=$(git -C tree rev-parse HEAD) && echo "$C" > commit &&
	mkdir -p frag "$SECRET" && printf "CONFIG_ZONE_DEVICE=y\n" > frag/mmci.config &&
	echo "root:secret-hash:19000:0:99999:7:::" > "$SECRET/shadow" &&
	git init -q --bare "$SECRET/repo.git" &&
	git -C tree push -q "$SECRET/repo.git" HEAD:refs/heads/mm-new &&
	FH=$(git hash-object frag/mmci.config) &&
	"$MMCI" init --no-tree > /dev/null &&
	sqlite3 -bail "$MMCI_DB" <<-EOF &&
	BEGIN;
	INSERT INTO heads (id, remote, url, branch, ref, commit_id, kind,
		nr_commits, fetched_at) VALUES (1, "mm",
		"https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git",
		"mm-new", "refs/remotes/mm/mm-new", "$C", "initial", 1, $T0);
	INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
		series_id, upto, config_fragment, config_hash, compiler,
		kernel_release, hz, status, artifacts, started_at, duration_s)
		VALUES (1, "k1", "$TRASH/tree", "$C", "t1", NULL, 0,
		"$TRASH/frag/mmci.config", "$FH", "gcc", "6.12.0", 1000, "ok",
		"$MMCI_DATA/cache/k1", $T0 + 100, 600);
	INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus, ram_mib,
		nvdimm_mib, backing, host, initrd, status, started_at, ended_at)
		VALUES (1, "base", 1, "$MMCI_DATA/cache/k1/bzImage", "6.12.0",
		"$MMCI_DATA/cache/k1/mod", 1000, "fsdax",
		"{""cmdline"":""console=ttyS0 mmci.workloads=fsdax"",""iters"":10,""timeout_s"":600,""pin"":false,""workloads"":""fsdax""}",
		"tcg", "icount", 1, 1280, 4096, "tmpfs", "hostA",
		"$MMCI_DATA/images/6.12.0-0123456789ab.cpio.gz", "ok", $T0 + 1000,
		$T0 + 1100);
	INSERT INTO boots (id, run_id, idx, status, end_kind, started_at,
		duration_s) VALUES (11, 1, 0, "ok", "poweroff", $T0 + 1001, 40),
		(12, 1, 1, "ok", "poweroff", $T0 + 1050, 40);
	INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
		iteration, value) VALUES
		(1, 11, "fsdax", "align=2M,map=dev", "rebind_memmap", "ms", 1, 1012),
		(1, 12, "fsdax", "align=2M,map=dev", "rebind_memmap", "ms", 1, 1013);
	INSERT INTO events (run_id, boot_id, workload, variant, kind, key,
		message) VALUES (1, 11, "fsdax", NULL, "info", "x", "information");
	COMMIT;
	EOF
	"$MMCI" bundle 1 -o good.json.gz > out && cat out &&
	grep -q "^bundle of run #1: good.json.gz$" out &&
	gzip -dc good.json.gz > good.json &&
	on_b "$MMCI" init --no-tree > /dev/null && [ "$(b_rows)" = 0 ]
'

test_expect 'the good bundle passes --dry-run on side B' '
	on_b "$MMCI" reproduce --bundle good.json.gz --dry-run > out 2> err &&
	cat out err &&
	grep -q "^bundle: run #1 of hostA stored here as run #1$" out &&
	grep -q "^  base  *$(cat commit), in the tree $TRASH/tree$" out &&
	grep -q "^vm: tcg, clock icount, 1 vCPU(s), 1280 MiB RAM, 4096 MiB NVDIMM on tmpfs, timeout 600 s, 2 boot(s)$" out &&
	grep -q "^dry run: " out &&
	[ "$(sqlite3 "$B_DB" "SELECT initrd FROM runs WHERE id = 1")" = \
	  "$B_DATA/images/6.12.0-0123456789ab.cpio.gz" ] &&
	# back to an empty side B for the hostile ones
	rm -rf "$B_DB" "$B_DB"-* "$B_DATA" &&
	on_b "$MMCI" init --no-tree > /dev/null && [ "$(b_rows)" = 0 ]
'

test_expect 'a host path as the initramfs: refused, never opened' '
	mutate initrd "b[\"run\"][\"initrd\"] = \"$SECRET/shadow\"" &&
	refused hostile/initrd.json "bundle .hostile/initrd.json.: run.initrd .$SECRET/shadow. is not mmci.s own initramfs (.../images/6.12.0-KEY.cpio.gz): a bundle.s run boots only the initramfs mmci makes, never a file named by the bundle" &&
	mutate dotdot "b[\"run\"][\"initrd\"] = \"$B_DATA/images/../../secret/shadow\"" &&
	refused hostile/dotdot.json "bundle .hostile/dotdot.json.: run.initrd .$B_DATA/images/../../secret/shadow. is not mmci.s own initramfs .*" &&
	mutate dotdot2 "b[\"run\"][\"initrd\"] = \"/x/images/../../$SECRET/images/6.12.0-0123.cpio.gz\"" &&
	refused hostile/dotdot2.json "bundle .hostile/dotdot2.json.: run.initrd .* is not mmci.s own initramfs .*" &&
	mutate release "b[\"run\"][\"kernel_release\"] = \"../../secret\"" &&
	refused hostile/release.json "bundle .hostile/release.json.: run.kernel_release is not a release name"
'

test_expect 'a prebuilt kernel path: refused, never opened' '
	mutate prebuilt "b[\"kernel\"] = {\"kind\": \"prebuilt\", \"path\": \"$SECRET/shadow\", \"release\": \"6.12.0\", \"modules_root\": \"$SECRET\"}" &&
	refused hostile/prebuilt.json "bundle .hostile/prebuilt.json.: kernel.kind is .prebuilt. (the file .$SECRET/shadow. of its host): a bundle.s kernel is built here from its commit and series, never a path the bundle names"
'

test_expect 'a base remote of this host (file://, a path): refused unless MMCI_BUNDLE_ALLOW_FILE=1' '
	# a base the tree lacks: only the repository below $SECRET has it
	git -C tree -c user.name=t -c user.email=t@example.org commit -q \
		--allow-empty -m next &&
	N=$(git -C tree rev-parse HEAD) &&
	git -C tree push -q "$SECRET/repo.git" HEAD:refs/heads/mm-new &&
	git -C tree reset -q --hard HEAD^ && git -C tree reflog expire --expire=now --all &&
	git -C tree gc -q --prune=now && ! git -C tree cat-file -e "$N" &&
	for url in "file://$SECRET/repo.git" "$SECRET/repo.git" "FILE://$SECRET/repo.git" "ext::sh -c id"; do
		mutate file "b[\"kernel\"][\"base\"][\"remote\"][\"url\"] = \"$url\"
b[\"kernel\"][\"base\"][\"commit\"] = b[\"kernel\"][\"commit\"] = \"$N\"" &&
		refused hostile/file.json "bundle .hostile/file.json.: kernel.base.remote.url .$url. is not an http(s)://, git:// or ssh:// URL (a repository of this host is fetched only with MMCI_BUNDLE_ALLOW_FILE=1)" ||
		exit 1
	done &&
	mutate file "b[\"kernel\"][\"base\"][\"remote\"][\"url\"] = \"file://$SECRET/repo.git\"
b[\"kernel\"][\"base\"][\"commit\"] = b[\"kernel\"][\"commit\"] = \"$N\"" &&
	MMCI_BUNDLE_ALLOW_FILE=1 on_b "$MMCI" reproduce --bundle hostile/file.json \
		--dry-run > out 2> err && cat out err &&
	grep -q "^  base  *$N, fetched from branch .mm-new. of file://$SECRET/repo.git$" out &&
	rm -rf "$B_DB" "$B_DB"-* "$B_DATA" && git -C tree update-ref -d refs/mmci/bundle/mm-new &&
	on_b "$MMCI" init --no-tree > /dev/null && [ "$(b_rows)" = 0 ]
'

test_expect 'a branch that is a refspec: refused' '
	mutate branch "b[\"kernel\"][\"base\"][\"remote\"][\"branch\"] = \"x:refs/heads/master\"" &&
	refused hostile/branch.json "bundle .hostile/branch.json.: kernel.base.remote.branch .x:refs/heads/master. is not a branch name" &&
	mutate glob "b[\"kernel\"][\"base\"][\"remote\"][\"branch\"] = \"*\"" &&
	refused hostile/glob.json "bundle .hostile/glob.json.: kernel.base.remote.branch .\*. is not a branch name"
'

test_expect 'sizes of the machine and the run above their bounds: refused' '
	mutate ram "b[\"run\"][\"ram_mib\"] = 10**12" &&
	refused hostile/ram.json "bundle .hostile/ram.json.: run.ram_mib is 1000000000000, above the bound $(bound BUNDLE_MAX_RAM_MIB)" &&
	mutate vcpus "b[\"run\"][\"vcpus\"] = 100000" &&
	refused hostile/vcpus.json "bundle .hostile/vcpus.json.: run.vcpus is 100000, above the bound $(bound BUNDLE_MAX_VCPUS)" &&
	mutate vcpus0 "b[\"run\"][\"vcpus\"] = 0" &&
	refused hostile/vcpus0.json "bundle .hostile/vcpus0.json.: run.vcpus is 0, below the bound 1" &&
	mutate nvdimm "b[\"run\"][\"nvdimm_mib\"] = 2**60" &&
	refused hostile/nvdimm.json "bundle .hostile/nvdimm.json.: run.nvdimm_mib is $((1 << 60)), above the bound $(bound BUNDLE_MAX_NVDIMM_MIB)" &&
	mutate iters "b[\"run\"][\"params\"][\"iters\"] = 10**9" &&
	refused hostile/iters.json "bundle .hostile/iters.json.: run.params.iters is 1000000000, above the bound $(bound BUNDLE_MAX_ITERS)" &&
	mutate timeout "b[\"run\"][\"params\"][\"timeout_s\"] = 10**7" &&
	refused hostile/timeout.json "bundle .hostile/timeout.json.: run.params.timeout_s is 10000000, above the bound $(bound BUNDLE_MAX_TIMEOUT_S)" &&
	mutate nested "b[\"run\"][\"params\"][\"extra\"] = {\"a\": [1]}" &&
	refused hostile/nested.json "bundle .hostile/nested.json.: run.params.extra is not a string, number or boolean" &&
	mutate accel "b[\"run\"][\"accel\"] = \"xen\"" &&
	refused hostile/accel.json "bundle .hostile/accel.json.: run.accel is .xen., not one of kvm, tcg"
'

test_expect 'counts of boots, samples, events and patches above their bounds: refused' '
	n=$(bound BUNDLE_MAX_BOOTS) &&
	mutate boots "b[\"boots\"] = [b[\"boots\"][0]] * ($n + 1)" &&
	refused hostile/boots.json "bundle .hostile/boots.json.: bundle.boots has $((n + 1)) elements, above the bound $n" &&
	n=$(bound BUNDLE_MAX_SAMPLES) &&
	mutate samples "b[\"boots\"][1][\"samples\"] = [b[\"boots\"][1][\"samples\"][0]] * ($n + 1)" &&
	refused hostile/samples.json "bundle .hostile/samples.json.: boots\[1\].samples has $((n + 1)) elements, above the bound $n" &&
	n=$(bound BUNDLE_MAX_EVENTS) &&
	mutate events "b[\"boots\"][0][\"events\"] = [b[\"boots\"][0][\"events\"][0]] * ($n + 1)" &&
	refused hostile/events.json "bundle .hostile/events.json.: boots\[0\].events has $((n + 1)) elements, above the bound $n" &&
	n=$SERIES_MAX && [ -n "$n" ] &&
	mutate patches "p = {\"idx\": 1, \"version\": 1, \"title\": \"t\", \"author_name\": \"a\", \"author_email\": \"a@b\", \"date\": 0, \"commit_message\": \"m\", \"diff\": \"\"}
b[\"kernel\"][\"series\"] = {\"title\": \"s\", \"version\": 1, \"total\": 1, \"upto\": 1, \"patches\": [p] * ($n + 1)}" &&
	refused hostile/patches.json "bundle .hostile/patches.json.: kernel.series.patches has $((n + 1)) elements, above the bound $n" &&
	mutate sample "b[\"boots\"][0][\"samples\"][0][4] = 10**12" &&
	refused hostile/sample.json "bundle .hostile/sample.json.: boots\[0\].samples\[0\]\[4\] is 1000000000000, above the bound $(bound BUNDLE_MAX_ITERS)"
'

# owner_refused FILE 'error line regex': within every bound of bundle.h
# but refused by the table's own writer (as a guest's line would be): exit
# 1, that line, then "not stored" and nothing else; no row, no file
owner_refused() {
	set +e
	on_b "$MMCI" reproduce --bundle "$1" --dry-run > out 2> err
	rc=$?
	set -e
	cat err
	[ $rc = 1 ] || { echo "exit $rc, want 1"; return 1; }
	[ "$(grep -c "^error: " err)" = 2 ] || { echo "not two error lines"; return 1; }
	[ "$(grep -v "^error: " err | wc -l)" = 0 ] || { echo "more on stderr"; return 1; }
	sed -n 1p err | grep -q "^error: $2$" || { echo "want: error: $2"; return 1; }
	[ "$(sed -n 2p err)" = "error: bundle '$1' not stored" ] ||
		{ echo "want: not stored"; return 1; }
	[ "$(b_rows)" = 0 ] || { echo "rows written: $(b_rows)"; return 1; }
	[ ! -e "$B_DATA/bundles" ] || { echo "files written under $B_DATA"; return 1; }
}

test_expect 'in bounds, yet not what a guest sends: refused by the owners' '
	mutate unit "b[\"boots\"][0][\"samples\"][0][3] = \"furlongs\"" &&
	owner_refused hostile/unit.json "run #1: sample fsdax rebind_memmap iteration 1 refused: unknown unit" &&
	mutate negative "b[\"boots\"][1][\"samples\"][0][5] = -5" &&
	owner_refused hostile/negative.json "run #1: sample fsdax rebind_memmap iteration 1 refused: value is not a finite number in \[0, 1e12\]" &&
	mutate iter "b[\"boots\"][0][\"samples\"][0][4] = -1" &&
	owner_refused hostile/iter.json "run #1: sample fsdax rebind_memmap iteration -1 refused: iteration out of range" &&
	mutate kind "b[\"boots\"][0][\"events\"][0][2] = \"bogus\"" &&
	owner_refused hostile/kind.json "run #1: event kind .bogus. refused: it is none of info, error, rejected, request, host" &&
	p="{\"idx\": 3, \"version\": 1, \"title\": \"t\", \"author_name\": \"a\", \"author_email\": \"a@b\", \"date\": 0, \"commit_message\": \"m\", \"diff\": \"+x\"}" &&
	mutate order "b[\"kernel\"][\"series\"] = {\"title\": \"s\", \"version\": 1, \"total\": 3, \"upto\": 1, \"patches\": [$p, $p]}" &&
	owner_refused hostile/order.json "imported patch 2: index 3 of 3 out of order, or a field missing"
'

test_expect 'strings above their bounds, control characters: refused' '
	n=$(bound BUNDLE_MAX_TEXT) &&
	mutate diff "p = {\"idx\": 1, \"version\": 1, \"title\": \"t\", \"author_name\": \"a\", \"author_email\": \"a@b\", \"date\": 0, \"commit_message\": \"m\", \"diff\": \"+\" * ($n + 1)}
b[\"kernel\"][\"series\"] = {\"title\": \"s\", \"version\": 1, \"total\": 1, \"upto\": 1, \"patches\": [p]}" &&
	refused hostile/diff.json "bundle .hostile/diff.json.: kernel.series.patches\[0\].diff is $((n + 1)) bytes long, above the bound $n" &&
	n=$(bound BUNDLE_MAX_NAME) &&
	mutate label "b[\"kernel\"][\"compiler\"] = \"g\" * ($n + 1)" &&
	refused hostile/label.json "bundle .hostile/label.json.: kernel.compiler is $((n + 1)) bytes long, above the bound $n" &&
	mutate esc "b[\"origin\"][\"host\"] = \"host\x1b[2J\"" &&
	refused hostile/esc.json "bundle .hostile/esc.json.: origin.host holds control character 0x1b at byte 4" &&
	mutate commit "b[\"kernel\"][\"commit\"] = \"HEAD\"" &&
	refused hostile/commit.json "bundle .hostile/commit.json.: kernel.commit is .HEAD., not 40 hex digits"
'

test_expect 'JSON that is not a bundle: duplicate keys, nesting, a whole file too big' '
	mkdir -p hostile &&
	printf "{\"format\": \"mmci-bundle/1\", \"format\": \"x\"}" > hostile/dup.json &&
	refused hostile/dup.json "bundle .hostile/dup.json. is not JSON: duplicate object key near .\"format\". (line 1)" &&
	"$PY" -c "print(\"[\" * 17 + \"]\" * 17)" > hostile/deep.json &&
	refused hostile/deep.json "bundle .hostile/deep.json.: JSON nested more than $(bound BUNDLE_MAX_DEPTH) deep, the bound of a bundle" &&
	n=$(bound BUNDLE_MAX_JSON) && truncate -s $((n + 1)) hostile/big.json &&
	refused hostile/big.json "bundle .hostile/big.json. is $((n + 1)) bytes, above the bound of $n"
'

# peak RSS in KB of a refused reproduce, from /usr/bin/time -v; under a
# 1 GiB address-space limit (ulimit -v) as well, so a regression fails
# instead of taking the host's memory
peak_kb() {
	set +e
	( [ -n "$ASAN" ] || ulimit -v 1048576 &&
	  on_b /usr/bin/time -v "$MMCI" reproduce --bundle "$1" --dry-run \
		> out 2> err.time )
	rc=$?
	set -e
	grep -v "^	" err.time > err; cat err
	kb=$(sed -n "s/^	Maximum resident set size (kbytes): //p" err.time)
	echo "peak RSS $kb KB"
	[ $rc = 1 ] && [ "$(grep -c "^error: " err)" = 1 ]
}

test_expect 'JSON bombs: refused within a bounded memory' '
	[ -x /usr/bin/time ] || { echo "no /usr/bin/time"; exit 1; }
	mkdir -p hostile &&
	# 1 GiB of empty objects in 1 MB of gzip: the bound of the inflated text
	"$PY" - <<-\EOF &&
	import zlib
	z = zlib.compressobj(9, zlib.DEFLATED, 31)
	chunk = b"{}," * (1 << 20)
	with open("hostile/bomb.json.gz", "wb") as f:
	    f.write(z.compress(b"{\"format\": \"mmci-bundle/1\", \"boots\": ["))
	    for i in range(341):
	        f.write(z.compress(chunk))
	    f.write(z.compress(b"{}]}"))
	    f.write(z.flush())
	EOF
	ls -l hostile/bomb.json.gz &&
	peak_kb hostile/bomb.json.gz &&
	grep -q "^error: bundle .hostile/bomb.json.gz. inflates to more than $(bound BUNDLE_MAX_JSON) bytes, the bound of a bundle.s JSON (a gzip bomb?): refused, nothing of it parsed$" err &&
	[ "$kb" -lt "$PEAK_KB" ] &&
	# under the bound of the text: 20 MB of empty objects, counted first
	"$PY" -c "import sys; sys.stdout.write(\"{\\\"format\\\": \\\"mmci-bundle/1\\\", \\\"boots\\\": [\" + \"{},\" * (7 << 20) + \"{}]}\")" |
		gzip -1 > hostile/objects.json.gz &&
	peak_kb hostile/objects.json.gz &&
	grep -q "^error: bundle .hostile/objects.json.gz.: more than $(bound BUNDLE_MAX_CONTAINERS) JSON arrays and objects, the bound of a bundle$" err &&
	[ "$kb" -lt "$PEAK_KB" ] &&
	[ "$(b_rows)" = 0 ]
'

test_atexit '[ -s "$TRASH/http.pid" ] && kill "$(cat "$TRASH/http.pid")" 2>/dev/null; true'
test_expect 'a hostile bundle from a URL: refused the same way' '
	port=$("$PY" -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	mkdir -p www && cp hostile/initrd.json www/ &&
	{ "$PY" -m http.server --bind 127.0.0.1 --directory "$TRASH/www" "$port" \
		> http.log 2>&1 & echo $! > "$TRASH/http.pid"; } &&
	i=0 && until curl -sf -o /dev/null "http://127.0.0.1:$port/initrd.json"; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	set +e
	on_b "$MMCI" reproduce --bundle "http://127.0.0.1:$port/initrd.json" --dry-run > out 2> err
	rc=$?; set -e; cat err; [ $rc = 1 ] &&
	[ "$(grep -c "^error: " err)" = 1 ] &&
	grep -q "^error: bundle .http://127.0.0.1:$port/initrd.json.: run.initrd .$SECRET/shadow. is not mmci.s own initramfs" err &&
	[ "$(b_rows)" = 0 ]
'

test_done
