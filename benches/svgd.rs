//! RBM-SVGD and SVGD: one iteration on the 1-D Gaussian mixture of docs/algorithms.md §2.4,
//! π = ⅓N(−2, 1) + ⅔N(2, 1), N = 256 particles, fixed h = 2, AdaGrad η = 0.2, for batch sizes
//! p ∈ {2, 8, 32, 256} (p = N is full SVGD), plus full SVGD with the median heuristic (the
//! bandwidth recomputed every iteration from the N(N−1)/2 pairwise distances) and, with the
//! inverse multiquadric kernel (c = 1), RBM-SVGD p = 8 and full SVGD at β = ½ (k = 1/√(1 + r²))
//! and full SVGD at β = ¾ (k = exp(−β·ln(1 + r²))).
//!
//! The particles start from N(−10, 1) and are moved 500 iterations (the paper's run length)
//! before timing, so the figures are for a spread-out, converged system. The kernel work is
//! p−1 evaluations per particle (N/2·(p−1) exp calls per iteration); N gradients per iteration.
//!
//! Run: `cargo bench --bench svgd`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use sgsample::{KernelChoice, Rng, StepRule, Svgd, SvgdConfig};
use std::hint::black_box;
use std::time::Duration;

mod models;
use models::Mixture;

const N: usize = 256;

fn start() -> Vec<f64> {
    let mut rng = Rng::new(1, 99);
    (0..N).map(|_| -10.0 + rng.normal()).collect()
}

fn bench_config(c: &mut Criterion, name: &str, p: usize, kernel: KernelChoice) {
    let cfg = SvgdConfig::new(p, kernel, StepRule::adagrad(0.2));
    let mut x = start();
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(N, 1, &cfg)];
    let mut idx = vec![0u32; Svgd::<f64>::index_len(N)];
    let mut s = Svgd::new(&cfg, 1, &mut x, &mut ws, &mut idx).unwrap();
    s.run(500, &mut Mixture).unwrap();
    c.bench_with_input(BenchmarkId::new(name, p), &p, |b, _| {
        b.iter(|| black_box(s.step(&mut Mixture).unwrap()))
    });
}

fn benches(c: &mut Criterion) {
    for p in [2, 8, 32, N] {
        bench_config(
            c,
            "rbm_svgd_mixture_N256_h2",
            p,
            KernelChoice::Gaussian { h: 2.0 },
        );
    }
    bench_config(
        c,
        "svgd_median_mixture_N256",
        N,
        KernelChoice::GaussianMedian,
    );
    let imq = |beta| KernelChoice::InverseMultiquadric { c: 1.0, beta };
    for p in [8, N] {
        bench_config(c, "rbm_svgd_imq_mixture_N256_b0.5", p, imq(0.5));
    }
    bench_config(c, "svgd_imq_mixture_N256_b0.75", N, imq(0.75));
}

criterion_group! {
    name = svgd;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30);
    targets = benches
}
criterion_main!(svgd);
