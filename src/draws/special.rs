//! The special functions the rank-normalised diagnostics need, in `f64` through `libm` only: the
//! standard normal quantile Φ⁻¹ (for the normal scores of ranks) and the regularised incomplete
//! beta function with its inverse (for the quantile MCSE). Everything here is a pure function of
//! its arguments, evaluated in a fixed order, so its bits are the same on every target.
//!
//! # Accuracy
//!
//! * [`normal_quantile`]: Acklam's rational approximation (relative error below 1.2e-9) refined
//!   by one Halley step on the residual `Φ(x) − p`, which is computed without cancellation:
//!   `½·erfc(−x/√2) − p` in the tail (p < ¼), `½·erf(x/√2) − (p − ½)` in the centre (where
//!   `p − ½` is exact). The step is cubically convergent, so the result is within a few ulps of
//!   Φ⁻¹(p), relative, over the whole range. `p > ½` is `−Φ⁻¹(1 − p)` (`1 − p` is exact there).
//! * [`beta_inc`]: the continued fraction of I_x(a, b) (modified Lentz), evaluated on the side
//!   where it converges fast, times the power terms `x^a·(1−x)^b / B(a, b)`. For a, b ≥ 10
//!   those are computed from Stirling's series in the form `exp(−(a·u + b·v))` with
//!   `u, v = rlog1(·) ≥ 0` (no cancellation of large logarithms: relative accuracy about
//!   1e-14 even for a + b in the millions); otherwise from `lgamma` and `log1p`, with
//!   `ln Γ(a+b) − ln Γ(b)` written out by Stirling's series when b ≥ 10. Against scipy (Boost)
//!   near the 15.9 % and 84.1 % quantiles: within 4e-13 relative for Beta(ESS·p + 1,
//!   ESS·(1 − p) + 1) with p in {5, 50, 95 %} and ESS up to 2·10⁶; lopsided parameters (one
//!   below 10, the other above 10⁵) lose more in the fraction's recurrence, up to 1e-10.
//! * [`beta_quantile`]: Newton's method on I_x(a, b) − q inside a bisection bracket, from the
//!   normal approximation of the beta distribution; it stops when a step no longer changes x by
//!   more than 4e-16 relative (or after 200 steps).

use core::f64::consts::FRAC_1_SQRT_2;

/// √(2π).
const SQRT_2PI: f64 = 2.506_628_274_631_000_7;
/// 1/√(2π).
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The standard normal quantile Φ⁻¹(p): −∞ at 0, +∞ at 1, NaN outside [0, 1].
pub(crate) fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        // 1 − p is exact for p in [½, 1] (Sterbenz), so this is the same quantile.
        return -lower_quantile(1.0 - p);
    }
    lower_quantile(p)
}

/// Φ⁻¹(p) for 0 < p < ½ (a negative number).
fn lower_quantile(p: f64) -> f64 {
    let x = acklam(p);
    // Φ(x) − p without cancellation: in the tail through erfc (relative accuracy), in the
    // centre through erf and the exact p − ½.
    let e = if p < 0.25 {
        0.5 * libm::erfc(-x * FRAC_1_SQRT_2) - p
    } else {
        0.5 * libm::erf(x * FRAC_1_SQRT_2) - (p - 0.5)
    };
    // Halley: u = (Φ(x) − p)/φ(x); x − u/(1 + x·u/2).
    let u = e * SQRT_2PI * libm::exp(0.5 * x * x);
    x - u / (1.0 + 0.5 * x * u)
}

