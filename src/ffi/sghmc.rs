//! SGHMC through the C ABI: `sgs_sghmc_…` (double) and `sgs_sghmc_…_f32` (float).

use super::common::*;
use crate::error::Error;
use crate::float::Float;
use crate::sghmc::{workspace_len, SghmcCore};
use crate::SghmcConfig;
use core::ffi::c_void;
use core::mem::{align_of, size_of};

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
}

/// What one SGHMC outer iteration did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_sghmc_info {
    /// Outer iterations done since init, this one included.
    pub iteration: u64,
    /// 1 if the gradient callback returned REJECT and the iteration was discarded (the chain
    /// stayed where it was; the generator moved on), else 0.
    pub rejected: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
}

/// An SGHMC chain on `double` coordinates, in caller memory. Opaque: fill it with
/// `sgs_sghmc_init`; zero-initialise it first (`sgs_sghmc s = {{0}};`).
#[repr(C)]
pub struct sgs_sghmc {
    _opaque: [u64; 24],
}

/// An SGHMC chain on `float` coordinates, in caller memory (see `sgs_sghmc`).
#[repr(C)]
pub struct sgs_sghmc_f32 {
    _opaque: [u64; 24],
}

#[repr(C)]
struct State<T> {
    tag: u64,
    ws: *mut T,
    ws_len: usize,
    gradient: RawGradient<T>,
    user_data: *mut c_void,
    core: SghmcCore,
}

const _: () = {
    assert!(size_of::<State<f64>>() <= size_of::<sgs_sghmc>());
    assert!(align_of::<State<f64>>() <= align_of::<sgs_sghmc>());
    assert!(size_of::<State<f32>>() <= size_of::<sgs_sghmc_f32>());
    assert!(align_of::<State<f32>>() <= align_of::<sgs_sghmc_f32>());
};

const TAG_F64: u64 = u64::from_le_bytes(*b"sgsSGH64");
const TAG_F32: u64 = u64::from_le_bytes(*b"sgsSGH32");

impl<T: Float> State<T> {
    fn model(&self) -> CModel<T> {
        CModel {
            energy: None,
            gradient: self.gradient,
            user_data: self.user_data,
        }
    }
}

fn config_from(c: &sgs_sghmc_config) -> Result<SghmcConfig, Error> {
    let resample_momentum = match c.resample_momentum {
        0 => false,
        1 => true,
        _ => return Err(Error::InvalidOption),
    };
    Ok(SghmcConfig {
        step_size: c.step_size,
        friction: c.friction,
        momentum_sd: c.momentum_sd,
        steps: c.steps,
        resample_momentum,
        seed: c.seed,
        stream: c.stream,
    })
}

