#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compose the patch series described by workbench/series/patches.list.

    series.py compose --series-files F --removed F
    series.py stages-export DIR     the staged files as of each patch, in
                                    DIR/<patch>/, to edit
    series.py stages-save DIR       stage diffs from those trees again

Commits the series on branch "series" of build/series-git (a git repository
of build/pristine with one commit, tag "base"), checks that the last commit
is exactly the tree the workbench builds, and writes git format-patch output
with a cover letter to build/series/.  Run by workbench/series.sh.
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


def git(gitdir, *args, env=None, capture=True):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(['git', '-C', gitdir, *args], env=e, text=True,
                       stdout=subprocess.PIPE if capture else None)
    if r.returncode:
        die(f'git {" ".join(args)} failed')
    return r.stdout if capture else ''


# ---------------------------------------------------------------------
# patches.list

class Step:
    def __init__(self, slug, lineno):
        self.slug = slug
        self.lineno = lineno
        self.files = []         # (path, source or None)
        self.rms = []           # paths, "dir/" for trees
        self.hunks = []         # (path, regex or None)
        self.stages = []        # stage diffs (paths relative to the repo)


def parse_list(path):
    steps = []
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        word, _, rest = line.partition(' ')
        rest = rest.strip()
        if word == 'patch':
            if not re.fullmatch(r'[a-z0-9][a-z0-9_-]*', rest):
                die(f'{path}:{n}: bad patch name "{rest}"')
            if any(s.slug == rest for s in steps):
                die(f'{path}:{n}: duplicate patch "{rest}"')
            steps.append(Step(rest, n))
            continue
        if not steps:
            die(f'{path}:{n}: "{word}" before the first "patch"')
        st = steps[-1]
        if word == 'file':
            args = rest.split()
            if len(args) not in (1, 2):
                die(f'{path}:{n}: usage: file PATH [SOURCE]')
            st.files.append((args[0], args[1] if len(args) == 2 else None))
        elif word == 'stage':
            if not rest or ' ' in rest:
                die(f'{path}:{n}: usage: stage DIFF')
            st.stages.append(rest)
        elif word == 'rm':
            if not rest or ' ' in rest:
                die(f'{path}:{n}: usage: rm PATH')
            st.rms.append(rest)
        elif word == 'hunks':
            p, _, rx = rest.partition(' ')
            rx = rx.strip() or None
            if rx:
                try:
                    re.compile(rx)
                except re.error as e:
                    die(f'{path}:{n}: bad regex: {e}')
            st.hunks.append((p, rx))
        else:
            die(f'{path}:{n}: unknown directive "{word}"')
    if not steps:
        die(f'{path}: no patches')
    return steps


# ---------------------------------------------------------------------
# workbench/patches: hunks of base files

def parse_patches(wbdir):
    """{path: [(old_start, [(tag, text)])]} for every patched base file."""
    files = {}
    origin = {}
    pdir = os.path.join(wbdir, 'patches')
    for name in sorted(os.listdir(pdir)):
        if not name.endswith('.patch'):
            continue
        cur = None
        lines = open(os.path.join(pdir, name)).read().split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        i = 0
        while i < len(lines):
            ln = lines[i]
            m = re.match(r'\+\+\+ b/(\S+)', ln)
            if m:
                cur = m.group(1)
                if cur in origin:
                    die(f'{cur} is patched by {origin[cur]} and {name}; '
                        'series.py supports one patch per base file')
                origin[cur] = name
                files[cur] = []
                i += 1
                continue
            m = re.match(r'@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@', ln)
            if m and cur:
                old = int(m.group(1))
                body = []
                i += 1
                while i < len(lines) and lines[i][:1] in (' ', '+', '-', '\\') \
                        and not lines[i].startswith(('--- ', '+++ ')):
                    if lines[i][:1] != '\\':
                        body.append((lines[i][0], lines[i][1:]))
                    i += 1
                files[cur].append((old, body))
                continue
            i += 1
    return files


def assign_owners(steps, patched):
    """{(path, hunk#, line#): step index} for every changed line."""
    owners = {}
    for path, hunks in patched.items():
        rules = [(k, rx) for k, st in enumerate(steps)
                 for p, rx in st.hunks if p == path]
        default = [k for k, rx in rules if rx is None]
        if len(default) > 1:
            die(f'{path}: more than one "hunks {path}" without a regex')
        for h, (_, body) in enumerate(hunks):
            for li, (tag, text) in enumerate(body):
                if tag == ' ':
                    continue
                owner = next((k for k, rx in rules
                              if rx and re.search(rx, text)), None)
                if owner is None:
                    if not default:
                        die(f'{path}: no patch takes the line "{tag}{text}"')
                    owner = default[0]
                owners[(path, h, li)] = owner
    for k, st in enumerate(steps):
        for p, _ in st.hunks:
            if p not in patched:
                die(f'patch {st.slug}: no workbench patch changes {p}')
    return owners


