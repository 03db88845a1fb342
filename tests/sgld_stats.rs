//! SGLD against its exact stationary law (docs/algorithms.md §1.4): for U(θ) = ½|θ − m|² with
//! gradient noise N(0, s²) per coordinate, the chain is an AR(1) process with coefficient
//! φ = 1 − ε/2, mean m and variance (1 + ε·s²/4)/(1 − ε/4) per coordinate. Tolerances are
//! derived from the AR(1) standard errors, and the test must fail for the plausible bugs (a
//! drift of ε instead of ε/2, noise of variance 2ε, gradient noise dropped or doubled, a wrong
//! sign, every update a sample instead of every T-th).

use sgsample::{Gradient, Outcome, Rng, Sgld, SgldConfig, Stop};

/// ½|θ − m|² with N(0, s²) gradient noise drawn from the minibatch seed; counts gradient calls.
struct Shifted {
    m: [f64; 2],
    s: f64,
    calls: u64,
}

impl Gradient<f64> for Shifted {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.calls += 1;
        let mut r = Rng::new(seed, 77);
        for ((gi, xi), mi) in g.iter_mut().zip(x).zip(self.m) {
            *gi = (xi - mi) + self.s * r.normal();
        }
        Ok(())
    }
}

/// Mean and variance of every coordinate of `n` rows of 2 values.
fn moments(rows: &[f64]) -> [(f64, f64); 2] {
    let n = (rows.len() / 2) as f64;
    let mut out = [(0.0, 0.0); 2];
    for (c, o) in out.iter_mut().enumerate() {
        let mean = rows.iter().skip(c).step_by(2).sum::<f64>() / n;
        let var = rows
            .iter()
            .skip(c)
            .step_by(2)
            .map(|x| (x - mean).powi(2))
            .sum::<f64>()
            / n;
        *o = (mean, var);
    }
    out
}

fn check(eps: f64, s: f64, steps: u32, seed: u64) {
    let m = [1.0, -2.0];
    let n = 400_000usize;
    let cfg = SgldConfig {
        steps,
        seed,
        ..SgldConfig::new(eps)
    };
    let mut model = Shifted { m, s, calls: 0 };
    let mut ws = [0.0; 6];
    let mut chain = Sgld::new(&cfg, &m, &mut ws).unwrap();
    let mut burn = vec![0.0; 2 * 1000];
    chain.run(&mut model, &mut burn).unwrap();
    let mut rows = vec![0.0; 2 * n];
    model.calls = 0;
    let sum = chain.run(&mut model, &mut rows).unwrap();
    assert_eq!(
        (sum.iterations, sum.accepted, sum.divergences),
        (n as u64, n as u64, 0)
    );
    assert_eq!(
        model.calls,
        n as u64 * steps as u64,
        "T gradient calls per sample"
    );

    let v = (1.0 + eps * s * s / 4.0) / (1.0 - eps / 4.0);
    // Stored samples are every T-th step of the AR(1) process.
    let phi = (1.0 - eps / 2.0f64).powi(steps as i32);
    let se_mean = (v / n as f64 * (1.0 + phi) / (1.0 - phi)).sqrt();
    let se_var = (2.0 * v * v / n as f64 * (1.0 + phi * phi) / (1.0 - phi * phi)).sqrt();
    for (c, (mean, var)) in moments(&rows).into_iter().enumerate() {
        let (zm, zv) = ((mean - m[c]) / se_mean, (var - v) / se_var);
        assert!(
            zm.abs() < 4.5 && zv.abs() < 4.5,
            "ε {eps}, s {s}, T {steps}, coordinate {c}: mean {mean:.4} (truth {}, z {zm:.1}), \
             variance {var:.4} (truth {v:.4}, z {zv:.1})",
            m[c]
        );
    }
}

#[test]
fn stationary_mean_and_variance_match_the_ar1_law() {
    check(0.5, 0.0, 1, 1);
    check(0.5, 1.0, 1, 2);
    check(0.2, 2.0, 3, 3);
}

/// The checks above are sharp enough to tell the plausible bugs apart: each wrong law is many
/// standard errors from the right one at the sample size used.
#[test]
fn the_tolerance_separates_the_plausible_bugs() {
    let (eps, s, n) = (0.5f64, 1.0f64, 400_000f64);
    let right = (1.0 + eps * s * s / 4.0) / (1.0 - eps / 4.0);
    let phi = 1.0 - eps / 2.0;
    let se_var = (2.0 * right * right / n * (1.0 + phi * phi) / (1.0 - phi * phi)).sqrt();
    let wrong = [
        // drift ε·g instead of ε/2·g: φ = 1 − ε
        (eps + eps * eps * s * s) / (1.0 - (1.0 - eps).powi(2)),
        // noise variance 2ε
        (2.0 * eps + eps * eps * s * s / 4.0) / (1.0 - phi * phi),
        // gradient noise dropped
        1.0 / (1.0 - eps / 4.0),
    ];
    for w in wrong {
        assert!((w - right).abs() > 10.0 * se_var, "{w} vs {right}");
    }
}

/// A REJECT discards the iteration, a non-finite gradient discards it as a divergence; either
/// way the chain stays where it was and the generator moves on as documented.
#[test]
fn reject_and_nan_discard_the_iteration() {
    struct Faulty(u64);
    impl Gradient<f64> for Faulty {
        fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
            self.0 += 1;
            match self.0 {
                3 => return Err(Stop::Reject),
                5 => g[0] = f64::NAN,
                _ => g[0] = x[0],
            }
            Ok(())
        }
    }
    let mut ws = [0.0; 3];
    let mut chain = Sgld::new(&SgldConfig::new(0.1), &[0.5], &mut ws).unwrap();
    let mut m = Faulty(0);
    let mut outcomes = vec![];
    let mut last = chain.position()[0];
    for _ in 0..6 {
        let info = chain.step(&mut m).unwrap();
        if info.outcome != Outcome::Accepted {
            assert_eq!(
                chain.position()[0],
                last,
                "discarded iteration moved the chain"
            );
        }
        last = chain.position()[0];
        outcomes.push(info.outcome);
    }
    use Outcome::*;
    assert_eq!(
        outcomes,
        [
            Accepted,
            Accepted,
            OutOfDomain,
            Accepted,
            Divergent,
            Accepted
        ]
    );
    assert_eq!(chain.divergences(), 1);
    assert!(chain.position()[0].is_finite());
}
