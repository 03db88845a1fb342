//! Packed lower-triangular matrices for the dense mass matrix (docs/algorithms.md §1.6), without
//! a heap and without indexing that could panic.
//!
//! A symmetric or lower-triangular d×d matrix is stored by rows, lower triangle only: element
//! (i, j) with j ≤ i at `i(i+1)/2 + j`, [`tri_len`]`(d) = d(d+1)/2` values in all. Rows are
//! walked as slices split off the front of the array, so every loop is an iterator over checked
//! slices.
//!
//! Arithmetic is in the coordinate type `T`, one rounding per operation, sums in increasing
//! index order (the reproducibility contract, docs/algorithms.md §3); the factorisations that
//! run once per metric update (Cholesky, inverse, Gram products, eigenvalue bounds) compute in
//! `f64` and round each stored value once.

use crate::float::Float;

/// Values of a packed triangle of order `d`: d(d+1)/2 (saturating).
pub(crate) const fn tri_len(d: usize) -> usize {
    match d.checked_add(1) {
        Some(d1) => match d.checked_mul(d1) {
            Some(p) => p / 2,
            None => usize::MAX,
        },
        None => usize::MAX,
    }
}

/// The rows of a packed triangle, row i holding i + 1 values (fewer rows if `a` is short).
fn rows<T>(a: &[T], d: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = a;
    (0..d).map_while(move |i| {
        let (row, tail) = rest.split_at_checked(i + 1)?;
        rest = tail;
        Some(row)
    })
}

/// Row `i` of a packed triangle (empty if out of range).
fn row<T>(a: &[T], i: usize) -> &[T] {
    let start = tri_len(i);
    a.get(start..start.saturating_add(i + 1)).unwrap_or(&[])
}

/// `x ← x + c·(L·p)` for lower-triangular L: per row i, `s = Σ_{j≤i} L_ij·p_j` (j increasing),
/// then `x_i = x_i + c·s`.
pub(crate) fn add_mul_lower<T: Float>(x: &mut [T], c: T, l: &[T], p: &[T]) {
    for (xi, li) in x.iter_mut().zip(rows(l, p.len())) {
        let mut s = T::ZERO;
        for (&lij, &pj) in li.iter().zip(p) {
            s += lij * pj;
        }
        *xi += c * s;
    }
}

/// `out ← Lᵀ·g` for lower-triangular L: `out_j = Σ_{i≥j} L_ij·g_i`, accumulated row by row
/// (i increasing) into `out`.
pub(crate) fn mul_lower_t<T: Float>(out: &mut [T], l: &[T], g: &[T]) {
    for o in out.iter_mut() {
        *o = T::ZERO;
    }
    for (li, &gi) in rows(l, g.len()).zip(g) {
        for (o, &lij) in out.iter_mut().zip(li) {
            *o += lij * gi;
        }
    }
}

/// Cholesky factorisation in place: the packed symmetric `a` (lower triangle) becomes L with
/// `L·Lᵀ = a`, computed row by row in `f64` (`L_ij = (a_ij − Σ_{k<j} L_ik·L_jk)/L_jj`,
/// `L_ii = √(a_ii − Σ_{k<i} L_ik²)`, k increasing) and rounded once to `T`. `false` (with `a`
/// partly overwritten) when `a` is not numerically positive definite in `T` or is short.
pub(crate) fn cholesky<T: Float>(a: &mut [T], d: usize) -> bool {
    if a.len() < tri_len(d) {
        return false;
    }
    for i in 0..d {
        let Some((done, rest)) = a.split_at_mut_checked(tri_len(i)) else {
            return false;
        };
        let Some(ri) = rest.get_mut(..i + 1) else {
            return false;
        };
        for j in 0..=i {
            let rj = if j < i { row(done, j) } else { &[] };
            let mut s = ri.get(j).map_or(f64::NAN, |x| x.to_f64());
            let Some((ri_left, ri_j)) = ri.split_at_mut_checked(j) else {
                return false;
            };
            if j < i {
                for (&lik, &ljk) in ri_left.iter().zip(rj) {
                    s -= lik.to_f64() * ljk.to_f64();
                }
                let ljj = rj.get(j).map_or(f64::NAN, |x| x.to_f64());
                if let Some(x) = ri_j.first_mut() {
                    *x = T::from_f64(s / ljj);
                }
            } else {
                for &lik in ri_left.iter() {
                    s -= lik.to_f64() * lik.to_f64();
                }
                if s.is_nan() || s <= 0.0 {
                    return false;
                }
                let lii = T::from_f64(libm::sqrt(s));
                if !lii.is_finite() || lii <= T::ZERO {
                    return false;
                }
                if let Some(x) = ri_j.first_mut() {
                    *x = lii;
                }
            }
        }
        if !ri.iter().all(|x| x.is_finite()) {
            return false;
        }
    }
    true
}

