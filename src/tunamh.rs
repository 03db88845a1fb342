//! TunaMH (Zhang, Cooper & De Sa, NeurIPS 2020): exact Metropolis–Hastings for a target that is
//! a sum over data, `π(θ) ∝ exp(−U₀(θ) − Σᵢ Uᵢ(θ))`, `i = 0..N`, that looks at a random
//! minibatch of terms per step instead of all N, and is still exact (docs/algorithms.md §7).
//!
//! What it needs from the model ([`Terms`]): the differences `Δᵢ = Uᵢ(θ′) − Uᵢ(θ)` of the terms
//! it picks, the difference `Δ₀ = U₀(θ′) − U₀(θ)` of the part evaluated in full (a prior), and
//! one number declared in the configuration: a bound c with `|Δᵢ| ≤ c·‖θ′ − θ‖₂` for every term
//! and every pair of points (e.g. the Lipschitz constant of a logistic regression's terms,
//! `max ‖xᵢ‖`). The bound is what makes a minibatch enough; a difference past it is refused
//! ([`Error::BoundExceeded`]) instead of silently biasing the chain.
//!
//! # One step, and its draw order
//!
//! Coefficients in `f64`. With `M = ‖θ′ − θ‖₂`, `L = c·N·M`, `λ = χ·L²` and `λ₁ = λ/N`:
//!
//! 1. the proposal `θ′ = θ + σ·z`: `d` normals in index order (σ = `step_size`);
//! 2. the model's `Δ₀` (no draw);
//! 3. when `λ + L < N`: the batch size `B ~ Poisson(λ + L)` (`crate::poisson`), then for each of
//!    the B draws the term `i` ([`Rng::below`]`(N)`) and a uniform `u` (index, uniform, index,
//!    uniform, …); the model computes the differences in chunks of [`CHUNK`] in draw order.
//!    With `φ = (Δᵢ + c·M)/2` a draw is kept when `u < (λ₁ + φ)/(λ₁ + c·M)`, and a kept draw adds
//!    `ln(1 − Δᵢ/(λ₁ + φ))` to the log acceptance ratio;
//! 4. otherwise (a full pass would cost less than the expected batch) no draw: every term's
//!    difference is asked for, in chunks `0..N`, and the ratio is the classical
//!    Metropolis–Hastings one, `−Σᵢ Δᵢ` (the choice depends on M only, which is symmetric in
//!    θ and θ′, so each of the two kernels keeps detailed balance pair by pair and so does the
//!    mixture);
//! 5. one uniform `a`; the proposal is accepted when `a < exp(log r)` with
//!    `log r = −Δ₀ + (the terms' part)`.
//!
//! A REJECT from a callback ends the iteration there (no further draws) and rejects the
//! proposal ([`Outcome::OutOfDomain`]); a non-finite difference, or a non-finite `λ + L`, ends it
//! as a divergence ([`Outcome::Divergent`]); an ABORT or a difference past the bound returns the
//! error with the chain exactly as before the call, its generator included.
//!
//! Memory: a workspace of [`Tunamh::workspace_len`]`(d)` = 2·d coordinates (θ, θ′) and
//! [`CHUNK`] indices, uniforms and differences on the stack.

use crate::chain::{chain_kind, check_start, Chain, ChainStep};
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::noise::sweep;
use crate::rng::Rng;
use crate::run::{Outcome, StepInfo};

/// Terms whose differences the model computes per callback: the chunk TunaMH draws before
/// asking (and the chunk of a full pass).
pub const CHUNK: usize = 32;

/// The relative slack on the declared bound: a difference up to `(1 + 10⁻⁹)·c·M` is taken as
/// rounding (and clamped to the bound), past it the step is refused.
const BOUND_SLACK: f64 = 1e-9;

/// A target `π(θ) ∝ exp(−U₀(θ) − Σᵢ Uᵢ(θ))` as TunaMH asks for it: energy differences between
/// the chain's point θ and the proposal θ′.
pub trait Terms<T: Float> {
    /// `out[j] = U_{indices[j]}(proposal) − U_{indices[j]}(theta)` for every j (the indices are
    /// below the configuration's `terms`; `out.len() == indices.len()`, at most [`CHUNK`]). Each
    /// difference must stay within `bound·‖proposal − theta‖₂`.
    fn differences(
        &mut self,
        theta: &[T],
        proposal: &[T],
        indices: &[u64],
        out: &mut [f64],
    ) -> Result<(), Stop>;

