//! Seed-derived noise (`sgsample::noise`, `sgs_normal`, `sgs_uniform`): the distributions
//! against exact truth (mean, variance, Kolmogorov–Smirnov, tolerances from the Monte Carlo
//! standard error at 4.5σ / a KS level of 1e-6), the documented draw order (prefixes, the
//! stream, `float` = `double` rounded or truncated), C = Rust bit for bit, pinned first values,
//! and bad pointers.

use sgsample::noise::{normal_from_seed, uniform_from_seed, NORMAL_STREAM, UNIFORM_STREAM};
use sgsample::Rng;

const N: usize = 200_000;

/// Mean and (population) variance.
fn moments(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
    (m, v)
}

/// The KS statistic of `x` against the continuous CDF `cdf`.
fn ks(x: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let f = cdf(v);
            (f - i as f64 / n).max((i as f64 + 1.0) / n - f)
        })
        .fold(0.0, f64::max)
}

/// The KS statistic's bound at level α = 1e-6 (the asymptotic Kolmogorov tail, 2·e^(−2t²)).
fn ks_bound(n: usize) -> f64 {
    (-(1e-6f64 / 2.0).ln() / 2.0).sqrt() / (n as f64).sqrt()
}

#[test]
fn normals_are_standard_normal() {
    for seed in [0u64, 1, 0xdead_beef, u64::MAX] {
        let mut z = vec![0.0f64; N];
        normal_from_seed(seed, &mut z);
        let (m, v) = moments(&z);
        let n = N as f64;
        // se(mean) = 1/√n; se(var) = √(2/n) for a normal.
        assert!(m.abs() < 4.5 / n.sqrt(), "seed {seed}: mean {m}");
        assert!(
            (v - 1.0).abs() < 4.5 * (2.0 / n).sqrt(),
            "seed {seed}: var {v}"
        );
        let d = ks(&mut z, |x| 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2));
        assert!(d < ks_bound(N), "seed {seed}: KS {d}");
    }
}

#[test]
fn uniforms_are_uniform() {
    for seed in [0u64, 3, 0x1234_5678_9abc, u64::MAX] {
        let mut u = vec![0.0f64; N];
        uniform_from_seed(seed, &mut u);
        assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
        let (m, v) = moments(&u);
        let n = N as f64;
        // se(mean) = √(1/12n); se(var) = √((1/80 − 1/144)/n) (the fourth central moment is 1/80).
        assert!(
            (m - 0.5).abs() < 4.5 * (1.0 / (12.0 * n)).sqrt(),
            "seed {seed}: mean {m}"
        );
        let se_v = ((1.0 / 80.0 - 1.0 / 144.0) / n).sqrt();
        assert!((v - 1.0 / 12.0).abs() < 4.5 * se_v, "seed {seed}: var {v}");
        let d = ks(&mut u, |x| x);
        assert!(d < ks_bound(N), "seed {seed}: KS {d}");
        let mut f = vec![0.0f32; 1000];
        uniform_from_seed(seed, &mut f);
        assert!(f.iter().all(|&x| (0.0..1.0).contains(&x)));
    }
}

