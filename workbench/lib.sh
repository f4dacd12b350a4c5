# SPDX-License-Identifier: GPL-2.0
# Common helpers for the user_events workbench.  Sourced, not executed.

WB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$WB_DIR/.." && pwd)
BUILD=$REPO/build
PRISTINE=$BUILD/pristine
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KERNEL=${KERNEL:-test}
NPROC=$(nproc)

# Paths of the series overlaid from the repo onto build/src.
SERIES_PATHS=(kernel/trace include/uapi/linux/user_events.h
	      include/linux/user_events.h samples/user_events
	      tools/testing/selftests/user_events tools/lib/user_events
	      tools/include/uapi/linux/user_events.h
	      Documentation/trace/user_events.rst)

# ccache hashes paths relative to the repo and not the build directory, so
# that a clone in another folder (CI's) finds what this one compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$REPO}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

log() { printf '[wb] %s\n' "$*" >&2; }
die() { printf '[wb] ERROR: %s\n' "$*" >&2; exit 1; }

# ksft: the boot config plus only the selftests' own "config" file, as
# "make kselftest-merge" would give (make check KERNEL=ksft, x86_64)
case $KERNEL in
test|debug|upstream|ksft) ;;
*) die "KERNEL must be test, debug, upstream or ksft (got '$KERNEL')" ;;
esac

# ARCH=x86_64 (default), arm64 or s390x; PAGES=4k (default) or 64k (arm64).
# The other architectures build with Debian's cross compilers into
# build/obj-<arch>[-64k][-<kernel>] and boot an initramfs made by
# workbench/arch/initramfs.sh (see workbench/arch/README).
ARCH=${ARCH:-x86_64}
PAGES=${PAGES:-4k}
case $ARCH/$PAGES in
x86_64/4k) KARCH=x86_64 CROSS= KIMAGE=arch/x86/boot/bzImage ;;
arm64/4k|arm64/64k)
	KARCH=arm64 CROSS=aarch64-linux-gnu- KIMAGE=arch/arm64/boot/Image ;;
s390x/4k) KARCH=s390 CROSS=s390x-linux-gnu- KIMAGE=arch/s390/boot/bzImage ;;
*) die "ARCH must be x86_64, arm64 or s390x, PAGES 4k or 64k (arm64 only); got ARCH=$ARCH PAGES=$PAGES" ;;
esac
if [ "$ARCH" = x86_64 ]; then
	OBJ=$BUILD/obj-$KERNEL
else
	[ "$KERNEL" = upstream ] && die "KERNEL=upstream is x86_64 only"
	OBJ=$BUILD/obj-$ARCH
	[ "$PAGES" = 4k ] || OBJ+=-$PAGES
	[ "$KERNEL" = test ] || OBJ+=-$KERNEL
fi
if [ "$KERNEL" = upstream ]; then SRC=$BUILD/upstream; else SRC=$BUILD/src; fi
# The selftests' compiler: static programs for a foreign guest (its
# userspace is an initramfs); build_selftests32 sets them for i686.
SELFTEST_CC=${SELFTEST_CC:-${CROSS}gcc}
[ -n "$CROSS" ] && SELFTEST_LDFLAGS=${SELFTEST_LDFLAGS:--static}
SELFTEST_LDFLAGS=${SELFTEST_LDFLAGS:-}

# Install the Debian packages we need, only if some are missing.
ensure_deps() {
	local pkgs=(make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio
		    kmod dwarves python3 xz-utils ccache qemu-system-x86 patch git
		    linux-perf trace-cmd rsync gcc-i686-linux-gnu
		    libc6-dev-i386-cross gdb "$@")
	local missing=() p
	case $ARCH in
	arm64) pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm) ;;
	s390x) pkgs+=(gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-system-misc) ;;
	esac
	for p in "${pkgs[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ -e "$TARBALL" ] || missing+=(linux-source-6.12)
	# a foreign guest's busybox: Debian's package, unpacked in build/arch
	[ "$ARCH" = x86_64 ] || "$WB_DIR/arch/initramfs.sh" busybox
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing missing packages: ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y \
		--no-install-recommends "${missing[@]}"
}

# Say why a vm.sh run failed, from its exit status (nothing for 0).
vm_explain() {
	case $1 in
	0) ;;
	124) log "FAIL: guest timed out" ;;
	125) log "FAIL: guest did not finish (crash?)" ;;
	126) log "FAIL: kernel splat in the console log" ;;
	*) log "FAIL: guest command exited $1" ;;
	esac
}

