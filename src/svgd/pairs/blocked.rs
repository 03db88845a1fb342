//! The pair sums of a batch in blocks of `R × R` pairs, vectorised across rows.
//!
//! Used on targets with vector units for `d ≤ 4` and batches of at least [`MIN_MEMBERS`]
//! members that the packed triangle of [`super::packed`] does not take (in practice more than 16);
//! the other cases keep the row-by-row loop of the parent module. The result is the loop of the
//! module docs bit for bit:
//!
//! * **Rows as lanes.** The batch is cut into tiles of `R` consecutive members (`R = 4` in
//!   `f64`, 8 in `f32`: 32 bytes of lanes; twice that for batches of 32 (`f32`: 64) or more). A tile's coordinates, gradients and sums are
//!   gathered into small arrays indexed `[l][lane]`, so one column `j` updates the sums of `R`
//!   rows at once; each lane's sum still takes its columns one after the other in batch order.
//!   No element's operation sequence depends on the lane count, so the vector width (SSE2,
//!   AVX2, none) cannot change a bit.
//! * **Symmetry.** `r²(x_i, x_j)` and `r²(x_j, x_i)` are the same bits (`(a − b)² = (b − a)²`
//!   exactly), so each kernel value serves both rows. Row tiles `A` are visited in order, and
//!   for each the diagonal block `(A, A)` then the blocks `(A, B)` of the later tiles `B` in
//!   order. Row `i` of tile `A` therefore gets: first (already in `phi`, from the passes of the
//!   earlier tiles, each adding its rows in order) the members before `A`, then those of `A`
//!   (the diagonal block, `j = i` left out by a select), then those after `A`, tile by tile: the
//!   documented order. Within a block `(A, B)` the rows of `A` take `B`'s members in order
//!   (`s_i += c·(x_i − x_j) − k·g_j`) and the rows of `B` take `A`'s in order
//!   (`s_j += c·(x_j − x_i) − k·g_i`), both from the one `eval_tile` of the block.
//! * **Padding.** The last tile may be short: its missing lanes hold zeros, their values are
//!   computed and never used (no column beyond the batch is added, no such row is stored).
//!
//! On x86-64 the loops are also compiled for AVX2 and AVX-512F and the widest the CPU has is
//! chosen at run time (`cpuid`, and `xgetbv` for the operating system's support of the wider
//! registers): see [`Level`]. Only the register width changes: no fused multiply-add is enabled
//! (and Rust never contracts), the operations are the same, so are the bits (tested below
//! against the portable path).

// Lane loops index several arrays with the same lane: clearer than zipped iterators.
#![allow(clippy::needless_range_loop)]

use super::super::kernel::Kernel;
use super::super::rows::span;
use super::Batch;
use crate::arch::{level, Level};
use crate::float::Float;

/// Largest dimension the blocked loops handle (one instance per `d`; beyond it the coordinate
/// loops dominate and the row loop of the parent module does as well).
const MAX_D: usize = 4;

/// Smallest batch the blocked loops take: below it a diagonal block computes mostly unused
/// kernel values (`R²` for `m(m−1)/2` pairs) and the row loop is cheaper.
pub(super) const MIN_MEMBERS: usize = 8;

/// Adds every pair of the batch `member(0..m)` to the sums in `phi` (rows zeroed by the caller),
/// in blocks. Returns `false` (having done nothing) when the blocked loops do not cover the
/// case; the caller then runs its own loop.
#[inline(always)]
pub(super) fn block_sums<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    member: &impl Fn(usize) -> usize,
) -> bool {
    if batch.d == 0 || batch.d > MAX_D || batch.m < MIN_MEMBERS {
        return false;
    }
    by_dimension(batch, phi, member, level());
    true
}

