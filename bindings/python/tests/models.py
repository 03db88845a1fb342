"""The Python twins of models.c: the same operations in the same order, so the bits agree."""

import ctypes
import math

import numpy as np

M64 = (1 << 64) - 1


def _splitmix64(s):
    s = (s + 0x9E3779B97F4A7C15) & M64
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return s, z ^ (z >> 31)


def normal(seed):
    s, a = _splitmix64(seed)
    s, b = _splitmix64(s)
    u1 = float((a >> 11) + 1) * 2.0**-53
    u2 = float(b >> 11) * 2.0**-53
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(6.283185307179586 * u2)


def dw_energy(t):
    x = float(t[0])
    return (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5


def dw_grad(t, seed, sd=1.0):
    x = float(t[0])
    return np.array([(4.0 * x * x * x + 3.0 * x * x - 26.0 * x - 1.0) / 14.0 + sd * normal(seed)])


def dw_grad_f32(t, seed):
    f = np.float32
    x = f(t[0])
    g = (f(4.0) * x * x * x + f(3.0) * x * x - f(26.0) * x - f(1.0)) / f(14.0) + f(normal(seed))
    return np.array([g], dtype=np.float32)


def gauss_energy(t, scales):
    acc = 0.0
    for x, s in zip(t, scales):
        x = float(x)
        acc += x * x / (2.0 * s * s)
    return acc


def gauss_grad(t, seed, scales, noise_sd):
    g = np.empty(len(t))
    for i, (x, s) in enumerate(zip(t, scales)):
        g[i] = float(x) / (s * s)
        if noise_sd != 0.0:
            g[i] += noise_sd * normal((seed + i) & M64)
    return g


def mix_grads(X, seed):
    out = np.empty_like(X)
    for i, x in enumerate(X.ravel()):
        x = float(x)
        a = math.exp(-0.5 * (x + 2.0) * (x + 2.0)) / 3.0
        b = 2.0 * math.exp(-0.5 * (x - 2.0) * (x - 2.0)) / 3.0
        out.flat[i] = (a * (x + 2.0) + b * (x - 2.0)) / (a + b)
    return out


def laplace_data(n):
    """tests/tunamh.rs's data: n points spread over [-1, 3) by the golden ratio."""
    return ((np.arange(n) * 0.6180339887) % 1.0 - 0.5) * 4.0 + 1.0


def laplace_diffs(y):
    """TunaMH's differences for the terms |y_i − θ| (each 1-Lipschitz: bound 1)."""

    def differences(t, p, idx):
        yi = y[idx]
        return np.abs(yi - p[0]) - np.abs(yi - t[0])

    return differences


def laplace_exact(t, p):
    """The N(0, 1) prior's difference U₀(p) − U₀(t), in double as models.c computes it (also
    for float32 coordinates)."""
    tt, pp = float(t[0]), float(p[0])
    return (pp * pp - tt * tt) / 2.0


def failing_at(n, fn, exc=None):
    """``fn``, raising ``exc`` (a RuntimeError "boom" by default) at its ``n``-th call instead: a
    callback that fails in the middle of a run."""
    calls = [0]

    def wrapped(*args):
        calls[0] += 1
        if calls[0] == n:
            raise exc if exc is not None else RuntimeError("boom")
        return fn(*args)

    return wrapped


_D, _F = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_float)
_V, _N, _S = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64
# The C types of models.c's callbacks: sgsample.Raw checks a ctypes function's argtypes and
# restype against the slot it fills, and refuses an untyped symbol.
SIGNATURES = {
    "dw_energy": (_V, _D, _N, _D), "gauss_energy": (_V, _D, _N, _D),
    "dw_energy_f32": (_V, _F, _N, _D),
    "dw_grad": (_V, _D, _N, _S, _D), "count_grad": (_V, _D, _N, _S, _D),
    "gauss_grad": (_V, _D, _N, _S, _D), "dw_grad_f32": (_V, _F, _N, _S, _F),
    "mix_grads": (_V, _D, _N, _N, _S, _D),
    "laplace_diffs": (_V, _D, _D, _N, ctypes.POINTER(_S), _N, _D),
    "laplace_exact": (_V, _D, _D, _N, _D),
    "laplace_diffs_f32": (_V, _F, _F, _N, ctypes.POINTER(_S), _N, _D),
}


def typed(so):
    for name, args in SIGNATURES.items():
        fn = getattr(so, name)
        fn.argtypes, fn.restype = args, ctypes.c_int32
    return so


# Vectorised twins for K chains per call (test_batch.py, benchmarks/batch.py): one row per chain.
# The noise uses only integer and IEEE-exact float operations, so that a row gives the same bits
# alone and in a batch (a numpy log or cos could differ in the last bit between array lengths).


def uniform_noise_rows(seeds):
    """Unit-variance noise, one value per uint64 seed (splitmix64 → a uniform u → √12·(u − ½))."""
    with np.errstate(over="ignore"):
        z = seeds + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return 3.4641016151377544 * ((z >> np.uint64(11)).astype(np.float64) * 2.0**-53 - 0.5)


def dw_energy_rows(X):
    """The double well's U for each row of X (shape (k, 1)); far out it overflows to inf (a
    divergence for the sampler), without a warning."""
    x = X[:, 0]
    with np.errstate(over="ignore", invalid="ignore"):
        return (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5


def dw_energy_rows_into(X, out):
    """:func:`dw_energy_rows` written into ``out`` (``vectorized='inplace'``)."""
    out[...] = dw_energy_rows(X)


def dw_grad_rows_into(X, seeds, out):
    """:func:`dw_grad_rows` written into ``out`` (``vectorized='inplace'``)."""
    out[...] = dw_grad_rows(X, seeds)


def dw_grad_rows(X, seeds):
    """The double well's noisy gradient for each row of X, rows' noise from their seeds."""
    x = X[:, 0]
    with np.errstate(over="ignore", invalid="ignore"):
        return ((4.0 * x * x * x + 3.0 * x * x - 26.0 * x - 1.0) / 14.0
                + uniform_noise_rows(seeds))[:, None]