ensure_pristine() {
	[ -f "$PRISTINE/Makefile" ] && return 0
	log "extracting $TARBALL into $PRISTINE"
	mkdir -p "$BUILD"
	rm -rf "$BUILD/linux-source-6.12" "$PRISTINE"
	tar -C "$BUILD" -xf "$TARBALL"
	mv "$BUILD/linux-source-6.12" "$PRISTINE"
}

# Copy $1 to $2 only if the content differs (keeps mtimes => fast rebuilds).
sync_file() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
		return 0
	fi
	return 1
}

copy_tree() {	# $1 = destination
	[ -f "$1/Makefile" ] && return 0
	log "creating $1 from $PRISTINE"
	rm -rf "$1.tmp"
	cp -a "$PRISTINE" "$1.tmp"
	mv "$1.tmp" "$1"
}

# Files under the series paths that exist in the repo (tracked or untracked
# but not ignored), relative to the repo root.
series_files() {
	(cd "$REPO" &&
	 if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -co --exclude-standard -- "${SERIES_PATHS[@]}"
	 else
		find "${SERIES_PATHS[@]}" -type f 2>/dev/null
	 fi | while read -r f; do [ -f "$f" ] && echo "$f"; done | sort -u)
}

# Upstream files the series replaces: removed from build/src unless the
# repo provides a file at the same path.
upstream_removed() {
	(cd "$PRISTINE" && {
		echo kernel/trace/trace_events_user.c
		find tools/testing/selftests/user_events samples/user_events \
			-type f 2>/dev/null
	} | sort -u)
}

# Bring build/src up to date: patches, deletions, overlay.  Only files whose
# content changes are touched.
prepare_src() {
	copy_tree "$SRC"
	local state=$SRC/.wb
	mkdir -p "$state"
	local changed=0 f

	# 1) patches: apply onto pristine copies in a scratch dir, then sync.
	local tmp
	tmp=$(mktemp -d)
	local patched=()
	for p in "$WB_DIR"/patches/*.patch; do
		[ -e "$p" ] || continue
		while read -r f; do patched+=("$f"); done < <(
			sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
	done
	for f in "${patched[@]}"; do
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$PRISTINE/$f" "$tmp/$f"
	done
	for p in "$WB_DIR"/patches/*.patch; do
		[ -e "$p" ] || continue
		patch -s -p1 -d "$tmp" --no-backup-if-mismatch < "$p" ||
			die "patch $(basename "$p") does not apply"
	done
	printf '%s\n' "${patched[@]}" | sort -u > "$state/patched.new"

	# 2) overlay list
	series_files > "$state/overlay.new"

	# files no longer patched / overlaid: restore pristine or delete
	local removed
	removed=$(upstream_removed)
	for kind in patched overlay; do
		[ -f "$state/$kind" ] || continue
		comm -23 "$state/$kind" <(sort -u "$state/patched.new" "$state/overlay.new") |
		while read -r f; do
			if [ -f "$PRISTINE/$f" ] && ! grep -qxF "$f" <<<"$removed"; then
				sync_file "$PRISTINE/$f" "$SRC/$f" && log "restored $f"
			else
				rm -f "$SRC/$f" && log "removed $f"
			fi
		done
	done

	for f in "${patched[@]}"; do
		grep -qxF "$f" "$state/overlay.new" && continue
		sync_file "$tmp/$f" "$SRC/$f" && log "patched $f"
	done
	rm -rf "$tmp"

	# 3) remove the upstream implementation/selftests we replace
	while read -r f; do
		grep -qxF "$f" "$state/overlay.new" && continue
		[ -e "$SRC/$f" ] && rm -f "$SRC/$f" && log "deleted upstream $f"
	done <<<"$removed"

	# 4) overlay the series files from the repo
	while read -r f; do
		[ -n "$f" ] || continue
		sync_file "$REPO/$f" "$SRC/$f" && log "updated $f"
	done < "$state/overlay.new"

	mv "$state/patched.new" "$state/patched"
	mv "$state/overlay.new" "$state/overlay"
}

prepare_tree() {
	ensure_pristine
	if [ "$KERNEL" = upstream ]; then
		copy_tree "$SRC"
	else
		prepare_src
	fi
}

# The config fragment for $KERNEL (printed on stdout).
fragment() {
	local cfg=$WB_DIR/config
	case $KERNEL in
	test) cat "$cfg/boot.config" "$cfg/test.config" ;;
	# the debug kernel chooses its own stack initialisation
	debug) cat "$cfg/boot.config" "$cfg/test.config" |
		grep -v '^CONFIG_INIT_STACK_'
		cat "$cfg/debug.config" ;;
	upstream) cat "$cfg/boot.config" "$cfg/test.config" |
		grep -v 'USER_EVENTS_KUNIT_TEST' ;;
	# what "make kselftest-merge" adds for user_events: its config only
	ksft) cat "$cfg/boot.config" \
		"$REPO/tools/testing/selftests/user_events/config" ;;
	esac |
	if [ "$ARCH" = x86_64 ]; then cat; else
		# the x86-only symbols out, the architecture's own in
		grep -vxEf <(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)$/\1=.*/p' \
			"$WB_DIR/arch/x86-only.list")
		cat "$WB_DIR/arch/$ARCH.config"
		if [ -f "$WB_DIR/arch/$ARCH-$PAGES.config" ]; then
			cat "$WB_DIR/arch/$ARCH-$PAGES.config"
		fi
	fi
	# EXTRA_CONFIG="CONFIG_FOO=y CONFIG_BAR=y" adds symbols (e.g. to try
	# an existing KUnit suite).
	local c
	for c in ${EXTRA_CONFIG:-}; do echo "$c"; done
}

