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
