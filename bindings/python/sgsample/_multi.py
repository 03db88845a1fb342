"""Several chains per call: :func:`amagold`, :func:`sghmc`, :func:`sgld`, :func:`tunamh`."""

import numpy as np

from ._amagold import AMAGOLD, _adapt_mass_alias
from ._batch import Batch
from ._chain import SGHMC, SGLD
from ._lib import _count, _invalid, _real_array
from ._results import Partial, Result
from ._runner import _fresh_seed
from ._tunamh import TunaMH


def _chains(cls, args, theta0, draws, chains, seed, stream, dtype, kw, keep_warmup=False,
            sample_stats=True, progress=None, vectorized=False):
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
    inplace = type(vectorized) is str and vectorized == "inplace"
    if isinstance(vectorized, (bool, np.bool_)):
        vectorized = bool(vectorized)
    elif not inplace:
        raise _invalid(where, f"vectorized must be False, True or 'inplace', got {vectorized!r}",
                       "SGS_ERR_INVALID_OPTION")
    if vectorized:
        return _vectorized(cls, args, starts, draws, seed, stream, dtype, kw, keep_warmup,
                           sample_stats, progress, inplace)
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
    return _result(cls, samplers, np.stack(samples), np.stack(infos) if sample_stats else None,
                   np.stack(wsamples) if wsamples else None,
                   np.stack(winfos) if winfos else None, seed, stream, keep_warmup, dtype)


def _result(cls, samplers, samples, infos, wsamples, winfos, seed, stream, keep_warmup, dtype):
    chains, _, dim = samples.shape
    result = Result(samples, [s.info for s in samplers], seed=seed, stream=stream)
    if infos is not None:
        result.sample_stats = cls._sample_stats(infos)
    if keep_warmup:
        result.warmup_samples = wsamples if wsamples is not None else \
            np.empty((chains, 0, dim), dtype)
        result.warmup_sample_stats = cls._sample_stats(
            winfos if winfos is not None else np.zeros((chains, 0), cls.INFO_DTYPE))
    cls._annotate(samplers, result)
    return result


def _vectorized(cls, args, starts, draws, seed, stream, dtype, kw, keep_warmup, sample_stats,
                progress, inplace):
    """The K chains in lockstep through ``sgs_<chain>_run_batch`` (see :mod:`._batch`)."""
    energy, grad = args if cls._has_energy else (None, args[0])
    b = Batch(cls, energy, grad, np.ascontiguousarray(starts), seed, stream, dtype, kw, inplace)
    k = b.k
    warm = b.chains[0]._warmup_iterations()
    w = wi = None
    in_warmup = False
    try:
        if warm:
            in_warmup = True
            wi = np.zeros((k, warm), cls.INFO_DTYPE)
            w = b.run(warm, wi, progress)
            in_warmup = False
        infos = np.zeros((k, draws), cls.INFO_DTYPE) if sample_stats else None
        rows = b.run(draws, infos, progress)
    except BaseException as e:
        made = getattr(e, "partial", None) or [np.empty((0, b.dim), dtype)] * k
        empty = [np.empty((0, b.dim), dtype)] * k
        partial = Partial(samples=empty if in_warmup else list(made),
                          info=[c.info for c in b.chains],
                          warmup_samples=list(made) if in_warmup else
                          ([w[c] for c in range(k)] if w is not None else []),
                          complete=[False] * k, seed=seed)
        try:
            e.partial = partial
        except AttributeError:
            pass
        raise
    return _result(cls, b.chains, rows, infos, w, wi, seed, stream, keep_warmup, dtype)


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

_VECTORIZED_DOC = """
    ``vectorized=True``: the callbacks take all the chains that need a value at once and the
    ``chains`` chains run in lockstep through the C library's ``run_batch`` (one interpreter
    call per round for all chains, not one per chain): ``grad(X, seeds)`` with ``X`` of shape
    ``(k, dim)`` (``k ≤ chains`` rows, one per chain) and ``seeds`` a ``(k,)`` uint64 array
    (row r's minibatch seed) returns ``(k, dim)``; ``energy(X)`` returns ``(k,)``. A row's value
    must depend only on that row (and its seed): then the draws are bit for bit those of
    separate chains (the same seeds and streams). A row outside the domain: return a
    ``numpy.ma`` masked array with that row masked (raising :class:`OutOfDomain` rejects every
    row of the call). ``X`` and ``seeds`` are copies the callback may keep.

    ``vectorized='inplace'``: the same run with callbacks that write instead of returning:
    ``grad(X, seeds, out)`` and ``energy(X, out)``, where ``X``, ``seeds`` and ``out`` are views
    of the C library's scratch (``X`` and ``seeds`` read-only; ``out`` holds NaN on entry, so a
    row left unwritten is a divergence). Nothing is copied or checked per call; the draws are
    those of ``vectorized=True`` bit for bit. The views stay valid memory while anyone holds
    them, but their contents change at the next call: copy ``X`` to keep it. Return ``None`` or
    a boolean array of shape ``(k,)`` marking the rows outside the domain."""


def amagold(energy, grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
            keep_warmup=False, sample_stats=True, progress=None, vectorized=False, **kw):
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
                   keep_warmup, sample_stats, progress, vectorized)


def sghmc(grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
          sample_stats=True, progress=None, vectorized=False, **kw):
    """``chains`` SGHMC chains (streams ``stream``, ``stream+1``, …) → :class:`Result`; options
    as for :class:`SGHMC` (no warm-up: every iteration is a draw).
    """
    return _chains(SGHMC, (grad,), theta0, draws, chains, seed, stream, dtype, kw, False,
                   sample_stats, progress, vectorized)


def sgld(grad, theta0, draws, *, chains=1, seed=None, stream=0, dtype=np.float64,
         sample_stats=True, progress=None, vectorized=False, **kw):
    """``chains`` SGLD chains (streams ``stream``, ``stream+1``, …) → :class:`Result`; options
    as for :class:`SGLD` (no warm-up: every iteration is a draw).
    """
    return _chains(SGLD, (grad,), theta0, draws, chains, seed, stream, dtype, kw, False,
                   sample_stats, progress, vectorized)


def tunamh(differences, theta0, draws, *, terms, bound, step_size, chains=1, seed=None, stream=0,
           dtype=np.float64, sample_stats=True, progress=None, **kw):
    """``chains`` TunaMH chains (streams ``stream``, ``stream+1``, …) → :class:`Result`; the
    callbacks and options as for :class:`TunaMH` (no warm-up: every iteration is a draw).
    ``sample_stats`` (per draw): ``diverging``, ``accepted``, ``acceptance_rate`` =
    min(1, e^log_ratio), ``log_ratio``, ``evaluations`` (the term differences the iteration
    asked for), ``kept`` (those in the ratio), ``full_pass``; ``info[c].evaluations``: chain
    c's total. No ``vectorized`` mode (the C library has no batched TunaMH).
    """
    kw.update(terms=terms, bound=bound, step_size=step_size)
    return _chains(TunaMH, (differences,), theta0, draws, chains, seed, stream, dtype, kw, False,
                   sample_stats, progress)


for _f in (amagold, sghmc, sgld, tunamh):
    _f.__doc__ = _f.__doc__.rstrip() + "\n" + _OPTIONS_DOC
    if _f is not tunamh:
        _f.__doc__ += "\n" + _VECTORIZED_DOC
del _f
