//! TunaMH (src/tunamh.rs): exact against quadrature on two posteriors whose terms have the
//! bounded differences the sampler needs, on both of its paths (minibatch and full pass); the
//! draw order and the all-or-nothing contract on callback errors and bound violations.

use sgsample::tunamh::{Terms, Tunamh, TunamhConfig, CHUNK};
use sgsample::{Error, Outcome, Stop};

/// N Laplace terms |yᵢ − θ| (1-Lipschitz: bound 1) and a N(0, 1) prior (strong enough that
/// a ratio without it is visibly wrong).
struct Laplace {
    y: Vec<f64>,
    calls: usize,
}

impl Terms<f64> for Laplace {
    fn differences(
        &mut self,
        t: &[f64],
        p: &[f64],
        idx: &[u64],
        out: &mut [f64],
    ) -> Result<(), Stop> {
        self.calls += 1;
        for (o, &i) in out.iter_mut().zip(idx) {
            let y = self.y[i as usize];
            *o = (y - p[0]).abs() - (y - t[0]).abs();
        }
        Ok(())
    }
    fn exact_difference(&mut self, t: &[f64], p: &[f64]) -> Result<f64, Stop> {
        Ok((p[0] * p[0] - t[0] * t[0]) / 2.0)
    }
}

fn laplace_data(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i as f64 * 0.618_033_988_7) % 1.0 - 0.5) * 4.0 + 1.0)
        .collect()
}

/// Posterior mean and variance by the trapezoid rule on a fine grid (the density is smooth
/// but for kinks at the data, which a grid of 2·10⁵ points resolves far below the tests'
/// tolerances).
fn quadrature(lo: f64, hi: f64, log_density: impl Fn(f64) -> f64) -> (f64, f64) {
    let k = 200_000;
    let h = (hi - lo) / k as f64;
    let xs: Vec<f64> = (0..=k).map(|j| lo + h * j as f64).collect();
    let lp: Vec<f64> = xs.iter().map(|&x| log_density(x)).collect();
    let top = lp.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = lp
        .iter()
        .enumerate()
        .map(|(j, &v)| {
            let e = (v - top).exp();
            if j == 0 || j == k {
                0.5 * e
            } else {
                e
            }
        })
        .collect();
    let z: f64 = w.iter().sum();
    let m = xs.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>() / z;
    let v = xs
        .iter()
        .zip(&w)
        .map(|(x, w)| (x - m).powi(2) * w)
        .sum::<f64>()
        / z;
    (m, v)
}

/// Mean and its Monte Carlo standard error by batch means (50 batches).
fn mean_se(x: &[f64]) -> (f64, f64) {
    let b = 50;
    let m = x.len() / b;
    let means: Vec<f64> = (0..b)
        .map(|k| x[k * m..(k + 1) * m].iter().sum::<f64>() / m as f64)
        .collect();
    let mean = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (b - 1) as f64;
    (mean, (var / b as f64).sqrt())
}

/// The chain's mean and variance of θ against the exact ones, within 4.5 standard errors
/// (batch means of θ and of (θ − exact mean)²).
fn check_moments(draws: &[f64], exact: (f64, f64), what: &str) {
    let (m, se) = mean_se(draws);
    let sq: Vec<f64> = draws.iter().map(|x| (x - exact.0).powi(2)).collect();
    let (v, se_v) = mean_se(&sq);
    assert!(
        (m - exact.0).abs() < 4.5 * se,
        "{what}: mean {m} vs {} (se {se})",
        exact.0
    );
    assert!(
        (v - exact.1).abs() < 4.5 * se_v,
        "{what}: variance {v} vs {} (se {se_v})",
        exact.1
    );
}

