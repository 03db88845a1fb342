"""Stein thinning (sgsample.stein_thin over sgs_stein_thin): the C greedy selection against the
same algorithm written out here in numpy from its definition (docs/algorithms.md §6), for every
preconditioner option; the options' meaning; and bad input refused with the status named."""

import numpy as np
import pytest

import sgsample


def stein_kernel(x, y, gx, gy, lam, c=1.0, beta=-0.5):
    """u(x_i, y) for every row x_i: the IMQ Stein kernel with gradients of V and metric diag(lam)."""
    z = x - y
    q = c * c + (lam * z * z).sum(axis=1)
    k = q ** beta
    gd = (lam * (gx - gy) * z).sum(axis=1)
    gg = (gx * gy).sum(axis=1)
    r2 = (lam * lam * z * z).sum(axis=1)
    return k * gg + 2 * beta * k / q * gd - 2 * beta * lam.sum() * k / q \
        - 4 * beta * (beta - 1) * k / q / q * r2


def greedy(x, g, m, lam):
    n = x.shape[0]
    obj = np.array([stein_kernel(x[i:i + 1], x[i], g[i:i + 1], g[i], lam)[0] for i in range(n)])
    out = [int(np.argmin(obj))]
    for _ in range(1, m):
        j = out[-1]
        obj = obj + 2 * stein_kernel(x, x[j], g, g[j], lam)
        out.append(int(np.argmin(obj)))
    return np.array(out)


def sample(n, d, seed):
    rng = np.random.default_rng(seed)
    cov = np.eye(d) + 0.6 * (np.ones((d, d)) - np.eye(d))
    x = rng.multivariate_normal(np.arange(d) * 0.5, 2.0 * cov, size=n)
    return x, x @ np.linalg.inv(cov)  # ∇V of N(0, cov), not the law they were drawn from


@pytest.mark.parametrize("d", [1, 2, 4])
def test_greedy_selection_matches_the_definition(d):
    x, g = sample(300, d, d)
    got = sgsample.stein_thin(x, g, 25, standardize=False)
    assert np.array_equal(got, greedy(x, g, 25, np.ones(d)))


def test_standardising_is_thinning_the_standardised_draws():
    x, g = sample(400, 3, 7)
    w = np.abs(x - x.mean(axis=0)).mean(axis=0)
    got = sgsample.stein_thin(x, g, 30)
    assert np.array_equal(got, greedy(x / w, g * w, 30, np.ones(3)))
    assert np.array_equal(got, sgsample.stein_thin(x / w, g * w, 30, standardize=False))


@pytest.mark.parametrize("pre", ["med", "sclmed", 2.5, [0.5, 1.0, 4.0]])
def test_preconditioners(pre):
    x, g = sample(500, 3, 11)
    xs = x / np.abs(x - x.mean(axis=0)).mean(axis=0)
    if isinstance(pre, str):
        dist = np.sqrt(((xs[:, None, :] - xs[None, :, :]) ** 2).sum(axis=2))
        h = np.median(dist[np.triu_indices(500, 1)]) ** 2
        lam = np.full(3, (np.log(500) if pre == "sclmed" else 1.0) / h)
    else:
        lam = 1.0 / np.full(3, pre) if np.isscalar(pre) else np.array(pre)
    w = np.abs(x - x.mean(axis=0)).mean(axis=0)
    got = sgsample.stein_thin(x, g, 20, preconditioner=pre)
    assert np.array_equal(got, greedy(x / w, g * w, 20, lam))


def test_far_and_repeated_draws():
    # A standard normal target; a far draw is never chosen; m > n repeats draws; m = 0 is empty.
    x = np.array([0.1, -0.4, 0.8, -1.1, 0.3, 7.0])
    got = sgsample.stein_thin(x, x, 12, standardize=False)
    assert got.shape == (12,) and got.dtype == np.int64 and 5 not in got
    assert sgsample.stein_thin(x, x, 0).shape == (0,)


def test_thinned_draws_of_a_biased_chain_are_closer_to_the_target():
    # Draws from N(0.3, 1.6²) standing in for a biased sampler's output; the target is N(0, 1).
    # The KSD² of the 40 thinned draws is below that of 40 evenly spaced raw draws (the thinning's
    # own objective; what it buys in moments is measured in bindings/python/benchmarks).
    rng = np.random.default_rng(3)
    x = 0.3 + 1.6 * rng.standard_normal((4000, 1))
    idx = sgsample.stein_thin(x, x, 40, standardize=False)
    raw = x[::100]
    assert sgsample.ksd(x[idx], x[idx]) < 0.25 * sgsample.ksd(raw, raw)


@pytest.mark.parametrize("kwargs, status", [
    (dict(draws=np.zeros((0, 2)), grads=np.zeros((0, 2))), "SGS_ERR_ZERO_PARTICLES"),
    (dict(grads=np.zeros((10, 3))), "SGS_ERR_LENGTH_MISMATCH"),
    (dict(draws=np.full((10, 2), np.nan)), "SGS_ERR_NON_FINITE"),
    (dict(preconditioner="half"), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(preconditioner=-1.0), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(preconditioner=[1.0]), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(beta=0.0), "SGS_ERR_INVALID_KERNEL"),
    (dict(c=-1.0), "SGS_ERR_INVALID_KERNEL"),
    (dict(draws=np.ones((10, 2)), grads=np.ones((10, 2))), "SGS_ERR_INVALID_ARGUMENT"),
])
def test_bad_input(kwargs, status):
    x, g = sample(10, 2, 1)
    args = dict(draws=x, grads=g, m=3)
    args.update(kwargs)
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.stein_thin(**args)
    assert e.value.status == getattr(sgsample, status)


def test_m_must_be_a_count():
    x, g = sample(10, 2, 1)
    with pytest.raises((TypeError, ValueError)):
        sgsample.stein_thin(x, g, -1)
