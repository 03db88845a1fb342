//! The host side of the firmware comparison (`scripts/test-firmware.sh`): repeats the firmware's
//! runs (`examples-embedded/src/runs.rs`, shared through `#[path]`) and prints the same lines.
//!
//! * `f64` runs: the plain std reference implementation ([`sgsample_reference`]), so the
//!   firmware's `f64` output must equal the reference bit for bit; except the AMAGOLD runs the
//!   reference cannot repeat (a mass matrix, a setter, or a warm-up: the reference has not the
//!   current warm-up with its approach), which come from the library's core in `f64` on the
//!   host (`AmagoldRun::core_only`). NOTE for the lead: once the reference has the windowed
//!   warm-up without the approach, a firmware run with `approach = false` can go back to it.
//! * `f32` runs: the library's core sampler in `f32` on the host.
//!
//! `cargo run --release -p sgsample --features std --example firmware_host`
//! (`-- --workspace-table` prints the workspace sizes for docs/footprint.md instead).

use sgsample::{
    Amagold, Batching, Float, Gradient, KernelChoice, Mass, Potential, StepRule, Stop, Svgd,
    Variant,
};
use sgsample_reference::amagold::Amagold as RefAmagold;
use sgsample_reference::svgd::{Kernel as RefKernel, Rule as RefRule, Svgd as RefSvgd};
use sgsample_reference::Model;
use std::io::Write as _;

#[path = "../examples-embedded/src/runs.rs"]
mod runs;

/// Adapts a library model to the reference's model trait.
struct RefModel<'m, M>(&'m mut M);

impl<T: Float, M: Potential<T>> Model<T> for RefModel<'_, M> {
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop> {
        self.0.energy(theta)
    }
    fn grad(&mut self, theta: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        self.0.gradient(theta, seed, g)
    }
}

/// One run through the reference implementation, printed like the firmware prints it.
fn amagold_reference<T: runs::Bits, M: Potential<T>>(
    out: &mut String,
    run: &runs::AmagoldRun,
    model: &mut M,
) {
    let c = &run.cfg;
    let theta0: Vec<T> = run.theta0.iter().map(|&v| T::from_f64(v)).collect();
    let mut m = RefModel(model);
    let mut chain = RefAmagold::<T>::new(
        &mut m,
        &theta0,
        c.step_size,
        c.friction,
        c.momentum_sd,
        c.steps,
        c.variant == Variant::Reversible,
        c.warmup,
        c.target_accept,
        c.seed,
        c.stream,
    );
    let mut accepted = 0;
    for k in 0..run.iterations {
        let s = chain.step(&mut m);
        accepted += s.accepted as u32;
        runs::sample_line(out, run.name, k, s.accepted, &chain.theta).unwrap();
    }
    runs::end_line::<T>(out, run.name, accepted, chain.u).unwrap();
}

/// One SVGD run through the reference implementation, printed like the firmware prints it.
fn svgd_reference<T: runs::Bits>(out: &mut String, run: &runs::SvgdRun) {
    let c = &run.cfg;
    let kernel = match c.kernel {
        KernelChoice::Gaussian { h } => RefKernel::Gaussian(h),
        KernelChoice::GaussianMedian => RefKernel::Median,
        KernelChoice::InverseMultiquadric { c, beta } => RefKernel::Imq { c, beta },
    };
    let rule = match c.step_rule {
        StepRule::Constant { eta } => RefRule::Constant(eta),
        StepRule::Decaying { eta } => RefRule::Decaying(eta),
        StepRule::AdaGrad { eta, alpha } => RefRule::AdaGrad { eta, alpha },
    };
    let mut x0 = vec![T::ZERO; runs::SVGD_N];
    runs::svgd_init(run, &mut x0);
    let mut svgd = RefSvgd::<T>::new(
        &x0,
        1,
        c.batch_size,
        c.batching == Batching::WithReplacement,
        kernel,
        rule,
        c.seed,
        c.stream,
    );
    let mut grad = |x: &[T], seed: u64, g: &mut [T]| match run.model {
        runs::SvgdModel::Mixture => runs::Mixture.gradient(x, seed, g),
        runs::SvgdModel::StudentT => runs::StudentT.gradient(x, seed, g),
    };
    for k in 1..=run.iterations {
        svgd.step(&mut grad).expect("reference SVGD step");
        if run.checkpoints.contains(&k) {
            runs::particles_line(out, run.name, k, &svgd.flat()).unwrap();
        }
    }
}