fn run_laplace(chi: f64, step: f64, iters: usize) -> (Vec<f64>, u64, u64, u64) {
    let n = 40;
    let mut model = Laplace {
        y: laplace_data(n),
        calls: 0,
    };
    let mut cfg = TunamhConfig::new(step, n as u64, 1.0);
    cfg.chi = chi;
    cfg.seed = 7;
    let mut ws = [0.0; 2];
    let mut chain = Tunamh::new(&cfg, &[0.5], &mut ws).unwrap();
    let mut out = vec![0.0; iters];
    let (mut full, mut mini) = (0u64, 0u64);
    for row in out.iter_mut() {
        let info = chain.step(&mut model).unwrap();
        if info.full_pass {
            full += 1
        } else {
            mini += 1
        }
        *row = chain.position()[0];
    }
    let evals = chain.evaluations();
    (out, full, mini, evals)
}

fn laplace_exact() -> (f64, f64) {
    let y = laplace_data(40);
    quadrature(-6.0, 8.0, |t| {
        -y.iter().map(|v| (v - t).abs()).sum::<f64>() - t * t / 2.0
    })
}

#[test]
fn laplace_posterior_is_exact_on_the_minibatch_path() {
    // χ small and short proposals: λ + L stays below N, every step a Poisson minibatch.
    let (draws, full, mini, evals) = run_laplace(0.02, 0.1, 400_000);
    assert_eq!(full, 0);
    assert!(
        mini > 0 && (evals as f64) < 0.5 * 40.0 * 400_000.0,
        "{evals}"
    );
    check_moments(&draws[1000..], laplace_exact(), "minibatch");
}

#[test]
fn laplace_posterior_is_exact_when_both_paths_mix() {
    // Longer proposals: some steps take the full pass, others the minibatch.
    let (draws, full, mini, _) = run_laplace(0.05, 0.5, 300_000);
    assert!(
        full > 10_000 && mini > 10_000,
        "full {full}, minibatch {mini}"
    );
    check_moments(&draws[1000..], laplace_exact(), "mixed");
}

/// A 2-d logistic regression (no intercept) with a N(0, 2²I) prior: each term
/// log(1 + exp(−yᵢ·xᵢᵀθ)) is ‖xᵢ‖-Lipschitz, so the bound is max ‖xᵢ‖.
struct Logistic {
    x: Vec<[f64; 2]>,
    y: Vec<f64>,
}

fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

impl Logistic {
    fn new(n: usize) -> Self {
        let mut rng = sgsample::Rng::new(3, 9);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..n {
            let xi = [rng.normal(), rng.normal()];
            let p = 1.0 / (1.0 + (-(0.8 * xi[0] - 0.5 * xi[1])).exp());
            x.push(xi);
            y.push(if rng.uniform_f64() < p { 1.0 } else { -1.0 });
        }
        Logistic { x, y }
    }
    fn term(&self, i: usize, t: &[f64]) -> f64 {
        softplus(-self.y[i] * (self.x[i][0] * t[0] + self.x[i][1] * t[1]))
    }
    fn bound(&self) -> f64 {
        self.x
            .iter()
            .map(|v| (v[0] * v[0] + v[1] * v[1]).sqrt())
            .fold(0.0, f64::max)
    }
}

impl Terms<f64> for Logistic {
    fn differences(
        &mut self,
        t: &[f64],
        p: &[f64],
        idx: &[u64],
        out: &mut [f64],
    ) -> Result<(), Stop> {
        for (o, &i) in out.iter_mut().zip(idx) {
            *o = self.term(i as usize, p) - self.term(i as usize, t);
        }
        Ok(())
    }
    fn exact_difference(&mut self, t: &[f64], p: &[f64]) -> Result<f64, Stop> {
        Ok((p[0] * p[0] + p[1] * p[1] - t[0] * t[0] - t[1] * t[1]) / 8.0)
    }
}

