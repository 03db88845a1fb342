//! The kernelized Stein discrepancy (docs/algorithms.md §2.5): against exact samples, along an
//! SVGD run, the batch estimate against the full value, core against reference, and its errors.
//!
//! # Where the tolerances come from
//!
//! * Exact samples of N(0, I₂), IMQ base kernel c = 1, β = −½. The V-statistic's mean is
//!   `E u(x, x)/N` exactly (the off-diagonal Stein kernel has mean 0 under π), and
//!   `u(x, x) = |x|² + d` here, so `N·E[KSD²] = 2d = 4` for every N. Per N, R = 40 replicates
//!   give the mean of `N·KSD²` and its standard error; the test requires each mean within 4
//!   standard errors of 4, and the fitted slope of `log mean KSD²` on `log N` (6 values of N,
//!   32 to 1024) within 4 propagated standard errors of −1, i.e. KSD ∝ N^(−1/2).
//! * Batch vs full: R = 4000 random partitions of one fixed, non-exact particle set; the mean of
//!   the batch estimates must lie within 4 standard errors (their sd/√R) of the full value.
//! * Plausible bugs: the same statistics computed with a Stein kernel whose score term has the
//!   wrong sign, or which lacks the trace term, must fail them (checked in the tests below, on the
//!   same draws).

use sgsample::svgd::{ksd_batch, ksd_full, BatchSchedule, BatchScheduler, KsdChoice, SteinImq};
use sgsample::{
    Batching, Error, Float, Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig,
};
use sgsample_reference::ksd as rk;
use sgsample_reference::svgd as r;

const IMQ: SteinImq = SteinImq { c: 1.0, beta: -0.5 };

/// N exact draws of N(0, I_d) on stream `stream`, and their gradients ∇V(x) = x.
fn gaussian_sample(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed, 4242);
    let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
    (x.clone(), x)
}

/// A Stein kernel for the tests' own statistics: the library's (through `ksd_full` on two
/// points) or a mutant.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Library,
    WrongScoreSign,
    NoTrace,
}

/// KSD² (V-statistic) of `x` with gradients `g` under a variant of the Stein kernel.
fn ksd2(variant: Variant, x: &[f64], g: &[f64], d: usize) -> f64 {
    if variant == Variant::Library {
        return ksd_full(x, g, d, &IMQ).unwrap();
    }
    let n = x.len() / d;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            let (xi, xj) = (&x[i * d..][..d], &x[j * d..][..d]);
            let (gi, gj) = (&g[i * d..][..d], &g[j * d..][..d]);
            let (mut r2, mut gg, mut gd) = (0.0, 0.0, 0.0);
            for l in 0..d {
                r2 += (xi[l] - xj[l]) * (xi[l] - xj[l]);
                gg += gi[l] * gj[l];
                gd += (gi[l] - gj[l]) * (xi[l] - xj[l]);
            }
            let q = 1.0 + r2;
            let (k, k1, k2) = (q.powf(-0.5), q.powf(-1.5), q.powf(-2.5));
            let (b, df) = (-0.5, d as f64);
            let trace = -2.0 * b * df * k1 - 4.0 * b * (b - 1.0) * k2 * r2;
            s += match variant {
                Variant::WrongScoreSign => k * gg - 2.0 * b * k1 * gd + trace,
                Variant::NoTrace => k * gg + 2.0 * b * k1 * gd,
                Variant::Library => unreachable!(),
            };
        }
    }
    s / (n * n) as f64
}

