#!/usr/bin/env python3
"""Writes the seeds fuzz/seeds/c_api/seed-sched-* (set_batch_size and run_scheduled), byte by byte
as fuzz_targets/c_api.rs decodes its input (op bytes, svgd_init fields, the phase selector 0xCF =
sched_call). Written by hand; rerun after a change to the decoding and check the trace:

    python3 fuzz/gen-sched-seeds.py fuzz/seeds/c_api
    SGS_FUZZ_TRACE=1 fuzz/target/x86_64-unknown-linux-gnu/release/c_api fuzz/seeds/c_api/seed-sched-0
"""
import struct, sys, os
def u16(v): return struct.pack('<H', v)
def init(kind, n_byte=7, d=2, p=0, ksd=None, repl=0, st=0, po=1024, wo=2048, io=4096, cb=1, model=b'\x00'):
    # op 0x60 (f64) / 0x70 (f32): svgd_init
    b = bytes([0x60 if kind == 64 else 0x70, n_byte, d])
    b += bytes([0x00, p])            # batch size 2 + p % (n-1)
    b += bytes([0x00, 0x00])         # step size 0.1
    if ksd is None and not repl:
        b += bytes([0x00])           # default config
    else:
        b += bytes([0x01]) + bytes([0, 0] * 4)           # alpha, bandwidth, imq c, imq beta
        b += bytes([0x00]) + struct.pack('<I', repl)     # batching
        b += bytes([0x00]) + struct.pack('<I', 0) * 1    # kernel
        b += bytes([0x00]) + struct.pack('<I', 0)        # step rule (AdaGrad)
        b += bytes([0x00]) + struct.pack('<I', 0)        # reserved
        b += bytes([0x00]) + struct.pack('<I', ksd or 0) # ksd
    b += bytes([0x05])               # seed
    b += bytes([0x02])               # cfg aligned
    b += bytes([0x02]) + u16(st)     # state
    b += bytes([0x02]) + u16(po)     # particles
    n = 1 + n_byte % 12
    b += bytes([0x01]) + b''.join(bytes([0x01, (37 * k + 11) % 256]) for k in range(n * d))
    b += bytes([0x02]) + u16(wo) + bytes([0x00])   # workspace, exact length
    b += bytes([0x02]) + u16(io) + bytes([0x00])   # index, exact length
    b += bytes([cb])                 # 1: gradient callback, 3: gradients (batch) callback
    b += model                       # 0: NULL model
    return b
def call(sel, live=0):
    return bytes([0x03 | (live << 4), 0x01]) + u16(live) + bytes([sel])
def setp(pb, live=0):  # pb: fuzz_p bytes
    return call(0xCF, live) + bytes([0x00]) + pb
def run(every_b, start_b, kb, its, live=0, summ=8192, after=1):
    return call(0xCF, live) + bytes([0x01]) + every_b + start_b + kb + bytes([0x00, its, 0x01, after, 0x02]) + u16(summ)
P_N = bytes([3]); P_0 = bytes([0]); P_1 = bytes([1]); P_N1 = bytes([4]); P_HUGE = bytes([9, 0])
def P_IN(x): return bytes([5, x])
begin = lambda live=0: call(0xC0, live) + bytes([0x01])
drive = lambda live=0: call(0xCC, live) + bytes([0x01] * 60)
seeds = {
  # f64, the batch callback: a script of five calls (OK, OK, NaN, OK, ABORT) over runs of doublings
  'seed-sched-4': init(64, cb=3, model=bytes([1, 5, 0, 0, 0x40, 0, 0x0d, 0])) + run(bytes([1, 0]), bytes([2]), bytes([0]), 6)
                  + run(bytes([1, 1]), bytes([2]), bytes([0]), 6) + setp(P_IN(4)) + run(bytes([1, 0]), P_N, bytes([0]), 6)
                  + run(bytes([1, 0]), bytes([2]), bytes([0]), 2) + run(bytes([1, 0]), bytes([2]), bytes([0]), 1),
  # f64: set p in range, invalid ones, step, scheduled doubling runs
  'seed-sched-0': init(64) + setp(P_N) + setp(P_0) + setp(P_1) + setp(P_N1) + setp(P_HUGE) + setp(P_IN(3))
                  + call(0x00) + bytes([0, 0x00]) + bytes([0x02]) + u16(8192)
                  + run(bytes([1, 0]), bytes([2]), bytes([0]), 6) + run(bytes([1, 1]), P_IN(1), bytes([0]), 5),
  # f32: doubling every 1 for 64 iterations (start·2^k past 2^64), then refusals in phases
  'seed-sched-1': init(32) + run(bytes([1, 0]), bytes([2]), bytes([0]), 0, after=1)
                  + call(0xCF) + bytes([0x01, 0x01, 0x00, 0x02, 0x00, 0x0e, 0x04, 0x01, 0x01, 0x02]) + u16(8192)
                  + begin() + setp(P_N) + setp(P_0) + run(bytes([1, 0]), bytes([2]), bytes([0]), 3) + drive()
                  + setp(P_IN(2)) + run(bytes([1, 2]), bytes([2]), bytes([0]), 4),
  # f64 with the batch KSD: KSD-driven schedules (one window, start = N), an unknown kind
  'seed-sched-2': init(64, ksd=1) + run(bytes([1, 3]), P_IN(2), bytes([1, 0, 1, 0, 0, 0]), 4)
                  + run(bytes([1, 0]), P_N, bytes([1, 0, 1, 0, 0, 0]), 6)
                  + run(bytes([1, 0]), P_IN(2), bytes([1, 0, 1, 0, 0, 0]), 6)
                  + run(bytes([1, 0]), P_IN(2), bytes([1, 7, 9, 0, 0, 0]), 2),
  # with replacement (refused), KSD off with a KSD schedule (refused), every 0, min_decrease 1
  'seed-sched-3': init(64, repl=1) + setp(P_IN(2)) + run(bytes([1, 0]), bytes([2]), bytes([0]), 3)
                  + init(32, st=512, po=1536, wo=2560, io=5120) + run(bytes([1, 0]), bytes([2]), bytes([1, 0, 1, 0, 0, 0]), 3, live=1)
                  + run(bytes([0]), bytes([2]), bytes([0]), 3, live=1) + run(bytes([1, 0]), bytes([2]), bytes([2, 0]), 3, live=1)
                  + run(bytes([1, 0]), bytes([2]), bytes([3, 0, 1, 0, 0, 0, 0]), 3, live=1),
}
out = sys.argv[1]
for k, v in seeds.items():
    open(os.path.join(out, k), 'wb').write(v)
