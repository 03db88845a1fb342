#!/usr/bin/env python3
"""Benchmark (not a test): Stein thinning (``sgsample.stein_thin``, the C library's
``sgs_stein_thin``) on the output of SGLD and SGHMC run at large step sizes, against the raw
output and against AMAGOLD at equal gradient evaluations; and the selected indices and the time
against the ``stein-thinning`` Python package on the same inputs, same run (if it is installed:
``pip install stein-thinning``).

Targets: a correlated 2-d Gaussian (exact moments), and a Bayesian logistic regression on
synthetic data (N = 1000 points, d = 3 with the intercept, N(0, 10²) prior; moments from a long
AMAGOLD run with full gradients). Stochastic gradients: the Gaussian's with unit N(0, 1) noise
per coordinate from the minibatch seed; the regression's from minibatches of 100 points.

For each target and each of R seeds: n iterations of the biased sampler (SGLD one stochastic
gradient each, SGHMC ``steps`` each); its raw draws; the m draws Stein thinning picks from them
(which needs the full-data ∇V at each of the n draws: counted in the table's cost column); and
AMAGOLD with the same number of stochastic gradient evaluations as the raw run (its T gradients
and one full-data energy per iteration). Errors: |mean − truth| and |variance − truth| in the
Euclidean norm over coordinates, mean ± standard error over the R seeds.

Run from the repository root with the package installed (``scripts/test-python.sh`` makes a
venv with it):

    target/python-venv/bin/python bindings/python/benchmarks/thinning.py [--reps 10]
"""

import argparse
import time

import numpy as np

import sgsample

# -- targets ---------------------------------------------------------------------------------

SIGMA = np.array([[1.0, 0.8], [0.8, 1.0]])
PREC = np.linalg.inv(SIGMA)


def gauss_grad_full(x):
    return x @ PREC


def gauss_energy(t):
    return 0.5 * float(t @ PREC @ t)


def gauss_grad(t, seed):
    return PREC @ t + sgsample.normal(seed, t.size)


def make_logistic(seed=12, n=1000):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.normal(size=(n, 2))])
    beta = np.array([-0.5, 1.2, -0.8])
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-X @ beta))).astype(float)
    batch = 100

    def energy(t):
        z = X @ t
        return float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 * t @ t / 100)

    def grad_full(T):
        T = np.atleast_2d(T)
        p = 1 / (1 + np.exp(-T @ X.T))
        return (p - y) @ X + T / 100

    def grad(t, seed):
        idx = sgsample.minibatch(seed, n, batch).astype(np.intp)
        Xb, yb = X[idx], y[idx]
        p = 1 / (1 + np.exp(-Xb @ t))
        return (n / batch) * ((p - yb) @ Xb) + t / 100

    return energy, grad, grad_full


# -- experiment ------------------------------------------------------------------------------

def errors(draws, mean, var):
    return (np.linalg.norm(draws.mean(axis=0) - mean),
            np.linalg.norm(draws.var(axis=0) - var))


