//! SGHMC, the baseline without Metropolis–Hastings correction (Chen, Fox & Guestrin 2014, in the
//! form of the AMAGOLD paper's Algorithm 1). Biased at any finite step size; shipped because users
//! compare AMAGOLD against it.
//!
//! # Arithmetic and draw order
//!
//! Coefficients in `f64`, rounded once to `T`: `full = ε/(σ·σ)`, `c = 2·ε·β`, `sd = √(4·ε·β)·σ`.
//! Per inner step, per coordinate: `θ = θ + (full·kᵢ)·r`, then
//! `r = ((r − ε·g) − c·r) + (sd·mᵢ)·z`; a resampled momentum is `(σ·mᵢ)·z`. The factors `kᵢ`
//! (the inverse mass relative to σ⁻²) and `mᵢ = 1/√kᵢ` are those of a fixed diagonal
//! preconditioner ([`SghmcConfig::mass`], docs/algorithms.md §1.1 and §1.5); without one, and
//! until one is set, every factor is exactly 1 and the products are exact, so the streams are
//! those of the plain sampler bit for bit. Draws per outer iteration: `d` momentum normals if
//! `resample_momentum`; then per inner step the minibatch seed and `d` noise normals (none when
//! β = 0). Without resampling, `new` draws the initial momentum (`d` normals).
//!
//! Memory: a workspace of [`Sghmc::workspace_len_for`]`(config, d)` coordinates: 5·d, 7·d with
//! `Mass::Diagonal` (the factors m and k).

use crate::amagold::Mass;
use crate::chain::{
    chain_kind, check_start, gradient_chain, gradient_or_rollback, Chain, ChainInfo, Counters,
};
use crate::error::Error;
use crate::float::{all_finite, copy, Float};
use crate::mass::{add_scaled_by, apply_diagonal, valid_inverse_mass, Factors};
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
    /// The preconditioner: `Mass::Unit` (the default: the plain sampler) or `Mass::Diagonal`, a
    /// fixed diagonal mass matrix (momentum sd σ·mᵢ, position step (ε/σ²)·kᵢ·rᵢ with
    /// kᵢ = 1/mᵢ²; docs/algorithms.md §1.5), the identity until [`Sghmc::set_inverse_mass`]
    /// sets it; 2·d more workspace ([`Sghmc::workspace_len_for`]). Nothing adapts it.
    /// `Mass::Dense` is refused ([`Error::InvalidOption`]).
    pub mass: Mass,
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
            mass: Mass::Unit,
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

    /// Checks every hyperparameter (`Mass::Dense`: [`Error::InvalidOption`]).
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
        if self.mass == Mass::Dense {
            return Err(Error::InvalidOption);
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

// The checkpoint encoding (src/wire.rs); the C import validates the configuration as init does.
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(SghmcConfig {
    step_size,
    friction,
    momentum_sd,
    steps,
    resample_momentum,
    mass,
    seed,
    stream,
});
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(SghmcCore {
    d,
    cfg,
    rng,
    counters
});

pub(crate) const fn workspace_len(d: usize) -> usize {
    d.saturating_mul(5)
}

/// Workspace coordinates per dimension: 5, and 7 with a diagonal preconditioner (a `Dense`
/// configuration is refused by `validate`).
const fn per_d(mass: Mass) -> usize {
    match mass {
        Mass::Diagonal => 7,
        Mass::Unit | Mass::Dense => 5,
    }
}

/// Workspace coordinates of a chain of dimension `d` started with `cfg` (saturating).
pub(crate) const fn workspace_len_for(cfg: &SghmcConfig, d: usize) -> usize {
    d.saturating_mul(per_d(cfg.mass))
}

/// The workspace's blocks: θ, θ (working), r, r (working), g, then with a diagonal
/// preconditioner its factors m and k.
struct Parts<'w, T> {
    theta: &'w mut [T],
    tw: &'w mut [T],
    r: &'w mut [T],
    rw: &'w mut [T],
    g: &'w mut [T],
    diag: Option<(&'w mut [T], &'w mut [T])>,
}

