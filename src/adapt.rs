//! Dual-averaging adaptation of the step size (Hoffman & Gelman 2014, §3.2.1), as docs/algorithms.md
//! §1.2 fixes it: μ = log(10·ε₀), γ = 0.05, t₀ = 10, κ = 0.75.

/// State of the adaptation between outer iterations. Plain data, so a sampler (and the C state
/// that embeds one) can copy and restore it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DualAveraging {
    mu: f64,
    h_bar: f64,
    log_eps_bar: f64,
    m: u64,
    delta: f64,
}

#[cfg(feature = "ffi")]
crate::wire::wire_struct!(DualAveraging {
    mu,
    h_bar,
    log_eps_bar,
    m,
    delta
});

const GAMMA: f64 = 0.05;
const T0: f64 = 10.0;
const KAPPA: f64 = 0.75;

impl DualAveraging {
    /// Starts from ε₀ towards the target acceptance δ.
    pub(crate) fn new(eps0: f64, delta: f64) -> Self {
        DualAveraging {
            mu: libm::log(10.0 * eps0),
            h_bar: 0.0,
            log_eps_bar: 0.0,
            m: 0,
            delta,
        }
    }

    /// Feeds the acceptance probability α_m = min(1, a) of the iteration just finished and
    /// returns ε_m, the step size of the next one. The expressions are written in exactly the
    /// order the reference build uses: the result is part of the reproducibility contract.
    pub(crate) fn update(&mut self, alpha: f64) -> f64 {
        self.m += 1;
        let m = self.m as f64;
        let mt = m + T0;
        self.h_bar = (1.0 - 1.0 / mt) * self.h_bar + (self.delta - alpha) / mt;
        let log_eps = self.mu - (libm::sqrt(m) / GAMMA) * self.h_bar;
        let w = libm::pow(m, -KAPPA);
        self.log_eps_bar = w * log_eps + (1.0 - w) * self.log_eps_bar;
        libm::exp(log_eps)
    }

    /// ε̄, the step size kept once the warm-up ends.
    pub(crate) fn final_step_size(&self) -> f64 {
        libm::exp(self.log_eps_bar)
    }
}

/// α = min(1, exp(log a)), and 0 for a rejection that never computed a finite log a.
pub(crate) fn accept_prob(log_a: f64) -> f64 {
    if log_a.is_nan() {
        0.0
    } else if log_a >= 0.0 {
        1.0
    } else {
        libm::exp(log_a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recursion of docs/algorithms.md §1.2, written out from its equations: every ε_m and
    /// the final ε̄ (the κ-weighted average of the iterates, not the last one) over a fixed
    /// sequence of acceptance probabilities.
    #[test]
    fn the_documented_recursion() {
        let (eps0, delta) = (0.3f64, 0.65);
        let alphas = [0.9, 0.2, 0.7, 0.4, 1.0, 0.0, 0.65, 0.8, 0.1, 0.95, 0.5, 0.3];
        let mut da = DualAveraging::new(eps0, delta);
        let mu = (10.0 * eps0).ln();
        let (mut h, mut lbar) = (0.0f64, 0.0f64);
        for (i, &a) in alphas.iter().enumerate() {
            let m = (i + 1) as f64;
            h = (1.0 - 1.0 / (m + 10.0)) * h + (delta - a) / (m + 10.0);
            let log_eps = mu - (m.sqrt() / 0.05) * h;
            lbar = m.powf(-0.75) * log_eps + (1.0 - m.powf(-0.75)) * lbar;
            let got = da.update(a);
            assert!(
                (got.ln() - log_eps).abs() < 1e-12,
                "m = {m}: {got} vs {}",
                log_eps.exp()
            );
            let bar = da.final_step_size();
            assert!(
                (bar.ln() - lbar).abs() < 1e-12,
                "m = {m}: ε̄ {bar} vs {}",
                lbar.exp()
            );
        }
        // The average is not the last iterate here.
        assert!((da.final_step_size().ln() - (mu - (12f64.sqrt() / 0.05) * h)).abs() > 0.1);
    }

    #[test]
    fn accept_prob_is_min_1_exp() {
        assert_eq!(accept_prob(f64::NAN), 0.0);
        assert_eq!(accept_prob(0.5), 1.0);
        assert_eq!(accept_prob(f64::NEG_INFINITY), 0.0);
        assert!((accept_prob(-0.5) - (-0.5f64).exp()).abs() < 1e-15);
    }
}
