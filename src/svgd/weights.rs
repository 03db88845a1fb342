//! Importance weights for a finished particle set (docs/algorithms.md §2.9): how much of π each
//! particle stands for, when the particles are not spread in proportion to π.
//!
//! SVGD moves particles but never moves mass between modes that are far apart: where its
//! particles end up in each mode is decided by where they came from (plain SVGD) or by how the
//! repulsive phase spread them (annealed SVGD), not by π. The weights correct this after the
//! fact: with `q̂` a Gaussian kernel density estimate of the particles themselves,
//!
//! ```text
//! s_i = Σ_j exp(−|x_i − x_j|² / (2h))        (j = i included: s_i ≥ 1)
//! w_i ∝ π(x_i) / q̂(x_i) = exp(−V(x_i)) / s_i,   Σ w_i = 1
//! ```
//!
//! (q̂'s normalising constant is the same for every particle and cancels.) A mode holding too
//! many particles has a proportionally larger `q̂` there, so its particles' weights shrink by
//! the same factor; within a mode the weights are nearly flat when the particles already follow
//! π's shape there. The weighted particles estimate `E_π f` as `Σ w_i f(x_i)`, and `1/Σ w_i²`
//! (the Kish effective sample size, returned) says how many equally weighted particles they are
//! worth.
//!
//! **What the weights cannot do**: correct mass where there are no particles. A mode no particle
//! reached gets no weight, and mass in tails the particles do not cover is missing from every
//! estimate (docs/benchmarks.md measures both). The bandwidth matters: it must be wide enough
//! that a mode's `s_i` counts the particles of that mode (a bandwidth below the particles'
//! spacing makes every `s_i` close to 1 and the weights proportional to π alone), and narrow
//! enough that separate modes do not share their counts. The median heuristic of the SVGD kernel
//! ([`median_bandwidth`], `h = med²/(2 ln N)`, what [`GaussianMedian`](super::GaussianMedian)
//! uses) is the documented default.
//!
//! # Arithmetic (reproducibility contract)
//!
//! In `f64` whatever the coordinate type (coordinates widened exactly). `r²` is the index-order
//! sum of squared coordinate differences; `k = exp(−r² · (1/(2h)))` through `libm`, `1/(2h)`
//! computed once. The sums `s_i` start at 1 and take `k(x_i, x_j)` for `j ≠ i` in increasing `j`
//! (each pair's kernel is computed once and added to both ends). Then `l_i = −V_i − ln s_i`,
//! `m = max l_i` over the particles with a finite energy, `u_i = exp(l_i − m)` (0 for
//! `V_i = +∞`), `S = Σ u_i` in index order, `w_i = u_i / S`, and the effective sample size
//! `1 / Σ w_i²` (index order). Nothing is random.

use super::kernel::{GaussianMedian, Kernel};
use crate::error::Error;
use crate::float::Float;

/// Checks the rows: `d > 0`, a whole positive number of rows, every coordinate finite; returns
/// the row count.
pub(super) fn rows<T: Float>(x: &[T], d: usize) -> Result<usize, Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if x.is_empty() {
        return Err(Error::ZeroParticles);
    }
    if !x.len().is_multiple_of(d) {
        return Err(Error::LengthMismatch);
    }
    if !x.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite);
    }
    Ok(x.len() / d)
}

/// The squared distance of two rows in `f64` (index order).
#[inline]
pub(super) fn sq_dist_f64<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut s = 0.0f64;
    for (p, q) in a.iter().zip(b) {
        let diff = p.to_f64() - q.to_f64();
        s += diff * diff;
    }
    s
}

