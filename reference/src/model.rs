//! The model every reference chain samples: an energy and a stochastic gradient.

use sgsample::Stop;

/// The model as two closures' worth of behaviour: energy and stochastic gradient.
pub trait Model<T> {
    /// U(θ), or a refusal.
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop>;
    /// ∇Ũ(θ; seed) written into `g`.
    fn grad(&mut self, theta: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop>;
}
