"""Stein thinning of stored draws (``sgs_stein_thin``): the m draws whose empirical measure has
a small kernelized Stein discrepancy to the target, chosen greedily (docs/algorithms.md §6)."""

import numpy as np

from ._lib import _check, _count, _invalid, _no_complex, ffi, lib
from ._runner import _ptr

# The median heuristic's subsample, as the `stein-thinning` package takes it.
_MEDIAN_ROWS = 1000


def _median_sq_distance(x):
    """The squared median of the pairwise distances of (at most 1000, evenly spaced) rows."""
    n = x.shape[0]
    sub = x[np.linspace(0, n - 1, _MEDIAN_ROWS, dtype=int)] if n > _MEDIAN_ROWS else x
    k = sub.shape[0]
    # Row by row (i < j, as scipy's pdist orders them): a k×k×d difference array would cost
    # more in memory traffic than the thinning itself.
    dist = np.empty(k * (k - 1) // 2)
    at = 0
    for i in range(k - 1):
        diff = sub[i + 1:] - sub[i]
        dist[at:at + k - 1 - i] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        at += k - 1 - i
    m2 = float(np.median(dist)) ** 2 if dist.size else 0.0
    if not m2 > 0.0:
        raise _invalid("stein_thin", "the median heuristic needs at least two distinct draws",
                       "SGS_ERR_INVALID_ARGUMENT")
    return m2


def stein_thin(draws, grads, m, *, standardize=True, preconditioner="id", c=1.0, beta=-0.5):
    """The row indices of the ``m`` draws (of ``draws``, shape ``(n, d)`` or ``(n,)``) chosen by
    Stein thinning, in the order chosen (a draw may be chosen more than once), as an int64 array.

    ``grads`` are the gradients of V = −log π at the draws (the gradient callbacks' convention;
    the ``stein-thinning`` package takes the score ∇log π = −grads), same shape. The kernel is the
    IMQ ``(c² + r²)^beta`` in coordinates divided by each column's mean absolute deviation when
    ``standardize`` (the package's default), with a diagonal preconditioner: ``"id"`` (ones),
    ``"med"`` (1/h with h the squared median pairwise distance of up to 1000 evenly spaced
    standardised draws), ``"sclmed"`` (``log(min(1000, n))/h``), a positive number s (1/s), or
    d positive values. O(n·m·d) in C, memory n doubles."""
    where = "stein_thin"
    _no_complex(draws, "draws", where)
    _no_complex(grads, "grads", where)
    x = np.array(draws, dtype=np.float64)
    g = np.array(grads, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise _invalid(where, f"draws must have shape (n, d) or (n,), got {x.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    if g.shape != x.shape:
        raise _invalid(where, f"grads must have the draws' shape {x.shape}, got {g.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    x = np.ascontiguousarray(x[:, None] if x.ndim == 1 else x)
    g = np.ascontiguousarray(g.reshape(x.shape))
    n, d = x.shape
    m = _count(m, "m", where)
    if n == 0 or d == 0:
        raise _invalid(where, f"no draws to thin (shape {x.shape})", "SGS_ERR_ZERO_PARTICLES")
    for name, a in (("draws", x), ("grads", g)):
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            i, j = bad[0]
            raise _invalid(where, f"{name}[{i}, {j}] is {a[i, j]}: every value must be finite",
                           "SGS_ERR_NON_FINITE")
    xp, gp = _ptr("double *", x), _ptr("double *", g)
    scale = ffi.NULL
    w = None
    if standardize:
        w = np.empty(d)
        _check(lib.sgs_stein_thin_scales(xp, n, d, _ptr("double *", w)), "sgs_stein_thin_scales")
        scale = _ptr("double *", w)
    lam = _preconditioner(preconditioner, x if w is None else x / w, where)
    precond = ffi.NULL if lam is None else _ptr("double *", lam)
    out = np.empty(max(m, 1), dtype=np.uintp)
    scratch = np.empty(n)
    _check(lib.sgs_stein_thin(xp, gp, n, d, scale, precond, float(c), float(beta),
                              _ptr("size_t *", out), m, _ptr("double *", scratch), n),
           "sgs_stein_thin")
    return out[:m].astype(np.int64)


def _preconditioner(p, xs, where):
    """The diagonal λ (d values) of ``p``, or None for ones; ``xs`` the standardised draws."""
    n, d = xs.shape
    if isinstance(p, str):
        if p == "id":
            return None
        if p in ("med", "sclmed"):
            lam = 1.0 / _median_sq_distance(xs)
            if p == "sclmed":
                lam *= np.log(min(_MEDIAN_ROWS, n))
            return np.full(d, lam)
        raise _invalid(where, f"preconditioner must be 'id', 'med', 'sclmed', a positive number "
                       f"or d positive values, got {p!r}", "SGS_ERR_INVALID_ARGUMENT")
    lam = np.array(p, dtype=np.float64)
    if lam.ndim == 0:
        lam = np.full(d, 1.0 / float(lam)) if float(lam) > 0 else np.full(d, np.nan)
    if lam.shape != (d,) or not np.all(np.isfinite(lam) & (lam > 0)):
        raise _invalid(where, f"preconditioner must be a positive number or {d} positive "
                       f"values, got {p!r}", "SGS_ERR_INVALID_ARGUMENT")
    return np.ascontiguousarray(lam)
