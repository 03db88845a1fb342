//! The C face of every chain sampler (AMAGOLD, SGHMC, SGLD), written once.
//!
//! A sampler enters C through a mapping ([`CChain`]: its C config and info types, its type tags,
//! how a C config becomes a Rust one) and one [`chain_api!`] invocation per coordinate type,
//! which generates the `extern "C"` functions every chain has: the size queries, `init`, `step`,
//! `run`, the position and the counters. The bodies below are generic over the sampler's core, so
//! the checks, the order they run in and what `run` reports are the same for every sampler, and
//! `run` is the core's own loop ([`run_chain`]), so C and Rust report the same numbers.

use super::common::*;
use crate::chain::{run_chain, ChainKind, ChainStep};
use crate::error::Error;
use crate::float::Float;
use crate::run::{Outcome, RunSummary};
use core::ffi::c_void;

/// Outcome of an iteration (`info.outcome`): the proposal was accepted (SGHMC, SGLD: the
/// trajectory was kept).
pub const SGS_OUTCOME_ACCEPTED: u32 = Outcome::Accepted as u32;
/// Outcome: the Metropolis–Hastings test rejected the proposal (AMAGOLD).
pub const SGS_OUTCOME_REJECTED: u32 = Outcome::Rejected as u32;
/// Outcome: a callback returned REJECT (the trajectory left the domain); the iteration was
/// discarded and the chain stayed where it was.
pub const SGS_OUTCOME_OUT_OF_DOMAIN: u32 = Outcome::OutOfDomain as u32;
/// Outcome: the energy, ρ, a gradient or the new position was not finite; discarded and counted
/// as a divergence.
pub const SGS_OUTCOME_DIVERGENT: u32 = Outcome::Divergent as u32;

/// What one outer iteration of a chain without an accept test (SGHMC, SGLD) did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct sgs_chain_info {
    /// Outer iterations done since init, this one included.
    pub iteration: u64,
    /// Divergent iterations since init.
    pub divergences: u64,
    /// `SGS_OUTCOME_ACCEPTED`, `SGS_OUTCOME_OUT_OF_DOMAIN` or `SGS_OUTCOME_DIVERGENT`.
    pub outcome: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
}

/// Totals of an `sgs_sghmc_run` / `sgs_sgld_run`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_chain_run_summary {
    /// Iterations completed (also on error: rows `0..iterations` of the output are valid).
    pub iterations: u64,
    /// Iterations whose trajectory was kept (outcome `SGS_OUTCOME_ACCEPTED`).
    pub accepted: u64,
    /// Divergent iterations among them.
    pub divergences: u64,
    /// 1 if `last` holds the last completed iteration, 0 if none completed (then `last` is all
    /// zero).
    pub has_last: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
    /// The info of the last completed iteration.
    pub last: sgs_chain_info,
}

/// A C run summary built from the Rust one.
pub(crate) trait CSummary<I>: Copy {
    /// The totals, and `last` (zeroed when `None`).
    fn from_run(s: &RunSummary<I>, last: impl FnOnce(&I) -> Self::Info) -> Self;
    /// The C info type in `last`.
    type Info;
}

/// Implements [`CSummary`] for a C summary struct whose fields are those of
/// `sgs_chain_run_summary`.
macro_rules! c_summary {
    ($S:ty, $Info:ty, $zero:expr) => {
        impl<I> $crate::ffi::chain::CSummary<I> for $S {
            type Info = $Info;
            fn from_run(s: &$crate::run::RunSummary<I>, last: impl FnOnce(&I) -> $Info) -> Self {
                Self {
                    iterations: s.iterations,
                    accepted: s.accepted,
                    divergences: s.divergences,
                    has_last: s.last.is_some() as u32,
                    reserved: 0,
                    last: s.last.as_ref().map_or($zero, last),
                }
            }
        }
    };
}
pub(crate) use c_summary;

