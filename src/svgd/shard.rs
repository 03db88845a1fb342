//! RBM-SVGD over processes that each hold only their share of the particles ([`SvgdShard`]):
//! with the [`Feistel`] permutation every process can find, for its own particles, the slots
//! they take this iteration, and for its own slots, the particles they hold, without the
//! permutation of the others. Two all-to-all exchanges per iteration (positions and gradients
//! to the batches' owners, forces back to the particles' owners) and a gather of one small
//! record per process replace the copy of all N particles that every process of the phases'
//! exchange keeps (docs/design.md, "Shards").

use super::config::{Batching, SvgdConfig, SvgdInfo};
use super::core::{anneal_rows, refusal, Pending, SvgdCore};
use super::force_stats::ForceStats;
use super::kernel::{Kernel, KernelChoice};
use super::ksd::KsdChoice;
use super::moves::{move_checked, moves_finite, moves_into};
use super::permutation::{Feistel, Permutation};
use super::rows::{row, row_mut, rows};
use super::step_rule::{Update, UNSET};
use crate::arch::prefetch;
use crate::error::Error;
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;
use core::ops::Range;

/// `⌊k·n/parts⌋`: where block `k` of `n` items cut into `parts` blocks starts (`k ≤ parts`), in
/// 128 bits, exact for every `usize` (the fuzz target found the 64-bit product overflowing for
/// n·k ≥ 2⁶⁴ through `sgs_svgd_shard_ranges`, which takes any n).
fn block_start(n: usize, parts: usize, k: usize) -> usize {
    match (n as u128 * k as u128).checked_div(parts as u128) {
        Some(v) => v as usize,
        None => 0,
    }
}

/// The block of `n` items cut into `parts` that holds item `i < n` (what [`Owners`] computes
/// faster; the tests compare them): `⌊(parts·(i + 1) − 1)/n⌋`,
/// the last block starting at or before `i` (blocks may be empty when `parts > n`).
#[cfg(test)]
fn block_owner(n: usize, parts: usize, i: usize) -> usize {
    match (parts as u64 * (i as u64 + 1))
        .saturating_sub(1)
        .checked_div(n as u64)
    {
        Some(v) => v as usize,
        None => 0,
    }
}

/// Division by a number fixed for a shard's life (the batch size, the batch and particle
/// counts): for numerators below 2³², one 128-bit multiply by `⌈2⁶⁴/d⌉`, exact for every
/// 32-bit numerator and divisor (Lemire, Kaser and Kurz, "Faster remainder by direct
/// computation", 2019); above, a division. Called twice per record when grouping.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    /// `⌈2⁶⁴/d⌉` for `2 ≤ d < 2³²`, else 0.
    m: u64,
}

impl Divisor {
    fn new(d: usize) -> Self {
        let d = (d as u64).max(1);
        let m = if d > 1 && d < 1 << 32 {
            u64::MAX / d + 1
        } else {
            0
        };
        Divisor { d, m }
    }

    #[inline(always)]
    fn div(&self, n: u64) -> u64 {
        if self.m != 0 && n < 1 << 32 {
            ((self.m as u128 * n as u128) >> 64) as u64
        } else {
            // `d ≥ 1` (`new`); checked, so that no division-by-zero panic path is linked.
            n.checked_div(self.d).unwrap_or(n)
        }
    }
}

/// How many records ahead the scatters ask for their rows' cache lines.
const AHEAD: usize = 16;

/// Splits of this many processes or fewer find owners by comparing with the blocks' ends.
const FEW_RANKS: usize = 8;

/// The owners of slots and particles in a shard's split: the same values as [`block_owner`].
/// With up to [`FEW_RANKS`] processes, the number of blocks ending at or before the index
/// (one comparison for two processes); with more, [`Divisor`]s. Called twice per record.
#[derive(Clone, Copy, Debug)]
struct Owners {
    ranks: u64,
    last_batch: u64,
    by_p: Divisor,
    by_batches: Divisor,
    by_n: Divisor,
    /// Where the slots and particles of processes 1, 2, … start, [`FEW_RANKS`] or fewer
    /// processes (entries past the last process are never read).
    slot_ends: [u32; FEW_RANKS - 1],
    particle_ends: [u32; FEW_RANKS - 1],
}

impl Owners {
    fn new(n: usize, batch_size: usize, ranks: usize) -> Self {
        let nb = n.checked_div(batch_size).unwrap_or(0);
        let few = ranks <= FEW_RANKS;
        let end = |f: &dyn Fn(usize) -> usize| -> [u32; FEW_RANKS - 1] {
            core::array::from_fn(|q| {
                if few && q + 1 < ranks {
                    f(q + 1) as u32
                } else {
                    0
                }
            })
        };
        Owners {
            ranks: ranks as u64,
            last_batch: nb.saturating_sub(1) as u64,
            by_p: Divisor::new(batch_size),
            by_batches: Divisor::new(nb),
            by_n: Divisor::new(n),
            slot_ends: end(&|q| slot_range(n, batch_size, ranks, q).start),
            particle_ends: end(&|q| particle_range(n, ranks, q).start),
        }
    }

    /// The number of `ends` at or before `i`: a sum of comparisons, one per process but the
    /// first (a fixed-length sum over all of `ends` cost a shard 12 % of its time on one
    /// process and 7 % with two, `openmp_shard --bench 65536 8`).
    #[inline(always)]
    fn count(&self, ends: &[u32; FEW_RANKS - 1], i: u32) -> usize {
        let used = self.used(ends).unwrap_or_default();
        used.iter().map(|&e| (i >= e) as usize).sum()
    }

    /// The block starts of processes 1, 2, … that [`Owners::count`] compares with, when there
    /// are [`FEW_RANKS`] processes or fewer (`None` otherwise; its callers have checked that
    /// already, so the test folds away where it is inlined).
    #[inline(always)]
    fn used<'a>(&self, ends: &'a [u32; FEW_RANKS - 1]) -> Option<&'a [u32]> {
        if self.ranks as usize > FEW_RANKS {
            return None;
        }
        ends.get(..(self.ranks as usize).saturating_sub(1))
    }

    /// The process that holds slot `s`'s batch.
    #[inline(always)]
    fn of_slot(&self, s: u32) -> usize {
        if self.ranks as usize <= FEW_RANKS {
            return self.count(&self.slot_ends, s);
        }
        let b = self.by_p.div(s as u64).min(self.last_batch);
        self.by_batches
            .div((self.ranks * (b + 1)).saturating_sub(1)) as usize
    }

    /// The process that holds particle `i`.
    #[inline(always)]
    fn of_particle(&self, i: u32) -> usize {
        if self.ranks as usize <= FEW_RANKS {
            return self.count(&self.particle_ends, i);
        }
        self.by_n
            .div((self.ranks * (i as u64 + 1)).saturating_sub(1)) as usize
    }
}

/// One process's summary of an iteration's forces and moves, from
/// [`SvgdShard::finish`]: every process hands every other its own (e.g. `MPI_Allgather` of
/// its 40 bytes), and [`SvgdShard::commit`] combines them in rank order. Plain data without
/// padding, so it may travel as bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SvgdShardPartial {
    /// Sum of `|φ_i|` over the process's particles, in particle order.
    pub force_sum: f64,
    /// Largest `|φ_i|` among them (0 with none).
    pub force_max: f64,
    /// Its particles.
    pub moves: u64,
    /// Kernel evaluations of its batches.
    pub interactions: u64,
    /// 1 when every φ, new position and new history value of its particles is finite, else 0.
    pub finite: u64,
}

