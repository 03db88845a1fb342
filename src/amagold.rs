//! AMAGOLD: stochastic-gradient HMC with an amortised Metropolis–Hastings correction
//! (Zhang, Cooper & De Sa, AISTATS 2020, Algorithm 2).
//!
//! One [`step`](Amagold::step) is one outer iteration: T minibatch gradients along a
//! second-order Langevin trajectory, then one full-data energy and one accept/reject test. The
//! chain is exact (π is its stationary distribution) at a fixed step size and a fixed mass
//! matrix (unit, diagonal or dense).
//!
//! # Memory
//!
//! The sampler borrows one workspace of [`Amagold::workspace_len_for`]`(config, d)` coordinates
//! from the caller and allocates nothing: 6·d for the paper's chain, plus 4·d for a diagonal
//! mass matrix or 2·d + d(d+1) for a dense one, plus 12·d for the warm-up's approach phase. Its
//! own fields (configuration, cached energy, generator, counters, the warm-up's state and
//! report) are about a kilobyte of plain data.
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
//! `ln u < log a`. A diagonal mass matrix multiplies per coordinate (docs/algorithms.md §1.5); a
//! dense one runs the same recursion on φ = L⁻¹θ (§1.6).
//!
//! Draws per outer iteration: with `jitter_steps`, first the number of inner steps
//! ([`Rng::below`]); in the reversible variant `d` normals for the momentum (index order); then
//! for each inner step its minibatch seed ([`Rng::next_u64`]) followed by `d` noise normals
//! (when β > 0); then one [`Rng::uniform_f64`] for the test, drawn on every iteration that is
//! not aborted, whatever its outcome. The non-reversible variant draws its initial momentum
//! (`d` normals) in `new`. A trajectory the gradient callback rejects stops there: that step's
//! noise and the remaining inner steps draw nothing, and the uniform is still drawn. The
//! warm-up's approach iterations draw one seed each (two in the first; docs/algorithms.md
//! §1.7), the curvature step one.

use crate::adapt::{accept_prob, DualAveraging};
use crate::approach::{fd_step, Approach, ApproachParts, PAIRS};
use crate::chain::{chain_kind, check_start, gradient_or_rollback, Chain, ChainStep};
use crate::dense::{
    add_mul_lower, cholesky_off_diag, eigen_bounds, factor_diag, gram_diagonal, mul_lower_t,
    tri_len, zero_off_diag,
};
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::mass::{
    add_scaled_by, apply_diagonal, collect_dense, dense_from_curvature, set_dense, set_mass,
    welford, Factors,
};
use crate::model::Potential;
use crate::noise::sweep;
use crate::rng::Rng;
use crate::run::{Outcome, StepInfo};
#[cfg(feature = "ffi")]
mod resume;

use crate::warmup::{
    Phase, Search, Settle, Verdict, Warmup, WarmupReport, WindowStats, Windows, REASON_METRIC,
};

/// Whether an inner step's drift of θ rides in the previous momentum sweep, right after each
/// coordinate's new r (one pass over θ and r per step instead of two: fewer instructions and
/// less memory traffic on hosts), or is a pass of its own (bare metal: the fused loop keeps more
/// values live than a Cortex-M has registers, and its spills took the f64 `step` 8 B past the
/// library's 776 B stack budget). The same operations on the same values either way, so the same
/// bits; test-firmware compares the two builds.
const FUSED_DRIFT: bool = crate::arch::HOSTED;

/// [`FUSED_DRIFT`], as the trajectory reads it. The unit tests can also switch the bare-metal
/// form on for the host (`tests::UNFUSED`) and compare; every other build reads the constant.
#[inline(always)]
fn fused_drift() -> bool {
    #[cfg(test)]
    if tests::UNFUSED.load(core::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    FUSED_DRIFT
}

/// Which AMAGOLD chain to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Variant {
    /// Momentum resampled at the start of every outer iteration (the paper's default).
    Reversible = 0,
    /// Skew-reversible: the momentum persists, is kept on accept and negated on reject.
    NonReversible = 1,
}

/// The mass matrix an AMAGOLD chain carries (C: `SGS_MASS_…`). SGHMC and SGLD take `Unit` or
/// `Diagonal` (a fixed preconditioner the caller sets, docs/algorithms.md §1.5); `Dense` is
/// AMAGOLD's only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Mass {
    /// σ²·I (the paper's chain).
    Unit = 0,
    /// A diagonal matrix: learnt by the warm-up, or set by the caller.
    Diagonal = 1,
    /// A dense matrix (held as a Cholesky factor): learnt by the warm-up, or set by the caller.
    /// O(d²) work per inner step and d(d+1) + 2·d more workspace.
    Dense = 2,
}

/// Hyperparameters of an AMAGOLD chain. [`AmagoldConfig::new`] gives the paper's chain at a
/// fixed step size; [`AmagoldConfig::adaptive`] the recommended warm-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmagoldConfig {
    /// Step size ε > 0 (the initial one when `warmup > 0`).
    pub step_size: f64,
    /// Friction β ≥ 0. With β = 0 and exact gradients the chain is HMC.
    pub friction: f64,
    /// Momentum standard deviation σ > 0 (the mass matrix is σ²·I, or σ² times the inverse of
    /// the learnt or given one).
    pub momentum_sd: f64,
    /// Inner steps T ≥ 1 per outer iteration (one energy evaluation per T gradients).
    pub steps: u32,
    /// Reversible or skew-reversible.
    pub variant: Variant,
    /// Number of initial outer iterations that adapt (0: none): the approach, then Stan's
    /// windows (docs/algorithms.md §1.7). Samples drawn during warm-up are not exact;
    /// [`AmagoldInfo::warmup`] labels them.
    pub warmup: u64,
    /// Target acceptance δ ∈ (0, 1) of the warm-up (ignored when `warmup = 0`).
    pub target_accept: f64,
    /// The mass matrix: unit (the default), diagonal or dense. With `warmup ≥ 20` the warm-up
    /// estimates it (shorter warm-ups are refused with `InvalidWarmup`); without a warm-up it
    /// stays as set (the identity until [`Amagold::set_inverse_mass`] or
    /// [`Amagold::set_inverse_mass_dense`]).
    pub mass: Mass,
    /// Whether a warm-up starts with the approach (docs/algorithms.md §1.7): an optimiser that
    /// brings a far-away start in, then the curvature there as the first mass matrix. On by
    /// default; it needs 12·d more workspace.
    pub approach: bool,
    /// Draw the number of inner steps of every iteration uniformly from ⌈T/2⌉ … ⌊3T/2⌋ (one
    /// bounded draw first in the iteration): a trajectory length that varies breaks the
    /// resonances of a fixed one. The chain stays exact (a mixture of exact kernels). Off by
    /// default.
    pub jitter_steps: bool,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id: chains with the same seed and different streams are independent.
    pub stream: u64,
}

impl AmagoldConfig {
    /// The paper's defaults at step size ε: reversible, T = 10, β = 0.25, σ = 1, unit mass, no
    /// warm-up (δ = 0.65, the approach on, if one is switched on), fixed T, seed 0, stream 0.
    pub const fn new(step_size: f64) -> Self {
        AmagoldConfig {
            step_size,
            friction: 0.25,
            momentum_sd: 1.0,
            steps: 10,
            variant: Variant::Reversible,
            warmup: 0,
            target_accept: 0.65,
            mass: Mass::Unit,
            approach: true,
            jitter_steps: false,
            seed: 0,
            stream: 0,
        }
    }

    /// The recommended configuration for a model of unknown scale: the paper's chain with a
    /// warm-up of 1000 iterations (approach, then Stan's windows) that learns ε and a diagonal
    /// mass matrix; 0.1 is only the first guess of ε, which the warm-up replaces.
    pub const fn adaptive() -> Self {
        let mut c = AmagoldConfig::new(0.1);
        c.warmup = 1000;
        c.mass = Mass::Diagonal;
        c
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
        if self.mass != Mass::Unit && self.warmup > 0 && self.warmup < MIN_MASS_WARMUP {
            return Err(Error::InvalidWarmup);
        }
        Ok(())
    }
}

/// The shortest warm-up that may adapt a mass matrix (its slow window then holds 15 draws).
pub(crate) const MIN_MASS_WARMUP: u64 = 20;

/// What one outer iteration did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmagoldInfo {
    /// How the iteration ended (an approach iteration: accepted when it moved).
    pub outcome: Outcome,
    /// `outcome == Accepted`.
    pub accepted: bool,
    /// log a = U(θ) − U(θ') + ρ; NaN when the trajectory left the domain before it was computed
    /// (and in the approach).
    pub log_accept: f64,
    /// The amortised correction ρ (NaN when the trajectory left the domain, and in the
    /// approach).
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
    /// The part of the run the iteration belonged to.
    pub phase: Phase,
    /// The number of inner steps it ran (T, or the jittered draw).
    pub steps: u32,
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
    /// The warm-up while it runs.
    warm: Option<Warmup>,
    /// The warm-up's report once it is over (`Verdict::None` without one).
    report: WarmupReport,
    iterations: u64,
    counted: u64,
    accepted: u64,
    divergences: u64,
}

