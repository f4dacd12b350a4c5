#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: build, boot once per kernel, collect KUnit (console) +
# selftest (TAP) results, summarize.
#
#   check.sh                the kernel in $KERNEL (test|debug|upstream)
#   check.sh K1 K2 ...      each kernel (plain "make check": test debug):
#                           all are built first, then booted at the same
#                           time; per-suite lines for each kernel, then ONE
#                           final "N passed, M failed, K skipped" line that
#                           sums them; fails if any kernel fails.
#
# Environment:
#   CHECK_RESULTS=dir   results (console log, TAP) in dir, or dir/<kernel>
#                       with several kernels (default build/obj-<kernel>/check)
#   CHECK_PARALLEL=0    boot the kernels one after the other, streaming the
#                       output (default 1: at the same time, output buffered;
#                       ~10 min instead of ~18 for test + debug)
#   SELFTESTS=dir       selftest sources to use instead of the series' ones
#   SELFTEST_TIMEOUT=s  bound for each selftest binary in the guest when
#                       there is no kselftest install (300; otherwise the
#                       runner applies the collection's "settings")
#   KUNIT_PY=0          test kernel: no kunit.py run (workbench/kunit.sh)
#   TIMEOUT=s           bound for one boot (vm.sh: 600; debug kernel: 2400)
#   CHECK_PHASE=build|run  (internal) only build, or only boot and summarize
set -euo pipefail
# The whole script is one { } block: bash parses it completely before it
# runs, so an edit of this file cannot break runs that are in progress.
{
WB_DIR=$(cd "$(dirname "$0")" && pwd)
# the guest and the selftest build see absolute paths only
[ -n "${CHECK_RESULTS:-}" ] && CHECK_RESULTS=$(realpath -m "$CHECK_RESULTS")

# Seconds since $1 (date +%s.%N), one decimal.
since() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

# ---------------------------------------------------------------------
# Several kernels: one sub-run of this script per kernel and phase.
if [ $# -gt 1 ]; then
	. "$WB_DIR/lib.sh"
	kernels=("$@")
	resdir() {
		if [ -n "${CHECK_RESULTS:-}" ]; then
			echo "$CHECK_RESULTS/$1"
		else
			echo "$BUILD/obj-$1/check"
		fi
	}
	t0=$(date +%s.%N)
	declare -A btime
	for k in "${kernels[@]}"; do
		t=$(date +%s.%N)
		log "===== building the $k kernel"
		if ! KERNEL=$k CHECK_PHASE=build CHECK_RESULTS=$(resdir "$k") \
			"$WB_DIR/check.sh"; then
			log "FAIL: building the $k kernel failed"
			echo "0 passed, 1 failed, 0 skipped"
			exit 1
		fi
		btime[$k]=$(since "$t")
	done
	[ -n "${CHECK_RESULTS:-}" ] && mkdir -p "$CHECK_RESULTS"
	run_one() {	# $1 = kernel; output to stdout
		local k=$1 res t rc=0
		res=$(resdir "$k")
		t=$(date +%s.%N)
		KERNEL=$k CHECK_PHASE=run CHECK_RESULTS=$res CHECK_LABEL=$k \
			VM_QUIET=1 "$WB_DIR/check.sh" 2>&1 || rc=$?
		echo "$rc $(since "$t")" > "$res.rc"
	}
	if [ "${CHECK_PARALLEL:-1}" = 1 ]; then
		log "booting ${kernels[*]} at the same time (results when all are done)"
		pids=()
		for k in "${kernels[@]}"; do
			mkdir -p "$(resdir "$k")"
			run_one "$k" > "$(resdir "$k").out" &
			pids+=($!)
		done
		wait "${pids[@]}" || true
		for k in "${kernels[@]}"; do cat "$(resdir "$k").out"; done
	else
		for k in "${kernels[@]}"; do
			mkdir -p "$(resdir "$k")"
			run_one "$k" | tee "$(resdir "$k").out"
		done
	fi

	echo
	echo "===== all kernels"
	tp=0 tf=0 ts=0 bad=0
	for k in "${kernels[@]}"; do
		res=$(resdir "$k")
		rc=1 secs=? p=0 f=0 s=0
		[ -f "$res.rc" ] && read -r rc secs < "$res.rc"
		[ -f "$res/summary" ] && read -r p f s < "$res/summary"
		# a kernel without any result (crash before the tests) counts
		# as one failure so the sum cannot look clean
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
		[ "$rc" -eq 0 ] || bad=1
		printf '%-8s kernel  passed %4d  failed %3d  skipped %3d  %s  (build %ss, boot+tests %ss, %s)\n' \
			"$k" "$p" "$f" "$s" "$([ "$rc" -eq 0 ] && echo ok || echo FAIL)" \
			"${btime[$k]}" "$secs" "$res"
	done
	# CI keeps only the tail of this output: name every failed test and
	# the harness lines that say why, just above the total.
	for k in "${kernels[@]}"; do
		res=$(resdir "$k")
		for tap in "$res"/tap/*.tap; do
			[ -f "$tap" ] || continue
			grep -q -E '^ *not ok' "$tap" || continue
			echo "--- $k kernel, $(basename "$tap" .tap): failed tests"
			{ grep -B 6 -E '^ *not ok' "$tap" || true; } |
				{ grep -v -E '^ *ok ' || true; } |
				tail -n 40 | sed 's/^/    /'
		done
		# KUnit reports in the console log, selftests only in tap/
		{ grep -h -B 4 -E '\] +not ok [0-9]' "$res/console.log" \
			"$res/kunit.log" 2>/dev/null || true; } |
			tail -n 20 | sed "s/^/    $k kunit: /"
	done
	log "make check: total $(since "$t0")s"
	echo "$tp passed, $tf failed, $ts skipped"
	exit "$bad"
fi

# ---------------------------------------------------------------------
# One kernel.
[ $# -eq 1 ] && export KERNEL=$1
. "$WB_DIR/lib.sh"
phase=${CHECK_PHASE:-all}
RES=${CHECK_RESULTS:-$OBJ/check}
# The selftests of this run, next to its results (vm.sh empties $RES): a
# concurrent build by someone else must not replace them while they run.
export SELFTESTS_OUT=$RES.selftests

if [ "$phase" != run ]; then
	ensure_deps
	build_kernel
	build_selftests
	# x86_64 test kernel: the 32-bit programs too, as NAME32 suites
	if [ "$ARCH" = x86_64 ] && [ "$KERNEL" = test ]; then
		build_selftests32 "$RES.selftests32"
		merge_selftests32 "$SELFTESTS_OUT" "$RES.selftests32"
	fi
	build_sample
	# upstream's recorded conformance log, replayed here (conformance_test)
	"$WB_DIR/conformance.sh" install "$SELFTESTS_OUT"
	# the KUnit suites through kunit.py too (kernel in build/obj-kunit)
	[ "$KERNEL" = test ] && [ "$ARCH" = x86_64 ] &&
		[ "${KUNIT_PY:-1}" = 1 ] && "$WB_DIR/kunit.sh" build
fi
[ "$phase" = build ] && exit 0

# the whole suite on the debug kernel takes several times longer, and so
# it does under TCG on a foreign architecture
[ "$KERNEL" = debug ] && export TIMEOUT=${TIMEOUT:-2400}
[ "$ARCH" = x86_64 ] || export TIMEOUT=${TIMEOUT:-2400}
# the test kernel runs every selftest twice (64- and 32-bit programs)
[ -f "$RES.selftests32/.list" ] && export TIMEOUT=${TIMEOUT:-1500}
expect=(--expect-selftests)
# a kernel with only the selftests' own config: a test whose feature is
# not there skips, and says why
[ "$KERNEL" = ksft ] && expect+=(--skips-ok)
grep -q '^CONFIG_USER_EVENTS_KUNIT_TEST=y' "$OBJ/.config" && expect+=(--expect-kunit)
# with several kernels the guest output only goes to $RES/output
out=/dev/stdout
[ -n "${CHECK_LABEL:-}" ] && out=/dev/null
set +e
VM_RESULTS=$RES VM_QUIET=${VM_QUIET:-0} "$WB_DIR/vm.sh" \
	"sh $WB_DIR/guest-check.sh $SELFTESTS_OUT ${SELFTEST_TIMEOUT:-300}" > "$out"
vmrc=$?
kunitrc=0
if [ "$KERNEL" = test ] && [ "$ARCH" = x86_64 ] && [ "${KUNIT_PY:-1}" = 1 ]; then
	"$WB_DIR/kunit.sh" exec "$RES" || kunitrc=$?
	expect+=(--kunit-log "$RES/kunit.log" --expect-kunit-py)
	[ $kunitrc -eq 0 ] || log "FAIL: kunit.py exec exited $kunitrc ($RES/kunit.out)"
fi
set -e
echo
vm_explain "$vmrc"
echo "===== results ($KERNEL kernel, console log: $RES/console.log)"
prc=0
# a foreign guest has no perf, trace-cmd, ...: arch/allowed-skips.<arch>
# too; a kernel built without what some tests need: allowed-skips.<kernel>
skips=$RES.allowed-skips
cat "$WB_DIR/allowed-skips" > "$skips"
for f in "$WB_DIR/arch/allowed-skips.$ARCH" "$WB_DIR/allowed-skips.$KERNEL"; do
	if [ -f "$f" ]; then
		cat "$f" >> "$skips"
	fi
done
python3 "$WB_DIR/parse-results.py" --console "$RES/console.log" \
	--tap-dir "$RES/tap" --allowed-skips "$skips" \
	--kselftest-dir "$RES/kselftest" --selftest-src "$(selftest_src)" \
	--durations "$RES/durations.txt" \
	"${expect[@]}" > "$RES/results.txt" 2>&1 || prc=$?
# the summary line "N passed, M failed, K skipped" is the last line
sed '$d' "$RES/results.txt"
last=$(tail -n 1 "$RES/results.txt")
if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
	echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" > "$RES/summary"
fi
if [ -n "${CHECK_LABEL:-}" ]; then
	echo "$CHECK_LABEL kernel: $last"
else
	echo "$last"
fi
[ $vmrc -eq 0 ] && [ $prc -eq 0 ] && [ $kunitrc -eq 0 ]
exit
}
