#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compose the patch series listed in workbench/series/patches.list.

    series.py compose --series-files F --removed F --git DIR --out DIR

Every patch of the series is made of whole things, so that an edit of a
product file changes that file only:

  file PATH     the repo's file PATH as it is (PATH ending in "/": every
                series file under it that no other "file" line names)
  rm PATH       a base-tree file (or, ending in "/", every base file under
                it) the series deletes
  diff NAME     workbench/patches/NAME, a forward diff of base-tree files;
                the workbench applies them in the order of their names,
                and so must the list

Each series file and each workbench patch belongs to exactly one patch.
The patches are committed on branch "series" of build/series-git (the base
tree, tag "base"); the tip must be exactly the tree the workbench builds.
git format-patch writes them, with the cover letter, to --out.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

AUTHOR_NAME = 'User Events Team'
AUTHOR_EMAIL = 'kernel-team@user-events.invalid'
SOB = f'Signed-off-by: {AUTHOR_NAME} <{AUTHOR_EMAIL}>'


def die(msg):
    print(f'[series] ERROR: {msg}', file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f'[series] {msg}', file=sys.stderr)


def git(gitdir, *args, env=None):
    r = subprocess.run(['git', '-C', gitdir, *args], text=True,
                       env={**os.environ, **(env or {})},
                       stdout=subprocess.PIPE)
    if r.returncode:
        die(f'git {" ".join(args)} failed')
    return r.stdout


class Patch:
    def __init__(self, slug):
        self.slug = slug
        self.files = []
        self.rms = []
        self.diffs = []


def parse_list(path):
    patches = []
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        word, _, arg = line.partition(' ')
        arg = arg.strip()
        if not arg or ' ' in arg:
            die(f'{path}:{n}: usage: {word} ARG')
        if word == 'patch':
            if any(p.slug == arg for p in patches):
                die(f'{path}:{n}: duplicate patch "{arg}"')
            patches.append(Patch(arg))
        elif not patches:
            die(f'{path}:{n}: "{word}" before the first "patch"')
        elif word in ('file', 'rm', 'diff'):
            getattr(patches[-1], {'file': 'files', 'rm': 'rms',
                                  'diff': 'diffs'}[word]).append(arg)
        else:
            die(f'{path}:{n}: unknown directive "{word}"')
    return patches


def diff_paths(diff):
    """Paths (without the b/ prefix) a unified diff changes."""
    return re.findall(r'^\+\+\+ b/(\S+)', open(diff).read(), re.M)


def expand(patches, series_files, removed, wb):
    """Resolve directories; every file and workbench patch in one patch."""
    owner = {}
    for p in patches:
        for f in p.files:
            if f.endswith('/'):
                continue
            if f not in series_files:
                die(f'patch {p.slug}: {f} is not a file of the series')
            if f in owner:
                die(f'{f} is in patches {owner[f]} and {p.slug}')
            owner[f] = p.slug
    for p in patches:
        files = []
        for f in p.files:
            if f.endswith('/'):
                under = sorted(s for s in series_files
                               if s.startswith(f) and s not in owner)
                owner.update((s, p.slug) for s in under)
                files += under
            else:
                files.append(f)
        p.files = files
    missing = sorted(set(series_files) - set(owner))
    if missing:
        die('files of the series in no patch: ' + ' '.join(missing))
    gone = {f for p in patches for r in p.rms for f in removed
            if f == r or (r.endswith('/') and f.startswith(r))}
    missing = sorted(set(removed) - gone - set(owner))
    if missing:
        die('base files the workbench deletes but no patch removes: '
            + ' '.join(missing))
    listed = [d for p in patches for d in p.diffs]
    have = sorted(f for f in os.listdir(os.path.join(wb, 'patches'))
                  if f.endswith('.patch'))
    if listed != have:
        die('the "diff" lines must name every workbench/patches/*.patch '
            f'once, in the order of their names: {have}')


