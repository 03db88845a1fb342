//! SGHMC against exact truth: on the double well (quadrature) it is detectably biased, which is
//! what AMAGOLD's correction removes (tests/amagold_stats.rs). Tolerances are multiples of Monte
//! Carlo standard errors estimated by batch means; seeds are fixed, so the outcomes are
//! deterministic.

mod common;
use common::{batch_stats, z_scores, DoubleWell};
use sgsample::{Gradient, Mass, Rng, Sghmc, SghmcConfig, Stop};

#[test]
fn sghmc_is_detectably_biased_at_eps_025() {
    let mut model = DoubleWell { noise: 1.0 };
    let mut cfg = SghmcConfig::new(0.25);
    cfg.seed = 7;
    let mut ws = [0.0; 5];
    let mut chain = Sghmc::new(&cfg, &[0.0], &mut ws).unwrap();
    let mut samples = vec![0.0; 400_000];
    chain.run(&mut model, &mut samples).unwrap();
    let z = z_scores(&samples);
    // With the position-first order of docs/algorithms.md §1.1 this chain gives mean ≈ −1.81 and
    // variance ≈ 3.81 (truth −2.148, 2.862): both more than 15 standard errors off. (The
    // published −1.91 / 3.45 come from the authors' momentum-first order; it is biased too.)
    assert!(z[0] > 6.0 && z[1] > 6.0, "SGHMC z-scores {z:?}");
}

/// ½(θ − m)² with N(0, s²) gradient noise drawn from the minibatch seed.
struct Shifted {
    m: f64,
    s: f64,
}

impl Gradient<f64> for Shifted {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let mut r = Rng::new(seed, 77);
        g[0] = (x[0] - self.m) + self.s * r.normal();
        Ok(())
    }
}

/// The stationary variance of θ for a Gaussian target of precision λ, from the linear-Gaussian
/// recursion of one inner step (docs/algorithms.md §1.1): `(θ, r) ← A·(θ, r) + (0, w)` with
/// `A = [[1, a], [−ελ, 1 − c − ε·a·λ]]` and `Var w = q`; SGHMC has a = ε/σ², c = 2εβ,
/// q = ε²s² + 4εβσ² and λ = 1 (`Law::sghmc`), other values give the laws of plausible bugs and
/// of preconditioned coordinates (`Law::preconditioned`). Persistent momentum: the θ-entry of
/// the fixed point of `P = A·P·Aᵀ + W`. Momentum resampled as N(0, ρ²) at each outer
/// iteration: each stores the θ of `B·(θ, r) + noise` with `B = A^T`, so
/// `v = B₀₀²·v + B₀₁²·ρ² + N₀₀`, N the noise covariance accumulated over the T steps.
#[derive(Clone, Copy, Debug)]
struct Law {
    eps: f64,
    a: f64,
    c: f64,
    q: f64,
    /// The target's precision in the chain's coordinates.
    lam: f64,
    steps: u32,
    /// The resampled momentum's standard deviation, or `None` for a persistent momentum.
    resample: Option<f64>,
}

type M2 = [[f64; 2]; 2];

fn mul(x: M2, y: M2) -> M2 {
    let mut z = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            z[i][j] = x[i][0] * y[0][j] + x[i][1] * y[1][j];
        }
    }
    z
}

/// `x·p·xᵀ + w`.
fn sandwich(x: M2, p: M2, w: M2) -> M2 {
    let xt = [[x[0][0], x[1][0]], [x[0][1], x[1][1]]];
    let y = mul(mul(x, p), xt);
    [
        [y[0][0] + w[0][0], y[0][1] + w[0][1]],
        [y[1][0] + w[1][0], y[1][1] + w[1][1]],
    ]
}

impl Law {
    fn sghmc(cfg: &SghmcConfig, s: f64) -> Law {
        let (eps, beta, sigma) = (cfg.step_size, cfg.friction, cfg.momentum_sd);
        Law {
            eps,
            a: eps / (sigma * sigma),
            c: 2.0 * eps * beta,
            q: eps * eps * s * s + 4.0 * eps * beta * sigma * sigma,
            lam: 1.0,
            steps: cfg.steps,
            resample: cfg.resample_momentum.then_some(sigma),
        }
    }

