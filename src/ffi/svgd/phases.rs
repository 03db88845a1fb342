//! An SVGD iteration in phases through the C ABI: `sgs_svgd_begin`, `…_gradients_range`,
//! `…_batches_range`, `…_forces_get`/`…_forces_put` (for processes that share forces),
//! `…_finish`, `…_cancel`, and the range queries.
//!
//! # Concurrency
//!
//! The range calls (gradients, batches, forces in and out) may run at the same time on any
//! number of threads for disjoint ranges. They never write the state struct: they read its
//! fixed part (validation, checksum) and the core, both written only by `init`, `begin`,
//! `finish`, `cancel`, `copy` and `clear`, which the caller must not run concurrently with them.
//! They write only their own slots' rows of the workspace. Their bookkeeping is one atomic
//! progress word per permutation slot, after the core's layout in the workspace:
//!
//! `FREE → GRAD_BUSY → GRAD_DONE → FORCE_BUSY → FORCE_DONE` (and `FREE → FORCE_BUSY` for forces
//! put in from elsewhere)
//!
//! A range claims each of its slots with a compare-and-swap from the state it needs (acquire)
//! and publishes the result with a release store; a claim that finds another state undoes its
//! own claims and reports the overlap (or the missing gradients). So overlapping or repeated
//! ranges are refused even when they race, and a batch range reads gradients that a release
//! store has published. The busy flag, which `step` sets in the state, is not used here:
//! concurrent range calls would see each other's flag.

use super::*;
use crate::svgd::Batching;
use core::sync::atomic::{AtomicU32, Ordering};

const FREE: u32 = 0;
const GRAD_BUSY: u32 = 1;
const GRAD_DONE: u32 = 2;
const FORCE_BUSY: u32 = 3;
const FORCE_DONE: u32 = 4;

/// The progress words of a validated state: N `AtomicU32` after the core's layout.
///
/// # Safety
/// `fx` and `core` from a state validated by `enter` (its workspace holds `c_need` elements).
unsafe fn flags<'a, T>(fx: &SvgdFixed<T>, core: &SvgdCore<KernelChoice>) -> &'a [AtomicU32] {
    let p = fx
        .ws
        .wrapping_add(core.workspace_needed())
        .cast::<AtomicU32>();
    // SAFETY: the workspace holds `flag_elems(n)` elements after the core's layout (checked by
    // `enter`), i.e. at least 4·N bytes, aligned to 4 (T is 4 or 8 bytes and aligned); they are
    // only ever accessed as atomics.
    unsafe { core::slice::from_raw_parts(p, core.n) }
}

/// Claims slots `a..b` by moving each from `from` to `to`; on the first slot in another state,
/// undoes the claims made and returns that state.
fn claim(flags: &[AtomicU32], a: usize, b: usize, from: u32, to: u32) -> Result<(), u32> {
    for r in a..b {
        let found = match flags.get(r) {
            Some(f) => match f.compare_exchange(from, to, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => continue,
                Err(found) => found,
            },
            None => u32::MAX,
        };
        set(flags, a, r, from);
        return Err(found);
    }
    Ok(())
}

/// Stores `v` into the progress words of slots `a..b` (release: publishes the rows written).
fn set(flags: &[AtomicU32], a: usize, b: usize, v: u32) {
    for f in flags.get(a..b).unwrap_or(&[]) {
        f.store(v, Ordering::Release);
    }
}

/// `true` when every slot of `a..b` is in state `v` (acquire).
fn all(flags: &[AtomicU32], a: usize, b: usize, v: u32) -> bool {
    flags
        .get(a..b)
        .is_some_and(|f| f.iter().all(|f| f.load(Ordering::Acquire) == v))
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
            (*core::ptr::addr_of!((*state.cast::<State<T>>()).pending)).as_ref(),
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
        &'a [AtomicU32],
    ),
    Error,
