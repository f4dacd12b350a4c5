#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize KUnit (KTAP: the console log, kunit.py's output) and kselftest
(TAP) results.

Counts individual test cases (not suites; every row of a parameterized
KUnit case counts).  Prints one line per suite and a final "N passed, M
failed, K skipped" line.  Exit status is non-zero when any test failed, a
test was skipped without being listed in the allowed-skips file, a selftest
binary crashed / timed out / printed no plan / ran fewer tests than planned,
or no test ran at all.

The output of the kselftest runner (run_kselftest.sh, run_many), every line
stamped "[SECONDS] " by guest-check.sh, is split per program into
NAME.tap / NAME.rc first (--kselftest-dir), and every program and test is
timed against its timeout (the runner's from "settings", the harness' from
TEST_F_TIMEOUT() in the sources, else its default of 30 s).
"""

import argparse
import os
import re
import sys

TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT_RE = re.compile(r'^(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
PLAN_RE = re.compile(r'^1\.\.(\d+)')
SUBTEST_RE = re.compile(r'^#\s*Subtest:\s*(\S+)')
STAMP_RE = re.compile(r'^\[\s*(\d+(?:\.\d+)?)\]\s?')
RUNNER_HDR_RE = re.compile(r'^# selftests: (\S+): (\S+)$')
RUNNER_RES_RE = re.compile(
    r'^(not ok|ok) (\d+) selftests: (\S+): (\S+)(?:\s*#\s*(.*))?$')
RUNNER_TMO_RE = re.compile(r'^# (?:timeout set to|overriding timeout to) (\d+)')
HARNESS_RUN_RE = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.$')
HARNESS_TMO_RE = re.compile(
    r'TEST_F_TIMEOUT\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\d+)\s*\)')
HARNESS_DEFAULT_TIMEOUT = 30
KSFT_SKIP = 4


class Suite:
    def __init__(self, kind, name):
        self.kind = kind
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.problems = []
        self.failures = []
        self.skips = []
        self.cases = []         # (name, 'pass' | 'fail' | 'skip')

    def add(self, ok, name, directive, allowed):
        d = (directive or '').strip().upper()
        if d.startswith('SKIP') and (self.name, name) not in allowed:
            st = 'skip'
            self.skipped += 1
            self.skips.append(name)
        elif ok or d.startswith('SKIP') or d.startswith('XFAIL'):
            st = 'pass'
            self.passed += 1
        else:
            st = 'fail'
            self.failed += 1
            self.failures.append(name)
        self.cases.append((name, st))

    @property
    def total(self):
        return self.passed + self.failed + self.skipped

    def bad(self):
        return self.failed or self.skipped or self.problems


def strip_console(line):
    line = line.rstrip('\r\n')
    line = TS_RE.sub('', line)
    return line


def parse_kunit(path, allowed, kind='kunit'):
    """KUnit KTAP (console log or kunit.py's raw output): top-level results
    are suites, their direct children test cases; each row of a
    parameterized case (a result one level deeper) counts as one test."""
    suites = []
    if not path or not os.path.exists(path):
        return suites
    with open(path, errors='replace') as f:
        lines = [strip_console(l) for l in f]
    cur = None
    in_ktap = False
    param_case = None
    for raw in lines:
        if raw.strip().startswith('KTAP version'):
            in_ktap = True
        if not in_ktap:
            continue
        indent = len(raw) - len(raw.lstrip(' '))
        line = raw.strip()
        depth = indent // 4
        m = SUBTEST_RE.match(line)
        if m and depth == 1:
            cur = Suite(kind, m.group(1))
            cur.plan = None
            cur.ncases = 0
            cur.params = {}
            suites.append(cur)
            continue
        if m and depth == 2 and cur is not None:
            param_case = m.group(1)
            continue
        m = PLAN_RE.match(line)
        if m and depth == 1 and cur is not None and cur.plan is None:
            cur.plan = int(m.group(1))
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        ok = m.group(1) == 'ok'
        name = m.group(3)
        directive = m.group(4)
        if depth == 2 and cur is not None and param_case:
            before = cur.failed
            cur.add(ok, '%s: %s' % (param_case, name), directive, allowed)
            rows = cur.params.setdefault(param_case, [0, 0])
            rows[0] += 1
            rows[1] += cur.failed - before
        elif depth == 1 and cur is not None:
            cur.ncases += 1
            rows = cur.params.get(name)
            if rows is None:
                cur.add(ok, name, directive, allowed)
            elif not ok and not rows[1] and \
                    not (directive or '').upper().startswith('SKIP'):
                cur.problems.append('case %s failed outside its rows' %
                                    name)
            param_case = None
        elif depth == 0 and cur is not None and name == cur.name:
            # suite result: check consistency with its cases
            if cur.plan is not None and cur.ncases != cur.plan:
                cur.problems.append('planned %d cases, saw %d' %
                                    (cur.plan, cur.ncases))
            if not ok and not cur.failed and not (directive or '').upper().startswith('SKIP'):
                cur.problems.append('suite reported failure')
            if (directive or '').upper().startswith('SKIP') and cur.total == 0:
                cur.skipped += 1
                cur.skips.append('(whole suite)')
            cur.done = True
    for s in suites:
        if not getattr(s, 'done', False):
            s.problems.append('suite did not complete (no final result line)')
    return suites


def split_runner_logs(kdir, tap_dir, errors):
    """Split the kselftest runner's stamped TAP (every *.log in kdir) into
    tap_dir/NAME.tap (the program's own TAP) and NAME.rc (0, 4 = skip,
    124 = timeout, else the exit status).  Returns the programs as dicts:
    name, secs, timeout, tests (name -> secs)."""
    progs = []
    if not kdir or not os.path.isdir(kdir):
        return progs
    os.makedirs(tap_dir, exist_ok=True)

    def finish(p, rc):
        with open(os.path.join(tap_dir, p['name'] + '.tap'), 'w') as f:
            f.write(''.join(l + '\n' for _, l in p['lines']))
        if rc is not None:
            with open(os.path.join(tap_dir, p['name'] + '.rc'), 'w') as f:
                f.write('%d\n' % rc)
        run = {}
        for t, l in p['lines']:
            m = HARNESS_RUN_RE.match(l)
            if m:
                run[m.group(1)] = t
                continue
            m = RESULT_RE.match(l)
            if m and m.group(3) in run and t is not None and \
                    run[m.group(3)] is not None:
                p['tests'][m.group(3)] = t - run.pop(m.group(3))
        del p['lines']
        progs.append(p)

    for fn in sorted(os.listdir(kdir)):
        if not fn.endswith('.log'):
            continue
        plan = None
        seen = 0
        cur = None
        timeout = None
        with open(os.path.join(kdir, fn), errors='replace') as f:
            for raw in f:
                line = raw.rstrip('\r\n')
                m = STAMP_RE.match(line)
                t = float(m.group(1)) if m else None
                if m:
                    line = line[m.end():]
                if cur is None:
                    m = PLAN_RE.match(line)
                    if m and plan is None:
                        plan = int(m.group(1))
                    m = RUNNER_TMO_RE.match(line)
                    if m:
                        timeout = int(m.group(1))
                    m = RUNNER_HDR_RE.match(line)
                    if m:
                        cur = {'name': m.group(2), 't0': t, 'secs': None,
                               'timeout': timeout, 'lines': [],
                               'tests': {}}
                        timeout = None
                    elif RUNNER_RES_RE.match(line):
                        seen += 1    # a program the runner did not start
                        errors.append('runner: %s' % line)
                    continue
                m = RUNNER_RES_RE.match(line)
                if m and m.group(4) == cur['name']:
                    d = (m.group(5) or '').strip()
                    if m.group(1) == 'ok':
                        rc = KSFT_SKIP if d.upper().startswith('SKIP') else 0
                    elif d.upper().startswith('TIMEOUT'):
                        rc = 124
                    elif d.startswith('exit='):
                        rc = int(d[5:])
                    else:
                        rc = 1
                    if t is not None and cur['t0'] is not None:
                        cur['secs'] = t - cur['t0']
                    finish(cur, rc)
                    cur = None
                    seen += 1
                    continue
                if line.startswith('# '):
                    line = line[2:]
                elif line.startswith('#'):
                    line = line[1:]
                cur['lines'].append((t, line))
        if cur is not None:
            finish(cur, None)    # the run ended inside this program
        if plan is None:
            errors.append('%s: no runner TAP plan' % fn)
        elif seen != plan:
            errors.append('%s: the runner planned %d programs, %d finished' %
                          (fn, plan, seen))
    return progs


def load_timeouts(dirs):
    """(program, fixture, test) -> seconds, from TEST_F_TIMEOUT() in the
    selftest sources."""
    tmo = {}
    for d in dirs or []:
        if not os.path.isdir(d):
            continue
        for fn in os.listdir(d):
            if not fn.endswith('.c'):
                continue
            with open(os.path.join(d, fn), errors='replace') as f:
                for m in HARNESS_TMO_RE.finditer(f.read()):
                    tmo[(fn[:-2], m.group(1), m.group(2))] = int(m.group(3))
    return tmo


def timing_report(progs, tmo, path):
    """Durations against timeouts, tightest margin first; the three
    tightest lines are returned for the summary, all go to path."""
    rows = []
    for p in progs:
        if p['secs'] is not None and p['timeout']:
            rows.append(('program', p['name'], p['secs'], p['timeout']))
        for name, secs in p['tests'].items():
            parts = name.split('.')
            # NAME32: the 32-bit build of NAME's source
            src = p['name']
            if src.endswith('32') and (src[:-2], parts[0], parts[-1]) in tmo:
                src = src[:-2]
            limit = tmo.get((src, parts[0], parts[-1]),
                            HARNESS_DEFAULT_TIMEOUT)
            rows.append(('test', '%s %s' % (p['name'], name), secs, limit))
    rows.sort(key=lambda r: r[2] / r[3], reverse=True)
    out = ['%-7s %-60s %8.2f s  timeout %4d s  margin %s' %
           (k, n, secs, limit,
            ('%.1fx' % (limit / secs)) if secs > 0 else 'inf')
           for k, n, secs, limit in rows]
    if path:
        with open(path, 'w') as f:
            f.write(''.join(l + '\n' for l in out))
    progs_only = [l for l in out if l.startswith('program')]
    tests_only = [l for l in out if l.startswith('test')]
    return progs_only[:1] + tests_only[:2]


def parse_tap_dir(d, allowed):
    suites = []
    if not d or not os.path.isdir(d):
        return suites
    for fn in sorted(os.listdir(d)):
        if not fn.endswith('.tap'):
            continue
        name = fn[:-4]
        s = Suite('selftest', name)
        suites.append(s)
        rc_path = os.path.join(d, name + '.rc')
        rc = None
        if os.path.exists(rc_path):
            try:
                rc = int(open(rc_path).read().strip())
            except ValueError:
                rc = None
        plan = None
        seen_plan_at_top = False
        with open(os.path.join(d, fn), errors='replace') as f:
            for raw in f:
                line = raw.rstrip('\n')
                if line.startswith(' ') or line.startswith('\t'):
                    continue  # nested output; harness results are top level
                m = PLAN_RE.match(line)
                if m and not seen_plan_at_top:
                    plan = int(m.group(1))
                    seen_plan_at_top = True
                    continue
                m = RESULT_RE.match(line)
                if m:
                    s.add(m.group(1) == 'ok', m.group(3), m.group(4), allowed)
        if plan is None:
            s.problems.append('no TAP plan')
        elif s.total != plan:
            s.problems.append('planned %d tests, saw %d' % (plan, s.total))
        if rc is None:
            s.problems.append('no exit status recorded')
        elif rc == 124:
            s.problems.append('timed out')
        elif rc >= 128:
            s.problems.append('killed by signal %d' % (rc - 128))
        elif rc == KSFT_SKIP and not s.failed and s.total:
            pass    # skipped tests are counted (and judged) one by one
        elif rc != 0 and not s.failed:
            s.problems.append('exit status %d' % rc)
    return suites


def load_allowed(path):
    allowed = set()
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) == 2:
                allowed.add((parts[0], parts[1].strip()))
    return allowed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console', help='guest console log (KUnit KTAP)')
    ap.add_argument('--kunit-log', action='append', default=[],
                    help="kunit.py run's KTAP output (suites: kunit.py)")
    ap.add_argument('--tap-dir', help='dir with NAME.tap / NAME.rc files')
    ap.add_argument('--kselftest-dir',
                    help='dir with the runner TAP logs (*.log) to split '
                    'into --tap-dir first')
    ap.add_argument('--selftest-src', action='append', default=[],
                    help='selftest sources (TEST_F_TIMEOUT values)')
    ap.add_argument('--durations',
                    help='write every duration and timeout margin here')
    ap.add_argument('--expect-kunit-py', action='store_true',
                    help='fail when kunit.py ran no test case')
    ap.add_argument('--allowed-skips')
    ap.add_argument('--expect-kunit', action='store_true',
                    help='fail when no KUnit test case was found')
    ap.add_argument('--expect-selftests', action='store_true',
                    help='fail when no selftest binary ran')
    ap.add_argument('--skips-ok', action='store_true',
                    help='skipped tests are listed but do not fail (a '
                    'kernel with only the selftests\' own config)')
    ap.add_argument('--cases',
                    help='write "KIND SUITE CASE STATUS" per test case '
                    'here (a suite with a problem: CASE "-", "fail")')
    a = ap.parse_args()

    allowed = load_allowed(a.allowed_skips)
    errors = []
    progs = split_runner_logs(a.kselftest_dir, a.tap_dir, errors)
    suites = parse_kunit(a.console, allowed)
    for k in a.kunit_log:
        suites += parse_kunit(k, allowed, 'kunit.py')
    suites += parse_tap_dir(a.tap_dir, allowed)

    w = max([len(s.name) for s in suites] + [10])
    for s in suites:
        status = 'FAIL' if s.bad() else 'ok'
        print('%-8s %-*s  passed %3d  failed %3d  skipped %3d  %s' %
              (s.kind, w, s.name, s.passed, s.failed, s.skipped, status))
        for t in s.failures:
            print('           failed:  %s' % t)
        for t in s.skips:
            print('           skipped: %s' % t)
        for p in s.problems:
            print('           problem: %s' % p)
            errors.append('%s %s: %s' % (s.kind, s.name, p))

    if a.cases:
        with open(a.cases, 'w') as f:
            for s in suites:
                for name, st in s.cases:
                    f.write('%s %s %s %s\n' % (s.kind, s.name,
                                                name.replace(' ', '_'), st))
                if s.problems:
                    f.write('%s %s - fail\n' % (s.kind, s.name))

    passed = sum(s.passed for s in suites)
    failed = sum(s.failed for s in suites)
    skipped = sum(s.skipped for s in suites)
    nkunit = sum(s.total for s in suites if s.kind == 'kunit')
    nkunitpy = sum(s.total for s in suites if s.kind == 'kunit.py')
    nself = len([s for s in suites if s.kind == 'selftest'])
    if passed + failed + skipped == 0:
        errors.append('no test ran')
    if a.expect_kunit and nkunit == 0:
        errors.append('no KUnit test case found in the console log')
    if a.expect_kunit_py and nkunitpy == 0:
        errors.append('kunit.py ran no KUnit test case')
    if a.expect_selftests and nself == 0:
        errors.append('no selftest binary ran')

    if progs:
        for l in timing_report(progs, load_timeouts(a.selftest_src),
                               a.durations):
            print('timing   tightest %s' % l)
    for e in errors:
        print('error: %s' % e)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if (failed or (skipped and not a.skips_ok) or errors) else 0


if __name__ == '__main__':
    sys.exit(main())
