//! AMAGOLD in C: its config, info and state types and the mapping onto the generic chain layer
//! (`chain.rs`), which generates `sgs_amagold_…` (double) and `sgs_amagold_…_f32` (float).

use super::chain::{
    c_summary, chain_api, chain_getter, chain_states, cores_of, fill_out, get, state_spans, tags,
    with_core_mut, CChain, CFloat,
};
use super::checkpoint::checkpoint_api;
use super::common::*;
use crate::amagold::{compare_cores, workspace_len_for, AmagoldCore};
use crate::error::Error;
use crate::warmup::{Phase, Verdict, WarmupReport};

use crate::{AmagoldConfig, AmagoldInfo, Mass, Variant};

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
    /// The mass matrix: `SGS_MASS_UNIT` (0, the default: the paper's chain),
    /// `SGS_MASS_DIAGONAL` (1) or `SGS_MASS_DENSE` (2: O(d²) per inner step). With `warmup ≥ 20`
    /// the warm-up estimates it (`warmup` in 1…19: `SGS_ERR_INVALID_WARMUP`); without one it is
    /// the identity until `sgs_amagold_set_inverse_mass` / `…_dense` sets it. The workspace
    /// grows with it (`sgs_amagold_workspace_len_for`). Any other value: `SGS_ERR_INVALID_OPTION`.
    pub mass: u32,
    /// 1 (the default): a warm-up starts with the approach, an optimiser that brings a far-away
    /// start in, then the curvature there as the first mass matrix (docs/algorithms.md §1.7);
    /// 12·d more workspace. 0: the windows start at once. Other values: `SGS_ERR_INVALID_OPTION`.
    pub approach: u32,
    /// 1: draw each iteration's number of inner steps uniformly from ⌈T/2⌉…⌊3T/2⌋ (one bounded
    /// draw first in the iteration; the chain stays exact). 0 (the default): T every time.
    /// Other values: `SGS_ERR_INVALID_OPTION`.
    pub jitter_steps: u32,
    /// Must be 0 (`SGS_ERR_INVALID_OPTION` otherwise; room for a later option).
    pub reserved: u32,
}

/// `sgs_amagold_config.mass`, `sgs_sghmc_config.mass`, `sgs_sgld_config.mass`: σ²·I, the
/// paper's chain (SGHMC, SGLD: no preconditioner).
pub const SGS_MASS_UNIT: u32 = 0;
/// `…_config.mass`: a diagonal mass matrix (SGHMC, SGLD: a fixed diagonal preconditioner).
pub const SGS_MASS_DIAGONAL: u32 = 1;
/// `sgs_amagold_config.mass`: a dense mass matrix (a Cholesky factor in the workspace; AMAGOLD
/// only).
pub const SGS_MASS_DENSE: u32 = 2;

/// `sgs_amagold_info.phase`: a sample of the exact chain (after the warm-up, or without one).
pub const SGS_PHASE_SAMPLING: u32 = 0;
/// `sgs_amagold_info.phase`: the warm-up's approach (an optimiser step or the curvature step).
pub const SGS_PHASE_APPROACH: u32 = 1;
/// `sgs_amagold_info.phase`: a fast window of the warm-up (only ε adapts).
pub const SGS_PHASE_FAST: u32 = 2;
/// `sgs_amagold_info.phase`: a slow window (its draws estimate the mass matrix).
pub const SGS_PHASE_SLOW: u32 = 3;
/// `sgs_amagold_info.phase`: the warm-up's final fast window (the report's statistics).
pub const SGS_PHASE_FINAL: u32 = 4;

/// `sgs_warmup_report.verdict`: the chain has no warm-up.
pub const SGS_WARMUP_NONE: u32 = 0;
/// `sgs_warmup_report.verdict`: the warm-up is still running.
pub const SGS_WARMUP_RUNNING: u32 = 1;
/// `sgs_warmup_report.verdict`: nothing seen suggests the chain is outside the typical set.
pub const SGS_WARMUP_OK: u32 = 2;
/// `sgs_warmup_report.verdict`: at least one reason (the `reasons` flags) suggests the chain
/// has not reached the typical set, or the chains disagree: do not trust the draws unseen.
pub const SGS_WARMUP_SUSPECT: u32 = 3;

