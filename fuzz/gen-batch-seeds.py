#!/usr/bin/env python3
"""Writes the seeds fuzz/seeds/c_api/seed-batch-{kind}-* (sgs_<chain>_run_batch of every chain kind
and float type, with and without an ABORT, each with one refused call) and seed-noise-*
(sgs_normal / sgs_uniform, f64 and f32), byte by byte as fuzz_targets/c_api.rs decodes its input
(op 0x7c: AMAGOLD f64 batch; 0x6c + a selector: the other five; 0x5c: noise). Rerun after a change
to the decoding and check the trace:

    python3 fuzz/gen-batch-seeds.py fuzz/seeds/c_api
    SGS_FUZZ_TRACE=1 fuzz/target/x86_64-unknown-linux-gnu/release/c_api fuzz/seeds/c_api/seed-batch-sghmc32-0
"""
import os
import struct
import sys


def u16(v):
    return struct.pack('<H', v)


def u64(v):
    return struct.pack('<Q', v)


def amagold_cfg(stream_byte=0x00, warmup=None):
    # step size 0.1 (f64_in typical 0), default config, seed 3, the stream byte (unit mass unless
    # its bits 2-4 say 5 or 6: then a mass-matrix warm-up of 20 + warmup % 48).
    b = bytes([0x00, 0x00, 0x00, 0x03, stream_byte])
    if warmup is not None:
        b += bytes([0x07, warmup, 0x01])  # 20 + warmup % 48; target_accept unchanged
    return b


def chain_cfg(eps_index=0, steps=None):
    # SGHMC / SGLD: step size typical[eps_index] (0.1, 0.01, 0.5, 1e-3), seed 5; for SGHMC with
    # `steps`, the optional words: friction 0.25, momentum_sd 1, T = steps, no resample.
    b = bytes([0x00, eps_index])
    if steps is None:
        return b + bytes([0x00, 0x05])
    return b + bytes([0x01, 0x00, 0x00, 0x00, 0x00, 0x00]) + u64(steps)[:4] + bytes([0x00]) + bytes(4) + bytes([0x05])


def shape(k, d, n, max_calls, abort_at=None):
    b = u16(k - 1) + u16(d - 1) + u16(n - 1) + u16(max_calls)
    b += bytes([0x00]) + u16(abort_at - 1) if abort_at else bytes([0x01])
    return b


def refuse(sel, extra=b''):
    return bytes([0x00, sel]) + extra


NO_REFUSAL = bytes([0x01])
SELECT = {'amagold32': 0, 'sghmc64': 1, 'sghmc32': 2, 'sgld64': 3, 'sgld32': 4}


def batch(kind, cfg, shp, tail):
    head = bytes([0x7c]) if kind == 'amagold64' else bytes([0x6c, SELECT[kind]])
    return head + cfg + shp + tail


def noise(sel, seed, want, pick, length):
    return bytes([0x5c, sel]) + u64(seed) + bytes([want]) + pick + length


# Every refusal of batch_refused, spread over the kinds: (selector, extra bytes).
REFUSALS = [
    (0, b''), (1, b''), (2, b''), (3, b''), (4, b''), (5, b''), (6, u16(3)), (7, u16(0)),
    (8, u16(1)), (9, u16(5)), (10, u64(7)), (10, u64((1 << 62) + 1)), (11, b''), (12, b''),
    (13, b''), (14, u16(1)), (15, bytes([0x00]) + u16(1)), (15, bytes([0x01]) + u16(2)),
]

seeds = {}
cfgs = {
    'amagold64': [amagold_cfg(), amagold_cfg(0x14, 2), amagold_cfg(0x21)],
    'amagold32': [amagold_cfg(), amagold_cfg(0x94, 5), amagold_cfg(0x41)],
    'sghmc64': [chain_cfg(), chain_cfg(2, steps=3), chain_cfg(1)],
    'sghmc32': [chain_cfg(), chain_cfg(2, steps=3), chain_cfg(1)],
    'sgld64': [chain_cfg(), chain_cfg(2), chain_cfg(3)],
    'sgld32': [chain_cfg(), chain_cfg(2), chain_cfg(3)],
}
r = 0
for kind, cs in cfgs.items():
    for i, cfg in enumerate(cs):
        # k = 1..4, d = 1..3, n = 2..8; max_calls 0 (every call beyond the cache), small, large;
        # the second of each kind ABORTs at its 5th batched call; each refuses one call.
        k, d, n = 1 + (i + r) % 4, 1 + i % 3, 2 + 3 * i
        mc = [0, 3, 23][i]
        sel, extra = REFUSALS[r % len(REFUSALS)]
        r += 1
        body = batch(kind, cfg, shape(k, d, n, mc, 5 if i == 1 else None), refuse(sel, extra))
        # A second batch of the same kind with the next refusal, then one without.
        sel, extra = REFUSALS[r % len(REFUSALS)]
        r += 1
        body += batch(kind, cfg, shape(4 - i, 3 - i, 3, 11), refuse(sel, extra))
        body += batch(kind, cfg, shape(2, 2, 4, 8), NO_REFUSAL)
        seeds[f'seed-batch-{kind}-{i}'] = body

# Noise: each function aligned with its exact length, one short, zero, a random length, huge,
# NULL, misaligned.
ALIGNED = lambda off: bytes([0x02]) + u16(off)
RAW = lambda off: bytes([0x01]) + u16(off)
NULL = bytes([0x00])
for sel, name in enumerate(['normal', 'normal32', 'uniform', 'uniform32']):
    body = noise(sel, 0x1234 + sel, 17, ALIGNED(4096), bytes([0x00]))
    body += noise(sel, 7, 63, ALIGNED(8000), bytes([0x06]))
    body += noise(sel, 0, 5, ALIGNED(64), bytes([0x07]))
    body += noise(sel, 2**64 - 1, 40, ALIGNED(1000), bytes([0x08]) + u16(200))
    body += noise(sel, 9, 3, ALIGNED(2000), bytes([0x09]) + u64(5))
    body += noise(sel, 9, 3, NULL, bytes([0x07]))
    body += noise(sel, 11, 8, RAW(4099), bytes([0x00]))
    seeds[f'seed-noise-{name}'] = body

out = sys.argv[1]
for k, v in seeds.items():
    with open(os.path.join(out, k), 'wb') as f:
        f.write(v)
