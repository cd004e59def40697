#!/bin/sh
# t0970-export: `mmci export kcidb`, builds and results as KCIDB JSON for
# KernelCI. A real series is ingested from an mbox written here (quotes,
# backslashes, an encoded Latin-1 word and a raw byte that is not UTF-8 in
# its subject); the tree head, applies, builds, runs, boots, samples,
# guest errors and a finished job are inserted with sqlite3 (booting a
# kernel is too slow for this test). Every export is validated against
# KernelCI's published JSON schema of the KCIDB I/O format, v5.3 of
# kernelci/kcidb-io (tests/fixtures/kcidb/), with python3-jsonschema and
# every "format" checked, then against mmci's rules beyond a schema
# (references, unique ids, no null in misc). Broken exports are shown to
# be refused, so the check cannot pass vacuously.
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}	# another build of mmci under test

# a python3 with jsonschema: the one on PATH, else Debian's
PY=
for p in python3 /usr/bin/python3; do
	p=$(command -v "$p") && "$p" -c "import jsonschema" 2>/dev/null &&
		{ PY=$p; break; }
done
[ -n "$PY" ] ||
	skip_all "python3-jsonschema checks the export against KCIDB's schema"
command -v sqlite3 >/dev/null || skip_all "sqlite3 inserts the fixture"

T0=1735689600				# 2025-01-01T00:00:00+00:00
BASE=ba5e000000000000000000000000000000000001
OTHER=0123456789abcdef0123456789abcdef01234567
H1=1111111111111111111111111111111111111111
H2=2222222222222222222222222222222222222222

# the series: a cover letter and two patches; the diffs are also kept as
# files, to hash them the way KCIDB documents it
mkdir -p patches
cat > patches/0001.patch <<'EOF'
diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1 +1,2 @@
 a
+b "quoted" \ backslash
EOF
cat > patches/0002.patch <<'EOF'
diff --git a/mm/b.c b/mm/b.c
--- a/mm/b.c
+++ b/mm/b.c
@@ -1 +1 @@
-c
+d
EOF
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: Ann Author <ann@example.org>\n'
	printf 'Subject: [PATCH 0/2] mm: "quoted" \\back\\slash =?iso-8859-1?q?caf=E9?= \377 end\n'
	printf 'Date: Wed, 01 Jan 2025 00:00:00 +0000\n'
	printf 'Message-ID: <cover-0970@example.org>\n\n'
	printf 'The cover letter.\n\nbase-commit: %s\n-- \n2.39.5\n\n' "$BASE"
	for i in 1 2; do
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: Ann Author <ann@example.org>\n'
		printf 'Subject: [PATCH %d/2] mm: change %d\n' $i $i
		printf 'Date: Wed, 01 Jan 2025 00:00:0%d +0000\n' $i
		printf 'Message-ID: <patch%d-0970@example.org>\n' $i
		printf 'In-Reply-To: <cover-0970@example.org>\n\n'
		printf 'Change %d.\n\nSigned-off-by: Ann Author <ann@example.org>\n---\n' $i
		printf ' mm/x.c | 1 +\n 1 file changed\n\n'
		cat patches/000$i.patch
		printf -- '-- \n2.39.5\n\n'
	done
} > series.mbox

# label, compiler, error and guest message with quotes, a backslash,
# control characters, a byte that is not UTF-8 and U+2028
HOSTILE="'a\"b\\c' || char(1) || char(27) || CAST(X'FF' AS TEXT) || 'é' || char(8232)"
HOSTILE_JSON='"a\"b\\c\u0001\u001b\ufffd\u00e9\u2028"'