    /// One coordinate of a preconditioned chain (inverse mass k, factor m = 1/√k) on a target
    /// of variance v with gradient noise of sd `s_theta`, in the coordinates φ = θ/√k, p = r·√k
    /// of docs/algorithms.md §1.5, where the chain is the unit SGHMC: target precision k/v,
    /// gradient noise k·s_theta², momentum N(0, σ²). Var θ = k·Var φ (`var_scale`).
    fn preconditioned(cfg: &SghmcConfig, s_theta: f64, k: f64, v: f64) -> Law {
        let mut law = Law::sghmc(cfg, (k * s_theta * s_theta).sqrt());
        law.lam = k / v;
        law
    }

    /// The matrix of one inner step.
    fn a_matrix(&self) -> M2 {
        let (eps, a, lam) = (self.eps, self.a, self.lam);
        [[1.0, a], [-eps * lam, 1.0 - self.c - eps * a * lam]]
    }

    /// Whether the recursion has a stationary law (spectral radius of A below 1); a law without
    /// one is a chain that diverges.
    fn stable(&self) -> bool {
        if self.resample.is_some() {
            // Each outer iteration maps θ by B₀₀ (the momentum is redrawn).
            let mut b = [[1.0, 0.0], [0.0, 1.0]];
            for _ in 0..self.steps {
                b = mul(self.a_matrix(), b);
            }
            return b[0][0].abs() < 1.0;
        }
        let am = self.a_matrix();
        let tr = am[0][0] + am[1][1];
        let det = am[0][0] * am[1][1] - am[0][1] * am[1][0];
        let disc = tr * tr / 4.0 - det;
        let radius = if disc >= 0.0 {
            (tr / 2.0).abs() + disc.sqrt()
        } else {
            det.sqrt()
        };
        radius < 1.0
    }

    fn var_theta(&self) -> f64 {
        let am = self.a_matrix();
        let w: M2 = [[0.0, 0.0], [0.0, self.q]];
        match self.resample {
            None => {
                // The spectral radius of A is √(1 − c) < 1: the iteration converges.
                let mut p = [[0.0; 2]; 2];
                for _ in 0..100_000 {
                    p = sandwich(am, p, w);
                }
                p[0][0]
            }
            Some(rho) => {
                let (mut b, mut n) = ([[1.0, 0.0], [0.0, 1.0]], [[0.0; 2]; 2]);
                for _ in 0..self.steps {
                    b = mul(am, b);
                    n = sandwich(am, n, w);
                }
                (b[0][1] * b[0][1] * rho * rho + n[0][0]) / (1.0 - b[0][0] * b[0][0])
            }
        }
    }
}

fn run_shifted(cfg: &SghmcConfig, model: &mut Shifted, n: usize) -> Vec<f64> {
    let mut ws = [0.0; 5];
    let mut chain = Sghmc::new(cfg, &[model.m], &mut ws).unwrap();
    let mut burn = vec![0.0; 2000];
    chain.run(model, &mut burn).unwrap();
    let mut samples = vec![0.0; n];
    let sum = chain.run(model, &mut samples).unwrap();
    assert_eq!((sum.iterations, sum.divergences), (n as u64, 0));
    samples
}

