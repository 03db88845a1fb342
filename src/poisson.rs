//! Exact Poisson draws from the library's generator, for TunaMH's batch size
//! (docs/algorithms.md §7, "Draw order").
//!
//! Two methods, chosen by the mean μ alone so that the words a draw consumes are a function of
//! the stream and μ:
//!
//! * **μ < 10: inversion.** One uniform u, then the smallest k with P(X ≤ k) > u, walking the
//!   probabilities p₀ = e^(−μ), p_k = p_(k−1)·μ/k. One word per draw.
//! * **μ ≥ 10: transformed rejection with squeeze** (Hörmann 1993, "PTRS"): per attempt two
//!   uniforms (U then V); a candidate k from a hat function of U; accepted at once in the
//!   squeeze region, else by comparing log V with the exact log-probability
//!   `k·ln μ − μ − lnΓ(k + 1)`. Expected attempts about 1.1 for every μ ≥ 10.
//!
//! Everything in `f64` through `libm`, so a draw is the same on every platform.

use crate::rng::Rng;

/// The mean from which the rejection method is used.
const PTRS_FROM: f64 = 10.0;

/// One Poisson(μ) draw; μ ≥ 0 and finite (0 for anything else, drawing nothing).
pub(crate) fn poisson(rng: &mut Rng, mu: f64) -> u64 {
    if !(mu > 0.0 && mu.is_finite()) {
        return 0;
    }
    if mu < PTRS_FROM {
        inversion(rng, mu)
    } else {
        ptrs(rng, mu)
    }
}

fn inversion(rng: &mut Rng, mu: f64) -> u64 {
    let u = rng.uniform_f64();
    let mut k = 0u64;
    let mut p = libm::exp(-mu);
    let mut cdf = p;
    // The tail beyond k = 200 has probability below 1e-150 for μ < 10; the bound only stops a
    // rounding plateau (cdf stuck just below a u within an ulp of 1) from looping.
    while u >= cdf && k < 200 {
        k += 1;
        p *= mu / k as f64;
        cdf += p;
    }
    k
}

fn ptrs(rng: &mut Rng, mu: f64) -> u64 {
    let slam = libm::sqrt(mu);
    let loglam = libm::log(mu);
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = rng.uniform_f64() - 0.5;
        let v = rng.uniform_f64();
        let us = 0.5 - libm::fabs(u);
        let k = libm::floor((2.0 * a / us + b) * u + mu + 0.43);
        if us >= 0.07 && v <= vr {
            return k as u64;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        let lhs = libm::log(v) + libm::log(inv_alpha) - libm::log(a / (us * us) + b);
        let rhs = -mu + k * loglam - libm::lgamma(k + 1.0);
        if lhs <= rhs {
            return k as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// χ² of the draws against the exact probabilities, cells with expectation ≥ 5 (tails
    /// pooled), for means on both sides of the switch; and the mean within 5 standard errors.
    #[test]
    fn draws_follow_the_poisson_law() {
        for &mu in &[0.3, 2.5, 9.99, 10.0, 37.5, 1234.5] {
            let n = 200_000usize;
            let mut rng = Rng::new(11, 3);
            let mut counts = std::collections::BTreeMap::<u64, f64>::new();
            let mut sum = 0.0;
            for _ in 0..n {
                let k = poisson(&mut rng, mu);
                sum += k as f64;
                *counts.entry(k).or_default() += 1.0;
            }
            let mean = sum / n as f64;
            assert!(
                (mean - mu).abs() < 5.0 * (mu / n as f64).sqrt(),
                "mu {mu}: mean {mean}"
            );
            let logp = |k: u64| -mu + k as f64 * mu.ln() - libm::lgamma(k as f64 + 1.0);
            let (mut chi2, mut cells) = (0.0, 0usize);
            let (mut lo_obs, mut lo_exp) = (0.0, 0.0);
            let mut k = 0u64;
            let mut cdf = 0.0;
            // Pool the lower tail until its expectation reaches 5, then cell by cell.
            while cdf < 1.0 - 1e-12 {
                let e = n as f64 * logp(k).exp();
                cdf += logp(k).exp();
                lo_obs += counts.get(&k).copied().unwrap_or(0.0);
                lo_exp += e;
                if lo_exp >= 5.0 && n as f64 * (1.0 - cdf) >= 5.0 {
                    chi2 += (lo_obs - lo_exp).powi(2) / lo_exp;
                    cells += 1;
                    lo_obs = 0.0;
                    lo_exp = 0.0;
                }
                k += 1;
                if n as f64 * (1.0 - cdf) < 5.0 {
                    break;
                }
            }
            let rest: f64 = counts.range(k..).map(|(_, c)| c).sum::<f64>() + lo_obs;
            let rest_exp = n as f64 * (1.0 - cdf) + lo_exp;
            chi2 += (rest - rest_exp).powi(2) / rest_exp;
            cells += 1;
            let df = (cells - 1) as f64;
            // χ² with df degrees of freedom: mean df, sd √(2df); 5 sd is far past any sampling
            // fluctuation, while a wrong constant in the hat moves it by hundreds.
            assert!(
                chi2 < df + 5.0 * (2.0 * df).sqrt(),
                "mu {mu}: chi2 {chi2} on {df} df"
            );
        }
    }

    #[test]
    fn degenerate_means_draw_nothing() {
        let mut rng = Rng::new(1, 1);
        let before = rng.clone().next_u64();
        for mu in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(poisson(&mut rng, mu), 0);
        }
        assert_eq!(rng.next_u64(), before);
    }
}
