//! Footprint probe (`scripts/footprint.sh`, results in `docs/footprint.md`).
//!
//! Built once without a sampler (the baseline: runtime, semihosting, formatting, the stack
//! probe) and once per set of `--features fp-amagold`, `fp-svgd`, `fp-stats` (the streaming
//! diagnostics), `fp-thin` (Stein thinning of stored draws), `fp-anneal` (RBM-SVGD with every
//! system annealed, docs/algorithms.md §2.8), `fp-tunamh` (TunaMH's exact minibatch
//! Metropolis–Hastings chain), `fp-weights` (importance weights of a particle set with the
//! median-heuristic bandwidth), `fp-kde` (draws from a particle set's kernel density estimate
//! and their importance weights, docs/algorithms.md §2.9); the differences of the
//! section sizes are the library's share. `fp-f64` switches the coordinate type from `f32` to
//! `f64`. Every input goes through [`black_box`] so nothing is constant-folded away: both AMAGOLD
//! variants and the warm-up are reachable, as they would be in a firmware that reads its settings
//! at run time.
//!
//! # Stack
//!
//! [`measure`] paints 16 KiB below the stack pointer with a pattern, calls the probed function
//! through a function pointer (so it cannot be inlined into the painted frame), and returns the
//! deepest byte that was overwritten, measured from the stack pointer at the call. The callbacks
//! are trivial (U = ½|x|², ∇U = x) and record the stack depth at their entry, so the report shows
//! the total, the depth at which the callbacks run, and the callbacks' own frames measured alone.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicUsize, Ordering};
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio};
use panic_semihosting as _;
#[allow(unused_imports)]
use sgsample::{Float, Gradient, Potential, Stop};

#[cfg(feature = "fp-f64")]
type Real = f64;
#[cfg(not(feature = "fp-f64"))]
type Real = f32;

/// Bytes painted below the stack pointer.
const PAINT: usize = 16 * 1024;
const PATTERN: u32 = 0x5EED_C0DE;

/// Lowest stack pointer seen at a callback's entry (the callbacks store it).
static CALLBACK_SP: AtomicUsize = AtomicUsize::new(usize::MAX);

#[inline(always)]
fn sp() -> usize {
    cortex_m::register::msp::read() as usize
}

/// Stack bytes `f()` used, from the stack pointer of this frame down to the deepest word that no
/// longer holds the paint, and the depth at which the callbacks ran (0 if they did not). `f` must
/// do its work through a call that cannot be inlined (a function pointer through [`black_box`]),
/// so that the probed frames lie below the painted stack pointer.
#[inline(never)]
fn measure(f: impl FnOnce()) -> (usize, usize) {
    let top = sp();
    let bottom = top - PAINT;
    // SAFETY: [bottom, top) lies below the live stack (the stack grows down from the top of the
    // 4 MiB RAM and the statics are a few KiB at its bottom), nothing else runs (no interrupts
    // are enabled), and no frame below `top` is live while painting.
    unsafe {
        let mut p = bottom as *mut u32;
        while (p as usize) < top {
            p.write_volatile(PATTERN);
            p = p.add(1);
        }
    }
    CALLBACK_SP.store(usize::MAX, Ordering::Relaxed);
    f();
    let mut p = bottom as *const u32;
    // SAFETY: reads of the painted region only.
    unsafe {
        while (p as usize) < top && p.read_volatile() == PATTERN {
            p = p.add(1);
        }
    }
    let cb = CALLBACK_SP.load(Ordering::Relaxed);
    (
        top - p as usize,
        if cb == usize::MAX { 0 } else { top - cb },
    )
}

/// The probed function's own worst stack use, callbacks excluded: when the deepest painted word
/// lies below what the callbacks can reach (depth at their entry plus their own frames, measured
/// alone), the deepest point is in the sampler's own code and `total` is exact; otherwise the
/// deepest point may be inside a callback and the sampler's own use is at least the depth at
/// which it calls them, which is reported instead (0 would flag that no callback ran).
#[allow(dead_code)] // used by the sampler probes only
fn own(total: usize, at_callback: usize, callbacks: usize) -> usize {
    if total > at_callback + callbacks {
        total
    } else {
        at_callback
    }
}

