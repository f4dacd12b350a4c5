#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: our user_events against upstream's, in guest instructions.
#
# Builds the test kernel (ours) and the upstream kernel (no-op when built),
# builds workbench/bench/uebench.c on the host against the test kernel's
# uapi headers, then boots the two kernels alternately (ours, upstream,
# ours, upstream, ...) with QEMU -icount shift=0,sleep=off and one vCPU,
# runs the same binary in each and writes the table to
# build/bench/results.md (raw output in build/bench/raw/).  A full run
# (no BENCH_ONLY) also copies it to workbench/bench/RESULTS.md, the
# committed figures, and rewrites the summary between the bench-summary
# markers of README.md from it.
#
# Environment:
#   BENCH_PAIRS=3      boots of each kernel (alternating)
#   BENCH_REPS=5       measurements per workload and boot
#   BENCH_SCALE=1      multiplies every loop count
#   BENCH_ONLY='...'   uebench -o groups (write perf peers disabled reg
#                      toggle toggle_many fork forkrace mem notify
#                      dropped batch core), hostile and profile; default all
#   BENCH_HOSTILE='UE_HOSTILE_PROCS=64 UE_HOSTILE_ENABLERS=65536 UE_HOSTILE_SECS=10'
#                      the scale of hostile
#   VM_SMP=1           vCPUs of the bench boots
#
# hostile: nostall_test's nostall.tracers_not_stalled at full scale (64
# unprivileged processes x 65,536 registrations of one event, forking,
# beside a mmap_lock churner, a userfaultfd-stuck page, a MADV_WIPEONFORK
# page, a FUSE holder whose enable page waits for a daemon that stopped
# answering reads and vhost holders that exit with /dev/vhost-net owned,
# while root toggles that event; a holder the kernel has no device for
# is left out): the longest a privileged tracer's toggle of another
# event, perf tracepoint open or close and probe event creation or
# deletion waited, once per kernel (first boot pair only: it takes
# minutes).
#
# profile: bench/profile.sh on each kernel, without -icount: the call tree
# of single writes, stepped instruction by instruction with QEMU's gdbstub
# (appended to the results).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PAIRS=${BENCH_PAIRS:-3}
REPS=${BENCH_REPS:-5}
SCALE=${BENCH_SCALE:-1}
OUT=$BUILD/bench
RAW=$OUT/raw

KERNEL='test' "$WB_DIR/build.sh" kernel
KERNEL=upstream "$WB_DIR/build.sh" kernel

mkdir -p "$OUT"
rm -rf "$RAW"
mkdir -p "$RAW"
# Snapshot both images under the build lock: other builds may replace
# build/obj-*/ while we boot, and every boot of a kernel must be the same.
exec 9>"$BUILD/.build.lock"
flock 9
for k in test upstream; do
	cp "$BUILD/obj-$k/arch/x86/boot/bzImage" "$OUT/bzImage-$k"
	cp "$BUILD/obj-$k/System.map" "$OUT/System.map-$k"
done
exec 9>&-
gcc -O2 -Wall -Wextra -Werror -pthread -isystem "$BUILD/obj-test/usr/include" \
	-I "$WB_DIR/../tools/testing/selftests/user_events" \
	-o "$OUT/uebench" "$WB_DIR/bench/uebench.c"

args="-r $REPS -s $SCALE"
hostile=1 profile=1
if [ -n "${BENCH_ONLY:-}" ]; then
	hostile=0 profile=0
	for g in $BENCH_ONLY; do
		case $g in
		hostile) hostile=1 ;;
		profile) profile=1 ;;
		*) args+=" -o $g" ;;
		esac
	done
	[ "$args" != "-r $REPS -s $SCALE" ] || args+=" -o none"
fi
# hostile runs the selftest itself: one implementation of the scenario
hcmd=
if [ "$hostile" = 1 ]; then
	SELFTESTS_OUT=$OUT/selftests build_selftests
	hscale=${BENCH_HOSTILE:-UE_HOSTILE_PROCS=64 UE_HOSTILE_ENABLERS=65536 UE_HOSTILE_SECS=10}
	# echo joins its words with one space: the labels are single lines
	hcmd="; (echo 'L hostile_toggle longest write() to the enable file of another event' \
			'while unprivileged users load one event (guest ns)'
		echo 'L hostile_perf longest perf tracepoint open or close meanwhile (guest ns)'
		echo 'L hostile_probe longest probe event creation or deletion meanwhile (guest ns)'
		echo 'L hostile_forks forks the hostile processes completed meanwhile' \
			'(count, higher is better)'
		echo 'L hostile_toggles toggles of the loaded event by root meanwhile' \
			'(count, higher is better)'
		env $hscale \
			$OUT/selftests/nostall_test -r nostall.tracers_not_stalled |
			sed -n 's/^# V /V /p; s/^# \(.*registrations.*\)/# hostile: \1/p')"
