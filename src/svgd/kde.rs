//! Importance sampling with the particles' kernel density estimate as the proposal
//! (docs/algorithms.md §2.9): fresh draws from `q̂`, weighted by `π/q̂` exactly.
//!
//! [`particle_weights`](super::particle_weights) divides π by a kernel density estimate at the
//! particles themselves. That estimate is biased (it is π smoothed by the kernel, not π), by
//! amounts that differ between modes of different shapes: on the double banana, exact draws from
//! π come out 0.033 off in the upper banana's share after weighting (docs/benchmarks.md). Here
//! the estimate is used the other way round, as a proposal that is known exactly:
//!
//! ```text
//! q̂(y) = (1/n) Σ_i N(y; x_i, h·I)                 (the particles' Gaussian KDE)
//! y_k ~ q̂,  k = 1..m:  y_k = x_{u_k} + √h · z_k,  u_k uniform in 0..n, z_k ~ N(0, I)
//! w_k ∝ π(y_k) / q̂(y_k) = exp(−V(y_k)) / Σ_i exp(−|y_k − x_i|² / (2h))
//! ```
//!
//! (the Gaussian's normalising constant and `1/n` are the same for every draw and cancel). This
//! is plain self-normalised importance sampling: `Σ_k w_k f(y_k)` tends to `E_π f` as `m` grows,
//! whatever the particles are, wherever `q̂` covers π (a Gaussian mixture covers every point,
//! but a mode with no particle near it is reached so rarely that in practice it is missed: the
//! effective sample size `1/Σ w_k²` then stays small and says so). The particles only need to be
//! a good proposal, which SVGD's are: spread over the modes, even when in the wrong proportions.
//!
//! Two steps, so that the energies at the draws can come from anywhere (a C callback, a batched
//! Python function, a simulator): [`kde_draws`] makes the draws from a seed, the caller computes
//! `V(y_k)`, [`kde_weights`] weights them. Cost: `m·d` normals, then O(m·n·d) for the weights.
//!
//! # Draw order and arithmetic (reproducibility contract)
//!
//! [`kde_draws`]: the generator [`Rng::new`](crate::Rng::new)`(seed, `[`KDE_STREAM`]`)`; for
//! each draw in order, first the particle `u = below(n)` ([`Rng::below`](crate::Rng::below)),
//! then `d` normals ([`Rng::normal`](crate::Rng::normal)) for the coordinates in index order,
//! each coordinate `x_u + √h · z` computed in `f64` (`√h` through `libm`, once) and rounded
//! once to the particles' type. A prefix of a longer fill is the shorter fill.
//!
//! [`kde_weights`]: in `f64`. For each draw, `a_i = −r²(y, x_i) · (1/(2h))` (`r²` the
//! index-order sum of squared coordinate differences), accumulated over `i` in increasing order
//! as a running log-sum-exp: `(M, S)` start at `(a_0, 1)`; for each next `a`, if `a > M` then
//! `S = S · exp(M − a) + 1, M = a`, else `S += exp(a − M)`; `ln q = M + ln S`. Then the weights
//! exactly as [`particle_weights`](super::particle_weights) forms them from `ln q` (its module
//! docs), with the same ESS.

use super::weights::{check_bandwidth, check_energies, normalise, rows, sq_dist_f64};
use crate::error::Error;
use crate::float::Float;
use crate::rng::Rng;

/// Stream id of [`kde_draws`]' generator: `b"kdedraws"` as a big-endian integer.
pub const KDE_STREAM: u64 = 0x6b64_6564_7261_7773;

