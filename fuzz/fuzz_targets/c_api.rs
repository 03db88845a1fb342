//! Fuzzes every C entry point (`sgs_amagold_*`, `sgs_sghmc_*`, `sgs_sgld_*`, `sgs_tunamh_*` (its
//! differences stay within half the distance, so a declared bound below 0.5 must be refused with
//! `SGS_ERR_BOUND_EXCEEDED`, the chain unchanged), `sgs_svgd_*` with the
//! iteration in phases (`begin`, the gradients and batches ranges, forces and moves get/put,
//! `finish`, `cancel`, `num_batches`, `batch_rows`, `move_width`) and the growing batch size
//! (`set_batch_size`, `run_scheduled`), f64 and f32, `sgs_minibatch`, `sgs_normal` and
//! `sgs_uniform` (f64 and f32; see `noise`), `sgs_amagold_run_batch`, `sgs_sghmc_run_batch`,
//! `sgs_sgld_run_batch` and their `_f32` twins (against separate runs, and refused calls; see
//! `batch_op`), the sharded RBM-SVGD `sgs_svgd_shard_*` and its `_f32` twins (the size queries
//! and `ranges` against the header's formulas, fuzzed inits, and systems of 2 or 3 shards whose
//! records the target exchanges, against a whole-system `sgs_svgd_step` twin; see `shard_op`),
//! `sgs_status_str`, the size queries and config defaults) with random call
//! sequences, decoded by hand from the input bytes (see fuzz/README.md for why not `arbitrary`).
//!
//! All caller memory lives in one 16 KiB arena, so that any pointer the fuzzer picks (into a
//! state, into a workspace, into another output, misaligned, NULL) is valid memory and so that a
//! write the library should not make is seen even when it stays inside the arena. The target
//! keeps to the caller's side of the contract (lengths never exceed the memory behind a pointer
//! unless they are ≥ 2⁶¹, which every entry point must refuse; a state pointer is either a live
//! state, zero/garbage without a valid tag, NULL or misaligned; a sampler whose memory another
//! call overwrote is forgotten), so that anything it reports is the library's fault.
//!
//! States are address-bound: a live state never moves. The target duplicates one the supported
//! way (`sgs_*_copy` onto new, fuzzed buffers; the copy must read as its source) and also the
//! unsupported way (a memcpy of the state bytes), after which every call on the moved bytes must
//! return exactly `SGS_ERR_STATE_MOVED` (26) and change nothing; then it re-homes the moved state
//! in place (`sgs_*_copy(s, its buffers, s)`, which must succeed) and clears the original with
//! `sgs_*_clear`, or clears the moved bytes, or leaves them as garbage. `sgs_*_clear` is also
//! called on any pointer.
//!
//! AMAGOLD's warm-up API (0.4): the config's `mass` (unit, diagonal, dense, or an unknown word),
//! `approach`, `jitter_steps` and `reserved` (valid or not); warm-ups too short for a mass matrix
//! (1-19), none (the matrix the identity until set), 20 to 67 (windows that end within an input,
//! after the approach's share) or long; workspaces of `sgs_amagold_workspace_len_for`, one short,
//! 6·d, 10·d, longer; copies onto such workspaces; at any point of the sequence, on any state
//! pointer: `…_set_step_size` (typical, 0, negative, NaN, ∞, denormal, 0 or ∞ in float),
//! `…_set_inverse_mass` and `…_set_inverse_mass_dense` (values positive, 0, −0, negative, NaN,
//! ±∞, tiny, huge; dense matrices symmetric positive definite by construction, spoilt in one
//! entry, or arbitrary; `k` anywhere, lengths right, short, zero, huge), `…_inverse_mass` and
//! `…_inverse_mass_dense`, `…_warmup_report`, and `…_warmup_compare` over lists of live chains
//! (several, repeated, of other dimensions; NULL, garbage and other kinds' states; 0, 1-6 or
//! 60-67 entries) with the output anywhere (over a state, a workspace, the list);
//! `sgs_amagold_workspace_len_for` against the header's rule; callbacks that abort, reject or
//! return NaN or ∞ at any point of the warm-up (the models' scripts).
//!
//! Oracle, checked after every call:
//! * every status is documented (`sgs_status_str` is not "unknown status");
//! * bytes of the arena outside what the call may write are unchanged; after an error status
//!   that means the state and the workspace are unchanged, except what `run` documents (the
//!   rows, totals and state of the iterations completed before the error);
//! * after a failed chain iteration (callback ABORT) only AMAGOLD's scratch blocks may differ
//!   (its position, momentum, mass factors, window sums and the approach's pairs may not), and
//!   everything the getters read (position, momentum, inverse mass diagonal and d×d, iteration
//!   and divergence counts, energy, step size, warm-up flag, every field of the warm-up report)
//!   is as before;
//! * after `SGS_OK` every position (chain position, every row of `run`, every SVGD particle) is
//!   finite, and the inverse mass is all ones without a mass matrix (and at init), else positive
//!   and finite; the d×d inverse mass is symmetric with a positive diagonal (the identity without
//!   a mass matrix, diagonal for a diagonal one);
//! * the warm-up API: a refused setter changes nothing; a setter that succeeds was given a live
//!   chain of a matching kind and `k_len` = d (d²), writes only that chain's state and workspace,
//!   and the getters then read what it set (a diagonal exactly; through a dense factor to
//!   rounding), the position unchanged; with a live chain and a valid disjoint `k` of the right
//!   length the status is `SGS_OK`, `SGS_ERR_INVALID_MASS` (values) or `SGS_ERR_MASS_MISMATCH`
//!   (kind) as the values and kind say; `set_step_size` on a live chain is `SGS_OK` exactly when
//!   ε is finite and positive in the coordinate type, and changes only the step size; every
//!   report's verdict is one of the four, OK and NONE without reasons and SUSPECT with one, only
//!   documented flags, RUNNING exactly while the chain is in its warm-up; a comparison that
//!   succeeds writes exactly k reports, each the chain's own but for `CHAINS_DISAGREE` (then
//!   SUSPECT), over live chains of one dimension, and one that every rule allows must succeed;
//! * a successful `sgs_*_copy` of a chain reads as its source, and then the source and the copy,
//!   stepped alternately with their shared model's script rewound, return the same statuses,
//!   call their callbacks alike and read alike after every iteration;
//! * a moved state gets `SGS_ERR_STATE_MOVED`; in-place re-homing and `clear` of an aligned
//!   state succeed, and `clear` zeroes exactly the state's bytes (with an iteration in phases
//!   open both are refused with `SGS_ERR_ITERATION_IN_PROGRESS`, as are step, run, the force
//!   getter and copy);
//! * the iteration in phases: each status as the target's model of the bookkeeping says, each
//!   call writing only what it may, the state restored byte for byte by `cancel` and a failing
//!   `finish`, and a completed iteration bit for bit `sgs_svgd_step` on a twin copied before
//!   `begin` (see the section "The SVGD iteration in phases" below);
//! * `set_batch_size` and `run_scheduled`: each status as the header lists it (refused with an
//!   iteration in phases open), nothing changed on a refusal, and a scheduled run bit for bit
//!   `set_batch_size(p_k)` + `step` on a twin wherever the header fixes p_k (see the section
//!   "The growing batch size" below);
//! * `run_batch` (every chain kind, f64 and f32): a batch equals k separate runs bit for bit, an
//!   ABORT keeps each chain's prefix, a call with one bad argument gets exactly its status and
//!   writes nothing (see the section "K chains per call" below);
//! * `sgs_normal` / `sgs_uniform` (f64, f32): `SGS_OK` exactly for an aligned non-NULL output
//!   and a representable length, then the values of `sgsample::noise` bit for bit and a prefix
//!   of a longer fill; nothing else written;
//! * the sharded RBM-SVGD (f64, f32): `ranges` and the size queries exactly the header's values
//!   (in 128 bits) or its statuses, nothing written on a refusal; an init succeeds exactly when
//!   every argument is valid; in a system of shards every fuzzed call (one fault: a pointer, a
//!   length, the state moved, cleared or of the other float type, a record, a partial, the wrong
//!   stage) gets exactly its status, calls no callback and writes nothing but the scratch its
//!   failure may leave, a callback's call into its own shard gets BUSY, the records are well
//!   formed, and every commit leaves the particles bit for bit those of `sgs_svgd_step` on a
//!   whole-system twin (the same status; nothing moved after a failure that cancels everywhere;
//!   see the section "The sharded RBM-SVGD" below);
//! * no crash, panic, AddressSanitizer report or overflow (debug assertions are on).
#![no_main]

use core::ffi::{c_void, CStr};
use core::mem::size_of;
use libfuzzer_sys::fuzz_target;
use sgsample::ffi::*;

const ARENA: usize = 16 * 1024;
/// Lengths at or above this cannot describe memory (2⁶¹ elements of ≥ 4 bytes ≥ 2⁶³ bytes): the
/// library must refuse them without touching anything.
const HUGE: usize = 1 << 61;
const MAX_OPS: usize = 32;

/// `SGS_FUZZ_TRACE=1 cargo fuzz run c_api <input>` prints each call and its status.
fn trace() -> bool {
    static T: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *T.get_or_init(|| std::env::var_os("SGS_FUZZ_TRACE").is_some())
}

// ---------------------------------------------------------------------------------------------
// Input decoding.

