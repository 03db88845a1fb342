//! Checkpoints through the C functions (`sgs_…_export_len`, `…_export`, `…_import`): export at
//! iteration n, import into a fresh state, run m more ⇒ the draws and the whole final state are
//! bit for bit those of an uninterrupted n + m run — for AMAGOLD in every warm-up phase (the
//! approach, the fast and slow windows with a diagonal and a dense mass, the final window) and
//! after it, for SGHMC and SGLD (with a preconditioner the target did not have), `double` and
//! `float`. Every refusal of `import` gets its status and leaves the target state unchanged
//! (its export before and after compared byte for byte).
#![cfg(feature = "ffi")]

use core::ffi::c_void;
use sgsample::ffi::*;
use sgsample::rng::splitmix64;

/// Bytes before the core in a checkpoint (docs/design.md, "Checkpoints").
const HEADER_LEN: usize = 48;

/// Coordinates of either type, through f64.
trait F: Copy + PartialEq + core::fmt::Debug + Default + 'static {
    fn of(v: f64) -> Self;
    fn get(self) -> f64;
}
impl F for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn get(self) -> f64 {
        self
    }
}
impl F for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn get(self) -> f64 {
        f64::from(self)
    }
}

/// The gradient's noise for a minibatch seed and coordinate, uniform on [−½, ½).
fn wobble(seed: u64, i: usize) -> f64 {
    (splitmix64(seed ^ splitmix64(i as u64)) >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// What a callback may be told to do: call `import` on its own state (re-entrancy).
struct Ctx {
    reenter: Option<Box<dyn FnMut() -> sgs_status>>,
    reenter_status: Option<sgs_status>,
}

/// U = Σ ½·sᵢ·xᵢ² with scales sᵢ = 1 + i (correlated enough for the mass to matter).
unsafe extern "C" fn energy<T: F>(_: *mut c_void, x: *const T, d: usize, u: *mut f64) -> i32 {
    // SAFETY: callback contract: d values at x (and at g).
    let x = unsafe { core::slice::from_raw_parts(x, d) };
    let v: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| 0.5 * (1.0 + i as f64) * v.get() * v.get())
        .sum();
    // SAFETY: callback contract: u writable.
    unsafe { *u = v };
    SGS_CB_OK
}

unsafe extern "C" fn gradient<T: F>(
    ctx: *mut c_void,
    x: *const T,
    d: usize,
    seed: u64,
    g: *mut T,
) -> i32 {
    if !ctx.is_null() {
        // SAFETY: user_data is the test's live Ctx, or NULL (checked).
        let ctx = unsafe { &mut *ctx.cast::<Ctx>() };
        if let Some(f) = ctx.reenter.as_mut() {
            ctx.reenter_status = Some(f());
        }
    }
    // SAFETY: callback contract: d values at x (and at g).
    let (x, g) = unsafe {
        (
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    for i in 0..d {
        g[i] = T::of((1.0 + i as f64) * x[i].get() + 0.3 * wobble(seed, i));
    }
    SGS_CB_OK
}

/// One chain sampler on one coordinate type, through its C functions.
trait Api {
    type T: F;
    type S;
    type Cfg: Copy;
    const NAME: &'static str;
    fn zeroed() -> Box<Self::S>;
    fn ws_len_for(cfg: &Self::Cfg, d: usize) -> usize;
    unsafe fn init(
        s: *mut Self::S,
        cfg: &Self::Cfg,
        theta0: &[Self::T],
        ws: *mut Self::T,
        ws_len: usize,
        ud: *mut c_void,
    ) -> sgs_status;
    unsafe fn run(s: *mut Self::S, n: usize, out: *mut Self::T, out_len: usize) -> sgs_status;
    unsafe fn export_len(s: *const Self::S, len: *mut usize) -> sgs_status;
    unsafe fn export(s: *const Self::S, out: *mut c_void, out_len: usize) -> sgs_status;
    unsafe fn import(s: *mut Self::S, input: *const c_void, input_len: usize) -> sgs_status;
    unsafe fn clear(s: *mut Self::S) -> sgs_status;
}

macro_rules! api {
    ($A:ident, $T:ty, $S:ident, $Cfg:ty, $name:literal, $ws_len_for:ident, $init:ident
     [$($energy:tt)*], $run:ident, $export_len:ident, $export:ident, $import:ident,
     $clear:ident) => {
        struct $A;
        impl Api for $A {
            type T = $T;
            type S = $S;
            type Cfg = $Cfg;
            const NAME: &'static str = $name;
            fn zeroed() -> Box<$S> {
                // SAFETY: a zeroed state is the documented "not initialised" state.
                Box::new(unsafe { core::mem::zeroed() })
            }
            fn ws_len_for(cfg: &$Cfg, d: usize) -> usize {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe { $ws_len_for(cfg, d) }
            }
            unsafe fn init(
                s: *mut $S,
                cfg: &$Cfg,
                theta0: &[$T],
                ws: *mut $T,
                ws_len: usize,
                ud: *mut c_void,
            ) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe {
                    $init(s, cfg, theta0.as_ptr(), theta0.len(), ws, ws_len,
                        $($energy)* Some(gradient::<$T>), ud)
                }
            }
            unsafe fn run(s: *mut $S, n: usize, out: *mut $T, out_len: usize) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe {
                    $run(s, n, out, out_len, core::ptr::null_mut(), core::ptr::null_mut())
                }
            }
            unsafe fn export_len(s: *const $S, len: *mut usize) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe { $export_len(s, len) }
            }
            unsafe fn export(s: *const $S, out: *mut c_void, out_len: usize) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe { $export(s, out, out_len) }
            }
            unsafe fn import(s: *mut $S, input: *const c_void, input_len: usize) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe { $import(s, input, input_len) }
            }
            unsafe fn clear(s: *mut $S) -> sgs_status {
                // SAFETY: states and buffers the test owns, alive, with the lengths passed.
                unsafe { $clear(s) }
            }
        }
    };
}

