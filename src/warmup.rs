//! AMAGOLD's warm-up: its phases, the step-size search after a metric update, the statistics of
//! a window, and the report with its verdict (docs/algorithms.md §1.7–1.8).
//!
//! A warm-up of W iterations runs, in order:
//!
//! 1. **Approach** (`approach = true`, at most W/5 iterations, `src/approach.rs`): an optimiser
//!    moves a far-away start to near the mode; at its end the finite-difference curvature there
//!    gives the first mass matrix (the Laplace approximation's covariance).
//! 2. **Windows** over the W₂ iterations left (Stan's schedule): an initial fast window (ε only),
//!    slow windows of doubling length that each end with a metric update from their draws, and a
//!    final fast window. Each metric update is followed by a step-size search (ε doubled or
//!    halved per iteration until the acceptance crosses the target) and a restart of the dual
//!    averaging from the ε found; a fast window that ends with the energy still falling restarts
//!    the dual averaging too.
//! 3. The **report**: the final window's acceptance against the target, its energy trend as a
//!    z-statistic, its divergences, the energy's BFMI, the metric's condition number, and a
//!    verdict: [`Verdict::Ok`] or [`Verdict::Suspect`] with the reasons. [`compare_reports`] adds
//!    what only several chains can tell: that they disagree.
//!
//! Everything here is plain data in the chain's state, `f64`, no allocation.

use crate::adapt::DualAveraging;

/// Which part of the run an iteration belonged to (`AmagoldInfo::phase`; C `SGS_PHASE_…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Phase {
    /// After the warm-up (or without one): a sample of the exact chain.
    Sampling = 0,
    /// The warm-up's approach (an optimiser step, not a Markov-chain iteration).
    Approach = 1,
    /// A fast window of the warm-up: only ε adapts.
    Fast = 2,
    /// A slow window: ε adapts and the draws estimate the mass matrix.
    Slow = 3,
    /// The final fast window, whose statistics the report gives.
    Final = 4,
}

/// The warm-up's verdict (`WarmupReport::verdict`; C `SGS_WARMUP_…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Verdict {
    /// The chain has no warm-up (`warmup = 0`).
    None = 0,
    /// The warm-up is still running.
    Running = 1,
    /// Nothing seen suggests the chain is outside the typical set.
    Ok = 2,
    /// At least one reason (the `reasons` flags) suggests it is: do not trust the draws without
    /// looking.
    Suspect = 3,
}

/// Reason: the final window's energy still drifts: |z| of its trend above [`TREND_Z`], or its
/// ten batch means in monotone order but for at most [`TREND_DISCORDANT`] pairs of 45 (a drift
/// that is not a straight line, which the least-squares z underrates).
pub const REASON_ENERGY_TREND: u32 = 1;
/// Reason: the final window's mean acceptance probability is more than [`ACCEPT_TOLERANCE`] from
/// the target.
pub const REASON_ACCEPTANCE: u32 = 1 << 1;
/// Reason: more than [`DIVERGENCE_FRACTION`] of the final window's iterations diverged.
pub const REASON_DIVERGENCES: u32 = 1 << 2;
/// Reason: the final window's energy BFMI is below [`BFMI_MIN`]: momentum resampling moves the
/// energy too little against its spread (Betancourt's E-BFMI, on the potential energy).
pub const REASON_LOW_BFMI: u32 = 1 << 3;
/// Reason: the chains of a [`compare_reports`] call disagree (energies or positions).
pub const REASON_CHAINS_DISAGREE: u32 = 1 << 5;

/// Reason: the last metric update failed (its estimate not positive definite) and an older
/// metric was kept.
pub const REASON_METRIC: u32 = 1 << 6;

/// |z| above which the final window's energy trend is a reason.
pub const TREND_Z: f64 = 4.0;
/// Most discordant pairs of the final window's ten energy batch means that still count as a
/// monotone drift (for independent means the chance of at most 2 of 45 is 3·10⁻⁵).
pub const TREND_DISCORDANT: u32 = 2;
/// Largest distance between the final window's mean acceptance probability and the target.
pub const ACCEPT_TOLERANCE: f64 = 0.2;
/// Largest fraction of divergent iterations in the final window.
pub const DIVERGENCE_FRACTION: f64 = 0.02;
/// Smallest energy BFMI of the final window.
pub const BFMI_MIN: f64 = 0.1;
/// Gap between a chain's final-window mean energy and the median of the chains' means, in
/// units of the median within-chain energy sd, above which [`compare_reports`] says the chains
/// disagree.
pub const ENERGY_GAP: f64 = 2.0;
/// R̂ of the chains' final windows (per coordinate, classic, from their means and variances)
/// above which [`compare_reports`] says the chains disagree.
pub const WINDOW_RHAT: f64 = 1.1;

