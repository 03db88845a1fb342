"""``vectorized='inplace'``: batched callbacks that write into ``out`` (views of the C scratch,
X and the seeds read-only) give the draws of ``vectorized=True`` bit for bit, and no path of it
reads or writes memory that is not alive."""

import gc
import os
import signal
import time

import numpy as np
import pytest

import sgsample
from sgsample import _batch

import models as M

energy, grad = M.dw_energy_rows, M.dw_grad_rows
energy_into, grad_into = M.dw_energy_rows_into, M.dw_grad_rows_into


def into(e, g):
    """The in-place callbacks computing ``e``'s and ``g``'s rows."""
    def e2(X, out):
        out[...] = e(X)

    def g2(X, s, out):
        out[...] = g(X, s)

    return (None if e is None else e2), g2


def _same(a, b):
    np.testing.assert_array_equal(a.samples, b.samples)
    for x, y in zip(a.info, b.info):
        assert (x.iterations, x.accepted, x.divergences) == (y.iterations, y.accepted,
                                                            y.divergences)
    for name in a.sample_stats or {}:
        np.testing.assert_array_equal(a.sample_stats[name], b.sample_stats[name], name)


@pytest.mark.parametrize("opts", [
    dict(step_size=0.25, steps=10, friction=0.25),
    dict(step_size=0.6, steps=6, jitter_steps=True),
    dict(warmup=150, mass="diagonal", steps=5),
    dict(step_size=0.25, steps=4, variant="non_reversible"),
], ids=["default", "jitter", "warmup", "nonrev"])
def test_amagold_inplace_is_bit_for_bit_the_copying_mode(opts):
    starts = np.array([[0.5], [-3.0], [2.0], [0.0], [-1.0]])
    kw = dict(chains=5, seed=7, stream=3, keep_warmup=True, **opts)
    got = sgsample.amagold(energy_into, grad_into, starts, 120, vectorized="inplace", **kw)
    ref = sgsample.amagold(energy, grad, starts, 120, vectorized=True, **kw)
    _same(got, ref)
    if ref.warmup_samples is not None:
        np.testing.assert_array_equal(got.warmup_samples, ref.warmup_samples)


@pytest.mark.parametrize("fn", [sgsample.sghmc, sgsample.sgld])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sghmc_sgld_inplace_match(fn, dtype):
    def g(X, s):
        return (X.astype(np.float64) + 0.3 * M.uniform_noise_rows(s)[:, None]).astype(dtype)

    kw = dict(chains=4, seed=3, step_size=0.05, steps=3, dtype=dtype)
    got = fn(into(None, g)[1], np.ones(3), 200, vectorized="inplace", **kw)
    ref = fn(g, np.ones(3), 200, vectorized=True, **kw)
    assert got.samples.dtype == dtype
    _same(got, ref)


@pytest.mark.parametrize("fn", ["amagold", "sghmc"])
def test_calls_beyond_the_cache_get_their_own_arrays(monkeypatch, fn):
    # A cache of 1 call per step: the steps are replayed (a cut needs 7 words) and their calls beyond the cache come
    # one row at a time on pointers outside the scratch (fresh arrays, copied back).
    init = _batch.Batch.__init__

    def small_cache(self, *a, **kw):
        init(self, *a, **kw)
        self.max_calls = 1

    monkeypatch.setattr(_batch.Batch, "__init__", small_cache)
    kinds = set()

    def g(X, s, out):
        kinds.add(X.flags.writeable)  # views of the scratch are read-only, fresh arrays not
        grad_into(X, s, out)

    kw = dict(chains=3, seed=2, step_size=0.25, steps=5)
    if fn == "amagold":
        got = sgsample.amagold(energy_into, g, [0.5], 40, vectorized="inplace", **kw)
        ref = sgsample.amagold(energy, grad, [0.5], 40, vectorized=True, **kw)
    else:
        got = sgsample.sghmc(g, [0.5], 40, vectorized="inplace", **kw)
        ref = sgsample.sghmc(grad, [0.5], 40, vectorized=True, **kw)
    _same(got, ref)
    assert kinds == {True, False}


