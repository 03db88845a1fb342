#!/usr/bin/env python3
"""Writes the seeds fuzz/seeds/c_api/seed-shard-* (the sharded RBM-SVGD, sgs_svgd_shard_...: op 0x4c,
see `shard_op` in fuzz_targets/c_api.rs), byte by byte as the target decodes its input: systems of
2 or 3 shards (f64 and f32) run to commit against the whole-system twin, with callbacks that fail
or call back into their shard, a huge step size (commits NON_FINITE), single-fault inits, probes
of every fault kind in every stage, abandoned iterations, and the size queries and fuzzed inits.
Rerun after a change to the decoding and check the trace:

    python3 fuzz/gen-shard-seeds.py fuzz/seeds/c_api
    SGS_FUZZ_TRACE=1 fuzz/target/x86_64-unknown-linux-gnu/release/c_api fuzz/seeds/c_api/seed-shard-2
"""
import os
import struct
import sys


def u16(v):
    return struct.pack('<H', v)


def u64(v):
    return struct.pack('<Q', v)


OP = bytes([0x4c])
SYS64, SYS32 = 4, 6
BEGIN, FORCES, FINISH, COMMIT = range(4)


def system(sel, ranks, n, d, p, eta=3, k=0, cb=1, a=0, base=0, fuse=None, reenter=None):
    """The head of `shard_system`: shape, config (eta byte: 0 → 0.5, 1 → huge, 2 → 0.01, else
    0.1; k: bits 0-1 step rule, bit 2 IMQ, bits 3-4 bandwidth, bits 5-6 annealing), callbacks
    (cb: 0 per particle, 1 batched, 2 both), then each rank's fuse (call, mode) and re-entry
    (call, what), or None."""
    b = OP + bytes([sel]) + u16(ranks - 2) + u16(n - 8) + u16(d - 1) + u16(p - 2)
    b += bytes([eta, k, 7, 1, cb, a]) + u64(0x5eed_0000 + n) + u16(base)
    for q in range(ranks):
        f = (fuse or {}).get(q)
        b += bytes([0x00]) + u16(f[0]) + bytes([f[1]]) if f else bytes([0x01])
        r = (reenter or {}).get(q)
        b += bytes([0x00]) + u16(r[0]) + bytes([r[1]]) if r else bytes([0x01])
    return b


def inits(ranks, faults=None):
    """Each rank's optional single-fault init (fault byte and its extra bytes), then its init."""
    b = b''
    for q in range(ranks):
        f = (faults or {}).get(q)
        b += bytes([0x00]) + f if f is not None else bytes([0x01])
    return b


def iteration(ranks, noise=None, info=True, abandon=None, fail=False, cancel_at=None):
    """One iteration: for each step (after begin, the abandon byte: none after a failed begin)
    each rank's noise ops (and a 0 byte when fewer than four), then the info byte. `fail`: a begin
    fails (all cancel after the begins); `cancel_at` (step, rank): its last probe cancels."""
    b = b''
    for k in range(4):
        if k != BEGIN:
            if fail:
                return b
            b += bytes([0x01 if abandon == k else 0x00])
            if abandon == k:
                return b
        for q in range(ranks):
            ops = (noise or {}).get((k, q), [])
            b += b''.join(ops)
            if cancel_at == (k, q):
                return b
            b += (bytes([0x00]) if len(ops) < 4 else b'') + bytes([0x01 if info else 0x00])
    return b


def probe(kind, fault, j=0, extra=b'', info=0):
    """A noise op: a probe of `kind` with fault byte `fault` (extra: its own bytes), then the byte
    `which` (every probe here has a fault)."""
    return bytes([0x04, kind, info]) + u16(j) + bytes([fault]) + extra + bytes([0x00])


def iters(choice, extra=b''):
    return bytes([0x06, choice]) + extra


def clear(choice):
    return bytes([0x07, choice])


seeds = {}

# 0: f64, two shards of 40 in d = 2, p = 8, AdaGrad, four clean iterations.
seeds['seed-shard-0'] = system(SYS64, 2, 40, 2, 8, k=2, cb=1) + inits(2) + bytes([3]) + \
    b''.join(iteration(2) for _ in range(4))

# 1: f32, three shards of 33 in d = 1, p = 4, constant rule, IMQ, cyclical annealing, per-particle
# callbacks; rank 1's callback returns NaN at its 5th call (its first begin fails, all cancel),
# rank 0's calls begin on its own shard, rank 2's init on its own shard (both BUSY).
seeds['seed-shard-1'] = system(SYS32, 3, 33, 1, 4, k=0x24, cb=0, fuse={1: (4, 3)},
                               reenter={0: (2, 1), 2: (0, 5)}) + inits(3) + bytes([3]) + \
    iteration(3, fail=True) + b''.join(iteration(3) for _ in range(3))

# 2: f64, three shards of 24, p = 4, decaying rule; in the first iteration probes of every fault
# kind of every step (each rank and stage in turn), records with a bad slot, a duplicated slot, a
# particle ≥ N, a particle not the rank's or twice, a NaN particle at begin, partials with
# finite = 3, the iterations getter over the state, clear on the moved copy; in the second, every
# step with one array of length zero (LENGTH_MISMATCH).
P = [probe(kind, f, j, x) for kind in range(4) for (f, j, x) in [
    (0, 0, b''), (1, 0, u16(1)), (2, 0, u16(7)), (3, 0, bytes([1])), (4, 0, bytes([kind]) + u16(9)),
    (5, 1, u16(0)), (6, 0, b''), (7, 0, b''), (9, 0, b''), (10, 0, b'')]]
