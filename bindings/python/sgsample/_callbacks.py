"""Callbacks handed to C: Python trampolines, :class:`Raw` function pointers and their user data."""

import threading

import numpy as np

from . import _interrupt
from ._lib import _CB_ABORT, _CB_OK, _CB_REJECT, OutOfDomain, _invalid, _real_array, ffi


# ---------------------------------------------------------------------------------------------
# Callbacks: static trampolines; the Python callables travel as user_data (an ffi handle).


class _Py:
    """What a trampoline finds behind ``user_data``: the user's callables and the first error.

    The error is kept per thread: a copy of a sampler (``copy.copy``) shares its callbacks, as
    ``sgs_*_copy`` does in C, and the two may run at the same time on two threads; each run
    re-raises the error of its own callbacks (a run's callbacks run on the thread that called
    it)."""

    __slots__ = ("energy", "grad", "grads", "diffs", "exact", "dtype", "_local", "__weakref__")

    def __init__(self, energy, grad, grads, dtype):
        self.energy, self.grad, self.grads, self.dtype = energy, grad, grads, dtype
        self.diffs = self.exact = None  # TunaMH's differences(theta, proposal, indices), exact
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
    arr = np.ascontiguousarray(_real_array(value, what), dtype=dtype)
    if arr.shape != shape:
        raise ValueError(f"{what} returned shape {arr.shape}, expected {shape}")
    ffi.memmove(out, arr, arr.nbytes)


def _energy_value(value, what="energy"):
    # A number, a 0-d array or an array of one element (e.g. `x @ A @ x` on a (1, d) row, or a
    # sum with keepdims): numpy 2 refuses float() on the last; anything larger is an error.
    arr = _real_array(value, what).astype(np.float64, copy=False)
    if arr.size != 1:
        raise ValueError(f"{what} returned shape {arr.shape}, expected a scalar")
    return float(arr.reshape(()))


def _trampoline(body):
    """The C callback around ``body(cb, *args)``, which calls the user's callable and writes its
    result into the library's memory: ``SGS_CB_OK``, ``SGS_CB_REJECT`` for :class:`OutOfDomain`,
    else ``SGS_CB_ABORT`` with the exception kept in ``cb.exc`` for the run to re-raise."""

    def tramp(ud, *args):
        cb = ffi.from_handle(ud)
        try:
            body(cb, *args)
            return _CB_OK
        except OutOfDomain:
            return _CB_REJECT
        except BaseException as e:  # noqa: BLE001 (KeyboardInterrupt too: abort, re-raise later)
            cb.exc = e
            return _CB_ABORT

    return tramp


# Ctrl-C inside this frame (every trampoline's, the user's callable running above it) raises
# KeyboardInterrupt there (the callback aborts the run); in the binding's own code it waits for
# the end of the chunk (see _interrupt).
_interrupt.CALLBACK_CODES.add(_trampoline(None).__code__)


@_trampoline
def _energy_tramp(cb, theta, d, u):
    u[0] = _energy_value(cb.energy(_vector(theta, d, cb.dtype)))


@_trampoline
def _grad_tramp(cb, x, d, seed, g):
    _write(g, cb.grad(_vector(x, d, cb.dtype), int(seed)), (d,), cb.dtype, "grad")


@_trampoline
def _grads_tramp(cb, xs, n, d, seed, g):
    x = _vector(xs, n * d, cb.dtype).reshape(n, d)
    _write(g, cb.grads(x, int(seed)), (n, d), cb.dtype, "grads")


_U64 = np.dtype(np.uint64)


@_trampoline
def _diffs_tramp(cb, theta, proposal, d, indices, count, out):
    # The differences are float64 whatever the chain's dtype (the C callback's `double *`).
    value = cb.diffs(_vector(theta, d, cb.dtype), _vector(proposal, d, cb.dtype),
                     _vector(indices, count, _U64))
    _write(out, value, (count,), np.float64, "differences")


@_trampoline
def _exact_tramp(cb, theta, proposal, d, out):
    out[0] = _energy_value(cb.exact(_vector(theta, d, cb.dtype), _vector(proposal, d, cb.dtype)),
                           "exact")


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
        ("sgs_differences_fn" + suffix, _diffs_tramp),
        ("sgs_exact_difference_fn" + suffix, _exact_tramp),
    )
}


