//! Interaction kernels for SVGD: the [`Kernel`] trait and the kernels the library ships.
//!
//! # Contract
//!
//! A kernel is **radial**: `k(x, y)` depends on `x, y` only through `r² = |x − y|²`, and its
//! gradient in its second argument is a multiple of `x − y`:
//!
//! ```text
//! ∇_y k(x, y) = c(r²) · (x − y)
//! ```
//!
//! [`Kernel::eval`] returns the pair `(k, c)` for a given `r²`. This covers the Gaussian kernel,
//! the inverse multiquadric `(c² + r²)^(−β)` (for β = α/2 the long-range, mollified `1/|x|^α`
//! interaction the RBM-SVGD paper mentions) and any other isotropic positive-definite kernel.
//!
//! Once per iteration the sampler calls [`Kernel::prepare`] with all particles (at the start of
//! the iteration) and a scratch slice of [`Kernel::scratch_len`] coordinates; whatever it
//! returns (plain data, e.g. a bandwidth and its reciprocals rounded to `T`) is passed to every
//! `eval` of that iteration. `prepare` draws no random numbers.
//!
//! # Arithmetic (part of the reproducibility contract)
//!
//! * Gaussian, bandwidth h (fixed, or from the median heuristic): `a = T(0.5 / h)`,
//!   `b = T(1 / h)` (each computed in `f64`, rounded once to `T`), then
//!   `k = fast_exp(−(r²·a))`, `c = k·b`, with `fast_exp` the branch-free
//!   [`crate::fastexp::exp`] / [`expf`](crate::fastexp::expf) (below 0.8 ulp; it replaced
//!   `libm`'s `exp` after 0.2.0, so the kernel's values may differ from 0.2.0's in the last bit).
//! * Inverse multiquadric: `c2 = T(c·c)`, `β = T(β)`, `β2 = T(2·β)`; then `s = c2 + r²`,
//!   `k = 1 / sqrt(s)` when `β = ½` (the usual choice), otherwise `k = exp(−(β·ln s))`; then
//!   `c = (β2·k) / s`. (`sqrt`, `exp` and `ln` through `libm`: the `Float` trait has no `pow`;
//!   `sqrt` is correctly rounded and `exp(−β ln s)` deterministic on every target. The β = ½
//!   form replaced `exp(−½ ln s)` after 0.3.0: at most 1 ulp from the correctly rounded
//!   `s^(−½)` in `f32` (this module's test, s in [10⁻⁶, 10⁶]), where the old form was up to 4
//!   ulp off (measured once over 10⁷ values when it changed; the two differ by up to 5 ulp in
//!   `f64`); about 10× faster in full SVGD, and vectorisable.)
//! * Median heuristic: see [`GaussianMedian`].

use super::median::median_pairwise_distance;
use crate::error::Error;
use crate::float::Float;

/// A radial, positive-definite interaction kernel (see the module docs for the contract).
pub trait Kernel<T: Float> {
    /// What [`prepare`](Self::prepare) computes once per iteration and [`eval`](Self::eval)
    /// reads: plain data.
    type Prepared: Copy + core::fmt::Debug;

    /// Checks the kernel's parameters (for the coordinate type `T`).
    fn validate(&self) -> Result<(), Error>;

    /// Scratch coordinates `prepare` needs for `n` particles (0 for most kernels).
    fn scratch_len(&self, n: usize) -> usize;

    /// Prepares one iteration from the particles `xs` (`xs.len() / d` rows of length `d`, all
    /// finite) using `scratch` (at least `scratch_len(n)` long). Errors are
    /// [`Error::NonFinite`] when a data-dependent parameter is not finite.
    fn prepare(&self, xs: &[T], d: usize, scratch: &mut [T]) -> Result<Self::Prepared, Error>;

    /// The bandwidth h this iteration uses, for the iteration's info record (NaN for kernels
    /// without one).
    fn bandwidth(&self, prepared: &Self::Prepared) -> f64;

    /// `(k, c)` at squared distance `r2`, with `∇_y k(x, y) = c·(x − y)`.
    fn eval(&self, prepared: &Self::Prepared, r2: T) -> (T, T);

