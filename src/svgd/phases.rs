//! An SVGD iteration (without replacement) in phases over disjoint data, for Rust callers that
//! run the batches on several threads: [`Svgd::begin`] → [`SvgdIteration::pieces`] (each
//! [`SvgdPiece`] owns its batches' rows as `&mut` slices, so pieces can be sent to threads) →
//! [`SvgdIteration::finish`]. Any split, run in any order, gives the serial
//! [`step`](Svgd::step) bit for bit (module docs of [`svgd`](super), "Phases").

use super::config::SvgdInfo;
use super::core::{Pending, SvgdCore};
use super::kernel::Kernel;
use super::layout::{split, take};
use super::regions::Shared;
use super::sampler::Svgd;
use crate::error::Error;
use crate::float::Float;
use crate::model::Gradient;
use core::ops::Range;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// An iteration between [`Svgd::begin`] and [`finish`](Self::finish). Dropping it without
/// finishing cancels it: the generator is restored and nothing else has changed. (Forgetting
/// it, `core::mem::forget`, skips the cancel: the particles and history are unchanged but the
/// generator stays past the iteration's draws, so the run no longer matches an uninterrupted
/// one.)
pub struct SvgdIteration<'s, T: Float, K: Kernel<T>> {
    core: &'s mut SvgdCore<K>,
    particles: &'s mut [T],
    ws: &'s mut [T],
    perm: &'s [u32],
    pending: Pending<K::Prepared, T>,
    /// Batches whose forces a piece has computed (pieces may run on several threads).
    done: AtomicUsize,
    /// Cleared by a piece whose moves were not all finite.
    finite: AtomicBool,
    /// `false` once finished (then dropping it cancels nothing).
    open: bool,
    /// Whether [`pieces`](Self::pieces) was called: `done` counts batches, so it is sound only
    /// if every batch can be run at most once, i.e. by the pieces of one call.
    cut: bool,
}

impl<'a, T: Float, K: Kernel<T> + Clone> Svgd<'a, T, K> {
    /// Begins an iteration without replacement: draws the minibatch seed and the permutation
    /// and prepares the kernel (the only draws of the iteration). Errors:
    /// [`Error::InvalidOption`] for a system with replacement (its sub-steps are sequential),
    /// [`Error::InvalidPosition`] (a particle made non-finite), the kernel's
    /// ([`Error::NonFinite`]); nothing changed on error.
    pub fn begin(&mut self) -> Result<SvgdIteration<'_, T, K>, Error> {
        let pending = self
            .core
            .begin_phases(self.particles, self.ws, self.idx, false)?;
        Ok(SvgdIteration {
            perm: self.idx.get(..self.core.n).unwrap_or(&[]),
            core: &mut self.core,
            particles: self.particles,
            ws: self.ws,
            pending,
            done: AtomicUsize::new(0),
            finite: AtomicBool::new(true),
            open: true,
            cut: false,
        })
    }
}

impl<T: Float, K: Kernel<T>> SvgdIteration<'_, T, K> {
    /// The number of batches, `⌊N/p⌋`.
    pub fn num_batches(&self) -> usize {
        self.core.batches()
    }

    /// The permutation slots of batch `b` (`None` past the last batch). Slot `s` holds
    /// particle [`permutation`](Self::permutation)`()[s]`.
    pub fn batch_rows(&self, b: usize) -> Option<Range<usize>> {
        self.core.batch_rows(b).map(|(s, e)| s..e)
    }

    /// The iteration's permutation of the particles (slot → particle).
    pub fn permutation(&self) -> &[u32] {
        self.perm
    }

    /// Cuts the batches into pieces of `batches_per_piece` consecutive batches (at least 1; the
    /// last piece may be shorter). Each piece owns its batches' rows, so pieces can run on
    /// different threads, in any order. Once per iteration: the pieces cover every batch
    /// exactly once, and a second call is refused ([`Error::RangeOverlap`]), so no batch can
    /// run twice while another is never run. A piece that failed cannot be run again: drop the
    /// iteration (which cancels it) and begin a new one.
    pub fn pieces(&mut self, batches_per_piece: usize) -> Result<SvgdPieces<'_, T, K>, Error> {
        if self.cut {
            return Err(Error::RangeOverlap);
        }
        self.cut = true;
        let lay = self.core.lay;
        let parts = split(self.ws, &lay);
        Ok(SvgdPieces {
            ctx: Ctx {
                core: self.core,
                pending: &self.pending,
                particles: self.particles,
                hist: parts.hist,
                scale: parts.scale,
                perm: self.perm,
                done: &self.done,
                finite: &self.finite,
            },
            next: 0,
            per: batches_per_piece.max(1),
            xs: parts.xbatch,
            g: super::layout::slot_g(parts.grads, parts.sgrads),
            phi: parts.force,
        })
    }

    /// Checks that every batch's forces were computed, then moves all particles (all or
    /// nothing). Errors: [`Error::IterationIncomplete`] (a piece was not run, or failed),
    /// [`Error::NonFinite`] (a new value would not be finite); on error the particles, the
    /// history and the generator are as before [`Svgd::begin`].
    pub fn finish(mut self) -> Result<SvgdInfo, Error> {
        if self.done.load(Ordering::Acquire) != self.core.batches() {
            return Err(Error::IterationIncomplete);
        }
        // Not open from here: on error the iteration is over (cancelled here or by `finish`).
        self.open = false;
        if !self.finite.load(Ordering::Acquire) {
            self.core.cancel(&self.pending);
            return Err(Error::NonFinite);
        }
        self.core
            .finish(&self.pending, self.particles, self.ws, self.perm)
    }
}

