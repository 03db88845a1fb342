"""Diagnostics of stored draws (``sgs_draws_…``)."""

from dataclasses import dataclass, field, make_dataclass

import numpy as np

from ._lib import _STATUS, _c_dtype, InvalidInput, _check, _count, _invalid, _no_complex, ffi, header, lib
from ._runner import _dtype, _ptr


# ---------------------------------------------------------------------------------------------
# Diagnostics of stored draws (sgs_draws_…): rank-normalised split-R-hat, bulk/tail ESS, MCSE


DRAWS_STATS_DTYPE = _c_dtype("sgs_draws_stats")

Summary = make_dataclass("Summary", [(name, object) for name in DRAWS_STATS_DTYPE.names])
Summary.__module__ = "sgsample"
Summary.__doc__ = """What :func:`summary` returns: one attribute per field of the C struct
``sgs_draws_stats`` (``mean``, ``sd``, ``mcse_mean``, ``mcse_sd``, ``q5``, ``q50``, ``q95``,
``mcse_q5``, ``mcse_q50``, ``mcse_q95``, ``ess_bulk``, ``ess_tail``, ``ess_mean``, ``rhat``,
``rhat_bulk``, ``rhat_folded``, ``rhat_split``, ``flags``), each an array (dim,) — or a scalar
for draws of shape (chains, draws). ``dataclasses.asdict`` gives a dict."""


def _summary_of(out, flat):
    values = {name: (out[name][0].item() if flat else out[name].copy())
              for name in DRAWS_STATS_DTYPE.names}
    return Summary(**values)

# SGS_DRAWS_SUSPECT_* bit -> reason name, in bit order.
SUSPECT_REASONS = {header.defines[f"SGS_DRAWS_SUSPECT_{k.upper()}"]: k for k in
                   ("rhat", "ess_bulk", "ess_tail", "divergences", "not_computable")}


def _draws(draws, where):
    """(array (chains, n, dim) C-contiguous float64/float32, suffix, was 2-D)."""
    a = np.asarray(draws)
    _no_complex(a, "draws", where)
    if a.ndim not in (2, 3):
        raise _invalid(where, f"draws must have shape (chains, draws, dim) or (chains, draws), "
                       f"got {a.shape}", "SGS_ERR_LENGTH_MISMATCH")
    flat = a.ndim == 2
    dt, suffix = _dtype(a.dtype if a.dtype == np.float32 else np.float64)
    a = np.ascontiguousarray(a[:, :, None] if flat else a, dtype=dt)
    return a, suffix, flat


def _draws_call(fn, draws, out, *extra):
    """Calls sgs_draws_<fn>[_f32] on ``draws`` (already through _draws) writing ``out``."""
    a, suffix, _ = draws
    chains, n, dim = a.shape
    name = f"sgs_draws_{fn}{suffix}"
    scratch = np.empty(max(1, lib.sgs_draws_scratch_len(chains, n)))
    # Zero-size arrays still get a valid, aligned pointer: the library reports the sizes.
    src = a if a.size else np.zeros(1, a.dtype)
    dst = out if out.size else np.zeros(1, out.dtype)
    ctype = "double *" if suffix == "" else "float *"
    optr = ffi.cast("sgs_draws_stats *" if out.dtype == DRAWS_STATS_DTYPE else "double *",
                    dst.ctypes.data)
    st = getattr(lib, name)(_ptr(ctype, src), chains, n, dim, *extra,
                            _ptr("double *", scratch), scratch.size, optr, out.size)
    if st == _STATUS["SGS_ERR_NON_FINITE_DRAWS"]:
        c, t, j = np.argwhere(~np.isfinite(a))[0]
        raise InvalidInput(st, name, f"draws[{c}, {t}, {j}] is {a[c, t, j]}: every draw must be "
                           "finite; nothing was computed")
    if st == _STATUS["SGS_ERR_TOO_FEW_DRAWS"]:
        raise InvalidInput(st, name, f"{n} draws per chain: at least "
                           f"{header.defines['SGS_DRAWS_MIN_DRAWS']} are needed (2 per split "
                           "chain)")
    _check(st, name)
    return out


def summary(draws):
    """Every diagnostic of stored draws, per coordinate, as ArviZ 0.23 computes it.

    ``draws`` has shape ``(chains, draws, dim)`` (the samplers' ``Result.samples``) or
    ``(chains, draws)`` (one scalar), float64 or float32 (widened exactly; the arithmetic is
    float64). Returns a :class:`Summary` whose attributes are the fields of the C struct
    ``sgs_draws_stats``, each an array (dim,) (a float for 2-D input): ``mean``, ``sd``, ``mcse_mean``, ``mcse_sd``,
    ``q5``, ``q50``, ``q95``, ``mcse_q5``, ``mcse_q50``, ``mcse_q95``, ``ess_bulk``, ``ess_tail``,
    ``ess_mean``, ``rhat`` (rank-normalised split-R-hat, ``max(rhat_bulk, rhat_folded)``),
    ``rhat_bulk``, ``rhat_folded``, ``rhat_split`` (classic) and ``flags`` (this coordinate's
    ``SGS_DRAWS_SUSPECT_*`` bits). Every R-hat is NaN for one chain. Bad input raises :class:`InvalidInput`: a NaN or infinite draw
    (``SGS_ERR_NON_FINITE_DRAWS``), fewer than 4 draws per chain (``SGS_ERR_TOO_FEW_DRAWS``), no
    chain or no coordinate (``SGS_ERR_ZERO_DIMENSION``), another shape
    (``SGS_ERR_LENGTH_MISMATCH``)."""
    d = _draws(draws, "sgs_draws_summary")
    out = np.zeros(d[0].shape[2], DRAWS_STATS_DTYPE)
    return _summary_of(_draws_call("summary", d, out), d[2])


