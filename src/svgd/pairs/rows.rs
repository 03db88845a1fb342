//! The row loop of the pair sums: every batch on targets without vector units, and on hosts the
//! batches no vectorised form takes (d > 4, batches of 2 or 3 outside a lane group).

use super::super::kernel::Kernel;
use super::super::rows::{span, sq_dist};
use super::{tile, Batch, TILE};
use crate::float::Float;

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
pub(super) fn row_loop_d1<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    member: impl Fn(usize) -> usize,
) {
    let Batch {
        kernel,
        prep,
        x,
        g,
        m,
        ..
    } = batch;
    let len = x.len().min(g.len()).min(phi.len());
    let (Some(x), Some(g), Some(phi)) = (x.get(..len), g.get(..len), phi.get_mut(..len)) else {
        return;
    };
    let (mut kbuf, mut cbuf, mut jbuf) = ([T::ZERO; TILE], [T::ZERO; TILE], [0usize; TILE]);
    for a in 0..m {
        let i = member(a);
        let (Some(&xi), Some(&gi), Some(&pi)) = (x.get(i), g.get(i), phi.get(i)) else {
            continue;
        };
        let mut si = pi;
        let mut b0 = a + 1;
        while b0 < m {
            let b1 = m.min(b0 + TILE);
            let (kt, ct) = (tile(&mut kbuf, b1 - b0), tile(&mut cbuf, b1 - b0));
            for ((r2, jt), b) in kt.iter_mut().zip(jbuf.iter_mut()).zip(b0..b1) {
                let j = member(b);
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
pub(super) fn row_loop<T: Float, K: Kernel<T>>(
    batch: Batch<'_, T, K>,
    phi: &mut [T],
    member: impl Fn(usize) -> usize,
) {
    let Batch {
        kernel,
        prep,
        x,
        g,
        d,
        m,
    } = batch;
    let (mut kbuf, mut cbuf, mut jbuf) = ([T::ZERO; TILE], [T::ZERO; TILE], [0usize; TILE]);
    for a in 0..m {
        let i = member(a);
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
            let b1 = m.min(b0 + TILE);
            let (kt, ct) = (tile(&mut kbuf, b1 - b0), tile(&mut cbuf, b1 - b0));
            for ((r2, jt), b) in kt.iter_mut().zip(jbuf.iter_mut()).zip(b0..b1) {
                let j = member(b);
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
