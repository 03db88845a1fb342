//! The row loop of the pair sums: every batch on targets without vector units, and on hosts the
//! batches no vectorised form takes (d > 4, batches of 2 or 3 outside a lane group).

use super::super::kernel::Kernel;
use super::super::rows::{span, sq_dist};
use super::tile;
use crate::float::Float;

/// `W` is the tile width: [`super::TILE`], 16 on hosts and 1 on targets without vector units
/// (the tests run both on the host). The batch's members are its rows `0..m`, and the arguments
/// come one by one rather than as a [`super::Batch`]: on Cortex-M, where these loops are calls of
/// their own, an aggregate argument is a copy in the caller's frame and the call can no longer
/// replace the caller's frame (a tail call), 216 bytes more on the deepest stack path of `step`.
///
/// The pair loop at `d = 1`. For member `a` (row `i`), `φ_i` accumulates in a local over the
/// inner loop and is stored once at its end: its sum gets the same terms in the same order as
/// in memory (the earlier members' updates of `φ_i` came before, in `a` order), and no borrow
/// of it is held, so each later member's `φ_j` is one checked element of `phi`. The three
/// arrays are cut to their common length first, so that one check covers `x_j`, `g_j` and
/// `φ_j`. `j = i` (impossible: batch members are distinct) or a row outside is skipped (its
/// tile slot gets a dummy r² whose kernel values are never used). The tile keeps its members'
/// rows (`jbuf`), so the permutation is read once per pair. A call of its own on targets
/// without vector units, like [`row_loop`]: one frame holding both loops' values was the
/// largest on what was the deepest stack path of `step` on Cortex-M (docs/footprint.md).
#[cfg_attr(sgs_vector, inline(always))]
#[cfg_attr(not(sgs_vector), inline(never))]
pub(super) fn row_loop_d1<T: Float, K: Kernel<T>, const W: usize>(
    kernel: &K,
    prep: &K::Prepared,
    x: &[T],
    g: &[T],
    phi: &mut [T],
    m: usize,
) {
    let len = x.len().min(g.len()).min(phi.len());
    let (Some(x), Some(g), Some(phi)) = (x.get(..len), g.get(..len), phi.get_mut(..len)) else {
        return;
    };
    let (mut kbuf, mut cbuf, mut jbuf) = ([T::ZERO; W], [T::ZERO; W], [0usize; W]);
    for a in 0..m {
        let i = a;
        let (Some(&xi), Some(&gi), Some(&pi)) = (x.get(i), g.get(i), phi.get(i)) else {
            continue;
        };
        let mut si = pi;
        let mut b0 = a + 1;
        while b0 < m {
            let b1 = m.min(b0 + W);
            let (kt, ct) = (tile(&mut kbuf, b1 - b0), tile(&mut cbuf, b1 - b0));
            for ((r2, jt), b) in kt.iter_mut().zip(jbuf.iter_mut()).zip(b0..b1) {
                let j = b;
                *jt = j;
                // r² exactly as `sq_dist` on one coordinate: 0 + diff².
                let diff = xi - x.get(j).copied().unwrap_or(xi);
                *r2 = T::ZERO;
                *r2 += diff * diff;
            }
            kernel.eval_tile(prep, kt, ct);
            for ((&k, &c), &j) in kt.iter().zip(ct.iter()).zip(jbuf.iter()) {
                if j == i {
                    continue;
                }
                let (Some(&xj), Some(&gj), Some(pj)) = (x.get(j), g.get(j), phi.get_mut(j)) else {
                    continue;
                };
                let cd = c * (xi - xj);
                si += cd - k * gj;
                *pj += -cd - k * gi;
            }
            b0 = b1;
        }
        if let Some(pi) = phi.get_mut(i) {
            *pi = si;
        }
    }
}

