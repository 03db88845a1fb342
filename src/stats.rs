//! Streaming convergence diagnostics without a heap: running mean and variance, effective sample
//! size (ESS), Monte Carlo standard error (MCSE) and split-R̂ across chains, for one scalar per
//! [`Series`] (a coordinate of θ, or any function of it the caller pushes).
//!
//! # What a `Series` keeps
//!
//! A [`Series<L>`] is plain data of fixed size (`24·L + 456` bytes) that never grows, whatever
//! the number of draws:
//!
//! * Welford's running mean and sum of squared deviations (the variance);
//! * the lag-product sums `Σ y_t·y_{t−k}` for the lags `k = 1..=L`, the first `L` draws and a ring
//!   of the last `L` draws: from these the autocovariance at each lag `k ≤ L`, around the final
//!   mean, is recovered exactly (docs/algorithms.md §4.2), so the ESS is Geyer's initial monotone
//!   sequence estimate computed the way ArviZ and Stan compute it on stored draws;
//! * [`BATCHES`] batch means with their own Welford sums, merged pairwise as the draw count doubles:
//!   they give the halves for split-R̂ and a batch-means ESS used when the autocorrelation is still
//!   positive at lag `L` (the window is too short for the chain's mixing time).
//!
//! Draws of type `f32` or `f64` are pushed; all sums are `f64`, in draw order, so the statistics
//! are the same bits on every target. Values subtract the first draw before they are summed,
//! which keeps the lag products free of cancellation when the mean is large against the spread.
//!
//! # Agreement with ArviZ
//!
//! For one or more chains of equal length `n`: [`ess`] equals ArviZ's ESS on the *unsplit* chains
//! (`arviz.stats.diagnostics._ess`) to rounding whenever Geyer's sequence ends within the
//! window; [`split_rhat`] equals `arviz.rhat(method="split")` to rounding when `n` is
//! `BATCHES·2^j` (otherwise the halves leave out the draws of the incomplete batches);
//! `Series::mcse` is `sd/√ESS` like `arviz.mcse(method="mean")`. ArviZ's public `ess` splits
//! each chain in two first; on a stationary chain the two differ by sampling noise only
//! (`bindings/python/tests/test_stats.py` measures both).
//!
//! ```
//! use sgsample::stats::{ess, split_rhat, Series};
//!
//! // An AR(1) chain x_t = φ·x_{t−1} + e_t with φ = 0.5: integrated autocorrelation time
//! // (1 + φ)/(1 − φ) = 3, so n draws are worth about n/3 independent ones.
//! let mut s = Series::<32>::new();
//! let (mut x, mut state) = (0.0f64, 12345u64);
//! for _ in 0..16384 {
//!     // A crude, deterministic normal-ish innovation (sum of uniforms), for the example only.
//!     let mut e = -6.0;
//!     for _ in 0..12 {
//!         state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
//!         e += (state >> 11) as f64 / (1u64 << 53) as f64;
//!     }
//!     x = 0.5 * x + e;
//!     s.push(x);
//! }
//! let n_eff = s.ess();
//! assert!(n_eff > 16384.0 / 3.0 * 0.8 && n_eff < 16384.0 / 3.0 * 1.2, "{n_eff}");
//! assert!(s.mcse() < 0.05);
//! assert_eq!(ess(&[&s])?, n_eff);
//! let r = split_rhat(&[&s])?;
//! assert!((r - 1.0).abs() < 0.01);
//! # Ok::<(), sgsample::Error>(())
//! ```

use crate::error::Error;
use crate::float::Float;

/// The number of batches a [`Series`] keeps (even; see the module documentation).
pub const BATCHES: usize = 16;

