//! The Rust half of the C-vs-Rust reproducibility check (`scripts/test-ffi.sh`): prints the runs
//! of `ffi-tests/repro.c` in the same format, the `double` runs from the plain std reference
//! build ([`sgsample::reference`]) and the `float` runs from the library's `f32` core through the
//! Rust API. The models repeat `ffi-tests/models.h` operation for operation.
//!
//! `cargo run --release -p sgsample --features std --example ffi_reference`

use sgsample::reference::amagold::{Amagold as RefAmagold, Model, Sghmc as RefSghmc};
use sgsample::reference::sgld::Sgld as RefSgld;
use sgsample::reference::svgd::{Kernel as RefKernel, Rule as RefRule, Svgd as RefSvgd};
use sgsample::rng::splitmix64;
use sgsample::{
    Amagold, AmagoldConfig, Float, Gradient, Mass, Outcome, Potential, Sghmc, SghmcConfig, Sgld,
    SgldConfig, Stop, Variant,
};
use sgsample::{Batching, KernelChoice, StepRule, Svgd, SvgdConfig};
use std::fmt::Write as _;

fn seed_noise(seed: u64, k: u64) -> f64 {
    let h = splitmix64(seed ^ splitmix64(k));
    (h >> 11) as f64 * (1.0 / 9007199254740992.0) - 0.5
}

const G3_A: [f64; 3] = [1.0, 4.0, 0.25];

#[derive(Clone, Copy)]
enum Kind {
    Dw,
    G3,
    G3Free,
}

#[derive(Clone, Copy)]
struct M {
    kind: Kind,
    noise: f64,
}

impl M {
    fn energy64(&self, x: &[f64]) -> Result<f64, Stop> {
        match self.kind {
            Kind::Dw => {
                let t = x[0];
                Ok((t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5)
            }
            Kind::G3 | Kind::G3Free => {
                if matches!(self.kind, Kind::G3) && x[0] > 1.5 {
                    return Err(Stop::Reject);
                }
                let mut s = 0.0;
                for i in 0..x.len() {
                    s += G3_A[i] * x[i] * x[i];
                }
                Ok(0.5 * s)
            }
        }
    }
    fn gradient64(&self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        match self.kind {
            Kind::Dw => {
                let t = x[0];
                g[0] = (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0
                    + self.noise * seed_noise(seed, 0);
            }
            Kind::G3 | Kind::G3Free => {
                if matches!(self.kind, Kind::G3) && x[0] > 2.5 {
                    return Err(Stop::Reject);
                }
                for i in 0..x.len() {
                    g[i] = G3_A[i] * x[i] + self.noise * seed_noise(seed, i as u64);
                }
            }
        }
        Ok(())
    }
}

impl<T: Float> Gradient<T> for M {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let mut gs = vec![0.0; x.len()];
        self.gradient64(&xs, seed, &mut gs)?;
        for (gi, v) in g.iter_mut().zip(gs) {
            *gi = T::from_f64(v);
        }
        Ok(())
    }
}

impl<T: Float> Potential<T> for M {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        let xs: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        self.energy64(&xs)
    }
}

impl<T: Float> Model<T> for M {
    fn energy(&mut self, x: &[T]) -> Result<f64, Stop> {
        Potential::energy(self, x)
    }
    fn grad(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        Gradient::gradient(self, x, seed, g)
    }
}

/// Hex bits of a coordinate, as the C side prints them.
trait Hex {
    fn hex(self) -> String;
}
impl Hex for f64 {
    fn hex(self) -> String {
        format!("{:016x}", self.to_bits())
    }
}
impl Hex for f32 {
    fn hex(self) -> String {
        format!("{:08x}", self.to_bits())
    }
}

fn hex_or_nan(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else {
        v.hex()
    }
}

fn xs<T: Hex + Copy>(x: &[T]) -> String {
    x.iter().map(|v| format!(" {}", v.hex())).collect()
}

/// The lines an AMAGOLD run prints (repro_impl.h's format): one per step, one per run row, the end.
fn amagold_step_line(out: &mut String, name: &str, k: usize, acc: bool, la: f64, u: f64, x: &str) {
    let _ = writeln!(
        out,
        "{name} s {k} acc={} la={} u={} x={x}",
        acc as u32,
        hex_or_nan(la),
        hex_or_nan(u)
    );
}

fn amagold_end_line(out: &mut String, name: &str, it: u64, u: f64) {
    let _ = writeln!(out, "{name} end it={it} u={}", hex_or_nan(u));
}

