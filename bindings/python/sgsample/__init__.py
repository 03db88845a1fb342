"""sgsample: exact stochastic-gradient sampling through the sgsample C library.

The samplers (AMAGOLD, SGHMC, SGLD, SVGD / RBM-SVGD) run in the C library shipped inside this
package (``libsgsample.so``, built by cargo at install time); this module is a thin cffi (ABI mode)
layer over the same C ABI that C users call. Every declaration comes from the shipped
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
``grads(X, seed) -> ndarray`` for SVGD, ``X`` of shape (N, d)) or :class:`Raw` C function
pointers with a user-data pointer (cffi or ctypes functions, numba ``cfunc``, symbols of a compiled
library), which run without the interpreter. An exception raised in a Python callback makes it
return ``SGS_CB_ABORT``; the sampler stops with the chain at its last accepted state and the
exception is re-raised here with its traceback. Raise :class:`OutOfDomain` to return
``SGS_CB_REJECT`` (AMAGOLD/SGHMC/SGLD reject the proposal; SVGD stops with :class:`Error`
``SGS_ERR_GRADIENT_REJECTED``). One thread at a time per sampler: a second call while one runs
raises :class:`InvalidInput` ``SGS_ERR_BUSY``. Long runs are cut into chunks of about 50 ms so that Ctrl-C
(``KeyboardInterrupt``) stops them between iterations also when no Python callback runs.
"""

import math
import operator
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, make_dataclass, replace
from typing import Optional

import cffi
import numpy as np

from . import _header

