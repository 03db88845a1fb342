//! How honest is the streaming ESS? AR(1) chains of known integrated autocorrelation time τ
//! against `sgsample::stats` (`Series<128>`, the C API's window), docs/algorithms.md §4.3, §4.8
//! and docs/benchmarks.md ("Honest ESS").
//!
//!   cargo run --release --features std --example ess_ar1 [replicates] [largest n]
//!
//! Defaults: 20 replicates per cell, n up to 10⁶. The AR(1) chain x_t = φ·x_{t−1} + √(1 − φ²)·z_t
//! starts in its stationary law N(0, 1); φ = (τ − 1)/(τ + 1), so τ = (1 + φ)/(1 − φ) exactly and
//! the true ESS of k chains of n draws is k·n/τ. The goal: the median
//! over replicates within ±20 % of the truth when n ≥ 50τ, and never (no replicate) above 1.5×
//! the truth otherwise. Columns: the truth, the median, 5 %, 95 % quantiles and maximum of
//! estimate/truth, the same median before the short-chain discount (raw), the share of
//! replicates flagged beyond the window (W), short (S) and reported as 0, and the verdict.

use sgsample::stats::{
    ess_flagged, Ess, Series, ESS_BEYOND_WINDOW, ESS_SHORT_CHAIN, ESS_TRUSTED, ESS_UNRESOLVED,
};
use sgsample::Rng;

const L: usize = 128;

/// Quantile with linear interpolation between order statistics (numpy's default).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// One AR(1) chain of n draws with integrated autocorrelation time τ into a fresh `Series`.
fn ar1(tau: f64, n: usize, rng: &mut Rng, offset: f64) -> Series<L> {
    let phi = (tau - 1.0) / (tau + 1.0);
    let c = (1.0 - phi * phi).sqrt();
    let mut s = Series::<L>::new();
    let mut x = rng.normal();
    for _ in 0..n {
        s.push(offset + x);
        x = phi * x + c * rng.normal();
    }
    s
}

/// The summary of one cell's replicates.
struct Cell {
    ratio: Vec<f64>,
    raw: Vec<f64>,
    beyond: usize,
    short: usize,
    zero: usize,
}

impl Cell {
    fn new() -> Self {
        Cell {
            ratio: Vec::new(),
            raw: Vec::new(),
            beyond: 0,
            short: 0,
            zero: 0,
        }
    }

    fn add(&mut self, e: Ess, truth: f64) {
        self.ratio.push(e.value / truth);
        self.raw.push(e.raw / truth);
        self.beyond += usize::from(e.flags & ESS_BEYOND_WINDOW != 0);
        self.short += usize::from(e.flags & ESS_SHORT_CHAIN != 0);
        self.zero += usize::from(e.value == 0.0);
    }

    /// `med q05 q95 max raw-med W S zero` as table cells.
    fn row(&mut self) -> String {
        self.ratio.sort_by(f64::total_cmp);
        self.raw.sort_by(f64::total_cmp);
        let r = self.ratio.len() as f64;
        let pct = |c: usize| format!("{:.0} %", 100.0 * c as f64 / r);
        format!(
            "{:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {}",
            quantile(&self.ratio, 0.5),
            quantile(&self.ratio, 0.05),
            quantile(&self.ratio, 0.95),
            self.ratio.last().copied().unwrap_or(f64::NAN),
            quantile(&self.raw, 0.5),
            pct(self.beyond),
            pct(self.short),
            pct(self.zero),
        )
    }

    /// The goal: median within ±20 % when n ≥ 50τ (long), no replicate above 1.5× otherwise.
    fn verdict(&self, long: bool) -> &'static str {
        let med = quantile(&self.ratio, 0.5);
        let max = self.ratio.last().copied().unwrap_or(f64::NAN);
        let ok = if long {
            (0.8..=1.2).contains(&med)
        } else {
            max <= 1.5
        };
        if ok {
            "yes"
        } else {
            "**no**"
        }
    }
}

