//! AMAGOLD's warm-up (docs/algorithms.md §1.7–1.8) on Gaussian targets with known truth: far
//! starts reach the typical set and say so, the step size after the warm-up meets the target
//! acceptance, a chain that did not get there says SUSPECT (alone, and against its
//! neighbours), adaptation learnt by one chain can be handed to another, and the report's
//! phases and states. Seeds are fixed; tolerances are Monte Carlo standard errors.

mod common;
use common::Gaussian;
use sgsample::stats::{ess, Series};
use sgsample::warmup::{REASON_ACCEPTANCE, REASON_CHAINS_DISAGREE, REASON_ENERGY_TREND};
use sgsample::{compare_warmups, Amagold, AmagoldConfig, Mass, Phase, Rng, Verdict, WarmupReport};

/// N(m, Σ) with Σ = S·R·S, R_ij = ρ^|i−j|, sds S spread log-uniformly over [lo, hi].
struct Target {
    model: Gaussian,
    mean: Vec<f64>,
    cov: Vec<f64>,
    d: usize,
}

fn target(d: usize, lo: f64, hi: f64, rho: f64) -> Target {
    let sds: Vec<f64> = (0..d)
        .map(|i| {
            let t = if d > 1 {
                i as f64 / (d - 1) as f64
            } else {
                0.0
            };
            lo * (hi / lo).powf(t)
        })
        .collect();
    let mut cov = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..d {
            cov[i * d + j] = sds[i] * sds[j] * rho.powi((i as i32 - j as i32).abs());
        }
    }
    let prec = invert(&cov, d);
    let mean: Vec<f64> = (0..d)
        .map(|i| 3.0 * sds[i] + 10.0 * i as f64 * sds[i])
        .collect();
    Target {
        model: Gaussian {
            mean: mean.clone(),
            precision: prec,
            noise: 0.0,
        },
        mean,
        cov,
        d,
    }
}

fn invert(a: &[f64], d: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    let mut inv = vec![0.0; d * d];
    for i in 0..d {
        inv[i * d + i] = 1.0;
    }
    for c in 0..d {
        let piv = m[c * d + c];
        for k in 0..d {
            m[c * d + k] /= piv;
            inv[c * d + k] /= piv;
        }
        for r in 0..d {
            if r != c {
                let f = m[r * d + c];
                for k in 0..d {
                    m[r * d + k] -= f * m[c * d + k];
                    inv[r * d + k] -= f * inv[c * d + k];
                }
            }
        }
    }
    inv
}

/// Every coordinate `sds` posterior sds away from the mean, with signs from the seed.
fn far_start(t: &Target, sds: f64, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed, 5);
    (0..t.d)
        .map(|i| {
            let s = if rng.uniform_f64() < 0.5 { -1.0 } else { 1.0 };
            t.mean[i] + s * sds * t.cov[i * t.d + i].sqrt()
        })
        .collect()
}

struct Chains {
    reports: Vec<WarmupReport>,
    compared: Vec<WarmupReport>,
    series: Vec<Vec<Series<128>>>,
    accept: Vec<f64>,
}

/// `k` chains of the adaptive configuration with `mass`, from `starts`, warm-up `warmup`, then
/// `draws` draws; the reports before and after comparing them.
fn run(t: &mut Target, mass: Mass, starts: &[Vec<f64>], warmup: u64, draws: usize) -> Chains {
    let cfg0 = AmagoldConfig {
        mass,
        warmup,
        seed: 17,
        ..AmagoldConfig::adaptive()
    };
    let d = t.d;
    let len = Amagold::<f64>::workspace_len_for(&cfg0, d);
    let mut wss: Vec<Vec<f64>> = starts.iter().map(|_| vec![0.0; len]).collect();
    let mut chains: Vec<Amagold<'_, f64>> = wss
        .iter_mut()
        .zip(starts)
        .enumerate()
        .map(|(c, (ws, s))| {
            let cfg = AmagoldConfig {
                stream: c as u64,
                ..cfg0
            };
            Amagold::new(&cfg, s, ws, &mut t.model).unwrap()
        })
        .collect();
    for ch in chains.iter_mut() {
        for _ in 0..warmup {
            ch.step(&mut t.model).unwrap();
        }
        assert!(!ch.in_warmup());
    }
    let reports: Vec<WarmupReport> = chains.iter().map(|c| c.warmup_report()).collect();
    let mut compared = reports.clone();
    let refs: Vec<&Amagold<'_, f64>> = chains.iter().collect();
    compare_warmups(&refs, &mut compared).unwrap();
    let mut series = vec![];
    let mut accept = vec![];
    for ch in chains.iter_mut() {
        let mut s: Vec<Series<128>> = (0..d).map(|_| Series::new()).collect();
        let mut a = 0u64;
        for _ in 0..draws {
            let info = ch.step(&mut t.model).unwrap();
            assert_eq!(info.phase, Phase::Sampling);
            a += info.accepted as u64;
            for (j, sj) in s.iter_mut().enumerate() {
                sj.push(ch.position()[j]);
            }
        }
        series.push(s);
        accept.push(a as f64 / draws as f64);
    }
    Chains {
        reports,
        compared,
        series,
        accept,
    }
}

