//! The batch force: the pair sums of a batch (one of four forms, module docs of [`super`],
//! "Arithmetic") and the self terms and weights that make them φ.

pub(super) mod blocked;
pub(super) mod lanes;
pub(super) mod packed;
mod rows;

use super::kernel::Kernel;
use super::rows::row_mut;
use crate::float::Float;
use rows::{row_loop, row_loop_d1};

/// One batch's pair-sum inputs, what every form of the sums takes (with the rows of φ the sums
/// go to): the kernel and its prepared constants, the positions `x` and gradients `g` (rows of
/// `d` coordinates) of `m` members (of each batch, for the form that takes several side by
/// side).
pub(super) struct Batch<'a, T: Float, K: Kernel<T>> {
    pub(super) kernel: &'a K,
    pub(super) prep: &'a K::Prepared,
    pub(super) x: &'a [T],
    pub(super) g: &'a [T],
    pub(super) d: usize,
    pub(super) m: usize,
}

// By hand: a derive would ask `T: Copy` and `K: Copy` of the referenced types.
impl<T: Float, K: Kernel<T>> Clone for Batch<'_, T, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Float, K: Kernel<T>> Copy for Batch<'_, T, K> {}

impl<'a, T: Float, K: Kernel<T>> Batch<'a, T, K> {
    pub(super) fn new(
        kernel: &'a K,
        prep: &'a K::Prepared,
        x: &'a [T],
        g: &'a [T],
        d: usize,
        m: usize,
    ) -> Self {
        Batch {
            kernel,
            prep,
            x,
            g,
            d,
            m,
        }
    }
}

/// The constants of the batch force.
#[derive(Clone, Copy, Debug)]
pub(super) struct Weights<T> {
    pub(in crate::svgd) inv_n: T,
    pub(in crate::svgd) k0: T,
    pub(in crate::svgd) c0: T,
}

/// φ for the `m ≥ 2` members of one batch, rows `0..m` of `x`, `g`, `phi` (the batch's rows,
/// gathered in draw order). Returns the number of kernel evaluations.
#[inline]
pub(super) fn batch_force<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    n: usize,
    wt: &Weights<T>,
) -> u64 {
    let Batch {
        kernel,
        prep,
        x,
        g,
        d,
        m,
    } = batch;
    pair_sums(kernel, prep, x, g, phi, d, m);
    finish_force(g, phi, d, n, m, wt)
}

/// The pair sums `s_i` of a batch whose members are rows `0..m` (into the rows of `phi`):
/// zeroes the rows, then adds every unordered pair `{i, j}` to both rows. Never inlined, like
/// the other phases: its locals stay out of its callers' frames. The batch's fields come one by
/// one, not as a [`Batch`]: an aggregate argument is passed by a copy in the caller's frame, which
/// is on the deepest stack path of `step` on Cortex-M (32 bytes more in `f64`).
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
    let batch = Batch::new(kernel, prep, x, g, d, m);
    // Small batches (vector targets only: `TILE > 1`) with all their kernel values in one tile.
    if TILE > 1 && packed::triangle_sums(batch, phi) {
        return;
    }
    // Every kind of batch is gathered (its members are rows 0..m in draw order), so one copy of
    // the loops, with the identity row map inlined.
    pair_sums_by(batch, phi, |t| t)
}

/// The loops of [`pair_sums`] for the row map `member`: zero the rows, then one copy of the pair
/// loop for `d = 1` (rows are single coordinates, row i's sum kept in a local) and one for any
/// `d`. Both add the same terms in the same order as the loop of the module docs.
#[inline(always)]
fn pair_sums_by<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    member: impl Fn(usize) -> usize,
) {
    let (d, m) = (batch.d, batch.m);
    for a in 0..m {
        row_mut(phi, member(a), d).fill(T::ZERO);
    }
    // Small d and larger batches in blocks of rows (vector targets only: `TILE > 1`).
    if TILE > 1 && blocked::block_sums(batch, phi, &member) {
        return;
    }
    // The row loops take the rows in order: `member` is the identity here (see `pair_sums`).
    let Batch {
        kernel, prep, x, g, ..
    } = batch;
    if d == 1 {
        row_loop_d1::<T, K, TILE>(kernel, prep, x, g, phi, m);
    } else {
        row_loop::<T, K, TILE>(kernel, prep, x, g, phi, d, m);
    }
}

/// Kernel evaluations per tile of the pair loop. Where the target has vector units the loop
/// over a row's later batch mates runs tile by tile: the tile's r² first, then its kernel values
/// in one [`Kernel::eval_tile`] loop that the compiler vectorises, then the sums in order. On
/// other targets (Cortex-M: no vector unit, and `pair_sums` is on one of the deepest stack
/// paths) a tile is one pair. Tiling changes no operation and no order of the sums, so the bits
/// are the same for every tile size (the firmware comparison checks 1 against the host's 16).
pub(super) const TILE: usize = if crate::arch::VECTOR { 16 } else { 1 };

/// The first `len` (≤ `W`, [`TILE`] but in the tests) elements of a tile buffer.
#[inline(always)]
pub(super) fn tile<T, const W: usize>(buf: &mut [T; W], len: usize) -> &mut [T] {
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
