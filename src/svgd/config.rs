//! The public configuration and per-iteration record of SVGD / RBM-SVGD.

use super::anneal::Anneal;
use super::ksd::KsdChoice;
use super::permutation::Permutation;
use super::scale::Scale;
use super::step_rule::StepRule;
use crate::run::{Outcome, StepInfo};

/// Without or with replacement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Batching {
    /// Algorithm 3: a random permutation cut into batches, every particle moves once per
    /// iteration (the paper's main method).
    WithoutReplacement = 0,
    /// Algorithm 2: `⌊N/p⌋` sub-steps, each moving one random batch of p distinct particles.
    WithReplacement = 1,
}

/// Hyperparameters of an SVGD / RBM-SVGD run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SvgdConfig<K> {
    /// The interaction batch size p, `2 ≤ p ≤ N`; `p = N` is full SVGD.
    pub batch_size: usize,
    /// Without (default) or with replacement.
    pub batching: Batching,
    /// The interaction kernel.
    pub kernel: K,
    /// The step rule.
    pub step_rule: StepRule,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id: runs with the same seed and different streams are independent.
    pub stream: u64,
    /// Whether each iteration reports the kernelized Stein discrepancy of its particles
    /// ([`SvgdInfo::ksd_squared`]); off by default (it costs extra). Without replacement only,
    /// and only with the crate's `ksd` feature (on by default; bare-metal builds with
    /// `default-features = false` opt in, since the code is linked whenever SVGD is).
    pub ksd: KsdChoice,
    /// Whether the iterations run in standardised coordinates `u = (x − c)/s`
    /// (docs/algorithms.md §2.7): [`Scale::None`] (the default, raw coordinates),
    /// [`Scale::Particles`] (s the particles' standard deviations, every iteration) or
    /// [`Scale::Fixed`] (s set by [`Svgd::set_scale`](super::Svgd::set_scale)). Only with the crate's `svgd-scale`
    /// feature (on by default).
    pub scale: Scale,
    /// The annealing schedule γ(t) of the driving term ([`Anneal::Off`] by default: plain
    /// SVGD; docs/algorithms.md §2.8).
    pub anneal: Anneal,
    /// How an iteration without replacement permutes the particles into batches:
    /// [`Permutation::Shuffle`] (the default, Fisher–Yates) or [`Permutation::Feistel`] (a keyed
    /// bijection any range can evaluate for its own slots; docs/algorithms.md §2, "Draw order").
    pub permutation: Permutation,
}

impl<K> SvgdConfig<K> {
    /// Batch size p, kernel and step rule; without replacement, seed 0, stream 0, no KSD, raw
    /// coordinates.
    pub const fn new(batch_size: usize, kernel: K, step_rule: StepRule) -> Self {
        SvgdConfig {
            batch_size,
            batching: Batching::WithoutReplacement,
            kernel,
            step_rule,
            seed: 0,
            stream: 0,
            ksd: KsdChoice::Off,
            scale: Scale::None,
            anneal: Anneal::Off,
            permutation: Permutation::Shuffle,
        }
    }
}

/// What one iteration did. Equality is field by field, except that two NaN `ksd_squared` (the
/// KSD off) are equal, so that records of runs without the KSD still compare equal.
#[derive(Clone, Copy, Debug)]
pub struct SvgdInfo {
    /// Iterations done since `new`, this one included.
    pub iteration: u64,
    /// The kernel bandwidth h this iteration used (NaN for kernels without one).
    pub bandwidth: f64,
    /// The step size η (η_k for the decaying rule) this iteration used.
    pub step_size: f64,
    /// Mean of `|φ_i|` over the particle moves of the iteration (N without replacement,
    /// `⌊N/p⌋·p` with replacement).
    pub mean_force: f64,
    /// Largest `|φ_i|` of the iteration.
    pub max_force: f64,
    /// Kernel evaluations: unordered pairs `{i, j}` of batch mates, each serving both
    /// `F(X_i, X_j)` and `F(X_j, X_i)` (self terms not counted).
    pub interactions: u64,
    /// The squared kernelized Stein discrepancy of the particles at the start of the iteration
    /// (those its gradients were evaluated at), as [`SvgdConfig::ksd`] asks: the random-batch
    /// estimate (unbiased for the full value, may be negative) or the full V-statistic; NaN when
    /// off. The KSD is its square root (docs/algorithms.md §2.5).
    pub ksd_squared: f64,
}

/// Equal when every field is, a NaN equal to a NaN: some fields are NaN by design (the
/// bandwidth of a kernel without one, the KSD when off), and an info must equal itself.
impl PartialEq for SvgdInfo {
    fn eq(&self, o: &Self) -> bool {
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        same(self.ksd_squared, o.ksd_squared)
            && self.iteration == o.iteration
            && same(self.bandwidth, o.bandwidth)
            && same(self.step_size, o.step_size)
            && same(self.mean_force, o.mean_force)
            && same(self.max_force, o.max_force)
            && self.interactions == o.interactions
    }
}

/// An SVGD iteration either completes (every particle moved) or fails and changes nothing, so it
/// always reports [`Outcome::Accepted`] to the run loop.
impl StepInfo for SvgdInfo {
    fn outcome(&self) -> Outcome {
        Outcome::Accepted
    }
}
