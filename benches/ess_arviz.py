#!/usr/bin/env python3
"""The streaming ESS (sgsample's C library, window 128) against ArviZ on the same AR(1) draws of
known τ, a subset of examples/ess_ar1.rs's grid (docs/benchmarks.md, "Honest ESS").

    /work/venv-bench/bin/python benches/ess_arviz.py [--reps 20] [--no-build]

Needs numpy, scipy and arviz. Builds the C library (cargo build --release -p sgsample-capi) and imports
the Python binding from the source tree with that library and include/sgsample.h (no install).

Per cell, estimate/truth for: sgsample (``Stats.ess``: the reported value, and the share of runs
flagged), ``arviz.stats.diagnostics._ess`` (ArviZ's unsplit estimator, what sgsample equals when
its flags are 0), ``arviz.ess`` (its default: rank-normalised split "bulk" ESS), and the rule of
sgsample 0.3.0 written out in numpy (Geyer over the 128-lag window, else 16 batch means taken as
independent). The AR(1) chain x_t = φ·x_{t−1} + √(1 − φ²)·z_t starts in N(0, 1); τ = (1 + φ)/(1 − φ);
the truth is n/τ. Columns: median and maximum over the replicates.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_binding(build):
    if build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "sgsample-capi"], cwd=ROOT,
                       check=True)
    pkg = os.path.join(tempfile.mkdtemp(prefix="sgsample-ess-"), "sgsample")
    shutil.copytree(os.path.join(ROOT, "bindings", "python", "sgsample"), pkg)
    shutil.copy(os.path.join(ROOT, "include", "sgsample.h"), pkg)
    os.environ["SGSAMPLE_LIB"] = os.path.join(ROOT, "target", "release", "libsgsample.so")
    sys.path.insert(0, os.path.dirname(pkg))
    import sgsample  # noqa: E402

    return sgsample


def ar1(tau, n, reps, rng):
    from scipy.signal import lfilter  # noqa: E402

    phi = (tau - 1.0) / (tau + 1.0)
    x = np.empty((reps, n))
    x[:, 0] = rng.standard_normal(reps)
    z = rng.standard_normal((reps, n - 1)) * np.sqrt(1.0 - phi * phi)
    x[:, 1:], _ = lfilter([1.0], [1.0, -phi], z, axis=1, zi=phi * x[:, :1])
    return x


def autocov(x, lags):
    """Biased autocovariances around the mean, lags 0..lags (FFT)."""
    n = x.size
    xc = x - x.mean()
    m = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(xc, m)
    return np.fft.irfft(f * np.conj(f), m)[: lags + 1] / n


def old_rule(x, window=128, batches=16):
    """sgsample 0.3.0's ESS of one chain: Geyer's sequence over the window, else 16 batch means."""
    n = x.size
    g = autocov(x, min(window, n - 1))
    mean_var = g[0] * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    rho = lambda t: 1.0 - (mean_var - g[t]) / var_plus  # noqa: E731
    even, odd, stored, total, prev, t = 1.0, rho(1), True, 0.0, np.inf, 1
    while t < n - 3 and even + odd > 0:
        pair = min(even + odd, prev)
        total += pair
        prev = pair
        if t + 2 > window:
            b = 1  # the batch length: the smallest 2^j with 16·2^j >= n
            while batches * b < n:
                b *= 2
            nb = n // b
            means = x[: nb * b].reshape(nb, b).mean(axis=1)
            return n * var_plus / (means.var(ddof=1) * b)
        even, odd = rho(t + 1), rho(t + 2)
        stored = even + odd >= 0
        t += 2
    tail = even if (even > 0 or stored) else 0.0
    tau = max(-1.0 + 2.0 * total + tail, 1.0 / np.log10(n))
    return n / tau


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    sg = load_binding(not args.no_build)
    import arviz as az
    from arviz.stats.diagnostics import _ess as az_unsplit

    rng = np.random.default_rng(20261205)
    print(f"sgsample {sg.version()}, arviz {az.__version__}, numpy {np.__version__}; "
          f"{args.reps} replicates per cell; estimate/truth, median (max)\n")
    print("| n | τ | n/τ | sgsample | flagged | ArviZ unsplit `_ess` | ArviZ `ess` (bulk) | "
          "sgsample 0.3.0 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    cells = [(n, tau) for n in (1000, 10_000, 100_000) for tau in (1, 10, 30, 100, 300, 1000, 10_000)]
    for n, tau in cells:
        x = ar1(tau, n, args.reps, rng)
        truth = n / tau
        st = sg.Stats(args.reps).push(x.T)  # one coordinate per replicate
        ours = st.ess() / truth
        flagged = np.mean(st.ess_flags() != 0)
        unsplit = np.array([az_unsplit(c) for c in x]) / truth
        bulk = np.array([az.ess(c[None, :]) for c in x], dtype=float) / truth
        old = np.array([old_rule(c) for c in x]) / truth
        cell = lambda r: f"{np.median(r):.2f} ({r.max():.2f})"  # noqa: E731
        print(f"| {n} | {tau} | {n / tau:g} | {cell(ours)} | {flagged:.0%} | {cell(unsplit)} | "
              f"{cell(bulk)} | {cell(old)} |", flush=True)

    print("\nNo finite truth (ESS itself, median (max))\n")
    print("| series | n | sgsample | ArviZ unsplit | ArviZ bulk | sgsample 0.3.0 |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in (2000, 100_000):
        trend = np.arange(float(n))[None, :]
        walk = np.cumsum(rng.standard_normal((args.reps, n)), axis=1)
        for name, xs in (("linear trend 0..n−1", trend), ("random walk", walk)):
            st = sg.Stats(xs.shape[0]).push(xs.T)
            cols = [st.ess(), np.array([az_unsplit(c) for c in xs]),
                    np.array([az.ess(c[None, :]) for c in xs], dtype=float),
                    np.array([old_rule(c) for c in xs])]
            print(f"| {name} | {n} | " + " | ".join(f"{np.median(c):.2f} ({c.max():.2f})"
                                                    for c in cols) + " |", flush=True)

    print("\nA slow component: AR(1) τ = 3 plus a·AR(1) τ = 3000 (true τ = (3 + 3000a²)/(1 + a²)); "
          "estimate/truth, median (max)\n")
    print("| a² | n | n/τ | sgsample | flagged | ArviZ unsplit | ArviZ bulk |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for a2 in (0.02, 0.2):
        tau = (3.0 + 3000.0 * a2) / (1.0 + a2)
        for n in (10_000, 100_000):
            x = ar1(3.0, n, args.reps, rng) + np.sqrt(a2) * ar1(3000.0, n, args.reps, rng)
            truth = n / tau
            st = sg.Stats(args.reps).push(x.T)
            cols = [st.ess() / truth]
            unsplit = np.array([az_unsplit(c) for c in x]) / truth
            bulk = np.array([az.ess(c[None, :]) for c in x], dtype=float) / truth
            print(f"| {a2} | {n} | {n / tau:.0f} | {np.median(cols[0]):.2f} ({cols[0].max():.2f}) | "
                  f"{np.mean(st.ess_flags() != 0):.0%} | {np.median(unsplit):.2f} "
                  f"({unsplit.max():.2f}) | {np.median(bulk):.2f} ({bulk.max():.2f}) |", flush=True)


if __name__ == "__main__":
    main()
