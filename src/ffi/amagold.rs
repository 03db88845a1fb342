//! AMAGOLD through the C ABI: `sgs_amagold_…` (double) and `sgs_amagold_…_f32` (float).

use super::common::*;
use crate::amagold::{workspace_len, AmagoldCore};
use crate::error::Error;
use crate::float::Float;
use crate::{AmagoldConfig, AmagoldInfo, Outcome, Variant};
use core::ffi::c_void;
use core::mem::{align_of, size_of};

/// `sgs_amagold_config.variant`: momentum resampled every outer iteration (the paper's default).
pub const SGS_VARIANT_REVERSIBLE: u32 = 0;
/// `sgs_amagold_config.variant`: skew-reversible; the momentum persists and is negated on reject.
pub const SGS_VARIANT_NON_REVERSIBLE: u32 = 1;

/// `sgs_amagold_info.outcome`: the proposal was accepted.
pub const SGS_OUTCOME_ACCEPTED: u32 = 0;
/// `sgs_amagold_info.outcome`: the Metropolis–Hastings test rejected the proposal.
pub const SGS_OUTCOME_REJECTED: u32 = 1;
/// `sgs_amagold_info.outcome`: a callback returned REJECT (the trajectory left the domain).
pub const SGS_OUTCOME_OUT_OF_DOMAIN: u32 = 2;
/// `sgs_amagold_info.outcome`: the energy or ρ was not finite (rejected, counted as divergence).
pub const SGS_OUTCOME_DIVERGENT: u32 = 3;

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
    /// One of the `SGS_OUTCOME_…` values.
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
    /// Samples written (also on error: rows `0..samples` of the output are valid).
    pub samples: u64,
    /// Accepted proposals among them.
    pub accepted: u64,
    /// Divergent iterations among them.
    pub divergences: u64,
    /// Info of the last completed iteration (its `iteration` field is 0 when none completed).
    pub last: sgs_amagold_info,
}

/// An AMAGOLD chain on `double` coordinates, in caller memory. Opaque: fill it with
/// `sgs_amagold_init`. Zero-initialise it (`sgs_amagold s = {{0}};`) so that use before init is
/// detected.
#[repr(C)]
pub struct sgs_amagold {
    _opaque: [u64; 48],
}

/// An AMAGOLD chain on `float` coordinates, in caller memory (see `sgs_amagold`).
#[repr(C)]
pub struct sgs_amagold_f32 {
    _opaque: [u64; 48],
}

/// The Rust state stored in `sgs_amagold` / `sgs_amagold_f32`.
#[repr(C)]
struct State<T> {
    tag: u64,
    ws: *mut T,
    ws_len: usize,
    energy: RawEnergy<T>,
    gradient: RawGradient<T>,
    user_data: *mut c_void,
    core: AmagoldCore,
}

const _: () = {
    assert!(size_of::<State<f64>>() <= size_of::<sgs_amagold>());
    assert!(align_of::<State<f64>>() <= align_of::<sgs_amagold>());
    assert!(size_of::<State<f32>>() <= size_of::<sgs_amagold_f32>());
    assert!(align_of::<State<f32>>() <= align_of::<sgs_amagold_f32>());
};

const TAG_F64: u64 = u64::from_le_bytes(*b"sgsAMG64");
const TAG_F32: u64 = u64::from_le_bytes(*b"sgsAMG32");

impl<T: Float> State<T> {
    fn model(&self) -> CModel<T> {
        CModel {
            energy: Some(self.energy),
            gradient: self.gradient,
            user_data: self.user_data,
        }
    }
}

fn config_default(step_size: f64) -> sgs_amagold_config {
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
    }
}

fn config_from(c: &sgs_amagold_config) -> Result<AmagoldConfig, Error> {
    let variant = match c.variant {
        SGS_VARIANT_REVERSIBLE => Variant::Reversible,
        SGS_VARIANT_NON_REVERSIBLE => Variant::NonReversible,
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
        seed: c.seed,
        stream: c.stream,
    })
}

