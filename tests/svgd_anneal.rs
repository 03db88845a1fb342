//! Annealed SVGD (docs/algorithms.md §2.8): an iteration at γ is a plain SVGD iteration on the
//! tempered target π^γ, whose gradient is γ·∇V. So a run with a schedule equals, bit for bit, a
//! plain run whose gradient callback returns `∇V·γ(t)` (each value multiplied once, in the
//! coordinate type) at iteration t: for both batchings, both coordinate types, both schedules.
//! And a schedule that is over (t ≥ its iterations) changes nothing.

use sgsample::svgd::Anneal;
use sgsample::{Batching, Float, Gradient, KernelChoice, StepRule, Stop, Svgd, SvgdConfig};

/// ∇V of a 2-d mixture of two Gaussians, optionally multiplied by `gamma`.
struct Model {
    gamma: Option<f64>,
}

impl<T: Float> Gradient<T> for Model {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let (a, b) = (x[0].to_f64(), x[1].to_f64());
        // Seed-dependent jitter, as a minibatch gradient would have.
        let e = ((seed >> 40) as f64 / (1u64 << 24) as f64 - 0.5) * 0.1;
        let w = 1.0 / (1.0 + libm::exp(-4.0 * a));
        g[0] = T::from_f64(a - (2.0 * w - 1.0) * 2.0 + e);
        g[1] = T::from_f64(2.0 * b - e);
        if let Some(gm) = self.gamma {
            let gm = T::from_f64(gm);
            for v in g.iter_mut() {
                *v *= gm;
            }
        }
        Ok(())
    }
}

fn run<T: Float>(
    cfg: &SvgdConfig<KernelChoice>,
    n: usize,
    iters: u64,
    scaled: Option<Anneal>,
) -> Vec<u64> {
    let mut x: Vec<T> = (0..2 * n)
        .map(|i| T::from_f64(((i * 37 % 23) as f64) / 11.0 - 1.0))
        .collect();
    let mut ws = vec![T::ZERO; Svgd::<T>::workspace_len(n, 2, cfg)];
    let mut idx = vec![0u32; n];
    let mut s = Svgd::new(cfg, 2, &mut x, &mut ws, &mut idx).unwrap();
    let mut m = Model { gamma: None };
    for t in 0..iters {
        m.gamma = scaled.map(|a| a.gamma(t));
        s.step(&mut m).unwrap();
    }
    s.particles().iter().map(|v| v.to_f64().to_bits()).collect()
}

fn check<T: Float>() {
    let schedules = [
        Anneal::Cyclical {
            iterations: 30,
            cycles: 3,
            power: 2.0,
        },
        Anneal::Hyperbolic {
            iterations: 25,
            power: 1.5,
        },
    ];
    for batching in [Batching::WithoutReplacement, Batching::WithReplacement] {
        for a in schedules {
            let mut plain =
                SvgdConfig::new(4, KernelChoice::GaussianMedian, StepRule::adagrad(0.1));
            plain.seed = 5;
            plain.batching = batching;
            let mut annealed = plain;
            annealed.anneal = a;
            let got = run::<T>(&annealed, 16, 40, None);
            assert_eq!(got, run::<T>(&plain, 16, 40, Some(a)), "{batching:?} {a:?}");
            assert_ne!(
                got,
                run::<T>(&plain, 16, 40, None),
                "the schedule changes the run"
            );
        }
    }
}

#[test]
fn annealed_run_is_plain_svgd_on_the_tempered_gradients() {
    check::<f64>();
    check::<f32>();
}

#[test]
fn off_and_finished_schedules_change_nothing() {
    let plain = SvgdConfig::new(4, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1));
    let mut late = plain;
    // A schedule of one iteration: γ = 0 at the first, then 1, when the iterations are plain
    // SVGD's (the scaled callback multiplies by nothing but 1 from then on).
    late.anneal = Anneal::Cyclical {
        iterations: 1,
        cycles: 1,
        power: 1.0,
    };
    let a = Anneal::Cyclical {
        iterations: 1,
        cycles: 1,
        power: 1.0,
    };
    assert_eq!(
        run::<f64>(&late, 8, 10, None),
        run::<f64>(&plain, 8, 10, Some(a))
    );
    assert_eq!(Anneal::default(), Anneal::Off);
    assert_eq!(plain.anneal, Anneal::Off);
}

#[test]
fn bad_schedules_are_refused() {
    let mut cfg = SvgdConfig::new(4, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.1));
    cfg.anneal = Anneal::Hyperbolic {
        iterations: 0,
        power: 1.0,
    };
    let mut x = vec![0.0f64; 16];
    for (i, v) in x.iter_mut().enumerate() {
        *v = i as f64;
    }
    let mut ws = vec![0.0; Svgd::<f64>::workspace_len(8, 2, &cfg)];
    let mut idx = vec![0u32; 8];
    assert_eq!(
        Svgd::new(&cfg, 2, &mut x, &mut ws, &mut idx).err(),
        Some(sgsample::Error::InvalidOption)
    );
}
