//! SGLD against its exact stationary law (docs/algorithms.md §1.4): for U(θ) = ½|θ − m|² with
//! gradient noise N(0, s²) per coordinate, the chain is an AR(1) process with coefficient
//! φ = 1 − ε/2, mean m and variance (1 + ε·s²/4)/(1 − ε/4) per coordinate. Tolerances are
//! derived from the AR(1) standard errors, and the test must fail for the plausible bugs (a
//! drift of ε instead of ε/2, noise of variance 2ε, gradient noise dropped or doubled, a wrong
//! sign, every update a sample instead of every T-th). With the fixed diagonal preconditioner
//! D = diag(k), each coordinate is the same AR(1) process at its effective step ε·kᵢ/vᵢ, on a
//! target whose scales differ by 10³ (`preconditioned_…`).

use sgsample::{Gradient, Mass, Outcome, Rng, Sgld, SgldConfig, Stop};

/// ½|θ − m|² with N(0, s²) gradient noise drawn from the minibatch seed; counts gradient calls.
struct Shifted {
    m: [f64; 2],
    s: f64,
    calls: u64,
}

impl Gradient<f64> for Shifted {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.calls += 1;
        let mut r = Rng::new(seed, 77);
        for ((gi, xi), mi) in g.iter_mut().zip(x).zip(self.m) {
            *gi = (xi - mi) + self.s * r.normal();
        }
        Ok(())
    }
}

/// Mean and variance of every coordinate of `n` rows of 2 values.
fn moments(rows: &[f64]) -> [(f64, f64); 2] {
    let n = (rows.len() / 2) as f64;
    let mut out = [(0.0, 0.0); 2];
    for (c, o) in out.iter_mut().enumerate() {
        let mean = rows.iter().skip(c).step_by(2).sum::<f64>() / n;
        let var = rows
            .iter()
            .skip(c)
            .step_by(2)
            .map(|x| (x - mean).powi(2))
            .sum::<f64>()
            / n;
        *o = (mean, var);
    }
    out
}

fn check(eps: f64, s: f64, steps: u32, seed: u64) {
    let m = [1.0, -2.0];
    let n = 400_000usize;
    let cfg = SgldConfig {
        steps,
        seed,
        ..SgldConfig::new(eps)
    };
    let mut model = Shifted { m, s, calls: 0 };
    let mut ws = [0.0; 6];
    let mut chain = Sgld::new(&cfg, &m, &mut ws).unwrap();
    let mut burn = vec![0.0; 2 * 1000];
    chain.run(&mut model, &mut burn).unwrap();
    let mut rows = vec![0.0; 2 * n];
    model.calls = 0;
    let sum = chain.run(&mut model, &mut rows).unwrap();
    assert_eq!(
        (sum.iterations, sum.accepted, sum.divergences),
        (n as u64, n as u64, 0)
    );
    assert_eq!(
        model.calls,
        n as u64 * steps as u64,
        "T gradient calls per sample"
    );

    let v = (1.0 + eps * s * s / 4.0) / (1.0 - eps / 4.0);
    // Stored samples are every T-th step of the AR(1) process.
    let phi = (1.0 - eps / 2.0f64).powi(steps as i32);
    let se_mean = (v / n as f64 * (1.0 + phi) / (1.0 - phi)).sqrt();
    let se_var = (2.0 * v * v / n as f64 * (1.0 + phi * phi) / (1.0 - phi * phi)).sqrt();
    for (c, (mean, var)) in moments(&rows).into_iter().enumerate() {
        let (zm, zv) = ((mean - m[c]) / se_mean, (var - v) / se_var);
        assert!(
            zm.abs() < 4.5 && zv.abs() < 4.5,
            "ε {eps}, s {s}, T {steps}, coordinate {c}: mean {mean:.4} (truth {}, z {zm:.1}), \
             variance {var:.4} (truth {v:.4}, z {zv:.1})",
            m[c]
        );
    }
}

#[test]
fn stationary_mean_and_variance_match_the_ar1_law() {
    check(0.5, 0.0, 1, 1);
    check(0.5, 1.0, 1, 2);
    check(0.2, 2.0, 3, 3);
}

