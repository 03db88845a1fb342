//! Data minibatches from a seed, without allocation.

use crate::error::Error;
use crate::rng::Rng;

/// Stream id of the generator behind [`minibatch`]: `b"minibatc"` as a big-endian integer.
pub const MINIBATCH_STREAM: u64 = 0x6d69_6e69_6261_7463;

/// Fills `out` with `out.len()` distinct indices drawn uniformly from `0..n`, in uniformly random
/// order, as a pure function of `(seed, n, out.len())`.
///
/// Robert Floyd's algorithm picks the set (one bounded draw per index, membership by linear scan:
/// O(B²) comparisons, O(1) extra memory), then a Fisher–Yates pass shuffles it, so every prefix is
/// itself a uniform minibatch. The generator is [`Rng::new`]`(seed, MINIBATCH_STREAM)`.
///
/// Errors: [`Error::InvalidMinibatch`] when `out.len() > n` or `n = 0`.
///
/// ```
/// let mut idx = [0u64; 4];
/// sgsample::minibatch(7, 10, &mut idx)?;
/// assert!(idx.iter().all(|&i| i < 10));
/// let mut again = [0u64; 4];
/// sgsample::minibatch(7, 10, &mut again)?;
/// assert_eq!(idx, again);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn minibatch(seed: u64, n: u64, out: &mut [u64]) -> Result<(), Error> {
    let b = out.len() as u64;
    if n == 0 || b > n {
        return Err(Error::InvalidMinibatch);
    }
    let mut rng = Rng::new(seed, MINIBATCH_STREAM);
    // Checked splits rather than indexing: no panic path is linked into the C library.
    for (k, j) in (n - b..n).enumerate() {
        let t = rng.below(j + 1);
        if let Some((done, [slot, ..])) = out.split_at_mut_checked(k) {
            *slot = if done.contains(&t) { j } else { t };
        }
    }
    for k in (1..out.len()).rev() {
        let m = rng.below(k as u64 + 1) as usize;
        // m ≤ k: swap out[k] with out[m] (nothing to do when m = k).
        if let Some((head, [last, ..])) = out.split_at_mut_checked(k) {
            if let Some(other) = head.get_mut(m) {
                core::mem::swap(other, last);
            }
        }
    }
    Ok(())
}
