"""K chains per interpreter call: ``chains=K, vectorized=True`` runs the K chains in lockstep
through ``sgs_<chain>_run_batch``, whose batched callbacks get the points of all the chains that
need one at once (``grad(X, seeds)`` with ``X`` of shape (k, d), ``k ≤ K``), so that a numpy
callback is vectorised over chains instead of being called once per chain.

The chains are ordinary sampler objects (:class:`AMAGOLD`, :class:`SGHMC`, :class:`SGLD`) whose
states lie side by side in one block, as ``run_batch`` wants them; each keeps single-row
callbacks (the vectorised ones called on one row) for its own ``run``, ``step`` and init, which
give the same values, so a chain continues the same way alone or in the batch.
"""

import math
import time
import types

import numpy as np

from . import _interrupt, _progress
from ._callbacks import _onerror, _Py, _reraise
from ._chain import _refuse_if_too_big
from ._lib import _CB_ABORT, _CB_OK, _CB_REJECT, OutOfDomain, _check, _real_array
from ._lib import ffi, lib

_F64 = np.dtype(np.float64)
_U64 = np.dtype(np.uint64)
_ndarray = np.ndarray

# A batch's scratch beyond this is not worth its memory: steps with more calls than the cache
# holds (the warm-up's approach, up to d + 43 calls) then get their extra calls one row at a time.
_SCRATCH_BYTES = 64 << 20


def _store(out, value, shape, dtype, what, row_status):
    """Writes a callback's result to ``out`` (rows of a masked array: REJECT)."""
    if type(value) is np.ndarray and value.shape == shape and value.dtype == dtype \
            and value.flags.c_contiguous:
        ffi.memmove(out, value, value.nbytes)  # the common case, checked and copied as it is
        return
    arr, mask = _result(value, shape, what)
    arr = np.ascontiguousarray(arr.reshape(shape), dtype=dtype)
    ffi.memmove(out, arr, arr.nbytes)
    if mask is not None and mask.any():
        st = np.frombuffer(ffi.buffer(row_status, 4 * shape[0]), dtype=np.int32)
        st[mask] = _CB_REJECT


def _result(value, shape, what):
    """(values as float64/float32-castable array of ``shape``, mask of rejected rows or None)."""
    mask = None
    if isinstance(value, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(value)
        mask = mask.reshape(mask.shape[0], -1).any(axis=1) if mask.ndim > 1 else mask
        value = value.filled(np.nan)
    arr = _real_array(value, what)
    if arr.shape != shape and not (len(shape) == 1 and arr.shape == shape + (1,)):
        raise ValueError(f"{what} returned shape {arr.shape}, expected {shape} (one row per "
                         "point of X)")
    if mask is not None and mask.shape != (shape[0],):
        raise ValueError(f"{what}: the mask of a masked result must mark rows, got shape "
                         f"{mask.shape}")
    return arr, mask


def _failed(py, e, row_status, k):
    """A batch trampoline's status for its callback's exception: :class:`OutOfDomain` rejects
    every row of the call; anything else (Ctrl-C's KeyboardInterrupt too) aborts the run and is
    kept for the run to re-raise."""
    if isinstance(e, OutOfDomain):
        np.frombuffer(ffi.buffer(row_status, 4 * k), dtype=np.int32)[:] = _CB_REJECT
        return _CB_OK
    py.exc = e
    return _CB_ABORT


def _view(ptr, shape, dtype):
    """A numpy array over C memory (not a copy; valid while that memory is)."""
    n = 1
    for s in shape:
        n *= s
    return np.frombuffer(ffi.buffer(ptr, n * dtype.itemsize), dtype).reshape(shape)


def _energy_views(theta, k, d, u, dtype):
    # What the views were made for (theta, u, d), the X and U views, the result shape the fast
    # path accepts.
    return theta, u, d, _view(theta, (k, d), dtype), _view(u, (k,), _F64), (k,)


def _grad_views(x, k, d, seeds, g, dtype):
    return x, seeds, g, d, _view(x, (k, d), dtype), _view(seeds, (k,), _U64), \
        _view(g, (k, d), dtype), (k, d)


def _trampolines(py, sfx):
    """The energy and gradient trampolines of one batch (``py``: its callables and error slot;
    ``sfx``: "" or "_f32"), closures over what they use, so that a call looks nothing up.

    run_batch answers every round from the same scratch, so the pointers a callback gets repeat
    from call to call: numpy views over them are made once per row count k (about 1 µs each) and
    reused while the pointers are the ones they were made for (compared on every call; other
    pointers get new views). The callbacks still get copies (``view.copy()``, cheaper than
    ``np.empty`` and a memmove): they may keep X and the seeds, and the C buffers are
    overwritten by the next round. The common result (an ndarray of the exact shape and dtype)
    is written through the view; anything else goes through ``_store`` (casts, (k, 1)
    energies, masked arrays, lists, errors)."""
    energy, grad, dtype = py.energy, py.grad, py.dtype
    eviews, gviews = {}, {}
    ndarray, f64 = np.ndarray, _F64

    def _batch_energy_tramp(ud, theta, k, d, chains, u, row_status):
        try:
            v = eviews.get(k)
            if v is None or v[0] != theta or v[1] != u or v[2] != d:
                v = eviews[k] = _energy_views(theta, k, d, u, dtype)
            value = energy(v[3].copy())
            if type(value) is ndarray and value.shape == v[5] and value.dtype is f64:
                v[4][...] = value
            else:
                _store(u, value, (k,), f64, "energy", row_status)
            return _CB_OK
        except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too)
            return _failed(py, e, row_status, k)

    def _batch_grad_tramp(ud, x, k, d, seeds, chains, g, row_status):
        try:
            v = gviews.get(k)
            if v is None or v[0] != x or v[1] != seeds or v[2] != g or v[3] != d:
                v = gviews[k] = _grad_views(x, k, d, seeds, g, dtype)
            value = grad(v[4].copy(), v[5].copy())
            if type(value) is ndarray and value.shape == v[7] and value.dtype is dtype:
                v[6][...] = value
            else:
                _store(g, value, (k, d), dtype, "grad", row_status)
            return _CB_OK
        except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too)
            return _failed(py, e, row_status, k)

    e = ffi.NULL if energy is None else ffi.callback(
        "sgs_batch_energy_fn" + sfx, _batch_energy_tramp, error=_CB_ABORT, onerror=_onerror)
    g = ffi.callback("sgs_batch_gradient_fn" + sfx, _batch_grad_tramp, error=_CB_ABORT,
                     onerror=_onerror)
    return e, g