/// What a chain's warm-up did and whether its end looks like the typical set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmupReport {
    /// OK, SUSPECT, still running, or no warm-up.
    pub verdict: Verdict,
    /// The `REASON_…` flags behind a SUSPECT verdict (0 otherwise).
    pub reasons: u32,
    /// Warm-up iterations done.
    pub iterations: u64,
    /// Of which the approach's.
    pub approach_iterations: u64,
    /// The energy when the warm-up started and when the approach ended.
    pub approach_energy: [f64; 2],
    /// `true` when the approach stopped at its cap with its estimate of the energy above the
    /// mode still above 2·d. Informational, not a reason: the windows may still have brought
    /// the chain in, and if they did not, its final window says so (a far start the approach
    /// left unfinished that then converged was measured on the star98 regression).
    pub approach_unfinished: bool,
    /// Metric updates made (the curvature's and the slow windows'; failed ones not counted).
    pub metric_updates: u32,
    /// Restarts of the dual averaging (after metric updates and falling energies).
    pub restarts: u32,
    /// The step size after the warm-up (the current one while it runs).
    pub step_size: f64,
    /// The target acceptance δ.
    pub target_accept: f64,
    /// The final window's mean acceptance probability min(1, e^{log a}).
    pub accept_rate: f64,
    /// The z-statistic of the final window's energy trend (slope of its batch means over their
    /// residual scatter; negative: still falling).
    pub energy_trend_z: f64,
    /// Pairs (i < j) of the final window's 10 energy batch means, in time order, with the later
    /// one lower: 45 for a strictly falling energy, about 22 for a stationary chain (0 when the
    /// window has fewer than 10 iterations).
    pub energy_trend_falling: u32,
    /// Pairs with the later one higher: 45 for a strictly rising energy (0 likewise).
    pub energy_trend_rising: u32,
    /// Mean of the energy U over the final window.
    pub energy_mean: f64,
    /// Standard deviation of U over the final window.
    pub energy_sd: f64,
    /// Energy BFMI of the final window: mean squared change of U between iterations over U's
    /// variance.
    pub bfmi: f64,
    /// Condition number of the inverse mass matrix (1 without one; for a dense one, the ratio
    /// of power-method estimates of its extreme eigenvalues).
    pub condition_number: f64,
    /// Divergent iterations during the whole warm-up.
    pub divergences: u64,
    /// Iterations of the final window.
    pub window_iterations: u64,
    /// Divergent iterations of the final window.
    pub window_divergences: u64,
}

impl WarmupReport {
    /// The report of a chain without warm-up, or before anything is known.
    pub const fn empty(verdict: Verdict, target_accept: f64) -> Self {
        WarmupReport {
            verdict,
            reasons: 0,
            iterations: 0,
            approach_iterations: 0,
            approach_energy: [f64::NAN; 2],
            approach_unfinished: false,
            metric_updates: 0,
            restarts: 0,
            step_size: f64::NAN,
            target_accept,
            accept_rate: f64::NAN,
            energy_trend_z: f64::NAN,
            energy_trend_falling: 0,
            energy_trend_rising: 0,
            energy_mean: f64::NAN,
            energy_sd: f64::NAN,
            bfmi: f64::NAN,
            condition_number: f64::NAN,
            divergences: 0,
            window_iterations: 0,
            window_divergences: 0,
        }
    }