api!(Amg64, f64, sgs_amagold, sgs_amagold_config, "amagold", sgs_amagold_workspace_len_for,
    sgs_amagold_init [Some(energy::<f64>),], sgs_amagold_run, sgs_amagold_export_len,
    sgs_amagold_export, sgs_amagold_import, sgs_amagold_clear);
api!(Amg32, f32, sgs_amagold_f32, sgs_amagold_config, "amagold_f32",
    sgs_amagold_workspace_len_for_f32, sgs_amagold_init_f32 [Some(energy::<f32>),],
    sgs_amagold_run_f32, sgs_amagold_export_len_f32, sgs_amagold_export_f32,
    sgs_amagold_import_f32, sgs_amagold_clear_f32);
api!(Hmc64, f64, sgs_sghmc, sgs_sghmc_config, "sghmc", sgs_sghmc_workspace_len_for,
    sgs_sghmc_init [], sgs_sghmc_run, sgs_sghmc_export_len, sgs_sghmc_export, sgs_sghmc_import,
    sgs_sghmc_clear);
api!(Hmc32, f32, sgs_sghmc_f32, sgs_sghmc_config, "sghmc_f32", sgs_sghmc_workspace_len_for_f32,
    sgs_sghmc_init_f32 [], sgs_sghmc_run_f32, sgs_sghmc_export_len_f32, sgs_sghmc_export_f32,
    sgs_sghmc_import_f32, sgs_sghmc_clear_f32);
api!(Sgld64, f64, sgs_sgld, sgs_sgld_config, "sgld", sgs_sgld_workspace_len_for, sgs_sgld_init [],
    sgs_sgld_run, sgs_sgld_export_len, sgs_sgld_export, sgs_sgld_import, sgs_sgld_clear);
api!(Sgld32, f32, sgs_sgld_f32, sgs_sgld_config, "sgld_f32", sgs_sgld_workspace_len_for_f32,
    sgs_sgld_init_f32 [], sgs_sgld_run_f32, sgs_sgld_export_len_f32, sgs_sgld_export_f32,
    sgs_sgld_import_f32, sgs_sgld_clear_f32);

/// A started chain with its own workspace (boxed: a state records its address).
struct Chain<A: Api> {
    s: Box<A::S>,
    ws: Vec<A::T>,
}

const D: usize = 3;