/// One instance of the blocks per dimension `d ∈ 1..=MAX_D` and lane count: 32 bytes of lanes
/// (4 in `f64`, 8 in `f32`) for batches below 4 tiles of 64 bytes, 64 bytes (8 and 16 lanes) for
/// larger ones, where the wider tiles halve the gathers and loop overheads per pair while the
/// diagonal blocks' unused kernel values stay a small share (measured: full SVGD N = 256 about
/// 6% faster at d = 1, 20% at d = 3; p = 8 was faster with the narrow tiles, but batches of up to
/// 16 now take [`super::packed`], so the narrow tiles serve 17 to 31 members in `f64` and 17 to 63
/// in `f32`, not measured apart).
///
/// `wide`: the vector unit whose copies run (at most what [`level`] reports).
#[inline(always)]
fn by_dimension<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    member: &impl Fn(usize) -> usize,
    wide: Level,
) {
    let Batch {
        kernel,
        prep,
        x,
        g,
        d,
        m,
    } = batch;
    let a = (kernel, prep, x, g, phi, m, member);
    let lanes = 32 / core::mem::size_of::<T>();
    match (d, lanes, m >= 8 * lanes) {
        (1, 8, false) => run::<T, K, 8, 1>(a, wide),
        (2, 8, false) => run::<T, K, 8, 2>(a, wide),
        (3, 8, false) => run::<T, K, 8, 3>(a, wide),
        (_, 8, false) => run::<T, K, 8, 4>(a, wide),
        (1, 8, true) => run::<T, K, 16, 1>(a, wide),
        (2, 8, true) => run::<T, K, 16, 2>(a, wide),
        (3, 8, true) => run::<T, K, 16, 3>(a, wide),
        (_, 8, true) => run::<T, K, 16, 4>(a, wide),
        (1, _, false) => run::<T, K, 4, 1>(a, wide),
        (2, _, false) => run::<T, K, 4, 2>(a, wide),
        (3, _, false) => run::<T, K, 4, 3>(a, wide),
        (_, _, false) => run::<T, K, 4, 4>(a, wide),
        (1, _, true) => run::<T, K, 8, 1>(a, wide),
        (2, _, true) => run::<T, K, 8, 2>(a, wide),
        (3, _, true) => run::<T, K, 8, 3>(a, wide),
        (_, _, true) => run::<T, K, 8, 4>(a, wide),
    }
}

/// One instance of the blocks, as its own function (AVX-512, AVX2 or portable): each instance
/// is optimised on its own, with the kernel and the exponential inlined into it.
#[inline(always)]
fn run<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    args: Args<'_, T, K, K::Prepared, impl Fn(usize) -> usize>,
    wide: Level,
) {
    // AVX-512 only at d = 1, where it is faster: full SVGD, N = 256 and 1024, 15–19 % in f64 and
    // 11–27 % in f32 (three runs); at d = 3 the f64 blocks took 9–10 % longer than with AVX2 (the
    // tiles' three coordinate rows per operand), the f32 ones the same (CPU time, `compare.py
    // --parts svgd-full`, idle; docs/benchmarks.md).
    let wide = if D == 1 { wide } else { wide.min(Level::Avx2) };
    match wide {
        // SAFETY: `wide` is at most what `level()` found on this CPU.
        #[cfg(all(target_arch = "x86_64", not(miri), sgs_avx512))]
        Level::Avx512 => unsafe { x86::blocks_avx512::<T, K, R, D>(args) },
        // SAFETY: as above.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        Level::Avx2 => unsafe { x86::blocks_avx2::<T, K, R, D>(args) },
        _ => portable::<T, K, R, D>(args),
    }
}

/// [`blocks`] for the target's baseline vector unit.
#[inline(never)]
fn portable<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    args: Args<'_, T, K, K::Prepared, impl Fn(usize) -> usize>,
) {
    blocks::<T, K, R, D>(args)
}

/// The arguments of [`blocks`]: kernel, prepared constants, x, g, phi, m, member map.
type Args<'a, T, K, P, F> = (&'a K, &'a P, &'a [T], &'a [T], &'a mut [T], usize, &'a F);

/// The tiles' loops (see the module docs for the order).
#[inline(always)]
fn blocks<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    (kernel, prep, x, g, phi, m, member): Args<'_, T, K, K::Prepared, impl Fn(usize) -> usize>,
) {
    // Built once and filled in place: returned by value, the tiles and the kernel values were
    // copied with `memcpy` for every block (12% of full SVGD's instructions at N = 256, d = 1).
    let (mut a, mut b) = (Tile::<T, R, D>::new(), Tile::<T, R, D>::new());
    let mut kc = ([[T::ZERO; R]; R], [[T::ZERO; R]; R]);
    let mut a0 = 0;
    while a0 < m {
        a.gather(x, g, phi, a0, m, member);
        diagonal(kernel, prep, &mut a, &mut kc);
        let mut b0 = a0 + R;
        while b0 < m {
            b.gather(x, g, phi, b0, m, member);
            off_diagonal(kernel, prep, &mut a, &mut b, &mut kc);
            b.store(phi);
            b0 += R;
        }
        a.store(phi);
        a0 += R;
    }
}

/// A block's kernel values `k[j][i]` and `c[j][i]` (see [`kernel_block`]).
type Values<T, const R: usize> = ([[T; R]; R], [[T; R]; R]);

/// Up to `R` consecutive batch members: their rows, coordinates, gradients and running sums,
/// lanes last (`x[l][lane]`) so that one coordinate of all lanes is one vector.
struct Tile<T, const R: usize, const D: usize> {
    x: [[T; R]; D],
    g: [[T; R]; D],
    s: [[T; R]; D],
    rows: [usize; R],
    len: usize,
}

