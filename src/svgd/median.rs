//! The exact median of the pairwise distances, by selection (no sorting, no allocation).
//!
//! [`select`] is an introselect: quickselect with a median-of-three pivot and a three-way
//! partition (so runs of equal distances, e.g. coincident particles, cost O(n)), switching to
//! the median-of-medians pivot after `2·⌊log₂ n⌋` rounds, which bounds the worst case at O(n).
//! Every pivot is a deterministic function of the data: the result is reproducible (it is the
//! k-th order statistic in any case; only the permutation left in the buffer depends on the
//! rule).

use super::rows::sq_dist;
use crate::float::Float;

/// Ranges at most this long are finished by insertion sort.
const SMALL: usize = 16;

/// Returns the median of the distances `sqrt(r²(X_i, X_j))`, `i < j`, widened to `f64` (the
/// mean, in `f64`, of the two middle values when the count is even; 0 when there are no pairs),
/// using `scratch` (exactly `n(n−1)/2` long, `n = xs.len() / d`) for the squared distances
/// `r²(X_i, X_j)` (i outer, j inner). The selection runs on the squared distances and only the
/// middle values get their square root: `sqrt` is correctly rounded and non-decreasing, so the
/// k-th smallest `sqrt(r²)` is the square root of the k-th smallest `r²`, the same bits as
/// taking every root first (N(N−1)/2 square roots fewer).
///
/// No indexing that could panic: every access is checked, and the (unreachable) fallbacks keep
/// panic paths out of the code.
pub(crate) fn median_pairwise_distance<T: Float>(xs: &[T], d: usize, scratch: &mut [T]) -> f64 {
    let mut slot = scratch.iter_mut();
    let d = d.max(1);
    for (i, xi) in xs.chunks_exact(d).enumerate() {
        for xj in xs.chunks_exact(d).skip(i + 1) {
            match slot.next() {
                Some(s) => *s = sq_dist(xi, xj),
                None => break,
            }
        }
    }
    let m = scratch.len();
    let k = m / 2;
    select(scratch, k);
    let (left, right) = scratch.split_at(k);
    let Some(hi) = right.first().map(|v| v.sqrt().to_f64()) else {
        return 0.0;
    };
    if m % 2 == 1 {
        return hi;
    }
    // After selection everything left of k is ≤ scratch[k]: the lower middle value is their max.
    let Some((&first, rest)) = left.split_first() else {
        return hi;
    };
    let mut lo = first;
    for &v in rest {
        if v > lo {
            lo = v;
        }
    }
    0.5 * (lo.sqrt().to_f64() + hi)
}

/// Rearranges `v` so that `v[k]` is its k-th smallest element (0-based), everything before it
/// `≤` and everything after it `≥` (for NaN-free data). Does nothing when `k ≥ v.len()`.
pub(crate) fn select<T: Float>(v: &mut [T], k: usize) {
    if k >= v.len() {
        return;
    }
    let mut lo = 0;
    let mut hi = v.len();
    let mut budget = 2 * (usize::BITS - v.len().leading_zeros()) as usize;
    while hi - lo > SMALL {
        let Some(range) = v.get_mut(lo..hi) else {
            return;
        };
        let pivot = if budget > 0 {
            budget -= 1;
            median_of_three(range)
        } else {
            median_of_medians(range)
        };
        // The pivot is an element of the range, so the "equal" part is never empty and the
        // range shrinks every round.
        let (lt, gt) = partition3(range, pivot);
        if k < lo + lt {
            hi = lo + lt;
        } else if k >= lo + gt {
            lo += gt;
        } else {
            return;
        }
    }
    if let Some(range) = v.get_mut(lo..hi) {
        insertion_sort(range);
    }
}

/// `v.swap(a, b)` when both are in range (always, at the call sites; no panic path).
#[inline]
fn swap<T>(v: &mut [T], a: usize, b: usize) {
    if a < v.len() && b < v.len() {
        v.swap(a, b);
    }
}

