//! The moves of an iteration without replacement (step 4 of the module docs of [`super`]) and
//! its finish: the checked step-rule moves, made in the slot rows by the phases or in place by the
//! serial step, then scattered into particle order, and the iteration's info.

use super::config::SvgdInfo;
use super::core::{Pending, SvgdCore};
use super::force_stats::ForceStats;
use super::kernel::Kernel;
use super::ksd::{batch_value, diag_sum, full_value, off_sum, KsdChoice, Stein};
use super::layout::{slot_g, split};
use super::pairs::pairs;
use super::regions::{InPlace, InPlaceRows, Shared, SlotMoves};
use super::rows::{row, rows, rows_mut};
use super::scale;
use super::scatter::{scatter_moves, scatter_rows};
use super::shared_rows::SharedRows;
use super::step_rule::Update;
use crate::error::Error;
use crate::float::{copy, Float};

/// Moves the coordinates `x` (and their history `h`, with AdaGrad) by the step rule along the
/// parallel `phi`, if every `φ_l`, new `x_l` and new `H_l` is finite ([`moves_finite`]);
/// otherwise changes nothing and returns `false`. Called on all N rows at once (without
/// replacement: every value is checked before any particle moves) or on one row (with
/// replacement, in the working copies).
#[inline(never)]
pub(super) fn move_checked<T: Float>(
    up: &Update<T>,
    x: &mut [T],
    h: Option<&mut [T]>,
    phi: &[T],
) -> bool {
    let ok = moves_finite(up, x, h.as_deref(), phi);
    if ok {
        match (up.adagrad_constants(), h) {
            (Some(c), Some(h)) => {
                for ((xl, hl), &pl) in x.iter_mut().zip(h.iter_mut()).zip(phi) {
                    (*xl, *hl) = up.adagrad(c, *xl, *hl, pl);
                }
            }
            _ => {
                for (xl, &pl) in x.iter_mut().zip(phi) {
                    *xl = up.plain(*xl, pl);
                }
            }
        }
    }
    ok
}

/// Whether the step rule's moves of `x` (history `h` with AdaGrad) along `phi` are all finite:
/// every `φ_l`, new `x_l` and new `H_l` ([`move_checked`]'s decision; a shard's `finish` makes
/// it before any process moves).
#[inline(always)]
pub(super) fn moves_finite<T: Float>(up: &Update<T>, x: &[T], h: Option<&[T]>, phi: &[T]) -> bool {
    match (up.adagrad_constants(), h) {
        (Some(c), Some(h)) => x.iter().zip(h).zip(phi).all(|((&xl, &hl), &pl)| {
            let (xn, hn) = up.adagrad(c, xl, hl, pl);
            pl.is_finite() && xn.is_finite() && hn.is_finite()
        }),
        // Without history the "new H" is the 0 the rule ignores: always finite.
        _ => x
            .iter()
            .zip(phi)
            .all(|(&xl, &pl)| pl.is_finite() && up.plain(xl, pl).is_finite()),
    }
}

/// The step rule's moves of `x` (history `h` with AdaGrad) along `phi` written to `new_x` (and
/// `new_h`; untouched without history), nothing else: [`move_checked`]'s arithmetic, and its
/// decision returned (every `φ_l`, new `x_l` and new `H_l` finite). A shard's `finish` stages
/// its moves with it, so that `commit` copies them instead of computing them again.
pub(super) fn moves_into<T: Float>(
    up: &Update<T>,
    x: &[T],
    h: Option<&[T]>,
    phi: &[T],
    new_x: &mut [T],
    new_h: &mut [T],
) -> bool {
    let mut ok = true;
    match (up.adagrad_constants(), h) {
        (Some(c), Some(h)) => {
            let news = new_x.iter_mut().zip(new_h.iter_mut());
            for (((&xl, &hl), &pl), (nx, nh)) in x.iter().zip(h).zip(phi).zip(news) {
                let (xn, hn) = up.adagrad(c, xl, hl, pl);
                (*nx, *nh) = (xn, hn);
                ok &= pl.is_finite() & xn.is_finite() & hn.is_finite();
            }
        }
        _ => {
            for ((&xl, &pl), nx) in x.iter().zip(phi).zip(new_x.iter_mut()) {
                *nx = up.plain(xl, pl);
                ok &= pl.is_finite() & nx.is_finite();
            }
        }
    }
    ok
}

