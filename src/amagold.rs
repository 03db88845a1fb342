//! AMAGOLD: stochastic-gradient HMC with an amortised Metropolis–Hastings correction
//! (Zhang, Cooper & De Sa, AISTATS 2020, Algorithm 2).
//!
//! One [`step`](Amagold::step) is one outer iteration: T minibatch gradients along a
//! second-order Langevin trajectory, then one full-data energy and one accept/reject test. The
//! chain is exact (π is its stationary distribution) at a fixed step size.
//!
//! # Memory
//!
//! The sampler borrows one workspace of [`Amagold::workspace_len`]`(d) = 6·d` coordinates from the
//! caller and allocates nothing. Its own fields (configuration, cached energy, generator, counters,
//! adaptation state) are a few hundred bytes of plain data.
//!
//! # Arithmetic and draw order (the reproducibility contract)
//!
//! With `s2 = σ·σ`, the step's coefficients are computed in `f64` and rounded once to `T`:
//! `half = ε/(2·s2)`, `full = ε/s2`, `a = 1 − ε·β`, `b = 1 + ε·β`, `sd = √(4·ε·β)·σ`. Then, per
//! coordinate in `T`:
//!
//! ```text
//! θ' = θ + half·r                                   (start)
//! θ' = θ' + full·r                                  (inner steps t ≥ 1)
//! r' = ((a·r − ε·g) + η) / b,   η = sd·z   (η = 0 when β = 0, and no normal is drawn)
//! θ' = θ' + half·r                                  (end)
//! ```
//!
//! ρ accumulates in `f64`: `ρ += half₆₄ · Σᵢ gᵢ·(rᵢ + r'ᵢ)` (sum in index order, terms widened to
//! `f64` before the addition). `log a = (U(θ) − U(θ')) + ρ`, and the proposal is accepted when
//! `ln u < log a`.
//!
//! Draws per outer iteration: in the reversible variant `d` normals for the momentum (index
//! order); then for each inner step its minibatch seed ([`Rng::next_u64`]) followed by `d` noise
//! normals (when β > 0); then one [`Rng::uniform_f64`] for the test, drawn on every iteration
//! that is not aborted, whatever its outcome. The non-reversible variant draws its initial
//! momentum (`d` normals) in `new`. A trajectory the gradient callback rejects stops there: that
//! step's noise and the remaining inner steps draw nothing, and the uniform is still drawn.

use crate::adapt::{accept_prob, DualAveraging};
use crate::chain::{chain_kind, check_start, gradient_or_rollback, Chain, ChainStep};
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::mass::{add_scaled_by, set_mass, welford, Factors, MassWindows};
use crate::model::Potential;
use crate::noise::sweep;
use crate::rng::Rng;
use crate::run::{Outcome, StepInfo};

/// Whether an inner step's drift of θ rides in the previous momentum sweep, right after each
/// coordinate's new r (one pass over θ and r per step instead of two: fewer instructions and
/// less memory traffic on hosts), or is a pass of its own (bare metal: the fused loop keeps more
/// values live than a Cortex-M has registers, and its spills took the f64 `step` 8 B past the
/// library's 776 B stack budget). The same operations on the same values either way, so the same
/// bits; test-firmware compares the two builds.
const FUSED_DRIFT: bool = cfg!(not(target_os = "none"));

/// Which AMAGOLD chain to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Variant {
    /// Momentum resampled at the start of every outer iteration (the paper's default).
    Reversible = 0,
    /// Skew-reversible: the momentum persists, is kept on accept and negated on reject.
    NonReversible = 1,
}

/// Hyperparameters of an AMAGOLD chain. [`AmagoldConfig::new`] gives the paper's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmagoldConfig {
    /// Step size ε > 0 (the initial one when `warmup > 0`).
    pub step_size: f64,
    /// Friction β ≥ 0. With β = 0 and exact gradients the chain is HMC.
    pub friction: f64,
    /// Momentum standard deviation σ > 0 (the mass matrix is σ²·I).
    pub momentum_sd: f64,
    /// Inner steps T ≥ 1 per outer iteration (one energy evaluation per T gradients).
    pub steps: u32,
    /// Reversible or skew-reversible.
    pub variant: Variant,
    /// Number of initial outer iterations that adapt ε by dual averaging (0: none). Samples
    /// drawn during warm-up are not exact; [`AmagoldInfo::warmup`] labels them.
    pub warmup: u64,
    /// Target acceptance δ ∈ (0, 1) of the warm-up (ignored when `warmup = 0`).
    pub target_accept: f64,
    /// Estimate a diagonal mass matrix during the warm-up (docs/algorithms.md §1.5): Stan's
    /// windows, fixed when the warm-up ends. Needs `warmup ≥ 20` (else `InvalidWarmup`) and the
    /// longer workspace [`Amagold::workspace_len_mass`]`(d) = 10·d`. Off by default.
    pub adapt_mass: bool,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id: chains with the same seed and different streams are independent.
    pub stream: u64,
}

