"""What every sampler object shares: state memory, configs, locking, chunked runs."""

import secrets
import threading
import time
from dataclasses import replace

import numpy as np

from . import _interrupt
from ._lib import _invalid, ffi, header, lib


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


def _fresh_seed():
    """A seed nobody chose: 64 bits from the operating system's generator."""
    return secrets.randbits(64)


def _config(kind, default_args, options, enums=None, default=None, names=None):
    # No seed given (or None): a fresh one, reported as the sampler's .seed, never a fixed 0
    # that would give every "independent" run the same draws.
    options = dict(options)
    if options.get("seed") is None:
        options["seed"] = _fresh_seed()
    cfg = ffi.new(f"sgs_{kind}_config *")
    where = f"sgs_{kind}_config"
    # ``default``: the function giving the starting config (sgs_amagold_config_adaptive).
    default = default or getattr(lib, f"sgs_{kind}_config_default")
    try:
        cfg[0] = default(*default_args)
    except (OverflowError, TypeError) as e:
        # A negative count or a value of the wrong type: cffi refuses it before the library sees
        # it; raise the binding's InvalidInput (a ValueError), as for the library's own checks.
        # ``names``: the default function's parameters (TunaMH: step_size, terms, bound).
        names = names or (("batch_size", "step_size") if kind == "svgd" else ("step_size",))
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

    # Read-only: the C state was made for this dtype and dimension (a float64 chain's position
    # written into a float32-sized buffer would overflow it).
    dtype = property(lambda self: self._dtype, doc="The coordinates' dtype (read-only).")
    dim = property(lambda self: self._dim, doc="The dimension d (read-only).")
    seed = property(lambda self: int(self._cfg.seed),
                    doc="The seed the sampler was made with: given, or fresh from the operating "
                        "system when none was (read-only; pass it again to repeat the run).")

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

    def _chunks(self, total, call, stop, bar=None):
        """Runs ``call(start, k)`` (→ iterations done) until ``total``, in chunks of about
        ``chunk_seconds``. A Ctrl-C is taken between chunks, once the chunk's rows and totals
        are recorded (:mod:`._interrupt`): then ``stop(done)`` keeps what was made and
        ``KeyboardInterrupt`` is raised."""
        done, k = 0, 1
        try:
            with _interrupt.deferred():
                while done < total:
                    k = min(k, total - done)
                    t = time.perf_counter()
                    got = call(done, k)
                    done += got
                    if bar is not None:
                        bar.update(got)
                    if _interrupt.pending():
                        break
                    dt = time.perf_counter() - t
                    k = max(1, min(k * 4, int(k * self.chunk_seconds / dt) if dt > 0 else k * 4))
        finally:
            if bar is not None:
                bar.close()
        if _interrupt.pending():  # also one that came after the last chunk was recorded
            _interrupt.take()
            stop(done)
            raise KeyboardInterrupt
        return done
