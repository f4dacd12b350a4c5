#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: build, boot once, collect KUnit (console) + selftest (TAP)
# results, summarize.  KERNEL=test|debug|upstream, SELFTESTS=dir overrides
# the selftest sources.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps
build_kernel
build_selftests
build_sample

RES=${CHECK_RESULTS:-$OBJ/check}
expect=(--expect-selftests)
grep -q '^CONFIG_USER_EVENTS_KUNIT_TEST=y' "$OBJ/.config" && expect+=(--expect-kunit)
set +e
VM_RESULTS=$RES VM_QUIET=${VM_QUIET:-0} "$WB_DIR/vm.sh" \
	"sh $WB_DIR/guest-check.sh $OBJ/selftests ${SELFTEST_TIMEOUT:-300}"
vmrc=$?
set -e
echo
case $vmrc in
0) ;;
124) log "FAIL: guest timed out" ;;
125) log "FAIL: guest did not finish (crash?)" ;;
126) log "FAIL: kernel splat in the console log" ;;
*) log "FAIL: guest command exited $vmrc" ;;
esac
echo "===== results ($KERNEL kernel, console log: $RES/console.log)"
# the summary line "N passed, M failed, K skipped" is the last line printed
prc=0
python3 "$WB_DIR/parse-results.py" --console "$RES/console.log" \
	--tap-dir "$RES/tap" --allowed-skips "$WB_DIR/allowed-skips" \
	"${expect[@]}" 2>&1 || prc=$?
[ $vmrc -eq 0 ] && [ $prc -eq 0 ]
