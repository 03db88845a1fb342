"""The streaming diagnostics (sgs_stats_…) against ArviZ on the same draws, and against the exact
integrated autocorrelation time of an AR(1) chain.

The draws come from the library: SGLD with the exact gradient of a N(0, s²) target is the AR(1)
chain x' = φ·x + √ε·z with φ = 1 − ε/(2s²), whose integrated autocorrelation time is exactly
(1 + φ)/(1 − φ) (docs/algorithms.md §4.5); the AMAGOLD draws are a real run on a badly scaled
Gaussian with noisy gradients. Agreement reached (measured when this test was written, AR(1)
with 4 × 65536 draws and AMAGOLD with 4 × 32768 draws of 2 coordinates):

* ESS vs ArviZ's own estimator on the same unsplit chains (``arviz.stats.diagnostics._ess``):
  relative difference ≤ 5e-14 (the same formula on exactly recovered autocovariances; FFT and
  running sums round differently). Tolerance 1e-10.
* split-R-hat vs ``arviz.rhat(method="split")`` at n = 16·2^j draws: equal to the last bit in
  these runs. Tolerance 1e-12.
* ESS vs ``arviz.ess(method="mean")``, which splits each chain first (the halves are different
  series, so the two differ by sampling noise): ≤ 0.08 %. Tolerance 2 %.
* MCSE per chain vs ``arviz.mcse(method="mean")`` (split, likewise): ≤ 0.15 %. Tolerance 2 %.
* ESS vs the exact k·n/τ of the AR(1) (τ = 19): 1.0 % off. The Geyer estimate's relative sd is
  about √(2·(2M+1)/(k·n)) ≈ 3 % for M ≈ 60 lags summed and k·n = 2^18. Tolerance 15 % (5 sd).
"""

import math

import numpy as np
import pytest

import sgsample

az = pytest.importorskip("arviz")
from arviz.stats.diagnostics import _ess as arviz_ess_unsplit  # noqa: E402

CHAINS = 4
N = 16 * 2**12  # 65536: a multiple of 16·2^j, so split-R-hat's halves are exact


def gauss_params(scales, noise_sd):
    return np.array(list(scales) + [noise_sd], dtype=float)


def stats_of(samples):
    """One Stats per chain over samples (chains, draws, d)."""
    out = []
    for c in range(samples.shape[0]):
        s = sgsample.Stats(samples.shape[2])
        s.push(samples[c])
        out.append(s)
    return out


@pytest.fixture(scope="module")
def ar1(models):
    """SGLD on N(0, 1) with the exact gradient: AR(1) with φ = 1 − ε/2 = 0.9."""
    eps = 0.2
    ud = gauss_params([1.0], 0.0)
    res = sgsample.sgld(sgsample.Raw(models.gauss_grad, ud), [0.0], N, chains=CHAINS, seed=7,
                        step_size=eps)
    phi = 1.0 - eps / 2.0
    return res.samples, (1.0 + phi) / (1.0 - phi)


@pytest.fixture(scope="module")
def amagold_draws(models):
    """A real AMAGOLD run: 2-D Gaussian with scales 1 and 2, noisy gradients (its autocorrelation
    dies out within the 128-lag window in every chain, so the exact comparison applies)."""
    ud = gauss_params([1.0, 2.0], 0.5)
    res = sgsample.amagold(sgsample.Raw(models.gauss_energy, ud), sgsample.Raw(models.gauss_grad, ud),
                           [0.0, 0.0], N // 2, chains=CHAINS, seed=3, step_size=0.2, steps=10)
    assert all(i.accept_rate > 0.5 for i in res.info)
    return res.samples


@pytest.mark.parametrize("which", ["ar1", "amagold"])
def test_ess_rhat_mcse_agree_with_arviz(which, request):
    samples = request.getfixturevalue("ar1")[0] if which == "ar1" else \
        request.getfixturevalue("amagold_draws")
    st = stats_of(samples)
    ess_all = sgsample.ess(st)
    rhat_all = sgsample.rhat(st)
    for j in range(samples.shape[2]):
        x = samples[:, :, j]
        exact = arviz_ess_unsplit(x)
        assert ess_all[j] == pytest.approx(exact, rel=1e-10), (which, j)
        assert rhat_all[j] == pytest.approx(az.rhat(x, method="split"), abs=1e-12), (which, j)
        split = az.ess(x, method="mean")
        assert ess_all[j] == pytest.approx(split, rel=0.02), (which, j, ess_all[j], split)
        for c in range(CHAINS):
            mine = st[c].ess()[j]
            assert mine == pytest.approx(arviz_ess_unsplit(x[c]), rel=1e-10)
            assert st[c].mcse()[j] == pytest.approx(az.mcse(x[c], method="mean"), rel=0.02)
            assert st[c].mean()[j] == pytest.approx(x[c].mean(), rel=1e-12, abs=1e-12)
            assert st[c].variance()[j] == pytest.approx(x[c].var(ddof=1), rel=1e-10)


def test_ess_matches_the_exact_ar1_autocorrelation_time(ar1):
    samples, tau = ar1
    st = stats_of(samples)
    truth = CHAINS * N / tau
    got = sgsample.ess(st)[0]
    assert got == pytest.approx(truth, rel=0.15), (got, truth)
    # One chain: relative sd about 6 %; 5 sd.
    for s in st:
        assert s.ess()[0] == pytest.approx(N / tau, rel=0.30)
    # The MCSE is the standard error of the mean: the chain means scatter around 0 by it.
    z = [s.mean()[0] / s.mcse()[0] for s in st]
    assert max(abs(v) for v in z) < 4.5, z


def test_rhat_sees_chains_that_disagree(ar1):
    samples = ar1[0].copy()
    samples[0] += 1.0  # one chain shifted by about 0.45 of the sd (stationary var 1/0.19)
    r = sgsample.rhat(stats_of(samples))[0]
    assert r == pytest.approx(az.rhat(samples[:, :, 0], method="split"), abs=1e-10)
    assert r > 1.05


def test_long_memory_falls_back_to_batch_means(models):
    """φ = 0.995 (τ = 399) is beyond the 128-lag window: the batch-means ESS takes over. With 16
    chains of 16 batches of 4096 draws (≈ 10 τ) its relative sd is √(2/(16·15)) ≈ 9 % and its bias
    ≈ +5 %: tolerance 35 %. A window-truncated Geyer sum would overestimate the ESS about 2×."""
    eps = 0.01
    ud = gauss_params([1.0], 0.0)
    res = sgsample.sgld(sgsample.Raw(models.gauss_grad, ud), [0.0], N, chains=16, seed=11,
                        step_size=eps)
    phi = 1.0 - eps / 2.0
    truth = 16 * N * (1.0 - phi) / (1.0 + phi)
    got = sgsample.ess(stats_of(res.samples))[0]
    assert got == pytest.approx(truth, rel=0.35), (got, truth)


def test_float_draws_and_bad_inputs():
    s = sgsample.Stats(2)
    s.push(np.ones((3, 2), dtype=np.float32))
    assert s.count == 3
    with pytest.raises(sgsample.Error) as e:
        s.push([1.0, math.nan])
    assert e.value.name == "SGS_ERR_NON_FINITE"
    assert s.count == 3  # nothing pushed
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.rhat([s, sgsample.Stats(2)])
    assert e.value.name == "SGS_ERR_LENGTH_MISMATCH"
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.ess([s, sgsample.Stats(3)])
    assert e.value.name == "SGS_ERR_LENGTH_MISMATCH"
    with pytest.raises(sgsample.InvalidInput):
        sgsample.Stats(0)
