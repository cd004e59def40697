# lib.sh - TAP helpers for mmci's shell tests (sourced, not run).
#
#	# mmci-test-needs: vm kernel-build       (only in files that need them)
#	. "$(dirname "$0")/lib.sh"
#	test_expect 'what is checked' 'shell commands'
#	test_expect_vm 'a case that boots a guest' 'shell commands'
#	test_atexit 'command that stops what the test started'
#	skip_all 'why'           (prints "1..0 # SKIP why" and exits 0)
#	test_done
#
# Each test file runs alone: `sh tests/t0300-run-cloud.sh` (-v shows the
# commands' output; --run=3 or --run=1-2,5 runs only those cases, the
# others print "ok N # skip not selected" so the numbering stays). It gets
# a fresh trash directory with its own database and data directory; the
# kernel tree and the build cache are shared with the project checkout
# (MMCI_TREE, MMCI_CACHE_DATA) so a test does not import 1.4 GB or rebuild
# a kernel that another test built.
#
# A file that boots a guest, builds a kernel or needs root says so on a
# line of its own, `# mmci-test-needs: WORD...` (vm, kernel-build, root;
# host-alone: no other file's guests beside it, see test_host_lock;
# cached-kernels: its kernels are the builds lane's, built before it in a
# suite run, so make test runs it last in the boots lane; after-builds:
# the same, run last in the builds lane, where it evens the lanes out).
# `make check` runs only the files without such a line. Under CI=true a
# marked file must not skip: skip_all there prints "not ok" and fails, and
# a test_expect_vm case fails instead of skipping (unless the tier boots
# no guest: MMCI_TEST_TIER=check, which `make check` sets). need_libvirt
# in a file not marked vm is an error.
#
# Whatever way a test ends (test_done, skip_all, a failed command outside
# a case, a signal), the commands given to test_atexit run, and then every
# process still running from the trash directory (its working directory
# there, or the trash directory in its command line) is stopped.

set -u
TEST_NAME=$(basename "$0" .sh)
TEST_START=$(date +%s)
# the project: the first directory above the test that holds tests/lib.sh
# (tests/t*.sh and tests/long/t*.sh alike)
SRC=$(cd "$(dirname "$0")" && while [ ! -f tests/lib.sh ] && [ "$PWD" != / ]; do
	cd ..; done && pwd)
MMCI=${MMCI_BIN:-$SRC/mmci}	# MMCI_BIN: another build of mmci under test
# the trash directory, tests/trash.<name>; see test_make_trash below
TRASH_LINK="$SRC/tests/trash.$TEST_NAME"
TRASH=$TRASH_LINK
FIXTURES=${MMCI_FIXTURES:-$SRC/../shared/fixtures/mbox}
VERBOSE=0
test_run=
test_count=0
test_failed=0

test_usage() {
	echo "usage: sh $0 [-v] [--run=N[-M][,...]]" >&2
	exit 2
}

# a --run selector: comma (or space) separated numbers and ranges A-B,
# -B, A-
test_check_run() {
	for r in $(printf %s "$1" | tr , ' '); do
		case $r in
		''|-|*[!0-9-]*|*-*-*) echo "error: invalid --run selector '$1'" >&2
			exit 2 ;;
		esac
	done
	[ -n "$(printf %s "$1" | tr -d ', ')" ] ||
		{ echo "error: empty --run selector" >&2; exit 2; }
}

while [ $# -gt 0 ]; do
	case $1 in
	-v|--verbose) VERBOSE=1 ;;
	--run=*) test_run=${1#--run=}; test_check_run "$test_run" ;;
	--run|-r) [ $# -gt 1 ] || test_usage
		test_run=$2; test_check_run "$test_run"; shift ;;
	-h|--help) test_usage ;;
	*) echo "error: unknown option '$1'" >&2; test_usage ;;
	esac
	shift
done