fn amagold_ref(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
) {
    let mut ch = RefAmagold::<f64>::new(
        &mut m,
        th0,
        c.step_size,
        c.friction,
        c.momentum_sd,
        c.steps,
        c.variant == Variant::Reversible,
        c.warmup,
        c.target_accept,
        c.seed,
        c.stream,
    );
    for k in 0..steps {
        let s = ch.step(&mut m);
        let x = xs(&ch.theta);
        amagold_step_line(out, name, k, s.accepted, s.log_a, ch.u, &x);
    }
    for k in 0..runs {
        ch.step(&mut m);
        let _ = writeln!(out, "{name} r {k} x={}", xs(&ch.theta));
    }
    amagold_end_line(out, name, (steps + runs) as u64, ch.u);
}

fn amagold_f32(
    out: &mut String,
    name: &str,
    m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
) {
    amagold_core::<f32>(out, &format!("{name}_f32"), m, th0, c, steps, runs);
}

/// The core (not the std reference) on coordinates `T`; with a mass matrix it also prints the
/// learnt inverse mass (the reference has none).
fn amagold_core<T: Float + Hex>(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
) where
    M: Potential<T>,
{
    let th0: Vec<T> = th0.iter().map(|&v| T::from_f64(v)).collect();
    let d = th0.len();
    let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(c, d)];
    let mut ch = Amagold::new(c, &th0, &mut ws, &mut m).expect("init");
    for k in 0..steps {
        let i = ch.step(&mut m).expect("step");
        let x = xs(ch.position());
        amagold_step_line(out, name, k, i.accepted, i.log_accept, i.energy, &x);
    }
    let mut rows = vec![T::ZERO; runs * d];
    ch.run(&mut m, &mut rows).expect("run");
    for (k, row) in rows.chunks(d).enumerate() {
        let _ = writeln!(out, "{name} r {k} x={}", xs(row));
    }
    amagold_end_line(out, name, ch.iterations(), ch.energy());
    if c.mass != Mass::Unit {
        let mut k = vec![T::ZERO; d];
        ch.inverse_mass(&mut k).expect("inverse mass");
        let _ = writeln!(out, "{name} mass k={} eps={}", xs(&k), ch.step_size().hex());
    }
}

/// AMAGOLD with the mass-matrix warm-up: the core in `f64` (the std reference has no mass
/// matrix) or `f32`.
#[allow(clippy::too_many_arguments)]
fn amagold_mass(
    out: &mut String,
    name: &str,
    m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
    f32_core: bool,
) {
    if f32_core {
        amagold_core::<f32>(out, &format!("{name}_f32"), m, th0, c, steps, runs);
    } else {
        amagold_core::<f64>(out, name, m, th0, c, steps, runs);
    }
}

fn sghmc_ref(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &SghmcConfig,
    steps: usize,
    runs: usize,
) {
    let mut ch = RefSghmc::<f64>::new(
        th0,
        c.step_size,
        c.friction,
        c.momentum_sd,
        c.steps,
        c.resample_momentum,
        c.seed,
        c.stream,
    );
    for k in 0..steps {
        let ok = ch.step(&mut m);
        let _ = writeln!(out, "{name} s {k} rej={} x={}", (!ok) as u32, xs(&ch.theta));
    }
    for k in 0..runs {
        ch.step(&mut m);
        let _ = writeln!(out, "{name} r {k} x={}", xs(&ch.theta));
    }
    let _ = writeln!(out, "{name} end it={}", steps + runs);
}

fn sghmc_f32(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &SghmcConfig,
    steps: usize,
    runs: usize,
) {
    let th0: Vec<f32> = th0.iter().map(|&v| v as f32).collect();
    let d = th0.len();
    let mut ws = vec![0.0f32; 5 * d];
    let mut ch = Sghmc::new(c, &th0, &mut ws).expect("init");
    for k in 0..steps {
        let i = ch.step(&mut m).expect("step");
        let _ = writeln!(
            out,
            "{name}_f32 s {k} rej={} x={}",
            (i.outcome != Outcome::Accepted) as u32,
            xs(ch.position())
        );
    }
    let mut rows = vec![0.0f32; runs * d];
    ch.run(&mut m, &mut rows).expect("run");
    for (k, row) in rows.chunks(d).enumerate() {
        let _ = writeln!(out, "{name}_f32 r {k} x={}", xs(row));
    }
    let _ = writeln!(out, "{name}_f32 end it={}", ch.iterations());
}

