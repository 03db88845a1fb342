"""The diagnostics of stored draws (sgs_draws_…) against ArviZ 0.23 on the same draws.

Every field of ``sgsample.summary`` is compared with ArviZ's own estimator (``az.rhat``,
``az.ess``, ``az.mcse`` on the (chains, draws) array of one coordinate; numpy's ``quantile``,
``mean`` and ``std(ddof=1)``) to 1e-10 relative, on AR(1) chains from the library's SGLD,
heavy-tailed, discrete (ties) and constant draws, a chain stuck apart, odd and minimal draw
counts, float32 draws, one chain and AMAGOLD output. Measured when written: at most 6e-14
relative everywhere (2e-13 for a mean near 0), with two exceptions the estimators' own conditioning explains and the
tolerance below accounts for:

* ``mcse_sd`` is ``sqrt((m4 − m2²)/ESS/m2/4)`` over the central moments of the draws: for a
  two-point distribution m4 − m2² is a difference of nearly equal numbers (about 4·mean² for
  ±1 draws), so the rounding of the mean (numpy sums pairwise, the library in order) moves it
  by ε·m4/(m4 − m2²) relative. The tolerance is that bound times 64 (or 1e-10 if larger).
* ``mean`` of draws centred near 0 is compared with an absolute floor of 1e-13·sd.

And one where numpy's rounding decides: chains each constant at its own value have R-hat ∞ here
and in ArviZ, unless numpy's mean of a constant row of normal scores rounds (then ArviZ's is near
1e16).

The same draws fail plausible bugs: ranks without tie averaging (the discrete and constant sets),
a wrong Blom offset or denominator (every set), folding around the mean (the heavy-tailed and
discrete sets), chains not split (the stuck chain, AR(1)), the middle draw of an odd count kept
(odd counts), another quantile interpolation (discrete, heavy-tailed).
"""

import math

import numpy as np
import pytest

import sgsample

az = pytest.importorskip("arviz")

FIELDS = ("mean", "sd", "mcse_mean", "mcse_sd", "q5", "q50", "q95", "mcse_q5", "mcse_q50",
          "mcse_q95", "ess_bulk", "ess_tail", "ess_mean", "rhat", "rhat_bulk", "rhat_folded",
          "rhat_split")


