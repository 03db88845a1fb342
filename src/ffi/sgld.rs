//! SGLD in C: its config and state types and the mapping onto the generic chain layer
//! (`chain.rs`), which generates `sgs_sgld_…` (double) and `sgs_sgld_…_f32` (float).

use super::amagold::{SGS_MASS_DIAGONAL, SGS_MASS_UNIT};
use super::chain::{chain_api, chain_states, gradient_chain_mapping, preconditioner_api};
use super::checkpoint::checkpoint_api;
use super::common::*;
use crate::error::Error;
use crate::sgld::SgldCore;
use crate::{Mass, SgldConfig};

/// Hyperparameters of an SGLD chain (shared by the double and float functions). Start from
/// `sgs_sgld_config_default(step_size)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_sgld_config {
    /// Step size ε > 0: each update is θ ← θ − (ε/2)·∇Ũ(θ) + N(0, ε).
    pub step_size: f64,
    /// Updates T ≥ 1 per stored sample.
    pub steps: u32,
    /// The preconditioner: `SGS_MASS_UNIT` (0, the default: plain SGLD) or `SGS_MASS_DIAGONAL`
    /// (1: a fixed D = diag(k), each update θᵢ ← θᵢ − (ε/2)·kᵢ·∇ᵢŨ(θ) + N(0, ε·kᵢ); the
    /// identity until `sgs_sgld_set_inverse_mass` sets it; the workspace grows to
    /// `sgs_sgld_workspace_len_for`). Any other value (`SGS_MASS_DENSE` included):
    /// `SGS_ERR_INVALID_OPTION`. (This word was the reserved padding before: 0 still means the
    /// plain sampler.)
    pub mass: u32,
    /// Seed of the generator (its stream: `stream`).
    pub seed: u64,
    /// Stream id: same seed, different streams give independent chains.
    pub stream: u64,
}

/// The Rust configuration of a C one.
fn config_from(c: &sgs_sgld_config) -> Result<SgldConfig, Error> {
    let mass = match c.mass {
        SGS_MASS_UNIT => Mass::Unit,
        SGS_MASS_DIAGONAL => Mass::Diagonal,
        _ => return Err(Error::InvalidOption),
    };
    Ok(SgldConfig {
        step_size: c.step_size,
        steps: c.steps,
        mass,
        seed: c.seed,
        stream: c.stream,
    })
}

chain_states!(sgs_sgld, sgs_sgld_f32, 18, "An SGLD");

gradient_chain_mapping!(
    SgldCore,
    sgs_sgld_config,
    b"sgsSGL",
    config_from,
    sgs_sgld_info,
    sgs_sgld_run_summary,
    "SGLD"
);

chain_api!(SgldCore, f32, "float", "SGLD", sgs_sgld_f32, sgs_sgld_config, sgs_sgld_info,
    sgs_sgld_run_summary, sgs_gradient_fn_f32, [], sgs_sgld_workspace_len_f32
    sgs_sgld_state_size_f32 sgs_sgld_state_align_f32 sgs_sgld_init_f32 sgs_sgld_step_f32
    sgs_sgld_run_f32 sgs_sgld_position_f32 sgs_sgld_iterations_f32 sgs_sgld_divergences_f32
    sgs_sgld_dim_f32 sgs_sgld_clear_f32 sgs_sgld_copy_f32);
checkpoint_api!(SgldCore, f32, "float", "SGLD", sgs_sgld_f32,
    sgs_sgld_export_len_f32 sgs_sgld_export_f32 sgs_sgld_import_f32);

/// Step size ε, one update per sample, no preconditioner (`SGS_MASS_UNIT`), seed 0, stream 0.
/// Nothing is validated here; `sgs_sgld_init` does that.
#[no_mangle]
pub extern "C" fn sgs_sgld_config_default(step_size: f64) -> sgs_sgld_config {
    let c = SgldConfig::new(step_size);
    sgs_sgld_config {
        step_size: c.step_size,
        seed: c.seed,
        stream: c.stream,
        steps: c.steps,
        mass: c.mass as u32,
    }
}

chain_api!(SgldCore, f64, "double", "SGLD", sgs_sgld, sgs_sgld_config, sgs_sgld_info,
    sgs_sgld_run_summary, sgs_gradient_fn, [], sgs_sgld_workspace_len sgs_sgld_state_size
    sgs_sgld_state_align sgs_sgld_init sgs_sgld_step sgs_sgld_run sgs_sgld_position
    sgs_sgld_iterations sgs_sgld_divergences sgs_sgld_dim sgs_sgld_clear sgs_sgld_copy);
checkpoint_api!(SgldCore, f64, "double", "SGLD", sgs_sgld,
    sgs_sgld_export_len sgs_sgld_export sgs_sgld_import);

preconditioner_api!(
    SgldCore,
    f64,
    "double",
    "SGLD",
    sgs_sgld,
    sgs_sgld_config,
    sgs_sgld_workspace_len_for,
    sgs_sgld_set_inverse_mass,
    sgs_sgld_inverse_mass,
    "3·d",
    "5·d",
    "D = diag(k): each update moves θᵢ by −(ε/2)·kᵢ·gᵢ + √ε·√kᵢ·zᵢ"
);
preconditioner_api!(
    SgldCore,
    f32,
    "float",
    "SGLD",
    sgs_sgld_f32,
    sgs_sgld_config,
    sgs_sgld_workspace_len_for_f32,
    sgs_sgld_set_inverse_mass_f32,
    sgs_sgld_inverse_mass_f32,
    "3·d",
    "5·d",
    "D = diag(k): each update moves θᵢ by −(ε/2)·kᵢ·gᵢ + √ε·√kᵢ·zᵢ"
);
