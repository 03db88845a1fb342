//! RBM-SVGD and SVGD through the C ABI: `sgs_svgd_…` (double) and `sgs_svgd_…_f32` (float).

use super::chain::{c_summary, CSummary};
use super::common::*;
use super::sgs_status;

mod phases;
mod shard;
use crate::error::{Error, Stop};
use crate::float::Float;
use crate::model::Gradient;
use crate::run::run_iterations;
use crate::svgd::Scale;
use crate::svgd::{workspace_len, KernelParams, Pending, SvgdCore};
use crate::svgd::{Anneal, KsdChoice, Permutation, SteinImq};
use crate::{Batching, KernelChoice, StepRule, SvgdConfig, SvgdInfo};
use core::ffi::c_void;
use core::mem::{align_of, size_of};
// The phases' entry points are part of `sgsample::ffi` like every other C function (the fuzz
// target calls them through it).
pub use phases::*;
pub use shard::*;

/// `sgs_svgd_config.batching`: a random permutation cut into batches of p; every particle moves
/// once per iteration (the paper's Algorithm 3, the default).
pub const SGS_BATCHING_WITHOUT_REPLACEMENT: u32 = 0;
/// `sgs_svgd_config.batching`: ⌊N/p⌋ sub-steps, each moving one random batch of p particles
/// (Algorithm 2).
pub const SGS_BATCHING_WITH_REPLACEMENT: u32 = 1;

/// `sgs_svgd_config.kernel`: Gaussian `exp(−|x−y|²/(2h))` with the fixed bandwidth
/// `sgs_svgd_config.bandwidth`.
pub const SGS_KERNEL_GAUSSIAN: u32 = 0;
/// `sgs_svgd_config.kernel`: Gaussian with the median heuristic `h = med²/(2 ln N)`, recomputed
/// every iteration from all N(N−1)/2 pairwise distances. **Costs O(N²·d) time and N(N−1)/2
/// workspace elements per iteration whatever the batch size p**: meant for full SVGD (p = N);
/// with p < N it takes away RBM-SVGD's O(p·N) advantage (the RBM-SVGD paper uses a fixed h).
pub const SGS_KERNEL_GAUSSIAN_MEDIAN: u32 = 1;
/// `sgs_svgd_config.kernel`: inverse multiquadric `(c² + |x−y|²)^(−β)` with `imq_c`, `imq_beta`.
pub const SGS_KERNEL_IMQ: u32 = 2;

/// `sgs_svgd_config.step_rule`: `x ← x + η·φ`.
pub const SGS_STEP_RULE_CONSTANT: u32 = 0;
/// `sgs_svgd_config.step_rule`: `x ← x + (η/k)·φ` at iteration k = 1, 2, ….
pub const SGS_STEP_RULE_DECAYING: u32 = 1;
/// `sgs_svgd_config.step_rule`: the RMSProp-like AdaGrad of the reference SVGD code,
/// `H ← α·H + (1−α)·φ²` (H ← φ² at first), `x ← x + η·φ/(1e-6 + √H)`, element-wise.
pub const SGS_STEP_RULE_ADAGRAD: u32 = 2;

/// Hyperparameters of an SVGD / RBM-SVGD particle system (shared by the double and float
/// functions). Start from `sgs_svgd_config_default(batch_size, step_size)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_svgd_config {
    /// The step size η > 0 (η₁ for the decaying rule).
    pub step_size: f64,
    /// AdaGrad's history decay α ∈ [0, 1) (used by `SGS_STEP_RULE_ADAGRAD` only).
    pub adagrad_alpha: f64,
    /// The bandwidth h > 0 of `SGS_KERNEL_GAUSSIAN` (ignored by the other kernels).
    pub bandwidth: f64,
    /// The softening length c > 0 of `SGS_KERNEL_IMQ`.
    pub imq_c: f64,
    /// The exponent β > 0 of `SGS_KERNEL_IMQ`.
    pub imq_beta: f64,
    /// The interaction batch size p, 2 ≤ p ≤ N; p = N is full SVGD.
    pub batch_size: u64,
    /// Seed of the generator.
    pub seed: u64,
    /// Stream id: same seed, different streams give independent runs.
    pub stream: u64,
    /// One of the `SGS_BATCHING_…` values.
    pub batching: u32,
    /// One of the `SGS_KERNEL_…` values.
    pub kernel: u32,
    /// One of the `SGS_STEP_RULE_…` values.
    pub step_rule: u32,
    /// Must be 0 (padding made explicit).
    pub reserved: u32,
    /// One of the `SGS_KSD_…` values: whether each iteration reports the kernelized Stein
    /// discrepancy of its particles in `sgs_svgd_info.ksd_squared` (off by default: it costs
    /// extra; without replacement only).
    pub ksd: u32,
    /// Must be 0 (padding made explicit).
    pub ksd_reserved: u32,
    /// The scale c > 0 of the KSD's base kernel `(c² + r²)^β` (default 1).
    pub ksd_c: f64,
    /// The exponent β ∈ (−1, 0) of the KSD's base kernel (default −0.5).
    pub ksd_beta: f64,
    /// One of the `SGS_SCALE_…` values: whether the iterations run in standardised coordinates
    /// `u = (x − c)/s` (docs/algorithms.md §2.7; off by default).
    pub scale: u32,
    /// Must be 0 (padding made explicit).
    pub scale_reserved: u32,
    /// One of the `SGS_ANNEAL_…` values: the annealing schedule γ(t) of the driving term
    /// (docs/algorithms.md §2.8; off by default).
    pub anneal: u32,
    /// One of the `SGS_PERMUTATION_…` values: how an iteration without replacement permutes
    /// the particles into batches (docs/algorithms.md §2, "Draw order").
    pub permutation: u32,
    /// Iterations the annealing schedule spans (≥ 1 when annealing; γ = 1 after them).
    pub anneal_iterations: u64,
    /// Ramps of the cyclical schedule within `anneal_iterations` (1 ≤ cycles ≤ iterations;
    /// default 1; not read by the hyperbolic one).
    pub anneal_cycles: u64,
    /// The schedule's exponent p > 0 (default 1).
    pub anneal_power: f64,
}

/// `sgs_svgd_config.permutation`: forward Fisher–Yates with N − 1 bounded draws (the default;
/// sequential).
pub const SGS_PERMUTATION_SHUFFLE: u32 = 0;
/// `sgs_svgd_config.permutation`: a keyed Feistel bijection of 0..N from one draw per
/// iteration, which any range can evaluate for its own slots (without replacement only).
pub const SGS_PERMUTATION_FEISTEL: u32 = 1;