def _one(fn, draws, *extra):
    d = _draws(draws, f"sgs_draws_{fn}")
    out = _draws_call(fn, d, np.zeros(d[0].shape[2]), *extra)
    return float(out[0]) if d[2] else out


def rhat_rank(draws):
    """Rank-normalised split-R-hat per coordinate (ArviZ ``rhat(method="rank")``; NaN for one
    chain). ``draws`` as for :func:`summary`; a float for 2-D input, else an array (dim,)."""
    return _one("rhat_rank", draws)


def ess_bulk(draws):
    """Bulk-ESS per coordinate (ArviZ ``ess(method="bulk")``). As :func:`rhat_rank`."""
    return _one("ess_bulk", draws)


def ess_tail(draws):
    """Tail-ESS (5 % and 95 %) per coordinate (ArviZ ``ess(method="tail")``). As
    :func:`rhat_rank`."""
    return _one("ess_tail", draws)


def mcse_quantile(draws, prob):
    """Monte Carlo standard error of the ``prob`` quantile per coordinate (ArviZ
    ``mcse(method="quantile", prob=prob)``); ``prob`` in (0, 1), else :class:`InvalidInput`
    ``SGS_ERR_INVALID_ARGUMENT``. As :func:`rhat_rank`."""
    try:
        p = float(prob)
    except (TypeError, ValueError):
        raise _invalid("sgs_draws_mcse_quantile", f"prob must be a number, got {prob!r}") from None
    return _one("mcse_quantile", draws, p)


@dataclass
class Verdict:
    """The one-call verdict of :func:`diagnose` (``sgs_draws_verdict``): ``ok`` when no flag is
    raised; ``reasons`` names the raised ``SGS_DRAWS_SUSPECT_*`` flags (``"rhat"``,
    ``"ess_bulk"``, ``"ess_tail"``, ``"divergences"``, ``"not_computable"``)."""

    ok: bool
    flags: int
    reasons: tuple
    worst_rhat: float
    worst_rhat_coord: int
    min_ess_bulk: float
    min_ess_bulk_coord: int
    min_ess_tail: float
    min_ess_tail_coord: int
    ess_threshold: float
    not_computable: int
    first_not_computable: int
    divergences: int
    summary: object = field(repr=False, default=None)


def diagnose(draws, divergences=0):
    """Are these draws fit to report? OK only if every coordinate's rank-normalised R-hat is
    below ``SGS_DRAWS_RHAT_MAX`` (1.01), every bulk- and tail-ESS is at least
    ``SGS_DRAWS_ESS_PER_CHAIN`` (100) times the chains, and ``divergences`` (the post-warm-up
    divergent transitions you counted, e.g. ``sum(i.divergences for i in res.info)``) is 0.
    Returns a :class:`Verdict` (its ``summary`` is :func:`summary`'s result). One chain is
    never OK: R-hat needs two (``not_computable``). ``draws`` as for :func:`summary`."""
    divergences = _count(divergences, "divergences", "sgs_draws_diagnose")
    d = _draws(draws, "sgs_draws_summary")
    out = np.zeros(d[0].shape[2], DRAWS_STATS_DTYPE)
    _draws_call("summary", d, out)
    v = ffi.new("sgs_draws_verdict *")
    _check(lib.sgs_draws_diagnose(ffi.cast("sgs_draws_stats *", out.ctypes.data), out.size,
                                  d[0].shape[0], divergences, v), "sgs_draws_diagnose")
    reasons = tuple(name for bit, name in SUSPECT_REASONS.items() if v.flags & bit)
    return Verdict(ok=bool(v.ok), flags=int(v.flags), reasons=reasons,
                   worst_rhat=v.worst_rhat, worst_rhat_coord=int(v.worst_rhat_coord),
                   min_ess_bulk=v.min_ess_bulk, min_ess_bulk_coord=int(v.min_ess_bulk_coord),
                   min_ess_tail=v.min_ess_tail, min_ess_tail_coord=int(v.min_ess_tail_coord),
                   ess_threshold=v.ess_threshold, not_computable=int(v.not_computable),
                   first_not_computable=int(v.first_not_computable),
                   divergences=int(v.divergences), summary=_summary_of(out, d[2]))