D=$MMCI_DATA
fixture() {
	cat <<-EOF
	BEGIN;
	INSERT INTO heads (id, remote, url, branch, ref, commit_id, kind,
		nr_commits, fetched_at) VALUES (1, 'mm',
		'https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git',
		'mm-new', 'refs/remotes/mm/mm-new', '$BASE', 'initial', 1, $T0);
	INSERT INTO applies (id, series_id, base_ref, base_commit, upto,
		head_commit, status, error, created_at) VALUES
		(1, 1, 'mm/mm-new', '$BASE', 2, '$H2', 'ok', NULL, $T0 + 10),
		(2, 1, 'v6.12', '$OTHER', 2, NULL, 'failed',
		 'patch 2/2 "mm: change 2" does not apply', $T0 + 20);
	INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid,
		series_id, upto, config_fragment, config_hash, dotconfig_hash,
		compiler, kernel_release, hz, status, artifacts, log_path, error,
		started_at, duration_s) VALUES
		(1, 'k1', '/t', '$BASE', 't1', NULL, 0,
		 '/p/kernel-patches/config/mmci.config', 'c0', 'd1',
		 'gcc (Debian 12.2.0-14) 12.2.0', '6.12.0', 1000, 'ok',
		 '$D/cache/k1', '$D/cache/k1/build.log', NULL, $T0 + 100, 600.5),
		(2, 'k2', '/t', '$H2', 't2', 1, 2,
		 '/p/kernel-patches/config/mmci.config', 'c0', 'd2', $HOSTILE,
		 '6.12.0+', 1000, 'ok', '$D/cache/k2', '$D/cache/k2/build.log',
		 NULL, $T0 + 200, 60),
		(3, 'k3', '/t', '$H1', 't3', 1, 1,
		 '/p/kernel-patches/config/mmci.config', 'c0', NULL,
		 'gcc', NULL, NULL, 'failed', '$D/cache/k3',
		 '$D/cache/k3/build.log', 'mm/a.c:1: error: "boom" \\ ' || $HOSTILE,
		 $T0 + 300, 30),
		(4, 'k4', '/t', '$BASE', 't4', NULL, 0,
		 '/p/kernel-patches/config/mmci.config', 'c0', NULL, 'gcc',
		 NULL, NULL, 'building', NULL, NULL, NULL, $T0 + 400, NULL);
	INSERT INTO runs (id, label, build_id, kernel, kernel_release,
		modules_root, hz, workloads, params, accel, clock, vcpus, ram_mib,
		nvdimm_mib, backing, qemu_version, libvirt_version, host, initrd,
		status, error, started_at, ended_at, job_id) VALUES
		(1, 'base', 1, '/k', '6.12.0', '/m', 1000, 'fsdax,devdax,kmem',
		 '{"iters":10}', 'tcg', 'icount', 1, 1280, 4096, 'tmpfs', '7.2.15',
		 '9.0.0', 'hostA', '/i', 'ok', NULL, $T0 + 1000, $T0 + 1100, 1),
		(2, $HOSTILE, 2, '/k', '6.12.0+', '/m', 1000, 'fsdax,devdax',
		 '{"iters":10}', 'tcg', 'icount', 1, 1280, 4096, 'tmpfs', '7.2.15',
		 '9.0.0', 'hostA', '/i', 'ok', NULL, $T0 + 2000, $T0 + 2100, 1),
		(3, 'broken', 2, '/k', '6.12.0+', '/m', 1000, 'fsdax', '{}',
		 'kvm', 'wall', 2, 1280, 4096, 'tmpfs', NULL, NULL, 'hostA', '/i',
		 'failed', 'all 2 boot(s) failed', $T0 + 3000, $T0 + 3100, NULL),
		(4, 'prebuilt', NULL, '/boot/vmlinuz', '6.1.0-cloud', '/m', 250,
		 'fsdax', '{}', 'tcg', 'icount', 1, 1280, 4096, 'tmpfs', NULL, NULL,
		 'hostA', '/i', 'ok', NULL, $T0 + 4000, $T0 + 4100, NULL),
		(5, 'wall', 1, '/k', '6.12.0', '/m', 1000, 'vmap',
		 '{"pin":true}', 'kvm', 'wall', 2, 1280, 4096, 'disk', '7.2.15',
		 '9.0.0', 'hostB', '/i', 'ok', NULL, $T0 + 5000, $T0 + 5100, NULL),
		(6, 'busy', 1, '/k', '6.12.0', '/m', 1000, 'fsdax', '{}', 'tcg',
		 'icount', 1, 1280, 4096, 'tmpfs', NULL, NULL, 'hostA', '/i',
		 'running', NULL, $T0 + 6000, NULL, NULL);
	INSERT INTO boots (id, run_id, idx, status, end_kind, console_log,
		results_log, error, started_at, duration_s) VALUES
		(11, 1, 0, 'ok', 'poweroff', '$D/runs/1/boot0-console.log',
		 '$D/runs/1/boot0-results.jsonl', NULL, $T0 + 1001, 40),
		(12, 1, 1, 'ok', 'poweroff', '$D/runs/1/boot1-console.log',
		 '$D/runs/1/boot1-results.jsonl', NULL, $T0 + 1050, 40),
		(21, 2, 0, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 2001, 40),
		(22, 2, 1, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 2050, 40),
		(31, 3, 0, 'failed', 'crashed', NULL, NULL,
		 'the guest crashed: Kernel panic - not syncing', $T0 + 3001, 5),
		(32, 3, 1, 'failed', 'start-failed', NULL, NULL,
		 'cannot start the domain', $T0 + 3050, 1),
		(41, 4, 0, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 4001, 40),
		(51, 5, 0, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 5001, 20),
		(52, 5, 1, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 5021, 20),
		(53, 5, 2, 'ok', 'poweroff', NULL, NULL, NULL, $T0 + 5041, 20),
		(54, 5, 3, 'failed', 'timeout', NULL, NULL, 'timed out',
		 $T0 + 5061, 20),
		(61, 6, 0, 'running', NULL, NULL, NULL, NULL, $T0 + 6001, NULL);
	WITH RECURSIVE it(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM it
				 WHERE i < 10)
	INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
			     iteration, value)
		SELECT 1, b, 'fsdax', 'align=2M,map=dev', 'rebind_memmap', 'ms',
		       i, 1012 FROM it, (SELECT 11 AS b UNION SELECT 12)
		UNION ALL
		SELECT 2, b, 'fsdax', 'align=2M,map=dev', 'rebind_memmap', 'ms',
		       i, 1684 FROM it, (SELECT 21 AS b UNION SELECT 22)
		UNION ALL
		SELECT 1, b, 'devdax', 'align=4K,map=mem', 'rebind_memmap', 'ms',
		       i, 196 FROM it, (SELECT 11 AS b UNION SELECT 12)
		UNION ALL
		SELECT 2, b, 'devdax', 'align=4K,map=mem', 'rebind_memmap', 'ms',
		       i, 197 FROM it, (SELECT 21 AS b UNION SELECT 22)
		UNION ALL
		SELECT 4, 41, 'fsdax', 'align=2M,map=dev', 'rebind_memmap', 'ms',
		       i, 900 FROM it;
	-- wall clock: boot medians 11, 21.5 and 6, so the run's value is 11
	-- (all samples pooled would give 16); the failed boot never counts
	INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
			     iteration, value) VALUES
		(5, 51, 'vmap', '', 'vmap_100m_order8', 'us', 0, 10),
		(5, 51, 'vmap', '', 'vmap_100m_order8', 'us', 1, 11),
		(5, 51, 'vmap', '', 'vmap_100m_order8', 'us', 2, 12),
		(5, 52, 'vmap', '', 'vmap_100m_order8', 'us', 0, 20),
		(5, 52, 'vmap', '', 'vmap_100m_order8', 'us', 1, 21),
		(5, 52, 'vmap', '', 'vmap_100m_order8', 'us', 2, 22),
		(5, 52, 'vmap', '', 'vmap_100m_order8', 'us', 3, 23),
		(5, 53, 'vmap', '', 'vmap_100m_order8', 'us', 0, 5),
		(5, 53, 'vmap', '', 'vmap_100m_order8', 'us', 1, 6),
		(5, 53, 'vmap', '', 'vmap_100m_order8', 'us', 2, 100),
		(5, 54, 'vmap', '', 'vmap_100m_order8', 'us', 0, 9999);
	INSERT INTO events (run_id, boot_id, workload, variant, kind, key,
		message) VALUES
		(1, 11, 'kmem', 'online=online', 'error', 'driver',
		 'no dax_kmem driver'),
		(1, 12, 'kmem', NULL, 'error', 'driver', $HOSTILE),
		(1, 11, 'fsdax', NULL, 'info', 'x', 'just information');
	INSERT INTO jobs (id, kind, status, created_at, series_id, result)
		VALUES (1, 'series', 'done', $T0, 1, '{"base_run":1,"new_run":2,'
		|| '"worse":1,"better":0,"extra_rounds":0}');
	COMMIT;
	EOF
}

