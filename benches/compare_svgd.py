"""The SVGD rows of the side-by-side comparison for benches/compare.py (run there with
``--parts svgd-full rbm-scaling logreg``):

1. full SVGD, Gaussian kernel with fixed h = 2, AdaGrad eta = 0.2, target the mixture of
   problem 1 in every coordinate: f64 and f32, N = 256 and 1024, d = 1 and 3; sgsample (C API,
   C callback), numpy and BlackJAX (jit) from the same starts;
2. sgsample's RBM-SVGD p = 8 against its own full SVGD for N = 256 ... 16384 (d = 1, f64), with
   the cost exponent of RBM-SVGD fitted by least squares on log time against log N;
3. Bayesian logistic regression as in the SVGD paper: theta = (w, log alpha), d = 55, N = 512
   particles, data minibatches of 100, the median-heuristic kernel, AdaGrad eta = 0.05. The
   paper's Covertype data set is not in the repository: every tool gets the same synthetic data
   set of the same shape (10 000 points, 53 standard normal features and a constant 1, true
   weights N(0, 0.5^2), labels Bernoulli(sigmoid); 80% train, 20% test). sgsample's SVGD and
   RBM-SVGD p = 8, numpy's SVGD and BlackJAX's SVGD, equal particles and iterations; each tool
   draws its own minibatches (with replacement).

Times are CPU time of the whole process (time.process_time) per iteration, median over the
runs: on this shared machine that is steadier than the wall clock, and every tool runs on one
thread (compare.py pins XLA and BLAS), so it is the work done. BlackJAX's compile time is not
included (reported apart).
"""

import ctypes as C
import os
import statistics
import time

import numpy as np

from compare import (
    SGS_KERNEL_GAUSSIAN,
    SGS_KERNEL_GAUSSIAN_MEDIAN,
    bj_svgd_setup,
    fmt_time,
    mix_errors,
    np_svgd,
    sgs_svgd,
)

CLOCK = time.process_time


def median_time(f, runs, iters):
    """Median over `runs` of f(r) -> (seconds, particles), per iteration; and the last output."""
    times, out = [], None
    for r in range(runs):
        dt, out = f(r)
        times.append(dt / iters)
    return statistics.median(times), out


def bj_runner(median, iters, x_start, dtype, **kw):
    """Compiles a BlackJAX run for the shape of x_start; returns (compile seconds, run(r))."""
    import jax
    import jax.numpy as jnp

    t0 = time.perf_counter()
    fn = bj_svgd_setup(median, iters, **kw).lower(
        jnp.asarray(x_start, dtype), jax.random.PRNGKey(0)
    ).compile()
    compile_s = time.perf_counter() - t0

    def run(x0, r):
        x0 = jnp.asarray(x0, dtype)
        jax.block_until_ready(x0)
        t0 = CLOCK()
        out = fn(x0, jax.random.PRNGKey(r)).block_until_ready()
        return CLOCK() - t0, np.asarray(out)

    return compile_s, run


