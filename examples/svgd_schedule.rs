//! A growing batch size against full SVGD (docs/benchmarks.md, "A growing batch size"): on the
//! RBM-SVGD paper's 1-D mixture (N = 256, 500 iterations) and double banana (N = 512, 800
//! iterations), the MSE of the particle averages of the paper's test functions over R
//! initialisations, with their standard errors, and the CPU time per run, for full SVGD (also
//! stopped early), fixed small p, doubling and KSD-driven schedules, and a fixed p followed by a
//! full-p "polish" phase (rows with their own iteration counts say so in the table).
//!
//!     cargo run --release --example svgd_schedule [R]      (R = 20 by default; docs: R = 50)
//!     cargo run --release --example svgd_schedule R banana 128:300,512:120 64:400:0.003 …
//!
//! The second form runs the given phase lists (`p:iterations[:η[:α[:h[:flags]]]]`,
//! comma-separated, see [`Phase`]) after a full-SVGD row: the exploration behind the docs'
//! "tried" list.
//!
//! A measurement, not a test: it prints a Markdown table and asserts nothing. Times are the
//! thread's CPU time (Linux `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), which other processes
//! on a loaded machine inflate far less than wall time; wall time on other systems.

use sgsample::svgd::{BatchSchedule, BatchScheduler, KsdChoice, SteinImq};
use sgsample::{Batching, Gradient, KernelChoice, Rng, StepRule, Stop, Svgd, SvgdConfig};
use std::time::Instant;

/// ∇V of ⅓N(−2, 1) + ⅔N(2, 1).
struct Mixture;
impl Gradient<f64> for Mixture {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        g[0] = x[0] - 2.0 + 4.0 / (2.0 * (4.0 * x[0]).exp() + 1.0);
        Ok(())
    }
}

const Y: f64 = 3.57857342;
const SIG: f64 = 0.3;

/// ∇V of the double banana (docs/algorithms.md §2.4).
struct Banana;
impl Gradient<f64> for Banana {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let (x1, x2) = (x[0], x[1]);
        let a = 1.0 - x1;
        let b = x2 - x1 * x1;
        let q = a * a + 100.0 * b * b;
        let r = (Y - q.ln()) / (SIG * SIG);
        g[0] = x1 - r * (-2.0 * a - 400.0 * b * x1) / q;
        g[1] = x2 - r * (200.0 * b / q);
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Problem {
    Mixture,
    Banana,
}

impl Problem {
    fn n(self) -> usize {
        match self {
            Problem::Mixture => 256,
            Problem::Banana => 512,
        }
    }
    fn d(self) -> usize {
        match self {
            Problem::Mixture => 1,
            Problem::Banana => 2,
        }
    }
    fn iterations(self) -> u64 {
        match self {
            Problem::Mixture => 500,
            Problem::Banana => 800,
        }
    }
    fn config(self, p: usize) -> SvgdConfig<KernelChoice> {
        match self {
            Problem::Mixture => {
                SvgdConfig::new(p, KernelChoice::Gaussian { h: 2.0 }, StepRule::adagrad(0.2))
            }
            Problem::Banana => SvgdConfig::new(
                p,
                KernelChoice::Gaussian { h: 0.1 },
                StepRule::adagrad(0.01),
            ),
        }
    }
    /// The paper's initialisation, from seed `s` (the tests' streams).
    fn init(self, s: u64) -> Vec<f64> {
        match self {
            Problem::Mixture => {
                let mut rng = Rng::new(s, 99);
                (0..256).map(|_| -10.0 + rng.normal()).collect()
            }
            Problem::Banana => {
                let mut rng = Rng::new(s, 98);
                (0..1024).map(|_| 0.4 * rng.normal()).collect()
            }
        }
    }
    /// Test functions and their exact expectations (docs/algorithms.md §2.4).
    fn names(self) -> &'static [&'static str] {
        match self {
            Problem::Mixture => &["x", "x²", "cos 2x"],
            Problem::Banana => &["x₁", "x₂", "x₁²", "x₂²"],
        }
    }
    fn truth(self) -> Vec<f64> {
        match self {
            Problem::Mixture => vec![2.0 / 3.0, 5.0, (-2.0f64).exp() * 4.0f64.cos()],
            Problem::Banana => vec![-0.012382, 0.285691, 0.422135, 0.543610],
        }
    }
    fn errors(self, x: &[f64]) -> Vec<f64> {
        let t = self.truth();
        let n = self.n() as f64;
        let mut m = vec![0.0; t.len()];
        match self {
            Problem::Mixture => {
                for &v in x {
                    m[0] += v / n;
                    m[1] += v * v / n;
                    m[2] += (2.0 * v).cos() / n;
                }
            }
            Problem::Banana => {
                for r in x.chunks(2) {
                    m[0] += r[0] / n;
                    m[1] += r[1] / n;
                    m[2] += r[0] * r[0] / n;
                    m[3] += r[1] * r[1] / n;
                }
            }
        }
        m.iter().zip(&t).map(|(a, b)| a - b).collect()
    }
    fn step(self, s: &mut Svgd<'_, f64>) -> sgsample::SvgdInfo {
        match self {
            Problem::Mixture => s.step(&mut Mixture),
            Problem::Banana => s.step(&mut Banana),
        }
        .expect("iteration")
    }
}