    /// Sets the verdict from the reasons found in this chain alone.
    // `!(x <= limit)` on purpose: a NaN statistic counts as out of range.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub(crate) fn judge(&mut self) {
        let mut r = self.reasons & REASON_METRIC;
        let monotone =
            self.energy_trend_falling.max(self.energy_trend_rising) >= 45 - TREND_DISCORDANT;
        let z = self.energy_trend_z.abs();
        if (z.is_nan() || z > TREND_Z || monotone) && self.window_iterations >= 3 {
            r |= REASON_ENERGY_TREND;
        }
        let off = (self.accept_rate - self.target_accept).abs();
        if off.is_nan() || off > ACCEPT_TOLERANCE {
            r |= REASON_ACCEPTANCE;
        }
        if self.window_divergences as f64 > DIVERGENCE_FRACTION * self.window_iterations as f64 {
            r |= REASON_DIVERGENCES;
        }
        if self.bfmi < BFMI_MIN {
            r |= REASON_LOW_BFMI;
        }
        self.reasons = r;
        self.verdict = if r == 0 {
            Verdict::Ok
        } else {
            Verdict::Suspect
        };
    }
}

/// Batches of a window's energy trend.
pub(crate) const TREND_BATCHES: usize = 10;

/// Running statistics of the current window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WindowStats {
    /// The window's planned length (sets the trend's batch length).
    len: u64,
    n: u64,
    alpha_sum: f64,
    divergences: u64,
    /// Welford over U.
    u_mean: f64,
    u_m2: f64,
    /// Sum of squared changes of U.
    du2: f64,
    last_u: f64,
    /// Per trend batch: sum of U and count.
    batch_sum: [f64; TREND_BATCHES],
    batch_n: [u64; TREND_BATCHES],
}

impl WindowStats {
    /// An empty window of `len` planned iterations.
    pub(crate) const fn new(len: u64) -> Self {
        WindowStats {
            len,
            n: 0,
            alpha_sum: 0.0,
            divergences: 0,
            u_mean: 0.0,
            u_m2: 0.0,
            du2: 0.0,
            last_u: f64::NAN,
            batch_sum: [0.0; TREND_BATCHES],
            batch_n: [0; TREND_BATCHES],
        }
    }

    /// Empties the window for `len` planned iterations, in place (a temporary `WindowStats` on
    /// the stack cost its 200 bytes on Cortex-M).
    pub(crate) fn reset(&mut self, len: u64) {
        self.len = len;
        self.n = 0;
        self.alpha_sum = 0.0;
        self.divergences = 0;
        self.u_mean = 0.0;
        self.u_m2 = 0.0;
        self.du2 = 0.0;
        self.last_u = f64::NAN;
        for x in self.batch_sum.iter_mut() {
            *x = 0.0;
        }
        for x in self.batch_n.iter_mut() {
            *x = 0;
        }
    }

    /// Records one iteration: its acceptance probability, whether it diverged, the energy
    /// after it.
    pub(crate) fn push(&mut self, alpha: f64, divergent: bool, u: f64) {
        let b = if self.len >= TREND_BATCHES as u64 {
            ((self.n * TREND_BATCHES as u64) / self.len).min(TREND_BATCHES as u64 - 1) as usize
        } else {
            (self.n as usize).min(TREND_BATCHES - 1)
        };
        self.n += 1;
        self.alpha_sum += alpha;
        self.divergences += divergent as u64;
        let d = u - self.u_mean;
        self.u_mean += d / self.n as f64;
        self.u_m2 += d * (u - self.u_mean);
        if self.n > 1 {
            self.du2 += (u - self.last_u) * (u - self.last_u);
        }
        self.last_u = u;
        if let (Some(s), Some(c)) = (self.batch_sum.get_mut(b), self.batch_n.get_mut(b)) {
            *s += u;
            *c += 1;
        }
    }

    /// The z-statistic of the energy's trend: the least-squares slope of the batch means
    /// against the batch index, over its standard error from the residuals (B − 2 degrees of
    /// freedom). NaN below 3 batches; ±∞ when the batch means lie exactly on a line (a steady
    /// drift with no scatter).
    pub(crate) fn trend_z(&self) -> f64 {
        // Over the batches with draws, in batch order, without arrays (the Cortex-M stack):
        // x = the batch index, y = its mean.
        let points = || {
            self.batch_sum
                .iter()
                .zip(&self.batch_n)
                .enumerate()
                .filter(|(_, (_, &c))| c > 0)
                .map(|(b, (&s, &c))| (b as f64, s / c as f64))
        };
        let m = points().count();
        if m < 3 {
            return f64::NAN;
        }
        let mf = m as f64;
        let xbar = points().map(|p| p.0).sum::<f64>() / mf;
        let ybar = points().map(|p| p.1).sum::<f64>() / mf;
        let (mut sxx, mut sxy) = (0.0f64, 0.0f64);
        for (x, y) in points() {
            sxx += (x - xbar) * (x - xbar);
            sxy += (x - xbar) * (y - ybar);
        }
        let slope = sxy / sxx;
        let mut rss = 0.0f64;
        for (x, y) in points() {
            let e = y - ybar - slope * (x - xbar);
            rss += e * e;
        }
        let se = libm::sqrt(rss / (mf - 2.0) / sxx);
        slope / se
    }

