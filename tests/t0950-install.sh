#!/bin/sh
# t0950-install: `make install` and the systemd units. The installed mmci
# must find every file it reads at run time with MMCI_PROJECT unset: the
# config fragment (a build on a stand-in tree), the style sheet (a real
# `mmci web`), the domain template, init, mkinitramfs.sh and the runner
# (a real boot). The units must pass `systemd-analyze verify`, stay at or
# under the exposure level measured for them, and leave the build sandbox
# what it needs; `make uninstall` must leave nothing behind. PID 1 here is
# not systemd: the units are checked, never started, and systemctl is a
# stand-in that records its calls.
. "$(dirname "$0")/lib.sh"
# it asserts icount values and tcg/icount provenance: pin the accelerator
# (the default would be KVM on a host where it runs guests; t0330 tests that)
export MMCI_ACCEL=tcg

command -v systemd-analyze >/dev/null ||
	skip_all "no systemd-analyze (Debian: systemd)"

# the installed binary must find its data by itself
unset MMCI_PROJECT MMCI_CONFIG MMCI_TREE
ROOT="$TRASH/root"
PREFIX=/usr/local
LIB="$ROOT$PREFIX/lib/mmci"
BIN="$ROOT$PREFIX/bin/mmci"
UNITS="$ROOT$PREFIX/lib/systemd/system"
CONF="$ROOT/etc/mmci/mmci.conf"
# systemd-analyze security --offline=true, systemd 252, measured on the
# units as committed; a change that loosens the sandbox must lower these
# consciously. The daemon's unit is at 3.5: three capabilities, all the
# root parent's (mmci-priv becomes the service user and signals it);
# everything else runs as that user (3.8 while the daemon was root with
# five, for the build user and its children)
MAX_EXPOSURE_DAEMON=3.5
MAX_EXPOSURE_NIGHTLY=1.7

cat > "$TRASH/systemctl" <<EOF
#!/bin/sh
echo "\$*" >> "$TRASH/systemctl.log"
EOF
chmod +x "$TRASH/systemctl"
mkdir -p "$TRASH/booted"

# make in the source tree; systemctl is the stand-in, and "systemd is
# running" unless the caller says otherwise
mk() {
	make -s -C "$SRC" SYSTEMCTL="$TRASH/systemctl" \
		SYSTEMD_RUNDIR="$TRASH/booted" "$@"
}

