#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: every selftest binary listed in $1/.list (built in
# the selftests dir $1), TAP output to /run/wb/tap/NAME.tap, exit status to
# NAME.rc.  KUnit already ran at boot (results are on the console).
SELFTESTS=$1
PER_TEST_TIMEOUT=${2:-300}
mkdir -p /run/wb/tap
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# Debug kernel (kmemleak): stress_test runs longer there.
if [ -e /sys/kernel/debug/kmemleak ]; then
	UE_STRESS_SECONDS=${UE_STRESS_SECONDS:-60}
	export UE_STRESS_SECONDS
fi
for t in $(cat "$SELFTESTS/.list" 2>/dev/null); do
	echo "=== selftest $t"
	t0=$(uptime_ms)
	(cd "$SELFTESTS" && timeout -k 5 "$PER_TEST_TIMEOUT" "./$t") \
		> "/run/wb/tap/$t.tap" 2>&1
	echo $? > "/run/wb/tap/$t.rc"
	cat "/run/wb/tap/$t.tap"
	echo "=== exit status $(cat "/run/wb/tap/$t.rc")"
	echo "=== $t took $(($(uptime_ms) - t0)) ms"
done
# Debug kernel: report leaks on the console, where the splat scan sees them.
# A scan ("echo scan", synchronous) reports an object only if it is
# unreferenced and was allocated at least MSECS_MIN_AGE = 5000 ms before the
# scan started (unreferenced_object() in mm/kmemleak.c).  So: one scan now
# for everything older, then, for what the last tests leaked, one more scan
# that starts at least 6 s (a jiffy of margin) after the tests ended; the
# first scan usually takes that long by itself, otherwise wait for the rest
# of the age (a clock condition of kmemleak, not a synchronisation).
if [ -w /sys/kernel/debug/kmemleak ]; then
	tests_end=$(uptime_ms)
	echo "=== kmemleak scan"
	echo scan > /sys/kernel/debug/kmemleak
	while [ "$(uptime_ms)" -lt $((tests_end + 6000)) ]; do
		sleep 0.2
	done
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	echo "=== kmemleak: $leaks unreferenced object(s), scans took $(($(uptime_ms) - tests_end)) ms"
	cat /sys/kernel/debug/kmemleak > /dev/console
fi
exit 0