    /// Writes this window's numbers into `r`.
    pub(crate) fn report_into(&self, r: &mut WarmupReport) {
        let nf = self.n as f64;
        r.window_iterations = self.n;
        r.window_divergences = self.divergences;
        r.accept_rate = if self.n > 0 {
            self.alpha_sum / nf
        } else {
            f64::NAN
        };
        r.energy_mean = if self.n > 0 { self.u_mean } else { f64::NAN };
        let var = if self.n > 1 {
            self.u_m2 / (nf - 1.0)
        } else {
            f64::NAN
        };
        r.energy_sd = libm::sqrt(var);
        r.bfmi = if self.n > 1 {
            (self.du2 / (nf - 1.0)) / var
        } else {
            f64::NAN
        };
        r.energy_trend_z = self.trend_z();
        (r.energy_trend_falling, r.energy_trend_rising) = self.monotonicity();
    }

    /// Pairs (i < j) of the 10 batch means with the later one lower, and with it higher
    /// (both 0 until every batch has a draw).
    pub(crate) fn monotonicity(&self) -> (u32, u32) {
        if self.batch_n.contains(&0) {
            return (0, 0);
        }
        let mean = |b: usize| {
            let s = self.batch_sum.get(b).copied().unwrap_or(f64::NAN);
            let c = self.batch_n.get(b).copied().unwrap_or(1);
            s / c as f64
        };
        let (mut falling, mut rising) = (0u32, 0u32);
        for i in 0..TREND_BATCHES {
            for j in i + 1..TREND_BATCHES {
                falling += (mean(j) < mean(i)) as u32;
                rising += (mean(j) > mean(i)) as u32;
            }
        }
        (falling, rising)
    }

    /// Iterations recorded.
    pub(crate) fn count(&self) -> u64 {
        self.n
    }
}

/// Iterations a step-size search may take.
pub(crate) const SEARCH_ITERATIONS: u32 = 12;

/// The step-size search after a metric update: ε doubles while the acceptance probability is
/// above the target and halves while it is below, until it crosses (then ε goes back half a
/// doubling: the geometric middle of the last two) or [`SEARCH_ITERATIONS`] pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Search {
    left: u32,
    dir: i8,
}

impl Search {
    /// No search under way.
    pub(crate) const IDLE: Search = Search { left: 0, dir: 0 };

    /// A new search.
    pub(crate) const fn start() -> Search {
        Search {
            left: SEARCH_ITERATIONS,
            dir: 0,
        }
    }

    /// `true` while searching.
    pub(crate) const fn active(&self) -> bool {
        self.left > 0
    }

    /// Feeds one iteration's acceptance probability; returns the next ε and whether the search
    /// has ended (the caller then restarts the dual averaging from that ε).
    pub(crate) fn update(&mut self, eps: f64, alpha: f64, target: f64) -> (f64, bool) {
        let up = alpha > target;
        let dir: i8 = if up { 1 } else { -1 };
        self.left = self.left.saturating_sub(1);
        if self.dir != 0 && dir != self.dir {
            // Crossed: the middle of the last two, in log scale.
            self.left = 0;
            let back = if self.dir > 0 {
                core::f64::consts::FRAC_1_SQRT_2
            } else {
                core::f64::consts::SQRT_2
            };
            return (eps * back, true);
        }
        self.dir = dir;
        let next = if up { eps * 2.0 } else { eps * 0.5 };
        (next, self.left == 0)
    }
}

/// The gain of the final window's Robbins–Monro recursion on log ε.
pub(crate) const SETTLE_GAIN: f64 = 0.1;

