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
//! coordinate `θ = (θ − (half·kᵢ)·g) + (sd·sᵢ)·z`, where `kᵢ` and `sᵢ = √kᵢ` are the factors of a
//! fixed diagonal preconditioner D = diag(k) ([`SgldConfig::mass`], docs/algorithms.md §1.4):
//! without one, and until one is set, both are exactly 1 and the products are exact, so the
//! stream is that of plain SGLD bit for bit. A gradient REJECT ends the iteration there (the
//! rest draws nothing) and discards it; a non-finite gradient or position discards it as a
//! divergence. Either way the chain stays where it was.
//!
//! Memory: a workspace of [`Sgld::workspace_len_for`]`(config, d)` coordinates: 3·d, 5·d with
//! `Mass::Diagonal` (the factors k and √k).

use crate::amagold::Mass;
use crate::chain::{
    chain_kind, check_start, gradient_chain, gradient_or_rollback, Chain, ChainInfo, Counters,
};
use crate::error::Error;
use crate::float::{all_finite, copy, Float};
use crate::mass::{apply_sqrt_diagonal, valid_inverse_mass, Factors};
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
    /// The preconditioner: `Mass::Unit` (the default: plain SGLD) or `Mass::Diagonal`, a fixed
    /// D = diag(k) with the update `θᵢ ← θᵢ − (ε/2)·kᵢ·gᵢ + √ε·√kᵢ·zᵢ` (docs/algorithms.md
    /// §1.4), the identity until [`Sgld::set_inverse_mass`] sets it; 2·d more workspace
    /// ([`Sgld::workspace_len_for`]). Nothing adapts it. `Mass::Dense` is refused
    /// ([`Error::InvalidOption`]).
    pub mass: Mass,
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
            mass: Mass::Unit,
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

    /// Checks every hyperparameter (`Mass::Dense`: [`Error::InvalidOption`]).
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.step_size.is_finite() && self.step_size > 0.0) {
            return Err(Error::InvalidStepSize);
        }
        if self.steps == 0 {
            return Err(Error::InvalidSteps);
        }
        if self.mass == Mass::Dense {
            return Err(Error::InvalidOption);
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

// The checkpoint encoding (src/wire.rs); the C import validates the configuration as init does.
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(SgldConfig {
    step_size,
    steps,
    mass,
    seed,
    stream
});
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(SgldCore {
    d,
    cfg,
    rng,
    counters
});

/// What one SGLD outer iteration did.
pub type SgldInfo = ChainInfo;

const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(3)
}

/// Workspace coordinates per dimension: 3, and 5 with a diagonal preconditioner (a `Dense`
/// configuration is refused by `validate`).
const fn per_d(mass: Mass) -> usize {
    match mass {
        Mass::Diagonal => 5,
        Mass::Unit | Mass::Dense => 3,
    }
}

/// Workspace coordinates of a chain of dimension `d` started with `cfg` (saturating).
pub(crate) const fn workspace_len_for(cfg: &SgldConfig, d: usize) -> usize {
    d.saturating_mul(per_d(cfg.mass))
}

/// The preconditioner's blocks k and √k.
type Diag<'w, T> = Option<(&'w mut [T], &'w mut [T])>;

/// θ, θ (working), g, then with a diagonal preconditioner k and √k; `None` if the workspace is
/// shorter than the configuration needs.
#[allow(clippy::type_complexity)]
fn parts<T>(
    ws: &mut [T],
    d: usize,
    mass: Mass,
) -> Option<(&mut [T], &mut [T], &mut [T], Diag<'_, T>)> {
    let (theta, rest) = ws.split_at_mut_checked(d)?;
    let (tw, rest) = rest.split_at_mut_checked(d)?;
    let (g, rest) = rest.split_at_mut_checked(d)?;
    let diag = if mass == Mass::Diagonal {
        let (k, rest) = rest.split_at_mut_checked(d)?;
        let (s, _) = rest.split_at_mut_checked(d)?;
        Some((k, s))
    } else {
        None
    };
    Some((theta, tw, g, diag))
}

impl SgldCore {
    fn iterations(&self) -> u64 {
        self.counters.iterations
    }

    fn divergences(&self) -> u64 {
        self.counters.divergences
    }

    /// Workspace coordinates this chain uses.
    fn used_len(&self) -> usize {
        workspace_len_for(&self.cfg, self.d)
    }

