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
use crate::wire::Wire;
use core::ffi::c_void;

/// Outcome of an iteration (`info.outcome`): the proposal was accepted (SGHMC, SGLD: the
/// trajectory was kept).
pub const SGS_OUTCOME_ACCEPTED: u32 = 0;
/// Outcome: the Metropolis–Hastings test rejected the proposal (AMAGOLD).
pub const SGS_OUTCOME_REJECTED: u32 = 1;
/// Outcome: a callback returned REJECT (the trajectory left the domain); the iteration was
/// discarded and the chain stayed where it was.
pub const SGS_OUTCOME_OUT_OF_DOMAIN: u32 = 2;
/// Outcome: the energy, ρ, a gradient or the new position was not finite; discarded and counted
/// as a divergence.
pub const SGS_OUTCOME_DIVERGENT: u32 = 3;

// Literals above so that the header has plain numbers; they are the Rust discriminants.
const _: () = {
    assert!(SGS_OUTCOME_ACCEPTED == Outcome::Accepted as u32);
    assert!(SGS_OUTCOME_REJECTED == Outcome::Rejected as u32);
    assert!(SGS_OUTCOME_OUT_OF_DOMAIN == Outcome::OutOfDomain as u32);
    assert!(SGS_OUTCOME_DIVERGENT == Outcome::Divergent as u32);
};

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
    /// Counts one more completed iteration with outcome `o` whose C record is `last` (as
    /// [`RunSummary`]'s own tally does).
    fn record(&mut self, o: Outcome, last: Self::Info);
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
            fn record(&mut self, o: $crate::run::Outcome, last: $Info) {
                self.iterations += 1;
                self.accepted += (o == $crate::run::Outcome::Accepted) as u64;
                self.divergences += (o == $crate::run::Outcome::Divergent) as u64;
                self.has_last = 1;
                self.last = last;
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

/// A C callback as what a chain state stores in one of its two callback slots (the energy's and
/// the gradient's): itself for those, and for a sampler with other callbacks (TunaMH) the same
/// function pointer under the slot's type, cast back to its own type by that sampler's model
/// before every call (a function pointer keeps its value through such casts; only a call
/// through the wrong type would be undefined, and a state's tag says which sampler stored it).
pub(crate) trait Slot<R> {
    /// The slot's value.
    fn into_slot(self) -> Option<R>;
}

impl<R> Slot<R> for Option<R> {
    fn into_slot(self) -> Option<R> {
        self
    }
}

/// How one chain sampler appears in C.
pub(crate) trait CChain:
    ChainKind + Clone + Wire + ChainStep<f64, CModel<f64>> + ChainStep<f32, CModel<f32>>
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
    /// The checks `init` makes of a configuration for coordinates `T` (what `import` makes of a
    /// checkpoint's).
    fn validate_config<T: Float>(c: &Self::Config) -> Result<(), Error>;
    /// The C record of an iteration.
    fn info_to_c(i: &Self::Info) -> Self::CInfo;
}

