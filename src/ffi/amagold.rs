//! AMAGOLD in C: its config, info and state types and the mapping onto the generic chain layer
//! (`chain.rs`), which generates `sgs_amagold_…` (double) and `sgs_amagold_…_f32` (float).

use super::chain::{c_summary, chain_api, chain_getter, chain_states, copy_block_or, tags, CChain};
use super::common::*;
use crate::amagold::{workspace_len_mass, AmagoldCore, INVERSE_MASS_BLOCK};
use crate::error::Error;
use crate::{AmagoldConfig, AmagoldInfo, Variant};

/// `sgs_amagold_config.variant`: momentum resampled every outer iteration (the paper's default).
pub const SGS_VARIANT_REVERSIBLE: u32 = 0;
/// `sgs_amagold_config.variant`: skew-reversible; the momentum persists and is negated on reject.
pub const SGS_VARIANT_NON_REVERSIBLE: u32 = 1;

/// Hyperparameters of an AMAGOLD chain (shared by the double and float functions). Start from
/// `sgs_amagold_config_default(step_size)` and change fields as needed.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_amagold_config {
    /// Step size ε > 0 (the initial one when `warmup > 0`).
    pub step_size: f64,
    /// Friction β ≥ 0.
    pub friction: f64,
    /// Momentum standard deviation σ > 0.
    pub momentum_sd: f64,
    /// Target acceptance δ ∈ (0, 1) of the warm-up (ignored when `warmup = 0`).
    pub target_accept: f64,
    /// Outer iterations that adapt ε by dual averaging (0: none).
    pub warmup: u64,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id: same seed, different streams give independent chains.
    pub stream: u64,
    /// Inner steps T ≥ 1 per outer iteration.
    pub steps: u32,
    /// `SGS_VARIANT_REVERSIBLE` or `SGS_VARIANT_NON_REVERSIBLE`.
    pub variant: u32,
    /// 1: estimate a diagonal mass matrix during the warm-up (Stan's windows: a fast interval,
    /// slow windows of doubling length whose draws give each coordinate's variance, a final
    /// fast interval; fixed when the warm-up ends). Needs `warmup ≥ 20`
    /// (`SGS_ERR_INVALID_WARMUP`) and a workspace of `sgs_amagold_workspace_len_mass(d)` = 10·d
    /// elements. 0 (the default): no mass matrix, and the streams of earlier versions. Any other
    /// value: `SGS_ERR_INVALID_OPTION`. `sgs_amagold_inverse_mass` reads the result.
    pub adapt_mass: u32,
    /// Must be 0 (`SGS_ERR_INVALID_OPTION` otherwise; room for a later option).
    pub reserved: u32,
}

/// What one AMAGOLD outer iteration did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_amagold_info {
    /// log a = U(θ) − U(θ') + ρ (NaN when the trajectory left the domain).
    pub log_accept: f64,
    /// The amortised correction ρ (NaN when the trajectory left the domain).
    pub rho: f64,
    /// U at the chain's state after the iteration.
    pub energy: f64,
    /// Accepted fraction since init (during warm-up) or since the warm-up ended.
    pub accept_rate: f64,
    /// The step size this iteration used.
    pub step_size: f64,
    /// Outer iterations done since init, this one included.
    pub iteration: u64,
    /// Divergent iterations since init.
    pub divergences: u64,
    /// One of the `SGS_OUTCOME_…` values (accepted, rejected, out of domain, divergent).
    pub outcome: u32,
    /// 1 if the proposal was accepted, else 0.
    pub accepted: u32,
    /// 1 if the iteration belonged to the warm-up (its sample is not exact), else 0.
    pub warmup: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
}