def _user_data(obj):
    """(address, what to keep alive) of a ``user_data``: the memory the object stands for.

    A pointer object gives its pointee (``ctypes.pointer(x)`` is ``x``'s address, not the
    pointer object's), a memory object its own buffer; an int is taken as an address, unchecked
    (the escape hatch). Anything else, e.g. a Python number or list, which has no memory a C
    callback could read, is a ``TypeError``."""
    import ctypes

    if obj is None:
        return 0, None
    if isinstance(obj, (bool, np.bool_)):
        raise TypeError("user_data must be memory (a numpy array, bytes, bytearray, a ctypes or "
                        "cffi object) or an int address, got a bool")
    if isinstance(obj, (int, np.integer)):
        return int(obj), None
    if isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise _invalid("Raw", "a numpy user_data must be C-contiguous (its data pointer is "
                           "passed as it is); pass np.ascontiguousarray(...)")
        if obj.dtype.hasobject:
            raise _invalid("Raw", f"a numpy user_data of dtype {obj.dtype} holds Python "
                           "objects, not plain memory a C callback can read")
        return obj.ctypes.data, obj
    if isinstance(obj, ffi.CData):
        kind = ffi.typeof(obj).kind
        if kind in ("pointer", "array"):
            return int(ffi.cast("uintptr_t", obj)), obj
        if kind in ("struct", "union"):
            return int(ffi.cast("uintptr_t", ffi.addressof(obj))), obj
        raise TypeError(f"a cffi user_data must be a pointer, array, struct or union, got "
                        f"{ffi.getctype(ffi.typeof(obj))!r} (a value, not memory)")
    if isinstance(obj, (ctypes._Pointer, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_wchar_p,
                        ctypes._CFuncPtr)):
        # A pointer object: the memory it points to (the pointer keeps its target alive).
        return ctypes.cast(obj, ctypes.c_void_p).value or 0, obj
    if isinstance(obj, (ctypes.Array, ctypes.Structure, ctypes.Union, ctypes._SimpleCData)):
        return ctypes.addressof(obj), obj
    if isinstance(obj, (bytes, bytearray, memoryview)):
        # bytes are immutable: the callback may read them, never write.
        buf = ffi.from_buffer(obj, require_writable=False)
        return int(ffi.cast("uintptr_t", buf)), (obj, buf)
    raise TypeError(f"user_data must be memory (a numpy array, bytes, bytearray, a ctypes or "
                    f"cffi object) or an int address, got {type(obj).__name__}")


def _ctypes_of(ct):
    """The ctypes type a cffi type stands for (``None`` for ``void *``: any pointer)."""
    import ctypes

    if ct.kind == "pointer":
        if ct.item.kind == "void":
            return None
        return ctypes.POINTER(_ctypes_of(ct.item))
    return {"double": ctypes.c_double, "float": ctypes.c_float, "size_t": ctypes.c_size_t,
            "uint64_t": ctypes.c_uint64, "int32_t": ctypes.c_int32,
            "uint32_t": ctypes.c_uint32}[ct.cname]


def _ctypes_matches(given, ct):
    import ctypes

    want = _ctypes_of(ct)
    if want is None:  # the user data: any pointer type
        return given is not None and (given in (ctypes.c_void_p, ctypes.c_char_p)
                                      or issubclass(given, ctypes._Pointer))
    if given is want:
        return True
    return (isinstance(given, type) and issubclass(given, ctypes._Pointer)
            and issubclass(want, ctypes._Pointer) and given._type_ is want._type_)


def _fn_type_name(ct):
    return ffi.getctype(ct)