/// Pooled means within 4.5 MCSE of the truth (MCSE from the pooled streaming ESS).
fn assert_means(t: &Target, c: &Chains, what: &str) {
    for j in 0..t.d {
        let cs: Vec<&Series<128>> = c.series.iter().map(|s| &s[j]).collect();
        let n_eff = ess(&cs).unwrap();
        let mean = cs.iter().map(|s| s.mean()).sum::<f64>() / cs.len() as f64;
        let se = t.cov[j * t.d + j].sqrt() / n_eff.sqrt();
        assert!(
            (mean - t.mean[j]).abs() < 4.5 * se,
            "{what}: θ{j} mean {mean} vs {} (se {se}, ESS {n_eff})",
            t.mean[j]
        );
    }
}

/// Raw scales (posterior sds 10⁻³ … 10, correlated) from 20 sds away: every chain's warm-up
/// ends in the typical set (its final-window energy within a few sds of d/2 above the mode)
/// and says OK, alone and compared, and the draws after it have the exact means.
#[test]
fn far_starts_on_raw_scales_reach_the_typical_set_and_say_ok() {
    let mut t = target(8, 1e-3, 10.0, 0.5);
    let starts: Vec<Vec<f64>> = (0..4).map(|c| far_start(&t, 20.0, 100 + c)).collect();
    for mass in [Mass::Diagonal, Mass::Dense] {
        let c = run(&mut t, mass, &starts, 1000, 2000);
        let d = t.d as f64;
        for (i, r) in c.compared.iter().enumerate() {
            assert_eq!(r.verdict, Verdict::Ok, "{mass:?} chain {i}: {r:?}");
            // U − U_min ~ Gamma(d/2, 1): mean d/2, sd √(d/2).
            assert!(
                (r.energy_mean - d / 2.0).abs() < 4.0 * (d / 2.0).sqrt(),
                "{mass:?} chain {i}: window energy {} (typical {})",
                r.energy_mean,
                d / 2.0
            );
            assert!(
                r.approach_energy[0] > 1e3 && r.approach_energy[1] < 1e3,
                "{r:?}"
            );
        }
        assert_means(&t, &c, &format!("{mass:?}"));
    }
}

/// The step size the warm-up leaves meets the target acceptance: the acceptance rate of 2000
/// draws within ±0.05 of δ = 0.65 in every chain (its standard error is about 0.011), on an
/// isotropic, a raw-scale and a strongly correlated target. (The dual averaging's average ε̄
/// gave 0.77–0.87 here: the final window now settles ε with a small gain instead.)
#[test]
fn the_acceptance_after_the_warmup_is_the_target() {
    let cases = [
        (target(10, 1.0, 1.0, 0.0), Mass::Diagonal),
        (target(8, 1e-3, 10.0, 0.5), Mass::Diagonal),
        (target(20, 1.0, 1.0, 0.95), Mass::Dense),
    ];
    for (mut t, mass) in cases {
        let starts: Vec<Vec<f64>> = (0..4).map(|c| far_start(&t, 1.0, 200 + c)).collect();
        let c = run(&mut t, mass, &starts, 1000, 2000);
        for (i, a) in c.accept.iter().enumerate() {
            assert!(
                (a - 0.65).abs() < 0.05,
                "d = {}, {mass:?}, chain {i}: acceptance {a} (window {})",
                t.d,
                c.reports[i].accept_rate
            );
        }
    }
}

/// A chain that cannot reach the typical set in its warm-up (no approach, unit mass, raw
/// scales, started 200 sds away, 300 iterations) must say SUSPECT: its energy is still
/// falling. Next to three chains that started at the mean it is also flagged as disagreeing,
/// while they are not.
#[test]
fn a_chain_left_in_a_tail_says_suspect() {
    let mut t = target(6, 1e-3, 10.0, 0.0);
    let d = t.d;
    let far = far_start(&t, 200.0, 300);
    let cfg = AmagoldConfig {
        mass: Mass::Unit,
        approach: false,
        warmup: 300,
        seed: 3,
        ..AmagoldConfig::adaptive()
    };
    let len = Amagold::<f64>::workspace_len_for(&cfg, d);
    let (mut w0, mut w1, mut w2, mut w3) = (
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
    );
    let near = t.mean.clone();
    let mut chains = [
        Amagold::new(&cfg, &far, &mut w0, &mut t.model).unwrap(),
        Amagold::new(
            &AmagoldConfig { stream: 1, ..cfg },
            &near,
            &mut w1,
            &mut t.model,
        )
        .unwrap(),
        Amagold::new(
            &AmagoldConfig { stream: 2, ..cfg },
            &near,
            &mut w2,
            &mut t.model,
        )
        .unwrap(),
        Amagold::new(
            &AmagoldConfig { stream: 3, ..cfg },
            &near,
            &mut w3,
            &mut t.model,
        )
        .unwrap(),
    ];
    for ch in chains.iter_mut() {
        for _ in 0..300 {
            ch.step(&mut t.model).unwrap();
        }
    }
    let alone = chains[0].warmup_report();
    assert_eq!(alone.verdict, Verdict::Suspect, "{alone:?}");
    assert!(
        alone.reasons & (REASON_ENERGY_TREND | REASON_ACCEPTANCE) != 0,
        "{alone:?}"
    );
    assert!(alone.energy_mean > 100.0 * d as f64, "{alone:?}");
    let refs: Vec<&Amagold<'_, f64>> = chains.iter().collect();
    let mut out = vec![WarmupReport::empty(Verdict::None, 0.0); 4];
    compare_warmups(&refs, &mut out).unwrap();
    assert!(out[0].reasons & REASON_CHAINS_DISAGREE != 0, "{:?}", out[0]);
    for (i, r) in out.iter().enumerate().skip(1) {
        assert_eq!(r.reasons & REASON_CHAINS_DISAGREE, 0, "chain {i}: {r:?}");
    }
}

