//! The runs the firmware performs and the host repeats, shared by both sides so that they cannot
//! drift apart: the models, their parameters, the output format.
//!
//! This file is compiled into the firmware (`src/main.rs`, `no_std`) and into the host program
//! (`../examples/firmware_host.rs`, through `#[path]`). Everything in it is `no_std` and
//! allocation-free.
//!
//! # The models
//!
//! The gradient noise is a pure function of the minibatch seed, built from integer arithmetic
//! and exact conversions only (SplitMix64, then the top 53 bits as a uniform, centred and scaled
//! to unit variance), so a C program computes the same bits (`c/main.c` does). Model
//! arithmetic runs in the coordinate type `T`, in the order written here, with no fused
//! multiply-add: on the Cortex-M4F the `f32` models run on the FPU, the `f64` ones in software.
//!
//! # Output format
//!
//! AMAGOLD: one line per iteration, `<run> <k> <a|r> <hex>…`, the coordinates as the hexadecimal
//! bits of their IEEE representation so that comparing text compares bits, then `<run> end
//! <accepted> <energy bits>`; a run with a mass matrix or a warm-up then adds `<run> mass <k
//! bits>… <step size bits>` (the inverse mass's diagonal) and `<run> report <verdict> <reasons>
//! <metric updates> <iterations>` (its warm-up report). SVGD: one line per checkpoint iteration k, `<run> <k> <hex>…` with
//! all N particles.
#![allow(dead_code)]

use core::fmt::{self, Write};
use sgsample::{
    Amagold, AmagoldConfig, Batching, Error, Float, Gradient, KernelChoice, Mass, Potential,
    StepRule, Stop, Svgd, SvgdConfig, Variant,
};
// SplitMix64 (a bijective 64-bit integer hash): the library's, the one `c/main.c` repeats.
use sgsample::rng::splitmix64;

/// Noise number `k` of a minibatch seed: uniform on [−√3, √3) (mean 0, variance 1), 53 bits.
pub fn seed_noise(seed: u64, k: u64) -> f64 {
    let h = splitmix64(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let u = (h >> 11) as f64 * (1.0 / 9007199254740992.0);
    (u - 0.5) * 3.4641016151377544
}

/// The double well of docs/algorithms.md §1.3, U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, with
/// ∇Ũ = ∇U + `noise`·ξ(seed) (ξ of unit variance, see [`seed_noise`]).
pub struct DoubleWell {
    /// Standard deviation of the gradient noise.
    pub noise: f64,
}

impl<T: Float> Gradient<T> for DoubleWell {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let (Some(&x), Some(g)) = (x.first(), g.first_mut()) else {
            return Err(Stop::Abort);
        };
        let c = T::from_f64;
        let x2 = x * x;
        let du = (((c(4.0) * x2) * x + c(3.0) * x2) - c(26.0) * x - c(1.0)) / c(14.0);
        *g = du + c(self.noise * seed_noise(seed, 0));
        Ok(())
    }
}

impl<T: Float> Potential<T> for DoubleWell {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        let Some(&x) = x.first() else {
            return Err(Stop::Abort);
        };
        let c = T::from_f64;
        let u = (x + c(4.0)) * (x + c(1.0)) * (x - c(1.0)) * (x - c(3.0)) / c(14.0) + c(0.5);
        Ok(u.to_f64())
    }
}

/// Dimension of [`Gauss3`].
pub const G3_D: usize = 3;

/// A correlated 3-D Gaussian, U = ½ θᵀPθ (P row-major below), with ∇Ũ = Pθ + `noise`·ξᵢ(seed).
pub struct Gauss3 {
    /// Standard deviation of the gradient noise per coordinate.
    pub noise: f64,
}

/// The precision matrix of [`Gauss3`] (symmetric positive definite).
pub const G3_P: [f64; 9] = [2.0, 0.5, 0.0, 0.5, 1.0, -0.25, 0.0, -0.25, 0.5];

impl Gauss3 {
    fn p_times<T: Float>(x: &[T], i: usize) -> T {
        let c = T::from_f64;
        let mut s = T::ZERO;
        for (j, &xj) in x.iter().enumerate().take(G3_D) {
            s += c(G3_P[i * G3_D + j]) * xj;
        }
        s
    }
}