    /// [`eval`](Self::eval) over a tile: `r2_k[t]` holds r² on entry and `k` on return, `c[t]`
    /// gets `c` (over the common length). Must give exactly the values of `eval` element by
    /// element; the shipped kernels override it with a loop the compiler can vectorise.
    #[inline]
    fn eval_tile(&self, prepared: &Self::Prepared, r2_k: &mut [T], c: &mut [T]) {
        for (v, ct) in r2_k.iter_mut().zip(c.iter_mut()) {
            let (k, cc) = self.eval(prepared, *v);
            *v = k;
            *ct = cc;
        }
    }
}

/// The per-iteration constants of a Gaussian kernel: `h`, `a = T(0.5/h)`, `b = T(1/h)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussianParams<T> {
    /// The bandwidth h.
    pub h: f64,
    /// `0.5 / h` rounded to `T`.
    pub a: T,
    /// `1 / h` rounded to `T`.
    pub b: T,
}

impl<T: Float> GaussianParams<T> {
    /// The constants for bandwidth `h`, or `None` when h or a constant is not finite and positive.
    fn new(h: f64) -> Option<Self> {
        let a = T::from_f64(0.5 / h);
        let b = T::from_f64(1.0 / h);
        let ok = h.is_finite() && h > 0.0;
        let ok = ok && a.is_finite() && a > T::ZERO && b.is_finite() && b > T::ZERO;
        ok.then_some(GaussianParams { h, a, b })
    }

    #[inline]
    fn eval(&self, r2: T) -> (T, T) {
        let k = (-(r2 * self.a)).fast_exp();
        (k, k * self.b)
    }

    /// [`eval`](Self::eval) over a tile, one straight-line body per element (no branch, no
    /// call): vectorisable, the same bits at every vector width.
    #[inline(always)]
    fn eval_tile(&self, r2_k: &mut [T], c: &mut [T]) {
        let (a, b) = (self.a, self.b);
        for (v, ct) in r2_k.iter_mut().zip(c.iter_mut()) {
            let k = (-(*v * a)).fast_exp();
            *v = k;
            *ct = k * b;
        }
    }
}

/// `k(x, y) = exp(−|x − y|² / (2h))` with a fixed bandwidth `h > 0` (the paper's eq. 4-2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    /// The bandwidth h (finite, positive).
    pub h: f64,
}

impl<T: Float> Kernel<T> for Gaussian {
    type Prepared = GaussianParams<T>;
    fn validate(&self) -> Result<(), Error> {
        GaussianParams::<T>::new(self.h)
            .map(|_| ())
            .ok_or(Error::InvalidBandwidth)
    }
    fn scratch_len(&self, _n: usize) -> usize {
        0
    }
    fn prepare(&self, _xs: &[T], _d: usize, _s: &mut [T]) -> Result<GaussianParams<T>, Error> {
        GaussianParams::new(self.h).ok_or(Error::InvalidBandwidth)
    }
    fn bandwidth(&self, p: &GaussianParams<T>) -> f64 {
        p.h
    }
    #[inline]
    fn eval(&self, p: &GaussianParams<T>, r2: T) -> (T, T) {
        p.eval(r2)
    }
    #[inline]
    fn eval_tile(&self, p: &GaussianParams<T>, r2_k: &mut [T], c: &mut [T]) {
        p.eval_tile(r2_k, c)
    }
}

/// The Gaussian kernel with the median heuristic, recomputed every iteration from the particles
/// at its start: `h = med² / (2·ln N)`, med the median of the `N(N−1)/2` pairwise distances
/// `|X_i − X_j|`, `i < j` (the mean of the two middle values when their count is even).
/// `N = 1`, `med = 0` (or a NaN median) fall back to `h = 1`.
///
/// Arithmetic: each distance is `sqrt(r²)` in `T` (r² as in the sampler: index-order sum of
/// squared differences); the median is found by selection (no sorting; run on the r² values,
/// which gives the same bits since `sqrt` is correctly rounded and monotone) and widened to `f64`
/// (even count: `0.5·(lo + hi)` in `f64`); `h = (med·med) / (2·ln N)` in `f64`.
///
/// Needs `N(N−1)/2` scratch coordinates: the only O(N²) memory in the library. Meant for full
/// SVGD (p = N), where the interaction is O(N²) anyway; it works with any p.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GaussianMedian;

