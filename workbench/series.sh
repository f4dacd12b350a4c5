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
#     checks (reports in build/series/checkpatch/).  The one warning taken
#     back is "added, moved or deleted file(s), does MAINTAINERS need
#     updating?" for a patch that deletes nothing and whose added files
#     scripts/get_maintainer.pl already puts in the USER EVENTS entry.
#  5. every patch, and the base before them, runs: the kernel (test config)
#     builds in build/obj-series, boots, and runs the selftests present at
#     that patch through the kselftest runner; a test case that passed at
#     the patch before must pass, and any other failure counts unless the
#     case failed at the patch before too (upstream 6.12.117 fails 4 of
#     its own selftest cases on its own kernel, until our core replaces
#     it); results in build/series/run-N/.  After the last patch also the
#     sample and tools/lib build.
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
# Are all files commit $1 adds in the USER EVENTS entry of
# MAINTAINERS as of that commit?
covered_by_entry() {
	local c=$1 f files
	[ -z "$(git -C "$GITDIR" show --format= --name-only --diff-filter=D "$c")" ] ||
		return 1
	files=$(git -C "$GITDIR" show --format= --name-only --diff-filter=A "$c")
	[ -n "$files" ] || return 1
	git -C "$GITDIR" checkout -q -f --detach "$c" || return 1
	for f in $files; do
		(cd "$GITDIR" && perl scripts/get_maintainer.pl --no-git \
			--no-git-fallback --sections -f "$f" 2>/dev/null) |
			grep -x 'USER EVENTS' > /dev/null || return 1
	done
}

