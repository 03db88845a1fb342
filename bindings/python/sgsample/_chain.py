"""The chain samplers' common object (AMAGOLD, SGHMC, SGLD, TunaMH) and SGHMC and SGLD
themselves."""

import math
import os
import threading
import time

import numpy as np

from . import _export, _progress
from ._callbacks import _Callbacks
from ._lib import _c_dtype, _check, _count, _invalid, _no_complex, ffi, header, lib
from ._results import RunInfo
from ._runner import _config, _dtype, _new_state, _ptr, _Runner


class _Chain(_Runner):
    _kind = ""
    _has_energy = False
    _info_ctype = "sgs_chain_info"
    #: The numpy dtype of one iteration's C info record (``run(..., info=True)``).
    INFO_DTYPE = _c_dtype("sgs_chain_info")

    def __init__(self, theta0, grad, energy=None, *, dtype=np.float64, step_size, _state=None,
                 _config=None, **options):
        self._dtype, sfx = _dtype(dtype)
        self._sfx = sfx
        self._lock = threading.Lock()
        # _state: (owner, pointer) of memory given by a batch (K states side by side).
        self._raw, self._state = _state or _new_state(self._kind, sfx)
        # _config: a finished C config (a restore from export()), used as it is.
        self._cfg = _config if _config is not None else self._make_config(step_size, options)
        _no_complex(theta0, "theta0", f"sgs_{self._kind}_init{sfx}")
        self._theta0 = np.ascontiguousarray(theta0, dtype=self._dtype)
        if self._theta0.ndim != 1:
            raise _invalid(f"sgs_{self._kind}_init{sfx}",
                           f"theta0 must be a vector, got shape {self._theta0.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        self._dim = d = self._theta0.size
        ws_len = self._workspace_len(d)
        self._ws = np.zeros(max(1, ws_len), dtype=self._dtype)
        self._cb = _Callbacks(self._dtype, sfx, **self._slots(grad, energy))
        ct = "float *" if sfx else "double *"
        args = [self._state, self._cfg, _ptr(ct, self._theta0), d, _ptr(ct, self._ws), ws_len]
        args += list(self._cb.fns.values()) + [self._cb.user_data]
        st = self._fn("init")(*args)
        self._cb.reraise()
        _check(st, f"sgs_{self._kind}_init{sfx}")
        self.info = RunInfo(sampler=self._kind, seed=self.seed)

    def _slots(self, grad, energy):
        """The callback slots (``sgs_<slot>_fn``), in the order ``sgs_<kind>_init`` takes them."""
        slots = {"energy": energy} if self._has_energy else {}
        slots["gradient"] = grad
        return slots

    def export(self):
        """The chain as bytes, without pickle, for :meth:`restore` (in this process or another,
        on any platform of the same sgsample checkpoint format): the C library's checkpoint of
        the state (``sgs_<kind>_export``: configuration, generator, counters, warm-up, the step
        size and mass set, the workspace) behind a small header (the C config, start, dtype and
        ``.info`` totals). :class:`InvalidInput` ``SGS_ERR_BUSY`` while the chain runs."""
        return _export.export(self)

    @classmethod
    def restore(cls, data, *callbacks, progress=None):
        """The chain :meth:`export` wrote, created with ``callbacks`` (AMAGOLD: ``energy,
        grad``; SGHMC, SGLD: ``grad``: the same functions, or any computing the same values)
        and put into the exported state by the C import (``sgs_<kind>_import``) in O(1): no
        iteration is run again (AMAGOLD's init evaluates the energy at the start once), and the
        chain continues bit for bit as the exported one would, with its ``.info`` totals.
        ``progress`` is accepted for compatibility and unused (there is nothing to wait for).
        Data that are not an export, truncated or corrupted: :class:`InvalidInput`
        ``SGS_ERR_INVALID_CHECKPOINT``; of another sampler, dtype or format:
        ``SGS_ERR_CHECKPOINT_MISMATCH`` (the right class named when it is another sampler)."""
        del progress
        return _export.restore(cls, data, callbacks)

    @classmethod
    def _from_config(cls, callbacks, theta0, dtype, cfg):
        if len(callbacks) != 1:
            raise TypeError(f"{cls.__name__}.restore needs one callback (grad), got "
                            f"{len(callbacks)}")
        return cls(callbacks[0], theta0, dtype=dtype, step_size=cfg.step_size, _config=cfg)

    def _copy_state_into(self, new):
        where = f"sgs_{self._kind}_copy{self._sfx}"
        new._raw, new._state = _new_state(self._kind, self._sfx)
        new._ws = np.zeros_like(self._ws)
        ws_len = self._workspace_len(self.dim)
        _check(self._fn("copy")(new._state, _ptr(self._ct, new._ws), ws_len, self._state), where)

    def _fn(self, name):
        # A method, not a lambda stored on the instance: a stored closure over ``self`` would
        # make every chain a reference cycle, freed (state, workspace) only by the cyclic GC.
        return getattr(lib, f"sgs_{self._kind}_{name}{self._sfx}")

    def _enums(self):
        # SGHMC and SGLD: a fixed diagonal preconditioner or none (AMAGOLD adds its own).
        return {"mass": {"unit": header.defines["SGS_MASS_UNIT"],
                         "diagonal": header.defines["SGS_MASS_DIAGONAL"]}}

    def _make_config(self, step_size, options):
        return _config(self._kind, (step_size,), options, self._enums())

    @property
    def _summary_dtype(self):
        """numpy's view of ``sgs_<kind>_run_summary`` (the counts and the last info record)."""
        t = f"sgs_{self._kind}_run_summary"
        return np.dtype({"names": ["iterations", "accepted", "divergences", "last"],
                         "formats": ["<u8", "<u8", "<u8", self.INFO_DTYPE],
                         "offsets": [ffi.offsetof(t, n) for n in
                                     ("iterations", "accepted", "divergences", "last")],
                         "itemsize": ffi.sizeof(t)})

    def _warmup_iterations(self):
        """Iterations of the warm-up still to run (none: SGHMC and SGLD have no warm-up)."""
        return 0

    @staticmethod
    def _sample_stats(infos):
        """Per-draw stats (ArviZ names) from info records of shape (chains, draws)."""
        return {"diverging": infos["outcome"] == header.defines["SGS_OUTCOME_DIVERGENT"]}

    @staticmethod
    def _annotate(samplers, result):
        """What :func:`_chains` adds to a finished run's result (AMAGOLD: the warm-up)."""

    def _workspace_len(self, d):
        return self._fn("workspace_len")(d)

    @property
    def theta0(self):
        """A copy of the starting point (read-only)."""
        return self._theta0.copy()

    @property
    def position(self):
        """A copy of the current position, shape ``(dim,)``."""
        out = np.empty(self.dim, self._dtype)
        self._acquire("position")
        try:
            st = self._fn("position")(self._state, _ptr(self._ct, out), self.dim)
        finally:
            self._lock.release()
        _check(st, "position")
        return out

    @property
    def iterations(self):
        """Outer iterations done since the chain was created (``sgs_<kind>_iterations``; a
        restored chain counts those before its export too)."""
        return self._locked_u64("iterations")

    def _locked_u64(self, name):
        self._acquire(name)
        try:
            return self._u64(name)
        finally:
            self._lock.release()

    def _u64(self, name):
        """A ``uint64_t`` counter of the C state (``sgs_<kind>_<name>``); the lock is the
        caller's."""
        out = ffi.new("uint64_t *")
        _check(self._fn(name)(self._state, out), f"sgs_{self._kind}_{name}{self._sfx}")
        return int(out[0])

    def step(self):
        """One outer iteration; returns its C info record (a record of :attr:`INFO_DTYPE`), the
        new position being :attr:`position`. The same as ``run(1, info=True)`` (so the same
        draws as a run), with its errors: a callback's exception is re-raised with the chain
        unchanged."""
        return self.run(1, progress=False, info=True)[1][0]

    @property
    def _ct(self):
        return "float *" if self._sfx else "double *"

    def run(self, draws, *, out=None, progress=None, info=False):
        """Runs ``draws`` outer iterations; returns their positions, shape ``(draws, dim)``.

        ``draws``: a non-negative integer (else :class:`InvalidInput`). ``out``: an array of
        shape ``(draws, dim)`` and this chain's dtype, C-contiguous and writeable (e.g. an
        ``np.memmap`` for more draws than memory holds) that receives the rows and is returned;
        without it an output larger than the memory available is refused (``MemoryError``
        naming the size) rather than allocated. ``progress``: a tqdm bar (``None``: only in an
        interactive session with tqdm installed; ``True``/``False``). ``info=True``: returns
        ``(positions, infos)``, ``infos`` a structured array with the C info record of every
        iteration (:attr:`INFO_DTYPE`: ``energy``, ``accepted``, ``outcome``, ``step_size``,
        ``steps``, ``warmup``, ``phase``, …), at the cost of one library call per iteration.

        If the run stops early (an exception in a callback, Ctrl-C, a library error), the
        exception is raised with ``.partial`` (also kept as the sampler's :attr:`partial`): the
        rows this run made, the chain being at the state after the last of them (and
        :attr:`partial_info` with ``info=True``); ``.info`` counts exactly those iterations, so
        running on continues the chain bit for bit. After a run that completes,
        :attr:`partial` is None."""
        where = f"sgs_{self._kind}_run{self._sfx}"
        draws = _count(draws, "draws", where)
        out = _output(out, (draws, self.dim), self._dtype, where)
        infos = np.zeros(draws, self.INFO_DTYPE) if info else None
        self._acquire(where)
        try:
            self.partial = self.partial_info = None
            self._run(draws, where, out, infos, _progress.bar(progress, draws, self._kind))
        except BaseException as e:
            _attach(e, self.partial)
            raise
        finally:
            self._lock.release()
        return (out, infos) if info else out

    #: What the sampler's last run made before it stopped early (None after one that completed).
    partial = None
    #: With ``run(..., info=True)``: the info records of :attr:`partial`'s rows.
    partial_info = None

    def _run(self, draws, where, out, infos, bar):
        t0 = time.perf_counter()
        run, d, ct = self._fn("run"), self.dim, self._ct
        base, row_bytes = out.ctypes.data, self.dim * out.itemsize
        summary_t = f"sgs_{self._kind}_run_summary *"
        info_ptr = None if infos is None else infos.ctypes.data

        def stop(n):
            self.partial = out[:n]
            if infos is not None:
                self.partial_info = infos[:n]

        def call(start, k):
            # The library writes *done and *summary (also when it stops early) unless it
            # refuses the call before running anything (SGS_ERR_BUSY, a bad pointer): fresh
            # zeroed ones per call, so that what is added to .info is what this call did, never
            # the totals of an earlier chunk.
            row = ffi.cast(ct, base + start * row_bytes)
            if info_ptr is None:
                summary, done = ffi.new(summary_t), ffi.new("size_t *")
                st = run(self._state, k, row, k * d, done, summary)
                self._account(summary)
                got = done[0]
            else:
                # One call per iteration, each writing its own zeroed summary of an array: the
                # per-iteration info records are then copied out in one numpy assignment.
                sums = ffi.new(summary_t[:-2] + "[]", k)
                done, st, got, state = ffi.new("size_t *"), 0, 0, self._state
                while got < k:
                    st = run(state, 1, row + got * d, d, done, sums + got)
                    if st != 0:
                        break
                    got += 1  # a failed call (n = 1) completed no iteration
                view = np.frombuffer(ffi.buffer(sums), self._summary_dtype)[:got]
                infos[start:start + got] = view["last"]
                total = ffi.new(summary_t)
                total.iterations = got
                total.accepted = int(view["accepted"].sum())
                total.divergences = int(view["divergences"].sum())
                if got:
                    total.has_last, total.last = 1, sums[got - 1].last
                self._account(total)
            if st != 0:
                stop(start + got)
                self._cb.reraise()
                _check(st, where)
            return got

        try:
            self._chunks(draws, call, stop, bar)
        finally:
            self.info.seconds += time.perf_counter() - t0

    def _account(self, s):
        i = self.info
        i.iterations += s.iterations
        i.accepted += s.accepted
        i.divergences += s.divergences
        if i.iterations:
            i.accept_rate = i.accepted / i.iterations



def _acceptance_rate(log_a):
    """min(1, e^log a) per draw; NaN (the iteration ended before its ratio was complete: out of
    the domain, or a divergence) is a proposal accepted with probability 0."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(np.isnan(log_a), 0.0, np.minimum(1.0, np.exp(log_a)))


def _attach(exc, partial):
    """Adds ``.partial`` to an exception that stopped a run (when it takes attributes)."""
    if partial is not None:
        try:
            exc.partial = partial
        except AttributeError:
            pass


def _available_memory():
    """Bytes of memory available to a new allocation (Linux MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _refuse_if_too_big(shape, dtype, where):
    """``MemoryError`` naming the size when an output of ``shape`` cannot fit in memory."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    avail = _available_memory()
    if avail is not None and nbytes > avail:
        dims = " × ".join(str(n) for n in shape)
        raise MemoryError(f"{where}: the output {dims} {np.dtype(dtype)} needs "
                          f"{nbytes / 2**30:.1f} GiB, more than the {avail / 2**30:.1f} GiB "
                          "available: run fewer draws per call, or pass out= (e.g. an np.memmap "
                          "of that shape)")


def _output(out, shape, dtype, where):
    """The array a run writes: the caller's ``out`` (checked), or a new one if it fits."""
    if out is None:
        _refuse_if_too_big(shape, dtype, where)
        return np.empty(shape, dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{where}: out must be a numpy array (or np.memmap), got "
                        f"{type(out).__name__}")
    if out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous \
            or not out.flags.writeable:
        raise _invalid(where, f"out must be a writeable C-contiguous {np.dtype(dtype)} array of "
                       f"shape {shape}, got {out.dtype} {out.shape}"
                       f"{'' if out.flags.c_contiguous else ', not C-contiguous'}"
                       f"{'' if out.flags.writeable else ', read-only'}",
                       "SGS_ERR_OUTPUT_TOO_SMALL" if out.shape != shape else
                       "SGS_ERR_INVALID_ARGUMENT")
    return out


class SGHMC(_Chain):
    """An SGHMC chain: ``grad(theta, seed)``. Options: ``friction``, ``momentum_sd``, ``steps``,
    ``seed``, ``stream``, ``resample_momentum``."""

    _kind = "sghmc"

    def __init__(self, grad, theta0, **kw):
        super().__init__(theta0, grad, None, **kw)


class SGLD(_Chain):
    """An SGLD chain: ``grad(theta, seed)``. Options: ``steps``, ``seed``, ``stream``."""

    _kind = "sgld"

    def __init__(self, grad, theta0, **kw):
        super().__init__(theta0, grad, None, **kw)