/// One piece of the records a process receives, for [`SvgdShard::forces_parts`] and
/// [`SvgdShard::finish_parts`]: `idx` the records' indices and `rows` their rows, as the
/// sender's `begin` or `forces` wrote them for this process (`rows.len() = idx.len()·d` in
/// both steps). Where the senders' buffers can be read in place (threads in one process, or
/// ranks sharing a memory window) the process takes its records from them, one piece per
/// sender, instead of having them copied into one buffer first.
#[derive(Clone, Copy, Debug)]
pub struct ShardRecords<'a, T> {
    /// The indices: `(slot, particle)` per record for `forces`, `particle` for `finish`.
    pub idx: &'a [u32],
    /// The rows: position then gradient (`2d`) per record for `forces`, φ (`d`) for `finish`.
    pub rows: &'a [T],
}

/// Checks that `parts` hold whole records, `per` indices and `per·d` values each, `want`
/// indices in all (so every slot or particle gets one when none is twice); else
/// [`Error::LengthMismatch`].
fn records_len<'p, T: 'p>(
    parts: impl Iterator<Item = ShardRecords<'p, T>>,
    per: usize,
    d: usize,
    want: usize,
) -> Result<(), Error> {
    let mut total = 0usize;
    for p in parts {
        if p.idx.len() % per != 0 || Some(p.rows.len()) != p.idx.len().checked_mul(d) {
            return Err(Error::LengthMismatch);
        }
        total = total.saturating_add(p.idx.len());
    }
    if total != want {
        return Err(Error::LengthMismatch);
    }
    Ok(())
}

/// Where an iteration of a shard is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Idle,
    Begun,
    Forces,
    Finished,
}

/// The part of an RBM-SVGD particle system (without replacement, [`Permutation::Feistel`]) that
/// process `rank` of `ranks` holds: particles [`particle_range`](Self::particle_range) (a
/// block of the N) and the batches of slots [`slot_range`](Self::slot_range) (a block of the
/// ⌊N/p⌋ batches), with buffers of that size only. Every process runs the same configuration
/// (seed included); one iteration is
///
/// 1. [`begin`](Self::begin): the seed and the permutation's key (the same two draws on
///    every process), the gradients of the process's particles (one `gradients` call), and a
///    record `(slot, position, gradient)` for each of them, grouped by the process that holds
///    its slot;
/// 2. the caller delivers the records (all-to-all), then [`forces`](Self::forces): φ of the
///    process's batches and a record `(particle, φ)` per slot, grouped by the particle's
///    process;
/// 3. the caller delivers them, then [`finish`](Self::finish): checks the moves, nothing moved
///    yet, and a [`SvgdShardPartial`];
/// 4. the caller gives every process every partial, then [`commit`](Self::commit): moves the
///    particles if every process's moves were finite, and returns the iteration's info.
///
/// The positions and histories are those of [`Svgd::step`](super::Svgd::step) with the same
/// configuration, bit for bit, for any number of processes (with the gradient contract that a
/// row's gradient depends only on the row and the seed). So are the info's fields but the mean
/// force: the processes' sums of `|φ_i|` are added in rank order, not particle by particle.
///
/// Records travel as an index array (`u32`: slot and particle from `begin`, particle from
/// `forces`) and a row array (`T`); within the records for one process they are in the
/// sender's particle (or slot) order. A receiver may also take them as pieces, one per sender
/// where the sender wrote them ([`forces_parts`](Self::forces_parts),
/// [`finish_parts`](Self::finish_parts)), when it can read the senders' buffers in place.
/// A process checks what it receives (count, every index its own and once); an error leaves
/// the iteration where it was, so the caller can retry or [`cancel`](Self::cancel) it. Each
/// call's result is the process's own: the processes must agree (e.g. reduce the status)
/// before the next exchange, and all cancel if one failed.
///
/// ```
/// use sgsample::svgd::{Permutation, SvgdShard, SvgdShardPartial};
/// use sgsample::{Gradient, KernelChoice, StepRule, Stop, Svgd, SvgdConfig};
///
/// struct Shifted;
/// impl Gradient<f64> for Shifted {
///     fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
///         g[0] = x[0] - 1.0;
///         Ok(())
///     }
/// }
///
/// let (n, d, ranks) = (40, 1, 2);
/// let mut cfg = SvgdConfig::new(4, KernelChoice::Gaussian { h: 0.5 }, StepRule::adagrad(0.1));
/// cfg.permutation = Permutation::Feistel;
/// let start: Vec<f64> = (0..n).map(|i| -2.0 + 0.1 * i as f64).collect();
///
/// // Two processes simulated in one: each with its share and its buffers.
/// let mut parts: Vec<Vec<f64>> = (0..ranks)
///     .map(|r| start[SvgdShard::<f64>::particle_range(n, ranks, r)].to_vec())
///     .collect();
/// let mut ws: Vec<Vec<f64>> = (0..ranks)
///     .map(|r| vec![0.0; SvgdShard::<f64>::workspace_len(n, d, ranks, r, &cfg)])
///     .collect();
/// let mut ix: Vec<Vec<u32>> = (0..ranks)
///     .map(|r| vec![0; SvgdShard::<f64>::index_len(n, ranks, r, &cfg)])
///     .collect();
/// let mut shards = Vec::new();
/// for ((p, w), i) in parts.iter_mut().zip(&mut ws).zip(&mut ix) {
///     shards.push(SvgdShard::new(&cfg, n, d, ranks, shards.len(), p, w, i)?);
/// }
/// for _ in 0..3 {
///     sgsample::svgd::shard_iteration(&mut shards, &mut Shifted)?;
/// }
///
/// // The same as the whole system on one process.
/// let mut all = start.clone();
/// let mut w = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
/// let mut i = vec![0; Svgd::<f64>::index_len(n)];
/// let mut svgd = Svgd::new(&cfg, d, &mut all, &mut w, &mut i)?;
/// for _ in 0..3 {
///     svgd.step(&mut Shifted)?;
/// }
/// let joined: Vec<f64> = shards.iter().flat_map(|s| s.particles().to_vec()).collect();
/// assert_eq!(joined, svgd.particles());
/// # Ok::<(), sgsample::Error>(())
/// ```
pub struct SvgdShard<'a, T: Float, K: Kernel<T> = KernelChoice> {
    core: ShardCore<K, T>,
    particles: &'a mut [T],
    ws: &'a mut [T],
    idx: &'a mut [u32],
}

/// A shard apart from its buffers: plain data, so the C API keeps it in caller memory. Every
/// method takes the buffers the shard was made with. The iteration under way is a stage and
/// the last begun iteration's draws (not an `Option`: a failed call writes no byte of it).
#[derive(Clone, Debug)]
pub(crate) struct ShardCore<K: Kernel<T>, T: Float> {
    core: SvgdCore<K>,
    ranks: usize,
    rank: usize,
    own: Range<usize>,
    batches: Range<usize>,
    slots: Range<usize>,
    stage: Stage,
    pending: Pending<K::Prepared, T>,
    owners: Owners,
    interactions: u64,
    /// Whether `finish` staged the moves (new positions, then histories) at the start of the
    /// slot rows, free after `forces` (when they hold them: `(1 + AdaGrad)·c ≤ 3m`), for
    /// `commit` to copy; and whether they were all finite.
    staged: bool,
    staged_finite: bool,
}

