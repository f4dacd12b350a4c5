#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lint: static checks of the series' kernel code and documents.
#
#  1. docs: workbench/docs.sh (docutils, warnings are errors; examples
#     compile; references checked; see its header).
#  2. sparse (C=2: checks even up-to-date objects) and W=1 on our objects
#     only (kernel/trace/trace_user_events*.o), built in build/obj-lint
#     from build/src with the test config, under the build lock.
#  3. scripts/kernel-doc -none -Wall on our sources and headers.
#
# Prints every finding and fails when there is any.  Findings are kept in
# build/lint/.
set -euo pipefail
KERNEL=test
. "$(dirname "$0")/lib.sh"
ensure_deps sparse python3-docutils

OUT=$BUILD/lint
rm -rf "$OUT"
mkdir -p "$OUT"
fail=0

# the series' kernel sources and headers (what kernel-doc and the finding
# filter look at)
OURS=(kernel/trace/trace_user_events.c kernel/trace/trace_user_events.h
      kernel/trace/trace_user_events_parse.c
      kernel/trace/trace_user_events_kunit.c include/linux/user_events.h
      include/uapi/linux/user_events.h)
OBJS=(kernel/trace/trace_user_events.o kernel/trace/trace_user_events_parse.o
      kernel/trace/trace_user_events_kunit.o)
ours_re=$(printf '%s|' "${OURS[@]}"); ours_re="(${ours_re%|})"

echo "===== docs"
if "$WB_DIR/docs.sh"; then
	echo "docs: OK"
else
	echo "docs: FAILED"
	fail=1
fi

echo "===== sparse (C=2) and W=1: ${OBJS[*]}"
exec 9>"$BUILD/.build.lock"
if ! flock -n 9; then
	log "waiting for another kernel build (lock $BUILD/.build.lock)"
	flock 9
fi
prepare_tree
OBJ=$BUILD/obj-lint
configure
for o in "${OBJS[@]}"; do rm -f "$OBJ/$o"; done
blog=$OUT/build.log
if ! kmake C=2 W=1 "${OBJS[@]}" > "$blog" 2>&1; then
	cat "$blog"
	echo "sparse/W=1: build FAILED"
	fail=1
fi
exec 9>&-
# findings in our files; anything else is shown but not counted
grep -E "^(\.\./)*.*${ours_re}:[0-9]+(:[0-9]+)?: (warning|error)" "$blog" \
	> "$OUT/sparse-w1.txt" || true
grep -E '(warning|error):' "$blog" | grep -v -E "${ours_re}:" \
	> "$OUT/other.txt" || true
if [ -s "$OUT/sparse-w1.txt" ]; then
	sed 's/^/  /' "$OUT/sparse-w1.txt"
	echo "sparse/W=1: $(wc -l < "$OUT/sparse-w1.txt") finding(s)"
	fail=1
else
	echo "sparse/W=1: 0 findings"
fi
if [ -s "$OUT/other.txt" ]; then
	echo "  (not counted, outside our files:)"
	sed 's/^/    /' "$OUT/other.txt"
fi

echo "===== kernel-doc -none -Wall"
(cd "$SRC" && perl scripts/kernel-doc -none -Wall "${OURS[@]}") \
	> "$OUT/kernel-doc.txt" 2>&1 || true
if [ -s "$OUT/kernel-doc.txt" ]; then
	sed 's/^/  /' "$OUT/kernel-doc.txt"
	echo "kernel-doc: $(grep -c . "$OUT/kernel-doc.txt") finding(s)"
	fail=1
else
	echo "kernel-doc: 0 findings"
fi

echo
if [ $fail -eq 0 ]; then
	echo "make lint: OK"
else
	echo "make lint: FAILED (findings in $OUT)"
	exit 1
fi
