#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Instruction profile of user_events writes (8 bytes to ftrace, 1 KiB to
# ftrace, 8 bytes to perf, and on ours a DIAG_IOCSBATCH of 8 records of 8
# bytes to ftrace) and of a trace_marker_raw write, in one kernel:
# boots it with QEMU's gdbstub, runs `uebench -o profile`, single-steps
# the last write of each kind from its syscall entry to its return to
# user mode (profile.py) and prints each call tree.
#
# Usage: profile.sh KERNEL BZIMAGE SYSTEM_MAP UEBENCH OUTDIR
#   KERNEL is test or upstream (it names the write handler).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

k=$1 bz=$2 map=$3 bin=$4 out=$5
case $k in
upstream) handler=user_events_write ;;
*) handler=uev_data_write ;;
esac
addr() {
	local a
	a=$(awk -v f="$1" '$3 == f && $2 ~ /^[tT]$/ { print $1; exit }' "$map")
	[ -n "$a" ] || die "profile: no symbol $1 in $map"
	echo "$a"
}
h=$(addr "$handler")
plan="ftrace:$h,ftrace_1k:$h,perf:$h"
plan+=",marker_raw:$(addr tracing_mark_raw_write)"
names="ftrace ftrace_1k perf marker_raw"
# a DIAG_IOCSBATCH of 8 records: ours only (upstream has no batch)
if [ "$k" = test ]; then
	plan+=",batch_8:$(addr uev_data_ioctl)"
	names+=" batch_8"
fi
port=$(( 20000 + $$ % 10000 ))
mkdir -p "$out"
rm -f "$out"/*.pcs

KERNEL=$k VM_BZIMAGE=$bz VM_SMP=1 VM_QUIET=1 TIMEOUT=600 \
	APPEND_EXTRA=nokaslr QEMU_EXTRA="-gdb tcp:127.0.0.1:$port" \
	"$WB_DIR/vm.sh" "cp $bin /tmp/uebench && /tmp/uebench -o profile" \
	> "$out/guest.txt" 2> "$out/guest.log" &
vm=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.2
done
if ! PROF_PORT=$port PROF_PLAN=$plan PROF_K=200 PROF_OUT=$out \
	timeout 900 gdb -q -nx -batch -x "$WB_DIR/bench/profile.py" \
	> "$out/gdb.log" 2>&1; then
	# the guest waits for nobody now: stop its QEMU (known by its port)
	for p in /proc/[0-9]*; do
		grep -qa -- "tcp:127.0.0.1:$port" "$p/cmdline" 2>/dev/null &&
			kill "${p#/proc/}" 2>/dev/null
	done || true
	wait "$vm" || true
	cat "$out/gdb.log" >&2
	die "profile: gdb failed ($k)"
fi
wait "$vm" || { cat "$out/guest.log" >&2; die "profile: guest failed ($k)"; }
for name in $names; do
	[ -s "$out/$name.pcs" ] || die "profile: no trace of $name ($k)"
	python3 "$WB_DIR/bench/profile.py" report "$map" "$out/$name.pcs" \
		> "$out/$name.md"
done
