#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel selected by KERNEL (test|debug|upstream) in QEMU (TCG) with
# the host's / as read-only 9p root, run a shell command in the repo dir,
# print its output and exit with its status.
#
#   workbench/vm.sh 'command args...'
#
# Environment:
#   KERNEL=test|debug|upstream   kernel to boot (build/obj-$KERNEL)
#   TIMEOUT=600                  seconds before the guest is killed (failure)
#   ICOUNT=1                     deterministic-ish timing: -icount shift=0,sleep=off
#   VM_SMP=2                     number of vCPUs
#   VM_BZIMAGE=path              boot this image instead of build/obj-$KERNEL's
#   SPLAT_CHECK=0                do not fail on kernel warnings in the console log
#   VM_RESULTS=dir               keep the results share here (else a temp dir)
#   VM_QUIET=1                   do not stream the command output
#   QEMU_EXTRA='...'             extra qemu arguments
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TIMEOUT=${TIMEOUT:-600}
CMD=${1:-${CMD:-}}
[ -n "$CMD" ] || die "usage: vm.sh 'command'  (or CMD=...)"

BZIMAGE=${VM_BZIMAGE:-$OBJ/arch/x86/boot/bzImage}
[ -f "$BZIMAGE" ] || die "$BZIMAGE missing; build it first (make kernel KERNEL=$KERNEL)"

if [ -n "${VM_RESULTS:-}" ]; then
	RES=$VM_RESULTS
	rm -rf "$RES"
	mkdir -p "$RES"
	KEEP=1
else
	RES=$(mktemp -d /tmp/wb-vm.XXXXXX)
	KEEP=0
fi
chmod 777 "$RES"
LOG=$RES/console.log
printf '%s\n' "$CMD" > "$RES/cmd.sh"
pwd > "$RES/cwd"
: > "$RES/output"

cleanup() {
	[ -n "${TAIL_PID:-}" ] && kill "$TAIL_PID" 2>/dev/null
	[ "$KEEP" = 1 ] || rm -rf "$RES"
}
trap cleanup EXIT

icount=()
[ "${ICOUNT:-0}" = 1 ] && icount=(-icount shift=0,sleep=off)

APPEND="console=ttyS0 root=root rootfstype=9p"
APPEND+=" rootflags=trans=virtio,version=9p2000.L,msize=512000 ro"
APPEND+=" init=$WB_DIR/guest-init.sh panic=-1"
# The debug kernel (KASAN, lockdep, kmemleak) runs the ACPI interpreter so
# slowly under TCG that QEMU's \_SB.PCI0._PRT hits ACPICA's 30 s loop
# timeout: the virtio devices get no IRQ and the 9p root never mounts.
# Route PCI IRQs without ACPI (SeaBIOS's $PIR table) there.
[ "$KERNEL" = debug ] && APPEND+=" pci=noacpi"
APPEND+=" ${APPEND_EXTRA:-}"

# shellcheck disable=SC2206
qemu=(qemu-system-x86_64 -accel tcg -cpu max -smp "${VM_SMP:-2}" -m 2G
      -nographic -no-reboot -monitor none -serial "file:$LOG"
      "${icount[@]}"
      -kernel "$BZIMAGE" -append "$APPEND"
      -virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
      -virtfs local,path="$RES",mount_tag=wbresults,security_model=none
      ${QEMU_EXTRA:-})

log "booting $KERNEL kernel (timeout ${TIMEOUT}s): $CMD"
start=$(date +%s.%N)
if [ "${VM_QUIET:-0}" != 1 ]; then
	tail -n +1 -F "$RES/output" 2>/dev/null &
	TAIL_PID=$!
fi
# host-side timestamp of the guest reaching the command (boot time)
( while [ ! -f "$RES/.booted" ]; do
	if grep -aq 'wb: running command' "$LOG" 2>/dev/null; then
		date +%s.%N > "$RES/.booted"; break
	fi
	sleep 0.1
  done ) &
WATCH_PID=$!
timeout -k 10 "$TIMEOUT" "${qemu[@]}" < /dev/null
qrc=$?
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null
end=$(date +%s.%N)
sleep 0.3
[ -n "${TAIL_PID:-}" ] && kill "$TAIL_PID" 2>/dev/null
TAIL_PID=
wait 2>/dev/null

[ "${VM_QUIET:-0}" = 1 ] && cat "$RES/output"

rc=0
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	log "TIMEOUT: guest killed after ${TIMEOUT}s; console log tail:"
	tail -n 40 "$LOG" >&2
	rc=124
elif [ ! -f "$RES/status" ]; then
	log "guest ended (qemu rc $qrc) without finishing the command; console log tail:"
	tail -n 40 "$LOG" >&2
	rc=125
else
	rc=$(cat "$RES/status")
fi

boot=?
[ -f "$RES/.booted" ] && boot=$(printf '%.1f' "$(echo "$(cat "$RES/.booted") - $start" | bc)")
log "$(printf 'boot to command %ss, total %.1fs (qemu rc %d, command status %s)' \
	"$boot" "$(echo "$end - $start" | bc)" "$qrc" "$rc")"

# splat_scan (lib.sh) prints the offending lines and their reports
if [ "${SPLAT_CHECK:-1}" != 0 ] && ! splat_scan "$LOG"; then
	[ "$rc" -eq 0 ] && rc=126
fi
exit "$rc"
