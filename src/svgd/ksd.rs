//! The kernelized Stein discrepancy (KSD) of a particle set, from the particles' own gradients
//! (Gorham & Mackey 2017; docs/algorithms.md §2.5).
//!
//! For a target `π ∝ e^{−V}` with score `s = −∇V`, and a positive-definite base kernel `k`, the
//! Stein kernel is
//!
//! ```text
//! u(x, y) = s(x)ᵀs(y)·k(x, y) + s(x)ᵀ∇_y k(x, y) + s(y)ᵀ∇_x k(x, y) + tr ∇_x∇_y k(x, y)
//! ```
//!
//! and `KSD²(μ) = E_{x,y ~ μ} u(x, y)`, zero exactly when μ = π (for the base kernel used here).
//! The base kernel is the inverse multiquadric `k = (c² + r²)^β`, `β ∈ (−1, 0)` (default
//! `β = −1/2`, `c = 1`), for which KSD → 0 implies weak convergence. With `q = c² + r²`,
//! `r = x − y` and `g = ∇V` (what the gradient callbacks return):
//!
//! ```text
//! u(x, y) = q^β·g(x)ᵀg(y) + 2β·q^(β−1)·(g(x) − g(y))ᵀ(x − y) − 2β·d·q^(β−1) − 4β(β−1)·q^(β−2)·r²
//! ```
//!
//! # Estimators
//!
//! * [`ksd_full`]: the V-statistic `(1/N²)·Σ_i Σ_j u(X_i, X_j)` over all `N²` ordered pairs
//!   (O(N²d)). It is never negative, and on exact samples its mean is `E u(x, x)/N`, so the KSD
//!   falls like `N^(−1/2)`.
//! * [`ksd_batch`] (and the SVGD iteration's batch mode): the random-batch estimate, built as
//!   RBM-SVGD builds its force. A random permutation is cut into `⌊N/p⌋` batches of `p` (the
//!   last takes the left-overs); with `m_i` the size of particle i's batch `C_i`,
//!
//!   ```text
//!   KSD²_batch = (1/N²)·Σ_i u(X_i, X_i) + ((N−1)/N)·(1/N)·Σ_i (1/(m_i − 1))·Σ_{j ∈ C_i, j ≠ i} u(X_i, X_j)
//!   ```
//!
//!   Given the size of its batch, particle i's batch mates are a uniform subset of the other
//!   `N − 1`, so the inner average has mean `(1/(N−1))·Σ_{j≠i} u(X_i, X_j)`: the estimate's mean
//!   over partitions is the V-statistic exactly. It costs O(pNd) and may be negative.
//!
//! # Arithmetic (reproducibility contract)
//!
//! In `f64` whatever the coordinate type (coordinates and gradients widened exactly), sums in
//! index order. Per pair: `r² = Σ_l (x_l − y_l)²`, `gg = Σ_l gx_l·gy_l`,
//! `gd = Σ_l (gx_l − gy_l)·(x_l − y_l)` (one pass over l), `q = c2 + r²`,
//! `k = 1/sqrt(q)` when `β = −1/2`, otherwise `exp(β·ln q)`; `k1 = k/q`, `k2 = k1/q`;
//! `u = ((k·gg + tb·k1·gd) − tbd·k1) − fb·k2·r²` with `c2 = c·c`, `tb = 2β`, `tbd = 2β·d`,
//! `fb = 4β·(β − 1)`. The full value is `(diag + 2·off)/(N·N)` with `diag = Σ_i u_ii`
//! (index order) and `off = Σ_{i<j} u_ij` (i outer, j inner). The batch value is
//! `(diag + (N−1)·sb)/(N·N)` with `sb = Σ_batches 2·P_b/(m_b − 1)` in batch order, `P_b` the sum
//! of `u` over the batch's pairs `a < b` in permutation order. Nothing here draws random numbers
//! except [`ksd_batch`], whose permutation is documented there.

