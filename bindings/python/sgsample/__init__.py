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
from dataclasses import asdict, dataclass, field, replace
from typing import Optional

import cffi
import numpy as np

from . import _header

__all__ = [
    "AMAGOLD", "SGHMC", "SGLD", "SVGD", "Raw", "Result", "RunInfo", "Error", "InvalidInput",
    "OutOfDomain", "amagold", "sghmc", "sgld", "svgd", "ksd", "minibatch", "version", "Stats", "ess",
    "rhat",
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
    inverse_mass: Optional[np.ndarray] = None  # AMAGOLD with adapt_mass: the learnt diagonal


@dataclass
class Result:
    """Samples ``(chains, draws, dim)`` and one :class:`RunInfo` per chain."""

    samples: np.ndarray
    info: list = field(default_factory=list)

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


def _config(kind, default_args, options, enums=None):
    cfg = ffi.new(f"sgs_{kind}_config *")
    where = f"sgs_{kind}_config"
    default = getattr(lib, f"sgs_{kind}_config_default")
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
        self._cfg = _config(self._kind, (step_size,), options, self._enums())
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


class AMAGOLD(_Chain):
    """An AMAGOLD chain: ``energy(theta) -> float`` (full data), ``grad(theta, seed)``.

    Options (fields of ``sgs_amagold_config``): ``friction``, ``momentum_sd``, ``steps``,
    ``warmup``, ``target_accept``, ``seed``, ``stream``, ``variant`` (``"reversible"`` or
    ``"non_reversible"``), ``adapt_mass`` (``True``: estimate a diagonal mass matrix during the
    warm-up, which must then be at least 20 iterations; read it with :attr:`inverse_mass`).
    """

    _kind = "amagold"
    _has_energy = True

    def __init__(self, energy, grad, theta0, **kw):
        super().__init__(theta0, grad, energy, **kw)

    def _enums(self):
        return {"variant": {"reversible": header.defines["SGS_VARIANT_REVERSIBLE"],
                            "non_reversible": header.defines["SGS_VARIANT_NON_REVERSIBLE"]}}

    def _workspace_len(self, d):
        # 10·d with a mass matrix (sgs_amagold_workspace_len_mass), else 6·d.
        return self._fn("workspace_len_mass" if self._cfg.adapt_mass else "workspace_len")(d)

    @property
    def inverse_mass(self):
        """The diagonal inverse mass relative to σ⁻² (``sgs_amagold_inverse_mass``): per coordinate,
        σ² times the variance estimated by the warm-up (all ones before its first window ends, and
        without ``adapt_mass``)."""
        out = np.empty(self.dim, self.dtype)
        where = f"sgs_amagold_inverse_mass{self._sfx}"
        self._acquire(where)
        try:
            st = self._fn("inverse_mass")(self._state, _ptr(self._ct, out), self.dim)
        finally:
            self._lock.release()
        _check(st, where)
        return out

    def _account(self, s):
        super()._account(s)
        if s.has_last:
            self.info.step_size = s.last.step_size


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
    samples, info = [], []
    for c in range(chains):
        s = cls(*args, starts[c], seed=seed, stream=stream + c, dtype=dtype, **kw)
        samples.append(s.run(draws))
        if kw.get("adapt_mass"):
            s.info.inverse_mass = s.inverse_mass
        info.append(s.info)
    return Result(np.stack(samples), info)


def amagold(energy, grad, theta0, draws, *, chains=1, seed=0, stream=0, dtype=np.float64, **kw):
    """``chains`` AMAGOLD chains (streams ``stream``, ``stream+1``, …) → :class:`Result`."""
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
    the fixed-size accumulators. ``mean()``, ``variance()``, ``ess()``, ``mcse()`` return one value
    per coordinate; :func:`ess` and :func:`rhat` combine several chains' ``Stats``.
    Not locked: use one ``Stats`` from one thread at a time.
    """

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
        return {"d": self.d, "version": __version__, "byteorder": sys.byteorder,
                "state": self._bytes()}

    def __setstate__(self, st):
        if st.get("version") != __version__ or st.get("byteorder") != sys.byteorder:
            raise _invalid("Stats", f"a state pickled by sgsample {st.get('version')} "
                           f"({st.get('byteorder')}-endian) cannot be loaded by {__version__} "
                           f"({sys.byteorder}-endian)", "SGS_ERR_STATE_CORRUPTED")
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

    def _get(self, name):
        out = np.empty(self.d)
        _check(getattr(lib, "sgs_stats_" + name)(self._state, _ptr("double *", out), out.size),
               "sgs_stats_" + name)
        return out

    def mean(self):
        """Mean of each coordinate's draws."""
        return self._get("mean")

    def variance(self):
        """Sample variance (ddof 1) of each coordinate's draws."""
        return self._get("variance")

    def ess(self):
        """Effective sample size of each coordinate (this chain alone)."""
        return self._get("ess")

    def mcse(self):
        """Monte Carlo standard error of each coordinate's mean."""
        return self._get("mcse")


def _across(fn, stats):
    stats = list(stats)
    if not stats:
        raise _invalid(fn, "at least one Stats is needed")
    arr = ffi.new("sgs_stats *[]", [s._state for s in stats])
    out = np.empty(stats[0].d)
    _check(getattr(lib, fn)(ffi.cast("const sgs_stats *const *", arr), len(stats),
                            _ptr("double *", out), out.size), fn)
    return out


def ess(stats):
    """ESS of each coordinate over several chains' :class:`Stats` (``sgs_stats_ess_chains``)."""
    return _across("sgs_stats_ess_chains", stats)


def rhat(stats):
    """Split-R-hat of each coordinate over several chains' :class:`Stats` (``sgs_stats_rhat``)."""
    return _across("sgs_stats_rhat", stats)