fn info_from(i: &AmagoldInfo) -> sgs_amagold_info {
    sgs_amagold_info {
        log_accept: i.log_accept,
        rho: i.rho,
        energy: i.energy,
        accept_rate: i.accept_rate,
        step_size: i.step_size,
        iteration: i.iteration,
        divergences: i.divergences,
        outcome: match i.outcome {
            Outcome::Accepted => SGS_OUTCOME_ACCEPTED,
            Outcome::Rejected => SGS_OUTCOME_REJECTED,
            Outcome::OutOfDomain => SGS_OUTCOME_OUT_OF_DOMAIN,
            Outcome::Divergent => SGS_OUTCOME_DIVERGENT,
        },
        accepted: i.accepted as u32,
        warmup: i.warmup as u32,
        reserved: 0,
    }
}

/// # Safety
/// The C contract of `sgs_amagold_init`.
#[allow(clippy::too_many_arguments)]
unsafe fn init<T: Float, S>(
    tag: u64,
    state: *mut S,
    config: *const sgs_amagold_config,
    theta0: *const T,
    d: usize,
    ws: *mut T,
    ws_len: usize,
    energy: Option<RawEnergy<T>>,
    gradient: Option<RawGradient<T>>,
    user_data: *mut c_void,
) -> Result<(), Error> {
    check_ptr(state)?;
    check_ptr(config)?;
    check_ptr(theta0)?;
    check_ptr(ws)?;
    let (Some(energy), Some(gradient)) = (energy, gradient) else {
        return Err(Error::NullPointer);
    };
    check_array(theta0, d)?;
    check_array(ws, ws_len)?;
    if overlap(ws, ws_len, state, 1) || overlap(ws, ws_len, theta0, d) {
        return Err(Error::InvalidArgument);
    }
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    let cfg = config_from(unsafe { &config.read() })?;
    // SAFETY: checked above; the two buffers are disjoint.
    let (theta0, ws_slice) = unsafe {
        (
            core::slice::from_raw_parts(theta0, d),
            workspace(ws, ws_len),
        )
    };
    let mut model = CModel {
        energy: Some(energy),
        gradient,
        user_data,
    };
    let core = AmagoldCore::new(&cfg, theta0, ws_slice, &mut model)?;
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions).
    unsafe {
        state.cast::<State<T>>().write(State {
            tag,
            ws,
            ws_len,
            energy,
            gradient,
            user_data,
            core,
        })
    };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_amagold_step`.
unsafe fn step<T: Float, S>(
    tag: u64,
    state: *mut S,
    info: *mut sgs_amagold_info,
) -> Result<(), Error> {
    check_opt(info)?;
    // SAFETY: contract of the caller.
    let st: &mut State<T> = unsafe { state_mut(state, tag)? };
    if !info.is_null() && overlap(info, 1, state, 1) {
        return Err(Error::InvalidArgument);
    }
    let mut model = st.model();
    // SAFETY: the workspace checked at init.
    let ws = unsafe { workspace(st.ws, st.ws_len) };
    let i = st.core.step(ws, &mut model)?;
    // SAFETY: checked aligned; NULL skips.
    unsafe { put(info, info_from(&i)) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_amagold_run`.
