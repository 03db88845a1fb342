//! `sgsample::fastexp`: accuracy against a double-double reference (`f64`) and against
//! `libm::exp` in `f64` (`f32`), the special values, and the same bits in a vectorisable loop as
//! element by element.

use sgsample::fastexp::{exp, expf};
use sgsample::Rng;
use std::hint::black_box;

/// The bound `exp` reaches over every sample below (measured: 0.72 ulp for normal results, 0.77
/// just below the least normal, where the result rounds a second time; see the module docs).
const ULP_F64: f64 = 0.8;
/// The bound `expf` reaches (measured 0.78 ulp).
const ULP_F32: f64 = 0.8;

/// A double-double `hi + lo`, `|lo| ≤ ulp(hi)/2`.
#[derive(Clone, Copy)]
struct Dd(f64, f64);

fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd(s, (a - (s - bb)) + (b - bb))
}

fn two_prod(a: f64, b: f64) -> Dd {
    let p = a * b;
    Dd(p, a.mul_add(b, -p))
}

fn add(a: Dd, b: Dd) -> Dd {
    let s = two_sum(a.0, b.0);
    let t = two_sum(a.1, b.1);
    let u = two_sum(s.0, s.1 + t.0);
    two_sum(u.0, u.1 + t.1)
}

fn mul(a: Dd, b: Dd) -> Dd {
    let p = two_prod(a.0, b.0);
    two_sum(p.0, p.1 + (a.0 * b.1 + a.1 * b.0))
}

fn div_small(a: Dd, n: f64) -> Dd {
    let q1 = a.0 / n;
    let p = two_prod(q1, n);
    let rem = ((a.0 - p.0) - p.1) + a.1;
    two_sum(q1, rem / n)
}

/// `e^x = (hi + lo)·2^k` to about 2^−100 relative, for `|x| ≤ 746`.
fn exp_dd(x: f64) -> (Dd, i32) {
    // ln 2 = L1 + L2 + L3.
    const L1: f64 = core::f64::consts::LN_2;
    const L2: f64 = 2.319_046_813_846_299_6e-17;
    const L3: f64 = 5.707_708_438_416_212e-34;
    let k = (x / L1).round();
    let mut r = two_sum(x, 0.0);
    for l in [L1, L2, L3] {
        let p = two_prod(k, l);
        r = add(r, Dd(-p.0, -p.1));
    }
    // Taylor series on |r| ≤ 0.35: 40 terms leave < 2^−120.
    let mut sum = Dd(1.0, 0.0);
    let mut term = Dd(1.0, 0.0);
    for n in 1..40 {
        term = div_small(mul(term, r), n as f64);
        sum = add(sum, term);
    }
    (sum, k as i32)
}

/// `v·2^e` exactly (in two steps, so that no factor overflows).
fn scale(v: f64, e: i32) -> f64 {
    let h = e / 2;
    v * 2f64.powi(h) * 2f64.powi(e - h)
}

/// The error of `y` in ulps of the exact `e^x` (the ulp of a subnormal is 2^−1074), for a
/// mantissa of `bits` bits and least exponent `emin` of the spacing.
fn ulp_err(y: f64, x: f64, bits: i32, emin: i32) -> f64 {
    let (v, k) = exp_dd(x);
    // Work at the scale of v (in [0.7, 1.5)): y·2^−k is exact.
    let ys = scale(y, -k);
    let diff = (ys - v.0) - v.1;
    let e = v.0.log2().floor() as i32 + k;
    let ulp_exp = (e - (bits - 1)).max(emin);
    (diff / scale(1.0, ulp_exp - k)).abs()
}

fn check_f64(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut worst = (0.0, 0.0);
    for x in xs {
        let y = exp(x);
        let e = ulp_err(y, x, 53, -1074);
        if e > worst.0 {
            worst = (e, x);
        }
    }
    worst
}

fn check_f32(xs: impl Iterator<Item = f32>) -> (f64, f32) {
    let mut worst = (0.0, 0.0);
    for x in xs {
        let y = expf(x) as f64;
        let e = ulp_err(y, x as f64, 24, -149);
        if e > worst.0 {
            worst = (e, x);
        }
    }
    worst
}

fn uniform(rng: &mut Rng, a: f64, b: f64) -> f64 {
    a + (b - a) * rng.uniform_f64()
}

