#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel selected by KERNEL (test|debug|upstream), its headers,
# the selftests and the sample.  Usage: build.sh [kernel|all]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps
build_kernel
if [ "${1:-all}" = all ]; then
	# not fatal here (make check builds them again and fails on errors)
	(build_selftests) || log "WARNING: selftests failed to build"
	if [ "$KERNEL" = test ]; then	# 32-bit programs (x86_64 only)
		(build_selftests32) || log "WARNING: 32-bit selftests failed to build"
	fi
	(build_sample) || log "WARNING: sample failed to build"
fi