    /// `U₀(proposal) − U₀(theta)`: the part of the energy evaluated in full at every step (a
    /// prior); `Ok(0.0)` when there is none.
    fn exact_difference(&mut self, theta: &[T], proposal: &[T]) -> Result<f64, Stop>;
}

impl<T: Float, M: Terms<T> + ?Sized> Terms<T> for &mut M {
    fn differences(
        &mut self,
        theta: &[T],
        proposal: &[T],
        indices: &[u64],
        out: &mut [f64],
    ) -> Result<(), Stop> {
        (**self).differences(theta, proposal, indices, out)
    }
    fn exact_difference(&mut self, theta: &[T], proposal: &[T]) -> Result<f64, Stop> {
        (**self).exact_difference(theta, proposal)
    }
}

/// Hyperparameters of a TunaMH chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TunamhConfig {
    /// The random-walk proposal's standard deviation σ > 0: `θ′ = θ + σ·z`.
    pub step_size: f64,
    /// The number of terms N ≥ 1.
    pub terms: u64,
    /// The per-term bound c > 0: `|Uᵢ(θ′) − Uᵢ(θ)| ≤ c·‖θ′ − θ‖₂` for every term and pair.
    pub bound: f64,
    /// The batch constant χ > 0: `λ = χ·L²`. Larger χ: bigger batches (expected `χ·L² + L`
    /// terms per step, L = c·N·‖θ′ − θ‖₂), an acceptance rate closer to full-data
    /// Metropolis–Hastings.
    pub chi: f64,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id.
    pub stream: u64,
}

impl TunamhConfig {
    /// Step size σ, N terms with bound c, χ = [`DEFAULT_CHI`](Self::DEFAULT_CHI), seed 0,
    /// stream 0.
    pub const fn new(step_size: f64, terms: u64, bound: f64) -> Self {
        TunamhConfig {
            step_size,
            terms,
            bound,
            chi: Self::DEFAULT_CHI,
            seed: 0,
            stream: 0,
        }
    }

    /// The default batch constant χ (docs/algorithms.md §7 for how it was chosen).
    pub const DEFAULT_CHI: f64 = 1.0;

    /// Checks every hyperparameter: the step size ([`Error::InvalidStepSize`]), then N, c and χ
    /// ([`Error::InvalidBound`]).
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.step_size.is_finite() && self.step_size > 0.0) {
            return Err(Error::InvalidStepSize);
        }
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if self.terms == 0 || !positive(self.bound) || !positive(self.chi) {
            return Err(Error::InvalidBound);
        }
        Ok(())
    }

    /// [`validate`](Self::validate), then the step size also after rounding to `T`.
    pub fn validate_in<T: Float>(&self) -> Result<(), Error> {
        self.validate()?;
        if !crate::float::positive_in::<T>(self.step_size) {
            return Err(Error::InvalidStepSize);
        }
        Ok(())
    }
}

/// What one TunaMH iteration did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TunamhInfo {
    /// [`Outcome::Accepted`], [`Outcome::Rejected`], [`Outcome::OutOfDomain`] (a callback said
    /// REJECT) or [`Outcome::Divergent`].
    pub outcome: Outcome,
    /// `outcome == Accepted`.
    pub accepted: bool,
    /// The log acceptance ratio log r (NaN when the iteration ended before it was complete).
    pub log_ratio: f64,
    /// The term differences this iteration asked the model for (the Poisson batch size B, or N
    /// for a full pass).
    pub evaluations: u64,
    /// Of those, the ones kept in the ratio (all of them in a full pass).
    pub kept: u64,
    /// `true` when the iteration used the full pass (step 4 of the module docs).
    pub full_pass: bool,
    /// Outer iterations done since `new`, this one included.
    pub iteration: u64,
    /// Divergent iterations since `new`.
    pub divergences: u64,
}

impl StepInfo for TunamhInfo {
    fn outcome(&self) -> Outcome {
        self.outcome
    }
}

/// The plain-data state of a TunaMH chain (everything but the workspace). Used through
/// [`Tunamh`].
#[derive(Clone, Debug)]
pub struct TunamhCore {
    d: usize,
    cfg: TunamhConfig,
    rng: Rng,
    iterations: u64,
    divergences: u64,
    accepted: u64,
    evaluations: u64,
}

