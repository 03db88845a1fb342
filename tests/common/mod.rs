//! Models and helpers shared by the integration tests.
#![allow(dead_code)]

use sgsample::{Error, Float, Gradient, Potential, Rng, Stop};
use sgsample_reference::Model;

/// The double well of docs/algorithms.md §1.3: U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, gradient noise
/// N(0, 1) drawn from the minibatch seed (so the core and the reference see the same noise).
#[derive(Clone, Copy, Default)]
pub struct DoubleWell {
    /// Standard deviation of the gradient noise.
    pub noise: f64,
}

impl DoubleWell {
    pub fn u(x: f64) -> f64 {
        (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5
    }
    pub fn du(x: f64) -> f64 {
        (4.0 * x * x * x + 3.0 * x * x - 26.0 * x - 1.0) / 14.0
    }
}

/// Gaussian noise as a pure function of the minibatch seed.
pub fn seed_noise(seed: u64, k: usize) -> f64 {
    let mut r = Rng::new(seed, 1000 + k as u64);
    r.normal()
}

impl<T: Float> Gradient<T> for DoubleWell {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let n = if self.noise > 0.0 {
            self.noise * seed_noise(seed, 0)
        } else {
            0.0
        };
        g[0] = T::from_f64(Self::du(x[0].to_f64()) + n);
        Ok(())
    }
}

impl<T: Float> Potential<T> for DoubleWell {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        Ok(Self::u(x[0].to_f64()))
    }
}

impl<T: Float> Model<T> for DoubleWell {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        Potential::energy(self, x)
    }
    fn grad(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        Gradient::gradient(self, x, seed, g)
    }
}

/// A d-dimensional Gaussian N(m, Σ) given by its precision matrix P (row-major) and mean m;
/// U = ½(θ−m)ᵀP(θ−m). The stochastic gradient adds N(0, noise²) per coordinate from the seed.
#[derive(Clone)]
pub struct Gaussian {
    pub mean: Vec<f64>,
    pub precision: Vec<f64>,
    pub noise: f64,
}

impl Gaussian {
    fn pdiff(&self, x: &[f64]) -> Vec<f64> {
        let d = self.mean.len();
        let diff: Vec<f64> = (0..d).map(|i| x[i] - self.mean[i]).collect();
        (0..d)
            .map(|i| (0..d).map(|j| self.precision[i * d + j] * diff[j]).sum())
            .collect()
    }
}

impl<T: Float> Gradient<T> for Gaussian {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let pd = self.pdiff(&xs);
        let mut r = Rng::new(seed, 77);
        for i in 0..g.len() {
            let n = if self.noise > 0.0 {
                self.noise * r.normal()
            } else {
                0.0
            };
            g[i] = T::from_f64(pd[i] + n);
        }
        Ok(())
    }
}

impl<T: Float> Potential<T> for Gaussian {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let pd = self.pdiff(&xs);
        Ok(0.5
            * (0..xs.len())
                .map(|i| (xs[i] - self.mean[i]) * pd[i])
                .sum::<f64>())
    }
}

impl<T: Float> Model<T> for Gaussian {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        Potential::energy(self, x)
    }
    fn grad(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        Gradient::gradient(self, x, seed, g)
    }
}

/// Mean, variance and the standard error of the mean from batch means (autocorrelation-aware).
pub fn batch_stats(xs: &[f64], batches: usize) -> (f64, f64, f64) {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n as f64 - 1.0);
    let bl = n / batches;
    let bm: Vec<f64> = (0..batches)
        .map(|b| xs[b * bl..(b + 1) * bl].iter().sum::<f64>() / bl as f64)
        .collect();
    let bmean = bm.iter().sum::<f64>() / batches as f64;
    let bvar = bm.iter().map(|x| (x - bmean) * (x - bmean)).sum::<f64>() / (batches as f64 - 1.0);
    (mean, var, (bvar / batches as f64).sqrt())
}