def full_svgd(lib, models, jax_ok, runs):
    """Table 1: full SVGD f64/f32, N = 256/1024, d = 1/3."""
    print("### Full SVGD, Gaussian kernel h = 2, AdaGrad 0.2, mixture in every coordinate "
          f"(CPU time per iteration, median of {runs} runs)\n")
    print("| precision | N | d | iterations | sgsample | numpy | BlackJAX (jit) "
          "| numpy / sgsample | BlackJAX / sgsample | err x (sgsample, BlackJAX) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for dtype, name in ((np.float64, "f64"), (np.float32, "f32")):
        for n in (256, 1024):
            for d in (1, 3):
                iters = 40 if n == 256 else 6
                starts = [(-10.0 + np.random.default_rng(1000 + r).standard_normal((n, d)))
                          .astype(dtype) for r in range(runs)]
                t_s, x_s = median_time(lambda r: sgs_svgd(
                    lib, models, starts[r], n, SGS_KERNEL_GAUSSIAN, iters, r, clock=CLOCK),
                    runs, iters)
                t_n, _ = median_time(
                    lambda r: np_svgd(starts[r], n, False, iters, r, clock=CLOCK), runs, iters)
                t_b, x_b = float("nan"), None
                if jax_ok:
                    # d = 1 as a vector of N scalars: BlackJAX's (N, 1) program is ~30x slower.
                    bj_x = [s[:, 0] for s in starts] if d == 1 else starts
                    _, run = bj_runner(False, iters, bj_x[0], dtype)
                    t_b, x_b = median_time(lambda r: run(bj_x[r], r), runs, iters)
                err_b = f"{mix_errors(x_b)[0]:+.3f}" if x_b is not None else "—"
                print(f"| {name} | {n} | {d} | {iters} | {fmt_time(t_s)} | {fmt_time(t_n)} "
                      f"| {fmt_time(t_b) if jax_ok else '—'} | {t_n / t_s:.2f} "
                      f"| {t_b / t_s:.2f} | {mix_errors(x_s)[0]:+.3f}, {err_b} |", flush=True)
    print("\n(err x: particle mean − 2/3 over all coordinates after the timed iterations, from "
          "a start at −10: far from converged, only a check that the tools do the same.)\n")


def rbm_scaling(lib, models, runs):
    """Table 2: RBM-SVGD p = 8 against full SVGD, N = 256 ... 16384."""
    p = 8
    print("### RBM-SVGD p = 8 against sgsample's full SVGD (d = 1, f64, h = 2; CPU time per "
          "iteration)\n")
    print("| N | RBM-SVGD p = 8 | full SVGD | full / RBM | goal 0.8·N/p |")
    print("|---:|---:|---:|---:|---:|")
    ns, ts = [], []
    for n in (256, 1024, 4096, 16384):
        x0 = -10.0 + np.random.default_rng(7).standard_normal(n)
        it_r = max(20, 400_000 // n)
        it_f = max(1, 2_000_000 // (n * n // 8))
        t_r, _ = median_time(lambda r: sgs_svgd(
            lib, models, x0, p, SGS_KERNEL_GAUSSIAN, it_r, r, clock=CLOCK), runs, it_r)
        t_f, _ = median_time(lambda r: sgs_svgd(
            lib, models, x0, n, SGS_KERNEL_GAUSSIAN, it_f, r, clock=CLOCK),
            max(1, runs - 1) if n == 16384 else runs, it_f)
        ns.append(n)
        ts.append(t_r)
        print(f"| {n} | {fmt_time(t_r)} | {fmt_time(t_f)} | {t_f / t_r:.1f} "
              f"| {0.8 * n / p:.0f} |", flush=True)
    slope = np.polyfit(np.log(ns), np.log(ts), 1)[0]
    print(f"\nRBM-SVGD p = 8: fitted cost exponent (time ∝ N^a, least squares on the log-log "
          f"points): a = {slope:.3f}\n")


class LogregData(C.Structure):
    _fields_ = [
        ("n_train", C.c_size_t),
        ("dw", C.c_size_t),
        ("mb", C.c_size_t),
        ("x", C.POINTER(C.c_double)),
        ("y", C.POINTER(C.c_double)),
    ]


def logreg_data(n=10_000, dw=54):
    """The synthetic data set (see the module docs); returns (x_train, y_train, x_test, y_test)."""
    rng = np.random.default_rng(2020)
    w = 0.5 * rng.standard_normal(dw)
    x = np.hstack([rng.standard_normal((n, dw - 1)), np.ones((n, 1))])
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-x @ w))).astype(np.float64)
    k = n * 8 // 10
    return x[:k], y[:k], x[k:], y[k:]


def logreg_start(n, dw, run):
    """Particles from the prior: alpha ~ Gamma(1, rate 0.01), w | alpha ~ N(0, 1/alpha)."""
    rng = np.random.default_rng(500 + run)
    alpha = rng.gamma(1.0, 100.0, n)
    w = rng.standard_normal((n, dw)) / np.sqrt(alpha)[:, None]
    return np.hstack([w, np.log(alpha)[:, None]])


def logreg_grad_np(xtr, ytr, mb):
    """grad U on a minibatch of mb rows (with replacement), for all particles at once."""
    n_train, dw = xtr.shape

    def grad(th, rng):
        idx = rng.integers(0, n_train, mb)
        xb, yb = xtr[idx], ytr[idx]
        w, a = th[:, :dw], np.exp(th[:, dw])
        s = 1.0 / (1.0 + np.exp(-(w @ xb.T)))  # (N, mb)
        g = np.empty_like(th)
        g[:, :dw] = (n_train / mb) * ((s - yb) @ xb) + a[:, None] * w
        g[:, dw] = 0.5 * a * (w * w).sum(1) - 0.5 * dw + 0.01 * a - 1.0
        return g

    return grad


