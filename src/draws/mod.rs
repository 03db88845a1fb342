//! Convergence diagnostics of **stored draws**: the rank-normalised split-R̂, bulk- and tail-ESS
//! and Monte Carlo standard errors of Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), the
//! defaults of ArviZ, Stan and `posterior`, computed the way ArviZ 0.23 computes them, plus a
//! one-call verdict over all coordinates ([`diagnose`]).
//!
//! [`crate::stats`] watches a chain without storing it; this module needs the draws the caller
//! kept (ranks, quantiles and folding need all of them at once), in the layout sgsample's runs
//! write: `(chains, draws, dim)` row-major — chain after chain, draw after draw, the `dim`
//! coordinates of a draw together ([`Shape`]). Draws are `f32` or `f64`; everything is computed
//! in `f64` (an `f32` draw is widened exactly). Nothing is allocated: the caller lends a scratch
//! of [`scratch_len`] `f64`s, and the draws are only read. Behind the `draws` cargo feature (on
//! by default, and in the C library).
//!
//! # What is computed, per coordinate ([`Summary`])
//!
//! With `m` chains of `n` draws, N = m·n, each chain is *split* into its first and last
//! `h = ⌊n/2⌋` draws (the middle draw of an odd `n` is left out), giving 2m chains of h draws:
//!
//! * `mean`, `sd` (n − 1 … N − 1 in the denominator) and the quantiles `q5`, `q50`, `q95` of all
//!   N draws (numpy's default linear interpolation);
//! * `ess_bulk`: the ESS of the *normal scores* of the split chains: the pooled split draws are
//!   ranked (ties get their average rank), a rank r among S = 2m·h becomes
//!   Φ⁻¹((r − 3/8)/(S + 1/4)) (Blom), and the ESS of these z-values is Geyer's initial monotone
//!   sequence estimate over the 2m chains;
//! * `ess_tail`: the smaller of the ESS of the indicators `x ≤ q` for the 5 % and 95 %
//!   quantiles q (R's type-7 quantile of all N draws), split;
//! * `ess_mean`: the ESS of the split draws themselves; `mcse_mean = sd/√ess_mean`;
//! * `mcse_sd`: from the ESS of the split squared deviations `(x − mean)²` (ArviZ's formula);
//! * `mcse_q5`, `mcse_q50`, `mcse_q95`: half the distance between the draws at the ranks that
//!   the 15.9 % and 84.1 % quantiles of Beta(ESS·p + 1, ESS·(1 − p) + 1) point to, ESS being that
//!   of the indicator `x ≤ q_p` (ArviZ's `_mcse_quantile`);
//! * `rhat_bulk`: split-R̂ of the normal scores; `rhat_folded`: split-R̂ of the normal scores of
//!   the *folded* draws `|x − median|` (median of the split draws); `rhat = max(rhat_bulk,
//!   rhat_folded)`, the rank-normalised split-R̂; `rhat_split`: the classic split-R̂ of the
//!   draws themselves.
//!
//! ArviZ's conventions are kept, NaN cases included: every R̂ is NaN for one chain (ArviZ asks
//! for two); an ESS of a constant series is its size (so constant draws have ESS = N and NaN
//! R̂); τ̂ is floored at 1/log₁₀(S); `rhat` is Python's `max(bulk, folded)` (a NaN folded R̂
//! leaves the bulk one) and `ess_tail` Python's `min(low, high)`. docs/algorithms.md §4.6 writes
//! every estimator out as computed.
//!
//! # Refused input
//!
//! No chain or no coordinate ([`Error::ZeroDimension`]), a draw slice that is not
//! chains·draws·dim long ([`Error::LengthMismatch`]), fewer than [`MIN_DRAWS`] draws per chain
//! ([`Error::TooFewDraws`]: the split chains would hold fewer than two draws, and neither a
//! within-chain variance nor a lag-1 autocovariance exists — exactly ArviZ's `min_draws = 4` on
//! the unsplit chains), a short scratch ([`Error::WorkspaceTooSmall`]), a short output
//! ([`Error::OutputTooSmall`]), a NaN or infinite draw ([`Error::NonFiniteDraws`]); sizes that
//! overflow are [`Error::InvalidArgument`]. Checked in that order before anything is written.
//!
//! # Cost
//!
//! Per coordinate: one merge sort of the N draws (O(N log N)), two passes of normal scores
//! (O(N) quantile evaluations), and six ESS (bulk, three quantile indicators, mean, squared
//! deviations), each by FFT over the 2m split chains, two chains per complex transform of
//! length M (the smallest power of two ≥ 2h): O(m·M log M), whatever the chains' mixing — a
//! chain that never decorrelates costs what one that does. The scratch is
//! `4N + 2m·h + 4M + h` values. Sums run in index order, transcendental functions go through
//! `libm`: the same bits on every target.
//!
//! ```
//! use sgsample::draws::{self, Shape, Summary};
//!
//! // 4 chains of 1000 draws of 2 coordinates, from a deterministic AR(1)-like recursion.
//! let (chains, n, dim) = (4, 1000, 2);
//! let mut x = vec![0.0f64; chains * n * dim];
//! let mut state = 42u64;
//! for c in 0..chains {
//!     let mut y = [0.0f64; 2];
//!     for t in 0..n {
//!         for (j, yj) in y.iter_mut().enumerate() {
//!             // A centred sum of uniforms (close to a normal), for the example only.
//!             let mut e = -6.0;
//!             for _ in 0..12 {
//!                 state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
//!                 e += (state >> 11) as f64 / (1u64 << 53) as f64;
//!             }
//!             *yj = 0.3 * *yj + e;
//!             x[(c * n + t) * dim + j] = *yj;
//!         }
//!     }
//! }
//! let shape = Shape::new(chains, n, dim);
//! let mut scratch = vec![0.0; draws::scratch_len(chains, n).unwrap()];
//! let mut out = [Summary::default(); 2];
//! draws::summary(&x, shape, &mut scratch, &mut out)?;
//! assert!(out[0].rhat < 1.01 && out[0].ess_bulk > 1000.0, "{:?}", out[0]);
//! let verdict = draws::diagnose(&out, chains, 0)?;
//! assert!(verdict.ok(), "{verdict:?}");
//! // A chain stuck elsewhere is seen.
//! for v in &mut x[..n * dim] {
//!     *v += 3.0;
//! }
//! draws::summary(&x, shape, &mut scratch, &mut out)?;
//! let verdict = draws::diagnose(&out, chains, 0)?;
//! assert!(!verdict.ok() && verdict.flags & draws::SUSPECT_RHAT != 0);
//! # Ok::<(), sgsample::Error>(())
//! ```

