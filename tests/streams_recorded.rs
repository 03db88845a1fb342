//! Same seed ⇒ same bits, across refactorings: every sampler path runs a few iterations for
//! several seeds, and a hash of everything it produced (positions, forces and info records, as
//! raw bits) is compared with the hash recorded in `tests/data/streams.txt`.
//!
//! The SVGD cases are chosen to reach every pair-sum form the dispatch picks on hosts (the row
//! loop at d > 4 and for batches of 2–3 outside a lane group, the lane groups of p = 2…8, the
//! packed triangle of 4–16 members, the blocked loop of 17 or more; docs/algorithms.md §2) in
//! `f64` and `f32`, with and without replacement, every kernel and step rule, the scale option,
//! both batch schedules, both KSD estimates and the phases; the chains are AMAGOLD (default,
//! adaptive, dense, jittered, skew-reversible), SGHMC and SGLD.
//!
//! A change that alters any bit fails here. When a change of the streams is intended (and
//! documented in the CHANGELOG), record them anew with
//!
//! ```text
//! SGS_RECORD_STREAMS=1 cargo test --release -p sgsample --test streams_recorded
//! ```
//!
//! which rewrites the data file (commit it with the change that needs it).

use sgsample::svgd::{BatchSchedule, BatchScheduler, KsdChoice, Scale, SteinImq};
use sgsample::{
    Amagold, AmagoldConfig, Batching, Float, Gradient, KernelChoice, Mass, Potential, Rng, Sghmc,
    SghmcConfig, Sgld, SgldConfig, StepRule, Stop, Svgd, SvgdConfig, Variant,
};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Mutex;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/streams.txt");
const RECORD: &str = "SGS_RECORD_STREAMS";
/// The tests run on several threads; the data file is rewritten by one at a time.
static FILE: Mutex<()> = Mutex::new(());

/// 64-bit FNV-1a over the bytes fed to it.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn floats<T: Float>(&mut self, xs: &[T]) {
        for x in xs {
            self.bytes(&x.to_f64().to_bits().to_le_bytes());
        }
    }
    /// An info record: its `Debug` text prints every float field in the shortest form that
    /// reads back to the same bits, so the text carries the bits.
    fn info(&mut self, info: &impl Debug) {
        self.bytes(format!("{info:?}").as_bytes());
    }
}

/// A correlated Gaussian with a seed-dependent gradient noise and a nonlinear term, so that a
/// wrong seed, a wrong row or a changed order of operations changes the bits:
/// `∇V(x)_l = x_l + 0.4·x_{l+1} + 0.3·sin(x_l) − 0.5 + 0.2·u(seed, l)`.
#[derive(Clone, Copy)]
struct Wavy;

impl Wavy {
    fn grad_f64(x: &[f64], seed: u64, l: usize) -> f64 {
        let next = x.get(l + 1).copied().unwrap_or(0.0);
        let u = Rng::new(seed, 77 + l as u64).uniform_f64();
        x[l] + 0.4 * next + 0.3 * x[l].sin() - 0.5 + 0.2 * u
    }
}

impl<T: Float> Gradient<T> for Wavy {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        for (l, gl) in g.iter_mut().enumerate() {
            *gl = T::from_f64(Self::grad_f64(&xs, seed, l));
        }
        Ok(())
    }
}

impl<T: Float> Potential<T> for Wavy {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let mut u = 0.0;
        for l in 0..xs.len() {
            let next = xs.get(l + 1).copied().unwrap_or(0.0);
            u += 0.5 * xs[l] * xs[l] + 0.4 * xs[l] * next - 0.3 * xs[l].cos() - 0.5 * xs[l];
        }
        Ok(u)
    }
}

fn start<T: Float>(n: usize, d: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng::new(seed, 5);
    (0..n * d)
        .map(|_| T::from_f64(1.5 * rng.normal()))
        .collect()
}

/// How an SVGD case is driven.
#[derive(Clone, Copy, Debug)]
enum Drive {
    Step,
    /// The phases, `per` batches a piece, pieces run in reverse order.
    Phases(usize),
    Scheduled(BatchSchedule),
}