def content_at(pristine, path, hunks, owners, upto):
    """Text of base file @path with the changed lines of steps <= upto."""
    src = open(os.path.join(pristine, path)).read().split('\n')
    out = []
    pos = 0                     # next unconsumed line of src (0-based)
    for h, (old, body) in enumerate(hunks):
        start = old - 1 if old > 0 else 0
        if start < pos:
            die(f'{path}: overlapping hunks')
        out.extend(src[pos:start])
        pos = start
        for li, (tag, text) in enumerate(body):
            mine = tag != ' ' and owners[(path, h, li)] <= upto
            if tag in (' ', '-'):
                if pos >= len(src) or src[pos] != text:
                    die(f'{path}: hunk {h + 1} does not match the base tree')
                pos += 1
                if tag == ' ' or not mine:
                    out.append(text)
            elif mine:
                out.append(text)
    out.extend(src[pos:])
    return '\n'.join(out)


# ---------------------------------------------------------------------
# compose

def expand(steps, series_files, removed, repo):
    """Resolve directory entries; check that everything is assigned."""
    claimed = {}
    for k, st in enumerate(steps):
        for p, srcp in st.files:
            if p.endswith('/'):
                continue
            if srcp is None and p not in series_files:
                die(f'patch {st.slug}: {p} is not a file of the series')
            if srcp is not None and not os.path.isfile(
                    os.path.join(repo, srcp)):
                die(f'patch {st.slug}: {srcp} does not exist')
            claimed.setdefault(p, []).append(k)
        for d in st.stages:
            for p in diff_paths(os.path.join(repo, d)):
                if p not in series_files:
                    die(f'patch {st.slug}: {d} changes {p}, not a file of '
                        'the series')
                if p not in claimed:
                    die(f'patch {st.slug}: {d} changes {p}, which no '
                        'earlier patch adds')
                claimed[p].append(k)
    for k, st in enumerate(steps):
        new = []
        for p, srcp in st.files:
            if not p.endswith('/'):
                new.append((p, srcp))
                continue
            if srcp:
                die(f'patch {st.slug}: "file {p}" takes no SOURCE')
            under = sorted(f for f in series_files
                           if f.startswith(p) and f not in claimed)
            for f in under:
                claimed.setdefault(f, []).append(k)
                new.append((f, None))
        st.files = new
    for f, ks in claimed.items():
        last = steps[ks[-1]]
        if dict(last.files).get(f) is not None:
            die(f'{f}: the last patch naming it ({last.slug}) must take '
                'the repo file, not a SOURCE')
    missing = sorted(set(series_files) - set(claimed))
    if missing:
        die('files of the series in no patch: ' + ' '.join(missing))
    gone = set()
    for st in steps:
        for p in st.rms:
            gone.update(f for f in removed
                        if f == p or (p.endswith('/') and f.startswith(p)))
    missing = sorted(f for f in removed if f not in gone and f not in claimed)
    if missing:
        die('base files the workbench deletes but no patch removes: '
            + ' '.join(missing))


# ---------------------------------------------------------------------
# stage diffs: earlier versions of a file, for a finer split

def diff_paths(diff):
    """Paths (without the b/ prefix) a unified diff changes."""
    return [m.group(1) for m in
            re.finditer(r'^\+\+\+ b/(\S+)', open(diff).read(), re.M)]