/// The moves of the slots whose particles are `perm` (one entry per slot), forces in `phi`
/// (slot rows): from each slot's position (its row of `xs`, the gathered `X_{perm[s]}`) and
/// history (row `perm[s]` of `hist`, by particle; empty without AdaGrad) the step rule's new
/// position goes into the `xs` row and the new history into the `g` row (the gradients are
/// spent). Nothing else is written: the particles and the history move in
/// [`SvgdCore::finish`], all at once, only if every range returned `true` (every φ, new position
/// and new history value finite). The arithmetic is [`move_checked`]'s. `d = 1`, the cheap
/// case where loop overhead would dominate, has a loop of its own (same operations).
#[inline(never)]
pub(super) fn move_slots<T: Float>(
    up: &Update<T>,
    hist: &[T],
    perm: &[u32],
    xs: &mut [T],
    g: &mut [T],
    phi: &[T],
    d: usize,
) -> bool {
    let mut finite = perm.len().wrapping_mul(d) == xs.len();
    let Some(c) = up.adagrad_constants() else {
        for (xl, &pl) in xs.iter_mut().zip(phi) {
            let xn = up.plain(*xl, pl);
            finite &= pl.is_finite() & xn.is_finite();
            *xl = xn;
        }
        return finite;
    };
    if d == 1 {
        for (((xl, gl), &pl), &i) in xs.iter_mut().zip(g.iter_mut()).zip(phi).zip(perm) {
            let Some(&hl) = hist.get(i as usize) else {
                finite = false;
                continue;
            };
            let (xn, hn) = up.adagrad(c, *xl, hl, pl);
            finite &= pl.is_finite() & xn.is_finite() & hn.is_finite();
            (*xl, *gl) = (xn, hn);
        }
        return finite;
    }
    for (((x, h), p), &i) in rows_mut(xs, d)
        .zip(rows_mut(g, d))
        .zip(rows(phi, d))
        .zip(perm)
    {
        let hi = row(hist, i as usize, d);
        finite &= hi.len() == d;
        for (((xl, gl), &pl), &hl) in x.iter_mut().zip(h.iter_mut()).zip(p).zip(hi) {
            let (xn, hn) = up.adagrad(c, *xl, hl, pl);
            finite &= pl.is_finite() & xn.is_finite() & hn.is_finite();
            (*xl, *gl) = (xn, hn);
        }
    }
    finite
}