__all__ = [
    "AMAGOLD", "SGHMC", "SGLD", "SVGD", "Raw", "Result", "RunInfo", "Error", "InvalidInput",
    "OutOfDomain", "amagold", "sghmc", "sgld", "svgd", "ksd", "minibatch", "version", "Stats", "ess",
    "ess_flags", "rhat", "summary", "Summary", "rhat_rank", "ess_bulk", "ess_tail", "mcse_quantile",
    "diagnose", "Verdict",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
HEADER_PATH = os.path.join(_HERE, "sgsample.h")
LIBRARY_PATH = os.environ.get("SGSAMPLE_LIB") or os.path.join(
    _HERE, {"darwin": "libsgsample.dylib", "win32": "sgsample.dll"}.get(sys.platform, "libsgsample.so")
)

header = _header.parse_file(HEADER_PATH)
ffi = cffi.FFI()
ffi.cdef(header.cdef())
lib = ffi.dlopen(LIBRARY_PATH)

# Every #define of the header (SGS_CB_OK, SGS_KERNEL_GAUSSIAN, ...) and every status code.
globals().update(header.defines)
globals().update({name: value for name, value in header.enums["sgs_status"]})
STATUS_NAMES = header.statuses()
__version__ = header.defines["SGS_VERSION_STRING"]

_CB_OK = header.defines["SGS_CB_OK"]
_CB_REJECT = header.defines["SGS_CB_REJECT"]
_CB_ABORT = header.defines["SGS_CB_ABORT"]


def version():
    """The version string of the loaded C library (``sgs_version()``)."""
    return ffi.string(lib.sgs_version()).decode()


# ---------------------------------------------------------------------------------------------
# Errors

# Statuses that are about what happened during sampling rather than about the arguments.
_RUNTIME = {"SGS_ERR_CALLBACK_ABORTED", "SGS_ERR_NON_FINITE", "SGS_ERR_GRADIENT_REJECTED",
            "SGS_ERR_INITIAL_ENERGY_REJECTED"}


class Error(Exception):
    """A non-OK ``sgs_status`` from the C library: ``.status`` (int), ``.name`` (``SGS_ERR_…``)."""

    def __init__(self, status, where="", detail=None):
        self.status = int(status)
        self.name = STATUS_NAMES.get(self.status, "unknown status")
        # ``detail``: the binding's own, more precise text, instead of the library's generic one.
        text = detail if detail is not None else ffi.string(lib.sgs_status_str(self.status)).decode()
        super().__init__(f"{where}: {self.name} ({self.status}): {text}")


class InvalidInput(Error, ValueError):
    """A status saying an argument was bad (also a ``ValueError``)."""


class OutOfDomain(Exception):
    """Raise inside a Python callback: the point is outside the target (``SGS_CB_REJECT``).

    AMAGOLD, SGHMC and SGLD reject the proposal and go on. SVGD has no proposal to reject: the
    run stops with :class:`Error` ``SGS_ERR_GRADIENT_REJECTED``, the particles those after the
    last completed iteration."""


def _check(status, where):
    if status != 0:
        name = STATUS_NAMES.get(int(status), "")
        raise (Error if name in _RUNTIME else InvalidInput)(status, where)


_STATUS = {name: value for name, value in header.enums["sgs_status"]}


def _invalid(where, detail, status="SGS_ERR_INVALID_ARGUMENT"):
    """The InvalidInput the binding raises for an argument it refuses before calling the library."""
    return InvalidInput(_STATUS[status], where, detail)


def _no_complex(value, what, where=None):
    """Refuses complex numbers, which numpy would cast to real with only a warning (the
    imaginary part lost): InvalidInput for an argument, ValueError inside a callback."""
    if np.iscomplexobj(value):
        if where is None:
            raise ValueError(f"{what} returned complex values")
        raise _invalid(where, f"{what} must be real, got complex values")


_U64_MAX = 2**64 - 1


def _count(value, what, where, *, minimum=0, maximum=_U64_MAX):
    """A non-negative integer argument (a count, size or seed) as a Python int.

    Accepts ints (also numpy integers) and floats with an integral value (``1e4``); refuses
    anything else, and values outside ``[minimum, maximum]``, with :class:`InvalidInput`
    (``SGS_ERR_INVALID_ARGUMENT``) instead of cffi's ``OverflowError``/``TypeError``."""
    if isinstance(value, (bool, np.bool_)):
        raise _invalid(where, f"{what} must be an integer, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and \
                float(value).is_integer():
            n = int(value)
        else:
            raise _invalid(where, f"{what} must be an integer, got {value!r}") from None
    if n < minimum:
        raise _invalid(where, f"{what} must be >= {minimum}, got {n}")
    if n > maximum:
        raise _invalid(where, f"{what} must be <= {maximum}, got {n}")
    return n


# ---------------------------------------------------------------------------------------------
# Callbacks: static trampolines; the Python callables travel as user_data (an ffi handle).


class _Py:
    """What a trampoline finds behind ``user_data``: the user's callables and the first error.

    The error is kept per thread: a copy of a sampler (``copy.copy``) shares its callbacks, as
    ``sgs_*_copy`` does in C, and the two may run at the same time on two threads; each run
    re-raises the error of its own callbacks (a run's callbacks run on the thread that called
    it)."""

    __slots__ = ("energy", "grad", "grads", "dtype", "_local", "__weakref__")

    def __init__(self, energy, grad, grads, dtype):
        self.energy, self.grad, self.grads, self.dtype = energy, grad, grads, dtype
        self._local = threading.local()

    @property
    def exc(self):
        return getattr(self._local, "exc", None)

    @exc.setter
    def exc(self, value):
        self._local.exc = value


def _vector(ptr, count, dtype):
    return np.frombuffer(ffi.buffer(ptr, count * dtype.itemsize), dtype=dtype).copy()


def _write(out, value, shape, dtype, what):
    _no_complex(value, what)
    arr = np.ascontiguousarray(value, dtype=dtype)
    if arr.shape != shape:
        raise ValueError(f"{what} returned shape {arr.shape}, expected {shape}")
    ffi.memmove(out, arr, arr.nbytes)


def _energy_value(value):
    # A number, a 0-d array or an array of one element (e.g. `x @ A @ x` on a (1, d) row, or a
    # sum with keepdims): numpy 2 refuses float() on the last; anything larger is an error.
    _no_complex(value, "energy")
    arr = np.asarray(value, dtype=np.float64)
    if arr.size != 1:
        raise ValueError(f"energy returned shape {arr.shape}, expected a scalar")
    return float(arr.reshape(()))


def _energy_tramp(ud, theta, d, u):
    cb = ffi.from_handle(ud)
    try:
        u[0] = _energy_value(cb.energy(_vector(theta, d, cb.dtype)))
        return _CB_OK
    except OutOfDomain:
        return _CB_REJECT
    except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too: abort, re-raise later)
        cb.exc = e
        return _CB_ABORT


def _grad_tramp(ud, x, d, seed, g):
    cb = ffi.from_handle(ud)
    try:
        _write(g, cb.grad(_vector(x, d, cb.dtype), int(seed)), (d,), cb.dtype, "grad")
        return _CB_OK
    except OutOfDomain:
        return _CB_REJECT
    except BaseException as e:  # noqa: BLE001
        cb.exc = e
        return _CB_ABORT


def _grads_tramp(ud, xs, n, d, seed, g):
    cb = ffi.from_handle(ud)
    try:
        x = _vector(xs, n * d, cb.dtype).reshape(n, d)
        _write(g, cb.grads(x, int(seed)), (n, d), cb.dtype, "grads")
        return _CB_OK
    except OutOfDomain:
        return _CB_REJECT
    except BaseException as e:  # noqa: BLE001
        cb.exc = e
        return _CB_ABORT


_orphan = threading.local()


def _onerror(exc_type, exc, tb):
    # An exception raised before a trampoline's own ``try`` (a KeyboardInterrupt delivered on
    # entry): the callback already returns SGS_CB_ABORT; keep the exception to re-raise it.
    _orphan.exc = exc
    return None


_TRAMPOLINES = {
    name: ffi.callback(name, fn, error=_CB_ABORT, onerror=_onerror)
    for suffix in ("", "_f32")
    for name, fn in (
        ("sgs_energy_fn" + suffix, _energy_tramp),
        ("sgs_gradient_fn" + suffix, _grad_tramp),
        ("sgs_gradients_fn" + suffix, _grads_tramp),
    )
}


def _address(obj):
    """The address of a function or buffer given as int, cffi cdata, ctypes object, numba cfunc
    (``.address``), or numpy array (its data)."""
    if obj is None:
        return 0
    if isinstance(obj, int):
        return obj
    if isinstance(obj, ffi.CData):
        return int(ffi.cast("uintptr_t", obj))
    if isinstance(obj, np.ndarray):
        return obj.ctypes.data
    if hasattr(obj, "address") and isinstance(obj.address, int):  # numba cfunc
        return obj.address
    import ctypes

    if isinstance(obj, ctypes._CFuncPtr):
        return ctypes.cast(obj, ctypes.c_void_p).value
    if isinstance(obj, ctypes.c_void_p):
        return obj.value or 0
    try:
        return ctypes.addressof(obj)
    except TypeError:
        pass
    raise TypeError(f"cannot take the address of {type(obj).__name__}")


class Raw:
    """A C callback: a function pointer with the ``sgs_*_fn`` signature plus its ``user_data``.

    ``fn``: a cffi function pointer, a ctypes function (``CFUNCTYPE`` instance or a symbol of a
    ``ctypes.CDLL``), a numba ``cfunc``, or an address. ``user_data``: anything :func:`_address`
    accepts, or None. Both are kept alive by this object, which the sampler keeps alive while it
    is used. The same user data goes to every callback of one sampler, so give ``energy`` and
    ``grad`` the same ``user_data`` (the first one is used).

    A numpy array as ``user_data`` is passed as the address of its first element, as it is: no
    copy and no conversion, so the callback reads (and may write) the array's own memory, in the
    array's own dtype (a float64 array is a ``double *``, a float32 array a ``float *``, a uint64
    array a ``uint64_t *``), and sees later changes to it. It must be C-contiguous (a strided
    view such as ``a[::2]`` would be read as the underlying buffer's elements) and must not hold
    Python objects: otherwise :class:`InvalidInput` (``SGS_ERR_INVALID_ARGUMENT``). Pass
    ``np.ascontiguousarray(a, dtype=...)`` for the layout the callback expects; a callback that
    writes through ``user_data`` needs a writeable array.
    """

    def __init__(self, fn, user_data=None):
        if isinstance(user_data, np.ndarray):
            if not user_data.flags.c_contiguous:
                raise _invalid("Raw", "a numpy user_data must be C-contiguous (its data pointer is "
                               "passed as it is); pass np.ascontiguousarray(...)")
            if user_data.dtype.hasobject:
                raise _invalid("Raw", f"a numpy user_data of dtype {user_data.dtype} holds Python "
                               "objects, not plain memory a C callback can read")
        self.fn, self.user_data = fn, user_data
        self.address = _address(fn)
        self.user_data_address = _address(user_data)
        if self.address == 0:
            raise _invalid("Raw", "null function pointer", "SGS_ERR_NULL_POINTER")


def _c_callback(obj, kind, suffix, py):
    """(function pointer cdata, user-data address or None) for one callback slot."""
    cname = f"sgs_{kind}_fn{suffix}"
    if obj is None:
        return ffi.NULL, None
    if isinstance(obj, Raw):
        return ffi.cast(cname, obj.address), obj.user_data_address
    if callable(obj):
        setattr(py, {"energy": "energy", "gradient": "grad", "gradients": "grads"}[kind], obj)
        return _TRAMPOLINES[cname], None
    raise TypeError(f"{kind} callback must be callable or sgsample.Raw, got {type(obj).__name__}")


class _Callbacks:
    """The function pointers and the single user_data pointer of one sampler."""

    def __init__(self, dtype, suffix, **slots):
        self.py = _Py(None, None, None, dtype)
        self.handle = ffi.new_handle(self.py)
        self.fns = {}
        raw_ud, python = None, False
        for kind, obj in slots.items():
            fn, ud = _c_callback(obj, kind, suffix, self.py)
            self.fns[kind] = fn
            python |= obj is not None and not isinstance(obj, Raw)
            if ud is not None and raw_ud is None:
                raw_ud = ud
        if python and raw_ud:
            raise _invalid("callbacks", "cannot mix Python callbacks with Raw callbacks that "
                           "need user_data")
        self.keep = list(slots.values())
        self.user_data = self.handle if python else ffi.cast("void *", raw_ud or 0)

    def reraise(self):
        exc, self.py.exc = self.py.exc, None
        if exc is None:
            exc, _orphan.exc = getattr(_orphan, "exc", None), None
        if exc is not None:
            raise exc


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class RunInfo:
    """What a chain's runs did (totals since the sampler was created)."""

    sampler: str
    iterations: int = 0
    accepted: int = 0
    divergences: int = 0
    accept_rate: float = float("nan")
    step_size: Optional[float] = None
    seconds: float = 0.0
    ksd_squared: Optional[float] = None
    inverse_mass: Optional[np.ndarray] = None  # AMAGOLD with a mass matrix: its diagonal
    # AMAGOLD: the last iteration's phase ("sampling", "approach", "fast", "slow", "final"), and
    # from sgsample.amagold() the dense matrix (mass="dense") and the warm-up's own report.
    phase: Optional[str] = None
    inverse_mass_dense: Optional[np.ndarray] = None
    warmup_report: Optional["WarmupReport"] = None


@dataclass
class Result:
    """Samples ``(chains, draws, dim)`` and one :class:`RunInfo` per chain.

    ``warmup``: for AMAGOLD runs with a warm-up, the chains' :class:`WarmupReport` compared
    (:func:`warmup_compare`), one per chain; else None."""

    samples: np.ndarray
    info: list = field(default_factory=list)
    warmup: Optional[list] = None

    def to_dict(self, var_name="theta"):
        """An ``arviz.from_dict``-compatible dict: posterior and sample_stats per chain."""
        stats = {k: np.array([[getattr(i, k)] for i in self.info], dtype=float)
                 for k in ("accept_rate", "divergences")}
        return {"posterior": {var_name: self.samples}, "sample_stats": stats}

    def to_arviz(self, var_name="theta"):
        """An ``arviz.InferenceData`` (needs ArviZ: ``pip install arviz``)."""
        import arviz as az

        return az.from_dict(posterior={var_name: self.samples})


# ---------------------------------------------------------------------------------------------
# Samplers


def _dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise _invalid("dtype", f"dtype must be float64 or float32, not {dt}")
    return dt, ("" if dt == np.float64 else "_f32")


def _ptr(ctype, arr):
    return ffi.cast(ctype, arr.ctypes.data)


def _new_state(kind, suffix):
    """Zeroed caller memory of the size and alignment the library reports."""
    size = getattr(lib, f"sgs_{kind}_state_size{suffix}")()
    align = getattr(lib, f"sgs_{kind}_state_align{suffix}")()
    raw = ffi.new("char[]", size + align)
    addr = int(ffi.cast("uintptr_t", raw))
    return raw, ffi.cast(f"sgs_{kind}{suffix} *", addr + (-addr) % align)


def _config(kind, default_args, options, enums=None, default=None):
    cfg = ffi.new(f"sgs_{kind}_config *")
    where = f"sgs_{kind}_config"
    # ``default``: the function giving the starting config (sgs_amagold_config_adaptive).
    default = default or getattr(lib, f"sgs_{kind}_config_default")
    try:
        cfg[0] = default(*default_args)
    except (OverflowError, TypeError) as e:
        # A negative count or a value of the wrong type: cffi refuses it before the library sees
        # it; raise the binding's InvalidInput (a ValueError), as for the library's own checks.
        names = ("batch_size", "step_size") if kind == "svgd" else ("step_size",)
        given = ", ".join(f"{k}={v!r}" for k, v in zip(names, default_args))
        raise _invalid(where, f"{given}: {e}") from None
    fields = {name for _, name, _ in header.structs[f"sgs_{kind}_config"]}
    fields -= {"reserved", "ksd_reserved", "scale_reserved"}
    for key, value in options.items():
        if key not in fields:
            raise TypeError(f"unknown {kind} option {key!r} (options: {sorted(fields)})")
        if enums and key in enums and isinstance(value, str):
            try:
                value = enums[key][value]
            except KeyError:
                raise _invalid(where, f"{key} must be one of {sorted(enums[key])}",
                               "SGS_ERR_INVALID_OPTION") from None
        try:
            setattr(cfg, key, value)
        except (OverflowError, TypeError) as e:
            raise _invalid(where, f"option {key}={value!r}: {e}") from None
    return cfg


class _Runner:
    """Runs in chunks of about ``chunk_seconds`` so Ctrl-C is seen between iterations.

    One thread at a time per sampler: every call into the library on a sampler's state holds
    ``_lock`` (taken without waiting), so a second call while one is under way (from one of its
    own callbacks, or from another thread) raises :class:`InvalidInput` with ``SGS_ERR_BUSY``
    and leaves the sampler as it was. The library's own busy flag is not atomic: it is not what
    protects a state from two threads."""

    chunk_seconds = 0.05

    def __copy__(self):
        """An independent sampler in this one's state: its own state, workspace (and particles)
        and generator, so it continues exactly as this one would (the same draws), while this
        one goes on unchanged. It shares the callbacks (the same Python callables or
        :class:`Raw` functions and user data), as ``sgs_*_copy`` does in C. ``.info`` is copied.
        Raises :class:`InvalidInput` (``SGS_ERR_BUSY``) while this sampler is running."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.pop("partial", None)
        new._lock = threading.Lock()
        new.info = replace(self.info)
        self._acquire("copy")
        try:
            self._copy_state_into(new)
        finally:
            self._lock.release()
        return new

    def __deepcopy__(self, memo):
        """The same as :meth:`__copy__`: the callbacks stay shared (the C state holds their
        addresses; a callable cannot be copied into the library)."""
        return self.__copy__()

    def __reduce__(self):
        raise TypeError(f"sgsample.{type(self).__name__} cannot be pickled: its state points to "
                        "live callbacks and buffers of this process; copy.copy() gives an "
                        "independent sampler in the same process")

    def _acquire(self, where):
        if not self._lock.acquire(blocking=False):
            raise _invalid(where, "the sampler is in use (called from one of its own callbacks, "
                           "or from another thread while a call runs): one thread at a time per "
                           "sampler", "SGS_ERR_BUSY")

    def _chunks(self, total, call):
        done, k = 0, 1
        while done < total:
            k = min(k, total - done)
            t = time.perf_counter()
            got = call(done, k)
            done += got
            dt = time.perf_counter() - t
            k = max(1, min(k * 4, int(k * self.chunk_seconds / dt) if dt > 0 else k * 4))
        return done


class _Chain(_Runner):
    _kind = ""
    _has_energy = False

    def __init__(self, theta0, grad, energy=None, *, dtype=np.float64, step_size, **options):
        self.dtype, sfx = _dtype(dtype)
        self._sfx = sfx
        self._lock = threading.Lock()
        self._raw, self._state = _new_state(self._kind, sfx)
        self._cfg = self._make_config(step_size, options)
        _no_complex(theta0, "theta0", f"sgs_{self._kind}_init{sfx}")
        self.theta0 = np.ascontiguousarray(theta0, dtype=self.dtype)
        if self.theta0.ndim != 1:
            raise _invalid(f"sgs_{self._kind}_init{sfx}",
                           f"theta0 must be a vector, got shape {self.theta0.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        self.dim = d = self.theta0.size
        ws_len = self._workspace_len(d)
        self._ws = np.zeros(max(1, ws_len), dtype=self.dtype)
        slots = {"energy": energy} if self._has_energy else {}
        slots["gradient"] = grad
        self._cb = _Callbacks(self.dtype, sfx, **slots)
        ct = "float *" if sfx else "double *"
        args = [self._state, self._cfg, _ptr(ct, self.theta0), d, _ptr(ct, self._ws), ws_len]
        args += list(self._cb.fns.values()) + [self._cb.user_data]
        st = self._fn("init")(*args)
        self._cb.reraise()
        _check(st, f"sgs_{self._kind}_init{sfx}")
        self.info = RunInfo(sampler=self._kind)

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
        return None

    def _make_config(self, step_size, options):
        return _config(self._kind, (step_size,), options, self._enums())

    @staticmethod
    def _annotate(samplers, result):
        """What :func:`_chains` adds to a finished run's result (AMAGOLD: the warm-up)."""

    def _workspace_len(self, d):
        return self._fn("workspace_len")(d)

    @property
    def position(self):
        """A copy of the current position, shape ``(dim,)``."""
        out = np.empty(self.dim, self.dtype)
        self._acquire("position")
        try:
            st = self._fn("position")(self._state, _ptr(self._ct, out), self.dim)
        finally:
            self._lock.release()
        _check(st, "position")
        return out

    @property
    def _ct(self):
        return "float *" if self._sfx else "double *"

    def run(self, draws):
        """Runs ``draws`` outer iterations; returns their positions, shape ``(draws, dim)``.

        ``draws``: a non-negative integer (else :class:`InvalidInput`)."""
        where = f"sgs_{self._kind}_run{self._sfx}"
        draws = _count(draws, "draws", where)
        self._acquire(where)
        try:
            return self._run(draws, where)
        finally:
            self._lock.release()

    def _run(self, draws, where):
        out = np.empty((draws, self.dim), self.dtype)
        t0 = time.perf_counter()

        def call(start, k):
            row = out[start:]
            # The library writes *done and *summary (also when it stops early) unless it
            # refuses the call before running anything (SGS_ERR_BUSY, a bad pointer): fresh
            # zeroed ones per call, so that what is added to .info is what this call did, never
            # the totals of an earlier chunk.
            summary = ffi.new(f"sgs_{self._kind}_run_summary *")
            done = ffi.new("size_t *")
            st = self._fn("run")(self._state, k, _ptr(self._ct, row), k * self.dim, done, summary)
            self._account(summary)
            if st != 0:
                self.partial = out[: start + done[0]]
                self.info.seconds += time.perf_counter() - t0
                self._cb.reraise()
                _check(st, where)
            return done[0]

        self._chunks(draws, call)
        self.info.seconds += time.perf_counter() - t0
        return out

    def _account(self, s):
        i = self.info
        i.iterations += s.iterations
        i.accepted += s.accepted
        i.divergences += s.divergences
        if i.iterations:
            i.accept_rate = i.accepted / i.iterations


# ---------------------------------------------------------------------------------------------
# AMAGOLD: mass matrices, the warm-up and its report (sgs_amagold_config.mass / approach /
# jitter_steps, sgs_amagold_set_…, sgs_amagold_warmup_report, sgs_amagold_warmup_compare)


def _names(prefix, exclude=None):
    """``{value: name}`` of the header's ``#define <prefix>NAME value`` constants (those not
    starting with ``exclude``), names lowered (``SGS_PHASE_SLOW`` → ``"slow"``): nothing here
    copies a value from the header."""
    return {v: k[len(prefix):].lower() for k, v in header.defines.items()
            if k.startswith(prefix) and isinstance(v, int)
            and not (exclude and k.startswith(exclude))}


_MASS_NAMES = _names("SGS_MASS_")                      # 0 "unit", 1 "diagonal", 2 "dense"
_PHASE_NAMES = _names("SGS_PHASE_")                    # "sampling", "approach", "fast", …
_VERDICT_NAMES = _names("SGS_WARMUP_", "SGS_WARMUP_REASON_")  # "none", "running", "ok", …
_REASON_NAMES = _names("SGS_WARMUP_REASON_")           # bit → "energy_trend", "acceptance", …


def _reason_names(flags):
    """The names of the ``SGS_WARMUP_REASON_…`` bits set in ``flags``, in bit order (a bit the
    header does not name, from a newer library, as ``"0x…"``)."""
    names = []
    bit = 1
    while bit <= flags:
        if flags & bit:
            names.append(_REASON_NAMES.get(bit, f"{bit:#x}"))
        bit <<= 1
    return tuple(names)


@dataclass(frozen=True)
class WarmupReport:
    """What an AMAGOLD chain's warm-up did, and whether its end looks like the typical set: the C
    ``sgs_warmup_report`` (docs/algorithms.md §1.8), read-only.

    ``verdict`` is ``"none"`` (no warm-up), ``"running"`` (the statistics so far), ``"ok"`` or
    ``"suspect"``; ``reasons`` names the ``SGS_WARMUP_REASON_…`` flags behind a suspect verdict
    (``"energy_trend"``, ``"acceptance"``, ``"divergences"``, ``"low_bfmi"``,
    ``"chains_disagree"`` (only from :func:`warmup_compare`), ``"metric"``), and
    ``reason_flags`` is the bitwise value; ``approach_unfinished`` (informational, not a reason)
    says the approach stopped at its cap still far from the mode. The other fields are the C struct's,
    under its names: the final ε and the target δ; over the final window the mean acceptance
    probability, the energy's mean, sd, trend z and pair counts, its BFMI, the divergences; over
    the whole warm-up the iterations (of which the approach's), the divergences, the approach's
    start and end energies, metric updates and restarts; the inverse mass matrix's condition
    number."""

    verdict: str
    reasons: tuple
    step_size: float
    target_accept: float
    accept_rate: float
    energy_trend_z: float
    energy_mean: float
    energy_sd: float
    bfmi: float
    condition_number: float
    approach_energy_start: float
    approach_energy_end: float
    iterations: int
    approach_iterations: int
    divergences: int
    window_iterations: int
    window_divergences: int
    metric_updates: int
    restarts: int
    energy_trend_falling: int
    energy_trend_rising: int
    approach_unfinished: int
    reason_flags: int

    @property
    def ok(self):
        """True when the verdict is ``"ok"``."""
        return self.verdict == "ok"


def _report_of(r):
    """A :class:`WarmupReport` from a ``sgs_warmup_report`` cdata."""
    values = {name: getattr(r, name) for _, name, _ in header.structs["sgs_warmup_report"]
              if name not in ("verdict", "reasons", "reserved")}
    return WarmupReport(verdict=_VERDICT_NAMES.get(r.verdict, str(r.verdict)),
                        reasons=_reason_names(r.reasons), reason_flags=int(r.reasons), **values)


def warmup_compare(chains):
    """The warm-up reports of the :class:`AMAGOLD` chains of one model, compared
    (``sgs_amagold_warmup_compare``): a list of :class:`WarmupReport`, one per chain in order,
    each with its own verdict plus ``"chains_disagree"`` (verdict ``"suspect"``) where a chain's
    final-window mean energy is more than 2 median energy sds from the chains' median, or, with a
    mass matrix, the final windows' positions give an R-hat above 1.1 in some coordinate (then in
    every chain). The chains must have one dtype (else :class:`InvalidInput`
    ``SGS_ERR_INVALID_ARGUMENT``) and one dimension (``SGS_ERR_LENGTH_MISMATCH``); none at all is
    ``SGS_ERR_ZERO_DIMENSION``. Each chain's lock is held during the call (``SGS_ERR_BUSY`` if
    one is running)."""
    chains = list(chains)
    where = "sgs_amagold_warmup_compare"
    if not chains:
        raise _invalid(where, "at least one AMAGOLD chain is needed", "SGS_ERR_ZERO_DIMENSION")
    for c in chains:
        if not isinstance(c, AMAGOLD):
            raise _invalid(where, f"chains must be sgsample.AMAGOLD samplers, got "
                           f"{type(c).__name__}")
    sfx = chains[0]._sfx
    if any(c._sfx != sfx for c in chains):
        raise _invalid(where, "the chains must all have one dtype (float64 or float32)")
    where += sfx
    taken = []
    try:
        for c in {id(c): c for c in chains}.values():  # a chain given twice is locked once
            c._acquire(where)
            taken.append(c)
        states = ffi.new(f"sgs_amagold{sfx} *[]", [c._state for c in chains])
        out = ffi.new("sgs_warmup_report[]", len(chains))
        st = getattr(lib, "sgs_amagold_warmup_compare" + sfx)(
            ffi.cast(f"const sgs_amagold{sfx} *const *", states), len(chains), out, len(chains))
    finally:
        for c in taken:
            c._lock.release()
    _check(st, where)
    return [_report_of(out[i]) for i in range(len(chains))]


__all__ += ["WarmupReport", "warmup_compare"]


class AMAGOLD(_Chain):
    """An AMAGOLD chain: ``energy(theta) -> float`` (full data), ``grad(theta, seed)``.

    ``AMAGOLD(energy, grad, theta0)`` is the recommended adaptive chain
    (``sgs_amagold_config_adaptive()``: a warm-up of 1000 iterations that first brings a far start
    in, then learns ε and a diagonal mass matrix; target acceptance 0.65). With ``step_size`` it
    starts from the paper's defaults at that ε instead (``sgs_amagold_config_default``: no
    warm-up, unit mass). Either way the options replace fields of ``sgs_amagold_config``:
    ``friction``, ``momentum_sd``, ``steps``, ``warmup``, ``target_accept``, ``seed``,
    ``stream``, ``variant`` (``"reversible"`` or ``"non_reversible"``), ``mass`` (``"unit"``,
    ``"diagonal"``, ``"dense"``; a warm-up of 1…19 iterations with a mass matrix is
    ``SGS_ERR_INVALID_WARMUP``), ``approach`` (``True``: the warm-up starts with the optimiser
    that brings far starts in), ``jitter_steps`` (``True``: T drawn from ⌈T/2⌉…⌊3T/2⌋ each
    iteration). ``adapt_mass=True`` is a deprecated alias of ``mass="diagonal"``.

    :meth:`run` returns every iteration's position, the warm-up's included (label them with
    ``warmup``; ``info.phase`` is the last one's phase). :attr:`step_size`,
    :attr:`inverse_mass` and :attr:`inverse_mass_dense` read and set what the warm-up learns
    (give a pilot's to a fresh chain with ``warmup=0``: its first draw is already exact);
    :meth:`warmup_report` says whether the warm-up ended in the typical set, and
    :func:`warmup_compare` compares several chains'.
    """

    _kind = "amagold"
    _has_energy = True

    def __init__(self, energy, grad, theta0, step_size=None, **kw):
        _adapt_mass_alias(kw, "AMAGOLD", stacklevel=2)
        super().__init__(theta0, grad, energy, step_size=step_size, **kw)

    def _enums(self):
        return {"variant": {"reversible": header.defines["SGS_VARIANT_REVERSIBLE"],
                            "non_reversible": header.defines["SGS_VARIANT_NON_REVERSIBLE"]},
                "mass": {name: value for value, name in _MASS_NAMES.items()}}

    def _make_config(self, step_size, options):
        if step_size is None:  # the adaptive configuration
            return _config(self._kind, (), options, self._enums(),
                           default=lib.sgs_amagold_config_adaptive)
        return super()._make_config(step_size, options)

    def _workspace_len(self, d):
        # Sized for this configuration (mass matrix, approach): sgs_amagold_workspace_len_for.
        n = self._fn("workspace_len_for")(self._cfg, d)
        if n == ffi.cast("size_t", -1):
            raise _invalid(f"sgs_amagold_workspace_len_for{self._sfx}",
                           f"the workspace of a {_MASS_NAMES.get(self._cfg.mass)} mass matrix in "
                           f"{d} dimensions does not fit in memory")
        return n

    @property
    def mass(self):
        """The chain's mass matrix kind: ``"unit"``, ``"diagonal"`` or ``"dense"``."""
        return _MASS_NAMES.get(self._cfg.mass, str(self._cfg.mass))

    # -- getters and setters: each holds the sampler's lock around its one library call ------

    def _call(self, name, *args):
        where = f"sgs_amagold_{name}{self._sfx}"
        self._acquire(where)
        try:
            st = self._fn(name)(self._state, *args)
        finally:
            self._lock.release()
        if name == "set_inverse_mass_dense" and st == _STATUS["SGS_ERR_INVALID_MASS"]:
            # The library's text names only the matrix; it also refuses during a window.
            text = ffi.string(lib.sgs_status_str(st)).decode()
            raise InvalidInput(st, where, f"{text} (or a slow or final warm-up window is "
                               "collecting draws)")
        _check(st, where)

    def _matrix(self, value, shape, what, where):
        """``value`` as a C-contiguous array of this chain's dtype and exactly ``shape``."""
        where += self._sfx
        _no_complex(value, what, where)
        try:
            a = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise _invalid(where, f"{what} must be real numbers: {e}") from None
        if a.shape != shape:
            raise _invalid(where, f"{what} must have shape {shape}, got {a.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        with np.errstate(over="ignore"):  # beyond float32's range: inf, which the library refuses
            return np.ascontiguousarray(a, dtype=self.dtype)

    @property
    def step_size(self):
        """The step size the next iteration uses (``sgs_amagold_step_size``; during the warm-up
        the one being adapted). Setting it (``sgs_amagold_set_step_size``) fixes ε for the next
        iterations, e.g. a pilot chain's on a fresh chain with ``warmup=0``; during a warm-up the
        dual averaging restarts from it. Not finite and positive: :class:`InvalidInput`
        ``SGS_ERR_INVALID_STEP_SIZE``."""
        out = ffi.new("double *")
        self._call("step_size", out)
        return out[0]

    @step_size.setter
    def step_size(self, value):
        where = f"sgs_amagold_set_step_size{self._sfx}"
        _no_complex(value, "step_size", where)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                         np.floating)):
            raise _invalid(where, f"step_size must be a real number, got {value!r}")
        self._call("set_step_size", float(value))

    @property
    def inverse_mass(self):
        """The diagonal of the inverse mass matrix relative to σ⁻², shape ``(dim,)``
        (``sgs_amagold_inverse_mass``): with σ = 1 the posterior variances the warm-up
        estimates; ones for a unit-mass chain, the diagonal of the matrix for a dense one.

        Setting it (``sgs_amagold_set_inverse_mass``; ``mass="diagonal"`` or ``"dense"``, whose
        matrix becomes diagonal) takes ``dim`` positive finite values: another shape is
        :class:`InvalidInput` ``SGS_ERR_LENGTH_MISMATCH``, a value not positive and finite
        ``SGS_ERR_INVALID_MASS``, a unit-mass chain ``SGS_ERR_MASS_MISMATCH``."""
        out = np.empty(self.dim, self.dtype)
        self._call("inverse_mass", _ptr(self._ct, out), self.dim)
        return out

    @inverse_mass.setter
    def inverse_mass(self, value):
        k = self._matrix(value, (self.dim,), "inverse_mass", "sgs_amagold_set_inverse_mass")
        self._call("set_inverse_mass", _ptr(self._ct, k), k.size)

    @property
    def inverse_mass_dense(self):
        """The whole inverse mass matrix relative to σ⁻², shape ``(dim, dim)``
        (``sgs_amagold_inverse_mass_dense``): the identity, a diagonal matrix, or the dense
        one (the posterior covariance the warm-up estimates, with σ = 1).

        Setting it (``sgs_amagold_set_inverse_mass_dense``, ``mass="dense"`` only, else
        ``SGS_ERR_MASS_MISMATCH``) takes a symmetric positive definite ``(dim, dim)`` matrix:
        another shape is :class:`InvalidInput` ``SGS_ERR_LENGTH_MISMATCH``; NaN, asymmetry
        (beyond 1e-12 relative) or a matrix that is not positive definite
        ``SGS_ERR_INVALID_MASS``, as is setting it while a slow or final warm-up window collects
        draws."""
        out = np.empty((self.dim, self.dim), self.dtype)
        self._call("inverse_mass_dense", _ptr(self._ct, out), out.size)
        return out

    @inverse_mass_dense.setter
    def inverse_mass_dense(self, value):
        k = self._matrix(value, (self.dim, self.dim), "inverse_mass_dense",
                         "sgs_amagold_set_inverse_mass_dense")
        self._call("set_inverse_mass_dense", _ptr(self._ct, k), k.size)

    def warmup_report(self):
        """The warm-up's :class:`WarmupReport` (``sgs_amagold_warmup_report``): verdict
        ``"ok"`` or ``"suspect"`` (with its ``reasons``) once the warm-up is over, ``"running"``
        with the statistics so far while it runs, ``"none"`` without one. One chain cannot see
        that it disagrees with others: :func:`warmup_compare` compares several."""
        out = ffi.new("sgs_warmup_report *")
        self._call("warmup_report", out)
        return _report_of(out[0])

    # -- runs -------------------------------------------------------------------------------

    def _account(self, s):
        super()._account(s)
        if s.has_last:
            self.info.step_size = s.last.step_size
            self.info.phase = _PHASE_NAMES.get(s.last.phase, str(s.last.phase))

    @staticmethod
    def _annotate(samplers, result):
        # sgsample.amagold(): each chain's learnt metric and warm-up report in its info, and the
        # chains' reports compared in result.warmup (when the run has a warm-up).
        for s in samplers:
            if s._cfg.mass != header.defines["SGS_MASS_UNIT"]:
                s.info.inverse_mass = s.inverse_mass
            if s._cfg.mass == header.defines["SGS_MASS_DENSE"]:
                s.info.inverse_mass_dense = s.inverse_mass_dense
            if s._cfg.warmup > 0:
                s.info.warmup_report = s.warmup_report()
        if any(s._cfg.warmup > 0 for s in samplers):
            try:
                result.warmup = warmup_compare(samplers)
            except Error as e:
                # The draws are not lost for want of a comparison (the library refuses more
                # chains per call than it can compare at once): each info keeps its own report.
                import warnings

                warnings.warn(f"the {len(samplers)} chains' warm-ups were not compared "
                              f"(result.warmup is None): {e}", RuntimeWarning, stacklevel=4)


