//! [`Svgd`]: the particle system over the caller's buffers.

use super::config::{SvgdConfig, SvgdInfo};
use super::core::SvgdCore;
use super::kernel::{Kernel, KernelChoice};
use super::layout::workspace_len;
use super::schedule::BatchScheduler;
use crate::error::Error;
use crate::float::Float;
use crate::model::Gradient;
use crate::run::{run_iterations, RunError, RunSummary};

/// An SVGD / RBM-SVGD particle system over caller-supplied buffers.
///
/// ```
/// use sgsample::{Gradient, KernelChoice, Stop, StepRule, Svgd, SvgdConfig};
///
/// // Target N(1, 1) in 1-D: ∇V(x) = x − 1.
/// struct Shifted;
/// impl Gradient<f64> for Shifted {
///     fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
///         g[0] = x[0] - 1.0;
///         Ok(())
///     }
/// }
///
/// let n = 64;
/// let cfg = SvgdConfig::new(8, KernelChoice::Gaussian { h: 0.5 }, StepRule::adagrad(0.1));
/// let mut particles: Vec<f64> = (0..n).map(|i| -3.0 + 0.05 * i as f64).collect();
/// let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, 1, &cfg)];
/// let mut index = vec![0u32; Svgd::<f64>::index_len(n)];
/// let mut svgd = Svgd::new(&cfg, 1, &mut particles, &mut ws, &mut index)?;
/// let summary = svgd.run(300, &mut Shifted).map_err(|e| e.error)?;
/// assert_eq!(summary.last.map(|i| i.iteration), Some(300));
/// let mean = svgd.particles().iter().sum::<f64>() / n as f64;
/// assert!((mean - 1.0).abs() < 0.1, "{mean}");
/// # Ok::<(), sgsample::Error>(())
/// ```
pub struct Svgd<'a, T: Float, K: Kernel<T> = KernelChoice> {
    pub(super) core: SvgdCore<K>,
    pub(super) particles: &'a mut [T],
    pub(super) ws: &'a mut [T],
    pub(super) idx: &'a mut [u32],
}

impl<'a, T: Float, K: Kernel<T> + Clone> Svgd<'a, T, K> {
    /// Workspace length (coordinates of type `T`) for `n` particles in dimension `d` under
    /// `config` (see the module docs for the parts). Saturates to `usize::MAX` on overflow.
    pub fn workspace_len(n: usize, d: usize, config: &SvgdConfig<K>) -> usize {
        workspace_len::<T, K>(n, d, config)
    }

    /// Length of the index slice for `n` particles: `n`.
    pub const fn index_len(n: usize) -> usize {
        n
    }

    /// Validates the configuration and the buffers and starts at `particles` (`N·d`
    /// coordinates, row by row; N = `particles.len() / d`). Errors, in the order checked:
    /// [`Error::ZeroDimension`], [`Error::ZeroParticles`], [`Error::LengthMismatch`] (length not
    /// a multiple of d), [`Error::InvalidArgument`] (N ≥ 2³²), [`Error::InvalidBatchSize`],
    /// the kernel's ([`Error::InvalidBandwidth`], [`Error::InvalidKernel`]), the step rule's
    /// ([`Error::InvalidStepSize`], [`Error::InvalidStepRule`]), the KSD's
    /// ([`Error::InvalidKernel`] for its base kernel's c or β, [`Error::InvalidOption`] without
    /// the `ksd` feature or with replacement), [`Error::WorkspaceTooSmall`] (workspace or index
    /// slice; also when the needed length overflows `usize`, e.g. the median heuristic's
    /// N(N−1)/2 at huge N: [`workspace_len`](Self::workspace_len) then saturates),
    /// [`Error::InvalidPosition`]. Nothing is written on error.
    pub fn new(
        config: &SvgdConfig<K>,
        d: usize,
        particles: &'a mut [T],
        workspace: &'a mut [T],
        index: &'a mut [u32],
    ) -> Result<Self, Error> {
        let core = SvgdCore::new(config, d, particles, workspace, index)?;
        Ok(Svgd {
            core,
            particles,
            ws: workspace,
            idx: index,
        })
    }

    /// One iteration. On `Err` ([`Error::CallbackAborted`], [`Error::GradientRejected`] (the
    /// callback returned [`Stop::Reject`](crate::Stop::Reject)), [`Error::NonFinite`],
    /// [`Error::InvalidPosition`] if the caller made a particle non-finite) the particles, the
    /// AdaGrad history and the generator are exactly as before the call.
    pub fn step<M: Gradient<T> + ?Sized>(&mut self, model: &mut M) -> Result<SvgdInfo, Error> {
        self.core.step(self.particles, self.ws, self.idx, model)
    }