impl<T: Float> Gradient<T> for Gauss3 {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        if x.len() != G3_D || g.len() != G3_D {
            return Err(Stop::Abort);
        }
        for (i, gi) in g.iter_mut().enumerate() {
            *gi = Self::p_times(x, i) + T::from_f64(self.noise * seed_noise(seed, i as u64));
        }
        Ok(())
    }
}

impl<T: Float> Potential<T> for Gauss3 {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        if x.len() != G3_D {
            return Err(Stop::Abort);
        }
        let mut s = T::ZERO;
        for (i, &xi) in x.iter().enumerate() {
            s += xi * Self::p_times(x, i);
        }
        Ok((T::from_f64(0.5) * s).to_f64())
    }
}

/// Which model a run samples.
#[derive(Clone, Copy)]
pub enum ModelKind {
    /// [`DoubleWell`] with unit gradient noise (d = 1).
    DoubleWell,
    /// [`Gauss3`] with gradient noise 0.5 (d = 3).
    Gauss3,
}

/// One AMAGOLD run: model, configuration, start, length, and what is set before its first
/// iteration.
pub struct AmagoldRun {
    /// Run label (first word of every output line).
    pub name: &'static str,
    /// The model.
    pub model: ModelKind,
    /// Sampler configuration.
    pub cfg: AmagoldConfig,
    /// Initial position (length d).
    pub theta0: &'static [f64],
    /// Outer iterations.
    pub iterations: u32,
    /// The step size set through the setter after `new` (0: none).
    pub set_step_size: f64,
    /// A dense inverse mass matrix (d×d, row-major) set through the setter after `new` (empty:
    /// none).
    pub set_inverse_mass_dense: &'static [f64],
}

impl AmagoldRun {
    /// Whether the run has more than the plain reference build can repeat: a mass matrix, a
    /// warm-up (the current one, with its approach), or a setter.
    pub const fn core_only(&self) -> bool {
        !matches!(self.cfg.mass, Mass::Unit)
            || self.cfg.warmup > 0
            || self.set_step_size > 0.0
            || !self.set_inverse_mass_dense.is_empty()
    }
}

/// Largest dimension among the runs (for static buffers).
pub const MAX_D: usize = G3_D;

#[allow(clippy::too_many_arguments)]
const fn cfg(
    step_size: f64,
    steps: u32,
    variant: Variant,
    warmup: u64,
    seed: u64,
    stream: u64,
    mass: Mass,
) -> AmagoldConfig {
    let mut c = AmagoldConfig::new(step_size);
    c.steps = steps;
    c.variant = variant;
    c.warmup = warmup;
    c.seed = seed;
    c.stream = stream;
    c.mass = mass;
    c
}

/// Near the covariance P⁻¹ of [`Gauss3`] (symmetric positive definite), the metric the dense
/// run sets.
pub const G3_COV: [f64; 9] = [0.58, -0.33, -0.17, -0.33, 1.33, 0.67, -0.17, 0.67, 2.33];