unsafe fn run<T: Float, S>(
    tag: u64,
    state: *mut S,
    n: usize,
    out: *mut T,
    out_len: usize,
    samples_done: *mut usize,
    summary: *mut sgs_amagold_run_summary,
) -> Result<(), Error> {
    check_opt(samples_done)?;
    check_opt(summary)?;
    // SAFETY: checked aligned; NULL skips.
    unsafe { put(samples_done, 0) };
    // SAFETY: contract of the caller.
    let st: &mut State<T> = unsafe { state_mut(state, tag)? };
    let d = st.core.d;
    let need = n.checked_mul(d).ok_or(Error::OutputTooSmall)?;
    if n > 0 {
        check_array(out, out_len)?;
        if overlap(out, out_len, st.ws, st.ws_len) || overlap(out, out_len, state, 1) {
            return Err(Error::InvalidArgument);
        }
    }
    if out_len < need {
        return Err(Error::OutputTooSmall);
    }
    let mut model = st.model();
    // SAFETY: the workspace checked at init; `out` checked above and disjoint from it.
    let (ws, out) = unsafe {
        (
            workspace(st.ws, st.ws_len),
            if n > 0 {
                core::slice::from_raw_parts_mut(out, need)
            } else {
                &mut []
            },
        )
    };
    let mut total = sgs_amagold_run_summary {
        samples: 0,
        accepted: 0,
        divergences: 0,
        last: sgs_amagold_info {
            log_accept: f64::NAN,
            rho: f64::NAN,
            energy: st.core.energy(),
            accept_rate: f64::NAN,
            step_size: st.core.step_size(),
            iteration: 0,
            divergences: st.core.divergences(),
            outcome: SGS_OUTCOME_REJECTED,
            accepted: 0,
            warmup: st.core.in_warmup() as u32,
            reserved: 0,
        },
    };
    // Step by step (rather than through the core's `run`) so that the totals of the completed
    // rows survive an abort.
    let mut result = Ok(());
    for row in out.chunks_exact_mut(d) {
        match st.core.step(ws, &mut model) {
            Ok(i) => {
                row.copy_from_slice(&ws[..d]);
                total.samples += 1;
                total.accepted += i.accepted as u64;
                total.divergences += (i.outcome == Outcome::Divergent) as u64;
                total.last = info_from(&i);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    // SAFETY: checked aligned; NULL skips.
    unsafe {
        put(samples_done, total.samples as usize);
        put(summary, total);
    }
    result
}

/// Copies block `block` (of d coordinates) of the workspace into `out`.
///
/// # Safety
/// The C contract of the getters.
unsafe fn copy_out<T: Float, S>(
    tag: u64,
    state: *const S,
    block: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let st: &State<T> = unsafe { state_ref(state, tag)? };
    let d = st.core.d;
    // SAFETY: the workspace checked at init holds at least 6·d coordinates.
    unsafe {
        copy_to_caller(
            state,
            &[(st.ws, st.ws_len)],
            st.ws.wrapping_add(block * d),
            d,
            out,
            out_len,
        )
    }
}

/// Reads one value of a state.
///
/// # Safety
/// The C contract of the getters.
unsafe fn get<T: Float, S, V>(
    tag: u64,
    state: *const S,
    out: *mut V,
    f: impl FnOnce(&AmagoldCore) -> V,
) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    unsafe { get_value(tag, state, out, |st: &State<T>| f(&st.core)) }
}

/// Generates the C functions of one coordinate type from the generic ones above.
macro_rules! amagold_api {
    (
        float = $T:ty, ctype = $ctype:literal, state = $S:ident, tag = $tag:expr,
        energy_fn = $E:ident, gradient_fn = $G:ident,
        workspace_len = $ws_len:ident, init = $init:ident, step = $step:ident, run = $run:ident,
        position = $position:ident, momentum = $momentum:ident, energy = $energy:ident,
        step_size = $step_size:ident, iterations = $iterations:ident,
        divergences = $divergences:ident, in_warmup = $in_warmup:ident, dim = $dim:ident,
    ) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an AMAGOLD chain of")]
        /// dimension `d`: 6·d (saturating at SIZE_MAX; 0 for d = 0).
        #[no_mangle]
        pub extern "C" fn $ws_len(d: usize) -> usize {
            workspace_len(d)
        }

        #[doc = concat!(" Starts an AMAGOLD chain on `", $ctype, "` coordinates at `theta0`.")]
        ///
        /// Checks every argument, evaluates `energy` at `theta0` (once), then fills `*state` and
        /// the workspace. `workspace` must hold at least `…_workspace_len(d)` elements, must not
        /// overlap `state` or `theta0`, and must stay alive (with the callbacks and `user_data`)
        /// while the state is used. The reversible variant draws nothing here; the
        /// non-reversible one draws its initial momentum.
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER` (any pointer but `user_data`),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_INVALID_OPTION` (variant),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL`, `SGS_ERR_INVALID_STEP_SIZE`, `SGS_ERR_INVALID_FRICTION`,
        /// `SGS_ERR_INVALID_MOMENTUM_SCALE`, `SGS_ERR_INVALID_STEPS`,
        /// `SGS_ERR_INVALID_TARGET_ACCEPTANCE`, `SGS_ERR_INVALID_POSITION`,
        /// `SGS_ERR_INITIAL_ENERGY_REJECTED`, `SGS_ERR_CALLBACK_ABORTED`. On error neither
        /// `*state` nor the workspace is modified (a previously initialised state stays usable).
        ///
        /// # Safety
        /// Pointers must be valid for the stated lengths; callbacks must follow their contract.
        #[no_mangle]
        pub unsafe extern "C" fn $init(
            state: *mut $S,
            config: *const sgs_amagold_config,
            theta0: *const $T,
            d: usize,
            workspace: *mut $T,
            workspace_len: usize,
            energy: $E,
            gradient: $G,
            user_data: *mut c_void,
        ) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                init::<$T, $S>(
                    $tag,
                    state,
                    config,
                    theta0,
                    d,
                    workspace,
                    workspace_len,
                    energy,
                    gradient,
                    user_data,
                )
            })
        }

        /// One outer iteration: T stochastic-gradient steps, one energy evaluation, one
        /// accept/reject test. Writes what happened to `*info` unless `info` is NULL.
        ///
        /// Returns `SGS_OK` (whatever the outcome), `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_INVALID_ARGUMENT` (misaligned `info`) or
        /// `SGS_ERR_CALLBACK_ABORTED`; on an error the chain (position, momentum, energy,
        /// counters, generator) is exactly as before the call, so retrying repeats the same draws.
        /// The scratch part of the workspace is not preserved.
        ///
        /// # Safety
        /// `state` must be a valid state whose workspace and callbacks are alive.
        #[no_mangle]
        pub unsafe extern "C" fn $step(state: *mut $S, info: *mut sgs_amagold_info) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { step::<$T, $S>($tag, state, info) })
        }

        /// Runs `n` outer iterations, copying the position after each into the next row of `out`
        /// (`n` rows of d values; `out_len` is the capacity of `out` in elements, at least n·d).
        /// `*samples_done` (always written unless NULL) counts the rows written, also on error;
        /// `*summary` (unless NULL) gets the totals. `out` may be NULL when `n` is 0.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers),
        /// `SGS_ERR_OUTPUT_TOO_SMALL` (nothing is run) or `SGS_ERR_CALLBACK_ABORTED` (the chain
        /// is at its state after the last written row).
        ///
        /// # Safety
        /// As for the step function; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $run(
            state: *mut $S,
            n: usize,
            out: *mut $T,
            out_len: usize,
            samples_done: *mut usize,
            summary: *mut sgs_amagold_run_summary,
        ) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { run::<$T, $S>($tag, state, n, out, out_len, samples_done, summary) })
        }

        /// Copies the current position θ (d values) into `out` (capacity `out_len` ≥ d).
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT` or `SGS_ERR_OUTPUT_TOO_SMALL`.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $position(state: *const $S, out: *mut $T, out_len: usize) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { copy_out::<$T, $S>($tag, state, 0, out, out_len) })
        }

        /// Copies the persistent momentum r (d values; meaningful for the non-reversible
        /// variant) into `out`. Statuses as for the position getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $momentum(state: *const $S, out: *mut $T, out_len: usize) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { copy_out::<$T, $S>($tag, state, 2, out, out_len) })
        }

        /// Writes the cached energy U(θ) of the current state to `*u`.
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` or
        /// `SGS_ERR_NOT_INITIALISED`.
        ///
        /// # Safety
        /// `state` valid; `u` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $energy(state: *const $S, u: *mut f64) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, f64>($tag, state, u, |c| c.energy()) })
        }

        /// Writes the step size the next iteration will use to `*step_size`. Statuses as for
        /// the energy getter.
        ///
        /// # Safety
        /// `state` valid; `step_size` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $step_size(state: *const $S, step_size: *mut f64) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, f64>($tag, state, step_size, |c| c.step_size()) })
        }

        /// Writes the number of outer iterations done to `*iterations`. Statuses as for the
        /// energy getter.
        ///
        /// # Safety
        /// `state` valid; `iterations` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $iterations(state: *const $S, iterations: *mut u64) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, u64>($tag, state, iterations, |c| c.iterations()) })
        }

        /// Writes the number of divergent iterations so far to `*divergences`. Statuses as for
        /// the energy getter.
        ///
        /// # Safety
        /// `state` valid; `divergences` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $divergences(state: *const $S, divergences: *mut u64) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, u64>($tag, state, divergences, |c| c.divergences()) })
        }

        /// Writes 1 to `*in_warmup` while the warm-up is adapting the step size, else 0.
        /// Statuses as for the energy getter.
        ///
        /// # Safety
        /// `state` valid; `in_warmup` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $in_warmup(state: *const $S, in_warmup: *mut u32) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                get::<$T, $S, u32>($tag, state, in_warmup, |c| c.in_warmup() as u32)
            })
        }

        /// Writes the dimension d to `*d`. Statuses as for the energy getter.
        ///
        /// # Safety
        /// `state` valid; `d` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $dim(state: *const $S, d: *mut usize) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, usize>($tag, state, d, |c| c.d) })
        }
    };
}

/// The paper's defaults at step size ε: reversible, T = 10, friction 0.25, σ = 1, no warm-up
/// (target acceptance 0.65 if one is switched on), seed 0, stream 0. Nothing is validated here;
/// `sgs_amagold_init` does that.
#[no_mangle]
pub extern "C" fn sgs_amagold_config_default(step_size: f64) -> sgs_amagold_config {
    config_default(step_size)
}

amagold_api! {
    float = f64, ctype = "double", state = sgs_amagold, tag = TAG_F64,
    energy_fn = sgs_energy_fn, gradient_fn = sgs_gradient_fn,
    workspace_len = sgs_amagold_workspace_len, init = sgs_amagold_init, step = sgs_amagold_step,
    run = sgs_amagold_run, position = sgs_amagold_position, momentum = sgs_amagold_momentum,
    energy = sgs_amagold_energy, step_size = sgs_amagold_step_size,
    iterations = sgs_amagold_iterations, divergences = sgs_amagold_divergences,
    in_warmup = sgs_amagold_in_warmup, dim = sgs_amagold_dim,
}

amagold_api! {
    float = f32, ctype = "float", state = sgs_amagold_f32, tag = TAG_F32,
    energy_fn = sgs_energy_fn_f32, gradient_fn = sgs_gradient_fn_f32,
    workspace_len = sgs_amagold_workspace_len_f32, init = sgs_amagold_init_f32,
    step = sgs_amagold_step_f32, run = sgs_amagold_run_f32,
    position = sgs_amagold_position_f32, momentum = sgs_amagold_momentum_f32,
    energy = sgs_amagold_energy_f32, step_size = sgs_amagold_step_size_f32,
    iterations = sgs_amagold_iterations_f32, divergences = sgs_amagold_divergences_f32,
    in_warmup = sgs_amagold_in_warmup_f32, dim = sgs_amagold_dim_f32,
}