impl<T: Float, K: Kernel<T>> Drop for SvgdIteration<'_, T, K> {
    fn drop(&mut self) {
        if self.open {
            self.core.cancel(&self.pending);
        }
    }
}

/// What every piece of an iteration reads.
struct Ctx<'i, T: Float, K: Kernel<T>> {
    core: &'i SvgdCore<K>,
    pending: &'i Pending<K::Prepared, T>,
    particles: &'i [T],
    /// The history by particle (read by the moves; written only by `finish`).
    hist: &'i [T],
    /// The scale option's `s` and `c` (written only by `begin`).
    scale: &'i [T],
    perm: &'i [u32],
    done: &'i AtomicUsize,
    finite: &'i AtomicBool,
}

impl<T: Float, K: Kernel<T>> Clone for Ctx<'_, T, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Float, K: Kernel<T>> Copy for Ctx<'_, T, K> {}

/// The pieces of an iteration ([`SvgdIteration::pieces`]), in batch order.
pub struct SvgdPieces<'i, T: Float, K: Kernel<T>> {
    ctx: Ctx<'i, T, K>,
    next: usize,
    per: usize,
    xs: &'i mut [T],
    g: &'i mut [T],
    phi: &'i mut [T],
}

impl<'i, T: Float, K: Kernel<T>> Iterator for SvgdPieces<'i, T, K> {
    type Item = SvgdPiece<'i, T, K>;

    fn next(&mut self) -> Option<SvgdPiece<'i, T, K>> {
        let core = self.ctx.core;
        let (a, nb) = (self.next, core.batches());
        if a >= nb {
            return None;
        }
        let b = a.saturating_add(self.per).min(nb);
        self.next = b;
        let len = (core.batch_start(b) - core.batch_start(a)) * core.d;
        Some(SvgdPiece {
            ctx: self.ctx,
            batches: a..b,
            xs: take(&mut self.xs, len),
            g: take(&mut self.g, len),
            phi: take(&mut self.phi, len),
        })
    }
}

/// Consecutive batches of an iteration with their rows: the gradients of their slots and their
/// forces are computed by [`run`](Self::run), on any thread.
pub struct SvgdPiece<'i, T: Float, K: Kernel<T>> {
    ctx: Ctx<'i, T, K>,
    batches: Range<usize>,
    xs: &'i mut [T],
    g: &'i mut [T],
    phi: &'i mut [T],
}

impl<T: Float, K: Kernel<T>> SvgdPiece<'_, T, K> {
    /// The batches of this piece.
    pub fn batches(&self) -> Range<usize> {
        self.batches.clone()
    }

    /// The gradients of the piece's slots (one `model.gradients` call on their positions, in
    /// slot order), then its batches' forces and its slots' moves (which
    /// [`SvgdIteration::finish`] copies into the particles). Returns the kernel evaluations. Errors:
    /// [`Error::CallbackAborted`], [`Error::GradientRejected`], [`Error::NonFinite`]; the
    /// iteration then cannot finish (drop it: nothing has changed).
    pub fn run<M: Gradient<T> + ?Sized>(self, model: &mut M) -> Result<u64, Error> {
        let (a, b) = (self.batches.start, self.batches.end);
        let c = self.ctx;
        let first = c.core.batch_start(a);
        let shared = Shared {
            particles: c.particles,
            perm: c.perm,
            hist: c.hist,
            sc: c.scale,
        };
        c.core
            .gradient_rows(c.pending, shared, first, self.xs, self.g, model)?;
        let k = c
            .core
            .batch_forces(c.pending, a, b, self.xs, self.g, self.phi);
        let finite = c
            .core
            .move_range(c.pending, shared, first, self.xs, self.g, self.phi);
        if !finite {
            c.finite.store(false, Ordering::Relaxed);
        }
        c.done.fetch_add(b - a, Ordering::Release);
        Ok(k)
    }
}