/// Splits the workspace; `None` if it is shorter than the configuration needs.
fn parts<T>(ws: &mut [T], d: usize, mass: Mass) -> Option<Parts<'_, T>> {
    let (theta, rest) = ws.split_at_mut_checked(d)?;
    let (tw, rest) = rest.split_at_mut_checked(d)?;
    let (r, rest) = rest.split_at_mut_checked(d)?;
    let (rw, rest) = rest.split_at_mut_checked(d)?;
    let (g, rest) = rest.split_at_mut_checked(d)?;
    let diag = if mass == Mass::Diagonal {
        let (m, rest) = rest.split_at_mut_checked(d)?;
        let (k, _) = rest.split_at_mut_checked(d)?;
        Some((m, k))
    } else {
        None
    };
    Some(Parts {
        theta,
        tw,
        r,
        rw,
        g,
        diag,
    })
}

impl SghmcCore {
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

    pub(crate) fn new<T: Float>(
        cfg: &SghmcConfig,
        theta0: &[T],
        ws: &mut [T],
    ) -> Result<Self, Error> {
        let d = check_start(theta0, ws.len(), per_d(cfg.mass), cfg.validate_in::<T>())?;
        let mut rng = Rng::new(cfg.seed, cfg.stream);
        let Parts { theta, r, diag, .. } =
            parts(ws, d, cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        copy(theta, theta0);
        if let Some((m, k)) = diag {
            // The identity until `set_inverse_mass`.
            for x in m.iter_mut().chain(k.iter_mut()) {
                *x = T::from_f64(1.0);
            }
        }
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
        let Parts {
            theta,
            tw,
            r,
            rw,
            g,
            diag,
        } = parts(ws, self.d, self.cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        // The factors mᵢ and kᵢ (`None`: all exactly 1, the plain sampler bit for bit).
        let (mf, kf) = match &diag {
            Some((m, k)) => (Some(&**m), Some(&**k)),
            None => (None, None),
        };
        let saved_rng = self.rng.clone();
        let cfg = &self.cfg;
        let eps = cfg.step_size;
        let full = T::from_f64(eps / (cfg.momentum_sd * cfg.momentum_sd));
        let c = T::from_f64(2.0 * eps * cfg.friction);
        let sd = T::from_f64(libm::sqrt(4.0 * eps * cfg.friction) * cfg.momentum_sd);
        let eps_t = T::from_f64(eps);
        let noisy = cfg.friction > 0.0;
        let momentum = |ri: T, gi: T, mi: T, z: Option<T>| {
            let eta = match z {
                Some(z) => (sd * mi) * z,
                None => T::ZERO,
            };
            ((ri - eps_t * gi) - c * ri) + eta
        };

        copy(tw, theta);
        if cfg.resample_momentum {
            let sigma = T::from_f64(cfg.momentum_sd);
            for (x, mi) in rw.iter_mut().zip(Factors::of(mf)) {
                *x = (sigma * mi) * self.rng.normal_as::<T>();
            }
        } else {
            copy(rw, r);
        }
        let mut rejected = false;
        // Step t's position update `θ = θ + full·r` is done for t = 0 here and for t ≥ 1 in step
        // t − 1's sweep, right after that coordinate's new r: the same operations on the same
        // values (the gradient of step t still sees the whole updated θ), one pass over θ and r
        // per inner step instead of two. After the last step θ is not moved.
        add_scaled_by(tw, full, kf, rw);
        for t in 0..cfg.steps {
            let seed = self.rng.next_u64();
            if !gradient_or_rollback(model, tw, seed, g, &mut self.rng, &saved_rng)? {
                rejected = true;
                break;
            }
            let factors = Factors::of(mf).zip(Factors::of(kf));
            let items = rw.iter_mut().zip(g.iter()).zip(tw.iter_mut()).zip(factors);
            if t + 1 < cfg.steps {
                sweep(
                    &mut self.rng,
                    noisy,
                    items,
                    |(((ri, &gi), ti), (mi, ki)), z| {
                        *ri = momentum(*ri, gi, mi, z);
                        *ti += (full * ki) * *ri;
                    },
                );
            } else {
                sweep(
                    &mut self.rng,
                    noisy,
                    items,
                    |(((ri, &gi), _), (mi, _)), z| {
                        *ri = momentum(*ri, gi, mi, z);
                    },
                );
            }
        }
        let finite = all_finite(tw) && all_finite(rw);
        Ok(self.counters.finish(rejected, finite, || {
            copy(theta, tw);
            copy(r, rw);
        }))
    }

    /// Sets the diagonal preconditioner's inverse mass kᵢ (relative to σ⁻²; `mᵢ = 1/√kᵢ`) and
    /// rescales the persistent momentum to it (`rᵢ ← rᵢ·m_newᵢ/m_oldᵢ`). Checks, in this order:
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
        let p = parts(ws, self.d, self.cfg.mass).ok_or(Error::WorkspaceTooSmall)?;
        let Some((m, kb)) = p.diag else {
            return Err(Error::MassMismatch);
        };
        apply_diagonal(m, kb, p.r, k.iter().map(|x| x.to_f64()));
        Ok(())
    }

    /// The inverse mass kᵢ into `out` (d values; ones for a unit chain).
    pub(crate) fn inverse_mass_into<T: Float>(&self, ws: &[T], out: &mut [T]) -> Result<(), Error> {
        let d = self.d;
        let diagonal = self.cfg.mass == Mass::Diagonal;
        crate::mass::inverse_mass_into(diagonal, ws, d.saturating_mul(6), d, out)
    }
}

chain_kind!(
    SghmcCore,
    SghmcConfig,
    ChainInfo,
    workspace_len,
    need = |c: &SghmcCore| { c.used_len() },
    len_for = |cfg: &SghmcConfig, d: usize| { workspace_len_for(cfg, d) }
);

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
    /// Workspace length for a chain of dimension `d` started with `config`: 5·d, 7·d with
    /// `Mass::Diagonal` (saturating; `Mass::Dense`, which `new` refuses, counts as unit).
    pub const fn workspace_len_for(config: &SghmcConfig, d: usize) -> usize {
        workspace_len_for(config, d)
    }