mod fft;
mod sort;
mod special;

use crate::error::Error;
use crate::float::Float;
use fft::{add_autocovariances, chain_mean, fft_len, twiddles};
use sort::{pieces, pieces_mut, sort_pairs};

/// The fewest draws per chain the estimators accept (two per split chain).
pub const MIN_DRAWS: usize = 4;

/// The verdict's R̂ bound: every coordinate's rank-normalised split-R̂ must be below it (Vehtari
/// et al. 2021: 1.01).
pub const RHAT_MAX: f64 = 1.01;

/// The verdict's ESS bound per chain: every bulk- and tail-ESS must be at least this many times
/// the number of chains (Vehtari et al. 2021; `posterior`'s guidance: 100 per chain).
pub const ESS_PER_CHAIN: f64 = 100.0;

/// Verdict flag: a rank-normalised R̂ is at or above [`RHAT_MAX`] (or infinite).
pub const SUSPECT_RHAT: u32 = 1;
/// Verdict flag: a bulk-ESS is below [`ESS_PER_CHAIN`] times the chains.
pub const SUSPECT_ESS_BULK: u32 = 2;
/// Verdict flag: a tail-ESS is below [`ESS_PER_CHAIN`] times the chains.
pub const SUSPECT_ESS_TAIL: u32 = 4;
/// Verdict flag: the caller counted divergent transitions after warm-up.
pub const SUSPECT_DIVERGENCES: u32 = 8;
/// Verdict flag: an R̂, bulk- or tail-ESS is NaN (one chain: R̂ needs two).
pub const SUSPECT_NOT_COMPUTABLE: u32 = 16;

/// The probabilities of the quantile MCSE's beta quantiles (Φ(−1) and Φ(1) to 7 digits, as
/// ArviZ writes them).
const MCSE_PROBS: (f64, f64) = (0.158_655_3, 0.841_344_7);
/// The tail-ESS's quantiles.
const TAIL: (f64, f64) = (0.05, 0.95);
/// ArviZ's "constant" test: a series whose range is below this (`np.finfo(float).resolution`)
/// has ESS equal to its size.
const RESOLUTION: f64 = 1e-15;
/// Positions are kept in the `f64` scratch: exact below 2⁵³.
const MAX_TOTAL: u64 = 1 << 53;

/// The shape of stored draws: `chains` chains of `draws` draws of `dim` coordinates, row-major
/// (the value of coordinate j of draw t of chain c at `(c·draws + t)·dim + j`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of chains (≥ 1).
    pub chains: usize,
    /// Draws per chain (≥ [`MIN_DRAWS`]).
    pub draws: usize,
    /// Coordinates per draw (≥ 1).
    pub dim: usize,
}

impl Shape {
    /// `chains` chains of `draws` draws of `dim` coordinates.
    pub const fn new(chains: usize, draws: usize, dim: usize) -> Shape {
        Shape { chains, draws, dim }
    }
}