/// The AMAGOLD runs, each done once in `f64` and once in `f32` (the name gets `-f64`/`-f32`).
/// The double-well runs use §1.3's setting (ε = 0.25, β = 0.25, T = 10, σ = 1, θ₀ = 0); the first
/// starts with a warm-up (its approach, then the dual averaging: the `exp`/`log`/`pow` path runs
/// too). On the 3-D Gaussian: the plain chain; a dense mass matrix and ε set through the setters
/// (no warm-up); a warm-up with the approach from a far start that learns a diagonal mass matrix.
pub const AMAGOLD_RUNS: [AmagoldRun; 5] = [
    AmagoldRun {
        name: "amagold-dw-rev",
        model: ModelKind::DoubleWell,
        cfg: cfg(0.25, 10, Variant::Reversible, 40, 2020, 0, Mass::Unit),
        theta0: &[0.0],
        iterations: 160,
        set_step_size: 0.0,
        set_inverse_mass_dense: &[],
    },
    AmagoldRun {
        name: "amagold-dw-nonrev",
        model: ModelKind::DoubleWell,
        cfg: cfg(0.25, 10, Variant::NonReversible, 0, 2020, 1, Mass::Unit),
        theta0: &[0.0],
        iterations: 80,
        set_step_size: 0.0,
        set_inverse_mass_dense: &[],
    },
    AmagoldRun {
        name: "amagold-g3-rev",
        model: ModelKind::Gauss3,
        cfg: cfg(0.3, 5, Variant::Reversible, 0, 7, 3, Mass::Unit),
        theta0: &[1.0, -1.0, 2.0],
        iterations: 60,
        set_step_size: 0.0,
        set_inverse_mass_dense: &[],
    },
    AmagoldRun {
        name: "amagold-g3-dense-set",
        model: ModelKind::Gauss3,
        cfg: cfg(0.2, 5, Variant::NonReversible, 0, 11, 0, Mass::Dense),
        theta0: &[1.0, -1.0, 2.0],
        iterations: 60,
        set_step_size: 0.5,
        set_inverse_mass_dense: &G3_COV,
    },
    AmagoldRun {
        name: "amagold-g3-warm-diag",
        model: ModelKind::Gauss3,
        cfg: cfg(0.1, 5, Variant::Reversible, 60, 13, 0, Mass::Diagonal),
        theta0: &[6.0, -4.0, 8.0],
        iterations: 90,
        set_step_size: 0.0,
        set_inverse_mass_dense: &[],
    },
];

/// A workspace length that covers every AMAGOLD run (the size query of each run's
/// configuration).
pub const AMAGOLD_WS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < AMAGOLD_RUNS.len() {
        let r = &AMAGOLD_RUNS[i];
        let m = Amagold::<f64>::workspace_len_for(&r.cfg, r.theta0.len());
        if m > n {
            n = m;
        }
        i += 1;
    }
    n
};

/// A coordinate type printed as the hexadecimal bits of its IEEE representation.
pub trait Bits: Float {
    /// `f64` or `f32`.
    const NAME: &'static str;
    /// Writes the bits as fixed-width lower-case hex.
    fn write_hex(self, w: &mut dyn Write) -> fmt::Result;
}

impl Bits for f64 {
    const NAME: &'static str = "f64";
    fn write_hex(self, w: &mut dyn Write) -> fmt::Result {
        write!(w, "{:016x}", self.to_bits())
    }
}

impl Bits for f32 {
    const NAME: &'static str = "f32";
    fn write_hex(self, w: &mut dyn Write) -> fmt::Result {
        write!(w, "{:08x}", self.to_bits())
    }
}

/// `<run>-<type> <k> <a|r> <hex>…`
pub fn sample_line<T: Bits>(
    w: &mut dyn Write,
    name: &str,
    k: u32,
    accepted: bool,
    x: &[T],
) -> fmt::Result {
    write!(
        w,
        "{}-{} {} {}",
        name,
        T::NAME,
        k,
        if accepted { 'a' } else { 'r' }
    )?;
    for &v in x {
        w.write_char(' ')?;
        v.write_hex(w)?;
    }
    w.write_char('\n')
}

/// `<run>-<type> end <accepted> <energy bits>`
pub fn end_line<T: Bits>(w: &mut dyn Write, name: &str, accepted: u32, energy: f64) -> fmt::Result {
    writeln!(
        w,
        "{}-{} end {} {:016x}",
        name,
        T::NAME,
        accepted,
        energy.to_bits()
    )
}

/// Why a run stopped.
#[derive(Debug)]
pub enum Failure {
    /// The sampler returned an error.
    Sampler(Error),
    /// Writing the output failed.
    Output,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Sampler(e)
    }
}

impl From<fmt::Error> for Failure {
    fn from(_: fmt::Error) -> Self {
        Failure::Output
    }
}

/// Runs `run` with the library's core sampler over `ws`, printing every iteration.
pub fn amagold_core<T: Bits>(
    w: &mut dyn Write,
    run: &AmagoldRun,
    ws: &mut [T],
) -> Result<(), Failure> {
    match run.model {
        ModelKind::DoubleWell => amagold_with(w, run, ws, &mut DoubleWell { noise: 1.0 }),
        ModelKind::Gauss3 => amagold_with(w, run, ws, &mut Gauss3 { noise: 0.5 }),
    }
}

