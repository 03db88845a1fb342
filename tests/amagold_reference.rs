//! The core against the plain reference build: identical samples, bit for bit.

mod common;
use common::{gaussian, DoubleWell};
use sgsample::reference::amagold as refimpl;
use sgsample::{Amagold, AmagoldConfig, Float, Potential, Variant};

fn compare_amagold<T, M>(model: M, d: usize, cfg: AmagoldConfig, iters: usize)
where
    T: Float + PartialEq,
    M: Potential<T> + refimpl::Model<T> + Clone,
{
    let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.1 * i as f64 - 0.2)).collect();
    let mut m1 = model.clone();
    let mut m2 = model;
    let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len(d)];
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
    let mut accepted = 0;
    for k in 0..iters {
        let info = core.step(&mut m1).unwrap();
        let r = reference.step(&mut m2);
        assert_eq!(info.accepted, r.accepted, "iteration {k}");
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
            for &warmup in &[0u64, 50] {
                let mut c = AmagoldConfig::new(0.3);
                c.variant = variant;
                c.seed = seed;
                c.stream = stream;
                c.warmup = warmup;
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
