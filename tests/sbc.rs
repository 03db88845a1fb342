//! Simulation-based calibration (Talts et al. 2018; docs/algorithms.md §5): for each case, R
//! replicates draw θ* from the prior, simulate a data set from it, sample the posterior of that
//! data set, and rank θ*_j among the L kept draws; the ranks must be uniform. The models,
//! samplers and the test itself are in tests/common/sbc.rs.
//!
//! # The test and its error rates
//!
//! Per case and parameter, Pearson's χ² of the binned ranks against equal counts, B − 1 = 9
//! degrees of freedom. A case passes when every parameter's p-value is at least α/d, with
//! α = 10⁻³ (Bonferroni over its d parameters): a calibrated sampler fails a case with
//! probability at most 10⁻³, so the 16 cases that must pass raise a false alarm with
//! probability below 1.6 % for a fresh choice of seeds (and never with these fixed seeds: every
//! statistic is printed by `cargo test --release --test sbc -- --nocapture` and listed in §5).
//! A biased sampler must fail: some parameter's p-value below α/d.
//!
//! # Sizes
//!
//! Chains: R = 1000 replicates, L = 19 kept draws (ranks 0..=19), B = 10 bins of two ranks, so
//! 100 expected per bin. The test's resolution (normal posteriors, many draws): draws whose
//! standard deviation is k times the posterior's put Φ(k·Φ⁻¹(b/10)) instead of b/10 below the
//! b-th bin edge, and the χ² then has non-centrality R·B·Σ_b (p_b − 1/B)²: 12 for k = 1.1, 44
//! for k = 1.2, 87 for k = 1.3, 16 for k = 0.9, 73 for k = 0.8; draws shifted by δ posterior
//! standard deviations give 39 for δ = 0.2 and 61 for δ = 0.25. The threshold is 30.7
//! (p = 3.3·10⁻⁴ at 9 degrees of freedom), which a non-centrality of 12 exceeds with
//! probability 0.12, 36 with 0.88, 44 with 0.95 and 61 with more than 0.99. So a standard
//! deviation 20 % off or a mean 0.25 standard deviations off is caught, one 10 % off mostly
//! not: SGHMC and SGLD at the large steps below are off by more, at the small steps by less.
//!
//! SVGD: R = 500, the N = L = 39 particles are the draws (ranks 0..=39), B = 10 bins of four.
//!
//! # Burn-in and thinning
//!
//! SBC needs nearly independent draws: correlated draws cluster, and θ* then falls outside them
//! too often (a ∪-shaped histogram, a false alarm). Chains start at the posterior mode (a
//! function of the data alone) and keep one draw every `thin` outer iterations after `burn`.
//! `thin` is at least the largest integrated autocorrelation time τ measured over 200
//! replicates and about twice its 90th percentile, `burn` about five times the largest τ (the
//! start's influence decays like the autocorrelation); `cargo test --release --test sbc --
//! --ignored --nocapture autocorrelation` measures them again (their values are in §5).
//!
//! # Adding a sampler configuration
//!
//! One more `Case` in a table below (a model, minibatch size, sampler, burn-in, thinning and
//! seed), then `cargo test --release --test sbc -- --ignored --nocapture autocorrelation` for
//! its τ. AMAGOLD with its warm-up is `amagold`'s configuration with `warmup: W` (and
//! `adapt_mass: true`; the harness gives every AMAGOLD chain the mass-matrix workspace) and a
//! `burn` of at least W: the warm-up's draws are not exact, and the chain starts at the mode.

#[path = "common/sbc.rs"]
mod sbc;

use sbc::{autocorrelation_times, chi2_sf, ln_gamma, run, Case, Data, ModelKind, Report, Sampler};
use sgsample::{
    Amagold, AmagoldConfig, KernelChoice, Mass, Rng, SghmcConfig, SgldConfig, StepRule, SvgdConfig,
};

use ModelKind::{LinearRegression as Linear, Logistic, Poisson};

/// Family-wise significance per case.
const ALPHA: f64 = 1e-3;

