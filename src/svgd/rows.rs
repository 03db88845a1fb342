//! Rows of row-major arrays (`d` coordinates each) taken without a panic path, and the squared
//! distance between two rows: what every part of an iteration reads its particles through.

use crate::float::Float;

/// `|x − y|²`, summed from 0 in index order.
#[inline]
pub(crate) fn sq_dist<T: Float>(x: &[T], y: &[T]) -> T {
    let mut s = T::ZERO;
    for (a, b) in x.iter().zip(y) {
        let diff = *a - *b;
        s += diff * diff;
    }
    s
}

/// The index range of row `i` (`d` coordinates) of a row-major array. Wrapping arithmetic: for
/// a valid row (`i` below the row count, whose product with `d` was checked in `new`) nothing
/// wraps; for any other `i` the range is out of bounds or at worst another row, never a panic.
#[inline]
pub(super) fn span(i: usize, d: usize) -> core::ops::Range<usize> {
    let s = i.wrapping_mul(d);
    s..s.wrapping_add(d)
}

/// Row `i` of a row-major array; empty when it lies outside (callers check lengths first, so
/// that never happens: the fallback only keeps panics out of the code).
#[inline]
pub(super) fn row<T>(a: &[T], i: usize, d: usize) -> &[T] {
    a.get(span(i, d)).unwrap_or(&[])
}

/// Row `i` of a row-major array, mutable; empty when it lies outside.
#[inline]
pub(super) fn row_mut<T>(a: &mut [T], i: usize, d: usize) -> &mut [T] {
    a.get_mut(span(i, d)).unwrap_or(&mut [])
}

/// `a.chunks_exact(d)` without the panic path of `d = 0` (`d ≥ 1` is checked in `new`).
#[inline]
pub(super) fn rows<T>(a: &[T], d: usize) -> core::slice::ChunksExact<'_, T> {
    a.chunks_exact(d.max(1))
}

/// `a.chunks_exact_mut(d)` without the panic path of `d = 0`.
#[inline]
pub(super) fn rows_mut<T>(a: &mut [T], d: usize) -> core::slice::ChunksExactMut<'_, T> {
    a.chunks_exact_mut(d.max(1))
}

/// Slot rows `s..e` (relative to the rows given) of a batch range's positions, gradients and
/// forces; `None` if they lie outside.
#[inline]
pub(super) fn slot_rows<'a, T>(
    xs: &'a [T],
    g: &'a [T],
    phi: &'a mut [T],
    s: usize,
    e: usize,
    d: usize,
) -> Option<(&'a [T], &'a [T], &'a mut [T])> {
    let r = span(s, d).start..span(e, d).start;
    Some((xs.get(r.clone())?, g.get(r.clone())?, phi.get_mut(r)?))
}
