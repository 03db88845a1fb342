//! Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari & Gelman 2018): the models,
//! the samplers' runs, the ranks and the χ² test of tests/sbc.rs (docs/algorithms.md §5).
//!
//! One replicate draws θ* from the prior, simulates a data set from θ*, runs the sampler on the
//! posterior of that data set, and records for every parameter j the rank of θ*_j among the L
//! kept draws (the number of draws below it, 0 ..= L). θ* is a draw from the posterior of the
//! data it generated, so when the L draws are independent draws of that posterior the rank is
//! uniform on {0, …, L}; a sampler whose draws are too wide piles the ranks up in the middle,
//! too narrow at both ends, shifted on one side. The ranks of R replicates are put into B bins
//! and compared with the uniform law by Pearson's χ² test.
//!
//! Everything random comes from `sgsample::Rng` with fixed seeds: replicate r uses the stream
//! r of the case's seed for θ*, the data and SVGD's starting particles (in that order; chains
//! start at the posterior mode), and the sampler runs on its own stream r of the seed + 1 (SVGD:
//! 16·r + phase), so the whole outcome is a pure function of the case.
#![allow(dead_code)]

use sgsample::{
    minibatch, Amagold, AmagoldConfig, Chain, ChainStep, Gradient, KernelChoice, Outcome,
    Potential, Rng, Sghmc, SghmcConfig, Sgld, SgldConfig, StepInfo, StepRule, Stop, Svgd,
    SvgdConfig,
};

// ------------------------------------------------------------------------------------------
// The models
// ------------------------------------------------------------------------------------------

/// The three models. Each has a proper prior that θ* is drawn from, a data set simulated from
/// θ*, the full-data energy U(θ) = −log p(θ | y) + const and its gradient, exact or estimated
/// on a minibatch chosen from the sampler's seed with `sgsample::minibatch` and rescaled by
/// n/B, so that the estimate is unbiased.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// Conjugate Gaussian linear regression, d = 3: y_i = x_iᵀθ + N(0, 1), θ ~ N(0, I), a fixed
    /// design of n = 20 rows whose columns have scales 1, 0.5 (correlated with the first,
    /// ρ = 0.6) and 0.25. The posterior N(A⁻¹Xᵀy, A⁻¹), A = XᵀX + I, has standard deviations
    /// 0.25, 0.46 and 0.70 (the first two correlated, −0.59) and is the same for every replicate
    /// up to its mean (fixed design).
    LinearRegression,
    /// Logistic regression, d = 3 (intercept and two slopes): y_i ~ Bernoulli(1/(1 + e^{−x_iᵀθ})),
    /// x_i = (1, u_i, v_i), u_i ~ N(0, 1), v_i ~ N(0, 0.5²) drawn with the data, n = 30,
    /// θ ~ N(0, I). Curvature depends on θ and on the data.
    Logistic,
    /// Poisson log-rate regression, d = 2: y_i ~ Poisson(exp(α + β·x_i)), x_i ~ N(0.3, 0.5²)
    /// drawn with the data, n = 30, α ~ N(1, 0.5²), β ~ N(0, 0.5²). Both parameters are
    /// unconstrained (the rate is e^{α+βx} > 0); curvature e^{α+βx}·x xᵀ grows with the rate.
    Poisson,
}

impl ModelKind {
    /// The number of parameters.
    pub const fn dim(self) -> usize {
        match self {
            ModelKind::LinearRegression | ModelKind::Logistic => 3,
            ModelKind::Poisson => 2,
        }
    }

    /// The number of observations.
    pub const fn observations(self) -> usize {
        match self {
            ModelKind::LinearRegression => 20,
            ModelKind::Logistic => 30,
            ModelKind::Poisson => 30,
        }
    }

    /// Prior means and standard deviations (independent normals).
    fn prior(self) -> (&'static [f64], &'static [f64]) {
        match self {
            ModelKind::LinearRegression | ModelKind::Logistic => (&[0.0; 3], &[1.0; 3]),
            ModelKind::Poisson => (&[1.0, 0.0], &[0.5, 0.5]),
        }
    }

    /// θ* from the prior.
    pub fn draw_prior(self, rng: &mut Rng) -> Vec<f64> {
        let (m, s) = self.prior();
        m.iter().zip(s).map(|(m, s)| m + s * rng.normal()).collect()
    }
}