/// `sgs_svgd_config.anneal`: γ = 1, plain SVGD (the default).
pub const SGS_ANNEAL_OFF: u32 = 0;
/// `sgs_svgd_config.anneal`: `γ(t) = frac(t·cycles/iterations)^power` for t < iterations
/// (`cycles` ramps from 0 to 1), then 1: D'Angelo & Fortuin's cyclical schedule.
pub const SGS_ANNEAL_CYCLICAL: u32 = 1;
/// `sgs_svgd_config.anneal`: `γ(t) = tanh((1.3·t/iterations)^power)` for t < iterations, then
/// 1: D'Angelo & Fortuin's hyperbolic-tangent schedule.
pub const SGS_ANNEAL_HYPERBOLIC: u32 = 2;

/// `sgs_svgd_config.scale`: raw coordinates (the default): the bandwidth and the step are in the
/// units of x.
pub const SGS_SCALE_NONE: u32 = 0;
/// `sgs_svgd_config.scale`: SVGD in `u = (x − c)/s` with `c` and `s` the particles' mean and
/// standard deviation per coordinate, recomputed at the start of every iteration: the bandwidth
/// (or the median heuristic) and the step are in units of the particles' spread; the target's
/// score is `s∘∇ₓlog π`, the particles move by `s∘Δu`. Its fixed point is still π. Two more
/// passes over the particles per iteration, no random numbers.
pub const SGS_SCALE_PARTICLES: u32 = 1;
/// `sgs_svgd_config.scale`: as `SGS_SCALE_PARTICLES` but with the scales `s` set by
/// `sgs_svgd_set_scale` (e.g. a pilot run's standard deviations; all ones until set); the
/// centre `c` is still the particles' mean.
pub const SGS_SCALE_FIXED: u32 = 2;

/// `sgs_svgd_config.ksd`: no KSD (NaN in the info); the default.
pub const SGS_KSD_OFF: u32 = 0;
/// `sgs_svgd_config.ksd`: the unbiased random-batch estimate of KSD² over the iteration's own
/// batches, O(p·N·d), no extra random numbers.
pub const SGS_KSD_BATCH: u32 = 1;
/// `sgs_svgd_config.ksd`: the full V-statistic KSD², O(N²·d), no random numbers.
pub const SGS_KSD_FULL: u32 = 2;

/// What one SVGD iteration did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_svgd_info {
    /// Iterations done since init, this one included.
    pub iteration: u64,
    /// Kernel evaluations (unordered pairs of batch mates) of the iteration.
    pub interactions: u64,
    /// The kernel bandwidth h the iteration used (NaN for the IMQ kernel).
    pub bandwidth: f64,
    /// The step size the iteration used (η/k for the decaying rule).
    pub step_size: f64,
    /// Mean of |φ_i| over the particle moves of the iteration.
    pub mean_force: f64,
    /// Largest |φ_i| of the iteration.
    pub max_force: f64,
    /// KSD² of the particles at the start of the iteration, as `sgs_svgd_config.ksd` asks
    /// (the batch estimate may be negative; the KSD is its square root); NaN when off, and
    /// for an iteration in phases with forces put in (`sgs_svgd_forces_put`).
    pub ksd_squared: f64,
}

/// Totals of an `sgs_svgd_run`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct sgs_svgd_run_summary {
    /// Iterations completed (also on error).
    pub iterations: u64,
    /// Equal to `iterations` (an SVGD iteration either moves every particle or nothing).
    pub accepted: u64,
    /// Always 0 (a non-finite value is an error for SVGD, not a divergence).
    pub divergences: u64,
    /// 1 if `last` holds the last completed iteration, 0 if none completed (then `last` is all
    /// zero).
    pub has_last: u32,
    /// Always 0 (padding made explicit).
    pub reserved: u32,
    /// Info of the last completed iteration.
    pub last: sgs_svgd_info,
}

c_summary!(
    sgs_svgd_run_summary,
    sgs_svgd_info,
    sgs_svgd_info {
        iteration: 0,
        interactions: 0,
        bandwidth: 0.0,
        step_size: 0.0,
        mean_force: 0.0,
        max_force: 0.0,
        ksd_squared: 0.0,
    }
);

/// An SVGD particle system on `double` coordinates, in caller memory. Opaque: fill it with
/// `sgs_svgd_init`; zero-initialise it first (`sgs_svgd s = {{0}};`).
#[repr(C)]
pub struct sgs_svgd {
    // `MaybeUninit` words, as for the chains' states (see `chain_states!`).
    _opaque: [core::mem::MaybeUninit<u64>; 64],
}

/// An SVGD particle system on `float` coordinates, in caller memory (see `sgs_svgd`).
#[repr(C)]
pub struct sgs_svgd_f32 {
    _opaque: [core::mem::MaybeUninit<u64>; 64],
}

/// The fixed part of an SVGD state: what `init` recorded, checksummed.
#[repr(C)]
pub(super) struct SvgdFixed<T> {
    hdr: Header,
    particles: *mut T,
    n_coords: usize,
    ws: *mut T,
    ws_len: usize,
    idx: *mut u32,
    idx_len: usize,
    n: usize,
    d: usize,
    gradient: Option<RawGradient<T>>,
    gradients: Option<RawGradients<T>>,
    user_data: *mut c_void,
}

impl<T> Clone for SvgdFixed<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SvgdFixed<T> {}

impl<T> Fixed for SvgdFixed<T> {
    fn header(&self) -> &Header {
        &self.hdr
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.hdr
    }
    fn fields(&self, h: &mut Hasher) {
        h.word(self.particles as usize as u64);
        h.word(self.n_coords as u64);
        h.word(self.ws as usize as u64);
        h.word(self.ws_len as u64);
        h.word(self.idx as usize as u64);
        h.word(self.idx_len as u64);
        h.word(self.n as u64);
        h.word(self.d as u64);
        h.word(self.gradient.map_or(0, |f| f as usize) as u64);
        h.word(self.gradients.map_or(0, |f| f as usize) as u64);
        h.word(self.user_data as usize as u64);
    }
    fn consistent(&self) -> bool {
        self.n != 0
            && self.d != 0
            && self.n.checked_mul(self.d) == Some(self.n_coords)
            && self.idx_len >= self.n
            && (self.gradient.is_some() || self.gradients.is_some())
            && check_array(self.particles, self.n_coords).is_ok()
            && check_array(self.ws, self.ws_len).is_ok()
            && check_array(self.idx, self.idx_len).is_ok()
    }
}

impl<T> SvgdFixed<T> {
    /// The state and every buffer it records, for overlap checks of outputs.
    pub(super) fn spans<S>(&self, state: *const S) -> [Span; 4] {
        [
            Span::of(state, 1),
            Span::of(self.particles, self.n_coords),
            Span::of(self.ws, self.ws_len),
            Span::of(self.idx, self.idx_len),
        ]
    }
}

/// The Rust state in an `sgs_svgd` / `sgs_svgd_f32`: the fixed part, the core, and the
/// iteration in phases under way (`sgs_svgd_begin` … `finish`/`cancel`), if any. Only the core
/// and the pending iteration are ever borrowed; the fixed part is read by value.
#[repr(C)]
pub(super) struct State<T> {
    fx: SvgdFixed<T>,
    pub(super) core: SvgdCore<KernelChoice>,
    pending: PendingSlot<KernelParams<T>, T>,
}