/// Checks the N^(−1/2) law on exact Gaussian samples; returns a description of the first
/// failure, if any.
fn exact_sample_law(variant: Variant) -> Result<(), String> {
    let d = 2;
    let reps = 40;
    let ns = [32usize, 64, 128, 256, 512, 1024];
    let (mut lx, mut ly, mut lse) = (Vec::new(), Vec::new(), Vec::new());
    for (k, &n) in ns.iter().enumerate() {
        // Fewer replicates at the largest N (O(N²) each); the standard error accounts for it.
        let reps = if n >= 1024 { reps / 4 } else { reps };
        let v: Vec<f64> = (0..reps)
            .map(|r| {
                let (x, g) = gaussian_sample(n, d, 1000 * k as u64 + r as u64);
                n as f64 * ksd2(variant, &x, &g, d)
            })
            .collect();
        let m = v.iter().sum::<f64>() / reps as f64;
        let sd = (v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (reps - 1) as f64).sqrt();
        let se = sd / (reps as f64).sqrt();
        if (m - 4.0).abs() > 4.0 * se {
            return Err(format!("N = {n}: N·E KSD² = {m:.4} ± {se:.4}, exact 4"));
        }
        lx.push((n as f64).ln());
        ly.push((m / n as f64).ln());
        lse.push(se / m);
    }
    // Least-squares slope of log E KSD² on log N, its standard error propagated from the
    // per-N relative standard errors.
    let k = lx.len() as f64;
    let mx = lx.iter().sum::<f64>() / k;
    let my = ly.iter().sum::<f64>() / k;
    let sxx: f64 = lx.iter().map(|a| (a - mx) * (a - mx)).sum();
    let slope = lx
        .iter()
        .zip(&ly)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / sxx;
    let se = lx
        .iter()
        .zip(&lse)
        .map(|(a, s)| ((a - mx) / sxx * s).powi(2))
        .sum::<f64>()
        .sqrt();
    if (slope + 1.0).abs() > 4.0 * se {
        return Err(format!(
            "slope of log KSD² {slope:.4} ± {se:.4}, expected −1"
        ));
    }
    Ok(())
}

#[test]
fn ksd_of_exact_gaussian_samples_falls_like_inverse_square_root_of_n() {
    exact_sample_law(Variant::Library).unwrap();
}

/// The test above catches the plausible bugs: a wrong sign of the score term (the off-diagonal
/// kernel no longer has mean 0) and a missing trace term (the diagonal is `|x|²` alone).
#[test]
fn plausible_stein_kernel_bugs_fail_the_exact_sample_law() {
    assert!(exact_sample_law(Variant::WrongScoreSign).is_err());
    assert!(exact_sample_law(Variant::NoTrace).is_err());
}

/// The library's Stein kernel equals the mutant-free formula written out in this file.
#[test]
fn ksd_full_matches_the_formula_written_out() {
    let (x, _) = gaussian_sample(40, 3, 7);
    let g: Vec<f64> = x.iter().map(|v| v * 1.3 + 0.2 * v.sin()).collect();
    let lib = ksd_full(&x, &g, 3, &IMQ).unwrap();
    let n = 40;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += rk::stein(
                1.0,
                -0.5,
                &x[i * 3..][..3],
                &x[j * 3..][..3],
                &g[i * 3..][..3],
                &g[j * 3..][..3],
            );
        }
    }
    let direct = s / (n * n) as f64;
    assert!(
        (lib - direct).abs() <= 1e-12 * direct.abs(),
        "{lib} vs {direct}"
    );
    // And it is not trivially zero: these particles do not follow N(0, I) under that gradient.
    assert!(lib > 0.01, "{lib}");
}

/// A fixed particle set that is not a sample of the target N(0, 1): KSD well above 0.
fn skewed_set(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(5, 6);
    let x: Vec<f64> = (0..n * d).map(|_| 0.7 * rng.normal() + 0.4).collect();
    let g = x.clone();
    (x, g)
}

/// The batch estimate's mean over many random partitions is the full value.
#[test]
fn batch_estimate_is_unbiased_for_the_full_value() {
    for &(n, d, p) in &[(64usize, 2usize, 8usize), (50, 1, 7), (30, 3, 2)] {
        let (x, g) = skewed_set(n, d);
        let full = ksd_full(&x, &g, d, &IMQ).unwrap();
        let mut rng = Rng::new(11, n as u64);
        let mut idx = vec![0u32; n];
        let reps = 4000;
        let v: Vec<f64> = (0..reps)
            .map(|_| ksd_batch(&x, &g, d, p, &IMQ, &mut rng, &mut idx).unwrap())
            .collect();
        let m = v.iter().sum::<f64>() / reps as f64;
        let sd = (v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (reps - 1) as f64).sqrt();
        let se = sd / (reps as f64).sqrt();
        assert!(
            (m - full).abs() <= 4.0 * se,
            "N {n} d {d} p {p}: batch mean {m} ± {se}, full {full}"
        );
        // Not a test that cannot fail: the estimates do vary, and a wrongly weighted estimate
        // (the pair sums rescaled by 1/N instead of (N−1)/N) misses the full value.
        assert!(sd > 0.0);
        let diag: f64 = (0..n)
            .map(|i| {
                rk::stein(
                    1.0,
                    -0.5,
                    &x[i * d..][..d],
                    &x[i * d..][..d],
                    &g[i * d..][..d],
                    &g[i * d..][..d],
                )
            })
            .sum::<f64>()
            / (n * n) as f64;
        let wrong = diag + (m - diag) / (n - 1) as f64;
        assert!(
            (wrong - full).abs() > 4.0 * se,
            "N {n}: the check would not see a wrong weight"
        );
    }
}

