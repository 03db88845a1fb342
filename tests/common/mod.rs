//! Models and helpers shared by the integration tests.
#![allow(dead_code)]

use sgsample::reference::amagold::Model;
use sgsample::{Float, Gradient, Potential, Rng, Stop};

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
