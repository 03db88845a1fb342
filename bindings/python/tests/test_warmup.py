"""AMAGOLD's warm-up API through the binding: the adaptive default and the options' mapping onto
``sgs_amagold_config``, the warm-up report (OK from a far start, SUSPECT from a hopeless set-up),
the comparison of chains, the step-size and mass-matrix getters and setters (round trips,
handing a pilot's adaptation to a fresh chain), bad inputs and their statuses, float32.
Bit-identity with the C library for these functions is in test_bitwise.py."""

import copy
import dataclasses
import warnings

import numpy as np
import pytest

import sgsample
from sgsample import lib

S = {name: code for code, name in sgsample.STATUS_NAMES.items()}

# A raw-scale Gaussian: posterior sds 1, 100 and 0.01 (variances 10⁸ apart), exact gradient.
SD = np.array([1.0, 100.0, 0.01])
FAR = 200.0 * SD  # 200 posterior sds away in every coordinate


def energy(t):
    return 0.5 * float(np.sum((t / SD) ** 2))


def grad(t, seed):
    return t / SD**2


def cfg_dict(cfg):
    return {name: getattr(cfg, name) for _, name, _ in sgsample.header.structs["sgs_amagold_config"]}


# ---------------------------------------------------------------------------------------------
# Options and defaults


def test_without_step_size_the_chain_is_the_c_adaptive_configuration():
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3))
    # No seed given: a fresh one (reported), not the C default 0.
    assert cfg_dict(a._cfg) == {**cfg_dict(lib.sgs_amagold_config_adaptive()), "seed": a.seed}
    assert a.mass == "diagonal" and a._cfg.warmup == 1000 and a._cfg.approach == 1
    assert a.step_size == 0.1  # the first guess, until the warm-up replaces it
    assert a._ws.size == lib.sgs_amagold_workspace_len_for(a._cfg, 3)


@pytest.mark.parametrize("positional", [False, True])
def test_with_step_size_the_chain_is_the_c_default_configuration(positional):
    a = (sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.3) if positional
         else sgsample.AMAGOLD(energy, grad, np.zeros(3), step_size=0.3))
    assert cfg_dict(a._cfg) == {**cfg_dict(lib.sgs_amagold_config_default(0.3)), "seed": a.seed}
    assert a.mass == "unit" and a._cfg.warmup == 0 and a.step_size == 0.3
    assert a._ws.size == lib.sgs_amagold_workspace_len_for(a._cfg, 3)


@pytest.mark.parametrize("step_size", [None, 0.2])
def test_options_replace_the_fields(step_size):
    base = cfg_dict(lib.sgs_amagold_config_adaptive() if step_size is None
                    else lib.sgs_amagold_config_default(step_size))
    for opts, fields in [
        (dict(mass="unit"), dict(mass=sgsample.SGS_MASS_UNIT)),
        (dict(mass="diagonal"), dict(mass=sgsample.SGS_MASS_DIAGONAL)),
        (dict(mass="dense", warmup=500), dict(mass=sgsample.SGS_MASS_DENSE, warmup=500)),
        (dict(mass=sgsample.SGS_MASS_DENSE), dict(mass=sgsample.SGS_MASS_DENSE)),
        (dict(approach=False), dict(approach=0)),
        (dict(approach=True, warmup=100), dict(approach=1, warmup=100)),
        (dict(jitter_steps=True), dict(jitter_steps=1)),
        (dict(variant="non_reversible", steps=4, target_accept=0.8, seed=5, stream=2),
         dict(variant=1, steps=4, target_accept=0.8, seed=5, stream=2)),
    ]:
        a = sgsample.AMAGOLD(energy, grad, np.zeros(3), step_size, **opts)
        assert cfg_dict(a._cfg) == {**base, "seed": a.seed, **fields}, opts
        # The workspace is the library's size for this very configuration.
        assert a._ws.size == max(1, lib.sgs_amagold_workspace_len_for(a._cfg, 3)), opts


