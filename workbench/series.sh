#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make series: the repo as a git format-patch series against the base tree,
# with proofs.
#
#  1. build/series-git: git repository of build/pristine (one commit, tag
#     "base"; recreated only when the base tree changes).  The patches of
#     workbench/series/patches.list are committed on branch "series"
#     (workbench/series.py), which checks that the last commit is exactly
#     the tree the workbench builds.
#  2. build/series/*.patch + 0000-cover-letter.patch (git format-patch).
#  3. git am of the patches onto a clean checkout of the base
#     (build/series-am) gives the same tree.
#  4. scripts/checkpatch.pl --strict on every patch: 0 errors, warnings,
#     checks (reports in build/series/checkpatch/).
#  5. the kernel (test config) builds after every patch: incremental builds
#     in build/obj-series under the workbench build lock; after the last
#     patch also the headers, the selftests, the sample and tools/lib.
#
# SERIES_BUILD=0 skips 5.  SERIES_CHECKS="dir..." are make check results
# dirs quoted in the cover letter (default: build/obj-{test,debug}/check).
# The summary is printed and kept in build/series/REPORT.
set -euo pipefail
KERNEL=test
. "$(dirname "$0")/lib.sh"
# checkpatch checks SPDX tags with scripts/spdxcheck.py (ply, GitPython)
ensure_deps python3-ply python3-git
ensure_pristine

GITDIR=$BUILD/series-git
AMDIR=$BUILD/series-am
OUT=$BUILD/series
SOBJ=$BUILD/obj-series
mkdir -p "$OUT"
exec 8>"$BUILD/.series.lock"
flock -n 8 || { log "another make series is running; waiting"; flock 8; }

REPORT=$OUT/REPORT.new
: > "$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
fail=0

# ---------------------------------------------------------------- base repo
base_id() {
	echo "$(stat -c '%s %Y' "$TARBALL" 2>/dev/null)"
	sed -n '2,5p' "$PRISTINE/Makefile"
}

ensure_base_repo() {
	if [ -f "$GITDIR/.git/wb-base" ] && cmp -s <(base_id) "$GITDIR/.git/wb-base" &&
	   git -C "$GITDIR" rev-parse -q --verify base >/dev/null; then
		return 0
	fi
	log "creating $GITDIR from $PRISTINE (a few minutes)"
	rm -rf "$GITDIR" "$GITDIR.tmp" "$AMDIR"
	cp -a "$PRISTINE" "$GITDIR.tmp"
	local v d
	d=$(date -u -r "$PRISTINE/Makefile" +%Y-%m-%dT%H:%M:%SZ)
	v=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' \
		"$PRISTINE/Makefile" | paste -sd.)
	(
		cd "$GITDIR.tmp"
		git init -q -b base-branch .
		git config user.name "User Events Team"
		git config user.email kernel-team@user-events.invalid
		git config core.autocrlf false
		git config gc.auto 0
		git add -A -f .
		GIT_AUTHOR_DATE="$d" GIT_COMMITTER_DATE="$d" \
			git commit -q -m "Linux $v (Debian linux-source-6.12, as shipped)"
		git tag base
	)
	base_id > "$GITDIR.tmp/.git/wb-base"
	mv "$GITDIR.tmp" "$GITDIR"
}

