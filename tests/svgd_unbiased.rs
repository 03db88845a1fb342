//! The random-batch force is an unbiased estimate of the SVGD force, with the variance of the
//! paper's Lemma 1 (sampling batch mates without replacement).
//!
//! Fixed particles (reset before every iteration), a deterministic gradient, so the only
//! randomness is the permutation. N = 12 is divisible by 2 but not by 5 (batches of 5 and 7),
//! so the left-over rule is exercised too.
//!
//! The same check runs on every code path of the pair sums (src/svgd/mod.rs, "Arithmetic"; the forms in src/svgd/pairs/) and
//! with every kernel, each against the force computed here from the formula, in `f64`:
//!
//! * p = 2 (batches side by side, `lanes.rs`) and p = 5 (those, and the packed triangle for the
//!   last batch of 7), Gaussian kernel, d = 2;
//! * d = 5 (the row loop for any d: no vectorised form takes d > 4);
//! * N = 13, p = 2, d = 1 (the last batch holds 3 members, which only the d = 1 row loop takes);
//! * the inverse multiquadric at β = ½ (its own `1/√s` arithmetic) and β = ¾ (`exp(−β ln s)`);
//! * the median heuristic at N = 11 and 12 (an odd and an even number of distances), its
//!   bandwidth computed here by sorting: the reported bandwidth must equal it (relative 1e-14)
//!   and the force must be unbiased for the SVGD force with it;
//! * with replacement (Algorithm 2) with p > N/2, so that an iteration is one sub-step from the
//!   start positions: a particle's force is read off its move (constant step η = 1:
//!   `φ = x' − x` up to one rounding of x', ~1e-16, far below the standard errors), and a moved
//!   particle is in the batch. Given that it is, its batch mates are a uniform (p − 1)-subset
//!   of the other N − 1, so its mean force is the SVGD force and its variance Lemma 1's at
//!   |C| = p; and each particle is in the batch with probability p/N (binomial count, z-score).
//!   p = 7, N = 12, d = 2 takes the packed triangle; p = 3, N = 5, d = 1 the d = 1 row loop;
//! * the Feistel permutation (docs/algorithms.md §2, "Draw order") instead of Fisher–Yates;
//! * the scale option (docs/algorithms.md §2.7), particle and fixed scales, without and with
//!   replacement, with the Gaussian kernel and the median heuristic: the force is then φᵤ, the
//!   SVGD force in `u = (x − c)/s` with the score `s∘∇log π` (the median on the `u`), and with
//!   replacement it is read off the move as `(x' − x)/(η·s)`. Coordinates on scales 0.01 and 30
//!   (`particles_raw`), so that a force computed in x is far from the one in u.
//!
//! # Tolerances
//!
//! M = 50 000 iterations per case. Each coordinate's sample mean must be within 4.5 standard
//! errors (sample sd/√M) of the exact mean, its sample variance within 4.5 standard errors (from
//! the sample fourth central moment, `√((m₄ − m₂²)/M)`) of Lemma 1's variance; the inclusion
//! counts within 4.5 binomial standard deviations. With at most 120 such z-scores per case a
//! false alarm at 4.5σ has probability below 1e-3 per case (and the seeds are fixed). Every
//! case also asserts its own power: the mean of the biased weighting (no (N−1)/N factor) must
//! lie more than 6 standard errors from the observed mean somewhere.

use sgsample::svgd::{Permutation, Scale};
use sgsample::{Batching, Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};

const M: usize = 50_000;

struct Model;
impl Gradient<f64> for Model {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for l in 0..x.len() {
            g[l] = x[l] + 0.5 * (3.0 * x[l]).sin();
        }
        Ok(())
    }
}

/// One configuration: N, d, p, the kernel, with or without replacement, the sampler's seed.
#[derive(Clone, Copy)]
struct Case {
    n: usize,
    d: usize,
    p: usize,
    kernel: KernelChoice,
    batching: Batching,
    seed: u64,
    scale: Scale,
    permutation: Permutation,
}

impl Case {
    fn new(n: usize, d: usize, p: usize, kernel: KernelChoice) -> Self {
        Case {
            n,
            d,
            p,
            kernel,
            batching: Batching::WithoutReplacement,
            seed: 7 + p as u64,
            scale: Scale::None,
            permutation: Permutation::Shuffle,
        }
    }

    fn particles(&self) -> Vec<f64> {
        let (n, d) = (self.n, self.d);
        if self.scale == Scale::None {
            return particles(n, d);
        }
        // On scales 0.01 and 30 around offsets, so that raw and standardised forces differ.
        let spread = [0.01, 30.0];
        particles(n, d)
            .iter()
            .enumerate()
            .map(|(k, v)| spread[k % d % 2] * (v + 2.0))
            .collect()
    }

