//! `run` means one thing in Rust and in C: both drive the same loop (`sgsample::run`), so the
//! same cases give the same totals. Each case runs a chain through the Rust API and an
//! identically configured one through the C functions (called from Rust), with a model that
//! aborts at a scripted gradient call, and compares status, partial totals, last info and the
//! rows written.

use core::ffi::c_void;
use sgsample::ffi::*;
use sgsample::{
    Amagold, AmagoldConfig, Error, Gradient, Potential, RunSummary, Sghmc, SghmcConfig, Sgld,
    SgldConfig, Stop,
};

/// U = ½|θ|², exact gradient plus a seed-dependent wobble; aborts at gradient call `abort_at`.
#[derive(Clone, Default)]
struct Scripted {
    calls: u64,
    abort_at: Option<u64>,
}

impl Gradient<f64> for Scripted {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        self.calls += 1;
        if Some(self.calls) == self.abort_at {
            return Err(Stop::Abort);
        }
        let w = (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
        for (gi, xi) in g.iter_mut().zip(x) {
            *gi = xi + w;
        }
        Ok(())
    }
}

impl Potential<f64> for Scripted {
    fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        Ok(0.5 * x.iter().map(|v| v * v).sum::<f64>())
    }
}

unsafe extern "C" fn c_energy(ud: *mut c_void, x: *const f64, d: usize, u: *mut f64) -> i32 {
    // SAFETY: `ud` is the `Scripted` the test passed; x/u are valid per the callback contract.
    let (m, x) = unsafe {
        (
            &mut *ud.cast::<Scripted>(),
            core::slice::from_raw_parts(x, d),
        )
    };
    match m.energy(x) {
        // SAFETY: as above.
        Ok(v) => unsafe {
            *u = v;
            SGS_CB_OK
        },
        Err(_) => SGS_CB_ABORT,
    }
}