/// Chains: R, L, B.
const CHAIN: Case = Case {
    name: "",
    model: Linear,
    batch: None,
    sampler: Sampler::ExactPosterior,
    burn: 0,
    thin: 1,
    draws: 19,
    replicates: 1000,
    bins: 10,
    seed: 2018,
};

/// SVGD: R, N = L, B.
const SVGD: Case = Case {
    draws: 39,
    replicates: 500,
    ..CHAIN
};

/// The chains' minibatch size (of 20, 30 and 30 observations).
const BATCH: Option<usize> = Some(10);

/// AMAGOLD with the paper's defaults (T = 10, β = 0.25, σ = 1, reversible) at step ε.
const fn amagold(eps: f64) -> Sampler {
    Sampler::Amagold(AmagoldConfig::new(eps))
}

/// The harness's own check: independent draws from the exact posterior must pass.
const EXACT: [Case; 1] = [Case {
    name: "exact posterior draws, linear regression",
    ..CHAIN
}];

/// AMAGOLD with exact gradients.
const AMAGOLD_EXACT: [Case; 3] = [
    Case {
        name: "AMAGOLD ε = 0.1, exact gradients, linear regression",
        sampler: amagold(0.1),
        burn: 20,
        thin: 4,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD ε = 0.1, exact gradients, logistic regression",
        model: Logistic,
        sampler: amagold(0.1),
        burn: 20,
        thin: 5,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD ε = 0.03, exact gradients, Poisson regression",
        model: Poisson,
        sampler: amagold(0.03),
        burn: 60,
        thin: 12,
        ..CHAIN
    },
];

/// AMAGOLD with minibatch gradients (10 observations, rescaled): exact all the same, also at
/// ε = 0.2, where it accepts one proposal in seven.
const AMAGOLD_MINIBATCH: [Case; 4] = [
    Case {
        name: "AMAGOLD ε = 0.1, minibatch gradients, linear regression",
        batch: BATCH,
        sampler: amagold(0.1),
        burn: 70,
        thin: 15,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD ε = 0.2, minibatch gradients, linear regression",
        batch: BATCH,
        sampler: amagold(0.2),
        burn: 300,
        thin: 60,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD ε = 0.1, minibatch gradients, logistic regression",
        model: Logistic,
        batch: BATCH,
        sampler: amagold(0.1),
        burn: 50,
        thin: 12,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD ε = 0.03, minibatch gradients, Poisson regression",
        model: Poisson,
        batch: BATCH,
        sampler: amagold(0.03),
        burn: 60,
        thin: 12,
        ..CHAIN
    },
];

/// AMAGOLD with its adaptive warm-up (docs/algorithms.md §1.7: the approach, the curvature, the
/// windows with their metric updates, the settled ε) before the kept draws: the warm-up learns
/// from the data, and the chain it leaves must still be exact for that data's posterior.
const fn adaptive(mass: Mass) -> Sampler {
    let mut c = AmagoldConfig::adaptive();
    c.warmup = WARMUP;
    c.mass = mass;
    Sampler::Amagold(c)
}

/// The adaptive chains' warm-up.
const WARMUP: u64 = 300;

const AMAGOLD_ADAPTIVE: [Case; 2] = [
    Case {
        name: "AMAGOLD, adaptive warm-up (dense mass), minibatch gradients, logistic regression",
        model: Logistic,
        batch: BATCH,
        sampler: adaptive(Mass::Dense),
        burn: WARMUP + 70,
        thin: 14,
        ..CHAIN
    },
    Case {
        name: "AMAGOLD, adaptive warm-up (diagonal mass), exact gradients, Poisson regression",
        model: Poisson,
        sampler: adaptive(Mass::Diagonal),
        burn: WARMUP + 20,
        thin: 5,
        ..CHAIN
    },
];

