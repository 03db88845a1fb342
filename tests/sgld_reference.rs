//! SGLD's core against the plain reference build (`sgsample_reference::sgld`): identical
//! samples, bit for bit, with and without the fixed diagonal preconditioner
//! (docs/algorithms.md §1.4).

mod common;
use common::{gaussian, Gaussian};
use sgsample::{Float, Gradient, Mass, Sgld, SgldConfig};
use sgsample_reference::sgld::Sgld as RefSgld;
use sgsample_reference::Model;

/// The preconditioner set on diagonal chains: scales from 10⁻⁴ to 10² (and one exactly 1); a
/// second one half-way.
fn k_values<T: Float>(d: usize, second: bool) -> Vec<T> {
    (0..d)
        .map(|i| {
            let e = [-4.0, 2.0, 0.0, -1.5, 0.7][i % 5] - if second { 0.5 } else { 0.0 };
            T::from_f64(libm::pow(10.0, e) * (1.0 + 0.01 * i as f64))
        })
        .collect()
}

fn compare_sgld<T>(model: Gaussian, d: usize, cfg: SgldConfig, iters: usize)
where
    T: Float + PartialEq,
    Gaussian: Model<T> + Gradient<T>,
{
    let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.3 - 0.05 * i as f64)).collect();
    let (mut m1, mut m2) = (model.clone(), model);
    let mut ws = vec![T::ZERO; Sgld::<T>::workspace_len_for(&cfg, d)];
    let mut core = Sgld::new(&cfg, &theta0, &mut ws).unwrap();
    let mut reference = RefSgld::<T>::new(&theta0, cfg.step_size, cfg.steps, cfg.seed, cfg.stream);
    let diagonal = cfg.mass == Mass::Diagonal;
    for k in 0..iters {
        if diagonal && (k == 0 || k == iters / 2) {
            let kv = k_values::<T>(d, k > 0);
            core.set_inverse_mass(&kv).unwrap();
            reference.set_inverse_mass(&kv);
        }
        core.step(&mut m1).unwrap();
        assert!(reference.step(&mut m2));
        assert!(core.position() == &reference.theta[..], "θ at {k}");
    }
    let mut kc = vec![T::ZERO; d];
    core.inverse_mass(&mut kc).unwrap();
    assert!(kc == reference.k, "k");
}

#[test]
fn sgld_matches_reference() {
    for &d in &[1usize, 2, 100] {
        for &(steps, seed) in &[(1u32, 3u64), (3, 77)] {
            let c = SgldConfig {
                steps,
                seed,
                stream: d as u64,
                ..SgldConfig::new(0.05)
            };
            compare_sgld::<f64>(gaussian(d), d, c, 100);
            compare_sgld::<f32>(gaussian(d), d, c, 50);
        }
    }
}

#[test]
fn preconditioned_sgld_matches_reference() {
    for &d in &[1usize, 5, 100] {
        for &(steps, seed) in &[(1u32, 3u64), (3, 77)] {
            let c = SgldConfig {
                steps,
                seed,
                stream: d as u64,
                mass: Mass::Diagonal,
                ..SgldConfig::new(0.001)
            };
            compare_sgld::<f64>(gaussian(d), d, c, 100);
            compare_sgld::<f32>(gaussian(d), d, c, 50);
        }
    }
}

/// A `Mass::Diagonal` chain whose preconditioner is not set, or set to all ones, is the unit
/// chain bit for bit.
#[test]
fn an_identity_preconditioner_changes_no_bit() {
    fn run<T: Float + PartialEq>(set_ones: bool) -> (Vec<T>, Vec<T>)
    where
        Gaussian: Gradient<T>,
    {
        let d = 7;
        let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.2 * i as f64 - 0.5)).collect();
        let mut c = SgldConfig {
            steps: 2,
            seed: 5,
            ..SgldConfig::new(0.1)
        };
        let mut wu = vec![T::ZERO; Sgld::<T>::workspace_len(d)];
        let mut unit = Sgld::new(&c, &theta0, &mut wu).unwrap();
        c.mass = Mass::Diagonal;
        let mut wd = vec![T::ZERO; Sgld::<T>::workspace_len_for(&c, d)];
        let mut diag = Sgld::new(&c, &theta0, &mut wd).unwrap();
        if set_ones {
            diag.set_inverse_mass(&vec![T::from_f64(1.0); d]).unwrap();
        }
        let (mut a, mut b) = (vec![T::ZERO; 40 * d], vec![T::ZERO; 40 * d]);
        unit.run(&mut gaussian(d), &mut a).unwrap();
        diag.run(&mut gaussian(d), &mut b).unwrap();
        (a, b)
    }
    for set_ones in [false, true] {
        let (a, b) = run::<f64>(set_ones);
        assert!(a == b, "f64, ones set {set_ones}");
        let (a, b) = run::<f32>(set_ones);
        assert!(a == b, "f32, ones set {set_ones}");
    }
}