fn sgld_ref(out: &mut String, name: &str, mut m: M, th0: &[f64], c: &SgldConfig, steps: usize) {
    let mut ch = RefSgld::<f64>::new(th0, c.step_size, c.steps, c.seed, c.stream);
    for k in 0..steps {
        let ok = ch.step(&mut m);
        let _ = writeln!(out, "{name} s {k} rej={} x={}", (!ok) as u32, xs(&ch.theta));
    }
}

fn sgld_f32(out: &mut String, name: &str, mut m: M, th0: &[f64], c: &SgldConfig, steps: usize) {
    let th0: Vec<f32> = th0.iter().map(|&v| v as f32).collect();
    let mut ws = vec![0.0f32; 3 * th0.len()];
    let mut ch = Sgld::new(c, &th0, &mut ws).expect("init");
    for k in 0..steps {
        let i = ch.step(&mut m).expect("step");
        let rej = (i.outcome != Outcome::Accepted) as u32;
        let _ = writeln!(out, "{name}_f32 s {k} rej={rej} x={}", xs(ch.position()));
    }
}

/// SGHMC with a fixed diagonal preconditioner `k` set right after the start (`run_sghmc_pre`):
/// f64 from the reference build, f32 from the core.
#[allow(clippy::too_many_arguments)]
fn sghmc_pre(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &SghmcConfig,
    k: &[f64],
    steps: usize,
    runs: usize,
    f32_core: bool,
) {
    if !f32_core {
        let mut ch = RefSghmc::<f64>::new(
            th0,
            c.step_size,
            c.friction,
            c.momentum_sd,
            c.steps,
            c.resample_momentum,
            c.seed,
            c.stream,
        );
        ch.set_inverse_mass(k);
        for i in 0..steps {
            let ok = ch.step(&mut m);
            let _ = writeln!(out, "{name} s {i} rej={} x={}", (!ok) as u32, xs(&ch.theta));
        }
        for i in 0..runs {
            ch.step(&mut m);
            let _ = writeln!(out, "{name} r {i} x={}", xs(&ch.theta));
        }
        let _ = writeln!(out, "{name} end it={} k={}", steps + runs, xs(&ch.k));
        return;
    }
    let th0: Vec<f32> = th0.iter().map(|&v| v as f32).collect();
    let kf: Vec<f32> = k.iter().map(|&v| v as f32).collect();
    let d = th0.len();
    let mut ws = vec![0.0f32; Sghmc::<f32>::workspace_len_for(c, d)];
    let mut ch = Sghmc::new(c, &th0, &mut ws).expect("init");
    ch.set_inverse_mass(&kf).expect("set k");
    for i in 0..steps {
        let info = ch.step(&mut m).expect("step");
        let rej = (info.outcome != Outcome::Accepted) as u32;
        let _ = writeln!(out, "{name}_f32 s {i} rej={rej} x={}", xs(ch.position()));
    }
    let mut rows = vec![0.0f32; runs * d];
    ch.run(&mut m, &mut rows).expect("run");
    for (i, row) in rows.chunks(d).enumerate() {
        let _ = writeln!(out, "{name}_f32 r {i} x={}", xs(row));
    }
    let mut kr = vec![0.0f32; d];
    ch.inverse_mass(&mut kr).expect("k");
    let _ = writeln!(out, "{name}_f32 end it={} k={}", ch.iterations(), xs(&kr));
}

/// SGLD with a fixed diagonal preconditioner `k` (`run_sgld_pre`).
#[allow(clippy::too_many_arguments)]
fn sgld_pre(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &SgldConfig,
    k: &[f64],
    steps: usize,
    f32_core: bool,
) {
    if !f32_core {
        let mut ch = RefSgld::<f64>::new(th0, c.step_size, c.steps, c.seed, c.stream);
        ch.set_inverse_mass(k);
        for i in 0..steps {
            let ok = ch.step(&mut m);
            let _ = writeln!(out, "{name} s {i} rej={} x={}", (!ok) as u32, xs(&ch.theta));
        }
        let _ = writeln!(out, "{name} k={}", xs(&ch.k));
        return;
    }
    let th0: Vec<f32> = th0.iter().map(|&v| v as f32).collect();
    let kf: Vec<f32> = k.iter().map(|&v| v as f32).collect();
    let mut ws = vec![0.0f32; Sgld::<f32>::workspace_len_for(c, th0.len())];
    let mut ch = Sgld::new(c, &th0, &mut ws).expect("init");
    ch.set_inverse_mass(&kf).expect("set k");
    for i in 0..steps {
        let info = ch.step(&mut m).expect("step");
        let rej = (info.outcome != Outcome::Accepted) as u32;
        let _ = writeln!(out, "{name}_f32 s {i} rej={rej} x={}", xs(ch.position()));
    }
    let mut kr = vec![0.0f32; th0.len()];
    ch.inverse_mass(&mut kr).expect("k");
    let _ = writeln!(out, "{name}_f32 k={}", xs(&kr));
}

