#!/usr/bin/env python3
"""Side-by-side comparison of sgsample with numpy and BlackJAX on the papers' problems.

Run from the repository root (see docs/benchmarks.md):

    pip install numpy blackjax          # once; jax CPU, no GPU needed
    python3 benches/compare.py          # ~2-3 minutes on 2 cores

In one process, on the same problems and the same starting points:

* sgsample through its C library (target/release/libsgsample.so, via ctypes: the FFI path),
  with the model callbacks in C (benches/compare_models.c, compiled here) so that the timing is
  the library's; plus one row per problem with the callback written in Python, to show what a
  pure-Python caller pays;
* numpy: a straightforward vectorised RBM-SVGD / SVGD and SGHMC written below;
* BlackJAX: ``blackjax.svgd`` (full O(N^2) SVGD only: it has no random-batch method) and
  ``blackjax.sghmc``, jit-compiled; the compile time is measured apart and reported separately.

Problems (docs/algorithms.md):

1. The 1-D Gaussian mixture 1/3 N(-2, 1) + 2/3 N(2, 1) (section 2.4): N = 256 particles from
   N(-10, 1), 500 iterations, AdaGrad eta = 0.2 (alpha = 0.9, H = phi^2 at the first iteration),
   fixed h = 2 for p in {2, 8, 32, 256}, and the median heuristic for full SVGD. Accuracy: the
   particle averages of x, x^2, cos 2x minus their exact values 2/3, 5, e^-2 cos 4.
2. The double well (section 1.3) with gradient noise N(0, 1): eps = 0.25, beta = 0.25, T = 10,
   sigma = 1, theta0 = 0. Accuracy: mean and variance of the chain vs the truth -2.148 / 2.862.
   SGHMC is biased at this step size; AMAGOLD (sgsample only) is exact.

Per coordinate (printed first; alone with --per-coordinate-only): one exact N(0, 1) (sgsample's
criterion bench, run from here, against numpy's and JAX's bulk draws per draw), and one SGHMC
inner step per coordinate with the trivial gradient grad U = theta at d = 10, 1000, 1e4, 1e5 in
f64 and f32 (sgsample's C API with a C callback, numpy vectorised, blackjax.sghmc jitted).

Timing: wall clock of a whole run divided by its iterations, median over the repeated runs
(different seeds), everything single-threaded (XLA and BLAS pinned to one thread). The machine is
shared: compare ratios measured in the same run, not absolute numbers across runs.
"""

import argparse
import ctypes as C
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

# Single-threaded everywhere (sgsample is single-threaded; the machine has 2 shared cores).
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXACT_MIX = (2.0 / 3.0, 5.0, math.exp(-2.0) * math.cos(4.0))
TRUTH_DW = (-2.148, 2.862)

# ---------------------------------------------------------------------------------------------
# The C library through ctypes


class AmagoldConfig(C.Structure):
    _fields_ = [
        ("step_size", C.c_double),
        ("friction", C.c_double),
        ("momentum_sd", C.c_double),
        ("target_accept", C.c_double),
        ("warmup", C.c_uint64),
        ("seed", C.c_uint64),
        ("stream", C.c_uint64),
        ("steps", C.c_uint32),
        ("variant", C.c_uint32),
        ("mass", C.c_uint32),
        ("approach", C.c_uint32),
        ("jitter_steps", C.c_uint32),
        ("reserved", C.c_uint32),
    ]


class AmagoldInfo(C.Structure):
    _fields_ = [
        ("log_accept", C.c_double),
        ("rho", C.c_double),
        ("energy", C.c_double),
        ("accept_rate", C.c_double),
        ("step_size", C.c_double),
        ("iteration", C.c_uint64),
        ("divergences", C.c_uint64),
        ("outcome", C.c_uint32),
        ("accepted", C.c_uint32),
        ("warmup", C.c_uint32),
        ("phase", C.c_uint32),
        ("steps", C.c_uint32),
        ("reserved", C.c_uint32),
    ]


def summary_of(info):
    """The ctypes mirror of a run summary whose last field is `info`."""

    class Summary(C.Structure):
        _fields_ = [
            ("iterations", C.c_uint64),
            ("accepted", C.c_uint64),
            ("divergences", C.c_uint64),
            ("has_last", C.c_uint32),
            ("reserved", C.c_uint32),
            ("last", info),
        ]

    return Summary


class ChainInfo(C.Structure):
    _fields_ = [
        ("iteration", C.c_uint64),
        ("divergences", C.c_uint64),
        ("outcome", C.c_uint32),
        ("reserved", C.c_uint32),
    ]


AmagoldSummary = summary_of(AmagoldInfo)
ChainSummary = summary_of(ChainInfo)


class SghmcConfig(C.Structure):
    _fields_ = [
        ("step_size", C.c_double),
        ("friction", C.c_double),
        ("momentum_sd", C.c_double),
        ("seed", C.c_uint64),
        ("stream", C.c_uint64),
        ("steps", C.c_uint32),
        ("resample_momentum", C.c_uint32),
        ("mass", C.c_uint32),
        ("reserved", C.c_uint32),
    ]


