//! `sgs_…_run_batch` through the C functions: K chains in lockstep with batched callbacks give
//! bit for bit the draws, totals and final states of K separate `sgs_…_run` calls whose per-row
//! callbacks compute the same rows — for AMAGOLD (paper's chain, adaptive warm-up with the
//! approach, dense mass, jittered T), SGHMC and SGLD, `double` and `float`, with per-row REJECTs
//! and divergences, with the cache large, of one call and small (the one-row fallback); an abort
//! in the middle keeps every completed row and resuming is exact; bad inputs get their statuses
//! and leave everything untouched.
#![cfg(feature = "ffi")]

use core::ffi::c_void;
use sgsample::ffi::*;

/// Coordinates of either type, through f64.
trait F: Copy + PartialEq + core::fmt::Debug + 'static {
    fn of(v: f64) -> Self;
    fn get(self) -> f64;
    fn bits(self) -> u64;
}
impl F for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn get(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}
impl F for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn get(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

/// What the callbacks saw and what they are told to do.
#[derive(Default)]
struct Model {
    /// Batched calls made (gradient and energy) and rows in them.
    batch_calls: usize,
    rows: usize,
    /// Return ABORT from batched call number `abort_at` (1-based).
    abort_at: Option<usize>,
    /// Set row 0's status to ABORT (not a whole-batch abort) at that call instead.
    abort_by_row: bool,
    /// Overwrite the scratch's first cache entry at that call (a corrupted cache).
    corrupt: Option<(*mut f64, usize)>,
    /// States to call back into (re-entrancy), and what that call returned.
    reenter: Option<*mut sgs_amagold>,
    reenter_status: Option<sgs_status>,
}

/// A splitmix-style hash of the seed and a coordinate: the minibatch noise of a row.
fn wobble(seed: u64, i: usize) -> f64 {
    let mut z = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// A double well per coordinate, U = Σ ½(xᵢ² − 1)², outside |x₀| ≤ 2.2 REJECT; the energy is
/// +∞ above x₁ = 1.7 and the gradient NaN below x₁ = −1.8 (divergences).
fn energy_row<T: F>(x: &[T]) -> (f64, i32) {
    if x[0].get().abs() > 1.5 {
        return (0.0, SGS_CB_REJECT);
    }
    if x.len() > 1 && x[1].get() > 1.7 {
        return (f64::INFINITY, SGS_CB_OK);
    }
    let u = x
        .iter()
        .map(|v| {
            let a = v.get() * v.get() - 1.0;
            0.5 * a * a
        })
        .sum();
    (u, SGS_CB_OK)
}

fn gradient_row<T: F>(x: &[T], seed: u64, g: &mut [T]) -> i32 {
    if x[0].get().abs() > 1.5 {
        return SGS_CB_REJECT;
    }
    for (i, (gi, xi)) in g.iter_mut().zip(x).enumerate() {
        let v = xi.get();
        *gi = T::of(2.0 * v * (v * v - 1.0) + 0.3 * wobble(seed, i));
    }
    if x.len() > 1 && x[1].get() < -1.8 {
        g[1] = T::of(f64::NAN);
    }
    SGS_CB_OK
}

unsafe extern "C" fn energy1<T: F>(_: *mut c_void, x: *const T, d: usize, u: *mut f64) -> i32 {
    // SAFETY: callback contract: d values at x, u writable.
    let (v, s) = energy_row(unsafe { core::slice::from_raw_parts(x, d) });
    if s == SGS_CB_OK {
        // SAFETY: as above.
        unsafe { u.write(v) };
    }
    s
}

unsafe extern "C" fn gradient1<T: F>(
    _: *mut c_void,
    x: *const T,
    d: usize,
    seed: u64,
    g: *mut T,
) -> i32 {
    // SAFETY: callback contract: d values at x and at g.
    unsafe {
        gradient_row(
            core::slice::from_raw_parts(x, d),
            seed,
            core::slice::from_raw_parts_mut(g, d),
        )
    }
}

/// The batched call's bookkeeping; `Some(status)` to return at once.
fn tick(m: &mut Model, k: usize, status: &mut [i32]) -> Option<i32> {
    m.batch_calls += 1;
    m.rows += k;
    if let Some(s) = m.reenter {
        // SAFETY: a state the test initialised; the call must be refused (busy).
        let r = unsafe { sgs_amagold_step(s, core::ptr::null_mut()) };
        m.reenter_status = Some(r);
    }
    if Some(m.batch_calls) == m.abort_at {
        if let Some((p, at)) = m.corrupt {
            // SAFETY: the test's scratch, `at` inside it.
            unsafe { *p.add(at) = f64::from_bits((*p.add(at)).to_bits() ^ 1) };
            return None;
        }
        if m.abort_by_row {
            status[0] = SGS_CB_ABORT;
            return None;
        }
        return Some(SGS_CB_ABORT);
    }
    None
}

unsafe extern "C" fn energy_k<T: F>(
    ud: *mut c_void,
    x: *const T,
    k: usize,
    d: usize,
    chains: *const usize,
    u: *mut f64,
    status: *mut i32,
) -> i32 {
    // SAFETY: callback contract: k rows of d values, k chains, energies and statuses.
    let (m, x, chains, u, st) = unsafe {
        (
            &mut *ud.cast::<Model>(),
            core::slice::from_raw_parts(x, k * d),
            core::slice::from_raw_parts(chains, k),
            core::slice::from_raw_parts_mut(u, k),
            core::slice::from_raw_parts_mut(status, k),
        )
    };
    assert!(u.iter().all(|v| v.is_nan()) && st.iter().all(|&s| s == SGS_CB_OK));
    assert!(
        chains.windows(2).all(|w| w[0] < w[1]),
        "rows in chain order"
    );
    if let Some(r) = tick(m, k, st) {
        return r;
    }
    for r in 0..k {
        let (v, s) = energy_row(&x[r * d..(r + 1) * d]);
        if s == SGS_CB_OK {
            u[r] = v;
        }
        if st[r] == SGS_CB_OK {
            st[r] = s;
        }
    }
    SGS_CB_OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn gradient_k<T: F>(
    ud: *mut c_void,
    x: *const T,
    k: usize,
    d: usize,
    seeds: *const u64,
    chains: *const usize,
    g: *mut T,
    status: *mut i32,
) -> i32 {
    // SAFETY: callback contract: k rows of d values, k seeds, chains, gradients and statuses.
    let (m, x, seeds, chains, g, st) = unsafe {
        (
            &mut *ud.cast::<Model>(),
            core::slice::from_raw_parts(x, k * d),
            core::slice::from_raw_parts(seeds, k),
            core::slice::from_raw_parts(chains, k),
            core::slice::from_raw_parts_mut(g, k * d),
            core::slice::from_raw_parts_mut(status, k),
        )
    };
    assert!(g.iter().all(|v| v.get().is_nan()) && st.iter().all(|&s| s == SGS_CB_OK));
    assert!(
        chains.windows(2).all(|w| w[0] < w[1]),
        "rows in chain order"
    );
    if let Some(r) = tick(m, k, st) {
        return r;
    }
    for r in 0..k {
        let s = gradient_row(&x[r * d..(r + 1) * d], seeds[r], &mut g[r * d..(r + 1) * d]);
        if st[r] == SGS_CB_OK {
            st[r] = s;
        }
    }
    SGS_CB_OK
}

/// One sampler and coordinate type through its C functions.
trait Sampler {
    type T: F;
    type S;
    type Cfg: Copy;
    type Sum: Copy + core::fmt::Debug;
    fn ws_len(cfg: &Self::Cfg, d: usize) -> usize;
    fn scratch_len(k: usize, d: usize, m: usize) -> usize;
    /// # Safety
    /// `s` writable; `ws` alive while the state is used.
    unsafe fn init(
        s: *mut Self::S,
        cfg: &Self::Cfg,
        th: &[Self::T],
        ws: &mut [Self::T],
    ) -> sgs_status;
    /// `run` of a state (the C function validates it); `sum` NULL or a live summary.
    fn run(s: &mut Self::S, out: &mut [Self::T], n: usize, sum: *mut Self::Sum) -> sgs_status;
    /// # Safety
    /// Pointers valid for their lengths (or deliberately not, for the bad-input tests).
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_batch(
        states: *mut Self::S,
        k: usize,
        n: usize,
        with_energy: bool,
        with_gradient: bool,
        ud: *mut Model,
        scratch: *mut f64,
        scratch_len: usize,
        max_calls: usize,
        out: *mut Self::T,
        out_len: usize,
        done: *mut usize,
        sums: *mut Self::Sum,
    ) -> sgs_status;
    fn position(s: &Self::S, out: &mut [Self::T]) -> sgs_status;
    fn iterations(s: &Self::S) -> u64;
}

macro_rules! sampler {
    ($Name:ident, $T:ty, $S:ty, $Cfg:ty, $Sum:ty, $energy:expr, $ws_len_for:ident,
     $scratch:ident, $run:ident, $run_batch:ident, $position:ident, $iterations:ident,
     |$s:ident, $cfg:ident, $th:ident, $ws:ident| $init:expr) => {
        struct $Name;
        impl Sampler for $Name {
            type T = $T;
            type S = $S;
            type Cfg = $Cfg;
            type Sum = $Sum;
            fn ws_len(cfg: &$Cfg, d: usize) -> usize {
                // SAFETY: a valid config.
                unsafe { $ws_len_for(cfg, d) }
            }
            fn scratch_len(k: usize, d: usize, m: usize) -> usize {
                $scratch(k, d, m)
            }
            unsafe fn init($s: *mut $S, $cfg: &$Cfg, $th: &[$T], $ws: &mut [$T]) -> sgs_status {
                // SAFETY: forwarded.
                unsafe { $init }
            }
            fn run(s: &mut $S, out: &mut [$T], n: usize, sum: *mut $Sum) -> sgs_status {
                let mut done = 0usize;
                // SAFETY: a live state (validated by the call), `out` a live slice; `sum` NULL
                // or a live summary (the tests' contract).
                unsafe { $run(s, n, out.as_mut_ptr(), out.len(), &mut done, sum) }
            }
            unsafe fn run_batch(
                states: *mut $S,
                k: usize,
                n: usize,
                with_energy: bool,
                with_gradient: bool,
                ud: *mut Model,
                scratch: *mut f64,
                scratch_len: usize,
                max_calls: usize,
                out: *mut $T,
                out_len: usize,
                done: *mut usize,
                sums: *mut $Sum,
            ) -> sgs_status {
                // SAFETY: forwarded.
                unsafe {
                    $run_batch(
                        states,
                        k,
                        n,
                        if with_energy {
                            Some(energy_k::<$T>)
                        } else {
                            None
                        },
                        if with_gradient {
                            Some(gradient_k::<$T>)
                        } else {
                            None
                        },
                        ud.cast(),
                        scratch,
                        scratch_len,
                        max_calls,
                        out,
                        out_len,
                        done,
                        sums,
                    )
                }
            }
            fn position(s: &$S, out: &mut [$T]) -> sgs_status {
                // SAFETY: a live state (validated by the call), `out` a live slice.
                unsafe { $position(s, out.as_mut_ptr(), out.len()) }
            }
            fn iterations(s: &$S) -> u64 {
                let mut i = 0;
                // SAFETY: a live state (validated by the call), `i` a live local.
                assert_eq!(unsafe { $iterations(s, &mut i) }, sgs_status::SGS_OK);
                i
            }
        }
    };
}

sampler!(
    Amg64,
    f64,
    sgs_amagold,
    sgs_amagold_config,
    sgs_amagold_run_summary,
    true,
    sgs_amagold_workspace_len_for,
    sgs_amagold_batch_scratch_len,
    sgs_amagold_run,
    sgs_amagold_run_batch,
    sgs_amagold_position,
    sgs_amagold_iterations,
    |s, c, th, ws| sgs_amagold_init(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(energy1::<f64>),
        Some(gradient1::<f64>),
        core::ptr::null_mut()
    )
);
sampler!(
    Amg32,
    f32,
    sgs_amagold_f32,
    sgs_amagold_config,
    sgs_amagold_run_summary,
    true,
    sgs_amagold_workspace_len_for_f32,
    sgs_amagold_batch_scratch_len,
    sgs_amagold_run_f32,
    sgs_amagold_run_batch_f32,
    sgs_amagold_position_f32,
    sgs_amagold_iterations_f32,
    |s, c, th, ws| sgs_amagold_init_f32(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(energy1::<f32>),
        Some(gradient1::<f32>),
        core::ptr::null_mut()
    )
);
sampler!(
    Sgh64,
    f64,
    sgs_sghmc,
    sgs_sghmc_config,
    sgs_sghmc_run_summary,
    false,
    sgs_sghmc_workspace_len_for,
    sgs_sghmc_batch_scratch_len,
    sgs_sghmc_run,
    sgs_sghmc_run_batch,
    sgs_sghmc_position,
    sgs_sghmc_iterations,
    |s, c, th, ws| sgs_sghmc_init(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(gradient1::<f64>),
        core::ptr::null_mut()
    )
);
sampler!(
    Sgh32,
    f32,
    sgs_sghmc_f32,
    sgs_sghmc_config,
    sgs_sghmc_run_summary,
    false,
    sgs_sghmc_workspace_len_for_f32,
    sgs_sghmc_batch_scratch_len,
    sgs_sghmc_run_f32,
    sgs_sghmc_run_batch_f32,
    sgs_sghmc_position_f32,
    sgs_sghmc_iterations_f32,
    |s, c, th, ws| sgs_sghmc_init_f32(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(gradient1::<f32>),
        core::ptr::null_mut()
    )
);
sampler!(
    Sgl64,
    f64,
    sgs_sgld,
    sgs_sgld_config,
    sgs_sgld_run_summary,
    false,
    sgs_sgld_workspace_len_for,
    sgs_sgld_batch_scratch_len,
    sgs_sgld_run,
    sgs_sgld_run_batch,
    sgs_sgld_position,
    sgs_sgld_iterations,
    |s, c, th, ws| sgs_sgld_init(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(gradient1::<f64>),
        core::ptr::null_mut()
    )
);
sampler!(
    Sgl32,
    f32,
    sgs_sgld_f32,
    sgs_sgld_config,
    sgs_sgld_run_summary,
    false,
    sgs_sgld_workspace_len_for_f32,
    sgs_sgld_batch_scratch_len,
    sgs_sgld_run_f32,
    sgs_sgld_run_batch_f32,
    sgs_sgld_position_f32,
    sgs_sgld_iterations_f32,
    |s, c, th, ws| sgs_sgld_init_f32(
        s,
        c,
        th.as_ptr(),
        th.len(),
        ws.as_mut_ptr(),
        ws.len(),
        Some(gradient1::<f32>),
        core::ptr::null_mut()
    )
);

/// K chains of one sampler, each on its own workspace, never moved after init.
struct Chains<P: Sampler> {
    states: Vec<P::S>,
    ws: Vec<Vec<P::T>>,
    d: usize,
}

impl<P: Sampler> Chains<P> {
    /// K chains started at different points, with configs `cfg(c)`.
    fn new(k: usize, d: usize, cfg: impl Fn(usize) -> P::Cfg) -> Self {
        // SAFETY: the opaque states are plain words; zero is their "not initialised" value.
        let mut states: Vec<P::S> = (0..k).map(|_| unsafe { core::mem::zeroed() }).collect();
        let mut ws = Vec::new();
        for (c, s) in states.iter_mut().enumerate() {
            let cf = cfg(c);
            let mut w = vec![P::T::of(0.0); P::ws_len(&cf, d)];
            let th: Vec<P::T> = (0..d)
                .map(|j| P::T::of(0.9 - 0.35 * c as f64 + 0.2 * j as f64))
                .collect();
            // SAFETY: a zeroed state; the workspace lives in `ws` (its heap buffer never moves).
            assert_eq!(unsafe { P::init(s, &cf, &th, &mut w) }, sgs_status::SGS_OK);
            ws.push(w);
        }
        Chains { states, ws, d }
    }

    fn k(&self) -> usize {
        self.states.len()
    }

    fn positions(&self) -> Vec<u64> {
        let mut all = Vec::new();
        for s in &self.states {
            let mut p = vec![P::T::of(0.0); self.d];
            // SAFETY: initialised.
            assert_eq!(P::position(s, &mut p), sgs_status::SGS_OK);
            all.extend(p.iter().map(|v| v.bits()));
        }
        all
    }

    /// Each chain's separate `run` of n rows: rows chain-major and the summaries.
    fn run_each(&mut self, n: usize) -> (Vec<u64>, Vec<String>) {
        let mut rows = Vec::new();
        let mut sums = Vec::new();
        for s in self.states.iter_mut() {
            let mut out = vec![P::T::of(0.0); n * self.d];
            // SAFETY: a zeroed summary is a valid value (plain data).
            let mut sum: P::Sum = unsafe { core::mem::zeroed() };
            // SAFETY: initialised.
            assert_eq!(P::run(s, &mut out, n, &mut sum), sgs_status::SGS_OK);
            rows.extend(out.iter().map(|v| v.bits()));
            sums.push(format!("{sum:?}"));
        }
        (rows, sums)
    }

    /// One `run_batch` of n rows with a cache of `m` calls.
    fn run_batch(&mut self, n: usize, m: usize, model: &mut Model) -> Batch {
        let (k, d) = (self.k(), self.d);
        let mut scratch = vec![0.0f64; P::scratch_len(k, d, m)];
        let mut out = vec![P::T::of(-7.0); k * n * d];
        let mut done = vec![usize::MAX; k];
        // SAFETY: zeroed summaries are valid values.
        let mut sums: Vec<P::Sum> = (0..k).map(|_| unsafe { core::mem::zeroed() }).collect();
        if let Some((p, _)) = model.corrupt.as_mut() {
            *p = scratch.as_mut_ptr();
        }
        // SAFETY: every buffer sized as documented.
        let status = unsafe {
            P::run_batch(
                self.states.as_mut_ptr(),
                k,
                n,
                true,
                true,
                model,
                scratch.as_mut_ptr(),
                scratch.len(),
                m,
                out.as_mut_ptr(),
                out.len(),
                done.as_mut_ptr(),
                sums.as_mut_ptr(),
            )
        };
        Batch {
            status,
            rows: out.iter().map(|v| v.bits()).collect(),
            done,
            sums: sums.iter().map(|s| format!("{s:?}")).collect(),
        }
    }
}

struct Batch {
    status: sgs_status,
    rows: Vec<u64>,
    done: Vec<usize>,
    sums: Vec<String>,
}

/// K chains batched equal K separate runs, for each cache size; then both continue
/// separately and still agree (the final states are equal, generators included).
fn identical<P: Sampler>(k: usize, d: usize, n: usize, cfg: impl Fn(usize) -> P::Cfg + Copy) {
    let mut reference = Chains::<P>::new(k, d, cfg);
    let (rows, sums) = reference.run_each(n);
    let (more, _) = reference.run_each(5);
    let outcomes: std::collections::HashSet<_> = sums.iter().collect();
    assert!(!outcomes.is_empty());
    for m in [64, 3, 1, 0] {
        let mut batched = Chains::<P>::new(k, d, cfg);
        let mut model = Model::default();
        let b = batched.run_batch(n, m, &mut model);
        assert_eq!(b.status, sgs_status::SGS_OK, "max_calls {m}");
        assert_eq!(b.rows, rows, "rows, max_calls {m}");
        assert_eq!(b.sums, sums, "summaries, max_calls {m}");
        assert_eq!(b.done, vec![n; k]);
        let (after, _) = batched.run_each(5);
        assert_eq!(after, more, "continuation, max_calls {m}");
        assert!(model.batch_calls > 0);
    }
}

/// Summaries mention out-of-domain and divergent iterations: the cases the batch must carry.
fn has_rejects_and_divergences<P: Sampler>(
    k: usize,
    d: usize,
    n: usize,
    cfg: impl Fn(usize) -> P::Cfg + Copy,
) {
    let mut reference = Chains::<P>::new(k, d, cfg);
    let mut ood = 0;
    let mut div = 0u64;
    for s in reference.states.iter_mut() {
        let mut out = vec![P::T::of(0.0); d];
        for _ in 0..n {
            // SAFETY: a zeroed summary is plain data; the state is initialised.
            let mut sum: P::Sum = unsafe { core::mem::zeroed() };
            assert_eq!(P::run(s, &mut out, 1, &mut sum), sgs_status::SGS_OK);
            let text = format!("{sum:?}");
            ood += text.contains("outcome: 2") as u32;
            div += text.contains("outcome: 3") as u64;
        }
    }
    assert!(ood > 0 && div > 0, "out of domain {ood}, divergent {div}");
}

fn amagold_cfg(c: usize, f: impl Fn(&mut sgs_amagold_config)) -> sgs_amagold_config {
    let mut cfg = sgs_amagold_config_default(0.35);
    cfg.seed = 11 + c as u64;
    f(&mut cfg);
    cfg
}

fn adaptive(c: usize, mass: u32) -> sgs_amagold_config {
    let mut cfg = sgs_amagold_config_adaptive();
    cfg.seed = 3 + c as u64;
    cfg.warmup = 60;
    cfg.mass = mass;
    cfg
}

/// The warm-up configs do go through the approach, the windows and sampling in 90 iterations
/// (so the batch tests above cover those steps, whose calls exceed small caches).
fn assert_phases(cfg: impl Fn(usize) -> sgs_amagold_config + Copy) {
    let mut chains = Chains::<Amg64>::new(2, 3, cfg);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..90 {
        // SAFETY: a summary is plain data; zero is a valid value.
        let mut sum: sgs_amagold_run_summary = unsafe { core::mem::zeroed() };
        let mut out = [0.0; 3];
        // SAFETY: initialised.
        let r = unsafe {
            sgs_amagold_run(
                &mut chains.states[0],
                1,
                out.as_mut_ptr(),
                3,
                core::ptr::null_mut(),
                &mut sum,
            )
        };
        assert_eq!(r, sgs_status::SGS_OK);
        seen.insert(sum.last.phase);
    }
    for p in [
        SGS_PHASE_APPROACH,
        SGS_PHASE_FAST,
        SGS_PHASE_SLOW,
        SGS_PHASE_SAMPLING,
    ] {
        assert!(seen.contains(&p), "phase {p} not reached: {seen:?}");
    }
    // The curvature step and at least one window-metric step (each d + 1 gradient calls) ran.
    // SAFETY: a report is plain data; zero is a valid value.
    let mut rep: sgs_warmup_report = unsafe { core::mem::zeroed() };
    // SAFETY: the state is initialised; `rep` a live local.
    let r = unsafe { sgs_amagold_warmup_report(&chains.states[0], &mut rep) };
    assert_eq!(r, sgs_status::SGS_OK);
    assert!(rep.approach_iterations > 0, "{rep:?}");
    assert!(rep.metric_updates >= 2, "{rep:?}");
}

#[test]
fn amagold_default_batch_equals_separate_runs() {
    let cfg = |c| amagold_cfg(c, |_| {});
    has_rejects_and_divergences::<Amg64>(4, 3, 60, cfg);
    identical::<Amg64>(4, 3, 60, cfg);
    identical::<Amg32>(4, 3, 60, cfg);
}

#[test]
fn amagold_jittered_non_reversible_batch_equals_separate_runs() {
    let cfg = |c| {
        amagold_cfg(c, |x| {
            x.jitter_steps = 1;
            x.variant = SGS_VARIANT_NON_REVERSIBLE;
        })
    };
    identical::<Amg64>(5, 2, 50, cfg);
    identical::<Amg32>(5, 2, 50, cfg);
}

#[test]
fn amagold_adaptive_warmup_batch_equals_separate_runs() {
    let cfg = |c| adaptive(c, SGS_MASS_DIAGONAL);
    assert_phases(cfg);
    identical::<Amg64>(4, 3, 90, cfg);
    identical::<Amg32>(3, 3, 90, cfg);
}

#[test]
fn amagold_dense_warmup_batch_equals_separate_runs() {
    let cfg = |c| {
        let mut x = adaptive(c, SGS_MASS_DENSE);
        x.jitter_steps = 1;
        x
    };
    assert_phases(cfg);
    identical::<Amg64>(4, 3, 90, cfg);
    identical::<Amg32>(3, 3, 90, cfg);
}

#[test]
fn amagold_mixed_configs_in_one_batch() {
    // Chains in different phases (one in its warm-up, one jittered, one plain) in one batch:
    // requests of both kinds in the same round.
    let cfg = |c: usize| match c % 3 {
        0 => adaptive(c, SGS_MASS_DIAGONAL),
        1 => amagold_cfg(c, |x| x.jitter_steps = 1),
        _ => amagold_cfg(c, |_| {}),
    };
    identical::<Amg64>(6, 2, 70, cfg);
}

fn sghmc_cfg(c: usize) -> sgs_sghmc_config {
    let mut cfg = sgs_sghmc_config_default(0.12);
    cfg.seed = 5 + c as u64;
    cfg
}

fn sgld_cfg(c: usize) -> sgs_sgld_config {
    let mut cfg = sgs_sgld_config_default(0.2);
    cfg.seed = 7 + c as u64;
    cfg.steps = 3;
    cfg
}

#[test]
fn sghmc_batch_equals_separate_runs() {
    has_rejects_and_divergences::<Sgh64>(4, 2, 200, sghmc_cfg);
    identical::<Sgh64>(4, 2, 60, sghmc_cfg);
    identical::<Sgh32>(4, 2, 60, sghmc_cfg);
}

#[test]
fn sgld_batch_equals_separate_runs() {
    has_rejects_and_divergences::<Sgl64>(4, 2, 300, sgld_cfg);
    identical::<Sgl64>(4, 2, 80, sgld_cfg);
    identical::<Sgl32>(4, 2, 80, sgld_cfg);
}

#[test]
fn lockstep_one_batched_call_per_inner_step() {
    // SGHMC with T = 10 inner steps and no REJECT on this well-behaved start: every round is one
    // gradient call of all K rows.
    let cfg = |c| {
        let mut x = sghmc_cfg(c);
        x.step_size = 0.01;
        x
    };
    let (k, n) = (4, 5);
    let mut chains = Chains::<Sgh64>::new(k, 2, cfg);
    let mut model = Model::default();
    let b = chains.run_batch(n, 10, &mut model);
    assert_eq!(b.status, sgs_status::SGS_OK);
    assert_eq!(model.batch_calls, n * 10);
    assert_eq!(model.rows, k * n * 10);
    // With a cache of one call, the second to tenth gradients of each step are one-row calls.
    let mut chains = Chains::<Sgh64>::new(k, 2, cfg);
    let mut model = Model::default();
    assert_eq!(
        chains.run_batch(n, 1, &mut model).status,
        sgs_status::SGS_OK
    );
    assert_eq!(model.batch_calls, n * (1 + 9 * k));
    assert_eq!(model.rows, k * n * 10);
}

/// Aborts at batched call `at` (by return value or by a row status), then checks the rows
/// kept and that resuming (lagging chains by a single step, then a batch; or each chain by its
/// own run) ends where an uninterrupted run ends.
fn abort_and_resume<P: Sampler>(
    k: usize,
    d: usize,
    n: usize,
    at: usize,
    by_row: bool,
    cfg: impl Fn(usize) -> P::Cfg + Copy,
) {
    let mut reference = Chains::<P>::new(k, d, cfg);
    let (rows, _) = reference.run_each(n);
    {
        let mut chains = Chains::<P>::new(k, d, cfg);
        let mut model = Model {
            abort_at: Some(at),
            abort_by_row: by_row,
            ..Model::default()
        };
        let b = chains.run_batch(n, 16, &mut model);
        assert_eq!(b.status, sgs_status::SGS_ERR_CALLBACK_ABORTED);
        let lo = *b.done.iter().min().unwrap();
        let hi = *b.done.iter().max().unwrap();
        assert!(hi - lo <= 1 && hi < n, "done {:?}", b.done);
        for (c, &dc) in b.done.iter().enumerate() {
            // SAFETY: initialised.
            assert_eq!(P::iterations(&chains.states[c]), dc as u64);
            let got = &b.rows[c * n * d..(c * n + dc) * d];
            assert_eq!(got, &rows[c * n * d..(c * n + dc) * d], "chain {c}");
            assert!(b.rows[(c * n + dc) * d..(c + 1) * n * d]
                .iter()
                .all(|&w| w == P::T::of(-7.0).bits()));
            assert!(
                b.sums[c].contains(&format!("iterations: {dc},")),
                "{}",
                b.sums[c]
            );
            // Resume this chain by its own run.
            let m = n - dc;
            let mut out = vec![P::T::of(0.0); m * d];
            let s = &mut chains.states[c];
            // SAFETY: initialised.
            assert_eq!(
                P::run(s, &mut out, m, core::ptr::null_mut()),
                sgs_status::SGS_OK
            );
            let mut all = got.to_vec();
            all.extend(out.iter().map(|v| v.bits()));
            assert_eq!(all, rows[c * n * d..(c + 1) * n * d], "chain {c} resumed");
        }
    }
    // Resume by batch: abort, bring the lagging chains up by one step, then one batch.
    let mut chains = Chains::<P>::new(k, d, cfg);
    let mut model = Model {
        abort_at: Some(at),
        abort_by_row: by_row,
        ..Model::default()
    };
    let b = chains.run_batch(n, 16, &mut model);
    let hi = *b.done.iter().max().unwrap();
    let mut got: Vec<Vec<u64>> = (0..k)
        .map(|c| b.rows[c * n * d..(c * n + b.done[c]) * d].to_vec())
        .collect();
    for (c, &dc) in b.done.iter().enumerate() {
        if dc < hi {
            let mut out = vec![P::T::of(0.0); d];
            // SAFETY: initialised.
            assert_eq!(
                P::run(&mut chains.states[c], &mut out, 1, core::ptr::null_mut()),
                sgs_status::SGS_OK
            );
            got[c].extend(out.iter().map(|v| v.bits()));
        }
    }
    let rem = n - hi;
    let r = chains.run_batch(rem, 16, &mut Model::default());
    assert_eq!(r.status, sgs_status::SGS_OK);
    for c in 0..k {
        got[c].extend(&r.rows[c * rem * d..(c + 1) * rem * d]);
        assert_eq!(
            got[c],
            rows[c * n * d..(c + 1) * n * d],
            "chain {c} resumed by batch"
        );
    }
}

#[test]
fn abort_keeps_rows_and_resumes_exactly() {
    let cfg = |c| amagold_cfg(c, |x| x.jitter_steps = 1);
    for at in [1, 2, 7, 30, 101] {
        abort_and_resume::<Amg64>(4, 2, 30, at, false, cfg);
    }
    abort_and_resume::<Amg32>(3, 2, 30, 45, true, cfg);
    let acfg = |c| adaptive(c, SGS_MASS_DENSE);
    for at in [3, 40, 200] {
        abort_and_resume::<Amg64>(3, 3, 70, at, at == 40, acfg);
    }
    abort_and_resume::<Sgh64>(4, 2, 20, 33, false, sghmc_cfg);
    abort_and_resume::<Sgl32>(4, 2, 20, 17, true, sgld_cfg);
}

/// The callback flips a bit of chain 0's first cache words at the second batched call: the run
/// is refused, and the chains go on as if it had not been made.
fn corrupted<P: Sampler>(cfg: impl Fn(usize) -> P::Cfg + Copy) {
    let (k, d) = (3usize, 2usize);
    let cache0 = k * (4 + 2 * d) + 2 + 2;
    let (reference, _) = Chains::<P>::new(k, d, cfg).run_each(4);
    let mut chains = Chains::<P>::new(k, d, cfg);
    let mut model = Model {
        abort_at: Some(2),
        corrupt: Some((core::ptr::null_mut(), cache0)),
        ..Model::default()
    };
    let b = chains.run_batch(4, 16, &mut model);
    assert_eq!(b.status, sgs_status::SGS_ERR_STATE_CORRUPTED);
    assert_eq!(b.done, vec![0; k]);
    let after = chains.run_each(4);
    assert_eq!(after.0, reference);
}

#[test]
fn corrupted_cache_is_refused() {
    // SGHMC's steps are replayed: the word is the first cached point's, and the replayed step
    // asks for another point than the cache holds.
    corrupted::<Sgh64>(sghmc_cfg);
    // AMAGOLD's sampling steps are cut at their callbacks: the word is the generator's in the
    // cut step's position, whose check word no longer matches.
    corrupted::<Amg64>(|c| amagold_cfg(c, |_| {}));
}

#[test]
fn reentry_from_a_batch_callback_is_busy() {
    let mut chains = Chains::<Amg64>::new(2, 2, |c| amagold_cfg(c, |_| {}));
    let mut model = Model {
        reenter: Some(&mut chains.states[1]),
        ..Model::default()
    };
    let b = chains.run_batch(2, 16, &mut model);
    assert_eq!(b.status, sgs_status::SGS_OK);
    assert_eq!(model.reenter_status, Some(sgs_status::SGS_ERR_BUSY));
    // The flags are cleared afterwards.
    let mut out = [0.0; 2];
    // SAFETY: initialised.
    assert_eq!(
        Amg64::run(&mut chains.states[1], &mut out, 1, core::ptr::null_mut()),
        sgs_status::SGS_OK
    );
}

/// One bad-input call: the status, and nothing written or changed.
#[allow(clippy::too_many_arguments)]
fn refused<P: Sampler>(
    chains: &mut Chains<P>,
    want: sgs_status,
    states: *mut P::S,
    k: usize,
    n: usize,
    energy: bool,
    gradient: bool,
    scratch: Option<(*mut f64, usize)>,
    out: Option<(*mut P::T, usize)>,
    done: *mut usize,
) {
    let before = chains.positions();
    let iters: Vec<u64> = chains.states.iter().map(|s| P::iterations(s)).collect();
    let kk = chains.k();
    let d = chains.d;
    let mut own_scratch = vec![0.25f64; P::scratch_len(kk, d, 4)];
    let mut own_out = vec![P::T::of(-7.0); kk * 3 * d];
    let (sp, sl) = scratch.unwrap_or((own_scratch.as_mut_ptr(), own_scratch.len()));
    let (op, ol) = out.unwrap_or((own_out.as_mut_ptr(), own_out.len()));
    let mut model = Model::default();
    // SAFETY: deliberately bad arguments, which the function must refuse before touching them.
    let status = unsafe {
        P::run_batch(
            states,
            k,
            n,
            energy,
            gradient,
            &mut model,
            sp,
            sl,
            4,
            op,
            ol,
            done,
            core::ptr::null_mut(),
        )
    };
    assert_eq!(status, want);
    assert_eq!(model.batch_calls, 0);
    assert_eq!(chains.positions(), before);
    let after: Vec<u64> = chains.states.iter().map(|s| P::iterations(s)).collect();
    assert_eq!(after, iters);
    assert!(own_scratch.iter().all(|&v| v == 0.25));
    assert!(own_out.iter().all(|&v| v == P::T::of(-7.0)));
}

#[test]
fn bad_inputs_get_statuses_and_change_nothing() {
    use sgs_status::*;
    let (k, d, n) = (3usize, 2usize, 3usize);
    let mut chains = Chains::<Amg64>::new(k, d, |c| amagold_cfg(c, |_| {}));
    let sp = chains.states.as_mut_ptr();
    let mut done = vec![usize::MAX; k];
    let dp = done.as_mut_ptr();
    use core::ptr::null_mut as null;
    refused(
        &mut chains,
        SGS_ERR_NULL_POINTER,
        null(),
        k,
        n,
        true,
        true,
        None,
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_NULL_POINTER,
        sp,
        k,
        n,
        true,
        false,
        None,
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_NULL_POINTER,
        sp,
        k,
        n,
        false,
        true,
        None,
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_NULL_POINTER,
        sp,
        k,
        n,
        true,
        true,
        Some((null(), 100)),
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_NULL_POINTER,
        sp,
        k,
        n,
        true,
        true,
        None,
        Some((null(), 100)),
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        0,
        n,
        true,
        true,
        None,
        None,
        dp,
    );
    // Misaligned scratch, out, states, samples_done.
    let mut buf = vec![0.0f64; 4096];
    let mis = (buf.as_mut_ptr() as usize + 1) as *mut f64;
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        Some((mis, 100)),
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        None,
        Some((mis, 100)),
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        (sp as usize + 4) as *mut _,
        k,
        n,
        true,
        true,
        None,
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        None,
        None,
        (dp as usize + 1) as *mut usize,
    );
    // Too small.
    let sl = Amg64::scratch_len(k, d, 4);
    refused(
        &mut chains,
        SGS_ERR_WORKSPACE_TOO_SMALL,
        sp,
        k,
        n,
        true,
        true,
        Some((buf.as_mut_ptr(), sl - 1)),
        None,
        dp,
    );
    let mut small = vec![0.0f64; k * n * d - 1];
    refused(
        &mut chains,
        SGS_ERR_OUTPUT_TOO_SMALL,
        sp,
        k,
        n,
        true,
        true,
        None,
        Some((small.as_mut_ptr(), small.len())),
        dp,
    );
    // k·n·d overflows.
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        usize::MAX / 2,
        true,
        true,
        None,
        None,
        dp,
    );
    // Overlaps: out inside the scratch; the scratch over a workspace; out over the states;
    // samples_done inside out.
    let half = buf.len() / 2;
    let bp = buf.as_mut_ptr();
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        Some((bp, half + 10)),
        Some((bp.wrapping_add(half), half)),
        dp,
    );
    // A scratch of one element inside chain 1's workspace: refused for the overlap, which is
    // checked before the scratch's length (a full-length scratch there would also reach past the
    // workspace into whatever the allocator put next, and be refused or not by chance).
    let wsp = chains.ws[1].as_mut_ptr();
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        Some((wsp, 1)),
        None,
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        None,
        Some((sp.cast(), 1000)),
        dp,
    );
    refused(
        &mut chains,
        SGS_ERR_INVALID_ARGUMENT,
        sp,
        k,
        n,
        true,
        true,
        None,
        Some((bp, 100)),
        bp.cast(),
    );
    assert!(
        done.iter().all(|&v| v == usize::MAX),
        "samples_done untouched"
    );
    // A state of another dimension; an uninitialised one; a state moved byte-wise.
    let other = Chains::<Amg64>::new(2, d + 1, |c| amagold_cfg(c, |_| {}));
    let mut mixed = Chains::<Amg64>::new(2, d, |c| amagold_cfg(c, |_| {}));
    // Swap in the odd one through a copy into the second slot: `copy` re-homes it there.
    let ws_len = other.ws[0].len();
    let mut ws_new = vec![0.0f64; ws_len];
    // SAFETY: initialised source; the destination slot is a state of the same type.
    let r = unsafe {
        sgs_amagold_copy(
            &mut mixed.states[1],
            ws_new.as_mut_ptr(),
            ws_new.len(),
            &other.states[0],
        )
    };
    assert_eq!(r, SGS_OK);
    mixed.ws[1] = ws_new;
    mixed.d = d + 1;
    let mp = mixed.states.as_mut_ptr();
    let mut out = vec![0.0f64; 100];
    let mut scr = vec![0.0f64; 10_000];
    // SAFETY: valid buffers; dimensions differ.
    let r = unsafe {
        Amg64::run_batch(
            mp,
            2,
            2,
            true,
            true,
            &mut Model::default(),
            scr.as_mut_ptr(),
            scr.len(),
            4,
            out.as_mut_ptr(),
            out.len(),
            null(),
            null(),
        )
    };
    assert_eq!(r, SGS_ERR_LENGTH_MISMATCH);
    let _ = other.k();
    // SAFETY: a zeroed state is "not initialised".
    let mut zeroed: Vec<sgs_amagold> = vec![unsafe { core::mem::zeroed() }, unsafe {
        core::mem::zeroed()
    }];
    // SAFETY: as above.
    let r = unsafe {
        Amg64::run_batch(
            zeroed.as_mut_ptr(),
            2,
            2,
            true,
            true,
            &mut Model::default(),
            scr.as_mut_ptr(),
            scr.len(),
            4,
            out.as_mut_ptr(),
            out.len(),
            null(),
            null(),
        )
    };
    assert_eq!(r, SGS_ERR_NOT_INITIALISED);
    // SGHMC and SGLD take no energy: NULL is fine there.
    let mut sg = Chains::<Sgh64>::new(2, 2, sghmc_cfg);
    // SAFETY: valid buffers.
    let r = unsafe {
        Sgh64::run_batch(
            sg.states.as_mut_ptr(),
            2,
            2,
            false,
            true,
            &mut Model::default(),
            scr.as_mut_ptr(),
            scr.len(),
            4,
            out.as_mut_ptr(),
            out.len(),
            null(),
            null(),
        )
    };
    assert_eq!(r, SGS_OK);
    // n = 0 succeeds with zero totals and out NULL.
    let mut dn = vec![9usize; 2];
    // SAFETY: n = 0: out unused.
    let r = unsafe {
        Sgh64::run_batch(
            sg.states.as_mut_ptr(),
            2,
            0,
            false,
            true,
            &mut Model::default(),
            scr.as_mut_ptr(),
            scr.len(),
            4,
            core::ptr::null_mut(),
            0,
            dn.as_mut_ptr(),
            null(),
        )
    };
    assert_eq!(r, SGS_OK);
    assert_eq!(dn, vec![0, 0]);
}