/// The pair loop for any `d`: for member `a` (row `i`), `phi` is split once into the rows
/// before row `i`, row `i` and the rows after it, so that each later member `j` finds its row
/// on one side with one check (no per-pair split). Tiles as at `d = 1`: the tile's r², its
/// kernel values, then the sums in order. `j = i` or a row outside is skipped. A call of its
/// own on targets without vector units (see [`row_loop_d1`]).
#[cfg_attr(sgs_vector, inline(always))]
#[cfg_attr(not(sgs_vector), inline(never))]
pub(super) fn row_loop<T: Float, K: Kernel<T>, const W: usize>(
    kernel: &K,
    prep: &K::Prepared,
    x: &[T],
    g: &[T],
    phi: &mut [T],
    d: usize,
    m: usize,
) {
    let (mut kbuf, mut cbuf, mut jbuf) = ([T::ZERO; W], [T::ZERO; W], [0usize; W]);
    for a in 0..m {
        let i = a;
        // Rows as `get(range)`: their length is d by construction of the range; a row outside
        // (impossible) is skipped.
        let (Some(xi), Some(gi)) = (x.get(span(i, d)), g.get(span(i, d))) else {
            continue;
        };
        let Some((lo, rest)) = phi.split_at_mut_checked(i.wrapping_mul(d)) else {
            continue;
        };
        let Some((pi, hi)) = rest.split_at_mut_checked(d) else {
            continue;
        };
        let mut b0 = a + 1;
        while b0 < m {
            let b1 = m.min(b0 + W);
            let (kt, ct) = (tile(&mut kbuf, b1 - b0), tile(&mut cbuf, b1 - b0));
            for ((r2, jt), b) in kt.iter_mut().zip(jbuf.iter_mut()).zip(b0..b1) {
                let j = b;
                *jt = j;
                *r2 = sq_dist(xi, x.get(span(j, d)).unwrap_or(xi));
            }
            kernel.eval_tile(prep, kt, ct);
            for ((&k, &c), &j) in kt.iter().zip(ct.iter()).zip(jbuf.iter()) {
                let (Some(xj), Some(gj)) = (x.get(span(j, d)), g.get(span(j, d))) else {
                    continue;
                };
                let pj = if j < i {
                    lo.get_mut(span(j, d))
                } else {
                    hi.get_mut(span(j.wrapping_sub(i).wrapping_sub(1), d))
                };
                let Some(pj) = pj else {
                    continue;
                };
                for l in 0..d {
                    let cd = c * (xi[l] - xj[l]);
                    pi[l] += cd - k * gj[l];
                    pj[l] += -cd - k * gi[l];
                }
            }
            b0 = b1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::svgd::kernel::KernelChoice;
    use crate::svgd::pairs::blocked::tests::documented;

    /// Both loops with the bare-metal tile width (1) and the host's (16), against the documented
    /// loop, bit for bit: batches shorter and longer
    /// than a tile, d = 1 (its own loop) and d > 1, both kernels' kinds, f64 and f32.
    fn check<T: Float>(to_t: impl Fn(f64) -> T, bits: impl Fn(T) -> u64) {
        let mut rng = Rng::new(7, 21);
        let kernels = [
            KernelChoice::Gaussian { h: 0.7 },
            KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ];
        for kernel in kernels {
            let prep = Kernel::<T>::prepare(&kernel, &[], 1, &mut []).unwrap();
            for d in [1, 2, 5] {
                for m in [2, 3, 9, 16, 17, 40] {
                    let n = m + 3;
                    let x: Vec<T> = (0..n * d).map(|_| to_t(1.5 * rng.normal())).collect();
                    let g: Vec<T> = (0..n * d).map(|_| to_t(rng.normal())).collect();
                    // Members: rows 0..m; the rows after them must stay untouched.
                    let rows: Vec<usize> = (0..m).collect();
                    let mut want = vec![T::ZERO; n * d];
                    documented(&kernel, &prep, &x, &g, d, &rows, &mut want);
                    let run = |one: bool| {
                        let mut got = vec![T::ZERO; n * d];
                        match (d, one) {
                            (1, true) => {
                                row_loop_d1::<T, _, 1>(&kernel, &prep, &x, &g, &mut got, m)
                            }
                            (1, false) => {
                                row_loop_d1::<T, _, 16>(&kernel, &prep, &x, &g, &mut got, m)
                            }
                            (_, true) => {
                                row_loop::<T, _, 1>(&kernel, &prep, &x, &g, &mut got, d, m)
                            }
                            (_, false) => {
                                row_loop::<T, _, 16>(&kernel, &prep, &x, &g, &mut got, d, m)
                            }
                        }
                        got
                    };
                    for one in [true, false] {
                        let got = run(one);
                        let same = want.iter().zip(&got).all(|(p, q)| bits(*p) == bits(*q));
                        assert!(same, "tile 1: {one}, {kernel:?} d={d} m={m}");
                    }
                }
            }
        }
    }

    #[test]
    fn row_loops_give_the_documented_loop_at_both_tile_widths_f64() {
        check::<f64>(|v| v, f64::to_bits);
    }

    #[test]
    fn row_loops_give_the_documented_loop_at_both_tile_widths_f32() {
        check::<f32>(|v| v as f32, |v| v.to_bits() as u64);
    }
}