/// Reason flag: the final window's energy still drifts (|energy_trend_z| > 4, or its 10 batch
/// means monotone but for at most 2 pairs: `energy_trend_falling` ≤ 2 or ≥ 43).
pub const SGS_WARMUP_REASON_ENERGY_TREND: u32 = 1;
/// Reason flag: the final window's mean acceptance probability is more than 0.2 from the target.
pub const SGS_WARMUP_REASON_ACCEPTANCE: u32 = 2;
/// Reason flag: more than 2 % of the final window's iterations diverged.
pub const SGS_WARMUP_REASON_DIVERGENCES: u32 = 4;
/// Reason flag: the final window's energy BFMI is below 0.1.
pub const SGS_WARMUP_REASON_LOW_BFMI: u32 = 8;
/// Reason flag (set by `sgs_amagold_warmup_compare`): the chains disagree (a chain's
/// final-window mean energy more than 2 median energy sds from the chains' median, or the
/// final windows' positions with R̂ above 1.1).
pub const SGS_WARMUP_REASON_CHAINS_DISAGREE: u32 = 32;
/// Reason flag: the last metric update failed (not positive definite) and an older metric
/// was kept.
pub const SGS_WARMUP_REASON_METRIC: u32 = 64;

// Literals above so that the header has plain numbers; they are the Rust values.
const _: () = {
    use crate::warmup as w;
    assert!(SGS_MASS_UNIT == Mass::Unit as u32);
    assert!(SGS_MASS_DIAGONAL == Mass::Diagonal as u32);
    assert!(SGS_MASS_DENSE == Mass::Dense as u32);
    assert!(SGS_PHASE_SAMPLING == Phase::Sampling as u32);
    assert!(SGS_PHASE_APPROACH == Phase::Approach as u32);
    assert!(SGS_PHASE_FAST == Phase::Fast as u32);
    assert!(SGS_PHASE_SLOW == Phase::Slow as u32);
    assert!(SGS_PHASE_FINAL == Phase::Final as u32);
    assert!(SGS_WARMUP_NONE == Verdict::None as u32);
    assert!(SGS_WARMUP_RUNNING == Verdict::Running as u32);
    assert!(SGS_WARMUP_OK == Verdict::Ok as u32);
    assert!(SGS_WARMUP_SUSPECT == Verdict::Suspect as u32);
    assert!(SGS_WARMUP_REASON_ENERGY_TREND == w::REASON_ENERGY_TREND);
    assert!(SGS_WARMUP_REASON_ACCEPTANCE == w::REASON_ACCEPTANCE);
    assert!(SGS_WARMUP_REASON_DIVERGENCES == w::REASON_DIVERGENCES);
    assert!(SGS_WARMUP_REASON_LOW_BFMI == w::REASON_LOW_BFMI);
    assert!(SGS_WARMUP_REASON_CHAINS_DISAGREE == w::REASON_CHAINS_DISAGREE);
    assert!(SGS_WARMUP_REASON_METRIC == w::REASON_METRIC);
};