/// Totals of an `sgs_amagold_run`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_amagold_run_summary {
    /// Iterations completed (also on error: rows `0..iterations` of the output are valid).
    pub iterations: u64,
    /// Accepted proposals among them.
    pub accepted: u64,
    /// Divergent iterations among them.
    pub divergences: u64,
    /// 1 if `last` holds the last completed iteration, 0 if none completed (then `last` is all
    /// zero).
    pub has_last: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
    /// Info of the last completed iteration.
    pub last: sgs_amagold_info,
}

c_summary!(
    sgs_amagold_run_summary,
    sgs_amagold_info,
    sgs_amagold_info {
        log_accept: 0.0,
        rho: 0.0,
        energy: 0.0,
        accept_rate: 0.0,
        step_size: 0.0,
        iteration: 0,
        divergences: 0,
        outcome: 0,
        accepted: 0,
        warmup: 0,
        reserved: 0,
    }
);

chain_states!(sgs_amagold, sgs_amagold_f32, 48, "An AMAGOLD");

impl CChain for AmagoldCore {
    type CConfig = sgs_amagold_config;
    type CInfo = sgs_amagold_info;
    type CSummary = sgs_amagold_run_summary;
    const TAGS: [u64; 2] = tags(b"sgsAMG");
    const NEEDS_ENERGY: bool = true;

    fn config_from(c: &sgs_amagold_config) -> Result<AmagoldConfig, Error> {
        let variant = match c.variant {
            SGS_VARIANT_REVERSIBLE => Variant::Reversible,
            SGS_VARIANT_NON_REVERSIBLE => Variant::NonReversible,
            _ => return Err(Error::InvalidOption),
        };
        let adapt_mass = match (c.adapt_mass, c.reserved) {
            (0, 0) => false,
            (1, 0) => true,
            _ => return Err(Error::InvalidOption),
        };
        Ok(AmagoldConfig {
            step_size: c.step_size,
            friction: c.friction,
            momentum_sd: c.momentum_sd,
            steps: c.steps,
            variant,
            warmup: c.warmup,
            target_accept: c.target_accept,
            adapt_mass,
            seed: c.seed,
            stream: c.stream,
        })
    }

    fn info_to_c(i: &AmagoldInfo) -> sgs_amagold_info {
        sgs_amagold_info {
            log_accept: i.log_accept,
            rho: i.rho,
            energy: i.energy,
            accept_rate: i.accept_rate,
            step_size: i.step_size,
            iteration: i.iteration,
            divergences: i.divergences,
            outcome: i.outcome as u32,
            accepted: i.accepted as u32,
            warmup: i.warmup as u32,
            reserved: 0,
        }
    }
}

/// The paper's defaults at step size ε: reversible, T = 10, friction 0.25, σ = 1, no warm-up
/// (target acceptance 0.65 if one is switched on), no mass matrix, seed 0, stream 0. Nothing is validated here;
/// `sgs_amagold_init` does that.
#[no_mangle]
pub extern "C" fn sgs_amagold_config_default(step_size: f64) -> sgs_amagold_config {
    let c = AmagoldConfig::new(step_size);
    sgs_amagold_config {
        step_size: c.step_size,
        friction: c.friction,
        momentum_sd: c.momentum_sd,
        target_accept: c.target_accept,
        warmup: c.warmup,
        seed: c.seed,
        stream: c.stream,
        steps: c.steps,
        variant: c.variant as u32,
        adapt_mass: c.adapt_mass as u32,
        reserved: 0,
    }
}

chain_api!(AmagoldCore, f64, "double", "AMAGOLD", sgs_amagold, sgs_amagold_config,
    sgs_amagold_info, sgs_amagold_run_summary, sgs_gradient_fn, [sgs_energy_fn],
    sgs_amagold_workspace_len sgs_amagold_state_size sgs_amagold_state_align sgs_amagold_init
    sgs_amagold_step sgs_amagold_run sgs_amagold_position sgs_amagold_iterations
    sgs_amagold_divergences sgs_amagold_dim sgs_amagold_clear sgs_amagold_copy);

