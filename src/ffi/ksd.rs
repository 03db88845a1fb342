//! The kernelized Stein discrepancy and the growing batch size through the C ABI:
//! `sgs_ksd_…` on caller buffers, `sgs_svgd_set_batch_size…` and `sgs_svgd_run_scheduled…`
//! (docs/algorithms.md §2.5, §2.6).

use super::chain::CSummary;
use super::common::*;
use super::sgs_status;
use super::svgd::{
    core_ref, enter, get, info_from, refuse_in_phases, sgs_svgd, sgs_svgd_f32,
    sgs_svgd_run_summary, step_state, State, SvgdFixed, TAG_F32, TAG_F64,
};
use crate::error::Error;
use crate::float::Float;
use crate::rng::Rng;
use crate::run::run_iterations;
use crate::svgd::{ksd_batch, ksd_full, BatchSchedule, BatchScheduler, SteinImq};

/// `sgs_svgd_schedule.kind`: `p = min(N, start·2^⌊k/every⌋)` at the call's k-th iteration.
pub const SGS_SCHEDULE_DOUBLING: u32 = 0;
/// `sgs_svgd_schedule.kind`: double p (up to N) after every window of `every` iterations whose
/// mean `ksd_squared` did not fall by at least the fraction `min_decrease` from the previous
/// window's; needs `sgs_svgd_config.ksd` on. Exactly: at the end of window w ≥ 2, p doubles
/// unless `mean_w < (1 − min_decrease)·mean_{w−1}` (a NaN mean counts as not falling;
/// negative means, which the batch estimate can give, go through the same formula); the first
/// window never raises p, nor does the window after one whose mean was NaN.
pub const SGS_SCHEDULE_KSD: u32 = 1;

/// A growing batch size for `sgs_svgd_run_scheduled` (plain data; start from
/// `sgs_svgd_schedule_default`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_svgd_schedule {
    /// The first batch size, 2 ≤ start ≤ N.
    pub start: u64,
    /// `SGS_SCHEDULE_DOUBLING`: iterations between doublings; `SGS_SCHEDULE_KSD`: iterations
    /// per window. ≥ 1.
    pub every: u64,
    /// `SGS_SCHEDULE_KSD`: the relative fall per window below which p doubles, in [0, 1).
    /// Ignored (and not validated) by `SGS_SCHEDULE_DOUBLING`.
    pub min_decrease: f64,
    /// One of the `SGS_SCHEDULE_…` values.
    pub kind: u32,
    /// Must be 0 (padding made explicit).
    pub reserved: u32,
}

/// A doubling schedule from `start`, doubling every `every` iterations (`min_decrease` 0.1 for
/// when `kind` is switched to `SGS_SCHEDULE_KSD`). Nothing is validated here.
#[no_mangle]
pub extern "C" fn sgs_svgd_schedule_default(start: u64, every: u64) -> sgs_svgd_schedule {
    sgs_svgd_schedule {
        start,
        every,
        min_decrease: 0.1,
        kind: SGS_SCHEDULE_DOUBLING,
        reserved: 0,
    }
}

fn schedule_from(s: &sgs_svgd_schedule, n: usize) -> Result<BatchScheduler, Error> {
    if s.reserved != 0 {
        return Err(Error::InvalidOption);
    }
    let start = usize::try_from(s.start).map_err(|_| Error::InvalidBatchSize)?;
    let schedule = match s.kind {
        SGS_SCHEDULE_DOUBLING => BatchSchedule::Doubling {
            start,
            every: s.every,
        },
        SGS_SCHEDULE_KSD => BatchSchedule::KsdDriven {
            start,
            window: s.every,
            min_decrease: s.min_decrease,
        },
        _ => return Err(Error::InvalidOption),
    };
    BatchScheduler::new(schedule, n)
}

/// # Safety
/// The C contract of `sgs_svgd_set_batch_size`.
unsafe fn set_batch_size<T: Float, S>(tag: u64, state: *mut S, p: u64) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    let _fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // p is part of an iteration's shape: its ranges, its batches and its interaction count.
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let p = usize::try_from(p).map_err(|_| Error::InvalidBatchSize)?;
    // SAFETY: validated (tagged, not busy): no other reference to the core is live.
    unsafe { (*state.cast::<State<T>>()).core.set_batch_size(p) }
}

