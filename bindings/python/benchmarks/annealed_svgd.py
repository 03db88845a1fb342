#!/usr/bin/env python3
"""Benchmark (not a test): annealed SVGD (``anneal=...``, docs/algorithms.md §2.8) against plain
SVGD and RBM-SVGD on two targets, each over ``--starts`` seeds; printed per schedule and batch
size: the mode weights' mean ± standard error over the starts, their z-score against the exact
weights, and how many starts reached every mode (at least one particle nearest to it).

Mixture: 4 well-separated Gaussians in 2-d with unequal weights (0.1, 0.2, 0.3, 0.4 at (±4, ±4),
unit covariances), started far from three of them (N = 100 particles from N((−8, −8), 0.5²I)).
3000 iterations, AdaGrad η = 0.5, the Gaussian kernel with the median bandwidth; a particle
belongs to the nearest mode.

Double banana: the RBM-SVGD paper's Bayesian inverse problem (docs/algorithms.md §2.4,
examples-c/double_banana.c) in its setting: N = 512 particles, fixed Gaussian kernel h = 0.1,
AdaGrad η = 0.01, 800 iterations; started as in the paper from N(0, 0.4²I), between the two
modes, and once from N((0, −1.5), 0.1²I), below the lower one. Its two modes are the bananas
either side of the parabola x₂ = x₁² (they meet only near x₁ ≈ −5, where the density is below
e⁻¹²); a particle belongs to the side it is on.

Every row is printed twice: the particles' shares, and ("+ weights") the shares of their
importance weights (``sgsample.particle_weights`` with the median bandwidth, docs/algorithms.md
§2.9), with the weights' mean effective sample size. The exact mass of the upper banana comes from
the midpoint rule on [−5, 5]² (2000² cells; its error is estimated from 1000² cells). Also
printed: the root mean square over the starts of one start's weight error, which the mean over
starts can hide.

    target/python-venv/bin/python bindings/python/benchmarks/annealed_svgd.py [--starts 50]
        [--targets mixture banana]
"""

import argparse
import time

import numpy as np

import sgsample

MU = np.array([[-4.0, -4.0], [-4.0, 4.0], [4.0, -4.0], [4.0, 4.0]])
W = np.array([0.1, 0.2, 0.3, 0.4])

Y, SIGMA = 3.57857342, 0.3


def mixture_grads(X, seed):
    """∇V of the mixture: Σ_k r_k(x)·(x − μ_k), r the responsibilities."""
    d = X[:, None, :] - MU[None, :, :]
    lp = -0.5 * (d ** 2).sum(axis=2) + np.log(W)
    lp -= lp.max(axis=1, keepdims=True)
    r = np.exp(lp)
    r /= r.sum(axis=1, keepdims=True)
    return (r[:, :, None] * d).sum(axis=1)


def mixture_energy(X):
    """V = −log π of the mixture (up to its constant)."""
    lp = -0.5 * ((X[:, None, :] - MU[None, :, :]) ** 2).sum(axis=2) + np.log(W)
    m = lp.max(axis=1)
    return -(m + np.log(np.exp(lp - m[:, None]).sum(axis=1)))


def mixture_weights(X, w=None):
    """The modes' shares: of the particles, or of the importance weights ``w``."""
    k = ((X[:, None, :] - MU[None]) ** 2).sum(axis=2).argmin(axis=1)
    if w is None:
        return np.bincount(k, minlength=4) / len(X)
    return np.bincount(k, weights=w, minlength=4)


def banana_potential(x1, x2):
    """V(x) = |x|²/2 + (y − F(x))²/(2σ²), F(x) = log((1 − x₁)² + 100(x₂ − x₁²)²)."""
    f = np.log((1.0 - x1) ** 2 + 100.0 * (x2 - x1 * x1) ** 2)
    return 0.5 * (x1 * x1 + x2 * x2) + (Y - f) ** 2 / (2.0 * SIGMA ** 2)


