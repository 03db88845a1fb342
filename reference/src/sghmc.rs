//! SGHMC (Algorithm 1 of docs/algorithms.md §1), line by line on `Vec`s.
//!
//! It follows the arithmetic and draw order documented in [`sgsample::sghmc`], which is what lets
//! the tests demand identical bits.

use crate::Model;
use sgsample::{Float, Rng};

/// Reference SGHMC chain, with the fixed diagonal preconditioner of docs/algorithms.md §1.1
/// (factors mᵢ and kᵢ = 1/mᵢ², all 1 until [`Sghmc::set_inverse_mass`]).
pub struct Sghmc<T> {
    /// Current position.
    pub theta: Vec<T>,
    /// Current momentum.
    pub r: Vec<T>,
    /// The momentum factors mᵢ = 1/√kᵢ.
    pub m: Vec<T>,
    /// The inverse mass kᵢ (relative to σ⁻²).
    pub k: Vec<T>,
    eps: f64,
    beta: f64,
    sigma: f64,
    steps: u32,
    resample: bool,
    rng: Rng,
}

impl<T: Float> Sghmc<T> {
    /// Starts at `theta0`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        theta0: &[T],
        eps: f64,
        beta: f64,
        sigma: f64,
        steps: u32,
        resample: bool,
        seed: u64,
        stream: u64,
    ) -> Self {
        let mut rng = Rng::new(seed, stream);
        let r = (0..theta0.len())
            .map(|_| {
                if resample {
                    T::ZERO
                } else {
                    T::from_f64(sigma) * rng.normal_as::<T>()
                }
            })
            .collect();
        Sghmc {
            theta: theta0.to_vec(),
            r,
            m: vec![T::from_f64(1.0); theta0.len()],
            k: vec![T::from_f64(1.0); theta0.len()],
            eps,
            beta,
            sigma,
            steps,
            resample,
            rng,
        }
    }

    /// Sets the preconditioner (docs/algorithms.md §1.5): kᵢ, mᵢ = 1/√kᵢ (in `f64`, rounded
    /// once), and the persistent momentum rescaled, `rᵢ ← rᵢ·(m_newᵢ/m_oldᵢ)` in `f64`, rounded
    /// once. The caller has checked `k` (d positive finite values).
    pub fn set_inverse_mass(&mut self, k: &[T]) {
        let factors = self.m.iter_mut().zip(self.k.iter_mut());
        for ((ri, (mi, ki)), &kn) in self.r.iter_mut().zip(factors).zip(k) {
            let m_new = 1.0 / libm::sqrt(kn.to_f64());
            *ri = T::from_f64(ri.to_f64() * (m_new / mi.to_f64()));
            *mi = T::from_f64(m_new);
            *ki = kn;
        }
    }

    /// One outer iteration of T inner steps; `false` if the gradient refused a point.
    pub fn step(&mut self, model: &mut dyn Model<T>) -> bool {
        let d = self.theta.len();
        let t = |x: f64| T::from_f64(x);
        let (eps, beta, sigma) = (self.eps, self.beta, self.sigma);
        let (m, k) = (self.m.clone(), self.k.clone());
        let mut th = self.theta.clone();
        let mut r = if self.resample {
            (0..d)
                .map(|i| (t(sigma) * m[i]) * self.rng.normal_as::<T>())
                .collect()
        } else {
            self.r.clone()
        };
        let mut g = vec![T::ZERO; d];
        for _ in 0..self.steps {
            for i in 0..d {
                th[i] += (t(eps / (sigma * sigma)) * k[i]) * r[i];
            }
            let seed = self.rng.next_u64();
            if model.grad(&th, seed, &mut g).is_err() {
                return false;
            }
            for i in 0..d {
                let z = if beta > 0.0 {
                    (t(libm::sqrt(4.0 * eps * beta) * sigma) * m[i]) * self.rng.normal_as::<T>()
                } else {
                    T::ZERO
                };
                r[i] = ((r[i] - t(eps) * g[i]) - t(2.0 * eps * beta) * r[i]) + z;
            }
        }
        self.theta = th;
        self.r = r;
        true
    }
}