/// Draws `m = y.len()/d` points from the Gaussian kernel density estimate of the `n =
/// x.len()/d` particles `x` (row by row) with bandwidth `h` (kernel `exp(−r²/(2h))`, i.e.
/// covariance `h·I`), into `y` row by row: each draw a particle chosen uniformly plus `√h`
/// times a standard normal vector, in the documented order (module docs). A pure function of
/// `(x, h, seed)`; nothing is allocated.
///
/// Errors, with nothing written: [`Error::ZeroDimension`], [`Error::ZeroParticles`] (`x` or `y`
/// empty), [`Error::LengthMismatch`] (`x` or `y` not a whole number of rows),
/// [`Error::InvalidBandwidth`] (h not finite and positive), [`Error::NonFinite`] (a coordinate
/// not finite).
///
/// ```
/// use sgsample::svgd::kde_draws;
/// let x = [0.0f64, 10.0]; // two particles in 1-d
/// let mut y = [0.0; 4];
/// kde_draws(&x, 1, 0.01, 7, &mut y)?;
/// // Each draw lies near one of the particles (sd 0.1).
/// assert!(y.iter().all(|v| v.abs() < 1.0 || (v - 10.0).abs() < 1.0));
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn kde_draws<T: Float>(x: &[T], d: usize, h: f64, seed: u64, y: &mut [T]) -> Result<(), Error> {
    let n = rows(x, d)?;
    if y.is_empty() {
        return Err(Error::ZeroParticles);
    }
    if !y.len().is_multiple_of(d) {
        return Err(Error::LengthMismatch);
    }
    check_bandwidth(h)?;
    let sd = libm::sqrt(h);
    let mut rng = Rng::new(seed, KDE_STREAM);
    for row in y.chunks_exact_mut(d) {
        let u = rng.below(n as u64) as usize;
        let Some(xu) = x.get(u * d..(u + 1) * d) else {
            return Err(Error::LengthMismatch); // unreachable: u < n
        };
        for (v, &c) in row.iter_mut().zip(xu) {
            *v = T::from_f64(c.to_f64() + sd * rng.normal());
        }
    }
    Ok(())
}

