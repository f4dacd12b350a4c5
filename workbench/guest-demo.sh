#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: the sample's event seen through ftrace, then perf.
EX=$1
T=/sys/kernel/tracing
N=${2:-5}
rc=0

wait_event() {	# wait (max ~30 s) for the sample to register its event
	i=0
	until grep -q '^example' $T/user_events_status 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			echo "demo: event never showed up in user_events_status"
			cat $T/user_events_status
			return 1
		fi
		sleep 0.1
	done
}

echo "===== ftrace: $EX -n $N"
echo > $T/trace
$EX -n "$N" > /tmp/example1.log 2>&1 &
pid=$!
wait_event || exit 1
echo "--- user_events_status:"
cat $T/user_events_status
echo 1 > $T/events/user_events/example/enable
wait $pid || { echo "demo: sample failed"; rc=1; }
echo "--- sample output:"
cat /tmp/example1.log
# read the trace while the event is still enabled: upstream deletes an
# unused event once nothing references it, and its format goes with it.
echo "--- $T/trace:"
cat $T/trace
grep -q 'example:' $T/trace || { echo "demo: no example event in trace"; rc=1; }
echo 0 > $T/events/user_events/example/enable 2>/dev/null

echo
echo "===== perf: perf record -e user_events:example -p PID"
# -d: the sample writes as soon as perf opens the event; give perf time to
# finish attaching (mmap + enable) so that no event is lost.
$EX -n "$N" -d 300 > /tmp/example2.log 2>&1 &
pid=$!
wait_event || exit 1
perf record -e user_events:example --per-thread -p $pid -o /tmp/perf.data 2>&1
wait $pid || { echo "demo: sample failed"; rc=1; }
echo "--- sample output:"
cat /tmp/example2.log
echo "--- perf script:"
perf script -i /tmp/perf.data > /tmp/perf.txt 2>&1
cat /tmp/perf.txt
grep -q 'example' /tmp/perf.txt || { echo "demo: no example event in perf script"; rc=1; }
exit $rc