impl AmagoldConfig {
    /// The paper's defaults at step size ε: reversible, T = 10, β = 0.25, σ = 1, no warm-up
    /// (δ = 0.65 if one is switched on), seed 0, stream 0.
    pub const fn new(step_size: f64) -> Self {
        AmagoldConfig {
            step_size,
            friction: 0.25,
            momentum_sd: 1.0,
            steps: 10,
            variant: Variant::Reversible,
            warmup: 0,
            target_accept: 0.65,
            adapt_mass: false,
            seed: 0,
            stream: 0,
        }
    }

    /// [`validate`](Self::validate), then the step size and the momentum scale also after
    /// rounding to the chain's coordinate type `T` (finite and positive there too:
    /// [`Error::InvalidStepSize`], [`Error::InvalidMomentumScale`]). What a chain of `T` checks.
    pub fn validate_in<T: Float>(&self) -> Result<(), Error> {
        self.validate()?;
        crate::float::step_and_scale_in::<T>(self.step_size, self.momentum_sd)
    }

    /// Checks every hyperparameter; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.step_size.is_finite() && self.step_size > 0.0) {
            return Err(Error::InvalidStepSize);
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(Error::InvalidFriction);
        }
        if !(self.momentum_sd.is_finite() && self.momentum_sd > 0.0) {
            return Err(Error::InvalidMomentumScale);
        }
        if self.steps == 0 {
            return Err(Error::InvalidSteps);
        }
        if self.warmup > 0 && !(self.target_accept > 0.0 && self.target_accept < 1.0) {
            return Err(Error::InvalidTargetAcceptance);
        }
        if self.adapt_mass && self.warmup < MIN_MASS_WARMUP {
            return Err(Error::InvalidWarmup);
        }
        Ok(())
    }
}

/// The workspace block (of d values) that holds the inverse-mass factors kᵢ (see [`parts`]).
pub(crate) const INVERSE_MASS_BLOCK: usize = 7;

/// The shortest warm-up that may adapt a mass matrix (its slow window then holds 15 draws).
const MIN_MASS_WARMUP: u64 = 20;

/// What one outer iteration did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmagoldInfo {
    /// How the iteration ended.
    pub outcome: Outcome,
    /// `outcome == Accepted`.
    pub accepted: bool,
    /// log a = U(θ) − U(θ') + ρ; NaN when the trajectory left the domain before it was computed.
    pub log_accept: f64,
    /// The amortised correction ρ (NaN when the trajectory left the domain).
    pub rho: f64,
    /// U at the chain's state after the iteration.
    pub energy: f64,
    /// Accepted fraction of the iterations since `new` (during warm-up) or since the warm-up
    /// ended (afterwards).
    pub accept_rate: f64,
    /// The step size ε this iteration used.
    pub step_size: f64,
    /// `true` when the iteration belonged to the warm-up (its sample is not exact).
    pub warmup: bool,
    /// Outer iterations done since `new`, this one included.
    pub iteration: u64,
    /// Divergent iterations since `new`.
    pub divergences: u64,
}

/// The plain-data state of an AMAGOLD chain (everything but the workspace), so that the C API
/// can keep it in caller memory. Used through [`Amagold`].
#[derive(Clone, Debug)]
pub struct AmagoldCore {
    d: usize,
    cfg: AmagoldConfig,
    eps: f64,
    u: f64,
    rng: Rng,
    adapt: Option<DualAveraging>,
    /// The mass-matrix windows while the warm-up adapts it.
    mass: Option<MassWindows>,
    iterations: u64,
    counted: u64,
    accepted: u64,
    divergences: u64,
}