    /// The scales `s` and the standardised positions `u = (x − c)/s` of `x` (`s` = 1, `u` = `x`
    /// without the option): `c` the mean, `s` the population sd (or [`FIXED`]), per coordinate.
    fn frame(&self, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (n, d) = (self.n, self.d);
        let mut s = vec![1.0; d];
        let mut c = vec![0.0; d];
        if self.scale != Scale::None {
            for l in 0..d {
                c[l] = (0..n).map(|i| x[i * d + l]).sum::<f64>() / n as f64;
                let v = (0..n).map(|i| (x[i * d + l] - c[l]).powi(2)).sum::<f64>() / n as f64;
                s[l] = if self.scale == Scale::Fixed {
                    FIXED[l]
                } else {
                    v.sqrt()
                };
            }
        }
        let u = (0..n * d).map(|k| (x[k] - c[k % d]) / s[k % d]).collect();
        (s, u)
    }
}

/// The fixed scales of the cases with `Scale::Fixed`.
const FIXED: [f64; 2] = [0.02, 20.0];

fn particles(n: usize, d: usize) -> Vec<f64> {
    let mut rng = Rng::new(2024, 1);
    (0..n * d).map(|_| 1.5 * rng.normal()).collect()
}

/// The median heuristic's bandwidth, med²/(2 ln N), from the sorted distances.
fn median_bandwidth(x: &[f64], n: usize, d: usize) -> f64 {
    let mut dist = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let r2: f64 = (0..d).map(|l| (x[i * d + l] - x[j * d + l]).powi(2)).sum();
            dist.push(r2.sqrt());
        }
    }
    dist.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = dist.len();
    let med = if m % 2 == 1 {
        dist[m / 2]
    } else {
        0.5 * (dist[m / 2 - 1] + dist[m / 2])
    };
    med * med / (2.0 * (n as f64).ln())
}

/// `(k, c)` at squared distance r², `∇_y k(x, y) = c·(x − y)`, from the kernels' formulas
/// (the median heuristic's bandwidth computed from the particles `x`).
fn kernel_at(kernel: KernelChoice, x: &[f64], n: usize, d: usize, r2: f64) -> (f64, f64) {
    match kernel {
        KernelChoice::Gaussian { h } => {
            let k = (-r2 / (2.0 * h)).exp();
            (k, k / h)
        }
        KernelChoice::GaussianMedian => {
            let h = median_bandwidth(x, n, d);
            let k = (-r2 / (2.0 * h)).exp();
            (k, k / h)
        }
        KernelChoice::InverseMultiquadric { c, beta } => {
            let s = c * c + r2;
            (s.powf(-beta), 2.0 * beta * s.powf(-beta - 1.0))
        }
    }
}

/// F(X_i, X_j) from the formula; with the scale option, in `u` (the kernel on the `u`, the
/// gradient `s∘∇V` at the particle's `x`).
fn big_f(case: &Case, x: &[f64], i: usize, j: usize) -> Vec<f64> {
    let d = case.d;
    let (s, u) = case.frame(x);
    let ui = &u[i * d..(i + 1) * d];
    let uj = &u[j * d..(j + 1) * d];
    let mut gj = vec![0.0; d];
    Model.gradient(&x[j * d..(j + 1) * d], 0, &mut gj).unwrap();
    let r2: f64 = (0..d).map(|l| (ui[l] - uj[l]).powi(2)).sum();
    let (k, c) = kernel_at(case.kernel, &u, case.n, d, r2);
    (0..d)
        .map(|l| -k * s[l] * gj[l] + c * (ui[l] - uj[l]))
        .collect()
}

/// Mean and variance of the batch force, per coordinate, with the standard errors of both (the
/// variance's from the sample fourth central moment), and how often each particle was in a batch.
struct Stats {
    mean: Vec<f64>,
    se_mean: Vec<f64>,
    var: Vec<f64>,
    se_var: Vec<f64>,
    included: Vec<usize>,
}