class SvgdConfig(C.Structure):
    _fields_ = [
        ("step_size", C.c_double),
        ("adagrad_alpha", C.c_double),
        ("bandwidth", C.c_double),
        ("imq_c", C.c_double),
        ("imq_beta", C.c_double),
        ("batch_size", C.c_uint64),
        ("seed", C.c_uint64),
        ("stream", C.c_uint64),
        ("batching", C.c_uint32),
        ("kernel", C.c_uint32),
        ("step_rule", C.c_uint32),
        ("reserved", C.c_uint32),
        ("ksd", C.c_uint32),
        ("ksd_reserved", C.c_uint32),
        ("ksd_c", C.c_double),
        ("ksd_beta", C.c_double),
        ("scale", C.c_uint32),
        ("scale_reserved", C.c_uint32),
        ("anneal", C.c_uint32),
        ("permutation", C.c_uint32),
        ("anneal_iterations", C.c_uint64),
        ("anneal_cycles", C.c_uint64),
        ("anneal_power", C.c_double),
    ]


class SvgdInfo(C.Structure):
    _fields_ = [
        ("iteration", C.c_uint64),
        ("interactions", C.c_uint64),
        ("bandwidth", C.c_double),
        ("step_size", C.c_double),
        ("mean_force", C.c_double),
        ("max_force", C.c_double),
        ("ksd_squared", C.c_double),
    ]


SvgdSummary = summary_of(SvgdInfo)


SGS_KERNEL_GAUSSIAN = 0
SGS_KERNEL_GAUSSIAN_MEDIAN = 1
SGS_STEP_RULE_ADAGRAD = 2

DPTR = C.POINTER(C.c_double)
FPTR = C.POINTER(C.c_float)
GRAD_FN = C.CFUNCTYPE(C.c_int32, C.c_void_p, DPTR, C.c_size_t, C.c_uint64, DPTR)
GRADS_FN = C.CFUNCTYPE(C.c_int32, C.c_void_p, DPTR, C.c_size_t, C.c_size_t, C.c_uint64, DPTR)


STATE = C.POINTER(C.c_uint64)

# The mirrors above against the header: compare_models.c includes include/sgsample.h and reports
# sizeof and the offset of the last field of each struct, so a field added to the C API fails here
# with a clear message instead of passing garbage through ctypes.
MIRRORS = {
    "sgs_amagold_config": AmagoldConfig,
    "sgs_amagold_info": AmagoldInfo,
    "sgs_amagold_run_summary": AmagoldSummary,
    "sgs_chain_info": ChainInfo,
    "sgs_chain_run_summary": ChainSummary,
    "sgs_sghmc_config": SghmcConfig,
    "sgs_svgd_config": SvgdConfig,
    "sgs_svgd_info": SvgdInfo,
    "sgs_svgd_run_summary": SvgdSummary,
}


def check_mirrors(models):
    models.cmp_sizeof.argtypes = [C.c_char_p]
    models.cmp_sizeof.restype = C.c_long
    models.cmp_last_offset.argtypes = [C.c_char_p]
    models.cmp_last_offset.restype = C.c_long
    for name, mirror in MIRRORS.items():
        size, last = models.cmp_sizeof(name.encode()), models.cmp_last_offset(name.encode())
        field = mirror._fields_[-1][0]
        if size != C.sizeof(mirror) or last != getattr(mirror, field).offset:
            raise RuntimeError(
                f"benches/compare.py's mirror of struct {name} is out of date with "
                f"include/sgsample.h (C: {size} bytes, last field at {last}; mirror: "
                f"{C.sizeof(mirror)} bytes, {field} at {getattr(mirror, field).offset})"
            )