#[test]
fn f64_within_the_bound_over_the_kernel_range_and_beyond() {
    let mut rng = Rng::new(12, 1);
    let n = 400_000;
    let ranges = [
        (-1.0, 0.0),
        (-40.0, 0.0),
        (-708.0, 0.0),
        (-745.2, -700.0), // subnormal results
        (0.0, 709.78),
        (-0.5, 0.5),
    ];
    let mut report = Vec::new();
    for (a, b) in ranges {
        let (e, x) = check_f64((0..n).map(|_| uniform(&mut rng, a, b)));
        report.push(format!("[{a}, {b}]: {e:.3} ulp at {x:e}"));
        assert!(e <= ULP_F64, "{a}..{b}: {e} ulp at x = {x:e}");
    }
    // Around the reduction's half-integers, where k may round either way.
    let (e, x) = check_f64((-1075..1024).flat_map(|j| {
        let c = (j as f64 + 0.5) * core::f64::consts::LN_2;
        (-20..=20)
            .map(move |t| c + t as f64 * 1e-15 * c.abs().max(1.0))
            .filter(|x| *x < 709.78)
    }));
    report.push(format!("half-integers: {e:.3} ulp at {x:e}"));
    assert!(e <= ULP_F64, "{e} ulp at x = {x:e}");
    println!("{}", report.join("\n"));
}

#[test]
fn f32_within_the_bound() {
    let mut rng = Rng::new(12, 2);
    let mut report = Vec::new();
    for (a, b) in [(-1.0, 0.0), (-20.0, 0.0), (-103.9, -80.0), (0.0, 88.7)] {
        let (e, x) = check_f32((0..400_000).map(|_| uniform(&mut rng, a, b) as f32));
        report.push(format!("[{a}, {b}]: {e:.3} ulp at {x:e}"));
        assert!(e <= ULP_F32, "{a}..{b}: {e} ulp at x = {x:e}");
    }
    // Every f32 in [−2, 0].
    let (e, x) = check_f32(
        (0..=0x4000_0000u32 >> 9)
            .map(|i| -f32::from_bits(i << 9))
            .filter(|x| *x >= -2.0),
    );
    report.push(format!("[-2, 0] (every 512th f32): {e:.3} ulp at {x:e}"));
    assert!(e <= ULP_F32, "{e} ulp at x = {x:e}");
    println!("{}", report.join("\n"));
}

#[test]
fn special_values() {
    assert_eq!(exp(0.0).to_bits(), 1f64.to_bits());
    assert_eq!(exp(-0.0).to_bits(), 1f64.to_bits());
    assert_eq!(exp(f64::NEG_INFINITY).to_bits(), 0f64.to_bits());
    assert_eq!(exp(f64::INFINITY), f64::INFINITY);
    assert!(exp(f64::NAN).is_nan());
    assert!(exp(-f64::NAN).is_nan());
    assert_eq!(exp(709.78), libm::exp(709.78));
    assert!(exp(709.782_712_893_384).is_finite()); // ln(f64::MAX) rounded down
    assert_eq!(exp(709.79), f64::INFINITY);
    assert_eq!(exp(1e300), f64::INFINITY);
    assert_eq!(exp(-745.2).to_bits(), 0);
    assert_eq!(exp(-1e300).to_bits(), 0);
    // The least subnormal: e^x rounds to 2^−1074 for x in (ln 2^−1075, ln 1.5·2^−1074).
    assert_eq!(exp(-745.0).to_bits(), 1);
    assert_eq!(exp(-745.1), libm::exp(-745.1));
    assert_eq!(exp(f64::MIN_POSITIVE), 1.0);
    assert_eq!(exp(1.0), core::f64::consts::E);

    assert_eq!(expf(0.0).to_bits(), 1f32.to_bits());
    assert_eq!(expf(-0.0).to_bits(), 1f32.to_bits());
    assert_eq!(expf(f32::NEG_INFINITY).to_bits(), 0);
    assert_eq!(expf(f32::INFINITY), f32::INFINITY);
    assert!(expf(f32::NAN).is_nan());
    assert!(expf(88.72).is_finite());
    assert_eq!(expf(88.73), f32::INFINITY);
    assert_eq!(expf(1e30), f32::INFINITY);
    assert_eq!(expf(-104.0).to_bits(), 0);
    assert_eq!(expf(-103.9).to_bits(), 1);
    assert_eq!(expf(-1e30).to_bits(), 0);
}

/// A loop the compiler may vectorise gives the bits of the scalar calls.
#[test]
fn a_loop_gives_the_scalar_bits() {
    let mut rng = Rng::new(12, 3);
    let xs: Vec<f64> = (0..4096)
        .map(|_| uniform(&mut rng, -800.0, 720.0))
        .collect();
    let looped: Vec<f64> = xs.iter().map(|&x| exp(x)).collect();
    for (x, y) in xs.iter().zip(&looped) {
        assert_eq!(black_box(exp)(*x).to_bits(), y.to_bits(), "{x}");
    }
    let xf: Vec<f32> = xs.iter().map(|&x| (x / 8.0) as f32).collect();
    let loopedf: Vec<f32> = xf.iter().map(|&x| expf(x)).collect();
    for (x, y) in xf.iter().zip(&loopedf) {
        assert_eq!(black_box(expf)(*x).to_bits(), y.to_bits(), "{x}");
    }
}
