//! The kernelized Stein discrepancy (docs/algorithms.md §2.5), straight from the formula, on
//! `Vec`s: every ordered pair's Stein kernel computed on its own. Its sums follow the order
//! documented in `sgsample::svgd` (module `ksd`), which is what lets the tests demand the core's
//! bits; it shares nothing with the core.

#![allow(clippy::needless_range_loop)]

use sgsample::Float;
use std::vec::Vec;

/// u(x, y) for the IMQ base kernel (c² + r²)^β and gradients g = ∇V (score −g).
pub fn stein<T: Float>(c: f64, beta: f64, x: &[T], y: &[T], gx: &[T], gy: &[T]) -> f64 {
    let d = x.len();
    let mut r2 = 0.0;
    let mut gg = 0.0;
    let mut gd = 0.0;
    for l in 0..d {
        let diff = x[l].to_f64() - y[l].to_f64();
        r2 += diff * diff;
        gg += gx[l].to_f64() * gy[l].to_f64();
        gd += (gx[l].to_f64() - gy[l].to_f64()) * diff;
    }
    let q = c * c + r2;
    let k = if beta == -0.5 {
        1.0 / libm::sqrt(q)
    } else {
        libm::exp(beta * libm::log(q))
    };
    // s(x)ᵀs(y)k + s(x)ᵀ∇_y k + s(y)ᵀ∇_x k + tr ∇_x∇_y k, with s = −g and
    // ∇_x k = 2β q^(β−1) (x − y) = −∇_y k.
    let k1 = k / q;
    let k2 = k1 / q;
    ((k * gg + (2.0 * beta) * k1 * gd) - (2.0 * beta * d as f64) * k1)
        - (4.0 * beta * (beta - 1.0)) * k2 * r2
}

/// The V-statistic (1/N²) Σ_i Σ_j u(x_i, x_j): diagonal, then 2 × the pairs i < j.
pub fn ksd_full<T: Float>(c: f64, beta: f64, x: &[Vec<T>], g: &[Vec<T>]) -> f64 {
    let n = x.len();
    let mut diag = 0.0;
    for i in 0..n {
        diag += stein(c, beta, &x[i], &x[i], &g[i], &g[i]);
    }
    let mut off = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            off += stein(c, beta, &x[i], &x[j], &g[i], &g[j]);
        }
    }
    (diag + 2.0 * off) / (n as f64 * n as f64)
}

/// The batch estimate over the permutation `perm` cut into ⌊N/p⌋ batches (last takes the rest).
pub fn ksd_batch<T: Float>(
    c: f64,
    beta: f64,
    x: &[Vec<T>],
    g: &[Vec<T>],
    p: usize,
    perm: &[usize],
) -> f64 {
    let n = x.len();
    let mut diag = 0.0;
    for i in 0..n {
        diag += stein(c, beta, &x[i], &x[i], &g[i], &g[i]);
    }
    let nb = n / p;
    let mut sb = 0.0;
    for b in 0..nb {
        let end = if b + 1 == nb { n } else { (b + 1) * p };
        let batch = &perm[b * p..end];
        let mut pairs = 0.0;
        for a in 0..batch.len() {
            for e in a + 1..batch.len() {
                let (i, j) = (batch[a], batch[e]);
                pairs += stein(c, beta, &x[i], &x[j], &g[i], &g[j]);
            }
        }
        sb += 2.0 * pairs / (batch.len() - 1) as f64;
    }
    (diag + (n as f64 - 1.0) * sb) / (n as f64 * n as f64)
}