def _mask(value, k, what):
    """An in-place callback's return value checked: ``None``, or a boolean array of shape (k,)
    marking the rows outside the domain."""
    if value is not None and (type(value) is not np.ndarray or value.dtype != np.bool_
                              or value.shape != (k,)):
        raise TypeError(f"{what} (vectorized='inplace') must return None or a boolean array of "
                        f"shape ({k},) marking rejected rows, got {_describe(value)}")
    return value


def _rejected(value, k, row_status, what):
    """Marks the rows an in-place callback's return value rejects (``_mask``) as REJECT."""
    mask = _mask(value, k, what)
    if mask is not None and mask.any():
        np.frombuffer(ffi.buffer(row_status, 4 * k), dtype=np.int32)[mask] = _CB_REJECT


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    return type(value).__name__


def _inside(scratch, ptr, shape, dtype, writeable):
    """A view of the scratch array over the C memory at ``ptr`` (the view keeps ``scratch``
    alive, so an array a callback keeps stays valid memory), or None if ``ptr`` is not in it."""
    n = dtype.itemsize
    for s in shape:
        n *= s
    off = int(ffi.cast("uintptr_t", ptr)) - scratch.ctypes.data
    if off < 0 or off + n > scratch.nbytes:
        return None
    v = scratch.view(np.uint8)[off:off + n].view(dtype).reshape(shape)
    v.flags.writeable = writeable
    return v


