"""Exact-truth checks: tolerances are 4.5 Monte Carlo standard errors (batch means)."""

import math

import numpy as np
import pytest

import sgsample

import models as M

# Double well (docs/algorithms.md §1.3): quadrature truth.
DW_MEAN, DW_VAR, DW_POS = -2.148, 2.862, 0.1288
Z = 4.5


def mc_se(x, batches=50):
    """Standard error of the mean of a (chains, draws) array by batch means."""
    b = np.asarray(x).reshape(x.shape[0], batches, -1).mean(axis=2).ravel()
    return b.std(ddof=1) / math.sqrt(b.size)


def check(x, truth, what):
    est, se = x.mean(), mc_se(x)
    # The truth itself is given to 3-4 digits: allow its rounding on top of the MC error.
    assert abs(est - truth) < Z * se + 5e-4, f"{what}: {est:.4f} vs {truth} (se {se:.4f})"


def test_amagold_double_well_raw_callbacks(models):
    sd = np.array([1.0])
    res = sgsample.amagold(sgsample.Raw(models.dw_energy, sd), sgsample.Raw(models.dw_grad, sd),
                           [0.0], 100_000, chains=4, seed=1, step_size=0.25, friction=0.25,
                           steps=10)
    x = res.samples[..., 0]
    assert res.samples.shape == (4, 100_000, 1)
    check(x, DW_MEAN, "E theta")
    check((x - DW_MEAN) ** 2, DW_VAR, "Var theta")
    check((x > 0).astype(float), DW_POS, "P(theta > 0)")
    assert all(0.3 < i.accept_rate < 1 and i.divergences == 0 for i in res.info)


def test_amagold_double_well_python_callbacks():
    res = sgsample.amagold(M.dw_energy, M.dw_grad, [0.0], 5_000, chains=2, seed=2,
                           step_size=0.25, friction=0.25, steps=10)
    x = res.samples[..., 0]
    check(x, DW_MEAN, "E theta")
    check((x > 0).astype(float), DW_POS, "P(theta > 0)")


def test_amagold_correlated_gaussian():
    # N(mu, S) with S = [[1, .9], [.9, 1]] and gradient noise N(0, 0.5^2 I) from the seed.
    mu = np.array([1.0, -2.0])
    S = np.array([[1.0, 0.9], [0.9, 1.0]])
    P = np.linalg.inv(S)

    def energy(t):
        r = t - mu
        return 0.5 * r @ P @ r

    def grad(t, seed):
        return P @ (t - mu) + 0.5 * np.random.default_rng(seed).standard_normal(2)

    res = sgsample.amagold(energy, grad, [0.0, 0.0], 4_000, chains=2, seed=3, step_size=0.2,
                           friction=0.5, steps=8)
    x = res.samples
    for i in range(2):
        check(x[..., i], mu[i], f"mean[{i}]")
    check((x[..., 0] - mu[0]) * (x[..., 1] - mu[1]), S[0, 1], "cov")
    check((x[..., 1] - mu[1]) ** 2, S[1, 1], "var[1]")


def test_svgd_mixture_moments():
    # RBM-SVGD on the paper's 1-D mixture: particle averages near the exact ones (a loose check;
    # the figure example measures the MSE properly).
    rng = np.random.default_rng(0)
    x0 = rng.normal(-10, 1, size=(256, 1))
    p, info = sgsample.svgd(x0, 500, grads=M.mix_grads, batch_size=16, step_size=0.2,
                            bandwidth=2.0, seed=1)
    assert info.iterations == 500 and p.shape == (256, 1)
    assert abs(p.mean() - 2 / 3) < 0.3
    assert abs((p**2).mean() - 5) < 0.6


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgld_small_step_is_close(dtype, models):
    # SGLD is biased by O(eps); at eps = 0.01 on the double well the mean is within 0.1.
    g = sgsample.Raw(models.dw_grad_f32) if dtype == np.float32 else sgsample.Raw(models.dw_grad)
    res = sgsample.sgld(g, [0.0], 50_000, chains=2, seed=4, step_size=0.01, steps=10,
                        dtype=dtype)
    assert res.samples.dtype == dtype
    assert abs(res.samples.mean() - DW_MEAN) < 0.15