/// The workspace of a shard with `c` particles and `m` slots, in order: history (`c·d`, AdaGrad
/// only), φ by particle (`c·d`; the gradients in `begin`), positions, gradients and φ by slot
/// (`m·d` each).
struct Parts<'w, T> {
    hist: &'w mut [T],
    phi: &'w mut [T],
    xs: &'w mut [T],
    gs: &'w mut [T],
    phis: &'w mut [T],
}

fn parts<T>(ws: &mut [T], c: usize, m: usize, d: usize, history: bool) -> Parts<'_, T> {
    let (hist, phi, rest) = particle_parts(ws, c, d, history);
    let (xs, rest) = rest.split_at_mut((m * d).min(rest.len()));
    let (gs, rest) = rest.split_at_mut((m * d).min(rest.len()));
    let (phis, _) = rest.split_at_mut((m * d).min(rest.len()));
    Parts {
        hist,
        phi,
        xs,
        gs,
        phis,
    }
}

/// Where `finish` stages the moves of `cd` coordinates in `slot_rows` (the positions,
/// gradients and φ by slot, spent once `forces` has sent φ): the new positions, then (with
/// history) the new histories, `cd` values each. `None` (and an empty history part) when they
/// do not fit, which happens only for shards with many fewer slots than particles; `commit`
/// then computes the moves itself.
fn staging<T>(slot_rows: &mut [T], cd: usize, history: bool) -> (Option<&mut [T]>, &mut [T]) {
    let Some((new_x, rest)) = slot_rows.split_at_mut_checked(cd) else {
        return (None, &mut []);
    };
    match (history, rest.get_mut(..cd)) {
        (false, _) => (Some(new_x), &mut []),
        (true, Some(new_h)) => (Some(new_x), new_h),
        (true, None) => (None, &mut []),
    }
}

/// The history and φ by particle of a shard's workspace (see [`Parts`]), and the rest: the
/// slot rows.
fn particle_parts<T>(
    ws: &mut [T],
    c: usize,
    d: usize,
    history: bool,
) -> (&mut [T], &mut [T], &mut [T]) {
    let h = if history { c * d } else { 0 };
    let (hist, rest) = ws.split_at_mut(h.min(ws.len()));
    let (phi, rest) = rest.split_at_mut((c * d).min(rest.len()));
    (hist, phi, rest)
}

/// Records from `keys` (one per item, in item order) grouped by destination: `dest(key)` the
/// destination, `rec` what a record holds; `counts` (one per destination) gets the records per
/// destination. A counting sort: count, then place each record at its destination's next free
/// one. With up to [`FEW_RANKS`] destinations, `ends` holds the keys where destinations 1, 2, …
/// start (`dest` is the number of them at or below the key), the counts come from one
/// comparison pass per end (vectorised: the scalar pass that incremented a counter per key was
/// 3 % of `forces` on two threads, `openmp_shard --bench 65536 8`), and [`place_few`] places
/// them; with more, the next free records live in `counts`.
#[inline(always)]
fn group<T: Float, R: Record<T>>(
    keys: &[u32],
    ends: Option<&[u32]>,
    dest: impl Fn(u32) -> usize,
    counts: &mut [usize],
    (out_idx, out_rows): (&mut [u32], &mut [T]),
    rec: &R,
) {
    if let (Some(ends), true) = (ends, counts.len() <= FEW_RANKS) {
        // Keys at or past each end; destination q has those past end q − 1 but not end q.
        let mut below = 0;
        for (q, c) in counts.iter_mut().enumerate() {
            let past = ends.get(q).map_or(0, |&e| at_or_past(keys, e));
            *c = keys.len().saturating_sub(past).saturating_sub(below);
            below += *c;
        }
        let mut next = [0usize; FEW_RANKS];
        let mut start = 0;
        for (c, at) in counts.iter().zip(next.iter_mut()) {
            *at = start;
            start += *c;
        }
        // Two destinations (two threads or ranks): the destination one comparison.
        if let [e] = *ends {
            let two = |k| (k >= e) as usize;
            place_few(keys, two, &mut next, out_idx, out_rows, rec);
        } else {
            place_few(keys, dest, &mut next, out_idx, out_rows, rec);
        }
        return;
    }
    counts.fill(0);
    for &k in keys {
        if let Some(c) = counts.get_mut(dest(k)) {
            *c += 1;
        }
    }
    let mut start = 0;
    for c in counts.iter_mut() {
        (*c, start) = (start, start + *c);
    }
    for (item, &k) in keys.iter().enumerate() {
        let Some(c) = counts.get_mut(dest(k)) else {
            continue;
        };
        put(out_idx, out_rows, rec, item, k, *c);
        *c += 1;
    }
    // Each entry now holds its destination's end: back to counts.
    let mut prev = 0;
    for c in counts.iter_mut() {
        (*c, prev) = (*c - prev, *c);
    }
}

/// [`group`]'s placing pass with up to [`FEW_RANKS`] destinations: each key's record at its
/// destination's next free one (`next`). Out of line: inlined into `begin` or `forces`, among
/// their other values, the loop reloaded its pointers and lengths from the stack for every
/// record (the pass was two thirds of `begin` without the gradient and the permutation).
#[inline(never)]
fn place_few<T: Float, R: Record<T>>(
    keys: &[u32],
    dest: impl Fn(u32) -> usize,
    next: &mut [usize; FEW_RANKS],
    out_idx: &mut [u32],
    out_rows: &mut [T],
    rec: &R,
) {
    for (item, &k) in keys.iter().enumerate() {
        if let Some(at) = next.get_mut(dest(k)) {
            put(out_idx, out_rows, rec, item, k, *at);
            *at += 1;
        }
    }
}

/// Record `at` of `out_idx` and `out_rows` filled by `rec` from item `item` with key `k`.
#[inline(always)]
fn put<T, R: Record<T>>(
    out_idx: &mut [u32],
    out_rows: &mut [T],
    rec: &R,
    item: usize,
    k: u32,
    at: usize,
) {
    let w = rec.width();
    if let (Some(o), Some(r)) = (
        out_idx.get_mut(at * R::IW..(at + 1) * R::IW),
        out_rows.get_mut(at * w..(at + 1) * w),
    ) {
        rec.fill(item, k, o, r);
    }
}

/// What a record of [`group`] holds. A trait rather than a closure: its methods are inlined into
/// the out-of-line [`place_few`], and at `d = 1` (`ONE` in the implementations) the widths are
/// constants there.
trait Record<T> {
    /// Index entries per record.
    const IW: usize;
    /// Rows of `d` values per record.
    const ROWS: usize;
    /// The dimension.
    fn d(&self) -> usize;
    /// Values per record.
    #[inline(always)]
    fn width(&self) -> usize {
        Self::ROWS * self.d()
    }
    /// Item `item`'s record, key `k`: its index entries `o` and its row `r`.
    fn fill(&self, item: usize, k: u32, o: &mut [u32], r: &mut [T]);
}

/// `d`, or 1 known to the compiler when `ONE`.
#[inline(always)]
fn dim<const ONE: bool>(d: usize) -> usize {
    if ONE {
        1
    } else {
        d
    }
}

/// `begin`'s records: `(slot, particle)` and `(x, g)` of the process's particle `item`
/// (`ONE`: `d = 1`).
struct SlotRecord<'a, T, const ONE: bool> {
    first: usize,
    d: usize,
    /// The process's particles and their gradients, by particle.
    xs: &'a [T],
    gs: &'a [T],
}