def test_adapt_mass_is_a_deprecated_alias_of_mass_diagonal():
    with pytest.warns(DeprecationWarning, match="mass='diagonal'") as w:
        a = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, warmup=50, adapt_mass=True)
    assert w[0].filename == __file__  # points at the caller
    assert a.mass == "diagonal"
    with pytest.warns(DeprecationWarning):
        assert sgsample.AMAGOLD(energy, grad, np.zeros(3), adapt_mass=False).mass == "unit"
    with pytest.warns(DeprecationWarning):  # agreeing with mass=: accepted
        assert sgsample.AMAGOLD(energy, grad, np.zeros(3), adapt_mass=True,
                                mass="diagonal").mass == "diagonal"
    # A mass matrix without a warm-up is now valid (the identity until it is set): the alias too.
    with pytest.warns(DeprecationWarning):
        assert sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, adapt_mass=True).mass == "diagonal"
    # Through sgsample.amagold: one warning for the call, at the caller.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = sgsample.amagold(energy, grad, np.zeros(3), 30, chains=2, step_size=0.1, warmup=25,
                               adapt_mass=True)
    dep = [x for x in w if issubclass(x.category, DeprecationWarning)]
    assert len(dep) == 1 and dep[0].filename == __file__
    assert all(i.inverse_mass.shape == (3,) for i in res.info)
    for bad in (dict(adapt_mass=2), dict(adapt_mass="yes"), dict(adapt_mass=True, mass="dense"),
                dict(adapt_mass=False, mass="diagonal")):
        with pytest.warns(DeprecationWarning), pytest.raises(sgsample.InvalidInput) as e:
            sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, warmup=50, **bad)
        assert e.value.name == "SGS_ERR_INVALID_OPTION", bad


@pytest.mark.parametrize("kwargs, status", [
    (dict(mass="sideways"), "SGS_ERR_INVALID_OPTION"),
    (dict(mass=3), "SGS_ERR_INVALID_OPTION"),
    (dict(approach=2), "SGS_ERR_INVALID_OPTION"),
    (dict(jitter_steps=7), "SGS_ERR_INVALID_OPTION"),
    (dict(warmup=19), "SGS_ERR_INVALID_WARMUP"),
    (dict(warmup=5, mass="dense"), "SGS_ERR_INVALID_WARMUP"),
    (dict(approach="yes"), "SGS_ERR_INVALID_ARGUMENT"),
    (dict(mass=None), "SGS_ERR_INVALID_ARGUMENT"),
])
def test_bad_options(kwargs, status):
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.AMAGOLD(energy, grad, np.zeros(3), **kwargs)
    assert e.value.name == status


def test_reserved_is_not_an_option():
    with pytest.raises(TypeError):
        sgsample.AMAGOLD(energy, grad, np.zeros(3), reserved=1)


# ---------------------------------------------------------------------------------------------
# The report


@pytest.fixture(scope="module")
def far_chain():
    """The recommended adaptive chain started 200 sds away on the raw-scale Gaussian."""
    a = sgsample.AMAGOLD(energy, grad, FAR, seed=2)
    phases, reports = [], []
    for n in (1, 499, 500):  # into the warm-up, then to its end
        a.run(n)
        phases.append(a.info.phase)
        reports.append(a.warmup_report())
    draws = a.run(2000)
    return a, phases, reports, draws


def test_far_start_report_is_ok(far_chain):
    a, phases, reports, draws = far_chain
    r = reports[-1]
    assert r.verdict == "ok" and r.ok and r.reasons == () and r.reason_flags == 0, r
    assert r.iterations == 1000 and 1 <= r.approach_iterations <= 200
    assert r.approach_energy_start == pytest.approx(3 * 200.0**2 / 2)
    assert r.approach_energy_end < 1e-3 * r.approach_energy_start  # brought in
    assert r.window_iterations > 0 and r.window_divergences == 0 and r.divergences == 0
    assert abs(r.accept_rate - r.target_accept) < 0.1 and r.target_accept == 0.65
    assert r.step_size == a.step_size == a.info.step_size
    assert r.metric_updates >= 2 and r.bfmi > 0.3 and abs(r.energy_trend_z) < 4
    assert r.energy_trend_falling + r.energy_trend_rising <= 45
    # The learnt inverse mass is the posterior variance per coordinate (within 2x), and its
    # condition number is the report's.
    k = a.inverse_mass
    assert np.all(k > SD**2 / 2) and np.all(k < 2 * SD**2), k
    assert r.condition_number == pytest.approx(k.max() / k.min(), rel=1e-12)
    # The draws after it are in the typical set: the energy of 3 standard normals.
    z = draws / SD
    assert np.all(np.abs(z) < 6) and abs(np.mean(np.sum(z**2, axis=1)) - 3.0) < 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = "suspect"


