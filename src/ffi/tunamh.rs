//! TunaMH in C: its config, info and callback types, and the mapping onto the generic chain
//! layer (`chain.rs`), which generates `sgs_tunamh_…` (double) and `sgs_tunamh_…_f32` (float).
//!
//! Its two callbacks are not an energy and a gradient: they are stored in the chain state's two
//! callback slots ([`Slot`]) and cast back to their own types by [`CModel`]'s [`Terms`]
//! implementation, the only code that calls them (a state tagged TunaMH was filled by
//! `sgs_tunamh_init`, so its slots hold TunaMH callbacks).

use super::chain::{c_summary, chain_api, chain_getter, chain_states, tags, CChain, Slot};
use super::checkpoint::checkpoint_api;
use super::common::*;
use crate::error::{Error, Stop};
use crate::float::Float;
use crate::tunamh::{Terms, TunamhConfig, TunamhCore, TunamhInfo};
use core::ffi::c_void;

/// Term-differences callback of a TunaMH chain (`double` coordinates): for each j below
/// `count` (at most 32), writes `U_i(proposal) − U_i(theta)` for the term `i = indices[j]`
/// (below the configuration's `terms`) into `differences[j]`, and returns an `SGS_CB_…` status.
/// `theta` and `proposal` have `d` values. Each difference must stay within
/// `bound·‖proposal − theta‖₂` (the configuration's `bound`): one past it makes the step return
/// `SGS_ERR_BOUND_EXCEEDED`. REJECT rejects the proposal (the iteration's outcome is
/// `SGS_OUTCOME_OUT_OF_DOMAIN`); a non-finite difference makes it a divergence.
pub type sgs_differences_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f64,
        proposal: *const f64,
        d: usize,
        indices: *const u64,
        count: usize,
        differences: *mut f64,
    ) -> i32,
>;
/// Term-differences callback (`float` coordinates; the differences are still `double`).
pub type sgs_differences_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f32,
        proposal: *const f32,
        d: usize,
        indices: *const u64,
        count: usize,
        differences: *mut f64,
    ) -> i32,
>;
/// The exact part's callback of a TunaMH chain (`double` coordinates): writes
/// `U₀(proposal) − U₀(theta)`, the part of the energy evaluated in full at every step (a prior),
/// into `*difference` (NaN on entry) and returns an `SGS_CB_…` status. May be NULL: no such part.
pub type sgs_exact_difference_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f64,
        proposal: *const f64,
        d: usize,
        difference: *mut f64,
    ) -> i32,
>;
/// The exact part's callback (`float` coordinates; the difference is still `double`).
pub type sgs_exact_difference_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f32,
        proposal: *const f32,
        d: usize,
        difference: *mut f64,
    ) -> i32,
>;

/// Hyperparameters of a TunaMH chain (shared by the double and float functions). Start from
/// `sgs_tunamh_config_default(step_size, terms, bound)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_tunamh_config {
    /// The random-walk proposal's standard deviation σ > 0: θ′ = θ + σ·z.
    pub step_size: f64,
    /// The per-term bound c > 0: |U_i(θ′) − U_i(θ)| ≤ c·‖θ′ − θ‖₂ for every term and pair of
    /// points (e.g. max ‖x_i‖ for a logistic regression's terms).
    pub bound: f64,
    /// The batch constant χ > 0 (default 1): λ = χ·L² with L = c·N·‖θ′ − θ‖₂; a step asks for
    /// Poisson(λ + L) term differences, or all N when that mean reaches N.
    pub chi: f64,
    /// The number of terms N ≥ 1.
    pub terms: u64,
    /// Seed of the generator (its stream: `stream`).
    pub seed: u64,
    /// Stream id: same seed, different streams give independent chains.
    pub stream: u64,
}

/// What one TunaMH iteration did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_tunamh_info {
    /// The log acceptance ratio (NaN when the iteration ended before it was complete).
    pub log_ratio: f64,
    /// Term differences asked for (the Poisson batch size, or N for a full pass).
    pub evaluations: u64,
    /// Of those, the ones kept in the ratio.
    pub kept: u64,
    /// Outer iterations done since init, this one included.
    pub iteration: u64,
    /// Divergent iterations since init.
    pub divergences: u64,
    /// `SGS_OUTCOME_…`.
    pub outcome: u32,
    /// 1 if the proposal was accepted.
    pub accepted: u32,
    /// 1 if the iteration evaluated every term (its expected batch reached N).
    pub full_pass: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
}