impl<T: Float, const ONE: bool> Record<T> for SlotRecord<'_, T, ONE> {
    const IW: usize = 2;
    const ROWS: usize = 2;

    #[inline(always)]
    fn d(&self) -> usize {
        dim::<ONE>(self.d)
    }

    #[inline(always)]
    fn fill(&self, k: usize, s: u32, i: &mut [u32], r: &mut [T]) {
        let d = self.d();
        if let [a, b] = i {
            (*a, *b) = (s, (self.first + k) as u32);
        }
        // Rows of 2d: always split (checked, so that no panic path is linked).
        if let Some((x, g)) = r.split_at_mut_checked(d) {
            put_row(x, row(self.xs, k, d));
            put_row(g, row(self.gs, k, d));
        }
    }
}

/// `forces`' records: `(particle)` and `(φ)` of the slot row `item` (`ONE`: `d = 1`).
struct ForceRecord<'a, T, const ONE: bool> {
    d: usize,
    phis: &'a [T],
}

impl<T: Float, const ONE: bool> Record<T> for ForceRecord<'_, T, ONE> {
    const IW: usize = 1;
    const ROWS: usize = 1;

    #[inline(always)]
    fn d(&self) -> usize {
        dim::<ONE>(self.d)
    }

    #[inline(always)]
    fn fill(&self, j: usize, i: u32, o: &mut [u32], r: &mut [T]) {
        if let [o] = o {
            *o = i;
        }
        put_row(r, row(self.phis, j, self.d()));
    }
}

/// How many of `keys` are `e` or more: summed in `u32` lanes a block at a time, so that the
/// comparisons vectorise.
fn at_or_past(keys: &[u32], e: u32) -> usize {
    keys.chunks(1 << 16)
        .map(|b| b.iter().map(|&k| (k >= e) as u32).sum::<u32>() as usize)
        .sum()
}

/// `forces`' records into the slot rows: record `(s, i)`, `(x, g)` puts `i` in `held` and the
/// position and gradient in row `s − first` of `xs` and `gs`, each slot this process's and once
/// (then every slot has one: there are `held.len()` records), and the particle below `n`
/// (≤ 2³² − 1, so never the empty mark `held` was filled with). The rows are asked for
/// [`AHEAD`] records ahead: they are random, and their misses would otherwise come one by one.
/// Out of line, `d = 1` known to the compiler when `ONE` (as in [`place_few`]: inside `forces`
/// the loop reloaded its pointers from the stack for every record).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn slot_records<T: Float, const ONE: bool>(
    in_idx: &[u32],
    in_rows: &[T],
    first: usize,
    n: usize,
    d: usize,
    held: &mut [u32],
    xs: &mut [T],
    gs: &mut [T],
) -> Result<(), Error> {
    let d = dim::<ONE>(d);
    for (k, (sp, r)) in in_idx.chunks_exact(2).zip(rows(in_rows, 2 * d)).enumerate() {
        let &[s, i] = sp else {
            continue;
        };
        if let Some(&ahead) = in_idx.get(2 * (k + AHEAD)) {
            // Not checked yet (the record may be refused): wrapping, as the address is a hint.
            let j = (ahead as usize).wrapping_sub(first);
            prefetch(held.as_ptr().wrapping_add(j));
            prefetch(xs.as_ptr().wrapping_add(j.wrapping_mul(d)));
            prefetch(gs.as_ptr().wrapping_add(j.wrapping_mul(d)));
        }
        let j = (s as usize).wrapping_sub(first);
        let Some(mark) = held.get_mut(j) else {
            return Err(Error::RangeOutOfBounds);
        };
        if *mark != u32::MAX {
            return Err(Error::RangeOverlap);
        }
        if i as usize >= n {
            return Err(Error::RangeOutOfBounds);
        }
        *mark = i;
        if let Some((x, g)) = r.split_at_checked(d) {
            put_row(row_mut(xs, j, d), x);
            put_row(row_mut(gs, j, d), g);
        }
    }
    Ok(())
}

/// `finish`'s records into the particle rows: record `i`, `φ` puts `φ` in row `i − first` of
/// `phi`, each particle this process's (below `c`) and once (`seen`, zeroed, one bit per
/// particle: a thirty-second of the marks' cache lines, so they stay in L1), asked for
/// [`AHEAD`] records ahead as in [`slot_records`], and out of line as it is.
#[inline(never)]
fn particle_records<T: Float, const ONE: bool>(
    in_idx: &[u32],
    in_rows: &[T],
    first: usize,
    c: usize,
    d: usize,
    seen: &mut [u32],
    phi: &mut [T],
) -> Result<(), Error> {
    let d = dim::<ONE>(d);
    for (n, (&i, r)) in in_idx.iter().zip(rows(in_rows, d)).enumerate() {
        if let Some(&ahead) = in_idx.get(n + AHEAD) {
            // As in `slot_records`: not checked yet, wrapping.
            let k = (ahead as usize).wrapping_sub(first);
            prefetch(phi.as_ptr().wrapping_add(k.wrapping_mul(d)));
        }
        let k = (i as usize).wrapping_sub(first);
        let (Some(word), true) = (seen.get_mut(k / 32), k < c) else {
            return Err(Error::RangeOutOfBounds);
        };
        let bit = 1u32 << (k % 32);
        if *word & bit != 0 {
            return Err(Error::RangeOverlap);
        }
        *word |= bit;
        put_row(row_mut(phi, k, d), r);
    }
    Ok(())
}

/// The `|φ|` statistics of `phi`'s rows, in order. Not inlined: inside `finish` the compiler
/// kept the running sum and maximum on the stack (registers taken by the moves' constants), a
/// store-to-load wait on the sum's dependency chain for every particle.
#[inline(never)]
fn phi_stats<T: Float>(phi: &[T], d: usize) -> ForceStats {
    let mut stats = ForceStats::default();
    stats.add_rows(phi, d);
    stats
}

/// `dst = src` for rows of `d` values: element by element at d = 1, where a copy call per value
/// costs more than the value.
#[inline(always)]
fn put_row<T: Float>(dst: &mut [T], src: &[T]) {
    if let ([a], [b]) = (&mut *dst, src) {
        *a = *b;
    } else {
        copy(dst, src);
    }
}

/// The particles process `rank` of `ranks` holds (see [`SvgdShard::particle_range`]).
pub(crate) fn particle_range(n: usize, ranks: usize, rank: usize) -> Range<usize> {
    if rank >= ranks {
        return n..n;
    }
    block_start(n, ranks, rank)..block_start(n, ranks, rank + 1)
}

/// The slots of process `rank`'s batches (see [`SvgdShard::slot_range`]).
pub(crate) fn slot_range(n: usize, batch_size: usize, ranks: usize, rank: usize) -> Range<usize> {
    let nb = n.checked_div(batch_size).unwrap_or(0);
    let at = |b: usize| if b >= nb { n } else { b * batch_size };
    if rank >= ranks {
        return n..n;
    }
    at(block_start(nb, ranks, rank))..at(block_start(nb, ranks, rank + 1))
}

/// The workspace length of process `rank` (see [`SvgdShard::workspace_len`]).
pub(crate) fn shard_workspace_len<K>(
    n: usize,
    d: usize,
    ranks: usize,
    rank: usize,
    config: &SvgdConfig<K>,
) -> usize {
    let c = particle_range(n, ranks, rank).len();
    let m = slot_range(n, config.batch_size, ranks, rank).len();
    let per = if config.step_rule.has_history() {
        c.saturating_mul(2)
    } else {
        c
    };
    per.saturating_add(m.saturating_mul(3)).saturating_mul(d)
}

