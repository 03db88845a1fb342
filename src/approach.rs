//! The warm-up's first phase: moving a far-away start in before any adaptation
//! (docs/algorithms.md §1.7, *Approach*).
//!
//! A chain started far in a tail (20 posterior sds away, or uniform(−2, 2) on a raw-scale
//! problem) cannot be brought in by a Metropolis–Hastings sampler with a short trajectory: its
//! energy error grows with the energy, so the step-size adaptation shrinks ε until the chain
//! crawls (ε = 2·10⁻⁵ at an energy of 10⁶ was seen), and the acceptance looks healthy all the
//! while. The approach is an optimiser instead: limited-memory BFGS (5 pairs) with a diagonal
//! initial inverse Hessian from finite differences, a backtracking (Armijo) line search on the
//! exact energy, and curvature pairs whose two gradients share one minibatch seed, so that
//! minibatch noise does not enter the pairs. It stops when its own estimate of the energy above
//! the mode falls below d/2 (the typical set of a d-dimensional Gaussian lies about d/2 above its
//! mode), when the line search finds no decrease, or at its iteration cap. Nothing of it needs
//! to be exact: the warm-up's draws are discarded.
//!
//! One approach iteration is one `step` of the chain: one seed, one or more energies (the line
//! search), two gradients (d + 1 more in the first iteration for the diagonal scaling).

use crate::chain::gradient_or_rollback;
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::model::Potential;
use crate::rng::Rng;

/// Curvature pairs kept.
pub(crate) const PAIRS: usize = 5;

/// Line-search trials per iteration (halving the step each time).
const TRIALS: u32 = 40;

/// Armijo's sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;

/// Relative finite-difference step, in units of the type's √ε.
const FD_STEP: f64 = 10.0;

/// The approach's state between iterations (plain data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Approach {
    /// Iterations done.
    pub(crate) iterations: u64,
    /// The iteration cap.
    pub(crate) limit: u64,
    /// Pairs stored (≤ [`PAIRS`]).
    stored: usize,
    /// Ring slot of the newest pair.
    newest: usize,
    /// `true` once the first gradient and the diagonal scaling are in the workspace.
    started: bool,
    /// The energy at the start.
    pub(crate) energy_start: f64,
    /// The last iteration's estimate of the energy above the mode, ½·gᵀH·g.
    pub(crate) excess: f64,
    /// `true` once it has stopped.
    pub(crate) done: bool,
    /// `true` when it stopped at its cap with the estimated excess still above 2·d.
    pub(crate) unfinished: bool,
}

/// The checkpoint encoding (src/wire.rs); the ring's count and slot are bounded by [`PAIRS`]
/// (the two-loop recursion indexes with them).
#[cfg(feature = "ffi")]
impl crate::wire::Wire for Approach {
    fn put(&self, w: &mut crate::wire::Writer<'_>) {
        self.iterations.put(w);
        self.limit.put(w);
        self.stored.put(w);
        self.newest.put(w);
        self.started.put(w);
        self.energy_start.put(w);
        self.excess.put(w);
        self.done.put(w);
        self.unfinished.put(w);
    }
    fn get(r: &mut crate::wire::Reader<'_>) -> Result<Self, Error> {
        use crate::wire::Wire;
        let a = Approach {
            iterations: Wire::get(r)?,
            limit: Wire::get(r)?,
            stored: Wire::get(r)?,
            newest: Wire::get(r)?,
            started: Wire::get(r)?,
            energy_start: Wire::get(r)?,
            excess: Wire::get(r)?,
            done: Wire::get(r)?,
            unfinished: Wire::get(r)?,
        };
        if a.stored > PAIRS || a.newest >= PAIRS {
            return Err(Error::InvalidCheckpoint);
        }
        Ok(a)
    }
}

/// The workspace blocks the approach uses (each d long, `s` and `y` [`PAIRS`]·d).
pub(crate) struct ApproachParts<'w, T> {
    /// The position θ_k (the chain's position block).
    pub(crate) theta: &'w mut [T],
    /// The gradient at θ_k (kept between iterations).
    pub(crate) gk: &'w mut [T],
    /// The search direction.
    pub(crate) p: &'w mut [T],
    /// The trial point.
    pub(crate) trial: &'w mut [T],
    /// The gradient at the new point (scratch).
    pub(crate) gnew: &'w mut [T],
    /// The gradient at θ_k with the new seed (scratch).
    pub(crate) gold: &'w mut [T],
    /// The diagonal initial inverse Hessian D.
    pub(crate) diag: &'w mut [T],
    /// Position differences of the pairs, slot by slot.
    pub(crate) s: &'w mut [T],
    /// Gradient differences of the pairs.
    pub(crate) y: &'w mut [T],
}

fn dot<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut s = 0.0f64;
    for (&x, &y) in a.iter().zip(b) {
        s += x.to_f64() * y.to_f64();
    }
    s
}

