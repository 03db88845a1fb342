#!/usr/bin/env python3
"""What changed between two C ABI lists (tools/abi-list.py output), one line per item:

    tools/abi-diff.py abi/sgsample-0.3.abi abi/sgsample-0.4.abi

Functions and callbacks: added, removed, changed prototype. Structs: added, removed, size or
alignment changed, fields added/removed/moved. Constants: added, removed, changed value. Exit
status 1 when anything differs (so it doubles as a check)."""
import re
import sys
from collections import defaultdict


def load(path):
    funcs, cbs, consts = {}, {}, {}
    structs = defaultdict(lambda: {"size": None, "fields": {}})
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#") or not line:
            continue
        kind, rest = line.split(" ", 1)
        if kind == "function":
            name = re.search(r"\b(sgs_\w+) \(", rest).group(1)
            funcs[name] = rest
        elif kind == "callback":
            cbs[re.search(r"\(\*(sgs_\w+)\)", rest).group(1)] = rest
        elif kind == "constant":
            name, value = rest.split(" ", 1)
            consts[name] = value
        elif kind == "struct":
            m = re.match(r"(\w+) size (\d+) align (\d+)$", rest)
            if m:
                structs[m.group(1)]["size"] = (int(m.group(2)), int(m.group(3)))
            else:
                m = re.match(r"(\w+) field (\d+) (.*)$", rest)
                decl = m.group(3)
                field = re.search(r"(\w+)\s*(\[[^\]]*\])?$", decl).group(1)
                structs[m.group(1)]["fields"][field] = (int(m.group(2)), decl)
    return funcs, cbs, consts, structs


def main():
    (fa, ca, ka, sa), (fb, cb, kb, sb) = load(sys.argv[1]), load(sys.argv[2])
    lines = []
    for what, a, b in (("function", fa, fb), ("callback", ca, cb)):
        for n in sorted(b.keys() - a.keys()):
            lines.append(f"added {what} {n}")
        for n in sorted(a.keys() - b.keys()):
            lines.append(f"removed {what} {n}")
        for n in sorted(a.keys() & b.keys()):
            if a[n] != b[n]:
                lines.append(f"changed {what} {n}: {b[n]}")
    for n in sorted(sb.keys() - sa.keys()):
        lines.append(f"added struct {n} ({sb[n]['size'][0]} bytes)")
    for n in sorted(sa.keys() - sb.keys()):
        lines.append(f"removed struct {n}")
    for n in sorted(sa.keys() & sb.keys()):
        x, y = sa[n], sb[n]
        if x["size"] != y["size"]:
            lines.append(f"changed struct {n}: {x['size'][0]} -> {y['size'][0]} bytes")
        for f in sorted(y["fields"].keys() - x["fields"].keys(), key=lambda f: y["fields"][f][0]):
            lines.append(f"changed struct {n}: field {f} added at offset {y['fields'][f][0]}")
        for f in sorted(x["fields"].keys() - y["fields"].keys()):
            lines.append(f"changed struct {n}: field {f} removed")
        for f in sorted(x["fields"].keys() & y["fields"].keys()):
            if x["fields"][f] != y["fields"][f]:
                lines.append(f"changed struct {n}: field {f} {x['fields'][f]} -> {y['fields'][f]}")
    for n in sorted(kb.keys() - ka.keys()):
        lines.append(f"added constant {n} = {kb[n]}")
    for n in sorted(ka.keys() - kb.keys()):
        lines.append(f"removed constant {n}")
    for n in sorted(ka.keys() & kb.keys()):
        if ka[n] != kb[n]:
            lines.append(f"changed constant {n}: {ka[n]} -> {kb[n]}")
    print("\n".join(lines))
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