# test_selected N: whether case N is in --run's selection
test_selected() {
	[ -n "$test_run" ] || return 0
	for r in $(printf %s "$test_run" | tr , ' '); do
		case $r in
		*-*) lo=${r%-*} hi=${r#*-}
			[ "$1" -ge "${lo:-1}" ] &&
				{ [ -z "$hi" ] || [ "$1" -le "$hi" ]; } && return 0 ;;
		*) [ "$1" -eq "$r" ] && return 0 ;;
		esac
	done
	return 1
}

# what the file needs, from its "# mmci-test-needs:" line
TEST_NEEDS=$(sed -n 's/^# mmci-test-needs:[[:space:]]*//p' "$0" |
	tr '\t\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//')
test_needs() {
	case " $TEST_NEEDS " in *" $1 "*) return 0 ;; esac
	return 1
}
# CI=true in a file that needs a VM, a kernel build or root: no skipping
test_must_not_skip() {
	[ "${CI:-}" = true ] && [ -n "$TEST_NEEDS" ] &&
		[ "${MMCI_TEST_TIER:-}" != check ]
}

# test_fatal MESSAGE: the file cannot run as written; one failed case
test_fatal() {
	test_count=$((test_count + 1))
	echo "not ok $test_count - $1"
	echo "1..$test_count"
	exit 1
}
for w in $TEST_NEEDS; do
	case $w in
	vm|kernel-build|root|host-alone|cached-kernels|after-builds) ;;
	*) test_fatal "$TEST_NAME: unknown word '$w' in its mmci-test-needs line (vm, kernel-build, root, host-alone, cached-kernels, after-builds)" ;;
	esac
done

# The files of one suite run that boot guests share this host through the
# file MMCI_TEST_HOST_LOCK names (make test sets it; a file run alone has
# none). mmci gives a job as many boots at once as the host has cores not
# taken by other mmci guests (hosts.c, host_capacity()), so a file that
# asserts on that number ("host-alone" in its needs: two boots at once,
# in that order) holds the host alone for its whole run; every other file
# that boots holds it shared with the others. A file that wants it alone
# shuts a gate first, so the other lane cannot starve it. The lock goes
# with the file's shell (fds 6 and 7) and the processes it leaves, which
# test_cleanup stops.
test_host_lock() {
	[ -n "${MMCI_TEST_HOST_LOCK:-}" ] || return 0
	if test_needs host-alone; then
		# it builds first and takes the host later (test_host_alone)
		[ "${TEST_HOST_ALONE_LATER:-}" != 1 ] || return 0
		hl_mode=-x
	elif test_needs vm || grep -q '^test_expect_vm ' "$0"; then
		hl_mode=-s
	else
		return 0
	fi
	exec 7>> "$MMCI_TEST_HOST_LOCK.gate" 6>> "$MMCI_TEST_HOST_LOCK" &&
	flock -x 7 &&
	if [ $hl_mode = -x ]; then
		flock -x 6 && flock -u 7
	else
		flock -u 7 && flock -s 6
	fi
}
test_host_lock ||
	test_fatal "$TEST_NAME: cannot lock the host ($MMCI_TEST_HOST_LOCK)"

# test_host_alone: a host-alone file that set TEST_HOST_ALONE_LATER=1
# before sourcing this file holds the host from here on, after what it
# did first without guests (its kernel builds: hours on a cold ccache,
# which the other lane's guests need not wait for)
test_host_alone() {
	[ -n "${MMCI_TEST_HOST_LOCK:-}" ] && test_needs host-alone || return 0
	exec 7>> "$MMCI_TEST_HOST_LOCK.gate" 6>> "$MMCI_TEST_HOST_LOCK" &&
	flock -x 7 && flock -x 6 && flock -u 7 ||
		test_fatal "$TEST_NAME: cannot lock the host ($MMCI_TEST_HOST_LOCK)"
}

# cleanup: test_atexit's commands, last first, then the processes left
test_atexit_cmds=
test_atexit() {
	test_atexit_cmds="$1
$test_atexit_cmds"
}