    fn new<T: Float>(cfg: &SgldConfig, theta0: &[T], ws: &mut [T]) -> Result<Self, Error> {
        let d = check_start(theta0, ws.len(), per_d(cfg.mass), cfg.validate_in::<T>())?;
        let (theta, _, _, diag) = parts(ws, d, cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        if let Some((k, s)) = diag {
            // The identity until `set_inverse_mass`.
            for x in k.iter_mut().chain(s.iter_mut()) {
                *x = T::from_f64(1.0);
            }
        }
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
        let (theta, tw, g, diag) =
            parts(ws, self.d, self.cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        // The factors kᵢ and √kᵢ (`None`: all exactly 1, plain SGLD bit for bit).
        let (kf, sf) = match &diag {
            Some((k, s)) => (Some(&**k), Some(&**s)),
            None => (None, None),
        };
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
            let factors = Factors::of(kf).zip(Factors::of(sf));
            sweep(
                &mut self.rng,
                true,
                tw.iter_mut().zip(g.iter()).zip(factors),
                |((x, &gi), (ki, si)), z: Option<T>| {
                    *x = (*x - (half * ki) * gi) + (sd * si) * z.unwrap_or(T::ZERO);
                },
            );
        }
        let finite = all_finite(tw);
        Ok(self.counters.finish(rejected, finite, || copy(theta, tw)))
    }

    /// Sets the diagonal preconditioner D = diag(k) (kᵢ and √kᵢ). Checks, in this order:
    /// `LengthMismatch` (not d values), `InvalidMass` ([`valid_inverse_mass`]), `MassMismatch`
    /// (a unit chain). Nothing is written on an error.
    pub(crate) fn set_inverse_mass<T: Float>(
        &mut self,
        ws: &mut [T],
        k: &[T],
    ) -> Result<(), Error> {
        if k.len() != self.d {
            return Err(Error::LengthMismatch);
        }
        if !valid_inverse_mass(k) {
            return Err(Error::InvalidMass);
        }
        let (_, _, _, diag) = parts(ws, self.d, self.cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        let Some((kb, sb)) = diag else {
            return Err(Error::MassMismatch);
        };
        apply_sqrt_diagonal(kb, sb, k);
        Ok(())
    }

    /// The preconditioner's kᵢ into `out` (d values; ones for a unit chain).
    pub(crate) fn inverse_mass_into<T: Float>(&self, ws: &[T], out: &mut [T]) -> Result<(), Error> {
        let d = self.d;
        let diagonal = self.cfg.mass == Mass::Diagonal;
        crate::mass::inverse_mass_into(diagonal, ws, d.saturating_mul(3), d, out)
    }
}

chain_kind!(
    SgldCore,
    SgldConfig,
    ChainInfo,
    workspace_len,
    need = |c: &SgldCore| { c.used_len() },
    len_for = |cfg: &SgldConfig, d: usize| { workspace_len_for(cfg, d) }
);

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

impl<'a, T: Float> Chain<'a, T, SgldCore> {
    /// Workspace length for a chain of dimension `d` started with `config`: 3·d, 5·d with
    /// `Mass::Diagonal` (saturating; `Mass::Dense`, which `new` refuses, counts as unit).
    pub const fn workspace_len_for(config: &SgldConfig, d: usize) -> usize {
        workspace_len_for(config, d)
    }

    /// The preconditioner's diagonal kᵢ (D = diag(k)) into `out` (at least d values): d ones
    /// for a unit chain, and for a `Mass::Diagonal` chain until one is set. `OutputTooSmall`
    /// for a shorter `out`.
    pub fn inverse_mass(&self, out: &mut [T]) -> Result<(), Error> {
        self.core.inverse_mass_into(self.ws, out)
    }

    /// Sets the fixed diagonal preconditioner D = diag(k) of a `Mass::Diagonal` chain: d values
    /// kᵢ (e.g. posterior variances learnt elsewhere: an AMAGOLD warm-up's
    /// [`inverse_mass`](crate::Amagold::inverse_mass) with σ = 1, a pilot run's variances), each
    /// positive and finite in `T` with a finite `1/√kᵢ`; the update becomes
    /// `θᵢ ← θᵢ − (ε/2)·kᵢ·gᵢ + √ε·√kᵢ·zᵢ`. Errors, nothing changed: `LengthMismatch` (not d
    /// values), `InvalidMass`, `MassMismatch` (a `Mass::Unit` chain has no preconditioner).
    pub fn set_inverse_mass(&mut self, k: &[T]) -> Result<(), Error> {
        self.core.set_inverse_mass(self.ws, k)
    }
}