#[cfg(feature = "ffi")]
crate::wire::wire_struct!(TunamhConfig {
    step_size,
    terms,
    bound,
    chi,
    seed,
    stream
});
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(TunamhCore {
    d,
    cfg,
    rng,
    iterations,
    divergences,
    accepted,
    evaluations
});

const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(2)
}

/// How the terms' part of one iteration ended.
enum Part {
    Done {
        log: f64,
        evaluations: u64,
        kept: u64,
    },
    Rejected {
        evaluations: u64,
    },
    Divergent {
        evaluations: u64,
    },
}

/// The chunked loop both passes share: `fill` writes up to [`CHUNK`] indices (and whatever it
/// keeps beside them) and returns how many; the model's differences are checked against the
/// bound `m = c·M` and handed to `use_diff(j, Δ)`.
struct Pass<'a, T, Mo: ?Sized> {
    model: &'a mut Mo,
    theta: &'a [T],
    proposal: &'a [T],
    m: f64,
}

impl<T: Float, Mo: Terms<T> + ?Sized> Pass<'_, T, Mo> {
    /// The differences of `idx`, each checked: `Ok(None)` for a REJECT, `Ok(Some(false))` for a
    /// non-finite one, `Err` for an ABORT or a bound exceeded.
    fn chunk(&mut self, idx: &[u64], out: &mut [f64]) -> Result<Option<bool>, Error> {
        match self.model.differences(self.theta, self.proposal, idx, out) {
            Ok(()) => {}
            Err(Stop::Reject) => return Ok(None),
            Err(Stop::Abort) => return Err(Error::CallbackAborted),
        }
        let limit = self.m * (1.0 + BOUND_SLACK);
        for &delta in out.iter() {
            if !delta.is_finite() {
                return Ok(Some(false));
            }
            if libm::fabs(delta) > limit {
                return Err(Error::BoundExceeded);
            }
        }
        Ok(Some(true))
    }
}

impl TunamhCore {
    fn iterations(&self) -> u64 {
        self.iterations
    }

    fn divergences(&self) -> u64 {
        self.divergences
    }

    /// Proposals accepted since `new`.
    pub(crate) fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Term differences asked for since `new`.
    pub(crate) fn evaluations(&self) -> u64 {
        self.evaluations
    }

    fn new<T: Float>(cfg: &TunamhConfig, theta0: &[T], ws: &mut [T]) -> Result<Self, Error> {
        let d = check_start(theta0, ws.len(), 2, cfg.validate_in::<T>())?;
        copy(ws.get_mut(..d).ok_or(Error::WorkspaceTooSmall)?, theta0);
        Ok(TunamhCore {
            d,
            cfg: *cfg,
            rng: Rng::new(cfg.seed, cfg.stream),
            iterations: 0,
            divergences: 0,
            accepted: 0,
            evaluations: 0,
        })
    }