#[test]
fn draw_order_is_the_documented_one() {
    let seed = 2026;
    let mut z = [0.0f64; 64];
    normal_from_seed(seed, &mut z);
    let mut rng = Rng::new(seed, NORMAL_STREAM);
    assert!(z.iter().all(|v| v.to_bits() == rng.normal().to_bits()));
    let mut u = [0.0f64; 64];
    uniform_from_seed(seed, &mut u);
    let mut rng = Rng::new(seed, UNIFORM_STREAM);
    assert!(u
        .iter()
        .all(|&v| v == (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64));
    // Prefixes; float = double rounded (normals) or truncated to 24 bits (uniforms).
    let mut short = [0.0f64; 10];
    normal_from_seed(seed, &mut short);
    assert_eq!(short[..], z[..10]);
    let mut zf = [0.0f32; 64];
    normal_from_seed(seed, &mut zf);
    assert!(zf.iter().zip(&z).all(|(&a, &b)| a == b as f32));
    let mut uf = [0.0f32; 64];
    uniform_from_seed(seed, &mut uf);
    assert!(uf
        .iter()
        .zip(&u)
        .all(|(&a, &b)| f64::from(a) == (b * 16_777_216.0).floor() / 16_777_216.0));
    // The streams differ from each other and from the minibatch stream's.
    assert_ne!(NORMAL_STREAM, UNIFORM_STREAM);
    assert_ne!(NORMAL_STREAM, sgsample::MINIBATCH_STREAM);
    assert_ne!(UNIFORM_STREAM, sgsample::MINIBATCH_STREAM);
}

/// The first values for seed 0, pinned: a change of generator, stream or method shows here (and
/// the bindings' tests pin the same numbers).
#[test]
fn first_values_pinned() {
    let mut z = [0.0f64; 3];
    normal_from_seed(0, &mut z);
    let mut u = [0.0f64; 3];
    uniform_from_seed(0, &mut u);
    assert_eq!(
        z.map(f64::to_bits),
        [
            4604866114992135790,
            4604690700726220116,
            13821958858590898646
        ]
    );
    assert_eq!(
        z,
        [0.7428386180462903, 0.7233637223595601, -0.2728485114631928]
    );
    assert_eq!(
        u.map(f64::to_bits),
        [
            4602327445986093812,
            4598672291840245262,
            4606322996006196477
        ]
    );
    assert_eq!(
        u,
        [0.4804948699026419, 0.277593055338884, 0.9045849026412324]
    );
}

#[cfg(feature = "ffi")]
mod c_api {
    use super::*;
    use sgsample::ffi::{sgs_normal, sgs_normal_f32, sgs_status, sgs_uniform, sgs_uniform_f32};

    type Fill<T> = unsafe extern "C" fn(u64, *mut T, usize) -> sgs_status;

    /// The C fill of n values over a buffer of sentinels, as bits.
    fn c_fill<T: Copy + From<f32>>(f: Fill<T>, seed: u64, n: usize) -> Vec<T> {
        let mut b = vec![T::from(-3.0f32); n];
        // SAFETY: a live buffer of n values.
        let status = unsafe { f(seed, b.as_mut_ptr(), n) };
        assert_eq!(status, sgs_status::SGS_OK);
        b
    }

    #[test]
    fn c_equals_rust_bit_for_bit() {
        let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for seed in [0u64, 99, u64::MAX] {
            for n in [0usize, 1, 7, 1000] {
                let mut a = vec![0.0f64; n];
                normal_from_seed(seed, &mut a);
                assert_eq!(bits64(&c_fill(sgs_normal, seed, n)), bits64(&a));
                uniform_from_seed(seed, &mut a);
                assert_eq!(bits64(&c_fill(sgs_uniform, seed, n)), bits64(&a));
                let mut af = vec![0.0f32; n];
                normal_from_seed(seed, &mut af);
                assert_eq!(bits32(&c_fill(sgs_normal_f32, seed, n)), bits32(&af));
                uniform_from_seed(seed, &mut af);
                assert_eq!(bits32(&c_fill(sgs_uniform_f32, seed, n)), bits32(&af));
            }
        }
    }

    #[test]
    fn bad_pointers_refused_and_nothing_written() {
        let null = core::ptr::null_mut();
        // SAFETY: NULL is refused before any write.
        unsafe {
            assert_eq!(sgs_normal(1, null, 0), sgs_status::SGS_ERR_NULL_POINTER);
            assert_eq!(sgs_uniform(1, null, 5), sgs_status::SGS_ERR_NULL_POINTER);
            assert_eq!(
                sgs_normal_f32(1, null.cast(), 5),
                sgs_status::SGS_ERR_NULL_POINTER
            );
            assert_eq!(
                sgs_uniform_f32(1, null.cast(), 5),
                sgs_status::SGS_ERR_NULL_POINTER
            );
        }
        let mut buf = [7.0f64; 8];
        let mis = (buf.as_mut_ptr() as usize + 1) as *mut f64;
        // SAFETY: misaligned or oversized requests are refused before any write.
        unsafe {
            assert_eq!(sgs_normal(1, mis, 2), sgs_status::SGS_ERR_INVALID_ARGUMENT);
            assert_eq!(sgs_uniform(1, mis, 2), sgs_status::SGS_ERR_INVALID_ARGUMENT);
            assert_eq!(
                sgs_normal(1, buf.as_mut_ptr(), usize::MAX / 4),
                sgs_status::SGS_ERR_INVALID_ARGUMENT
            );
        }
        assert!(buf.iter().all(|&v| v == 7.0));
    }
}