# ------------------------------------------------------------- compose
check_summaries() {
	local d k line
	for d in ${SERIES_CHECKS:-$BUILD/obj-test/check $BUILD/obj-debug/check}; do
		[ -f "$d/console.log" ] || continue
		k=$(basename "$(dirname "$d")"); k=${k#obj-}
		line=$(python3 "$WB_DIR/parse-results.py" --console "$d/console.log" \
			--tap-dir "$d/tap" --allowed-skips "$WB_DIR/allowed-skips" \
			2>&1 | tail -n 1) || true
		printf '     %s kernel: %s (%s)\n' "$k" "$line" \
			"$(date -u -r "$d/console.log" '+%Y-%m-%d')"
	done
}

ensure_base_repo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
series_files > "$tmp/series-files"
upstream_removed > "$tmp/removed"
python3 "$WB_DIR/series.py" compose --repo "$REPO" --pristine "$PRISTINE" \
	--git "$GITDIR" --out "$OUT" --series-files "$tmp/series-files" \
	--removed "$tmp/removed" --check-results "$(check_summaries)"
mapfile -t PATCHES < <(cd "$OUT" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-')
mapfile -t COMMITS < <(git -C "$GITDIR" rev-list --reverse base..series)
say "series: ${#PATCHES[@]} patches + cover letter in $OUT"
for p in "${PATCHES[@]}"; do say "  $p"; done

# ------------------------------------------------------------- git am
if [ ! -d "$AMDIR/.git" ] && [ ! -f "$AMDIR/.git" ]; then
	log "creating the clean checkout $AMDIR"
	git -C "$GITDIR" worktree prune
	git -C "$GITDIR" worktree add -q --detach "$AMDIR" base
fi
(
	cd "$AMDIR"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach base
	git clean -q -f -d -x
) || die "cannot reset $AMDIR"
if (cd "$AMDIR" && git am -q --whitespace=error-all \
	"${PATCHES[@]/#/$OUT/}") > "$OUT/am.log" 2>&1 &&
   [ "$(git -C "$AMDIR" rev-parse 'HEAD^{tree}')" = \
     "$(git -C "$GITDIR" rev-parse 'series^{tree}')" ]; then
	say "git am: OK, all ${#PATCHES[@]} patches apply to a clean base checkout; same tree as the series"
else
	say "git am: FAILED (see $OUT/am.log)"
	fail=1
	(cd "$AMDIR" && git am --abort >/dev/null 2>&1) || true
fi

# ------------------------------------------------------------- checkpatch
mkdir -p "$OUT/checkpatch"
rm -f "$OUT"/checkpatch/*.txt
say "checkpatch --strict:"
for p in "${PATCHES[@]}"; do
	r=$OUT/checkpatch/${p%.patch}.txt
	# Debian's python3 first: spdxcheck.py needs its ply and git modules
	(cd "$GITDIR" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl \
		--strict --showfile "$OUT/$p") > "$r" 2>&1 || true
	tot=$(grep -E '^total: ' "$r" | tail -n 1)
	say "  $p: ${tot:-no summary (see $r)}"
	case $tot in
	"total: 0 errors, 0 warnings, 0 checks,"*) ;;
	*)	fail=1
		{ grep -E '(ERROR|WARNING|CHECK): ' "$r" || true; } |
			sed 's/^/      /' | tee -a "$REPORT" ;;
	esac
done

# ------------------------------------------------------------- builds
build_step() {	# $1 = commit
	git -C "$GITDIR" checkout -q -f --detach "$1" || return 1
	SRC=$GITDIR OBJ=$SOBJ
	mkdir -p "$SOBJ"
	if [ ! -f "$SOBJ/.config" ]; then
		kmake -s tinyconfig || return 1
	fi
	fragment > "$SOBJ/.wb-fragment"
	(cd "$SOBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$SOBJ" \
		"$SOBJ/.config" "$SOBJ/.wb-fragment" >/dev/null) || return 1
	kmake -s olddefconfig || return 1
	kmake -s bzImage
}

# the last patch: the full test config, headers and user space
build_user() {
	SRC=$GITDIR OBJ=$SOBJ
	verify_config "$SOBJ/.wb-fragment" "$SOBJ/.config" || return 1
	kmake -s headers_install INSTALL_HDR_PATH="$SOBJ/usr" || return 1
	rm -rf "$SOBJ/selftests" && mkdir -p "$SOBJ/selftests" || return 1
	make -s -C "$GITDIR/tools/testing/selftests/user_events" \
		OUTPUT="$SOBJ/selftests" CC=gcc \
		KHDR_INCLUDES="-isystem $SOBJ/usr/include" || return 1
	mkdir -p "$SOBJ/samples" || return 1
	gcc -O2 -Wall -Wextra -isystem "$SOBJ/usr/include" \
		-o "$SOBJ/samples/example" \
		"$GITDIR/samples/user_events/example.c" || return 1
	if [ -f "$GITDIR/tools/lib/user_events/Makefile" ]; then
		make -s -C "$GITDIR/tools/lib/user_events" \
			O="$SOBJ/lib/user_events" || return 1
	fi
}

# The build lock is taken for each build, not for the whole run, so that
# other workbench builds can go in between.
lock_build() {
	exec 9>"$BUILD/.build.lock"
	if ! flock -n 9; then
		log "waiting for another kernel build (lock $BUILD/.build.lock)"
		flock 9
	fi
}

if [ "${SERIES_BUILD:-1}" = 1 ]; then
	say "builds (test config, O=$SOBJ):"
	i=0
	bfail=0
	for c in "${COMMITS[@]}"; do
		i=$((i + 1))
		subj=$(git -C "$GITDIR" log -1 --format=%s "$c")
		blog=$OUT/build-$(printf '%02d' $i).log
		lock_build
		start=$(date +%s)
		if (build_step "$c") > "$blog" 2>&1; then
			w=$(grep -c -E 'warning:' "$blog" || true)
			say "  $i/${#COMMITS[@]} OK ($(( $(date +%s) - start ))s, $w compiler warnings) $subj"
			[ "$w" = 0 ] || bfail=1
		else
			say "  $i/${#COMMITS[@]} FAILED $subj (see $blog)"
			bfail=1
		fi
		exec 9>&-
		[ $bfail -eq 0 ] || break
	done
	if [ $bfail -eq 0 ]; then
		ulog=$OUT/build-user.log
		lock_build
		if (build_user) > "$ulog" 2>&1; then
			w=$(grep -c -E 'warning:' "$ulog" || true)
			say "  last patch: config fragment complete; headers, selftests ($(find "$SOBJ/selftests" -maxdepth 1 -name '*_test' -type f | wc -l) programs), sample, tools/lib build ($w warnings)"
			[ "$w" = 0 ] || bfail=1
		else
			say "  last patch: user-space build FAILED (see $ulog)"
			bfail=1
		fi
		exec 9>&-
	fi
	git -C "$GITDIR" checkout -q -f series
	[ $bfail -eq 0 ] || fail=1
else
	say "builds: skipped (SERIES_BUILD=0)"
fi

if [ $fail -eq 0 ]; then
	say "make series: OK"
else
	say "make series: FAILED"
fi
mv "$REPORT" "$OUT/REPORT"
echo "(report: $OUT/REPORT)"
[ $fail -eq 0 ]
