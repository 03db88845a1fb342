"""sgsample.normal / sgsample.uniform: a seed expanded into reproducible draws by the library's
own generator (sgs_normal / sgs_uniform), so that a callback's minibatch seed gives noise that
every binding and C reproduce."""

import math

import numpy as np
import pytest

import sgsample

N = 200_000


def test_normal_moments_against_the_truth():
    x = sgsample.normal(12345, N)
    assert x.dtype == np.float64 and x.shape == (N,)
    se = 1 / math.sqrt(N)
    assert abs(x.mean()) < 5 * se  # E = 0
    assert abs(x.var() - 1) < 5 * math.sqrt(2 / N)  # Var = 1 (sd of the sample variance)
    assert abs(np.mean(x > 1.0) - 0.15865525393145707) < 5 * math.sqrt(0.1587 * 0.8413 / N)
    assert abs(np.mean(x**4) - 3) < 5 * math.sqrt(96 / N)  # E x^4 = 3, Var x^4 = 96


def test_uniform_against_the_truth():
    u = sgsample.uniform(7, N)
    assert ((0 <= u) & (u < 1)).all()
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / N)
    # Kolmogorov-Smirnov against U(0, 1): sup |F_n - F| < 1.95 / sqrt(N) at the 0.1 % level.
    s = np.sort(u)
    i = np.arange(1, N + 1)
    assert max(np.max(i / N - s), np.max(s - (i - 1) / N)) < 1.95 / math.sqrt(N)


def test_reproducible_prefixes_and_seeds():
    a = sgsample.normal(99, 1000)
    np.testing.assert_array_equal(a, sgsample.normal(99, 1000))
    np.testing.assert_array_equal(a[:10], sgsample.normal(99, 10))  # a prefix is the short fill
    assert not np.array_equal(a, sgsample.normal(100, 1000))
    assert sgsample.normal(5, 0).shape == (0,)
    np.testing.assert_array_equal(sgsample.normal(3, 50, np.float32),
                                  sgsample.normal(3, 50).astype(np.float32))
    u32 = sgsample.uniform(3, 50, np.float32)
    assert u32.dtype == np.float32 and (u32 < 1).all()
    # Not the same stream as uniform's: normal and uniform of one seed are independent.
    assert not np.allclose(sgsample.uniform(99, 10), sgsample.normal(99, 10))


@pytest.mark.parametrize("args", [(-1, 3), (1.5, 3), (1, -2), ("1", 3), (2**64, 1)])
def test_bad_arguments(args):
    with pytest.raises(sgsample.InvalidInput):
        sgsample.normal(*args)
    with pytest.raises(sgsample.InvalidInput):
        sgsample.uniform(*args)


def test_a_callback_with_seed_derived_noise_is_reproducible():
    grad = lambda th, seed: th + 0.5 * sgsample.normal(seed, th.size)  # noqa: E731
    a = sgsample.sghmc(grad, np.zeros(3), 200, step_size=0.05, seed=4).samples
    b = sgsample.sghmc(grad, np.zeros(3), 200, step_size=0.05, seed=4).samples
    np.testing.assert_array_equal(a, b)
    with pytest.raises(sgsample.InvalidInput, match="dtype"):
        sgsample.normal(1, 3, np.int64)
