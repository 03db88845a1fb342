//! AMAGOLD (Algorithm 2) and SGHMC (Algorithm 1), line by line from docs/algorithms.md §1, on `Vec`s.
//!
//! Deliberately plain: one function per algorithm, the state in a struct, no workspace, no
//! generics beyond the coordinate type. It follows the arithmetic and draw order documented in
//! [`crate::amagold`] and [`crate::sghmc`], which is what lets the tests demand identical bits.

use crate::{Float, Rng, Stop};
use std::vec::Vec;

/// The model as two closures' worth of behaviour: energy and stochastic gradient.
pub trait Model<T> {
    /// U(θ), or a refusal.
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop>;
    /// ∇Ũ(θ; seed) written into `g`.
    fn grad(&mut self, theta: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop>;
}

/// One AMAGOLD iteration's result, as the reference sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Accepted?
    pub accepted: bool,
    /// log a (NaN if the trajectory left the domain).
    pub log_a: f64,
    /// ρ (NaN if the trajectory left the domain).
    pub rho: f64,
    /// The step size used.
    pub eps: f64,
}

/// Reference AMAGOLD chain.
pub struct Amagold<T> {
    /// Current position.
    pub theta: Vec<T>,
    /// Persistent momentum.
    pub r: Vec<T>,
    /// Cached U(θ).
    pub u: f64,
    /// Current step size.
    pub eps: f64,
    beta: f64,
    sigma: f64,
    steps: u32,
    reversible: bool,
    rng: Rng,
    warmup: u64,
    delta: f64,
    // Dual averaging (docs/algorithms.md §1.2).
    mu: f64,
    h_bar: f64,
    log_eps_bar: f64,
    m: u64,
}

impl<T: Float> Amagold<T> {
    /// Starts at `theta0` (the caller has validated everything).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &mut dyn Model<T>,
        theta0: &[T],
        eps: f64,
        beta: f64,
        sigma: f64,
        steps: u32,
        reversible: bool,
        warmup: u64,
        delta: f64,
        seed: u64,
        stream: u64,
    ) -> Self {
        let mut rng = Rng::new(seed, stream);
        let mut r = vec![T::ZERO; theta0.len()];
        if !reversible {
            for ri in r.iter_mut() {
                *ri = T::from_f64(sigma) * rng.normal_as::<T>();
            }
        }
        let u = model.energy(theta0).expect("reference: initial energy");
        Amagold {
            theta: theta0.to_vec(),
            r,
            u,
            eps,
            beta,
            sigma,
            steps,
            reversible,
            rng,
            warmup,
            delta,
            mu: libm::log(10.0 * eps),
            h_bar: 0.0,
            log_eps_bar: 0.0,
            m: 0,
        }
    }

    /// One outer iteration (panics if a callback aborts: the reference is for tests).
    pub fn step(&mut self, model: &mut dyn Model<T>) -> Step {
        let d = self.theta.len();
        let (eps, beta, sigma) = (self.eps, self.beta, self.sigma);
        let half = eps / (2.0 * (sigma * sigma));
        let full = eps / (sigma * sigma);
        let a = 1.0 - eps * beta;
        let b = 1.0 + eps * beta;
        let sd = libm::sqrt(4.0 * eps * beta) * sigma;
        let t = |x: f64| T::from_f64(x);

        // line 3
        let r0: Vec<T> = if self.reversible {
            (0..d)
                .map(|_| t(sigma) * self.rng.normal_as::<T>())
                .collect()
        } else {
            self.r.clone()
        };
        // lines 4-5
        let mut r = r0.clone();
        let mut rho = 0.0f64;
        let mut th: Vec<T> = (0..d).map(|i| self.theta[i] + t(half) * r[i]).collect();
        let mut g = vec![T::ZERO; d];
        let mut out_of_domain = false;
        // lines 6-13
        for step in 0..self.steps {
            if step != 0 {
                for i in 0..d {
                    th[i] += t(full) * r[i];
                }
            }
            let seed = self.rng.next_u64();
            if model.grad(&th, seed, &mut g).is_err() {
                out_of_domain = true;
                break;
            }
            let eta: Vec<T> = (0..d)
                .map(|_| {
                    if beta > 0.0 {
                        t(sd) * self.rng.normal_as::<T>()
                    } else {
                        T::ZERO
                    }
                })
                .collect();
            let r_new: Vec<T> = (0..d)
                .map(|i| ((t(a) * r[i] - t(eps) * g[i]) + eta[i]) / t(b))
                .collect();
            let mut dot = 0.0;
            for i in 0..d {
                dot += g[i].to_f64() * (r[i].to_f64() + r_new[i].to_f64());
            }
            rho += half * dot;
            r = r_new;
        }
        // lines 15-19
        let mut u_new = f64::NAN;
        let mut log_a = f64::NAN;
        if !out_of_domain {
            for i in 0..d {
                th[i] += t(half) * r[i];
            }
            // A non-finite θ' is a divergence (log a stays NaN); the energy is not asked there.
            if th.iter().all(|x| x.is_finite()) {
                match model.energy(&th) {
                    Ok(u) => {
                        u_new = u;
                        log_a = (self.u - u_new) + rho;
                    }
                    Err(_) => out_of_domain = true,
                }
            }
        }
        let uniform = self.rng.uniform_f64();
        let accepted = !out_of_domain && log_a.is_finite() && libm::log(uniform) < log_a;
        if accepted {
            self.theta = th;
            self.r = r;
            self.u = u_new;
        } else {
            self.r = r0.iter().map(|&x| -x).collect();
        }
        let used = self.eps;
        self.adapt(if out_of_domain || log_a.is_nan() {
            0.0
        } else {
            libm::exp(log_a).min(1.0)
        });
        Step {
            accepted,
            log_a,
            rho: if out_of_domain { f64::NAN } else { rho },
            eps: used,
        }
    }

    fn adapt(&mut self, alpha: f64) {
        if self.m >= self.warmup {
            return;
        }
        self.m += 1;
        let m = self.m as f64;
        self.h_bar = (1.0 - 1.0 / (m + 10.0)) * self.h_bar + (self.delta - alpha) / (m + 10.0);
        let log_eps = self.mu - (libm::sqrt(m) / 0.05) * self.h_bar;
        let w = libm::pow(m, -0.75);
        self.log_eps_bar = w * log_eps + (1.0 - w) * self.log_eps_bar;
        self.eps = if self.m == self.warmup {
            libm::exp(self.log_eps_bar)
        } else {
            libm::exp(log_eps)
        };
    }
}

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
