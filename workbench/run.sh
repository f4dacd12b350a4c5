#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make run: build, boot, demo the sample event with ftrace and perf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps
build_kernel
build_sample
exec "$WB_DIR/vm.sh" "sh $WB_DIR/guest-demo.sh $OBJ/samples/example ${N:-5}"