def banana_grads(X, seed):
    x1, x2 = X[:, 0], X[:, 1]
    a, b = 1.0 - x1, x2 - x1 * x1
    q = a * a + 100.0 * b * b
    r = (Y - np.log(q)) / SIGMA ** 2
    return np.stack([x1 + r * (2.0 * a + 400.0 * b * x1) / q, x2 - r * 200.0 * b / q], axis=1)


def banana_energy(X):
    return banana_potential(X[:, 0], X[:, 1])


def banana_weights(X, w=None):
    """Shares of the lower (x₂ < x₁²) and the upper banana: of the particles, or of the
    importance weights ``w``."""
    upper = X[:, 1] > X[:, 0] ** 2
    up = np.mean(upper) if w is None else w[upper].sum()
    return np.array([1.0 - up, up])


def banana_truth(cells):
    """Masses of the lower and upper banana by the midpoint rule on [−5, 5]²."""
    h = 10.0 / cells
    g = -5.0 + (np.arange(cells) + 0.5) * h
    up = 0.0
    z = 0.0
    for x1 in np.array_split(g, 8):  # in slabs, to bound the memory
        a, b = np.meshgrid(x1, g, indexing="ij")
        w = np.exp(-banana_potential(a, b))
        z += w.sum()
        up += w[b > a * a].sum()
    return np.array([1.0 - up / z, up / z])


# Draws from the particles' kernel density estimate per start (sgsample.kde_draws, median
# bandwidth), weighted by π over that density (sgsample.kde_weights).
DRAWS = 4096


def exact_draws_control(truth, starts, n, cells=1000):
    """The weights' own bias: n independent draws from π itself (a cell of the 1000² midpoint
    grid drawn by its mass, then a uniform point in it), per start, weighted as the particles
    are. Exact draws need no correction; whatever the weights move is the estimator's bias."""
    h = 10.0 / cells
    g = -5.0 + (np.arange(cells) + 0.5) * h
    a, b = np.meshgrid(g, g, indexing="ij")
    p = np.exp(-banana_potential(a, b)).ravel()
    p /= p.sum()
    raw, weighted, kde = [], [], []
    for seed in range(starts):
        rng = np.random.default_rng(10_000 + seed)
        k = rng.choice(p.size, size=n, p=p)
        X = np.stack([a.ravel()[k], b.ravel()[k]], axis=1) + rng.uniform(-h / 2, h / 2, (n, 2))
        raw.append(banana_weights(X))
        weighted.append(banana_weights(X, sgsample.particle_weights(X, banana_energy(X))))
        y = sgsample.kde_draws(X, DRAWS, seed=seed)
        kde.append(banana_weights(y, sgsample.kde_weights(X, y, banana_energy(y))))
    print(f"\nControl: {n} exact draws from π per start, {starts} starts "
          f"(upper banana; z vs truth)")
    for kind, ws in (("exact draws", raw), ("exact draws + weights", weighted),
                     (f"exact draws + {DRAWS} KDE draws", kde)):
        ws = np.array(ws)[:, 1]
        m, se = ws.mean(), ws.std(ddof=1) / np.sqrt(len(ws))
        print(f"{kind:>46}  {m:.4f}±{se:.4f} ({(m - truth[1]) / se:+.1f})  "
              f"[{np.sqrt(((ws - truth[1]) ** 2).mean()):.3f}]", flush=True)


def schedules(ramp, hyperbolic):
    """Plain SVGD, one linear ramp over `ramp` iterations (the cyclical schedule with one cycle),
    and the hyperbolic schedule for each (iterations, power) of `hyperbolic`."""
    out = [("plain", {}),
           (f"cyclical, 1 ramp over {ramp}, p = 1",
            dict(anneal="cyclical", anneal_iterations=ramp, anneal_cycles=1, anneal_power=1.0))]
    for iters, power in hyperbolic:
        out.append((f"hyperbolic over {iters}, p = {power:g}",
                    dict(anneal="hyperbolic", anneal_iterations=iters, anneal_power=power)))
    return out