/// U(x) = ½|x|², ∇U = x: the cheapest model, with non-inlined callbacks that note the stack depth.
struct Trivial;

impl<T: Float> Gradient<T> for Trivial {
    #[inline(never)]
    fn gradient(&mut self, x: &[T], _seed: u64, g: &mut [T]) -> Result<(), Stop> {
        CALLBACK_SP.fetch_min(sp(), Ordering::Relaxed);
        for (gi, &xi) in g.iter_mut().zip(x) {
            *gi = xi;
        }
        Ok(())
    }
}

impl<T: Float> Potential<T> for Trivial {
    #[inline(never)]
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        CALLBACK_SP.fetch_min(sp(), Ordering::Relaxed);
        let mut s = T::ZERO;
        for &xi in x {
            s += xi * xi;
        }
        Ok(0.5 * s.to_f64())
    }
}

type GradFn = fn(&mut Trivial, &[Real], u64, &mut [Real]) -> Result<(), Stop>;
type EnergyFn = fn(&mut Trivial, &[Real]) -> Result<f64, Stop>;

/// The callbacks' own frames: each called alone through a function pointer. Returns the larger
/// of the two and the gradient (for the checksum).
fn callbacks_alone(report: &mut Report) -> (usize, Real) {
    let mut m = Trivial;
    let x = [black_box(0.5 as Real)];
    let mut g = [0.0 as Real; 1];
    let grad: GradFn = <Trivial as Gradient<Real>>::gradient;
    let energy: EnergyFn = <Trivial as Potential<Real>>::energy;
    let (sg, _) = measure(|| {
        let _ = black_box(black_box(grad)(&mut m, &x, 1, &mut g));
    });
    let (se, _) = measure(|| {
        let _ = black_box(black_box(energy)(&mut m, &x));
    });
    report.push("stack.callback.gradient", sg);
    report.push("stack.callback.energy", se);
    (sg.max(se), g[0])
}