/// Importance weights of the `n = x.len()/d` particles `x` (row by row) for the target with
/// energies `energies[i] = V(x_i) = −ln π(x_i) + const` (any constant, the same for all), from a
/// Gaussian kernel density estimate of the particles with bandwidth `h` (module docs). Writes
/// the weights, which sum to 1, to `weights` and returns their effective sample size
/// `1/Σ w_i²` (between 1 and n). O(n²·d) time, no memory beyond `weights`.
///
/// An energy of `+∞` (π = 0) gives weight 0. Errors, with nothing written:
/// [`Error::ZeroDimension`], [`Error::ZeroParticles`], [`Error::LengthMismatch`] (`x` not a
/// whole number of rows, `energies` or `weights` not of length n), [`Error::InvalidBandwidth`]
/// (h not finite and positive), [`Error::NonFinite`] (a coordinate not finite, an energy NaN or
/// `−∞`, or every energy `+∞`).
///
/// ```
/// use sgsample::svgd::particle_weights;
/// // Two far-apart groups, three copies of one particle at 0 and one particle at 10, for a
/// // target with equal density at both: each group gets half the weight.
/// let x = [0.0, 0.0, 0.0, 10.0];
/// let v = [0.0; 4];
/// let mut w = [0.0; 4];
/// let ess = particle_weights(&x, 1, &v, 1.0, &mut w)?;
/// assert!((w[3] - 0.5).abs() < 1e-12 && (w[0] - 1.0 / 6.0).abs() < 1e-12);
/// assert!((ess - 3.0).abs() < 1e-9); // 1 / (3/36 + 1/4)
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn particle_weights<T: Float>(
    x: &[T],
    d: usize,
    energies: &[f64],
    h: f64,
    weights: &mut [f64],
) -> Result<f64, Error> {
    let n = rows(x, d)?;
    if energies.len() != n || weights.len() != n {
        return Err(Error::LengthMismatch);
    }
    let scale = check_bandwidth(h)?;
    check_energies(energies)?;
    // The kernel sums, in the output buffer: row i's own term, then each pair once.
    weights.fill(1.0);
    for (i, xi) in x.chunks_exact(d).enumerate() {
        for (j, xj) in x.chunks_exact(d).enumerate().skip(i + 1) {
            let k = libm::exp(-sq_dist_f64(xi, xj) * scale);
            if let Some(s) = weights.get_mut(i) {
                *s += k;
            }
            if let Some(s) = weights.get_mut(j) {
                *s += k;
            }
        }
    }
    for w in weights.iter_mut() {
        *w = libm::log(*w);
    }
    Ok(normalise(weights, energies))
}

/// The kernel's `1/(2h)`; [`Error::InvalidBandwidth`] unless h is finite and positive with
/// `1/(2h)` finite.
pub(super) fn check_bandwidth(h: f64) -> Result<f64, Error> {
    let scale = 1.0 / (2.0 * h);
    if !(h.is_finite() && h > 0.0 && scale.is_finite()) {
        return Err(Error::InvalidBandwidth);
    }
    Ok(scale)
}

/// NaN or `−∞` energies, or no finite one: [`Error::NonFinite`].
pub(super) fn check_energies(energies: &[f64]) -> Result<(), Error> {
    if energies
        .iter()
        .any(|v| v.is_nan() || *v == f64::NEG_INFINITY)
        || !energies.iter().any(|v| v.is_finite())
    {
        return Err(Error::NonFinite);
    }
    Ok(())
}

/// Self-normalised weights `∝ exp(−V_i − ln q_i)` from `ln q_i` (in `weights`, overwritten) and
/// the energies (checked by [`check_energies`]); returns the Kish ESS. The order of operations
/// is the one the module docs state.
// Always inlined: as a call of its own it cost the bare-metal weights 72 bytes of stack and 112
// of flash (docs/footprint.md), for a function with one caller in each firmware.
#[inline(always)]
pub(super) fn normalise(weights: &mut [f64], energies: &[f64]) -> f64 {
    // Log weights in place, then their maximum over the finite energies.
    let mut m = f64::NEG_INFINITY;
    for (w, &v) in weights.iter_mut().zip(energies) {
        *w = if v.is_finite() {
            let l = -v - *w;
            if l > m {
                m = l;
            }
            l
        } else {
            f64::NEG_INFINITY
        };
    }
    let mut total = 0.0f64;
    for w in weights.iter_mut() {
        *w = if *w == f64::NEG_INFINITY {
            0.0
        } else {
            libm::exp(*w - m)
        };
        total += *w;
    }
    let mut sq = 0.0f64;
    for w in weights.iter_mut() {
        *w /= total;
        sq += *w * *w;
    }
    1.0 / sq
}

