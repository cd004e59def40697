# lib-libvirtd2.sh - a second, independent libvirtd that stands for a
# remote libvirt host: reachable only over loopback TCP, with a libvirt
# state of its own and no view of the controller's files, and which can be
# killed at once, QEMU and all, as a host that loses its power. Source it
# after lib.sh (it needs root, unshare, virsh, libvirtd, virtlogd, perl and
# python3; no kernel build, no KVM).
#
#   libvirtd2_start DIR [none|sasl]  start it in the background and wait
#                                    (30 s at most) until it answers;
#                                    DIR/uri holds its connection URI
#                                    (qemu+tcp://127.0.0.1:PORT/system),
#                                    DIR/port the port (kept when it is
#                                    started again in the same DIR),
#                                    DIR/nspid the host pid of its
#                                    namespace's init
#   libvirtd2_pool DIR NAME          a started dir pool NAME, its files in
#                                    the host's own /var/lib/libvirt/NAME
#   libvirtd2_kill DIR               kill -9 of everything in it at once
#   libvirtd2_stop DIR               its domains destroyed, then killed;
#                                    idempotent, for test_atexit
#   LIBVIRTD2_HIDE="/abs/dir ..."    directories the host must not see
#                                    (each is an empty tmpfs there), e.g.
#                                    "$SRC $MMCI_DATA"
#
#   libvirtd2_hosts DIR...           the test's hosts: each hides the
#                                    checkout (LIBVIRTD2_HIDE=$SRC: the
#                                    trash and the shared build cache are
#                                    in it; and $TRASH when it is not)
#                                    and is stopped at the test's exit
#
# A test registers its hosts at the top level (a case runs in a subshell,
# where test_atexit would be lost):
#
#	libvirtd2_hosts "$TRASH/lv2"
#	test_expect 'the remote host answers' 'libvirtd2_start "$TRASH/lv2"'
#
# auth sasl: every connection is refused at authentication (DIGEST-MD5,
# the only mechanism libvirt takes over plain TCP without Kerberos, against
# a SASL user database that does not exist). The listening port is all
# that is waited for then. The errors (VIR_ERR_AUTH_FAILED, all three):
# virConnectOpen, which has no way to ask for credentials, "authentication
# failed: Failed to start SASL negotiation: -4 (SASL(-4): no mechanism
# available: No worthy mechs found)"; a client with credentials, e.g. virsh
# with LIBVIRT_AUTH_FILE, "authentication failed: authentication failed";
# virsh with its stdin at EOF, "authentication failed: Failed to step SASL
# negotiation: -1 (SASL(-1): generic failure: All-whitespace username.)".
#
# After a kill, `virsh console` prints "error: Disconnected from URI due to
# I/O error" at once but does not exit: run it under timeout.
#
# How it is built: `unshare --mount --pid --fork` runs DIR/ns.sh as the
# init of a new PID namespace in a private mount namespace; it shares the
# network (loopback), /sys and the rest with the controller. There:
#  - /run/libvirt, /run/lock, /tmp, /dev/shm and /boot are empty tmpfs:
#    sockets, pid files, lock files and scratch files of its own, and no
#    kernel in /boot, so a kernel has to be uploaded to be booted, as on
#    a real remote host;
#    /dev/pts is a devpts instance of its own (its guests' pty consoles);
#  - /var/lib/libvirt, /var/cache/libvirt and /var/log/libvirt are
#    DIR/lib, DIR/cache and DIR/log: they outlive a kill (a restart in the
#    same DIR is the host after a reboot) and can be read from outside;
#  - /etc/libvirt is DIR/etc-libvirt, a copy of the controller's without
#    its domains, pools, hooks and autostart links (no default network
#    starts), qemu.conf and virtlogd.conf kept; /etc/sasl2 is DIR/sasl2;
#  - each LIBVIRTD2_HIDE directory is an empty tmpfs; DIR itself stays
#    visible at its path (libvirtd's configuration and pid file are there)
#    even when it is under one of them or under /tmp.
# Its virtlogd and libvirtd run daemonized in the namespace, and its init
# then becomes a loop that reaps orphans: libvirt daemonizes QEMU, whose
# parent is then the namespace's init, and a QEMU that exited but was not
# reaped would look alive to libvirt (destroy would time out).

