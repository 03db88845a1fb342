"""Run bookkeeping, lifetimes, counts and the one-thread-per-sampler rule of the sampler objects."""

import gc
import threading
import weakref

import numpy as np
import pytest

import sgsample

import models as M

S = dict(sgsample.header.enums["sgs_status"])


def _chain(kind, grad, **kw):
    if kind == "amagold":
        return sgsample.AMAGOLD(M.dw_energy, grad, [0.0], step_size=0.1, steps=4, seed=5, **kw)
    if kind == "sghmc":
        return sgsample.SGHMC(grad, [0.0], step_size=0.1, steps=4, seed=5, **kw)
    return sgsample.SGLD(grad, [0.0], step_size=0.05, seed=5, **kw)


def _counts(info):
    return info.iterations, info.accepted, info.divergences


@pytest.mark.parametrize("kind", ["amagold", "sghmc", "sgld"])
def test_refused_reentry_adds_nothing_to_info(kind):
    # A callback that calls its own sampler (the error caught there): the refused call must not
    # add the last chunk's summary to .info a second time (it used to: 1256 of 1000 for SGLD).
    ref = _chain(kind, M.dw_grad)
    expected = ref.run(1000)
    box, calls, refused = {}, [0], []

    def grad(t, seed):
        calls[0] += 1
        if calls[0] in (300, 600, 900):
            with pytest.raises(sgsample.InvalidInput) as e:
                box["s"].run(1)
            refused.append(e.value.status)
        return M.dw_grad(t, seed)

    s = box["s"] = _chain(kind, grad)
    out = s.run(1000)
    assert refused == [S["SGS_ERR_BUSY"]] * 3
    assert out.shape == (1000, 1)
    assert _counts(s.info) == _counts(ref.info)
    assert s.info.accept_rate == ref.info.accept_rate
    assert np.array_equal(out, expected) and np.array_equal(s.position, ref.position)


def test_svgd_refused_reentry_adds_nothing_to_info():
    box, calls = {}, [0]

    def grads(X, seed):
        calls[0] += 1
        if calls[0] in (30, 60):
            with pytest.raises(sgsample.InvalidInput) as e:
                box["s"].run(1)
            assert e.value.status == S["SGS_ERR_BUSY"]
        return M.mix_grads(X, seed)

    x0 = np.random.default_rng(0).normal(size=(8, 1))
    s = box["s"] = sgsample.SVGD(x0, grads=grads, step_size=0.1, bandwidth=1.0, seed=4)
    s.run(100)
    assert s.info.iterations == 100  # was 116
    ref = sgsample.SVGD(x0, grads=M.mix_grads, step_size=0.1, bandwidth=1.0, seed=4)
    assert np.array_equal(s.particles, ref.run(100))
    assert s.info.step_size == ref.info.step_size


def test_second_thread_is_refused_and_not_counted():
    # One sampler, two threads: the second call while the first runs is refused with
    # SGS_ERR_BUSY (deterministically, by the binding's lock) and adds nothing to .info.
    entered, go = threading.Event(), threading.Event()
    calls = [0]

    def grad(t, seed):
        calls[0] += 1
        if calls[0] == 20:
            entered.set()
            go.wait(10)
        return M.dw_grad(t, seed)

    s = sgsample.SGLD(grad, [0.0], step_size=0.05, seed=5)
    s.run(7)  # an earlier chunk whose summary must not be added again
    got = {}
    t = threading.Thread(target=lambda: got.setdefault("rows", s.run(30)))
    t.start()
    assert entered.wait(10)
    try:
        for call in (lambda: s.run(5), lambda: s.position):
            with pytest.raises(sgsample.InvalidInput) as e:
                call()
            assert e.value.status == S["SGS_ERR_BUSY"] and "thread" in str(e.value)
    finally:
        go.set()
        t.join(10)
    assert got["rows"].shape == (30, 1)
    assert s.info.iterations == s.info.accepted == 37
    s.run(3)  # usable afterwards
    assert s.info.iterations == 40


@pytest.mark.parametrize("make", [
    lambda: sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1),
    lambda: sgsample.SGHMC(M.dw_grad, [0.0], step_size=0.1),
    lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1),
    lambda: sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1),
], ids=["amagold", "sghmc", "sgld", "svgd"])
def test_sampler_is_freed_by_refcounting_alone(make):
    # No reference cycle: `del s` frees the state and workspace at once, without the cyclic GC
    # (the chain samplers used to keep a lambda closing over themselves).
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        s = make()
        s.run(3)
        ws = weakref.ref(s._ws)
        r = weakref.ref(s)
        del s
        assert r() is None and ws() is None
    finally:
        if was:
            gc.enable()


BAD_COUNTS = [-1, -5, 2.7, "3", None, True, float("nan"), 2**64]


@pytest.mark.parametrize("bad", BAD_COUNTS, ids=repr)
def test_run_counts_are_checked_the_same_way_everywhere(bad):
    samplers = [_chain(k, M.dw_grad) for k in ("amagold", "sghmc", "sgld")]
    samplers.append(sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1))
    for s in samplers:
        with pytest.raises(sgsample.InvalidInput) as e:
            s.run(bad)
        assert e.value.status == S["SGS_ERR_INVALID_ARGUMENT"]
        assert s.info.iterations == 0
    with pytest.raises(sgsample.InvalidInput):
        sgsample.svgd(np.zeros((4, 1)), bad, grads=M.mix_grads, step_size=0.1)
    with pytest.raises(sgsample.InvalidInput):
        sgsample.sgld(M.dw_grad, [0.0], bad, step_size=0.1)


def test_integral_counts_are_accepted():
    s = _chain("sgld", M.dw_grad)
    assert s.run(3.0).shape == (3, 1) and s.run(np.int64(2)).shape == (2, 1)
    assert s.info.iterations == 5
    v = sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1)
    v.run(np.uint8(2))
    v.run(1e1)
    assert v.info.iterations == 12


@pytest.mark.parametrize("fn, args", [
    (sgsample.amagold, (M.dw_energy, M.dw_grad)), (sgsample.sghmc, (M.dw_grad,)),
    (sgsample.sgld, (M.dw_grad,)),
])
@pytest.mark.parametrize("chains", [0, -1, 1.5])
def test_chain_counts(fn, args, chains):
    with pytest.raises(sgsample.InvalidInput) as e:
        fn(*args, [0.0], 5, chains=chains, step_size=0.1)
    assert e.value.status == S["SGS_ERR_INVALID_ARGUMENT"] and "chains" in str(e.value)


@pytest.mark.parametrize("kind", ["amagold", "sghmc", "sgld"])
def test_step_is_one_iteration_of_run_and_iterations_is_the_c_counter(kind):
    kw = dict(warmup=20) if kind == "amagold" else {}  # through the warm-up and past it
    a, b = _chain(kind, M.dw_grad, **kw), _chain(kind, M.dw_grad, **kw)
    records = np.array([a.step() for _ in range(30)], a.INFO_DTYPE)
    rows, infos = b.run(30, info=True)
    np.testing.assert_array_equal(a.position, rows[-1])
    for name in infos.dtype.names:  # NaN (AMAGOLD's rho) equal to NaN
        np.testing.assert_array_equal(records[name], infos[name], err_msg=name)
    assert a.iterations == a.info.iterations == b.iterations == 30
    assert _counts(a.info) == _counts(b.info)
    # A failing step raises its callback's exception and counts nothing.
    a._cb.py.grad = M.failing_at(1, M.dw_grad)
    with pytest.raises(RuntimeError, match="boom"):
        a.step()
    assert a.iterations == a.info.iterations == 30