def logreg_accuracy(th, xte, yte):
    """Test accuracy of the posterior predictive (probability averaged over particles)."""
    dw = xte.shape[1]
    prob = (1.0 / (1.0 + np.exp(-(xte @ th[:, :dw].T)))).mean(1)
    return float(((prob > 0.5) == (yte > 0.5)).mean())


def logistic_regression(lib, models, jax_ok, runs, iters=100):
    """Table 3: Bayesian logistic regression, d = 55, N = 512, minibatch 100."""
    n, dw, mb, eta = 512, 54, 100, 0.05
    xtr, ytr, xte, yte = logreg_data(dw=dw)
    data = LogregData(xtr.shape[0], dw, mb, xtr.ctypes.data_as(C.POINTER(C.c_double)),
                      ytr.ctypes.data_as(C.POINTER(C.c_double)))
    ud = C.cast(C.pointer(data), C.c_void_p)
    starts = [logreg_start(n, dw, r) for r in range(runs)]
    print(f"### Bayesian logistic regression (synthetic data of the paper's shape), d = {dw + 1}, "
          f"N = {n} particles, minibatch {mb}, median kernel, AdaGrad {eta}: {iters} iterations, "
          f"{runs} runs\n")
    print("| method | tool | CPU time / iteration | ratio to BlackJAX | test accuracy |")
    print("|---|---|---:|---:|---:|")
    tools = []
    if jax_ok:
        import jax.numpy as jnp

        def grad_logdensity(th, xb, yb):
            w, a = th[:dw], jnp.exp(th[dw])
            s = 1.0 / (1.0 + jnp.exp(-(xb @ w)))
            gw = (xtr.shape[0] / mb) * ((s - yb) @ xb) + a * w
            ga = 0.5 * a * (w @ w) - 0.5 * dw + 0.01 * a - 1.0
            return -jnp.concatenate([gw, ga[None]])

        comp, run = bj_runner(True, iters, starts[0], np.float64, eta=eta,
                              grad_logdensity=grad_logdensity,
                              data=(jnp.asarray(xtr), jnp.asarray(ytr)), mb=mb)
        tools.append(("SVGD", f"BlackJAX (jit; compile {comp:.1f} s)",
                      lambda r: run(starts[r], r)))
    for p, label in ((n, "SVGD"), (8, "RBM-SVGD p = 8")):
        tools.append((label, "sgsample (C API, C callback)",
                      lambda r, p=p: sgs_svgd(lib, models, starts[r], p,
                                              SGS_KERNEL_GAUSSIAN_MEDIAN, iters, r,
                                              grads="logreg_gradients", user_data=ud, eta=eta,
                                              clock=CLOCK)))
    tools.append(("SVGD", "numpy", lambda r: np_svgd(
        starts[r], n, True, iters, r, eta=eta, grad=logreg_grad_np(xtr, ytr, mb), clock=CLOCK)))
    base = None
    for label, name, f in tools:
        t, x = median_time(f, runs, iters)
        base = t if base is None else base
        acc = logreg_accuracy(np.asarray(x).reshape(n, dw + 1), xte, yte)
        print(f"| {label} | {name} | {fmt_time(t)} | {t / base:.2f} | {acc:.3f} |", flush=True)
    w_true = 0.5 * np.random.default_rng(2020).standard_normal(dw)
    acc_true = float((((xte @ w_true) > 0) == (yte > 0.5)).mean())
    print(f"\nTest accuracy of the true weights: {acc_true:.3f}. Ratio < 1: faster than "
          "BlackJAX.\n")


def run(lib, models, jax_ok, runs, parts):
    if "svgd-full" in parts:
        full_svgd(lib, models, jax_ok, runs)
    if "rbm-scaling" in parts:
        rbm_scaling(lib, models, runs)
    if "logreg" in parts:
        logistic_regression(lib, models, jax_ok, runs)
    print(f"load average at end of the SVGD rows: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