    /// The current momentum r.
    pub fn momentum(&self) -> &[T] {
        self.block(2)
    }

    /// The diagonal preconditioner's inverse mass relative to σ⁻² (kᵢ; the position moves by
    /// (ε/σ²)·kᵢ·rᵢ) into `out` (at least d values): d ones for a unit chain, and for a
    /// `Mass::Diagonal` chain until one is set. `OutputTooSmall` for a shorter `out`.
    pub fn inverse_mass(&self, out: &mut [T]) -> Result<(), Error> {
        self.core.inverse_mass_into(self.ws, out)
    }

    /// Sets the fixed diagonal preconditioner of a `Mass::Diagonal` chain: its inverse mass
    /// relative to σ⁻², d values kᵢ (e.g. σ² times posterior variances learnt elsewhere: an
    /// AMAGOLD warm-up's [`inverse_mass`](crate::Amagold::inverse_mass), a pilot run's
    /// variances), each positive and finite in `T` with a finite `1/√kᵢ`. The momentum's sd
    /// becomes σ·mᵢ with mᵢ = 1/√kᵢ, and the persistent momentum is rescaled by m_newᵢ/m_oldᵢ
    /// (it keeps its stationary law). Errors, nothing changed: `LengthMismatch` (not d values),
    /// `InvalidMass`, `MassMismatch` (a `Mass::Unit` chain has no preconditioner).
    pub fn set_inverse_mass(&mut self, k: &[T]) -> Result<(), Error> {
        self.core.set_inverse_mass(self.ws, k)
    }
}
