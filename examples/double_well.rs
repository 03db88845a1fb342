//! The double well of the AMAGOLD paper (docs/algorithms.md §1.3): AMAGOLD (both variants) and SGHMC
//! with noisy gradients, moments against the quadrature truth.
//!
//! `cargo run --release --example double_well`

use sgsample::{
    Amagold, AmagoldConfig, Gradient, Potential, Rng, Sghmc, SghmcConfig, Stop, Variant,
};

/// U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5; the gradient carries N(0, 1) noise drawn from the
/// minibatch seed, as a minibatch gradient would.
struct DoubleWell;

impl Gradient<f64> for DoubleWell {
    fn gradient(&mut self, t: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let x = t[0];
        let noise = Rng::new(seed, 0).normal();
        g[0] = (4.0 * x * x * x + 3.0 * x * x - 26.0 * x - 1.0) / 14.0 + noise;
        Ok(())
    }
}

impl Potential<f64> for DoubleWell {
    fn energy(&mut self, t: &[f64]) -> Result<f64, Stop> {
        let x = t[0];
        Ok((x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5)
    }
}

fn truth() -> [f64; 3] {
    let (a, b, n) = (-12.0, 12.0, 240_000);
    let h = (b - a) / n as f64;
    let mut s = [0.0; 4];
    for i in 0..n {
        let x = a + (i as f64 + 0.5) * h;
        let w = (-DoubleWell.energy(&[x]).unwrap()).exp();
        s[0] += w;
        s[1] += w * x;
        s[2] += w * x * x;
        s[3] += if x > 0.0 { w } else { 0.0 };
    }
    let m = s[1] / s[0];
    [m, s[2] / s[0] - m * m, s[3] / s[0]]
}

/// Mean, variance, P(θ > 0), and the batch-means standard error of the mean.
fn moments(xs: &[f64]) -> [f64; 4] {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    let p = xs.iter().filter(|&&x| x > 0.0).count() as f64 / n;
    let b = 100;
    let len = xs.len() / b;
    let bm: Vec<f64> = xs
        .chunks(len)
        .take(b)
        .map(|c| c.iter().sum::<f64>() / len as f64)
        .collect();
    let se = (bm.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / ((b * (b - 1)) as f64)).sqrt();
    [m, v, p, se]
}

fn main() {
    let n = 200_000;
    let [tm, tv, tp] = truth();
    println!("Double well, noisy gradients N(0,1), T = 10, beta = 0.25, sigma = 1, {n} samples");
    println!(
        "{:<26} {:>6} {:>9} {:>8} {:>8} {:>8}",
        "sampler", "eps", "accept", "mean", "var", "P(>0)"
    );
    println!(
        "{:<26} {:>6} {:>9} {:>8.3} {:>8.3} {:>8.4}",
        "truth (quadrature)", "", "", tm, tv, tp
    );
    for &eps in &[0.05, 0.15, 0.25] {
        for (name, variant) in [
            ("AMAGOLD reversible", Variant::Reversible),
            ("AMAGOLD non-reversible", Variant::NonReversible),
        ] {
            let cfg = AmagoldConfig {
                variant,
                seed: 1,
                ..AmagoldConfig::new(eps)
            };
            let mut ws = [0.0; 6];
            let mut chain =
                Amagold::new(&cfg, &[0.0], &mut ws, &mut DoubleWell).expect("valid config");
            let mut out = vec![0.0; n];
            let s = chain
                .run(&mut DoubleWell, &mut out)
                .expect("no callback aborts");
            let [m, v, p, se] = moments(&out);
            println!(
                "{:<26} {:>6} {:>9.3} {:>8.3} {:>8.3} {:>8.4}   (mean off by {:+.1} s.e.)",
                name,
                eps,
                s.accepted as f64 / n as f64,
                m,
                v,
                p,
                (m - tm) / se
            );
        }
        let cfg = SghmcConfig {
            seed: 1,
            ..SghmcConfig::new(eps)
        };
        let mut ws = [0.0; 5];
        let mut chain = Sghmc::new(&cfg, &[0.0], &mut ws).expect("valid config");
        let mut out = vec![0.0; n];
        chain
            .run(&mut DoubleWell, &mut out)
            .expect("no callback aborts");
        let [m, v, p, se] = moments(&out);
        println!(
            "{:<26} {:>6} {:>9} {:>8.3} {:>8.3} {:>8.4}   (mean off by {:+.1} s.e.)",
            "SGHMC (no M-H)",
            eps,
            "-",
            m,
            v,
            p,
            (m - tm) / se
        );
    }
}
