//! SGLD (docs/algorithms.md §1.4), line by line on `Vec`s.

use super::amagold::Model;
use crate::{Float, Rng};

/// The plain SGLD chain.
pub struct Sgld<T> {
    /// Current position.
    pub theta: Vec<T>,
    eps: f64,
    steps: u32,
    rng: Rng,
}

impl<T: Float> Sgld<T> {
    /// Starts at `theta0` (draws nothing).
    pub fn new(theta0: &[T], eps: f64, steps: u32, seed: u64, stream: u64) -> Self {
        Sgld {
            theta: theta0.to_vec(),
            eps,
            steps,
            rng: Rng::new(seed, stream),
        }
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
                th[i] = (th[i] - t(self.eps / 2.0) * g[i])
                    + t(libm::sqrt(self.eps)) * self.rng.normal_as::<T>();
            }
        }
        if th.iter().any(|x| !x.is_finite()) {
            return false;
        }
        self.theta = th;
        true
    }
}