def arviz_of(x):
    """ArviZ's (and numpy's) value of every summary field, for one coordinate (chains, draws)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "mean": x.mean(), "sd": x.std(ddof=1),
            "mcse_mean": az.mcse(x, method="mean"), "mcse_sd": az.mcse(x, method="sd"),
            "q5": np.quantile(x, 0.05), "q50": np.quantile(x, 0.5), "q95": np.quantile(x, 0.95),
            "mcse_q5": az.mcse(x, method="quantile", prob=0.05),
            "mcse_q50": az.mcse(x, method="quantile", prob=0.5),
            "mcse_q95": az.mcse(x, method="quantile", prob=0.95),
            "ess_bulk": az.ess(x, method="bulk"), "ess_tail": az.ess(x, method="tail"),
            "ess_mean": az.ess(x, method="mean"),
            "rhat": az.rhat(x, method="rank"), "rhat_bulk": az.rhat(x, method="z_scale"),
            "rhat_folded": az.rhat(x, method="folded"), "rhat_split": az.rhat(x, method="split"),
        }


def tolerance(name, x):
    """Relative tolerance and absolute floor for one field (see the module docstring)."""
    if name == "mcse_sd":
        c2 = (x - x.mean()) ** 2
        m2, m4 = c2.mean(), (c2 ** 2).mean()
        spread = m4 - m2 * m2
        cond = m4 / spread if spread > 0 else math.inf
        return max(1e-10, 64 * np.finfo(float).eps * cond), 0.0
    if name == "mean":
        return 1e-10, 1e-13 * x.std()
    return 1e-10, 0.0


def same(got, want, rel, floor):
    got, want = float(got), float(want)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        # Chains each constant at its own value have no within-chain variance: R-hat is ∞. The
        # library's chain means are exact for constant chains (x₀ + Σ(x − x₀)/n); numpy's
        # pairwise mean of a constant row of normal scores may round, leaving a variance of
        # order 1e-32 and an R-hat near 1e16 instead.
        return got == want or (got == math.inf and want > 1e12)
    return abs(got - want) <= max(rel * abs(want), floor)


def check_against_arviz(draws, compare_to=None):
    """``sgsample.summary(draws)`` equals ArviZ on ``compare_to`` (default: the draws)."""
    draws = np.asarray(draws)
    ref = np.asarray(draws if compare_to is None else compare_to, dtype=np.float64)
    s = sgsample.summary(draws)
    worst = 0.0
    for j in range(ref.shape[2]):
        x = ref[:, :, j]
        want = arviz_of(x)
        for name in FIELDS:
            got = getattr(s, name)[j]
            rel, floor = tolerance(name, x)
            assert same(got, want[name], rel, floor), (j, name, got, want[name])
            if np.isfinite(want[name]) and want[name] != 0:
                worst = max(worst, abs(got - want[name]) / abs(want[name]))
    return s, worst


def ar1(phi, chains, n, dim, seed, centres=None):
    rng = np.random.default_rng(seed)
    e = rng.standard_normal((chains, n, dim))
    x = np.empty_like(e)
    y = np.zeros((chains, dim))
    for t in range(n):
        y = phi * y + e[:, t]
        x[:, t] = y
    if centres is not None:
        x += np.asarray(centres, dtype=float)[:, None, None]
    return x


@pytest.fixture(scope="module")
def sgld_ar1(models):
    """SGLD on N(0, 1) with the exact gradient: AR(1) with φ = 0.9 (docs/algorithms.md §4.5),
    4 chains of 4000 draws of 2 coordinates, from the library."""
    ud = np.array([1.0, 1.0, 0.0])
    res = sgsample.sgld(sgsample.Raw(models.gauss_grad, ud), [0.0, 0.0], 4000, chains=4, seed=5,
                        step_size=0.2)
    return res.samples


@pytest.fixture(scope="module")
def amagold_draws(models):
    """A real AMAGOLD run: 2-D Gaussian with scales 1 and 2, noisy gradients, 4 chains."""
    ud = np.array([1.0, 2.0, 0.5])
    res = sgsample.amagold(sgsample.Raw(models.gauss_energy, ud), sgsample.Raw(models.gauss_grad, ud),
                           [0.0, 0.0], 3000, chains=4, seed=3, step_size=0.2, steps=10)
    assert all(i.accept_rate > 0.5 for i in res.info)
    return res


def test_ar1_chains_from_sgld(sgld_ar1):
    s, worst = check_against_arviz(sgld_ar1)
    assert worst < 1e-12, worst
    # Well mixed: every rank R-hat below 1.01, ESS far above 400.
    assert np.all(s.rhat < 1.01) and np.all(s.ess_bulk > 400) and np.all(s.flags == 0)


def test_amagold_output(amagold_draws):
    s, _ = check_against_arviz(amagold_draws.samples)
    v = sgsample.diagnose(amagold_draws.samples,
                          divergences=sum(i.divergences for i in amagold_draws.info))
    assert v.ok == (v.flags == 0)
    assert v.worst_rhat == pytest.approx(np.max(s.rhat), rel=0)


def test_heavy_tails():
    """Student-t with 1.5 degrees of freedom (infinite variance) and Cauchy draws: the mean's
    estimators wander, the rank-based ones do not."""
    rng = np.random.default_rng(11)
    x = np.stack([rng.standard_t(1.5, (4, 800)), rng.standard_cauchy((4, 800))], axis=2)
    check_against_arviz(x)


def test_ties_and_discrete_values():
    """Ties everywhere: a Poisson count, a rounded normal, three levels, ±1 and a mostly-zero
    coordinate (the average ranks and the folded ties decide these)."""
    rng = np.random.default_rng(12)
    x = np.stack([
        rng.poisson(3.0, (4, 500)).astype(float),
        np.round(rng.standard_normal((4, 500)) * 2) / 2,
        rng.integers(0, 3, (4, 500)).astype(float),
        np.where(rng.uniform(size=(4, 500)) < 0.5, -1.0, 1.0),
        np.where(rng.uniform(size=(4, 500)) < 0.97, 0.0, 1.0),
    ], axis=2)
    check_against_arviz(x)


def test_a_chain_stuck_apart():
    x = ar1(0.5, 4, 1000, 2, seed=13, centres=[0.0, 0.0, 0.0, 2.0])
    s, _ = check_against_arviz(x)
    assert np.all(s.rhat > 1.1)
    v = sgsample.diagnose(x)
    assert not v.ok and "rhat" in v.reasons


def test_chains_drifting_apart_within():
    """A trend inside each chain: only split-R-hat (halves) can see it."""
    t = np.linspace(0, 3, 600)
    x = ar1(0.3, 4, 600, 1, seed=14) + t[None, :, None]
    s, _ = check_against_arviz(x)
    assert s.rhat_split[0] > 1.1 and s.rhat[0] > 1.1


def test_constant_chains():
    """All equal: every ESS is the draw count, every R-hat NaN, the quantile MCSEs 0. Chains
    constant at different values: R-hat ∞ (no within-chain variance)."""
    x = np.ones((4, 150, 2))
    x[:, :, 1] = 2.5
    s, _ = check_against_arviz(x)
    assert np.all(s.ess_bulk == 600) and np.all(np.isnan(s.rhat))
    assert np.all(s.mcse_q5 == 0) and np.all(s.mcse_q95 == 0)
    y = np.repeat(np.array([0.0, 1.0, 3.0])[:, None, None], 40, axis=1)
    s, _ = check_against_arviz(y)
    assert s.rhat[0] == math.inf
    v = sgsample.diagnose(x)
    assert v.reasons == ("not_computable",) and v.not_computable == 2


def test_odd_and_minimal_draw_counts():
    """The middle draw of an odd count is left out of the split chains; 4 draws per chain (2
    per split chain) is the fewest ArviZ accepts."""
    for n in (4, 5, 6, 7, 9, 1001):
        check_against_arviz(ar1(0.4, 3, n, 2, seed=n))


def test_float32_draws_are_widened_exactly(sgld_ar1):
    x32 = sgld_ar1.astype(np.float32)
    s32, _ = check_against_arviz(x32, compare_to=x32.astype(np.float64))
    s64 = sgsample.summary(x32.astype(np.float64))
    for name in FIELDS:  # the same bits as the same values in float64
        np.testing.assert_array_equal(getattr(s32, name), getattr(s64, name))


def test_one_chain():
    x = ar1(0.6, 1, 2000, 2, seed=15)
    s, _ = check_against_arviz(x)
    assert np.all(np.isnan(s.rhat)) and np.all(np.isnan(s.rhat_split))
    assert np.all(s.ess_bulk > 100)
    v = sgsample.diagnose(x)
    assert not v.ok and "not_computable" in v.reasons and v.not_computable == 2


def test_two_dimensional_input_gives_scalars():
    x = ar1(0.5, 4, 300, 1, seed=16)
    s = sgsample.summary(x[:, :, 0])
    assert isinstance(s.rhat, float) and s.rhat == sgsample.summary(x).rhat[0]
    assert isinstance(sgsample.ess_bulk(x[:, :, 0]), float)


def test_single_statistic_functions_equal_the_summary(sgld_ar1):
    x = np.concatenate([sgld_ar1, np.round(sgld_ar1[:, :, :1])], axis=2)
    s = sgsample.summary(x)
    np.testing.assert_array_equal(sgsample.rhat_rank(x), s.rhat)
    np.testing.assert_array_equal(sgsample.ess_bulk(x), s.ess_bulk)
    np.testing.assert_array_equal(sgsample.ess_tail(x), s.ess_tail)
    for p, name in ((0.05, "mcse_q5"), (0.5, "mcse_q50"), (0.95, "mcse_q95")):
        np.testing.assert_array_equal(sgsample.mcse_quantile(x, p), getattr(s, name))
    for p in (0.01, 0.3, 0.77, 0.999):
        got = sgsample.mcse_quantile(x, p)
        for j in range(x.shape[2]):
            want = az.mcse(x[:, :, j], method="quantile", prob=p)
            assert got[j] == pytest.approx(want, rel=1e-10), (p, j)


def test_verdict():
    good = ar1(0.2, 4, 1000, 3, seed=17)
    v = sgsample.diagnose(good)
    assert v.ok and v.flags == 0 and v.reasons == () and v.ess_threshold == 400
    s = v.summary
    assert v.worst_rhat == np.max(s.rhat) and v.worst_rhat_coord == int(np.argmax(s.rhat))
    assert v.min_ess_bulk == np.min(s.ess_bulk) and v.min_ess_tail == np.min(s.ess_tail)
    v = sgsample.diagnose(good, divergences=2)
    assert not v.ok and v.reasons == ("divergences",) and v.divergences == 2
    # 4 × 60 strongly autocorrelated draws: too few effective draws (bulk and tail).
    short = ar1(0.95, 4, 60, 2, seed=18)
    v = sgsample.diagnose(short)
    assert {"ess_bulk", "ess_tail"} <= set(v.reasons)
    assert v.min_ess_bulk < 400
    assert v.flags == np.bitwise_or.reduce(v.summary.flags) | 0


def test_bad_inputs():
    x = ar1(0.5, 2, 50, 2, seed=19)
    cases = [
        (np.where(np.arange(200).reshape(2, 50, 2) == 77, np.nan, x), "SGS_ERR_NON_FINITE_DRAWS"),
        (np.where(np.arange(200).reshape(2, 50, 2) == 5, -np.inf, x), "SGS_ERR_NON_FINITE_DRAWS"),
        (x[:, :3], "SGS_ERR_TOO_FEW_DRAWS"),
        (x[:, :0], "SGS_ERR_TOO_FEW_DRAWS"),
        (x[:0], "SGS_ERR_ZERO_DIMENSION"),
        (x[:, :, :0], "SGS_ERR_ZERO_DIMENSION"),
        (x[0, 0], "SGS_ERR_LENGTH_MISMATCH"),
        (x[None], "SGS_ERR_LENGTH_MISMATCH"),
    ]
    for bad, status in cases:
        for fn in (sgsample.summary, sgsample.rhat_rank, sgsample.ess_bulk, sgsample.ess_tail,
                   lambda d: sgsample.mcse_quantile(d, 0.5), sgsample.diagnose):
            with pytest.raises(sgsample.InvalidInput) as e:
                fn(bad)
            assert e.value.name == status, (fn, status, e.value)
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.summary(np.where(np.arange(200).reshape(2, 50, 2) == 77, np.nan, x))
    assert "draws[0, 38, 1]" in str(e.value)
    for p in (0.0, 1.0, -0.5, math.nan):
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.mcse_quantile(x, p)
        assert e.value.name == "SGS_ERR_INVALID_ARGUMENT"
    with pytest.raises(sgsample.InvalidInput):
        sgsample.summary(x + 1j)
    with pytest.raises(sgsample.InvalidInput):
        sgsample.diagnose(x, divergences=-1)


def test_c_level_refusals_write_nothing():
    """Through the C functions directly: NULL, short scratch, short output, overlapping buffers,
    each its own status, the output untouched."""
    ffi, lib = sgsample.ffi, sgsample.lib
    x = np.ascontiguousarray(ar1(0.5, 2, 20, 3, seed=20))
    need = lib.sgs_draws_scratch_len(2, 20)
    assert need == 4 * 40 + 2 * 2 * 10 + 4 * 32 + 10
    assert lib.sgs_draws_scratch_len(0, 20) == 0 and lib.sgs_draws_scratch_len(2, 0) == 0
    scratch = np.zeros(need)
    out = np.full(3, 7.0)
    xp = ffi.cast("double *", x.ctypes.data)
    sp = ffi.cast("double *", scratch.ctypes.data)
    op = ffi.cast("double *", out.ctypes.data)
    names = sgsample.STATUS_NAMES

    def status(*args):
        return names[lib.sgs_draws_ess_bulk(*args)]

    assert status(ffi.NULL, 2, 20, 3, sp, need, op, 3) == "SGS_ERR_NULL_POINTER"
    assert status(xp, 2, 20, 3, sp, need - 1, op, 3) == "SGS_ERR_WORKSPACE_TOO_SMALL"
    assert status(xp, 2, 20, 3, sp, need, op, 2) == "SGS_ERR_OUTPUT_TOO_SMALL"
    assert status(xp, 2, 20, 3, xp, need, op, 3) == "SGS_ERR_INVALID_ARGUMENT"
    assert status(xp, 2, 20, 3, sp, need, sp, 3) == "SGS_ERR_INVALID_ARGUMENT"
    assert status(xp, 2, 3, 3, sp, need, op, 3) == "SGS_ERR_TOO_FEW_DRAWS"
    np.testing.assert_array_equal(out, 7.0)
    assert status(xp, 2, 20, 3, sp, need, op, 3) == "SGS_OK"
    np.testing.assert_array_equal(out, sgsample.ess_bulk(x))
    assert names[lib.sgs_draws_diagnose(ffi.NULL, 1, 1, 0, ffi.new("sgs_draws_verdict *"))] == \
        "SGS_ERR_NULL_POINTER"