/// The iteration in phases under way, if any: a flag word and the raw value. Not an `Option`:
/// storing an `Option`'s `None` copies the whole `Option` from a temporary whose payload bytes
/// are uninitialised (stack garbage, addresses included), so after `cancel` or a failed `finish`
/// the caller's state memory held other bytes than before `begin` (the fuzz target found it).
/// All-zero bytes are the empty slot, so clearing is a `write_bytes`.
#[repr(C)]
pub(super) struct PendingSlot<P, T> {
    /// 1 while an iteration is under way, 0 otherwise.
    some: usize,
    value: core::mem::MaybeUninit<Pending<P, T>>,
}

impl<P, T> PendingSlot<P, T> {
    /// The empty slot, all bytes zero.
    fn empty() -> Self {
        PendingSlot {
            some: 0,
            value: core::mem::MaybeUninit::zeroed(),
        }
    }
    /// The iteration under way, if any.
    pub(super) fn get(&self) -> Option<&Pending<P, T>> {
        // SAFETY: `some` is 1 only after `put` wrote a value (and `take`/`clear` reset it).
        (self.some == 1).then(|| unsafe { self.value.assume_init_ref() })
    }
    /// Stores the iteration begun.
    pub(super) fn put(&mut self, p: Pending<P, T>) {
        self.value.write(p);
        self.some = 1;
    }
    /// Takes the iteration under way out and leaves the slot empty (all bytes zero).
    pub(super) fn take(&mut self) -> Option<Pending<P, T>> {
        // SAFETY: as in `get`; the value is read once and the slot then emptied.
        let p = (self.some == 1).then(|| unsafe { self.value.assume_init_read() });
        self.clear();
        p
    }
    /// Empties the slot: all its bytes zero.
    pub(super) fn clear(&mut self) {
        // SAFETY: all-zero bytes are a valid empty slot (`some` 0, the value uninitialised).
        unsafe { (self as *mut Self).write_bytes(0, 1) };
    }
}

const _: () = {
    assert!(size_of::<State<f64>>() <= size_of::<sgs_svgd>());
    assert!(align_of::<State<f64>>() <= align_of::<sgs_svgd>());
    assert!(size_of::<State<f32>>() <= size_of::<sgs_svgd_f32>());
    assert!(align_of::<State<f32>>() <= align_of::<sgs_svgd_f32>());
};

/// Workspace elements of type `T` the C layer adds after the core's layout: the `u32` progress
/// words of the iteration in phases (see `phases`: four bitmaps of one bit per permutation
/// slot, and a flag word), rounded up to whole elements.
fn flag_elems<T>(n: usize) -> usize {
    phases::progress_words(n)
        .saturating_mul(4)
        .div_ceil(size_of::<T>())
}

/// The workspace the C layer needs: the core's layout, then the progress words.
fn c_need<T>(core: &SvgdCore<KernelChoice>) -> usize {
    core.workspace_needed()
        .saturating_add(flag_elems::<T>(core.n))
}

pub(super) const TAG_F64: u64 = u64::from_le_bytes(*b"sgsSVG64");
pub(super) const TAG_F32: u64 = u64::from_le_bytes(*b"sgsSVG32");

/// The caller's per-point or batched gradient callback as a Rust model.
struct SvgdModel<T> {
    gradient: Option<RawGradient<T>>,
    gradients: Option<RawGradients<T>>,
    user_data: *mut c_void,
}

impl<T: Float> Gradient<T> for SvgdModel<T> {
    fn gradient(&mut self, x: &[T], seed: u64, grad: &mut [T]) -> Result<(), Stop> {
        let s = match (self.gradients, self.gradient) {
            // SAFETY: live slices of the stated lengths; the callback contract.
            (Some(f), _) => unsafe {
                f(
                    self.user_data,
                    x.as_ptr(),
                    1,
                    x.len(),
                    seed,
                    grad.as_mut_ptr(),
                )
            },
            // SAFETY: as above.
            (None, Some(f)) => unsafe {
                f(self.user_data, x.as_ptr(), x.len(), seed, grad.as_mut_ptr())
            },
            (None, None) => SGS_CB_ABORT,
        };
        stop_of(s)
    }

    fn gradients(&mut self, xs: &[T], d: usize, seed: u64, grads: &mut [T]) -> Result<(), Stop> {
        match self.gradients {
            Some(f) => {
                let n = xs.len().checked_div(d).unwrap_or(0);
                // SAFETY: `xs` and `grads` are live slices of n·d values.
                let s = unsafe { f(self.user_data, xs.as_ptr(), n, d, seed, grads.as_mut_ptr()) };
                stop_of(s)
            }
            // `chunks_exact` panics on a zero chunk size; d ≥ 1 is checked at init and on
            // every entry, and this guard lets the compiler drop the panic path.
            None if d == 0 => Err(Stop::Abort),
            None => {
                for (x, g) in xs.chunks_exact(d).zip(grads.chunks_exact_mut(d)) {
                    self.gradient(x, seed, g)?;
                }
                Ok(())
            }
        }
    }
}

fn config_from(c: &sgs_svgd_config) -> Result<SvgdConfig<KernelChoice>, Error> {
    let batching = match c.batching {
        SGS_BATCHING_WITHOUT_REPLACEMENT => Batching::WithoutReplacement,
        SGS_BATCHING_WITH_REPLACEMENT => Batching::WithReplacement,
        _ => return Err(Error::InvalidOption),
    };
    let kernel = match c.kernel {
        SGS_KERNEL_GAUSSIAN => KernelChoice::Gaussian { h: c.bandwidth },
        SGS_KERNEL_GAUSSIAN_MEDIAN => KernelChoice::GaussianMedian,
        SGS_KERNEL_IMQ => KernelChoice::InverseMultiquadric {
            c: c.imq_c,
            beta: c.imq_beta,
        },
        _ => return Err(Error::InvalidOption),
    };
    let eta = c.step_size;
    let step_rule = match c.step_rule {
        SGS_STEP_RULE_CONSTANT => StepRule::Constant { eta },
        SGS_STEP_RULE_DECAYING => StepRule::Decaying { eta },
        SGS_STEP_RULE_ADAGRAD => StepRule::AdaGrad {
            eta,
            alpha: c.adagrad_alpha,
        },
        _ => return Err(Error::InvalidOption),
    };
    let stein = SteinImq {
        c: c.ksd_c,
        beta: c.ksd_beta,
    };
    let ksd = match c.ksd {
        SGS_KSD_OFF => KsdChoice::Off,
        SGS_KSD_BATCH => KsdChoice::Batch(stein),
        SGS_KSD_FULL => KsdChoice::Full(stein),
        _ => return Err(Error::InvalidOption),
    };
    let scale = match c.scale {
        SGS_SCALE_NONE => Scale::None,
        SGS_SCALE_PARTICLES => Scale::Particles,
        SGS_SCALE_FIXED => Scale::Fixed,
        _ => return Err(Error::InvalidOption),
    };
    let anneal = match c.anneal {
        SGS_ANNEAL_OFF => Anneal::Off,
        SGS_ANNEAL_CYCLICAL => Anneal::Cyclical {
            iterations: c.anneal_iterations,
            cycles: c.anneal_cycles,
            power: c.anneal_power,
        },
        SGS_ANNEAL_HYPERBOLIC => Anneal::Hyperbolic {
            iterations: c.anneal_iterations,
            power: c.anneal_power,
        },
        _ => return Err(Error::InvalidOption),
    };
    let permutation = match c.permutation {
        SGS_PERMUTATION_SHUFFLE => Permutation::Shuffle,
        SGS_PERMUTATION_FEISTEL => Permutation::Feistel,
        _ => return Err(Error::InvalidOption),
    };
    if c.reserved != 0 || c.ksd_reserved != 0 || c.scale_reserved != 0 {
        return Err(Error::InvalidOption);
    }
    let batch_size = usize::try_from(c.batch_size).map_err(|_| Error::InvalidBatchSize)?;
    Ok(SvgdConfig {
        batch_size,
        batching,
        kernel,
        step_rule,
        seed: c.seed,
        stream: c.stream,
        ksd,
        scale,
        anneal,
        permutation,
    })
}

