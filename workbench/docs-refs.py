#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""References of the documents that cannot go stale (make docs).

README.md, Documentation/**/*.rst and workbench/series/cover-letter may
name only:

 - test programs (NAME_test) that have a source NAME_test.c among the
   selftests or the library's tests;
 - files and directories (paths under the repo's top-level directories)
   of the repo, or of the base tree (build/pristine, or the list of
   /usr/src/linux-source-6.12.tar.xz when nothing is extracted yet);
 - make targets of the Makefile ("make WORD": in the README and the
   documents inside code only, in the cover letter anywhere);
 - sysctls (/proc/sys/DIR/NAME, kernel.NAME) that the code
   registers: the .procname strings of kernel/trace/trace_user_events.c,
   the UCOUNT_ENTRY names of workbench/patches/0002-*.patch, upstream's
   user_events_max, and any .procname of the base tree's kernel/.

The kernel documentation (Documentation/) names no workbench/ path.
Documentation/trace/user_events.rst names test programs only in the
"Tested by" paragraph that ends each of its sections (the Overview
aside; a subsection may have its own), and each selftest
program of ours (upstream's four aside) is named by exactly one section.

It also checks that the README's figures summary, between its
bench-summary markers, is what workbench/bench/report.py --summary makes
of workbench/bench/RESULTS.md.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

TARBALL = '/usr/src/linux-source-6.12.tar.xz'
TOPDIRS = ('Documentation', 'include', 'kernel', 'samples', 'tools',
           'workbench', 'scripts', 'mm', 'fs', 'arch', 'lib', '.ci')
PATH_RE = re.compile(r'(?<![\w./-])((?:%s)/[\w./+-]*)' %
                     '|'.join(re.escape(d) for d in TOPDIRS))
TEST_RE = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*_test)\b")
MAKE_RE = re.compile(r'\bmake ([a-z][a-z0-9_-]*)\b')
SYSCTL_RE = re.compile(r'/proc/sys/(?:kernel|user|vm|fs)/([a-z][a-z0-9_]*)|'
                       r'\bkernel\.([a-z][a-z0-9]*_[a-z0-9_]*)\b')


USER_DOC = 'Documentation/trace/user_events.rst'
HEADING_RE = re.compile(r'^(\S.*)\n(=+|-+)$', re.M)


def is_title(text, m):
    """Is heading @m the document's title (overlined as underlined)?"""
    over = text[:m.start()].rstrip('\n').rsplit('\n', 1)[-1]
    return bool(over) and set(over) == {m.group(2)[0]}


def tested_by(text, ours):
    """What is wrong with the "Tested by" paragraphs of USER_DOC"""
    bad, named = [], {}
    heads = [m for m in HEADING_RE.finditer(text)
             if len(m.group(2)) >= len(m.group(1))]
    for k, m in enumerate(heads):
        title = m.group(1)
        if is_title(text, m):
            continue  # checked with the preamble
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        paras = re.split(r'\n\s*\n', text[m.end():end])
        paras = [p for p in paras if p.strip()]
        said = [p for p in paras if p.startswith('Tested by ')]
        if said and paras[-1] is not said[-1]:
            bad.append(f'{USER_DOC}: "{title}": its Tested by paragraph is '
                       f'not its last')
        for p in paras:
            if TEST_RE.search(p) and not p.startswith('Tested by '):
                bad.append(f'{USER_DOC}: "{title}" names a test program '
                           f'outside its Tested by paragraph')
        if len(said) > 1 or (not said and m.group(2)[0] == '=' and
                             title != 'Overview'):
            bad.append(f'{USER_DOC}: "{title}" has {len(said)} Tested by '
                       f'paragraphs, not 1')
        for t in TEST_RE.findall(' '.join(said)):
            named.setdefault(t, set()).add(title)
    first = min([m.start() for m in heads if not is_title(text, m)] or
                [len(text)])
    if TEST_RE.search(text[:first]):
        bad.append(f'{USER_DOC}: the preamble names a test program')
    for t in sorted(ours):
        if len(named.get(t, ())) != 1:
            bad.append(f'{USER_DOC}: {t} is named by {len(named.get(t, ()))} '
                       f'sections, not 1')
    return bad


def code_of(name, text):
    """The parts of @text that are code: spans and blocks."""
    if name.endswith('.md'):
        parts = re.findall(r'^```.*?^```', text, re.M | re.S)
        parts += re.findall(r'^(?: {4}|\t).*$', text, re.M)
        parts += re.findall(r'`[^`\n]+`', text)
    else:
        parts = re.findall(r'``.+?``', text, re.S)
        # literal blocks: the indented lines after a "::" paragraph
        lines = text.split('\n')
        for i, line in enumerate(lines):
            if not line.rstrip().endswith('::'):
                continue
            ind = len(line) - len(line.lstrip())
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= ind:
                    break
                parts.append(nxt)
    return '\n'.join(parts)


def base_files(pristine, cache):
    """Paths of the base tree: a set, or None when it cannot be listed."""
    if os.path.isdir(os.path.join(pristine, 'kernel')):
        return None     # looked up on the disk
    if not os.path.isfile(cache) and os.path.isfile(TARBALL):
        r = subprocess.run(['tar', '-tJf', TARBALL], capture_output=True,
                           text=True)
        if r.returncode == 0:
            with open(cache, 'w') as f:
                for p in r.stdout.splitlines():
                    f.write(p.split('/', 1)[1] + '\n' if '/' in p else '')
    if not os.path.isfile(cache):
        return set()
    names = set()
    for p in open(cache).read().split('\n'):
        names.add(p.rstrip('/'))
    return names


def path_exists(path, repo, pristine, listed):
    if os.path.exists(os.path.join(repo, path)):
        return True
    if listed is None:
        return os.path.exists(os.path.join(pristine, path))
    return path in listed


def sysctls(repo, pristine):
    names = {'user_events_max'}
    src = open(os.path.join(repo, 'kernel/trace/trace_user_events.c')).read()
    names |= set(re.findall(r'\.procname\s*=\s*"([^"]+)"', src))
    for p in glob.glob(os.path.join(repo, 'workbench/patches/0002-*.patch')):
        names |= set(re.findall(r'UCOUNT_ENTRY\("([^"]+)"\)', open(p).read()))
    return names


def in_base(name, pristine):
    """A .procname of the base tree's kernel/ (tracepoint_printk, ...)"""
    d = os.path.join(pristine, 'kernel')
    if not os.path.isdir(d):
        return False
    r = subprocess.run(['grep', '-rqE', '--include=*.c',
                        r'\.procname\s*=\s*"%s"' % re.escape(name), d])
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repo', required=True)
    ap.add_argument('--pristine', required=True)
    ap.add_argument('--cache', required=True)
    a = ap.parse_args()
    repo = a.repo

    docs = ['README.md', 'workbench/series/cover-letter']
    docs += sorted(os.path.relpath(p, repo) for p in glob.glob(
        os.path.join(repo, 'Documentation/**/*.rst'), recursive=True))
    targets = set(re.findall(r'^([a-z][\w-]*):',
                             open(os.path.join(repo, 'Makefile')).read(),
                             re.M))
    tests = {os.path.basename(p)[:-2] for p in
             glob.glob(os.path.join(repo, 'tools/testing/selftests/'
                                    'user_events/*_test.c')) +
             glob.glob(os.path.join(repo, 'tools/lib/user_events/tests/'
                                    '*_test.c'))}
    upstream = re.search(r'^UE_UPSTREAM_ALL := (.*)$', open(os.path.join(
        repo, 'tools/testing/selftests/user_events/Makefile')).read(),
        re.M).group(1).split()
    ours = {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(
        repo, 'tools/testing/selftests/user_events/*_test.c'))} - set(upstream)
    known_sysctls = sysctls(repo, a.pristine)
    listed = base_files(a.pristine, a.cache)
    if listed == set():
        print('docs-refs: base tree not available: paths outside the repo '
              'are not checked', file=sys.stderr)

    bad = []
    for doc in docs:
        text = open(os.path.join(repo, doc)).read()
        code = text if doc.endswith('cover-letter') else code_of(doc, text)
        for n, line in enumerate(text.split('\n'), 1):
            where = f'{doc}:{n}'
            for t in TEST_RE.findall(line):
                if t not in tests:
                    bad.append(f'{where}: no test program {t}')
            for p in PATH_RE.findall(line):
                p = p.rstrip('.,:;)')
                if re.search(r'[<>*]|\.\.\.|NAME|/N(?:/|$)', p):
                    continue
                if listed == set() and not os.path.exists(
                        os.path.join(repo, p)):
                    continue
                if not path_exists(p.rstrip('/'), repo, a.pristine, listed):
                    bad.append(f'{where}: no file {p}')
            for m in SYSCTL_RE.finditer(line):
                s = m.group(1) or m.group(2)
                if s not in known_sysctls and not in_base(s, a.pristine):
                    bad.append(f'{where}: no sysctl {s}')
        if doc.startswith('Documentation/'):
            for n, line in enumerate(text.split('\n'), 1):
                if re.search(r'\bworkbench/', line) or (
                        doc != USER_DOC and TEST_RE.search(line)):
                    bad.append(f'{doc}:{n}: names the workbench or a test '
                               f'program: {line.strip()}')
        if doc == USER_DOC:
            bad += tested_by(text, ours)
        for t in MAKE_RE.findall(code):
            if t not in targets:
                bad.append(f'{doc}: no make target "{t}"')

    # the README's summary of the figures
    readme = open(os.path.join(repo, 'README.md')).read()
    m = re.search(r'<!-- bench-summary -->\n(.*?)\n<!-- /bench-summary -->',
                  readme, re.S)
    want = subprocess.run([sys.executable, os.path.join(
        repo, 'workbench/bench/report.py'), '--summary', os.path.join(
        repo, 'workbench/bench/RESULTS.md')], capture_output=True, text=True)
    if not m:
        bad.append('README.md: no bench-summary block')
    elif want.returncode or m.group(1).strip() != want.stdout.strip():
        bad.append('README.md: the bench summary is not what '
                   'workbench/bench/RESULTS.md gives (report.py --summary)')

    for b in bad:
        print(f'FAIL: {b}', file=sys.stderr)
    print(f'docs-refs: {len(docs)} files, {len(tests)} test programs, '
          f'{len(targets)} make targets, {len(known_sysctls)} sysctls of '
          f'ours: {len(bad)} bad reference(s)', file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