/// Running mean and sum of squared deviations of a run of values (Welford), and how to merge two
/// of them (Chan, Golub & LeVeque).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    const EMPTY: Moments = Moments {
        n: 0,
        mean: 0.0,
        m2: 0.0,
    };

    fn push(&mut self, y: f64) {
        self.n += 1;
        let d = y - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (y - self.mean);
    }

    /// The moments of the concatenation of `self` and `o`.
    fn merged(&self, o: &Moments) -> Moments {
        if self.n == 0 {
            return *o;
        }
        if o.n == 0 {
            return *self;
        }
        let n = self.n + o.n;
        let (na, nb, nn) = (self.n as f64, o.n as f64, n as f64);
        let d = o.mean - self.mean;
        Moments {
            n,
            mean: self.mean + d * (nb / nn),
            m2: (self.m2 + o.m2) + d * d * (na * nb / nn),
        }
    }

    /// The sample variance with n − 1 in the denominator (NaN below two values).
    fn variance(&self) -> f64 {
        if self.n < 2 {
            f64::NAN
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
}

/// Streaming diagnostics of one scalar: mean, variance, ESS, MCSE, and what [`split_rhat`] and
/// [`ess`] need to combine chains. `L ≥ 1` is the autocorrelation window (lags kept): the ESS is
/// exact Geyer whenever the chain's autocorrelation has died out within `L` lags (a few times the
/// integrated autocorrelation time), and falls back to batch means otherwise. See the module
/// documentation for the example. The sums are `f64`: draws spread over more than about 1e154
/// around the first draw overflow the sums of squares (variance +∞, ESS NaN).
#[derive(Clone, Debug, PartialEq)]
pub struct Series<const L: usize> {
    /// The first draw, subtracted from every draw before it is summed.
    shift: f64,
    /// Welford over all (shifted) draws.
    all: Moments,
    /// `lag[k − 1] = Σ_{t ≥ k} y_t·y_{t−k}`.
    lag: [f64; L],
    /// The first `L` shifted draws.
    head: [f64; L],
    /// The last `L` shifted draws: draw `t` at `ring[t mod L]`.
    ring: [f64; L],
    /// Completed batches, each of `batch_len` draws, in draw order.
    batches: [Moments; BATCHES],
    full: usize,
    batch_len: u64,
    /// The batch being filled.
    partial: Moments,
}

impl<const L: usize> Default for Series<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const L: usize> Series<L> {
    /// Refuses `L = 0` at compile time (the ring index divides by `L`).
    const NONZERO_WINDOW: () = assert!(L > 0, "Series<L> needs a window L >= 1");

    /// An empty accumulator.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let _ = Self::NONZERO_WINDOW;
        Series {
            shift: 0.0,
            all: Moments::EMPTY,
            lag: [0.0; L],
            head: [0.0; L],
            ring: [0.0; L],
            batches: [Moments::EMPTY; BATCHES],
            full: 0,
            batch_len: 1,
            partial: Moments::EMPTY,
        }
    }

    /// Adds one draw (`f32` or `f64`). O(L) operations, no allocation. Non-finite draws are
    /// accepted and make every statistic NaN or infinite, as they would on stored draws.
    pub fn push<T: Float>(&mut self, x: T) {
        let x = x.to_f64();
        if self.all.n == 0 {
            self.shift = x;
        }
        let y = x - self.shift;
        let t = self.all.n;
        // Lag products with the previous min(t, L) draws, newest first.
        let now = (t % L as u64) as usize;
        let back = if t < L as u64 { t as usize } else { L };
        let (older, newer) = self.ring.split_at(now);
        let previous = newer.iter().chain(older.iter()).rev().take(back);
        for (acc, &prev) in self.lag.iter_mut().zip(previous) {
            *acc += y * prev;
        }
        if let Some(r) = self.ring.get_mut(now) {
            *r = y;
        }
        // Only the first draws are kept: `t` is compared as u64 (a `usize` cast would wrap
        // after 2³² draws on 32-bit targets and overwrite them).
        if let Some(h) = usize::try_from(t).ok().and_then(|t| self.head.get_mut(t)) {
            *h = y;
        }
        self.all.push(y);
        self.push_batch(y);
    }

    /// Batch bookkeeping: merge pairs when all batches are full and a draw arrives (so that right
    /// after `BATCHES·2^j` draws all batches are full and equal), then fill the current batch.
    fn push_batch(&mut self, y: f64) {
        if self.full == BATCHES {
            for i in 0..BATCHES / 2 {
                let (a, b) = (self.batches[2 * i], self.batches[2 * i + 1]);
                self.batches[i] = a.merged(&b);
            }
            self.full = BATCHES / 2;
            self.batch_len *= 2;
        }
        self.partial.push(y);
        if self.partial.n == self.batch_len {
            if let Some(b) = self.batches.get_mut(self.full) {
                *b = self.partial;
            }
            self.full += 1;
            self.partial = Moments::EMPTY;
        }
    }

    /// Draws pushed so far.
    pub fn count(&self) -> u64 {
        self.all.n
    }

    /// The mean of the draws (NaN before the first).
    pub fn mean(&self) -> f64 {
        if self.all.n == 0 {
            f64::NAN
        } else {
            self.shift + self.all.mean
        }
    }

    /// The sample variance of the draws, n − 1 in the denominator (NaN below two draws).
    pub fn variance(&self) -> f64 {
        self.all.variance()
    }

    /// The effective sample size of this chain alone (`ess(&[self])`; NaN below 4 draws).
    pub fn ess(&self) -> f64 {
        ess_by(1, |_| Some(self)).unwrap_or(f64::NAN)
    }

    /// The Monte Carlo standard error of [`mean`](Self::mean): `√(variance / ESS)`.
    pub fn mcse(&self) -> f64 {
        libm::sqrt(self.variance() / self.ess())
    }

    /// The biased (÷ n) autocovariance at lag `k ≤ min(L, n − 1)`, around the mean of all
    /// draws, from the lag-product sum and the head and tail sums (docs/algorithms.md §4.2).
    fn autocov(&self, k: usize) -> f64 {
        let n = self.all.n;
        let nf = n as f64;
        let m = self.all.mean;
        if k == 0 {
            return self.all.m2 / nf;
        }
        let s = self.lag.get(k - 1).copied().unwrap_or(f64::NAN);
        let p: f64 = self.head.iter().take(k).sum();
        let end = (n % L as u64) as usize;
        let (older, newer) = self.ring.split_at(end);
        let q: f64 = newer.iter().chain(older.iter()).rev().take(k).sum();
        let total = nf * m;
        (s - m * ((2.0 * total - p) - q) + (n - k as u64) as f64 * (m * m)) / nf
    }

    /// The two halves of the completed batches (the middle batch left out when their number is
    /// odd; draws of the incomplete batch left out).
    fn halves(&self) -> (Moments, Moments) {
        let h = self.full / 2;
        let mut first = Moments::EMPTY;
        let mut second = Moments::EMPTY;
        for b in self.batches.iter().take(h) {
            first = first.merged(b);
        }
        for b in self.batches.iter().take(self.full).skip(self.full - h) {
            second = second.merged(b);
        }
        (first, second)
    }
}