/// The workspace's six vectors of length d.
struct Parts<'w, T> {
    theta: &'w mut [T],
    prop: &'w mut [T],
    r: &'w mut [T],
    r0: &'w mut [T],
    rw: &'w mut [T],
    g: &'w mut [T],
    /// The mass blocks (m, k, Welford mean, Welford M2) when the chain has a mass matrix.
    mass: Option<MassParts<'w, T>>,
}

/// The four workspace blocks of a diagonal mass matrix.
struct MassParts<'w, T> {
    m: &'w mut [T],
    k: &'w mut [T],
    mean: &'w mut [T],
    m2: &'w mut [T],
}

/// Splits the workspace into θ, θ', r (persistent), r₀, r (working), g, and with a mass matrix
/// its four blocks; `None` if it is shorter than 6·d (10·d). Checked splits instead of indexing:
/// no panic path in the sampler.
fn parts<T>(ws: &mut [T], d: usize, with_mass: bool) -> Option<Parts<'_, T>> {
    let (theta, rest) = ws.split_at_mut_checked(d)?;
    let (prop, rest) = rest.split_at_mut_checked(d)?;
    let (r, rest) = rest.split_at_mut_checked(d)?;
    let (r0, rest) = rest.split_at_mut_checked(d)?;
    let (rw, rest) = rest.split_at_mut_checked(d)?;
    let (g, rest) = rest.split_at_mut_checked(d)?;
    let mass = if with_mass {
        let (m, rest) = rest.split_at_mut_checked(d)?;
        let (k, rest) = rest.split_at_mut_checked(d)?;
        let (mean, rest) = rest.split_at_mut_checked(d)?;
        let (m2, _) = rest.split_at_mut_checked(d)?;
        Some(MassParts { m, k, mean, m2 })
    } else {
        None
    };
    Some(Parts {
        theta,
        prop,
        r,
        r0,
        rw,
        g,
        mass,
    })
}

/// Workspace coordinates for dimension `d` (saturates instead of overflowing).
pub(crate) const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(6)
}

/// Workspace coordinates with a mass matrix (`adapt_mass`).
pub(crate) const fn workspace_len_mass(d: usize) -> usize {
    d.saturating_mul(10)
}

impl AmagoldCore {
    /// Validates everything, evaluates U(θ₀), then (only then) writes the workspace.
    pub(crate) fn new<T: Float, M: Potential<T> + ?Sized>(
        cfg: &AmagoldConfig,
        theta0: &[T],
        ws: &mut [T],
        model: &mut M,
    ) -> Result<Self, Error> {
        let per_d = if cfg.adapt_mass { 10 } else { 6 };
        let d = check_start(theta0, ws.len(), per_d, cfg.validate_in::<T>())?;
        let u = match model.energy(theta0) {
            Ok(u) if u.is_finite() => u,
            Ok(_) | Err(Stop::Reject) => return Err(Error::InitialEnergyRejected),
            Err(Stop::Abort) => return Err(Error::CallbackAborted),
        };
        let mut rng = Rng::new(cfg.seed, cfg.stream);
        let Parts { theta, r, mass, .. } =
            parts(ws, d, cfg.adapt_mass).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        if let Some(MassParts { m, k, mean, m2 }) = mass {
            // Unit mass until the first window ends.
            for x in m.iter_mut().chain(k.iter_mut()) {
                *x = T::from_f64(1.0);
            }
            for x in mean.iter_mut().chain(m2.iter_mut()) {
                *x = T::ZERO;
            }
        }
        let sigma = T::from_f64(cfg.momentum_sd);
        for ri in r.iter_mut() {
            *ri = match cfg.variant {
                Variant::NonReversible => sigma * rng.normal_as::<T>(),
                Variant::Reversible => T::ZERO,
            };
        }
        Ok(AmagoldCore {
            d,
            cfg: *cfg,
            eps: cfg.step_size,
            u,
            rng,
            adapt: (cfg.warmup > 0).then(|| DualAveraging::new(cfg.step_size, cfg.target_accept)),
            mass: cfg.adapt_mass.then(|| MassWindows::new(cfg.warmup)),
            iterations: 0,
            counted: 0,
            accepted: 0,
            divergences: 0,
        })
    }