c_summary!(
    sgs_chain_run_summary,
    sgs_chain_info,
    sgs_chain_info {
        iteration: 0,
        divergences: 0,
        outcome: 0,
        reserved: 0
    }
);

impl sgs_chain_info {
    /// The C record of a [`ChainInfo`](crate::ChainInfo).
    pub(crate) fn from_rust(i: &crate::ChainInfo) -> Self {
        sgs_chain_info {
            iteration: i.iteration,
            divergences: i.divergences,
            outcome: i.outcome as u32,
            reserved: 0,
        }
    }
}

/// How one chain sampler appears in C.
pub(crate) trait CChain:
    ChainKind + ChainStep<f64, CModel<f64>> + ChainStep<f32, CModel<f32>>
{
    /// The `#[repr(C)]` configuration.
    type CConfig: Copy;
    /// The `#[repr(C)]` iteration record.
    type CInfo: Copy;
    /// The `#[repr(C)]` run totals.
    type CSummary: CSummary<Self::Info, Info = Self::CInfo>;
    /// State tags (the first word of an initialised state) for `double` and `float`.
    const TAGS: [u64; 2];
    /// Whether `init` takes an energy callback.
    const NEEDS_ENERGY: bool;
    /// The Rust configuration, or `InvalidOption` for an unknown enumerated value.
    fn config_from(c: &Self::CConfig) -> Result<Self::Config, Error>;
    /// The C record of an iteration.
    fn info_to_c(i: &Self::Info) -> Self::CInfo;
}

/// The coordinate types of the C API.
pub(crate) trait CFloat: Float {
    /// Index into [`CChain::TAGS`].
    const TAG_INDEX: usize;
}
impl CFloat for f64 {
    const TAG_INDEX: usize = 0;
}
impl CFloat for f32 {
    const TAG_INDEX: usize = 1;
}

fn tag<T: CFloat, C: CChain>() -> u64 {
    C::TAGS[T::TAG_INDEX]
}

/// The Rust state stored in a chain's opaque C struct.
#[repr(C)]
pub(crate) struct State<T, C> {
    tag: u64,
    ws: *mut T,
    ws_len: usize,
    energy: Option<RawEnergy<T>>,
    gradient: RawGradient<T>,
    user_data: *mut c_void,
    pub(crate) core: C,
}

impl<T: Float, C> State<T, C> {
    fn model(&self) -> CModel<T> {
        CModel {
            energy: self.energy,
            gradient: self.gradient,
            user_data: self.user_data,
        }
    }
}