/// Where each block of the workspace lies: 6·d for the chain, then the mass matrix's blocks,
/// then the approach's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    d: usize,
    mass: Mass,
    approach: bool,
}

impl Layout {
    pub(crate) const fn of(cfg: &AmagoldConfig, d: usize) -> Layout {
        Layout {
            d,
            mass: cfg.mass,
            approach: cfg.approach && cfg.warmup > 0,
        }
    }

    /// The mass matrix's blocks: m, k, Welford mean and M2 (diagonal); the φ-gradient, the
    /// Welford mean, the factor L and the co-moment triangle (dense).
    const fn mass_len(&self) -> usize {
        match self.mass {
            Mass::Unit => 0,
            Mass::Diagonal => self.d.saturating_mul(4),
            Mass::Dense => self
                .d
                .saturating_mul(2)
                .saturating_add(tri_len(self.d).saturating_mul(2)),
        }
    }

    /// The approach's blocks: the diagonal scaling, a scratch gradient and the pairs.
    const fn approach_len(&self) -> usize {
        if self.approach {
            self.d.saturating_mul(2 + 2 * PAIRS)
        } else {
            0
        }
    }

    /// The whole workspace, in coordinates (saturating).
    pub(crate) const fn len(&self) -> usize {
        self.d
            .saturating_mul(6)
            .saturating_add(self.mass_len())
            .saturating_add(self.approach_len())
    }
}

/// The workspace's blocks.
struct Parts<'w, T> {
    theta: &'w mut [T],
    prop: &'w mut [T],
    r: &'w mut [T],
    r0: &'w mut [T],
    rw: &'w mut [T],
    g: &'w mut [T],
    metric: Metric<'w, T>,
    /// The approach's diagonal scaling, scratch gradient and pairs.
    lbfgs: Option<Lbfgs<'w, T>>,
}

/// The approach's blocks: the diagonal scaling D, a scratch gradient, the pairs' s and y.
type Lbfgs<'w, T> = (&'w mut [T], &'w mut [T], &'w mut [T], &'w mut [T]);

/// The mass matrix's blocks.
enum Metric<'w, T> {
    Unit,
    Diagonal {
        m: &'w mut [T],
        k: &'w mut [T],
        mean: &'w mut [T],
        m2: &'w mut [T],
    },
    Dense {
        gw: &'w mut [T],
        mean: &'w mut [T],
        l: &'w mut [T],
        c: &'w mut [T],
    },
}

/// Splits `n` values off the front of `rest`.
fn take<'w, T>(rest: &mut &'w mut [T], n: usize) -> Option<&'w mut [T]> {
    let (a, b) = core::mem::take(rest).split_at_mut_checked(n)?;
    *rest = b;
    Some(a)
}

/// Splits the workspace by `lay`; `None` if it is shorter. Checked splits instead of indexing:
/// no panic path in the sampler.
fn parts<T>(ws: &mut [T], lay: Layout) -> Option<Parts<'_, T>> {
    let d = lay.d;
    let mut rest = ws;
    let theta = take(&mut rest, d)?;
    let prop = take(&mut rest, d)?;
    let r = take(&mut rest, d)?;
    let r0 = take(&mut rest, d)?;
    let rw = take(&mut rest, d)?;
    let g = take(&mut rest, d)?;
    let metric = match lay.mass {
        Mass::Unit => Metric::Unit,
        Mass::Diagonal => Metric::Diagonal {
            m: take(&mut rest, d)?,
            k: take(&mut rest, d)?,
            mean: take(&mut rest, d)?,
            m2: take(&mut rest, d)?,
        },
        Mass::Dense => Metric::Dense {
            gw: take(&mut rest, d)?,
            mean: take(&mut rest, d)?,
            l: take(&mut rest, tri_len(d))?,
            c: take(&mut rest, tri_len(d))?,
        },
    };
    let lbfgs = if lay.approach {
        let diag = take(&mut rest, d)?;
        let gold = take(&mut rest, d)?;
        let s = take(&mut rest, d.checked_mul(PAIRS)?)?;
        let y = take(&mut rest, d.checked_mul(PAIRS)?)?;
        Some((diag, gold, s, y))
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
        metric,
        lbfgs,
    })
}

/// Workspace coordinates for dimension `d`: the paper's chain without warm-up (saturates
/// instead of overflowing).
pub(crate) const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(6)
}

/// Workspace coordinates of a chain of dimension `d` started with `cfg`.
pub(crate) const fn workspace_len_for(cfg: &AmagoldConfig, d: usize) -> usize {
    Layout::of(cfg, d).len()
}

/// What a trajectory ended with.
struct Proposal {
    outcome: Outcome,
    log_a: f64,
    u_new: f64,
    rho: f64,
}

/// The inner-step coefficients of one iteration.
#[derive(Clone, Copy)]
struct Coefficients<T> {
    half64: f64,
    half: T,
    full: T,
    a: T,
    b: T,
    sd: T,
    eps: T,
    noisy: bool,
    sigma: T,
}

impl<T: Float> Coefficients<T> {
    fn new(eps: f64, cfg: &AmagoldConfig) -> Self {
        let s2 = cfg.momentum_sd * cfg.momentum_sd;
        let eb = eps * cfg.friction;
        Coefficients {
            half64: eps / (2.0 * s2),
            half: T::from_f64(eps / (2.0 * s2)),
            full: T::from_f64(eps / s2),
            a: T::from_f64(1.0 - eb),
            b: T::from_f64(1.0 + eb),
            sd: T::from_f64(libm::sqrt(4.0 * eps * cfg.friction) * cfg.momentum_sd),
            eps: T::from_f64(eps),
            noisy: cfg.friction > 0.0,
            sigma: T::from_f64(cfg.momentum_sd),
        }
    }
}