struct Bytes<'a> {
    d: &'a [u8],
    i: usize,
}

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let b = self.d.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        b
    }
    fn done(&self) -> bool {
        self.i >= self.d.len()
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | (u32::from(self.u16()) << 16)
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
    fn below(&mut self, n: usize) -> usize {
        self.u16() as usize % n
    }
    /// A float biased towards useful values: small positive, 0, negative, NaN, ±∞, huge, raw bits.
    fn f64_in(&mut self, typical: &[f64]) -> f64 {
        match self.u8() % 16 {
            0..=9 => typical[self.u8() as usize % typical.len()],
            10 => 0.0,
            11 => -typical[0],
            12 => f64::NAN,
            13 => f64::INFINITY,
            14 => 1e300,
            _ => f64::from_bits(self.u64()),
        }
    }
    fn u32_small(&mut self, max: u32) -> u32 {
        match self.u8() % 8 {
            0..=5 => self.u32() % (max + 1),
            6 => 0,
            _ => self.u32(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Coordinates and callbacks.

trait Flt: Copy + 'static {
    const SIZE: usize;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}
impl Flt for f64 {
    const SIZE: usize = 8;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}
impl Flt for f32 {
    const SIZE: usize = 4;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// What the callbacks of one sampler do, call after call (`user_data`; NULL behaves well).
struct Model {
    script: Vec<u8>,
    calls: usize,
    curvature: f64,
}

impl Model {
    fn next(ud: *mut c_void) -> (u8, f64) {
        // SAFETY: user_data is NULL or one of the boxed models, alive for the whole input.
        match unsafe { ud.cast::<Model>().as_mut() } {
            Some(m) if !m.script.is_empty() => {
                let b = m.script[m.calls % m.script.len()];
                m.calls += 1;
                note_impure(b);
                (b, m.curvature)
            }
            Some(m) => (0, m.curvature),
            None => (0, 1.0),
        }
    }
}

/// Low nibble: the return value (mostly OK; REJECT, ABORT and unknown values that mean ABORT).
fn ret_of(b: u8) -> i32 {
    match b & 15 {
        0..=10 => SGS_CB_OK,
        11 | 12 => SGS_CB_REJECT,
        13 => SGS_CB_ABORT,
        14 => 7,
        _ => -1,
    }
}

/// High bits: what is written (the true value, NaN, ∞, a huge value, or nothing at all).
fn val_of(b: u8, v: f64) -> Option<f64> {
    match (b >> 4) & 7 {
        0..=3 => Some(v),
        4 => Some(f64::NAN),
        5 => Some(if v < 0.0 { f64::NEG_INFINITY } else { f64::INFINITY }),
        6 => Some(if v < 0.0 { -1e300 } else { 1e300 }),
        _ => None,
    }
}

fn wobble(seed: u64) -> f64 {
    ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.1
}

unsafe extern "C" fn energy_cb<T: Flt>(ud: *mut c_void, x: *const T, d: usize, u: *mut f64) -> i32 {
    // SAFETY: the library passes d readable values and a writable `u`.
    let xs = unsafe { core::slice::from_raw_parts(x, d) };
    let (b, a) = Model::next(ud);
    let e = 0.5 * a * xs.iter().map(|v| v.to_f64() * v.to_f64()).sum::<f64>();
    if let Some(v) = val_of(b, e) {
        // SAFETY: as above.
        unsafe { u.write(v) };
    }
    ret_of(b)
}

unsafe extern "C" fn gradient_cb<T: Flt>(
    ud: *mut c_void,
    x: *const T,
    d: usize,
    seed: u64,
    g: *mut T,
) -> i32 {
    // SAFETY: the library passes d readable values at x and d writable ones at g.
    let (xs, gs) = unsafe {
        (
            core::slice::from_raw_parts(x, d).to_vec(),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    let (b, a) = Model::next(ud);
    for (gi, xi) in gs.iter_mut().zip(&xs) {
        if let Some(v) = val_of(b, a * xi.to_f64() + wobble(seed)) {
            *gi = T::from_f64(v);
        }
    }
    ret_of(b)
}

/// TunaMH's term differences: `0.5·‖θ′ − θ‖·cos(0.7·i + a)` for term i, inside any declared
/// bound of at least 0.5 (the configurations also declare smaller ones: then the library must
/// refuse the step with `SGS_ERR_BOUND_EXCEEDED`), or what the script says instead.
unsafe extern "C" fn differences_cb<T: Flt>(
    ud: *mut c_void,
    theta: *const T,
    proposal: *const T,
    d: usize,
    indices: *const u64,
    count: usize,
    out: *mut f64,
) -> i32 {
    assert!((1..=32).contains(&count), "differences called with {count} indices");
    // SAFETY: the library passes d readable values at theta and proposal, count indices and
    // count writable values.
    let (x, y, idx, o) = unsafe {
        (
            core::slice::from_raw_parts(theta, d),
            core::slice::from_raw_parts(proposal, d),
            core::slice::from_raw_parts(indices, count).to_vec(),
            core::slice::from_raw_parts_mut(out, count),
        )
    };
    let dist = x.iter().zip(y).map(|(a, b)| (b.to_f64() - a.to_f64()).powi(2)).sum::<f64>().sqrt();
    let (b, a) = Model::next(ud);
    for (oj, &i) in o.iter_mut().zip(&idx) {
        if let Some(v) = val_of(b, 0.5 * dist * (0.7 * i as f64 + a).cos()) {
            *oj = v;
        }
    }
    ret_of(b)
}

/// TunaMH's exact part: the difference of `0.5·a·‖θ‖²`.
unsafe extern "C" fn exact_cb<T: Flt>(
    ud: *mut c_void,
    theta: *const T,
    proposal: *const T,
    d: usize,
    u: *mut f64,
) -> i32 {
    // SAFETY: the library passes d readable values at theta and proposal and a writable `u`.
    let (x, y) = unsafe { (core::slice::from_raw_parts(theta, d), core::slice::from_raw_parts(proposal, d)) };
    let (b, a) = Model::next(ud);
    let sq = |v: &[T]| v.iter().map(|t| t.to_f64() * t.to_f64()).sum::<f64>();
    if let Some(v) = val_of(b, 0.5 * a * (sq(y) - sq(x))) {
        // SAFETY: as above.
        unsafe { u.write(v) };
    }
    ret_of(b)
}

unsafe extern "C" fn gradients_cb<T: Flt>(
    ud: *mut c_void,
    xs: *const T,
    n: usize,
    d: usize,
    seed: u64,
    gs: *mut T,
) -> i32 {
    // SAFETY: the library passes n·d readable values at xs and n·d writable ones at gs.
    let (xs, gs) = unsafe {
        (
            core::slice::from_raw_parts(xs, n * d).to_vec(),
            core::slice::from_raw_parts_mut(gs, n * d),
        )
    };
    let (b, a) = Model::next(ud);
    for (gi, xi) in gs.iter_mut().zip(&xs) {
        if let Some(v) = val_of(b, a * xi.to_f64() + wobble(seed)) {
            *gi = T::from_f64(v);
        }
    }
    ret_of(b)
}

// ---------------------------------------------------------------------------------------------
// The samplers, one type per kind.

/// The bytes the library writes as tags (first word of an initialised state).
const TAGS: [&[u8; 8]; 10] = [
    b"sgsAMG64", b"sgsAMG32", b"sgsSGH64", b"sgsSGH32", b"sgsSGL64", b"sgsSGL32", b"sgsSVG64",
    b"sgsSVG32", b"sgsTMH64", b"sgsTMH32",
];

/// What a chain's workspace holds beyond its 6·d (AMAGOLD; zero for the other chains): the mass
/// matrix (`SGS_MASS_…`, 0 without one or for an unknown value) and whether the approach's blocks
/// follow (a warm-up with `approach = 1`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Layout {
    mass: u32,
    approach: bool,
}

impl Layout {
    fn has_mass(&self) -> bool {
        self.mass != SGS_MASS_UNIT
    }
    /// Elements of the mass blocks for dimension d.
    fn mass_len(&self, d: usize) -> usize {
        match self.mass {
            SGS_MASS_DIAGONAL => 4 * d,
            SGS_MASS_DENSE => 2 * d + d * (d + 1),
            _ => 0,
        }
    }
}

trait ChainApi {
    type T: Flt;
    type Cfg: Copy;
    const KIND: usize;
    const STATE: usize;
    const INFO: usize;
    const SUM: usize;
    fn cfg(b: &mut Bytes) -> Self::Cfg;
    fn ws_len(d: usize) -> usize;
    /// The workspace length a chain of config `c` uses (AMAGOLD: `sgs_amagold_workspace_len_for`,
    /// which depends on the mass matrix and the approach), and its layout.
    fn ws_need(c: &Self::Cfg, d: usize) -> (usize, Layout);
    /// Whether the sampler has AMAGOLD's mass matrix, setters, report and comparison.
    const WARMUP_API: bool;
    /// `sgs_amagold_workspace_len_for(config, d)` (NULL config: `c = None`), if the sampler has it.
    unsafe fn ws_len_for(c: *const Self::Cfg, d: usize) -> Option<usize>;
    /// The inverse-mass getter, if the sampler has one.
    unsafe fn inverse_mass(s: *const u8, out: *mut Self::T, ol: usize) -> Option<i32>;
    /// The dense inverse-mass getter (d² values), if the sampler has one.
    unsafe fn inverse_mass_dense(s: *const u8, out: *mut Self::T, ol: usize) -> Option<i32>;
    /// `…_set_step_size`, if the sampler has one.
    unsafe fn set_step_size(s: *mut u8, eps: f64) -> Option<i32>;
    /// `…_set_inverse_mass` (`dense`: `…_set_inverse_mass_dense`), if the sampler has them.
    unsafe fn set_inverse_mass(dense: bool, s: *mut u8, k: *const Self::T, kl: usize) -> Option<i32>;
    /// `…_warmup_report`, if the sampler has one.
    unsafe fn warmup_report(s: *const u8, out: *mut sgs_warmup_report) -> Option<i32>;
    /// `…_warmup_compare`, if the sampler has one.
    unsafe fn warmup_compare(states: *const *const u8, k: usize, out: *mut sgs_warmup_report, ol: usize)
        -> Option<i32>;
    /// Element ranges of the workspace that a failed (aborted) iteration may leave changed:
    /// AMAGOLD's scratch blocks (θ', r₀, the working r, g; the dense chain's gradient in φ's
    /// coordinates; the approach's diagonal scaling and scratch gradient); the position, the
    /// persistent momentum, the mass blocks (factors, running window sums) and the approach's
    /// pairs must stay. `None`: the whole workspace (the other chains' layouts are not spelt out
    /// here).
    fn scratch(d: usize, lay: Layout, in_warmup: bool) -> Option<Vec<(usize, usize)>>;
    fn state_size() -> usize;
    fn state_align() -> usize;
    #[allow(clippy::too_many_arguments)]
    unsafe fn init(
        s: *mut u8,
        c: *const Self::Cfg,
        th: *const Self::T,
        d: usize,
        ws: *mut Self::T,
        wl: usize,
        energy: bool,
        gradient: bool,
        ud: *mut c_void,
    ) -> i32;
    unsafe fn step(s: *mut u8, info: *mut u8) -> i32;
    unsafe fn run(s: *mut u8, n: usize, out: *mut Self::T, ol: usize, done: *mut usize, sum: *mut u8) -> i32;
    unsafe fn position(s: *const u8, out: *mut Self::T, ol: usize) -> i32;
    /// The momentum getter, if the sampler has one.
    unsafe fn momentum(s: *const u8, out: *mut Self::T, ol: usize) -> Option<i32>;
    unsafe fn iterations(s: *const u8, out: *mut u64) -> i32;
    unsafe fn divergences(s: *const u8, out: *mut u64) -> i32;
    unsafe fn dim(s: *const u8, out: *mut usize) -> i32;
    unsafe fn clear(s: *mut u8) -> i32;
    unsafe fn copy(dst: *mut u8, ws: *mut Self::T, wl: usize, src: *const u8) -> i32;
    /// A sampler-specific value getter `k` (energy, step size, warm-up flag): writes to an
    /// 8-byte `out`, returns the status and the bytes written, or `None`.
    unsafe fn extra(k: u8, s: *const u8, out: *mut u8) -> Option<(i32, usize)>;
}

fn steps_of(b: &mut Bytes) -> u32 {
    // Bounded: a large T only makes the loop longer, and the fuzzer must stay fast.
    let t = b.u32_small(12);
    if t > 12 {
        1 + t % 12
    } else {
        t
    }
}

fn amagold_cfg(b: &mut Bytes) -> sgs_amagold_config {
    let mut c = sgs_amagold_config_default(b.f64_in(&[0.1, 0.01, 0.5, 1e-3, 2.0]));
    if b.u8() & 1 == 1 {
        c.friction = b.f64_in(&[0.25, 0.0, 1.0, 10.0]);
        c.momentum_sd = b.f64_in(&[1.0, 0.5, 3.0]);
        c.target_accept = b.f64_in(&[0.65, 0.9, 0.01]);
        c.warmup = u64::from(b.u8() % 8);
        c.steps = steps_of(b);
        c.variant = b.u32_small(1);
    }
    c.seed = u64::from(b.u8());
    // The stream byte: bits 0-1 the stream, bits 2-4 the mass matrix (0-4, most: unit, and no
    // more bytes read), bits 5-7 the new option words without another byte (bit 5: jittered T,
    // bit 6: no approach; with a mass matrix bit 7: dense rather than diagonal).
    let k = b.u8();
    c.stream = u64::from(k % 4);
    c.jitter_steps = u32::from(k & 0x20 != 0);
    c.approach = u32::from(k & 0x40 == 0);
    match (k >> 2) % 8 {
        0..=4 => {}
        5 | 6 => {
            c.mass = if k & 0x80 != 0 { SGS_MASS_DENSE } else { SGS_MASS_DIAGONAL };
            // Mostly warm-ups whose windows end within an input's few hundred iterations
            // (20: the shortest allowed; with the approach its share comes first); also too
            // short (1-19: `SGS_ERR_INVALID_WARMUP`), none (the matrix is the identity until a
            // setter sets it), Stan's full schedule (≥ 150) or a huge one.
            c.warmup = match b.u8() % 16 {
                0 => 19,
                1 => 0,
                2 => 20,
                3 => 150 + u64::from(b.u8()),
                4 => b.u64(),
                5 => 1 + u64::from(b.u8() % 19),
                6 => 0,
                _ => 20 + u64::from(b.u8() % 48),
            };
            if b.u8() % 4 == 0 {
                c.target_accept = b.f64_in(&[0.65, 0.9, 0.01]);
            }
        }
        _ => {
            // Invalid option words (`SGS_ERR_INVALID_OPTION`), or valid ones by chance.
            c.mass = b.u32_small(2);
            c.reserved = b.u32_small(0);
            c.approach = b.u32_small(1);
            c.jitter_steps = b.u32_small(1);
            c.warmup = 20 + u64::from(b.u8() % 48);
        }
    }
    c
}

/// The layout of an AMAGOLD configuration (for a config `init` may refuse: what its words say).
fn amagold_layout(c: &sgs_amagold_config) -> Layout {
    Layout {
        mass: if c.mass <= SGS_MASS_DENSE { c.mass } else { SGS_MASS_UNIT },
        approach: c.warmup > 0 && c.approach == 1,
    }
}

fn sghmc_cfg(b: &mut Bytes) -> sgs_sghmc_config {
    let mut c = sgs_sghmc_config_default(b.f64_in(&[0.1, 0.01, 0.5, 1e-3]));
    if b.u8() & 1 == 1 {
        c.friction = b.f64_in(&[0.25, 0.0, 1.0, 10.0]);
        c.momentum_sd = b.f64_in(&[1.0, 0.5, 3.0]);
        c.steps = steps_of(b);
        c.resample_momentum = b.u32_small(1);
    }
    c.seed = u64::from(b.u8());
    c
}

fn sgld_cfg(b: &mut Bytes) -> sgs_sgld_config {
    let mut c = sgs_sgld_config_default(b.f64_in(&[0.1, 0.01, 0.5, 1e-3]));
    if b.u8() & 1 == 1 {
        c.steps = steps_of(b);
        // The word that was `reserved` is `mass` now: 0, or an invalid value
        // (`SGS_ERR_INVALID_OPTION`). SGS_MASS_DIAGONAL (1) is valid but needs the larger
        // workspace of `sgs_sgld_workspace_len_for`, which the chains' oracles (`ws_need`) do
        // not know yet: it is mapped to 2 (invalid) until they do.
        c.mass = match b.u32_small(0) {
            1 => 2,
            m => m,
        };
    }
    c.seed = u64::from(b.u8());
    c
}

fn tunamh_cfg(b: &mut Bytes) -> sgs_tunamh_config {
    // At most 300 terms: a full pass is N/32 calls, and the fuzzer runs many steps.
    let terms = [40, 1, 5, 300][b.u8() as usize % 4];
    let mut c = sgs_tunamh_config_default(b.f64_in(&[0.1, 0.01, 0.5, 1e-3]), terms,
                                          b.f64_in(&[1.0, 2.0, 0.5, 0.1]));
    if b.u8() & 1 == 1 {
        c.chi = b.f64_in(&[1.0, 0.05, 1e-3, 10.0]);
        if b.u8() % 8 == 0 {
            c.terms = 0; // SGS_ERR_INVALID_BOUND
        }
    }
    c.seed = u64::from(b.u8());
    c
}

macro_rules! chain_impl {
    ($K:ident, $kind:expr, $T:ty, $S:ty, $Cfg:ty, $Info:ty, $Sum:ty, $cfg:ident,
     energy = $energy:tt,
     $wsl:ident $size:ident $align:ident $init:ident $step:ident $run:ident $pos:ident
     $iters:ident $divs:ident $dim:ident $clear:ident $copy:ident,
     momentum = [$($mom:ident)?],
     mass = [$($wsf:ident $inv:ident $invd:ident $sss:ident $sim:ident $simd:ident $rep:ident $cmp:ident)?],
     layout = $layout:expr,
     extra = |$k:ident, $s:ident, $out:ident| $extra:expr) => {
        struct $K;
        impl ChainApi for $K {
            type T = $T;
            type Cfg = $Cfg;
            const KIND: usize = $kind;
            const STATE: usize = size_of::<$S>();
            const INFO: usize = size_of::<$Info>();
            const SUM: usize = size_of::<$Sum>();
            fn cfg(b: &mut Bytes) -> $Cfg {
                $cfg(b)
            }
            fn ws_len(d: usize) -> usize {
                $wsl(d)
            }
            #[allow(unused_variables)]
            fn ws_need(c: &$Cfg, d: usize) -> (usize, Layout) {
                let lay: fn(&$Cfg) -> Layout = $layout;
                let lay = lay(c);
                $(
                    // SAFETY: a config on the stack.
                    // (0 for an unknown `mass`, which init refuses: then 6·d.)
                    return (unsafe { $wsf(c, d) }.max($wsl(d)), lay);
                )?
                #[allow(unreachable_code)]
                ($wsl(d), lay)
            }
            const WARMUP_API: bool = false $(|| { let _ = $wsf; true })?;
            #[allow(unused_variables)]
            unsafe fn ws_len_for(c: *const $Cfg, d: usize) -> Option<usize> {
                None $(.or(Some(unsafe { $wsf(c, d) })))?
            }
            #[allow(unused_variables)]
            unsafe fn inverse_mass(s: *const u8, out: *mut $T, ol: usize) -> Option<i32> {
                None $(.or(Some(unsafe { $inv(s.cast(), out, ol) as i32 })))?
            }
            #[allow(unused_variables)]
            unsafe fn inverse_mass_dense(s: *const u8, out: *mut $T, ol: usize) -> Option<i32> {
                None $(.or(Some(unsafe { $invd(s.cast(), out, ol) as i32 })))?
            }
            #[allow(unused_variables)]
            unsafe fn set_step_size(s: *mut u8, eps: f64) -> Option<i32> {
                None $(.or(Some(unsafe { $sss(s.cast(), eps) as i32 })))?
            }
            #[allow(unused_variables)]
            unsafe fn set_inverse_mass(dense: bool, s: *mut u8, k: *const $T, kl: usize) -> Option<i32> {
                None $(.or(Some(unsafe {
                    if dense { $simd(s.cast(), k, kl) as i32 } else { $sim(s.cast(), k, kl) as i32 }
                })))?
            }
            #[allow(unused_variables)]
            unsafe fn warmup_report(s: *const u8, out: *mut sgs_warmup_report) -> Option<i32> {
                None $(.or(Some(unsafe { $rep(s.cast(), out) as i32 })))?
            }
            #[allow(unused_variables)]
            unsafe fn warmup_compare(
                states: *const *const u8,
                k: usize,
                out: *mut sgs_warmup_report,
                ol: usize,
            ) -> Option<i32> {
                None $(.or(Some(unsafe { $cmp(states.cast(), k, out, ol) as i32 })))?
            }
            #[allow(unused_variables)]
            fn scratch(d: usize, lay: Layout, _in_warmup: bool) -> Option<Vec<(usize, usize)>> {
                // `$wsf` only marks AMAGOLD, the sampler with a mass matrix.
                None $(.or({
                    let _ = $wsf;
                    let mut r = vec![(d, 2 * d), (3 * d, 6 * d)];
                    if lay.mass == SGS_MASS_DENSE {
                        // The gradient in φ's coordinates.
                        r.push((6 * d, 7 * d));
                    }
                    if lay.approach {
                        // The diagonal scaling (recomputed until the first iteration commits)
                        // and the scratch gradient at θ.
                        let a = 6 * d + lay.mass_len(d);
                        r.push((a, a + 2 * d));
                    }
                    Some(r)
                }))?
            }
            fn state_size() -> usize {
                $size()
            }
            fn state_align() -> usize {
                $align()
            }
            unsafe fn init(
                s: *mut u8,
                c: *const $Cfg,
                th: *const $T,
                d: usize,
                ws: *mut $T,
                wl: usize,
                energy: bool,
                gradient: bool,
                ud: *mut c_void,
            ) -> i32 {
                chain_impl!(@init $energy, $init, s, c, th, d, ws, wl, energy, gradient, ud, $T)
            }
            unsafe fn step(s: *mut u8, info: *mut u8) -> i32 {
                unsafe { $step(s.cast(), info.cast()) as i32 }
            }
            unsafe fn run(s: *mut u8, n: usize, out: *mut $T, ol: usize, done: *mut usize, sum: *mut u8) -> i32 {
                unsafe { $run(s.cast(), n, out, ol, done, sum.cast()) as i32 }
            }
            unsafe fn position(s: *const u8, out: *mut $T, ol: usize) -> i32 {
                unsafe { $pos(s.cast(), out, ol) as i32 }
            }
            #[allow(unused_variables)]
            unsafe fn momentum(s: *const u8, out: *mut $T, ol: usize) -> Option<i32> {
                None $(.or(Some(unsafe { $mom(s.cast(), out, ol) as i32 })))?
            }
            unsafe fn iterations(s: *const u8, out: *mut u64) -> i32 {
                unsafe { $iters(s.cast(), out) as i32 }
            }
            unsafe fn divergences(s: *const u8, out: *mut u64) -> i32 {
                unsafe { $divs(s.cast(), out) as i32 }
            }
            unsafe fn dim(s: *const u8, out: *mut usize) -> i32 {
                unsafe { $dim(s.cast(), out) as i32 }
            }
            unsafe fn clear(s: *mut u8) -> i32 {
                unsafe { $clear(s.cast()) as i32 }
            }
            unsafe fn copy(dst: *mut u8, ws: *mut $T, wl: usize, src: *const u8) -> i32 {
                unsafe { $copy(dst.cast(), ws, wl, src.cast()) as i32 }
            }
            #[allow(unused_variables, unused_unsafe)]
            unsafe fn extra($k: u8, $s: *const u8, $out: *mut u8) -> Option<(i32, usize)> {
                unsafe { $extra }
            }
        }
    };
    (@init true, $init:ident, $s:ident, $c:ident, $th:ident, $d:ident, $ws:ident, $wl:ident, $energy:ident, $gradient:ident, $ud:ident, $T:ty) => {{
        let g = if $gradient { Some(gradient_cb::<$T> as _) } else { None };
        let e = if $energy { Some(energy_cb::<$T> as _) } else { None };
        unsafe { $init($s.cast(), $c, $th, $d, $ws, $wl, e, g, $ud) as i32 }
    }};
    (@init false, $init:ident, $s:ident, $c:ident, $th:ident, $d:ident, $ws:ident, $wl:ident, $energy:ident, $gradient:ident, $ud:ident, $T:ty) => {{
        let _ = $energy;
        let g = if $gradient { Some(gradient_cb::<$T> as _) } else { None };
        unsafe { $init($s.cast(), $c, $th, $d, $ws, $wl, g, $ud) as i32 }
    }};
    // TunaMH: the energy flag is its optional exact part, the gradient flag its differences.
    (@init tunamh, $init:ident, $s:ident, $c:ident, $th:ident, $d:ident, $ws:ident, $wl:ident, $energy:ident, $gradient:ident, $ud:ident, $T:ty) => {{
        let g = if $gradient { Some(differences_cb::<$T> as _) } else { None };
        let e = if $energy { Some(exact_cb::<$T> as _) } else { None };
        unsafe { $init($s.cast(), $c, $th, $d, $ws, $wl, e, g, $ud) as i32 }
    }};
}

chain_impl!(Amg64, 0, f64, sgs_amagold, sgs_amagold_config, sgs_amagold_info, sgs_amagold_run_summary,
    amagold_cfg, energy = true,
    sgs_amagold_workspace_len sgs_amagold_state_size sgs_amagold_state_align sgs_amagold_init
    sgs_amagold_step sgs_amagold_run sgs_amagold_position sgs_amagold_iterations
    sgs_amagold_divergences sgs_amagold_dim sgs_amagold_clear sgs_amagold_copy,
    momentum = [sgs_amagold_momentum],
    mass = [sgs_amagold_workspace_len_for sgs_amagold_inverse_mass sgs_amagold_inverse_mass_dense
        sgs_amagold_set_step_size sgs_amagold_set_inverse_mass sgs_amagold_set_inverse_mass_dense
        sgs_amagold_warmup_report sgs_amagold_warmup_compare],
    layout = amagold_layout,
    extra = |k, s, out| match k % 3 {
        0 => Some((sgs_amagold_energy(s.cast(), out.cast()) as i32, 8)),
        1 => Some((sgs_amagold_step_size(s.cast(), out.cast()) as i32, 8)),
        _ => Some((sgs_amagold_in_warmup(s.cast(), out.cast()) as i32, 4)),
    });
chain_impl!(Amg32, 1, f32, sgs_amagold_f32, sgs_amagold_config, sgs_amagold_info,
    sgs_amagold_run_summary, amagold_cfg, energy = true,
    sgs_amagold_workspace_len_f32 sgs_amagold_state_size_f32 sgs_amagold_state_align_f32
    sgs_amagold_init_f32 sgs_amagold_step_f32 sgs_amagold_run_f32 sgs_amagold_position_f32
    sgs_amagold_iterations_f32 sgs_amagold_divergences_f32 sgs_amagold_dim_f32 sgs_amagold_clear_f32 sgs_amagold_copy_f32,
    momentum = [sgs_amagold_momentum_f32],
    mass = [sgs_amagold_workspace_len_for_f32 sgs_amagold_inverse_mass_f32
        sgs_amagold_inverse_mass_dense_f32 sgs_amagold_set_step_size_f32
        sgs_amagold_set_inverse_mass_f32 sgs_amagold_set_inverse_mass_dense_f32
        sgs_amagold_warmup_report_f32 sgs_amagold_warmup_compare_f32],
    layout = amagold_layout,
    extra = |k, s, out| match k % 3 {
        0 => Some((sgs_amagold_energy_f32(s.cast(), out.cast()) as i32, 8)),
        1 => Some((sgs_amagold_step_size_f32(s.cast(), out.cast()) as i32, 8)),
        _ => Some((sgs_amagold_in_warmup_f32(s.cast(), out.cast()) as i32, 4)),
    });
chain_impl!(Sgh64, 2, f64, sgs_sghmc, sgs_sghmc_config, sgs_sghmc_info, sgs_sghmc_run_summary,
    sghmc_cfg, energy = false,
    sgs_sghmc_workspace_len sgs_sghmc_state_size sgs_sghmc_state_align sgs_sghmc_init
    sgs_sghmc_step sgs_sghmc_run sgs_sghmc_position sgs_sghmc_iterations sgs_sghmc_divergences
    sgs_sghmc_dim sgs_sghmc_clear sgs_sghmc_copy,
    momentum = [sgs_sghmc_momentum],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| { let r: Option<(i32, usize)> = None; r });
chain_impl!(Sgh32, 3, f32, sgs_sghmc_f32, sgs_sghmc_config, sgs_sghmc_info,
    sgs_sghmc_run_summary, sghmc_cfg, energy = false,
    sgs_sghmc_workspace_len_f32 sgs_sghmc_state_size_f32 sgs_sghmc_state_align_f32
    sgs_sghmc_init_f32 sgs_sghmc_step_f32 sgs_sghmc_run_f32 sgs_sghmc_position_f32
    sgs_sghmc_iterations_f32 sgs_sghmc_divergences_f32 sgs_sghmc_dim_f32 sgs_sghmc_clear_f32 sgs_sghmc_copy_f32,
    momentum = [sgs_sghmc_momentum_f32],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| { let r: Option<(i32, usize)> = None; r });
chain_impl!(Sgl64, 4, f64, sgs_sgld, sgs_sgld_config, sgs_sgld_info, sgs_sgld_run_summary,
    sgld_cfg, energy = false,
    sgs_sgld_workspace_len sgs_sgld_state_size sgs_sgld_state_align sgs_sgld_init sgs_sgld_step
    sgs_sgld_run sgs_sgld_position sgs_sgld_iterations sgs_sgld_divergences sgs_sgld_dim sgs_sgld_clear sgs_sgld_copy,
    momentum = [],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| { let r: Option<(i32, usize)> = None; r });
chain_impl!(Sgl32, 5, f32, sgs_sgld_f32, sgs_sgld_config, sgs_sgld_info, sgs_sgld_run_summary,
    sgld_cfg, energy = false,
    sgs_sgld_workspace_len_f32 sgs_sgld_state_size_f32 sgs_sgld_state_align_f32
    sgs_sgld_init_f32 sgs_sgld_step_f32 sgs_sgld_run_f32 sgs_sgld_position_f32
    sgs_sgld_iterations_f32 sgs_sgld_divergences_f32 sgs_sgld_dim_f32 sgs_sgld_clear_f32 sgs_sgld_copy_f32,
    momentum = [],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| { let r: Option<(i32, usize)> = None; r });
// TunaMH's extra values: accepted and evaluations (no warm-up flag: `extra(2)` is None).
chain_impl!(Tun64, 8, f64, sgs_tunamh, sgs_tunamh_config, sgs_tunamh_info, sgs_tunamh_run_summary,
    tunamh_cfg, energy = tunamh,
    sgs_tunamh_workspace_len sgs_tunamh_state_size sgs_tunamh_state_align sgs_tunamh_init
    sgs_tunamh_step sgs_tunamh_run sgs_tunamh_position sgs_tunamh_iterations
    sgs_tunamh_divergences sgs_tunamh_dim sgs_tunamh_clear sgs_tunamh_copy,
    momentum = [],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| match k {
        0 => Some((sgs_tunamh_accepted(s.cast(), out.cast()) as i32, 8)),
        1 => Some((sgs_tunamh_evaluations(s.cast(), out.cast()) as i32, 8)),
        _ => None,
    });
chain_impl!(Tun32, 9, f32, sgs_tunamh_f32, sgs_tunamh_config, sgs_tunamh_info,
    sgs_tunamh_run_summary, tunamh_cfg, energy = tunamh,
    sgs_tunamh_workspace_len_f32 sgs_tunamh_state_size_f32 sgs_tunamh_state_align_f32
    sgs_tunamh_init_f32 sgs_tunamh_step_f32 sgs_tunamh_run_f32 sgs_tunamh_position_f32
    sgs_tunamh_iterations_f32 sgs_tunamh_divergences_f32 sgs_tunamh_dim_f32 sgs_tunamh_clear_f32 sgs_tunamh_copy_f32,
    momentum = [],
    mass = [],
    layout = |_| Layout::default(),
    extra = |k, s, out| match k {
        0 => Some((sgs_tunamh_accepted_f32(s.cast(), out.cast()) as i32, 8)),
        1 => Some((sgs_tunamh_evaluations_f32(s.cast(), out.cast()) as i32, 8)),
        _ => None,
    });

trait SvgdApi {
    type T: Flt;
    const KIND: usize;
    const STATE: usize;
    unsafe fn ws_len(n: usize, d: usize, c: *const sgs_svgd_config) -> usize;
    fn index_len(n: usize) -> usize;
    fn state_size() -> usize;
    fn state_align() -> usize;
    #[allow(clippy::too_many_arguments)]
    unsafe fn init(
        s: *mut u8,
        c: *const sgs_svgd_config,
        p: *mut Self::T,
        n: usize,
        d: usize,
        ws: *mut Self::T,
        wl: usize,
        idx: *mut u32,
        il: usize,
        gradient: bool,
        gradients: bool,
        ud: *mut c_void,
    ) -> i32;
    unsafe fn step(s: *mut u8, info: *mut u8) -> i32;
    unsafe fn run(s: *mut u8, it: u64, sum: *mut u8) -> i32;
    unsafe fn particles(s: *const u8, out: *mut Self::T, ol: usize) -> i32;
    unsafe fn force(s: *const u8, out: *mut Self::T, ol: usize) -> i32;
    unsafe fn iterations(s: *const u8, out: *mut u64) -> i32;
    unsafe fn num_particles(s: *const u8, out: *mut usize) -> i32;
    unsafe fn dim(s: *const u8, out: *mut usize) -> i32;
    unsafe fn clear(s: *mut u8) -> i32;
    #[allow(clippy::too_many_arguments)]
    unsafe fn copy(
        dst: *mut u8,
        p: *mut Self::T,
        pl: usize,
        ws: *mut Self::T,
        wl: usize,
        idx: *mut u32,
        il: usize,
        src: *const u8,
    ) -> i32;
}

macro_rules! svgd_impl {
    ($K:ident, $kind:expr, $T:ty, $S:ty, $wsl:ident $il:ident $size:ident $align:ident $init:ident
     $step:ident $run:ident $parts:ident $force:ident $iters:ident $np:ident $dim:ident
     $clear:ident $copy:ident) => {
        struct $K;
        impl SvgdApi for $K {
            type T = $T;
            const KIND: usize = $kind;
            const STATE: usize = size_of::<$S>();
            unsafe fn ws_len(n: usize, d: usize, c: *const sgs_svgd_config) -> usize {
                unsafe { $wsl(n, d, c) }
            }
            fn index_len(n: usize) -> usize {
                $il(n)
            }
            fn state_size() -> usize {
                $size()
            }
            fn state_align() -> usize {
                $align()
            }
            unsafe fn init(
                s: *mut u8,
                c: *const sgs_svgd_config,
                p: *mut $T,
                n: usize,
                d: usize,
                ws: *mut $T,
                wl: usize,
                idx: *mut u32,
                il: usize,
                gradient: bool,
                gradients: bool,
                ud: *mut c_void,
            ) -> i32 {
                let g = if gradient { Some(gradient_cb::<$T> as _) } else { None };
                let gs = if gradients { Some(gradients_cb::<$T> as _) } else { None };
                unsafe { $init(s.cast(), c, p, n, d, ws, wl, idx, il, g, gs, ud) as i32 }
            }
            unsafe fn step(s: *mut u8, info: *mut u8) -> i32 {
                unsafe { $step(s.cast(), info.cast()) as i32 }
            }
            unsafe fn run(s: *mut u8, it: u64, sum: *mut u8) -> i32 {
                unsafe { $run(s.cast(), it, sum.cast()) as i32 }
            }
            unsafe fn particles(s: *const u8, out: *mut $T, ol: usize) -> i32 {
                unsafe { $parts(s.cast(), out, ol) as i32 }
            }
            unsafe fn force(s: *const u8, out: *mut $T, ol: usize) -> i32 {
                unsafe { $force(s.cast(), out, ol) as i32 }
            }
            unsafe fn iterations(s: *const u8, out: *mut u64) -> i32 {
                unsafe { $iters(s.cast(), out) as i32 }
            }
            unsafe fn num_particles(s: *const u8, out: *mut usize) -> i32 {
                unsafe { $np(s.cast(), out) as i32 }
            }
            unsafe fn dim(s: *const u8, out: *mut usize) -> i32 {
                unsafe { $dim(s.cast(), out) as i32 }
            }
            unsafe fn clear(s: *mut u8) -> i32 {
                unsafe { $clear(s.cast()) as i32 }
            }
            unsafe fn copy(
                dst: *mut u8,
                p: *mut $T,
                pl: usize,
                ws: *mut $T,
                wl: usize,
                idx: *mut u32,
                il: usize,
                src: *const u8,
            ) -> i32 {
                unsafe { $copy(dst.cast(), p, pl, ws, wl, idx, il, src.cast()) as i32 }
            }
        }
    };
}

svgd_impl!(Svgd64, 6, f64, sgs_svgd, sgs_svgd_workspace_len sgs_svgd_index_len
    sgs_svgd_state_size sgs_svgd_state_align sgs_svgd_init sgs_svgd_step sgs_svgd_run
    sgs_svgd_particles sgs_svgd_force sgs_svgd_iterations sgs_svgd_num_particles sgs_svgd_dim
    sgs_svgd_clear sgs_svgd_copy);
svgd_impl!(Svgd32, 7, f32, sgs_svgd_f32, sgs_svgd_workspace_len_f32 sgs_svgd_index_len_f32
    sgs_svgd_state_size_f32 sgs_svgd_state_align_f32 sgs_svgd_init_f32 sgs_svgd_step_f32
    sgs_svgd_run_f32 sgs_svgd_particles_f32 sgs_svgd_force_f32 sgs_svgd_iterations_f32
    sgs_svgd_num_particles_f32 sgs_svgd_dim_f32 sgs_svgd_clear_f32 sgs_svgd_copy_f32);

fn svgd_cfg(b: &mut Bytes, n: usize) -> sgs_svgd_config {
    let p = match b.u8() % 8 {
        0..=4 => 2 + b.u8() as u64 % (n.max(2) as u64 - 1),
        5 => n as u64,
        6 => u64::from(b.u8() % 3),
        _ => b.u64(),
    };
    let mut c = sgs_svgd_config_default(p, b.f64_in(&[0.1, 0.01, 0.5, 1e-3]));
    if b.u8() & 1 == 1 {
        c.adagrad_alpha = b.f64_in(&[0.9, 0.5, 0.0, 0.999]);
        c.bandwidth = b.f64_in(&[1.0, 2.0, 0.1]);
        c.imq_c = b.f64_in(&[1.0, 0.5]);
        c.imq_beta = b.f64_in(&[0.5, 1.0]);
        c.batching = b.u32_small(1);
        c.kernel = b.u32_small(2);
        c.step_rule = b.u32_small(2);
        c.reserved = b.u32_small(0);
        // The KSD moves the particles in `finish` rather than in the phases' ranges.
        c.ksd = b.u32_small(2);
    }
    c.seed = u64::from(b.u8());
    c
}

// ---------------------------------------------------------------------------------------------
// The caller's memory and what is alive in it.

#[derive(Clone)]
struct Live {
    kind: usize,
    state: usize,
    /// Byte ranges the sampler owns (state, workspace, index): a change made by another call
    /// means the caller broke it, so it is forgotten.
    owned: Vec<(usize, usize)>,
    /// SVGD particles: caller data the sampler moves (the caller may also change them).
    particles: Option<(usize, usize)>,
    d: usize,
    n: usize,
    /// Chains: the workspace length the chain uses (what a copy needs) and its layout (the mass
    /// matrix, the approach's blocks).
    ws_need: usize,
    lay: Layout,
    /// The callbacks' `user_data` (a `Model` or NULL), shared by a chain and its copies.
    ud: usize,
    /// SVGD: the iteration in phases the target began on it and has not ended, if any.
    phase: Option<Box<Phase>>,
    /// SVGD: (with replacement, KSD on), from the config at init (what `set_batch_size` and
    /// `run_scheduled` refuse with `SGS_ERR_INVALID_OPTION`).
    opts: (bool, bool),
}

struct Ctx {
    arena: Vec<u64>,
    before: Vec<u8>,
    live: Vec<Live>,
    models: Vec<Box<Model>>,
}

fn bytes_of(a: &[u64]) -> &[u8] {
    // SAFETY: u64 has no padding; u8 has alignment 1.
    unsafe { core::slice::from_raw_parts(a.as_ptr().cast(), a.len() * 8) }
}

fn check_status(what: &str, s: i32) {
    // SAFETY: sgs_status_str returns a static nul-terminated string.
    let msg = unsafe { CStr::from_ptr(sgs_status_str(s)) };
    assert!(
        msg.to_bytes() != b"unknown status",
        "{what} returned the undocumented status {s}"
    );
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1
}

impl Ctx {
    fn base(&mut self) -> *mut u8 {
        self.arena.as_mut_ptr().cast()
    }
    fn bytes(&self) -> &[u8] {
        bytes_of(&self.arena)
    }
    fn snapshot(&mut self) {
        // Into the same buffer every time: one memcpy, no allocation.
        let now = bytes_of(&self.arena);
        self.before.resize(now.len(), 0);
        self.before.copy_from_slice(now);
    }
    fn ptr<T>(&mut self, off: Option<usize>) -> *mut T {
        match off {
            None => core::ptr::null_mut(),
            Some(o) => self.base().wrapping_add(o).cast(),
        }
    }
    /// Checks that no byte outside `allowed` changed since the snapshot.
    fn check_only(&self, what: &str, status: i32, allowed: &[(usize, usize)]) {
        let now = self.bytes();
        // Slice comparisons (memcmp) first: a byte loop would be slow under the fuzzer's
        // comparison tracing.
        if self.before[..] == now[..] {
            return;
        }
        let chunks = self.before.chunks(64).zip(now.chunks(64)).enumerate();
        for (i, (a, b)) in chunks.filter(|(_, (a, b))| a != b).flat_map(|(c, (a, b))| {
            a.iter().zip(b.iter()).enumerate().map(move |(k, ab)| (c * 64 + k, ab))
        }) {
            if a != b && !allowed.iter().any(|&(s, e)| s <= i && i < e) {
                panic!(
                    "{what} (status {status}) wrote arena byte {i} outside what it may write \
                     (allowed {allowed:?}; live {:?})",
                    self.live.iter().map(|l| (l.kind, l.state, &l.owned)).collect::<Vec<_>>()
                );
            }
        }
    }
    /// Forgets every live sampler but `keep` whose memory changed since the snapshot.
    /// Returns the new index of `keep`.
    fn forget_clobbered(&mut self, keep: Option<usize>) -> Option<usize> {
        let before = core::mem::take(&mut self.before);
        let now = bytes_of(&self.arena);
        let (mut i, mut kept, mut new_keep) = (0, 0, None);
        self.live.retain(|l| {
            let k = i;
            i += 1;
            let stay = Some(k) == keep || l.owned.iter().all(|&(s, e)| before[s..e] == now[s..e]);
            if stay {
                if Some(k) == keep {
                    new_keep = Some(kept);
                }
                kept += 1;
            }
            stay
        });
        self.before = before;
        new_keep
    }
    /// An offset into the arena (or None for NULL) for `size` bytes of a type aligned to
    /// `align`: random, aligned random, inside a live sampler's memory, or misaligned.
    fn pick(&mut self, b: &mut Bytes, size: usize, align: usize) -> Option<usize> {
        // A buffer larger than the arena starts at 0 (its length is then capped by `len`).
        let size = size.clamp(1, ARENA);
        let o = match b.u8() % 10 {
            0 => return None,
            1 => b.below(ARENA),
            2..=5 => b.below(ARENA) / align * align,
            6 | 7 if !self.live.is_empty() => {
                let l = &self.live[b.below(self.live.len())];
                let (s, e) = l.owned[b.u8() as usize % l.owned.len()];
                let off = s + b.below(e - s + 1);
                if b.u8() & 1 == 0 {
                    off / align * align
                } else {
                    off
                }
            }
            8 if !self.live.is_empty() => {
                let l = &self.live[b.below(self.live.len())];
                l.particles.map_or(0, |p| p.0)
            }
            _ => (ARENA / 2 + b.below(ARENA / 2)) / align * align,
        };
        if o + size > ARENA {
            (ARENA - size) / align * align
        } else {
            o
        }
        .into()
    }
    /// A length for `need` elements of `elem` bytes at `off`: right, one short, zero, random, or
    /// huge; never more than the memory behind the pointer unless huge.
    fn len(&mut self, b: &mut Bytes, off: Option<usize>, elem: usize, need: usize) -> usize {
        self.len_or(b, off, elem, need, need)
    }
    /// As `len`, with `alt` in one case of ten: a workspace length of the other kind (AMAGOLD's
    /// 6·d for a chain with a mass matrix, 10·d without one) or one too long.
    fn len_or(&mut self, b: &mut Bytes, off: Option<usize>, elem: usize, need: usize, alt: usize) -> usize {
        let cap = off.map_or(usize::MAX, |o| (ARENA - o) / elem);
        let l = match b.u8() % 10 {
            0..=4 => need,
            5 => alt,
            6 => need.saturating_sub(1),
            7 => 0,
            8 => b.below(cap.min(4096) + 1),
            _ => HUGE + (b.u64() as usize % HUGE),
        };
        if l > cap && l < HUGE {
            cap
        } else {
            l
        }
    }
    /// A state pointer for a call on an existing state: a live one (maybe of another kind), or
    /// memory that holds no valid tag, or NULL / misaligned.
    fn state_for_call(&mut self, b: &mut Bytes, size: usize) -> (Option<usize>, Option<usize>) {
        if !self.live.is_empty() && b.u8() % 4 != 0 {
            let i = b.below(self.live.len());
            return (Some(self.live[i].state), Some(i));
        }
        let off = self.pick(b, size, 8);
        if let Some(o) = off {
            let live = self.live.iter().position(|l| l.state == o);
            if live.is_some() {
                return (off, live);
            }
            if o % 8 == 0 && TAGS.iter().any(|t| &self.bytes()[o..o + 8] == *t) {
                // A stale copy or a forgotten sampler: not a state the caller may pass.
                return (None, None);
            }
        }
        (off, None)
    }
    fn new_model(&mut self, b: &mut Bytes) -> *mut c_void {
        if b.u8() % 8 == 0 {
            return core::ptr::null_mut();
        }
        let len = b.u8() as usize % 9;
        let script = (0..len).map(|_| b.u8()).collect();
        let curvature = [1.0, 0.5, 4.0, 1e-3][b.u8() as usize % 4];
        self.models.push(Box::new(Model {
            script,
            calls: 0,
            curvature,
        }));
        let m: &mut Model = self.models.last_mut().unwrap();
        (m as *mut Model).cast()
    }
    fn fill_finite<T: Flt>(&mut self, b: &mut Bytes, off: Option<usize>, len: usize) {
        if let Some(o) = off {
            let base = self.base();
            for k in 0..len.min(4096) {
                let v = match b.u8() % 8 {
                    0 => 0.0,
                    1..=5 => (f64::from(b.u8()) - 128.0) / 16.0,
                    6 => 1e6,
                    _ => f64::from(b.u16()) - 32768.0,
                };
                let p = base.wrapping_add(o + k * T::SIZE);
                if o + (k + 1) * T::SIZE > ARENA {
                    break;
                }
                // SAFETY: inside the arena (checked); unaligned writes are fine.
                unsafe { p.cast::<T>().write_unaligned(T::from_f64(v)) };
            }
        }
    }
    fn all_finite<T: Flt>(&self, o: usize, len: usize) -> bool {
        (0..len).all(|k| {
            // SAFETY: within the arena by construction of the caller's offsets.
            let v = unsafe {
                bytes_of(&self.arena)
                    .as_ptr()
                    .add(o + k * T::SIZE)
                    .cast::<T>()
                    .read_unaligned()
            };
            v.to_f64().is_finite()
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Operations on chains.

fn chain_init<C: ChainApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <C::T as Flt>::SIZE;
    let d = match b.u8() % 16 {
        0 => 0,
        15 => HUGE + b.below(1000),
        k => k as usize,
    };
    let cfg = C::cfg(b);
    // The config: aligned, misaligned or NULL (outside the arena: it is only read).
    let mut cfg_buf = [0u64; 32];
    let cfg_off = match b.u8() % 8 {
        0 => None,
        1 => Some(1 + b.u8() as usize % 7),
        _ => Some(0),
    };
    let cfg_ptr: *const C::Cfg = match cfg_off {
        None => core::ptr::null(),
        Some(o) => {
            let p = cfg_buf.as_mut_ptr().cast::<u8>().wrapping_add(o);
            // SAFETY: inside cfg_buf (32 words ≥ 7 + any config).
            unsafe { p.cast::<C::Cfg>().write_unaligned(cfg) };
            p.cast()
        }
    };
    let state = cx.pick(b, C::STATE, 8);
    let th_off = cx.pick(b, t * d.min(64), t);
    let th_len_ok = th_off.is_none_or(|o| d >= HUGE || o + d * t <= ARENA);
    if !th_len_ok {
        return;
    }
    // The caller writes theta0 (or leaves what is there: zeros, other data, maybe NaN bits);
    // a sampler whose memory that overwrites is forgotten.
    cx.snapshot();
    if d < HUGE && b.u8() % 4 != 0 {
        cx.fill_finite::<C::T>(b, th_off, d);
    }
    cx.forget_clobbered(None);
    let (need, lay) = C::ws_need(&cfg, d.min(HUGE - 1));
    let alt = alt_ws_len::<C>(d.min(HUGE - 1), need);
    let ws_off = cx.pick(b, t * need.min(4096), t);
    let wl = cx.len_or(b, ws_off, t, need, alt);
    let (energy, gradient) = (b.u8() % 16 != 0, b.u8() % 16 != 0);
    let ud = cx.new_model(b);
    cx.snapshot();
    let (sp, thp, wsp) = (cx.ptr::<u8>(state), cx.ptr::<C::T>(th_off), cx.ptr::<C::T>(ws_off));
    // SAFETY: every pointer is NULL or inside the arena with the claimed length (or a huge
    // length the library must refuse); the callbacks follow their contract.
    let s = unsafe { C::init(sp, cfg_ptr, thp, d, wsp, wl, energy, gradient, ud) };
    check_status("init", s);
    if trace() {
        eprintln!("chain init kind {} at {state:?} d {d} ws {ws_off:?}+{wl} (need {need}, {lay:?}) th {th_off:?} -> {s}", C::KIND);
    }
    let replaced = state.and_then(|o| cx.live.iter().position(|l| l.state == o));
    if s == 0 {
        let (so, wo) = (state.unwrap(), ws_off.unwrap());
        let st = (so, so + C::STATE);
        let ws = (wo, wo + wl * t);
        cx.check_only("init", s, &[st, ws]);
        if let Some(i) = replaced {
            cx.live.remove(i);
        }
        cx.forget_clobbered(None);
        cx.live.push(Live {
            kind: C::KIND,
            state: so,
            owned: vec![st, ws],
            particles: None,
            d,
            n: 1,
            ws_need: need,
            lay,
            ud: ud as usize,
            phase: None,
            opts: (false, false),
        });
        check_chain_position::<C>(cx, so, d, "init");
        check_inverse_mass::<C>(cx, so, d, lay.has_mass(), true, "init");
    } else {
        cx.check_only("failed init", s, &[]);
    }
}

/// The other workspace length `len_or` may pick for a chain: for AMAGOLD the plain 6·d when the
/// configuration needs more (too short), else a diagonal mass matrix's 10·d (longer than
/// needed); one too long for the other chains.
fn alt_ws_len<C: ChainApi>(d: usize, need: usize) -> usize {
    if !C::WARMUP_API {
        return need.saturating_add(1);
    }
    if need > C::ws_len(d) {
        C::ws_len(d)
    } else {
        d.saturating_mul(10)
    }
}

/// Reads the inverse mass of a live chain (into a Vec): every factor is 1 without a mass matrix
/// (`unit`: also with one before its first window ended), else positive and finite.
fn check_inverse_mass<C: ChainApi>(cx: &mut Ctx, state: usize, d: usize, mass: bool, unit: bool, what: &str) {
    let mut out = vec![C::T::from_f64(0.0); d];
    // SAFETY: state is a live state in the arena; out is a Vec of d elements.
    let Some(s) = (unsafe { C::inverse_mass(cx.base().add(state), out.as_mut_ptr(), d) }) else {
        return;
    };
    assert_eq!(s, 0, "inverse-mass getter failed after {what}");
    if unit || !mass {
        assert!(out.iter().all(|v| v.to_f64() == 1.0), "inverse mass not 1 after {what} (mass {mass}): {:?}",
            out.iter().map(|v| v.to_f64()).collect::<Vec<_>>());
    } else {
        assert!(out.iter().all(|v| v.to_f64().is_finite() && v.to_f64() > 0.0),
            "inverse mass not positive and finite after {what}: {:?}",
            out.iter().map(|v| v.to_f64()).collect::<Vec<_>>());
    }
}

fn check_chain_position<C: ChainApi>(cx: &mut Ctx, state: usize, d: usize, what: &str) {
    let mut out = vec![C::T::from_f64(0.0); d];
    // SAFETY: state is a live state in the arena; out is a Vec of d elements.
    let s = unsafe { C::position(cx.base().add(state), out.as_mut_ptr(), d) };
    assert_eq!(s, 0, "position getter failed after {what}");
    assert!(
        out.iter().all(|v| v.to_f64().is_finite()),
        "non-finite position after SGS_OK from {what}"
    );
}

/// Everything a caller can read of a live chain, as bits, through the getters (into Vecs):
/// position, momentum, inverse mass, iteration and divergence counts, and the sampler's value
/// getters (AMAGOLD: energy, step size, warm-up flag).
fn chain_view<C: ChainApi>(cx: &mut Ctx, me: Option<usize>) -> Vec<u64> {
    let Some(i) = me else { return vec![] };
    let (st, d) = (cx.live[i].state, cx.live[i].d);
    let mut out = vec![C::T::from_f64(0.0); d];
    let mut bits = vec![];
    for k in 0..3 {
        // SAFETY: a live state; out is a Vec of d elements.
        let s = unsafe {
            let sp = cx.base().add(st);
            match k {
                0 => C::position(sp, out.as_mut_ptr(), d),
                1 => C::momentum(sp, out.as_mut_ptr(), d).unwrap_or(0),
                _ => C::inverse_mass(sp, out.as_mut_ptr(), d).unwrap_or(0),
            }
        };
        assert_eq!(s, 0, "getter {k} failed on a live chain");
        bits.extend(out.iter().map(|v| v.to_f64().to_bits()));
    }
    let mut v = 0u64;
    // SAFETY: a live state; `v` is a local of 8 bytes (every value getter writes at most 8).
    unsafe {
        let sp = cx.base().add(st);
        assert_eq!(C::iterations(sp, &mut v), 0, "iterations getter failed on a live chain");
        bits.push(v);
        assert_eq!(C::divergences(sp, &mut v), 0, "divergences getter failed on a live chain");
        bits.push(v);
        for k in 0..3 {
            v = 0;
            if let Some((s, _)) = C::extra(k, sp, (&mut v as *mut u64).cast()) {
                assert_eq!(s, 0, "value getter {k} failed on a live chain");
                bits.push(v);
            }
        }
    }
    if C::WARMUP_API {
        // The whole inverse mass and the warm-up report (every field, as bits).
        let mut full = vec![C::T::from_f64(0.0); d * d];
        let mut r = empty_report();
        // SAFETY: a live state; the outputs are locals of the right sizes.
        unsafe {
            let sp = cx.base().add(st);
            assert_eq!(C::inverse_mass_dense(sp, full.as_mut_ptr(), d * d), Some(0), "dense inverse-mass getter failed on a live chain");
            assert_eq!(C::warmup_report(sp, &mut r), Some(0), "warm-up report failed on a live chain");
        }
        check_report(&r, "a live chain's");
        bits.extend(full.iter().map(|v| v.to_f64().to_bits()));
        bits.extend(report_bits(&r));
    }
    bits
}

fn empty_report() -> sgs_warmup_report {
    // SAFETY: plain data (integers and floats): all zero bytes is a value.
    unsafe { core::mem::zeroed() }
}

/// Every field of a report, as bits (NaNs compare by their bits: the library's own values).
fn report_bits(r: &sgs_warmup_report) -> Vec<u64> {
    let f = [
        r.step_size, r.target_accept, r.accept_rate, r.energy_trend_z, r.energy_mean, r.energy_sd,
        r.bfmi, r.condition_number, r.approach_energy_start, r.approach_energy_end,
    ];
    let mut v: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
    v.extend([r.iterations, r.approach_iterations, r.divergences, r.window_iterations, r.window_divergences]);
    v.extend([r.verdict, r.reasons, r.metric_updates, r.restarts, r.energy_trend_falling, r.energy_trend_rising].map(u64::from));
    v
}

/// A report's own consistency: the verdict is one of the four; OK and NONE carry no reason and
/// SUSPECT at least one; the reason flags are the documented ones; the trend pair counts are
/// at most 45 together.
fn check_report(r: &sgs_warmup_report, what: &str) {
    assert!(r.verdict <= SGS_WARMUP_SUSPECT, "{what} report: verdict {} is none of the four", r.verdict);
    let all = SGS_WARMUP_REASON_ENERGY_TREND
        | SGS_WARMUP_REASON_ACCEPTANCE
        | SGS_WARMUP_REASON_DIVERGENCES
        | SGS_WARMUP_REASON_LOW_BFMI
        | SGS_WARMUP_REASON_CHAINS_DISAGREE
        | SGS_WARMUP_REASON_METRIC;
    assert_eq!(r.reasons & !all, 0, "{what} report: undocumented reason flags {:#x}", r.reasons);
    match r.verdict {
        SGS_WARMUP_OK | SGS_WARMUP_NONE => assert_eq!(r.reasons, 0, "{what} report: verdict {} with reasons", r.verdict),
        SGS_WARMUP_SUSPECT => assert_ne!(r.reasons, 0, "{what} report: SUSPECT without a reason"),
        _ => {}
    }
    assert!(r.energy_trend_falling + r.energy_trend_rising <= 45, "{what} report: trend pairs");
    assert!(r.approach_iterations <= r.iterations, "{what} report: more approach iterations than iterations");
    assert!(r.approach_unfinished <= 1 && r.reserved == 0, "{what} report: approach_unfinished or padding");
}

/// After a callback ABORT (or TunaMH's `SGS_ERR_BOUND_EXCEEDED`) the chain (state, position,
/// momentum) must be as before, but the workspace's scratch blocks (working copies, gradient,
/// TunaMH's proposal) may hold what the failed iteration computed: the step documentation names
/// position, momentum, energy, counters and generator.
fn abort_allowance<C: ChainApi>(cx: &Ctx, me: Option<usize>, s: i32) -> Vec<(usize, usize)> {
    match me {
        Some(i) if s == 11 || s == 42 => {
            let (l, t) = (&cx.live[i], <C::T as Flt>::SIZE);
            let mut v = 0u64;
            // SAFETY: a live chain; `v` takes the 4-byte flag.
            let in_warmup = unsafe { C::extra(2, cx.bytes().as_ptr().add(l.state), (&mut v as *mut u64).cast()) }
                .is_some_and(|(s, _)| s == 0 && v != 0);
            match C::scratch(l.d, l.lay, in_warmup) {
                Some(r) => r.iter().map(|&(a, e)| (l.owned[1].0 + a * t, l.owned[1].0 + e * t)).collect(),
                None => vec![l.owned[1]],
            }
        }
        _ => vec![],
    }
}

fn chain_call<C: ChainApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <C::T as Flt>::SIZE;
    let (state, live) = cx.state_for_call(b, C::STATE);
    if trace() {
        eprintln!("chain call kind {} state {state:?} live {live:?} of {:?}", C::KIND,
            cx.live.iter().map(|l| (l.kind, &l.owned)).collect::<Vec<_>>());
    }
    // Only a live state of this very kind is changed by a successful call.
    let me = live.filter(|&i| cx.live[i].kind == C::KIND);
    let (d, owned) = me.map_or((1, vec![]), |i| (cx.live[i].d, cx.live[i].owned.clone()));
    let sp = cx.ptr::<u8>(state);
    match b.u8() % 8 {
        0 | 1 => {
            let io = cx.pick(b, C::INFO, 8);
            let view = chain_view::<C>(cx, me);
            cx.snapshot();
            let ip = cx.ptr::<u8>(io);
            // SAFETY: as in init.
            let s = unsafe { C::step(sp, ip) };
            check_status("step", s);
            if s == 0 {
                let mut allowed = owned.clone();
                allowed.extend(io.map(|o| (o, o + C::INFO)));
                cx.check_only("step", s, &allowed);
                if let Some(i) = cx.forget_clobbered(me) {
                    let (st, d, mass) = (cx.live[i].state, cx.live[i].d, cx.live[i].lay.has_mass());
                    check_chain_position::<C>(cx, st, d, "step");
                    check_inverse_mass::<C>(cx, st, d, mass, false, "step");
                }
            } else {
                cx.check_only("failed step", s, &abort_allowance::<C>(cx, me, s));
                // The aborted iteration's scratch may lie in another sampler's memory.
                let me = cx.forget_clobbered(me);
                assert!(view == chain_view::<C>(cx, me), "failed step changed the chain");
            }
        }
        2 | 3 => {
            let n = match b.u8() % 8 {
                0 => 0,
                7 => HUGE + b.below(9),
                k => k as usize * (1 + b.u8() as usize % 4),
            };
            let need = n.saturating_mul(d);
            let oo = cx.pick(b, t * need.min(4096), t);
            let ol = cx.len(b, oo, t, need);
            let done = cx.pick(b, 8, 8);
            let so = cx.pick(b, C::SUM, 8);
            let view = chain_view::<C>(cx, me);
            // The summary is written even on error: keep it clear of live memory so that an
            // error report means what it says (its overlap with the state is still exercised
            // through `pick`, which returns such offsets; the library must refuse those).
            cx.snapshot();
            let (op, dp, smp) = (cx.ptr::<C::T>(oo), cx.ptr::<usize>(done), cx.ptr::<u8>(so));
            // SAFETY: as in init.
            let s = unsafe { C::run(sp, n, op, ol, dp, smp) };
            check_status("run", s);
            let mut allowed = vec![];
            allowed.extend(done.map(|o| (o, o + 8)));
            allowed.extend(so.map(|o| (o, o + C::SUM)));
            // The iterations completed (rows written), from the summary or samples_done.
            let iters = so
                .map(|o| u64::from_le_bytes(cx.bytes()[o..o + 8].try_into().unwrap()))
                .or(done.map(|o| u64::from_le_bytes(cx.bytes()[o..o + 8].try_into().unwrap())));
            if s == 0 || iters != Some(0) {
                // Iterations ran: the state, the workspace and those rows may change.
                allowed.extend(owned.iter().copied());
                if let Some(o) = oo {
                    allowed.push((o, o.saturating_add(need.saturating_mul(t))));
                }
            } else {
                allowed.extend(abort_allowance::<C>(cx, me, s));
                assert!(view == chain_view::<C>(cx, me), "failed run changed the chain");
            }
            cx.check_only(if s == 0 { "run" } else { "failed run" }, s, &allowed);
            let me = cx.forget_clobbered(me);
            if s == 0 {
                if let Some(i) = me {
                    if n > 0 {
                        let o = oo.unwrap();
                        assert!(cx.all_finite::<C::T>(o, need), "run wrote a non-finite row");
                    }
                    let (st, d, mass) = (cx.live[i].state, cx.live[i].d, cx.live[i].lay.has_mass());
                    check_chain_position::<C>(cx, st, d, "run");
                    check_inverse_mass::<C>(cx, st, d, mass, false, "run");
                }
            }
        }
        4 | 5 => {
            // Bit 0: momentum; bit 1: inverse mass (where the sampler has them); else position.
            // Bit 2 (AMAGOLD): the warm-up API instead (setters, dense getter, report, compare).
            let k = b.u8();
            if k & 4 == 4 && C::WARMUP_API {
                return warmup_op::<C>(cx, b, state, me);
            }
            let (mom, inv) = (k & 1 == 1, k & 2 == 2);
            let oo = cx.pick(b, t * d.min(4096), t);
            let ol = cx.len(b, oo, t, d);
            cx.snapshot();
            let op = cx.ptr::<C::T>(oo);
            // SAFETY: as in init.
            let inv = inv && C::WARMUP_API;
            let s = unsafe {
                if inv {
                    C::inverse_mass(sp, op, ol).unwrap()
                } else if mom {
                    C::momentum(sp, op, ol).unwrap_or_else(|| C::position(sp, op, ol))
                } else {
                    C::position(sp, op, ol)
                }
            };
            check_status("position/momentum/inverse-mass getter", s);
            let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + d * t)).into_iter().collect() } else { vec![] };
            cx.check_only("position/momentum/inverse-mass getter", s, &allowed);
            if s == 0 && inv {
                if let Some(i) = me {
                    let (o, mass) = (oo.unwrap(), cx.live[i].lay.has_mass());
                    let ok = (0..d).all(|k| {
                        // SAFETY: inside the arena: the getter wrote d values at `o`.
                        let v = unsafe { cx.bytes().as_ptr().add(o + k * t).cast::<C::T>().read_unaligned() }.to_f64();
                        if mass { v.is_finite() && v > 0.0 } else { v == 1.0 }
                    });
                    assert!(ok, "inverse-mass getter: a factor not positive and finite (mass {mass}), or not 1 without a mass matrix");
                }
            }
            cx.forget_clobbered(None);
            if s == 0 && !mom && !inv && me.is_some() {
                assert!(cx.all_finite::<C::T>(oo.unwrap(), d), "position getter: non-finite");
            }
        }
        _ => {
            let k = b.u8();
            let oo = cx.pick(b, 8, 8);
            cx.snapshot();
            let op = cx.ptr::<u8>(oo);
            // SAFETY: as in init; every value getter writes at most 8 bytes.
            let (s, w) = unsafe {
                match k % 4 {
                    0 => (C::iterations(sp, op.cast()), 8),
                    1 => (C::divergences(sp, op.cast()), 8),
                    2 => (C::dim(sp, op.cast()), 8),
                    _ => C::extra(k / 4, sp, op).unwrap_or_else(|| (C::dim(sp, op.cast()), 8)),
                }
            };
            check_status("value getter", s);
            let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + w)).into_iter().collect() } else { vec![] };
            cx.check_only("value getter", s, &allowed);
            cx.forget_clobbered(None);
        }
    }
}

const ERR_INVALID_STEP_SIZE: i32 = sgsample::Error::InvalidStepSize.code();
const ERR_INVALID_MASS: i32 = sgsample::Error::InvalidMass.code();
const ERR_MASS_MISMATCH: i32 = sgsample::Error::MassMismatch.code();

/// A value the setters take: mostly positive and moderate; also 0, −0, negative, NaN, ±∞, tiny
/// (denormal, 0 in f32) or huge (∞ in f32).
fn mass_value(b: &mut Bytes) -> f64 {
    match b.u8() % 16 {
        0..=9 => [1.0, 0.5, 2.0, 0.25, 4.0, 1e-3, 30.0][b.u8() as usize % 7],
        10 => 0.0,
        11 => -0.0,
        12 => -1.0,
        13 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][b.u8() as usize % 3],
        14 => [5e-324, 1e-50, 1e-320][b.u8() as usize % 3],
        _ => [1e39, 1e300, f64::MAX][b.u8() as usize % 3],
    }
}