    fn step<T: Float, Mo: Terms<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut Mo,
    ) -> Result<TunamhInfo, Error> {
        let d = self.d;
        let (theta, rest) = ws.split_at_mut_checked(d).ok_or(Error::WorkspaceTooSmall)?;
        let proposal = rest.get_mut(..d).ok_or(Error::WorkspaceTooSmall)?;
        let saved = self.rng.clone();
        let result = self.iterate(theta, proposal, model);
        if result.is_err() {
            self.rng = saved;
        }
        let (outcome, log_ratio, evaluations, kept, full_pass) = result?;
        if outcome == Outcome::Accepted {
            copy(theta, proposal);
            self.accepted += 1;
        }
        self.iterations += 1;
        self.divergences += (outcome == Outcome::Divergent) as u64;
        self.evaluations = self.evaluations.saturating_add(evaluations);
        Ok(TunamhInfo {
            outcome,
            accepted: outcome == Outcome::Accepted,
            log_ratio,
            evaluations,
            kept,
            full_pass,
            iteration: self.iterations,
            divergences: self.divergences,
        })
    }

    /// One iteration up to the decision; touches nothing of the chain but the generator and the
    /// proposal block (the caller restores the generator on `Err`).
    #[allow(clippy::type_complexity)]
    fn iterate<T: Float, Mo: Terms<T> + ?Sized>(
        &mut self,
        theta: &[T],
        proposal: &mut [T],
        model: &mut Mo,
    ) -> Result<(Outcome, f64, u64, u64, bool), Error> {
        let sd = T::from_f64(self.cfg.step_size);
        sweep(
            &mut self.rng,
            true,
            proposal.iter_mut().zip(theta.iter()),
            |(p, &x), z: Option<T>| *p = x + sd * z.unwrap_or(T::ZERO),
        );
        if !all_finite(proposal) {
            return Ok((Outcome::Divergent, f64::NAN, 0, 0, false));
        }
        // ‖θ′ − θ‖₂ of the rounded coordinates, summed in index order.
        let mut sq = 0.0;
        for (p, x) in proposal.iter().zip(theta.iter()) {
            let diff = p.to_f64() - x.to_f64();
            sq += diff * diff;
        }
        let dist = libm::sqrt(sq);
        let n = self.cfg.terms as f64;
        let m = self.cfg.bound * dist;
        let l = m * n;
        let lambda = self.cfg.chi * l * l;
        let mean = lambda + l;
        if !mean.is_finite() {
            return Ok((Outcome::Divergent, f64::NAN, 0, 0, false));
        }
        let delta0 = match model.exact_difference(theta, proposal) {
            Ok(v) => v,
            Err(Stop::Reject) => return Ok((Outcome::OutOfDomain, f64::NAN, 0, 0, false)),
            Err(Stop::Abort) => return Err(Error::CallbackAborted),
        };
        if !delta0.is_finite() {
            return Ok((Outcome::Divergent, f64::NAN, 0, 0, false));
        }
        let mut pass = Pass {
            model,
            theta,
            proposal,
            m,
        };
        let full = mean >= n;
        let part = if full {
            full_pass(&mut pass, self.cfg.terms)?
        } else {
            let batch = crate::poisson::poisson(&mut self.rng, mean);
            minibatch_pass(&mut pass, &mut self.rng, batch, self.cfg.terms, lambda / n)?
        };
        let (log, evaluations, kept) = match part {
            Part::Done {
                log,
                evaluations,
                kept,
            } => (log - delta0, evaluations, kept),
            Part::Rejected { evaluations } => {
                return Ok((Outcome::OutOfDomain, f64::NAN, evaluations, 0, full))
            }
            Part::Divergent { evaluations } => {
                return Ok((Outcome::Divergent, f64::NAN, evaluations, 0, full))
            }
        };
        let a = self.rng.uniform_f64();
        let outcome = if log >= 0.0 || a < libm::exp(log) {
            Outcome::Accepted
        } else {
            Outcome::Rejected
        };
        Ok((outcome, log, evaluations, kept, full))
    }
}

/// Step 4 of the module docs: every term, in chunks, the classical ratio `−Σ Δᵢ` (summed in
/// index order).
fn full_pass<T: Float, Mo: Terms<T> + ?Sized>(
    pass: &mut Pass<'_, T, Mo>,
    terms: u64,
) -> Result<Part, Error> {
    let mut idx = [0u64; CHUNK];
    let mut out = [0.0f64; CHUNK];
    let mut log = 0.0;
    let mut next = 0u64;
    while next < terms {
        let k = core::cmp::min(CHUNK as u64, terms - next) as usize;
        for (j, slot) in idx[..k].iter_mut().enumerate() {
            *slot = next + j as u64;
        }
        next += k as u64;
        match pass.chunk(&idx[..k], &mut out[..k])? {
            None => return Ok(Part::Rejected { evaluations: next }),
            Some(false) => return Ok(Part::Divergent { evaluations: next }),
            Some(true) => {}
        }
        for &delta in &out[..k] {
            log -= delta;
        }
    }
    Ok(Part::Done {
        log,
        evaluations: terms,
        kept: terms,
    })
}

