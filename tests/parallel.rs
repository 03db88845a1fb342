//! The `parallel` feature: SVGD iterations on the rayon pool give the serial bits for any pool
//! size (info included), a failing piece leaves everything as before, the phases refuse an
//! unfinished iteration; multi-chain runs are the serial chains on streams 0..k, and their
//! pooled summaries match a direct computation and the target.

use sgsample::parallel::{run_chains, Pooled};
use sgsample::svgd::Batching;
use sgsample::{
    Amagold, AmagoldConfig, AmagoldCore, Error, Gradient, KernelChoice, Mass, Potential, Rng,
    SghmcConfig, SghmcCore, Sgld, SgldConfig, SgldCore, StepRule, Stop, Svgd, SvgdConfig,
};

/// A nonlinear gradient that uses the minibatch seed, and aborts when it sees a position beyond
/// `abort_above` (to make one piece fail).
#[derive(Clone, Copy)]
struct Wavy {
    abort_above: f64,
}

impl Gradient<f64> for Wavy {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for (l, (gl, &xl)) in g.iter_mut().zip(x).enumerate() {
            if xl > self.abort_above {
                return Err(Stop::Abort);
            }
            let u = Rng::new(seed, 77 + l as u64).uniform_f64();
            *gl = xl + 0.3 * xl.sin() - 0.5 + 0.2 * u;
        }
        Ok(())
    }
}

const CLEAN: Wavy = Wavy {
    abort_above: f64::INFINITY,
};

fn start(n: usize, d: usize) -> Vec<f64> {
    let mut rng = Rng::new(9, 1);
    (0..n * d).map(|_| 1.5 * rng.normal()).collect()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn svgd_on_any_pool_size_gives_the_serial_bits() {
    for (n, d, p, kernel) in [
        (203, 2, 8, KernelChoice::Gaussian { h: 0.7 }),
        (96, 1, 96, KernelChoice::GaussianMedian),
        (
            131,
            3,
            5,
            KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 },
        ),
    ] {
        let cfg = SvgdConfig::new(p, kernel, StepRule::adagrad(0.05));
        let x0 = start(n, d);
        let len = Svgd::<f64>::workspace_len(n, d, &cfg);
        let (mut xs, mut ws, mut idx) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
        let mut serial = Svgd::new(&cfg, d, &mut xs, &mut ws, &mut idx).unwrap();
        let infos: Vec<_> = (0..6)
            .map(|_| serial.step(&mut { CLEAN }).unwrap())
            .collect();
        let want = serial.particles().to_vec();
        for threads in [1, 2, 3, 7] {
            let (mut xp, mut wp, mut ip) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
            let mut par = Svgd::new(&cfg, d, &mut xp, &mut wp, &mut ip).unwrap();
            pool(threads).install(|| {
                for info in &infos {
                    // Debug text: equal bits, NaN bandwidth (IMQ) included.
                    let got = par.step_parallel(&CLEAN).unwrap();
                    assert_eq!(format!("{got:?}"), format!("{info:?}"));
                }
            });
            assert_eq!(par.particles(), &want[..], "{threads} threads, n {n} p {p}");
        }
    }
}

/// A system of 64 particles in 1-D with particle 37 at `bad`: an iteration with `model` fails
/// with `want` on the rayon pool (1 and 3 threads) and serially, changing nothing; with particle
/// 37 then moved next to 36, the next iteration is a fresh system's first (generator restored,
/// AdaGrad history still unset), bit for bit.
fn failure_changes_nothing(bad: f64, model: Wavy, want: Error) {
    let (n, d) = (64, 1);
    let cfg = SvgdConfig::new(
        4,
        KernelChoice::Gaussian { h: 0.7 },
        StepRule::adagrad(0.05),
    );
    let mut x0 = start(n, d);
    x0[37] = bad;
    let len = Svgd::<f64>::workspace_len(n, d, &cfg);
    let (mut xs, mut ws, mut idx) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut svgd = Svgd::new(&cfg, d, &mut xs, &mut ws, &mut idx).unwrap();
    for threads in [1, 3] {
        let e = pool(threads).install(|| svgd.step_parallel(&model));
        assert_eq!(e, Err(want), "{threads} threads");
        assert_eq!(svgd.particles(), &x0[..]);
        assert_eq!(svgd.iterations(), 0);
    }
    assert_eq!(svgd.step(&mut { model }), Err(want));
    svgd.particles_mut()[37] = x0[36];
    let after = pool(2).install(|| svgd.step_parallel(&CLEAN)).unwrap();
    let mut fresh_x = x0.clone();
    fresh_x[37] = x0[36];
    let (mut wf, mut i_f) = (vec![0.0; len], vec![0u32; n]);
    let mut fresh = Svgd::new(&cfg, d, &mut fresh_x, &mut wf, &mut i_f).unwrap();
    assert_eq!(fresh.step(&mut { CLEAN }).unwrap(), after);
    assert_eq!(fresh.particles(), svgd.particles());
    assert_eq!(fresh.force(), svgd.force());
}

