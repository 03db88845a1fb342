"""Reads ``include/sgsample.h`` mechanically: the declarations every binding is built from.

Pure Python, no dependencies, so that the build step (``setup.py``), the tests and the Julia
generator (``bindings/julia/SGSample/gen/generate.py``) all use the same reading of the header.
Nothing here knows a struct size or a constant: all of it comes from the header text.

The header is evaluated as a C99 translation unit (``__cplusplus`` undefined,
``__STDC_VERSION__ = 199901L``): the status and outcome types are then ``int32_t`` /
``uint32_t`` typedefs, as a C99 caller sees them.
"""

import re
from dataclasses import dataclass, field

C99 = {"__STDC_VERSION__": 199901}


@dataclass
class Header:
    """What the header declares, in declaration order."""

    code: str  # the active C code, comments and directives removed
    defines: dict = field(default_factory=dict)  # name -> int, float or str (resolved)
    enums: dict = field(default_factory=dict)  # enum tag -> [(member, value)]
    structs: dict = field(default_factory=dict)  # struct tag -> [(ctype, name, array_len|None)]
    struct_typedefs: dict = field(default_factory=dict)  # typedef name -> struct tag
    scalar_typedefs: dict = field(default_factory=dict)  # typedef name -> scalar C type
    callbacks: dict = field(default_factory=dict)  # fn-pointer typedef -> (ret, [(ctype, name)])
    functions: dict = field(default_factory=dict)  # function -> (ret, [(ctype, name)])

    def cdef(self):
        """Declarations for ``cffi.FFI.cdef`` (ABI mode): the code plus the integer constants."""
        lines = [f"#define {k} {v}" for k, v in self.defines.items() if isinstance(v, int)]
        return "\n".join(lines) + "\n" + self.code

    def statuses(self):
        """``{code: name}`` of the ``sgs_status`` enum."""
        return {v: k for k, v in self.enums["sgs_status"]}


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _eval_condition(expr, defined, values):
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: "1" if m.group(1) in defined else "0", expr)
    expr = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)
    expr = expr.replace("||", " or ").replace("&&", " and ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b",
                  lambda m: m.group(0) if m.group(0) in ("or", "and", "not")
                  else str(values.get(m.group(0), 0)), expr)
    return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 (digits and operators only)


def _preprocess(text):
    """Evaluates the conditionals for C99; returns (active code, raw #define values)."""
    defined = set(C99)
    values = dict(C99)
    raw_defines = {}
    out = []
    stack = []  # (parent_active, branch_taken, active)
    active = True
    for line in _strip_comments(text).splitlines():
        s = line.strip()
        if not s.startswith("#"):
            if active and s:
                out.append(line.rstrip())
            continue
        kw, _, rest = s[1:].strip().partition(" ")
        rest = rest.strip()
        if kw in ("if", "ifdef", "ifndef"):
            if kw == "if":
                cond = _eval_condition(rest, defined, values)
            else:
                cond = (rest in defined) == (kw == "ifdef")
            stack.append((active, cond, active and cond))
            active = active and cond
        elif kw == "else":
            parent, taken, _ = stack.pop()
            stack.append((parent, True, parent and not taken))
            active = parent and not taken
        elif kw == "endif":
            active = stack.pop()[0]
        elif kw == "define" and active:
            name, _, value = rest.partition(" ")
            defined.add(name)
            if value.strip():
                raw_defines[name] = value.strip()
        elif kw in ("include", "pragma", "undef") or not active:
            pass
        else:
            raise ValueError(f"unexpected directive in header: {s}")
    if stack:
        raise ValueError("unbalanced #if in header")
    return "\n".join(out) + "\n", raw_defines


def _params(text):
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    params = []
    for p in text.split(","):
        m = re.match(r"^(.*?)(\w+)$", p.strip())
        params.append((" ".join(m.group(1).replace("*", " * ").split()).replace(" *", "*"),
                       m.group(2)))
    return params


def parse(text):
    code, raw_defines = _preprocess(text)
    h = Header(code=code)
    for m in re.finditer(r"\benum\s+(\w+)\s*\{(.*?)\}\s*;", code, re.S):
        members, nxt = [], 0
        for item in m.group(2).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, val = item.partition("=")
            nxt = int(val.strip(), 0) if val.strip() else nxt
            members.append((name.strip(), nxt))
            nxt += 1
        h.enums[m.group(1)] = members
    enum_values = {k: v for ms in h.enums.values() for k, v in ms}
    for name, value in raw_defines.items():
        cast = re.fullmatch(r"\(\s*\w+\s*\)\s*(\w+)", value)
        if re.fullmatch(r"-?\d+", value):
            h.defines[name] = int(value)
        elif re.fullmatch(r"-?\d+\.\d*(?:[eE][-+]?\d+)?", value):
            h.defines[name] = float(value)
        elif cast and cast.group(1) in enum_values:
            h.defines[name] = enum_values[cast.group(1)]
        elif re.fullmatch(r'"[^"]*"', value):
            h.defines[name] = value[1:-1]
        else:
            raise ValueError(f"cannot evaluate #define {name} {value}")
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", code, re.S):
        fields = []
        for f in m.group(2).split(";"):
            f = " ".join(f.split())
            if not f:
                continue
            # "T name", "T name[N]" or a pointer "const T *name" (type "const T*", as parameters).
            fm = re.fullmatch(r"(.+?[\s*])(\w+)(?:\[(\d+)\])?", f)
            ctype = " ".join(fm.group(1).replace("*", " * ").split()).replace(" *", "*")
            fields.append((ctype, fm.group(2), int(fm.group(3)) if fm.group(3) else None))
        h.structs[m.group(1)] = fields
        h.struct_typedefs[m.group(3)] = m.group(1)
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", code):
        h.struct_typedefs[m.group(2)] = m.group(1)
    for m in re.finditer(r"typedef\s+((?:unsigned\s+)?\w+)\s+(\w+)\s*;", code):
        if m.group(1) not in ("struct", "enum"):
            h.scalar_typedefs[m.group(2)] = m.group(1)
    for m in re.finditer(r"typedef\s+(\w+)\s*\(\s*\*\s*(\w+)\s*\)\s*\((.*?)\)\s*;", code, re.S):
        h.callbacks[m.group(2)] = (m.group(1), _params(m.group(3)))
    for m in re.finditer(r"^((?:const\s+)?(?:struct\s+)?\w+\s*\**)\s*(sgs_\w+)\s*\((.*?)\)\s*;",
                         code, re.S | re.M):
        ret = " ".join(m.group(1).replace("*", " *").split()).replace(" *", "*")
        h.functions[m.group(2)] = (ret, _params(m.group(3)))
    return h


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())
