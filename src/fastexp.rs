//! A deterministic, vectorisable exponential for the SVGD kernels.
//!
//! [`exp`] (`f64`) and [`expf`] (`f32`) are straight-line sequences of IEEE-754 basic
//! operations (`+ − ×`, comparisons, integer shifts of the bits): no platform `exp`, no fused
//! multiply-add, no table, no branch. The same code runs for every element, so a loop over a
//! tile of arguments may be vectorised to any width without changing any result: the bits are
//! those of the scalar function on every target (x86-64 with or without SIMD, Cortex-M with or
//! without an FPU). The reference build uses the same functions; like `libm` they are a
//! primitive, tested on their own (`tests/fastexp.rs`).
//!
//! # Algorithm (the same in both precisions)
//!
//! 1. Clamp: `x > X_MAX → X_MAX`, `x < X_MIN → X_MIN` (comparisons, so NaN stays NaN and the
//!    clamped ends give +∞ and +0).
//! 2. `k = round(x·log₂e)` by adding and subtracting `S = 1.5·2^p + bias` (p = 52 or 23): the
//!    sum is an integer, `kf = t − S` is exact.
//! 3. Cody–Waite reduction with `ln 2 = L_hi + L_lo`, `L_hi` with enough trailing zero bits that
//!    `kf·L_hi` is exact: `hi = x − kf·L_hi` (exact), `lo = kf·L_lo`, `r = hi − lo`,
//!    `|r| ≤ ln 2 / 2` (slightly more when `x·log₂e` rounds up to a half-integer).
//! 4. `e^r = 1 + hi − lo + r²·P(r)` with `P` a near-minimax polynomial of `(e^r − 1 − r)/r²`
//!    (`f64`: degree 10, relative error of the whole approximation 2^−60 on `|r| ≤ 0.3467`;
//!    `f32`: degree 4, 2^−27.8), evaluated by Estrin's scheme, which keeps the chain of
//!    dependent operations short (7 instead of Horner's 20 in `f64`) so that a vector of
//!    exponentials is not held up by one long chain. With `r2 = r·r`, `r4 = r2·r2`,
//!    `r8 = r4·r4` and `P = 1/2 + C₀r + … + C₉r^10`:
//!    `P = ((q0 + q1·r4) + q2·r8)`, `q0 = (1/2 + C₀r) + (C₁ + C₂r)·r2`,
//!    `q1 = (C₃ + C₄r) + (C₅ + C₆r)·r2`, `q2 = (C₇ + C₈r) + C₉·r2`
//!    (`f32`: `P = ((1/2 + C₀r) + (C₁ + C₂r)·r2) + C₃·(r2·r2)`). The leading
//!    `1 + hi` is added with Fast2Sum (`s = 1 + hi`, `err = (1 − s) + hi`), so that only the
//!    last addition `u = s + ((r2·P − lo) + err)` rounds at the scale of the result.
//! 5. Scale by `2^k` exactly, in two factors `2^q1·2^q2` with `q1 = round(kf/2)` (ties to
//!    even), `q2 = kf − q1`, each built from the integer bits of `q + S`: `(u·2^q1)·2^q2` is
//!    exact when the result is normal and rounds once when it is subnormal (gradual underflow
//!    done right) or overflows (+∞).
//!
//! # Accuracy and special values (checked by `tests/fastexp.rs`)
//!
//! * `f64`: less than 1 ulp from the exact `e^x` over the whole range, against a double-double
//!   reference on 2.8 million arguments: at most 0.72 ulp for normal results (0.72 over the
//!   kernel's range `[−708, 0]`), 0.77 ulp for subnormal ones (in units of their spacing
//!   2^−1074: the result rounds a second time there).
//! * `f32`: at most 0.78 ulp (against the same reference; 1.6 million arguments over
//!   `[−103.9, 88.7]` and every 512th `f32` in `[−2, 0]`).
//! * `exp(±0) = 1`; `exp(−∞) = +0`; `exp(+∞) = +∞`; NaN → NaN; `x ≥ 709.79` → +∞
//!   (`f32`: `x ≥ 88.73`); `x ≤ −745.14` → +0 (`f32`: `x ≤ −103.98`).
//!
//! Cost: about 35 basic operations per element, no branch; `libm::exp` takes about 54 instructions
//! with branches and cannot be vectorised. The functions are inlined on targets with vector
//! units (where loops over them vectorise) and are calls elsewhere (Cortex-M: their live values
//! stay out of the frame of the SVGD pair loop, the deepest stack path of `step`).

/// `f64`: arguments above this give +∞ (e^710 > `f64::MAX`).
const X_MAX: f64 = 710.0;
/// `f64`: arguments below this give +0 (e^−750 < 2^−1075, half the least subnormal).
const X_MIN: f64 = -750.0;
/// log₂ e rounded to `f64`.
const LOG2E: f64 = core::f64::consts::LOG2_E;
/// The high part of ln 2: 0x3FE62E42FEE00000, 32 trailing zero bits (`kf·L_HI` exact for
/// `|kf| < 2^21`).
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
/// `ln 2 − LN2_HI` rounded to `f64` (0x3DEA39EF35793C76).
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// `1.5·2^52 + 1023`: adding it rounds to an integer and puts `k + 1023` in the low bits.
const SHIFT: f64 = 6_755_399_441_055_744.0 + 1023.0;
/// `P(r) = 1/2 + C[0]·r + … + C[9]·r^10` for `(e^r − 1 − r)/r²`, fitted on `|r| ≤ 0.3467`.
const C: [f64; 10] = [
    0.166_666_666_666_666_85,
    0.041_666_666_666_666_505,
    0.008_333_333_333_316_706,
    0.001_388_888_888_898_108,
    0.000_198_412_698_970_695_23,
    2.480_158_712_847_847_7e-5,
    2.755_723_426_454_107_3e-6,
    2.755_744_056_901_501e-7,
    2.511_222_296_112_042e-8,
    2.086_408_896_039_095e-9,
];