/// The diagnostics of one coordinate (see the module documentation for each estimator).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Mean of all draws.
    pub mean: f64,
    /// Standard deviation of all draws (N − 1 in the denominator).
    pub sd: f64,
    /// Monte Carlo standard error of the mean, `sd/√ess_mean` (ArviZ `mcse(method="mean")`).
    pub mcse_mean: f64,
    /// Monte Carlo standard error of the sd (ArviZ `mcse(method="sd")`).
    pub mcse_sd: f64,
    /// 5 % quantile of all draws (linear interpolation).
    pub q5: f64,
    /// Median of all draws.
    pub q50: f64,
    /// 95 % quantile of all draws.
    pub q95: f64,
    /// Monte Carlo standard error of the 5 % quantile (ArviZ `mcse(method="quantile")`).
    pub mcse_q5: f64,
    /// Monte Carlo standard error of the median.
    pub mcse_q50: f64,
    /// Monte Carlo standard error of the 95 % quantile.
    pub mcse_q95: f64,
    /// Bulk-ESS: of the normal scores of the split chains (ArviZ `ess(method="bulk")`).
    pub ess_bulk: f64,
    /// Tail-ESS: the smaller ESS of the 5 % and 95 % quantile indicators (`method="tail"`).
    pub ess_tail: f64,
    /// ESS of the mean: of the split draws themselves (`method="mean"`).
    pub ess_mean: f64,
    /// Rank-normalised split-R̂, `max(rhat_bulk, rhat_folded)` (ArviZ `rhat(method="rank")`);
    /// NaN for one chain.
    pub rhat: f64,
    /// Split-R̂ of the normal scores (`method="z_scale"`).
    pub rhat_bulk: f64,
    /// Split-R̂ of the normal scores of the folded draws (`method="folded"`).
    pub rhat_folded: f64,
    /// The classic split-R̂ of the draws (`method="split"`).
    pub rhat_split: f64,
    /// This coordinate's share of the verdict: the `SUSPECT_…` flags its R̂, bulk- and tail-ESS
    /// raise against the thresholds for its number of chains (never [`SUSPECT_DIVERGENCES`]).
    pub flags: u32,
}

/// The one-call verdict of [`diagnose`]: OK when [`flags`](Self::flags) is 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The `SUSPECT_…` reasons, or-ed; 0 means OK.
    pub flags: u32,
    /// The largest rank-normalised R̂ (NaN if none is computable) …
    pub worst_rhat: f64,
    /// … and its coordinate (the first one; 0 when `worst_rhat` is NaN).
    pub worst_rhat_coord: usize,
    /// The smallest bulk-ESS (NaN if none is computable) …
    pub min_ess_bulk: f64,
    /// … and its coordinate.
    pub min_ess_bulk_coord: usize,
    /// The smallest tail-ESS (NaN if none is computable) …
    pub min_ess_tail: f64,
    /// … and its coordinate.
    pub min_ess_tail_coord: usize,
    /// The ESS bound applied: [`ESS_PER_CHAIN`] × chains.
    pub ess_threshold: f64,
    /// How many coordinates have a NaN R̂, bulk- or tail-ESS …
    pub not_computable: usize,
    /// … and the first of them (0 when there is none).
    pub first_not_computable: usize,
    /// The divergences the caller reported.
    pub divergences: u64,
}

impl Verdict {
    /// `true` when no flag is raised.
    pub fn ok(&self) -> bool {
        self.flags == 0
    }
}

/// The sizes every step works with, from a validated shape.
#[derive(Clone, Copy, Debug)]
struct Dims {
    chains: usize,
    n: usize,
    dim: usize,
    /// Draws per split chain.
    half: usize,
    /// Split chains (2·chains).
    splits: usize,
    /// All draws of a coordinate (chains·n).
    total: usize,
    /// Split draws of a coordinate (splits·half).
    split_total: usize,
    /// FFT length.
    m: usize,
    /// Scratch values needed.
    scratch: usize,
}

impl Dims {
    fn new(chains: usize, n: usize, dim: usize) -> Option<Dims> {
        if chains == 0 || n == 0 {
            return None;
        }
        let half = n / 2;
        let splits = chains.checked_mul(2)?;
        let total = chains.checked_mul(n)?;
        if total as u64 > MAX_TOTAL {
            return None;
        }
        let split_total = splits.checked_mul(half)?;
        let m = fft_len(half)?;
        let scratch = total
            .checked_mul(4)?
            .checked_add(split_total)?
            .checked_add(m.checked_mul(4)?)?
            .checked_add(half)?;
        Some(Dims {
            chains,
            n,
            dim,
            half,
            splits,
            total,
            split_total,
            m,
            scratch,
        })
    }
}

/// The scratch length (in `f64`s) the functions of this module need for `chains` chains of
/// `draws` draws, whatever the dimension: `4N + 2·chains·⌊draws/2⌋ + 4M + ⌊draws/2⌋` with
/// N = chains·draws and M the smallest power of two ≥ max(2·⌊draws/2⌋, 4). `None` when
/// `chains` or `draws` is 0, or when the size overflows (or N ≥ 2⁵³).
pub fn scratch_len(chains: usize, draws: usize) -> Option<usize> {
    Dims::new(chains, draws, 1).map(|d| d.scratch)
}

/// The caller's scratch, cut into the buffers of one coordinate's work.
struct Work<'s> {
    /// All N draws of the coordinate, then sorted.
    sv: &'s mut [f64],
    /// Their positions `c·n + t` (later: split positions), permuted alongside.
    si: &'s mut [f64],
    /// The second buffer of the sort, then the sorted split draws …
    tv: &'s mut [f64],
    /// … and their split positions.
    ti: &'s mut [f64],
    /// A series in the split layout (2m chains of h values).
    series: &'s mut [f64],
    /// The FFT buffer (2M).
    buf: &'s mut [f64],
    /// The twiddle factors (2M), filled on first use.
    tw: &'s mut [f64],
    /// Autocovariances, then autocorrelations, by lag (h).
    acov: &'s mut [f64],
    twiddles_ready: bool,
}

