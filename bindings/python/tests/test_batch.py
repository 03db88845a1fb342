"""K chains per call: ``vectorized=True`` runs the chains in lockstep through the C library's
run_batch with one numpy call for all chains' rows, bit for bit the separate chains."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import sgsample

import models as M

noise, energy, grad = M.uniform_noise_rows, M.dw_energy_rows, M.dw_grad_rows


def gauss_energy(X):
    return 0.5 * np.sum(X * X / np.array([1.0, 4.0, 0.25])[: X.shape[1]], axis=1)


def gauss_grad(X, seeds):
    return X / np.array([1.0, 4.0, 0.25])[: X.shape[1]] + 0.3 * noise(seeds)[:, None]


def one_row(e, g):
    """The one-chain callbacks computing the same rows."""
    e1 = None if e is None else (lambda t: float(e(t[None, :])[0]))
    g1 = lambda t, s: g(t[None, :], np.array([s], np.uint64))[0]  # noqa: E731
    return e1, g1


def _same(a, b):
    np.testing.assert_array_equal(a.samples, b.samples)
    for x, y in zip(a.info, b.info):
        assert (x.iterations, x.accepted, x.divergences) == (y.iterations, y.accepted,
                                                            y.divergences)
    if a.sample_stats is not None:
        for name in a.sample_stats:
            np.testing.assert_array_equal(a.sample_stats[name], b.sample_stats[name], name)


@pytest.mark.parametrize("opts", [
    dict(step_size=0.25, steps=10, friction=0.25),
    dict(step_size=0.6, steps=6, jitter_steps=True),  # rejections, divergences, varying T
    dict(warmup=150, mass="diagonal", steps=5),  # the adaptive warm-up, approach included
    dict(step_size=0.25, steps=4, variant="non_reversible"),
], ids=["default", "jitter", "warmup", "nonrev"])
def test_amagold_batch_is_bit_for_bit_the_separate_chains(opts):
    starts = np.array([[0.5], [-3.0], [2.0], [0.0], [-1.0]])
    kw = dict(chains=5, seed=7, stream=3, keep_warmup=True, **opts)
    batch = sgsample.amagold(energy, grad, starts, 120, vectorized=True, **kw)
    e1, g1 = one_row(energy, grad)
    ref = sgsample.amagold(e1, g1, starts, 120, **kw)
    _same(batch, ref)
    if ref.warmup_samples is not None:
        np.testing.assert_array_equal(batch.warmup_samples, ref.warmup_samples)
    assert batch.seed == 7


@pytest.mark.parametrize("fn", [sgsample.sghmc, sgsample.sgld])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sghmc_sgld_batch_match(fn, dtype):
    g = lambda X, s: gauss_grad(X.astype(np.float64), s).astype(dtype)  # noqa: E731
    kw = dict(chains=4, seed=3, step_size=0.05, steps=3, dtype=dtype)
    batch = fn(g, np.ones(3), 200, vectorized=True, **kw)
    ref = fn(one_row(None, g)[1], np.ones(3), 200, **kw)
    assert batch.samples.dtype == dtype
    _same(batch, ref)


def test_masked_rows_are_rejected_like_out_of_domain():
    def e(X):
        return np.ma.masked_array(energy(X), mask=X[:, 0] > 1.0)  # outside: θ > 1

    def e1(t):
        if t[0] > 1.0:
            raise sgsample.OutOfDomain
        return float(energy(t[None, :])[0])

    kw = dict(chains=3, seed=5, step_size=0.7, steps=4)
    batch = sgsample.amagold(e, grad, [0.0], 300, vectorized=True, **kw)
    ref = sgsample.amagold(e1, one_row(energy, grad)[1], [0.0], 300, **kw)
    _same(batch, ref)
    assert batch.samples.max() <= 1.0


def test_a_callback_error_keeps_every_chains_rows():
    with pytest.raises(RuntimeError, match="boom") as e:
        sgsample.amagold(energy, M.failing_at(400, grad), [0.0], 1000, chains=4,
                         vectorized=True, seed=2, step_size=0.25, steps=5)
    p = e.value.partial
    assert isinstance(p, sgsample.Partial) and p.complete == [False] * 4
    n = [x.shape[0] for x in p.samples]
    assert max(n) - min(n) <= 1 and [i.iterations for i in p.info] == n
    ref = sgsample.amagold(energy, grad, [0.0], max(n), chains=4, vectorized=True, seed=2,
                           step_size=0.25, steps=5)
    for c in range(4):
        np.testing.assert_array_equal(p.samples[c], ref.samples[c, :n[c]])


@pytest.mark.parametrize("bad, err", [
    (lambda X, s: None, TypeError),
    (lambda X, s: np.zeros((X.shape[0], 2)), ValueError),
    (lambda X, s: np.zeros((1, X.shape[1])), ValueError),  # would broadcast over the rows
    (lambda X, s: np.array(["1.0"] * X.shape[0])[:, None], TypeError),
])
def test_a_wrong_result_raises(bad, err):
    with pytest.raises(err, match="grad"):
        sgsample.sgld(bad, [0.0], 10, chains=3, vectorized=True, step_size=0.1)


def test_ctrl_c_during_a_batch_keeps_the_rows():
    t = threading.Timer(0.4, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    with pytest.raises(KeyboardInterrupt) as e:
        sgsample.sgld(gauss_grad, np.zeros(2), 10**6, chains=4, vectorized=True, seed=9,
                      step_size=0.05, sample_stats=False)
    p = e.value.partial
    n = [x.shape[0] for x in p.samples]
    assert min(n) > 0 and [i.iterations for i in p.info] == n
    ref = sgsample.sgld(gauss_grad, np.zeros(2), max(n), chains=4, vectorized=True, seed=9,
                        step_size=0.05, sample_stats=False)
    for c in range(4):
        np.testing.assert_array_equal(p.samples[c], ref.samples[c, :n[c]])


def test_ctrl_c_inside_a_batch_callback_is_raised_there():
    # The batch trampolines are closures made per batch: their code must still mark "inside a
    # callback" for the SIGINT handler, or Ctrl-C would wait for the end of the chunk.
    seen = []

    def g(X, s):
        if not seen:
            seen.append("called")
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # interrupted by the handler's KeyboardInterrupt
            except KeyboardInterrupt:
                seen.append("raised inside")
                raise
        return gauss_grad(X, s)

    with pytest.raises(KeyboardInterrupt):
        sgsample.sgld(g, np.zeros(2), 50, chains=3, vectorized=True, seed=1, step_size=0.05)
    assert seen == ["called", "raised inside"]


def test_one_call_per_round_for_all_chains():
    sizes = []

    def g(X, s):
        sizes.append(X.shape[0])
        return grad(X, s)

    sgsample.amagold(energy, g, [0.0], 50, chains=8, vectorized=True, seed=1, step_size=0.25,
                     steps=10, sample_stats=False)
    # T = 10 gradient calls per iteration (plus the initial ones), each with every chain's row.
    assert len(sizes) <= 50 * 11 + 20 and max(sizes) == 8
    assert np.mean(sizes) > 7


def test_arrays_a_callback_keeps_do_not_change_under_it():
    # The engine answers every round from the same C buffers; each call must get its own copies.
    kept = []

    def e(X):
        kept.append((X, X.copy()))
        return energy(X)

    def g(X, s):
        kept.append((X, X.copy()))
        kept.append((s, s.copy()))
        return grad(X, s)

    sgsample.amagold(e, g, [0.0], 40, chains=4, vectorized=True, seed=3, step_size=0.25,
                     steps=5)
    assert len(kept) > 300
    for arr, then in kept:
        np.testing.assert_array_equal(arr, then)


@pytest.mark.parametrize("form", ["float32", "strided", "list", "column", "big-endian"])
def test_results_of_other_types_are_taken_as_the_exact_ones(form):
    # The trampolines write the common result (an ndarray of the exact shape and dtype) through
    # a view; the others must give the same rows as their exact equivalent.
    round32 = lambda a: a.astype(np.float32).astype(np.float64)  # noqa: E731
    conv = {
        "float32": (lambda u: u.astype(np.float32), lambda G: G.astype(np.float32)),
        "strided": (lambda u: np.repeat(u, 2)[::2], lambda G: np.repeat(G, 2, axis=1)[:, ::2]),
        "list": (lambda u: u.tolist(), lambda G: G.tolist()),
        "column": (lambda u: u[:, None], lambda G: G),
        "big-endian": (lambda u: u.astype(">f8"), lambda G: G.astype(">f8")),
    }[form]
    exact = (round32, round32) if form == "float32" else (lambda a: a, lambda a: a)
    kw = dict(chains=3, seed=4, step_size=0.3, steps=6, vectorized=True)
    got = sgsample.amagold(lambda X: conv[0](energy(X)), lambda X, s: conv[1](grad(X, s)),
                           [0.5], 60, **kw)
    ref = sgsample.amagold(lambda X: exact[0](energy(X)), lambda X, s: exact[1](grad(X, s)),
                           [0.5], 60, **kw)
    _same(got, ref)


def test_a_trampoline_called_on_other_buffers_reads_and_writes_those():
    # Views of the C buffers are reused only while the pointers are the ones they were made
    # for: rotate three sets of buffers (and the row count) and check every call.
    from sgsample import _batch

    ffi = sgsample.ffi
    seen = []

    def e(X):
        seen.append(X.copy())
        return X[:, 0] * 10.0

    def g(X, s):
        seen.append((X.copy(), s.copy()))
        return X * 2.0 + s[:, None].astype(np.float64)

    e_fn, g_fn = _batch._trampolines(_batch._Py(e, g, None, np.dtype(np.float64)), "")
    ep, gp = ffi.cast("sgs_batch_energy_fn", e_fn), ffi.cast("sgs_batch_gradient_fn", g_fn)
    bufs = [dict(x=ffi.new("double[]", 8), s=ffi.new("uint64_t[]", 4), c=ffi.new("size_t[]", 4),
                 out=ffi.new("double[]", 8), st=ffi.new("int32_t[]", 4))]
    # Sets that differ from the first in everything, in the outputs, in X, in the seeds.
    bufs.append({key: ffi.new(ffi.typeof(v), 8) for key, v in bufs[0].items()})
    bufs.append(dict(bufs[0], out=ffi.new("double[]", 8), st=ffi.new("int32_t[]", 4)))
    bufs.append(dict(bufs[0], x=ffi.new("double[]", 8)))
    bufs.append(dict(bufs[0], s=ffi.new("uint64_t[]", 4)))
    # (set, k, d) per call: each call differs from the one before in one pointer, in k or in d.
    calls = [(0, 4, 2), (2, 4, 2), (0, 4, 2), (3, 4, 2), (0, 4, 2), (4, 4, 2), (0, 4, 2),
             (1, 4, 2), (0, 4, 2), (0, 4, 1), (0, 4, 2), (0, 3, 2), (2, 3, 2), (2, 2, 2),
             (2, 2, 1), (1, 2, 1), (0, 4, 2)]
    for i, (which, k, d) in enumerate(calls):
        b = bufs[which]
        x = np.arange(k * d, dtype=np.float64) + 100 * i
        s = np.arange(k, dtype=np.uint64) + i
        ffi.memmove(b["x"], x, x.nbytes)
        ffi.memmove(b["s"], s, s.nbytes)
        assert gp(ffi.NULL, b["x"], k, d, b["s"], b["c"], b["out"], b["st"]) == 0
        X, S = seen[-1]
        np.testing.assert_array_equal(X, x.reshape(k, d))
        np.testing.assert_array_equal(S, s)
        want = x.reshape(k, d) * 2.0 + s[:, None]
        got = np.frombuffer(ffi.buffer(b["out"], 8 * k * d), np.float64).reshape(k, d)
        np.testing.assert_array_equal(got, want)
        assert ep(ffi.NULL, b["x"], k, d, b["c"], b["out"], b["st"]) == 0
        np.testing.assert_array_equal(seen[-1], x.reshape(k, d))
        np.testing.assert_array_equal(np.frombuffer(ffi.buffer(b["out"], 8 * k), np.float64),
                                      x.reshape(k, d)[:, 0] * 10.0)
