#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the observation logs of ueconf on two kernels.

Log lines are "ID.OP:KIND text" (OP a number, or e:end / c:clean).  A
sequence passes when both kernels printed the same lines for it, or when
its first differing observation matches an entry of the documented
differences file.  Differing sequences are grouped by kind: the kind of the
operation and the shape of the two observations at the first difference.

  compare.py diff --up U --ours O [--documented F] --state DIR
        compare, group, write DIR/state.json and DIR/diff.txt; prints the
        kinds and "N passed, M failed"
  compare.py shrink-plan --state DIR --out BATCH
        candidate sub-sequences for the next shrinking round (ueconf
        --batch lines); exit 1 when there is nothing left to try
  compare.py shrink-eval --state DIR --up U --ours O
        record which candidates still show their kind's difference
  compare.py report --state DIR --md REPORT.md [--findings F.md]
  compare.py tap --up U --ours O [--documented F] [--limit N]
        TAP for make check: one test per sequence
"""

import argparse
import json
import lzma
import os
import re
import sys

LINE_RE = re.compile(r'^([^.\s]+)\.([^:\s]+):(\S+) ?(.*)$')


def open_log(path):
    if path.endswith('.xz'):
        return lzma.open(path, 'rt', errors='replace')
    return open(path, errors='replace')


def load(path):
    """{id: [(op, kind, text), ...]} in order."""
    seqs = {}
    with open_log(path) as f:
        for line in f:
            m = LINE_RE.match(line.rstrip('\n'))
            if not m:
                continue
            text = m.group(4)
            # NAME\n.<hex>: the multi-format suffix of a name ending in a
            # newline is a line of its own
            if re.match(r'^(status|format) \.[0-9a-f]+$', text):
                text = text.split(' ')[0] + ' .M'
            seqs.setdefault(m.group(1), []).append(
                (m.group(2), m.group(3), text))
    return seqs


def load_documented(path):
    """Entries: "id | regex | documentation row" (# comments)."""
    docs = []
    if not path or not os.path.exists(path):
        return docs
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split(' | ', 2)]
            if len(parts) != 3:
                print('documented: bad line: %s' % line, file=sys.stderr)
                continue
            docs.append((parts[0], re.compile(parts[1]), parts[2]))
    return docs


def shape(text):
    """The part of an observation that names what happened."""
    if text is None:
        return '(nothing)'
    words = text.split(' ')
    head = words[0]
    rest = ' '.join(words[1:])
    if head in ('reg', 'unreg', 'del', 'write', 'close', 'open', 'max',
                'ftrace', 'perf', 'dyn'):
        # the result is the interesting part
        res = [w for w in words[1:] if '=' in w and
               w.split('=')[0] in ('ret', 'err', 'idx')] or words[1:3]
        return head + ' ' + ' '.join(r if r.startswith('err=') else
                                     re.sub(r'\d+', 'N', r) for r in res)
    if head == 'format':
        m = re.match(r'\\x09field:(.*?);', rest)
        if m:
            return 'format field:' + norm(m.group(1).rsplit(' ', 1)[0])
        return 'format ' + re.sub(r'\d+', 'N', rest.split(':')[0])[:20]
    if head == 'status':
        if rest.startswith(('Active', 'Busy')):
            return 'status ' + re.sub(r'\d+', 'N', rest)
        return 'status NAME' + (' #' + rest.split('#', 1)[1]
                                if '#' in rest else '')
    if head == 'dynev':
        first = words[1] if len(words) > 1 else ''
        return 'dynev u:NAME%s %s' % ('.M' if first.endswith('.M') else '',
                                      norm(' '.join(words[2:]))[:40])
    if head.startswith(('word', 'secret', 'stack')):
        return head.split('=')[0] + '=' + \
            ('0' if head.endswith('=0') else 'X')
    return head + ' ' + re.sub(r'\d+', 'N', rest)[:24]


FIELD_RE = re.compile(r'^format \\x09field:(.*?);(.*)$')


def attrs(rest):
    return dict(re.findall(r'(?:\\x09)?(\w+):([^;]*);', rest))


