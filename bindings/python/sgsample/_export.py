"""A chain as bytes without pickle: what made it (its C config, start, dtype), what was done to it
(iterations, and the step size and mass matrices set between them), and where it got to (its
position and totals, to verify the restore).

Why a record and not the state: a C state holds pointers (its workspace, its callbacks and
their user data, its own address in its seal), and the C API's only way to duplicate one,
``sgs_*_copy``, copies from a live state in the same process; nothing rebuilds a state from
bytes with a new workspace and new callbacks. So :meth:`restore` re-creates the chain and runs
the recorded iterations again through the callbacks given (the chain is deterministic given its
seed and callbacks), then checks that it arrived at the recorded position and totals, bit for
bit. The cost of a restore is the cost of those iterations. An O(1) restore needs the C library
to export and import its states (requested: ``sgs_*_export`` / ``sgs_*_import``).

Layout: ``MAGIC``, a little-endian uint32 length, a JSON header, then the arrays' raw bytes at
the offsets the header gives (native byte order, recorded in the header).
"""

import json
import struct
import sys

import numpy as np

from ._lib import _STATUS, Error, __version__, _invalid, ffi, header

MAGIC = b"SGSAMPLE-CHAIN\x00"
FORMAT = 1
# Rows per replay call: the replayed positions go to one reused buffer of this many rows.
_REPLAY_ROWS = 1 << 14


def export(chain):
    """The bytes of :func:`restore`'s record of ``chain`` (see the module's docstring)."""
    kind = chain._kind
    cfg = {name: getattr(chain._cfg, name) for _, name, _ in header.structs[f"sgs_{kind}_config"]}
    arrays, blobs, offset = {}, [], 0

    def put(name, a):
        nonlocal offset
        a = np.asarray(a, order="C")  # (ascontiguousarray would make a 0-d value 1-d)
        arrays[name] = {"offset": offset, "dtype": a.dtype.str, "shape": list(a.shape)}
        blobs.append(a.tobytes())
        offset += a.nbytes

    put("theta0", chain._theta0)
    put("position", chain.position)
    events = []
    for i, (iteration, name, value) in enumerate(chain._events):
        put(f"event{i}", value)
        events.append({"iteration": iteration, "set": name, "array": f"event{i}"})
    info = chain.info
    head = {"format": FORMAT, "sgsample": __version__, "byteorder": sys.byteorder,
            "sampler": kind, "dtype": chain.dtype.name, "dim": chain.dim, "config": cfg,
            "iterations": info.iterations, "accepted": info.accepted,
            "divergences": info.divergences, "events": events, "arrays": arrays}
    text = json.dumps(head, allow_nan=False).encode()
    return MAGIC + struct.pack("<I", len(text)) + text + b"".join(blobs)


def _read(data, cls):
    where = f"{cls.__name__}.restore"
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{where}: data must be bytes (from export()), got {type(data).__name__}")
    data = bytes(data)
    bad = lambda why: _invalid(where, why, "SGS_ERR_STATE_CORRUPTED")  # noqa: E731
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        raise bad("not an exported sgsample chain")
    (n,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        head = json.loads(data[start:start + n].decode())
    except (UnicodeDecodeError, ValueError):
        raise bad("the header is damaged") from None
    if head.get("format") != FORMAT or head.get("byteorder") != sys.byteorder:
        raise bad(f"format {head.get('format')} ({head.get('byteorder')}-endian) cannot be read "
                  f"by sgsample {__version__} (format {FORMAT}, {sys.byteorder}-endian)")
    if head.get("sampler") != cls._kind:
        raise _invalid(where, f"the data hold a {head.get('sampler')} chain, not "
                       f"{cls.__name__}: use sgsample.{str(head.get('sampler')).upper()}"
                       ".restore")
    body = data[start + n:]

    def array(name):
        a = head["arrays"][name]
        dt = np.dtype(a["dtype"])
        count = int(np.prod(a["shape"], dtype=np.int64))
        end = a["offset"] + count * dt.itemsize
        if a["offset"] < 0 or end > len(body):
            raise bad(f"array {name} lies outside the data")
        return np.frombuffer(body[a["offset"]:end], dt).reshape(a["shape"]).copy()

    return head, array


def restore(cls, data, callbacks, progress=None):
    """The chain :func:`export` recorded, re-created with ``callbacks`` and brought to where it
    was by running its iterations again; :class:`Error` ``SGS_ERR_STATE_CORRUPTED`` if the
    callbacks do not reproduce it."""
    where = f"{cls.__name__}.restore"
    head, array = _read(data, cls)
    try:
        cfg_values, dtype = head["config"], np.dtype(head["dtype"])
        theta0, position = array("theta0"), array("position")
        events = [(int(e["iteration"]), e["set"], array(e["array"])) for e in head["events"]]
        total = int(head["iterations"])
    except (KeyError, TypeError, ValueError) as e:
        raise _invalid(where, f"the header is damaged ({e})", "SGS_ERR_STATE_CORRUPTED") from None
    cfg = ffi.new(f"sgs_{cls._kind}_config *")
    for name, value in cfg_values.items():
        setattr(cfg, name, value)
    chain = cls._from_config(callbacks, theta0, dtype, cfg)
    buf = np.empty((min(_REPLAY_ROWS, max(1, total)), chain.dim), dtype)

    def advance(to):
        while chain.info.iterations < to:
            n = min(buf.shape[0], to - chain.info.iterations)
            chain.run(n, out=buf[:n], progress=progress)

    for iteration, name, value in events:
        if iteration < chain.info.iterations or iteration > total:
            raise _invalid(where, "the recorded events are out of order",
                           "SGS_ERR_STATE_CORRUPTED")
        advance(iteration)
        chain._replay_set(name, value)
    advance(total)
    got = (chain.position, chain.info.accepted, chain.info.divergences)
    if got[0].tobytes() != position.tobytes() or got[1:] != (head["accepted"],
                                                             head["divergences"]):
        raise Error(_STATUS["SGS_ERR_STATE_CORRUPTED"], where,
                    f"the callbacks given do not reproduce the exported chain: after "
                    f"{total} iterations it is at {got[0]} with {got[1]} accepted and {got[2]} "
                    f"divergent, the export says {position}, {head['accepted']} and "
                    f"{head['divergences']} (other callbacks, or callbacks that are not "
                    "deterministic given the point and seed)")
    chain.partial = None
    return chain