def new_state(lib, sampler, suffix=""):
    """A zeroed state of the size and alignment the library reports (no hand-copied sizes)."""
    size = getattr(lib, f"sgs_{sampler}_state_size{suffix}")()
    align = getattr(lib, f"sgs_{sampler}_state_align{suffix}")()
    if align > C.alignment(C.c_uint64):
        raise RuntimeError(f"sgs_{sampler} needs alignment {align}")
    return (C.c_uint64 * ((size + 7) // 8))()


def dptr(a):
    return a.ctypes.data_as(DPTR)


def build(args):
    """Builds the C library (cargo) and the C models (cc); returns (lib, models)."""
    so = os.path.join(ROOT, "target", "release", "libsgsample.so")
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "sgsample-capi"], cwd=ROOT, check=True
        )
    out_dir = os.path.join(ROOT, "target", "compare")
    os.makedirs(out_dir, exist_ok=True)
    models_so = os.path.join(out_dir, "libcompare_models.so")
    subprocess.run(
        ["cc", "-O2", "-shared", "-fPIC", "-I", os.path.join(ROOT, "include"), "-o", models_so,
         os.path.join(ROOT, "benches", "compare_models.c"), "-lm"],
        check=True,
    )
    lib = C.CDLL(so)
    models = C.CDLL(models_so)
    check_mirrors(models)
    vp, sz, u64, i32 = C.c_void_p, C.c_size_t, C.c_uint64, C.c_int32
    sigs = {
        "sgs_amagold_config_default": ([C.c_double], AmagoldConfig),
        "sgs_amagold_workspace_len": ([sz], sz),
        "sgs_amagold_init": (
            [STATE, C.POINTER(AmagoldConfig), DPTR, sz, DPTR, sz, vp, vp, vp],
            i32,
        ),
        "sgs_amagold_run": (
            [STATE, sz, DPTR, sz, C.POINTER(sz), C.POINTER(AmagoldSummary)],
            i32,
        ),
        "sgs_sghmc_config_default": ([C.c_double], SghmcConfig),
        "sgs_sghmc_workspace_len": ([sz], sz),
        "sgs_sghmc_init": (
            [STATE, C.POINTER(SghmcConfig), DPTR, sz, DPTR, sz, vp, vp], i32
        ),
        "sgs_sghmc_run": (
            [STATE, sz, DPTR, sz, C.POINTER(sz), C.POINTER(ChainSummary)], i32
        ),
        "sgs_svgd_config_default": ([u64, C.c_double], SvgdConfig),
        "sgs_svgd_workspace_len": ([sz, sz, C.POINTER(SvgdConfig)], sz),
        "sgs_svgd_index_len": ([sz], sz),
        "sgs_svgd_init": (
            [STATE, C.POINTER(SvgdConfig), DPTR, sz, sz, DPTR, sz,
             C.POINTER(C.c_uint32), sz, vp, vp, vp],
            i32,
        ),
        "sgs_svgd_run": ([STATE, u64, C.POINTER(SvgdSummary)], i32),
        "sgs_svgd_particles": ([STATE, DPTR, sz], i32),
        "sgs_svgd_workspace_len_f32": ([sz, sz, C.POINTER(SvgdConfig)], sz),
        "sgs_svgd_index_len_f32": ([sz], sz),
        "sgs_svgd_init_f32": (
            [STATE, C.POINTER(SvgdConfig), FPTR, sz, sz, FPTR, sz,
             C.POINTER(C.c_uint32), sz, vp, vp, vp],
            i32,
        ),
        "sgs_svgd_run_f32": ([STATE, u64, C.POINTER(SvgdSummary)], i32),
        "sgs_svgd_state_size_f32": ([], sz),
        "sgs_svgd_state_align_f32": ([], sz),
        "sgs_status_str": ([i32], C.c_char_p),
        "sgs_amagold_state_size": ([], sz),
        "sgs_amagold_state_align": ([], sz),
        "sgs_sghmc_state_size": ([], sz),
        "sgs_sghmc_state_align": ([], sz),
        "sgs_svgd_state_size": ([], sz),
        "sgs_svgd_state_align": ([], sz),
        "sgs_version": ([], C.c_char_p),
        "sgs_sghmc_workspace_len_f32": ([sz], sz),
        "sgs_sghmc_init_f32": (
            [STATE, C.POINTER(SghmcConfig), FPTR, sz, FPTR, sz, vp, vp], i32
        ),
        "sgs_sghmc_run_f32": (
            [STATE, sz, FPTR, sz, C.POINTER(sz), C.POINTER(ChainSummary)], i32
        ),
        "sgs_sghmc_state_size_f32": ([], sz),
        "sgs_sghmc_state_align_f32": ([], sz),
    }
    for name, (argtypes, restype) in sigs.items():
        f = getattr(lib, name)
        f.argtypes = argtypes
        f.restype = restype
    return lib, models


def check(lib, status, what):
    if status != 0:
        raise RuntimeError(f"{what}: {lib.sgs_status_str(status).decode()}")


def fnptr(models, name):
    return C.cast(getattr(models, name), C.c_void_p)


# ---------------------------------------------------------------------------------------------
# Problem 1: the 1-D mixture


def mix_grad_np(x):
    """grad V of the mixture, vectorised (the same formula as the C model)."""
    return x - 2.0 + 4.0 / (2.0 * np.exp(4.0 * x) + 1.0)


def mix_errors(x):
    x = np.asarray(x).ravel()
    return (
        x.mean() - EXACT_MIX[0],
        (x * x).mean() - EXACT_MIX[1],
        np.cos(2.0 * x).mean() - EXACT_MIX[2],
    )


def mix_start(run, n):
    return -10.0 + np.random.default_rng(1000 + run).standard_normal(n)


def sgs_svgd(lib, models, x0, p, kernel, iters, seed, py_callback=False, grads=None,
             user_data=None, eta=0.2, clock=time.perf_counter):
    """One sgsample run through the C API; returns (seconds, final particles).

    x0: N points (shape (N,) or (N, d)), float64 or float32 (the `_f32` functions then);
    grads: the name of a C callback in compare_models.c (default: the mixture's)."""
    x = np.array(x0, copy=True)
    n, d = x.shape[0], (x.shape[1] if x.ndim > 1 else 1)
    f32 = x.dtype == np.float32
    sfx = "_f32" if f32 else ""
    cfg = lib.sgs_svgd_config_default(p, eta)
    cfg.kernel = kernel
    cfg.bandwidth = 2.0
    cfg.step_rule = SGS_STEP_RULE_ADAGRAD
    cfg.seed = seed
    ws = np.zeros(getattr(lib, f"sgs_svgd_workspace_len{sfx}")(n, d, C.byref(cfg)), x.dtype)
    idx = np.zeros(getattr(lib, f"sgs_svgd_index_len{sfx}")(n), dtype=np.uint32)
    st = new_state(lib, "svgd", sfx)
    keep = None
    if py_callback:
        def py_grads(_ud, xs, m, d_, _seed, out):
            a = np.ctypeslib.as_array(xs, shape=(m * d_,))
            np.ctypeslib.as_array(out, shape=(m * d_,))[:] = mix_grad_np(a)
            return 0

        keep = GRADS_FN(py_grads)
        gradients = C.cast(keep, C.c_void_p)
    else:
        gradients = fnptr(models, grads or ("mix_gradients" + sfx))
    ptr = (lambda a: a.ctypes.data_as(FPTR)) if f32 else dptr
    check(lib, getattr(lib, f"sgs_svgd_init{sfx}")(
        st, C.byref(cfg), ptr(x), n, d, ptr(ws), ws.size,
        idx.ctypes.data_as(C.POINTER(C.c_uint32)), idx.size, None, gradients, user_data,
    ), "svgd init")
    t0 = clock()
    check(lib, getattr(lib, f"sgs_svgd_run{sfx}")(st, iters, None), "svgd run")
    dt = clock() - t0
    del keep
    return dt, x.copy()


