//! What every sampler's `run` means: one loop, one summary, one error.
//!
//! A run is a sequence of `step`s. It stops at the first error; the error keeps the totals of the
//! iterations that completed before it ([`RunError::partial`]), and the failed step itself changed
//! nothing (every sampler's `step` is all-or-nothing). A run of zero iterations succeeds and does
//! nothing ([`RunSummary::last`] is `None`). The C functions `sgs_…_run` are built on the same
//! loops, so Rust and C report the same numbers for the same calls.

use crate::error::Error;
use crate::float::Float;

/// How one iteration of a chain sampler ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Outcome {
    /// The proposal was accepted (for samplers without an accept test: the trajectory was kept).
    Accepted = 0,
    /// The Metropolis–Hastings test rejected the proposal (AMAGOLD and TunaMH).
    Rejected = 1,
    /// A callback said the trajectory left the domain: the iteration was discarded.
    OutOfDomain = 2,
    /// A value became non-finite (energy, ρ, gradient or new position): the iteration was
    /// discarded and counted as a divergence.
    Divergent = 3,
}

/// What every iteration record can report to the run loop.
pub trait StepInfo: Copy {
    /// How the iteration ended.
    fn outcome(&self) -> Outcome;
}

/// Totals of a run (or, inside a [`RunError`], of the part that completed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSummary<I> {
    /// Iterations completed. For a chain, rows `0..iterations` of the output hold their samples.
    pub iterations: u64,
    /// Iterations whose outcome was [`Outcome::Accepted`].
    pub accepted: u64,
    /// Iterations whose outcome was [`Outcome::Divergent`].
    pub divergences: u64,
    /// The record of the last completed iteration; `None` when none completed.
    pub last: Option<I>,
}

impl<I: StepInfo> RunSummary<I> {
    /// No iteration yet.
    pub const EMPTY: Self = RunSummary {
        iterations: 0,
        accepted: 0,
        divergences: 0,
        last: None,
    };

    fn record(&mut self, info: I) {
        self.iterations += 1;
        self.accepted += (info.outcome() == Outcome::Accepted) as u64;
        self.divergences += (info.outcome() == Outcome::Divergent) as u64;
        self.last = Some(info);
    }
}

/// A run that stopped early.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunError<I> {
    /// Why it stopped.
    pub error: Error,
    /// The totals of the iterations completed before it stopped (their output rows are valid).
    pub partial: RunSummary<I>,
}

impl<I> RunError<I> {
    /// Iterations completed before the error (`partial.iterations`).
    pub fn completed(&self) -> u64 {
        self.partial.iterations
    }
}

/// The chain run loop: calls `step_into(row)` for each row of `d` values of `out` in order; the
/// closure runs one iteration and writes the new position into the row.
pub(crate) fn run_rows<T: Float, I: StepInfo>(
    d: usize,
    out: &mut [T],
    mut step_into: impl FnMut(&mut [T]) -> Result<I, Error>,
) -> Result<RunSummary<I>, RunError<I>> {
    let mut summary = RunSummary::EMPTY;
    if d == 0 || !out.len().is_multiple_of(d) {
        return Err(RunError {
            error: Error::LengthMismatch,
            partial: summary,
        });
    }
    let mut rest = out;
    // Checked splits, not `chunks_exact_mut`: no panic path in the library.
    while let Some((row, tail)) = rest.split_at_mut_checked(d) {
        match step_into(row) {
            Ok(info) => summary.record(info),
            Err(error) => {
                return Err(RunError {
                    error,
                    partial: summary,
                })
            }
        }
        rest = tail;
    }
    Ok(summary)
}

/// The run loop of samplers without output rows (SVGD): `n` calls of `step`.
pub(crate) fn run_iterations<I: StepInfo>(
    n: u64,
    mut step: impl FnMut() -> Result<I, Error>,
) -> Result<RunSummary<I>, RunError<I>> {
    let mut summary = RunSummary::EMPTY;
    for _ in 0..n {
        match step() {
            Ok(info) => summary.record(info),
            Err(error) => {
                return Err(RunError {
                    error,
                    partial: summary,
                })
            }
        }
    }
    Ok(summary)
}
