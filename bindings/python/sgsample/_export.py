"""A chain as bytes without pickle: the C library's own checkpoint of the chain
(``sgs_<kind>_export``: configuration, generator, counters, warm-up, workspace; portable,
checksummed, docs/design.md "Checkpoints"), behind a small header of what the binding adds.

:meth:`restore` creates a chain with the callbacks given from the recorded C config and start
(``init``, so the state has its own workspace, callbacks and user data), then imports the
checkpoint into it (``sgs_<kind>_import``): O(1), no iteration is run again, and the chain
continues bit for bit as the exported one would. The header carries what the C checkpoint does
not: the C config ``init`` needs (the checkpoint replaces it, but the binding sizes its workspace
and reports ``seed``, ``warmup`` from it), the start (``theta0``), the dtype, the Python
totals of ``.info`` (iterations, accepted, divergences, seconds, step size, phase), and (since
0.6) the callback slots the chain had, which :func:`restore` must be given again.

Layout: ``MAGIC``, a little-endian uint32 length, a JSON header, the start's raw bytes
(little-endian), then the C checkpoint (``c_offset``, ``c_len`` in the header). Any byte order
reads it: the C checkpoint is little-endian by definition and the start is stored so.
"""

import json
import struct

import numpy as np

from ._lib import _STATUS, Error, __version__, _check, _invalid, ffi, header

MAGIC = b"SGSAMPLE-CHAIN\x00"
# 1: sgsample 0.4's replay record (not read: it held no state, only how to recompute it).
FORMAT = 2
# The .info fields the header carries (the rest is derived or per-run).
_INFO = ("iterations", "accepted", "divergences", "seconds", "step_size", "phase")


def export(chain):
    """The bytes of :func:`restore`'s record of ``chain`` (see the module's docstring)."""
    kind, sfx = chain._kind, chain._sfx
    cfg = {name: getattr(chain._cfg, name) for _, name, _ in header.structs[f"sgs_{kind}_config"]}
    chain._acquire("export")
    try:
        n = ffi.new("size_t *")
        _check(chain._fn("export_len")(chain._state, n), f"sgs_{kind}_export_len{sfx}")
        blob = ffi.new("unsigned char[]", n[0])
        _check(chain._fn("export")(chain._state, blob, n[0]), f"sgs_{kind}_export{sfx}")
        c_bytes = ffi.buffer(blob, n[0])[:]
    finally:
        chain._lock.release()
    theta0 = chain._theta0.astype(chain._theta0.dtype.newbyteorder("<")).tobytes()
    info = {k: getattr(chain.info, k) for k in _INFO}
    head = {"format": FORMAT, "sgsample": __version__, "sampler": kind,
            "dtype": chain.dtype.name, "dim": chain.dim, "config": cfg, "info": info,
            "callbacks": _given(chain), "c_offset": len(theta0), "c_len": len(c_bytes)}
    text = json.dumps(head, allow_nan=False).encode()
    return MAGIC + struct.pack("<I", len(text)) + text + theta0 + c_bytes


def _given(chain):
    """The callback slots the chain was made with (TunaMH's ``exact`` is optional)."""
    return sorted(k for k, f in chain._cb.fns.items() if f != ffi.NULL)


def _read(data, cls):
    where = f"{cls.__name__}.restore"
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{where}: data must be bytes (from export()), got {type(data).__name__}")
    data = bytes(data)
    bad = lambda why: _invalid(where, why, "SGS_ERR_INVALID_CHECKPOINT")  # noqa: E731
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        raise bad("not an exported sgsample chain")
    (n,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        head = json.loads(data[start:start + n].decode())
    except (UnicodeDecodeError, ValueError):
        raise bad("the header is damaged") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        fmt = head.get("format") if isinstance(head, dict) else None
        raise _invalid(where, f"format {fmt} cannot be read by sgsample {__version__} (format "
                       f"{FORMAT}; format 1 is sgsample 0.4's replay record: restore it with "
                       "0.4 and export again)", "SGS_ERR_CHECKPOINT_MISMATCH")
    if head.get("sampler") != cls._kind:
        raise _invalid(where, f"the data hold a {head.get('sampler')} chain, not "
                       f"{cls.__name__}: use sgsample.{str(head.get('sampler')).upper()}"
                       ".restore", "SGS_ERR_CHECKPOINT_MISMATCH")
    return head, data[start + n:]


def restore(cls, data, callbacks):
    """The chain :func:`export` recorded, created with ``callbacks`` and put into the recorded
    state by the C import (nothing is run again)."""
    where = f"{cls.__name__}.restore"
    head, body = _read(data, cls)
    try:
        dtype, dim = np.dtype(head["dtype"]), int(head["dim"])
        theta0 = np.frombuffer(body, dtype.newbyteorder("<"), dim, 0).astype(dtype)
        c_offset, c_len = int(head["c_offset"]), int(head["c_len"])
        info = {k: head["info"][k] for k in _INFO}
        cfg_values = dict(head["config"])
    except (KeyError, TypeError, ValueError) as e:
        raise _invalid(where, f"the header is damaged ({e})",
                       "SGS_ERR_INVALID_CHECKPOINT") from None
    if c_offset != dim * dtype.itemsize or c_offset + c_len != len(body):
        raise _invalid(where, "the data are truncated or have bytes past their end",
                       "SGS_ERR_INVALID_CHECKPOINT")
    cfg = ffi.new(f"sgs_{cls._kind}_config *")
    for name, value in cfg_values.items():
        setattr(cfg, name, value)
    chain = cls._from_config(callbacks, theta0, dtype, cfg)
    # Recorded since 0.6 (earlier exports: every slot was required): a chain restored without
    # a callback it had, or with one it had not, would sample another target.
    recorded = head.get("callbacks")
    if recorded is not None and sorted(recorded) != _given(chain):
        raise TypeError(f"{where}: the exported chain had the callbacks {sorted(recorded)}, "
                        f"the restored one would have {_given(chain)}")
    blob = ffi.from_buffer(body[c_offset:])
    chain._acquire(where)
    try:
        st = chain._fn("import")(chain._state, blob, c_len)
    finally:
        chain._lock.release()
    _check(st, f"sgs_{cls._kind}_import{chain._sfx}")
    for k, v in info.items():
        setattr(chain.info, k, v)
    if chain.info.iterations:
        chain.info.accept_rate = chain.info.accepted / chain.info.iterations
    done = ffi.new("uint64_t *")
    _check(chain._fn("iterations")(chain._state, done), where)
    if done[0] != chain.info.iterations:
        raise Error(_STATUS["SGS_ERR_INVALID_CHECKPOINT"], where,
                    f"the header counts {chain.info.iterations} iterations, the C checkpoint "
                    f"{done[0]}")
    return chain
