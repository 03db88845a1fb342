//! K chains advanced in lockstep through batched callbacks (`sgs_…_run_batch`), so that an
//! interpreter (Python, MATLAB, Julia) computes the K chains' gradients in one vectorised call.
//!
//! The chain cores call their model one point at a time, from deep inside a step. A step reaches
//! the batch's callbacks one of two ways:
//!
//! - **Cut** (AMAGOLD's trajectories, warm-up windows included: [`Suspend`]). The step runs to
//!   its first callback and hands back its request; its position (inner step, ρ, where its
//!   draws have brought the generator, what it waits for; [`Suspended`]) is kept in the chain's
//!   cache with a check word, its vectors in the workspace, and the chain's own generator stays
//!   where the step began until the step is done. Answered, it goes on to its next request. The
//!   pieces it runs are the functions the uncut step runs, in the same order: the same bits.
//! - **Replay** (every other step: SGHMC, SGLD, the warm-up's approach, curvature and metric
//!   steps; and any step when the cache is too small to hold a cut). A core's `step` is
//!   all-or-nothing (`ChainStep::step`: on `Err` the chain is exactly as before, its generator
//!   included), so a step can be *replayed*. Each chain gets a [`Replay`] model whose j-th call
//!   returns the cached answer j; its first unanswered call records its request (kind, seed,
//!   point) in the cache and returns ABORT, which rolls the step back. The replayed step makes
//!   the same calls with the same points and seeds (the step is deterministic given the chain's
//!   state and the answers); the cache checks that bit for bit.
//!
//! Once every unfinished chain has a request (one *round*), the engine answers the gradient
//! requests with one batched gradient call and the energy requests with one batched energy call.
//! A step that completes writes its row.
//!
//! A replayed step that needs more calls than the cache holds (`max_calls`; warm-up steps such
//! as the L-BFGS approach or the curvature step make d + 1 or more) answers the calls beyond the
//! cache by calling the batch callback with k = 1 directly, in the same replay: the same values,
//! one call per point.
//!
//! Memory: all of it is the caller's `scratch` ([`scratch_len`] words: per chain 2 + 2d words
//! for the batch's rows, 4 for its seed, chain index, status and energy, 2 of bookkeeping and
//! `max_calls` cache entries of 2 + 2d words; a cut needs [`Suspended::WORDS`] of the cache).
//! Cost: a cut step of m calls is resumed m times, O(m) arithmetic like the uncut step plus the
//! bookkeeping; a replayed step of m calls is run m + 1 times, its prefix recomputed each round:
//! O(m²) core arithmetic per step, next to m callbacks.

use super::chain::{core_mut, enter, spans_of, workspace_of, CChain, CFloat, CSummary};
use super::common::*;
use crate::chain::ChainStep;
use crate::error::{Error, Stop};
use crate::model::{Gradient, Potential};
use crate::run::{RunSummary, StepInfo};
use crate::suspend::{Answer, Ask, Suspend, Suspended};
use core::ffi::c_void;
use core::mem::{align_of, size_of};

/// Batched stochastic-gradient callback of `sgs_…_run_batch` (`double` coordinates).
///
/// `x` holds `k` points of `d` values, row by row (k ≤ the K chains of the run); row r belongs
/// to chain `chains[r]` (an index 0..K−1 into the run's `states`) and its minibatch is chosen by
/// `minibatch_seeds[r]`. Write the gradients into `grad` (k·d values, same layout; it holds NaN
/// on entry, so a row left unwritten is a divergence). `row_status` has k entries, pre-filled
/// with `SGS_CB_OK`: set a row to `SGS_CB_REJECT` when its point is outside the domain (that
/// chain's proposal is rejected). Return `SGS_CB_OK`, or `SGS_CB_ABORT` (any value but OK; also
/// a row status other than OK and REJECT) to stop the run. The value of a row must depend only
/// on that row's point and seed: that is what makes a batch run equal to K separate runs.
pub type sgs_batch_gradient_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        x: *const f64,
        k: usize,
        d: usize,
        minibatch_seeds: *const u64,
        chains: *const usize,
        grad: *mut f64,
        row_status: *mut i32,
    ) -> i32,
>;
/// Batched stochastic-gradient callback (`float` coordinates; see `sgs_batch_gradient_fn`).
pub type sgs_batch_gradient_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        x: *const f32,
        k: usize,
        d: usize,
        minibatch_seeds: *const u64,
        chains: *const usize,
        grad: *mut f32,
        row_status: *mut i32,
    ) -> i32,
>;
/// Batched energy callback of `sgs_…_run_batch` (`double` coordinates): the full-data energies
/// U of the `k` points `theta` (k·d values, row by row; row r is chain `chains[r]`) into `u`
/// (k values, NaN on entry; a non-finite energy is a divergence). `row_status` and the return
/// value as for `sgs_batch_gradient_fn`.
pub type sgs_batch_energy_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f64,
        k: usize,
        d: usize,
        chains: *const usize,
        u: *mut f64,
        row_status: *mut i32,
    ) -> i32,
>;
/// Batched energy callback (`float` coordinates, `double` energies; see `sgs_batch_energy_fn`).
pub type sgs_batch_energy_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        theta: *const f32,
        k: usize,
        d: usize,
        chains: *const usize,
        u: *mut f64,
        row_status: *mut i32,
    ) -> i32,
>;

/// The batched gradient callback for coordinate type `T`.
pub(crate) type RawBatchGradient<T> = unsafe extern "C" fn(
    *mut c_void,
    *const T,
    usize,
    usize,
    *const u64,
    *const usize,
    *mut T,
    *mut i32,
) -> i32;
/// The batched energy callback for coordinate type `T`.
pub(crate) type RawBatchEnergy<T> = unsafe extern "C" fn(
    *mut c_void,
    *const T,
    usize,
    usize,
    *const usize,
    *mut f64,
    *mut i32,
) -> i32;