/// The index length of process `rank` (see [`SvgdShard::index_len`]).
pub(crate) fn shard_index_len<K>(
    n: usize,
    ranks: usize,
    rank: usize,
    config: &SvgdConfig<K>,
) -> usize {
    let c = particle_range(n, ranks, rank).len();
    c.saturating_add(slot_range(n, config.batch_size, ranks, rank).len())
}

impl<'a, T: Float, K: Kernel<T> + Clone> SvgdShard<'a, T, K> {
    /// The particles process `rank` of `ranks` holds: `⌊rank·n/ranks⌋ .. ⌊(rank + 1)·n/ranks⌋`
    /// (empty for `rank ≥ ranks`).
    pub fn particle_range(n: usize, ranks: usize, rank: usize) -> Range<usize> {
        particle_range(n, ranks, rank)
    }

    /// The permutation slots whose batches process `rank` of `ranks` computes, for `n`
    /// particles in batches of `batch_size`: the slots of batches `⌊rank·B/ranks⌋ ..
    /// ⌊(rank + 1)·B/ranks⌋`, `B = ⌊n/p⌋` (the last batch also holds the `n mod p` left over).
    pub fn slot_range(n: usize, batch_size: usize, ranks: usize, rank: usize) -> Range<usize> {
        slot_range(n, batch_size, ranks, rank)
    }

    /// Workspace length (elements of `T`) of process `rank`: `(2c + 3m)·d` with AdaGrad,
    /// `(c + 3m)·d` otherwise, `c` its particles and `m` its slots. Saturates on overflow.
    pub fn workspace_len(
        n: usize,
        d: usize,
        ranks: usize,
        rank: usize,
        config: &SvgdConfig<K>,
    ) -> usize {
        shard_workspace_len(n, d, ranks, rank, config)
    }

    /// Index length (`u32` entries) of process `rank`: `c + m`. Saturates on overflow.
    pub fn index_len(n: usize, ranks: usize, rank: usize, config: &SvgdConfig<K>) -> usize {
        shard_index_len(n, ranks, rank, config)
    }

    /// Process `rank`'s part of a system of `n` particles in dimension `d`: `particles` holds
    /// its particles' rows (`particle_range(n, ranks, rank)`, `c·d` coordinates). Errors, in
    /// the order checked: [`Error::ZeroDimension`], [`Error::ZeroParticles`],
    /// [`Error::InvalidArgument`] (`rank ≥ ranks`, or N ≥ 2³²), then those of
    /// [`Svgd::new`](super::Svgd::new) for the configuration, [`Error::InvalidOption`] (not
    /// [`Permutation::Feistel`] without replacement, or the KSD, the scale option or a kernel
    /// that needs all particles to prepare, the median heuristic, on), [`Error::LengthMismatch`]
    /// (`particles`), [`Error::WorkspaceTooSmall`], [`Error::InvalidPosition`]. Nothing is
    /// written on error.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: &SvgdConfig<K>,
        n: usize,
        d: usize,
        ranks: usize,
        rank: usize,
        particles: &'a mut [T],
        workspace: &'a mut [T],
        index: &'a mut [u32],
    ) -> Result<Self, Error> {
        let core = ShardCore::new(config, n, d, ranks, rank, particles, workspace, index)?;
        Ok(SvgdShard {
            core,
            particles,
            ws: workspace,
            idx: index,
        })
    }
}

