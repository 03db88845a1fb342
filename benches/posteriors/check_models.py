#!/usr/bin/env python3
"""Sanity checks of every model in posteriors.models (a quick script, not part of the tests).

    nice -n 10 /work/venv-bench/bin/python benches/posteriors/check_models.py [names...]
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/check_models.py --at-reference [names...]

Per model: finds a mode by L-BFGS from a uniform(-2, 2) start, prints the Laplace sds (from the
JAX Hessian), checks the gradient against central finite differences (steps scaled by those
sds) at the mode (slightly moved) and at the start, and checks that the log density is finite
at the mode and, once reference.json exists, at the reference mean.  --at-reference: only the
quick part (finite log density and gradient at the reference mean, finite differences there).
Exits non-zero on failure.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

from posteriors.models import MODELS, load_reference  # noqa: E402


def find_mode(m, rng, tries=5):
    best = None
    for _ in range(tries):
        x0 = m.init_uniform(rng)
        r = minimize(m.energy_and_grad, x0, jac=True, method="L-BFGS-B",
                     options={"maxiter": 20000, "maxfun": 40000, "ftol": 1e-15, "gtol": 1e-9})
        if np.isfinite(r.fun) and (best is None or r.fun < best.fun):
            best = r
    return best


def laplace_sd(m, x):
    H = np.asarray(jax.hessian(lambda t: -m.logdensity(t))(x))
    try:
        return np.sqrt(np.diag(np.linalg.inv(H)))
    except np.linalg.LinAlgError:
        return np.full(m.dim, np.nan)


def fd_check(m, x, h):
    g = m.grad(x)
    fd = np.empty(m.dim)
    for i in range(m.dim):
        e = np.zeros(m.dim)
        e[i] = h[i]
        fd[i] = (m.energy(x + e) - m.energy(x - e)) / (2 * h[i])
    # compare on the scale of the coordinate: g_i * h_i is the energy change per step
    err = np.abs(g - fd) * h
    scale = np.maximum(1.0, np.abs(g) * h)
    return float(np.max(err / scale)), g, fd


def check_at_reference(names):
    """Quick check: finite log density and gradient at the reference mean, and the gradient
    against central differences there (steps 1e-4 reference sds)."""
    ref = load_reference()["models"]
    bad = []
    for name in names or list(MODELS):
        m = MODELS[name]
        mean, sd = np.asarray(ref[name]["mean"]), np.asarray(ref[name]["sd"])
        lp = float(m.logdensity(mean))
        g = m.grad(mean, 12345)
        err, _, _ = fd_check(m, mean, 1e-4 * sd)
        ok = np.isfinite(lp) and np.all(np.isfinite(g)) and err < 1e-5
        print(f"{name:22s} d={m.dim:2d} logdens(ref mean) {lp:14.4f}  fd-err {err:.1e}",
              "OK" if ok else "FAIL", flush=True)
        if not ok:
            bad.append(name)
    if bad:
        print("FAILED:", bad)
        sys.exit(1)


def main(names):
    if names[:1] == ["--at-reference"]:
        return check_at_reference(names[1:])
    rng = np.random.default_rng(1)
    ref = load_reference().get("models", {})
    bad = []
    for name in names or list(MODELS):
        m = MODELS[name]
        x_start = m.init_uniform(rng)
        r = find_mode(m, rng)
        x = r.x
        sd = laplace_sd(m, x)
        h = np.where(np.isfinite(sd) & (sd > 0), 1e-4 * sd, 1e-6)
        e1, _, _ = fd_check(m, x + sd * rng.uniform(-0.5, 0.5, m.dim), h)
        e2, _, _ = fd_check(m, x_start, np.maximum(h, 1e-7 * np.maximum(1, np.abs(x_start))))
        ok = np.isfinite(r.fun) and e1 < 1e-5 and e2 < 1e-4
        msg = f"{name:22s} d={m.dim:2d} mode energy {r.fun:12.4f}  fd-err {e1:.1e} / {e2:.1e}"
        if name in ref:
            mean = np.asarray(ref[name]["mean"])
            lp = float(m.logdensity(mean))
            ok = ok and np.isfinite(lp) and np.all(np.isfinite(m.grad(mean)))
            msg += f"  logdens(ref mean) {lp:.3f}"
        print(msg, "OK" if ok else "FAIL")
        print("   Laplace sd range %.2e .. %.2e" % (np.nanmin(sd), np.nanmax(sd)))
        print("   mode:", " ".join(f"{n}={v:.4g}" for n, v in zip(m.names, x)))
        if not ok:
            bad.append(name)
    if bad:
        print("FAILED:", bad)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