/// The AMAGOLD warm-up API on any state pointer (live chain of this kind, another kind, garbage,
/// NULL, misaligned), at any point of the sequence: the step-size and mass-matrix setters, the
/// dense getter, the report, and the comparison of several chains. Oracle: documented statuses
/// only; a refusal writes nothing (state, workspace, inputs, outputs byte for byte); a setter
/// that succeeds writes only its chain's state and workspace, and the getters then read what it
/// set; an output is written only where and as much as documented; a report's verdict is one of
/// the four, consistent with its reasons; where the header fixes the status (a live chain, every
/// buffer valid and disjoint), exactly that status.
fn warmup_op<C: ChainApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    let t = <C::T as Flt>::SIZE;
    let (d, lay, owned) = me.map_or((1, Layout::default(), vec![]), |i| {
        (cx.live[i].d, cx.live[i].lay, cx.live[i].owned.clone())
    });
    let sp = cx.ptr::<u8>(state);
    let op = b.u8() % 8;
    if trace() {
        eprintln!("warm-up op {op} kind {} state {state:?} live {me:?}", C::KIND);
    }
    match op {
        0 => {
            let eps = b.f64_in(&[0.1, 0.5, 1e-3, 1e-50, 1e39, 5e-324, 3.0]);
            let view = chain_view::<C>(cx, me);
            cx.snapshot();
            // SAFETY: NULL or a state's size in the arena.
            let s = unsafe { C::set_step_size(sp, eps) }.unwrap();
            check_status("set_step_size", s);
            let ok_in_t = C::T::from_f64(eps).to_f64();
            let valid = eps.is_finite() && ok_in_t.is_finite() && ok_in_t > 0.0;
            if me.is_some() {
                assert_eq!(s, if valid { 0 } else { ERR_INVALID_STEP_SIZE }, "set_step_size({eps:e}) on a live chain");
            }
            if s == 0 {
                assert!(me.is_some(), "set_step_size succeeded on something that is not a live chain");
                // Only the state's bytes (ε, the warm-up's restarted adaptation).
                cx.check_only("set_step_size", s, &owned[..1.min(owned.len())]);
                let me = cx.forget_clobbered(me);
                let now = chain_view::<C>(cx, me);
                // Position, momentum, inverse mass, counters, energy, warm-up flag and the
                // dense inverse mass read as before; the step size reads what was set.
                let n = 3 * d + 2;
                assert!(now[..n + 1] == view[..n + 1] && now[n + 2..n + 3 + d * d] == view[n + 2..n + 3 + d * d],
                    "set_step_size changed more than the step size");
                assert_eq!(now[n + 1], eps.to_bits(), "step size getter after set_step_size({eps:e})");
            } else {
                cx.check_only("failed set_step_size", s, &[]);
                assert!(view == chain_view::<C>(cx, me), "failed set_step_size changed the chain");
            }
        }
        1 | 2 => {
            let dense = op == 2;
            let need = if dense { d.saturating_mul(d) } else { d };
            let ko = cx.pick(b, t * need.min(4096), t);
            let kl = cx.len(b, ko, t, need);
            // The caller writes the matrix (dense: symmetric positive definite by construction,
            // or any values), then the call reads it.
            cx.snapshot();
            let mut vals = vec![0.0f64; need.min(4096)];
            if dense && b.u8() % 4 != 0 {
                // L·Lᵀ of a random lower-triangular L with a positive diagonal, in f64, rounded
                // to T once per entry (symmetric exactly; positive definite unless rounding
                // breaks it).
                let mut l = vec![0.0f64; d * d];
                for i in 0..d {
                    for j in 0..=i {
                        l[i * d + j] = if i == j { 0.5 + f64::from(b.u8() % 8) } else { (f64::from(b.u8()) - 128.0) / 64.0 };
                    }
                }
                for i in 0..d.min(64) {
                    for j in 0..d.min(64) {
                        if let Some(x) = vals.get_mut(i * d + j) {
                            *x = (0..d).map(|q| l[i * d + q] * l[j * d + q]).sum();
                        }
                    }
                }
                if b.u8() % 8 == 0 {
                    // One entry spoilt.
                    let at = b.below(vals.len().max(1));
                    if let Some(x) = vals.get_mut(at) {
                        *x = mass_value(b);
                    }
                }
            } else {
                for x in vals.iter_mut() {
                    *x = mass_value(b);
                }
            }
            // Written only where it cannot hit a live sampler (a `k` inside a state or workspace
            // is passed as it is: the library must refuse it).
            let hits = ko.is_some_and(|o| {
                let r = (o, o + vals.len() * t);
                cx.live.iter().any(|l| l.owned.iter().chain(l.particles.iter()).any(|&x| overlaps(x, r)))
            });
            if let (Some(o), false) = (ko, hits) {
                let base = cx.base();
                for (k, &v) in vals.iter().enumerate() {
                    if o + (k + 1) * t > ARENA {
                        break;
                    }
                    // SAFETY: inside the arena (checked); unaligned writes are fine.
                    unsafe { base.wrapping_add(o + k * t).cast::<C::T>().write_unaligned(C::T::from_f64(v)) };
                }
            }
            let me = cx.forget_clobbered(me);
            let owned = me.map_or(vec![], |i| cx.live[i].owned.clone());
            let view = chain_view::<C>(cx, me);
            // The values as the library reads them (what the caller left there when not written).
            let kt: Vec<f64> = match ko {
                Some(_) if !hits => vals.iter().map(|&v| C::T::from_f64(v).to_f64()).collect(),
                Some(o) => (0..need.min(4096))
                    .map(|k| {
                        if o + (k + 1) * t > ARENA {
                            return f64::NAN;
                        }
                        // SAFETY: inside the arena.
                        unsafe { cx.bytes().as_ptr().add(o + k * t).cast::<C::T>().read_unaligned() }.to_f64()
                    })
                    .collect(),
                None => vec![],
            };
            cx.snapshot();
            let kp = cx.ptr::<C::T>(ko);
            // SAFETY: NULL or in the arena with its length (or a huge one).
            let s = unsafe { C::set_inverse_mass(dense, sp, kp, kl) }.unwrap();
            check_status(if dense { "set_inverse_mass_dense" } else { "set_inverse_mass" }, s);
            if trace() {
                eprintln!("  set_inverse_mass dense {dense} k {ko:?}+{kl} (need {need}) {lay:?} -> {s}");
            }
            let clear = kl == need
                && me.is_some()
                && ko.is_some_and(|o| o % t == 0 && !owned.iter().any(|&r| overlaps(r, (o, o + kl * t))));
            if s == 0 {
                assert!(me.is_some() && kl == need, "a setter succeeded on something that is not a live chain, or with k_len {kl} ≠ {need}");
                assert!(lay.has_mass() && (!dense || lay.mass == SGS_MASS_DENSE), "a setter succeeded on a chain of another mass kind ({lay:?}, dense {dense})");
                cx.check_only("set_inverse_mass", s, &owned);
                let me = cx.forget_clobbered(me).unwrap();
                let st = cx.live[me].state;
                // What the getters read now: the diagonal set (exactly for a diagonal chain; to
                // rounding through its factor for a dense one), the position unchanged.
                let mut got = vec![C::T::from_f64(0.0); d];
                // SAFETY: a live chain; a Vec of d values.
                assert_eq!(unsafe { C::inverse_mass(cx.base().add(st), got.as_mut_ptr(), d) }, Some(0));
                for i in 0..d {
                    let want = if dense { kt[i * d + i] } else { kt[i] };
                    let g = got[i].to_f64();
                    let tol = if t == 4 { 1e-5 } else { 1e-12 };
                    if lay.mass == SGS_MASS_DIAGONAL && !dense {
                        assert_eq!(g.to_bits(), want.to_bits(), "inverse mass after setting it");
                    } else {
                        assert!(g.is_finite() && g > 0.0 && (g - want).abs() <= tol * want.abs().max(g.abs()) * 4.0,
                            "inverse mass {g} after setting {want} (dense {dense})");
                    }
                }
                assert!(view.len() < d || chain_view::<C>(cx, Some(me))[..d] == view[..d], "a setter moved the chain");
            } else {
                cx.check_only("failed set_inverse_mass", s, &[]);
                assert!(view == chain_view::<C>(cx, me), "a refused setter changed the chain");
                if clear {
                    // Everything in order but the values or the kind: the header's statuses.
                    let finite_pos = |v: &f64| v.is_finite() && *v > 0.0;
                    let allowed: &[i32] = if dense {
                        &[ERR_INVALID_MASS, ERR_MASS_MISMATCH]
                    } else {
                        &[ERR_INVALID_MASS, ERR_MASS_MISMATCH]
                    };
                    assert!(allowed.contains(&s), "setter on a live chain with a valid k: status {s}");
                    if s == ERR_MASS_MISMATCH {
                        assert!(!lay.has_mass() || (dense && lay.mass != SGS_MASS_DENSE), "mass mismatch on a matching chain");
                    }
                    if !dense && s == ERR_INVALID_MASS {
                        assert!(!kt.iter().all(finite_pos), "a positive finite diagonal refused as invalid");
                    }
                    if !dense && lay.has_mass() && kt.iter().all(finite_pos) {
                        panic!("a positive finite diagonal refused on a chain with a mass matrix: {s}");
                    }
                }
            }
        }
        3 => {
            let need = d.saturating_mul(d);
            let oo = cx.pick(b, t * need.min(4096), t);
            let ol = cx.len(b, oo, t, need);
            cx.snapshot();
            let op_ = cx.ptr::<C::T>(oo);
            // SAFETY: NULL or in the arena with its length (or a huge one).
            let s = unsafe { C::inverse_mass_dense(sp, op_, ol) }.unwrap();
            check_status("inverse_mass_dense", s);
            let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + need * t)).into_iter().collect() } else { vec![] };
            cx.check_only("inverse_mass_dense", s, &allowed);
            if s == 0 {
                assert!(ol >= need && me.is_some_and(|i| cx.live[i].kind == C::KIND), "dense getter succeeded with out_len {ol} < {need} or on a dead state");
                let o = oo.unwrap();
                // SAFETY: the getter wrote d² values at `o`.
                let at = |i: usize, j: usize| unsafe { cx.bytes().as_ptr().add(o + (i * d + j) * t).cast::<C::T>().read_unaligned() }.to_f64();
                for i in 0..d {
                    assert!(at(i, i).is_finite() && at(i, i) > 0.0, "dense getter: diagonal not positive and finite");
                    for j in 0..d {
                        assert_eq!(at(i, j).to_bits(), at(j, i).to_bits(), "dense getter: not symmetric");
                        if !lay.has_mass() {
                            assert_eq!(at(i, j), if i == j { 1.0 } else { 0.0 }, "dense getter: not the identity for a unit-mass chain");
                        } else if lay.mass == SGS_MASS_DIAGONAL && i != j {
                            assert_eq!(at(i, j), 0.0, "dense getter: off-diagonal entry for a diagonal chain");
                        }
                    }
                }
            }
            cx.forget_clobbered(None);
        }
        4 | 5 => {
            let rs = size_of::<sgs_warmup_report>();
            let oo = cx.pick(b, rs, 8);
            cx.snapshot();
            let op_ = cx.ptr::<sgs_warmup_report>(oo);
            // SAFETY: NULL or a report's size in the arena.
            let s = unsafe { C::warmup_report(sp, op_) }.unwrap();
            check_status("warmup_report", s);
            let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + rs)).into_iter().collect() } else { vec![] };
            cx.check_only("warmup_report", s, &allowed);
            if s == 0 {
                let o = oo.unwrap();
                // SAFETY: the report was written at `o`.
                let r = unsafe { cx.bytes().as_ptr().add(o).cast::<sgs_warmup_report>().read_unaligned() };
                check_report(&r, "warmup_report's");
                if let Some(i) = me {
                    let mut v = 0u64;
                    // SAFETY: a live chain; an 8-byte local.
                    let _ = unsafe { C::extra(2, cx.bytes().as_ptr().add(cx.live[i].state), (&mut v as *mut u64).cast()) };
                    if v != 0 {
                        assert_eq!(r.verdict, SGS_WARMUP_RUNNING, "report of a chain in its warm-up");
                    } else {
                        assert_ne!(r.verdict, SGS_WARMUP_RUNNING, "report RUNNING after the warm-up");
                    }
                }
            }
            cx.forget_clobbered(None);
        }
        _ => warmup_compare_op::<C>(cx, b, me),
    }
}

/// `…_warmup_compare` over a fuzzed list: mostly the live chains of this kind (several, the same
/// one twice, of other dimensions), sometimes NULL, garbage or another kind's state; the list
/// itself and the output anywhere in the arena (over a state, a workspace, the list).
fn warmup_compare_op<C: ChainApi>(cx: &mut Ctx, b: &mut Bytes, me: Option<usize>) {
    let _ = me;
    let k = match b.u8() % 8 {
        0 => 0,
        7 => 60 + b.below(8),
        x => x as usize,
    };
    let ao = cx.pick(b, 8 * k.max(1), 8);
    if let Some(o) = ao {
        // The caller writes the list: not over a live sampler's memory (that would destroy it
        // and leave the library garbage addresses to follow).
        let r = (o, o + 8 * k);
        if cx.live.iter().any(|l| l.owned.iter().chain(l.particles.iter()).any(|&x| overlaps(x, r))) || o + 8 * k > ARENA {
            return;
        }
    }
    let mut entries = Vec::with_capacity(k);
    let mine: Vec<usize> = (0..cx.live.len()).filter(|&i| cx.live[i].kind == C::KIND).collect();
    for _ in 0..k {
        let e = if !mine.is_empty() && b.u8() % 8 != 0 {
            Some(cx.live[mine[b.below(mine.len())]].state)
        } else {
            cx.state_for_call(b, C::STATE).0
        };
        entries.push(e);
    }
    cx.snapshot();
    if let Some(o) = ao {
        let base = cx.base() as usize;
        for (j, e) in entries.iter().enumerate() {
            if o + (j + 1) * 8 > ARENA {
                break;
            }
            let v = e.map_or(0usize, |x| base + x);
            // SAFETY: inside the arena.
            unsafe { (base as *mut u8).add(o + j * 8).cast::<usize>().write_unaligned(v) };
        }
    }
    cx.forget_clobbered(None);
    let live_entry = |cx: &Ctx, e: &Option<usize>| e.and_then(|x| cx.live.iter().position(|l| l.state == x && l.kind == C::KIND));
    let rs = size_of::<sgs_warmup_report>();
    let oo = cx.pick(b, rs * k.max(1), 8);
    let ol = cx.len(b, oo, rs, k);
    // Each entry's own report, read before (for the comparison's oracle).
    let own: Vec<Option<sgs_warmup_report>> = entries
        .iter()
        .map(|e| {
            live_entry(cx, e).map(|i| {
                let mut r = empty_report();
                // SAFETY: a live chain; a local report.
                let s = unsafe { C::warmup_report(cx.base().add(cx.live[i].state), &mut r) }.unwrap();
                assert_eq!(s, 0);
                r
            })
        })
        .collect();
    cx.snapshot();
    let (ap, op_) = (cx.ptr::<*const u8>(ao), cx.ptr::<sgs_warmup_report>(oo));
    // SAFETY: NULL or in the arena; the list holds `k` pointers (NULL, arena addresses).
    let s = unsafe { C::warmup_compare(ap, k, op_, ol) }.unwrap();
    check_status("warmup_compare", s);
    if trace() {
        eprintln!("  warmup_compare k {k} list {ao:?} out {oo:?}+{ol} -> {s}");
    }
    let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + k * rs)).into_iter().collect() } else { vec![] };
    cx.check_only("warmup_compare", s, &allowed);
    if s == 0 {
        assert!(k >= 1 && ol >= k, "compare succeeded with k {k}, out_len {ol}");
        let o = oo.unwrap();
        let ds: Vec<usize> = own.iter().zip(&entries).map(|(_, e)| live_entry(cx, e).map_or(0, |i| cx.live[i].d)).collect();
        assert!(ds.iter().all(|&x| x == ds[0]), "compare succeeded over chains of dimensions {ds:?}");
        for (j, r0) in own.iter().enumerate() {
            // SAFETY: the comparison wrote k reports at `o`.
            let r = unsafe { cx.bytes().as_ptr().add(o + j * rs).cast::<sgs_warmup_report>().read_unaligned() };
            check_report(&r, "a compared");
            let r0 = r0.expect("compare succeeded over an entry that is not a live chain of its kind");
            // Its own report, but for CHAINS_DISAGREE (then SUSPECT) where the chains disagree.
            let mut want = r0;
            if r.reasons & SGS_WARMUP_REASON_CHAINS_DISAGREE != 0 && r0.reasons & SGS_WARMUP_REASON_CHAINS_DISAGREE == 0 {
                assert!(matches!(r0.verdict, SGS_WARMUP_OK | SGS_WARMUP_SUSPECT), "CHAINS_DISAGREE on a chain without a finished warm-up");
                want.reasons |= SGS_WARMUP_REASON_CHAINS_DISAGREE;
                want.verdict = SGS_WARMUP_SUSPECT;
            }
            assert!(report_bits(&r) == report_bits(&want), "a compared report differs from the chain's own beyond CHAINS_DISAGREE");
        }
    } else if k >= 1 && k <= 64 && ol >= k && ol < HUGE {
        // Every entry a live chain of this kind of one dimension, the list and the output valid
        // and disjoint from every state and workspace: the header promises SGS_OK.
        let all_live: Option<Vec<usize>> = entries.iter().map(|e| live_entry(cx, e)).collect();
        if let (Some(all), Some(a), Some(o)) = (all_live, ao, oo) {
            let d0 = cx.live[all[0]].d;
            // The output is the whole `out_len` reports (what the library checks for overlap).
            let out = (o, o + ol * rs);
            let clear = all.iter().all(|&i| cx.live[i].d == d0 && !cx.live[i].owned.iter().any(|&r| overlaps(r, out)))
                && !overlaps(out, (a, a + 8 * k))
                && a % 8 == 0
                && o % 8 == 0;
            assert!(!clear, "compare refused ({s}) live chains of one dimension with a valid, disjoint output");
        }
    }
    cx.forget_clobbered(None);
}

fn chain_queries<C: ChainApi>(b: &mut Bytes) {
    let d = if b.u8() & 1 == 0 { b.below(64) } else { b.u64() as usize };
    let _ = C::ws_len(d);
    if C::WARMUP_API {
        // The header's rule: 6·d, plus 4·d diagonal or 2·d + d(d+1) dense, plus 12·d with a
        // warm-up's approach, saturating; 0 for d = 0, a NULL or misaligned config, an unknown
        // mass. (The config is the AMAGOLD decoder's: `Cfg` is `sgs_amagold_config`.)
        let cfg = C::cfg(b);
        let mut buf = [0u64; 32];
        let misaligned = b.u8() % 8 == 0;
        let p = buf.as_mut_ptr().cast::<u8>().wrapping_add(if misaligned { 4 } else { 0 });
        // SAFETY: inside `buf` (32 words).
        unsafe { p.cast::<C::Cfg>().write_unaligned(cfg) };
        // SAFETY: a config in `buf` (the library reads an aligned one only), or NULL.
        let (got, null) = unsafe { (C::ws_len_for(p.cast(), d).unwrap(), C::ws_len_for(core::ptr::null(), d).unwrap()) };
        assert_eq!(null, 0, "workspace_len_for(NULL, {d})");
        // SAFETY: `Cfg` is `sgs_amagold_config` for the kinds with WARMUP_API.
        let c: sgs_amagold_config = unsafe { core::mem::transmute_copy(&cfg) };
        let want = if misaligned || d == 0 || c.mass > SGS_MASS_DENSE {
            0
        } else {
            let tri = d.checked_mul(d.saturating_add(1)).unwrap_or(usize::MAX);
            let mass = match c.mass {
                SGS_MASS_DIAGONAL => d.saturating_mul(4),
                SGS_MASS_DENSE => d.saturating_mul(2).saturating_add(tri),
                _ => 0,
            };
            let approach = if c.warmup > 0 && c.approach != 0 { d.saturating_mul(12) } else { 0 };
            d.saturating_mul(6).saturating_add(mass).saturating_add(approach)
        };
        assert_eq!(got, want, "workspace_len_for({c:?}, {d}) (misaligned {misaligned})");
    }
    assert!(C::state_size() >= C::STATE && C::state_align() >= 8);
}

// ---------------------------------------------------------------------------------------------
// Operations on SVGD.

fn svgd_init<V: SvgdApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <V::T as Flt>::SIZE;
    let n = match b.u8() % 16 {
        0 => 0,
        15 => HUGE + b.below(9),
        // Two words of the phases' slot bitmaps (32 slots a word).
        14 => 33 + b.below(8),
        k => 1 + k as usize % 12,
    };
    let d = match b.u8() % 8 {
        0 => 0,
        7 => HUGE + b.below(9),
        k => k as usize,
    };
    let cfg = svgd_cfg(b, n.min(64));
    // One word more than the config, for its misaligned copy (sized from the type: the config
    // grew in 0.5 and a fixed 16 words overflowed).
    let mut cfg_buf = [0u64; core::mem::size_of::<sgs_svgd_config>() / 8 + 1];
    let cfg_ptr: *const sgs_svgd_config = match b.u8() % 8 {
        0 => core::ptr::null(),
        1 => {
            let p = cfg_buf.as_mut_ptr().cast::<u8>().wrapping_add(4);
            // SAFETY: inside cfg_buf.
            unsafe { p.cast::<sgs_svgd_config>().write_unaligned(cfg) };
            p.cast()
        }
        _ => {
            let p = cfg_buf.as_mut_ptr().cast::<sgs_svgd_config>();
            // SAFETY: inside cfg_buf, aligned.
            unsafe { p.write(cfg) };
            p
        }
    };
    // SAFETY: cfg_ptr is NULL, misaligned (refused) or a readable config.
    let need = unsafe { V::ws_len(n.min(HUGE - 1), d.min(HUGE - 1), cfg_ptr) };
    let coords = n.checked_mul(d);
    let small = coords.filter(|&c| c <= 4096);
    let state = cx.pick(b, V::STATE, 8);
    let p_off = cx.pick(b, t * small.unwrap_or(1), t);
    if let (Some(o), Some(c)) = (p_off, small) {
        if o + c * t > ARENA {
            return;
        }
    } else if p_off.is_some() && small.is_none() && coords.is_some_and(|c| c < HUGE) {
        return;
    }
    cx.snapshot();
    if let Some(c) = small {
        if b.u8() % 4 != 0 {
            cx.fill_finite::<V::T>(b, p_off, c);
        }
    }
    cx.forget_clobbered(None);
    let ws_off = cx.pick(b, t * need.min(4096), t);
    let wl = cx.len(b, ws_off, t, need);
    let idx_need = V::index_len(n);
    let idx_off = cx.pick(b, 4 * idx_need.min(4096), 4);
    let il = cx.len(b, idx_off, 4, idx_need);
    let (g1, g2) = match b.u8() % 8 {
        0 => (false, false),
        1 | 2 => (true, false),
        3 | 4 => (false, true),
        _ => (true, true),
    };
    let ud = cx.new_model(b);
    cx.snapshot();
    let (sp, pp, wp, ip) = (
        cx.ptr::<u8>(state),
        cx.ptr::<V::T>(p_off),
        cx.ptr::<V::T>(ws_off),
        cx.ptr::<u32>(idx_off),
    );
    // SAFETY: as for the chains.
    let s = unsafe { V::init(sp, cfg_ptr, pp, n, d, wp, wl, ip, il, g1, g2, ud) };
    check_status("svgd init", s);
    if trace() {
        eprintln!("svgd init kind {} n {n} d {d} wl {wl} il {il} cb {g1}/{g2} {cfg:?} -> {s}", V::KIND);
    }
    let replaced = state.and_then(|o| cx.live.iter().position(|l| l.state == o));
    if s == 0 {
        let (so, po, wo, io) = (state.unwrap(), p_off.unwrap(), ws_off.unwrap(), idx_off.unwrap());
        let c = coords.unwrap();
        let owned = vec![(so, so + V::STATE), (wo, wo + wl * t), (io, io + il * 4)];
        cx.check_only("svgd init", s, &owned);
        if let Some(i) = replaced {
            cx.live.remove(i);
        }
        cx.forget_clobbered(None);
        assert!(cx.all_finite::<V::T>(po, c), "svgd init accepted non-finite particles");
        cx.live.push(Live {
            kind: V::KIND,
            state: so,
            owned,
            particles: Some((po, po + c * t)),
            d,
            n,
            ws_need: 0,
            lay: Layout::default(),
            ud: ud as usize,
            phase: None,
            opts: (cfg.batching != SGS_BATCHING_WITHOUT_REPLACEMENT, cfg.ksd != SGS_KSD_OFF),
        });
    } else {
        cx.check_only("failed svgd init", s, &[]);
    }
}

fn svgd_call<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <V::T as Flt>::SIZE;
    let (state, live) = cx.state_for_call(b, V::STATE);
    let me = live.filter(|&i| cx.live[i].kind == V::KIND);
    let (coords, mut owned, parts) = me.map_or((1, vec![], None), |i| {
        let l = &cx.live[i];
        (l.n * l.d, l.owned.clone(), l.particles)
    });
    if let Some(p) = parts {
        owned.push(p);
    }
    let sp = cx.ptr::<u8>(state);
    let info_size = size_of::<sgs_svgd_info>();
    let sum_size = size_of::<sgs_svgd_run_summary>();
    let open = me.is_some_and(|i| cx.live[i].phase.is_some());
    let sel = b.u8();
    if sel >= 0xC0 {
        return phase_call::<V>(cx, b, state, me, sel);
    }
    match sel % 8 {
        0 | 1 | 2 => {
            let run = b.u8() & 1 == 1;
            let its = u64::from(b.u8() % 6);
            let io = cx.pick(b, if run { sum_size } else { info_size }, 8);
            cx.snapshot();
            let ip = cx.ptr::<u8>(io);
            // SAFETY: as for the chains.
            let s = unsafe {
                if run {
                    V::run(sp, its, ip)
                } else {
                    V::step(sp, ip)
                }
            };
            check_status("svgd step/run", s);
            assert!(!open || s != 0, "step/run succeeded during an iteration in phases");
            if trace() {
                let ps: Vec<f64> = parts.map_or(vec![], |(po, _)| {
                    (0..coords).map(|k| {
                        // SAFETY: inside the particles.
                        unsafe { cx.bytes().as_ptr().add(po + k * t).cast::<V::T>().read_unaligned() }.to_f64()
                    }).collect()
                });
                eprintln!("svgd {} (live {me:?}) its {its} -> {s}; particles {ps:?}", if run { "run" } else { "step" });
            }
            let mut allowed = vec![];
            let iters = if run {
                allowed.extend(io.map(|o| (o, o + sum_size)));
                io.map(|o| u64::from_le_bytes(cx.bytes()[o..o + 8].try_into().unwrap()))
            } else {
                allowed.extend(io.filter(|_| s == 0).map(|o| (o, o + info_size)));
                Some(0)
            };
            if s == 0 || iters != Some(0) {
                allowed.extend(owned.iter().copied());
            } else if me.is_some() && matches!(s, 11 | 22 | 24) {
                // A failed iteration: the workspace's scratch (gradients, forces: "not
                // meaningful after a failed one") and the index buffer (the iteration's
                // permutation) may hold what the failed iteration computed; the state and the
                // particles must not change (the AdaGrad history, inside the workspace, is not
                // checked here).
                let l = &cx.live[me.unwrap()];
                allowed.extend([l.owned[1], l.owned[2]]);
            }
            cx.check_only("svgd step/run", s, &allowed);
            cx.forget_clobbered(me);
            // After an iteration ran (`run(0)` does nothing and checks nothing, so particles the
            // caller itself made non-finite stay so).
            if let (0, Some((po, _)), false) = (s, parts, run && its == 0) {
                assert!(cx.all_finite::<V::T>(po, coords), "non-finite particle after SGS_OK");
            }
        }
        3 | 4 => {
            let force = b.u8() & 1 == 1;
            let oo = cx.pick(b, t * coords.min(4096), t);
            let ol = cx.len(b, oo, t, coords);
            cx.snapshot();
            let op = cx.ptr::<V::T>(oo);
            // SAFETY: as for the chains.
            let s = unsafe {
                if force {
                    V::force(sp, op, ol)
                } else {
                    V::particles(sp, op, ol)
                }
            };
            check_status("svgd copy getter", s);
            assert!(!(open && force && s == 0), "force getter succeeded during an iteration in phases");
            let allowed: Vec<_> = if s == 0 {
                oo.map(|o| (o, o.saturating_add(ol.saturating_mul(t)))).into_iter().collect()
            } else {
                vec![]
            };
            cx.check_only("svgd copy getter", s, &allowed);
            cx.forget_clobbered(None);
        }
        5 => {
            // The caller changes its particles between calls (allowed; non-finite values must
            // be refused by the next step).
            if let Some((po, pe)) = parts {
                let k = b.below((pe - po) / t);
                cx.snapshot();
                if b.u8() % 4 == 0 {
                    let bits = b.u64();
                    let p = cx.base().wrapping_add(po + k * t);
                    // SAFETY: inside the particles.
                    unsafe {
                        if t == 8 {
                            p.cast::<u64>().write_unaligned(bits)
                        } else {
                            p.cast::<u32>().write_unaligned(bits as u32)
                        }
                    };
                } else {
                    cx.fill_finite::<V::T>(b, Some(po + k * t), 1);
                }
                cx.forget_clobbered(None);
            }
        }
        _ => {
            let k = b.u8() % 3;
            let oo = cx.pick(b, 8, 8);
            cx.snapshot();
            let op = cx.ptr::<u8>(oo);
            // SAFETY: as for the chains.
            let s = unsafe {
                match k {
                    0 => V::iterations(sp, op.cast()),
                    1 => V::num_particles(sp, op.cast()),
                    _ => V::dim(sp, op.cast()),
                }
            };
            check_status("svgd value getter", s);
            let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + 8)).into_iter().collect() } else { vec![] };
            cx.check_only("svgd value getter", s, &allowed);
            cx.forget_clobbered(None);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Everything else.

fn minibatch(cx: &mut Ctx, b: &mut Bytes) {
    let seed = b.u64();
    let n = match b.u8() % 4 {
        0 => 0,
        1 => b.u64(),
        _ => u64::from(b.u8()),
    };
    let want = b.u8() as usize % 64;
    let oo = cx.pick(b, 8 * want, 8);
    let len = cx.len(b, oo, 8, want);
    let len = if len < HUGE { len.min(256) } else { len };
    cx.snapshot();
    let op = cx.ptr::<u64>(oo);
    // SAFETY: NULL or inside the arena for len elements (or a huge length).
    let s = unsafe { sgs_minibatch(seed, n, op, len) as i32 };
    check_status("minibatch", s);
    let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o.saturating_add(len.saturating_mul(8)))).into_iter().collect() } else { vec![] };
    cx.check_only("minibatch", s, &allowed);
    cx.forget_clobbered(None);
    if s == 0 && len > 0 {
        let o = oo.unwrap();
        let got: Vec<u64> = (0..len)
            .map(|k| u64::from_le_bytes(cx.bytes()[o + 8 * k..o + 8 * k + 8].try_into().unwrap()))
            .collect();
        let mut sorted = got.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(sorted.len() == len && got.iter().all(|&i| i < n), "minibatch: {got:?} for n = {n}");
    }
}

// ---------------------------------------------------------------------------------------------
// Copying, moving and clearing states.
//
// A state records its address: the supported way to duplicate a chain is `sgs_*_copy` onto new
// buffers, and a state moved byte-wise (memcpy, realloc, struct assignment) must be refused with
// exactly `SGS_ERR_STATE_MOVED` until `sgs_*_copy(s, its buffers, s)` re-homes it.

/// What a successful copy made: the byte ranges it owns (state, workspace, index) and its
/// particles.
type Made = (Vec<(usize, usize)>, Option<(usize, usize)>);

/// What the state operations need of one sampler kind, whatever its API shape.
trait StateOps {
    fn size(&self) -> usize;
    /// A call whose only fault can be the state (a step without `info`, a one-row run, a getter
    /// into local memory): on a moved state it must return `SGS_ERR_STATE_MOVED`.
    unsafe fn probe(&self, s: *mut u8, l: &Live, k: u8) -> i32;
    unsafe fn clear(&self, s: *mut u8) -> i32;
    /// `copy(dst, l's own buffers, src)`: with `dst == src`, the in-place re-homing of `src`.
    unsafe fn copy_onto(&self, cx: &mut Ctx, dst: usize, l: &Live, src: usize) -> i32;
    /// `copy(dst, new buffers, l's state)` with fuzzed pointers and lengths: on `SGS_OK`, the
    /// byte ranges the copy owns and its particles.
    unsafe fn copy_new(&self, cx: &mut Ctx, b: &mut Bytes, l: &Live) -> (i32, Option<Made>);
    /// The chain's view (position, momentum, inverse mass, counters, values) or the particles,
    /// through the getters.
    fn view(&self, cx: &mut Ctx, l: &Live) -> Vec<u64>;
    /// After a successful copy: a few iterations of the source and of the copy must return the
    /// same statuses and leave both reading alike (chains; nothing for SVGD).
    fn continue_same(&self, _cx: &mut Ctx, _b: &mut Bytes, _src: usize, _copy: usize) {}
}

struct ChainOps<C>(core::marker::PhantomData<C>);
struct SvgdOps<V>(core::marker::PhantomData<V>);

