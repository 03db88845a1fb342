//! AMAGOLD with a fixed dense or diagonal mass matrix, and with jittered trajectory lengths,
//! against the exact moments of a correlated Gaussian (docs/algorithms.md §1.5–1.6). The chain
//! with any fixed mass matrix is the paper's exact chain in other coordinates: its draws must
//! have the target's means, variances and covariances, whatever the matrix (a matrix that is
//! not the target's covariance is used on purpose, so that a wrong product with L, Lᵀ or L⁻¹
//! cannot cancel). Tolerances: 4.5 Monte Carlo standard errors from the library's streaming
//! ESS; fixed seeds.

mod common;
use common::Gaussian;
use sgsample::stats::{ess, Series};
use sgsample::{Amagold, AmagoldConfig, Error, Float, Mass, Variant};

const D: usize = 4;
const SDS: [f64; D] = [1.0, 2.0, 0.5, 3.0];
const MEAN: [f64; D] = [1.0, -2.0, 0.5, 3.0];
const RHO: f64 = 0.8;

fn covariance() -> [[f64; D]; D] {
    let mut c = [[0.0; D]; D];
    for i in 0..D {
        for j in 0..D {
            c[i][j] = SDS[i] * SDS[j] * RHO.powi((i as i32 - j as i32).abs());
        }
    }
    c
}

fn invert(a: [[f64; D]; D]) -> [[f64; D]; D] {
    let mut m = a;
    let mut inv = [[0.0; D]; D];
    for (i, row) in inv.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for c in 0..D {
        let piv = m[c][c];
        for k in 0..D {
            m[c][k] /= piv;
            inv[c][k] /= piv;
        }
        for r in 0..D {
            if r != c {
                let f = m[r][c];
                for k in 0..D {
                    m[r][k] -= f * m[c][k];
                    inv[r][k] -= f * inv[c][k];
                }
            }
        }
    }
    inv
}

fn model(noise: f64) -> Gaussian {
    let p = invert(covariance());
    Gaussian {
        mean: MEAN.to_vec(),
        precision: p.iter().flatten().copied().collect(),
        noise,
    }
}

/// A dense inverse mass that is deliberately not the covariance: half of it plus a
/// differently correlated part.
fn dense_k() -> Vec<f64> {
    let c = covariance();
    let mut k = vec![0.0; D * D];
    for i in 0..D {
        for j in 0..D {
            let extra = if i == j {
                0.3
            } else {
                0.1 * (-0.5f64).powi((i + j) as i32)
            };
            k[i * D + j] = 0.5 * c[i][j] + extra;
        }
    }
    k
}

/// Draws of `chains` chains with the given mass and per-iteration options; returns per
/// coordinate the streaming series of θ and of θ₀·θ₁ (the covariance check).
fn run<T: Float>(
    mass: Mass,
    variant: Variant,
    jitter: bool,
    iters: usize,
    chains: u64,
) -> (Vec<Vec<Series<128>>>, Vec<u32>) {
    let mut out = vec![];
    let mut steps_seen = vec![];
    for c in 0..chains {
        let cfg = AmagoldConfig {
            variant,
            mass,
            jitter_steps: jitter,
            seed: 31,
            stream: c,
            ..AmagoldConfig::new(0.3)
        };
        let mut m = model(0.5);
        let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(&cfg, D)];
        let theta0: Vec<T> = MEAN.iter().map(|&x| T::from_f64(x)).collect();
        let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut m).unwrap();
        match mass {
            Mass::Dense => {
                let k: Vec<T> = dense_k().iter().map(|&x| T::from_f64(x)).collect();
                chain.set_inverse_mass_dense(&k).unwrap();
            }
            Mass::Diagonal => {
                let k: Vec<T> = [0.4, 3.0, 0.1, 6.0]
                    .iter()
                    .map(|&x| T::from_f64(x))
                    .collect();
                chain.set_inverse_mass(&k).unwrap();
            }
            Mass::Unit => {}
        }
        let mut s: Vec<Series<128>> = (0..=D).map(|_| Series::new()).collect();
        for _ in 0..iters {
            let info = chain.step(&mut m).unwrap();
            steps_seen.push(info.steps);
            let x = chain.position();
            for (j, sj) in s.iter_mut().enumerate().take(D) {
                sj.push(x[j]);
            }
            s[D].push((x[0].to_f64() - MEAN[0]) * (x[1].to_f64() - MEAN[1]));
        }
        out.push(s);
    }
    (out, steps_seen)
}

