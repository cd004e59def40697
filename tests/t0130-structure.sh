#!/bin/sh
# t0130-structure: the shape of daemon/ stays as docs/ARCHITECTURE.md
# draws it. No include cycle among daemon/'s modules (a module is a .c
# and its .h; "a includes b.h" is an edge a -> b). Every table's writers,
# derived from the SQL in daemon/*.c (INSERT, REPLACE, UPDATE, DELETE;
# schema.c, the compiled migrations, is left out: its triggers are
# documented with the tables they fill), are named in ARCHITECTURE.md's
# table of tables. Each check is shown to fail on a tree made to break
# it.
. "$(dirname "$0")/lib.sh"

PY=$(command -v python3) || skip_all "python3 reads the sources"

cat > structure.py <<'PYEOF'
import glob, os, re, sys

def cycles(src):
    g = {}
    for f in glob.glob(os.path.join(src, "daemon", "*.[ch]")):
        m = os.path.basename(f).rsplit(".", 1)[0]
        for inc in re.findall(r'#include "([^"/]+)\.h"', open(f).read()):
            if inc != m:
                g.setdefault(m, set()).add(inc)
    # Tarjan's strongly connected components
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out

def writers(src):
    w = {}
    for f in sorted(glob.glob(os.path.join(src, "daemon", "*.c"))):
        name = os.path.basename(f)
        if name == "schema.c":
            continue
        text = re.sub(r'"\s*\n\s*"', "", open(f).read())
        for m in re.finditer(r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE"
                             r"\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b",
                             text):
            w.setdefault(m.group(1), set()).add(name)
    listed = {}
    for line in open(os.path.join(src, "docs", "ARCHITECTURE.md")):
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        files = set(re.findall(r"`([a-z0-9_-]+\.c)`", "|".join(cells[2:])))
        for t in re.findall(r"`([a-z_]+)`", cells[0]):
            listed.setdefault(t, set()).update(files)
    bad = []
    for t, fs in sorted(w.items()):
        if t not in listed:
            bad.append("table %s: written by %s, and ARCHITECTURE.md has "
                       "no row for it" % (t, ", ".join(sorted(fs))))
        elif fs - listed[t]:
            bad.append("table %s: written by %s, which ARCHITECTURE.md "
                       "does not list" % (t, ", ".join(sorted(fs - listed[t]))))
    return bad

what, src = sys.argv[1], sys.argv[2]
if what == "cycles":
    c = cycles(src)
    for comp in c:
        print("include cycle: " + " <-> ".join(comp))
    sys.exit(1 if c else 0)
bad = writers(src)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PYEOF

test_expect 'no include cycle among daemon/ modules' '
	"$PY" structure.py cycles "$SRC"
'

test_expect 'every table'\''s writers are the ones ARCHITECTURE.md names' '
	"$PY" structure.py writers "$SRC"
'

test_expect 'a tree with a cycle and a writer nobody named: both said' '
	mkdir -p broken/daemon broken/docs &&
	cp "$SRC"/daemon/*.[ch] broken/daemon/ &&
	cp "$SRC/docs/ARCHITECTURE.md" broken/docs/ &&
	echo "#include \"report.h\"" >> broken/daemon/util.h &&
	echo "static const char *q = \"DELETE FROM job_steps\";" >> broken/daemon/hosts.c &&
	! "$PY" structure.py cycles broken > out && cat out &&
	grep -q "^include cycle: .*report.*util" out &&
	! "$PY" structure.py writers broken > out && cat out &&
	grep -qx "table job_steps: written by hosts.c, which ARCHITECTURE.md does not list" out
'

test_done
