"""copy.copy / copy.deepcopy give independent samplers that continue exactly as the original
would; pickling a sampler is refused with a clear error; Stats copy and pickle round-trip."""

import copy
import pickle
import threading

import numpy as np
import pytest

import sgsample

import models as M

S = dict(sgsample.header.enums["sgs_status"])


def _chains():
    return [
        sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.5], step_size=0.2, seed=3),
        sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.5], step_size=0.2, seed=3,
                         variant="non_reversible", warmup=40, mass="diagonal"),
        sgsample.SGHMC(M.dw_grad, [0.5], step_size=0.1, seed=4, resample_momentum=False),
        sgsample.SGLD(M.dw_grad, [0.5], step_size=0.1, seed=5),
        sgsample.SGHMC(M.dw_grad_f32, [0.5], step_size=0.1, seed=4, dtype=np.float32),
    ]


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
@pytest.mark.parametrize("k", range(5))
def test_a_chain_copy_continues_as_the_original_would(how, k):
    a = _chains()[k]
    a.run(30)
    b = how(a)
    assert b is not a and b._state != a._state
    assert np.array_equal(b.position, a.position)
    assert b.info == a.info
    xb = b.run(50)
    # The original is untouched by the copy's run, and then draws the same samples.
    assert np.array_equal(a.info.iterations, 30)
    xa = a.run(50)
    assert np.array_equal(xa, xb) and xa.dtype == xb.dtype
    assert a.info.iterations == b.info.iterations == 80


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_an_svgd_copy_continues_as_the_original_would(how):
    x0 = np.linspace(-3, 3, 32)[:, None]
    a = sgsample.SVGD(x0, grads=M.mix_grads, batch_size=8, step_size=0.05, seed=9)
    a.run(5)
    b = how(a)
    assert np.array_equal(b.particles, a.particles)
    pb = b.run(20)
    assert not np.array_equal(a.particles, pb)
    pa = a.run(20)
    assert np.array_equal(pa, pb)


def test_copies_raise_their_own_callback_errors_on_their_own_threads():
    # The copy shares the callback; an error raised in one thread's run is re-raised by that
    # run only, not by the other sampler's run on the other thread.
    main = threading.get_ident()

    def grad(t, seed):
        if threading.get_ident() != main:
            raise KeyError("from the worker thread")
        return M.dw_grad(t, seed)

    a = sgsample.SGLD(grad, [0.5], step_size=0.1)
    b = copy.copy(a)
    caught = []

    def worker():
        try:
            b.run(10)
        except KeyError as e:
            caught.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert len(caught) == 1
    a.run(10)  # nothing left over from the worker's error
    assert a.info.iterations == 10


def test_copying_a_running_sampler_is_refused():
    holder = {}

    def grad(t, seed):
        with pytest.raises(sgsample.InvalidInput) as e:
            copy.copy(holder["s"])
        holder["status"] = e.value.status
        return M.dw_grad(t, seed)

    holder["s"] = sgsample.SGLD(grad, [0.5], step_size=0.1)
    holder["s"].run(1)
    assert holder["status"] == S["SGS_ERR_BUSY"]


def test_samplers_cannot_be_pickled():
    for s in _chains()[:1] + [sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1)]:
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(s)


def test_stats_copy_and_pickle():
    rng = np.random.default_rng(1)
    draws = rng.standard_normal((300, 2)).cumsum(axis=0) * 0.1
    a = sgsample.Stats(2).push(draws[:200])
    for b in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert b.count == 200
        b.push(draws[200:])
        assert a.count == 200  # independent
        ref = sgsample.Stats(2).push(draws)
        for name in ("mean", "variance", "ess", "ess_flags", "mcse"):
            assert np.array_equal(getattr(b, name)(), getattr(ref, name)()), name
    for key, old in (("version", "0.0.0"), ("format", 1)):
        st = a.__getstate__()
        st[key] = old
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.Stats.__new__(sgsample.Stats).__setstate__(st)
        assert e.value.status == S["SGS_ERR_STATE_CORRUPTED"], key
    st = a.__getstate__()
    del st["format"]  # pickled before the format was recorded: the old layout
    with pytest.raises(sgsample.InvalidInput):
        sgsample.Stats.__new__(sgsample.Stats).__setstate__(st)
    st = a.__getstate__()
    st["state"] = bytes(len(st["state"]))  # zeroed: not initialised
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.Stats.__new__(sgsample.Stats).__setstate__(st)
    assert e.value.status == S["SGS_ERR_NOT_INITIALISED"]
