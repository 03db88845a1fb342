//! The Rust half of the C-vs-Rust reproducibility check (`scripts/test-ffi.sh`): prints the runs
//! of `ffi-tests/repro.c` in the same format, the `double` runs from the plain std reference
//! build ([`sgsample_reference`]) and the `float` runs from the library's `f32` core through the
//! Rust API. The models repeat `ffi-tests/models.h` operation for operation.
//!
//! AMAGOLD chains with a warm-up, a mass matrix, a setter or a jittered T are compared with the
//! library's core in both types (`amagold_full`), not with the reference build: the reference
//! has no mass matrix, no setters, no jittered T, and not the current warm-up (the approach, the
//! step-size searches, the settling final window). NOTE for the lead: once
//! `sgsample_reference::amagold` has the windowed warm-up without the approach, route the
//! `approach = false` warm-ups back to it (`amagold_ref`) for the f64 half.
//!
//! `cargo run --release -p sgsample --features std --example ffi_reference`

use sgsample::rng::splitmix64;
use sgsample::svgd::Scale;
use sgsample::{
    compare_warmups, Amagold, AmagoldConfig, AmagoldInfo, Float, Gradient, Mass, Outcome,
    Potential, Sghmc, SghmcConfig, Sgld, SgldConfig, Stop, Variant, Verdict, WarmupReport,
};
use sgsample::{draws, Batching, KernelChoice, StepRule, Svgd, SvgdConfig};
use sgsample::{Terms, Tunamh, TunamhConfig};
use sgsample_reference::amagold::Amagold as RefAmagold;
use sgsample_reference::sghmc::Sghmc as RefSghmc;
use sgsample_reference::sgld::Sgld as RefSgld;
use sgsample_reference::svgd::Scale as RefScale;
use sgsample_reference::svgd::{Kernel as RefKernel, Rule as RefRule, Svgd as RefSvgd};
use sgsample_reference::Model;
use std::fmt::Write as _;

fn seed_noise(seed: u64, k: u64) -> f64 {
    let h = splitmix64(seed ^ splitmix64(k));
    (h >> 11) as f64 * (1.0 / 9007199254740992.0) - 0.5
}

const G3_A: [f64; 3] = [1.0, 4.0, 0.25];
const C3_P: [f64; 9] = [2.0, 0.5, 0.0, 0.5, 1.0, -0.25, 0.0, -0.25, 0.5];
const C3_MU: [f64; 3] = [1.0, -2.0, 0.5];

/// Row i of P times (x − μ), summed in j order (`c3_row` of models.h).
fn c3_row(x: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        s += C3_P[i * 3 + j] * (x[j] - C3_MU[j]);
    }
    s
}

#[derive(Clone, Copy)]
enum Kind {
    Dw,
    G3,
    G3Free,
    C3,
}

#[derive(Clone, Copy)]
struct M {
    kind: Kind,
    noise: f64,
}

