//! The pair sums of a small batch with all its kernel values in one tile (vector targets).
//!
//! Batches of up to 8 without replacement usually go through [`super::lanes`], eight batches
//! side by side with this loop's operations in every lane; this loop serves one batch at a time:
//! batches of 9 to 16, the last batch with its `N mod p` left over, and batches with
//! replacement (one sub-step after the other).
//!
//! RBM-SVGD's usual batches are small (the paper's p = 2 … 32). Row by row, a batch of 8 gives
//! its rows tiles of 7, 6, …, 1 kernel values, too short for the vector loop of
//! [`Kernel::eval_tile`]; in blocks of `R` rows ([`super::blocked`]) it computes `R²` values per
//! diagonal block for `R(R−1)/2` pairs. Here every unordered pair `{i, j}`, `i < j`, gets its r²
//! in one packed upper triangle (row-major), the kernel is evaluated over the whole triangle in
//! one `eval_tile` (one vector loop over `m(m−1)/2` values), and the sums then take the
//! triangle's pairs in order (see [`run`]). Every row still takes its mates in batch order,
//! `s_i += c·(x_i − x_j) − k·g_j` from 0, so the bits are those of the loop of the parent
//! module's docs (tested against it below).
//!
//! Hosts only (`d ≤ 4`, batches of up to 16): the triangle's two arrays (up to 120 values each)
//! live on the stack, which the Cortex-M budget of `step` has no room for. On x86-64 an AVX2 copy
//! is chosen at run time, as in [`super::blocked`] (no AVX-512 one: see [`triangle_sums`]).

// Coordinate loops index several rows with the same l: clearer than zipped iterators.
#![allow(clippy::needless_range_loop)]

use super::super::kernel::Kernel;
use super::Batch;
use crate::arch::{level, Level};
use crate::float::Float;

/// Smallest batch taken here: below it the local arrays cost more than they save (measured
/// with `benches/callgrind.sh`: p = 2 +6% instructions, p = 3 the same, p = 4 −11%).
const MIN_MEMBERS: usize = 4;

/// Largest batch taken here (p = 16: −14% instructions; from 17 on the blocks of
/// [`super::blocked`] waste a small share of their kernel values).
const MAX_MEMBERS: usize = 16;

/// Largest dimension taken here (one instance per `d`; beyond it the coordinate loops dominate
/// and the row loop of the parent module does as well).
const MAX_D: usize = 4;

/// Writes the pair sums of the batch whose members are rows `0..m` of `x`, `g` into rows `0..m`
/// of `phi`. Returns `false` (having done nothing) for `m` outside
/// `MIN_MEMBERS..=MAX_MEMBERS`, `d` outside `1..=MAX_D` or arrays shorter than `m` rows.
#[inline(always)]
pub(super) fn triangle_sums<T: Float, K: Kernel<T>>(batch: Batch<'_, T, K>, phi: &mut [T]) -> bool {
    // At most AVX2: the triangle's 6 to 120 values make short vector loops, whose set-up and
    // remainder cost more than 512-bit registers save (measured: p = 8 took 10.1 µs per
    // iteration with the AVX-512 copy against 7.8 µs with AVX2, criterion, N = 256, d = 1).
    triangle_sums_on(batch, phi, level().min(Level::Avx2))
}

/// [`triangle_sums`] with the copy for `wide` (at most what [`level`] reports).
#[inline(always)]
fn triangle_sums_on<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    wide: Level,
) -> bool {
    let Batch {
        kernel,
        prep,
        x,
        g,
        d,
        m,
    } = batch;
    if !(MIN_MEMBERS..=MAX_MEMBERS).contains(&m) || !(1..=MAX_D).contains(&d) {
        return false;
    }
    let len = m * d;
    let (Some(x), Some(g), Some(phi)) = (x.get(..len), g.get(..len), phi.get_mut(..len)) else {
        return false;
    };
    let a = (kernel, prep, x, g, phi, m);
    // Triangles of 28 values (up to 8 members) or 120: a smaller one is cheaper to set up.
    match (d, m <= 8) {
        (1, true) => by_cpu::<T, K, 1, 28>(a, wide),
        (2, true) => by_cpu::<T, K, 2, 28>(a, wide),
        (3, true) => by_cpu::<T, K, 3, 28>(a, wide),
        (_, true) => by_cpu::<T, K, 4, 28>(a, wide),
        (1, false) => by_cpu::<T, K, 1, 120>(a, wide),
        (2, false) => by_cpu::<T, K, 2, 120>(a, wide),
        (3, false) => by_cpu::<T, K, 3, 120>(a, wide),
        (_, false) => by_cpu::<T, K, 4, 120>(a, wide),
    }
    true
}