def stage_versions(steps, repo, tmp):
    """{(path, k): file holding @path as it is after patch k}.

    A file that the stage diffs of later patches change is the repo's file
    with those diffs reverted, the last patch's first."""
    staged = {}
    for k, st in enumerate(steps):
        for d in st.stages:
            dp = os.path.join(repo, d)
            if not os.path.isfile(dp):
                die(f'patch {st.slug}: stage {d} does not exist')
            for f in diff_paths(dp):
                staged.setdefault(f, []).append(k)
    if not staged:
        return {}
    work = os.path.join(tmp, 'work')
    for f in staged:
        os.makedirs(os.path.dirname(os.path.join(work, f)), exist_ok=True)
        shutil.copyfile(os.path.join(repo, f), os.path.join(work, f))
    versions = {}
    for k in range(len(steps) - 1, -1, -1):
        snap = os.path.join(tmp, str(k))
        for f in staged:
            os.makedirs(os.path.dirname(os.path.join(snap, f)), exist_ok=True)
            shutil.copyfile(os.path.join(work, f), os.path.join(snap, f))
            versions[(f, k)] = os.path.join(snap, f)
        for d in reversed(steps[k].stages):
            with open(os.path.join(repo, d)) as fp:
                r = subprocess.run(['patch', '-s', '-R', '-p1', '-F0',
                                    '--no-backup-if-mismatch', '-d', work],
                                   stdin=fp, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
            if r.returncode:
                die(f'patch {steps[k].slug}: {d} does not revert cleanly '
                    f'from the files after it; refresh the stage diffs:\n'
                    + r.stdout)
    return versions


def base_files_under(gitdir, path):
    out = git(gitdir, 'ls-tree', '-r', '--name-only', 'base', '--', path)
    return [f for f in out.split('\n') if f]


def compose(args):
    repo, wb, pristine, gitdir = args.repo, args.wb, args.pristine, args.git
    steps = parse_list(os.path.join(wb, 'series', 'patches.list'))
    series_files = [f for f in open(args.series_files).read().split('\n')
                    if f]
    removed = [f for f in open(args.removed).read().split('\n') if f]
    expand(steps, series_files, removed, repo)
    patched = parse_patches(wb)
    owners = assign_owners(steps, patched)
    for st in steps:
        if not os.path.isfile(os.path.join(wb, 'series', 'msg', st.slug)):
            die(f'patch {st.slug}: no message file series/msg/{st.slug}')

    date = git(repo, 'log', '-1', '--format=%aI').strip()
    env = {'GIT_AUTHOR_NAME': AUTHOR_NAME, 'GIT_AUTHOR_EMAIL': AUTHOR_EMAIL,
           'GIT_COMMITTER_NAME': AUTHOR_NAME,
           'GIT_COMMITTER_EMAIL': AUTHOR_EMAIL,
           'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date}

    git(gitdir, 'checkout', '-q', '-f', '-B', 'series', 'base')
    git(gitdir, 'clean', '-q', '-f', '-d', '-x')
    made = []
    stage_tmp = os.path.join(args.out, '.stages')
    shutil.rmtree(stage_tmp, ignore_errors=True)
    versions = stage_versions(steps, repo, stage_tmp)
    for k, st in enumerate(steps):
        staged = [(p, None) for d in st.stages
                  for p in diff_paths(os.path.join(repo, d))]
        for p in st.rms:
            files = base_files_under(gitdir, p)
            if not files:
                die(f'patch {st.slug}: rm {p}: not in the base tree')
            git(gitdir, 'rm', '-q', '-r', '--', p)
        for p, srcp in st.files + staged:
            src = versions.get((p, k)) if not srcp else None
            src = src or os.path.join(repo, srcp or p)
            dst = os.path.join(gitdir, p)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755 if os.access(src, os.X_OK) else 0o644)
            git(gitdir, 'add', '-f', '--', p)
        for p in sorted({p for p, _ in st.hunks}):
            text = content_at(pristine, p, patched[p], owners, k)
            with open(os.path.join(gitdir, p), 'w') as f:
                f.write(text)
            git(gitdir, 'add', '-f', '--', p)
        if not git(gitdir, 'diff', '--cached', '--name-only').strip():
            log(f'patch {st.slug}: no changes, skipped')
            continue
        msg = open(os.path.join(wb, 'series', 'msg', st.slug)).read().rstrip()
        if SOB not in msg:
            msg += '\n\n' + SOB
        r = subprocess.run(['git', '-C', gitdir, 'commit', '-q', '-F', '-'],
                           input=msg + '\n', text=True,
                           env={**os.environ, **env})
        if r.returncode:
            die(f'patch {st.slug}: commit failed')
        made.append(st.slug)
    shutil.rmtree(stage_tmp, ignore_errors=True)
    verify(args, series_files, removed, patched)
    return made


def verify(args, series_files, removed, patched):
    """The series tip must be the tree the workbench builds."""
    gitdir, repo, pristine = args.git, args.repo, args.pristine
    bad = []
    for f in series_files:
        a = open(os.path.join(repo, f), 'rb').read()
        try:
            b = open(os.path.join(gitdir, f), 'rb').read()
        except OSError:
            b = None
        if a != b:
            bad.append(f)
    # base files: pristine + every workbench patch, applied by patch(1)
    tmp = os.path.join(args.out, '.verify')
    shutil.rmtree(tmp, ignore_errors=True)
    for f in patched:
        os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
        shutil.copyfile(os.path.join(pristine, f), os.path.join(tmp, f))
    pdir = os.path.join(args.wb, 'patches')
    for name in sorted(os.listdir(pdir)):
        if name.endswith('.patch'):
            with open(os.path.join(pdir, name)) as fp:
                if subprocess.run(['patch', '-s', '-p1', '-d', tmp,
                                   '--no-backup-if-mismatch'],
                                  stdin=fp).returncode:
                    die(f'{name} does not apply to the base tree')
    for f in patched:
        if open(os.path.join(tmp, f), 'rb').read() != \
                open(os.path.join(gitdir, f), 'rb').read():
            bad.append(f)
    shutil.rmtree(tmp, ignore_errors=True)
    for f in removed:
        if f not in series_files and os.path.exists(os.path.join(gitdir, f)):
            bad.append(f)
    changed = set(git(gitdir, 'diff', '--name-only', 'base', 'series')
                  .split())
    expect = set(series_files) | set(patched) | \
        {f for f in removed if f not in series_files}
    bad += sorted(changed - expect)
    if bad:
        die('the series differs from the workbench tree in: '
            + ' '.join(sorted(set(bad))))
    log(f'series tip == workbench tree ({len(changed)} paths changed)')


# ---------------------------------------------------------------------
# format-patch and cover letter

def figures(repo):
    text = open(os.path.join(repo, 'README.md')).read()
    m = re.search(r'^## Figures\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    body = m.group(1).strip() if m else ''
    return body or 'TODO'


def format_patches(args, made):
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
    log(f'{len(made)} patches + cover letter in {out}')


def staged_steps(steps, repo):
    """[(k, [paths])]: the patches that add or change a staged file."""
    paths = sorted({p for st in steps for d in st.stages
                    for p in diff_paths(os.path.join(repo, d))})
    out = []
    for k, st in enumerate(steps):
        if st.stages or any(p in paths for p, _ in st.files):
            out.append((k, paths))
    return out


def stages_export(repo, wb, out):
    steps = parse_list(os.path.join(wb, 'series', 'patches.list'))
    tmp = out + '.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    versions = stage_versions(steps, repo, os.path.join(tmp, '.v'))
    for k, paths in staged_steps(steps, repo):
        for p in paths:
            dst = os.path.join(tmp, steps[k].slug, p)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(versions[(p, k)], dst)
    shutil.rmtree(os.path.join(tmp, '.v'))
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    log(f'staged files of each patch in {out}/<patch>/; edit them (the '
        'last patch must equal the repo), then: make series-stages SAVE=1')


def stages_save(repo, wb, out):
    steps = parse_list(os.path.join(wb, 'series', 'patches.list'))
    ks = staged_steps(steps, repo)
    for p in ks[-1][1]:
        last = os.path.join(out, steps[ks[-1][0]].slug, p)
        if open(last, 'rb').read() != open(os.path.join(repo, p),
                                          'rb').read():
            die(f'{last} differs from the repo\'s {p}: edit both')
    for (k0, paths), (k1, _) in zip(ks, ks[1:]):
        st = steps[k1]
        if len(st.stages) != 1:
            die(f'patch {st.slug}: stages-save needs one stage diff')
        text = ''
        for p in paths:
            r = subprocess.run(['diff', '-u', '--label', f'a/{p}', '--label',
                                f'b/{p}',
                                os.path.join(out, steps[k0].slug, p),
                                os.path.join(out, st.slug, p)],
                               stdout=subprocess.PIPE, text=True)
            if r.returncode > 1:
                die('diff failed')
            text += r.stdout
        open(os.path.join(repo, st.stages[0]), 'w').write(text)
        log(f'{st.stages[0]}: {text.count(chr(10))} lines')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cmd', choices=['compose', 'stages-export',
                                    'stages-save'])
    ap.add_argument('dir', nargs='?')
    ap.add_argument('--repo', required=True)
    ap.add_argument('--pristine')
    ap.add_argument('--git')
    ap.add_argument('--out')
    ap.add_argument('--series-files')
    ap.add_argument('--removed')
    ap.add_argument('--check-results', default='',
                    help='text for @CHECK_RESULTS@ of the cover letter')
    args = ap.parse_args()
    args.wb = os.path.join(args.repo, 'workbench')
    if args.cmd != 'compose':
        if not args.dir:
            die(f'{args.cmd} needs DIR')
        fn = stages_export if args.cmd == 'stages-export' else stages_save
        fn(args.repo, args.wb, os.path.abspath(args.dir))
        return
    os.makedirs(args.out, exist_ok=True)
    made = compose(args)
    format_patches(args, made)


if __name__ == '__main__':
    main()