/// `sgs_…_init`.
///
/// # Safety
/// The C contract of `init`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn init<T: CFloat, C: CChain + ChainStep<T, CModel<T>>, S>(
    state: *mut S,
    config: *const C::CConfig,
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
    let Some(gradient) = gradient else {
        return Err(Error::NullPointer);
    };
    if C::NEEDS_ENERGY && energy.is_none() {
        return Err(Error::NullPointer);
    }
    check_array(theta0, d)?;
    check_array(ws, ws_len)?;
    if overlap(ws, ws_len, state, 1) || overlap(ws, ws_len, theta0, d) {
        return Err(Error::InvalidArgument);
    }
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    let cfg = C::config_from(unsafe { &config.read() })?;
    // SAFETY: checked above; the two buffers are disjoint.
    let (theta0, ws_slice) = unsafe {
        (
            core::slice::from_raw_parts(theta0, d),
            workspace(ws, ws_len),
        )
    };
    let energy = if C::NEEDS_ENERGY { energy } else { None };
    let mut model = CModel {
        energy,
        gradient,
        user_data,
    };
    let core = C::start(&cfg, theta0, ws_slice, &mut model)?;
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions in
    // `chain_api!`).
    unsafe {
        state.cast::<State<T, C>>().write(State {
            tag: tag::<T, C>(),
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

/// `sgs_…_step`.
///
/// # Safety
/// The C contract of `step`.
pub(crate) unsafe fn step<T: CFloat, C: CChain + ChainStep<T, CModel<T>>, S>(
    state: *mut S,
    info: *mut C::CInfo,
) -> Result<(), Error> {
    check_opt(info)?;
    // SAFETY: contract of the caller.
    let st: &mut State<T, C> = unsafe { state_mut(state, tag::<T, C>())? };
    if !info.is_null() && (overlap(info, 1, state, 1) || overlap(info, 1, st.ws, st.ws_len)) {
        return Err(Error::InvalidArgument);
    }
    let mut model = st.model();
    // SAFETY: the workspace checked at init.
    let ws = unsafe { workspace(st.ws, st.ws_len) };
    let i = st.core.step(ws, &mut model)?;
    // SAFETY: checked aligned and disjoint from the state; NULL skips.
    unsafe { put(info, C::info_to_c(&i)) };
    Ok(())
}

/// `sgs_…_run`: every pointer is checked (aligned, disjoint from the state, the workspace and
/// each other) before anything is written; then the core's run loop runs, and the rows written
/// and the totals are reported also when it stopped early.
///
/// # Safety
/// The C contract of `run`.
pub(crate) unsafe fn run<T: CFloat, C: CChain + ChainStep<T, CModel<T>>, S>(
    state: *mut S,
    n: usize,
    out: *mut T,
    out_len: usize,
    samples_done: *mut usize,
    summary: *mut C::CSummary,
) -> Result<(), Error> {
    check_opt(samples_done)?;
    check_opt(summary)?;
    // SAFETY: contract of the caller.
    let st: &mut State<T, C> = unsafe { state_mut(state, tag::<T, C>())? };
    let d = st.core.dim();
    let need = n.checked_mul(d).ok_or(Error::InvalidArgument)?;
    let out_len = if n > 0 {
        check_array(out, out_len)?;
        out_len
    } else {
        0
    };
    let spans = [
        Span::of(state, 1),
        Span::of(st.ws, st.ws_len),
        Span::of(out, out_len),
        Span::of(samples_done, 1),
        Span::of(summary, 1),
    ];
    if any_overlap(&spans) {
        return Err(Error::InvalidArgument);
    }
    let mut model = st.model();
    // SAFETY: the workspace checked at init; `out` checked above and disjoint from it.
    let ws = unsafe { workspace(st.ws, st.ws_len) };
    let (result, totals) = if out_len < need {
        (Err(Error::OutputTooSmall), RunSummary::EMPTY)
    } else {
        // SAFETY: `out` is a valid array of `out_len ≥ need` elements (n > 0) or unused.
        let out = unsafe {
            if n > 0 {
                core::slice::from_raw_parts_mut(out, need)
            } else {
                &mut []
            }
        };
        match run_chain(&mut st.core, ws, &mut model, out) {
            Ok(s) => (Ok(()), s),
            Err(e) => (Err(e.error), e.partial),
        }
    };
    // SAFETY: checked aligned and disjoint from every buffer; NULL skips.
    unsafe {
        put(samples_done, totals.iterations as usize);
        put(summary, C::CSummary::from_run(&totals, C::info_to_c));
    }
    result
}

/// Copies block `block` (of d values) of the workspace into `out`: 0 is the position.
///
/// # Safety
/// The C contract of the getters.
pub(crate) unsafe fn copy_block<T: CFloat, C: CChain, S>(
    state: *const S,
    block: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let st: &State<T, C> = unsafe { state_ref(state, tag::<T, C>())? };
    let d = st.core.dim();
    let end = block
        .checked_add(1)
        .and_then(|b| b.checked_mul(d))
        .ok_or(Error::InvalidArgument)?;
    if end > st.ws_len {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: `block·d .. end` lies in the workspace checked at init.
    unsafe {
        copy_to_caller(
            state,
            &[(st.ws, st.ws_len)],
            st.ws.wrapping_add(end - d),
            d,
            out,
            out_len,
        )
    }
}

/// Writes `f(core)` to `*out`, which must not overlap the state or its workspace.
///
/// # Safety
/// The C contract of the getters.
pub(crate) unsafe fn get<T: CFloat, C: CChain, S, V>(
    state: *const S,
    out: *mut V,
    f: impl FnOnce(&C) -> V,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let st: &State<T, C> = unsafe { state_ref(state, tag::<T, C>())? };
    if overlap(out, 1, state, 1) || overlap(out, 1, st.ws, st.ws_len) {
        return Err(Error::InvalidArgument);
    }
    let v = f(&st.core);
    // SAFETY: checked non-null, aligned and disjoint from the state.
    unsafe { out.write(v) };
    Ok(())
}

/// Generates the `extern "C"` functions every chain sampler has, for one coordinate type:
///
/// `chain_api!(Core, T, "ctype", "Sampler", State, Config, Info, Summary, GradientFn,
/// [EnergyFn], names…)` with the names of `workspace_len state_size state_align init step run
/// position iterations divergences dim` in that order. `[EnergyFn]` is empty for samplers
/// without an energy callback.
macro_rules! chain_api {
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident, $Cfg:ty, $Info:ty, $Sum:ty, $G:ty,
     [$($E:ty)?], $ws_len:ident $size:ident $align:ident $init:ident $step:ident $run:ident
     $position:ident $iterations:ident $divergences:ident $dim:ident) => {
        const _: () = {
            use core::mem::{align_of, size_of};
            use $crate::ffi::chain::State;
            assert!(size_of::<State<$T, $Core>>() <= size_of::<$S>());
            assert!(align_of::<State<$T, $Core>>() <= align_of::<$S>());
        };

        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an ", $name)]
        /// chain of dimension `d` (saturating at SIZE_MAX; 0 for d = 0).
        #[no_mangle]
        pub extern "C" fn $ws_len(d: usize) -> usize {
            <$Core as $crate::chain::ChainKind>::workspace_len(d)
        }

        #[doc = concat!(" `sizeof(", stringify!($S), ")`, for bindings that allocate the state")]
        /// themselves (Python, Julia, MATLAB): always equal to the header's struct size.
        #[no_mangle]
        pub extern "C" fn $size() -> usize {
            core::mem::size_of::<$S>()
        }

        #[doc = concat!(" The alignment `_Alignof(", stringify!($S), ")` the state needs.")]
        #[no_mangle]
        pub extern "C" fn $align() -> usize {
            core::mem::align_of::<$S>()
        }

        #[doc = concat!(" Starts an ", $name, " chain on `", $ctype, "` coordinates at `theta0`.")]
        ///
        /// Checks every argument (pointers, alignment, overlap, sizes, then the configuration),
        /// evaluates the energy at `theta0` once if the sampler has an energy callback, then
        /// fills `*state` and the workspace. `workspace` must hold at least `…_workspace_len(d)`
        /// elements, must not overlap `state` or `theta0`, and must stay alive (with the
        /// callbacks and `user_data`) while the state is used.
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER` (any pointer but `user_data`),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_INVALID_OPTION` (an enumerated field),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL`, the configuration's codes (step size, friction,
        /// momentum scale, steps, target acceptance), `SGS_ERR_INVALID_POSITION`, and with an
        /// energy callback `SGS_ERR_INITIAL_ENERGY_REJECTED` or `SGS_ERR_CALLBACK_ABORTED`. On
        /// error neither `*state` nor the workspace is modified (a previously initialised state
        /// stays usable).
        ///
        /// # Safety
        /// Pointers must be valid for the stated lengths; callbacks must follow their contract.
        #[no_mangle]
        pub unsafe extern "C" fn $init(
            state: *mut $S,
            config: *const $Cfg,
            theta0: *const $T,
            d: usize,
            workspace: *mut $T,
            workspace_len: usize,
            $(energy: $E,)?
            gradient: $G,
            user_data: *mut core::ffi::c_void,
        ) -> $crate::ffi::sgs_status {
            let energy_cb: Option<$crate::ffi::common::RawEnergy<$T>> =
                None $(.or({ let given: $E = energy; given }))?;
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::init::<$T, $Core, $S>(
                    state, config, theta0, d, workspace, workspace_len, energy_cb, gradient,
                    user_data,
                )
            })
        }

        #[doc = concat!(" One outer iteration of an ", $name, " chain. Writes what happened to")]
        /// `*info` unless `info` is NULL.
        ///
        /// Returns `SGS_OK` (whatever the outcome), `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_INVALID_ARGUMENT` (misaligned `info`, or `info`
        /// inside the state or the workspace) or `SGS_ERR_CALLBACK_ABORTED`; on an error the
        /// chain (position, momentum, energy, counters, generator) is exactly as before the call,
        /// so retrying repeats the same draws.
        ///
        /// # Safety
        /// `state` must be a valid state whose workspace and callbacks are alive.
        #[no_mangle]
        pub unsafe extern "C" fn $step(state: *mut $S, info: *mut $Info) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::step::<$T, $Core, $S>(state, info)
            })
        }

        #[doc = concat!(" Runs `n` outer iterations of an ", $name, " chain, copying the position")]
        /// after each into the next row of `out` (`n` rows of d values; `out_len` is the capacity
        /// of `out` in elements, at least n·d; `out` may be NULL when `n` is 0).
        ///
        /// Every pointer is checked before anything is written. Then `*samples_done` and
        /// `*summary` (each unless NULL) get the rows written and the totals, also when the run
        /// stops early: after `SGS_ERR_CALLBACK_ABORTED` the chain is at its state after the
        /// last written row and `summary->iterations` rows are valid. `n = 0` succeeds and does
        /// nothing.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers, n·d overflows),
        /// `SGS_ERR_OUTPUT_TOO_SMALL` (nothing is run) or `SGS_ERR_CALLBACK_ABORTED`.
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
            summary: *mut $Sum,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::run::<$T, $Core, $S>(state, n, out, out_len, samples_done, summary)
            })
        }

        /// Copies the current position θ (d values) into `out` (capacity `out_len` ≥ d).
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, or overlapping the state or workspace) or
        /// `SGS_ERR_OUTPUT_TOO_SMALL`.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $position(state: *const $S, out: *mut $T, out_len: usize) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::copy_block::<$T, $Core, $S>(state, 0, out, out_len)
            })
        }

        /// Writes the number of outer iterations done to `*iterations`. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` or `SGS_ERR_NOT_INITIALISED`.
        ///
        /// # Safety
        /// `state` valid; `iterations` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $iterations(state: *const $S, iterations: *mut u64) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::get::<$T, $Core, $S, u64>(state, iterations, |c| {
                    $crate::chain::ChainKind::iterations(c)
                })
            })
        }

        /// Writes the number of divergent iterations so far to `*divergences`. Statuses as for
        /// the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `divergences` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $divergences(state: *const $S, divergences: *mut u64) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::get::<$T, $Core, $S, u64>(state, divergences, |c| {
                    $crate::chain::ChainKind::divergences(c)
                })
            })
        }

        /// Writes the dimension d to `*d`. Statuses as for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `d` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $dim(state: *const $S, d: *mut usize) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::get::<$T, $Core, $S, usize>(state, d, |c| {
                    $crate::chain::ChainKind::dim(c)
                })
            })
        }
    };
}
pub(crate) use chain_api;

