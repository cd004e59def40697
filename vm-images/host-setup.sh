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
	nginx-light python3 curl public-inbox
	libxml2-dev
	libglib2.0-dev libmicrohttpd-dev chromium python3-aiosmtpd python3-jsonschema bubblewrap gnuplot-nox strace
	acl util-linux
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
	qemu-efi-aarch64
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

# arm64 guests (docs/ARM64.md): their initramfs needs an arm64 static
# busybox. busybox-static:arm64 conflicts with the host's busybox-static
# (installing it replaces /bin/busybox), so it is only downloaded through
# multiarch and unpacked into $ARM64_DIR.
ARM64_DIR=${MMCI_ARM64_DIR:-/usr/local/lib/mmci/arm64}
if [ -x "$ARM64_DIR/busybox" ]; then
	say "arm64 busybox present ($ARM64_DIR/busybox)"
else
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update -q
	fi
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q busybox-static:arm64) ||
		{ apt-get update -q &&
		  (cd "$tmp" && apt-get download -q busybox-static:arm64); }
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x"
	mkdir -p "$ARM64_DIR"
	install -m 0755 "$tmp/x/bin/busybox" "$ARM64_DIR/busybox"
	rm -rf "$tmp"
	say "arm64 busybox unpacked into $ARM64_DIR (busybox-static:arm64)"
fi

# Debian's cloud kernel for arm64, unpacked likewise into $ARM64_DIR/cloud
# (boot/vmlinuz-*, lib/modules/*, with a modules.dep): the tests boot an
# arm64 guest with it without a cross-build (tests/t0360-arm64-cloud.sh)
if ls "$ARM64_DIR"/cloud/boot/vmlinuz-* >/dev/null 2>&1; then
	say "arm64 cloud kernel present ($(ls "$ARM64_DIR"/cloud/boot/vmlinuz-*))"
else
	pkg=$(apt-cache depends linux-image-cloud-arm64:arm64 |
		sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)
	[ -n "$pkg" ] || {
		say "cannot tell the package of linux-image-cloud-arm64:arm64" >&2
		exit 1
	}
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q "$pkg")
	dpkg-deb -x "$tmp"/linux-image-*_arm64.deb "$tmp/x"
	rel=$(ls "$tmp/x/lib/modules")
	depmod -b "$tmp/x" "$rel"
	rm -rf "$ARM64_DIR/cloud"
	mkdir -p "$ARM64_DIR"
	mv "$tmp/x" "$ARM64_DIR/cloud"
	rm -rf "$tmp"
	say "arm64 cloud kernel $rel unpacked into $ARM64_DIR/cloud ($pkg)"
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
# Under mmci-priv (mmci.service) the daemon is that user, and its KVM
# probe opens /dev/kvm itself: the kvm group lets it, or every run is TCG
if getent group kvm >/dev/null &&
   ! id -nG "$SERVICE_USER" | tr ' ' '\n' | grep -qx kvm; then
	usermod -aG kvm "$SERVICE_USER"
	say "service user $SERVICE_USER may open /dev/kvm (group kvm)"
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