def test_report_while_running_and_phases(far_chain):
    a, phases, reports, _ = far_chain
    assert phases[0] == "approach" and phases[1] in ("fast", "slow", "final")
    assert phases[2] == "final" and a.info.phase == "sampling"  # the 1000th: the warm-up's last
    assert [r.verdict for r in reports] == ["running", "running", "ok"]
    assert reports[0].iterations == 1 and reports[1].iterations == 500
    assert sgsample.AMAGOLD(energy, grad, FAR, 0.1).warmup_report().verdict == "none"
    fresh = sgsample.AMAGOLD(energy, grad, FAR)
    assert fresh.warmup_report().verdict == "running" and fresh.info.phase is None


def test_hopeless_setup_is_suspect():
    # No approach, unit mass, a raw-scale Gaussian started 200 sds away, 300 warm-up
    # iterations: the chain is still far out when the warm-up ends, and says so.
    a = sgsample.AMAGOLD(energy, grad, FAR, step_size=0.1, warmup=300, approach=False,
                         mass="unit")
    a.run(300)
    r = a.warmup_report()
    assert r.verdict == "suspect" and not r.ok
    assert r.reasons and set(r.reasons) <= {"energy_trend", "acceptance", "divergences",
                                             "low_bfmi", "metric"}, r.reasons
    assert r.reason_flags == sum(sgsample.header.defines["SGS_WARMUP_REASON_" + n.upper()]
                                 for n in r.reasons)
    assert r.approach_iterations == 0 and r.energy_mean > 1e3


def test_reason_names_follow_the_header():
    defines = sgsample.header.defines
    everything = sum(v for k, v in defines.items() if k.startswith("SGS_WARMUP_REASON_"))
    names = sgsample._reason_names(everything | 1 << 20)
    flags = sorted((v, k) for k, v in defines.items() if k.startswith("SGS_WARMUP_REASON_"))
    assert names[:-1] == tuple(k[len("SGS_WARMUP_REASON_"):].lower() for _, k in flags)
    assert names[-1] == hex(1 << 20)
    assert sgsample._reason_names(0) == ()


def test_report_has_every_field_of_the_c_struct():
    fields = {f for f in sgsample.WarmupReport.__dataclass_fields__}
    c = {name for _, name, _ in sgsample.header.structs["sgs_warmup_report"]}
    # `reserved` is the struct's padding, always 0: not a field of the report.
    assert fields == (c - {"reserved"}) | {"reason_flags"}


# ---------------------------------------------------------------------------------------------
# Comparing chains