impl M {
    fn energy64(&self, x: &[f64]) -> Result<f64, Stop> {
        match self.kind {
            Kind::C3 => {
                let mut s = 0.0;
                for i in 0..x.len().min(3) {
                    s += (x[i] - C3_MU[i]) * c3_row(x, i);
                }
                Ok(0.5 * s)
            }
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
            Kind::C3 => {
                for (i, gi) in g.iter_mut().enumerate().take(x.len().min(3)) {
                    *gi = c3_row(x, i) + self.noise * seed_noise(seed, i as u64);
                }
            }
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
    mut m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
) {
    // `run_amagold` of repro_impl.h on floats: the reference comparison's format, from the core.
    let name = format!("{name}_f32");
    let th0: Vec<f32> = th0.iter().map(|&v| v as f32).collect();
    let d = th0.len();
    let mut ws = vec![0.0f32; Amagold::<f32>::workspace_len(d)];
    let mut ch = Amagold::new(c, &th0, &mut ws, &mut m).expect("init");
    for k in 0..steps {
        let i = ch.step(&mut m).expect("step");
        let x = xs(ch.position());
        amagold_step_line(out, &name, k, i.accepted, i.log_accept, i.energy, &x);
    }
    let mut rows = vec![0.0f32; runs * d];
    ch.run(&mut m, &mut rows).expect("run");
    for (k, row) in rows.chunks(d).enumerate() {
        let _ = writeln!(out, "{name} r {k} x={}", xs(row));
    }
    amagold_end_line(out, &name, ch.iterations(), ch.energy());
}

/// A setter call of an AMAGOLD run (`setter` of repro.c): before step `at` (0: right after
/// init), the step size when positive, then a diagonal or dense inverse mass.
#[derive(Clone, Copy)]
struct Setter {
    at: usize,
    step_size: f64,
    kind: SetKind,
    k: [f64; 9],
}

#[derive(Clone, Copy, PartialEq)]
enum SetKind {
    None,
    Diagonal,
    Dense,
}

const fn set(at: usize, step_size: f64, kind: SetKind, k: [f64; 9]) -> Setter {
    Setter {
        at,
        step_size,
        kind,
        k,
    }
}

fn suffix<T: Hex>() -> &'static str {
    if std::mem::size_of::<T>() == 4 {
        "_f32"
    } else {
        ""
    }
}

/// `print_report` of repro_impl.h.
fn report_line(out: &mut String, name: &str, what: &str, r: &WarmupReport) {
    let _ = writeln!(
        out,
        "{name} {what} v={} rs={} it={} ai={} mu={} rst={} tf={} tr={} wi={} wd={} dv={} \
         eps={} ta={} ar={} z={} em={} esd={} bfmi={} cond={} a0={} a1={}",
        r.verdict as u32,
        r.reasons,
        r.iterations,
        r.approach_iterations,
        r.metric_updates,
        r.restarts,
        r.energy_trend_falling,
        r.energy_trend_rising,
        r.window_iterations,
        r.window_divergences,
        r.divergences,
        hex_or_nan(r.step_size),
        hex_or_nan(r.target_accept),
        hex_or_nan(r.accept_rate),
        hex_or_nan(r.energy_trend_z),
        hex_or_nan(r.energy_mean),
        hex_or_nan(r.energy_sd),
        hex_or_nan(r.bfmi),
        hex_or_nan(r.condition_number),
        hex_or_nan(r.approach_energy[0]),
        hex_or_nan(r.approach_energy[1]),
    );
}

/// `print_info` of repro_impl.h (no newline).
fn info_text(name: &str, what: &str, k: usize, i: &AmagoldInfo) -> String {
    format!(
        "{name} {what} {k} o={} acc={} la={} rho={} u={} ar={} eps={} it={} dv={} w={} ph={} st={}",
        i.outcome as u32,
        i.accepted as u32,
        hex_or_nan(i.log_accept),
        hex_or_nan(i.rho),
        hex_or_nan(i.energy),
        hex_or_nan(i.accept_rate),
        hex_or_nan(i.step_size),
        i.iteration,
        i.divergences,
        i.warmup as u32,
        i.phase as u32,
        i.steps
    )
}

fn apply_setters<T: Float>(ch: &mut Amagold<'_, T>, d: usize, k: usize, sets: &[Setter]) {
    for e in sets.iter().filter(|e| e.at == k) {
        if e.step_size > 0.0 {
            ch.set_step_size(e.step_size).expect("set_step_size");
        }
        let n = if e.kind == SetKind::Dense { d * d } else { d };
        let km: Vec<T> = e.k[..n].iter().map(|&v| T::from_f64(v)).collect();
        match e.kind {
            SetKind::None => {}
            SetKind::Diagonal => ch.set_inverse_mass(&km).expect("set_inverse_mass"),
            SetKind::Dense => ch
                .set_inverse_mass_dense(&km)
                .expect("set_inverse_mass_dense"),
        }
    }
}

/// `run_amagold_core` of repro_impl.h: the library's core on coordinates `T`, every field of
/// every info, the warm-up reports, the run's summary and the inverse mass.
#[allow(clippy::too_many_arguments)]
fn amagold_full<T: Float + Hex>(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    steps: usize,
    runs: usize,
    sets: &[Setter],
) where
    M: Potential<T>,
{
    let name = format!("{name}{}", suffix::<T>());
    let name = name.as_str();
    let th0: Vec<T> = th0.iter().map(|&v| T::from_f64(v)).collect();
    let d = th0.len();
    let mut ws = vec![T::ZERO; Amagold::<T>::workspace_len_for(c, d)];
    let mut ch = Amagold::new(c, &th0, &mut ws, &mut m).expect("init");
    report_line(out, name, "report0", &ch.warmup_report());
    for k in 0..steps {
        apply_setters(&mut ch, d, k, sets);
        let i = ch.step(&mut m).expect("step");
        let _ = writeln!(
            out,
            "{} x={}",
            info_text(name, "s", k, &i),
            xs(ch.position())
        );
        if k == steps / 2 {
            report_line(out, name, "report1", &ch.warmup_report());
        }
    }
    let mut rows = vec![T::ZERO; runs * d];
    let sum = ch.run(&mut m, &mut rows).expect("run");
    for (k, row) in rows.chunks(d).enumerate() {
        let _ = writeln!(out, "{name} r {k} x={}", xs(row));
    }
    let last = sum.last.expect("a run of at least one iteration");
    let _ = writeln!(
        out,
        "{name} sum acc={} dv={} has=1 {}",
        sum.accepted,
        sum.divergences,
        info_text(name, "last", runs, &last)
    );
    amagold_end_line(out, name, ch.iterations(), ch.energy());
    let mut k = vec![T::ZERO; d];
    ch.inverse_mass(&mut k).expect("inverse mass");
    let _ = writeln!(out, "{name} mass k={} eps={}", xs(&k), ch.step_size().hex());
    let mut kd = vec![T::ZERO; d * d];
    ch.inverse_mass_dense(&mut kd).expect("inverse mass dense");
    let _ = writeln!(out, "{name} dense K={}", xs(&kd));
    report_line(out, name, "report", &ch.warmup_report());
}

/// `compare_amagold` of repro_impl.h: three chains (streams 0, 1, 2) through `iters`
/// iterations, their own reports, then `compare_warmups`.
fn amagold_compare<T: Float + Hex>(
    out: &mut String,
    name: &str,
    mut m: M,
    th0: &[f64],
    c: &AmagoldConfig,
    iters: usize,
) where
    M: Potential<T>,
{
    let name = format!("{name}{}", suffix::<T>());
    let name = name.as_str();
    let th0: Vec<T> = th0.iter().map(|&v| T::from_f64(v)).collect();
    let d = th0.len();
    let len = Amagold::<T>::workspace_len_for(c, d);
    let mut wss = [vec![T::ZERO; len], vec![T::ZERO; len], vec![T::ZERO; len]];
    let mut chains = Vec::new();
    for (s, ws) in wss.iter_mut().enumerate() {
        let cc = AmagoldConfig {
            stream: s as u64,
            ..*c
        };
        let mut ch = Amagold::new(&cc, &th0, ws, &mut m).expect("init");
        for _ in 0..iters {
            ch.step(&mut m).expect("step");
        }
        report_line(out, name, &format!("chain{s} own"), &ch.warmup_report());
        chains.push(ch);
    }
    let refs: Vec<&Amagold<'_, T>> = chains.iter().collect();
    let mut reports = [WarmupReport::empty(Verdict::None, 0.0); 3];
    compare_warmups(&refs, &mut reports).expect("compare_warmups");
    for (s, r) in reports.iter().enumerate() {
        report_line(out, name, &format!("chain{s} compared"), r);
    }
}

/// The runs of `amagold_new_runs` in repro_impl.h, in the same order, on coordinates `T`.
fn amagold_new_runs<T: Float + Hex>(out: &mut String)
where
    M: Potential<T>,
{
    let c3 = M {
        kind: Kind::C3,
        noise: 0.5,
    };
    let g3 = M {
        kind: Kind::G3,
        noise: 0.5,
    };
    let c30 = [0.5, -1.5, 1.0];
    let far = [8.0, -6.0, 10.0];
    let g30 = [0.5, -0.5, 1.0];
    let cov = [0.58, -0.33, -0.17, -0.33, 1.33, 0.67, -0.17, 0.67, 2.33];
    let pad = |v: [f64; 3]| [v[0], v[1], v[2], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];

    let mut a = AmagoldConfig::new(0.2);
    a.mass = Mass::Dense;
    a.variant = Variant::NonReversible;
    a.seed = 31;
    let dense_sets = [
        set(0, 0.45, SetKind::Dense, cov),
        set(
            25,
            0.3,
            SetKind::Dense,
            [2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 3.0],
        ),
        set(45, 0.0, SetKind::Diagonal, pad([0.7, 1.3, 2.4])),
    ];
    amagold_full::<T>(
        out,
        "amagold_dense_set_c3",
        c3,
        &c30,
        &a,
        60,
        40,
        &dense_sets,
    );

    let mut a = AmagoldConfig::new(0.3);
    a.mass = Mass::Diagonal;
    a.variant = Variant::NonReversible;
    a.seed = 37;
    a.stream = 1;
    let diag_sets = [
        set(0, 0.5, SetKind::Diagonal, pad([1.0, 0.25, 4.0])),
        set(30, 0.0, SetKind::Diagonal, pad([0.8, 0.3, 3.0])),
    ];
    amagold_full::<T>(out, "amagold_diag_set_g3", g3, &g30, &a, 60, 40, &diag_sets);

    let mut a = AmagoldConfig::new(0.25);
    a.steps = 7;
    a.jitter_steps = true;
    a.seed = 5;
    amagold_full::<T>(out, "amagold_jitter_g3", g3, &g30, &a, 50, 50, &[]);

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 100;
    a.seed = 41;
    amagold_full::<T>(out, "amagold_warm_unit_c3", c3, &far, &a, 110, 20, &[]);

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 300;
    a.mass = Mass::Diagonal;
    a.variant = Variant::NonReversible;
    a.seed = 43;
    amagold_full::<T>(out, "amagold_warm_diag_c3", c3, &far, &a, 300, 30, &[]);

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 200;
    a.mass = Mass::Dense;
    a.jitter_steps = true;
    a.seed = 47;
    amagold_full::<T>(out, "amagold_warm_dense_c3", c3, &far, &a, 200, 30, &[]);

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 120;
    a.mass = Mass::Dense;
    a.variant = Variant::NonReversible;
    a.seed = 53;
    amagold_full::<T>(
        out,
        "amagold_warm_dense_nonrev_c3",
        c3,
        &far,
        &a,
        130,
        20,
        &[],
    );

    let mut a = AmagoldConfig::new(0.2);
    a.warmup = 60;
    a.mass = Mass::Diagonal;
    a.approach = false;
    a.seed = 59;
    amagold_full::<T>(out, "amagold_warm_noapproach_g3", g3, &g30, &a, 70, 20, &[]);

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 100;
    a.mass = Mass::Diagonal;
    a.seed = 61;
    let given_diag = [
        set(0, 0.4, SetKind::Diagonal, pad([0.6, 1.3, 2.3])),
        set(3, 0.2, SetKind::None, [0.0; 9]),
    ];
    amagold_full::<T>(
        out,
        "amagold_warm_given_diag_c3",
        c3,
        &far,
        &a,
        110,
        20,
        &given_diag,
    );
    a.mass = Mass::Dense;
    a.seed = 67;
    let given_dense = [set(0, 0.4, SetKind::Dense, cov)];
    amagold_full::<T>(
        out,
        "amagold_warm_given_dense_c3",
        c3,
        &far,
        &a,
        110,
        20,
        &given_dense,
    );

    let mut a = AmagoldConfig::new(0.1);
    a.warmup = 100;
    a.mass = Mass::Diagonal;
    a.seed = 71;
    amagold_compare::<T>(out, "amagold_compare_diag_c3", c3, &far, &a, 100);
    a.mass = Mass::Dense;
    a.seed = 73;
    amagold_compare::<T>(out, "amagold_compare_dense_c3", c3, &c30, &a, 100);
}

/// AMAGOLD runs the reference build cannot repeat (a warm-up, a mass matrix): the core in `f64`
/// or `f32`.
#[allow(clippy::too_many_arguments)]
fn amagold_core_run(
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
        amagold_full::<f32>(out, name, m, th0, c, steps, runs, &[]);
    } else {
        amagold_full::<f64>(out, name, m, th0, c, steps, runs, &[]);
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
    // A warm-up (with the approach, the default): the core, not the reference build.
    amagold_core_run(out, "amagold_nonrev_g3", g3, &g30, &a, 75, 75, f32_core);

    let mut a = AmagoldConfig::new(0.6);
    a.friction = 0.0;
    a.steps = 3;
    a.seed = 99;
    am(out, "amagold_hmc_g3", g3, &g30, &a, 40, 40);

    // The diagonal mass-matrix warm-up (with the approach, the default): the approach, the
    // curvature step, then one slow window whose end sets the mass and searches ε again; the
    // non-reversible chain's persistent momentum is rescaled when the mass changes.
    let mut a = AmagoldConfig::new(0.2);
    a.warmup = 60;
    a.mass = Mass::Diagonal;
    a.seed = 17;
    amagold_core_run(out, "amagold_mass_rev_g3", g3, &g30, &a, 75, 75, f32_core);

    let mut a = AmagoldConfig::new(0.25);
    a.variant = Variant::NonReversible;
    a.warmup = 30;
    a.mass = Mass::Diagonal;
    a.momentum_sd = 0.9;
    a.seed = 23;
    a.stream = 2;
    amagold_core_run(
        out,
        "amagold_mass_nonrev_g3",
        g3,
        &g30,
        &a,
        50,
        50,
        f32_core,
    );
    if f32_core {
        amagold_new_runs::<f32>(out);
    } else {
        amagold_new_runs::<f64>(out);
    }

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

/// The draws of `repro.c`'s `make_draws`, operation for operation.
fn make_draws(chains: usize, n: usize, dim: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 * (1.0 / 9007199254740992.0)
    };
    let mut x = vec![0.0; chains * n * dim];
    for c in 0..chains {
        let mut y = 0.0;
        for t in 0..n {
            let e = uniform() + uniform() + uniform() + uniform() - 2.0;
            y = 0.7 * y + e;
            for j in 0..dim {
                x[(c * n + t) * dim + j] = match j % 3 {
                    0 => y,
                    1 => (4.0 * uniform()).floor(),
                    _ => y + 0.5 * c as f64,
                };
            }
        }
    }
    x
}

fn print_stats(out: &mut String, tag: &str, s: &[draws::Summary]) {
    for (j, s) in s.iter().enumerate() {
        let v = [
            s.mean,
            s.sd,
            s.mcse_mean,
            s.mcse_sd,
            s.q5,
            s.q50,
            s.q95,
            s.mcse_q5,
            s.mcse_q50,
            s.mcse_q95,
            s.ess_bulk,
            s.ess_tail,
            s.ess_mean,
            s.rhat,
            s.rhat_bulk,
            s.rhat_folded,
            s.rhat_split,
        ];
        let _ = write!(out, "{tag} {j}:");
        for x in v {
            let _ = write!(out, " {}", hex_or_nan(x));
        }
        let _ = writeln!(out, " flags={}", s.flags);
    }
}

fn print_values(out: &mut String, tag: &str, v: &[f64]) {
    let _ = write!(out, "{tag}:");
    for &x in v {
        let _ = write!(out, " {}", hex_or_nan(x));
    }
    let _ = writeln!(out);
}

/// `repro.c`'s `draws_runs`: the `sgs_draws_…` results through the Rust `sgsample::draws`.
fn draws_runs(out: &mut String) {
    for (k, &(chains, n, dim)) in [(4usize, 101usize, 3usize), (1, 8, 2), (3, 4, 3)]
        .iter()
        .enumerate()
    {
        let x = make_draws(chains, n, dim, 1000 + k as u64);
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let shape = draws::Shape::new(chains, n, dim);
        let mut scratch = vec![0.0; draws::scratch_len(chains, n).expect("scratch")];
        let mut s = vec![draws::Summary::default(); dim];
        let mut v = vec![0.0; dim];
        draws::summary(&x, shape, &mut scratch, &mut s).expect("summary");
        print_stats(out, &format!("draws {k} summary"), &s);
        let vd = draws::diagnose(&s, chains, k as u64).expect("diagnose");
        let _ = writeln!(
            out,
            "draws {k} verdict: ok={} flags={} {} {} {} coords={},{},{} nc={},{} div={}",
            u32::from(vd.ok()),
            vd.flags,
            hex_or_nan(vd.worst_rhat),
            hex_or_nan(vd.min_ess_bulk),
            hex_or_nan(vd.min_ess_tail),
            vd.worst_rhat_coord,
            vd.min_ess_bulk_coord,
            vd.min_ess_tail_coord,
            vd.not_computable,
            vd.first_not_computable,
            vd.divergences
        );
        draws::summary(&xf, shape, &mut scratch, &mut s).expect("summary f32");
        print_stats(out, &format!("draws {k} summary_f32"), &s);
        draws::rhat_rank(&x, shape, &mut scratch, &mut v).expect("rhat_rank");
        print_values(out, &format!("draws {k} rhat_rank"), &v);
        draws::ess_bulk(&x, shape, &mut scratch, &mut v).expect("ess_bulk");
        print_values(out, &format!("draws {k} ess_bulk"), &v);
        draws::ess_tail(&xf, shape, &mut scratch, &mut v).expect("ess_tail");
        print_values(out, &format!("draws {k} ess_tail_f32"), &v);
        draws::mcse_quantile(&x, shape, 0.3, &mut scratch, &mut v).expect("mcse_quantile");
        print_values(out, &format!("draws {k} mcse_quantile 0.3"), &v);
    }
}

/// `repro_impl.h`'s `run_svgd_scale`: the scale option, from the reference build (f64) or the
/// f32 core, starting from `svgd_start` stretched by `3·l + 1` per coordinate.
#[allow(clippy::too_many_arguments)]
fn svgd_scale(
    out: &mut String,
    name: &str,
    mut m: M,
    n: usize,
    d: usize,
    c: &SvgdConfig<KernelChoice>,
    fixed: &[f64],
    iterations: usize,
    f32_core: bool,
) {
    let start = |k: usize| (3.0 * (k % d) as f64 + 1.0) * svgd_start(k / d, k % d);
    if f32_core {
        // `(REAL)(3l + 1) * (REAL)svgd_start`: the product rounded in float, as in C.
        let mut x: Vec<f32> = (0..n * d)
            .map(|k| (3.0 * (k % d) as f64 + 1.0) as f32 * svgd_start(k / d, k % d) as f32)
            .collect();
        let mut ws = vec![0.0f32; Svgd::<f32>::workspace_len(n, d, c)];
        let mut idx = vec![0u32; n];
        let mut sys = Svgd::new(c, d, &mut x, &mut ws, &mut idx).expect("init");
        if c.scale == Scale::Fixed {
            let s: Vec<f32> = fixed.iter().take(d).map(|&v| v as f32).collect();
            sys.set_scale(&s).expect("set_scale");
        }
        for k in 0..iterations {
            let i = sys.step(&mut m).expect("step");
            let h = hex_or_nan(i.bandwidth);
            let _ = writeln!(out, "{name}_f32 it {k} h={h} x={}", xs(sys.particles()));
        }
        let _ = writeln!(out, "{name}_f32 end");
        return;
    }
    let x0: Vec<f64> = (0..n * d).map(start).collect();
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
    sys.scale = match c.scale {
        Scale::None => RefScale::None,
        Scale::Particles => RefScale::Particles,
        Scale::Fixed => RefScale::Fixed(fixed[..d].to_vec()),
    };
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
    let _ = writeln!(out, "{name} end");
}

/// The runs of `repro_impl.h`'s `scale_runs`, in the same order.
fn scale_runs(out: &mut String, f32_core: bool) {
    let gf = M {
        kind: Kind::G3Free,
        noise: 0.5,
    };
    let dw = M {
        kind: Kind::Dw,
        noise: 1.0,
    };
    let fixed = [0.5, 2.0, 1.5];
    let mut v = SvgdConfig::new(4, KernelChoice::Gaussian { h: 0.7 }, StepRule::adagrad(0.1));
    v.seed = 31;
    v.scale = Scale::Particles;
    svgd_scale(
        out,
        "svgd_scale_particles",
        gf,
        20,
        3,
        &v,
        &fixed,
        30,
        f32_core,
    );

    let mut v = SvgdConfig::new(
        5,
        KernelChoice::Gaussian { h: 1.0 },
        StepRule::Constant { eta: 0.05 },
    );
    v.batching = Batching::WithReplacement;
    v.seed = 32;
    v.scale = Scale::Fixed;
    svgd_scale(
        out,
        "svgd_scale_fixed_wr",
        gf,
        17,
        3,
        &v,
        &fixed,
        20,
        f32_core,
    );

    let mut v = SvgdConfig::new(
        12,
        KernelChoice::GaussianMedian,
        StepRule::Decaying { eta: 0.3 },
    );
    v.seed = 33;
    v.scale = Scale::Particles;
    svgd_scale(
        out,
        "svgd_scale_full_median",
        gf,
        12,
        3,
        &v,
        &fixed,
        20,
        f32_core,
    );

    // The KSD on: the reference build does not compute it here (the moves are what is
    // compared; the KSD changes none of them).
    let mut v = SvgdConfig::new(3, KernelChoice::Gaussian { h: 1.0 }, StepRule::adagrad(0.2));
    v.seed = 34;
    v.scale = Scale::Particles;
    if f32_core {
        v.ksd = sgsample::svgd::KsdChoice::Batch(sgsample::svgd::SteinImq::default());
    }
    svgd_scale(
        out,
        "svgd_scale_dw_ksd",
        dw,
        30,
        1,
        &v,
        &fixed,
        25,
        f32_core,
    );
}

/// models.h's TunaMH terms: `|y_i − x_i·θ|` over `TERMS_N` points and the exact part
/// `0.05·|θ|²`, in `f64` from coordinates widened to `f64` (as the C callbacks do).
struct TermsModel;

const TERMS_N: u64 = 40;

fn terms_u(i: u64, x: &[f64]) -> f64 {
    let mut r = ((i * 5) % 13) as f64 / 4.0 - 1.5;
    for (j, &xj) in x.iter().enumerate() {
        r -= (((i * 7 + j as u64 * 3) % 11) as f64 / 11.0 - 0.5) * xj;
    }
    if r < 0.0 {
        -r
    } else {
        r
    }
}

impl<T: Float> Terms<T> for TermsModel {
    fn differences(&mut self, t: &[T], p: &[T], idx: &[u64], out: &mut [f64]) -> Result<(), Stop> {
        let t: Vec<f64> = t.iter().map(|v| v.to_f64()).collect();
        let p: Vec<f64> = p.iter().map(|v| v.to_f64()).collect();
        for (o, &i) in out.iter_mut().zip(idx) {
            *o = terms_u(i, &p) - terms_u(i, &t);
        }
        Ok(())
    }
    fn exact_difference(&mut self, t: &[T], p: &[T]) -> Result<f64, Stop> {
        let (mut a, mut b) = (0.0, 0.0);
        for (tj, pj) in t.iter().zip(p) {
            a += pj.to_f64() * pj.to_f64();
            b += tj.to_f64() * tj.to_f64();
        }
        Ok(0.05 * (a - b))
    }
}

/// repro_impl.h's `run_tunamh`, from the library's core.
fn tunamh_run<T: Float + Hex>(out: &mut String, name: &str, chi: f64, steps: usize, runs: usize) {
    let sfx = suffix::<T>();
    let mut cfg = TunamhConfig::new(0.25, TERMS_N, 1.0);
    cfg.chi = chi;
    cfg.seed = 5;
    let th0 = [T::from_f64(0.5), T::from_f64(-0.25), T::from_f64(1.0)];
    let mut ws = [T::ZERO; 6];
    let mut ch = Tunamh::new(&cfg, &th0, &mut ws).expect("init");
    let mut m = TermsModel;
    for k in 0..steps {
        let i = ch.step(&mut m).expect("step");
        let _ = writeln!(
            out,
            "{name}{sfx} s {k} o={} acc={} ev={} kept={} full={} lr={} x={}",
            i.outcome as u32,
            i.accepted as u32,
            i.evaluations,
            i.kept,
            i.full_pass as u32,
            hex_or_nan(i.log_ratio),
            xs(ch.position())
        );
    }
    let mut rows = vec![T::ZERO; runs * 3];
    ch.run(&mut m, &mut rows).map_err(|e| e.error).expect("run");
    for (k, row) in rows.chunks(3).enumerate() {
        let _ = writeln!(out, "{name}{sfx} r {k} x={}", xs(row));
    }
    let _ = writeln!(
        out,
        "{name}{sfx} end it={} acc={} ev={}",
        ch.iterations(),
        ch.accepted(),
        ch.evaluations()
    );
}

fn tunamh_runs<T: Float + Hex>(out: &mut String) {
    tunamh_run::<T>(out, "tunamh_minibatch", 0.02, 80, 80);
    tunamh_run::<T>(out, "tunamh_full", 1.0, 40, 40);
}

fn main() {
    let mut out = String::new();
    all_runs(&mut out, false);
    all_runs(&mut out, true);
    scale_runs(&mut out, false);
    scale_runs(&mut out, true);
    tunamh_runs::<f64>(&mut out);
    tunamh_runs::<f32>(&mut out);
    for seed in 1..=5u64 {
        let mut idx = [0u64; 8];
        sgsample::minibatch(seed, 50, &mut idx).expect("minibatch");
        let _ = write!(out, "minibatch {seed}:");
        for i in idx {
            let _ = write!(out, " {i}");
        }
        let _ = writeln!(out);
    }
    draws_runs(&mut out);
    print!("{out}");
}