/// SGHMC (the same T, β, σ) and SGLD at a large step with the same minibatches: biased, and
/// the same test must say so. SGHMC at AMAGOLD's ε = 0.1; SGLD at ε = 0.04 on the linear
/// regression (it moves θ by √ε = 0.2 per gradient, as AMAGOLD at ε = 0.2 does) and 0.1 on
/// the logistic one (whose posterior is wider).
const BIASED: [Case; 4] = [
    Case {
        name: "SGHMC ε = 0.1, minibatch gradients, linear regression",
        batch: BATCH,
        sampler: Sampler::Sghmc(SghmcConfig::new(0.1)),
        burn: 20,
        thin: 4,
        ..CHAIN
    },
    Case {
        name: "SGHMC ε = 0.1, minibatch gradients, logistic regression",
        model: Logistic,
        batch: BATCH,
        sampler: Sampler::Sghmc(SghmcConfig::new(0.1)),
        burn: 20,
        thin: 5,
        ..CHAIN
    },
    Case {
        name: "SGLD ε = 0.04, minibatch gradients, linear regression",
        batch: BATCH,
        sampler: Sampler::Sgld(SgldConfig::new(0.04)),
        burn: 500,
        thin: 120,
        ..CHAIN
    },
    Case {
        name: "SGLD ε = 0.1, minibatch gradients, logistic regression",
        model: Logistic,
        batch: BATCH,
        sampler: Sampler::Sgld(SgldConfig::new(0.1)),
        burn: 200,
        thin: 40,
        ..CHAIN
    },
];

/// SGHMC and SGLD at a small step with exact gradients on the linear regression: their bias
/// (a variance about 1 % and 3 % too large on the most curved coordinate) is below the test's
/// resolution, so they must pass. The only runs of these samplers in d > 1 against a
/// correlated posterior (tests/sghmc_stats.rs is one-dimensional, tests/sgld_stats.rs
/// isotropic), and the proof that the test tells a step too large from one small enough.
const SMALL_STEP: [Case; 3] = [
    Case {
        name: "SGHMC ε = 0.04, exact gradients, linear regression",
        sampler: Sampler::Sghmc(SghmcConfig::new(0.04)),
        burn: 130,
        thin: 30,
        ..CHAIN
    },
    Case {
        name: "SGHMC ε = 0.04, persistent momentum, exact gradients, linear regression",
        sampler: Sampler::Sghmc(SghmcConfig {
            resample_momentum: false,
            ..SghmcConfig::new(0.04)
        }),
        burn: 20,
        thin: 8,
        ..CHAIN
    },
    Case {
        name: "SGLD ε = 0.005, exact gradients, linear regression",
        sampler: Sampler::Sgld(SgldConfig::new(0.005)),
        burn: 1200,
        thin: 250,
        ..CHAIN
    },
];

/// SVGD with the median-heuristic Gaussian kernel from N prior draws: 60 AdaGrad iterations
/// (η = 0.1) to travel to the posterior, then 100 at a constant step η_c to settle (with
/// AdaGrad to the end the normalised steps stay about η long and the particles jitter by that
/// much; docs/algorithms.md §5). η_c is about the inverse of the largest posterior precision
/// the model's replicates reach, so that the settling is stable in all of them.
const fn svgd(name: &'static str, model: ModelKind, p: usize) -> Case {
    const LINEAR: &[(StepRule, u64)] = &[
        (StepRule::adagrad(0.1), 60),
        (StepRule::Constant { eta: 0.04 }, 100),
    ];
    const LOGISTIC: &[(StepRule, u64)] = &[
        (StepRule::adagrad(0.1), 60),
        (StepRule::Constant { eta: 0.05 }, 100),
    ];
    const POISSON: &[(StepRule, u64)] = &[
        (StepRule::adagrad(0.1), 60),
        (StepRule::Constant { eta: 0.004 }, 100),
    ];
    let phases = match model {
        Linear => LINEAR,
        Logistic => LOGISTIC,
        Poisson => POISSON,
    };
    Case {
        name,
        model,
        sampler: Sampler::Svgd {
            config: SvgdConfig::new(p, KernelChoice::GaussianMedian, StepRule::adagrad(0.1)),
            phases,
        },
        ..SVGD
    }
}

const FULL_SVGD: [Case; 3] = [
    svgd("SVGD (p = N = 39), linear regression", Linear, 39),
    svgd("SVGD (p = N = 39), logistic regression", Logistic, 39),
    svgd("SVGD (p = N = 39), Poisson regression", Poisson, 39),
];