def _inplace_trampolines(py, sfx, scratch):
    """The trampolines of ``vectorized='inplace'``: ``grad(X, seeds, out)`` and
    ``energy(X, out)`` get views of the batch's scratch (X and seeds read-only, ``out`` holding
    NaN), made once per row count and pointer set, and write their values into ``out``: no copy
    either way and no check of a returned array, which is what a call costs beyond entering
    Python. The arrays are valid memory as long as anyone holds them (they keep the scratch
    alive), but their contents change at the next call: a callback that keeps X copies it.
    Pointers outside the scratch (a step's calls beyond the cache, one row each) get fresh
    arrays, copied in and out."""
    energy, grad, dtype = py.energy, py.grad, py.dtype
    eviews, gviews = {}, {}
    f64 = _F64

    def _energy_views_inplace(theta, k, d, u):
        X = _inside(scratch, theta, (k, d), dtype, False)
        U = _inside(scratch, u, (k,), f64, True)
        if X is None or U is None:
            return None
        return theta, u, d, X, U

    def _grad_views_inplace(x, k, d, seeds, g):
        X = _inside(scratch, x, (k, d), dtype, False)
        S = _inside(scratch, seeds, (k,), _U64, False)
        G = _inside(scratch, g, (k, d), dtype, True)
        if X is None or S is None or G is None:
            return None
        return x, seeds, g, d, X, S, G

    def _batch_energy_tramp_inplace(ud, theta, k, d, chains, u, row_status):
        try:
            v = eviews.get(k)
            if v is None or v[0] != theta or v[1] != u or v[2] != d:
                v = _energy_views_inplace(theta, k, d, u)
                if v is None:  # outside the scratch: fresh arrays, the result copied back
                    out = np.full(k, np.nan)
                    _rejected(energy(_view(theta, (k, d), dtype).copy(), out), k, row_status,
                              "energy")
                    ffi.memmove(u, out, out.nbytes)
                    return _CB_OK
                eviews[k] = v
            r = energy(v[3], v[4])
            if r is not None:
                _rejected(r, k, row_status, "energy")
            return _CB_OK
        except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too)
            return _failed(py, e, row_status, k)

    def _batch_grad_tramp_inplace(ud, x, k, d, seeds, chains, g, row_status):
        try:
            v = gviews.get(k)
            if v is None or v[0] != x or v[1] != seeds or v[2] != g or v[3] != d:
                v = _grad_views_inplace(x, k, d, seeds, g)
                if v is None:
                    out = np.full((k, d), np.nan, dtype)
                    _rejected(grad(_view(x, (k, d), dtype).copy(),
                                   _view(seeds, (k,), _U64).copy(), out), k, row_status, "grad")
                    ffi.memmove(g, out, out.nbytes)
                    return _CB_OK
                gviews[k] = v
            r = grad(v[4], v[5], v[6])
            if r is not None:
                _rejected(r, k, row_status, "grad")
            return _CB_OK
        except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too)
            return _failed(py, e, row_status, k)

    e = ffi.NULL if energy is None else ffi.callback(
        "sgs_batch_energy_fn" + sfx, _batch_energy_tramp_inplace, error=_CB_ABORT,
        onerror=_onerror)
    g = ffi.callback("sgs_batch_gradient_fn" + sfx, _batch_grad_tramp_inplace, error=_CB_ABORT,
                     onerror=_onerror)
    return e, g


# Ctrl-C inside the trampolines raises KeyboardInterrupt there (see _interrupt): their code
# objects, shared by every batch's closures.
_interrupt.CALLBACK_CODES.update(c for f in (_trampolines, _inplace_trampolines)
                                 for c in f.__code__.co_consts if isinstance(c, types.CodeType))


def single_row(energy, grad, inplace=False):
    """The one-chain callbacks of a vectorised pair: row 0 of a call on one row (the same
    values as in a batch, since a row's value depends only on its own point and seed)."""
    if inplace:
        return _single_row_inplace(energy, grad)

    def energy1(theta):
        arr, mask = _result(energy(theta[None, :]), (1,), "energy")
        if mask is not None and mask[0]:
            raise OutOfDomain
        return float(arr.reshape(-1)[0])

    def grad1(theta, seed):
        arr, mask = _result(grad(theta[None, :], np.array([seed], np.uint64)),
                            (1, theta.size), "grad")
        if mask is not None and mask[0]:
            raise OutOfDomain
        return arr[0]

    return (energy1 if energy is not None else None), grad1


def _single_row_inplace(energy, grad):
    """:func:`single_row` for ``vectorized='inplace'`` callbacks."""

    def energy1(theta):
        out = np.full(1, np.nan)
        mask = _mask(energy(theta[None, :], out), 1, "energy")
        if mask is not None and mask[0]:
            raise OutOfDomain
        return float(out[0])

    def grad1(theta, seed):
        out = np.full((1, theta.size), np.nan, theta.dtype)
        mask = _mask(grad(theta[None, :], np.array([seed], np.uint64), out), 1, "grad")
        if mask is not None and mask[0]:
            raise OutOfDomain
        return out[0]

    return (energy1 if energy is not None else None), grad1