/// Kind of a cached request (low byte of an entry's first word; the row status is the high
/// half once answered).
const GRADIENT: u64 = 1;
const ENERGY: u64 = 2;

/// A chain's state in the current iteration (its record's second word): still stepping, its
/// step stopped at a request recorded at entry `count`, or its row written.
const RUNNING: u64 = 0;
const PENDING: u64 = 1;
const DONE: u64 = 2;
/// The chain's step is cut at a callback ([`Suspend`]): its position is the first
/// [`Suspended::WORDS`] words of its cache, its request the point it names in its workspace.
const SUSPENDED: u64 = 3;
// A suspended step's "waiting" word is the kind of its request.
const _: () = assert!(Suspended::GRADIENT as u64 == GRADIENT && Suspended::ENERGY as u64 == ENERGY);

/// Words per chain outside the cache: the batch's x and gradient rows (2d), its seed, chain
/// index, status and energy (4), the cache's answer count and the chain's state in the iteration (2).
const fn fixed_words(d: usize) -> Option<usize> {
    match d.checked_mul(2) {
        Some(x) => x.checked_add(6),
        None => None,
    }
}

/// Words of one cache entry: kind and status, seed, the point (d), the answer (d; an energy uses
/// the first).
const fn entry_words(d: usize) -> Option<usize> {
    match d.checked_mul(2) {
        Some(x) => x.checked_add(2),
        None => None,
    }
}

/// Scratch words (`double`s) a batch run of `k` chains of dimension `d` with a cache of
/// `max_calls` calls per step needs: k·(6 + 2d + max_calls·(2 + 2d)); `None` when it overflows.
pub(crate) fn scratch_len(k: usize, d: usize, max_calls: usize) -> Option<usize> {
    let cache = max_calls.checked_mul(entry_words(d)?)?;
    k.checked_mul(fixed_words(d)?.checked_add(cache)?)
}

/// The batch callbacks and the chain a direct (k = 1) call is for.
#[derive(Clone, Copy)]
struct Direct<T> {
    energy: Option<RawBatchEnergy<T>>,
    gradient: RawBatchGradient<T>,
    user_data: *mut c_void,
    chain: usize,
}

/// The model a chain's step sees during a batch run: answers from the cache, records the first
/// unanswered request (and stops the step), or beyond the cache calls the batch callback for
/// this one chain.
pub(crate) struct Replay<'a, T> {
    /// `max_calls` entries of `stride` words.
    entries: &'a mut [u64],
    stride: usize,
    d: usize,
    /// Entries answered.
    count: usize,
    /// Calls made by this replay so far.
    pos: usize,
    /// The step stopped to have its request at `count` answered.
    pending: bool,
    /// A replayed call differed from the cached one (kind, seed or point bits).
    mismatch: bool,
    /// A direct call aborted (a real ABORT, not a replay stop).
    aborted: bool,
    direct: Direct<T>,
}

impl<T: CFloat> Replay<'_, T> {
    /// The next call of the step: `Ok(Some(at))` when entry `at` (a word offset) holds its
    /// answer, `Ok(None)` when it is beyond the cache (to be called directly), `Err(Abort)` when
    /// it was recorded (or differs from the cached call).
    fn turn(&mut self, kind: u64, seed: u64, x: &[T]) -> Result<Option<usize>, Stop> {
        let i = self.pos;
        self.pos = i.wrapping_add(1);
        let at = i.wrapping_mul(self.stride);
        let d = self.d;
        let Some(e) = self.entries.get_mut(at..at.wrapping_add(self.stride)) else {
            return Ok(None);
        };
        let Some(([meta, s], rest)) = e.split_first_chunk_mut::<2>() else {
            return Ok(None);
        };
        let point = rest.get_mut(..d).unwrap_or(&mut []);
        if i < self.count {
            let same = *meta & 0xff == kind
                && *s == seed
                && point.len() == x.len()
                && point.iter().zip(x).all(|(w, v)| *w == v.to_word());
            if !same {
                self.mismatch = true;
                return Err(Stop::Abort);
            }
            return Ok(Some(at));
        }
        *meta = kind;
        *s = seed;
        for (w, v) in point.iter_mut().zip(x) {
            *w = v.to_word();
        }
        self.pending = true;
        Err(Stop::Abort)
    }

    /// The status of the entry at `at`.
    fn status(&self, at: usize) -> i32 {
        self.entries
            .get(at)
            .map_or(SGS_CB_ABORT, |&m| (m >> 32) as u32 as i32)
    }

    /// The answer words of the entry at `at`.
    fn answer(&self, at: usize) -> &[u64] {
        let start = at.wrapping_add(2).wrapping_add(self.d);
        self.entries
            .get(start..start.wrapping_add(self.d))
            .unwrap_or(&[])
    }

    /// A direct call's outcome: the whole-batch return value `r` and the row's status `st`.
    fn direct_outcome(&mut self, r: i32, st: i32) -> Result<(), Stop> {
        if r != SGS_CB_OK || (st != SGS_CB_OK && st != SGS_CB_REJECT) {
            self.aborted = true;
            return Err(Stop::Abort);
        }
        stop_of(st)
    }
}

impl<T: CFloat> Gradient<T> for Replay<'_, T> {
    fn gradient(&mut self, x: &[T], seed: u64, grad: &mut [T]) -> Result<(), Stop> {
        if let Some(at) = self.turn(GRADIENT, seed, x)? {
            for (g, &w) in grad.iter_mut().zip(self.answer(at)) {
                *g = T::from_word(w);
            }
            return stop_of(self.status(at));
        }
        for g in grad.iter_mut() {
            *g = T::from_f64(f64::NAN);
        }
        let mut st = SGS_CB_OK;
        let Direct {
            gradient,
            user_data,
            chain,
            ..
        } = self.direct;
        // SAFETY: one row: `x` and `grad` are live slices of d values, the seed, chain index and
        // status live locals; the callback's contract is to read and write exactly these.
        let r = unsafe {
            gradient(
                user_data,
                x.as_ptr(),
                1,
                x.len(),
                &seed,
                &chain,
                grad.as_mut_ptr(),
                &mut st,
            )
        };
        self.direct_outcome(r, st)
    }
}