/// RBM-SVGD p = 8 on the two models where it is accurate (on the logistic regression its
/// particles are too narrow: docs/algorithms.md §5 and the ignored test `findings`).
const RBM_SVGD: [Case; 2] = [
    svgd("RBM-SVGD p = 8, linear regression", Linear, 8),
    svgd("RBM-SVGD p = 8, Poisson regression", Poisson, 8),
];

/// Runs the cases and prints every statistic; returns the reports.
fn reports(cases: &[Case]) -> Vec<Report> {
    cases
        .iter()
        .map(|c| {
            let r = run(c);
            println!("{}\n  counts {:?}", r.line(), r.counts);
            r
        })
        .collect()
}

/// Every case must pass: each parameter's p ≥ α/d.
fn all_pass(cases: &[Case]) {
    let failed: Vec<String> = reports(cases)
        .iter()
        .filter(|r| r.min_p() < ALPHA / r.p.len() as f64)
        .map(|r| format!("{}\n  counts {:?}", r.line(), r.counts))
        .collect();
    assert!(
        failed.is_empty(),
        "ranks not uniform:\n{}",
        failed.join("\n")
    );
}

/// Every case must fail: some parameter's p < α/d.
fn all_fail(cases: &[Case]) {
    let passed: Vec<String> = reports(cases)
        .iter()
        .filter(|r| r.min_p() >= ALPHA / r.p.len() as f64)
        .map(|r| format!("{}\n  counts {:?}", r.line(), r.counts))
        .collect();
    assert!(
        passed.is_empty(),
        "bias not detected:\n{}",
        passed.join("\n")
    );
}

#[test]
fn exact_posterior_draws_pass() {
    all_pass(&EXACT);
}

#[test]
fn amagold_exact_gradients_pass() {
    all_pass(&AMAGOLD_EXACT);
}

#[test]
fn amagold_minibatch_gradients_pass() {
    all_pass(&AMAGOLD_MINIBATCH);
}

#[test]
fn amagold_after_its_adaptive_warmup_passes() {
    all_pass(&AMAGOLD_ADAPTIVE);
}

#[test]
fn sghmc_and_sgld_at_a_large_step_fail() {
    all_fail(&BIASED);
}

#[test]
fn sghmc_and_sgld_at_a_small_step_pass() {
    all_pass(&SMALL_STEP);
}

#[test]
fn full_svgd_passes() {
    all_pass(&FULL_SVGD);
}

#[test]
fn rbm_svgd_p8_passes() {
    all_pass(&RBM_SVGD);
}

