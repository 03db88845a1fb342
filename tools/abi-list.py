#!/usr/bin/env python3
"""The C ABI of include/sgsample.h as a plain, diffable list (abi/sgsample-<ABI>.abi):

* every function's prototype, as GCC normalises it (`gcc -aux-info`);
* every callback typedef, whitespace collapsed;
* every struct's size and alignment and each field's offset and declaration, measured by
  compiling a probe program against the header with the host C compiler;
* every `SGS_…` constant and status code with its value.

Usage: tools/abi-list.py [HEADER]  (prints the list; scripts/abi-check.sh compares it with the
checked-in one). Needs a C compiler (`CC`, default cc). The sizes are the host's (x86-64 and
aarch64 Linux agree: LP64, natural alignment); the list says which host measured it.
"""
import os
import re
import subprocess
import sys
import tempfile

header = sys.argv[1] if len(sys.argv) > 1 else "include/sgsample.h"
cc = os.environ.get("CC", "cc")
text = open(header, encoding="utf-8").read()
# Comments out, so that field and constant parsing sees declarations only.
code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
code = re.sub(r"//[^\n]*", "", code)

out = []
with tempfile.TemporaryDirectory() as tmp:
    aux = os.path.join(tmp, "aux.txt")
    subprocess.run([cc, "-aux-info", aux, "-fsyntax-only", "-x", "c", header], check=True)
    protos = set()
    for line in open(aux, encoding="utf-8"):
        line = re.sub(r"/\*.*?\*/", "", line).strip()
        if re.search(r"\bsgs_\w+ \(", line):
            protos.add(line)
    out += ["function " + p for p in sorted(protos)]

    for m in re.finditer(r"typedef[^;{}]*\(\*\s*(sgs_\w+)\)\s*\([^;]*\);", code):
        out.append("callback " + " ".join(m.group(0).split()))

    structs = re.findall(r"typedef struct (sgs_\w+) \{(.*?)\} \1;", code, flags=re.S)
    probe = ['#include <stdio.h>', '#include <stddef.h>', f'#include "{os.path.abspath(header)}"',
             'int main(void) {']
    for name, body in structs:
        probe.append(f'printf("struct {name} size %zu align %zu\\n", sizeof(struct {name}), '
                     f'_Alignof(struct {name}));')
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            field = re.search(r"(\w+)\s*(\[[^\]]*\])?$", decl).group(1)
            probe.append(f'printf("struct {name} field %zu {decl}\\n", '
                         f'offsetof(struct {name}, {field}));')
    probe += ["return 0;", "}"]
    src = os.path.join(tmp, "probe.c")
    exe = os.path.join(tmp, "probe")
    open(src, "w", encoding="utf-8").write("\n".join(probe) + "\n")
    subprocess.run([cc, "-std=c11", "-o", exe, src], check=True)
    out += subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines()

for m in re.finditer(r"^#define (SGS_(?!VERSION_)\w+) (\S.*)$", code, flags=re.M):
    out.append(f"constant {m.group(1)} {m.group(2).strip()}")
for m in re.finditer(r"^\s*(SGS_\w+) = (-?\w+),?$", code, flags=re.M):
    out.append(f"constant {m.group(1)} {m.group(2)}")

machine = subprocess.run([cc, "-dumpmachine"], check=True, capture_output=True, text=True).stdout.strip()
print(f"# The C ABI of {os.path.basename(header)}: tools/abi-list.py, sizes measured on {machine}.")
print("# Compared with the header by scripts/abi-check.sh (see docs/abi.md).")
for line in out:
    print(line)
