//! AMAGOLD's mass matrix, diagonal or dense, and how the warm-up estimates it
//! (docs/algorithms.md §1.5–1.7).
//!
//! **Diagonal.** Coordinate i has momentum standard deviation `σ·mᵢ` and the position moves by
//! `(ε/σ²)·kᵢ·rᵢ`, with `kᵢ = 1/mᵢ²` (the inverse mass relative to σ⁻²). The samplers multiply
//! by `mᵢ` and `kᵢ` where they used σ and 1/σ²; with no mass matrix both factors are exactly 1,
//! and a product with 1 is exact, so the default streams keep their bits.
//!
//! **Dense.** A lower-triangular factor L (packed, [`crate::dense`]) with `L·Lᵀ = K`, the inverse
//! mass relative to σ⁻²: the chain runs the unit-mass AMAGOLD on φ with θ = L·φ, so its momentum
//! lives in φ's coordinates (docs/algorithms.md §1.6).
//!
//! **Estimates.** Slow windows of the warm-up collect the positions (Welford: a mean and a sum
//! of squared deviations, or a packed co-moment matrix) and set K from the window's sample
//! covariance S of n draws, shrunk towards the metric in use: `K ← (n/(n+5))·σ²·S +
//! (5/(n+5))·K`. Stan shrinks towards 10⁻³·I instead, which assumes a problem scaled to about 1;
//! shrinking towards the current metric keeps every scale (a coordinate with posterior sd 10⁻³
//! would have its variance overstated 170× by Stan's rule after a window of 25 draws). The first
//! metric comes from the curvature at the end of the approach (docs/algorithms.md §1.7).

use crate::dense::{cholesky, gram_t, invert_lower, tri_len, welford_cov};
use crate::error::Error;
use crate::float::{copy, Float};

/// Per-coordinate factors: all 1 (no mass matrix) or read from a workspace block.
pub(crate) enum Factors<'a, T> {
    /// Every factor is exactly 1.
    Unit(T),
    /// One factor per coordinate.
    Slice(core::slice::Iter<'a, T>),
}

impl<'a, T: Float> Factors<'a, T> {
    /// `Unit` for `None`.
    pub(crate) fn of(block: Option<&'a [T]>) -> Self {
        match block {
            Some(b) => Factors::Slice(b.iter()),
            None => Factors::Unit(T::from_f64(1.0)),
        }
    }
}

impl<T: Copy> Iterator for Factors<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Factors::Unit(one) => Some(*one),
            Factors::Slice(it) => it.next().copied(),
        }
    }
}

/// `x[i] = x[i] + (c·kᵢ)·v[i]` over the common length (one rounding per operation, in that
/// order; identical bits to `x[i] + c·v[i]` when every kᵢ is 1).
#[inline]
pub(crate) fn add_scaled_by<T: Float>(x: &mut [T], c: T, k: Option<&[T]>, v: &[T]) {
    for ((xi, &vi), ki) in x.iter_mut().zip(v).zip(Factors::of(k)) {
        *xi += (c * ki) * vi;
    }
}

/// Whether `k` can be a chain's diagonal inverse mass in `T` (relative to σ⁻²): every kᵢ
/// positive and finite, and `1/√kᵢ` (computed in `f64`, rounded to `T`) positive and finite too.
/// What the `set_inverse_mass` of SGHMC and SGLD checks (`InvalidMass` otherwise); AMAGOLD's
/// makes the same check.
pub(crate) fn valid_inverse_mass<T: Float>(k: &[T]) -> bool {
    k.iter().all(|&x| {
        let m = T::from_f64(1.0 / libm::sqrt(x.to_f64()));
        x.is_finite() && x > T::ZERO && m.is_finite() && m > T::ZERO
    })
}