/// The final window's step-size rule: a Robbins–Monro recursion with a small fixed gain,
/// `log ε ← log ε + 0.1·(α − δ)`, and as the final ε the geometric mean of the values used
/// after the first quarter of the window. The dual averaging's iterates swing widely (their spread in
/// log ε is about σ_α/γ), so the acceptance at their average ε̄ is well above the target (the
/// acceptance is concave in log ε there): 0.83–0.90 after a warm-up that targeted 0.65 was
/// measured. The small gain keeps the iterates close, so the acceptance at their mean is the
/// target's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Settle {
    log_eps: f64,
    n: u64,
    planned: u64,
    sum: f64,
    count: u64,
}

impl Settle {
    /// Starts from ε for a window of `planned` iterations.
    pub(crate) fn new(eps: f64, planned: u64) -> Self {
        Settle {
            log_eps: libm::log(eps),
            n: 0,
            planned,
            sum: 0.0,
            count: 0,
        }
    }

    /// Feeds the acceptance probability of the iteration that used the current ε; returns the
    /// next ε.
    pub(crate) fn update(&mut self, alpha: f64, target: f64) -> f64 {
        if 4 * self.n >= self.planned {
            self.sum += self.log_eps;
            self.count += 1;
        }
        self.n += 1;
        self.log_eps += SETTLE_GAIN * (alpha - target);
        libm::exp(self.log_eps)
    }

    /// The final ε: the geometric mean of the values after the first quarter (the current one
    /// before any).
    pub(crate) fn final_step_size(&self) -> f64 {
        if self.count == 0 {
            libm::exp(self.log_eps)
        } else {
            libm::exp(self.sum / self.count as f64)
        }
    }
}

/// How the windowed phase is laid out, in iterations counted from its start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Windows {
    /// Chain iterations done when the windowed phase began (the approach's).
    pub(crate) start: u64,
    /// Its length W₂.
    pub(crate) len: u64,
    /// The slow windows (with a mass matrix).
    pub(crate) mass: crate::mass::MassWindows,
    /// `true` when the chain has a mass matrix to estimate.
    pub(crate) has_mass: bool,
}

impl Windows {
    /// The layout for W₂ = `len` iterations after `start`, in a warm-up of `total`.
    pub(crate) const fn new(start: u64, len: u64, total: u64, has_mass: bool) -> Self {
        Windows {
            start,
            len,
            mass: crate::mass::MassWindows::within(len, total),
            has_mass,
        }
    }

    /// The end (count within the phase) of the initial fast window.
    pub(crate) const fn fast_end(&self) -> u64 {
        if self.has_mass {
            self.mass.init()
        } else {
            self.final_start()
        }
    }

    /// The count within the phase after which the final window begins.
    pub(crate) const fn final_start(&self) -> u64 {
        self.mass.last()
    }

    /// The phase of iteration `m` (1-based count within the windowed phase).
    pub(crate) const fn phase_of(&self, m: u64) -> Phase {
        if m > self.final_start() {
            Phase::Final
        } else if m > self.fast_end() {
            Phase::Slow
        } else {
            Phase::Fast
        }
    }
}

/// The warm-up's state while it runs (plain data in the chain's core).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Warmup {
    /// The approach (done from the start when it is off).
    pub(crate) approach: crate::approach::Approach,
    /// The windowed phase, once the approach is over.
    pub(crate) windows: Option<Windows>,
    /// The dual averaging of ε (idle while a search runs).
    pub(crate) da: DualAveraging,
    /// The step-size search after a metric update.
    pub(crate) search: Search,
    /// The final window's step-size rule, once it has begun.
    pub(crate) settle: Option<Settle>,
    /// The draws of a slow window that has just ended, whose metric update the next step
    /// makes (0: none pending).
    pub(crate) pending_update: u64,
    /// The current window's statistics.
    pub(crate) stats: WindowStats,
    /// `true` once the metric has been set by the caller (the approach's curvature then does
    /// not replace it).
    pub(crate) metric_given: bool,
    /// The report being built.
    pub(crate) report: WarmupReport,
}

