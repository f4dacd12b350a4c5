#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel headers libuser_events builds with are copies under
# tools/include (tools do not include the kernel's include/ directly).
# Compare every copy with its original and warn when they differ, as
# tools/perf/check-headers.sh does for perf's; the build goes on.
# Out of a kernel tree (no original next to the copy) there is nothing to
# compare.  Exit status: 0, also after a warning.

srctree=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

COPIES=(
	include/uapi/linux/user_events.h
)

stale=()
for f in "${COPIES[@]}"; do
	[ -f "$srctree/$f" ] || continue
	if ! cmp -s "$srctree/tools/$f" "$srctree/$f"; then
		stale+=("$f")
	fi
done

[ ${#stale[@]} -eq 0 ] && exit 0
echo "Warning: libuser_events: kernel ABI header differences:" >&2
for f in "${stale[@]}"; do
	echo "  diff -u tools/$f $f" >&2
done
exit 0