def one_target(name, energy, grad, grad_full, x0, truth, cfg, reps, n, m):
    mean, var = truth
    rows = {}
    for r in range(reps):
        seed = 1000 + r
        for sampler in ("sgld", "sghmc"):
            opts = cfg[sampler]
            run = getattr(sgsample, sampler)(grad, x0, n, seed=seed, sample_stats=False, **opts)
            raw = run.samples[0]
            idx = sgsample.stein_thin(raw, grad_full(raw), m)
            per = opts.get("steps", 1)
            rows.setdefault((sampler, "raw", n * per, 0), []).append(errors(raw, mean, var))
            rows.setdefault((sampler, f"Stein-thinned to {m}", n * per, n), []).append(
                errors(raw[idx], mean, var))
            raw_m = raw[np.linspace(0, n - 1, m).astype(int)]
            rows.setdefault((sampler, f"every {n // m}-th ({m})", n * per, 0), []).append(
                errors(raw_m, mean, var))
        a = cfg["amagold"]
        iters = max(1, (n * cfg["sghmc"].get("steps", 1)) // a["steps"])
        run = sgsample.amagold(energy, grad, x0, iters, seed=seed, sample_stats=False, **a)
        rows.setdefault(("amagold", "raw", iters * a["steps"], iters), []).append(
            errors(run.samples[0], mean, var))
    print(f"\n{name}: n = {n} iterations, R = {reps} seeds (mean ± s.e. over seeds)")
    print(f"{'sampler':>8} {'draws':>24} {'stoch. grads':>12} {'full evals':>10} "
          f"{'|mean err|':>18} {'|var err|':>18}")
    for (s, what, cost, full), errs in rows.items():
        e = np.array(errs)
        mu, se = e.mean(axis=0), e.std(axis=0, ddof=1) / np.sqrt(len(e))
        print(f"{s:>8} {what:>24} {cost:>12} {full:>10} {mu[0]:>10.4f} ± {se[0]:.4f} "
              f"{mu[1]:>10.4f} ± {se[1]:.4f}")


def versus_package(energy, grad, grad_full, x0, name, cfg, n, m):
    try:
        from stein_thinning.thinning import thin
    except ImportError:
        print(f"\n{name}: the stein-thinning package is not installed; index comparison skipped")
        return
    raw = sgsample.sgld(grad, x0, n, seed=7, sample_stats=False, **cfg["sgld"]).samples[0]
    g = grad_full(raw)
    print(f"\n{name}: SGLD output, n = {n}, m = {m}: sgsample.stein_thin vs stein_thinning.thin "
          "(score = −∇V)")
    for pre in ("id", "med", "sclmed"):
        t0 = time.process_time()
        ours = sgsample.stein_thin(raw, g, m, preconditioner=pre)
        t1 = time.process_time()
        theirs = thin(raw, -g, m, preconditioner=pre)
        t2 = time.process_time()
        same = np.mean(ours == theirs)
        first = int(np.argmax(ours != theirs)) if same < 1 else m
        print(f"  preconditioner {pre:>6}: identical indices {same:6.1%} (first difference at "
              f"{first}); CPU time {1e3 * (t1 - t0):8.1f} ms vs {1e3 * (t2 - t1):8.1f} ms "
              f"({(t2 - t1) / max(t1 - t0, 1e-9):.1f}x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--m", type=int, default=100)
    args = ap.parse_args()
    print(f"sgsample {sgsample.version()}, numpy {np.__version__}")

    gcfg = dict(sgld=dict(step_size=0.3), sghmc=dict(step_size=0.3, steps=5),
                amagold=dict(step_size=0.3, steps=10))
    x0 = np.zeros(2)
    versus_package(gauss_energy, gauss_grad, gauss_grad_full, x0, "Gaussian", gcfg, args.n, args.m)
    one_target("Correlated 2-d Gaussian", gauss_energy, gauss_grad, gauss_grad_full, x0,
               (np.zeros(2), np.diag(SIGMA)), gcfg, args.reps, args.n, args.m)

    energy, grad, grad_full = make_logistic()
    lcfg = dict(sgld=dict(step_size=0.004), sghmc=dict(step_size=0.004, steps=5),
                amagold=dict(step_size=0.03, steps=10))
    x0 = np.zeros(3)
    t0 = time.time()
    ref = sgsample.amagold(energy, lambda t, s: grad_full(t)[0], x0, 40000, seed=99,
                           sample_stats=False, step_size=0.03, steps=10).samples[0][2000:]
    print(f"\nlogistic regression reference: 38000 AMAGOLD draws with full gradients "
          f"({time.time() - t0:.0f} s): mean {np.round(ref.mean(axis=0), 3)}, "
          f"var {np.round(ref.var(axis=0), 4)}")
    versus_package(energy, grad, grad_full, x0, "Logistic regression", lcfg, args.n, args.m)
    one_target("Logistic regression", energy, grad, grad_full, x0,
               (ref.mean(axis=0), ref.var(axis=0)), lcfg, args.reps, args.n, args.m)


if __name__ == "__main__":
    main()
