"""Importance sampling with the particles' kernel density estimate as the proposal
(sgsample.kde_draws / kde_weights over sgs_kde_draws / sgs_kde_weights, docs/algorithms.md
§2.9): the draws in the documented order against a numpy re-draw, the weights against the
formula written out in numpy, a mixture's mode mass recovered from particles that hold it in
the wrong proportion (tolerance from the spread over seeds), and bad input refused."""

import numpy as np
import pytest

import sgsample


def numpy_kde_weights(x, y, v, h):
    r2 = ((y[:, None, :] - x[None, :, :]) ** 2).sum(axis=2)
    a = -r2 / (2 * h)
    top = a.max(axis=1)
    lq = top + np.log(np.exp(a - top[:, None]).sum(axis=1))
    lw = -v - lq
    w = np.exp(lw - lw.max())
    return w / w.sum()


def test_draws_are_reproducible_and_f32_rounds_f64():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 3))
    y = sgsample.kde_draws(x, 50, seed=9, bandwidth=0.3)
    assert y.shape == (50, 3) and y.dtype == np.float64
    np.testing.assert_array_equal(y, sgsample.kde_draws(x, 50, seed=9, bandwidth=0.3))
    np.testing.assert_array_equal(y[:10], sgsample.kde_draws(x, 10, seed=9, bandwidth=0.3))
    assert not np.array_equal(y, sgsample.kde_draws(x, 50, seed=10, bandwidth=0.3))
    # Every draw is sqrt(h)·z away from some particle: the nearest particle is close.
    near = np.sqrt(((y[:, None, :] - x[None]) ** 2).sum(axis=2)).min(axis=1)
    assert near.max() < 5 * np.sqrt(0.3 * 3)
    x32 = x.astype(np.float32)
    y32 = sgsample.kde_draws(x32, 50, seed=9, bandwidth=0.3)
    y64 = sgsample.kde_draws(x32.astype(np.float64), 50, seed=9, bandwidth=0.3)
    np.testing.assert_array_equal(y32, y64.astype(np.float32))


@pytest.mark.parametrize("d", [1, 2])
def test_weights_match_the_formula(d):
    rng = np.random.default_rng(d)
    x = rng.normal(size=(31, d))
    for h in (0.2, None):
        y = sgsample.kde_draws(x, 200, seed=d, bandwidth=h)
        v = 0.5 * (y ** 2).sum(axis=1) + 0.1 * rng.normal(size=200)
        w = sgsample.kde_weights(x if d > 1 else x[:, 0], y, v, bandwidth=h)
        hh = sgsample.median_bandwidth(x) if h is None else h
        np.testing.assert_allclose(w, numpy_kde_weights(x, y, v, hh), rtol=1e-10)
        assert abs(w.sum() - 1.0) < 1e-14


def test_mode_mass_from_particles_in_the_wrong_proportion():
    # π = 0.3 N(−3, 1) + 0.7 N(3, 1); three quarters of the particles sit at the left mode.
    x = np.r_[np.linspace(-3.5, -2.5, 30), np.linspace(2.0, 3.0, 10)]

    def energy(t):
        return -np.log(0.3 * np.exp(-0.5 * (t + 3) ** 2) + 0.7 * np.exp(-0.5 * (t - 3) ** 2))

    est = []
    for seed in range(40):
        y = sgsample.kde_draws(x, 2000, seed=seed, bandwidth=1.0)
        w = sgsample.kde_weights(x, y, energy(y[:, 0]), bandwidth=1.0)
        est.append(w[y[:, 0] > 0].sum())
    est = np.array(est)
    se = est.std(ddof=1) / np.sqrt(len(est))
    assert abs(est.mean() - 0.7) < 4 * se, (est.mean(), se)
    assert se < 0.01


@pytest.mark.parametrize("call, status", [
    (lambda: sgsample.kde_draws(np.zeros((0, 2)), 5, 1), "SGS_ERR_ZERO_PARTICLES"),
    (lambda: sgsample.kde_draws(np.zeros((3, 2)), 0, 1), "SGS_ERR_ZERO_PARTICLES"),
    (lambda: sgsample.kde_draws([0.0, np.nan], 5, 1), "SGS_ERR_NON_FINITE"),
    (lambda: sgsample.kde_draws([0.0, 1.0], 5, 1, bandwidth=0.0), "SGS_ERR_INVALID_BANDWIDTH"),
    (lambda: sgsample.kde_draws([0.0, 1.0], 5, 1, bandwidth=[1.0]), "SGS_ERR_INVALID_BANDWIDTH"),
    (lambda: sgsample.kde_weights([0.0, 1.0], np.zeros((3, 2)), np.zeros(3)),
     "SGS_ERR_LENGTH_MISMATCH"),
    (lambda: sgsample.kde_weights([0.0, 1.0], [0.5, 0.2], np.zeros(3)), "SGS_ERR_LENGTH_MISMATCH"),
    (lambda: sgsample.kde_weights([0.0, 1.0], [0.5, np.inf], np.zeros(2)), "SGS_ERR_NON_FINITE"),
    (lambda: sgsample.kde_weights([0.0, 1.0], [0.5, 0.2], [np.nan, 0.0]), "SGS_ERR_NON_FINITE"),
    (lambda: sgsample.kde_weights([0.0, 1.0], [0.5, 0.2], [np.inf, np.inf]), "SGS_ERR_NON_FINITE"),
    (lambda: sgsample.kde_weights([0.0, 1.0], [0.5, 0.2], [0.0, 0.0], bandwidth=-1.0),
     "SGS_ERR_INVALID_BANDWIDTH"),
])
def test_bad_input(call, status):
    with pytest.raises(sgsample.InvalidInput) as e:
        call()
    assert e.value.status == getattr(sgsample, status)


def test_bad_types():
    for call in (lambda: sgsample.kde_draws([0.0, 1.0], 5, seed="1"),
                 lambda: sgsample.kde_draws([0.0, 1.0], -5, seed=1),
                 lambda: sgsample.kde_weights([0.0, 1.0], ["a", "b"], [0.0, 0.0])):
        with pytest.raises(sgsample.InvalidInput) as e:
            call()
        assert e.value.status == sgsample.SGS_ERR_INVALID_ARGUMENT


def test_docstring_examples():
    import doctest
    runner = doctest.DocTestRunner()
    for fn in (sgsample.kde_weights, sgsample.particle_weights):
        for test in doctest.DocTestFinder().find(fn, globs={}):
            runner.run(test)
    assert runner.tries >= 8 and runner.failures == 0
