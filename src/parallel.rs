//! Runs on several threads (feature `parallel`: std + rayon), with the serial bits.
//!
//! * [`Svgd::step_parallel`] / [`Svgd::run_parallel`]: an SVGD iteration's batches on the rayon
//!   pool, through the phases of [`svgd`](crate::svgd) ("Phases"): bit-identical to
//!   [`Svgd::step`] whatever the number of threads.
//! * [`run_chains`]: `k` independent chains of AMAGOLD, SGHMC or SGLD on streams `0..k`, one
//!   rayon task each, with per-chain samples and pooled summaries ([`Pooled`]). Chain `s` is
//!   exactly the serial run with `stream = s`.
//!
//! Rayon (the ecosystem's standard work-stealing pool) is used because its pool is shared with
//! whatever else the program runs in parallel, instead of the library spawning threads of its
//! own; it is only linked with this feature.

use crate::chain::{Chain, ChainStep};
use crate::error::Error;
use crate::float::Float;
use crate::model::Gradient;
use crate::run::{RunError, RunSummary};
use crate::svgd::{Kernel, Svgd, SvgdInfo};
use crate::{AmagoldConfig, SghmcConfig, SgldConfig};
use rayon::prelude::*;

impl<'a, T, K> Svgd<'a, T, K>
where
    T: Float + Send + Sync,
    K: Kernel<T> + Clone + Sync,
    K::Prepared: Sync,
{
    /// One iteration with its batches spread over the rayon pool (a few pieces per thread; each
    /// piece evaluates its slots' gradients with its own clone of `model`, then its batches'
    /// forces). The same bits as [`step`](Svgd::step) for any pool size. With replacement (whose
    /// sub-steps are sequential) it is `step`. On error nothing changed; when several pieces
    /// fail, the error of the first in batch order is returned.
    pub fn step_parallel<M: Gradient<T> + Clone + Send + Sync>(
        &mut self,
        model: &M,
    ) -> Result<SvgdInfo, Error> {
        if self.config().batching != crate::Batching::WithoutReplacement {
            return self.step(&mut model.clone());
        }
        let mut it = self.begin()?;
        let per = it
            .num_batches()
            .div_ceil(4 * rayon::current_num_threads())
            .max(1);
        let pieces: Vec<_> = it.pieces(per)?.collect();
        let results: Vec<Result<u64, Error>> = pieces
            .into_par_iter()
            .map_init(|| model.clone(), |m, piece| piece.run(m))
            .collect();
        if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
            return Err(e); // dropping `it` cancels the iteration
        }
        it.finish()
    }

    /// `iterations` iterations of [`step_parallel`](Self::step_parallel). On error,
    /// [`RunError::partial`] has the totals of the iterations that completed.
    pub fn run_parallel<M: Gradient<T> + Clone + Send + Sync>(
        &mut self,
        iterations: u64,
        model: &M,
    ) -> Result<RunSummary<SvgdInfo>, RunError<SvgdInfo>> {
        crate::run::run_iterations(iterations, || self.step_parallel(model))
    }
}

/// A chain configuration whose generator stream can be set (the runner gives chain `s` the
/// stream `s`).
pub trait StreamConfig: Copy {
    /// The configuration with `stream` replaced.
    fn with_stream(self, stream: u64) -> Self;
}

macro_rules! stream_config {
    ($($C:ty),*) => {$(
        impl StreamConfig for $C {
            fn with_stream(self, stream: u64) -> Self {
                Self { stream, ..self }
            }
        }
    )*};
}
stream_config!(AmagoldConfig, SghmcConfig, SgldConfig);

/// What [`run_chains`] returns.
#[derive(Clone, Debug)]
pub struct MultiChain<T, I> {
    /// Chain `s`'s samples (stream `s`): `iterations` rows of `d` values.
    pub samples: Vec<Vec<T>>,
    /// Chain `s`'s run totals (acceptances, divergences, last info).
    pub summaries: Vec<RunSummary<I>>,
    /// Summaries of all chains together.
    pub pooled: Pooled,
}

/// Pooled per-coordinate summaries of several equally long chains, in `f64`, every sum in chain
/// order then row order.
#[derive(Clone, Debug, PartialEq)]
pub struct Pooled {
    /// Mean of every sample of every chain.
    pub mean: Vec<f64>,
    /// Variance of every sample of every chain (divisor: the sample count − 1).
    pub variance: Vec<f64>,
    /// Split R-hat (Gelman et al.): each chain cut into two halves (the middle row dropped when
    /// the count is odd), `sqrt(((n−1)/n·W + B/n) / W)` with n the half length, W the mean
    /// within-half variance and B/n the variance of the half means. NaN with fewer than 4 rows
    /// per chain or W = 0.
    pub split_rhat: Vec<f64>,
}

