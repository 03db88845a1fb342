//! The workspace's layout (module docs of [`super`], "Memory"): its parts' lengths for a
//! configuration, and the workspace cut into them.

use super::config::{Batching, SvgdConfig};
use super::kernel::Kernel;
use super::ksd::KsdChoice;
use super::permutation::Permutation;
use crate::float::Float;

/// Lengths of the workspace's parts (see the module docs), in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) grads: usize,
    pub(super) force: usize,
    pub(super) hist: usize,
    pub(super) xbatch: usize,
    pub(super) xwork: usize,
    pub(super) hwork: usize,
    pub(super) scratch: usize,
    /// The scale option's `s` and `c` (`2·d`; 0 when off).
    pub(super) scale: usize,
    /// The gradients by slot when the phases' ranges move their particles in place
    /// ([`in_place_ranges`]: `N·d`, after everything else; 0 otherwise, and then the gradients
    /// by slot are in `grads`). Apart from `grads` there, because a range writes φ by particle
    /// into `grads` while other ranges still read their slots' gradients.
    pub(super) sgrads: usize,
}

/// Whether the phases' ranges of an iteration without replacement move their particles in
/// place, each range writing its own particles, so that `finish` copies nothing: with the
/// Feistel permutation (any range evaluates its own slots; the begin draws no permutation), the
/// KSD off (it needs every slot's position and gradient in `finish`) and the scale option off.
///
/// Hosts only, like the serial step's moves in place
/// ([`MOVE_IN_PLACE`](super::core::MOVE_IN_PLACE)): on bare metal the phases keep the copies in
/// `finish` (the same bits) and the code for both layouts would cost flash (about 480 bytes on
/// a Cortex-M4F, measured with docs/footprint.md's probe).
pub(crate) fn in_place_ranges<K>(cfg: &SvgdConfig<K>) -> bool {
    crate::arch::HOSTED
        && cfg.permutation == Permutation::Feistel
        && cfg.batching == Batching::WithoutReplacement
        && cfg.ksd == KsdChoice::Off
        && !cfg.scale.on()
}

impl Layout {
    pub(super) fn new<T: Float, K: Kernel<T>>(
        n: usize,
        d: usize,
        cfg: &SvgdConfig<K>,
    ) -> Option<Layout> {
        let nd = n.checked_mul(d)?;
        let pd = cfg.batch_size.checked_mul(d)?;
        let hist = if cfg.step_rule.has_history() { nd } else { 0 };
        let scratch = cfg.kernel.scratch_len(n);
        let scale = cfg.scale.len(d)?;
        Some(match cfg.batching {
            Batching::WithoutReplacement => Layout {
                grads: nd,
                force: nd,
                hist,
                // The positions gathered by permutation slot (batch rows contiguous).
                xbatch: nd,
                xwork: 0,
                hwork: 0,
                scratch,
                scale,
                sgrads: if in_place_ranges(cfg) { nd } else { 0 },
            },
            Batching::WithReplacement => Layout {
                grads: pd,
                force: pd,
                hist,
                xbatch: pd,
                xwork: nd,
                hwork: hist,
                scratch,
                scale,
                sgrads: 0,
            },
        })
    }

    pub(super) fn total(&self) -> Option<usize> {
        [
            self.force,
            self.hist,
            self.xbatch,
            self.xwork,
            self.hwork,
            self.scratch,
            self.scale,
            self.sgrads,
        ]
        .iter()
        .try_fold(self.grads, |acc, &x| acc.checked_add(x))
    }
}

/// The workspace cut into its parts.
pub(super) struct Parts<'w, T> {
    pub(super) grads: &'w mut [T],
    pub(super) force: &'w mut [T],
    pub(super) hist: &'w mut [T],
    pub(super) xbatch: &'w mut [T],
    pub(super) xwork: &'w mut [T],
    pub(super) hwork: &'w mut [T],
    pub(super) scratch: &'w mut [T],
    pub(super) scale: &'w mut [T],
    pub(super) sgrads: &'w mut [T],
}

/// The gradients by slot: `sgrads` when the ranges move in place (then not empty), `grads`
/// otherwise.
#[inline(always)]
pub(super) fn slot_g<'w, T>(grads: &'w mut [T], sgrads: &'w mut [T]) -> &'w mut [T] {
    // Never a separate region on bare metal ([`in_place_ranges`]): folded away there.
    if !crate::arch::HOSTED || sgrads.is_empty() {
        grads
    } else {
        sgrads
    }
}

/// The next `len` elements of `rest` (fewer if it is short; callers check lengths first).
#[inline(always)]
pub(super) fn take<'w, T>(rest: &mut &'w mut [T], len: usize) -> &'w mut [T] {
    let all = core::mem::take(rest);
    let (head, tail) = all.split_at_mut(len.min(all.len()));
    *rest = tail;
    head
}

#[inline(always)]
pub(super) fn split<'w, T>(ws: &'w mut [T], lay: &Layout) -> Parts<'w, T> {
    let mut rest = ws;
    Parts {
        grads: take(&mut rest, lay.grads),
        force: take(&mut rest, lay.force),
        hist: take(&mut rest, lay.hist),
        xbatch: take(&mut rest, lay.xbatch),
        xwork: take(&mut rest, lay.xwork),
        hwork: take(&mut rest, lay.hwork),
        scratch: take(&mut rest, lay.scratch),
        scale: take(&mut rest, lay.scale),
        sgrads: take(&mut rest, lay.sgrads),
    }
}

/// Workspace coordinates for `n` particles in dimension `d` under `cfg` (`usize::MAX` when the
/// size overflows).
pub(crate) fn workspace_len<T: Float, K: Kernel<T>>(
    n: usize,
    d: usize,
    cfg: &SvgdConfig<K>,
) -> usize {
    Layout::new(n, d, cfg)
        .and_then(|l| l.total())
        .unwrap_or(usize::MAX)
}