impl<T: Float, const R: usize, const D: usize> Tile<T, R, D> {
    /// An empty tile.
    #[inline(always)]
    fn new() -> Self {
        Tile {
            x: [[T::ZERO; R]; D],
            g: [[T::ZERO; R]; D],
            s: [[T::ZERO; R]; D],
            rows: [usize::MAX; R],
            len: 0,
        }
    }

    /// Members `a0 .. min(a0 + R, m)`; missing lanes are zero. A row outside the arrays
    /// (impossible: callers check the lengths) reads as zeros and is never stored.
    #[inline(always)]
    fn gather(
        &mut self,
        x: &[T],
        g: &[T],
        phi: &[T],
        a0: usize,
        m: usize,
        member: &impl Fn(usize) -> usize,
    ) {
        *self = Self::new();
        self.len = m.saturating_sub(a0).min(R);
        let t = self;
        // `min(R)` (a no-op) lets the compiler drop the bounds checks of the lane loops.
        for lane in 0..t.len.min(R) {
            let i = member(a0 + lane);
            t.rows[lane] = i;
            let sp = span(i, D);
            if let (Some(xi), Some(gi), Some(si)) =
                (x.get(sp.clone()), g.get(sp.clone()), phi.get(sp))
            {
                for l in 0..D {
                    t.x[l][lane] = xi[l];
                    t.g[l][lane] = gi[l];
                    t.s[l][lane] = si[l];
                }
            }
        }
    }

    /// Writes the sums back to their rows.
    #[inline(always)]
    fn store(&self, phi: &mut [T]) {
        for lane in 0..self.len.min(R) {
            if let Some(si) = phi.get_mut(span(self.rows[lane], D)) {
                for l in 0..D {
                    si[l] = self.s[l][lane];
                }
            }
        }
    }
}

/// `r²` between lane `i` of `xa` and lane `j` of `xb`, as `sq_dist`: summed from 0 in index
/// order.
#[inline(always)]
fn r2<T: Float, const R: usize, const D: usize>(
    xa: &[[T; R]; D],
    i: usize,
    xb: &[[T; R]; D],
    j: usize,
) -> T {
    let mut s = T::ZERO;
    for l in 0..D {
        let diff = xa[l][i] - xb[l][j];
        s += diff * diff;
    }
    s
}

/// The kernel values of a block into `(k, c)`: `k[j][i]`, `c[j][i]` for lane `i` of `xa`
/// against lane `j` of `xb`, one `eval_tile` per lane vector.
#[inline(always)]
fn kernel_block<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    kernel: &K,
    prep: &K::Prepared,
    xa: &[[T; R]; D],
    xb: &[[T; R]; D],
    (k, c): &mut Values<T, R>,
) {
    for (j, (kj, cj)) in k.iter_mut().zip(c.iter_mut()).enumerate() {
        for (i, kji) in kj.iter_mut().enumerate() {
            *kji = r2(xa, i, xb, j);
        }
        // One lane vector at a time: the values stay in registers.
        kernel.eval_tile(prep, kj, cj);
    }
}

/// The pairs within one tile: every lane `i` takes the tile's members `j ≠ i` in order.
#[inline(always)]
fn diagonal<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    kernel: &K,
    prep: &K::Prepared,
    a: &mut Tile<T, R, D>,
    kc: &mut Values<T, R>,
) {
    kernel_block(kernel, prep, &a.x, &a.x, kc);
    let (k, c) = &*kc;
    for j in 0..a.len.min(R) {
        for l in 0..D {
            let (xj, gj) = (a.x[l][j], a.g[l][j]);
            for i in 0..R {
                let t = c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;
                let s = a.s[l][i];
                // A select, not a branch: the lanes stay one vector.
                a.s[l][i] = if i == j { s } else { s + t };
            }
        }
    }
}

/// The pairs between tile `a` and a later tile `b`: `a`'s lanes take `b`'s members in order,
/// then `b`'s lanes take `a`'s members in order, from the same kernel values.
#[inline(always)]
fn off_diagonal<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
    kernel: &K,
    prep: &K::Prepared,
    a: &mut Tile<T, R, D>,
    b: &mut Tile<T, R, D>,
    kc: &mut Values<T, R>,
) {
    kernel_block(kernel, prep, &a.x, &b.x, kc);
    let (k, c) = &*kc;
    for j in 0..b.len.min(R) {
        for l in 0..D {
            let (xj, gj) = (b.x[l][j], b.g[l][j]);
            for i in 0..R {
                a.s[l][i] += c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;
            }
        }
    }
    for i in 0..a.len.min(R) {
        for l in 0..D {
            let (xi, gi) = (a.x[l][i], a.g[l][i]);
            for j in 0..R {
                b.s[l][j] += c[j][i] * (b.x[l][j] - xi) - k[j][i] * gi;
            }
        }
    }
}