# Check that every line of the fragment made it into .config.
verify_config() {
	local frag=$1 cfg=$2 missing=() line sym
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$cfg" || missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo unset))")
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			grep -q "^$sym=" "$cfg" && missing+=("$line (got: $(grep "^$sym=" "$cfg"))")
			;;
		esac
	done < "$frag"
	if [ ${#missing[@]} -ne 0 ]; then
		printf '[wb] config symbol not as requested: %s\n' "${missing[@]}" >&2
		return 1
	fi
}

kmake() {
	local cc=${CROSS}gcc
	command -v ccache >/dev/null && cc="ccache $cc"
	make -C "$SRC" O="$OBJ" ARCH="$KARCH" CROSS_COMPILE="$CROSS" CC="$cc" \
		-j"$NPROC" ${KMAKE_FLAGS:-} "$@"
}

configure() {
	mkdir -p "$OBJ"
	local frag=$OBJ/.wb-fragment
	fragment > "$frag.new"
	if [ -f "$OBJ/.config" ] && cmp -s "$frag.new" "$frag"; then
		rm -f "$frag.new"
		return 0
	fi
	log "configuring $OBJ (tinyconfig + fragment)"
	kmake -s tinyconfig
	(cd "$OBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" \
		"$OBJ/.config" "$frag.new" >/dev/null)
	kmake -s olddefconfig
	verify_config "$frag.new" "$OBJ/.config" || die "config check failed"
	mv "$frag.new" "$frag"
}

# Build kernel + headers, serialized with a lock (one kernel build at a time).
build_kernel() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.build.lock"
	if ! flock -n 9; then
		log "waiting for another kernel build (lock $BUILD/.build.lock)"
		flock 9
	fi
	prepare_tree
	configure
	log "building $KERNEL kernel ($ARCH) in $OBJ"
	kmake -s "$(basename "$KIMAGE")"
	kmake -s headers_install INSTALL_HDR_PATH="$OBJ/usr" >/dev/null
	verify_config "$OBJ/.wb-fragment" "$OBJ/.config" || die "config check failed"
	exec 9>&-
}

# Host-side userspace builds against the installed headers.
build_sample() {
	mkdir -p "$OBJ/samples"
	$SELFTEST_CC $SELFTEST_LDFLAGS -O2 -Wall -Wextra \
		-isystem "$OBJ/usr/include" \
		-o "$OBJ/samples/example" "$REPO/samples/user_events/example.c"
	# the library's checks run on the host (x86_64 only)
	[ -z "$CROSS" ] || return 0
	# libuser_events (.a, .so, .pc, example) into $OBJ/lib/user_events
	make -s -C "$REPO/tools/lib/user_events" O="$OBJ/lib/user_events" \
		check >/dev/null || die "tools/lib/user_events failed to build"
}

# Selftest sources: SELFTESTS=dir overrides (default: the series' dir).
selftest_src() {
	if [ -n "${SELFTESTS:-}" ]; then
		(cd "$SELFTESTS" && pwd)
	else
		[ -f "$BUILD/src/Makefile" ] || (KERNEL=test; prepare_src)
		echo "$BUILD/src/tools/testing/selftests/user_events"
	fi
}

# Upstream 6.12's own user_events selftests, kept unmodified in the
# series' selftests directory (UE_UPSTREAM_TESTS of its Makefile, part of
# every build_selftests), built alone into $1 against our uapi headers
# (make compat).
UPSTREAM_SELFTESTS=(abi_test dyn_test ftrace_test perf_test)
build_upstream_selftests() {
	local out=$1 dir
	dir=$(selftest_src)
	make -s -C "$dir" OUTPUT="$out" KHDR_INCLUDES="-isystem $OBJ/usr/include" \
		CC="$SELFTEST_CC" USERLDFLAGS="$SELFTEST_LDFLAGS" \
		"${UPSTREAM_SELFTESTS[@]/#/$out/}" >> "$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; die "upstream selftests failed to build"; }
}