def table(name, truth, starts, n, p_values, runs, init, grads, weights, energy, **common):
    print(f"\n{name}: sgsample {sgsample.version()}; N = {n}, {common['iters']} iterations, "
          f"{starts} starts; exact weights {np.array2string(truth, precision=4)}")
    print(f"{'schedule':>46} {'p':>4} {'all modes':>10}  mode weights (mean ± s.e.; z vs truth)"
          f"  [rms error of one start]")
    iters = common.pop("iters")
    for sname, sched in runs:
        for p in p_values:
            t0 = time.time()
            raw, weighted, kde, ess, kde_ess = [], [], [], [], []
            for seed in range(starts):
                s = sgsample.SVGD(init(np.random.default_rng(seed), n), grads=grads, batch_size=p,
                                  seed=seed, **common, **sched)
                X = s.run(iters)
                # Importance weights from the particles' own density (median bandwidth).
                w = sgsample.particle_weights(X, energy(X))
                raw.append(weights(X))
                weighted.append(weights(X, w))
                ess.append(1.0 / (w * w).sum())
                # Importance sampling with the particles' density as the proposal.
                y = sgsample.kde_draws(X, DRAWS, seed=seed)
                wk = sgsample.kde_weights(X, y, energy(y))
                kde.append(weights(y, wk))
                kde_ess.append(1.0 / (wk * wk).sum())
            for kind, ws, es, of in (("", raw, None, n), (" + weights", weighted, ess, n),
                                     (" + KDE draws", kde, kde_ess, DRAWS)):
                ws = np.array(ws)
                m = ws.mean(axis=0)
                se = ws.std(axis=0, ddof=1) / np.sqrt(len(ws))
                z = (m - truth) / np.where(se > 1e-9, se, np.nan)  # no spread: no z
                rms = np.sqrt(((ws - truth) ** 2).mean(axis=0))
                cells = "  ".join(f"{mi:.3f}±{si:.3f} ({zi:+.1f})" for mi, si, zi in zip(m, se, z))
                found = int(np.sum((np.array(raw) > 0).all(axis=1)))
                extra = f"  ESS {np.mean(es):.0f} of {of}" if es else ""
                print(f"{sname + kind:>46} {p:>4} {found:>5}/{starts:<4}  {cells}  "
                      f"[{' '.join(f'{r:.3f}' for r in rms)}]{extra}   ({time.time() - t0:.0f} s)",
                      flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--starts", type=int, default=50)
    ap.add_argument("--targets", nargs="+", choices=["mixture", "banana"],
                    default=["mixture", "banana"])
    args = ap.parse_args()
    if "mixture" in args.targets:
        table("Mixture of 4 Gaussians", W, args.starts, 100, (100, 10),
              schedules(1500, [(1500, 1.0), (1500, 10.0)]),
              lambda rng, n: rng.normal(size=(n, 2)) * 0.5 + np.array([-8.0, -8.0]),
              mixture_grads, mixture_weights, mixture_energy, iters=3000, step_size=0.5, kernel="gaussian_median")
    if "banana" in args.targets:
        t0 = time.time()
        truth, coarse = banana_truth(2000), banana_truth(1000)
        print(f"\nDouble banana, quadrature: upper-banana mass {truth[1]:.6f} (2000² cells), "
              f"{coarse[1]:.6f} (1000²), {time.time() - t0:.1f} s")
        exact_draws_control(truth, args.starts, 512)
        banana = schedules(400, [(400, 1.0), (400, 10.0), (700, 10.0)])
        setting = dict(iters=800, step_size=0.01, kernel="gaussian", bandwidth=0.1)
        table("Double banana, the paper's start N(0, 0.4²I)", truth, args.starts, 512, (512, 64),
              banana, lambda rng, n: rng.normal(size=(n, 2)) * 0.4, banana_grads,
              banana_weights, banana_energy, **setting)
        table("Double banana, one-sided start N((0, −1.5), 0.1²I)", truth, args.starts, 512,
              (512, 64), banana,
              lambda rng, n: rng.normal(size=(n, 2)) * 0.1 + np.array([0.0, -1.5]),
              banana_grads, banana_weights, banana_energy, **setting)


if __name__ == "__main__":
    main()