impl<A: Api> Chain<A> {
    fn new(cfg: &A::Cfg, theta0: &[A::T], ws_len: usize, ud: *mut c_void) -> Self {
        let mut c = Chain {
            s: A::zeroed(),
            ws: vec![A::T::default(); ws_len],
        };
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        let st = unsafe { A::init(&mut *c.s, cfg, theta0, c.ws.as_mut_ptr(), ws_len, ud) };
        assert_eq!(st, sgs_status::SGS_OK, "{} init", A::NAME);
        c
    }

    fn run(&mut self, n: usize) -> Vec<A::T> {
        let mut out = vec![A::T::default(); n * D];
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        let st = unsafe { A::run(&mut *self.s, n, out.as_mut_ptr(), out.len()) };
        assert_eq!(st, sgs_status::SGS_OK, "{} run", A::NAME);
        out
    }

    fn export(&self) -> Vec<u8> {
        let mut n = 0usize;
        assert_eq!(
            // SAFETY: states and buffers the test owns, alive, with the lengths passed.
            unsafe { A::export_len(&*self.s, &mut n) },
            sgs_status::SGS_OK
        );
        // One byte more than needed, which export must leave alone.
        let mut out = vec![0xa5u8; n + 1];
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        let st = unsafe { A::export(&*self.s, out.as_mut_ptr().cast(), out.len()) };
        assert_eq!(st, sgs_status::SGS_OK, "{} export", A::NAME);
        assert_eq!(out.pop(), Some(0xa5));
        out
    }

    fn import(&mut self, bytes: &[u8]) -> sgs_status {
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        unsafe { A::import(&mut *self.s, bytes.as_ptr().cast(), bytes.len()) }
    }
}

fn bits<T: F>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.get().to_bits()).collect()
}

/// Export after `n`, import into a state started elsewhere with `target_cfg` (another seed,
/// start and possibly configuration), run `m`: the same draws and the same final state (its
/// export) as `n + m` uninterrupted.
fn resumes_exactly<A: Api>(cfg: &A::Cfg, target_cfg: &A::Cfg, n: usize, m: usize) {
    resumes_exactly_with::<A>(cfg, target_cfg, n, m, |_| {});
}

fn resumes_exactly_with<A: Api>(
    cfg: &A::Cfg,
    target_cfg: &A::Cfg,
    n: usize,
    m: usize,
    prepare: impl Fn(&mut Chain<A>),
) {
    let start: Vec<A::T> = (0..D).map(|i| A::T::of(4.0 - i as f64)).collect();
    let len = A::ws_len_for(cfg, D).max(A::ws_len_for(target_cfg, D));
    let null = core::ptr::null_mut();
    let mut whole = Chain::<A>::new(cfg, &start, len, null);
    prepare(&mut whole);
    let all = whole.run(n + m);

    let mut first = Chain::<A>::new(cfg, &start, len, null);
    prepare(&mut first);
    let head = first.run(n);
    assert_eq!(bits(&head), bits(&all[..n * D]), "{}", A::NAME);
    let blob = first.export();

    let other: Vec<A::T> = (0..D).map(|i| A::T::of(0.5 + i as f64)).collect();
    let mut second = Chain::<A>::new(target_cfg, &other, len, null);
    assert_eq!(
        second.import(&blob),
        sgs_status::SGS_OK,
        "{} import",
        A::NAME
    );
    // The imported state exports to the very bytes it came from.
    assert_eq!(second.export(), blob, "{} n = {n}", A::NAME);
    let tail = second.run(m);
    assert_eq!(bits(&tail), bits(&all[n * D..]), "{} n = {n}", A::NAME);
    assert_eq!(second.export(), whole.export(), "{} n = {n}", A::NAME);
}

fn adaptive(mass: u32, warmup: u64) -> sgs_amagold_config {
    let mut c = sgs_amagold_config_adaptive();
    c.warmup = warmup;
    c.mass = mass;
    c.seed = 11;
    c
}