/// SGLD's preconditioner from `k_new` (checked by [`valid_inverse_mass`]): `kᵢ` and its square
/// root `sᵢ = √kᵢ` (in `f64`, rounded once to `T`; for a positive finite `kᵢ` of `T` always a
/// positive finite `T`).
pub(crate) fn apply_sqrt_diagonal<T: Float>(k: &mut [T], s: &mut [T], k_new: &[T]) {
    for ((ki, si), &kn) in k.iter_mut().zip(s.iter_mut()).zip(k_new) {
        *ki = kn;
        *si = T::from_f64(libm::sqrt(kn.to_f64()));
    }
}

/// The pseudo-count of the shrinkage: a window of n draws weighs n/(n + 5) against the metric in
/// use (Stan's 5).
const SHRINK: f64 = 5.0;

/// Welford's update of a running mean and sum of squared deviations, per coordinate, in the
/// workspace (`n` is the count including `x`).
pub(crate) fn welford<T: Float>(mean: &mut [T], m2: &mut [T], x: &[T], n: u64) {
    let inv = T::from_f64(1.0 / n as f64);
    for ((mi, si), &xi) in mean.iter_mut().zip(m2.iter_mut()).zip(x) {
        let d = xi - *mi;
        *mi += d * inv;
        *si += d * (xi - *mi);
    }
}

/// Sets diagonal factors to `k_new` where it is a positive finite `T` whose `m = 1/√k` is one
/// too, rescaling the persistent momentum `r` to the new mass (it stays N(0, σ²mᵢ²) if it was);
/// other coordinates keep their factors and momentum. With σ² (or a variance) beyond `T`'s
/// range, k = ∞ and m = 0 (or the reverse) would make the sampler's products `(ε/σ²)·kᵢ` and
/// `σ·mᵢ` 0·∞ = NaN in every later iteration. Returns how many coordinates took their value.
pub(crate) fn apply_diagonal<T: Float>(
    m: &mut [T],
    k: &mut [T],
    r: &mut [T],
    k_new: impl Iterator<Item = f64>,
) -> usize {
    let mut applied = 0;
    for (((mi, ki), ri), kn) in m.iter_mut().zip(k.iter_mut()).zip(r.iter_mut()).zip(k_new) {
        let m_new = 1.0 / libm::sqrt(kn);
        let (kt, mt) = (T::from_f64(kn), T::from_f64(m_new));
        if kt.is_finite() && mt.is_finite() && kt > T::ZERO && mt > T::ZERO {
            *ri = T::from_f64(ri.to_f64() * (m_new / mi.to_f64()));
            *mi = mt;
            *ki = kt;
            applied += 1;
        }
    }
    applied
}

/// Sets the diagonal factors from a window of `n ≥ 2` draws: `kᵢ ← (n/(n+5))·max(σ²·vᵢ, fᵢ) +
/// (5/(n+5))·kᵢ` (vᵢ the window's sample variance, n − 1 in the denominator; fᵢ the floor from
/// the curvature, `floors[i]`, ignored unless positive and finite), `mᵢ = 1/√kᵢ`, through
/// [`apply_diagonal`]; clears the Welford sums.
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_mass<T: Float>(
    m: &mut [T],
    k: &mut [T],
    mean: &mut [T],
    m2: &mut [T],
    r: &mut [T],
    floors: &[T],
    n: u64,
    sigma: f64,
) {
    let nf = n as f64;
    let w = nf / (nf + SHRINK);
    let s2 = sigma * sigma;
    // The new values are computed from the old k before any is written: collect them in the
    // mean block, which is cleared afterwards anyway.
    for (((mu, &si), &ki), &fi) in mean.iter_mut().zip(m2.iter()).zip(k.iter()).zip(floors) {
        let v = s2 * (si.to_f64() / (nf - 1.0));
        *mu = T::from_f64(w * floored(v, fi.to_f64()) + (1.0 - w) * ki.to_f64());
    }
    apply_diagonal(m, k, r, mean.iter().map(|x| x.to_f64()));
    for x in mean.iter_mut().chain(m2.iter_mut()) {
        *x = T::ZERO;
    }
}

