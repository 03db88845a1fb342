//! Streaming diagnostics in C (`sgs_stats_…`): one [`Series`] per coordinate, in caller memory.
//!
//! The state is variable-sized (a header, then `d` accumulators), so the caller asks
//! `sgs_stats_state_size(d)` and `sgs_stats_state_align()` and hands that memory to
//! `sgs_stats_init`. It holds no pointer, so unlike the samplers' states a byte-wise copy
//! (`memcpy`) is a valid, independent copy: it is not address-bound.

use super::common::{
    check_array, check_ptr, check_sealed, refuse_if_busy, seal, to_status, validate, Fixed, Hasher,
    Header,
};
use super::sgs_status;
use crate::error::Error;
use crate::float::Float;
use crate::stats::{ess_flagged_by, split_rhat_by, Series};
use core::mem::{align_of, size_of};

/// The autocorrelation window (lags) of the C accumulators: the ESS is Geyer's estimate as long
/// as a chain's autocorrelation dies out within this many draws, Geyer's estimate over 64 to 128
/// batch means beyond (flagged `SGS_STATS_ESS_BEYOND_WINDOW`).
pub const SGS_STATS_LAGS: usize = 128;

/// Flag bit of `sgs_stats_ess_flags` and `sgs_stats_ess_chains_flags`: the autocorrelation
/// outlived the window of `SGS_STATS_LAGS` lags, so the ESS is Geyer's sequence over the batch
/// means (a lower-confidence estimate; docs/algorithms.md §4.3).
pub const SGS_STATS_ESS_BEYOND_WINDOW: u32 = 1;

/// Flag bit of `sgs_stats_ess_flags` and `sgs_stats_ess_chains_flags`: the chains are short
/// against their autocorrelation time (fewer than 90 effective draws per chain, or fewer than
/// 4 draws), so the ESS is discounted below the raw estimate, to 0 ("cannot tell", MCSE +∞) at
/// 20 effective draws per chain or fewer (docs/algorithms.md §4.8).
pub const SGS_STATS_ESS_SHORT_CHAIN: u32 = 2;
/// `sgs_stats_ess_flags` bit: every draw is the same value; the ESS is then the draw count, as
/// ArviZ reports it, but a chain that never moved (every proposal rejected) looks the same.
pub const SGS_STATS_ESS_CONSTANT: u32 = 4;

const _: () = assert!(SGS_STATS_ESS_BEYOND_WINDOW == crate::stats::ESS_BEYOND_WINDOW);
const _: () = assert!(SGS_STATS_ESS_SHORT_CHAIN == crate::stats::ESS_SHORT_CHAIN);
const _: () = assert!(SGS_STATS_ESS_CONSTANT == crate::stats::ESS_CONSTANT);

type CSeries = Series<SGS_STATS_LAGS>;

/// The type tag of a state. Changed with the accumulators' layout (`sgsSTATS` until the ESS
/// batch means were added), so that a state saved by an earlier library is refused
/// (`SGS_ERR_NOT_INITIALISED`) rather than misread.
const TAG: u64 = u64::from_le_bytes(*b"sgsSTAT2");

/// The head of a diagnostics state (`d` accumulators follow it in the same memory). Opaque:
/// allocate `sgs_stats_state_size(d)` bytes aligned to `sgs_stats_state_align()` (not
/// `sizeof(sgs_stats)`), and fill them with `sgs_stats_init`. Zero the memory first so that use
/// before init is reported as `SGS_ERR_NOT_INITIALISED`. Holds no pointers: a `memcpy` of the
/// whole state is an independent copy.
#[repr(C)]
pub struct sgs_stats {
    _opaque: [u64; 4],
}

/// The fixed fields: the common header and the dimension.
#[repr(C)]
#[derive(Clone, Copy)]
struct Head {
    header: Header,
    d: usize,
}

const _: () = assert!(size_of::<Head>() <= size_of::<sgs_stats>());
const _: () = assert!(size_of::<sgs_stats>().is_multiple_of(align_of::<CSeries>()));
const _: () = assert!(align_of::<CSeries>() <= align_of::<sgs_stats>());

impl Fixed for Head {
    fn header(&self) -> &Header {
        &self.header
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.header
    }
    fn fields(&self, h: &mut Hasher) {
        h.word(self.d as u64);
    }
    fn consistent(&self) -> bool {
        self.d != 0 && state_bytes(self.d).is_some()
    }
}

/// Bytes of a state with `d` accumulators (`None` on overflow).
fn state_bytes(d: usize) -> Option<usize> {
    let b = d
        .checked_mul(size_of::<CSeries>())?
        .checked_add(size_of::<sgs_stats>())?;
    (b <= isize::MAX as usize).then_some(b)
}