/// Totals of a TunaMH run.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_tunamh_run_summary {
    /// Iterations completed (also on error: rows `0..iterations` of the output are valid).
    pub iterations: u64,
    /// Accepted proposals among them.
    pub accepted: u64,
    /// Divergent iterations among them.
    pub divergences: u64,
    /// 1 if `last` holds the last completed iteration, 0 if none completed.
    pub has_last: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
    /// The info of the last completed iteration.
    pub last: sgs_tunamh_info,
}

c_summary!(
    sgs_tunamh_run_summary,
    sgs_tunamh_info,
    sgs_tunamh_info {
        log_ratio: 0.0,
        evaluations: 0,
        kept: 0,
        iteration: 0,
        divergences: 0,
        outcome: 0,
        accepted: 0,
        full_pass: 0,
        reserved: 0
    }
);

chain_states!(sgs_tunamh, sgs_tunamh_f32, 40, "A TunaMH");

impl CChain for TunamhCore {
    type CConfig = sgs_tunamh_config;
    type CInfo = sgs_tunamh_info;
    type CSummary = sgs_tunamh_run_summary;
    const TAGS: [u64; 2] = tags(b"sgsTMH");
    const NEEDS_ENERGY: bool = false;

    fn config_from(c: &sgs_tunamh_config) -> Result<TunamhConfig, Error> {
        Ok(TunamhConfig {
            step_size: c.step_size,
            terms: c.terms,
            bound: c.bound,
            chi: c.chi,
            seed: c.seed,
            stream: c.stream,
        })
    }
    fn validate_config<T: Float>(c: &TunamhConfig) -> Result<(), Error> {
        c.validate_in::<T>()
    }
    fn info_to_c(i: &TunamhInfo) -> sgs_tunamh_info {
        sgs_tunamh_info {
            log_ratio: i.log_ratio,
            evaluations: i.evaluations,
            kept: i.kept,
            iteration: i.iteration,
            divergences: i.divergences,
            outcome: i.outcome as u32,
            accepted: i.accepted as u32,
            full_pass: i.full_pass as u32,
            reserved: 0,
        }
    }
}

/// The slot casts and the model, for one coordinate type.
macro_rules! tunamh_model {
    ($T:ty, $Diff:ty, $Exact:ty) => {
        impl Slot<RawGradient<$T>> for $Diff {
            fn into_slot(self) -> Option<RawGradient<$T>> {
                // SAFETY: a function pointer under another function-pointer type (same size, no
                // invalid values); `Terms` casts it back before calling it.
                self.map(|f| unsafe { core::mem::transmute::<_, RawGradient<$T>>(f) })
            }
        }
        impl Slot<RawEnergy<$T>> for $Exact {
            fn into_slot(self) -> Option<RawEnergy<$T>> {
                // SAFETY: as above.
                self.map(|f| unsafe { core::mem::transmute::<_, RawEnergy<$T>>(f) })
            }
        }

        impl Terms<$T> for CModel<$T> {
            fn differences(
                &mut self,
                theta: &[$T],
                proposal: &[$T],
                indices: &[u64],
                out: &mut [f64],
            ) -> Result<(), Stop> {
                type F = <$Diff as IntoIterator>::Item;
                // SAFETY: this state's gradient slot holds a differences callback (see the
                // module docs); cast back to its own type.
                let f = unsafe { core::mem::transmute::<RawGradient<$T>, F>(self.gradient) };
                // A callback that writes nothing must not reuse stale values: NaN makes it a
                // divergence.
                out.fill(f64::NAN);
                // SAFETY: live slices of the stated lengths.
                let s = unsafe {
                    f(
                        self.user_data,
                        theta.as_ptr(),
                        proposal.as_ptr(),
                        theta.len(),
                        indices.as_ptr(),
                        indices.len(),
                        out.as_mut_ptr(),
                    )
                };
                stop_of(s)
            }
            fn exact_difference(&mut self, theta: &[$T], proposal: &[$T]) -> Result<f64, Stop> {
                type F = <$Exact as IntoIterator>::Item;
                let Some(g) = self.energy else {
                    return Ok(0.0);
                };
                // SAFETY: as above, for the energy slot.
                let f = unsafe { core::mem::transmute::<RawEnergy<$T>, F>(g) };
                let mut v = f64::NAN;
                // SAFETY: live slices; `v` a live local.
                let s = unsafe {
                    f(
                        self.user_data,
                        theta.as_ptr(),
                        proposal.as_ptr(),
                        theta.len(),
                        &mut v,
                    )
                };
                stop_of(s)?;
                Ok(v)
            }
        }
    };
}

