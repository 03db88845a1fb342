//! Invalid inputs return specific errors and change nothing; failed iterations (ABORT, REJECT,
//! non-finite gradients or updates) leave particles, history and generator as they were;
//! workspace sizes and the info record.

use sgsample::svgd::Batching;
use sgsample::{Error, Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};

const D: usize = 2;

/// ∇V(x) = x, or a scripted failure at gradient call number `fail_at` (0-based, counted over
/// the sampler's life).
struct Scripted {
    calls: usize,
    fail_at: usize,
    how: Option<Stop>,
    nan: bool,
}

impl Scripted {
    fn ok() -> Self {
        Scripted {
            calls: 0,
            fail_at: usize::MAX,
            how: None,
            nan: false,
        }
    }
    fn failing(at: usize, how: Option<Stop>, nan: bool) -> Self {
        Scripted {
            calls: 0,
            fail_at: at,
            how,
            nan,
        }
    }
}

impl Gradient<f64> for Scripted {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let call = self.calls;
        self.calls += 1;
        if call == self.fail_at {
            if let Some(stop) = self.how {
                return Err(stop);
            }
            if self.nan {
                g.fill(f64::NAN);
                return Ok(());
            }
        }
        let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
        for l in 0..x.len() {
            g[l] = x[l] + 0.1 * u;
        }
        Ok(())
    }
}

fn particles(n: usize) -> Vec<f64> {
    let mut rng = Rng::new(11, 0);
    (0..n * D).map(|_| rng.normal()).collect()
}

fn cfg(p: usize) -> SvgdConfig<KernelChoice> {
    SvgdConfig::new(p, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1))
}

/// `new` with the given buffers must fail with `want` and leave all three untouched.
fn rejects(
    c: &SvgdConfig<KernelChoice>,
    d: usize,
    x: &[f64],
    ws_len: usize,
    idx_len: usize,
    want: Error,
) {
    let mut xs = x.to_vec();
    let mut ws = vec![-7.25; ws_len];
    let mut idx = vec![99u32; idx_len];
    let r = Svgd::new(c, d, &mut xs, &mut ws, &mut idx).err();
    assert_eq!(
        r,
        Some(want),
        "{c:?} d={d} n·d={} ws={ws_len} idx={idx_len}",
        x.len()
    );
    let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&xs), bits(x));
    assert!(ws.iter().all(|&v| v == -7.25));
    assert!(idx.iter().all(|&v| v == 99));
}

#[test]
fn invalid_configurations() {
    let n = 10;
    let x = particles(n);
    let big = 10_000;
    let ok = |c: &SvgdConfig<KernelChoice>| Svgd::<f64>::workspace_len(n, D, c);
    // Batch size.
    for p in [0, 1, n + 1, usize::MAX] {
        rejects(&cfg(p), D, &x, big, n, Error::InvalidBatchSize);
    }
    rejects(&cfg(2), D, &x[..D], big, n, Error::InvalidBatchSize); // N = 1
                                                                   // Bandwidth.
    for h in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::MIN_POSITIVE / 4.0] {
        let c = SvgdConfig {
            kernel: KernelChoice::Gaussian { h },
            ..cfg(2)
        };
        rejects(&c, D, &x, big, n, Error::InvalidBandwidth);
    }
    // Inverse multiquadric parameters.
    for (c, beta) in [
        (0.0, 0.5),
        (-1.0, 0.5),
        (1.0, 0.0),
        (1.0, -0.5),
        (f64::NAN, 0.5),
        (1.0, f64::INFINITY),
    ] {
        let k = SvgdConfig {
            kernel: KernelChoice::InverseMultiquadric { c, beta },
            ..cfg(2)
        };
        rejects(&k, D, &x, big, n, Error::InvalidKernel);
    }
    // Step rules.
    for eta in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        for rule in [
            StepRule::Constant { eta },
            StepRule::Decaying { eta },
            StepRule::AdaGrad { eta, alpha: 0.9 },
        ] {
            let c = SvgdConfig {
                step_rule: rule,
                ..cfg(2)
            };
            rejects(&c, D, &x, big, n, Error::InvalidStepSize);
        }
    }
    for alpha in [1.0, -0.1, 1.5, f64::NAN] {
        let c = SvgdConfig {
            step_rule: StepRule::AdaGrad { eta: 0.1, alpha },
            ..cfg(2)
        };
        rejects(&c, D, &x, big, n, Error::InvalidStepRule);
    }
    // Sizes.
    rejects(&cfg(2), 0, &x, big, n, Error::ZeroDimension);
    rejects(&cfg(2), D, &[], big, n, Error::ZeroParticles);
    rejects(&cfg(2), 3, &x[..2 * D], big, n, Error::LengthMismatch);
    for c in [
        cfg(2),
        SvgdConfig {
            kernel: KernelChoice::GaussianMedian,
            ..cfg(n)
        },
    ] {
        rejects(&c, D, &x, ok(&c) - 1, n, Error::WorkspaceTooSmall);
        rejects(&c, D, &x, ok(&c), n - 1, Error::WorkspaceTooSmall);
        let w = SvgdConfig {
            batching: Batching::WithReplacement,
            ..c
        };
        rejects(&w, D, &x, ok(&w) - 1, n, Error::WorkspaceTooSmall);
    }
    // Positions.
    let mut bad = x.clone();
    bad[3] = f64::NAN;
    rejects(&cfg(2), D, &bad, big, n, Error::InvalidPosition);
    bad[3] = f64::NEG_INFINITY;
    rejects(&cfg(2), D, &bad, big, n, Error::InvalidPosition);
}

