#!/usr/bin/env python3
"""Benchmark (not a test): the binding's overhead per chain-iteration when K chains run in
lockstep with vectorised numpy callbacks (``amagold(..., chains=K, vectorized=True)``, the C
library's ``sgs_amagold_run_batch``), against the pure-numpy cost of the same callback calls.

Model: the paper's double well U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, d = 1, with unit-variance
gradient noise expanded from each row's minibatch seed (splitmix64 → a uniform → √12·(u − ½),
vectorised over rows); AMAGOLD ε = 0.25, β = 0.25, T = 10, no warm-up. For each K:

1. a calibration run records the size (rows) of every batched call;
2. the timed run (best of ``--repeat``, CPU time of the process) gives the time per
   chain-iteration;
3. the same calls, with arrays of the recorded sizes, are made directly from Python (no
   sampler): the pure-numpy cost of the callbacks;
4. binding overhead per chain-iteration = (2 − 3) / (K · iterations): the C sampler's own
   arithmetic, the batch engine's replay, the trampolines, copying rows in and out; also with
   ``sample_stats=True`` (one library call per round, to record every chain's info).

Also printed: the same K chains with one-row Python callbacks run one after another (what
``chains=K`` without ``vectorized`` does), per chain-iteration.

The second table separates the library from the binding. ``all C``: the same batch run with C
batch callbacks (``tests/models.c``: the same double well, the same values bit for bit, checked)
called through ``sgs_amagold_run_batch`` directly, so the time is the C library's (the batch
engine, the sampler's arithmetic) plus a C model of a few ns per row. The binding's own cost per
chain-iteration is then run − numpy − all C, for ``vectorized=True`` (the callbacks get copies
of X and the seeds and return new arrays, which the binding checks and copies back) and for
``vectorized='inplace'`` (the callbacks get views of the C scratch and write into ``out``;
``tests/models.py``'s ``*_into`` functions, timed the same way for its numpy column).

Run from the repository root with the package installed (``scripts/test-python.sh`` makes a
venv with it):

    target/python-venv/bin/python bindings/python/benchmarks/batch.py
"""

import argparse
import ctypes
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import sgsample

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import models as M  # noqa: E402  (the vectorised double well, shared with the tests)

energy, grad = M.dw_energy_rows, M.dw_grad_rows
energy_into, grad_into = M.dw_energy_rows_into, M.dw_grad_rows_into


# CPU time of this process, not wall time: on a shared machine the other processes' load would
# otherwise be counted (the binding's own cost is CPU work; nothing here waits on I/O).
CLOCK = time.process_time

OPTS = dict(step_size=0.25, friction=0.25, steps=10, sample_stats=False)


def calibrate(k, iters):
    calls = []

    def e(X):
        calls.append(("e", X.shape[0]))
        return energy(X)

    def g(X, s):
        calls.append(("g", X.shape[0]))
        return grad(X, s)

    sgsample.amagold(e, g, np.zeros(1), iters, chains=k, vectorized=True, seed=1, **OPTS)
    return calls


def pure_numpy(calls, repeat, inplace=False):
    rng = np.random.default_rng(0)
    args = [(kind, rng.normal(size=(k, 1)), rng.integers(0, 2**63, k, dtype=np.uint64),
             np.empty(k) if kind == "e" else np.empty((k, 1)))
            for kind, k in calls]
    best = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        if inplace:
            for kind, X, s, out in args:
                if kind == "e":
                    energy_into(X, out)
                else:
                    grad_into(X, s, out)
        else:
            for kind, X, s, _ in args:
                if kind == "e":
                    energy(X)
                else:
                    grad(X, s)
        best = min(best, CLOCK() - t)
    return best


