"""Annealed SVGD through the binding (options ``anneal``, ``anneal_iterations``,
``anneal_cycles``, ``anneal_power``): a run with a schedule is, bit for bit, a plain run whose
gradients are multiplied by γ(t) (docs/algorithms.md §2.8); unknown schedules are refused."""

import math

import numpy as np
import pytest

import sgsample


def gamma_cyclical(t, iters, cycles, power):
    if t >= iters:
        return 1.0
    r = t / (iters / cycles)
    return (r - math.floor(r)) ** power


def grads(X, seed):
    # A 2-d mixture's ∇V with seed-dependent jitter (as a minibatch gradient would have).
    e = ((int(seed) >> 40) / 2**24 - 0.5) * 0.1
    w = 1 / (1 + np.exp(-4 * X[:, 0]))
    return np.column_stack([X[:, 0] - (2 * w - 1) * 2 + e, 2 * X[:, 1] - e])


def start():
    i = np.arange(32)
    return ((i * 37 % 23) / 11.0 - 1.0).reshape(16, 2)


def test_annealed_run_is_plain_svgd_on_tempered_gradients():
    opts = dict(batch_size=4, step_size=0.1, kernel="gaussian_median", seed=5)
    a = sgsample.SVGD(start(), grads=grads, anneal="cyclical", anneal_iterations=30,
                      anneal_cycles=3, anneal_power=2.0, **opts)
    got = a.run(40)
    calls = [0]

    def scaled(X, seed):
        g = grads(X, seed) * gamma_cyclical(calls[0], 30, 3, 2.0)
        calls[0] += 1
        return g

    plain = sgsample.SVGD(start(), grads=scaled, **opts)
    assert np.array_equal(got, plain.run(40))
    assert not np.array_equal(got, sgsample.SVGD(start(), grads=grads, **opts).run(40))


@pytest.mark.parametrize("bad", [dict(anneal="linear"),
                                 dict(anneal="cyclical"),
                                 dict(anneal="hyperbolic", anneal_iterations=5, anneal_power=0.0)])
def test_bad_schedules(bad):
    with pytest.raises(sgsample.InvalidInput):
        sgsample.SVGD(start(), grads=grads, batch_size=4, step_size=0.1, **bad)
