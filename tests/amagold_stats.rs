//! AMAGOLD against exact truth: the double well (quadrature), the HMC limit (closed form), a
//! correlated Gaussian (closed form). Tolerances are multiples of Monte Carlo standard errors
//! estimated by batch means; seeds are fixed, so the outcomes are deterministic.

mod common;
use common::{batch_stats, double_well_truth, z_scores, DoubleWell, Gaussian};
use sgsample::{Amagold, AmagoldConfig, Float, Gradient, Outcome, Potential, Stop, Variant};

#[test]
fn quadrature_reproduces_the_published_truth() {
    let (m, v, p) = double_well_truth();
    assert!((m + 2.148).abs() < 5e-4, "{m}");
    assert!((v - 2.862).abs() < 5e-4, "{v}");
    assert!((p - 0.1288).abs() < 5e-5, "{p}");
}

struct Chain {
    samples: Vec<f64>,
    accept_rate: f64,
}

fn run_double_well(eps: f64, variant: Variant, n: usize, seed: u64) -> Chain {
    let cfg = AmagoldConfig {
        variant,
        seed,
        ..AmagoldConfig::new(eps)
    };
    double_well_chain::<f64>(&cfg, n)
}

/// `n` samples of the double well (gradient noise 1) from 0 with coordinates in `T`.
fn double_well_chain<T: Float>(cfg: &AmagoldConfig, n: usize) -> Chain {
    let mut model = DoubleWell { noise: 1.0 };
    let mut ws = [T::from_f64(0.0); 6];
    let mut chain = Amagold::<T>::new(cfg, &[T::from_f64(0.0)], &mut ws, &mut model).unwrap();
    let mut samples = vec![T::from_f64(0.0); n];
    let s = chain.run(&mut model, &mut samples).unwrap();
    Chain {
        samples: samples.iter().map(|v| v.to_f64()).collect(),
        accept_rate: s.accepted as f64 / n as f64,
    }
}

/// Mean, variance and P(θ > 0) within 3 batch-means standard errors of the quadrature truth.
fn assert_exact(c: &Chain, what: &str) {
    let z = z_scores(&c.samples);
    assert!(
        z.iter().all(|z| z.abs() < 3.0),
        "{what}: z-scores (mean, var, P>0) = {z:?}"
    );
}

#[test]
fn double_well_both_variants_are_exact() {
    for &variant in &[Variant::Reversible, Variant::NonReversible] {
        let c = run_double_well(0.25, variant, 400_000, 7);
        assert_exact(&c, &format!("{variant:?}"));
        // The published acceptance at ε = 0.25 is ≈ 0.724; its MC error here is ≈ 0.002.
        assert!(
            (c.accept_rate - 0.724).abs() < 0.01,
            "{variant:?}: acceptance {}",
            c.accept_rate
        );
    }
}

/// The same exactness with a momentum scale σ ≠ 1 (in both variants): the momentum must be
/// drawn as N(0, σ²), the scale the dynamics and ρ assume.
#[test]
fn double_well_exact_with_momentum_sd_2() {
    for &variant in &[Variant::Reversible, Variant::NonReversible] {
        let cfg = AmagoldConfig {
            momentum_sd: 2.0,
            variant,
            seed: 8,
            ..AmagoldConfig::new(0.5)
        };
        assert_exact(
            &double_well_chain::<f64>(&cfg, 400_000),
            &format!("{variant:?}, σ = 2"),
        );
    }
}

/// The chain in `f32` (the firmware's precision) is exact too: its rounding, ~10⁻⁷ relative per
/// operation, is far below the Monte Carlo error of 400 000 samples.
#[test]
fn double_well_exact_in_f32() {
    let cfg = AmagoldConfig {
        seed: 9,
        ..AmagoldConfig::new(0.25)
    };
    assert_exact(&double_well_chain::<f32>(&cfg, 400_000), "f32");
}

#[test]
fn smaller_steps_accept_more() {
    let a25 = run_double_well(0.25, Variant::Reversible, 50_000, 1).accept_rate;
    let a15 = run_double_well(0.15, Variant::Reversible, 50_000, 1).accept_rate;
    let a05 = run_double_well(0.05, Variant::Reversible, 50_000, 1).accept_rate;
    assert!(a05 > a15 && a15 > a25, "{a05} {a15} {a25}");
    assert!((a15 - 0.83).abs() < 0.02, "ε = 0.15: {a15}");
    assert!((a05 - 0.95).abs() < 0.02, "ε = 0.05: {a05}");
}

