#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit suites of the series through the kernel's own runner,
# tools/testing/kunit/kunit.py (QEMU x86-64, TCG), from the series tree
# build/src with kernel/trace/.kunitconfig; the kernel goes to
# build/obj-kunit.
#
#   kunit.sh            kunit.py run: configure, build, boot, its summary
#   kunit.sh build      kunit.py build (under the kernel build lock)
#   kunit.sh exec DIR   kunit.py exec of the last build: its summary to
#                       DIR/kunit.out, the guest's log (KTAP) to
#                       DIR/kunit.log, exit status kunit.py's
#
# Environment: KUNIT_TIMEOUT=s bounds the boot (default 300).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KUNITCONFIG=kernel/trace/.kunitconfig
KOBJ=$BUILD/obj-kunit

kunitpy() {	# $1 = subcommand, then its options
	local sub=$1 cc=gcc
	shift
	command -v ccache >/dev/null && cc="ccache gcc"
	local opts=(--arch=x86_64 --build_dir="$KOBJ")
	case $sub in
	run|build)
		opts+=(--kunitconfig="$KUNITCONFIG" --jobs="$NPROC"
		       --make_options "CC=$cc")
		;;
	esac
	case $sub in
	run|exec) opts+=(--timeout="${KUNIT_TIMEOUT:-300}") ;;
	esac
	(cd "$BUILD/src" && python3 tools/testing/kunit/kunit.py "$sub" \
		"${opts[@]}" "$@")
}

# build/src up to date and no other kernel build at the same time
locked_prepare() {
	mkdir -p "$BUILD" "$KOBJ"
	exec 9>"$BUILD/.build.lock"
	if ! flock -n 9; then
		log "waiting for another kernel build (lock $BUILD/.build.lock)"
		flock 9
	fi
	ensure_pristine
	KERNEL=test SRC=$BUILD/src prepare_src
}

case ${1:-run} in
run)
	ensure_deps
	locked_prepare
	kunitpy run
	;;
build)
	ensure_deps
	locked_prepare
	log "kunit.py build in $KOBJ ($KUNITCONFIG)"
	kunitpy build > "$KOBJ/build.out" 2>&1 || {
		tail -n 40 "$KOBJ/build.out" >&2
		die "kunit.py build failed (log: $KOBJ/build.out)"
	}
	exec 9>&-
	;;
exec)
	out=${2:?usage: kunit.sh exec DIR}
	mkdir -p "$out"
	rc=0
	kunitpy exec > "$out/kunit.out" 2>&1 || rc=$?
	cp "$KOBJ/test.log" "$out/kunit.log" 2>/dev/null || : > "$out/kunit.log"
	exit $rc
	;;
*)
	die "usage: kunit.sh [run|build|exec DIR]"
	;;
esac