/// `N(N−1)/2`, saturating.
fn pair_count(n: usize) -> usize {
    if n.is_multiple_of(2) {
        (n / 2).saturating_mul(n.saturating_sub(1))
    } else {
        n.saturating_mul((n - 1) / 2)
    }
}

impl<T: Float> Kernel<T> for GaussianMedian {
    type Prepared = GaussianParams<T>;
    fn validate(&self) -> Result<(), Error> {
        Ok(())
    }
    fn scratch_len(&self, n: usize) -> usize {
        pair_count(n)
    }
    fn prepare(&self, xs: &[T], d: usize, scratch: &mut [T]) -> Result<GaussianParams<T>, Error> {
        let n = xs.len().checked_div(d).unwrap_or(0);
        let m = pair_count(n);
        if scratch.len() < m {
            return Err(Error::WorkspaceTooSmall);
        }
        let med = median_pairwise_distance(xs, d, &mut scratch[..m]);
        let h = if n < 2 || med.is_nan() || med <= 0.0 {
            1.0
        } else {
            (med * med) / (2.0 * libm::log(n as f64))
        };
        GaussianParams::new(h).ok_or(Error::NonFinite)
    }
    fn bandwidth(&self, p: &GaussianParams<T>) -> f64 {
        p.h
    }
    #[inline]
    fn eval(&self, p: &GaussianParams<T>, r2: T) -> (T, T) {
        p.eval(r2)
    }
    #[inline]
    fn eval_tile(&self, p: &GaussianParams<T>, r2_k: &mut [T], c: &mut [T]) {
        p.eval_tile(r2_k, c)
    }
}

/// `x.ln()`, a call of its own on bare metal: inlined into [`ImqParams::eval_general`] (its
/// only caller there) `libm`'s `log` and `exp` would put their frames into its own.
#[cfg_attr(sgs_vector, inline(always))]
#[cfg_attr(not(sgs_vector), inline(never))]
fn call_ln<T: Float>(x: T) -> T {
    x.ln()
}

/// `x.exp()`, a call of its own on bare metal (as [`call_ln`]).
#[cfg_attr(sgs_vector, inline(always))]
#[cfg_attr(not(sgs_vector), inline(never))]
fn call_exp<T: Float>(x: T) -> T {
    x.exp()
}

/// The per-iteration constants of an inverse multiquadric kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImqParams<T> {
    /// `c·c` rounded to `T`.
    pub c2: T,
    /// β rounded to `T`.
    pub beta: T,
    /// `2·β` rounded to `T`.
    pub two_beta: T,
}

impl<T: Float> ImqParams<T> {
    fn new(c: f64, beta: f64) -> Option<Self> {
        let p = ImqParams {
            c2: T::from_f64(c * c),
            beta: T::from_f64(beta),
            two_beta: T::from_f64(2.0 * beta),
        };
        let ok = c.is_finite() && c > 0.0 && beta.is_finite() && beta > 0.0;
        let ok = ok && p.c2.is_finite() && p.c2 > T::ZERO && p.beta > T::ZERO;
        let ok = ok && p.two_beta.is_finite();
        ok.then_some(p)
    }

    /// β = ½ exactly (in `T`, where ½ is exact): `k = 1/√s` then, two correctly rounded
    /// operations instead of `ln` and `exp`.
    #[inline(always)]
    fn is_half(&self) -> bool {
        self.beta.is_half()
    }

    // Out of line on bare metal (tiles of one pair), where its three call sites (two pair loops
    // and the self term) would each hold both forms: 48 bytes per site in the `f64`
    // Cortex-M4F firmware, past its flash budget (docs/footprint.md). The general form
    // is a tail call, so that the `ln`/`exp` path gains no frame.
    #[cfg_attr(sgs_vector, inline)]
    #[cfg_attr(not(sgs_vector), inline(never))]
    fn eval(&self, r2: T) -> (T, T) {
        if !self.is_half() {
            return self.eval_general(r2);
        }
        self.eval_half(r2)
    }