libvirtd2_hosts() {
	# the trash directory too when it is not in the checkout (lib.sh
	# keeps it below /var/tmp for a checkout closed to others)
	case $TRASH in
	"$SRC"/*) export LIBVIRTD2_HIDE="$SRC" ;;
	*) export LIBVIRTD2_HIDE="$SRC $TRASH" ;;
	esac
	for d in "$@"; do
		test_atexit "libvirtd2_stop '$d'"
	done
}

# libvirtd2_answers PORT: whether something accepts TCP connections on
# 127.0.0.1:PORT (python3: dash has no /dev/tcp)
libvirtd2_answers() {
	python3 -c 'import socket, sys
s = socket.socket()
s.settimeout(2)
sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))) != 0)' "$1"
}

# libvirtd2_alive DIR: whether DIR's namespace still runs: its init pid
# is alive and still in the PID namespace recorded at start (a pid reused
# by another process after a kill is never taken for it)
libvirtd2_alive() {
	[ -s "$1/nspid" ] && [ -s "$1/pidns" ] || return 1
	lv2_ns=$(readlink "/proc/$(cat "$1/nspid")/ns/pid" 2>/dev/null) ||
		return 1
	[ "$lv2_ns" = "$(cat "$1/pidns")" ]
}

# libvirtd2_logs DIR: what to look at when it did not start
libvirtd2_logs() {
	for lv2_f in "$1/ns.log" "$1/log/virtlogd.log" "$1/log/libvirtd.log"; do
		[ -s "$lv2_f" ] || continue
		echo "--- $lv2_f"
		tail -n 40 "$lv2_f"
	done
	return 0
}

libvirtd2_start() {
	lv2_dir=${1:?usage: libvirtd2_start DIR [none|sasl]}
	lv2_auth=${2:-none}
	case $lv2_auth in
	none|sasl) ;;
	*) echo "libvirtd2_start: auth must be none or sasl, not '$lv2_auth'" >&2
		return 1 ;;
	esac
	case $lv2_dir in
	/*) ;;
	*) lv2_dir=$PWD/$lv2_dir ;;	# ns.sh runs elsewhere
	esac
	if libvirtd2_alive "$lv2_dir"; then
		echo "libvirtd2_start: already running in $lv2_dir" >&2
		return 1
	fi
	mkdir -p "$lv2_dir/lib" "$lv2_dir/cache" "$lv2_dir/log" \
		"$lv2_dir/sasl2" || return 1
	# a restart in the same DIR keeps the port, as a rebooted host keeps
	# its address: a client's URI still names it
	lv2_port=$(cat "$lv2_dir/port" 2>/dev/null) || lv2_port=
	rm -f "$lv2_dir/nspid" "$lv2_dir/pidns" "$lv2_dir/port" "$lv2_dir/uri"

	# /etc/libvirt: copied once, so a restart in the same DIR finds the
	# pools it defined, as a host does after a reboot. Nothing of the
	# controller's own objects: no domain, pool or secret definition (they
	# name the controller's files), no hook, and no autostart link, so the
	# default network (autostarted on many hosts) stays down
	if [ ! -d "$lv2_dir/etc-libvirt" ]; then
		cp -a /etc/libvirt "$lv2_dir/etc-libvirt.tmp" || return 1
		(
			cd "$lv2_dir/etc-libvirt.tmp" &&
			rm -rf qemu/*.xml qemu/autostart qemu/networks/autostart \
				storage secrets/* hooks/* &&
			mkdir -p qemu/networks/autostart
		) || return 1
		# no cgroups: this libvirtd would make its QEMUs' cgroups
		# under the controller's /sys/fs/cgroup/*/machine, next to
		# the controller's own (same names for the same domain names
		# and ids), and a kill -9 would leave them behind
		printf '\n# lib-libvirtd2.sh: no cgroups of its own\ncgroup_controllers = [ ]\n' \
			>> "$lv2_dir/etc-libvirt.tmp/qemu.conf" &&
		mv "$lv2_dir/etc-libvirt.tmp" "$lv2_dir/etc-libvirt" || return 1
	fi
	# a SASL configuration of its own (the controller's /etc/sasl2 may
	# list mechanisms that work there): DIGEST-MD5, as libvirt wants a
	# mechanism that encrypts over plain TCP (SSF 56), with a user
	# database that does not exist: nobody can authenticate
	printf 'mech_list: digest-md5\nsasldb_path: /etc/libvirt/no-such-passwd.db\n' \
		> "$lv2_dir/sasl2/libvirt.conf" || return 1

	# a free port (0: any); SO_REUSEADDR as libvirtd binds it, so that
	# the connections of a killed one in TIME_WAIT do not count
	lv2_port=$(python3 -c 'import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
	s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError as e:
	sys.exit("libvirtd2_start: port %s: %s" % (sys.argv[1], e))
print(s.getsockname()[1])' "${lv2_port:-0}") || return 1
	# unix sockets without polkit (none runs here): a virsh run inside
	# the namespace (nsenter) can connect to debug it
	cat > "$lv2_dir/libvirtd.conf" <<-EOF || return 1
	# lib-libvirtd2.sh: a second libvirtd, loopback TCP only
	listen_tls = 0
	listen_tcp = 1
	listen_addr = "127.0.0.1"
	tcp_port = "$lv2_port"
	auth_tcp = "$lv2_auth"
	auth_unix_ro = "none"
	auth_unix_rw = "none"
	log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
	EOF

	# the namespace's init. It runs from DIR (cd) before anything is
	# mounted: its working directory keeps DIR's files reachable as "."
	# after a tmpfs covers DIR's path (a hidden parent, or /tmp), if
	# mount is told not to canonicalize (-c), which would turn "." back
	# into the path, and so into the empty tmpfs
	cat > "$lv2_dir/ns.sh" <<-'EOF' || return 1
	# lib-libvirtd2.sh: init of the second libvirtd's namespaces
	# usage: ns.sh DIR [HIDDEN-DIR...]
	set -e
	dir=$1
	shift
	cd "$dir"
	echo "ns.sh: pid $$ in its namespace, DIR $dir"
	for d in "$@"; do
		if [ -d "$d" ]; then
			mount -t tmpfs -o mode=755,size=1m lv2-hide "$d"
		else
			echo "ns.sh: LIBVIRTD2_HIDE: no directory $d"
		fi
	done
	# the real path: /var/run is a link to /run on Debian
	run=$(readlink -f /var/run)/libvirt
	# /run/lock too: libvirt locks a pty console by its path there
	# (LCK.._pts_N), and this host's /dev/pts/N are not the controller's
	lock=$(readlink -f /var/lock)
	for d in "$run" "$lock" /tmp /dev/shm /boot; do
		mkdir -p "$d"
		case $d in
		/tmp|/dev/shm|"$lock") mount -t tmpfs -o mode=1777 lv2 "$d" ;;
		*) mount -t tmpfs -o mode=755 lv2 "$d" ;;
		esac
	done
	for m in lib:/var/lib/libvirt cache:/var/cache/libvirt \
		log:/var/log/libvirt etc-libvirt:/etc/libvirt sasl2:/etc/sasl2; do
		mkdir -p "${m#*:}"
		mount -c --bind "./${m%%:*}" "${m#*:}"
	done
	mkdir -p "$dir"
	mount -c --bind . "$dir"
	# ptys of its own (the guests' pty consoles): the controller's
	# /dev/pts does not list them, nor this host the controller's
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 lv2 /dev/pts
	mount --bind /dev/pts/ptmx /dev/ptmx
	# its own pid file: virtlogd's default one, /run/virtlogd.pid, is
	# the controller's (/run is shared), locked by the controller's
	# virtlogd
	virtlogd -d -p "$run/virtlogd.pid"
	# -d returns once the daemon has initialized, or fails if it could
	# not (its log says why)
	libvirtd -d -l -f "$dir/libvirtd.conf" -p "$dir/libvirtd.pid"
	echo "ns.sh: libvirtd started"
	# reap orphans forever (wait is -1 when there is no child left). A
	# SIGTERM ends it, and so the namespace: an init gets no signal from
	# outside but SIGKILL unless it has a handler for it, and unshare
	# blocks SIGTERM, so without one lib.sh's cleanup (SIGTERM to what
	# runs from the trash directory) would wait 5 s for its kill -9.
	# One line: lib.sh prints the command lines it stops
	exec perl -e '$SIG{TERM} = sub { exit 0 }; while (1) { sleep 1 if wait == -1 }'
	EOF

	# --kill-child: if unshare is killed (lib.sh's cleanup stops what
	# runs with the trash directory in its command line), so is the
	# namespace. Started from a subshell that exits at once, so that it
	# is not a job of the caller's shell, whose plain `wait` would wait
	# for the namespace to end; and no output to the caller's stdout,
	# which a $(...) or a pipe would wait for as well
	rm -f "$lv2_dir/unshare.pid"
	(
		# shellcheck disable=SC2086 # LIBVIRTD2_HIDE: a list of paths
		unshare --mount --pid --fork --kill-child --propagation private \
			--mount-proc sh "$lv2_dir/ns.sh" "$lv2_dir" \
			${LIBVIRTD2_HIDE:-} < /dev/null >> "$lv2_dir/ns.log" 2>&1 &
		echo $! > "$lv2_dir/unshare.pid"
	) || return 1
	lv2_unshare=$(cat "$lv2_dir/unshare.pid") || return 1
	# the namespace's init is unshare's only child: its host pid
	lv2_i=0
	lv2_init=
	while [ -z "$lv2_init" ] && [ $lv2_i -lt 100 ]; do
		lv2_init=$(cat "/proc/$lv2_unshare/task/$lv2_unshare/children" \
			2>/dev/null || pgrep -P "$lv2_unshare") || :
		lv2_init=${lv2_init%% *}	# "123 " -> "123"
		[ -n "$lv2_init" ] || sleep 0.1
		lv2_i=$((lv2_i + 1))
	done
	if [ -z "$lv2_init" ] ||
		! readlink "/proc/$lv2_init/ns/pid" > "$lv2_dir/pidns"; then
		echo "libvirtd2_start: unshare made no namespace" >&2
		libvirtd2_logs "$lv2_dir" >&2
		return 1
	fi
	echo "$lv2_init" > "$lv2_dir/nspid"
	echo "$lv2_port" > "$lv2_dir/port"
	echo "qemu+tcp://127.0.0.1:$lv2_port/system" > "$lv2_dir/uri"

	# answering: a version for auth none; for sasl, whose every
	# connection is refused, the port open
	lv2_i=0
	while :; do
		if [ "$lv2_auth" = none ]; then
			virsh -c "qemu+tcp://127.0.0.1:$lv2_port/system" version \
				> /dev/null 2>&1 && return 0
		else
			libvirtd2_answers "$lv2_port" && return 0
		fi
		if ! libvirtd2_alive "$lv2_dir"; then
			echo "libvirtd2_start: its namespace ended" >&2
			break
		fi
		lv2_i=$((lv2_i + 1))
		if [ $lv2_i -ge 150 ]; then
			echo "libvirtd2_start: no answer on port $lv2_port in 30 s" >&2
			break
		fi
		sleep 0.2
	done
	libvirtd2_logs "$lv2_dir" >&2
	libvirtd2_kill "$lv2_dir" > /dev/null 2>&1 || :
	return 1
}