impl<T: CFloat> Potential<T> for Replay<'_, T> {
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop> {
        if let Some(at) = self.turn(ENERGY, 0, theta)? {
            stop_of(self.status(at))?;
            return Ok(self
                .answer(at)
                .first()
                .map_or(f64::NAN, |&w| f64::from_bits(w)));
        }
        let Direct {
            energy,
            user_data,
            chain,
            ..
        } = self.direct;
        let Some(energy) = energy else {
            self.aborted = true;
            return Err(Stop::Abort);
        };
        let (mut u, mut st) = (f64::NAN, SGS_CB_OK);
        // SAFETY: as for the gradient: one row of live values.
        let r = unsafe {
            energy(
                user_data,
                theta.as_ptr(),
                1,
                theta.len(),
                &chain,
                &mut u,
                &mut st,
            )
        };
        self.direct_outcome(r, st)?;
        Ok(u)
    }
}

/// Plain data of at most a word that any bit pattern is a valid value of: what the scratch's
/// words may be viewed as.
pub(crate) trait Plain: Copy {}
impl Plain for u64 {}
impl Plain for usize {}
impl Plain for i32 {}
impl Plain for f64 {}
impl Plain for f32 {}

/// The first `n` values of type `U` in the words `w` (`n` ≤ `w.len()`, checked).
fn view<U: Plain>(w: &mut [u64], n: usize) -> &mut [U] {
    const { assert!(size_of::<U>() <= size_of::<u64>() && align_of::<U>() <= align_of::<u64>()) };
    let n = n.min(w.len());
    // SAFETY: `U` is at most a word in size and alignment, so n values fit in the first n words
    // and are aligned; every bit pattern is a valid `U` (`Plain`); the borrow of `w` covers them.
    unsafe { core::slice::from_raw_parts_mut(w.as_mut_ptr().cast::<U>(), n) }
}

/// Sets the busy flag of `k` validated states for the guard's lifetime (as `BusyGuard` does for
/// one).
struct BusyAll<S> {
    states: *mut S,
    k: usize,
}

impl<S> BusyAll<S> {
    /// # Safety
    /// `states` an array of `k` validated, writable states.
    unsafe fn new(states: *mut S, k: usize) -> Self {
        for c in 0..k {
            let h = states.wrapping_add(c).cast::<Header>();
            // SAFETY: contract of the caller.
            unsafe { core::ptr::addr_of_mut!((*h).busy).write(1) };
        }
        BusyAll { states, k }
    }
}

impl<S> Drop for BusyAll<S> {
    fn drop(&mut self) {
        for c in 0..self.k {
            let h = self.states.wrapping_add(c).cast::<Header>();
            // SAFETY: `new`'s states, still valid: the guard lives within the call.
            unsafe { core::ptr::addr_of_mut!((*h).busy).write(0) };
        }
    }
}

/// Record `c` of `per` words in `cache`: its two bookkeeping words (answers, state) and its
/// cache entries.
fn record(cache: &mut [u64], per: usize, c: usize) -> Option<(&mut [u64; 2], &mut [u64])> {
    let at = c.checked_mul(per)?;
    let rec = cache.get_mut(at..at.checked_add(per)?)?;
    rec.split_first_chunk_mut::<2>()
}

/// The batch engine's view of the scratch.
struct Scratch<'a, T> {
    rows: Rows<'a, T>,
    /// K records of `per` words: answer count, state, then the cache entries.
    cache: &'a mut [u64],
    per: usize,
}

/// The rows of a batched call.
struct Rows<'a, T> {
    seeds: &'a mut [u64],
    chains: &'a mut [usize],
    status: &'a mut [i32],
    u: &'a mut [f64],
    x: &'a mut [T],
    g: &'a mut [T],
}

impl<'a, T: CFloat + Plain> Scratch<'a, T> {
    /// Splits `words` (at least [`scratch_len`] long) for `k` chains.
    fn split(words: &'a mut [u64], k: usize, d: usize, per: usize) -> Option<Self> {
        let kd = k.checked_mul(d)?;
        let (seeds, rest) = words.split_at_mut_checked(k)?;
        let (chains, rest) = rest.split_at_mut_checked(k)?;
        let (status, rest) = rest.split_at_mut_checked(k)?;
        let (u, rest) = rest.split_at_mut_checked(k)?;
        let (x, rest) = rest.split_at_mut_checked(kd)?;
        let (g, cache) = rest.split_at_mut_checked(kd)?;
        Some(Scratch {
            rows: Rows {
                seeds,
                chains: view(chains, k),
                status: view(status, k),
                u: view(u, k),
                x: view(x, kd),
                g: view(g, kd),
            },
            cache,
            per,
        })
    }

    /// Chain `c`'s record: its two bookkeeping words (answers, state) and its cache entries.
    fn record(&mut self, c: usize) -> Option<(&mut [u64; 2], &mut [u64])> {
        record(self.cache, self.per, c)
    }