fn svgd_start(i: usize, l: usize) -> f64 {
    ((i * 7 + l * 3) % 11) as f64 / 5.0 - 1.0
}

fn svgd_ref(
    out: &mut String,
    name: &str,
    m: M,
    n: usize,
    d: usize,
    c: &SvgdConfig<KernelChoice>,
    iterations: usize,
) {
    let x0: Vec<f64> = (0..n * d).map(|k| svgd_start(k / d, k % d)).collect();
    let kernel = match c.kernel {
        KernelChoice::Gaussian { h } => RefKernel::Gaussian(h),
        KernelChoice::GaussianMedian => RefKernel::Median,
        KernelChoice::InverseMultiquadric { c, beta } => RefKernel::Imq { c, beta },
    };
    let rule = match c.step_rule {
        StepRule::Constant { eta } => RefRule::Constant(eta),
        StepRule::Decaying { eta } => RefRule::Decaying(eta),
        StepRule::AdaGrad { eta, alpha } => RefRule::AdaGrad { eta, alpha },
    };
    let wr = c.batching == Batching::WithReplacement;
    let mut sys = RefSvgd::<f64>::new(&x0, d, c.batch_size, wr, kernel, rule, c.seed, c.stream);
    for k in 0..iterations {
        let h = sys
            .step(&mut |x: &[f64], seed: u64, g: &mut [f64]| m.gradient64(x, seed, g))
            .expect("reference step");
        let _ = writeln!(
            out,
            "{name} it {k} h={} x={}",
            hex_or_nan(h),
            xs(&sys.flat())
        );
    }
    let _ = writeln!(out, "{name} end it={iterations}");
}

fn svgd_f32(
    out: &mut String,
    name: &str,
    mut m: M,
    n: usize,
    d: usize,
    c: &SvgdConfig<KernelChoice>,
    iterations: usize,
) {
    let mut x: Vec<f32> = (0..n * d)
        .map(|k| svgd_start(k / d, k % d) as f32)
        .collect();
    let mut ws = vec![0.0f32; Svgd::<f32>::workspace_len(n, d, c)];
    let mut idx = vec![0u32; Svgd::<f32>::index_len(n)];
    let mut sys = Svgd::new(c, d, &mut x, &mut ws, &mut idx).expect("init");
    for k in 0..iterations {
        let i = sys.step(&mut m).expect("step");
        let _ = writeln!(
            out,
            "{name}_f32 it {k} h={} x={}",
            hex_or_nan(i.bandwidth),
            xs(sys.particles())
        );
    }
    let _ = writeln!(out, "{name}_f32 end it={}", sys.iterations());
}