/// The Cholesky factor of the symmetric matrix `a(i, j)` (read for j ≤ i) with the same
/// arithmetic as [`cholesky`], but only L's strictly lower entries stored, in the packed
/// triangle `off` (its diagonal positions are neither read nor written); L's diagonal is
/// recomputed from row i when needed ([`factor_diag`]). `false` (with `off`'s strictly lower
/// entries partly written) when the matrix is not positive definite or a value is not finite.
/// Its use: the dense setter factorises in a block whose diagonal must survive a refusal.
pub(crate) fn cholesky_off_diag<T: Float>(
    a: impl Fn(usize, usize) -> T,
    off: &mut [T],
    d: usize,
) -> bool {
    if off.len() < tri_len(d) {
        return false;
    }
    for i in 0..d {
        for j in 0..i {
            let ljj = factor_diag(&a, off, j).to_f64();
            let Some((done, rest)) = off.split_at_mut_checked(tri_len(i)) else {
                return false;
            };
            let rj = row(done, j);
            let mut s = a(i, j).to_f64();
            for (&lik, &ljk) in rest.iter().zip(rj).take(j) {
                s -= lik.to_f64() * ljk.to_f64();
            }
            let lij = T::from_f64(s / ljj);
            if !lij.is_finite() {
                return false;
            }
            if let Some(x) = rest.get_mut(j) {
                *x = lij;
            }
        }
        let lii = factor_diag(&a, off, i);
        if !lii.is_finite() || lii <= T::ZERO {
            return false;
        }
    }
    true
}

/// L_ii of [`cholesky_off_diag`]: `√(a_ii − Σ_{k<i} L_ik²)` (k increasing), NaN when the
/// radicand is not positive.
pub(crate) fn factor_diag<T: Float>(a: &impl Fn(usize, usize) -> T, off: &[T], i: usize) -> T {
    let mut s = a(i, i).to_f64();
    for &lik in row(off, i).iter().take(i) {
        s -= lik.to_f64() * lik.to_f64();
    }
    if s.is_nan() || s <= 0.0 {
        return T::from_f64(f64::NAN);
    }
    T::from_f64(libm::sqrt(s))
}

/// Zeroes a packed triangle's strictly lower entries, keeping its diagonal.
pub(crate) fn zero_off_diag<T: Float>(a: &mut [T], d: usize) {
    let mut idx = 0;
    for i in 0..d {
        for _ in 0..i {
            if let Some(x) = a.get_mut(idx) {
                *x = T::ZERO;
            }
            idx += 1;
        }
        idx += 1;
    }
}