# libuser_events' tests (tools/lib/user_events/tests of the series tree)
# with the selftests' compiler, objects in $1/obj: lib_test joins the
# selftests $1 as a member of the runner's collection $2.
build_lib_tests() {
	local out=$1 col=$2 src=$BUILD/src/tools/lib/user_events/tests
	[ -f "$src/Makefile" ] || return 0
	if ! make -s -C "$src" O="$out/obj/libuser_events" CC="$SELFTEST_CC" \
		LDFLAGS="$SELFTEST_LDFLAGS" >> "$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		die "libuser_events tests failed to build"
	fi
	ln "$out/obj/libuser_events/lib_test" "$out/ksft/$col/"
	ln "$out/obj/libuser_events/lib_test" "$out/"
	echo "$col:lib_test" >> "$out/ksft/kselftest-list.txt"
}

build_selftests() {
	local dir out target= t
	dir=$(selftest_src)
	out=${SELFTESTS_OUT:-$OBJ/selftests}	# make check: a private copy
	rm -rf "$out"
	mkdir -p "$out"
	local inc="-isystem $OBJ/usr/include"
	# the harness: series tree, else pristine
	local harness=$BUILD/src/tools/testing/selftests
	[ -f "$harness/kselftest_harness.h" ] || harness=$PRISTINE/tools/testing/selftests
	[ -d "$dir" ] || { log "no selftests dir $dir"; return 0; }
	if [ -f "$dir/Makefile" ] && [ -f "$dir/../lib.mk" ]; then
		# The kernel's way: "make install" of the collection puts
		# run_kselftest.sh, the runner, settings and the programs in
		# $out/ksft (objects in $out/obj); guest-check.sh runs it.
		target=$(basename "$dir")
		log "building selftests: kselftest install of $dir"
		# (SELFTESTS_UPSTREAM=0: without upstream's, see build_selftests32)
		local up=()
		[ "${SELFTESTS_UPSTREAM:-1}" = 1 ] || up=(UE_UPSTREAM_TESTS=)
		if ! make -s -C "$dir/.." TARGETS="$target" BUILD="$out/obj" \
			KSFT_INSTALL_PATH="$out/ksft" KHDR_INCLUDES="$inc" \
			CC="$SELFTEST_CC" USERLDFLAGS="$SELFTEST_LDFLAGS" \
			"${up[@]}" install > "$out/build.log" 2>&1; then
			cat "$out/build.log" >&2
			die "selftests build failed"
		fi
		# the programs also directly in $out (make vm CMD=...)
		find "$out/ksft/$target" -maxdepth 1 -type f -perm -u+x \
			-exec ln {} "$out/" \;
		[ -n "${SELFTESTS:-}" ] || build_lib_tests "$out" "$target"
	else
		# the tests do #include "../kselftest_harness.h": give them a
		# directory whose parent holds the harness headers.
		local hinc=$OBJ/selftests-inc
		rm -rf "$hinc"; mkdir -p "$hinc/sub"
		ln -s "$harness"/*.h "$hinc/"
		inc="$inc -I $hinc/sub"
		local c
		for c in "$dir"/*.c; do
			[ -e "$c" ] || continue
			if ! $SELFTEST_CC $SELFTEST_LDFLAGS -g -Wall $inc -I "$dir" \
				-Wl,-no-as-needed -o "$out/$(basename "$c" .c)" \
				"$c" -lpthread -lrt -lm >> "$out/build.log" 2>&1; then
				cat "$out/build.log" >&2
				die "selftest $c failed to build"
			fi
		done
	fi
	# whatever was built: executables directly in $out
	find "$out" -maxdepth 1 -type f -perm -u+x -printf '%f\n' | sort > "$out/.list"
	# installed but not in the runner's list: TEST_GEN_PROGS_EXTENDED,
	# run by guest-check.sh with a budget of their own
	if [ -f "$out/ksft/kselftest-list.txt" ]; then
		sed -n "s/^$target://p" "$out/ksft/kselftest-list.txt" |
			sort | comm -23 "$out/.list" - > "$out/.extended"
	fi
	log "selftests: $(tr '\n' ' ' < "$out/.list")(warnings: $(grep -c 'warning:' "$out/build.log" || true), see $out/build.log)"
}

# The selftests once more as 32-bit x86 programs (static, i686 cross
# compiler: gcc-multilib conflicts with Debian's other cross compilers),
# into $1 (default $OBJ/selftests32), for the x86_64 test kernel's
# IA32_EMULATION.  Upstream's own selftests are left out: they cast
# pointers to __u64 directly, which sign-extends 32-bit addresses above
# 2 GiB (the stack), and they are built unmodified.
build_selftests32() {
	[ "$ARCH" = x86_64 ] || return 0
	SELFTEST_CC=i686-linux-gnu-gcc SELFTEST_LDFLAGS=-static \
		SELFTESTS_UPSTREAM=0 SELFTESTS_OUT=${1:-$OBJ/selftests32} \
		build_selftests
}

# Add the 32-bit programs of $2 (build_selftests32) to the selftests of $1
# as NAME32: hard links next to the 64-bit ones, in the runner's list (or
# in .extended with the 64-bit program), so they run in the same boot
# and are counted as their own suites (reg_test32, ...).  perfcmd_test is
# left out: it tests perf's decoding of records (a minute of perf record
# and perf script), which a 32-bit writer does not change.
merge_selftests32() {
	local dir=$1 dir32=$2 t col=
	[ -f "$dir/ksft/kselftest-list.txt" ] &&
		col=$(sed -n '1s/:.*//p' "$dir/ksft/kselftest-list.txt")
	for t in $(cat "$dir32/.list"); do
		case $t in perfcmd_test) continue ;; esac
		ln -f "$dir32/$t" "$dir/${t}32"
		echo "${t}32" >> "$dir/.list"
		[ -n "$col" ] || continue
		ln -f "$dir32/$t" "$dir/ksft/$col/${t}32"
		if grep -qxF "$t" "$dir/.extended" 2>/dev/null; then
			echo "${t}32" >> "$dir/.extended"
		else
			echo "$col:${t}32" >> "$dir/ksft/kselftest-list.txt"
		fi
	done
	sort -o "$dir/.list" "$dir/.list"
	log "32-bit selftests added to $dir: $(grep -x '.*32' "$dir/.list" | tr '\n' ' ')"
}

