//! TunaMH (docs/algorithms.md §7), line by line on `Vec`s: its Poisson draw, the proposal, the
//! minibatch or full pass, the decision.

use sgsample::{Float, Rng};

/// A sum-of-terms target as the reference asks for it: one term's difference at a time.
pub trait TermsModel<T> {
    /// `U_i(proposal) − U_i(theta)`.
    fn difference(&mut self, theta: &[T], proposal: &[T], i: u64) -> f64;
    /// `U₀(proposal) − U₀(theta)`.
    fn exact(&mut self, theta: &[T], proposal: &[T]) -> f64;
}

/// The Poisson draw of the document.
pub fn poisson(rng: &mut Rng, mu: f64) -> u64 {
    if !(mu > 0.0 && mu.is_finite()) {
        return 0;
    }
    if mu < 10.0 {
        let u = rng.uniform_f64();
        let (mut k, mut p) = (0u64, libm::exp(-mu));
        let mut f = p;
        while u >= f && k < 200 {
            k += 1;
            p *= mu / k as f64;
            f += p;
        }
        return k;
    }
    let s = libm::sqrt(mu);
    let b = 0.931 + 2.53 * s;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = rng.uniform_f64() - 0.5;
        let v = rng.uniform_f64();
        let us = 0.5 - libm::fabs(u);
        let k = libm::floor((2.0 * a / us + b) * u + mu + 0.43);
        if us >= 0.07 && v <= vr {
            return k as u64;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if libm::log(v) + libm::log(inv_alpha) - libm::log(a / (us * us) + b)
            <= -mu + k * libm::log(mu) - libm::lgamma(k + 1.0)
        {
            return k as u64;
        }
    }
}

/// The plain TunaMH chain (callbacks never REJECT or ABORT here, and the bound holds).
pub struct Tunamh<T> {
    /// Current position.
    pub theta: Vec<T>,
    sigma: f64,
    terms: u64,
    bound: f64,
    chi: f64,
    rng: Rng,
}

impl<T: Float> Tunamh<T> {
    /// Starts at `theta0` (draws nothing).
    pub fn new(theta0: &[T], sigma: f64, terms: u64, bound: f64, chi: f64, seed: u64) -> Self {
        Tunamh {
            theta: theta0.to_vec(),
            sigma,
            terms,
            bound,
            chi,
            rng: Rng::new(seed, 0),
        }
    }

    /// One iteration; `true` when the proposal was accepted.
    pub fn step(&mut self, model: &mut dyn TermsModel<T>) -> bool {
        let d = self.theta.len();
        let mut prop = Vec::with_capacity(d);
        for &x in &self.theta {
            prop.push(x + T::from_f64(self.sigma) * self.rng.normal_as::<T>());
        }
        let mut sq = 0.0;
        for (p, x) in prop.iter().zip(&self.theta) {
            let diff = p.to_f64() - x.to_f64();
            sq += diff * diff;
        }
        let m = self.bound * libm::sqrt(sq);
        let n = self.terms as f64;
        let l = m * n;
        let lambda = self.chi * l * l;
        let delta0 = model.exact(&self.theta, &prop);
        let mut log = 0.0;
        if lambda + l < n {
            let batch = poisson(&mut self.rng, lambda + l);
            let mut draws = Vec::new();
            for _ in 0..batch {
                let i = self.rng.below(self.terms);
                let u = self.rng.uniform_f64();
                draws.push((i, u));
            }
            for (i, u) in draws {
                let delta = model.difference(&self.theta, &prop, i).max(-m).min(m);
                let phi = 0.5 * (delta + m);
                let base = lambda / n + phi;
                if u * (lambda / n + m) < base {
                    log += libm::log1p(-delta / base);
                }
            }
        } else {
            for i in 0..self.terms {
                log -= model.difference(&self.theta, &prop, i);
            }
        }
        log -= delta0;
        let a = self.rng.uniform_f64();
        if log >= 0.0 || a < libm::exp(log) {
            self.theta = prop;
            true
        } else {
            false
        }
    }
}