    /// Answers the requests of `kind` with one batched call: gathers them (chains in index
    /// order; a replayed step's from its cache, a suspended step's from its workspace), calls,
    /// checks the statuses, appends each replayed step's answer to its cache and resumes each
    /// suspended step with its own (to its next request, or its end: then `done`).
    ///
    /// # Safety
    /// `states` the run's `k` validated, busy-flagged states.
    unsafe fn answer<C: Suspend<T>, S>(
        &mut self,
        kind: u64,
        d: usize,
        k: usize,
        direct: Direct<T>,
        states: *mut S,
        done: &mut impl FnMut(usize, &C::Info, &[T]),
    ) -> Result<(), Error> {
        let stride = entry_words(d).ok_or(Error::InvalidArgument)?;
        let mut rows = 0usize;
        for c in 0..k {
            let Some(([count, state], entries)) = record(self.cache, self.per, c) else {
                return Err(Error::StateCorrupted);
            };
            if *state == SUSPENDED {
                // What it waits for and the seed, read without the check word: the step is
                // resumed only after its words pass the check (in the scatter below), so a
                // corrupted word here stops the run there.
                let (Some(&waiting), Some(&seed)) = (
                    entries.get(Suspended::WAITING_AT),
                    entries.get(Suspended::SEED_AT),
                ) else {
                    return Err(Error::StateCorrupted);
                };
                if waiting != kind {
                    continue;
                }
                let p = states.wrapping_add(c);
                // SAFETY: validated, busy-flagged by this run; nothing else borrows them now.
                let (core, ws) = unsafe { (core_mut::<T, C, S>(p), workspace_of::<T, S>(p)) };
                let point = Suspend::<T>::pending_point(core, ws)
                    .iter()
                    .map(|v| v.to_word());
                if !self.rows.gather(rows, seed, c, point, d)? {
                    return Err(Error::StateCorrupted);
                }
                rows += 1;
                continue;
            }
            let at = (*count as usize).wrapping_mul(stride);
            let Some(e) = entries.get(at..at.wrapping_add(stride)) else {
                continue;
            };
            if *state != PENDING || e.first().map(|m| m & 0xff) != Some(kind) {
                continue;
            }
            let seed = e.get(1).copied().unwrap_or(0);
            let point = e.get(2..2 + d).unwrap_or(&[]);
            if !self.rows.gather(rows, seed, c, point.iter().copied(), d)? {
                return Err(Error::StateCorrupted);
            }
            rows += 1;
        }
        if rows == 0 {
            return Ok(());
        }
        let r = if kind == GRADIENT {
            // SAFETY: `rows` rows of d values in `x` and `g`, `rows` seeds, chain indices and
            // statuses, all in the caller's scratch (disjoint from every other buffer).
            unsafe {
                (direct.gradient)(
                    direct.user_data,
                    self.rows.x.as_ptr(),
                    rows,
                    d,
                    self.rows.seeds.as_ptr(),
                    self.rows.chains.as_ptr(),
                    self.rows.g.as_mut_ptr(),
                    self.rows.status.as_mut_ptr(),
                )
            }
        } else {
            let energy = direct.energy.ok_or(Error::CallbackAborted)?;
            // SAFETY: as above, with `rows` energies in `u`.
            unsafe {
                energy(
                    direct.user_data,
                    self.rows.x.as_ptr(),
                    rows,
                    d,
                    self.rows.chains.as_ptr(),
                    self.rows.u.as_mut_ptr(),
                    self.rows.status.as_mut_ptr(),
                )
            }
        };
        let statuses = self.rows.status.get(..rows).unwrap_or(&[]);
        if r != SGS_CB_OK
            || statuses
                .iter()
                .any(|&s| s != SGS_CB_OK && s != SGS_CB_REJECT)
        {
            return Err(Error::CallbackAborted);
        }
        // Scatter in the same order (the chain indices handed out are not read back: the
        // callback might have written to them).
        let mut row = 0usize;
        for c in 0..k {
            let Some(([count, state], entries)) = record(self.cache, self.per, c) else {
                return Err(Error::StateCorrupted);
            };
            if *state == SUSPENDED {
                if entries.get(Suspended::WAITING_AT) != Some(&kind) {
                    continue;
                }
                let mut s = suspended_of(entries)?;
                let st = stop_of(self.rows.status.get(row).copied().unwrap_or(SGS_CB_ABORT));
                let r0 = row.wrapping_mul(d);
                let ans = if kind == GRADIENT {
                    Answer::Gradient(st, self.rows.g.get(r0..r0.wrapping_add(d)).unwrap_or(&[]))
                } else {
                    let u = self.rows.u.get(row).copied().unwrap_or(f64::NAN);
                    Answer::Energy(st.map(|()| u))
                };
                row += 1;
                let p = states.wrapping_add(c);
                // SAFETY: as in the gathering.
                let (core, ws) = unsafe { (core_mut::<T, C, S>(p), workspace_of::<T, S>(p)) };
                match core.resume(ws, &mut s, ans)? {
                    Ask::Done(info) => {
                        done(c, &info, ws.get(..d).unwrap_or(&[]));
                        *state = DONE;
                    }
                    _ => put_suspended(entries, &s)?,
                }
                continue;
            }
            let at = (*count as usize).wrapping_mul(stride);
            let Some(e) = entries.get_mut(at..at.wrapping_add(stride)) else {
                continue;
            };
            if *state != PENDING || e.first().map(|m| m & 0xff) != Some(kind) {
                continue;
            }
            let st = self.rows.status.get(row).copied().unwrap_or(SGS_CB_ABORT);
            if let Some(m) = e.first_mut() {
                *m = kind | (u64::from(st as u32) << 32);
            }
            let ans = e.get_mut(2 + d..).unwrap_or(&mut []);
            if kind == GRADIENT {
                let r0 = row.wrapping_mul(d);
                let g = self.rows.g.get(r0..r0.wrapping_add(d)).unwrap_or(&[]);
                for (w, &gi) in ans.iter_mut().zip(g) {
                    *w = gi.to_word();
                }
            } else if let (Some(w), Some(&u)) = (ans.first_mut(), self.rows.u.get(row)) {
                *w = u.to_bits();
            }
            *count += 1;
            *state = RUNNING;
            row += 1;
        }
        Ok(())
    }
}