/// The checks above are sharp enough to tell the plausible bugs apart: each wrong law is many
/// standard errors from the right one at the sample size used.
#[test]
fn the_tolerance_separates_the_plausible_bugs() {
    let (eps, s, n) = (0.5f64, 1.0f64, 400_000f64);
    let right = (1.0 + eps * s * s / 4.0) / (1.0 - eps / 4.0);
    let phi = 1.0 - eps / 2.0;
    let se_var = (2.0 * right * right / n * (1.0 + phi * phi) / (1.0 - phi * phi)).sqrt();
    let wrong = [
        // drift ε·g instead of ε/2·g: φ = 1 − ε
        (eps + eps * eps * s * s) / (1.0 - (1.0 - eps).powi(2)),
        // noise variance 2ε
        (2.0 * eps + eps * eps * s * s / 4.0) / (1.0 - phi * phi),
        // gradient noise dropped
        1.0 / (1.0 - eps / 4.0),
    ];
    for w in wrong {
        assert!((w - right).abs() > 10.0 * se_var, "{w} vs {right}");
    }
}

/// A REJECT discards the iteration, a non-finite gradient discards it as a divergence; either
/// way the chain stays where it was and the generator moves on as documented.
#[test]
fn reject_and_nan_discard_the_iteration() {
    struct Faulty(u64);
    impl Gradient<f64> for Faulty {
        fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
            self.0 += 1;
            match self.0 {
                3 => return Err(Stop::Reject),
                5 => g[0] = f64::NAN,
                _ => g[0] = x[0],
            }
            Ok(())
        }
    }
    let mut ws = [0.0; 3];
    let mut chain = Sgld::new(&SgldConfig::new(0.1), &[0.5], &mut ws).unwrap();
    let mut m = Faulty(0);
    let mut outcomes = vec![];
    let mut last = chain.position()[0];
    for _ in 0..6 {
        let info = chain.step(&mut m).unwrap();
        if info.outcome != Outcome::Accepted {
            assert_eq!(
                chain.position()[0],
                last,
                "discarded iteration moved the chain"
            );
        }
        last = chain.position()[0];
        outcomes.push(info.outcome);
    }
    use Outcome::*;
    assert_eq!(
        outcomes,
        [
            Accepted,
            Accepted,
            OutOfDomain,
            Accepted,
            Divergent,
            Accepted
        ]
    );
    assert_eq!(chain.divergences(), 1);
    assert!(chain.position()[0].is_finite());
}

/// Σ ½(θᵢ − μᵢ)²/vᵢ with posterior sds 0.01 and 10, and gradient noise of sd s/√vᵢ from the
/// minibatch seed (noise sd s in the standardised coordinates (θᵢ − μᵢ)/√vᵢ).
struct Scaled {
    s: f64,
}

const MU: [f64; 2] = [1.0, -20.0];
const V: [f64; 2] = [1e-4, 100.0];

impl Gradient<f64> for Scaled {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let mut r = Rng::new(seed, 77);
        for i in 0..2 {
            g[i] = (x[i] - MU[i]) / V[i] + (self.s / V[i].sqrt()) * r.normal();
        }
        Ok(())
    }
}

/// One coordinate of a preconditioned SGLD update on the target above, written in θ − μ as the
/// AR(1) process `x' = α·x − (ε/2)·kd·ξ + √(ε·kn)·z` with `α = 1 − ε·kd/(2v)`, ξ of variance
/// s_θ² = s²/v: the right chain has kd = kn = k (docs/algorithms.md §1.4); the plausible bugs
/// put k in one place only, or k² in the noise.
#[derive(Clone, Copy, Debug)]
struct Ar1 {
    eps: f64,
    v: f64,
    s: f64,
    /// The factor of the drift.
    kd: f64,
    /// The factor of the noise variance.
    kn: f64,
}

impl Ar1 {
    fn alpha(&self) -> f64 {
        1.0 - self.eps * self.kd / (2.0 * self.v)
    }

    /// The stationary variance of θ, or `None` when there is none (|α| ≥ 1: the chain diverges).
    fn var(&self) -> Option<f64> {
        let a = self.alpha();
        let drift = self.eps * self.kd / 2.0;
        let noise = drift * drift * self.s * self.s / self.v + self.eps * self.kn;
        (a.abs() < 1.0).then(|| noise / (1.0 - a * a))
    }
}

