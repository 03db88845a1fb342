"""Several chains per call: :func:`amagold`, :func:`sghmc`, :func:`sgld`."""

import numpy as np

from ._amagold import AMAGOLD, _adapt_mass_alias
from ._chain import SGHMC, SGLD
from ._lib import _count, _invalid, _real_array
from ._results import Partial, Result
from ._runner import _fresh_seed


def _chains(cls, args, theta0, draws, chains, seed, stream, dtype, kw, keep_warmup=False,
            sample_stats=True, progress=None):
    where = cls.__name__.lower()
    chains = _count(chains, "chains", where, minimum=1)
    draws = _count(draws, "draws", where)
    stream = _count(stream, "stream", where)
    seed = _fresh_seed() if seed is None else _count(seed, "seed", where)
    theta0 = _real_array(theta0, "theta0", where).astype(np.dtype(dtype))
    starts = np.broadcast_to(theta0, (chains,) + theta0.shape[-1:]) if theta0.ndim == 1 else theta0
    if starts.ndim != 2 or starts.shape[0] != chains:
        raise _invalid(where, f"theta0 must have shape (dim,) or (chains, dim), got "
                       f"{theta0.shape}", "SGS_ERR_LENGTH_MISMATCH")
    samples, infos, wsamples, winfos, samplers = [], [], [], [], []
    for c in range(chains):
        s, in_warmup = None, False
        try:
            s = cls(*args, starts[c], seed=seed, stream=stream + c, dtype=dtype, **kw)
            samplers.append(s)
            warm = s._warmup_iterations()
            if warm:
                in_warmup = True
                w, wi = s.run(warm, info=True, progress=progress)
                in_warmup = False
                wsamples.append(w)
                winfos.append(wi)
            rows, ri = s.run(draws, info=sample_stats, progress=progress) if sample_stats \
                else (s.run(draws, progress=progress), None)
        except BaseException as e:
            _attach_partial(e, samples, samplers, wsamples, s, seed, in_warmup)
            raise
        samples.append(rows)
        infos.append(ri)
    result = Result(np.stack(samples), [s.info for s in samplers], seed=seed, stream=stream)
    if sample_stats:
        result.sample_stats = cls._sample_stats(np.stack(infos))
    if keep_warmup:
        warm = wsamples[0].shape[0] if wsamples else 0
        result.warmup_samples = np.stack(wsamples) if wsamples else \
            np.empty((chains, 0, starts.shape[1]), dtype)
        result.warmup_sample_stats = cls._sample_stats(
            np.stack(winfos) if winfos else np.zeros((chains, warm), cls.INFO_DTYPE))
    cls._annotate(samplers, result)
    return result


def _attach_partial(exc, samples, samplers, wsamples, current, seed, in_warmup):
    """Gives a multi-chain call's exception what the call made (:class:`Partial`)."""
    rows = list(samples)
    warm = list(wsamples)
    if current is not None and samplers and samplers[-1] is current:
        made = current.partial if current.partial is not None else \
            np.empty((0, current.dim), current.dtype)
        if in_warmup:  # stopped in the warm-up: its rows so far are warm-up rows
            warm.append(made)
            rows.append(np.empty((0, current.dim), current.dtype))
        else:
            rows.append(made)
    partial = Partial(samples=rows, info=[s.info for s in samplers], warmup_samples=warm,
                      complete=[True] * len(samples) + [False] * (len(rows) - len(samples)),
                      seed=seed)
    try:
        exc.partial = partial
    except AttributeError:
        pass


_OPTIONS_DOC = """
    ``draws``: post-warm-up draws per chain (like numpyro's ``num_samples`` after
    ``num_warmup``, PyMC's ``draws`` after ``tune``). ``seed``: ``None`` (the default) draws a
    fresh one from the operating system; it is reported as ``result.seed`` (and in the ArviZ
    attributes) so that the call can be repeated. ``sample_stats``: record each iteration's C
    info record (one library call per iteration; ``False`` for the fastest runs with
    :class:`Raw` callbacks). ``progress``: a tqdm bar per chain (``None``: only in an
    interactive session with tqdm installed).

    Stopped early (a callback's exception, Ctrl-C), the exception carries ``.partial``
    (:class:`Partial`): the finished chains' draws and the draws the unfinished one had made,
    with exact per-chain totals."""


def amagold(energy, grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
            keep_warmup=False, sample_stats=True, progress=None, **kw):
    """``chains`` AMAGOLD chains (streams ``stream``, ``stream+1``, …) → :class:`Result`.

    Options as for :class:`AMAGOLD` (without ``step_size``: the adaptive configuration, with a
    warm-up of 1000 iterations). Each chain runs its ``warmup`` iterations first, then
    ``draws`` more: ``result.samples`` holds only the latter. The warm-up's draws are dropped
    unless ``keep_warmup=True``, which puts them (and their stats) in
    ``result.warmup_samples`` / ``warmup_sample_stats`` and, in ``to_arviz()``, in the
    ``warmup_posterior`` / ``warmup_sample_stats`` groups. With a warm-up, ``info[c]`` holds
    chain c's :class:`WarmupReport` (``warmup_report``) and ``result.warmup`` the chains'
    reports compared; with a mass matrix, ``info[c].inverse_mass`` (and ``inverse_mass_dense``).
    """
    _adapt_mass_alias(kw, "amagold", stacklevel=2)
    return _chains(AMAGOLD, (energy, grad), theta0, draws, chains, seed, stream, dtype, kw,
                   keep_warmup, sample_stats, progress)


def sghmc(grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
          sample_stats=True, progress=None, **kw):
    """``chains`` SGHMC chains (streams ``stream``, ``stream+1``, …) → :class:`Result`; options
    as for :class:`SGHMC` (no warm-up: every iteration is a draw).
    """
    return _chains(SGHMC, (grad,), theta0, draws, chains, seed, stream, dtype, kw, False,
                   sample_stats, progress)


def sgld(grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
         sample_stats=True, progress=None, **kw):
    """``chains`` SGLD chains (streams ``stream``, ``stream+1``, …) → :class:`Result`; options
    as for :class:`SGLD` (no warm-up: every iteration is a draw).
    """
    return _chains(SGLD, (grad,), theta0, draws, chains, seed, stream, dtype, kw, False,
                   sample_stats, progress)


for _f in (amagold, sghmc, sgld):
    _f.__doc__ = _f.__doc__.rstrip() + "\n" + _OPTIONS_DOC
del _f
