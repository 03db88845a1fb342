//! SGHMC's core against the plain reference build: identical samples, bit for bit.

mod common;
use common::{gaussian, Gaussian};
use sgsample::reference::amagold as refimpl;
use sgsample::{Float, Sghmc, SghmcConfig};

fn compare_sghmc<T>(model: Gaussian, d: usize, cfg: SghmcConfig, iters: usize)
where
    T: Float + PartialEq,
    Gaussian: refimpl::Model<T> + sgsample::Gradient<T>,
{
    let theta0: Vec<T> = (0..d).map(|i| T::from_f64(0.3 - 0.05 * i as f64)).collect();
    let mut m1 = model.clone();
    let mut m2 = model;
    let mut ws = vec![T::ZERO; Sghmc::<T>::workspace_len(d)];
    let mut core = Sghmc::new(&cfg, &theta0, &mut ws).unwrap();
    let mut reference = refimpl::Sghmc::new(
        &theta0,
        cfg.step_size,
        cfg.friction,
        cfg.momentum_sd,
        cfg.steps,
        cfg.resample_momentum,
        cfg.seed,
        cfg.stream,
    );
    for k in 0..iters {
        core.step(&mut m1).unwrap();
        assert!(reference.step(&mut m2));
        assert!(core.position() == &reference.theta[..], "θ at {k}");
        assert!(core.momentum() == &reference.r[..], "r at {k}");
    }
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