/// ½|r|²/σ².
fn kinetic(r: &[f64], sigma: f64) -> f64 {
    0.5 * r.iter().map(|x| x * x).sum::<f64>() / (sigma * sigma)
}

fn ar1_gaussian(d: usize, phi: f64, noise: f64) -> (Gaussian, Vec<f64>) {
    // Σ_ij = φ^|i−j|; its inverse is tridiagonal (closed form).
    let mut p = vec![0.0; d * d];
    let c = 1.0 / (1.0 - phi * phi);
    for i in 0..d {
        p[i * d + i] = if i == 0 || i == d - 1 {
            c
        } else {
            c * (1.0 + phi * phi)
        };
        if i + 1 < d {
            p[i * d + i + 1] = -c * phi;
            p[(i + 1) * d + i] = -c * phi;
        }
    }
    let sigma = (0..d * d)
        .map(|k| phi.powi((k / d).abs_diff(k % d) as i32))
        .collect();
    let mean = (0..d).map(|i| 0.3 * i as f64 - 1.0).collect();
    (
        Gaussian {
            mean,
            precision: p,
            noise,
        },
        sigma,
    )
}

#[test]
fn hmc_limit_rho_is_the_kinetic_energy_change() {
    // Exact gradient and β = 0: AMAGOLD is HMC, ρ = K(r₀) − K(r_T) to round-off and
    // log a = −ΔH. The non-reversible variant exposes r₀ (the momentum before the step) and r_T
    // (the momentum after an accepted step).
    let (mut model, _) = ar1_gaussian(3, 0.5, 0.0);
    let sigma = 1.3;
    let mut cfg = AmagoldConfig::new(0.3);
    cfg.friction = 0.0;
    cfg.momentum_sd = sigma;
    cfg.variant = Variant::NonReversible;
    let theta0 = [-1.0, -0.7, -0.4];
    let mut ws = [0.0; 18];
    let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut model).unwrap();
    let mut checked = 0;
    for _ in 0..500 {
        let r0 = chain.momentum().to_vec();
        let u0 = chain.energy();
        let info = chain.step(&mut model).unwrap();
        if !info.accepted {
            continue;
        }
        let rt = chain.momentum().to_vec();
        let dk = kinetic(&r0, sigma) - kinetic(&rt, sigma);
        let scale = kinetic(&r0, sigma) + kinetic(&rt, sigma) + 1.0;
        assert!(
            (info.rho - dk).abs() < 1e-12 * scale,
            "ρ = {} vs K(r₀) − K(r_T) = {dk}",
            info.rho
        );
        let neg_dh = (u0 - chain.energy()) + dk;
        assert!(
            (info.log_accept - neg_dh).abs() < 1e-12 * (scale + u0.abs()),
            "log a = {} vs −ΔH = {neg_dh}",
            info.log_accept
        );
        checked += 1;
    }
    assert!(checked > 300, "only {checked} accepted steps");
}

#[test]
fn correlated_gaussian_d10_with_noisy_gradients() {
    let d = 10;
    let (mut model, sigma) = ar1_gaussian(d, 0.6, 1.0);
    let mean = model.mean.clone();
    let cfg = AmagoldConfig {
        seed: 2024,
        ..AmagoldConfig::new(0.1)
    };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len(d)];
    let mut chain = Amagold::new(&cfg, &mean, &mut ws, &mut model).unwrap();
    let n = 100_000;
    let mut out = vec![0.0; n * d];
    let s = chain.run(&mut model, &mut out).unwrap();
    assert!(
        s.accepted as f64 / n as f64 > 0.5,
        "acceptance {}",
        s.accepted
    );
    let mut worst: f64 = 0.0;
    for i in 0..d {
        let xi: Vec<f64> = (0..n).map(|k| out[k * d + i]).collect();
        let (m, _, se) = batch_stats(&xi, 100);
        worst = worst.max(((m - mean[i]) / se).abs());
        for j in i..d {
            // Covariance about the true mean: E[(xᵢ−mᵢ)(xⱼ−mⱼ)] = Σᵢⱼ.
            let prod: Vec<f64> = (0..n)
                .map(|k| (out[k * d + i] - mean[i]) * (out[k * d + j] - mean[j]))
                .collect();
            let (c, _, se) = batch_stats(&prod, 100);
            worst = worst.max(((c - sigma[i * d + j]) / se).abs());
        }
    }
    // 65 statistics: 4 standard errors keeps the family-wise false alarm below 0.5 %.
    assert!(
        worst < 4.0,
        "worst |z| over means and covariances = {worst}"
    );
}