/// Acklam's rational approximation of Φ⁻¹(p) for 0 < p ≤ ½ (relative error < 1.15e-9).
fn acklam(p: f64) -> f64 {
    const A1: f64 = -3.969_683_028_665_376e1;
    const A2: f64 = 2.209_460_984_245_205e2;
    const A3: f64 = -2.759_285_104_469_687e2;
    const A4: f64 = 1.383_577_518_672_69e2;
    const A5: f64 = -3.066_479_806_614_716e1;
    const A6: f64 = 2.506_628_277_459_239;
    const B1: f64 = -5.447_609_879_822_406e1;
    const B2: f64 = 1.615_858_368_580_409e2;
    const B3: f64 = -1.556_989_798_598_866e2;
    const B4: f64 = 6.680_131_188_771_972e1;
    const B5: f64 = -1.328_068_155_288_572e1;
    const C1: f64 = -7.784_894_002_430_293e-3;
    const C2: f64 = -3.223_964_580_411_365e-1;
    const C3: f64 = -2.400_758_277_161_838;
    const C4: f64 = -2.549_732_539_343_734;
    const C5: f64 = 4.374_664_141_464_968;
    const C6: f64 = 2.938_163_982_698_783;
    const D1: f64 = 7.784_695_709_041_462e-3;
    const D2: f64 = 3.224_671_290_700_398e-1;
    const D3: f64 = 2.445_134_137_142_996;
    const D4: f64 = 3.754_408_661_907_416;
    if p < 0.024_25 {
        let q = libm::sqrt(-2.0 * libm::log(p));
        (((((C1 * q + C2) * q + C3) * q + C4) * q + C5) * q + C6)
            / ((((D1 * q + D2) * q + D3) * q + D4) * q + 1.0)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A1 * r + A2) * r + A3) * r + A4) * r + A5) * r + A6) * q
            / (((((B1 * r + B2) * r + B3) * r + B4) * r + B5) * r + 1.0)
    }
}

/// `e − ln(1 + e)` for e > −1, without cancellation for small |e|.
fn rlog1(e: f64) -> f64 {
    if libm::fabs(e) > 0.5 {
        return e - libm::log1p(e);
    }
    // ln(1 + e) = 2·atanh(t) with t = e/(2 + e) = 2·(t + t³/3 + t⁵/5 + …), and e − 2t = t·e, so
    // e − ln(1 + e) = t·(e − 2s) with s = t²/3 + t⁴/5 + …  (|t| ≤ ⅓: 25 terms reach 1e-24).
    let t = e / (2.0 + e);
    let t2 = t * t;
    let mut power = t2;
    let mut s = 0.0;
    let mut k = 3.0;
    for _ in 0..25 {
        s += power / k;
        power *= t2;
        k += 2.0;
    }
    t * (e - 2.0 * s)
}

/// Stirling's remainder `ln Γ(x) − ((x − ½)·ln x − x + ½·ln 2π)` for x ≥ 10: the series
/// Σ B₂ₖ/(2k(2k−1)·x^{2k−1}) to k = 9 (the next term is below 1e-19 at x = 10).
fn stirling_rest(x: f64) -> f64 {
    const K: [f64; 9] = [
        1.0 / 12.0,
        -1.0 / 360.0,
        1.0 / 1260.0,
        -1.0 / 1680.0,
        1.0 / 1188.0,
        -691.0 / 360_360.0,
        1.0 / 156.0,
        -3617.0 / 122_400.0,
        43_867.0 / 244_188.0,
    ];
    let r = 1.0 / (x * x);
    let mut acc = 0.0;
    for &k in K.iter().rev() {
        acc = acc * r + k;
    }
    acc / x
}

/// ln B(a, b) for a, b > 0 with min(a, b) < 10 (the power terms' other branch).
fn ln_beta_small(a: f64, b: f64) -> f64 {
    let (s, l) = if a < b { (a, b) } else { (b, a) };
    if l < 10.0 {
        return libm::lgamma(s) + libm::lgamma(l) - libm::lgamma(s + l);
    }
    // ln Γ(s + l) − ln Γ(l) by Stirling, without subtracting two large logarithms.
    let ratio = (l - 0.5) * libm::log1p(s / l) + s * libm::log(s + l) - s
        + (stirling_rest(s + l) - stirling_rest(l));
    libm::lgamma(s) - ratio
}