def test_compare_flags_the_disagreeing_chain():
    # Three chains from the mode; a fourth from 200 sds away without the approach and without a
    # mass matrix is left far out (with the diagonal one its warm-up brings it in): compared,
    # it is SUSPECT with "chains_disagree" (its energy); the others may be flagged too, for
    # disagreeing positions (R-hat), but for nothing else.
    chains = [sgsample.AMAGOLD(energy, grad, np.zeros(3), seed=1, stream=c) for c in range(3)]
    chains.append(sgsample.AMAGOLD(energy, grad, FAR, seed=1, stream=3, approach=False,
                                   mass="unit"))
    for c in chains:
        c.run(1000)
    own = [c.warmup_report() for c in chains]
    reports = sgsample.warmup_compare(chains)
    assert all(set(r.reasons) <= {"chains_disagree"} for r in reports[:3])
    assert [o.verdict for o in own[:3]] == ["ok"] * 3
    assert "chains_disagree" in reports[3].reasons and reports[3].verdict == "suspect"
    assert "chains_disagree" not in own[3].reasons  # one chain alone cannot see it
    # Everything but the verdict and reasons is each chain's own report.
    for o, r in zip(own, reports):
        assert r.step_size == o.step_size and r.energy_mean == o.energy_mean
    # The same chains through sgsample.amagold: its result carries the comparison.
    res = sgsample.amagold(energy, grad, [np.zeros(3)] * 3 + [FAR], 1000, chains=4, seed=1,
                           approach=False, mass="unit")
    assert res.warmup is not None and len(res.warmup) == 4
    assert "chains_disagree" in res.warmup[3].reasons
    # Without a mass matrix there are no window moments: only the energies are compared, and
    # only the chain left out is flagged.
    assert ["chains_disagree" in r.reasons for r in res.warmup] == [False, False, False, True]
    assert "chains_disagree" not in res.info[3].warmup_report.reasons  # its own report
    assert res.info[3].warmup_report.energy_mean == res.warmup[3].energy_mean


def two_modes():
    """Modes at t0 = ±5 of equal energy, a barrier no chain crosses (the line search of the
    approach overshoots to inf: a failed trial)."""

    def e(t):
        with np.errstate(over="ignore", invalid="ignore"):
            return 0.5 * (t[0] ** 2 - 25.0) ** 2 + 0.5 * t[1] ** 2

    def g(t, seed):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.array([2.0 * t[0] * (t[0] ** 2 - 25.0), t[1]])

    return e, g


def test_compare_sees_chains_in_two_modes_after_approaches_of_different_lengths():
    e, g = two_modes()
    chains = [sgsample.AMAGOLD(e, g, np.array(s0), seed=3, stream=c)
              for c, s0 in enumerate([[8.0, 0.0], [20.0, 1.0], [-8.0, 0.0], [-20.0, 1.0]])]
    for c in chains:
        c.run(1000)
    assert np.sign([c.position[0] for c in chains]).tolist() == [1, 1, -1, -1]
    # Approaches of different lengths (the final windows are of one length, max(50, W/5)).
    assert len({c.warmup_report().approach_iterations for c in chains}) > 1
    assert all("chains_disagree" in r.reasons for r in sgsample.warmup_compare(chains))


def test_compare_with_equal_windows_sees_two_modes():
    # The same model without the approach (equal final windows): the R-hat rule works.
    e, g = two_modes()
    res = sgsample.amagold(e, g, [[5.0, 0.0], [5.0, 1.0], [-5.0, 0.0], [-5.0, 1.0]], 1000,
                           chains=4, seed=3, approach=False)
    assert all(r.reasons == ("chains_disagree",) for r in res.warmup)
    assert all(i.warmup_report.verdict == "ok" for i in res.info)


def test_compare_bad_inputs():
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1)
    b32 = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, dtype=np.float32)
    cases = [([], "SGS_ERR_ZERO_DIMENSION"),
             ([a, b32], "SGS_ERR_INVALID_ARGUMENT"),
             ([a, sgsample.SGLD(grad, np.zeros(3), step_size=0.1)], "SGS_ERR_INVALID_ARGUMENT"),
             ([a, sgsample.AMAGOLD(lambda t: 0.5 * float(t @ t), lambda t, s: t, np.zeros(2),
                                   0.1)], "SGS_ERR_LENGTH_MISMATCH")]
    for chains, status in cases:
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.warmup_compare(chains)
        assert e.value.name == status, chains
    assert [r.verdict for r in sgsample.warmup_compare([a, a])] == ["none", "none"]  # twice: ok
    assert sgsample.warmup_compare(iter([a]))[0].verdict == "none"


def test_amagold_result_without_warmup_has_no_reports():
    res = sgsample.amagold(energy, grad, np.zeros(3), 20, chains=2, step_size=0.1)
    assert res.warmup is None and all(i.warmup_report is None for i in res.info)
    assert all(i.inverse_mass is None and i.phase == "sampling" for i in res.info)


