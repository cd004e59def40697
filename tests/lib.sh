# lib.sh - TAP helpers for mmci's shell tests (sourced, not run).
#
#	. "$(dirname "$0")/lib.sh"
#	test_expect 'what is checked' 'shell commands'
#	skip_all 'why'           (prints "1..0 # SKIP why" and exits 0)
#	test_done
#
# Each test file runs alone: `sh tests/t0300-run-cloud.sh` (-v shows the
# commands' output). It gets a fresh trash directory with its own database
# and data directory; the kernel tree and the build cache are shared with
# the project checkout (MMCI_TREE, MMCI_CACHE_DATA) so a test does not
# import 1.4 GB or rebuild a kernel that another test built.

set -u
TEST_NAME=$(basename "$0" .sh)
SRC=$(cd "$(dirname "$0")/.." && pwd)
MMCI="$SRC/mmci"
TRASH="$SRC/tests/trash.$TEST_NAME"
FIXTURES=${MMCI_FIXTURES:-$SRC/../shared/fixtures/mbox}
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1
test_count=0
test_failed=0

rm -rf "$TRASH"
mkdir -p "$TRASH"
cd "$TRASH" || exit 1
export MMCI_DB="$TRASH/mmci.db"
export MMCI_DATA="$TRASH/var"
export MMCI_PROJECT="$SRC"

say() { echo "# $*"; }

test_expect() {
	test_count=$((test_count + 1))
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

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

test_done() {
	echo "1..$test_count"
	if [ $test_failed = 0 ]; then
		cd "$SRC" && rm -rf "$TRASH"
		exit 0
	fi
	say "$test_failed of $test_count failed; kept $TRASH"
	exit 1
}

# sql QUERY: one value from the test's database
sql() { sqlite3 -batch -noheader "$MMCI_DB" "$1"; }

# no mmci domain may be left behind
# domains are named mmci-<tag>-runN-bootM, the tag from the database's
# path (daemon/run.c): only this test's count, not a service's next door
domain_prefix() {
	printf 'mmci-%s-' "$(printf %s "$(realpath "$MMCI_DB")" |
		git hash-object --stdin | cut -c1-8)"
}

no_domains_left() {
	left=$(virsh -c qemu:///system list --all --name 2>/dev/null |
	       grep "^$(domain_prefix)" || true)
	[ -z "$left" ] || { echo "domains left: $left"; return 1; }
}

need_libvirt() {
	virsh -c qemu:///system version >/dev/null 2>&1 ||
		skip_all "libvirtd does not answer on qemu:///system (run make setup)"
}

CLOUD_KERNEL=$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)