/// The coordinate types of the C API.
pub(crate) trait CFloat: Float {
    /// Index into [`CChain::TAGS`].
    const TAG_INDEX: usize;
    /// The bits of the value in a 64-bit word (the batch engine's cache compares and stores
    /// points bit for bit, NaN payloads included).
    fn to_word(self) -> u64;
    /// The value whose bits [`to_word`](CFloat::to_word) gave.
    fn from_word(w: u64) -> Self;
}
impl CFloat for f64 {
    const TAG_INDEX: usize = 0;
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    fn from_word(w: u64) -> Self {
        f64::from_bits(w)
    }
}
impl CFloat for f32 {
    const TAG_INDEX: usize = 1;
    fn to_word(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_word(w: u64) -> Self {
        f32::from_bits(w as u32)
    }
}

pub(crate) fn tag<T: CFloat, C: CChain>() -> u64 {
    C::TAGS[T::TAG_INDEX]
}

/// The fixed part of a chain's stored state: what `init` recorded, checksummed.
#[repr(C)]
pub(crate) struct ChainFixed<T> {
    hdr: Header,
    ws: *mut T,
    ws_len: usize,
    energy: Option<RawEnergy<T>>,
    gradient: Option<RawGradient<T>>,
    user_data: *mut c_void,
}

impl<T> Clone for ChainFixed<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ChainFixed<T> {}

impl<T> Fixed for ChainFixed<T> {
    fn header(&self) -> &Header {
        &self.hdr
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.hdr
    }
    fn fields(&self, h: &mut Hasher) {
        h.word(self.ws as usize as u64);
        h.word(self.ws_len as u64);
        h.word(self.energy.map_or(0, |f| f as usize) as u64);
        h.word(self.gradient.map_or(0, |f| f as usize) as u64);
        h.word(self.user_data as usize as u64);
    }
    fn consistent(&self) -> bool {
        self.gradient.is_some() && check_array(self.ws, self.ws_len).is_ok()
    }
}

impl<T: Float> ChainFixed<T> {
    /// The callbacks as a Rust model (`consistent` checked the gradient is there).
    fn model(&self) -> Result<CModel<T>, Error> {
        Ok(CModel {
            energy: self.energy,
            gradient: self.gradient.ok_or(Error::StateCorrupted)?,
            user_data: self.user_data,
        })
    }
}

/// The Rust state stored in a chain's opaque C struct: the fixed part, then the sampler's core.
/// Only the core is ever borrowed (`core_ref`, `core_mut`); the fixed part is read by value.
#[repr(C)]
pub(crate) struct State<T, C> {
    fx: ChainFixed<T>,
    pub(crate) core: C,
}

/// Validates a chain state (see [`validate`], [`check_sealed`]; the core's dimension is part of
/// the checksum) and that it agrees with its sampler: d ≠ 0 and the workspace as long as the
/// sampler needs. Returns the fixed part and d.
///
/// # Safety
/// `state`, when non-null and aligned, must point to a readable `S`.
pub(crate) unsafe fn enter<T: CFloat, C: CChain, S>(
    state: *const S,
    allow_moved: bool,
) -> Result<(ChainFixed<T>, usize), Error> {
    // SAFETY: forwarded contract.
    let fx: ChainFixed<T> = unsafe { validate(state, tag::<T, C>())? };
    // SAFETY: tagged: an init stored a `State` here (its core is plain data).
    let d = unsafe { core_ref::<T, C, S>(state) }.dim();
    check_sealed(&fx, state, d as u64, allow_moved)?;
    // SAFETY: as above.
    let need = unsafe { core_ref::<T, C, S>(state) }.workspace_need();
    if d == 0 || fx.ws_len < need {
        return Err(Error::StateCorrupted);
    }
    Ok((fx, d))
}

/// The workspace of a state validated earlier by [`enter`] (read without the busy check, for a
/// caller that holds the busy flag itself).
///
/// # Safety
/// `state` validated and unchanged since; no other reference to the workspace live.
pub(crate) unsafe fn workspace_of<'a, T, S>(state: *const S) -> &'a mut [T] {
    // SAFETY: a validated state starts with its fixed part (plain data).
    let fx = unsafe { state.cast::<ChainFixed<T>>().read() };
    // SAFETY: the workspace checked at init; contract of the caller.
    unsafe { workspace(fx.ws, fx.ws_len) }
}

/// The core of a validated state.
///
/// # Safety
/// `state` validated; no mutable reference to the core live.
pub(crate) unsafe fn core_ref<'a, T, C, S>(state: *const S) -> &'a C {
    // SAFETY: contract of the caller.
    unsafe { &*core::ptr::addr_of!((*state.cast::<State<T, C>>()).core) }
}

/// The core of a validated state, mutably (the header is not covered, so that a re-entrant call
/// can read the busy flag through the raw pointer).
///
/// # Safety
/// `state` validated; no other reference to the core live.
pub(crate) unsafe fn core_mut<'a, T, C, S>(state: *mut S) -> &'a mut C {
    // SAFETY: contract of the caller.
    unsafe { &mut *core::ptr::addr_of_mut!((*state.cast::<State<T, C>>()).core) }
}

/// The spans of a state and its workspace, for overlap checks of outputs.
pub(crate) fn spans_of<T, S>(state: *const S, fx: &ChainFixed<T>) -> [Span; 2] {
    [Span::of(state, 1), Span::of(fx.ws, fx.ws_len)]
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
    // SAFETY: checked non-null and aligned; the caller's contract.
    unsafe { refuse_if_busy(state, tag::<T, C>())? };
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
    // Kept as given: a sampler without an energy parameter passes None (`chain_api!`), and
    // TunaMH's optional exact-part callback lives in this slot.
    let mut model = CModel {
        energy,
        gradient,
        user_data,
    };
    let core = C::start(&cfg, theta0, ws_slice, &mut model)?;
    let mut fx = ChainFixed {
        hdr: Header {
            tag: 0,
            busy: 0,
            token: 0,
            home: 0,
        },
        ws,
        ws_len,
        energy,
        gradient: Some(gradient),
        user_data,
    };
    seal(&mut fx, tag::<T, C>(), state as usize, core.dim() as u64);
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions in
    // `chain_api!`).
    unsafe { store(state, State::<T, C> { fx, core }) };
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
    let (fx, _) = unsafe { enter::<T, C, S>(state, false)? };
    let spans = spans_of(state, &fx);
    let o = Span::of(info, 1);
    if spans.iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    let mut model = fx.model()?;
    // SAFETY: validated; the guard clears the flag on every return.
    let _busy = unsafe { BusyGuard::new(state) };
    // SAFETY: validated; the workspace checked at init.
    let (core, ws) = unsafe { (core_mut::<T, C, S>(state), workspace(fx.ws, fx.ws_len)) };
    let i = core.step(ws, &mut model)?;
    // SAFETY: checked aligned and disjoint from the state and workspace; NULL skips.
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
    let (fx, d) = unsafe { enter::<T, C, S>(state, false)? };
    let need = n.checked_mul(d).ok_or(Error::InvalidArgument)?;
    let out_len = if n > 0 {
        check_array(out, out_len)?;
        out_len
    } else {
        0
    };
    let spans = [
        Span::of(state, 1),
        Span::of(fx.ws, fx.ws_len),
        Span::of(out, out_len),
        Span::of(samples_done, 1),
        Span::of(summary, 1),
    ];
    if any_overlap(&spans) {
        return Err(Error::InvalidArgument);
    }
    let mut model = fx.model()?;
    // SAFETY: validated; the guard clears the flag on every return.
    let busy = unsafe { BusyGuard::new(state) };
    // SAFETY: validated; the workspace checked at init; `out` checked above and disjoint from it.
    let (core, ws) = unsafe { (core_mut::<T, C, S>(state), workspace(fx.ws, fx.ws_len)) };
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
        match run_chain(core, ws, &mut model, out) {
            Ok(s) => (Ok(()), s),
            Err(e) => (Err(e.error), e.partial),
        }
    };
    drop(busy);
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
    // SAFETY: forwarded contract.
    unsafe { copy_block_or::<T, C, S>(state, |_| Some(block), T::ZERO, out, out_len) }
}

