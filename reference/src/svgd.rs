//! SVGD and RBM-SVGD (docs/algorithms.md §2), straight from the formulas, on `Vec`s.
//!
//! Deliberately plain: particles as a `Vec` of rows, every `F(X_i, X_j)` computed on its own,
//! the median by sorting a copy, the AdaGrad "first update" tracked by a flag per particle. It
//! follows the arithmetic and draw order documented in [`sgsample::svgd`], which is what lets the
//! tests demand identical bits from the core; it shares nothing with the core but [`Rng`] and the primitives
//! (`libm`, [`sgsample::fastexp`]).

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use sgsample::{Float, Rng, Stop};
use std::vec;
use std::vec::Vec;

/// The kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// exp(−r²/(2h)), fixed h.
    Gaussian(f64),
    /// The Gaussian kernel with the median heuristic.
    Median,
    /// (c² + r²)^(−β).
    Imq {
        /// Softening length.
        c: f64,
        /// Exponent.
        beta: f64,
    },
}

/// The step rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// X ← X + η φ.
    Constant(f64),
    /// X ← X + (η/k) φ.
    Decaying(f64),
    /// The RMSProp-like AdaGrad of the reference SVGD code.
    AdaGrad {
        /// Master step size.
        eta: f64,
        /// History decay.
        alpha: f64,
    },
}

/// The scale option (docs/algorithms.md §2.7): SVGD in `u = (x − c)/s`.
#[derive(Clone, Debug, PartialEq)]
pub enum Scale<T> {
    /// Raw coordinates.
    None,
    /// s = the particles' standard deviations at the start of each iteration.
    Particles,
    /// s given.
    Fixed(Vec<T>),
}

/// A reference particle system.
pub struct Svgd<T> {
    /// The particles, one `Vec` per particle.
    pub x: Vec<Vec<T>>,
    /// The AdaGrad history, one row per particle.
    pub hist: Vec<Vec<T>>,
    /// Whether particle i has been moved (its history row is set).
    pub moved: Vec<bool>,
    /// The φ of the last iteration (without replacement), one row per particle.
    pub phi: Vec<Vec<T>>,
    /// Batch size.
    pub p: usize,
    /// Algorithm 2 instead of Algorithm 3.
    pub with_replacement: bool,
    /// Kernel.
    pub kernel: Kernel,
    /// Step rule.
    pub rule: Rule,
    /// Iterations done.
    pub k: u64,
    /// The KSD to report (without replacement): `(c, β, full)`; `None` is off.
    pub ksd: Option<(f64, f64, bool)>,
    /// KSD² of the last iteration's starting particles (NaN when off).
    pub ksd_squared: f64,
    /// The scale option; [`Scale::None`] unless set after `new`.
    pub scale: Scale<T>,
    /// The scales and centres `(s, c)` of the last iteration (empty without the option).
    pub last_scale: (Vec<T>, Vec<T>),
    rng: Rng,
}

/// k(x, y) and c with ∇_y k = c (x − y), from the squared distance, for bandwidth/parameters.
fn kern<T: Float>(kernel: Kernel, h: f64, r2: T) -> (T, T) {
    match kernel {
        Kernel::Gaussian(_) | Kernel::Median => {
            let k = (-(r2 * T::from_f64(0.5 / h))).fast_exp();
            (k, k * T::from_f64(1.0 / h))
        }
        Kernel::Imq { c, beta } => {
            let s = T::from_f64(c * c) + r2;
            let k = if beta == 0.5 {
                T::from_f64(1.0) / s.sqrt()
            } else {
                (-(T::from_f64(beta) * s.ln())).exp()
            };
            (k, (T::from_f64(2.0 * beta) * k) / s)
        }
    }
}

/// F(x, y) = k(x, y)·(−∇V(y)) + ∇_y k(x, y).
fn big_f<T: Float>(kernel: Kernel, h: f64, x: &[T], y: &[T], gy: &[T]) -> Vec<T> {
    let mut r2 = T::ZERO;
    for l in 0..x.len() {
        r2 += (x[l] - y[l]) * (x[l] - y[l]);
    }
    let (k, c) = kern(kernel, h, r2);
    (0..x.len())
        .map(|l| c * (x[l] - y[l]) - k * gy[l])
        .collect()
}