/// Slot `i` (d values) of a pair block.
fn slot<T>(block: &[T], i: usize, d: usize) -> &[T] {
    block
        .get(i.saturating_mul(d)..(i + 1).saturating_mul(d))
        .unwrap_or(&[])
}

fn slot_mut<T>(block: &mut [T], i: usize, d: usize) -> &mut [T] {
    block
        .get_mut(i.saturating_mul(d)..(i + 1).saturating_mul(d))
        .unwrap_or(&mut [])
}

/// The finite-difference step of coordinate value `x`: 10·√ε_T·max(1, |x|).
pub(crate) fn fd_step<T: Float>(x: T) -> T {
    let a = x.to_f64().abs().max(1.0);
    T::from_f64(FD_STEP * libm::sqrt(T::EPSILON) * a)
}

impl Approach {
    /// A fresh approach of at most `limit` iterations from energy `u0`.
    pub(crate) fn new(limit: u64, u0: f64) -> Self {
        Approach {
            iterations: 0,
            limit,
            stored: 0,
            newest: 0,
            started: false,
            energy_start: u0,
            excess: f64::NAN,
            done: limit == 0,
            unfinished: false,
        }
    }

    /// One approach iteration from θ_k with energy `*u`. Commits the new position, energy and
    /// gradient only after every callback has returned; on ABORT the generator goes back to
    /// `saved` and nothing of the chain changes. Returns whether the position moved.
    pub(crate) fn step<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        w: ApproachParts<'_, T>,
        u: &mut f64,
        rng: &mut Rng,
        saved: &Rng,
        model: &mut M,
    ) -> Result<bool, Error> {
        let ApproachParts {
            theta,
            gk,
            p,
            trial,
            gnew,
            gold,
            diag,
            s,
            y,
        } = w;
        let d = theta.len();
        let mut started = self.started;
        if !started {
            // The first gradient and the diagonal scaling D_i = h_i/(g_i(θ + h_i·e_i) − g_i(θ)),
            // all with one seed.
            let seed0 = rng.next_u64();
            if !gradient_or_rollback(model, theta, seed0, gk, rng, saved)? || !all_finite(gk) {
                self.finish(false);
                return Ok(false);
            }
            for i in 0..d {
                copy(trial, theta);
                let h = trial.get(i).map_or(T::ZERO, |&x| fd_step(x));
                if let Some(x) = trial.get_mut(i) {
                    *x += h;
                }
                let ok = gradient_or_rollback(model, trial, seed0, gnew, rng, saved)?;
                let di = match (gnew.get(i), gk.get(i)) {
                    (Some(&a), Some(&b)) if ok => h.to_f64() / (a - b).to_f64(),
                    _ => f64::NAN,
                };
                if let Some(x) = diag.get_mut(i) {
                    *x = T::from_f64(di);
                }
            }
            fill_invalid(diag);
            started = true;
        }
        let seed = rng.next_u64();
        // The direction p = −H·g by the two-loop recursion over the stored pairs, newest first,
        // with H₀ = γ·D, γ = sᵀy/(yᵀ·D·y) of the newest pair (1 without pairs).
        let mut alpha = [0.0f64; PAIRS];
        copy(p, gk);
        for j in 0..self.stored {
            let slot_j = (self.newest + PAIRS - j) % PAIRS;
            let (sj, yj) = (slot(s, slot_j, d), slot(y, slot_j, d));
            let rho = 1.0 / dot(yj, sj);
            let a = rho * dot(sj, p);
            if let Some(x) = alpha.get_mut(j) {
                *x = a;
            }
            let at = T::from_f64(a);
            for (pi, &yi) in p.iter_mut().zip(yj) {
                *pi -= at * yi;
            }
        }
        let gamma = if self.stored > 0 {
            let (sn, yn) = (slot(s, self.newest, d), slot(y, self.newest, d));
            let mut ydy = 0.0f64;
            for ((&yi, &di), _) in yn.iter().zip(diag.iter()).zip(0..d) {
                ydy += yi.to_f64() * di.to_f64() * yi.to_f64();
            }
            dot(sn, yn) / ydy
        } else {
            1.0
        };
        let gt = T::from_f64(gamma);
        for (pi, &di) in p.iter_mut().zip(diag.iter()) {
            *pi = (gt * di) * *pi;
        }
        for j in (0..self.stored).rev() {
            let slot_j = (self.newest + PAIRS - j) % PAIRS;
            let (sj, yj) = (slot(s, slot_j, d), slot(y, slot_j, d));
            let rho = 1.0 / dot(yj, sj);
            let b = rho * dot(yj, p);
            let c = T::from_f64(alpha.get(j).copied().unwrap_or(0.0) - b);
            for (pi, &si) in p.iter_mut().zip(sj) {
                *pi += c * si;
            }
        }
        for pi in p.iter_mut() {
            *pi = -*pi;
        }
        let mut gtp = dot(gk, p);
        if gtp.is_nan() || gtp >= 0.0 {
            // Not a descent direction (noisy or stale pairs): forget them, use −D·g.
            self.stored = 0;
            for ((pi, &gi), &di) in p.iter_mut().zip(gk.iter()).zip(diag.iter()) {
                *pi = -(di * gi);
            }
            gtp = dot(gk, p);
            if gtp.is_nan() || gtp >= 0.0 {
                self.started = started;
                self.finish(false);
                return Ok(false);
            }
        }
        self.excess = -0.5 * gtp;
        // Backtracking line search on the exact energy.
        let mut step = 1.0f64;
        let mut found = None;
        for _ in 0..TRIALS {
            copy(trial, theta);
            let st = T::from_f64(step);
            for (ti, &pi) in trial.iter_mut().zip(p.iter()) {
                *ti += st * pi;
            }
            if all_finite(trial) {
                match model.energy(trial) {
                    Err(Stop::Abort) => {
                        *rng = saved.clone();
                        return Err(Error::CallbackAborted);
                    }
                    Ok(ut) if ut.is_finite() && ut <= *u + ARMIJO * step * gtp => {
                        found = Some(ut);
                        break;
                    }
                    _ => {}
                }
            }
            step *= 0.5;
        }
        let Some(u_new) = found else {
            // No decrease along the direction: the minimum, or noise, is reached.
            self.started = started;
            self.finish(false);
            return Ok(false);
        };
        // The pair's two gradients with one seed; then commit.
        let ok_new = gradient_or_rollback(model, trial, seed, gnew, rng, saved)?;
        let ok_old = gradient_or_rollback(model, theta, seed, gold, rng, saved)?;
        let decrease = *u - u_new;
        self.started = started;
        self.iterations += 1;
        if ok_new && all_finite(gnew) {
            if ok_old && all_finite(gold) {
                let slot_n = (self.newest + 1) % PAIRS;
                let (mut sy, mut ss, mut yy) = (0.0f64, 0.0f64, 0.0f64);
                for i in 0..d {
                    let si = trial.get(i).copied().unwrap_or(T::ZERO)
                        - theta.get(i).copied().unwrap_or(T::ZERO);
                    let yi = gnew.get(i).copied().unwrap_or(T::ZERO)
                        - gold.get(i).copied().unwrap_or(T::ZERO);
                    sy += si.to_f64() * yi.to_f64();
                    ss += si.to_f64() * si.to_f64();
                    yy += yi.to_f64() * yi.to_f64();
                }
                // Only pairs with positive curvature keep H positive definite.
                if sy.is_finite() && sy > 1e-10 * libm::sqrt(ss * yy) {
                    let (sn, yn) = (slot_mut(s, slot_n, d), slot_mut(y, slot_n, d));
                    for i in 0..d {
                        let t_i = trial.get(i).copied().unwrap_or(T::ZERO);
                        let th_i = theta.get(i).copied().unwrap_or(T::ZERO);
                        if let Some(x) = sn.get_mut(i) {
                            *x = t_i - th_i;
                        }
                        let gn = gnew.get(i).copied().unwrap_or(T::ZERO);
                        let go = gold.get(i).copied().unwrap_or(T::ZERO);
                        if let Some(x) = yn.get_mut(i) {
                            *x = gn - go;
                        }
                    }
                    self.newest = slot_n;
                    self.stored = (self.stored + 1).min(PAIRS);
                }
            }
            copy(theta, trial);
            copy(gk, gnew);
            *u = u_new;
        } else {
            // A new point without a usable gradient: keep it (its energy is finite) and stop.
            copy(theta, trial);
            *u = u_new;
            self.finish(false);
            return Ok(true);
        }
        let dim = d as f64;
        if self.excess <= 0.5 * dim || decrease <= 1e-9 * u.abs().max(1.0) {
            self.finish(false);
        } else if self.iterations >= self.limit {
            self.finish(self.excess > 2.0 * dim);
        }
        Ok(true)
    }

    fn finish(&mut self, unfinished: bool) {
        self.done = true;
        self.unfinished = unfinished;
    }
}

/// Replaces the entries of the diagonal scaling that are not positive and finite by the
/// geometric mean of those that are (1 when none is).
fn fill_invalid<T: Float>(diag: &mut [T]) {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    let (mut s, mut n) = (0.0f64, 0u32);
    for &x in diag.iter() {
        if ok(x.to_f64()) {
            s += libm::log(x.to_f64());
            n += 1;
        }
    }
    let fill = if n > 0 { libm::exp(s / n as f64) } else { 1.0 };
    let fill_t = T::from_f64(fill);
    for x in diag.iter_mut() {
        if !ok(x.to_f64()) || !x.is_finite() || *x <= T::ZERO {
            *x = fill_t;
        }
    }
}