impl<T: Float, K: Kernel<T>> SvgdShard<'_, T, K> {
    /// This process's particles (`particle_range`), row by row.
    pub fn particles(&self) -> &[T] {
        self.particles
    }

    /// The indices of this process's particles among the N.
    pub fn own_particles(&self) -> Range<usize> {
        self.core.own.clone()
    }

    /// The permutation slots of this process's batches.
    pub fn own_slots(&self) -> Range<usize> {
        self.core.slots.clone()
    }

    /// Iterations committed since `new`.
    pub fn iterations(&self) -> u64 {
        self.core.core.iterations
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.core.rank
    }

    /// Step 1: begins an iteration (the seed and the key: the same draws on every process),
    /// computes the gradients of this process's particles (one `model.gradients` call over
    /// its rows), and writes one record per particle into `out_idx` (its slot and its index:
    /// 2 per record) and `out_rows` (position then gradient: `2d` per record), grouped by
    /// destination process in rank order, `counts[q]` records for process `q`. Lengths:
    /// `out_idx` `2c`, `out_rows` `2c·d`,
    /// `counts` `ranks`. Errors: [`Error::IterationInProgress`], [`Error::LengthMismatch`],
    /// [`Error::InvalidPosition`], the callback's ([`Error::CallbackAborted`],
    /// [`Error::GradientRejected`]), [`Error::NonFinite`]; on error no iteration is under way
    /// and nothing changed.
    pub fn begin<M: Gradient<T> + ?Sized>(
        &mut self,
        model: &mut M,
        out_idx: &mut [u32],
        out_rows: &mut [T],
        counts: &mut [usize],
    ) -> Result<(), Error> {
        let bufs = (&*self.particles, &mut *self.ws, &mut *self.idx);
        self.core.begin(bufs, model, out_idx, out_rows, counts)
    }

    /// Step 2: takes the records for this process's slots (`in_idx` slot and particle,
    /// `in_rows` position then gradient, `m` records in any order), computes φ of its batches,
    /// and writes one record per slot into `out_idx` (the slot's particle) and `out_rows` (its
    /// φ, `d` per record), grouped by the particle's process, `counts[q]` for process `q`.
    /// Lengths: `in_idx` `2m`, `out_idx` `m`, `in_rows` `2m·d`, `out_rows` `m·d`, `counts`
    /// `ranks`. Errors: [`Error::IterationNotBegun`] (not after `begin`),
    /// [`Error::LengthMismatch`], [`Error::RangeOutOfBounds`] (a slot not this process's, or a
    /// particle index ≥ N), [`Error::RangeOverlap`] (a slot twice); the iteration then stays
    /// after `begin`. The records must arrive as `begin` wrote them: which particle a slot
    /// holds is taken from them, not evaluated again.
    pub fn forces(
        &mut self,
        in_idx: &[u32],
        in_rows: &[T],
        out_idx: &mut [u32],
        out_rows: &mut [T],
        counts: &mut [usize],
    ) -> Result<(), Error> {
        let whole = [ShardRecords {
            idx: in_idx,
            rows: in_rows,
        }];
        self.forces_parts(&whole, out_idx, out_rows, counts)
    }

    /// [`forces`](Self::forces) with the records in pieces (one per sender, say, read where
    /// the senders wrote them): the same result as with the pieces one after another in one
    /// buffer. Each piece holds whole records (an even number of indices, `d` values per
    /// index), `2m` indices in all; else [`Error::LengthMismatch`]. Empty pieces are allowed.
    ///
    /// ```
    /// use sgsample::svgd::{Permutation, ShardRecords, SvgdShard};
    /// use sgsample::{Gradient, KernelChoice, StepRule, Stop, SvgdConfig};
    ///
    /// struct Shifted;
    /// impl Gradient<f64> for Shifted {
    ///     fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
    ///         g[0] = x[0] - 1.0;
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let (n, d) = (16, 1);
    /// let mut cfg = SvgdConfig::new(4, KernelChoice::Gaussian { h: 0.5 }, StepRule::adagrad(0.1));
    /// cfg.permutation = Permutation::Feistel;
    /// let mut x: Vec<f64> = (0..n).map(|i| 0.25 * i as f64).collect();
    /// let mut ws = vec![0.0; SvgdShard::<f64>::workspace_len(n, d, 1, 0, &cfg)];
    /// let mut ix = vec![0; SvgdShard::<f64>::index_len(n, 1, 0, &cfg)];
    /// // One process holding everything; its records read in two pieces where begin wrote them.
    /// let mut s = SvgdShard::new(&cfg, n, d, 1, 0, &mut x, &mut ws, &mut ix)?;
    /// let (mut bi, mut br, mut k) = (vec![0; 2 * n], vec![0.0; 2 * n * d], [0]);
    /// s.begin(&mut Shifted, &mut bi, &mut br, &mut k)?;
    /// let pieces = [
    ///     ShardRecords { idx: &bi[..6], rows: &br[..6 * d] },
    ///     ShardRecords { idx: &bi[6..], rows: &br[6 * d..] },
    /// ];
    /// let (mut fi, mut fr) = (vec![0; n], vec![0.0; n * d]);
    /// s.forces_parts(&pieces, &mut fi, &mut fr, &mut k)?;
    /// let part = s.finish_parts(&[ShardRecords { idx: &fi, rows: &fr }])?;
    /// s.commit(&[part])?;
    /// assert_eq!(s.iterations(), 1);
    /// # Ok::<(), sgsample::Error>(())
    /// ```
    pub fn forces_parts(
        &mut self,
        parts: &[ShardRecords<'_, T>],
        out_idx: &mut [u32],
        out_rows: &mut [T],
        counts: &mut [usize],
    ) -> Result<(), Error> {
        let bufs = (&mut *self.ws, &mut *self.idx);
        self.core
            .forces(bufs, parts.iter().copied(), out_idx, out_rows, counts)
    }

    /// Step 3: takes the forces of this process's particles (`in_idx` the particles, `in_rows`
    /// their φ, `c` records in any order), checks their moves (nothing moves before
    /// [`commit`](Self::commit)) and returns the process's [`SvgdShardPartial`]. Lengths:
    /// `in_idx` `c`, `in_rows` `c·d`. Errors: [`Error::IterationNotBegun`] (not after
    /// `forces`), [`Error::LengthMismatch`], [`Error::RangeOutOfBounds`],
    /// [`Error::RangeOverlap`]; the iteration then stays after `forces`.
    pub fn finish(&mut self, in_idx: &[u32], in_rows: &[T]) -> Result<SvgdShardPartial, Error> {
        let whole = [ShardRecords {
            idx: in_idx,
            rows: in_rows,
        }];
        self.finish_parts(&whole)
    }

    /// [`finish`](Self::finish) with the records in pieces, as in
    /// [`forces_parts`](Self::forces_parts): each piece's rows `d` per index, the indices `c`
    /// in all; else [`Error::LengthMismatch`].
    pub fn finish_parts(
        &mut self,
        parts: &[ShardRecords<'_, T>],
    ) -> Result<SvgdShardPartial, Error> {
        let bufs = (&*self.particles, &mut *self.ws, &mut *self.idx);
        self.core.finish(bufs, parts.iter().copied())
    }

    /// Step 4: with every process's partial (`partials[q]` process `q`'s, all `ranks` of
    /// them), moves this process's particles if every process's moves were finite and returns
    /// the iteration's info (the sums added in rank order). Errors:
    /// [`Error::IterationNotBegun`] (not after `finish`), [`Error::LengthMismatch`] (the
    /// iteration stays after `finish`), [`Error::InvalidArgument`] (a `finite` flag neither 0
    /// nor 1: idem), [`Error::NonFinite`] when some process's moves were not finite: then the
    /// iteration is cancelled, as on every process, and nothing moved.
    pub fn commit(&mut self, partials: &[SvgdShardPartial]) -> Result<SvgdInfo, Error> {
        self.core
            .commit(&mut *self.particles, &mut *self.ws, partials)
    }

    /// Abandons the iteration under way (if any): the generator is restored and nothing moved.
    pub fn cancel(&mut self) {
        self.core.cancel();
    }
}

impl<K: Kernel<T> + Clone, T: Float> ShardCore<K, T> {
    /// [`SvgdShard::new`]'s checks, then the history initialised.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        config: &SvgdConfig<K>,
        n: usize,
        d: usize,
        ranks: usize,
        rank: usize,
        particles: &[T],
        workspace: &mut [T],
        index: &[u32],
    ) -> Result<Self, Error> {
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        if n == 0 {
            return Err(Error::ZeroParticles);
        }
        if rank >= ranks || ranks > u32::MAX as usize {
            return Err(Error::InvalidArgument);
        }
        let core = SvgdCore::validated::<T>(config, n, d)?;
        if config.permutation != Permutation::Feistel
            || config.batching != Batching::WithoutReplacement
            || config.ksd != KsdChoice::Off
            || config.scale.on()
            || config.kernel.scratch_len(n) > 0
        {
            return Err(Error::InvalidOption);
        }
        let own = particle_range(n, ranks, rank);
        if particles.len() != own.len().saturating_mul(d) {
            return Err(Error::LengthMismatch);
        }
        if workspace.len() < shard_workspace_len(n, d, ranks, rank, config)
            || index.len() < shard_index_len(n, ranks, rank, config)
        {
            return Err(Error::WorkspaceTooSmall);
        }
        if !all_finite(particles) {
            return Err(Error::InvalidPosition);
        }
        // A data-independent kernel (checked above) prepares from no particle.
        let prepared = config.kernel.prepare(&[], d, &mut [])?;
        let nb = core.batches();
        let shard = ShardCore {
            batches: block_start(nb, ranks, rank)..block_start(nb, ranks, rank + 1),
            slots: slot_range(n, config.batch_size, ranks, rank),
            own,
            ranks,
            rank,
            stage: Stage::Idle,
            pending: Pending {
                saved: core.rng.checkpoint(),
                iteration: 0,
                seed: 0,
                weights: core.weights(&prepared),
                prepared,
            },
            owners: Owners::new(n, config.batch_size, ranks),
            interactions: 0,
            staged: false,
            staged_finite: false,
            core,
        };
        shard.parts(workspace).hist.fill(T::from_f64(UNSET));
        Ok(shard)
    }
}

