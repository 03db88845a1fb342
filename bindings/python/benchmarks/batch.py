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
``chains=K`` without ``vectorized`` does), per chain-iteration; and the run, the numpy cost and
their difference with ``vectorized='inplace'`` (``tests/models.py``'s ``dw_*_rows_into``).

The second table separates the binding from the model and from the library with a model
that costs almost nothing: callbacks writing constants (every gradient 0, every energy 1/2),
for ``vectorized=True`` (returning ready arrays) and ``vectorized='inplace'`` (writing into
``out``). ``all C``: the same batch run with C batch callbacks writing the same constants
(``tests/models.c``, ``zero_batch_*``; the draws are checked equal to the Python run's) called
through ``sgs_amagold_run_batch`` directly: the C library's own cost (the batch engine and the
sampler). ``model``: the Python callables alone, called as often with arrays of the recorded
sizes. The binding's cost per chain-iteration = run − model − all C, the runs timed per
iteration beyond the first (a call's fixed part, the K chain objects and the result, is not a
cost per chain-iteration); ``+ sample_stats``: the in-place binding with ``sample_stats=True``
(the default: every iteration's info records, against an all-C run that records them too). With the numpy
double well instead the same difference comes out larger and varies from run to run by about
as much as the binding's whole cost: a model that costs 9 µs per chain-iteration in a loop of
its own costs more between the sampler's C code, which a subtraction cannot separate from the
binding.

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
    """The double well's numpy callables alone, called as the run calls them."""
    pair = (energy_into, grad_into) if inplace else (energy, grad)
    return model_alone(calls, pair, inplace, repeat)


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


def all_c(so, k, n, repeat, reference, names, pair, infos=False):
    """The same batch run with the C batch callbacks ``names`` (energy, gradient) through
    ``sgs_amagold_run_batch`` directly (``infos``: ``sgs_amagold_run_batch_infos``, recording
    every iteration's info record, as ``sample_stats=True`` does): best CPU time of ``repeat``
    runs (each from a fresh batch whose chains start with ``pair``, the Python callables the C
    ones mirror), after checking that its draws are ``reference``'s (the Python run's) bit for
    bit."""
    from sgsample import _batch
    ffi, lib = sgsample.ffi, sgsample._lib.lib
    ce = ffi.cast("sgs_batch_energy_fn", ctypes.cast(getattr(so, names[0]), ctypes.c_void_p).value)
    cg = ffi.cast("sgs_batch_gradient_fn",
                  ctypes.cast(getattr(so, names[1]), ctypes.c_void_p).value)
    kw = {key: v for key, v in OPTS.items() if key != "sample_stats"}
    best = float("inf")
    for _ in range(repeat):
        b = _batch.Batch(sgsample.AMAGOLD, *pair, np.zeros((k, 1)), 1, 0, np.float64, kw)
        out = np.empty((k, n, 1))
        done = np.zeros(k, np.uintp)
        sums = ffi.new("sgs_amagold_run_summary[]", k)
        args = (b.states, k, n, ce, cg, ffi.NULL, ffi.cast("double *", b.scratch.ctypes.data),
                b.scratch.size, b.max_calls, ffi.cast("double *", out.ctypes.data), out.size,
                ffi.cast("size_t *", done.ctypes.data), sums)
        if infos:
            rec = np.zeros((k, n), sgsample.AMAGOLD.INFO_DTYPE)
            args += (ffi.cast("sgs_amagold_info *", rec.ctypes.data),)
        t = CLOCK()
        st = (lib.sgs_amagold_run_batch_infos if infos else lib.sgs_amagold_run_batch)(*args)
        best = min(best, CLOCK() - t)
        if st != 0 or not np.array_equal(out, reference):
            raise SystemExit(f"the all-C run differs from the Python run (status {st})")
    return best


def free_models(k):
    """Callables writing constants (gradient 0, energy 1/2), returning ready arrays and in
    place: the binding's cost with a model that costs almost nothing."""
    zeros = {r: np.zeros((r, 1)) for r in range(1, k + 1)}
    halves = {r: np.full(r, 0.5) for r in range(1, k + 1)}

    def e(X):
        return halves[X.shape[0]]

    def g(X, s):
        return zeros[X.shape[0]]

    def e_into(X, out):
        out.fill(0.5)

    def g_into(X, s, out):
        out.fill(0.0)

    return (e, g), (e_into, g_into)


def model_alone(calls, pair, inplace, repeat):
    """``pair``'s callables alone, called as the run calls them (``calls``: kind and rows), on
    arrays of those sizes: best CPU time of ``repeat``."""
    e, g = pair
    rng = np.random.default_rng(0)
    args = [(kind, rng.normal(size=(k, 1)), rng.integers(0, 2**63, k, dtype=np.uint64),
             np.empty(k) if kind == "e" else np.empty((k, 1))) for kind, k in calls]

    def loop():
        if inplace:
            for kind, X, s, out in args:
                if kind == "e":
                    e(X, out)
                else:
                    g(X, s, out)
        else:
            for kind, X, s, _ in args:
                if kind == "e":
                    e(X)
                else:
                    g(X, s)

    return timed(loop, repeat)


def timed(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        fn()
        best = min(best, CLOCK() - t)
    return best


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
          f"{'overhead µs/chain-it':>21} {'+ sample_stats':>15} {'sequential µs/chain-it':>23} "
          f"{'inplace: run':>13} {'numpy':>6} {'overhead':>9}")
    split = []
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
        irun = timed(lambda: sgsample.amagold(energy_into, grad_into, np.zeros(1), n, chains=k,
                                              vectorized="inplace", seed=1, **OPTS), args.repeat)
        ibase = pure_numpy(calls, args.repeat, inplace=True)
        per = 1e6 / (k * n)
        print(f"{k:>3} {len(calls) / n:>10.2f} {run * per:>16.2f} {base * per:>18.2f} "
              f"{(run - base) * per:>21.2f} {(stats - base) * per:>15.2f} "
              f"{seq * 1e6 / (k * seq_n):>23.2f} {irun * per:>13.2f} {ibase * per:>6.2f} "
              f"{(irun - ibase) * per:>9.2f}")
        if so is not None:
            split.append((k, *binding_split(so, k, n, args.repeat)))
    if not split:
        print("\n(no C compiler: the binding's split is skipped)")
        return
    print("\nThe binding apart (µs per chain-iteration; callbacks writing constants; binding = "
          "run − model − all C; the all-C draws equal the Python runs')")
    print(f"{'K':>3} {'all C':>7} {'copies: run':>12} {'model':>6} {'binding':>8} "
          f"{'inplace: run':>13} {'model':>6} {'binding':>8} {'+ sample_stats':>15}")
    for k, c, run, model, irun, imodel, srun in split:
        print(f"{k:>3} {c:>7.2f} {run:>12.2f} {model:>6.2f} {run - model - c:>8.2f} "
              f"{irun:>13.2f} {imodel:>6.2f} {irun - imodel - c:>8.2f} "
              f"{srun - imodel - c:>15.2f}")


def binding_split(so, k, n, repeat):
    """All C, and per mode the run and the model alone (µs per chain-iteration), with the
    constant-writing callables; the runs' draws checked against the all-C run's."""
    copies, inplace = free_models(k)
    sizes = []

    def e(X):
        sizes.append(("e", X.shape[0]))
        return copies[0](X)

    def g(X, s):
        sizes.append(("g", X.shape[0]))
        return copies[1](X, s)

    ref = sgsample.amagold(e, g, np.zeros(1), n, chains=k, vectorized=True, seed=1,
                           **OPTS).samples
    got = sgsample.amagold(*inplace, np.zeros(1), n, chains=k, vectorized="inplace", seed=1,
                           **OPTS).samples
    if not np.array_equal(got, ref):
        raise SystemExit("the in-place run differs from the copying run")
    zero = ("zero_batch_energy", "zero_batch_grad")
    c = all_c(so, k, n, repeat, ref, zero, copies)
    cs = all_c(so, k, n, repeat, ref, zero, copies, infos=True)

    def marginal(pair, mode, stats=False):
        # Per iteration beyond the first: a call's fixed part (the K chain objects, their init,
        # the result: about 0.6 ms at K = 16) is not a cost per chain-iteration.
        def t(m):
            return timed(lambda: sgsample.amagold(*pair, np.zeros(1), m, chains=k,
                                                  vectorized=mode, seed=1,
                                                  **{**OPTS, "sample_stats": stats}), repeat)
        return (t(n) - t(1)) * n / (n - 1)

    run, irun = marginal(copies, True), marginal(inplace, "inplace")
    srun = marginal(inplace, "inplace", stats=True)
    per = 1e6 / (k * n)
    return (c * per, run * per, model_alone(sizes, copies, False, repeat) * per, irun * per,
            model_alone(sizes, inplace, True, repeat) * per, (srun - cs + c) * per)


if __name__ == "__main__":
    main()