impl<C: ChainApi> StateOps for ChainOps<C> {
    fn size(&self) -> usize {
        C::STATE
    }
    unsafe fn probe(&self, s: *mut u8, l: &Live, k: u8) -> i32 {
        let mut out = vec![C::T::from_f64(0.0); l.d];
        let mut v = 0u64;
        // SAFETY: `s` points to a whole state's bytes in the arena; the outputs are locals.
        unsafe {
            match k % 4 {
                0 => C::step(s, core::ptr::null_mut()),
                1 => C::run(s, 1, out.as_mut_ptr(), l.d, core::ptr::null_mut(), core::ptr::null_mut()),
                2 => C::position(s, out.as_mut_ptr(), l.d),
                _ => C::iterations(s, &mut v),
            }
        }
    }
    unsafe fn clear(&self, s: *mut u8) -> i32 {
        // SAFETY: forwarded.
        unsafe { C::clear(s) }
    }
    unsafe fn copy_onto(&self, cx: &mut Ctx, dst: usize, l: &Live, src: usize) -> i32 {
        let (w, we) = l.owned[1];
        let (d, w, s) = (cx.ptr::<u8>(Some(dst)), cx.ptr::<C::T>(Some(w)), cx.ptr::<u8>(Some(src)));
        // SAFETY: all inside the arena, `l`'s workspace with its recorded length.
        unsafe { C::copy(d, w, (we - l.owned[1].0) / <C::T as Flt>::SIZE, s) }
    }
    unsafe fn copy_new(&self, cx: &mut Ctx, b: &mut Bytes, l: &Live) -> (i32, Option<Made>) {
        let t = <C::T as Flt>::SIZE;
        // What the source uses: a copy of a chain with a mass matrix or the approach's blocks
        // needs the size query's length for its configuration (and 6·d, the `alt` then, must
        // be refused).
        let need = l.ws_need;
        let dst = cx.pick(b, C::STATE, 8);
        let wo = cx.pick(b, t * need.min(4096), t);
        let wl = cx.len_or(b, wo, t, need, alt_ws_len::<C>(l.d, need));
        cx.snapshot();
        let (dp, wp, sp) = (cx.ptr::<u8>(dst), cx.ptr::<C::T>(wo), cx.ptr::<u8>(Some(l.state)));
        // SAFETY: every pointer NULL or in the arena with its length (or a huge one).
        let s = unsafe { C::copy(dp, wp, wl, sp) };
        let owned = (s == 0).then(|| {
            let (d, w) = (dst.unwrap(), wo.unwrap());
            (vec![(d, d + C::STATE), (w, w + wl * t)], None)
        });
        (s, owned)
    }
    fn view(&self, cx: &mut Ctx, l: &Live) -> Vec<u64> {
        let i = cx.live.iter().position(|m| m.state == l.state);
        chain_view::<C>(cx, i)
    }
    fn continue_same(&self, cx: &mut Ctx, b: &mut Bytes, src: usize, copy: usize) {
        let find = |cx: &Ctx, at: usize| cx.live.iter().position(|m| m.state == at);
        for _ in 0..b.u8() % 4 {
            let Some(i) = find(cx, src) else { return };
            // The source and the copy share their model: rewind its script before the copy's
            // iteration so that its callbacks answer as they did to the source (calls that
            // abort or return NaN or ∞ during the warm-up included).
            let model = cx.live[i].ud as *mut Model;
            // SAFETY: NULL or a boxed model alive for the whole input.
            let calls = |m: *mut Model| unsafe { m.as_ref() }.map(|m| m.calls);
            let before = calls(model);
            let s1 = step_live::<C>(cx, i);
            let after = calls(model);
            // SAFETY: as above.
            if let Some(m) = unsafe { model.as_mut() } {
                m.calls = before.unwrap();
            }
            let Some(j) = find(cx, copy) else { return };
            let s2 = step_live::<C>(cx, j);
            assert_eq!(calls(model), after, "the copy called its callbacks differently");
            assert_eq!(s1, s2, "the copy's iteration returned another status than its source's");
            let (Some(i), Some(j)) = (find(cx, src), find(cx, copy)) else { return };
            assert!(
                chain_view::<C>(cx, Some(i)) == chain_view::<C>(cx, Some(j)),
                "the copy did not continue bit for bit as its source (kind {}, status {s1})",
                C::KIND
            );
        }
    }
}

/// One `step` (no info) of live chain `i`, under the usual oracle.
fn step_live<C: ChainApi>(cx: &mut Ctx, i: usize) -> i32 {
    let l = cx.live[i].clone();
    cx.snapshot();
    // SAFETY: a live state of kind C.
    let s = unsafe { C::step(cx.base().add(l.state), core::ptr::null_mut()) };
    check_status("step", s);
    if trace() {
        eprintln!("  step_live state {} owned {:?} -> {s}", l.state, l.owned);
    }
    let allowed = if s == 0 { l.owned.clone() } else { abort_allowance::<C>(cx, Some(i), s) };
    cx.check_only("step (continuing a copy)", s, &allowed);
    cx.forget_clobbered(Some(i));
    s
}

impl<V: PhaseApi> StateOps for SvgdOps<V> {
    fn size(&self) -> usize {
        V::STATE
    }
    unsafe fn probe(&self, s: *mut u8, l: &Live, k: u8) -> i32 {
        let mut out = vec![V::T::from_f64(0.0); l.n * l.d];
        let mut v = 0u64;
        // SAFETY: as for the chains.
        unsafe {
            match k % 8 {
                0 => V::step(s, core::ptr::null_mut()),
                1 => V::run(s, 1, core::ptr::null_mut()),
                2 => V::particles(s, out.as_mut_ptr(), out.len()),
                3 => V::iterations(s, &mut v),
                4 => V::begin(s),
                5 => V::gradients_range(s, 0, l.n),
                6 => V::finish(s, core::ptr::null_mut()),
                _ => V::cancel(s),
            }
        }
    }
    unsafe fn clear(&self, s: *mut u8) -> i32 {
        // SAFETY: forwarded.
        unsafe { V::clear(s) }
    }
    unsafe fn copy_onto(&self, cx: &mut Ctx, dst: usize, l: &Live, src: usize) -> i32 {
        let t = <V::T as Flt>::SIZE;
        let ((w, we), (x, xe), (p, pe)) = (l.owned[1], l.owned[2], l.particles.unwrap());
        let (dp, pp, wp, ip, sp) = (
            cx.ptr::<u8>(Some(dst)),
            cx.ptr::<V::T>(Some(p)),
            cx.ptr::<V::T>(Some(w)),
            cx.ptr::<u32>(Some(x)),
            cx.ptr::<u8>(Some(src)),
        );
        // SAFETY: `l`'s own buffers with their recorded lengths.
        unsafe { V::copy(dp, pp, (pe - p) / t, wp, (we - w) / t, ip, (xe - x) / 4, sp) }
    }
    unsafe fn copy_new(&self, cx: &mut Ctx, b: &mut Bytes, l: &Live) -> (i32, Option<Made>) {
        let t = <V::T as Flt>::SIZE;
        let (coords, ws_need, idx_need) = (
            l.n * l.d,
            (l.owned[1].1 - l.owned[1].0) / t,
            (l.owned[2].1 - l.owned[2].0) / 4,
        );
        let dst = cx.pick(b, V::STATE, 8);
        let po = cx.pick(b, t * coords.min(4096), t);
        let pl = cx.len(b, po, t, coords);
        let wo = cx.pick(b, t * ws_need.min(4096), t);
        let wl = cx.len(b, wo, t, ws_need);
        let io = cx.pick(b, 4 * idx_need.min(4096), 4);
        let il = cx.len(b, io, 4, idx_need);
        cx.snapshot();
        let (dp, pp, wp, ip, sp) = (
            cx.ptr::<u8>(dst),
            cx.ptr::<V::T>(po),
            cx.ptr::<V::T>(wo),
            cx.ptr::<u32>(io),
            cx.ptr::<u8>(Some(l.state)),
        );
        // SAFETY: every pointer NULL or in the arena with its length (or a huge one).
        let s = unsafe { V::copy(dp, pp, pl, wp, wl, ip, il, sp) };
        let owned = (s == 0).then(|| {
            let (d, p, w, x) = (dst.unwrap(), po.unwrap(), wo.unwrap(), io.unwrap());
            (vec![(d, d + V::STATE), (w, w + wl * t), (x, x + il * 4)], Some((p, p + pl * t)))
        });
        (s, owned)
    }
    fn view(&self, cx: &mut Ctx, l: &Live) -> Vec<u64> {
        let t = <V::T as Flt>::SIZE;
        let i = cx.live.iter().position(|m| m.state == l.state);
        let Some((po, _)) = i.and_then(|i| cx.live[i].particles) else { return vec![] };
        let mut out = vec![V::T::from_f64(0.0); l.n * l.d];
        // SAFETY: a live state; out is a Vec of N·d elements.
        let s = unsafe { V::particles(cx.base().add(l.state), out.as_mut_ptr(), out.len()) };
        assert_eq!(s, 0, "particles getter failed on a live system");
        // The getter copies the caller's particles: the same bits as in the arena.
        assert!(
            out.iter().enumerate().all(|(k, v)| {
                // SAFETY: inside the particles.
                let a = unsafe { cx.bytes().as_ptr().add(po + k * t).cast::<V::T>().read_unaligned() };
                a.to_f64().to_bits() == v.to_f64().to_bits()
            }),
            "particles getter disagrees with the particles"
        );
        out.iter().map(|v| v.to_f64().to_bits()).collect()
    }
}

fn ops_of(kind: usize) -> &'static dyn StateOps {
    use core::marker::PhantomData as P;
    const OPS: [&dyn StateOps; 10] = [
        &ChainOps::<Amg64>(P),
        &ChainOps::<Amg32>(P),
        &ChainOps::<Sgh64>(P),
        &ChainOps::<Sgh32>(P),
        &ChainOps::<Sgl64>(P),
        &ChainOps::<Sgl32>(P),
        &SvgdOps::<Svgd64>(P),
        &SvgdOps::<Svgd32>(P),
        &ChainOps::<Tun64>(P),
        &ChainOps::<Tun32>(P),
    ];
    OPS[kind % 10]
}

/// The supported copy of a live state onto new (fuzzed) buffers: on `SGS_OK` the copy is a new
/// live sampler that reads as its source; on an error nothing changed.
fn copy_state(cx: &mut Ctx, b: &mut Bytes, i: usize) {
    let l = cx.live[i].clone();
    let ops = ops_of(l.kind);
    let before = ops.view(cx, &l);
    // SAFETY: `l` is live; the copy's pointers are picked by the caller-side rules.
    let (s, made) = unsafe { ops.copy_new(cx, b, &l) };
    check_status("copy", s);
    if trace() {
        eprintln!("copy kind {} from {} -> {s}", l.kind, l.state);
    }
    assert!(l.phase.is_none() || s != 0, "copy of a system with an iteration in phases open");
    let Some((owned, particles)) = made else {
        cx.check_only("failed copy", s, &[]);
        return;
    };
    let mut allowed = owned.clone();
    allowed.extend(particles);
    cx.check_only("copy", s, &allowed);
    if owned[0].0 == l.state {
        // The picked destination is the source itself: `copy(s, buffers, s)` re-homes it (onto
        // the buffers given). Not a second sampler: the one live entry takes the new buffers,
        // and reads as before.
        let _ = cx.forget_clobbered(Some(i));
        let at = cx.live.iter().position(|m| m.state == l.state).expect("the re-homed state");
        cx.live[at].owned = owned;
        cx.live[at].particles = particles;
        cx.forget_clobbered(Some(at));
        let me = cx.live.iter().position(|m| m.state == l.state).expect("the re-homed state");
        let now = cx.live[me].clone();
        assert!(ops.view(cx, &now) == before, "copy onto itself (re-homing) changed what the getters read");
        return;
    }
    // A live sampler whose memory the copy overwrote (the caller's choice) is forgotten; the
    // source cannot be among them (the library refuses any overlap with its buffers).
    cx.forget_clobbered(None);
    assert!(cx.live.iter().any(|m| m.state == l.state), "copy overwrote its source");
    let dst = owned[0].0;
    if trace() {
        eprintln!("  copy made at {dst}, owned {owned:?}");
    }
    cx.live.push(Live { state: dst, owned, particles, phase: None, ..l.clone() });
    let copy = cx.live.last().unwrap().clone();
    assert!(ops.view(cx, &l) == ops.view(cx, &copy), "the copy does not read as its source");
    ops.continue_same(cx, b, l.state, dst);
}

/// The unsupported move (memcpy of a live state to a place clear of its buffers): every call on
/// the moved bytes is refused with exactly `SGS_ERR_STATE_MOVED` and changes nothing. Then the
/// caller re-homes the moved state in place (`copy(s, its buffers, s)`, and clears the original,
/// which now shares its buffers), clears the moved bytes, or leaves them as stale garbage.
fn move_state(cx: &mut Ctx, b: &mut Bytes, i: usize) {
    let l = cx.live[i].clone();
    let ops = ops_of(l.kind);
    let size = ops.size();
    let dst = (b.below(ARENA - size)) / 8 * 8;
    let to = (dst, dst + size);
    if l.owned.iter().chain(l.particles.iter()).any(|&r| overlaps(r, to)) {
        return;
    }
    cx.snapshot();
    let base = cx.base();
    // SAFETY: both ranges lie in the arena and are disjoint.
    unsafe { core::ptr::copy_nonoverlapping(base.add(l.state), base.add(dst), size) };
    cx.forget_clobbered(None);
    for _ in 0..1 + b.u8() % 3 {
        let k = b.u8();
        cx.snapshot();
        let p = cx.ptr::<u8>(Some(dst));
        // SAFETY: the moved bytes are a whole state's size inside the arena.
        let s = unsafe { ops.probe(p, &l, k) };
        if trace() {
            eprintln!("moved state {} -> {dst}, probe {} -> {s}", l.state, k % 4);
        }
        assert_eq!(s, 26, "a call on a moved state (kind {}) did not return SGS_ERR_STATE_MOVED", l.kind);
        cx.check_only("call on a moved state", s, &[]);
    }
    match b.u8() % 4 {
        // With an iteration in phases open (its range calls may be running) the moved bytes
        // can be neither re-homed nor cleared: they stay behind as garbage.
        0..=2 if l.phase.is_some() => {
            cx.snapshot();
            let p = cx.ptr::<u8>(Some(dst));
            // SAFETY: `l`'s buffers are alive; the moved bytes are a whole state.
            let s = unsafe { if b.u8() & 1 == 0 { ops.copy_onto(cx, dst, &l, dst) } else { ops.clear(p) } };
            assert_eq!(s, 29, "re-homing or clearing moved bytes with an iteration open");
            cx.check_only("refused re-homing or clear", s, &[]);
        }
        0 | 1 => {
            cx.snapshot();
            // SAFETY: `l`'s buffers are alive (the memcpy missed them).
            let s = unsafe { ops.copy_onto(cx, dst, &l, dst) };
            assert_eq!(s, 0, "re-homing a moved state in place failed");
            cx.check_only("re-homing copy", s, &[to]);
            // The original and the re-homed state now share the buffers: the caller gives up
            // the original.
            clear_at(cx, l.kind, l.state);
            cx.forget_clobbered(None);
            assert!(!cx.live.iter().any(|m| m.state == l.state || m.state == dst));
            cx.live.push(Live { state: dst, owned: [&[to], &l.owned[1..]].concat(), phase: None, ..l.clone() });
            let moved = cx.live.last().unwrap().clone();
            let _ = ops.view(cx, &moved);
        }
        2 => clear_at(cx, l.kind, dst),
        _ => {}
    }
}

/// `sgs_*_clear` of kind `kind` at arena offset `at`, which must succeed and zero exactly the
/// state's bytes.
fn clear_at(cx: &mut Ctx, kind: usize, at: usize) {
    let ops = ops_of(kind);
    cx.snapshot();
    let p = cx.ptr::<u8>(Some(at));
    // SAFETY: a whole state's size at an aligned offset inside the arena.
    let s = unsafe { ops.clear(p) };
    assert_eq!(s, 0, "clear of an aligned state failed");
    let r = (at, at + ops.size());
    cx.check_only("clear", s, &[r]);
    assert!(cx.bytes()[r.0..r.1].iter().all(|&x| x == 0), "clear left non-zero bytes");
}

/// `sgs_*_clear` on any pointer (NULL, misaligned, a live state of any kind, garbage): a
/// documented status; on `SGS_OK` exactly the state's bytes are zero; on an error nothing
/// changed. A sampler whose memory was cleared is forgotten.
fn clear_any(cx: &mut Ctx, b: &mut Bytes, kind: usize) {
    let ops = ops_of(kind);
    let at = cx.pick(b, ops.size(), 8);
    cx.snapshot();
    let p = cx.ptr::<u8>(at);
    // SAFETY: NULL or a state's size inside the arena.
    let s = unsafe { ops.clear(p) };
    check_status("clear", s);
    let open = cx.live.iter().any(|l| Some(l.state) == at && l.kind == kind && l.phase.is_some());
    assert!(!open || s == 29, "clear of a system with an iteration in phases open returned {s}");
    match (s, at) {
        (0, Some(o)) => {
            let r = (o, o + ops.size());
            cx.check_only("clear", s, &[r]);
            assert!(cx.bytes()[r.0..r.1].iter().all(|&x| x == 0), "clear left non-zero bytes");
        }
        _ => cx.check_only("failed clear", s, &[]),
    }
    cx.forget_clobbered(None);
}

/// Copy, move or clear, mostly on a live sampler.
fn state_op(cx: &mut Ctx, b: &mut Bytes, kind: usize) {
    let k = b.u8();
    if cx.live.is_empty() || k % 8 == 0 {
        return clear_any(cx, b, kind);
    }
    let i = b.below(cx.live.len());
    match k % 8 {
        1..=4 => copy_state(cx, b, i),
        _ => move_state(cx, b, i),
    }
}

fn one_input(data: &[u8]) {
    let mut b = Bytes { d: data, i: 0 };
    let mut cx = Ctx {
        arena: vec![0u64; ARENA / 8],
        before: vec![],
        live: vec![],
        models: vec![],
    };
    cx.snapshot();
    for _ in 0..MAX_OPS {
        if b.done() {
            break;
        }
        let op = b.u8();
        let kind = (op >> 4) as usize % 10;
        match op % 16 {
            0..=2 => match kind {
                0 => chain_init::<Amg64>(&mut cx, &mut b),
                1 => chain_init::<Amg32>(&mut cx, &mut b),
                2 => chain_init::<Sgh64>(&mut cx, &mut b),
                3 => chain_init::<Sgh32>(&mut cx, &mut b),
                4 => chain_init::<Sgl64>(&mut cx, &mut b),
                5 => chain_init::<Sgl32>(&mut cx, &mut b),
                6 => svgd_init::<Svgd64>(&mut cx, &mut b),
                7 => svgd_init::<Svgd32>(&mut cx, &mut b),
                8 => chain_init::<Tun64>(&mut cx, &mut b),
                _ => chain_init::<Tun32>(&mut cx, &mut b),
            },
            3..=11 => {
                // Mostly the kind of a live sampler, so that calls reach initialised states.
                let kind = if op & 0x80 == 0 && !cx.live.is_empty() {
                    cx.live[(op as usize >> 4) % cx.live.len()].kind
                } else {
                    kind
                };
                match kind {
                    0 => chain_call::<Amg64>(&mut cx, &mut b),
                    1 => chain_call::<Amg32>(&mut cx, &mut b),
                    2 => chain_call::<Sgh64>(&mut cx, &mut b),
                    3 => chain_call::<Sgh32>(&mut cx, &mut b),
                    4 => chain_call::<Sgl64>(&mut cx, &mut b),
                    5 => chain_call::<Sgl32>(&mut cx, &mut b),
                    6 => svgd_call::<Svgd64>(&mut cx, &mut b),
                    7 => svgd_call::<Svgd32>(&mut cx, &mut b),
                    8 => chain_call::<Tun64>(&mut cx, &mut b),
                    _ => chain_call::<Tun32>(&mut cx, &mut b),
                }
            }
            12 if kind == 7 => batch_op::<Amg64>(&mut b),
            12 if kind == 6 => match b.u8() % 5 {
                0 => batch_op::<Amg32>(&mut b),
                1 => batch_op::<Sgh64>(&mut b),
                2 => batch_op::<Sgh32>(&mut b),
                3 => batch_op::<Sgl64>(&mut b),
                _ => batch_op::<Sgl32>(&mut b),
            },
            12 if kind == 5 => noise(&mut cx, &mut b),
            12 if kind == 4 => shard_op(&mut cx, &mut b),
            12 => minibatch(&mut cx, &mut b),
            13 => state_op(&mut cx, &mut b, kind),
            14 => {
                let s = b.u32() as i32;
                check_status_str(s);
                match kind {
                    0 => chain_queries::<Amg64>(&mut b),
                    1 => chain_queries::<Amg32>(&mut b),
                    2 => chain_queries::<Sgh64>(&mut b),
                    3 => chain_queries::<Sgh32>(&mut b),
                    4 => chain_queries::<Sgl64>(&mut b),
                    5 => chain_queries::<Sgl32>(&mut b),
                    6 => svgd_queries::<Svgd64>(&mut b),
                    7 => svgd_queries::<Svgd32>(&mut b),
                    8 => chain_queries::<Tun64>(&mut b),
                    _ => chain_queries::<Tun32>(&mut b),
                }
            }
            _ => {
                // The caller scribbles on memory (which forgets any sampler it hits).
                let o = b.below(ARENA - 64);
                let len = b.u8() as usize % 64;
                cx.snapshot();
                for k in 0..len {
                    let v = b.u8();
                    let bytes: &mut [u8] =
                        // SAFETY: u64 → u8 view of the arena.
                        unsafe { core::slice::from_raw_parts_mut(cx.base(), ARENA) };
                    bytes[o + k] = v;
                }
                cx.forget_clobbered(None);
            }
        }
    }
}

fn check_status_str(s: i32) {
    // SAFETY: static nul-terminated strings.
    let msg = unsafe { CStr::from_ptr(sgs_status_str(s)) };
    assert!(!msg.to_bytes().is_empty());
    // SAFETY: as above.
    let v = unsafe { CStr::from_ptr(sgs_version()) };
    assert!(!v.to_bytes().is_empty());
}

fn svgd_queries<V: SvgdApi>(b: &mut Bytes) {
    let n = if b.u8() & 1 == 0 { b.below(64) } else { b.u64() as usize };
    let d = if b.u8() & 1 == 0 { b.below(64) } else { b.u64() as usize };
    let c = sgs_svgd_config_default(b.u64(), 0.1);
    let mut buf = [0u64; core::mem::size_of::<sgs_svgd_config>() / 8 + 1];
    let p = buf.as_mut_ptr().cast::<u8>().wrapping_add(if b.u8() & 1 == 0 { 0 } else { 4 });
    // SAFETY: inside buf.
    unsafe { p.cast::<sgs_svgd_config>().write_unaligned(c) };
    let cp: *const sgs_svgd_config = if b.u8() % 4 == 0 { core::ptr::null() } else { p.cast() };
    // SAFETY: NULL, misaligned or a readable config.
    let _ = unsafe { V::ws_len(n, d, cp) };
    let _ = V::index_len(n);
    assert!(V::state_size() >= V::STATE && V::state_align() >= 8);
}

// ---------------------------------------------------------------------------------------------
// The SVGD iteration in phases: `sgs_svgd_begin`, the range calls, the forces and moves getters
// and puts, `finish`, `cancel`, the range queries (f64 and f32).
//
// The target models the library's bookkeeping of every iteration it began (which slots'
// gradients are taken and computed, which forces are claimed and done) and checks each status
// on such a system against the model: a range call is refused with RANGE_OVERLAP exactly when
// it meets a slot already taken, a batch range with GRADIENTS_NOT_READY exactly when one of its
// gradients is missing, a getter with ITERATION_INCOMPLETE exactly when one of its slots is not
// done, and `finish` completes exactly when every slot is done. What each call may write:
// `begin` the state, workspace and index; the range calls and the puts the workspace; the
// getters exactly their values; `finish` the particles, workspace, state and `info`; `cancel`
// only the state and a `finish` that fails on non-finite values only the state and the
// workspace's scratch, the state then byte for byte as before `begin`; a `begin` that fails on a
// non-finite bandwidth only the index and the workspace's scratch. Any other error writes
// nothing. Range calls on a system without an iteration begun get exactly
// ITERATION_NOT_BEGUN (after the pointer checks), a second `begin` ITERATION_IN_PROGRESS, and
// `cancel` of an open iteration always succeeds (nothing is under way). After a successful
// `finish` every particle is finite, and when every callback of the iteration returned the true
// gradient and nothing made up was put, the particles and the info are bit for bit those of
// `sgs_svgd_step` on an `sgs_svgd_copy` twin taken before `begin` (which also yields the
// honest forces and moves that the puts send, as an MPI rank would); with forces put in and the
// KSD on, the info's `ksd_squared` is NaN (no gradients of those slots here). Ranges come in
// order, reversed, overlapping, out of bounds or SIZE_MAX; buffers anywhere in the arena (in the
// state, workspace or particles, misaligned, NULL) with lengths exact, one short, one long,
// zero or huge; put values the twin's, made up (sometimes NaN or ±∞) or whatever is there; the
// calls in any order, and `drive` runs a whole iteration in a fuzzed split. Systems of 33 to 40
// particles exercise the second word of the library's slot bitmaps.

/// Counts the callback calls that did not return the true gradient (an error status, a
/// non-finite or huge value, nothing written): the differential oracle compares only
/// iterations during which it did not move.
static IMPURE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn note_impure(b: u8) {
    if ret_of(b) != SGS_CB_OK || (b >> 4) & 7 > 3 {
        IMPURE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    if val_of(b, 0.0).is_none() {
        STALE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Counts the callback calls that wrote nothing (the library then reads whatever its buffer
/// held, which differs between a system and its twin): the scheduled-run oracle compares only
/// runs during which it did not move.
static STALE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn stale() -> u64 {
    STALE.load(std::sync::atomic::Ordering::Relaxed)
}

fn impure() -> u64 {
    IMPURE.load(std::sync::atomic::Ordering::Relaxed)
}

trait PhaseApi: SvgdApi {
    unsafe fn begin(s: *mut u8) -> i32;
    unsafe fn gradients_range(s: *const u8, a: usize, e: usize) -> i32;
    unsafe fn batches_range(s: *const u8, a: usize, e: usize) -> i32;
    /// `…_moves_get` when `moves`, else `…_forces_get`.
    unsafe fn get(moves: bool, s: *const u8, a: usize, e: usize, out: *mut Self::T, ol: usize) -> i32;
    /// `…_moves_put` when `moves`, else `…_forces_put`.
    unsafe fn put(moves: bool, s: *const u8, a: usize, e: usize, v: *const Self::T, vl: usize) -> i32;
    /// `…_num_batches` when `batches`, else `…_move_width`.
    unsafe fn value(batches: bool, s: *const u8, out: *mut usize) -> i32;
    unsafe fn finish(s: *mut u8, info: *mut u8) -> i32;
    unsafe fn cancel(s: *mut u8) -> i32;
    unsafe fn batch_rows(s: *const u8, k: usize, first: *mut usize, end: *mut usize) -> i32;
    unsafe fn set_batch_size(s: *mut u8, p: u64) -> i32;
    unsafe fn run_scheduled(s: *mut u8, it: u64, sched: *const sgs_svgd_schedule, sum: *mut u8) -> i32;
}

macro_rules! phase_impl {
    ($K:ident, $begin:ident $gr:ident $br:ident $fg:ident $fp:ident $mg:ident $mp:ident
     $mw:ident $fin:ident $can:ident $nb:ident $rows:ident $sbs:ident $rs:ident) => {
        impl PhaseApi for $K {
            unsafe fn begin(s: *mut u8) -> i32 {
                unsafe { $begin(s.cast()) as i32 }
            }
            unsafe fn gradients_range(s: *const u8, a: usize, e: usize) -> i32 {
                unsafe { $gr(s.cast(), a, e) as i32 }
            }
            unsafe fn batches_range(s: *const u8, a: usize, e: usize) -> i32 {
                unsafe { $br(s.cast(), a, e) as i32 }
            }
            unsafe fn get(moves: bool, s: *const u8, a: usize, e: usize, out: *mut Self::T, ol: usize) -> i32 {
                (unsafe { if moves { $mg(s.cast(), a, e, out, ol) } else { $fg(s.cast(), a, e, out, ol) } }) as i32
            }
            unsafe fn put(moves: bool, s: *const u8, a: usize, e: usize, v: *const Self::T, vl: usize) -> i32 {
                (unsafe { if moves { $mp(s.cast(), a, e, v, vl) } else { $fp(s.cast(), a, e, v, vl) } }) as i32
            }
            unsafe fn value(batches: bool, s: *const u8, out: *mut usize) -> i32 {
                (unsafe { if batches { $nb(s.cast(), out) } else { $mw(s.cast(), out) } }) as i32
            }
            unsafe fn finish(s: *mut u8, info: *mut u8) -> i32 {
                unsafe { $fin(s.cast(), info.cast()) as i32 }
            }
            unsafe fn cancel(s: *mut u8) -> i32 {
                unsafe { $can(s.cast()) as i32 }
            }
            unsafe fn batch_rows(s: *const u8, k: usize, first: *mut usize, end: *mut usize) -> i32 {
                unsafe { $rows(s.cast(), k, first, end) as i32 }
            }
            unsafe fn set_batch_size(s: *mut u8, p: u64) -> i32 {
                unsafe { $sbs(s.cast(), p) as i32 }
            }
            unsafe fn run_scheduled(s: *mut u8, it: u64, sched: *const sgs_svgd_schedule, sum: *mut u8) -> i32 {
                unsafe { $rs(s.cast(), it, sched, sum.cast()) as i32 }
            }
        }
    };
}

phase_impl!(Svgd64, sgs_svgd_begin sgs_svgd_gradients_range sgs_svgd_batches_range
    sgs_svgd_forces_get sgs_svgd_forces_put sgs_svgd_moves_get sgs_svgd_moves_put
    sgs_svgd_move_width sgs_svgd_finish sgs_svgd_cancel sgs_svgd_num_batches sgs_svgd_batch_rows
    sgs_svgd_set_batch_size sgs_svgd_run_scheduled);
phase_impl!(Svgd32, sgs_svgd_begin_f32 sgs_svgd_gradients_range_f32
    sgs_svgd_batches_range_f32 sgs_svgd_forces_get_f32 sgs_svgd_forces_put_f32
    sgs_svgd_moves_get_f32 sgs_svgd_moves_put_f32 sgs_svgd_move_width_f32 sgs_svgd_finish_f32
    sgs_svgd_cancel_f32 sgs_svgd_num_batches_f32 sgs_svgd_batch_rows_f32
    sgs_svgd_set_batch_size_f32 sgs_svgd_run_scheduled_f32);

/// An iteration in phases the target began on a live system, as the target models it.
#[derive(Clone)]
struct Phase {
    n: usize,
    /// Slot bitmaps (bit k: slot k): gradients taken, gradients computed, forces claimed,
    /// forces done.
    taken: u64,
    grad: u64,
    claim: u64,
    done: u64,
    /// The slots of each batch, from `…_batch_rows` at begin.
    rows: Vec<(usize, usize)>,
    /// Values per slot of a move (`…_move_width`).
    width: usize,
    /// Whether the ranges make the moves (the KSD off): `…_moves_get/put` allowed.
    moves: bool,
    /// The state's bytes before `begin`, which `cancel` and a failing `finish` restore.
    state_before: Vec<u8>,
    /// The particles' bytes at `begin`.
    particles_before: Vec<u8>,
    /// [`IMPURE`] just before `begin`.
    epoch: u64,
    /// Cleared when made-up values are put, or the particles differ from `particles_before`
    /// when a call reads them.
    pure: bool,
    /// From the twin, when its callbacks were pure: every slot's forces and (KSD off) moves, in
    /// slot order, as raw bytes.
    honest: Option<(Vec<u8>, Option<Vec<u8>>)>,
    /// The twin's `step`: status, particles' bytes, info's bytes (when its callbacks were pure).
    expected: Option<(i32, Vec<u8>, Vec<u8>)>,
}

impl Phase {
    /// The first slot of batch `k` (N for k = the number of batches).
    fn start(&self, k: usize) -> usize {
        self.rows.get(k).map_or(self.n, |r| r.0)
    }
}

/// The bits of slots `a..e` (`a ≤ e ≤ 64`; empty for `a ≥ e`).
fn slots(a: usize, e: usize) -> u64 {
    if a >= e {
        0
    } else {
        (u64::MAX >> (64 - (e - a))) << a
    }
}

fn raw<T>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain floats, no padding.
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u8>(), core::mem::size_of_val(v)) }.to_vec()
}

/// A range over `limit` items: mostly the next one a caller would take (from `next`), or all;
/// else empty, reversed, random, out of bounds, SIZE_MAX, or around `hit` (an item already
/// taken: an overlap).
fn fuzz_range(b: &mut Bytes, limit: usize, next: usize, hit: Option<usize>) -> (usize, usize) {
    let a = next.min(limit);
    match b.u8() % 12 {
        0..=4 => (a, (a + 1 + b.below((limit - a).max(1))).min(limit)),
        5 => (0, limit),
        6 => {
            let x = b.below(limit + 2);
            (x + 1, x)
        }
        7 => (b.below(limit + 3), b.below(limit + 3)),
        8 => (b.below(limit + 1), limit + 1 + b.below(3)),
        9 => match b.u8() % 4 {
            0 => (usize::MAX, usize::MAX),
            1 => (0, usize::MAX),
            2 => (usize::MAX, 0),
            _ => (usize::MAX - b.below(4), usize::MAX),
        },
        10 => match hit {
            Some(h) => (h.saturating_sub(b.below(3)), (h + 1 + b.below(3)).min(limit)),
            None => (a, a),
        },
        _ => (a, a),
    }
}

/// A length for `need` values at `off`: exact, one short, one long, zero or huge (never more
/// than the memory behind the pointer unless huge).
fn phase_len(b: &mut Bytes, off: Option<usize>, elem: usize, need: usize) -> usize {
    let cap = off.map_or(usize::MAX, |o| (ARENA - o) / elem);
    let l = match b.u8() % 8 {
        0..=3 => need,
        4 => need.saturating_sub(1),
        5 => need.saturating_add(1),
        6 => 0,
        _ if b.u8() & 1 == 0 => HUGE + b.below(1000),
        _ => usize::MAX,
    };
    if l > cap && l < HUGE {
        cap
    } else {
        l
    }
}

/// The byte ranges of live system `i`: state, workspace, index, particles (what the library
/// refuses an output or input to overlap).
fn own_spans(cx: &Ctx, i: usize) -> Vec<(usize, usize)> {
    let l = &cx.live[i];
    l.owned.iter().copied().chain(l.particles).collect()
}

/// The caller may change its particles while an iteration is open (a case-5 edit, a fill for
/// another init): the ranges then read other positions than the twin did, even if the particles
/// are back as they were by `finish`. Checked before every call that reads them.
fn note_particles(cx: &mut Ctx, me: Option<usize>) {
    let Some(i) = me else { return };
    let Some((po, pe)) = cx.live[i].particles else { return };
    let now = bytes_of(&cx.arena)[po..pe].to_vec();
    if let Some(p) = cx.live[i].phase.as_deref_mut() {
        p.pure &= now == p.particles_before;
    }
}

fn phase_of(cx: &Ctx, me: Option<usize>) -> Option<&Phase> {
    me.and_then(|i| cx.live[i].phase.as_deref())
}

/// One call of the phases API on `state` (a live system `me` of this kind, or anything else).
fn phase_call<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>, sel: u8) {
    match sel % 16 {
        0 => {
            phase_begin::<V>(cx, b, state, me);
        }
        1 | 2 => phase_range::<V>(cx, b, state, me, false),
        3 | 4 => phase_range::<V>(cx, b, state, me, true),
        5 | 6 => phase_get::<V>(cx, b, state, me, sel % 16 == 6),
        7 | 8 => phase_put::<V>(cx, b, state, me, sel % 16 == 8),
        9 => {
            let io = cx.pick(b, size_of::<sgs_svgd_info>(), 8);
            let ip = cx.ptr::<u8>(io);
            phase_finish::<V>(cx, state, me, ip, io);
        }
        10 => phase_cancel::<V>(cx, state, me),
        11 => phase_values::<V>(cx, b, state, me),
        15 => sched_call::<V>(cx, b, state, me),
        _ => phase_drive::<V>(cx, b, state, me),
    }
}

/// The differential twin of live system `i`: an `sgs_svgd_copy` onto the target's own memory
/// (outside the arena), which runs the whole iteration in phases once for every slot's forces
/// and moves, cancels it, then runs `sgs_svgd_step`. Returns the honest values and the step's
/// outcome, each only when every callback they needed was pure.
#[allow(clippy::type_complexity)]
fn twin_run<V: PhaseApi>(cx: &mut Ctx, i: usize) -> (Option<(Vec<u8>, Option<Vec<u8>>)>, Option<(i32, Vec<u8>, Vec<u8>)>) {
    let t = <V::T as Flt>::SIZE;
    let l = cx.live[i].clone();
    let (n, coords) = (l.n, l.n * l.d);
    let (wl, il) = ((l.owned[1].1 - l.owned[1].0) / t, (l.owned[2].1 - l.owned[2].0) / 4);
    let mut st = vec![0u64; V::STATE.div_ceil(8)];
    let mut p = vec![V::T::from_f64(0.0); coords];
    let mut w = vec![V::T::from_f64(0.0); wl];
    let mut x = vec![0u32; il];
    cx.snapshot();
    let sp: *mut u8 = st.as_mut_ptr().cast();
    let src = cx.ptr::<u8>(Some(l.state));
    // SAFETY: a live source without an iteration open; new buffers of the source's lengths.
    let s = unsafe { V::copy(sp, p.as_mut_ptr(), coords, w.as_mut_ptr(), wl, x.as_mut_ptr(), il, src) };
    assert_eq!(s, 0, "copy of a live system for the twin failed");
    cx.check_only("twin copy", s, &[]);
    let e0 = impure();
    let mut honest = None;
    // SAFETY: the twin is a live system on `st`, `p`, `w`, `x`; every output is a local of
    // the length given.
    unsafe {
        if V::begin(sp) == 0 {
            let (mut nb, mut wd) = (0usize, 0usize);
            assert_eq!(V::value(true, sp, &mut nb), 0);
            assert_eq!(V::value(false, sp, &mut wd), 0);
            if V::gradients_range(sp, 0, n) == 0 && V::batches_range(sp, 0, nb) == 0 {
                let mut f = vec![V::T::from_f64(0.0); coords];
                assert_eq!(V::get(false, sp, 0, n, f.as_mut_ptr(), coords), 0, "twin forces_get");
                let mut m = vec![V::T::from_f64(0.0); n * wd];
                let mv = (V::get(true, sp, 0, n, m.as_mut_ptr(), m.len()) == 0).then(|| raw(&m));
                honest = Some((raw(&f), mv));
            }
            assert_eq!(V::cancel(sp), 0, "the twin's cancel failed");
        }
    }
    let mut info = [0u64; 16];
    // SAFETY: as above.
    let s = unsafe { V::step(sp, info.as_mut_ptr().cast()) };
    let pure = impure() == e0;
    let info = raw(&info)[..size_of::<sgs_svgd_info>()].to_vec();
    (honest.filter(|_| pure), pure.then(|| (s, raw(&p), info)))
}