def _adapt_mass_alias(kw, where, stacklevel):
    """Replaces the deprecated ``adapt_mass`` option in ``kw`` by ``mass`` (``True`` →
    ``"diagonal"``, ``False`` → ``"unit"``) with a :class:`DeprecationWarning`; another value, or
    a ``mass`` that says otherwise, is :class:`InvalidInput` ``SGS_ERR_INVALID_OPTION``."""
    if "adapt_mass" not in kw:
        return
    import warnings

    value = kw.pop("adapt_mass")
    warnings.warn("adapt_mass is deprecated: use mass='diagonal' (or mass='unit' for "
                  "adapt_mass=False)", DeprecationWarning, stacklevel=stacklevel + 1)
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))
                                               and value in (0, 1)):
        mass = "diagonal" if value else "unit"
    else:
        raise _invalid(f"sgs_amagold_config ({where})", f"adapt_mass must be True or False, got "
                       f"{value!r}", "SGS_ERR_INVALID_OPTION")
    given = kw.get("mass", mass)
    if _MASS_NAMES.get(given, given) != mass:
        raise _invalid(f"sgs_amagold_config ({where})", f"adapt_mass={value!r} contradicts "
                       f"mass={given!r} (adapt_mass is a deprecated alias of mass='diagonal')",
                       "SGS_ERR_INVALID_OPTION")
    kw["mass"] = mass


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


