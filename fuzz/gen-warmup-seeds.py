#!/usr/bin/env python3
"""Writes the seeds fuzz/seeds/c_api/seed-warmup-* (AMAGOLD's warm-up API of 0.4: the new config
words, warm-ups with the approach, the setters, the dense getter, the report and the comparison),
byte by byte as fuzz_targets/c_api.rs decodes its input. Written by hand; rerun after a change to
the decoding and check the trace:

    python3 fuzz/gen-warmup-seeds.py fuzz/seeds/c_api
    SGS_FUZZ_TRACE=1 fuzz/target/x86_64-unknown-linux-gnu/release/c_api fuzz/seeds/c_api/seed-warmup-0
"""
import os
import struct
import sys


def u16(v): return struct.pack('<H', v)
def u32(v): return struct.pack('<I', v)
def at(off): return bytes([0x02]) + u16(off)          # pick: an aligned offset in the arena
NULL = bytes([0x00])                                    # pick: NULL
EXACT = bytes([0x00])                                   # len: exactly what is needed
def big(v): return bytes([0x07]) + u16(32768 + v)      # fill_finite: the integer v


def cfg(step=0, ext=None, seed=5, k=0x00, warm=None):
    """amagold_cfg: step size index; ext = (warmup 0-7, T, variant) or None; the stream byte k
    (bits 0-1 stream, 2-4 mass branch: 5 = mass, 7 = invalid words; bit 5 jitter, bit 6 no
    approach, bit 7 dense); warm: the mass branch's warm-up selector bytes."""
    b = bytes([0x00, step])
    if ext is None:
        b += bytes([0x00])
    else:
        w, t, var = ext
        b += bytes([0x01, 0x00, 0, 0x00, 0, 0x00, 0, w]) + bytes([0x00]) + u32(t) + bytes([0x00]) + u32(var)
    b += bytes([seed, k])
    if (k >> 2) % 8 in (5, 6):
        b += warm + bytes([0x01])                       # warm-up; target acceptance kept
    return b


def init(f32, d, c, state, ws, theta, xs, model=NULL):
    b = bytes([0x10 if f32 else 0x00, d]) + c + bytes([0x02]) + at(state) + at(theta)
    b += bytes([0x01]) + b''.join(big(x) for x in xs)
    b += at(ws) + EXACT + bytes([0x01, 0x01]) + model
    return b


def call(live):                                         # a call on live chain `live` (0-7)
    return bytes([0x03 | (live << 4), 0x01]) + u16(live)


def step(live): return call(live) + bytes([0x00]) + NULL
def run(live, n, m, out=12288): return call(live) + bytes([0x02, n, m]) + at(out) + EXACT + NULL + NULL
def wop(live, op): return call(live) + bytes([0x04, 0x04, op])
def set_eps(live, idx): return wop(live, 0) + bytes([0x00, idx])   # [0.1, 0.5, 1e-3, 1e-50, 1e39, 5e-324, 3.0]
def set_diag(live, vals, k_at=14336):                   # vals: mass_value indices, or raw selectors
    return wop(live, 1) + at(k_at) + EXACT + b''.join(v if isinstance(v, bytes) else bytes([0x00, v]) for v in vals)
def set_dense(live, d, k_at=14336, spd=True, raw=None):
    b = wop(live, 2) + at(k_at) + EXACT
    if spd:
        b += bytes([0x01]) + bytes((3 if i == j else 128 + 32 * (i - j)) for i in range(d) for j in range(i + 1))
        b += bytes([0x01])                              # not spoilt
    else:
        b += bytes([0x00]) + b''.join(bytes([0x00, v]) for v in raw)
    return b
def dense_get(live, out=13312): return wop(live, 3) + at(out) + EXACT
def report(live, out=13312): return wop(live, 4) + at(out)
def compare(live, idxs, lst=11264, out=12288):
    b = wop(live, 6) + bytes([len(idxs)]) + at(lst)
    b += b''.join(bytes([0x01]) + u16(i) for i in idxs)
    return b + at(out) + EXACT