def test_amagold_result_with_a_dense_warmup():
    res = sgsample.amagold(energy, grad, np.zeros(3), 400, chains=2, warmup=200, mass="dense")
    for i, r in zip(res.info, res.warmup):
        assert i.inverse_mass_dense.shape == (3, 3) and i.inverse_mass.shape == (3,)
        assert np.array_equal(np.diag(i.inverse_mass_dense), i.inverse_mass)
        assert i.warmup_report.verdict in ("ok", "suspect") and r.iterations == 200


def test_any_number_of_chains_is_compared():
    # sgs_amagold_warmup_compare takes any number of chains (it keeps nothing per chain).
    many = [sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1) for _ in range(65)]
    assert len(sgsample.warmup_compare(many)) == 65
    res = sgsample.amagold(energy, grad, np.zeros(3), 25, chains=65, step_size=0.1,
                           warmup=20, approach=False, mass="unit")
    assert res.samples.shape == (65, 25, 3) and len(res.warmup) == 65
    assert all(i.warmup_report.iterations == 20 for i in res.info)


# ---------------------------------------------------------------------------------------------
# Getters and setters


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-6)])
def test_set_get_round_trips(dtype, rtol):
    d = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, mass="diagonal", dtype=dtype)
    assert np.array_equal(d.inverse_mass, np.ones(3)) and d.inverse_mass.dtype == dtype
    d.inverse_mass = [4.0, 1e4, 1e-4]
    assert np.array_equal(d.inverse_mass, np.array([4.0, 1e4, 1e-4], dtype))
    assert np.array_equal(d.inverse_mass_dense, np.diag(np.array([4.0, 1e4, 1e-4], dtype)))
    d.step_size = 0.25
    assert d.step_size == 0.25
    K = np.array([[2.0, 0.6, 0.1], [0.6, 1.0, -0.2], [0.1, -0.2, 0.5]])
    D = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, mass="dense", dtype=dtype)
    assert np.array_equal(D.inverse_mass_dense, np.eye(3))
    D.inverse_mass_dense = K
    got = D.inverse_mass_dense
    assert got.dtype == dtype and got.shape == (3, 3)
    np.testing.assert_allclose(got, K, rtol=rtol, atol=rtol)
    assert np.array_equal(got, got.T) and np.array_equal(D.inverse_mass, np.diag(got))
    D.inverse_mass = [1.0, 2.0, 3.0]  # a diagonal matrix on a dense chain
    np.testing.assert_allclose(D.inverse_mass_dense, np.diag([1.0, 2.0, 3.0]), rtol=rtol)
    # A unit-mass chain reads ones and the identity.
    u = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, dtype=dtype)
    assert np.array_equal(u.inverse_mass, np.ones(3))
    assert np.array_equal(u.inverse_mass_dense, np.eye(3))


