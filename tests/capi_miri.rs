//! Every sampler kind driven through the C functions from Rust, small enough to run under Miri
//! (scripts/test-miri.sh): init, step, run, every getter, and a callback ABORT that must leave
//! the chain as it was (a retry repeats the same draws); and the SVGD iteration in phases. Rust `extern "C"` callbacks receive a
//! Rust struct as `user_data`, as a C caller's would. Also part of the ordinary `cargo test`.
#![cfg(feature = "ffi")]

use core::ffi::c_void;
use core::ffi::CStr;
use sgsample::ffi::*;

/// U = ½|x|²; counts the calls and aborts at call `abort_at` (1-based) if set.
#[derive(Default)]
struct Model {
    calls: u64,
    abort_at: Option<u64>,
}

impl Model {
    fn tick(&mut self) -> i32 {
        self.calls += 1;
        if Some(self.calls) == self.abort_at {
            SGS_CB_ABORT
        } else {
            SGS_CB_OK
        }
    }
}

trait F: Copy + Into<f64> + PartialEq + core::fmt::Debug {
    fn of(v: f64) -> Self;
}
impl F for f64 {
    fn of(v: f64) -> Self {
        v
    }
}
impl F for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
}

unsafe extern "C" fn energy<T: F>(ud: *mut c_void, x: *const T, d: usize, u: *mut f64) -> i32 {
    // SAFETY: `ud` is the test's `Model`; `x` holds d values and `u` is writable (contract).
    let (m, x) = unsafe { (&mut *ud.cast::<Model>(), core::slice::from_raw_parts(x, d)) };
    let e = 0.5 * x.iter().map(|&v| v.into() * v.into()).sum::<f64>();
    // SAFETY: as above.
    unsafe { u.write(e) };
    m.tick()
}