/// What an AMAGOLD chain's warm-up did, and whether its end looks like the typical set
/// (`sgs_amagold_warmup_report`, `sgs_amagold_warmup_compare`; docs/algorithms.md §1.8).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_warmup_report {
    /// The step size after the warm-up (the current one while it runs).
    pub step_size: f64,
    /// The target acceptance δ.
    pub target_accept: f64,
    /// The final window's mean acceptance probability min(1, e^{log a}).
    pub accept_rate: f64,
    /// z-statistic of the final window's energy trend (slope of 10 batch means over its
    /// residual scatter; negative: still falling).
    pub energy_trend_z: f64,
    /// Mean of the energy U over the final window.
    pub energy_mean: f64,
    /// Standard deviation of U over the final window.
    pub energy_sd: f64,
    /// Energy BFMI of the final window (mean squared change of U between iterations over U's
    /// variance).
    pub bfmi: f64,
    /// Condition number of the inverse mass matrix (1 without one).
    pub condition_number: f64,
    /// The energy when the warm-up started.
    pub approach_energy_start: f64,
    /// The energy when the approach ended.
    pub approach_energy_end: f64,
    /// Warm-up iterations done.
    pub iterations: u64,
    /// Of which the approach's (its optimiser steps and the curvature step).
    pub approach_iterations: u64,
    /// Divergent iterations during the whole warm-up.
    pub divergences: u64,
    /// Iterations of the final window.
    pub window_iterations: u64,
    /// Divergent iterations of the final window.
    pub window_divergences: u64,
    /// `SGS_WARMUP_NONE`, `SGS_WARMUP_RUNNING`, `SGS_WARMUP_OK` or `SGS_WARMUP_SUSPECT`.
    pub verdict: u32,
    /// The `SGS_WARMUP_REASON_…` flags behind a SUSPECT verdict; 0 with OK and NONE; while
    /// RUNNING, the flags raised so far (e.g. `SGS_WARMUP_REASON_METRIC` after a failed metric
    /// update), which the verdict will carry.
    pub reasons: u32,
    /// Metric updates made (the curvature's and the slow windows').
    pub metric_updates: u32,
    /// Restarts of the dual averaging.
    pub restarts: u32,
    /// Pairs (i < j) of the final window's 10 energy batch means, in time order, with the
    /// later one lower: 45 strictly falling, about 22 stationary (0 below 10 iterations).
    /// 43 or more (of this or of `energy_trend_rising`) is a drift
    /// (`SGS_WARMUP_REASON_ENERGY_TREND`).
    pub energy_trend_falling: u32,
    /// Pairs with the later one higher: 45 strictly rising.
    pub energy_trend_rising: u32,
    /// 1 when the approach stopped at its cap with its estimate of the energy above the mode
    /// still above 2·d (informational, not a reason: the final window tells whether the
    /// chain came in), else 0.
    pub approach_unfinished: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
}

impl sgs_warmup_report {
    fn from_rust(r: &WarmupReport) -> Self {
        sgs_warmup_report {
            step_size: r.step_size,
            target_accept: r.target_accept,
            accept_rate: r.accept_rate,
            energy_trend_z: r.energy_trend_z,
            energy_mean: r.energy_mean,
            energy_sd: r.energy_sd,
            bfmi: r.bfmi,
            condition_number: r.condition_number,
            approach_energy_start: r.approach_energy[0],
            approach_energy_end: r.approach_energy[1],
            iterations: r.iterations,
            approach_iterations: r.approach_iterations,
            divergences: r.divergences,
            window_iterations: r.window_iterations,
            window_divergences: r.window_divergences,
            verdict: r.verdict as u32,
            reasons: r.reasons,
            metric_updates: r.metric_updates,
            restarts: r.restarts,
            energy_trend_falling: r.energy_trend_falling,
            energy_trend_rising: r.energy_trend_rising,
            approach_unfinished: r.approach_unfinished as u32,
            reserved: 0,
        }
    }
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
    /// The `SGS_PHASE_…` the iteration belonged to.
    pub phase: u32,
    /// Inner steps the iteration ran (T, or the jittered draw; 0 in the approach).
    pub steps: u32,
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
        phase: 0,
        steps: 0,
        reserved: 0,
    }
);

chain_states!(sgs_amagold, sgs_amagold_f32, 128, "An AMAGOLD");

impl CChain for AmagoldCore {
    type CConfig = sgs_amagold_config;
    type CInfo = sgs_amagold_info;
    type CSummary = sgs_amagold_run_summary;
    const TAGS: [u64; 2] = tags(b"sgsAMG");
    const NEEDS_ENERGY: bool = true;