> {
    // SAFETY: contract of the caller.
    let (fx, core, pending) = unsafe { phase_enter::<T, S>(tag, state)? };
    check_range(first, end, limit(core))?;
    // SAFETY: validated.
    let fl = unsafe { flags(&fx, core) };
    Ok((fx, core, pending, fl))
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
    let pending = core.begin_phases(xs, ws, idx)?;
    // SAFETY: validated; no range call runs yet.
    let fl = unsafe { flags(&fx, core) };
    set(fl, 0, fx.n, FREE);
    // SAFETY: validated; the only reference to the pending slot.
    unsafe { *core::ptr::addr_of_mut!((*st).pending) = Some(pending) };
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
    let (fx, core, pending, fl) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    claim(fl, first, end, FREE, GRAD_BUSY).map_err(|_| Error::RangeOverlap)?;
    let [ox, og, _] = core.slot_offsets();
    // SAFETY: the slots `first..end` are claimed by this call; the particles and the
    // permutation are only read while an iteration is under way.
    let (xs, g, particles, perm) = unsafe {
        (
            rows_at(&fx, ox, first, end),
            rows_at(&fx, og, first, end),
            core::slice::from_raw_parts(fx.particles, fx.n_coords),
            core::slice::from_raw_parts(fx.idx, fx.n),
        )
    };
    let mut model = SvgdModel {
        gradient: fx.gradient,
        gradients: fx.gradients,
        user_data: fx.user_data,
    };
    match core.gradient_rows(pending, particles, perm, first, xs, g, &mut model) {
        Ok(()) => {
            set(fl, first, end, GRAD_DONE);
            Ok(())
        }
        Err(e) => {
            // The range may be retried (same seed, same positions) or the iteration cancelled.
            set(fl, first, end, FREE);
            Err(e)
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
    let (fx, core, pending, fl) = unsafe { range_enter::<T, S>(tag, state, first, end, batches)? };
    let (a, b) = (core.batch_start(first), core.batch_start(end));
    claim(fl, a, b, GRAD_DONE, FORCE_BUSY).map_err(|found| match found {
        FREE | GRAD_BUSY => Error::GradientsNotReady,
        _ => Error::RangeOverlap,
    })?;
    let [ox, og, of] = core.slot_offsets();
    // SAFETY: the slots `a..b` are claimed by this call.
    let (xs, g, phi) = unsafe {
        (
            rows_at(&fx, ox, a, b),
            rows_at(&fx, og, a, b),
            rows_at(&fx, of, a, b),
        )
    };
    core.batch_forces(pending, first, end, xs, g, phi);
    set(fl, a, b, FORCE_DONE);
    Ok(())
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
    let (fx, core, _, fl) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    if !all(fl, first, end, FORCE_DONE) {
        return Err(Error::IterationIncomplete);
    }
    let of = core.slot_offsets()[2];
    let src = fx.ws.wrapping_add(of + first * fx.d);
    // SAFETY: `src` lies in the workspace (slots `first..end` of the force region), whose
    // rows in FORCE_DONE are written by nothing until `finish`.
    unsafe { copy_to_caller(&fx.spans(state), src, (end - first) * fx.d, out, out_len) }
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
    let (fx, core, _, fl) = unsafe { range_enter::<T, S>(tag, state, first, end, slots)? };
    check_array(input, input_len)?;
    let i = Span::of(input, input_len);
    if fx.spans(state).iter().any(|s| Span::overlaps(&i, s)) {
        return Err(Error::InvalidArgument);
    }
    if input_len != (end - first) * fx.d {
        return Err(Error::LengthMismatch);
    }
    claim(fl, first, end, FREE, FORCE_BUSY).map_err(|_| Error::RangeOverlap)?;
    let of = core.slot_offsets()[2];
    // SAFETY: the slots are claimed by this call; `input` is a valid array of exactly their
    // length, disjoint from the state and its buffers.
    unsafe { core::ptr::copy_nonoverlapping(input, fx.ws.add(of + first * fx.d), input_len) };
    set(fl, first, end, FORCE_DONE);
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
    if !all(unsafe { flags(&fx, core) }, 0, fx.n, FORCE_DONE) {
        return Err(Error::IterationIncomplete);
    }
    let st = state.cast::<State<T>>();
    // SAFETY: every slot is FORCE_DONE, so no range call runs; the references above are no
    // longer used; the core, the pending iteration and the buffers are this call's alone.
    let (pending, core) = unsafe {
        let pending = (*core::ptr::addr_of_mut!((*st).pending)).take();
        clear_pending(st);
        (pending, &mut *core::ptr::addr_of_mut!((*st).core))
    };
    // SAFETY: checked at init, pairwise disjoint, alive by the caller's contract.
    let (xs, ws, perm) = unsafe {
        (
            core::slice::from_raw_parts_mut(fx.particles, fx.n_coords),
            workspace(fx.ws, core.workspace_needed()),
            core::slice::from_raw_parts(fx.idx, fx.n),
        )
    };
    let pending = pending.ok_or(Error::IterationNotBegun)?;
    let i = core.finish(&pending, xs, ws, perm)?;
    // SAFETY: checked aligned and disjoint from the state and its buffers; NULL skips.
    unsafe { put(info, info_from(&i)) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_cancel`.
unsafe fn cancel<T: Float, S>(tag: u64, state: *mut S) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let (fx, core, _) = unsafe { phase_enter::<T, S>(tag, state)? };
    // SAFETY: validated.
    let fl = unsafe { flags(&fx, core) };
    if fl.iter().any(|f| {
        let v = f.load(Ordering::Acquire);
        v == GRAD_BUSY || v == FORCE_BUSY
    }) {
        return Err(Error::Busy);
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
    // SAFETY: checked non-null and aligned; `write_out` checks them against the state.
    unsafe {
        write_out(first, &spans, a)?;
        write_out(end, &spans, b)
    }
}

macro_rules! phases_api {
    (
        float = $T:ty, state = $S:ident, tag = $tag:expr, begin = $begin:ident,
        gradients_range = $gr:ident, batches_range = $br:ident, forces_get = $fg:ident,
        forces_put = $fp:ident, finish = $finish:ident, cancel = $cancel:ident,
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
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_IN_PROGRESS`
        /// (begun already), `SGS_ERR_INVALID_OPTION` (a system with replacement: its sub-steps
        /// are sequential), `SGS_ERR_INVALID_POSITION` (a particle made non-finite),
        /// `SGS_ERR_NON_FINITE` (a data-dependent bandwidth). On error nothing changed.
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
        /// threads at once with the same `user_data`): it writes only those slots' rows.
        ///
        /// Returns `SGS_OK`, the state's validation statuses, `SGS_ERR_ITERATION_NOT_BEGUN`,
        /// `SGS_ERR_INVALID_RANGE` (`first > end`), `SGS_ERR_RANGE_OUT_OF_BOUNDS` (`end > N`),
        /// `SGS_ERR_RANGE_OVERLAP` (a slot already taken in this iteration),
        /// `SGS_ERR_CALLBACK_ABORTED`, `SGS_ERR_GRADIENT_REJECTED`, `SGS_ERR_NON_FINITE`. After
        /// a callback error the range may be called again or the iteration cancelled; the
        /// particles, history and generator are unchanged until `…_finish`.
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
        /// computed. Safe to call concurrently with the other range calls for disjoint ranges:
        /// it reads and writes only those batches' rows.
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
        /// seed: the slots must be untouched in this iteration. Safe to call concurrently with
        /// the other range calls for disjoint ranges. Non-finite forces make `…_finish` fail
        /// with `SGS_ERR_NON_FINITE`.
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

        /// Ends the iteration begun: checks that every slot's force was computed or supplied,
        /// then checks every new value and moves all particles (all or nothing), like the end
        /// of `…_step`. Writes the iteration's record to `*info` unless NULL. Must not run
        /// concurrently with any other call on the state.
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
        /// iteration draws the same). Must not run concurrently with any other call on the
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
    finish = sgs_svgd_finish, cancel = sgs_svgd_cancel, num_batches = sgs_svgd_num_batches,
    batch_rows = sgs_svgd_batch_rows,
}

phases_api! {
    float = f32, state = sgs_svgd_f32, tag = TAG_F32, begin = sgs_svgd_begin_f32,
    gradients_range = sgs_svgd_gradients_range_f32,
    batches_range = sgs_svgd_batches_range_f32, forces_get = sgs_svgd_forces_get_f32,
    forces_put = sgs_svgd_forces_put_f32, finish = sgs_svgd_finish_f32,
    cancel = sgs_svgd_cancel_f32, num_batches = sgs_svgd_num_batches_f32,
    batch_rows = sgs_svgd_batch_rows_f32,
}
