//! The cost of one exact normal and of the chains' inner step per coordinate, timed by the
//! thread's own CPU clock (Linux `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): on a machine shared
//! with other work (2 cores here, often more runnable processes), wall-clock benchmarks such as
//! `benches/random.rs` measure the machine's load, the thread's CPU time much less so. Each case
//! reports the minimum over repetitions, per draw or per coordinate-step. Cache and branch
//! predictor state still suffer from the other processes, so compare builds measured in the same
//! run, interleaved, rather than against numbers from another day.
//!
//! Run: `cargo bench --bench cputime` (a few seconds; prints nothing but the table on Linux,
//! and says so elsewhere).

use sgsample::{Amagold, AmagoldConfig, Rng, Sghmc, SghmcConfig};
use std::hint::black_box;

mod models;
use models::StdNormal;

/// Repetitions of each case; the minimum is reported.
const ROUNDS: usize = 30;

mod cpu_clock;

/// Thread CPU time in nanoseconds; `None` where the clock is not known to be available.
fn cpu_ns() -> Option<f64> {
    cpu_clock::thread_cpu_seconds().map(|s| s * 1e9)
}

/// Minimum over [`ROUNDS`] of the CPU time of `work`, divided by `units`.
fn best(units: usize, mut work: impl FnMut()) -> Option<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..ROUNDS {
        let t0 = cpu_ns()?;
        work();
        best = best.min((cpu_ns()? - t0) / units as f64);
    }
    Some(best)
}

#[inline(never)]
fn normals_per_call(rng: &mut Rng, out: &mut [f64]) {
    for v in out.iter_mut() {
        *v = rng.normal();
    }
    black_box(out);
}

#[inline(never)]
fn normals_fill(rng: &mut Rng, out: &mut [f64]) {
    rng.fill_normal(out);
    black_box(out);
}

#[inline(never)]
fn uniforms(rng: &mut Rng, out: &mut [f64]) {
    for v in out.iter_mut() {
        *v = rng.uniform_f64();
    }
    black_box(out);
}

fn main() {
    if cpu_ns().is_none() {
        println!("cputime: no thread CPU clock on this target; nothing measured");
        return;
    }
    const BATCHES: usize = 2000;
    let mut out = vec![0.0f64; 1000];
    let mut rows: Vec<(&str, &str, f64)> = Vec::new();
    type Fill = fn(&mut Rng, &mut [f64]);
    for (name, f) in [
        (
            "Rng::normal in a loop (normal_x1000/ziggurat)",
            normals_per_call as Fill,
        ),
        (
            "Rng::fill_normal (normal_x1000/ziggurat_fill)",
            normals_fill,
        ),
        ("Rng::uniform_f64 (normal_x1000/uniform_f64_only)", uniforms),
    ] {
        let mut rng = Rng::new(1, 0);
        let t = best(BATCHES * out.len(), || {
            for _ in 0..BATCHES {
                f(&mut rng, &mut out);
            }
        });
        rows.push((name, "draw", t.unwrap_or(f64::NAN)));
    }
    let d = 1000;
    let steps = 100;
    let mut model = StdNormal;
    // As `benches/instructions.rs`: one outer iteration is 10 inner steps over d coordinates.
    let sghmc_cfg = SghmcConfig::new(0.5 / (d as f64).powf(0.25));
    let mut ws = vec![0.0; Sghmc::<f64>::workspace_len(d)];
    let mut chain = Sghmc::new(&sghmc_cfg, &vec![0.0; d], &mut ws).unwrap();
    let t = best(steps * sghmc_cfg.steps as usize * d, || {
        for _ in 0..steps {
            black_box(chain.step(&mut model).unwrap());
        }
    });
    rows.push((
        "SGHMC f64 d = 1000, trivial gradient",
        "coordinate-step",
        t.unwrap_or(f64::NAN),
    ));
    let amagold_cfg = AmagoldConfig::new(0.5 / (d as f64).powf(0.25));
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len(d)];
    let mut chain = Amagold::new(&amagold_cfg, &vec![0.0; d], &mut ws, &mut model).unwrap();
    let t = best(steps * amagold_cfg.steps as usize * d, || {
        for _ in 0..steps {
            black_box(chain.step(&mut model).unwrap());
        }
    });
    rows.push((
        "AMAGOLD f64 d = 1000, trivial gradient",
        "coordinate-step",
        t.unwrap_or(f64::NAN),
    ));
    println!("| case | thread CPU time per | ns (min of {ROUNDS}) |");
    println!("|---|---|---:|");
    for (name, unit, ns) in rows {
        println!("| {name} | {unit} | {ns:.3} |");
    }
}