/// `max(v, f)` when the floor f is positive and finite, else v.
fn floored(v: f64, f: f64) -> f64 {
    if f.is_finite() && f > 0.0 && (v.is_nan() || v < f) {
        f
    } else {
        v
    }
}

/// One draw of a slow window for the dense metric: the packed co-moment matrix `c` and the
/// running `mean` ([`welford_cov`]).
pub(crate) fn collect_dense<T: Float>(mean: &mut [T], c: &mut [T], x: &[T], n: u64) {
    welford_cov(mean, c, x, n);
}

/// Sets the dense factor from a window of `n ≥ 2` draws: `K ← (n/(n+5))·σ²·S' + (5/(n+5))·K`
/// (S = c/(n − 1), each of its rows and columns i scaled by `√(fᵢ/(σ²·S_ii))` where the floor
/// fᵢ = `floors[i]` is positive, finite and above σ²·S_ii, which keeps S positive semi-definite
/// and its correlations; K = L·Lᵀ of the factor in use; computed in place in `c`, in `f64`,
/// each `(L·Lᵀ)_ij = Σ_{k≤j} L_ik·L_jk` with k increasing), then L ← the Cholesky factor of the
/// new K. When the factorisation fails (not positive definite in `T`) the factor in use stays.
/// Clears `c` and `mean`. Returns whether the factor changed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_dense<T: Float>(
    l: &mut [T],
    c: &mut [T],
    mean: &mut [T],
    floors: &[T],
    d: usize,
    n: u64,
    sigma: f64,
) -> bool {
    let nf = n as f64;
    let w = nf / (nf + SHRINK);
    let s2 = sigma * sigma;
    // The floors' scale factors, into `mean` (cleared afterwards anyway).
    for (i, (mi, &fi)) in mean.iter_mut().zip(floors).enumerate().take(d) {
        let v = s2 * (c.get(tri_len(i) + i).map_or(f64::NAN, |x| x.to_f64()) / (nf - 1.0));
        let scale = if v > 0.0 {
            libm::sqrt(floored(v, fi.to_f64()) / v)
        } else {
            1.0
        };
        *mi = T::from_f64(scale);
    }
    let mut idx = 0usize;
    for i in 0..d {
        for j in 0..=i {
            let mut kij = 0.0f64;
            for q in 0..=j {
                let a = l.get(tri_len(i) + q).map_or(f64::NAN, |x| x.to_f64());
                let b = l.get(tri_len(j) + q).map_or(f64::NAN, |x| x.to_f64());
                kij += a * b;
            }
            let fi = mean.get(i).map_or(1.0, |x| x.to_f64());
            let fj = mean.get(j).map_or(1.0, |x| x.to_f64());
            if let Some(x) = c.get_mut(idx) {
                let mut sij = (fi * fj) * (s2 * (x.to_f64() / (nf - 1.0)));
                // A coordinate that did not move at all has nothing to scale: its variance is
                // the floor itself (its covariances are 0).
                if i == j && (sij.is_nan() || sij <= 0.0) {
                    sij = floored(sij, floors.get(i).map_or(f64::NAN, |f| f.to_f64()));
                }
                *x = T::from_f64(w * sij + (1.0 - w) * kij);
            }
            idx += 1;
        }
    }
    let ok = cholesky(c, d);
    if ok {
        crate::float::copy(l, c);
    }
    for x in c.iter_mut().chain(mean.iter_mut()) {
        *x = T::ZERO;
    }
    ok
}

