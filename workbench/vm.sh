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
#   ARCH=x86_64|arm64|s390x      architecture (PAGES=64k: arm64 with 64 KiB
#                                pages); a foreign guest boots an initramfs
#                                (arch/initramfs.sh) holding busybox, the
#                                workbench scripts, $SELFTESTS_OUT (else
#                                $OBJ/selftests), $OBJ/samples, $VM_DIRS
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

BZIMAGE=${VM_BZIMAGE:-$OBJ/$KIMAGE}
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
	[ -n "${INITRD:-}" ] && rm -f "$INITRD"
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
# tracepoint_printk can be turned on at run time only when tp_printk was
# given at boot; stop it at the end of boot (trace_output_test turns it on)
TP_PRINTK="tp_printk tp_printk_stop_on_boot"
APPEND+=" $TP_PRINTK ${APPEND_EXTRA:-}"

# One host thread for all vCPUs (thread=single), not one per vCPU: with
# multi-threaded TCG, QEMU 7.2 (Debian 12) lets a vCPU run code another
# vCPU has patched and synchronised, so text_poke_bp()'s int3 can be hit
# after its handler was removed: "Oops: int3" and a panic, within seconds
# of toggling set_event_pid (which patches the sched tracepoints' call
# sites) on a pristine 6.12, and never in 120 s with thread=single.
# shellcheck disable=SC2206
qemu=(qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp "${VM_SMP:-2}" -m 2G
      -nographic -no-reboot -monitor none -serial "file:$LOG"
      "${icount[@]}"
      -kernel "$BZIMAGE" -append "$APPEND"
      -virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
      -virtfs local,path="$RES",mount_tag=wbresults,security_model=none
      ${QEMU_EXTRA:-})

# A foreign guest: the same results share, an initramfs instead of the
# host's root (a foreign guest cannot run it).
if [ "$ARCH" != x86_64 ]; then
	INITRD=$(mktemp /tmp/wb-initrd.XXXXXX)
	# shellcheck disable=SC2086
	"$WB_DIR/arch/initramfs.sh" "$INITRD" \
		"${SELFTESTS_OUT:-$OBJ/selftests}" "$OBJ/samples" ${VM_DIRS:-} ||
		die "cannot make the initramfs"
	case $ARCH in
	arm64)
		# pauth-impdef: QEMU's own pointer-authentication hash, much
		# cheaper under TCG than the architected QARMA
		qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on
		      -device virtio-9p-device,fsdev=wbres,mount_tag=wbresults)
		console=ttyAMA0 ;;
	s390x)
		qemu=(qemu-system-s390x -M s390-ccw-virtio -cpu max
		      -device virtio-9p-ccw,fsdev=wbres,mount_tag=wbresults)
		console=ttysclp0 ;;
	esac
	# shellcheck disable=SC2206
	qemu+=(-accel tcg -smp "${VM_SMP:-2}" -m 2G -nographic -no-reboot
	       -monitor none -serial "file:$LOG" "${icount[@]}"
	       -kernel "$BZIMAGE" -initrd "$INITRD"
	       -append "console=$console panic=-1 $TP_PRINTK ${APPEND_EXTRA:-}"
	       -fsdev local,id=wbres,path="$RES",security_model=none
	       ${QEMU_EXTRA:-})
fi

log "booting $KERNEL kernel ($ARCH) (timeout ${TIMEOUT}s): $CMD"
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
