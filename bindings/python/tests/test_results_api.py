"""What the multi-chain calls return: draws after the warm-up, the warm-up only on request and
marked, per-draw sample stats, the seed always reported; outputs that cannot fit are refused."""

import sys
import types

import numpy as np
import pytest

import sgsample

import models as M


def test_draws_are_post_warmup_and_the_warmup_is_kept_apart():
    kw = dict(step_size=0.2, warmup=60, steps=4, seed=5)
    res = sgsample.amagold(M.dw_energy, M.dw_grad, [2.0], 100, chains=2, keep_warmup=True, **kw)
    assert res.samples.shape == (2, 100, 1) and res.warmup_samples.shape == (2, 60, 1)
    for c in range(2):
        a = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [2.0], stream=c, **kw)
        x, infos = a.run(160, info=True)
        np.testing.assert_array_equal(res.warmup_samples[c], x[:60])
        np.testing.assert_array_equal(res.samples[c], x[60:])
        assert infos["warmup"][:60].all() and not infos["warmup"][60:].any()
        # The stats are the C info records of those very iterations.
        np.testing.assert_array_equal(res.sample_stats["energy"][c], infos["energy"][60:])
        np.testing.assert_array_equal(res.warmup_sample_stats["step_size"][c],
                                      infos["step_size"][:60])
        acc = res.sample_stats["accepted"][c].sum() + res.warmup_sample_stats["accepted"][c].sum()
        assert acc == res.info[c].accepted
    # Without keep_warmup the same draws, no warm-up rows.
    plain = sgsample.amagold(M.dw_energy, M.dw_grad, [2.0], 100, chains=2, **kw)
    np.testing.assert_array_equal(plain.samples, res.samples)
    assert plain.warmup_samples is None and "warmup_posterior" not in plain.to_dict()
    s = res.sample_stats
    assert (s["n_steps"] == 4).all() and np.array_equal(s["lp"], -s["energy"])
    assert ((0 <= s["acceptance_rate"]) & (s["acceptance_rate"] <= 1)).all()
    assert s["diverging"].dtype == bool


def test_to_arviz_puts_the_warmup_in_its_groups():
    az = pytest.importorskip("arviz")
    res = sgsample.amagold(M.dw_energy, M.dw_grad, [0.0], 40, chains=2, step_size=0.2,
                           warmup=30, keep_warmup=True, seed=3)
    idata = res.to_arviz()
    assert isinstance(idata, az.InferenceData)
    assert idata.posterior["theta"].shape == (2, 40, 1)
    assert idata.warmup_posterior["theta"].shape == (2, 30, 1)
    assert idata.warmup_sample_stats["step_size"].shape == (2, 30)
    for name in ("diverging", "acceptance_rate", "step_size", "energy", "lp", "n_steps"):
        assert idata.sample_stats[name].shape == (2, 40), name
    assert idata.posterior.attrs["seed"] == 3


def test_a_fresh_seed_per_call_reported_and_repeatable():
    r1 = sgsample.sgld(M.dw_grad, [0.0], 50, step_size=0.05)
    r2 = sgsample.sgld(M.dw_grad, [0.0], 50, step_size=0.05)
    assert r1.seed != r2.seed and not np.array_equal(r1.samples, r2.samples)
    again = sgsample.sgld(M.dw_grad, [0.0], 50, step_size=0.05, seed=r1.seed)
    np.testing.assert_array_equal(again.samples, r1.samples)
    a = sgsample.SGHMC(M.dw_grad, [0.0], step_size=0.1)
    b = sgsample.SGHMC(M.dw_grad, [0.0], step_size=0.1, seed=a.seed)
    np.testing.assert_array_equal(a.run(20), b.run(20))
    assert sgsample.SVGD(np.zeros((3, 1)), M.dw_grad, step_size=0.1).seed != \
        sgsample.SVGD(np.zeros((3, 1)), M.dw_grad, step_size=0.1).seed
    # Also where only a RunInfo comes back (sgsample.svgd), and in every chain's info.
    x, info = sgsample.svgd(np.zeros((3, 1)), 5, M.dw_grad, step_size=0.1)
    x2, _ = sgsample.svgd(np.zeros((3, 1)), 5, M.dw_grad, step_size=0.1, seed=info.seed)
    np.testing.assert_array_equal(x, x2)
    assert [i.seed for i in r1.info] == [r1.seed]
    with pytest.raises(AttributeError):
        a.seed = 0


def test_an_output_that_cannot_fit_is_refused_before_running(tmp_path):
    grad = lambda th, seed: th  # noqa: E731
    s = sgsample.SGLD(grad, [0.0, 0.0], step_size=0.1, seed=1)
    with pytest.raises(MemoryError, match="GiB"):
        s.run(10**15)
    assert s.info.iterations == 0
    # A caller's array (here a file) takes the rows instead.
    out = np.memmap(tmp_path / "draws.f64", dtype=np.float64, mode="w+", shape=(500, 2))
    assert s.run(500, out=out) is out
    ref = sgsample.SGLD(grad, [0.0, 0.0], step_size=0.1, seed=1).run(500)
    np.testing.assert_array_equal(np.asarray(out), ref)
    for bad in (np.empty((499, 2)), np.empty((500, 2), np.float32), np.empty((2, 500)).T):
        with pytest.raises(sgsample.InvalidInput, match="out must be"):
            s.run(500, out=bad)


def test_progress_bar_only_when_asked_or_interactive(monkeypatch):
    bars = []

    class FakeBar:
        def __init__(self, total, **kw):
            self.total, self.n, self.closed = total, 0, False
            bars.append(self)

        def update(self, k):
            self.n += k

        def close(self):
            self.closed = True

    fake = types.ModuleType("tqdm.auto")
    fake.tqdm = FakeBar
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", fake)
    s = sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, seed=1)
    s.run(300)  # pytest's stderr is not a terminal: no bar by default
    assert bars == []
    s.run(300, progress=True)
    assert len(bars) == 1 and bars[0].n == bars[0].total == 300 and bars[0].closed
    s.run(300, progress=False)
    assert len(bars) == 1
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # not installed
    with pytest.raises(ImportError, match="tqdm"):
        s.run(3, progress=True)
    s.run(3)  # the default never needs it


def test_info_records_per_iteration_match_the_totals():
    s = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.8, steps=6, seed=2,
                         jitter_steps=True)
    x, infos = s.run(200, info=True)
    assert x.shape == (200, 1) and infos.dtype == sgsample.AMAGOLD.INFO_DTYPE
    assert infos["iteration"].tolist() == list(range(1, 201))
    assert infos["accepted"].sum() == s.info.accepted
    assert len(set(infos["steps"].tolist())) > 1  # jittered T: the record is per iteration
    ref = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.8, steps=6, seed=2,
                           jitter_steps=True).run(200)
    np.testing.assert_array_equal(x, ref)
