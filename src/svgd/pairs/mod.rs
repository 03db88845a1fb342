//! The batch force: the pair sums of a batch (one of four forms, module docs of [`super`],
//! "Arithmetic") and the self terms and weights that make them φ.

pub(super) mod blocked;
pub(super) mod lanes;
pub(super) mod packed;
mod rows;

use super::kernel::Kernel;
use super::rows::row_mut;
use crate::float::Float;
use rows::{pair_sums_d1, pair_sums_rows};

/// The constants of the batch force.
#[derive(Clone, Copy, Debug)]
pub(super) struct Weights<T> {
    pub(in crate::svgd) inv_n: T,
    pub(in crate::svgd) k0: T,
    pub(in crate::svgd) c0: T,
}

/// φ for the `m ≥ 2` members of one batch, rows `0..m` of `x`, `g`, `phi` (the batch's rows,
/// gathered in draw order). Returns the number of kernel evaluations.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn batch_force<T: Float, K: Kernel<T>>(
    kernel: &K,
    prep: &K::Prepared,
    x: &[T],
    g: &[T],
    phi: &mut [T],
    d: usize,
    n: usize,
    m: usize,
    wt: &Weights<T>,
) -> u64 {
    pair_sums(kernel, prep, x, g, phi, d, m);
    finish_force(g, phi, d, n, m, wt)
}

/// The pair sums `s_i` of a batch whose members are rows `0..m` (into the rows of `phi`):
/// zeroes the rows, then adds every unordered pair `{i, j}` to both rows. Never inlined, like
/// the other phases: its locals stay out of its callers' frames.
#[inline(never)]
pub(super) fn pair_sums<T: Float, K: Kernel<T>>(
    kernel: &K,
    prep: &K::Prepared,
    x: &[T],
    g: &[T],
    phi: &mut [T],
    d: usize,
    m: usize,
) {
    // Small batches (vector targets only: `TILE > 1`) with all their kernel values in one tile.
    if TILE > 1 && packed::pair_sums(kernel, prep, x, g, phi, d, m) {
        return;
    }
    // Every kind of batch is gathered (its members are rows 0..m in draw order), so one copy of
    // the loops, with the identity row map inlined.
    pair_sums_by(kernel, prep, x, g, phi, d, m, |t| t)
}

/// The loops of [`pair_sums`] for the row map `member`: zero the rows, then one copy of the pair
/// loop for `d = 1` (rows are single coordinates, row i's sum kept in a local) and one for any
/// `d`. Both add the same terms in the same order as the loop of the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn pair_sums_by<T: Float, K: Kernel<T>>(
    kernel: &K,
    prep: &K::Prepared,
    x: &[T],
    g: &[T],
    phi: &mut [T],
    d: usize,
    m: usize,
    member: impl Fn(usize) -> usize,
) {
    for a in 0..m {
        row_mut(phi, member(a), d).fill(T::ZERO);
    }
    // Small d and larger batches in blocks of rows (vector targets only: `TILE > 1`).
    if TILE > 1 && blocked::pair_sums(kernel, prep, x, g, phi, d, m, &member) {
        return;
    }
    if d == 1 {
        pair_sums_d1(kernel, prep, x, g, phi, m, member);
    } else {
        pair_sums_rows(kernel, prep, x, g, phi, d, m, member);
    }
}

/// Kernel evaluations per tile of the pair loop. Where the target has vector units the loop
/// over a row's later batch mates runs tile by tile: the tile's r² first, then its kernel values
/// in one [`Kernel::eval_tile`] loop that the compiler vectorises, then the sums in order. On
/// other targets (Cortex-M: no vector unit, and `pair_sums` is on one of the deepest stack
/// paths) a tile is one pair. Tiling changes no operation and no order of the sums, so the bits
/// are the same for every tile size (the firmware comparison checks 1 against the host's 16).
#[cfg(sgs_vector)]
pub(super) const TILE: usize = 16;
/// See the other definition.
#[cfg(not(sgs_vector))]
pub(super) const TILE: usize = 1;

/// The first `len` (≤ [`TILE`]) elements of a tile buffer.
#[inline(always)]
pub(super) fn tile<T>(buf: &mut [T; TILE], len: usize) -> &mut [T] {
    buf.get_mut(..len).unwrap_or_default()
}

/// `φ_i = (inv_n·F_self,i) + (w·s_i)` for the `m` members of a batch (rows `0..m`) whose pair
/// sums are in `phi`. Returns the number of kernel evaluations, `m(m−1)/2`.
#[inline(never)]
pub(super) fn finish_force<T: Float>(
    g: &[T],
    phi: &mut [T],
    d: usize,
    n: usize,
    m: usize,
    wt: &Weights<T>,
) -> u64 {
    let w = T::from_f64((n - 1) as f64 / (n as f64 * (m - 1) as f64));
    // Element-wise: the batch's rows are the first m, one flat run.
    let len = m.wrapping_mul(d);
    if let (Some(ps), Some(gs)) = (phi.get_mut(..len), g.get(..len)) {
        for (p, &gl) in ps.iter_mut().zip(gs) {
            let fs = wt.c0 * T::ZERO - wt.k0 * gl;
            *p = wt.inv_n * fs + w * *p;
        }
    }
    pairs(m)
}

/// Kernel evaluations of a batch of `m`: `m(m−1)/2`.
#[inline]
pub(super) fn pairs(m: usize) -> u64 {
    (m as u64) * (m as u64).saturating_sub(1) / 2
}