/// Three-way partition around `pivot`: returns `(lt, gt)` with `v[..lt] < pivot`,
/// `v[lt..gt]` equal (or unordered), `v[gt..] > pivot`.
fn partition3<T: Float>(v: &mut [T], pivot: T) -> (usize, usize) {
    let mut lt = 0;
    let mut i = 0;
    let mut gt = v.len();
    while i < gt {
        let Some(&x) = v.get(i) else {
            break;
        };
        if x < pivot {
            swap(v, lt, i);
            lt += 1;
            i += 1;
        } else if x > pivot {
            gt -= 1;
            swap(v, i, gt);
        } else {
            i += 1;
        }
    }
    (lt, gt)
}

/// The median of the first, middle and last elements (`v` non-empty; 0 otherwise).
fn median_of_three<T: Float>(v: &[T]) -> T {
    let (Some(&a), Some(&b), Some(&c)) = (v.first(), v.get(v.len() / 2), v.last()) else {
        return T::ZERO;
    };
    if (a < b) == (b < c) {
        b
    } else if (b < a) == (a < c) {
        a
    } else {
        c
    }
}

/// The median-of-medians pivot (groups of five): a value with at least ~30% of `v` on each side.
fn median_of_medians<T: Float>(v: &mut [T]) -> T {
    let groups = v.len() / 5;
    if groups == 0 {
        insertion_sort(v);
        return v.get(v.len() / 2).copied().unwrap_or(T::ZERO);
    }
    for g in 0..groups {
        if let Some(group) = v.get_mut(5 * g..5 * g + 5) {
            insertion_sort(group);
        }
        swap(v, g, 5 * g + 2);
    }
    let Some(medians) = v.get_mut(..groups) else {
        return T::ZERO;
    };
    select(medians, groups / 2);
    medians.get(groups / 2).copied().unwrap_or(T::ZERO)
}

fn insertion_sort<T: Float>(v: &mut [T]) {
    for i in 1..v.len() {
        let mut j = i;
        // Sift v[i] down: swap adjacent pairs (j − 1, j) while out of order.
        while j > 0 {
            match v.get_mut(j - 1..=j).map(<&mut [T; 2]>::try_from) {
                Some(Ok(pair)) if pair[1] < pair[0] => pair.swap(0, 1),
                _ => break,
            }
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    /// Selection agrees with sorting on random data, on data full of ties, on sorted and
    /// reverse-sorted data and on an organ-pipe pattern, for every k of a range of lengths.
    #[test]
    fn select_matches_sorting() {
        let mut rng = Rng::new(7, 0);
        for len in [1usize, 2, 3, 5, 16, 17, 40, 101, 300] {
            for pattern in 0..5 {
                let data: Vec<f64> = (0..len)
                    .map(|i| match pattern {
                        0 => rng.uniform_f64(),
                        1 => rng.below(4) as f64,
                        2 => i as f64,
                        3 => (len - i) as f64,
                        _ => (i.min(len - i)) as f64,
                    })
                    .collect();
                let mut sorted = data.clone();
                sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
                for k in 0..len {
                    let mut v = data.clone();
                    select(&mut v, k);
                    assert_eq!(v[k], sorted[k], "len {len} pattern {pattern} k {k}");
                    assert!(v[..k].iter().all(|&x| x <= v[k]));
                    assert!(v[k + 1..].iter().all(|&x| x >= v[k]));
                }
            }
        }
    }

    /// The median-of-medians fallback alone also selects correctly.
    #[test]
    fn median_of_medians_pivot_is_central() {
        let mut rng = Rng::new(8, 0);
        let data: Vec<f64> = (0..1000).map(|_| rng.uniform_f64()).collect();
        let mut v = data.clone();
        let p = median_of_medians(&mut v);
        let below = data.iter().filter(|&&x| x < p).count();
        assert!(below > 250 && below < 750, "{below}");
    }
}