/// E θ, Var θ and P(θ > 0) under π ∝ exp(−U) for the double well, by quadrature (midpoint rule on
/// [−12, 12] with 240 000 cells: the density is below e⁻³⁰⁰ at the ends, the error far below
/// the Monte Carlo errors compared against).
pub fn double_well_truth() -> (f64, f64, f64) {
    let (a, b, n) = (-12.0f64, 12.0f64, 240_000);
    let h = (b - a) / n as f64;
    let (mut z, mut m1, mut m2, mut pos) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..n {
        let x = a + (i as f64 + 0.5) * h;
        let w = (-DoubleWell::u(x)).exp();
        z += w;
        m1 += w * x;
        m2 += w * x * x;
        if x > 0.0 {
            pos += w;
        }
    }
    let mean = m1 / z;
    (mean, m2 / z - mean * mean, pos / z)
}

/// Asserts that the chain's mean, variance and P(θ > 0) are within `k` standard errors of the
/// truth; returns the three z-scores.
pub fn z_scores(samples: &[f64]) -> [f64; 3] {
    let (mt, vt, pt) = double_well_truth();
    let (mean, _, se_mean) = batch_stats(samples, 100);
    let sq: Vec<f64> = samples.iter().map(|x| (x - mt) * (x - mt)).collect();
    let (var, _, se_var) = batch_stats(&sq, 100);
    let ind: Vec<f64> = samples
        .iter()
        .map(|&x| if x > 0.0 { 1.0 } else { 0.0 })
        .collect();
    let (p, _, se_p) = batch_stats(&ind, 100);
    [(mean - mt) / se_mean, (var - vt) / se_var, (p - pt) / se_p]
}

/// A d-dimensional Gaussian with a fixed, dense precision matrix and noisy gradients.
pub fn gaussian(d: usize) -> Gaussian {
    let mut p = vec![0.0; d * d];
    for i in 0..d {
        p[i * d + i] = 1.0 + 0.1 * i as f64;
        if i + 1 < d {
            p[i * d + i + 1] = 0.3;
            p[(i + 1) * d + i] = 0.3;
        }
    }
    Gaussian {
        mean: (0..d).map(|i| 0.1 * i as f64 + 0.1).collect(),
        precision: p,
        noise: 0.5,
    }
}

/// The double well, with a failure scheduled at the n-th gradient or energy call (counted from
/// the moment the schedule is set).
#[derive(Clone)]
pub struct Faulty {
    pub inner: DoubleWell,
    pub grad_calls: usize,
    pub energy_calls: usize,
    pub fail_grad_at: Option<(usize, Stop)>,
    pub fail_energy_at: Option<(usize, Stop)>,
    pub energy_value: Option<f64>,
}

impl Faulty {
    pub fn new() -> Self {
        Faulty {
            inner: DoubleWell { noise: 1.0 },
            grad_calls: 0,
            energy_calls: 0,
            fail_grad_at: None,
            fail_energy_at: None,
            energy_value: None,
        }
    }
}

impl Gradient<f64> for Faulty {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.grad_calls += 1;
        if let Some((n, s)) = self.fail_grad_at {
            if self.grad_calls == n {
                return Err(s);
            }
        }
        self.inner.gradient(x, seed, g)
    }
}

impl Potential<f64> for Faulty {
    fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        self.energy_calls += 1;
        if let Some((n, s)) = self.fail_energy_at {
            if self.energy_calls == n {
                return Err(s);
            }
        }
        if let Some(v) = self.energy_value {
            return Ok(v);
        }
        // Spelled out: `Model` (in scope here) has an `energy` too.
        Potential::energy(&mut self.inner, x)
    }
}

/// Fills a workspace before a call that must fail, to see that it wrote nothing.
pub const SENTINEL: f64 = 12345.678;

/// Inverse masses every `set_inverse_mass` of a three-coordinate chain refuses, with the status it
/// must give: wrong lengths, zero, negative, −0, NaN, ∞, and a bad value with a bad length (the
/// length is checked first).
pub fn bad_inverse_masses() -> [(&'static [f64], Error); 8] {
    [
        (&[1.0, 2.0], Error::LengthMismatch),
        (&[1.0, 2.0, 3.0, 4.0], Error::LengthMismatch),
        (&[1.0, 0.0, 3.0], Error::InvalidMass),
        (&[1.0, -2.0, 3.0], Error::InvalidMass),
        (&[1.0, -0.0, 3.0], Error::InvalidMass),
        (&[f64::NAN, 2.0, 3.0], Error::InvalidMass),
        (&[1.0, 2.0, f64::INFINITY], Error::InvalidMass),
        (&[0.0, 2.0], Error::LengthMismatch),
    ]
}
