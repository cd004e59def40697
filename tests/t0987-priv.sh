#!/bin/sh
# t0987-priv: the root parent, mmci-priv (daemon/priv.h). It links no
# parser of what the service user sends; a measuring run as the service
# user boots its guest through it and gives the samples a run as root
# gives, and a profiling boot the counts of one as root; traced through
# the run, the parent opens only its fixed list;
# a client playing a compromised service user gets every hostile
# request refused, with the reason in its reply and in the parent's log.
# mmci-test-needs: vm
. "$(dirname "$0")/lib.sh"
export MMCI_ACCEL=tcg
unset MMCI_LIBVIRT_URIS MMCI_LIBVIRT_STAGE MMCI_CONFIG

need_libvirt
[ -n "$CLOUD_KERNEL" ] || skip_all "no /boot/vmlinuz-*-cloud-amd64 (run make setup)"
[ "$(id -u)" = 0 ] || skip_all "mmci-priv is the root parent: run as root"
SVC=${MMCI_USER:-mmci}
id "$SVC" > /dev/null 2>&1 || skip_all "no service user '$SVC' (run make setup)"
STRACE=$(command -v strace) || skip_all "no strace (run make setup)"
PRIV="$SRC/mmci-priv"
RUN="run --kernel $CLOUD_KERNEL --nvdimm 1G --iters 4 --map dev"

# the service user's own directory: its database and data; the parent's
# directory is root's, beside it
mkdir svc && chown "$SVC": svc
export MMCI_DB="$TRASH/svc/mmci.db" MMCI_DATA="$TRASH/svc/var" \
	MMCI_PRIV_DIR="$TRASH/priv"

test_expect 'mmci-priv links none of the parsers mmci links' '
	nm "$SRC/mmci" > mmci.syms &&
	syms="mbox_parse mail_decode_header series_from_mails result_parse_line claims_extract bundle_read json_loads git_apply_to_tree sqlite3_open_v2" &&
	for s in $syms; do
		grep -q " [TU] $s\(@.*\)\?$" mmci.syms ||
			{ echo "mmci has no $s: this list is stale"; exit 1; }
	done &&
	nm "$PRIV" > priv.syms && wc -l < priv.syms &&
	! grep -E " [TUtd] (mbox_|mail_|series_|result_|claims_|bundle_|json_|git_|sqlite3_|curl_)" priv.syms
'

test_expect 'it runs only as root, only for this host, only with a program' '
	! runuser -u "$SVC" -- "$PRIV" -- true 2> err && cat err &&
	grep -q "run it as root" err &&
	! MMCI_LIBVIRT_URI=qemu+tcp://elsewhere/system "$PRIV" -- true 2> err &&
	cat err && grep -q "this host only" err &&
	! "$PRIV" 2> err && grep -q "usage: mmci-priv" err &&
	! "$PRIV" --user root -- true 2> err && cat err &&
	grep -q "is root" err &&
	! "$PRIV" --user nosuchuser -- true 2> err && cat err &&
	grep -q "no user .nosuchuser." err &&
	# its directory below one the service user owns: refused
	! MMCI_PRIV_DIR="$TRASH/svc/priv" "$PRIV" -- true 2> err && cat err &&
	grep -q "which someone but root can change" err
'

test_expect 'a run as the service user boots through it, who runs what' '
	PD=$(realpath "$MMCI_PRIV_DIR")
	"$STRACE" -f -o trace -e trace=openat,open,execve \
		"$PRIV" -- "$MMCI" $RUN > out 2> err &
	spid=$! &&
	wait_until 600 "the guest" "ps -eo user:16,pid,ppid,args > ps.now &&
		grep -q \"[q]emu-system.*$PD/\" ps.now &&
		cp ps.now ps.job" &&
	wait $spid && cat err out &&
	grep -q "^run #1: ok" out &&
	grep "[m]mci-priv --\|[m]mci run\|[q]emu-system" ps.job | cut -c1-120 &&
	# ours only (other files may run guests and mmci beside): the
	# parent is the child of strace, the run its child, the QEMU the
	# one booting the parent directory kernel
	pp=$(awk -v s="$spid" "\$3 == s && / [^ ]*mmci-priv -- / { print \$2 }" ps.job) &&
	[ -n "$pp" ] && grep -Eq "^root +$pp " ps.job &&
	awk -v p="$pp" "\$3 == p" ps.job > child && cat child &&
	[ $(wc -l < child) = 1 ] && grep -Eq "^$SVC +[0-9]+ +$pp [^ ]*/mmci run " child &&
	grep "[q]emu-system.*$PD/" ps.job > qemu && [ $(wc -l < qemu) = 1 ] &&
	! grep -q "^$SVC " qemu && echo "QEMU runs as $(cut -d" " -f1 qemu)" &&
	[ "$(sqlite3 "$MMCI_DB" "SELECT count(*) FROM samples WHERE run_id = 1
	     AND metric = \"rebind_memmap\"")" = 4 ] &&
	[ "$(stat -c %U "$MMCI_DB")" = "$SVC" ] &&
	log=$(sqlite3 "$MMCI_DB" "SELECT console_log FROM boots") &&
	[ "$(stat -c %U "$log")" = "$SVC" ] && grep -q "^mmci: init start" "$log" &&
	ls -A "$MMCI_PRIV_DIR" > left && ! [ -s left ] &&
	[ "$(stat -c %U:%a "$MMCI_PRIV_DIR")" = root:711 ]
