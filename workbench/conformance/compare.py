#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the observation logs of ueconf on two kernels.

Log lines are "ID.OP:KIND text" (OP a number, or e:end / c:clean).  A
sequence passes when both kernels printed the same lines for it, or when
its first differing observation matches an entry of the documented
differences file.  Differing sequences are grouped by kind: the kind of the
operation and the shape of the two observations at the first difference.

  compare.py diff --up U --ours O [--documented F] [--lister CMD] --state DIR
        compare, group, write DIR/state.json and DIR/diff.txt; prints the
        kinds and "N passed, M failed"
  compare.py shrink-plan --state DIR --out BATCH
        candidate sub-sequences for the next shrinking round (ueconf
        --batch lines); exit 1 when there is nothing left to try
  compare.py shrink-eval --state DIR --up U --ours O
        record which candidates still show their kind's difference
  compare.py report --state DIR --md REPORT.md [--findings F.md]
  compare.py tap --up U --ours O [--documented F] [--lister CMD] [--limit N]
        TAP for make check: one test per sequence

--lister "ueconf --seed S" lets the documented entries see the operation
at the first difference (its command) and facts about the sequence, as a
third form "KIND | op: OP | facts: F ..." (see facts()); without it that
form has no op and no facts, so the entries that need them do not match.
"""

import argparse
import json
import lzma
import os
import re
import subprocess
import sys
from collections import Counter

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
    m = re.match(r'^(.*) (\S*?)(\[[^][]*\])?$', decl)
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


# --- what the documented entries may know of a sequence ------------------

class Lister:
    """The ops of sequences ("ueconf --seed S --list --batch"), in one call
    for all the sequences asked for at once."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.ops = {}

    def prefetch(self, sids):
        want = [sid for sid in sids if sid not in self.ops and sid.isdigit()]
        if not self.cmd or not want:
            return
        path = '/tmp/compare-list.%d' % os.getpid()
        with open(path, 'w') as f:
            f.writelines('%s %s\n' % (sid, sid) for sid in want)
        try:
            out = subprocess.run(self.cmd.split() + ['--list', '--batch', path],
                                 capture_output=True, text=True,
                                 errors='replace').stdout
        finally:
            os.unlink(path)
        for sid in want:
            self.ops[sid] = {}
        for line in out.splitlines():
            parts = line.split(' ', 3)
            if len(parts) == 4 and parts[0] in self.ops:
                self.ops[parts[0]][parts[1]] = parse_op(parts[2], parts[3])

    def get(self, sid):
        if sid not in self.ops:
            self.prefetch([sid])
        return self.ops.get(sid, {})


def unescape(t):
    return re.sub(r'\\(x[0-9a-f]{2}|.)', lambda m: chr(int(m.group(1)[1:], 16))
                  if len(m.group(1)) == 3 else m.group(1), t)


def parse_op(kind, rest):
    """(kind, {attr: value}, text) of one listed op."""
    head, _, text = rest.partition(' text="')
    attrs = dict(w.split('=', 1) for w in head.split() if '=' in w)
    return (kind, attrs, unescape(text[:-1] if text.endswith('"') else text))


def cmd_parts(cmd):
    """Upstream's reading of a command: (name, [field names])."""
    head, _, args = cmd.partition(' ')
    name = head.split(':', 1)[0]
    names = []
    for field in args.split(';'):
        words = field.lstrip(' \t\n').split(' ')
        if not words[0]:
            continue
        n = 1
        if words[0] in ('unsigned', 'struct'):
            n = 2
        elif words[0] in ('__data_loc', '__rel_loc'):
            n = 3 if len(words) > 1 and words[1] == 'unsigned' else 2
        if len(words) > n:
            names.append(words[n].strip())
    return name, names


def dyn_line(text):
    """A dynamic_events command as its first line, without a comment."""
    return text.split('\n', 1)[0].split('#', 1)[0]


def op_facts(op):
    """Facts about one op's command (see facts())."""
    kind, attrs, text = op
    f = set()
    cmd = None
    if kind == 'reg':
        cmd = text
    elif kind == 'dyn':
        line = dyn_line(text)
        if line.startswith('u:'):
            cmd = line[2:].lstrip(' \t')
        elif line[:2] in ('-:', '!u') and len(line.split()) == 1:
            f.add('del-by-name')
    if cmd is not None:
        name, fields = cmd_parts(cmd)
        if not name:
            f.add('empty-name')
        if name in ('', '.', '..') or '/' in name:
            f.add('unshowable-name')
        if len(set(fields)) < len(fields):
            f.add('dup-field')
    if kind == 'reg' and attrs.get('addr', '').split('+')[0] in (
            'null', 'rdonly', 'secret', 'unmapped'):
        f.add('addr-unwritable')
    if kind == 'reg' and int(attrs.get('flags', '0'), 0) & 0xfffc == 0x8000:
        f.add('reg-notify')
    return f


