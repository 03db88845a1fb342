"""``help()`` shows every option with its default: the samplers take their options as keywords
(``**options``, the fields of the C config), so their signatures and an "Options" section of
their docstrings are generated here from the header's config structs and the library's own
defaults (nothing copied by hand, so they cannot drift from the C library)."""

import inspect

import numpy as np

from ._lib import header

# Config fields that are not options: padding, and those given positionally or by the binding.
_HIDDEN = {"reserved", "ksd_reserved", "scale_reserved", "step_size", "batch_size"}


def fields(kind):
    """The option names of ``sgs_<kind>_config``, in the struct's order."""
    return [name for _, name, _ in header.structs[f"sgs_{kind}_config"] if name not in _HIDDEN]


def _shown(name, value, enums):
    names = {v: k for k, v in (enums or {}).get(name, {}).items()}
    if value in names:
        return repr(names[value])
    if isinstance(value, float):
        return repr(float(value))
    return repr(int(value))


def _value(name, cfg, enums):
    if name == "seed":
        return None  # a fresh seed per sampler unless given (not the C default 0)
    value = getattr(cfg, name)
    names = {v: k for k, v in (enums or {}).get(name, {}).items()}
    return names.get(value, value)


def options_doc(kind, columns, enums=None, required=()):
    """An "Options" section: one line per option, its default under each configuration
    (``columns``: ``[(label, config cdata), …]``), or "required" for those in ``required``
    (TunaMH's ``terms`` and ``bound``: the C default function's arguments, no default)."""
    labels = " | ".join(label for label, _ in columns)
    lines = [f"Options (keywords; defaults {labels}):"]
    for name in fields(kind):
        if name in required:
            shown = "required"
        elif name == "seed":
            shown = "None (a fresh 64-bit seed from the operating system, reported as .seed)"
        else:
            shown = " | ".join(_shown(name, getattr(cfg, name), enums) for _, cfg in columns)
        lines.append(f"    {name} = {shown}")
    return "\n".join(lines)


def document(obj, kind, columns, enums=None, before=(), after=(), skip=(), required=()):
    """Sets ``obj.__signature__`` (positional ``before`` parameters, then every option as a
    keyword with the first column's default, then ``after``) and appends the Options section
    to its docstring."""
    P = inspect.Parameter
    cfg = columns[0][1]
    params = list(before)
    taken = {p.name for p in params} | {p.name for p in after}
    params += [P(name, P.KEYWORD_ONLY, default=_value(name, cfg, enums))
               for name in fields(kind) if name not in taken and name not in skip]
    params += list(after)
    obj.__signature__ = inspect.Signature(params)
    doc = inspect.cleandoc(obj.__doc__ or "")
    obj.__doc__ = doc + "\n\n" + options_doc(kind, columns, enums, required)


def P(name, default=inspect.Parameter.empty, kind=inspect.Parameter.KEYWORD_ONLY):
    """A parameter (shorthand)."""
    return inspect.Parameter(name, kind, default=default)


def positional(*names):
    return [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]


DTYPE = P("dtype", np.float64)