/// `…_begin` (after the twin's run, mostly); on success the target starts its model.
fn phase_begin<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) -> Option<usize> {
    let open = phase_of(cx, me).is_some();
    let (honest, expected) = match me {
        Some(i) if !open && b.u8() % 4 != 0 => twin_run::<V>(cx, i),
        _ => (None, None),
    };
    let before = me.map(|i| {
        let l = &cx.live[i];
        let (s, p) = (l.owned[0], l.particles.unwrap());
        (cx.bytes()[s.0..s.1].to_vec(), cx.bytes()[p.0..p.1].to_vec())
    });
    let epoch = impure();
    cx.snapshot();
    let sp = cx.ptr::<u8>(state);
    // SAFETY: a live state, NULL, or memory without a valid tag (see `state_for_call`).
    let s = unsafe { V::begin(sp) };
    check_status("begin", s);
    if trace() {
        eprintln!("begin kind {} state {state:?} live {me:?} -> {s}", V::KIND);
    }
    assert!(!open || s == 29, "begin on an open iteration returned {s}");
    assert!(s != 0 || me.is_some(), "begin succeeded on no live system of its kind");
    let allowed = match me {
        Some(i) if s == 0 => cx.live[i].owned.clone(),
        // A data-dependent bandwidth that came out non-finite: the permutation was drawn into
        // the index and the median computed in the workspace's scratch.
        Some(i) if s == 22 => cx.live[i].owned[1..].to_vec(),
        _ => vec![],
    };
    cx.check_only("begin", s, &allowed);
    let me = cx.forget_clobbered(me);
    let (Some(i), 0, Some((state_before, particles_before))) = (me, s, before) else { return me };
    let (st, n, d) = (cx.live[i].state, cx.live[i].n, cx.live[i].d);
    let sp = cx.ptr::<u8>(Some(st));
    let (mut nb, mut width) = (0usize, 0usize);
    let mut rows = vec![];
    let mut one = [V::T::from_f64(0.0); 1];
    // SAFETY: a live state; every output is a local.
    let moves = unsafe {
        assert_eq!(V::value(true, sp, &mut nb), 0, "num_batches");
        assert_eq!(V::value(false, sp, &mut width), 0, "move_width");
        for k in 0..=nb {
            let (mut a, mut e) = (0usize, 0usize);
            let s = V::batch_rows(sp, k, &mut a, &mut e);
            assert_eq!(s, if k < nb { 0 } else { 31 }, "batch_rows({k}) of {nb}");
            if k < nb {
                rows.push((a, e));
            }
        }
        // An empty range: SGS_OK exactly when the ranges make the moves.
        let m = V::get(true, sp, 0, 0, one.as_mut_ptr(), 0);
        assert!(m == 0 || m == 19, "moves_get of no slots returned {m}");
        m == 0
    };
    assert!(width == 2 * d || width == 3 * d, "move width {width} for d = {d}");
    assert!(nb >= 1 && rows[0].0 == 0 && rows[nb - 1].1 == n, "batches {rows:?} of {n} slots");
    assert!(rows.windows(2).all(|w| w[0].1 == w[1].0) && rows.iter().all(|r| r.0 < r.1), "batches {rows:?}");
    cx.live[i].phase = Some(Box::new(Phase {
        n,
        taken: 0,
        grad: 0,
        claim: 0,
        done: 0,
        rows,
        width,
        moves,
        state_before,
        particles_before,
        epoch,
        pure: true,
        honest,
        expected,
    }));
    Some(i)
}

fn phase_range<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>, batches: bool) {
    let (limit, next, hit) = match phase_of(cx, me) {
        Some(p) if batches => {
            let nb = p.rows.len();
            let used = |k: &usize| slots(p.rows[*k].0, p.rows[*k].1) & p.claim != 0;
            ((nb), (0..nb).find(|k| !used(k)).unwrap_or(nb), (0..nb).find(used))
        }
        Some(p) => {
            let used = |k: &usize| p.taken >> *k & 1 == 1;
            (p.n, (0..p.n).find(|k| !used(k)).unwrap_or(p.n), (0..p.n).find(used))
        }
        None => (me.map_or(4, |i| cx.live[i].n), 0, None),
    };
    let (a, e) = fuzz_range(b, limit, next, hit);
    phase_range_at::<V>(cx, state, me, batches, a, e);
}

/// `…_gradients_range` or `…_batches_range` of `a..e`; returns the status and `me`'s new index.
fn phase_range_at<V: PhaseApi>(
    cx: &mut Ctx,
    state: Option<usize>,
    me: Option<usize>,
    batches: bool,
    a: usize,
    e: usize,
) -> (i32, Option<usize>) {
    let what = if batches { "batches_range" } else { "gradients_range" };
    note_particles(cx, me);
    cx.snapshot();
    let sp = cx.ptr::<u8>(state);
    // SAFETY: as in `phase_begin`.
    let s = unsafe {
        if batches {
            V::batches_range(sp, a, e)
        } else {
            V::gradients_range(sp, a, e)
        }
    };
    check_status(what, s);
    if trace() {
        eprintln!("{what} kind {} live {me:?} {a}..{e} -> {s}", V::KIND);
    }
    // After a callback error the range's rows of gathered positions and gradients may hold
    // what it computed (the workspace); the bookkeeping is undone.
    let cb_error = !batches && matches!(s, 11 | 22 | 24);
    let allowed = match me {
        Some(i) if s == 0 || cb_error => vec![cx.live[i].owned[1]],
        _ => vec![],
    };
    cx.check_only(what, s, &allowed);
    let me = cx.forget_clobbered(me);
    let Some(i) = me else { return (s, me) };
    let Some(p) = cx.live[i].phase.as_deref_mut() else {
        assert_eq!(s, 28, "{what} without an iteration begun");
        return (s, me);
    };
    let limit = if batches { p.rows.len() } else { p.n };
    let r = if a > e || e > limit {
        0
    } else if batches {
        slots(p.start(a), p.start(e))
    } else {
        slots(a, e)
    };
    let want = if a > e {
        30
    } else if e > limit {
        31
    } else if batches {
        if r & p.claim != 0 {
            32
        } else if r & !p.grad != 0 {
            33
        } else {
            0
        }
    } else if r & p.taken != 0 {
        32
    } else {
        0
    };
    assert!(
        s == want || (want == 0 && cb_error),
        "{what} {a}..{e} returned {s}, the model says {want} (taken {:#x} grad {:#x} claim {:#x} done {:#x})",
        p.taken, p.grad, p.claim, p.done
    );
    if s == 0 {
        if batches {
            p.claim |= r;
            p.done |= r;
        } else {
            p.taken |= r;
            p.grad |= r;
        }
    }
    (s, me)
}

/// The refusal of a caller buffer at address `p` for values of `t` bytes by the pointer checks
/// (NULL, misaligned), if any.
fn ptr_error(p: usize, t: usize) -> Option<i32> {
    if p == 0 {
        Some(1)
    } else if p % t != 0 {
        Some(23)
    } else {
        None
    }
}

fn phase_get<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>, moves: bool) {
    let t = <V::T as Flt>::SIZE;
    let what = if moves { "moves_get" } else { "forces_get" };
    let (limit, per, next, hit) = match phase_of(cx, me) {
        Some(p) => {
            let done = |k: &usize| p.done >> *k & 1 == 1;
            let per = if moves { p.width } else { cx.live[me.unwrap()].d };
            (p.n, per, (0..p.n).find(done).unwrap_or(0), (0..p.n).find(|k| !done(k)))
        }
        None => (me.map_or(4, |i| cx.live[i].n), me.map_or(1, |i| cx.live[i].d), 0, None),
    };
    let (a, e) = fuzz_range(b, limit, next, hit);
    let need = e.saturating_sub(a).saturating_mul(per);
    let oo = cx.pick(b, t.saturating_mul(need.min(4096)), t);
    let ol = phase_len(b, oo, t, need);
    cx.snapshot();
    let op = cx.ptr::<V::T>(oo);
    // SAFETY: as in `phase_begin`; `op` NULL or in the arena for `ol` values (or a huge `ol`).
    let s = unsafe { V::get(moves, cx.ptr::<u8>(state), a, e, op, ol) };
    check_status(what, s);
    if trace() {
        eprintln!("{what} kind {} live {me:?} {a}..{e} out {oo:?}+{ol} (need {need}) -> {s}", V::KIND);
    }
    // Exactly the values asked for, in the caller's buffer.
    let allowed: Vec<_> = oo.filter(|_| s == 0).map(|o| (o, o + need * t)).into_iter().collect();
    cx.check_only(what, s, &allowed);
    let me = cx.forget_clobbered(me);
    let Some(i) = me else { return };
    let spans = own_spans(cx, i);
    let pe = ptr_error(op as usize, t);
    let Some(p) = cx.live[i].phase.as_deref() else {
        assert_eq!(s, pe.unwrap_or(28), "{what} without an iteration begun");
        return;
    };
    let want = pe.or(if a > e {
        Some(30)
    } else if e > p.n {
        Some(31)
    } else if moves && !p.moves {
        Some(19)
    } else if slots(a, e) & !p.done != 0 {
        Some(34)
    } else {
        None
    });
    match want {
        Some(w) => assert_eq!(s, w, "{what} {a}..{e}: the model says {w}"),
        None => {
            let o = oo.unwrap();
            let clash = ol >= HUGE || spans.iter().any(|&r| overlaps(r, (o, o + ol * t)));
            let w = if clash { 23 } else if ol < need { 17 } else { 0 };
            assert_eq!(s, w, "{what} {a}..{e} into {o}+{ol} (need {need})");
        }
    }
}

/// The caller's values for a put of slots `a..e` of `p`: the twin's (honest) when it has them
/// and `honest`, else made up from the input (sometimes NaN or ±∞). Returns them as raw bytes
/// and whether they are the twin's.
fn put_values<T: Flt>(b: &mut Bytes, p: &Phase, d: usize, moves: bool, a: usize, e: usize, honest: bool) -> (Vec<u8>, bool) {
    let t = T::SIZE;
    if honest && a <= e && e <= p.n {
        let src = p.honest.as_ref().and_then(|(f, m)| if moves { m.as_ref() } else { Some(f) });
        if let Some(src) = src {
            let blocks = if moves { p.width / d } else { 1 };
            let mut out = vec![];
            for k in 0..blocks {
                let base = k * p.n * d;
                out.extend_from_slice(&src[(base + a * d) * t..(base + e * d) * t]);
            }
            return (out, true);
        }
    }
    let per = if moves { p.width } else { d };
    let len = e.saturating_sub(a).saturating_mul(per).min(4096);
    let vals: Vec<T> = (0..len)
        .map(|_| {
            T::from_f64(match b.u8() % 16 {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                3 => 1e300,
                k => (f64::from(k) - 8.0) / 4.0,
            })
        })
        .collect();
    (raw(&vals), false)
}

fn phase_put<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>, moves: bool) {
    let t = <V::T as Flt>::SIZE;
    let (limit, per, next, hit) = match phase_of(cx, me) {
        Some(p) => {
            let used = |k: &usize| (p.taken | p.claim) >> *k & 1 == 1;
            let d = cx.live[me.unwrap()].d;
            (p.n, if moves { p.width } else { d }, (0..p.n).find(|k| !used(k)).unwrap_or(p.n), (0..p.n).find(used))
        }
        None => (me.map_or(4, |i| cx.live[i].n), me.map_or(1, |i| cx.live[i].d), 0, None),
    };
    let (a, e) = fuzz_range(b, limit, next, hit);
    let need = e.saturating_sub(a).saturating_mul(per);
    let io = cx.pick(b, t.saturating_mul(need.min(4096)), t);
    let il = phase_len(b, io, t, need);
    let mut me = me;
    let mut made_up = true;
    // The caller writes its values into the buffer first, unless the buffer lies in the
    // system's own memory (which the library must refuse) or is not an array.
    if let (Some(o), Some(i)) = (io, me) {
        let clear = il < HUGE && !own_spans(cx, i).iter().any(|&r| overlaps(r, (o, o + il * t)));
        if clear && b.u8() % 4 != 0 {
            let d = cx.live[i].d;
            let honest = b.u8() % 2 == 0;
            let (vals, twin) = match cx.live[i].phase.as_deref() {
                Some(p) => put_values::<V::T>(b, p, d, moves, a, e, honest),
                None => (vec![], false),
            };
            let k = vals.len().min(il * t).min(ARENA - o);
            made_up = !(twin && k == need * t && il == need);
            cx.snapshot();
            // SAFETY: `k` bytes at `o` lie in the arena.
            unsafe { core::ptr::copy_nonoverlapping(vals.as_ptr(), cx.base().add(o), k) };
            me = cx.forget_clobbered(me);
        }
    }
    let ip = cx.ptr::<V::T>(io);
    phase_put_at::<V>(cx, state, me, moves, a, e, ip, il, io, made_up);
}

/// `…_forces_put` or `…_moves_put` of slots `a..e` from `ip` (`il` values; at arena offset `io`
/// when in the arena); `made_up` when the values are not the twin's.
#[allow(clippy::too_many_arguments)]
fn phase_put_at<V: PhaseApi>(
    cx: &mut Ctx,
    state: Option<usize>,
    me: Option<usize>,
    moves: bool,
    a: usize,
    e: usize,
    ip: *const V::T,
    il: usize,
    io: Option<usize>,
    made_up: bool,
) -> (i32, Option<usize>) {
    let t = <V::T as Flt>::SIZE;
    let what = if moves { "moves_put" } else { "forces_put" };
    note_particles(cx, me);
    cx.snapshot();
    // SAFETY: as in `phase_begin`; `ip` NULL, a local of `il` values, or in the arena for `il`
    // values (or a huge `il`).
    let s = unsafe { V::put(moves, cx.ptr::<u8>(state), a, e, ip, il) };
    check_status(what, s);
    if trace() {
        eprintln!("{what} kind {} live {me:?} {a}..{e} from {io:?}+{il} made up {made_up} -> {s}", V::KIND);
    }
    let allowed = match me {
        Some(i) if s == 0 => vec![cx.live[i].owned[1]],
        _ => vec![],
    };
    cx.check_only(what, s, &allowed);
    let me = cx.forget_clobbered(me);
    let Some(i) = me else { return (s, me) };
    let spans = own_spans(cx, i);
    let d = cx.live[i].d;
    let pe = ptr_error(ip as usize, t);
    let Some(p) = cx.live[i].phase.as_deref_mut() else {
        assert_eq!(s, pe.unwrap_or(28), "{what} without an iteration begun");
        return (s, me);
    };
    let need = e.saturating_sub(a).saturating_mul(if moves { p.width } else { d });
    let clash = il >= HUGE || io.is_some_and(|o| spans.iter().any(|&r| overlaps(r, (o, o + il * t))));
    let r = if a <= e && e <= p.n { slots(a, e) } else { 0 };
    let want = pe.unwrap_or(if a > e {
        30
    } else if e > p.n {
        31
    } else if moves && !p.moves {
        19
    } else if clash {
        23
    } else if il != need {
        4
    } else if r & (p.taken | p.claim) != 0 {
        32
    } else {
        0
    });
    assert_eq!(s, want, "{what} {a}..{e} from {io:?}+{il} (need {need}): the model says {want}");
    if s == 0 {
        p.taken |= r;
        p.claim |= r;
        p.done |= r;
        p.pure &= !made_up;
    }
    (s, me)
}

/// `…_finish` with `info` at `ip` (arena offset `io`, if in the arena).
fn phase_finish<V: PhaseApi>(cx: &mut Ctx, state: Option<usize>, me: Option<usize>, ip: *mut u8, io: Option<usize>) -> Option<usize> {
    let info_size = size_of::<sgs_svgd_info>();
    note_particles(cx, me);
    let parts = me.map(|i| {
        let (po, pe) = cx.live[i].particles.unwrap();
        cx.bytes()[po..pe].to_vec()
    });
    cx.snapshot();
    // SAFETY: as in `phase_begin`; `ip` NULL, a local info or in the arena.
    let s = unsafe { V::finish(cx.ptr::<u8>(state), ip) };
    check_status("finish", s);
    if trace() {
        eprintln!("finish kind {} live {me:?} info {io:?} -> {s}", V::KIND);
    }
    let mut allowed = vec![];
    if let Some(i) = me {
        match s {
            0 => {
                allowed = own_spans(cx, i);
                allowed.extend(io.map(|o| (o, o + info_size)));
            }
            // Nothing moved, but with the KSD on `finish` makes the moves itself and its
            // scratch (φ by particle, in the workspace) holds what it computed, as after a
            // failed step.
            22 => allowed.extend([cx.live[i].owned[0], cx.live[i].owned[1]]),
            _ => {}
        }
    }
    cx.check_only("finish", s, &allowed);
    let me = cx.forget_clobbered(me);
    let Some(i) = me else { return me };
    let spans = own_spans(cx, i);
    let pe = ptr_error(ip as usize, 8).filter(|&e| e != 1);
    let Some(p) = cx.live[i].phase.take() else {
        assert_eq!(s, pe.unwrap_or(28), "finish without an iteration begun");
        return me;
    };
    let clash = io.is_some_and(|o| spans.iter().any(|&r| overlaps(r, (o, o + info_size))));
    let all = slots(0, p.n);
    if let Some(w) = pe.or(clash.then_some(23)).or((p.done != all).then_some(34)) {
        assert_eq!(s, w, "finish: the model says {w} (done {:#x} of {all:#x})", p.done);
        cx.live[i].phase = Some(p);
        return me;
    }
    assert!(s == 0 || s == 22, "finish of a complete iteration returned {s}");
    let l = &cx.live[i];
    let (so, po) = (l.owned[0], l.particles.unwrap());
    let coords = l.n * l.d;
    if s == 22 {
        assert_state_restored(cx, so, &p.state_before, "a failed finish");
    } else {
        assert!(cx.all_finite::<V::T>(po.0, coords), "non-finite particle after finish");
    }
    // The differential oracle: the twin's step, when both sides computed the same thing.
    let same_input = parts.as_deref() == Some(&p.particles_before[..]);
    if let (Some((es, ep, ei)), true, true, true) = (&p.expected, p.pure, impure() == p.epoch, same_input) {
        assert_eq!(s, *es, "finish returned {s}, the twin's step {es}");
        if trace() {
            eprintln!("finish compared with the twin's step: {s}");
        }
        if s == 0 {
            let f = |v: &[u8]| v.chunks(<V::T as Flt>::SIZE).map(|c| if c.len() == 8 { f64::from_le_bytes(c.try_into().unwrap()) } else { f64::from(f32::from_le_bytes(c.try_into().unwrap())) }).collect::<Vec<_>>();
            assert!(
                cx.bytes()[po.0..po.1] == ep[..],
                "finish moved the particles to {:?}, the twin's step to {:?}",
                f(&cx.bytes()[po.0..po.1]),
                f(ep)
            );
            if !ip.is_null() {
                // SAFETY: a valid info written by the successful finish.
                let got = unsafe { core::slice::from_raw_parts(ip, info_size) };
                let words = |v: &[u8]| v.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
                // With forces put in there is no KSD here (NaN); the rest is the step's.
                let k = core::mem::offset_of!(sgs_svgd_info, ksd_squared);
                let ksd = f64::from_le_bytes(got[k..k + 8].try_into().unwrap());
                let same = if p.done & !p.grad != 0 {
                    got[..k] == ei[..k] && ksd.is_nan()
                } else {
                    got == &ei[..]
                };
                assert!(same, "finish's info {:x?} differs from the twin's step's {:x?}", words(got), words(ei));
            }
        }
    }
    me
}

/// The state at `so` is byte for byte `before` (what it was before `begin`).
fn assert_state_restored(cx: &Ctx, so: (usize, usize), before: &[u8], what: &str) {
    let now = &cx.bytes()[so.0..so.1];
    let diff: Vec<usize> = (0..now.len()).filter(|&k| now[k] != before[k]).collect();
    assert!(diff.is_empty(), "{what} left the state unlike before begin: bytes {diff:?} of {}: {:?} then {:?}", now.len(), &before[340..], &now[340..]);
}

fn phase_cancel<V: PhaseApi>(cx: &mut Ctx, state: Option<usize>, me: Option<usize>) {
    cx.snapshot();
    // SAFETY: as in `phase_begin`.
    let s = unsafe { V::cancel(cx.ptr::<u8>(state)) };
    check_status("cancel", s);
    if trace() {
        eprintln!("cancel kind {} live {me:?} -> {s}", V::KIND);
    }
    let allowed = match me {
        Some(i) if s == 0 => vec![cx.live[i].owned[0]],
        _ => vec![],
    };
    cx.check_only("cancel", s, &allowed);
    let me = cx.forget_clobbered(me);
    let Some(i) = me else { return };
    match cx.live[i].phase.take() {
        None => assert_eq!(s, 28, "cancel without an iteration begun"),
        Some(p) => {
            // No range call runs: nothing is busy.
            assert_eq!(s, 0, "cancel of an open iteration");
            let so = cx.live[i].owned[0];
            assert_state_restored(cx, so, &p.state_before, "cancel");
        }
    }
}

/// `…_move_width`, `…_num_batches`, `…_batch_rows` into fuzzed outputs.
fn phase_values<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    let k = b.u8() % 3;
    let batch = match b.u8() % 8 {
        0 => usize::MAX,
        _ => b.below(phase_of(cx, me).map_or(4, |p| p.rows.len() + 2)),
    };
    let o1 = cx.pick(b, 8, 8);
    let o2 = cx.pick(b, 8, 8);
    cx.snapshot();
    let (sp, p1, p2) = (cx.ptr::<u8>(state), cx.ptr::<usize>(o1), cx.ptr::<usize>(o2));
    // SAFETY: as in `phase_begin`; each output NULL or 8 bytes in the arena.
    let s = unsafe {
        match k {
            0 => V::value(false, sp, p1),
            1 => V::value(true, sp, p1),
            _ => V::batch_rows(sp, batch, p1, p2),
        }
    };
    check_status("phases value getter", s);
    if trace() {
        eprintln!("phases value {k} kind {} live {me:?} batch {batch} out {o1:?} {o2:?} -> {s}", V::KIND);
    }
    let mut allowed = vec![];
    if s == 0 {
        allowed.extend(o1.map(|o| (o, o + 8)));
        if k == 2 {
            allowed.extend(o2.map(|o| (o, o + 8)));
        }
    }
    cx.check_only("phases value getter", s, &allowed);
    let me = cx.forget_clobbered(me);
    if s != 0 {
        return;
    }
    let read = |cx: &Ctx, o: Option<usize>| usize::from_le_bytes(cx.bytes()[o.unwrap()..o.unwrap() + 8].try_into().unwrap());
    if let Some(p) = phase_of(cx, me) {
        match k {
            0 => assert_eq!(read(cx, o1), p.width, "move_width"),
            1 => assert_eq!(read(cx, o1), p.rows.len(), "num_batches"),
            _ => assert_eq!((read(cx, o1), read(cx, o2)), p.rows[batch], "batch_rows({batch})"),
        }
    }
}

/// A whole iteration through the phases on live system `me` (begun here unless open): whole
/// batches put from the twin's values (or made-up ones), the other slots' gradients in fuzzed
/// chunks (in order or reversed), their batches likewise, then `finish` with a local info.
fn phase_drive<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    let t = <V::T as Flt>::SIZE;
    let mut me = me;
    if me.is_some() && phase_of(cx, me).is_none() {
        me = phase_begin::<V>(cx, b, state, me);
    }
    let Some(p) = phase_of(cx, me) else { return };
    let (n, nb, moves_ok) = (p.n, p.rows.len(), p.moves);
    let reversed = b.u8() & 1 == 1;
    // Puts of whole batches.
    for k in 0..nb {
        let Some(p) = phase_of(cx, me) else { return };
        let (a, e) = p.rows[k];
        if b.u8() % 4 != 0 || (p.taken | p.claim) & slots(a, e) != 0 {
            continue;
        }
        let d = cx.live[me.unwrap()].d;
        let moves = moves_ok && b.u8() & 1 == 1;
        let honest = b.u8() % 4 != 0;
        let (vals, twin) = put_values::<V::T>(b, p, d, moves, a, e, honest);
        let mut buf = vec![V::T::from_f64(0.0); vals.len() / t];
        // SAFETY: `buf` holds exactly `vals.len()` bytes.
        unsafe { core::ptr::copy_nonoverlapping(vals.as_ptr(), buf.as_mut_ptr().cast::<u8>(), vals.len()) };
        me = phase_put_at::<V>(cx, state, me, moves, a, e, buf.as_ptr(), buf.len(), None, !twin).1;
    }
    // Gradients of the free slots, in chunks.
    let mut order: Vec<usize> = (0..n).collect();
    if reversed {
        order.reverse();
    }
    let mut chunks = vec![];
    let mut k = 0;
    while k < n {
        let len = 1 + b.below(n - k);
        chunks.push((k, k + len));
        k += len;
    }
    if reversed {
        chunks.reverse();
    }
    for &(a, e) in &chunks {
        let Some(p) = phase_of(cx, me) else { return };
        // The free slots of the chunk, as maximal runs.
        let free: Vec<usize> = (a..e).filter(|&s| p.taken >> s & 1 == 0).collect();
        for run in free.chunk_by(|x, y| y == &(x + 1)) {
            me = phase_range_at::<V>(cx, state, me, false, run[0], run[run.len() - 1] + 1).1;
        }
    }
    // Batches whose slots are unclaimed, in chunks of consecutive ones.
    let Some(p) = phase_of(cx, me) else { return };
    let free: Vec<usize> = (0..nb).filter(|&k| slots(p.rows[k].0, p.rows[k].1) & p.claim == 0).collect();
    let mut runs: Vec<(usize, usize)> = vec![];
    for run in free.chunk_by(|x, y| y == &(x + 1)) {
        let mut k = 0;
        while k < run.len() {
            let len = 1 + b.below(run.len() - k);
            runs.push((run[k], run[k + len - 1] + 1));
            k += len;
        }
    }
    if reversed {
        runs.reverse();
    }
    for (a, e) in runs {
        me = phase_range_at::<V>(cx, state, me, true, a, e).1;
    }
    let mut info = [0u64; 16];
    let ip = if b.u8() % 4 == 0 { core::ptr::null_mut() } else { info.as_mut_ptr().cast::<u8>() };
    phase_finish::<V>(cx, state, me, ip, None);
}

// ---------------------------------------------------------------------------------------------
// The growing batch size: `sgs_svgd_set_batch_size` and `sgs_svgd_run_scheduled` (f64, f32), on
// any state pointer, at any point of the sequence (an iteration in phases open included).
//
// `set_batch_size(p)` with p = 0, 1, 2, N, N + 1, one in 2..=N, random or near 2⁶⁴: on a live
// system of its kind the status is the header's ("nothing changes on error"): with an iteration
// in phases open exactly ITERATION_IN_PROGRESS (or, p being invalid too, INVALID_BATCH_SIZE /
// INVALID_OPTION: the header gives no order); with replacement INVALID_OPTION (or
// INVALID_BATCH_SIZE for an invalid p); else INVALID_BATCH_SIZE exactly when p < 2 or p > N,
// SGS_OK otherwise, which writes the state's bytes only. On anything else: an error, and nothing
// written.
//
// `run_scheduled(iterations, schedule, summary)`: a schedule with fuzzed start (as p above),
// every (0, 1 to 4, random, 2⁶⁴ − 1), min_decrease, kind (doubling, KSD, unknown) and reserved
// word, or NULL; 0 to 6 iterations, or 60 to 69 (start·2^k overflows); a summary anywhere. Every
// refusal the header lists "before anything runs" that applies (NULL schedule; a misaligned
// summary or one inside the system's state or buffers; the iteration in phases; unknown kind,
// reserved ≠ 0, with replacement, KSD kind with the KSD off; start outside 2..N; every 0,
// min_decrease outside [0, 1)) must be the status, and the system is then byte for byte
// unchanged (a doubling schedule ignores min_decrease: the header says so, and such a run is
// compared with its twin like any other). Otherwise the run is
// compared with a twin (an `sgs_svgd_copy` onto the target's own memory) driven by
// `set_batch_size(p_k)` + `step` for k = 0, 1, …, with p_k as the header documents it:
// doubling, p_k = min(N, start·2^⌊k/every⌋); KSD-driven, p_k = start when no window ends before
// the last iteration (iterations ≤ every) or start = N (p cannot grow); the callbacks answer both
// alike (the shared model's script rewound). Same status, same callback calls, the summary's
// count and last info and the particles bit for bit the twin's ("on an error the particles are
// those after the last completed iteration"), and then one more `step` of each must agree too
// ("p is the schedule's last choice afterwards"). Compared only when no callback left its
// output unwritten (the library then reads what its buffer held, which differs between the two).
// Otherwise (a KSD schedule whose windows may raise p) only the byte oracle of `run`: on an error
// before any iteration, the state and particles unchanged.

/// A batch size to ask for on a system of `n` particles.
fn fuzz_p(b: &mut Bytes, n: usize) -> u64 {
    let n = n as u64;
    match b.u8() % 10 {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => n,
        4 => n + 1,
        5..=7 => 2 + u64::from(b.u8()) % n.saturating_sub(1).max(1),
        8 => b.u64(),
        _ => u64::MAX - u64::from(b.u8() % 4),
    }
}

fn sched_call<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    if b.u8() & 1 == 0 {
        sched_set::<V>(cx, b, state, me)
    } else {
        sched_run::<V>(cx, b, state, me)
    }
}

fn sched_set<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    let n = me.map_or(4, |i| cx.live[i].n);
    let p = fuzz_p(b, n);
    cx.snapshot();
    // SAFETY: a live state, NULL, or memory without a valid tag (see `state_for_call`).
    let s = unsafe { V::set_batch_size(cx.ptr::<u8>(state), p) };
    check_status("set_batch_size", s);
    if trace() {
        eprintln!("set_batch_size kind {} live {me:?} p {p} -> {s}", V::KIND);
    }
    let Some(i) = me else {
        assert!(s != 0, "set_batch_size succeeded on no live system of its kind");
        return cx.check_only("failed set_batch_size", s, &[]);
    };
    let l = &cx.live[i];
    let bad_p = p < 2 || p > l.n as u64;
    let mut want = vec![];
    if l.phase.is_some() {
        want.push(29);
    }
    if l.opts.0 {
        want.push(19);
    }
    if bad_p {
        want.push(13);
    }
    if want.is_empty() {
        want.push(0);
    }
    // The first refusal that applies is the one the header makes certain; others are in no
    // documented order.
    let sure = if l.phase.is_some() && !l.opts.0 && !bad_p { Some(29) } else { None };
    assert!(
        want.contains(&s) && sure.is_none_or(|w| w == s),
        "set_batch_size({p}) on a system of {} (with replacement {}, phases open {}) returned {s}, the header says {want:?}",
        l.n,
        l.opts.0,
        l.phase.is_some()
    );
    let allowed = if s == 0 { vec![l.owned[0]] } else { vec![] };
    cx.check_only("set_batch_size", s, &allowed);
    cx.forget_clobbered(me);
}

/// The twin's run: `set_batch_size(p_k)` + `step` for each batch size of `ps`, up to the first
/// error. Returns the status, the iterations completed and the last completed info's bytes.
fn twin_sched<V: PhaseApi>(sp: *mut u8, ps: &[u64]) -> (i32, u64, Vec<u8>) {
    let mut last = vec![0u8; size_of::<sgs_svgd_info>()];
    for (k, &p) in ps.iter().enumerate() {
        // SAFETY: `sp` is the twin, a live system on the target's own memory.
        let s = unsafe { V::set_batch_size(sp, p) };
        assert_eq!(s, 0, "the twin's set_batch_size({p}) failed");
        let mut info = [0u64; 16];
        // SAFETY: as above; `info` a local.
        let s = unsafe { V::step(sp, info.as_mut_ptr().cast()) };
        if s != 0 {
            return (s, k as u64, last);
        }
        last = raw(&info)[..size_of::<sgs_svgd_info>()].to_vec();
    }
    (0, ps.len() as u64, last)
}

