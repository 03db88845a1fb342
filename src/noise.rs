//! The per-coordinate update with friction noise that AMAGOLD, SGHMC and SGLD share: for each
//! coordinate in index order, `η = sd·z` with `z` the next normal of the stream (or `η = 0` and no
//! draw), then the sampler's own update of that coordinate.
//!
//! Written once so that the loop stays lean in every sampler: the "noise or not" choice is made
//! once per sweep, not per coordinate; the two slices are walked together (no bounds checks); and
//! the generator is copied into a local for the sweep, so that its state stays in registers
//! instead of going through memory (the sampler's state) on every draw. Only the Ziggurat's rare
//! wedge/tail branch remains inside, out of line.

use crate::float::Float;
use crate::rng::Rng;

/// `update(&mut x[i], g[i], η_i)` for `i` in index order, over the common length; `η_i = sd·z_i`
/// with `z_i` drawn from `rng` in index order when `sd` is `Some`, `η_i = 0` (nothing drawn)
/// when it is `None`. The draws are exactly those of `d` calls of [`Rng::normal_as`].
#[inline]
pub(crate) fn sweep<T: Float>(
    rng: &mut Rng,
    sd: Option<T>,
    x: &mut [T],
    g: &[T],
    mut update: impl FnMut(&mut T, T, T),
) {
    match sd {
        Some(sd) => {
            let mut local = rng.clone();
            for (xi, &gi) in x.iter_mut().zip(g) {
                update(xi, gi, sd * local.normal_as::<T>());
            }
            *rng = local;
        }
        None => {
            for (xi, &gi) in x.iter_mut().zip(g) {
                update(xi, gi, T::ZERO);
            }
        }
    }
}