/// # Safety
/// The C contract of `sgs_sghmc_init`.
#[allow(clippy::too_many_arguments)]
unsafe fn init<T: Float, S>(
    tag: u64,
    state: *mut S,
    config: *const sgs_sghmc_config,
    theta0: *const T,
    d: usize,
    ws: *mut T,
    ws_len: usize,
    gradient: Option<RawGradient<T>>,
    user_data: *mut c_void,
) -> Result<(), Error> {
    check_ptr(state)?;
    check_ptr(config)?;
    check_ptr(theta0)?;
    check_ptr(ws)?;
    let Some(gradient) = gradient else {
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
    let core = SghmcCore::new(&cfg, theta0, ws_slice)?;
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions).
    unsafe {
        state.cast::<State<T>>().write(State {
            tag,
            ws,
            ws_len,
            gradient,
            user_data,
            core,
        })
    };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_sghmc_step`.
unsafe fn step<T: Float, S>(
    tag: u64,
    state: *mut S,
    info: *mut sgs_sghmc_info,
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
    unsafe {
        put(
            info,
            sgs_sghmc_info {
                iteration: i.iteration,
                rejected: i.rejected as u32,
                reserved: 0,
            },
        )
    };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_sghmc_run`.
unsafe fn run<T: Float, S>(
    tag: u64,
    state: *mut S,
    n: usize,
    out: *mut T,
    out_len: usize,
    samples_done: *mut usize,
    rejected: *mut u64,
) -> Result<(), Error> {
    check_opt(samples_done)?;
    check_opt(rejected)?;
    // SAFETY: checked aligned; NULL skips.
    unsafe {
        put(samples_done, 0);
        put(rejected, 0);
    }
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
    let (mut done, mut rej) = (0usize, 0u64);
    let mut result = Ok(());
    for row in out.chunks_exact_mut(d) {
        match st.core.step(ws, &mut model) {
            Ok(i) => {
                row.copy_from_slice(&ws[..d]);
                done += 1;
                rej += i.rejected as u64;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    // SAFETY: checked aligned; NULL skips.
    unsafe {
        put(samples_done, done);
        put(rejected, rej);
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
    // SAFETY: the workspace checked at init holds at least 5·d coordinates.
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
    f: impl FnOnce(&SghmcCore) -> V,
) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    unsafe { get_value(tag, state, out, |st: &State<T>| f(&st.core)) }
}

macro_rules! sghmc_api {
    (
        float = $T:ty, ctype = $ctype:literal, state = $S:ident, tag = $tag:expr,
        gradient_fn = $G:ident, workspace_len = $ws_len:ident, init = $init:ident,
        step = $step:ident, run = $run:ident, position = $position:ident,
        momentum = $momentum:ident, iterations = $iterations:ident, dim = $dim:ident,
    ) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an SGHMC chain of")]
        /// dimension `d`: 5·d (saturating at SIZE_MAX; 0 for d = 0).
        #[no_mangle]
        pub extern "C" fn $ws_len(d: usize) -> usize {
            workspace_len(d)
        }

        #[doc = concat!(" Starts an SGHMC chain on `", $ctype, "` coordinates at `theta0`.")]
        ///
        /// `workspace` must hold at least `…_workspace_len(d)` elements, must not overlap
        /// `state` or `theta0`, and must stay alive (with the callback and `user_data`) while
        /// the state is used. Without momentum resampling the initial momentum is drawn here.
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned or
        /// overlapping buffers), `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_INVALID_OPTION`
        /// (`resample_momentum` not 0 or 1), `SGS_ERR_WORKSPACE_TOO_SMALL`,
        /// `SGS_ERR_INVALID_STEP_SIZE`, `SGS_ERR_INVALID_FRICTION`,
        /// `SGS_ERR_INVALID_MOMENTUM_SCALE`, `SGS_ERR_INVALID_STEPS`, `SGS_ERR_INVALID_POSITION`.
        /// On error neither `*state` nor the workspace is modified.
        ///
        /// # Safety
        /// Pointers must be valid for the stated lengths; the callback must follow its contract.
        #[no_mangle]
        pub unsafe extern "C" fn $init(
            state: *mut $S,
            config: *const sgs_sghmc_config,
            theta0: *const $T,
            d: usize,
            workspace: *mut $T,
            workspace_len: usize,
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
                    gradient,
                    user_data,
                )
            })
        }

        /// One outer iteration of T inner steps. Writes what happened to `*info` unless NULL.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT` or `SGS_ERR_CALLBACK_ABORTED` (the chain, generator
        /// included, is as before the call; the workspace's scratch part is not preserved).
        ///
        /// # Safety
        /// `state` must be a valid state whose workspace and callback are alive.
        #[no_mangle]
        pub unsafe extern "C" fn $step(state: *mut $S, info: *mut sgs_sghmc_info) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { step::<$T, $S>($tag, state, info) })
        }

        /// Runs `n` outer iterations, copying the position after each into the next row of `out`
        /// (capacity `out_len` ≥ n·d elements; may be NULL when `n` is 0). `*samples_done` and
        /// `*rejected` (each unless NULL, written also on error) count the rows written and the
        /// iterations discarded because the gradient callback returned REJECT.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT`, `SGS_ERR_OUTPUT_TOO_SMALL` (nothing is run) or
        /// `SGS_ERR_CALLBACK_ABORTED` (the chain is at its state after the last written row).
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
            rejected: *mut u64,
        ) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                run::<$T, $S>($tag, state, n, out, out_len, samples_done, rejected)
            })
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

        /// Copies the current momentum r (d values) into `out`. Statuses as for the position
        /// getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $momentum(state: *const $S, out: *mut $T, out_len: usize) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { copy_out::<$T, $S>($tag, state, 2, out, out_len) })
        }

        /// Writes the number of outer iterations done to `*iterations`. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` or `SGS_ERR_NOT_INITIALISED`.
        ///
        /// # Safety
        /// `state` valid; `iterations` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $iterations(state: *const $S, iterations: *mut u64) -> i32 {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, u64>($tag, state, iterations, |c| c.iterations()) })
        }

        /// Writes the dimension d to `*d`. Statuses as for the iterations getter.
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

/// The AMAGOLD paper's SGHMC settings at step size ε: T = 10, friction 0.25, σ = 1, momentum
/// resampled, seed 0, stream 0. Nothing is validated here; `sgs_sghmc_init` does that.
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
    }
}

sghmc_api! {
    float = f64, ctype = "double", state = sgs_sghmc, tag = TAG_F64, gradient_fn = sgs_gradient_fn,
    workspace_len = sgs_sghmc_workspace_len, init = sgs_sghmc_init, step = sgs_sghmc_step,
    run = sgs_sghmc_run, position = sgs_sghmc_position, momentum = sgs_sghmc_momentum,
    iterations = sgs_sghmc_iterations, dim = sgs_sghmc_dim,
}

sghmc_api! {
    float = f32, ctype = "float", state = sgs_sghmc_f32, tag = TAG_F32,
    gradient_fn = sgs_gradient_fn_f32, workspace_len = sgs_sghmc_workspace_len_f32,
    init = sgs_sghmc_init_f32, step = sgs_sghmc_step_f32, run = sgs_sghmc_run_f32,
    position = sgs_sghmc_position_f32, momentum = sgs_sghmc_momentum_f32,
    iterations = sgs_sghmc_iterations_f32, dim = sgs_sghmc_dim_f32,
}