impl AmagoldCore {
    /// Validates everything, evaluates U(θ₀), then (only then) writes the workspace.
    pub(crate) fn new<T: Float, M: Potential<T> + ?Sized>(
        cfg: &AmagoldConfig,
        theta0: &[T],
        ws: &mut [T],
        model: &mut M,
    ) -> Result<Self, Error> {
        // The checks of every chain (`check_start`), in its order, with this chain's workspace
        // length, which depends on the configuration.
        let d = theta0.len();
        let fits = ws.len() >= workspace_len_for(cfg, d);
        let d = check_start(
            theta0,
            if fits { usize::MAX } else { 0 },
            1,
            cfg.validate_in::<T>(),
        )?;
        let u = match model.energy(theta0) {
            Ok(u) if u.is_finite() => u,
            Ok(_) | Err(Stop::Reject) => return Err(Error::InitialEnergyRejected),
            Err(Stop::Abort) => return Err(Error::CallbackAborted),
        };
        let mut rng = Rng::new(cfg.seed, cfg.stream);
        let lay = Layout::of(cfg, d);
        let Parts {
            theta, r, metric, ..
        } = parts(ws, lay).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        match metric {
            Metric::Unit => {}
            Metric::Diagonal { m, k, mean, m2 } => {
                // Unit mass until the warm-up (or the caller) sets one.
                for x in m.iter_mut().chain(k.iter_mut()) {
                    *x = T::from_f64(1.0);
                }
                for x in mean.iter_mut().chain(m2.iter_mut()) {
                    *x = T::ZERO;
                }
            }
            Metric::Dense { gw, mean, l, c } => {
                for x in gw.iter_mut().chain(mean.iter_mut()).chain(c.iter_mut()) {
                    *x = T::ZERO;
                }
                set_identity(l, d);
            }
        }
        let sigma = T::from_f64(cfg.momentum_sd);
        for ri in r.iter_mut() {
            *ri = match cfg.variant {
                Variant::NonReversible => sigma * rng.normal_as::<T>(),
                Variant::Reversible => T::ZERO,
            };
        }
        let warm = (cfg.warmup > 0).then(|| new_warmup(cfg, u));
        Ok(AmagoldCore {
            d,
            cfg: *cfg,
            eps: cfg.step_size,
            u,
            rng,
            warm,
            report: WarmupReport::empty(
                if cfg.warmup > 0 {
                    Verdict::Running
                } else {
                    Verdict::None
                },
                cfg.target_accept,
            ),
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
        // The workspace is split into its blocks by each callee, not here: the blocks are 14
        // slices, and this frame is under every call the step makes (docs/footprint.md).
        if let Some(w) = self.warm.as_ref() {
            if !w.approach.done {
                return self.approach_step(ws, model);
            }
            if w.windows.is_none() {
                return self.curvature_step(ws, model);
            }
            if w.pending_update > 0 {
                return self.window_metric_step(ws, model);
            }
        }
        let (outcome, log_a, rho, steps) = self.iterate(ws, model)?;
        Ok(self.finish(outcome, log_a, rho, steps, ws))
    }

    /// One iteration of the chain proper: its trajectory, the test and the move; returns the
    /// outcome, log a, ρ and the inner steps run. Out of line, so that the warm-up's bookkeeping
    /// that `finish` calls after it does not stack on this frame (docs/footprint.md).
    #[inline(never)]
    fn iterate<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut M,
    ) -> Result<(Outcome, f64, f64, u32), Error> {
        // Only the blocks the trajectory reads: the six of the chain, then the mass matrix's
        // factors (diagonal: m, k; dense: the φ-gradient and L).
        let (mut v, f) = self.trajectory_parts(ws)?;
        let saved_rng = self.rng.clone();
        let steps = self.draw_steps();
        let c = Coefficients::new(self.eps, &self.cfg);
        let prop = match f {
            MassFactors::Diagonal(mf, kf) => {
                self.trajectory(&mut v, mf, kf, steps, c, model, &saved_rng)?
            }
            MassFactors::Dense(gw, l) => {
                self.trajectory_dense(&mut v, gw, l, steps, c, model, &saved_rng)?
            }
        };
        let outcome = self.decide(&mut v, &prop);
        Ok((outcome, prop.log_a, prop.rho, steps))
    }

    /// The number of inner steps of this iteration (drawn with `jitter_steps`).
    #[inline(always)]
    fn draw_steps(&mut self) -> u32 {
        if self.cfg.jitter_steps {
            let t = self.cfg.steps;
            let lo = t.div_ceil(2);
            let hi = t.saturating_add(t / 2);
            lo + self.rng.below(u64::from(hi - lo) + 1) as u32
        } else {
            self.cfg.steps
        }
    }

    /// The test's uniform and the move: θ' and its momentum kept, or the momentum flipped.
    #[inline(always)]
    fn decide<T: Float>(&mut self, v: &mut View<'_, T>, prop: &Proposal) -> Outcome {
        let uniform = self.rng.uniform_f64();
        let outcome = if prop.outcome == Outcome::Rejected && libm::log(uniform) < prop.log_a {
            Outcome::Accepted
        } else {
            prop.outcome
        };
        if outcome == Outcome::Accepted {
            copy(v.theta, v.prop);
            copy(v.r, v.rw);
            self.u = prop.u_new;
        } else {
            for (ri, &r0i) in v.r.iter_mut().zip(v.r0.iter()) {
                *ri = -r0i;
            }
        }
        outcome
    }

    /// The trajectory with unit or diagonal mass (factors `mf`, `kf`; `None`: all 1, the
    /// paper's chain bit for bit). Inlined into `iterate`: one frame instead of two. Its pieces
    /// (`launch`, `drift`, `kick`, `land`) are the ones a suspended step runs between a batch
    /// run's callbacks (`resume`), so both are the same arithmetic in the same order.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn trajectory<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        v: &mut View<'_, T>,
        mf: Option<&[T]>,
        kf: Option<&[T]>,
        steps: u32,
        c: Coefficients<T>,
        model: &mut M,
        saved_rng: &Rng,
    ) -> Result<Proposal, Error> {
        self.launch(v, mf, kf, c);
        let mut rho = 0.0f64;
        for t in 0..steps {
            drift(v, kf, c, t);
            let seed = self.rng.next_u64();
            // The noise normals are drawn after the callback returns; the stream order (seed,
            // then noise) is the documented one because the callback cannot draw from it.
            if !gradient_or_rollback(model, v.prop, seed, v.g, &mut self.rng, saved_rng)? {
                return Ok(Proposal::out_of_domain());
            }
            rho += self.kick(v, mf, kf, c, t, steps);
        }
        land(v, kf, c);
        self.test(v.prop, rho, model, saved_rng)
    }

    /// A diagonal trajectory's start: the initial momentum r₀ (drawn, or the chain's own in the
    /// non-reversible variant) and θ' = θ + half·r₀.
    #[inline(always)]
    fn launch<T: Float>(
        &mut self,
        v: &mut View<'_, T>,
        mf: Option<&[T]>,
        kf: Option<&[T]>,
        c: Coefficients<T>,
    ) {
        match self.cfg.variant {
            Variant::Reversible => {
                for (x, mi) in v.r0.iter_mut().zip(Factors::of(mf)) {
                    *x = (c.sigma * mi) * self.rng.normal_as::<T>();
                }
            }
            Variant::NonReversible => copy(v.r0, v.r),
        }
        copy(v.rw, v.r0);
        copy(v.prop, v.theta);
        add_scaled_by(v.prop, c.half, kf, v.rw);
    }