    /// β = ½: `k = 1/sqrt(s)`, `c = (β2·k)/s` (straight-line: vectorisable in a tile loop).
    #[inline(always)]
    fn eval_half(&self, r2: T) -> (T, T) {
        let s = self.c2 + r2;
        let k = T::from_f64(1.0) / s.sqrt();
        (k, (self.two_beta * k) / s)
    }

    /// [`eval`](Self::eval) for β ≠ ½ (a tail call from it on bare metal).
    #[cfg_attr(sgs_vector, inline(always))]
    #[cfg_attr(not(sgs_vector), inline(never))]
    fn eval_general(&self, r2: T) -> (T, T) {
        let s = self.c2 + r2;
        let k = call_exp(-(self.beta * call_ln(s)));
        (k, (self.two_beta * k) / s)
    }

    /// [`eval`](Self::eval) over a tile: at β = ½ on hosts one straight-line body per element
    /// (`+`, `sqrt`, `/`, `*`: vectorisable, the same bits at every vector width), otherwise
    /// `eval` element by element (bare metal, where a tile is one pair: a loop of its own would
    /// only be flash).
    #[inline(always)]
    fn eval_tile(&self, r2_k: &mut [T], c: &mut [T]) {
        if crate::arch::VECTOR && self.is_half() {
            for (v, ct) in r2_k.iter_mut().zip(c.iter_mut()) {
                (*v, *ct) = self.eval_half(*v);
            }
        } else {
            for (v, ct) in r2_k.iter_mut().zip(c.iter_mut()) {
                (*v, *ct) = self.eval(*v);
            }
        }
    }
}

/// The inverse multiquadric `k(x, y) = (c² + |x − y|²)^(−β)`, positive definite for every
/// `c > 0`, `β > 0`, with `∇_y k = 2β·(c² + |x − y|²)^(−β−1)·(x − y)`. Long-range: it decays
/// like `|x − y|^(−2β)`. Reports a NaN bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InverseMultiquadric {
    /// The softening length c > 0.
    pub c: f64,
    /// The exponent β > 0.
    pub beta: f64,
}

impl<T: Float> Kernel<T> for InverseMultiquadric {
    type Prepared = ImqParams<T>;
    fn validate(&self) -> Result<(), Error> {
        ImqParams::<T>::new(self.c, self.beta)
            .map(|_| ())
            .ok_or(Error::InvalidKernel)
    }
    fn scratch_len(&self, _n: usize) -> usize {
        0
    }
    fn prepare(&self, _xs: &[T], _d: usize, _s: &mut [T]) -> Result<ImqParams<T>, Error> {
        ImqParams::new(self.c, self.beta).ok_or(Error::InvalidKernel)
    }
    fn bandwidth(&self, _p: &ImqParams<T>) -> f64 {
        f64::NAN
    }
    #[inline]
    fn eval(&self, p: &ImqParams<T>, r2: T) -> (T, T) {
        p.eval(r2)
    }
    #[inline]
    fn eval_tile(&self, p: &ImqParams<T>, r2_k: &mut [T], c: &mut [T]) {
        p.eval_tile(r2_k, c)
    }
}

/// The kernels above as one plain-data choice (what the C API stores).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelChoice {
    /// [`Gaussian`] with fixed bandwidth h.
    Gaussian {
        /// The bandwidth h > 0.
        h: f64,
    },
    /// [`GaussianMedian`]: the median heuristic, recomputed every iteration.
    GaussianMedian,
    /// [`InverseMultiquadric`] `(c² + r²)^(−β)`.
    InverseMultiquadric {
        /// The softening length c > 0.
        c: f64,
        /// The exponent β > 0.
        beta: f64,
    },
}

/// The prepared constants of a [`KernelChoice`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelParams<T> {
    /// A Gaussian kernel (fixed or median bandwidth).
    Gaussian(GaussianParams<T>),
    /// An inverse multiquadric kernel.
    InverseMultiquadric(ImqParams<T>),
}