# every file install puts down: mode and path below the root
EXPECTED="
755 $PREFIX/lib/mmci/mmci
755 $PREFIX/lib/mmci/mmci-priv
755 $PREFIX/lib/mmci/runner/mmci-runner
755 $PREFIX/lib/mmci/vm-images/init
755 $PREFIX/lib/mmci/vm-images/mkinitramfs.sh
644 $PREFIX/lib/mmci/vm-images/domain.xml.in
644 $PREFIX/lib/mmci/kernel-patches/aim.map
644 $PREFIX/lib/mmci/runner/mmci-bench/mmci_bench.c
644 $PREFIX/lib/mmci/runner/mmci-bench/Kbuild
644 $PREFIX/lib/mmci/web/style.css
644 $PREFIX/lib/mmci/web/filter.js
755 $PREFIX/lib/mmci/runner/mmci-profile.so
644 $PREFIX/lib/mmci/web/nginx-mmci.conf
644 $PREFIX/lib/systemd/system/mmci.service
644 $PREFIX/lib/systemd/system/mmci-nightly.service
644 $PREFIX/lib/systemd/system/mmci-nightly.timer
644 $PREFIX/lib/systemd/system/mmci-render.service
600 /etc/mmci/mmci.conf
$(cd "$SRC" && for f in kernel-patches/config/*.config \
		kernel-patches/recipes/*.recipe; do
	echo "644 $PREFIX/lib/mmci/$f"
done)
"
# the arm64 guests' runner, which make builds when the cross compiler is
# there (make setup installs it)
if command -v aarch64-linux-gnu-gcc > /dev/null; then
	EXPECTED="$EXPECTED
755 $PREFIX/lib/mmci/runner/mmci-runner-arm64"
fi

# check_installed ROOT: every expected file with its mode, the symlink,
# and nothing else; names what is wrong
check_installed() {
	echo "$EXPECTED" | while read -r mode path; do
		[ -n "$path" ] || continue
		[ -f "$1$path" ] || { echo "missing: $path"; exit 1; }
		got=$(stat -c %a "$1$path")
		[ "$got" = "$mode" ] ||
			{ echo "mode $got, not $mode: $path"; exit 1; }
	done || return 1
	for b in mmci mmci-priv; do
		[ "$(readlink "$1$PREFIX/bin/$b")" = ../lib/mmci/$b ] ||
			{ echo "bin/$b is not a link to ../lib/mmci/$b"; return 1; }
	done
	want=$(echo "$EXPECTED" | grep -c .)
	got=$(find "$1" -type f | wc -l)
	[ "$got" = "$want" ] ||
		{ echo "$got files, not $want:"; find "$1" -type f; return 1; }
}

# a stand-in kernel tree: one commit, no kbuild, so a build reads the
# fragment, starts the sandbox and fails at once at make tinyconfig
git init -q "$TRASH/tree"
echo 'all:' > "$TRASH/tree/Makefile"
git -C "$TRASH/tree" add Makefile
git -C "$TRASH/tree" -c user.email=t@example.org -c user.name=t \
	commit -q -m 'not a kernel'
build_stand_in() {
	MMCI_TREE="$TRASH/tree" "$BIN" build HEAD
}

test_expect 'make install DESTDIR= stages every file and runs no systemctl' '
	mk install DESTDIR="$ROOT" PREFIX=$PREFIX > out &&
	check_installed "$ROOT" &&
	[ ! -e "$TRASH/systemctl.log" ]
'

test_expect 'the units name the installed binary and settings file' '
	grep -qx "ExecStart=$PREFIX/bin/mmci-priv -- $PREFIX/bin/mmci daemon" \
		"$UNITS/mmci.service" &&
	grep -qx "ExecStart=$PREFIX/bin/mmci ingest tree" \
		"$UNITS/mmci-nightly.service" &&
	grep -qx "EnvironmentFile=-/etc/mmci/mmci.conf" "$UNITS/mmci.service" &&
	grep -qx "EnvironmentFile=-/etc/mmci/mmci.conf" \
		"$UNITS/mmci-nightly.service" &&
	# read by systemd as root, never by the daemon, the service user
	! grep -n "MMCI_CONFIG" "$UNITS/mmci.service" &&
	! grep -n "@[A-Z]*@" "$UNITS"/*
'

test_expect 'every file the sources read from the project directory is installed' '
	grep -oh "project_path([a-z>&.-]*, \"[^\"]*\")" "$SRC"/daemon/*.c |
		sed "s/.*\"\(.*\)\")/\1/" > wanted &&
	# build.c copies runner/mmci-bench/<files[]> by hand
	sed -n "s/.*files\[\] = { \(.*\) };/\1/p" "$SRC/daemon/build.c" |
		tr -d "\" " | tr , "\n" | sed "s|^|runner/mmci-bench/|" >> wanted &&
	sort -u wanted -o wanted && cat wanted &&
	[ "$(wc -l < wanted)" -ge 8 ] &&
	while read -r f; do
		# a directory (kernel-patches/recipes) must hold files
		[ -f "$LIB/$f" ] || [ -n "$(find "$LIB/$f" -type f 2>/dev/null)" ] ||
			{ echo "not installed: $f"; exit 1; }
	done < wanted
'

test_expect 'the settings example lists every MMCI_ variable the code reads' '
	grep -oh "\"MMCI_[A-Z0-9_]*\"" "$SRC"/daemon/*.c | tr -d "\"" |
		sort -u | grep -v -x -e MMCI_ -e MMCI_CONFIG > names &&
	while read -r n; do
		grep -q "^#* *$n=" "$CONF" || { echo "not documented: $n"; exit 1; }
	done < names &&
	# what is not a comment is a MMCI_NAME=value line (both parsers)
	! grep -v -e "^#" -e "^$" -e "^MMCI_[A-Z0-9_]*=" "$CONF"
'

test_expect 'the installed mmci runs without MMCI_PROJECT' '
	[ -z "${MMCI_PROJECT+set}" ] &&
	"$BIN" workloads > wl && grep -q "^fsdax: " wl
'

test_expect 'a build by the installed mmci reads its kernel-patches/ fragment' '
	set +e; build_stand_in > out 2>&1; rc=$?; set -e
	cat out && [ $rc = 1 ] &&
	grep -qF "configuring ($LIB/kernel-patches/config/mmci.config)" out &&
	grep -q "kernel build failed at .make tinyconfig." out
'

test_expect 'a missing data file is caught' '
	rm "$LIB/kernel-patches/config/mmci.config" &&
	! check_installed "$ROOT" > check &&
	grep -qx "missing: $PREFIX/lib/mmci/kernel-patches/config/mmci.config" \
		check &&
	set +e; build_stand_in > out 2>&1; rc=$?; set -e
	cat out && [ $rc = 1 ] &&
	grep -qF "cannot read '\''$LIB/kernel-patches/config/mmci.config'\''" out
'

test_expect 'make install again puts it back and keeps a changed settings file' '
	echo MMCI_POLL_S=60 >> "$CONF" &&
	mk install DESTDIR="$ROOT" PREFIX=$PREFIX > out && cat out &&
	grep -q "keeping $CONF" out &&
	grep -qx MMCI_POLL_S=60 "$CONF" &&
	check_installed "$ROOT"
'

test_expect 'mmci web serves the installed web/style.css' '
	"$BIN" web --listen 127.0.0.1:0 > web.out 2> web.err &
	pid=$!
	i=0
	until grep -q "listening on port" web.out || [ $i -gt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	port=$(sed -n "s/.*listening on port //p" web.out)
	# 503 until the render worker has written its first pages (seconds
	# under ASan): the file is served from there
	i=0
	until curl -sf "http://127.0.0.1:$port/style.css" > css; do
		rc=$?
		[ $i -gt 300 ] && break
		sleep 0.1; i=$((i + 1))
	done
	[ $i -gt 300 ] || rc=0
	kill $pid; wait $pid
	cat web.err && [ $rc = 0 ] && cmp css "$SRC/web/style.css" &&
	! grep -q "cannot read" web.err
'

# a real boot: the initramfs from the installed init, mkinitramfs.sh and
# runner, the domain from the installed template (marked, to see it is
# the one used)
test_expect_vm 'the installed mmci boots a guest from its vm-images/ and runner/' '
	sed -i "/^<domain /a <!-- t0950: the installed template -->" \
		"$LIB/vm-images/domain.xml.in" &&
	"$BIN" run --kernel "$CLOUD_KERNEL" --nvdimm 1G --iters 1 \
		--map dev --workloads fsdax > out &&
	grep -q "^run #1: ok" out &&
	[ "$(sql "SELECT runner_sha1 FROM runs WHERE id = 1")" = \
	  "$(git hash-object "$LIB/runner/mmci-runner")" ] &&
	sql "SELECT domain_xml FROM boots WHERE run_id = 1" |
		grep -q "t0950: the installed template" &&
	[ "$(sql "SELECT count(*) FROM samples WHERE run_id = 1")" -gt 0 ] &&
	no_domains_left
'

test_expect 'units installed with a real ExecStart pass systemd-analyze verify' '
	P="$TRASH/prefix" &&
	mk install PREFIX="$P" SYSCONFDIR="$P/etc" > out &&
	grep -qx daemon-reload "$TRASH/systemctl.log" &&
	grep -qx "ExecStart=$P/bin/mmci-priv -- $P/bin/mmci daemon" \
		"$P/lib/systemd/system/mmci.service" &&
	systemd-analyze verify "$P"/lib/systemd/system/mmci* > verify 2>&1 &&
	cat verify && [ ! -s verify ] &&
	# and it does catch a unit whose program is missing
	sed "s|^ExecStart=.*|ExecStart=$TRASH/nowhere/mmci-priv -- mmci daemon|" \
		"$P/lib/systemd/system/mmci.service" > "$TRASH/mmci.service" &&
	! systemd-analyze verify "$TRASH/mmci.service" 2> bad &&
	grep -q "nowhere/mmci-priv is not executable" bad
'

test_expect 'without systemd running, make install calls no systemctl' '
	rm -f "$TRASH/systemctl.log" &&
	mk install PREFIX="$TRASH/prefix" SYSCONFDIR="$TRASH/prefix/etc" \
		SYSTEMD_RUNDIR="$TRASH/not-booted" > out &&
	[ ! -e "$TRASH/systemctl.log" ]
'

# exposure UNIT: the overall level systemd-analyze gives the unit file
exposure() {
	systemd-analyze security --offline=true "$1" 2>&1 |
		sed -n "s/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p"
}

test_expect "the exposure of mmci.service is at most $MAX_EXPOSURE_DAEMON, of mmci-nightly.service at most $MAX_EXPOSURE_NIGHTLY" '
	d=$(exposure "$UNITS/mmci.service") &&
	n=$(exposure "$UNITS/mmci-nightly.service") &&
	echo "mmci.service $d, mmci-nightly.service $n" &&
	[ -n "$d" ] && [ -n "$n" ] &&
	awk -v d=$d -v n=$n -v md=$MAX_EXPOSURE_DAEMON \
		-v mn=$MAX_EXPOSURE_NIGHTLY "BEGIN { exit !(d <= md && n <= mn) }"
'

# The limits of a unit, reproduced by hand, since systemd cannot start
# units here: setpriv for CapabilityBoundingSet= and NoNewPrivileges=, the
# mounts ProtectKernelTunables= and ProtectKernelLogs= put over /proc, and
# unit-limits.py (seccomp through libseccomp, PR_SET_MDWE) for
# SystemCallFilter=, RestrictAddressFamilies=, clone3() under
# RestrictNamespaces= and MemoryDenyWriteExecute=. Not reproduced: the
# other mounts, the device policy, the namespace flags.
cat > "$TRASH/unit-limits.py" <<'EOF_PY'
# unit-limits.py UNIT CMD...: exec CMD under the process limits UNIT sets
# that seccomp and prctl can reproduce: SystemCallFilter= (allow and ~deny
# lists of systemd's groups), RestrictAddressFamilies= (socket()),
# RestrictNamespaces= (clone3() gets ENOSYS, as systemd answers it),
# MemoryDenyWriteExecute= (the kernel's PR_SET_MDWE). The capabilities and
# NoNewPrivileges= are setpriv's job, the mounts the caller's.
import ctypes, os, socket, subprocess, sys

unit, cmd = sys.argv[1], sys.argv[2:]
conf = {}
for line in open(unit):
    if '=' in line and not line.startswith('#'):
        k, v = line.rstrip('\n').split('=', 1)
        conf.setdefault(k, []).append(v)

out = subprocess.run(['systemd-analyze', 'syscall-filter'],
                     capture_output=True, text=True, check=True).stdout
groups, cur = {}, None
for line in out.splitlines():
    if line.startswith('@'):
        cur = line.split()[0]
        groups[cur] = []
    elif cur and line.strip() and not line.strip().startswith('#'):
        groups[cur].append(line.split()[0])

def expand(names, seen=None):
    seen = set() if seen is None else seen
    r = set()
    for n in names:
        if n in seen:
            continue
        seen.add(n)
        r |= expand(groups.get(n, []), seen) if n.startswith('@') else {n}
    return r

allow, deny = set(), set()
for v in conf.get('SystemCallFilter', []):
    if v.startswith('~'):
        deny |= expand(v[1:].split())
    else:
        allow |= expand(v.split())
allow -= deny
fam_names = [f for v in conf.get('RestrictAddressFamilies', [])
             for f in v.split()]
fams = [int(getattr(socket, f)) for f in fam_names]
restrict_ns = conf.get('RestrictNamespaces', ['no'])[-1] != 'no'

libc = ctypes.CDLL(None, use_errno=True)
if conf.get('MemoryDenyWriteExecute', ['no'])[-1] == 'yes':
    assert libc.prctl(65, 1, 0, 0, 0) == 0, 'PR_SET_MDWE'

ALLOW, ERRNO = 0x7fff0000, 0x00050000
class Cmp(ctypes.Structure):
    _fields_ = [('arg', ctypes.c_uint), ('op', ctypes.c_int),
                ('a', ctypes.c_uint64), ('b', ctypes.c_uint64)]
lib = ctypes.CDLL('libseccomp.so.2')
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                 ctypes.c_int, ctypes.c_uint]
lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                       ctypes.c_int, ctypes.c_uint,
                                       ctypes.POINTER(Cmp)]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
if allow:
    ctx = lib.seccomp_init(ERRNO | 1)            # EPERM
    for name in sorted(allow):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            continue
        if name == 'socket' and fams:
            for f in fams:                       # arg0 == f
                c = Cmp(0, 4, f, 0)
                lib.seccomp_rule_add_array(ctx, ALLOW, nr, 1, ctypes.byref(c))
            for f in set(range(46)) - set(fams):
                c = Cmp(0, 4, f, 0)
                lib.seccomp_rule_add_array(ctx, ERRNO | 97, nr, 1,
                                           ctypes.byref(c))
        elif name == 'clone3' and restrict_ns:
            lib.seccomp_rule_add(ctx, ERRNO | 38, nr, 0)    # ENOSYS
        else:
            lib.seccomp_rule_add(ctx, ALLOW, nr, 0)
    assert lib.seccomp_load(ctypes.c_void_p(ctx)) == 0, 'seccomp_load'
sys.stderr.write('unit-limits: %s: %d system calls, sockets %s%s%s\n' % (
    os.path.basename(unit), len(allow), ' '.join(fam_names) or 'any',
    ', clone3 ENOSYS' if restrict_ns else '',
    ', MDWE' if conf.get('MemoryDenyWriteExecute', ['no'])[-1] == 'yes' else ''))
os.execvp(cmd[0], cmd)
EOF_PY

# Debian's python3: one in root's home (pyenv) is closed to a User=
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
# under_unit UNIT CMD...: run CMD within UNIT's limits, as its User=
under_unit() {
	u=$1; shift
	caps=$(sed -n "s/^CapabilityBoundingSet=//p" "$u" | tr A-Z a-z |
		sed "s/cap_/+/g; s/ /,/g")
	user=$(sed -n "s/^User=//p" "$u")
	mounts=
	grep -qx "ProtectKernelTunables=yes" "$u" && mounts="$mounts
		mount --bind /proc/sys /proc/sys &&
		mount -o remount,bind,ro /proc/sys &&"
	grep -qx "ProtectKernelLogs=yes" "$u" && mounts="$mounts
		mount --bind /dev/null /proc/kmsg &&"
	unshare -m sh -c "mount --make-rprivate / && $mounts
		exec setpriv ${user:+--reuid=$user --regid=$user --init-groups} \
			--bounding-set=-all${caps:+,$caps} --inh-caps=-all \
			--no-new-privs $PY \"$TRASH/unit-limits.py\" \"\$@\"" \
		- "$u" "$@"
}

# `make SANITIZE=1 check` passes SANITIZE=1 down to the make install
# above: an ASan binary cannot start under the units' system-call filter
# and MemoryDenyWriteExecute=, so those two cases are left to make test
case "${MAKEFLAGS:-}" in
*SANITIZE=1*) sanitized=1 ;;
*) sanitized= ;;
esac

if [ -n "$sanitized" ]; then
	test_skip "an ASan build cannot run within a unit's limits (make test runs these)" \
		"the daemon and the build sandbox work within mmci.service"
	test_skip "the same" "mmci-priv stops at once when the data is not the service user's"
	test_skip "the same" "mmci ingest tree works within mmci-nightly.service"
elif [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
   ! command -v unshare >/dev/null ||
   ! $PY -c "import ctypes; ctypes.CDLL('libseccomp.so.2')" 2>/dev/null; then
	test_count=$((test_count + 3))
	echo "ok $((test_count - 2)) # skip needs root, setpriv, unshare and libseccomp to reproduce a unit's limits"
	echo "ok $((test_count - 1)) # skip the same"
	echo "ok $test_count # skip the same"
else
	# the service user's own data, as /var/lib/mmci is (README): a
	# database made by the daemon, a clone of the stand-in tree
	SVC=${MMCI_USER:-mmci}
	U="$TRASH/unit"
	PRIV="$ROOT$PREFIX/bin/mmci-priv"
	# in_unit UNIT CMD...: CMD as the daemon is in UNIT, on that data
	in_unit() {
		u=$1; shift
		under_unit "$u" env MMCI_SOURCES= MMCI_DB="$U/mmci.db" \
			MMCI_DATA="$U/var" MMCI_TREE="$U/tree" \
			MMCI_PRIV_DIR="$TRASH/priv" CCACHE_DIR="$U/ccache" "$@"
	}
	test_expect_vm 'the daemon and the build sandbox work within mmci.service' '
		id "$SVC" > /dev/null ||
			{ echo "no user $SVC (make setup makes it)"; exit 1; }
		mkdir -p "$U/ccache" && git clone -q "$TRASH/tree" "$U/tree" &&
		chown -R "$SVC": "$U" &&
		in_unit "$UNITS/mmci.service" "$PRIV" -- "$BIN" daemon --once \
			--listen 127.0.0.1:0 > out 2>&1 &&
		cat out && grep -q "web pages on port [1-9]" out &&
		grep -q "mmci-priv: started .* as .$SVC." out &&
		[ "$(stat -c %U "$U/mmci.db")" = "$SVC" ] &&
		set +e; in_unit "$UNITS/mmci.service" "$PRIV" -- "$BIN" build HEAD \
			> out 2>&1
		set -e
		cat out &&
		grep -q "kernel build failed at .make tinyconfig." out &&
		# the service user starts bwrap, in a user namespace of its own
		grep -q "sandbox: bwrap, no network, uid 65534" \
			"$U"/var/cache/*/build.log &&
		# each setting the parent or bwrap needs, taken away, stops it
		for m in "s/^CapabilityBoundingSet=.*/CapabilityBoundingSet=/:cannot become" \
			 "s/^ProtectKernelTunables=no/ProtectKernelTunables=yes/:bwrap: " \
			 "s/^ProtectKernelLogs=no/ProtectKernelLogs=yes/:bwrap: " \
			 "s/^\(SystemCallFilter=.*\) @mount/\1/:bwrap: " \
			 "s/^\(RestrictAddressFamilies=.*\) AF_NETLINK/\1/:bwrap: "; do
			sed "${m%%:*}" "$UNITS/mmci.service" > "$TRASH/mutant.service"
			! cmp -s "$UNITS/mmci.service" "$TRASH/mutant.service" ||
				{ echo "no change: $m"; exit 1; }
			set +e; in_unit "$TRASH/mutant.service" "$PRIV" -- "$BIN" \
				build HEAD > out 2>&1
			set -e
			echo "$m" && grep "${m#*:}" out &&
			! grep -q "make tinyconfig" out || exit 1
		done
	'

	test_expect_vm 'mmci-priv stops at once when the data is not the service user'\''s' '
		mkdir -p "$TRASH/rootdata" &&
		set +e; under_unit "$UNITS/mmci.service" env MMCI_SOURCES= \
			MMCI_DB="$TRASH/rootdata/mmci.db" \
			MMCI_DATA="$TRASH/rootdata/var" MMCI_PRIV_DIR="$TRASH/priv" \
			"$PRIV" -- "$BIN" daemon --once --no-web > out 2>&1
		rc=$?; set -e
		cat out && [ $rc = 78 ] &&
		grep -q "not writable by .$SVC.*chown -R $SVC: .$TRASH/rootdata." out &&
		[ ! -e "$TRASH/rootdata/mmci.db" ]
	'

	test_expect 'mmci ingest tree works within mmci-nightly.service' '
		N="$TRASH/nightly" &&
		git init -q "$N/up" &&
		echo a > "$N/up/a" && git -C "$N/up" add a &&
		git -C "$N/up" -c user.email=t@example.org -c user.name=t \
			commit -q -m one && git -C "$N/up" branch -m mm-new &&
		chown -R "$SVC": "$N" &&
		# HOME as the unit sets it: the service user has none
		under_unit "$UNITS/mmci-nightly.service" env HOME="$N" \
			MMCI_REMOTES="up=file://$N/up#mm-new" MMCI_DB="$N/mmci.db" \
			MMCI_DATA="$N/var" MMCI_TREE="$N/tree" \
			"$BIN" ingest tree > out 2>&1 &&
		cat out && grep -q "up/mm-new: new head" out &&
		[ "$(stat -c %U "$N/tree")" = "$SVC" ] &&
		[ "$(sqlite3 "$N/mmci.db" "SELECT count(*) FROM jobs WHERE
		     kind = \"nightly\" AND status = \"queued\"")" = 1 ]
	'
fi

test_expect 'make uninstall removes everything install put down' '
	mk uninstall PREFIX="$TRASH/prefix" SYSCONFDIR="$TRASH/prefix/etc" \
		> out &&
	grep -qx "disable --now mmci-nightly.timer mmci.service" \
		"$TRASH/systemctl.log" &&
	[ -z "$(find "$TRASH/prefix" ! -type d)" ] &&
	[ ! -e "$TRASH/prefix/lib/mmci" ] && [ ! -e "$TRASH/prefix/etc/mmci" ] &&
	rm -f "$TRASH/systemctl.log" &&
	mk uninstall DESTDIR="$ROOT" PREFIX=$PREFIX > out && cat out &&
	[ ! -e "$TRASH/systemctl.log" ] &&
	# the settings file was changed above: kept, and only it
	grep -q "keeping $CONF" out &&
	[ "$(find "$ROOT" ! -type d)" = "$CONF" ] &&
	[ ! -e "$LIB" ]
'

test_done