noise = {(k, q): [] for k in range(4) for q in range(3)}
for i, op in enumerate(P):
    noise[(i // 3 % 4, i % 3)].append(op)
noise[(BEGIN, 0)] = [probe(BEGIN, 8, 0, u16(3)), iters(2, bytes([0]) + u16(40)), clear(2)]
noise[(FORCES, 2)] = [probe(FORCES, 8, 0, u16(2) + bytes([0, 1])),
                      probe(FORCES, 8, 0, u16(1) + bytes([1]) + u16(3)),
                      probe(FORCES, 8, 0, u16(0) + bytes([2, 0]))]
noise[(FINISH, 1)] = [probe(FINISH, 8, 0, u16(1) + bytes([0, 2])),
                      probe(FINISH, 8, 0, u16(0) + bytes([1]) + u16(1))]
noise[(COMMIT, 1)] = [probe(COMMIT, 8, 0, u16(1) + bytes([1]))]
for key in noise:
    noise[key] = noise[key][:4]
seeds['seed-shard-2'] = system(SYS64, 3, 24, 1, 4, k=1, cb=2) + inits(3) + bytes([1]) + \
    iteration(3, noise) + \
    iteration(3, {(k, q): [probe(k, 3, 0, bytes([2]))] for k in range(4) for q in range(3)})

# 3: f64 with a step size of 1e300: the moves overflow in the second iteration, every commit and
# the twin's step NON_FINITE alike (and again after); the iterations getter before each commit.
seeds['seed-shard-3'] = system(SYS64, 2, 16, 1, 2, eta=1, k=0, cb=1, a=2) + inits(2) + bytes([3]) + \
    b''.join(iteration(2, {(COMMIT, 0): [iters(3)]}) for _ in range(4))

# 4: f32, three shards of 8, p = 8 (one batch: ranks 0 and 1 hold no slot), single-fault inits on
# every rank (ranks = 0, a shuffle permutation, a workspace one short), then an iteration
# abandoned after forces, one cancelled by a partial with finite = 0, and a clean one.
seeds['seed-shard-4'] = system(SYS32, 3, 8, 2, 8, k=2, cb=1) + \
    inits(3, {0: bytes([9, 1]), 1: bytes([11, 0]), 2: bytes([13, 0])}) + bytes([2]) + \
    iteration(3, abandon=FINISH) + \
    iteration(3, {(COMMIT, 0): [probe(COMMIT, 8, 0, u16(1) + bytes([0]))]}, cancel_at=(COMMIT, 0)) + \
    iteration(3)


# 5: the size queries (f64): ranges and sizes valid (one with n = 2³²), an output NULL, two
# outputs on one word, n = 0, p = 1, rank = ranks; the sizes with AdaGrad, a NULL and a
# misaligned config.
def small(v):
    return bytes([2]) + u16(v)


def query(n, p, ranks, rank, outs, d, rule, cfg):
    b = OP + bytes([0]) + n + p + ranks + rank
    for i, o in enumerate(outs):
        b += (bytes([1]) if i else b'') + o
    return b + d + bytes([0]) + struct.pack('<I', rule) + bytes([1, cfg])


def at(o):
    return bytes([2]) + u16(o)


GOOD = [at(0), at(64), at(128), at(192)]
seeds['seed-shard-5'] = b''.join([
    query(small(20), bytes([2]) + small(4), small(3), bytes([2]) + u16(2), GOOD, small(2), 2, 0),
    query(bytes([4]) + u16(1), bytes([0]), small(3), bytes([2]) + u16(1), GOOD, small(1), 0, 0),
    query(small(9), bytes([2]) + small(9), small(2), bytes([1]), [at(0), bytes([0]), at(64), at(128)], small(3), 1, 2),
    query(small(9), bytes([2]) + small(3), small(2), bytes([1]), [at(0), at(0), at(64), at(128)], small(3), 1, 1),
    query(bytes([0]), bytes([0]), small(2), bytes([1]), GOOD, small(1), 2, 0),
    query(small(9), bytes([1]), small(4), bytes([0]), GOOD, small(1), 2, 0),
    query(small(9), bytes([2]) + small(1), small(4), bytes([1]), GOOD, small(1), 2, 0),
])


# 6: fuzzed inits (f32, f64): valid ones (then cleared) on disjoint buffers for a few shapes, one
# with the workspace over the particles, one with a short index.
def init_any(sel, n, d, ranks, rank, bufs):
    b = OP + bytes([sel]) + bytes([3]) + u16(n - 1) + bytes([d]) + bytes([ranks]) + bytes([2]) + u16(rank)
    b += u16(0) + bytes([3, 2, 5, 0]) + bytes([1, 2])  # p = 2, config valid (AdaGrad), aligned
    st, po, wo, io, il = bufs
    return b + at(st) + at(po) + bytes([0, 0]) + at(wo) + bytes([0]) + at(io) + bytes([il, 2])


seeds['seed-shard-6'] = b''.join([
    init_any(3, 20, 3, 6, 2, (0, 2048, 4096, 8192, 0)),
    init_any(2, 40, 4, 3, 3, (0, 2048, 4096, 8192, 0)),
    init_any(3, 7, 2, 3, 0, (0, 2048, 4096, 8192, 0)),
    init_any(2, 12, 3, 5, 1, (0, 2048, 2048, 8192, 0)),
    init_any(3, 12, 3, 5, 1, (0, 2048, 4096, 8192, 6)),
])

out = sys.argv[1] if len(sys.argv) > 1 else 'seeds/c_api'
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
    print(name, len(data))
