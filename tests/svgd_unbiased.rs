//! The random-batch force is an unbiased estimate of the SVGD force, with the variance of the
//! paper's Lemma 1 (sampling batch mates without replacement).
//!
//! Fixed particles (reset before every iteration), a deterministic gradient, so the only
//! randomness is the permutation. N = 12 is divisible by 2 but not by 5 (batches of 5 and 7),
//! so the left-over rule is exercised too.

use sgsample::{Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};

const N: usize = 12;
const D: usize = 2;
const H: f64 = 0.5;
const M: usize = 50_000;

struct Model;
impl Gradient<f64> for Model {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for l in 0..x.len() {
            g[l] = x[l] + 0.5 * (3.0 * x[l]).sin();
        }
        Ok(())
    }
}

fn particles() -> Vec<f64> {
    let mut rng = Rng::new(2024, 1);
    (0..N * D).map(|_| 1.5 * rng.normal()).collect()
}

/// F(X_i, X_j) from the formula.
fn big_f(x: &[f64], i: usize, j: usize) -> [f64; D] {
    let xi = &x[i * D..(i + 1) * D];
    let xj = &x[j * D..(j + 1) * D];
    let mut gj = [0.0; D];
    Model.gradient(xj, 0, &mut gj).unwrap();
    let r2: f64 = (0..D).map(|l| (xi[l] - xj[l]).powi(2)).sum();
    let k = (-r2 / (2.0 * H)).exp();
    let mut f = [0.0; D];
    for l in 0..D {
        f[l] = -k * gj[l] + (xi[l] - xj[l]) / H * k;
    }
    f
}

/// Mean and variance of the batch force over M permutations, per coordinate, with the standard
/// errors of both (the variance's from the sample fourth central moment).
struct Stats {
    mean: Vec<f64>,
    se_mean: Vec<f64>,
    var: Vec<f64>,
    se_var: Vec<f64>,
}

fn batch_force_stats(p: usize) -> Stats {
    let x0 = particles();
    let mut x = x0.clone();
    let mut cfg = SvgdConfig::new(
        p,
        KernelChoice::Gaussian { h: H },
        StepRule::Constant { eta: 0.01 },
    );
    cfg.seed = 7 + p as u64;
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(N, D, &cfg)];
    let mut idx = vec![0u32; N];
    let mut s = Svgd::new(&cfg, D, &mut x, &mut ws, &mut idx).unwrap();
    let mut samples: Vec<Vec<f64>> = (0..N * D).map(|_| Vec::with_capacity(M)).collect();
    for _ in 0..M {
        s.particles_mut().copy_from_slice(&x0);
        s.step(&mut Model).unwrap();
        for (c, v) in s.force().iter().enumerate() {
            samples[c].push(*v);
        }
    }
    let mf = M as f64;
    let mut st = Stats {
        mean: vec![],
        se_mean: vec![],
        var: vec![],
        se_var: vec![],
    };
    for v in &samples {
        let mean = v.iter().sum::<f64>() / mf;
        let m2 = v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / mf;
        let m4 = v.iter().map(|a| (a - mean).powi(4)).sum::<f64>() / mf;
        st.mean.push(mean);
        st.se_mean.push((m2 / (mf - 1.0)).sqrt());
        st.var.push(m2 * mf / (mf - 1.0));
        st.se_var.push(((m4 - m2 * m2) / mf).sqrt());
    }
    st
}

/// Lemma 1: particle i's batch mates are k = |C| − 1 draws without replacement from the other
/// N − 1 particles, so Var φ_il = ((N−1)/N)²·σ²_il·(N−|C|)/((|C|−1)(N−2)) averaged over the
/// batch size i lands in (σ²_il: the population variance of F(X_i, X_j)_l over j ≠ i).
fn predicted_var(x: &[f64], i: usize, l: usize, p: usize) -> f64 {
    let n = N as f64;
    let f: Vec<f64> = (0..N)
        .filter(|&j| j != i)
        .map(|j| big_f(x, i, j)[l])
        .collect();
    let mu = f.iter().sum::<f64>() / (n - 1.0);
    let s2 = f.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / (n - 1.0);
    let nb = N / p;
    let last = N - (nb - 1) * p;
    let cond = |m: usize| {
        let m = m as f64;
        ((n - 1.0) / n).powi(2) * s2 * (n - m) / ((m - 1.0) * (n - 2.0))
    };
    // P(i in a batch of size p) = (nb − 1)·p/N, P(i in the last batch) = last/N.
    ((nb - 1) * p) as f64 / n * cond(p) + last as f64 / n * cond(last)
}

fn check(p: usize) {
    let x = particles();
    let st = batch_force_stats(p);
    let mut worst_biased = 0.0f64;
    for i in 0..N {
        let fs = big_f(&x, i, i);
        let mut others = [0.0; D];
        for j in (0..N).filter(|&j| j != i) {
            let f = big_f(&x, i, j);
            for l in 0..D {
                others[l] += f[l];
            }
        }
        for l in 0..D {
            let c = i * D + l;
            // SVGD: (1/N) Σ_j F(X_i, X_j).
            let svgd = (fs[l] + others[l]) / N as f64;
            let z = (st.mean[c] - svgd) / st.se_mean[c];
            assert!(
                z.abs() < 4.5,
                "p={p} particle {i} coord {l}: mean {} svgd {svgd} z {z}",
                st.mean[c]
            );
            // The expectation of a biased weighting (no (N−1)/N factor): the test must be able
            // to tell it apart from the observed mean somewhere.
            let biased = fs[l] / N as f64 + others[l] / (N - 1) as f64;
            worst_biased = worst_biased.max(((st.mean[c] - biased) / st.se_mean[c]).abs());
            let pv = predicted_var(&x, i, l, p);
            let zv = (st.var[c] - pv) / st.se_var[c];
            assert!(
                zv.abs() < 4.5,
                "p={p} particle {i} coord {l}: var {} predicted {pv} z {zv}",
                st.var[c]
            );
        }
    }
    assert!(
        worst_biased > 6.0,
        "p={p}: the biased weighting is not detectable ({worst_biased})"
    );
}

#[test]
fn batch_force_unbiased_p2() {
    check(2);
}

#[test]
fn batch_force_unbiased_p5() {
    check(5);
}