pub(super) fn info_from(i: &SvgdInfo) -> sgs_svgd_info {
    sgs_svgd_info {
        iteration: i.iteration,
        interactions: i.interactions,
        bandwidth: i.bandwidth,
        step_size: i.step_size,
        mean_force: i.mean_force,
        max_force: i.max_force,
        ksd_squared: i.ksd_squared,
    }
}

/// # Safety
/// `config`, when non-null, must be readable.
unsafe fn ws_len<T: Float>(n: usize, d: usize, config: *const sgs_svgd_config) -> usize {
    if check_ptr(config).is_err() {
        return 0;
    }
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    match config_from(unsafe { &config.read() }) {
        Ok(cfg) => workspace_len::<T, KernelChoice>(n, d, &cfg).saturating_add(flag_elems::<T>(n)),
        Err(_) => 0,
    }
}

/// # Safety
/// The C contract of `sgs_svgd_init`.
#[allow(clippy::too_many_arguments)]
unsafe fn init<T: Float, S>(
    tag: u64,
    state: *mut S,
    config: *const sgs_svgd_config,
    particles: *mut T,
    n: usize,
    d: usize,
    ws: *mut T,
    ws_len: usize,
    idx: *mut u32,
    idx_len: usize,
    gradient: Option<RawGradient<T>>,
    gradients: Option<RawGradients<T>>,
    user_data: *mut c_void,
) -> Result<(), Error> {
    check_ptr(state)?;
    check_ptr(config)?;
    check_ptr(particles)?;
    check_ptr(ws)?;
    check_ptr(idx)?;
    if gradient.is_none() && gradients.is_none() {
        return Err(Error::NullPointer);
    }
    let coords = n.checked_mul(d).ok_or(Error::InvalidArgument)?;
    check_array(particles, coords)?;
    check_array(ws, ws_len)?;
    check_array(idx, idx_len)?;
    if overlap(particles, coords, ws, ws_len)
        || overlap(particles, coords, idx, idx_len)
        || overlap(ws, ws_len, idx, idx_len)
        || overlap(state, 1, particles, coords)
        || overlap(state, 1, ws, ws_len)
        || overlap(state, 1, idx, idx_len)
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null and aligned; the caller's contract.
    unsafe {
        refuse_if_busy(state, tag)?;
        refuse_if_open::<T, S>(state, tag)?;
    }
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if n == 0 {
        return Err(Error::ZeroParticles);
    }
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    let cfg = config_from(unsafe { &config.read() })?;
    // The progress words after the core's layout are the C layer's: checked here, before the
    // core writes anything.
    let core_need = workspace_len::<T, KernelChoice>(n, d, &cfg);
    if core_need != usize::MAX && ws_len < core_need.saturating_add(flag_elems::<T>(n)) {
        return Err(Error::WorkspaceTooSmall);
    }
    // SAFETY: checked above; the three buffers are pairwise disjoint.
    let (xs, ws_slice, idx_slice) = unsafe {
        (
            core::slice::from_raw_parts(particles, coords),
            workspace(ws, ws_len),
            core::slice::from_raw_parts_mut(idx, idx_len),
        )
    };
    let core = SvgdCore::new(&cfg, d, xs, ws_slice, idx_slice)?;
    let mut fx = SvgdFixed {
        hdr: Header {
            tag: 0,
            busy: 0,
            token: 0,
            home: 0,
        },
        particles,
        n_coords: coords,
        ws,
        ws_len,
        idx,
        idx_len,
        n,
        d,
        gradient,
        gradients,
        user_data,
    };
    seal(&mut fx, tag, state as usize, extra(&core));
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions).
    unsafe {
        store(
            state,
            State::<T> {
                fx,
                core,
                pending: PendingSlot::empty(),
            },
        );
        clear_pending(state.cast::<State<T>>());
    }
    Ok(())
}

/// What the core adds to the checksum: its particle count, dimension and workspace need.
fn extra(core: &SvgdCore<KernelChoice>) -> u64 {
    let mut h = Hasher(0);
    h.word(core.n as u64);
    h.word(core.d as u64);
    h.word(core.workspace_needed() as u64);
    h.0
}

/// The core of a tagged state.
///
/// # Safety
/// `state` tagged; no mutable reference to the core live.
pub(super) unsafe fn core_ref<'a, T, S>(state: *const S) -> &'a SvgdCore<KernelChoice> {
    // SAFETY: contract of the caller.
    unsafe { &*core::ptr::addr_of!((*state.cast::<State<T>>()).core) }
}

/// Validates an SVGD state ([`validate`], [`check_sealed`]) and that the core agrees with the
/// recorded sizes.
///
/// # Safety
/// `state`, when non-null and aligned, must point to a readable `S`.
pub(super) unsafe fn enter<T: Float, S>(
    tag: u64,
    state: *const S,
    allow_moved: bool,
) -> Result<SvgdFixed<T>, Error> {
    // SAFETY: forwarded contract.
    let fx: SvgdFixed<T> = unsafe { validate(state, tag)? };
    // SAFETY: tagged: an init stored a `State` here (its core is plain data).
    let core = unsafe { core_ref::<T, S>(state) };
    check_sealed(&fx, state, extra(core), allow_moved)?;
    if core.n != fx.n || core.d != fx.d || fx.ws_len < c_need::<T>(core) {
        return Err(Error::StateCorrupted);
    }
    Ok(fx)
}