/// The iteration's bandwidth: fixed, or med²/(2 ln N) from sorted pairwise distances.
fn bandwidth<T: Float>(kernel: Kernel, x: &[Vec<T>]) -> f64 {
    match kernel {
        Kernel::Gaussian(h) => h,
        Kernel::Imq { .. } => f64::NAN,
        Kernel::Median => {
            let n = x.len();
            let mut dist = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    let mut r2 = T::ZERO;
                    for l in 0..x[i].len() {
                        r2 += (x[i][l] - x[j][l]) * (x[i][l] - x[j][l]);
                    }
                    dist.push(r2.sqrt().to_f64());
                }
            }
            dist.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let m = dist.len();
            let med = if m == 0 {
                0.0
            } else if m % 2 == 1 {
                dist[m / 2]
            } else {
                0.5 * (dist[m / 2 - 1] + dist[m / 2])
            };
            if n < 2 || med <= 0.0 {
                1.0
            } else {
                (med * med) / (2.0 * (n as f64).ln())
            }
        }
    }
}

impl<T: Float> Svgd<T> {
    /// Starts at `particles` (N rows of length d); the caller has validated everything.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        particles: &[T],
        d: usize,
        p: usize,
        with_replacement: bool,
        kernel: Kernel,
        rule: Rule,
        seed: u64,
        stream: u64,
    ) -> Self {
        let x: Vec<Vec<T>> = particles.chunks(d).map(|r| r.to_vec()).collect();
        let n = x.len();
        Svgd {
            hist: vec![vec![T::ZERO; d]; n],
            moved: vec![false; n],
            phi: vec![vec![T::ZERO; d]; n],
            x,
            p,
            with_replacement,
            kernel,
            rule,
            k: 0,
            ksd: None,
            ksd_squared: f64::NAN,
            scale: Scale::None,
            last_scale: (Vec::new(), Vec::new()),
            rng: Rng::new(seed, stream),
        }
    }

    /// The particles flattened row by row.
    pub fn flat(&self) -> Vec<T> {
        self.x.concat()
    }

    /// φ_i for the members of one batch (indices into `xs`/`gs`), positions `xs`, gradients `gs`.
    fn batch_phi(&self, h: f64, batch: &[usize], xs: &[Vec<T>], gs: &[Vec<T>]) -> Vec<Vec<T>> {
        let n = self.x.len();
        let m = batch.len();
        let inv_n = T::from_f64(1.0 / n as f64);
        let w = T::from_f64((n - 1) as f64 / (n as f64 * (m - 1) as f64));
        let d = xs[0].len();
        let mut out = Vec::new();
        for &i in batch {
            let mut s = vec![T::ZERO; d];
            for &j in batch {
                if j != i {
                    let f = big_f(self.kernel, h, &xs[i], &xs[j], &gs[j]);
                    for l in 0..d {
                        s[l] += f[l];
                    }
                }
            }
            let fs = big_f(self.kernel, h, &xs[i], &xs[i], &gs[i]);
            out.push((0..d).map(|l| inv_n * fs[l] + w * s[l]).collect());
        }
        out
    }

    /// Moves particle i by φ under the step rule: `x + Δ`, or `x + s_l·Δ` with the scale
    /// option (`s` the iteration's scales) for the rule's increment Δ.
    fn update(&mut self, i: usize, phi: &[T]) {
        let k = self.k;
        let s = self.last_scale.0.clone();
        for l in 0..phi.len() {
            let delta = match self.rule {
                Rule::Constant(eta) => T::from_f64(eta) * phi[l],
                Rule::Decaying(eta) => T::from_f64(eta / k as f64) * phi[l],
                Rule::AdaGrad { eta, alpha } => {
                    let sq = phi[l] * phi[l];
                    self.hist[i][l] = if self.moved[i] {
                        T::from_f64(alpha) * self.hist[i][l] + T::from_f64(1.0 - alpha) * sq
                    } else {
                        sq
                    };
                    let den = T::from_f64(1e-6) + self.hist[i][l].sqrt();
                    (T::from_f64(eta) * phi[l]) / den
                }
            };
            if s.is_empty() {
                self.x[i][l] += delta;
            } else {
                self.x[i][l] += s[l] * delta;
            }
        }
        self.moved[i] = true;
    }

    /// The iteration's scales and centres (docs/algorithms.md §2.7): per coordinate the mean
    /// and the population sd of the particles, in `f64`, summed in particle order; an sd that
    /// rounds to 0 or is not finite gives 1. Empty without the option.
    fn scales(&self) -> (Vec<T>, Vec<T>) {
        let n = self.x.len();
        let d = self.x[0].len();
        if self.scale == Scale::None {
            return (Vec::new(), Vec::new());
        }
        let mut s = vec![T::ZERO; d];
        let mut c = vec![T::ZERO; d];
        for l in 0..d {
            let mut sum = 0.0;
            for i in 0..n {
                sum += self.x[i][l].to_f64();
            }
            let mean = sum / n as f64;
            c[l] = T::from_f64(mean);
            s[l] = match &self.scale {
                Scale::Fixed(f) => f[l],
                _ => {
                    let mut ss = 0.0;
                    for i in 0..n {
                        ss += (self.x[i][l].to_f64() - mean) * (self.x[i][l].to_f64() - mean);
                    }
                    let sd = T::from_f64((ss / n as f64).sqrt());
                    if sd.is_finite() && sd > T::ZERO {
                        sd
                    } else {
                        T::from_f64(1.0)
                    }
                }
            };
        }
        (s, c)
    }

    /// The positions the kernel sees: `x`, or `(x − c)/s` with the option.
    fn u_of(&self, x: &[T]) -> Vec<T> {
        let (s, c) = &self.last_scale;
        if s.is_empty() {
            return x.to_vec();
        }
        (0..x.len()).map(|l| (x[l] - c[l]) / s[l]).collect()
    }

    /// The gradient the kernel sees: `g`, or `s∘g` with the option.
    fn g_of(&self, g: &[T]) -> Vec<T> {
        let s = &self.last_scale.0;
        if s.is_empty() {
            return g.to_vec();
        }
        (0..g.len()).map(|l| s[l] * g[l]).collect()
    }

    /// One iteration; returns the bandwidth used. `grad(x, seed, g)` is ∇V.
    pub fn step(
        &mut self,
        grad: &mut dyn FnMut(&[T], u64, &mut [T]) -> Result<(), Stop>,
    ) -> Result<f64, Stop> {
        let n = self.x.len();
        let d = self.x[0].len();
        let p = self.p;
        self.k += 1;
        let seed = self.rng.next_u64();
        self.last_scale = self.scales();
        let u: Vec<Vec<T>> = self.x.iter().map(|x| self.u_of(x)).collect();
        let h = bandwidth(self.kernel, &u);
        let mut perm: Vec<usize> = (0..n).collect();
        if !self.with_replacement {
            for t in 0..n - 1 {
                let j = t + self.rng.below((n - t) as u64) as usize;
                perm.swap(t, j);
            }
            let mut g = vec![vec![T::ZERO; d]; n];
            for i in 0..n {
                grad(&self.x[i], seed, &mut g[i])?;
            }
            let g: Vec<Vec<T>> = g.iter().map(|gi| self.g_of(gi)).collect();
            let nb = n / p;
            let mut phi = vec![vec![T::ZERO; d]; n];
            for b in 0..nb {
                let end = if b + 1 == nb { n } else { (b + 1) * p };
                let batch = &perm[b * p..end];
                let f = self.batch_phi(h, batch, &u, &g);
                for (a, &i) in batch.iter().enumerate() {
                    phi[i] = f[a].clone();
                }
            }
            // The KSD sums over permutation slots (docs/algorithms.md §2.5): rows in slot order,
            // batch b = slots b·p ...
            let xs: Vec<Vec<T>> = perm.iter().map(|&i| u[i].clone()).collect();
            let gs: Vec<Vec<T>> = perm.iter().map(|&i| g[i].clone()).collect();
            let slots: Vec<usize> = (0..n).collect();
            self.ksd_squared = match self.ksd {
                None => f64::NAN,
                Some((c, beta, true)) => crate::ksd::ksd_full(c, beta, &xs, &gs),
                Some((c, beta, false)) => crate::ksd::ksd_batch(c, beta, &xs, &gs, p, &slots),
            };
            for i in 0..n {
                self.update(i, &phi[i]);
            }
            self.phi = phi;
        } else {
            for _ in 0..n / p {
                for t in 0..p.min(n - 1) {
                    let j = t + self.rng.below((n - t) as u64) as usize;
                    perm.swap(t, j);
                }
                let batch: Vec<usize> = perm[..p].to_vec();
                let mut g = vec![vec![T::ZERO; d]; n];
                for &i in &batch {
                    grad(&self.x[i], seed, &mut g[i])?;
                    g[i] = self.g_of(&g[i]);
                }
                let u: Vec<Vec<T>> = self.x.iter().map(|x| self.u_of(x)).collect();
                let f = self.batch_phi(h, &batch, &u, &g);
                for (a, &i) in batch.iter().enumerate() {
                    self.update(i, &f[a]);
                }
            }
        }
        Ok(h)
    }
}