impl<T: Float> Kernel<T> for KernelChoice {
    type Prepared = KernelParams<T>;
    fn validate(&self) -> Result<(), Error> {
        match *self {
            KernelChoice::Gaussian { h } => Kernel::<T>::validate(&Gaussian { h }),
            KernelChoice::GaussianMedian => Kernel::<T>::validate(&GaussianMedian),
            KernelChoice::InverseMultiquadric { c, beta } => {
                Kernel::<T>::validate(&InverseMultiquadric { c, beta })
            }
        }
    }
    fn scratch_len(&self, n: usize) -> usize {
        match *self {
            KernelChoice::GaussianMedian => Kernel::<T>::scratch_len(&GaussianMedian, n),
            _ => 0,
        }
    }
    fn prepare(&self, xs: &[T], d: usize, s: &mut [T]) -> Result<KernelParams<T>, Error> {
        Ok(match *self {
            KernelChoice::Gaussian { h } => {
                KernelParams::Gaussian(Gaussian { h }.prepare(xs, d, s)?)
            }
            KernelChoice::GaussianMedian => {
                KernelParams::Gaussian(GaussianMedian.prepare(xs, d, s)?)
            }
            KernelChoice::InverseMultiquadric { c, beta } => KernelParams::InverseMultiquadric(
                InverseMultiquadric { c, beta }.prepare(xs, d, s)?,
            ),
        })
    }
    fn bandwidth(&self, p: &KernelParams<T>) -> f64 {
        match p {
            KernelParams::Gaussian(g) => g.h,
            KernelParams::InverseMultiquadric(_) => f64::NAN,
        }
    }
    #[inline]
    fn eval(&self, p: &KernelParams<T>, r2: T) -> (T, T) {
        match p {
            KernelParams::Gaussian(g) => g.eval(r2),
            KernelParams::InverseMultiquadric(q) => q.eval(r2),
        }
    }
    /// One `match` per tile, then the kernel's own loop. Inlined everywhere: on targets without
    /// vector units (tiles of one pair) the pair loop's functions are calls of their own and so
    /// is [`fast_exp`](crate::Float::fast_exp), so a frame of its own here would only add to
    /// one of the deepest stack paths of `step` on Cortex-M (the pair loop → `exp` → a
    /// soft-float multiply; 56 bytes in `f64` on the M4F).
    #[inline(always)]
    fn eval_tile(&self, p: &KernelParams<T>, r2_k: &mut [T], c: &mut [T]) {
        match p {
            KernelParams::Gaussian(g) => g.eval_tile(r2_k, c),
            KernelParams::InverseMultiquadric(q) => q.eval_tile(r2_k, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The IMQ kernel at β = ½ is at most 1 ulp from the correctly rounded `s^(−½)` in `f32`
    /// (reference: the `f64` value rounded once), over s = c² + r² in [10⁻⁶, 10⁶]; the tile
    /// loop gives `eval`'s bits; other β still take `exp(−β ln s)`.
    #[test]
    fn imq_half_is_within_one_ulp_and_tiles_match() {
        let q = ImqParams::<f32>::new(1e-3, 0.5).unwrap();
        let mut u: u64 = 12345;
        let (mut worst, mut r2s) = (0u32, [0f32; 16]);
        for i in 0..200_000 {
            u = u
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = (u >> 11) as f64 / (1u64 << 53) as f64;
            let r2 = libm::pow(10.0, -6.0 + 12.0 * t) as f32;
            let (k, c) = q.eval(r2);
            let s = q.c2 + r2;
            let exact = (1.0 / libm::sqrt(s as f64)) as f32;
            worst = worst.max(k.to_bits().abs_diff(exact.to_bits()));
            assert_eq!(c.to_bits(), ((q.two_beta * k) / s).to_bits());
            r2s[i % 16] = r2;
            if i % 16 == 15 {
                let (mut kt, mut ct) = (r2s, [0f32; 16]);
                q.eval_tile(&mut kt, &mut ct);
                for ((&r2, &kv), &cv) in r2s.iter().zip(&kt).zip(&ct) {
                    let (k, c) = q.eval(r2);
                    assert_eq!((kv.to_bits(), cv.to_bits()), (k.to_bits(), c.to_bits()));
                }
            }
        }
        assert!(worst <= 1, "{worst} ulp");
        let g = ImqParams::<f64>::new(1.0, 0.75).unwrap();
        let s = 1.0 + 2.5;
        assert_eq!(g.eval(2.5).0, libm::exp(-(0.75 * libm::log(s))));
    }
}
