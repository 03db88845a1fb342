"""TunaMH from Python: exact against quadrature on tests/tunamh.rs's Laplace model (both of the
sampler's paths), the C library's own bits (its functions called through cffi directly, and C
callbacks through Raw), same seed ⇒ same bits, bad inputs, callback errors and a difference past
the declared bound, each leaving the chain where it was."""

import copy
import math
import os
import signal
import threading
import traceback

import numpy as np
import pytest

import sgsample

import models as M

ffi, lib = sgsample.ffi, sgsample.lib
S = dict(sgsample.header.enums["sgs_status"])
N = 40
Y = M.laplace_data(N)
DIFFS = M.laplace_diffs(Y)
Z = 4.5


def laplace_truth(prior=1.0):
    """Posterior mean and variance of θ under Σ|yᵢ − θ| + prior·θ²/2, by the trapezoid rule on
    2·10⁵ intervals (the density's kinks at the data are resolved far below the tolerances)."""
    xs = np.linspace(-6.0, 8.0, 200_001)
    lp = -np.abs(Y[None, :] - xs[:, None]).sum(axis=1) - prior * xs * xs / 2.0
    w = np.exp(lp - lp.max())
    w[0] *= 0.5
    w[-1] *= 0.5
    m = (xs * w).sum() / w.sum()
    return m, ((xs - m) ** 2 * w).sum() / w.sum()


def mc_se(x, batches=50):
    """Standard error of the mean of a (chains, draws) array by batch means."""
    b = np.asarray(x).reshape(x.shape[0], batches, -1).mean(axis=2).ravel()
    return b.std(ddof=1) / math.sqrt(b.size)


def check_moments(x, what):
    m, v = laplace_truth()
    for est, truth, name in ((x, m, "mean"), ((x - m) ** 2, v, "variance")):
        se = mc_se(est)
        assert abs(est.mean() - truth) < Z * se, \
            f"{what} {name}: {est.mean():.5f} vs {truth:.5f} (se {se:.5f})"


def make(**kw):
    args = dict(terms=N, bound=1.0, step_size=0.2, chi=0.05, exact=M.laplace_exact, seed=7)
    args.update(kw)
    return sgsample.TunaMH(DIFFS, [0.5], **args)


# ---------------------------------------------------------------------------------------------
# Exactness


def test_the_prior_moves_the_truth_by_many_standard_errors():
    # The tolerance below is about 0.005 on the mean: a binding that dropped `exact` (the
    # prior) would be 0.04 off, a ratio with theta and proposal swapped further still.
    (m1, _), (m0, _) = laplace_truth(1.0), laplace_truth(0.0)
    assert abs(m1 - m0) > 0.04


def test_laplace_posterior_is_exact_on_the_minibatch_path():
    # χ small, short proposals: λ + L stays below N (a full pass ~1 step in 1000).
    res = sgsample.tunamh(DIFFS, [0.5], 50_000, terms=N, bound=1.0, step_size=0.2, chi=0.02,
                          exact=M.laplace_exact, chains=4, seed=1)
    st = res.sample_stats
    assert st["full_pass"].mean() < 0.01
    # A minibatch, not the data: far fewer differences than N per step.
    assert st["evaluations"].mean() < 0.25 * N
    assert [i.evaluations for i in res.info] == list(st["evaluations"].sum(axis=1))
    check_moments(res.samples[..., 0], "minibatch")


def test_laplace_posterior_is_exact_when_both_paths_mix():
    res = sgsample.tunamh(DIFFS, [0.5], 50_000, terms=N, bound=1.0, step_size=0.5, chi=0.05,
                          exact=M.laplace_exact, chains=4, seed=1)
    full = res.sample_stats["full_pass"]
    assert 0.2 < full.mean() < 0.8
    assert (res.sample_stats["evaluations"][full] == N).all()
    check_moments(res.samples[..., 0], "mixed")


# ---------------------------------------------------------------------------------------------
# The C library's own result