fn amagold_phases<A: Api<Cfg = sgs_amagold_config>>() {
    let plain = sgs_amagold_config_default(0.1);
    // Diagonal mass, warm-up 200 with the approach: inside the approach (n = 2), the first
    // fast window, a slow window, the final window, and after the warm-up.
    let diag = adaptive(SGS_MASS_DIAGONAL, 200);
    for n in [2, 30, 90, 190, 230] {
        resumes_exactly::<A>(&diag, &plain, n, 25);
    }
    // Dense mass, no approach: its Cholesky factor and running sums in the workspace.
    let mut dense = adaptive(SGS_MASS_DENSE, 120);
    dense.approach = 0;
    for n in [10, 60, 125] {
        resumes_exactly::<A>(&dense, &plain, n, 20);
    }
    // No warm-up, skew-reversible (the momentum persists) with jittered T.
    let mut skew = sgs_amagold_config_default(0.15);
    skew.variant = SGS_VARIANT_NON_REVERSIBLE;
    skew.jitter_steps = 1;
    skew.seed = 5;
    resumes_exactly::<A>(&skew, &plain, 17, 23);
}

/// The phase of each iteration of a chain of `cfg` from the tests' start (1-based: entry i is
/// iteration i + 1).
fn phases(cfg: &sgs_amagold_config, n: usize) -> Vec<u32> {
    let start = [4.0, 3.0, 2.0];
    let mut c = Chain::<Amg64>::new(
        cfg,
        &start,
        Amg64::ws_len_for(cfg, D),
        core::ptr::null_mut(),
    );
    (0..n)
        .map(|_| {
            // SAFETY: the zeroed record is a valid `sgs_amagold_info`.
            let mut info: sgs_amagold_info = unsafe { core::mem::zeroed() };
            assert_eq!(
                // SAFETY: a state the test initialised; `info` writable.
                unsafe { sgs_amagold_step(&mut *c.s, &mut info) },
                sgs_status::SGS_OK
            );
            info.phase
        })
        .collect()
}

/// The export points of `amagold_phases` are where they claim to be.
#[test]
fn amagold_export_points_cover_every_phase() {
    let p = phases(&adaptive(SGS_MASS_DIAGONAL, 200), 230);
    let at = |n: usize| p[n - 1];
    assert_eq!(at(2), SGS_PHASE_APPROACH);
    assert_eq!(at(3), SGS_PHASE_APPROACH);
    assert_eq!(at(30), SGS_PHASE_FAST);
    assert_eq!(at(31), SGS_PHASE_FAST);
    assert_eq!(at(90), SGS_PHASE_SLOW);
    assert_eq!(at(190), SGS_PHASE_FINAL);
    assert_eq!(at(230), SGS_PHASE_SAMPLING);
    let mut dense = adaptive(SGS_MASS_DENSE, 120);
    dense.approach = 0;
    let p = phases(&dense, 126);
    assert_eq!(p[9], SGS_PHASE_FAST);
    assert_eq!(p[59], SGS_PHASE_SLOW);
    assert_eq!(p[125], SGS_PHASE_SAMPLING);
}

#[test]
fn amagold_resumes_bit_for_bit_in_every_phase() {
    amagold_phases::<Amg64>();
    amagold_phases::<Amg32>();
}

fn sghmc_resumes<A: Api<Cfg = sgs_sghmc_config>>(set_k: unsafe fn(*mut A::S, &[A::T])) {
    let plain = sgs_sghmc_config_default(0.05);
    let mut keep = sgs_sghmc_config_default(0.05);
    keep.resample_momentum = 0;
    keep.seed = 3;
    resumes_exactly::<A>(&keep, &plain, 13, 21);
    let mut diag = keep;
    diag.mass = SGS_MASS_DIAGONAL;
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    resumes_exactly_with::<A>(&diag, &plain, 9, 14, |c| unsafe {
        set_k(&mut *c.s, &[A::T::of(0.5), A::T::of(2.0), A::T::of(1.5)])
    });
}

fn sgld_resumes<A: Api<Cfg = sgs_sgld_config>>(set_k: unsafe fn(*mut A::S, &[A::T])) {
    let plain = sgs_sgld_config_default(0.01);
    let mut c = sgs_sgld_config_default(0.02);
    c.seed = 8;
    c.steps = 3;
    resumes_exactly::<A>(&c, &plain, 13, 21);
    let mut diag = c;
    diag.mass = SGS_MASS_DIAGONAL;
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    resumes_exactly_with::<A>(&diag, &plain, 9, 14, |c| unsafe {
        set_k(&mut *c.s, &[A::T::of(0.5), A::T::of(2.0), A::T::of(1.5)])
    });
}