mkdir -p "$OUT/checkpatch"
rm -f "$OUT"/checkpatch/*.txt
say "checkpatch --strict:"
for p in "${PATCHES[@]}"; do
	r=$OUT/checkpatch/${p%.patch}.txt
	# Debian's python3 first: spdxcheck.py needs its ply and git modules
	ign=
	if covered_by_entry "${COMMITS[$((10#${p%%-*} - 1))]}"; then
		ign="--ignore FILE_PATH_CHANGES"
	fi
	(cd "$GITDIR" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl \
		--strict --showfile $ign "$OUT/$p") > "$r" 2>&1 || true
	tot=$(grep -E '^total: ' "$r" | tail -n 1)
	say "  $p: ${tot:-no summary (see $r)}${ign:+ (new files in USER EVENTS: get_maintainer.pl)}"
	case $tot in
	"total: 0 errors, 0 warnings, 0 checks,"*) ;;
	*)	fail=1
		{ grep -E '(ERROR|WARNING|CHECK): ' "$r" || true; } |
			sed 's/^/      /' | tee -a "$REPORT" ;;
	esac
done

# ------------------------------------------------------------- runs
# Every commit, the base first: build the kernel (test config), build and
# install the selftests present at that commit with the kernel's own
# "make install" of the collection, boot, run them with run_kselftest.sh
# (guest-check.sh) and list every test case's result.  A case that passed
# at the commit before and does not pass now fails the series; so does a
# commit whose kernel does not build, boot or pass its own selftests.
# Upstream's four selftests stay in the tree, so they run at every commit.
# A commit that changes neither the kernel image nor a selftest binary
# keeps the results of the commit before it.
build_kernel_at() {	# $1 = commit
	git -C "$GITDIR" checkout -q -f --detach "$1" || return 1
	SRC=$GITDIR OBJ=$SOBJ
	mkdir -p "$SOBJ"
	[ -f "$SOBJ/.config" ] || kmake -s tinyconfig || return 1
	fragment > "$SOBJ/.wb-fragment"
	(cd "$SOBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$SOBJ" \
		"$SOBJ/.config" "$SOBJ/.wb-fragment" >/dev/null) || return 1
	kmake -s olddefconfig || return 1
	kmake -s "$(basename "$KIMAGE")" || return 1
	rm -rf "$SOBJ/usr"
	kmake -s headers_install INSTALL_HDR_PATH="$SOBJ/usr" >/dev/null
}

build_tests_at() {	# $1 = output dir
	SRC=$GITDIR OBJ=$SOBJ SELFTESTS=$GITDIR/tools/testing/selftests/user_events \
		SELFTESTS_OUT=$1 build_selftests
}

# The last commit: the full test config, and the user space that is not a
# selftest (the sample, tools/lib) builds too.
build_user() {
	SRC=$GITDIR OBJ=$SOBJ
	verify_config "$SOBJ/.wb-fragment" "$SOBJ/.config" || return 1
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

# Fingerprint of what a run depends on: the kernel image and the sources
# of the tests (their binaries embed the path they were built in).
fingerprint() {
	{ sha256sum < "$SOBJ/$KIMAGE"
	  git -C "$GITDIR" rev-parse HEAD:tools/testing/selftests \
		HEAD:tools/lib 2>/dev/null; } | sha256sum | cut -c1-16
}

# The cases of $2 (lines SUITE-KIND/SUITE/CASE) that do not pass when
# their programs run once more, alone, in a boot of their own: a program
# with a timing-dependent test (upstream's implementation frees events
# late, which its own selftests race with) passes then.
retry_lost() {	# $1 = run dir, $2 = lost cases; prints what is still lost
	local d=$1 lost=$2 r=$1/retry p
	rm -rf "$r"
	mkdir -p "$r/progs"
	for p in $(echo "$lost" | awk -F/ '$1 == "selftest" { print $2 }' | sort -u); do
		ln "$d/selftests/$p" "$r/progs/$p" && echo "$p" >> "$r/progs/.list"
	done
	if [ -f "$r/progs/.list" ]; then
		TIMEOUT=900 VM_BZIMAGE=$SOBJ/$KIMAGE VM_RESULTS=$r/vm VM_QUIET=1 \
			"$WB_DIR/vm.sh" "sh $WB_DIR/guest-check.sh $r/progs 300" \
			> "$r/output" 2>&1 || true
		python3 "$WB_DIR/parse-results.py" --tap-dir "$r/vm/tap" \
			--cases "$r/cases" > "$r/results.txt" 2>&1 || true
	fi
	touch "$r/cases"
	echo "$lost" | sort -u | join -v 1 - <(awk '$4 == "pass" {
		print $1 "/" $2 "/" $3 }' "$r/cases" | sort -u)
}

run_at() {	# $1 = index, $2 = commit
	local i=$1 c=$2 d=$OUT/run-$1 subj blog start rc=0
	subj=$(git -C "$GITDIR" log -1 --format=%s "$c")
	[ "$i" = 0 ] && subj="base: $subj"
	blog=$OUT/build-$(printf '%02d' "$i").log
	rm -rf "$d"
	mkdir -p "$d"
	start=$(date +%s)
	lock_build
	if ! (build_kernel_at "$c" && build_tests_at "$d/selftests") \
		> "$blog" 2>&1; then
		exec 9>&-
		say "  $i $subj: build FAILED (see $blog)"
		return 1
	fi
	if [ "$i" = "${#COMMITS[@]}" ] && ! (build_user) >> "$blog" 2>&1; then
		exec 9>&-
		say "  $i $subj: user-space build FAILED (see $blog)"
		return 1
	fi
	exec 9>&-
	local w fp rc_p=0
	w=$(grep -c -E 'warning:' "$blog" || true)
	fp=$(fingerprint)
	echo "$fp" > "$d/fingerprint"
	if [ -n "$prev" ] && [ "$fp" = "$(cat "$OUT/run-$prev/fingerprint")" ]; then
		cp "$OUT/run-$prev/cases" "$d/cases"
		echo "same kernel and tests as $prev" > "$d/summary"
	else
		TIMEOUT=1800 VM_BZIMAGE=$SOBJ/$KIMAGE VM_RESULTS=$d/vm VM_QUIET=1 \
			"$WB_DIR/vm.sh" "sh $WB_DIR/guest-check.sh $d/selftests 300" \
			> "$d/output" 2>&1 || rc=$?
		python3 "$WB_DIR/parse-results.py" --console "$d/vm/console.log" \
			--tap-dir "$d/vm/tap" --kselftest-dir "$d/vm/kselftest" \
			--allowed-skips "$WB_DIR/allowed-skips" --cases "$d/cases" \
			> "$d/results.txt" 2>&1 || rc_p=1
		tail -n 1 "$d/results.txt" > "$d/summary"
	fi
	# Test cases that failed at the patch before too, and upstream's own
	# selftests (UPSTREAM_SELFTESTS) while upstream's implementation is
	# the tree's (the base and the patches before the core: its deferred
	# deletion makes some of their cases pass or fail by timing), are
	# reported, not counted; any other failure, a skip not allowed or a
	# problem of the run is.
	local fails carried= new theirs=
	if git -C "$GITDIR" cat-file -e "$c:kernel/trace/trace_events_user.c" \
		2>/dev/null; then
		theirs="^selftest/($(IFS='|'; echo "${UPSTREAM_SELFTESTS[*]}"))/"
	fi
	fails=$(awk '$4 == "fail" { print $1 "/" $2 "/" $3 }' "$d/cases" | sort -u)
	if [ "$rc_p" = 1 ]; then
		new=$fails
		[ -z "$prev" ] || new=$(join -v 1 <(echo "$fails") \
			<(awk '$4 == "fail" { print $1 "/" $2 "/" $3 }' \
				"$OUT/run-$prev/cases" | sort -u))
		[ -z "$theirs" ] || new=$(echo "$new" | grep -v -E "$theirs" || true)
		if [ -n "$fails" ] && { [ -z "$new" ] || [ "$i" = 0 ]; } &&
		   ! grep -q '^error:' "$d/results.txt" &&
		   grep -q ' 0 skipped$' "$d/summary"; then
			carried=$fails
		else
			rc=1
		fi
	fi
	local lost=
	if [ -n "$prev" ]; then
		lost=$(join -v 1 <(awk '$4 == "pass" { print $1 "/" $2 "/" $3 }' \
				"$OUT/run-$prev/cases" | sort -u) \
			<(awk '$4 == "pass" { print $1 "/" $2 "/" $3 }' \
				"$d/cases" | sort -u))
	fi
	[ -z "$theirs" ] || [ -z "$lost" ] ||
		lost=$(echo "$lost" | grep -v -E "$theirs" || true)
	local flaky=
	if [ -n "$lost" ] && [ -f "$d/results.txt" ]; then
		flaky=$lost
		lost=$(retry_lost "$d" "$lost")
		flaky=$(echo "$flaky" | join -v 1 - <(echo "$lost"))
	fi
	say "  $i $subj: $(cat "$d/summary") ($(( $(date +%s) - start ))s, $w compiler warnings)"
	if [ -n "$carried" ]; then
		local where="at the patch before too"
		[ -z "$theirs" ] || where="upstream's own, on upstream's implementation"
		say "      failing $where, not counted: $(echo "$carried" | wc -l)"
		echo "$carried" | head -n 20 | sed 's/^/        /' | tee -a "$REPORT"
	fi
	if [ -n "$flaky" ]; then
		say "      passed before, failed now, passed again alone (flaky): $(echo "$flaky" | wc -l)"
		echo "$flaky" | head -n 20 | sed 's/^/        /' | tee -a "$REPORT"
	fi
	if [ -n "$lost" ]; then
		say "      passed before, not now: $(echo "$lost" | wc -l)"
		echo "$lost" | head -n 20 | sed 's/^/        /' | tee -a "$REPORT"
		rc=1
	fi
	[ "$w" = 0 ] || rc=1
	prev=$i
	return $rc
}

if [ "${SERIES_BUILD:-1}" = 1 ]; then
	say "builds and runs (test config, O=$SOBJ; results in $OUT/run-N):"
	prev=
	bfail=0
	run_at 0 base || bfail=1
	i=0
	for c in "${COMMITS[@]}"; do
		i=$((i + 1))
		run_at "$i" "$c" || bfail=1
	done
	git -C "$GITDIR" checkout -q -f series
	[ $bfail -eq 0 ] || fail=1
else
	say "builds and runs: skipped (SERIES_BUILD=0)"
fi

if [ $fail -eq 0 ]; then
	say "make series: OK"
else
	say "make series: FAILED"
fi
mv "$REPORT" "$OUT/REPORT"
echo "(report: $OUT/REPORT)"
[ $fail -eq 0 ]