# The validator: KernelCI's published JSON schema of the KCIDB I/O format,
# tests/fixtures/kcidb/kcidb-io-v5.3.schema.json (kcidb_io/schema/v05_03.py
# of kernelci/kcidb-io, made by gen-schema.py beside it), with jsonschema
# as kcidb-io validates: Draft 7 and a FormatChecker. Formats the
# installed jsonschema cannot check (uri needs rfc3987 or
# rfc3986-validator, date-time rfc3339-validator) are checked by rules of
# RFC 3986 and RFC 3339 written here, so "format" is never let through.
# Then mmci's own rules beyond the schema: JSON without duplicate keys,
# NaN or null (also in misc), ids under the object's own origin, unique,
# references that resolve, the version the schema's newest, times in
# UTC. SCHEMA_ONLY=1 checks the schema alone; --mutations LIST GOOD
# checks a list of broken copies of GOOD in one process. Prints every
# error with its path and exits 1.
cat > check.py <<'EOF'
import datetime, ipaddress, json, os, re, sys
import jsonschema

# RFC 3986 URI (section 3, appendix A): scheme ":" hier-part [? query] [# fr]
PCT = r"%[0-9A-Fa-f]{2}"
UNRES_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
PCHAR = r"(?:[" + UNRES_SUB + r":@]|" + PCT + r")"
HOST = (r"(?:\[[0-9A-Fa-f:.]+\]|\[v[0-9A-Fa-f]+\.[" + UNRES_SUB +
        r":]+\]|(?:[" + UNRES_SUB + r"]|" + PCT + r")*)")
AUTHORITY = (r"(?:(?:[" + UNRES_SUB + r":]|" + PCT + r")*@)?(?P<host>" +
             HOST + r")(?::[0-9]*)?")
URI_RE = re.compile(
    r"^[A-Za-z][A-Za-z0-9+.-]*:"
    r"(?://" + AUTHORITY + r"(?:/" + PCHAR + r"*)*"
    r"|/(?:" + PCHAR + r"+(?:/" + PCHAR + r"*)*)?"
    r"|" + PCHAR + r"+(?:/" + PCHAR + r"*)*"
    r"|)"
    r"(?:\?(?:" + PCHAR + r"|[/?])*)?(?:#(?:" + PCHAR + r"|[/?])*)?\Z")
# RFC 3339 section 5.6 date-time, as strict as rfc3339-validator: "T" and
# "Z" in upper case, no leap second
DATE_TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?"
                          r"(Z|[+-]\d\d:\d\d)\Z")
# mmci's own form of it: UTC, microseconds
MMCI_TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00\Z")


def is_uri(s):
    if not isinstance(s, str):
        return True
    m = URI_RE.match(s)
    host = m and m.group("host") or ""
    if host.startswith("[") and not host.startswith("[v"):
        try:	# an IPv6address literal
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
    return bool(m)


def is_date_time(s):
    if not isinstance(s, str):
        return True
    m = DATE_TIME_RE.match(s)
    if not m:
        return False
    off = m.group(2)
    if off != "Z" and not (int(off[1:3]) <= 23 and int(off[4:]) <= 59):
        return False
    try:	# the ranges of the fields, leap years included
        datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


OWN = {"uri": is_uri, "date-time": is_date_time}
errors = []


def fail(msg):
    errors.append(msg)


def done():
    for e in errors[:20]:
        print("kcidb-check: " + (e if len(e) < 300 else e[:300] + "..."))
    if len(errors) > 20:
        print("kcidb-check: ... %d errors in all" % len(errors))
    if errors:
        sys.exit(1)


def formats(s, acc):
    if isinstance(s, dict):
        if isinstance(s.get("format"), str):
            acc.add(s["format"])
        for v in s.values():
            formats(v, acc)
    elif isinstance(s, list):
        for v in s:
            formats(v, acc)
    return acc


def no_dup_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        fail("duplicate key in %r" % keys)
    return dict(pairs)


def bad_constant(c):
    fail("%s is not JSON" % c)
    return 0


def walk(v, where):
    """no null anywhere, no NUL in a string, misc included"""
    if v is None:
        fail("%s: null" % where)
    if isinstance(v, str) and "\0" in v:
        fail("%s: NUL in a string" % where)
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, where + "." + k)
    if isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (where, i))


