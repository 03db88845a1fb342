//! SGHMC in C: its config and state types and the mapping onto the generic chain layer
//! (`chain.rs`), which generates `sgs_sghmc_…` (double) and `sgs_sghmc_…_f32` (float).

use super::amagold::{SGS_MASS_DIAGONAL, SGS_MASS_UNIT};
use super::chain::{
    chain_api, chain_getter, chain_states, gradient_chain_mapping, preconditioner_api,
};
use super::checkpoint::checkpoint_api;
use super::common::*;
use crate::error::Error;
use crate::sghmc::SghmcCore;
use crate::{Mass, SghmcConfig};

/// Hyperparameters of an SGHMC chain (shared by the double and float functions). Start from
/// `sgs_sghmc_config_default(step_size)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_sghmc_config {
    /// Step size ε > 0.
    pub step_size: f64,
    /// Friction β ≥ 0 with ε·β < 1.
    pub friction: f64,
    /// Momentum standard deviation σ > 0.
    pub momentum_sd: f64,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id.
    pub stream: u64,
    /// Inner steps T ≥ 1 per stored sample.
    pub steps: u32,
    /// 1: draw a fresh momentum at the start of every outer iteration; 0: keep it.
    pub resample_momentum: u32,
    /// The preconditioner: `SGS_MASS_UNIT` (0, the default: the plain sampler) or
    /// `SGS_MASS_DIAGONAL` (1: a fixed diagonal mass matrix, the identity until
    /// `sgs_sghmc_set_inverse_mass` sets it; the workspace grows to
    /// `sgs_sghmc_workspace_len_for`). Any other value (`SGS_MASS_DENSE` included):
    /// `SGS_ERR_INVALID_OPTION`.
    pub mass: u32,
    /// Must be 0 (`SGS_ERR_INVALID_OPTION` otherwise; padding made explicit, room for a later
    /// option).
    pub reserved: u32,
}

chain_states!(sgs_sghmc, sgs_sghmc_f32, 24, "An SGHMC");

/// The Rust configuration of a C one.
fn config_from(c: &sgs_sghmc_config) -> Result<SghmcConfig, Error> {
    let resample_momentum = match c.resample_momentum {
        0 => false,
        1 => true,
        _ => return Err(Error::InvalidOption),
    };
    let mass = match c.mass {
        SGS_MASS_UNIT => Mass::Unit,
        SGS_MASS_DIAGONAL => Mass::Diagonal,
        _ => return Err(Error::InvalidOption),
    };
    if c.reserved != 0 {
        return Err(Error::InvalidOption);
    }
    Ok(SghmcConfig {
        step_size: c.step_size,
        friction: c.friction,
        momentum_sd: c.momentum_sd,
        steps: c.steps,
        resample_momentum,
        mass,
        seed: c.seed,
        stream: c.stream,
    })
}

gradient_chain_mapping!(
    SghmcCore,
    sgs_sghmc_config,
    b"sgsSGH",
    config_from,
    sgs_sghmc_info,
    sgs_sghmc_run_summary,
    "SGHMC"
);

/// The AMAGOLD paper's settings at step size ε: T = 10, friction 0.25, σ = 1, momentum
/// resampled, no preconditioner (`SGS_MASS_UNIT`), seed 0, stream 0. Nothing is validated here;
/// `sgs_sghmc_init` does that.
#[no_mangle]
pub extern "C" fn sgs_sghmc_config_default(step_size: f64) -> sgs_sghmc_config {
    let c = SghmcConfig::new(step_size);
    sgs_sghmc_config {
        step_size: c.step_size,
        friction: c.friction,
        momentum_sd: c.momentum_sd,
        seed: c.seed,
        stream: c.stream,
        steps: c.steps,
        resample_momentum: c.resample_momentum as u32,
        mass: c.mass as u32,
        reserved: 0,
    }
}

chain_api!(SghmcCore, f64, "double", "SGHMC", sgs_sghmc, sgs_sghmc_config, sgs_sghmc_info,
    sgs_sghmc_run_summary, sgs_gradient_fn, [], sgs_sghmc_workspace_len sgs_sghmc_state_size
    sgs_sghmc_state_align sgs_sghmc_init sgs_sghmc_step sgs_sghmc_run sgs_sghmc_position
    sgs_sghmc_iterations sgs_sghmc_divergences sgs_sghmc_dim sgs_sghmc_clear sgs_sghmc_copy);
checkpoint_api!(SghmcCore, f64, "double", "SGHMC", sgs_sghmc,
    sgs_sghmc_export_len sgs_sghmc_export sgs_sghmc_import);

chain_api!(SghmcCore, f32, "float", "SGHMC", sgs_sghmc_f32, sgs_sghmc_config, sgs_sghmc_info,
    sgs_sghmc_run_summary, sgs_gradient_fn_f32, [], sgs_sghmc_workspace_len_f32
    sgs_sghmc_state_size_f32 sgs_sghmc_state_align_f32 sgs_sghmc_init_f32 sgs_sghmc_step_f32
    sgs_sghmc_run_f32 sgs_sghmc_position_f32 sgs_sghmc_iterations_f32
    sgs_sghmc_divergences_f32 sgs_sghmc_dim_f32 sgs_sghmc_clear_f32 sgs_sghmc_copy_f32);
checkpoint_api!(SghmcCore, f32, "float", "SGHMC", sgs_sghmc_f32,
    sgs_sghmc_export_len_f32 sgs_sghmc_export_f32 sgs_sghmc_import_f32);

chain_getter!(block SghmcCore, f64, sgs_sghmc, sgs_sghmc_momentum, 2, " Copies the current momentum r (d values) into `out`.");
chain_getter!(block SghmcCore, f32, sgs_sghmc_f32, sgs_sghmc_momentum_f32, 2, " Copies the current momentum r (d values) into `out`.");

preconditioner_api!(
    SghmcCore,
    f64,
    "double",
    "SGHMC",
    sgs_sghmc,
    sgs_sghmc_config,
    sgs_sghmc_workspace_len_for,
    sgs_sghmc_set_inverse_mass,
    sgs_sghmc_inverse_mass,
    "5·d",
    "7·d",
    "the inverse mass relative to σ⁻², as AMAGOLD's: the momentum's sd becomes σ·mᵢ with mᵢ = 1/√kᵢ, the position step (ε/σ²)·kᵢ·rᵢ, and the persistent momentum is rescaled by m_newᵢ/m_oldᵢ"
);
preconditioner_api!(
    SghmcCore,
    f32,
    "float",
    "SGHMC",
    sgs_sghmc_f32,
    sgs_sghmc_config,
    sgs_sghmc_workspace_len_for_f32,
    sgs_sghmc_set_inverse_mass_f32,
    sgs_sghmc_inverse_mass_f32,
    "5·d",
    "7·d",
    "the inverse mass relative to σ⁻², as AMAGOLD's: the momentum's sd becomes σ·mᵢ with mᵢ = 1/√kᵢ, the position step (ε/σ²)·kᵢ·rᵢ, and the persistent momentum is rescaled by m_newᵢ/m_oldᵢ"
);