/// The moves in place of a range of slots (the serial step's: all of them), [`move_slots`]'s
/// arithmetic and checks, written straight into particle `perm[s]`'s position and history, and
/// φ into row `perm[s]` of `by_particle`. Slot `s`'s old values stay for a rollback: the
/// position in its `xs` row (gathered there), the history in its `phi` row once φ is read. If
/// any φ or new value is not finite, the old values are copied back (all the range's slots) and
/// `false` returned: as if nothing moved (`by_particle` and `phi` are then scratch). One pass
/// instead of [`move_slots`], [`scatter_moves`] and φ's copy: each particle's history line is
/// written while it is still in the cache.
///
/// # Safety
/// The rows of particles `perm` in the three [`SharedRows`] are this call's alone while it runs
/// (the serial step owns them all; a range of the phases owns its own particles: `perm` is its
/// slots' part of a permutation).
#[inline(never)]
pub(super) unsafe fn move_in_place<T: Float>(up: &Update<T>, at: InPlaceRows<'_, T>) -> bool {
    let InPlaceRows {
        particles,
        hist,
        by_particle,
        perm,
        xs,
        phi,
        d,
    } = at;
    let mut finite = perm.len().wrapping_mul(d) == xs.len() && xs.len() == phi.len();
    match up.adagrad_constants() {
        None => {
            for ((x, p), &i) in rows(xs, d).zip(rows(phi, d)).zip(perm) {
                // SAFETY: the caller's contract; one row of each buffer at a time.
                let (xt, ft) = unsafe {
                    (
                        particles.row_mut(i as usize),
                        by_particle.row_mut(i as usize),
                    )
                };
                finite &= xt.len() == d && ft.len() == d;
                for (((t, f), &xl), &pl) in xt.iter_mut().zip(ft).zip(x).zip(p) {
                    let xn = up.plain(xl, pl);
                    finite &= pl.is_finite() & xn.is_finite();
                    (*t, *f) = (xn, pl);
                }
            }
        }
        Some(c) if d == 1 => {
            for ((&xl, pl), &i) in xs.iter().zip(phi.iter_mut()).zip(perm) {
                let i = i as usize;
                // SAFETY: the caller's contract; one row of each buffer at a time.
                let (xt, ht, ft) = unsafe {
                    (
                        particles.row_mut(i),
                        hist.row_mut(i),
                        by_particle.row_mut(i),
                    )
                };
                let (Some(xt), Some(ht), Some(ft)) =
                    (xt.first_mut(), ht.first_mut(), ft.first_mut())
                else {
                    finite = false;
                    continue;
                };
                let (hl, p) = (*ht, *pl);
                let (xn, hn) = up.adagrad(c, xl, hl, p);
                finite &= p.is_finite() & xn.is_finite() & hn.is_finite();
                (*xt, *ht, *ft, *pl) = (xn, hn, p, hl);
            }
        }
        Some(c) => {
            for ((x, p), &i) in rows(xs, d).zip(rows_mut(phi, d)).zip(perm) {
                let i = i as usize;
                // SAFETY: the caller's contract; one row of each buffer at a time.
                let (xt, ht, ft) = unsafe {
                    (
                        particles.row_mut(i),
                        hist.row_mut(i),
                        by_particle.row_mut(i),
                    )
                };
                finite &= xt.len() == d && ht.len() == d && ft.len() == d;
                for ((((t, hl), f), &xl), pl) in xt.iter_mut().zip(ht).zip(ft).zip(x).zip(p) {
                    let (xn, hn) = up.adagrad(c, xl, *hl, *pl);
                    finite &= pl.is_finite() & xn.is_finite() & hn.is_finite();
                    (*t, *f, *pl, *hl) = (xn, *pl, *hl, hn);
                }
            }
        }
    }
    if !finite {
        // SAFETY: the caller's contract, as above.
        unsafe { restore(particles, hist, xs, phi, perm, d) };
    }
    finite
}

/// Puts back the old positions (rows of `xs`) and histories (rows of `hs`; none without
/// AdaGrad) of particles `perm` after moves in place ([`move_in_place`]).
///
/// # Safety
/// As for [`move_in_place`].
pub(crate) unsafe fn restore<T: Float>(
    particles: SharedRows<'_, T>,
    hist: SharedRows<'_, T>,
    xs: &[T],
    hs: &[T],
    perm: &[u32],
    d: usize,
) {
    for ((x, h), &i) in rows(xs, d).zip(rows(hs, d)).zip(perm) {
        // SAFETY: the caller's contract; one row of each buffer at a time.
        let (xt, ht) = unsafe { (particles.row_mut(i as usize), hist.row_mut(i as usize)) };
        copy(xt, x);
        // Without AdaGrad `ht` is empty: nothing copied.
        copy(ht, h);
    }
}

impl<K> SvgdCore<K> {
    /// Whether the batch ranges (and forces put in from elsewhere) also compute the moves, so
    /// that [`finish`](Self::finish) only scatters them: always, except with the KSD on, which
    /// needs the slots' positions and gradients in `finish` (the rows the moves overwrite).
    pub(crate) fn moves_in_ranges(&self) -> bool {
        !cfg!(feature = "ksd") || self.cfg.ksd == KsdChoice::Off
    }

