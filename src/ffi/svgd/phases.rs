//! An SVGD iteration in phases through the C ABI: `sgs_svgd_begin`, `…_gradients_range`,
//! `…_batches_range`, `…_forces_get`/`…_forces_put` or `…_moves_get`/`…_moves_put` (for
//! processes that share forces, or the moves made from them),
//! `…_finish`, `…_cancel`, and the range queries.
//!
//! # Concurrency
//!
//! The range calls (gradients, batches, forces in and out) may run at the same time on any
//! number of threads for disjoint ranges. They never write the state struct: they read its
//! fixed part (validation, checksum) and the core, both written only by `init`, `begin`,
//! `finish`, `cancel`, `copy` and `clear`, which the caller must not run concurrently with them.
//! They write only their own slots' rows of the workspace. Their bookkeeping is four bitmaps
//! over the permutation slots (one bit per slot, 32 slots per atomic word) and one word of
//! flags, after the core's layout in the workspace:
//!
//! * `TAKEN`: the slot's gradients (or its forces put in from elsewhere) are claimed;
//! * `GRAD`: its gradients are computed;
//! * `CLAIM`: its forces are claimed (by a batch range, or by a put);
//! * `DONE`: its forces (and, when the ranges move, its move) are computed;
//! * the flag word: set when a range's moves were not all finite (then `finish` fails).
//!
//! A range claims its slots with one `fetch_or` per word (acquire and release); a claim that
//! finds a bit already set undoes the bits it set and reports the overlap. So overlapping or
//! repeated ranges are refused even when they race, and a batch range, which checks `GRAD`
//! (acquire) after its claim, reads gradients that a release `fetch_or` published. One
//! read-modify-write per 32 slots instead of one per slot keeps the bookkeeping out of the
//! profile. The busy flag, which `step` sets in the state, is not used here: concurrent range
//! calls would see each other's flag.

use super::*;
use crate::float::copy as copy_rows;
use crate::svgd::{restore, Batching, InPlaceRows, Shared, SharedRows};
use core::sync::atomic::{AtomicU32, Ordering};

/// Slots per bitmap word.
const BITS: usize = 32;

/// The bookkeeping of the iteration in phases (see the module docs), in the workspace.
struct Progress<'a> {
    taken: &'a [AtomicU32],
    grad: &'a [AtomicU32],
    claim: &'a [AtomicU32],
    done: &'a [AtomicU32],
    /// Bit 0: some moves were not finite.
    flags: &'a AtomicU32,
}

/// `u32` words of the bookkeeping for `n` slots: four bitmaps and the flag word.
pub(super) fn progress_words(n: usize) -> usize {
    n.div_ceil(BITS).saturating_mul(4).saturating_add(1)
}

/// The bookkeeping of a validated state: [`progress_words`] `AtomicU32` after the core's
/// layout.
///
/// # Safety
/// `fx` and `core` from a state validated by `enter` (its workspace holds `c_need` elements).
unsafe fn progress<'a, T>(fx: &SvgdFixed<T>, core: &SvgdCore<KernelChoice>) -> Progress<'a> {
    let p = fx
        .ws
        .wrapping_add(core.workspace_needed())
        .cast::<AtomicU32>();
    let w = core.n.div_ceil(BITS);
    // SAFETY: the workspace holds `flag_elems(n)` elements after the core's layout (checked by
    // `enter`), i.e. at least `4·progress_words(n)` bytes, aligned to 4 (T is 4 or 8 bytes
    // and aligned); they are only ever accessed as atomics. The four bitmaps and the flag word
    // are disjoint parts of them.
    unsafe {
        let at = |k: usize| core::slice::from_raw_parts(p.add(k * w), w);
        Progress {
            taken: at(0),
            grad: at(1),
            claim: at(2),
            done: at(3),
            flags: &*p.add(4 * w),
        }
    }
}

/// The words of a bitmap that slots `a..b` touch, each with the mask of its bits in the range.
/// Empty when `a ≥ b`.
fn words(a: usize, b: usize) -> impl Iterator<Item = (usize, u32)> {
    let (w0, w1) = if a < b {
        (a / BITS, b.div_ceil(BITS))
    } else {
        (0, 0)
    };
    (w0..w1).map(move |w| {
        let lo = a.max(w * BITS).saturating_sub(w * BITS);
        let hi = b.min((w + 1) * BITS).saturating_sub(w * BITS);
        // `hi − lo` bits from `lo` (1 ≤ hi − lo ≤ 32 for a word of a non-empty range).
        let mask = u32::MAX
            .wrapping_shr(BITS.saturating_sub(hi.saturating_sub(lo)) as u32)
            .wrapping_shl(lo as u32);
        (w, mask)
    })
}

/// Sets the bits of slots `a..b` in `map` if none was set; otherwise clears the bits this
/// call set and fails. `a < b ≤ N` (an empty range claims nothing).
fn claim(map: &[AtomicU32], a: usize, b: usize) -> Result<(), ()> {
    for (w, mask) in words(a, b) {
        let old = map
            .get(w)
            .map_or(u32::MAX, |m| m.fetch_or(mask, Ordering::AcqRel));
        if old & mask != 0 {
            // This word's bits this call set, then every earlier word's (all set by it).
            if let Some(m) = map.get(w) {
                m.fetch_and(!(mask & !old), Ordering::Release);
            }
            clear(map, a, (w * BITS).max(a));
            return Err(());
        }
    }
    Ok(())
}

/// Clears the bits of slots `a..b` (release).
fn clear(map: &[AtomicU32], a: usize, b: usize) {
    for (w, mask) in words(a, b) {
        if let Some(m) = map.get(w) {
            m.fetch_and(!mask, Ordering::Release);
        }
    }
}

/// Sets the bits of slots `a..b` (release: publishes the rows written).
fn mark(map: &[AtomicU32], a: usize, b: usize) {
    for (w, mask) in words(a, b) {
        if let Some(m) = map.get(w) {
            m.fetch_or(mask, Ordering::Release);
        }
    }
}

/// `true` when the bits of slots `a..b` are all set (acquire).
fn all(map: &[AtomicU32], a: usize, b: usize) -> bool {
    words(a, b).all(|(w, mask)| {
        map.get(w)
            .is_some_and(|m| m.load(Ordering::Acquire) & mask == mask)
    })
}

