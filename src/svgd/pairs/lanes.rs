//! The pair sums of several small batches at once, one batch per vector lane (vector targets).
//!
//! A batch of p = 2 … 8 has 1 … 28 pairs: too few for the vector loops of one batch
//! ([`super::packed`] evaluates its kernel values in 7 vectors at p = 8, but its pair sums are
//! scalar, and p < 4 takes the row loop). RBM-SVGD's batches without replacement all have the
//! same size (the last one may also hold the `N mod p` left over), so [`LANES`] consecutive
//! batches are laid side by side: lane `b` holds batch `b`, and every step of the packed
//! triangle's loop ([`triangle`], one definition for one batch or several: the r² of each pair
//! `{i, j}`, `i < j`, the kernel over all of them, then row by row the sums) runs on all lanes
//! at once. Each lane does exactly the operations of that loop for its own batch, in the same
//! order, so each batch gets the bits of the documented loop whatever the vector width and
//! whichever batches share its group (tested against it below). A group of fewer batches (the
//! end of a range) fills the other lanes with zeros and writes them nowhere.
//!
//! Hosts only (`d ≤ 4`): the group's arrays (9.5 KiB in `f64` at d = 4) live on the stack,
//! which the Cortex-M budget of `step` has no room for. On x86-64 an AVX2 copy is chosen at run
//! time, as in [`super::blocked`] (no AVX-512 one: see [`group_sums`]).

use super::super::kernel::Kernel;
use super::packed::{triangle, Args};
use super::Batch;
use crate::arch::{level, Level};
use crate::float::Float;

/// Batches per group: one AVX-512 vector of `f64` per row coordinate (two AVX2 vectors, or one
/// of `f32`).
pub(in crate::svgd) const LANES: usize = 8;

/// Smallest batch taken here (a batch of 1 has no pairs).
const MIN_MEMBERS: usize = 2;

/// Largest batch taken here: from 9 members on the packed triangle of one batch has vectors
/// long enough of its own, and this group's arrays would grow with the square of p.
const MAX_MEMBERS: usize = 8;

/// Pairs of the largest batch: `MAX_MEMBERS (MAX_MEMBERS − 1) / 2`.
const MAX_PAIRS: usize = MAX_MEMBERS * (MAX_MEMBERS - 1) / 2;

/// Largest dimension taken here (one instance per `d`, as in [`super::packed`]).
const MAX_D: usize = 4;

/// Whether batches of `m` members in `d` dimensions go through the groups (what the caller
/// decides once per batch range; [`group_sums`] checks it again).
#[inline]
pub(in crate::svgd) fn takes(m: usize, d: usize) -> bool {
    (MIN_MEMBERS..=MAX_MEMBERS).contains(&m) && (1..=MAX_D).contains(&d)
}

/// Writes the pair sums of `count ≤ LANES` batches of `m` members each, batch `b` being rows
/// `b·m .. (b + 1)·m` of `x`, `g`, into the same rows of `phi`. Returns `false` (having done
/// nothing) for `m` outside `2..=MAX_MEMBERS`, `d` outside `1..=MAX_D`, `count` outside
/// `1..=LANES` or arrays shorter than `count·m` rows.
#[inline(never)]
pub(in crate::svgd) fn group_sums<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    count: usize,
) -> bool {
    // At most AVX2: with the AVX-512 copy, p = 2 and 8 took as long or up to 15 % longer
    // (criterion, N = 256, d = 1, two alternated runs: 5.6–6.3 against 5.3–5.4 µs at p = 2).
    let wide = level().min(Level::Avx2);
    group_sums_on(batch, phi, count, wide)
}

/// [`group_sums`] with the copy for `wide` (at most what [`level`] reports).
#[inline(always)]
fn group_sums_on<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    count: usize,
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
    if !takes(m, d) || !(1..=LANES).contains(&count) {
        return false;
    }
    let len = count * m * d;
    let (Some(x), Some(g), Some(phi)) = (x.get(..len), g.get(..len), phi.get_mut(..len)) else {
        return false;
    };
    let a = (kernel, prep, x, g, phi, m);
    match d {
        1 => by_cpu::<T, K, 1>(a, wide),
        2 => by_cpu::<T, K, 2>(a, wide),
        3 => by_cpu::<T, K, 3>(a, wide),
        _ => by_cpu::<T, K, 4>(a, wide),
    }
    true
}

/// [`run`] compiled for `wide`'s vector unit.
#[inline(always)]
fn by_cpu<T: Float, K: Kernel<T>, const D: usize>(args: Args<'_, T, K, K::Prepared>, wide: Level) {
    match wide {
        // SAFETY: `wide` is at most what `level()` found on this CPU, and AVX-512F implies
        // AVX2. (No AVX-512 copy: see `group_sums`.)
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        Level::Avx2 | Level::Avx512 => unsafe { run_avx2::<T, K, D>(args) },
        _ => portable::<T, K, D>(args),
    }
}