#[test]
fn sghmc_and_sgld_resume_bit_for_bit() {
    unsafe fn k64(s: *mut sgs_sghmc, k: &[f64]) {
        assert_eq!(
            // SAFETY: states and buffers the test owns, alive, with the lengths passed.
            unsafe { sgs_sghmc_set_inverse_mass(s, k.as_ptr(), k.len()) },
            sgs_status::SGS_OK
        );
    }
    unsafe fn k32(s: *mut sgs_sghmc_f32, k: &[f32]) {
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        let st = unsafe { sgs_sghmc_set_inverse_mass_f32(s, k.as_ptr(), k.len()) };
        assert_eq!(st, sgs_status::SGS_OK);
    }
    unsafe fn l64(s: *mut sgs_sgld, k: &[f64]) {
        assert_eq!(
            // SAFETY: states and buffers the test owns, alive, with the lengths passed.
            unsafe { sgs_sgld_set_inverse_mass(s, k.as_ptr(), k.len()) },
            sgs_status::SGS_OK
        );
    }
    unsafe fn l32(s: *mut sgs_sgld_f32, k: &[f32]) {
        // SAFETY: states and buffers the test owns, alive, with the lengths passed.
        let st = unsafe { sgs_sgld_set_inverse_mass_f32(s, k.as_ptr(), k.len()) };
        assert_eq!(st, sgs_status::SGS_OK);
    }
    sghmc_resumes::<Hmc64>(k64);
    sghmc_resumes::<Hmc32>(k32);
    sgld_resumes::<Sgld64>(l64);
    sgld_resumes::<Sgld32>(l32);
}