_SVGD_ENUMS = {
    "batching": {"without_replacement": header.defines["SGS_BATCHING_WITHOUT_REPLACEMENT"],
                 "with_replacement": header.defines["SGS_BATCHING_WITH_REPLACEMENT"]},
    "kernel": {"gaussian": header.defines["SGS_KERNEL_GAUSSIAN"],
               "gaussian_median": header.defines["SGS_KERNEL_GAUSSIAN_MEDIAN"],
               "imq": header.defines["SGS_KERNEL_IMQ"]},
    "step_rule": {"constant": header.defines["SGS_STEP_RULE_CONSTANT"],
                  "decaying": header.defines["SGS_STEP_RULE_DECAYING"],
                  "adagrad": header.defines["SGS_STEP_RULE_ADAGRAD"]},
    "ksd": {"off": header.defines["SGS_KSD_OFF"], "batch": header.defines["SGS_KSD_BATCH"],
            "full": header.defines["SGS_KSD_FULL"]},
    "scale": {"none": header.defines["SGS_SCALE_NONE"],
              "particles": header.defines["SGS_SCALE_PARTICLES"],
              "fixed": header.defines["SGS_SCALE_FIXED"]},
}


class SVGD(_Runner):
    """SVGD / RBM-SVGD on ``particles`` (shape ``(N, d)``, copied; row i is particle i).

    Give ``grad(x, seed)`` (one particle) or ``grads(X, seed)`` (all N at once, ``X`` of shape
    ``(N, d)``, returns ``(N, d)``), or :class:`Raw` for either. ``batch_size`` p (default N:
    full SVGD), ``step_size`` η; options are the fields of ``sgs_svgd_config``: ``bandwidth``,
    ``kernel`` (``"gaussian"``, ``"gaussian_median"``, ``"imq"``), ``step_rule`` (``"adagrad"``,
    ``"constant"``, ``"decaying"``), ``adagrad_alpha``, ``batching``, ``imq_c``, ``imq_beta``,
    ``seed``, ``stream``, ``ksd`` (``"off"``, ``"batch"``, ``"full"``: the kernelized Stein
    discrepancy of the last iteration's particles in ``info.ksd_squared``), ``ksd_c``,
    ``ksd_beta``, ``scale`` (``"none"``; ``"particles"``: SVGD in coordinates standardised by
    the particles' mean and sd, recomputed every iteration, so that the bandwidth and the step
    are relative to the particles' spread, for problems whose coordinates are on different
    scales; ``"fixed"``: scales given by :meth:`set_scale`; docs/algorithms.md §2.7).

    A gradient callback that raises :class:`OutOfDomain` stops the run with :class:`Error`
    ``SGS_ERR_GRADIENT_REJECTED`` (particles of the last completed iteration).
    """

    def __init__(self, particles, grad=None, *, grads=None, batch_size=None, step_size,
                 dtype=np.float64, **options):
        self.dtype, sfx = _dtype(dtype)
        self._sfx = sfx
        self._lock = threading.Lock()
        self._ct = "float *" if sfx else "double *"
        _no_complex(particles, "particles", "sgs_svgd_init")
        x = np.array(particles, dtype=self.dtype, order="C", copy=True)
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2:
            raise _invalid(f"sgs_svgd_init{sfx}", f"particles must have shape (N, d), got {x.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        self._x = x
        n, d = x.shape
        self.n, self.dim = n, d
        self._raw, self._state = _new_state("svgd", sfx)
        self._cfg = _config("svgd", (n if batch_size is None else batch_size, step_size), options,
                            _SVGD_ENUMS)
        wl = getattr(lib, f"sgs_svgd_workspace_len{sfx}")(n, d, self._cfg)
        il = getattr(lib, f"sgs_svgd_index_len{sfx}")(n)
        if wl == ffi.cast("size_t", -1):
            raise InvalidInput(dict(header.enums["sgs_status"])["SGS_ERR_INVALID_ARGUMENT"],
                               "sgs_svgd_workspace_len (size overflows)")
        self._ws = np.zeros(max(1, wl), self.dtype)
        self._idx = np.zeros(max(1, il), np.uint32)
        self._cb = _Callbacks(self.dtype, sfx, gradient=grad, gradients=grads)
        st = getattr(lib, f"sgs_svgd_init{sfx}")(
            self._state, self._cfg, _ptr(self._ct, x), n, d, _ptr(self._ct, self._ws), wl,
            _ptr("uint32_t *", self._idx), il, self._cb.fns["gradient"],
            self._cb.fns["gradients"], self._cb.user_data)
        self._cb.reraise()
        _check(st, f"sgs_svgd_init{sfx}")
        self.info = RunInfo(sampler="svgd")

    def set_scale(self, scale):
        """Sets the fixed scales (``d`` finite positive values, e.g. a pilot run's posterior sds)
        of a system made with ``scale="fixed"`` (else :class:`InvalidInput`,
        ``SGS_ERR_INVALID_OPTION``)."""
        where = f"sgs_svgd_set_scale{self._sfx}"
        _no_complex(scale, "scale", where)
        s = np.array(scale, dtype=self.dtype, order="C", copy=True).reshape(-1)
        self._acquire(where)
        try:
            _check(getattr(lib, where)(self._state, _ptr(self._ct, s), s.size), where)
        finally:
            self._lock.release()

    @property
    def particles(self):
        """A copy of the particles, shape ``(N, d)``."""
        self._acquire("particles")  # the library writes them in place during a run
        try:
            return self._x.copy()
        finally:
            self._lock.release()

    def run(self, iterations):
        """Runs ``iterations`` iterations; returns the particles (a copy).

        ``iterations``: a non-negative integer (else :class:`InvalidInput`)."""
        where = f"sgs_svgd_run{self._sfx}"
        iterations = _count(iterations, "iterations", where)
        self._acquire(where)
        try:
            self._run(iterations, where)
            return self._x.copy()
        finally:
            self._lock.release()

    def _run(self, iterations, where):
        t0 = time.perf_counter()
        last = []

        def call(start, k):
            # A fresh zeroed summary per call: a call the library refuses before running
            # (SGS_ERR_BUSY) leaves it untouched, and then adds nothing to .info.
            summary = ffi.new("sgs_svgd_run_summary *")
            st = getattr(lib, f"sgs_svgd_run{self._sfx}")(self._state, k, summary)
            self.info.iterations += summary.iterations
            if summary.iterations:
                last[:] = [summary.last.step_size, summary.last.ksd_squared]
            if st != 0:
                self.info.seconds += time.perf_counter() - t0
                self._set_last(last)
                self._cb.reraise()
                _check(st, where)
            return summary.iterations

        self._chunks(iterations, call)
        self.info.seconds += time.perf_counter() - t0
        self._set_last(last)

    def _set_last(self, last):
        if last:
            self.info.step_size, self.info.ksd_squared = last

    def _copy_state_into(self, new):
        sfx = self._sfx
        where = f"sgs_svgd_copy{sfx}"
        new._raw, new._state = _new_state("svgd", sfx)
        new._x = np.empty_like(self._x)
        new._ws = np.zeros_like(self._ws)
        new._idx = np.zeros_like(self._idx)
        wl = getattr(lib, f"sgs_svgd_workspace_len{sfx}")(self.n, self.dim, self._cfg)
        il = getattr(lib, f"sgs_svgd_index_len{sfx}")(self.n)
        _check(getattr(lib, where)(new._state, _ptr(self._ct, new._x), new._x.size,
                                   _ptr(self._ct, new._ws), wl, _ptr("uint32_t *", new._idx), il,
                                   self._state), where)


def svgd(particles, iterations, grad=None, *, grads=None, **kw):
    """Runs :class:`SVGD` for ``iterations``; returns ``(particles, RunInfo)``."""
    s = SVGD(particles, grad, grads=grads, **kw)
    return s.run(iterations), s.info


def ksd(particles, grads, *, batch_size=None, c=1.0, beta=-0.5, seed=0, stream=0):
    """KSD² of ``particles`` (shape ``(N, d)``) whose gradients ∇V are ``grads`` (same shape):
    the full V-statistic (``batch_size`` None), or the unbiased random-batch estimate with
    batches of ``batch_size`` over the permutation that ``(seed, stream)`` draws. The IMQ base
    kernel ``(c² + r²)^beta``. The KSD is the square root (the batch estimate may be < 0)."""
    _no_complex(particles, "particles", "ksd")
    _no_complex(grads, "grads", "ksd")
    x = np.array(particles, dtype=np.float64)
    g = np.array(grads, dtype=np.float64, order="C")
    if x.ndim not in (1, 2):
        raise _invalid("ksd", f"particles must have shape (N, d) or (N,), got {x.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    if g.shape != x.shape:
        # Exactly the particles' shape: a transposed or flattened array would be read as other
        # gradients without any error.
        raise _invalid("ksd", f"grads must have the particles' shape {x.shape}, got {g.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    x = np.ascontiguousarray(x[:, None] if x.ndim == 1 else x)
    g = g.reshape(x.shape)
    n, d = x.shape
    seed = _count(seed, "seed", "ksd")
    stream = _count(stream, "stream", "ksd")
    if batch_size is not None:
        batch_size = _count(batch_size, "batch_size", "ksd")
    out = ffi.new("double *")
    xp, gp = _ptr("double *", x), _ptr("double *", g)
    if batch_size is None:
        _check(lib.sgs_ksd_full(xp, n, d, gp, c, beta, out), "sgs_ksd_full")
    else:
        idx = np.zeros(max(1, n), np.uint32)
        _check(lib.sgs_ksd_batch(xp, n, d, gp, batch_size, c, beta, seed, stream,
                                 _ptr("uint32_t *", idx), idx.size, out), "sgs_ksd_batch")
    return out[0]


def minibatch(seed, n, size):
    """The library's minibatch for ``seed``: ``size`` distinct indices in ``0..n`` (uint64)."""
    seed = _count(seed, "seed", "sgs_minibatch")
    n = _count(n, "n", "sgs_minibatch")
    out = np.empty(_count(size, "size", "sgs_minibatch"), np.uint64)
    _check(lib.sgs_minibatch(seed, n, _ptr("uint64_t *", out), out.size), "sgs_minibatch")
    return out


# ---------------------------------------------------------------------------------------------
# Streaming diagnostics (sgs_stats_…)


class Stats:
    """Streaming ESS, MCSE and split-R-hat of ``d`` coordinates, in the library's accumulators.

    ``push`` takes one draw (``d`` values) or an array of draws ``(n, d)``; nothing is stored but
    the fixed-size accumulators. ``mean()``, ``variance()``, ``ess()``, ``ess_flags()``, ``mcse()``
    return one value per coordinate; :func:`ess`, :func:`ess_flags` and :func:`rhat` combine
    several chains' ``Stats``. The ESS never overstates: where ``ess_flags()`` is not 0 it is a
    lower-confidence, deliberately conservative value (``SGS_STATS_ESS_BEYOND_WINDOW``: from the
    batch means; ``SGS_STATS_ESS_SHORT_CHAIN``: discounted, 0 when the chain is too short against
    its autocorrelation time to tell, and then the MCSE is ``inf``).
    Not locked: use one ``Stats`` from one thread at a time.
    """

    # The accumulators' layout, stored in pickles: a state pickled with another layout is refused
    # (2: the ESS batch means added to each accumulator).
    _FORMAT = 2

    def __init__(self, d):
        self._alloc(_count(d, "d", "sgs_stats_state_size"))
        _check(lib.sgs_stats_init(self._state, self._size, self.d), "sgs_stats_init")

    def _alloc(self, d):
        self.d = d
        size = ffi.new("size_t *")
        _check(lib.sgs_stats_state_size(self.d, size), "sgs_stats_state_size")
        self._size = size[0]
        align = lib.sgs_stats_state_align()
        self._raw = ffi.new("char[]", self._size + align)
        addr = int(ffi.cast("uintptr_t", self._raw))
        self._state = ffi.cast("sgs_stats *", addr + (-addr) % align)

    def _bytes(self):
        return bytes(ffi.buffer(self._state, self._size))

    def _load(self, d, data):
        self._alloc(d)
        if len(data) != self._size:
            raise _invalid("Stats", f"{len(data)} bytes given, a state of d = {d} has "
                           f"{self._size} here", "SGS_ERR_WORKSPACE_TOO_SMALL")
        ffi.memmove(self._state, data, self._size)
        # The library checks the loaded head (SGS_ERR_NOT_INITIALISED, SGS_ERR_STATE_CORRUPTED).
        _check(lib.sgs_stats_count(self._state, ffi.new("uint64_t *")), "Stats")

    def __copy__(self):
        """An independent copy (the state holds no pointers: its bytes are the copy)."""
        new = object.__new__(Stats)
        new._load(self.d, self._bytes())
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __getstate__(self):
        # Pickling (e.g. to send per-process Stats back through multiprocessing): the state's
        # bytes, valid for the same library version on a machine of the same byte order.
        return {"d": self.d, "version": __version__, "format": Stats._FORMAT,
                "byteorder": sys.byteorder, "state": self._bytes()}

    def __setstate__(self, st):
        if (st.get("version") != __version__ or st.get("format") != Stats._FORMAT
                or st.get("byteorder") != sys.byteorder):
            raise _invalid("Stats", f"a state pickled by sgsample {st.get('version')} "
                           f"(state format {st.get('format', 1)}, {st.get('byteorder')}-endian) "
                           f"cannot be loaded by {__version__} (state format {Stats._FORMAT}, "
                           f"{sys.byteorder}-endian)", "SGS_ERR_STATE_CORRUPTED")
        self._load(st["d"], st["state"])

    def push(self, x):
        """Adds one draw (shape ``(d,)``) or several (shape ``(n, d)``), in order.

        Any other shape raises :class:`InvalidInput` (``SGS_ERR_LENGTH_MISMATCH``): a ``(d, n)``
        array is not transposed, a stack of chains is not flattened (use one ``Stats`` per
        chain). A draw with a NaN or infinite coordinate raises :class:`InvalidInput`
        (``SGS_ERR_NON_FINITE``) naming the row, and then none of the draws of this call is
        pushed."""
        a = np.asarray(x)
        _no_complex(a, "draws", "sgs_stats_push")
        dt, suffix = _dtype(a.dtype if a.dtype == np.float32 else np.float64)
        where = "sgs_stats_push" + suffix
        if not (a.shape == (self.d,) or (a.ndim == 2 and a.shape[1] == self.d)):
            raise _invalid(where, f"draws must have shape ({self.d},) or (n, {self.d}), "
                           f"got {a.shape}", "SGS_ERR_LENGTH_MISMATCH")
        a = np.ascontiguousarray(a, dtype=dt).reshape(-1, self.d)
        bad = np.flatnonzero(~np.isfinite(a).all(axis=1))
        if bad.size:
            raise _invalid(where, f"draw {bad[0]} (row {bad[0]} of the {a.shape[0]} given) has a "
                           "NaN or infinite coordinate; nothing was pushed",
                           "SGS_ERR_NON_FINITE")
        push = getattr(lib, "sgs_stats_push" + suffix)
        ctype = "double *" if suffix == "" else "float *"
        for row in a:
            _check(push(self._state, _ptr(ctype, row), self.d), where)
        return self

    @property
    def count(self):
        """Draws pushed so far."""
        n = ffi.new("uint64_t *")
        _check(lib.sgs_stats_count(self._state, n), "sgs_stats_count")
        return int(n[0])

    def _get(self, name, dtype=np.float64, ctype="double *"):
        out = np.empty(self.d, dtype=dtype)
        _check(getattr(lib, "sgs_stats_" + name)(self._state, _ptr(ctype, out), out.size),
               "sgs_stats_" + name)
        return out

    def mean(self):
        """Mean of each coordinate's draws."""
        return self._get("mean")

    def variance(self):
        """Sample variance (ddof 1) of each coordinate's draws."""
        return self._get("variance")

    def ess(self):
        """Effective sample size of each coordinate (this chain alone; see :meth:`ess_flags`)."""
        return self._get("ess")

    def ess_flags(self):
        """Flags of each coordinate's :meth:`ess` (``uint32``): 0 when it is ArviZ's unsplit
        estimate on a chain long against its autocorrelation time, else a bitwise or of
        ``SGS_STATS_ESS_BEYOND_WINDOW`` and ``SGS_STATS_ESS_SHORT_CHAIN`` (``sgs_stats_ess_flags``):
        a lower-confidence value."""
        return self._get("ess_flags", np.uint32, "uint32_t *")

    def mcse(self):
        """Monte Carlo standard error of each coordinate's mean (``inf`` where the ESS is 0)."""
        return self._get("mcse")


def _across(fn, stats, dtype=np.float64, ctype="double *"):
    stats = list(stats)
    if not stats:
        raise _invalid(fn, "at least one Stats is needed")
    arr = ffi.new("sgs_stats *[]", [s._state for s in stats])
    out = np.empty(stats[0].d, dtype=dtype)
    _check(getattr(lib, fn)(ffi.cast("const sgs_stats *const *", arr), len(stats),
                            _ptr(ctype, out), out.size), fn)
    return out


def ess(stats):
    """ESS of each coordinate over several chains' :class:`Stats` (``sgs_stats_ess_chains``; see
    :func:`ess_flags`)."""
    return _across("sgs_stats_ess_chains", stats)


def ess_flags(stats):
    """Flags of :func:`ess` over the same chains (``uint32``, ``sgs_stats_ess_chains_flags``): 0
    where the ESS is ArviZ's unsplit estimate on chains long against their autocorrelation time,
    else ``SGS_STATS_ESS_BEYOND_WINDOW`` and/or ``SGS_STATS_ESS_SHORT_CHAIN``."""
    return _across("sgs_stats_ess_chains_flags", stats, np.uint32, "uint32_t *")


def rhat(stats):
    """Split-R-hat of each coordinate over several chains' :class:`Stats` (``sgs_stats_rhat``)."""
    return _across("sgs_stats_rhat", stats)


# ---------------------------------------------------------------------------------------------
# Diagnostics of stored draws (sgs_draws_…): rank-normalised split-R-hat, bulk/tail ESS, MCSE


def _c_dtype(struct):
    """The numpy dtype of a header struct, at the C offsets (``reserved`` fields left out)."""
    kinds = {"double": "<f8", "uint32_t": "<u4", "uint64_t": "<u8"}
    names, formats, offsets = [], [], []
    for ctype, name, _ in header.structs[struct]:
        if name == "reserved":
            continue
        names.append(name)
        formats.append(kinds[ctype])
        offsets.append(ffi.offsetof(struct, name))
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": ffi.sizeof(struct)})


DRAWS_STATS_DTYPE = _c_dtype("sgs_draws_stats")

Summary = make_dataclass("Summary", [(name, object) for name in DRAWS_STATS_DTYPE.names])
Summary.__module__ = __name__
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
