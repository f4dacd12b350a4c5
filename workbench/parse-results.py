#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize KUnit (KTAP, from the console log) and kselftest (TAP) results.

Counts individual test cases (not suites).  Prints one line per suite and a
final "N passed, M failed, K skipped" line.  Exit status is non-zero when any
test failed, a test was skipped without being listed in the allowed-skips
file, a selftest binary crashed / printed no plan / ran fewer tests than
planned, or no test ran at all.
"""

import argparse
import os
import re
import sys

TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT_RE = re.compile(r'^(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
PLAN_RE = re.compile(r'^1\.\.(\d+)')
SUBTEST_RE = re.compile(r'^#\s*Subtest:\s*(\S+)')


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

    def add(self, ok, name, directive, allowed):
        d = (directive or '').strip()
        if d.upper().startswith('SKIP'):
            if (self.name, name) in allowed:
                self.passed += 1
            else:
                self.skipped += 1
                self.skips.append(name)
        elif ok or d.upper().startswith('XFAIL'):
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)

    @property
    def total(self):
        return self.passed + self.failed + self.skipped

    def bad(self):
        return self.failed or self.skipped or self.problems


def strip_console(line):
    line = line.rstrip('\r\n')
    line = TS_RE.sub('', line)
    return line


def parse_kunit(path, allowed):
    """KUnit KTAP on the console: top-level results are suites, their
    direct children are test cases (parameterized cases count once)."""
    suites = []
    if not path or not os.path.exists(path):
        return suites
    with open(path, errors='replace') as f:
        lines = [strip_console(l) for l in f]
    cur = None
    in_ktap = False
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
            cur = Suite('kunit', m.group(1))
            cur.plan = None
            suites.append(cur)
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
        if depth == 1 and cur is not None:
            cur.add(ok, name, directive, allowed)
        elif depth == 0 and cur is not None and name == cur.name:
            # suite result: check consistency with its cases
            if cur.plan is not None and cur.total != cur.plan:
                cur.problems.append('planned %d cases, saw %d' %
                                    (cur.plan, cur.total))
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
    ap.add_argument('--tap-dir', help='dir with NAME.tap / NAME.rc files')
    ap.add_argument('--allowed-skips')
    ap.add_argument('--expect-kunit', action='store_true',
                    help='fail when no KUnit test case was found')
    ap.add_argument('--expect-selftests', action='store_true',
                    help='fail when no selftest binary ran')
    a = ap.parse_args()

    allowed = load_allowed(a.allowed_skips)
    suites = parse_kunit(a.console, allowed) + parse_tap_dir(a.tap_dir, allowed)

    errors = []
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

    passed = sum(s.passed for s in suites)
    failed = sum(s.failed for s in suites)
    skipped = sum(s.skipped for s in suites)
    nkunit = sum(s.total for s in suites if s.kind == 'kunit')
    nself = len([s for s in suites if s.kind == 'selftest'])
    if passed + failed + skipped == 0:
        errors.append('no test ran')
    if a.expect_kunit and nkunit == 0:
        errors.append('no KUnit test case found in the console log')
    if a.expect_selftests and nself == 0:
        errors.append('no selftest binary ran')

    for e in errors:
        print('error: %s' % e)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if (failed or skipped or errors) else 0


if __name__ == '__main__':
    sys.exit(main())