/// Pooled mean of series `j` and its standard error from the pooled ESS.
fn pooled(runs: &[Vec<Series<128>>], j: usize) -> (f64, f64, f64) {
    let cs: Vec<&Series<128>> = runs.iter().map(|r| &r[j]).collect();
    let n_eff = ess(&cs).unwrap();
    // A tolerance from an ESS the estimator cannot vouch for (0: too short to tell) would
    // pass anything.
    assert!(n_eff >= 400.0, "series {j}: ESS {n_eff}");
    let k = cs.len() as f64;
    let mean = cs.iter().map(|s| s.mean()).sum::<f64>() / k;
    let var = cs.iter().map(|s| s.variance()).sum::<f64>() / k;
    (mean, libm::sqrt(var / n_eff), n_eff)
}

fn check_exact(runs: &[Vec<Series<128>>], what: &str) {
    let c = covariance();
    for j in 0..D {
        let (mean, se, n_eff) = pooled(runs, j);
        assert!(
            (mean - MEAN[j]).abs() < 4.5 * se,
            "{what}: θ{j} mean {mean} vs {} (se {se}, ESS {n_eff})",
            MEAN[j]
        );
        let cs: Vec<&Series<128>> = runs.iter().map(|r| &r[j]).collect();
        let var = cs.iter().map(|s| s.variance()).sum::<f64>() / cs.len() as f64;
        let var_se = c[j][j] * libm::sqrt(2.0 / n_eff);
        assert!(
            (var - c[j][j]).abs() < 4.5 * var_se,
            "{what}: θ{j} variance {var} vs {} (se {var_se})",
            c[j][j]
        );
    }
    // Cov(θ₀, θ₁) = ρ·σ₀σ₁ = 1.6: the product's mean, with its own standard error.
    let (cov, se, _) = pooled(runs, D);
    assert!(
        (cov - c[0][1]).abs() < 4.5 * se,
        "{what}: Cov(θ0, θ1) {cov} vs {} (se {se})",
        c[0][1]
    );
}

#[test]
fn a_fixed_dense_mass_matrix_keeps_the_chain_exact() {
    for variant in [Variant::Reversible, Variant::NonReversible] {
        let (runs, _) = run::<f64>(Mass::Dense, variant, false, 40_000, 4);
        check_exact(&runs, &format!("dense {variant:?}"));
    }
    let (runs, _) = run::<f32>(Mass::Dense, Variant::Reversible, false, 40_000, 4);
    check_exact(&runs, "dense f32");
}

#[test]
fn a_fixed_diagonal_mass_matrix_keeps_the_chain_exact() {
    let (runs, _) = run::<f64>(Mass::Diagonal, Variant::NonReversible, false, 40_000, 4);
    check_exact(&runs, "diagonal");
}

/// The jittered number of inner steps: uniform on 5…15 for T = 10 (a χ² test on 11 cells with
/// 160 000 draws: the 1e-4 quantile of χ²₁₀ is 35.6), and the chain exact with it.
#[test]
fn jittered_trajectory_lengths_are_uniform_and_exact() {
    let (runs, steps) = run::<f64>(Mass::Dense, Variant::Reversible, true, 40_000, 4);
    check_exact(&runs, "dense, jittered T");
    let mut counts = [0u64; 11];
    for &s in &steps {
        assert!((5..=15).contains(&s), "T = {s}");
        counts[(s - 5) as usize] += 1;
    }
    let e = steps.len() as f64 / 11.0;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
    assert!(chi2 < 35.6, "χ² {chi2}, counts {counts:?}");
}