def c_models():
    """tests/models.c compiled to a shared library (ctypes), or None without a C compiler."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    so = os.path.join(tempfile.mkdtemp(), "libsgtmodels.so")
    subprocess.run([cc, "-std=c11", "-O2", "-ffp-contract=off", "-shared", "-fPIC",
                    os.path.join(os.path.dirname(M.__file__), "models.c"), "-lm", "-o", so],
                   check=True)
    return ctypes.CDLL(so)


def all_c(so, k, n, repeat, reference):
    """The same batch run with C batch callbacks, through ``sgs_amagold_run_batch`` directly:
    best CPU time of ``repeat`` runs (each from a fresh batch), after checking that its draws
    are ``reference``'s (the vectorised Python run's) bit for bit."""
    from sgsample import _batch
    ffi, lib = sgsample.ffi, sgsample._lib.lib
    ce = ffi.cast("sgs_batch_energy_fn", ctypes.cast(so.dw_batch_energy, ctypes.c_void_p).value)
    cg = ffi.cast("sgs_batch_gradient_fn", ctypes.cast(so.dw_batch_grad, ctypes.c_void_p).value)
    kw = {key: v for key, v in OPTS.items() if key != "sample_stats"}
    best = float("inf")
    for _ in range(repeat):
        b = _batch.Batch(sgsample.AMAGOLD, energy, grad, np.zeros((k, 1)), 1, 0, np.float64, kw)
        out = np.empty((k, n, 1))
        done = np.zeros(k, np.uintp)
        sums = ffi.new("sgs_amagold_run_summary[]", k)
        args = (b.states, k, n, ce, cg, ffi.NULL, ffi.cast("double *", b.scratch.ctypes.data),
                b.scratch.size, b.max_calls, ffi.cast("double *", out.ctypes.data), out.size,
                ffi.cast("size_t *", done.ctypes.data), sums)
        t = CLOCK()
        st = lib.sgs_amagold_run_batch(*args)
        best = min(best, CLOCK() - t)
        if st != 0 or not np.array_equal(out, reference):
            raise SystemExit(f"the all-C run differs from the Python run (status {st})")
    return best


def timed(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        fn()
        best = min(best, CLOCK() - t)
    return best


def decompose(k, n, repeat):
    """The overhead split: callbacks that do nothing but return ready arrays (so the run is the
    binding and the C engine alone), and the trampoline's own cost per call, timed directly."""
    from sgsample import _batch

    zeros = {r: np.zeros((r, 1)) for r in range(1, k + 1)}
    halves = {r: np.full(r, 0.5) for r in range(1, k + 1)}
    calls = [0]

    def e(X):
        calls[0] += 1
        return halves[X.shape[0]]

    def g(X, s):
        calls[0] += 1
        return zeros[X.shape[0]]

    run = timed(lambda: sgsample.amagold(e, g, np.zeros(1), n, chains=k, vectorized=True, seed=1,
                                         **OPTS), repeat)
    per_iter = calls[0] / repeat / n
    ffi = sgsample.ffi
    args = (ffi.new("double[]", k), k, 1, ffi.new("uint64_t[]", k), ffi.new("size_t[]", k),
            ffi.new("double[]", k), ffi.new("int32_t[]", k))
    # A batch's gradient trampoline (kept alive by `tramps` while `fp` is called).
    tramps = _batch._trampolines(_batch._Py(e, g, None, np.dtype(np.float64)), "")
    fp = ffi.cast("sgs_batch_gradient_fn", tramps[1])
    m = 20000

    def many():
        for _ in range(m):
            fp(ffi.NULL, *args)

    tramp = timed(many, repeat) / m
    total = run / (k * n) * 1e6
    per_chain = tramp * per_iter / k * 1e6
    return total, tramp * 1e6, per_chain, total - per_chain