fn amagold_with<T: Bits, M: Potential<T>>(
    w: &mut dyn Write,
    run: &AmagoldRun,
    ws: &mut [T],
    model: &mut M,
) -> Result<(), Failure> {
    let d = run.theta0.len();
    let mut theta0 = [T::ZERO; MAX_D];
    let theta0 = theta0.get_mut(..d).ok_or(Error::LengthMismatch)?;
    for (t, &v) in theta0.iter_mut().zip(run.theta0) {
        *t = T::from_f64(v);
    }
    let mut chain = Amagold::new(&run.cfg, theta0, ws, model)?;
    if run.set_step_size > 0.0 {
        chain.set_step_size(run.set_step_size)?;
    }
    if !run.set_inverse_mass_dense.is_empty() {
        let mut k = [T::ZERO; MAX_D * MAX_D];
        for (x, &v) in k.iter_mut().zip(run.set_inverse_mass_dense) {
            *x = T::from_f64(v);
        }
        let k = k.get(..d * d).ok_or(Error::LengthMismatch)?;
        chain.set_inverse_mass_dense(k)?;
    }
    let mut accepted = 0;
    for k in 0..run.iterations {
        let info = chain.step(model)?;
        accepted += info.accepted as u32;
        sample_line(w, run.name, k, info.accepted, chain.position())?;
    }
    end_line::<T>(w, run.name, accepted, chain.energy())?;
    if !matches!(run.cfg.mass, Mass::Unit) || run.cfg.warmup > 0 {
        let mut k = [T::ZERO; MAX_D];
        let k = k.get_mut(..d).ok_or(Error::LengthMismatch)?;
        chain.inverse_mass(k)?;
        mass_line(w, run.name, k, chain.step_size())?;
        let r = chain.warmup_report();
        writeln!(
            w,
            "{}-{} report {} {} {} {}",
            run.name,
            T::NAME,
            r.verdict as u32,
            r.reasons,
            r.metric_updates,
            r.iterations
        )?;
    }
    Ok(())
}

/// `<run>-<type> mass <k bits>… <step size bits>`
pub fn mass_line<T: Bits>(w: &mut dyn Write, name: &str, k: &[T], eps: f64) -> fmt::Result {
    write!(w, "{}-{} mass", name, T::NAME)?;
    for &v in k {
        w.write_char(' ')?;
        v.write_hex(w)?;
    }
    writeln!(w, " {:016x}", eps.to_bits())
}

/// The 1-D Gaussian mixture of docs/algorithms.md §2.4, π = ⅓N(−2, 1) + ⅔N(2, 1):
/// ∇V(x) = x − 2 + 4/(2·e^{4x} + 1), in `T` (`exp` through libm, as the library's).
pub struct Mixture;

impl<T: Float> Gradient<T> for Mixture {
    fn gradient(&mut self, x: &[T], _seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let (Some(&x), Some(g)) = (x.first(), g.first_mut()) else {
            return Err(Stop::Abort);
        };
        let c = T::from_f64;
        *g = (x - c(2.0)) + c(4.0) / (c(2.0) * (c(4.0) * x).exp() + c(1.0));
        Ok(())
    }
}

/// A Student-t target with ν = 3 degrees of freedom centred at 2, V(x) = 2·ln(1 + (x−2)²/3):
/// ∇V(x) = 4(x−2)/(3 + (x−2)²), rational (no libm call), so a C program computes the same bits.
pub struct StudentT;

impl<T: Float> Gradient<T> for StudentT {
    fn gradient(&mut self, x: &[T], _seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let (Some(&x), Some(g)) = (x.first(), g.first_mut()) else {
            return Err(Stop::Abort);
        };
        let c = T::from_f64;
        let z = x - c(2.0);
        *g = (c(4.0) * z) / (c(3.0) + z * z);
        Ok(())
    }
}

/// Which target an SVGD run samples.
#[derive(Clone, Copy)]
pub enum SvgdModel {
    /// [`Mixture`].
    Mixture,
    /// [`StudentT`] (also run by the C firmware).
    StudentT,
}

/// Particles of the SVGD runs.
pub const SVGD_N: usize = 64;

/// A workspace length that covers every SVGD run (checked against the size query at run time).
pub const SVGD_WS: usize = 8 * SVGD_N + SVGD_N * (SVGD_N - 1) / 2;

