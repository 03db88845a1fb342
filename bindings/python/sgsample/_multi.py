"""Several chains per call: :func:`amagold`, :func:`sghmc`, :func:`sgld`."""

import numpy as np

from ._amagold import AMAGOLD, _adapt_mass_alias
from ._chain import SGHMC, SGLD
from ._lib import _count, _invalid, _no_complex
from ._results import Result


def _chains(cls, args, theta0, draws, chains, seed, stream, dtype, kw):
    where = cls.__name__.lower()
    chains = _count(chains, "chains", where, minimum=1)
    draws = _count(draws, "draws", where)
    _no_complex(theta0, "theta0", where)
    theta0 = np.asarray(theta0, dtype=np.dtype(dtype))
    starts = np.broadcast_to(theta0, (chains,) + theta0.shape[-1:]) if theta0.ndim == 1 else theta0
    if starts.ndim != 2 or starts.shape[0] != chains:
        raise _invalid(where, f"theta0 must have shape (dim,) or (chains, dim), got "
                       f"{theta0.shape}", "SGS_ERR_LENGTH_MISMATCH")
    samples, info, samplers = [], [], []
    for c in range(chains):
        s = cls(*args, starts[c], seed=seed, stream=stream + c, dtype=dtype, **kw)
        samples.append(s.run(draws))
        info.append(s.info)
        samplers.append(s)
    result = Result(np.stack(samples), info)
    cls._annotate(samplers, result)
    return result


def amagold(energy, grad, theta0, draws, *, chains=1, seed=0, stream=0, dtype=np.float64, **kw):
    """``chains`` AMAGOLD chains (streams ``stream``, ``stream+1``, …) → :class:`Result`.

    Options as for :class:`AMAGOLD` (without ``step_size``: the adaptive configuration, whose
    1000 warm-up iterations are the first rows of ``draws``). With a warm-up, ``info[c]`` holds
    chain c's :class:`WarmupReport` (``warmup_report``) and ``result.warmup`` the chains' reports
    compared; with a mass matrix, ``info[c].inverse_mass`` (and ``inverse_mass_dense``)."""
    _adapt_mass_alias(kw, "amagold", stacklevel=2)
    return _chains(AMAGOLD, (energy, grad), theta0, draws, chains, seed, stream, dtype, kw)


def sghmc(grad, theta0, draws, *, chains=1, seed=0, stream=0, dtype=np.float64, **kw):
    """``chains`` SGHMC chains → :class:`Result`."""
    return _chains(SGHMC, (grad,), theta0, draws, chains, seed, stream, dtype, kw)


def sgld(grad, theta0, draws, *, chains=1, seed=0, stream=0, dtype=np.float64, **kw):
    """``chains`` SGLD chains → :class:`Result`."""
    return _chains(SGLD, (grad,), theta0, draws, chains, seed, stream, dtype, kw)