'

test_expect 'the guest got only what the parent made: its XML names its files' '
	sqlite3 "$MMCI_DB" "SELECT domain_xml FROM boots" > dom.xml &&
	grep -E "<kernel>|<initrd>|<source path=|<log file=|path=" dom.xml |
		sed "s/^ *//" > paths && cat paths &&
	[ -s paths ] &&
	PD=$(realpath "$MMCI_PRIV_DIR") &&
	! grep -v "$PD/b[0-9]*-1/\|/dev/shm/mmci-[0-9]*-priv1.nvdimm" paths
'

# the parent is the first pid of the trace (tests/lib.sh, priv_opened)
test_expect 'traced through the run, the parent opens only its fixed list' '
	ppid=$(awk "NR == 1 { print \$1 }" trace) &&
	priv_opened trace "$ppid" "$(realpath "$MMCI_PRIV_DIR")"
'

test_expect 'the same run as root, libvirt directly: the same medians' '
	MMCI_DB="$TRASH/root.db" MMCI_DATA="$TRASH/rootvar" "$MMCI" $RUN \
		> out 2> err || { cat err; exit 1; }
	med() {
		sqlite3 "$1" "SELECT metric, value FROM samples WHERE run_id = 1
			AND metric IN (\"rebind_memmap\", \"rebind_memmap_ns\")
			ORDER BY metric, value" |
		awk -F"|" "{ v[\$1] = v[\$1] \" \" \$2; n[\$1]++ }
			END { for (m in v) { split(substr(v[m], 2), a, \" \");
			      printf \"%s %.4g\\n\", m, a[int((n[m] + 1) / 2)] } }" |
		sort
	} &&
	med "$MMCI_DB" > m1 && med "$TRASH/root.db" > m2 &&
	cat m1 m2 && [ $(wc -l < m1) = 2 ] && cmp m1 m2 &&
	# the initramfs the service user made has root'\''s bytes (no mknod)
	i1=$(sqlite3 "$MMCI_DB" "SELECT initrd_sha1 FROM runs WHERE id = 1") &&
	i2=$(sqlite3 "$TRASH/root.db" "SELECT initrd_sha1 FROM runs WHERE id = 1") &&
	echo "initramfs $i1 / $i2" && [ -n "$i1" ] && [ "$i1" = "$i2" ]
'

# a profile's counts per timed write, and its five largest functions
prof() {
	sqlite3 "$1" "SELECT workload || \" \" || variant || \" \" || windows,
		insns FROM profile_windows WHERE profile_id = (SELECT max(id)
		FROM profiles WHERE status = \"ok\") ORDER BY workload, variant" &&
	sqlite3 "$1" "SELECT func, insns FROM profile_funcs WHERE profile_id =
		(SELECT max(id) FROM profiles WHERE status = \"ok\")
		ORDER BY insns DESC, func LIMIT 5"
}

# the same names in the same order, each count within 0.1 % (two boots
# of one kernel differ by about 0.01 %: the domain name and backing path
# on the guest's command line, the initramfs each user made)
same_counts() {
	paste -d"|" "$1" "$2" | awk -F"|" "
		\$1 != \$3 { print \"not the same: \" \$1 \" / \" \$3; bad = 1 }
		{ d = \$2 - \$4; if (d < 0) d = -d
		  if (d > 0.001 * \$2) { print \$1 \": \" \$2 \" vs \" \$4; bad = 1 } }
		END { exit bad }"
}

test_expect 'a profiling boot through the parent: its plugin, the counts of root' '
	"$PRIV" -- "$MMCI" profile 1 > out 2> err || { cat err; exit 1; }
	cat out && grep -q "^profile #1: " out &&
	[ "$(sqlite3 "$MMCI_DB" "SELECT status FROM profiles")" = ok ] &&
	MMCI_DB="$TRASH/root.db" MMCI_DATA="$TRASH/rootvar" "$MMCI" profile 1 \
		> rout 2> rerr || { cat rerr; exit 1; }
	prof "$MMCI_DB" > p1 && prof "$TRASH/root.db" > p2 &&
	cat p1 p2 && [ $(wc -l < p1) -ge 6 ] && [ $(wc -l < p2) = $(wc -l < p1) ] &&
	same_counts p1 p2 &&
	ls -A "$MMCI_PRIV_DIR" > left && ! [ -s left ]
'

# a guest of ours is up: its kernel is in the parent's directory
guest_up() {
	virsh -c qemu:///system list --name > doms &&
	for d in $(cat doms); do
		virsh -c qemu:///system dumpxml "$d" 2>/dev/null |
			grep -q "<kernel>$PD/" && echo "$d" && return 0
	done
	return 1
}

# long_run X: a run of 400 rebinds through the parent (its pid in
# $ppid, its output in Xout and Xerr), until its guest is up
long_run() {
	PD=$(realpath "$MMCI_PRIV_DIR")
	"$PRIV" -- "$MMCI" run --kernel "$CLOUD_KERNEL" --nvdimm 1G \
		--iters 400 --map dev > "$1out" 2> "$1err" &
	ppid=$!
	wait_until 600 "the guest" "guest_up > dom" && cat dom
}

test_expect 'SIGTERM to the parent: passed on, the guest destroyed, all said' '
	long_run t &&
	kill -TERM $ppid && set +e && wait $ppid; rc=$? && set -e &&
	cat terr && echo "exit $rc" && [ $rc != 0 ] &&
	! guest_up &&
	ls -A "$MMCI_PRIV_DIR" > left && ! [ -s left ] &&
	r=$(sqlite3 "$MMCI_DB" "SELECT max(id) FROM runs") &&
	[ "$(sqlite3 "$MMCI_DB" "SELECT status FROM runs WHERE id = $r")" != ok ] &&
	sqlite3 "$MMCI_DB" "SELECT error FROM boots WHERE run_id = $r" > berr &&
	cat berr && grep -q "guest was destroyed" berr
'

test_expect 'kill -9 of the parent: libvirt destroys the guest, the next start tidies' '
	long_run k &&
	kill -KILL $ppid && set +e && wait $ppid; set -e &&
	wait_until 300 "the guest to go" "! guest_up" &&
	ls "$MMCI_PRIV_DIR" > left && cat left && [ -s left ] &&
	ls /dev/shm | grep "^mmci-$ppid-priv" > shm || : &&
	"$PRIV" -- true &&
	ls -A "$MMCI_PRIV_DIR" > left && ! [ -s left ] &&
	! ls /dev/shm | grep -q "^mmci-$ppid-priv" &&
	wait_until 100 "the orphan run to end" \
		"! pgrep -u $SVC -f \"mmci run --kernel $CLOUD_KERNEL --nvdimm 1G --iters 400\" > /dev/null"
'

test_expect 'a compromised service user: every hostile request refused' '
	cases="host short magic unknown-type fd-on-host name-traversal name-unterminated cmdline-escape option-arch profile-kvm ram-huge no-kernel kernel-directory kernel-device cross-channel=$CLOUD_KERNEL channels host" &&
	"$PRIV" -- python3 "$SRC/tests/priv-client.py" $cases > hostile 2> plog &&
	cat hostile &&
	sed -n 1p hostile | grep -q "^host: ok qemu [0-9]" &&
	for c in short magic; do
		grep -q "^$c: refused: a message of" hostile || exit 1
	done &&
	grep -q "^unknown-type: refused: unknown request 99" hostile &&
	grep -q "^fd-on-host: refused: request 2 takes no files" hostile &&
	grep -q "^name-traversal: refused: a domain name must be" hostile &&
	grep -q "^name-unterminated: refused: a domain name must be" hostile &&
	grep -q "^cmdline-escape: refused: .*not printable ASCII" hostile &&
	grep -q "^option-arch: refused: .*unknown arch" hostile &&
	grep -q "^ram-huge: refused: .*RAM at most" hostile &&
	grep -q "^no-kernel: refused: .*0 files sent, 1 expected" hostile &&
	grep -q "^kernel-directory: refused: the kernel is not a regular file" hostile &&
	grep -q "^kernel-device: refused: the kernel is not a regular file" hostile &&
	grep -q "^cross-channel=.*: guest [0-9]*: refused: guest [0-9]* is not this channel.s; refused: .*; refused: .*; its own channel destroys it: ok$" hostile &&
	grep -q "^channels: refused: after 6[0-9] channels: 64 channels open already" hostile &&
	tail -n 1 hostile | grep -q "^host: ok qemu" &&
	# each refusal is in the parent log too, one line each
	[ "$(grep -c "^mmci-priv: warning: refused: " plog)" -ge 17 ] &&
	! virsh -c qemu:///system list --name | grep -q "mmci-hostile"
'

test_done
