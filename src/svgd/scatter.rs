//! Copies from slot order into particle order (slot `s` holds particle `perm[s]`).

use super::rows::{row_mut, rows};
use crate::float::{copy, Float};

/// `dst` row `perm[s]` ← `src` row `s` for every slot `s` (slot order into particle order);
/// element by element at `d = 1` (a copy call per row would cost more than the row).
#[inline(never)]
pub(super) fn scatter_rows<T: Float>(dst: &mut [T], src: &[T], perm: &[u32], d: usize) {
    if d == 1 {
        for (&v, &i) in src.iter().zip(perm) {
            if let Some(t) = dst.get_mut(i as usize) {
                *t = v;
            }
        }
        return;
    }
    for (r, &i) in rows(src, d).zip(perm) {
        copy(row_mut(dst, i as usize, d), r);
    }
}

/// The moves the ranges computed ([`SvgdCore::move_range`](super::core::SvgdCore::move_range)), slot order into particle order:
/// particle `perm[s]` ← row `s` of `xs`, its history ← row `s` of `hs` (with AdaGrad: `hist`
/// is then not empty).
#[inline(never)]
pub(super) fn scatter_moves<T: Float>(
    particles: &mut [T],
    hist: &mut [T],
    xs: &[T],
    hs: &[T],
    perm: &[u32],
    d: usize,
) {
    if hist.is_empty() {
        scatter_rows(particles, xs, perm, d);
        return;
    }
    if d == 1 {
        for ((&x, &h), &i) in xs.iter().zip(hs).zip(perm) {
            if let (Some(xt), Some(ht)) = (particles.get_mut(i as usize), hist.get_mut(i as usize))
            {
                (*xt, *ht) = (x, h);
            }
        }
        return;
    }
    for ((x, h), &i) in rows(xs, d).zip(rows(hs, d)).zip(perm) {
        copy(row_mut(particles, i as usize, d), x);
        copy(row_mut(hist, i as usize, d), h);
    }
}