/// Step 3 of the module docs: B draws of (term, uniform), chunk by chunk.
// `f64::clamp` asserts min ≤ max: a panic path (with float formatting, 12 KiB on Cortex-M) in
// the C library for bounds that are finite here, where max/min give the same result.
#[allow(clippy::manual_clamp)]
fn minibatch_pass<T: Float, Mo: Terms<T> + ?Sized>(
    pass: &mut Pass<'_, T, Mo>,
    rng: &mut Rng,
    batch: u64,
    terms: u64,
    lambda1: f64,
) -> Result<Part, Error> {
    let mut idx = [0u64; CHUNK];
    let mut uni = [0.0f64; CHUNK];
    let mut out = [0.0f64; CHUNK];
    let m = pass.m;
    let (mut log, mut kept, mut done) = (0.0, 0u64, 0u64);
    while done < batch {
        let k = core::cmp::min(CHUNK as u64, batch - done) as usize;
        for (i, u) in idx[..k].iter_mut().zip(uni[..k].iter_mut()) {
            *i = rng.below(terms);
            *u = rng.uniform_f64();
        }
        done += k as u64;
        match pass.chunk(&idx[..k], &mut out[..k])? {
            None => return Ok(Part::Rejected { evaluations: done }),
            Some(false) => return Ok(Part::Divergent { evaluations: done }),
            Some(true) => {}
        }
        for (&delta, &u) in out[..k].iter().zip(uni[..k].iter()) {
            // Within the slack, a difference past the bound is rounding: clamp it (not
            // `f64::clamp`, which has a panic path for bounds it cannot prove ordered).
            let delta = delta.max(-m).min(m);
            let phi = 0.5 * (delta + m);
            let base = lambda1 + phi;
            if u * (lambda1 + m) < base {
                kept += 1;
                log += libm::log1p(-delta / base);
            }
        }
    }
    Ok(Part::Done {
        log,
        evaluations: batch,
        kept,
    })
}

chain_kind!(TunamhCore, TunamhConfig, TunamhInfo, workspace_len);

impl<T: Float, Mo: Terms<T> + ?Sized> ChainStep<T, Mo> for TunamhCore {
    fn start(
        cfg: &TunamhConfig,
        theta0: &[T],
        ws: &mut [T],
        _model: &mut Mo,
    ) -> Result<Self, Error> {
        TunamhCore::new(cfg, theta0, ws)
    }
    fn step(&mut self, ws: &mut [T], model: &mut Mo) -> Result<TunamhInfo, Error> {
        TunamhCore::step(self, ws, model)
    }
}

/// A TunaMH chain over a caller-supplied workspace (a [`Chain`]: `step`, `run`, `position`,
/// `iterations`, `divergences` and `config` are documented there).
///
/// ```
/// use sgsample::tunamh::{Terms, Tunamh, TunamhConfig};
/// use sgsample::Stop;
/// // N Laplace terms |yᵢ − θ| (each 1-Lipschitz in θ: bound 1) and a N(0, 10²) prior.
/// struct Laplace<'a>(&'a [f64]);
/// impl Terms<f64> for Laplace<'_> {
///     fn differences(&mut self, t: &[f64], p: &[f64], idx: &[u64], out: &mut [f64])
///         -> Result<(), Stop> {
///         for (o, &i) in out.iter_mut().zip(idx) {
///             let y = self.0[i as usize];
///             *o = (y - p[0]).abs() - (y - t[0]).abs();
///         }
///         Ok(())
///     }
///     fn exact_difference(&mut self, t: &[f64], p: &[f64]) -> Result<f64, Stop> {
///         Ok((p[0] * p[0] - t[0] * t[0]) / 200.0)
///     }
/// }
/// let data = [0.3, -1.2, 0.8, 2.0, 0.1];
/// let mut ws = [0.0; 2];
/// let cfg = TunamhConfig::new(0.5, data.len() as u64, 1.0);
/// let mut chain = Tunamh::new(&cfg, &[0.0], &mut ws)?;
/// let mut samples = [0.0; 1000];
/// let summary = chain.run(&mut Laplace(&data), &mut samples).map_err(|e| e.error)?;
/// assert_eq!(summary.iterations, 1000);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub type Tunamh<'a, T> = Chain<'a, T, TunamhCore>;

impl<'a, T: Float> Chain<'a, T, TunamhCore> {
    /// Workspace length for dimension `d`: 2·d (θ and the proposal).
    pub const fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }

    /// Validates and starts the chain at θ₀ (dimension `theta0.len()`; the workspace needs 2·d
    /// coordinates, it may be longer). Draws nothing.
    pub fn new(config: &TunamhConfig, theta0: &[T], workspace: &'a mut [T]) -> Result<Self, Error> {
        let core = TunamhCore::new(config, theta0, workspace)?;
        Ok(Chain {
            core,
            ws: workspace,
        })
    }

    /// Proposals accepted since `new`.
    pub fn accepted(&self) -> u64 {
        self.core.accepted()
    }

    /// Term differences the chain has asked the model for since `new` (what a data-point
    /// budget counts).
    pub fn evaluations(&self) -> u64 {
        self.core.evaluations()
    }
}