/// Validates an initialised state (any address: it is not address-bound) and returns its
/// dimension.
///
/// # Safety
/// A non-null, aligned `p` must be readable for an `sgs_stats`.
unsafe fn checked(p: *const sgs_stats) -> Result<usize, Error> {
    // SAFETY: contract of the caller.
    let head: Head = unsafe { validate(p, TAG)? };
    check_sealed(&head, p, 0, true)?;
    Ok(head.d)
}

/// The accumulators of a validated state of dimension `d`.
///
/// # Safety
/// `p` must be a validated state: `state_bytes(d)` readable bytes (the size the caller promised
/// at init).
unsafe fn series<'a>(p: *const sgs_stats, d: usize) -> &'a [CSeries] {
    // SAFETY: the accumulators follow the head (alignment checked at compile time above); init
    // wrote `d` of them.
    unsafe { core::slice::from_raw_parts(p.add(1).cast::<CSeries>(), d) }
}

/// As [`series`], mutably.
///
/// # Safety
/// As [`series`], and writable, with no other reference into it alive.
unsafe fn series_mut<'a>(p: *mut sgs_stats, d: usize) -> &'a mut [CSeries] {
    // SAFETY: as `series`.
    unsafe { core::slice::from_raw_parts_mut(p.add(1).cast::<CSeries>(), d) }
}

/// Writes the bytes a diagnostics state of dimension `d` needs into `*bytes`
/// (`SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_INVALID_ARGUMENT` when it does not fit in memory).
///
/// # Safety
/// `bytes` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_state_size(d: usize, bytes: *mut usize) -> sgs_status {
    to_status((|| {
        check_ptr(bytes)?;
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        let b = state_bytes(d).ok_or(Error::InvalidArgument)?;
        // SAFETY: checked non-null and aligned; the caller's out-pointer.
        unsafe { bytes.write(b) };
        Ok(())
    })())
}

/// The alignment (bytes) a diagnostics state needs.
#[no_mangle]
pub extern "C" fn sgs_stats_state_align() -> usize {
    align_of::<sgs_stats>()
}

/// Starts `d` empty accumulators (one per coordinate) in the `bytes` bytes at `state`, which must
/// be at least `sgs_stats_state_size(d)` (`SGS_ERR_WORKSPACE_TOO_SMALL`) and aligned to
/// `sgs_stats_state_align()` (`SGS_ERR_INVALID_ARGUMENT`). Re-initialising restarts the counts.
///
/// # Safety
/// `state` must be valid for `bytes` reads and writes, and stay so while the state is used.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_init(
    state: *mut sgs_stats,
    bytes: usize,
    d: usize,
) -> sgs_status {
    to_status((|| {
        check_array(state.cast::<u8>(), bytes)?;
        if !state.is_aligned() {
            return Err(Error::InvalidArgument);
        }
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        let need = state_bytes(d).ok_or(Error::InvalidArgument)?;
        if bytes < need {
            return Err(Error::WorkspaceTooSmall);
        }
        // SAFETY: `bytes ≥ size_of::<sgs_stats>()` readable bytes at an aligned `state`.
        unsafe { refuse_if_busy(state, TAG)? };
        // SAFETY: `need` writable bytes at `state` (the caller's promise for `bytes`).
        let all = unsafe { series_mut(state, d) };
        for s in all.iter_mut() {
            *s = CSeries::new();
        }
        let mut head = Head {
            header: Header {
                tag: 0,
                busy: 0,
                token: 0,
                home: 0,
            },
            d,
        };
        // Home 0: the state is not address-bound (it holds no pointers).
        seal(&mut head, TAG, 0, 0);
        // SAFETY: aligned, writable, and `Head` fits in `sgs_stats` (checked at compile time).
        unsafe { state.cast::<Head>().write(head) };
        Ok(())
    })())
}

/// Zeroes the head of a state (its later use is `SGS_ERR_NOT_INITIALISED`).
///
/// # Safety
/// `state` must be valid for writes of `sizeof(sgs_stats)` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_clear(state: *mut sgs_stats) -> sgs_status {
    // SAFETY: the head is an `sgs_stats`; contract of the caller.
    to_status(unsafe { super::common::clear(state, TAG) })
}

/// The common body of the two `push` functions: checks, then pushes every coordinate.
///
/// # Safety
/// As the C functions.
unsafe fn push<T: Float>(state: *mut sgs_stats, x: *const T, d: usize) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let have = unsafe { checked(state)? };
    check_array(x, d)?;
    if d != have {
        return Err(Error::LengthMismatch);
    }
    // SAFETY: checked array of `d` values.
    let xs = unsafe { core::slice::from_raw_parts(x, d) };
    if !crate::float::all_finite(xs) {
        return Err(Error::NonFinite);
    }
    // SAFETY: validated state of dimension `d`.
    let all = unsafe { series_mut(state, d) };
    for (s, &v) in all.iter_mut().zip(xs) {
        s.push(v);
    }
    Ok(())
}

