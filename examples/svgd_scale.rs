//! SVGD on a raw-scale problem with and without the scale option (docs/benchmarks.md, "SVGD on
//! a raw-scale regression"; docs/algorithms.md §2.7).
//!
//!     cargo run --release --features std --example svgd_scale [R] [iterations]
//!
//! The problem: a Bayesian linear regression on 200 synthetic data points with five raw-scale
//! features (scales 10² … 10⁻², correlated), a known noise sd of 1 and a flat-ish N(0, 1000²)
//! prior, so that the posterior is Gaussian with sds from 10⁻³ to 10 and correlations up to
//! about 0.5, known exactly. RBM-SVGD with p = 8 and full SVGD (p = N), N = 256, the default
//! bandwidth h = 1 and AdaGrad (η = 0.1, α = 0.9), start from N(0, I), raw coordinates
//! (`Scale::None`) against `Scale::Particles`; for each coordinate the table gives the distance
//! of the particle mean from the exact posterior mean in posterior sds, `|x̄ − m|/sd`, and the
//! ratio of the particles' variance to the posterior's, each the mean over R starts (R = 5 by
//! default), after the given number of iterations (2000 by default), and the CPU time per
//! iteration (the thread's, `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, median over the starts).
//!
//! A measurement, not a test: it prints Markdown tables and asserts nothing.

use sgsample::svgd::Scale;
use sgsample::{Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};
use std::time::Instant;

#[path = "../benches/cpu_clock/mod.rs"]
mod cpu_clock;
use cpu_clock::thread_cpu_seconds;

/// Coordinates: the regression's five coefficients.
const D: usize = 5;
/// Data points.
const M: usize = 200;

/// The exact Gaussian posterior of the regression: mean, covariance, precision.
struct Posterior {
    mean: [f64; D],
    cov: [[f64; D]; D],
    prec: [[f64; D]; D],
}

/// Cholesky factor of a symmetric positive definite matrix (lower).
fn cholesky(a: &[[f64; D]; D]) -> [[f64; D]; D] {
    let mut l = [[0.0; D]; D];
    for i in 0..D {
        for j in 0..=i {
            let mut s = a[i][j];
            for (x, y) in l[i].iter().zip(&l[j]).take(j) {
                s -= x * y;
            }
            l[i][j] = if i == j { s.sqrt() } else { s / l[j][j] };
        }
    }
    l
}

/// Solves `a·x = b` by the Cholesky factor `l` of `a`.
fn solve(l: &[[f64; D]; D], b: &[f64; D]) -> [f64; D] {
    let mut y = [0.0; D];
    for i in 0..D {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i][k] * y[k];
        }
        y[i] = s / l[i][i];
    }
    let mut x = [0.0; D];
    for i in (0..D).rev() {
        let mut s = y[i];
        for k in i + 1..D {
            s -= l[k][i] * x[k];
        }
        x[i] = s / l[i][i];
    }
    x
}

/// The regression: features `a_j·(z_j + 0.6·z_0)` with `a = 10², 10, 1, 10⁻¹, 10⁻²` (so the
/// coefficients' posterior sds run from about 10⁻³ to 10), true coefficients on raw scales,
/// noise sd 1, prior N(0, 1000²·I); data from a fixed seed.
fn regression() -> Posterior {
    let a = [100.0, 10.0, 1.0, 0.1, 0.01];
    let beta = [0.37, -2.1, 4.6, 35.0, -260.0];
    let mut rng = Rng::new(2026, 7);
    let mut xtx = [[0.0; D]; D];
    let mut xty = [0.0; D];
    for _ in 0..M {
        let z: Vec<f64> = (0..D).map(|_| rng.normal()).collect();
        let x: Vec<f64> = (0..D)
            .map(|j| a[j] * (z[j] + if j > 0 { 0.6 * z[0] } else { 0.0 }))
            .collect();
        let y = (0..D).map(|j| x[j] * beta[j]).sum::<f64>() + rng.normal();
        for i in 0..D {
            xty[i] += x[i] * y;
            for j in 0..D {
                xtx[i][j] += x[i] * x[j];
            }
        }
    }
    let mut prec = xtx;
    for (i, row) in prec.iter_mut().enumerate() {
        row[i] += 1.0 / (1000.0 * 1000.0);
    }
    let l = cholesky(&prec);
    let mean = solve(&l, &xty);
    let mut cov = [[0.0; D]; D];
    for j in 0..D {
        let mut e = [0.0; D];
        e[j] = 1.0;
        let c = solve(&l, &e);
        for i in 0..D {
            cov[i][j] = c[i];
        }
    }
    Posterior { mean, cov, prec }
}