/// The AVX2 and AVX-512 copies of the blocks ([`level`] chooses).
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use super::{Args, Float, Kernel};

    /// [`super::blocks`] with AVX2 enabled.
    ///
    /// # Safety
    /// The CPU must support AVX2 ([`level`](crate::arch::level)).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn blocks_avx2<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
        args: Args<'_, T, K, K::Prepared, impl Fn(usize) -> usize>,
    ) {
        super::blocks::<T, K, R, D>(args)
    }

    /// [`super::blocks`] with AVX-512F enabled.
    ///
    /// # Safety
    /// The CPU must support AVX-512F ([`level`](crate::arch::level)).
    #[cfg(sgs_avx512)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn blocks_avx512<T: Float, K: Kernel<T>, const R: usize, const D: usize>(
        args: Args<'_, T, K, K::Prepared, impl Fn(usize) -> usize>,
    ) {
        super::blocks::<T, K, R, D>(args)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::svgd::kernel::KernelChoice;

    /// The loop of the module docs, literally: for every row, its mates in order.
    pub(in crate::svgd) fn documented<T: Float, K: Kernel<T>>(
        kernel: &K,
        prep: &K::Prepared,
        x: &[T],
        g: &[T],
        d: usize,
        rows: &[usize],
        phi: &mut [T],
    ) {
        for &i in rows {
            let mut s = vec![T::ZERO; d];
            for &j in rows {
                if j == i {
                    continue;
                }
                let xi = &x[i * d..i * d + d];
                let xj = &x[j * d..j * d + d];
                let mut r2 = T::ZERO;
                for l in 0..d {
                    let diff = xi[l] - xj[l];
                    r2 += diff * diff;
                }
                let (k, c) = kernel.eval(prep, r2);
                for l in 0..d {
                    s[l] += c * (xi[l] - xj[l]) - k * g[j * d + l];
                }
            }
            phi[i * d..i * d + d].copy_from_slice(&s);
        }
    }

    /// Blocked (portable and, where the CPU has them, AVX2 and AVX-512) against the documented
    /// loop, bit for bit, over batch sizes with and without a short last tile, every d, a
    /// permuted member map and both kernels' kinds (the Gaussian's vectorised exp, the IMQ's
    /// libm).
    fn check<T: Float>(to_t: impl Fn(f64) -> T, bits: impl Fn(T) -> u64) {
        let mut rng = Rng::new(7, 12);
        let kernels = [
            KernelChoice::Gaussian { h: 0.7 },
            KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ];
        for kernel in kernels {
            let prep = Kernel::<T>::prepare(&kernel, &[], 1, &mut []).unwrap();
            for d in 1..=MAX_D {
                for m in [8, 9, 13, 16, 17, 31, 40, 64, 71] {
                    let n = m + 3;
                    let x: Vec<T> = (0..n * d).map(|_| to_t(1.5 * rng.normal())).collect();
                    let g: Vec<T> = (0..n * d).map(|_| to_t(rng.normal())).collect();
                    // Members: a scrambled subset of distinct rows (7 is prime to every n).
                    let rows: Vec<usize> = (0..m).map(|t| (t * 7 + 2) % n).collect();
                    assert_ne!(n % 7, 0);
                    let member = |t: usize| rows[t];
                    let mut want = vec![T::ZERO; n * d];
                    documented(&kernel, &prep, &x, &g, d, &rows, &mut want);
                    let same =
                        |a: &[T], b: &[T]| a.iter().zip(b).all(|(p, q)| bits(*p) == bits(*q));
                    for wide in [Level::Base, Level::Avx2, Level::Avx512] {
                        if wide > level() {
                            continue;
                        }
                        let mut got = vec![T::ZERO; n * d];
                        let batch = Batch {
                            kernel: &kernel,
                            prep: &prep,
                            x: &x,
                            g: &g,
                            d,
                            m,
                        };
                        by_dimension(batch, &mut got, &member, wide);
                        assert!(same(&want, &got), "{wide:?}: {kernel:?} d={d} m={m}");
                    }
                }
            }
        }
    }

    #[test]
    fn blocks_give_the_documented_loop_bit_for_bit_f64() {
        check::<f64>(|v| v, f64::to_bits);
    }

    #[test]
    fn blocks_give_the_documented_loop_bit_for_bit_f32() {
        check::<f32>(|v| v as f32, |v| v.to_bits() as u64);
    }
}
