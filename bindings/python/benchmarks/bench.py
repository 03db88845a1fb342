#!/usr/bin/env python3
"""Benchmark (not a test) of the Python binding; numbers go to ../BENCHMARKS.md.

1. Per-call cost of a gradient callback: a Python function vs a raw C function pointer
   (sgsample.Raw), measured as the wall time of an SGHMC run with d = 1 and T = 100 inner steps
   divided by its gradient calls (so the raw figure includes the sampler's own work per step).
2. AMAGOLD from Python on the double well (eps = 0.25, beta = 0.25, T = 10, sigma = 1, gradient
   noise N(0, 1)) with Python and with raw C callbacks, against BlackJAX's SGHMC (jit-compiled,
   lax.scan over the iterations; compile time reported apart) on the same problem and settings.
   Accuracy: E theta and Var theta against the truth -2.148 / 2.862 (SGHMC is biased here).

Run from the repository root with a Python that has sgsample, numpy and (optionally) blackjax:

    python3 -m venv --system-site-packages target/bench-venv
    target/bench-venv/bin/pip install --no-deps ./bindings/python
    target/bench-venv/bin/python bindings/python/benchmarks/bench.py
"""

import ctypes
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

import sgsample  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import models as M  # noqa: E402

TRUTH = (-2.148, 2.862)
EPS, BETA, T = 0.25, 0.25, 10


def compile_models():
    out = os.path.join(tempfile.mkdtemp(), "libsgtmodels.so")
    subprocess.run(["cc", "-O2", "-ffp-contract=off", "-shared", "-fPIC",
                    os.path.join(HERE, "..", "tests", "models.c"), "-lm", "-o", out], check=True)
    return M.typed(ctypes.CDLL(out))


def best_of(n, fn):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t)
    return min(times), r


def per_call(models):
    steps, iters = 100, 200
    calls = steps * iters
    py_t, _ = best_of(3, lambda: sgsample.SGHMC(lambda t, s: t, [0.5], step_size=0.1,
                                                steps=steps).run(iters))
    count = np.zeros(1, np.uint64)
    iters_raw = 20_000
    raw_t, _ = best_of(3, lambda: sgsample.SGHMC(sgsample.Raw(models.count_grad, count), [0.5],
                                                 step_size=0.1, steps=steps).run(iters_raw))
    return py_t / calls, raw_t / (steps * iters_raw)


def amagold_runs(models, iters, eps):
    sd = np.array([1.0])
    rows = []
    for label, e, g, n in [
        ("AMAGOLD, raw C callbacks", sgsample.Raw(models.dw_energy, sd),
         sgsample.Raw(models.dw_grad, sd), iters),
        ("AMAGOLD, Python callbacks", M.dw_energy, M.dw_grad, iters // 10),
    ]:
        # sample_stats=False: the runs in chunks these rows have always measured (recording
        # every iteration's info is one library call per iteration; BENCHMARKS.md).
        t, res = best_of(1, lambda: sgsample.amagold(e, g, [0.0], n, chains=2, seed=1,
                                                     step_size=eps, friction=BETA, steps=T,
                                                     sample_stats=False))
        x = res.samples[..., 0]
        rows.append((label, t / x.size, x.mean(), x.var(), x.size))
    return rows


def blackjax_run(iters, eps):
    import jax

    jax.config.update("jax_enable_x64", True)
    import blackjax
    import jax.numpy as jnp

    def grad_estimator(theta, key):
        # grad log pi + N(0, 1) noise drawn from the minibatch key (BlackJAX hands one
        # minibatch to all T inner steps of a step, so the noise is shared by them).
        x = theta
        g = (4 * x**3 + 3 * x**2 - 26 * x - 1) / 14
        return -(g + jax.random.normal(key, theta.shape, dtype=theta.dtype))

    sghmc = blackjax.sghmc(grad_estimator, num_integration_steps=T, alpha=2.0 * BETA)

    def run(key):
        def body(theta, kk):
            k1, k2 = jax.random.split(kk)
            theta = sghmc.step(k1, theta, k2, eps)
            return theta, theta[0]

        return jax.lax.scan(body, jnp.zeros(1), jax.random.split(key, iters))[1]

    t0 = time.perf_counter()
    fn = jax.jit(run).lower(jax.random.key(0)).compile()
    compile_s = time.perf_counter() - t0
    fn(jax.random.key(1)).block_until_ready()
    t, xs = best_of(3, lambda: np.asarray(fn(jax.random.key(2)).block_until_ready()))
    bad = np.flatnonzero(~np.isfinite(xs))
    note = f"diverged (non-finite from iteration {bad[0]})" if bad.size else ""
    return compile_s, t / iters, xs.mean(), xs.var(), iters, note, jax.__version__, blackjax.__version__


def main():
    models = compile_models()
    py_call, raw_call = per_call(models)
    print("## Per gradient call (SGHMC, d = 1, T = 100; best of 3)")
    print(f"Python callback:      {py_call * 1e6:8.3f} µs per call")
    print(f"raw C pointer (Raw):  {raw_call * 1e9:8.1f} ns per call (sampler step included)")
    print(f"ratio:                {py_call / raw_call:8.0f}x")
    iters = 200_000
    for eps in (EPS, 0.1):
        print(f"\n## Double well, eps={eps}, beta={BETA}, T={T}; truth E={TRUTH[0]}, Var={TRUTH[1]}")
        print(f"{'run':32} {'per iteration':>14} {'E theta':>9} {'Var':>7} {'draws':>8}")
        for label, per, m, v, n in amagold_runs(models, iters, eps):
            print(f"{label:32} {per * 1e6:11.2f} µs {m:9.3f} {v:7.3f} {n:8d}")
        try:
            c, per, m, v, n, note, jv, bv = blackjax_run(iters, eps)
            print(f"{'BlackJAX SGHMC (jit, scan)':32} {per * 1e6:11.2f} µs {m:9.3f} {v:7.3f} "
                  f"{n:8d}   compile {c:.2f} s {note}")
        except ImportError as e:
            print(f"BlackJAX not available ({e}); pip install blackjax")
            jv = bv = None
    if jv:
        print(f"jax {jv}, blackjax {bv}")
    print(f"\nsgsample {sgsample.version()}, numpy {np.__version__}, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