/// FNV-1a 64, the checkpoint's checksum (docs/design.md), to forge well-formed bad files.
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `blob` with `f` applied and the checksum made right again.
fn forged(blob: &[u8], f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = blob.to_vec();
    f(&mut b);
    let n = b.len() - 8;
    let sum = fnv1a(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
    b
}

/// Offsets in an AMAGOLD checkpoint: the core starts with d, then the configuration
/// (step_size, friction, momentum_sd, steps, variant, warmup, target_accept, mass, approach…).
const AMG_STEP_SIZE: usize = HEADER_LEN + 8;
const AMG_VARIANT: usize = HEADER_LEN + 8 + 24 + 4;
const AMG_MASS: usize = AMG_VARIANT + 4 + 8 + 8;
const AMG_APPROACH: usize = AMG_MASS + 4;

#[test]
fn import_refusals_leave_the_state_untouched() {
    let cfg = adaptive(SGS_MASS_DIAGONAL, 100);
    let start = [0.3, -0.2, 0.1];
    let len = Amg64::ws_len_for(&cfg, D);
    let null = core::ptr::null_mut();
    let mut src = Chain::<Amg64>::new(&cfg, &start, len, null);
    src.run(40);
    let blob = src.export();
    let mut t = Chain::<Amg64>::new(
        &sgs_amagold_config_default(0.2),
        &[1.0, 2.0, 3.0],
        len,
        null,
    );
    t.run(3);
    let before = t.export();
    let position = |c: &Chain<Amg64>| c.ws[..D].to_vec();
    let pos_before = position(&t);

    let mut check = |bytes: &[u8], want: sgs_status, what: &str| {
        assert_eq!(t.import(bytes), want, "{what}");
        assert_eq!(t.export(), before, "{what}: state changed");
        assert_eq!(position(&t), pos_before, "{what}: workspace changed");
    };
    use sgs_status::*;
    let mut b = blob.clone();
    b[0] ^= 1;
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "magic");
    let b = forged(&blob, |b| b[8] = 2);
    check(&b, SGS_ERR_CHECKPOINT_MISMATCH, "format version");
    check(
        &blob[..blob.len() - 1],
        SGS_ERR_INVALID_CHECKPOINT,
        "truncated",
    );
    check(
        &blob[..20],
        SGS_ERR_INVALID_CHECKPOINT,
        "truncated in the header",
    );
    check(&[], SGS_ERR_INVALID_CHECKPOINT, "empty");
    let mut b = blob.clone();
    b.push(0);
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "oversized");
    // A flipped bit in the workspace part (the position) and in the checksum itself.
    let mut b = blob.clone();
    let ws_at = b.len() - 8 - len * 8;
    b[ws_at + 3] ^= 0x10;
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "checksum (workspace)");
    let mut b = blob.clone();
    let n = b.len();
    b[n - 1] ^= 0x80;
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "checksum (itself)");
    let b = forged(&blob, |b| b[AMG_VARIANT] = 9);
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "unknown variant");
    let b = forged(&blob, |b| b[AMG_MASS] = 3);
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "unknown mass");
    let b = forged(&blob, |b| b[AMG_APPROACH] = 2);
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "boolean neither 0 nor 1");
    let b = forged(&blob, |b| {
        b[AMG_STEP_SIZE..AMG_STEP_SIZE + 8].copy_from_slice(&(-0.1f64).to_le_bytes())
    });
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "a step size init refuses");
    // The recorded workspace length must be the configuration's.
    let b = forged(&blob, |b| b[HEADER_LEN - 8] ^= 1);
    check(&b, SGS_ERR_INVALID_CHECKPOINT, "workspace length");
    // Another d (header and core agree, the target differs).
    let b = forged(&blob, |b| {
        b[HEADER_LEN - 16] = 4;
    });
    check(&b, SGS_ERR_LENGTH_MISMATCH, "d");
    // Another sampler and another float type.
    let mut h = Chain::<Hmc64>::new(&sgs_sghmc_config_default(0.1), &start, 5 * D, null);
    check(&h.export(), SGS_ERR_CHECKPOINT_MISMATCH, "sampler");
    let start32 = [0.3f32, -0.2, 0.1];
    let f = Chain::<Amg32>::new(&cfg, &start32, len, null);
    check(&f.export(), SGS_ERR_CHECKPOINT_MISMATCH, "float type");
    check(&blob[..0], SGS_ERR_INVALID_CHECKPOINT, "empty again");
    assert_eq!(t.import(&blob), SGS_OK);
    assert_eq!(t.export(), blob);

    // A workspace too small for the checkpoint's (diagonal mass, approach) configuration.
    let small = Amg64::ws_len_for(&sgs_amagold_config_default(0.2), D);
    let mut tiny = Chain::<Amg64>::new(&sgs_amagold_config_default(0.2), &start, small, null);
    let tiny_before = tiny.export();
    assert_eq!(tiny.import(&blob), SGS_ERR_WORKSPACE_TOO_SMALL);
    assert_eq!(tiny.export(), tiny_before);

    // Pointers: NULL, the input inside the target's own workspace, an uninitialised target.
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_amagold_import(&mut *tiny.s, core::ptr::null(), 8) };
    assert_eq!(st, SGS_ERR_NULL_POINTER);
    let ws_ptr = tiny.ws.as_ptr().cast::<c_void>();
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_amagold_import(&mut *tiny.s, ws_ptr, 16) };
    assert_eq!(st, SGS_ERR_INVALID_ARGUMENT);
    assert_eq!(tiny.export(), tiny_before);
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    unsafe { Amg64::clear(&mut *tiny.s) };
    assert_eq!(tiny.import(&blob), SGS_ERR_NOT_INITIALISED);

    // Export: an output too small is refused and not written.
    let mut out = vec![7u8; blob.len() - 1];
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_amagold_export(&*src.s, out.as_mut_ptr().cast(), out.len()) };
    assert_eq!(st, SGS_ERR_OUTPUT_TOO_SMALL);
    assert!(out.iter().all(|&b| b == 7));
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_amagold_export(&*src.s, core::ptr::null_mut(), 100) };
    assert_eq!(st, SGS_ERR_NULL_POINTER);
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_amagold_export_len(&*src.s, core::ptr::null_mut()) };
    assert_eq!(st, SGS_ERR_NULL_POINTER);
    h.run(1);
}

