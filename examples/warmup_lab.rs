//! Development lab for the warm-up: Gaussian targets with known truth, far and uniform starts.
//!
//!   cargo run --release --features std --example warmup_lab [target] [mass] [warmup] [draws]

use sgsample::stats::{ess, split_rhat, Series};
use sgsample::{Amagold, AmagoldConfig, Gradient, Mass, Potential, Rng, Stop};

struct Gauss {
    d: usize,
    mean: Vec<f64>,
    /// Precision matrix (dense).
    prec: Vec<f64>,
    /// Covariance (for the truth).
    cov: Vec<f64>,
    grads: u64,
}

impl Gradient<f64> for Gauss {
    fn gradient(&mut self, x: &[f64], _s: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.grads += 1;
        let d = self.d;
        for (i, gi) in g.iter_mut().enumerate().take(d) {
            let mut s = 0.0;
            for (j, (&xj, &mj)) in x.iter().zip(&self.mean).enumerate().take(d) {
                s += self.prec[i * d + j] * (xj - mj);
            }
            *gi = s;
        }
        Ok(())
    }
}
impl Potential<f64> for Gauss {
    fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        let d = self.d;
        let mut u = 0.0;
        for i in 0..d {
            for j in 0..d {
                u += 0.5 * (x[i] - self.mean[i]) * self.prec[i * d + j] * (x[j] - self.mean[j]);
            }
        }
        Ok(u)
    }
}

fn invert(a: &[f64], d: usize) -> Vec<f64> {
    // Gauss-Jordan.
    let mut m = a.to_vec();
    let mut inv = vec![0.0; d * d];
    for i in 0..d {
        inv[i * d + i] = 1.0;
    }
    for c in 0..d {
        let mut p = c;
        for r in c + 1..d {
            if m[r * d + c].abs() > m[p * d + c].abs() {
                p = r;
            }
        }
        for k in 0..d {
            m.swap(c * d + k, p * d + k);
            inv.swap(c * d + k, p * d + k);
        }
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

fn target(name: &str) -> Gauss {
    let (d, sds, rho): (usize, Vec<f64>, f64) = match name {
        "raw" => {
            let d = 8;
            let sds = (0..d)
                .map(|i| 10f64.powf(-3.0 + 4.0 * i as f64 / (d - 1) as f64))
                .collect();
            (d, sds, 0.5)
        }
        "corr" => (26, vec![1.0; 26], 0.95),
        "rawcorr" => {
            let d = 26;
            let sds = (0..d)
                .map(|i| 10f64.powf(-3.0 + 4.0 * ((i * 7) % d) as f64 / (d - 1) as f64))
                .collect();
            (d, sds, 0.9)
        }
        "iid" => (10, vec![1.0; 10], 0.0),
        _ => panic!("target raw|corr|rawcorr|iid"),
    };
    let mut cov = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..d {
            cov[i * d + j] = sds[i] * sds[j] * rho.powi((i as i32 - j as i32).abs());
        }
    }
    let prec = invert(&cov, d);
    let mean = (0..d)
        .map(|i| 3.0 * sds[i] + 0.5 * i as f64 * sds[i])
        .collect();
    Gauss {
        d,
        mean,
        prec,
        cov,
        grads: 0,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(|s| s.as_str()).unwrap_or("raw");
    let mass = match args.get(1).map(|s| s.as_str()).unwrap_or("diag") {
        "unit" => Mass::Unit,
        "diag" => Mass::Diagonal,
        "dense" => Mass::Dense,
        m => panic!("mass {m}"),
    };
    let warmup: u64 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(1000);
    let draws: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(1000);
    let mut model = target(name);
    let d = model.d;
    for init in ["uniform", "far"] {
        let mut series: Vec<Vec<Series<128>>> = vec![];
        println!("== {name} d={d} mass={mass:?} init={init}");
        for c in 0..4u64 {
            let mut rng = Rng::new(99, c + if init == "far" { 10 } else { 0 });
            let theta0: Vec<f64> = (0..d)
                .map(|i| {
                    if init == "uniform" {
                        -2.0 + 4.0 * rng.uniform_f64()
                    } else {
                        let s = if rng.uniform_f64() < 0.5 { -1.0 } else { 1.0 };
                        model.mean[i] + s * 20.0 * model.cov[i * d + i].sqrt()
                    }
                })
                .collect();
            let mut cfg = AmagoldConfig::adaptive();
            cfg.mass = mass;
            cfg.warmup = warmup;
            cfg.stream = c;
            cfg.seed = 7;
            let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, d)];
            model.grads = 0;
            let mut chain = Amagold::new(&cfg, &theta0, &mut ws, &mut model).unwrap();
            for _ in 0..warmup {
                chain.step(&mut model).unwrap();
            }
            let gw = model.grads;
            let rep = chain.warmup_report();
            let u_typ = d as f64 / 2.0;
            println!(
                "chain {c}: {:?} reasons {:#x} ε {:.3e} acc {:.3} (δ {}) z {:+.2} U {:.1} (typ {:.1}±{:.1}) bfmi {:.2} cond {:.2e} approach {} it, U {:.3e}→{:.3e}, restarts {} updates {} grads {gw}",
                rep.verdict, rep.reasons, rep.step_size, rep.accept_rate, rep.target_accept,
                rep.energy_trend_z, rep.energy_mean, u_typ, (d as f64 / 2.0).sqrt(), rep.bfmi,
                rep.condition_number, rep.approach_iterations, rep.approach_energy[0],
                rep.approach_energy[1], rep.restarts, rep.metric_updates
            );
            let mut s: Vec<Series<128>> = (0..d).map(|_| Series::new()).collect();
            let mut acc = 0u64;
            for _ in 0..draws {
                let info = chain.step(&mut model).unwrap();
                acc += info.accepted as u64;
                for (j, sj) in s.iter_mut().enumerate() {
                    sj.push(chain.position()[j]);
                }
            }
            println!(
                "   sampling acceptance {:.3}, grads/draw {:.1}",
                acc as f64 / draws as f64,
                (model.grads - gw) as f64 / draws as f64
            );
            series.push(s);
        }
        let mut worst_z = 0.0f64;
        let mut worst_rhat = 0.0f64;
        let mut min_ess = f64::INFINITY;
        for j in 0..d {
            let cs: Vec<&Series<128>> = series.iter().map(|s| &s[j]).collect();
            let e = ess(&cs).unwrap();
            let r = split_rhat(&cs).unwrap();
            let mean = cs.iter().map(|s| s.mean()).sum::<f64>() / 4.0;
            let sd = model.cov[j * d + j].sqrt();
            let z = (mean - model.mean[j]) / (sd / e.sqrt());
            worst_z = worst_z.max(z.abs());
            worst_rhat = worst_rhat.max(r);
            min_ess = min_ess.min(e);
        }
        println!(
            "pooled: worst |z| {worst_z:.2}, worst split-R̂ {worst_rhat:.3}, min ESS {min_ess:.0} (per 1000 draws·chains: {:.1})",
            min_ess / (4.0 * draws as f64) * 1000.0
        );
    }
}