/// `x^a·y^b / B(a, b)` with y = 1 − x given separately. Of x and y the smaller one is taken
/// as exact (the other may be its rounded complement, which has lost the small one's digits):
/// logarithms and λ are formed from it.
fn power_terms(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if a >= 10.0 && b >= 10.0 {
        // x^a y^b / B = (1/√2π)·√(b·x₀)·(x/x₀)^a·(y/y₀)^b·exp(−Δ), with x₀ = a/(a+b),
        // y₀ = b/(a+b), Δ the Stirling remainders of B, and (x/x₀)^a (y/y₀)^b =
        // exp(−(a·rlog1(−λ/a) + b·rlog1(λ/b))) where λ = a − (a+b)·x = (a+b)·y − b.
        let ab = a + b;
        let lambda = if x <= y { a - ab * x } else { ab * y - b };
        let u = rlog1(-lambda / a);
        let v = rlog1(lambda / b);
        let delta = stirling_rest(a) + stirling_rest(b) - stirling_rest(ab);
        let x0 = a / ab;
        FRAC_1_SQRT_2PI * libm::sqrt(b * x0) * libm::exp(-(a * u + b * v)) * libm::exp(-delta)
    } else {
        let (lx, ly) = if x <= y {
            (libm::log(x), libm::log1p(-x))
        } else {
            (libm::log1p(-y), libm::log(y))
        };
        libm::exp(a * lx + b * ly - ln_beta_small(a, b))
    }
}

/// The continued fraction of I_x(a, b)·a·B(a, b)/(x^a y^b) (modified Lentz; converges fast
/// for x < (a + 1)/(a + b + 2)).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 3e-16;
    let guard = |v: f64| if libm::fabs(v) < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    let mut m = 1.0;
    for _ in 0..1_000_000 {
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        let step = d * c;
        h *= step;
        if libm::fabs(step - 1.0) <= EPS {
            break;
        }
        m += 1.0;
    }
    h
}