impl<'s> Work<'s> {
    fn new(scratch: &'s mut [f64], d: &Dims) -> Option<Work<'s>> {
        let (sv, rest) = scratch.split_at_mut_checked(d.total)?;
        let (si, rest) = rest.split_at_mut_checked(d.total)?;
        let (tv, rest) = rest.split_at_mut_checked(d.total)?;
        let (ti, rest) = rest.split_at_mut_checked(d.total)?;
        let (series, rest) = rest.split_at_mut_checked(d.split_total)?;
        let (buf, rest) = rest.split_at_mut_checked(2 * d.m)?;
        let (tw, rest) = rest.split_at_mut_checked(2 * d.m)?;
        let acov = rest.get_mut(..d.half)?;
        Some(Work {
            sv,
            si,
            tv,
            ti,
            series,
            buf,
            tw,
            acov,
            twiddles_ready: false,
        })
    }

    /// The ESS of the current `series`.
    fn ess(&mut self, d: &Dims) -> f64 {
        if !self.twiddles_ready {
            twiddles(self.tw, d.m);
            self.twiddles_ready = true;
        }
        ess(self.series, d, self.buf, self.tw, self.acov)
    }
}

/// Checks the arguments in the documented order and returns the sizes.
fn validate<T: Float>(
    x: &[T],
    shape: Shape,
    scratch_len: usize,
    out_len: usize,
    prob: Option<f64>,
) -> Result<Dims, Error> {
    let Shape { chains, draws, dim } = shape;
    if chains == 0 || dim == 0 {
        return Err(Error::ZeroDimension);
    }
    let len = chains
        .checked_mul(draws)
        .and_then(|v| v.checked_mul(dim))
        .ok_or(Error::InvalidArgument)?;
    if x.len() != len {
        return Err(Error::LengthMismatch);
    }
    if draws < MIN_DRAWS {
        return Err(Error::TooFewDraws);
    }
    let d = Dims::new(chains, draws, dim).ok_or(Error::InvalidArgument)?;
    if scratch_len < d.scratch {
        return Err(Error::WorkspaceTooSmall);
    }
    if out_len < dim {
        return Err(Error::OutputTooSmall);
    }
    if let Some(p) = prob {
        if !(p > 0.0 && p < 1.0) {
            return Err(Error::InvalidArgument);
        }
    }
    if !crate::float::all_finite(x) {
        return Err(Error::NonFiniteDraws);
    }
    Ok(d)
}

/// Draw `pos = c·n + t` of coordinate `j`, widened.
fn value<T: Float>(x: &[T], d: &Dims, j: usize, pos: usize) -> f64 {
    x.get(pos * d.dim + j).map_or(f64::NAN, |v| v.to_f64())
}

/// Loads coordinate `j` into `sv` (positions into `si`) and sorts it.
fn load_sorted<T: Float>(x: &[T], d: &Dims, j: usize, w: &mut Work) {
    for (pos, (v, i)) in w.sv.iter_mut().zip(w.si.iter_mut()).enumerate() {
        *v = value(x, d, j, pos);
        *i = pos as f64;
    }
    sort_pairs(w.sv, w.si, w.tv, w.ti);
}

/// Writes `f(draw)` for every draw of the split layout into `series`: split chain k < m is the
/// first h draws of chain k, split chain m + k the last h draws of chain k.
fn fill_split<T: Float>(x: &[T], d: &Dims, j: usize, series: &mut [f64], f: impl Fn(f64) -> f64) {
    for (k, row) in pieces_mut(series, d.half).enumerate() {
        let base = if k < d.chains {
            k * d.n
        } else {
            (k - d.chains) * d.n + (d.n - d.half)
        };
        for (t, s) in row.iter_mut().enumerate() {
            *s = f(value(x, d, j, base + t));
        }
    }
}

/// numpy's default (`linear`) quantile of sorted values, with its arithmetic: virtual index
/// (n − 1)·q, and `a + (b − a)·γ`, or `b − (b − a)·(1 − γ)` when γ ≥ ½.
fn quantile_linear(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    let last = sorted.last().copied().unwrap_or(f64::NAN);
    let vi = (n.saturating_sub(1)) as f64 * q;
    if vi >= (n.saturating_sub(1)) as f64 {
        return last;
    }
    let prev = libm::floor(vi);
    let gamma = vi - prev;
    let i = prev as usize;
    let (Some(&a), Some(&b)) = (sorted.get(i), sorted.get(i + 1)) else {
        return f64::NAN;
    };
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// R's type-7 quantile as `scipy.stats.mstats.mquantiles(alphap=1, betap=1)` computes it (the
/// threshold of ArviZ's quantile indicators): `aleph = n·p + (1 − p)`, `k = ⌊clip(aleph, 1,
/// n − 1)⌋`, `γ = clip(aleph − k, 0, 1)`, `(1 − γ)·x[k−1] + γ·x[k]`.
#[allow(clippy::manual_clamp)] // `clamp` asserts min ≤ max: a panic path for no gain here
fn quantile_type7(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len() as f64;
    let aleph = n * p + (1.0 - p);
    let k = libm::floor(aleph.max(1.0).min(n - 1.0));
    let gamma = (aleph - k).max(0.0).min(1.0);
    let i = k as usize;
    match (sorted.get(i.wrapping_sub(1)), sorted.get(i)) {
        (Some(&a), Some(&b)) => (1.0 - gamma) * a + gamma * b,
        _ => f64::NAN,
    }
}

/// The ESS of the indicator `x ≤ threshold` over the split draws.
fn indicator_ess<T: Float>(x: &[T], d: &Dims, j: usize, threshold: f64, w: &mut Work) -> f64 {
    fill_split(
        x,
        d,
        j,
        w.series,
        |v| if v <= threshold { 1.0 } else { 0.0 },
    );
    w.ess(d)
}

/// ArviZ's `_mcse_quantile` from the indicator ESS `ess` at `prob` and the sorted draws.
fn mcse_quantile_of(sorted: &[f64], ess: f64, prob: f64) -> f64 {
    let a = ess * prob + 1.0;
    let b = ess * (1.0 - prob) + 1.0;
    let size = sorted.len() as f64;
    let lo = special::beta_quantile(MCSE_PROBS.0, a, b) * size - 1.0;
    let hi = special::beta_quantile(MCSE_PROBS.1, a, b) * size - 1.0;
    // np.nanmax((lo, 0)) and np.nanmin((hi, size − 1)): a NaN gives way to the bound.
    let lo = if lo.is_nan() { 0.0 } else { lo.max(0.0) };
    let hi = if hi.is_nan() {
        size - 1.0
    } else {
        hi.min(size - 1.0)
    };
    let (i1, i2) = (libm::floor(lo) as usize, libm::ceil(hi) as usize);
    match (sorted.get(i1), sorted.get(i2)) {
        (Some(&t1), Some(&t2)) => (t2 - t1) / 2.0,
        _ => f64::NAN,
    }
}

/// The ESS at quantile `prob` and its MCSE, from the sorted draws in `w.sv`.
fn quantile_ess_and_mcse<T: Float>(
    x: &[T],
    d: &Dims,
    j: usize,
    prob: f64,
    w: &mut Work,
) -> (f64, f64) {
    let threshold = quantile_type7(w.sv, prob);
    let ess = indicator_ess(x, d, j, threshold, w);
    (ess, mcse_quantile_of(w.sv, ess, prob))
}

/// Python's `max(a, b)`: `b` only when `b > a` (so a NaN `a` stays, a NaN `b` gives `a`).
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Python's `min(a, b)`.
fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Mean and sample variance (ddof 1) of the chain means of `series`, two passes, chain order.
fn chain_means_var(series: &[f64], d: &Dims) -> f64 {
    let k = d.splits as f64;
    let mm = pieces(series, d.half).map(chain_mean).sum::<f64>() / k;
    pieces(series, d.half)
        .map(|c| {
            let e = chain_mean(c) - mm;
            e * e
        })
        .sum::<f64>()
        / (k - 1.0)
}

/// Split-R̂ (Gelman et al.) of the 2m chains of `series`: `√((B/W + h − 1)/h)` with
/// B = h·Var(chain means) and W the mean within-chain variance (ddof 1 both).
fn rhat(series: &[f64], d: &Dims) -> f64 {
    let h = d.half as f64;
    let between = h * chain_means_var(series, d);
    let within = pieces(series, d.half)
        .map(|c| {
            let mean = chain_mean(c);
            c.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / (h - 1.0)
        })
        .sum::<f64>()
        / d.splits as f64;
    libm::sqrt((between / within + h - 1.0) / h)
}

/// ArviZ's `_ess` over the 2m chains of `series`: Geyer's initial positive sequence, made
/// monotone, over the mean autocorrelations (docs/algorithms.md §4.6).
fn ess(series: &[f64], d: &Dims, buf: &mut [f64], tw: &[f64], rho: &mut [f64]) -> f64 {
    let size = d.split_total as f64;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &v in series {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if hi - lo < RESOLUTION {
        return size;
    }
    for a in rho.iter_mut() {
        *a = 0.0;
    }
    add_autocovariances(series, d.half, buf, tw, d.m, rho);
    let k = d.splits as f64;
    let n = d.half as f64;
    let mean_acov = |s: f64| s / k;
    let mean_var = mean_acov(rho.first().copied().unwrap_or(f64::NAN)) * n / (n - 1.0);
    let var_plus = mean_var * (n - 1.0) / n + chain_means_var(series, d);
    let at = |rho: &[f64], i: usize| rho.get(i).copied().unwrap_or(f64::NAN);
    let put = |rho: &mut [f64], i: usize, v: f64| {
        if let Some(r) = rho.get_mut(i) {
            *r = v;
        }
    };
    let corr = |acov: f64| 1.0 - (mean_var - mean_acov(acov)) / var_plus;
    // ρ₀ = 1, ρ₁; then pairs (ρ_{t+1}, ρ_{t+2}) for t = 1, 3, … while the previous pair's sum is
    // positive; a pair is stored when its own sum is ≥ 0 (else its entries are 0).
    let rho1 = corr(at(rho, 1));
    put(rho, 0, 1.0);
    put(rho, 1, rho1);
    let (mut even, mut odd) = (1.0f64, rho1);
    let mut t = 1usize;
    while t + 3 < d.half && even + odd > 0.0 {
        even = corr(at(rho, t + 1));
        odd = corr(at(rho, t + 2));
        let keep = even + odd >= 0.0;
        put(rho, t + 1, if keep { even } else { 0.0 });
        put(rho, t + 2, if keep { odd } else { 0.0 });
        t += 2;
    }
    // max_t = t − 2 (−1 when no pair was examined); the entry after it counts once.
    let tail = t - 1;
    if even > 0.0 {
        put(rho, tail, even);
    }
    // Geyer's initial monotone sequence over the pairs up to max_t.
    let mut s = 1usize;
    while s + 3 <= t {
        let previous = at(rho, s - 1) + at(rho, s);
        if at(rho, s + 1) + at(rho, s + 2) > previous {
            put(rho, s + 1, previous / 2.0);
            put(rho, s + 2, previous / 2.0);
        }
        s += 2;
    }
    let body: f64 = rho.iter().take(tail).sum();
    let nan = rho.iter().take(t + 1).any(|r| r.is_nan());
    let tau = -1.0 + 2.0 * body + at(rho, tail);
    let tau = py_max(tau, 1.0 / libm::log10(size));
    if nan {
        return f64::NAN;
    }
    size / tau
}

/// Moments of all N draws, in layout order: the mean (shifted by the first draw, with one
/// correction pass: exact for constant draws), the sd
/// (ddof 1), and the means of `(x − mean)²` and of its square (for the sd's MCSE).
fn moments<T: Float>(x: &[T], d: &Dims, j: usize) -> (f64, f64, f64, f64) {
    let nf = d.total as f64;
    let draw = |pos: usize| value(x, d, j, pos);
    let first = draw(0);
    let mean0 = first + (0..d.total).map(|p| draw(p) - first).sum::<f64>() / nf;
    let mean = mean0 + (0..d.total).map(|p| draw(p) - mean0).sum::<f64>() / nf;
    let (mut s2, mut s4) = (0.0f64, 0.0f64);
    for p in 0..d.total {
        let e = draw(p) - mean;
        let c2 = e * e;
        s2 += c2;
        s4 += c2 * c2;
    }
    (mean, libm::sqrt(s2 / (nf - 1.0)), s2 / nf, s4 / nf)
}

/// Normal scores: the sorted values `v` (positions `pos` in the split layout) get their
/// average rank r (ties share it), Blom's `(r − 3/8)/(S + 1/4)` and Φ⁻¹ of that, written to
/// `series` at their positions.
fn normal_scores(v: &[f64], pos: &[f64], series: &mut [f64]) {
    let s = v.len();
    let denom = (s as f64 - 0.75) + 1.0;
    let mut k0 = 0usize;
    while let Some(&v0) = v.get(k0) {
        let mut k1 = k0 + 1;
        while v.get(k1) == Some(&v0) {
            k1 += 1;
        }
        let rank = 0.5 * ((k0 + k1 + 1) as f64);
        let z = special::normal_quantile((rank - 0.375) / denom);
        for &p in pos.get(k0..k1).unwrap_or(&[]) {
            if let Some(slot) = series.get_mut(p as usize) {
                *slot = z;
            }
        }
        k0 = k1;
    }
}

/// From the sorted draws (`sv`, positions `c·n + t` in `si`), the sorted split draws into
/// `tv`, `ti` (positions in the split layout; middle draws of odd chains left out).
fn split_sorted(d: &Dims, w: &mut Work) {
    let mut out = w.tv.iter_mut().zip(w.ti.iter_mut());
    for (&v, &p) in w.sv.iter().zip(w.si.iter()) {
        let p = p as usize;
        let (Some(c), Some(t)) = (p.checked_div(d.n), p.checked_rem(d.n)) else {
            continue;
        };
        let sp = if t < d.half {
            c * d.half + t
        } else if t >= d.n - d.half {
            (d.chains + c) * d.half + (t - (d.n - d.half))
        } else {
            continue;
        };
        if let Some((ov, oi)) = out.next() {
            *ov = v;
            *oi = sp as f64;
        }
    }
}

/// Normal scores of the split draws into `series` (from `tv`, `ti` of [`split_sorted`]).
fn bulk_scores(d: &Dims, w: &mut Work) {
    let (v, p) = (
        w.tv.get(..d.split_total).unwrap_or(&[]),
        w.ti.get(..d.split_total).unwrap_or(&[]),
    );
    normal_scores(v, p, w.series);
}

/// Normal scores of the folded split draws `|x − median|` into `series`: the folded values are
/// sorted by merging the two monotone runs of the sorted split draws (below the median,
/// reversed; from the median on) into `sv`, `si`.
fn folded_scores(d: &Dims, w: &mut Work) {
    let s = d.split_total;
    let (Some(v), Some(p)) = (w.tv.get(..s), w.ti.get(..s)) else {
        return;
    };
    let (Some(&a), Some(&b)) = (v.get(s / 2 - 1), v.get(s / 2)) else {
        return;
    };
    let median = (a + b) / 2.0;
    let split = v.partition_point(|&x| x < median);
    let fold = |i: usize| v.get(i).map_or(f64::NAN, |&x| libm::fabs(x - median));
    let (mut below, mut above) = (split, split); // next: below − 1 (descending), above
    for (ov, oi) in w.sv.iter_mut().zip(w.si.iter_mut()).take(s) {
        let take_below = below > 0 && (above >= s || fold(below - 1) <= fold(above));
        let i = if take_below {
            below -= 1;
            below
        } else {
            above += 1;
            above - 1
        };
        *ov = fold(i);
        *oi = p.get(i).copied().unwrap_or(f64::NAN);
    }
    let (Some(fv), Some(fp)) = (w.sv.get(..s), w.si.get(..s)) else {
        return;
    };
    normal_scores(fv, fp, w.series);
}

/// The verdict flags of one coordinate's R̂, bulk- and tail-ESS for `chains` chains.
fn flags_of(rhat: f64, ess_bulk: f64, ess_tail: f64, chains: usize) -> u32 {
    let threshold = ESS_PER_CHAIN * chains as f64;
    let mut f = 0;
    if rhat.is_nan() || ess_bulk.is_nan() || ess_tail.is_nan() {
        f |= SUSPECT_NOT_COMPUTABLE;
    }
    if rhat >= RHAT_MAX {
        f |= SUSPECT_RHAT;
    }
    if ess_bulk < threshold {
        f |= SUSPECT_ESS_BULK;
    }
    if ess_tail < threshold {
        f |= SUSPECT_ESS_TAIL;
    }
    f
}

/// Every statistic of coordinate `j`.
fn coordinate<T: Float>(x: &[T], d: &Dims, j: usize, w: &mut Work) -> Summary {
    let (mean, sd, m2, m4) = moments(x, d, j);
    load_sorted(x, d, j, w);
    let q5 = quantile_linear(w.sv, 0.05);
    let q50 = quantile_linear(w.sv, 0.5);
    let q95 = quantile_linear(w.sv, 0.95);
    let (ess_lo, mcse_q5) = quantile_ess_and_mcse(x, d, j, TAIL.0, w);
    let (_, mcse_q50) = quantile_ess_and_mcse(x, d, j, 0.5, w);
    let (ess_hi, mcse_q95) = quantile_ess_and_mcse(x, d, j, TAIL.1, w);
    let two_chains = d.chains > 1;
    fill_split(x, d, j, w.series, |v| v);
    let ess_mean = w.ess(d);
    let rhat_split = if two_chains {
        rhat(w.series, d)
    } else {
        f64::NAN
    };
    fill_split(x, d, j, w.series, |v| (v - mean) * (v - mean));
    let ess_sd = w.ess(d);
    let varsd = (m4 - m2 * m2) / ess_sd / m2 / 4.0;
    split_sorted(d, w);
    bulk_scores(d, w);
    let ess_bulk = w.ess(d);
    let rhat_bulk = if two_chains {
        rhat(w.series, d)
    } else {
        f64::NAN
    };
    let rhat_folded = if two_chains {
        folded_scores(d, w);
        rhat(w.series, d)
    } else {
        f64::NAN
    };
    let rhat = if two_chains {
        py_max(rhat_bulk, rhat_folded)
    } else {
        f64::NAN
    };
    let ess_tail = py_min(ess_lo, ess_hi);
    Summary {
        mean,
        sd,
        mcse_mean: sd / libm::sqrt(ess_mean),
        mcse_sd: libm::sqrt(varsd),
        q5,
        q50,
        q95,
        mcse_q5,
        mcse_q50,
        mcse_q95,
        ess_bulk,
        ess_tail,
        ess_mean,
        rhat,
        rhat_bulk,
        rhat_folded,
        rhat_split,
        flags: flags_of(rhat, ess_bulk, ess_tail, d.chains),
    }
}

/// One statistic per coordinate, for the single-value functions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum One {
    /// Rank-normalised split-R̂.
    RhatRank,
    /// Bulk-ESS.
    EssBulk,
    /// Tail-ESS.
    EssTail,
    /// The quantile MCSE at a probability.
    McseQuantile(f64),
}

fn one<T: Float>(x: &[T], d: &Dims, j: usize, w: &mut Work, what: One) -> f64 {
    load_sorted(x, d, j, w);
    match what {
        One::RhatRank => {
            if d.chains < 2 {
                return f64::NAN;
            }
            split_sorted(d, w);
            bulk_scores(d, w);
            let bulk = rhat(w.series, d);
            folded_scores(d, w);
            py_max(bulk, rhat(w.series, d))
        }
        One::EssBulk => {
            split_sorted(d, w);
            bulk_scores(d, w);
            w.ess(d)
        }
        One::EssTail => {
            let lo = quantile_ess_and_mcse(x, d, j, TAIL.0, w).0;
            let hi = quantile_ess_and_mcse(x, d, j, TAIL.1, w).0;
            py_min(lo, hi)
        }
        One::McseQuantile(p) => quantile_ess_and_mcse(x, d, j, p, w).1,
    }
}

/// [`summary`] with the output handed to `put(coordinate, &summary)` (the C API writes its own
/// struct); `out_len` is the capacity checked against `dim`.
pub(crate) fn summary_into<T: Float>(
    x: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out_len: usize,
    mut put: impl FnMut(usize, &Summary),
) -> Result<(), Error> {
    let d = validate(x, shape, scratch.len(), out_len, None)?;
    let mut w = Work::new(scratch, &d).ok_or(Error::WorkspaceTooSmall)?;
    for j in 0..d.dim {
        let s = coordinate(x, &d, j, &mut w);
        put(j, &s);
    }
    Ok(())
}

/// One statistic per coordinate into `out[0..dim]`.
pub(crate) fn one_into<T: Float>(
    x: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out: &mut [f64],
    what: One,
) -> Result<(), Error> {
    let prob = match what {
        One::McseQuantile(p) => Some(p),
        _ => None,
    };
    let d = validate(x, shape, scratch.len(), out.len(), prob)?;
    let mut w = Work::new(scratch, &d).ok_or(Error::WorkspaceTooSmall)?;
    for (j, o) in out.iter_mut().enumerate().take(d.dim) {
        *o = one(x, &d, j, &mut w, what);
    }
    Ok(())
}

/// Every diagnostic of every coordinate of `draws` (layout [`Shape`]), into `out[0..dim]`.
/// `scratch` holds at least [`scratch_len`]`(chains, draws)` values (its contents on return are
/// unspecified). Errors as in the module documentation; nothing is written on an error.
pub fn summary<T: Float>(
    draws: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out: &mut [Summary],
) -> Result<(), Error> {
    let out_len = out.len();
    summary_into(draws, shape, scratch, out_len, |j, s| {
        if let Some(o) = out.get_mut(j) {
            *o = *s;
        }
    })
}

/// The rank-normalised split-R̂ of each coordinate into `out[0..dim]` (NaN for one chain).
/// Arguments and errors as [`summary`].
pub fn rhat_rank<T: Float>(
    draws: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out: &mut [f64],
) -> Result<(), Error> {
    one_into(draws, shape, scratch, out, One::RhatRank)
}

/// The bulk-ESS of each coordinate into `out[0..dim]`. Arguments and errors as [`summary`].
pub fn ess_bulk<T: Float>(
    draws: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out: &mut [f64],
) -> Result<(), Error> {
    one_into(draws, shape, scratch, out, One::EssBulk)
}

/// The tail-ESS (5 % and 95 %) of each coordinate into `out[0..dim]`. Arguments and errors as
/// [`summary`].
pub fn ess_tail<T: Float>(
    draws: &[T],
    shape: Shape,
    scratch: &mut [f64],
    out: &mut [f64],
) -> Result<(), Error> {
    one_into(draws, shape, scratch, out, One::EssTail)
}

/// The Monte Carlo standard error of the `prob` quantile of each coordinate into `out[0..dim]`
/// (ArviZ `mcse(method="quantile", prob=prob)`). `prob` outside (0, 1) (or NaN) is
/// [`Error::InvalidArgument`], checked after the sizes and before the draws' values; otherwise
/// as [`summary`].
pub fn mcse_quantile<T: Float>(
    draws: &[T],
    shape: Shape,
    prob: f64,
    scratch: &mut [f64],
    out: &mut [f64],
) -> Result<(), Error> {
    one_into(draws, shape, scratch, out, One::McseQuantile(prob))
}

/// The one-call verdict over the per-coordinate summaries of `chains` chains and the caller's
/// count of divergent transitions after warm-up: OK only if every rank-normalised R̂ is below
/// [`RHAT_MAX`], every bulk- and tail-ESS is at least [`ESS_PER_CHAIN`]·chains and there is no
/// divergence. Otherwise the flags say why ([`SUSPECT_NOT_COMPUTABLE`] for a NaN, e.g. R̂ of one
/// chain), with the worst values and their coordinates. The flags are recomputed from the
/// values (a summary's own `flags` is not read). `ZeroDimension` for no summary or no chain.
pub fn diagnose(summaries: &[Summary], chains: usize, divergences: u64) -> Result<Verdict, Error> {
    diagnose_by(
        summaries.len(),
        |j| summaries.get(j).copied(),
        chains,
        divergences,
    )
}

/// [`diagnose`] over `dim` summaries given by index (the C API reads its own structs).
pub(crate) fn diagnose_by(
    dim: usize,
    get: impl Fn(usize) -> Option<Summary>,
    chains: usize,
    divergences: u64,
) -> Result<Verdict, Error> {
    if dim == 0 || chains == 0 {
        return Err(Error::ZeroDimension);
    }
    let mut v = Verdict {
        flags: 0,
        worst_rhat: f64::NAN,
        worst_rhat_coord: 0,
        min_ess_bulk: f64::NAN,
        min_ess_bulk_coord: 0,
        min_ess_tail: f64::NAN,
        min_ess_tail_coord: 0,
        ess_threshold: ESS_PER_CHAIN * chains as f64,
        not_computable: 0,
        first_not_computable: 0,
        divergences,
    };
    for (j, s) in (0..dim).filter_map(|j| get(j).map(|s| (j, s))) {
        let f = flags_of(s.rhat, s.ess_bulk, s.ess_tail, chains);
        v.flags |= f;
        if f & SUSPECT_NOT_COMPUTABLE != 0 {
            if v.not_computable == 0 {
                v.first_not_computable = j;
            }
            v.not_computable += 1;
        }
        if !s.rhat.is_nan() && (v.worst_rhat.is_nan() || s.rhat > v.worst_rhat) {
            v.worst_rhat = s.rhat;
            v.worst_rhat_coord = j;
        }
        if !s.ess_bulk.is_nan() && (v.min_ess_bulk.is_nan() || s.ess_bulk < v.min_ess_bulk) {
            v.min_ess_bulk = s.ess_bulk;
            v.min_ess_bulk_coord = j;
        }
        if !s.ess_tail.is_nan() && (v.min_ess_tail.is_nan() || s.ess_tail < v.min_ess_tail) {
            v.min_ess_tail = s.ess_tail;
            v.min_ess_tail_coord = j;
        }
    }
    if divergences > 0 {
        v.flags |= SUSPECT_DIVERGENCES;
    }
    Ok(v)
}