DROPS = {'close': None, 'open': None, 'unreg': 'unreg ret=0',
         'del': 'del ret=0', 'dyn': 'dyn ok'}


def drop_before(ops, up, ours, opnum):
    """An op before @opnum dropped a reference on both kernels: a close, an
    open (it closes that fd first), a successful unregister or delete."""
    done = {}
    for log in (up, ours):
        for op, kind, text in log:
            if op.isdigit() and kind in DROPS:
                want = DROPS[kind]
                if want is None or text == want:
                    done[op] = done.get(op, 0) + 1
    for op, n in done.items():
        if n == 2 and int(op) < opnum:
            kind, _, text = ops.get(op, (None, None, ''))
            if kind != 'dyn' or dyn_line(text)[:1] in ('-', '!'):
                return True
    return False


def facts(ctx, up, ours, op):
    """Facts for the documented entries, about the op at the first
    difference (OP, or "e" for the end of the sequence):
      empty-name, unshowable-name, dup-field   its command (reg, dyn u:),
                                   as upstream reads it
      del-by-name                  a dyn "-:NAME" or "!u:NAME" without fields
      addr-unwritable              a reg with an enable address of kind null,
                                   rdonly, secret or unmapped
      reg-notify                   a reg whose only flag beyond PERSIST and
                                   MULTI_FORMAT is USER_EVENT_REG_NOTIFY
      drop-before                  an earlier op dropped a reference (close,
                                   open, unreg/del/dyn delete that worked)
      carry-unnamed                upstream starts the sequence with an event
                                   of an empty name left by an earlier one
      upstream-empty-string        upstream traced a field as an empty string
      dyn-delete-op                the sequence writes a "-:" or "!" command
                                   to dynamic_events
    and, from the observations themselves (classify()):
      trace-header-bytes           two trace lines differ only within the
                                   first 8 bytes of field values
      trace-lost-first             at the end, ours traced only the last of
                                   the records upstream traced
    """
    if not ctx:
        return '', set()
    up, ours = ctx.get('full', (up, ours))
    ops = ctx['lister'].get(ctx['sid']) if ctx.get('lister') else {}
    f = set()
    cur = ops.get(op)
    if cur:
        f |= op_facts(cur)
    last = int(op) if op.isdigit() else MAX_OPS
    if drop_before(ops, up, ours, last):
        f.add('drop-before')
    if ctx.get('carry'):
        f.add('carry-unnamed')
    if any(k == 'dyn' and dyn_line(t)[:1] in ('-', '!')
           for k, _, t in ops.values()):
        f.add('dyn-delete-op')
    if any(k == 'end' and t.startswith('trace ') and
           re.search(r' \w+=(?= |$)', t) for _, k, t in up):
        f.add('upstream-empty-string')
    text = '%s %s' % (cur[0], cur[2]) if cur else ''
    return text, f


MAX_OPS = 16
UNNAMED = 'dynev u:'


def end_has_unnamed(log):
    return any(op == 'e' and t == UNNAMED for op, _, t in log)


def status_extra(up, ours, i):
    """When the first difference (at @i) is in a block of status lines (a
    status op, or the end of the sequence) and upstream only lists more
    events there: (number of those events, unnamed, index after the block);
    else None.  An event of an empty name has no status line, only
    "dynev u:"."""
    u = up[i] if i < len(up) else None
    o = ours[i] if i < len(ours) else None
    if not u or not o or u[0] != o[0] or u[1] not in ('status', 'end'):
        return None

    def block(log):
        j = i
        while j > 0 and log[j - 1][0] == u[0]:
            j -= 1
        k = i
        while k < len(log) and log[k][0] == u[0]:
            k += 1
        lines = log[j:k]
        st = Counter(t for _, _, t in lines if t.startswith(('status ', 'dynev ')))
        rest = [t for _, _, t in lines if not t.startswith(('status ', 'dynev '))]
        return st, rest, k

    su, ru, ku = block(up)
    so, ro, ko = block(ours)
    if ru != ro:
        return None
    extra, missing = su - so, so - su
    act = re.compile(r'^status Active: (\d+)$')
    if len(missing) != 1 or not act.match(next(iter(missing))):
        return None
    names = [t for t in extra.elements() if not act.match(t)]
    if len(names) + 1 != sum(extra.values()) or \
            any(t.startswith('status Busy:') or ' # ' in t for t in names):
        return None
    events = sum(1 for t in names if t.startswith('status ')) + \
        sum(1 for t in names if t == UNNAMED)
    ua = [int(act.match(t).group(1)) for t in extra if act.match(t)]
    oa = int(act.match(next(iter(missing))).group(1))
    if len(ua) != 1 or ua[0] - oa != events or not events:
        return None
    return events, UNNAMED in names, (ku, ko)