/// A step size that rounds to 0 in f32 is rejected for f32 only.
#[test]
fn step_size_checked_in_the_coordinate_type() {
    let n = 4;
    let c = SvgdConfig {
        step_rule: StepRule::Constant { eta: 1e-50 },
        ..cfg(2)
    };
    let mut x32 = vec![0.5f32; n * D];
    x32[0] = 1.0;
    let mut ws32 = vec![0.0f32; 100];
    let mut idx = vec![0u32; n];
    let e = Svgd::new(&c, D, &mut x32, &mut ws32, &mut idx).err();
    assert_eq!(e, Some(Error::InvalidStepSize));
    let mut x64 = vec![0.5f64; n * D];
    let mut ws64 = vec![0.0f64; 100];
    assert!(Svgd::new(&c, D, &mut x64, &mut ws64, &mut idx).is_ok());
}

#[test]
fn workspace_sizes() {
    let (n, d) = (1000, 3);
    let nd = n * d;
    let len = |c: SvgdConfig<KernelChoice>| Svgd::<f64>::workspace_len(n, d, &c);
    let fixed = |rule| SvgdConfig::new(8, KernelChoice::Gaussian { h: 1.0 }, rule);
    let constant = StepRule::Constant { eta: 0.1 };
    // Without replacement: gradients, φ, positions by permutation slot (+ history for
    // AdaGrad). No N×N term.
    assert_eq!(len(fixed(constant)), 3 * nd);
    assert_eq!(len(fixed(StepRule::adagrad(0.1))), 4 * nd);
    // With replacement: batch gradients, φ, positions (p·d each), working particles, and for
    // AdaGrad the history and its working copy.
    let w = |rule| SvgdConfig {
        batching: Batching::WithReplacement,
        ..fixed(rule)
    };
    assert_eq!(len(w(constant)), 3 * 8 * d + nd);
    assert_eq!(len(w(StepRule::adagrad(0.1))), 3 * 8 * d + 3 * nd);
    // The median heuristic adds N(N−1)/2.
    let med = SvgdConfig::new(n, KernelChoice::GaussianMedian, constant);
    assert_eq!(len(med), 3 * nd + n * (n - 1) / 2);
    // Overflow saturates (so every real workspace is too small).
    assert_eq!(
        Svgd::<f64>::workspace_len(usize::MAX / 2, 3, &fixed(constant)),
        usize::MAX
    );
    assert_eq!(Svgd::<f64>::index_len(n), n);
}

/// Runs `iters` clean iterations on a fresh system and returns the particles.
fn clean_run(c: &SvgdConfig<KernelChoice>, n: usize, iters: usize) -> Vec<f64> {
    let mut x = particles(n);
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, c)];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(c, D, &mut x, &mut ws, &mut idx).unwrap();
    for _ in 0..iters {
        s.step(&mut Scripted::ok()).unwrap();
    }
    x
}

/// A failure in the third iteration (at gradient call `2n + at`) leaves everything as after the
/// second; retrying gives exactly the uninterrupted run's particles afterwards.
#[test]
fn failed_iterations_change_nothing() {
    let n = 11;
    for batching in [Batching::WithoutReplacement, Batching::WithReplacement] {
        for rule in [StepRule::adagrad(0.1), StepRule::Decaying { eta: 0.3 }] {
            let c = SvgdConfig {
                batching,
                step_rule: rule,
                ..cfg(3)
            };
            let want = clean_run(&c, n, 4);
            // Gradient calls per iteration: N without replacement, ⌊N/p⌋·p = 9 with.
            let per = if batching == Batching::WithoutReplacement {
                n
            } else {
                9
            };
            let cases: [(Option<Stop>, bool, Error); 3] = [
                (Some(Stop::Abort), false, Error::CallbackAborted),
                (Some(Stop::Reject), false, Error::GradientRejected),
                (None, true, Error::NonFinite),
            ];
            for (how, nan, err) in cases {
                // Late in the iteration: with replacement, earlier sub-steps already moved
                // particles in the working copy.
                for at in [0, per - 1] {
                    let mut x = particles(n);
                    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &c)];
                    let mut idx = vec![0u32; n];
                    let mut s = Svgd::new(&c, D, &mut x, &mut ws, &mut idx).unwrap();
                    let mut model = Scripted::failing(2 * per + at, how, nan);
                    s.step(&mut model).unwrap();
                    s.step(&mut model).unwrap();
                    let before = s.particles().to_vec();
                    assert_eq!(s.step(&mut model), Err(err));
                    assert_eq!(s.particles(), &before[..]);
                    assert_eq!(s.iterations(), 2);
                    // Retry: same draws, so the same result as if nothing had happened.
                    let mut clean = Scripted::ok();
                    s.step(&mut clean).unwrap();
                    s.step(&mut clean).unwrap();
                    assert_eq!(s.particles(), &want[..], "{c:?} {how:?} {nan} at {at}");
                    assert_eq!(s.iterations(), 4);
                }
            }
        }
    }
}