/// The arguments of [`run`] and [`triangle`]: kernel, prepared constants, x, g, phi (each
/// exactly `m` rows for [`run`], whole batches of `m` rows for [`triangle`]), m.
pub(super) type Args<'a, T, K, P> = (&'a K, &'a P, &'a [T], &'a [T], &'a mut [T], usize);

/// [`run`] compiled for `wide`'s vector unit.
#[inline(always)]
fn by_cpu<T: Float, K: Kernel<T>, const D: usize, const P: usize>(
    args: Args<'_, T, K, K::Prepared>,
    wide: Level,
) {
    match wide {
        // SAFETY: `wide` is at most what `level()` found on this CPU, and AVX-512F implies
        // AVX2. (No AVX-512 copy here: see `triangle_sums`.)
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        Level::Avx2 | Level::Avx512 => unsafe { run_avx2::<T, K, D, P>(args) },
        _ => portable::<T, K, D, P>(args),
    }
}

/// [`run`] for the target's baseline vector unit.
#[inline(never)]
fn portable<T: Float, K: Kernel<T>, const D: usize, const P: usize>(
    args: Args<'_, T, K, K::Prepared>,
) {
    run::<T, K, D, P>(args)
}

/// [`run`] with AVX2 enabled: only the register width changes (no fused multiply-add), so do
/// the bits.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<T: Float, K: Kernel<T>, const D: usize, const P: usize>(
    args: Args<'_, T, K, K::Prepared>,
) {
    run::<T, K, D, P>(args)
}

/// [`triangle`] for one batch of `m` rows, held in arrays of up to [`MAX_MEMBERS`] rows.
#[inline(always)]
fn run<T: Float, K: Kernel<T>, const D: usize, const P: usize>(args: Args<'_, T, K, K::Prepared>) {
    triangle::<T, K, D, 1, MAX_MEMBERS, P>(args)
}

/// The triangle's r², its kernel values in one tile, then the sums pair by pair in triangle
/// order, for up to `L` batches of `m ≤ M` members side by side: batch `b` is rows `b·m ..
/// (b + 1)·m` of `x` and `g` (as many whole batches as `x` holds, at most `L`), and its pair sums
/// go to the same rows of `phi`. Each batch has a lane of every local array, and every lane does
/// the operations below for its own batch, in this order, so a batch's bits do not depend on
/// `L`, on the other lanes or on the vector width ([`super::lanes`] runs 8 lanes, [`run`] one).
///
/// The order: for `i` in order, row `i`'s own sum (kept in a local, started from what the
/// earlier rows added to it) takes `j = i + 1 … m − 1` in order, and each such `j` gets the pair's
/// term for its row, after the terms of the rows before `i`. So every row takes its mates in
/// batch order, as documented. Row `j`'s term is computed as `−c·(x_i − x_j) − k·g_i`: the same
/// bits as `c·(x_j − x_i) − k·g_i` except for the sign of an exact zero, which cannot change a
/// sum that starts at +0 (such a sum is never −0). Does nothing if `m(m − 1)/2 > P`.
#[inline(always)]
pub(super) fn triangle<
    T: Float,
    K: Kernel<T>,
    const D: usize,
    const L: usize,
    const M: usize,
    const P: usize,