def _c_chain(dtype, seed, stream, n, step_size, chi):
    """The chain run through the C functions called directly (cffi callbacks of our own, no
    binding code): its rows and every iteration's info record (sgs_tunamh_step)."""
    sfx = "" if dtype == np.float64 else "_f32"
    ct = "double" if sfx == "" else "float"

    @ffi.callback(f"sgs_differences_fn{sfx}")
    def diffs(ud, t, p, d, idx, count, out):
        for j in range(count):
            y = float(Y[idx[j]])
            out[j] = abs(y - float(p[0])) - abs(y - float(t[0]))
        return 0

    @ffi.callback(f"sgs_exact_difference_fn{sfx}")
    def exact(ud, t, p, d, out):
        tt, pp = float(t[0]), float(p[0])
        out[0] = (pp * pp - tt * tt) / 2.0
        return 0

    size, align = getattr(lib, f"sgs_tunamh_state_size{sfx}")(), \
        getattr(lib, f"sgs_tunamh_state_align{sfx}")()
    raw = ffi.new("char[]", size + align)
    addr = int(ffi.cast("uintptr_t", raw))
    state = ffi.cast(f"sgs_tunamh{sfx} *", addr + (-addr) % align)
    cfg = ffi.new("sgs_tunamh_config *", lib.sgs_tunamh_config_default(step_size, N, 1.0))
    cfg.chi, cfg.seed, cfg.stream = chi, seed, stream
    ws_len = getattr(lib, f"sgs_tunamh_workspace_len{sfx}")(1)
    ws = ffi.new(f"{ct}[]", ws_len)
    theta0 = ffi.new(f"{ct}[]", [0.5])
    fn = lambda name: getattr(lib, f"sgs_tunamh_{name}{sfx}")  # noqa: E731
    assert fn("init")(state, cfg, theta0, 1, ws, ws_len, exact, diffs, ffi.NULL) == 0
    rows, infos = [], []
    info, pos = ffi.new("sgs_tunamh_info *"), ffi.new(f"{ct}[]", 1)
    for _ in range(n):
        assert fn("step")(state, info) == 0
        assert fn("position")(state, pos, 1) == 0
        rows.append(pos[0])
        infos.append((info.log_ratio, info.evaluations, info.kept, info.outcome, info.accepted,
                      info.full_pass))
    counts = ffi.new("uint64_t *")
    totals = []
    for name in ("iterations", "accepted", "evaluations"):
        assert fn(name)(state, counts) == 0
        totals.append(int(counts[0]))
    return np.array(rows, dtype), infos, totals


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bit_for_bit_the_c_library_called_directly(dtype):
    n = 400
    rows, infos, totals = _c_chain(dtype, 5, 3, n, 0.5, 0.05)
    c = make(step_size=0.5, seed=5, stream=3, dtype=dtype)
    out, got = c.run(n, info=True)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out[:, 0], rows)
    mine = [(i["log_ratio"], i["evaluations"], i["kept"], i["outcome"], i["accepted"],
             i["full_pass"]) for i in got]
    assert mine == infos  # the NaN of an early-ended iteration would compare unequal: none here
    assert [c.iterations, c.accepted, c.evaluations] == totals
    assert (c.info.iterations, c.info.accepted, c.info.evaluations) == tuple(totals)
    # Both paths were exercised.
    assert 0 < sum(i[5] for i in infos) < n


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_raw_c_callbacks_give_the_python_callbacks_bits(models, dtype):
    y = np.ascontiguousarray(Y)
    diffs = models.laplace_diffs if dtype == np.float64 else models.laplace_diffs_f32
    # `differences` alone in C (no exact part): a Python `exact` beside a Raw callback with user
    # data is refused (one user_data per sampler), so both-in-C is the float64 case below.
    raw = sgsample.tunamh(sgsample.Raw(diffs, y), [0.5], 2000, terms=N, bound=1.0,
                          step_size=0.5, chi=0.05, chains=2, seed=9, dtype=dtype)
    py = sgsample.tunamh(DIFFS, [0.5], 2000, terms=N, bound=1.0, step_size=0.5, chi=0.05,
                         chains=2, seed=9, dtype=dtype)
    np.testing.assert_array_equal(raw.samples, py.samples)
    for k in py.sample_stats:
        np.testing.assert_array_equal(raw.sample_stats[k], py.sample_stats[k])
    if dtype == np.float64:  # both callbacks in C, sharing the data as user data
        both = sgsample.tunamh(sgsample.Raw(diffs, y), [0.5], 2000, terms=N, bound=1.0,
                               step_size=0.5, chi=0.05, chains=2, seed=9,
                               exact=sgsample.Raw(models.laplace_exact, y))
        ref = sgsample.tunamh(DIFFS, [0.5], 2000, terms=N, bound=1.0, step_size=0.5, chi=0.05,
                              chains=2, seed=9, exact=M.laplace_exact)
        np.testing.assert_array_equal(both.samples, ref.samples)
    with pytest.raises(TypeError, match="sgs_differences_fn"):  # float32 function, float64 chain
        sgsample.TunaMH(sgsample.Raw(models.laplace_diffs_f32, y), [0.5], terms=N, bound=1.0,
                        step_size=0.1)
    with pytest.raises(TypeError, match="sgs_differences_fn"):
        sgsample.TunaMH(sgsample.Raw(models.dw_grad), [0.5], terms=N, bound=1.0, step_size=0.1)
    with pytest.raises(TypeError, match="sgs_exact_difference_fn"):
        make(exact=sgsample.Raw(models.dw_energy))


