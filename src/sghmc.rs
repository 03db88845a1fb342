//! SGHMC, the baseline without Metropolis–Hastings correction (Chen, Fox & Guestrin 2014, in the
//! form of the AMAGOLD paper's Algorithm 1). Biased at any finite step size; shipped because users
//! compare AMAGOLD against it.
//!
//! # Arithmetic and draw order
//!
//! Coefficients in `f64`, rounded once to `T`: `full = ε/(σ·σ)`, `c = 2·ε·β`, `sd = √(4·ε·β)·σ`.
//! Per inner step, per coordinate: `θ = θ + full·r`, then `r = ((r − ε·g) − c·r) + sd·z`.
//! Draws per outer iteration: `d` momentum normals if `resample_momentum`; then per inner step the
//! minibatch seed and `d` noise normals (none when β = 0). Without resampling, `new` draws the
//! initial momentum (`d` normals).
//!
//! Memory: a workspace of [`Sghmc::workspace_len`]`(d) = 5·d` coordinates.

use crate::chain::{
    chain_kind, check_start, gradient_chain, gradient_or_rollback, Chain, ChainInfo, Counters,
};
use crate::error::Error;
use crate::float::{add_scaled, all_finite, copy, Float};
use crate::model::Gradient;
use crate::noise::sweep;
use crate::rng::Rng;

/// Hyperparameters of an SGHMC chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SghmcConfig {
    /// Step size ε > 0.
    pub step_size: f64,
    /// Friction β ≥ 0 with ε·β < 1 (beyond that the momentum update is unstable).
    pub friction: f64,
    /// Momentum standard deviation σ > 0.
    pub momentum_sd: f64,
    /// Inner steps T ≥ 1 per stored sample.
    pub steps: u32,
    /// Draw a fresh momentum at the start of every outer iteration.
    pub resample_momentum: bool,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id.
    pub stream: u64,
}

impl SghmcConfig {
    /// The AMAGOLD paper's settings at step size ε: T = 10, β = 0.25, σ = 1, momentum resampled.
    pub const fn new(step_size: f64) -> Self {
        SghmcConfig {
            step_size,
            friction: 0.25,
            momentum_sd: 1.0,
            steps: 10,
            resample_momentum: true,
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

    /// Checks every hyperparameter.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.step_size.is_finite() && self.step_size > 0.0) {
            return Err(Error::InvalidStepSize);
        }
        if !(self.friction.is_finite() && self.friction >= 0.0)
            || self.step_size * self.friction >= 1.0
        {
            return Err(Error::InvalidFriction);
        }
        if !(self.momentum_sd.is_finite() && self.momentum_sd > 0.0) {
            return Err(Error::InvalidMomentumScale);
        }
        if self.steps == 0 {
            return Err(Error::InvalidSteps);
        }
        Ok(())
    }
}

/// What one SGHMC outer iteration did.
pub type SghmcInfo = ChainInfo;

/// The plain-data state of an SGHMC chain (everything but the workspace). Used through
/// [`Sghmc`].
#[derive(Clone, Debug)]
pub struct SghmcCore {
    d: usize,
    cfg: SghmcConfig,
    rng: Rng,
    counters: Counters,
}

pub(crate) const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(5)
}

/// θ, θ (working), r, r (working), g; `None` if the workspace is shorter than 5·d.
#[allow(clippy::type_complexity)]
fn parts<T>(ws: &mut [T], d: usize) -> Option<(&mut [T], &mut [T], &mut [T], &mut [T], &mut [T])> {
    let (theta, rest) = ws.split_at_mut_checked(d)?;
    let (tw, rest) = rest.split_at_mut_checked(d)?;
    let (r, rest) = rest.split_at_mut_checked(d)?;
    let (rw, rest) = rest.split_at_mut_checked(d)?;
    let (g, _) = rest.split_at_mut_checked(d)?;
    Some((theta, tw, r, rw, g))
}

impl SghmcCore {
    fn iterations(&self) -> u64 {
        self.counters.iterations
    }

    fn divergences(&self) -> u64 {
        self.counters.divergences
    }