#[derive(Clone, Copy, Debug)]
struct SvgdCase {
    name: &'static str,
    n: usize,
    d: usize,
    cfg: SvgdConfig<KernelChoice>,
    drive: Drive,
    iters: u64,
}

fn svgd_hash<T: Float>(case: &SvgdCase) -> u64 {
    let (n, d) = (case.n, case.d);
    let mut particles = start::<T>(n, d, case.cfg.seed);
    let mut ws = vec![T::ZERO; Svgd::<T>::workspace_len(n, d, &case.cfg)];
    let mut idx = vec![0u32; n];
    let mut svgd = Svgd::new(&case.cfg, d, &mut particles, &mut ws, &mut idx).unwrap();
    if case.cfg.scale == Scale::Fixed {
        let s: Vec<T> = (0..d).map(|l| T::from_f64(0.3 + 0.7 * l as f64)).collect();
        svgd.set_scale(&s).unwrap();
    }
    let mut h = Fnv::new();
    match case.drive {
        Drive::Step => {
            for _ in 0..case.iters {
                let info = svgd.step(&mut Wavy).unwrap();
                h.info(&info);
                h.floats(svgd.particles());
                h.floats(svgd.force());
            }
        }
        Drive::Phases(per) => {
            for _ in 0..case.iters {
                let mut it = svgd.begin().unwrap();
                let pieces: Vec<_> = it.pieces(per).unwrap().collect();
                for piece in pieces.into_iter().rev() {
                    piece.run(&mut Wavy).unwrap();
                }
                let info = it.finish().unwrap();
                h.info(&info);
                h.floats(svgd.particles());
                h.floats(svgd.force());
            }
        }
        Drive::Scheduled(schedule) => {
            let mut sched = BatchScheduler::new(schedule, n).unwrap();
            for _ in 0..case.iters {
                let summary = svgd.run_scheduled(1, &mut sched, &mut Wavy).unwrap();
                h.info(&summary.last);
                h.bytes(&(sched.batch_size() as u64).to_le_bytes());
                h.floats(svgd.particles());
            }
        }
    }
    h.0
}

fn cfg(p: usize, kernel: KernelChoice, rule: StepRule, seed: u64) -> SvgdConfig<KernelChoice> {
    let mut c = SvgdConfig::new(p, kernel, rule);
    c.seed = seed;
    c.stream = seed ^ 3;
    c
}

