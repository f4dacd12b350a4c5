#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make docs: render every .rst of the series with plain docutils (Debian's
# python3-docutils), failing on any warning or error (halt level 2), so the
# documents are valid without Sphinx and its kernel-only roles.  HTML goes
# to build/docs/.  Complete C programs in the documents (literal blocks that
# start with an SPDX line and contain main()) are compiled with -Werror
# against the series' uapi headers, so the examples stay correct.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps python3-docutils

OUT=$BUILD/docs
rm -rf "$OUT"
mkdir -p "$OUT/inc/linux"
cp "$REPO/include/uapi/linux/user_events.h" "$OUT/inc/linux/"

mapfile -t docs < <(cd "$REPO" && git ls-files -co --exclude-standard -- \
	'Documentation/*.rst' | sort -u)
[ ${#docs[@]} -gt 0 ] || die "no Documentation/*.rst in the repo"

fail=0
for d in "${docs[@]}"; do
	# Debian's interpreter, not whatever python3 is first in PATH
	if /usr/bin/python3 - "$REPO/$d" "$OUT/$(basename "$d" .rst).html" \
		"$OUT/$(basename "$d" .rst)" <<'PY'
import re
import sys

import docutils.core
import docutils.utils

src, html, cbase = sys.argv[1:4]
text = open(src, encoding='utf-8').read()
try:
    out = docutils.core.publish_string(
        text, source_path=src, writer_name='html',
        settings_overrides={'halt_level': 2, 'report_level': 2,
                            'syntax_highlight': 'none',
                            'exit_status_level': 2,
                            'output_encoding': 'utf-8'})
except docutils.utils.SystemMessage as e:
    print(f'{src}: docutils halted on the message above', file=sys.stderr)
    sys.exit(1)
open(html, 'wb').write(out)

# Literal blocks that are complete programs: "::" paragraph, then an
# indented block whose first line is an SPDX comment.
n = 0
lines = text.split('\n')
i = 0
while i < len(lines):
    if lines[i].rstrip().endswith('::'):
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and 'SPDX-License-Identifier' in lines[j]:
            ind = len(lines[j]) - len(lines[j].lstrip())
            block = []
            while j < len(lines) and (not lines[j].strip() or
                    len(lines[j]) - len(lines[j].lstrip()) >= ind):
                block.append(lines[j][ind:])
                j += 1
            code = '\n'.join(block).rstrip() + '\n'
            if re.search(r'\bint main\(', code):
                n += 1
                open(f'{cbase}-example{n}.c', 'w').write(code)
            i = j
            continue
    i += 1
print(f"{src}: rendered, {n} program(s) extracted", file=sys.stderr)
PY
	then :; else fail=1; continue; fi
	for c in "$OUT/$(basename "$d" .rst)"-example*.c; do
		[ -e "$c" ] || continue
		if gcc -std=gnu11 -Wall -Wextra -Werror -I "$OUT/inc" \
			-o "${c%.c}" "$c" 2> "${c%.c}.log"; then
			log "$d: $(basename "$c") compiles"
		else
			cat "${c%.c}.log" >&2
			log "FAIL: $d: $(basename "$c") does not compile"
			fail=1
		fi
	done
	# the document must be reachable from the trace index of the base tree
	idx=$PRISTINE/$(dirname "$d")/index.rst
	if [ -f "$idx" ] && ! grep -qx "   $(basename "$d" .rst)" "$idx"; then
		log "FAIL: $d is not listed in $(dirname "$d")/index.rst"
		fail=1
	fi
done
[ $fail -eq 0 ] || die "docs check failed"
log "docs: ${#docs[@]} document(s) OK, HTML in $OUT"
