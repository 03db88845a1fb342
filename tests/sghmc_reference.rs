//! SGHMC's core against the plain reference build: identical samples, bit for bit, with and
//! without the fixed diagonal preconditioner (docs/algorithms.md §1.1, §1.5).

mod common;
use common::{gaussian, Gaussian};
use sgsample::{Float, Mass, Sghmc, SghmcConfig};
use sgsample_reference::{sghmc::Sghmc as RefSghmc, Model};

/// The inverse mass set on preconditioned chains: scales from 10⁻⁴ to 10² (and one exactly 1),
/// then, half-way, another one (the persistent momentum is rescaled).
fn k_values<T: Float>(d: usize, second: bool) -> Vec<T> {
    (0..d)
        .map(|i| {
            let e = [-4.0, 2.0, 0.0, -1.5, 0.7][i % 5] + if second { 0.5 } else { 0.0 };
            T::from_f64(libm::pow(10.0, e) * (1.0 + 0.01 * i as f64))
        })
        .collect()
}

fn compare_sghmc<T>(model: Gaussian, d: usize, cfg: SghmcConfig, iters: usize)
where
    T: Float + PartialEq,
    Gaussian: Model<T> + sgsample::Gradient<T>,
{
    let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.3 - 0.05 * i as f64)).collect();
    let mut m1 = model.clone();
    let mut m2 = model;
    let mut ws = vec![T::ZERO; Sghmc::<T>::workspace_len_for(&cfg, d)];
    let mut core = Sghmc::new(&cfg, &theta0, &mut ws).unwrap();
    let mut reference = RefSghmc::new(
        &theta0,
        cfg.step_size,
        cfg.friction,
        cfg.momentum_sd,
        cfg.steps,
        cfg.resample_momentum,
        cfg.seed,
        cfg.stream,
    );
    let diagonal = cfg.mass == Mass::Diagonal;
    for k in 0..iters {
        if diagonal && (k == 0 || k == iters / 2) {
            let kv = k_values::<T>(d, k > 0);
            core.set_inverse_mass(&kv).unwrap();
            reference.set_inverse_mass(&kv);
            assert!(core.momentum() == &reference.r[..], "rescaled r at {k}");
        }
        core.step(&mut m1).unwrap();
        assert!(reference.step(&mut m2));
        assert!(core.position() == &reference.theta[..], "θ at {k}");
        assert!(core.momentum() == &reference.r[..], "r at {k}");
    }
    let mut kc = vec![T::ZERO; d];
    core.inverse_mass(&mut kc).unwrap();
    assert!(kc == reference.k, "k");
}

#[test]
fn sghmc_matches_reference() {
    for &d in &[1usize, 2, 100] {
        for &resample in &[true, false] {
            for &seed in &[3u64, 77] {
                let mut c = SghmcConfig::new(0.1);
                c.resample_momentum = resample;
                c.seed = seed;
                c.stream = d as u64;
                compare_sghmc::<f64>(gaussian(d), d, c, 100);
                compare_sghmc::<f32>(gaussian(d), d, c, 50);
            }
        }
    }
    let mut c = SghmcConfig::new(0.1);
    c.friction = 0.0;
    compare_sghmc::<f64>(gaussian(4), 4, c, 100);
}

/// The preconditioned chain (k set at the start and changed half-way) against the reference.
/// The model's scales are 1, not k's, so the preconditioned chain is far from stationary in
/// some coordinates over these few steps; the bits must agree all the same.
#[test]
fn preconditioned_sghmc_matches_reference() {
    for &d in &[1usize, 5, 100] {
        for &resample in &[true, false] {
            for &seed in &[3u64, 77] {
                let mut c = SghmcConfig::new(0.01);
                c.resample_momentum = resample;
                c.mass = Mass::Diagonal;
                c.momentum_sd = 0.7;
                c.seed = seed;
                c.stream = d as u64;
                compare_sghmc::<f64>(gaussian(d), d, c, 60);
                compare_sghmc::<f32>(gaussian(d), d, c, 40);
            }
        }
    }
    let mut c = SghmcConfig::new(0.01);
    c.friction = 0.0;
    c.mass = Mass::Diagonal;
    compare_sghmc::<f64>(gaussian(4), 4, c, 60);
}

/// A `Mass::Diagonal` chain whose preconditioner is not set (the identity), or set to all ones,
/// is the unit chain bit for bit: every factor is exactly 1 and multiplying by 1 is exact.
#[test]
fn an_identity_preconditioner_changes_no_bit() {
    fn run<T: Float + PartialEq>(resample: bool, set_ones: bool) -> (Vec<T>, Vec<T>)
    where
        Gaussian: sgsample::Gradient<T>,
    {
        let d = 7;
        let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.2 * i as f64 - 0.5)).collect();
        let mut c = SghmcConfig::new(0.1);
        c.resample_momentum = resample;
        c.seed = 5;
        let mut wu = vec![T::ZERO; Sghmc::<T>::workspace_len(d)];
        let mut unit = Sghmc::new(&c, &theta0, &mut wu).unwrap();
        c.mass = Mass::Diagonal;
        let mut wd = vec![T::ZERO; Sghmc::<T>::workspace_len_for(&c, d)];
        let mut diag = Sghmc::new(&c, &theta0, &mut wd).unwrap();
        if set_ones {
            diag.set_inverse_mass(&vec![T::from_f64(1.0); d]).unwrap();
        }
        let (mut a, mut b) = (vec![T::ZERO; 40 * d], vec![T::ZERO; 40 * d]);
        unit.run(&mut gaussian(d), &mut a).unwrap();
        diag.run(&mut gaussian(d), &mut b).unwrap();
        assert!(unit.momentum() == diag.momentum());
        (a, b)
    }
    for resample in [true, false] {
        for set_ones in [false, true] {
            let (a, b) = run::<f64>(resample, set_ones);
            assert!(a == b, "f64, resample {resample}, ones set {set_ones}");
            let (a, b) = run::<f32>(resample, set_ones);
            assert!(a == b, "f32, resample {resample}, ones set {set_ones}");
        }
    }
}
