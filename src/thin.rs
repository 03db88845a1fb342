//! Stein thinning (Riabiz, Chen, Cockayne, Swietach, Niederer, Mackey & Oates, JRSS B 2022):
//! choose m of n stored draws, greedily, so that the empirical measure of the chosen points has
//! a small kernelized Stein discrepancy (KSD) to the target. It needs only the draws and the
//! gradients of V = −log π at them, so it can correct the output of a biased sampler (SGLD or
//! SGHMC at a large step size) after the fact, and compress a long chain into a short set.
//!
//! # The kernel
//!
//! The base kernel is the inverse multiquadric in preconditioned, standardised coordinates:
//! each coordinate l is divided by a scale `w_l` (the draws) or multiplied by it (the gradients
//! of V), and the squared distance is weighted by a diagonal preconditioner `λ_l`:
//!
//! ```text
//! z_l = (x_l − y_l)/w_l,   a_l = w_l·∇V(x)_l,   b_l = w_l·∇V(y)_l
//! q = c² + Σ λ_l z_l²,     k = q^β,   k₁ = k/q,   k₂ = k₁/q
//! u(x, y) = ((k·Σ a_l b_l + 2β·k₁·Σ λ_l (a_l − b_l) z_l) − 2β·(Σ λ_l)·k₁) − 4β(β−1)·k₂·Σ λ_l² z_l²
//! ```
//!
//! which is the Stein kernel of [`ksd_full`](crate::svgd::ksd_full) with the metric `Λ = diag(λ)`
//! (`w = λ = 1` gives it back exactly). Standardising by the mean absolute deviation of each
//! column ([`thin_scales`]) and `λ = 1` is the default of the `stein-thinning` Python package
//! (`standardize=True, preconditioner='id'`); its `'med'` and `'sclmed'` preconditioners are
//! `λ_l = 1/h` for a median-heuristic h, which a caller computes and passes.
//!
//! # The greedy selection
//!
//! With `o_i` the objective of draw i, initially `u(x_i, x_i)`: the first point is the first
//! index of the smallest `o_i`; after each choice j every objective takes `+ 2·u(x_i, x_j)`
//! and the next point is again the first index of the smallest. A point may be chosen more than
//! once (as in the paper). Cost O(n·m·d) kernel work, memory n doubles of the caller's.
//!
//! # Arithmetic (reproducibility contract)
//!
//! In `f64` whatever the coordinate type (values widened exactly). Per pair, one pass over l in
//! index order accumulating `Σ λ z²`, `Σ a b`, `Σ λ (a − b) z` and `Σ λ² z²` from 0 with
//! `z = (x_l − y_l)/w_l`, `a = w_l·gx_l`, `b = w_l·gy_l` (no scale: `z = x_l − y_l`, `a = gx_l`,
//! `b = gy_l`; no preconditioner: the λ factors left out); `q = c·c + Σ λ z²`; `k = 1/√q` when
//! β = −1/2, else `exp(β·ln q)`; then `u` as above with `2β`, `2β·Σλ` (Σλ in index order; d without
//! a preconditioner) and `4β(β−1)` computed once. Objectives update as `o_i = o_i + 2·u(x_i,
//! x_j)`, i in index order. Nothing is random.

use crate::error::Error;
use crate::float::Float;
use crate::svgd::ksd::Stein;
use crate::svgd::SteinImq;

/// The kernel of [`stein_thin`]: the IMQ base kernel, the column scales `w` and the diagonal
/// preconditioner `λ` (each `None` for all ones, or `d` finite positive values).
#[derive(Clone, Copy, Debug, Default)]
pub struct ThinKernel<'a> {
    /// `c` and `β` of `(c² + r²)^β` (defaults 1 and −1/2).
    pub imq: SteinImq,
    /// The column scales `w` (draws divided, gradients multiplied by them).
    pub scale: Option<&'a [f64]>,
    /// The preconditioner's diagonal `λ`.
    pub precond: Option<&'a [f64]>,
}