/// Compares the warm-up reports of `k` chains of one model and flags
/// [`REASON_CHAINS_DISAGREE`] (making the verdict SUSPECT) in every chain whose final-window
/// mean energy is more than [`ENERGY_GAP`] median within-chain sds from the median of the
/// means, and in all of them when `rhat` (the classic R̂ of the chains' final-window positions,
/// computed by the caller, NaN when unknown) exceeds [`WINDOW_RHAT`]. Reports still running or
/// without a warm-up are left alone, and do not count.
pub fn compare_reports(reports: &mut [WarmupReport], rhat: f64) {
    let (med_mean, med_sd, n) = {
        let r: &[WarmupReport] = reports;
        energy_medians(r.len(), |i| r.get(i).copied())
    };
    for r in reports.iter_mut() {
        flag_disagreement(r, med_mean, med_sd, n, rhat);
    }
}

/// The medians of the finished reports' final-window mean energies and energy sds, and how
/// many there are (reports reached by index: no storage, O(k²)).
pub(crate) fn energy_medians(
    k: usize,
    get: impl Fn(usize) -> Option<WarmupReport>,
) -> (f64, f64, usize) {
    let finished =
        |i: usize| get(i).filter(|r| matches!(r.verdict, Verdict::Ok | Verdict::Suspect));
    let n = (0..k).filter(|&i| finished(i).is_some()).count();
    let med = |f: &dyn Fn(&WarmupReport) -> f64| median_by(k, |i| finished(i).map(|r| f(&r)));
    (med(&|r| r.energy_mean), med(&|r| r.energy_sd), n)
}

/// One report's share of [`compare_reports`]: the flag when its energy is off the median by
/// more than [`ENERGY_GAP`] median sds (with at least two finished chains), or when `rhat`
/// exceeds [`WINDOW_RHAT`].
pub(crate) fn flag_disagreement(
    r: &mut WarmupReport,
    med_mean: f64,
    med_sd: f64,
    finished: usize,
    rhat: f64,
) {
    if !matches!(r.verdict, Verdict::Ok | Verdict::Suspect) {
        return;
    }
    let gap = (r.energy_mean - med_mean).abs();
    let limit = ENERGY_GAP * med_sd;
    let far = gap.is_nan() || limit.is_nan() || gap > limit;
    if rhat > WINDOW_RHAT || (finished >= 2 && far) {
        r.reasons |= REASON_CHAINS_DISAGREE;
        r.verdict = Verdict::Suspect;
    }
}

/// The median of the values `get(i)` gives (`None`: skipped), by counting ranks: O(k²), no
/// storage. NaN values count as larger than every number; NaN for none.
fn median_by(k: usize, get: impl Fn(usize) -> Option<f64>) -> f64 {
    let n = (0..k).filter(|&i| get(i).is_some()).count();
    if n == 0 {
        return f64::NAN;
    }
    let less = |a: f64, b: f64| a < b || (b.is_nan() && !a.is_nan());
    // The value of rank r (0-based) among the present ones: the x with #{y < x} ≤ r < #{y ≤ x}.
    let at_rank = |r: usize| {
        for i in 0..k {
            let Some(x) = get(i) else {
                continue;
            };
            let (mut lt, mut le) = (0usize, 0usize);
            for j in 0..k {
                if let Some(y) = get(j) {
                    lt += less(y, x) as usize;
                    le += (!less(x, y)) as usize;
                }
            }
            if lt <= r && r < le {
                return x;
            }
        }
        f64::NAN
    };
    if n % 2 == 1 {
        at_rank(n / 2)
    } else {
        0.5 * (at_rank(n / 2 - 1) + at_rank(n / 2))
    }
}

// The checkpoint encoding of the warm-up's state (src/wire.rs), field by field.
#[cfg(feature = "ffi")]
mod wire_impls {
    use super::*;
    use crate::wire::{wire_enum, wire_struct};

