//! The sampler's state apart from its buffers ([`SvgdCore`], plain data that the C API keeps in
//! caller memory): validation, the iteration without replacement and its first three phases
//! (module docs of [`super`]); the moves and the finish are in [`super::moves`], the iteration
//! with replacement in [`super::replacement`].

use super::config::{Batching, SvgdConfig, SvgdInfo};
use super::force_stats::ForceStats;
use super::kernel::Kernel;
use super::ksd::KsdChoice;
use super::layout::{in_place_ranges, slot_g, split, Layout};
use super::pairs::{batch_force, finish_force, lanes, pairs, Batch, Weights, TILE};
#[cfg(feature = "ffi")]
use super::permutation::Feistel;
use super::permutation::{feistel_fill, shuffle_prefix, Permutation};
use super::regions::Shared;
use super::rows::{row, rows, rows_mut, slot_rows};
use super::scale::{self, Scale};
#[cfg(feature = "ffi")]
use super::shared_rows::SharedRows;
use super::step_rule::UNSET;
use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;
use crate::rng::{Checkpoint, Rng};
use core::ops::Range;

/// Whether the serial step moves the particles in place ([`move_in_place`](super::moves::move_in_place): hosts, where it
/// saves two passes of random writes through the permutation, 5–11 % of an RBM-SVGD p = 8
/// iteration) or as the phases do, into the slot rows and then copied in `finish`
/// (bare metal: without caches to save, the in-place copy is only more flash, 320 bytes in the
/// `f64` Cortex-M4F firmware, which would take RBM-SVGD past its flash budget (docs/footprint.md)). The same
/// operations on the same values either way, so the same bits; test-firmware compares the
/// two builds.
pub(super) const MOVE_IN_PLACE: bool = crate::arch::HOSTED;

/// Maps a gradient callback's refusal to the step's error.
pub(super) fn refusal(stop: Stop) -> Error {
    match stop {
        Stop::Abort => Error::CallbackAborted,
        Stop::Reject => Error::GradientRejected,
    }
}

/// An iteration between its start (seed, permutation, kernel preparation) and its move: what
/// every later phase reads. Plain data, so the C API keeps it in the state.
#[derive(Clone, Debug)]
pub(crate) struct Pending<P, T> {
    pub(super) saved: Checkpoint,
    pub(super) iteration: u64,
    pub(super) seed: u64,
    pub(super) prepared: P,
    pub(super) weights: Weights<T>,
}

/// Everything but the buffers: plain data, so the C API can keep it in caller memory.
#[derive(Clone, Debug)]
pub(crate) struct SvgdCore<K> {
    pub(crate) n: usize,
    pub(crate) d: usize,
    pub(super) cfg: SvgdConfig<K>,
    pub(super) lay: Layout,
    pub(super) total: usize,
    pub(super) rng: Rng,
    pub(super) iterations: u64,
    /// The KSD² of the iteration under way, for its info (NaN when off or none pending).
    pub(super) ksd_pending: f64,
}

impl<K> SvgdCore<K> {
    /// Validates everything, then (only then) initialises the history and the index slice.
    pub(crate) fn new<T: Float>(
        cfg: &SvgdConfig<K>,
        d: usize,
        particles: &[T],
        ws: &mut [T],
        idx: &mut [u32],
    ) -> Result<Self, Error>
    where
        K: Kernel<T> + Clone,
    {
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        if particles.is_empty() {
            return Err(Error::ZeroParticles);
        }
        if !particles.len().is_multiple_of(d) {
            return Err(Error::LengthMismatch);
        }
        let n = particles.len() / d;
        let core = Self::validated(cfg, n, d)?;
        if ws.len() < core.total || idx.len() < n {
            return Err(Error::WorkspaceTooSmall);
        }
        if !all_finite(particles) {
            return Err(Error::InvalidPosition);
        }
        let parts = split(ws, &core.lay);
        parts.hist.fill(T::from_f64(UNSET));
        if cfg.scale.on() {
            // The scales start at 1 (what `Fixed` uses until set), the centres at 0.
            let (s, c) = parts.scale.split_at_mut(parts.scale.len() / 2);
            s.fill(T::from_f64(1.0));
            c.fill(T::ZERO);
        }
        for (t, v) in idx[..n].iter_mut().enumerate() {
            *v = t as u32;
        }
        Ok(core)
    }