/// # Safety
/// The C contract of `sgs_svgd_run_scheduled`.
unsafe fn run_scheduled<T: Float, S>(
    tag: u64,
    state: *mut S,
    iterations: u64,
    schedule: *const sgs_svgd_schedule,
    summary: *mut sgs_svgd_run_summary,
) -> Result<(), Error> {
    check_ptr(schedule)?;
    check_opt(summary)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let o = Span::of(summary, 1);
    if fx.spans(state).iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; read by value.
    let core = unsafe { core_ref::<T, S>(state) };
    // SAFETY: checked non-null and aligned; every bit pattern is a valid schedule.
    let mut sched = schedule_from(unsafe { &schedule.read() }, core.n)?;
    sched.check(core.n, core.config())?;
    let (result, totals) = match run_iterations(iterations, || {
        // SAFETY: validated; no reference to the core is live between iterations.
        unsafe {
            (*state.cast::<State<T>>())
                .core
                .set_batch_size(sched.batch_size())?
        };
        // SAFETY: validated; the buffers recorded at init.
        let info = unsafe { step_state(state, &fx)? };
        sched.observe(&info);
        Ok(info)
    }) {
        Ok(t) => (Ok(()), t),
        Err(e) => (Err(e.error), e.partial),
    };
    // SAFETY: checked aligned and disjoint from every buffer; NULL skips.
    unsafe { put(summary, sgs_svgd_run_summary::from_run(&totals, info_from)) };
    result
}

/// The checked slices of `sgs_ksd_full` / `sgs_ksd_batch`.
///
/// # Safety
/// `x`, `grad` valid for `n·d` elements when non-null and aligned.
unsafe fn inputs<'a, T>(
    x: *const T,
    grad: *const T,
    n: usize,
    d: usize,
    out: *mut f64,
) -> Result<(&'a [T], &'a [T]), Error> {
    check_ptr(x)?;
    check_ptr(grad)?;
    check_ptr(out)?;
    let len = rows_len(n, d)?;
    check_array(x, len)?;
    check_array(grad, len)?;
    if overlap(out, 1, x, len) || overlap(out, 1, grad, len) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned, in range; the caller's contract.
    unsafe {
        Ok((
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts(grad, len),
        ))
    }
}