/// `InvalidRange` for `first > end`, `RangeOutOfBounds` for `end > limit`.
fn check_range(first: usize, end: usize, limit: usize) -> Result<(), Error> {
    if first > end {
        Err(Error::InvalidRange)
    } else if end > limit {
        Err(Error::RangeOutOfBounds)
    } else {
        Ok(())
    }
}

/// Validates a state for a range call and returns its fixed part, core and pending iteration
/// (`IterationNotBegun` without one). Reads only.
///
/// # Safety
/// The C contract of the range calls: `state` valid, its buffers alive, no `begin`, `finish`,
/// `cancel`, `copy` or `clear` on it meanwhile.
#[allow(clippy::type_complexity)]
unsafe fn phase_enter<'a, T: Float, S>(
    tag: u64,
    state: *const S,
) -> Result<
    (
        SvgdFixed<T>,
        &'a SvgdCore<KernelChoice>,
        &'a Pending<KernelParams<T>, T>,
    ),
    Error,
> {
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated; only shared references to the core and the pending iteration are
    // made while range calls run (their writers are excluded by the contract).
    let (core, pending) = unsafe {
        (
            core_ref::<T, S>(state),
            (*core::ptr::addr_of!((*state.cast::<State<T>>()).pending)).get(),
        )
    };
    Ok((fx, core, pending.ok_or(Error::IterationNotBegun)?))
}

/// [`phase_enter`], then the range `first..end` checked against `limit(core)` (the slots or the
/// batches), and the progress words.
///
/// # Safety
/// As for [`phase_enter`].
#[allow(clippy::type_complexity)]
unsafe fn range_enter<'a, T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
    limit: fn(&SvgdCore<KernelChoice>) -> usize,
) -> Result<
    (
        SvgdFixed<T>,
        &'a SvgdCore<KernelChoice>,
        &'a Pending<KernelParams<T>, T>,
        Progress<'a>,
    ),
    Error,
> {
    // SAFETY: contract of the caller.
    let (fx, core, pending) = unsafe { phase_enter::<T, S>(tag, state)? };
    check_range(first, end, limit(core))?;
    // SAFETY: validated.
    let pr = unsafe { progress(&fx, core) };
    Ok((fx, core, pending, pr))
}

/// The number of slots (the limit of slot ranges).
fn slots(core: &SvgdCore<KernelChoice>) -> usize {
    core.n
}

/// The number of batches (the limit of batch ranges).
fn batches(core: &SvgdCore<KernelChoice>) -> usize {
    core.batches()
}

/// Rows `a..b` (d values each) of the slot-ordered region at element offset `off`.
///
/// # Safety
/// `fx` validated; `off` one of the core's slot regions, `a ≤ b ≤ N`; the caller holds the
/// rows' progress words (no other live reference to them).
unsafe fn rows_at<'a, T>(fx: &SvgdFixed<T>, off: usize, a: usize, b: usize) -> &'a mut [T] {
    // SAFETY: contract of the caller: inside the workspace region of N·d elements at `off`.
    unsafe { core::slice::from_raw_parts_mut(fx.ws.add(off + a * fx.d), (b - a) * fx.d) }
}