# processes running from the trash directory: the working directory in it
# or the trash directory in the command line; neither this shell nor its
# subshells (which are in / when this runs), nor the grep that looks (it
# has exited when its pid is read: a zombie or gone, no command line)
test_trash_pids() {
	{
		find /proc -mindepth 2 -maxdepth 2 -name cwd \
			\( -lname "$TRASH" -o -lname "$TRASH/*" \) 2>/dev/null
		grep -lsaF -e "$TRASH/" /proc/[0-9]*/cmdline 2>/dev/null
	} | cut -d/ -f3 | sort -un | while read -r p; do
		[ "$p" != $$ ] || continue
		c=$(tr "\\0" " " 2>/dev/null < "/proc/$p/cmdline") &&
			[ -n "$c" ] && echo "$p $c"
	done
}

test_cleaned=
test_cleanup() {
	[ -z "$test_cleaned" ] || return 0
	test_cleaned=1
	cd / || :
	while [ -n "$test_atexit_cmds" ]; do
		c=${test_atexit_cmds%%
*}
		test_atexit_cmds=${test_atexit_cmds#*
}
		[ -z "$c" ] || ( eval "$c" ) > /dev/null 2>&1 || :
	done
	left=$(test_trash_pids)
	[ -n "$left" ] || return 0
	echo "$left" | sed 's/^/# stopping a process the test left running: /'
	kill $(echo "$left" | cut -d' ' -f1) 2>/dev/null
	i=0
	while [ $i -lt 50 ] && left=$(test_trash_pids) && [ -n "$left" ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ -z "$left" ] || kill -9 $(echo "$left" | cut -d' ' -f1) 2>/dev/null
	return 0
}
trap 'test_cleanup' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# test_open_to_all DIR: whether every user may pass through DIR and
# every directory above it (the mode's x bit for others, which is what
# mmci checks before it hands a database to the service user)
test_open_to_all() {
	td=$1
	while :; do
		[ -n "$(find "$td" -maxdepth 0 -perm -o=x 2>/dev/null)" ] ||
			return 1
		[ "$td" != / ] || return 0
		td=$(dirname "$td")
	done
}

# test_remove_trash: the trash directory, and when it was elsewhere
# (below TRASH_TMP) the directory made for it and the link to it; a
# link left by an earlier run is followed only to a directory of this
# user named as test_make_trash names it
test_remove_trash() {
	if [ -L "$TRASH_LINK" ]; then
		told=$(readlink "$TRASH_LINK")
		case $told in
		/*/mmci-trash.*/trash.$TEST_NAME)
			[ ! -O "${told%/*}" ] || rm -rf "${told%/*}" ;;
		esac
		rm -f "$TRASH_LINK"
	fi
	rm -rf "$TRASH_LINK"
}

# test_make_trash: a fresh trash directory. The users a test drops to
# (the service user of `mmci web` and the daemon, the build user and
# nobody in the build sandbox, nginx's workers) must reach the files in
# it: when the checkout is below a directory closed to others (a clone
# in `mktemp -d`, or in /root), the trash directory is made below
# TRASH_TMP (default /var/tmp: not /tmp, which the build sandbox
# replaces with its own), a new 0755 directory each run, and
# tests/trash.<name> is a symbolic link to it
TRASH_TMP=${MMCI_TEST_TMP:-/var/tmp}
test_make_trash() {
	test_remove_trash
	if test_open_to_all "$SRC/tests"; then
		mkdir -p "$TRASH" && return 0
		return 1
	fi
	test_open_to_all "$TRASH_TMP" || {
		echo "error: $SRC is below a directory closed to others, and so is $TRASH_TMP (MMCI_TEST_TMP)" >&2
		return 1
	}
	tt=$(mktemp -d "$TRASH_TMP/mmci-trash.XXXXXX") && chmod 755 "$tt" &&
	TRASH="$tt/trash.$TEST_NAME" && mkdir "$TRASH" &&
	ln -s "$TRASH" "$TRASH_LINK"
}