/// `e^x` in `f64`: at most 1 ulp, branch-free, the same bits on every target (see the module
/// docs for the operations, the accuracy and the special values).
// Inlined where loops over it vectorise; a call elsewhere (Cortex-M), so that its live values
// stay out of the frame of the SVGD pair loop (the deepest stack path of `step`).
#[cfg_attr(sgs_vector, inline)]
#[cfg_attr(not(sgs_vector), inline(never))]
pub fn exp(x: f64) -> f64 {
    // Comparisons, not `min`/`max`: NaN passes through.
    let x = if x > X_MAX { X_MAX } else { x };
    let x = if x < X_MIN { X_MIN } else { x };
    let t = x * LOG2E + SHIFT;
    let kf = t - SHIFT;
    let hi = x - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let r = hi - lo;
    // Estrin's scheme: 7 dependent operations instead of Horner's 20, so that a vector of
    // exponentials is not held up by one long chain.
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q0 = (0.5 + C[0] * r) + (C[1] + C[2] * r) * r2;
    let q1 = (C[3] + C[4] * r) + (C[5] + C[6] * r) * r2;
    let q2 = (C[7] + C[8] * r) + C[9] * r2;
    let p = (q0 + q1 * r4) + q2 * r8;
    let s = 1.0 + hi;
    let err = (1.0 - s) + hi;
    let u = s + ((r2 * p - lo) + err);
    // 2^k = 2^q1 · 2^q2, each factor normal for every clamped argument.
    let t1 = kf * 0.5 + SHIFT;
    let q1 = t1 - SHIFT;
    let t2 = (kf - q1) + SHIFT;
    let s1 = f64::from_bits(t1.to_bits() << 52);
    let s2 = f64::from_bits(t2.to_bits() << 52);
    (u * s1) * s2
}

/// `f32`: arguments above this give +∞ (e^89 > `f32::MAX`).
const XF_MAX: f32 = 89.0;
/// `f32`: arguments below this give +0 (e^−104 < 2^−150, half the least subnormal).
const XF_MIN: f32 = -104.0;
/// log₂ e rounded to `f32`.
const LOG2EF: f32 = core::f32::consts::LOG2_E;
/// The high part of ln 2: 0x3F317200, 9 trailing zero bits (`kf·L_HI` exact for `|kf| < 2^8`).
const LN2F_HI: f32 = f32::from_bits(0x3F31_7200);
/// `ln 2 − LN2F_HI` rounded to `f32` (0x35BFBE8E).
const LN2F_LO: f32 = f32::from_bits(0x35BF_BE8E);
/// `1.5·2^23 + 127`: adding it rounds to an integer and puts `k + 127` in the low bits.
const SHIFTF: f32 = 12_582_912.0 + 127.0;
/// `P(r) = 1/2 + CF[0]·r + … + CF[3]·r^4` for `(e^r − 1 − r)/r²`, fitted on `|r| ≤ 0.3467`.
const CF: [f32; 4] = [0.166_665_18, 0.041_666_85, 0.008_368_916, 0.001_389_92];

/// `e^x` in `f32` (only `f32` operations: single-precision FPUs need no soft-float): at most
/// 1 ulp, branch-free, the same bits on every target (see the module docs).
// Inlined where loops over it vectorise; a call elsewhere (Cortex-M), so that its live values
// stay out of the frame of the SVGD pair loop (the deepest stack path of `step`).
#[cfg_attr(sgs_vector, inline)]
#[cfg_attr(not(sgs_vector), inline(never))]
pub fn expf(x: f32) -> f32 {
    let x = if x > XF_MAX { XF_MAX } else { x };
    let x = if x < XF_MIN { XF_MIN } else { x };
    let t = x * LOG2EF + SHIFTF;
    let kf = t - SHIFTF;
    let hi = x - kf * LN2F_HI;
    let lo = kf * LN2F_LO;
    let r = hi - lo;
    // Estrin's scheme, as in `exp`.
    let r2 = r * r;
    let p = ((0.5 + CF[0] * r) + (CF[1] + CF[2] * r) * r2) + CF[3] * (r2 * r2);
    let s = 1.0 + hi;
    let err = (1.0 - s) + hi;
    let u = s + ((r2 * p - lo) + err);
    let t1 = kf * 0.5 + SHIFTF;
    let q1 = t1 - SHIFTF;
    let t2 = (kf - q1) + SHIFTF;
    let s1 = f32::from_bits(t1.to_bits() << 23);
    let s2 = f32::from_bits(t2.to_bits() << 23);
    (u * s1) * s2
}