/// # Safety
/// The C contract of `sgs_svgd_begin`.
unsafe fn begin<T: Float, S>(tag: u64, state: *mut S) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let st = state.cast::<State<T>>();
    // SAFETY: validated; no range call runs (no iteration under way), so the core and the
    // buffers are borrowed by this call alone.
    let core = unsafe { &mut *core::ptr::addr_of_mut!((*st).core) };
    // SAFETY: checked at init, pairwise disjoint, alive by the caller's contract.
    let (xs, ws, idx) = unsafe {
        (
            core::slice::from_raw_parts(fx.particles, fx.n_coords),
            workspace(fx.ws, core.workspace_needed()),
            core::slice::from_raw_parts_mut(fx.idx, fx.idx_len),
        )
    };
    let pending = core.begin_phases(xs, ws, idx, true)?;
    // SAFETY: validated; no range call runs yet.
    let pr = unsafe { progress(&fx, core) };
    // Whole words, the bits past slot N-1 included: init does not clear the workspace, and
    // `cancel` reads whole words, so a stray bit there (from a workspace used before) would
    // look like a range under way.
    for m in [pr.taken, pr.grad, pr.claim, pr.done] {
        clear(m, 0, fx.n.div_ceil(BITS).saturating_mul(BITS));
    }
    pr.flags.store(0, Ordering::Release);
    // SAFETY: validated; the only reference to the pending slot.
    unsafe { (*core::ptr::addr_of_mut!((*st).pending)).put(pending) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_gradients_range`.
unsafe fn gradients_range<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let (fx, core, pending, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    claim(pr.taken, first, end).map_err(|_| Error::RangeOverlap)?;
    let [ox, og, _] = core.slot_offsets();
    let mut model = SvgdModel {
        gradient: fx.gradient,
        gradients: fx.gradients,
        user_data: fx.user_data,
    };
    let computed = if core.in_place_ranges() {
        // SAFETY: the slots `first..end` are claimed by this call: their rows, their entries of
        // the index buffer and their particles' rows (a bijection of the slots) are its alone.
        unsafe {
            let (xs, g, perm) = (
                rows_at(&fx, ox, first, end),
                rows_at(&fx, og, first, end),
                core::slice::from_raw_parts_mut(fx.idx.add(first), end - first),
            );
            let particles = SharedRows::from_raw(fx.particles, fx.n_coords, fx.d);
            core.gradient_rows_in_place(pending, particles, perm, first, xs, g, &mut model)
        }
    } else {
        // SAFETY: as below.
        unsafe { gradients_gathered_here(&fx, core, pending, first, end, &mut model) }
    };
    match computed {
        Ok(()) => {
            mark(pr.grad, first, end);
            Ok(())
        }
        Err(e) => {
            // The range may be retried (same seed, same positions) or the iteration cancelled.
            clear(pr.taken, first, end);
            Err(e)
        }
    }
}

/// The gradients of slots `first..end` when `finish` moves the particles: the positions read
/// from the particles by the permutation `begin` drew.
///
/// # Safety
/// The slots `first..end` are claimed by the caller.
unsafe fn gradients_gathered_here<T: Float>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
    pending: &Pending<KernelParams<T>, T>,
    first: usize,
    end: usize,
    model: &mut SvgdModel<T>,
) -> Result<(), Error> {
    let [ox, og, _] = core.slot_offsets();
    // SAFETY: the slots `first..end` are claimed by the caller; the particles, the permutation
    // and the scale region are only read while an iteration is under way.
    let (xs, g, particles, perm, sc) = unsafe {
        (
            rows_at(fx, ox, first, end),
            rows_at(fx, og, first, end),
            core::slice::from_raw_parts(fx.particles, fx.n_coords),
            core::slice::from_raw_parts(fx.idx, fx.n),
            scales(fx, core),
        )
    };
    // The gradients read no history.
    let shared = Shared {
        particles,
        perm,
        hist: &[],
        sc,
    };
    core.gradient_rows(pending, shared, first, xs, g, model)
}

/// The three by-particle buffers the moves in place write: the particles, the history (empty
/// without AdaGrad) and φ by particle (the workspace's force range).
///
/// # Safety
/// `fx`, `core` validated; each row is accessed as [`SharedRows::row_mut`] requires.
unsafe fn by_particle<'a, T>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
) -> [SharedRows<'a, T>; 3] {
    let (ho, hl) = core.history_range();
    let (fo, fl) = core.force_range();
    // SAFETY: the particles buffer and two regions of the workspace's core layout (checked by
    // `enter`); the caller's contract for the rows.
    unsafe {
        [
            SharedRows::from_raw(fx.particles, fx.n_coords, fx.d),
            SharedRows::from_raw(fx.ws.add(ho), hl, fx.d),
            SharedRows::from_raw(fx.ws.add(fo), fl, fx.d),
        ]
    }
}

/// When the ranges move in place, the moves of slots `a..b` (forces in their rows of the force
/// region, positions gathered) into their particles; sets the flag word's bit 0 on a non-finite
/// value.
///
/// # Safety
/// The slots `a..b` are claimed by the caller and their permutation entries written.
unsafe fn move_here<T: Float>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
    pending: &Pending<KernelParams<T>, T>,
    pr: &Progress<'_>,
    a: usize,
    b: usize,
) {
    let [ox, _, of] = core.slot_offsets();
    // SAFETY: the slots `a..b` are the caller's: their rows, their permutation entries and
    // (a bijection) their particles' rows.
    unsafe {
        let [particles, hist, by_particle] = by_particle(fx, core);
        let at = InPlaceRows {
            particles,
            hist,
            by_particle,
            perm: core::slice::from_raw_parts(fx.idx.add(a), b - a),
            xs: rows_at(fx, ox, a, b),
            phi: rows_at(fx, of, a, b),
            d: fx.d,
        };
        if !core.move_range_in_place(pending, at) {
            pr.flags.fetch_or(1, Ordering::Relaxed);
        }
    }
}

/// # Safety
/// The C contract of `sgs_svgd_batches_range`.
unsafe fn batches_range<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let (fx, core, pending, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, batches)? };
    let (a, b) = (core.batch_start(first), core.batch_start(end));
    claim(pr.claim, a, b).map_err(|_| Error::RangeOverlap)?;
    if !all(pr.grad, a, b) {
        clear(pr.claim, a, b);
        return Err(Error::GradientsNotReady);
    }
    let [ox, og, of] = core.slot_offsets();
    if core.in_place_ranges() {
        // SAFETY: the slots `a..b` are claimed by this call, and their gradient ranges wrote
        // their permutation entries (published by `GRAD`).
        unsafe {
            let (xs, g, phi) = (
                rows_at(&fx, ox, a, b),
                rows_at(&fx, og, a, b),
                rows_at(&fx, of, a, b),
            );
            core.batch_forces(pending, first, end, xs, g, phi);
            move_here(&fx, core, pending, &pr, a, b);
        }
        mark(pr.done, a, b);
        return Ok(());
    }
    // SAFETY: the slots `a..b` are claimed by this call; the history, the permutation, the
    // particles and the scale region are only read while an iteration is under way.
    let (xs, g, phi, hist, perm, particles, sc) = unsafe {
        (
            rows_at(&fx, ox, a, b),
            rows_at(&fx, og, a, b),
            rows_at(&fx, of, a, b),
            history(&fx, core),
            core::slice::from_raw_parts(fx.idx, fx.n),
            core::slice::from_raw_parts(fx.particles, fx.n_coords),
            scales(&fx, core),
        )
    };
    core.batch_forces(pending, first, end, xs, g, phi);
    let shared = Shared {
        particles,
        perm,
        hist,
        sc,
    };
    if !core.move_range(pending, shared, a, xs, g, phi) {
        pr.flags.fetch_or(1, Ordering::Relaxed);
    }
    mark(pr.done, a, b);
    Ok(())
}

/// The scale region (the scale option's `s` and `c`; empty when off), read-only.
///
/// # Safety
/// `fx`, `core` validated; no call writes the region meanwhile (only `begin` and
/// `sgs_svgd_set_scale`, neither while an iteration is under way).
unsafe fn scales<'a, T>(fx: &SvgdFixed<T>, core: &SvgdCore<KernelChoice>) -> &'a [T] {
    let (off, len) = core.scale_range();
    // SAFETY: contract of the caller: a region of the workspace's core layout.
    unsafe { core::slice::from_raw_parts(fx.ws.add(off), len) }
}

/// The history region (by particle; empty without AdaGrad), read-only.
///
/// # Safety
/// `fx`, `core` validated; no call writes the history meanwhile (only `finish` does).
unsafe fn history<'a, T>(fx: &SvgdFixed<T>, core: &SvgdCore<KernelChoice>) -> &'a [T] {
    let (off, len) = core.history_range();
    // SAFETY: contract of the caller: a region of the workspace's core layout.
    unsafe { core::slice::from_raw_parts(fx.ws.add(off), len) }
}

/// # Safety
/// The C contract of `sgs_svgd_forces_get`.
unsafe fn forces_get<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let (fx, core, _, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    if !all(pr.done, first, end) {
        return Err(Error::IterationIncomplete);
    }
    if core.in_place_ranges() {
        // φ by particle: the slot rows hold the old histories now.
        check_output(&fx.spans(state), out, out_len, (end - first) * fx.d)?;
        // SAFETY: the slots are done (their permutation entries and their particles' φ rows
        // are written by nothing until `finish`); `out` was checked.
        unsafe { copy_by_particle(&fx, core, first, end, &[2], out) };
        return Ok(());
    }
    let of = core.slot_offsets()[2];
    let src = fx.ws.wrapping_add(of + first * fx.d);
    // SAFETY: `src` lies in the workspace (slots `first..end` of the force region), whose
    // rows marked done are written by nothing until `finish`.
    unsafe { copy_to_caller(&fx.spans(state), src, (end - first) * fx.d, out, out_len) }
}

/// The checks and claims of a put (forces or moves) of slots `first..end` from `input`: a
/// valid array (`InvalidArgument` when misaligned or overlapping the state or a buffer) of
/// exactly `want` values (`LengthMismatch`), then the slots' gradients and forces claimed
/// (`RangeOverlap` if any was taken; nothing stays claimed then).
#[allow(clippy::too_many_arguments)]
fn claim_put<T, S>(
    fx: &SvgdFixed<T>,
    state: *const S,
    pr: &Progress<'_>,
    first: usize,
    end: usize,
    input: *const T,
    input_len: usize,
    want: usize,
) -> Result<(), Error> {
    check_array(input, input_len)?;
    let i = Span::of(input, input_len);
    if fx.spans(state).iter().any(|s| Span::overlaps(&i, s)) {
        return Err(Error::InvalidArgument);
    }
    if input_len != want {
        return Err(Error::LengthMismatch);
    }
    claim(pr.taken, first, end).map_err(|_| Error::RangeOverlap)?;
    if claim(pr.claim, first, end).is_err() {
        clear(pr.taken, first, end);
        return Err(Error::RangeOverlap);
    }
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_forces_put`.
unsafe fn forces_put<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
    input: *const T,
    input_len: usize,
) -> Result<(), Error> {
    check_ptr(input)?;
    // SAFETY: contract of the caller.
    let (fx, core, pending, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    claim_put(
        &fx,
        state,
        &pr,
        first,
        end,
        input,
        input_len,
        (end - first) * fx.d,
    )?;
    let [ox, og, of] = core.slot_offsets();
    // SAFETY: the slots are claimed by this call; `input` is a valid array of exactly their
    // length, disjoint from the state and its buffers.
    unsafe { core::ptr::copy_nonoverlapping(input, fx.ws.add(of + first * fx.d), input_len) };
    if core.in_place_ranges() {
        // SAFETY: the slots are claimed by this call: their rows, their permutation entries and
        // their particles' rows are its alone.
        unsafe {
            let [particles, _, _] = by_particle(&fx, core);
            let perm = core::slice::from_raw_parts_mut(fx.idx.add(first), end - first);
            core.gather_in_place(
                pending,
                particles,
                perm,
                first,
                rows_at(&fx, ox, first, end),
            );
            move_here(&fx, core, pending, &pr, first, end);
        }
    } else if core.moves_in_ranges() {
        // The moves of these slots, as a batch range computes them: positions gathered first.
        // SAFETY: the slots are claimed by this call; the particles, the history, the
        // permutation and the scale region are only read while an iteration is under way.
        let (xs, g, phi, particles, hist, perm, sc) = unsafe {
            (
                rows_at(&fx, ox, first, end),
                rows_at(&fx, og, first, end),
                rows_at(&fx, of, first, end),
                core::slice::from_raw_parts(fx.particles, fx.n_coords),
                history(&fx, core),
                core::slice::from_raw_parts(fx.idx, fx.n),
                scales(&fx, core),
            )
        };
        core.gather_rows(particles, perm, first, xs);
        let shared = Shared {
            particles,
            perm,
            hist,
            sc,
        };
        if !core.move_range(pending, shared, first, xs, g, phi) {
            pr.flags.fetch_or(1, Ordering::Relaxed);
        }
    }
    mark(pr.done, first, end);
    Ok(())
}

/// The blocks of a moved range of `m` slots, in the order the C API carries them: the new
/// positions, the new histories (AdaGrad only), the forces; each an offset of a slot-ordered
/// workspace region (`m·d` values from slot `first`).
fn move_blocks(core: &SvgdCore<KernelChoice>) -> ([usize; 3], usize) {
    let [ox, og, of] = core.slot_offsets();
    // The spent gradient rows hold the new histories, when there is a history.
    if core.history_range().1 > 0 {
        ([ox, og, of], 3)
    } else {
        ([ox, of, 0], 2)
    }
}

/// When the ranges move in place: for the slots `first..end` in order, the rows of their
/// particles in the by-particle buffers `which` (0 positions, 1 history, 2 φ), buffer by buffer,
/// into `out` (`(end − first)·d` values per buffer).
///
/// # Safety
/// The slots are done (nothing writes their particles' rows meanwhile) and `out` holds
/// `which.len()·(end − first)·d` values disjoint from the state and its buffers.
unsafe fn copy_by_particle<T: Float>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
    first: usize,
    end: usize,
    which: &[usize],
    out: *mut T,
) {
    let d = fx.d;
    let m = (end - first) * d;
    // SAFETY: the caller's contract; the permutation entries of done slots are written.
    unsafe {
        let bufs = by_particle(fx, core);
        let perm = core::slice::from_raw_parts(fx.idx.add(first), end - first);
        for (k, &b) in which.iter().enumerate() {
            let Some(buf) = bufs.get(b) else { continue };
            let dst = core::slice::from_raw_parts_mut(out.add(k * m), m);
            for (o, &i) in dst.chunks_exact_mut(d.max(1)).zip(perm) {
                copy_rows(o, buf.row_mut(i as usize));
            }
        }
    }
}

