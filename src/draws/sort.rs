//! A merge sort of (value, tag) pairs over caller memory: stable, O(n log n) comparisons, no
//! recursion, no allocation, and no index that can fail (so no panic path is linked, which a
//! comparator-driven `core` sort cannot promise).

/// Runs of this length are sorted by insertion first.
const RUN: usize = 16;

/// Consecutive pieces of `s` of `len` values (the last one shorter), without the assertion of
/// `chunks` (nothing for `len = 0`).
pub(crate) fn pieces(s: &[f64], len: usize) -> impl Iterator<Item = &[f64]> {
    let mut rest = s;
    core::iter::from_fn(move || {
        if len == 0 || rest.is_empty() {
            return None;
        }
        let (piece, tail) = rest.split_at_checked(len.min(rest.len()))?;
        rest = tail;
        Some(piece)
    })
}

/// As [`pieces`], mutably.
pub(crate) fn pieces_mut(s: &mut [f64], len: usize) -> impl Iterator<Item = &mut [f64]> {
    let mut rest = s;
    core::iter::from_fn(move || {
        if len == 0 || rest.is_empty() {
            return None;
        }
        let taken = core::mem::take(&mut rest);
        let at = len.min(taken.len());
        let (piece, tail) = taken.split_at_mut_checked(at)?;
        rest = tail;
        Some(piece)
    })
}

/// Sorts `v` ascending by `<` (the values must not be NaN) and permutes `tag` alongside, using
/// `tv` and `tt` as the second buffer (all four at least `n = v.len()` long; shorter inputs
/// sort their common prefix). Equal values keep their order.
pub(crate) fn sort_pairs(v: &mut [f64], tag: &mut [f64], tv: &mut [f64], tt: &mut [f64]) {
    let n = v.len().min(tag.len()).min(tv.len()).min(tt.len());
    let (Some(v), Some(tag), Some(tv), Some(tt)) = (
        v.get_mut(..n),
        tag.get_mut(..n),
        tv.get_mut(..n),
        tt.get_mut(..n),
    ) else {
        return;
    };
    for (rv, rt) in pieces_mut(v, RUN).zip(pieces_mut(tag, RUN)) {
        insertion(rv, rt);
    }
    let mut width = RUN;
    let mut in_first = true;
    while width < n {
        let (sv, st, dv, dt): (&[f64], &[f64], &mut [f64], &mut [f64]) = if in_first {
            (&*v, &*tag, &mut *tv, &mut *tt)
        } else {
            (&*tv, &*tt, &mut *v, &mut *tag)
        };
        let span = width.saturating_mul(2);
        let outs = pieces_mut(dv, span).zip(pieces_mut(dt, span));
        for ((pv, pt), (ov, ot)) in pieces(sv, span).zip(pieces(st, span)).zip(outs) {
            let at = width.min(pv.len());
            if let (Some((av, bv)), Some((at_, bt))) =
                (pv.split_at_checked(at), pt.split_at_checked(at))
            {
                merge(av, at_, bv, bt, ov, ot);
            }
        }
        in_first = !in_first;
        width = span;
    }
    if !in_first {
        crate::float::copy(v, tv);
        crate::float::copy(tag, tt);
    }
}

/// Insertion sort of a short run.
fn insertion(v: &mut [f64], t: &mut [f64]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 {
            let (Some(pair), Some(tags)) = (v.get_mut(j - 1..=j), t.get_mut(j - 1..=j)) else {
                break;
            };
            match (pair, tags) {
                ([a, b], [ta, tb]) if *b < *a => {
                    core::mem::swap(a, b);
                    core::mem::swap(ta, tb);
                }
                _ => break,
            }
            j -= 1;
        }
    }
}

/// Merges the sorted runs `a` and `b` into `out` (taking from `a` on ties: stable).
fn merge(av: &[f64], at: &[f64], bv: &[f64], bt: &[f64], ov: &mut [f64], ot: &mut [f64]) {
    let (mut i, mut j) = (0usize, 0usize);
    for (o, p) in ov.iter_mut().zip(ot.iter_mut()) {
        let from_b = match (av.get(i), bv.get(j)) {
            (Some(x), Some(y)) => y < x,
            (None, Some(_)) => true,
            _ => false,
        };
        if from_b {
            *o = bv.get(j).copied().unwrap_or(f64::NAN);
            *p = bt.get(j).copied().unwrap_or(f64::NAN);
            j += 1;
        } else {
            *o = av.get(i).copied().unwrap_or(f64::NAN);
            *p = at.get(i).copied().unwrap_or(f64::NAN);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_pairs_stably_at_every_length() {
        let mut state = 7u64;
        for n in [0usize, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257, 1000] {
            let mut v: Vec<f64> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    ((state >> 59) as f64) - 8.0 // many ties
                })
                .collect();
            let want: Vec<(f64, f64)> = {
                let mut p: Vec<(f64, f64)> =
                    v.iter().enumerate().map(|(i, &x)| (x, i as f64)).collect();
                p.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap()); // std's sort is stable
                p
            };
            let mut t: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let (mut tv, mut tt) = (vec![0.0; n], vec![0.0; n]);
            sort_pairs(&mut v, &mut t, &mut tv, &mut tt);
            let got: Vec<(f64, f64)> = v.into_iter().zip(t).collect();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