    wire_enum!(Verdict {
        None,
        Running,
        Ok,
        Suspect
    });
    wire_struct!(WarmupReport {
        verdict,
        reasons,
        iterations,
        approach_iterations,
        approach_energy,
        approach_unfinished,
        metric_updates,
        restarts,
        step_size,
        target_accept,
        accept_rate,
        energy_trend_z,
        energy_trend_falling,
        energy_trend_rising,
        energy_mean,
        energy_sd,
        bfmi,
        condition_number,
        divergences,
        window_iterations,
        window_divergences,
    });
    wire_struct!(WindowStats {
        len,
        n,
        alpha_sum,
        divergences,
        u_mean,
        u_m2,
        du2,
        last_u,
        batch_sum,
        batch_n,
    });
    wire_struct!(Search { left, dir });
    wire_struct!(Settle {
        log_eps,
        n,
        planned,
        sum,
        count
    });
    wire_struct!(Windows {
        start,
        len,
        mass,
        has_mass
    });
    wire_struct!(Warmup {
        approach,
        windows,
        da,
        search,
        settle,
        pending_update,
        stats,
        metric_given,
        report,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trend_of_a_drift_and_of_noise() {
        let mut w = WindowStats::new(100);
        for t in 0..100 {
            // A drift of −1 per iteration plus a wobble.
            w.push(0.7, false, 1000.0 - t as f64 + ((t * 37) % 11) as f64);
        }
        assert!(w.trend_z() < -20.0, "{}", w.trend_z());
        // An exponential decay with noise: a curve the straight line fits badly (z modest),
        // but every batch below the last.
        let mut w = WindowStats::new(100);
        let mut rng = crate::Rng::new(8, 0);
        for t in 0..100 {
            w.push(
                0.7,
                false,
                5e4 * libm::exp(-(t as f64) / 30.0) + 20.0 * rng.normal(),
            );
        }
        let (falling, rising) = w.monotonicity();
        assert!(falling >= 43 && rising <= 2, "{falling} {rising}");
        let mut r = WarmupReport::empty(Verdict::Running, 0.65);
        w.report_into(&mut r);
        r.judge();
        assert!(r.reasons & REASON_ENERGY_TREND != 0, "{r:?}");
        let mut w = WindowStats::new(100);
        let mut rng = crate::Rng::new(3, 0);
        for _ in 0..100 {
            w.push(0.7, false, 50.0 + 3.0 * rng.normal());
        }
        assert!(w.trend_z().abs() < 4.0, "{}", w.trend_z());
        let mut r = WarmupReport::empty(Verdict::Running, 0.65);
        w.report_into(&mut r);
        assert!((r.accept_rate - 0.7).abs() < 1e-12);
        assert!((r.energy_sd - 3.0).abs() < 1.0, "{}", r.energy_sd);
        // Independent draws: BFMI ≈ 2.
        assert!(r.bfmi > 1.2 && r.bfmi < 3.0, "{}", r.bfmi);
        r.judge();
        assert_eq!((r.verdict, r.reasons), (Verdict::Ok, 0));
    }

    #[test]
    fn search_doubles_then_stops_at_the_crossing() {
        let mut s = Search::start();
        let (e1, done) = s.update(0.1, 0.99, 0.65);
        assert!((e1 - 0.2).abs() < 1e-15 && !done);
        let (e2, done) = s.update(e1, 0.9, 0.65);
        assert!((e2 - 0.4).abs() < 1e-15 && !done);
        let (e3, done) = s.update(e2, 0.3, 0.65);
        assert!(done && (e3 - 0.4 / core::f64::consts::SQRT_2).abs() < 1e-15);
        assert!(!s.active());
    }

    #[test]
    fn disagreeing_energies_are_flagged() {
        let mut rs = [WarmupReport::empty(Verdict::Ok, 0.65); 4];
        for (i, r) in rs.iter_mut().enumerate() {
            r.energy_mean = 100.0 + i as f64 * 0.5;
            r.energy_sd = 3.0;
        }
        rs[3].energy_mean = 1.2e6;
        compare_reports(&mut rs, 1.0);
        assert_eq!(rs[3].verdict, Verdict::Suspect);
        assert!(rs[..3].iter().all(|r| r.verdict == Verdict::Ok));
        compare_reports(&mut rs, 1.5);
        assert!(rs.iter().all(|r| r.reasons & REASON_CHAINS_DISAGREE != 0));
        // The median by ranks: odd, even, ties.
        let xs = [3.0, 1.0, 2.0, 2.0, 9.0];
        assert_eq!(median_by(5, |i| xs.get(i).copied()), 2.0);
        assert_eq!(median_by(4, |i| xs.get(i).copied()), 2.0);
        assert_eq!(median_by(2, |i| xs.get(i).copied()), 2.0);
        assert!(median_by(0, |_| None).is_nan());
    }
}
