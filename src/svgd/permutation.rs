//! The permutation draws of an iteration (module docs of [`super`], "Draw order").

use crate::rng::Rng;

/// `for t in 0..count { j = t + below(len − t); swap(perm[t], perm[j]) }`, on a local copy of
/// the generator (its state in registers: the draws are the serial part of an iteration).
pub(super) fn shuffle_prefix(rng: &mut Rng, perm: &mut [u32], count: usize) {
    let len = perm.len();
    let mut local = rng.clone();
    for t in 0..count.min(len) {
        let j = t + local.below_inlined((len - t) as u64) as usize;
        // Always true (`below(k) < k`); it lets the compiler drop the bounds check.
        if j < len {
            perm.swap(t, j);
        }
    }
    *rng = local;
}