    /// One outer iteration. On `Err` nothing has changed, the generator included.
    pub(crate) fn step<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut M,
    ) -> Result<AmagoldInfo, Error> {
        let Parts {
            theta,
            prop,
            r,
            r0,
            rw,
            g,
            mut mass,
        } = parts(ws, self.d, self.cfg.adapt_mass).ok_or(Error::WorkspaceTooSmall)?;
        // Per-coordinate momentum factors m and inverse-mass factors k (all 1 without a mass
        // matrix: the products below are then exact and the stream keeps its bits).
        let (mf, kf) = match mass.as_ref() {
            Some(p) => (Some(&*p.m), Some(&*p.k)),
            None => (None, None),
        };
        let saved_rng = self.rng.clone();
        let cfg = &self.cfg;
        let eps = self.eps;
        let s2 = cfg.momentum_sd * cfg.momentum_sd;
        let half64 = eps / (2.0 * s2);
        let half = T::from_f64(half64);
        let full = T::from_f64(eps / s2);
        let eb = eps * cfg.friction;
        let a = T::from_f64(1.0 - eb);
        let b = T::from_f64(1.0 + eb);
        let sd = T::from_f64(libm::sqrt(4.0 * eps * cfg.friction) * cfg.momentum_sd);
        let eps_t = T::from_f64(eps);
        let noisy = cfg.friction > 0.0;

        match cfg.variant {
            Variant::Reversible => {
                let sigma = T::from_f64(cfg.momentum_sd);
                for (x, mi) in r0.iter_mut().zip(Factors::of(mf)) {
                    *x = (sigma * mi) * self.rng.normal_as::<T>();
                }
            }
            Variant::NonReversible => copy(r0, r),
        }
        copy(rw, r0);
        copy(prop, theta);
        add_scaled_by(prop, half, kf, rw);
        let mut rho = 0.0f64;
        let mut left_domain = false;
        for t in 0..cfg.steps {
            if t != 0 && !FUSED_DRIFT {
                add_scaled_by(prop, full, kf, rw);
            }
            let seed = self.rng.next_u64();
            // The noise normals are drawn after the callback returns; the stream order (seed,
            // then noise) is the documented one because the callback cannot draw from it.
            if !gradient_or_rollback(model, prop, seed, g, &mut self.rng, &saved_rng)? {
                left_domain = true;
                break;
            }
            let mut s = 0.0f64;
            let mut momentum = |ri: T, gi: T, mi: T, ki: T, z: Option<T>| {
                let eta = match z {
                    Some(z) => (sd * mi) * z,
                    None => T::ZERO,
                };
                let rn = ((a * ri - eps_t * gi) + eta) / b;
                s += (gi.to_f64() * (ri.to_f64() + rn.to_f64())) * ki.to_f64();
                rn
            };
            let factors = Factors::of(mf).zip(Factors::of(kf));
            let pairs = rw.iter_mut().zip(g.iter());
            if FUSED_DRIFT {
                // Step t + 1's drift, or the final half drift after the last step.
                let drift = if t + 1 < cfg.steps { full } else { half };
                let items = pairs.zip(prop.iter_mut()).zip(factors);
                sweep(
                    &mut self.rng,
                    noisy,
                    items,
                    |(((ri, &gi), xi), (mi, ki)), z| {
                        *ri = momentum(*ri, gi, mi, ki, z);
                        *xi += (drift * ki) * *ri;
                    },
                );
            } else {
                let items = pairs.zip(factors);
                sweep(&mut self.rng, noisy, items, |((ri, &gi), (mi, ki)), z| {
                    *ri = momentum(*ri, gi, mi, ki, z);
                });
            }
            rho += half64 * s;
        }
        let (outcome, log_a, u_new) = if left_domain {
            (Outcome::OutOfDomain, f64::NAN, f64::NAN)
        } else {
            if !FUSED_DRIFT {
                add_scaled_by(prop, half, kf, rw);
            }
            // A trajectory that overflowed (possible in f32 with huge gradients) is a
            // divergence whatever the energy callback would say there: θ must stay finite.
            if !all_finite(prop) {
                (Outcome::Divergent, f64::NAN, f64::NAN)
            } else {
                match model.energy(prop) {
                    Err(Stop::Abort) => {
                        self.rng = saved_rng;
                        return Err(Error::CallbackAborted);
                    }
                    Err(Stop::Reject) => (Outcome::OutOfDomain, f64::NAN, f64::NAN),
                    Ok(u_new) => {
                        let log_a = (self.u - u_new) + rho;
                        if log_a.is_finite() {
                            (Outcome::Rejected, log_a, u_new)
                        } else {
                            (Outcome::Divergent, log_a, u_new)
                        }
                    }
                }
            }
        };
        let uniform = self.rng.uniform_f64();
        let outcome = if outcome == Outcome::Rejected && libm::log(uniform) < log_a {
            Outcome::Accepted
        } else {
            outcome
        };
        if outcome == Outcome::Accepted {
            copy(theta, prop);
            copy(r, rw);
            self.u = u_new;
        } else {
            for (ri, &r0i) in r.iter_mut().zip(r0.iter()) {
                *ri = -r0i;
            }
        }
        let info = self.finish(outcome, log_a, if left_domain { f64::NAN } else { rho });
        if let Some(p) = mass.as_mut() {
            self.adapt_mass(p, theta, r);
        }
        Ok(info)
    }

    /// The mass-matrix warm-up after finished iteration `self.iterations`: collects θ in a slow
    /// window; at a window's end sets the mass matrix and restarts the dual averaging of ε from
    /// the current ε (Stan's window adaptation).
    fn adapt_mass<T: Float>(&mut self, p: &mut MassParts<'_, T>, theta: &[T], r: &mut [T]) {
        let m = self.iterations;
        let Some(w) = self.mass.as_mut() else {
            return;
        };
        if m >= self.cfg.warmup {
            self.mass = None;
            return;
        }
        if !w.collects(m) {
            return;
        }
        let n = w.push();
        welford(p.mean, p.m2, theta, n);
        if w.window_ends(m) && n >= 2 {
            set_mass(p.m, p.k, p.mean, p.m2, r, n, self.cfg.momentum_sd);
            self.adapt = Some(DualAveraging::new(self.eps, self.cfg.target_accept));
        }
    }

    /// Counters and warm-up bookkeeping after an iteration.
    fn finish(&mut self, outcome: Outcome, log_a: f64, rho: f64) -> AmagoldInfo {
        let used_eps = self.eps;
        let warmup = self.adapt.is_some();
        self.iterations += 1;
        self.counted += 1;
        let accepted = outcome == Outcome::Accepted;
        if accepted {
            self.accepted += 1;
        }
        if outcome == Outcome::Divergent {
            self.divergences += 1;
        }
        let accept_rate = self.accepted as f64 / self.counted as f64;
        if let Some(adapt) = self.adapt.as_mut() {
            let alpha = if outcome == Outcome::OutOfDomain {
                0.0
            } else {
                accept_prob(log_a)
            };
            self.eps = adapt.update(alpha);
            if self.iterations == self.cfg.warmup {
                self.eps = adapt.final_step_size();
                self.adapt = None;
                self.counted = 0;
                self.accepted = 0;
            }
        }
        AmagoldInfo {
            outcome,
            accepted,
            log_accept: log_a,
            rho,
            energy: self.u,
            accept_rate,
            step_size: used_eps,
            warmup,
            iteration: self.iterations,
            divergences: self.divergences,
        }
    }

    pub(crate) fn energy(&self) -> f64 {
        self.u
    }
    fn iterations(&self) -> u64 {
        self.iterations
    }
    fn divergences(&self) -> u64 {
        self.divergences
    }
    pub(crate) fn step_size(&self) -> f64 {
        self.eps
    }
    pub(crate) fn in_warmup(&self) -> bool {
        self.adapt.is_some()
    }
    /// `true` when the chain has a mass matrix (`adapt_mass`): the workspace then holds the
    /// inverse-mass factors k in block [`INVERSE_MASS_BLOCK`].
    pub(crate) fn has_mass(&self) -> bool {
        self.cfg.adapt_mass
    }
    /// Workspace coordinates this chain uses: 6·d, or 10·d with a mass matrix.
    fn used_len(&self) -> usize {
        if self.cfg.adapt_mass {
            workspace_len_mass(self.d)
        } else {
            workspace_len(self.d)
        }
    }
}

