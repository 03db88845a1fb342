"""sgsample: exact stochastic-gradient sampling through the sgsample C library.

The samplers (AMAGOLD, SGHMC, SGLD, TunaMH, SVGD / RBM-SVGD) run in the C library shipped inside
this package (``libsgsample.so``, built by cargo at install time); this module is a thin cffi (ABI
mode) layer over the same C ABI that C users call. Every declaration comes from the shipped
``sgsample.h`` (read by ``sgsample._header``); every state is allocated from the library's own
``sgs_*_state_size()`` / ``sgs_*_state_align()`` answers.

Quick start::

    import numpy as np, sgsample
    energy = lambda th: 0.5 * th @ th
    grad = lambda th, seed: th + 0.1 * np.random.default_rng(seed).standard_normal(th.size)
    res = sgsample.amagold(energy, grad, np.zeros(2), draws=2000, chains=4, step_size=0.3)
    res.samples.shape          # (4, 2000, 2): (chains, draws, dim)
    res.info[0]                # RunInfo(sampler='amagold', iterations=2000, accepted=..., ...)

Callbacks are Python functions (``grad(theta, seed) -> ndarray``, ``energy(theta) -> float``,
``grads(X, seed) -> ndarray`` for SVGD, ``X`` of shape (N, d); TunaMH's ``differences(theta,
proposal, indices) -> ndarray`` and ``exact(theta, proposal) -> float``) or :class:`Raw` C function
pointers with a user-data pointer (cffi or ctypes functions, numba ``cfunc``, symbols of a compiled
library), which run without the interpreter. An exception raised in a Python callback makes it
return ``SGS_CB_ABORT``; the sampler stops with the chain at its last accepted state and the
exception is re-raised here with its traceback. Raise :class:`OutOfDomain` to return
``SGS_CB_REJECT`` (AMAGOLD/SGHMC/SGLD reject the proposal; SVGD stops with :class:`Error`
``SGS_ERR_GRADIENT_REJECTED``). One thread at a time per sampler: a second call while one runs
raises :class:`InvalidInput` ``SGS_ERR_BUSY``. Long runs are cut into chunks of about 50 ms so that Ctrl-C
(``KeyboardInterrupt``) stops them between iterations also when no Python callback runs.
"""


# The package's modules, by responsibility: _lib (the loaded library, errors, argument checks),
# _callbacks (trampolines, Raw), _runner (state memory, configs, locking, chunked runs), _chain
# (the chain object, SGHMC, SGLD), _amagold, _tunamh, _multi (several chains per call), _batch (K
# chains in lockstep), _noise (seed-derived draws), _svgd, _stats, _draws, _results. Every
# public name is re-exported here, where it has always been.
from . import _header  # noqa: F401  (sgsample._header: the header parser, used by the tests)
from ._amagold import (AMAGOLD, WarmupReport, _adapt_mass_alias, _MASS_NAMES,  # noqa: F401
                       _PHASE_NAMES, _REASON_NAMES, _reason_names, _report_of, _VERDICT_NAMES,
                       warmup_compare)
from ._callbacks import Raw  # noqa: F401
from ._chain import SGHMC, SGLD  # noqa: F401
from ._draws import (DRAWS_STATS_DTYPE, SUSPECT_REASONS, Summary, Verdict, diagnose,  # noqa: F401
                     ess_bulk, ess_tail, mcse_quantile, rhat_rank, summary)
from ._lib import (HEADER_PATH, LIBRARY_PATH, STATUS_NAMES, Error, InvalidInput,  # noqa: F401
                   OutOfDomain, __version__, ffi, header, lib, version)
from ._multi import amagold, sghmc, sgld, tunamh  # noqa: F401
from ._results import Partial, Result, RunInfo  # noqa: F401
from ._stats import Stats, ess, ess_flags, rhat  # noqa: F401
from ._noise import minibatch, normal, uniform  # noqa: F401
from ._svgd import SVGD, ksd, svgd  # noqa: F401
from ._thin import stein_thin  # noqa: F401
from ._tunamh import TunaMH  # noqa: F401
from ._weights import kde_draws, kde_weights, median_bandwidth, particle_weights  # noqa: F401

# Every #define of the header (SGS_CB_OK, SGS_KERNEL_GAUSSIAN, ...) and every status code.
globals().update(header.defines)
globals().update({name: value for name, value in header.enums["sgs_status"]})

__all__ = [
    "AMAGOLD", "SGHMC", "SGLD", "SVGD", "Raw", "Result", "RunInfo", "Error", "InvalidInput",
    "OutOfDomain", "amagold", "sghmc", "sgld", "svgd", "ksd", "minibatch", "version", "Stats", "ess",
    "ess_flags", "rhat", "summary", "Summary", "rhat_rank", "ess_bulk", "ess_tail", "mcse_quantile",
    "diagnose", "Verdict", "WarmupReport", "warmup_compare", "Partial", "normal", "uniform",
    "stein_thin", "TunaMH", "tunamh", "particle_weights", "median_bandwidth",
    "kde_draws", "kde_weights",
]

# The objects keep the names they have always had (``sgsample.AMAGOLD``, also in reprs, help and
# pickles), whichever module defines them.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) or callable(_obj):
        _obj.__module__ = __name__
del _name, _obj

from . import _help  # noqa: E402,F401  (signatures and option lists for help(); needs every class)