/// The fixed design of the linear regression (the same for every replicate and case).
fn regression_design() -> Vec<f64> {
    let mut rng = Rng::new(0x5bc, 0);
    let n = ModelKind::LinearRegression.observations();
    let mut x = Vec::with_capacity(3 * n);
    for _ in 0..n {
        let a = rng.normal();
        let b = 0.6 * a + 0.8 * rng.normal();
        x.extend_from_slice(&[a, 0.5 * b, 0.25 * rng.normal()]);
    }
    x
}

/// A Poisson draw of mean λ: the number of arrivals of a unit-rate Poisson process before λ
/// (exponential gaps), exact for any λ, O(λ) work.
fn poisson(rng: &mut Rng, lambda: f64) -> f64 {
    let mut k = 0.0;
    let mut t = -(1.0 - rng.uniform_f64()).ln();
    while t < lambda {
        k += 1.0;
        t -= (1.0 - rng.uniform_f64()).ln();
    }
    k
}

/// log(1 + e^η) without overflow.
fn softplus(eta: f64) -> f64 {
    if eta > 0.0 {
        eta + (-eta).exp().ln_1p()
    } else {
        eta.exp().ln_1p()
    }
}

/// A simulated data set with its model: the sampler's callbacks.
#[derive(Clone)]
pub struct Data {
    pub kind: ModelKind,
    /// Row-major covariates, d per observation (the intercept column included).
    x: Vec<f64>,
    y: Vec<f64>,
    /// Minibatch size, or `None` for exact gradients.
    batch: Option<usize>,
    idx: Vec<u64>,
    /// Linear regression: XᵀX + I and Xᵀy (the exact gradient is (XᵀX + I)θ − Xᵀy).
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Data {
    /// The data set of θ* (the covariates first, then the responses, from `rng`).
    pub fn simulate(kind: ModelKind, theta: &[f64], batch: Option<usize>, rng: &mut Rng) -> Data {
        let d = kind.dim();
        let n = kind.observations();
        let x = match kind {
            ModelKind::LinearRegression => regression_design(),
            ModelKind::Logistic => (0..n)
                .flat_map(|_| [1.0, rng.normal(), 0.5 * rng.normal()])
                .collect(),
            ModelKind::Poisson => (0..n)
                .flat_map(|_| [1.0, 0.3 + 0.5 * rng.normal()])
                .collect(),
        };
        let y = x
            .chunks_exact(d)
            .map(|row| {
                let eta: f64 = row.iter().zip(theta).map(|(a, b)| a * b).sum();
                match kind {
                    ModelKind::LinearRegression => eta + rng.normal(),
                    ModelKind::Logistic => {
                        let p = 1.0 / (1.0 + (-eta).exp());
                        if rng.uniform_f64() < p {
                            1.0
                        } else {
                            0.0
                        }
                    }
                    ModelKind::Poisson => poisson(rng, eta.exp()),
                }
            })
            .collect::<Vec<f64>>();
        let (mut a, mut b) = (vec![0.0; d * d], vec![0.0; d]);
        if kind == ModelKind::LinearRegression {
            for (row, yi) in x.chunks_exact(d).zip(&y) {
                for i in 0..d {
                    b[i] += row[i] * yi;
                    for j in 0..d {
                        a[i * d + j] += row[i] * row[j];
                    }
                }
            }
            for i in 0..d {
                a[i * d + i] += 1.0;
            }
        }
        Data {
            kind,
            x,
            y,
            batch,
            idx: vec![0; batch.unwrap_or(0)],
            a,
            b,
        }
    }

    /// The exact posterior of the linear regression: mean A⁻¹b and the Cholesky factor L of
    /// the covariance A⁻¹ (lower triangular, row-major).
    pub fn exact_posterior(&self) -> (Vec<f64>, Vec<f64>) {
        assert_eq!(self.kind, ModelKind::LinearRegression);
        let d = self.kind.dim();
        let inv = invert(&self.a, d);
        let mean = (0..d)
            .map(|i| (0..d).map(|j| inv[i * d + j] * self.b[j]).sum())
            .collect();
        (mean, cholesky(&inv, d))
    }

    /// The prior's part of U, and its gradient written into `g`.
    fn prior_energy(&self, theta: &[f64], g: Option<&mut [f64]>) -> f64 {
        let (m, s) = self.kind.prior();
        let mut u = 0.0;
        let mut g = g;
        for j in 0..theta.len() {
            let z = (theta[j] - m[j]) / s[j];
            u += 0.5 * z * z;
            if let Some(g) = g.as_deref_mut() {
                g[j] = z / s[j];
            }
        }
        u
    }

    /// Observation i: its covariates, its part of U (up to a constant), and the first and
    /// second derivatives of that part with respect to the linear predictor η = x_iᵀθ.
    fn datum(&self, i: usize, theta: &[f64]) -> (&[f64], f64, f64, f64) {
        let d = theta.len();
        let x = &self.x[i * d..(i + 1) * d];
        let eta: f64 = x.iter().zip(theta).map(|(a, b)| a * b).sum();
        let y = self.y[i];
        let (u, du, ddu) = match self.kind {
            ModelKind::LinearRegression => (0.5 * (y - eta) * (y - eta), eta - y, 1.0),
            ModelKind::Logistic => {
                let p = 1.0 / (1.0 + (-eta).exp());
                (softplus(eta) - y * eta, p - y, p * (1.0 - p))
            }
            ModelKind::Poisson => {
                let rate = eta.exp();
                (rate - y * eta, rate - y, rate)
            }
        };
        (x, u, du, ddu)
    }

    /// The full-data energy U(θ).
    fn full_energy(&self, theta: &[f64]) -> f64 {
        let n = self.y.len();
        self.prior_energy(theta, None) + (0..n).map(|i| self.datum(i, theta).1).sum::<f64>()
    }

    /// The posterior mode, by Newton's method from the prior mean with step halving (U is
    /// strictly convex in all three models: log-concave likelihoods, Gaussian priors). A
    /// function of the data alone: the chains start there, independently of θ* given the data.
    pub fn mode(&self) -> Vec<f64> {
        let d = self.kind.dim();
        let (m, s) = self.kind.prior();
        let mut theta = m.to_vec();
        let mut u = self.full_energy(&theta);
        for _ in 0..100 {
            let mut g = vec![0.0; d];
            self.prior_energy(&theta, Some(&mut g));
            let mut h = vec![0.0; d * d];
            for j in 0..d {
                h[j * d + j] = 1.0 / (s[j] * s[j]);
            }
            for i in 0..self.y.len() {
                let (x, _, du, ddu) = self.datum(i, &theta);
                for a in 0..d {
                    g[a] += du * x[a];
                    for b in 0..d {
                        h[a * d + b] += ddu * x[a] * x[b];
                    }
                }
            }
            let inv = invert(&h, d);
            let step: Vec<f64> = (0..d)
                .map(|a| (0..d).map(|b| inv[a * d + b] * g[b]).sum())
                .collect();
            let mut t = 1.0;
            let (next, un) = loop {
                let next: Vec<f64> = theta.iter().zip(&step).map(|(x, p)| x - t * p).collect();
                let un = self.full_energy(&next);
                if un <= u || t < 1e-12 {
                    break (next, un);
                }
                t *= 0.5;
            };
            let done = u - un <= 1e-14 * (1.0 + u.abs());
            theta = next;
            u = un;
            if done {
                break;
            }
        }
        theta
    }
}

impl Gradient<f64> for Data {
    fn gradient(&mut self, theta: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let d = theta.len();
        let n = self.y.len();
        self.prior_energy(theta, Some(g));
        match self.batch {
            None if self.kind == ModelKind::LinearRegression => {
                // (XᵀX + I)θ − Xᵀy: the prior's part is in A already.
                for ((gi, row), bi) in g.iter_mut().zip(self.a.chunks_exact(d)).zip(&self.b) {
                    *gi = row.iter().zip(theta).map(|(a, t)| a * t).sum::<f64>() - bi;
                }
            }
            None => {
                for i in 0..n {
                    let (x, _, du, _) = self.datum(i, theta);
                    for (gj, xj) in g.iter_mut().zip(x) {
                        *gj += du * xj;
                    }
                }
            }
            Some(batch) => {
                let mut idx = std::mem::take(&mut self.idx);
                minibatch(seed, n as u64, &mut idx).map_err(|_| Stop::Abort)?;
                let w = n as f64 / batch as f64;
                for &i in &idx {
                    let (x, _, du, _) = self.datum(i as usize, theta);
                    for (gj, xj) in g.iter_mut().zip(x) {
                        *gj += w * du * xj;
                    }
                }
                self.idx = idx;
            }
        }
        Ok(())
    }
}

impl Potential<f64> for Data {
    fn energy(&mut self, theta: &[f64]) -> Result<f64, Stop> {
        Ok(self.full_energy(theta))
    }
}

/// The inverse of a symmetric positive definite d×d matrix (Gauss–Jordan, d ≤ 3 here).
fn invert(a: &[f64], d: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    let mut inv: Vec<f64> = (0..d * d)
        .map(|k| if k / d == k % d { 1.0 } else { 0.0 })
        .collect();
    for c in 0..d {
        let p = m[c * d + c];
        for j in 0..d {
            m[c * d + j] /= p;
            inv[c * d + j] /= p;
        }
        for r in 0..d {
            if r != c {
                let f = m[r * d + c];
                for j in 0..d {
                    m[r * d + j] -= f * m[c * d + j];
                    inv[r * d + j] -= f * inv[c * d + j];
                }
            }
        }
    }
    inv
}

/// The lower Cholesky factor of a symmetric positive definite d×d matrix.
fn cholesky(a: &[f64], d: usize) -> Vec<f64> {
    let mut l = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum();
            l[i * d + j] = if i == j {
                (a[i * d + i] - s).sqrt()
            } else {
                (a[i * d + j] - s) / l[j * d + j]
            };
        }
    }
    l
}