fn sched_run<V: PhaseApi>(cx: &mut Ctx, b: &mut Bytes, state: Option<usize>, me: Option<usize>) {
    let t = <V::T as Flt>::SIZE;
    let n = me.map_or(4, |i| cx.live[i].n);
    let every = match b.u8() % 8 {
        0 => 0,
        1..=5 => 1 + u64::from(b.u8() % 4),
        6 => b.u64(),
        _ => u64::MAX,
    };
    let mut sc = sgs_svgd_schedule_default(fuzz_p(b, n), every);
    let k = b.u8();
    if k & 1 == 1 {
        sc.kind = b.u32_small(1);
    }
    if k & 2 == 2 {
        sc.min_decrease = match b.u8() % 4 {
            0 => 1.0,
            1 => -0.0,
            _ => b.f64_in(&[0.1, 0.0, 0.5, 0.999]),
        };
    }
    if k & 4 == 4 {
        sc.reserved = b.u32_small(0);
    }
    let its = match b.u8() % 16 {
        0..=13 => u64::from(b.u8() % 7),
        _ => 60 + u64::from(b.u8() % 10),
    };
    let null_sched = b.u8() % 16 == 0;
    let again = b.u8() & 1 == 1;
    let sum_size = size_of::<sgs_svgd_run_summary>();
    let io = cx.pick(b, sum_size, 8);
    let spans = me.map_or(vec![], |i| own_spans(cx, i));
    let sum_bad = io.is_some_and(|o| o % 8 != 0 || spans.iter().any(|&r| overlaps(r, (o, o + sum_size))));
    // The refusals "before anything runs" that apply, from the header's list.
    let (repl, ksd_on, open) = me.map_or((false, false, false), |i| {
        let l = &cx.live[i];
        (l.opts.0, l.opts.1, l.phase.is_some())
    });
    let mut pre = vec![];
    if null_sched {
        pre.push(1);
    }
    if sum_bad {
        pre.push(23);
    }
    if open {
        pre.push(29);
    }
    let ksd_kind = sc.kind == SGS_SCHEDULE_KSD;
    if sc.kind > SGS_SCHEDULE_KSD || sc.reserved != 0 || repl || (ksd_kind && !ksd_on) {
        pre.push(19);
    }
    if sc.start < 2 || sc.start > n as u64 {
        pre.push(13);
    }
    let md_bad = !(0.0..1.0).contains(&sc.min_decrease);
    if every == 0 || (md_bad && sc.kind != SGS_SCHEDULE_DOUBLING) {
        pre.push(23);
    }
    // The batch sizes the header makes certain, iteration by iteration.
    let ps: Option<Vec<u64>> = (pre.is_empty() && sc.kind <= SGS_SCHEDULE_KSD).then_some(()).and_then(|()| {
        let n = n as u64;
        if !ksd_kind {
            Some((0..its).map(|k| {
                let j = k / every;
                if j >= 64 || sc.start > n >> j { n } else { (sc.start << j).min(n) }
            }).collect())
        } else if its <= every || sc.start == n {
            Some(vec![sc.start; its as usize])
        } else {
            None
        }
    });
    let mut sched_buf = [0u64; 5];
    // SAFETY: a local of 40 bytes, aligned, for a 32-byte schedule.
    unsafe { sched_buf.as_mut_ptr().cast::<sgs_svgd_schedule>().write(sc) };
    let schp: *const sgs_svgd_schedule = if null_sched { core::ptr::null() } else { sched_buf.as_ptr().cast() };
    // The twin, before the call.
    let model = me.map_or(core::ptr::null_mut(), |i| cx.live[i].ud as *mut Model);
    // SAFETY: NULL or a boxed model alive for the whole input.
    let calls = |m: *mut Model| unsafe { m.as_ref() }.map(|m| m.calls);
    let calls0 = calls(model);
    let s0 = stale();
    let mut twin = None;
    if let (Some(i), Some(ps)) = (me, &ps) {
        let l = cx.live[i].clone();
        let coords = l.n * l.d;
        let (wl, il) = ((l.owned[1].1 - l.owned[1].0) / t, (l.owned[2].1 - l.owned[2].0) / 4);
        let mut st = vec![0u64; V::STATE.div_ceil(8)];
        let mut p = vec![V::T::from_f64(0.0); coords];
        let mut w = vec![V::T::from_f64(0.0); wl];
        let mut x = vec![0u32; il];
        let sp: *mut u8 = st.as_mut_ptr().cast();
        cx.snapshot();
        let src = cx.ptr::<u8>(Some(l.state));
        // SAFETY: a live source without an iteration open; new buffers of the source's lengths.
        let s = unsafe { V::copy(sp, p.as_mut_ptr(), coords, w.as_mut_ptr(), wl, x.as_mut_ptr(), il, src) };
        assert_eq!(s, 0, "copy of a live system for the scheduled run's twin failed");
        cx.check_only("twin copy", s, &[]);
        let out = twin_sched::<V>(sp, ps);
        let after = calls(model);
        // SAFETY: as above.
        if let Some(m) = unsafe { model.as_mut() } {
            m.calls = calls0.unwrap();
        }
        twin = Some((out, after, st, p, w, x));
    }
    cx.snapshot();
    let ip = cx.ptr::<u8>(io);
    // SAFETY: a live state, NULL or memory without a valid tag; the schedule NULL or a local;
    // the summary NULL or in the arena.
    let s = unsafe { V::run_scheduled(cx.ptr::<u8>(state), its, schp, ip) };
    check_status("run_scheduled", s);
    if trace() {
        eprintln!("run_scheduled kind {} live {me:?} its {its} {sc:?} null {null_sched} sum {io:?} -> {s} (pre {pre:?}, ps {ps:?})", V::KIND);
    }
    let sum_ok = io.filter(|_| !sum_bad).map(|o| (o, o + sum_size));
    let Some(i) = me else {
        assert!(s != 0, "run_scheduled succeeded on no live system of its kind");
        cx.check_only("failed run_scheduled", s, &Vec::from_iter(sum_ok));
        cx.forget_clobbered(None);
        return;
    };
    if !pre.is_empty() {
        assert!(pre.contains(&s), "run_scheduled returned {s}, the header says one of {pre:?}");
        cx.check_only("refused run_scheduled", s, &Vec::from_iter(sum_ok));
        cx.forget_clobbered(me);
        return;
    }
    let done = io.map(|o| u64::from_le_bytes(cx.bytes()[o..o + 8].try_into().unwrap()));
    let mut allowed: Vec<_> = Vec::from_iter(sum_ok);
    if s == 0 || done != Some(0) {
        allowed.extend(spans.iter().copied());
    } else {
        // A failed first iteration: p was set before it ("p is the schedule's last choice
        // afterwards"), so the state; the workspace's scratch and the index as for `run`.
        allowed.push(cx.live[i].owned[0]);
        if matches!(s, 11 | 22 | 24) {
            allowed.extend([cx.live[i].owned[1], cx.live[i].owned[2]]);
        }
    }
    cx.check_only("run_scheduled", s, &allowed);
    let (po, pe) = cx.live[i].particles.unwrap();
    if s == 0 && its > 0 {
        assert!(cx.all_finite::<V::T>(po, (pe - po) / t), "non-finite particle after run_scheduled");
    }
    if let (0, Some(d)) = (s, done) {
        assert_eq!(d, its, "run_scheduled's summary counts {d} of {its} iterations");
    }
    let Some(((ts, tdone, tlast), after, mut st, p, _w, _x)) = twin else {
        cx.forget_clobbered(me);
        return;
    };
    let pure = stale() == s0;
    if pure {
        if trace() {
            eprintln!("run_scheduled compared with the twin's set_batch_size + step: {s} after {tdone} of {its}");
        }
        assert_eq!(calls(model), after, "run_scheduled called its callbacks unlike the twin's steps");
        assert_eq!(s, ts, "run_scheduled returned {s}, set_batch_size + step on the twin {ts} ({ps:?})");
        assert!(cx.bytes()[po..pe] == raw(&p)[..], "run_scheduled's particles differ from the twin's steps' ({ps:?})");
        if let Some(o) = io {
            let sum = &cx.bytes()[o..o + sum_size];
            let k = core::mem::offset_of!(sgs_svgd_run_summary, last);
            assert_eq!(u64::from_le_bytes(sum[..8].try_into().unwrap()), tdone, "run_scheduled's summary count");
            assert!(sum[k..] == tlast[..], "run_scheduled's last info differs from the twin's last step's ({ps:?})");
        }
    }
    let me = cx.forget_clobbered(me);
    // One more step of each: p is the schedule's last choice on both.
    let (Some(i), true, true) = (me, pure, again) else { return };
    let c1 = calls(model);
    let mut ti = [0u64; 16];
    // SAFETY: the twin, alive on the target's memory.
    let s1 = unsafe { V::step(st.as_mut_ptr().cast(), ti.as_mut_ptr().cast()) };
    let c2 = calls(model);
    // SAFETY: as above.
    if let Some(m) = unsafe { model.as_mut() } {
        m.calls = c1.unwrap();
    }
    let mut oi = [0u64; 16];
    cx.snapshot();
    // SAFETY: a live state of this kind; a local info.
    let s2 = unsafe { V::step(cx.ptr::<u8>(Some(cx.live[i].state)), oi.as_mut_ptr().cast()) };
    check_status("step after run_scheduled", s2);
    let allowed = match s2 {
        0 => own_spans(cx, i),
        11 | 22 | 24 => cx.live[i].owned[1..].to_vec(),
        _ => vec![],
    };
    cx.check_only("step after run_scheduled", s2, &allowed);
    // Forgetting clobbered systems renumbers the live ones: the kept index may move.
    let Some(i) = cx.forget_clobbered(Some(i)) else { return };
    if stale() == s0 {
        let (po, pe) = cx.live[i].particles.unwrap();
        assert_eq!(calls(model), c2, "the step after run_scheduled called its callbacks unlike the twin's");
        assert_eq!(s2, s1, "the step after run_scheduled returned {s2}, the twin's {s1}");
        assert!(cx.bytes()[po..pe] == raw(&p)[..], "the step after run_scheduled moved the particles unlike the twin's");
        assert!(oi == ti || s2 != 0, "the step after run_scheduled: info unlike the twin's");
    }
}

fuzz_target!(|data: &[u8]| {
    one_input(data);
});

// ---------------------------------------------------------------------------------------------
// K chains per call (`sgs_<chain>_run_batch`, f64 and f32, for AMAGOLD, SGHMC and SGLD): fuzzed
// configurations (every warm-up shape of `amagold_cfg`), k, d, n and cache sizes, callbacks whose
// rows REJECT, diverge or are huge by a hash of (point, seed), and a whole-batch ABORT at a fuzzed
// call; half the time through `…_run_batch_infos`. Oracle: the batch equals k separate `…_run`s
// bit for bit (rows, summaries, positions after), and its info records the records of the same
// chains stepped one iteration at a time; after an ABORT each chain's rows are the separate runs'
// prefix, the chains within one iteration of each other, the records of the rows written there
// and no other record written. Then, in a fuzzed fraction of inputs, one call with exactly one bad
// argument (NULL states, scratch, gradient, out or AMAGOLD's energy; k = 0; a misaligned states,
// scratch, out or samples_done; k·n·d overflowing or out one short; scratch one short; out over
// the scratch, summaries over samples_done, the scratch inside a chain's workspace, the info
// records over the scratch; a chain not initialised; half of them through `…_run_batch_infos`):
// exactly the header's status for it, no callback called, and not a byte of the
// states, workspaces, scratch, out, samples_done or summaries changed. Last, every chain continues
// as its separate twin. Own memory, outside the arena: the batch needs its states contiguous.

/// A row's hash: its point's bits (as f64, exact for f32) and its seed.
fn row_hash<T: Flt>(x: &[T], seed: u64) -> u64 {
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for v in x {
        h = (h ^ v.to_f64().to_bits()).wrapping_mul(0xbf58_476d_1ce4_e5b9).rotate_left(31);
    }
    h ^ (h >> 29)
}

fn batch_grad_row<T: Flt>(x: &[T], seed: u64, g: &mut [T]) -> i32 {
    let h = row_hash(x, seed);
    if h % 29 == 0 {
        return SGS_CB_REJECT;
    }
    for (gi, xi) in g.iter_mut().zip(x) {
        *gi = T::from_f64(xi.to_f64() + wobble(seed));
    }
    if h % 31 == 0 {
        g[0] = T::from_f64(f64::NAN);
    }
    SGS_CB_OK
}

fn batch_energy_row<T: Flt>(x: &[T]) -> (f64, i32) {
    let h = row_hash(x, 1);
    if h % 37 == 0 {
        return (0.0, SGS_CB_REJECT);
    }
    let e = 0.5 * x.iter().map(|v| v.to_f64() * v.to_f64()).sum::<f64>();
    (if h % 41 == 0 { f64::INFINITY } else { e }, SGS_CB_OK)
}

unsafe extern "C" fn b_energy1<T: Flt>(_: *mut c_void, x: *const T, d: usize, u: *mut f64) -> i32 {
    // SAFETY: callback contract.
    let (v, s) = batch_energy_row(unsafe { core::slice::from_raw_parts(x, d) });
    // SAFETY: as above.
    unsafe { u.write(v) };
    s
}

unsafe extern "C" fn b_grad1<T: Flt>(_: *mut c_void, x: *const T, d: usize, seed: u64, g: *mut T) -> i32 {
    // SAFETY: callback contract.
    unsafe { batch_grad_row(core::slice::from_raw_parts(x, d), seed, core::slice::from_raw_parts_mut(g, d)) }
}

/// Batched calls so far and the call that ABORTs (0: none).
struct BatchCalls(usize, usize);

unsafe extern "C" fn b_energy_k<T: Flt>(
    ud: *mut c_void,
    x: *const T,
    k: usize,
    d: usize,
    _c: *const usize,
    u: *mut f64,
    st: *mut i32,
) -> i32 {
    // SAFETY: `ud` is the op's counter; k rows (callback contract).
    let m = unsafe { &mut *ud.cast::<BatchCalls>() };
    m.0 += 1;
    if m.0 == m.1 {
        return SGS_CB_ABORT;
    }
    for r in 0..k {
        // SAFETY: as above.
        let (v, s) = batch_energy_row(unsafe { core::slice::from_raw_parts(x.add(r * d), d) });
        // SAFETY: as above.
        unsafe {
            u.add(r).write(v);
            st.add(r).write(s);
        }
    }
    SGS_CB_OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn b_grad_k<T: Flt>(
    ud: *mut c_void,
    x: *const T,
    k: usize,
    d: usize,
    seeds: *const u64,
    _c: *const usize,
    g: *mut T,
    st: *mut i32,
) -> i32 {
    // SAFETY: `ud` is the op's counter; k rows (callback contract).
    let m = unsafe { &mut *ud.cast::<BatchCalls>() };
    m.0 += 1;
    if m.0 == m.1 {
        return SGS_CB_ABORT;
    }
    for r in 0..k {
        // SAFETY: as above.
        let s = unsafe { b_grad1::<T>(ud, x.add(r * d), d, *seeds.add(r), g.add(r * d)) };
        // SAFETY: as above.
        unsafe { st.add(r).write(s) };
    }
    SGS_CB_OK
}

/// What `batch_op` needs of a chain kind beyond `ChainApi`: its `run_batch`, the size query, and
/// an init with this section's pure row callbacks.
trait BatchApi: ChainApi {
    type Sum: core::fmt::Debug;
    /// An iteration's info record (`…_run_batch_infos`).
    type Info: core::fmt::Debug + Copy;
    /// AMAGOLD: `energy` is required (the others ignore it).
    const ENERGY: bool;
    /// Configurations whose warm-up is too long to run here.
    fn too_long(c: &Self::Cfg) -> bool;
    /// Chain c's config: the fuzzed one on stream + c.
    fn stream(c: Self::Cfg, i: usize) -> Self::Cfg;
    fn scratch_len(k: usize, d: usize, max_calls: usize) -> usize;
    unsafe fn init_rows(s: *mut u8, c: *const Self::Cfg, th: *const Self::T, d: usize, ws: *mut Self::T, wl: usize) -> i32;
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_batch(
        states: *mut u8,
        k: usize,
        n: usize,
        energy: bool,
        gradient: bool,
        ud: *mut c_void,
        scratch: *mut f64,
        sl: usize,
        max_calls: usize,
        out: *mut Self::T,
        ol: usize,
        done: *mut usize,
        sums: *mut Self::Sum,
        infos: *mut Self::Info,
    ) -> i32;
}

macro_rules! batch_impl {
    ($K:ident, $T:ty, $Sum:ty, $Info:ty, energy = $e:tt, $init:ident $batch:ident $batch_infos:ident $sl:ident,
     too_long = $long:expr) => {
        impl BatchApi for $K {
            type Sum = $Sum;
            type Info = $Info;
            const ENERGY: bool = $e;
            fn too_long(c: &Self::Cfg) -> bool {
                let f: fn(&Self::Cfg) -> bool = $long;
                f(c)
            }
            fn stream(c: Self::Cfg, i: usize) -> Self::Cfg {
                let mut c = c;
                c.stream = c.stream.wrapping_add(i as u64);
                c
            }
            fn scratch_len(k: usize, d: usize, max_calls: usize) -> usize {
                $sl(k, d, max_calls)
            }
            unsafe fn init_rows(s: *mut u8, c: *const Self::Cfg, th: *const $T, d: usize, ws: *mut $T, wl: usize) -> i32 {
                let g = Some(b_grad1::<$T> as _);
                let ud = core::ptr::null_mut();
                batch_impl!(@init $e, $init, s, c, th, d, ws, wl, g, ud, $T)
            }
            unsafe fn run_batch(
                states: *mut u8,
                k: usize,
                n: usize,
                energy: bool,
                gradient: bool,
                ud: *mut c_void,
                scratch: *mut f64,
                sl: usize,
                max_calls: usize,
                out: *mut $T,
                ol: usize,
                done: *mut usize,
                sums: *mut $Sum,
                infos: *mut $Info,
            ) -> i32 {
                let e = if energy { Some(b_energy_k::<$T> as _) } else { None };
                let g = if gradient { Some(b_grad_k::<$T> as _) } else { None };
                // NULL infos: the function without them.
                if infos.is_null() {
                    // SAFETY: forwarded contract.
                    return unsafe { $batch(states.cast(), k, n, e, g, ud, scratch, sl, max_calls, out, ol, done, sums) as i32 };
                }
                // SAFETY: forwarded contract.
                unsafe {
                    $batch_infos(states.cast(), k, n, e, g, ud, scratch, sl, max_calls, out, ol, done, sums, infos) as i32
                }
            }
        }
    };
    (@init true, $init:ident, $s:ident, $c:ident, $th:ident, $d:ident, $ws:ident, $wl:ident, $g:ident, $ud:ident, $T:ty) => {{
        let e = Some(b_energy1::<$T> as _);
        // SAFETY: forwarded contract.
        unsafe { $init($s.cast(), $c, $th, $d, $ws, $wl, e, $g, $ud) as i32 }
    }};
    (@init false, $init:ident, $s:ident, $c:ident, $th:ident, $d:ident, $ws:ident, $wl:ident, $g:ident, $ud:ident, $T:ty) => {{
        // SAFETY: forwarded contract.
        unsafe { $init($s.cast(), $c, $th, $d, $ws, $wl, $g, $ud) as i32 }
    }};
}

batch_impl!(Amg64, f64, sgs_amagold_run_summary, sgs_amagold_info, energy = true,
    sgs_amagold_init sgs_amagold_run_batch sgs_amagold_run_batch_infos sgs_amagold_batch_scratch_len,
    too_long = |c| c.warmup > 100_000);
batch_impl!(Amg32, f32, sgs_amagold_run_summary, sgs_amagold_info, energy = true,
    sgs_amagold_init_f32 sgs_amagold_run_batch_f32 sgs_amagold_run_batch_infos_f32 sgs_amagold_batch_scratch_len,
    too_long = |c| c.warmup > 100_000);
batch_impl!(Sgh64, f64, sgs_sghmc_run_summary, sgs_sghmc_info, energy = false,
    sgs_sghmc_init sgs_sghmc_run_batch sgs_sghmc_run_batch_infos sgs_sghmc_batch_scratch_len, too_long = |_| false);
batch_impl!(Sgh32, f32, sgs_sghmc_run_summary, sgs_sghmc_info, energy = false,
    sgs_sghmc_init_f32 sgs_sghmc_run_batch_f32 sgs_sghmc_run_batch_infos_f32 sgs_sghmc_batch_scratch_len,
    too_long = |_| false);
batch_impl!(Sgl64, f64, sgs_sgld_run_summary, sgs_sgld_info, energy = false,
    sgs_sgld_init sgs_sgld_run_batch sgs_sgld_run_batch_infos sgs_sgld_batch_scratch_len, too_long = |_| false);
batch_impl!(Sgl32, f32, sgs_sgld_run_summary, sgs_sgld_info, energy = false,
    sgs_sgld_init_f32 sgs_sgld_run_batch_f32 sgs_sgld_run_batch_infos_f32 sgs_sgld_batch_scratch_len,
    too_long = |_| false);

/// k states side by side, at the kind's alignment.
struct Block {
    mem: Vec<u8>,
    off: usize,
    size: usize,
}

impl Block {
    fn new<C: ChainApi>(k: usize) -> Block {
        let (size, align) = (C::state_size(), C::state_align());
        let mem = vec![0u8; k * size + align];
        let off = mem.as_ptr().align_offset(align);
        Block { mem, off, size }
    }
    fn at(&mut self, c: usize) -> *mut u8 {
        self.mem.as_mut_ptr().wrapping_add(self.off + c * self.size)
    }
    fn bytes(&self) -> Vec<u8> {
        self.mem.clone()
    }
}

fn batch_op<C: BatchApi>(b: &mut Bytes) {
    let cfg = C::cfg(b);
    let k = 1 + b.below(4);
    let d = 1 + b.below(3);
    let n = 1 + b.below(8);
    let max_calls = b.below(24);
    let abort_at = if b.u8() % 4 == 0 { 1 + b.below(60) } else { 0 };
    let (wl, _) = C::ws_need(&cfg, d);
    if wl == 0 || C::too_long(&cfg) {
        return;
    }
    let start = |c: usize| -> Vec<C::T> { (0..d).map(|j| C::T::from_f64(0.3 * c as f64 - 0.2 * j as f64)).collect() };
    let init = |s: *mut u8, ws: &mut Vec<C::T>, c: usize| -> i32 {
        let th = start(c);
        // SAFETY: a zeroed state, a live workspace and start of the stated lengths.
        unsafe { C::init_rows(s, &C::stream(cfg, c), th.as_ptr(), d, ws.as_mut_ptr(), wl) }
    };
    // a: separate runs; b_: the batch; z: separate steps, for the info records.
    let (mut a, mut b_, mut z) = (Block::new::<C>(k), Block::new::<C>(k), Block::new::<C>(k));
    let zero = C::T::from_f64(0.0);
    let (mut wa, mut wb, mut wz) = (vec![vec![zero; wl]; k], vec![vec![zero; wl]; k], vec![vec![zero; wl]; k]);
    for c in 0..k {
        let (sa, sb, sz) = (init(a.at(c), &mut wa[c], c), init(b_.at(c), &mut wb[c], c), init(z.at(c), &mut wz[c], c));
        assert!(sa == sb && sa == sz, "batch: init of three identical chains");
        if sa != 0 {
            return;
        }
    }
    // Separate runs, one iteration at a time (so that a callback-free stop is exact per row).
    let mut rows = vec![vec![zero; n * d]; k];
    let mut sums: Vec<C::Sum> = Vec::new();
    for c in 0..k {
        let mut done = 0usize;
        // SAFETY: a plain-data summary; a live state and output.
        let mut sum: C::Sum = unsafe { core::mem::zeroed() };
        // SAFETY: as above.
        let s = unsafe { C::run(a.at(c), n, rows[c].as_mut_ptr(), n * d, &mut done, (&mut sum as *mut C::Sum).cast()) };
        assert_eq!((s, done), (0, n), "batch: separate run");
        sums.push(sum);
    }
    // The same chains one step at a time: each iteration's info record, and the same position.
    let mut steps: Vec<Vec<C::Info>> = Vec::new();
    for c in 0..k {
        let mut recs = Vec::new();
        for _ in 0..n {
            // SAFETY: a plain-data record; a live state.
            let mut info: C::Info = unsafe { core::mem::zeroed() };
            // SAFETY: as above.
            let s = unsafe { C::step(z.at(c), (&mut info as *mut C::Info).cast()) };
            assert_eq!(s, 0, "batch: separate step");
            recs.push(info);
        }
        steps.push(recs);
        let (mut p, mut q) = ([zero; 3], [zero; 3]);
        // SAFETY: live states, outputs of d ≤ 3.
        unsafe {
            let _ = C::position(a.at(c), p.as_mut_ptr(), d);
            let _ = C::position(z.at(c), q.as_mut_ptr(), d);
        }
        assert_eq!(raw(&p[..d]), raw(&q[..d]), "batch: chain {c} run and stepped");
    }
    let mut calls = BatchCalls(0, abort_at);
    let sl = C::scratch_len(k, d, max_calls);
    let mut scratch = vec![0.0f64; sl];
    let mut out = vec![C::T::from_f64(f64::from_bits(0x7ff8_dead_beef_0001)); k * n * d];
    let mut done = vec![usize::MAX; k];
    // SAFETY: plain-data summaries.
    let mut bs: Vec<C::Sum> = (0..k).map(|_| unsafe { core::mem::zeroed() }).collect();
    // Half the time `…_run_batch_infos`, its records over a fill that shows which were written.
    let with_infos = b.u8() % 2 == 0;
    let unwritten = || {
        // SAFETY: plain data; any bytes are a value of the record (floats and integers).
        let mut r: C::Info = unsafe { core::mem::zeroed() };
        // SAFETY: the record's own bytes.
        unsafe { core::ptr::write_bytes((&mut r as *mut C::Info).cast::<u8>(), 0xa5, size_of::<C::Info>()) };
        r
    };
    let mut infos: Vec<C::Info> = vec![unwritten(); k * n];
    let ip = if with_infos { infos.as_mut_ptr() } else { core::ptr::null_mut() };
    // SAFETY: every buffer of the documented size, disjoint; `calls` outlives the call.
    let s = unsafe {
        C::run_batch(b_.at(0), k, n, true, true, (&mut calls as *mut BatchCalls).cast(), scratch.as_mut_ptr(), sl,
            max_calls, out.as_mut_ptr(), out.len(), done.as_mut_ptr(), bs.as_mut_ptr(), ip)
    };
    check_status("run_batch", s);
    if trace() {
        eprintln!("run_batch kind {} k {k} d {d} n {n} max_calls {max_calls} abort_at {abort_at} infos {with_infos} -> {s} done {done:?}",
            C::KIND);
    }
    let sum_bits = |x: &C::Sum| format!("{x:?}");
    if s == 0 {
        for c in 0..k {
            assert_eq!(done[c], n, "batch: rows of chain {c}");
            assert_eq!(raw(&out[c * n * d..(c + 1) * n * d]), raw(&rows[c]), "batch: chain {c} differs (k {k}, max_calls {max_calls})");
            assert_eq!(sum_bits(&bs[c]), sum_bits(&sums[c]), "batch: summary of chain {c}");
        }
    } else {
        assert_eq!(s, sgs_status::SGS_ERR_CALLBACK_ABORTED as i32, "batch: status");
        let lo = *done.iter().min().unwrap_or(&0);
        let hi = *done.iter().max().unwrap_or(&0);
        assert!(hi - lo <= 1 && lo < n, "batch: done {done:?}");
        for c in 0..k {
            let m = done[c] * d;
            assert_eq!(raw(&out[c * n * d..c * n * d + m]), raw(&rows[c][..m]), "batch: chain {c}'s kept rows");
        }
    }
    if with_infos {
        // The records of the rows written are the separate steps'; the others untouched.
        let bytes = |r: &C::Info| -> Vec<u8> {
            // SAFETY: the record's own bytes, read as bytes.
            unsafe { core::slice::from_raw_parts((r as *const C::Info).cast::<u8>(), size_of::<C::Info>()) }.to_vec()
        };
        for c in 0..k {
            for i in 0..n {
                let got = &infos[c * n + i];
                if i < done[c].min(n) {
                    assert_eq!(format!("{got:?}"), format!("{:?}", steps[c][i]), "batch: chain {c}'s record {i}");
                } else {
                    assert!(bytes(got) == bytes(&unwritten()), "batch: chain {c}'s record {i} written past its rows");
                }
            }
        }
    }
    if b.u8() % 2 == 0 {
        batch_refused::<C>(b, &mut b_, &mut wb, k, n, d, max_calls);
    }
    // Either way the chains continue as the separate ones (one more iteration each, separately).
    for c in 0..k {
        let (mut p, mut q) = ([zero; 3], [zero; 3]);
        let m = n - done[c].min(n);
        let mut extra = vec![zero; (m + 1) * d];
        let null = core::ptr::null_mut();
        // SAFETY: live states and outputs.
        unsafe {
            assert_eq!(C::run(b_.at(c), m + 1, extra.as_mut_ptr(), extra.len(), null, null.cast()), 0);
            assert_eq!(C::run(a.at(c), 1, p.as_mut_ptr(), d, null, null.cast()), 0);
            let _ = C::position(b_.at(c), q.as_mut_ptr(), d);
        }
        assert_eq!(raw(&p[..d]), raw(&q[..d]), "batch: chain {c} after the batch");
    }
}

/// One `run_batch` with exactly one bad argument (chosen by the input) on the live block `st`:
/// the header's status for it, no callback called, nothing written anywhere.
fn batch_refused<C: BatchApi>(b: &mut Bytes, st: &mut Block, ws: &mut [Vec<C::T>], k0: usize, n0: usize, d: usize, mc: usize) {
    use sgs_status::*;
    let sl0 = C::scratch_len(k0, d, mc);
    // Room for the misaligned and overlapping variants: the scratch also holds `out`, and one
    // buffer holds samples_done and the summaries.
    let need_out = k0 * n0 * d;
    let mut scratch = vec![0.25f64; sl0.max(need_out) + 2];
    let mut out = vec![C::T::from_f64(0.5); need_out + 2];
    let sum_words = (k0 * size_of::<C::Sum>()).div_ceil(8) + k0 + 1;
    let mut dsum = vec![0x5555_5555_5555_5555u64; sum_words];
    let (mut k, mut n, mut sl, mut ol) = (k0, n0, sl0, need_out);
    let (mut energy, mut gradient) = (true, true);
    let mut states = st.at(0);
    let mut sp = scratch.as_mut_ptr();
    let mut op = out.as_mut_ptr();
    let mut dp = dsum.as_mut_ptr().cast::<usize>();
    // Summaries after samples_done in the same buffer.
    let mut sp_sum = dsum.as_mut_ptr().wrapping_add(k0 + 1).cast::<C::Sum>();
    let mut uninit = None;
    // Half the calls through `…_run_batch_infos` (records room for k0·n0, checked unchanged).
    // SAFETY: plain-data records.
    let mut infos: Vec<C::Info> = (0..k0 * n0).map(|_| unsafe { core::mem::zeroed() }).collect();
    let mut ip = if b.u8() & 1 == 0 { infos.as_mut_ptr() } else { core::ptr::null_mut() };
    let want = match b.u8() % 16 {
        0 => {
            states = core::ptr::null_mut();
            SGS_ERR_NULL_POINTER
        }
        1 => {
            sp = core::ptr::null_mut();
            SGS_ERR_NULL_POINTER
        }
        2 => {
            gradient = false;
            SGS_ERR_NULL_POINTER
        }
        3 if C::ENERGY => {
            energy = false;
            SGS_ERR_NULL_POINTER
        }
        3 | 4 => {
            op = core::ptr::null_mut();
            SGS_ERR_NULL_POINTER
        }
        5 => {
            k = 0;
            SGS_ERR_INVALID_ARGUMENT
        }
        6 => {
            states = states.wrapping_add(1 + b.below(7));
            SGS_ERR_INVALID_ARGUMENT
        }
        7 => {
            sp = sp.cast::<u8>().wrapping_add(1 + b.below(7)).cast();
            SGS_ERR_INVALID_ARGUMENT
        }
        8 => {
            op = op.cast::<u8>().wrapping_add(1 + b.below(C::T::SIZE - 1)).cast();
            SGS_ERR_INVALID_ARGUMENT
        }
        9 => {
            dp = dp.cast::<u8>().wrapping_add(1 + b.below(7)).cast();
            SGS_ERR_INVALID_ARGUMENT
        }
        10 => {
            // k·n·d overflows (INVALID_ARGUMENT), or k·n records do not fit the address space
            // (INVALID_ARGUMENT, with `infos`), or neither and `out` is too small.
            n = HUGE + (b.u64() as usize % HUGE);
            let records_fit = k
                .checked_mul(n)
                .and_then(|x| x.checked_mul(size_of::<C::Info>()))
                .is_some_and(|bytes| bytes <= isize::MAX as usize && (ip as usize).checked_add(bytes).is_some());
            if k.checked_mul(n).and_then(|x| x.checked_mul(d)).is_none() || (!ip.is_null() && !records_fit) {
                SGS_ERR_INVALID_ARGUMENT
            } else {
                SGS_ERR_OUTPUT_TOO_SMALL
            }
        }
        11 => {
            ol = need_out - 1;
            SGS_ERR_OUTPUT_TOO_SMALL
        }
        12 if sl0 > 0 => {
            sl = sl0 - 1;
            SGS_ERR_WORKSPACE_TOO_SMALL
        }
        13 if sl0 > 0 => {
            // The output over the scratch's first rows (the scratch buffer is long enough for
            // both).
            op = scratch.as_mut_ptr().cast();
            SGS_ERR_INVALID_ARGUMENT
        }
        14 => {
            // The summaries over samples_done.
            sp_sum = dsum.as_mut_ptr().wrapping_add(b.below(k0)).cast();
            SGS_ERR_INVALID_ARGUMENT
        }
        _ => {
            let pick = b.u8() % 3;
            if pick == 0 {
                // A one-element scratch inside a chain's workspace: the overlap refuses it.
                let c = b.below(k0);
                sp = ws[c].as_mut_ptr().cast();
                sl = 1;
                SGS_ERR_INVALID_ARGUMENT
            } else if pick == 1 {
                // The records over the scratch.
                ip = scratch.as_mut_ptr().cast();
                SGS_ERR_INVALID_ARGUMENT
            } else {
                // One chain's state zeroed (restored below): not initialised.
                uninit = Some(b.below(k0));
                SGS_ERR_NOT_INITIALISED
            }
        }
    };
    let saved_state = uninit.map(|c| {
        // SAFETY: the block holds k0 states.
        let s = unsafe { core::slice::from_raw_parts_mut(st.at(c), st.size) };
        let v = s.to_vec();
        s.fill(0);
        (c, v)
    });
    let (before_block, before_ws) = (st.bytes(), ws.iter().map(|w| raw(w)).collect::<Vec<_>>());
    let (before_scratch, before_out, before_dsum) = (raw(&scratch), raw(&out), raw(&dsum));
    let before_infos = format!("{infos:?}");
    let mut calls = BatchCalls(0, 0);
    // SAFETY: every pointer is NULL, misaligned, or valid for its length (the overlapping ones
    // inside a buffer large enough); a huge n is refused before anything is written.
    let s = unsafe {
        C::run_batch(states, k, n, energy, gradient, (&mut calls as *mut BatchCalls).cast(), sp, sl, mc, op, ol, dp, sp_sum,
            ip)
    };
    if trace() {
        eprintln!("run_batch refused kind {} k {k} n {n} sl {sl} of {sl0} ol {ol} uninit {uninit:?} infos {} -> {s} (want {})",
            C::KIND, !ip.is_null(), want as i32);
    }
    assert_eq!(s, want as i32, "batch refused: status (k {k}, n {n}, sl {sl} of {sl0}, ol {ol}, uninit {uninit:?})");
    assert_eq!(calls.0, 0, "batch refused: a callback was called");
    assert!(st.bytes() == before_block, "batch refused: the states changed");
    for (c, w) in ws.iter().enumerate() {
        assert!(raw(w) == before_ws[c], "batch refused: workspace {c} changed");
    }
    assert!(raw(&scratch) == before_scratch && raw(&out) == before_out && raw(&dsum) == before_dsum,
        "batch refused: an output changed");
    assert!(format!("{infos:?}") == before_infos, "batch refused: a record changed");
    if let Some((c, v)) = saved_state {
        // SAFETY: the state's own bytes, back at the address they were made for.
        unsafe { core::slice::from_raw_parts_mut(st.at(c), st.size) }.copy_from_slice(&v);
    }
}

// ---------------------------------------------------------------------------------------------
// Seed-derived noise (`sgs_normal`, `sgs_uniform`, f64 and f32) into the arena, the pointer and
// length picked as for `sgs_minibatch` (NULL, misaligned, over a live state, zero, one short,
// huge). Oracle: `SGS_OK` exactly for a non-NULL aligned `out` and a length below 2⁶¹; then the
// n values are the Rust `sgsample::noise` function's bit for bit and the first n of a longer fill
// (a prefix of a longer fill is the shorter fill); nothing else in the arena changes (nothing at
// all on a refusal).

fn noise(cx: &mut Ctx, b: &mut Bytes) {
    match b.u8() % 4 {
        0 => noise_fill::<f64>(cx, b, "normal", sgs_normal, sgsample::noise::normal_from_seed::<f64>),
        1 => noise_fill::<f32>(cx, b, "normal_f32", sgs_normal_f32, sgsample::noise::normal_from_seed::<f32>),
        2 => noise_fill::<f64>(cx, b, "uniform", sgs_uniform, sgsample::noise::uniform_from_seed::<f64>),
        _ => noise_fill::<f32>(cx, b, "uniform_f32", sgs_uniform_f32, sgsample::noise::uniform_from_seed::<f32>),
    }
}

fn noise_fill<T: Flt + PartialEq + core::fmt::Debug>(
    cx: &mut Ctx,
    b: &mut Bytes,
    what: &str,
    c_fill: unsafe extern "C" fn(u64, *mut T, usize) -> sgs_status,
    rust_fill: fn(u64, &mut [T]),
) {
    let seed = b.u64();
    let want = b.u8() as usize % 64;
    let oo = cx.pick(b, T::SIZE * want, T::SIZE);
    let len = cx.len(b, oo, T::SIZE, want);
    let len = if len < HUGE { len.min(256) } else { len };
    cx.snapshot();
    let op = cx.ptr::<T>(oo);
    // SAFETY: NULL or inside the arena for len elements (or a huge length).
    let s = unsafe { c_fill(seed, op, len) as i32 };
    check_status(what, s);
    if trace() {
        eprintln!("{what} seed {seed} at {oo:?} n {len} -> {s}");
    }
    let expect = match oo {
        None => sgs_status::SGS_ERR_NULL_POINTER,
        Some(o) if o % T::SIZE != 0 || len >= HUGE => sgs_status::SGS_ERR_INVALID_ARGUMENT,
        Some(_) => sgs_status::SGS_OK,
    };
    assert_eq!(s, expect as i32, "{what}: status for offset {oo:?}, n {len}");
    let allowed: Vec<_> = if s == 0 { oo.map(|o| (o, o + len * T::SIZE)).into_iter().collect() } else { vec![] };
    cx.check_only(what, s, &allowed);
    cx.forget_clobbered(None);
    if s == 0 {
        let o = oo.unwrap();
        let got = cx.bytes()[o..o + len * T::SIZE].to_vec();
        let mut v = vec![T::from_f64(0.0); len];
        rust_fill(seed, &mut v);
        assert!(got == raw(&v), "{what}: differs from sgsample::noise for seed {seed}, n {len}");
        let mut longer = vec![T::from_f64(0.0); len + 1 + (seed as usize % 7)];
        // SAFETY: a local buffer of that length.
        assert_eq!(unsafe { c_fill(seed, longer.as_mut_ptr(), longer.len()) } as i32, 0);
        assert!(raw(&longer[..len]) == got, "{what}: not a prefix of a longer fill");
    }
}

// ---------------------------------------------------------------------------------------------
// The sharded RBM-SVGD (`sgs_svgd_shard_…`, f64 and f32): op 12 of kind 4 (`shard_op`).
//
// `shard_queries`: `sgs_svgd_shard_ranges` with n, p, ranks and rank small, at the edges (0, 1,
// p = n, p = n + 1, rank = ranks) or huge (2³², SIZE_MAX, random words), its four outputs
// anywhere (NULL, misaligned, one on another, in a live sampler). The status is the first of:
// NULL_POINTER / INVALID_ARGUMENT for the pointers in order, INVALID_ARGUMENT for overlapping
// outputs or rank ≥ ranks, ZERO_PARTICLES, INVALID_BATCH_SIZE, else SGS_OK with the header's
// values (computed exactly, in 128 bits: particles ⌊r·n/R⌋..⌊(r+1)·n/R⌋, the slots of batches
// ⌊r·B/R⌋..⌊(r+1)·B/R⌋, B = ⌊n/p⌋, the last batch to n); nothing written on an error, exactly the
// four words on SGS_OK. `…_workspace_len` and `…_index_len`: 0 for a NULL, misaligned or unknown
// config, else (2c + 3m)·d with AdaGrad, (c + 3m)·d otherwise and c + m (SIZE_MAX on overflow).
//
// `shard_init_any`: init with n, d, ranks, rank, the config (valid, one bad word, NULL,
// misaligned), the buffers (picked as for the other samplers; lengths right, one short, zero,
// random or ≥ 2⁶¹) and the callbacks fuzzed: a status init documents, SGS_OK exactly when every
// argument is valid, nothing written on an error; an initialised state reads 0 iterations and is
// cleared again.
//
// `shard_system`: 2 or 3 shards of a system of 8 to 40 particles in d = 1 or 2, p = 2 to 8,
// SGS_PERMUTATION_FEISTEL, a fuzzed step rule (the step size huge at times, so that the moves
// overflow), kernel and annealing, laid out in the arena with every exchange buffer (the other
// samplers there are forgotten), through up to four iterations whose records the target
// exchanges between the ranks' buffers as MPI_Alltoallv would. Before each rank's init, in half
// the inputs, an init with exactly one fault (a NULL, misaligned, huge, overlapping or short
// argument, no callback, rank ≥ ranks, ranks = 0 or > 2³², n = 0, d = 0, a config word that the
// shard or SVGD refuses, a NaN particle). Before each honest call, fuzzed ones: any of the four
// steps in any stage with at most one fault (an array NULL, misaligned, of a huge, short, long
// or zero length, over the rank's state or a buffer, over another array of the call; the state
// NULL, misaligned, of the other float type, or a byte-wise copy of it; records with a slot out
// of the rank's range or twice, a particle ≥ N or not the rank's or twice; a NaN particle at
// begin; partials with `finite` 2 or SIZE_MAX, or 0, which cancels the iteration everywhere),
// `iterations` with its output anywhere, `clear` on NULL, misaligned and the moved bytes; forces
// or finish through `…_parts` with one bad piece (`shard_parts_probe`: the descriptors NULL, a
// piece's indices NULL, its rows misaligned or over the workspace, a record missing or split
// between two pieces). The honest forces and finish go through `…_parts` half the time (the
// records in three pieces, one empty), under the same oracle as the one-buffer calls. Also an
// iteration abandoned (cancel on every rank) after any step, and callbacks that abort, reject,
// answer an unknown status or NaN or ±∞ at a fuzzed call of one rank (then every rank cancels),
// or call into their own shard (iterations, begin, commit, cancel, clear, init).
//
// Oracle: every status exactly the one the fault (or the stage: ITERATION_IN_PROGRESS for begin,
// ITERATION_NOT_BEGUN for the others) calls for, in the code's order of checks (pointers, state,
// overlaps, stage, lengths, contents), each listed in the header; a refused call calls no
// callback and writes nothing but the scratch its failure may leave (a begin whose gradients
// failed: the φ block of the workspace; forces or finish refusing a record: the index and the
// workspace's slot rows or φ block; commit's NON_FINITE: the state); a callback's call into its
// own shard gets SGS_ERR_BUSY; a successful call writes only the state, workspace, index and its
// outputs (commit: the particles and info, not the index); the records are well formed (counts
// that add up, every slot and every particle exactly once, to its owner, begin's rows starting
// with the particle's position); each partial counts the rank's particles, `finite` 0 or 1;
// after each commit every rank's particles are bit for bit those of `sgs_svgd_step` on a
// whole-system twin (`sgs_svgd`/`_f32`, the same config and pure gradient), the status the same
// (NON_FINITE on both alike, nothing moved), the info equal but for `mean_force` (equal to
// rounding); after an iteration cancelled everywhere nothing moved and the twin is not stepped,
// and the next iteration still equals the twin's next step; `iterations` counts the commits;
// `clear` zeroes the state, after which calls get NOT_INITIALISED.

const PART: usize = size_of::<sgs_svgd_shard_partial>();
const INFO: usize = size_of::<sgs_svgd_info>();
/// The statuses `sgs_svgd_shard_init` documents.
const SHARD_INIT_STATUSES: [i32; 15] = [0, 1, 2, 3, 4, 5, 9, 13, 14, 15, 16, 18, 19, 23, 27];

/// One of an iteration's four steps (the stage a rank must be in for it, as a number).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Call {
    Begin = 0,
    Forces = 1,
    Finish = 2,
    Commit = 3,
}