impl Pooled {
    /// The summaries of `chains` (each `rows·d` values, the same `rows` for all). Errors:
    /// [`Error::ZeroDimension`] (`d = 0`), [`Error::LengthMismatch`] (a chain's length not a
    /// multiple of d, or not the first chain's). No chain, or one sample in all, gives NaN
    /// variances (and means, without samples).
    pub fn of<T: Float>(chains: &[Vec<T>], d: usize) -> Result<Pooled, Error> {
        if d == 0 {
            return Err(Error::ZeroDimension);
        }
        let len = chains.first().map_or(0, |c| c.len());
        if chains.iter().any(|c| c.len() != len) || !len.is_multiple_of(d) {
            return Err(Error::LengthMismatch);
        }
        let rows = len / d;
        let count = (rows * chains.len()) as f64;
        // In bounds: every chain holds rows·d values, r < rows, l < d.
        let at = |c: &Vec<T>, r: usize, l: usize| c[r * d + l].to_f64();
        let mut mean = vec![0.0; d];
        let mut variance = vec![0.0; d];
        let mut split_rhat = vec![f64::NAN; d];
        for l in 0..d {
            let mut s = 0.0;
            for c in chains {
                for r in 0..rows {
                    s += at(c, r, l);
                }
            }
            let m = s / count;
            let mut v = 0.0;
            for c in chains {
                for r in 0..rows {
                    let e = at(c, r, l) - m;
                    v += e * e;
                }
            }
            mean[l] = m;
            variance[l] = if count >= 2.0 {
                v / (count - 1.0)
            } else {
                f64::NAN
            };
            let n = rows / 2;
            if n < 2 {
                continue;
            }
            // The halves: rows 0..n and rows−n..rows of every chain.
            let (mut means, mut within) = (Vec::new(), 0.0);
            for c in chains {
                for start in [0, rows - n] {
                    let hm = (start..start + n).map(|r| at(c, r, l)).sum::<f64>() / n as f64;
                    let hv = (start..start + n)
                        .map(|r| (at(c, r, l) - hm).powi(2))
                        .sum::<f64>()
                        / (n - 1) as f64;
                    means.push(hm);
                    within += hv;
                }
            }
            let k = means.len() as f64;
            let w = within / k;
            let mm = means.iter().sum::<f64>() / k;
            let b_over_n = means.iter().map(|x| (x - mm).powi(2)).sum::<f64>() / (k - 1.0);
            let nf = n as f64;
            split_rhat[l] = (((nf - 1.0) / nf * w + b_over_n) / w).sqrt();
        }
        Ok(Pooled {
            mean,
            variance,
            split_rhat,
        })
    }
}

/// One chain's samples and totals, or why it stopped.
type ChainResult<T, I> = Result<(Vec<T>, RunSummary<I>), Error>;

/// Runs `chains` chains of the sampler `C` (e.g. `AmagoldCore`, `SghmcCore`, `SgldCore`) from
/// `theta0` for `iterations` iterations each, chain `s` on stream `s` of `config.seed`, one rayon
/// task per chain (each with its own clone of `model`). Chain `s` is bit for bit the serial run
/// with `stream = s`. On error (a start or a run that failed), the error of the first failing
/// chain in stream order.
pub fn run_chains<T, C, M>(
    config: &C::Config,
    theta0: &[T],
    chains: usize,
    iterations: usize,
    model: &M,
) -> Result<MultiChain<T, C::Info>, Error>
where
    T: Float + Send + Sync,
    C: ChainStep<T, M> + Send,
    C::Config: StreamConfig + Sync,
    C::Info: Send,
    M: Clone + Send + Sync,
{
    let d = theta0.len();
    let per_chain: Vec<ChainResult<T, C::Info>> = (0..chains)
        .into_par_iter()
        .map(|s| {
            let cfg = config.with_stream(s as u64);
            let mut model = model.clone();
            let mut ws = vec![T::ZERO; C::workspace_len_for(&cfg, d)];
            let mut chain = Chain::<T, C>::start(&cfg, theta0, &mut ws, &mut model)?;
            let mut out = vec![T::ZERO; iterations.saturating_mul(d)];
            let summary = chain.run(&mut model, &mut out).map_err(|e| e.error)?;
            Ok((out, summary))
        })
        .collect();
    let mut samples = Vec::with_capacity(chains);
    let mut summaries = Vec::with_capacity(chains);
    for r in per_chain {
        let (out, summary) = r?;
        samples.push(out);
        summaries.push(summary);
    }
    let pooled = Pooled::of(&samples, d)?;
    Ok(MultiChain {
        samples,
        summaries,
        pooled,
    })
}
