#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw uebench output of the bench boots into a Markdown report.

Usage: report.py [--pairs N --reps R --scale S --smp C] RAWDIR
       report.py --summary RESULTS.md

RAWDIR holds <boot>-<kernel>.txt files (kernel: test = ours, upstream)
with "L key label" and "V key value" lines (see uebench.c).  The report
names the date, the tree and the machine it was measured on.

--summary prints the rows of SUMMARY from a report, as the short table
that README.md shows between its bench-summary markers.
"""
import argparse
import datetime
import glob
import os
import re
import statistics
import subprocess
import sys

# (section, key, target ratio ours/upstream or None)
ROWS = [
    ("1", "b8_write", 0.67),
    # ours / trace_marker_raw on the same kernel; the target is on ours
    ("1", "b8_write/marker_raw", 1.05),
    ("1", "b8_writev", None),
    ("1", "b8_dropped", None),
    ("2", "b1k_write", 0.75),
    ("3", "b8_perf", 0.80),
    ("4", "marker_raw", None),
    ("4", "usdt", None),
    ("4", "devnull", None),
    ("5", "disabled", None),
    ("6", "reg_unreg", 1.0),
    ("7", "en_1", None),
    ("7", "en_100", None),
    ("7", "en_1000", None),
    ("7", "enw_1", None),
    ("7", "enw_100", None),
    ("7", "enw_1000", None),
    ("7", "dis_1", None),
    ("7", "dis_100", None),
    ("7", "dis_1000", None),
    ("7", "enw_1-p_synth_en", None),
    ("7", "enw_1000-p_synth_en", 0.10),
    ("7", "enw_many", None),
    ("7", "dis_many", None),
    # USER_EVENT_REG_NOTIFY: ours only (upstream refuses the flag)
    ("7", "nt_plain_en", None),
    ("7", "nt_plain_dis", None),
    ("7", "nt_idle_en", None),
    ("7", "nt_idle_dis", None),
    ("7", "nt_idle_en/nt_plain_en", 1.01),
    ("7", "nt_idle_dis/nt_plain_dis", 1.01),
    ("7", "nt_reg_en", None),
    ("7", "nt_reg_cpu", None),
    ("7", "nt_wake_en", None),
    ("7", "nt_wake_cpu", None),
    ("7", "nt_wake_cpu/nt_reg_cpu", None),
    ("7", "nt_wake_first", (1e6, "1 ms")),
    ("7", "nt_wake_last", None),
    ("8", "fork_0", None),
    ("8", "fork_100", 1.0),
    ("8", "fork_1000", None),
    ("9", "forkrace", 1.0),
    ("9", "forkrace_churn", None),
    ("9", "forkrace_toggles", None),
    ("9", "forkrace_thr", None),
    ("9", "forkrace_thr_churn", None),
    ("9", "forkrace_thr_toggles", None),
    ("10", "mem_event_1000", 1.0),
    ("10", "mem_event_10000", 1.0),
    ("10", "mem_enabler_1000", 1.0),
    ("10", "mem_enabler_10000", 1.0),
    ("10", "mem_first_reg", 1.0),
    # absolute targets on ours: (limit, as shown)
    ("11", "hostile_toggle", (100e6, "100 ms")),
    ("11", "hostile_perf", (100e6, "100 ms")),
    ("11", "hostile_probe", (100e6, "100 ms")),
    ("11", "hostile_forks", None),
    ("11", "hostile_toggles", None),
    # DIAG_IOCSBATCH: ours only; "~": ours over upstream's other row
    ("12", "bt_32", None),
    ("12", "bt_8", None),
    ("12", "bt_1", None),
    ("12", "bt_32~b8_write", 0.30),
    ("12", "bt_8~b8_write", 0.40),
    ("12", "bt_32/devnull", 1.25),
    ("12", "bt_1/b8_write", 1.05),
    # io_uring: ours writes inline, upstream hands each write to io-wq
    ("12", "ur_32", None),
    ("12", "ur_8", None),
    ("12", "ur_1", None),
    ("12", "ur_32/bt_32", None),
    # the trace core's direct path for other events (and row 4's uprobe)
    ("13", "tp_rename", 1.0),
    ("13", "tp_rename_off", None),
    ("13", "tp_rename-tp_rename_off", 1.0),
]

# How a derived ratio names its denominator, where the start of that
# row's label does not say it
OVER = {
    "nt_plain_en": "the plain toggle",
    "nt_plain_dis": "the plain toggle",
    "nt_reg_cpu": "the same with registrations without NOTIFY (CPU time)",
}

# How a derived difference names what it subtracts
MINUS = {
    "p_synth_en": "user_events part: minus the same toggle of a synthetic event",
    "tp_rename_off": "the tracepoint's part: minus the same call untraced",
}

# What row 11 measures under (bench.sh runs the selftest for it)
HOSTILE_NOTE = (
    "Row 11 is nostall_test's nostall.tracers_not_stalled at the scale of "
    "BENCH_HOSTILE: unprivileged processes with many registrations of one "
    "event, forking, beside an mmap_lock churner, a userfaultfd-stuck page, "
    "a MADV_WIPEONFORK page, a FUSE holder (its enable word on a dropped "
    "page of a file whose in-test FUSE daemon stops answering reads) and "
    "vhost holders (one process after another that owns /dev/vhost-net and "
    "exits holding its registration), while root toggles that event. A "
    "holder whose device the kernel lacks is left out; the raw output's "
    "\"# hostile:\" lines say which held.")

# What row 12's targets meet (the profile "batch_8" below shows each
# function's instructions)
BATCH_NOTE = (
    "Row 12: a batched record costs what a write() costs after the system "
    "call's entry and the VFS: the ring buffer's reserve and commit "
    "(ring_buffer_lock_reserve(), __rb_reserve_next(), the trace clock, "
    "ring_buffer_unlock_commit(), rb_commit(): per record, nothing of them "
    "can be shared between records of one call), the trace core's record "
    "header and context flags, the copy of the payload with page faults "
    "disabled, and user_events' own checks of the record (its write index, "
    "its length, the event's state, the per-CPU written count). What a "
    "batch saves is the system call and the VFS of every record but the "
    "first; what it adds is reading struct user_batch and the iovec array, "
    "and an access_ok() per record. A batch of one record therefore costs "
    "more than a write(): the targets of 0.30 and 0.40 of upstream's "
    "single write would need a reserve and commit of several records at "
    "once in the ring buffer, which this series does not attempt. "
    "io_uring, measured first as the kernel's own batching engine, costs "
    "more per record than DIAG_IOCSBATCH (the \"ur_\" rows): each record "
    "is a request of its own, with its SQE read and checked, its file "
    "looked up and referenced, a kiocb and an iterator set up, a call "
    "through write_iter(), and a completion posted to the CQ ring; on "
    "upstream, whose user_events_data lacks FMODE_NOWAIT, each write is "
    "also handed to an io-wq worker, whose pid the record then carries.")

# Steps of the enabled 8-byte ftrace write: (label, key, previous key)
STEPS = [
    ("syscall floor: write() of 12 bytes to /dev/null", "devnull", None),
    ("VFS dispatch to the write handler, first check (2-byte write, EFAULT - floor)",
     "p_short", "devnull"),
    ("read of the 4-byte write index (negative index, EINVAL - EFAULT)",
     "p_einval", "p_short"),
    ("write index lookup, failing (ENOENT - EINVAL)",
     "p_enoent", "p_einval"),
    ("event lookup, size and status checks (EBADF - ENOENT)",
     "p_ebadf", "p_enoent"),
    ("probe call, trigger check, refused reserve (tracing_on=0 - EBADF)",
     "p_off", "p_ebadf"),
    ("ring buffer reserve + commit of a header-only record (no fields - tracing_on=0)",
     "p_b0", "p_off"),
    ("8-byte payload (8-byte - no fields)", "b8_write", "p_b0"),
]

KERNELS = (("test", "ours"), ("upstream", "upstream"))

# The README's summary: (section, start of the workload's label)
SUMMARY = [
    ("1", "write(), 8-byte payload, ftrace |"),
    ("1", "write(), 8-byte payload, ftrace buffer full"),
    ("2", "write(), 1 KiB __rel_loc"),
    ("3", "write(), 8-byte payload, perf"),
    ("12", "DIAG_IOCSBATCH, 32 8-byte records per call, ftrace, per record, ours over"),
    ("12", "DIAG_IOCSBATCH, 8 8-byte records per call, ftrace, per record, ours over"),
    ("12", "io_uring, 32 8-byte writes per io_uring_enter(), ftrace, per record |"),
    ("4", "uprobe (USDT nop) hit"),
    ("13", "prctl(PR_SET_NAME), TRACE_EVENT() task:task_rename, ftrace |"),
    ("6", "DIAG_IOCSREG + DIAG_IOCSUNREG"),
    ("8", "fork() + _exit(0) + waitpid(), 100 registrations"),
]


def load(rawdir):
    labels, vals, boots = {}, {k: {} for k, _ in KERNELS}, {}
    unames = {k: set() for k, _ in KERNELS}
    for path in sorted(glob.glob(os.path.join(rawdir, "*-*.txt"))):
        kernel = os.path.basename(path)[:-4].split("-", 1)[1]
        if kernel not in vals:
            continue
        boots[kernel] = boots.get(kernel, 0) + 1
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 2)
                if len(parts) < 3:
                    continue
                if parts[0] == "#" and parts[1] == "kernel":
                    unames[kernel].add(parts[2])
                elif parts[0] == "L":
                    labels[parts[1]] = parts[2]
                elif parts[0] == "V":
                    vals[kernel].setdefault(parts[1], []).append(
                        float(parts[2]))
    return labels, vals, boots, unames


def fmt(v):
    if v is None:
        return "n/a"
    if abs(v) < 1:
        return "%.3f" % v
    if abs(v) < 100:
        return "%.1f" % v
    return "%.0f" % v


def cell(vs):
    if not vs:
        return "n/a"
    return "%s (%s–%s)" % (fmt(statistics.median(vs)), fmt(min(vs)),
                           fmt(max(vs)))


def med(vals, kernel, key):
    vs = vals[kernel].get(key)
    return statistics.median(vs) if vs else None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def derived(vals, labels, key, sep, op):
    """The rows of key "A<sep>B" and, per kernel, op(median A, median B)
    (None where either is missing); d is None if a row was not run."""
    a_key, b_key = key.split(sep, 1)
    if a_key not in labels or b_key not in labels:
        return a_key, b_key, None
    d = {}
    for k, _ in KERNELS:
        va, vb = med(vals, k, a_key), med(vals, k, b_key)
        d[k] = op(va, vb) if va is not None and vb is not None else None
    return a_key, b_key, d


def git_rev():
    try:
        rev = subprocess.run(["git", "describe", "--always", "--dirty"],
                             capture_output=True, text=True,
                             cwd=os.path.dirname(__file__)).stdout.strip()
        return rev or "unknown"
    except OSError:
        return "unknown"


def machine():
    model = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs (nproc)" % (model, os.cpu_count() or 0)


def summary(path):
    """The SUMMARY rows of report @path: workload, ours, upstream, ratio
    (the medians only, without the spread)."""
    rows, when = {}, "?"
    with open(path) as f:
        for line in f:
            m = re.match(r"- Date: ([^;]*);.*\(tree ([^)]*)\)", line)
            if m:
                when = "%s, tree %s" % m.groups()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 6:
                rows.setdefault(cells[0], []).append(cells)
    out = ["Guest instructions per operation, median (%s):" % when, "",
           "| workload | ours | upstream | ours/upstream |",
           "|---|---:|---:|---:|"]
    for sec, start in SUMMARY:
        want = start.rstrip(" |")
        exact = start.endswith("|")
        for cells in rows.get(sec, []):
            if (cells[1] == want) if exact else cells[1].startswith(want):
                out.append("| %s | %s | %s | %s |" % (
                    cells[1], cells[2].split(" ")[0],
                    cells[3].split(" ")[0], cells[4]))
                break
        else:
            sys.exit("report.py: no row %s \"%s\" in %s" % (sec, want, path))
    return "\n".join(out)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        print(summary(sys.argv[2]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="?")
    ap.add_argument("--reps", default="?")
    ap.add_argument("--scale", default="1")
    ap.add_argument("--smp", default="1")
    ap.add_argument("rawdir")
    a = ap.parse_args()
    labels, vals, boots, unames = load(a.rawdir)
    if not labels:
        sys.exit("report.py: no results in %s" % a.rawdir)

    out = []
    p = out.append
    p("# user_events: ours vs upstream, in guest instructions")
    p("")
    p("- Date: %s; base: Linux 6.12.117 (Debian linux-source-6.12); "
      "ours: build/obj-test (tree %s); upstream: build/obj-upstream "
      "(upstream's trace_events_user.c, same tree and config)."
      % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
         git_rev()))
    p("- Machine: %s." % machine())
    for k, name in KERNELS:
        p("- %s kernel: `%s`%s" % (
            name, "`, `".join(sorted(unames[k])) or "?",
            " (WARNING: boots of different builds)"
            if len(unames[k]) > 1 else ""))
    p("- Unit: guest instructions per operation. QEMU TCG with "
      "`-icount shift=0,sleep=off`, %s vCPU: the guest's CLOCK_MONOTONIC "
      "advances 1 ns per guest instruction; uebench times loops of N "
      "operations with clock_gettime() after a warm-up." % a.smp)
    p("- %s boots of each kernel, alternating (ours, upstream, ...), %s "
      "measurements per workload and boot (loop counts x%s); cells: "
      "median (min–max) of all measurements; ratio = median ours / median "
      "upstream." % (" / ".join("%d" % boots.get(k, 0) for k, _ in KERNELS),
                     a.reps, a.scale))
    p("- Reproduce: `make bench` (`BENCH_PAIRS=%s BENCH_REPS=%s`); "
      "program: workbench/bench/uebench.c, raw output: build/bench/raw/."
      % (a.pairs, a.reps))
    p("")
    p("| # | workload | ours | upstream | ours/upstream | target |")
    p("|---|---|---:|---:|---:|---:|")
    for sec, key, target in ROWS:
        if "~" in key:
            # ours of one row over upstream's of another
            a_key, b_key = key.split("~", 1)
            if a_key not in labels or b_key not in labels:
                continue
            r = ratio(med(vals, "test", a_key), med(vals, "upstream", b_key))
            tgt = ""
            if target is not None and r is not None:
                tgt = "≤ %.2f %s" % (target, "met" if round(r, 2) <= target
                                     else "NOT met")
            p("| %s | %s, ours over upstream's %s (derived) | %s | %s | %s "
              "| %s |" % (sec, labels[a_key], labels[b_key].split(",")[0],
                          fmt(med(vals, "test", a_key)),
                          fmt(med(vals, "upstream", b_key)),
                          "%.2f" % r if r is not None else "n/a", tgt))
            continue
        if "/" in key:
            # derived: ratio of two medians of the same kernel
            a_key, b_key, d = derived(vals, labels, key, "/", ratio)
            if d is None:
                continue
            tgt = ""
            if target is not None and d["test"] is not None:
                tgt = "≤ %.2f x %s" % (target,
                                       "met" if round(d["test"], 2) <= target
                                       else "NOT met")
            p("| %s | %s, over %s on the same kernel (derived) | %s | %s "
              "|  | %s |" % (
                  sec, labels[a_key],
                  OVER.get(b_key, labels[b_key].split(",")[0]),
                  "%.2f" % d["test"] if d["test"] is not None else "n/a",
                  "%.2f" % d["upstream"] if d["upstream"] is not None
                  else "n/a", tgt))
            continue
        if "-" in key:
            # derived: difference of two medians, no spread
            a_key, b_key, d = derived(vals, labels, key, "-",
                                      lambda a, b: a - b)
            if d is None:
                continue
            r = ratio(d["test"], d["upstream"])
            tgt = ""
            if target is not None and r is not None:
                tgt = "≤ %.2f %s" % (target,
                                     "met" if round(r, 2) <= target
                                     else "NOT met")
            p("| %s | %s, %s (derived) | %s | %s | %s | %s |" % (
                  sec, labels[a_key], MINUS[b_key], fmt(d["test"]),
                  fmt(d["upstream"]),
                  "%.2f" % r if r is not None else "n/a", tgt))
            continue
        if key not in labels:
            continue
        r = ratio(med(vals, "test", key), med(vals, "upstream", key))
        tgt = ""
        if isinstance(target, tuple):
            ours = vals["test"].get(key)
            if ours:
                tgt = "< %s %s" % (target[1], "met" if max(ours) < target[0]
                                   else "NOT met")
        elif target is not None and r is not None:
            # judged at the precision shown
            ok = round(r, 2) <= target
            tgt = "≤ %.2f %s" % (target, "met" if ok else "NOT met")
        p("| %s | %s | %s | %s | %s | %s |" % (
            sec, labels[key], cell(vals["test"].get(key)),
            cell(vals["upstream"].get(key)),
            "%.2f" % r if r is not None else "n/a", tgt))
    p("")
    if any(sec == "11" and key in labels for sec, key, _ in ROWS):
        p(HOSTILE_NOTE)
        p("")
    if "bt_32" in labels:
        p(BATCH_NOTE)
        p("")

    if all(k in labels for _, k, _ in STEPS):
        p("## Where the instructions of the enabled 8-byte write go")
        p("")
        p("Differences of medians between variants of the same write "
          "(write() of [index][u64], ftrace consumer unless noted):")
        p("")
        p("| step | ours | upstream |")
        p("|---|---:|---:|")
        for lab, key, prev in STEPS:
            row = []
            for k, _ in KERNELS:
                v = med(vals, k, key)
                if prev:
                    pv = med(vals, k, prev)
                    v = v - pv if v is not None and pv is not None else None
                row.append(fmt(v))
            p("| %s | %s | %s |" % (lab, row[0], row[1]))
        p("| **total: enabled 8-byte write, ftrace** | **%s** | **%s** |" % (
            fmt(med(vals, "test", "b8_write")),
            fmt(med(vals, "upstream", "b8_write"))))
        extra = [
            ("per payload byte, char[64] ((64 bytes - no fields) / 64)",
             "p_b64", "p_b0", 64),
            ("per payload byte, 1 KiB __rel_loc ((1 KiB - no fields) / 1028)",
             "b1k_write", "p_b0", 1028),
            ("writev() [index, payload] instead of write()",
             "b8_writev", "b8_write", 1),
            ("perf instead of ftrace (perf - ftrace)",
             "b8_perf", "b8_write", 1),
            ("ftrace + perf instead of ftrace alone",
             "p_both", "b8_write", 1),
            ("enable write(): user_events part (1 other process - synthetic event)",
             "enw_1", "p_synth_en", 1),
            ("disable: user_events part (1 other process - synthetic event)",
             "dis_1", "p_synth_dis", 1),
            ("enable toggle: cost of 1000 other processes (1000 - 1)",
             "en_1000", "en_1", 1),
            ("enable toggle: cost of 100 other processes (100 - 1)",
             "en_100", "en_1", 1),
            ("fork+exit: per registration ((1000 - 0) / 1000)",
             "fork_1000", "fork_0", 1000),
        ]
        p("")
        p("| other differences | ours | upstream |")
        p("|---|---:|---:|")
        for lab, key, prev, div in extra:
            row = []
            for k, _ in KERNELS:
                v, pv = med(vals, k, key), med(vals, k, prev)
                row.append(fmt((v - pv) / div)
                           if v is not None and pv is not None else "n/a")
            p("| %s | %s | %s |" % (lab, row[0], row[1]))
        p("")
        p("| profile variant | ours | upstream | ours/upstream |")
        p("|---|---:|---:|---:|")
        for key in ("p_short", "p_einval", "p_enoent", "p_ebadf", "p_off",
                    "p_b0", "p_b64", "p_synth_en", "p_synth_dis",
                    "p_both"):
            if key not in labels:
                continue
            r = ratio(med(vals, "test", key), med(vals, "upstream", key))
            p("| %s | %s | %s | %s |" % (
                labels[key], cell(vals["test"].get(key)),
                cell(vals["upstream"].get(key)),
                "%.2f" % r if r is not None else "n/a"))
        p("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