const CALLS: [Call; 4] = [Call::Begin, Call::Forces, Call::Finish, Call::Commit];

trait ShardApi {
    type T: Flt;
    /// The whole-system sampler of the same float type (the twin).
    type Whole: SvgdApi<T = Self::T>;
    const STATE: usize;
    const TAG: &'static [u8; 8];
    unsafe fn ws_len(n: usize, d: usize, ranks: usize, rank: usize, c: *const sgs_svgd_config) -> usize;
    unsafe fn index_len(n: usize, ranks: usize, rank: usize, c: *const sgs_svgd_config) -> usize;
    fn state_size() -> usize;
    fn state_align() -> usize;
    /// `cb`: bit 0 the per-particle callback, bit 1 the batched one.
    #[allow(clippy::too_many_arguments)]
    unsafe fn init(
        s: *mut u8,
        c: *const sgs_svgd_config,
        n: usize,
        d: usize,
        ranks: usize,
        rank: usize,
        p: *mut Self::T,
        pl: usize,
        ws: *mut Self::T,
        wl: usize,
        idx: *mut u32,
        il: usize,
        cb: u8,
        ud: *mut c_void,
    ) -> i32;
    /// One of the four steps: its arrays in the order of its C parameters (finish's partial and
    /// commit's info included) and their lengths (those two unused).
    unsafe fn call(k: Call, s: *mut u8, p: &[*mut u8], l: &[usize]) -> i32;
    /// Forces or finish through `…_forces_parts` / `…_finish_parts`: the records as `pieces`
    /// (indices, their number, rows, their number of values), then the outputs as for `call`.
    unsafe fn call_parts(k: Call, s: *mut u8, pieces: &[(*const u32, usize, *const u8, usize)], p: &[*mut u8], l: &[usize]) -> i32;
    /// The same with the descriptors given as a pointer and a count (NULL for the probe).
    unsafe fn call_parts_raw(k: Call, s: *mut u8, descs: *const u8, n: usize, p: &[*mut u8], l: &[usize]) -> i32;
    unsafe fn cancel(s: *mut u8) -> i32;
    unsafe fn iterations(s: *const u8, out: *mut u64) -> i32;
    unsafe fn clear(s: *mut u8) -> i32;
    /// The other float type's `iterations` (k even) or `cancel` on `s`.
    unsafe fn other(k: u8, s: *mut u8, out: *mut u64) -> i32;
}

macro_rules! shard_impl {
    ($K:ident, $T:ty, $S:ty, $W:ident, $tag:expr, $wsl:ident $il:ident $size:ident $align:ident
     $init:ident $begin:ident $forces:ident $finish:ident $commit:ident $cancel:ident $iters:ident
     $clear:ident, other = $oiters:ident $ocancel:ident, parts = $R:ident $fp:ident $hp:ident) => {
        struct $K;
        impl ShardApi for $K {
            type T = $T;
            type Whole = $W;
            const STATE: usize = size_of::<$S>();
            const TAG: &'static [u8; 8] = $tag;
            unsafe fn ws_len(n: usize, d: usize, ranks: usize, rank: usize, c: *const sgs_svgd_config) -> usize {
                unsafe { $wsl(n, d, ranks, rank, c) }
            }
            unsafe fn index_len(n: usize, ranks: usize, rank: usize, c: *const sgs_svgd_config) -> usize {
                unsafe { $il(n, ranks, rank, c) }
            }
            fn state_size() -> usize {
                $size()
            }
            fn state_align() -> usize {
                $align()
            }
            unsafe fn init(
                s: *mut u8,
                c: *const sgs_svgd_config,
                n: usize,
                d: usize,
                ranks: usize,
                rank: usize,
                p: *mut $T,
                pl: usize,
                ws: *mut $T,
                wl: usize,
                idx: *mut u32,
                il: usize,
                cb: u8,
                ud: *mut c_void,
            ) -> i32 {
                let g = if cb & 1 != 0 { Some(shard_grad_cb::<$K> as _) } else { None };
                let gs = if cb & 2 != 0 { Some(shard_grads_cb::<$K> as _) } else { None };
                unsafe { $init(s.cast(), c, n, d, ranks, rank, p, pl, ws, wl, idx, il, g, gs, ud) as i32 }
            }
            unsafe fn call(k: Call, s: *mut u8, p: &[*mut u8], l: &[usize]) -> i32 {
                let s = s.cast::<$S>();
                // SAFETY: forwarded (each array NULL, misaligned, huge, or in the arena for its
                // length).
                (unsafe {
                    match k {
                        Call::Begin => $begin(s, p[0].cast::<u32>(), l[0], p[1].cast::<$T>(), l[1],
                            p[2].cast::<usize>(), l[2]),
                        Call::Forces => $forces(s, p[0].cast::<u32>(), l[0], p[1].cast::<$T>(), l[1],
                            p[2].cast::<u32>(), l[2], p[3].cast::<$T>(), l[3], p[4].cast::<usize>(), l[4]),
                        Call::Finish => $finish(s, p[0].cast::<u32>(), l[0], p[1].cast::<$T>(), l[1],
                            p[2].cast::<sgs_svgd_shard_partial>()),
                        Call::Commit => $commit(s, p[0].cast::<sgs_svgd_shard_partial>(), l[0],
                            p[1].cast::<sgs_svgd_info>()),
                    }
                }) as i32
            }
            unsafe fn call_parts(k: Call, s: *mut u8, pieces: &[(*const u32, usize, *const u8, usize)], p: &[*mut u8], l: &[usize]) -> i32 {
                let s = s.cast::<$S>();
                let rs: Vec<$R> = pieces.iter()
                    .map(|&(i, il, r, rl)| $R { idx: i, idx_len: il, rows: r.cast::<$T>(), rows_len: rl })
                    .collect();
                // SAFETY: forwarded (the pieces inside the rank's delivered records, the outputs as
                // for `call`).
                unsafe { Self::call_parts_raw(k, s.cast(), rs.as_ptr().cast(), rs.len(), p, l) }
            }
            unsafe fn call_parts_raw(k: Call, s: *mut u8, descs: *const u8, n: usize, p: &[*mut u8], l: &[usize]) -> i32 {
                let (s, rs) = (s.cast::<$S>(), descs.cast::<$R>());
                // SAFETY: forwarded.
                (unsafe {
                    match k {
                        Call::Forces => $fp(s, rs, n, p[0].cast::<u32>(), l[0], p[1].cast::<$T>(), l[1],
                            p[2].cast::<usize>(), l[2]),
                        _ => $hp(s, rs, n, p[0].cast::<sgs_svgd_shard_partial>()),
                    }
                }) as i32
            }
            unsafe fn cancel(s: *mut u8) -> i32 {
                unsafe { $cancel(s.cast()) as i32 }
            }
            unsafe fn iterations(s: *const u8, out: *mut u64) -> i32 {
                unsafe { $iters(s.cast(), out) as i32 }
            }
            unsafe fn clear(s: *mut u8) -> i32 {
                unsafe { $clear(s.cast()) as i32 }
            }
            unsafe fn other(k: u8, s: *mut u8, out: *mut u64) -> i32 {
                (unsafe { if k & 1 == 0 { $oiters(s.cast_const().cast(), out) } else { $ocancel(s.cast()) } }) as i32
            }
        }
    };
}

shard_impl!(Shard64, f64, sgs_svgd_shard, Svgd64, b"sgsSHD64", sgs_svgd_shard_workspace_len
    sgs_svgd_shard_index_len sgs_svgd_shard_state_size sgs_svgd_shard_state_align
    sgs_svgd_shard_init sgs_svgd_shard_begin sgs_svgd_shard_forces sgs_svgd_shard_finish
    sgs_svgd_shard_commit sgs_svgd_shard_cancel sgs_svgd_shard_iterations sgs_svgd_shard_clear,
    other = sgs_svgd_shard_iterations_f32 sgs_svgd_shard_cancel_f32,
    parts = sgs_svgd_shard_records sgs_svgd_shard_forces_parts sgs_svgd_shard_finish_parts);
shard_impl!(Shard32, f32, sgs_svgd_shard_f32, Svgd32, b"sgsSHD32", sgs_svgd_shard_workspace_len_f32
    sgs_svgd_shard_index_len_f32 sgs_svgd_shard_state_size_f32 sgs_svgd_shard_state_align_f32
    sgs_svgd_shard_init_f32 sgs_svgd_shard_begin_f32 sgs_svgd_shard_forces_f32
    sgs_svgd_shard_finish_f32 sgs_svgd_shard_commit_f32 sgs_svgd_shard_cancel_f32
    sgs_svgd_shard_iterations_f32 sgs_svgd_shard_clear_f32,
    other = sgs_svgd_shard_iterations sgs_svgd_shard_cancel,
    parts = sgs_svgd_shard_records_f32 sgs_svgd_shard_forces_parts_f32 sgs_svgd_shard_finish_parts_f32);

/// What one rank's callbacks do (`user_data`): the pure gradient `a·x + wobble(seed)` (that of
/// `gradients_cb` with an empty script, which the twin uses), but at call `fuse.0` (counting every
/// call of the rank's callbacks) the failure `fuse.1` (`fuse_of`), and at call `reenter.0` the call
/// `reenter.1` on the rank's own state from inside the callback (`shard_reenter`; statuses kept
/// in `busy`).
struct ShardModel {
    a: f64,
    calls: usize,
    fuse: Option<(usize, u8)>,
    fired: bool,
    reenter: Option<(usize, u8)>,
    state: *mut u8,
    busy: Vec<i32>,
}

/// A failure: the callback's return value, what it writes into the first value, and the status
/// begin must then return.
fn fuse_of(mode: u8) -> (i32, Option<f64>, i32) {
    match mode % 6 {
        0 => (SGS_CB_ABORT, None, 11),
        1 => (SGS_CB_REJECT, None, 24),
        2 => (7, None, 11),
        3 => (SGS_CB_OK, Some(f64::NAN), 22),
        4 => (SGS_CB_OK, Some(f64::INFINITY), 22),
        _ => (SGS_CB_OK, Some(f64::NEG_INFINITY), 22),
    }
}

unsafe fn shard_cb<V: ShardApi>(ud: *mut c_void, xs: *const V::T, len: usize, seed: u64, gs: *mut V::T) -> i32 {
    // SAFETY: the library passes `len` readable values at xs and writable ones at gs; user_data
    // is the rank's model, alive for the whole op.
    let (xs, gs, m) = unsafe {
        (
            core::slice::from_raw_parts(xs, len).to_vec(),
            core::slice::from_raw_parts_mut(gs, len),
            &mut *ud.cast::<ShardModel>(),
        )
    };
    let k = m.calls;
    m.calls += 1;
    for (g, x) in gs.iter_mut().zip(&xs) {
        *g = V::T::from_f64(m.a * x.to_f64() + wobble(seed));
    }
    if let Some((_, what)) = m.reenter.filter(|r| r.0 == k) {
        // SAFETY: the rank's own state, in the call that runs this callback.
        let s = unsafe { shard_reenter::<V>(m.state, what) };
        m.busy.push(s);
    }
    match m.fuse {
        Some((at, mode)) if at == k => {
            m.fired = true;
            let (ret, val, _) = fuse_of(mode);
            if let (Some(v), Some(g)) = (val, gs.first_mut()) {
                *g = V::T::from_f64(v);
            }
            ret
        }
        _ => SGS_CB_OK,
    }
}

unsafe extern "C" fn shard_grad_cb<V: ShardApi>(ud: *mut c_void, x: *const V::T, d: usize, seed: u64, g: *mut V::T) -> i32 {
    // SAFETY: forwarded.
    unsafe { shard_cb::<V>(ud, x, d, seed, g) }
}

unsafe extern "C" fn shard_grads_cb<V: ShardApi>(
    ud: *mut c_void,
    xs: *const V::T,
    n: usize,
    d: usize,
    seed: u64,
    gs: *mut V::T,
) -> i32 {
    // SAFETY: forwarded.
    unsafe { shard_cb::<V>(ud, xs, n * d, seed, gs) }
}

/// A call on a shard from inside its own gradient callback, with arguments that pass every check
/// before the state's: it must get SGS_ERR_BUSY.
unsafe fn shard_reenter<V: ShardApi>(s: *mut u8, what: u8) -> i32 {
    let empty = core::ptr::NonNull::<u64>::dangling().as_ptr().cast::<u8>();
    let null = core::ptr::null_mut();
    let mut v = 0u64;
    // SAFETY: `s` is the rank's state; empty arrays at an aligned address; locals.
    unsafe {
        match what % 6 {
            0 => V::iterations(s, &mut v),
            1 => V::call(Call::Begin, s, &[empty; 3], &[0; 3]),
            2 => V::call(Call::Commit, s, &[empty, null], &[0, 0]),
            3 => V::cancel(s),
            4 => V::clear(s),
            _ => {
                let mut c = sgs_svgd_config_default(2, 0.1);
                c.permutation = SGS_PERMUTATION_FEISTEL;
                let mut p = [V::T::from_f64(0.0); 2];
                let mut w = [V::T::from_f64(0.0); 64];
                let mut x = [0u32; 8];
                V::init(s, &c, 4, 1, 2, 0, p.as_mut_ptr(), 2, w.as_mut_ptr(), 64, x.as_mut_ptr(), 8, 2, null.cast())
            }
        }
    }
}

fn rd<V: Copy>(cx: &Ctx, o: usize) -> V {
    assert!(o + size_of::<V>() <= ARENA);
    // SAFETY: inside the arena (checked); plain data, unaligned read.
    unsafe { cx.bytes().as_ptr().add(o).cast::<V>().read_unaligned() }
}

fn wr<V>(cx: &mut Ctx, o: usize, v: V) {
    assert!(o + size_of::<V>() <= ARENA);
    // SAFETY: inside the arena (checked); unaligned write.
    unsafe { cx.base().add(o).cast::<V>().write_unaligned(v) }
}

fn arena_mut(cx: &mut Ctx) -> &mut [u8] {
    // SAFETY: u64 → u8 view of the arena, borrowed from `cx`.
    unsafe { core::slice::from_raw_parts_mut(cx.base(), ARENA) }
}

/// The caller's memmove inside the arena.
fn arena_copy(cx: &mut Ctx, src: usize, dst: usize, len: usize) {
    arena_mut(cx).copy_within(src..src + len, dst);
}

/// ⌊k·n/parts⌋, exactly (parts > 0).
fn block_at(n: usize, parts: usize, k: u128) -> u128 {
    n as u128 * k / parts as u128
}

/// The header's ranges of rank `rank` < `ranks` for n ≥ 1 particles in batches of p (2 ≤ p ≤ n):
/// first particle, particles, first slot, slots.
fn ranges_of(n: usize, p: usize, ranks: usize, rank: usize) -> [usize; 4] {
    let nb = n / p;
    let at = |b: u128| if b >= nb as u128 { n as u128 } else { b * p as u128 };
    let (r0, r1) = (rank as u128, rank as u128 + 1);
    let (a, e) = (block_at(n, ranks, r0), block_at(n, ranks, r1));
    let (s, f) = (at(block_at(nb, ranks, r0)), at(block_at(nb, ranks, r1)));
    [a as usize, (e - a) as usize, s as usize, (f - s) as usize]
}

/// The header's workspace length, (2c + 3m)·d with AdaGrad, (c + 3m)·d otherwise, SIZE_MAX when
/// it overflows.
fn shard_ws_need(c: usize, m: usize, d: usize, hist: bool) -> usize {
    let per = if hist { 2 * c as u128 } else { c as u128 };
    (per + 3 * m as u128).checked_mul(d as u128).map_or(usize::MAX, |v| v.min(usize::MAX as u128) as usize)
}

fn shard_op(cx: &mut Ctx, b: &mut Bytes) {
    match b.u8() % 8 {
        0 => shard_queries::<Shard64>(cx, b),
        1 => shard_queries::<Shard32>(cx, b),
        2 => shard_init_any::<Shard64>(cx, b),
        3 => shard_init_any::<Shard32>(cx, b),
        4 | 5 => shard_system::<Shard64>(cx, b),
        _ => shard_system::<Shard32>(cx, b),
    }
}

fn shard_size(b: &mut Bytes) -> usize {
    match b.u8() % 8 {
        0 => 0,
        1 => 1,
        2 | 3 => b.below(64),
        4 => (1 << 32) + b.below(3) - 1,
        5 => usize::MAX - b.below(3),
        6 => b.u64() as usize,
        _ => 2 + b.below(8),
    }
}

fn shard_queries<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes) {
    let n = shard_size(b);
    let p = match b.u8() % 4 {
        0 => n,
        1 => n.wrapping_add(1),
        _ => shard_size(b),
    };
    let ranks = shard_size(b);
    let rank = match b.u8() % 4 {
        0 => ranks,
        1 => ranks.wrapping_sub(1),
        2 => b.below(ranks.clamp(1, 1 << 16)),
        _ => shard_size(b),
    };
    let mut outs = [None; 4];
    for k in 0..4 {
        outs[k] = if k > 0 && b.u8() % 8 == 0 { outs[b.below(k)] } else { cx.pick(b, 8, 8) };
    }
    let mut want = 0;
    for o in outs {
        match o {
            None => want = 1,
            Some(o) if o % 8 != 0 => want = 23,
            _ => continue,
        }
        break;
    }
    let spans = outs.map(|o| o.map_or((0, 0), |o| (o, o + 8)));
    if want == 0 {
        let twice = (0..4).any(|i| (i + 1..4).any(|j| overlaps(spans[i], spans[j])));
        want = if twice || rank >= ranks {
            23
        } else if n == 0 {
            15
        } else if p < 2 || p > n {
            13
        } else {
            0
        };
    }
    let ps = outs.map(|o| cx.ptr::<usize>(o));
    cx.snapshot();
    // SAFETY: NULL or 8 writable bytes in the arena each.
    let s = unsafe { sgs_svgd_shard_ranges(n, p, ranks, rank, ps[0], ps[1], ps[2], ps[3]) } as i32;
    check_status("shard_ranges", s);
    if trace() {
        eprintln!("shard_ranges n {n} p {p} ranks {ranks} rank {rank} at {outs:?} -> {s}");
    }
    assert_eq!(s, want, "shard_ranges(n {n}, p {p}, ranks {ranks}, rank {rank}, outputs {outs:?})");
    if s == 0 {
        cx.check_only("shard_ranges", s, &spans);
        let got = spans.map(|r| rd::<usize>(cx, r.0));
        let exp = ranges_of(n, p, ranks, rank);
        assert_eq!(got, exp, "shard_ranges(n {n}, p {p}, ranks {ranks}, rank {rank}) wrote other values than the header's");
    } else {
        cx.check_only("refused shard_ranges", s, &[]);
    }
    cx.forget_clobbered(None);
    // The size queries, on a config that is valid, NULL, misaligned or has an unknown word.
    let d = shard_size(b);
    let mut c = sgs_svgd_config_default(p as u64, 0.1);
    c.permutation = SGS_PERMUTATION_FEISTEL;
    c.step_rule = b.u32_small(3);
    if b.u8() % 8 == 0 {
        c.reserved = 1;
    }
    let known = c.step_rule <= SGS_STEP_RULE_ADAGRAD && c.reserved == 0;
    let mut buf = [0u64; size_of::<sgs_svgd_config>() / 8 + 1];
    let k = b.u8();
    let cp = buf.as_mut_ptr().cast::<u8>().wrapping_add(if k & 1 == 0 { 0 } else { 4 });
    // SAFETY: inside buf.
    unsafe { cp.cast::<sgs_svgd_config>().write_unaligned(c) };
    let cp: *const sgs_svgd_config = if k % 8 == 2 { core::ptr::null() } else { cp.cast() };
    // SAFETY: NULL, misaligned or a readable config.
    let (w, i) = unsafe { (V::ws_len(n, d, ranks, rank, cp), V::index_len(n, ranks, rank, cp)) };
    if trace() {
        eprintln!("shard sizes n {n} d {d} ranks {ranks} rank {rank} config {k} -> {w} {i}");
    }
    if cp.is_null() || k & 1 != 0 || !known {
        assert_eq!((w, i), (0, 0), "shard size queries on a NULL, misaligned or unknown config");
    } else if n >= 1 && (2..=n).contains(&p) && rank < ranks {
        let [_, cn, _, m] = ranges_of(n, p, ranks, rank);
        let hist = c.step_rule == SGS_STEP_RULE_ADAGRAD;
        assert_eq!(w, shard_ws_need(cn, m, d, hist), "shard_workspace_len(n {n}, d {d}, ranks {ranks}, rank {rank}, p {p})");
        let want = (cn as u128 + m as u128).min(usize::MAX as u128);
        assert_eq!(i as u128, want, "shard_index_len(n {n}, ranks {ranks}, rank {rank}, p {p}): c + m, saturating");
    }
    assert!(V::state_size() == V::STATE && V::state_align() >= 8);
}

/// A valid shard config for batch size `p` (a float type of `t` bytes): Feistel, without
/// replacement, no KSD or scale; the step rule, kernel, annealing, step size and seed fuzzed.
fn shard_cfg(b: &mut Bytes, p: usize, t: usize) -> sgs_svgd_config {
    let eta = match b.u8() % 8 {
        0 => 0.5,
        1 if t == 4 => 1e30,
        1 => 1e300,
        2 => 0.01,
        _ => 0.1,
    };
    let mut c = sgs_svgd_config_default(p as u64, eta);
    c.permutation = SGS_PERMUTATION_FEISTEL;
    let k = b.u8();
    c.step_rule = u32::from(k % 3);
    if k & 4 != 0 {
        c.kernel = SGS_KERNEL_IMQ;
    }
    c.bandwidth = [1.0, 0.5, 2.0, 0.1][(k >> 3) as usize % 4];
    match (k >> 5) % 4 {
        1 => {
            c.anneal = SGS_ANNEAL_CYCLICAL;
            c.anneal_iterations = 6;
            c.anneal_cycles = 2;
        }
        2 => {
            c.anneal = SGS_ANNEAL_HYPERBOLIC;
            c.anneal_iterations = 4;
            c.anneal_power = 0.5;
        }
        _ => {}
    }
    if k & 0x80 != 0 {
        c.adagrad_alpha = 0.5;
    }
    c.seed = u64::from(b.u8());
    c.stream = u64::from(b.u8() % 4);
    c
}

/// Spoils one word of a valid shard config for `n` particles; returns the status init must give.
fn spoil_cfg(b: &mut Bytes, c: &mut sgs_svgd_config, n: usize) -> i32 {
    match b.u8() % 11 {
        0 => c.permutation = SGS_PERMUTATION_SHUFFLE,
        1 => c.batching = SGS_BATCHING_WITH_REPLACEMENT,
        2 => c.ksd = SGS_KSD_BATCH + u32::from(b.u8() & 1),
        3 => c.scale = SGS_SCALE_PARTICLES + u32::from(b.u8() & 1),
        4 => c.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN,
        5 => c.kernel = 3 + u32::from(b.u8()),
        6 => c.reserved = 1,
        7 => {
            c.batch_size = if b.u8() & 1 == 0 { 1 } else { n as u64 + 1 };
            return 13;
        }
        8 => {
            c.step_size = [0.0, -0.1, f64::NAN, f64::INFINITY][b.u8() as usize % 4];
            return 5;
        }
        9 => {
            c.kernel = SGS_KERNEL_GAUSSIAN;
            c.bandwidth = [0.0, -1.0, f64::NAN][b.u8() as usize % 3];
            return 14;
        }
        _ => {
            c.step_rule = SGS_STEP_RULE_ADAGRAD;
            c.adagrad_alpha = 1.0;
            return 16;
        }
    }
    19
}

fn shard_init_any<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <V::T as Flt>::SIZE;
    let n = match b.u8() % 8 {
        0 => 0,
        1 => (1 << 32) + b.below(4),
        2 => HUGE + b.below(9),
        _ => 1 + b.below(40),
    };
    let d = match b.u8() % 8 {
        0 => 0,
        1 => HUGE + b.below(9),
        k => 1 + k as usize % 3,
    };
    let ranks = match b.u8() % 8 {
        0 => 0,
        1 => (1 << 32) + 1,
        2 => HUGE,
        k => k as usize % 4 + 1,
    };
    let rank = match b.u8() % 4 {
        0 => ranks,
        1 => b.u64() as usize,
        _ => b.below(ranks.clamp(1, 4)),
    };
    let p = 2 + b.below(n.clamp(2, 9) - 1);
    let mut cfg = shard_cfg(b, p, t);
    let spoilt = b.u8() % 4 == 0;
    if spoilt {
        spoil_cfg(b, &mut cfg, n);
    }
    let mut buf = [0u64; size_of::<sgs_svgd_config>() / 8 + 1];
    let k = b.u8() % 8;
    let cp = buf.as_mut_ptr().cast::<u8>().wrapping_add(if k == 1 { 4 } else { 0 });
    // SAFETY: inside buf.
    unsafe { cp.cast::<sgs_svgd_config>().write_unaligned(cfg) };
    let cp: *const sgs_svgd_config = if k == 0 { core::ptr::null() } else { cp.cast() };
    // What the buffers need, by the header's formulas (nothing for a shape init refuses).
    let (c, m) = if n >= 1 && p <= n && rank < ranks {
        let r = ranges_of(n, p, ranks, rank);
        (r[1], r[3])
    } else {
        (0, 0)
    };
    let hist = cfg.step_rule == SGS_STEP_RULE_ADAGRAD;
    let (coords, ws_need, idx_need) = (c.saturating_mul(d), shard_ws_need(c, m, d, hist), c.saturating_add(m));
    let st = cx.pick(b, V::STATE, 8);
    let po = cx.pick(b, t * coords.min(4096), t);
    let pl = cx.len(b, po, t, coords);
    cx.snapshot();
    if b.u8() % 4 != 0 {
        cx.fill_finite::<V::T>(b, po, pl.min(4096));
    }
    cx.forget_clobbered(None);
    let wo = cx.pick(b, t * ws_need.min(4096), t);
    let wl = cx.len(b, wo, t, ws_need);
    let io = cx.pick(b, 4 * idx_need.min(4096), 4);
    let il = cx.len(b, io, 4, idx_need);
    let cb = b.u8() % 4;
    // Whether every argument is valid (then init must succeed, and only then).
    let bufs = [(st, V::STATE, 1, 8), (po, pl, t, t), (wo, wl, t, t), (io, il, 4, 4)];
    let ptrs_ok = bufs.iter().all(|&(o, l, _, al)| o.is_some_and(|o| o % al == 0) && l < HUGE);
    let spans: Vec<_> = bufs.iter().map(|&(o, l, e, _)| o.map_or((0, 0), |o| (o, o.saturating_add(l.saturating_mul(e))))).collect();
    let apart = (0..4).all(|i| (i + 1..4).all(|j| !overlaps(spans[i], spans[j])));
    let busy = st.is_some_and(|o| o % 8 == 0 && cx.bytes()[o..o + 8] == V::TAG[..] && rd::<u32>(cx, o + 8) != 0);
    let valid = ptrs_ok
        && apart
        && k > 1
        && cb != 0
        && !busy
        && !spoilt
        && (p..=u32::MAX as usize).contains(&n)
        && (1..=3).contains(&d)
        && rank < ranks
        && ranks <= u32::MAX as usize
        && pl == coords
        && wl >= ws_need
        && il >= idx_need
        && cx.all_finite::<V::T>(po.unwrap_or(0), if ptrs_ok { pl } else { 0 });
    cx.snapshot();
    let (sp, pp, wp, ip) = (cx.ptr::<u8>(st), cx.ptr::<V::T>(po), cx.ptr::<V::T>(wo), cx.ptr::<u32>(io));
    // SAFETY: every pointer NULL, misaligned, or in the arena for its length (or a huge one); the
    // callbacks are not called by init.
    let s = unsafe { V::init(sp, cp, n, d, ranks, rank, pp, pl, wp, wl, ip, il, cb, core::ptr::null_mut()) };
    check_status("shard init", s);
    if trace() {
        eprintln!("shard init n {n} d {d} ranks {ranks} rank {rank} p {p} cfg {k} spoilt {spoilt} at {st:?} {po:?}/{pl} {wo:?}/{wl} {io:?}/{il} cb {cb} -> {s}");
    }
    assert!(SHARD_INIT_STATUSES.contains(&s), "shard init returned {s}, which it does not document");
    assert_eq!(s == 0, valid, "shard init returned {s} (valid arguments: {valid})");
    if s != 0 {
        return cx.check_only("refused shard init", s, &[]);
    }
    let so = st.unwrap();
    cx.check_only("shard init", s, &[spans[0], spans[2], spans[3]]);
    cx.forget_clobbered(None);
    let mut it = u64::MAX;
    cx.snapshot();
    // SAFETY: an initialised state; a local output.
    let s = unsafe { V::iterations(cx.base().add(so), &mut it) };
    assert_eq!((s, it), (0, 0), "a new shard's iterations");
    cx.check_only("shard iterations", s, &[]);
    shard_clear_at::<V>(cx, so);
}

/// `clear` of a state at `at`: SGS_OK, exactly its bytes zeroed; then calls on it get
/// NOT_INITIALISED.
fn shard_clear_at<V: ShardApi>(cx: &mut Ctx, at: usize) {
    let r = (at, at + V::STATE);
    cx.snapshot();
    // SAFETY: a whole state's size at an aligned offset in the arena.
    let s = unsafe { V::clear(cx.base().add(at)) };
    assert_eq!(s, 0, "shard clear of an aligned state");
    cx.check_only("shard clear", s, &[r]);
    assert!(cx.bytes()[r.0..r.1].iter().all(|&x| x == 0), "shard clear left non-zero bytes");
    let mut it = 0u64;
    // SAFETY: as above; a local output.
    let s = unsafe { V::iterations(cx.base().add(at), &mut it) };
    assert_eq!(s, 21, "iterations of a cleared shard");
    cx.forget_clobbered(None);
}

/// One rank's memory in the arena (byte offsets) and share of the system.
#[derive(Clone, Copy, Debug)]
struct Rank {
    st: usize,
    po: usize,
    ws: usize,
    wl: usize,
    ix: usize,
    il: usize,
    c: usize,
    m: usize,
    first: usize,
    slot0: usize,
    /// The exchange buffers (one element longer than the records need): begin's records out
    /// (index, rows, counts), forces' records in and out, finish's records in, the partial.
    bi: usize,
    br: usize,
    bc: usize,
    fi: usize,
    fr: usize,
    gi: usize,
    gr: usize,
    gc: usize,
    hi: usize,
    hr: usize,
    part: usize,
}

struct Sys {
    n: usize,
    d: usize,
    ranks: usize,
    t: usize,
    state: usize,
    hist: bool,
    r: Vec<Rank>,
    /// Every rank's partial (commit's input), the info, room for a moved copy of a state, and a
    /// word for `iterations`.
    parts: usize,
    info: usize,
    moved: usize,
    out: usize,
    /// Each rank's stage as the target models it (the `Call` it may make next).
    stage: Vec<u8>,
    models: Vec<Box<ShardModel>>,
    /// Whether a rank committed the iteration under way.
    committed: bool,
}

impl Sys {
    /// What the library refuses an array to overlap: the rank's state, particles, workspace and
    /// index.
    fn spans(&self, q: usize) -> [(usize, usize); 4] {
        let r = &self.r[q];
        [
            (r.st, r.st + self.state),
            (r.po, r.po + r.c * self.d * self.t),
            (r.ws, r.ws + r.wl * self.t),
            (r.ix, r.ix + r.il * 4),
        ]
    }
    /// The workspace's φ-by-particle block (the gradients during begin).
    fn phi(&self, q: usize) -> (usize, usize) {
        let (r, cd) = (&self.r[q], self.r[q].c * self.d);
        let o = r.ws + self.t * if self.hist { cd } else { 0 };
        (o, o + self.t * cd)
    }
    /// The workspace's positions and gradients by slot.
    fn slot_rows(&self, q: usize) -> (usize, usize) {
        let e = self.phi(q).1;
        (e, e + 2 * self.t * self.r[q].m * self.d)
    }
    fn particles(&self, cx: &Ctx) -> Vec<u8> {
        self.r.iter().flat_map(|r| cx.bytes()[r.po..r.po + r.c * self.d * self.t].to_vec()).collect()
    }
}

#[derive(Clone, Copy, Debug)]
struct Arr {
    off: Option<usize>,
    len: usize,
    elem: usize,
    /// Whether the C call takes the length (not for the partial and the info).
    has_len: bool,
    /// Commit's info, which may be NULL.
    optional: bool,
}