/// SGHMC is biased, but on a Gaussian target with Gaussian gradient noise its stationary law is
/// known exactly (`Law`), with and without momentum resampling. The sample mean and the mean of
/// (θ − m)² must match it within 4.5 batch-means standard errors, and the laws of the plausible
/// bugs (friction noise of variance 2εβσ², friction εβ instead of 2εβ, a resampled momentum
/// N(0, 1) whatever σ) are at least 10 standard errors away, so that the test would fail for
/// them. (A wrong sign diverges; θ moved twice per outer iteration has another law too, and
/// `scripts/mutants/run.py` checks that this test fails for each.)
#[test]
fn stationary_law_on_a_gaussian_target_is_the_exact_one() {
    let (m, n) = (1.5, 400_000);
    // The closed form of docs/algorithms.md §1.1 agrees with the recursion's fixed point.
    for &(eps, beta, sigma, s) in &[(0.1, 0.25, 1.5, 1.0), (0.3, 0.5, 0.7, 2.0)] {
        let closed = (1.0 + eps * s * s / (4.0 * beta * sigma * sigma)) * (1.0 - eps * beta)
            / (1.0 - eps * beta - eps * eps / (4.0 * sigma * sigma));
        let cfg = SghmcConfig {
            friction: beta,
            momentum_sd: sigma,
            resample_momentum: false,
            ..SghmcConfig::new(eps)
        };
        let fixed = Law::sghmc(&cfg, s).var_theta();
        assert!(
            (closed - fixed).abs() < 1e-12 * closed,
            "{closed} vs {fixed}"
        );
    }
    for (k, &(eps, beta, sigma, s, steps, resample)) in [
        (0.3, 0.25, 1.5, 1.0, 3, true),
        (0.3, 0.25, 1.5, 1.0, 3, false),
        (0.5, 0.5, 0.7, 2.0, 4, false),
    ]
    .iter()
    .enumerate()
    {
        let cfg = SghmcConfig {
            friction: beta,
            momentum_sd: sigma,
            steps,
            resample_momentum: resample,
            seed: 11 + k as u64,
            ..SghmcConfig::new(eps)
        };
        let samples = run_shifted(&cfg, &mut Shifted { m, s }, n);
        let law = Law::sghmc(&cfg, s);
        let v = law.var_theta();
        let (mean, _, se_mean) = batch_stats(&samples, 100);
        let sq: Vec<f64> = samples.iter().map(|x| (x - m) * (x - m)).collect();
        let (msq, _, se_sq) = batch_stats(&sq, 100);
        let (zm, zv) = ((mean - m) / se_mean, (msq - v) / se_sq);
        assert!(
            zm.abs() < 4.5 && zv.abs() < 4.5,
            "{cfg:?}: mean {mean:.4} (z {zm:.1}), E(θ − m)² {msq:.4} (truth {v:.4}, z {zv:.1})"
        );
        let mut wrong = vec![
            Law {
                q: eps * eps * s * s + 2.0 * eps * beta * sigma * sigma,
                ..law
            },
            Law {
                c: eps * beta,
                ..law
            },
        ];
        if resample {
            wrong.push(Law {
                resample: Some(1.0),
                ..law
            });
        }
        for w in wrong {
            let wv = w.var_theta();
            assert!(
                (wv - v).abs() > 10.0 * se_sq,
                "{w:?}: {wv} vs {v} (se {se_sq})"
            );
        }
    }
}

/// Σ ½(θᵢ − μᵢ)²/vᵢ with posterior sds 0.01 and 10, and gradient noise of sd s/√vᵢ drawn from
/// the minibatch seed (noise sd s in the standardised coordinates θᵢ/√vᵢ, as a minibatch's
/// noise grows with the curvature).
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

/// `n` rows of a preconditioned chain with inverse mass `k`, set on the chain (which starts
/// with the identity) before a burn-in of 2000 iterations.
fn run_scaled(cfg: &SghmcConfig, k: [f64; 2], s: f64, n: usize) -> Vec<f64> {
    let mut ws = vec![0.0; Sghmc::<f64>::workspace_len_for(cfg, 2)];
    let mut chain = Sghmc::new(cfg, &MU, &mut ws).unwrap();
    chain.set_inverse_mass(&k).unwrap();
    let mut model = Scaled { s };
    let mut burn = vec![0.0; 2 * 2000];
    chain.run(&mut model, &mut burn).unwrap();
    let mut rows = vec![0.0; 2 * n];
    let sum = chain.run(&mut model, &mut rows).unwrap();
    assert_eq!((sum.iterations, sum.divergences), (n as u64, 0));
    rows
}