def np_svgd(x0, p, median, iters, seed, eta=0.2, alpha=0.9, h_fixed=2.0, grad=None,
            clock=time.perf_counter):
    """RBM-SVGD without replacement (p < N) or SVGD (p = N), as in docs/algorithms.md section 2:
    random permutation cut into N // p batches (the last takes the N mod p left-overs), batch
    force with the self term weighted 1/N and the others (N-1)/(N(|C|-1)), AdaGrad update.
    x0: (N,) or (N, d), in its own dtype; grad(x, rng): grad V (default: the mixture's)."""
    rng = np.random.default_rng(seed)
    x = np.array(x0).reshape(x0.shape[0], -1).copy()
    n = x.shape[0]
    hist = None
    t0 = clock()
    for _ in range(iters):
        if median:
            dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
            med = np.median(dist[np.triu_indices(n, 1)])
            h = med * med / (2.0 * math.log(n)) if med > 0 else 1.0
        else:
            h = h_fixed
        g = mix_grad_np(x) if grad is None else grad(x, rng)
        perm = rng.permutation(n) if p < n else np.arange(n)
        nb = n // p
        phi = np.empty_like(x)
        groups = [perm[: nb * p].reshape(nb, p)]
        if n % p:  # the last batch takes the left-overs: do it on its own
            groups = [perm[: (nb - 1) * p].reshape(nb - 1, p), perm[(nb - 1) * p:][None, :]]
        for grp in groups:
            if grp.size == 0:
                continue
            m = grp.shape[1]
            xb, gb = x[grp], g[grp]  # (batches, m, d)
            diff = xb[:, :, None, :] - xb[:, None, :, :]  # x_i - x_j
            k = np.exp(-(diff * diff).sum(-1) / (2.0 * h))  # (batches, m, m)
            s = -(k @ gb) + (k[..., None] * diff).sum(2) / h  # sum_j F(x_i, x_j), j = i included
            w = (n - 1) / (n * (m - 1))
            phi[grp] = -gb / n + w * (s + gb)  # self term apart: F(x_i, x_i) = -g_i
        hist = phi * phi if hist is None else alpha * hist + (1.0 - alpha) * phi * phi
        x = x + eta * phi / (1e-6 + np.sqrt(hist))
    return clock() - t0, x.ravel()


def bj_svgd_setup(median, iters, eta=0.2, alpha=0.9, grad_logdensity=None, data=None, mb=100):
    """A jitted BlackJAX SVGD run of `iters` iterations; returns run(x0, key) -> final particles.

    grad_logdensity(x, **batch): grad log pi of one particle (default: the mixture's); with
    data = (X, y) every iteration draws a minibatch of mb rows (with replacement) and passes it
    as batch = {"xb": X[idx], "yb": y[idx]}."""
    import jax
    import jax.numpy as jnp
    import optax
    import blackjax
    from blackjax.vi.svgd import median_heuristic

    if grad_logdensity is None:
        def grad_logdensity(x):
            return -(x - 2.0 + 4.0 / (2.0 * jnp.exp(4.0 * x) + 1.0))

    def adagrad_svgd():
        # The SVGD reference code's "AdaGrad" (docs/algorithms.md section 2.2) as an optax
        # transformation. BlackJAX hands the optimiser -phi (a descent direction).
        def init(params):
            return (jnp.zeros_like(params), jnp.zeros((), jnp.int32))

        def update(updates, state, params=None):
            del params
            hist, k = state
            g2 = updates * updates
            hist = jnp.where(k == 0, g2, alpha * hist + (1.0 - alpha) * g2)
            return -eta * updates / (1e-6 + jnp.sqrt(hist)), (hist, k + 1)

        return optax.GradientTransformation(init, update)

    opt = adagrad_svgd()
    if median:
        svgd = blackjax.svgd(grad_logdensity, opt)  # median heuristic after every step
    else:
        svgd = blackjax.svgd(grad_logdensity, opt, update_kernel_parameters=lambda s: s)

    def run(x0, key):
        if median:
            params = median_heuristic({"length_scale": 1.0}, x0)
        else:
            params = {"length_scale": 4.0}  # exp(-r^2 / (2h)) with h = 2
        state = svgd.init(x0, params)
        if data is None:
            state = jax.lax.fori_loop(0, iters, lambda i, s: svgd.step(s), state)
            return state.particles

        def body(i, carry):
            s, k = carry
            k, sub = jax.random.split(k)
            idx = jax.random.randint(sub, (mb,), 0, data[0].shape[0])
            return svgd.step(s, xb=data[0][idx], yb=data[1][idx]), k

        state, _ = jax.lax.fori_loop(0, iters, body, (state, key))
        return state.particles

    return jax.jit(run)


# ---------------------------------------------------------------------------------------------
# Problem 2: the double well


def dw_grad_np(t):
    return (4.0 * t**3 + 3.0 * t**2 - 26.0 * t - 1.0) / 14.0


def _splitmix64(x):
    m = 0xFFFFFFFFFFFFFFFF
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def _seed_normal(seed):
    """The C model's noise, in Python (splitmix64 -> Box-Muller)."""
    a = _splitmix64(seed)
    b = _splitmix64(a)
    u1 = ((a >> 11) + 1) * (1.0 / 9007199254740992.0)
    u2 = (b >> 11) * (1.0 / 9007199254740992.0)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(6.283185307179586 * u2)