/// Adds one draw `x` (`d` doubles, `d` as at init: `SGS_ERR_LENGTH_MISMATCH`). A draw with a
/// NaN or infinite coordinate is refused (`SGS_ERR_NON_FINITE`), nothing pushed.
///
/// # Safety
/// `state` must be a state given to `sgs_stats_init` (with the size it was given); `x` valid for `d` reads.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_push(
    state: *mut sgs_stats,
    x: *const f64,
    d: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { push(state, x, d) })
}

/// `sgs_stats_push` for a `float` draw (the sums are `double` all the same).
///
/// # Safety
/// As `sgs_stats_push`.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_push_f32(
    state: *mut sgs_stats,
    x: *const f32,
    d: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { push(state, x, d) })
}

/// Writes the number of draws pushed into `*count`.
///
/// # Safety
/// `state` as for `sgs_stats_push`; `count` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_count(state: *const sgs_stats, count: *mut u64) -> sgs_status {
    to_status((|| {
        // SAFETY: contract of the caller.
        let d = unsafe { checked(state)? };
        check_ptr(count)?;
        let bytes = state_bytes(d).ok_or(Error::StateCorrupted)?;
        if super::common::overlap(count, 1, state.cast::<u8>(), bytes) {
            return Err(Error::InvalidArgument);
        }
        // SAFETY: validated.
        let n = unsafe { series(state, d) }.first().map_or(0, |s| s.count());
        // SAFETY: checked non-null and aligned.
        unsafe { count.write(n) };
        Ok(())
    })())
}

/// Writes one statistic per coordinate, `f` of its accumulator, into `out` (capacity
/// `out_len ≥ d`).
///
/// # Safety
/// As the C functions.
unsafe fn per_coordinate<T>(
    state: *const sgs_stats,
    out: *mut T,
    out_len: usize,
    f: impl Fn(&CSeries) -> T,
) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let d = unsafe { checked(state)? };
    check_array(out, out_len)?;
    let bytes = state_bytes(d).ok_or(Error::StateCorrupted)?;
    if super::common::overlap(out, out_len, state.cast::<u8>(), bytes) {
        return Err(Error::InvalidArgument);
    }
    if out_len < d {
        return Err(Error::OutputTooSmall);
    }
    // SAFETY: validated; `out` is a checked array disjoint from the state.
    let (all, out) = unsafe { (series(state, d), core::slice::from_raw_parts_mut(out, d)) };
    for (o, s) in out.iter_mut().zip(all) {
        *o = f(s);
    }
    Ok(())
}

/// Writes the mean of each coordinate's draws into `out[0..d]` (`out_len ≥ d`, else
/// `SGS_ERR_OUTPUT_TOO_SMALL`; NaN before the first draw).
///
/// # Safety
/// `state` as for `sgs_stats_push`; `out` valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_mean(
    state: *const sgs_stats,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { per_coordinate(state, out, out_len, CSeries::mean) })
}

/// Writes each coordinate's sample variance (n − 1 in the denominator; NaN below 2 draws).
///
/// # Safety
/// As `sgs_stats_mean`.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_variance(
    state: *const sgs_stats,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { per_coordinate(state, out, out_len, CSeries::variance) })
}

/// Writes each coordinate's effective sample size (Geyer's initial monotone sequence over the
/// autocorrelation window, over the batch means beyond it; never above the raw estimate, 0 when
/// the chain is too short against its autocorrelation time to tell; NaN below 4 draws).
/// `sgs_stats_ess_flags` tells which values are lower-confidence ones.
///
/// # Safety
/// As `sgs_stats_mean`.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_ess(
    state: *const sgs_stats,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { per_coordinate(state, out, out_len, CSeries::ess) })
}

/// Writes the flags of each coordinate's `sgs_stats_ess` into `out[0..d]`: 0 when the ESS is
/// ArviZ's unsplit estimate on a chain long against its autocorrelation time, else a
/// lower-confidence, deliberately conservative value with `SGS_STATS_ESS_BEYOND_WINDOW` and/or
/// `SGS_STATS_ESS_SHORT_CHAIN` set. Errors as `sgs_stats_mean` (nothing written on error).
///
/// # Safety
/// `state` as for `sgs_stats_push`; `out` valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_ess_flags(
    state: *const sgs_stats,
    out: *mut u32,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { per_coordinate(state, out, out_len, |s| s.ess_flagged().flags) })
}