/// The regularised incomplete beta function I_x(a, b), with y = 1 − x given as well (NaN for
/// a or b not positive, or x outside [0, 1]).
pub(crate) fn beta_inc(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if !(a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    if y == 0.0 {
        return 1.0;
    }
    if x * (a + b + 2.0) < a + 1.0 {
        power_terms(a, b, x, y) * beta_fraction(a, b, x) / a
    } else {
        1.0 - power_terms(b, a, y, x) * beta_fraction(b, a, y) / b
    }
}

/// The q-quantile of the Beta(a, b) distribution: the x with I_x(a, b) = q (0 at q ≤ 0, 1 at
/// q ≥ 1, NaN for NaN arguments or a, b not positive). Newton's method from the normal
/// approximation, safeguarded by bisection.
pub(crate) fn beta_quantile(q: f64, a: f64, b: f64) -> f64 {
    if q.is_nan() || !(a > 0.0 && b > 0.0) || a.is_infinite() || b.is_infinite() {
        return f64::NAN;
    }
    if q <= 0.0 {
        return 0.0;
    }
    if q >= 1.0 {
        return 1.0;
    }
    let ab = a + b;
    let mean = a / ab;
    let sd = libm::sqrt(a * b / (ab * ab * (ab + 1.0)));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut x = mean + normal_quantile(q) * sd;
    if !(x > lo && x < hi) {
        x = mean;
    }
    for _ in 0..200 {
        let y = 1.0 - x;
        let f = beta_inc(a, b, x, y) - q;
        if f == 0.0 {
            break;
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        // The density x^(a−1)·y^(b−1)/B(a, b).
        let density = power_terms(a, b, x, y) / (x * y);
        let mut next = x - f / density;
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        let done = libm::fabs(next - x) <= 4e-16 * x;
        x = next;
        if done || lo == hi {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from mpmath (`sqrt(2)·erfinv(2p − 1)` at 50 digits, 400 for 1e-300).
    #[test]
    #[allow(clippy::excessive_precision)] // the reference digits as mpmath printed them
    fn normal_quantile_is_accurate_to_a_few_ulps() {
        let cases = [
            (1e-300, -37.047_096_299_361_2),
            (1e-10, -6.361_340_902_404_056),
            (1e-6, -4.753_424_308_822_899),
            (0.001, -3.090_232_306_167_813_5),
            (0.024, -1.977_368_428_181_946_7),
            (0.025, -1.959_963_984_540_054_2),
            (0.2, -0.841_621_233_572_914_2),
            (0.3, -0.524_400_512_708_040_8),
            (0.49, -0.025_068_908_258_711_058),
            (0.5 - 1e-10, -2.506_628_482_030_353_9e-10),
            (0.75, 0.674_489_750_196_081_7),
            (0.975, 1.959_963_984_540_053_9),
            (1.0 - 1e-10, 6.361_340_889_697_422),
        ];
        for (p, want) in cases {
            let got = normal_quantile(p);
            assert!(
                libm::fabs(got - want) <= 4.0 * f64::EPSILON * libm::fabs(want),
                "p = {p}: {got} vs {want}"
            );
        }
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(1.5).is_nan() && normal_quantile(f64::NAN).is_nan());
        // p > ½ is the mirror of 1 − p (exact there).
        for p in [0.7, 0.99, 1.0 - 1e-5] {
            assert_eq!(normal_quantile(p), -normal_quantile(1.0 - p));
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)]
    fn incomplete_beta_and_its_inverse() {
        let close = |a: f64, b: f64, tol: f64| libm::fabs(a - b) <= tol * libm::fabs(b);
        // (a, b, x, I_x(a, b)) from mpmath.betainc at 40 digits.
        let cases = [
            (2.0, 3.0, 0.4, 0.524_8),
            (0.5, 0.5, 0.3, 0.369_010_119_565_545_4),
            (10.0, 10.0, 0.5, 0.5),
            (1.0, 1.0, 0.37, 0.37),
            (201.0, 3801.0, 0.05, 0.482_646_018_948_289_8),
        ];
        for (a, b, x, want) in cases {
            let got = beta_inc(a, b, x, 1.0 - x);
            assert!(close(got, want, 1e-14), "I_{x}({a}, {b}) = {got} vs {want}");
        }
        // scipy.stats.beta.ppf (Boost's ibeta_inv) at the two probabilities the quantile MCSE
        // uses, for small, lopsided and very large parameters.
        let ppf = [
            (
                1.05,
                20.95,
                0.009_212_630_170_830_297,
                0.087_440_658_864_161_58,
            ),
            (
                5.0,
                95.0,
                0.028_861_441_549_399_697,
                0.071_198_314_812_783_67,
            ),
            (
                201.0,
                3801.0,
                0.046_774_864_901_282_14,
                0.053_674_946_755_451_49,
            ),
            (
                20_001.0,
                380_001.0,
                0.049_657_644_801_705_86,
                0.050_346_855_178_894_03,
            ),
            (
                3.5,
                1e6,
                1.720_926_367_472_271_2e-6,
                5.283_457_145_361_679e-6,
            ),
            (
                200_001.0,
                200_001.0,
                0.499_209_432_711_889_7,
                0.500_790_567_288_110_3,
            ),
        ];
        for (a, b, lo, hi) in ppf {
            // Lopsided parameters near the continued fraction's switch point lose digits in its
            // recurrence (measured 7e-12 relative here; 4e-13 at most for the summary's
            // probabilities 5/50/95 % over ESS up to 2·10⁶, against scipy).
            let tol = if a < 10.0 && b > 1e5 { 1e-10 } else { 1e-13 };
            let (x1, x2) = (
                beta_quantile(0.158_655_3, a, b),
                beta_quantile(0.841_344_7, a, b),
            );
            assert!(
                close(x1, lo, tol) && close(x2, hi, tol),
                "({a}, {b}): {x1} {x2}"
            );
        }
        assert!(beta_quantile(f64::NAN, 1.0, 2.0).is_nan());
        assert!(beta_quantile(0.5, f64::NAN, 2.0).is_nan());
    }
}