/// With p = N the only batch is everything: the batch estimate is the full value.
#[test]
fn batch_estimate_with_one_batch_is_the_full_value() {
    let (x, g) = skewed_set(33, 2);
    let full = ksd_full(&x, &g, 2, &IMQ).unwrap();
    let mut idx = vec![0u32; 33];
    let b = ksd_batch(&x, &g, 2, 33, &IMQ, &mut Rng::new(1, 1), &mut idx).unwrap();
    assert!((b - full).abs() <= 1e-13 * full, "{b} vs {full}");
}

/// ∇V of the 1-D mixture ⅓N(−2, 1) + ⅔N(2, 1).
struct Mixture;
impl Gradient<f64> for Mixture {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        g[0] = x[0] - 2.0 + 4.0 / (2.0 * (4.0 * x[0]).exp() + 1.0);
        Ok(())
    }
}

/// Along RBM-SVGD runs on the mixture (the paper's setting, N = 256, from N(−10, 1)), the KSD
/// falls: from the start to the end by orders of magnitude, means over windows of 50 iterations
/// decrease over the first 150 iterations, and at the end it is at the level of exact samples
/// of the same size
/// (`E KSD² = (E_π g² + 1)/N` for exact samples, with `E_π g² = 0.7439` by quadrature on
/// [−15, 15]: 1.74/N; the final particles of RBM-SVGD p = 8, whose batches keep them jittering,
/// were seen at 1.2/N–2.6/N for these seeds; the test requires less than 4/N).
#[test]
fn ksd_falls_along_an_svgd_run_on_the_mixture() {
    let n = 256;
    for seed in 0..4u64 {
        for ksd in [KsdChoice::Full(IMQ), KsdChoice::Batch(IMQ)] {
            let mut rng = Rng::new(seed, 99);
            let mut x: Vec<f64> = (0..n).map(|_| -10.0 + rng.normal()).collect();
            let mut cfg =
                SvgdConfig::new(8, KernelChoice::Gaussian { h: 2.0 }, StepRule::adagrad(0.2));
            cfg.seed = seed;
            cfg.ksd = ksd;
            let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, 1, &cfg)];
            let mut idx = vec![0u32; n];
            let mut s = Svgd::new(&cfg, 1, &mut x, &mut ws, &mut idx).unwrap();
            let k: Vec<f64> = (0..500)
                .map(|_| s.step(&mut Mixture).unwrap().ksd_squared)
                .collect();
            let w: Vec<f64> = k.chunks(50).map(|c| c.iter().sum::<f64>() / 50.0).collect();
            assert!(k[0] > 1.0, "{ksd:?} seed {seed}: start {}", k[0]);
            // Then it reaches the level of its own noise (the random batches keep the particles
            // moving), which is below that of exact samples: asserted below.
            for t in 0..2 {
                assert!(w[t + 1] < w[t], "{ksd:?} seed {seed}: windows {w:?}");
            }
            assert!(
                w[9] < 1e-3 * k[0],
                "{ksd:?} seed {seed}: {} → {}",
                k[0],
                w[9]
            );
            if let KsdChoice::Full(_) = ksd {
                // The final particles as one particle set: below exact samples' mean KSD².
                let mut gr = vec![0.0; n];
                for i in 0..n {
                    Mixture
                        .gradient(&s.particles()[i..i + 1], 0, &mut gr[i..i + 1])
                        .unwrap();
                }
                let last = ksd_full(s.particles(), &gr, 1, &IMQ).unwrap();
                assert!(last < 4.0 / n as f64, "seed {seed}: final KSD² {last}");
            }
        }
    }
}