impl<T: CFloat + Plain> Rows<'_, T> {
    /// Puts a request in the batch's row `row`: its point (as words), seed and chain, the
    /// gradient row NaN, the status OK, the energy NaN. `false` when the row is not there.
    fn gather(
        &mut self,
        row: usize,
        seed: u64,
        chain: usize,
        point: impl Iterator<Item = u64>,
        d: usize,
    ) -> Result<bool, Error> {
        let r0 = row.wrapping_mul(d);
        let (Some(x), Some(g)) = (
            self.x.get_mut(r0..r0.wrapping_add(d)),
            self.g.get_mut(r0..r0.wrapping_add(d)),
        ) else {
            return Ok(false);
        };
        for (xi, w) in x.iter_mut().zip(point) {
            *xi = T::from_word(w);
        }
        for gi in g.iter_mut() {
            *gi = T::from_f64(f64::NAN);
        }
        let (Some(s), Some(ch), Some(st), Some(u)) = (
            self.seeds.get_mut(row),
            self.chains.get_mut(row),
            self.status.get_mut(row),
            self.u.get_mut(row),
        ) else {
            return Ok(false);
        };
        *s = seed;
        *ch = chain;
        *st = SGS_CB_OK;
        *u = f64::NAN;
        Ok(true)
    }
}

/// A suspended step's position, from the first words of its chain's cache.
fn suspended_of(entries: &[u64]) -> Result<Suspended, Error> {
    let w = entries
        .first_chunk::<{ Suspended::WORDS }>()
        .ok_or(Error::StateCorrupted)?;
    Suspended::from_words(w).ok_or(Error::StateCorrupted)
}

/// Stores a suspended step's position in its chain's cache.
fn put_suspended(entries: &mut [u64], s: &Suspended) -> Result<(), Error> {
    let w = entries
        .first_chunk_mut::<{ Suspended::WORDS }>()
        .ok_or(Error::StateCorrupted)?;
    *w = s.to_words();
    Ok(())
}

/// Entry `c` of an optional output array: NULL stays NULL (an offset from NULL would not be).
fn nth<V>(p: *mut V, c: usize) -> *mut V {
    if p.is_null() {
        p
    } else {
        p.wrapping_add(c)
    }
}

