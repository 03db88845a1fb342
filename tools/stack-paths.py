#!/usr/bin/env python3
"""Worst-case stack of a call tree, from a Thumb ELF's disassembly (docs/footprint.md).

Usage: tools/stack-paths.py ELF ROOT [--exclude SUBSTRING]... [--path]

Reads `arm-none-eabi-objdump -d -C` of ELF. A function's frame is what its prologue reserves
(`push`, `stmdb sp!`, `vpush`, `sub sp, #n`, `str rX, [sp, #-n]!` among its first 40
instructions); its callees are the targets of `bl` and, as tail calls, of `b`/`b.w` to the start
of another function (a tail call runs after the caller's frame is popped). Prints the largest sum
of frames along any call path from the function whose name contains ROOT, ROOT's own frame
included, and with --path that path. Not followed: indirect calls (`blx rN`: the probe's
callbacks, measured on their own), recursion (a call back into a function already on the path;
the median's median-of-medians fallback), and functions whose name contains an --exclude
substring. Stack painting (examples-embedded/src/bin/footprint.rs) measures the paths one run
takes; this gives the worst over every path the linked code has, for the same build.
"""
import re
import subprocess
import sys

PROLOGUE = 40


def regcount(regs):
    n = 0
    for r in regs.split(","):
        r = r.strip()
        if "-" in r:
            a, b = r.split("-")
            n += int(b[1:]) - int(a[1:]) + 1
        elif r:
            n += 1
    return n


def frame(ins):
    size = 0
    for i in ins[:PROLOGUE]:
        m = re.match(r"(push|stmdb)(\.w)?\s+(sp!,\s*)?\{([^}]*)\}", i)
        if m and (m.group(1) == "push" or m.group(3)):
            size += 4 * regcount(m.group(4))
            continue
        m = re.match(r"vpush\s+\{([^}]*)\}", i)
        if m:
            size += (8 if m.group(1).strip().startswith("d") else 4) * regcount(m.group(1))
            continue
        m = re.match(r"sub(w|\.w)?\s+sp,\s*(sp,\s*)?#(\d+)", i)
        if m:
            size += int(m.group(3))
            continue
        m = re.match(r"str(\.w)?\s+\S+,\s*\[sp,\s*#-(\d+)\]!", i)
        if m:
            size += int(m.group(2))
    return size


def parse(elf):
    text = subprocess.run(
        ["arm-none-eabi-objdump", "-d", "-C", "--no-show-raw-insn", elf],
        check=True, capture_output=True, text=True,
    ).stdout
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur = m.group(1)
            funcs.setdefault(cur, [])
        elif cur is not None and "\t" in line:
            funcs[cur].append("\t".join(line.split("\t")[1:]).strip())
    graph = {}
    for f, ins in funcs.items():
        calls = set()
        for i in ins:
            m = re.match(r"(bl|b\.w|b)\s+[0-9a-f]+\s+<(.*)>\s*$", i)
            if m and "+0x" not in m.group(2) and m.group(2) != f and m.group(2) in funcs:
                calls.add((m.group(2), m.group(1) != "bl"))
        graph[f] = (frame(ins), calls)
    return graph


def worst(graph, f, on_path, excl, memo):
    if f in memo:
        return memo[f]
    own, calls = graph[f]
    best, best_path = 0, []
    on_path.add(f)
    for g, tail in sorted(calls):
        if g in on_path or any(e in g for e in excl):
            continue
        w, p = worst(graph, g, on_path, excl, memo)
        if tail:
            w -= own
            p = [p[0] + " (tail call: replaces the frame above)"] + p[1:]
        if w > best:
            best, best_path = w, p
    on_path.discard(f)
    # Memoised per function: exact for call graphs without recursion (a recursive function's
    # result then depends on the path it was reached by, a small over- or under-estimate there).
    memo[f] = (own + best, [f"{f} [{own}]"] + best_path)
    return memo[f]


def main():
    args = sys.argv[1:]
    excl = [args[i + 1] for i, a in enumerate(args) if a == "--exclude"]
    pos = [
        a for i, a in enumerate(args)
        if not a.startswith("--") and (i == 0 or args[i - 1] != "--exclude")
    ]
    if len(pos) != 2:
        sys.exit(__doc__)
    elf, root = pos
    graph = parse(elf)
    roots = [f for f in graph if root in f]
    if len(roots) != 1:
        sys.exit(f"{root}: {len(roots)} functions match, need exactly one")
    total, path = worst(graph, roots[0], set(), excl, {})
    print(total)
    if "--path" in args:
        for p in path:
            print("  " + p)


if __name__ == "__main__":
    main()