    /// The checks of [`new`](Self::new) that need no buffer (`n ≥ 1` particles, `d ≥ 1`), in
    /// its order, and the core for `n` particles: also the state of a
    /// [`SvgdShard`](super::SvgdShard), which holds only some of them.
    pub(super) fn validated<T: Float>(
        cfg: &SvgdConfig<K>,
        n: usize,
        d: usize,
    ) -> Result<Self, Error>
    where
        K: Kernel<T> + Clone,
    {
        if n > u32::MAX as usize {
            return Err(Error::InvalidArgument);
        }
        if cfg.batch_size < 2 || cfg.batch_size > n {
            return Err(Error::InvalidBatchSize);
        }
        cfg.kernel.validate()?;
        cfg.step_rule.validate::<T>()?;
        cfg.ksd.validate()?;
        cfg.scale.validate()?;
        cfg.anneal.validate()?;
        // With replacement no moment has all N gradients at one set of positions, and its
        // sub-steps draw their batches one by one (no permutation of all N to choose).
        if (cfg.ksd != KsdChoice::Off || cfg.permutation != Permutation::Shuffle)
            && cfg.batching == Batching::WithReplacement
        {
            return Err(Error::InvalidOption);
        }
        let lay = Layout::new(n, d, cfg).ok_or(Error::WorkspaceTooSmall)?;
        let total = lay.total().ok_or(Error::WorkspaceTooSmall)?;
        Ok(SvgdCore {
            n,
            d,
            cfg: cfg.clone(),
            lay,
            total,
            rng: Rng::new(cfg.seed, cfg.stream),
            iterations: 0,
            ksd_pending: f64::NAN,
        })
    }

    pub(crate) fn config(&self) -> &SvgdConfig<K> {
        &self.cfg
    }