class Raw:
    """A C callback: a function pointer with the ``sgs_*_fn`` signature plus its ``user_data``.

    ``fn``: a cffi function pointer, a ctypes function (a ``CFUNCTYPE`` instance, or a symbol of
    a ``ctypes.CDLL`` whose ``argtypes`` and ``restype`` are set), a numba ``cfunc``, or an int
    address. Its type is checked against the slot it is given to (``energy``, ``grad``,
    ``grads``, TunaMH's ``differences`` and ``exact``, batched, float64 or float32): a cffi
    function by ``ffi.typeof``, a ctypes or numba one by its ``argtypes``/``restype``; a
    mismatch (e.g. a gradient in the energy slot, a float32 function for a float64 chain), or a
    ctypes symbol without ``argtypes``, is a ``TypeError``. **An int address is the escape
    hatch**: it is not checked, and a wrong one crashes the process.

    ``user_data``: ``None``, or the memory the callback receives as its ``void *``: a numpy
    array (its data, as it is: no copy or conversion, so the callback reads and may write the
    array's own memory in its own dtype, and sees later changes; it must be C-contiguous and
    hold no Python objects, else :class:`InvalidInput`), ``bytes`` (read-only),
    ``bytearray``/``memoryview``, a ctypes object (an array, struct, union or scalar: its
    buffer; ``ctypes.pointer(x)``, ``c_void_p``, ``c_char_p``: the memory pointed to), a cffi
    pointer/array (the memory pointed to) or struct; or an int address (unchecked). Anything
    else is a ``TypeError``. The same user data goes to every callback of one sampler, so give
    ``energy`` and ``grad`` (TunaMH: ``exact`` and ``differences``) the same ``user_data``
    (the first one given is used).

    Both objects are kept alive by this ``Raw``, which the sampler keeps alive as long as its
    state; the attributes are read-only, so that nothing the C state reads can be swapped or
    freed under it.
    """

    __slots__ = ("_fn", "_user_data", "_address", "_user_data_address", "_keep")

    def __init__(self, fn, user_data=None):
        self._fn, self._user_data = fn, user_data
        self._address = _fn_address(fn)
        if self._address == 0:
            raise _invalid("Raw", "null function pointer", "SGS_ERR_NULL_POINTER")
        self._user_data_address, self._keep = _user_data(user_data)

    fn = property(lambda self: self._fn, doc="The function, as given (read-only).")
    user_data = property(lambda self: self._user_data, doc="The user data, as given (read-only).")
    address = property(lambda self: self._address, doc="The function's address (read-only).")
    user_data_address = property(lambda self: self._user_data_address,
                                 doc="The address the callback receives as user_data.")

    def _check_type(self, cname):
        """``TypeError`` unless the function has the C type ``cname`` (an int is unchecked)."""
        import ctypes

        fn, want = self._fn, ffi.typeof(cname)
        if isinstance(fn, (int, np.integer)) and not isinstance(fn, (bool, np.bool_)):
            return
        if isinstance(fn, ffi.CData):
            got = ffi.typeof(fn)
            if ffi.getctype(got) != ffi.getctype(want):
                raise TypeError(f"Raw: a cffi function of type {ffi.getctype(got)!r} cannot be "
                                f"a {cname} ({ffi.getctype(want)!r})")
            return
        cfn = getattr(fn, "ctypes", fn)  # numba cfunc: its ctypes twin carries the signature
        if isinstance(cfn, ctypes._CFuncPtr):
            args, res = cfn.argtypes, cfn.restype
            if args is None:
                raise TypeError(f"Raw: the ctypes function {getattr(fn, '__name__', fn)!r} has no "
                                f"argtypes: set argtypes and restype to those of {cname} "
                                f"({ffi.getctype(want)!r}) to have it checked, or pass its "
                                "address as an int (unchecked)")
            ok = (len(args) == len(want.args) and res is _ctypes_of(want.result)
                  and all(_ctypes_matches(a, w) for a, w in zip(args, want.args)))
            if not ok:
                names = ", ".join(getattr(a, "__name__", str(a)) for a in args)
                raise TypeError(f"Raw: a ctypes function ({names}) -> "
                                f"{getattr(res, '__name__', res)} cannot be a {cname} "
                                f"({ffi.getctype(want)!r})")
            return
        raise TypeError(f"Raw: cannot check the type of a {type(fn).__name__} function")


def _fn_address(fn):
    """The address of a function given as int, cffi cdata, ctypes function or numba cfunc."""
    import ctypes

    if isinstance(fn, (bool, np.bool_)):
        raise TypeError("Raw: fn must be a C function or an int address, got a bool")
    if isinstance(fn, (int, np.integer)):
        return int(fn)
    if isinstance(fn, ffi.CData):
        if ffi.typeof(fn).kind != "function" and not (
                ffi.typeof(fn).kind == "pointer" and ffi.typeof(fn).item.kind == "function"):
            raise TypeError(f"Raw: a cffi {ffi.getctype(ffi.typeof(fn))!r} is not a function "
                            "(cast it to the callback's type, or pass an int address)")
        return int(ffi.cast("uintptr_t", fn))
    cfn = getattr(fn, "ctypes", None)
    if isinstance(cfn, ctypes._CFuncPtr) and isinstance(getattr(fn, "address", None), int):
        return fn.address  # numba cfunc
    if isinstance(fn, ctypes._CFuncPtr):
        return ctypes.cast(fn, ctypes.c_void_p).value or 0
    raise TypeError(f"Raw: fn must be a cffi or ctypes function, a numba cfunc or an int "
                    f"address, got {type(fn).__name__}")


# The callback slot (the C type's name, sgs_<slot>_fn) → the _Py attribute holding its callable.
_PY_SLOTS = {"energy": "energy", "gradient": "grad", "gradients": "grads",
             "differences": "diffs", "exact_difference": "exact"}


def _c_callback(obj, kind, suffix, py):
    """(function pointer cdata, user-data address or None) for one callback slot."""
    cname = f"sgs_{kind}_fn{suffix}"
    if obj is None:
        return ffi.NULL, None
    if isinstance(obj, Raw):
        obj._check_type(cname)
        return ffi.cast(cname, obj.address), obj.user_data_address
    if callable(obj):
        setattr(py, _PY_SLOTS[kind], obj)
        return _TRAMPOLINES[cname], None
    name = "exact" if kind == "exact_difference" else kind  # TunaMH's argument is `exact`
    raise TypeError(f"{name} callback must be callable or sgsample.Raw, got {type(obj).__name__}")


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
        _reraise(self.py)


def _reraise(py):
    """Raises the error a run's callbacks kept (``py.exc``, else one caught by ``_onerror``)."""
    exc, py.exc = py.exc, None
    if exc is None:
        exc, _orphan.exc = getattr(_orphan, "exc", None), None
    if exc is not None:
        raise exc
