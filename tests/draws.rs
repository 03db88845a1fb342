//! `sgsample::draws` against ArviZ 0.23 on generated draws (the values of
//! `tests/data/draws_arviz.rs`, written by `tests/data/draws_arviz.py`), and its refusals and
//! verdict against the documentation. The draws cover what the estimators' plausible bugs need
//! to show: ties (average ranks, the `≤` of the quantile indicators, folding around the median),
//! an odd draw count (the middle draw left out of the split), chains apart and a drift within
//! chains (splitting), heavy tails, one chain, the fewest draws, an even count.
//!
//! Agreement when written: below 1e-13 relative for every field (the scripts/mutants check runs
//! these tests against each plausible bug of src/draws/). `mcse_sd` and `mean` get the
//! tolerances of `bindings/python/tests/test_draws.py` (rounding of the mean, which numpy sums
//! pairwise and the library in order, amplified by the conditioning of `m4 − m2²`).

#[path = "data/draws_arviz.rs"]
#[allow(clippy::approx_constant, clippy::excessive_precision)]
mod golden;

use sgsample::draws::{self, Shape, Summary};
use sgsample::Error;

/// `tests/data/draws_arviz.py`'s `make`, operation for operation.
fn make(chains: usize, n: usize, dim: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 * (1.0 / 9007199254740992.0)
    };
    let mut x = vec![0.0; chains * n * dim];
    for c in 0..chains {
        let mut y = 0.0;
        for t in 0..n {
            let mut e = uniform();
            e += uniform();
            e += uniform();
            e += uniform();
            e -= 2.0;
            y = 0.7 * y + e;
            for j in 0..dim {
                x[(c * n + t) * dim + j] = match j % 5 {
                    0 => y,
                    1 => (4.0 * uniform()).floor(),
                    2 => y + 0.5 * c as f64,
                    3 => {
                        let a = uniform();
                        let b = uniform();
                        (a - 0.5) / (b * b + 1e-3)
                    }
                    _ => y + 3.0 * t as f64 / n as f64,
                };
            }
        }
    }
    x
}

fn fields(s: &Summary) -> [f64; 17] {
    [
        s.mean,
        s.sd,
        s.mcse_mean,
        s.mcse_sd,
        s.q5,
        s.q50,
        s.q95,
        s.mcse_q5,
        s.mcse_q50,
        s.mcse_q95,
        s.ess_bulk,
        s.ess_tail,
        s.ess_mean,
        s.rhat,
        s.rhat_bulk,
        s.rhat_folded,
        s.rhat_split,
    ]
}

const NAMES: [&str; 17] = [
    "mean",
    "sd",
    "mcse_mean",
    "mcse_sd",
    "q5",
    "q50",
    "q95",
    "mcse_q5",
    "mcse_q50",
    "mcse_q95",
    "ess_bulk",
    "ess_tail",
    "ess_mean",
    "rhat",
    "rhat_bulk",
    "rhat_folded",
    "rhat_split",
];

/// One coordinate's values, in layout order.
fn coordinate(x: &[f64], dim: usize, j: usize) -> Vec<f64> {
    x.iter().skip(j).step_by(dim).copied().collect()
}

