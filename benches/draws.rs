//! The cost of `sgsample::draws::summary` — the code behind `sgs_draws_summary` — on AR(1) chains
//! (φ = 0.7), timed by the thread's own CPU clock (`benches/cpu_clock`: on a shared machine the
//! wall clock measures the load). Each shape reports the minimum over a few repetitions, per
//! call and per coordinate. docs/algorithms.md §4.7 quotes these numbers.
//!
//! Run: `cargo bench --bench draws` (about 30 s; the 4 × 10⁵ × 10 case is most of it).

use sgsample::draws::{self, Shape, Summary};
use std::hint::black_box;

mod cpu_clock;

/// AR(1) draws from an LCG's centred sums of uniforms (deterministic, no dependency).
fn ar1(chains: usize, n: usize, dim: usize) -> Vec<f64> {
    let mut state = 7u64;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 * (1.0 / 9007199254740992.0)
    };
    let mut x = vec![0.0; chains * n * dim];
    for c in 0..chains {
        let mut y = vec![0.0; dim];
        for t in 0..n {
            for (j, yj) in y.iter_mut().enumerate() {
                let e = uniform() + uniform() + uniform() + uniform() - 2.0;
                *yj = 0.7 * *yj + e;
                x[(c * n + t) * dim + j] = *yj;
            }
        }
    }
    x
}

fn main() {
    if cpu_clock::thread_cpu_seconds().is_none() {
        println!("draws bench: no thread CPU clock on this platform; nothing measured");
        return;
    }
    println!(
        "sgsample::draws::summary (every statistic), f64, thread CPU time, minimum of repeats"
    );
    for (chains, n, dim, rounds) in [(4usize, 1000usize, 10usize, 20usize), (4, 100_000, 10, 3)] {
        let x = ar1(chains, n, dim);
        let shape = Shape::new(chains, n, dim);
        let mut scratch = vec![0.0; draws::scratch_len(chains, n).expect("scratch")];
        let mut out = vec![Summary::default(); dim];
        let mut best = f64::INFINITY;
        for _ in 0..rounds {
            let t0 = cpu_clock::thread_cpu_seconds().unwrap_or(0.0);
            draws::summary(black_box(&x), shape, &mut scratch, &mut out).expect("summary");
            black_box(&out);
            best = best.min(cpu_clock::thread_cpu_seconds().unwrap_or(0.0) - t0);
        }
        println!(
            "  {chains} chains × {n} draws × {dim} coordinates: {:9.2} ms per call, {:8.3} ms per coordinate (scratch {:.1} MB)",
            best * 1e3,
            best * 1e3 / dim as f64,
            scratch.len() as f64 * 8.0 / 1e6
        );
    }
}