/// `sgs_…_run_batch`: checks every argument before anything is written, then runs `n`
/// iterations of the `k` chains in lockstep (see the module docs).
///
/// # Safety
/// The C contract of `run_batch`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn run_batch<T, C, S>(
    states: *mut S,
    k: usize,
    n: usize,
    energy: Option<RawBatchEnergy<T>>,
    gradient: Option<RawBatchGradient<T>>,
    user_data: *mut c_void,
    scratch: *mut f64,
    scratch_len_given: usize,
    max_calls: usize,
    out: *mut T,
    out_len: usize,
    samples_done: *mut usize,
    summaries: *mut C::CSummary,
    infos: *mut C::CInfo,
) -> Result<(), Error>
where
    T: CFloat + Plain,
    C: CChain + Suspend<T> + for<'a> ChainStep<T, Replay<'a, T>>,
{
    let Some(gradient) = gradient else {
        return Err(Error::NullPointer);
    };
    if C::NEEDS_ENERGY && energy.is_none() {
        return Err(Error::NullPointer);
    }
    let energy = if C::NEEDS_ENERGY { energy } else { None };
    check_ptr(states)?;
    check_ptr(scratch)?;
    if n > 0 {
        check_ptr(out)?;
    }
    check_opt(samples_done)?;
    check_opt(summaries)?;
    check_opt(infos)?;
    if k == 0 {
        return Err(Error::InvalidArgument);
    }
    // Chain c's info record of iteration i goes to infos[c·n + i].
    let kn = k.checked_mul(n).ok_or(Error::InvalidArgument)?;
    if !infos.is_null() && kn > 0 {
        check_array(infos, kn)?;
    }
    check_array(states, k)?;
    if !samples_done.is_null() {
        check_array(samples_done, k)?;
    }
    if !summaries.is_null() {
        check_array(summaries, k)?;
    }
    check_array(scratch, scratch_len_given)?;
    let out_len = if n > 0 {
        check_array(out, out_len)?;
        out_len
    } else {
        0
    };
    let mut d = 0;
    for c in 0..k {
        // SAFETY: `states` is an array of k states (contract), checked above.
        let (_, dc) = unsafe { enter::<T, C, S>(states.wrapping_add(c), false)? };
        if c == 0 {
            d = dc;
        } else if dc != d {
            return Err(Error::LengthMismatch);
        }
    }
    let fixed = [
        Span::of(states, k),
        Span::of(scratch, scratch_len_given),
        Span::of(out, out_len),
        Span::of(samples_done, k),
        Span::of(summaries, k),
        Span::of(infos, kn),
    ];
    if any_overlap(&fixed) {
        return Err(Error::InvalidArgument);
    }
    // Every workspace apart from the fixed buffers and from each other (O(k²), next to the
    // sampling negligible; two chains on one workspace would overwrite each other).
    for c in 0..k {
        let p = states.wrapping_add(c);
        // SAFETY: validated above.
        let (fx, _) = unsafe { enter::<T, C, S>(p, false)? };
        let ws = spans_of(p, &fx)[1];
        if fixed.iter().any(|s| Span::overlaps(s, &ws)) {
            return Err(Error::InvalidArgument);
        }
        for e in 0..c {
            let q = states.wrapping_add(e);
            // SAFETY: validated above.
            let (fq, _) = unsafe { enter::<T, C, S>(q, false)? };
            if Span::overlaps(&spans_of(q, &fq)[1], &ws) {
                return Err(Error::InvalidArgument);
            }
        }
    }
    let need = k
        .checked_mul(n)
        .and_then(|kn| kn.checked_mul(d))
        .ok_or(Error::InvalidArgument)?;
    if out_len < need {
        return Err(Error::OutputTooSmall);
    }
    let words = scratch_len(k, d, max_calls).ok_or(Error::WorkspaceTooSmall)?;
    if scratch_len_given < words {
        return Err(Error::WorkspaceTooSmall);
    }
    let per = max_calls
        .checked_mul(entry_words(d).ok_or(Error::InvalidArgument)?)
        .and_then(|x| x.checked_add(2))
        .ok_or(Error::WorkspaceTooSmall)?;
    let zero = C::CSummary::from_run(&RunSummary::<C::Info>::EMPTY, C::info_to_c);
    for c in 0..k {
        // SAFETY: checked arrays of k entries (or NULL), disjoint from everything else.
        unsafe {
            put(nth(samples_done, c), 0);
            put(nth(summaries, c), zero);
        }
    }
    if n == 0 {
        return Ok(());
    }
    // SAFETY: validated states; the guard clears the flags on every return.
    let _busy = unsafe { BusyAll::new(states, k) };
    // SAFETY: checked: `words` ≤ `scratch_len_given` doubles (a double is a word), disjoint from
    // the states, workspaces and outputs.
    let words = unsafe { core::slice::from_raw_parts_mut(scratch.cast::<u64>(), words) };
    let mut sc = Scratch::<T>::split(words, k, d, per).ok_or(Error::WorkspaceTooSmall)?;
    // SAFETY: checked: `need` elements, disjoint from every other buffer.
    let out = unsafe { core::slice::from_raw_parts_mut(out, need) };
    let direct = Direct {
        energy,
        gradient,
        user_data,
        chain: 0,
    };
    let stride = entry_words(d).ok_or(Error::InvalidArgument)?;
    // A step is cut at its callbacks when its sampler can (AMAGOLD's trajectories) and the
    // chain's cache holds the cut's position; otherwise it is replayed.
    let cut = per >= 2 + Suspended::WORDS;
    for i in 0..n {
        let mut done = |c: usize, info: &C::Info, theta: &[T]| {
            let at = c.wrapping_mul(n).wrapping_add(i).wrapping_mul(d);
            if let Some(row) = out.get_mut(at..at.wrapping_add(d)) {
                // Zipped, not `copy_from_slice`: no length-mismatch panic path in the C library.
                for (o, &v) in row.iter_mut().zip(theta) {
                    *o = v;
                }
            }
            let s = nth(summaries, c);
            if !s.is_null() {
                // SAFETY: checked array of k summaries, disjoint from the rest.
                unsafe {
                    let mut v = s.read();
                    v.record(info.outcome(), C::info_to_c(info));
                    s.write(v);
                }
            }
            // SAFETY: as above.
            unsafe { put(nth(samples_done, c), i + 1) };
            // SAFETY: a checked array of k·n records (or NULL), disjoint from the rest; c < k
            // and i < n.
            unsafe {
                put(
                    nth(infos, c.wrapping_mul(n).wrapping_add(i)),
                    C::info_to_c(info),
                )
            };
        };
        // SAFETY: the validated, busy-flagged states of this run.
        let r =
            unsafe { iteration::<T, C, S>(&mut sc, states, k, d, stride, cut, direct, &mut done) };
        // A suspended step leaves its chain as it was before the step (`Suspended`): on an
        // error the chains are where their last rows left them, as with replayed steps.
        r?;
    }
    Ok(())
}

/// One iteration of the `k` chains: rounds of steps (replayed, or begun and cut) and batched
/// answers until every chain's step is done (`done` writes its row).
///
/// # Safety
/// `states` the run's `k` validated, busy-flagged states.
#[allow(clippy::too_many_arguments)]
unsafe fn iteration<T, C, S>(
    sc: &mut Scratch<'_, T>,
    states: *mut S,
    k: usize,
    d: usize,
    stride: usize,
    cut: bool,
    direct: Direct<T>,
    done: &mut impl FnMut(usize, &C::Info, &[T]),
) -> Result<(), Error>
where
    T: CFloat + Plain,
    C: CChain + Suspend<T> + for<'a> ChainStep<T, Replay<'a, T>>,
{
    for c in 0..k {
        if let Some((hdr, _)) = sc.record(c) {
            *hdr = [0, RUNNING];
        }
    }
    loop {
        let mut waiting = 0usize;
        for c in 0..k {
            let Some(([count, state], entries)) = sc.record(c) else {
                return Err(Error::StateCorrupted);
            };
            if *state == DONE {
                continue;
            }
            if *state == SUSPENDED {
                waiting += 1;
                continue;
            }
            let p = states.wrapping_add(c);
            // SAFETY: validated, busy-flagged by this call; the workspace is the state's.
            let (core, ws) = unsafe { (core_mut::<T, C, S>(p), workspace_of::<T, S>(p)) };
            if cut && *state == RUNNING && *count == 0 && Suspend::<T>::can_suspend(core) {
                let (s, ask) = core.begin(ws)?;
                match ask {
                    Ask::Done(info) => {
                        done(c, &info, ws.get(..d).unwrap_or(&[]));
                        *state = DONE;
                    }
                    _ => {
                        put_suspended(entries, &s)?;
                        *state = SUSPENDED;
                        waiting += 1;
                    }
                }
                continue;
            }
            let mut model = Replay {
                entries,
                stride,
                d,
                count: *count as usize,
                pos: 0,
                pending: false,
                mismatch: false,
                aborted: false,
                direct: Direct { chain: c, ..direct },
            };
            match core.step(ws, &mut model) {
                Ok(info) => {
                    // Every cached answer must have been asked for again.
                    if model.pending || model.mismatch || model.pos < model.count {
                        return Err(Error::StateCorrupted);
                    }
                    done(c, &info, ws.get(..d).unwrap_or(&[]));
                    *state = DONE;
                }
                Err(Error::CallbackAborted)
                    if model.pending && !model.mismatch && !model.aborted =>
                {
                    *state = PENDING;
                    waiting += 1;
                }
                Err(_) if model.mismatch => return Err(Error::StateCorrupted),
                Err(e) => return Err(e),
            }
        }
        if waiting == 0 {
            return Ok(());
        }
        // SAFETY: forwarded.
        unsafe {
            sc.answer::<C, S>(GRADIENT, d, k, direct, states, done)?;
            sc.answer::<C, S>(ENERGY, d, k, direct, states, done)?;
        }
    }
}