/// The arrays of rank `q`'s honest call `k`, in the order of the C parameters.
fn honest_arrs(sys: &Sys, q: usize, k: Call, info: bool) -> Vec<Arr> {
    let (r, t, d, rk) = (&sys.r[q], sys.t, sys.d, sys.ranks);
    let a = |off, len, elem| Arr { off: Some(off), len, elem, has_len: true, optional: false };
    let one = |off, elem, optional| Arr { off, len: 1, elem, has_len: false, optional };
    match k {
        Call::Begin => vec![a(r.bi, 2 * r.c, 4), a(r.br, 2 * r.c * d, t), a(r.bc, rk, 8)],
        Call::Forces => vec![
            a(r.fi, 2 * r.m, 4),
            a(r.fr, 2 * r.m * d, t),
            a(r.gi, r.m, 4),
            a(r.gr, r.m * d, t),
            a(r.gc, rk, 8),
        ],
        Call::Finish => vec![a(r.hi, r.c, 4), a(r.hr, r.c * d, t), one(Some(r.part), PART, false)],
        Call::Commit => vec![a(sys.parts, rk, PART), one(info.then_some(sys.info), INFO, true)],
    }
}

fn arr_span(a: &Arr) -> (usize, usize) {
    a.off.map_or((0, 0), |o| (o, o.saturating_add(a.len.saturating_mul(a.elem))))
}

fn shard_call<V: ShardApi>(cx: &mut Ctx, st: Option<usize>, k: Call, a: &[Arr]) -> i32 {
    let p: Vec<*mut u8> = a.iter().map(|x| cx.ptr::<u8>(x.off)).collect();
    let l: Vec<usize> = a.iter().map(|x| x.len).collect();
    let s = cx.ptr::<u8>(st);
    // SAFETY: every array NULL, misaligned, huge, or in the arena for its length; the state NULL,
    // misaligned or a state's size in the arena.
    unsafe { V::call(k, s, &p, &l) }
}

/// Rank `q`'s honest call `k`: its buffers, exact lengths (commit's info or NULL). Begin returns
/// SGS_OK unless the rank's fuse fired in it (then the fuse's status, and only the φ block
/// written); commit SGS_OK or NON_FINITE (the twin's); the others SGS_OK.
fn shard_step<V: ShardApi>(cx: &mut Ctx, sys: &mut Sys, q: usize, k: Call, info: bool, split: Option<usize>) -> i32 {
    let r = sys.r[q];
    let a = honest_arrs(sys, q, k, info);
    let (fired, calls) = (sys.models[q].fired, sys.models[q].calls);
    cx.snapshot();
    let s = match (k, split) {
        (Call::Forces | Call::Finish, Some(cut)) => {
            // The same records in three pieces: the first `cut` (modulo their number), none, the
            // rest; the result must be the one-buffer call's.
            let (iw, recs) = if k == Call::Forces { (2, r.m) } else { (1, r.c) };
            let (rw, cut) = (a[1].len / recs.max(1), cut % (recs + 1));
            let (i0, r0) = (cx.ptr::<u32>(a[0].off).cast_const(), cx.ptr::<u8>(a[1].off).cast_const());
            let piece = |from: usize, to: usize| {
                (i0.wrapping_add(from * iw), (to - from) * iw, r0.wrapping_add(from * rw * sys.t), (to - from) * rw)
            };
            let pieces = [piece(0, cut), piece(cut, cut), piece(cut, recs)];
            let outs: Vec<*mut u8> = a[2..].iter().map(|x| cx.ptr::<u8>(x.off)).collect();
            let l: Vec<usize> = a[2..].iter().map(|x| x.len).collect();
            // SAFETY: the pieces inside the rank's delivered records; the outputs as for `call`.
            unsafe { V::call_parts(k, cx.ptr::<u8>(Some(r.st)), &pieces, &outs, &l) }
        }
        _ => shard_call::<V>(cx, Some(r.st), k, &a),
    };
    check_status("shard step", s);
    if trace() {
        eprintln!("shard{} {k:?}{} rank {q} -> {s}", sys.t * 8, if split.is_some() { " in pieces" } else { "" });
    }
    let m = &mut sys.models[q];
    assert!(m.busy.iter().all(|&s| s == 27), "calls from a callback into its own shard returned {:?}, not BUSY", m.busy);
    m.busy.clear();
    if k != Call::Begin {
        assert_eq!(m.calls, calls, "shard {k:?} called the gradient callbacks");
    }
    let want = match (m.fired && !fired, m.fuse) {
        (true, Some((_, mode))) => fuse_of(mode).2,
        _ => 0,
    };
    let spans = sys.spans(q);
    let allowed: Vec<(usize, usize)> = match (k, s) {
        // Begin's three arrays and forces' last three are outputs.
        (Call::Begin, 0) | (Call::Forces, 0) => {
            [spans[0], spans[2], spans[3]].into_iter().chain(a.iter().rev().take(3).map(arr_span)).collect()
        }
        (Call::Finish, 0) => vec![spans[0], spans[2], spans[3], arr_span(&a[2])],
        (Call::Commit, 0) => vec![spans[0], spans[1], spans[2], arr_span(&a[1])],
        (Call::Begin, _) => vec![sys.phi(q)],
        (Call::Commit, 22) => vec![spans[0]],
        _ => vec![],
    };
    match k {
        Call::Begin => assert_eq!(s, want, "shard begin on rank {q}: the status (its fuse fired: {})", want != 0),
        Call::Commit => assert!(s == 0 || s == 22, "shard commit on rank {q} returned {s}"),
        _ => assert_eq!(s, 0, "shard {k:?} on rank {q} with honest arguments"),
    }
    cx.check_only("shard step", s, &allowed);
    sys.stage[q] = if s == 0 { (k as u8 + 1) % 4 } else { 0 };
    s
}

/// A call of step `k` on rank `q`, whatever its stage, with at most one fault chosen by the
/// input; it must get exactly the fault's status (a pointer fault's, else the stage's, else the
/// length's or the contents'), call no callback and write nothing but what that failure may
/// leave. Returns whether it cancelled the rank's iteration (a partial with `finite` = 0).
fn shard_probe<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &mut Sys, q: usize, k: Call) -> bool {
    let (r, t) = (sys.r[q], sys.t);
    let mut a = honest_arrs(sys, q, k, b.u8() & 1 == 0);
    let stage_ok = sys.stage[q] == k as u8;
    let j = b.below(a.len());
    let live = |x: &Arr| x.off.is_some() && x.len > 0;
    let (mut st, mut early, mut late, mut how) = (Some(r.st), None, None, 0u8);
    let mut allowed = vec![];
    let mut undo: Option<(usize, Vec<u8>)> = None;
    let fault = b.u8() % 12;
    match fault {
        0 if !a[j].optional => {
            a[j].off = None;
            early = Some(1);
        }
        1 => {
            a[j].off = Some(a[j].off.unwrap_or(sys.info) + 1 + b.below(3));
            early = Some(23);
        }
        2 if a[j].has_len => {
            a[j].len = HUGE + b.below(1 << 16);
            early = Some(23);
        }
        3 if a[j].has_len => {
            let need = a[j].len;
            let l = match b.u8() % 3 {
                0 => need.checked_sub(1),
                1 => Some(need + 1),
                _ => Some(0),
            };
            if let Some(l) = l.filter(|&l| l != need) {
                a[j].len = l;
                late = Some(4);
            }
        }
        4 if live(&a[j]) => {
            let s = sys.spans(q)[b.u8() as usize % 4];
            let o = (s.0 + b.below(s.1 - s.0)) / 8 * 8;
            if o + a[j].len * a[j].elem <= ARENA {
                a[j].off = Some(o);
                early = Some(23);
            }
        }
        5 => {
            let i = b.below(a.len());
            if i != j && live(&a[i]) && live(&a[j]) && a[i].off.unwrap() + a[j].len * a[j].elem <= ARENA {
                a[j].off = a[i].off;
                early = Some(23);
            }
        }
        6 => {
            st = None;
            early = Some(1);
        }
        7 => {
            st = Some(r.st + 4);
            early = Some(23);
        }
        8 if stage_ok => {
            // The contents: one value of the call's input.
            let (o, v, s): (usize, Vec<u8>, i32) = match k {
                Call::Begin => (r.po + t * b.below(r.c * sys.d), raw(&[V::T::from_f64(f64::NAN)]), 9),
                Call::Forces if r.m > 0 => {
                    let jj = b.below(r.m);
                    let (s0, m, n) = (r.slot0 as u32, r.m as u32, sys.n as u32);
                    allowed = vec![(r.ix, r.ix + 4 * r.m), sys.slot_rows(q)];
                    match b.u8() % 3 {
                        0 => (r.fi + 8 * jj, (([s0 + m, u32::MAX, s0.wrapping_sub(1)])[b.u8() as usize % 3]).to_le_bytes().to_vec(), 31),
                        1 if r.m > 1 => {
                            let other = rd::<u32>(cx, r.fi + 8 * ((jj + 1 + b.below(r.m - 1)) % r.m));
                            (r.fi + 8 * jj, other.to_le_bytes().to_vec(), 32)
                        }
                        _ => (r.fi + 8 * jj + 4, ([n, n + 1, u32::MAX])[b.u8() as usize % 3].to_le_bytes().to_vec(), 31),
                    }
                }
                Call::Finish => {
                    let jj = b.below(r.c);
                    let (f, c) = (r.first as u32, r.c as u32);
                    allowed = vec![(r.ix + 4 * r.m, r.ix + 4 * (r.m + r.c)), sys.phi(q)];
                    if b.u8() & 1 == 0 || r.c < 2 {
                        (r.hi + 4 * jj, ([f + c, u32::MAX, f.wrapping_sub(1)])[b.u8() as usize % 3].to_le_bytes().to_vec(), 31)
                    } else {
                        let other = rd::<u32>(cx, r.hi + 4 * ((jj + 1 + b.below(r.c - 1)) % r.c));
                        (r.hi + 4 * jj, other.to_le_bytes().to_vec(), 32)
                    }
                }
                Call::Commit => {
                    let o = sys.parts + PART * b.below(sys.ranks) + 32;
                    if !sys.committed && b.u8() & 1 == 0 {
                        allowed = vec![sys.spans(q)[0]];
                        (o, 0u64.to_le_bytes().to_vec(), 22)
                    } else {
                        (o, ([2, 3, u64::MAX])[b.u8() as usize % 3].to_le_bytes().to_vec(), 23)
                    }
                }
                Call::Forces => return false,
            };
            undo = Some((o, cx.bytes()[o..o + v.len()].to_vec()));
            arena_mut(cx)[o..o + v.len()].copy_from_slice(&v);
            late = Some(s);
        }
        9 => how = 1,
        10 => how = 2,
        _ => {}
    }
    if early.is_none() && late.is_none() && how == 0 && stage_ok {
        return false; // no fault: that would be the honest call
    }
    let stage = if k == Call::Begin { 29 } else { 28 };
    let want = match (early, how) {
        (Some(e), _) => e,
        (_, 1) => 21,
        (_, 2) => 26,
        _ if !stage_ok => stage,
        _ => late.unwrap(),
    };
    if want != late.unwrap_or(0) {
        allowed.clear();
    }
    let calls = sys.models[q].calls;
    if how == 2 {
        // The caller's memcpy of the state.
        arena_copy(cx, r.st, sys.moved, sys.state);
        st = Some(sys.moved);
    }
    let which = b.u8();
    cx.snapshot();
    let s = if how == 1 {
        let (sp, op) = (cx.ptr::<u8>(st), cx.ptr::<u64>(Some(sys.out)));
        // SAFETY: a live state of this kind; an aligned word in the arena.
        unsafe { V::other(which, sp, op) }
    } else {
        shard_call::<V>(cx, st, k, &a)
    };
    check_status("shard probe", s);
    if trace() {
        eprintln!("shard{} probe {k:?} rank {q} stage {} fault {fault} how {how} -> {s}", t * 8, sys.stage[q]);
    }
    assert_eq!(s, want, "shard {k:?} on rank {q} (stage {}) with fault {fault} (how {how}, arrays {a:?}, state {st:?})", sys.stage[q]);
    assert_eq!(sys.models[q].calls, calls, "a refused shard call called the callbacks");
    cx.check_only("refused shard call", s, &allowed);
    if let Some((o, v)) = undo {
        arena_mut(cx)[o..o + v.len()].copy_from_slice(&v);
    }
    if s == 22 {
        sys.stage[q] = 0;
        return true;
    }
    false
}

/// Forces or finish through `…_parts`, whatever the rank's stage, the rank's delivered records as
/// pieces with one fault: the descriptors NULL, a piece's indices NULL or its rows misaligned
/// (checked before the state), a piece's rows over the rank's workspace (INVALID_ARGUMENT, before
/// the stage), or, after the stage's check, a record missing or (forces) split between two
/// pieces (LENGTH_MISMATCH). The call must return exactly that status, call no callback and write
/// nothing.
fn shard_parts_probe<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &mut Sys, q: usize) {
    let (r, t) = (sys.r[q], sys.t);
    let k = if b.u8() & 1 == 0 { Call::Forces } else { Call::Finish };
    let a = honest_arrs(sys, q, k, true);
    let stage_ok = sys.stage[q] == k as u8;
    let (iw, recs) = if k == Call::Forces { (2, r.m) } else { (1, r.c) };
    let rw = a[1].len / recs.max(1);
    let (i0, r0) = (cx.ptr::<u32>(a[0].off).cast_const(), cx.ptr::<u8>(a[1].off).cast_const());
    let at = |rec: usize| (i0.wrapping_add(rec * iw), r0.wrapping_add(rec * rw * t));
    let whole = |from: usize, to: usize| (at(from).0, (to - from) * iw, at(from).1, (to - from) * rw);
    let mut pieces = vec![whole(0, recs), whole(recs, recs)];
    let mut descs_null = false;
    let fault = b.u8() % 6;
    let late = if stage_ok { 4 } else { 28 };
    let want = match fault {
        0 => {
            descs_null = true;
            1
        }
        1 => {
            pieces[1].0 = core::ptr::null();
            1
        }
        2 => {
            pieces[1].2 = pieces[1].2.wrapping_add(1 + b.below(t - 1));
            23
        }
        3 => {
            pieces[1] = (pieces[1].0, 0, cx.ptr::<u8>(Some(r.ws)).cast_const(), 1);
            23
        }
        4 if recs > 0 => {
            pieces[0] = whole(0, recs - 1);
            late
        }
        _ if recs > 0 && k == Call::Forces => {
            // One index of the last record moved to the second piece, with its share of rows.
            let (i, n, rr, rn) = whole(0, recs);
            pieces = vec![(i, n - 1, rr, rn - rw / 2), (i.wrapping_add(n - 1), 1, rr.wrapping_add((rn - rw / 2) * t), rw / 2)];
            late
        }
        _ => return,
    };
    let outs: Vec<*mut u8> = a[2..].iter().map(|x| cx.ptr::<u8>(x.off)).collect();
    let l: Vec<usize> = a[2..].iter().map(|x| x.len).collect();
    let calls = sys.models[q].calls;
    cx.snapshot();
    let s = if descs_null {
        let sp = cx.ptr::<u8>(Some(r.st));
        // SAFETY: NULL descriptors with a length: refused before anything is read.
        unsafe { V::call_parts_raw(k, sp, core::ptr::null(), 2, &outs, &l) }
    } else {
        // SAFETY: every piece NULL, misaligned, or inside the arena for its length; the outputs
        // as for `call`.
        unsafe { V::call_parts(k, cx.ptr::<u8>(Some(r.st)), &pieces, &outs, &l) }
    };
    check_status("shard parts probe", s);
    if trace() {
        eprintln!("shard{} parts probe {k:?} rank {q} stage {} fault {fault} -> {s}", t * 8, sys.stage[q]);
    }
    assert_eq!(s, want, "shard {k:?} in pieces on rank {q} (stage {}) with fault {fault}", sys.stage[q]);
    assert_eq!(sys.models[q].calls, calls, "a refused shard call called the callbacks");
    cx.check_only("refused shard call in pieces", s, &[]);
}

/// `iterations` of rank `q` into its word, NULL, misaligned, or over the rank's own memory.
fn shard_iters<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &Sys, q: usize, want_iters: u64) {
    let (o, want) = match b.u8() % 5 {
        0 => (None, 1),
        1 => (Some(sys.out + 4), 23),
        2 => {
            let s = sys.spans(q)[b.u8() as usize % 4];
            (Some((s.0 + b.below(s.1 - s.0)) / 8 * 8), 23)
        }
        _ => (Some(sys.out), 0),
    };
    let (sp, op) = (cx.ptr::<u8>(Some(sys.r[q].st)), cx.ptr::<u64>(o));
    cx.snapshot();
    // SAFETY: a live state; NULL or a word in the arena.
    let s = unsafe { V::iterations(sp, op) };
    check_status("shard iterations", s);
    assert_eq!(s, want, "shard iterations into {o:?}");
    let allowed: Vec<_> = o.filter(|_| s == 0).map(|o| (o, o + 8)).into_iter().collect();
    cx.check_only("shard iterations", s, &allowed);
    if s == 0 {
        assert_eq!(rd::<u64>(cx, sys.out), want_iters, "shard iterations");
    }
}

/// Calls between the honest ones, until the input says stop (at most four): probes,
/// `iterations`, `clear` on NULL, misaligned or the moved copy. Returns whether a probe
/// cancelled the iteration.
fn shard_noise<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &mut Sys, q: usize, iters: u64) -> bool {
    for _ in 0..4 {
        match b.u8() % 8 {
            0..=3 => break,
            4 => {
                let k = CALLS[b.u8() as usize % 4];
                if shard_probe::<V>(cx, b, sys, q, k) {
                    return true;
                }
            }
            5 => shard_parts_probe::<V>(cx, b, sys, q),
            6 => shard_iters::<V>(cx, b, sys, q, iters),
            _ => {
                let (o, want) = match b.u8() % 3 {
                    0 => (None, 1),
                    1 => (Some(sys.moved + 4), 23),
                    _ => (Some(sys.moved), 0),
                };
                let sp = cx.ptr::<u8>(o);
                cx.snapshot();
                // SAFETY: NULL or a state's size in the arena.
                let s = unsafe { V::clear(sp) };
                assert_eq!(s, want, "shard clear at {o:?}");
                let allowed: Vec<_> = o.filter(|_| s == 0).map(|o| (o, o + sys.state)).into_iter().collect();
                cx.check_only("shard clear", s, &allowed);
                if s == 0 {
                    assert!(cx.bytes()[sys.moved..sys.moved + sys.state].iter().all(|&x| x == 0));
                }
            }
        }
    }
    false
}

/// The exchange after begin (`first`: slot and particle, position and gradient, to the slot's
/// rank) or after forces (particle and φ, to the particle's rank), as MPI_Alltoallv would make
/// it, checking the records: the counts add up, every slot (particle) comes once, to its rank,
/// begin's from the particle's rank with the particle's position.
fn shard_deliver(cx: &mut Ctx, sys: &Sys, first: bool) {
    let (t, d, ranks) = (sys.t, sys.d, sys.ranks);
    let (iw, w) = if first { (2, 2 * d) } else { (1, d) };
    let mut seen = vec![false; sys.n];
    for q in 0..ranks {
        let rq = sys.r[q];
        let (di, dr, need) = if first { (rq.fi, rq.fr, rq.m) } else { (rq.hi, rq.hr, rq.c) };
        let mut got = 0;
        for s in 0..ranks {
            let rs = sys.r[s];
            let (si, sr, sc, total) = if first { (rs.bi, rs.br, rs.bc, rs.c) } else { (rs.gi, rs.gr, rs.gc, rs.m) };
            let counts: Vec<usize> = (0..ranks).map(|k| rd(cx, sc + 8 * k)).collect();
            let sum: u128 = counts.iter().map(|&c| c as u128).sum();
            assert_eq!(sum, total as u128, "shard records: counts {counts:?} of rank {s} (first exchange: {first})");
            let at: usize = counts[..q].iter().sum();
            for k in at..at + counts[q] {
                let key = rd::<u32>(cx, si + 4 * iw * k) as usize;
                if first {
                    let part = rd::<u32>(cx, si + 4 * (2 * k + 1)) as usize;
                    assert!((rq.slot0..rq.slot0 + rq.m).contains(&key), "begin sent slot {key} to rank {q}");
                    assert!((rs.first..rs.first + rs.c).contains(&part), "rank {s}'s begin sent particle {part}");
                    let x = rs.po + t * d * (part - rs.first);
                    let row = sr + t * w * k;
                    assert!(cx.bytes()[row..row + t * d] == cx.bytes()[x..x + t * d], "begin's record of particle {part} without its position");
                } else {
                    assert!((rq.first..rq.first + rq.c).contains(&key), "forces sent particle {key} to rank {q}");
                }
                assert!(!seen[key], "{} {key} in two records", if first { "slot" } else { "particle" });
                seen[key] = true;
                arena_copy(cx, si + 4 * iw * k, di + 4 * iw * got, 4 * iw);
                arena_copy(cx, sr + t * w * k, dr + t * w * got, t * w);
                got += 1;
            }
        }
        assert_eq!(got, need, "rank {q} received {got} records (first exchange: {first})");
    }
}

/// Every rank's partial into commit's input (`MPI_Allgather`), checked: the rank's particles,
/// `finite` 0 or 1.
fn shard_gather(cx: &mut Ctx, sys: &Sys) {
    for (q, r) in sys.r.iter().enumerate() {
        let (moves, finite) = (rd::<u64>(cx, r.part + 16), rd::<u64>(cx, r.part + 32));
        assert!(moves == r.c as u64 && finite <= 1, "rank {q}'s partial: moves {moves}, finite {finite}");
        arena_copy(cx, r.part, sys.parts + PART * q, PART);
    }
}

/// `cancel` on every rank (each SGS_OK, writing only its state); then nothing has moved.
fn shard_cancel_all<V: ShardApi>(cx: &mut Ctx, sys: &mut Sys, before: &[u8]) {
    for q in 0..sys.ranks {
        let span = sys.spans(q)[0];
        cx.snapshot();
        // SAFETY: a live state.
        let s = unsafe { V::cancel(cx.base().add(span.0)) };
        assert_eq!(s, 0, "shard cancel on rank {q}");
        cx.check_only("shard cancel", s, &[span]);
        sys.stage[q] = 0;
    }
    assert!(sys.particles(cx) == before, "particles moved in a cancelled shard iteration");
}

/// The whole-system twin: an `sgs_svgd` (`_f32`) on the target's own memory with the same config,
/// particles and (pure) gradient.
struct Twin<T> {
    st: Vec<u64>,
    p: Vec<T>,
    _w: Vec<T>,
    _x: Vec<u32>,
    _model: Box<Model>,
    iters: u64,
}

/// One iteration of every rank with fuzzed calls in between, against the twin's step.
fn shard_iteration<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &mut Sys, twin: &mut Twin<V::T>) {
    let before = sys.particles(cx);
    sys.committed = false;
    let (mut failed, mut expect) = (false, None);
    for k in CALLS {
        match k {
            Call::Begin => {}
            _ if failed || b.u8() % 16 == 1 => return shard_cancel_all::<V>(cx, sys, &before),
            Call::Forces => shard_deliver(cx, sys, true),
            Call::Finish => shard_deliver(cx, sys, false),
            Call::Commit => shard_gather(cx, sys),
        }
        for q in 0..sys.ranks {
            if shard_noise::<V>(cx, b, sys, q, twin.iters) {
                return shard_cancel_all::<V>(cx, sys, &before);
            }
            if k == Call::Commit && expect.is_none() {
                let mut info = [0u64; INFO / 8];
                // SAFETY: the twin is a live system on its own memory; a local info.
                let s = unsafe { <V::Whole as SvgdApi>::step(twin.st.as_mut_ptr().cast(), info.as_mut_ptr().cast()) };
                expect = Some((s, info));
            }
            let info = b.u8() % 4 != 0;
            // Forces and finish read their records in pieces half the time (`…_parts`).
            let split = (b.u8() & 1 == 0).then(|| b.u8() as usize);
            let s = shard_step::<V>(cx, sys, q, k, info, split);
            failed |= s != 0;
            if k == Call::Commit {
                sys.committed = true;
                let (ts, ti) = expect.unwrap();
                assert_eq!(s, ts, "shard commit on rank {q}: status {s}, the whole system's step {ts}");
                if s == 0 && info {
                    let got: Vec<u64> = (0..INFO / 8).map(|w| rd::<u64>(cx, sys.info + 8 * w)).collect();
                    for w in [0, 1, 2, 3, 5] {
                        assert_eq!(got[w], ti[w], "shard commit's info word {w} differs from the whole system's ({got:?} vs {ti:?})");
                    }
                    let (a, e) = (f64::from_bits(got[4]), f64::from_bits(ti[4]));
                    assert!(a == e || (a - e).abs() <= 1e-12 * a.abs().max(e.abs()) || !(a.is_finite() && e.is_finite()), "mean_force {a} vs {e}");
                    assert!(f64::from_bits(got[6]).is_nan() && f64::from_bits(ti[6]).is_nan());
                }
            }
        }
    }
    let (ts, _) = expect.unwrap();
    let now = sys.particles(cx);
    if ts == 0 {
        twin.iters += 1;
        assert!(now == raw(&twin.p), "the shards' particles after commit differ from the whole system's step");
    } else {
        assert!(now == before && raw(&twin.p) == before, "particles moved in an iteration that failed ({ts})");
    }
    for q in 0..sys.ranks {
        let mut it = u64::MAX;
        // SAFETY: a live state; a local output.
        let s = unsafe { V::iterations(cx.base().add(sys.r[q].st), &mut it) };
        assert_eq!((s, it), (0, twin.iters), "rank {q}'s iterations");
    }
}

/// Rank `q`'s init with exactly one fault chosen by the input: its status, nothing written.
fn shard_init_fault<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes, sys: &Sys, q: usize, cfg: &sgs_svgd_config, cb: u8) {
    let (r, t) = (sys.r[q], sys.t);
    let mut c = *cfg;
    let mut buf = [0u64; size_of::<sgs_svgd_config>() / 8 + 1];
    let mut cp: *const sgs_svgd_config = cfg;
    let (mut st, mut po, mut ws, mut ix) = (Some(r.st), Some(r.po), Some(r.ws), Some(r.ix));
    let (mut n, mut d, mut ranks, mut rank) = (sys.n, sys.d, sys.ranks, q);
    let (mut pl, mut wl, mut il, mut cb) = (r.c * sys.d, r.wl, r.il, cb);
    let mut nan = None;
    let fault = b.u8() % 16;
    let want = match fault {
        0 => {
            st = None;
            1
        }
        1 => {
            cp = core::ptr::null();
            1
        }
        2 => {
            po = None;
            1
        }
        3 => {
            ws = None;
            1
        }
        4 => {
            ix = None;
            1
        }
        5 => {
            cb = 0;
            1
        }
        6 => {
            let o = 1 + b.below(3);
            match b.u8() % 5 {
                0 => st = Some(r.st + 4),
                1 => {
                    let p = buf.as_mut_ptr().cast::<u8>().wrapping_add(4);
                    // SAFETY: inside buf.
                    unsafe { p.cast::<sgs_svgd_config>().write_unaligned(*cfg) };
                    cp = p.cast();
                }
                2 => po = Some(r.po + o),
                3 => ws = Some(r.ws + o),
                _ => ix = Some(r.ix + o),
            }
            23
        }
        7 => {
            let h = HUGE + b.below(1 << 16);
            match b.u8() % 3 {
                0 => pl = h,
                1 => wl = h,
                _ => il = h,
            }
            23
        }
        8 => {
            match b.u8() % 3 {
                0 => ws = Some(r.po),
                1 => ix = Some(r.ws),
                _ => po = Some(r.st),
            }
            23
        }
        9 => {
            match b.u8() % 3 {
                0 => rank = ranks + b.below(3),
                1 => (ranks, rank) = (0, 0),
                _ => ranks = (1 << 32) + 1,
            }
            23
        }
        10 if b.u8() & 1 == 0 => {
            n = 0;
            15
        }
        10 => {
            d = 0;
            2
        }
        11 => {
            let s = spoil_cfg(b, &mut c, sys.n);
            cp = &c;
            s
        }
        12 => {
            pl = if b.u8() & 1 == 0 { pl - 1 } else { pl + 1 };
            4
        }
        13 => {
            if b.u8() & 1 == 0 {
                wl -= 1;
            } else {
                il -= 1;
            }
            3
        }
        14 => {
            nan = Some(r.po + t * b.below(r.c * sys.d));
            9
        }
        _ => return,
    };
    let old = nan.map(|o| cx.bytes()[o..o + t].to_vec());
    if let Some(o) = nan {
        wr(cx, o, V::T::from_f64(f64::NAN));
    }
    let (sp, pp, wp, ip) = (cx.ptr::<u8>(st), cx.ptr::<V::T>(po), cx.ptr::<V::T>(ws), cx.ptr::<u32>(ix));
    cx.snapshot();
    // SAFETY: NULL, misaligned, huge or in the arena for their lengths; init calls no callback.
    let s = unsafe { V::init(sp, cp, n, d, ranks, rank, pp, pl, wp, wl, ip, il, cb, core::ptr::null_mut()) };
    check_status("shard init", s);
    if trace() {
        eprintln!("shard{} init rank {q} fault {fault} -> {s}", t * 8);
    }
    assert_eq!(s, want, "shard init of rank {q} with fault {fault}");
    cx.check_only("refused shard init", s, &[]);
    if let (Some(o), Some(v)) = (nan, old) {
        arena_mut(cx)[o..o + t].copy_from_slice(&v);
    }
}

fn take(at: &mut usize, bytes: usize, align: usize) -> usize {
    *at = at.div_ceil(align) * align;
    let o = *at;
    *at += bytes;
    o
}

/// The system's layout from `base`: per rank (first, c, first slot, m, workspace and index
/// lengths) its state, buffers and exchange buffers; then the partials, the info, room for a
/// moved state and a word. Returns the system and where its memory ends.
fn shard_layout(base: usize, al: usize, size: usize, n: usize, d: usize, t: usize, shapes: &[[usize; 6]]) -> (Sys, usize) {
    let (mut at, ranks) = (base, shapes.len());
    let mut r = vec![];
    for &[first, c, slot0, m, wl, il] in shapes {
        let a = &mut at;
        r.push(Rank {
            st: take(a, size, al),
            po: take(a, (c * d + 1) * t, 8),
            ws: take(a, (wl + 1) * t, 8),
            wl,
            ix: take(a, (il + 1) * 4, 8),
            il,
            c,
            m,
            first,
            slot0,
            bi: take(a, (2 * c + 1) * 4, 8),
            br: take(a, (2 * c * d + 1) * t, 8),
            bc: take(a, (ranks + 1) * 8, 8),
            fi: take(a, (2 * m + 1) * 4, 8),
            fr: take(a, (2 * m * d + 1) * t, 8),
            gi: take(a, (m + 1) * 4, 8),
            gr: take(a, (m * d + 1) * t, 8),
            gc: take(a, (ranks + 1) * 8, 8),
            hi: take(a, (c + 1) * 4, 8),
            hr: take(a, (c * d + 1) * t, 8),
            part: take(a, PART, 8),
        });
    }
    let parts = take(&mut at, (ranks + 1) * PART, 8);
    let info = take(&mut at, INFO, 8);
    let moved = take(&mut at, size, al);
    let out = take(&mut at, 8, 8);
    let sys = Sys {
        n,
        d,
        ranks,
        t,
        state: size,
        hist: false,
        r,
        parts,
        info,
        moved,
        out,
        stage: vec![0; ranks],
        models: vec![],
        committed: false,
    };
    (sys, at)
}

fn shard_system<V: ShardApi>(cx: &mut Ctx, b: &mut Bytes) {
    let t = <V::T as Flt>::SIZE;
    let ranks = 2 + b.below(2);
    let n = 8 + b.below(33);
    let d = 1 + b.below(2);
    let p = 2 + b.below(n.min(8) - 1);
    let cfg = shard_cfg(b, p, t);
    let hist = cfg.step_rule == SGS_STEP_RULE_ADAGRAD;
    let cb = 1 + b.u8() % 3;
    let a = [1.0, 0.5, 4.0, 1e-3][b.u8() as usize % 4];
    let xseed = b.u64();
    // Each rank's share from the queries, against the header's formulas.
    let mut shapes = vec![];
    for q in 0..ranks {
        let mut v = [0usize; 4];
        let [p0, p1, p2, p3] = v.each_mut().map(|x| x as *mut usize);
        // SAFETY: four distinct locals.
        let s = unsafe { sgs_svgd_shard_ranges(n, p, ranks, q, p0, p1, p2, p3) } as i32;
        assert_eq!((s, v), (0, ranges_of(n, p, ranks, q)), "shard_ranges(n {n}, p {p}, ranks {ranks}, rank {q})");
        // SAFETY: a config on the stack.
        let (wl, il) = unsafe { (V::ws_len(n, d, ranks, q, &cfg), V::index_len(n, ranks, q, &cfg)) };
        assert_eq!((wl, il), (shard_ws_need(v[1], v[3], d, hist), v[1] + v[3]), "shard size queries of rank {q}");
        shapes.push([v[0], v[1], v[2], v[3], wl, il]);
    }
    let al = V::state_align().max(8);
    let total = shard_layout(0, al, V::STATE, n, d, t, &shapes).1;
    if total > ARENA {
        return;
    }
    let base = b.below(ARENA - total + 1) / al * al;
    let (mut sys, end) = shard_layout(base, al, V::STATE, n, d, t, &shapes);
    sys.hist = hist;
    // The system's memory is the caller's: whatever lived there is given up, then zeroed.
    let region = (base, end);
    cx.live.retain(|l| !l.owned.iter().chain(l.particles.iter()).any(|&r| overlaps(r, region)));
    arena_mut(cx)[base..end].fill(0);
    for r in sys.r.clone() {
        for k in 0..r.c * d {
            let mut h = xseed ^ ((r.first * d + k) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h = (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            wr(cx, r.po + t * k, V::T::from_f64(((h >> 40) % 256) as f64 / 16.0 - 8.0));
        }
    }
    for q in 0..ranks {
        let fuse = (b.u8() % 3 == 0).then(|| (b.below(6), b.u8()));
        let reenter = (b.u8() % 4 == 0).then(|| (b.below(4), b.u8()));
        let state = cx.base().wrapping_add(sys.r[q].st);
        sys.models.push(Box::new(ShardModel { a, calls: 0, fuse, fired: false, reenter, state, busy: vec![] }));
    }
    if trace() {
        eprintln!("shard{} system n {n} d {d} p {p} ranks {ranks} at {base}..{end} cb {cb} {cfg:?}", t * 8);
    }
    for q in 0..ranks {
        if b.u8() & 1 == 0 {
            shard_init_fault::<V>(cx, b, &sys, q, &cfg, cb);
        }
        let r = sys.r[q];
        let ud: *mut c_void = (&mut *sys.models[q] as *mut ShardModel).cast();
        let (sp, pp, wp, ip) = (cx.ptr::<u8>(Some(r.st)), cx.ptr::<V::T>(Some(r.po)), cx.ptr::<V::T>(Some(r.ws)), cx.ptr::<u32>(Some(r.ix)));
        cx.snapshot();
        // SAFETY: the rank's disjoint buffers with their lengths; the model outlives the state.
        let s = unsafe { V::init(sp, &cfg, n, d, ranks, q, pp, r.c * d, wp, r.wl, ip, r.il, cb, ud) };
        assert_eq!(s, 0, "shard init of rank {q}");
        let sp = sys.spans(q);
        cx.check_only("shard init", s, &[sp[0], sp[2], sp[3]]);
    }
    // The twin.
    let parts = sys.particles(cx);
    let mut tp: Vec<V::T> = parts.chunks(t).map(|c| {
        // SAFETY: t bytes of one value.
        unsafe { c.as_ptr().cast::<V::T>().read_unaligned() }
    }).collect();
    // SAFETY: a config on the stack.
    let (twl, til) = (unsafe { <V::Whole as SvgdApi>::ws_len(n, d, &cfg) }, <V::Whole as SvgdApi>::index_len(n));
    let mut tw = vec![V::T::from_f64(0.0); twl];
    let mut tx = vec![0u32; til];
    let mut tst = vec![0u64; <V::Whole as SvgdApi>::STATE.div_ceil(8)];
    let mut model = Box::new(Model { script: vec![], calls: 0, curvature: a });
    let ud: *mut c_void = (&mut *model as *mut Model).cast();
    // SAFETY: the twin's own buffers of the stated lengths; the model outlives it.
    let s = unsafe {
        <V::Whole as SvgdApi>::init(tst.as_mut_ptr().cast(), &cfg, tp.as_mut_ptr(), n, d, tw.as_mut_ptr(), twl,
            tx.as_mut_ptr(), til, false, true, ud)
    };
    assert_eq!(s, 0, "the whole-system twin's init");
    let mut twin = Twin { st: tst, p: tp, _w: tw, _x: tx, _model: model, iters: 0 };
    for _ in 0..1 + b.u8() % 4 {
        shard_iteration::<V>(cx, b, &mut sys, &mut twin);
    }
    // An iteration may be left open: clear works in any stage.
    for q in 0..ranks {
        shard_clear_at::<V>(cx, sys.r[q].st);
    }
    shard_clear_at::<V>(cx, sys.moved);
}