    fn validate_config<T: crate::float::Float>(c: &AmagoldConfig) -> Result<(), Error> {
        c.validate_in::<T>()
    }
    fn config_from(c: &sgs_amagold_config) -> Result<AmagoldConfig, Error> {
        let variant = match c.variant {
            SGS_VARIANT_REVERSIBLE => Variant::Reversible,
            SGS_VARIANT_NON_REVERSIBLE => Variant::NonReversible,
            _ => return Err(Error::InvalidOption),
        };
        let mass = match c.mass {
            SGS_MASS_UNIT => Mass::Unit,
            SGS_MASS_DIAGONAL => Mass::Diagonal,
            SGS_MASS_DENSE => Mass::Dense,
            _ => return Err(Error::InvalidOption),
        };
        let flag = |x: u32| match x {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Error::InvalidOption),
        };
        let (approach, jitter_steps) = (flag(c.approach)?, flag(c.jitter_steps)?);
        if c.reserved != 0 {
            return Err(Error::InvalidOption);
        }
        Ok(AmagoldConfig {
            step_size: c.step_size,
            friction: c.friction,
            momentum_sd: c.momentum_sd,
            steps: c.steps,
            variant,
            warmup: c.warmup,
            target_accept: c.target_accept,
            mass,
            approach,
            jitter_steps,
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
            phase: i.phase as u32,
            steps: i.steps,
            reserved: 0,
        }
    }
}

/// The paper's defaults at step size ε: reversible, T = 10, friction 0.25, σ = 1, no warm-up
/// (target acceptance 0.65 and the approach on, if one is switched on), unit mass, fixed T,
/// seed 0, stream 0. Nothing is validated here; `sgs_amagold_init` does that.
#[no_mangle]
pub extern "C" fn sgs_amagold_config_default(step_size: f64) -> sgs_amagold_config {
    config_to_c(&AmagoldConfig::new(step_size))
}

/// The recommended configuration for a model of unknown scale: the paper's chain with a
/// warm-up of 1000 iterations (the approach, then Stan's windows: docs/algorithms.md §1.7)
/// that learns ε and a diagonal mass matrix (`mass = SGS_MASS_DENSE` for a strongly
/// correlated posterior of moderate d), target acceptance 0.65, seed 0, stream 0; step size
/// 0.1 as the first guess the warm-up replaces. Size the workspace with
/// `sgs_amagold_workspace_len_for`.
#[no_mangle]
pub extern "C" fn sgs_amagold_config_adaptive() -> sgs_amagold_config {
    config_to_c(&AmagoldConfig::adaptive())
}

fn config_to_c(c: &AmagoldConfig) -> sgs_amagold_config {
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
        mass: c.mass as u32,
        approach: c.approach as u32,
        jitter_steps: c.jitter_steps as u32,
        reserved: 0,
    }
}

chain_api!(AmagoldCore, f64, "double", "AMAGOLD", sgs_amagold, sgs_amagold_config,
    sgs_amagold_info, sgs_amagold_run_summary, sgs_gradient_fn, [sgs_energy_fn],
    sgs_amagold_workspace_len sgs_amagold_state_size sgs_amagold_state_align sgs_amagold_init
    sgs_amagold_step sgs_amagold_run sgs_amagold_position sgs_amagold_iterations
    sgs_amagold_divergences sgs_amagold_dim sgs_amagold_clear sgs_amagold_copy);
checkpoint_api!(AmagoldCore, f64, "double", "AMAGOLD", sgs_amagold,
    sgs_amagold_export_len sgs_amagold_export sgs_amagold_import);

chain_api!(AmagoldCore, f32, "float", "AMAGOLD", sgs_amagold_f32, sgs_amagold_config,
    sgs_amagold_info, sgs_amagold_run_summary, sgs_gradient_fn_f32, [sgs_energy_fn_f32],
    sgs_amagold_workspace_len_f32 sgs_amagold_state_size_f32 sgs_amagold_state_align_f32
    sgs_amagold_init_f32 sgs_amagold_step_f32 sgs_amagold_run_f32 sgs_amagold_position_f32
    sgs_amagold_iterations_f32 sgs_amagold_divergences_f32 sgs_amagold_dim_f32 sgs_amagold_clear_f32 sgs_amagold_copy_f32);
checkpoint_api!(AmagoldCore, f32, "float", "AMAGOLD", sgs_amagold_f32,
    sgs_amagold_export_len_f32 sgs_amagold_export_f32 sgs_amagold_import_f32);