impl<K: Kernel<T>, T: Float> ShardCore<K, T> {
    fn parts<'w>(&self, ws: &'w mut [T]) -> Parts<'w, T> {
        let history = self.core.cfg.step_rule.has_history();
        parts(ws, self.own.len(), self.slots.len(), self.core.d, history)
    }

    /// Particles, slots, ranks and rank (for the C layer's checks).
    #[cfg(feature = "ffi")]
    pub(crate) fn shape(&self) -> (usize, usize, usize, usize) {
        (self.own.len(), self.slots.len(), self.ranks, self.rank)
    }

    /// The workspace length this shard needs ([`shard_workspace_len`] of its shape).
    #[cfg(feature = "ffi")]
    pub(crate) fn workspace_len(&self) -> usize {
        let (n, d, cfg) = (self.core.n, self.core.d, &self.core.cfg);
        shard_workspace_len(n, d, self.ranks, self.rank, cfg)
    }

    /// The index length this shard needs ([`shard_index_len`] of its shape).
    #[cfg(feature = "ffi")]
    pub(crate) fn index_len(&self) -> usize {
        shard_index_len(self.core.n, self.ranks, self.rank, &self.core.cfg)
    }

    /// Iterations committed.
    #[cfg(feature = "ffi")]
    pub(crate) fn iterations(&self) -> u64 {
        self.core.iterations
    }

    /// See [`SvgdShard::begin`].
    pub(crate) fn begin<M: Gradient<T> + ?Sized>(
        &mut self,
        (particles, ws, idx): (&[T], &mut [T], &mut [u32]),
        model: &mut M,
        out_idx: &mut [u32],
        out_rows: &mut [T],
        counts: &mut [usize],
    ) -> Result<(), Error> {
        if self.stage != Stage::Idle {
            return Err(Error::IterationInProgress);
        }
        let (c, m, d) = (self.own.len(), self.slots.len(), self.core.d);
        if out_idx.len() != 2 * c || out_rows.len() != 2 * c * d || counts.len() != self.ranks {
            return Err(Error::LengthMismatch);
        }
        if !all_finite(particles) {
            return Err(Error::InvalidPosition);
        }
        // Drawn on a copy of the generator, kept only on success.
        let mut rng = self.core.rng.clone();
        let saved = rng.checkpoint();
        let seed = rng.next_u64();
        let feistel = Feistel::new(rng.next_u64(), self.core.n as u64);
        let prepared = self.core.cfg.kernel.prepare(&[], d, &mut [])?;
        let g = self.parts(ws).phi;
        self.own_gradients(particles, g, model, seed)?;
        // Each particle's slot, then the records by the slot's process: (slot, particle) and
        // (position, gradient).
        let first = self.own.start;
        let slots = idx.get_mut(m..m + c).ok_or(Error::WorkspaceTooSmall)?;
        feistel.invert_fill(first as u64, slots);
        let owners = self.owners;
        let gs = &*self.parts(ws).phi;
        let (dest, ends) = (|s| owners.of_slot(s), owners.used(&owners.slot_ends));
        let out = (out_idx, out_rows);
        let (xs, gs) = (particles, gs);
        if d == 1 {
            let rec = SlotRecord::<T, true> { first, d, xs, gs };
            group(slots, ends, dest, counts, out, &rec);
        } else {
            let rec = SlotRecord::<T, false> { first, d, xs, gs };
            group(slots, ends, dest, counts, out, &rec);
        }
        self.core.rng = rng;
        self.pending = Pending {
            saved,
            iteration: self.core.iterations + 1,
            seed,
            weights: self.core.weights(&prepared),
            prepared,
        };
        self.stage = Stage::Begun;
        Ok(())
    }

    /// The gradients of this process's particles into `g`, checked and annealed as the serial
    /// step's.
    fn own_gradients<M: Gradient<T> + ?Sized>(
        &self,
        particles: &[T],
        g: &mut [T],
        model: &mut M,
        seed: u64,
    ) -> Result<(), Error> {
        if particles.is_empty() {
            return Ok(());
        }
        model
            .gradients(particles, self.core.d, seed, g)
            .map_err(refusal)?;
        if !all_finite(g) {
            return Err(Error::NonFinite);
        }
        if self.core.cfg.anneal.on() {
            anneal_rows(g, self.core.anneal_factor());
        }
        Ok(())
    }

    /// See [`SvgdShard::forces`].
    pub(crate) fn forces<'p>(
        &mut self,
        (ws, idx): (&mut [T], &mut [u32]),
        parts: impl Iterator<Item = ShardRecords<'p, T>> + Clone,
        out_idx: &mut [u32],
        out_rows: &mut [T],
        counts: &mut [usize],
    ) -> Result<(), Error> {
        if self.stage != Stage::Begun {
            return Err(Error::IterationNotBegun);
        }
        let (m, d) = (self.slots.len(), self.core.d);
        records_len(parts.clone(), 2, d, 2 * m)?;
        if out_idx.len() != m || out_rows.len() != m * d || counts.len() != self.ranks {
            return Err(Error::LengthMismatch);
        }
        let held = idx.get_mut(..m).ok_or(Error::WorkspaceTooSmall)?;
        let ws = self.parts(ws);
        // The records into the slot rows (`slot_records`: every slot marked empty first).
        held.fill(u32::MAX);
        let (first, n) = (self.slots.start, self.core.n);
        // At d = 1 with the rows' width known to the compiler.
        for p in parts {
            if d == 1 {
                slot_records::<T, true>(p.idx, p.rows, first, n, d, held, ws.xs, ws.gs)?;
            } else {
                slot_records::<T, false>(p.idx, p.rows, first, n, d, held, ws.xs, ws.gs)?;
            }
        }
        let (a, b) = (self.batches.start, self.batches.end);
        let pending = &self.pending;
        let interactions = self.core.batch_forces(pending, a, b, ws.xs, ws.gs, ws.phis);
        // The records by the particle's process: (particle) and (φ).
        let (owners, phis) = (self.owners, &*ws.phis);
        let (dest, ends) = (
            |i| owners.of_particle(i),
            owners.used(&owners.particle_ends),
        );
        let out = (out_idx, out_rows);
        if d == 1 {
            let rec = ForceRecord::<T, true> { d, phis };
            group(held, ends, dest, counts, out, &rec);
        } else {
            let rec = ForceRecord::<T, false> { d, phis };
            group(held, ends, dest, counts, out, &rec);
        }
        self.interactions = interactions;
        self.stage = Stage::Forces;
        Ok(())
    }

    /// See [`SvgdShard::finish`].
    pub(crate) fn finish<'p>(
        &mut self,
        (particles, ws, idx): (&[T], &mut [T], &mut [u32]),
        parts: impl Iterator<Item = ShardRecords<'p, T>> + Clone,
    ) -> Result<SvgdShardPartial, Error> {
        if self.stage != Stage::Forces {
            return Err(Error::IterationNotBegun);
        }
        let (c, m, d) = (self.own.len(), self.slots.len(), self.core.d);
        records_len(parts.clone(), 1, d, c)?;
        let history = self.core.cfg.step_rule.has_history();
        let (hist, phi, slot_rows) = particle_parts(ws, c, d, history);
        let seen = idx
            .get_mut(m..m + c.div_ceil(32))
            .ok_or(Error::WorkspaceTooSmall)?;
        seen.fill(0);
        let first = self.own.start;
        for p in parts {
            if d == 1 {
                particle_records::<T, true>(p.idx, p.rows, first, c, d, seen, phi)?;
            } else {
                particle_records::<T, false>(p.idx, p.rows, first, c, d, seen, phi)?;
            }
        }
        let up = Update::<T>::new(&self.core.cfg.step_rule, self.pending.iteration);
        let hist = history.then_some(&*hist);
        let stats = phi_stats(phi, d);
        let (new_x, new_h) = staging(slot_rows, c * d, history);
        self.staged = new_x.is_some();
        let finite = match new_x {
            Some(new_x) => moves_into(&up, particles, hist, phi, new_x, new_h),
            None => moves_finite(&up, particles, hist, phi),
        };
        self.staged_finite = finite;
        self.stage = Stage::Finished;
        Ok(SvgdShardPartial {
            force_sum: stats.sum,
            force_max: stats.max,
            moves: stats.count,
            interactions: self.interactions,
            finite: finite as u64,
        })
    }

    /// See [`SvgdShard::commit`].
    pub(crate) fn commit(
        &mut self,
        particles: &mut [T],
        ws: &mut [T],
        partials: &[SvgdShardPartial],
    ) -> Result<SvgdInfo, Error> {
        if self.stage != Stage::Finished {
            return Err(Error::IterationNotBegun);
        }
        if partials.len() != self.ranks {
            return Err(Error::LengthMismatch);
        }
        if partials.iter().any(|q| q.finite > 1) {
            return Err(Error::InvalidArgument);
        }
        let up = Update::<T>::new(&self.core.cfg.step_rule, self.pending.iteration);
        let history = self.core.cfg.step_rule.has_history();
        let (c, d) = (self.own.len(), self.core.d);
        let (hist, phi, slot_rows) = particle_parts(ws, c, d, history);
        let hist = history.then_some(hist);
        let moved = if partials.iter().any(|q| q.finite == 0) {
            false
        } else if self.staged {
            // Checked in `finish`; this process's own decision, whatever its partial says.
            if self.staged_finite {
                let (new_x, new_h) = staging(slot_rows, c * d, history);
                if let Some(new_x) = new_x {
                    copy(particles, new_x);
                }
                if let Some(h) = hist {
                    copy(h, new_h);
                }
            }
            self.staged_finite
        } else {
            move_checked(&up, particles, hist, phi)
        };
        if !moved {
            self.cancel();
            return Err(Error::NonFinite);
        }
        self.stage = Stage::Idle;
        let mut stats = ForceStats::default();
        let mut interactions = 0u64;
        for q in partials {
            stats.sum += q.force_sum;
            stats.max = stats.max.max(q.force_max);
            stats.count += q.moves;
            interactions = interactions.wrapping_add(q.interactions);
        }
        let (prepared, iteration) = (self.pending.prepared, self.pending.iteration);
        Ok(self
            .core
            .info::<T>(&prepared, iteration, &stats, interactions))
    }

    /// See [`SvgdShard::cancel`].
    pub(crate) fn cancel(&mut self) {
        if self.stage != Stage::Idle {
            self.core.cancel(&self.pending);
        }
        self.stage = Stage::Idle;
    }
}