/// The body of [`copy_block`] for a validated state.
///
/// # Safety
/// `state` validated by [`enter`], which returned `fx` and `d`; `out` checked non-null.
unsafe fn copy_block_of<T, S>(
    state: *const S,
    fx: &ChainFixed<T>,
    d: usize,
    block: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    let end = block
        .checked_add(1)
        .and_then(|b| b.checked_mul(d))
        .ok_or(Error::InvalidArgument)?;
    if end > fx.ws_len {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: `block·d .. end` lies in the workspace checked at init.
    unsafe {
        copy_to_caller(
            &spans_of(state, fx),
            fx.ws.wrapping_add(end - d),
            d,
            out,
            out_len,
        )
    }
}

/// Copies block `which(core)` (of d values) of the workspace into `out`, or when `which` gives
/// `None` (the chain does not keep that block) writes d copies of `fill`; the checks are those
/// of [`copy_block`].
///
/// # Safety
/// The C contract of the getters.
pub(crate) unsafe fn copy_block_or<T: CFloat, C: CChain, S>(
    state: *const S,
    which: impl FnOnce(&C) -> Option<usize>,
    fill: T,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let (fx, d) = unsafe { enter::<T, C, S>(state, false)? };
    // SAFETY: validated.
    if let Some(block) = which(unsafe { core_ref::<T, C, S>(state) }) {
        // SAFETY: validated by `enter`.
        return unsafe { copy_block_of(state, &fx, d, block, out, out_len) };
    }
    check_output(&spans_of(state, &fx), out, out_len, d)?;
    // SAFETY: a valid array of `out_len ≥ d` elements, disjoint from the state and workspace.
    unsafe { core::slice::from_raw_parts_mut(out, d) }.fill(fill);
    Ok(())
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
    let (fx, _) = unsafe { enter::<T, C, S>(state, false)? };
    // SAFETY: validated.
    let v = f(unsafe { core_ref::<T, C, S>(state) });
    // SAFETY: checked non-null and aligned.
    unsafe { write_out(out, &spans_of(state, &fx), v) }
}

/// Runs `f(core, workspace)` on a validated chain (a setter): not from inside its own
/// callbacks (`Busy`), with the busy flag held. `input`/`input_len` is a caller array the
/// setter reads (NULL with 0 for none): it must be a valid array disjoint from the state and
/// its workspace.
///
/// # Safety
/// The C contract of the setters; `input` valid for `input_len` reads.
pub(crate) unsafe fn with_core_mut<T: CFloat, C: CChain, S, V>(
    state: *mut S,
    input: *const V,
    input_len: usize,
    f: impl FnOnce(&mut C, &mut [T], &[V]) -> Result<(), Error>,
) -> Result<(), Error> {
    if !input.is_null() || input_len > 0 {
        check_array(input, input_len)?;
    }
    // SAFETY: contract of the caller.
    let (fx, _) = unsafe { enter::<T, C, S>(state, false)? };
    let spans = spans_of(state, &fx);
    let i = Span::of(input, input_len);
    if spans.iter().any(|s| Span::overlaps(&i, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; the guard clears the flag on every return.
    let _busy = unsafe { BusyGuard::new(state) };
    // SAFETY: validated; the workspace checked at init; the input checked and disjoint.
    let (core, ws, input) = unsafe {
        (
            core_mut::<T, C, S>(state),
            workspace(fx.ws, fx.ws_len),
            if input_len > 0 {
                core::slice::from_raw_parts(input, input_len)
            } else {
                &[][..]
            },
        )
    };
    f(core, ws, input)
}

/// Writes `need(core, d)` values computed by `f(core, workspace, out)` to the caller's `out`
/// (the checks of the copying getters: a valid array disjoint from the state and its
/// workspace, with room for them).
///
/// # Safety
/// The C contract of the getters.
pub(crate) unsafe fn fill_out<T: CFloat, C: CChain, S>(
    state: *const S,
    out: *mut T,
    out_len: usize,
    need: impl FnOnce(usize) -> usize,
    f: impl FnOnce(&C, &[T], &mut [T]) -> Result<(), Error>,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let (fx, d) = unsafe { enter::<T, C, S>(state, false)? };
    let n = need(d);
    check_output(&spans_of(state, &fx), out, out_len, n)?;
    // SAFETY: validated; `out` checked: a valid array of `out_len ≥ n` elements, disjoint from
    // the state and the workspace.
    let (core, ws, out) = unsafe {
        (
            core_ref::<T, C, S>(state),
            workspace(fx.ws, fx.ws_len),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    f(core, ws, out)
}

/// A chain's core and workspace by index (what [`cores_of`] returns).
pub(crate) trait CoreAt<'a, C: 'a, T: 'a>:
    Fn(usize) -> Option<(&'a C, &'a [T])> + Clone
{
}
impl<'a, C: 'a, T: 'a, F: Fn(usize) -> Option<(&'a C, &'a [T])> + Clone> CoreAt<'a, C, T> for F {}

/// The core and workspace of each of `k` states (each validated; none busy), for functions
/// that read several chains at once.
///
/// # Safety
/// `states` valid for `k` reads; each entry a state or NULL.
#[allow(clippy::type_complexity)] // an `impl Fn` cannot be named by a type alias
pub(crate) unsafe fn cores_of<'a, T: CFloat + 'a, C: CChain + 'a, S: 'a>(
    states: *const *const S,
    k: usize,
) -> Result<impl CoreAt<'a, C, T>, Error> {
    check_array(states, k)?;
    // SAFETY: checked array of `k` pointers.
    let ptrs: &'a [*const S] = unsafe { core::slice::from_raw_parts(states, k) };
    for &p in ptrs {
        // SAFETY: contract of the caller.
        unsafe { enter::<T, C, S>(p, false)? };
    }
    Ok(move |i: usize| {
        let p = *ptrs.get(i)?;
        // SAFETY: validated above (the caller holds no mutable reference meanwhile).
        let (fx, _) = unsafe { enter::<T, C, S>(p, false) }.ok()?;
        // SAFETY: as above.
        let core = unsafe { core_ref::<T, C, S>(p) };
        // SAFETY: the workspace checked at init; read only.
        let ws: &'a [T] = unsafe { core::slice::from_raw_parts(fx.ws, fx.ws_len) };
        Some((core, ws))
    })
}

/// The spans of `k` states and their workspaces (for overlap checks of an output).
///
/// # Safety
/// As [`cores_of`], after it succeeded.
pub(crate) unsafe fn state_spans<T: CFloat, C: CChain, S>(
    states: *const *const S,
    k: usize,
    mut each: impl FnMut(Span) -> bool,
) -> bool {
    // SAFETY: contract of the caller.
    let ptrs = unsafe { core::slice::from_raw_parts(states, k) };
    for &p in ptrs {
        // SAFETY: validated by `cores_of`.
        let Ok((fx, _)) = (unsafe { enter::<T, C, S>(p, false) }) else {
            return false;
        };
        if !each(Span::of(p, 1)) || !each(Span::of(fx.ws, fx.ws_len)) {
            return false;
        }
    }
    each(Span::of(states, k))
}

/// `sgs_…_clear`.
///
/// # Safety
/// The C contract of `clear`.
pub(crate) unsafe fn clear_state<T: CFloat, C: CChain, S>(state: *mut S) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    unsafe { clear(state, tag::<T, C>()) }
}

/// `sgs_…_copy`: an independent copy of `src` in `dst` over `dst_ws` (the workspace contents
/// copied), or, when `dst` is `src` and `dst_ws` its own workspace, the re-homing of a state that
/// was moved byte-wise.
///
/// # Safety
/// The C contract of `copy`.
pub(crate) unsafe fn copy<T: CFloat, C: CChain, S>(
    dst: *mut S,
    dst_ws: *mut T,
    dst_ws_len: usize,
    src: *const S,
) -> Result<(), Error> {
    check_ptr(dst)?;
    check_ptr(dst_ws)?;
    check_ptr(src)?;
    check_array(dst_ws, dst_ws_len)?;
    // SAFETY: contract of the caller.
    let (fx, d) = unsafe { enter::<T, C, S>(src, true)? };
    // SAFETY: checked non-null and aligned.
    unsafe { refuse_if_busy(dst, tag::<T, C>())? };
    let in_place = dst.cast_const() == src && dst_ws == fx.ws && dst_ws_len == fx.ws_len;
    if !in_place
        && any_overlap(&[
            Span::of(dst, 1),
            Span::of(dst_ws, dst_ws_len),
            Span::of(src, 1),
            Span::of(fx.ws, fx.ws_len),
        ])
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; the core is plain data.
    let need = unsafe { core_ref::<T, C, S>(src) }.workspace_need();
    if dst_ws_len < need {
        return Err(Error::WorkspaceTooSmall);
    }
    let mut nfx = fx;
    nfx.ws = dst_ws;
    nfx.ws_len = dst_ws_len;
    seal(&mut nfx, tag::<T, C>(), dst as usize, d as u64);
    if in_place {
        // SAFETY: `dst` is `src`, validated: only the fixed part is rewritten.
        unsafe { dst.cast::<ChainFixed<T>>().write(nfx) };
        return Ok(());
    }
    // SAFETY: validated; the core is plain data.
    let core = unsafe { core_ref::<T, C, S>(src) }.clone();
    // SAFETY: both workspaces checked, disjoint, at least `need` long; `dst` non-null, aligned,
    // large enough, disjoint from the source.
    unsafe {
        core::ptr::copy_nonoverlapping(fx.ws, dst_ws, need);
        store(dst, State::<T, C> { fx: nfx, core });
    }
    Ok(())
}

/// Generates the `extern "C"` functions every chain sampler has, for one coordinate type:
///
/// `chain_api!(Core, T, "ctype", "Sampler", State, Config, Info, Summary, GradientFn,
/// [EnergyFn], names…)` with the names of `workspace_len state_size state_align init step run
/// position iterations divergences dim clear copy` in that order. `[EnergyFn]` is empty for
/// samplers without an energy callback.
macro_rules! chain_api {
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident, $Cfg:ty, $Info:ty, $Sum:ty, $G:ty,
     [$($E:ty)?], $ws_len:ident $size:ident $align:ident $init:ident $step:ident $run:ident
     $position:ident $iterations:ident $divergences:ident $dim:ident $clear:ident $copy:ident) => {
        $crate::ffi::chain::chain_api!($Core, $T, $ctype, $name, $S, $Cfg, $Info, $Sum,
            gradient: $G, [$(energy: $E)?], $ws_len $size $align $init $step $run $position
            $iterations $divergences $dim $clear $copy);
    };
    // The callbacks' parameter names given: a sampler whose callbacks are not an energy and a
    // gradient (TunaMH) stores its own in the same two slots ([`Slot`]).
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident, $Cfg:ty, $Info:ty, $Sum:ty,
     $gn:ident: $G:ty, [$($en:ident: $E:ty)?], $ws_len:ident $size:ident $align:ident
     $init:ident $step:ident $run:ident $position:ident $iterations:ident $divergences:ident
     $dim:ident $clear:ident $copy:ident) => {
        const _: () = {
            use core::mem::{align_of, size_of};
            use $crate::ffi::chain::State;
            assert!(size_of::<State<$T, $Core>>() <= size_of::<$S>());
            assert!(align_of::<State<$T, $Core>>() <= align_of::<$S>());
        };

        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of one ", $name)]
        /// chain of dimension `d` with the default configuration (saturating at SIZE_MAX; 0 for
        /// d = 0). A mass matrix or preconditioner needs more: `…_workspace_len_for`.
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

        #[doc = concat!(" Starts one ", $name, " chain on `", $ctype, "` coordinates at `theta0`.")]
        ///
        /// Checks every argument (pointers, alignment, overlap, sizes, then the configuration),
        /// evaluates the energy at `theta0` once if the sampler has an energy callback, then
        /// fills `*state` and the workspace. `workspace` must hold at least
        /// `…_workspace_len_for(config, d)` elements (`…_workspace_len(d)` for the default
        /// configuration; a mass matrix or preconditioner needs more), must not overlap `state`
        /// or `theta0`, and must stay alive (with the callbacks and
        /// `user_data`) while the state is used.
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER` (any pointer but `user_data`),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_INVALID_OPTION` (an enumerated field),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL`, the configuration's codes (step size, friction,
        /// momentum scale, steps, target acceptance, AMAGOLD's `SGS_ERR_INVALID_WARMUP`; the
        /// step size and momentum scale must stay finite and positive in the chain's own type:
        /// the `_f32` functions refuse e.g. a step size of 1e-50, which `float` rounds to 0),
        /// `SGS_ERR_INVALID_POSITION`, with an energy callback `SGS_ERR_INITIAL_ENERGY_REJECTED`
        /// or `SGS_ERR_CALLBACK_ABORTED`, and `SGS_ERR_BUSY` when called from a callback of the
        /// chain in `*state`. On error neither `*state` nor the workspace is modified (a
        /// previously initialised state stays usable).
        ///
        /// The state records its own address: a byte-wise copy of it (`memcpy`, `realloc`,
        /// struct assignment) is refused with `SGS_ERR_STATE_MOVED`; use the copy function.
        /// Every call validates the state first: `SGS_ERR_NOT_INITIALISED` (zeroed, cleared, or
        /// another sampler's), `SGS_ERR_BUSY` (called from one of its own callbacks),
        /// `SGS_ERR_STATE_CORRUPTED` (tagged, but its recorded workspace, sizes or callbacks fail
        /// their checksum or do not agree with each other), `SGS_ERR_STATE_MOVED`. Not detected:
        /// two states initialised over the same workspace (each one's steps overwrite the
        /// other's position), and a stale copy of an earlier init's bytes put back at the same
        /// address.
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
            $($en: $E,)?
            $gn: $G,
            user_data: *mut core::ffi::c_void,
        ) -> $crate::ffi::sgs_status {
            use $crate::ffi::chain::Slot;
            let energy_cb: Option<$crate::ffi::common::RawEnergy<$T>> =
                None $(.or({ let given: $E = $en; given.into_slot() }))?;
            let gradient_cb: Option<$crate::ffi::common::RawGradient<$T>> = $gn.into_slot();
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::init::<$T, $Core, $S>(
                    state, config, theta0, d, workspace, workspace_len, energy_cb, gradient_cb,
                    user_data,
                )
            })
        }

        #[doc = concat!(" One outer iteration of the ", $name, " chain. Writes what happened to")]
        /// `*info` unless `info` is NULL.
        ///
        /// Returns `SGS_OK` (whatever the outcome), `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`,
        /// `SGS_ERR_STATE_MOVED`, `SGS_ERR_INVALID_ARGUMENT` (misaligned `info`, or `info`
        /// inside the state or the workspace) or `SGS_ERR_CALLBACK_ABORTED` (TunaMH also
        /// `SGS_ERR_BOUND_EXCEEDED`); on an error the chain (position, momentum, energy,
        /// counters, generator) is exactly as before the call, so retrying repeats the same
        /// draws.
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

        #[doc = concat!(" Runs `n` outer iterations of the ", $name, " chain, copying the position")]
        /// after each into the next row of `out` (`n` rows of d values; `out_len` is the capacity
        /// of `out` in elements, at least n·d; `out` may be NULL when `n` is 0).
        ///
        /// Every pointer is checked before anything is written. Then `*samples_done` and
        /// `*summary` (each unless NULL) get the rows written and the totals, also when the run
        /// stops early: after `SGS_ERR_CALLBACK_ABORTED` the chain is at its state after the
        /// last written row and `summary->iterations` rows are valid. `n = 0` succeeds and does
        /// nothing.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`,
        /// `SGS_ERR_STATE_CORRUPTED`, `SGS_ERR_STATE_MOVED`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers, n·d overflows),
        /// `SGS_ERR_OUTPUT_TOO_SMALL` (nothing is run) or `SGS_ERR_CALLBACK_ABORTED` (TunaMH
        /// also `SGS_ERR_BOUND_EXCEEDED`, stopping the run as an abort does).
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
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`
        /// (getters are refused inside the chain's own callbacks: the callback receives the
        /// point it needs), `SGS_ERR_STATE_CORRUPTED`, `SGS_ERR_STATE_MOVED`,
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
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or inside the state
        /// or the workspace), or the state's validation statuses as for the position getter.
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

        #[doc = concat!(" Invalidates the ", $name, " state: zeroes `*state`, so that every later")]
        /// call on it (but `init`) returns `SGS_ERR_NOT_INITIALISED`. The workspace is not
        /// touched. Any state may be cleared, initialised or not. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned) or `SGS_ERR_BUSY`
        /// (called from one of the chain's callbacks; nothing changed).
        ///
        /// # Safety
        /// `state` valid for writes of the whole struct.
        #[no_mangle]
        pub unsafe extern "C" fn $clear(state: *mut $S) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::clear_state::<$T, $Core, $S>(state)
            })
        }

        #[doc = concat!(" Makes `*dst` an independent copy of the ", $name, " chain `*src`: the")]
        /// workspace contents are copied into `dst_workspace` (at least
        /// `…_workspace_len_for(config, d)` elements for the source's configuration), and
        /// the copy continues exactly as the source would (same draws), each on its own
        /// workspace. The copy shares the callbacks and `user_data`. This is the only
        /// way to duplicate a state: a byte-wise copy is refused with `SGS_ERR_STATE_MOVED`.
        ///
        /// `src` may itself be a byte-wise copy whose workspace is still alive (a state moved by
        /// `memcpy` or `realloc`): `copy(s, ws, ws_len, s)` with `s`'s own workspace re-homes a
        /// moved state in place, and a copy to another `dst` works as from the original.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or
        /// `dst`, `dst_workspace`, `src` and its workspace overlapping, other than the in-place
        /// re-homing), `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_STATE_CORRUPTED` (`src`),
        /// `SGS_ERR_BUSY` (`src` or `dst` in a call), `SGS_ERR_WORKSPACE_TOO_SMALL`. On error
        /// `*dst` and `dst_workspace` are not modified.
        ///
        /// # Safety
        /// `src` valid with its workspace alive; `dst` writable; `dst_workspace` valid for
        /// `dst_workspace_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $copy(
            dst: *mut $S,
            dst_workspace: *mut $T,
            dst_workspace_len: usize,
            src: *const $S,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::copy::<$T, $Core, $S>(dst, dst_workspace, dst_workspace_len, src)
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
            // `MaybeUninit` words (plain `uint64_t` in the header): the Rust state stored here has
            // padding, which a typed write leaves uninitialised, so a by-value copy (`s2 = s1`, a
            // Rust move) must not claim that every word is an initialised integer.
            _opaque: [core::mem::MaybeUninit<u64>; $words],
        }

        #[doc = concat!(" ", $name, " chain on `float` coordinates, in caller memory (see `", stringify!($S64), "`).")]
        #[repr(C)]
        pub struct $S32 {
            _opaque: [core::mem::MaybeUninit<u64>; $words],
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
            fn validate_config<T: $crate::float::Float>(
                c: &Self::Config,
            ) -> Result<(), $crate::Error> {
                c.validate_in::<T>()
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

/// The fixed diagonal preconditioner of a chain without an accept test (SGHMC, SGLD), for one
/// coordinate type: the workspace query for a configuration, the setter and the getter of the
/// inverse mass. `preconditioner_api!(Core, T, "ctype", "Name", State, Config, len_for, set,
/// get, "unit_len", "diag_len", "what k is")`; the core has `set_inverse_mass` and
/// `inverse_mass_into`.
macro_rules! preconditioner_api {
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident, $Cfg:ty, $ws_len_for:ident,
     $set:ident, $get:ident, $unit_len:literal, $diag_len:literal, $k_doc:literal) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of an ", $name, " chain of")]
        #[doc = concat!(" dimension `d` started with `*config`: ", $unit_len, ", or ", $diag_len, " with")]
        /// `mass = SGS_MASS_DIAGONAL` (saturating at SIZE_MAX). 0 for d = 0, a NULL or
        /// misaligned `config`, or a configuration whose enumerated fields init refuses
        /// (`SGS_ERR_INVALID_OPTION`: `mass` neither `SGS_MASS_UNIT` nor `SGS_MASS_DIAGONAL`, …).
        ///
        /// # Safety
        /// `config` NULL or valid for a read.
        #[no_mangle]
        pub unsafe extern "C" fn $ws_len_for(config: *const $Cfg, d: usize) -> usize {
            if $crate::ffi::common::check_ptr(config).is_err() || d == 0 {
                return 0;
            }
            // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
            let c = unsafe { config.read() };
            match <$Core as $crate::ffi::chain::CChain>::config_from(&c) {
                Ok(cfg) => <$Core as $crate::chain::ChainKind>::workspace_len_for(&cfg, d),
                Err(_) => 0,
            }
        }

        #[doc = concat!(" Sets the fixed diagonal preconditioner of an ", $name, " chain started with")]
        /// `mass = SGS_MASS_DIAGONAL` (docs/algorithms.md §1.5): `k_len` = d values kᵢ, each
        /// positive and finite with a finite 1/√k, e.g. posterior variances learnt elsewhere
        #[doc = concat!(" (", $k_doc, ").")]
        /// Until it is set the preconditioner is the identity. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, or `k` inside the state or the workspace),
        /// `SGS_ERR_LENGTH_MISMATCH` (`k_len ≠ d`), `SGS_ERR_INVALID_MASS`,
        /// `SGS_ERR_MASS_MISMATCH` (a chain started with `SGS_MASS_UNIT`), or the state's
        /// validation statuses (as for the position getter; `SGS_ERR_BUSY` from inside the
        /// chain's callbacks). Nothing changes on an error.
        ///
        /// # Safety
        /// `state` valid; `k` valid for `k_len` reads.
        #[no_mangle]
        pub unsafe extern "C" fn $set(
            state: *mut $S,
            k: *const $T,
            k_len: usize,
        ) -> $crate::ffi::sgs_status {
            if k.is_null() {
                return $crate::Error::NullPointer.into();
            }
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::with_core_mut::<$T, $Core, $S, $T>(state, k, k_len, |c, ws, k| {
                    c.set_inverse_mass(ws, k)
                })
            })
        }

        #[doc = concat!(" Copies the diagonal preconditioner's inverse mass kᵢ of an ", $name, " chain")]
        /// (d values) into `out` (capacity `out_len` ≥ d): d ones for a chain started with
        /// `SGS_MASS_UNIT`, and for an `SGS_MASS_DIAGONAL` one until it is set. Statuses as for
        /// the position getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $get(
            state: *const $S,
            out: *mut $T,
            out_len: usize,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::chain::fill_out::<$T, $Core, $S>(state, out, out_len, |d| d, |c, ws, o| {
                    c.inverse_mass_into(ws, o)
                })
            })
        }
    };
}
pub(crate) use preconditioner_api;
