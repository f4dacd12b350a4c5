#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make compat: upstream 6.12's own user_events selftests, unmodified, built
# against the installed uapi headers of $KERNEL, run in one boot of it.
# make check runs them too (build_selftests adds them to the selftests).
# Results go to CHECK_RESULTS (default build/obj-$KERNEL/compat).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps
build_kernel

# Own directory, so that concurrent "make check" runs keep their selftests.
DIR=$OBJ/compat-tests
rm -rf "$DIR"
mkdir -p "$DIR"
build_upstream_selftests "$DIR"
printf '%s\n' "${UPSTREAM_SELFTESTS[@]}" > "$DIR/.list"
log "compat tests: $(tr '\n' ' ' < "$DIR/.list")"

RES=${CHECK_RESULTS:-$OBJ/compat}
set +e
VM_RESULTS=$RES VM_QUIET=${VM_QUIET:-0} "$WB_DIR/vm.sh" \
	"sh $WB_DIR/guest-check.sh $DIR ${SELFTEST_TIMEOUT:-300}"
vmrc=$?
set -e
echo
vm_explain "$vmrc"
echo "===== compat results (upstream selftests on the $KERNEL kernel, console log: $RES/console.log)"
prc=0
python3 "$WB_DIR/parse-results.py" --tap-dir "$RES/tap" \
	--allowed-skips "$WB_DIR/allowed-skips" --expect-selftests 2>&1 || prc=$?
[ $vmrc -eq 0 ] && [ $prc -eq 0 ]