#[test]
fn logistic_regression_marginals_are_exact() {
    let n = 60;
    let mut model = Logistic::new(n);
    let mut cfg = TunamhConfig::new(0.1, n as u64, model.bound());
    cfg.chi = 0.01;
    cfg.seed = 11;
    let mut ws = [0.0; 4];
    let mut chain = Tunamh::new(&cfg, &[0.0, 0.0], &mut ws).unwrap();
    let iters = 300_000;
    let mut out = vec![0.0; 2 * iters];
    chain.run(&mut model, &mut out).unwrap();
    // Exact marginal moments by a 2-d grid (600², enough for a posterior this smooth).
    let g = 600;
    let (lo, hi) = (-3.0, 3.0);
    let h = (hi - lo) / g as f64;
    let mut lp = vec![0.0; g * g];
    for a in 0..g {
        for b in 0..g {
            let t = [lo + h * (a as f64 + 0.5), lo + h * (b as f64 + 0.5)];
            lp[a * g + b] =
                -(0..n).map(|i| model.term(i, &t)).sum::<f64>() - (t[0] * t[0] + t[1] * t[1]) / 8.0;
        }
    }
    let top = lp.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = lp.iter().map(|v| (v - top).exp()).collect();
    let z: f64 = w.iter().sum();
    for k in 0..2 {
        let coord = |j: usize| lo + h * (if k == 0 { j / g } else { j % g } as f64 + 0.5);
        let m = (0..g * g).map(|j| coord(j) * w[j]).sum::<f64>() / z;
        let v = (0..g * g)
            .map(|j| (coord(j) - m).powi(2) * w[j])
            .sum::<f64>()
            / z;
        let draws: Vec<f64> = out.chunks(2).skip(1000).map(|r| r[k]).collect();
        check_moments(&draws, (m, v), &format!("logistic θ{k}"));
    }
    assert!(
        chain.evaluations() < (n as u64) * iters as u64 * 3 / 4,
        "{}",
        chain.evaluations()
    );
}

#[test]
fn same_seed_same_bits_and_f32_follows_the_same_stream_shape() {
    let a = run_laplace(0.05, 0.5, 2000).0;
    let b = run_laplace(0.05, 0.5, 2000).0;
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
}

/// A model that fails on the k-th differences call, in the way asked.
struct Failing {
    inner: Laplace,
    at: usize,
    how: Option<Stop>,
    out_of_bound: bool,
}

impl Terms<f64> for Failing {
    fn differences(
        &mut self,
        t: &[f64],
        p: &[f64],
        idx: &[u64],
        out: &mut [f64],
    ) -> Result<(), Stop> {
        let k = self.inner.calls;
        self.inner.differences(t, p, idx, out)?;
        if k == self.at {
            if let Some(s) = self.how {
                return Err(s);
            }
            if self.out_of_bound {
                out[0] = 2.0 * (p[0] - t[0]).abs() + 1e-3;
            }
        }
        Ok(())
    }
    fn exact_difference(&mut self, t: &[f64], p: &[f64]) -> Result<f64, Stop> {
        self.inner.exact_difference(t, p)
    }
}

#[test]
fn abort_and_bound_violations_leave_the_chain_unchanged_and_retry_repeats() {
    for (how, oob, err) in [
        (Some(Stop::Abort), false, Error::CallbackAborted),
        (None, true, Error::BoundExceeded),
    ] {
        let n = 40;
        let mut cfg = TunamhConfig::new(0.5, n, 1.0);
        cfg.chi = 0.05;
        let mut ws = [0.0; 2];
        let mut reference_ws = [0.0; 2];
        let mut chain = Tunamh::new(&cfg, &[0.5], &mut ws).unwrap();
        let mut reference = Tunamh::new(&cfg, &[0.5], &mut reference_ws).unwrap();
        let mut good = Laplace {
            y: laplace_data(n as usize),
            calls: 0,
        };
        let mut bad = Failing {
            inner: Laplace {
                y: laplace_data(n as usize),
                calls: 0,
            },
            at: 25,
            how,
            out_of_bound: oob,
        };
        let mut failed = false;
        for _ in 0..200 {
            let before = chain.position()[0];
            match chain.step(&mut bad) {
                Ok(_) => {
                    let r = reference.step(&mut good).unwrap();
                    assert_eq!(
                        chain.position()[0].to_bits(),
                        reference.position()[0].to_bits()
                    );
                    let _ = r;
                }
                Err(e) => {
                    assert_eq!(e, err);
                    assert_eq!(chain.position()[0].to_bits(), before.to_bits());
                    assert_eq!(chain.iterations(), reference.iterations());
                    failed = true;
                    // The retry (the model no longer fails) repeats the reference's draws.
                }
            }
        }
        assert!(failed, "the failure was never reached");
    }
}