unsafe extern "C" fn c_gradient(
    ud: *mut c_void,
    x: *const f64,
    d: usize,
    seed: u64,
    g: *mut f64,
) -> i32 {
    // SAFETY: as in `c_energy`.
    let (m, x, g) = unsafe {
        (
            &mut *ud.cast::<Scripted>(),
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    match m.gradient(x, seed, g) {
        Ok(()) => SGS_CB_OK,
        Err(_) => SGS_CB_ABORT,
    }
}

const D: usize = 2;
const THETA0: [f64; D] = [0.5, -0.3];

/// The totals both sides report: (status, iterations, accepted, divergences, last iteration).
type Totals = (i32, u64, u64, u64, Option<u64>);

fn rust_totals<I>(
    r: Result<RunSummary<I>, sgsample::RunError<I>>,
    it: impl Fn(&I) -> u64,
) -> Totals {
    let (code, s) = match r {
        Ok(s) => (0, s),
        Err(e) => (e.error.code(), e.partial),
    };
    (
        code,
        s.iterations,
        s.accepted,
        s.divergences,
        s.last.as_ref().map(it),
    )
}

/// The cases: (rows requested, gradient call that aborts).
const CASES: [(usize, Option<u64>); 4] = [(0, None), (6, None), (6, Some(23)), (6, Some(1))];

#[test]
fn amagold_run_is_the_same_in_rust_and_c() {
    for (n, abort_at) in CASES {
        let cfg = AmagoldConfig {
            seed: 5,
            ..AmagoldConfig::new(0.3)
        };
        let mut m = Scripted::default();
        let mut ws = [0.0; 6 * D];
        let mut chain = Amagold::new(&cfg, &THETA0, &mut ws, &mut m).unwrap();
        m.abort_at = abort_at;
        let mut rows = vec![f64::NAN; n * D];
        let rust = rust_totals(chain.run(&mut m, &mut rows), |i| i.iteration);

        let mut cm = Scripted::default();
        let mut st = core::mem::MaybeUninit::<sgs_amagold>::zeroed();
        let mut cws = [0.0; 6 * D];
        let mut c = sgs_amagold_config_default(0.3);
        c.seed = 5;
        let mut out = vec![f64::NAN; n * D];
        let mut done = usize::MAX;
        let mut sum = core::mem::MaybeUninit::<sgs_amagold_run_summary>::zeroed();
        // SAFETY: every pointer is a live local of the stated length.
        let status = unsafe {
            let ud = (&mut cm as *mut Scripted).cast();
            let s = sgs_amagold_init(
                st.as_mut_ptr(),
                &c,
                THETA0.as_ptr(),
                D,
                cws.as_mut_ptr(),
                cws.len(),
                Some(c_energy),
                Some(c_gradient),
                ud,
            );
            assert_eq!(s, sgs_status::SGS_OK);
            cm.abort_at = abort_at;
            let out_ptr = if n == 0 {
                core::ptr::null_mut()
            } else {
                out.as_mut_ptr()
            };
            sgs_amagold_run(
                st.as_mut_ptr(),
                n,
                out_ptr,
                out.len(),
                &mut done,
                sum.as_mut_ptr(),
            )
        };
        // SAFETY: written by the run (its pointers were valid).
        let sum = unsafe { sum.assume_init() };
        let c_totals: Totals = (
            status as i32,
            sum.iterations,
            sum.accepted,
            sum.divergences,
            (sum.has_last == 1).then_some(sum.last.iteration),
        );
        assert_eq!(rust, c_totals, "n {n}, abort at {abort_at:?}");
        assert_eq!(done as u64, sum.iterations);
        let k = sum.iterations as usize * D;
        assert!(rows[..k]
            .iter()
            .zip(&out[..k])
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(
            out[k..].iter().all(|v| v.is_nan()),
            "rows past the error untouched"
        );
        if abort_at == Some(23) {
            // T = 10 gradients per iteration: the third iteration aborts, two are complete.
            assert_eq!((rust.0, rust.1), (Error::CallbackAborted.code(), 2));
        }
        if n == 0 {
            assert_eq!(rust, (0, 0, 0, 0, None));
        }
    }
}

/// Runs a gradient-only chain (SGHMC, SGLD: one C mapping shape) through its C `init` and
/// `run`, with the model aborting at gradient call `abort_at`; returns the totals and the rows.
#[allow(clippy::type_complexity)]
fn c_gradient_chain<S, Cfg>(
    init: unsafe extern "C" fn(
        *mut S,
        *const Cfg,
        *const f64,
        usize,
        *mut f64,
        usize,
        sgs_gradient_fn,
        *mut c_void,
    ) -> sgs_status,
    run: unsafe extern "C" fn(
        *mut S,
        usize,
        *mut f64,
        usize,
        *mut usize,
        *mut sgs_chain_run_summary,
    ) -> sgs_status,
    cfg: &Cfg,
    ws_len: usize,
    n: usize,
    abort_at: Option<u64>,
    after_init: impl FnOnce(*mut S),
) -> (Totals, Vec<f64>) {
    let mut cm = Scripted::default();
    let mut st = core::mem::MaybeUninit::<S>::zeroed();
    let mut cws = vec![0.0; ws_len];
    let mut out = vec![0.0; n * D];
    let mut sum = core::mem::MaybeUninit::<sgs_chain_run_summary>::zeroed();
    let model: *mut Scripted = &mut cm;
    // SAFETY: live locals of the stated lengths; the state stays where init put it.
    let status = unsafe {
        let s = init(
            st.as_mut_ptr(),
            cfg,
            THETA0.as_ptr(),
            D,
            cws.as_mut_ptr(),
            cws.len(),
            Some(c_gradient),
            model.cast(),
        );
        assert_eq!(s, sgs_status::SGS_OK);
        after_init(st.as_mut_ptr());
        // Through the pointer the callbacks use: the model is theirs until the run returns.
        (*model).abort_at = abort_at;
        run(
            st.as_mut_ptr(),
            n,
            out.as_mut_ptr(),
            out.len(),
            core::ptr::null_mut(),
            sum.as_mut_ptr(),
        )
    };
    // SAFETY: written by the run.
    let sum = unsafe { sum.assume_init() };
    let totals = (
        status as i32,
        sum.iterations,
        sum.accepted,
        sum.divergences,
        (sum.has_last == 1).then_some(sum.last.iteration),
    );
    (totals, out)
}

#[test]
fn sghmc_and_sgld_runs_are_the_same_in_rust_and_c() {
    for (n, abort_at) in CASES {
        let cfg = SghmcConfig {
            seed: 9,
            ..SghmcConfig::new(0.1)
        };
        let mut m = Scripted::default();
        let mut ws = [0.0; 5 * D];
        let mut chain = Sghmc::new(&cfg, &THETA0, &mut ws).unwrap();
        m.abort_at = abort_at;
        let mut rows = vec![0.0; n * D];
        let rust = rust_totals(chain.run(&mut m, &mut rows), |i| i.iteration);
        let mut c = sgs_sghmc_config_default(0.1);
        c.seed = 9;
        let (c_totals, out) = c_gradient_chain(
            sgs_sghmc_init,
            sgs_sghmc_run,
            &c,
            5 * D,
            n,
            abort_at,
            |_| {},
        );
        assert_eq!(rust, c_totals, "SGHMC n {n}, abort at {abort_at:?}");
        assert_eq!(rows, out);

        let cfg = SgldConfig {
            seed: 9,
            steps: 4,
            ..SgldConfig::new(0.1)
        };
        let mut m = Scripted::default();
        let mut ws = [0.0; 3 * D];
        let mut chain = Sgld::new(&cfg, &THETA0, &mut ws).unwrap();
        m.abort_at = abort_at;
        let mut rows = vec![0.0; n * D];
        let rust = rust_totals(chain.run(&mut m, &mut rows), |i| i.iteration);
        let mut c = sgs_sgld_config_default(0.1);
        c.seed = 9;
        c.steps = 4;
        let (c_totals, out) =
            c_gradient_chain(sgs_sgld_init, sgs_sgld_run, &c, 3 * D, n, abort_at, |_| {});
        assert_eq!(rust, c_totals, "SGLD n {n}, abort at {abort_at:?}");
        assert_eq!(rows, out);
    }
}

/// The same with the fixed diagonal preconditioner, set after init in both (the C chain through
/// `sgs_sghmc_set_inverse_mass` / `sgs_sgld_set_inverse_mass`).
#[test]
fn preconditioned_sghmc_and_sgld_runs_are_the_same_in_rust_and_c() {
    use sgsample::Mass;
    let k = [0.5, 3.0];
    for (n, abort_at) in CASES {
        let cfg = SghmcConfig {
            seed: 9,
            mass: Mass::Diagonal,
            resample_momentum: false,
            ..SghmcConfig::new(0.1)
        };
        let mut m = Scripted::default();
        let mut ws = [0.0; 7 * D];
        let mut chain = Sghmc::new(&cfg, &THETA0, &mut ws).unwrap();
        chain.set_inverse_mass(&k).unwrap();
        m.abort_at = abort_at;
        let mut rows = vec![0.0; n * D];
        let rust = rust_totals(chain.run(&mut m, &mut rows), |i| i.iteration);
        let mut c = sgs_sghmc_config_default(0.1);
        c.seed = 9;
        c.mass = SGS_MASS_DIAGONAL;
        c.resample_momentum = 0;
        let set = |s: *mut sgs_sghmc| {
            // SAFETY: an initialised state; `k` is a live array of D values.
            let st = unsafe { sgs_sghmc_set_inverse_mass(s, k.as_ptr(), D) };
            assert_eq!(st, sgs_status::SGS_OK);
        };
        let (c_totals, out) =
            c_gradient_chain(sgs_sghmc_init, sgs_sghmc_run, &c, 7 * D, n, abort_at, set);
        assert_eq!(rust, c_totals, "SGHMC n {n}, abort at {abort_at:?}");
        assert_eq!(rows, out);

        let cfg = SgldConfig {
            seed: 9,
            steps: 4,
            mass: Mass::Diagonal,
            ..SgldConfig::new(0.1)
        };
        let mut m = Scripted::default();
        let mut ws = [0.0; 5 * D];
        let mut chain = Sgld::new(&cfg, &THETA0, &mut ws).unwrap();
        chain.set_inverse_mass(&k).unwrap();
        m.abort_at = abort_at;
        let mut rows = vec![0.0; n * D];
        let rust = rust_totals(chain.run(&mut m, &mut rows), |i| i.iteration);
        let mut c = sgs_sgld_config_default(0.1);
        c.seed = 9;
        c.steps = 4;
        c.mass = SGS_MASS_DIAGONAL;
        let set = |s: *mut sgs_sgld| {
            // SAFETY: as above.
            let st = unsafe { sgs_sgld_set_inverse_mass(s, k.as_ptr(), D) };
            assert_eq!(st, sgs_status::SGS_OK);
        };
        let (c_totals, out) =
            c_gradient_chain(sgs_sgld_init, sgs_sgld_run, &c, 5 * D, n, abort_at, set);
        assert_eq!(rust, c_totals, "SGLD n {n}, abort at {abort_at:?}");
        assert_eq!(rows, out);
    }
}