# ---------------------------------------------------------------------------------------------
# Seeds


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_same_seed_same_bits_and_the_seed_is_reported(dtype):
    run = lambda **kw: sgsample.tunamh(DIFFS, [0.5], 300, terms=N, bound=1.0,  # noqa: E731
                                       step_size=0.5, exact=M.laplace_exact, chains=2,
                                       dtype=dtype, **kw)
    a, b = run(seed=3), run(seed=3)
    assert a.samples.dtype == dtype
    np.testing.assert_array_equal(a.samples, b.samples)
    np.testing.assert_array_equal(a.sample_stats["log_ratio"], b.sample_stats["log_ratio"])
    assert not np.array_equal(a.samples, run(seed=4).samples)
    assert not np.array_equal(a.samples[0], a.samples[1])  # streams 0 and 1
    fresh = run()
    assert fresh.seed == fresh.info[0].seed and fresh.info[0].seed is not None
    np.testing.assert_array_equal(run(seed=fresh.seed).samples, fresh.samples)
    # A chain object with stream s is chain s of the multi-chain call.
    c = make(step_size=0.5, chi=1.0, seed=3, stream=1, dtype=dtype)
    np.testing.assert_array_equal(c.run(300), a.samples[1])
    assert c.seed == 3 and c.info.seed == 3


def test_step_is_one_iteration_of_run():
    a, b = make(), make()
    infos = np.array([a.step() for _ in range(50)], a.INFO_DTYPE)
    rows, ref = b.run(50, info=True)
    np.testing.assert_array_equal(a.position, rows[-1])
    for name in ref.dtype.names:
        np.testing.assert_array_equal(infos[name], ref[name], err_msg=name)
    assert a.iterations == 50 == a.info.iterations
    assert (a.accepted, a.evaluations) == (b.accepted, b.evaluations)
    assert a.info.accepted == a.accepted and a.info.evaluations == a.evaluations
    assert a.accepted == int(ref["accepted"].sum())
    assert a.evaluations == int(ref["evaluations"].sum()) > 0


# ---------------------------------------------------------------------------------------------
# Bad inputs


@pytest.mark.parametrize("kw, status", [
    (dict(terms=0), "SGS_ERR_INVALID_BOUND"),
    (dict(bound=0.0), "SGS_ERR_INVALID_BOUND"),
    (dict(bound=-1.0), "SGS_ERR_INVALID_BOUND"),
    (dict(bound=math.nan), "SGS_ERR_INVALID_BOUND"),
    (dict(bound=math.inf), "SGS_ERR_INVALID_BOUND"),
    (dict(chi=0.0), "SGS_ERR_INVALID_BOUND"),
    (dict(chi=-1.0), "SGS_ERR_INVALID_BOUND"),
    (dict(step_size=0.0), "SGS_ERR_INVALID_STEP_SIZE"),
    (dict(step_size=math.inf), "SGS_ERR_INVALID_STEP_SIZE"),
    (dict(step_size=1e-50, dtype=np.float32), "SGS_ERR_INVALID_STEP_SIZE"),
    (dict(terms=-1), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(terms=2.5), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(terms="40"), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(bound="1"), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(step_size=None), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(seed=-1), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(stream=2**64), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(dtype=np.int32), "SGS_ERR_INVALID_ARGUMENT"),
])
def test_bad_hyperparameters_are_invalid_input(kw, status):
    with pytest.raises(sgsample.InvalidInput) as e:
        make(**kw)
    assert isinstance(e.value, ValueError) and e.value.name == status
    name = next(iter(kw))
    if status == "SGS_ERR_INVALID_ARGUMENT" and name != "dtype":
        assert name in str(e.value)  # the argument is named