    pub(crate) fn new<T: Float>(
        cfg: &SghmcConfig,
        theta0: &[T],
        ws: &mut [T],
    ) -> Result<Self, Error> {
        let d = check_start(theta0, ws.len(), 5, cfg.validate_in::<T>())?;
        let mut rng = Rng::new(cfg.seed, cfg.stream);
        let (theta, _, r, _, _) = parts(ws, d).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        let sigma = T::from_f64(cfg.momentum_sd);
        for ri in r.iter_mut() {
            *ri = if cfg.resample_momentum {
                T::ZERO
            } else {
                sigma * rng.normal_as::<T>()
            };
        }
        Ok(SghmcCore {
            d,
            cfg: *cfg,
            rng,
            counters: Counters::default(),
        })
    }

    pub(crate) fn step<T: Float, G: Gradient<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut G,
    ) -> Result<SghmcInfo, Error> {
        let (theta, tw, r, rw, g) = parts(ws, self.d).ok_or(Error::WorkspaceTooSmall)?;
        let saved_rng = self.rng.clone();
        let cfg = &self.cfg;
        let eps = cfg.step_size;
        let full = T::from_f64(eps / (cfg.momentum_sd * cfg.momentum_sd));
        let c = T::from_f64(2.0 * eps * cfg.friction);
        let sd = T::from_f64(libm::sqrt(4.0 * eps * cfg.friction) * cfg.momentum_sd);
        let eps_t = T::from_f64(eps);
        let noisy = cfg.friction > 0.0;
        let momentum = |ri: T, gi: T, z: Option<T>| {
            let eta = match z {
                Some(z) => sd * z,
                None => T::ZERO,
            };
            ((ri - eps_t * gi) - c * ri) + eta
        };

        copy(tw, theta);
        if cfg.resample_momentum {
            let sigma = T::from_f64(cfg.momentum_sd);
            for x in rw.iter_mut() {
                *x = sigma * self.rng.normal_as::<T>();
            }
        } else {
            copy(rw, r);
        }
        let mut rejected = false;
        // Step t's position update `θ = θ + full·r` is done for t = 0 here and for t ≥ 1 in step
        // t − 1's sweep, right after that coordinate's new r: the same operations on the same
        // values (the gradient of step t still sees the whole updated θ), one pass over θ and r
        // per inner step instead of two. After the last step θ is not moved.
        add_scaled(tw, full, rw);
        for t in 0..cfg.steps {
            let seed = self.rng.next_u64();
            if !gradient_or_rollback(model, tw, seed, g, &mut self.rng, &saved_rng)? {
                rejected = true;
                break;
            }
            let items = rw.iter_mut().zip(g.iter()).zip(tw.iter_mut());
            if t + 1 < cfg.steps {
                sweep(&mut self.rng, noisy, items, |((ri, &gi), ti), z| {
                    *ri = momentum(*ri, gi, z);
                    *ti += full * *ri;
                });
            } else {
                sweep(&mut self.rng, noisy, items, |((ri, &gi), _), z| {
                    *ri = momentum(*ri, gi, z);
                });
            }
        }
        let finite = all_finite(tw) && all_finite(rw);
        Ok(self.counters.finish(rejected, finite, || {
            copy(theta, tw);
            copy(r, rw);
        }))
    }
}

chain_kind!(SghmcCore, SghmcConfig, ChainInfo, workspace_len);

gradient_chain!(SghmcCore, SghmcConfig, 5);

/// An SGHMC chain over a caller-supplied workspace (a [`Chain`]: `step`, `run`, `position`,
/// `iterations`, `divergences`, `config` and `workspace_len` are documented there).
///
/// ```
/// use sgsample::{Outcome, Sghmc, SghmcConfig, Stop};
/// struct Normal;
/// impl sgsample::Gradient<f64> for Normal {
///     fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
///         g.copy_from_slice(x);
///         Ok(())
///     }
/// }
/// let mut ws = [0.0; 5];
/// let mut chain = Sghmc::new(&SghmcConfig::new(0.1), &[0.0], &mut ws)?;
/// let info = chain.step(&mut Normal)?;
/// assert_eq!(info.outcome, Outcome::Accepted);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub type Sghmc<'a, T> = Chain<'a, T, SghmcCore>;

impl<'a, T: Float> Chain<'a, T, SghmcCore> {
    /// The current momentum r.
    pub fn momentum(&self) -> &[T] {
        self.block(2)
    }
}