def python_to_c(repeat, m=200000):
    """A Python → C call of a trivial library function (three integer arguments), µs per call:
    what one round would cost an interface where Python calls the library instead of being
    called back."""
    f = sgsample._lib.lib.sgs_amagold_batch_scratch_len

    def calls():
        for _ in range(m):
            f(16, 1, 12)

    def loop():
        for _ in range(m):
            pass

    return (timed(calls, repeat) - timed(loop, repeat)) / m * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=2000, help="iterations per chain")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ks", default="1,4,16")
    args = ap.parse_args()
    n = args.iters
    so = c_models()
    print(f"sgsample {sgsample.version()}, numpy {np.__version__}, Python "
          f"{platform.python_version()}; AMAGOLD on the double well, eps 0.25, beta 0.25, T 10, "
          f"{n} iterations per chain, best of {args.repeat}")
    print(f"{'K':>3} {'calls/iter':>10} {'run µs/chain-it':>16} {'numpy µs/chain-it':>18} "
          f"{'overhead µs/chain-it':>21} {'+ sample_stats':>15} {'sequential µs/chain-it':>23}")
    split, library = [], []
    for k in [int(x) for x in args.ks.split(",")]:
        calls = calibrate(k, n)
        run = timed(lambda: sgsample.amagold(energy, grad, np.zeros(1), n, chains=k,
                                             vectorized=True, seed=1, **OPTS), args.repeat)
        base = pure_numpy(calls, args.repeat)
        stats = timed(lambda: sgsample.amagold(energy, grad, np.zeros(1), n, chains=k,
                                               vectorized=True, seed=1,
                                               **{**OPTS, "sample_stats": True}), args.repeat)

        def e1(t):
            return float(energy(t[None, :])[0])

        def g1(t, s):
            return grad(t[None, :], np.array([s], np.uint64))[0]

        seq_n = max(50, n // 10)
        seq = timed(lambda: sgsample.amagold(e1, g1, np.zeros(1), seq_n, chains=k, seed=1,
                                             **OPTS), max(1, args.repeat // 2))
        per = 1e6 / (k * n)
        print(f"{k:>3} {len(calls) / n:>10.2f} {run * per:>16.2f} {base * per:>18.2f} "
              f"{(run - base) * per:>21.2f} {(stats - base) * per:>15.2f} "
              f"{seq * 1e6 / (k * seq_n):>23.2f}")
        split.append((k, *decompose(k, n, args.repeat)))
        if so is not None:
            ref = sgsample.amagold(energy, grad, np.zeros(1), n, chains=k, vectorized=True,
                                   seed=1, **OPTS).samples
            inplace = timed(lambda: sgsample.amagold(energy_into, grad_into, np.zeros(1), n,
                                                     chains=k, vectorized="inplace", seed=1,
                                                     **OPTS), args.repeat)
            base_inplace = pure_numpy(calls, args.repeat, inplace=True)
            c = all_c(so, k, n, args.repeat, ref)
            library.append((k, c * per, (run - base - c) * per,
                            (inplace - base_inplace - c) * per, inplace * per,
                            base_inplace * per))
    print("\nThe overhead split (callbacks returning ready arrays: the binding and the C engine "
          "alone)")
    print(f"{'K':>3} {'run µs/chain-it':>16} {'trampoline µs/call':>19} "
          f"{'trampolines µs/chain-it':>24} {'C engine + loop µs/chain-it':>28}")
    for k, total, call, tramp, rest in split:
        print(f"{k:>3} {total:>16.2f} {call:>19.2f} {tramp:>24.2f} {rest:>28.2f}")
    if library:
        print("\nThe library and the binding (µs per chain-iteration; binding = run − numpy − "
              "all C; the all-C draws equal the Python run's)")
        print(f"{'K':>3} {'all C':>8} {'binding (copies)':>17} {'binding (inplace)':>18} "
              f"{'inplace run':>12} {'inplace numpy':>14}")
        for k, c, copies, inplace, irun, ibase in library:
            print(f"{k:>3} {c:>8.2f} {copies:>17.2f} {inplace:>18.2f} {irun:>12.2f} "
                  f"{ibase:>14.2f}")
    else:
        print("\n(no C compiler: the all-C reference and the in-place rows are skipped)")
    print(f"\nA Python -> C call of a trivial library function: {python_to_c(args.repeat):.3f} "
          "µs per call")


if __name__ == "__main__":
    main()