test_make_trash || test_fatal "$TEST_NAME: cannot make its trash directory"
cd "$TRASH" || exit 1
export MMCI_DB="$TRASH/mmci.db"
export MMCI_DATA="$TRASH/var"
export MMCI_PROJECT="$SRC"
# profiling boots (profile.h, MMCI_PROFILE) are extra guests: only the
# files whose point is the profile turn them on
export MMCI_PROFILE=0
# a home that cannot be written (nobody's /nonexistent, as `su nobody`
# leaves it): one in the trash directory, where ccache's cache and the
# tools' settings can be made
if [ ! -d "${HOME:-/nonexistent}" ] || [ ! -w "${HOME:-/nonexistent}" ]; then
	export HOME="$TRASH/home"
	mkdir -p "$HOME"
fi

say() { echo "# $*"; }

# wait_until TENTHS WHAT COMMAND: until COMMAND succeeds, evaluated every
# tenth of a second, TENTHS times at most ("timed out waiting for WHAT")
wait_until() {
	i=0
	until eval "$3"; do
		i=$((i + 1))
		[ $i -lt "$1" ] || { echo "timed out waiting for $2"; return 1; }
		sleep 0.1
	done
}

# stop_pidfile FILE: SIGTERM to the server of ours whose pid FILE holds,
# then wait (5 s at most) until it is gone; no file or no process is fine
stop_pidfile() {
	sp_pid=$(cat "$1" 2>/dev/null) || return 0
	kill "$sp_pid" 2>/dev/null || return 0
	sp_i=0
	while kill -0 "$sp_pid" 2>/dev/null && [ $sp_i -lt 50 ]; do
		sleep 0.1; sp_i=$((sp_i + 1))
	done
	return 0
}

test_expect() {
	test_count=$((test_count + 1))
	if ! test_selected $test_count; then
		echo "ok $test_count # skip not selected: $1"
		return 0
	fi
	( set -e; eval "$2" ) > "$TRASH/out.$test_count" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $test_count - $1"
		[ $VERBOSE = 1 ] && sed 's/^/#   /' "$TRASH/out.$test_count"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/out.$test_count" | tail -40
	fi
	return 0
}

# test_skip REASON DESCRIPTION: one case skipped; under CI=true, when the
# reason is something CI must have (FATAL=1), it is a failure
test_skip() {
	test_count=$((test_count + 1))
	if [ "${CI:-}" = true ] && [ "${3:-}" = fatal ]; then
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $2"
		echo "#   CI=true: must not skip: $1"
	else
		echo "ok $test_count # skip $1: $2"
	fi
}

# why no guest can boot here (nothing when one can)
vm_unavailable() {
	if [ "${MMCI_TEST_TIER:-}" = check ]; then
		echo "make check boots no guest"
	elif ! virsh -c qemu:///system version >/dev/null 2>&1; then
		echo "libvirtd does not answer on qemu:///system (run make setup)"
	elif [ -z "$CLOUD_KERNEL" ]; then
		echo "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
	fi
}

# test_expect_vm: test_expect for a case that boots a guest in a file
# whose other cases need none: it skips when no guest can boot, and
# fails instead under CI=true (but for make check, which boots none)
test_expect_vm() {
	why=$(vm_unavailable)
	if [ -z "$why" ]; then
		test_expect "$@"
	elif [ "${MMCI_TEST_TIER:-}" = check ]; then
		test_skip "$why" "$1"
	else
		test_skip "$why" "$1" fatal
	fi
}

skip_all() {
	test_must_not_skip &&
		test_fatal "CI=true: $TEST_NAME (needs $TEST_NEEDS) must not skip: $*"
	if [ $test_count -gt 0 ]; then
		# some cases ran: the rest is one skipped case, the plan honest
		test_count=$((test_count + 1))
		echo "ok $test_count # skip the rest: $*"
		test_done
	fi
	echo "1..0 # SKIP $*"
	test_cleanup
	cd "$SRC" && test_remove_trash
	exit 0
}

