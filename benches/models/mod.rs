//! The targets the benches share, so that `samplers`/`svgd` (criterion, wall clock) and
//! `instructions` (Callgrind) measure the same work.
#![allow(dead_code)]

use sgsample::{Float, Gradient, Potential, Stop};

/// U(θ) = |θ|²/2, ∇U = θ (exact: no gradient noise, so the model costs almost nothing).
pub struct StdNormal;

impl<T: Float> Gradient<T> for StdNormal {
    fn gradient(&mut self, x: &[T], _seed: u64, g: &mut [T]) -> Result<(), Stop> {
        g.copy_from_slice(x);
        Ok(())
    }
}

impl<T: Float> Potential<T> for StdNormal {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        let mut s = 0.0;
        for v in x {
            let v = v.to_f64();
            s += v * v;
        }
        Ok(0.5 * s)
    }
}

/// ∇V of the 1-D mixture ⅓N(−2, 1) + ⅔N(2, 1) (docs/algorithms.md §2.4).
pub struct Mixture;

impl Gradient<f64> for Mixture {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        g[0] = x[0] - 2.0 + 4.0 / (2.0 * libm::exp(4.0 * x[0]) + 1.0);
        Ok(())
    }
}

impl Gradient<f32> for Mixture {
    fn gradient(&mut self, x: &[f32], _seed: u64, g: &mut [f32]) -> Result<(), Stop> {
        g[0] = x[0] - 2.0 + 4.0 / (2.0 * libm::expf(4.0 * x[0]) + 1.0);
        Ok(())
    }
}