/// The median-heuristic bandwidth of the particles `x` (row by row), `h = med²/(2 ln N)` with
/// `med` the median pairwise distance: the bandwidth [`GaussianMedian`] would use for an
/// iteration starting from these particles, the same bits (1 for a single particle or a zero
/// median). `scratch` holds at least `N(N−1)/2` coordinates.
///
/// Errors: [`Error::ZeroDimension`], [`Error::ZeroParticles`], [`Error::LengthMismatch`] (`x` not
/// a whole number of rows), [`Error::WorkspaceTooSmall`], [`Error::NonFinite`] (a coordinate not
/// finite).
///
/// ```
/// use sgsample::svgd::median_bandwidth;
/// // Three points on a line: distances 1, 2, 3, median 2, h = 4 / (2 ln 3).
/// let mut scratch = [0.0; 3];
/// let h = median_bandwidth(&[0.0, 1.0, 3.0], 1, &mut scratch)?;
/// assert!((h - 4.0 / (2.0 * 3f64.ln())).abs() < 1e-15);
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn median_bandwidth<T: Float>(x: &[T], d: usize, scratch: &mut [T]) -> Result<f64, Error> {
    rows(x, d)?;
    let p = <GaussianMedian as Kernel<T>>::prepare(&GaussianMedian, x, d, scratch)?;
    Ok(<GaussianMedian as Kernel<T>>::bandwidth(
        &GaussianMedian,
        &p,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The weights by the module's formula, written out the obvious way.
    fn reference(x: &[f64], d: usize, v: &[f64], h: f64) -> Vec<f64> {
        let n = x.len() / d;
        let l: Vec<f64> = (0..n)
            .map(|i| {
                let s: f64 = (0..n)
                    .map(|j| {
                        let r2: f64 = (0..d).map(|k| (x[i * d + k] - x[j * d + k]).powi(2)).sum();
                        (-r2 / (2.0 * h)).exp()
                    })
                    .sum();
                -v[i] - s.ln()
            })
            .collect();
        let m = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let u: Vec<f64> = l.iter().map(|a| (a - m).exp()).collect();
        let t: f64 = u.iter().sum();
        u.iter().map(|a| a / t).collect()
    }

    fn lcg(state: &mut u64) -> f64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*state >> 11) as f64) / ((1u64 << 53) as f64) - 0.5
    }

    #[test]
    fn matches_the_formula() {
        let mut s = 7u64;
        let (n, d) = (23, 3);
        let x: Vec<f64> = (0..n * d).map(|_| 3.0 * lcg(&mut s)).collect();
        let v: Vec<f64> = (0..n).map(|_| 5.0 * lcg(&mut s)).collect();
        for h in [0.05, 0.7, 20.0] {
            let mut w = vec![0.0; n];
            let ess = particle_weights(&x, d, &v, h, &mut w).unwrap();
            let r = reference(&x, d, &v, h);
            for (a, b) in w.iter().zip(&r) {
                assert!(
                    (a - b).abs() <= 1e-13 * b.max(1e-300),
                    "{a} vs {b} at h = {h}"
                );
            }
            let want = 1.0 / r.iter().map(|a| a * a).sum::<f64>();
            assert!((ess - want).abs() < 1e-10 * want);
        }
    }

    /// Two clusters of the same shape far apart, the second holding every particle of the first
    /// three times, for a target with mass a at the first and 1 − a at the second (the same
    /// shape inside each): the clusters' total weights are a and 1 − a, whatever the counts.
    #[test]
    fn corrects_cluster_counts() {
        let shape = [-0.8, -0.1, 0.3, 0.35, 1.2];
        let mut x = shape.to_vec();
        for _ in 0..3 {
            x.extend(shape.iter().map(|s| s + 100.0));
        }
        let a: f64 = 0.8;
        let v: Vec<f64> = x
            .iter()
            .map(|&t| {
                let (c, m) = if t < 50.0 { (0.0, a) } else { (100.0, 1.0 - a) };
                0.5 * (t - c) * (t - c) - m.ln()
            })
            .collect();
        let mut w = vec![0.0; x.len()];
        particle_weights(&x, 1, &v, 0.5, &mut w).unwrap();
        let first: f64 = w[..5].iter().sum();
        assert!((first - a).abs() < 1e-12, "{first}");
        // f32 particles: the same computation on widened coordinates.
        let x32: Vec<f32> = x.iter().map(|&t| t as f32).collect();
        let mut w32 = vec![0.0; x.len()];
        particle_weights(&x32, 1, &v, 0.5, &mut w32).unwrap();
        assert!((w32[..5].iter().sum::<f64>() - a).abs() < 1e-6);
    }

    #[test]
    fn infinite_energy_is_zero_weight() {
        let x = [0.0, 1.0, 2.0];
        let mut w = [9.0; 3];
        particle_weights(&x, 1, &[0.0, f64::INFINITY, 0.0], 1.0, &mut w).unwrap();
        assert_eq!(w[1], 0.0);
        assert!((w[0] + w[2] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bad_input_writes_nothing() {
        let x = [0.0, 1.0, 2.0];
        let ok = [0.0; 3];
        type Case<'a> = (&'a [f64], usize, &'a [f64], f64, Error);
        let cases: [Case; 9] = [
            (&x, 0, &ok, 1.0, Error::ZeroDimension),
            (&[], 1, &[], 1.0, Error::ZeroParticles),
            (&x, 2, &ok, 1.0, Error::LengthMismatch),
            (&x, 1, &[0.0; 2], 1.0, Error::LengthMismatch),
            (&x, 1, &ok, 0.0, Error::InvalidBandwidth),
            (&x, 1, &ok, f64::NAN, Error::InvalidBandwidth),
            (&x, 1, &[0.0, f64::NAN, 0.0], 1.0, Error::NonFinite),
            (&x, 1, &[0.0, f64::NEG_INFINITY, 0.0], 1.0, Error::NonFinite),
            (&x, 1, &[f64::INFINITY; 3], 1.0, Error::NonFinite),
        ];
        for (xs, d, v, h, e) in cases {
            let mut w = [7.0; 3];
            assert_eq!(particle_weights(xs, d, v, h, &mut w[..v.len()]), Err(e));
            assert_eq!(w, [7.0; 3]);
        }
        let mut w = [7.0; 3];
        assert_eq!(
            particle_weights(&[0.0, f64::INFINITY, 1.0], 1, &ok, 1.0, &mut w),
            Err(Error::NonFinite)
        );
        assert_eq!(w, [7.0; 3]);
        assert_eq!(
            particle_weights(&x, 1, &ok, 1.0, &mut [0.0; 2]),
            Err(Error::LengthMismatch)
        );
        assert_eq!(
            particle_weights(&x, 1, &ok, 1e-320, &mut w),
            Err(Error::InvalidBandwidth)
        );
    }

    #[test]
    fn median_bandwidth_is_the_kernels() {
        let mut s = 3u64;
        let x: Vec<f64> = (0..40).map(|_| lcg(&mut s)).collect();
        let mut scratch = vec![0.0; 190];
        let h = median_bandwidth(&x, 2, &mut scratch).unwrap();
        let mut r: Vec<f64> = Vec::new();
        for i in 0..20 {
            for j in i + 1..20 {
                r.push(
                    ((x[2 * i] - x[2 * j]).powi(2) + (x[2 * i + 1] - x[2 * j + 1]).powi(2)).sqrt(),
                );
            }
        }
        r.sort_by(f64::total_cmp);
        let med = 0.5 * (r[94] + r[95]);
        assert_eq!(h, med * med / (2.0 * 20f64.ln()));
        assert_eq!(
            median_bandwidth(&x, 2, &mut scratch[..189]),
            Err(Error::WorkspaceTooSmall)
        );
        assert_eq!(
            median_bandwidth(&[0.0, f64::NAN], 1, &mut scratch),
            Err(Error::NonFinite)
        );
    }
}