/// The dense factor of K = σ²·H⁻¹ from a packed symmetric curvature matrix H (in `h`,
/// destroyed; K is the Laplace approximation's covariance times σ²): Cholesky H = C·Cᵀ,
/// X = C⁻¹ (both in place), K = σ²·XᵀX into `l`, then L ← chol(K) in place. When any step fails
/// (H not positive definite in `T`, overflow) the factor falls back to the diagonal
/// `L_ii = σ/√H_ii` (the curvature's diagonal, saved in `hdiag` first; 1 where it is not
/// positive and finite) and `false` is returned.
pub(crate) fn dense_from_curvature<T: Float>(
    l: &mut [T],
    h: &mut [T],
    hdiag: &mut [T],
    d: usize,
    sigma: f64,
) -> bool {
    for (i, x) in hdiag.iter_mut().enumerate().take(d) {
        *x = h.get(tri_len(i) + i).copied().unwrap_or(T::ZERO);
    }
    if cholesky(h, d) && invert_lower(h, d) {
        gram_t(l, h, d);
        let s2 = sigma * sigma;
        for x in l.iter_mut().take(tri_len(d)) {
            *x = T::from_f64(x.to_f64() * s2);
        }
        if cholesky(l, d) {
            return true;
        }
    }
    let mut rest = &mut l[..];
    for (i, &hi) in hdiag.iter().enumerate().take(d) {
        let Some((row, tail)) = rest.split_at_mut_checked(i + 1) else {
            break;
        };
        rest = tail;
        for x in row.iter_mut() {
            *x = T::ZERO;
        }
        let li = T::from_f64(sigma / libm::sqrt(hi.to_f64()));
        if let Some(x) = row.last_mut() {
            *x = if li.is_finite() && li > T::ZERO {
                li
            } else {
                T::from_f64(1.0)
            };
        }
    }
    false
}

/// Stan's windows for a windowed phase of `w` iterations in a warm-up of `total`: (initial fast
/// interval, first slow window, final fast interval). Stan's 75/25/50 when `w ≥ 150`, with the
/// final interval stretched to ⌊total/5⌋ when that is longer (its step-size rule averages over
/// most of it: Stan's 50 iterations leave ε noisy) but no longer than `w − 100`; else
/// 15 %/75 %/10 % of `w`. The final interval's length follows the whole warm-up, not what the
/// approach left of it, so that the chains of one model, whose approaches differ in length,
/// end with windows of one length (their comparison needs it).
pub(crate) const fn windows(w: u64, total: u64) -> (u64, u64, u64) {
    if w >= 150 {
        let mut term = if total / 5 > 50 { total / 5 } else { 50 };
        if term > w - 100 {
            term = w - 100;
        }
        (75, 25, term)
    } else {
        let init = w * 15 / 100;
        let term = w / 10;
        (init, w - init - term, term)
    }
}

/// Where the warm-up's windows stand: the current slow window `[start, end)` in iterations
/// (1-based counts of finished iterations of the windowed phase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassWindows {
    warmup: u64,
    total: u64,
    end: u64,
    len: u64,
    last: u64,
    count: u64,
}

#[cfg(feature = "ffi")]
crate::wire::wire_struct!(MassWindows {
    warmup,
    total,
    end,
    len,
    last,
    count
});

impl MassWindows {
    /// The schedule of a windowed phase of `warmup` iterations that is the whole warm-up.
    #[cfg(test)]
    pub(crate) const fn new(warmup: u64) -> Self {
        Self::within(warmup, warmup)
    }

    /// The schedule of a windowed phase of `warmup` iterations in a warm-up of `total`.
    pub(crate) const fn within(warmup: u64, total: u64) -> Self {
        let (init, base, term) = windows(warmup, total);
        let last = warmup - term;
        let end = if init + base > last {
            last
        } else {
            init + base
        };
        MassWindows {
            warmup,
            total,
            end: Self::stretch(end, base, last),
            len: base,
            last,
            count: 0,
        }
    }

    /// A window that ends so close to the last slow iteration that the next (doubled) window
    /// would not fit is stretched to the end, as Stan does.
    const fn stretch(end: u64, len: u64, last: u64) -> u64 {
        if end + 2 * len > last {
            last
        } else {
            end
        }
    }

    /// The initial fast interval's length.
    pub(crate) const fn init(&self) -> u64 {
        windows(self.warmup, self.total).0
    }

    /// The last iteration of the last slow window (the final fast interval follows).
    pub(crate) const fn last(&self) -> u64 {
        self.last
    }