/// Empties the pending iteration slot of a state (all its bytes zero), so that a state whose
/// iteration was cancelled or failed is byte for byte the state before `begin` (the bad-input
/// tests and the fuzz target compare the bytes).
///
/// # Safety
/// `state` points to a writable `State<T>`; no reference to its pending slot live.
unsafe fn clear_pending<T>(state: *mut State<T>) {
    // SAFETY: contract of the caller; all-zero bytes are the empty slot.
    unsafe { core::ptr::addr_of_mut!((*state).pending).write_bytes(0, 1) }
}

/// Whether an iteration in phases is under way on a validated state.
///
/// # Safety
/// `state` validated by [`enter`]; no mutable reference to its pending iteration live.
unsafe fn in_phases<T, S>(state: *const S) -> bool {
    // SAFETY: contract of the caller.
    unsafe {
        (*core::ptr::addr_of!((*state.cast::<State<T>>()).pending))
            .get()
            .is_some()
    }
}

/// `IterationInProgress` when an iteration in phases is under way (for the calls that would
/// write the state or read the regions the phases write).
///
/// # Safety
/// As for [`in_phases`].
pub(super) unsafe fn refuse_in_phases<T, S>(state: *const S) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    if unsafe { in_phases::<T, S>(state) } {
        Err(Error::IterationInProgress)
    } else {
        Ok(())
    }
}

/// One iteration of a validated state, marked busy for its duration.
///
/// # Safety
/// `state` validated (`fx` its fixed part); the buffers recorded at init alive.
pub(super) unsafe fn step_state<T: Float, S>(
    state: *mut S,
    fx: &SvgdFixed<T>,
) -> Result<SvgdInfo, Error> {
    let mut model = SvgdModel {
        gradient: fx.gradient,
        gradients: fx.gradients,
        user_data: fx.user_data,
    };
    // SAFETY: validated; the guard clears the flag on every return.
    let _busy = unsafe { BusyGuard::new(state) };
    // SAFETY: validated. Read before the unique borrow below: a shared reborrow of the core
    // made after it would invalidate it (Stacked Borrows; Miri found it).
    let need =
        unsafe { (*core::ptr::addr_of!((*state.cast::<State<T>>()).core)).workspace_needed() };
    // SAFETY: checked at init, pairwise disjoint, alive by the caller's contract; only the core
    // of the state is borrowed.
    let (core, xs, ws, idx) = unsafe {
        (
            &mut *core::ptr::addr_of_mut!((*state.cast::<State<T>>()).core),
            core::slice::from_raw_parts_mut(fx.particles, fx.n_coords),
            workspace(fx.ws, need),
            core::slice::from_raw_parts_mut(fx.idx, fx.idx_len),
        )
    };
    core.step(xs, ws, idx, &mut model)
}

