# SPDX-License-Identifier: GPL-2.0
"""Instruction profile of one write() in the guest kernel.

Two halves, one file:

  gdb -batch -x profile.py   (environment PROF_PORT, PROF_PLAN, PROF_K,
                              PROF_OUT) attaches to QEMU's gdbstub; for
                              every "name:address" of PROF_PLAN it stops
                              at the (PROF_K - 1)-th call of that function
                              (an address), lets that syscall return and
                              single-steps the next one from its entry
                              to its return to user mode, writing every
                              kernel pc to PROF_OUT/name.pcs.

  python3 profile.py report SYSTEM_MAP NAME.pcs [MIN]
                              prints the call tree of those steps, each
                              node with its inclusive and self counts
                              (nodes under MIN instructions, default 4,
                              are folded into their parent); the
                              syscall's first function is the root.

QEMU single-steps with interrupts and timers masked, so a trace holds
only the instructions of the call itself; `rep movs` counts once per
iteration, as -icount does.
"""
import bisect
import os
import sys

KERNEL_MIN = 1 << 63


def pc_now(gdb):
    return int(gdb.parse_and_eval("$pc")) & ((1 << 64) - 1)


def trace_in_gdb():
    import gdb  # pylint: disable=import-error,import-outside-toplevel

    k = int(os.environ["PROF_K"])
    out = os.environ["PROF_OUT"]
    gdb.execute("set architecture i386:x86-64")
    gdb.execute("set pagination off")
    # an address, not a name: a minimal root may not resolve localhost
    gdb.execute("target remote 127.0.0.1:%s" % os.environ["PROF_PORT"])
    for item in os.environ["PROF_PLAN"].split(","):
        name, addr = item.split(":")
        gdb.execute("delete")
        gdb.execute("hbreak *0x%s" % addr)
        if k > 2:
            gdb.execute("ignore $bpnum %d" % (k - 2))
        gdb.execute("continue")
        gdb.execute("delete")
        # finish call k - 1, then trace call k from its syscall entry
        while pc_now(gdb) >= KERNEL_MIN:
            gdb.execute("stepi", to_string=True)
        while pc_now(gdb) < KERNEL_MIN:
            gdb.execute("stepi", to_string=True)
        pcs = []
        while len(pcs) < 200000:
            pc = pc_now(gdb)
            if pc < KERNEL_MIN:
                break
            pcs.append(pc)
            gdb.execute("stepi", to_string=True)
        with open(os.path.join(out, name + ".pcs"), "w") as f:
            f.write("".join("%x\n" % pc for pc in pcs))
    gdb.execute("delete")
    gdb.execute("detach")


def load_symbols(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def build_tree(pcs, addrs, names):
    """Call tree from the pcs: entering a function at its first byte is a
    call (or a tail call), landing inside one already on the stack is a
    return to it."""
    tree = {}
    stack = []
    for pc in pcs:
        i = bisect.bisect_right(addrs, pc) - 1
        fn, start = (names[i], addrs[i]) if i >= 0 else ("?", 0)
        if not stack:
            stack.append(fn)
        elif fn != stack[-1]:
            if pc != start and fn in stack:
                del stack[stack.index(fn) + 1:]
            else:
                stack.append(fn)
        key = tuple(stack)
        tree[key] = tree.get(key, 0) + 1
    return tree


def report(system_map, pcs_file, minimum=4):
    addrs, names = load_symbols(system_map)
    with open(pcs_file) as f:
        pcs = [int(line, 16) for line in f if line.strip()]
    tree = build_tree(pcs, addrs, names)
    incl = {}
    for path, n in tree.items():
        for d in range(1, len(path) + 1):
            incl[path[:d]] = incl.get(path[:d], 0) + n
    print("%d instructions; inclusive, self, function (call tree)" % len(pcs))
    print("")

    def show(path):
        kids = sorted((p for p in incl if len(p) == len(path) + 1 and
                       p[:-1] == path), key=lambda p: -incl[p])
        shown = [p for p in kids if incl[p] >= minimum]
        folded = sum(incl[p] for p in kids if incl[p] < minimum)
        print("    %5d %5d  %s%s" % (incl[path], tree.get(path, 0) + folded,
                                    "  " * (len(path) - 1), path[-1]))
        for p in shown:
            show(p)

    for root in sorted((p for p in incl if len(p) == 1),
                       key=lambda p: -incl[p]):
        show(root)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3],
               int(sys.argv[4]) if len(sys.argv) > 4 else 4)
    else:
        trace_in_gdb()
