//! The cost of RBM-SVGD's permutation per slot, and of a serial RBM-SVGD step with each
//! (`Permutation::Shuffle`, the default, against `Permutation::Feistel`), timed by the thread's
//! own CPU clock (`benches/cpu_clock`), minimum over a few repetitions. docs/algorithms.md
//! ("The Feistel bijection") and docs/scaling.md quote these numbers.
//!
//! * Fisher–Yates: the shuffle's N − 1 bounded draws (`Rng::below`, as `begin` makes them) on
//!   the identity, serial by construction;
//! * Feistel: `Feistel::fill` over all N slots (what a range does for its own slots), and
//!   `Feistel::invert_fill` over all N particles (what a shard does for its block);
//! * the serial step: a cheap 1-d gradient like docs/scaling.md's (an equal mixture of two unit
//!   Gaussians, one `exp` per point), p = 8, AdaGrad (η = 0.05, α = 0.9), Gaussian kernel
//!   h = 2, f64.
//!
//! Run: `cargo bench --bench permutation` (about 40 s).

use sgsample::svgd::{Feistel, Permutation};
use sgsample::{Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};
use std::hint::black_box;

mod cpu_clock;

/// Minimum thread CPU seconds of `rounds` calls of `f`.
fn best(rounds: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let t0 = cpu_clock::thread_cpu_seconds().unwrap_or(0.0);
        f();
        best = best.min(cpu_clock::thread_cpu_seconds().unwrap_or(0.0) - t0);
    }
    best
}

/// ∇V of the equal mixture of N(−2, 1) and N(2, 1) (docs/scaling.md's cheap model).
struct Mixture;
impl Gradient<f64> for Mixture {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        // w = weight of the +2 component; ∇V = x − 2(2w − 1).
        let w = 1.0 / (1.0 + (-4.0 * x[0]).exp());
        g[0] = x[0] - 2.0 * (2.0 * w - 1.0);
        Ok(())
    }
}

fn step_ms(n: usize, permutation: Permutation) -> f64 {
    let cfg = SvgdConfig {
        seed: 1,
        permutation,
        ..SvgdConfig::new(
            8,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::adagrad(0.05),
        )
    };
    let mut rng = Rng::new(5, 0);
    let mut x: Vec<f64> = (0..n).map(|_| 3.0 * rng.normal()).collect();
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, 1, &cfg)];
    let mut idx = vec![0u32; n];
    let mut svgd = Svgd::new(&cfg, 1, &mut x, &mut ws, &mut idx).expect("valid");
    svgd.run(2, &mut Mixture).expect("finite");
    best(7, || {
        svgd.step(&mut Mixture).expect("finite");
    }) * 1e3
}

fn main() {
    if cpu_clock::thread_cpu_seconds().is_none() {
        println!("permutation bench: no thread CPU clock on this platform; nothing measured");
        return;
    }
    println!("RBM-SVGD's permutation, thread CPU time, minimum of repeats");
    println!(
        "| N | Fisher–Yates ns/slot | Feistel fill ns/slot | inverse ns/particle | step, shuffle (ms) | step, Feistel (ms) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in [4096usize, 65_536, 100_000, 1 << 20, 10_000_000] {
        let mut perm = vec![0u32; n];
        let mut rng = Rng::new(3, 0);
        let fy = best(5, || {
            for (t, v) in perm.iter_mut().enumerate() {
                *v = t as u32;
            }
            for t in 0..n - 1 {
                let j = t + rng.below((n - t) as u64) as usize;
                perm.swap(t, j);
            }
            black_box(&perm);
        });
        let f = Feistel::new(rng.next_u64(), n as u64);
        let fe = best(5, || {
            f.fill(0, &mut perm);
            black_box(&perm);
        });
        let inv = best(5, || {
            f.invert_fill(0, &mut perm);
            black_box(&perm);
        });
        let per = |s: f64| s * 1e9 / n as f64;
        let (ss, sf) = if n <= 1 << 20 {
            (
                format!("{:.3}", step_ms(n, Permutation::Shuffle)),
                format!("{:.3}", step_ms(n, Permutation::Feistel)),
            )
        } else {
            ("—".into(), "—".into())
        };
        println!(
            "| {n} | {:.2} | {:.2} | {:.2} | {ss} | {sf} |",
            per(fy),
            per(fe),
            per(inv)
        );
    }
}