/// Generates `sgs_…_run_batch` for one sampler and coordinate type:
/// `batch_api!(Core, T, "ctype", "Name", State, Summary, EnergyFn, GradientFn, name, "energy doc")`.
macro_rules! batch_api {
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident, $Sum:ty, $Info:ty, $E:ty, $G:ty,
     $run_batch:ident, $run_batch_infos:ident, $energy_doc:literal) => {
        #[doc = concat!(" Runs `n` outer iterations of each of the `k` ", $name, " chains `states[0..k]`")]
        #[doc = concat!(" (`", $ctype, "` coordinates) in lockstep, evaluating their points through one")]
        /// batched gradient call (and one batched energy call) per round instead of one call per
        /// point: what lets an interpreter vectorise over chains. The draws, infos and final
        /// states are bit for bit those of k separate `…_run` calls whose callbacks compute the
        /// same rows.
        ///
        /// `states` is an array of k initialised states of the same dimension d (each `init`ed in
        /// place on its own workspace; the callbacks given to `init` are not used here). Row i of
        /// chain c is written to `out[(c·n + i)·d …]` (chain-major; `out_len` ≥ k·n·d; `out` may
        /// be NULL when n = 0). Iteration i of every chain is done before iteration i + 1 of any.
        ///
        /// Each iteration is a few *rounds*: every unfinished chain runs its step up to its next
        /// callback, then the gradient requests are answered by one `gradient` call of k' ≤ k
        /// rows and the energy requests by one `energy` call. AMAGOLD's trajectories (warm-up
        /// windows included) are cut at their callbacks and resumed with the answers (O(m)
        /// arithmetic for m calls, as in `…_run`) when the cache holds at least 7 words per chain
        /// (`max_calls`·(2 + 2d) ≥ 7: `max_calls` ≥ 2, or ≥ 1 when d ≥ 3); every other step
        /// (SGHMC, SGLD, the warm-up's approach, curvature and metric steps) is replayed from the
        /// chain's state with the answers it has so far (all-or-nothing steps make that exact),
        /// m + 1 times for m calls (O(m²) core arithmetic, small next to an interpreter's
        /// callbacks). `scratch` (`scratch_len` doubles, at least the sampler's
        /// `…_batch_scratch_len(k, d, max_calls)`) holds the rows of a batch and a cache of
        /// `max_calls` answers (or a cut step's position) per chain; a replayed step that needs
        /// more calls than that (the warm-up's approach and curvature steps need d + 1 or more)
        /// gets the calls beyond the cache from the batch callback with one row each: the same
        /// values, fewer rows per call. A replayed step must repeat its cached calls bit for bit,
        /// and a cut step's position must pass its check word (`SGS_ERR_STATE_CORRUPTED`
        /// otherwise: the chains stay at their last rows).
        ///
        #[doc = $energy_doc]
        /// `*samples_done` and `summaries` (k entries each, unless NULL) get each chain's rows
        /// written and totals, also when the run stops early: after `SGS_ERR_CALLBACK_ABORTED`
        /// (the callback returned ABORT, or a row status other than OK and REJECT) every chain is
        /// at its state after its last written row; chains can differ by one row. Resuming, with
        /// this function or with each chain's `…_run`/`…_step`, continues exactly as an
        /// uninterrupted run.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`states`, `scratch`, `gradient`, `out` when
        /// n > 0, `energy` for AMAGOLD), `SGS_ERR_INVALID_ARGUMENT` (k = 0, misaligned, k·n·d
        /// overflows, or any two of the states array, their workspaces, `scratch`, `out`,
        /// `samples_done` and `summaries` overlap), the states' validation statuses
        /// (`SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`,
        /// `SGS_ERR_STATE_MOVED`; every state is checked), `SGS_ERR_LENGTH_MISMATCH` (states of
        /// different dimensions), `SGS_ERR_OUTPUT_TOO_SMALL`, `SGS_ERR_WORKSPACE_TOO_SMALL`
        /// (`scratch_len` below the size query), `SGS_ERR_CALLBACK_ABORTED`. Nothing is written
        /// on an argument error. `n = 0` succeeds and writes zero totals.
        ///
        /// # Safety
        /// `states` valid for k states whose workspaces are alive; `scratch`, `out`,
        /// `samples_done`, `summaries` valid for their lengths; callbacks follow their contract.
        #[no_mangle]
        pub unsafe extern "C" fn $run_batch(
            states: *mut $S,
            k: usize,
            n: usize,
            energy: $E,
            gradient: $G,
            user_data: *mut core::ffi::c_void,
            scratch: *mut f64,
            scratch_len: usize,
            max_calls: usize,
            out: *mut $T,
            out_len: usize,
            samples_done: *mut usize,
            summaries: *mut $Sum,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::batch::run_batch::<$T, $Core, $S>(
                    states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls,
                    out, out_len, samples_done, summaries, core::ptr::null_mut(),
                )
            })
        }

        #[doc = concat!(" `", stringify!($run_batch), "` that also records every iteration's info record:")]
        /// chain c's record of iteration i goes to `infos[c·n + i]` (`infos`: k·n records, or
        /// NULL; it must not overlap the other buffers, and k·n records must fit the address
        /// space, checked before the other arrays' lengths: else `SGS_ERR_INVALID_ARGUMENT`), as
        /// each row is written. What an interpreter that reports per-draw statistics needs
        /// instead of one call per iteration. Everything else, statuses included, as for the
        /// function without `infos`; after an early stop the records of the rows written
        /// (`samples_done`) are there, the others untouched.
        ///
        /// # Safety
        #[doc = concat!(" As for `", stringify!($run_batch), "`; `infos` valid for k·n records (or NULL).")]
        #[no_mangle]
        pub unsafe extern "C" fn $run_batch_infos(
            states: *mut $S,
            k: usize,
            n: usize,
            energy: $E,
            gradient: $G,
            user_data: *mut core::ffi::c_void,
            scratch: *mut f64,
            scratch_len: usize,
            max_calls: usize,
            out: *mut $T,
            out_len: usize,
            samples_done: *mut usize,
            summaries: *mut $Sum,
            infos: *mut $Info,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::batch::run_batch::<$T, $Core, $S>(
                    states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls,
                    out, out_len, samples_done, summaries, infos,
                )
            })
        }
    };
}