unsafe extern "C" fn gradient<T: F>(
    ud: *mut c_void,
    x: *const T,
    d: usize,
    seed: u64,
    g: *mut T,
) -> i32 {
    // SAFETY: as in `energy`; `g` holds d writable values.
    let (m, x, g) = unsafe {
        (
            &mut *ud.cast::<Model>(),
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    let w = (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
    for (gi, &xi) in g.iter_mut().zip(x) {
        *gi = T::of(xi.into() + 0.1 * w);
    }
    m.tick()
}

unsafe extern "C" fn gradients<T: F>(
    ud: *mut c_void,
    xs: *const T,
    n: usize,
    d: usize,
    _seed: u64,
    gs: *mut T,
) -> i32 {
    // SAFETY: as in `gradient`, for n·d values.
    let (m, xs, gs) = unsafe {
        (
            &mut *ud.cast::<Model>(),
            core::slice::from_raw_parts(xs, n * d),
            core::slice::from_raw_parts_mut(gs, n * d),
        )
    };
    for (g, &x) in gs.iter_mut().zip(xs) {
        *g = x;
    }
    m.tick()
}

/// The model behind a `user_data` made by `Box::into_raw` (no callback is running).
fn m<'a>(ud: *mut c_void) -> &'a mut Model {
    // SAFETY: `ud` comes from `Box::into_raw` and is freed only at the end of its test.
    unsafe { &mut *ud.cast::<Model>() }
}

/// Frees a model made by `Box::into_raw`.
fn free(ud: *mut c_void) {
    // SAFETY: as in `m`; called once, after the last use.
    drop(unsafe { Box::from_raw(ud.cast::<Model>()) });
}

fn ok(s: sgs_status) {
    // SAFETY: a static nul-terminated string.
    let msg = unsafe { CStr::from_ptr(sgs_status_str(s as i32)) };
    assert_eq!(s, sgs_status::SGS_OK, "{msg:?}");
}

const D: usize = 2;

/// A by-value copy of a filled state, as C's `s2 = s1;` makes: a typed read of the whole opaque
/// struct, undefined behaviour (reported by Miri) if the library left any byte of it
/// uninitialised, such as padding between the fields it stored. The copy lives at another
/// address, so `probe` on it must return `SGS_ERR_STATE_MOVED`.
///
/// # Safety
/// `st` is a state filled by the library; `probe` calls a getter on the state it is given.
unsafe fn by_value_copy_is_moved<S>(st: &S, probe: impl Fn(*const S) -> sgs_status) {
    // SAFETY: `st` is a valid, aligned `S`; the read is the typed copy under test.
    let copy: S = unsafe { core::ptr::read(st) };
    assert_eq!(probe(&copy), sgs_status::SGS_ERR_STATE_MOVED);
}

/// One chain kind, both float types: init, step, run, getters, then an ABORT mid-step.
macro_rules! chain_case {
    ($name:ident, $T:ty, $S:ident, $cfg:expr, [$($energy:expr)?], $ws_len:ident, $init:ident,
     $step:ident, $run:ident, $position:ident, $iterations:ident, $divergences:ident,
     $dim:ident, $copy:ident, $Info:ty, $Sum:ty) => {
        #[test]
        fn $name() {
            // The model lives behind `user_data` only: the library and the test reach it via `ud`.
 let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
            // SAFETY: a zeroed opaque state is the documented "not initialised" value.
            let mut st: $S = unsafe { core::mem::zeroed() };
            let theta0: [$T; D] = [0.5 as $T, -0.25 as $T];
            let mut ws = vec![0 as $T; $ws_len(D)];
            let cfg = $cfg;
            // SAFETY: every call below gets pointers to live locals of the stated lengths; the
            // callbacks follow the contract; the model outlives the state's use.
            unsafe {
                let mut iters = 0u64;
                assert_eq!($iterations(&st, &mut iters), sgs_status::SGS_ERR_NOT_INITIALISED);
                ok($init(&mut st, &cfg, theta0.as_ptr(), D, ws.as_mut_ptr(), ws.len(),
                    $(Some($energy),)? Some(gradient::<$T>), ud));
                let probe = |p: *const $S| $iterations(p, &mut 0u64);
                by_value_copy_is_moved(&st, probe);
                let mut info: $Info = core::mem::zeroed();
                ok($step(&mut st, &mut info));
                ok($step(&mut st, core::ptr::null_mut()));
                let mut out = [0 as $T; 3 * D];
                let mut done = 0usize;
                let mut sum: $Sum = core::mem::zeroed();
                ok($run(&mut st, 3, out.as_mut_ptr(), out.len(), &mut done, &mut sum));
                assert_eq!((done, sum.iterations), (3, 3));
                ok($run(&mut st, 0, core::ptr::null_mut(), 0, &mut done, &mut sum));
                let mut pos = [0 as $T; D];
                ok($position(&st, pos.as_mut_ptr(), D));
                assert_eq!(&pos[..], &out[2 * D..]);
                let (mut divs, mut d) = (0u64, 0usize);
                ok($iterations(&st, &mut iters));
                ok($divergences(&st, &mut divs));
                ok($dim(&st, &mut d));
                assert_eq!((iters, d), (5, D));
                assert!(divs <= iters);
                by_value_copy_is_moved(&st, probe);
                // The supported copy fills a zeroed state: no uninitialised byte either, and it
                // reads as its source.
                let mut dup: $S = core::mem::zeroed();
                let mut ws2 = vec![0 as $T; ws.len()];
                ok($copy(&mut dup, ws2.as_mut_ptr(), ws2.len(), &st));
                by_value_copy_is_moved(&dup, probe);
                let mut dpos = [0 as $T; D];
                ok($position(&dup, dpos.as_mut_ptr(), D));
                assert_eq!(dpos, pos);
                // A callback ABORT leaves the chain (position, counters) as it was, and a retry
                // repeats the same draws.
                m(ud).abort_at = Some(m(ud).calls + 2);
                assert_eq!($step(&mut st, &mut info), sgs_status::SGS_ERR_CALLBACK_ABORTED);
                let mut after = [0 as $T; D];
                ok($position(&st, after.as_mut_ptr(), D));
                ok($iterations(&st, &mut iters));
                assert_eq!((after, iters), (pos, 5));
                m(ud).abort_at = None;
                // The retry after the ABORT repeats the same draws: run the step, put back the
                // state (memcpy) and the workspace as they were, and run it again.
                // A typed copy (`s2 = s1;`), put back at the same address.
                let saved: $S = core::ptr::read(&st);
                let ws_saved = ws.clone();
                ok($step(&mut st, &mut info));
                ok($position(&st, pos.as_mut_ptr(), D));
                core::ptr::write(&mut st, saved);
                ws.copy_from_slice(&ws_saved);
                ok($step(&mut st, &mut info));
                ok($position(&st, after.as_mut_ptr(), D));
                assert_eq!(pos, after);
                assert!(pos.iter().all(|v| (*v as f64).is_finite()));
                // Misuse: a NULL state and an output inside the workspace.
                assert_eq!($step(core::ptr::null_mut(), &mut info), sgs_status::SGS_ERR_NULL_POINTER);
                assert_eq!($position(&st, ws.as_mut_ptr(), D), sgs_status::SGS_ERR_INVALID_ARGUMENT);
            }
            free(ud);
        }
    };
}

chain_case!(
    amagold_f64,
    f64,
    sgs_amagold,
    {
        let mut c = sgs_amagold_config_default(0.1);
        c.steps = 2;
        c
    },
    [energy::<f64>],
    sgs_amagold_workspace_len,
    sgs_amagold_init,
    sgs_amagold_step,
    sgs_amagold_run,
    sgs_amagold_position,
    sgs_amagold_iterations,
    sgs_amagold_divergences,
    sgs_amagold_dim,
    sgs_amagold_copy,
    sgs_amagold_info,
    sgs_amagold_run_summary
);
chain_case!(
    amagold_f32,
    f32,
    sgs_amagold_f32,
    {
        let mut c = sgs_amagold_config_default(0.1);
        c.steps = 2;
        c.variant = SGS_VARIANT_NON_REVERSIBLE;
        c
    },
    [energy::<f32>],
    sgs_amagold_workspace_len_f32,
    sgs_amagold_init_f32,
    sgs_amagold_step_f32,
    sgs_amagold_run_f32,
    sgs_amagold_position_f32,
    sgs_amagold_iterations_f32,
    sgs_amagold_divergences_f32,
    sgs_amagold_dim_f32,
    sgs_amagold_copy_f32,
    sgs_amagold_info,
    sgs_amagold_run_summary
);
chain_case!(
    sghmc_f64,
    f64,
    sgs_sghmc,
    {
        let mut c = sgs_sghmc_config_default(0.1);
        c.steps = 2;
        c
    },
    [],
    sgs_sghmc_workspace_len,
    sgs_sghmc_init,
    sgs_sghmc_step,
    sgs_sghmc_run,
    sgs_sghmc_position,
    sgs_sghmc_iterations,
    sgs_sghmc_divergences,
    sgs_sghmc_dim,
    sgs_sghmc_copy,
    sgs_sghmc_info,
    sgs_sghmc_run_summary
);
chain_case!(
    sghmc_f32,
    f32,
    sgs_sghmc_f32,
    {
        let mut c = sgs_sghmc_config_default(0.1);
        c.steps = 2;
        c
    },
    [],
    sgs_sghmc_workspace_len_f32,
    sgs_sghmc_init_f32,
    sgs_sghmc_step_f32,
    sgs_sghmc_run_f32,
    sgs_sghmc_position_f32,
    sgs_sghmc_iterations_f32,
    sgs_sghmc_divergences_f32,
    sgs_sghmc_dim_f32,
    sgs_sghmc_copy_f32,
    sgs_sghmc_info,
    sgs_sghmc_run_summary
);
chain_case!(
    sgld_f64,
    f64,
    sgs_sgld,
    {
        let mut c = sgs_sgld_config_default(0.1);
        c.steps = 2;
        c
    },
    [],
    sgs_sgld_workspace_len,
    sgs_sgld_init,
    sgs_sgld_step,
    sgs_sgld_run,
    sgs_sgld_position,
    sgs_sgld_iterations,
    sgs_sgld_divergences,
    sgs_sgld_dim,
    sgs_sgld_copy,
    sgs_sgld_info,
    sgs_sgld_run_summary
);
chain_case!(
    sgld_f32,
    f32,
    sgs_sgld_f32,
    {
        let mut c = sgs_sgld_config_default(0.1);
        c.steps = 2;
        c
    },
    [],
    sgs_sgld_workspace_len_f32,
    sgs_sgld_init_f32,
    sgs_sgld_step_f32,
    sgs_sgld_run_f32,
    sgs_sgld_position_f32,
    sgs_sgld_iterations_f32,
    sgs_sgld_divergences_f32,
    sgs_sgld_dim_f32,
    sgs_sgld_copy_f32,
    sgs_sgld_info,
    sgs_sgld_run_summary
);

/// The chain getters only some samplers have.
#[test]
fn amagold_and_sghmc_extra_getters() {
    // The model lives behind `user_data` only: the library and the test reach it via `ud`.
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    // SAFETY: as in the chain cases.
    unsafe {
        let mut st: sgs_amagold = core::mem::zeroed();
        let theta0 = [0.5, -0.25];
        let mut cfg = sgs_amagold_config_default(0.1);
        cfg.steps = 2;
        cfg.warmup = 2;
        // A warm-up with the approach (the default) needs 12·d more than the plain 6·d.
        let mut ws = vec![0.0; sgs_amagold_workspace_len_for(&cfg, D)];
        ok(sgs_amagold_init(
            &mut st,
            &cfg,
            theta0.as_ptr(),
            D,
            ws.as_mut_ptr(),
            ws.len(),
            Some(energy::<f64>),
            Some(gradient::<f64>),
            ud,
        ));
        let (mut e, mut h, mut w) = (0.0, 0.0, 0u32);
        let mut r = [0.0; D];
        ok(sgs_amagold_energy(&st, &mut e));
        assert_eq!(e, 0.5 * (0.25 + 0.0625));
        ok(sgs_amagold_step_size(&st, &mut h));
        ok(sgs_amagold_in_warmup(&st, &mut w));
        assert_eq!((h, w), (0.1, 1));
        ok(sgs_amagold_step(&mut st, core::ptr::null_mut()));
        ok(sgs_amagold_momentum(&st, r.as_mut_ptr(), D));
        let mut k = [0.0; D];
        ok(sgs_amagold_inverse_mass(&st, k.as_mut_ptr(), D));
        assert_eq!(k, [1.0; D]);

        // With a mass matrix (diagonal, then dense): the longer workspace, the estimate after
        // the warm-up's window, and a copy mid-window (it copies every coordinate the chain
        // uses).
        for mass in [SGS_MASS_DIAGONAL, SGS_MASS_DENSE] {
            let mut sm: sgs_amagold = core::mem::zeroed();
            let mut cp: sgs_amagold = core::mem::zeroed();
            let mut cfg = sgs_amagold_config_default(0.1);
            cfg.steps = 2;
            cfg.warmup = 20;
            cfg.mass = mass;
            let mut wsm = vec![0.0; sgs_amagold_workspace_len_for(&cfg, D)];
            let mut wcp = vec![0.0; sgs_amagold_workspace_len_for(&cfg, D)];
            ok(sgs_amagold_init(
                &mut sm,
                &cfg,
                theta0.as_ptr(),
                D,
                wsm.as_mut_ptr(),
                wsm.len(),
                Some(energy::<f64>),
                Some(gradient::<f64>),
                ud,
            ));
            for _ in 0..5 {
                ok(sgs_amagold_step(&mut sm, core::ptr::null_mut()));
            }
            ok(sgs_amagold_copy(&mut cp, wcp.as_mut_ptr(), wcp.len(), &sm));
            for _ in 0..20 {
                ok(sgs_amagold_step(&mut sm, core::ptr::null_mut()));
                ok(sgs_amagold_step(&mut cp, core::ptr::null_mut()));
            }
            let mut kc = [0.0; D];
            ok(sgs_amagold_inverse_mass(&sm, k.as_mut_ptr(), D));
            ok(sgs_amagold_inverse_mass(&cp, kc.as_mut_ptr(), D));
            assert_eq!(k, kc);
            // The target is a standard normal, so a coordinate whose window variance falls
            // under the curvature floor (1/H_ii = 1) is held at 1; at least one moved.
            // (1 up to the finite differences' rounding.)
            let floored = |v: f64| v >= 1.0 - 1e-9;
            assert!(
                k.iter().all(|&v| floored(v)) && k.iter().any(|&v| v > 1.0 + 1e-9),
                "{k:?}"
            );
            let mut rep = core::mem::zeroed::<sgs_warmup_report>();
            ok(sgs_amagold_warmup_report(&sm, &mut rep));
            assert!(rep.verdict == SGS_WARMUP_OK || rep.verdict == SGS_WARMUP_SUSPECT);
        }

        let mut sg: sgs_sghmc_f32 = core::mem::zeroed();
        let th = [1.0f32, 2.0];
        let mut ws32 = vec![0.0f32; sgs_sghmc_workspace_len_f32(D)];
        let cfg = sgs_sghmc_config_default(0.05);
        ok(sgs_sghmc_init_f32(
            &mut sg,
            &cfg,
            th.as_ptr(),
            D,
            ws32.as_mut_ptr(),
            ws32.len(),
            Some(gradient::<f32>),
            ud,
        ));
        ok(sgs_sghmc_step_f32(&mut sg, core::ptr::null_mut()));
        let mut r32 = [0.0f32; D];
        ok(sgs_sghmc_momentum_f32(&sg, r32.as_mut_ptr(), D));
        assert!(r32.iter().all(|v| v.is_finite()));
    }
    free(ud);
}

/// One call of each function of the warm-up API (f64): the size query, the step-size and mass
/// setters, the dense getter, the report and the comparison of two chains.
#[test]
fn amagold_warmup_api() {
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    // SAFETY: as in the chain cases; every output is a local of the documented size.
    unsafe {
        assert_eq!(sgs_amagold_workspace_len_for(core::ptr::null(), D), 0);
        let theta0 = [0.5, -0.25];
        let mut chains: [sgs_amagold; 2] = core::mem::zeroed();
        let mut wss = Vec::new();
        for (c, mass) in chains.iter_mut().zip([SGS_MASS_DIAGONAL, SGS_MASS_DENSE]) {
            let mut cfg = sgs_amagold_config_default(0.1);
            cfg.steps = 2;
            cfg.mass = mass;
            let mut ws = vec![0.0; sgs_amagold_workspace_len_for(&cfg, D)];
            ok(sgs_amagold_init(
                c,
                &cfg,
                theta0.as_ptr(),
                D,
                ws.as_mut_ptr(),
                ws.len(),
                Some(energy::<f64>),
                Some(gradient::<f64>),
                ud,
            ));
            wss.push(ws);
        }
        let [diag, dense] = &mut chains;
        ok(sgs_amagold_set_step_size(diag, 0.2));
        ok(sgs_amagold_set_inverse_mass(diag, [0.5, 2.0].as_ptr(), D));
        ok(sgs_amagold_set_inverse_mass_dense(
            dense,
            [1.5, 0.2, 0.2, 0.8].as_ptr(),
            D * D,
        ));
        ok(sgs_amagold_step(diag, core::ptr::null_mut()));
        ok(sgs_amagold_step(dense, core::ptr::null_mut()));
        let mut k = [0.0; D * D];
        ok(sgs_amagold_inverse_mass_dense(dense, k.as_mut_ptr(), D * D));
        assert!(k[1] == k[2] && (k[0] - 1.5).abs() < 1e-12 && (k[3] - 0.8).abs() < 1e-12);
        let mut rep = core::mem::zeroed::<sgs_warmup_report>();
        ok(sgs_amagold_warmup_report(diag, &mut rep));
        assert_eq!(rep.verdict, SGS_WARMUP_NONE);
        let list: [*const sgs_amagold; 2] = [&*diag, &*dense];
        let mut out = [core::mem::zeroed::<sgs_warmup_report>(); 2];
        ok(sgs_amagold_warmup_compare(
            list.as_ptr(),
            2,
            out.as_mut_ptr(),
            2,
        ));
        assert!(out.iter().all(|r| r.verdict == SGS_WARMUP_NONE));
        drop(wss);
    }
    free(ud);
}

macro_rules! svgd_case {
    ($name:ident, $T:ty, $S:ident, $ws_len:ident, $index_len:ident, $init:ident, $step:ident,
     $run:ident, $particles:ident, $force:ident, $iterations:ident, $num:ident, $dim:ident,
     $copy:ident, $batched:expr) => {
        #[test]
        fn $name() {
            const N: usize = 4;
            // The model lives behind `user_data` only: the library and the test reach it via `ud`.
            let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
            // SAFETY: as in the chain cases.
            unsafe {
                let mut st: $S = core::mem::zeroed();
                let mut cfg = sgs_svgd_config_default(2, 0.05);
                cfg.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
                let mut xs: Vec<$T> = (0..N * D).map(|i| i as $T * 0.25 - 1.0).collect();
                let mut ws = vec![0 as $T; $ws_len(N, D, &cfg)];
                let mut idx = vec![0u32; $index_len(N)];
                let (g, gs) = if $batched {
                    (None, Some(gradients::<$T> as _))
                } else {
                    (Some(gradient::<$T> as _), None)
                };
                ok($init(
                    &mut st,
                    &cfg,
                    xs.as_mut_ptr(),
                    N,
                    D,
                    ws.as_mut_ptr(),
                    ws.len(),
                    idx.as_mut_ptr(),
                    idx.len(),
                    g,
                    gs,
                    ud,
                ));
                let probe = |p: *const $S| $iterations(p, &mut 0u64);
                by_value_copy_is_moved(&st, probe);
                let mut info: sgs_svgd_info = core::mem::zeroed();
                ok($step(&mut st, &mut info));
                let mut sum: sgs_svgd_run_summary = core::mem::zeroed();
                ok($run(&mut st, 2, &mut sum));
                assert_eq!(sum.iterations, 2);
                let mut out = vec![0 as $T; N * D];
                ok($particles(&st, out.as_mut_ptr(), out.len()));
                ok($force(&st, out.as_mut_ptr(), out.len()));
                let (mut it, mut n, mut d) = (0u64, 0usize, 0usize);
                ok($iterations(&st, &mut it));
                ok($num(&st, &mut n));
                ok($dim(&st, &mut d));
                assert_eq!((it, n, d), (3, N, D));
                by_value_copy_is_moved(&st, probe);
                let mut dup: $S = core::mem::zeroed();
                let (mut xs2, mut ws2, mut idx2) = (xs.clone(), ws.clone(), idx.clone());
                ok($copy(
                    &mut dup,
                    xs2.as_mut_ptr(),
                    xs2.len(),
                    ws2.as_mut_ptr(),
                    ws2.len(),
                    idx2.as_mut_ptr(),
                    idx2.len(),
                    &st,
                ));
                by_value_copy_is_moved(&dup, probe);
                // ABORT: the particles stay where they were.
                ok($particles(&st, out.as_mut_ptr(), out.len()));
                m(ud).abort_at = Some(m(ud).calls + 1);
                assert_eq!(
                    $step(&mut st, &mut info),
                    sgs_status::SGS_ERR_CALLBACK_ABORTED
                );
                let mut after = vec![0 as $T; N * D];
                ok($particles(&st, after.as_mut_ptr(), after.len()));
                assert_eq!(out, after);
                m(ud).abort_at = None;
                ok($step(&mut st, &mut info));
                // The particles are the caller's buffer: the getter copies exactly them.
                ok($particles(&st, out.as_mut_ptr(), out.len()));
                assert_eq!(out, xs);
            }
            free(ud);
        }
    };
}

svgd_case!(
    svgd_f64,
    f64,
    sgs_svgd,
    sgs_svgd_workspace_len,
    sgs_svgd_index_len,
    sgs_svgd_init,
    sgs_svgd_step,
    sgs_svgd_run,
    sgs_svgd_particles,
    sgs_svgd_force,
    sgs_svgd_iterations,
    sgs_svgd_num_particles,
    sgs_svgd_dim,
    sgs_svgd_copy,
    false
);
svgd_case!(
    svgd_f32,
    f32,
    sgs_svgd_f32,
    sgs_svgd_workspace_len_f32,
    sgs_svgd_index_len_f32,
    sgs_svgd_init_f32,
    sgs_svgd_step_f32,
    sgs_svgd_run_f32,
    sgs_svgd_particles_f32,
    sgs_svgd_force_f32,
    sgs_svgd_iterations_f32,
    sgs_svgd_num_particles_f32,
    sgs_svgd_dim_f32,
    sgs_svgd_copy_f32,
    true
);

#[test]
fn minibatch_and_status_strings() {
    let mut out = [0u64; 5];
    // SAFETY: a live array of 5.
    ok(unsafe { sgs_minibatch(7, 10, out.as_mut_ptr(), out.len()) });
    assert!(out.iter().all(|&i| i < 10));
    for s in [-1, 0, 1, 11, 24, 1000] {
        // SAFETY: static nul-terminated strings.
        assert!(!unsafe { CStr::from_ptr(sgs_status_str(s)) }
            .to_bytes()
            .is_empty());
    }
}

/// `sgs_svgd_init` of an f64 system of `xs.len() / D` particles with the `gradient` callback.
/// The pointers come from `Vec::as_mut_ptr`, not through a slice reborrow: under Tree Borrows a
/// reborrow's tag is frozen by the test's later reads of the vector (e.g. a clone), and the
/// library's writes through the pointer would then be undefined behaviour.
///
/// # Safety
/// The buffers and `ud` outlive every use of the state.
unsafe fn svgd_init(
    st: &mut sgs_svgd,
    cfg: &sgs_svgd_config,
    xs: &mut Vec<f64>,
    ws: &mut Vec<f64>,
    idx: &mut Vec<u32>,
    ud: *mut c_void,
) {
    // SAFETY: the caller's contract; lengths from the slices.
    ok(unsafe {
        sgs_svgd_init(
            st,
            cfg,
            xs.as_mut_ptr(),
            xs.len() / D,
            D,
            ws.as_mut_ptr(),
            ws.len(),
            idx.as_mut_ptr(),
            idx.len(),
            Some(gradient::<f64> as _),
            None,
            ud,
        )
    });
}

/// The iteration in phases under Miri (its pending-iteration slot is raw memory in the state:
/// a flag word and a `MaybeUninit`): begin, a range, cancel; begin, a NaN force put in, a
/// `finish` that fails; then a whole iteration, which must equal a step of a copy taken before.
/// After each the state reads as a state (a by-value copy of it is refused as moved).
#[test]
fn svgd_phases() {
    const N: usize = 4;
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    // SAFETY: as in the chain cases.
    unsafe {
        let mut st: sgs_svgd = core::mem::zeroed();
        let cfg = sgs_svgd_config_default(2, 0.05);
        let mut xs: Vec<f64> = (0..N * D).map(|i| i as f64 * 0.25 - 1.0).collect();
        let mut ws = vec![0.0; sgs_svgd_workspace_len(N, D, &cfg)];
        let mut idx = vec![0u32; sgs_svgd_index_len(N)];
        svgd_init(&mut st, &cfg, &mut xs, &mut ws, &mut idx, ud);
        let probe = |p: *const sgs_svgd| sgs_svgd_iterations(p, &mut 0u64);
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_gradients_range(&st, 0, N));
        ok(sgs_svgd_cancel(&mut st));
        by_value_copy_is_moved(&st, probe);
        let phi = [f64::NAN; N * D];
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_forces_put(&st, 0, N, phi.as_ptr(), phi.len()));
        assert_eq!(
            sgs_svgd_finish(&mut st, core::ptr::null_mut()),
            sgs_status::SGS_ERR_NON_FINITE
        );
        by_value_copy_is_moved(&st, probe);
        let mut dup: sgs_svgd = core::mem::zeroed();
        let (mut xs2, mut ws2, mut idx2) = (xs.clone(), ws.clone(), idx.clone());
        ok(sgs_svgd_copy(
            &mut dup,
            xs2.as_mut_ptr(),
            xs2.len(),
            ws2.as_mut_ptr(),
            ws2.len(),
            idx2.as_mut_ptr(),
            idx2.len(),
            &st,
        ));
        let (mut a, mut b): (sgs_svgd_info, sgs_svgd_info) =
            (core::mem::zeroed(), core::mem::zeroed());
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_gradients_range(&st, 2, N));
        ok(sgs_svgd_gradients_range(&st, 0, 2));
        ok(sgs_svgd_batches_range(&st, 0, N / 2));
        ok(sgs_svgd_finish(&mut st, &mut a));
        ok(sgs_svgd_step(&mut dup, &mut b));
        assert_eq!(
            (a.iteration, a.max_force.to_bits()),
            (b.iteration, b.max_force.to_bits())
        );
        assert_eq!(xs, xs2);
        by_value_copy_is_moved(&st, probe);
    }
    free(ud);
}

