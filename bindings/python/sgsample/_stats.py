"""Streaming diagnostics (``sgs_stats_…``)."""

import sys

import numpy as np

from ._lib import __version__, _check, _count, _invalid, _no_complex, ffi, lib
from ._runner import _dtype, _ptr


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