/// An update that overflows is caught before anything moves.
#[test]
fn non_finite_update_changes_nothing() {
    let n = 6;
    for batching in [Batching::WithoutReplacement, Batching::WithReplacement] {
        let c = SvgdConfig {
            batching,
            step_rule: StepRule::Constant { eta: 1e308 },
            ..cfg(2)
        };
        // Spread out (σ = 10) so that the largest force is well above 1.8 and η·φ overflows
        // whatever the draws: with standard-normal particles it could stay below.
        let mut x: Vec<f64> = particles(n).iter().map(|v| 10.0 * v).collect();
        let x0 = x.clone();
        let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &c)];
        let mut idx = vec![0u32; n];
        let mut s = Svgd::new(&c, D, &mut x, &mut ws, &mut idx).unwrap();
        assert_eq!(s.step(&mut Scripted::ok()), Err(Error::NonFinite));
        assert_eq!(s.particles(), &x0[..]);
        assert_eq!(s.iterations(), 0);
    }
}

/// A particle the caller made non-finite is refused before anything happens.
#[test]
fn non_finite_particle_refused() {
    let n = 6;
    let mut x = particles(n);
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &cfg(2))];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(&cfg(2), D, &mut x, &mut ws, &mut idx).unwrap();
    s.particles_mut()[5] = f64::INFINITY;
    assert_eq!(s.step(&mut Scripted::ok()), Err(Error::InvalidPosition));
    assert_eq!(s.iterations(), 0);
}

/// The info record: interactions per batch structure, force norms from φ, η_k, iteration count.
#[test]
fn info_record() {
    let n = 13;
    // p = 5: batches of 5 and 8: 10 + 28 pairs. With replacement: 2 sub-steps of 10 pairs.
    for (batching, pairs) in [
        (Batching::WithoutReplacement, 38),
        (Batching::WithReplacement, 20),
    ] {
        let c = SvgdConfig {
            batching,
            step_rule: StepRule::Decaying { eta: 0.5 },
            ..cfg(5)
        };
        let mut x = particles(n);
        let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &c)];
        let mut idx = vec![0u32; n];
        let mut s = Svgd::new(&c, D, &mut x, &mut ws, &mut idx).unwrap();
        for k in 1..=3u64 {
            let info = s.step(&mut Scripted::ok()).unwrap();
            assert_eq!(info.iteration, k);
            assert_eq!(info.interactions, pairs);
            assert_eq!(info.bandwidth, 1.0);
            assert_eq!(info.step_size, 0.5 / k as f64);
            assert!(info.max_force >= info.mean_force && info.mean_force > 0.0);
            if batching == Batching::WithoutReplacement {
                let norms: Vec<f64> = s
                    .force()
                    .chunks(D)
                    .map(|r| r.iter().map(|v| v * v).sum::<f64>().sqrt())
                    .collect();
                let mean = norms.iter().sum::<f64>() / n as f64;
                let max = norms.iter().cloned().fold(0.0, f64::max);
                assert!((info.mean_force - mean).abs() <= 1e-15 * mean);
                assert_eq!(info.max_force, max);
            }
        }
    }
    // The inverse multiquadric has no bandwidth; `run` reports the last iteration.
    let c = SvgdConfig {
        kernel: KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ..cfg(n)
    };
    let mut x = particles(n);
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &c)];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(&c, D, &mut x, &mut ws, &mut idx).unwrap();
    let info = s.run(5, &mut Scripted::ok()).unwrap().last.unwrap();
    assert!(info.bandwidth.is_nan());
    assert_eq!(info.iteration, 5);
    assert_eq!(info.interactions, (n * (n - 1) / 2) as u64);
    let e = s
        .run(3, &mut Scripted::failing(n + 2, Some(Stop::Abort), false))
        .unwrap_err();
    assert_eq!((e.error, e.completed()), (Error::CallbackAborted, 1));
    assert_eq!(e.partial.last.map(|i| i.iteration), Some(6));
    // Zero iterations: nothing to do, nothing done (as in C).
    let none = s.run(0, &mut Scripted::ok()).unwrap();
    assert_eq!((none.iterations, none.last), (0, None));
    assert_eq!(s.iterations(), 6);
}

/// Coincident particles: the median of the distances is 0, the bandwidth falls back to 1.
#[test]
fn median_degenerate_falls_back_to_one() {
    let n = 5;
    let c = SvgdConfig::new(
        n,
        KernelChoice::GaussianMedian,
        StepRule::Constant { eta: 0.1 },
    );
    let mut x = vec![0.25; n * D];
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &c)];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(&c, D, &mut x, &mut ws, &mut idx).unwrap();
    assert_eq!(s.step(&mut Scripted::ok()).unwrap().bandwidth, 1.0);
}