fn svgd_cases() -> Vec<SvgdCase> {
    let gauss = KernelChoice::Gaussian { h: 0.7 };
    let median = KernelChoice::GaussianMedian;
    let imq = KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 };
    let imq_other = KernelChoice::InverseMultiquadric { c: 0.8, beta: 0.3 };
    let adagrad = StepRule::adagrad(0.05);
    let constant = StepRule::Constant { eta: 0.02 };
    let decaying = StepRule::Decaying { eta: 0.05 };
    let stein = SteinImq { c: 1.0, beta: -0.5 };
    let mut out = Vec::new();
    for seed in [1u64, 2, 3] {
        let step = |name, n, d, cfg| SvgdCase {
            name,
            n,
            d,
            cfg,
            drive: Drive::Step,
            iters: 4,
        };
        // Lane groups (p = 2 … 8 without replacement, d ≤ 4), and their left-over batch.
        out.push(step("lanes-p2-d1", 67, 1, cfg(2, gauss, adagrad, seed)));
        out.push(step("lanes-p4-d2", 70, 2, cfg(4, median, adagrad, seed)));
        out.push(step("lanes-p8-d3", 131, 3, cfg(8, imq, constant, seed)));
        out.push(step("lanes-p5-d4", 83, 4, cfg(5, gauss, decaying, seed)));
        // Packed triangles (9 … 16 members; every batch with replacement of 4 … 16).
        out.push(step("packed-p12-d2", 100, 2, cfg(12, gauss, adagrad, seed)));
        out.push(step(
            "packed-p16-d4",
            64,
            4,
            cfg(16, imq_other, adagrad, seed),
        ));
        out.push(step("packed-p9-d1", 40, 1, cfg(9, median, constant, seed)));
        // Blocked (17 or more members, d ≤ 4), full SVGD among them.
        out.push(step(
            "blocked-full-d1",
            48,
            1,
            cfg(48, gauss, adagrad, seed),
        ));
        out.push(step("blocked-p24-d4", 75, 4, cfg(24, imq, adagrad, seed)));
        out.push(step(
            "blocked-full-d2",
            37,
            2,
            cfg(37, median, decaying, seed),
        ));
        // The row loop: d > 4, and batches of 2–3 outside a lane group.
        out.push(step("rows-full-d6", 30, 6, cfg(30, gauss, adagrad, seed)));
        out.push(step("rows-p3-d5", 31, 5, cfg(3, imq, constant, seed)));
        out.push(step("rows-p3-d2-small", 7, 2, cfg(3, gauss, adagrad, seed)));
        out.push(step("rows-p2-d9", 20, 9, cfg(2, median, adagrad, seed)));
        // With replacement.
        let mut wr = |name, n, d, p, kernel, rule| {
            let mut c = cfg(p, kernel, rule, seed);
            c.batching = Batching::WithReplacement;
            out.push(step(name, n, d, c));
        };
        wr("wr-p2-d1", 21, 1, 2, gauss, adagrad);
        wr("wr-p6-d3", 50, 3, 6, median, adagrad);
        wr("wr-p20-d2", 45, 2, 20, imq, constant);
        wr("wr-p4-d7", 24, 7, 4, gauss, decaying);
        // The scale option.
        for (name, scale, p, d) in [
            ("scale-particles-p4-d2", Scale::Particles, 4, 2),
            ("scale-fixed-p12-d3", Scale::Fixed, 12, 3),
            ("scale-particles-full-d6", Scale::Particles, 40, 6),
        ] {
            let mut c = cfg(p, gauss, adagrad, seed);
            c.scale = scale;
            out.push(step(name, 40, d, c));
        }
        let mut c = cfg(5, median, adagrad, seed);
        c.scale = Scale::Particles;
        c.batching = Batching::WithReplacement;
        out.push(step("scale-wr-p5-d2", 33, 2, c));
        // The KSD.
        let mut c = cfg(8, gauss, adagrad, seed);
        c.ksd = KsdChoice::Batch(stein);
        out.push(step("ksd-batch-p8-d2", 64, 2, c));
        let mut c = cfg(20, imq, constant, seed);
        c.ksd = KsdChoice::Full(stein);
        out.push(step("ksd-full-p20-d3", 40, 3, c));
        let mut c = cfg(4, gauss, adagrad, seed);
        c.ksd = KsdChoice::Full(stein);
        c.scale = Scale::Particles;
        out.push(step("ksd-full-scale-p4-d1", 30, 1, c));
        // The phases, pieces run out of order.
        out.push(SvgdCase {
            drive: Drive::Phases(3),
            ..step("phases-p4-d2", 90, 2, cfg(4, gauss, adagrad, seed))
        });
        let mut c = cfg(6, median, adagrad, seed);
        c.ksd = KsdChoice::Batch(stein);
        c.scale = Scale::Particles;
        out.push(SvgdCase {
            drive: Drive::Phases(2),
            ..step("phases-ksd-scale-p6-d3", 50, 3, c)
        });
        // Batch schedules.
        out.push(SvgdCase {
            drive: Drive::Scheduled(BatchSchedule::Doubling { start: 2, every: 2 }),
            iters: 8,
            ..step("schedule-doubling-d2", 40, 2, cfg(2, gauss, adagrad, seed))
        });
        let mut c = cfg(2, gauss, adagrad, seed);
        c.ksd = KsdChoice::Batch(stein);
        out.push(SvgdCase {
            drive: Drive::Scheduled(BatchSchedule::KsdDriven {
                start: 2,
                window: 2,
                min_decrease: 0.5,
            }),
            iters: 8,
            ..step("schedule-ksd-d1", 40, 1, c)
        });
    }
    out
}

/// The recorded hashes, by name.
fn recorded() -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(DATA).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, hash) = l.split_once(' ').expect("name hash");
            let hash = u64::from_str_radix(hash.trim(), 16).expect("hex hash");
            (name.to_string(), hash)
        })
        .collect()
}

