//! The diagonal mass matrix of AMAGOLD and its windowed warm-up estimate (docs/algorithms.md §1.5).
//!
//! With a diagonal mass matrix the momentum of coordinate i has standard deviation `σ·mᵢ` and the
//! position moves by `(ε/σ²)·kᵢ·rᵢ`, with `kᵢ = 1/mᵢ²` (the inverse mass relative to σ⁻²).
//! The samplers multiply by `mᵢ` and `kᵢ` where they used σ and 1/σ²; with no mass matrix both
//! factors are exactly 1, and a product with 1 is exact, so the default streams keep their bits.
//!
//! The warm-up follows the window scheme of Stan (and BlackJAX's window adaptation): a fast
//! interval that only adapts ε, slow windows of doubling length whose draws estimate each
//! coordinate's variance (Welford, in the workspace), and a final fast interval. At the end of
//! each slow window the mass matrix is set from the regularised variance and the dual averaging
//! of ε restarts from the current ε.

use crate::float::Float;

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

/// `x[i] = x[i] + (c·kᵢ)·v[i]`: [`add_scaled`](crate::float::add_scaled) with per-coordinate
/// factors (identical bits when every kᵢ is 1).
#[inline]
pub(crate) fn add_scaled_by<T: Float>(x: &mut [T], c: T, k: Option<&[T]>, v: &[T]) {
    for ((xi, &vi), ki) in x.iter_mut().zip(v).zip(Factors::of(k)) {
        *xi += (c * ki) * vi;
    }
}

/// Stan's windows for a warm-up of `w` iterations: (initial fast interval, first slow window,
/// final fast interval). Stan's 75/25/50 when `w ≥ 150`, else 15 %/75 %/10 % of `w`.
pub(crate) const fn windows(w: u64) -> (u64, u64, u64) {
    if w >= 150 {
        (75, 25, 50)
    } else {
        let init = w * 15 / 100;
        let term = w / 10;
        (init, w - init - term, term)
    }
}

/// Where the warm-up stands: the current slow window `[start, end)` in iterations (1-based
/// counts of finished iterations), and the regularisation of Stan: the variance estimate
/// `n/(n+5)·v + 10⁻³·5/(n+5)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassWindows {
    warmup: u64,
    end: u64,
    len: u64,
    last: u64,
    count: u64,
}

impl MassWindows {
    /// The schedule of a warm-up of `warmup` iterations.
    pub(crate) const fn new(warmup: u64) -> Self {
        let (init, base, term) = windows(warmup);
        let last = warmup - term;
        let end = if init + base > last {
            last
        } else {
            init + base
        };
        MassWindows {
            warmup,
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

    /// `true` when the draw after finished iteration `m` belongs to a slow window.
    pub(crate) const fn collects(&self, m: u64) -> bool {
        let (init, _, _) = windows(self.warmup);
        m > init && m <= self.last
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

/// Sets the mass factors from a window of `n ≥ 2` draws: `kᵢ = σ²·v̂ᵢ` (so the position step
/// is `ε·v̂ᵢ·r`, v̂ the regularised variance), `mᵢ = 1/√kᵢ`; rescales the persistent momentum
/// `r` to the new mass (it stays distributed as N(0, σ²mᵢ²) if it was before); clears the
/// Welford sums. A coordinate whose `kᵢ` or `mᵢ` would not be a positive finite `T` keeps its
/// factors and momentum: with σ² (or the variance) beyond `T`'s range, k = ∞ and m = 0 (or
/// the reverse) would make the sampler's products `(ε/σ²)·kᵢ` and `σ·mᵢ` 0·∞ = NaN, and every
/// later iteration diverge, where the chain without a mass matrix does not.
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_mass<T: Float>(
    m: &mut [T],
    k: &mut [T],
    mean: &mut [T],
    m2: &mut [T],
    r: &mut [T],
    n: u64,
    sigma: f64,
) {
    let nf = n as f64;
    for ((((mi, ki), mu), si), ri) in m
        .iter_mut()
        .zip(k.iter_mut())
        .zip(mean.iter_mut())
        .zip(m2.iter_mut())
        .zip(r.iter_mut())
    {
        let v = si.to_f64() / (nf - 1.0);
        let v = (nf / (nf + 5.0)) * v + 1e-3 * (5.0 / (nf + 5.0));
        let k_new = sigma * sigma * v;
        let m_new = 1.0 / libm::sqrt(k_new);
        let (kt, mt) = (T::from_f64(k_new), T::from_f64(m_new));
        if kt.is_finite() && mt.is_finite() && kt > T::ZERO && mt > T::ZERO {
            *ri = T::from_f64(ri.to_f64() * (m_new / mi.to_f64()));
            *mi = mt;
            *ki = kt;
        }
        *mu = T::ZERO;
        *si = T::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// σ² beyond the float type's range: the estimate is not applied (the factors stay 1 and
    /// the momentum as it was), where it used to give k = ∞, m = 0 (or k = 0, m = ∞) and then
    /// NaN positions in every later iteration. In range, the same factors as ever.
    #[test]
    fn an_estimate_out_of_the_types_range_keeps_the_factors() {
        fn set<T: Float>(sigma: f64) -> ([T; 2], [T; 2], [T; 2]) {
            let (mut m, mut k) = ([T::from_f64(1.0); 2], [T::from_f64(1.0); 2]);
            let (mut mean, mut m2) = ([T::from_f64(0.5); 2], [T::from_f64(3.0), T::from_f64(0.0)]);
            let mut r = [T::from_f64(0.25); 2];
            set_mass(&mut m, &mut k, &mut mean, &mut m2, &mut r, 4, sigma);
            assert!(
                mean.iter().chain(&m2).all(|&x| x == T::ZERO),
                "sums cleared"
            );
            (m, k, r)
        }
        for sigma in [1e300, 1e-170] {
            let (m, k, r) = set::<f64>(sigma);
            assert_eq!((m, k, r), ([1.0; 2], [1.0; 2], [0.25; 2]), "σ = {sigma:e}");
        }
        for sigma in [1e30, 1e-30] {
            let (m, k, r) = set::<f32>(sigma);
            assert_eq!(
                (m, k, r),
                ([1.0f32; 2], [1.0f32; 2], [0.25f32; 2]),
                "f32, σ = {sigma:e}"
            );
        }
        // In range: v̂ = (4/9)·(3/3) + 10⁻³·5/9 and (4/9)·0 + 10⁻³·5/9, k = σ²·v̂, m = 1/√k.
        let (m, k, r) = set::<f64>(2.0);
        let v = [(4.0 / 9.0) * 1.0 + 1e-3 * (5.0 / 9.0), 1e-3 * (5.0 / 9.0)];
        for i in 0..2 {
            let kw = 4.0 * v[i];
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
        // Stan: 75 fast, slow windows 25, 50, 100, 200, 500 (the last stretched to 950), 50 fast.
        let mut w = MassWindows::new(1000);
        let mut ends = [0u64; 8];
        let mut k = 0;
        for m in 1..=1000 {
            if w.collects(m) && w.push() > 0 && w.window_ends(m) {
                ends[k] = m;
                k += 1;
            }
        }
        assert_eq!(&ends[..k], &[100, 150, 250, 450, 950]);
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
}