fi

export ICOUNT=1 VM_QUIET=1 VM_SMP=${VM_SMP:-1}
start=$(date +%s)
# nothing to time (BENCH_ONLY=profile alone): no timed boots, no table
timed=1
[ "$hostile" = 1 ] || [ "$args" != "-r $REPS -s $SCALE -o none" ] || {
	timed=0 PAIRS=0; }
for i in $(seq 1 "$PAIRS"); do
	for k in test upstream; do
		log "bench boot $i/$PAIRS: $k"
		# run a copy in /tmp (tmpfs): the uprobe then sits on a local file
		if ! KERNEL=$k VM_BZIMAGE=$OUT/bzImage-$k \
			TIMEOUT=${TIMEOUT:-900} "$WB_DIR/vm.sh" \
			"cp $OUT/uebench /tmp/uebench && /tmp/uebench $args$hcmd" \
			> "$RAW/$i-$k.txt" 2> "$RAW/$i-$k.log"; then
			# hostile may take a kernel down (upstream: out of
			# memory); what uebench measured before it still counts
			if [ -n "$hcmd" ] && grep -q '^# uebench' "$RAW/$i-$k.txt"; then
				why=$(grep -m1 -o 'Kernel panic.*' "$RAW/$i-$k.log" ||
					echo 'see the log')
				echo "# hostile: did not finish: $why" >> "$RAW/$i-$k.txt"
				log "bench boot $i ($k): hostile did not finish: $why"
			else
				cat "$RAW/$i-$k.txt" "$RAW/$i-$k.log" >&2
				die "bench boot $i ($k) failed"
			fi
		fi
		grep -h '^# ' "$RAW/$i-$k.txt" |
			grep -v '^# uebench\|^# uprobe\|^# kernel' >&2 || true
	done
	hcmd=	# once per kernel
done
[ "$timed" = 0 ] || log "bench boots done in $(( $(date +%s) - start ))s"

if [ "$timed" = 1 ]; then
	python3 "$WB_DIR/bench/report.py" --pairs "$PAIRS" --reps "$REPS" \
		--scale "$SCALE" --smp "$VM_SMP" "$RAW" > "$OUT/results.md"
else
	echo "# user_events: instruction profiles, ours and upstream" \
		> "$OUT/results.md"
fi
if [ "$profile" = 1 ]; then
	for k in test upstream; do
		log "profile: $k"
		"$WB_DIR/bench/profile.sh" "$k" "$OUT/bzImage-$k" \
			"$OUT/System.map-$k" "$OUT/uebench" "$OUT/profile-$k"
	done
	{
		echo
		echo "## Profiles: one write of each kind, instruction by instruction"
		echo
		echo "From the syscall's entry to its return to user mode, stepped"
		echo "with QEMU's gdbstub (workbench/bench/profile.sh); a function"
		echo "under 4 instructions is counted in its caller's self column."
		for name in ftrace ftrace_1k perf marker_raw batch_8; do
			for k in test upstream; do
				[ -s "$OUT/profile-$k/$name.md" ] || continue
				echo
				echo "### $name, $k"
				echo
				cat "$OUT/profile-$k/$name.md"
			done
		done
	} >> "$OUT/results.md"
fi
cat "$OUT/results.md"
log "written to $OUT/results.md"
# a full run replaces the committed figures and the README's summary
if [ -z "${BENCH_ONLY:-}" ]; then
	cp "$OUT/results.md" "$WB_DIR/bench/RESULTS.md"
	python3 "$WB_DIR/bench/report.py" --summary "$WB_DIR/bench/RESULTS.md" \
		> "$OUT/summary.md"
	python3 - "$REPO/README.md" "$OUT/summary.md" <<'PY'
import re
import sys

readme, summary = sys.argv[1:3]
text = open(readme).read()
new = open(summary).read().strip()
text, n = re.subn(r'(<!-- bench-summary -->\n).*?(\n<!-- /bench-summary -->)',
                  lambda m: m.group(1) + new + m.group(2), text, flags=re.S)
if n != 1:
    sys.exit("bench: README.md has no bench-summary block")
open(readme, 'w').write(text)
PY
	log "figures in workbench/bench/RESULTS.md, summary in README.md: commit them"
fi