@pytest.mark.parametrize("mass, attr, value, status", [
    ("unit", "inverse_mass", [1.0, 1.0, 1.0], "SGS_ERR_MASS_MISMATCH"),
    ("unit", "inverse_mass_dense", np.eye(3), "SGS_ERR_MASS_MISMATCH"),
    ("diagonal", "inverse_mass_dense", np.eye(3), "SGS_ERR_MASS_MISMATCH"),
    ("diagonal", "inverse_mass", [1.0, 1.0], "SGS_ERR_LENGTH_MISMATCH"),
    ("diagonal", "inverse_mass", np.ones((3, 1)), "SGS_ERR_LENGTH_MISMATCH"),
    ("diagonal", "inverse_mass", 1.0, "SGS_ERR_LENGTH_MISMATCH"),
    ("diagonal", "inverse_mass", [1.0, np.nan, 1.0], "SGS_ERR_INVALID_MASS"),
    ("diagonal", "inverse_mass", [1.0, np.inf, 1.0], "SGS_ERR_INVALID_MASS"),
    ("diagonal", "inverse_mass", [1.0, 0.0, 1.0], "SGS_ERR_INVALID_MASS"),
    ("diagonal", "inverse_mass", [1.0, -2.0, 1.0], "SGS_ERR_INVALID_MASS"),
    ("diagonal", "inverse_mass", [1.0, 1j, 1.0], "SGS_ERR_INVALID_ARGUMENT"),
    ("diagonal", "inverse_mass", ["a", "b", "c"], "SGS_ERR_INVALID_ARGUMENT"),
    ("dense", "inverse_mass_dense", np.eye(3).ravel(), "SGS_ERR_LENGTH_MISMATCH"),
    ("dense", "inverse_mass_dense", np.eye(2), "SGS_ERR_LENGTH_MISMATCH"),
    ("dense", "inverse_mass_dense", [[1, 0.5, 0], [0.4, 1, 0], [0, 0, 1]], "SGS_ERR_INVALID_MASS"),
    ("dense", "inverse_mass_dense", [[1, 2, 0], [2, 1, 0], [0, 0, 1]], "SGS_ERR_INVALID_MASS"),
    ("dense", "inverse_mass_dense", np.diag([1.0, np.nan, 1.0]), "SGS_ERR_INVALID_MASS"),
    ("dense", "inverse_mass_dense", -np.eye(3), "SGS_ERR_INVALID_MASS"),
    ("dense", "step_size", np.nan, "SGS_ERR_INVALID_STEP_SIZE"),
    ("dense", "step_size", -0.1, "SGS_ERR_INVALID_STEP_SIZE"),
    ("dense", "step_size", 0.0, "SGS_ERR_INVALID_STEP_SIZE"),
    ("dense", "step_size", "0.1", "SGS_ERR_INVALID_ARGUMENT"),
    ("dense", "step_size", True, "SGS_ERR_INVALID_ARGUMENT"),
    ("dense", "step_size", 1j, "SGS_ERR_INVALID_ARGUMENT"),
])
def test_bad_setter_inputs_change_nothing(mass, attr, value, status):
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, mass=mass)
    before = (a.step_size, a.inverse_mass_dense)
    with pytest.raises(sgsample.InvalidInput) as e:
        setattr(a, attr, value)
    assert e.value.name == status and isinstance(e.value, ValueError)
    assert status in str(e.value) and "sgs_amagold_set_" + attr in str(e.value)
    after = (a.step_size, a.inverse_mass_dense)
    assert before[0] == after[0] and np.array_equal(before[1], after[1])


def test_f32_overflowing_values_are_refused():
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, mass="diagonal", dtype=np.float32)
    with pytest.raises(sgsample.InvalidInput) as e:
        a.inverse_mass = [1e300, 1.0, 1.0]  # inf in float32
    assert e.value.name == "SGS_ERR_INVALID_MASS" and "_f32" in str(e.value)
    with pytest.raises(sgsample.InvalidInput) as e:
        a.step_size = 1e300  # not finite in float
    assert e.value.name == "SGS_ERR_INVALID_STEP_SIZE"


def test_dense_matrix_refused_while_a_window_collects_draws():
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3), mass="dense", warmup=200)
    while a.info.phase != "slow":
        a.run(1)
    a.run(1)  # the window's second draw (its first adds nothing to the co-moments)
    k = a.inverse_mass_dense
    with pytest.raises(sgsample.InvalidInput) as e:
        a.inverse_mass_dense = np.eye(3)
    assert e.value.name == "SGS_ERR_INVALID_MASS"
    assert np.array_equal(a.inverse_mass_dense, k)
    a.inverse_mass = np.ones(3)  # a diagonal one is taken (the windows refine it)
    assert np.array_equal(a.inverse_mass_dense, np.eye(3))


def test_dense_matrix_accepted_after_the_warmup():
    a = sgsample.AMAGOLD(energy, grad, np.zeros(3), mass="dense", warmup=200)
    a.run(210)
    assert a.info.phase == "sampling" and a.warmup_report().verdict != "running"
    a.inverse_mass_dense = np.eye(3)
    assert np.array_equal(a.inverse_mass_dense, np.eye(3))


