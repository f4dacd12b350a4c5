#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: the selftests built by build_selftests in $1.
# KUnit already ran at boot (results are on the console).
#
# With a kselftest install ($1/ksft, the normal case) the kernel's runner
# runs them: run_kselftest.sh runs the collection (every program under the
# "timeout" of its settings file), then the runner runs the programs of
# TEST_GEN_PROGS_EXTENDED ($1/.extended: fuzz_test, stress_test) with an
# explicit budget and timeout; programs added to $1 after the install
# (.list only, e.g. conformance_test) run through the runner too, under the
# collection's timeout.  Each runner's TAP goes to
# /run/wb/kselftest/NAME.log, every line stamped with the guest's uptime;
# parse-results.py splits it per program and times every test.
#
# Without one (SELFTESTS=dir without a kselftest Makefile) each program
# in $1/.list runs directly under "timeout $2": TAP to /run/wb/tap/NAME.tap,
# exit status to NAME.rc.
SELFTESTS=$1
PER_TEST_TIMEOUT=${2:-300}
KSFT=$SELFTESTS/ksft
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# Budgets of the extended programs; the debug kernel (kmemleak) gets a
# longer stress run.  The fuzzer runs its 100,000 cases on both kernels.
stress_secs=20
[ -e /sys/kernel/debug/kmemleak ] && stress_secs=60
UE_FUZZ_CASES=${UE_FUZZ_CASES:-100000}
UE_STRESS_SECONDS=${UE_STRESS_SECONDS:-$stress_secs}
EXTENDED_TIMEOUT=${EXTENDED_TIMEOUT:-900}
export UE_FUZZ_CASES UE_STRESS_SECONDS

# Prefix every line with the guest's uptime, "[SECONDS] ", as the console.
stamp() {
	while IFS= read -r line; do
		read -r up rest < /proc/uptime
		printf '[%s] %s\n' "$up" "$line"
	done
}

if [ -x "$KSFT/run_kselftest.sh" ]; then
	mkdir -p /run/wb/kselftest
	# the runner logs the programs' output to /dev/stdout, which only
	# udev would create: without it, it would go to a file of that name
	for fd in 0:stdin 1:stdout 2:stderr; do
		[ -e "/dev/${fd#*:}" ] ||
			ln -s "/proc/self/fd/${fd%%:*}" "/dev/${fd#*:}"
	done
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	echo "=== run_kselftest.sh (timeout per program: $(grep -h '^timeout=' "$KSFT"/*/settings))"
	"$KSFT/run_kselftest.sh" 2>&1 | stamp |
		tee /run/wb/kselftest/run_kselftest.log
	col=$(sed -n '1s/:.*//p' "$KSFT/kselftest-list.txt")
	ext=$(cat "$SELFTESTS/.extended" 2>/dev/null)
	# programs added to $1 after the install (.list, e.g. by
	# conformance.sh): the runner runs them from $1 under the collection's
	# timeout
	others=$(sed -n "s/^$col://p" "$KSFT/kselftest-list.txt" |
		 cat - "$SELFTESTS/.extended" 2>/dev/null | sort |
		 comm -23 "$SELFTESTS/.list" -)
	if [ -n "$others" ]; then
		tmo=$(sed -n 's/^timeout=//p' "$KSFT/$col/settings" 2>/dev/null)
		echo "=== others: $others (timeout ${tmo:-45}s)"
		(cd "$SELFTESTS" && BASE_DIR=$KSFT &&
		 . "$KSFT/kselftest/runner.sh" &&
		 kselftest_override_timeout=${tmo:-45} &&
		 run_many $(for t in $others; do echo "./$t"; done)) 2>&1 |
			stamp | tee /run/wb/kselftest/others.log
	fi
	if [ -n "$ext" ]; then
		echo "=== extended: $ext (UE_FUZZ_CASES=$UE_FUZZ_CASES UE_STRESS_SECONDS=$UE_STRESS_SECONDS, timeout ${EXTENDED_TIMEOUT}s)"
		# run_many of the runner, as run_kselftest.sh calls it
		(cd "$KSFT/$col" && BASE_DIR=$KSFT &&
		 . "$KSFT/kselftest/runner.sh" &&
		 kselftest_override_timeout=$EXTENDED_TIMEOUT &&
		 run_many $(for t in $ext; do echo "./$t"; done)) 2>&1 |
			stamp | tee /run/wb/kselftest/extended.log
	fi
else
	mkdir -p /run/wb/tap
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
fi
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
