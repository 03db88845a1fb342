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

use crate::chain::{
    chain_kind, check_start, gradient_chain, gradient_or_rollback, Chain, ChainInfo, Counters,
};
use crate::error::Error;
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;
use crate::noise::sweep;
use crate::rng::Rng;

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

    /// [`validate`](Self::validate), then the step size also after rounding to the chain's
    /// coordinate type `T` (finite and positive there too: [`Error::InvalidStepSize`]). What a
    /// chain of `T` checks.
    pub fn validate_in<T: Float>(&self) -> Result<(), Error> {
        self.validate()?;
        if !crate::float::positive_in::<T>(self.step_size) {
            return Err(Error::InvalidStepSize);
        }
        Ok(())
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

/// The plain-data state of an SGLD chain (everything but the workspace). Used through [`Sgld`].
#[derive(Clone, Debug)]
pub struct SgldCore {
    d: usize,
    cfg: SgldConfig,
    rng: Rng,
    counters: Counters,
}

/// What one SGLD outer iteration did.
pub type SgldInfo = ChainInfo;

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
    fn iterations(&self) -> u64 {
        self.counters.iterations
    }

    fn divergences(&self) -> u64 {
        self.counters.divergences
    }

    fn new<T: Float>(cfg: &SgldConfig, theta0: &[T], ws: &mut [T]) -> Result<Self, Error> {
        let d = check_start(theta0, ws.len(), 3, cfg.validate_in::<T>())?;
        let (theta, _, _) = parts(ws, d).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        Ok(SgldCore {
            d,
            cfg: *cfg,
            rng: Rng::new(cfg.seed, cfg.stream),
            counters: Counters::default(),
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
            if !gradient_or_rollback(model, tw, seed, g, &mut self.rng, &saved_rng)? {
                rejected = true;
                break;
            }
            sweep(
                &mut self.rng,
                true,
                tw.iter_mut().zip(g.iter()),
                |(x, &gi), z: Option<T>| {
                    *x = (*x - half * gi) + sd * z.unwrap_or(T::ZERO);
                },
            );
        }
        let finite = all_finite(tw);
        Ok(self.counters.finish(rejected, finite, || copy(theta, tw)))
    }
}

chain_kind!(SgldCore, SgldConfig, ChainInfo, workspace_len);

gradient_chain!(SgldCore, SgldConfig, 3);

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