def field_shape(decl):
    """"TYPE NAME[SIZE]" with the name left out."""
    m = re.match(r'^(.*) (\S*?)(\[[^]]*\])?$', decl)
    if not m:
        return norm(decl)
    return '%s x%s' % (norm(m.group(1)), norm(m.group(3) or ''))


def norm(t):
    """Numbers to N, struct tags to T, generated field names to f."""
    t = re.sub(r'struct \w+', 'struct T', t)
    t = re.sub(r'\bf\d+\b', 'f', t)
    return re.sub(r'\d+', 'N', t)


def fmt_obs(o):
    if o is None:
        return '(nothing)'
    return '%s:%s %s' % o


def first_diff(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else None


def classify(up, ours, docs):
    """None when equal; else (kind, documented id or None, index, u, o)."""
    i = first_diff(up, ours)
    if i is None:
        return None
    u = up[i] if i < len(up) else None
    o = ours[i] if i < len(ours) else None
    opkind = (u or o)[1]
    su, so = shape(u and u[2]), shape(o and o[2])
    fu = u and FIELD_RE.match(u[2])
    fo = o and FIELD_RE.match(o[2])
    if fu and fo and fu.group(1) == fo.group(1):
        # the same field, some attribute differs
        au, ao = attrs(fu.group(2)), attrs(fo.group(2))
        diff = [k for k in au if au.get(k) != ao.get(k)]
        su = so = 'format field `%s`: %s differs' % (
            norm(fu.group(1).rsplit(' ', 1)[0]), '/'.join(diff))
    elif fu and fo:
        su, so = 'field ' + field_shape(fu.group(1)), \
            'field ' + field_shape(fo.group(1))
    kind = '%s: upstream `%s`, ours `%s`' % (opkind, su, so)
    full = '%s | upstream: %s | ours: %s' % (opkind, fmt_obs(u), fmt_obs(o))
    for did, rx, _ in docs:
        if rx.search(kind) or rx.search(full):
            return (kind, did, i, u, o)
    return (kind, None, i, u, o)


def seq_key(s):
    return (0, int(s)) if s.isdigit() else (1, s)


def cmd_diff(a):
    up, ours = load(a.up), load(a.ours)
    docs = load_documented(a.documented)
    ids = sorted(set(up) | set(ours), key=seq_key)
    passed = failed = documented = 0
    kinds = {}
    doc_count = {}
    os.makedirs(a.state, exist_ok=True)
    with open(os.path.join(a.state, 'diff.txt'), 'w') as out:
        for sid in ids:
            if sid not in up or sid not in ours:
                failed += 1
                k = 'missing: only in %s' % ('ours' if sid in ours else 'upstream')
                kinds.setdefault(k, {'seqs': []})['seqs'].append(sid)
                continue
            c = classify(up[sid], ours[sid], docs)
            if c is None:
                passed += 1
                continue
            kind, did, i, u, o = c
            if did:
                passed += 1
                documented += 1
                doc_count[did] = doc_count.get(did, 0) + 1
                continue
            failed += 1
            e = kinds.setdefault(kind, {'seqs': []})
            if not e['seqs'] or len(up[sid]) < e['best_len']:
                e['example'] = sid
                e['best_len'] = len(up[sid])
                e['first_op'] = (u or o)[0]
                e['up'] = fmt_obs(u)
                e['ours'] = fmt_obs(o)
            e['seqs'].append(sid)
            out.write('== seq %s: %s\n   upstream: %s\n   ours:     %s\n' %
                      (sid, kind, fmt_obs(u), fmt_obs(o)))
    state = {'passed': passed, 'failed': failed, 'documented': documented,
             'doc_count': doc_count, 'kinds': kinds, 'total': len(ids)}
    with open(os.path.join(a.state, 'state.json'), 'w') as f:
        json.dump(state, f, indent=1)
    print_kinds(state)
    print('%d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


def print_kinds(state):
    kinds = state['kinds']
    for k in sorted(kinds, key=lambda k: -len(kinds[k]['seqs'])):
        e = kinds[k]
        print('%6d  %s  (e.g. seq %s)' % (len(e['seqs']), k,
                                           e.get('example', '?')))
    for d, n in sorted(state.get('doc_count', {}).items()):
        print('%6d  documented difference %s' % (n, d))


# --- shrinking -------------------------------------------------------
# Per kind: "cur" is the smallest op list known to still show the kind;
# each round tries cur minus one op (every op), and cur minus every op
# found removable last round, together.

def op_numbers(seqlog):
    ops = []
    for op, _, _ in seqlog:
        if op.isdigit() and int(op) not in ops:
            ops.append(int(op))
    return ops


def cmd_shrink_plan(a):
    path = os.path.join(a.state, 'state.json')
    state = json.load(open(path))
    if 'ops_up' not in state:
        # ops of each example, from the logs (ops that printed nothing
        # cannot matter... but may: keep every op number up to max)
        state['ops_up'] = {}
    lines = []
    for n, (k, e) in enumerate(sorted(state['kinds'].items())):
        if k.startswith('missing') or 'example' not in e:
            continue
        sh = e.setdefault('shrink', None)
        if sh is None:
            first = e['first_op']
            last = int(first) if first.isdigit() else 15
            sh = e['shrink'] = {'cur': list(range(0, last + 1)),
                                'round': 0, 'done': False, 'cands': {}}
        if sh['done']:
            continue
        cands = {}
        cur = sh['cur']
        r = sh['round']
        cands['k%dr%dall' % (n, r)] = cur
        if sh.get('removable'):
            cands['k%dr%dcomb' % (n, r)] = [x for x in cur
                                             if x not in sh['removable']]
        for x in cur:
            if len(cur) > 1:
                cands['k%dr%dm%d' % (n, r, x)] = [y for y in cur if y != x]
        sh['cands'] = cands
        for cid, ops in cands.items():
            lines.append('%s %s %s\n' % (cid, e['example'],
                                         ','.join(map(str, ops)) or '99'))
    with open(path, 'w') as f:
        json.dump(state, f, indent=1)
    with open(a.out, 'w') as f:
        f.writelines(lines)
    return 0 if lines else 1


def cmd_shrink_eval(a):
    path = os.path.join(a.state, 'state.json')
    state = json.load(open(path))
    up, ours = load(a.up), load(a.ours)
    for k, e in state['kinds'].items():
        sh = e.get('shrink')
        if not sh or sh['done'] or not sh.get('cands'):
            continue
        good = {}
        for cid, ops in sh['cands'].items():
            c = classify(up.get(cid, []), ours.get(cid, []), [])
            if c and c[0] == k:
                good[cid] = ops
        best = min(good.values(), key=len) if good else None
        removable = [int(cid.rsplit('m', 1)[1]) for cid in good
                     if re.search(r'r\d+m\d+$', cid)]
        if best is not None and len(best) < len(sh['cur']):
            sh['cur'] = best
            sh['removable'] = [x for x in removable if x in best]
            sh['round'] += 1
            if sh['round'] >= a.max_rounds:
                sh['done'] = True
        else:
            sh['done'] = True
            sh['reproduces'] = bool(good)
        if best is not None:
            sid = [c for c in good if good[c] == best][0]
            e['shrunk'] = {'ops': best, 'up': up[sid], 'ours': ours[sid]}
        sh['cands'] = {}
    with open(path, 'w') as f:
        json.dump(state, f, indent=1)
    return 0


def cmd_report(a):
    state = json.load(open(os.path.join(a.state, 'state.json')))
    kinds = state['kinds']
    out = []
    out.append('# user_events conformance: ours vs upstream 6.12\n')
    out.append('%s\n' % (a.title or ''))
    out.append('%d sequences: %d passed (%d by a documented difference), '
               '%d failed, %d kinds of difference.\n' %
               (state['total'], state['passed'], state['documented'],
                state['failed'], len(kinds)))
    for d, n in sorted(state.get('doc_count', {}).items()):
        out.append('- documented `%s`: %d sequences' % (d, n))
    out.append('')
    for i, k in enumerate(sorted(kinds, key=lambda k: -len(kinds[k]['seqs']))):
        e = kinds[k]
        out.append('## %d. %s\n' % (i + 1, k.replace('|', '\\|')))
        out.append('%d sequences, e.g. %s.\n' % (
            len(e['seqs']), ', '.join(e['seqs'][:8])))
        sh = e.get('shrunk')
        ops = sh['ops'] if sh else None
        out.append('Example: sequence %s%s; first difference at op %s.\n' % (
            e.get('example'), ' shrunk to ops %s' % ops if ops else
            ' (not shrunk)', e.get('first_op')))
        if a.lister and e.get('example'):
            listing = os.popen('%s --seq %s --list' % (a.lister, e['example'])).read()
            sel = set(ops) if ops else None
            out.append('```')
            for line in listing.splitlines():
                n = line.split(' ', 1)[0]
                if sel is None or (n.isdigit() and int(n) in sel):
                    out.append(line[:400])
            out.append('```\n')
        if e.get('example'):
            out.append('Run it: `make vm [KERNEL=upstream] CMD=\'%s --seq %s%s\'`\n' % (
                a.lister or 'ueconf', e['example'],
                ' --ops %s' % ','.join(map(str, ops)) if ops else ''))
        out.append('upstream: `%s`  \nours:     `%s`\n' % (e.get('up'), e.get('ours')))
        if sh:
            out.append('Shrunk sequence, upstream | ours:\n```')
            u, o = sh['up'], sh['ours']
            for j in range(max(len(u), len(o))):
                lu = fmt_obs(tuple(u[j])) if j < len(u) else ''
                lo = fmt_obs(tuple(o[j])) if j < len(o) else ''
                mark = '  ' if lu == lo else '!!'
                out.append('%s %-60s | %s' % (mark, lu[:160], lo[:160]))
            out.append('```\n')
    text = '\n'.join(out) + '\n'
    with open(a.md, 'w') as f:
        f.write(text)
    return 0


def cmd_tap(a):
    up, ours = load(a.up), load(a.ours)
    docs = load_documented(a.documented)
    ids = sorted(ours, key=seq_key)
    if a.limit:
        ids = [i for i in ids if seq_key(i)[1] < a.limit]
    print('TAP version 13')
    print('1..%d' % len(ids))
    for n, sid in enumerate(ids, 1):
        c = classify(up.get(sid, []), ours[sid], docs)
        if c is None:
            print('ok %d seq %s' % (n, sid))
        elif c[1]:
            print('ok %d seq %s # documented %s' % (n, sid, c[1]))
        else:
            print('# seq %s: %s' % (sid, c[0]))
            print('#   upstream: %s' % fmt_obs(c[3]))
            print('#   ours:     %s' % fmt_obs(c[4]))
            print('not ok %d seq %s' % (n, sid))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('diff')
    p.add_argument('--up', required=True)
    p.add_argument('--ours', required=True)
    p.add_argument('--documented')
    p.add_argument('--state', required=True)
    p = sub.add_parser('shrink-plan')
    p.add_argument('--state', required=True)
    p.add_argument('--out', required=True)
    p = sub.add_parser('shrink-eval')
    p.add_argument('--state', required=True)
    p.add_argument('--up', required=True)
    p.add_argument('--ours', required=True)
    p.add_argument('--max-rounds', type=int, default=4)
    p = sub.add_parser('report')
    p.add_argument('--state', required=True)
    p.add_argument('--md', required=True)
    p.add_argument('--lister')
    p.add_argument('--title')
    p = sub.add_parser('tap')
    p.add_argument('--up', required=True)
    p.add_argument('--ours', required=True)
    p.add_argument('--documented')
    p.add_argument('--limit', type=int, default=0)
    a = ap.parse_args()
    return {'diff': cmd_diff, 'shrink-plan': cmd_shrink_plan,
            'shrink-eval': cmd_shrink_eval, 'report': cmd_report,
            'tap': cmd_tap}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