def check_mmci(d, schema):
    """mmci's rules beyond what a JSON schema can say"""
    ver = schema["properties"]["version"]["properties"]
    want = {"major": ver["major"]["const"], "minor": ver["minor"]["maximum"]}
    if d.get("version") != want:
        fail("$.version: %r, not the schema's %r" % (d.get("version"), want))
    ids = {}
    for kind in ("checkouts", "builds", "tests"):
        ids[kind] = set()
        for i, o in enumerate(d.get(kind, [])):
            where = "$.%s[%d]" % (kind, i)
            if not isinstance(o, dict) or not isinstance(o.get("id"), str):
                continue	# the schema said why
            for k in ("id", "checkout_id", "build_id"):
                if k in o and not str(o[k]).startswith(
                        "%s:" % o.get("origin")):
                    fail("%s.%s: %r is not under origin %r" %
                         (where, k, o[k], o.get("origin")))
            if o["id"] in ids[kind]:
                fail("%s.id: %s twice" % (where, o["id"]))
            ids[kind].add(o["id"])
            for k, v in o.items():
                if (k.endswith("_time") or k == "_timestamp") and \
                        not MMCI_TIME_RE.match(str(v)):
                    fail("%s.%s: %r is not mmci's UTC form" % (where, k, v))
    for i, b in enumerate(d.get("builds", [])):
        if b.get("checkout_id") not in ids["checkouts"]:
            fail("$.builds[%d].checkout_id: no checkout %s" %
                 (i, b.get("checkout_id")))
    for i, t in enumerate(d.get("tests", [])):
        if t.get("build_id") not in ids["builds"]:
            fail("$.tests[%d].build_id: no build %s" % (i, t.get("build_id")))


def check(text, schema_only):
    """the errors of one export, as text"""
    global errors
    errors = []
    d = json.loads(text, object_pairs_hook=no_dup_keys,
                   parse_constant=bad_constant)
    for e in sorted(v.iter_errors(d), key=lambda e: list(map(str, e.path))):
        fail("schema: %s: %s" % (e.json_path, e.message))
    if not schema_only:
        walk(d, "$")
        if isinstance(d, dict):
            check_mmci(d, schema)
    return errors


def mutations(listing, good):
    """each line "KIND PATH STATEMENT" breaks a copy of the good export
    (the statement changes d); the copy must be refused with an error
    at PATH, and by the schema alone if KIND is S, by mmci's rules alone
    if H. One process for all: a python start is most of a check."""
    base = open(good, encoding="utf-8").read()
    wrong = n = 0
    for line in open(listing, encoding="utf-8"):
        kind, where, stmt = line.strip().split(None, 2)
        d = json.loads(base)
        exec(stmt, {"d": d})
        text = json.dumps(d)
        n += 1
        errs = check(text, False)
        for e in errs[:20]:
            print("kcidb-check: " + (e if len(e) < 300 else e[:300] + "..."))
        if not errs:
            print("accepted: " + stmt)
            wrong += 1
            continue
        if not any(where in e[:300] for e in errs[:20]):
            print("not at %s: %s" % (where, stmt))
            wrong += 1
        alone = check(text, True)
        if kind == "S" and not alone:
            print("the schema accepted: " + stmt)
            wrong += 1
        elif kind == "H" and alone:
            print("the schema refused: " + stmt)
            wrong += 1
    print("kcidb-check: %d of %d broken exports refused as expected" %
          (n - wrong, n))
    sys.exit(1 if wrong or not n else 0)


schema = json.load(open(sys.argv[1], encoding="utf-8"))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
checker = jsonschema.FormatChecker()
checker.checkers = dict(cls.FORMAT_CHECKER.checkers)
used = []
for f in sorted(formats(schema, set())):
    if f in checker.checkers:
        used.append(f + " (jsonschema)")
    elif f in OWN:
        checker.checks(f)(OWN[f])
        used.append(f + " (RFC rules of check.py)")
    else:
        fail("no checker for the schema's format %r" % f)
done()
v = cls(schema, format_checker=checker)
if sys.argv[2] == "--mutations":
    mutations(sys.argv[3], sys.argv[4])
text = open(sys.argv[2], encoding="utf-8", errors="strict").read()
check(text, os.environ.get("SCHEMA_ONLY"))
done()
print("kcidb-check: ok (%s, formats: %s)" % (cls.__name__, ", ".join(used)))
EOF
SCHEMA=$SRC/tests/fixtures/kcidb/kcidb-io-v5.3.schema.json
CHECK="$PY $TRASH/check.py $SCHEMA"

# py EXPR...: run python with the export as d, tests by path as T(path)
cat > q.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def T(path, run=None):
    return [t for t in d["tests"] if t.get("path") == path and
            (run is None or t["misc"]["run_id"] == run)]
def B(n):
    return [b for b in d["builds"] if b["misc"]["build_id"] == n]
def C(cid):
    return [c for c in d["checkouts"] if c["id"] == cid]
exec(sys.stdin.read())
EOF
q() { "$PY" "$TRASH/q.py" "${2:-out.json}" <<-EOF
	$1
	EOF
}

test_expect 'the database: a real series ingested, the rest inserted' '
	"$MMCI" init --no-tree &&
	"$MMCI" ingest series.mbox &&
	[ "$(sql "SELECT total FROM series WHERE id = 1")" = 2 ] &&
	fixture > fixture.sql && sqlite3 -bail "$MMCI_DB" < fixture.sql &&
	[ "$(sql "SELECT count(*) FROM samples")" = 101 ]
'

test_expect 'the schema: kcidb-io v5.3, Draft 7, every format checked' '
	"$PY" -c "import json, sys