/// Turning the KSD on changes no particle bit and no draw; core and reference report the same
/// bits of KSD² (f64 and f32, batch and full).
fn reference_case<T: Float>(ksd: KsdChoice, p: usize) {
    let (n, d) = (23, 2);
    let mut rng = Rng::new(3, 3);
    let x0: Vec<T> = (0..n * d).map(|_| T::from_f64(rng.normal())).collect();
    let mut cfg = SvgdConfig::new(p, KernelChoice::Gaussian { h: 0.8 }, StepRule::adagrad(0.1));
    cfg.seed = 9;
    let mut off = cfg;
    off.ksd = KsdChoice::Off;
    cfg.ksd = ksd;
    let (mut xa, mut wa, mut ia) = (
        x0.clone(),
        vec![T::ZERO; Svgd::<T>::workspace_len(n, d, &cfg)],
        vec![0u32; n],
    );
    let (mut xb, mut wb, mut ib) = (
        x0.clone(),
        vec![T::ZERO; Svgd::<T>::workspace_len(n, d, &off)],
        vec![0u32; n],
    );
    let mut a = Svgd::new(&cfg, d, &mut xa, &mut wa, &mut ia).unwrap();
    let mut b = Svgd::new(&off, d, &mut xb, &mut wb, &mut ib).unwrap();
    let (c, beta, full) = match ksd {
        KsdChoice::Full(k) => (k.c, k.beta, true),
        KsdChoice::Batch(k) => (k.c, k.beta, false),
        KsdChoice::Off => unreachable!(),
    };
    let mut refr = r::Svgd::new(
        &x0,
        d,
        p,
        false,
        r::Kernel::Gaussian(0.8),
        r::Rule::AdaGrad {
            eta: 0.1,
            alpha: 0.9,
        },
        9,
        0,
    );
    refr.ksd = Some((c, beta, full));
    struct Lin;
    impl<T: Float> Gradient<T> for Lin {
        fn gradient(&mut self, x: &[T], s: u64, g: &mut [T]) -> Result<(), Stop> {
            for (gl, xl) in g.iter_mut().zip(x) {
                *gl = T::from_f64(1.5 * xl.to_f64() - 0.3 + (s % 5) as f64 * 0.01);
            }
            Ok(())
        }
    }
    let mut g = |x: &[T], s: u64, out: &mut [T]| Lin.gradient(x, s, out);
    for it in 0..20 {
        let ia_ = a.step(&mut Lin).unwrap();
        let ib_ = b.step(&mut Lin).unwrap();
        refr.step(&mut g).unwrap();
        assert!(ib_.ksd_squared.is_nan());
        assert!(ia_.ksd_squared.is_finite() && ia_.ksd_squared != 0.0);
        assert_eq!(
            ia_.ksd_squared.to_bits(),
            refr.ksd_squared.to_bits(),
            "iteration {it}"
        );
        assert_eq!(SvgdInfoNoKsd::of(&ia_), SvgdInfoNoKsd::of(&ib_));
        assert_eq!(a.particles(), b.particles());
    }
}

/// The info without its KSD field, for comparing runs with the KSD on and off.
#[derive(Debug, PartialEq)]
struct SvgdInfoNoKsd(u64, u64, u64, u64, u64, u64);
impl SvgdInfoNoKsd {
    fn of(i: &sgsample::SvgdInfo) -> Self {
        SvgdInfoNoKsd(
            i.iteration,
            i.bandwidth.to_bits(),
            i.step_size.to_bits(),
            i.mean_force.to_bits(),
            i.max_force.to_bits(),
            i.interactions,
        )
    }
}

#[test]
fn ksd_on_changes_nothing_else_and_matches_the_reference() {
    for p in [2, 5, 23] {
        let other = SteinImq { c: 0.7, beta: -0.3 };
        for ksd in [
            KsdChoice::Batch(IMQ),
            KsdChoice::Full(IMQ),
            KsdChoice::Batch(other),
            KsdChoice::Full(other),
        ] {
            reference_case::<f64>(ksd, p);
            reference_case::<f32>(ksd, p);
        }
    }
}