use super::permutation::shuffle_prefix;
use super::rows::row;
use crate::error::Error;
use crate::float::Float;
use crate::rng::Rng;

/// The IMQ base kernel of the Stein discrepancy, `k(x, y) = (c² + |x − y|²)^β`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteinImq {
    /// The scale c > 0 (finite).
    pub c: f64,
    /// The exponent β ∈ (−1, 0) (Gorham & Mackey's range, where KSD controls convergence).
    pub beta: f64,
}

impl Default for SteinImq {
    /// `c = 1`, `β = −1/2`.
    fn default() -> Self {
        SteinImq { c: 1.0, beta: -0.5 }
    }
}

impl SteinImq {
    /// [`Error::InvalidKernel`] unless `c` is finite and positive and `β ∈ (−1, 0)`.
    pub fn validate(&self) -> Result<(), Error> {
        let ok = self.c.is_finite() && self.c > 0.0 && (self.c * self.c).is_finite();
        if ok && self.beta > -1.0 && self.beta < 0.0 {
            Ok(())
        } else {
            Err(Error::InvalidKernel)
        }
    }
}

/// Whether and how an SVGD iteration reports the KSD of its particles ([`SvgdInfo::ksd_squared`](super::SvgdInfo::ksd_squared)).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum KsdChoice {
    /// Not computed (the default): the info reports NaN and the iteration costs nothing extra.
    #[default]
    Off,
    /// The random-batch estimate over the iteration's own batches: O(pNd), no extra draws.
    Batch(SteinImq),
    /// The full V-statistic: O(N²d), no draws.
    Full(SteinImq),
}

impl KsdChoice {
    /// Checks the base kernel's parameters ([`Error::InvalidKernel`]); without the crate's `ksd`
    /// feature (on by default) anything but `Off` is [`Error::InvalidOption`].
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            KsdChoice::Off => Ok(()),
            _ if !cfg!(feature = "ksd") => Err(Error::InvalidOption),
            KsdChoice::Batch(k) | KsdChoice::Full(k) => k.validate(),
        }
    }
}

/// The constants of the Stein kernel for dimension d (or, for Stein thinning's preconditioned
/// kernel, the trace of its metric in place of d).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stein {
    c2: f64,
    beta: f64,
    half: bool,
    tb: f64,
    tbd: f64,
    fb: f64,
}

impl Stein {
    pub(super) fn new(k: &SteinImq, d: usize) -> Self {
        Self::with_trace(k, d as f64)
    }

    /// The constants with `trace` (the metric's trace; d for the identity).
    pub(crate) fn with_trace(k: &SteinImq, trace: f64) -> Self {
        let b = k.beta;
        Stein {
            c2: k.c * k.c,
            beta: b,
            half: b == -0.5,
            tb: 2.0 * b,
            tbd: 2.0 * b * trace,
            fb: 4.0 * b * (b - 1.0),
        }
    }

    /// `u` from the pair's sums: `r2q` the squared distance in the metric, `gg = Σ gx·gy`,
    /// `gd = Σ (gx − gy)·(metric·r)`, `r2` the metric's square applied to r, squared.
    #[inline(always)]
    pub(crate) fn value(&self, r2q: f64, gg: f64, gd: f64, r2: f64) -> f64 {
        let q = self.c2 + r2q;
        let k = if self.half {
            1.0 / libm::sqrt(q)
        } else {
            libm::exp(self.beta * libm::log(q))
        };
        let k1 = k / q;
        let k2 = k1 / q;
        ((k * gg + self.tb * k1 * gd) - self.tbd * k1) - self.fb * k2 * r2
    }