#[derive(Clone)]
enum Strategy {
    Fixed(usize),
    Doubling {
        start: usize,
        every: u64,
    },
    Ksd {
        start: usize,
        window: u64,
        min_decrease: f64,
    },
    /// Phases run one after the other (e.g. a cheap phase at small p, then a full-p "polish").
    Phases(Vec<Phase>),
}

/// `iterations` iterations at batch size `p` (N where `p` is larger), with the problem's step
/// size η, AdaGrad decay α and bandwidth h unless given, and the flags: `imqC/β` for the
/// inverse multiquadric kernel (c² + r²)^(−β) instead of the Gaussian (h then unused), `wr`
/// for batches with replacement (Algorithm 2). Consecutive phases with the same (η, α, h,
/// flags) share one state (`set_batch_size` between them, without replacement); a change
/// starts a new state on the current particles, because a state keeps its step rule, kernel
/// and batching for its lifetime: its AdaGrad history starts afresh, with the same seed and the
/// next stream.
#[derive(Clone, Copy, PartialEq)]
struct Phase {
    p: usize,
    iterations: u64,
    eta: Option<f64>,
    alpha: Option<f64>,
    h: Option<f64>,
    imq: Option<(f64, f64)>,
    with_replacement: bool,
}

impl Phase {
    /// `p:iterations[:η[:α[:h[:flags]]]]`, empty fields for the defaults; flags as above.
    fn parse(text: &str) -> Option<Phase> {
        let f: Vec<&str> = text.split(':').collect();
        let opt = |i: usize| match f.get(i) {
            None | Some(&"") => Some(None),
            Some(v) => v.parse().ok().map(Some),
        };
        let (mut imq, mut with_replacement) = (None, false);
        for flag in f.iter().skip(5) {
            if flag.is_empty() {
                continue;
            } else if *flag == "wr" {
                with_replacement = true;
            } else {
                let (c, beta) = flag.strip_prefix("imq")?.split_once('/')?;
                imq = Some((c.parse().ok()?, beta.parse().ok()?));
            }
        }
        Some(Phase {
            p: f.first()?.parse().ok()?,
            iterations: f.get(1)?.parse().ok()?,
            eta: opt(2)?,
            alpha: opt(3)?,
            h: opt(4)?,
            imq,
            with_replacement,
        })
    }
    fn state_key(&self) -> ([Option<f64>; 3], Option<(f64, f64)>, bool) {
        (
            [self.eta, self.alpha, self.h],
            self.imq,
            self.with_replacement,
        )
    }
}

/// A strategy and its number of iterations (the problem's own when `None`).
#[derive(Clone)]
struct Plan(Strategy, Option<u64>);

impl Plan {
    fn iterations(&self, problem: Problem) -> u64 {
        match &self.0 {
            Strategy::Phases(ph) => ph.iter().map(|x| x.iterations).sum(),
            _ => self.1.unwrap_or(problem.iterations()),
        }
    }
}