/// M iterations from the same particles. Without replacement every particle's force is
/// sampled every time; with replacement (one sub-step: p > N/2) those of the particles that
/// moved, read off their moves (constant step η = 1).
fn batch_force_stats(case: &Case) -> Stats {
    let (n, d, p) = (case.n, case.d, case.p);
    let x0 = case.particles();
    let (scale, u0) = case.frame(&x0);
    let mut x = x0.clone();
    let eta = 1.0;
    let mut cfg = SvgdConfig::new(p, case.kernel, StepRule::Constant { eta });
    cfg.seed = case.seed;
    cfg.batching = case.batching;
    cfg.scale = case.scale;
    cfg.permutation = case.permutation;
    let with = case.batching == Batching::WithReplacement;
    assert!(
        !with || 2 * p > n,
        "with replacement: one sub-step needs p > N/2"
    );
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(&cfg, d, &mut x, &mut ws, &mut idx).unwrap();
    if case.scale == Scale::Fixed {
        s.set_scale(&FIXED[..d]).unwrap();
    }
    let mut samples: Vec<Vec<f64>> = (0..n * d).map(|_| Vec::with_capacity(M)).collect();
    let mut included = vec![0usize; n];
    let want_h = match case.kernel {
        KernelChoice::GaussianMedian => median_bandwidth(&u0, n, d),
        KernelChoice::Gaussian { h } => h,
        KernelChoice::InverseMultiquadric { .. } => f64::NAN,
    };
    for it in 0..M {
        s.particles_mut().copy_from_slice(&x0);
        let info = s.step(&mut Model).unwrap();
        if it == 0 && !want_h.is_nan() {
            let h = info.bandwidth;
            assert!(
                (h - want_h).abs() <= 1e-14 * want_h,
                "bandwidth {h} vs {want_h}"
            );
        }
        if !with {
            for (c, v) in s.force().iter().enumerate() {
                samples[c].push(*v);
            }
            included.iter_mut().for_each(|c| *c += 1);
            continue;
        }
        let moved = s.particles();
        let mut count = 0;
        for (i, inc) in included.iter_mut().enumerate() {
            let row = i * d..(i + 1) * d;
            if moved[row.clone()] == x0[row.clone()] {
                continue;
            }
            count += 1;
            *inc += 1;
            for c in row {
                samples[c].push((moved[c] - x0[c]) / (eta * scale[c % d]));
            }
        }
        assert_eq!(count, p, "iteration {it}: {count} particles moved");
    }
    let mut st = Stats {
        mean: vec![],
        se_mean: vec![],
        var: vec![],
        se_var: vec![],
        included,
    };
    for v in &samples {
        let mf = v.len() as f64;
        let mean = v.iter().sum::<f64>() / mf;
        let m2 = v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / mf;
        let m4 = v.iter().map(|a| (a - mean).powi(4)).sum::<f64>() / mf;
        st.mean.push(mean);
        st.se_mean.push((m2 / (mf - 1.0)).sqrt());
        st.var.push(m2 * mf / (mf - 1.0));
        st.se_var.push(((m4 - m2 * m2) / mf).sqrt());
    }
    st
}

/// Lemma 1: particle i's batch mates are k = |C| − 1 draws without replacement from the other
/// N − 1 particles, so Var φ_il = ((N−1)/N)²·σ²_il·(N−|C|)/((|C|−1)(N−2)) averaged over the
/// batch size i lands in (σ²_il: the population variance of F(X_i, X_j)_l over j ≠ i). With
/// replacement (given that i is in the batch) |C| = p.
fn predicted_var(case: &Case, x: &[f64], i: usize, l: usize) -> f64 {
    let (n_, p) = (case.n, case.p);
    let n = n_ as f64;
    let f: Vec<f64> = (0..n_)
        .filter(|&j| j != i)
        .map(|j| big_f(case, x, i, j)[l])
        .collect();
    let mu = f.iter().sum::<f64>() / (n - 1.0);
    let s2 = f.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / (n - 1.0);
    let cond = |m: usize| {
        let m = m as f64;
        ((n - 1.0) / n).powi(2) * s2 * (n - m) / ((m - 1.0) * (n - 2.0))
    };
    if case.batching == Batching::WithReplacement {
        return cond(p);
    }
    let nb = n_ / p;
    let last = n_ - (nb - 1) * p;
    // P(i in a batch of size p) = (nb − 1)·p/N, P(i in the last batch) = last/N.
    ((nb - 1) * p) as f64 / n * cond(p) + last as f64 / n * cond(last)
}