/// ∇V = Λ·(β − m), Λ the posterior precision.
struct Grad<'a>(&'a Posterior);
impl Gradient<f64> for Grad<'_> {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for (i, gi) in g.iter_mut().enumerate() {
            *gi = (0..D)
                .map(|j| self.0.prec[i][j] * (x[j] - self.0.mean[j]))
                .sum();
        }
        Ok(())
    }
}

/// Per coordinate: `|x̄ − m|/sd` and the particles' variance over the posterior's, after a run;
/// and the run's CPU seconds per iteration.
fn run(post: &Posterior, p: usize, scale: Scale, iters: u64, start: u64) -> ([(f64, f64); D], f64) {
    let n = 256;
    let cfg = SvgdConfig {
        seed: 11,
        stream: start,
        scale,
        ..SvgdConfig::new(p, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1))
    };
    let mut rng = Rng::new(5, start);
    let mut x: Vec<f64> = (0..n * D).map(|_| rng.normal()).collect();
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, D, &cfg)];
    let mut idx = vec![0u32; n];
    let mut svgd = Svgd::new(&cfg, D, &mut x, &mut ws, &mut idx).expect("valid");
    let wall = Instant::now();
    let t0 = thread_cpu_seconds().unwrap_or(0.0);
    svgd.run(iters, &mut Grad(post)).expect("finite");
    let secs = thread_cpu_seconds().map_or_else(|| wall.elapsed().as_secs_f64(), |t| t - t0);
    let xs = svgd.particles();
    let mut out = [(0.0, 0.0); D];
    for (l, o) in out.iter_mut().enumerate() {
        let mean = xs.iter().skip(l).step_by(D).sum::<f64>() / n as f64;
        let var = xs
            .iter()
            .skip(l)
            .step_by(D)
            .map(|v| (v - mean) * (v - mean))
            .sum::<f64>()
            / n as f64;
        let sd = post.cov[l][l].sqrt();
        *o = ((mean - post.mean[l]).abs() / sd, var / post.cov[l][l]);
    }
    (out, secs / iters as f64)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let r: u64 = args.next().map_or(5, |a| a.parse().expect("R"));
    let iters: u64 = args.next().map_or(2000, |a| a.parse().expect("iterations"));
    let post = regression();
    println!("Posterior (exact): mean, sd, and correlations with coefficient 0");
    println!();
    println!("| coefficient | mean | sd | corr with β₀ |");
    println!("|---|---:|---:|---:|");
    for l in 0..D {
        let sd = post.cov[l][l].sqrt();
        let corr = post.cov[l][0] / (sd * post.cov[0][0].sqrt());
        println!("| β{l} | {:.6} | {:.3e} | {:.3} |", post.mean[l], sd, corr);
    }
    println!();
    println!(
        "N = 256, h = 1, AdaGrad η = 0.1, {iters} iterations, mean over {r} starts from N(0, I)"
    );
    println!();
    println!("| method | scale | quantity | β0 | β1 | β2 | β3 | β4 | µs/iteration |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    for (name, p) in [("RBM-SVGD p = 8", 8), ("SVGD (p = N)", 256)] {
        for (sname, scale) in [("none", Scale::None), ("particles", Scale::Particles)] {
            let mut acc = [(0.0, 0.0); D];
            let mut times = Vec::new();
            for s in 0..r {
                let (o, t) = run(&post, p, scale, iters, s);
                times.push(t);
                for (a, b) in acc.iter_mut().zip(o) {
                    a.0 += b.0 / r as f64;
                    a.1 += b.1 / r as f64;
                }
            }
            times.sort_by(f64::total_cmp);
            let us = 1e6 * times[times.len() / 2];
            let z: Vec<String> = acc.iter().map(|a| format!("{:.3}", a.0)).collect();
            let v: Vec<String> = acc.iter().map(|a| format!("{:.3}", a.1)).collect();
            println!(
                "| {name} | {sname} | mean error (sds) | {} | {us:.0} |",
                z.join(" | ")
            );
            println!(
                "| {name} | {sname} | variance ratio | {} | |",
                v.join(" | ")
            );
        }
    }
}