/// # Safety
/// The C contract of `sgs_svgd_step`.
unsafe fn step<T: Float, S>(
    tag: u64,
    state: *mut S,
    info: *mut sgs_svgd_info,
) -> Result<(), Error> {
    check_opt(info)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let o = Span::of(info, 1);
    if fx.spans(state).iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; the buffers recorded at init.
    let i = unsafe { step_state(state, &fx)? };
    // SAFETY: checked aligned and disjoint from the state and its buffers; NULL skips.
    unsafe { put(info, info_from(&i)) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_svgd_run`: every pointer checked before anything is written, then the
/// shared run loop, whose totals are reported also when it stops early.
unsafe fn run<T: Float, S>(
    tag: u64,
    state: *mut S,
    iterations: u64,
    summary: *mut sgs_svgd_run_summary,
) -> Result<(), Error> {
    check_opt(summary)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let o = Span::of(summary, 1);
    if fx.spans(state).iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; the buffers recorded at init.
    let (result, totals) = match run_iterations(iterations, || unsafe { step_state(state, &fx) }) {
        Ok(t) => (Ok(()), t),
        Err(e) => (Err(e.error), e.partial),
    };
    // SAFETY: checked aligned and disjoint from every buffer; NULL skips.
    unsafe { put(summary, sgs_svgd_run_summary::from_run(&totals, info_from)) };
    result
}

/// Copies the region `which` picks (particles or the last force) into `out`.
///
/// # Safety
/// The C contract of the copying getters.
unsafe fn copy_out<T: Float, S>(
    tag: u64,
    state: *const S,
    which: fn(&SvgdFixed<T>, &SvgdCore<KernelChoice>) -> (*const T, usize),
    during_phases: bool,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // The forces' region is the phases' scratch while an iteration is under way.
    // SAFETY: validated.
    if !during_phases && unsafe { in_phases::<T, S>(state) } {
        return Err(Error::IterationInProgress);
    }
    // SAFETY: validated.
    let (src, len) = which(&fx, unsafe { core_ref::<T, S>(state) });
    // SAFETY: `src..src+len` lies in a buffer checked at init.
    unsafe { copy_to_caller(&fx.spans(state), src, len, out, out_len) }
}

fn particles_of<T>(fx: &SvgdFixed<T>, _: &SvgdCore<KernelChoice>) -> (*const T, usize) {
    (fx.particles, fx.n_coords)
}

fn force_of<T>(fx: &SvgdFixed<T>, core: &SvgdCore<KernelChoice>) -> (*const T, usize) {
    let (off, len) = core.force_range();
    // SAFETY (of the later read): the workspace holds the whole layout (`enter` checked its
    // length against the core's need), of which the force region `off..off + len` is a part.
    (fx.ws.wrapping_add(off), len)
}

/// Writes `f(core)` to `*out`, which must not overlap the state or its buffers.
///
/// # Safety
/// The C contract of the value getters.
pub(super) unsafe fn get<T: Float, S, V>(
    tag: u64,
    state: *const S,
    out: *mut V,
    f: impl FnOnce(&SvgdCore<KernelChoice>) -> V,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    let v = f(unsafe { core_ref::<T, S>(state) });
    // SAFETY: checked non-null and aligned.
    unsafe { write_out(out, &fx.spans(state), v) }
}

/// `IterationInProgress` when `state` holds a valid state of this type with an iteration in
/// phases under way: the calls that overwrite a whole state (clear, init, copy into it) refuse
/// it, because its range calls may be running (the ranges do not mark the state busy: they may
/// run concurrently). Anything else (never initialised, cleared, another type) passes.
///
/// # Safety
/// `state` non-null, aligned and readable as an `S`.
unsafe fn refuse_if_open<T: Float, S>(state: *const S, tag: u64) -> Result<(), Error> {
    // SAFETY: contract of the caller; a state that does not validate has no iteration.
    if unsafe { enter::<T, S>(tag, state, true) }.is_ok() {
        // SAFETY: validated.
        unsafe { refuse_in_phases::<T, S>(state)? };
    }
    Ok(())
}

/// `sgs_svgd_clear`: as every sampler's clear, but a valid state with an iteration in phases
/// under way is refused (`IterationInProgress`): its range calls may be running.
///
/// # Safety
/// The C contract of `sgs_svgd_clear`.
unsafe fn clear_state<T: Float, S>(state: *mut S, tag: u64) -> Result<(), Error> {
    // SAFETY: contract of the caller.
    unsafe { refuse_if_open::<T, S>(state, tag)? };
    // SAFETY: contract of the caller.
    unsafe { clear(state, tag) }
}

/// `sgs_svgd_copy`: an independent copy of `src` in `dst` over the new buffers (particles,
/// workspace and index contents copied), or, when `dst` is `src` with its own buffers, the
/// re-homing of a state that was moved byte-wise.
///
/// # Safety
/// The C contract of `sgs_svgd_copy`.
#[allow(clippy::too_many_arguments)]
unsafe fn copy<T: Float, S>(
    tag: u64,
    dst: *mut S,
    particles: *mut T,
    particles_len: usize,
    ws: *mut T,
    ws_len: usize,
    idx: *mut u32,
    idx_len: usize,
    src: *const S,
) -> Result<(), Error> {
    check_ptr(dst)?;
    check_ptr(particles)?;
    check_ptr(ws)?;
    check_ptr(idx)?;
    check_ptr(src)?;
    check_array(particles, particles_len)?;
    check_array(ws, ws_len)?;
    check_array(idx, idx_len)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, src, true)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(src)? };
    // SAFETY: checked non-null and aligned.
    unsafe {
        refuse_if_busy(dst, tag)?;
        refuse_if_open::<T, S>(dst, tag)?;
    }
    let in_place = dst.cast_const() == src
        && (particles, particles_len) == (fx.particles, fx.n_coords)
        && (ws, ws_len) == (fx.ws, fx.ws_len)
        && (idx, idx_len) == (fx.idx, fx.idx_len);
    let [s0, s1, s2, s3] = fx.spans(src);
    let spans = [
        Span::of(dst, 1),
        Span::of(particles, particles_len),
        Span::of(ws, ws_len),
        Span::of(idx, idx_len),
        s0,
        s1,
        s2,
        s3,
    ];
    if !in_place && any_overlap(&spans) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated.
    let core = unsafe { core_ref::<T, S>(src) }.clone();
    if particles_len != fx.n_coords {
        return Err(Error::LengthMismatch);
    }
    let need = core.workspace_needed();
    if ws_len < c_need::<T>(&core) || idx_len < fx.n {
        return Err(Error::WorkspaceTooSmall);
    }
    let mut nfx = fx;
    nfx.particles = particles;
    nfx.ws = ws;
    nfx.ws_len = ws_len;
    nfx.idx = idx;
    nfx.idx_len = idx_len;
    seal(&mut nfx, tag, dst as usize, extra(&core));
    if in_place {
        // SAFETY: `dst` is `src`, validated: only the fixed part is rewritten.
        unsafe { dst.cast::<SvgdFixed<T>>().write(nfx) };
        return Ok(());
    }
    // SAFETY: every buffer checked, pairwise disjoint and long enough; `dst` non-null, aligned,
    // large enough (compile-time assertions), disjoint from the source.
    unsafe {
        core::ptr::copy_nonoverlapping(fx.particles, particles, fx.n_coords);
        core::ptr::copy_nonoverlapping(fx.ws, ws, need);
        core::ptr::copy_nonoverlapping(fx.idx, idx, fx.n);
        store(
            dst,
            State::<T> {
                fx: nfx,
                core,
                pending: PendingSlot::empty(),
            },
        );
        clear_pending(dst.cast::<State<T>>());
    }
    Ok(())
}

/// `sgs_svgd_set_scale`: every pointer checked, the state validated (no iteration in phases
/// under way), then the core's checks; nothing is written on refusal.
///
/// # Safety
/// The C contract of `sgs_svgd_set_scale`.
unsafe fn set_scale<T: Float, S>(
    tag: u64,
    state: *mut S,
    scale: *const T,
    scale_len: usize,
) -> Result<(), Error> {
    check_array(scale, scale_len)?;
    // SAFETY: contract of the caller.
    let fx: SvgdFixed<T> = unsafe { enter(tag, state, false)? };
    // SAFETY: validated.
    unsafe { refuse_in_phases::<T, S>(state)? };
    let i = Span::of(scale, scale_len);
    if fx.spans(state).iter().any(|s| Span::overlaps(&i, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: validated; no iteration in phases, so no range call reads the workspace; the
    // workspace was checked at init and `scale` is a valid array disjoint from it.
    let (core, ws, values) = unsafe {
        let core = core_ref::<T, S>(state);
        (
            core,
            workspace(fx.ws, core.workspace_needed()),
            core::slice::from_raw_parts(scale, scale_len),
        )
    };
    core.set_scale(ws, values)
}

/// Sets the fixed scales of an SVGD system configured with `SGS_SCALE_FIXED`: `scale` holds d
/// values (`scale_len` = d), each finite and positive, e.g. a pilot run's posterior standard
/// deviations; the next iterations run in `u = (x − c)/s` with them (docs/algorithms.md §2.7).
/// They are kept in the workspace (copied by `sgs_svgd_copy`); all ones until set.
///
/// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, overlapping
/// the state or one of its buffers, or a value not finite and positive), the state's validation
/// statuses (`SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`,
/// `SGS_ERR_STATE_MOVED`), `SGS_ERR_ITERATION_IN_PROGRESS` (an iteration in phases is under way),
/// `SGS_ERR_INVALID_OPTION` (the system's `scale` is not `SGS_SCALE_FIXED`),
/// `SGS_ERR_LENGTH_MISMATCH` (`scale_len` ≠ d). On error nothing is modified.
///
/// # Safety
/// `state` valid with its buffers alive; `scale` valid for `scale_len` values.
#[no_mangle]
pub unsafe extern "C" fn sgs_svgd_set_scale(
    state: *mut sgs_svgd,
    scale: *const f64,
    scale_len: usize,
) -> sgs_status {
    // SAFETY: forwarded C contract.
    to_status(unsafe { set_scale::<f64, sgs_svgd>(TAG_F64, state, scale, scale_len) })
}

/// `sgs_svgd_set_scale` for a `float` system.
///
/// # Safety
/// As for `sgs_svgd_set_scale`.
#[no_mangle]
pub unsafe extern "C" fn sgs_svgd_set_scale_f32(
    state: *mut sgs_svgd_f32,
    scale: *const f32,
    scale_len: usize,
) -> sgs_status {
    // SAFETY: forwarded C contract.
    to_status(unsafe { set_scale::<f32, sgs_svgd_f32>(TAG_F32, state, scale, scale_len) })
}

macro_rules! svgd_api {
    (
        float = $T:ty, ctype = $ctype:literal, state = $S:ident, tag = $tag:expr,
        gradient_fn = $G:ident, gradients_fn = $GS:ident, workspace_len = $ws_len:ident, state_size = $size:ident, state_align = $align:ident,
        index_len = $index_len:ident, init = $init:ident, step = $step:ident, run = $run:ident,
        particles = $particles:ident, force = $force:ident, iterations = $iterations:ident,
        num_particles = $num_particles:ident, dim = $dim:ident, clear = $clear:ident,
        copy = $copy:ident,
    ) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, for `n` particles in")]
        /// dimension `d` under `*config`: gradients and forces (N·d each without replacement,
        /// p·d with), the AdaGrad history (N·d, AdaGrad only), without replacement the
        /// positions by permutation slot (N·d), with replacement p·d batch positions and N·d
        /// (+ N·d for AdaGrad) working copies, N(N−1)/2 for the median kernel, 2·d with the
        /// scale option (the scales and the centres), and the
        /// bookkeeping of the iteration in phases, 4·⌈N/32⌉ + 1 four-byte words (rounded up to
        /// whole elements). SIZE_MAX when the size overflows; 0 when `config` is NULL or misaligned or
        /// has an unknown option (init then names the problem).
        ///
        /// # Safety
        /// `config`, when non-null, must point to a readable config.
        #[no_mangle]
        pub unsafe extern "C" fn $ws_len(n: usize, d: usize, config: *const sgs_svgd_config) -> usize {
            // SAFETY: forwarded C contract.
            unsafe { ws_len::<$T>(n, d, config) }
        }

        /// Length of the index buffer (`uint32_t` elements) for `n` particles: `n`.
        #[no_mangle]
        pub extern "C" fn $index_len(n: usize) -> usize {
            n
        }

        #[doc = concat!(" Starts an SVGD / RBM-SVGD system of `n` particles of dimension `d` (`", $ctype, "`).")]
        ///
        /// `particles` (`n·d` values, row by row) is the state: the sampler moves the particles
        /// in place, and the caller may read them (or change them, keeping them finite) between
        /// calls. `workspace` (`…_workspace_len(n, d, config)` elements) keeps the AdaGrad
        /// history (and the scale option's scales) between iterations and is scratch otherwise;
        /// `index` (`…_index_len(n)` `uint32_t`s) is scratch. The three buffers must not overlap each
        /// other or `state`, and must stay alive (with the callbacks and `user_data`) while the
        /// state is used. Give `gradient` (called once per particle) or `gradients` (called once
        /// per iteration, or per sub-step with replacement, with all points; used when both are
        /// given). A callback REJECT stops the iteration with `SGS_ERR_GRADIENT_REJECTED`
        /// (nothing moves).
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER` (a buffer, or both callbacks),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers, n·d overflowing,
        /// N ≥ 2³²), `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_OPTION`
        /// (batching, kernel or step rule unknown, `reserved` ≠ 0), `SGS_ERR_INVALID_BATCH_SIZE`
        /// (p < 2 or p > N), `SGS_ERR_INVALID_BANDWIDTH`, `SGS_ERR_INVALID_KERNEL`,
        /// `SGS_ERR_INVALID_STEP_SIZE`, `SGS_ERR_INVALID_STEP_RULE` (α ∉ [0, 1)),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL` (workspace or index), `SGS_ERR_INVALID_POSITION`.
        /// `SGS_ERR_BUSY` (called from the gradient callback of the system in `*state`),
        /// `SGS_ERR_ITERATION_IN_PROGRESS` (`*state` holds a system whose iteration in phases is
        /// under way: finish or cancel it first). On error `*state` and the buffers are not
        /// modified. The state records its own address
        /// (a byte-wise copy is refused with `SGS_ERR_STATE_MOVED`; use `copy`).
        ///
        /// # Safety
        /// Pointers must be valid for the stated lengths; callbacks must follow their contract.
        #[no_mangle]
        pub unsafe extern "C" fn $init(
            state: *mut $S,
            config: *const sgs_svgd_config,
            particles: *mut $T,
            n: usize,
            d: usize,
            workspace: *mut $T,
            workspace_len: usize,
            index: *mut u32,
            index_len: usize,
            gradient: $G,
            gradients: $GS,
            user_data: *mut c_void,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                init::<$T, $S>(
                    $tag, state, config, particles, n, d, workspace, workspace_len, index,
                    index_len, gradient, gradients, user_data,
                )
            })
        }

        /// One iteration: every particle moves once along its (random-batch) Stein force.
        /// Writes what happened to `*info` unless NULL.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`
        /// (called from the system's own callback), `SGS_ERR_STATE_CORRUPTED`,
        /// `SGS_ERR_STATE_MOVED` (see the chain samplers' init),
        /// `SGS_ERR_ITERATION_IN_PROGRESS` (an iteration in phases is under way),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned `info`, or `info` inside the state, the
        /// particles, the workspace or the index), `SGS_ERR_INVALID_POSITION` (the caller made a particle
        /// non-finite), `SGS_ERR_CALLBACK_ABORTED`, `SGS_ERR_GRADIENT_REJECTED` (a callback
        /// REJECTed a point), or `SGS_ERR_NON_FINITE` (a gradient was not finite, or an update
        /// would not be finite). On an error the particles,
        /// the AdaGrad history and the generator are exactly as before the call.
        ///
        /// # Safety
        /// `state` must be a valid state whose buffers and callbacks are alive.
        #[no_mangle]
        pub unsafe extern "C" fn $step(state: *mut $S, info: *mut sgs_svgd_info) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { step::<$T, $S>($tag, state, info) })
        }

        /// Runs `iterations` iterations (0 succeeds and does nothing). `*summary` (unless NULL;
        /// checked before anything runs, written also on error) gets the number completed and
        /// the info of the last one. Statuses as for the step function, plus
        /// `SGS_ERR_INVALID_ARGUMENT` for a `summary` inside the state or a buffer; on an error
        /// the particles are those after the last completed iteration.
        ///
        /// # Safety
        /// As for the step function.
        #[no_mangle]
        pub unsafe extern "C" fn $run(
            state: *mut $S,
            iterations: u64,
            summary: *mut sgs_svgd_run_summary,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { run::<$T, $S>($tag, state, iterations, summary) })
        }

        /// `sizeof` of the state struct, for bindings that allocate it themselves.
        #[no_mangle]
        pub extern "C" fn $size() -> usize {
            size_of::<$S>()
        }

        /// The alignment the state struct needs.
        #[no_mangle]
        pub extern "C" fn $align() -> usize {
            align_of::<$S>()
        }

        /// Copies the particles (N·d values, row by row) into `out` (capacity `out_len`).
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, the state's validation statuses
        /// (`SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`,
        /// `SGS_ERR_STATE_MOVED`), `SGS_ERR_INVALID_ARGUMENT` (misaligned, or overlapping the
        /// state, the particles, the workspace or the index) or `SGS_ERR_OUTPUT_TOO_SMALL`.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $particles(state: *const $S, out: *mut $T, out_len: usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { copy_out::<$T, $S>($tag, state, particles_of::<$T>, true, out, out_len) })
        }

        /// Copies the forces φ of the last iteration into `out`: N·d values (row i is particle
        /// i) without replacement, p·d (the last sub-step's batch, in draw order) with. Not
        /// meaningful before the first iteration or after a failed one. Statuses as for the
        /// particles getter.
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` elements.
        #[no_mangle]
        pub unsafe extern "C" fn $force(state: *const $S, out: *mut $T, out_len: usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { copy_out::<$T, $S>($tag, state, force_of::<$T>, false, out, out_len) })
        }

        /// Writes the number of iterations done to `*iterations`. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or inside the state
        /// or one of its buffers) or the state's validation statuses.
        ///
        /// # Safety
        /// `state` valid; `iterations` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $iterations(state: *const $S, iterations: *mut u64) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, u64>($tag, state, iterations, |c| c.iterations()) })
        }

        /// Writes the number of particles N to `*n`. Statuses as for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `n` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $num_particles(state: *const $S, n: *mut usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, usize>($tag, state, n, |c| c.n) })
        }

        /// Writes the dimension d to `*d`. Statuses as for the iterations getter.
        ///
        /// # Safety
        /// `state` valid; `d` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $dim(state: *const $S, d: *mut usize) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { get::<$T, $S, usize>($tag, state, d, |c| c.d) })
        }

        /// Invalidates an SVGD state: zeroes `*state`, so that every later call on it (but
        /// `init`) returns `SGS_ERR_NOT_INITIALISED`. The particles, workspace and index are not
        /// touched. Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT`
        /// (misaligned), `SGS_ERR_BUSY` (called from the system's gradient callback) or
        /// `SGS_ERR_ITERATION_IN_PROGRESS` (an iteration in phases is under way: its range calls
        /// may be running; finish or cancel it first).
        ///
        /// # Safety
        /// `state` valid for writes of the whole struct.
        #[no_mangle]
        pub unsafe extern "C" fn $clear(state: *mut $S) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { clear_state::<$T, $S>(state, $tag) })
        }

        /// Makes `*dst` an independent copy of the SVGD system `*src` over new buffers: the
        /// particles (`particles_len` = N·d), the workspace (at least as long as the source
        /// system needs: `…_workspace_len(n, d, config)`) and the index (≥ N) get the source's
        /// contents, and the copy continues exactly as the source would. It shares the callbacks
        /// and `user_data`. A byte-wise copy of a state is refused with `SGS_ERR_STATE_MOVED`;
        /// `src` may be such a moved state (its buffers alive), and `copy(s, …s's buffers…, s)`
        /// re-homes it in place.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or
        /// any of the eight regions overlapping, other than the in-place re-homing),
        /// `SGS_ERR_NOT_INITIALISED`, `SGS_ERR_STATE_CORRUPTED`, `SGS_ERR_BUSY`,
        /// `SGS_ERR_ITERATION_IN_PROGRESS` (`*src`, or a system in `*dst`, has an iteration in
        /// phases under way), `SGS_ERR_LENGTH_MISMATCH` (`particles_len` ≠ N·d),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL`. On error nothing is modified.
        ///
        /// # Safety
        /// `src` valid with its buffers alive; `dst` writable; the buffers valid for their
        /// lengths.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $copy(
            dst: *mut $S,
            particles: *mut $T,
            particles_len: usize,
            workspace: *mut $T,
            workspace_len: usize,
            index: *mut u32,
            index_len: usize,
            src: *const $S,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                copy::<$T, $S>(
                    $tag, dst, particles, particles_len, workspace, workspace_len, index,
                    index_len, src,
                )
            })
        }
    };
}