/// Compares every `(name, hash)` with the recorded one (or, with `SGS_RECORD_STREAMS=1`,
/// rewrites this group's lines of the data file).
fn check(group: &str, got: Vec<(String, u64)>) {
    let _file = FILE.lock().unwrap_or_else(|e| e.into_inner());
    if std::env::var(RECORD).is_ok_and(|v| v == "1") {
        let mut all = recorded();
        all.retain(|k, _| !k.starts_with(&format!("{group}/")));
        all.extend(got);
        let mut text = String::from(
            "# Stream hashes of tests/streams_recorded.rs (name, FNV-1a 64 of the bits in hex).\n\
             # Rewritten by SGS_RECORD_STREAMS=1 cargo test --release -p sgsample --test \
             streams_recorded\n",
        );
        for (k, v) in &all {
            text.push_str(&format!("{k} {v:016x}\n"));
        }
        std::fs::write(DATA, text).unwrap();
        return;
    }
    let want = recorded();
    let mut bad = Vec::new();
    for (name, hash) in &got {
        match want.get(name) {
            Some(w) if w == hash => {}
            Some(w) => bad.push(format!("{name}: {hash:016x}, recorded {w:016x}")),
            None => bad.push(format!("{name}: not recorded")),
        }
    }
    let missing = want
        .keys()
        .filter(|k| k.starts_with(&format!("{group}/")) && !got.iter().any(|(n, _)| n == *k))
        .count();
    assert!(
        bad.is_empty() && missing == 0,
        "{} streams changed, {missing} recorded ones not run:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

fn svgd_hashes() -> Vec<(String, u64)> {
    let mut got = Vec::new();
    for case in svgd_cases() {
        let seed = case.cfg.seed;
        got.push((
            format!("svgd/f64/{}/{seed}", case.name),
            svgd_hash::<f64>(&case),
        ));
        got.push((
            format!("svgd/f32/{}/{seed}", case.name),
            svgd_hash::<f32>(&case),
        ));
    }
    got
}

#[test]
fn svgd_streams_are_the_recorded_ones() {
    check("svgd", svgd_hashes());
}

/// On the rayon pool the iterations are the serial ones, so the same recorded hashes.
#[cfg(feature = "parallel")]
#[test]
fn parallel_svgd_streams_are_the_recorded_ones() {
    if std::env::var(RECORD).is_ok_and(|v| v == "1") {
        return;
    }
    let mut got = Vec::new();
    for case in svgd_cases() {
        if !matches!(case.drive, Drive::Step) {
            continue;
        }
        let (n, d) = (case.n, case.d);
        let mut particles = start::<f64>(n, d, case.cfg.seed);
        let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, d, &case.cfg)];
        let mut idx = vec![0u32; n];
        let mut svgd = Svgd::new(&case.cfg, d, &mut particles, &mut ws, &mut idx).unwrap();
        if case.cfg.scale == Scale::Fixed {
            let s: Vec<f64> = (0..d).map(|l| 0.3 + 0.7 * l as f64).collect();
            svgd.set_scale(&s).unwrap();
        }
        let mut h = Fnv::new();
        for _ in 0..case.iters {
            let info = svgd.step_parallel(&Wavy).unwrap();
            h.info(&info);
            h.floats(svgd.particles());
            h.floats(svgd.force());
        }
        got.push((format!("svgd/f64/{}/{}", case.name, case.cfg.seed), h.0));
    }
    let want = recorded();
    for (name, hash) in got {
        assert_eq!(want.get(&name), Some(&hash), "{name}");
    }
}

/// `iters` outer iterations of a chain: every info record and position.
macro_rules! chain_hash {
    ($chain:expr, $iters:expr) => {{
        let mut chain = $chain;
        let mut h = Fnv::new();
        for _ in 0..$iters {
            let info = chain.step(&mut Wavy).unwrap();
            h.info(&info);
            h.floats(chain.position());
        }
        h.0
    }};
}

fn amagold_hash<T: Float>(cfg: &AmagoldConfig, d: usize, iters: usize) -> u64 {
    let theta0 = start::<T>(1, d, cfg.seed);
    let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(cfg, d)];
    chain_hash!(
        Amagold::new(cfg, &theta0, &mut ws, &mut Wavy).unwrap(),
        iters
    )
}

