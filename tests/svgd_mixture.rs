//! The paper's 1-D Gaussian mixture (docs/algorithms.md §2.4): π = ⅓N(−2, 1) + ⅔N(2, 1), particles
//! from N(−10, 1), N = 256, h = 2, AdaGrad η = 0.2, 500 iterations. Test functions x, x², cos 2x
//! with exact expectations 2/3, 5, e^{−2}·cos 4.
//!
//! # Where the tolerances come from
//!
//! 100 independent runs per batch size (init seed s on stream 99, sampler seed s, s = 0..99),
//! error of the particle average = (particle average − exact), mean ± sd over the 100 runs:
//!
//! | p   | x                 | x²                | cos 2x            | MSE x, x², cos 2x          |
//! |-----|-------------------|-------------------|-------------------|----------------------------|
//! | 2   | −0.0021 ± 0.0890  | +1.0333 ± 0.1938  | +0.0633 ± 0.0511  | 0.0079, 1.1050, 0.0066     |
//! | 8   | +0.0755 ± 0.0834  | +0.2405 ± 0.1046  | +0.0407 ± 0.0416  | 0.0126, 0.0687, 0.0034     |
//! | 32  | +0.0663 ± 0.0920  | +0.0603 ± 0.0677  | +0.0241 ± 0.0239  | 0.0128, 0.0082, 0.0011     |
//! | 256 | +0.0541 ± 0.2381  | +0.0128 ± 0.3803  | +0.0056 ± 0.0228  | 0.0591, 0.1434, 0.0005     |
//!
//! (p = 256 is SVGD. Its spread in x and x² is the mode weights: deterministic dynamics
//! from an initialisation on one side split the particles between the modes a little
//! differently each time. RBM-SVGD with small p over-disperses: +1.03 in x² at p = 2.)
//!
//! The test averages the particle averages over K = 8 fresh runs (seeds 1000..1007, not among
//! the 100 above), whose error has mean "bias" and standard error sd/√8, and requires
//! |error| ≤ |bias| + 4·sd/√8, rounded up:
//! p = 8: x 0.20, x² 0.39, cos 2x 0.10; SVGD: x 0.39, x² 0.55, cos 2x 0.038.
//! Checked by hand: with the repulsive term ∇_y k removed, every particle collapses onto the
//! mode at −2 next to the start (x error ≈ −2.65 for p = 8 and for SVGD) and all three tests
//! fail.
//!
//! p = 2 vs p = 32: the MSE over the same 8 runs is larger at p = 2 for x² (≈ 1.1 vs 0.008)
//! and cos 2x (≈ 0.0066 vs 0.0011), and in total; for x alone it is not (0.0079 vs 0.0128 in
//! the table: the over-dispersion is nearly symmetric), so x is not asserted there.

use sgsample::{Float, Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};

const N: usize = 256;
const K: u64 = 8;

struct Mixture;
impl<T: Float> Gradient<T> for Mixture {
    fn gradient(&mut self, x: &[T], _seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let x0 = x[0].to_f64();
        g[0] = T::from_f64(x0 - 2.0 + 4.0 / (2.0 * (4.0 * x0).exp() + 1.0));
        Ok(())
    }
}

fn exact() -> [f64; 3] {
    [2.0 / 3.0, 5.0, (-2.0f64).exp() * 4.0f64.cos()]
}

/// Errors of the particle averages of x, x², cos 2x after one run (in `f64`).
fn run(p: usize, seed: u64) -> [f64; 3] {
    run_in::<f64>(p, seed)
}

/// The same run with the coordinates in `T` (the errors computed in `f64`).
fn run_in<T: Float>(p: usize, seed: u64) -> [f64; 3] {
    let mut rng = Rng::new(seed, 99);
    let mut x: Vec<T> = (0..N).map(|_| T::from_f64(-10.0 + rng.normal())).collect();
    let mut cfg = SvgdConfig::new(p, KernelChoice::Gaussian { h: 2.0 }, StepRule::adagrad(0.2));
    cfg.seed = seed;
    let mut ws = vec![T::from_f64(0.0); Svgd::<T>::workspace_len(N, 1, &cfg)];
    let mut idx = vec![0u32; N];
    let mut s = Svgd::new(&cfg, 1, &mut x, &mut ws, &mut idx).unwrap();
    let info = s.run(500, &mut Mixture).unwrap().last.unwrap();
    assert_eq!(info.bandwidth, 2.0);
    let xs: Vec<f64> = s.particles().iter().map(|v| v.to_f64()).collect();
    let avg = |f: &dyn Fn(f64) -> f64| xs.iter().map(|&v| f(v)).sum::<f64>() / N as f64;
    let e = exact();
    [
        avg(&|v| v) - e[0],
        avg(&|v| v * v) - e[1],
        avg(&|v| (2.0 * v).cos()) - e[2],
    ]
}

/// Per test function: (mean error, MSE) over the K runs.
fn stats(p: usize) -> [(f64, f64); 3] {
    stats_of(&|s| run(p, s))
}

fn stats_of(run: &dyn Fn(u64) -> [f64; 3]) -> [(f64, f64); 3] {
    let errs: Vec<[f64; 3]> = (1000..1000 + K).map(run).collect();
    let mut out = [(0.0, 0.0); 3];
    for (f, o) in out.iter_mut().enumerate() {
        o.0 = errs.iter().map(|e| e[f]).sum::<f64>() / K as f64;
        o.1 = errs.iter().map(|e| e[f] * e[f]).sum::<f64>() / K as f64;
    }
    out
}

fn assert_within(p: usize, tol: [f64; 3]) {
    check_within(p, stats(p), tol);
}

fn check_within(p: usize, st: [(f64, f64); 3], tol: [f64; 3]) {
    for (f, name) in ["x", "x²", "cos 2x"].iter().enumerate() {
        assert!(
            st[f].0.abs() <= tol[f],
            "p={p} {name}: error {} > {}",
            st[f].0,
            tol[f]
        );
    }
}

#[test]
fn rbm_svgd_p8_moments() {
    assert_within(8, [0.20, 0.39, 0.10]);
}

#[test]
fn svgd_moments() {
    assert_within(N, [0.39, 0.55, 0.038]);
}

/// The same tolerances in `f32` (its rounding, ~10⁻⁷ relative per operation, is far below
/// them): the single-precision build, which the firmware runs, is checked against the exact
/// expectations too, not only against the f32 core bit for bit.
#[test]
fn f32_moments() {
    check_within(8, stats_of(&|s| run_in::<f32>(8, s)), [0.20, 0.39, 0.10]);
    check_within(N, stats_of(&|s| run_in::<f32>(N, s)), [0.39, 0.55, 0.038]);
}

#[test]
fn p2_worse_than_p32() {
    let a = stats(2);
    let b = stats(32);
    assert!(a[1].1 > b[1].1, "x²: MSE p=2 {} vs p=32 {}", a[1].1, b[1].1);
    assert!(
        a[2].1 > b[2].1,
        "cos 2x: MSE p=2 {} vs p=32 {}",
        a[2].1,
        b[2].1
    );
    let total = |s: &[(f64, f64); 3]| s.iter().map(|v| v.1).sum::<f64>();
    assert!(
        total(&a) > total(&b),
        "total MSE p=2 {} vs p=32 {}",
        total(&a),
        total(&b)
    );
}