/// The paper's RBM-SVGD settings: batch size p, a Gaussian kernel with the fixed bandwidth
/// h = 1 (set `bandwidth` to your problem's scale: the paper uses h = 2 on its 1-D mixture),
/// AdaGrad with step size η and α = 0.9, without replacement, seed 0, stream 0 (the IMQ fields
/// are c = 1, β = 0.5 for when the kernel is switched). The cost per iteration is O(p·N·d).
/// The median heuristic (`SGS_KERNEL_GAUSSIAN_MEDIAN`) is not the default because it costs
/// O(N²) time and N(N−1)/2 workspace elements per iteration whatever p is. The KSD is off
/// (`ksd_c` = 1, `ksd_beta` = −0.5 for when it is switched on), and so is the scale option
/// (`SGS_SCALE_NONE`: set `SGS_SCALE_PARTICLES` for a problem whose coordinates are on
/// different scales). Nothing is validated here;
/// `sgs_svgd_init` does that.
#[no_mangle]
pub extern "C" fn sgs_svgd_config_default(batch_size: u64, step_size: f64) -> sgs_svgd_config {
    sgs_svgd_config {
        step_size,
        adagrad_alpha: 0.9,
        bandwidth: 1.0,
        imq_c: 1.0,
        imq_beta: 0.5,
        batch_size,
        seed: 0,
        stream: 0,
        batching: SGS_BATCHING_WITHOUT_REPLACEMENT,
        kernel: SGS_KERNEL_GAUSSIAN,
        step_rule: SGS_STEP_RULE_ADAGRAD,
        reserved: 0,
        ksd: SGS_KSD_OFF,
        ksd_reserved: 0,
        ksd_c: 1.0,
        ksd_beta: -0.5,
        scale: SGS_SCALE_NONE,
        scale_reserved: 0,
        anneal: SGS_ANNEAL_OFF,
        permutation: SGS_PERMUTATION_SHUFFLE,
        anneal_iterations: 0,
        anneal_cycles: 1,
        anneal_power: 1.0,
    }
}