/// `gradient_chain_hash!(Sampler, cfg, d, iters)`: SGHMC or SGLD (whose `new` takes no model),
/// with the diagonal preconditioner set when the configuration asks for one.
macro_rules! gradient_chain_hash {
    ($Sampler:ident, $T:ty, $cfg:expr, $d:expr, $iters:expr) => {{
        let (cfg, d) = ($cfg, $d);
        let theta0 = start::<$T>(1, d, cfg.seed);
        let mut ws = vec![<$T>::ZERO; $Sampler::<$T>::workspace_len_for(cfg, d)];
        let mut chain = $Sampler::new(cfg, &theta0, &mut ws).unwrap();
        if cfg.mass == Mass::Diagonal {
            let k: Vec<$T> = (0..d)
                .map(|l| <$T>::from_f64(0.5 + 0.25 * l as f64))
                .collect();
            chain.set_inverse_mass(&k).unwrap();
        }
        chain_hash!(chain, $iters)
    }};
}

fn sghmc_hash<T: Float>(cfg: &SghmcConfig, d: usize, iters: usize) -> u64 {
    gradient_chain_hash!(Sghmc, T, cfg, d, iters)
}

fn sgld_hash<T: Float>(cfg: &SgldConfig, d: usize, iters: usize) -> u64 {
    gradient_chain_hash!(Sgld, T, cfg, d, iters)
}

#[test]
fn chain_streams_are_the_recorded_ones() {
    let mut got = Vec::new();
    for seed in [1u64, 2, 3] {
        let with_seed = |mut c: AmagoldConfig| {
            c.seed = seed;
            c.stream = seed ^ 3;
            c
        };
        let mut amagold = vec![
            ("default", with_seed(AmagoldConfig::new(0.1)), 30),
            ("adaptive", with_seed(AmagoldConfig::adaptive()), 150),
        ];
        let mut c = with_seed(AmagoldConfig::adaptive());
        c.mass = Mass::Dense;
        amagold.push(("dense", c, 150));
        let mut c = with_seed(AmagoldConfig::new(0.1));
        c.jitter_steps = true;
        amagold.push(("jitter", c, 30));
        let mut c = with_seed(AmagoldConfig::new(0.1));
        c.variant = Variant::NonReversible;
        amagold.push(("nonreversible", c, 30));
        let mut c = with_seed(AmagoldConfig::new(0.1));
        c.warmup = 60;
        c.approach = false;
        c.mass = Mass::Diagonal;
        amagold.push(("warmup-no-approach", c, 80));
        for (name, c, iters) in amagold {
            got.push((
                format!("chain/amagold-{name}/f64/{seed}"),
                amagold_hash::<f64>(&c, 3, iters),
            ));
            got.push((
                format!("chain/amagold-{name}/f32/{seed}"),
                amagold_hash::<f32>(&c, 3, iters),
            ));
        }
        let mut sghmc = SghmcConfig::new(0.05);
        (sghmc.seed, sghmc.stream) = (seed, seed ^ 3);
        let mut sghmc_diag = sghmc;
        sghmc_diag.mass = Mass::Diagonal;
        sghmc_diag.resample_momentum = false;
        let mut sgld = SgldConfig::new(0.05);
        (sgld.seed, sgld.stream) = (seed, seed ^ 3);
        sgld.steps = 3;
        let mut sgld_diag = sgld;
        sgld_diag.mass = Mass::Diagonal;
        for (name, c) in [("unit", sghmc), ("diagonal", sghmc_diag)] {
            got.push((
                format!("chain/sghmc-{name}/f64/{seed}"),
                sghmc_hash::<f64>(&c, 3, 40),
            ));
            got.push((
                format!("chain/sghmc-{name}/f32/{seed}"),
                sghmc_hash::<f32>(&c, 3, 40),
            ));
        }
        for (name, c) in [("unit", sgld), ("diagonal", sgld_diag)] {
            got.push((
                format!("chain/sgld-{name}/f64/{seed}"),
                sgld_hash::<f64>(&c, 3, 40),
            ));
            got.push((
                format!("chain/sgld-{name}/f32/{seed}"),
                sgld_hash::<f32>(&c, 3, 40),
            ));
        }
    }
    check("chain", got);
}
