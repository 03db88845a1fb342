"""The kernelized Stein discrepancy through the binding: the SVGD option and sgsample.ksd."""

import math

import numpy as np
import pytest

import sgsample


def mixture_grad(x, seed):
    return x - 2.0 + 4.0 / (2.0 * np.exp(4.0 * x) + 1.0)


def test_svgd_reports_ksd_and_it_falls():
    rng = np.random.default_rng(0)
    x0 = -10.0 + rng.standard_normal(128)
    s = sgsample.SVGD(x0, mixture_grad, batch_size=8, step_size=0.2, bandwidth=2.0, ksd="full")
    s.run(1)
    start = s.info.ksd_squared
    s.run(299)
    end = s.info.ksd_squared
    assert start > 1.0 and end < 1e-3 * start, (start, end)
    # The final particles' own KSD² (sgsample.ksd) is at the level of exact samples of the
    # same size, 1.74/N (tests/svgd_ksd.rs); required below 4/N.
    x = s.particles
    own = sgsample.ksd(x, mixture_grad(x, 0))
    assert 0 < own < 4.0 / 128, own


def test_ksd_off_by_default_and_same_particles():
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((40, 2))
    grad = lambda x, seed: 1.5 * x
    a = sgsample.SVGD(x0, grad, batch_size=5, step_size=0.1, seed=3)
    b = sgsample.SVGD(x0, grad, batch_size=5, step_size=0.1, seed=3, ksd="batch")
    a.run(20)
    b.run(20)
    assert math.isnan(a.info.ksd_squared)
    assert np.isfinite(b.info.ksd_squared)
    assert np.array_equal(a.particles, b.particles)


def test_batch_estimate_mean_is_full_value():
    rng = np.random.default_rng(2)
    x = 0.7 * rng.standard_normal((30, 2)) + 0.4
    full = sgsample.ksd(x, x)
    v = np.array([sgsample.ksd(x, x, batch_size=6, seed=k) for k in range(2000)])
    assert abs(v.mean() - full) < 4 * v.std(ddof=1) / math.sqrt(v.size)
    assert abs(sgsample.ksd(x, x, batch_size=30) - full) < 1e-12 * full


def test_ksd_errors():
    x = np.zeros((4, 1))
    for kw, status in [({"beta": 0.0}, "SGS_ERR_INVALID_KERNEL"),
                       ({"batch_size": 1}, "SGS_ERR_INVALID_BATCH_SIZE")]:
        try:
            sgsample.ksd(x, x, **kw)
        except sgsample.Error as e:
            assert e.status == getattr(sgsample, status)
        else:
            raise AssertionError(kw)


@pytest.mark.parametrize("bad", [lambda g: g.T, lambda g: g.ravel(), lambda g: g[:-1],
                                 lambda g: g[None]], ids=["transposed", "flat", "short", "3-D"])
def test_grads_must_have_the_particles_shape(bad):
    # Reshaping a (d, N) array to (N, d) reads other gradients without any error: refused.
    x = np.random.default_rng(1).standard_normal((5, 2))
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.ksd(x, bad(x.copy()))
    assert e.value.name == "SGS_ERR_LENGTH_MISMATCH" and "shape" in str(e.value)
    # N particles in one dimension: (N,) with (N,) gradients.
    assert sgsample.ksd(x[:, 0], x[:, 0]) == sgsample.ksd(x[:, :1], x[:, :1])
    with pytest.raises(sgsample.InvalidInput):
        sgsample.ksd(x[:, 0], x[:, :1])


@pytest.mark.parametrize("kw", [dict(batch_size=-1), dict(seed=-1), dict(stream=2.5),
                                dict(batch_size=2, seed="1")])
def test_bad_integers_raise_invalid_input(kw):
    x = np.random.default_rng(1).standard_normal((5, 2))
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.ksd(x, x, **kw)
    assert e.value.name == "SGS_ERR_INVALID_ARGUMENT"