    /// `u(x, y)` for gradients `gx = ∇V(x)`, `gy = ∇V(y)` (rows of equal length).
    #[inline(always)]
    pub(super) fn pair<T: Float>(&self, x: &[T], y: &[T], gx: &[T], gy: &[T]) -> f64 {
        let (mut r2, mut gg, mut gd) = (0.0f64, 0.0f64, 0.0f64);
        for (((xl, yl), gxl), gyl) in x.iter().zip(y).zip(gx).zip(gy) {
            let diff = xl.to_f64() - yl.to_f64();
            let (a, b) = (gxl.to_f64(), gyl.to_f64());
            r2 += diff * diff;
            gg += a * b;
            gd += (a - b) * diff;
        }
        self.value(r2, gg, gd, r2)
    }
}

/// Checks the lengths shared by both estimators; returns N.
fn check_sizes<T: Float>(
    x: &[T],
    grads: &[T],
    d: usize,
    kernel: &SteinImq,
) -> Result<usize, Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if x.is_empty() {
        return Err(Error::ZeroParticles);
    }
    if !x.len().is_multiple_of(d) || grads.len() != x.len() {
        return Err(Error::LengthMismatch);
    }
    kernel.validate()?;
    Ok(x.len() / d)
}

/// `Σ_i u(X_i, X_i)` in index order: [`stein_sum`]'s diagonal.
pub(super) fn diag_sum<T: Float>(st: &Stein, x: &[T], g: &[T], d: usize) -> f64 {
    stein_sum(st, x, g, d, true)
}

/// `Σ_{i<j} u(X_i, X_j)` over the rows of `x` and `g` (i outer, j inner, index order): the full
/// value's `off`, and the pair sum `P_b` of a batch whose members are consecutive rows (the
/// batches of an SVGD iteration, stored by permutation slot). [`stein_sum`]'s pairs.
pub(super) fn off_sum<T: Float>(st: &Stein, x: &[T], g: &[T], d: usize) -> f64 {
    stein_sum(st, x, g, d, false)
}

/// Over the `n = x.len()/d` rows of `x` and `g`: with `diag`, `Σ_i u(X_i, X_i)`; otherwise
/// `Σ_{i<j} u(X_i, X_j)`; in index order (i outer, j inner), from 0. One function for both, with
/// `pair` inlined once: never inlined itself, so that on Cortex-M the KSD's deepest chain is this
/// frame, then `log`, `exp` or `sqrt` and a soft-float call, beside (not on top of) its caller's
/// loop (docs/footprint.md). Few arguments, so that its callers pass few on the stack.
#[inline(never)]
fn stein_sum<T: Float>(st: &Stein, x: &[T], g: &[T], d: usize, diag: bool) -> f64 {
    let n = x.len().checked_div(d).unwrap_or(0);
    let mut s = 0.0;
    for i in 0..n {
        let (xi, gi) = (row(x, i, d), row(g, i, d));
        let others = if diag { i..i + 1 } else { i + 1..n };
        for j in others {
            s += st.pair(xi, row(x, j, d), gi, row(g, j, d));
        }
    }
    s
}

/// The full V-statistic KSD² of `N = x.len()/d` particles `x` (row by row) with gradients
/// `grads = ∇V(x)` (same layout): O(N²d) time, no memory. Errors: [`Error::ZeroDimension`],
/// [`Error::ZeroParticles`], [`Error::LengthMismatch`], [`Error::InvalidKernel`]. A non-finite
/// input gives a non-finite value.
pub fn ksd_full<T: Float>(x: &[T], grads: &[T], d: usize, kernel: &SteinImq) -> Result<f64, Error> {
    let n = check_sizes(x, grads, d, kernel)?;
    let st = Stein::new(kernel, d);
    let diag = diag_sum(&st, x, grads, d);
    Ok(full_value(diag, off_sum(&st, x, grads, d), n))
}

/// The full value `(diag + 2·off)/(N·N)`.
pub(super) fn full_value(diag: f64, off: f64, n: usize) -> f64 {
    let nf = n as f64;
    (diag + 2.0 * off) / (nf * nf)
}

