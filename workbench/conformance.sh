#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Differential conformance: the same seeded user_events operation sequences
# (workbench/conformance/ueconf.c) on our kernel and on upstream 6.12, the
# observations compared per sequence, differing sequences grouped by kind,
# one example per kind shrunk.
#
#   conformance.sh [run]         make conformance: both kernels, diff, shrink,
#                                build/conformance/REPORT.md, "N passed, M failed"
#   conformance.sh record        make conformance-record: upstream's log for
#                                the make check run, committed as
#                                workbench/conformance/upstream-SEED-COUNT.log.xz
#   conformance.sh install DIR   (make check) ueconf + conformance_test in the
#                                selftests dir DIR, added to DIR/.list
#
# Environment:
#   SEED=0x5eed  COUNT=100000    sequences SEED/0 .. SEED/COUNT-1
#   SHRINK_ROUNDS=3              boots per kernel spent on shrinking
#   CONF_SMP=1                   vCPUs of each guest
#   CONF_JOBS=2                  guests at a time (the main run is split
#                                into that many ranges per kernel)
#   CONF_OURS=test               our kernel (test or debug)
#   CONF_NOBUILD=1               boot the kernels of the last run again
#   CONF_OUT=dir                 results (default build/conformance)
set -euo pipefail
{
. "$(dirname "$0")/lib.sh"

SEED=${SEED:-0x5eed}
COUNT=${COUNT:-100000}
CHECK_SEED=0x5eed
CHECK_COUNT=2000
CDIR=$WB_DIR/conformance
OUT=${CONF_OUT:-$BUILD/conformance}
OURS=${CONF_OURS:-test}
UECONF=$OUT/ueconf

since() { printf '%.0f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

# ueconf and the command generator it shares with the fuzzer (ue_gen.c)
build_ueconf() {	# $1 = output [$2 = uapi headers]
	local gen=$REPO/tools/testing/selftests/user_events
	mkdir -p "$(dirname "$1")"
	gcc -O2 -Wall -Wextra -isystem "${2:-$BUILD/obj-test/usr/include}" \
		-I "$gen" -o "$1" "$CDIR/ueconf.c" "$gen/ue_gen.c" -lpthread
}

# Snapshot the kernels and the workbench under the build lock: others
# rebuild build/obj-* and edit workbench/ while we boot.
snapshot() {
	local k
	mkdir -p "$OUT"
	exec 9>"$BUILD/.build.lock"
	flock 9
	for k in "$@"; do
		cp "$BUILD/obj-$k/arch/x86/boot/bzImage" "$OUT/bzImage-$k"
	done
	exec 9>&-
	rm -rf "$OUT/wb"
	mkdir -p "$OUT/wb"
	cp -a "$WB_DIR"/*.sh "$WB_DIR/splat-ignore" "$OUT/wb/"
	[ -d "$WB_DIR/arch" ] && cp -a "$WB_DIR/arch" "$OUT/wb/"
	build_ueconf "$UECONF"
}

# boot kernel $1 with results in $2, running ueconf with args $3...
guest_run() {
	local k=$1 res=$2
	shift 2
	local secs=$((600 + COUNT / 20)) rc
	# a boot under TCG on a busy host now and then panics in the timer
	# check ("IO-APIC + timer doesn't work"): one more boot then
	for _ in 1 2; do
		rc=0
		# upstream WARNs (perf_trace_buf_alloc) on a perf record over
		# 8 KiB: a known difference, not a failed run
		[ "$k" = upstream ] && export SPLAT_CHECK=0
		VM_BZIMAGE=$OUT/bzImage-$k VM_RESULTS=$res VM_QUIET=1 \
			VM_SMP=${CONF_SMP:-1} TIMEOUT=${TIMEOUT:-$secs} KERNEL=$k \
			"$OUT/wb/vm.sh" "/usr/bin/time -f 'elapsed %e s' $UECONF $* > /run/wb/obs.log" \
			> "$res.out" 2>&1 || rc=$?
		grep -q 'IO-APIC + timer' "$res/console.log" 2>/dev/null || break
	done
	return $rc
}

# both kernels at once; $1 = tag, rest = ueconf args
run_both() {
	local tag=$1 t rc=0
	shift
	t=$(date +%s.%N)
	guest_run "$OURS" "$OUT/$tag-ours" "$@" & local p1=$!
	guest_run upstream "$OUT/$tag-upstream" "$@" & local p2=$!
	wait $p1 || rc=1
	wait $p2 || rc=$((rc | 2))
	local which
	for which in ours upstream; do
		grep -a 'elapsed' "$OUT/$tag-$which/output" 2>/dev/null |
			sed "s/^/[wb] $tag $which guest: /" >&2 || true
	done
	log "$tag: both kernels done in $(since "$t")s"
	if [ $rc -ne 0 ]; then
		for which in ours upstream; do
			log "--- $tag $which:"
			tail -n 30 "$OUT/$tag-$which.out" >&2
		done
		die "$tag: a guest failed (rc $rc)"
	fi
}

# The main run: each kernel's sequences in CONF_JOBS ranges, CONF_JOBS
# guests at a time (upstream's first: they are the slow ones), the logs of
# the ranges joined in order.
run_main() {
	local n=${CONF_JOBS:-2} per i k which from cnt t
	per=$(( (COUNT + n - 1) / n ))
	t=$(date +%s.%N)
	for k in upstream "$OURS"; do
		for i in $(seq 0 $((n - 1))); do
			from=$((i * per))
			cnt=$((COUNT - from < per ? COUNT - from : per))
			[ "$cnt" -gt 0 ] && echo "$k $i $from $cnt"
		done
	done | CONF_OUT=$OUT SEED=$SEED xargs -P "$n" -L 1 "$WB_DIR/conformance.sh" chunk ||
		die "main run: a guest failed (see $OUT/main-*.out)"
	for k in upstream "$OURS"; do
		which=ours
		[ "$k" = upstream ] && which=upstream
		mkdir -p "$OUT/main-$which"
		for i in $(seq 0 $((n - 1))); do
			[ -f "$OUT/main-$k-$i/obs.log" ] || continue
			grep -a 'elapsed' "$OUT/main-$k-$i/output" |
				sed "s/^/[wb] main $k range $i guest: /" >&2 || true
			cat "$OUT/main-$k-$i/obs.log"
		done > "$OUT/main-$which/obs.log"
	done
	log "main: $COUNT sequences on both kernels in $(since "$t")s"
}

# one range of the main run: $1 kernel, $2 range number, $3 first, $4 count
do_chunk() {
	COUNT=$4
	if ! guest_run "$1" "$OUT/main-$1-$2" "--seed $SEED --from $3 --count $4"; then
		tail -n 30 "$OUT/main-$1-$2.out" >&2
		log "main run: $1 kernel, sequences $3..$(($3 + $4 - 1)) failed"
		exit 255	# xargs stops
	fi
}

do_run() {
	local t0 rounds=${SHRINK_ROUNDS:-3} r
	t0=$(date +%s.%N)
	if [ "${CONF_NOBUILD:-0}" = 1 ]; then
		build_ueconf "$UECONF"
	else
		KERNEL=$OURS "$WB_DIR/build.sh" kernel
		KERNEL=upstream "$WB_DIR/build.sh" kernel
		snapshot "$OURS" upstream
	fi
	rm -rf "$OUT/state" "$OUT"/shrink* "$OUT"/main-*
	log "running seed $SEED, $COUNT sequences on the $OURS and the upstream kernel"
	run_main
	local diffrc=0
	python3 "$CDIR/compare.py" diff --up "$OUT/main-upstream/obs.log" \
		--ours "$OUT/main-ours/obs.log" --documented "$CDIR/documented" \
		--lister "$UECONF --seed $SEED" \
		--state "$OUT/state" > "$OUT/diff-summary.txt" || diffrc=$?
	for r in $(seq 1 "$rounds"); do
		python3 "$CDIR/compare.py" shrink-plan --state "$OUT/state" \
			--out "$OUT/shrink-$r.batch" || break
		log "shrink round $r: $(wc -l < "$OUT/shrink-$r.batch") candidate sequences"
		run_both "shrink$r" "--seed $SEED --batch $OUT/shrink-$r.batch"
		python3 "$CDIR/compare.py" shrink-eval --state "$OUT/state" \
			--up "$OUT/shrink$r-upstream/obs.log" \
			--ours "$OUT/shrink$r-ours/obs.log" --max-rounds "$rounds"
	done
	python3 "$CDIR/compare.py" report --state "$OUT/state" \
		--md "$OUT/REPORT.md" --lister "$UECONF --seed $SEED" \
		--title "seed $SEED, $COUNT sequences, $OURS kernel vs upstream, $(date -u '+%F %H:%M UTC'), $(since "$t0")s in all"
	log "report: $OUT/REPORT.md, differences: $OUT/state/diff.txt"
	cat "$OUT/diff-summary.txt"
	[ "$diffrc" -eq 0 ]
}

do_record() {
	local f=$CDIR/upstream-$CHECK_SEED-$CHECK_COUNT.log
	if [ "${CONF_NOBUILD:-0}" = 1 ]; then
		build_ueconf "$UECONF"
	else
		KERNEL=upstream "$WB_DIR/build.sh" kernel
		snapshot upstream
	fi
	COUNT=$CHECK_COUNT
	guest_run upstream "$OUT/record" "--seed $CHECK_SEED --count $CHECK_COUNT" ||
		{ tail -n 30 "$OUT/record.out" >&2; die "upstream run failed"; }
	xz -9 -c "$OUT/record/obs.log" > "$f.xz"
	log "recorded $(wc -l < "$OUT/record/obs.log") observations in $f.xz"
}

# make check: run the recorded sequences in the guest, compare there.
do_install() {
	local dir=$1 rec=$CDIR/upstream-$CHECK_SEED-$CHECK_COUNT.log.xz
	[ "${ARCH:-x86_64}" = x86_64 ] || return 0
	[ -f "$rec" ] || { log "conformance: no $rec, not run"; return 0; }
	mkdir -p "$dir/conformance"
	build_ueconf "$dir/conformance/ueconf" "$OBJ/usr/include" ||
		{ log "conformance: ueconf does not build, not run"; return 0; }
	cat > "$dir/conformance_test" <<-EOF
	#!/bin/sh
	# generated by workbench/conformance.sh install: the recorded upstream
	# sequences on this kernel, one TAP test per sequence
	count=$CHECK_COUNT
	# the debug kernel is ~10x slower: a prefix of the recording
	[ -e /sys/kernel/debug/kmemleak ] && count=300
	"$dir/conformance/ueconf" --seed $CHECK_SEED --count \$count \\
		> /tmp/conformance.log || exit 1
	# our observations next to the results, for a look at what differs
	cp /tmp/conformance.log /run/wb/conformance.log 2>/dev/null
	exec python3 "$CDIR/compare.py" tap --up "$rec" \\
		--ours /tmp/conformance.log --documented "$CDIR/documented" \\
		--lister "$dir/conformance/ueconf --seed $CHECK_SEED"
	EOF
	chmod +x "$dir/conformance_test"
	grep -qx conformance_test "$dir/.list" 2>/dev/null ||
		echo conformance_test >> "$dir/.list"
}

case ${1:-run} in
run) do_run ;;
record) do_record ;;
install) do_install "$2" ;;
chunk) do_chunk "$2" "$3" "$4" "$5" ;;
*) die "usage: conformance.sh [run|record|install DIR]" ;;
esac
exit
}