def test_bad_starts_and_counts():
    for theta0, status in (([math.nan], "SGS_ERR_INVALID_POSITION"),
                           (np.zeros(0), "SGS_ERR_ZERO_DIMENSION"),
                           (np.zeros((2, 2)), "SGS_ERR_LENGTH_MISMATCH"),
                           ([0.5 + 1j], "SGS_ERR_INVALID_ARGUMENT")):
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.TunaMH(DIFFS, theta0, terms=N, bound=1.0, step_size=0.1)
        assert e.value.name == status
    for kw in (dict(chains=0), dict(stream=-1), dict(seed=1.5)):
        with pytest.raises(sgsample.InvalidInput, match=next(iter(kw))):
            sgsample.tunamh(DIFFS, [0.5], 10, terms=N, bound=1.0, step_size=0.1, **kw)
    with pytest.raises(sgsample.InvalidInput, match="draws"):
        make().run(-1)


def test_bad_callbacks_and_options_are_type_errors_naming_them():
    for kw, name in ((dict(differences=None), "differences"), (dict(differences=42), "differences"),
                     (dict(exact=42), "exact"), (dict(exact="prior"), "exact")):
        args = dict(differences=DIFFS, theta0=[0.5], terms=N, bound=1.0, step_size=0.1)
        args.update(kw)
        with pytest.raises(TypeError, match=name):
            sgsample.TunaMH(**args)
    with pytest.raises(TypeError, match="unknown tunamh option 'friction'"):
        make(friction=0.1)
    with pytest.raises(TypeError, match="bound"):
        sgsample.TunaMH(DIFFS, [0.5], terms=N, step_size=0.1)
    with pytest.raises(TypeError, match="terms"):
        sgsample.tunamh(DIFFS, [0.5], 10, bound=1.0, step_size=0.1)
    with pytest.raises(TypeError, match="vectorized"):
        sgsample.tunamh(DIFFS, [0.5], 10, terms=N, bound=1.0, step_size=0.1, vectorized=True)


@pytest.mark.parametrize("bad, error", [
    (lambda t, p, i: np.zeros(len(i) + 1), ValueError),           # one value too many
    (lambda t, p, i: 0.0, ValueError),                            # a scalar, not len(indices)
    (lambda t, p, i: ["a"] * len(i), TypeError),                  # not numbers
    (lambda t, p, i: np.zeros(len(i)) + 0j, ValueError),          # complex
    (lambda t, p, i: None, TypeError),
])
def test_bad_differences_results_raise_and_leave_the_chain(bad, error):
    calls = [0]

    def diffs(t, p, idx):
        calls[0] += 1
        return bad(t, p, idx) if calls[0] == 25 else DIFFS(t, p, idx)

    c = make(step_size=0.5)
    c._cb.py.diffs = diffs
    with pytest.raises(error, match="differences"):
        c.run(100)
    _same_as_untouched_at(c, step_size=0.5)


def _same_as_untouched_at(c, **kw):
    ref = make(**kw)
    n = c.info.iterations
    assert c.partial.shape == (n, 1) and c.iterations == n
    ref_rows = ref.run(n)
    np.testing.assert_array_equal(c.partial, ref_rows)
    assert (c.accepted, c.evaluations) == (ref.accepted, ref.evaluations)
    np.testing.assert_array_equal(c.position, ref.position)
    c._cb.py.diffs, c._cb.py.exact = DIFFS, M.laplace_exact
    np.testing.assert_array_equal(c.run(30), ref.run(30))


def test_bad_exact_results_raise_and_leave_the_chain():
    for value, error in ((np.zeros(2), ValueError), ("0.1", TypeError)):
        c = make()
        c._cb.py.exact = _returning_at(12, M.laplace_exact, value)
        with pytest.raises(error, match="exact"):
            c.run(100)
        _same_as_untouched_at(c)


def _returning_at(n, fn, value):
    calls = [0]

    def wrapped(*args):
        calls[0] += 1
        return value if calls[0] == n else fn(*args)

    return wrapped


# ---------------------------------------------------------------------------------------------
# Callback errors


class Boom(Exception):
    pass


@pytest.mark.parametrize("where", ["differences", "exact"])
def test_callback_exception_is_reraised_with_the_chain_unchanged(where):
    c = make(step_size=0.5)
    if where == "differences":
        c._cb.py.diffs = M.failing_at(60, DIFFS, Boom("from differences"))
    else:
        c._cb.py.exact = M.failing_at(60, M.laplace_exact, Boom("from exact"))
    with pytest.raises(Boom, match=f"from {where}") as e:
        c.run(200)
    assert "raise exc" in "".join(traceback.format_tb(e.value.__traceback__))
    assert e.value.partial is c.partial and 0 < c.info.iterations < 200
    _same_as_untouched_at(c, step_size=0.5)