/// # Safety
/// The C contract of `sgs_ksd_full`.
unsafe fn full<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    grad: *const T,
    c: f64,
    beta: f64,
    out: *mut f64,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    let (xs, gs) = unsafe { inputs(x, grad, n, d, out)? };
    let v = ksd_full(xs, gs, d, &SteinImq { c, beta })?;
    // SAFETY: checked non-null, aligned, disjoint from the inputs.
    unsafe { put(out, v) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_ksd_batch`.
#[allow(clippy::too_many_arguments)]
unsafe fn batch<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    grad: *const T,
    p: usize,
    c: f64,
    beta: f64,
    seed: u64,
    stream: u64,
    index: *mut u32,
    index_len: usize,
    out: *mut f64,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    let (xs, gs) = unsafe { inputs(x, grad, n, d, out)? };
    check_array(index, index_len)?;
    let len = n * d;
    if overlap(index, index_len, x, len)
        || overlap(index, index_len, grad, len)
        || overlap(index, index_len, out, 1)
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned, in range, disjoint from the inputs.
    let idx = unsafe { core::slice::from_raw_parts_mut(index, index_len) };
    let mut rng = Rng::new(seed, stream);
    let v = ksd_batch(xs, gs, d, p, &SteinImq { c, beta }, &mut rng, idx)?;
    // SAFETY: checked non-null, aligned, disjoint from the inputs.
    unsafe { put(out, v) };
    Ok(())
}

macro_rules! ksd_api {
    (
        float = $T:ty, ctype = $ctype:literal, state = $S:ident, tag = $tag:expr,
        full = $full:ident, batch = $batch:ident, set_batch_size = $set:ident,
        batch_size = $get:ident, run_scheduled = $run:ident,
    ) => {
        #[doc = concat!(" The full V-statistic KSD² of `n` particles `x` (`", $ctype, "`, `n·d`")]
        /// values row by row) whose gradients `grad = ∇V(x)` (same layout, the gradient
        /// callbacks' convention) the caller has computed: `(1/N²)·Σ_i Σ_j u(x_i, x_j)` with the
        /// IMQ base kernel `(c² + r²)^β`, O(N²·d) time, no memory (docs/algorithms.md §2.5).
        /// Writes it to `*ksd_squared`; the KSD is its square root. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, n·d overflowing,
        /// `ksd_squared` overlapping an input), `SGS_ERR_ZERO_DIMENSION`,
        /// `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_KERNEL` (c not finite and positive, or
        /// β ∉ (−1, 0)). Non-finite inputs give a non-finite value. Nothing written on error.
        ///
        /// # Safety
        /// `x` and `grad` valid for `n·d` reads, `ksd_squared` for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $full(
            x: *const $T,
            n: usize,
            d: usize,
            grad: *const $T,
            c: f64,
            beta: f64,
            ksd_squared: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { full(x, n, d, grad, c, beta, ksd_squared) })
        }

        /// The unbiased random-batch estimate of KSD² in O(p·N·d): a random permutation of
        /// `0..n` (forward Fisher–Yates on the identity by the generator of `(seed, stream)`,
        /// N − 1 bounded integers, as an SVGD iteration draws it) is written to `index`
        /// (`index_len` ≥ n) and cut into ⌊N/p⌋ batches of p, the last taking the left-overs;
        /// the Stein kernel is summed over the pairs within each batch and rescaled so that the
        /// mean over permutations equals `…ksd_full`'s value (docs/algorithms.md §2.5). May be
        /// negative. Statuses as for `…ksd_full`, plus `SGS_ERR_INVALID_BATCH_SIZE` (p < 2 or
        /// p > n), `SGS_ERR_WORKSPACE_TOO_SMALL` (`index_len` < n), `SGS_ERR_INVALID_ARGUMENT`
        /// (`index` overlapping another buffer, N ≥ 2³²).
        ///
        /// # Safety
        /// As for `…ksd_full`; `index` valid for `index_len` writes.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $batch(
            x: *const $T,
            n: usize,
            d: usize,
            grad: *const $T,
            p: usize,
            c: f64,
            beta: f64,
            seed: u64,
            stream: u64,
            index: *mut u32,
            index_len: usize,
            ksd_squared: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                batch(
                    x,
                    n,
                    d,
                    grad,
                    p,
                    c,
                    beta,
                    seed,
                    stream,
                    index,
                    index_len,
                    ksd_squared,
                )
            })
        }

        /// Writes the batch size p the next iteration uses to `*p`: the configured one, the
        /// last `…set_batch_size`, or after `…run_scheduled` the schedule's last choice (so a
        /// scheduled run can be continued, or reported, with the size it reached). Returns
        /// `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or inside
        /// the state or one of its buffers) or the state's validation statuses.
        ///
        /// # Safety
        /// `state` valid; `p` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $get(state: *const $S, p: *mut u64) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                get::<$T, $S, u64>($tag, state, p, |c| c.config().batch_size as u64)
            })
        }

        /// Sets the batch size p of the next iterations (a growing batch size). Without
        /// replacement only, whose workspace and draws do not depend on p. Returns `SGS_OK`,
        /// the state's validation statuses (`SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`,
        /// `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`, `SGS_ERR_STATE_MOVED`),
        /// `SGS_ERR_ITERATION_IN_PROGRESS` (an iteration in phases is under way: p shapes its
        /// ranges), `SGS_ERR_INVALID_OPTION` (with replacement) or `SGS_ERR_INVALID_BATCH_SIZE`
        /// (p < 2 or p > N); nothing changes on error.
        ///
        /// # Safety
        /// `state` must be a valid state.
        #[no_mangle]
        pub unsafe extern "C" fn $set(state: *mut $S, p: u64) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { set_batch_size::<$T, $S>($tag, state, p) })
        }

        /// Runs `iterations` iterations whose batch size `*schedule` chooses (set before each
        /// iteration, so p is the schedule's last choice afterwards; the schedule's own state,
        /// e.g. the KSD windows, starts afresh with every call). The schedule draws nothing and
        /// iterations without replacement draw the same numbers whatever p. `*summary` as for
        /// `…run`. Statuses as for `…run`, plus, before anything runs, `SGS_ERR_NULL_POINTER`
        /// (`schedule`), `SGS_ERR_INVALID_OPTION` (unknown kind, `reserved` ≠ 0, with
        /// replacement, or `SGS_SCHEDULE_KSD` with the KSD off), `SGS_ERR_INVALID_BATCH_SIZE`
        /// (start outside 2..N), `SGS_ERR_INVALID_ARGUMENT` (`every` 0, or for
        /// `SGS_SCHEDULE_KSD` `min_decrease` outside [0, 1)). After such a refusal `*summary`
        /// is not written and nothing has changed; once iterations run, `*summary` is written
        /// whatever the outcome, and a failing iteration leaves the particles as after the last
        /// completed one with p already set to that iteration's choice.
        ///
        /// # Safety
        /// As for `…run`; `schedule` readable.
        #[no_mangle]
        pub unsafe extern "C" fn $run(
            state: *mut $S,
            iterations: u64,
            schedule: *const sgs_svgd_schedule,
            summary: *mut sgs_svgd_run_summary,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                run_scheduled::<$T, $S>($tag, state, iterations, schedule, summary)
            })
        }
    };
}

ksd_api! {
    float = f64, ctype = "double", state = sgs_svgd, tag = TAG_F64,
    full = sgs_ksd_full, batch = sgs_ksd_batch, set_batch_size = sgs_svgd_set_batch_size,
    batch_size = sgs_svgd_batch_size, run_scheduled = sgs_svgd_run_scheduled,
}

ksd_api! {
    float = f32, ctype = "float", state = sgs_svgd_f32, tag = TAG_F32,
    full = sgs_ksd_full_f32, batch = sgs_ksd_batch_f32,
    set_batch_size = sgs_svgd_set_batch_size_f32, batch_size = sgs_svgd_batch_size_f32,
    run_scheduled = sgs_svgd_run_scheduled_f32,
}