    pub(crate) fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Sets the batch size p for the next iterations (without replacement only, where the
    /// workspace does not depend on p): [`Error::InvalidOption`] with replacement,
    /// [`Error::InvalidBatchSize`] unless `2 ≤ p ≤ N`; nothing changes on error.
    pub(crate) fn set_batch_size(&mut self, p: usize) -> Result<(), Error> {
        if self.cfg.batching != Batching::WithoutReplacement {
            return Err(Error::InvalidOption);
        }
        if p < 2 || p > self.n {
            return Err(Error::InvalidBatchSize);
        }
        self.cfg.batch_size = p;
        Ok(())
    }

    /// Sets the fixed scales `s` ([`Scale::Fixed`] only: [`Error::InvalidOption`] otherwise;
    /// [`Error::LengthMismatch`] unless `d` values; [`Error::InvalidArgument`] unless each is
    /// finite and positive) in the workspace `ws`; nothing changes on error.
    pub(crate) fn set_scale<T: Float>(&self, ws: &mut [T], s: &[T]) -> Result<(), Error> {
        if self.cfg.scale != Scale::Fixed || !self.cfg.scale.on() {
            return Err(Error::InvalidOption);
        }
        scale::check_fixed(s, self.d)?;
        if ws.len() < self.total {
            return Err(Error::WorkspaceTooSmall);
        }
        copy(split(ws, &self.lay).scale, s);
        Ok(())
    }

    /// The scale region of the workspace (`s` then `c`, `d` each; empty when off), offset and
    /// length.
    pub(crate) fn scale_range(&self) -> (usize, usize) {
        let l = &self.lay;
        let off = [
            l.grads, l.force, l.hist, l.xbatch, l.xwork, l.hwork, l.scratch,
        ]
        .iter()
        .fold(0usize, |a, &b| a.saturating_add(b));
        (off, l.scale)
    }

    /// Number of batches (without replacement) or sub-steps (with replacement).
    pub(crate) fn batches(&self) -> usize {
        self.n.checked_div(self.cfg.batch_size).unwrap_or(0)
    }

    #[cfg(feature = "ffi")]
    /// The workspace length this system needs (its layout's total).
    pub(crate) fn workspace_needed(&self) -> usize {
        self.total
    }

    /// The φ region of the workspace after an iteration, offset and length: without replacement
    /// the gradient region, where [`finish`](Self::finish) leaves φ in particle order; with
    /// replacement the last sub-step's batch forces.
    pub(crate) fn force_range(&self) -> (usize, usize) {
        match self.cfg.batching {
            Batching::WithoutReplacement => (0, self.lay.grads),
            Batching::WithReplacement => (self.lay.grads, self.lay.force),
        }
    }

    /// Without replacement: the workspace offsets of the slot-ordered regions an iteration's
    /// phases work on, `[positions, gradients, forces]` (each N·d long). Slot `s` holds
    /// particle `perm[s]`; batch `b` is slots [`batch_rows`](Self::batch_rows)`(b)`.
    #[cfg(any(feature = "ffi", test))]
    pub(crate) fn slot_offsets(&self) -> [usize; 3] {
        let l = &self.lay;
        // The gradients by slot are the last region when the ranges move in place.
        let g = if l.sgrads > 0 {
            self.total - l.sgrads
        } else {
            0
        };
        [l.grads + l.force + l.hist, g, l.grads]
    }

    /// Whether the phases' ranges move their particles in place ([`in_place_ranges`]).
    pub(crate) fn in_place_ranges(&self) -> bool {
        in_place_ranges(&self.cfg)
    }

    /// The slots of batch `b` (`start..end`): `b·p .. b·p + p`, the last batch also the
    /// `N mod p` left over. `None` past the last batch.
    pub(crate) fn batch_rows(&self, b: usize) -> Option<(usize, usize)> {
        let nb = self.batches();
        (b < nb).then(|| (self.batch_start(b), self.batch_start(b + 1)))
    }

    /// The batching the system was started with.
    #[cfg(feature = "ffi")]
    pub(crate) fn batching(&self) -> Batching {
        self.cfg.batching
    }

    /// The first slot of batch `b` (`N` for `b ≥` the number of batches).
    pub(crate) fn batch_start(&self, b: usize) -> usize {
        if b >= self.batches() {
            self.n
        } else {
            b * self.cfg.batch_size
        }
    }

    /// Phase 1 over whole buffers: checks them (as [`step`](Self::step) does), refuses a system
    /// with replacement ([`Error::InvalidOption`]: its sub-steps are sequential), then
    /// [`begin`](Self::begin) with the permutation in `idx[..N]` (none with `defer` when the
    /// ranges move in place: they evaluate it,
    /// [`gradient_rows_in_place`](Self::gradient_rows_in_place)).
    pub(crate) fn begin_phases<T: Float>(
        &mut self,
        particles: &[T],
        ws: &mut [T],
        idx: &mut [u32],
        defer: bool,
    ) -> Result<Pending<K::Prepared, T>, Error>
    where
        K: Kernel<T>,
    {
        // `defer`: the C phases' ranges move in place and each evaluates its own slots'
        // permutation and checks its own particles' positions; `begin` then draws the key
        // alone (a Feistel fill of no slots) and reads no particle (but for a data-dependent
        // bandwidth).
        let deferred = defer && self.in_place_ranges();
        self.check_lengths(particles, ws, idx)?;
        if !deferred && !all_finite(particles) {
            return Err(Error::InvalidPosition);
        }
        if self.cfg.batching != Batching::WithoutReplacement {
            return Err(Error::InvalidOption);
        }
        let perm = idx.get_mut(..self.n).ok_or(Error::WorkspaceTooSmall)?;
        let fill = if deferred { &mut [] } else { perm };
        self.begin(particles, ws, fill)
    }

    /// The Feistel bijection of a begun iteration (its key is the draw after the seed).
    #[cfg(feature = "ffi")]
    pub(crate) fn feistel<P, T>(&self, pending: &Pending<P, T>) -> Feistel {
        let mut rng = self.rng.clone();
        rng.restore(pending.saved);
        let _seed = rng.next_u64();
        Feistel::new(rng.next_u64(), self.n as u64)
    }

    pub(super) fn check<T: Float>(
        &self,
        particles: &[T],
        ws: &[T],
        idx: &[u32],
    ) -> Result<(), Error> {
        self.check_lengths(particles, ws, idx)?;
        if !all_finite(particles) {
            return Err(Error::InvalidPosition);
        }
        Ok(())
    }

    /// [`check`](Self::check) without the positions' finiteness.
    fn check_lengths<T>(&self, particles: &[T], ws: &[T], idx: &[u32]) -> Result<(), Error> {
        if particles.len() != self.n * self.d {
            return Err(Error::LengthMismatch);
        }
        if ws.len() < self.total || idx.len() < self.n {
            return Err(Error::WorkspaceTooSmall);
        }
        Ok(())
    }

    /// One iteration. On `Err` the particles, the history and the generator are unchanged.
    pub(crate) fn step<T: Float, M: Gradient<T> + ?Sized>(
        &mut self,
        particles: &mut [T],
        ws: &mut [T],
        idx: &mut [u32],
        model: &mut M,
    ) -> Result<SvgdInfo, Error>
    where
        K: Kernel<T>,
    {
        self.check(particles, ws, idx)?;
        match self.cfg.batching {
            Batching::WithoutReplacement => {
                self.step_without_replacement(particles, ws, idx, model)
            }
            Batching::WithReplacement => self.step_with_replacement(particles, ws, idx, model),
        }
    }

    /// Algorithm 3: the four phases below in turn (one gradient range over all slots, one
    /// batch range over all batches), the moves made in place ([`move_all`](Self::move_all))
    /// on hosts unless the KSD needs the slot rows. Each phase is a function of its own, never
    /// inlined, so that their locals do not pile up in one frame (docs/footprint.md).
    #[inline(never)]
    pub(super) fn step_without_replacement<T: Float, M: Gradient<T> + ?Sized>(
        &mut self,
        particles: &mut [T],
        ws: &mut [T],
        idx: &mut [u32],
        model: &mut M,
    ) -> Result<SvgdInfo, Error>
    where
        K: Kernel<T>,
    {
        let perm = idx.get_mut(..self.n).ok_or(Error::WorkspaceTooSmall)?;
        // Borrowed out of `begin`'s result where it was returned: `?` would move it into a
        // second copy on this frame (88 bytes on a Cortex-M in `f64`, on the deepest path).
        let begun = self.begin(particles, ws, perm);
        let pending = match &begun {
            Ok(pending) => pending,
            Err(e) => return Err(*e),
        };
        if let Err(e) = self.gradients_all(pending, particles, ws, perm, model) {
            self.cancel(pending);
            return Err(e);
        }
        let parts = split(ws, &self.lay);
        self.batch_forces(
            pending,
            0,
            self.batches(),
            parts.xbatch,
            slot_g(parts.grads, parts.sgrads),
            parts.force,
        );
        // One call of `finish` (inlined, with the KSD's chain): a second would deepen this
        // frame on the deepest stack path. On bare metal this is the phases' way alone.
        let in_place = MOVE_IN_PLACE && self.moves_in_ranges();
        let moved = if in_place {
            self.move_all(pending, particles, ws, perm)
        } else {
            self.move_all_slots(pending, particles, ws, perm)
        };
        if !moved {
            self.cancel(pending);
            return Err(Error::NonFinite);
        }
        if in_place {
            return Ok(self.finish_moved(pending, ws));
        }
        self.finish(pending, particles, ws, perm)
    }

    /// Without replacement, phase 1 (begin): draws the minibatch seed, then the permutation
    /// into `perm` (N entries), and prepares the kernel (with the workspace `ws`'s kernel
    /// scratch). With the scale option on, first the iteration's centre and scale (into the
    /// workspace's scale region), and the kernel is prepared from the standardised positions
    /// (written, in particle order, into the slot positions' rows, which the gradient phase
    /// overwrites). On `Err` the generator is restored.
    #[inline(never)]
    pub(crate) fn begin<T: Float>(
        &mut self,
        particles: &[T],
        ws: &mut [T],
        perm: &mut [u32],
    ) -> Result<Pending<K::Prepared, T>, Error>
    where
        K: Kernel<T>,
    {
        let saved = self.rng.checkpoint();
        let seed = self.rng.next_u64();
        match self.cfg.permutation {
            Permutation::Shuffle => {
                for (t, v) in perm.iter_mut().enumerate() {
                    *v = t as u32;
                }
                shuffle_prefix(&mut self.rng, perm, self.n - 1);
            }
            Permutation::Feistel => feistel_fill(&mut self.rng, perm),
        }
        let parts = split(ws, &self.lay);
        let prepared = if self.cfg.scale.on() {
            scale::begin(self.cfg.scale, particles, self.d, parts.scale, parts.xbatch);
            self.cfg.kernel.prepare(parts.xbatch, self.d, parts.scratch)
        } else {
            self.cfg.kernel.prepare(particles, self.d, parts.scratch)
        };
        match prepared {
            Ok(prepared) => Ok(Pending {
                saved,
                iteration: self.iterations + 1,
                seed,
                weights: self.weights(&prepared),
                prepared,
            }),
            Err(e) => {
                self.rng.restore(saved);
                Err(e)
            }
        }
    }

    pub(super) fn weights<T: Float>(&self, prepared: &K::Prepared) -> Weights<T>
    where
        K: Kernel<T>,
    {
        let (k0, c0) = self.cfg.kernel.eval(prepared, T::ZERO);
        Weights {
            inv_n: T::from_f64(1.0 / self.n as f64),
            k0,
            c0,
        }
    }

    /// Without replacement, phase 2: the gradients of slots `first .. first + xs.len()/d`.
    /// Gathers the positions of particles `perm[first..]` into `xs` (those slots' rows of the
    /// slot-ordered positions), then one `model.gradients(xs, d, seed, g)` call, then checks
    /// them. With the scale option on (`sc`, the workspace's scale region, read only) the rows
    /// then become `u = (x − c)/s` and `s∘g` (and are checked). Writes nothing but `xs` and `g`:
    /// disjoint slot ranges may run concurrently, in any order. An empty range calls nothing.
    #[inline(never)]
    pub(crate) fn gradient_rows<T: Float, M: Gradient<T> + ?Sized>(
        &self,
        pending: &Pending<K::Prepared, T>,
        shared: Shared<'_, T>,
        first: usize,
        xs: &mut [T],
        g: &mut [T],
        model: &mut M,
    ) -> Result<(), Error>
    where
        K: Kernel<T>,
    {
        self.gradients_of(pending, shared, first, xs, g, model)
    }

    /// The body of [`gradient_rows`](Self::gradient_rows), inlined into it and into
    /// [`gradients_all`](Self::gradients_all).
    #[inline(always)]
    fn gradients_of<T: Float, M: Gradient<T> + ?Sized>(
        &self,
        pending: &Pending<K::Prepared, T>,
        shared: Shared<'_, T>,
        first: usize,
        xs: &mut [T],
        g: &mut [T],
        model: &mut M,
    ) -> Result<(), Error>
    where
        K: Kernel<T>,
    {
        if xs.is_empty() {
            return Ok(());
        }
        self.gather_rows(shared.particles, shared.perm, first, xs);
        self.gradients_gathered(pending, shared.sc, xs, g, model)
    }

    /// When the ranges move in place ([`in_place_ranges`](Self::in_place_ranges)), phase 2 of
    /// slots `first .. first + perm.len()`: their particles, `F(first ..)` of the iteration's
    /// [`feistel`](Self::feistel) bijection, into `perm` (this range's part of the permutation),
    /// their positions gathered from the particles' rows into `xs` and checked
    /// ([`Error::InvalidPosition`]: `begin` left that to the ranges), then the gradients as
    /// [`gradient_rows`](Self::gradient_rows) computes them. Writes nothing but `perm`, `xs` and
    /// `g`, reads no particle but its own: ranges may run while others move their particles.
    ///
    /// # Safety
    /// No other range touches the rows of this range's particles meanwhile (they are theirs:
    /// the permutation is a bijection and the ranges' slots are disjoint).
    #[cfg(feature = "ffi")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gradient_rows_in_place<T: Float, M: Gradient<T> + ?Sized>(
        &self,
        pending: &Pending<K::Prepared, T>,
        particles: SharedRows<'_, T>,
        perm: &mut [u32],
        first: usize,
        xs: &mut [T],
        g: &mut [T],
        model: &mut M,
    ) -> Result<(), Error>
    where
        K: Kernel<T>,
    {
        // SAFETY: the caller's contract.
        unsafe { self.gather_in_place(pending, particles, perm, first, xs) };
        if xs.is_empty() {
            return Ok(());
        }
        // `begin` left the positions' check to the ranges, each for its own particles.
        if !all_finite(xs) {
            return Err(Error::InvalidPosition);
        }
        self.gradients_gathered(pending, &[], xs, g, model)
    }