// ------------------------------------------------------------------------------------------
// The samplers
// ------------------------------------------------------------------------------------------

/// How one replicate's posterior draws are made.
#[derive(Clone, Copy, Debug)]
pub enum Sampler {
    /// Independent draws from the exact posterior (linear regression only): the harness's own
    /// check, which must pass whatever the chains do.
    ExactPosterior,
    /// A chain started at the posterior mode: `burn` outer iterations discarded, then one draw
    /// kept every `thin` outer iterations.
    Amagold(AmagoldConfig),
    Sghmc(SghmcConfig),
    Sgld(SgldConfig),
    /// N = L particles started from independent prior draws and moved by one SVGD system per
    /// phase (each with its step rule and number of iterations, on its own stream; the
    /// configuration's step rule is ignored); the particles at the end are the draws.
    Svgd {
        config: SvgdConfig<KernelChoice>,
        phases: &'static [(StepRule, u64)],
    },
}

/// One SBC run: a model, a sampler and the test's sizes. Adding a sampler configuration is one
/// more `Case` (tests/sbc.rs keeps them in tables).
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub name: &'static str,
    pub model: ModelKind,
    /// Minibatch size for the sampler's gradients, or `None` for exact gradients.
    pub batch: Option<usize>,
    pub sampler: Sampler,
    /// Chains: outer iterations discarded before the first kept draw.
    pub burn: u64,
    /// Chains: outer iterations per kept draw.
    pub thin: u64,
    /// L: kept draws per replicate (SVGD: the number of particles).
    pub draws: usize,
    /// R: replicates.
    pub replicates: usize,
    /// B: bins of the ranks 0 ..= L (B must divide L + 1).
    pub bins: usize,
    pub seed: u64,
}