/// Importance weights of the draws `y` (row by row, `m = y.len()/d`, e.g. from [`kde_draws`])
/// for the target with energies `energies[k] = V(y_k) = −ln π(y_k) + const` (any constant, the
/// same for all), with the particles' Gaussian kernel density estimate (particles `x`,
/// bandwidth `h`: the same `x` and `h` the draws came from) as the proposal: `w_k ∝ π(y_k) /
/// q̂(y_k)` (module docs). Writes the m weights, which sum to 1, to `weights` and returns their
/// effective sample size `1/Σ w_k²`. `Σ_k w_k f(y_k)` estimates `E_π f`. O(m·n·d) time, no
/// memory beyond `weights`.
///
/// An energy of `+∞` gives weight 0. Errors, with nothing written: [`Error::ZeroDimension`],
/// [`Error::ZeroParticles`] (`x` or `y` empty), [`Error::LengthMismatch`] (`x` or `y` not a whole
/// number of rows, `energies` or `weights` not of length m), [`Error::InvalidBandwidth`],
/// [`Error::NonFinite`] (a coordinate of `x` or `y` not finite, an energy NaN or `−∞`, or every
/// energy `+∞`).
///
/// ```
/// use sgsample::svgd::{kde_draws, kde_weights};
/// // Particles that all sit left of the target N(0, 1), in 1-d: the weighted draws still
/// // estimate its mean, 0 (the plain mean of the particles is −1).
/// let x: Vec<f64> = (0..20).map(|i| -1.0 + (i as f64 - 9.5) * 0.1).collect();
/// let mut y = vec![0.0; 4000];
/// kde_draws(&x, 1, 0.5, 1, &mut y)?;
/// let v: Vec<f64> = y.iter().map(|t| 0.5 * t * t).collect();
/// let mut w = vec![0.0; 4000];
/// let ess = kde_weights(&x, 1, 0.5, &y, &v, &mut w)?;
/// let mean: f64 = w.iter().zip(&y).map(|(w, t)| w * t).sum();
/// assert!(mean.abs() < 4.0 / ess.sqrt(), "{mean} (ess {ess})");
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn kde_weights<T: Float>(
    x: &[T],
    d: usize,
    h: f64,
    y: &[T],
    energies: &[f64],
    weights: &mut [f64],
) -> Result<f64, Error> {
    rows(x, d)?;
    let m = rows(y, d)?;
    if energies.len() != m || weights.len() != m {
        return Err(Error::LengthMismatch);
    }
    let scale = check_bandwidth(h)?;
    check_energies(energies)?;
    for (w, yk) in weights.iter_mut().zip(y.chunks_exact(d)) {
        let mut rows = x.chunks_exact(d);
        let (mut top, mut sum) = match rows.next() {
            Some(x0) => (-sq_dist_f64(yk, x0) * scale, 1.0f64),
            None => (f64::NEG_INFINITY, 0.0), // unreachable: n ≥ 1
        };
        for xi in rows {
            let a = -sq_dist_f64(yk, xi) * scale;
            if a > top {
                sum = sum * libm::exp(top - a) + 1.0;
                top = a;
            } else {
                sum += libm::exp(a - top);
            }
        }
        *w = top + libm::log(sum);
    }
    Ok(normalise(weights, energies))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A particle set deliberately in the wrong place and proportions for the 1-d target
    /// π = 0.3·N(−3, 1) + 0.7·N(3, 1): three quarters of the particles at the left mode.
    fn skewed() -> Vec<f64> {
        let mut x = Vec::new();
        for i in 0..30 {
            x.push(-3.5 + i as f64 / 30.0);
        }
        for i in 0..10 {
            x.push(2.0 + i as f64 / 10.0);
        }
        x
    }

    fn mixture_energy(t: f64) -> f64 {
        let a = 0.3 * (-0.5 * (t + 3.0) * (t + 3.0)).exp();
        let b = 0.7 * (-0.5 * (t - 3.0) * (t - 3.0)).exp();
        -(a + b).ln()
    }

    /// Weighted estimates of the right mode's mass and of the mean over independent seeds:
    /// within 4 standard errors of the truth (0.7 and 1.2), where the particles say 0.25 and −1.5.
    #[test]
    fn recovers_mode_masses_the_particles_get_wrong() {
        let x = skewed();
        let h = 1.0;
        let (reps, m) = (40, 2000);
        let (mut mass, mut mean) = (Vec::new(), Vec::new());
        let mut y = vec![0.0; m];
        let mut w = vec![0.0; m];
        for seed in 0..reps {
            kde_draws(&x, 1, h, seed, &mut y).unwrap();
            let v: Vec<f64> = y.iter().map(|&t| mixture_energy(t)).collect();
            let ess = kde_weights(&x, 1, h, &y, &v, &mut w).unwrap();
            assert!(ess > 300.0, "ess {ess}");
            mass.push(
                w.iter()
                    .zip(&y)
                    .filter(|(_, t)| **t > 0.0)
                    .map(|(w, _)| w)
                    .sum::<f64>(),
            );
            mean.push(w.iter().zip(&y).map(|(w, t)| w * t).sum::<f64>());
        }
        for (vals, truth) in [(&mass, 0.7), (&mean, 1.2)] {
            let k = vals.len() as f64;
            let mu = vals.iter().sum::<f64>() / k;
            let se = (vals.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / (k - 1.0) / k).sqrt();
            assert!((mu - truth).abs() < 4.0 * se, "{mu} ± {se}, truth {truth}");
            assert!(se < 0.02, "se {se}");
        }
    }

    /// The draws: the documented order (particle index, then the normals), the f32 draws the
    /// f64 ones rounded, a prefix of a longer fill the shorter fill.
    #[test]
    fn draws_follow_the_documented_order() {
        let x = [1.0, 2.0, -4.0, 0.5, 3.0, 3.0];
        let h = 0.25;
        let mut y = [0.0f64; 8];
        kde_draws(&x, 2, h, 11, &mut y).unwrap();
        let mut rng = Rng::new(11, KDE_STREAM);
        for row in y.chunks_exact(2) {
            let u = rng.below(3) as usize;
            for (c, v) in row.iter().enumerate() {
                assert_eq!(*v, x[2 * u + c] + 0.5 * rng.normal());
            }
        }
        let mut short = [0.0f64; 4];
        kde_draws(&x, 2, h, 11, &mut short).unwrap();
        assert_eq!(short, y[..4]);
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut yf = [0.0f32; 8];
        kde_draws(&xf, 2, h, 11, &mut yf).unwrap();
        let mut rng = Rng::new(11, KDE_STREAM);
        for row in yf.chunks_exact(2) {
            let u = rng.below(3) as usize;
            for (c, v) in row.iter().enumerate() {
                assert_eq!(*v, (f64::from(xf[2 * u + c]) + 0.5 * rng.normal()) as f32);
            }
        }
    }

    /// The weights by the formula written out directly (a two-pass log-sum-exp).
    #[test]
    fn weights_match_the_formula() {
        let x = [0.0f64, 0.3, 1.0, -0.4, 2.5, 2.0];
        let y = [0.1, 0.2, 2.0, 2.1, -1.0, 0.0, 30.0, 30.0];
        // The far draw's q̂ is about e^-1100: its energy keeps its weight small but nonzero, so
        // that every weight is compared.
        let v = [0.5, 1.0, 2.0, 1250.0];
        let h = 0.7;
        let mut w = [0.0; 4];
        let ess = kde_weights(&x, 2, h, &y, &v, &mut w).unwrap();
        let l: Vec<f64> = y
            .chunks_exact(2)
            .zip(&v)
            .map(|(yk, vk)| {
                let a: Vec<f64> = x
                    .chunks_exact(2)
                    .map(|xi| -((yk[0] - xi[0]).powi(2) + (yk[1] - xi[1]).powi(2)) / (2.0 * h))
                    .collect();
                let mx = a.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                -vk - (mx + a.iter().map(|t| (t - mx).exp()).sum::<f64>().ln())
            })
            .collect();
        let mx = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = l.iter().map(|t| (t - mx).exp()).sum();
        for (wk, lk) in w.iter().zip(&l) {
            let r = (lk - mx).exp() / total;
            assert!((wk - r).abs() < 1e-12 * r.max(1e-300), "{wk} vs {r}");
        }
        // The far draw (30, 30): ln q̂ finite (the running log-sum-exp), its weight tiny but not 0.
        assert!(w[3] > 0.0 && w[3] < 1e-50 && w.iter().all(|t| t.is_finite()));
        let sq: f64 = w.iter().map(|t| t * t).sum();
        assert_eq!(ess, 1.0 / sq);
    }

    #[test]
    fn bad_input_writes_nothing() {
        let x = [0.0, 1.0];
        let y = [0.5, 0.6];
        let mut w = [7.0; 2];
        let mut out = [7.0; 2];
        let e = |r: Result<(), Error>| r.unwrap_err();
        assert_eq!(e(kde_draws(&x, 0, 1.0, 0, &mut out)), Error::ZeroDimension);
        assert_eq!(
            e(kde_draws::<f64>(&[], 1, 1.0, 0, &mut out)),
            Error::ZeroParticles
        );
        assert_eq!(e(kde_draws(&x, 1, 1.0, 0, &mut [])), Error::ZeroParticles);
        assert_eq!(
            e(kde_draws(&x, 2, 1.0, 0, &mut [0.0; 3])),
            Error::LengthMismatch
        );
        for h in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-320] {
            assert_eq!(e(kde_draws(&x, 1, h, 0, &mut out)), Error::InvalidBandwidth);
        }
        assert_eq!(
            e(kde_draws(&[0.0, f64::NAN], 1, 1.0, 0, &mut out)),
            Error::NonFinite
        );
        assert_eq!(out, [7.0; 2]);
        let ew = |r: Result<f64, Error>| r.unwrap_err();
        assert_eq!(
            ew(kde_weights(&x, 1, 1.0, &y, &[0.0], &mut w)),
            Error::LengthMismatch
        );
        assert_eq!(
            ew(kde_weights(&x, 1, 1.0, &y, &[0.0; 2], &mut [0.0; 3])),
            Error::LengthMismatch
        );
        assert_eq!(
            ew(kde_weights(&x, 1, 1.0, &[], &[], &mut [])),
            Error::ZeroParticles
        );
        assert_eq!(
            ew(kde_weights(&x, 1, 0.0, &y, &[0.0; 2], &mut w)),
            Error::InvalidBandwidth
        );
        assert_eq!(
            ew(kde_weights(
                &x,
                1,
                1.0,
                &[0.0, f64::INFINITY],
                &[0.0; 2],
                &mut w
            )),
            Error::NonFinite
        );
        for v in [
            [f64::NAN, 0.0],
            [f64::NEG_INFINITY, 0.0],
            [f64::INFINITY; 2],
        ] {
            assert_eq!(
                ew(kde_weights(&x, 1, 1.0, &y, &v, &mut w)),
                Error::NonFinite
            );
        }
        assert_eq!(w, [7.0; 2]);
        // +∞ is weight 0.
        kde_weights(&x, 1, 1.0, &y, &[f64::INFINITY, 3.0], &mut w).unwrap();
        assert_eq!(w, [0.0, 1.0]);
    }
}
