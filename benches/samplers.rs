//! AMAGOLD and SGHMC: one outer iteration (T = 10 inner steps) on a standard Gaussian in
//! d ∈ {1, 10, 100}, f32 and f64.
//!
//! The target is U(θ) = |θ|²/2 with its exact gradient θ: the model costs d multiply-adds, so
//! the figures are the samplers' own work (T·d normals for the friction noise, d for the
//! momentum, the updates, ρ, one uniform and the accept test). The chain is burnt in for 1000
//! iterations before timing so that it is measured at stationarity.
//!
//! The `*_inner` groups measure the per-coordinate inner step at d = 10 … 10⁵: one outer
//! iteration of T = 10 with the trivial gradient g = θ, reported as throughput in
//! coordinate-steps (T·d elements), so criterion's "elem/s" is the inverse of the cost per
//! coordinate per inner step (the momentum draw and the accept test are spread over it).
//!
//! Run: `cargo bench --bench samplers` (or `-- _inner` for those groups alone).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sgsample::{Amagold, AmagoldConfig, Float, Sghmc, SghmcConfig};
use std::hint::black_box;
use std::time::Duration;

mod models;
use models::StdNormal;

const DIMS: [usize; 3] = [1, 10, 100];

/// One group: one outer iteration per call at each d, after `burn(d)` iterations. With
/// `per_coordinate`, the throughput is T·d elements (criterion's elem/s is then coordinate-steps
/// per second).
fn amagold_group<T: Float>(c: &mut Criterion, name: String, dims: &[usize], per_coordinate: bool) {
    let mut group = c.benchmark_group(name);
    for &d in dims {
        // ε shrinks with d so the acceptance stays in the usual range (the cost does not depend
        // on it, except through the accept/reject branch).
        let cfg = AmagoldConfig::new(0.5 / (d as f64).powf(0.25));
        let theta0 = vec![T::ZERO; d];
        let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len(d)];
        let mut model = StdNormal;
        let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut model).unwrap();
        for _ in 0..burn(d) {
            chain.step(&mut model).unwrap();
        }
        if per_coordinate {
            group.throughput(Throughput::Elements(cfg.steps as u64 * d as u64));
        }
        group.bench_with_input(BenchmarkId::from_parameter(d), &d, |b, _| {
            b.iter(|| black_box(chain.step(&mut model).unwrap()))
        });
    }
    group.finish();
}

fn sghmc_group<T: Float>(c: &mut Criterion, name: String, dims: &[usize], per_coordinate: bool) {
    let mut group = c.benchmark_group(name);
    for &d in dims {
        let cfg = SghmcConfig::new(0.5 / (d as f64).powf(0.25));
        let theta0 = vec![T::ZERO; d];
        let mut ws = vec![T::ZERO; Sghmc::<T>::workspace_len(d)];
        let mut model = StdNormal;
        let mut chain = Sghmc::new(&cfg, &theta0, &mut ws).unwrap();
        for _ in 0..burn(d) {
            chain.step(&mut model).unwrap();
        }
        if per_coordinate {
            group.throughput(Throughput::Elements(cfg.steps as u64 * d as u64));
        }
        group.bench_with_input(BenchmarkId::from_parameter(d), &d, |b, _| {
            b.iter(|| black_box(chain.step(&mut model).unwrap()))
        });
    }
    group.finish();
}

/// Burn-in iterations: 1000, fewer at large d (the chain is at stationarity sooner than that
/// matters for the cost, and 1000 iterations at d = 10⁵ would take seconds).
fn burn(d: usize) -> usize {
    (100_000 / d).clamp(10, 1000)
}

/// Dimensions of the per-coordinate measure.
const INNER_DIMS: [usize; 4] = [10, 1000, 10_000, 100_000];

fn inner(c: &mut Criterion) {
    sghmc_group::<f64>(c, "sghmc_inner_f64".into(), &INNER_DIMS, true);
    sghmc_group::<f32>(c, "sghmc_inner_f32".into(), &INNER_DIMS, true);
    amagold_group::<f64>(c, "amagold_inner_f64".into(), &INNER_DIMS, true);
    amagold_group::<f32>(c, "amagold_inner_f32".into(), &INNER_DIMS, true);
}

fn benches(c: &mut Criterion) {
    amagold_group::<f64>(c, "amagold_T10_f64".into(), &DIMS, false);
    amagold_group::<f32>(c, "amagold_T10_f32".into(), &DIMS, false);
    sghmc_group::<f64>(c, "sghmc_T10_f64".into(), &DIMS, false);
    sghmc_group::<f32>(c, "sghmc_T10_f32".into(), &DIMS, false);
}

criterion_group! {
    name = samplers;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30);
    targets = benches, inner
}
criterion_main!(samplers);