/// When the ranges move in place, the moved rows of slots `first..end` put in from elsewhere
/// (`values`: positions, histories when `history`, φ; `(end − first)·d` each): the slots'
/// particles from the permutation, their old positions and histories kept in the slots' rows
/// of the position and force regions for a rollback, the new rows written.
///
/// # Safety
/// The slots are claimed by the caller: their rows, permutation entries and particles' rows are
/// its alone.
unsafe fn put_in_place<T: Float>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
    pending: &Pending<KernelParams<T>, T>,
    first: usize,
    end: usize,
    values: &[T],
    history: bool,
) {
    let d = fx.d.max(1);
    let m = (end - first) * d;
    let [ox, _, of] = core.slot_offsets();
    // SAFETY: the caller's contract.
    unsafe {
        let [particles, hist, phi_by] = by_particle(fx, core);
        let perm = core::slice::from_raw_parts_mut(fx.idx.add(first), end - first);
        // The slots' particles, and their old positions into the position rows, as a gradient
        // range gathers them.
        core.gather_in_place(pending, particles, perm, first, rows_at(fx, ox, first, end));
        let old_h = rows_at(fx, of, first, end);
        let (x, rest) = values.split_at(m.min(values.len()));
        let (h, f) = if history {
            rest.split_at(m.min(rest.len()))
        } else {
            (&[][..], rest)
        };
        for ((&i, xv), fv) in perm.iter().zip(x.chunks_exact(d)).zip(f.chunks_exact(d)) {
            copy_rows(particles.row_mut(i as usize), xv);
            copy_rows(phi_by.row_mut(i as usize), fv);
        }
        for ((&i, oh), hv) in perm
            .iter()
            .zip(old_h.chunks_exact_mut(d))
            .zip(h.chunks_exact(d))
        {
            let ht = hist.row_mut(i as usize);
            copy_rows(oh, ht);
            copy_rows(ht, hv);
        }
    }
}

