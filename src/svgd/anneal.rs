//! Annealed SVGD (D'Angelo & Fortuin, *Annealed Stein variational gradient descent*, 2021): the
//! driving term of the force, `k(x, y)·(−∇V(y))`, scaled by `γ(t) ∈ [0, 1]` that rises to 1 over
//! the first iterations, while the repulsion `∇_y k(x, y)` stays whole. Early on the particles
//! spread out (at γ = 0 they only repel each other), and they are drawn to the modes only
//! gradually, so that a mode far from the start is found before the particles collapse onto the
//! nearest one. An iteration at γ is an SVGD iteration on the tempered target `π^γ`, whose
//! `∇(γV) = γ·∇V`: that is how it is computed (docs/algorithms.md §2.8).

use crate::error::Error;

/// The annealing schedule γ(t) of an SVGD run (`t` = iterations done before this one).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Anneal {
    /// γ = 1: plain SVGD (the default).
    #[default]
    Off,
    /// `γ(t) = (frac(t/L))^power` with `L = iterations/cycles`: `cycles` ramps from 0 to 1
    /// over the first `iterations`, then γ = 1 (the paper's cyclical schedule).
    Cyclical {
        /// Iterations the schedule spans (≥ 1).
        iterations: u64,
        /// Ramps within them (1 ≤ cycles ≤ iterations).
        cycles: u64,
        /// The exponent p > 0 of each ramp (1: linear).
        power: f64,
    },
    /// `γ(t) = tanh((1.3·t/iterations)^power)` for `t < iterations`, then 1 (the paper's
    /// hyperbolic-tangent schedule).
    Hyperbolic {
        /// Iterations the schedule spans (≥ 1).
        iterations: u64,
        /// The exponent p > 0.
        power: f64,
    },
}

impl Anneal {
    /// [`Error::InvalidOption`] unless the schedule's iterations are at least 1, its cycles
    /// between 1 and its iterations, and its power finite and positive; and for any schedule
    /// but `Off` when the crate is built without its `svgd-anneal` feature (on by default).
    pub fn validate(&self) -> Result<(), Error> {
        let ok = match *self {
            Anneal::Off => true,
            _ if !cfg!(feature = "svgd-anneal") => false,
            Anneal::Cyclical {
                iterations,
                cycles,
                power,
            } => iterations >= 1 && cycles >= 1 && cycles <= iterations && power_ok(power),
            Anneal::Hyperbolic { iterations, power } => iterations >= 1 && power_ok(power),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidOption)
        }
    }

    /// γ of the iteration after `t` done (in `f64`: `t/L` as `t as f64 / L`, the fractional
    /// part by subtracting its floor, then `pow`; hyperbolic `tanh(pow(1.3·t/T, p))`), 1 once
    /// `t` reaches the schedule's iterations.
    ///
    /// ```
    /// use sgsample::svgd::Anneal;
    /// let a = Anneal::Cyclical { iterations: 100, cycles: 2, power: 1.0 };
    /// assert_eq!((a.gamma(0), a.gamma(25), a.gamma(50), a.gamma(100)), (0.0, 0.5, 0.0, 1.0));
    /// ```
    pub fn gamma(&self, t: u64) -> f64 {
        match *self {
            Anneal::Off => 1.0,
            Anneal::Cyclical {
                iterations,
                cycles,
                power,
            } if t < iterations => {
                let l = iterations as f64 / cycles as f64;
                let r = t as f64 / l;
                libm::pow(r - libm::floor(r), power)
            }
            Anneal::Hyperbolic { iterations, power } if t < iterations => {
                libm::tanh(libm::pow(1.3 * t as f64 / iterations as f64, power))
            }
            _ => 1.0,
        }
    }
}

impl Anneal {
    /// Whether iterations are annealed (always `false` without the `svgd-anneal` feature, so
    /// that γ(t)'s code is not linked).
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        cfg!(feature = "svgd-anneal") && *self != Anneal::Off
    }
}

fn power_ok(p: f64) -> bool {
    p.is_finite() && p > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        let c = Anneal::Cyclical {
            iterations: 10,
            cycles: 2,
            power: 2.0,
        };
        let want = [
            0.0, 0.04, 0.16, 0.36, 0.64, 0.0, 0.04, 0.16, 0.36, 0.64, 1.0, 1.0,
        ];
        for (t, w) in want.iter().enumerate() {
            assert!((c.gamma(t as u64) - w).abs() < 1e-15, "t {t}");
        }
        let h = Anneal::Hyperbolic {
            iterations: 100,
            power: 1.0,
        };
        assert_eq!(h.gamma(0), 0.0);
        assert!((h.gamma(50) - libm::tanh(0.65)).abs() < 1e-15);
        assert_eq!(h.gamma(100), 1.0);
        assert_eq!(Anneal::Off.gamma(0), 1.0);
        for bad in [
            Anneal::Cyclical {
                iterations: 0,
                cycles: 1,
                power: 1.0,
            },
            Anneal::Cyclical {
                iterations: 5,
                cycles: 6,
                power: 1.0,
            },
            Anneal::Cyclical {
                iterations: 5,
                cycles: 0,
                power: 1.0,
            },
            Anneal::Hyperbolic {
                iterations: 5,
                power: 0.0,
            },
            Anneal::Hyperbolic {
                iterations: 5,
                power: f64::NAN,
            },
        ] {
            assert_eq!(bad.validate(), Err(Error::InvalidOption), "{bad:?}");
        }
    }
}