    /// When the ranges move in place, the particles of slots `first .. first + perm.len()`
    /// into `perm` and their positions into the rows of `xs`
    /// ([`gradient_rows_in_place`](Self::gradient_rows_in_place)'s first part).
    ///
    /// # Safety
    /// As for [`gradient_rows_in_place`](Self::gradient_rows_in_place).
    #[cfg(feature = "ffi")]
    pub(crate) unsafe fn gather_in_place<P, T: Float>(
        &self,
        pending: &Pending<P, T>,
        particles: SharedRows<'_, T>,
        perm: &mut [u32],
        first: usize,
        xs: &mut [T],
    ) {
        self.feistel(pending).fill(first as u64, perm);
        for (x, &i) in rows_mut(xs, self.d).zip(perm.iter()) {
            // SAFETY: the caller's contract: this range's particle, one row at a time.
            copy(x, unsafe { particles.row_mut(i as usize) });
        }
    }

    /// The gradients of the gathered positions `xs` into `g` (one `model.gradients` call), checked,
    /// standardised with the scales `sc` when the option is on, annealed.
    #[inline(always)]
    fn gradients_gathered<T: Float, M: Gradient<T> + ?Sized>(
        &self,
        pending: &Pending<K::Prepared, T>,
        sc: &[T],
        xs: &mut [T],
        g: &mut [T],
        model: &mut M,
    ) -> Result<(), Error>
    where
        K: Kernel<T>,
    {
        model
            .gradients(xs, self.d, pending.seed, g)
            .map_err(refusal)?;
        if !all_finite(g) {
            return Err(Error::NonFinite);
        }
        if self.cfg.scale.on() && !scale::standardise(sc, xs, g, self.d) {
            return Err(Error::NonFinite);
        }
        if self.cfg.anneal.on() {
            anneal_rows(g, self.anneal_factor());
        }
        Ok(())
    }