def sgs_chain(lib, models, kind, iters, seed, eps, py_callback=False):
    """An AMAGOLD or SGHMC run of `iters` outer iterations; returns (seconds, samples, accept)."""
    theta0 = np.zeros(1)
    out = np.zeros(iters)
    done = C.c_size_t()
    keep = None
    if py_callback:
        def grad(_ud, x, _d, seed_, g):
            t = x[0]
            g[0] = (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0 + _seed_normal(seed_)
            return 0

        keep = GRAD_FN(grad)
        gradient = C.cast(keep, C.c_void_p)
    else:
        gradient = fnptr(models, "dw_gradient")
    accept = float("nan")
    if kind == "amagold":
        cfg = lib.sgs_amagold_config_default(eps)
        cfg.seed = seed
        ws = np.zeros(lib.sgs_amagold_workspace_len(1))
        st = new_state(lib, "amagold")
        check(lib, lib.sgs_amagold_init(
            st, C.byref(cfg), dptr(theta0), 1, dptr(ws), ws.size,
            fnptr(models, "dw_energy"), gradient, None,
        ), "amagold init")
        summary = AmagoldSummary()
        t0 = time.perf_counter()
        check(lib, lib.sgs_amagold_run(
            st, iters, dptr(out), out.size, C.byref(done), C.byref(summary)
        ), "amagold run")
        dt = time.perf_counter() - t0
        accept = summary.accepted / summary.iterations
    else:
        cfg = lib.sgs_sghmc_config_default(eps)
        cfg.seed = seed
        ws = np.zeros(lib.sgs_sghmc_workspace_len(1))
        st = new_state(lib, "sghmc")
        check(lib, lib.sgs_sghmc_init(
            st, C.byref(cfg), dptr(theta0), 1, dptr(ws), ws.size, gradient, None
        ), "sghmc init")
        summary = ChainSummary()
        t0 = time.perf_counter()
        check(lib, lib.sgs_sghmc_run(
            st, iters, dptr(out), out.size, C.byref(done), C.byref(summary)
        ), "sghmc run")
        dt = time.perf_counter() - t0
    del keep
    return dt, out, accept


def np_sghmc(iters, seed, eps, beta=0.25, sigma=1.0, steps=10):
    """SGHMC as in docs/algorithms.md section 1.1 (momentum resampled every outer iteration),
    vectorised over the coordinates; the noises of an outer iteration are drawn at once."""
    rng = np.random.default_rng(seed)
    theta = np.zeros(1)
    out = np.empty(iters)
    full, c, sd = eps / sigma**2, 2.0 * eps * beta, math.sqrt(4.0 * eps * beta) * sigma
    t0 = time.perf_counter()
    for k in range(iters):
        z = rng.standard_normal((2 * steps + 1, 1))
        r = sigma * z[0]
        for t in range(steps):
            theta = theta + full * r
            g = dw_grad_np(theta) + z[1 + t]
            r = r - eps * g - c * r + sd * z[1 + steps + t]
        out[k] = theta[0]
    return time.perf_counter() - t0, out


def bj_sghmc_setup(iters, eps, beta=0.25, steps=10):
    """A jitted BlackJAX SGHMC run; returns run(key) -> samples (iters,).

    blackjax.sghmc's integrator: theta <- theta + eps*p, p <- (1 - alpha*eps) p + eps*grad log pi
    + sqrt(2 alpha eps) z, with the gradient taken before the position moves; alpha = 2*beta
    gives this problem's friction and noise. It resamples p ~ N(0, 1) at every call (= outer
    iteration). It calls the gradient estimator with one minibatch for all T inner steps, so
    the fresh N(0, 1) gradient noise per inner step is drawn from the minibatch key folded with
    the position's bits (a pure function of (key, theta), like the C model's seed noise)."""
    import jax
    import jax.numpy as jnp
    import blackjax

    def grad_estimator(theta, key):
        bits = jax.lax.bitcast_convert_type(theta[0], jnp.uint64)
        k = jax.random.fold_in(key, (bits ^ (bits >> 32)).astype(jnp.uint32))
        noise = jax.random.normal(k, theta.shape, dtype=theta.dtype)
        return -(dw_grad_np(theta) + noise)

    sghmc = blackjax.sghmc(grad_estimator, num_integration_steps=steps, alpha=2.0 * beta)

    def run(key):
        def body(theta, key_k):
            k1, k2 = jax.random.split(key_k)
            theta = sghmc.step(k1, theta, k2, eps)
            return theta, theta[0]

        _, samples = jax.lax.scan(body, jnp.zeros(1), jax.random.split(key, iters))
        return samples

    return jax.jit(run)


def batch_se(chains, batches=10):
    """Standard error of the pooled mean from batch means within each chain."""
    means = []
    for ch in chains:
        bl = len(ch) // batches
        means.extend(ch[b * bl:(b + 1) * bl].mean() for b in range(batches))
    means = np.array(means)
    return means.std(ddof=1) / math.sqrt(len(means))


# ---------------------------------------------------------------------------------------------
# Per coordinate: one exact normal, one SGHMC inner step with the
# trivial gradient ∇U = θ at d = 10 … 10⁵, f64 and f32.

INNER_DIMS = (10, 1000, 10_000, 100_000)
INNER_WORK = 4_000_000  # coordinate-steps per timed run (iters·T·d)


def sgs_normal_ns():
    """sgsample's normal: its criterion bench (`normal_x1000/ziggurat`, 1000 draws per iteration)
    run from here, so that it is measured in the same run as the rest; the middle estimate / 1000."""
    res = subprocess.run(
        ["cargo", "bench", "-q", "-p", "sgsample", "--bench", "random", "--",
         "normal_x1000/ziggurat"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    m = re.search(r"normal_x1000/ziggurat\s+time:\s+\[[^\]]*?([\d.]+) (ns|µs|us|ms) [^\]]*\]",
                  res.stdout)
    if not m:
        raise RuntimeError("no criterion estimate in:\n" + res.stdout[-2000:])
    scale = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6}[m.group(2)]
    return float(m.group(1)) * scale / 1000.0


def best_of(f, repeats):
    """Best wall-clock time of `repeats` calls of f() (after one warm-up call)."""
    f()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def sgs_sghmc_inner(lib, models, d, f32, steps=10):
    """Seconds per coordinate per inner step of sgsample's SGHMC through the C API (C callback)."""
    iters = max(INNER_WORK // (steps * d), 1)
    dt = np.float32 if f32 else np.float64
    suffix, ptr = ("_f32", FPTR) if f32 else ("", DPTR)
    cfg = lib.sgs_sghmc_config_default(0.5 / d ** 0.25)
    cfg.steps = steps
    theta0 = np.zeros(d, dtype=dt)
    ws = np.zeros(getattr(lib, f"sgs_sghmc_workspace_len{suffix}")(d), dtype=dt)
    # sgs_sghmc_run writes every outer iteration's position (d stores per T·d inner work: at
    # T = 10 about a tenth of a store per coordinate-step, counted against sgsample).
    out = np.zeros(iters * d, dtype=dt)
    st = new_state(lib, "sghmc", suffix)
    grad = fnptr(models, "std_gradient_f32" if f32 else "std_gradient")
    check(lib, getattr(lib, f"sgs_sghmc_init{suffix}")(
        st, C.byref(cfg), theta0.ctypes.data_as(ptr), d, ws.ctypes.data_as(ptr), ws.size, grad,
        None), "sghmc init")
    done, summary = C.c_size_t(), ChainSummary()
    run = getattr(lib, f"sgs_sghmc_run{suffix}")

    def go():
        check(lib, run(st, iters, out.ctypes.data_as(ptr), out.size, C.byref(done),
                       C.byref(summary)), "sghmc run")

    return best_of(go, 3) / (iters * steps * d)


def np_sghmc_inner(d, f32, steps=10, beta=0.25):
    """The same SGHMC (docs/algorithms.md §1.1, momentum resampled) vectorised in numpy."""
    iters = max(INNER_WORK // (steps * d), 1)
    dt = np.float32 if f32 else np.float64
    rng = np.random.default_rng(1)
    eps = 0.5 / d ** 0.25
    full, c, sd = dt(eps), dt(2.0 * eps * beta), dt(math.sqrt(4.0 * eps * beta))
    eps_t = dt(eps)
    theta = np.zeros(d, dtype=dt)

    def go():
        nonlocal theta
        for _ in range(iters):
            r = rng.standard_normal(d, dtype=dt)
            for _ in range(steps):
                theta = theta + full * r
                g = theta
                r = ((r - eps_t * g) - c * r) + sd * rng.standard_normal(d, dtype=dt)

    return best_of(go, 3) / (iters * steps * d)


def bj_sghmc_inner(d, f32, steps=10, beta=0.25):
    """blackjax.sghmc with ∇log π = −θ, a jitted scan over the outer iterations; returns
    (seconds per coordinate per inner step, compile seconds)."""
    import jax
    import jax.numpy as jnp
    import blackjax

    iters = max(INNER_WORK // (steps * d), 1)
    dt = jnp.float32 if f32 else jnp.float64
    eps = 0.5 / d ** 0.25
    sghmc = blackjax.sghmc(lambda theta, _mb: -theta, num_integration_steps=steps,
                           alpha=2.0 * beta)

    def run(key, theta):
        def body(theta, key_k):
            return sghmc.step(key_k, theta, 0, jnp.asarray(eps, dt)), None

        theta, _ = jax.lax.scan(body, theta, jax.random.split(key, iters))
        return theta

    # Under x64 BlackJAX's noise (and momentum) come out f64 whatever the position's type, which
    # breaks an f32 chain's scan: the f32 row is traced and run with x64 off.
    with jax.enable_x64(not f32):
        theta0 = jnp.zeros(d, dtype=dt)
        key = jax.random.key(0)
        t0 = time.perf_counter()
        fn = jax.jit(run).lower(key, theta0).compile()
        compile_s = time.perf_counter() - t0
        t = best_of(lambda: fn(key, theta0).block_until_ready(), 3)
    return t / (iters * steps * d), compile_s


def per_coordinate(lib, models, jax_ok):
    print("### Per coordinate: one exact N(0, 1), one SGHMC inner step (∇U = θ, T = 10)\n")
    rng = np.random.default_rng(1)
    dxsm = np.random.Generator(np.random.PCG64DXSM(1))
    n = 10_000_000
    rows = [("sgsample `Rng::normal` (criterion `normal_x1000/ziggurat`, Rust)",
             sgs_normal_ns() * 1e-9)]
    rows.append(("numpy `standard_normal(10⁷)` (PCG64, Ziggurat), per draw",
                 best_of(lambda: rng.standard_normal(n), 3) / n))
    rows.append(("numpy `standard_normal(10⁷)` (PCG64DXSM, Ziggurat), per draw",
                 best_of(lambda: dxsm.standard_normal(n), 3) / n))
    if jax_ok:
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        fn = jax.jit(lambda k: jax.random.normal(k, (n,), dtype=jnp.float64))
        rows.append(("JAX `random.normal` (jit, f64, 10⁷), per draw",
                     best_of(lambda: fn(key).block_until_ready(), 3) / n))
    base = rows[0][1]
    print("| one N(0, 1) | time per draw | ratio to sgsample |")
    print("|---|---:|---:|")
    for name, t in rows:
        print(f"| {name} | {t * 1e9:.2f} ns | {t / base:.2f} |")
    print()
    print("| d | type | sgsample (C API, C callback) | numpy | BlackJAX (jit) "
          "| numpy / sgsample | BlackJAX / sgsample | BlackJAX compile |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for f32 in (False, True):
        for d in INNER_DIMS:
            s = sgs_sghmc_inner(lib, models, d, f32)
            nmp = np_sghmc_inner(d, f32)
            bj, comp = bj_sghmc_inner(d, f32) if jax_ok else (float("nan"), float("nan"))
            print(f"| {d} | {'f32' if f32 else 'f64'} | {s * 1e9:.2f} ns | {nmp * 1e9:.2f} ns "
                  f"| {bj * 1e9:.2f} ns | {nmp / s:.1f} | {bj / s:.1f} | {comp:.2f} s |",
                  flush=True)
    print(f"\nTime per coordinate per inner step: best of 3 timed runs of {INNER_WORK:,} "
          "coordinate-steps (T·d·iterations) after a warm-up run; every tool resamples the "
          "momentum each outer iteration and draws d noise normals per inner step.\n")


# ---------------------------------------------------------------------------------------------
# Tables


def fmt_time(s):
    us = s * 1e6
    if us >= 1000:
        return f"{us / 1000:.2f} ms"
    return f"{us:.1f} µs" if us >= 10 else f"{us:.2f} µs"


def machine_lines(lib):
    try:
        import jax
        import blackjax

        jax_v = f"jax {jax.__version__} (CPU, x64 on), blackjax {blackjax.__version__}"
    except ImportError:
        jax_v = "no BlackJAX"
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        f"- CPU: {cpu}, {os.cpu_count()} cores (shared with other jobs); "
        f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}",
        f"- sgsample {lib.sgs_version().decode()} (C library, release: LTO, codegen-units=1), "
        f"{rustc}; Python {platform.python_version()}, numpy {np.__version__}, {jax_v}",
        f"- threads: XLA_FLAGS={os.environ.get('XLA_FLAGS')!r}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
    ]
    try:
        from threadpoolctl import threadpool_info

        for pool in threadpool_info():
            lines.append(
                f"- numpy BLAS: {pool.get('internal_api')} {pool.get('version')}, "
                f"core type {pool.get('architecture')}, {pool.get('num_threads')} thread(s)"
            )
    except ImportError:
        pass
    return lines


def double_well(lib, models, args, eps, jax_ok):
    """Problem 2 at step size eps: one table."""
    iters, runs = args.chain_iters, args.chain_runs
    print(f"### Double well, ε = {eps}, β = 0.25, T = 10, gradient noise N(0, 1): "
          f"{runs} runs × {iters} outer iterations\n")
    print("| method | tool | time / outer iteration | ratio to sgsample SGHMC | compile (JAX) "
          "| mean (truth −2.148) | var (truth 2.862) | acceptance |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    tools = [
        ("SGHMC", "sgsample (C API, C callback)",
         lambda r: sgs_chain(lib, models, "sghmc", iters, r, eps)),
        ("SGHMC", "sgsample (C API, Python callback)",
         lambda r: sgs_chain(lib, models, "sghmc", iters, r, eps, py_callback=True)),
        ("SGHMC", "numpy", lambda r: np_sghmc(iters, r, eps) + (float("nan"),)),
    ]
    compile_s = None
    if jax_ok:
        import jax

        t0 = time.perf_counter()
        fn = bj_sghmc_setup(iters, eps).lower(jax.random.key(0)).compile()
        compile_s = time.perf_counter() - t0

        def bj(r, fn=fn):
            key = jax.random.key(r)
            t0 = time.perf_counter()
            out = fn(key).block_until_ready()
            return time.perf_counter() - t0, np.asarray(out), float("nan")

        tools.append(("SGHMC", "BlackJAX (jit)", bj))
    tools.append(("AMAGOLD", "sgsample (C API, C callback)",
                  lambda r: sgs_chain(lib, models, "amagold", iters, r, eps)))
    base = None
    burn = iters // 20
    for method, name, f in tools:
        times, chains, accs, diverged = [], [], [], []
        for r in range(runs):
            dt, xs, acc = f(r)
            xs = np.asarray(xs)
            times.append(dt / iters)
            bad = np.flatnonzero(~np.isfinite(xs))
            if bad.size:
                diverged.append(int(bad[0]) + 1)
            chains.append(xs[burn:])
            accs.append(acc)
        t = statistics.median(times)
        base = t if base is None else base
        comp = f"{compile_s:.2f} s" if name.startswith("BlackJAX") else ""
        acc = np.mean(accs)
        acc_s = "—" if math.isnan(acc) else f"{acc:.3f}"
        if diverged:
            mean_s = f"diverged in {len(diverged)}/{runs} runs"
            var_s = "(non-finite at iteration " + ", ".join(map(str, diverged)) + ")"
        else:
            pooled = np.concatenate(chains)
            mean_s = f"{pooled.mean():.3f} ± {batch_se(chains):.3f}"
            var_s = f"{pooled.var(ddof=1):.3f}"
        print(f"| {method} | {name} | {fmt_time(t)} | {t / base:.2f} | {comp} "
              f"| {mean_s} | {var_s} | {acc_s} |", flush=True)
    print(f"\nmean ± batch-means standard error over the pooled runs (first {burn} iterations "
          "of each run dropped).\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="runs (seeds) per SVGD row")
    ap.add_argument("--svgd-iters", type=int, default=500)
    ap.add_argument("--chain-runs", type=int, default=3, help="runs (seeds) per SG-MCMC row")
    ap.add_argument("--chain-iters", type=int, default=100000, help="outer iterations per run")
    ap.add_argument("--eps", type=float, nargs="+", default=[0.25, 0.1],
                    help="SG-MCMC step sizes (one double-well table each)")
    ap.add_argument("--no-build", action="store_true", help="use the existing libsgsample.so")
    ap.add_argument("--skip-blackjax", action="store_true")
    parts = ["per-coordinate", "mixture", "double-well", "svgd-full", "rbm-scaling", "logreg"]
    ap.add_argument("--parts", nargs="+", default=parts, choices=parts,
                    help="the per-coordinate section, problem 1, problem 2, and the SVGD tables "
                    "of compare_svgd.py")
    ap.add_argument("--per-coordinate-only", action="store_true",
                    help="only the per-coordinate section (one normal, SGHMC inner step)")
    args = ap.parse_args()

    lib, models = build(args)
    jax_ok = not args.skip_blackjax
    if jax_ok:
        try:
            import jax

            jax.config.update("jax_enable_x64", True)
            import blackjax  # noqa: F401
        except ImportError:
            print("BlackJAX not installed (pip install numpy blackjax): skipping it")
            jax_ok = False
    for line in machine_lines(lib):
        print(line)
    print()

    if args.per_coordinate_only or "per-coordinate" in args.parts:
        # ---- Per coordinate (normal, SGHMC inner step) -----------------------------------
        per_coordinate(lib, models, jax_ok)
    if args.per_coordinate_only:
        print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        return
    if "mixture" in args.parts:
        mixture(lib, models, args, jax_ok)
    if "double-well" in args.parts:
        for eps in args.eps:
            double_well(lib, models, args, eps, jax_ok)
    if any(p in args.parts for p in ("svgd-full", "rbm-scaling", "logreg")):
        import compare_svgd

        compare_svgd.run(lib, models, jax_ok, args.runs, args.parts)
    print(f"\nload average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def mixture(lib, models, args, jax_ok):
    """Problem 1: one table."""
    n, iters, runs = 256, args.svgd_iters, args.runs
    print(f"### 1-D mixture: N = {n}, {iters} iterations, AdaGrad 0.2; {runs} runs "
          "(same starts for every tool)\n")
    print("| method | tool | time / iteration | ratio to sgsample | compile (JAX) "
          "| err x | err x² | err cos 2x |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    configs = [(f"RBM-SVGD p={p}, h=2", p, False) for p in (2, 8, 32)]
    configs += [(f"SVGD (p=N), h=2", n, False), ("SVGD, median h", n, True)]
    starts = [mix_start(r, n) for r in range(runs)]
    for label, p, median in configs:
        kernel = SGS_KERNEL_GAUSSIAN_MEDIAN if median else SGS_KERNEL_GAUSSIAN
        rows = []
        tools = [
            ("sgsample (C API, C callback)",
             lambda r: sgs_svgd(lib, models, starts[r], p, kernel, iters, r)),
            ("sgsample (C API, numpy callback)",
             lambda r: sgs_svgd(lib, models, starts[r], p, kernel, iters, r, py_callback=True)),
            ("numpy", lambda r: np_svgd(starts[r], p, median, iters, r)),
        ]
        compile_s = None
        if jax_ok and p == n:
            import jax
            import jax.numpy as jnp

            t0 = time.perf_counter()
            key = jax.random.PRNGKey(0)
            fn = bj_svgd_setup(median, iters).lower(jnp.asarray(starts[0]), key).compile()
            compile_s = time.perf_counter() - t0

            def bj(r, fn=fn):
                x0 = jnp.asarray(starts[r])
                t0 = time.perf_counter()
                out = fn(x0, jax.random.PRNGKey(r)).block_until_ready()
                return time.perf_counter() - t0, np.asarray(out)

            tools.append(("BlackJAX (jit)", bj))
        base = None
        for name, f in tools:
            times, errs = [], []
            for r in range(runs):
                dt, x = f(r)
                times.append(dt / iters)
                errs.append(mix_errors(x))
            t = statistics.median(times)
            base = t if base is None else base
            e = np.mean(errs, axis=0)
            comp = f"{compile_s:.2f} s" if name.startswith("BlackJAX") else ""
            rows.append(f"| {label} | {name} | {fmt_time(t)} | {t / base:.2f} | {comp} "
                        f"| {e[0]:+.4f} | {e[1]:+.4f} | {e[2]:+.4f} |")
        print("\n".join(rows), flush=True)
    print("\nerr = particle average − exact (2/3, 5, e⁻²cos 4), mean over the runs.\n")


if __name__ == "__main__":
    main()