def test_a_returned_mask_rejects_rows_like_a_masked_array():
    def e_masked(X):
        return np.ma.masked_array(energy(X), mask=X[:, 0] > 1.0)

    def e_into(X, out):
        energy_into(X, out)
        return X[:, 0] > 1.0

    kw = dict(chains=3, seed=5, step_size=0.7, steps=4)
    got = sgsample.amagold(e_into, grad_into, [0.0], 300, vectorized="inplace", **kw)
    ref = sgsample.amagold(e_masked, grad, [0.0], 300, vectorized=True, **kw)
    _same(got, ref)
    assert got.samples.max() <= 1.0


def test_out_of_domain_rejects_every_row_of_the_call():
    def e_into(X, out):
        if (X[:, 0] > 1.5).any():
            raise sgsample.OutOfDomain
        energy_into(X, out)

    def e(X):
        if (X[:, 0] > 1.5).any():
            raise sgsample.OutOfDomain
        return energy(X)

    kw = dict(chains=3, seed=6, step_size=0.7, steps=4)
    _same(sgsample.amagold(e_into, grad_into, [0.0], 200, vectorized="inplace", **kw),
          sgsample.amagold(e, grad, [0.0], 200, vectorized=True, **kw))


@pytest.mark.parametrize("bad", [
    lambda X, s, out: 0,
    lambda X, s, out: np.zeros(X.shape[0]),  # not boolean
    lambda X, s, out: np.zeros(X.shape[0] + 1, bool),
    lambda X, s, out: [False] * X.shape[0],
])
def test_a_wrong_return_value_raises_and_keeps_the_rows(bad):
    def g(X, s, out):
        grad_into(X, s, out)
        return bad(X, s, out) if g.calls > 200 else None

    g.calls = 0

    def counting(X, s, out):
        g.calls += 1
        return g(X, s, out)

    with pytest.raises(TypeError, match="grad") as e:
        sgsample.amagold(energy_into, counting, [0.0], 100, chains=3, vectorized="inplace",
                         seed=2, step_size=0.25, steps=5)
    p = e.value.partial
    n = [x.shape[0] for x in p.samples]
    assert min(n) > 0
    ref = sgsample.amagold(energy, grad, [0.0], max(n), chains=3, vectorized=True, seed=2,
                           step_size=0.25, steps=5)
    for c in range(3):
        np.testing.assert_array_equal(p.samples[c], ref.samples[c, :n[c]])


@pytest.mark.parametrize("which", ["X", "seeds"])
def test_x_and_the_seeds_are_read_only(which):
    def g(X, s, out):
        (X if which == "X" else s)[0] = 0
        grad_into(X, s, out)

    with pytest.raises(ValueError, match="read-only"):
        sgsample.sgld(g, [0.0], 10, chains=3, vectorized="inplace", step_size=0.1)