#[test]
fn a_failing_piece_changes_nothing() {
    // The particle whose gradient aborts.
    failure_changes_nothing(50.0, Wavy { abort_above: 10.0 }, Error::CallbackAborted);
}

/// A move that is not finite in one piece (the pieces compute the moves; `finish` only copies
/// them in): the iteration fails with nothing changed, the AdaGrad history included.
#[test]
fn a_non_finite_move_in_one_piece_changes_nothing() {
    // Its gradient and φ (≈ −x/N: the far pairs add nothing) are finite, its new history φ² is
    // not; every other particle's move is finite.
    failure_changes_nothing(1e300, CLEAN, Error::NonFinite);
}

#[test]
fn phases_refuse_an_unfinished_iteration_and_dropping_cancels() {
    let (n, d) = (40, 2);
    let cfg = SvgdConfig::new(
        8,
        KernelChoice::Gaussian { h: 0.7 },
        StepRule::adagrad(0.05),
    );
    let x0 = start(n, d);
    let len = Svgd::<f64>::workspace_len(n, d, &cfg);
    let (mut xs, mut ws, mut idx) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut svgd = Svgd::new(&cfg, d, &mut xs, &mut ws, &mut idx).unwrap();
    let mut it = svgd.begin().unwrap();
    assert_eq!(it.num_batches(), 5);
    assert_eq!(it.batch_rows(4), Some(32..40));
    assert_eq!(it.batch_rows(5), None);
    // Batches 0 and 1 only.
    it.pieces(2)
        .unwrap()
        .next()
        .unwrap()
        .run(&mut { CLEAN })
        .unwrap();
    assert_eq!(it.finish().unwrap_err(), Error::IterationIncomplete);
    assert_eq!(svgd.particles(), &x0[..]);
    // A second cut of one iteration is refused: with batch 0 run twice (pieces of one batch)
    // and batch 4 never, the count of batches done would reach 5 and `finish` would move the
    // particles by whatever batch 4's rows held.
    let mut it = svgd.begin().unwrap();
    it.pieces(1)
        .unwrap()
        .next()
        .unwrap()
        .run(&mut { CLEAN })
        .unwrap();
    assert_eq!(it.pieces(1).err(), Some(Error::RangeOverlap));
    assert_eq!(it.finish().unwrap_err(), Error::IterationIncomplete);
    assert_eq!(svgd.particles(), &x0[..]);
    // Pieces in reverse order, then finish: the serial step.
    let mut it = svgd.begin().unwrap();
    let pieces: Vec<_> = it.pieces(3).unwrap().collect();
    for piece in pieces.into_iter().rev() {
        piece.run(&mut { CLEAN }).unwrap();
    }
    let info = it.finish().unwrap();
    let (mut x2, mut w2, mut i2) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut serial = Svgd::new(&cfg, d, &mut x2, &mut w2, &mut i2).unwrap();
    assert_eq!(serial.step(&mut { CLEAN }).unwrap(), info);
    assert_eq!(serial.particles(), svgd.particles());
    // With replacement there are no phases.
    let wr = SvgdConfig {
        batching: Batching::WithReplacement,
        ..cfg
    };
    let len = Svgd::<f64>::workspace_len(n, d, &wr);
    let (mut x3, mut w3, mut i3) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut s3 = Svgd::new(&wr, d, &mut x3, &mut w3, &mut i3).unwrap();
    assert_eq!(s3.begin().err(), Some(Error::InvalidOption));
}

/// ∇U of N(1, 2²) per coordinate, with a seed-dependent wobble (a stochastic gradient).
#[derive(Clone, Copy)]
struct Normal;
impl Gradient<f64> for Normal {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        let u = Rng::new(seed, 3).uniform_f64() - 0.5;
        for (gl, &xl) in g.iter_mut().zip(x) {
            *gl = (xl - 1.0) / 4.0 + 0.01 * u;
        }
        Ok(())
    }
}