/// The constants of [`ThinKernel`] for one run: the KSD's Stein kernel with the metric's trace.
struct Constants<'a> {
    stein: Stein,
    scale: Option<&'a [f64]>,
    precond: Option<&'a [f64]>,
}

impl<'a> Constants<'a> {
    fn new(k: &ThinKernel<'a>, d: usize) -> Self {
        let trace = match k.precond {
            Some(l) => l.iter().fold(0.0, |s, &v| s + v),
            None => d as f64,
        };
        Constants {
            stein: Stein::with_trace(&k.imq, trace),
            scale: k.scale,
            precond: k.precond,
        }
    }

    /// `u(x, y)` for gradients of V `gx`, `gy` (rows of equal length).
    #[inline]
    fn pair<T: Float>(&self, x: &[T], y: &[T], gx: &[T], gy: &[T]) -> f64 {
        let (mut qr, mut gg, mut gd, mut r2) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (l, (((xl, yl), gxl), gyl)) in x.iter().zip(y).zip(gx).zip(gy).enumerate() {
            let (mut z, mut a, mut b) = (xl.to_f64() - yl.to_f64(), gxl.to_f64(), gyl.to_f64());
            if let Some(&w) = self.scale.and_then(|s| s.get(l)) {
                z /= w;
                a *= w;
                b *= w;
            }
            match self.precond.and_then(|p| p.get(l)) {
                Some(&lam) => {
                    let lz = lam * z;
                    qr += lz * z;
                    gd += (a - b) * lz;
                    r2 += lz * lz;
                }
                None => {
                    qr += z * z;
                    gd += (a - b) * z;
                    r2 += z * z;
                }
            }
            gg += a * b;
        }
        self.stein.value(qr, gg, gd, r2)
    }
}

/// Row `i` of `d` values.
fn row<T>(a: &[T], i: usize, d: usize) -> &[T] {
    let s = i.saturating_mul(d);
    a.get(s..s.saturating_add(d)).unwrap_or(&[])
}

/// Checks a per-column vector: `d` finite positive values.
fn check_column(v: Option<&[f64]>, d: usize) -> Result<(), Error> {
    match v {
        None => Ok(()),
        Some(v) if v.len() != d => Err(Error::LengthMismatch),
        Some(v) if v.iter().all(|&x| x.is_finite() && x > 0.0) => Ok(()),
        Some(_) => Err(Error::InvalidArgument),
    }
}