class Batch:
    """K chain objects whose states lie side by side, run together by ``run_batch``."""

    def __init__(self, cls, energy, grad, starts, seed, stream, dtype, kw, inplace=False):
        self.cls, self.kind = cls, cls._kind
        self.k, self.dim = starts.shape
        e1, g1 = single_row(energy if cls._has_energy else None, grad, inplace)
        args = (e1, g1) if cls._has_energy else (g1,)
        probe = cls.__new__(cls)
        probe._dtype, probe._sfx = np.dtype(dtype), ("" if np.dtype(dtype) == np.float64
                                                      else "_f32")
        self.sfx = probe._sfx
        size = probe._fn("state_size")()
        align = probe._fn("state_align")()
        # One block for the K states (a C array of them: run_batch's `states`).
        self.block = ffi.new("char[]", self.k * size + align)
        addr = int(ffi.cast("uintptr_t", self.block))
        addr += (-addr) % align
        ctype = f"sgs_{self.kind}{self.sfx} *"
        self.states = ffi.cast(ctype, addr)
        self.chains = []
        for c in range(self.k):
            mem = (self.block, ffi.cast(ctype, addr + c * size))
            self.chains.append(cls(*args, starts[c], seed=seed, stream=stream + c, dtype=dtype,
                                   _state=mem, **kw))
        self.py = _Py(energy if cls._has_energy else None, grad, None, np.dtype(dtype))
        steps = int(getattr(self.chains[0]._cfg, "steps", 1))
        calls = math.ceil(1.5 * steps) + 2  # a trajectory (jittered T up to 1.5 T) and U
        scratch_len = getattr(lib, f"sgs_{self.kind}_batch_scratch_len")
        # The warm-up's longest steps (the approach: up to d + 43 calls) batched too, if the
        # cache for them is not large.
        if scratch_len(self.k, self.dim, self.dim + 43) * 8 <= _SCRATCH_BYTES:
            calls = max(calls, self.dim + 43)
        self.max_calls = calls
        self.scratch = np.zeros(max(1, scratch_len(self.k, self.dim, calls)), np.float64)
        self.fn = getattr(lib, f"sgs_{self.kind}_run_batch{self.sfx}")
        self.fn_infos = getattr(lib, f"sgs_{self.kind}_run_batch_infos{self.sfx}")
        # This batch's own trampolines (closures over its callables; kept alive with it).
        self.energy_fn, self.grad_fn = (_inplace_trampolines(self.py, self.sfx, self.scratch)
                                        if inplace else _trampolines(self.py, self.sfx))

    def run(self, n, infos=None, progress=None):
        """``n`` iterations of every chain → ``(K, n, d)`` rows (``infos``: a ``(K, n)`` array of
        the chains' INFO_DTYPE filled per iteration). On an exception, ``.partial`` is the list
        of each chain's rows (chains can differ by one)."""
        k, d = self.k, self.dim
        where = f"sgs_{self.kind}_run_batch{self.sfx}"
        _refuse_if_too_big((k, n, d), self.chains[0].dtype, where)
        out = np.empty((k, n, d), self.chains[0].dtype)
        counts = np.zeros(k, np.int64)  # rows made per chain
        taken = []
        t0 = time.perf_counter()
        try:
            for c in self.chains:
                c._acquire(where)
                taken.append(c)
            self._chunks(n, out, infos, counts, where, _progress.bar(progress, n, self.kind))
        except BaseException as e:
            try:
                e.partial = [out[c, :counts[c]] for c in range(k)]
            except AttributeError:
                pass
            raise
        finally:
            for c in taken:
                c._lock.release()
            dt = time.perf_counter() - t0
            for c in self.chains:
                c.info.seconds += dt / k
        return out

    def _chunks(self, n, out, infos, counts, where, bar):
        k, d = self.k, self.dim
        sum_t = f"sgs_{self.kind}_run_summary"
        info_t = f"sgs_{self.kind}_info *"
        ct = self.chains[0]._ct
        done_arr = np.zeros(k, np.uintp)
        done_ptr = ffi.cast("size_t *", done_arr.ctypes.data)
        scratch = ffi.cast("double *", self.scratch.ctypes.data)
        start, chunk = 0, 1
        try:
            with _interrupt.deferred():
                while start < n and not _interrupt.pending():
                    m = min(chunk, n - start)
                    t = time.perf_counter()
                    # Per call, each chain's rows are contiguous (chain-major k × m × d), and
                    # so are its info records (k × m, with sample_stats).
                    tmp = np.empty((k, m, d), out.dtype)
                    sums = ffi.new(f"{sum_t}[]", k)
                    done_arr[:] = 0
                    args = (self.states, k, m, self.energy_fn, self.grad_fn, ffi.NULL, scratch,
                            self.scratch.size, self.max_calls, ffi.cast(ct, tmp.ctypes.data),
                            tmp.size, done_ptr, sums)
                    if infos is None:
                        st = self.fn(*args)
                    else:
                        rec = np.empty((k, m), infos.dtype)
                        st = self.fn_infos(*args, ffi.cast(info_t, rec.ctypes.data))
                    got = done_arr.copy()
                    for c in range(k):
                        self.chains[c]._account(sums[c])
                        if infos is not None:
                            infos[c, start:start + got[c]] = rec[c, :got[c]]
                    for c in range(k):
                        out[c, start:start + got[c]] = tmp[c, :got[c]]
                    counts[:] = start + got
                    if bar is not None:
                        bar.update(int(got.min()))
                    if st != 0:
                        _reraise(self.py)
                        _check(st, where)
                    start += m
                    dt = time.perf_counter() - t
                    chunk = max(1, min(chunk * 4, int(chunk * 0.05 / dt) if dt > 0 else chunk * 4))
        finally:
            if bar is not None:
                bar.close()
        if _interrupt.pending():
            _interrupt.take()
            raise KeyboardInterrupt