def _root(a):
    """The object at the end of an array's chain of bases."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a


def test_arrays_a_callback_keeps_stay_valid_memory():
    # The views keep the scratch alive: each one's chain of bases ends at a numpy array that
    # owns its memory (the batch's scratch, still alive after the run and the batch are gone),
    # not at a buffer over C memory that the run frees; reading them reads the last call's
    # values.
    kept = []

    def g(X, s, out):
        kept.append((X, s, out))
        grad_into(X, s, out)

    r = sgsample.sgld(g, [0.0], 50, chains=4, vectorized="inplace", seed=1, step_size=0.1,
                      sample_stats=False)
    del r
    gc.collect()
    X, s, out = kept[-1]
    for a in (X, s, out):
        root = _root(a)
        assert isinstance(root, np.ndarray) and root.flags.owndata and root.dtype == np.float64
    assert np.isfinite(X).all() and np.isfinite(out).all() and s.dtype == np.uint64


def test_a_trampoline_on_other_buffers_reads_and_writes_those():
    # Pointers outside the scratch (and changing from call to call) get fresh arrays, copied
    # in and back; pointers inside it get views, remade when the pointers change.
    ffi = sgsample.ffi
    scratch = np.zeros(64)
    seen = []

    def e(X, out):
        seen.append(X.copy())
        out[:] = X[:, 0] * 10.0

    def g(X, s, out):
        seen.append((X.copy(), s.copy()))
        out[...] = X * 2.0 + s[:, None].astype(np.float64)

    e_fn, g_fn = _batch._inplace_trampolines(_batch._Py(e, g, None, np.dtype(np.float64)), "",
                                             scratch)
    ep, gp = ffi.cast("sgs_batch_energy_fn", e_fn), ffi.cast("sgs_batch_gradient_fn", g_fn)
    base = ffi.cast("double *", scratch.ctypes.data)
    outside = dict(x=ffi.new("double[]", 8), s=ffi.new("uint64_t[]", 4),
                   out=ffi.new("double[]", 8))
    inside = dict(x=base, s=ffi.cast("uint64_t *", base + 8), out=base + 16)
    inside2 = dict(x=base + 24, s=ffi.cast("uint64_t *", base + 32), out=base + 40)
    edge = dict(x=base + 56, s=ffi.cast("uint64_t *", base + 32), out=base + 40)  # X past the end
    c, st = ffi.new("size_t[]", 4), ffi.new("int32_t[]", 4)
    calls = [(inside, 4, 2), (outside, 4, 2), (inside, 4, 2), (inside2, 4, 2), (inside, 3, 2),
             (inside, 4, 1), (edge, 4, 2), (inside, 4, 2)]
    for i, (b, k, d) in enumerate(calls):
        x = np.arange(k * d, dtype=np.float64) + 100 * i
        s = np.arange(k, dtype=np.uint64) + i
        ffi.memmove(b["x"], x, x.nbytes)
        ffi.memmove(b["s"], s, s.nbytes)
        assert gp(ffi.NULL, b["x"], k, d, b["s"], c, b["out"], st) == 0
        X, S = seen[-1]
        np.testing.assert_array_equal(X, x.reshape(k, d))
        np.testing.assert_array_equal(S, s)
        got = np.frombuffer(ffi.buffer(b["out"], 8 * k * d), np.float64).reshape(k, d)
        np.testing.assert_array_equal(got, x.reshape(k, d) * 2.0 + s[:, None])
        ffi.memmove(b["x"], x, x.nbytes)  # the gradient's out may overlap X in `edge`
        assert ep(ffi.NULL, b["x"], k, d, c, b["out"], st) == 0
        np.testing.assert_array_equal(seen[-1], x.reshape(k, d))
        np.testing.assert_array_equal(np.frombuffer(ffi.buffer(b["out"], 8 * k), np.float64),
                                      x.reshape(k, d)[:, 0] * 10.0)


@pytest.mark.parametrize("value", ["yes", 1, "InPlace", None])
def test_vectorized_takes_only_its_values(value):
    with pytest.raises(sgsample.InvalidInput, match="vectorized"):
        sgsample.sgld(grad, [0.0], 10, chains=2, vectorized=value, step_size=0.1)


def test_numpy_booleans_are_booleans():
    a = sgsample.sgld(grad, [0.0], 20, chains=2, vectorized=np.True_, seed=1, step_size=0.1)
    b = sgsample.sgld(grad, [0.0], 20, chains=2, vectorized=True, seed=1, step_size=0.1)
    _same(a, b)


def test_ctrl_c_inside_an_inplace_callback_is_raised_there():
    seen = []

    def g(X, s, out):
        if not seen:
            seen.append("called")
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
            except KeyboardInterrupt:
                seen.append("raised inside")
                raise
        grad_into(X, s, out)

    with pytest.raises(KeyboardInterrupt):
        sgsample.sgld(g, [0.0], 50, chains=3, vectorized="inplace", seed=1, step_size=0.05)
    assert seen == ["called", "raised inside"]
