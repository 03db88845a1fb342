//! The core against the plain reference build: identical samples, bit for bit.

mod common;
use common::{gaussian, DoubleWell};
use sgsample::{Amagold, AmagoldConfig, Float, Mass, Potential, Variant};
use sgsample_reference::{amagold as refimpl, Model};

fn compare_amagold<T, M>(model: M, d: usize, cfg: AmagoldConfig, iters: usize)
where
    T: Float + PartialEq,
    M: Potential<T> + Model<T> + Clone,
{
    compare_with_mass::<T, M>(model, d, cfg, iters, None)
}

/// As [`compare_amagold`], with a fixed mass matrix given to both (d values: diagonal; d²:
/// dense).
fn compare_with_mass<T, M>(model: M, d: usize, cfg: AmagoldConfig, iters: usize, k: Option<&[T]>)
where
    T: Float + PartialEq,
    M: Potential<T> + Model<T> + Clone,
{
    let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.1 * i as f64 - 0.2)).collect();
    let mut m1 = model.clone();
    let mut m2 = model;
    let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(&cfg, d)];
    let mut core = Amagold::new(&cfg, &theta0, &mut ws, &mut m1).unwrap();
    let mut reference = refimpl::Amagold::new(
        &mut m2,
        &theta0,
        cfg.step_size,
        cfg.friction,
        cfg.momentum_sd,
        cfg.steps,
        cfg.variant == Variant::Reversible,
        cfg.warmup,
        cfg.target_accept,
        cfg.seed,
        cfg.stream,
    );
    reference.jitter = cfg.jitter_steps;
    match (cfg.mass, k) {
        (Mass::Diagonal, Some(k)) => {
            core.set_inverse_mass(k).unwrap();
            reference.set_diagonal(k);
        }
        (Mass::Dense, Some(k)) => {
            core.set_inverse_mass_dense(k).unwrap();
            reference.set_dense(k);
        }
        _ => {}
    }
    let mut accepted = 0;
    for k in 0..iters {
        let info = core.step(&mut m1).unwrap();
        let r = reference.step(&mut m2);
        assert_eq!(info.accepted, r.accepted, "iteration {k}");
        assert_eq!(info.steps, r.steps, "T at {k}");
        assert_eq!(info.step_size.to_bits(), r.eps.to_bits(), "ε at {k}");
        assert_eq!(info.rho.to_bits(), r.rho.to_bits(), "ρ at {k}");
        assert_eq!(info.log_accept.to_bits(), r.log_a.to_bits(), "log a at {k}");
        assert!(core.position() == &reference.theta[..], "θ at {k}");
        assert!(core.momentum() == &reference.r[..], "r at {k}");
        assert_eq!(core.energy().to_bits(), reference.u.to_bits());
        assert_eq!(core.step_size().to_bits(), reference.eps.to_bits());
        accepted += info.accepted as usize;
    }
    // Both outcomes must have been exercised for the comparison to mean something.
    assert!(
        accepted > 0 && accepted < iters,
        "accepted {accepted} of {iters}"
    );
}

fn configs() -> Vec<AmagoldConfig> {
    let mut v = vec![];
    for &variant in &[Variant::Reversible, Variant::NonReversible] {
        for &(seed, stream) in &[(1u64, 0u64), (42, 3), (0xdead_beef, 99)] {
            // The windowed warm-up without approach (unit mass): its search, dual averaging,
            // restarts (checked at 50, 100 and 150 of 200) and final settling.
            for &warmup in &[0u64, 200] {
                let mut c = AmagoldConfig::new(0.3);
                c.variant = variant;
                c.seed = seed;
                c.stream = stream;
                c.warmup = warmup;
                c.approach = false;
                c.target_accept = 0.8;
                v.push(c);
            }
        }
    }
    v
}

#[test]
fn amagold_matches_reference_d1_double_well() {
    for cfg in configs() {
        compare_amagold::<f64, _>(DoubleWell { noise: 1.0 }, 1, cfg, 300);
    }
}

#[test]
fn amagold_matches_reference_d2_and_d100() {
    for cfg in configs() {
        compare_amagold::<f64, _>(gaussian(2), 2, cfg, 200);
        let mut c = cfg;
        c.step_size = 0.04;
        compare_amagold::<f64, _>(gaussian(100), 100, c, 60);
    }
}

#[test]
fn amagold_matches_reference_without_friction_and_with_other_sigma() {
    let mut c = AmagoldConfig::new(0.2);
    c.friction = 0.0;
    c.momentum_sd = 1.7;
    c.steps = 7;
    compare_amagold::<f64, _>(gaussian(3), 3, c, 200);
    c.variant = Variant::NonReversible;
    c.steps = 1;
    compare_amagold::<f64, _>(gaussian(3), 3, c, 200);
}

#[test]
fn amagold_f32_matches_reference_f32() {
    // The reference is generic over the coordinate type too; f32 follows the same contract.
    for cfg in configs().into_iter().take(4) {
        compare_amagold::<f32, _>(gaussian(5), 5, cfg, 200);
    }
}

/// Fixed diagonal and dense mass matrices, with and without jittered T: the core's
/// per-coordinate factors and triangular products against the reference's plain loops.
#[test]
fn amagold_with_fixed_mass_matrices_matches_reference() {
    let d = 5;
    let diag: Vec<f64> = (0..d).map(|i| 0.2 + 0.7 * i as f64).collect();
    let mut dense = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..d {
            dense[i * d + j] =
                0.6f64.powi((i as i32 - j as i32).abs()) * (1.0 + 0.3 * (i + j) as f64);
        }
        dense[i * d + i] += 0.5;
    }
    for variant in [Variant::Reversible, Variant::NonReversible] {
        for jitter in [false, true] {
            let mut c = AmagoldConfig::new(0.25);
            c.variant = variant;
            c.jitter_steps = jitter;
            c.seed = 11;
            c.mass = Mass::Diagonal;
            compare_with_mass::<f64, _>(gaussian(d), d, c, 200, Some(&diag));
            c.mass = Mass::Dense;
            compare_with_mass::<f64, _>(gaussian(d), d, c, 200, Some(&dense));
            let dense32: Vec<f32> = dense.iter().map(|&x| x as f32).collect();
            compare_with_mass::<f32, _>(gaussian(d), d, c, 200, Some(&dense32));
        }
    }
}