/// The χ² test of one case.
#[derive(Clone, Debug)]
pub struct Report {
    pub name: &'static str,
    /// Per parameter: bin counts, Pearson's χ² (B − 1 degrees of freedom) and its p-value.
    pub counts: Vec<Vec<u64>>,
    pub chi2: Vec<f64>,
    pub p: Vec<f64>,
    /// Accepted fraction of the chains' outer iterations (1 for samplers without a test).
    pub accept: f64,
}

impl Report {
    /// The smallest p-value over the parameters.
    pub fn min_p(&self) -> f64 {
        self.p.iter().copied().fold(f64::INFINITY, f64::min)
    }
    /// One line for the log: the χ² and p of every parameter.
    pub fn line(&self) -> String {
        let per: Vec<String> = self
            .chi2
            .iter()
            .zip(&self.p)
            .map(|(c, p)| format!("χ² {c:.1} (p {p:.2e})"))
            .collect();
        format!(
            "{}: {}; acceptance {:.3}",
            self.name,
            per.join(", "),
            self.accept
        )
    }
}

/// `L` draws of a chain started at `theta0`: `burn` outer iterations, then every `thin`-th.
/// Returns the draws (row-major) and the accepted fraction.
fn chain_draws<C: ChainStep<f64, Data>>(
    chain: &mut Chain<'_, f64, C>,
    model: &mut Data,
    case: &Case,
) -> (Vec<f64>, f64) {
    let d = chain.dim();
    let mut out = Vec::with_capacity(case.draws * d);
    let mut accepted = 0u64;
    let total = case.burn + case.thin * case.draws as u64;
    for k in 1..=total {
        let info = chain.step(model).expect("no callback stops the chain");
        accepted += (info.outcome() == Outcome::Accepted) as u64;
        if k > case.burn && (k - case.burn).is_multiple_of(case.thin) {
            out.extend_from_slice(chain.position());
        }
    }
    (out, accepted as f64 / total as f64)
}

