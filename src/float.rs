//! The floating-point abstraction every algorithm is written against.
//!
//! The samplers run their per-coordinate arithmetic in `f32` (microcontrollers with a
//! single-precision FPU) or `f64` (simulation codes). Energies, the AMAGOLD correction ρ and the
//! log acceptance ratio are always carried in `f64`, whatever the coordinate type.
//!
//! # Contract
//!
//! Every transcendental function goes through [`libm`] or [`crate::fastexp`], never through the
//! platform's math library, so that the same inputs give the same bits on every target. Implementations must not
//! fuse multiply-adds (Rust never contracts `a * b + c` on its own, and this trait offers no
//! `mul_add`), because a fused operation rounds once where the reference rounds twice.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A coordinate type: implemented for `f32` and `f64` only (sealed).
pub trait Float:
    Copy
    + Debug
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + private::Sealed
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// The type's machine epsilon (the gap between 1 and the next value), as an `f64`.
    const EPSILON: f64;
    /// Rounds an `f64` to this type (round to nearest, ties to even).
    fn from_f64(x: f64) -> Self;
    /// Widens (or copies) to `f64`; exact.
    fn to_f64(self) -> f64;
    /// The correctly rounded square root (IEEE-754: the same bits on every target): on x86-64
    /// the SSE2 operation as a compiler intrinsic, elsewhere `libm`'s (with its `arch` feature
    /// the FPU's instruction, else software).
    fn sqrt(self) -> Self;
    /// Exponential through `libm`.
    fn exp(self) -> Self;
    /// Exponential through [`crate::fastexp`] (`exp` / `expf`): branch-free, vectorisable,
    /// below 0.8 ulp; what the Gaussian SVGD kernels use.
    fn fast_exp(self) -> Self;
    /// Natural logarithm through `libm`.
    fn ln(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// `true` unless NaN or ±∞.
    fn is_finite(self) -> bool;
    /// `true` when exactly ½ (a comparison of bits: no soft-float call on targets without an
    /// FPU for the type).
    fn is_half(self) -> bool;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    const EPSILON: f64 = f64::EPSILON;
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // The target's choice (src/arch.rs: on x86-64 not libm's inline assembly).
        crate::arch::sqrt(self)
    }
    #[inline]
    fn exp(self) -> Self {
        libm::exp(self)
    }
    #[inline(always)]
    fn fast_exp(self) -> Self {
        crate::fastexp::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        libm::log(self)
    }
    #[inline]
    fn abs(self) -> Self {
        libm::fabs(self)
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline(always)]
    fn is_half(self) -> bool {
        self.to_bits() == 0.5f64.to_bits()
    }
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    const EPSILON: f64 = f32::EPSILON as f64;
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        crate::arch::sqrtf(self)
    }
    #[inline]
    fn exp(self) -> Self {
        libm::expf(self)
    }
    #[inline(always)]
    fn fast_exp(self) -> Self {
        crate::fastexp::expf(self)
    }
    #[inline]
    fn ln(self) -> Self {
        libm::logf(self)
    }
    #[inline]
    fn abs(self) -> Self {
        libm::fabsf(self)
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn is_half(self) -> bool {
        self.to_bits() == 0.5f32.to_bits()
    }
}

/// `true` when `x` stays finite and positive after rounding to `T`: a chain's positive
/// hyperparameters are checked in the coordinate type the chain computes in (in `f32`, a step
/// size of 1e-50 would round to 0 and the chain never move).
pub(crate) fn positive_in<T: Float>(x: f64) -> bool {
    let t = T::from_f64(x);
    t.is_finite() && t > T::ZERO
}

/// The momentum chains' checks in their coordinate type `T` ([`positive_in`]): the step size
/// ([`Error::InvalidStepSize`](crate::Error::InvalidStepSize)), then the momentum scale
/// ([`Error::InvalidMomentumScale`](crate::Error::InvalidMomentumScale)).
pub(crate) fn step_and_scale_in<T: Float>(
    step_size: f64,
    momentum_sd: f64,
) -> Result<(), crate::Error> {
    if !positive_in::<T>(step_size) {
        return Err(crate::Error::InvalidStepSize);
    }
    if !positive_in::<T>(momentum_sd) {
        return Err(crate::Error::InvalidMomentumScale);
    }
    Ok(())
}

/// `true` when every element of `xs` is finite. On hosts in blocks of 64 without a branch per
/// value, so that the tests vectorise (the steps check every position and gradient each
/// iteration; element by element, with an exit on the first failure, the checks cost 0.4 ns per
/// value); bare metal keeps the plain loop (flash).
pub(crate) fn all_finite<T: Float>(xs: &[T]) -> bool {
    if !crate::arch::HOSTED {
        return xs.iter().all(|x| x.is_finite());
    }
    xs.chunks(64)
        .all(|b| b.iter().fold(true, |all, x| all & x.is_finite()))
}

/// `dst[i] = src[i]` over the common length. Unlike `copy_from_slice` it has no length assertion,
/// so no panic path is linked into firmware; callers pass equal lengths.
#[inline]
pub(crate) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}
