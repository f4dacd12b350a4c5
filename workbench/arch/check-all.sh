#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check ARCH=all: x86_64 (the test and the debug kernel, with the
# 32-bit selftests on the test kernel), then arm64, arm64 with 64 KiB
# pages and s390x (test kernel each), one after the other.  Prints each
# run's output, one line per architecture and the sum as the last line
# "N passed, M failed, K skipped"; fails if any run fails.
set -uo pipefail
WB_DIR=$(cd "$(dirname "$0")/.." && pwd)
# not lib.sh: ARCH is "all" here
log() { printf '[wb] %s\n' "$*" >&2; }

RUNS=${CHECK_ARCHES:-"x86_64/4k arm64/4k arm64/64k s390x/4k"}
t0=$(date +%s)
tp=0 tf=0 ts=0 bad=0 lines=()
for run in $RUNS; do
	a=${run%/*} p=${run#*/}
	log "===== make check ARCH=$a PAGES=$p"
	t=$(date +%s)
	args=()
	[ "$a" = x86_64 ] && args=(test debug)
	out=$(mktemp)
	ARCH=$a PAGES=$p "$WB_DIR/check.sh" "${args[@]}" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	rm -f "$out"
	read -r p_ f_ s_ <<<"$(sed -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/' <<<"${last:-0 passed, 1 failed, 0 skipped}")"
	[ "$rc" -ne 0 ] && [ "$f_" -eq 0 ] && f_=1
	tp=$((tp + p_)) tf=$((tf + f_)) ts=$((ts + s_))
	[ "$rc" -eq 0 ] || bad=1
	lines+=("$(printf '%-10s passed %4d  failed %3d  skipped %3d  %s  (%ss)' \
		"$run" "$p_" "$f_" "$s_" "$([ "$rc" -eq 0 ] && echo ok || echo FAIL)" \
		"$(($(date +%s) - t))")")
done
echo
echo "===== all architectures"
printf '%s\n' "${lines[@]}"
log "make check ARCH=all: total $(($(date +%s) - t0))s"
echo "$tp passed, $tf failed, $ts skipped"
exit "$bad"