#[test]
fn scratch_len_formula() {
    assert_eq!(
        sgs_amagold_batch_scratch_len(4, 3, 11),
        4 * (6 + 6 + 11 * 8)
    );
    assert_eq!(sgs_sghmc_batch_scratch_len(0, 3, 11), 0);
    assert_eq!(sgs_sgld_batch_scratch_len(2, 0, 11), 0);
    assert_eq!(sgs_amagold_batch_scratch_len(usize::MAX, 3, 1), usize::MAX);
    assert_eq!(sgs_amagold_batch_scratch_len(1, usize::MAX, 1), usize::MAX);
}

/// ∇U = x − μ with μ = 0.7·(chain index): per-chain targets, so the rows' chain indices matter.
unsafe extern "C" fn gradient_mu(
    ud: *mut c_void,
    x: *const f64,
    d: usize,
    _seed: u64,
    g: *mut f64,
) -> i32 {
    // SAFETY: `ud` is the chain's μ; d values at x and g (callback contract).
    let (mu, x, g) = unsafe {
        (
            *ud.cast::<f64>(),
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    for (gi, xi) in g.iter_mut().zip(x) {
        *gi = xi - mu;
    }
    SGS_CB_OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn gradient_mu_k(
    _: *mut c_void,
    x: *const f64,
    k: usize,
    d: usize,
    seeds: *const u64,
    chains: *const usize,
    g: *mut f64,
    _: *mut i32,
) -> i32 {
    // SAFETY: callback contract: k rows, k seeds and chain indices.
    let (chains, seeds) = unsafe {
        (
            core::slice::from_raw_parts(chains, k),
            core::slice::from_raw_parts(seeds, k),
        )
    };
    for r in 0..k {
        let mut mu = 0.7 * chains[r] as f64;
        // SAFETY: row r of x and g; `mu` a live local.
        unsafe {
            gradient_mu(
                (&mut mu as *mut f64).cast(),
                x.add(r * d),
                d,
                seeds[r],
                g.add(r * d),
            )
        };
    }
    SGS_CB_OK
}

#[test]
fn chain_index_of_each_row_is_its_chain() {
    let (k, d, n) = (4usize, 2usize, 40usize);
    let mus: Vec<f64> = (0..k).map(|c| 0.7 * c as f64).collect();
    let start =
        |states: &mut Vec<sgs_sgld>, ws: &mut Vec<Vec<f64>>, ud: &dyn Fn(usize) -> *mut c_void| {
            for c in 0..k {
                let mut cfg = sgs_sgld_config_default(0.1);
                cfg.seed = 40 + c as u64;
                cfg.steps = 3;
                let th = [0.1, -0.2];
                // SAFETY: zeroed state, live workspace (its heap buffer never moves), live μ.
                let r = unsafe {
                    sgs_sgld_init(
                        &mut states[c],
                        &cfg,
                        th.as_ptr(),
                        d,
                        ws[c].as_mut_ptr(),
                        ws[c].len(),
                        Some(gradient_mu),
                        ud(c),
                    )
                };
                assert_eq!(r, sgs_status::SGS_OK);
            }
        };
    let fresh = || -> (Vec<sgs_sgld>, Vec<Vec<f64>>) {
        // SAFETY: zero is a state's "not initialised" value.
        let states = (0..k).map(|_| unsafe { core::mem::zeroed() }).collect();
        (states, vec![vec![0.0; sgs_sgld_workspace_len(d)]; k])
    };
    let mut mus_mut = mus.clone();
    let mu_ptr = mus_mut.as_mut_ptr();
    let (mut a, mut wa) = fresh();
    start(&mut a, &mut wa, &|c| mu_ptr.wrapping_add(c).cast());
    let mut rows = Vec::new();
    for s in a.iter_mut() {
        let mut out = vec![0.0; n * d];
        assert_eq!(
            Sgl64::run(s, &mut out, n, core::ptr::null_mut()),
            sgs_status::SGS_OK
        );
        rows.extend(out);
    }
    for m in [16, 0] {
        let (mut b, mut wb) = fresh();
        start(&mut b, &mut wb, &|c| mu_ptr.wrapping_add(c).cast());
        let mut scratch = vec![0.0; sgs_sgld_batch_scratch_len(k, d, m)];
        let mut out = vec![0.0; k * n * d];
        // SAFETY: buffers sized as documented.
        let r = unsafe {
            sgs_sgld_run_batch(
                b.as_mut_ptr(),
                k,
                n,
                None,
                Some(gradient_mu_k),
                core::ptr::null_mut(),
                scratch.as_mut_ptr(),
                scratch.len(),
                m,
                out.as_mut_ptr(),
                out.len(),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        };
        assert_eq!(r, sgs_status::SGS_OK);
        assert_eq!(out, rows, "max_calls {m}");
    }
}

/// `sgs_amagold_run_batch_infos` of n rows with a cache of 16 calls on the test's buffers.
///
/// # Safety
/// `infos` valid for k·n records (or deliberately not, for the bad-input test).
unsafe fn batch_infos(
    chains: &mut Chains<Amg64>,
    n: usize,
    model: &mut Model,
    scratch: &mut [f64],
    out: &mut [f64],
    done: &mut [usize],
    infos: *mut sgs_amagold_info,
) -> sgs_status {
    let k = chains.k();
    // SAFETY: live buffers of their lengths; `infos` per the contract of the caller.
    unsafe {
        sgs_amagold_run_batch_infos(
            chains.states.as_mut_ptr(),
            k,
            n,
            Some(energy_k::<f64>),
            Some(gradient_k::<f64>),
            (model as *mut Model).cast(),
            scratch.as_mut_ptr(),
            scratch.len(),
            16,
            out.as_mut_ptr(),
            out.len(),
            done.as_mut_ptr(),
            core::ptr::null_mut(),
            infos,
        )
    }
}

/// `…_run_batch_infos`: each chain's info record of each iteration, equal to what the chain's
/// own `…_step` reports (the same rows as `…_run_batch` too); after an abort the records of the
/// rows written, the rest untouched; bad `infos` refused before anything is written.
#[test]
fn run_batch_infos_records_every_iteration() {
    let cfg = |c| amagold_cfg(c, |x| x.jitter_steps = 1);
    let (k, d, n) = (3usize, 2usize, 25usize);
    // Reference: each chain by its own steps.
    let mut reference = Chains::<Amg64>::new(k, d, cfg);
    let mut want = Vec::new();
    for s in reference.states.iter_mut() {
        for _ in 0..n {
            // SAFETY: info records are plain data; zero is a valid value.
            let mut info: sgs_amagold_info = unsafe { core::mem::zeroed() };
            // SAFETY: an initialised state, a live record.
            let st = unsafe { sgs_amagold_step(s, &mut info) };
            assert_eq!(st, sgs_status::SGS_OK);
            want.push(format!("{info:?}"));
        }
    }
    let run = |abort_at: Option<usize>| {
        let mut chains = Chains::<Amg64>::new(k, d, cfg);
        let mut model = Model {
            abort_at,
            ..Model::default()
        };
        let mut scratch = vec![0.0f64; sgs_amagold_batch_scratch_len(k, d, 16)];
        let mut out = vec![0.0f64; k * n * d];
        let mut done = vec![0usize; k];
        // SAFETY: info records are plain data; zero is a valid value.
        let mut infos: Vec<sgs_amagold_info> =
            (0..k * n).map(|_| unsafe { core::mem::zeroed() }).collect();
        // SAFETY: every buffer sized as documented.
        let st = unsafe {
            batch_infos(
                &mut chains,
                n,
                &mut model,
                &mut scratch,
                &mut out,
                &mut done,
                infos.as_mut_ptr(),
            )
        };
        let got: Vec<String> = infos.iter().map(|i| format!("{i:?}")).collect();
        (st, done, got)
    };
    let (st, done, got) = run(None);
    assert_eq!(st, sgs_status::SGS_OK);
    assert_eq!(done, vec![n; k]);
    assert_eq!(got, want);
    // Stopped early: the written rows' records, zeros after them.
    // SAFETY: as above.
    let zero = format!("{:?}", unsafe { core::mem::zeroed::<sgs_amagold_info>() });
    let (st, done, got) = run(Some(40));
    assert_eq!(st, sgs_status::SGS_ERR_CALLBACK_ABORTED);
    for c in 0..k {
        assert!(done[c] < n);
        assert_eq!(
            got[c * n..c * n + done[c]],
            want[c * n..c * n + done[c]],
            "chain {c}"
        );
        assert!(got[c * n + done[c]..(c + 1) * n].iter().all(|g| *g == zero));
    }
}

#[test]
fn run_batch_infos_refuses_bad_records_and_writes_nothing() {
    let cfg = |c| amagold_cfg(c, |_| {});
    let (k, d, n) = (2usize, 2usize, 4usize);
    let mut chains = Chains::<Amg64>::new(k, d, cfg);
    let pos = chains.positions();
    let mut scratch = vec![0.0f64; sgs_amagold_batch_scratch_len(k, d, 16)];
    let mut out = vec![-7.0f64; k * n * d];
    let mut done = vec![9usize; k];
    let words = core::mem::size_of::<sgs_amagold_info>() * (k * n + 1) / 8 + 1;
    let mut raw = vec![0u64; words];
    let misaligned = (raw.as_mut_ptr() as *mut u8)
        .wrapping_add(1)
        .cast::<sgs_amagold_info>();
    let over_scratch = scratch.as_mut_ptr().cast::<sgs_amagold_info>();
    let over_out = out.as_mut_ptr().cast::<sgs_amagold_info>();
    for (what, infos) in [
        ("misaligned", misaligned),
        ("over the scratch", over_scratch),
        ("over the output", over_out),
    ] {
        let scratch_before = scratch.clone();
        let out_before = out.clone();
        let mut model = Model::default();
        // SAFETY: every pointer valid for its length (the records lie inside live buffers).
        let st = unsafe {
            batch_infos(
                &mut chains,
                n,
                &mut model,
                &mut scratch,
                &mut out,
                &mut done,
                infos,
            )
        };
        assert_eq!(st, sgs_status::SGS_ERR_INVALID_ARGUMENT, "{what}");
        assert_eq!(model.batch_calls, 0, "{what}");
        assert_eq!(done, vec![9; k], "{what}");
        assert_eq!(chains.positions(), pos, "{what}");
        assert!(scratch == scratch_before && out == out_before, "{what}");
    }
}
