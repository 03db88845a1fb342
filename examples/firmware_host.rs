//! The host side of the firmware comparison (`scripts/test-firmware.sh`): repeats the firmware's
//! runs (`examples-embedded/src/runs.rs`, shared through `#[path]`) and prints the same lines.
//!
//! * `f64` runs: the plain std reference implementation ([`sgsample::reference`]), so the
//!   firmware's `f64` output must equal the reference bit for bit.
//! * `f32` runs: the library's core sampler in `f32` on the host.
//!
//! `cargo run --release -p sgsample --features std --example firmware_host`
//! (`-- --workspace-table` prints the workspace sizes for docs/footprint.md instead).

use sgsample::reference::amagold::{Amagold as RefAmagold, Model};
use sgsample::{Amagold, Float, Potential, Stop, Variant};
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

fn workspace_table() {
    println!(
        "AMAGOLD workspace: {} coordinates per dimension",
        Amagold::<f32>::workspace_len(1)
    );
    for d in [1usize, 2, 10, 100] {
        println!(
            "  d = {d:>3}: f32 {:>5} bytes, f64 {:>5} bytes",
            Amagold::<f32>::workspace_len(d) * 4,
            Amagold::<f64>::workspace_len(d) * 8
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--workspace-table") {
        workspace_table();
        return;
    }
    let mut out = String::new();
    let mut ws32 = vec![0.0f32; Amagold::<f32>::workspace_len(runs::MAX_D)];
    for run in &runs::AMAGOLD_RUNS {
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
    std::io::stdout().write_all(out.as_bytes()).unwrap();
}