>(
    (kernel, prep, x, g, phi, m): Args<'_, T, K, K::Prepared>,
) {
    let m = m.min(M);
    // `[member][coordinate][lane]`: one coordinate of one member across the batches.
    let mut xs = [[[T::ZERO; L]; D]; M];
    let mut gs = [[[T::ZERO; L]; D]; M];
    let mut ps = [[[T::ZERO; L]; D]; M];
    // At least 1: `chunks_exact(0)` would be a panic path (and `m ≥ 2` here anyway).
    let batch = (m * D).max(1);
    // Zipped with the lanes and the rows (not indexed): no bounds check, no panic path.
    for (b, (xb, gb)) in (0..L).zip(x.chunks_exact(batch).zip(g.chunks_exact(batch))) {
        let rows = xb.chunks_exact(D).zip(gb.chunks_exact(D));
        for ((xm, gm), (xr, gr)) in xs.iter_mut().zip(gs.iter_mut()).zip(rows) {
            for ((xl, gl), (&xv, &gv)) in xm.iter_mut().zip(gm.iter_mut()).zip(xr.iter().zip(gr)) {
                xl[b] = xv;
                gl[b] = gv;
            }
        }
    }
    let pairs = m * (m - 1) / 2;
    let (mut kb, mut cb) = ([[T::ZERO; L]; P], [[T::ZERO; L]; P]);
    let (Some(kt), Some(ct)) = (kb.get_mut(..pairs), cb.get_mut(..pairs)) else {
        return;
    };
    // r² of {i, j}, i < j, at t(i, j) = t(i, i + 1) + (j − i − 1): the triangle's rows in order.
    let mut t = 0;
    for i in 0..m {
        for j in i + 1..m {
            let mut r2 = [T::ZERO; L];
            for l in 0..D {
                for b in 0..L {
                    let diff = xs[i][l][b] - xs[j][l][b];
                    r2[b] += diff * diff;
                }
            }
            if let Some(v) = kt.get_mut(t) {
                *v = r2;
            }
            t += 1;
        }
    }
    kernel.eval_tile(prep, kt.as_flattened_mut(), ct.as_flattened_mut());
    let mut t = 0;
    for i in 0..m {
        let (xi, gi, mut si) = (xs[i], gs[i], ps[i]);
        for j in i + 1..m {
            let (Some(k), Some(c)) = (kt.get(t), ct.get(t)) else {
                return;
            };
            t += 1;
            for l in 0..D {
                for b in 0..L {
                    let cd = c[b] * (xi[l][b] - xs[j][l][b]);
                    si[l][b] += cd - k[b] * gs[j][l][b];
                    ps[j][l][b] += -cd - k[b] * gi[l][b];
                }
            }
        }
        ps[i] = si;
    }
    for (b, pb) in (0..L).zip(phi.chunks_exact_mut(batch)) {
        for (pm, pr) in ps.iter().zip(pb.chunks_exact_mut(D)) {
            for (v, pl) in pr.iter_mut().zip(pm) {
                *v = pl[b];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::svgd::kernel::KernelChoice;
    use crate::svgd::pairs::blocked::tests::documented;

    /// The packed triangle (portable and, where the CPU has it, AVX2) against the documented
    /// loop, bit for bit: every batch size it takes, every dimension, both kernels' kinds.
    fn check<T: Float>(to_t: impl Fn(f64) -> T, bits: impl Fn(T) -> u64) {
        let mut rng = Rng::new(7, 13);
        let kernels = [
            KernelChoice::Gaussian { h: 0.7 },
            KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ];
        for kernel in kernels {
            let prep = Kernel::<T>::prepare(&kernel, &[], 1, &mut []).unwrap();
            for d in 1..=MAX_D {
                for m in MIN_MEMBERS..=MAX_MEMBERS {
                    let x: Vec<T> = (0..m * d).map(|_| to_t(1.5 * rng.normal())).collect();
                    let g: Vec<T> = (0..m * d).map(|_| to_t(rng.normal())).collect();
                    let rows: Vec<usize> = (0..m).collect();
                    let mut want = vec![T::ZERO; m * d];
                    documented(&kernel, &prep, &x, &g, d, &rows, &mut want);
                    let same = |got: &[T]| want.iter().zip(got).all(|(p, q)| bits(*p) == bits(*q));
                    for wide in [Level::Base, Level::Avx2] {
                        if wide > level() {
                            continue;
                        }
                        let mut got = vec![T::ZERO; m * d];
                        let batch = Batch::new(&kernel, &prep, &x, &g, d, m);
                        assert!(triangle_sums_on(batch, &mut got, wide));
                        assert!(same(&got), "{wide:?}: {kernel:?} d={d} m={m}");
                    }
                }
            }
        }
    }

    #[test]
    fn packed_gives_the_documented_loop_bit_for_bit_f64() {
        check::<f64>(|v| v, f64::to_bits);
    }

    #[test]
    fn packed_gives_the_documented_loop_bit_for_bit_f32() {
        check::<f32>(|v| v as f32, |v| v.to_bits() as u64);
    }

    #[test]
    fn packed_refuses_what_it_does_not_take() {
        let kernel = KernelChoice::Gaussian { h: 1.0 };
        let prep = Kernel::<f64>::prepare(&kernel, &[], 1, &mut []).unwrap();
        let (x, g) = ([0.0; 40], [0.0; 40]);
        let mut phi = [0.0; 40];
        assert!(!triangle_sums(
            Batch::new(&kernel, &prep, &x, &g, 1, MIN_MEMBERS - 1),
            &mut phi
        ));
        assert!(!triangle_sums(
            Batch::new(&kernel, &prep, &x, &g, 1, MAX_MEMBERS + 1),
            &mut phi
        ));
        assert!(!triangle_sums(
            Batch::new(&kernel, &prep, &x, &g, MAX_D + 1, 4),
            &mut phi
        ));
        // Arrays shorter than m rows.
        assert!(!triangle_sums(
            Batch::new(&kernel, &prep, &x, &g, 3, 14),
            &mut phi
        ));
    }
}