/// The workspace sizes of docs/footprint.md, from the library's size queries.
fn workspace_table() {
    println!("| sampler | d | N | p | workspace (coordinates) | f32 bytes | f64 bytes |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let amagold: [(&str, Mass, u64); 6] = [
        ("AMAGOLD", Mass::Unit, 0),
        ("AMAGOLD, warm-up with the approach", Mass::Unit, 1000),
        ("AMAGOLD, diagonal mass", Mass::Diagonal, 0),
        (
            "AMAGOLD, diagonal mass, warm-up with the approach",
            Mass::Diagonal,
            1000,
        ),
        ("AMAGOLD, dense mass", Mass::Dense, 0),
        (
            "AMAGOLD, dense mass, warm-up with the approach",
            Mass::Dense,
            1000,
        ),
    ];
    for (label, mass, warmup) in amagold {
        let cfg = sgsample::AmagoldConfig {
            mass,
            warmup,
            ..sgsample::AmagoldConfig::new(0.1)
        };
        for d in [1usize, 10, 100] {
            let len = Amagold::<f32>::workspace_len_for(&cfg, d);
            assert_eq!(len, Amagold::<f64>::workspace_len_for(&cfg, d));
            println!("| {label} | {d} | | | {len} | {} | {} |", 4 * len, 8 * len);
        }
    }
    let variants: [(&str, Batching, KernelChoice, StepRule); 4] = [
        (
            "RBM-SVGD, fixed h, AdaGrad",
            Batching::WithoutReplacement,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::adagrad(0.2),
        ),
        (
            "RBM-SVGD, fixed h, constant η",
            Batching::WithoutReplacement,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::Constant { eta: 0.1 },
        ),
        (
            "RBM-SVGD, median h, AdaGrad",
            Batching::WithoutReplacement,
            KernelChoice::GaussianMedian,
            StepRule::adagrad(0.2),
        ),
        (
            "RBM-SVGD with replacement, fixed h, AdaGrad",
            Batching::WithReplacement,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::adagrad(0.2),
        ),
    ];
    for (label, batching, kernel, rule) in variants {
        for (n, d, p) in [
            (64usize, 1usize, 8usize),
            (256, 1, 8),
            (256, 2, 32),
            (512, 2, 512),
        ] {
            let mut cfg = sgsample::SvgdConfig::new(p, kernel, rule);
            cfg.batching = batching;
            let len = Svgd::<f32>::workspace_len(n, d, &cfg);
            assert_eq!(len, Svgd::<f64>::workspace_len(n, d, &cfg));
            let idx = 4 * Svgd::<f32>::index_len(n);
            println!(
                "| {label} | {d} | {n} | {p} | {len} | {} + {idx} index | {} + {idx} index |",
                4 * len,
                8 * len
            );
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--workspace-table") {
        workspace_table();
        return;
    }
    let mut out = String::new();
    let mut ws32 = vec![0.0f32; runs::AMAGOLD_WS];
    let mut ws64 = vec![0.0f64; runs::AMAGOLD_WS];
    for run in &runs::AMAGOLD_RUNS {
        if run.core_only() {
            runs::amagold_core::<f64>(&mut out, run, &mut ws64).expect("host f64 core run");
            runs::amagold_core::<f32>(&mut out, run, &mut ws32).expect("host f32 core run");
            continue;
        }
        match run.model {
            runs::ModelKind::DoubleWell => {
                amagold_reference::<f64, _>(&mut out, run, &mut runs::DoubleWell { noise: 1.0 })
            }
            runs::ModelKind::Gauss3 => {
                amagold_reference::<f64, _>(&mut out, run, &mut runs::Gauss3 { noise: 0.5 })
            }
        }
        runs::amagold_core::<f32>(&mut out, run, &mut ws32).expect("host f32 core run");
    }
    let mut particles = vec![0.0f32; runs::SVGD_N];
    let mut index = vec![0u32; runs::SVGD_N];
    for run in &runs::SVGD_RUNS {
        svgd_reference::<f64>(&mut out, run);
        let mut ws = vec![0.0f32; Svgd::<f32>::workspace_len(runs::SVGD_N, 1, &run.cfg)];
        runs::svgd_core::<f32>(&mut out, run, &mut particles, &mut ws, &mut index)
            .expect("host f32 core run");
    }
    std::io::stdout().write_all(out.as_bytes()).unwrap();
}