/// Stein thinning: chooses `selected.len()` of the `n = x.len()/d` draws `x` (row by row) whose
/// gradients of V are `grads` (same layout; what the gradient callbacks return), greedily
/// minimising the KSD of the chosen set (module docs), and writes their row indices to
/// `selected` in the order chosen (repeats possible). `scratch` holds the n objectives.
///
/// Errors (nothing written but for [`Error::NonFinite`]): [`Error::ZeroDimension`],
/// [`Error::ZeroParticles`] (no draws), [`Error::LengthMismatch`] (`x` not a whole number of
/// rows, `grads` another length, a scale or preconditioner not of length d),
/// [`Error::InvalidKernel`] (c not finite positive, β ∉ (−1, 0)), [`Error::InvalidArgument`] (a
/// scale or preconditioner value not finite and positive), [`Error::WorkspaceTooSmall`]
/// (`scratch` shorter than n), [`Error::NonFinite`] (a draw or gradient not finite; or a kernel
/// value overflowed, when `selected` holds the points chosen before).
///
/// ```
/// use sgsample::thin::{stein_thin, ThinKernel};
/// // Six draws of a standard normal target (∇V(x) = x), one far out: it is never chosen.
/// let x = [0.1, -0.4, 0.8, -1.1, 0.3, 7.0];
/// let mut chosen = [0usize; 3];
/// let mut scratch = [0.0; 6];
/// stein_thin(&x, &x, 1, &ThinKernel::default(), &mut chosen, &mut scratch)?;
/// assert!(!chosen.contains(&5));
/// # Ok::<(), sgsample::Error>(())
/// ```
pub fn stein_thin<T: Float>(
    x: &[T],
    grads: &[T],
    d: usize,
    kernel: &ThinKernel<'_>,
    selected: &mut [usize],
    scratch: &mut [f64],
) -> Result<(), Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if x.is_empty() {
        return Err(Error::ZeroParticles);
    }
    if !x.len().is_multiple_of(d) || grads.len() != x.len() {
        return Err(Error::LengthMismatch);
    }
    kernel.imq.validate()?;
    check_column(kernel.scale, d)?;
    check_column(kernel.precond, d)?;
    let n = x.len() / d;
    let obj = scratch.get_mut(..n).ok_or(Error::WorkspaceTooSmall)?;
    if !x.iter().chain(grads).all(|v| v.to_f64().is_finite()) {
        return Err(Error::NonFinite);
    }
    if selected.is_empty() {
        return Ok(());
    }
    let st = Constants::new(kernel, d);
    for (i, o) in obj.iter_mut().enumerate() {
        let (xi, gi) = (row(x, i, d), row(grads, i, d));
        *o = st.pair(xi, xi, gi, gi);
    }
    let mut last = first_min(obj)?;
    let mut chosen = selected.iter_mut();
    if let Some(s) = chosen.next() {
        *s = last;
    }
    for s in chosen {
        let (xj, gj) = (row(x, last, d), row(grads, last, d));
        for (i, o) in obj.iter_mut().enumerate() {
            *o += 2.0 * st.pair(row(x, i, d), xj, row(grads, i, d), gj);
        }
        last = first_min(obj)?;
        *s = last;
    }
    Ok(())
}

/// The first index of the smallest value; [`Error::NonFinite`] if any is NaN.
fn first_min(v: &[f64]) -> Result<usize, Error> {
    let mut best = 0usize;
    let mut low = f64::INFINITY;
    for (i, &o) in v.iter().enumerate() {
        if o.is_nan() {
            return Err(Error::NonFinite);
        }
        if o < low || i == 0 {
            low = o;
            best = i;
        }
    }
    Ok(best)
}

/// The column scales the `stein-thinning` package standardises with: for each column, the mean
/// absolute deviation from the column's mean (both sums in row order, then divided by n).
/// Errors: [`Error::ZeroDimension`], [`Error::ZeroParticles`], [`Error::LengthMismatch`] (`x`
/// not whole rows, `scales` not of length d), [`Error::NonFinite`] (a draw not finite),
/// [`Error::InvalidArgument`] (a column whose draws are all equal: its scale would be 0);
/// nothing written on error.
pub fn thin_scales<T: Float>(x: &[T], d: usize, scales: &mut [f64]) -> Result<(), Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if x.is_empty() {
        return Err(Error::ZeroParticles);
    }
    if !x.len().is_multiple_of(d) || scales.len() != d {
        return Err(Error::LengthMismatch);
    }
    if !x.iter().all(|v| v.to_f64().is_finite()) {
        return Err(Error::NonFinite);
    }
    let n = x.len() / d;
    // Every column checked before any scale is written (the draws are finite, so each mean
    // absolute deviation is finite and at least 0).
    if (0..d).any(|l| mean_abs_dev(x, d, l, n) <= 0.0) {
        return Err(Error::InvalidArgument);
    }
    for (l, s) in scales.iter_mut().enumerate() {
        *s = mean_abs_dev(x, d, l, n);
    }
    Ok(())
}