def query(kind, d, c, misaligned=False):
    return bytes([0x0E | (kind << 4)]) + u32(0) + bytes([0x00]) + u16(d) + c + bytes([0x00 if misaligned else 0x01])

FAR = [6, -4, 7]
seeds = {
    # f64, diagonal mass, warm-up 30 with the approach from a far start: report while running,
    # two runs through the warm-up, its report, then every setter and the getters, compare.
    'seed-warmup-0': init(False, 3, cfg(k=0x14, warm=bytes([0x07, 10])), 0, 1024, 8192, FAR)
        + report(0) + run(0, 6, 3) + report(0) + run(0, 6, 3) + report(0)
        + set_eps(0, 1) + set_diag(0, [0, 2, 4]) + step(0) + set_diag(0, [bytes([0x0a]), 1, 2])
        + set_diag(0, [bytes([0x0d, 0]), 1, 2]) + dense_get(0) + set_dense(0, 3) + set_eps(0, 4)
        + compare(0, [0]) + compare(0, [0, 0]) + step(0),
    # f64, a dense chain without a warm-up (metric and ε set), and a dense chain with a warm-up of
    # 20 with the approach; both compared; the dense setter after the warm-up.
    'seed-warmup-1': init(False, 3, cfg(k=0x94, warm=bytes([0x06])), 0, 1024, 8192, [1, -1, 2])
        + set_dense(0, 3) + set_eps(0, 1) + run(0, 6, 1) + dense_get(0) + set_diag(0, [0, 2, 4])
        + set_dense(0, 3, spd=False, raw=[0, 1, 2, 3, 0, 1, 2, 3, 0]) + step(0)
        + init(False, 3, cfg(k=0x95, warm=bytes([0x02])), 2048, 3072, 8256, FAR)
        + run(1, 6, 3) + report(1) + run(1, 3, 0) + report(1) + compare(1, [0, 1]) + compare(1, [1, 1, 1])
        + set_dense(1, 3) + dense_get(1) + step(1),
    # f32, diagonal mass without the approach and with jittered T, two streams, warm-ups of 20;
    # compared; a list of 65 entries (more than one call takes: refused).
    'seed-warmup-2': init(True, 2, cfg(k=0x74, warm=bytes([0x02])), 0, 1024, 8192, [3, -2])
        + init(True, 2, cfg(k=0x75, warm=bytes([0x02])), 2048, 3072, 8256, [-1, 4])
        + run(0, 6, 3) + run(1, 6, 3) + compare(0, [0, 1]) + report(0) + set_eps(0, 3) + set_eps(0, 4)
        + set_diag(1, [1, 1]) + dense_get(1) + step(1)
        + wop(0, 6) + bytes([0x07, 0x05, 0x00]) + at(11264) + b''.join(bytes([0x01]) + u16(i % 2) for i in range(65))
        + at(12288) + EXACT,
    # f64, unit mass, non-reversible, T = 5 jittered, a warm-up of 6 with the approach: the
    # mass setters refused (mismatch), ε set; inits refused (warm-up 5 with a mass matrix,
    # unknown option words); workspace_len_for queries.
    'seed-warmup-3': init(False, 2, cfg(ext=(6, 5, 1), k=0x20), 0, 1024, 8192, [5, -5])
        + run(0, 5, 1) + report(0) + set_diag(0, [0, 1]) + set_dense(0, 2) + set_eps(0, 0) + step(0)
        + init(False, 2, cfg(k=0x14, warm=bytes([0x05, 4])), 2048, 3072, 8256, [1, 1])
        + init(False, 2, cfg(k=0x1c) + bytes([0x07]) + u32(3) + bytes([0x00]) + u32(0)
               + bytes([0x07]) + u32(2) + bytes([0x00]) + u32(1) + bytes([0x07]), 2048, 3072, 8256, [1, 1])
        + query(0, 3, cfg(k=0x94, warm=bytes([0x02]))) + query(1, 7, cfg(k=0x14, warm=bytes([0x06])), True)
        + query(0, 0, cfg()) + report(0),
}
out = sys.argv[1] if len(sys.argv) > 1 else 'fuzz/seeds/c_api'
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
    print(name, len(data))
