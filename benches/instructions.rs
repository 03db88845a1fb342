//! Instruction counts under Callgrind: repeatable where wall-clock time on a shared machine is
//! not. `benches/callgrind.sh` runs this binary under `valgrind --tool=callgrind` once per case
//! with collection switched on only inside the `measured_*` functions below, and divides the
//! instruction count by the number of measured calls.
//!
//! Usage: `instructions CASE` with CASE one of the names in [`CASES`]; any other argument
//! (e.g. `--bench`, what `cargo bench` passes) runs every case once, quickly, as a smoke test.

use sgsample::{
    Amagold, AmagoldConfig, Float, Gradient, KernelChoice, Rng, Sghmc, SghmcConfig, StepRule, Svgd,
    SvgdConfig,
};
use std::hint::black_box;

mod models;
use models::{Mixture, StdNormal};

/// (name, measured calls). Warm-up calls (not counted) come first in every case.
pub const CASES: [(&str, u32); 17] = [
    ("normal_x1000", 100),
    ("amagold_f64_d1", 1000),
    ("amagold_f64_d100", 100),
    ("sghmc_f64_d1", 1000),
    ("sghmc_f64_d100", 100),
    ("sghmc_f64_d1000", 20),
    ("rbm_svgd_p2", 20),
    ("rbm_svgd_p4", 20),
    ("rbm_svgd_p8", 20),
    ("rbm_svgd_p16", 20),
    ("rbm_svgd_p8_f32", 20),
    ("rbm_svgd_p32", 20),
    ("svgd_p256", 5),
    ("svgd_median", 5),
    ("rbm_svgd_imq_p8", 20),
    ("svgd_imq_p256", 5),
    ("svgd_imq_b075_p256", 5),
];

#[inline(never)]
fn measured_normals(rng: &mut Rng, out: &mut [f64]) {
    rng.fill_normal(out);
    black_box(out);
}

fn normals(calls: u32) {
    let mut rng = Rng::new(1, 0);
    let mut out = vec![0.0; 1000];
    for _ in 0..calls {
        measured_normals(&mut rng, &mut out);
    }
}

#[inline(never)]
fn measured_amagold_step(chain: &mut Amagold<'_, f64>, model: &mut StdNormal) {
    black_box(chain.step(model).unwrap());
}

#[inline(never)]
fn measured_sghmc_step(chain: &mut Sghmc<'_, f64>, model: &mut StdNormal) {
    black_box(chain.step(model).unwrap());
}

#[inline(never)]
fn measured_svgd_step<T: Float>(s: &mut Svgd<'_, T>)
where
    Mixture: Gradient<T>,
{
    black_box(s.step(&mut Mixture).unwrap());
}

fn amagold(d: usize, calls: u32) {
    let cfg = AmagoldConfig::new(0.5 / (d as f64).powf(0.25));
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len(d)];
    let mut model = StdNormal;
    let mut chain = Amagold::new(&cfg, &vec![0.0; d], &mut ws, &mut model).unwrap();
    for _ in 0..100 {
        chain.step(&mut model).unwrap();
    }
    for _ in 0..calls {
        measured_amagold_step(&mut chain, &mut model);
    }
}

fn sghmc(d: usize, calls: u32) {
    let cfg = SghmcConfig::new(0.5 / (d as f64).powf(0.25));
    let mut ws = vec![0.0; Sghmc::<f64>::workspace_len(d)];
    let mut model = StdNormal;
    let mut chain = Sghmc::new(&cfg, &vec![0.0; d], &mut ws).unwrap();
    for _ in 0..100 {
        chain.step(&mut model).unwrap();
    }
    for _ in 0..calls {
        measured_sghmc_step(&mut chain, &mut model);
    }
}

fn svgd<T: Float>(p: usize, kernel: KernelChoice, calls: u32)
where
    Mixture: Gradient<T>,
{
    const N: usize = 256;
    let mut rng = Rng::new(1, 99);
    let mut x: Vec<T> = (0..N).map(|_| T::from_f64(-10.0 + rng.normal())).collect();
    let cfg = SvgdConfig::new(p, kernel, StepRule::adagrad(0.2));
    let mut ws = vec![T::from_f64(0.0); Svgd::<T>::workspace_len(N, 1, &cfg)];
    let mut idx = vec![0u32; Svgd::<T>::index_len(N)];
    let mut s = Svgd::new(&cfg, 1, &mut x, &mut ws, &mut idx).unwrap();
    // Converged particles, as in the `svgd` bench (fewer warm-up iterations under Valgrind).
    s.run(200, &mut Mixture).unwrap();
    for _ in 0..calls {
        measured_svgd_step(&mut s);
    }
}

fn run(name: &str, calls: u32) -> bool {
    let h2 = KernelChoice::Gaussian { h: 2.0 };
    let imq = |beta| KernelChoice::InverseMultiquadric { c: 1.0, beta };
    match name {
        "normal_x1000" => normals(calls),
        "amagold_f64_d1" => amagold(1, calls),
        "amagold_f64_d100" => amagold(100, calls),
        "sghmc_f64_d1" => sghmc(1, calls),
        "sghmc_f64_d100" => sghmc(100, calls),
        "sghmc_f64_d1000" => sghmc(1000, calls),
        "rbm_svgd_p2" => svgd::<f64>(2, h2, calls),
        "rbm_svgd_p4" => svgd::<f64>(4, h2, calls),
        "rbm_svgd_p8" => svgd::<f64>(8, h2, calls),
        "rbm_svgd_p16" => svgd::<f64>(16, h2, calls),
        "rbm_svgd_p8_f32" => svgd::<f32>(8, h2, calls),
        "rbm_svgd_p32" => svgd::<f64>(32, h2, calls),
        "svgd_p256" => svgd::<f64>(256, h2, calls),
        "svgd_median" => svgd::<f64>(256, KernelChoice::GaussianMedian, calls),
        "rbm_svgd_imq_p8" => svgd::<f64>(8, imq(0.5), calls),
        "svgd_imq_p256" => svgd::<f64>(256, imq(0.5), calls),
        "svgd_imq_b075_p256" => svgd::<f64>(256, imq(0.75), calls),
        _ => return false,
    }
    true
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    if let Some(&(name, calls)) = CASES.iter().find(|(n, _)| *n == arg) {
        run(name, calls);
        println!("{name}: {calls} measured calls");
    } else {
        for (name, _) in CASES {
            run(name, 1);
        }
        println!("instructions: smoke run done (instruction counts: benches/callgrind.sh)");
    }
}
