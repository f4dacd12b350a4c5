#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The userspace of a foreign guest (ARCH=arm64|s390x), as an initramfs:
# Debian's static busybox for that architecture, /init (arch/guest-init.sh),
# the workbench scripts and the given directories, each at its host path
# (so "make vm ARCH=... CMD='build/obj-arm64/selftests/reg_test'" and
# guest-check.sh find their programs where the host has them).
#
#   initramfs.sh busybox              fetch busybox-static:<arch> if missing
#   initramfs.sh OUT.cpio [DIR...]    write the initramfs (newc cpio)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ "$ARCH" != x86_64 ] || die "initramfs.sh is for ARCH=arm64|s390x"
BB_DIR=$BUILD/arch/busybox-$ARCH
BB=$BB_DIR/bin/busybox

# Debian's busybox-static for $ARCH, unpacked (never installed) into
# build/arch/busybox-<arch>: apt-get download needs the architecture in
# dpkg's list, so it is added (dpkg --add-architecture) the first time.
fetch_busybox() {
	[ -x "$BB" ] && return 0
	local sudo= deb
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	if ! dpkg --print-foreign-architectures | grep -qxF "$ARCH"; then
		log "adding the $ARCH architecture to dpkg (for busybox-static:$ARCH)"
		$sudo dpkg --add-architecture "$ARCH"
		$sudo apt-get update
	fi
	rm -rf "$BB_DIR.tmp"
	mkdir -p "$BB_DIR.tmp/deb"
	(cd "$BB_DIR.tmp/deb" && apt-get download "busybox-static:$ARCH") ||
		{ $sudo apt-get update &&
		  (cd "$BB_DIR.tmp/deb" && apt-get download "busybox-static:$ARCH"); } ||
		die "cannot download busybox-static:$ARCH"
	deb=$(ls "$BB_DIR.tmp"/deb/busybox-static_*.deb)
	dpkg -x "$deb" "$BB_DIR.tmp/root"
	mkdir -p "$BB_DIR.tmp/bin"
	mv "$BB_DIR.tmp/root/bin/busybox" "$BB_DIR.tmp/bin/busybox"
	rm -rf "$BB_DIR.tmp/root" "$BB_DIR"
	mv "$BB_DIR.tmp" "$BB_DIR"
	log "busybox for $ARCH: $(basename "$deb")"
}

[ "${1:-}" = busybox ] && { fetch_busybox; exit 0; }
[ $# -ge 1 ] || die "usage: initramfs.sh OUT.cpio [DIR...]"
out=$1
shift
fetch_busybox

root=$(mktemp -d "${TMPDIR:-/tmp}/wb-initramfs.XXXXXX")
chmod 755 "$root"	# the root directory of the guest
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,etc}
cp "$BB" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"	# for /init; it installs the other applets
cp "$WB_DIR/arch/guest-init.sh" "$root/init"
# before busybox --install: the runner needs coreutils' timeout options
cp "$WB_DIR/arch/timeout.sh" "$root/usr/bin/timeout"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
# the workbench's scripts (guest-check.sh, ...) at their host path
mkdir -p "$root$WB_DIR"
rsync -a --include='*/' --include='*.sh' --include='*.py' \
	--include='allowed-skips' --exclude='*' --prune-empty-dirs \
	"$WB_DIR/" "$root$WB_DIR/"
local_dir=
for local_dir in "$@"; do
	[ -d "$local_dir" ] || continue
	local_dir=$(realpath "$local_dir")
	mkdir -p "$root$local_dir"
	# hard links (programs installed and linked) stay links; objects out
	rsync -aH --exclude='/obj/' "$local_dir/" "$root$local_dir/"
done
(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