/// The batch estimate from [`diag_sum`]'s `diag` and `pairs(start, end)`, the pair sum `P_b` of
/// the batch of slots `start..end` (pairs `a < b` in slot order). The slots are cut as RBM-SVGD
/// cuts a permutation: `⌊n/p⌋` batches of `p`, the last also takes the `n mod p` left over.
/// `p` must satisfy `2 ≤ p ≤ n`.
#[inline(always)]
pub(super) fn batch_value(
    n: usize,
    p: usize,
    diag: f64,
    mut pairs: impl FnMut(usize, usize) -> f64,
) -> f64 {
    let nb = n.checked_div(p).unwrap_or(0);
    let mut sb = 0.0;
    for b in 0..nb {
        let start = b * p;
        let end = if b + 1 == nb { n } else { start + p };
        sb += 2.0 * pairs(start, end) / (end - start - 1) as f64;
    }
    let nf = n as f64;
    (diag + (nf - 1.0) * sb) / (nf * nf)
}

/// The random-batch estimate of KSD² (see the module docs) in O(pNd): draws a uniformly random
/// permutation of `0..N` into `index[..N]` by forward Fisher–Yates on the identity
/// (`for t in 0..N−1 { j = t + rng.below(N − t); swap(index[t], index[j]) }`, as an SVGD
/// iteration does), cuts it into `⌊N/p⌋` batches of `p` (the last takes the `N mod p`
/// left-overs) and sums the Stein kernel over the pairs within each batch. Its mean over the
/// permutations is [`ksd_full`]'s value; with `p = N` it is that value up to rounding.
///
/// Errors, nothing drawn or written: those of [`ksd_full`], [`Error::InvalidBatchSize`]
/// (`p < 2` or `p > N`), [`Error::WorkspaceTooSmall`] (`index` shorter than N),
/// [`Error::InvalidArgument`] (N ≥ 2³²).
pub fn ksd_batch<T: Float>(
    x: &[T],
    grads: &[T],
    d: usize,
    p: usize,
    kernel: &SteinImq,
    rng: &mut Rng,
    index: &mut [u32],
) -> Result<f64, Error> {
    let n = check_sizes(x, grads, d, kernel)?;
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument);
    }
    if p < 2 || p > n {
        return Err(Error::InvalidBatchSize);
    }
    let perm = index.get_mut(..n).ok_or(Error::WorkspaceTooSmall)?;
    for (t, v) in perm.iter_mut().enumerate() {
        *v = t as u32;
    }
    shuffle_prefix(rng, perm, n - 1);
    // `t < n = perm.len()` always; `get` keeps a panic path out of the library.
    let member = |t: usize| perm.get(t).map_or(0, |&i| i as usize);
    let st = Stein::new(kernel, d);
    let diag = diag_sum(&st, x, grads, d);
    Ok(batch_value(n, p, diag, |start, end| {
        let mut pairs = 0.0;
        for a in start..end {
            let i = member(a);
            let (xi, gi) = (row(x, i, d), row(grads, i, d));
            for c in a + 1..end {
                let j = member(c);
                pairs += st.pair(xi, row(x, j, d), gi, row(grads, j, d));
            }
        }
        pairs
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With the `ksd` feature (default) a valid choice passes; without it (scripts/test-rust.sh
    /// also runs this with `--no-default-features`) it is refused, so no iteration reaches the
    /// NaN that `ksd_of_iteration` returns then.
    #[test]
    fn the_feature_decides_whether_a_ksd_choice_is_accepted() {
        let want = if cfg!(feature = "ksd") {
            Ok(())
        } else {
            Err(Error::InvalidOption)
        };
        assert_eq!(KsdChoice::Batch(SteinImq::default()).validate(), want);
        assert_eq!(KsdChoice::Full(SteinImq::default()).validate(), want);
        assert_eq!(KsdChoice::Off.validate(), Ok(()));
    }
}
