//! Random-number primitives: the library's exact 128-layer Ziggurat normal against a
//! Box–Muller written here (the textbook alternative), and the `minibatch` helper at the
//! Covertype scale (B = 100 of n = 581 012).
//!
//! Each normal benchmark draws 1000 normals from the same PCG64-DXSM stream ([`Rng`]), so the
//! per-normal cost is the reported time / 1000. Box–Muller is given both its outputs
//! (`sqrt(−2 ln u₁)·(cos 2πu₂, sin 2πu₂)`) and comes in two builds: through `libm` (what a
//! `no_std`, bit-reproducible library must use) and through `std`'s `f64::ln/cos/sin` (the
//! platform libm: faster here, but not the same bits on every target).
//!
//! Run: `cargo bench --bench random` (wall clock: on a shared machine `benches/cputime.rs`
//! measures the same loops by the thread's CPU time).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sgsample::{minibatch, Rng};
use std::f64::consts::TAU;
use std::hint::black_box;
use std::time::Duration;

const DRAWS: usize = 1000;

/// Box–Muller with both outputs used; `u₁ ∈ (0, 1]` so the logarithm is finite.
fn box_muller_libm(rng: &mut Rng, out: &mut [f64]) {
    for pair in out.chunks_mut(2) {
        let u1 = 1.0 - rng.uniform_f64();
        let u2 = rng.uniform_f64();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let (s, c) = libm::sincos(TAU * u2);
        pair[0] = r * c;
        if let Some(second) = pair.get_mut(1) {
            *second = r * s;
        }
    }
}

/// The same with `std`'s (platform) transcendental functions.
fn box_muller_std(rng: &mut Rng, out: &mut [f64]) {
    for pair in out.chunks_mut(2) {
        let u1 = 1.0 - rng.uniform_f64();
        let u2 = rng.uniform_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (TAU * u2).sin_cos();
        pair[0] = r * c;
        if let Some(second) = pair.get_mut(1) {
            *second = r * s;
        }
    }
}

fn normals(c: &mut Criterion) {
    let mut group = c.benchmark_group("normal_x1000");
    group.throughput(Throughput::Elements(DRAWS as u64));
    let mut out = vec![0.0f64; DRAWS];
    let mut rng = Rng::new(1, 0);
    group.bench_function("ziggurat", |b| {
        b.iter(|| {
            for v in out.iter_mut() {
                *v = rng.normal();
            }
            black_box(&out);
        })
    });
    // The same draws through `fill_normal`, whose loop keeps the generator in registers (a
    // caller's loop over `normal()` through `&mut Rng` stores and reloads it at every draw).
    let mut rng = Rng::new(1, 0);
    group.bench_function("ziggurat_fill", |b| {
        b.iter(|| {
            rng.fill_normal(&mut out);
            black_box(&out);
        })
    });
    let mut rng = Rng::new(1, 0);
    group.bench_function("box_muller_libm", |b| {
        b.iter(|| {
            box_muller_libm(&mut rng, &mut out);
            black_box(&out);
        })
    });
    let mut rng = Rng::new(1, 0);
    group.bench_function("box_muller_std", |b| {
        b.iter(|| {
            box_muller_std(&mut rng, &mut out);
            black_box(&out);
        })
    });
    // The floor: the uniform draws alone (one u64 per normal, as Box–Muller uses).
    let mut rng = Rng::new(1, 0);
    group.bench_function("uniform_f64_only", |b| {
        b.iter(|| {
            for v in out.iter_mut() {
                *v = rng.uniform_f64();
            }
            black_box(&out);
        })
    });
    group.finish();
}

fn minibatches(c: &mut Criterion) {
    let mut out = [0u64; 100];
    let mut seed = 0u64;
    c.bench_function("minibatch_B100_n581012", |b| {
        b.iter(|| {
            seed = seed.wrapping_add(1);
            minibatch(black_box(seed), 581_012, &mut out).unwrap();
            black_box(&out);
        })
    });
}

criterion_group! {
    name = random;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30);
    targets = normals, minibatches
}
criterion_main!(random);