/// Up to 24 (label, value) results, printed by the same loop in every build.
struct Report {
    items: [(&'static str, usize); 24],
    n: usize,
}

impl Report {
    fn push(&mut self, label: &'static str, value: usize) {
        if let Some(slot) = self.items.get_mut(self.n) {
            *slot = (label, value);
            self.n += 1;
        }
    }
}

#[cfg(feature = "fp-amagold")]
mod amagold_probe {
    use super::*;
    use sgsample::{Amagold, AmagoldConfig, Variant};

    pub const D: usize = 1;
    /// The probe's configuration as far as the workspace depends on it: a warm-up with the
    /// approach (the default), unit mass.
    const SHAPE: AmagoldConfig = {
        let mut c = AmagoldConfig::new(0.25);
        c.warmup = 5;
        c
    };
    pub const WS: usize = Amagold::<Real>::workspace_len_for(&SHAPE, D);

    pub struct Ctx {
        pub chain: Amagold<'static, Real>,
        pub model: Trivial,
        pub checksum: u64,
    }

    /// Five outer iterations (the first five are the warm-up: the approach's optimiser step,
    /// then the dual averaging and the final window's settling).
    pub fn five_steps(c: &mut Ctx) {
        for _ in 0..5 {
            if let Ok(info) = c.chain.step(&mut c.model) {
                c.checksum = c.checksum.wrapping_add(info.energy.to_bits());
            }
        }
    }

    #[inline(never)]
    pub fn run(report: &mut Report, ws: &'static mut [Real], callbacks: usize) -> u64 {
        let mut cfg = AmagoldConfig::new(black_box(0.25));
        cfg.warmup = black_box(5); // the first measured batch of five steps is the warm-up
        cfg.variant = if black_box(false) {
            Variant::NonReversible
        } else {
            Variant::Reversible
        };
        cfg.seed = black_box(1);
        let theta0 = [black_box(0.5 as Real); D];
        let mut model = Trivial;
        let Ok(chain) = Amagold::new(&cfg, &theta0, ws, &mut model) else {
            return 1;
        };
        let mut ctx = Ctx {
            chain,
            model,
            checksum: 0,
        };
        let f: fn(&mut Ctx) = five_steps;
        let (total, at_cb) = measure(|| black_box(f)(&mut ctx));
        report.push("stack.amagold.warmup.total", total);
        report.push("stack.amagold.warmup.at_callback", at_cb);
        report.push("stack.amagold.warmup.own", own(total, at_cb, callbacks));
        let (total, at_cb) = measure(|| black_box(f)(&mut ctx));
        report.push("stack.amagold.total", total);
        report.push("stack.amagold.at_callback", at_cb);
        report.push("stack.amagold.own", own(total, at_cb, callbacks));
        report.push(
            "sizeof.Amagold",
            core::mem::size_of::<Amagold<'static, Real>>(),
        );
        ctx.checksum
    }
}

#[cfg(feature = "fp-svgd")]
mod svgd_probe {
    use super::*;
    use sgsample::{Batching, KernelChoice, StepRule, Svgd, SvgdConfig};

    pub const N: usize = 16;
    /// Covers every configuration (checked by `Svgd::new`): 8·N plus the median's N(N−1)/2.
    pub const WS: usize = 8 * N + N * (N - 1) / 2;

    pub struct Ctx<'a> {
        pub svgd: Svgd<'a, Real>,
        pub model: Trivial,
        pub checksum: u64,
    }

    /// Three iterations.
    pub fn three_steps(c: &mut Ctx<'_>) {
        for _ in 0..3 {
            if let Ok(info) = c.svgd.step(&mut c.model) {
                c.checksum = c.checksum.wrapping_add(info.mean_force.to_bits());
                // The KSD enters the checksum, so that LTO cannot drop its computation.
                #[cfg(feature = "fp-ksd")]
                {
                    c.checksum = c.checksum.wrapping_add(info.ksd_squared.to_bits());
                }
            }
        }
    }

    /// One system per configuration; `which` picks it at run time (through `black_box`).
    fn config(which: u32) -> SvgdConfig<KernelChoice> {
        let (batching, kernel, rule) = match which {
            0 => (
                Batching::WithoutReplacement,
                KernelChoice::GaussianMedian,
                StepRule::adagrad(black_box(0.2)),
            ),
            1 => (
                Batching::WithReplacement,
                KernelChoice::InverseMultiquadric {
                    c: black_box(1.0),
                    beta: black_box(0.5),
                },
                StepRule::Decaying {
                    eta: black_box(0.1),
                },
            ),
            _ => (
                Batching::WithoutReplacement,
                KernelChoice::Gaussian { h: black_box(2.0) },
                StepRule::Constant {
                    eta: black_box(0.1),
                },
            ),
        };
        let mut cfg = SvgdConfig::new(black_box(4), kernel, rule);
        cfg.batching = batching;
        cfg.seed = black_box(3);
        // `fp-ksd`: the first system reports the batch KSD, the third the full one.
        #[cfg(feature = "fp-ksd")]
        {
            use sgsample::svgd::{KsdChoice, SteinImq};
            let k = SteinImq {
                c: black_box(1.0),
                beta: black_box(-0.5),
            };
            cfg.ksd = match which {
                0 => KsdChoice::Batch(k),
                1 => KsdChoice::Off,
                _ => KsdChoice::Full(k),
            };
        }
        // `fp-anneal`: every system annealed over more iterations than the probe runs (so γ < 1
        // in each measured step), the first and third with the hyperbolic schedule, the second
        // with the cyclical one.
        #[cfg(feature = "fp-anneal")]
        {
            use sgsample::svgd::Anneal;
            cfg.anneal = if which == 1 {
                Anneal::Cyclical {
                    iterations: black_box(100),
                    cycles: black_box(2),
                    power: black_box(1.0),
                }
            } else {
                Anneal::Hyperbolic {
                    iterations: black_box(100),
                    power: black_box(1.0),
                }
            };
        }
        cfg
    }

    #[inline(never)]
    pub fn run(
        report: &mut Report,
        particles: &mut [Real],
        ws: &mut [Real],
        index: &mut [u32],
        callbacks: usize,
    ) -> u64 {
        let mut checksum = 0;
        // Two systems in turn over the same buffers: the median kernel with AdaGrad without
        // replacement, then the inverse multiquadric, decaying steps, with replacement.
        let labels = [
            (
                "stack.svgd.median_adagrad.total",
                "stack.svgd.median_adagrad.at_callback",
                "stack.svgd.median_adagrad.own",
            ),
            (
                "stack.svgd.imq_replacement.total",
                "stack.svgd.imq_replacement.at_callback",
                "stack.svgd.imq_replacement.own",
            ),
            #[cfg(feature = "fp-ksd")]
            (
                "stack.svgd.gaussian_ksd_full.total",
                "stack.svgd.gaussian_ksd_full.at_callback",
                "stack.svgd.gaussian_ksd_full.own",
            ),
        ];
        for (which, (l_total, l_at, l_own)) in labels.into_iter().enumerate() {
            for (i, x) in particles.iter_mut().enumerate() {
                *x = black_box(i as Real * 0.25 - 2.0);
            }
            let cfg = config(black_box(which as u32));
            let Ok(svgd) = Svgd::new(&cfg, 1, &mut *particles, &mut *ws, &mut *index) else {
                return 1;
            };
            let mut ctx = Ctx {
                svgd,
                model: Trivial,
                checksum: 0,
            };
            let f: fn(&mut Ctx<'_>) = three_steps;
            let (total, at_cb) = measure(|| black_box(f)(&mut ctx));
            report.push(l_total, total);
            report.push(l_at, at_cb);
            report.push(l_own, own(total, at_cb, callbacks));
            checksum ^= ctx.checksum;
        }
        report.push("sizeof.Svgd", core::mem::size_of::<Svgd<'static, Real>>());
        checksum
    }
}

#[cfg(feature = "fp-stats")]
mod stats_probe {
    use super::*;
    use sgsample::stats::{ess, split_rhat, Series};

    /// The window of the probe's accumulators (lags); RAM per accumulator is 24·L + 1504 bytes.
    pub const L: usize = 32;

    /// One draw into each of two chains' accumulators.
    pub fn push(c: &mut [Series<L>; 2], x: Real) {
        c[0].push(x);
        c[1].push(-x);
    }

    /// ESS, MCSE and split-R̂ of the two chains (the reads a firmware would report).
    pub fn query(c: &mut [Series<L>; 2], out: &mut u64) {
        let e = ess(&[&c[0], &c[1]]).unwrap_or(0.0);
        let r = split_rhat(&[&c[0], &c[1]]).unwrap_or(0.0);
        *out = (e + r + c[0].mcse()).to_bits();
    }

    #[inline(never)]
    pub fn run(report: &mut Report, chains: &mut [Series<L>; 2]) -> u64 {
        // An AR(1)-like series from black-boxed inputs, 200 draws, the last one measured.
        let phi = black_box(0.5 as Real);
        let mut x = black_box(0.0 as Real);
        for k in 0..199u32 {
            x = phi * x + black_box(((k * 37) % 11) as Real - 5.0);
            push(chains, x);
        }
        let f: fn(&mut [Series<L>; 2], Real) = push;
        let (total, _) = measure(|| black_box(f)(chains, black_box(x)));
        report.push("stack.stats.push", total);
        let mut out = 0u64;
        let q: fn(&mut [Series<L>; 2], &mut u64) = query;
        let (total, _) = measure(|| black_box(q)(chains, &mut out));
        report.push("stack.stats.ess_rhat_mcse", total);
        report.push("sizeof.Series", core::mem::size_of::<Series<L>>());
        out
    }
}

#[cfg(feature = "fp-thin")]
mod thin_probe {
    use super::*;
    use sgsample::svgd::SteinImq;
    use sgsample::thin::{stein_thin, thin_scales, ThinKernel};

    /// Stored draws (rows of d = 2) and the points chosen from them.
    pub const N: usize = 64;
    pub const M: usize = 8;

    /// Thins the draws with a standardised, preconditioned kernel (every option's code linked).
    pub fn thin(x: &[Real], g: &[Real], out: &mut [usize; M], scratch: &mut [f64; N]) -> u64 {
        let mut w = [0.0f64; 2];
        let lam = [black_box(1.0f64), black_box(0.5f64)];
        if thin_scales(x, 2, &mut w).is_err() {
            return 1;
        }
        let k = ThinKernel {
            imq: SteinImq {
                c: black_box(1.0),
                beta: black_box(-0.5),
            },
            scale: Some(&w),
            precond: Some(&lam),
        };
        match stein_thin(x, g, 2, &k, out, scratch) {
            Ok(()) => out.iter().fold(0u64, |h, &i| h.rotate_left(7) ^ i as u64),
            Err(_) => 2,
        }
    }

    #[inline(never)]
    pub fn run(report: &mut Report, x: &mut [Real; 2 * N], g: &mut [Real; 2 * N]) -> u64 {
        // Draws of a correlated pair from a black-boxed recurrence; ∇V of a unit Gaussian.
        let step = black_box(37usize);
        for i in 0..N {
            let a = ((i * step + 11) % 64) as Real / 32.0 - 1.0;
            x[2 * i] = a;
            x[2 * i + 1] = 0.5 * a + black_box(((i * 13) % 7) as Real) * 0.1;
        }
        g.copy_from_slice(x);
        let mut out = [0usize; M];
        let mut scratch = [0.0f64; N];
        let mut h = 0u64;
        type Thin = fn(&[Real], &[Real], &mut [usize; M], &mut [f64; N]) -> u64;
        let f: Thin = thin;
        let (total, _) = measure(|| h = black_box(f)(x, g, &mut out, &mut scratch));
        report.push("stack.thin", total);
        h
    }
}

#[cfg(feature = "fp-weights")]
mod weights_probe {
    use super::*;
    use sgsample::svgd::{median_bandwidth, particle_weights};

    /// Particles (rows of d = 2).
    pub const N: usize = 16;
    /// The median's scratch: N(N−1)/2 coordinates.
    pub const PAIRS: usize = N * (N - 1) / 2;

    /// The probe's buffers, in one static (one argument of `main` after `#[entry]`'s rewrite).
    pub struct Buffers {
        pub x: [Real; 2 * N],
        pub energies: [f64; N],
        pub weights: [f64; N],
        pub scratch: [Real; PAIRS],
    }

    impl Buffers {
        pub const fn new() -> Self {
            Buffers {
                x: [0.0; 2 * N],
                energies: [0.0; N],
                weights: [0.0; N],
                scratch: [0.0; PAIRS],
            }
        }
    }

    /// The median-heuristic bandwidth of the particles, then their importance weights with it
    /// (the bandwidth black-boxed, so the weights cannot be specialised to it).
    pub fn weigh(b: &mut Buffers) -> u64 {
        let Ok(h) = median_bandwidth(&b.x, 2, &mut b.scratch) else {
            return 1;
        };
        match particle_weights(&b.x, 2, &b.energies, black_box(h), &mut b.weights) {
            Ok(ess) => b.weights.iter().fold(h.to_bits() ^ ess.to_bits(), |c, w| {
                c.rotate_left(7) ^ w.to_bits()
            }),
            Err(_) => 2,
        }
    }

    #[inline(never)]
    pub fn run(report: &mut Report, b: &mut Buffers) -> u64 {
        // Particles of a correlated pair from a black-boxed recurrence; energies of a unit
        // Gaussian, V = ½|x|².
        let step = black_box(37usize);
        for i in 0..N {
            let a = ((i * step + 11) % N) as Real / 8.0 - 1.0;
            b.x[2 * i] = a;
            b.x[2 * i + 1] = 0.5 * a + black_box(((i * 13) % 7) as Real) * 0.1;
        }
        for (v, x) in b.energies.iter_mut().zip(b.x.chunks_exact(2)) {
            let (x0, x1) = (x[0].to_f64(), x[1].to_f64());
            *v = 0.5 * (x0 * x0 + x1 * x1);
        }
        let mut c = 0u64;
        let f: fn(&mut Buffers) -> u64 = weigh;
        let (total, _) = measure(|| c = black_box(f)(b));
        report.push("stack.weights", total);
        c
    }
}

#[cfg(feature = "fp-kde")]
mod kde_probe {
    use super::*;
    use sgsample::svgd::{kde_draws, kde_weights};

    /// Particles (rows of d = 2).
    pub const N: usize = 16;
    /// Draws from their density estimate.
    pub const M: usize = 32;

    /// The probe's buffers, in one static (one argument of `main` after `#[entry]`'s rewrite).
    pub struct Buffers {
        pub x: [Real; 2 * N],
        pub y: [Real; 2 * M],
        pub energies: [f64; M],
        pub weights: [f64; M],
    }

    impl Buffers {
        pub const fn new() -> Self {
            Buffers {
                x: [0.0; 2 * N],
                y: [0.0; 2 * M],
                energies: [0.0; M],
                weights: [0.0; M],
            }
        }
    }

    /// M draws from the particles' density estimate, their energies (a unit Gaussian), their
    /// weights (the bandwidth and the seed black-boxed).
    pub fn draw_and_weigh(b: &mut Buffers) -> u64 {
        let h = black_box(0.25);
        if kde_draws(&b.x, 2, h, black_box(7), &mut b.y).is_err() {
            return 1;
        }
        for (v, y) in b.energies.iter_mut().zip(b.y.chunks_exact(2)) {
            let (y0, y1) = (y[0].to_f64(), y[1].to_f64());
            *v = 0.5 * (y0 * y0 + y1 * y1);
        }
        match kde_weights(&b.x, 2, h, &b.y, &b.energies, &mut b.weights) {
            Ok(ess) => b
                .weights
                .iter()
                .fold(ess.to_bits(), |c, w| c.rotate_left(7) ^ w.to_bits()),
            Err(_) => 2,
        }
    }

    #[inline(never)]
    pub fn run(report: &mut Report, b: &mut Buffers) -> u64 {
        // Particles of a correlated pair from a black-boxed recurrence, as the weights probe.
        let step = black_box(37usize);
        for i in 0..N {
            let a = ((i * step + 11) % N) as Real / 8.0 - 1.0;
            b.x[2 * i] = a;
            b.x[2 * i + 1] = 0.5 * a + black_box(((i * 13) % 7) as Real) * 0.1;
        }
        let mut c = 0u64;
        let f: fn(&mut Buffers) -> u64 = draw_and_weigh;
        let (total, _) = measure(|| c = black_box(f)(b));
        report.push("stack.kde", total);
        c
    }
}

#[cfg(feature = "fp-tunamh")]
mod tunamh_probe {
    use super::*;
    use sgsample::tunamh::{Terms, Tunamh, TunamhConfig, CHUNK};

    pub const D: usize = 1;
    pub const WS: usize = Tunamh::<Real>::workspace_len(D);
    /// Terms: enough that the expected batch is sometimes below N and sometimes not.
    const N: u64 = 64;

    /// N Laplace terms |y_i − x| (each 1-Lipschitz in x: bound 1) with y_i spread over
    /// [−spread, spread), and a Gaussian exact part ½x²; non-inlined callbacks that note the
    /// stack depth at their entry, like [`Trivial`]'s. Differences in `f64`, so that the
    /// rounding of `f32` coordinates cannot push one past the bound.
    pub struct Laplace {
        pub spread: f64,
    }

    fn abs(v: f64) -> f64 {
        if v < 0.0 {
            -v
        } else {
            v
        }
    }

    /// The coordinate of a d = 1 point, widened (0 for an empty slice, which the chain never passes).
    fn first(x: &[Real]) -> f64 {
        x.first().map_or(0.0, |v| v.to_f64())
    }

    impl Terms<Real> for Laplace {
        #[inline(never)]
        fn differences(
            &mut self,
            t: &[Real],
            p: &[Real],
            idx: &[u64],
            out: &mut [f64],
        ) -> Result<(), Stop> {
            CALLBACK_SP.fetch_min(sp(), Ordering::Relaxed);
            // `first`, not `[0]`: an index would link the panic path the no-panic check looks for.
            let (t, p) = (first(t), first(p));
            for (o, &i) in out.iter_mut().zip(idx) {
                let y = (i as f64 / N as f64 * 2.0 - 1.0) * self.spread;
                *o = abs(y - p) - abs(y - t);
            }
            Ok(())
        }
        #[inline(never)]
        fn exact_difference(&mut self, t: &[Real], p: &[Real]) -> Result<f64, Stop> {
            CALLBACK_SP.fetch_min(sp(), Ordering::Relaxed);
            // `first`, not `[0]`: an index would link the panic path the no-panic check looks for.
            let (t, p) = (first(t), first(p));
            Ok(0.5 * (p * p - t * t))
        }
    }

    pub struct Ctx {
        pub chain: Tunamh<'static, Real>,
        pub model: Laplace,
        pub checksum: u64,
        pub full_passes: usize,
    }

    /// Ten iterations: with σ = 0.5 and χ = 0.05 the expected batch χ·L² + L (L = 64·|θ′ − θ|)
    /// reaches N = 64 for the longer proposals, so both passes run.
    pub fn ten_steps(c: &mut Ctx) {
        for _ in 0..10 {
            if let Ok(info) = c.chain.step(&mut c.model) {
                c.checksum = c.checksum.wrapping_add(info.evaluations);
                c.full_passes += info.full_pass as usize;
            }
        }
    }

    type DiffFn = fn(&mut Laplace, &[Real], &[Real], &[u64], &mut [f64]) -> Result<(), Stop>;

    #[inline(never)]
    pub fn run(report: &mut Report, ws: &'static mut [Real]) -> u64 {
        // The callbacks' own frames, measured alone (a full chunk of indices).
        let mut model = Laplace {
            spread: black_box(1.0),
        };
        let (t, p) = ([black_box(0.25 as Real)], [black_box(-0.5 as Real)]);
        let idx = [black_box(3u64); CHUNK];
        let mut out = [0.0f64; CHUNK];
        let diff: DiffFn = <Laplace as Terms<Real>>::differences;
        let (callbacks, _) = measure(|| {
            let _ = black_box(black_box(diff)(&mut model, &t, &p, &idx, &mut out));
        });
        report.push("stack.callback.differences", callbacks);

        let mut cfg = TunamhConfig::new(black_box(0.5), black_box(N), black_box(1.0));
        cfg.chi = black_box(0.05);
        cfg.seed = black_box(1);
        let theta0 = [black_box(0.5 as Real); D];
        let Ok(chain) = Tunamh::new(&cfg, &theta0, ws) else {
            return 1;
        };
        let mut ctx = Ctx {
            chain,
            model,
            checksum: out[0].to_bits(),
            full_passes: 0,
        };
        let f: fn(&mut Ctx) = ten_steps;
        let (total, at_cb) = measure(|| black_box(f)(&mut ctx));
        report.push("stack.tunamh.total", total);
        report.push("stack.tunamh.at_callback", at_cb);
        report.push("stack.tunamh.own", own(total, at_cb, callbacks));
        report.push("tunamh.full_passes_of_10", ctx.full_passes);
        report.push(
            "sizeof.Tunamh",
            core::mem::size_of::<Tunamh<'static, Real>>(),
        );
        ctx.checksum ^ ctx.chain.evaluations()
    }
}

#[entry]
fn main() -> ! {
    #[cfg(feature = "fp-amagold")]
    static mut AMAGOLD_WS: [Real; amagold_probe::WS] = [0.0; amagold_probe::WS];
    #[cfg(feature = "fp-svgd")]
    static mut SVGD_PARTICLES: [Real; svgd_probe::N] = [0.0; svgd_probe::N];
    #[cfg(feature = "fp-svgd")]
    static mut SVGD_WS: [Real; svgd_probe::WS] = [0.0; svgd_probe::WS];
    #[cfg(feature = "fp-svgd")]
    static mut SVGD_INDEX: [u32; svgd_probe::N] = [0; svgd_probe::N];
    #[cfg(feature = "fp-thin")]
    static mut THIN_X: [Real; 2 * thin_probe::N] = [0.0; 2 * thin_probe::N];
    #[cfg(feature = "fp-thin")]
    static mut THIN_G: [Real; 2 * thin_probe::N] = [0.0; 2 * thin_probe::N];
    #[cfg(feature = "fp-weights")]
    static mut WEIGHTS: weights_probe::Buffers = weights_probe::Buffers::new();
    #[cfg(feature = "fp-kde")]
    static mut KDE: kde_probe::Buffers = kde_probe::Buffers::new();
    #[cfg(feature = "fp-tunamh")]
    static mut TUNAMH_WS: [Real; tunamh_probe::WS] = [0.0; tunamh_probe::WS];
    #[cfg(feature = "fp-stats")]
    static mut STATS: [sgsample::stats::Series<{ stats_probe::L }>; 2] =
        [const { sgsample::stats::Series::new() }; 2];

    let mut report = Report {
        items: [("", 0); 24],
        n: 0,
    };
    let (callbacks, g) = callbacks_alone(&mut report);
    #[allow(unused_mut)]
    let mut checksum = g.to_f64().to_bits() ^ callbacks as u64;
    #[cfg(feature = "fp-amagold")]
    {
        checksum ^= amagold_probe::run(&mut report, AMAGOLD_WS, callbacks);
    }
    #[cfg(feature = "fp-svgd")]
    {
        checksum ^= svgd_probe::run(&mut report, SVGD_PARTICLES, SVGD_WS, SVGD_INDEX, callbacks);
    }
    #[cfg(feature = "fp-stats")]
    {
        checksum ^= stats_probe::run(&mut report, STATS);
    }
    #[cfg(feature = "fp-thin")]
    {
        checksum ^= thin_probe::run(&mut report, THIN_X, THIN_G);
    }
    #[cfg(feature = "fp-weights")]
    {
        checksum ^= weights_probe::run(&mut report, WEIGHTS);
    }
    #[cfg(feature = "fp-kde")]
    {
        checksum ^= kde_probe::run(&mut report, KDE);
    }
    #[cfg(feature = "fp-tunamh")]
    {
        checksum ^= tunamh_probe::run(&mut report, TUNAMH_WS);
    }
    report.push("checksum", checksum as u32 as usize);

    let status = match hio::hstdout() {
        Ok(mut out) => {
            use core::fmt::Write;
            let mut ok = true;
            for (label, value) in report.items.iter().take(report.n) {
                ok &= writeln!(out, "{label}: {value}").is_ok();
            }
            if ok {
                debug::EXIT_SUCCESS
            } else {
                debug::EXIT_FAILURE
            }
        }
        Err(()) => debug::EXIT_FAILURE,
    };
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}