def trace_header_bytes(u, o):
    """Two trace lines of one event that differ only within the first 8
    bytes of field values: the bytes of each kernel's record header."""
    if not (u and o and u[2].startswith('trace ') and o[2].startswith('trace ')):
        return False
    pu, po = u[2].split(' '), o[2].split(' ')
    if len(pu) != len(po) or pu[1] != po[1]:
        return False
    for a, b in zip(pu[2:], po[2:]):
        if a == b:
            continue
        na, _, va = a.partition('=')
        nb, _, vb = b.partition('=')
        if na != nb or len(va) != len(vb):
            return False
        if re.match(r'^([0-9a-f]{2},)*[0-9a-f]{2}$', va):
            va, vb = va.split(','), vb.split(',')
        if any(x != y for x, y in list(zip(va, vb))[8:]):
            return False
    return True


def trace_lost_first(up, ours):
    """At the end of a sequence, ours traced only the last records upstream
    traced, and everything else is the same."""
    def split(log):
        end = [t for op, _, t in log if op == 'e']
        return ([t for t in end if t.startswith('trace ')],
                [t for t in end if not t.startswith('trace ')],
                [x for x in log if x[0] != 'e'])
    tu, ru, lu = split(up)
    to, ro, lo = split(ours)
    return ru == ro and lu == lo and len(to) < len(tu) and \
        tu[len(tu) - len(to):] == to


def classify(up, ours, docs, ctx=None):
    """None when equal; else (kind, documented id or None, index, u, o)."""
    i = first_diff(up, ours)
    if i is None:
        return None
    u = up[i] if i < len(up) else None
    o = ours[i] if i < len(ours) else None
    opkind = (u or o)[1]
    more = status_extra(up, ours, i)
    if more:
        n, unnamed, (ku, ko) = more
        kind = '%s: upstream lists %d more event%s%s' % (
            opkind, n, 's' if n > 1 else '', ' (unnamed)' if unnamed else '')
        did = match_doc(docs, kind, kind, ctx, up, ours, u[0])
        # the rest of the sequence must be equal, or documented itself
        sub = dict(ctx or {}, full=(ctx or {}).get('full', (up, ours)))
        rest = classify(up[ku:], ours[ko:], docs, sub)
        if not did or (rest and not rest[1]):
            if rest and did:
                return (rest[0], None, ku + rest[2], rest[3], rest[4])
            return (kind, None, i, u, o)
        return (kind, did, i, u, o)
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
    extra = set()
    if opkind == 'end' and trace_header_bytes(u, o):
        extra.add('trace-header-bytes')
    if opkind == 'end' and trace_lost_first(up, ours):
        extra.add('trace-lost-first')
    return (kind, match_doc(docs, kind, full, ctx, up, ours, (u or o)[0],
                            extra), i, u, o)


def match_doc(docs, kind, full, ctx, up, ours, op, extra=()):
    """The id of the first documented entry matching one of the three forms
    of a difference, or None."""
    if not docs:
        return None
    optext, f = facts(ctx, up, ours, op)
    withfacts = '%s | op: %s | facts: %s' % (
        kind, optext.replace('\n', '\\n'), ' '.join(sorted(f | set(extra))))
    for did, rx, _ in docs:
        if rx.search(kind) or rx.search(full) or rx.search(withfacts):
            return did
    return None


def seq_key(s):
    return (0, int(s)) if s.isdigit() else (1, s)


def contexts(up, ours, ids, lister_cmd):
    """{sid: ctx} for the sequences that differ (see facts())."""
    lister = Lister(lister_cmd) if lister_cmd else None
    differ = [sid for sid in ids if sid in up and sid in ours and
              first_diff(up[sid], ours[sid]) is not None]
    if lister:
        lister.prefetch(differ)
    ctx = {}
    for sid in differ:
        prev = str(int(sid) - 1) if sid.isdigit() else None
        carry = prev in up and end_has_unnamed(up[prev]) and \
            end_has_unnamed(up[sid]) and not end_has_unnamed(ours[sid])
        ctx[sid] = {'sid': sid, 'lister': lister, 'carry': carry}
    return ctx


def cmd_diff(a):
    up, ours = load(a.up), load(a.ours)
    docs = load_documented(a.documented)
    ids = sorted(set(up) | set(ours), key=seq_key)
    ctxs = contexts(up, ours, ids, a.lister)
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
            c = classify(up[sid], ours[sid], docs, ctxs.get(sid))
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
    ctxs = contexts(up, ours, ids, a.lister)
    print('TAP version 13')
    print('1..%d' % len(ids))
    for n, sid in enumerate(ids, 1):
        c = classify(up.get(sid, []), ours[sid], docs, ctxs.get(sid))
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
    p.add_argument('--lister')
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
    p.add_argument('--lister')
    p.add_argument('--limit', type=int, default=0)
    a = ap.parse_args()
    return {'diff': cmd_diff, 'shrink-plan': cmd_shrink_plan,
            'shrink-eval': cmd_shrink_eval, 'report': cmd_report,
            'tap': cmd_tap}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
