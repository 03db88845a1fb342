"""Seed-derived randomness through the library's own generator: a callback's minibatch seed
expanded into reproducible draws at native speed (``sgs_minibatch``, ``sgs_normal``,
``sgs_uniform``)."""

import numpy as np

from ._lib import _check, _count, _invalid, lib
from ._runner import _ptr


def minibatch(seed, n, size):
    """The library's minibatch for ``seed``: ``size`` distinct indices in ``0..n`` (uint64)."""
    seed = _count(seed, "seed", "sgs_minibatch")
    n = _count(n, "n", "sgs_minibatch")
    out = np.empty(_count(size, "size", "sgs_minibatch"), np.uint64)
    _check(lib.sgs_minibatch(seed, n, _ptr("uint64_t *", out), out.size), "sgs_minibatch")
    return out


def _draws(name, seed, n, dtype):
    where = f"sgs_{name}"
    seed = _count(seed, "seed", where)
    n = _count(n, "n", where)
    dt = np.dtype(dtype)
    if dt == np.float64:
        fn, ctype = getattr(lib, where), "double *"
    elif dt == np.float32 and hasattr(lib, where + "_f32"):
        fn, ctype, where = getattr(lib, where + "_f32"), "float *", where + "_f32"
    else:
        also = " or float32" if hasattr(lib, where + "_f32") else ""
        raise _invalid(where, f"dtype must be float64{also}, not {dt}")
    out = np.empty(n, dt)
    # A zero-length array still gets a valid pointer (the library allows n = 0).
    buf = out if n else np.empty(1, dt)
    _check(fn(seed, _ptr(ctype, buf), n), where)
    return out


def normal(seed, n, dtype=np.float64):
    """``n`` standard normal draws from ``seed`` (``sgs_normal``): the library's generator and
    normal method, in the order documented in docs/algorithms.md, so that a callback can turn its
    minibatch seed into reproducible noise, the same in every binding and in C."""
    return _draws("normal", seed, n, dtype)


def uniform(seed, n, dtype=np.float64):
    """``n`` uniform draws in [0, 1) from ``seed`` (``sgs_uniform``; see :func:`normal`)."""
    return _draws("uniform", seed, n, dtype)
