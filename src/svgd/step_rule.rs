//! SVGD step rules (docs/algorithms.md §2.2): constant, decaying `η₁/k`, and the RMSProp-like
//! "AdaGrad" of the reference SVGD code.
//!
//! # Arithmetic (part of the reproducibility contract)
//!
//! Per coordinate, in `T`, with the constants rounded once from `f64`:
//!
//! ```text
//! Constant:   x ← x + η·φ                               η = T(eta)
//! Decaying:   x ← x + η_k·φ                             η_k = T(eta / k),  k = 1, 2, … the iteration
//! AdaGrad:    H ← φ·φ                  (the element's first update)
//!             H ← α·H + ω·(φ·φ)        (afterwards)     α = T(alpha), ω = T(1 − alpha)
//!             x ← x + (η·φ) / (ε + sqrt(H))             η = T(eta), ε = T(1e-6)
//! ```
//!
//! "First update" is per element: the history starts at −1 (a value no update can produce) and
//! an element still at −1 takes `H ← φ·φ`. Without replacement every particle moves once per
//! iteration, so this is exactly §2.2's `k = 0` rule; with replacement a particle's row gets the
//! `k = 0` rule on the first move it actually makes, and only rows that move are touched.

use crate::error::Error;
use crate::float::Float;

/// The AdaGrad fudge term ε added to `sqrt(H)`.
pub const ADAGRAD_FUDGE: f64 = 1e-6;

/// The AdaGrad history's value before an element's first update.
pub(crate) const UNSET: f64 = -1.0;

/// How far particles move along φ (plain data, for the C API too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepRule {
    /// `X ← X + η·φ`.
    Constant {
        /// The step size η > 0.
        eta: f64,
    },
    /// `X ← X + (η₁/k)·φ` at iteration k = 1, 2, ….
    Decaying {
        /// The first step size η₁ > 0.
        eta: f64,
    },
    /// `H ← α·H + (1 − α)·φ²` (H ← φ² at first), `X ← X + η·φ/(1e-6 + √H)`, element-wise.
    AdaGrad {
        /// The master step size η > 0 (the paper uses 0.2 for the 1-D mixture).
        eta: f64,
        /// The history decay α ∈ [0, 1) (default 0.9).
        alpha: f64,
    },
}

impl StepRule {
    /// AdaGrad with step size η and the default α = 0.9.
    pub const fn adagrad(eta: f64) -> Self {
        StepRule::AdaGrad { eta, alpha: 0.9 }
    }

    /// Checks the parameters for coordinate type `T`: [`Error::InvalidStepSize`] when η is not
    /// finite and positive (also after rounding to `T`), [`Error::InvalidStepRule`] when α is
    /// not in `[0, 1)`.
    pub fn validate<T: Float>(&self) -> Result<(), Error> {
        let eta = match *self {
            StepRule::Constant { eta } | StepRule::Decaying { eta } => eta,
            StepRule::AdaGrad { eta, alpha } => {
                if !(0.0..1.0).contains(&alpha) {
                    return Err(Error::InvalidStepRule);
                }
                eta
            }
        };
        let t = T::from_f64(eta);
        if !(eta.is_finite() && eta > 0.0 && t.is_finite() && t > T::ZERO) {
            return Err(Error::InvalidStepSize);
        }
        Ok(())
    }

    /// `true` for AdaGrad (it needs an N×d history in the workspace).
    pub const fn has_history(&self) -> bool {
        matches!(self, StepRule::AdaGrad { .. })
    }

    /// The step size η this rule uses at iteration `k` (1-based), in `f64`.
    pub fn eta_at(&self, k: u64) -> f64 {
        match *self {
            StepRule::Constant { eta } | StepRule::AdaGrad { eta, .. } => eta,
            StepRule::Decaying { eta } => eta / k as f64,
        }
    }
}

/// The constants of one iteration's update, rounded to `T`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Update<T> {
    eta: T,
    adagrad: Option<(T, T, T)>,
}

impl<T: Float> Update<T> {
    /// The update of iteration `k` (1-based).
    pub(crate) fn new(rule: &StepRule, k: u64) -> Self {
        let eta = T::from_f64(rule.eta_at(k));
        let adagrad = match *rule {
            StepRule::AdaGrad { alpha, .. } => Some((
                T::from_f64(alpha),
                T::from_f64(1.0 - alpha),
                T::from_f64(ADAGRAD_FUDGE),
            )),
            _ => None,
        };
        Update { eta, adagrad }
    }

    /// The AdaGrad constants `(α, ω, ε)`, `None` for the rules without history.
    #[inline]
    pub(crate) fn adagrad_constants(&self) -> Option<(T, T, T)> {
        self.adagrad
    }

    /// Constant and decaying rules: the new `x` of one coordinate.
    #[inline]
    pub(crate) fn plain(&self, x: T, phi: T) -> T {
        x + self.eta * phi
    }

    /// The constant and decaying rules' increment `η·φ` of one coordinate (the scale option
    /// moves a particle by `s·η·φ`, docs/algorithms.md §2.7).
    #[inline]
    pub(crate) fn plain_delta(&self, phi: T) -> T {
        self.eta * phi
    }

    /// AdaGrad with constants `(α, ω, ε)`: the new `(x, H)` of one coordinate, `x` plus the
    /// increment of [`adagrad_delta`](Self::adagrad_delta) (the same operations as one
    /// expression: the same bits).
    #[inline]
    pub(crate) fn adagrad(&self, k: (T, T, T), x: T, h: T, phi: T) -> (T, T) {
        let (delta, h) = self.adagrad_delta(k, h, phi);
        (x + delta, h)
    }

    /// AdaGrad with constants `(α, ω, ε)`: the increment `(η·φ)/(ε + √H)` of one coordinate and
    /// its new `H`.
    #[inline]
    pub(crate) fn adagrad_delta(&self, (alpha, omega, fudge): (T, T, T), h: T, phi: T) -> (T, T) {
        let sq = phi * phi;
        let h = if h < T::ZERO {
            sq
        } else {
            alpha * h + omega * sq
        };
        ((self.eta * phi) / (fudge + h.sqrt()), h)
    }
}