/// (relative tolerance, absolute floor) of field `k` for the draws `v` of one coordinate.
fn tolerance(k: usize, v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    match NAMES[k] {
        "mcse_sd" => {
            let c2: Vec<f64> = v.iter().map(|x| (x - mean) * (x - mean)).collect();
            let m2 = c2.iter().sum::<f64>() / n;
            let m4 = c2.iter().map(|c| c * c).sum::<f64>() / n;
            let cond = m4 / (m4 - m2 * m2);
            ((64.0 * f64::EPSILON * cond).max(1e-10), 0.0)
        }
        "mean" => {
            let sd = (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt();
            (1e-10, 1e-13 * sd)
        }
        _ => (1e-10, 0.0),
    }
}

fn same(got: f64, want: f64, rel: f64, floor: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got.is_infinite() || want.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= (rel * want.abs()).max(floor)
}

fn scratch(chains: usize, n: usize) -> Vec<f64> {
    vec![0.0; draws::scratch_len(chains, n).unwrap()]
}

#[test]
fn every_statistic_equals_arviz() {
    let mut worst = 0.0f64;
    for (set, &(chains, n, dim, seed)) in golden::SETS.iter().enumerate() {
        let x = make(chains, n, dim, seed);
        let mut out = vec![Summary::default(); dim];
        draws::summary(
            &x,
            Shape::new(chains, n, dim),
            &mut scratch(chains, n),
            &mut out,
        )
        .unwrap();
        for (j, s) in out.iter().enumerate() {
            let v = coordinate(&x, dim, j);
            for (k, (&got, &want)) in fields(s).iter().zip(&golden::SUMMARY[set][j]).enumerate() {
                let (rel, floor) = tolerance(k, &v);
                assert!(
                    same(got, want, rel, floor),
                    "set {set} ({chains}×{n}) coordinate {j} {}: {got:e} vs ArviZ {want:e}",
                    NAMES[k]
                );
                if got.is_finite() && want != 0.0 && NAMES[k] != "mcse_sd" {
                    worst = worst.max((got - want).abs() / want.abs());
                }
            }
        }
    }
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn quantile_mcse_at_other_probabilities_equals_arviz() {
    for (set, &(chains, n, dim, seed)) in golden::SETS.iter().enumerate() {
        let x = make(chains, n, dim, seed);
        let mut out = vec![0.0; dim];
        for (p, want) in golden::PROBS.iter().zip(golden::MCSE_QUANTILE[set]) {
            let shape = Shape::new(chains, n, dim);
            draws::mcse_quantile(&x, shape, *p, &mut scratch(chains, n), &mut out).unwrap();
            for (j, (&got, &want)) in out.iter().zip(want.iter()).enumerate() {
                assert!(
                    same(got, want, 1e-10, 0.0),
                    "set {set} p {p} coordinate {j}: {got:e} vs {want:e}"
                );
            }
        }
    }
}

/// The single-statistic functions give the summary's bits; f32 draws give the bits of the same
/// values in f64; the draws are never changed.
#[test]
fn single_functions_and_f32_agree_with_the_summary() {
    let (chains, n, dim) = (3, 77, 5);
    let x = make(chains, n, dim, 9);
    let copy = x.clone();
    let shape = Shape::new(chains, n, dim);
    let mut w = scratch(chains, n);
    let mut s = vec![Summary::default(); dim];
    draws::summary(&x, shape, &mut w, &mut s).unwrap();
    let mut v = vec![0.0; dim];
    let pick = |f: fn(&Summary) -> f64| s.iter().map(f).collect::<Vec<_>>();
    draws::rhat_rank(&x, shape, &mut w, &mut v).unwrap();
    assert_eq!(v, pick(|s| s.rhat));
    draws::ess_bulk(&x, shape, &mut w, &mut v).unwrap();
    assert_eq!(v, pick(|s| s.ess_bulk));
    draws::ess_tail(&x, shape, &mut w, &mut v).unwrap();
    assert_eq!(v, pick(|s| s.ess_tail));
    for (p, f) in [
        (0.05, (|s: &Summary| s.mcse_q5) as fn(&Summary) -> f64),
        (0.5, |s| s.mcse_q50),
        (0.95, |s| s.mcse_q95),
    ] {
        draws::mcse_quantile(&x, shape, p, &mut w, &mut v).unwrap();
        assert_eq!(v, pick(f));
    }
    assert_eq!(x, copy);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let x64: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
    let mut s32 = vec![Summary::default(); dim];
    let mut s64 = vec![Summary::default(); dim];
    draws::summary(&x32, shape, &mut w, &mut s32).unwrap();
    draws::summary(&x64, shape, &mut w, &mut s64).unwrap();
    for (a, b) in s32.iter().zip(&s64) {
        assert_eq!(fields(a).map(f64::to_bits), fields(b).map(f64::to_bits));
    }
}

/// ArviZ's conventions for constant draws: every ESS is the draw count, every R̂ NaN (0/0), the
/// quantile MCSEs 0; chains each constant at its own value: R̂ ∞ (no within-chain variance).
#[test]
fn constant_draws() {
    let (chains, n) = (3, 10);
    let x = vec![2.5f64; chains * n];
    let mut s = [Summary::default()];
    draws::summary(
        &x,
        Shape::new(chains, n, 1),
        &mut scratch(chains, n),
        &mut s,
    )
    .unwrap();
    let s = s[0];
    assert_eq!((s.mean, s.sd, s.q5, s.q95), (2.5, 0.0, 2.5, 2.5));
    assert_eq!((s.ess_bulk, s.ess_tail, s.ess_mean), (30.0, 30.0, 30.0));
    assert_eq!(
        (s.mcse_q5, s.mcse_q50, s.mcse_q95, s.mcse_mean),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert!(s.rhat.is_nan() && s.rhat_bulk.is_nan() && s.rhat_split.is_nan());
    assert!(s.mcse_sd.is_nan()); // (0 − 0)/ESS/0
    let apart: Vec<f64> = (0..chains * n).map(|i| (i / n) as f64).collect();
    let mut s = [Summary::default()];
    draws::summary(
        &apart,
        Shape::new(chains, n, 1),
        &mut scratch(chains, n),
        &mut s,
    )
    .unwrap();
    assert_eq!(
        (s[0].rhat, s[0].rhat_bulk, s[0].rhat_split),
        (f64::INFINITY, f64::INFINITY, f64::INFINITY)
    );
    assert_eq!(s[0].flags & draws::SUSPECT_RHAT, draws::SUSPECT_RHAT);
}

/// Each refusal has its own status, in the documented order, and writes nothing.
#[test]
fn refusals() {
    let (chains, n, dim) = (2, 6, 2);
    let x = make(chains, n, dim, 4);
    let shape = Shape::new(chains, n, dim);
    let need = draws::scratch_len(chains, n).unwrap();
    let mut w = vec![0.0; need];
    let marker = Summary {
        mean: 42.0,
        ..Summary::default()
    };
    let mut out = [marker; 2];
    let mut check = |x: &[f64], shape: Shape, w_len: usize, out_len: usize, want: Error| {
        let mut ws = vec![0.0; w_len];
        let r = draws::summary(x, shape, &mut ws, &mut out[..out_len]);
        assert_eq!(r, Err(want));
        assert!(out.iter().all(|o| *o == marker));
        assert!(ws.iter().all(|&v| v == 0.0));
    };
    check(&x, Shape::new(0, n, dim), need, 2, Error::ZeroDimension);
    check(&x, Shape::new(chains, n, 0), need, 2, Error::ZeroDimension);
    check(
        &x,
        Shape::new(chains, n + 1, dim),
        need,
        2,
        Error::LengthMismatch,
    );
    check(
        &x[..chains * 3 * dim],
        Shape::new(chains, 3, dim),
        need,
        2,
        Error::TooFewDraws,
    );
    check(&[], Shape::new(chains, 0, dim), need, 2, Error::TooFewDraws);
    check(
        &x,
        Shape::new(usize::MAX / 2, 4, 4),
        need,
        2,
        Error::InvalidArgument,
    );
    check(&x, shape, need - 1, 2, Error::WorkspaceTooSmall);
    check(&x, shape, need, 1, Error::OutputTooSmall);
    let mut bad = x.clone();
    bad[7] = f64::NAN;
    check(&bad, shape, need, 2, Error::NonFiniteDraws);
    bad[7] = f64::INFINITY;
    check(&bad, shape, need, 2, Error::NonFiniteDraws);
    // Sizes are checked before the values.
    check(&bad, shape, need - 1, 2, Error::WorkspaceTooSmall);
    let mut v = [7.0; 2];
    for p in [0.0, 1.0, -0.1, f64::NAN] {
        assert_eq!(
            draws::mcse_quantile(&x, shape, p, &mut w, &mut v),
            Err(Error::InvalidArgument)
        );
    }
    assert_eq!(
        draws::mcse_quantile(&bad, shape, 0.5, &mut w, &mut v),
        Err(Error::NonFiniteDraws)
    );
    assert_eq!(v, [7.0; 2]);
    assert_eq!(draws::scratch_len(0, 4), None);
    assert_eq!(draws::scratch_len(4, 0), None);
    assert_eq!(draws::scratch_len(usize::MAX, 4), None);
    assert_eq!(
        draws::scratch_len(2, 6),
        Some(4 * 12 + 2 * 2 * 3 + 4 * 8 + 3)
    );
    assert_eq!(Error::NonFiniteDraws.code(), 36);
    assert_eq!(Error::TooFewDraws.code(), 37);
}

/// The verdict's thresholds exactly: R̂ must be below 1.01, each ESS at least 100 per chain;
/// NaN is "not computable"; divergences; the worst values and their coordinates.
#[test]
fn verdict_thresholds() {
    let good = Summary {
        rhat: 1.009_999,
        ess_bulk: 400.0,
        ess_tail: 400.0,
        ..Summary::default()
    };
    let v = draws::diagnose(&[good, good], 4, 0).unwrap();
    assert!(v.ok() && v.flags == 0 && v.ess_threshold == 400.0);
    let at = |f: fn(&mut Summary)| {
        let mut s = good;
        f(&mut s);
        draws::diagnose(&[good, s, good], 4, 0).unwrap()
    };
    let v = at(|s| s.rhat = 1.01);
    assert_eq!(
        (v.flags, v.worst_rhat, v.worst_rhat_coord),
        (draws::SUSPECT_RHAT, 1.01, 1)
    );
    let v = at(|s| s.rhat = f64::INFINITY);
    assert_eq!(v.flags, draws::SUSPECT_RHAT);
    let v = at(|s| s.ess_bulk = 399.9);
    assert_eq!(
        (v.flags, v.min_ess_bulk, v.min_ess_bulk_coord),
        (draws::SUSPECT_ESS_BULK, 399.9, 1)
    );
    let v = at(|s| s.ess_tail = 12.0);
    assert_eq!(
        (v.flags, v.min_ess_tail, v.min_ess_tail_coord),
        (draws::SUSPECT_ESS_TAIL, 12.0, 1)
    );
    let v = at(|s| s.rhat = f64::NAN);
    assert_eq!(v.flags, draws::SUSPECT_NOT_COMPUTABLE);
    assert_eq!((v.not_computable, v.first_not_computable), (1, 1));
    assert_eq!(v.worst_rhat, good.rhat); // NaN is not the worst value, it is its own reason
    let v = draws::diagnose(&[good], 4, 3).unwrap();
    assert_eq!((v.flags, v.divergences), (draws::SUSPECT_DIVERGENCES, 3));
    let nan = Summary {
        rhat: f64::NAN,
        ess_bulk: f64::NAN,
        ess_tail: f64::NAN,
        ..Summary::default()
    };
    let v = draws::diagnose(&[nan], 1, 0).unwrap();
    assert!(v.worst_rhat.is_nan() && v.min_ess_bulk.is_nan() && v.min_ess_tail.is_nan());
    assert_eq!(draws::diagnose(&[], 4, 0), Err(Error::ZeroDimension));
    assert_eq!(draws::diagnose(&[good], 0, 0), Err(Error::ZeroDimension));
}

/// The verdict on real draws: one chain is never OK (R̂ needs two chains), a chain apart is seen,
/// and the summary's per-coordinate flags are the verdict's without the divergences.
#[test]
fn verdict_on_draws() {
    let (chains, n, dim) = (4, 2000, 3);
    let mut x = make(chains, n, 5, 21);
    // Keep coordinates 0 (AR(1)), 1 (discrete) and 4 (no drift: the plain AR(1) again).
    x = x
        .chunks(5)
        .flat_map(|d| [d[0], d[1], d[0] * 0.5 + 1.0])
        .collect();
    let shape = Shape::new(chains, n, dim);
    let mut w = scratch(chains, n);
    let mut s = vec![Summary::default(); dim];
    draws::summary(&x, shape, &mut w, &mut s).unwrap();
    let v = draws::diagnose(&s, chains, 0).unwrap();
    assert!(v.ok(), "{v:?} {s:?}");
    assert!(s.iter().all(|s| s.flags == 0));
    // Chain 0 shifted by one stationary sd (AR(1) with φ = 0.7: sd ≈ 0.81).
    for d in x.chunks_mut(dim).take(n) {
        d[0] += 0.8;
    }
    draws::summary(&x, shape, &mut w, &mut s).unwrap();
    let v = draws::diagnose(&s, chains, 0).unwrap();
    assert_eq!(v.flags & draws::SUSPECT_RHAT, draws::SUSPECT_RHAT);
    assert_eq!(v.worst_rhat_coord, 0);
    assert_eq!(v.flags, s.iter().fold(0, |f, s| f | s.flags));
    let one = &x[..n * dim];
    let mut s1 = vec![Summary::default(); dim];
    draws::summary(one, Shape::new(1, n, dim), &mut scratch(1, n), &mut s1).unwrap();
    let v = draws::diagnose(&s1, 1, 0).unwrap();
    assert!(!v.ok() && v.flags & draws::SUSPECT_NOT_COMPUTABLE != 0 && v.not_computable == dim);
}