/// The two opaque C state structs of a chain sampler (`double` and `float`), `words` 8-byte
/// words each: `chain_states!(sgs_x, sgs_x_f32, words, "Name")`.
macro_rules! chain_states {
    ($S64:ident, $S32:ident, $words:literal, $name:literal) => {
        #[doc = concat!(" ", $name, " chain on `double` coordinates, in caller memory. Opaque: fill")]
        #[doc = concat!(" it with `", stringify!($S64), "_init`. Zero-initialise it (`", stringify!($S64), " s = {{0}};`)")]
        /// so that use before init is detected. Its size and alignment are also returned by the
        /// `…_state_size()` and `…_state_align()` queries.
        #[repr(C)]
        pub struct $S64 {
            _opaque: [u64; $words],
        }

        #[doc = concat!(" ", $name, " chain on `float` coordinates, in caller memory (see `", stringify!($S64), "`).")]
        #[repr(C)]
        pub struct $S32 {
            _opaque: [u64; $words],
        }
    };
}
pub(crate) use chain_states;

/// The state tags of a sampler: the first word of an initialised `double` and `float` state,
/// from a 6-byte name (`tags(b"sgsAMG")`).
pub(crate) const fn tags(name: &[u8; 6]) -> [u64; 2] {
    let n = name;
    [
        u64::from_le_bytes([n[0], n[1], n[2], n[3], n[4], n[5], b'6', b'4']),
        u64::from_le_bytes([n[0], n[1], n[2], n[3], n[4], n[5], b'3', b'2']),
    ]
}