chain_getter!(block AmagoldCore, f64, sgs_amagold, sgs_amagold_momentum, 2, " Copies the persistent momentum r (d values; meaningful for the non-reversible variant) into `out`.");
chain_getter!(block AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_momentum_f32, 2, " Copies the persistent momentum r (d values; meaningful for the non-reversible variant) into `out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_energy, f64, |c| c.energy(), " Writes the cached energy U(θ) of the current state to `*out`.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_energy_f32, f64, |c| c.energy(), " Writes the cached energy U(θ) of the current state to `*out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_step_size, f64, |c| c.step_size(), " Writes the step size the next iteration will use to `*out`.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_step_size_f32, f64, |c| c.step_size(), " Writes the step size the next iteration will use to `*out`.");
chain_getter!(value AmagoldCore, f64, sgs_amagold, sgs_amagold_in_warmup, u32, |c| c.in_warmup() as u32, " Writes 1 to `*out` while the warm-up is adapting the step size, else 0.");
chain_getter!(value AmagoldCore, f32, sgs_amagold_f32, sgs_amagold_in_warmup_f32, u32, |c| c.in_warmup() as u32, " Writes 1 to `*out` while the warm-up is adapting the step size, else 0.");

/// Generates AMAGOLD's own functions of one coordinate type: the workspace query for a
/// configuration, the mass matrix's getters and setters, the step-size setter, the warm-up
/// report and the comparison of chains.
macro_rules! amagold_api {
    ($T:ty, $ctype:literal, $S:ident, $ws_len_for:ident, $inverse_mass:ident,
     $inverse_mass_dense:ident, $set_step_size:ident, $set_inverse_mass:ident,
     $set_inverse_mass_dense:ident, $report:ident, $compare:ident) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an AMAGOLD chain of")]
        /// dimension `d` started with `*config`: 6·d, plus 4·d with `mass = SGS_MASS_DIAGONAL`
        /// or 2·d + d(d+1) with `SGS_MASS_DENSE`, plus 12·d when `warmup > 0` and `approach = 1`
        /// (saturating at SIZE_MAX). 0 for d = 0, a NULL or misaligned `config`, or an unknown
        /// `mass`.
        ///
        /// # Safety
        /// `config` NULL or valid for a read.
        #[no_mangle]
        pub unsafe extern "C" fn $ws_len_for(config: *const sgs_amagold_config, d: usize) -> usize {
            if check_ptr(config).is_err() || d == 0 {
                return 0;
            }
            // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
            let c = unsafe { config.read() };
            // Only `mass`, `warmup`, `approach` and d size the workspace: the other option words
            // are normalised, so that only an unknown `mass` gives 0 (as documented; an unknown
            // `variant` gave 0 too, found by the fuzz target's workspace oracle).
            let mut probe = c;
            probe.approach = probe.approach.min(1);
            probe.jitter_steps = 0;
            probe.reserved = 0;
            probe.variant = SGS_VARIANT_REVERSIBLE;
            match AmagoldCore::config_from(&probe) {
                Ok(cfg) => workspace_len_for(&cfg, d),
                Err(_) => 0,
            }
        }

        /// Copies the diagonal of the inverse mass matrix relative to σ⁻² (d values kᵢ; with
        /// σ = 1 the inverse mass itself, which the warm-up estimates as the posterior
        /// variances) into `out` (capacity `out_len` ≥ d): d ones for `SGS_MASS_UNIT`, the
        /// diagonal of L·Lᵀ for a dense one. Always positive and finite. Statuses as for the
        /// position getter.
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
                fill_out::<$T, AmagoldCore, $S>(state, out, out_len, |d| d, |c, ws, o| {
                    c.inverse_mass_into(ws, o)
                })
            })
        }

        /// Copies the whole inverse mass matrix relative to σ⁻² (d×d, row-major, symmetric)
        /// into `out` (capacity `out_len` ≥ d²): the identity, a diagonal matrix, or L·Lᵀ.
        /// Statuses as for the position getter (`SGS_ERR_INVALID_ARGUMENT` when d² overflows).
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $inverse_mass_dense(
            state: *const $S,
            out: *mut $T,
            out_len: usize,
        ) -> super::sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                fill_out::<$T, AmagoldCore, $S>(
                    state,
                    out,
                    out_len,
                    |d| d.checked_mul(d).unwrap_or(usize::MAX),
                    |c, ws, o| c.inverse_mass_dense_into(ws, o),
                )
            })
        }

        /// Sets the step size of the next iterations (one learnt elsewhere: a pilot run, an
        /// earlier chain; the chain with a fixed ε and mass is exact). During the warm-up the
        /// dual averaging restarts from it. Returns `SGS_OK`, `SGS_ERR_INVALID_STEP_SIZE` (not
        #[doc = concat!(" finite and positive in `", $ctype, "`), or the state's validation statuses")]
        /// (as for the position getter; `SGS_ERR_BUSY` from inside the chain's callbacks).
        /// Nothing changes on an error.
        ///
        /// # Safety
        /// `state` valid.
        #[no_mangle]
        pub unsafe extern "C" fn $set_step_size(state: *mut $S, step_size: f64) -> super::sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                with_core_mut::<$T, AmagoldCore, $S, $T>(state, core::ptr::null(), 0, |c, _, _| {
                    c.set_step_size::<$T>(step_size)
                })
            })
        }

        /// Sets a diagonal inverse mass matrix relative to σ⁻² (`k_len` = d values, each
        /// positive and finite with a finite 1/√k) on a chain with `SGS_MASS_DIAGONAL` or
        /// `SGS_MASS_DENSE` (the dense factor becomes diagonal). The persistent momentum is
        /// rescaled with it. A warm-up that has not reached its windows keeps it instead of the
        /// approach's curvature; slow windows refine it. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or `k` inside the
        /// state or the workspace), `SGS_ERR_LENGTH_MISMATCH` (`k_len ≠ d`),
        /// `SGS_ERR_INVALID_MASS`, `SGS_ERR_MASS_MISMATCH` (`SGS_MASS_UNIT`), or the state's
        /// validation statuses. Nothing changes on an error.
        ///
        /// # Safety
        /// `state` valid; `k` valid for `k_len` reads.
        #[no_mangle]
        pub unsafe extern "C" fn $set_inverse_mass(
            state: *mut $S,
            k: *const $T,
            k_len: usize,
        ) -> super::sgs_status {
            if k.is_null() {
                return Error::NullPointer.into();
            }
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                with_core_mut::<$T, AmagoldCore, $S, $T>(state, k, k_len, |c, ws, k| {
                    c.set_inverse_mass(ws, k)
                })
            })
        }

        /// Sets a dense inverse mass matrix relative to σ⁻² (`k_len` = d² values, row-major,
        /// symmetric to 1e-12 relative, positive definite: its Cholesky factor is what the
        /// chain keeps) on a chain with `SGS_MASS_DENSE`. Refused with `SGS_ERR_INVALID_MASS`
        /// also while a slow or final window of the warm-up is collecting draws (set it before
        /// the warm-up or after it). Statuses as `…_set_inverse_mass` (`SGS_ERR_MASS_MISMATCH`
        /// for a unit or diagonal chain). Nothing changes on an error.
        ///
        /// # Safety
        /// `state` valid; `k` valid for `k_len` reads.
        #[no_mangle]
        pub unsafe extern "C" fn $set_inverse_mass_dense(
            state: *mut $S,
            k: *const $T,
            k_len: usize,
        ) -> super::sgs_status {
            if k.is_null() {
                return Error::NullPointer.into();
            }
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                with_core_mut::<$T, AmagoldCore, $S, $T>(state, k, k_len, |c, ws, k| {
                    c.set_inverse_mass_dense(ws, k)
                })
            })
        }

        /// Writes the chain's warm-up report to `*out`: the final one (verdict `SGS_WARMUP_OK`
        /// or `SGS_WARMUP_SUSPECT` with its reasons) once the warm-up is over, the statistics
        /// so far (`SGS_WARMUP_RUNNING`) while it runs, `SGS_WARMUP_NONE` without one. One
        /// chain cannot see that it disagrees with others: use `…_warmup_compare` for the
        /// chains of one model. Statuses as for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $report(
            state: *const $S,
            out: *mut sgs_warmup_report,
        ) -> super::sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                get::<$T, AmagoldCore, $S, sgs_warmup_report>(state, out, |c| {
                    sgs_warmup_report::from_rust(&c.warmup_report())
                })
            })
        }

        /// The warm-up reports of the `k` chains `states[0..k]` of one model into
        /// `out[0..k]`, compared: each chain's own verdict, and
        /// `SGS_WARMUP_REASON_CHAINS_DISAGREE` (verdict SUSPECT) where a chain's final-window
        /// mean energy is more than 2 median energy sds from the chains' median, or, with a
        /// mass matrix, the final windows' positions give a classic R̂ above 1.1 in some
        /// coordinate (then in every chain). Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ZERO_DIMENSION` (`k = 0`), `SGS_ERR_LENGTH_MISMATCH` (chains of different
        /// dimensions), `SGS_ERR_OUTPUT_TOO_SMALL` (`out_len < k`), `SGS_ERR_INVALID_ARGUMENT`
        /// (misaligned, `out` overlapping a state, a workspace or `states`), and any state's
        /// validation statuses. Any number of chains (the comparison keeps nothing per
        /// chain). Nothing is written on an error.
        ///
        /// # Safety
        /// `states` valid for `k` reads, each a valid state; `out` valid for `out_len` writes.
        #[no_mangle]
        pub unsafe extern "C" fn $compare(
            states: *const *const $S,
            k: usize,
            out: *mut sgs_warmup_report,
            out_len: usize,
        ) -> super::sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { compare::<$T, $S>(states, k, out, out_len) })
        }
    };
}