/// Generates a sampler's batch scratch size query: `batch_scratch_len!(name, "Name")`.
macro_rules! batch_scratch_len {
    ($f:ident, $name:literal) => {
        #[doc = concat!(" Scratch length, in doubles, of an ", $name, " `…_run_batch` (double or float) of `k`")]
        /// chains of dimension `d` caching `max_calls` callback answers per step:
        /// k·(6 + 2d + max_calls·(2 + 2d)), saturating at SIZE_MAX; 0 for k = 0 or d = 0.
        /// `max_calls` trades memory for batching: a replayed step with more calls (SGHMC's and
        /// SGLD's steps make T and 1 gradient calls; the warm-up's approach steps up to d + 43,
        /// with 40 line-search energies, and its curvature and window-metric steps d + 1) gets
        /// the excess one row at a time. AMAGOLD's trajectories (T gradient calls, up to 1.5·T
        /// with jittered T, and one energy call) are cut at their callbacks instead when
        /// `max_calls`·(2 + 2d) ≥ 7, whatever T.
        #[no_mangle]
        pub extern "C" fn $f(k: usize, d: usize, max_calls: usize) -> usize {
            if k == 0 || d == 0 {
                return 0;
            }
            $crate::ffi::batch::scratch_len(k, d, max_calls).unwrap_or(usize::MAX)
        }
    };
}

use super::{
    sgs_amagold, sgs_amagold_f32, sgs_amagold_info, sgs_amagold_run_summary, sgs_sghmc,
    sgs_sghmc_f32, sgs_sghmc_info, sgs_sghmc_run_summary, sgs_sgld, sgs_sgld_f32, sgs_sgld_info,
    sgs_sgld_run_summary,
};
use crate::{AmagoldCore, SghmcCore, SgldCore};

batch_scratch_len!(sgs_amagold_batch_scratch_len, "AMAGOLD");
batch_scratch_len!(sgs_sghmc_batch_scratch_len, "SGHMC");
batch_scratch_len!(sgs_sgld_batch_scratch_len, "SGLD");

batch_api!(
    AmagoldCore,
    f64,
    "double",
    "AMAGOLD",
    sgs_amagold,
    sgs_amagold_run_summary,
    sgs_amagold_info,
    sgs_batch_energy_fn,
    sgs_batch_gradient_fn,
    sgs_amagold_run_batch,
    sgs_amagold_run_batch_infos,
    " `energy` (required) gives U at the end of each trajectory."
);
batch_api!(
    AmagoldCore,
    f32,
    "float",
    "AMAGOLD",
    sgs_amagold_f32,
    sgs_amagold_run_summary,
    sgs_amagold_info,
    sgs_batch_energy_fn_f32,
    sgs_batch_gradient_fn_f32,
    sgs_amagold_run_batch_f32,
    sgs_amagold_run_batch_infos_f32,
    " `energy` (required) gives U at the end of each trajectory."
);
batch_api!(
    SghmcCore,
    f64,
    "double",
    "SGHMC",
    sgs_sghmc,
    sgs_sghmc_run_summary,
    sgs_sghmc_info,
    sgs_batch_energy_fn,
    sgs_batch_gradient_fn,
    sgs_sghmc_run_batch,
    sgs_sghmc_run_batch_infos,
    " `energy` is not used (it may be NULL)."
);
batch_api!(
    SghmcCore,
    f32,
    "float",
    "SGHMC",
    sgs_sghmc_f32,
    sgs_sghmc_run_summary,
    sgs_sghmc_info,
    sgs_batch_energy_fn_f32,
    sgs_batch_gradient_fn_f32,
    sgs_sghmc_run_batch_f32,
    sgs_sghmc_run_batch_infos_f32,
    " `energy` is not used (it may be NULL)."
);
batch_api!(
    SgldCore,
    f64,
    "double",
    "SGLD",
    sgs_sgld,
    sgs_sgld_run_summary,
    sgs_sgld_info,
    sgs_batch_energy_fn,
    sgs_batch_gradient_fn,
    sgs_sgld_run_batch,
    sgs_sgld_run_batch_infos,
    " `energy` is not used (it may be NULL)."
);
batch_api!(
    SgldCore,
    f32,
    "float",
    "SGLD",
    sgs_sgld_f32,
    sgs_sgld_run_summary,
    sgs_sgld_info,
    sgs_batch_energy_fn_f32,
    sgs_batch_gradient_fn_f32,
    sgs_sgld_run_batch_f32,
    sgs_sgld_run_batch_infos_f32,
    " `energy` is not used (it may be NULL)."
);