/// Column `l`'s mean absolute deviation from its mean (sums in row order).
fn mean_abs_dev<T: Float>(x: &[T], d: usize, l: usize, n: usize) -> f64 {
    let col = || x.iter().skip(l).step_by(d).map(|v| v.to_f64());
    let mean = col().fold(0.0, |s, v| s + v) / n as f64;
    col().fold(0.0, |s, v| s + libm::fabs(v - mean)) / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svgd::ksd_full;

    /// Deterministic pseudo-random values in (−1, 1).
    fn wobble(n: usize, seed: u64) -> Vec<f64> {
        let mut r = crate::Rng::new(seed, 5);
        (0..n).map(|_| 2.0 * r.uniform_f64() - 1.0).collect()
    }

    /// The greedy choice by brute force: at each step the point minimising the KSD² of the
    /// chosen set plus it, computed from scratch with `ksd_full` (Λ = w = 1).
    fn brute(x: &[f64], g: &[f64], d: usize, m: usize) -> Vec<usize> {
        let n = x.len() / d;
        let mut chosen: Vec<usize> = Vec::new();
        for _ in 0..m {
            let mut best = (f64::INFINITY, 0);
            for i in 0..n {
                let mut s = chosen.clone();
                s.push(i);
                let xs: Vec<f64> = s.iter().flat_map(|&j| row(x, j, d).to_vec()).collect();
                let gs: Vec<f64> = s.iter().flat_map(|&j| row(g, j, d).to_vec()).collect();
                let k = ksd_full(&xs, &gs, d, &SteinImq::default()).unwrap();
                if k < best.0 - 1e-12 * k.abs() {
                    best = (k, i);
                }
            }
            chosen.push(best.1);
        }
        chosen
    }

    #[test]
    fn greedy_equals_the_brute_force_ksd_minimiser() {
        for (d, seed) in [(1, 1), (2, 2), (3, 3)] {
            let n = 25;
            let x = wobble(n * d, seed);
            let g: Vec<f64> = x
                .iter()
                .zip(wobble(n * d, seed + 10))
                .map(|(a, e)| a + 0.3 * e)
                .collect();
            let mut sel = [0usize; 8];
            let mut scratch = vec![0.0; n];
            stein_thin(&x, &g, d, &ThinKernel::default(), &mut sel, &mut scratch).unwrap();
            assert_eq!(sel.to_vec(), brute(&x, &g, d, 8), "d {d}");
        }
    }

    #[test]
    fn unit_scale_and_preconditioner_are_the_defaults_bit_for_bit() {
        let (n, d) = (30, 2);
        let x = wobble(n * d, 7);
        let g = wobble(n * d, 8);
        let ones = [1.0, 1.0];
        let mut a = [0usize; 10];
        let mut b = [0usize; 10];
        let mut s = vec![0.0; n];
        stein_thin(&x, &g, d, &ThinKernel::default(), &mut a, &mut s).unwrap();
        let k = ThinKernel {
            scale: Some(&ones),
            precond: Some(&ones),
            ..ThinKernel::default()
        };
        stein_thin(&x, &g, d, &k, &mut b, &mut s).unwrap();
        assert_eq!(a, b);
        // A scale w is the same as thinning the standardised draws x/w with gradients w·g.
        let w = [0.5, 3.0];
        let xs: Vec<f64> = x.iter().enumerate().map(|(i, v)| v / w[i % 2]).collect();
        let gs: Vec<f64> = g.iter().enumerate().map(|(i, v)| v * w[i % 2]).collect();
        stein_thin(&xs, &gs, d, &ThinKernel::default(), &mut a, &mut s).unwrap();
        let k = ThinKernel {
            scale: Some(&w),
            ..ThinKernel::default()
        };
        stein_thin(&x, &g, d, &k, &mut b, &mut s).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn pair_with_scale_and_preconditioner_is_the_formula() {
        let (x, y) = ([0.3, -1.2, 2.0], [1.1, 0.4, -0.5]);
        let (gx, gy) = ([0.7, -0.2, 1.5], [-0.9, 0.6, 0.1]);
        let (w, lam) = ([0.5, 2.0, 1.5], [3.0, 0.25, 1.7]);
        for beta in [-0.5, -0.3] {
            let imq = SteinImq { c: 1.3, beta };
            let k = ThinKernel {
                imq,
                scale: Some(&w),
                precond: Some(&lam),
            };
            let got = Constants::new(&k, 3).pair(&x, &y, &gx, &gy);
            let (mut qr, mut gg, mut gd, mut r2, mut tr) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for l in 0..3 {
                let z = (x[l] - y[l]) / w[l];
                let (a, b) = (w[l] * gx[l], w[l] * gy[l]);
                qr += lam[l] * z * z;
                gg += a * b;
                gd += lam[l] * (a - b) * z;
                r2 += lam[l] * lam[l] * z * z;
                tr += lam[l];
            }
            let q: f64 = 1.3 * 1.3 + qr;
            let want = q.powf(beta) * gg + 2.0 * beta * q.powf(beta - 1.0) * gd
                - 2.0 * beta * tr * q.powf(beta - 1.0)
                - 4.0 * beta * (beta - 1.0) * q.powf(beta - 2.0) * r2;
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "β {beta}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn ties_go_to_the_first_index() {
        // Draws 0 and 2 (and 1 and 3) are the same point with the same gradient.
        let x = [0.0, 0.5, 0.0, 0.5];
        let mut sel = [9usize; 4];
        let mut s = [0.0; 4];
        stein_thin(&x, &x, 1, &ThinKernel::default(), &mut sel, &mut s).unwrap();
        assert!(sel.iter().all(|&i| i < 2), "{sel:?}");
    }

    #[test]
    fn bad_inputs_are_refused_and_nothing_is_written() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let mut sel = [9usize; 2];
        let mut s = [0.0; 4];
        let k = ThinKernel::default();
        assert_eq!(
            stein_thin(&x, &x, 0, &k, &mut sel, &mut s),
            Err(Error::ZeroDimension)
        );
        assert_eq!(
            stein_thin::<f64>(&[], &[], 1, &k, &mut sel, &mut s),
            Err(Error::ZeroParticles)
        );
        assert_eq!(
            stein_thin(&x, &x[..3], 1, &k, &mut sel, &mut s),
            Err(Error::LengthMismatch)
        );
        assert_eq!(
            stein_thin(&x[..3], &x[..3], 2, &k, &mut sel, &mut s),
            Err(Error::LengthMismatch)
        );
        assert_eq!(
            stein_thin(&x, &x, 1, &k, &mut sel, &mut s[..3]),
            Err(Error::WorkspaceTooSmall)
        );
        let bad = ThinKernel {
            imq: SteinImq { c: 1.0, beta: 0.0 },
            ..k
        };
        assert_eq!(
            stein_thin(&x, &x, 1, &bad, &mut sel, &mut s),
            Err(Error::InvalidKernel)
        );
        let zero = [0.0];
        let bad = ThinKernel {
            precond: Some(&zero),
            ..k
        };
        assert_eq!(
            stein_thin(&x, &x, 1, &bad, &mut sel, &mut s),
            Err(Error::InvalidArgument)
        );
        let two = [1.0, 1.0];
        let bad = ThinKernel {
            scale: Some(&two),
            ..k
        };
        assert_eq!(
            stein_thin(&x, &x, 1, &bad, &mut sel, &mut s),
            Err(Error::LengthMismatch)
        );
        let nan = [0.0, f64::NAN, 2.0, 3.0];
        assert_eq!(
            stein_thin(&nan, &x, 1, &k, &mut sel, &mut s),
            Err(Error::NonFinite)
        );
        assert_eq!(sel, [9, 9]);
        let mut sc = [7.0];
        assert_eq!(
            thin_scales(&[1.0, 1.0], 1, &mut sc),
            Err(Error::InvalidArgument)
        );
        assert_eq!(sc, [7.0]);
        thin_scales(&[1.0, 3.0], 1, &mut sc).unwrap();
        assert_eq!(sc, [1.0]);
    }
}