/// Inverts a lower-triangular L in place (the inverse is lower triangular too), by forward
/// substitution column by column in `f64`: `X_ii = 1/L_ii`,
/// `X_ij = −(Σ_{j≤k<i} L_ik·X_kj)/L_ii` for j < i (k increasing). `false` on a zero or
/// non-finite result.
pub(crate) fn invert_lower<T: Float>(l: &mut [T], d: usize) -> bool {
    if l.len() < tri_len(d) {
        return false;
    }
    // Row i of X needs rows k < i of X and row i of L: compute row i of X in place from the
    // rows above (already inverted) and its own L values, which are read before overwritten
    // (X_ij for j increasing needs L_ik for k ≥ j only).
    for i in 0..d {
        let Some((done, rest)) = l.split_at_mut_checked(tri_len(i)) else {
            return false;
        };
        let Some(ri) = rest.get_mut(..i + 1) else {
            return false;
        };
        let lii = ri.get(i).map_or(f64::NAN, |x| x.to_f64());
        if !lii.is_finite() || lii == 0.0 {
            return false;
        }
        for j in 0..i {
            // Σ_{k=j}^{i−1} L_ik·X_kj, with X_kj from the inverted rows above.
            let mut s = 0.0f64;
            for k in j..i {
                let lik = ri.get(k).map_or(f64::NAN, |x| x.to_f64());
                let xkj = row(done, k).get(j).map_or(f64::NAN, |x| x.to_f64());
                s += lik * xkj;
            }
            if let Some(x) = ri.get_mut(j) {
                // L_ij (j < i) was read above for k = j only when j is the first k; every later
                // j' > j reads L_ik for k ≥ j' > j, so overwriting X_ij here is safe.
                *x = T::from_f64(-s / lii);
            }
        }
        if let Some(x) = ri.get_mut(i) {
            *x = T::from_f64(1.0 / lii);
        }
        if !ri.iter().all(|x| x.is_finite()) {
            return false;
        }
    }
    true
}

#[cfg(test)]
/// `out ← L·Lᵀ` (packed, lower triangle) in `f64`: `out_ij = Σ_{k≤j} L_ik·L_jk` (k increasing).
pub(crate) fn gram<T: Float>(out: &mut [T], l: &[T], d: usize) {
    let mut dst = out.iter_mut();
    for i in 0..d {
        let ri = row(l, i);
        for j in 0..=i {
            let rj = row(l, j);
            let mut s = 0.0f64;
            for (&a, &b) in ri.iter().zip(rj) {
                s += a.to_f64() * b.to_f64();
            }
            if let Some(o) = dst.next() {
                *o = T::from_f64(s);
            }
        }
    }
}

/// `out ← Xᵀ·X` (packed, lower triangle) for lower-triangular X, in `f64`:
/// `out_ij = Σ_{k≥i} X_ki·X_kj` for j ≤ i (k increasing). With X = C⁻¹ for a Cholesky factor C
/// of a matrix H, this is H⁻¹.
pub(crate) fn gram_t<T: Float>(out: &mut [T], x: &[T], d: usize) {
    let mut dst = out.iter_mut();
    for i in 0..d {
        for j in 0..=i {
            let mut s = 0.0f64;
            for k in i..d {
                let rk = row(x, k);
                let a = rk.get(i).map_or(f64::NAN, |v| v.to_f64());
                let b = rk.get(j).map_or(f64::NAN, |v| v.to_f64());
                s += a * b;
            }
            if let Some(o) = dst.next() {
                *o = T::from_f64(s);
            }
        }
    }
}

/// The diagonal of L·Lᵀ: `out_i = Σ_{j≤i} L_ij²` (j increasing), in `f64`, rounded once.
pub(crate) fn gram_diagonal<T: Float>(out: &mut [T], l: &[T]) {
    let d = out.len();
    for (o, ri) in out.iter_mut().zip(rows(l, d)) {
        let mut s = 0.0f64;
        for &x in ri {
            s += x.to_f64() * x.to_f64();
        }
        *o = T::from_f64(s);
    }
}

/// Iterations of the power methods of [`eigen_bounds`].
const POWER_ITERATIONS: u32 = 64;