#[test]
fn ksd_and_schedule_errors() {
    let (x, g) = skewed_set(10, 2);
    for bad in [
        SteinImq { c: 0.0, beta: -0.5 },
        SteinImq {
            c: f64::NAN,
            beta: -0.5,
        },
        SteinImq { c: 1.0, beta: 0.0 },
        SteinImq { c: 1.0, beta: -1.0 },
        SteinImq { c: 1.0, beta: 0.5 },
    ] {
        assert_eq!(ksd_full(&x, &g, 2, &bad), Err(Error::InvalidKernel));
    }
    assert_eq!(ksd_full(&x, &g, 0, &IMQ), Err(Error::ZeroDimension));
    assert_eq!(
        ksd_full::<f64>(&[], &[], 2, &IMQ),
        Err(Error::ZeroParticles)
    );
    assert_eq!(ksd_full(&x, &g[1..], 2, &IMQ), Err(Error::LengthMismatch));
    assert_eq!(
        ksd_full(&x[1..], &g[1..], 2, &IMQ),
        Err(Error::LengthMismatch)
    );
    let mut idx = vec![7u32; 10];
    let mut rng = Rng::new(1, 2);
    let before = rng.clone();
    assert_eq!(
        ksd_batch(&x, &g, 2, 1, &IMQ, &mut rng, &mut idx),
        Err(Error::InvalidBatchSize)
    );
    assert_eq!(
        ksd_batch(&x, &g, 2, 11, &IMQ, &mut rng, &mut idx),
        Err(Error::InvalidBatchSize)
    );
    assert_eq!(
        ksd_batch(&x, &g, 2, 2, &IMQ, &mut rng, &mut idx[..9]),
        Err(Error::WorkspaceTooSmall)
    );
    assert_eq!(rng.next_u64(), before.clone().next_u64());
    assert_eq!(idx, vec![7u32; 10]);

    // The SVGD option: the kernel is validated, and with replacement it is refused.
    let mut xs = x.clone();
    let mut cfg = SvgdConfig::new(2, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1));
    cfg.ksd = KsdChoice::Batch(SteinImq { c: 1.0, beta: 0.0 });
    let mut ws = vec![0.0; 200];
    let mut ix = vec![0u32; 10];
    assert_eq!(
        Svgd::new(&cfg, 2, &mut xs, &mut ws, &mut ix).err(),
        Some(Error::InvalidKernel)
    );
    cfg.ksd = KsdChoice::Full(IMQ);
    cfg.batching = Batching::WithReplacement;
    assert_eq!(
        Svgd::new(&cfg, 2, &mut xs, &mut ws, &mut ix).err(),
        Some(Error::InvalidOption)
    );
    let mut s = Svgd::new(
        &SvgdConfig {
            ksd: KsdChoice::Off,
            ..cfg
        },
        2,
        &mut xs,
        &mut ws,
        &mut ix,
    )
    .unwrap();
    assert_eq!(s.set_batch_size(3), Err(Error::InvalidOption));

    // Schedules.
    let d = |start, every| BatchSchedule::Doubling { start, every };
    assert_eq!(
        BatchScheduler::new(d(1, 5), 10).err(),
        Some(Error::InvalidBatchSize)
    );
    assert_eq!(
        BatchScheduler::new(d(11, 5), 10).err(),
        Some(Error::InvalidBatchSize)
    );
    assert_eq!(
        BatchScheduler::new(d(2, 0), 10).err(),
        Some(Error::InvalidArgument)
    );
    let k = |min_decrease| BatchSchedule::KsdDriven {
        start: 2,
        window: 3,
        min_decrease,
    };
    for bad in [-0.1, 1.0, f64::NAN] {
        assert_eq!(
            BatchScheduler::new(k(bad), 10).err(),
            Some(Error::InvalidArgument)
        );
    }
    let plain = SvgdConfig::new(2, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1));
    let sk = BatchScheduler::new(k(0.1), 10).unwrap();
    assert_eq!(sk.check(10, &plain), Err(Error::InvalidOption));
    assert_eq!(
        sk.check(
            11,
            &SvgdConfig {
                ksd: KsdChoice::Batch(IMQ),
                ..plain
            }
        ),
        Err(Error::InvalidBatchSize)
    );
    assert_eq!(
        sk.check(
            10,
            &SvgdConfig {
                ksd: KsdChoice::Batch(IMQ),
                ..plain
            }
        ),
        Ok(())
    );
}

