//! The step size of AMAGOLD's windowed warm-up without approach and without a mass matrix,
//! written plainly from docs/algorithms.md §1.2 and §1.7: a search at the start, the dual
//! averaging with restarts when a fast window's energy still falls (checked every 50
//! iterations and at its end), and the settling recursion of the final window.

use std::vec::Vec;

/// Dual averaging (docs/algorithms.md §1.2).
#[derive(Clone, Debug)]
struct Dual {
    mu: f64,
    h_bar: f64,
    log_eps_bar: f64,
    m: u64,
    delta: f64,
}

impl Dual {
    fn new(eps: f64, delta: f64) -> Self {
        Dual {
            mu: libm::log(10.0 * eps),
            h_bar: 0.0,
            log_eps_bar: 0.0,
            m: 0,
            delta,
        }
    }

    fn update(&mut self, alpha: f64) -> f64 {
        self.m += 1;
        let m = self.m as f64;
        self.h_bar = (1.0 - 1.0 / (m + 10.0)) * self.h_bar + (self.delta - alpha) / (m + 10.0);
        let log_eps = self.mu - (libm::sqrt(m) / 0.05) * self.h_bar;
        let w = libm::pow(m, -0.75);
        self.log_eps_bar = w * log_eps + (1.0 - w) * self.log_eps_bar;
        libm::exp(log_eps)
    }

    fn average(&self) -> f64 {
        libm::exp(self.log_eps_bar)
    }
}

/// The warm-up's state.
#[derive(Clone, Debug)]
pub struct Warmup {
    total: u64,
    m: u64,
    final_start: u64,
    delta: f64,
    dual: Dual,
    search_left: u32,
    search_dir: i32,
    /// The settling recursion: log ε, iterations, planned, sum and count of the averaged ones.
    settle: Option<(f64, u64, u64, f64, u64)>,
    /// The current window's energies and planned length.
    energies: Vec<f64>,
    planned: u64,
}

impl Warmup {
    /// A warm-up of `total` iterations from ε₀ towards δ.
    pub fn new(total: u64, eps0: f64, delta: f64) -> Self {
        // The final window: max(50, ⌊W/5⌋) from W = 150 on, ⌊W/10⌋ below.
        let term = if total >= 150 {
            (total / 5).max(50)
        } else {
            total / 10
        };
        Warmup {
            total,
            m: 0,
            final_start: total - term,
            delta,
            dual: Dual::new(eps0, delta),
            search_left: 12,
            search_dir: 0,
            settle: None,
            energies: Vec::new(),
            planned: (total - term).max(1),
        }
    }

    /// `true` once the warm-up has ended.
    pub fn done(&self) -> bool {
        self.m >= self.total
    }

    /// The trend z of the current window: least-squares slope of its 10 batch means against
    /// the batch index over the residuals' standard error.
    fn trend_z(&self) -> f64 {
        let mut sums = [0.0f64; 10];
        let mut counts = [0u64; 10];
        for (t, &u) in self.energies.iter().enumerate() {
            let t = t as u64;
            let b = if self.planned >= 10 {
                ((t * 10) / self.planned).min(9)
            } else {
                t.min(9)
            };
            sums[b as usize] += u;
            counts[b as usize] += 1;
        }
        let pts: Vec<(f64, f64)> = (0..10)
            .filter(|&b| counts[b] > 0)
            .map(|b| (b as f64, sums[b] / counts[b] as f64))
            .collect();
        if pts.len() < 3 {
            return f64::NAN;
        }
        let n = pts.len() as f64;
        let xbar = pts.iter().map(|p| p.0).sum::<f64>() / n;
        let ybar = pts.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = pts.iter().map(|p| (p.0 - xbar) * (p.0 - xbar)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - xbar) * (p.1 - ybar)).sum();
        let slope = sxy / sxx;
        let rss: f64 = pts
            .iter()
            .map(|p| {
                let e = p.1 - ybar - slope * (p.0 - xbar);
                e * e
            })
            .sum();
        slope / libm::sqrt(rss / (n - 2.0) / sxx)
    }

    /// After an iteration that used ε, with acceptance probability α and energy U after it:
    /// the next ε.
    pub fn update(&mut self, eps: f64, alpha: f64, u: f64) -> f64 {
        self.m += 1;
        let m = self.m;
        let fast = m <= self.final_start;
        self.energies.push(u);
        let mut eps = eps;
        if self.search_left > 0 {
            let dir = if alpha > self.delta { 1 } else { -1 };
            self.search_left -= 1;
            let ended = if self.search_dir != 0 && dir != self.search_dir {
                eps *= if self.search_dir > 0 {
                    std::f64::consts::FRAC_1_SQRT_2
                } else {
                    std::f64::consts::SQRT_2
                };
                self.search_left = 0;
                true
            } else {
                self.search_dir = dir;
                eps = if dir > 0 { eps * 2.0 } else { eps * 0.5 };
                self.search_left == 0
            };
            if ended {
                self.dual = Dual::new(eps, self.delta);
                if !fast {
                    self.settle = Some((libm::log(eps), 0, self.total - m, 0.0, 0));
                }
            }
        } else if let Some((le, n, planned, sum, count)) = self.settle.as_mut() {
            if 4 * *n >= *planned {
                *sum += *le;
                *count += 1;
            }
            *n += 1;
            *le += 0.1 * (alpha - self.delta);
            eps = libm::exp(*le);
        } else {
            eps = self.dual.update(alpha);
        }
        if fast && m == self.final_start {
            if self.trend_z() < -3.0 {
                self.dual = Dual::new(eps, self.delta);
            }
            self.energies.clear();
            self.planned = self.total - m;
        } else if fast && self.energies.len() >= 50 && self.search_left == 0 {
            if self.trend_z() < -3.0 {
                self.dual = Dual::new(eps, self.delta);
            }
            self.energies.clear();
            self.planned = (self.final_start - m).max(1);
        }
        if m == self.final_start && self.search_left == 0 && self.settle.is_none() && m < self.total
        {
            eps = self.dual.average();
            self.settle = Some((libm::log(eps), 0, self.total - m, 0.0, 0));
        }
        if m >= self.total {
            if let Some((le, _, _, sum, count)) = self.settle {
                eps = if count == 0 {
                    libm::exp(le)
                } else {
                    libm::exp(sum / count as f64)
                };
            } else if self.search_left == 0 {
                eps = self.dual.average();
            }
        }
        eps
    }
}
