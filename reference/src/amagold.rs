//! AMAGOLD (Algorithm 2), line by line from docs/algorithms.md §1, on `Vec`s.
//!
//! Deliberately plain: one function per algorithm, the state in a struct, no workspace, no
//! generics beyond the coordinate type. It follows the arithmetic and draw order documented in
//! [`sgsample::amagold`], which is what lets the tests demand identical bits.

use crate::Model;
use sgsample::{Float, Rng};
use std::vec::Vec;

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
    /// The inner steps run.
    pub steps: u32,
}

/// The mass matrix of the reference chain (docs/algorithms.md §1.5–1.6), fixed.
#[derive(Clone, Debug)]
pub enum Metric<T> {
    /// σ²·I.
    Unit,
    /// Diagonal: the factors m and k (k = 1/m², the inverse mass relative to σ⁻²).
    Diagonal {
        /// Momentum factors mᵢ = 1/√kᵢ.
        m: Vec<T>,
        /// Inverse-mass factors kᵢ.
        k: Vec<T>,
    },
    /// Dense: the lower-triangular Cholesky factor L of K, as full rows.
    Dense(Vec<Vec<T>>),
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
    /// The fixed mass matrix (set it with [`Amagold::set_diagonal`] / [`Amagold::set_dense`]).
    pub metric: Metric<T>,
    /// Draw T per iteration uniformly from ⌈T/2⌉ … ⌊3T/2⌋.
    pub jitter: bool,
    beta: f64,
    sigma: f64,
    steps: u32,
    reversible: bool,
    rng: Rng,
    warm: Option<crate::warmup::Warmup>,
}

impl<T: Float> Amagold<T> {
    /// Starts at `theta0` (the caller has validated everything). With `warmup > 0` the chain
    /// runs the windowed warm-up of docs/algorithms.md §1.7 without its approach (the
    /// reference has no mass matrix to adapt: unit mass).
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
            metric: Metric::Unit,
            jitter: false,
            beta,
            sigma,
            steps,
            reversible,
            rng,
            warm: (warmup > 0).then(|| crate::warmup::Warmup::new(warmup, eps, delta)),
        }
    }

    /// A fixed diagonal inverse mass k (relative to σ⁻²): mᵢ = 1/√kᵢ, each rounded once; the
    /// persistent momentum is rescaled to it, rᵢ ← rᵢ·(m_newᵢ/m_oldᵢ) in `f64` (docs/algorithms.md
    /// §1.5), so that it keeps its law N(0, σ²mᵢ²).
    pub fn set_diagonal(&mut self, k: &[T]) {
        let m_old: Vec<f64> = match &self.metric {
            Metric::Diagonal { m, .. } => m.iter().map(|x| x.to_f64()).collect(),
            _ => vec![1.0; k.len()],
        };
        let m_new: Vec<f64> = k.iter().map(|&x| 1.0 / libm::sqrt(x.to_f64())).collect();
        for ((r, mn), mo) in self.r.iter_mut().zip(&m_new).zip(&m_old) {
            *r = T::from_f64(r.to_f64() * (mn / mo));
        }
        let m = m_new.iter().map(|&x| T::from_f64(x)).collect();
        self.metric = Metric::Diagonal { m, k: k.to_vec() };
    }

    /// A fixed dense inverse mass K (d×d row-major): its Cholesky factor, computed in `f64` row
    /// by row and rounded once per value (docs/algorithms.md §1.6).
    pub fn set_dense(&mut self, kmat: &[T]) {
        let d = self.theta.len();
        let mut l = vec![vec![T::ZERO; d]; d];
        for i in 0..d {
            for j in 0..=i {
                let mut s = kmat[i * d + j].to_f64();
                for (a, b) in l[i].iter().zip(&l[j]).take(j) {
                    s -= a.to_f64() * b.to_f64();
                }
                l[i][j] = if i == j {
                    T::from_f64(libm::sqrt(s))
                } else {
                    T::from_f64(s / l[j][j].to_f64())
                };
            }
        }
        self.metric = Metric::Dense(l);
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
        let steps = if self.jitter {
            let lo = self.steps.div_ceil(2);
            let hi = self.steps + self.steps / 2;
            lo + self.rng.below(u64::from(hi - lo) + 1) as u32
        } else {
            self.steps
        };
        // Per-coordinate factors (all 1 for unit and dense mass) and the dense factor.
        let one = vec![t(1.0); d];
        let (mf, kf) = match &self.metric {
            Metric::Diagonal { m, k } => (m.clone(), k.clone()),
            _ => (one.clone(), one),
        };
        let dense = match &self.metric {
            Metric::Dense(l) => Some(l.clone()),
            _ => None,
        };
        // L·v, one row at a time (j increasing), in T.
        let lmul = |l: &Vec<Vec<T>>, v: &[T], i: usize| {
            let mut s = T::ZERO;
            for j in 0..=i {
                s += l[i][j] * v[j];
            }
            s
        };
        let drift = |th: &mut Vec<T>, c: f64, r: &[T]| {
            for i in 0..d {
                match &dense {
                    Some(l) => {
                        let s = lmul(l, r, i);
                        th[i] += t(c) * s;
                    }
                    None => th[i] += (t(c) * kf[i]) * r[i],
                }
            }
        };

        // line 3
        let r0: Vec<T> = if self.reversible {
            (0..d)
                .map(|i| (t(sigma) * mf[i]) * self.rng.normal_as::<T>())
                .collect()
        } else {
            self.r.clone()
        };
        // lines 4-5
        let mut r = r0.clone();
        let mut rho = 0.0f64;
        let mut th = self.theta.clone();
        drift(&mut th, half, &r);
        let mut g = vec![T::ZERO; d];
        let mut out_of_domain = false;
        // lines 6-13
        for step in 0..steps {
            if step != 0 {
                drift(&mut th, full, &r);
            }
            let seed = self.rng.next_u64();
            if model.grad(&th, seed, &mut g).is_err() {
                out_of_domain = true;
                break;
            }
            // The gradient in the momentum's coordinates: Lᵀ·g (row by row), or g itself.
            let gm: Vec<T> = match &dense {
                Some(l) => {
                    let mut o = vec![T::ZERO; d];
                    for i in 0..d {
                        for j in 0..=i {
                            o[j] += l[i][j] * g[i];
                        }
                    }
                    o
                }
                None => g.clone(),
            };
            let eta: Vec<T> = (0..d)
                .map(|i| {
                    if beta > 0.0 {
                        (t(sd) * mf[i]) * self.rng.normal_as::<T>()
                    } else {
                        T::ZERO
                    }
                })
                .collect();
            let r_new: Vec<T> = (0..d)
                .map(|i| ((t(a) * r[i] - t(eps) * gm[i]) + eta[i]) / t(b))
                .collect();
            let mut dot = 0.0;
            for i in 0..d {
                dot += (gm[i].to_f64() * (r[i].to_f64() + r_new[i].to_f64())) * kf[i].to_f64();
            }
            rho += half * dot;
            r = r_new;
        }
        // lines 15-19
        let mut u_new = f64::NAN;
        let mut log_a = f64::NAN;
        if !out_of_domain {
            drift(&mut th, half, &r);
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
        let alpha = if out_of_domain || log_a.is_nan() {
            0.0
        } else {
            libm::exp(log_a).min(1.0)
        };
        if let Some(w) = self.warm.as_mut() {
            self.eps = w.update(self.eps, alpha, self.u);
            if w.done() {
                self.warm = None;
            }
        }
        Step {
            accepted,
            log_a,
            rho: if out_of_domain { f64::NAN } else { rho },
            eps: used,
            steps,
        }
    }
}
