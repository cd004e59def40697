#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh - build the initramfs of the mmci test VM.
#
# usage: mkinitramfs.sh OUT.cpio.gz KERNEL_RELEASE MODULES_ROOT RUNNER_BINARY
#
# MODULES_ROOT holds lib/modules/KERNEL_RELEASE: "/" for the host's kernel,
# or the INSTALL_MOD_PATH of "make modules_install" for a built one. The
# image holds a static busybox, vm-images/init as /init, the runner as
# /bin/mmci-runner, and only the modules in MMCI_MODULES (default below)
# with their dependencies, uncompressed, with a fresh modules.dep.
#
# Environment: MMCI_MODULES (space separated module names), MMCI_MODULES_ADD
# (more names after those: an arm64 guest's virtio_console), BUSYBOX (path
# of a static busybox, default /bin/busybox), SOURCE_DATE_EPOCH (file times
# in the image, default 0: the same inputs give the same image).
# MMCI_EXTRA_MODULES (space separated paths of .ko files, e.g. mmci_bench.ko
# built against this kernel, or test_vmalloc.ko from MODULES_ROOT) are copied
# to lib/modules/KERNEL_RELEASE/extra/ and entered in modules.dep, but not
# in /etc/mmci-modules: /init does not load them, the runner does.

set -eu

prog=mkinitramfs
default_modules="libnvdimm nfit nd_btt nd_pmem device_dax dax_pmem kmem virtio_pci virtio_mem"
applets="sh mount umount mkdir mknod ln ls cat echo sleep sync dmesg modprobe
insmod lsmod rmmod poweroff reboot halt uname readlink grep sed head tail"

die() {
	echo "$prog: $*" >&2
	exit 1
}

warn() {
	echo "$prog: $*" >&2
}

[ $# -eq 4 ] ||
	die "usage: $0 OUT.cpio.gz KERNEL_RELEASE MODULES_ROOT RUNNER_BINARY"
out=$1
krel=$2
modroot=$3
runner=$4
modules="${MMCI_MODULES-$default_modules}${MMCI_MODULES_ADD:+ $MMCI_MODULES_ADD}"
busybox=${BUSYBOX:-/bin/busybox}
epoch=${SOURCE_DATE_EPOCH:-0}
here=$(cd "$(dirname "$0")" && pwd)
moddir=$modroot/lib/modules/$krel

for tool in cpio gzip depmod modprobe find sort touch; do
	command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found in PATH"
done
[ -f "$here/init" ] || die "'$here/init' not found"
[ -x "$busybox" ] || die "busybox '$busybox' not found or not executable"
[ -f "$runner" ] || die "runner '$runner' not found"
if command -v readelf >/dev/null 2>&1; then
	for bin in "$busybox" "$runner"; do
		readelf -l "$bin" 2>/dev/null | grep -q 'Requesting program interpreter' &&
			die "'$bin' is not statically linked"
	done
fi
if [ -n "$modules" ]; then
	[ -d "$moddir" ] || die "no modules directory '$moddir'"
	[ -f "$moddir/modules.dep" ] || [ -f "$moddir/modules.dep.bin" ] ||
		die "'$moddir' has no modules.dep (run depmod)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmci-initramfs.XXXXXX") ||
	die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
root=$tmp/root
kdir=$root/lib/modules/$krel

for d in bin sbin etc dev proc sys tmp "lib/modules/$krel"; do
	mkdir -p "$root/$d"
done
cp "$busybox" "$root/bin/busybox"
for a in $applets; do
	ln -s busybox "$root/bin/$a"
done
cp "$here/init" "$root/init"
cp "$runner" "$root/bin/mmci-runner"
chmod 755 "$root/init" "$root/bin/busybox" "$root/bin/mmci-runner"

# copy one module (a path from --show-depends) to the same place in the image
copy_module() {
	rel=${1#*/lib/modules/"$krel"/}
	case $rel in
	*.ko.xz) dst=${rel%.xz} unpack="xz -dc" ;;
	*.ko.zst) dst=${rel%.zst} unpack="zstd -dcq" ;;
	*.ko.gz) dst=${rel%.gz} unpack="gzip -dc" ;;
	*.ko) dst=$rel unpack="cat" ;;
	*) die "unexpected module file '$1'" ;;
	esac
	[ -f "$kdir/$dst" ] && return 0
	mkdir -p "$(dirname "$kdir/$dst")"
	# busybox modprobe reads plain .ko only unless built with the
	# matching SEAMLESS_* option: always store modules uncompressed
	$unpack "$1" >"$kdir/$dst" || die "cannot copy module '$1'"
}

: >"$root/etc/mmci-modules"
for m in $modules; do
	echo "$m" >>"$root/etc/mmci-modules"
	if ! deps=$(modprobe -d "$modroot" -S "$krel" --show-depends "$m" 2>&1)
	then
		warn "module '$m' not found for $krel, skipped"
		continue
	fi
	printf '%s\n' "$deps" >"$tmp/deps"
	while read -r kind path rest; do
		case $kind in
		insmod) copy_module "$path" ;;
		builtin) ;;
		*) warn "module '$m': ignored '$kind $path'" ;;
		esac
	done <"$tmp/deps"
done
for ko in ${MMCI_EXTRA_MODULES-}; do
	case $ko in
	*.ko) ;;
	*) die "extra module '$ko' is not a .ko file" ;;
	esac
	[ -f "$ko" ] || die "extra module '$ko' not found"
	mkdir -p "$kdir/extra"
	cp "$ko" "$kdir/extra/" || die "cannot copy extra module '$ko'"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ ! -f "$moddir/$f" ] || cp "$moddir/$f" "$kdir/$f"
done
depmod -b "$root" "$krel" || die "depmod failed for '$root'"

# the same inputs give the same bytes: fixed times, sorted names, root owner
find "$root" -exec touch -h -d "@$epoch" {} + ||
	die "cannot set file times"
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet) >"$tmp/initrd.cpio" ||
	die "cpio failed"
# /dev/console, which the kernel opens for /init before anything is
# mounted: a second archive of one entry, written here rather than made
# with mknod, so that an image made by any user (the service user under
# mmci-priv, root without CAP_MKNOD) has the same bytes as root's. newc:
# "070701", then ino, mode (020600: character device), uid, gid, nlink,
# mtime, size, dev major, minor, rdev major (5), minor (1), name size
# (with its NUL), check; the name padded to 4 bytes; then the trailer.
cpio_entry() {
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$1" "$2" 0 0 1 0 0 0 0 "$3" "$4" $((${#5} + 1)) 0
	printf '%s\0' "$5"
	pad=$(((4 - (110 + ${#5} + 1) % 4) % 4))
	[ "$pad" = 0 ] || head -c "$pad" /dev/zero
}
{ cpio_entry 1 $((0x2180)) 5 1 dev/console
  cpio_entry 0 0 0 0 'TRAILER!!!'; } >>"$tmp/initrd.cpio" ||
	die "cannot write dev/console into the image"
gzip -1 -n -c "$tmp/initrd.cpio" >"$out.tmp$$" || {
	rm -f "$out.tmp$$"
	die "cannot write '$out.tmp$$'"
}
mv -f "$out.tmp$$" "$out" || die "cannot write '$out'"
echo "$prog: $out: $(wc -c <"$out" | tr -d ' ') bytes," \
	"$(find "$kdir" -name '*.ko' | wc -l | tr -d ' ') modules"