def test_step_reraises_and_keeps_the_chain():
    c = make()
    c.run(5)
    # The exact part is asked at every step (a minibatch may be empty).
    c._cb.py.exact = M.failing_at(1, M.laplace_exact, Boom("now"))
    pos = c.position
    with pytest.raises(Boom):
        c.step()
    assert c.iterations == 5
    np.testing.assert_array_equal(c.position, pos)


def test_out_of_domain_rejects_the_proposal():
    # θ must stay below 0.9. Raised in `exact` (asked at every step) it keeps the chain there;
    # raised in `differences` it rejects each proposal that asked for any.
    out_of_domain = sgsample.header.defines["SGS_OUTCOME_OUT_OF_DOMAIN"]
    raised = [0]

    def guard(fn):
        def checked(t, p, *rest):
            if p[0] > 0.9:
                raised[0] += 1
                raise sgsample.OutOfDomain
            return fn(t, p, *rest)
        return checked

    for d, e in ((guard(DIFFS), M.laplace_exact), (DIFFS, guard(M.laplace_exact))):
        raised[0] = 0
        c = sgsample.TunaMH(d, [0.5], terms=N, bound=1.0, step_size=0.3, exact=e, seed=2)
        rows, infos = c.run(3000, info=True)
        rejected = infos["outcome"] == out_of_domain
        assert rejected.sum() == raised[0] > 0
        assert not infos["accepted"][rejected].any()
        assert np.isnan(infos["log_ratio"][rejected]).all() and c.info.divergences == 0
    assert rows.max() <= 0.9  # the guard in `exact`


def test_a_nan_difference_is_a_divergence():
    calls = [0]

    def nan_once(t, p, idx):
        calls[0] += 1
        out = DIFFS(t, p, idx)
        if calls[0] == 30:
            out[0] = math.nan
        return out

    c = make()
    c._cb.py.diffs = nan_once
    _, infos = c.run(100, info=True)
    st = sgsample.TunaMH._sample_stats(infos[None])
    assert st["diverging"].sum() == 1 == c.info.divergences
    assert np.isnan(st["log_ratio"][st["diverging"]]).all()


# ---------------------------------------------------------------------------------------------
# The bound


def _past_the_bound_at(n, factor=2.0):
    """DIFFS, but its n-th call returns one difference `factor` times the bound allows."""
    calls = [0]

    def diffs(t, p, idx):
        calls[0] += 1
        out = DIFFS(t, p, idx)
        if calls[0] == n:
            out[-1] = factor * abs(p[0] - t[0])  # bound 1 · ‖p − t‖
        return out

    return diffs


def test_a_difference_past_the_bound_stops_the_run_with_the_chain_unchanged():
    c = make(step_size=0.5)
    c._cb.py.diffs = _past_the_bound_at(40)
    with pytest.raises(sgsample.Error) as e:
        c.run(200)
    # A runtime error, like a callback abort: not a ValueError about the arguments.
    assert e.value.name == "SGS_ERR_BOUND_EXCEEDED" and e.value.status == S[e.value.name] == 42
    assert not isinstance(e.value, sgsample.InvalidInput)
    assert e.value.partial is c.partial
    _same_as_untouched_at(c, step_size=0.5)


def test_rounding_within_the_slack_is_not_a_violation():
    c = make(step_size=0.5)
    c._cb.py.diffs = _past_the_bound_at(40, 1.0 + 1e-12)
    c.run(100)
    assert c.iterations == 100


def test_bound_exceeded_in_a_multi_chain_run_keeps_what_was_made():
    with pytest.raises(sgsample.Error) as e:
        sgsample.tunamh(_past_the_bound_at(300), [0.5], 100, terms=N, bound=1.0, step_size=0.5,
                        exact=M.laplace_exact, chains=3, seed=6)
    assert e.value.name == "SGS_ERR_BOUND_EXCEEDED"
    p = e.value.partial
    assert p.complete[:-1] == [True] * (len(p.complete) - 1) and p.complete[-1] is False
    assert [x.shape[0] for x in p.samples] == [i.iterations for i in p.info]
    assert p.seed == 6


def test_a_too_small_declared_bound_is_caught():
    # The terms are 1-Lipschitz; declaring 0.5 is wrong, and the library says so.
    with pytest.raises(sgsample.Error, match="SGS_ERR_BOUND_EXCEEDED"):
        sgsample.tunamh(DIFFS, [0.5], 1000, terms=N, bound=0.5, step_size=0.5, seed=1)