/// Estimates of the largest and smallest eigenvalues of Σ = L·Lᵀ (for the condition number the
/// warm-up report gives), by 64 iterations of the power method on Σ and on Σ⁻¹ (two triangular
/// solves per iteration), from the start vector of all ones, in `f64` over the two scratch
/// vectors (length d each). Lower and upper bounds respectively: the power method approaches
/// the extreme eigenvalues from inside the spectrum.
pub(crate) fn eigen_bounds<T: Float>(l: &[T], d: usize, u: &mut [T], v: &mut [T]) -> (f64, f64) {
    if d == 0 || u.len() < d || v.len() < d || l.len() < tri_len(d) {
        return (f64::NAN, f64::NAN);
    }
    // Largest: v = L·(Lᵀ·u), λ ≈ ‖v‖/‖u‖ with u normalised each time.
    let norm = |x: &[T]| libm::sqrt(x.iter().map(|a| a.to_f64() * a.to_f64()).sum::<f64>());
    let scale = |x: &mut [T], c: f64| {
        for a in x.iter_mut() {
            *a = T::from_f64(a.to_f64() * c);
        }
    };
    let start = |x: &mut [T]| {
        for a in x.iter_mut() {
            *a = T::from_f64(1.0);
        }
    };
    start(u);
    scale(u, 1.0 / libm::sqrt(d as f64));
    let mut largest = f64::NAN;
    for _ in 0..POWER_ITERATIONS {
        mul_lower_t(v, l, u);
        for a in u.iter_mut() {
            *a = T::ZERO;
        }
        add_mul_lower(u, T::from_f64(1.0), l, v);
        largest = norm(u);
        if !largest.is_finite() || largest <= 0.0 {
            return (f64::NAN, f64::NAN);
        }
        scale(u, 1.0 / largest);
    }
    // Smallest: the power method on Σ⁻¹ = L⁻ᵀ·L⁻¹: solve L·w = u, then Lᵀ·u' = w.
    start(u);
    scale(u, 1.0 / libm::sqrt(d as f64));
    let mut inv_largest = f64::NAN;
    for _ in 0..POWER_ITERATIONS {
        solve_lower(v, l, u);
        solve_lower_t(u, l, v);
        inv_largest = norm(u);
        if !inv_largest.is_finite() || inv_largest <= 0.0 {
            return (largest, f64::NAN);
        }
        scale(u, 1.0 / inv_largest);
    }
    (largest, 1.0 / inv_largest)
}

/// `out ← L⁻¹·b` by forward substitution (f64 sums, j increasing).
fn solve_lower<T: Float>(out: &mut [T], l: &[T], b: &[T]) {
    let d = b.len();
    for (i, ri) in rows(l, d).enumerate() {
        let mut s = b.get(i).map_or(f64::NAN, |x| x.to_f64());
        for (j, &lij) in ri.iter().enumerate().take(i) {
            s -= lij.to_f64() * out.get(j).map_or(f64::NAN, |x| x.to_f64());
        }
        let lii = ri.get(i).map_or(f64::NAN, |x| x.to_f64());
        if let Some(o) = out.get_mut(i) {
            *o = T::from_f64(s / lii);
        }
    }
}

/// `out ← L⁻ᵀ·b` by back substitution (f64 sums, k decreasing).
fn solve_lower_t<T: Float>(out: &mut [T], l: &[T], b: &[T]) {
    let d = b.len();
    for i in (0..d).rev() {
        let mut s = b.get(i).map_or(f64::NAN, |x| x.to_f64());
        for k in (i + 1..d).rev() {
            let lki = row(l, k).get(i).map_or(f64::NAN, |x| x.to_f64());
            s -= lki * out.get(k).map_or(f64::NAN, |x| x.to_f64());
        }
        let lii = row(l, i).get(i).map_or(f64::NAN, |x| x.to_f64());
        if let Some(o) = out.get_mut(i) {
            *o = T::from_f64(s / lii);
        }
    }
}