/// # Safety
/// The C contract of `sgs_svgd_moves_get`.
unsafe fn moves_get<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let (fx, core, _, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    if !core.moves_in_ranges() {
        return Err(Error::InvalidOption);
    }
    if !all(pr.done, first, end) {
        return Err(Error::IterationIncomplete);
    }
    let m = (end - first) * fx.d;
    let (offs, blocks) = move_blocks(core);
    check_output(&fx.spans(state), out, out_len, m * blocks)?;
    if core.in_place_ranges() {
        // The moved rows are by particle: position, history (AdaGrad only), φ.
        let which: &[usize] = if blocks == 3 { &[0, 1, 2] } else { &[0, 2] };
        // SAFETY: the slots are done (nothing writes their particles' rows until `finish`);
        // `out` was checked.
        unsafe { copy_by_particle(&fx, core, first, end, which, out) };
        return Ok(());
    }
    for (k, &off) in offs.iter().take(blocks).enumerate() {
        // SAFETY: the source is slots `first..end` of a slot-ordered workspace region, whose
        // rows marked done are written by nothing until `finish`; `out` was checked to be an
        // array of at least `blocks·m` values disjoint from the state and its buffers.
        unsafe { core::ptr::copy_nonoverlapping(fx.ws.add(off + first * fx.d), out.add(k * m), m) };
    }
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_moves_put`.
unsafe fn moves_put<T: Float, S>(
    tag: u64,
    state: *const S,
    first: usize,
    end: usize,
    input: *const T,
    input_len: usize,
) -> Result<(), Error> {
    check_ptr(input)?;
    // SAFETY: contract of the caller.
    let (fx, core, pending, pr) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    if !core.moves_in_ranges() {
        return Err(Error::InvalidOption);
    }
    let m = (end - first) * fx.d;
    let (offs, blocks) = move_blocks(core);
    claim_put(&fx, state, &pr, first, end, input, input_len, m * blocks)?;
    // SAFETY: `input` is a valid array of exactly `blocks·m` values, disjoint from the state
    // and its buffers.
    let values = unsafe { core::slice::from_raw_parts(input, input_len) };
    // The verdict a batch range reaches on these values (every φ, new position and new history
    // finite) is a property of the values alone: the same on every process.
    if !values.iter().all(|v| v.is_finite()) {
        pr.flags.fetch_or(1, Ordering::Relaxed);
    }
    if core.in_place_ranges() {
        // SAFETY: the slots are claimed by this call: their rows, their permutation entries and
        // their particles' rows are its alone.
        unsafe { put_in_place(&fx, core, pending, first, end, values, blocks == 3) };
        mark(pr.done, first, end);
        return Ok(());
    }
    for (k, &off) in offs.iter().take(blocks).enumerate() {
        // SAFETY: the slots are claimed by this call; the destination is their rows of a
        // slot-ordered workspace region.
        unsafe {
            core::ptr::copy_nonoverlapping(input.add(k * m), fx.ws.add(off + first * fx.d), m)
        };
    }
    mark(pr.done, first, end);
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_finish`.
unsafe fn finish<T: Float, S>(
    tag: u64,
    state: *mut S,
    info: *mut sgs_svgd_info,
) -> Result<(), Error> {
    check_opt(info)?;
    // SAFETY: contract of the caller.
    let (fx, core, _) = unsafe { phase_enter::<T, S>(tag, state)? };
    let o = Span::of(info, 1);
    if fx.spans(state).iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated.
    let pr = unsafe { progress(&fx, core) };
    if !all(pr.done, 0, fx.n) {
        return Err(Error::IterationIncomplete);
    }
    let moved = pr.flags.load(Ordering::Acquire) == 0;
    // Slots whose forces were put in have no gradients (nor, with the KSD on, positions) here.
    let local = all(pr.grad, 0, fx.n);
    let st = state.cast::<State<T>>();
    // SAFETY: every slot is done, so no range call runs; the references above are no
    // longer used; the core, the pending iteration and the buffers are this call's alone.
    let (pending, core) = unsafe {
        let pending = (*core::ptr::addr_of_mut!((*st).pending)).take();
        clear_pending(st);
        (pending, &mut *core::ptr::addr_of_mut!((*st).core))
    };
    if core.in_place_ranges() {
        let pending = pending.ok_or(Error::IterationNotBegun)?;
        if !moved {
            // SAFETY: every slot is done and no range call runs.
            unsafe { roll_back(&fx, core, None) };
            core.cancel(&pending);
            return Err(Error::NonFinite);
        }
        // SAFETY: as below.
        let ws = unsafe { workspace(fx.ws, core.workspace_needed()) };
        // The particles moved in the ranges: the statistics of φ (by particle) and the info.
        let i = core.finish_moved(&pending, ws);
        // SAFETY: checked aligned and disjoint from the state and its buffers; NULL skips.
        unsafe { put(info, info_from(&i)) };
        return Ok(());
    }
    // SAFETY: checked at init, pairwise disjoint, alive by the caller's contract.
    let (xs, ws, perm) = unsafe {
        (
            core::slice::from_raw_parts_mut(fx.particles, fx.n_coords),
            workspace(fx.ws, core.workspace_needed()),
            core::slice::from_raw_parts(fx.idx, fx.n),
        )
    };
    let pending = pending.ok_or(Error::IterationNotBegun)?;
    if !moved {
        core.cancel(&pending);
        return Err(Error::NonFinite);
    }
    let i = if local {
        core.finish(&pending, xs, ws, perm)?
    } else {
        // Some slots' forces were put in: they hold no positions or gradients here, so there is
        // no KSD to compute from them (NaN) rather than one from stale rows.
        core.finish_with(&pending, xs, ws, perm, f64::NAN)?
    };
    // SAFETY: checked aligned and disjoint from the state and its buffers; NULL skips.
    unsafe { put(info, info_from(&i)) };
    Ok(())
}

/// When the ranges move in place, puts back the old positions and histories of the slots done
/// (every slot with `None`), which their moves kept in the slots' rows of the position and
/// force regions.
///
/// # Safety
/// No range call runs; `fx`, `core` validated.
unsafe fn roll_back<T: Float>(
    fx: &SvgdFixed<T>,
    core: &SvgdCore<KernelChoice>,
    done: Option<&Progress<'_>>,
) {
    let [ox, _, of] = core.slot_offsets();
    // SAFETY: no range call runs, so every row is this call's.
    let [particles, hist, _] = unsafe { by_particle(fx, core) };
    for s in 0..fx.n {
        if done.is_some_and(|pr| !all(pr.done, s, s + 1)) {
            continue;
        }
        // SAFETY: as above; the slot's permutation entry was written by the range that moved
        // it.
        unsafe {
            let perm = core::slice::from_raw_parts(fx.idx.add(s), 1);
            let (xs, hs) = (rows_at(fx, ox, s, s + 1), rows_at(fx, of, s, s + 1));
            restore(particles, hist, xs, hs, perm, fx.d);
        }
    }
}

/// # Safety
/// The C contract of `sgs_svgd_cancel`.
unsafe fn cancel<T: Float, S>(tag: u64, state: *mut S) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let (fx, core, _) = unsafe { phase_enter::<T, S>(tag, state)? };
    // SAFETY: validated.
    let pr = unsafe { progress(&fx, core) };
    // A range under way: gradients claimed but not computed (a put has its forces claimed
    // too), or forces claimed but not done.
    let busy = (0..fx.n.div_ceil(BITS)).any(|w| {
        let get = |m: &[AtomicU32]| m.get(w).map_or(0, |m| m.load(Ordering::Acquire));
        let (taken, grad, claim, done) = (get(pr.taken), get(pr.grad), get(pr.claim), get(pr.done));
        (taken & !grad & !claim) | (claim & !done) != 0
    });
    if busy {
        return Err(Error::Busy);
    }
    if core.in_place_ranges() {
        // SAFETY: no range call runs; the slots done moved their particles.
        unsafe { roll_back(&fx, core, Some(&pr)) };
    }
    let st = state.cast::<State<T>>();
    // SAFETY: no range call runs (no slot is claimed); this call alone borrows the core and the
    // pending slot.
    unsafe {
        if let Some(p) = (*core::ptr::addr_of_mut!((*st).pending)).take() {
            (*core::ptr::addr_of_mut!((*st).core)).cancel(&p);
        }
        clear_pending(st);
    }
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_batch_rows`.
unsafe fn batch_rows<T: Float, S>(
    tag: u64,
    state: *const S,
    batch: usize,
    first: *mut usize,
    end: *mut usize,
) -> Result<(), Error> {
    check_ptr(first)?;
    check_ptr(end)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    let core = unsafe { core_ref::<T, S>(state) };
    if core.batching() != Batching::WithoutReplacement {
        return Err(Error::InvalidOption);
    }
    let (a, b) = core.batch_rows(batch).ok_or(Error::RangeOutOfBounds)?;
    if Span::overlaps(&Span::of(first, 1), &Span::of(end, 1)) {
        return Err(Error::InvalidArgument);
    }
    let spans = fx.spans(state);
    // Both outputs checked before either is written, so that an error writes nothing (`first`
    // was written before `end` was refused; the fuzz target found it).
    let outs = [Span::of(first, 1), Span::of(end, 1)];
    if outs
        .iter()
        .any(|o| spans.iter().any(|s| Span::overlaps(o, s)))
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned and disjoint from the state and its buffers.
    unsafe {
        write_out(first, &spans, a)?;
        write_out(end, &spans, b)
    }
}

macro_rules! phases_api {
    (
        float = $T:ty, state = $S:ident, tag = $tag:expr, begin = $begin:ident,
        gradients_range = $gr:ident, batches_range = $br:ident, forces_get = $fg:ident,
        forces_put = $fp:ident, moves_get = $mg:ident, moves_put = $mp:ident,
        move_width = $mw:ident, finish = $finish:ident, cancel = $cancel:ident,
        num_batches = $nb:ident, batch_rows = $rows:ident,
    ) => {
        /// Begins an iteration in phases (without replacement only): draws the minibatch seed
        /// and the permutation of the particles into slots, prepares the kernel. Then, for
        /// disjoint ranges in any order and on any threads, `…_gradients_range` (gradients of
        /// slots) and `…_batches_range` (forces of batches), then `…_finish` moves the
        /// particles: the result is bit for bit that of `…_step`. `…_cancel` abandons the
        /// iteration (nothing changed). Must not run concurrently with any other call on the
        /// state.
        ///
        /// With `SGS_PERMUTATION_FEISTEL` (and the KSD and the scale option off; on hosts, not
        /// on bare metal, where the copies stay in `…_finish` for flash) the work that is serial
        /// otherwise moves into the ranges: this call draws the permutation's key
        /// alone (the index buffer is then written by the ranges, each its own slots' entries),
        /// reads no particle unless the bandwidth depends on them (the gradient ranges check
        /// their own particles' positions), every range moves its own particles in place, and
        /// `…_finish` copies nothing. The workspace is then `N·d` values longer
        /// (`…_workspace_len`).
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_IN_PROGRESS`
        /// (begun already), `SGS_ERR_INVALID_OPTION` (a system with replacement: its sub-steps
        /// are sequential), `SGS_ERR_INVALID_POSITION` (a particle made non-finite),
        /// `SGS_ERR_NON_FINITE` (a data-dependent bandwidth). On error the state, the particles
        /// and the generator are unchanged; after `SGS_ERR_NON_FINITE` the index buffer and the
        /// workspace's scratch hold the permutation drawn and the bandwidth's work (as after a
        /// failed step).
        ///
        /// # Safety
        /// `state` must be a valid state whose buffers are alive.
        #[no_mangle]
        pub unsafe extern "C" fn $begin(state: *mut $S) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { begin::<$T, $S>($tag, state) })
        }

        /// The gradients of permutation slots `first .. end−1` of the iteration begun: their
        /// positions are gathered in slot order and the gradient callback is called on them
        /// (the batched callback once, with `end − first` points). Safe to call concurrently
        /// with the other range calls for disjoint ranges (the callback then runs on several
        /// threads at once with the same `user_data`): it writes only those slots' rows. With
        /// the Feistel permutation it first writes those slots' entries of the index buffer
        /// (their particles), and reads no particle but theirs.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_NOT_BEGUN`,
        /// `SGS_ERR_INVALID_RANGE` (`first > end`), `SGS_ERR_RANGE_OUT_OF_BOUNDS` (`end > N`),
        /// `SGS_ERR_RANGE_OVERLAP` (a slot already taken in this iteration),
        /// `SGS_ERR_CALLBACK_ABORTED`, `SGS_ERR_GRADIENT_REJECTED`, `SGS_ERR_NON_FINITE`, and
        /// with the Feistel permutation `SGS_ERR_INVALID_POSITION` (one of the range's
        /// particles made non-finite: `…_begin` leaves that check to the ranges then). After
        /// a callback error the range may be called again or the iteration cancelled; the
        /// particles, history and generator are unchanged until `…_finish` (with the Feistel
        /// permutation, until a batch range moves them; `…_cancel` puts them back).
        ///
        /// # Safety
        /// `state` valid, its buffers and callbacks alive; no `begin`, `finish`, `cancel`,
        /// `copy` or `clear` on it during the call.
        #[no_mangle]
        pub unsafe extern "C" fn $gr(state: *const $S, first: usize, end: usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { gradients_range::<$T, $S>($tag, state, first, end) })
        }

        /// The forces of batches `first .. end−1` of the iteration begun (batch b is slots
        /// `…_batch_rows(b)`), from their slots' positions and gradients, which must have been
        /// computed; then (unless the KSD is on) their particles' new positions and histories
        /// by the step rule, kept in the workspace until `…_finish` copies them into the
        /// particles if every one is finite (so the move's arithmetic runs in the ranges, on all
        /// threads). Safe to call concurrently with the other range calls for disjoint ranges:
        /// it writes only those batches' rows. With the Feistel permutation it moves those
        /// particles in place instead (their positions, histories and φ by particle), keeping
        /// their old positions and histories in the slots' rows, from which `…_finish` (on a
        /// non-finite value anywhere) and `…_cancel` put them back.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_NOT_BEGUN`,
        /// `SGS_ERR_INVALID_RANGE`, `SGS_ERR_RANGE_OUT_OF_BOUNDS` (`end` > the number of
        /// batches), `SGS_ERR_GRADIENTS_NOT_READY` (a slot's gradient not computed yet),
        /// `SGS_ERR_RANGE_OVERLAP` (a batch already taken in this iteration).
        ///
        /// # Safety
        /// As for the gradients range.
        #[no_mangle]
        pub unsafe extern "C" fn $br(state: *const $S, first: usize, end: usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { batches_range::<$T, $S>($tag, state, first, end) })
        }

        /// Copies the forces of slots `first .. end−1` (computed by batch ranges) into `out`
        /// (capacity `out_len` ≥ `(end − first)·d`), in slot order: what a process sends to the
        /// others (the MPI example). Safe to call concurrently with the other range calls.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ITERATION_NOT_BEGUN`, `SGS_ERR_INVALID_RANGE`, `SGS_ERR_RANGE_OUT_OF_BOUNDS`,
        /// `SGS_ERR_ITERATION_INCOMPLETE` (a slot's force not computed yet),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, or overlapping the state or a buffer),
        /// `SGS_ERR_OUTPUT_TOO_SMALL`.
        ///
        /// # Safety
        /// As for the gradients range; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $fg(
            state: *const $S,
            first: usize,
            end: usize,
            out: *mut $T,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { forces_get::<$T, $S>($tag, state, first, end, out, out_len) })
        }

        /// Supplies the forces of slots `first .. end−1` (`forces`: exactly `(end − first)·d`
        /// values in slot order) computed elsewhere, e.g. by another MPI rank with the same
        /// seed: the slots must be untouched in this iteration. Like a batch range it then
        /// computes those slots' moves (unless the KSD is on). Safe to call concurrently with
        /// the other range calls for disjoint ranges. Non-finite forces make `…_finish` fail
        /// with `SGS_ERR_NON_FINITE`. With the KSD on, the info of an iteration with forces put
        /// in reports `ksd_squared` NaN: the KSD needs every slot's position and gradient on
        /// this process.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ITERATION_NOT_BEGUN`, `SGS_ERR_INVALID_RANGE`, `SGS_ERR_RANGE_OUT_OF_BOUNDS`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, or overlapping the state or a buffer),
        /// `SGS_ERR_LENGTH_MISMATCH`, `SGS_ERR_RANGE_OVERLAP` (a slot already taken).
        ///
        /// # Safety
        /// As for the gradients range; `forces` valid for `forces_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $fp(
            state: *const $S,
            first: usize,
            end: usize,
            forces: *const $T,
            forces_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { forces_put::<$T, $S>($tag, state, first, end, forces, forces_len) })
        }

        /// Copies the moves of slots `first .. end−1` (computed by batch ranges, or put in)
        /// into `out` (capacity `out_len` ≥ `(end − first)·w`, `w` from `…_move_width`), in
        /// blocks of `(end − first)·d` values in slot order: their particles' new positions,
        /// their new AdaGrad histories (AdaGrad only), their forces. What an MPI rank sends to
        /// the others so that they need not compute these moves again (`…_moves_put`). Safe to
        /// call concurrently with the other range calls.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ITERATION_NOT_BEGUN`, `SGS_ERR_INVALID_RANGE`, `SGS_ERR_RANGE_OUT_OF_BOUNDS`,
        /// `SGS_ERR_INVALID_OPTION` (the KSD is on: the moves are made in `…_finish`, share
        /// forces instead), `SGS_ERR_ITERATION_INCOMPLETE` (a slot not computed yet),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, or overlapping the state or a buffer),
        /// `SGS_ERR_OUTPUT_TOO_SMALL`.
        ///
        /// # Safety
        /// As for the gradients range; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $mg(
            state: *const $S,
            first: usize,
            end: usize,
            out: *mut $T,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { moves_get::<$T, $S>($tag, state, first, end, out, out_len) })
        }

        /// Supplies the moves of slots `first .. end−1` (`moves`: exactly `(end − first)·w`
        /// values laid out as `…_moves_get` writes them) computed elsewhere, e.g. by another
        /// MPI rank with the same seed: the slots must be untouched in this iteration. A copy
        /// and a finiteness check, no arithmetic: cheaper than `…_forces_put`, which computes
        /// the moves again, at `w/d` times the values sent. Safe to call concurrently with the
        /// other range calls for disjoint ranges. A non-finite value makes `…_finish` fail with
        /// `SGS_ERR_NON_FINITE`, as it would have on the process that computed it.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ITERATION_NOT_BEGUN`, `SGS_ERR_INVALID_RANGE`, `SGS_ERR_RANGE_OUT_OF_BOUNDS`,
        /// `SGS_ERR_INVALID_OPTION` (the KSD is on), `SGS_ERR_INVALID_ARGUMENT` (misaligned, or
        /// overlapping the state or a buffer), `SGS_ERR_LENGTH_MISMATCH`,
        /// `SGS_ERR_RANGE_OVERLAP` (a slot already taken).
        ///
        /// # Safety
        /// As for the gradients range; `moves` valid for `moves_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $mp(
            state: *const $S,
            first: usize,
            end: usize,
            moves: *const $T,
            moves_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { moves_put::<$T, $S>($tag, state, first, end, moves, moves_len) })
        }

        /// Writes `w`, the values per slot that `…_moves_get` and `…_moves_put` carry, to
        /// `*width`: `3·d` with AdaGrad (position, history, force), `2·d` without. Statuses as
        /// for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `width` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $mw(state: *const $S, width: *mut usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                get::<$T, $S, usize>($tag, state, width, |c| c.d * move_blocks(c).1)
            })
        }

        /// Ends the iteration begun: checks that every slot's force was computed or supplied and
        /// that every new value the ranges computed is finite, then moves all particles (all or
        /// nothing: it copies the new positions and histories in), like the end of `…_step`.
        /// (With the Feistel permutation the ranges moved them already: on a non-finite value
        /// this puts every one back; otherwise it copies nothing and only sums the statistics
        /// of φ for the record.) Writes the iteration's record to `*info` unless NULL. Must not
        /// run concurrently with any other call on the state.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_NOT_BEGUN`,
        /// `SGS_ERR_INVALID_ARGUMENT` (`info` misaligned or inside the state or a buffer),
        /// `SGS_ERR_ITERATION_INCOMPLETE` (the iteration stays open: complete or cancel it), or
        /// `SGS_ERR_NON_FINITE` (nothing moved, the generator restored, the iteration ended).
        ///
        /// # Safety
        /// `state` valid, its buffers alive.
        #[no_mangle]
        pub unsafe extern "C" fn $finish(state: *mut $S, info: *mut sgs_svgd_info) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { finish::<$T, $S>($tag, state, info) })
        }

        /// Abandons the iteration begun: the generator is restored, and since nothing else
        /// changes before `…_finish`, the system is exactly as before `…_begin` (the next
        /// iteration draws the same). (With the Feistel permutation the particles that ranges
        /// moved in place are put back first.) The workspace and index are scratch: they keep what the
        /// begun iteration wrote there (e.g. its permutation), which the next iteration
        /// overwrites. Must not run concurrently with any other call on the
        /// state.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_NOT_BEGUN`, or
        /// `SGS_ERR_BUSY` (a range call is under way, e.g. cancel called from a callback).
        ///
        /// # Safety
        /// `state` valid, its buffers alive.
        #[no_mangle]
        pub unsafe extern "C" fn $cancel(state: *mut $S) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { cancel::<$T, $S>($tag, state) })
        }

        /// Writes the number of batches, ⌊N/p⌋, to `*batches`. Statuses as for the iterations
        /// getter.
        ///
        /// # Safety
        /// `state` valid; `batches` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $nb(state: *const $S, batches: *mut usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, usize>($tag, state, batches, |c| c.batches()) })
        }

        /// Writes the permutation slots of batch `batch` to `*first` and `*end` (slots
        /// `first .. end−1`: `batch·p …`, the last batch also the `N mod p` left over).
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, overlapping each other, the state or a
        /// buffer), `SGS_ERR_INVALID_OPTION` (a system with replacement),
        /// `SGS_ERR_RANGE_OUT_OF_BOUNDS` (no such batch).
        ///
        /// # Safety
        /// `state` valid; `first` and `end` valid for writes.
        #[no_mangle]
        pub unsafe extern "C" fn $rows(
            state: *const $S,
            batch: usize,
            first: *mut usize,
            end: *mut usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { batch_rows::<$T, $S>($tag, state, batch, first, end) })
        }
    };
}