/// The runs of `repro_impl.h`'s `all_runs`, in the same order.
fn all_runs(out: &mut String, f32_core: bool) {
    let dw = M {
        kind: Kind::Dw,
        noise: 1.0,
    };
    let g3 = M {
        kind: Kind::G3,
        noise: 0.5,
    };
    let dw0 = [-1.0];
    let g30 = [0.5, -0.5, 1.0];
    let am = if f32_core { amagold_f32 } else { amagold_ref };
    let sg = if f32_core { sghmc_f32 } else { sghmc_ref };

    let mut a = AmagoldConfig::new(0.15);
    a.seed = 42;
    am(out, "amagold_rev_dw", dw, &dw0, &a, 75, 75);

    let mut a = AmagoldConfig::new(0.3);
    a.friction = 0.5;
    a.momentum_sd = 1.2;
    a.steps = 7;
    a.variant = Variant::NonReversible;
    a.warmup = 40;
    a.target_accept = 0.7;
    a.seed = 7;
    a.stream = 3;
    am(out, "amagold_nonrev_g3", g3, &g30, &a, 75, 75);

    let mut a = AmagoldConfig::new(0.6);
    a.friction = 0.0;
    a.steps = 3;
    a.seed = 99;
    am(out, "amagold_hmc_g3", g3, &g30, &a, 40, 40);

    // The mass-matrix warm-up: one slow window (iterations 10-54 of a warm-up of 60; 5-27 of
    // 30), then the mass is set and ε re-adapted; the non-reversible chain's persistent momentum
    // is rescaled when the mass changes.
    let mut a = AmagoldConfig::new(0.2);
    a.warmup = 60;
    a.mass = Mass::Diagonal;
    a.seed = 17;
    amagold_mass(out, "amagold_mass_rev_g3", g3, &g30, &a, 75, 75, f32_core);

    let mut a = AmagoldConfig::new(0.25);
    a.variant = Variant::NonReversible;
    a.warmup = 30;
    a.mass = Mass::Diagonal;
    a.momentum_sd = 0.9;
    a.seed = 23;
    a.stream = 2;
    amagold_mass(
        out,
        "amagold_mass_nonrev_g3",
        g3,
        &g30,
        &a,
        50,
        50,
        f32_core,
    );

    let mut h = SghmcConfig::new(0.1);
    h.friction = 0.3;
    h.steps = 5;
    h.seed = 11;
    h.stream = 1;
    sg(out, "sghmc_resample_g3", g3, &g30, &h, 75, 75);

    let mut h = SghmcConfig::new(0.05);
    h.friction = 0.0;
    h.momentum_sd = 0.8;
    h.steps = 4;
    h.resample_momentum = false;
    h.seed = 5;
    h.stream = 2;
    sg(out, "sghmc_keep_dw", dw, &dw0, &h, 75, 75);

    let sl = if f32_core { sgld_f32 } else { sgld_ref };
    let mut l = SgldConfig::new(0.05);
    l.steps = 3;
    l.seed = 13;
    l.stream = 4;
    sl(out, "sgld_g3", g3, &g30, &l, 60);
    let mut l = SgldConfig::new(0.2);
    l.seed = 21;
    sl(out, "sgld_dw", dw, &dw0, &l, 60);

    let kp = [0.3, 4.0, 1.7];
    let mut h = SghmcConfig::new(0.08);
    h.mass = Mass::Diagonal;
    h.resample_momentum = false;
    h.steps = 3;
    h.seed = 8;
    h.stream = 5;
    sghmc_pre(
        out,
        "sghmc_precond_keep_g3",
        g3,
        &g30,
        &h,
        &kp,
        60,
        60,
        f32_core,
    );
    h.resample_momentum = true;
    h.seed = 10;
    sghmc_pre(
        out,
        "sghmc_precond_resample_g3",
        g3,
        &g30,
        &h,
        &kp,
        40,
        40,
        f32_core,
    );
    let mut l = SgldConfig::new(0.05);
    l.mass = Mass::Diagonal;
    l.steps = 2;
    l.seed = 9;
    sgld_pre(out, "sgld_precond_g3", g3, &g30, &l, &kp, 60, f32_core);

    let sv = if f32_core { svgd_f32 } else { svgd_ref };
    let gf = M {
        kind: Kind::G3Free,
        noise: 0.5,
    };
    let mut v = SvgdConfig::new(4, KernelChoice::Gaussian { h: 0.7 }, StepRule::adagrad(0.1));
    v.seed = 3;
    sv(out, "rbm_svgd_wo_adagrad", gf, 20, 3, &v, 30);

    let imq = KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 };
    let mut v = SvgdConfig::new(5, imq, StepRule::Constant { eta: 0.05 });
    v.batching = Batching::WithReplacement;
    v.seed = 4;
    v.stream = 1;
    sv(out, "rbm_svgd_wr_imq", gf, 17, 3, &v, 20);

    let mut v = SvgdConfig::new(
        12,
        KernelChoice::GaussianMedian,
        StepRule::Decaying { eta: 0.3 },
    );
    v.seed = 8;
    sv(out, "svgd_full_median", gf, 12, 3, &v, 20);

    let mut v = SvgdConfig::new(3, KernelChoice::GaussianMedian, StepRule::adagrad(0.2));
    v.seed = 6;
    sv(out, "rbm_svgd_dw", dw, 30, 1, &v, 25);
}

fn main() {
    let mut out = String::new();
    all_runs(&mut out, false);
    all_runs(&mut out, true);
    for seed in 1..=5u64 {
        let mut idx = [0u64; 8];
        sgsample::minibatch(seed, 50, &mut idx).expect("minibatch");
        let _ = write!(out, "minibatch {seed}:");
        for i in idx {
            let _ = write!(out, " {i}");
        }
        let _ = writeln!(out);
    }
    print!("{out}");
}
