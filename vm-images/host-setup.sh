#!/bin/sh
# host-setup.sh - prepare a Debian 12 host to build kernels and run mmci's
# guests: install the Debian packages, make the build user, start libvirt.
# Idempotent: a second run installs nothing, makes nothing and starts
# nothing that is already there.
# Run as root (or through sudo). Called by `make setup`.
set -eu

PACKAGES="
	build-essential pkg-config ccache bc bison flex libelf-dev libssl-dev
	dwarves xz-utils cpio kmod rsync perl
	libvirt-daemon-system libvirt-clients libvirt-dev
	qemu-system-x86 qemu-utils
	libgit2-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev zlib1g-dev
	libgsl-dev libjansson-dev
	busybox-static linux-source-6.12 linux-image-cloud-amd64
	git
	clang libclang-rt-14-dev
	nginx-light python3 curl
	libxml2-dev
	libmicrohttpd-dev chromium python3-aiosmtpd python3-jsonschema bubblewrap gnuplot-nox
	acl util-linux
"

say() { echo "host-setup: $*"; }

if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then
		exec sudo "$0" "$@"
	fi
	say "run me as root: I install packages and start libvirtd" >&2
	exit 1
fi

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
else
	say "all packages present"
fi

# Kernel builds run as this user when mmci runs as root (daemon/sandbox.h):
# it owns only what a build writes (object directory, artifacts, ccache's
# cache), which mmci hands to it before each sandboxed command. No login
# shell, no password.
BUILD_USER=${MMCI_BUILD_USER:-mmci-build}
if getent passwd "$BUILD_USER" >/dev/null; then
	say "build user $BUILD_USER present"
else
	useradd --system --user-group --home-dir "/var/lib/$BUILD_USER" \
		--create-home --shell /usr/sbin/nologin \
		--comment "mmci kernel builds" "$BUILD_USER"
	say "made build user $BUILD_USER"
fi
# Mail, feeds and HTTP are parsed as this user when mmci runs as root
# (daemon/service-user.h): the daemon's polls, the web server and its
# render worker. It owns the database and <data>/www and <data>/fetch,
# which mmci hands to it at start. No login shell, no password, no home.
SERVICE_USER=${MMCI_USER:-mmci}
if getent passwd "$SERVICE_USER" >/dev/null; then
	say "service user $SERVICE_USER present"
else
	useradd --system --user-group --home-dir /nonexistent --no-create-home \
		--shell /usr/sbin/nologin \
		--comment "mmci parser of mail, feeds and HTTP" "$SERVICE_USER"
	say "made service user $SERVICE_USER"
fi

# ccache's cache stays where it is, warm: root's is ~/.cache/ccache, below
# root's home (0700). The build user may pass through (search, not list)
# every directory above it that is closed to others; the sandbox lays a
# tmpfs over that directory, so the build sees only the cache there.
cache=$(ccache -k cache_dir 2>/dev/null || true)
case "$cache" in
/?*)
	mkdir -p "$cache"
	d=$(dirname "$cache")
	while [ "$d" != / ]; do
		if [ -n "$(find "$d" -maxdepth 0 ! -perm -o=x)" ] &&
		   ! getfacl -cp "$d" 2>/dev/null |
			grep -q "^user:$BUILD_USER:..x"; then
			setfacl -m "u:$BUILD_USER:x" "$d"
			say "$BUILD_USER may pass through $d (ACL)"
		fi
		d=$(dirname "$d")
	done
	;;
esac

# libvirt: under systemd use the units; without systemd (containers, CI)
# start the daemons by hand, as docs/OPERATIONS.md describes.
if [ -d /run/systemd/system ]; then
	systemctl start virtlogd.socket libvirtd.service
else
	pgrep -x virtlogd >/dev/null || virtlogd -d
	pgrep -x libvirtd >/dev/null || libvirtd -d
fi
i=0
until virsh -c qemu:///system version >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 60 ]; then
		say "libvirtd does not answer on qemu:///system after 30 s" >&2
		exit 1
	fi
	sleep 0.5
done
say "libvirt ready: $(virsh -c qemu:///system version 2>/dev/null |
	sed -n 's/Running hypervisor: //p')"
