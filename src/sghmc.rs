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

use crate::error::{Error, Stop};
use crate::float::{add_scaled, all_finite, copy, Float};
use crate::model::Gradient;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SghmcInfo {
    /// The gradient callback rejected a point of the trajectory: the iteration was discarded and
    /// the chain stayed where it was (the generator moved on).
    pub rejected: bool,
    /// Outer iterations done, this one included.
    pub iteration: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct SghmcCore {
    pub(crate) d: usize,
    cfg: SghmcConfig,
    rng: Rng,
    iterations: u64,
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
    pub(crate) fn new<T: Float>(
        cfg: &SghmcConfig,
        theta0: &[T],
        ws: &mut [T],
    ) -> Result<Self, Error> {
        let d = theta0.len();
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        match d.checked_mul(5) {
            Some(n) if ws.len() >= n => {}
            _ => return Err(Error::WorkspaceTooSmall),
        }
        cfg.validate()?;
        if !all_finite(theta0) {
            return Err(Error::InvalidPosition);
        }
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
            iterations: 0,
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
        for _ in 0..cfg.steps {
            add_scaled(tw, full, rw);
            let seed = self.rng.next_u64();
            match model.gradient(tw, seed, g) {
                Ok(()) => {}
                Err(Stop::Reject) => {
                    rejected = true;
                    break;
                }
                Err(Stop::Abort) => {
                    self.rng = saved_rng;
                    return Err(Error::CallbackAborted);
                }
            }
            for (ri, &gi) in rw.iter_mut().zip(g.iter()) {
                let eta = if noisy {
                    sd * self.rng.normal_as::<T>()
                } else {
                    T::ZERO
                };
                *ri = ((*ri - eps_t * gi) - c * *ri) + eta;
            }
        }
        if !rejected {
            copy(theta, tw);
            copy(r, rw);
        }
        self.iterations += 1;
        Ok(SghmcInfo {
            rejected,
            iteration: self.iterations,
        })
    }

    pub(crate) fn run<T: Float, G: Gradient<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut G,
        out: &mut [T],
    ) -> Result<usize, crate::RunError> {
        let d = self.d;
        if !out.len().is_multiple_of(d) {
            return Err(crate::RunError {
                error: Error::LengthMismatch,
                completed: 0,
            });
        }
        let mut rejected = 0;
        for (k, row) in out.chunks_exact_mut(d).enumerate() {
            let info = self.step(ws, model).map_err(|error| crate::RunError {
                error,
                completed: k,
            })?;
            rejected += info.rejected as usize;
            copy(row, ws);
        }
        Ok(rejected)
    }

    pub(crate) fn iterations(&self) -> u64 {
        self.iterations
    }
}

/// An SGHMC chain over a caller-supplied workspace.
///
/// ```
/// use sgsample::{Sghmc, SghmcConfig, Stop};
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
/// assert!(!info.rejected);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub struct Sghmc<'a, T: Float> {
    core: SghmcCore,
    ws: &'a mut [T],
}

impl<'a, T: Float> Sghmc<'a, T> {
    /// Workspace length for dimension `d`: `5·d`.
    pub const fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }

    /// Validates and starts the chain at θ₀ (dimension `theta0.len()`).
    pub fn new(config: &SghmcConfig, theta0: &[T], workspace: &'a mut [T]) -> Result<Self, Error> {
        let core = SghmcCore::new(config, theta0, workspace)?;
        Ok(Sghmc {
            core,
            ws: workspace,
        })
    }

    /// One outer iteration (T inner steps). On `Err` the chain is unchanged, generator included.
    pub fn step<G: Gradient<T> + ?Sized>(&mut self, model: &mut G) -> Result<SghmcInfo, Error> {
        self.core.step(self.ws, model)
    }

    /// Fills `out` with `out.len() / d` successive states; returns how many iterations were
    /// discarded because the gradient callback rejected a point.
    pub fn run<G: Gradient<T> + ?Sized>(
        &mut self,
        model: &mut G,
        out: &mut [T],
    ) -> Result<usize, crate::RunError> {
        self.core.run(self.ws, model, out)
    }

    /// The current state θ.
    pub fn position(&self) -> &[T] {
        &self.ws[..self.core.d]
    }

    /// The current momentum r.
    pub fn momentum(&self) -> &[T] {
        &self.ws[2 * self.core.d..3 * self.core.d]
    }

    /// Outer iterations done.
    pub fn iterations(&self) -> u64 {
        self.core.iterations()
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.core.d
    }
}