/// `sgs_amagold_warmup_compare` for one coordinate type.
///
/// # Safety
/// Its C contract.
unsafe fn compare<T: CFloat, S: 'static>(
    states: *const *const S,
    k: usize,
    out: *mut sgs_warmup_report,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(states)?;
    check_ptr(out)?;
    if k == 0 {
        return Err(Error::ZeroDimension);
    }
    // SAFETY: forwarded contract.
    let get = unsafe { cores_of::<T, AmagoldCore, S>(states, k)? };
    check_array(out, out_len)?;
    let o = Span::of(out, out_len);
    // SAFETY: `cores_of` validated every state.
    if !unsafe { state_spans::<T, AmagoldCore, S>(states, k, |s| !Span::overlaps(&o, &s)) } {
        return Err(Error::InvalidArgument);
    }
    if out_len < k {
        return Err(Error::OutputTooSmall);
    }
    // SAFETY: checked: a valid array of `out_len ≥ k` reports, disjoint from every state;
    // written only after `compare_cores` has checked everything.
    let out = unsafe { core::slice::from_raw_parts_mut(out, k) };
    compare_cores::<T>(k, get, |i, r| {
        if let Some(o) = out.get_mut(i) {
            *o = sgs_warmup_report::from_rust(&r);
        }
    })
}

amagold_api!(
    f64,
    "double",
    sgs_amagold,
    sgs_amagold_workspace_len_for,
    sgs_amagold_inverse_mass,
    sgs_amagold_inverse_mass_dense,
    sgs_amagold_set_step_size,
    sgs_amagold_set_inverse_mass,
    sgs_amagold_set_inverse_mass_dense,
    sgs_amagold_warmup_report,
    sgs_amagold_warmup_compare
);
amagold_api!(
    f32,
    "float",
    sgs_amagold_f32,
    sgs_amagold_workspace_len_for_f32,
    sgs_amagold_inverse_mass_f32,
    sgs_amagold_inverse_mass_dense_f32,
    sgs_amagold_set_step_size_f32,
    sgs_amagold_set_inverse_mass_f32,
    sgs_amagold_set_inverse_mass_dense_f32,
    sgs_amagold_warmup_report_f32,
    sgs_amagold_warmup_compare_f32
);