    /// The current slow window's last iteration.
    pub(crate) const fn end(&self) -> u64 {
        self.end
    }

    /// `true` when the draw after finished iteration `m` belongs to a slow window.
    #[cfg(test)]
    pub(crate) const fn collects(&self, m: u64) -> bool {
        m > self.init() && m <= self.last
    }

    /// Counts one collected draw; returns the window's count including it.
    pub(crate) fn push(&mut self) -> u64 {
        self.count += 1;
        self.count
    }

    /// After collecting the draw of iteration `m`: `true` when that draw ended a window (the
    /// caller then sets the mass matrix and restarts the step-size adaptation), and the
    /// schedule moves to the next window.
    pub(crate) fn window_ends(&mut self, m: u64) -> bool {
        if m != self.end {
            return false;
        }
        self.len *= 2;
        self.end = Self::stretch(m + self.len, self.len, self.last);
        self.count = 0;
        true
    }
}

/// A diagonally preconditioned chain's inverse mass kᵢ into `out[..d]`: the workspace's block
/// `ws[at..at + d]` when `diagonal`, else ones (SGHMC's and SGLD's getters).
pub(crate) fn inverse_mass_into<T: Float>(
    diagonal: bool,
    ws: &[T],
    at: usize,
    d: usize,
    out: &mut [T],
) -> Result<(), Error> {
    let out = out.get_mut(..d).ok_or(Error::OutputTooSmall)?;
    if diagonal {
        let k = ws
            .get(at..at.saturating_add(d))
            .ok_or(Error::WorkspaceTooSmall)?;
        copy(out, k);
    } else {
        out.fill(T::from_f64(1.0));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// σ² beyond the float type's range: the estimate is not applied (the factors stay 1 and
    /// the momentum as it was), where it used to give k = ∞, m = 0 (or k = 0, m = ∞) and then
    /// NaN positions in every later iteration. In range, the shrunk estimate.
    #[test]
    fn an_estimate_out_of_the_types_range_keeps_the_factors() {
        fn set<T: Float>(sigma: f64) -> ([T; 2], [T; 2], [T; 2]) {
            let (mut m, mut k) = ([T::from_f64(1.0); 2], [T::from_f64(1.0); 2]);
            let (mut mean, mut m2) = ([T::from_f64(0.5); 2], [T::from_f64(3.0), T::from_f64(0.0)]);
            let mut r = [T::from_f64(0.25); 2];
            set_mass(
                &mut m,
                &mut k,
                &mut mean,
                &mut m2,
                &mut r,
                &[T::ZERO; 2],
                4,
                sigma,
            );
            assert!(
                mean.iter().chain(&m2).all(|&x| x == T::ZERO),
                "sums cleared"
            );
            (m, k, r)
        }
        // Coordinate 0 has variance 1: σ²·v overflows the type and it keeps its factors and
        // momentum. Coordinate 1 has variance 0: the shrinkage gives (5/9)·k_old, in range.
        let (m, k, r) = set::<f64>(1e300);
        assert_eq!((m[0], k[0], r[0]), (1.0, 1.0, 0.25), "σ = 1e300");
        let (m, k, r) = set::<f32>(1e30);
        assert_eq!((m[0], k[0], r[0]), (1.0, 1.0, 0.25), "f32, σ = 1e30");
        let k1 = (1.0 - 4.0 / 9.0) as f32;
        assert_eq!(k[1], k1);
        assert_eq!(m[1], (1.0 / libm::sqrt(f64::from(k1))) as f32, "{m:?}");
        // In range: k̂ = (4/9)·σ²·v + (5/9)·k_old with v = 3/3 and 0, k_old = 1.
        let (m, k, r) = set::<f64>(2.0);
        let v = [1.0, 0.0];
        for i in 0..2 {
            let kw = (4.0 / 9.0) * (4.0 * v[i]) + (1.0 - 4.0 / 9.0) * 1.0;
            let mw = 1.0 / libm::sqrt(kw);
            assert_eq!((k[i], m[i], r[i]), (kw, mw, 0.25 * mw), "coordinate {i}");
        }
    }

    /// Welford's running sums give the two-pass mean and sum of squared deviations (to
    /// round-off) on data far from zero, where a wrong update (the old mean in both factors)
    /// would be off by the data's variance times about one per point.
    #[test]
    fn welford_matches_the_two_pass_sums() {
        let xs: [f64; 7] = [
            1e3 + 0.5,
            1e3 - 1.25,
            1e3 + 2.0,
            1e3,
            1e3 + 0.75,
            1e3 - 3.0,
            1e3 + 1.5,
        ];
        let (mut mean, mut m2) = ([0.0f64; 1], [0.0f64; 1]);
        for (n, &x) in xs.iter().enumerate() {
            welford(&mut mean, &mut m2, &[x], n as u64 + 1);
        }
        let mu = xs.iter().sum::<f64>() / xs.len() as f64;
        let ss = xs.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>();
        assert!((mean[0] - mu).abs() < 1e-12 * mu, "{} vs {mu}", mean[0]);
        assert!((m2[0] - ss).abs() < 1e-9 * ss, "{} vs {ss}", m2[0]);
    }

    #[test]
    fn stan_windows_for_1000_iterations() {
        // Stan's 75 fast and slow windows 25, 50, 100, then 200 stretched to the final window,
        // here of w/5 = 200 iterations (Stan's is 50, its last slow window ending at 950).
        let mut w = MassWindows::new(1000);
        let mut ends = [0u64; 8];
        let mut k = 0;
        for m in 1..=1000 {
            if w.collects(m) && w.push() > 0 && w.window_ends(m) {
                ends[k] = m;
                k += 1;
            }
        }
        assert_eq!(&ends[..k], &[100, 150, 250, 800]);
    }

    #[test]
    fn short_warmups_split_15_75_10() {
        let mut w = MassWindows::new(100);
        let ends: u32 = (1..=100)
            .map(|m| (w.collects(m) && w.push() > 0 && w.window_ends(m)) as u32)
            .sum();
        assert_eq!(ends, 1);
        assert!(!MassWindows::new(100).collects(15) && MassWindows::new(100).collects(16));
        assert!(MassWindows::new(100).collects(90) && !MassWindows::new(100).collects(91));
    }

    /// The dense window update: K = (n/(n+5))·σ²·S + (5/(n+5))·K_old, factorised.
    #[test]
    fn dense_window_update() {
        let d = 2;
        // Old factor: identity. Draws with covariance [[4, 1], [1, 2]] written as co-moments.
        let mut l = [1.0f64, 0.0, 1.0];
        let n = 11u64;
        let mut c = [4.0 * 10.0, 1.0 * 10.0, 2.0 * 10.0];
        let mut mean = [3.0, 4.0];
        assert!(set_dense(&mut l, &mut c, &mut mean, &[0.0; 2], d, n, 1.0));
        let w = 11.0 / 16.0;
        let k = [w * 4.0 + (1.0 - w), w * 1.0, w * 2.0 + (1.0 - w)];
        let mut back = [0.0; 3];
        crate::dense::gram(&mut back, &l, d);
        for (a, b) in back.iter().zip(&k) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        assert!(c.iter().chain(&mean).all(|&x| x == 0.0));
        // A floor above a coordinate's window variance scales its row and column: variance
        // 0.01 floored at 4 (a factor 20 on the standard deviation), the correlation kept.
        let mut l = [1.0f64, 0.0, 1.0];
        let mut c = [0.01 * 10.0, 0.05 * 10.0, 1.0 * 10.0];
        let mut mean = [0.0; 2];
        assert!(set_dense(&mut l, &mut c, &mut mean, &[4.0, 0.5], d, n, 1.0));
        let k = [w * 4.0 + (1.0 - w), w * 0.05 * 20.0, w * 1.0 + (1.0 - w)];
        crate::dense::gram(&mut back, &l, d);
        for (a, b) in back.iter().zip(&k) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