/// The iteration in phases with the Feistel permutation under Miri: the ranges write their index
/// entries and move their particles in place through raw rows (`SharedRows`), the puts too, and
/// `finish`/`cancel` put moved particles back. A whole iteration split in two (one range put in
/// from the other's moved rows, as another process would) equals a step of a copy; a cancel
/// after one range moved, and a failed finish after a NaN force put in, leave the particles as
/// they were.
#[test]
fn svgd_phases_feistel_in_place() {
    const N: usize = 6;
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    // SAFETY: as in the chain cases.
    unsafe {
        let mut cfg = sgs_svgd_config_default(2, 0.05);
        cfg.permutation = SGS_PERMUTATION_FEISTEL;
        let len = sgs_svgd_workspace_len(N, D, &cfg);
        let (mut st, mut tw): (sgs_svgd, sgs_svgd) = (core::mem::zeroed(), core::mem::zeroed());
        let mut xs: Vec<f64> = (0..N * D).map(|i| i as f64 * 0.25 - 1.0).collect();
        let (mut ws, mut idx) = (vec![0.0; len], vec![0u32; N]);
        let (mut xt, mut wt, mut it) = (xs.clone(), vec![0.0; len], vec![0u32; N]);
        svgd_init(&mut st, &cfg, &mut xs, &mut ws, &mut idx, ud);
        svgd_init(&mut tw, &cfg, &mut xt, &mut wt, &mut it, ud);
        let x0 = xs.clone();
        // One range moved, then cancelled.
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_gradients_range(&st, 0, 2));
        ok(sgs_svgd_batches_range(&st, 0, 1));
        ok(sgs_svgd_cancel(&mut st));
        assert_eq!(xs, x0);
        // A NaN force put in: the finish fails and puts the moved range back.
        let phi = [f64::NAN; 2 * D];
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_gradients_range(&st, 0, 4));
        ok(sgs_svgd_batches_range(&st, 0, 2));
        ok(sgs_svgd_forces_put(&st, 4, N, phi.as_ptr(), phi.len()));
        assert_eq!(
            sgs_svgd_finish(&mut st, core::ptr::null_mut()),
            sgs_status::SGS_ERR_NON_FINITE
        );
        assert_eq!(xs, x0);
        // A whole iteration: slots 4..6 put in from a second state's moved rows.
        let (mut st2, mut x2, mut w2, mut i2) = (
            core::mem::zeroed::<sgs_svgd>(),
            xs.clone(),
            vec![0.0; len],
            vec![0u32; N],
        );
        svgd_init(&mut st2, &cfg, &mut x2, &mut w2, &mut i2, ud);
        ok(sgs_svgd_begin(&mut st));
        ok(sgs_svgd_begin(&mut st2));
        ok(sgs_svgd_gradients_range(&st, 0, 4));
        ok(sgs_svgd_batches_range(&st, 0, 2));
        ok(sgs_svgd_gradients_range(&st2, 4, N));
        ok(sgs_svgd_batches_range(&st2, 2, 3));
        let mut w = 0;
        ok(sgs_svgd_move_width(&st2, &mut w));
        let mut rows = vec![0.0; 2 * w];
        ok(sgs_svgd_moves_get(
            &st2,
            4,
            N,
            rows.as_mut_ptr(),
            rows.len(),
        ));
        ok(sgs_svgd_moves_put(&st, 4, N, rows.as_ptr(), rows.len()));
        let (mut a, mut b): (sgs_svgd_info, sgs_svgd_info) =
            (core::mem::zeroed(), core::mem::zeroed());
        ok(sgs_svgd_finish(&mut st, &mut a));
        ok(sgs_svgd_step(&mut tw, &mut b));
        assert_eq!(
            (a.iteration, a.mean_force.to_bits()),
            (b.iteration, b.mean_force.to_bits())
        );
        assert_eq!(xs, xt);
        ok(sgs_svgd_cancel(&mut st2));
    }
    free(ud);
}