    /// [`gradient_rows`](Self::gradient_rows) over all slots of the workspace `ws`: the serial
    /// step's. A call of its own with few arguments, so that the ranges' inputs ([`Shared`]) stay
    /// off the serial step's frame, which is on the deepest stack path (docs/footprint.md).
    #[inline(never)]
    fn gradients_all<T: Float, M: Gradient<T> + ?Sized>(
        &self,
        pending: &Pending<K::Prepared, T>,
        particles: &[T],
        ws: &mut [T],
        perm: &[u32],
        model: &mut M,
    ) -> Result<(), Error>
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
        self.gradients_of(pending, shared, 0, parts.xbatch, g, model)
    }

    /// The positions of particles `perm[first..]` into the rows of `xs` (slot order).
    pub(crate) fn gather_rows<T: Float>(
        &self,
        particles: &[T],
        perm: &[u32],
        first: usize,
        xs: &mut [T],
    ) {
        let d = self.d;
        let slots = perm.get(first..).unwrap_or(&[]);
        if d == 1 {
            // Element by element: a copy call per one-value row cost more than the row
            // (12 of RBM-SVGD p = 8's ~510 instructions per particle went to `memcpy`).
            for (x, &i) in xs.iter_mut().zip(slots) {
                if let Some(&v) = particles.get(i as usize) {
                    *x = v;
                }
            }
            return;
        }
        for (t, xr) in rows_mut(xs, d).enumerate() {
            let i = slots.get(t).map_or(usize::MAX, |&i| i as usize);
            copy(xr, row(particles, i, d));
        }
    }

    /// The history region of the workspace, offset and length (0 without AdaGrad).
    #[cfg(feature = "ffi")]
    pub(crate) fn history_range(&self) -> (usize, usize) {
        (self.lay.grads + self.lay.force, self.lay.hist)
    }

    /// Without replacement, phase 3: φ of batches `a..b` (cut at the number of batches) from
    /// their slots' positions and gradients. `xs`, `g` and `phi` are the slot rows
    /// `batch_start(a) .. batch_start(b)` of the three slot-ordered regions. Reads and writes
    /// nothing else: disjoint batch ranges may run concurrently, in any order. Returns the
    /// kernel evaluations. The callers then compute the range's moves with
    /// [`move_range`](Self::move_range), a call of their own: its locals stay off the frame of
    /// this function, which is on the deepest stack path (the pair sums).
    #[inline(never)]
    pub(crate) fn batch_forces<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        a: usize,
        b: usize,
        xs: &[T],
        g: &[T],
        phi: &mut [T],
    ) -> u64
    where
        K: Kernel<T>,
    {
        let base = self.batch_start(a);
        let end = b.min(self.batches());
        let mut interactions = 0;
        // Hosts: batches of the same small size side by side, one per vector lane.
        if TILE > 1 && lanes::takes(self.cfg.batch_size, self.d) {
            let mut batch = a;
            while batch < end {
                let done = self.batch_group(pending, batch..end, base, xs, g, phi);
                if done > 0 {
                    interactions += done as u64 * pairs(self.cfg.batch_size);
                    batch += done;
                    continue;
                }
                let Some(k) = self.one_batch(pending, batch, base, xs, g, phi) else {
                    break;
                };
                interactions += k;
                batch += 1;
            }
        } else {
            for batch in a..end {
                let Some(k) = self.one_batch(pending, batch, base, xs, g, phi) else {
                    break;
                };
                interactions += k;
            }
        }
        interactions
    }

    /// φ of batch `batch` alone; arguments as in [`batch_forces`](Self::batch_forces), whose
    /// rows start at slot `base`. Returns its kernel evaluations, `None` past the rows given.
    #[inline(always)]
    pub(super) fn one_batch<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        batch: usize,
        base: usize,
        xs: &[T],
        g: &[T],
        phi: &mut [T],
    ) -> Option<u64>
    where
        K: Kernel<T>,
    {
        let (n, d) = (self.n, self.d);
        let (s, e) = self.batch_rows(batch)?;
        let (x, gb, pb) = slot_rows(xs, g, phi, s.wrapping_sub(base), e.wrapping_sub(base), d)?;
        let batch = Batch::new(&self.cfg.kernel, &pending.prepared, x, gb, d, e - s);
        Some(batch_force(batch, pb, n, &pending.weights))
    }

    /// φ of up to [`lanes::LANES`] batches from `batches.start` on (before `batches.end`), side by side
    /// ([`lanes`]; the caller checked that they take p and d); arguments as in
    /// [`batch_forces`](Self::batch_forces), whose rows start at slot `base`. Returns how many
    /// batches it did: 0 (having done nothing) when `batch` is the last batch and holds the
    /// `N mod p` left over, and then the caller does it alone.
    #[inline(always)]
    pub(super) fn batch_group<T: Float>(
        &self,
        pending: &Pending<K::Prepared, T>,
        batches: Range<usize>,
        base: usize,
        xs: &[T],
        g: &[T],
        phi: &mut [T],
    ) -> usize
    where
        K: Kernel<T>,
    {
        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);
        let (batch, end) = (batches.start, batches.end);
        // Every batch has p members but the last, which also holds the N mod p left over.
        let mut count = end.saturating_sub(batch).min(lanes::LANES);
        let nb = self.batches();
        if batch + count == nb && n - self.batch_start(nb - 1) != p {
            count -= 1;
        }
        let s = self.batch_start(batch).wrapping_sub(base);
        let Some((x, gb, pb)) = slot_rows(xs, g, phi, s, s + count * p, d) else {
            return 0;
        };
        if count == 0
            || !lanes::group_sums(
                Batch::new(&self.cfg.kernel, &pending.prepared, x, gb, d, p),
                pb,
                count,
            )
        {
            return 0;
        }
        for (gr, pr) in rows(gb, p * d).zip(rows_mut(pb, p * d)) {
            finish_force(gr, pr, d, n, p, &pending.weights);
        }
        count
    }

    /// Abandons a begun iteration: restores the generator. (Nothing else changed before
    /// `finish` moves the particles.)
    pub(crate) fn cancel<P, T>(&mut self, pending: &Pending<P, T>) {
        self.rng.restore(pending.saved);
    }

    pub(super) fn info<T: Float>(
        &mut self,
        prepared: &K::Prepared,
        iteration: u64,
        stats: &ForceStats,
        interactions: u64,
    ) -> SvgdInfo
    where
        K: Kernel<T>,
    {
        self.iterations = iteration;
        SvgdInfo {
            iteration,
            bandwidth: self.cfg.kernel.bandwidth(prepared),
            step_size: self.cfg.step_rule.eta_at(iteration),
            mean_force: stats.sum / stats.count.max(1) as f64,
            max_force: stats.max,
            interactions,
            ksd_squared: core::mem::replace(&mut self.ksd_pending, f64::NAN),
        }
    }
}

impl<K> SvgdCore<K> {
    /// γ of the iteration under way (`iterations` counts the ones done before it). Out of line
    /// and called from the gradient phase, not from `begin`: `pow` under `begin`'s frame took
    /// the RBM-SVGD step past its Cortex-M stack budget (docs/footprint.md).
    #[inline(never)]
    pub(super) fn anneal_factor(&self) -> f64 {
        self.cfg.anneal.gamma(self.iterations)
    }
}

/// The driving term's annealing (docs/algorithms.md §2.8): the gradients of an iteration at
/// γ < 1 become `γ·∇V`, each rounded once to `T`, after their checks and the scale option's
/// standardisation; at γ = 1 nothing is touched (plain SVGD's bits).
pub(super) fn anneal_rows<T: Float>(g: &mut [T], gamma: f64) {
    if gamma != 1.0 {
        let gm = T::from_f64(gamma);
        for v in g.iter_mut() {
            *v *= gm;
        }
    }
}