    /// [`move_range`](Self::move_range) over all slots of the workspace `ws`: the serial step's
    /// on bare metal ([`MOVE_IN_PLACE`](super::core::MOVE_IN_PLACE)). A call of its own with few arguments, so that the
    /// serial step's frame, which is on the deepest stack path, does not hold `move_range`'s
    /// many (docs/footprint.md).
    #[inline(never)]
    pub(super) fn move_all_slots<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        particles: &[T],
        ws: &mut [T],
        perm: &[u32],
    ) -> bool
    where
        K: Kernel<T>,
    {
        let parts = split(ws, &self.lay);
        let shared = Shared {
            particles,
            perm,
            hist: parts.hist,
            sc: parts.scale,
        };
        let g = slot_g(parts.grads, parts.sgrads);
        self.moves_of(pending, &shared, 0, parts.xbatch, g, parts.force)
    }

    /// The serial step's moves of all slots, straight into the particles and the history
    /// ([`move_in_place`]; the parallel phases' ranges cannot, as they may fail after other
    /// ranges moved). Returns `false`, with the particles and the history as before, if a value
    /// was not finite. A call of its own with few arguments, so that the serial step's frame,
    /// which is on the deepest stack path, does not hold the moves' many (docs/footprint.md).
    #[inline(never)]
    pub(super) fn move_all<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        particles: &mut [T],
        ws: &mut [T],
        perm: &[u32],
    ) -> bool
    where
        K: Kernel<T>,
    {
        let up = Update::<T>::new(&self.cfg.step_rule, pending.iteration);
        let parts = split(ws, &self.lay);
        if self.cfg.scale.on() {
            let at = InPlace {
                particles,
                hist: parts.hist,
                perm,
                xs: parts.xbatch,
                phi: parts.force,
                by_particle: parts.grads,
                d: self.d,
            };
            return scale::move_in_place(&up, parts.scale, at);
        }
        let at = InPlaceRows {
            particles: SharedRows::new(particles, self.d),
            hist: SharedRows::new(parts.hist, self.d),
            by_particle: SharedRows::new(parts.grads, self.d),
            perm,
            xs: parts.xbatch,
            phi: parts.force,
            d: self.d,
        };
        // SAFETY: the three buffers are borrowed whole by this call.
        unsafe { move_in_place(&up, at) }
    }

    /// When the ranges move in place ([`in_place_ranges`](Self::in_place_ranges)), the end of
    /// phase 3 (and of forces put in from elsewhere): the moves of a range of slots in place
    /// ([`move_in_place`]). Returns whether every φ and new value was finite; if not, the
    /// range's particles are as before.
    ///
    /// # Safety
    /// As for [`move_in_place`]: the rows of the range's particles are this call's alone.
    #[cfg(feature = "ffi")]
    pub(crate) unsafe fn move_range_in_place<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        at: InPlaceRows<'_, T>,
    ) -> bool
    where
        K: Kernel<T>,
    {
        let up = Update::<T>::new(&self.cfg.step_rule, pending.iteration);
        // SAFETY: the caller's contract.
        unsafe { move_in_place(&up, at) }
    }

    /// Without replacement, the end of phase 3 (and of forces put in from elsewhere): when the
    /// iteration [`moves_in_ranges`](Self::moves_in_ranges), the moves of slots
    /// `first .. first + xs.len()/d`, whose positions, gradients and forces are the rows of
    /// `xs`, `g`, `phi`, by [`move_slots`] (new positions into `xs`, new histories into `g`);
    /// `hist` (by particle) and `perm` are only read. With the scale option on, by
    /// [`scale::move_slots`]: the old positions are read from `particles` (the slot rows hold
    /// `u`), the scales from `sc` (the workspace's scale region); both are only read, and
    /// ignored when the option is off. Returns whether every φ and new value was finite
    /// (`true` when the moves are left to [`finish`](Self::finish)). Writes nothing else:
    /// disjoint ranges may run concurrently.
    #[inline(never)]
    pub(crate) fn move_range<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        shared: Shared<'_, T>,
        first: usize,
        xs: &mut [T],
        g: &mut [T],
        phi: &[T],
    ) -> bool
    where
        K: Kernel<T>,
    {
        self.moves_of(pending, &shared, first, xs, g, phi)
    }

    /// The body of [`move_range`](Self::move_range), inlined into it and into
    /// [`move_all_slots`](Self::move_all_slots) (where `shared` is then no aggregate in memory:
    /// 96 bytes less code on Cortex-M than passing one).
    #[inline(always)]
    fn moves_of<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        shared: &Shared<'_, T>,
        first: usize,
        xs: &mut [T],
        g: &mut [T],
        phi: &[T],
    ) -> bool
    where
        K: Kernel<T>,
    {
        if !self.moves_in_ranges() {
            return true;
        }
        let up = Update::<T>::new(&self.cfg.step_rule, pending.iteration);
        let end = first.saturating_add(xs.len() / self.d.max(1));
        let Shared {
            particles,
            perm,
            hist,
            sc,
        } = *shared;
        let slots = perm.get(first..end).unwrap_or(&[]);
        if self.cfg.scale.on() {
            let moves = SlotMoves {
                hist,
                perm: slots,
                xs,
                g,
                phi,
                d: self.d,
            };
            return scale::move_slots(&up, sc, particles, moves);
        }
        move_slots(&up, hist, slots, xs, g, phi, self.d)
    }

    /// Without replacement, phase 4 (finish). When the ranges computed the moves
    /// ([`moves_in_ranges`](Self::moves_in_ranges)), the caller has checked that every range
    /// found its moves finite (else it cancels: [`Error::NonFinite`]); this scatters the new
    /// positions and histories from slot order into the particles and the history, a copy with
    /// no arithmetic. (The verdict is not an argument: one more would grow the serial step's
    /// frame, on the deepest stack path.) Otherwise (the KSD on): computes the KSD from the
    /// slots' positions and gradients, then checks every new value and moves all particles at
    /// once. Either way it then scatters φ from slot order into the gradient region in particle
    /// order ([`force_range`](Self::force_range) then shows φ by particle) and sums the
    /// statistics in particle order. On `Err` ([`Error::NonFinite`]) nothing moved and the
    /// generator is restored. The pending iteration is borrowed, so it is not copied onto the
    /// stack.
    ///
    /// Two calls, inlined into its callers: the KSD (NaN at once when off; before anything
    /// overwrites the slots' positions and gradients), then [`finish_with`](Self::finish_with),
    /// the rest. So the KSD's chain and the rest's start from the caller's frame, neither on top
    /// of the other nor of a frame of this function's own (docs/footprint.md).
    #[inline(always)]
    pub(crate) fn finish<T: Float>(
        &mut self,
        pending: &Pending<K::Prepared, T>,
        particles: &mut [T],
        ws: &mut [T],
        perm: &[u32],
    ) -> Result<SvgdInfo, Error>
    where
        K: Kernel<T>,
    {
        let parts = split(ws, &self.lay);
        let ksd = self.ksd_of_iteration(parts.xbatch, slot_g(parts.grads, parts.sgrads));
        self.finish_with(pending, particles, ws, perm, ksd)
    }

    /// [`finish`](Self::finish) after the KSD, with its value `ksd` (the C API passes NaN for
    /// an iteration some of whose slots' forces were put in from elsewhere).
    #[inline(never)]
    pub(crate) fn finish_with<T: Float>(
        &mut self,
        pending: &Pending<K::Prepared, T>,
        particles: &mut [T],
        ws: &mut [T],
        perm: &[u32],
        ksd: f64,
    ) -> Result<SvgdInfo, Error>
    where
        K: Kernel<T>,
    {
        let d = self.d;
        let parts = split(ws, &self.lay);
        let ksd = if self.moves_in_ranges() {
            // The new histories are in the spent gradient rows (by slot).
            let hs = slot_g(&mut *parts.grads, &mut *parts.sgrads);
            scatter_moves(particles, parts.hist, parts.xbatch, hs, perm, d);
            scatter_rows(parts.grads, parts.force, perm, d);
            f64::NAN
        } else {
            // φ overwrites the gradients now: the KSD read them before, in `finish`.
            scatter_rows(parts.grads, parts.force, perm, d);
            // The particles, φ (by particle) and the history are parallel N·d arrays: checked,
            // then moved, whole.
            let up = Update::<T>::new(&self.cfg.step_rule, pending.iteration);
            let hist = if self.cfg.step_rule.has_history() {
                Some(parts.hist)
            } else {
                None
            };
            let moved = if self.cfg.scale.on() {
                scale::move_checked(&up, parts.scale, particles, hist, parts.grads, d)
            } else {
                move_checked(&up, particles, hist, parts.grads)
            };
            if !moved {
                self.cancel(pending);
                return Err(Error::NonFinite);
            }
            ksd
        };
        // Kept in the core until `info` builds the record: no extra info on this frame.
        self.ksd_pending = ksd;
        Ok(self.finish_info(pending, parts.grads))
    }

    /// The serial step's finish after [`move_all`](Self::move_all) moved the particles and put
    /// φ by particle into the gradient region: the statistics (as
    /// [`finish_with`](Self::finish_with) after its copies; no KSD: the moves in place are
    /// made only with the KSD off).
    #[inline(never)]
    pub(crate) fn finish_moved<T: Float>(
        &mut self,
        pending: &Pending<K::Prepared, T>,
        ws: &mut [T],
    ) -> SvgdInfo
    where
        K: Kernel<T>,
    {
        let parts = split(ws, &self.lay);
        self.ksd_pending = f64::NAN;
        self.finish_info(pending, parts.grads)
    }

    /// The statistics of φ (by particle, in `phi`), summed in particle order, and the info.
    /// Inlined into both finishes: a frame of its own under `finish_with` would deepen the
    /// KSD's stack path (docs/footprint.md).
    #[inline(always)]
    pub(super) fn finish_info<T: Float>(
        &mut self,
        pending: &Pending<K::Prepared, T>,
        phi: &[T],
    ) -> SvgdInfo
    where
        K: Kernel<T>,
    {
        let mut stats = ForceStats::default();
        stats.add_rows(phi, self.d);
        // Every batch but the last has p members, the last the rest.
        let nb = self.batches();
        let last = self.n - self.batch_start(nb.saturating_sub(1));
        let interactions = (nb.saturating_sub(1) as u64) * pairs(self.cfg.batch_size) + pairs(last);
        self.info(&pending.prepared, pending.iteration, &stats, interactions)
    }
}