# libvirtd2_pool DIR NAME: a dir pool, started and autostarted (a restart
# in the same DIR finds it again); its target is in the host's private
# /var/lib/libvirt, so its volumes are DIR/lib/NAME/* seen from outside
libvirtd2_pool() {
	lv2_uri=$(cat "${1:?usage: libvirtd2_pool DIR NAME}/uri") || return 1
	lv2_pool=${2:?usage: libvirtd2_pool DIR NAME}
	virsh -q -c "$lv2_uri" pool-define-as "$lv2_pool" dir \
		--target "/var/lib/libvirt/$lv2_pool" &&
	virsh -q -c "$lv2_uri" pool-build "$lv2_pool" &&
	virsh -q -c "$lv2_uri" pool-start "$lv2_pool" &&
	virsh -q -c "$lv2_uri" pool-autostart "$lv2_pool"
}

# libvirtd2_kill DIR: SIGKILL to the namespace's init: the kernel kills
# every other process of a PID namespace whose init dies, libvirtd and
# QEMU with it, and nobody cleans up (files stay as they were). Fails if
# it was not running or is still there after 10 s
libvirtd2_kill() {
	lv2_dir=${1:?usage: libvirtd2_kill DIR}
	if ! libvirtd2_alive "$lv2_dir"; then
		echo "libvirtd2_kill: not running in $lv2_dir" >&2
		return 1
	fi
	lv2_init=$(cat "$lv2_dir/nspid")
	lv2_port=$(cat "$lv2_dir/port" 2>/dev/null) || lv2_port=
	kill -9 "$lv2_init" || return 1
	lv2_i=0
	while libvirtd2_alive "$lv2_dir" ||
		{ [ -n "$lv2_port" ] && libvirtd2_answers "$lv2_port"; }; do
		lv2_i=$((lv2_i + 1))
		if [ $lv2_i -ge 100 ]; then
			echo "libvirtd2_kill: still running after 10 s" >&2
			return 1
		fi
		sleep 0.1
	done
	return 0
}

# libvirtd2_stop DIR: its domains destroyed (when it answers), then the
# namespace killed; nothing to do when it is not running
libvirtd2_stop() {
	lv2_dir=${1:?usage: libvirtd2_stop DIR}
	libvirtd2_alive "$lv2_dir" || return 0
	lv2_uri=$(cat "$lv2_dir/uri" 2>/dev/null) || lv2_uri=
	if [ -n "$lv2_uri" ]; then
		for lv2_d in $(timeout 20 virsh -c "$lv2_uri" list --name \
			2>/dev/null); do
			timeout 20 virsh -q -c "$lv2_uri" destroy "$lv2_d" \
				> /dev/null 2>&1 || :
		done
	fi
	libvirtd2_kill "$lv2_dir" > /dev/null 2>&1 || :
	return 0
}