tunamh_model!(f64, sgs_differences_fn, sgs_exact_difference_fn);
tunamh_model!(f32, sgs_differences_fn_f32, sgs_exact_difference_fn_f32);

/// Step size σ, N terms with per-term bound c, χ = 1, seed 0, stream 0. Nothing is validated
/// here; `sgs_tunamh_init` does that.
#[no_mangle]
pub extern "C" fn sgs_tunamh_config_default(
    step_size: f64,
    terms: u64,
    bound: f64,
) -> sgs_tunamh_config {
    let c = TunamhConfig::new(step_size, terms, bound);
    sgs_tunamh_config {
        step_size: c.step_size,
        bound: c.bound,
        chi: c.chi,
        terms: c.terms,
        seed: c.seed,
        stream: c.stream,
    }
}

chain_api!(TunamhCore, f64, "double", "TunaMH", sgs_tunamh, sgs_tunamh_config, sgs_tunamh_info,
    sgs_tunamh_run_summary, differences: sgs_differences_fn,
    [exact_difference: sgs_exact_difference_fn], sgs_tunamh_workspace_len sgs_tunamh_state_size
    sgs_tunamh_state_align sgs_tunamh_init sgs_tunamh_step sgs_tunamh_run sgs_tunamh_position
    sgs_tunamh_iterations sgs_tunamh_divergences sgs_tunamh_dim sgs_tunamh_clear sgs_tunamh_copy);
checkpoint_api!(TunamhCore, f64, "double", "TunaMH", sgs_tunamh,
    sgs_tunamh_export_len sgs_tunamh_export sgs_tunamh_import);

chain_api!(TunamhCore, f32, "float", "TunaMH", sgs_tunamh_f32, sgs_tunamh_config,
    sgs_tunamh_info, sgs_tunamh_run_summary, differences: sgs_differences_fn_f32,
    [exact_difference: sgs_exact_difference_fn_f32], sgs_tunamh_workspace_len_f32
    sgs_tunamh_state_size_f32 sgs_tunamh_state_align_f32 sgs_tunamh_init_f32 sgs_tunamh_step_f32
    sgs_tunamh_run_f32 sgs_tunamh_position_f32 sgs_tunamh_iterations_f32
    sgs_tunamh_divergences_f32 sgs_tunamh_dim_f32 sgs_tunamh_clear_f32 sgs_tunamh_copy_f32);
checkpoint_api!(TunamhCore, f32, "float", "TunaMH", sgs_tunamh_f32,
    sgs_tunamh_export_len_f32 sgs_tunamh_export_f32 sgs_tunamh_import_f32);

chain_getter!(value TunamhCore, f64, sgs_tunamh, sgs_tunamh_accepted, u64, |c| c.accepted(), " Writes the number of accepted proposals since init to `*out`.");
chain_getter!(value TunamhCore, f32, sgs_tunamh_f32, sgs_tunamh_accepted_f32, u64, |c| c.accepted(), " Writes the number of accepted proposals since init to `*out`.");
chain_getter!(value TunamhCore, f64, sgs_tunamh, sgs_tunamh_evaluations, u64, |c| c.evaluations(), " Writes the number of term differences asked for since init to `*out` (what a data budget counts).");
chain_getter!(value TunamhCore, f32, sgs_tunamh_f32, sgs_tunamh_evaluations_f32, u64, |c| c.evaluations(), " Writes the number of term differences asked for since init to `*out` (what a data budget counts).");