s = json.load(open(sys.argv[1]))
assert s[\"\$schema\"] == \"http://json-schema.org/draft-07/schema#\"
assert \"kcidb_io/schema/v05_03.py\" in s[\"\$comment\"], s[\"\$comment\"]
assert s[\"properties\"][\"version\"][\"properties\"][\"major\"][\"const\"] == 5
assert s[\"properties\"][\"version\"][\"properties\"][\"minor\"][\"maximum\"] == 3
assert sorted(s[\"\$defs\"]) == [\"build\", \"checkout\", \"incident\", \"issue\",
    \"path\", \"resource\", \"resource_list\", \"status\", \"test\"]" "$SCHEMA" &&
	echo "{\"version\": {\"major\": 5, \"minor\": 3}}" > empty.json &&
	$CHECK empty.json > why && cat why &&
	grep -q "formats: date-time (.*), email (.*), uri (.*)$" why
'

test_expect 'export kcidb writes JSON that follows KCIDB v5.3' '
	"$MMCI" export kcidb > out.json 2> err && cat err &&
	$CHECK out.json &&
	q "assert len(d[\"checkouts\"]) == 4, d[\"checkouts\"]
assert len(d[\"builds\"]) == 4
assert all(t[\"origin\"] == \"mmci\" for t in d[\"tests\"])"
'

# mutations of a good export, each breaking one rule, with the path the
# refusal must name: "S" the schema alone refuses it (SCHEMA_ONLY=1),
# "H" only mmci's rules beyond it (references, duplicate ids, null in
# misc, the origin of an id, the version mmci claims, its time form)
cat > broken.txt <<'EOF'
S $.tests[0].status d["tests"][0]["status"] = "OK"
S $.tests[0].status d["tests"][0]["status"] = "pass"
S $.builds[0].status d["builds"][0]["status"] = "SUCCESS"
S $.tests[0].path d["tests"][0]["path"] = "mmci.fsdax.align=2M"
S $.tests[0].origin d["tests"][0]["origin"] = "MMCI"
S $.tests[0].id d["tests"][0]["id"] = "no-origin"
S $.tests[0].number.unit d["tests"][0]["number"] = {"value": 1, "unit": None}
S $.tests[0].number d["tests"][0]["number"] = {"val": 1}
S $.tests[0].number.prefix d["tests"][0]["number"] = {"value": 1, "prefix": "si"}
S $.tests[0].environment d["tests"][0]["environment"]["host"] = "x"
S $.tests[0].misc d["tests"][0]["misc"] = []
S $.tests[0].log_excerpt d["tests"][0]["log_excerpt"] = "x" * 16385
S $.tests[0].log_url d["tests"][0]["log_url"] = "https://ci.example.org/a b.log"
S $.tests[0].output_files[0].name d["tests"][0]["output_files"] = [{"name": "a/b", "url": "https://ci.example.org/b"}]
S $.tests[0].output_files[0].url d["tests"][0]["output_files"] = [{"name": "b", "url": "ci.example.org/b"}]
S $.tests[0].start_time d["tests"][0]["start_time"] = "2025-13-01T00:00:00.000000+00:00"
S $.checkouts[0].start_time d["checkouts"][0]["start_time"] = "2025-01-01 00:00:00"
S $.checkouts[0].patchset_hash d["checkouts"][0]["patchset_hash"] = "abc"
S $.checkouts[0].git_commit_hash d["checkouts"][0]["git_commit_hash"] = "ABC"
S $.checkouts[0].git_repository_url d["checkouts"][0]["git_repository_url"] = "git://git.kernel.org/pub/scm/linux.git"
S $.checkouts[0].message_id d["checkouts"][0]["message_id"] = "no-at-sign"
S $.checkouts[0].valid d["checkouts"][0]["valid"] = "true"
S $.builds[0].architecture d["builds"][0]["architecture"] = "x86-64"
S $.builds[0] d["builds"][0]["valid"] = True
S $.builds[0].duration d["builds"][0]["duration"] = "600"
S $.builds[0].config_url d["builds"][0]["config_url"] = "https://ci.example.org/%zz"
S $.builds[0] del d["builds"][0]["checkout_id"]
S $.version.minor d["version"]["minor"] = 4
S $.version.major d["version"]["major"] = 4
S $ del d["version"]
S $ d["results"] = []
H $.tests[0].build_id d["tests"][0]["build_id"] = "mmci:no-such-build"
H $.builds[0].checkout_id d["builds"][0]["checkout_id"] = "mmci:nowhere"
H .id: d["tests"].append(dict(d["tests"][0]))
H $.tests[0].id d["tests"][0]["id"] = "lab:" + d["tests"][0]["id"]
H $.tests[0].misc.x d["tests"][0]["misc"]["x"] = None
H $.version d["version"]["minor"] = 2
H $.checkouts[0].start_time d["checkouts"][0]["start_time"] = "2025-01-01T00:00:00Z"
EOF

test_expect 'the validator refuses broken exports, naming the path (so the checks can fail)' '
	$CHECK --mutations broken.txt out.json > why && rc=0 || rc=$?
	cat why && [ $rc = 0 ] &&
	[ "$(wc -l < broken.txt)" -gt 30 ] &&
	grep -q "^kcidb-check: $(wc -l < broken.txt) of $(wc -l < broken.txt) broken exports refused" why
'

test_expect 'checkouts: the tree commit, base + patches (KCIDB patchset_hash), a failed apply' '
	h1=$(cd patches && sha256sum 0001.patch | cut -c-64 | sha256sum | cut -c-64) &&
	h2=$(cd patches && sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64) &&
	q "tree = C(\"mmci:$BASE\")[0]
assert tree[\"patchset_hash\"] == \"\" and tree[\"valid\"] is True, tree
assert tree[\"git_commit_hash\"] == \"$BASE\"
assert tree[\"git_repository_url\"] == \"https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git\"
assert tree[\"git_repository_branch\"] == \"mm-new\" and tree[\"tree_name\"] == \"mm\"
assert tree[\"start_time\"] == \"2025-01-01T00:00:00.000000+00:00\", tree
s2 = C(\"mmci:$BASE+$h2\")[0]
assert s2[\"patchset_hash\"] == \"$h2\" and s2[\"valid\"] is True
assert s2[\"git_commit_hash\"] == \"$BASE\" and s2[\"message_id\"] == \"cover-0970@example.org\"
assert s2[\"start_time\"] == \"2025-01-01T00:00:10.000000+00:00\"
assert s2[\"misc\"][\"series_id\"] == 1 and s2[\"misc\"][\"patches\"] == 2
assert \"patchset_files\" not in s2   # a local mbox has no public URL
s1 = C(\"mmci:$BASE+$h1\")[0]
assert s1[\"patchset_hash\"] == \"$h1\" and s1[\"comment\"].endswith(\" (patches 1-1 of 2)\"), s1
bad = C(\"mmci:$OTHER+$h2\")[0]
assert bad[\"valid\"] is False and \"does not apply\" in bad[\"log_excerpt\"], bad"
'

test_expect 'a series whose mails are gone: its patchset_hash from the stored rows' '
	mv series.mbox series.mbox.away &&
	"$MMCI" export kcidb > rows.json 2> err; rc=$?
	mv series.mbox.away series.mbox && cat err && [ $rc = 0 ] &&
	! grep -q "cannot be read again" err && $CHECK rows.json &&
	q "s = [c for c in d[\"checkouts\"] if c.get(\"misc\", {}).get(\"series_id\") == 1]
assert len(s) == 3 and all(\"patchset_hash\" in c for c in s), s
o = [c for c in json.load(open(\"out.json\"))[\"checkouts\"] if c.get(\"misc\", {}).get(\"series_id\") == 1]
assert sorted(c[\"patchset_hash\"] for c in s) == sorted(c[\"patchset_hash\"] for c in o), (s, o)" rows.json
'

test_expect 'stored before migration 14, mails gone: no patchset_hash, a warning, still valid' '
	sqlite3 "$MMCI_DB" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null &&
	cp "$MMCI_DB" legacy.db &&
	sqlite3 legacy.db "UPDATE patches SET commit_message = NULL" &&
	mv series.mbox series.mbox.away &&
	MMCI_DB="$TRASH/legacy.db" "$MMCI" export kcidb > gone.json 2> err; rc=$?
	mv series.mbox.away series.mbox && cat err && [ $rc = 0 ] &&
	grep -q "warning: series #1: its mails cannot be read again" err &&
	$CHECK gone.json &&
	q "s = [c for c in d[\"checkouts\"] if c.get(\"misc\", {}).get(\"series_id\") == 1]
assert len(s) == 3 and not [c for c in s if \"patchset_hash\" in c], s
assert len({c[\"id\"] for c in s}) == 3 and all(\"+series-1-\" in c[\"id\"] for c in s)" gone.json
'

test_expect 'a hostile subject and hostile database text survive as valid JSON' '
	title=$(sql "SELECT title FROM series WHERE id = 1") &&
	printf "%s" "$title" > title.txt &&
	q "title = open(\"title.txt\", encoding=\"utf-8\").read()
assert \"\\\"quoted\\\" \\\\back\\\\slash\" in title and \"café\" in title, title
assert C(\"mmci:$BASE+$(cd patches && sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64)\")[0][\"comment\"] == title
hostile = json.loads(r'"'"'$HOSTILE_JSON'"'"')
assert B(2)[0][\"compiler\"] == hostile, B(2)[0][\"compiler\"]
assert T(\"mmci.fsdax.rebind_memmap.align-2M__map-dev\", 2)[0][\"misc\"][\"run_label\"] == hostile
assert B(3)[0][\"log_excerpt\"] == \"mm/a.c:1: error: \\\"boom\\\" \\\\ \" + hostile
assert hostile in T(\"mmci.kmem\", 1)[0][\"log_excerpt\"]" &&
	grep -q "\\\\u0001\\\\u001[bB]" out.json && ! grep -q "$(printf "\001")" out.json
'

test_expect 'builds: status, compiler, config, times; a build in progress has no status' '
	q "b = B(1)[0]
assert b[\"id\"] == \"mmci:build-1-$((T0 + 100))\" and b[\"status\"] == \"PASS\"
assert b[\"checkout_id\"] == \"mmci:$BASE\" and b[\"architecture\"] == \"x86_64\"
assert b[\"config_name\"] == \"mmci.config\" and b[\"duration\"] == 600.5
assert b[\"compiler\"] == \"gcc (Debian 12.2.0-14) 12.2.0\"
assert b[\"start_time\"] == \"2025-01-01T00:01:40.000000+00:00\"
assert b[\"misc\"][\"log_path\"].endswith(\"/cache/k1/build.log\") and \"log_url\" not in b
assert B(3)[0][\"status\"] == \"FAIL\" and B(3)[0][\"checkout_id\"].startswith(\"mmci:$BASE+\")
assert \"status\" not in B(4)[0] and B(4)[0][\"misc\"][\"mmci_status\"] == \"building\""
'

test_expect 'builds: the architecture of the CPU, arm64-64k in misc, its Image' '
	sqlite3 "$MMCI_DB" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null &&
	cp "$MMCI_DB" arch.db &&
	sqlite3 arch.db "UPDATE builds SET arch = '"'"'arm64-64k'"'"' WHERE id = 2;
		UPDATE builds SET arch = '"'"'sparc'"'"' WHERE id = 3" &&
	MMCI_DB="$TRASH/arch.db" "$MMCI" export kcidb \
		--log-url https://ci.example.org/mmci > arch.json &&
	$CHECK arch.json &&
	q "assert B(1)[0][\"architecture\"] == \"x86_64\" and B(1)[0][\"misc\"][\"arch\"] == \"x86_64\"
b = B(2)[0]
assert b[\"architecture\"] == \"arm64\" and b[\"misc\"][\"arch\"] == \"arm64-64k\", b
assert b[\"output_files\"] == [{\"name\": \"Image\", \"url\": \"https://ci.example.org/mmci/cache/k2/Image\"}], b
assert \"architecture\" not in B(3)[0] and B(3)[0][\"misc\"][\"arch\"] == \"sparc\"" arch.json
'

test_expect 'tests: a median per metric (icount: samples, wall: boot medians), DONE' '
	q "t = T(\"mmci.fsdax.rebind_memmap.align-2M__map-dev\", 1)
assert len(t) == 1 and t[0][\"status\"] == \"DONE\", t
assert t[0][\"number\"] == {\"value\": 1012, \"unit\": \"ms\"}, t[0][\"number\"]
assert t[0][\"misc\"][\"variant\"] == \"align=2M,map=dev\" and t[0][\"misc\"][\"units\"] == 20
assert t[0][\"build_id\"] == B(1)[0][\"id\"]
assert t[0][\"misc\"][\"boots\"] == 2 and t[0][\"misc\"][\"hz\"] == 1000
assert t[0][\"misc\"][\"kernel_release\"] == \"6.12.0\" and t[0][\"misc\"][\"mode\"] == \"tcg, clock icount\"
e = t[0][\"environment\"]
assert e[\"comment\"] == \"libvirt/QEMU guest on hostA: tcg, clock icount, 1 vCPU(s), 1280 MiB RAM, 4096 MiB NVDIMM on tmpfs\", e
assert e[\"misc\"][\"qemu_version\"] == \"7.2.15\" and e[\"misc\"][\"libvirt_version\"] == \"9.0.0\"
assert T(\"mmci.devdax.rebind_memmap.align-4K__map-mem\", 2)[0][\"number\"][\"value\"] == 197
w = T(\"mmci.vmap.vmap_100m_order8\", 5)
assert len(w) == 1 and w[0][\"number\"] == {\"value\": 11, \"unit\": \"us\"}, w
assert w[0][\"misc\"][\"units\"] == 3 and w[0][\"misc\"][\"unit_of_replication\"] == \"median of a boot\"
assert \"pinned\" in w[0][\"environment\"][\"comment\"] and \"on disk\" in w[0][\"environment\"][\"comment\"]
assert w[0][\"start_time\"] == \"2025-01-01T01:23:20.000000+00:00\" and w[0][\"duration\"] == 100"
'

test_expect 'boots: PASS, FAIL for a panic, MISS when the domain did not start, ERROR on a timeout' '
	q "st = lambda run: sorted((t[\"misc\"][\"boot\"], t[\"status\"]) for t in T(\"boot\", run))
assert st(1) == [(0, \"PASS\"), (1, \"PASS\")], st(1)
assert st(3) == [(0, \"FAIL\"), (1, \"MISS\")], st(3)
assert st(5) == [(0, \"PASS\"), (1, \"PASS\"), (2, \"PASS\"), (3, \"ERROR\")], st(5)
b = [t for t in T(\"boot\", 3) if t[\"status\"] == \"FAIL\"][0]
assert \"Kernel panic\" in b[\"log_excerpt\"] and b[\"misc\"][\"end_kind\"] == \"crashed\"
assert b[\"duration\"] == 5 and b[\"start_time\"] == \"2025-01-01T00:50:01.000000+00:00\""
'

test_expect 'failed runs and guest errors: ERROR tests with the reason' '
	q "k = T(\"mmci.kmem\", 1)
assert len(k) == 1 and k[0][\"status\"] == \"ERROR\" and k[0][\"misc\"][\"errors\"] == 2, k
assert \"online=online: no dax_kmem driver\" in k[0][\"log_excerpt\"]
f = T(\"mmci.fsdax\", 3)
assert len(f) == 1 and f[0][\"status\"] == \"ERROR\", f
assert f[0][\"log_excerpt\"] == \"all 2 boot(s) failed\" and f[0][\"misc\"][\"run_status\"] == \"failed\"
assert not T(\"mmci.fsdax\", 1) and not T(\"mmci.devdax\", 2)"
'

test_expect 'a prebuilt kernel and a running run are left out, with a warning' '
	grep "warning: skipped 1 run(s) of prebuilt kernels (#4)" err &&
	grep "warning: run #6 is still running" err &&
	q "assert not [t for t in d[\"tests\"] if t[\"misc\"].get(\"run_id\") in (4, 6)]"
'

test_expect 'the finished job: one verdict per metric, FAIL for worse, PASS for no change' '
	q "c = T(\"mmci.compare.fsdax.rebind_memmap.align-2M__map-dev\")
assert len(c) == 1 and c[0][\"status\"] == \"FAIL\", c
assert abs(c[0][\"number\"][\"value\"] - 66.40316205533597) < 1e-6 and c[0][\"number\"][\"unit\"] == \"%\"
assert c[0][\"misc\"][\"verdict\"] == \"worse\" and c[0][\"misc\"][\"base_run\"] == 1
assert c[0][\"misc\"][\"new_run\"] == 2 and c[0][\"misc\"][\"job_id\"] == 1
assert c[0][\"build_id\"] == B(2)[0][\"id\"]
n = T(\"mmci.compare.devdax.rebind_memmap.align-4K__map-mem\")
assert len(n) == 1 and n[0][\"status\"] == \"PASS\" and n[0][\"misc\"][\"verdict\"] == \"no significant change\", n"
'

test_expect '--run: that run, its build and checkout only' '
	"$MMCI" export kcidb --run 2 > one.json && $CHECK one.json &&
	q "assert [b[\"misc\"][\"build_id\"] for b in d[\"builds\"]] == [2]
assert len(d[\"checkouts\"]) == 1 and d[\"checkouts\"][0][\"id\"] == d[\"builds\"][0][\"checkout_id\"]
assert {t[\"misc\"][\"run_id\"] for t in d[\"tests\"]} == {2}
assert len(T(\"mmci.compare.fsdax.rebind_memmap.align-2M__map-dev\")) == 1" one.json
'

test_expect '--since: runs, builds and applies of that period' '
	"$MMCI" export kcidb --since $((T0 + 2500)) > since.json 2> err &&
	$CHECK since.json &&
	q "assert sorted(b[\"misc\"][\"build_id\"] for b in d[\"builds\"]) == [1, 2]
assert {t[\"misc\"][\"run_id\"] for t in d[\"tests\"]} == {3, 5}
assert not [c for c in d[\"checkouts\"] if c[\"valid\"] is False]
assert not T(\"mmci.compare.fsdax.rebind_memmap.align-2M__map-dev\")" since.json
'

test_expect '-o FILE: the same JSON, written whole; --origin and --log-url' '
	"$MMCI" export kcidb -o file.json > stdout && ! test -s stdout &&
	cmp file.json out.json && ! ls file.json.tmp* 2>/dev/null &&
	"$MMCI" export kcidb --all --origin my_lab \
		--log-url https://ci.example.org/mmci/ > lab.json &&
	$CHECK lab.json &&
	q "assert all(o[\"id\"].startswith(\"my_lab:\") and o[\"origin\"] == \"my_lab\" for k in (\"checkouts\", \"builds\", \"tests\") for o in d[k])
b = B(1)[0]
assert b[\"log_url\"] == \"https://ci.example.org/mmci/cache/k1/build.log\", b
assert b[\"config_url\"] == \"https://ci.example.org/mmci/cache/k1/config\"
assert b[\"output_files\"] == [{\"name\": \"bzImage\", \"url\": \"https://ci.example.org/mmci/cache/k1/bzImage\"}]
t = [t for t in T(\"boot\", 1) if t[\"misc\"][\"boot\"] == 1][0]
assert t[\"log_url\"] == \"https://ci.example.org/mmci/runs/1/boot1-console.log\"
assert t[\"output_files\"] == [{\"name\": \"boot1-results.jsonl\", \"url\": \"https://ci.example.org/mmci/runs/1/boot1-results.jsonl\"}]" lab.json
'

test_expect 'URLs: public-inbox patch files; what is no RFC 3986 URI is not a URL' '
	sqlite3 "$MMCI_DB" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null &&
	cp "$MMCI_DB" urls.db &&
	sqlite3 urls.db "UPDATE series SET source_url = '"'"'https://lore.kernel.org/linux-mm/cover-0970@example.org/t.mbox.gz'"'"'" &&
	MMCI_DB="$TRASH/urls.db" "$MMCI" export kcidb > inbox.json &&
	$CHECK inbox.json &&
	q "s = [c for c in d[\"checkouts\"] if c.get(\"misc\", {}).get(\"patches\") == 2][0]
assert s[\"patchset_files\"] == [{\"name\": \"0001.patch\", \"url\": \"https://lore.kernel.org/linux-mm/patch1-0970@example.org/raw\"}, {\"name\": \"0002.patch\", \"url\": \"https://lore.kernel.org/linux-mm/patch2-0970@example.org/raw\"}], s" inbox.json &&
	sqlite3 urls.db "UPDATE series SET source_url = '"'"'https://lore.kernel.org/linux mm/cover-0970@example.org/t.mbox.gz'"'"';
		UPDATE heads SET url = '"'"'https://git.example.org/my tree.git'"'"';
		UPDATE boots SET results_log = '"'"'$D/runs/1/'"'"' WHERE id = 12" &&
	MMCI_DB="$TRASH/urls.db" "$MMCI" export kcidb \
		--log-url https://ci.example.org/mmci > urls.json &&
	$CHECK urls.json &&
	q "tree = C(\"mmci:$BASE\")[0]
assert \"git_repository_url\" not in tree, tree
assert tree[\"misc\"][\"git_url\"] == \"https://git.example.org/my tree.git\", tree
assert not [c for c in d[\"checkouts\"] if \"patchset_files\" in c]
b = [t for t in T(\"boot\", 1) if t[\"misc\"][\"boot\"] == 1][0]
assert \"output_files\" not in b and b[\"misc\"][\"results_log\"].endswith(\"/runs/1/\"), b" urls.json
'

test_expect 'a run that does not exist is an error: exit 1, nothing written' '
	set +e; "$MMCI" export kcidb --run 2 --run 999 -o none.json > out 2> err
	rc=$?; set -e
	cat err && [ $rc = 1 ] && grep -q "^error: no run #999" err &&
	! test -s out && ! test -e none.json
'

test_expect 'bad options: usage and 129' '
	for args in "" "json" "kcidb --since yesterday" "kcidb --all --since 5" \
		    "kcidb --origin Bad-Origin" "kcidb --log-url /var" \
		    "kcidb --log-url https://ci.example.org/my%logs" \
		    "kcidb --log-url https://ci.example.org/a<b" \
		    "kcidb --log-url https://ci.example.org/#logs" \
		    "kcidb extra" "kcidb --bogus"; do
		set +e; "$MMCI" export $args > out 2> err; rc=$?; set -e
		[ $rc = 129 ] || { echo "$args: exit $rc"; exit 1; }
		grep -q "^usage: mmci export kcidb" err || grep -q "^error: " err ||
			{ echo "$args: no message"; cat err; exit 1; }
	done &&
	"$MMCI" export --help | grep -q "^usage: mmci export kcidb" &&
	"$MMCI" --help | grep -q "^  export "
'

test_done