/// Adds one draw of every coordinate: `series[i].push(x[i])`. `LengthMismatch` (nothing pushed)
/// unless the lengths are equal.
pub fn push_all<T: Float, const L: usize>(series: &mut [Series<L>], x: &[T]) -> Result<(), Error> {
    if series.len() != x.len() {
        return Err(Error::LengthMismatch);
    }
    for (s, &xi) in series.iter_mut().zip(x) {
        s.push(xi);
    }
    Ok(())
}

/// The effective sample size of `k ≥ 1` chains of the same length together (ArviZ's formula,
/// docs/algorithms.md §4.3). `ZeroDimension` for no chains, `LengthMismatch` when the chains'
/// draw counts differ; NaN below 4 draws per chain.
pub fn ess<const L: usize>(chains: &[&Series<L>]) -> Result<f64, Error> {
    ess_by(chains.len(), |c| chains.get(c).copied())
}

/// Split-R̂ of `k ≥ 1` chains of the same length (ArviZ's `rhat(method="split")` on the halves of
/// the completed batches). Errors as [`ess`]; NaN until every half holds two draws.
pub fn split_rhat<const L: usize>(chains: &[&Series<L>]) -> Result<f64, Error> {
    split_rhat_by(chains.len(), |c| chains.get(c).copied())
}