/// The sharded RBM-SVGD under Miri: two shards (each its state, block of particles and record
/// buffers, the records copied between them as an all-to-all would, then read in pieces where
/// they were written, `…_parts`) through two iterations, the
/// particles then those of `sgs_svgd_step` on the whole system; a cancel after begin leaves them
/// as they were; a by-value copy of a shard's state is refused as moved.
#[test]
fn svgd_shards() {
    const N: usize = 6;
    const R: usize = 2;
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    // SAFETY: as in the chain cases; every array from `Vec::as_mut_ptr` with its length.
    unsafe {
        let mut cfg = sgs_svgd_config_default(2, 0.05);
        cfg.permutation = SGS_PERMUTATION_FEISTEL;
        let x0: Vec<f64> = (0..N * D).map(|i| i as f64 * 0.25 - 1.0).collect();
        let mut tw: sgs_svgd = core::mem::zeroed();
        let (mut xt, mut wt, mut it) = (
            x0.clone(),
            vec![0.0; sgs_svgd_workspace_len(N, D, &cfg)],
            vec![0u32; N],
        );
        svgd_init(&mut tw, &cfg, &mut xt, &mut wt, &mut it, ud);
        let mut sts: Vec<sgs_svgd_shard> = (0..R).map(|_| core::mem::zeroed()).collect();
        let (mut xs, mut ws, mut ix, mut cm) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in 0..R {
            let (mut pf, mut pc, mut sf, mut sc) = (0, 0, 0, 0);
            ok(sgs_svgd_shard_ranges(
                N, 2, R, r, &mut pf, &mut pc, &mut sf, &mut sc,
            ));
            xs.push(x0[pf * D..(pf + pc) * D].to_vec());
            ws.push(vec![0.0; sgs_svgd_shard_workspace_len(N, D, R, r, &cfg)]);
            ix.push(vec![0u32; sgs_svgd_shard_index_len(N, R, r, &cfg)]);
            cm.push((pc, sc));
        }
        for r in 0..R {
            ok(sgs_svgd_shard_init(
                &mut sts[r],
                &cfg,
                N,
                D,
                R,
                r,
                xs[r].as_mut_ptr(),
                xs[r].len(),
                ws[r].as_mut_ptr(),
                ws[r].len(),
                ix[r].as_mut_ptr(),
                ix[r].len(),
                Some(gradient::<f64> as _),
                None,
                ud,
            ));
        }
        // The records for rank `to` out of every rank's output (`iw` indices, `w` values each).
        let deliver =
            |out: &Vec<(Vec<u32>, Vec<f64>, Vec<usize>)>, to: usize, iw: usize, w: usize| {
                let (mut i, mut v) = (Vec::new(), Vec::new());
                for (oi, ov, k) in out {
                    let at: usize = k[..to].iter().sum();
                    i.extend_from_slice(&oi[at * iw..(at + k[to]) * iw]);
                    v.extend_from_slice(&ov[at * w..(at + k[to]) * w]);
                }
                (i, v)
            };
        let begin = |sts: &mut Vec<sgs_svgd_shard>| {
            let mut sent = Vec::new();
            for (r, st) in sts.iter_mut().enumerate() {
                let c = cm[r].0;
                let (mut i, mut v, mut k) =
                    (vec![0u32; 2 * c], vec![0.0; 2 * c * D], vec![0usize; R]);
                ok(sgs_svgd_shard_begin(
                    st,
                    i.as_mut_ptr(),
                    i.len(),
                    v.as_mut_ptr(),
                    v.len(),
                    k.as_mut_ptr(),
                    R,
                ));
                sent.push((i, v, k));
            }
            sent
        };
        let sent = begin(&mut sts);
        assert!(!sent.is_empty());
        for st in sts.iter_mut() {
            ok(sgs_svgd_shard_cancel(st));
        }
        assert_eq!(xs.concat(), x0);
        // Process `to`'s pieces of every sender's output, read where they were written.
        let pieces = |out: &[(Vec<u32>, Vec<f64>, Vec<usize>)], to: usize, iw: usize, w: usize| {
            out.iter()
                .map(|(i, v, k)| {
                    let at: usize = k[..to].iter().sum();
                    sgs_svgd_shard_records {
                        idx: i[at * iw..].as_ptr(),
                        idx_len: k[to] * iw,
                        rows: v[at * w..].as_ptr(),
                        rows_len: k[to] * w,
                    }
                })
                .collect::<Vec<_>>()
        };
        // The second iteration reads its records in pieces (`…_parts`).
        for it in 0..2 {
            let sent = begin(&mut sts);
            let mut back = Vec::new();
            for (r, st) in sts.iter_mut().enumerate() {
                let m = cm[r].1;
                let (ii, iv) = deliver(&sent, r, 2, 2 * D);
                let (mut i, mut v, mut k) = (vec![0u32; m], vec![0.0; m * D], vec![0usize; R]);
                let ps = pieces(&sent, r, 2, 2 * D);
                ok(if it == 1 {
                    sgs_svgd_shard_forces_parts(
                        st,
                        ps.as_ptr(),
                        ps.len(),
                        i.as_mut_ptr(),
                        i.len(),
                        v.as_mut_ptr(),
                        v.len(),
                        k.as_mut_ptr(),
                        R,
                    )
                } else {
                    sgs_svgd_shard_forces(
                        st,
                        ii.as_ptr(),
                        ii.len(),
                        iv.as_ptr(),
                        iv.len(),
                        i.as_mut_ptr(),
                        i.len(),
                        v.as_mut_ptr(),
                        v.len(),
                        k.as_mut_ptr(),
                        R,
                    )
                });
                back.push((i, v, k));
            }
            let mut parts = [sgs_svgd_shard_partial::default(); R];
            for (r, st) in sts.iter_mut().enumerate() {
                let (ii, iv) = deliver(&back, r, 1, D);
                let ps = pieces(&back, r, 1, D);
                ok(if it == 1 {
                    sgs_svgd_shard_finish_parts(st, ps.as_ptr(), ps.len(), &mut parts[r])
                } else {
                    sgs_svgd_shard_finish(
                        st,
                        ii.as_ptr(),
                        ii.len(),
                        iv.as_ptr(),
                        iv.len(),
                        &mut parts[r],
                    )
                });
            }
            for st in sts.iter_mut() {
                ok(sgs_svgd_shard_commit(
                    st,
                    parts.as_ptr(),
                    R,
                    core::ptr::null_mut(),
                ));
            }
            ok(sgs_svgd_step(&mut tw, core::ptr::null_mut()));
        }
        assert_eq!(xs.concat(), xt);
        let mut its = 0u64;
        ok(sgs_svgd_shard_iterations(&sts[1], &mut its));
        assert_eq!(its, 2);
        by_value_copy_is_moved(&sts[0], |p| sgs_svgd_shard_iterations(p, &mut 0u64));
        for st in sts.iter_mut() {
            ok(sgs_svgd_shard_clear(st));
        }
    }
    free(ud);
}