impl Strategy {
    fn label(&self, n: usize) -> String {
        match self {
            Strategy::Fixed(p) if *p == n => format!("full SVGD (p = {n})"),
            Strategy::Fixed(p) => format!("RBM-SVGD p = {p}"),
            Strategy::Doubling { start, every } => format!("doubling from {start}, every {every}"),
            Strategy::Ksd {
                start,
                window,
                min_decrease,
            } => format!("KSD-driven from {start}, window {window}, δ = {min_decrease}"),
            Strategy::Phases(phases) => {
                let parts: Vec<String> = phases
                    .iter()
                    .map(|ph| {
                        let mut t = format!("p = {} × {}", ph.p.min(n), ph.iterations);
                        for (name, v) in [("η", ph.eta), ("α", ph.alpha), ("h", ph.h)] {
                            if let Some(v) = v {
                                t += &format!(" ({name} = {v})");
                            }
                        }
                        if let Some((c, beta)) = ph.imq {
                            t += &format!(" (IMQ c = {c}, β = {beta})");
                        }
                        if ph.with_replacement {
                            t += " (with replacement)";
                        }
                        t
                    })
                    .collect();
                parts.join(", then ")
            }
        }
    }
}

/// The banana strategy that reaches full SVGD's accuracy in under a quarter of its time: RBM-SVGD
/// p = 64 with the inverse multiquadric kernel (c = 0.02, β = ½) for 400 iterations at η = 0.03
/// and 180 at 0.01, then full SVGD with the paper's Gaussian kernel (h = 0.1) for 55 iterations
/// at η = 0.01 and 45 at 0.005. Each change of η or kernel starts a new state (fresh AdaGrad
/// history) on the current particles.
const IMQ_THEN_FULL: [&str; 4] = [
    "64:400:0.03:::imq0.02/0.5",
    "64:180:0.01:::imq0.02/0.5",
    "512:55",
    "512:45:0.005",
];

/// One run: errors of the test functions, seconds, final p.
fn run(problem: Problem, plan: &Plan, s: u64) -> (Vec<f64>, f64, usize) {
    let strategy = &plan.0;
    if let Strategy::Phases(phases) = strategy {
        return run_phases(problem, phases, s);
    }
    let (n, d) = (problem.n(), problem.d());
    let mut x = problem.init(s);
    let start = match *strategy {
        Strategy::Fixed(p) => p,
        Strategy::Doubling { start, .. } | Strategy::Ksd { start, .. } => start,
        Strategy::Phases(_) => unreachable!(),
    };
    let mut cfg = problem.config(start);
    cfg.seed = s;
    if let Strategy::Ksd { .. } = strategy {
        cfg.ksd = KsdChoice::Batch(SteinImq::default());
    }
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
    let mut idx = vec![0u32; n];
    let origin = Instant::now();
    let t0 = cpu_seconds(origin);
    let mut svgd = Svgd::new(&cfg, d, &mut x, &mut ws, &mut idx).expect("init");
    let mut sched = match *strategy {
        Strategy::Fixed(_) | Strategy::Phases(_) => None,
        Strategy::Doubling { start, every } => {
            Some(BatchScheduler::new(BatchSchedule::Doubling { start, every }, n).unwrap())
        }
        Strategy::Ksd {
            start,
            window,
            min_decrease,
        } => Some(
            BatchScheduler::new(
                BatchSchedule::KsdDriven {
                    start,
                    window,
                    min_decrease,
                },
                n,
            )
            .unwrap(),
        ),
    };
    for _ in 0..plan.iterations(problem) {
        if let Some(sc) = &sched {
            svgd.set_batch_size(sc.batch_size()).unwrap();
        }
        let info = problem.step(&mut svgd);
        if let Some(sc) = &mut sched {
            sc.observe(&info);
        }
    }
    let secs = cpu_seconds(origin) - t0;
    let p = svgd.config().batch_size;
    (problem.errors(svgd.particles()), secs, p)
}