def test_setters_from_a_callback_are_busy():
    hits = []

    def g(t, seed):
        for attr, value in (("step_size", 0.2), ("inverse_mass", np.ones(3))):
            try:
                setattr(chain, attr, value)
            except sgsample.InvalidInput as e:
                hits.append(e.name)
        try:
            chain.warmup_report()
        except sgsample.InvalidInput as e:
            hits.append(e.name)
        return t / SD**2

    chain = sgsample.AMAGOLD(energy, grad, np.zeros(3), 0.1, mass="diagonal")
    chain._cb.py.grad = g
    chain.run(1)
    assert hits and set(hits) == {"SGS_ERR_BUSY"}
    assert chain.step_size == 0.1 and np.array_equal(chain.inverse_mass, np.ones(3))


# ---------------------------------------------------------------------------------------------
# Handing adaptation on


def correlated():
    C = np.array([[1.0, 0.9], [0.9, 1.0]]) * np.array([[1.0, 10.0], [10.0, 100.0]])
    P = np.linalg.inv(C)
    return C, (lambda t: 0.5 * float(t @ P @ t)), (lambda t, seed: P @ t)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_pilots_step_size_and_dense_matrix_make_a_fresh_chain_exact(dtype):
    C, e, g = correlated()
    pilot = sgsample.AMAGOLD(e, g, [30.0, 300.0], mass="dense", seed=4, dtype=dtype)
    pilot.run(1000)
    assert pilot.warmup_report().verdict == "ok"
    np.testing.assert_allclose(pilot.inverse_mass_dense, C, rtol=0.5, atol=2.0)
    fresh = sgsample.AMAGOLD(e, g, [30.0, 300.0], 0.1, mass="dense", seed=5, dtype=dtype)
    fresh.step_size = pilot.step_size
    fresh.inverse_mass_dense = pilot.inverse_mass_dense
    assert fresh.step_size == pilot.step_size
    np.testing.assert_allclose(fresh.inverse_mass_dense, pilot.inverse_mass_dense,
                               rtol=1e-12 if dtype == np.float64 else 1e-5)
    fresh.run(200)  # from the far start: burn in
    assert fresh.info.phase == "sampling" and fresh.warmup_report().verdict == "none"
    x = fresh.run(4000).astype(np.float64)
    acc = fresh.info.accepted / fresh.info.iterations
    assert 0.45 < acc < 0.9, acc  # the pilot's tuning carries over (target 0.65)
    st = sgsample.Stats(2).push(x)
    se = np.sqrt(np.diag(C) / st.ess())
    assert np.all(np.abs(st.mean()) < 5 * se), (st.mean(), se)
    np.testing.assert_allclose(np.cov(x.T), C, rtol=0.2)
    assert fresh.step_size == pilot.step_size  # no warm-up: nothing moved it


def test_a_copy_mid_warmup_continues_as_the_original():
    a = sgsample.AMAGOLD(energy, grad, FAR, mass="dense", warmup=300, jitter_steps=True, seed=8)
    a.run(120)
    b = copy.copy(a)
    assert b._ws.size == a._ws.size == lib.sgs_amagold_workspace_len_for(a._cfg, 3)
    assert np.array_equal(a.run(400), b.run(400))
    assert a.warmup_report() == b.warmup_report()
    assert np.array_equal(a.inverse_mass_dense, b.inverse_mass_dense)


def test_f32_adaptive_chain():
    a = sgsample.AMAGOLD(lambda t: energy(np.asarray(t, np.float64)),
                         lambda t, s: (t / SD.astype(np.float32) ** 2).astype(np.float32),
                         FAR, seed=2, dtype=np.float32)
    a.run(1000)
    r = a.warmup_report()
    assert r.verdict == "ok", r
    k = a.inverse_mass
    assert k.dtype == np.float32 and np.all(k > SD**2 / 2) and np.all(k < 2 * SD**2), k
    assert [r.verdict for r in sgsample.warmup_compare([a, copy.copy(a)])] == ["ok", "ok"]
