//! The callbacks a sampler calls: the caller's model.
//!
//! # Contract
//!
//! * A callback is called with the sampler's current point and must not keep references to it.
//! * `minibatch_seed` is drawn from the sampler's stream, fresh for each inner step (AMAGOLD,
//!   SGHMC) or iteration (SVGD), and is the same for every call of that step. Turn it into data
//!   indices with [`minibatch`](crate::minibatch()) (or any deterministic rule of your own); the
//!   sampler's exactness needs the minibatch to depend on nothing but the seed.
//! * Return `Err(Stop::Reject)` for a point outside the target's domain, `Err(Stop::Abort)` to stop
//!   the sampler without losing its state. A non-finite energy counts as a divergence (a rejection
//!   that is counted separately), never as an error.
//! * The samplers are bit-for-bit reproducible given the callbacks' outputs; a callback that is
//!   itself deterministic in `(point, seed)` makes the whole run reproducible.

use crate::error::Stop;
use crate::float::Float;

/// A (stochastic) gradient of the energy: `∇Ũ(θ)` for AMAGOLD and SGHMC, `∇V(x)` for SVGD.
///
/// Stop a run with [`Stop`], not a panic: a panic unwinds through the sampler, which then keeps
/// its positions but may have advanced its generator, so a caller who catches it and goes on no
/// longer reproduces an uninterrupted run (an SVGD iteration in phases restores the generator
/// when it is dropped during the unwinding).
pub trait Gradient<T: Float> {
    /// Writes the gradient at `x` (length d) into `grad` (length d).
    fn gradient(&mut self, x: &[T], minibatch_seed: u64, grad: &mut [T]) -> Result<(), Stop>;

    /// Gradients of many points at once: `xs` holds `xs.len() / d` points row by row, `grads` the
    /// same shape. SVGD calls this once per iteration, so a model that vectorises over particles
    /// (or farms them out to a GPU or a cluster) overrides it. The default calls
    /// [`gradient`](Self::gradient) for each row in order.
    fn gradients(
        &mut self,
        xs: &[T],
        d: usize,
        minibatch_seed: u64,
        grads: &mut [T],
    ) -> Result<(), Stop> {
        // `d.max(1)`: the samplers never pass d = 0, and without it `chunks_exact` would link a
        // panic path into every firmware (744 bytes of flash on a Cortex-M4F).
        let d = d.max(1);
        for (x, g) in xs.chunks_exact(d).zip(grads.chunks_exact_mut(d)) {
            self.gradient(x, minibatch_seed, g)?;
        }
        Ok(())
    }
}

/// An energy `U(θ) = −log π(θ) + const` together with its stochastic gradient (AMAGOLD).
pub trait Potential<T: Float>: Gradient<T> {
    /// The full-data energy at `theta`. AMAGOLD calls it once per outer iteration.
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop>;
}

impl<T: Float, G: Gradient<T> + ?Sized> Gradient<T> for &mut G {
    fn gradient(&mut self, x: &[T], seed: u64, grad: &mut [T]) -> Result<(), Stop> {
        (**self).gradient(x, seed, grad)
    }
    fn gradients(&mut self, xs: &[T], d: usize, seed: u64, grads: &mut [T]) -> Result<(), Stop> {
        (**self).gradients(xs, d, seed, grads)
    }
}

impl<T: Float, P: Potential<T> + ?Sized> Potential<T> for &mut P {
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop> {
        (**self).energy(theta)
    }
}

/// A [`Potential`] from two closures, for quick use and for tests.
///
/// ```
/// use sgsample::{FnPotential, Potential, Gradient};
/// // Standard normal: U = θ²/2, ∇U = θ.
/// let mut m = FnPotential::new(
///     |t: &[f64]| Ok(0.5 * t[0] * t[0]),
///     |t: &[f64], _seed, g: &mut [f64]| { g[0] = t[0]; Ok(()) },
/// );
/// assert_eq!(m.energy(&[2.0]), Ok(2.0));
/// ```
pub struct FnPotential<E, G> {
    energy: E,
    gradient: G,
}

impl<E, G> FnPotential<E, G> {
    /// Wraps an energy closure and a gradient closure.
    pub fn new(energy: E, gradient: G) -> Self {
        FnPotential { energy, gradient }
    }
}

impl<T, E, G> Gradient<T> for FnPotential<E, G>
where
    T: Float,
    G: FnMut(&[T], u64, &mut [T]) -> Result<(), Stop>,
{
    fn gradient(&mut self, x: &[T], seed: u64, grad: &mut [T]) -> Result<(), Stop> {
        (self.gradient)(x, seed, grad)
    }
}

impl<T, E, G> Potential<T> for FnPotential<E, G>
where
    T: Float,
    E: FnMut(&[T]) -> Result<f64, Stop>,
    G: FnMut(&[T], u64, &mut [T]) -> Result<(), Stop>,
{
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop> {
        (self.energy)(theta)
    }
}