# ---------------------------------------------------------------------------------------------
# Export, restore, copy, Ctrl-C


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_export_restore_continues_bit_for_bit(dtype):
    a = make(step_size=0.5, dtype=dtype)
    a.run(77)
    data = a.export()
    b = sgsample.TunaMH.restore(data, DIFFS, M.laplace_exact)
    assert (b.iterations, b.accepted, b.evaluations) == (a.iterations, a.accepted, a.evaluations)
    assert b.info.evaluations == a.info.evaluations and b.seed == a.seed and b.dtype == dtype
    np.testing.assert_array_equal(b.run(50), a.run(50))
    assert b.info.evaluations == a.info.evaluations


def test_restore_needs_the_callbacks_the_chain_had():
    a = make()
    a.run(10)
    data = a.export()
    with pytest.raises(TypeError, match="callbacks"):
        sgsample.TunaMH.restore(data, DIFFS)  # the prior left out: another target
    no_prior = sgsample.TunaMH(DIFFS, [0.5], terms=N, bound=1.0, step_size=0.2, seed=1)
    with pytest.raises(TypeError, match="callbacks"):
        sgsample.TunaMH.restore(no_prior.export(), DIFFS, M.laplace_exact)
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.SGLD.restore(data, M.dw_grad)
    assert e.value.name == "SGS_ERR_CHECKPOINT_MISMATCH"


def test_counters_from_a_callback_are_busy():
    c = make()

    def diffs(t, p, idx):
        c.evaluations  # the chain is running: SGS_ERR_BUSY, re-raised from the run
        return DIFFS(t, p, idx)

    c._cb.py.diffs = diffs
    with pytest.raises(sgsample.InvalidInput) as e:
        c.run(50)
    assert e.value.name == "SGS_ERR_BUSY"
    assert c.iterations == c.info.iterations  # what ran is counted once


def test_copy_is_independent_and_continues_the_same():
    a = make()
    a.run(20)
    b = copy.copy(a)
    np.testing.assert_array_equal(b.run(40), a.run(40))
    assert (b.evaluations, b.info.evaluations) == (a.evaluations, a.info.evaluations)


def test_ctrl_c_keeps_every_draw_and_resumes_bit_for_bit():
    a = make(step_size=0.5)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        a.run(10**7)
    rows = e.value.partial
    n = rows.shape[0]
    assert 0 < n < 10**7 and a.iterations == a.info.iterations == n
    rest = a.run(20)
    ref = make(step_size=0.5)
    np.testing.assert_array_equal(np.concatenate([rows, rest]), ref.run(n + 20))
    assert (a.accepted, a.evaluations) == (ref.accepted, ref.evaluations)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ---------------------------------------------------------------------------------------------
# Results and help


def test_result_and_arviz_stats():
    res = sgsample.tunamh(DIFFS, [0.5], 200, terms=N, bound=1.0, step_size=0.5,
                          exact=M.laplace_exact, chains=2, seed=5)
    st = res.sample_stats
    assert set(st) == {"diverging", "accepted", "acceptance_rate", "log_ratio", "evaluations",
                       "kept", "full_pass"}
    assert all(v.shape == (2, 200) for v in st.values())
    assert ((st["kept"] <= st["evaluations"]) & (st["acceptance_rate"] <= 1)).all()
    assert [i.accepted for i in res.info] == list(st["accepted"].sum(axis=1))
    assert res.info[0].sampler == "tunamh" and res.to_dict()["attrs"]["sampler"] == "tunamh"
    pytest.importorskip("arviz")
    idata = res.to_arviz()
    np.testing.assert_array_equal(idata.sample_stats["evaluations"].values, st["evaluations"])
    assert idata.posterior.attrs["seed"] == 5
    assert sgsample.tunamh(DIFFS, [0.5], 20, terms=N, bound=1.0, step_size=0.5, seed=5,
                           sample_stats=False).sample_stats is None


def test_help_shows_required_and_default_options():
    import inspect
    import pydoc

    cfg = lib.sgs_tunamh_config_default(0.1, 1, 1.0)
    for obj in (sgsample.TunaMH, sgsample.tunamh):
        params = inspect.signature(obj).parameters
        for name in ("terms", "bound", "step_size"):
            assert params[name].default is inspect.Parameter.empty, name
        assert params["chi"].default == cfg.chi and params["exact"].default is None
        assert params["seed"].default is None and params["stream"].default == 0
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        assert "    terms = required" in text and "    bound = required" in text
        assert f"    chi = {cfg.chi!r}" in text