#[test]
fn reject_ends_the_iteration_as_out_of_domain() {
    struct Rejecting;
    impl Terms<f64> for Rejecting {
        fn differences(
            &mut self,
            _: &[f64],
            _: &[f64],
            _: &[u64],
            _: &mut [f64],
        ) -> Result<(), Stop> {
            Err(Stop::Reject)
        }
        fn exact_difference(&mut self, _: &[f64], _: &[f64]) -> Result<f64, Stop> {
            Ok(0.0)
        }
    }
    let cfg = TunamhConfig::new(0.5, 1000, 1.0);
    let mut ws = [0.0; 2];
    let mut chain = Tunamh::new(&cfg, &[0.5], &mut ws).unwrap();
    let info = chain.step(&mut Rejecting).unwrap();
    assert_eq!(info.outcome, Outcome::OutOfDomain);
    assert_eq!(chain.position(), &[0.5]);
    assert!(info.evaluations > 0 && info.evaluations <= CHUNK as u64);
}

#[test]
fn bad_configurations_are_refused() {
    let mut ws = [0.0; 2];
    let ok = TunamhConfig::new(0.5, 10, 1.0);
    let cases = [
        (
            TunamhConfig {
                step_size: 0.0,
                ..ok
            },
            Error::InvalidStepSize,
        ),
        (
            TunamhConfig {
                step_size: f64::NAN,
                ..ok
            },
            Error::InvalidStepSize,
        ),
        (TunamhConfig { terms: 0, ..ok }, Error::InvalidBound),
        (TunamhConfig { bound: 0.0, ..ok }, Error::InvalidBound),
        (
            TunamhConfig {
                bound: f64::INFINITY,
                ..ok
            },
            Error::InvalidBound,
        ),
        (TunamhConfig { chi: 0.0, ..ok }, Error::InvalidBound),
        (TunamhConfig { chi: -1.0, ..ok }, Error::InvalidBound),
    ];
    for (cfg, err) in cases {
        assert_eq!(
            Tunamh::new(&cfg, &[0.0], &mut ws).err(),
            Some(err),
            "{cfg:?}"
        );
    }
    assert_eq!(
        Tunamh::new(&ok, &[0.0], &mut ws[..1]).err(),
        Some(Error::WorkspaceTooSmall)
    );
    assert_eq!(
        Tunamh::new(&ok, &[f64::NAN], &mut ws).err(),
        Some(Error::InvalidPosition)
    );
}

/// The measurement behind the default χ (docs/algorithms.md §7), run by hand: acceptance and
/// term evaluations per iteration on N = 10⁴ Laplace terms for proposals of 0.01–2.4 posterior
/// standard deviations and χ from 10⁻⁴ to 1.
#[test]
#[ignore]
fn chi_table() {
    let n = 10_000usize;
    let y = laplace_data(n);
    let sd = 2.0 / (n as f64).sqrt();
    println!(
        "{:>6} {:>8} {:>8} {:>12}",
        "k·sd", "chi", "accept", "evals/iter"
    );
    for &k in &[0.01, 0.1, 1.0, 2.4] {
        for &chi in &[1e-4, 1e-2, 1e-1, 1.0] {
            let mut cfg = TunamhConfig::new(k * sd, n as u64, 1.0);
            cfg.chi = chi;
            let mut ws = [0.0; 2];
            let mut chain = Tunamh::new(&cfg, &[1.0], &mut ws).unwrap();
            let iters = 20_000;
            let mut out = vec![0.0; iters];
            let s = chain
                .run(
                    &mut Laplace {
                        y: y.clone(),
                        calls: 0,
                    },
                    &mut out,
                )
                .unwrap();
            println!(
                "{k:>6} {chi:>8.0e} {:>8.3} {:>12.1}",
                s.accepted as f64 / iters as f64,
                chain.evaluations() as f64 / iters as f64
            );
        }
    }
}
