#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: every selftest binary listed in $1/.list (built in
# the selftests dir $1), TAP output to /run/wb/tap/NAME.tap, exit status to
# NAME.rc.  KUnit already ran at boot (results are on the console).
SELFTESTS=$1
PER_TEST_TIMEOUT=${2:-300}
mkdir -p /run/wb/tap
for t in $(cat "$SELFTESTS/.list" 2>/dev/null); do
	echo "=== selftest $t"
	(cd "$SELFTESTS" && timeout -k 5 "$PER_TEST_TIMEOUT" "./$t") \
		> "/run/wb/tap/$t.tap" 2>&1
	echo $? > "/run/wb/tap/$t.rc"
	cat "/run/wb/tap/$t.tap"
	echo "=== exit status $(cat "/run/wb/tap/$t.rc")"
done
# Debug kernel: report leaks on the console, where the splat scan sees them.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "=== kmemleak scan"
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /dev/console
fi
exit 0