    /// Inner step `t`'s momentum update from the gradient in `v.g` (with its noise normals)
    /// and, in the fused form, the drift that follows it; returns the step's ρ term.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn kick<T: Float>(
        &mut self,
        v: &mut View<'_, T>,
        mf: Option<&[T]>,
        kf: Option<&[T]>,
        c: Coefficients<T>,
        t: u32,
        steps: u32,
    ) -> f64 {
        let mut s = 0.0f64;
        let mut momentum = |ri: T, gi: T, mi: T, ki: T, z: Option<T>| {
            let eta = match z {
                Some(z) => (c.sd * mi) * z,
                None => T::ZERO,
            };
            let rn = ((c.a * ri - c.eps * gi) + eta) / c.b;
            s += (gi.to_f64() * (ri.to_f64() + rn.to_f64())) * ki.to_f64();
            rn
        };
        let factors = Factors::of(mf).zip(Factors::of(kf));
        let pairs = v.rw.iter_mut().zip(v.g.iter());
        if fused_drift() {
            // Step t + 1's drift, or the final half drift after the last step.
            let drift = if t + 1 < steps { c.full } else { c.half };
            let items = pairs.zip(v.prop.iter_mut()).zip(factors);
            sweep(
                &mut self.rng,
                c.noisy,
                items,
                |(((ri, &gi), xi), (mi, ki)), z| {
                    *ri = momentum(*ri, gi, mi, ki, z);
                    *xi += (drift * ki) * *ri;
                },
            );
        } else {
            let items = pairs.zip(factors);
            sweep(&mut self.rng, c.noisy, items, |((ri, &gi), (mi, ki)), z| {
                *ri = momentum(*ri, gi, mi, ki, z);
            });
        }
        c.half64 * s
    }

    /// The trajectory with a dense mass matrix: the unit-mass recursion on φ = L⁻¹θ, with the
    /// momentum in φ's coordinates, positions moved by L·r and gradients taken as Lᵀ·g
    /// (docs/algorithms.md §1.6). Pieces shared with `resume` as for the diagonal one.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn trajectory_dense<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        v: &mut View<'_, T>,
        gw: &mut [T],
        l: &[T],
        steps: u32,
        c: Coefficients<T>,
        model: &mut M,
        saved_rng: &Rng,
    ) -> Result<Proposal, Error> {
        self.launch_dense(v, l, c);
        let mut rho = 0.0f64;
        for t in 0..steps {
            drift_dense(v, l, c, t);
            let seed = self.rng.next_u64();
            if !gradient_or_rollback(model, v.prop, seed, v.g, &mut self.rng, saved_rng)? {
                return Ok(Proposal::out_of_domain());
            }
            rho += self.kick_dense(v, gw, l, c);
        }
        add_mul_lower(v.prop, c.half, l, v.rw);
        self.test(v.prop, rho, model, saved_rng)
    }

    /// A dense trajectory's start (as [`launch`](Self::launch), in φ's coordinates).
    #[inline(always)]
    fn launch_dense<T: Float>(&mut self, v: &mut View<'_, T>, l: &[T], c: Coefficients<T>) {
        match self.cfg.variant {
            Variant::Reversible => {
                for x in v.r0.iter_mut() {
                    *x = c.sigma * self.rng.normal_as::<T>();
                }
            }
            Variant::NonReversible => copy(v.r0, v.r),
        }
        copy(v.rw, v.r0);
        copy(v.prop, v.theta);
        add_mul_lower(v.prop, c.half, l, v.rw);
    }

    /// A dense inner step's momentum update from `v.g` (taken as Lᵀ·g into `gw`); returns its
    /// ρ term.
    #[inline(always)]
    fn kick_dense<T: Float>(
        &mut self,
        v: &mut View<'_, T>,
        gw: &mut [T],
        l: &[T],
        c: Coefficients<T>,
    ) -> f64 {
        mul_lower_t(gw, l, v.g);
        let mut s = 0.0f64;
        let items = v.rw.iter_mut().zip(gw.iter());
        sweep(&mut self.rng, c.noisy, items, |(ri, &gi), z| {
            let eta = match z {
                Some(z) => c.sd * z,
                None => T::ZERO,
            };
            let rn = ((c.a * *ri - c.eps * gi) + eta) / c.b;
            s += gi.to_f64() * (ri.to_f64() + rn.to_f64());
            *ri = rn;
        });
        c.half64 * s
    }

    /// The energy at the end of a trajectory and log a (before the uniform is drawn).
    fn test<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        prop: &[T],
        rho: f64,
        model: &mut M,
        saved_rng: &Rng,
    ) -> Result<Proposal, Error> {
        // A trajectory that overflowed (possible in f32 with huge gradients) is a divergence
        // whatever the energy callback would say there: θ must stay finite.
        if !all_finite(prop) {
            return Ok(Proposal::divergent(rho));
        }
        self.judge(rho, model.energy(prop), saved_rng)
    }

    /// The proposal given the energy callback's answer at its end.
    #[inline(always)]
    fn judge(
        &mut self,
        rho: f64,
        energy: Result<f64, Stop>,
        saved_rng: &Rng,
    ) -> Result<Proposal, Error> {
        match energy {
            Err(Stop::Abort) => {
                self.rng = saved_rng.clone();
                Err(Error::CallbackAborted)
            }
            Err(Stop::Reject) => Ok(Proposal {
                outcome: Outcome::OutOfDomain,
                log_a: f64::NAN,
                u_new: f64::NAN,
                rho,
            }),
            Ok(u_new) => {
                let log_a = (self.u - u_new) + rho;
                Ok(Proposal {
                    outcome: if log_a.is_finite() {
                        Outcome::Rejected
                    } else {
                        Outcome::Divergent
                    },
                    log_a,
                    u_new,
                    rho,
                })
            }
        }
    }

    /// One iteration of the warm-up's approach (docs/algorithms.md §1.7).
    #[inline(never)]
    fn approach_step<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut M,
    ) -> Result<AmagoldInfo, Error> {
        let p = parts(ws, Layout::of(&self.cfg, self.d)).ok_or(Error::WorkspaceTooSmall)?;
        let saved = self.rng.clone();
        let (Some(w), Some((diag, gold, s, y))) = (self.warm.as_mut(), p.lbfgs) else {
            return Err(Error::StateCorrupted);
        };
        let mut a = w.approach;
        let mut u = self.u;
        let moved = a.step(
            ApproachParts {
                theta: p.theta,
                gk: p.r0,
                p: p.rw,
                trial: p.prop,
                gnew: p.g,
                gold,
                diag,
                s,
                y,
            },
            &mut u,
            &mut self.rng,
            &saved,
            model,
        )?;
        w.approach = a;
        w.report.approach_iterations = self.iterations + 1;
        w.report.approach_energy = [a.energy_start, u];
        w.report.approach_unfinished = a.done && a.unfinished;
        if a.done && !self.cfg.approach_needs_curvature() {
            self.start_windows();
        }
        self.u = u;
        Ok(self.approach_info(moved))
    }

    /// The curvature step after the approach: the finite-difference Hessian (its diagonal, or
    /// all of it for a dense mass matrix) at θ with one seed, whose inverse becomes the first
    /// mass matrix (the Laplace approximation); then the windows begin.
    #[inline(never)]
    fn curvature_step<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut M,
    ) -> Result<AmagoldInfo, Error> {
        let p = parts(ws, Layout::of(&self.cfg, self.d)).ok_or(Error::WorkspaceTooSmall)?;
        let saved = self.rng.clone();
        let d = self.d;
        let sigma = self.cfg.momentum_sd;
        let given = self.warm.as_ref().is_some_and(|w| w.metric_given);
        let seed = self.rng.next_u64();
        let Parts {
            theta,
            prop,
            r,
            r0,
            rw,
            g,
            metric,
            ..
        } = p;
        let mut applied = true;
        let base_ok = gradient_or_rollback(model, theta, seed, g, &mut self.rng, &saved)?;
        if base_ok && all_finite(g) && !given {
            match metric {
                Metric::Unit => {}
                Metric::Diagonal { m, k, .. } => {
                    // H_jj into r0, then k_j = σ²/H_jj.
                    for j in 0..d {
                        let (ok, h) = self.column(theta, prop, rw, j, seed, model, &saved)?;
                        let hjj = match (rw.get(j), g.get(j)) {
                            (Some(&a), Some(&b)) if ok => (a - b).to_f64() / h.to_f64(),
                            _ => f64::NAN,
                        };
                        if let Some(x) = r0.get_mut(j) {
                            *x = T::from_f64(hjj);
                        }
                    }
                    let s2 = sigma * sigma;
                    let n = apply_diagonal(m, k, r, r0.iter().map(|h| s2 / h.to_f64()));
                    applied = n == d;
                }
                Metric::Dense { mean, l, c, .. } => {
                    // Column j of H gives H_ij for i ≥ j directly and, averaged, H_ji for i < j.
                    let mut ok_all = true;
                    for j in 0..d {
                        // A failing callback leaves the blocks as it found them: zero.
                        let (ok, h) = match self.column(theta, prop, rw, j, seed, model, &saved) {
                            Ok(x) => x,
                            Err(e) => {
                                for x in c.iter_mut().chain(mean.iter_mut()) {
                                    *x = T::ZERO;
                                }
                                return Err(e);
                            }
                        };
                        ok_all &= ok;
                        let hf = h.to_f64();
                        for i in 0..d {
                            let hij = match (rw.get(i), g.get(i)) {
                                (Some(&a), Some(&b)) => (a - b).to_f64() / hf,
                                _ => f64::NAN,
                            };
                            let (row, col) = if i >= j { (i, j) } else { (j, i) };
                            if let Some(x) = c.get_mut(tri_len(row) + col) {
                                *x = if i >= j {
                                    T::from_f64(hij)
                                } else {
                                    T::from_f64(0.5 * (x.to_f64() + hij))
                                };
                            }
                        }
                    }
                    // Columns j > i overwrote nothing of H_ij (i ≥ j) but the upper halves were
                    // averaged into their lower twins as they came; the lower entries written
                    // by column j were then averaged by column i's upper half: symmetric.
                    applied = ok_all && dense_from_curvature(l, c, mean, d, sigma);
                    for x in c.iter_mut().chain(mean.iter_mut()) {
                        *x = T::ZERO;
                    }
                }
            }
        }
        let w = self.warm.as_mut().ok_or(Error::StateCorrupted)?;
        if !given && !matches!(self.cfg.mass, Mass::Unit) {
            if applied && base_ok {
                w.report.metric_updates += 1;
            } else {
                w.report.reasons |= REASON_METRIC;
            }
        }
        self.start_windows();
        Ok(self.approach_info(false))
    }

    /// The metric update at the end of a slow window, as a step of its own (docs/algorithms.md
    /// §1.7): the finite-difference curvature's diagonal at θ (one seed) gives each coordinate
    /// a floor σ²/H_jj under its window variance — a coordinate the chain could not move in
    /// (its metric far too small, e.g. from a degenerate region where the approach stopped)
    /// has a window variance near 0, and shrinking towards the metric in use alone would keep it
    /// there; then the window's estimate is set, and the step size searched again.
    #[inline(never)]
    fn window_metric_step<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut M,
    ) -> Result<AmagoldInfo, Error> {
        let p = parts(ws, Layout::of(&self.cfg, self.d)).ok_or(Error::WorkspaceTooSmall)?;
        let saved = self.rng.clone();
        let d = self.d;
        let sigma = self.cfg.momentum_sd;
        let n = self.warm.as_ref().map_or(0, |w| w.pending_update);
        let seed = self.rng.next_u64();
        let Parts {
            theta,
            prop,
            r,
            r0,
            rw,
            g,
            mut metric,
            ..
        } = p;
        // Floors σ²/H_jj into r0 (NaN where the curvature is not positive and finite).
        let base_ok =
            gradient_or_rollback(model, theta, seed, g, &mut self.rng, &saved)? && all_finite(g);
        let s2 = sigma * sigma;
        for j in 0..d {
            let f = if base_ok {
                let (ok, h) = self.column(theta, prop, rw, j, seed, model, &saved)?;
                match (rw.get(j), g.get(j)) {
                    (Some(&a), Some(&b)) if ok => s2 * h.to_f64() / (a - b).to_f64(),
                    _ => f64::NAN,
                }
            } else {
                f64::NAN
            };
            if let Some(x) = r0.get_mut(j) {
                *x = T::from_f64(f);
            }
        }
        let ok = match &mut metric {
            Metric::Unit => true,
            Metric::Diagonal { m, k, mean, m2 } => {
                set_mass(m, k, mean, m2, r, r0, n, sigma);
                true
            }
            Metric::Dense { mean, l, c, .. } => set_dense(l, c, mean, r0, d, n, sigma),
        };
        let phase = self.phase_of_next();
        let w = self.warm.as_mut().ok_or(Error::StateCorrupted)?;
        if ok {
            w.report.metric_updates += 1;
            w.report.reasons &= !REASON_METRIC;
        } else {
            w.report.reasons |= REASON_METRIC;
        }
        w.pending_update = 0;
        w.search = Search::start();
        let mut info = self.approach_info(false);
        info.phase = phase;
        info.outcome = Outcome::Accepted;
        Ok(info)
    }

    /// The gradient at θ + h·e_j (seed `seed`) into `out`; returns whether it was computed and
    /// the h used.
    #[allow(clippy::too_many_arguments)]
    fn column<T: Float, M: Potential<T> + ?Sized>(
        &mut self,
        theta: &[T],
        scratch: &mut [T],
        out: &mut [T],
        j: usize,
        seed: u64,
        model: &mut M,
        saved: &Rng,
    ) -> Result<(bool, T), Error> {
        copy(scratch, theta);
        let h = scratch.get(j).map_or(T::ZERO, |&x| fd_step(x));
        if let Some(x) = scratch.get_mut(j) {
            *x += h;
        }
        let ok = gradient_or_rollback(model, scratch, seed, out, &mut self.rng, saved)?;
        Ok((ok && all_finite(out), h))
    }

    /// Starts the windowed phase after the approach (or at once without one).
    fn start_windows(&mut self) {
        let start = self.iterations + 1;
        let total = self.cfg.warmup;
        let has_mass = !matches!(self.cfg.mass, Mass::Unit);
        if let Some(w) = self.warm.as_mut() {
            let win = Windows::new(start, total.saturating_sub(start), total, has_mass);
            w.stats.reset(win.fast_end());
            w.windows = Some(win);
            w.search = Search::start();
        }
    }

    /// The record of an approach or curvature iteration, with the counters advanced.
    fn approach_info(&mut self, moved: bool) -> AmagoldInfo {
        self.iterations += 1;
        self.counted += 1;
        if moved {
            self.accepted += 1;
        }
        let done = self.iterations >= self.cfg.warmup;
        if done {
            // A warm-up spent entirely in the approach: end it here.
            self.end_warmup();
        }
        AmagoldInfo {
            outcome: if moved {
                Outcome::Accepted
            } else {
                Outcome::Rejected
            },
            accepted: moved,
            log_accept: f64::NAN,
            rho: f64::NAN,
            energy: self.u,
            accept_rate: self.accepted as f64 / self.counted.max(1) as f64,
            step_size: self.eps,
            warmup: true,
            phase: Phase::Approach,
            steps: 0,
            iteration: self.iterations,
            divergences: self.divergences,
        }
    }

    /// Counters and warm-up bookkeeping after a sampling iteration.
    fn finish<T: Float>(
        &mut self,
        outcome: Outcome,
        log_a: f64,
        rho: f64,
        steps: u32,
        ws: &mut [T],
    ) -> AmagoldInfo {
        let used_eps = self.eps;
        let phase = self.phase_of_next();
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
        if self.warm.is_some() {
            let alpha = if outcome == Outcome::OutOfDomain {
                0.0
            } else {
                accept_prob(log_a)
            };
            self.adapt(alpha, outcome == Outcome::Divergent, phase, ws);
        }
        AmagoldInfo {
            outcome,
            accepted,
            log_accept: log_a,
            rho,
            energy: self.u,
            accept_rate,
            step_size: used_eps,
            warmup: phase != Phase::Sampling,
            phase,
            steps,
            iteration: self.iterations,
            divergences: self.divergences,
        }
    }

    /// The phase the next iteration belongs to.
    fn phase_of_next(&self) -> Phase {
        match self.warm.as_ref() {
            None => Phase::Sampling,
            Some(w) => match w.windows {
                None => Phase::Approach,
                Some(win) => win.phase_of(self.iterations + 1 - win.start),
            },
        }
    }

    /// The windowed warm-up after finished iteration `self.iterations` of `phase`: its
    /// statistics, ε (search or dual averaging), the positions collected in slow and final
    /// windows, metric updates at slow windows' ends, restarts, and the end of the warm-up.
    #[inline(never)]
    fn adapt<T: Float>(&mut self, alpha: f64, divergent: bool, phase: Phase, ws: &mut [T]) {
        let Some(p) = &mut parts(ws, Layout::of(&self.cfg, self.d)) else {
            return;
        };
        let target = self.cfg.target_accept;
        let u = self.u;
        let it = self.iterations;
        let Some(w) = self.warm.as_mut() else {
            return;
        };
        let Some(mut win) = w.windows else {
            return;
        };
        // `it` counts this iteration already.
        let m = it - win.start;
        w.stats.push(alpha, divergent, u);
        // ε for the next iteration: the search after a metric update, the dual averaging, or
        // in the final window the settling recursion.
        if w.search.active() {
            let (eps, ended) = w.search.update(self.eps, alpha, target);
            self.eps = eps;
            if ended {
                w.da = DualAveraging::new(eps, target);
                w.report.restarts += 1;
                if phase == Phase::Final {
                    w.settle = Some(Settle::new(eps, win.len - m));
                }
            }
        } else if let Some(st) = w.settle.as_mut() {
            self.eps = st.update(alpha, target);
        } else {
            self.eps = w.da.update(alpha);
        }
        // Positions: slow windows estimate the metric; the final window's are kept for the
        // report's comparison of chains.
        if phase == Phase::Slow || phase == Phase::Final {
            let n = if phase == Phase::Slow {
                win.mass.push()
            } else {
                w.stats.count()
            };
            match &mut p.metric {
                Metric::Unit => {}
                Metric::Diagonal { mean, m2, .. } => welford(mean, m2, p.theta, n),
                Metric::Dense { mean, c, .. } => collect_dense(mean, c, p.theta, n),
            }
            if phase == Phase::Slow && win.mass.window_ends(m) && n >= 2 {
                // The metric update needs the curvature at the window's end: gradients, so the
                // next step does it (all or nothing, like every step).
                w.pending_update = n;
                let next_len = if m >= win.final_start() {
                    win.len - win.final_start()
                } else {
                    win.mass.end() - m
                };
                w.stats.reset(next_len);
            }
        }
        if phase == Phase::Fast && m == win.fast_end() {
            // The end of the initial fast window: still falling energy means the dual
            // averaging learnt in a transient; start it again from the current ε.
            if w.stats.trend_z() < -RESTART_Z {
                w.da = DualAveraging::new(self.eps, target);
                w.report.restarts += 1;
            }
            let next_len = if win.has_mass {
                win.mass.end() - m
            } else {
                win.len - m
            };
            w.stats.reset(next_len);
        } else if phase == Phase::Fast && w.stats.count() >= RESTART_CHECK && !w.search.active() {
            if w.stats.trend_z() < -RESTART_Z {
                w.da = DualAveraging::new(self.eps, target);
                w.report.restarts += 1;
            }
            w.stats.reset(win.fast_end().saturating_sub(m).max(1));
        }
        // Entering the final window without a search (no metric update before it): settle
        // from the dual averaging's average.
        if m == win.final_start()
            && !w.search.active()
            && w.settle.is_none()
            && w.pending_update == 0
            && m < win.len
        {
            self.eps = w.da.final_step_size();
            w.settle = Some(Settle::new(self.eps, win.len - m));
        }
        w.windows = Some(win);
        if m >= win.len {
            if let Some(st) = w.settle.as_ref() {
                self.eps = st.final_step_size();
            } else if !w.search.active() {
                self.eps = w.da.final_step_size();
            }
            self.end_warmup_with(p);
        }
    }

    /// Ends the warm-up: the final ε is in place; builds the report (with the metric's
    /// condition number) and resets the acceptance counters.
    #[inline(never)]
    fn end_warmup_with<T: Float>(&mut self, p: &mut Parts<'_, T>) {
        let cond = match &mut p.metric {
            Metric::Unit => 1.0,
            Metric::Diagonal { k, .. } => {
                let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
                for &x in k.iter() {
                    lo = lo.min(x.to_f64());
                    hi = hi.max(x.to_f64());
                }
                hi / lo
            }
            Metric::Dense { l, c, .. } => {
                // Only the final window's variances stay (`compare_warmups` reads them); the
                // dense setter factorises off the diagonal of this block.
                zero_off_diag(c, self.d);
                let (hi, lo) = eigen_bounds(l, self.d, p.prop, p.rw);
                hi / lo
            }
        };
        self.end_warmup();
        self.report.condition_number = cond;
    }

    /// Ends the warm-up without access to the workspace (a warm-up spent in the approach).
    #[inline(never)]
    fn end_warmup(&mut self) {
        // Into `self.report` in place, through a reference: moving the warm-up state (or even
        // the report) through locals cost hundreds of bytes of Cortex-M stack.
        let Some(w) = self.warm.as_ref() else {
            return;
        };
        self.report = w.report;
        w.stats.report_into(&mut self.report);
        self.warm = None;
        let r = &mut self.report;
        r.iterations = self.iterations;
        r.step_size = self.eps;
        r.target_accept = self.cfg.target_accept;
        r.divergences = self.divergences;
        r.condition_number = f64::NAN;
        r.judge();
        self.counted = 0;
        self.accepted = 0;
    }

    /// The warm-up report: the final one after the warm-up, the one so far while it runs.
    pub(crate) fn warmup_report(&self) -> WarmupReport {
        match self.warm.as_ref() {
            None => self.report,
            Some(w) => {
                let mut r = w.report;
                w.stats.report_into(&mut r);
                r.verdict = Verdict::Running;
                r.iterations = self.iterations;
                r.step_size = self.eps;
                r.divergences = self.divergences;
                r
            }
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
        self.warm.is_some()
    }
    /// Workspace coordinates this chain uses.
    fn used_len(&self) -> usize {
        workspace_len_for(&self.cfg, self.d)
    }

    /// Sets ε for the next iterations; during the warm-up the dual averaging restarts from it.
    pub(crate) fn set_step_size<T: Float>(&mut self, eps: f64) -> Result<(), Error> {
        if !crate::float::positive_in::<T>(eps) || !eps.is_finite() {
            return Err(Error::InvalidStepSize);
        }
        self.eps = eps;
        if let Some(w) = self.warm.as_mut() {
            w.search = Search::IDLE;
            w.da = DualAveraging::new(eps, self.cfg.target_accept);
        }
        Ok(())
    }

    /// Sets a diagonal inverse mass (relative to σ⁻²): every value positive and finite in `T`.
    pub(crate) fn set_inverse_mass<T: Float>(
        &mut self,
        ws: &mut [T],
        k: &[T],
    ) -> Result<(), Error> {
        if k.len() != self.d {
            return Err(Error::LengthMismatch);
        }
        if !k.iter().all(|&x| x.is_finite() && x > T::ZERO)
            || !k.iter().all(|&x| {
                let m = T::from_f64(1.0 / libm::sqrt(x.to_f64()));
                m.is_finite() && m > T::ZERO
            })
        {
            return Err(Error::InvalidMass);
        }
        let lay = Layout::of(&self.cfg, self.d);
        let p = parts(ws, lay).ok_or(Error::WorkspaceTooSmall)?;
        match p.metric {
            Metric::Unit => return Err(Error::MassMismatch),
            Metric::Diagonal { m, k: kb, .. } => {
                apply_diagonal(m, kb, p.r, k.iter().map(|x| x.to_f64()));
            }
            Metric::Dense { l, .. } => {
                set_identity(l, self.d);
                for (i, &ki) in k.iter().enumerate() {
                    if let Some(x) = l.get_mut(tri_len(i) + i) {
                        *x = T::from_f64(libm::sqrt(ki.to_f64()));
                    }
                }
            }
        }
        self.metric_given();
        Ok(())
    }

    /// Sets a dense inverse mass (relative to σ⁻²) from a d×d row-major symmetric matrix.
    pub(crate) fn set_inverse_mass_dense<T: Float>(
        &mut self,
        ws: &mut [T],
        k: &[T],
    ) -> Result<(), Error> {
        let d = self.d;
        if k.len() != d.saturating_mul(d) {
            return Err(Error::LengthMismatch);
        }
        if self.cfg.mass != Mass::Dense {
            return Err(Error::MassMismatch);
        }
        let at = |i: usize, j: usize| k.get(i * d + j).copied().unwrap_or(T::ZERO);
        for i in 0..d {
            for j in 0..i {
                let (a, b) = (at(i, j).to_f64(), at(j, i).to_f64());
                if !(a.is_finite() && b.is_finite()) || (a - b).abs() > 1e-12 * (a.abs() + b.abs())
                {
                    return Err(Error::InvalidMass);
                }
            }
        }
        // A slow or final window of a running warm-up is collecting its co-moments in the
        // block this needs as scratch: refuse then. Otherwise that block holds zeros off its
        // diagonal (the diagonal: the last final window's variances, which `compare_warmups`
        // reads), so the factor's strictly lower part is computed there and the block is
        // zeroed off the diagonal again whatever the outcome: a refusal writes nothing.
        let collecting = self
            .warm
            .as_ref()
            .and_then(|w| w.windows)
            .is_some_and(|win| win.phase_of(self.iterations + 1 - win.start) != Phase::Fast);
        if collecting {
            return Err(Error::InvalidMass);
        }
        let lay = Layout::of(&self.cfg, d);
        let p = parts(ws, lay).ok_or(Error::WorkspaceTooSmall)?;
        let Metric::Dense { l, c, .. } = p.metric else {
            return Err(Error::MassMismatch);
        };
        let ok = cholesky_off_diag(at, c, d);
        if ok {
            let mut idx = 0;
            for i in 0..d {
                for j in 0..=i {
                    let x = if j < i {
                        c.get(idx).copied().unwrap_or(T::ZERO)
                    } else {
                        factor_diag(&at, c, i)
                    };
                    if let Some(y) = l.get_mut(idx) {
                        *y = x;
                    }
                    idx += 1;
                }
            }
        }
        zero_off_diag(c, d);
        if !ok {
            return Err(Error::InvalidMass);
        }
        self.metric_given();
        Ok(())
    }

    fn metric_given(&mut self) {
        if let Some(w) = self.warm.as_mut() {
            w.metric_given = true;
        }
    }

    /// The diagonal of the inverse mass (relative to σ⁻²) into `out` (d values).
    pub(crate) fn inverse_mass_into<T: Float>(&self, ws: &[T], out: &mut [T]) -> Result<(), Error> {
        let d = self.d;
        let out = out.get_mut(..d).ok_or(Error::OutputTooSmall)?;
        let mass = blocks(ws, Layout::of(&self.cfg, d)).ok_or(Error::WorkspaceTooSmall)?;
        match mass {
            MassView::Unit => out.fill(T::from_f64(1.0)),
            MassView::Diagonal(k) => copy(out, k),
            MassView::Dense(l) => gram_diagonal(out, l),
        }
        Ok(())
    }

    /// The inverse mass (relative to σ⁻²) as a d×d row-major matrix into `out`.
    pub(crate) fn inverse_mass_dense_into<T: Float>(
        &self,
        ws: &[T],
        out: &mut [T],
    ) -> Result<(), Error> {
        let d = self.d;
        let out = out
            .get_mut(..d.saturating_mul(d))
            .ok_or(Error::OutputTooSmall)?;
        let mass = blocks(ws, Layout::of(&self.cfg, d)).ok_or(Error::WorkspaceTooSmall)?;
        out.fill(T::ZERO);
        match mass {
            MassView::Unit => {
                for i in 0..d {
                    if let Some(x) = out.get_mut(i * d + i) {
                        *x = T::from_f64(1.0);
                    }
                }
            }
            MassView::Diagonal(k) => {
                for (i, &ki) in k.iter().enumerate() {
                    if let Some(x) = out.get_mut(i * d + i) {
                        *x = ki;
                    }
                }
            }
            MassView::Dense(l) => {
                // K = L·Lᵀ, lower triangle by `gram` into the matrix's first tri_len(d) cells
                // would overlap; compute entry by entry instead.
                for i in 0..d {
                    for j in 0..=i {
                        let mut s = 0.0f64;
                        for q in 0..=j {
                            let a = l.get(tri_len(i) + q).map_or(f64::NAN, |x| x.to_f64());
                            let b = l.get(tri_len(j) + q).map_or(f64::NAN, |x| x.to_f64());
                            s += a * b;
                        }
                        let v = T::from_f64(s);
                        if let Some(x) = out.get_mut(i * d + j) {
                            *x = v;
                        }
                        if let Some(x) = out.get_mut(j * d + i) {
                            *x = v;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Per coordinate, the final window's mean and sample variance of the positions (the
    /// report's comparison of chains), from the Welford blocks; `None` for a unit-mass chain or
    /// before a final window has two draws.
    fn window_moments<'w, T: Float>(&self, ws: &'w [T]) -> Option<(&'w [T], DiagVar<'w, T>)> {
        let n = self.report.window_iterations;
        if n < 2 || self.warm.is_some() {
            return None;
        }
        let d = self.d;
        let lay = Layout::of(&self.cfg, d);
        let base = d.checked_mul(6)?;
        let nm1 = (n - 1) as f64;
        match lay.mass {
            Mass::Unit => None,
            Mass::Diagonal => {
                let mean = ws.get(base + 2 * d..base + 3 * d)?;
                let m2 = ws.get(base + 3 * d..base + 4 * d)?;
                Some((mean, DiagVar::Diag(m2.iter(), nm1)))
            }
            Mass::Dense => {
                let mean = ws.get(base + d..base + 2 * d)?;
                let c0 = base + 2 * d + tri_len(d);
                let c = ws.get(c0..c0 + tri_len(d))?;
                Some((mean, DiagVar::Dense(c, 0, d, nm1)))
            }
        }
    }
}

/// The variances of [`AmagoldCore::window_moments`].
enum DiagVar<'w, T> {
    Diag(core::slice::Iter<'w, T>, f64),
    Dense(&'w [T], usize, usize, f64),
}

impl<T: Float> Iterator for DiagVar<'_, T> {
    type Item = f64;
    fn next(&mut self) -> Option<f64> {
        match self {
            DiagVar::Diag(it, nm1) => it.next().map(|x| x.to_f64() / *nm1),
            DiagVar::Dense(c, i, d, nm1) => {
                if *i >= *d {
                    return None;
                }
                let v = c.get(tri_len(*i) + *i).map(|x| x.to_f64() / *nm1);
                *i += 1;
                v
            }
        }
    }
}

/// The mass matrix blocks, read-only.
enum MassView<'w, T> {
    Unit,
    Diagonal(&'w [T]),
    Dense(&'w [T]),
}

fn blocks<T>(ws: &[T], lay: Layout) -> Option<MassView<'_, T>> {
    let d = lay.d;
    let base = d.checked_mul(6)?;
    match lay.mass {
        Mass::Unit => Some(MassView::Unit),
        Mass::Diagonal => Some(MassView::Diagonal(ws.get(base + d..base + 2 * d)?)),
        Mass::Dense => {
            let l0 = base + 2 * d;
            Some(MassView::Dense(ws.get(l0..l0 + tri_len(d))?))
        }
    }
}

/// L ← I (packed).
fn set_identity<T: Float>(l: &mut [T], d: usize) {
    let mut rest = l;
    for i in 0..d {
        let Some((row, tail)) = rest.split_at_mut_checked(i + 1) else {
            return;
        };
        rest = tail;
        for x in row.iter_mut() {
            *x = T::ZERO;
        }
        if let Some(x) = row.last_mut() {
            *x = T::from_f64(1.0);
        }
    }
}

/// The warm-up's state at the start.
fn new_warmup(cfg: &AmagoldConfig, u0: f64) -> Warmup {
    let approach = if cfg.approach {
        Approach::new(cfg.warmup / 5, u0)
    } else {
        Approach::new(0, u0)
    };
    let mut report = WarmupReport::empty(Verdict::Running, cfg.target_accept);
    report.approach_energy = [u0, u0];
    let mut w = Warmup {
        approach,
        windows: None,
        da: DualAveraging::new(cfg.step_size, cfg.target_accept),
        search: Search::IDLE,
        settle: None,
        pending_update: 0,
        stats: WindowStats::new(1),
        metric_given: false,
        report,
    };
    if !cfg.approach {
        // No approach and no curvature step: the windows begin with the first iteration.
        let win = Windows::new(0, cfg.warmup, cfg.warmup, cfg.mass != Mass::Unit);
        w.stats.reset(win.fast_end());
        w.windows = Some(win);
        w.search = Search::start();
    }
    w
}

/// Falling-energy z below which a fast window restarts the dual averaging.
const RESTART_Z: f64 = 3.0;

/// Iterations of a fast window between checks of its energy trend.
const RESTART_CHECK: u64 = 50;

impl AmagoldConfig {
    /// `true` when the approach is followed by the curvature step (a mass matrix to set).
    const fn approach_needs_curvature(&self) -> bool {
        !matches!(self.mass, Mass::Unit)
    }
}

impl Proposal {
    /// A trajectory whose end is not finite (possible in f32 with huge gradients).
    fn divergent(rho: f64) -> Self {
        Proposal {
            outcome: Outcome::Divergent,
            log_a: f64::NAN,
            u_new: f64::NAN,
            rho,
        }
    }

    fn out_of_domain() -> Self {
        Proposal {
            outcome: Outcome::OutOfDomain,
            log_a: f64::NAN,
            u_new: f64::NAN,
            rho: f64::NAN,
        }
    }
}

/// The chain's six d-blocks, borrowed apart from the mass blocks.
struct View<'v, T> {
    theta: &'v mut [T],
    prop: &'v mut [T],
    r: &'v mut [T],
    r0: &'v mut [T],
    rw: &'v mut [T],
    g: &'v mut [T],
}

impl<'v, T> View<'v, T> {
    /// The six blocks of the first 6·d values of the workspace.
    fn split(ws: &'v mut [T], d: usize) -> Option<Self> {
        let mut rest = ws;
        Some(View {
            theta: take(&mut rest, d)?,
            prop: take(&mut rest, d)?,
            r: take(&mut rest, d)?,
            r0: take(&mut rest, d)?,
            rw: take(&mut rest, d)?,
            g: take(&mut rest, d)?,
        })
    }
}

/// The mass matrix's factors a trajectory reads.
enum MassFactors<'w, T> {
    /// Unit (`None`, `None`) or diagonal (m, k).
    Diagonal(Option<&'w [T]>, Option<&'w [T]>),
    /// Dense: the φ-gradient block and L.
    Dense(&'w mut [T], &'w [T]),
}

impl AmagoldCore {
    /// The chain's six blocks and the mass factors, split as `iterate` splits them.
    fn trajectory_parts<'w, T: Float>(
        &self,
        ws: &'w mut [T],
    ) -> Result<(View<'w, T>, MassFactors<'w, T>), Error> {
        let d = self.d;
        let (base, rest) = ws
            .split_at_mut_checked(d.saturating_mul(6))
            .ok_or(Error::WorkspaceTooSmall)?;
        let v = View::split(base, d).ok_or(Error::WorkspaceTooSmall)?;
        let f = match self.cfg.mass {
            Mass::Unit => MassFactors::Diagonal(None, None),
            Mass::Diagonal => {
                let (m, rest) = rest.split_at_checked(d).ok_or(Error::WorkspaceTooSmall)?;
                let k = rest.get(..d).ok_or(Error::WorkspaceTooSmall)?;
                MassFactors::Diagonal(Some(m), Some(k))
            }
            Mass::Dense => {
                let (gw, rest) = rest
                    .split_at_mut_checked(d)
                    .ok_or(Error::WorkspaceTooSmall)?;
                let l = rest
                    .get(d..d.saturating_add(tri_len(d)))
                    .ok_or(Error::WorkspaceTooSmall)?;
                MassFactors::Dense(gw, l)
            }
        };
        Ok((v, f))
    }
}

/// The drift before inner step `t` of a diagonal trajectory (none before the first, nor in the
/// fused form, where the previous `kick` made it).
#[inline(always)]
fn drift<T: Float>(v: &mut View<'_, T>, kf: Option<&[T]>, c: Coefficients<T>, t: u32) {
    if t != 0 && !fused_drift() {
        add_scaled_by(v.prop, c.full, kf, v.rw);
    }
}

/// The final half drift of a diagonal trajectory (in the fused form the last `kick` made it).
#[inline(always)]
fn land<T: Float>(v: &mut View<'_, T>, kf: Option<&[T]>, c: Coefficients<T>) {
    if !fused_drift() {
        add_scaled_by(v.prop, c.half, kf, v.rw);
    }
}

/// The drift before inner step `t` of a dense trajectory.
#[inline(always)]
fn drift_dense<T: Float>(v: &mut View<'_, T>, l: &[T], c: Coefficients<T>, t: u32) {
    if t != 0 {
        add_mul_lower(v.prop, c.full, l, v.rw);
    }
}

impl StepInfo for AmagoldInfo {
    fn outcome(&self) -> Outcome {
        self.outcome
    }
}

chain_kind!(
    AmagoldCore,
    AmagoldConfig,
    AmagoldInfo,
    workspace_len,
    need = |c: &AmagoldCore| { c.used_len() },
    len_for = |cfg: &AmagoldConfig, d: usize| { workspace_len_for(cfg, d) }
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
    /// Workspace length (in coordinates of type `T`) for dimension `d` of the paper's chain
    /// without warm-up: `6·d`. [`workspace_len_for`](Self::workspace_len_for) covers every
    /// configuration.
    pub const fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }

    /// Workspace length for a chain of dimension `d` started with `config`: 6·d, plus 4·d with
    /// a diagonal mass matrix or 2·d + d(d+1) with a dense one, plus 12·d when a warm-up with
    /// the approach is configured (saturating).
    pub const fn workspace_len_for(config: &AmagoldConfig, d: usize) -> usize {
        workspace_len_for(config, d)
    }

    /// Validates the configuration and the buffers, evaluates U(θ₀) and starts the chain at θ₀.
    /// The dimension is `theta0.len()`; the workspace (at least
    /// [`workspace_len_for`](Self::workspace_len_for)`(config, d)` coordinates) may be longer
    /// than needed.
    pub fn new<M: Potential<T> + ?Sized>(
        config: &AmagoldConfig,
        theta0: &[T],
        workspace: &'a mut [T],
        model: &mut M,
    ) -> Result<Self, Error> {
        Chain::start(config, theta0, workspace, model)
    }

    /// The persistent momentum r (meaningful for the non-reversible variant; with a dense mass
    /// matrix it is in the coordinates φ = L⁻¹θ).
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

    /// `true` while the warm-up runs.
    pub fn in_warmup(&self) -> bool {
        self.core.in_warmup()
    }

    /// The warm-up's report: the final one (with its verdict) once the warm-up is over, the
    /// statistics so far (verdict `Running`) while it runs, `Verdict::None` without one.
    pub fn warmup_report(&self) -> WarmupReport {
        self.core.warmup_report()
    }

    /// Sets the step size of the next iterations (a value learnt elsewhere: a pilot run, an
    /// earlier chain). During the warm-up the dual averaging restarts from it. `InvalidStepSize`
    /// unless finite and positive in `T`.
    pub fn set_step_size(&mut self, eps: f64) -> Result<(), Error> {
        self.core.set_step_size::<T>(eps)
    }

    /// The diagonal of the inverse mass matrix relative to σ⁻² (with σ = 1, the inverse mass
    /// matrix: what the warm-up estimates as the posterior variances) into `out` (at least d
    /// values): d ones without a mass matrix. `OutputTooSmall` for a shorter `out`.
    pub fn inverse_mass(&self, out: &mut [T]) -> Result<(), Error> {
        self.core.inverse_mass_into(self.ws, out)
    }

    /// The whole inverse mass matrix relative to σ⁻², d×d row-major, into `out` (at least d²
    /// values): L·Lᵀ for a dense one, a diagonal matrix or the identity otherwise.
    pub fn inverse_mass_dense(&self, out: &mut [T]) -> Result<(), Error> {
        self.core.inverse_mass_dense_into(self.ws, out)
    }

    /// Sets a diagonal inverse mass matrix (relative to σ⁻²; d values, each positive and
    /// finite in `T` with a finite `1/√k`: else `InvalidMass`) on a chain with a diagonal or
    /// dense mass matrix (a unit-mass chain has none: `MassMismatch`). The chain stays exact
    /// from here on if no warm-up changes it; a warm-up that has not reached its windows keeps
    /// it instead of the approach's curvature, and its slow windows refine it.
    pub fn set_inverse_mass(&mut self, k: &[T]) -> Result<(), Error> {
        self.core.set_inverse_mass(self.ws, k)
    }

    /// Sets a dense inverse mass matrix (relative to σ⁻², d×d row-major, symmetric to 10⁻¹²
    /// relative and positive definite: else `InvalidMass`) on a chain with `Mass::Dense`
    /// (`MassMismatch` otherwise). Refused with `InvalidMass` too while a slow window of the
    /// warm-up is collecting draws (its scratch is in use); set it before the warm-up starts
    /// or after it ends.
    pub fn set_inverse_mass_dense(&mut self, k: &[T]) -> Result<(), Error> {
        self.core.set_inverse_mass_dense(self.ws, k)
    }
}

/// The warm-up reports of `k` chains of one model (written to `out[..k]`), compared: each
/// chain's own verdict, and [`crate::warmup::REASON_CHAINS_DISAGREE`] where the chains'
/// final-window energies, or (with a mass matrix) positions, disagree
/// ([`crate::warmup::compare_reports`]). `LengthMismatch` when `out` is shorter than `chains`,
/// `ZeroDimension` for no chains, `LengthMismatch` when the chains' dimensions differ; nothing
/// is written on an error.
pub fn compare_warmups<T: Float>(
    chains: &[&Amagold<'_, T>],
    out: &mut [WarmupReport],
) -> Result<(), Error> {
    if out.len() < chains.len() {
        return Err(Error::LengthMismatch);
    }
    compare_cores(
        chains.len(),
        |i| chains.get(i).map(|c| (&c.core, &*c.ws)),
        |i, r| {
            if let Some(o) = out.get_mut(i) {
                *o = r;
            }
        },
    )
}

/// [`compare_warmups`] over chains given by index (the C API's states), each compared report
/// handed to `write` (after every check has passed).
pub(crate) fn compare_cores<'a, T: Float + 'a>(
    k: usize,
    get: impl Fn(usize) -> Option<(&'a AmagoldCore, &'a [T])>,
    mut write: impl FnMut(usize, WarmupReport),
) -> Result<(), Error> {
    if k == 0 {
        return Err(Error::ZeroDimension);
    }
    let d = get(0).map(|(c, _)| c.d).ok_or(Error::ZeroDimension)?;
    for i in 0..k {
        let (c, _) = get(i).ok_or(Error::LengthMismatch)?;
        if c.d != d {
            return Err(Error::LengthMismatch);
        }
    }
    // Classic R̂ per coordinate from the chains' final windows: B/n from the spread of the
    // chains' window means, W the mean of their window variances, n the mean window length
    // (the windows are of one length unless a chain's warm-up ended in its approach).
    let mut rhat = f64::NAN;
    let mut nsum = 0.0f64;
    for i in 0..k {
        let Some((c, _)) = get(i) else {
            return Err(Error::LengthMismatch);
        };
        nsum += c.report.window_iterations as f64;
    }
    let nf = nsum / k as f64;
    'coords: for j in 0..d {
        let (mut wsum, mut msum, mut m2sum) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..k {
            let Some((c, ws)) = get(i) else {
                continue 'coords;
            };
            let Some((mean, mut var)) = c.window_moments(ws) else {
                rhat = f64::NAN;
                break 'coords;
            };
            let mj = mean.get(j).map_or(f64::NAN, |x| x.to_f64());
            let vj = var.nth(j).unwrap_or(f64::NAN);
            wsum += vj;
            msum += mj;
            m2sum += mj * mj;
        }
        let kf = k as f64;
        let w = wsum / kf;
        let mbar = msum / kf;
        let b = if k > 1 {
            nf * (m2sum - kf * mbar * mbar) / (kf - 1.0)
        } else {
            0.0
        };
        let r = libm::sqrt(((nf - 1.0) / nf * w + b / nf) / w);
        if r.is_finite() {
            rhat = if rhat.is_nan() { r } else { rhat.max(r) };
        }
    }
    let report = |i: usize| get(i).map(|(c, _)| c.warmup_report());
    let (med_mean, med_sd, finished) = crate::warmup::energy_medians(k, report);
    for i in 0..k {
        if let Some(mut r) = report(i) {
            crate::warmup::flag_disagreement(&mut r, med_mean, med_sd, finished, rhat);
            write(i, r);
        }
    }
    Ok(())
}

#[cfg(feature = "ffi")]
mod checkpoint;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FnPotential;
    use core::sync::atomic::{AtomicBool, Ordering};

    /// On: the trajectory takes the bare-metal form, the drift a pass of its own. Tests running
    /// meanwhile get the same bits either way (that is what the test below checks).
    pub(super) static UNFUSED: AtomicBool = AtomicBool::new(false);

    /// Positions and info records of 40 iterations of every chain the diagonal trajectory runs
    /// (unit and diagonal mass, both variants, a fixed and a jittered T), as bits.
    fn run<T: Float>() -> Vec<u64> {
        let mut model = FnPotential::new(
            |t: &[T]| {
                let x: Vec<f64> = t.iter().map(|v| v.to_f64()).collect();
                Ok(x.iter().map(|v| 0.5 * v * v - 0.3 * libm::cos(*v)).sum())
            },
            |t: &[T], seed: u64, g: &mut [T]| {
                let noise = 0.1 * Rng::new(seed, 5).uniform_f64();
                for (gl, tl) in g.iter_mut().zip(t) {
                    let v = tl.to_f64();
                    *gl = T::from_f64(v + 0.3 * libm::sin(v) + noise);
                }
                Ok(())
            },
        );
        let mut bits = Vec::new();
        for (variant, mass, jitter) in [
            (Variant::Reversible, Mass::Unit, false),
            (Variant::NonReversible, Mass::Diagonal, false),
            (Variant::Reversible, Mass::Diagonal, true),
        ] {
            let mut cfg = AmagoldConfig::new(0.2);
            (cfg.variant, cfg.mass, cfg.jitter_steps, cfg.seed) = (variant, mass, jitter, 11);
            let theta0 = [T::from_f64(0.5), T::from_f64(-1.0), T::from_f64(2.0)];
            let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(&cfg, 3)];
            let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut model).unwrap();
            if mass == Mass::Diagonal {
                let k = [T::from_f64(0.5), T::from_f64(1.0), T::from_f64(2.0)];
                chain.set_inverse_mass(&k).unwrap();
            }
            for _ in 0..40 {
                let info = chain.step(&mut model).unwrap();
                bits.push(info.rho.to_bits());
                bits.extend(chain.position().iter().map(|v| v.to_f64().to_bits()));
            }
        }
        bits
    }

    /// The bare-metal trajectory (the drift a pass of its own) gives the host's fused one bit
    /// for bit, f64 and f32: test-firmware compares the two builds under QEMU, this on the host.
    #[test]
    fn the_unfused_drift_gives_the_fused_bits() {
        assert!(fused_drift(), "the host takes the fused form");
        let fused = (run::<f64>(), run::<f32>());
        UNFUSED.store(true, Ordering::Relaxed);
        assert!(!fused_drift());
        let unfused = (run::<f64>(), run::<f32>());
        UNFUSED.store(false, Ordering::Relaxed);
        assert_eq!(fused.0, unfused.0);
        assert_eq!(fused.1, unfused.1);
    }
}
