"""The loaded library: the header's declarations, cffi, statuses and errors, argument checks."""

import math
import operator
import os
import sys

import cffi
import numpy as np

from . import _header


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

# Statuses that are about what happened during sampling rather than about the arguments (a
# TunaMH difference past the declared bound is the model breaking its contract mid-run, not a
# bad argument: the bound itself, when invalid, is SGS_ERR_INVALID_BOUND, an InvalidInput).
_RUNTIME = {"SGS_ERR_CALLBACK_ABORTED", "SGS_ERR_NON_FINITE", "SGS_ERR_GRADIENT_REJECTED",
            "SGS_ERR_INITIAL_ENERGY_REJECTED", "SGS_ERR_BOUND_EXCEEDED"}


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

    AMAGOLD, SGHMC, SGLD and TunaMH reject the proposal and go on. SVGD has no proposal to
    reject: the run stops with :class:`Error` ``SGS_ERR_GRADIENT_REJECTED``, the particles those
    after the last completed iteration."""


def _check(status, where):
    if status != 0:
        name = STATUS_NAMES.get(int(status), "")
        raise (Error if name in _RUNTIME else InvalidInput)(status, where)


_STATUS = {name: value for name, value in header.enums["sgs_status"]}


def _invalid(where, detail, status="SGS_ERR_INVALID_ARGUMENT"):
    """The InvalidInput the binding raises for an argument it refuses before calling the library."""
    return InvalidInput(_STATUS[status], where, detail)


def _real_array(value, what, where=None):
    """``value`` as a numpy array of real numbers (not copied when it already is one).

    Refuses what numpy would turn into numbers silently: complex values (the imaginary part
    dropped with only a warning), ``None`` (NaN), strings (``"1.5"`` parsed), Python objects.
    An argument (``where`` given) gets :class:`InvalidInput` naming it; a callback's result
    (``where`` None) a ``TypeError`` (or ``ValueError`` for complex values) naming the callback."""
    problem = None
    if value is None or isinstance(value, (str, bytes)):
        problem = f"got {type(value).__name__} {value!r:.40}"
    else:
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError) as e:  # ragged nesting, or an object numpy refuses
            problem = f"not an array of numbers ({e})"
        else:
            if arr.dtype.kind in "biuf":
                return arr
            if arr.dtype.kind == "c":
                if where is None:
                    raise ValueError(f"{what} returned complex values")
                raise _invalid(where, f"{what} must be real, got complex values")
            problem = f"got {'an array of dtype ' + str(arr.dtype) if arr.ndim else repr(value)[:40]}"
    if where is None:
        raise TypeError(f"{what} must return real numbers (a float or a numpy array), {problem}")
    raise _invalid(where, f"{what} must be real numbers, {problem}")


def _no_complex(value, what, where=None):
    """Checks ``value`` is real numbers (see :func:`_real_array`)."""
    _real_array(value, what, where)


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