/// Counts callback calls, to pin the number of gradients per outer iteration.
struct Counting {
    inner: DoubleWell,
    gradients: usize,
    energies: usize,
}

impl Gradient<f64> for Counting {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.gradients += 1;
        self.inner.gradient(x, seed, g)
    }
}

impl Potential<f64> for Counting {
    fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        self.energies += 1;
        self.inner.energy(x)
    }
}

#[test]
fn exactly_t_gradients_and_one_energy_per_iteration() {
    for &t in &[1u32, 2, 10, 17] {
        let mut m = Counting {
            inner: DoubleWell { noise: 1.0 },
            gradients: 0,
            energies: 0,
        };
        let cfg = AmagoldConfig {
            steps: t,
            ..AmagoldConfig::new(0.2)
        };
        let mut ws = [0.0; 6];
        let mut chain = Amagold::new(&cfg, &[0.5], &mut ws, &mut m).unwrap();
        assert_eq!(m.energies, 1, "U(θ₀) once at start");
        for k in 1..=20 {
            chain.step(&mut m).unwrap();
            assert_eq!(m.gradients, k * t as usize, "T = {t}");
            assert_eq!(
                m.energies,
                1 + k,
                "U(θ) is cached, U(θ') once per iteration"
            );
        }
    }
}

#[test]
fn rejection_negates_the_momentum_in_the_non_reversible_variant() {
    let mut model = DoubleWell { noise: 1.0 };
    let cfg = AmagoldConfig {
        variant: Variant::NonReversible,
        ..AmagoldConfig::new(0.5)
    };
    let mut ws = [0.0; 6];
    let mut chain = Amagold::new(&cfg, &[0.5], &mut ws, &mut model).unwrap();
    let (mut rejected, mut accepted) = (0, 0);
    for _ in 0..200 {
        let r0 = chain.momentum()[0];
        let theta = chain.position()[0];
        let info = chain.step(&mut model).unwrap();
        if info.accepted {
            accepted += 1;
            assert_ne!(chain.momentum()[0], -r0);
        } else {
            rejected += 1;
            assert_eq!(chain.momentum()[0], -r0, "flip on {:?}", info.outcome);
            assert_eq!(chain.position()[0], theta);
        }
    }
    assert!(rejected > 20 && accepted > 20, "{rejected} {accepted}");
}

#[test]
fn warmup_adapts_towards_the_target_and_labels_its_samples() {
    for &delta in &[0.6, 0.9] {
        let mut model = DoubleWell { noise: 1.0 };
        let cfg = AmagoldConfig {
            warmup: 2000,
            target_accept: delta,
            seed: 5,
            ..AmagoldConfig::new(0.25)
        };
        let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, 1)];
        let mut chain = Amagold::new(&cfg, &[0.0], &mut ws, &mut model).unwrap();
        for k in 1..=2000 {
            let info = chain.step(&mut model).unwrap();
            assert!(info.warmup, "iteration {k} belongs to the warm-up");
        }
        assert!(!chain.in_warmup());
        let eps = chain.step_size();
        let n = 40_000;
        let mut acc = 0;
        for _ in 0..n {
            let info = chain.step(&mut model).unwrap();
            assert!(!info.warmup);
            assert_eq!(info.step_size, eps, "ε is fixed after the warm-up");
            acc += info.accepted as usize;
        }
        let rate = acc as f64 / n as f64;
        assert!(
            (rate - delta).abs() < 0.05,
            "δ = {delta}: acceptance {rate}, ε = {eps}"
        );
    }
}

#[test]
fn divergences_are_rejections_counted_separately() {
    // An energy that overflows to +∞ away from the origin.
    let mut model = sgsample::FnPotential::new(
        |t: &[f64]| {
            Ok(if t[0].abs() > 1.5 {
                f64::INFINITY
            } else {
                0.5 * t[0] * t[0]
            })
        },
        |t: &[f64], _s: u64, g: &mut [f64]| {
            g[0] = t[0];
            Ok(())
        },
    );
    let cfg = AmagoldConfig::new(0.5);
    let mut ws = [0.0; 6];
    let mut chain = Amagold::new(&cfg, &[0.0], &mut ws, &mut model).unwrap();
    let mut div = 0;
    for _ in 0..300 {
        let theta = chain.position()[0];
        let info = chain.step(&mut model).unwrap();
        if info.outcome == Outcome::Divergent {
            div += 1;
            assert!(!info.accepted);
            assert_eq!(chain.position()[0], theta);
            assert_eq!(info.divergences, div);
        }
        assert!(chain.position()[0].abs() <= 1.5);
    }
    assert!(div > 0);
}
