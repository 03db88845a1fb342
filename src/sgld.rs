//! SGLD, stochastic-gradient Langevin dynamics (Welling & Teh 2011): the simplest SG-MCMC
//! baseline, `θ ← θ − (ε/2)·∇Ũ(θ) + N(0, ε·I)`. Biased at any finite step size (no
//! Metropolis–Hastings correction); shipped because users compare against it
//! (docs/algorithms.md §1.4).
//!
//! # Arithmetic and draw order
//!
//! Coefficients in `f64`, rounded once to `T`: `half = ε/2`, `sd = √ε`. One outer iteration is
//! `T` updates (one stored sample per `T`; `T = 1` is plain SGLD). Per update: draw the minibatch
//! seed ([`Rng::next_u64`]), call the gradient, then draw `d` normals in index order and set per
//! coordinate `θ = (θ − half·g) + sd·z`. A gradient REJECT ends the iteration there (the rest
//! draws nothing) and discards it; a non-finite gradient or position discards it as a
//! divergence. Either way the chain stays where it was.
//!
//! Memory: a workspace of [`Sgld::workspace_len`]`(d) = 3·d` coordinates.

use crate::chain::{Chain, ChainInfo, ChainKind, ChainStep, Sealed};
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;
use crate::rng::Rng;
use crate::run::Outcome;

/// Hyperparameters of an SGLD chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgldConfig {
    /// Step size ε > 0 (the noise variance per update; the drift is ε/2 times the gradient).
    pub step_size: f64,
    /// Updates T ≥ 1 per stored sample (thinning).
    pub steps: u32,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id.
    pub stream: u64,
}

impl SgldConfig {
    /// Step size ε, one update per sample, seed 0, stream 0.
    pub const fn new(step_size: f64) -> Self {
        SgldConfig {
            step_size,
            steps: 1,
            seed: 0,
            stream: 0,
        }
    }

    /// Checks every hyperparameter.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.step_size.is_finite() && self.step_size > 0.0) {
            return Err(Error::InvalidStepSize);
        }
        if self.steps == 0 {
            return Err(Error::InvalidSteps);
        }
        Ok(())
    }
}

/// What one SGLD outer iteration did.
pub type SgldInfo = ChainInfo;

/// The plain-data state of an SGLD chain (everything but the workspace). Used through [`Sgld`].
#[derive(Clone, Debug)]
pub struct SgldCore {
    d: usize,
    cfg: SgldConfig,
    rng: Rng,
    iterations: u64,
    divergences: u64,
}

const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(3)
}

/// θ, θ (working), g; `None` if the workspace is shorter than 3·d.
fn parts<T>(ws: &mut [T], d: usize) -> Option<(&mut [T], &mut [T], &mut [T])> {
    let (theta, rest) = ws.split_at_mut_checked(d)?;
    let (tw, rest) = rest.split_at_mut_checked(d)?;
    let (g, _) = rest.split_at_mut_checked(d)?;
    Some((theta, tw, g))
}

impl SgldCore {
    fn new<T: Float>(cfg: &SgldConfig, theta0: &[T], ws: &mut [T]) -> Result<Self, Error> {
        let d = theta0.len();
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        match d.checked_mul(3) {
            Some(n) if ws.len() >= n => {}
            _ => return Err(Error::WorkspaceTooSmall),
        }
        cfg.validate()?;
        if !all_finite(theta0) {
            return Err(Error::InvalidPosition);
        }
        let (theta, _, _) = parts(ws, d).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        Ok(SgldCore {
            d,
            cfg: *cfg,
            rng: Rng::new(cfg.seed, cfg.stream),
            iterations: 0,
            divergences: 0,
        })
    }

    fn step<T: Float, G: Gradient<T> + ?Sized>(
        &mut self,
        ws: &mut [T],
        model: &mut G,
    ) -> Result<ChainInfo, Error> {
        let (theta, tw, g) = parts(ws, self.d).ok_or(Error::WorkspaceTooSmall)?;
        let saved_rng = self.rng.clone();
        let eps = self.cfg.step_size;
        let half = T::from_f64(eps / 2.0);
        let sd = T::from_f64(libm::sqrt(eps));
        copy(tw, theta);
        let mut rejected = false;
        for _ in 0..self.cfg.steps {
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
            for (x, &gi) in tw.iter_mut().zip(g.iter()) {
                *x = (*x - half * gi) + sd * self.rng.normal_as::<T>();
            }
        }
        let outcome = if rejected {
            Outcome::OutOfDomain
        } else if !all_finite(tw) {
            Outcome::Divergent
        } else {
            copy(theta, tw);
            Outcome::Accepted
        };
        self.iterations += 1;
        self.divergences += (outcome == Outcome::Divergent) as u64;
        Ok(ChainInfo {
            outcome,
            iteration: self.iterations,
            divergences: self.divergences,
        })
    }
}

impl Sealed for SgldCore {}

impl ChainKind for SgldCore {
    type Config = SgldConfig;
    type Info = ChainInfo;
    fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }
    fn dim(&self) -> usize {
        self.d
    }
    fn iterations(&self) -> u64 {
        self.iterations
    }
    fn divergences(&self) -> u64 {
        self.divergences
    }
    fn config(&self) -> &SgldConfig {
        &self.cfg
    }
}

impl<T: Float, G: Gradient<T> + ?Sized> ChainStep<T, G> for SgldCore {
    fn start(cfg: &SgldConfig, theta0: &[T], ws: &mut [T], _model: &mut G) -> Result<Self, Error> {
        SgldCore::new(cfg, theta0, ws)
    }
    fn step(&mut self, ws: &mut [T], model: &mut G) -> Result<ChainInfo, Error> {
        SgldCore::step(self, ws, model)
    }
}

/// An SGLD chain over a caller-supplied workspace (a [`Chain`]: `step`, `run`, `position`,
/// `iterations`, `divergences`, `config` and `workspace_len` are documented there).
///
/// ```
/// use sgsample::{Gradient, Sgld, SgldConfig, Stop};
/// struct Normal;
/// impl Gradient<f64> for Normal {
///     fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
///         g.copy_from_slice(x);
///         Ok(())
///     }
/// }
/// let mut ws = [0.0; 3 * 2];
/// let mut chain = Sgld::new(&SgldConfig::new(0.1), &[1.0, -1.0], &mut ws)?;
/// let mut samples = [0.0; 2 * 1000];
/// let summary = chain.run(&mut Normal, &mut samples).map_err(|e| e.error)?;
/// assert_eq!(summary.iterations, 1000);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub type Sgld<'a, T> = Chain<'a, T, SgldCore>;

impl<'a, T: Float> Chain<'a, T, SgldCore> {
    /// Workspace length for dimension `d`: `3·d`.
    pub const fn workspace_len(d: usize) -> usize {
        workspace_len(d)
    }

    /// Validates and starts the chain at θ₀ (dimension `theta0.len()`; the workspace needs
    /// `3·d` coordinates).
    pub fn new(config: &SgldConfig, theta0: &[T], workspace: &'a mut [T]) -> Result<Self, Error> {
        let core = SgldCore::new(config, theta0, workspace)?;
        Ok(Chain {
            core,
            ws: workspace,
        })
    }
}