/// One draw's update of a running mean and packed co-moment matrix (Welford for covariances):
/// with the old mean m and `n` the count including `x`,
/// `C_ij ← C_ij + ((n−1)/n)·(x_i − m_i)·(x_j − m_j)` (j ≤ i), then `m ← m + (x − m)/n`.
pub(crate) fn welford_cov<T: Float>(mean: &mut [T], c: &mut [T], x: &[T], n: u64) {
    let w = T::from_f64((n as f64 - 1.0) / n as f64);
    let inv = T::from_f64(1.0 / n as f64);
    let d = x.len();
    let mut rest = c;
    for (i, (&xi, &mi)) in x.iter().zip(mean.iter()).enumerate().take(d) {
        let Some((ci, tail)) = rest.split_at_mut_checked(i + 1) else {
            return;
        };
        rest = tail;
        let di = w * (xi - mi);
        for (cij, (&xj, &mj)) in ci.iter_mut().zip(x.iter().zip(mean.iter())) {
            *cij += di * (xj - mj);
        }
    }
    for (mi, &xi) in mean.iter_mut().zip(x) {
        *mi += (xi - *mi) * inv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The off-diagonal factorisation gives [`cholesky`]'s factor bit for bit, never touches
    /// the diagonal positions, and refuses what [`cholesky`] refuses.
    #[test]
    fn off_diagonal_cholesky_matches() {
        for d in [1usize, 2, 5, 9] {
            let a = spd(d);
            let at = |i: usize, j: usize| a[tri_len(i.max(j)) + i.min(j)];
            let mut full = a.clone();
            assert!(cholesky(&mut full, d));
            let mut off = vec![0.0; tri_len(d)];
            for i in 0..d {
                off[tri_len(i) + i] = 7.5;
            }
            assert!(cholesky_off_diag(at, &mut off, d));
            for i in 0..d {
                assert_eq!(off[tri_len(i) + i], 7.5);
                assert_eq!(
                    factor_diag(&at, &off, i).to_bits(),
                    full[tri_len(i) + i].to_bits()
                );
                for j in 0..i {
                    assert_eq!(
                        off[tri_len(i) + j].to_bits(),
                        full[tri_len(i) + j].to_bits()
                    );
                }
            }
            let mut bad = a.clone();
            bad[tri_len(d - 1) + d - 1] = -1.0;
            let bat = |i: usize, j: usize| bad[tri_len(i.max(j)) + i.min(j)];
            let mut off = vec![0.0; tri_len(d)];
            assert!(!cholesky_off_diag(bat, &mut off, d));
            assert!(!cholesky(&mut bad, d));
        }
    }

    /// A packed SPD matrix: A = B·Bᵀ + I for a fixed B.
    fn spd(d: usize) -> Vec<f64> {
        let b = |i: usize, j: usize| ((i * 7 + j * 3) % 5) as f64 * 0.3 - 0.4;
        let mut a = vec![0.0; tri_len(d)];
        for i in 0..d {
            for j in 0..=i {
                let mut s = if i == j { 1.0 } else { 0.0 };
                for k in 0..d {
                    s += b(i, k) * b(j, k);
                }
                a[tri_len(i) + j] = s;
            }
        }
        a
    }

    fn full(a: &[f64], d: usize) -> Vec<Vec<f64>> {
        let mut m = vec![vec![0.0; d]; d];
        for i in 0..d {
            for j in 0..=i {
                m[i][j] = a[tri_len(i) + j];
            }
        }
        m
    }

    #[test]
    fn cholesky_reproduces_the_matrix() {
        for d in [1, 2, 5, 9] {
            let a = spd(d);
            let mut l = a.clone();
            assert!(cholesky(&mut l, d));
            let mut back = vec![0.0; tri_len(d)];
            gram(&mut back, &l, d);
            for (x, y) in back.iter().zip(&a) {
                assert!((x - y).abs() < 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }
        // Not positive definite.
        let mut a = vec![1.0, 2.0, 1.0];
        assert!(!cholesky(&mut a, 2));
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // matrix indices read best as (i, j)
    fn products_and_inverse() {
        let d = 6;
        let mut l = spd(d);
        assert!(cholesky(&mut l, d));
        let lf = full(&l, d);
        let p: Vec<f64> = (0..d).map(|i| i as f64 - 2.5).collect();
        let mut x = vec![1.0; d];
        add_mul_lower(&mut x, 0.5, &l, &p);
        let mut lt = vec![0.0; d];
        mul_lower_t(&mut lt, &l, &p);
        for i in 0..d {
            let lp: f64 = (0..d).map(|j| lf[i][j] * p[j]).sum();
            assert!((x[i] - (1.0 + 0.5 * lp)).abs() < 1e-12);
            let ltp: f64 = (0..d).map(|k| lf[k][i] * p[k]).sum();
            assert!((lt[i] - ltp).abs() < 1e-12);
        }
        // X = L⁻¹: X·L = I; XᵀX = (L·Lᵀ)⁻¹.
        let mut xi = l.clone();
        assert!(invert_lower(&mut xi, d));
        let xf = full(&xi, d);
        for i in 0..d {
            for j in 0..d {
                let s: f64 = (0..d).map(|k| xf[i][k] * lf[k][j]).sum();
                assert!((s - (i == j) as u8 as f64).abs() < 1e-12, "({i},{j}) {s}");
            }
        }
        let mut inv = vec![0.0; tri_len(d)];
        gram_t(&mut inv, &xi, d);
        let a = spd(d);
        let af = full(&a, d);
        let invf = full(&inv, d);
        let sym = |m: &Vec<Vec<f64>>, i: usize, j: usize| if j <= i { m[i][j] } else { m[j][i] };
        for i in 0..d {
            for j in 0..d {
                let s: f64 = (0..d).map(|k| sym(&af, i, k) * sym(&invf, k, j)).sum();
                assert!((s - (i == j) as u8 as f64).abs() < 1e-10, "({i},{j}) {s}");
            }
        }
    }

    #[test]
    fn eigen_bounds_of_a_diagonal_and_a_full_matrix() {
        // L = diag(1, 2, 3): Σ = diag(1, 4, 9).
        let l = [1.0, 0.0, 2.0, 0.0, 0.0, 3.0];
        let (mut u, mut v) = ([0.0; 3], [0.0; 3]);
        let (hi, lo) = eigen_bounds(&l, 3, &mut u, &mut v);
        assert!(
            (hi - 9.0).abs() < 1e-6 && (lo - 1.0).abs() < 1e-6,
            "{hi} {lo}"
        );
        // Σ = [[1, ρ], [ρ, 1]]: eigenvalues 1 ± ρ.
        let rho = 0.99f64;
        let l = [1.0, rho, libm::sqrt(1.0 - rho * rho)];
        let (mut u, mut v) = ([0.0; 2], [0.0; 2]);
        let (hi, lo) = eigen_bounds(&l, 2, &mut u, &mut v);
        assert!(
            (hi - 1.99).abs() < 1e-9 && (lo - 0.01).abs() < 1e-9,
            "{hi} {lo}"
        );
    }

    #[test]
    fn covariance_welford_matches_two_passes() {
        let xs = [
            [1.0, 2.0, -1.0],
            [3.0, -1.0, 0.5],
            [0.0, 0.0, 2.0],
            [2.5, 1.5, -0.5],
        ];
        let (mut m, mut c) = ([0.0; 3], [0.0; 6]);
        for (n, x) in xs.iter().enumerate() {
            welford_cov(&mut m, &mut c, x, n as u64 + 1);
        }
        let mu: Vec<f64> = (0..3)
            .map(|i| xs.iter().map(|x| x[i]).sum::<f64>() / 4.0)
            .collect();
        for i in 0..3 {
            assert!((m[i] - mu[i]).abs() < 1e-12);
            for j in 0..=i {
                let s: f64 = xs.iter().map(|x| (x[i] - mu[i]) * (x[j] - mu[j])).sum();
                assert!((c[tri_len(i) + j] - s).abs() < 1e-12, "({i},{j})");
            }
        }
    }
}