/// The [`CChain`] mapping of a chain that reports [`ChainInfo`](crate::ChainInfo) and needs only a
/// gradient (SGHMC, SGLD), with the C names of its info and summary types:
/// `gradient_chain_mapping!(Core, CConfig, b"sgsXXX", config_from, info, summary, "Name")`.
macro_rules! gradient_chain_mapping {
    ($Core:ty, $CConfig:ty, $tag:literal, $config_from:path, $info:ident, $summary:ident,
     $name:literal) => {
        #[doc = concat!(" What one ", $name, " outer iteration did.")]
        pub type $info = $crate::ffi::chain::sgs_chain_info;

        #[doc = concat!(" Totals of a ", $name, " run.")]
        pub type $summary = $crate::ffi::chain::sgs_chain_run_summary;

        impl $crate::ffi::chain::CChain for $Core {
            type CConfig = $CConfig;
            type CInfo = $crate::ffi::chain::sgs_chain_info;
            type CSummary = $crate::ffi::chain::sgs_chain_run_summary;
            const TAGS: [u64; 2] = $crate::ffi::chain::tags($tag);
            const NEEDS_ENERGY: bool = false;
            fn config_from(c: &$CConfig) -> Result<Self::Config, $crate::Error> {
                $config_from(c)
            }
            fn info_to_c(i: &$crate::ChainInfo) -> $crate::ffi::chain::sgs_chain_info {
                $crate::ffi::chain::sgs_chain_info::from_rust(i)
            }
        }
    };
}
pub(crate) use gradient_chain_mapping;

/// A getter of one more workspace block or value for one sampler and coordinate type:
/// `chain_getter!(block Core, T, State, name, k, "doc")` copies block `k` (d values);
/// `chain_getter!(value Core, T, State, name, V, |core| expr, "doc")` writes one value.
macro_rules! chain_getter {
    (block $Core:ty, $T:ty, $S:ident, $name:ident, $k:expr, $doc:literal) => {
        #[doc = $doc]
        /// Statuses as for the position getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            state: *const $S,
            out: *mut $T,
            out_len: usize,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::copy_block::<$T, $Core, $S>(state, $k, out, out_len)
            })
        }
    };
    (value $Core:ty, $T:ty, $S:ident, $name:ident, $V:ty, $f:expr, $doc:literal) => {
        #[doc = $doc]
        /// Statuses as for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $name(state: *const $S, out: *mut $V) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::get::<$T, $Core, $S, $V>(state, out, $f)
            })
        }
    };
}
pub(crate) use chain_getter;