#[test]
fn chains_are_the_serial_chains_on_streams_0_to_k() {
    let cfg = SghmcConfig {
        seed: 5,
        ..SghmcConfig::new(0.1)
    };
    let out = pool(3)
        .install(|| run_chains::<f64, SghmcCore, _>(&cfg, &[0.0, 0.5], 5, 300, &Normal))
        .unwrap();
    assert_eq!(out.samples.len(), 5);
    for (s, samples) in out.samples.iter().enumerate() {
        let c = SghmcConfig {
            stream: s as u64,
            ..cfg
        };
        let mut ws = vec![0.0; sgsample::Sghmc::<f64>::workspace_len(2)];
        let mut chain = sgsample::Sghmc::new(&c, &[0.0, 0.5], &mut ws).unwrap();
        let mut want = vec![0.0; 600];
        chain.run(&mut Normal, &mut want).unwrap();
        assert_eq!(samples, &want, "chain {s}");
    }
    assert_eq!(out.pooled, Pooled::of(&out.samples, 2).unwrap());
    // Unequal chains, a length that is not whole rows, d = 0: refused (not a panic).
    let short = vec![out.samples[0].clone(), out.samples[1][2..].to_vec()];
    assert_eq!(Pooled::of(&short, 2), Err(Error::LengthMismatch));
    assert_eq!(Pooled::of(&[vec![0.0; 3]], 2), Err(Error::LengthMismatch));
    assert_eq!(Pooled::of(&out.samples, 0), Err(Error::ZeroDimension));
    // One sample in all: NaN variance (not −0).
    assert!(Pooled::of(&[vec![1.0, 2.0]], 2).unwrap().variance[0].is_nan());
}

/// SGLD on N(1, 2²): 8 chains; the pooled mean is within 5 Monte Carlo standard errors of 1
/// (the standard error from the batch means of each chain), the variance near 4 (SGLD's bias at
/// this step is ~1%), and split R-hat near 1. A runner that reused one stream for every chain
/// would make the chains identical (R-hat still 1, but the samples equal: checked).
#[test]
fn pooled_summaries_match_the_target() {
    let cfg = SgldConfig {
        seed: 11,
        ..SgldConfig::new(0.05)
    };
    let (k, iters) = (8, 40_000);
    let out = run_chains::<f64, SgldCore, _>(&cfg, &[1.0], k, iters, &Normal).unwrap();
    assert_ne!(out.samples[0], out.samples[1]);
    let chain_means: Vec<f64> = out
        .samples
        .iter()
        .map(|c| c.iter().sum::<f64>() / iters as f64)
        .collect();
    let m = chain_means.iter().sum::<f64>() / k as f64;
    let se = (chain_means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt()
        / (k as f64).sqrt();
    assert!((out.pooled.mean[0] - m).abs() < 1e-12);
    assert!((m - 1.0).abs() < 5.0 * se, "mean {m} se {se}");
    assert!(
        (out.pooled.variance[0] - 4.0).abs() < 0.4,
        "{:?}",
        out.pooled
    );
    assert!(
        (out.pooled.split_rhat[0] - 1.0).abs() < 0.05,
        "{:?}",
        out.pooled
    );
    let _ = Sgld::<f64>::workspace_len(1);
}

/// N(1, 2²) per coordinate with its energy, for AMAGOLD (the gradient as `Normal`'s, exact).
#[derive(Clone, Copy)]
struct NormalEnergy;
impl Gradient<f64> for NormalEnergy {
    fn gradient(&mut self, x: &[f64], _seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for (gl, &xl) in g.iter_mut().zip(x) {
            *gl = (xl - 1.0) / 4.0;
        }
        Ok(())
    }
}
impl Potential<f64> for NormalEnergy {
    fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        Ok(x.iter().map(|&xl| (xl - 1.0) * (xl - 1.0) / 8.0).sum())
    }
}

/// AMAGOLD with a mass matrix (and a warm-up with the approach) needs more than 6·d workspace
/// coordinates: the runner allocates what the configuration needs (it allocated 6·d and refused
/// every such chain), and each chain is the serial chain of its stream.
#[test]
fn amagold_chains_with_a_mass_matrix() {
    let cfg = AmagoldConfig {
        seed: 3,
        warmup: 100,
        mass: Mass::Diagonal,
        ..AmagoldConfig::new(0.3)
    };
    let out = run_chains::<f64, AmagoldCore, _>(&cfg, &[0.0, 0.5], 2, 200, &NormalEnergy).unwrap();
    let c = AmagoldConfig { stream: 1, ..cfg };
    let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&c, 2)];
    let mut model = NormalEnergy;
    let mut chain = Amagold::new(&c, &[0.0, 0.5], &mut ws, &mut model).unwrap();
    let mut serial = vec![0.0; 400];
    chain.run(&mut model, &mut serial).unwrap();
    assert_eq!(out.samples[1], serial);
}