impl StepInfo for AmagoldInfo {
    fn outcome(&self) -> Outcome {
        self.outcome
    }
}

// A chain with a mass matrix uses (and a copy of it must copy) the four mass blocks too.
chain_kind!(
    AmagoldCore,
    AmagoldConfig,
    AmagoldInfo,
    workspace_len,
    need = |c: &AmagoldCore| { c.used_len() },
    len_for = |cfg: &AmagoldConfig, d: usize| {
        if cfg.adapt_mass {
            workspace_len_mass(d)
        } else {
            workspace_len(d)
        }
    }
);

impl<T: Float, M: Potential<T> + ?Sized> ChainStep<T, M> for AmagoldCore {
    fn start(
        cfg: &AmagoldConfig,
        theta0: &[T],
        ws: &mut [T],
        model: &mut M,
    ) -> Result<Self, Error> {
        AmagoldCore::new(cfg, theta0, ws, model)
    }
    fn step(&mut self, ws: &mut [T], model: &mut M) -> Result<AmagoldInfo, Error> {
        AmagoldCore::step(self, ws, model)
    }
}

/// An AMAGOLD chain over a caller-supplied workspace (a [`Chain`]: `step`, `run`, `position`,
/// `iterations`, `divergences`, `config` and `workspace_len` are documented there).
///
/// ```
/// use sgsample::{Amagold, AmagoldConfig, FnPotential, Stop};
///
/// // A standard normal target, U(θ) = |θ|²/2, with a noisy gradient.
/// let mut model = FnPotential::new(
///     |t: &[f64]| Ok(0.5 * t.iter().map(|x| x * x).sum::<f64>()),
///     |t: &[f64], seed: u64, g: &mut [f64]| -> Result<(), Stop> {
///         let noise = (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
///         for (gi, ti) in g.iter_mut().zip(t) { *gi = ti + noise; }
///         Ok(())
///     },
/// );
/// let mut ws = [0.0f64; 6 * 2];
/// let mut chain = Amagold::new(&AmagoldConfig::new(0.2), &[1.0, -1.0], &mut ws, &mut model)?;
/// let mut samples = [0.0f64; 2 * 100];
/// let summary = chain.run(&mut model, &mut samples).map_err(|e| e.error)?;
/// assert_eq!(summary.iterations, 100);
/// assert!(summary.accepted > 50);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub type Amagold<'a, T> = Chain<'a, T, AmagoldCore>;

