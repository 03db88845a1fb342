#!/usr/bin/env python3
"""Writes src/generated.jl from include/sgsample.h: every constant, struct layout, typedef and a
thin `@ccall` wrapper per C function, mechanically (no hand-copied layouts).

    python3 bindings/julia/SGSample/gen/generate.py          # rewrite src/generated.jl
    python3 bindings/julia/SGSample/gen/generate.py --check  # exit 1 if it is not current

The header is read by the Python binding's reader (bindings/python/sgsample/_header.py), so the
two bindings see the same declarations. bindings/python/tests/test_julia.py runs --check.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "sgsample"))
import _header  # noqa: E402

OUT = os.path.join(HERE, "..", "src", "generated.jl")

SCALARS = {
    "double": "Cdouble", "float": "Cfloat", "uint64_t": "UInt64", "uint32_t": "UInt32",
    "int32_t": "Int32", "size_t": "Csize_t", "void": "Cvoid", "char": "Cchar",
}


def jl_type(h, ctype):
    # Qualifiers anywhere ("const T *const *" reads back as "T* const*"): Julia's Ptr has none.
    t = " ".join(re.sub(r"\bconst\b", " ", ctype).replace("struct ", "").split())
    if t.endswith("*"):
        inner = t[:-1].strip()
        return f"Ptr{{{jl_type(h, inner)}}}"
    if t in SCALARS:
        return SCALARS[t]
    if t in h.struct_typedefs or t in h.scalar_typedefs or t in h.callbacks or t in h.structs:
        return t
    raise ValueError(f"no Julia type for C type {ctype!r}")


def generate(header_path):
    h = _header.parse_file(header_path)
    o = ["# GENERATED from include/sgsample.h by gen/generate.py -- do not edit.",
         "# Layouts follow C's rules; Julia isbits structs use the same ones.", ""]
    o.append("# Constants (#define)")
    for k, v in h.defines.items():
        o.append(f"const {k} = {v!r}" if isinstance(v, (int, float)) else f'const {k} = "{v}"')
    o.append("")
    o.append("# Scalar typedefs (as C99 sees them) and enum members")
    for name, ctype in h.scalar_typedefs.items():
        jt = SCALARS[ctype]
        o.append(f"const {name} = {jt}")
    for tag, members in h.enums.items():
        jt = SCALARS[h.scalar_typedefs.get(tag, "int32_t")]
        # Members of a tag without the sgs_ prefix (cbindgen's `Outcome`) get the tag as prefix:
        # bare names such as `Accepted` would crowd the package namespace.
        prefix = "" if tag.startswith("sgs_") else tag + "_"
        for m, v in members:
            o.append(f"const {prefix}{m} = {jt}({v})")
    o.append("")
    o.append("# Callback types: C function pointers (make them with @cfunction)")
    for name, (ret, params) in h.callbacks.items():
        sig = ", ".join(f"{jl_type(h, t)}" for t, _ in params)
        o.append(f"const {name} = Ptr{{Cvoid}}  # {jl_type(h, ret)} (*)({sig})")
    o.append("")
    o.append("# Structs")
    aliases = []
    for alias, tag in h.struct_typedefs.items():
        if alias != tag:
            aliases.append((alias, tag))
    for tag, fields in h.structs.items():
        o.append(f"struct {tag}")
        for ctype, name, n in fields:
            jt = jl_type(h, ctype)
            o.append(f"    {name}::{f'NTuple{{{n}, {jt}}}' if n else jt}")
        o.append("end")
        for alias, t in aliases:
            if t == tag:
                o.append(f"const {alias} = {tag}")
    o.append("")
    o.append("# Functions: one @ccall per declaration, arguments in the header's order")
    for name, (ret, params) in h.functions.items():
        args = ", ".join(p for _, p in params)
        typed = ", ".join(f"{p}::{jl_type(h, t)}" for t, p in params)
        o.append(f"{name}({args}) = @ccall libsgsample.{name}({typed})::{jl_type(h, ret)}")
    return "\n".join(o) + "\n"


def main():
    text = generate(os.path.join(ROOT, "include", "sgsample.h"))
    if "--check" in sys.argv:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("bindings/julia/SGSample/src/generated.jl is stale: run gen/generate.py")
                sys.exit(1)
        print("generated.jl current")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