/// Checks `k` chains reached through `get` (the C API's states hold them in caller memory):
/// `ZeroDimension` for none, `LengthMismatch` for unequal counts. Returns the common count.
fn common_count<'s, const L: usize>(
    k: usize,
    get: &impl Fn(usize) -> Option<&'s Series<L>>,
) -> Result<u64, Error> {
    let first = get(0).ok_or(Error::ZeroDimension)?;
    let n = first.count();
    for c in 1..k {
        if get(c).ok_or(Error::LengthMismatch)?.count() != n {
            return Err(Error::LengthMismatch);
        }
    }
    Ok(n)
}

/// [`ess`] over chains given by index.
pub(crate) fn ess_by<'s, const L: usize>(
    k: usize,
    get: impl Fn(usize) -> Option<&'s Series<L>>,
) -> Result<f64, Error> {
    let n = common_count(k, &get)?;
    if n < 4 {
        return Ok(f64::NAN);
    }
    let nf = n as f64;
    let kf = k as f64;
    let total = kf * nf;
    let chains = || (0..k).filter_map(&get);
    // Mean over chains of a per-chain value, summed in chain order.
    let avg = |f: &dyn Fn(&Series<L>) -> f64| chains().map(f).sum::<f64>() / kf;
    let mean_var = avg(&|s| s.autocov(0)) * nf / (nf - 1.0);
    let mut var_plus = mean_var * (nf - 1.0) / nf;
    if k > 1 {
        let mut means = Moments::EMPTY;
        for s in chains() {
            means.push(s.all.mean + (s.shift - get(0).map_or(0.0, |f| f.shift)));
        }
        var_plus += means.variance();
    }
    if !var_plus.is_finite() {
        return Ok(f64::NAN);
    }
    if var_plus == 0.0 {
        // Constant draws: ArviZ returns the draw count.
        return Ok(total);
    }
    let rho = |t: usize| 1.0 - (mean_var - avg(&|s| s.autocov(t))) / var_plus;
    // Geyer's initial positive sequence, pairs (ρ_{t−1}, ρ_t) for t = 1, 3, …, exactly as ArviZ
    // computes it on an array: a pair counts while the next one's sum stays positive; the pair
    // sums are replaced by their running minimum (the initial monotone sequence); of the pair
    // that ends the sequence only the even term counts, when positive (or when that pair's sum
    // is still ≥ 0 and the loop stopped on the draw-count bound).
    let (mut even, mut odd) = (1.0f64, rho(1));
    let mut stored = true;
    let mut sum = 0.0f64;
    let mut prev_pair = f64::INFINITY;
    let mut t = 1usize;
    let n_us = usize::try_from(n).unwrap_or(usize::MAX);
    while t < n_us.saturating_sub(3) && even + odd > 0.0 {
        let pair = (even + odd).min(prev_pair);
        sum += pair;
        prev_pair = pair;
        if t + 2 > L {
            // Still positive at the window's end: the window cannot see the chain's mixing
            // time. Batch means do not need it.
            return Ok(batch_means_ess(k, &get, nf, var_plus));
        }
        even = rho(t + 1);
        odd = rho(t + 2);
        stored = even + odd >= 0.0;
        t += 2;
    }
    let tail = if even > 0.0 || stored { even } else { 0.0 };
    let tau = -1.0 + 2.0 * sum + tail;
    let tau = tau.max(1.0 / libm::log10(total));
    Ok(total / tau)
}

/// ESS from batch means when the autocorrelation window is too short: k·n·var₊ / σ²_batch,
/// σ²_batch the variance of all chains' batch means around their common mean times the batch
/// length. Around the common mean, not each chain's own: chains that disagree (each stuck
/// in its own mode) raise var₊ by their between-chain variance, and per-chain spreads would
/// leave that out of σ²_batch, so the ESS would grow with the disagreement; pooled, it stays
/// at about k·`BATCHES`·V₊/(between-chain variance), a few times the number of batches
/// (ArviZ's estimator, which sees every lag, gives about k; split-R̂ flags such chains). One
/// chain: its own batch-means estimate.
fn batch_means_ess<'s, const L: usize>(
    k: usize,
    get: &impl Fn(usize) -> Option<&'s Series<L>>,
    nf: f64,
    var_plus: f64,
) -> f64 {
    let origin = get(0).map_or(0.0, |s| s.shift);
    let mut bm = Moments::EMPTY;
    let mut batch_len = 0u64;
    for s in (0..k).filter_map(get) {
        for b in s.batches.iter().take(s.full) {
            bm.push(b.mean + (s.shift - origin));
        }
        // Chains of equal counts have equal batch layouts.
        batch_len = s.batch_len;
    }
    let sigma2 = bm.variance() * batch_len as f64;
    k as f64 * nf * var_plus / sigma2
}