/// The preconditioned chain on the badly scaled target: k = v gives every coordinate the unit
/// law of §1.4 in φ-units, Var θᵢ = vᵢ·(1 + ε·s²/4)/(1 − ε/4); other k the law at the effective
/// step hᵢ = ε·kᵢ/vᵢ, Var θᵢ = vᵢ·(1 + hᵢ·s²/4)/(1 − hᵢ/4), the AR coefficient 1 − hᵢ/2 per
/// update. Means and variances within 4.5 of the AR(1) standard errors; the plausible bugs
/// (k instead of √k in the noise, k in the noise only, k in the drift only) at least 10 of them
/// away, or without a stationary law (the chain diverges, which the run refuses).
fn check_preconditioned(eps: f64, s: f64, steps: u32, k: [f64; 2], seed: u64) {
    let n = 400_000usize;
    let cfg = SgldConfig {
        steps,
        seed,
        mass: Mass::Diagonal,
        ..SgldConfig::new(eps)
    };
    let mut ws = vec![0.0; Sgld::<f64>::workspace_len_for(&cfg, 2)];
    let mut chain = Sgld::new(&cfg, &MU, &mut ws).unwrap();
    chain.set_inverse_mass(&k).unwrap();
    let mut model = Scaled { s };
    let mut burn = vec![0.0; 2 * 2000];
    chain.run(&mut model, &mut burn).unwrap();
    let mut rows = vec![0.0; 2 * n];
    let sum = chain.run(&mut model, &mut rows).unwrap();
    assert_eq!((sum.iterations, sum.divergences), (n as u64, 0));

    for (c, (mean, var)) in moments(&rows).into_iter().enumerate() {
        let (kc, vc) = (k[c], V[c]);
        let right = Ar1 {
            eps,
            v: vc,
            s,
            kd: kc,
            kn: kc,
        };
        let v = right.var().expect("a stable case");
        let h = eps * kc / vc;
        let unit = vc * (1.0 + h * s * s / 4.0) / (1.0 - h / 4.0);
        assert!((unit - v).abs() < 1e-9 * v, "{unit} vs {v}");
        if kc == vc {
            let plain = (1.0 + eps * s * s / 4.0) / (1.0 - eps / 4.0);
            assert!((vc * plain - v).abs() < 1e-9 * v);
        }
        let phi = right.alpha().powi(steps as i32);
        let se_mean = (v / n as f64 * (1.0 + phi) / (1.0 - phi)).sqrt();
        let se_var = (2.0 * v * v / n as f64 * (1.0 + phi * phi) / (1.0 - phi * phi)).sqrt();
        let (zm, zv) = ((mean - MU[c]) / se_mean, (var - v) / se_var);
        assert!(
            zm.abs() < 4.5 && zv.abs() < 4.5,
            "ε {eps}, s {s}, T {steps}, k {kc}, coordinate {c}: mean {mean:.6} (truth {}, \
             z {zm:.1}), variance {var:.6e} (truth {v:.6e}, z {zv:.1})",
            MU[c]
        );
        let wrong = [
            (
                "noise k, not √k",
                Ar1 {
                    kn: kc * kc,
                    ..right
                },
            ),
            ("k in the drift only", Ar1 { kn: 1.0, ..right }),
            ("k in the noise only", Ar1 { kd: 1.0, ..right }),
        ];
        for (what, w) in wrong {
            if let Some(wv) = w.var() {
                assert!(
                    (wv - v).abs() > 10.0 * se_var,
                    "k {kc}, coordinate {c}, {what}: {wv} vs {v} (se {se_var})"
                );
            }
        }
    }
}

#[test]
fn preconditioned_stationary_law_on_a_badly_scaled_gaussian() {
    // k = v: the unit law in φ-units.
    check_preconditioned(0.5, 1.0, 1, V, 11);
    check_preconditioned(0.2, 2.0, 3, V, 12);
    // Other k: effective steps 1 and 0.125, then 0.5 and 3 (α = −1/2: an oscillating AR(1)).
    check_preconditioned(0.5, 1.0, 1, [2e-4, 25.0], 13);
    check_preconditioned(1.0, 0.5, 2, [5e-5, 300.0], 14);
}