impl<'a, T: Float> Chain<'a, T, AmagoldCore> {
    /// Workspace length (in coordinates of type `T`) for dimension `d`: `6·d`.
    pub const fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }

    /// Workspace length for dimension `d` with a mass matrix (`adapt_mass`): `10·d` (four more
    /// blocks: the momentum and inverse-mass factors, the warm-up's running mean and M2).
    pub const fn workspace_len_mass(d: usize) -> usize {
        workspace_len_mass(d)
    }

    /// The diagonal inverse mass matrix relative to σ⁻² (`kᵢ`: the position moves by
    /// `(ε/σ²)·kᵢ·rᵢ`) of a chain with `adapt_mass`: all 1 until the warm-up's first slow
    /// window ends, then the learnt diagonal, fixed after the warm-up. `None` without
    /// `adapt_mass` (the chain has no mass matrix; the C getter `sgs_amagold_inverse_mass`
    /// writes d ones instead).
    pub fn inverse_mass(&self) -> Option<&[T]> {
        self.core.has_mass().then(|| self.block(INVERSE_MASS_BLOCK))
    }

    /// Validates the configuration and the buffers, evaluates U(θ₀) and starts the chain at θ₀.
    /// The dimension is `theta0.len()`; the workspace (at least
    /// [`workspace_len`](Self::workspace_len)`(d)` = `6·d` coordinates, or
    /// [`workspace_len_mass`](Self::workspace_len_mass)`(d)` = `10·d` with `adapt_mass`) may be
    /// longer than needed.
    pub fn new<M: Potential<T> + ?Sized>(
        config: &AmagoldConfig,
        theta0: &[T],
        workspace: &'a mut [T],
        model: &mut M,
    ) -> Result<Self, Error> {
        Chain::start(config, theta0, workspace, model)
    }

    /// The persistent momentum r (meaningful for the non-reversible variant).
    pub fn momentum(&self) -> &[T] {
        self.block(2)
    }

    /// The cached energy U(θ) of the current state.
    pub fn energy(&self) -> f64 {
        self.core.energy()
    }

    /// The step size the next iteration will use.
    pub fn step_size(&self) -> f64 {
        self.core.step_size()
    }

    /// `true` while the warm-up is adapting ε.
    pub fn in_warmup(&self) -> bool {
        self.core.in_warmup()
    }
}