/// One iteration of the shards of a whole system held in one process (`shards[q]` process
/// `q`'s): the exchanges done by copying between them. For tests and for running a sharded
/// system on one machine without a message-passing library; a process of a distributed run
/// makes the same calls with the records sent and received in between. On error every shard's
/// iteration is cancelled. Needs the `std` feature (buffers for the records).
#[cfg(feature = "std")]
pub fn shard_iteration<T: Float, K: Kernel<T>, M: Gradient<T> + ?Sized>(
    shards: &mut [SvgdShard<'_, T, K>],
    model: &mut M,
) -> Result<SvgdInfo, Error> {
    let r = shards.len();
    let cancel_all = |shards: &mut [SvgdShard<'_, T, K>], e: Error| {
        for s in shards.iter_mut() {
            s.cancel();
        }
        Err(e)
    };
    let d = match shards.first() {
        Some(s) => s.core.core.d,
        None => return Err(Error::InvalidArgument),
    };
    // Step 1 and the first exchange.
    let mut sent: std::vec::Vec<(std::vec::Vec<u32>, std::vec::Vec<T>, std::vec::Vec<usize>)> =
        std::vec::Vec::new();
    for q in 0..r {
        let c = shards[q].core.own.len();
        let mut idx = std::vec![0u32; 2 * c];
        let mut rws = std::vec![T::ZERO; 2 * c * d];
        let mut counts = std::vec![0usize; r];
        if let Err(e) = shards[q].begin(model, &mut idx, &mut rws, &mut counts) {
            return cancel_all(shards, e);
        }
        sent.push((idx, rws, counts));
    }
    let deliver = |sent: &[(std::vec::Vec<u32>, std::vec::Vec<T>, std::vec::Vec<usize>)],
                   to: usize,
                   iw: usize,
                   w: usize| {
        let (mut idx, mut rws) = (std::vec::Vec::new(), std::vec::Vec::new());
        for (si, sr, sc) in sent {
            let at: usize = sc[..to].iter().sum();
            idx.extend_from_slice(&si[at * iw..(at + sc[to]) * iw]);
            rws.extend_from_slice(&sr[at * w..(at + sc[to]) * w]);
        }
        (idx, rws)
    };
    let mut back = std::vec::Vec::new();
    for q in 0..r {
        let (idx, rws) = deliver(&sent, q, 2, 2 * d);
        let m = shards[q].core.slots.len();
        let mut oi = std::vec![0u32; m];
        let mut or = std::vec![T::ZERO; m * d];
        let mut counts = std::vec![0usize; r];
        if let Err(e) = shards[q].forces(&idx, &rws, &mut oi, &mut or, &mut counts) {
            return cancel_all(shards, e);
        }
        back.push((oi, or, counts));
    }
    let mut partials = std::vec::Vec::new();
    for q in 0..r {
        let (idx, rws) = deliver(&back, q, 1, d);
        match shards[q].finish(&idx, &rws) {
            Ok(p) => partials.push(p),
            Err(e) => return cancel_all(shards, e),
        }
    }
    let mut info = Err(Error::InvalidArgument);
    for s in shards.iter_mut() {
        info = s.commit(&partials);
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multiply gives the quotient for every 32-bit numerator, at the edges and at random.
    #[test]
    fn divisor_is_exact() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut ds: Vec<u64> = (1..=300)
            .chain([1 << 16, (1 << 32) - 1, 641, 6_700_417])
            .collect();
        ds.extend((0..200).map(|_| next() >> 32 | 1));
        for d in ds {
            let q = Divisor::new(d as usize);
            let mut ns: Vec<u64> = vec![0, 1, d - 1, d, d + 1, (1 << 32) - 1, 1 << 32, u64::MAX];
            ns.extend((0..200).map(|_| next() >> 32));
            for n in ns {
                assert_eq!(q.div(n), n / d, "{n} / {d}");
            }
        }
    }

    /// The blocks of the largest n are exact (the 64-bit product overflowed, found by the fuzz
    /// target: fuzz/artifacts-found/shard-ranges-overflow), and the sizes saturate.
    #[test]
    fn ranges_of_the_largest_n() {
        let n = usize::MAX;
        let third = (n as u128 * 2 / 3) as usize;
        assert_eq!(particle_range(n, 3, 2), third..n);
        assert_eq!(third, 12_297_829_382_473_034_410);
        let cfg = SvgdConfig::new(
            2,
            KernelChoice::Gaussian { h: 1.0 },
            crate::StepRule::adagrad(0.1),
        );
        assert_eq!(shard_workspace_len(n - 1, 1, 1, 0, &cfg), usize::MAX);
        assert_eq!(shard_index_len(n - 1, 1, 0, &cfg), usize::MAX);
    }

    /// The owners of every slot and particle are the processes whose ranges hold them.
    #[test]
    fn owners_match_the_ranges() {
        for n in (1..60).chain([97, 256, 1001]) {
            for p in [2, 3, 8, 13].into_iter().filter(|&p| p <= n) {
                for ranks in 1..=9 {
                    let o = Owners::new(n, p, ranks);
                    for q in 0..ranks {
                        for i in particle_range(n, ranks, q) {
                            assert_eq!(o.of_particle(i as u32), q);
                            assert_eq!(block_owner(n, ranks, i), q);
                        }
                        for s in slot_range(n, p, ranks, q) {
                            assert_eq!(o.of_slot(s as u32), q, "n {n} p {p} ranks {ranks} s {s}");
                        }
                    }
                }
            }
        }
    }
}