impl<K> SvgdCore<K> {
    /// The KSD² the configuration asks for, of the particles at the start of the iteration,
    /// from the iteration's positions and gradients stored by permutation slot (so batch `b` is
    /// slots `b·p ..`, and the sums run over slots): call in `finish`, before the move. NaN when
    /// off. Draws nothing. The same operations in the same order as [`ksd_full`](super::ksd_full) and
    /// [`ksd_batch`](super::ksd_batch) (with the slots' permutation): a batch's members are consecutive slots, so
    /// its pair sum is [`off_sum`] over its rows.
    ///
    /// On the stack (it runs inside `finish`): this frame holds the kernel's constants and the
    /// batch loop; the diagonal and the pair sums are calls of their own (docs/footprint.md).
    #[inline(never)]
    pub(crate) fn ksd_of_iteration<T: Float>(&self, xslots: &[T], gslots: &[T]) -> f64 {
        if !cfg!(feature = "ksd") {
            // Refused by `validate`; returning here lets the linker drop the sums.
            return f64::NAN;
        }
        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);
        let (k, full) = match self.cfg.ksd {
            KsdChoice::Off => return f64::NAN,
            KsdChoice::Full(k) => (k, true),
            KsdChoice::Batch(k) => (k, false),
        };
        let st = Stein::new(&k, d);
        let diag = diag_sum(&st, xslots, gslots, d);
        if full {
            return full_value(diag, off_sum(&st, xslots, gslots, d), n);
        }
        batch_value(n, p, diag, |start, end| {
            // Rows `start..end` (always inside: `end ≤ n`); the (unreachable) failure of the
            // checked `get`s gives empty rows instead of a panic path.
            let rows = start.wrapping_mul(d)..end.wrapping_mul(d);
            let xb = xslots.get(rows.clone()).unwrap_or_default();
            let gb = gslots.get(rows).unwrap_or_default();
            off_sum(&st, xb, gb, d)
        })
    }
}