const HEAD: &str = "| med | q05 | q95 | max | raw med | W | S | 0 |";
const RULE: &str = "|---:|---:|---:|---:|---:|---:|---:|---:|";

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("replicates [largest n]"))
        .collect();
    let reps = args.first().copied().unwrap_or(20);
    let n_max = args.get(1).copied().unwrap_or(1_000_000);
    println!(
        "Series<{L}>: {} bytes; ESS_TRUSTED {ESS_TRUSTED}, ESS_UNRESOLVED {ESS_UNRESOLVED} \
         effective draws per chain; {reps} replicates per cell (estimate/truth)\n",
        core::mem::size_of::<Series<L>>()
    );
    let taus = [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0];
    let ns: Vec<usize> = [1_000, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&n| n <= n_max)
        .collect();
    let mut failed = 0;
    let mut cells = 0;

    println!("One chain, AR(1)\n");
    println!("| n | τ | n/τ | truth {HEAD} goal met |");
    println!("|---:|---:|---:|---:{RULE}:---|");
    for (i, &n) in ns.iter().enumerate() {
        for (j, &tau) in taus.iter().enumerate() {
            let truth = n as f64 / tau;
            let mut cell = Cell::new();
            for r in 0..reps {
                let mut rng = Rng::new(1000 + (i * taus.len() + j) as u64, r as u64);
                let s = ar1(tau, n, &mut rng, 0.0);
                cell.add(s.ess_flagged(), truth);
            }
            let row = cell.row();
            let verdict = cell.verdict(n as f64 >= 50.0 * tau);
            cells += 1;
            failed += usize::from(verdict != "yes");
            println!(
                "| {n} | {tau} | {:.3} | {truth:.1} | {row} | {verdict} |",
                n as f64 / tau
            );
        }
    }
    println!("\nGoal met in {} of {cells} cells.\n", cells - failed);

    println!("Between the grid's n/τ = 33 and 100 (one chain): the trade-off band\n");
    println!("| τ | n/τ {HEAD} goal met |");
    println!("|---:|---:{RULE}:---|");
    for (j, &tau) in [10.0, 1000.0].iter().enumerate() {
        for (i, &m) in [20.0, 33.0, 50.0, 70.0, 100.0, 200.0].iter().enumerate() {
            let n = (m * tau) as usize;
            if n > n_max {
                continue;
            }
            let mut cell = Cell::new();
            for r in 0..reps {
                let mut rng = Rng::new(2000 + (j * 10 + i) as u64, r as u64);
                cell.add(ar1(tau, n, &mut rng, 0.0).ess_flagged(), m);
            }
            let row = cell.row();
            println!("| {tau} | {m} | {row} | {} |", cell.verdict(m >= 50.0));
        }
    }

    println!("\nFour chains together (`ess_flagged(&[..])`, truth 4·n/τ)\n");
    println!("| n | τ | n/τ | truth {HEAD} goal met |");
    println!("|---:|---:|---:|---:{RULE}:---|");
    for (j, &(n, tau)) in [
        (1_000usize, 100.0),
        (10_000, 300.0),
        (10_000, 100.0),
        (100_000, 1000.0),
        (100_000, 3000.0),
        (100_000, 10.0),
        (100_000, 100.0),
        (1_000_000, 10000.0),
    ]
    .iter()
    .enumerate()
    {
        if n > n_max {
            continue;
        }
        let truth = 4.0 * n as f64 / tau;
        let mut cell = Cell::new();
        for r in 0..reps {
            let chains: Vec<Series<L>> = (0..4)
                .map(|c| {
                    let mut rng = Rng::new(3000 + j as u64, (r * 4 + c) as u64);
                    ar1(tau, n, &mut rng, 0.0)
                })
                .collect();
            let refs: Vec<&Series<L>> = chains.iter().collect();
            cell.add(ess_flagged(&refs).unwrap(), truth);
        }
        let row = cell.row();
        println!(
            "| {n} | {tau} | {:.0} | {truth:.1} | {row} | {} |",
            n as f64 / tau,
            cell.verdict(n as f64 >= 50.0 * tau)
        );
    }

    println!(
        "\nNo finite truth (ESS reported; the truth is about 0 for a trend or a random walk)\n"
    );
    println!("| series | n | median ESS | max ESS | W | S | 0 |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for &n in &ns {
        let mut s = Series::<L>::new();
        for t in 0..n {
            s.push(t as f64);
        }
        let e = s.ess_flagged();
        println!(
            "| linear trend 0..n−1 | {n} | {:.2} | {:.2} | {} | {} | {} |",
            e.value,
            e.value,
            e.flags & ESS_BEYOND_WINDOW,
            (e.flags & ESS_SHORT_CHAIN) / 2,
            u8::from(e.value == 0.0)
        );
        let mut v = Vec::new();
        let (mut w, mut sh) = (0, 0);
        for r in 0..reps {
            let mut rng = Rng::new(4000 + n as u64, r as u64);
            let mut s = Series::<L>::new();
            let mut x = 0.0;
            for _ in 0..n {
                x += rng.normal();
                s.push(x);
            }
            let e = s.ess_flagged();
            v.push(e.value);
            w += usize::from(e.flags & ESS_BEYOND_WINDOW != 0);
            sh += usize::from(e.flags & ESS_SHORT_CHAIN != 0);
        }
        v.sort_by(f64::total_cmp);
        let zeros = v.iter().filter(|&&x| x == 0.0).count();
        println!(
            "| random walk | {n} | {:.2} | {:.2} | {:.0} % | {:.0} % | {:.0} % |",
            quantile(&v, 0.5),
            v[v.len() - 1],
            100.0 * w as f64 / reps as f64,
            100.0 * sh as f64 / reps as f64,
            100.0 * zeros as f64 / reps as f64
        );
    }

    println!(
        "\nChains that disagree: two AR(1) chains (τ = 39) centred 5 sd apart, truth undefined\n"
    );
    println!("| n | median ESS | max ESS | flags of the first replicate |");
    println!("|---:|---:|---:|---:|");
    for &n in &ns {
        let mut v = Vec::new();
        let mut flags = 0;
        for r in 0..reps {
            let chains: Vec<Series<L>> = (0..2)
                .map(|c| {
                    let mut rng = Rng::new(5000 + n as u64, (r * 2 + c) as u64);
                    ar1(39.0, n, &mut rng, 5.0 * c as f64)
                })
                .collect();
            let e = ess_flagged(&[&chains[0], &chains[1]]).unwrap();
            if r == 0 {
                flags = e.flags;
            }
            v.push(e.value);
        }
        v.sort_by(f64::total_cmp);
        println!(
            "| {n} | {:.2} | {:.2} | {flags} |",
            quantile(&v, 0.5),
            v[v.len() - 1]
        );
    }

    println!(
        "\nA slow component: AR(1) τ = 3 (variance 1) plus AR(1) τ = 3000 (variance a²); the goal \
         is not applied (one chain cannot resolve a component slower than about n/30)\n"
    );
    println!("| a² | n | n/3000 | true τ | truth {HEAD}");
    println!("|---:|---:|---:|---:|---:{RULE}");
    for (j, &a2) in [0.02f64, 0.05, 0.2].iter().enumerate() {
        let tau = (3.0 + 3000.0 * a2) / (1.0 + a2);
        for &n in &ns {
            let truth = n as f64 / tau;
            let mut cell = Cell::new();
            for r in 0..reps {
                let mut rng = Rng::new(6000 + j as u64 * 10 + n.ilog10() as u64, r as u64);
                let (pf, ps) = (0.5f64, (3000.0f64 - 1.0) / (3000.0 + 1.0));
                let (cf, cs) = ((1.0 - pf * pf).sqrt(), (1.0 - ps * ps).sqrt());
                let (mut f, mut sl) = (rng.normal(), rng.normal());
                let mut s = Series::<L>::new();
                for _ in 0..n {
                    s.push(f + a2.sqrt() * sl);
                    f = pf * f + cf * rng.normal();
                    sl = ps * sl + cs * rng.normal();
                }
                cell.add(s.ess_flagged(), truth);
            }
            let row = cell.row();
            println!(
                "| {a2} | {n} | {:.2} | {tau:.1} | {truth:.1} | {row} |",
                n as f64 / 3000.0
            );
        }
    }
}