def compose(args):
    wb, gitdir = args.wb, args.git
    patches = parse_list(os.path.join(wb, 'series', 'patches.list'))
    series_files = [f for f in open(args.series_files).read().split() if f]
    removed = [f for f in open(args.removed).read().split() if f]
    expand(patches, series_files, removed, wb)
    date = git(args.repo, 'log', '-1', '--format=%aI').strip()
    env = {'GIT_AUTHOR_NAME': AUTHOR_NAME, 'GIT_AUTHOR_EMAIL': AUTHOR_EMAIL,
           'GIT_COMMITTER_NAME': AUTHOR_NAME,
           'GIT_COMMITTER_EMAIL': AUTHOR_EMAIL,
           'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date}
    git(gitdir, 'checkout', '-q', '-f', '-B', 'series', 'base')
    git(gitdir, 'clean', '-q', '-f', '-d', '-x')
    for p in patches:
        msgf = os.path.join(wb, 'series', 'msg', p.slug)
        if not os.path.isfile(msgf):
            die(f'patch {p.slug}: no message file series/msg/{p.slug}')
        for r in p.rms:
            git(gitdir, 'rm', '-q', '-r', '--', r)
        for d in p.diffs:
            with open(os.path.join(wb, 'patches', d)) as fp:
                if subprocess.run(['patch', '-s', '-p1', '-F0', '-d', gitdir,
                                   '--no-backup-if-mismatch'],
                                  stdin=fp).returncode:
                    die(f'patch {p.slug}: {d} does not apply')
            git(gitdir, 'add', '-f', '--', *diff_paths(
                os.path.join(wb, 'patches', d)))
        for f in p.files:
            src, dst = os.path.join(args.repo, f), os.path.join(gitdir, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755 if os.access(src, os.X_OK) else 0o644)
            git(gitdir, 'add', '-f', '--', f)
        if not git(gitdir, 'diff', '--cached', '--name-only').strip():
            die(f'patch {p.slug}: no changes')
        msg = open(msgf).read().rstrip()
        if SOB not in msg:
            msg += '\n\n' + SOB
        r = subprocess.run(['git', '-C', gitdir, 'commit', '-q', '-F', '-'],
                           input=msg + '\n', text=True,
                           env={**os.environ, **env})
        if r.returncode:
            die(f'patch {p.slug}: commit failed')
    verify(args, series_files, removed)
    return patches


def verify(args, series_files, removed):
    """The series tip must be the tree the workbench builds."""
    gitdir = args.git
    bad = []
    for f in series_files:
        b = os.path.join(gitdir, f)
        if not os.path.isfile(b) or open(b, 'rb').read() != \
                open(os.path.join(args.repo, f), 'rb').read():
            bad.append(f)
    # base files: what prepare_src makes (every workbench patch, in order)
    tmp = os.path.join(args.out, '.verify')
    shutil.rmtree(tmp, ignore_errors=True)
    pdir = os.path.join(args.wb, 'patches')
    names = sorted(f for f in os.listdir(pdir) if f.endswith('.patch'))
    patched = sorted({f for n in names
                      for f in diff_paths(os.path.join(pdir, n))
                      if f not in series_files})
    for f in {f for n in names for f in diff_paths(os.path.join(pdir, n))}:
        os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
        shutil.copyfile(os.path.join(args.pristine, f), os.path.join(tmp, f))
    for n in names:
        with open(os.path.join(pdir, n)) as fp:
            if subprocess.run(['patch', '-s', '-p1', '-d', tmp,
                               '--no-backup-if-mismatch'],
                              stdin=fp).returncode:
                die(f'{n} does not apply to the base tree')
    bad += [f for f in patched if open(os.path.join(tmp, f), 'rb').read()
            != open(os.path.join(gitdir, f), 'rb').read()]
    shutil.rmtree(tmp, ignore_errors=True)
    bad += [f for f in removed if f not in series_files and
            os.path.exists(os.path.join(gitdir, f))]
    changed = set(git(gitdir, 'diff', '--name-only', 'base', 'series')
                  .split())
    bad += sorted(changed - set(series_files) - set(patched) - set(removed))
    if bad:
        die('the series differs from the workbench tree in: '
            + ' '.join(sorted(set(bad))))
    log(f'series tip == workbench tree ({len(changed)} paths changed)')


def figures(repo):
    text = open(os.path.join(repo, 'README.md')).read()
    m = re.search(r'^## Figures\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    fig = m.group(1).strip() if m else ''
    # plain text: no HTML comments (the bench-summary markers), links as
    # their targets
    fig = re.sub(r'^<!--.*-->\n?', '', fig, flags=re.M).strip()
    fig = re.sub(r'\[([^]]*)\]\(([^)]*)\)', r'\2', fig)
    return fig or 'TODO'


def format_patches(args, patches):
    out = args.out
    for f in os.listdir(out):
        if f.endswith('.patch'):
            os.unlink(os.path.join(out, f))
    git(args.git, 'format-patch', '-q', '--cover-letter', '--thread=shallow',
        '-o', out, 'base..series')
    cover = os.path.join(out, '0000-cover-letter.patch')
    tmpl = open(os.path.join(args.wb, 'series', 'cover-letter')).read()
    tmpl = tmpl.replace('@FIGURES@', figures(args.repo))
    tmpl = tmpl.replace('@CHECK_RESULTS@', args.check_results or
                        '(no make check results found)')
    subject, _, blurb = tmpl.partition('\n')
    text = open(cover).read()
    text = text.replace('*** SUBJECT HERE ***', subject.strip())
    text = text.replace('*** BLURB HERE ***', blurb.strip())
    open(cover, 'w').write(text)
    log(f'{len(patches)} patches + cover letter in {out}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cmd', choices=['compose'])
    ap.add_argument('--repo', required=True)
    ap.add_argument('--pristine', required=True)
    ap.add_argument('--git', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--series-files', required=True)
    ap.add_argument('--removed', required=True)
    ap.add_argument('--check-results', default='',
                    help='text for @CHECK_RESULTS@ of the cover letter')
    args = ap.parse_args()
    args.wb = os.path.join(args.repo, 'workbench')
    os.makedirs(args.out, exist_ok=True)
    format_patches(args, compose(args))


if __name__ == '__main__':
    main()
