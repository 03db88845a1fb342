//! The argument structs of the moves and of the phases' ranges: which workspace regions and
//! buffers a call reads and which it writes, named, instead of long positional lists.

use super::shared_rows::SharedRows;

/// What every range of an iteration's phases reads and none writes: the particles, the
/// permutation (slot `s` holds particle `perm[s]`), the AdaGrad history by particle (empty
/// without AdaGrad) and the workspace's scale region (`s` then `c`; empty when the option is off).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shared<'a, T> {
    pub(crate) particles: &'a [T],
    pub(crate) perm: &'a [u32],
    pub(crate) hist: &'a [T],
    pub(crate) sc: &'a [T],
}

/// The moves of a range of slots into the slot rows: from each slot's position (its row of `xs`)
/// and its particle's history (row `perm[s]` of `hist`, read only) along its φ (its row of `phi`),
/// the new position into the `xs` row and the new history into the `g` row (the spent
/// gradients). `perm` holds the range's particles, one per slot.
pub(super) struct SlotMoves<'a, T> {
    pub(super) hist: &'a [T],
    pub(super) perm: &'a [u32],
    pub(super) xs: &'a mut [T],
    pub(super) g: &'a mut [T],
    pub(super) phi: &'a [T],
    pub(super) d: usize,
}

/// The serial step's moves of all slots straight into particle order: particle `perm[s]`'s
/// position (in `particles`) and history (in `hist`) and its φ (in `by_particle`) are written
/// from slot `s`'s gathered position (row `s` of `xs`) and φ (row `s` of `phi`); `xs` and `phi`
/// keep the old position and history for a rollback.
pub(super) struct InPlace<'a, T> {
    pub(super) particles: &'a mut [T],
    pub(super) hist: &'a mut [T],
    pub(super) perm: &'a [u32],
    pub(super) xs: &'a mut [T],
    pub(super) phi: &'a mut [T],
    pub(super) by_particle: &'a mut [T],
    pub(super) d: usize,
}

/// The moves in place of a range of slots (the serial step's: all slots): particle `perm[s]`'s
/// position (in `particles`) and history (in `hist`, empty without AdaGrad) and its φ (in
/// `by_particle`) are written from slot `s`'s gathered position (row `s` of `xs`) and φ (row `s`
/// of `phi`); `xs` and `phi` keep the old position and history for a rollback. The by-particle
/// buffers are [`SharedRows`]: ranges running at the same time write their own particles' rows.
pub(crate) struct InPlaceRows<'a, T> {
    pub(crate) particles: SharedRows<'a, T>,
    pub(crate) hist: SharedRows<'a, T>,
    pub(crate) by_particle: SharedRows<'a, T>,
    pub(crate) perm: &'a [u32],
    pub(crate) xs: &'a mut [T],
    pub(crate) phi: &'a mut [T],
    pub(crate) d: usize,
}