/// ε and a dense inverse mass learnt by a pilot's warm-up, handed to a new chain without a
/// warm-up: the new chain is exact from its first draw, with the pilot's acceptance.
#[test]
fn adaptation_can_be_handed_on() {
    let mut t = target(12, 0.1, 10.0, 0.9);
    let d = t.d;
    let pilot_cfg = AmagoldConfig {
        mass: Mass::Dense,
        seed: 5,
        ..AmagoldConfig::adaptive()
    };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&pilot_cfg, d)];
    let start = far_start(&t, 5.0, 9);
    let mut pilot = Amagold::new(&pilot_cfg, &start, &mut ws, &mut t.model).unwrap();
    for _ in 0..1000 {
        pilot.step(&mut t.model).unwrap();
    }
    assert_eq!(pilot.warmup_report().verdict, Verdict::Ok);
    let eps = pilot.step_size();
    let mut k = vec![0.0; d * d];
    pilot.inverse_mass_dense(&mut k).unwrap();
    let mut series = vec![];
    for c in 0..4u64 {
        let cfg = AmagoldConfig {
            mass: Mass::Dense,
            warmup: 0,
            seed: 6,
            stream: c,
            ..AmagoldConfig::new(1.0)
        };
        let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, d)];
        let mut ch = Amagold::new(&cfg, &t.mean, &mut ws, &mut t.model).unwrap();
        ch.set_step_size(eps).unwrap();
        ch.set_inverse_mass_dense(&k).unwrap();
        assert_eq!(ch.warmup_report().verdict, Verdict::None);
        let mut s: Vec<Series<128>> = (0..d).map(|_| Series::new()).collect();
        let mut acc = 0u64;
        for _ in 0..4000 {
            let info = ch.step(&mut t.model).unwrap();
            assert!(!info.warmup && info.step_size == eps);
            acc += info.accepted as u64;
            for (j, sj) in s.iter_mut().enumerate() {
                sj.push(ch.position()[j]);
            }
        }
        let a = acc as f64 / 4000.0;
        assert!((a - 0.65).abs() < 0.06, "chain {c}: acceptance {a}");
        series.push(s);
    }
    let c = Chains {
        reports: vec![],
        compared: vec![],
        series,
        accept: vec![],
    };
    assert_means(&t, &c, "handed on");
}

/// The phases come in order (approach, fast, slow, final, sampling), every warm-up iteration
/// says so, the report is `Running` during the warm-up and `None` without one.
#[test]
fn phases_and_report_states() {
    let mut t = target(3, 0.5, 2.0, 0.3);
    let cfg = AmagoldConfig {
        warmup: 400,
        seed: 1,
        ..AmagoldConfig::adaptive()
    };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, 3)];
    let start = far_start(&t, 20.0, 1);
    let mut ch = Amagold::new(&cfg, &start, &mut ws, &mut t.model).unwrap();
    assert_eq!(ch.warmup_report().verdict, Verdict::Running);
    let mut last = Phase::Approach as u32;
    let mut seen = [0u32; 5];
    for i in 0..600 {
        let info = ch.step(&mut t.model).unwrap();
        let p = info.phase as u32;
        seen[p as usize] += 1;
        assert_eq!(info.warmup, i < 400, "iteration {i}");
        if info.phase != Phase::Sampling {
            assert!(p >= last, "phase {p} after {last} at {i}");
            last = p;
        }
        if i < 399 {
            assert_eq!(ch.warmup_report().verdict, Verdict::Running);
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    let r = ch.warmup_report();
    assert!(matches!(r.verdict, Verdict::Ok | Verdict::Suspect));
    assert_eq!(r.iterations, 400);
    assert!(
        r.approach_iterations >= 2 && r.approach_iterations < 80,
        "{r:?}"
    );
    let none = AmagoldConfig::new(0.1);
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&none, 3)];
    let ch = Amagold::new(&none, &start, &mut ws, &mut t.model).unwrap();
    assert_eq!(ch.warmup_report().verdict, Verdict::None);
}