fn check(case: Case) {
    let (n, d, p) = (case.n, case.d, case.p);
    let x = case.particles();
    let st = batch_force_stats(&case);
    let mut worst_biased = 0.0f64;
    for i in 0..n {
        let fs = big_f(&case, &x, i, i);
        let mut others = vec![0.0; d];
        for j in (0..n).filter(|&j| j != i) {
            let f = big_f(&case, &x, i, j);
            for l in 0..d {
                others[l] += f[l];
            }
        }
        for l in 0..d {
            let c = i * d + l;
            // SVGD: (1/N) Σ_j F(X_i, X_j).
            let svgd = (fs[l] + others[l]) / n as f64;
            let z = (st.mean[c] - svgd) / st.se_mean[c];
            assert!(
                z.abs() < 4.5,
                "N={n} d={d} p={p} particle {i} coord {l}: mean {} svgd {svgd} z {z}",
                st.mean[c]
            );
            // The expectation of a biased weighting (no (N−1)/N factor): the test must be able
            // to tell it apart from the observed mean somewhere.
            let biased = fs[l] / n as f64 + others[l] / (n - 1) as f64;
            worst_biased = worst_biased.max(((st.mean[c] - biased) / st.se_mean[c]).abs());
            let pv = predicted_var(&case, &x, i, l);
            let zv = (st.var[c] - pv) / st.se_var[c];
            assert!(
                zv.abs() < 4.5,
                "N={n} d={d} p={p} particle {i} coord {l}: var {} predicted {pv} z {zv}",
                st.var[c]
            );
        }
        if case.batching == Batching::WithReplacement {
            // In the batch with probability p/N: a binomial count over the M sub-steps.
            let q = p as f64 / n as f64;
            let (mean, sd) = (M as f64 * q, (M as f64 * q * (1.0 - q)).sqrt());
            let z = (st.included[i] as f64 - mean) / sd;
            assert!(
                z.abs() < 4.5,
                "N={n} p={p}: particle {i} in {} batches, expected {mean} (z {z})",
                st.included[i]
            );
        }
    }
    assert!(
        worst_biased > 6.0,
        "N={n} d={d} p={p}: the biased weighting is not detectable ({worst_biased})"
    );
}

const GAUSS: KernelChoice = KernelChoice::Gaussian { h: 0.5 };

#[test]
fn batch_force_unbiased_p2() {
    check(Case::new(12, 2, 2, GAUSS));
}

#[test]
fn batch_force_unbiased_p5() {
    check(Case::new(12, 2, 5, GAUSS));
}

/// The Feistel permutation (one draw per iteration instead of N − 1): the batches it cuts give
/// the same unbiased force with Lemma 1's variance (p = 2 and p = 5 with its left-overs, and
/// the median heuristic at an odd N).
#[test]
fn batch_force_unbiased_feistel() {
    for case in [
        Case::new(12, 2, 2, GAUSS),
        Case::new(12, 2, 5, GAUSS),
        Case::new(11, 2, 3, KernelChoice::GaussianMedian),
    ] {
        check(Case {
            permutation: Permutation::Feistel,
            ..case
        });
    }
}

/// d = 5: every batch takes the row loop for any d.
#[test]
fn batch_force_unbiased_row_loop_d5() {
    check(Case::new(12, 5, 5, GAUSS));
}

/// N = 13, p = 2, d = 1: the last batch (3 members) takes the d = 1 row loop.
#[test]
fn batch_force_unbiased_row_loop_d1() {
    check(Case::new(13, 1, 2, GAUSS));
}

#[test]
fn batch_force_unbiased_inverse_multiquadric() {
    for (beta, seed) in [(0.5, 31), (0.75, 32)] {
        let kernel = KernelChoice::InverseMultiquadric { c: 0.8, beta };
        check(Case {
            seed,
            ..Case::new(12, 2, 5, kernel)
        });
    }
}

/// The median heuristic with an odd (N = 11: 55) and an even (N = 12: 66) number of distances.
#[test]
fn batch_force_unbiased_median_bandwidth() {
    for (n, seed) in [(11, 41), (12, 42)] {
        check(Case {
            seed,
            ..Case::new(n, 2, 4, KernelChoice::GaussianMedian)
        });
    }
}

/// With replacement, one sub-step (p > N/2): the packed triangle (p = 7, d = 2) and the d = 1
/// row loop (p = 3).
#[test]
fn batch_force_unbiased_with_replacement() {
    for (n, d, p, seed) in [(12, 2, 7, 51), (5, 1, 3, 52)] {
        check(Case {
            batching: Batching::WithReplacement,
            seed,
            ..Case::new(n, d, p, GAUSS)
        });
    }
}

/// The scale option: the force in standardised coordinates is unbiased for SVGD's there, with
/// Lemma 1's variance; particle scales (Gaussian kernel and the median heuristic on the `u`) and
/// fixed ones, without replacement (batches of 5 and 7: the lanes and the packed triangle; the
/// median's batches of 4) and with it (one sub-step of 7, read off the moves `x + η·s∘φᵤ`).
#[test]
fn batch_force_unbiased_with_scale() {
    let cases = [
        (Case::new(12, 2, 5, GAUSS), Scale::Particles, 61),
        (
            Case::new(12, 2, 4, KernelChoice::GaussianMedian),
            Scale::Particles,
            62,
        ),
        (Case::new(12, 2, 5, GAUSS), Scale::Fixed, 63),
        (
            Case {
                batching: Batching::WithReplacement,
                ..Case::new(12, 2, 7, GAUSS)
            },
            Scale::Particles,
            64,
        ),
    ];
    for (case, scale, seed) in cases {
        check(Case {
            scale,
            seed,
            ..case
        });
    }
}