phases_api! {
    float = f64, state = sgs_svgd, tag = TAG_F64, begin = sgs_svgd_begin,
    gradients_range = sgs_svgd_gradients_range, batches_range = sgs_svgd_batches_range,
    forces_get = sgs_svgd_forces_get, forces_put = sgs_svgd_forces_put,
    moves_get = sgs_svgd_moves_get, moves_put = sgs_svgd_moves_put,
    move_width = sgs_svgd_move_width, finish = sgs_svgd_finish, cancel = sgs_svgd_cancel, num_batches = sgs_svgd_num_batches,
    batch_rows = sgs_svgd_batch_rows,
}

phases_api! {
    float = f32, state = sgs_svgd_f32, tag = TAG_F32, begin = sgs_svgd_begin_f32,
    gradients_range = sgs_svgd_gradients_range_f32,
    batches_range = sgs_svgd_batches_range_f32, forces_get = sgs_svgd_forces_get_f32,
    forces_put = sgs_svgd_forces_put_f32, moves_get = sgs_svgd_moves_get_f32,
    moves_put = sgs_svgd_moves_put_f32, move_width = sgs_svgd_move_width_f32, finish = sgs_svgd_finish_f32,
    cancel = sgs_svgd_cancel_f32, num_batches = sgs_svgd_num_batches_f32,
    batch_rows = sgs_svgd_batch_rows_f32,
}