/// One replicate's posterior draws (L rows of d) for the data `model`, the sampler on stream
/// `stream`, started from `start` (chains) or from the particles `start` (SVGD).
fn posterior_draws(
    case: &Case,
    model: &mut Data,
    start: &[f64],
    rng: &mut Rng,
    stream: u64,
) -> (Vec<f64>, f64) {
    let d = case.model.dim();
    let seed = case.seed + 1;
    match case.sampler {
        Sampler::ExactPosterior => {
            let (mean, l) = model.exact_posterior();
            let mut out = Vec::with_capacity(case.draws * d);
            for _ in 0..case.draws {
                let z: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
                for i in 0..d {
                    out.push(mean[i] + (0..=i).map(|k| l[i * d + k] * z[k]).sum::<f64>());
                }
            }
            (out, 1.0)
        }
        Sampler::Amagold(cfg) => {
            let cfg = AmagoldConfig {
                seed,
                stream,
                ..cfg
            };
            let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, d)];
            let mut chain = Amagold::new(&cfg, start, &mut ws, model).expect("a valid start");
            chain_draws(&mut chain, model, case)
        }
        Sampler::Sghmc(cfg) => {
            let cfg = SghmcConfig {
                seed,
                stream,
                ..cfg
            };
            let mut ws = vec![0.0; Sghmc::<f64>::workspace_len(d)];
            let mut chain = Sghmc::new(&cfg, start, &mut ws).expect("a valid start");
            chain_draws(&mut chain, model, case)
        }
        Sampler::Sgld(cfg) => {
            let cfg = SgldConfig {
                seed,
                stream,
                ..cfg
            };
            let mut ws = vec![0.0; Sgld::<f64>::workspace_len(d)];
            let mut chain = Sgld::new(&cfg, start, &mut ws).expect("a valid start");
            chain_draws(&mut chain, model, case)
        }
        Sampler::Svgd { config, phases } => {
            let n = case.draws;
            let mut particles = start.to_vec();
            let mut index = vec![0u32; Svgd::<f64>::index_len(n)];
            for (k, &(step_rule, iterations)) in phases.iter().enumerate() {
                let cfg = SvgdConfig {
                    seed,
                    stream: stream * 16 + k as u64,
                    step_rule,
                    ..config
                };
                let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
                let mut svgd = Svgd::new(&cfg, d, &mut particles, &mut ws, &mut index)
                    .expect("a valid configuration");
                svgd.run(iterations, model).expect("finite forces");
            }
            (particles, 1.0)
        }
    }
}

/// Where a replicate's sampler starts: chains at the posterior mode (a function of the data
/// alone, so independent of θ* given the data, and in the bulk of the posterior: a chain with
/// a fixed step started from a prior draw 20 posterior standard deviations away can reject
/// for a thousand iterations), SVGD's particles at independent prior draws.
fn start(case: &Case, model: &Data, rng: &mut Rng) -> Vec<f64> {
    match case.sampler {
        Sampler::Svgd { .. } => (0..case.draws)
            .flat_map(|_| case.model.draw_prior(rng))
            .collect(),
        _ => model.mode(),
    }
}