# test_sandbox_data: for a file that builds in the build sandbox as the
# build user ($user): skips without that user, and makes MMCI_DATA a new
# directory below /var/tmp, removed at exit. Not below /tmp, where a
# checkout may be (CI): the sandbox has a private /tmp of its own.
test_sandbox_data() {
	user=${MMCI_BUILD_USER:-mmci-build}
	getent passwd "$user" > /dev/null ||
		skip_all "no build user $user (run vm-images/host-setup.sh)"
	MMCI_DATA=$(mktemp -d "/var/tmp/mmci-$TEST_NAME.XXXXXX") &&
		chmod 755 "$MMCI_DATA" || exit 1
	export MMCI_DATA
	test_atexit 'rm -rf "$MMCI_DATA"'
}

# test_prepared NAME COMMAND...: the database that COMMAND makes, made
# once per suite run and copied in. icount values are the same on every
# boot of the same kernel and set-up, so the files that need the same
# measured job (t0500 and t0520 both measure the example series on a
# 4 GiB NVDIMM) need not boot it twice: the first file to ask runs
# COMMAND (with MMCI_DB set to the prepared database) under a lock in
# $MMCI_DATA/prepared/NAME/, keeping its output and exit status; every
# file then gets a copy of that database as its own MMCI_DB and the
# output as NAME.out, NAME.err and NAME.rc in its trash directory, and
# asserts on them as if it had run COMMAND itself. The boots' logs stay
# where COMMAND wrote them (their rows name them). The key is the
# command, the accelerator and profile settings, and the content of the
# mmci binary, the runner, vm-images/ and kernel-patches/: any change to
# what could change the result makes the database again. Prints which
# of the two happened.
test_prepared() {
	pname=$1
	shift
	pdir="$MMCI_DATA/prepared/$pname"
	pkey=$({
		printf '%s\n' "$*" "accel ${MMCI_ACCEL:-}" "profile ${MMCI_PROFILE:-}"
		cat "$MMCI"
		find "$SRC/runner" "$SRC/vm-images" "$SRC/kernel-patches" -type f \
			! -name "*.o" ! -name "*.d" | LC_ALL=C sort | xargs cat
	} | sha1sum | cut -c1-40)
	mkdir -p "$pdir" || return 1
	(
		flock 9 || exit 1
		if [ "$(cat "$pdir/key" 2>/dev/null)" = "$pkey" ]; then
			say "prepared $pname: made before with the same key, copied (key ${pkey%${pkey#????????????}})"
			exit 0
		fi
		say "prepared $pname: making it (key ${pkey%${pkey#????????????}}): $*"
		rm -f "$pdir"/key "$pdir"/mmci.db* "$pdir"/out "$pdir"/err "$pdir"/rc
		( cd "$pdir" && MMCI_DB="$pdir/mmci.db" "$@" > "$pdir/out" 2> "$pdir/err"
		  echo $? > "$pdir/rc" )
		echo "$pkey" > "$pdir/key"
	) 9> "$pdir.lock" || return 1
	rm -f "$MMCI_DB" "$MMCI_DB-wal" "$MMCI_DB-shm"
	sqlite3 "$pdir/mmci.db" ".backup '$MMCI_DB'" &&
	cp "$pdir/out" "$pname.out" && cp "$pdir/err" "$pname.err" &&
	cp "$pdir/rc" "$pname.rc"
}

# the example series (kernel-patches/examples/memmap-slow.mbox) on
# debian-6.12, icount, a 4 GiB NVDIMM, 8 rebinds, 2 boots a kernel, with
# --exit-code (1: worse): t0500's main job and t0520's v1, in
# example-4g.out, .err and .rc
test_prepared_example_4g() {
	test_prepared example-4g sh -c '"$1" init > /dev/null &&
		exec "$1" test-series "$2" --base debian-6.12 --nvdimm 4G \
		--iters 8 --max-boots 2 --exit-code' sh "$MMCI" \
		"$SRC/kernel-patches/examples/memmap-slow.mbox"
}

