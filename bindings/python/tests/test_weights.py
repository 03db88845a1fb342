"""Importance weights for particles (sgsample.particle_weights over sgs_particle_weights,
docs/algorithms.md §2.9): the C result against the formula written out here in numpy, the
median bandwidth against numpy's median, cluster shares recovered from unequal counts against
their exact values (tolerance from the spread over seeds), and bad input refused."""

import numpy as np
import pytest

import sgsample


def numpy_weights(x, v, h):
    r2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=2)
    lw = -v - np.log(np.exp(-r2 / (2 * h)).sum(axis=1))
    w = np.exp(lw - lw.max())
    return w / w.sum()


def numpy_median_bandwidth(x):
    n = len(x)
    r = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=2))[np.triu_indices(n, 1)]
    return np.median(r) ** 2 / (2 * np.log(n))


@pytest.mark.parametrize("d", [1, 3])
def test_matches_the_formula(d):
    rng = np.random.default_rng(d)
    x = rng.normal(size=(57, d)) * 2.0
    v = 0.5 * (x ** 2).sum(axis=1) + rng.normal(size=57)
    for h in (0.1, 1.0, None):
        w = sgsample.particle_weights(x if d > 1 else x[:, 0], v, bandwidth=h)
        hh = numpy_median_bandwidth(x) if h is None else h
        np.testing.assert_allclose(w, numpy_weights(x, v, hh), rtol=1e-12)
        assert abs(w.sum() - 1.0) < 1e-14
    assert sgsample.median_bandwidth(x) == pytest.approx(numpy_median_bandwidth(x), rel=1e-15)
    w32 = sgsample.particle_weights(x.astype(np.float32), v, bandwidth=1.0)
    np.testing.assert_allclose(w32, numpy_weights(x.astype(np.float32).astype(np.float64), v, 1.0),
                               rtol=1e-12)


def test_cluster_shares_from_unequal_counts():
    """Draws from two far-apart unit Gaussians, 300 at the first and 100 at the second, for the
    mixture with weights 0.3 and 0.7: the raw share of the first is 0.75, the weighted one must
    be 0.3 within 4 standard errors over 20 seeds (and the mean of x within the same)."""
    a, mu = 0.3, np.array([0.0, 12.0])
    shares = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = np.concatenate([rng.normal(size=300) + mu[0], rng.normal(size=100) + mu[1]])
        lp = np.stack([np.log(a) - 0.5 * (x - mu[0]) ** 2, np.log(1 - a) - 0.5 * (x - mu[1]) ** 2])
        v = -np.logaddexp(lp[0], lp[1])
        w = sgsample.particle_weights(x, v)
        shares.append(w[:300].sum())
    shares = np.array(shares)
    se = shares.std(ddof=1) / np.sqrt(len(shares))
    assert abs(shares.mean() - a) < 4 * se + 1e-3, (shares.mean(), se)
    assert se < 0.02  # the weights are not so noisy that any answer would pass


def test_infinite_energy_and_ess():
    w = sgsample.particle_weights([0.0, 1.0, 2.0], [0.0, np.inf, 0.0], bandwidth=1.0)
    assert w[1] == 0.0 and abs(w[0] + w[2] - 1.0) < 1e-15


@pytest.mark.parametrize("args, status", [
    (([], []), "SGS_ERR_ZERO_PARTICLES"),
    (([[1.0, np.nan]], [0.0]), "SGS_ERR_NON_FINITE"),
    (([0.0, 1.0], [0.0]), "SGS_ERR_LENGTH_MISMATCH"),
    (([0.0, 1.0], [0.0, np.nan]), "SGS_ERR_NON_FINITE"),
    (([0.0, 1.0], [np.inf, np.inf]), "SGS_ERR_NON_FINITE"),
    (([0.0, 1.0], [0.0, 0.0], 0.0), "SGS_ERR_INVALID_BANDWIDTH"),
    (([0.0, 1.0], [0.0, 0.0], [1.0, 2.0]), "SGS_ERR_INVALID_BANDWIDTH"),
    ((np.zeros((2, 2, 2)), [0.0, 0.0]), "SGS_ERR_LENGTH_MISMATCH"),
    ((["a", "b"], [0.0, 0.0]), "SGS_ERR_INVALID_ARGUMENT"),
    (([0.0, 1.0], ["0", "1"]), "SGS_ERR_INVALID_ARGUMENT"),
])
def test_bad_input(args, status):
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.particle_weights(*args)
    assert e.value.status == getattr(sgsample, status)