svgd_api! {
    float = f64, ctype = "double", state = sgs_svgd, tag = TAG_F64,
    gradient_fn = sgs_gradient_fn, gradients_fn = sgs_gradients_fn,
    workspace_len = sgs_svgd_workspace_len, state_size = sgs_svgd_state_size,
    state_align = sgs_svgd_state_align, index_len = sgs_svgd_index_len,
    init = sgs_svgd_init, step = sgs_svgd_step, run = sgs_svgd_run,
    particles = sgs_svgd_particles, force = sgs_svgd_force, iterations = sgs_svgd_iterations,
    num_particles = sgs_svgd_num_particles, dim = sgs_svgd_dim, clear = sgs_svgd_clear,
    copy = sgs_svgd_copy,
}

svgd_api! {
    float = f32, ctype = "float", state = sgs_svgd_f32, tag = TAG_F32,
    gradient_fn = sgs_gradient_fn_f32, gradients_fn = sgs_gradients_fn_f32,
    workspace_len = sgs_svgd_workspace_len_f32, state_size = sgs_svgd_state_size_f32,
    state_align = sgs_svgd_state_align_f32, index_len = sgs_svgd_index_len_f32,
    init = sgs_svgd_init_f32, step = sgs_svgd_step_f32, run = sgs_svgd_run_f32,
    particles = sgs_svgd_particles_f32, force = sgs_svgd_force_f32,
    iterations = sgs_svgd_iterations_f32, num_particles = sgs_svgd_num_particles_f32,
    dim = sgs_svgd_dim_f32, clear = sgs_svgd_clear_f32, copy = sgs_svgd_copy_f32,
}