# test_ledger: what the file cost, as a TAP comment that
# tests/suite-times.sh adds up over a suite run: the kernels its
# databases built (a real make: builds.objects is set) and took from the
# data directory's cache (duration 0, build.c), the guests they booted
# (boots) and the profiling boots (profiles), since the file started
# (a database copied in by test_prepared brings older rows). Only the
# files that boot or build: the others' databases hold made-up rows.
test_ledger() {
	case " $TEST_NEEDS " in *" vm "*|*" kernel-build "*) ;; *) return 0 ;; esac
	made=0 taken=0 boots=0 profiles=0
	for db in $(find "$TRASH/" -maxdepth 3 -name "*.db" -type f 2>/dev/null); do
		row=$(sqlite3 -batch -noheader -separator " " -cmd ".timeout 10000" "$db" \
			"SELECT (SELECT count(*) FROM builds WHERE objects IS NOT NULL
			  AND started_at >= $TEST_START),
			 (SELECT count(*) FROM builds WHERE status = 'ok' AND
			  duration_s = 0 AND objects IS NULL AND
			  started_at >= $TEST_START),
			 (SELECT count(*) FROM boots WHERE started_at >= $TEST_START),
			 (SELECT count(*) FROM profiles WHERE
			  started_at >= $TEST_START)" 2>/dev/null) || continue
		set -- $row
		[ $# = 4 ] || continue
		made=$((made + $1)) taken=$((taken + $2))
		boots=$((boots + $3)) profiles=$((profiles + $4))
	done
	echo "# ledger: $made built, $taken taken from the cache, $boots boots, $profiles profiled"
}

test_done() {
	test_cleanup
	test_ledger
	echo "1..$test_count"
	if [ $test_failed = 0 ]; then
		cd "$SRC" && test_remove_trash
		exit 0
	fi
	say "$test_failed of $test_count failed; kept $TRASH"
	exit 1
}

# sql QUERY: one value from the test's database, waiting up to 10 s for a
# writer's lock (the daemon checkpoints while a test reads)
# priv_opened TRACE PID PRIV_DIR: the files process PID of an strace -o
# TRACE opened (strace -f writes a pid first; without -f there is none),
# without the libraries the loader maps; then, as an error, any of them
# outside mmci-priv's fixed list (daemon/mmci-priv.c): its template, its
# own directory and what it makes there, the NVDIMM files in /dev/shm,
# and what libvirt's client, the user lookup and the host facts read
priv_opened() {
	awk -v p="$2" "\$1 == p || \$1 !~ /^[0-9]+\$/" "$1" | grep "open" |
		grep -v "ENOENT\|\.so[.0-9]*\"\|/etc/ld.so.cache" |
		sed -n "s/.*open[at]*([A-Z_]*,* *\"\([^\"]*\)\".*/\1/p" |
		sort -u > opened && cat opened && [ -s opened ] &&
	! grep -v -x -e "$SRC/vm-images/domain.xml.in" \
		-e "$3" -e "$3/b[0-9]*-[0-9]*/[a-z.]*" -e /dev/shm \
		-e "/dev/shm/mmci-[0-9]*-priv[0-9]*.nvdimm" \
		-e "/etc/libvirt/libvirt.conf" -e "/etc/nsswitch.conf" \
		-e "/etc/passwd" -e "/etc/group" -e "/proc/self/status" \
		-e "/proc/filesystems" -e "/proc/sys/kernel/cap_last_cap" \
		-e "/sys/devices/system/cpu/[a-z]*" \
		-e "/sys/devices/system/node" \
		-e "/sys/devices/system/node/node[0-9]*/meminfo" opened
}

