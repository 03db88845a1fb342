//! The per-coordinate update with friction noise that AMAGOLD, SGHMC and SGLD share: for each
//! coordinate in index order, the next normal `z` of the stream (or no draw at all when the
//! sampler has no noise), then the sampler's own update of that coordinate.
//!
//! Written once so that the loop stays lean in every sampler: the "noise or not" choice is made
//! once per sweep, not per coordinate; the coordinates' slices are walked together by iterators
//! (no bounds checks); and the generator is copied into a local for the sweep, so that its state
//! stays in registers instead of going through memory (the sampler's state) on every draw. Only
//! the Ziggurat's rare wedge/tail branch remains inside, out of line.

use crate::float::Float;
use crate::rng::Rng;

/// `update(item, z)` for each item in order, with `z = Some(the next normal)` (drawn by
/// [`Rng::normal_as`], in index order) when `noisy`, and `z = None` (nothing drawn) otherwise.
#[inline]
pub(crate) fn sweep<T: Float, I: Iterator>(
    rng: &mut Rng,
    noisy: bool,
    items: I,
    mut update: impl FnMut(I::Item, Option<T>),
) {
    if noisy {
        let mut local = rng.clone();
        for item in items {
            update(item, Some(local.normal_as::<T>()));
        }
        *rng = local;
    } else {
        for item in items {
            update(item, None);
        }
    }
}
