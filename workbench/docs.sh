#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make docs: render every .rst of the series with plain docutils (Debian's
# python3-docutils), failing on any warning or error (halt level 2), so the
# documents are valid without Sphinx.  HTML goes to build/docs/.
#
#  - ".. kernel-doc:: FILE" is rendered with the base tree's
#    scripts/kernel-doc (build/pristine, once a build extracted it), its
#    Sphinx-only directives and roles shown as plain text; without it the
#    directive only checks that FILE exists.
#  - Complete C programs in the documents (literal blocks that start with
#    an SPDX line and contain main()) are compiled with -Werror against the
#    series' uapi headers, so the examples stay correct.
#  - README.md, the documents and workbench/series/cover-letter may name
#    only test programs (*_test), files, make targets and sysctls that
#    exist (docs-refs.py), and the README's figures summary must be the
#    one workbench/bench/RESULTS.md gives.
#  - The README's blocks fenced as "sh guest" run in the test kernel
#    (workbench/vm.sh) when it and the sample are built; make docs never
#    builds a kernel.
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

# Run each block of README.md fenced as "sh guest" with sh -ex in the test
# kernel, from a snapshot of its image taken under the build lock.
run_guest_blocks() {
	local img=$BUILD/obj-test/arch/x86/boot/bzImage
	local ex=$BUILD/obj-test/samples/example n=0 f rc=0
	/usr/bin/python3 - "$REPO/README.md" "$OUT/guest" <<'PY'
import re
import sys

text = open(sys.argv[1]).read()
for n, m in enumerate(re.finditer(r'^```sh guest\n(.*?)^```', text,
                                  re.M | re.S), 1):
    open(f'{sys.argv[2]}-{n}.sh', 'w').write(m.group(1))
PY
	for f in "$OUT"/guest-*.sh; do
		[ -e "$f" ] && n=$((n + 1))
	done
	if [ $n -eq 0 ]; then
		log "FAIL: README.md has no block fenced as \"sh guest\""
		return 1
	fi
	if [ ! -f "$img" ] || [ ! -x "$ex" ]; then
		log "docs: $n README guest block(s) not run: no test kernel and sample built (make kernel)"
		return 0
	fi
	exec 9>"$BUILD/.build.lock"
	if ! flock -w 10 9; then
		exec 9>&-
		log "docs: $n README guest block(s) not run: a build holds $BUILD/.build.lock"
		return 0
	fi
	cp "$img" "$OUT/bzImage-test"
	exec 9>&-
	for f in "$OUT"/guest-*.sh; do
		log "docs: running README block $(basename "$f") in the test kernel"
		if KERNEL=test VM_BZIMAGE=$OUT/bzImage-test \
			"$WB_DIR/vm.sh" "sh -ex $f" > "${f%.sh}.out" 2>&1; then
			log "docs: $(basename "$f"): OK (output in ${f%.sh}.out)"
		else
			cat "${f%.sh}.out" >&2
			log "FAIL: README block $(basename "$f") failed in the guest"
			rc=1
		fi
	done
	return $rc
}

fail=0
for d in "${docs[@]}"; do
	# Debian's interpreter, not whatever python3 is first in PATH
	if REPO=$REPO PRISTINE=$PRISTINE /usr/bin/python3 - "$REPO/$d" "$OUT/$(basename "$d" .rst).html" \
		"$OUT/$(basename "$d" .rst)" <<'PY'
import re
import sys

import os
import subprocess

import docutils.core
import docutils.utils
from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles

src, html, cbase = sys.argv[1:4]
text = open(src, encoding='utf-8').read()
repo, pristine = os.environ['REPO'], os.environ['PRISTINE']
kdoc = os.path.join(pristine, 'scripts', 'kernel-doc')


class KernelDoc(Directive):
    """.. kernel-doc:: FILE, through scripts/kernel-doc -rst when present"""
    required_arguments = 1
    option_spec = {k: directives.unchanged for k in
                   ('doc', 'export', 'internal', 'identifiers',
                    'no-identifiers', 'functions')}

    def run(self):
        path = self.arguments[0]
        full = os.path.join(repo, path)
        if not os.path.isfile(full):
            full = os.path.join(pristine, path)
        if not os.path.isfile(full):
            raise self.error(f'kernel-doc: no file {path}')
        if not os.path.isfile(kdoc):
            print(f'{src}: kernel-doc {path}: not rendered, no '
                  f'{kdoc} (no build yet)', file=sys.stderr)
            return [nodes.paragraph(text=f'(kernel-doc of {path})')]
        r = subprocess.run(['perl', kdoc, '-rst', '-sphinx-version', '1.2.0',
                            '-Werror', full], capture_output=True, text=True)
        if r.returncode:
            raise self.error(f'kernel-doc {path}: {r.stderr.strip()}')
        self.state_machine.insert_input(r.stdout.splitlines(), full)
        return []


class CDecl(Directive):
    """kernel-doc's .. c:type:: DECL and friends: the declaration, bold"""
    required_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self):
        para = nodes.paragraph()
        para += nodes.strong(text=self.arguments[0])
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [para] + node.children


def c_role(name, rawtext, text, lineno, inliner, options={}, content=[]):
    """:c:type:`struct x <x>` and friends: the text, as code"""
    return [nodes.literal(text=re.sub(r'\s*<[^>]*>$', '', text))], []


directives.register_directive('kernel-doc', KernelDoc)
for d in ('c:type', 'c:function', 'c:macro', 'c:struct', 'c:enum',
          'c:union', 'c:var'):
    directives.register_directive(d, CDecl)
for r in ('c:type', 'c:func', 'c:macro', 'c:data', 'ref', 'doc'):
    roles.register_local_role(r, c_role)
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

# references: tests, files, make targets, sysctls; the figures summary
/usr/bin/python3 "$WB_DIR/docs-refs.py" --repo "$REPO" \
	--pristine "$PRISTINE" --cache "$BUILD/.pristine-files" || fail=1

# the README's "sh guest" blocks, in the test kernel if it is built
run_guest_blocks || fail=1

[ $fail -eq 0 ] || die "docs check failed"
log "docs: ${#docs[@]} document(s) OK, HTML in $OUT"