/// One run of [`Strategy::Phases`]: errors of the test functions, seconds, final p.
fn run_phases(problem: Problem, phases: &[Phase], s: u64) -> (Vec<f64>, f64, usize) {
    let (n, d) = (problem.n(), problem.d());
    let mut x = problem.init(s);
    let config = |ph: &Phase| {
        let mut cfg = problem.config(ph.p.min(n));
        let SvgdConfig {
            step_rule: StepRule::AdaGrad { eta, alpha },
            kernel: KernelChoice::Gaussian { h },
            ..
        } = cfg
        else {
            unreachable!("the paper's settings are AdaGrad with a fixed Gaussian kernel")
        };
        cfg.step_rule = StepRule::AdaGrad {
            eta: ph.eta.unwrap_or(eta),
            alpha: ph.alpha.unwrap_or(alpha),
        };
        cfg.kernel = match ph.imq {
            Some((c, beta)) => KernelChoice::InverseMultiquadric { c, beta },
            None => KernelChoice::Gaussian {
                h: ph.h.unwrap_or(h),
            },
        };
        if ph.with_replacement {
            cfg.batching = Batching::WithReplacement;
        }
        cfg.seed = s;
        cfg
    };
    let len = phases
        .iter()
        .map(|ph| Svgd::<f64>::workspace_len(n, d, &config(ph)))
        .max()
        .unwrap_or(0);
    let (mut ws, mut idx) = (vec![0.0; len], vec![0u32; n]);
    let origin = Instant::now();
    let t0 = cpu_seconds(origin);
    let mut p = 0;
    for (stream, group) in phases
        .chunk_by(|a, b| a.state_key() == b.state_key())
        .enumerate()
    {
        let mut cfg = config(&group[0]);
        cfg.stream = stream as u64;
        let mut svgd = Svgd::new(&cfg, d, &mut x, &mut ws, &mut idx).expect("init");
        for ph in group {
            if !ph.with_replacement {
                svgd.set_batch_size(ph.p.min(n)).unwrap();
            }
            for _ in 0..ph.iterations {
                problem.step(&mut svgd);
            }
        }
        p = svgd.config().batch_size;
    }
    let secs = cpu_seconds(origin) - t0;
    (problem.errors(&x), secs, p)
}

/// CPU time of this thread in seconds: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` on Linux (wall
/// time elsewhere). Not `/proc/thread-self/schedstat`: for the running thread that file is only
/// brought up to date at scheduler ticks (4 ms here), so a run of ~12 ms read 11.97, 11.98,
/// 11.99 ms for three different strategies; the clock adds the part since the last tick.
fn cpu_seconds(wall: Instant) -> f64 {
    thread_cpu_seconds().unwrap_or_else(|| wall.elapsed().as_secs_f64())
}