/// Writes each coordinate's Monte Carlo standard error of the mean, √(variance / ESS) (+∞ where
/// the ESS is 0).
///
/// # Safety
/// As `sgs_stats_mean`.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_mcse(
    state: *const sgs_stats,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { per_coordinate(state, out, out_len, CSeries::mcse) })
}

/// The common body of the across-chains functions.
///
/// # Safety
/// As the C functions.
unsafe fn across<'a, T>(
    chains: *const *const sgs_stats,
    k: usize,
    out: *mut T,
    out_len: usize,
    f: impl Fn(usize, &dyn Fn(usize) -> Option<&'a CSeries>) -> Result<T, Error>,
) -> Result<(), Error> {
    check_array(chains, k)?;
    if k == 0 {
        return Err(Error::ZeroDimension);
    }
    // SAFETY: checked array of `k` pointers.
    let ptrs = unsafe { core::slice::from_raw_parts(chains, k) };
    let mut d = 0usize;
    for &p in ptrs {
        // SAFETY: contract of the caller (each entry is a state or NULL, checked).
        let dc = unsafe { checked(p)? };
        if d != 0 && dc != d {
            return Err(Error::LengthMismatch);
        }
        d = dc;
    }
    check_array(out, out_len)?;
    for &p in ptrs {
        let bytes = state_bytes(d).ok_or(Error::StateCorrupted)?;
        if super::common::overlap(out, out_len, p.cast::<u8>(), bytes)
            || super::common::overlap(out, out_len, chains, k)
        {
            return Err(Error::InvalidArgument);
        }
    }
    if out_len < d {
        return Err(Error::OutputTooSmall);
    }
    let at = |c: usize, j: usize| {
        // SAFETY: every entry validated with dimension `d`, `j < d`.
        ptrs.get(c).and_then(|&p| unsafe { series(p, d) }.get(j))
    };
    // A push adds to every coordinate, so one coordinate's counts decide: all checked before
    // anything is written.
    let n0 = at(0, 0).map(|s| s.count());
    if (1..k).any(|c| at(c, 0).map(|s| s.count()) != n0) {
        return Err(Error::LengthMismatch);
    }
    for j in 0..d {
        let v = f(k, &|c| at(c, j))?;
        // SAFETY: checked array, `j < d ≤ out_len`, disjoint from the states.
        unsafe { out.add(j).write(v) };
    }
    Ok(())
}

/// Writes split-R̂ of each coordinate over the `k` chains `chains[0..k]` (states of the same
/// dimension, `SGS_ERR_LENGTH_MISMATCH` otherwise, and with the same number of draws,
/// `SGS_ERR_LENGTH_MISMATCH`) into `out[0..d]`. Each chain's halves are taken from its completed
/// batches (exactly its two halves when its draw count is 16·2^j). NaN before 4 draws per chain.
/// `SGS_ERR_ZERO_DIMENSION` when `k` is 0; `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT`
/// (misaligned, or `out` overlapping a state or `chains`) and `SGS_ERR_OUTPUT_TOO_SMALL`
/// (`out_len < d`) as for the per-coordinate getters.
///
/// # Safety
/// `chains` valid for `k` reads, each entry as `state` in `sgs_stats_push`; `out` valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_rhat(
    chains: *const *const sgs_stats,
    k: usize,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe { across(chains, k, out, out_len, |k, get| split_rhat_by(k, get)) })
}

/// Writes the ESS of each coordinate over the `k` chains together (within- and between-chain
/// variance combined as in ArviZ; as `sgs_stats_ess` for one chain, with the thresholds per
/// chain) into `out[0..d]`. Errors as `sgs_stats_rhat`.
///
/// # Safety
/// As `sgs_stats_rhat`.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_ess_chains(
    chains: *const *const sgs_stats,
    k: usize,
    out: *mut f64,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe {
        across(chains, k, out, out_len, |k, get| {
            Ok(ess_flagged_by(k, get)?.value)
        })
    })
}

/// Writes the flags of each coordinate's `sgs_stats_ess_chains` into `out[0..d]`
/// (`SGS_STATS_ESS_BEYOND_WINDOW`, `SGS_STATS_ESS_SHORT_CHAIN`; 0 when the ESS is ArviZ's
/// unsplit estimate on chains long against their autocorrelation time). Errors as
/// `sgs_stats_rhat` (nothing written on error).
///
/// # Safety
/// As `sgs_stats_rhat`, with `out` valid for `out_len` `uint32_t` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_stats_ess_chains_flags(
    chains: *const *const sgs_stats,
    k: usize,
    out: *mut u32,
    out_len: usize,
) -> sgs_status {
    // SAFETY: contract of the caller.
    to_status(unsafe {
        across(chains, k, out, out_len, |k, get| {
            Ok(ess_flagged_by(k, get)?.flags)
        })
    })
}