chain_api!(AmagoldCore, f32, "float", "AMAGOLD", sgs_amagold_f32, sgs_amagold_config,
    sgs_amagold_info, sgs_amagold_run_summary, sgs_gradient_fn_f32, [sgs_energy_fn_f32],
    sgs_amagold_workspace_len_f32 sgs_amagold_state_size_f32 sgs_amagold_state_align_f32
    sgs_amagold_init_f32 sgs_amagold_step_f32 sgs_amagold_run_f32 sgs_amagold_position_f32
    sgs_amagold_iterations_f32 sgs_amagold_divergences_f32 sgs_amagold_dim_f32 sgs_amagold_clear_f32 sgs_amagold_copy_f32);

chain_getter!(block AmagoldCore, f64, sgs_amagold, sgs_amagold_momentum, 2, " Copies the persistent momentum r (d values; meaningful for the non-reversible variant) into `out`.");
chain_getter!(block AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_momentum_f32, 2, " Copies the persistent momentum r (d values; meaningful for the non-reversible variant) into `out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_energy, f64, |c| c.energy(), " Writes the cached energy U(θ) of the current state to `*out`.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_energy_f32, f64, |c| c.energy(), " Writes the cached energy U(θ) of the current state to `*out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_step_size, f64, |c| c.step_size(), " Writes the step size the next iteration will use to `*out`.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_step_size_f32, f64, |c| c.step_size(), " Writes the step size the next iteration will use to `*out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_in_warmup, u32, |c| c.in_warmup() as u32, " Writes 1 to `*out` while the warm-up is adapting the step size, else 0.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_in_warmup_f32, u32, |c| c.in_warmup() as u32, " Writes 1 to `*out` while the warm-up is adapting the step size, else 0.");

/// Generates the mass-matrix functions of one coordinate type: the workspace query and the
/// inverse-mass getter.
macro_rules! mass_api {
    ($T:ty, $ctype:literal, $S:ident, $ws_len:ident, $inverse_mass:ident) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an AMAGOLD chain of dimension `d`")]
        /// with `adapt_mass = 1`: 10·d (the 6·d of `sgs_amagold_workspace_len` plus the momentum
        /// and inverse-mass factors and the warm-up's running mean and sum of squares), saturating
        /// at SIZE_MAX; 0 for d = 0.
        #[no_mangle]
        pub extern "C" fn $ws_len(d: usize) -> usize {
            workspace_len_mass(d)
        }

        /// Copies the diagonal inverse mass matrix relative to σ⁻² (d values kᵢ: coordinate i
        /// moves by (ε/σ²)·kᵢ·rᵢ and its momentum has standard deviation σ/√kᵢ) into `out`
        /// (capacity `out_len` ≥ d). With `adapt_mass` it is 1 until the first slow window of the
        /// warm-up ends, then σ² times each coordinate's regularised variance over the last
        /// window, and fixed after the warm-up (with σ = 1: the posterior variance estimate).
        /// Always positive and finite: an estimate the coordinate type cannot hold (σ² beyond
        /// its range) is not applied, and the coordinate keeps its factor.
        /// Without `adapt_mass` the chain has no mass matrix: d ones (exactly what it uses).
        /// Statuses as for the position getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $inverse_mass(
            state: *const $S,
            out: *mut $T,
            out_len: usize,
        ) -> super::sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                copy_block_or::<$T, AmagoldCore, $S>(
                    state,
                    |c| c.has_mass().then_some(INVERSE_MASS_BLOCK),
                    1.0,
                    out,
                    out_len,
                )
            })
        }
    };
}

mass_api!(
    f64,
    "double",
    sgs_amagold,
    sgs_amagold_workspace_len_mass,
    sgs_amagold_inverse_mass
);
mass_api!(
    f32,
    "float",
    sgs_amagold_f32,
    sgs_amagold_workspace_len_mass_f32,
    sgs_amagold_inverse_mass_f32
);