#[test]
fn import_from_inside_a_callback_is_busy() {
    let cfg = sgs_sghmc_config_default(0.05);
    let start = [0.3, -0.2, 0.1];
    let null = core::ptr::null_mut();
    let src = Chain::<Hmc64>::new(&cfg, &start, 5 * D, null);
    let blob = src.export();
    let mut ctx = Box::new(Ctx {
        reenter: None,
        reenter_status: None,
    });
    let ud = (&mut *ctx as *mut Ctx).cast::<c_void>();
    let mut c = Chain::<Hmc64>::new(&cfg, &start, 5 * D, ud);
    let sp: *mut sgs_sghmc = &mut *c.s;
    let bytes = blob.clone();
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    ctx.reenter = Some(Box::new(move || unsafe {
        sgs_sghmc_import(sp, bytes.as_ptr().cast(), bytes.len())
    }));
    let mut out = [0.0; D];
    // SAFETY: states and buffers the test owns, alive, with the lengths passed.
    let st = unsafe { sgs_sghmc_run(sp, 1, out.as_mut_ptr(), D, null.cast(), null.cast()) };
    assert_eq!(st, sgs_status::SGS_OK);
    assert_eq!(ctx.reenter_status, Some(sgs_status::SGS_ERR_BUSY));
    // The step went on from where it was: the same draw as an untouched chain's.
    let mut twin = Chain::<Hmc64>::new(&cfg, &start, 5 * D, null);
    assert_eq!(bits(&twin.run(1)), bits(&out));
}

/// The header's layout, fixed by docs/design.md: any platform reads these words the same way.
#[test]
fn header_is_little_endian_fixed_width() {
    let cfg = sgs_sgld_config_default(0.01);
    let c = Chain::<Sgld32>::new(&cfg, &[1.0, 2.0, 3.0], 3 * D, core::ptr::null_mut());
    let b = c.export();
    assert_eq!(&b[..8], b"SGSCHKPT");
    assert_eq!(&b[8..12], &1u32.to_le_bytes());
    assert_eq!(&b[16..24], b"sgsSGL32");
    assert_eq!(&b[24..32], &(b.len() as u64).to_le_bytes());
    assert_eq!(&b[32..40], &(D as u64).to_le_bytes());
    let n = u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize;
    // float coordinates take 4 bytes each, and the position comes first.
    let ws_at = b.len() - 8 - 4 * n;
    assert_eq!(&b[ws_at..ws_at + 4], &1.0f32.to_le_bytes());
    assert_eq!(
        u64::from_le_bytes(b[b.len() - 8..].try_into().unwrap()),
        fnv1a(&b[..b.len() - 8])
    );
}

/// The golden checkpoints of `tests/data/` (format 1), made by this test with
/// `SGS_WRITE_CHECKPOINTS=1`: each imports and exports again to the very same bytes. They pin the
/// layout (not the algorithm: nothing is run after the import): a field added to a core, or an
/// encoding changed, fails here until the format version is bumped and the files are rewritten.
#[test]
fn golden_checkpoints_of_format_1_still_load() {
    fn golden<A: Api>(file: &str, cfg: &A::Cfg, n: usize) {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let start: Vec<A::T> = (0..D).map(|i| A::T::of(4.0 - i as f64)).collect();
        let len = A::ws_len_for(cfg, D);
        let null = core::ptr::null_mut();
        if std::env::var_os("SGS_WRITE_CHECKPOINTS").is_some() {
            let mut c = Chain::<A>::new(cfg, &start, len, null);
            c.run(n);
            std::fs::write(&path, c.export()).unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut c = Chain::<A>::new(cfg, &start, len, null);
        assert_eq!(c.import(&bytes), sgs_status::SGS_OK, "{file}");
        // The same bytes but for the library version that wrote them (bytes 12..16: the files
        // were written by 0.4, and a file of another library version with the same format
        // loads) and so the checksum.
        let again = c.export();
        let end = bytes.len() - 8;
        assert_eq!(
            again.len(),
            bytes.len(),
            "{file}: the format changed (bump FORMAT_VERSION)"
        );
        assert_eq!(
            (&again[..12], &again[16..end]),
            (&bytes[..12], &bytes[16..end]),
            "{file}: the format changed (bump FORMAT_VERSION)"
        );
    }
    golden::<Amg64>(
        "checkpoint_v1_amagold_f64.bin",
        &adaptive(SGS_MASS_DIAGONAL, 200),
        90,
    );
    golden::<Amg32>(
        "checkpoint_v1_amagold_f32.bin",
        &adaptive(SGS_MASS_DENSE, 200),
        190,
    );
    let mut h = sgs_sghmc_config_default(0.05);
    h.resample_momentum = 0;
    golden::<Hmc64>("checkpoint_v1_sghmc_f64.bin", &h, 20);
    golden::<Sgld32>(
        "checkpoint_v1_sgld_f32.bin",
        &sgs_sgld_config_default(0.02),
        20,
    );
}