/// [`split_rhat`] over chains given by index.
pub(crate) fn split_rhat_by<'s, const L: usize>(
    k: usize,
    get: impl Fn(usize) -> Option<&'s Series<L>>,
) -> Result<f64, Error> {
    common_count(k, &get)?;
    let origin = get(0).map_or(0.0, |s| s.shift);
    let mut means = Moments::EMPTY;
    let mut within = 0.0f64;
    let mut half_n = 0u64;
    for s in (0..k).filter_map(&get) {
        let (a, b) = s.halves();
        half_n = a.n;
        for h in [a, b] {
            // Chains of equal counts have equal batch layouts, hence equal halves.
            means.push(h.mean + (s.shift - origin));
            within += h.variance();
        }
    }
    if half_n < 2 {
        return Ok(f64::NAN);
    }
    let m = 2.0 * k as f64;
    let nh = half_n as f64;
    let w = within / m;
    let b = nh * means.variance();
    Ok(libm::sqrt((b / w + nh - 1.0) / nh))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of N(0,1)-ish values through the crate's generator.
    fn normals(seed: u64, n: usize) -> impl Iterator<Item = f64> {
        let mut rng = crate::Rng::new(seed, 0);
        (0..n).map(move |_| rng.normal())
    }

    /// Autocovariance straight from stored draws (the definition), for comparison.
    fn direct_autocov(xs: &[f64], k: usize) -> f64 {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        (k..xs.len())
            .map(|t| (xs[t] - m) * (xs[t - k] - m))
            .sum::<f64>()
            / n
    }

    #[test]
    fn moments_and_autocovariances_match_stored_draws() {
        // A large offset checks the shift; lengths below, at and above the window.
        for n in [1usize, 2, 5, 8, 9, 100, 1000] {
            let xs: Vec<f64> = normals(3, n).map(|z| 1e6 + z).collect();
            let mut s = Series::<8>::new();
            for &x in &xs {
                s.push(x);
            }
            let m = xs.iter().sum::<f64>() / n as f64;
            assert!((s.mean() - m).abs() < 1e-9, "n={n}");
            assert_eq!(s.count(), n as u64);
            for k in 0..n.min(9) {
                let (a, b) = (s.autocov(k), direct_autocov(&xs, k));
                assert!(
                    (a - b).abs() < 1e-8 * (1.0 + b.abs()),
                    "n={n} k={k}: {a} vs {b}"
                );
            }
        }
    }

    /// ArviZ's unsplit ESS (`arviz.stats.diagnostics._ess`), written out plainly on stored
    /// draws: Geyer's initial positive sequence, then the initial monotone sequence, over the
    /// mean autocorrelations of the chains.
    fn oracle_ess(chains: &[Vec<f64>]) -> (f64, bool) {
        let (k, n) = (chains.len(), chains[0].len());
        let (kf, nf) = (k as f64, n as f64);
        let mean_acov = |t: usize| chains.iter().map(|c| direct_autocov(c, t)).sum::<f64>() / kf;
        let mean_var = mean_acov(0) * nf / (nf - 1.0);
        let mut var_plus = mean_var * (nf - 1.0) / nf;
        if k > 1 {
            let means: Vec<f64> = chains.iter().map(|c| c.iter().sum::<f64>() / nf).collect();
            let mm = means.iter().sum::<f64>() / kf;
            var_plus += means.iter().map(|m| (m - mm) * (m - mm)).sum::<f64>() / (kf - 1.0);
        }
        let rho = |t: usize| 1.0 - (mean_var - mean_acov(t)) / var_plus;
        let mut r = vec![0.0; n];
        let (mut even, mut odd) = (1.0, rho(1));
        (r[0], r[1]) = (even, odd);
        let mut t = 1;
        while t < n - 3 && even + odd > 0.0 {
            even = rho(t + 1);
            odd = rho(t + 2);
            if even + odd >= 0.0 {
                (r[t + 1], r[t + 2]) = (even, odd);
            }
            t += 2;
        }
        let max_t = t - 2;
        if even > 0.0 {
            r[max_t + 1] = even;
        }
        let mut t = 1;
        let mut monotone_made = false;
        while t + 2 <= max_t {
            if r[t + 1] + r[t + 2] > r[t - 1] + r[t] {
                monotone_made = true;
                r[t + 1] = (r[t - 1] + r[t]) / 2.0;
                r[t + 2] = r[t + 1];
            }
            t += 2;
        }
        let total = kf * nf;
        let tau = -1.0 + 2.0 * r[..=max_t].iter().sum::<f64>() + r[max_t + 1];
        (total / tau.max(1.0 / libm::log10(total)), monotone_made)
    }

    /// Split-R̂ (Gelman et al.) on stored draws, each chain cut into its two halves.
    fn oracle_rhat(chains: &[Vec<f64>]) -> f64 {
        let halves: Vec<&[f64]> = chains.iter().flat_map(|c| c.chunks(c.len() / 2)).collect();
        let (m, nh) = (halves.len() as f64, halves[0].len() as f64);
        let mean = |h: &[f64]| h.iter().sum::<f64>() / h.len() as f64;
        let var = |h: &[f64]| {
            let mu = mean(h);
            h.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (h.len() as f64 - 1.0)
        };
        let w = halves.iter().map(|h| var(h)).sum::<f64>() / m;
        let means: Vec<f64> = halves.iter().map(|h| mean(h)).collect();
        let mm = means.iter().sum::<f64>() / m;
        let b = nh * means.iter().map(|x| (x - mm) * (x - mm)).sum::<f64>() / (m - 1.0);
        libm::sqrt(((nh - 1.0) / nh * w + b / nh) / w)
    }

    /// The streaming ESS, MCSE and split-R̂ equal the textbook estimators on the stored draws
    /// (ESS and MCSE to ArviZ's unsplit estimator; split-R̂ at 16·2^j draws, where the halves
    /// of the completed batches are the halves of the chain), for one chain and for three
    /// chains with slightly different centres. AR(1) draws with φ = 0.5 mix well inside the
    /// window. (Chains further apart keep Geyer's sequence positive past the window, where the
    /// streaming ESS falls back to batch means: `chains_that_disagree_get_a_small_ess`.)
    #[test]
    fn ess_mcse_and_rhat_equal_the_estimators_on_stored_draws() {
        let n = 16 * 64;
        let chains: Vec<Vec<f64>> = [0.0, 0.05, -0.03]
            .iter()
            .enumerate()
            .map(|(c, centre)| {
                let mut y = 0.0;
                normals(60 + c as u64, n)
                    .map(|z| {
                        y = 0.5 * y + z;
                        centre + y
                    })
                    .collect()
            })
            .collect();
        let series: Vec<Series<64>> = chains
            .iter()
            .map(|c| {
                let mut s = Series::<64>::new();
                c.iter().for_each(|&x| s.push(x));
                s
            })
            .collect();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs();
        for (c, s) in chains.iter().zip(&series) {
            let e = oracle_ess(core::slice::from_ref(c)).0;
            assert!(close(s.ess(), e), "ESS {} vs {e}", s.ess());
            let m = c.iter().sum::<f64>() / n as f64;
            let v = c.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n as f64 - 1.0);
            assert!(close(s.mcse(), libm::sqrt(v / e)), "MCSE {}", s.mcse());
        }
        // A chain (φ = 0.7) on which Geyer's monotone step changes the sequence.
        let mut y = 0.0;
        let c: Vec<f64> = normals(0, n)
            .map(|z| {
                y = 0.7 * y + z;
                y
            })
            .collect();
        let (e, monotone_made) = oracle_ess(core::slice::from_ref(&c));
        let mut s = Series::<64>::new();
        c.iter().for_each(|&x| s.push(x));
        assert!(monotone_made && close(s.ess(), e), "ESS {} vs {e}", s.ess());
        let refs: Vec<&Series<64>> = series.iter().collect();
        let (e, r) = (ess(&refs).unwrap(), split_rhat(&refs).unwrap());
        let (oe, _) = oracle_ess(&chains);
        assert!(close(e, oe), "ESS {e} vs {oe}");
        assert!(
            close(r, oracle_rhat(&chains)),
            "R̂ {r} vs {}",
            oracle_rhat(&chains)
        );
    }

    #[test]
    fn batches_double_and_cover_the_draws() {
        let mut s = Series::<4>::new();
        for (i, x) in normals(5, 16 * 8).enumerate() {
            s.push(x);
            let n = i as u64 + 1;
            let covered: u64 = s.batches[..s.full].iter().map(|b| b.n).sum::<u64>() + s.partial.n;
            assert_eq!(covered, n);
            // Complete batches are all of the current length.
            assert!(s.batches[..s.full].iter().all(|b| b.n == s.batch_len));
        }
        assert_eq!((s.full, s.batch_len, s.partial.n), (BATCHES, 8, 0));
    }

    #[test]
    fn errors_and_small_counts() {
        let a = Series::<4>::new();
        let mut b = Series::<4>::new();
        b.push(1.0f32);
        assert_eq!(ess::<4>(&[]), Err(Error::ZeroDimension));
        assert_eq!(ess(&[&a, &b]), Err(Error::LengthMismatch));
        assert_eq!(split_rhat(&[&a, &b]), Err(Error::LengthMismatch));
        assert!(b.ess().is_nan() && b.variance().is_nan());
        assert_eq!(
            push_all(&mut [a.clone()], &[1.0, 2.0]),
            Err(Error::LengthMismatch)
        );
        let mut c = Series::<4>::new();
        for _ in 0..10 {
            c.push(2.5);
        }
        assert_eq!(c.ess(), 10.0);
    }

    /// Chains stuck in different places (AR(1) around 0 and around 5, and constant chains at 0
    /// and 5): the batch-means ESS stays at a few times the number of batches instead of
    /// growing with the disagreement (per-chain batch spreads gave thousands and +∞).
    #[test]
    fn chains_that_disagree_get_a_small_ess() {
        let (n, k) = (20_000usize, 2usize);
        let mut ar = [Series::<8>::new(), Series::<8>::new()];
        let mut flat = [Series::<8>::new(), Series::<8>::new()];
        for (c, centre) in [0.0, 5.0].into_iter().enumerate() {
            let mut y = 0.0;
            for z in normals(40 + c as u64, n) {
                // φ = 0.95: mixes in ~40 draws, past the window of 8 (the batch-means path).
                y = 0.95 * y + z;
                ar[c].push(centre + y);
                flat[c].push(centre);
            }
        }
        let ess_ar = ess(&[&ar[0], &ar[1]]).unwrap();
        let ess_flat = ess(&[&flat[0], &flat[1]]).unwrap();
        let batches = (k * BATCHES) as f64;
        // k·n·V₊/(b·s²_B) ≈ k·B·V₊/(between variance): here ≈ 2.5 × the batches' count.
        assert!(ess_ar.is_finite() && ess_ar < 4.0 * batches, "{ess_ar}");
        assert!(
            ess_flat.is_finite() && ess_flat < 4.0 * batches,
            "{ess_flat}"
        );
        // The same AR(1) chains around one centre keep their usual ESS (≈ k·n·(1 − φ)/(1 + φ)
        // ≈ 1026): the pooled spread is not a penalty for chains that agree.
        let mut agree = [Series::<8>::new(), Series::<8>::new()];
        for (c, s) in agree.iter_mut().enumerate() {
            let mut y = 0.0;
            for z in normals(40 + c as u64, n) {
                y = 0.95 * y + z;
                s.push(y);
            }
        }
        let ess_agree = ess(&[&agree[0], &agree[1]]).unwrap();
        assert!(ess_agree > 500.0 && ess_agree < 2000.0, "{ess_agree}");
    }
}