fn info(ksd_squared: f64) -> sgsample::SvgdInfo {
    sgsample::SvgdInfo {
        iteration: 0,
        bandwidth: 1.0,
        step_size: 0.1,
        mean_force: 0.0,
        max_force: 0.0,
        interactions: 0,
        ksd_squared,
    }
}

#[test]
fn schedules_choose_the_documented_batch_sizes() {
    let mut s = BatchScheduler::new(BatchSchedule::Doubling { start: 3, every: 2 }, 20).unwrap();
    let mut ps = vec![s.batch_size()];
    for _ in 0..9 {
        s.observe(&info(f64::NAN));
        ps.push(s.batch_size());
    }
    assert_eq!(ps, [3, 3, 6, 6, 12, 12, 20, 20, 20, 20]);

    // KSD-driven, window 2, δ = 0.5: falls by half → keep; falls less → double.
    let mut s = BatchScheduler::new(
        BatchSchedule::KsdDriven {
            start: 2,
            window: 2,
            min_decrease: 0.5,
        },
        16,
    )
    .unwrap();
    let mut ps = Vec::new();
    for v in [
        8.0, 8.0, 4.0, 3.0, 1.0, 1.0, 0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
    ] {
        s.observe(&info(v));
        ps.push(s.batch_size());
    }
    assert_eq!(ps, [2, 2, 2, 2, 2, 2, 2, 4, 4, 8, 8, 8, 8, 16, 16, 16]);
}

/// A scheduled run is a run with `set_batch_size` before each step: the same bits.
#[test]
fn scheduled_run_equals_manual_batch_size_changes() {
    let n = 40;
    let mut rng = Rng::new(8, 8);
    let x0: Vec<f64> = (0..n).map(|_| -3.0 + rng.normal()).collect();
    let mut cfg = SvgdConfig::new(2, KernelChoice::Gaussian { h: 2.0 }, StepRule::adagrad(0.2));
    cfg.ksd = KsdChoice::Batch(IMQ);
    let len = Svgd::<f64>::workspace_len(n, 1, &cfg);
    let (mut xa, mut wa, mut ia) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let (mut xb, mut wb, mut ib) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut a = Svgd::new(&cfg, 1, &mut xa, &mut wa, &mut ia).unwrap();
    let mut b = Svgd::new(&cfg, 1, &mut xb, &mut wb, &mut ib).unwrap();
    let schedule = BatchSchedule::KsdDriven {
        start: 2,
        window: 5,
        min_decrease: 0.2,
    };
    let mut sa = BatchScheduler::new(schedule, n).unwrap();
    let sum = a.run_scheduled(100, &mut sa, &mut Mixture).unwrap();
    let mut sb = BatchScheduler::new(schedule, n).unwrap();
    let mut last = None;
    for _ in 0..100 {
        b.set_batch_size(sb.batch_size()).unwrap();
        let i = b.step(&mut Mixture).unwrap();
        sb.observe(&i);
        last = Some(i);
    }
    assert_eq!(a.particles(), b.particles());
    assert_eq!(
        sum.last.map(|i| i.ksd_squared.to_bits()),
        last.map(|i| i.ksd_squared.to_bits())
    );
    assert_eq!(sa, sb);
    // The schedule did raise p (else this compares two fixed-p runs).
    assert!(sa.batch_size() > 2, "{}", sa.batch_size());
    // A KSD-driven schedule without the KSD is refused before anything runs.
    let (mut xc, mut wc, mut ic) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let off = SvgdConfig {
        ksd: KsdChoice::Off,
        ..cfg
    };
    let mut c = Svgd::new(&off, 1, &mut xc, &mut wc, &mut ic).unwrap();
    let e = c.run_scheduled(
        5,
        &mut BatchScheduler::new(schedule, n).unwrap(),
        &mut Mixture,
    );
    assert_eq!(
        e.err().map(|e| (e.error, e.partial.iterations)),
        Some((Error::InvalidOption, 0))
    );
    assert_eq!(c.iterations(), 0);
}