/// Runs the case: R replicates, the ranks of θ* binned per parameter, the χ² test.
pub fn run(case: &Case) -> Report {
    let d = case.model.dim();
    let l = case.draws;
    assert_eq!((l + 1) % case.bins, 0, "B must divide L + 1");
    let width = (l + 1) / case.bins;
    let mut counts = vec![vec![0u64; case.bins]; d];
    let mut accept = 0.0;
    for r in 0..case.replicates {
        let mut rng = Rng::new(case.seed, r as u64);
        let theta = case.model.draw_prior(&mut rng);
        let mut model = Data::simulate(case.model, &theta, case.batch, &mut rng);
        let start = start(case, &model, &mut rng);
        let (draws, acc) = posterior_draws(case, &mut model, &start, &mut rng, r as u64);
        accept += acc;
        for j in 0..d {
            let rank = draws.chunks_exact(d).filter(|x| x[j] < theta[j]).count();
            counts[j][rank / width] += 1;
        }
    }
    let (chi2, p) = counts
        .iter()
        .map(|c| {
            let x = chi2_stat(c);
            (x, chi2_sf(x, (case.bins - 1) as f64))
        })
        .unzip();
    Report {
        name: case.name,
        counts,
        chi2,
        p,
        accept: accept / case.replicates as f64,
    }
}

// ------------------------------------------------------------------------------------------
// The χ² test
// ------------------------------------------------------------------------------------------

/// Pearson's χ² of counts against equal expectations.
pub fn chi2_stat(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// P(χ²_k > x): the regularised upper incomplete gamma function Q(k/2, x/2), by its series
/// (x < k/2 + 1) or its continued fraction (Numerical Recipes §6.2), to ~1e-14 relative.
pub fn chi2_sf(x: f64, k: f64) -> f64 {
    let (a, x) = (0.5 * k, 0.5 * x);
    if x <= 0.0 {
        return 1.0;
    }
    let front = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        1.0 - sum * front
    } else {
        // Lentz's method for the continued fraction of Γ(a, x).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut dd = 1.0 / b;
        let mut h = dd;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            dd = an * dd + b;
            if dd.abs() < tiny {
                dd = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            dd = 1.0 / dd;
            let del = dd * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        front * h
    }
}

/// ln Γ(a) for a > 0 (Lanczos, g = 7, 9 terms: ~1e-15 relative).
pub fn ln_gamma(a: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if a < 0.5 {
        // Reflection: Γ(a)Γ(1 − a) = π / sin(πa).
        return (std::f64::consts::PI / (std::f64::consts::PI * a).sin()).ln() - ln_gamma(1.0 - a);
    }
    let a = a - 1.0;
    let t = a + 7.5;
    let s = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |s, (i, c)| s + c / (a + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (a + 0.5) * t.ln() - t + s.ln()
}

// ------------------------------------------------------------------------------------------
// Mixing: what the burn-in and the thinning are chosen from
// ------------------------------------------------------------------------------------------

/// The integrated autocorrelation time τ = n/ESS (per outer iteration) of each parameter, for
/// the chain of `case` on `replicates` of its replicates: the chain is started as in [`run`],
/// `case.burn` iterations are discarded, and τ is measured on the next `n` iterations with the
/// library's own ESS (`sgsample::stats`, Geyer's initial monotone sequence over 128 lags).
/// Returns, per parameter, the τ of every replicate (sorted).
pub fn autocorrelation_times(case: &Case, replicates: usize, n: usize) -> Vec<Vec<f64>> {
    use sgsample::stats::Series;
    let d = case.model.dim();
    let mut taus = vec![Vec::new(); d];
    for r in 0..replicates {
        let mut rng = Rng::new(case.seed, r as u64);
        let theta = case.model.draw_prior(&mut rng);
        let mut model = Data::simulate(case.model, &theta, case.batch, &mut rng);
        let start = start(case, &model, &mut rng);
        let long = Case {
            thin: 1,
            draws: n,
            ..*case
        };
        let (draws, _) = posterior_draws(&long, &mut model, &start, &mut rng, r as u64);
        for j in 0..d {
            let mut s = Series::<128>::new();
            for x in draws.chunks_exact(d) {
                s.push(x[j]);
            }
            taus[j].push(n as f64 / s.ess());
        }
    }
    for t in &mut taus {
        t.sort_by(f64::total_cmp);
    }
    taus
}
