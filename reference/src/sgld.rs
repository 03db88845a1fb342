//! SGLD (docs/algorithms.md §1.4), line by line on `Vec`s.

use crate::Model;
use sgsample::{Float, Rng};

/// The plain SGLD chain, with the fixed diagonal preconditioner D = diag(k) of
/// docs/algorithms.md §1.4 (all 1 until [`Sgld::set_inverse_mass`]).
pub struct Sgld<T> {
    /// Current position.
    pub theta: Vec<T>,
    /// The preconditioner's kᵢ.
    pub k: Vec<T>,
    /// √kᵢ (in `f64`, rounded once).
    pub sqrt_k: Vec<T>,
    eps: f64,
    steps: u32,
    rng: Rng,
}

impl<T: Float> Sgld<T> {
    /// Starts at `theta0` (draws nothing).
    pub fn new(theta0: &[T], eps: f64, steps: u32, seed: u64, stream: u64) -> Self {
        Sgld {
            theta: theta0.to_vec(),
            k: vec![T::from_f64(1.0); theta0.len()],
            sqrt_k: vec![T::from_f64(1.0); theta0.len()],
            eps,
            steps,
            rng: Rng::new(seed, stream),
        }
    }

    /// Sets D = diag(k) (the caller has checked `k`: d positive finite values).
    pub fn set_inverse_mass(&mut self, k: &[T]) {
        self.k = k.to_vec();
        self.sqrt_k = k
            .iter()
            .map(|x| T::from_f64(libm::sqrt(x.to_f64())))
            .collect();
    }

    /// One outer iteration of T updates; `false` if it was discarded (a gradient REJECT, or a
    /// non-finite position at its end).
    pub fn step(&mut self, model: &mut dyn Model<T>) -> bool {
        let d = self.theta.len();
        let t = |x: f64| T::from_f64(x);
        let mut th = self.theta.clone();
        let mut g = vec![T::ZERO; d];
        for _ in 0..self.steps {
            let seed = self.rng.next_u64();
            if model.grad(&th, seed, &mut g).is_err() {
                return false;
            }
            for i in 0..d {
                th[i] = (th[i] - (t(self.eps / 2.0) * self.k[i]) * g[i])
                    + (t(libm::sqrt(self.eps)) * self.sqrt_k[i]) * self.rng.normal_as::<T>();
            }
        }
        if th.iter().any(|x| !x.is_finite()) {
            return false;
        }
        self.theta = th;
        true
    }
}
