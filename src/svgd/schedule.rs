//! A growing batch size for RBM-SVGD (docs/algorithms.md §2.6): start with a small p, where an
//! iteration is cheap and its noise does not matter yet, and raise p as the particles settle.
//!
//! A [`BatchScheduler`] is plain data that chooses p before each iteration and looks at the
//! iteration's [`SvgdInfo`] after it; [`Svgd::run_scheduled`](super::Svgd::run_scheduled) and
//! `sgs_svgd_run_scheduled` drive it. It draws no random numbers, and an SVGD iteration without
//! replacement draws the same numbers whatever p is (the seed, then N − 1 bounded integers for
//! the permutation), so a scheduled run consumes the generator exactly as a fixed-p run does;
//! only the cut of the permutation into batches changes.

use super::config::{Batching, SvgdConfig, SvgdInfo};
use super::ksd::KsdChoice;
use crate::error::Error;

/// How the batch size grows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchSchedule {
    /// `p = min(N, start·2^⌊k/every⌋)` for the scheduler's k-th iteration, k = 0, 1, ….
    Doubling {
        /// The first batch size, `2 ≤ start ≤ N`.
        start: usize,
        /// Iterations between doublings, ≥ 1.
        every: u64,
    },
    /// Start at `start`; after every `window` iterations compare the mean of the iterations'
    /// [`SvgdInfo::ksd_squared`] over the window with the previous window's mean, and double p
    /// (up to N) unless it fell by at least the fraction `min_decrease`. Needs the KSD switched on
    /// ([`SvgdConfig::ksd`]; the batch estimate is the cheap one: its mean does not depend on p,
    /// so windows before and after a raise compare fairly). Exactly: at the end of window
    /// w ≥ 2, p doubles unless `mean_w < (1 − min_decrease)·mean_{w−1}` (a NaN mean counts as
    /// not falling); the first window never raises p, nor does the window after a NaN mean.
    KsdDriven {
        /// The first batch size, `2 ≤ start ≤ N`.
        start: usize,
        /// Iterations per window, ≥ 1.
        window: u64,
        /// The relative fall per window below which p is doubled, in `[0, 1)`.
        min_decrease: f64,
    },
}

/// The state of a schedule for one particle system (plain data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchScheduler {
    schedule: BatchSchedule,
    n: usize,
    p: usize,
    seen: u64,
    sum: f64,
    prev: f64,
}

impl BatchScheduler {
    /// A scheduler for N = `n` particles. Errors: [`Error::InvalidBatchSize`] (`start` outside
    /// `2..=n`), [`Error::InvalidArgument`] (`every` or `window` 0, `min_decrease` outside
    /// `[0, 1)`).
    pub fn new(schedule: BatchSchedule, n: usize) -> Result<Self, Error> {
        let start = match schedule {
            BatchSchedule::Doubling { start, every } => {
                if every == 0 {
                    return Err(Error::InvalidArgument);
                }
                start
            }
            BatchSchedule::KsdDriven {
                start,
                window,
                min_decrease,
            } => {
                if window == 0 || !(0.0..1.0).contains(&min_decrease) {
                    return Err(Error::InvalidArgument);
                }
                start
            }
        };
        if start < 2 || start > n {
            return Err(Error::InvalidBatchSize);
        }
        Ok(BatchScheduler {
            schedule,
            n,
            p: start,
            seen: 0,
            sum: 0.0,
            prev: f64::NAN,
        })
    }

    /// The batch size for the next iteration.
    pub fn batch_size(&self) -> usize {
        self.p
    }

    /// The schedule.
    pub fn schedule(&self) -> &BatchSchedule {
        &self.schedule
    }

    /// Whether a system of `n` particles under `cfg` can follow this schedule:
    /// [`Error::InvalidBatchSize`] (made for another N), [`Error::InvalidOption`] (with
    /// replacement, or KSD-driven with the KSD off).
    pub fn check<K>(&self, n: usize, cfg: &SvgdConfig<K>) -> Result<(), Error> {
        if n != self.n {
            return Err(Error::InvalidBatchSize);
        }
        let needs_ksd = matches!(self.schedule, BatchSchedule::KsdDriven { .. });
        if cfg.batching != Batching::WithoutReplacement || (needs_ksd && cfg.ksd == KsdChoice::Off)
        {
            return Err(Error::InvalidOption);
        }
        Ok(())
    }

    /// Records a completed iteration and chooses the next batch size.
    pub fn observe(&mut self, info: &SvgdInfo) {
        self.seen += 1;
        match self.schedule {
            BatchSchedule::Doubling { start, every } => {
                // `every ≥ 1` (checked in `new`); checked_div keeps a panic path out of the library.
                let doublings = self.seen.checked_div(every).unwrap_or(0);
                let mut p = start;
                for _ in 0..doublings {
                    if p >= self.n {
                        break;
                    }
                    p = p.saturating_mul(2);
                }
                self.p = p.min(self.n);
            }
            BatchSchedule::KsdDriven {
                window,
                min_decrease,
                ..
            } => {
                self.sum += info.ksd_squared;
                if self.seen.is_multiple_of(window) {
                    let mean = self.sum / window as f64;
                    // NaN (first window) compares false: no raise. A mean that is not below
                    // (1 − δ)·previous (a NaN one included) has stopped falling.
                    let fell = mean < (1.0 - min_decrease) * self.prev;
                    let stalled = !fell && !self.prev.is_nan();
                    if stalled {
                        self.p = self.p.saturating_mul(2).min(self.n);
                    }
                    self.prev = mean;
                    self.sum = 0.0;
                }
            }
        }
    }
}