#[path = "../benches/cpu_clock/mod.rs"]
mod cpu_clock;
use cpu_clock::thread_cpu_seconds;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = v.len();
    if m % 2 == 1 {
        v[m / 2]
    } else {
        0.5 * (v[m / 2 - 1] + v[m / 2])
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `R` (seeds 0..R) or `R@S` (seeds S..S+R: held-out starts for a strategy chosen on 0..R).
    let seeds = args.get(1).map_or(0..20, |a| {
        let (r, s) = a.split_once('@').unwrap_or((a, "0"));
        let (r, s): (u64, u64) = (
            r.parse().expect("R: a count"),
            s.parse().expect("S: a first seed"),
        );
        s..s + r
    });
    if args.len() > 2 {
        // Exploration: `R mixture|banana PHASES…`, each PHASES `p:it[:η[:α[:h]]],p:it…`, after
        // a full-SVGD row in the paper's settings.
        let problem = match args[2].as_str() {
            "mixture" => Problem::Mixture,
            "banana" => Problem::Banana,
            other => panic!("unknown problem {other:?} (mixture or banana)"),
        };
        let mut plans = vec![Plan(Strategy::Fixed(problem.n()), None)];
        for spec in &args[3..] {
            let phases: Option<Vec<Phase>> = spec.split(',').map(Phase::parse).collect();
            let phases = phases.unwrap_or_else(|| panic!("cannot read phases {spec:?}"));
            plans.push(Plan(Strategy::Phases(phases), None));
        }
        table(problem, &plans, seeds);
        return;
    }
    let own = |st| Plan(st, None);
    let dbl = |start, every| own(Strategy::Doubling { start, every });
    let ksd = |start, window| {
        own(Strategy::Ksd {
            start,
            window,
            min_decrease: 0.1,
        })
    };
    // p for `hold` iterations, then full SVGD (p = N) for `polish`.
    let hold = |p, hold, polish| {
        let phase = |p, iterations| Phase {
            p,
            iterations,
            eta: None,
            alpha: None,
            h: None,
            imq: None,
            with_replacement: false,
        };
        own(Strategy::Phases(vec![
            phase(p, hold),
            phase(usize::MAX, polish),
        ]))
    };
    let mixture = [
        own(Strategy::Fixed(256)),
        own(Strategy::Fixed(8)),
        own(Strategy::Fixed(32)),
        dbl(8, 100),
        dbl(4, 100),
        dbl(8, 125),
        // p = 128 for the last 20 iterations only.
        dbl(8, 120),
        ksd(4, 25),
        ksd(8, 25),
    ];
    let banana = [
        own(Strategy::Fixed(512)),
        // Full SVGD stopped early: what a quarter (a half, three quarters) of its time buys.
        Plan(Strategy::Fixed(512), Some(200)),
        Plan(Strategy::Fixed(512), Some(400)),
        Plan(Strategy::Fixed(512), Some(600)),
        own(Strategy::Fixed(64)),
        dbl(32, 160),
        ksd(32, 40),
        // A cheap phase at fixed p, then a short full-p polish; about a quarter of the time.
        hold(64, 500, 100),
        hold(128, 300, 120),
        hold(256, 150, 120),
        // The same with a longer polish (about 0.6 of the time).
        hold(64, 600, 400),
        hold(128, 300, 400),
        // The cheap phase with a long-range kernel and a larger step, then the paper's full
        // SVGD with its step halved at the end (docs/benchmarks.md §4: reaches the goal).
        own(Strategy::Phases(
            IMQ_THEN_FULL
                .iter()
                .map(|&t| Phase::parse(t).unwrap())
                .collect(),
        )),
    ];
    table(Problem::Mixture, &mixture, seeds.clone());
    table(Problem::Banana, &banana, seeds);
}

/// Runs every plan from the `seeds` and prints a Markdown table; the first plan is the
/// reference of the ratios.
fn table(problem: Problem, plans: &[Plan], seeds: std::ops::Range<u64>) {
    let n = problem.n();
    let reps = seeds.end - seeds.start;
    let (first, end) = (seeds.start, seeds.end);
    println!(
        "\n{} N = {n}, R = {reps} initialisations (seeds {first}..{end})\n",
        match problem {
            Problem::Mixture => "1-D mixture,",
            Problem::Banana => "double banana,",
        },
    );
    let names = problem.names();
    print!("| strategy | iterations | final p | median CPU time per run (ms) | time / full |");
    for nm in names {
        print!(" MSE {nm} ± s.e. (/ full) |");
    }
    println!();
    print!("|---|---:|---:|---:|---:|");
    for _ in names {
        print!("---:|");
    }
    println!();
    let mut full: Option<(f64, Vec<f64>)> = None;
    for plan in plans {
        let mut times = Vec::new();
        let mut sq = vec![Vec::new(); names.len()];
        let mut last_p = 0;
        for s in seeds.clone() {
            let (e, t, p) = run(problem, plan, s);
            times.push(t);
            for (a, v) in sq.iter_mut().zip(&e) {
                a.push(v * v);
            }
            last_p = p;
        }
        let (mse, se): (Vec<f64>, Vec<f64>) = sq.iter().map(|v| mean_and_se(v)).unzip();
        let med = median(&mut times);
        let (tf, mf) = full.get_or_insert_with(|| (med, mse.clone())).clone();
        print!(
            "| {} | {} | {last_p} | {:.2} | {:.3} |",
            plan.0.label(n),
            plan.iterations(problem),
            1e3 * med,
            med / tf
        );
        for ((a, e), b) in mse.iter().zip(&se).zip(&mf) {
            print!(" {a:.2e} ± {e:.1e} ({:.2}) |", a / b);
        }
        println!();
    }
}

/// The mean of the squared errors (the MSE) and its standard error over the R runs.
fn mean_and_se(v: &[f64]) -> (f64, f64) {
    let r = v.len() as f64;
    let m = v.iter().sum::<f64>() / r;
    let var = v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (r - 1.0).max(1.0);
    (m, (var / r).sqrt())
}