/// The χ² tail the thresholds come from, against its closed form for 9 degrees of freedom,
/// P(χ²₉ > x) = erfc(√(x/2)) + 2φ(√x)·Σ_{j=1..4} x^{j−½}/(1·3·…·(2j−1)) (`libm::erfc`), and
/// against tabulated points: a wrong p-value would move every pass and fail.
#[test]
fn chi2_tail_probabilities_are_right() {
    let closed = |x: f64| {
        let phi = (-0.5 * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let (mut acc, mut odd) = (0.0, 1.0);
        for j in 1..=4 {
            odd *= (2 * j - 1) as f64;
            acc += x.powf(j as f64 - 0.5) / odd;
        }
        libm::erfc((0.5 * x).sqrt()) + 2.0 * phi * acc
    };
    for x in [0.5, 3.0, 9.0, 14.7, 21.7, 27.9, 40.0, 80.0] {
        let (got, want) = (chi2_sf(x, 9.0), closed(x));
        assert!(
            (got / want - 1.0).abs() < 1e-11,
            "χ²₉ > {x}: {got} vs {want}"
        );
    }
    // χ²₁: 0.05 at 3.841459, 0.01 at 6.634897; χ²₉: 0.01 at 21.665994, 0.001 at 27.877165.
    assert!((chi2_sf(3.841_459, 1.0) / 0.05 - 1.0).abs() < 1e-6);
    assert!((chi2_sf(6.634_897, 1.0) / 0.01 - 1.0).abs() < 1e-6);
    assert!((chi2_sf(21.665_994, 9.0) / 1e-2 - 1.0).abs() < 1e-6);
    assert!((chi2_sf(27.877_165, 9.0) / 1e-3 - 1.0).abs() < 1e-6);
    assert!((ln_gamma(0.5) - 0.5 * std::f64::consts::PI.ln()).abs() < 1e-14);
    assert!((ln_gamma(4.5) - 11.631_728_396_567_45f64.ln()).abs() < 1e-13);
}

/// The integrated autocorrelation times the chains' burn-in and thinning are chosen from
/// (docs/algorithms.md §5): median, 90th percentile and maximum over 200 replicates, per
/// parameter. Slow (minutes); run by hand after changing a chain case.
#[test]
#[ignore]
fn autocorrelation() {
    let chains = AMAGOLD_EXACT
        .iter()
        .chain(&AMAGOLD_MINIBATCH)
        .chain(&AMAGOLD_ADAPTIVE)
        .chain(&BIASED)
        .chain(&SMALL_STEP);
    for case in chains {
        let taus = autocorrelation_times(case, 200, 4000);
        let q = |t: &[f64], f: f64| t[((t.len() - 1) as f64 * f) as usize];
        let per: Vec<String> = taus
            .iter()
            .map(|t| format!("{:.1}/{:.1}/{:.1}", q(t, 0.5), q(t, 0.9), q(t, 1.0)))
            .collect();
        println!(
            "{} (burn {}, thin {}): τ median/90 %/max {}",
            case.name,
            case.burn,
            case.thin,
            per.join(", ")
        );
    }
}

/// What the suite was built around, measured again (docs/algorithms.md §5, "Findings"); prints,
/// asserts nothing. Slow (minutes).
///
/// * RBM-SVGD p = 8 on the logistic regression at R = 2000: its particles are too narrow;
///   full SVGD there at R = 2000 (slightly too narrow, still within the threshold);
/// * RBM-SVGD p = 8 with AdaGrad to the end (160 iterations at η = 0.1, no settling phase) on
///   the Poisson regression: too wide, the particles jitter by about η;
/// * AMAGOLD ε = 0.1 from a prior draw instead of the mode (linear regression, exact
///   gradients): the latest first acceptance over 200 replicates.
#[test]
#[ignore]
fn findings() {
    const ADAGRAD_ONLY: &[(StepRule, u64)] = &[(StepRule::adagrad(0.1), 160)];
    for case in [
        Case {
            replicates: 2000,
            ..svgd("RBM-SVGD p = 8, logistic regression, R = 2000", Logistic, 8)
        },
        Case {
            replicates: 2000,
            ..svgd(
                "SVGD (p = N = 39), logistic regression, R = 2000",
                Logistic,
                39,
            )
        },
        Case {
            sampler: Sampler::Svgd {
                config: SvgdConfig::new(8, KernelChoice::GaussianMedian, StepRule::adagrad(0.1)),
                phases: ADAGRAD_ONLY,
            },
            ..svgd(
                "RBM-SVGD p = 8, AdaGrad only, Poisson regression",
                Poisson,
                8,
            )
        },
    ] {
        let r = run(&case);
        println!("{}\n  counts {:?}", r.line(), r.counts);
    }
    let (mut latest, mut which) = (0, 0);
    for r in 0..200 {
        let mut rng = Rng::new(CHAIN.seed, r);
        let theta = Linear.draw_prior(&mut rng);
        let mut model = Data::simulate(Linear, &theta, None, &mut rng);
        let start = Linear.draw_prior(&mut rng);
        let cfg = AmagoldConfig {
            seed: CHAIN.seed + 1,
            stream: r,
            ..AmagoldConfig::new(0.1)
        };
        let mut ws = [0.0; 18];
        let mut chain = Amagold::new(&cfg, &start, &mut ws, &mut model).unwrap();
        let first = (1..=5000)
            .find(|_| chain.step(&mut model).unwrap().accepted)
            .unwrap_or(5001);
        if first > latest {
            (latest, which) = (first, r);
        }
    }
    println!(
        "AMAGOLD ε = 0.1 from a prior draw, linear regression: latest first acceptance at \
         iteration {latest} (replicate {which} of 200)"
    );
}