    /// `iterations` iterations (0 is allowed and does nothing). On error,
    /// [`RunError::partial`] has the totals of the iterations that completed; the failed one
    /// changed nothing.
    pub fn run<M: Gradient<T> + ?Sized>(
        &mut self,
        iterations: u64,
        model: &mut M,
    ) -> Result<RunSummary<SvgdInfo>, RunError<SvgdInfo>> {
        run_iterations(iterations, || self.step(model))
    }

    /// The particles, `N·d` row by row.
    pub fn particles(&self) -> &[T] {
        self.particles
    }

    /// The particles, mutable (e.g. to reset them between iterations; they must stay finite).
    pub fn particles_mut(&mut self) -> &mut [T] {
        self.particles
    }

    /// The forces φ of the last iteration: without replacement all `N·d` (row i is particle i);
    /// with replacement the `p·d` of its last sub-step (rows in draw order). With the scale option
    /// on, φ in standardised coordinates (the particles moved by `s∘Δ` of it, docs/algorithms.md
    /// §2.7). Meaningless before the first iteration and after a failed one.
    pub fn force(&self) -> &[T] {
        let (off, len) = self.core.force_range();
        &self.ws[off..off + len]
    }

    /// Iterations done.
    pub fn iterations(&self) -> u64 {
        self.core.iterations()
    }

    /// The number of particles N.
    pub fn num_particles(&self) -> usize {
        self.core.n
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.core.d
    }

    /// The configuration the system was started with (and the batch size it now uses).
    pub fn config(&self) -> &SvgdConfig<K> {
        self.core.config()
    }

    /// Changes the batch size p for the next iterations (a growing batch size,
    /// [`BatchScheduler`]). Without replacement only: [`Error::InvalidOption`] with replacement,
    /// [`Error::InvalidBatchSize`] unless `2 ≤ p ≤ N`; nothing changes on error. The draws of an
    /// iteration without replacement do not depend on p.
    pub fn set_batch_size(&mut self, p: usize) -> Result<(), Error> {
        self.core.set_batch_size(p)
    }

    /// Sets the fixed scales `s` (d values, each finite and positive: e.g. a pilot run's
    /// posterior standard deviations) of a system configured with [`Scale::Fixed`](super::Scale::Fixed); the next
    /// iterations run in `u = (x − c)/s` (docs/algorithms.md §2.7). Errors:
    /// [`Error::InvalidOption`] (another [`SvgdConfig::scale`]), [`Error::LengthMismatch`]
    /// (not d values), [`Error::InvalidArgument`] (a value not finite and positive); nothing
    /// changes on error.
    pub fn set_scale(&mut self, s: &[T]) -> Result<(), Error> {
        self.core.set_scale(self.ws, s)
    }

    /// The scales `s` in use (d values): with [`Scale::Particles`](super::Scale::Particles) those of the last iteration
    /// begun (all ones before the first), with [`Scale::Fixed`](super::Scale::Fixed) the ones set (all ones until
    /// set); empty with [`Scale::None`](super::Scale::None).
    pub fn scale(&self) -> &[T] {
        let (off, len) = self.core.scale_range();
        self.ws.get(off..off + len / 2).unwrap_or(&[])
    }

    /// `iterations` iterations whose batch size `scheduler` chooses: before each iteration p is
    /// set to [`BatchScheduler::batch_size`], after it the scheduler sees its info. Errors as
    /// [`run`](Self::run), plus, before anything runs, [`Error::InvalidOption`] (with replacement,
    /// or a KSD-driven schedule without [`SvgdConfig::ksd`]) and [`Error::InvalidBatchSize`]
    /// (the scheduler was made for another N).
    pub fn run_scheduled<M: Gradient<T> + ?Sized>(
        &mut self,
        iterations: u64,
        scheduler: &mut BatchScheduler,
        model: &mut M,
    ) -> Result<RunSummary<SvgdInfo>, RunError<SvgdInfo>> {
        let fail = |error| RunError {
            error,
            partial: RunSummary::EMPTY,
        };
        scheduler
            .check(self.core.n, self.core.config())
            .map_err(fail)?;
        run_iterations(iterations, || {
            self.core.set_batch_size(scheduler.batch_size())?;
            let info = self.step(model)?;
            scheduler.observe(&info);
            Ok(info)
        })
    }
}