/// One SVGD run with [`SVGD_N`] particles (d = 1).
pub struct SvgdRun {
    /// Run label.
    pub name: &'static str,
    /// The target.
    pub model: SvgdModel,
    /// Configuration.
    pub cfg: SvgdConfig<KernelChoice>,
    /// Iterations.
    pub iterations: u32,
    /// Iterations after which all particles are printed (ascending, the last = `iterations`).
    pub checkpoints: &'static [u32],
    /// Seed of the initial particles: x_i = −10 + ξ_i, ξ_i = [`seed_noise`]`(init_seed, i)`
    /// (unit variance, computable in C; the paper draws from N(−10, 1)).
    pub init_seed: u64,
}

const fn svgd_cfg(
    p: usize,
    batching: Batching,
    kernel: KernelChoice,
    step_rule: StepRule,
    seed: u64,
) -> SvgdConfig<KernelChoice> {
    let mut c = SvgdConfig::new(p, kernel, step_rule);
    c.batching = batching;
    c.seed = seed;
    c
}

/// The SVGD runs, each done in `f32` and `f64`: on the mixture the paper's setting (fixed h = 2,
/// AdaGrad with η = 0.2) at p = 8 and the variant with replacement with the median bandwidth; on
/// the Student-t target (the one the C firmware repeats) p = 8, h = 2, AdaGrad.
pub const SVGD_RUNS: [SvgdRun; 3] = [
    SvgdRun {
        name: "rbm-svgd-mix-p8",
        model: SvgdModel::Mixture,
        cfg: svgd_cfg(
            8,
            Batching::WithoutReplacement,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::adagrad(0.2),
            11,
        ),
        iterations: 200,
        checkpoints: &[1, 10, 50, 200],
        init_seed: 100,
    },
    SvgdRun {
        name: "rbm-svgd-mix-p16-wr-median",
        model: SvgdModel::Mixture,
        cfg: svgd_cfg(
            16,
            Batching::WithReplacement,
            KernelChoice::GaussianMedian,
            StepRule::Constant { eta: 0.05 },
            12,
        ),
        iterations: 100,
        checkpoints: &[1, 100],
        init_seed: 200,
    },
    SvgdRun {
        name: "rbm-svgd-t3-p8",
        model: SvgdModel::StudentT,
        cfg: svgd_cfg(
            8,
            Batching::WithoutReplacement,
            KernelChoice::Gaussian { h: 2.0 },
            StepRule::adagrad(0.2),
            13,
        ),
        iterations: 100,
        checkpoints: &[1, 100],
        init_seed: 300,
    },
];

/// Writes the initial particles of `run` into `xs`.
pub fn svgd_init<T: Float>(run: &SvgdRun, xs: &mut [T]) {
    for (i, x) in xs.iter_mut().enumerate() {
        *x = T::from_f64(-10.0 + seed_noise(run.init_seed, i as u64));
    }
}

/// `<run>-<type> <k> <hex>…` (all particles after iteration k).
pub fn particles_line<T: Bits>(w: &mut dyn Write, name: &str, k: u32, xs: &[T]) -> fmt::Result {
    write!(w, "{}-{} {}", name, T::NAME, k)?;
    for &v in xs {
        w.write_char(' ')?;
        v.write_hex(w)?;
    }
    w.write_char('\n')
}

/// Runs `run` with the library's core sampler over the given buffers, printing the checkpoints.
pub fn svgd_core<T: Bits>(
    w: &mut dyn Write,
    run: &SvgdRun,
    particles: &mut [T],
    ws: &mut [T],
    index: &mut [u32],
) -> Result<(), Failure> {
    let particles = particles.get_mut(..SVGD_N).ok_or(Error::LengthMismatch)?;
    svgd_init(run, particles);
    let mut svgd = Svgd::new(&run.cfg, 1, particles, ws, index)?;
    let mut next = run.checkpoints.iter().peekable();
    for k in 1..=run.iterations {
        match run.model {
            SvgdModel::Mixture => svgd.step(&mut Mixture)?,
            SvgdModel::StudentT => svgd.step(&mut StudentT)?,
        };
        if next.peek() == Some(&&k) {
            next.next();
            particles_line(w, run.name, k, svgd.particles())?;
        }
    }
    Ok(())
}