# Kernel splats in a guest console log.  Every line that starts or names a
# kernel report counts (BUG/WARNING/Oops/panic, KASAN, UBSAN, lockdep,
# PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, refcount, kmemleak, stalls,
# hung tasks, stack dumps), except lines matching a regex in
# workbench/splat-ignore.  Prints the offending lines and the reports
# around them on stderr; returns 1 when there is any.
SPLAT_RE='BUG:|WARNING:|kernel BUG at|Oops|general protection fault|Kernel panic'
SPLAT_RE+='|KASAN:|UBSAN:|KFENCE:|kmemleak: [0-9]+ new suspected|unreferenced object 0x'
SPLAT_RE+='|possible circular locking|inconsistent lock state|possible recursive locking'
SPLAT_RE+='|possible irq lock inversion|bad unlock balance|held lock freed'
SPLAT_RE+='|lock held when returning to user|DEBUG_LOCKS_WARN_ON|non-static key'
SPLAT_RE+='|suspicious RCU usage|sleeping function called from invalid context'
SPLAT_RE+='|scheduling while atomic|list_(add|del) corruption|refcount_t: '
SPLAT_RE+='|detected stalls?|soft lockup|hard LOCKUP|blocked for more than|Call Trace:'
splat_scan() {
	local log=$1 ign=$WB_DIR/splat-ignore hits
	[ -f "$log" ] || return 0
	hits=$(grep -anE "$SPLAT_RE" "$log" |
	       if [ -f "$ign" ] && grep -qv '^[[:space:]]*\(#\|$\)' "$ign"; then
			grep -avEf <(grep -v '^[[:space:]]*\(#\|$\)' "$ign")
	       else cat; fi || true)
	[ -n "$hits" ] || return 0
	log "kernel splat in $log: $(wc -l <<<"$hits") offending line(s):"
	sed 's/^/[wb]   /' <<<"$hits" | head -n 60 >&2
	log "the reports (3 lines before, 45 after each; at most 400 lines):"
	cut -d: -f1 <<<"$hits" | awk -v f="$log" '
		{ s = $1 - 3; e = $1 + 45; if (s < 1) s = 1
		  for (i = s; i <= e; i++) want[i] = 1 }
		END { n = 0
		  while ((getline l < f) > 0) {
			n++
			if (n in want) { if (n - 1 != last && last) print "    ..."
					 print l; last = n }
		  } }' | head -n 400 >&2
	return 1
}