sql() { sqlite3 -batch -noheader -cmd ".timeout 10000" "$MMCI_DB" "$1"; }

# the database's tag, from its path (db_tag() in daemon/db.c)
db_tag() {
	printf %s "$(realpath "$MMCI_DB")" | git hash-object --stdin | cut -c1-8
}

# run_dir ID: the logs of run ID, $MMCI_DATA/runs/<tag>/ID (daemon/run.c)
run_dir() { printf '%s/runs/%s/%s' "$MMCI_DATA" "$(db_tag)" "$1"; }

# no mmci domain may be left behind
# domains are named mmci-<tag>-runN-bootM: only this test's count, not a
# service's next door
domain_prefix() { printf 'mmci-%s-' "$(db_tag)"; }

no_domains_left() {
	left=$(virsh -c qemu:///system list --all --name 2>/dev/null |
	       grep "^$(domain_prefix)" || true)
	[ -z "$left" ] || { echo "domains left: $left"; return 1; }
}

# test_nvdimms: the NVDIMM backing files of this test's boots, one a line:
# those named in the domain XML of every boot of the databases in the
# trash directory (/dev/shm/mmci-<pid>-runN-bootM.nvdimm, where the pid
# is mmci's or its boot child's), and /dev/shm/mmci-<pid>-* of the mmci
# processes whose pids the test wrote to $TRASH/pids (a boot killed
# before its row had its XML). Other tests' and the service's files in
# /dev/shm are none of its business
test_nvdimms() {
	find "$TRASH" -maxdepth 2 -name '*.db' -type f 2>/dev/null |
	while read -r tdb; do
		sqlite3 -batch -noheader -cmd ".timeout 10000" "$tdb" \
			"SELECT domain_xml FROM boots WHERE domain_xml IS NOT NULL" \
			2>/dev/null
	done | sed -n 's|.*<path>\(.*\.nvdimm\)</path>.*|\1|p'
	for tpid in $(cat "$TRASH/pids" 2>/dev/null); do
		ls -d /dev/shm/mmci-$tpid-* 2>/dev/null
	done
	return 0
}

# nvdimms_left: fails, naming them, when a file of test_nvdimms is there
nvdimms_left() {
	left=$(test_nvdimms | sort -u | while read -r f; do
		[ ! -e "$f" ] || echo "$f"; done)
	[ -z "$left" ] || { echo "NVDIMM files left: $left"; return 1; }
}

# nothing_left_behind: no domain and no NVDIMM file of this test
nothing_left_behind() {
	no_domains_left && nvdimms_left
}

# proc_ids PID...: "PID:START" for each of them that runs, on one line
# (START: its start time in /proc/PID/stat, so that a pid taken by
# another process later is not taken for it; a zombie has ended)
proc_ids() {
	echo $(for tpid in "$@"; do
		awk -v p="$tpid" '{ sub(/.*\) /, "")
			if ($1 != "Z") print p ":" $20 }' "/proc/$tpid/stat" \
			2>/dev/null
	done)
}

# procs_running ID...: whether one of the processes named by proc_ids
# still runs
procs_running() {
	for tid in "$@"; do
		[ "$(proc_ids "${tid%%:*}")" != "$tid" ] || return 0
	done
	return 1
}

# descendants PID: the pids of PID's children, theirs, and so on
descendants() {
	for tpid in $(pgrep -P "$1"); do
		echo "$tpid"
		descendants "$tpid"
	done
}

need_libvirt() {
	test_needs vm ||
		test_fatal "$TEST_NAME calls need_libvirt but has no '# mmci-test-needs: vm' line"
	[ "${MMCI_TEST_TIER:-}" != check ] ||
		skip_all "make check boots no guest"
	virsh -c qemu:///system version >/dev/null 2>&1 ||
		skip_all "libvirtd does not answer on qemu:///system (run make setup)"
}

CLOUD_KERNEL=$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)