/// The batched gradient: `gradient` row by row (so a batch equals separate runs).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn batch_gradient(
    ud: *mut c_void,
    x: *const f64,
    k: usize,
    d: usize,
    seeds: *const u64,
    _chains: *const usize,
    g: *mut f64,
    _status: *mut i32,
) -> i32 {
    for r in 0..k {
        // SAFETY: k rows of d values at x and g, k seeds (callback contract).
        let s = unsafe { gradient::<f64>(ud, x.add(r * d), d, *seeds.add(r), g.add(r * d)) };
        if s != SGS_CB_OK {
            return s;
        }
    }
    SGS_CB_OK
}

unsafe extern "C" fn batch_energy(
    ud: *mut c_void,
    x: *const f64,
    k: usize,
    d: usize,
    _chains: *const usize,
    u: *mut f64,
    _status: *mut i32,
) -> i32 {
    for r in 0..k {
        // SAFETY: k rows of d values at x, k energies (callback contract).
        let s = unsafe { energy::<f64>(ud, x.add(r * d), d, u.add(r)) };
        if s != SGS_CB_OK {
            return s;
        }
    }
    SGS_CB_OK
}

#[test]
fn amagold_run_batch_and_noise() {
    const K: usize = 2;
    const N: usize = 2;
    let ud: *mut c_void = Box::into_raw(Box::<Model>::default()).cast();
    let mut cfg = sgs_amagold_config_default(0.2);
    cfg.steps = 2;
    let theta0 = [0.5, -0.25];
    let ws_len = sgs_amagold_workspace_len(D);
    let mut sep = [[0.0; N * D]; K];
    // SAFETY: every pointer is to a live local of the stated length; the callbacks follow the
    // contract; the model outlives the states' use.
    unsafe {
        for (c, rows) in sep.iter_mut().enumerate() {
            let mut st: sgs_amagold = core::mem::zeroed();
            let mut ws = vec![0.0; ws_len];
            let mut cc = cfg;
            cc.seed = c as u64;
            ok(sgs_amagold_init(
                &mut st,
                &cc,
                theta0.as_ptr(),
                D,
                ws.as_mut_ptr(),
                ws_len,
                Some(energy::<f64>),
                Some(gradient::<f64>),
                ud,
            ));
            ok(sgs_amagold_run(
                &mut st,
                N,
                rows.as_mut_ptr(),
                N * D,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            ));
        }
        for max_calls in [4, 1] {
            let mut states: [sgs_amagold; K] = core::mem::zeroed();
            let mut ws = vec![vec![0.0; ws_len]; K];
            for c in 0..K {
                let mut cc = cfg;
                cc.seed = c as u64;
                ok(sgs_amagold_init(
                    &mut states[c],
                    &cc,
                    theta0.as_ptr(),
                    D,
                    ws[c].as_mut_ptr(),
                    ws_len,
                    Some(energy::<f64>),
                    Some(gradient::<f64>),
                    ud,
                ));
            }
            let mut scratch = vec![0.0; sgs_amagold_batch_scratch_len(K, D, max_calls)];
            let mut out = [0.0; K * N * D];
            let mut done = [0usize; K];
            let mut sums: [sgs_amagold_run_summary; K] = core::mem::zeroed();
            // With a cache of one call, through `…_run_batch_infos` (every iteration's record).
            let mut infos: [sgs_amagold_info; K * N] = core::mem::zeroed();
            let infos_ptr = if max_calls == 1 {
                infos.as_mut_ptr()
            } else {
                core::ptr::null_mut()
            };
            ok(sgs_amagold_run_batch_infos(
                states.as_mut_ptr(),
                K,
                N,
                Some(batch_energy),
                Some(batch_gradient),
                ud,
                scratch.as_mut_ptr(),
                scratch.len(),
                max_calls,
                out.as_mut_ptr(),
                out.len(),
                done.as_mut_ptr(),
                sums.as_mut_ptr(),
                infos_ptr,
            ));
            assert_eq!(done, [N; K]);
            if max_calls == 1 {
                for c in 0..K {
                    let last = format!("{:?}", sums[c].last);
                    assert_eq!(format!("{:?}", infos[c * N + N - 1]), last);
                }
            }
            assert_eq!(&out[..N * D], &sep[0][..]);
            assert_eq!(&out[N * D..], &sep[1][..]);
        }
        let mut z = [0.0; 3];
        ok(sgs_normal(0, z.as_mut_ptr(), 3));
        assert_eq!(z[0].to_bits(), 4604866114992135790);
        let mut u = [0.0f32; 3];
        ok(sgs_uniform_f32(0, u.as_mut_ptr(), 3));
        assert!(u.iter().all(|v| (0.0..1.0).contains(v)));
    }
    free(ud);
}
