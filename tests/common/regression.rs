//! A badly scaled Bayesian linear regression (docs/algorithms.md §1.5): three predictors on the
//! scales 0.05, 0.5 and 5, so the posterior standard deviations of the weights differ by 100×.
//! The posterior is Gaussian, so its mean and variances are exact (a 3×3 solve). Shared by
//! tests/amagold_mass.rs and examples/mass_warmup.rs (which measures ESS per gradient).

use sgsample::stats::{push_all, Series};
use sgsample::{minibatch, Amagold, AmagoldConfig, Mass, Potential, Rng, Stop};

/// Predictors, observations, minibatch size.
pub const D: usize = 3;
pub const N: usize = 500;
pub const BATCH: usize = 50;
/// Noise sd of the observations and prior sd of the weights.
const NOISE: f64 = 1.0;
const PRIOR: f64 = 10.0;

/// The data set and its exact posterior.
pub struct Regression {
    x: Vec<[f64; D]>,
    y: Vec<f64>,
    /// Posterior mean and variances (exact).
    pub mean: [f64; D],
    pub var: [f64; D],
    /// Gradient evaluations so far.
    pub gradients: u64,
    idx: Vec<u64>,
}

impl Regression {
    /// Synthetic data from the library's generator: x_ij ~ N(0, s_j²) with s = (0.05, 0.5, 5),
    /// y = x·w* + N(0, 1), w* = (1, −0.5, 0.02).
    pub fn new() -> Self {
        let mut rng = Rng::new(2024, 77);
        let scales = [0.05, 0.5, 5.0];
        let w_true = [1.0, -0.5, 0.02];
        let mut x = Vec::with_capacity(N);
        let mut y = Vec::with_capacity(N);
        for _ in 0..N {
            let mut row = [0.0; D];
            for (r, s) in row.iter_mut().zip(scales) {
                *r = s * rng.normal();
            }
            let mean: f64 = row.iter().zip(w_true).map(|(a, b)| a * b).sum();
            y.push(mean + NOISE * rng.normal());
            x.push(row);
        }
        // Posterior precision A = XᵀX/σ² + I/τ², mean A⁻¹Xᵀy/σ².
        let mut a = [[0.0; D]; D];
        let mut b = [0.0; D];
        for (row, &yi) in x.iter().zip(&y) {
            for i in 0..D {
                b[i] += row[i] * yi / (NOISE * NOISE);
                for j in 0..D {
                    a[i][j] += row[i] * row[j] / (NOISE * NOISE);
                }
            }
        }
        for (i, ai) in a.iter_mut().enumerate() {
            ai[i] += 1.0 / (PRIOR * PRIOR);
        }
        let inv = invert3(&a);
        let mut mean = [0.0; D];
        let mut var = [0.0; D];
        for i in 0..D {
            mean[i] = (0..D).map(|j| inv[i][j] * b[j]).sum();
            var[i] = inv[i][i];
        }
        Regression {
            x,
            y,
            mean,
            var,
            gradients: 0,
            idx: vec![0; BATCH],
        }
    }
}

/// The inverse of a symmetric positive definite 3×3 matrix (cofactors).
fn invert3(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let c = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
    };
    let det = a[0][0] * c(0, 0) + a[0][1] * c(0, 1) + a[0][2] * c(0, 2);
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = c(j, i) / det;
        }
    }
    inv
}

impl sgsample::Gradient<f64> for Regression {
    /// The minibatch gradient (N/B)·Σ_B −x_j(y_j − x_j·w)/σ² + w/τ², unbiased.
    fn gradient(&mut self, w: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.gradients += 1;
        minibatch(seed, N as u64, &mut self.idx).map_err(|_| Stop::Abort)?;
        let scale = N as f64 / BATCH as f64;
        for (gi, wi) in g.iter_mut().zip(w) {
            *gi = wi / (PRIOR * PRIOR);
        }
        for &j in &self.idx {
            let (row, yj) = (&self.x[j as usize], self.y[j as usize]);
            let resid = yj - row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
            for (gi, xi) in g.iter_mut().zip(row) {
                *gi -= scale * xi * resid / (NOISE * NOISE);
            }
        }
        Ok(())
    }
}

impl Potential<f64> for Regression {
    /// U(w) = Σ (y − x·w)²/(2σ²) + |w|²/(2τ²), over all data.
    fn energy(&mut self, w: &[f64]) -> Result<f64, Stop> {
        let mut u: f64 = w.iter().map(|v| v * v).sum::<f64>() / (2.0 * PRIOR * PRIOR);
        for (row, &yi) in self.x.iter().zip(&self.y) {
            let r = yi - row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
            u += r * r / (2.0 * NOISE * NOISE);
        }
        Ok(u)
    }
}

/// One AMAGOLD chain on the regression (T = 10, β = 0.25, σ = 1, ε₀ = 10⁻³, seed 9, stream
/// `stream`): `warmup` iterations, then `draws` pushed into one accumulator per coordinate.
/// (The test reads some fields, the example the others: each build sees the rest unread.)
#[allow(dead_code)]
pub struct ChainRun {
    pub series: [Series<128>; D],
    /// The learnt inverse mass's diagonal (ones with unit mass).
    pub inverse_mass: Vec<f64>,
    pub step_size: f64,
    pub accepted: u64,
    pub gradients_warmup: u64,
    pub gradients_draws: u64,
}

pub fn run_chain(mass: Mass, warmup: u64, draws: usize, stream: u64) -> ChainRun {
    let mut model = Regression::new();
    let cfg = AmagoldConfig {
        warmup,
        mass,
        seed: 9,
        stream,
        ..AmagoldConfig::new(1e-3)
    };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, D)];
    let mut chain = Amagold::new(&cfg, &[0.0; D], &mut ws, &mut model).unwrap();
    for _ in 0..warmup {
        chain.step(&mut model).unwrap();
    }
    assert!(!chain.in_warmup());
    let gradients_warmup = std::mem::take(&mut model.gradients);
    let mut series: [Series<128>; D] = core::array::from_fn(|_| Series::new());
    let mut accepted = 0;
    for _ in 0..draws {
        accepted += chain.step(&mut model).unwrap().accepted as u64;
        push_all(&mut series, chain.position()).unwrap();
    }
    let mut inverse_mass = vec![0.0; D];
    chain.inverse_mass(&mut inverse_mass).unwrap();
    ChainRun {
        series,
        inverse_mass,
        step_size: chain.step_size(),
        accepted,
        gradients_warmup,
        gradients_draws: model.gradients,
    }
}