/// The fixed diagonal preconditioner (docs/algorithms.md §1.1, §1.5) on a target whose scales
/// differ by 10³. In φ = θ/√k, p = r·√k the chain is the unit SGHMC on a target of precision
/// k/v, so each coordinate's stationary law is known exactly (`Law::preconditioned`): with
/// k = v it is the unit law of §1.1 in φ-units (Var θᵢ = vᵢ times the unit Var θ), with other
/// k the unit law at the coordinate's effective step ε·√(kᵢ/vᵢ) and friction β·√(vᵢ/kᵢ) (εβ
/// unchanged), times vᵢ. Sample means and mean squared deviations must match within 4.5
/// batch-means standard errors, and the laws of the plausible bugs are at least 10 standard
/// errors away or have no stationary law (the chain diverges, which the run refuses): the noise
/// scaled by mᵢ² = 1/kᵢ (k instead of √k), the noise not scaled (k in the position step only),
/// the position step without kᵢ (k in the noise only), a resampled momentum N(0, σ²) without
/// mᵢ. `scripts/mutants/chains.py` checks that this test fails for each of them.
#[test]
fn preconditioned_stationary_law_on_a_badly_scaled_gaussian() {
    /// ε, friction, σ, a scale, T, resampling, the inverse mass.
    type Case = (f64, f64, f64, f64, u32, bool, [f64; 2]);
    let n = 400_000;
    let cases: [Case; 4] = [
        (0.3, 0.25, 1.5, 1.0, 3, false, V),
        (0.3, 0.25, 1.5, 1.0, 3, true, V),
        (0.2, 0.5, 1.0, 2.0, 4, false, [4e-4, 25.0]),
        (0.25, 0.5, 0.8, 1.0, 5, true, [2.5e-5, 400.0]),
    ];
    for (case, &(eps, beta, sigma, s, steps, resample, k)) in cases.iter().enumerate() {
        let cfg = SghmcConfig {
            friction: beta,
            momentum_sd: sigma,
            steps,
            resample_momentum: resample,
            mass: Mass::Diagonal,
            seed: 31 + case as u64,
            ..SghmcConfig::new(eps)
        };
        let rows = run_scaled(&cfg, k, s, n);
        for c in 0..2 {
            let (kc, vc, mc) = (k[c], V[c], MU[c]);
            let s_theta = s / vc.sqrt();
            let law = Law::preconditioned(&cfg, s_theta, kc, vc);
            let v = kc * law.var_theta();
            // The same law as the unit chain's at the effective step, in units of vᵢ.
            let lam = kc / vc;
            let eff = SghmcConfig {
                friction: beta / lam.sqrt(),
                ..SghmcConfig::new(eps * lam.sqrt())
            };
            let eff = Law::sghmc(
                &SghmcConfig {
                    momentum_sd: sigma,
                    steps,
                    resample_momentum: resample,
                    ..eff
                },
                s,
            );
            let unit = vc * eff.var_theta();
            assert!((unit - v).abs() < 1e-9 * v, "case {case}: {unit} vs {v}");
            if kc == vc {
                let plain = Law::sghmc(&cfg, s).var_theta();
                assert!((vc * plain - v).abs() < 1e-9 * v, "case {case}: k = v");
            }

            let xs: Vec<f64> = rows.iter().skip(c).step_by(2).copied().collect();
            let (mean, _, se_mean) = batch_stats(&xs, 100);
            let sq: Vec<f64> = xs.iter().map(|x| (x - mc) * (x - mc)).collect();
            let (msq, _, se_sq) = batch_stats(&sq, 100);
            let (zm, zv) = ((mean - mc) / se_mean, (msq - v) / se_sq);
            assert!(
                zm.abs() < 4.5 && zv.abs() < 4.5,
                "case {case}, coordinate {c} (k {kc}, v {vc}): mean {mean:.6} (z {zm:.1}), \
                 E(θ − μ)² {msq:.6e} (truth {v:.6e}, z {zv:.1})"
            );
            let sd2 = 4.0 * eps * beta * sigma * sigma;
            let grad2 = eps * eps * kc * s_theta * s_theta;
            let noise = |q| Law { q, ..law };
            let mut wrong = vec![
                ("noise sd·m²", noise(grad2 + sd2 / kc)),
                ("noise without m", noise(grad2 + sd2 * kc)),
                (
                    "position without k",
                    Law {
                        a: law.a / kc,
                        ..law
                    },
                ),
            ];
            if resample {
                let w = Law {
                    resample: Some(sigma * kc.sqrt()),
                    ..law
                };
                wrong.push(("momentum without m", w));
            }
            for (what, w) in wrong {
                if !w.stable() {
                    continue;
                }
                let wv = kc * w.var_theta();
                assert!(
                    (wv - v).abs() > 10.0 * se_sq,
                    "case {case}, coordinate {c}, {what}: {wv} vs {v} (se {se_sq})"
                );
            }
        }
    }
}