/// [`run`] for the target's baseline vector unit.
#[inline(never)]
fn portable<T: Float, K: Kernel<T>, const D: usize>(args: Args<'_, T, K, K::Prepared>) {
    run::<T, K, D>(args)
}

/// [`run`] with AVX2 enabled: only the register width changes (no fused multiply-add), so do
/// the bits.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<T: Float, K: Kernel<T>, const D: usize>(args: Args<'_, T, K, K::Prepared>) {
    run::<T, K, D>(args)
}

/// The packed triangle's loop with one batch per lane ([`super::packed`]'s `triangle`).
#[inline(always)]
fn run<T: Float, K: Kernel<T>, const D: usize>(args: Args<'_, T, K, K::Prepared>) {
    triangle::<T, K, D, LANES, MAX_MEMBERS, MAX_PAIRS>(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::svgd::kernel::KernelChoice;
    use crate::svgd::pairs::blocked::tests::documented;

    /// The group (every level this CPU has) against the documented loop batch by batch, bit for
    /// bit: every batch size, dimension and group size it takes, both kernels' kinds.
    fn check<T: Float>(to_t: impl Fn(f64) -> T, bits: impl Fn(T) -> u64) {
        let mut rng = Rng::new(7, 17);
        let kernels = [
            KernelChoice::Gaussian { h: 0.7 },
            KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ];
        for kernel in kernels {
            let prep = Kernel::<T>::prepare(&kernel, &[], 1, &mut []).unwrap();
            for d in 1..=MAX_D {
                for m in MIN_MEMBERS..=MAX_MEMBERS {
                    for count in 1..=LANES {
                        let len = count * m * d;
                        let x: Vec<T> = (0..len).map(|_| to_t(1.5 * rng.normal())).collect();
                        let g: Vec<T> = (0..len).map(|_| to_t(rng.normal())).collect();
                        let rows: Vec<usize> = (0..m).collect();
                        let mut want = vec![T::ZERO; len];
                        for ((xb, gb), wb) in x
                            .chunks(m * d)
                            .zip(g.chunks(m * d))
                            .zip(want.chunks_mut(m * d))
                        {
                            documented(&kernel, &prep, xb, gb, d, &rows, wb);
                        }
                        for wide in [Level::Base, Level::Avx2] {
                            if wide > level() {
                                continue;
                            }
                            // Past the group: must stay as it was.
                            let mut got = vec![T::from_f64(9.0); len + d];
                            let batch = Batch::new(&kernel, &prep, &x, &g, d, m);
                            assert!(group_sums_on(batch, &mut got, count, wide));
                            let same = want.iter().zip(&got).all(|(p, q)| bits(*p) == bits(*q));
                            assert!(same, "{wide:?}: {kernel:?} d={d} m={m} count={count}");
                            assert!(got[len..]
                                .iter()
                                .all(|&v| bits(v) == bits(T::from_f64(9.0))));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn lanes_give_the_documented_loop_bit_for_bit_f64() {
        check::<f64>(|v| v, f64::to_bits);
    }

    #[test]
    fn lanes_give_the_documented_loop_bit_for_bit_f32() {
        check::<f32>(|v| v as f32, |v| v.to_bits() as u64);
    }

    #[test]
    fn lanes_refuse_what_they_do_not_take() {
        let kernel = KernelChoice::Gaussian { h: 1.0 };
        let prep = Kernel::<f64>::prepare(&kernel, &[], 1, &mut []).unwrap();
        let (x, g) = ([0.5; 80], [0.25; 80]);
        let mut phi = [7.0; 80];
        let call = |phi: &mut [f64], d, m, count| {
            group_sums(Batch::new(&kernel, &prep, &x, &g, d, m), phi, count)
        };
        for (d, m, count) in [
            (1, 1, 1),
            (1, MAX_MEMBERS + 1, 1),
            (MAX_D + 1, 2, 1),
            (1, 2, 0),
            (1, 2, LANES + 1),
            (2, 8, 8), // arrays shorter than count·m rows
        ] {
            assert!(!call(&mut phi, d, m, count), "d {d} m {m} count {count}");
            // A refusal writes nothing.
            assert!(phi.iter().all(|&v| v == 7.0));
        }
        // The accepted call writes its 64 rows (equal positions: every pair term is
        // −k·g = −0.25) and nothing past them.
        assert!(call(&mut phi, 1, 8, 8));
        assert!(phi[..64].iter().all(|&v| v == -7.0 * 0.25));
        assert!(phi[64..].iter().all(|&v| v == 7.0));
        assert!(!takes(1, 1) && !takes(MAX_MEMBERS + 1, 1) && !takes(2, MAX_D + 1));
        assert!(takes(2, 1) && takes(MAX_MEMBERS, MAX_D));
    }
}