/// What the setters refuse, each with its own status, and that a refusal changes nothing.
#[test]
fn bad_mass_matrices_and_step_sizes_are_refused() {
    let mut m = model(0.0);
    let theta0 = MEAN;
    for mass in [Mass::Unit, Mass::Diagonal, Mass::Dense] {
        let cfg = AmagoldConfig {
            mass,
            ..AmagoldConfig::new(0.3)
        };
        let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, D)];
        let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut m).unwrap();
        let mut before = vec![0.0; D * D];
        chain.inverse_mass_dense(&mut before).unwrap();
        let unit = mass == Mass::Unit;
        let refusals: Vec<(Result<(), Error>, Error)> = vec![
            (chain.set_inverse_mass(&[1.0; 3]), Error::LengthMismatch),
            // Values are judged before the kind: InvalidMass on a unit chain too.
            (
                chain.set_inverse_mass(&[1.0, 0.0, 1.0, 1.0]),
                Error::InvalidMass,
            ),
            (
                chain.set_inverse_mass(&[1.0, f64::NAN, 1.0, 1.0]),
                Error::InvalidMass,
            ),
            (
                chain.set_inverse_mass(&[1.0, 1.0, -2.0, 1.0]),
                Error::InvalidMass,
            ),
            (
                chain.set_inverse_mass_dense(&[1.0; 15]),
                Error::LengthMismatch,
            ),
            (chain.set_step_size(0.0), Error::InvalidStepSize),
            (chain.set_step_size(f64::NAN), Error::InvalidStepSize),
            (chain.set_step_size(f64::INFINITY), Error::InvalidStepSize),
        ];
        for (i, (got, want)) in refusals.into_iter().enumerate() {
            assert_eq!(got, Err(want), "{mass:?} case {i}");
        }
        let good = [1.0, 2.0, 0.5, 3.0];
        if unit {
            assert_eq!(chain.set_inverse_mass(&good), Err(Error::MassMismatch));
        }
        let mut ident = vec![0.0; D * D];
        for i in 0..D {
            ident[i * D + i] = 1.0;
        }
        if mass != Mass::Dense {
            assert_eq!(
                chain.set_inverse_mass_dense(&ident),
                Err(Error::MassMismatch),
                "{mass:?}"
            );
        } else {
            // Not symmetric; not positive definite.
            let mut asym = ident.clone();
            asym[1] = 0.5;
            assert_eq!(chain.set_inverse_mass_dense(&asym), Err(Error::InvalidMass));
            let mut indefinite = ident.clone();
            indefinite[1] = 2.0;
            indefinite[D] = 2.0;
            assert_eq!(
                chain.set_inverse_mass_dense(&indefinite),
                Err(Error::InvalidMass)
            );
        }
        let mut after = vec![0.0; D * D];
        chain.inverse_mass_dense(&mut after).unwrap();
        assert_eq!(before, after, "{mass:?}: a refusal changed the mass matrix");
        assert_eq!(chain.step_size(), 0.3);
        let mut short = [0.0; 3];
        assert_eq!(chain.inverse_mass(&mut short), Err(Error::OutputTooSmall));
        let mut short = [0.0; D * D - 1];
        assert_eq!(
            chain.inverse_mass_dense(&mut short),
            Err(Error::OutputTooSmall)
        );
    }
}

/// What was set is what is read back (dense: L·Lᵀ of its Cholesky factor, to rounding).
#[test]
fn set_then_get_round_trips() {
    let mut m = model(0.0);
    let cfg = AmagoldConfig {
        mass: Mass::Dense,
        ..AmagoldConfig::new(0.3)
    };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, D)];
    let mut chain = Amagold::new(&cfg, &MEAN, &mut ws, &mut m).unwrap();
    let k = dense_k();
    chain.set_inverse_mass_dense(&k).unwrap();
    let mut back = vec![0.0; D * D];
    chain.inverse_mass_dense(&mut back).unwrap();
    for (a, b) in back.iter().zip(&k) {
        assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
    let mut diag = [0.0; D];
    chain.inverse_mass(&mut diag).unwrap();
    for i in 0..D {
        assert!((diag[i] - k[i * D + i]).abs() < 1e-12 * k[i * D + i]);
    }
    chain.set_step_size(0.123).unwrap();
    assert_eq!(chain.step_size(), 0.123);
    assert_eq!(chain.step(&mut m).unwrap().step_size, 0.123);
}
