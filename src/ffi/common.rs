//! What every sampler's C functions share: the callback types and their adapter to the Rust model
//! traits, pointer and buffer checks, and access to a state stored in caller memory.

use crate::error::{Error, Stop};
use crate::float::Float;
use crate::model::{Gradient, Potential};
use core::ffi::c_void;
use core::mem::{align_of, size_of};

/// Callback status: the value was computed.
pub const SGS_CB_OK: i32 = 0;
/// Callback status: the point is outside the target's domain; the proposal is rejected.
pub const SGS_CB_REJECT: i32 = 1;
/// Callback status: stop now. The sampler call returns `SGS_ERR_CALLBACK_ABORTED` and the chain
/// keeps its last accepted state. Any value other than OK and REJECT is treated as ABORT.
pub const SGS_CB_ABORT: i32 = 2;

/// Energy callback (`double` coordinates): writes the full-data energy U(θ) = −log π(θ) + const
/// at `theta` (length `d`) into `*u` and returns an `SGS_CB_…` status. `*u` holds NaN on entry;
/// a non-finite energy counts as a divergence.
pub type sgs_energy_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, theta: *const f64, d: usize, u: *mut f64) -> i32,
>;
/// Energy callback (`float` coordinates; the energy is still a `double`).
pub type sgs_energy_fn_f32 = Option<
    unsafe extern "C" fn(user_data: *mut c_void, theta: *const f32, d: usize, u: *mut f64) -> i32,
>;
/// Stochastic-gradient callback (`double` coordinates): writes ∇Ũ(x) (length `d`) for the
/// minibatch chosen by `minibatch_seed` (e.g. with `sgs_minibatch`) into `grad` and returns an
/// `SGS_CB_…` status. The same seed is passed to every call of one inner step.
pub type sgs_gradient_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        x: *const f64,
        d: usize,
        minibatch_seed: u64,
        grad: *mut f64,
    ) -> i32,
>;
/// Stochastic-gradient callback (`float` coordinates).
pub type sgs_gradient_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        x: *const f32,
        d: usize,
        minibatch_seed: u64,
        grad: *mut f32,
    ) -> i32,
>;

/// Batched gradient callback (`double` coordinates, SVGD): writes ∇V(x_i) (the negative log
/// density's gradient, possibly on a minibatch chosen by `minibatch_seed`) for the `n` points
/// `xs` (`n·d` values, row by row) into `grads` (same shape) and returns an `SGS_CB_…` status.
/// One call serves all particles of an iteration (or of a sub-step), so a model can vectorise.
pub type sgs_gradients_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        xs: *const f64,
        n: usize,
        d: usize,
        minibatch_seed: u64,
        grads: *mut f64,
    ) -> i32,
>;
/// Batched gradient callback (`float` coordinates, SVGD).
pub type sgs_gradients_fn_f32 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        xs: *const f32,
        n: usize,
        d: usize,
        minibatch_seed: u64,
        grads: *mut f32,
    ) -> i32,
>;

/// The batched gradient callback for coordinate type `T`.
pub(crate) type RawGradients<T> =
    unsafe extern "C" fn(*mut c_void, *const T, usize, usize, u64, *mut T) -> i32;

/// The energy callback for coordinate type `T`.
pub(crate) type RawEnergy<T> = unsafe extern "C" fn(*mut c_void, *const T, usize, *mut f64) -> i32;
/// The gradient callback for coordinate type `T`.
pub(crate) type RawGradient<T> =
    unsafe extern "C" fn(*mut c_void, *const T, usize, u64, *mut T) -> i32;

/// OK → value, REJECT → reject, anything else → abort.
pub(crate) fn stop_of(status: i32) -> Result<(), Stop> {
    match status {
        SGS_CB_OK => Ok(()),
        SGS_CB_REJECT => Err(Stop::Reject),
        _ => Err(Stop::Abort),
    }
}

/// The caller's callbacks as a Rust model. `energy` is `None` for samplers that need no energy.
pub(crate) struct CModel<T> {
    pub(crate) energy: Option<RawEnergy<T>>,
    pub(crate) gradient: RawGradient<T>,
    pub(crate) user_data: *mut c_void,
}

impl<T: Float> Gradient<T> for CModel<T> {
    fn gradient(&mut self, x: &[T], seed: u64, grad: &mut [T]) -> Result<(), Stop> {
        // A callback that writes nothing must not silently reuse the previous gradient: NaN
        // makes it a divergence.
        for g in grad.iter_mut() {
            *g = T::from_f64(f64::NAN);
        }
        // SAFETY: the pointers come from live slices of the stated length; the callback's
        // contract is to read `d` values and write `d` values.
        let s = unsafe {
            (self.gradient)(self.user_data, x.as_ptr(), x.len(), seed, grad.as_mut_ptr())
        };
        stop_of(s)
    }
}

impl<T: Float> Potential<T> for CModel<T> {
    fn energy(&mut self, theta: &[T]) -> Result<f64, Stop> {
        let f = self.energy.ok_or(Stop::Abort)?;
        let mut u = f64::NAN;
        // SAFETY: as above; `u` is a live local.
        let s = unsafe { f(self.user_data, theta.as_ptr(), theta.len(), &mut u) };
        stop_of(s)?;
        Ok(u)
    }
}

/// A pointer that must be non-null and aligned for `T`.
pub(crate) fn check_ptr<T>(p: *const T) -> Result<(), Error> {
    if p.is_null() {
        Err(Error::NullPointer)
    } else if !p.is_aligned() {
        Err(Error::InvalidArgument)
    } else {
        Ok(())
    }
}

/// A caller array of `len` elements: non-null, aligned, and small enough to be a Rust slice.
pub(crate) fn check_array<T>(p: *const T, len: usize) -> Result<(), Error> {
    check_ptr(p)?;
    match len.checked_mul(size_of::<T>()) {
        Some(bytes)
            if bytes <= isize::MAX as usize && (p as usize).checked_add(bytes).is_some() =>
        {
            Ok(())
        }
        _ => Err(Error::InvalidArgument),
    }
}

/// `true` when the byte ranges of two caller buffers intersect.
pub(crate) fn overlap<A, B>(a: *const A, a_len: usize, b: *const B, b_len: usize) -> bool {
    let (a0, b0) = (a as usize, b as usize);
    let a1 = a0.saturating_add(a_len.saturating_mul(size_of::<A>()));
    let b1 = b0.saturating_add(b_len.saturating_mul(size_of::<B>()));
    a0 < b1 && b0 < a1
}

/// A sampler state in caller memory: `S` is the opaque C struct, `I` the Rust state stored in it,
/// whose first field is the `u64` tag. Returns the state if the pointer is valid and the tag
/// matches.
///
/// # Safety
/// `p`, when non-null and aligned, must point to a readable (and for `&mut`, writable) `S`.
pub(crate) unsafe fn state_ref<'a, S, I>(p: *const S, tag: u64) -> Result<&'a I, Error> {
    debug_assert!(size_of::<I>() <= size_of::<S>() && align_of::<I>() <= align_of::<S>());
    check_ptr(p)?;
    // SAFETY: `p` is non-null and aligned; the first 8 bytes of `S` are the tag word.
    if unsafe { p.cast::<u64>().read() } != tag {
        return Err(Error::NotInitialised);
    }
    // SAFETY: the tag says a successful init stored an `I` here.
    Ok(unsafe { &*p.cast::<I>() })
}

/// Mutable twin of [`state_ref`].
///
/// # Safety
/// As [`state_ref`], and no other reference to the state may be live.
pub(crate) unsafe fn state_mut<'a, S, I>(p: *mut S, tag: u64) -> Result<&'a mut I, Error> {
    // SAFETY: forwarded contract.
    unsafe { state_ref::<S, I>(p, tag)? };
    // SAFETY: as in `state_ref`, exclusive by the caller's contract.
    Ok(unsafe { &mut *p.cast::<I>() })
}

/// The body of every value getter: checks `out` (so a null `out` is reported before an
/// uninitialised state), finds the state, and writes `f(state)` to `out`.
///
/// # Safety
/// As [`state_ref`]; a non-null, aligned `out` must be valid for writes.
pub(crate) unsafe fn get_value<S, I, V>(
    tag: u64,
    state: *const S,
    out: *mut V,
    f: impl FnOnce(&I) -> V,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let st: &I = unsafe { state_ref(state, tag)? };
    // SAFETY: checked non-null and aligned.
    unsafe { out.write(f(st)) };
    Ok(())
}

/// The tail of every copying getter: copies `len` elements at `src` into the caller's `out`
/// (capacity `out_len`), refusing an `out` that is not a valid array, that overlaps the state or
/// one of its `buffers` (`InvalidArgument`), or that is too short (`OutputTooSmall`).
///
/// # Safety
/// `src..src + len` must lie in one of `buffers`, checked at init; a valid `out` array must be
/// writable.
pub(crate) unsafe fn copy_to_caller<T, S>(
    state: *const S,
    buffers: &[(*const T, usize)],
    src: *const T,
    len: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_array(out, out_len)?;
    if overlap(out, out_len, state, 1) || buffers.iter().any(|&(b, n)| overlap(out, out_len, b, n))
    {
        return Err(Error::InvalidArgument);
    }
    if out_len < len {
        return Err(Error::OutputTooSmall);
    }
    // SAFETY: contract of the caller; `out` is disjoint from every buffer `src` can lie in.
    unsafe { core::ptr::copy_nonoverlapping(src, out, len) };
    Ok(())
}

/// Coordinates of the workspace a stored state points to.
///
/// # Safety
/// `ws` and `len` must be those checked by `init`, and the caller must keep the buffer alive.
pub(crate) unsafe fn workspace<'a, T>(ws: *mut T, len: usize) -> &'a mut [T] {
    // SAFETY: checked at init (non-null, aligned, length representable, disjoint from the state).
    unsafe { core::slice::from_raw_parts_mut(ws, len) }
}

/// Turns a result into a status.
pub(crate) fn to_status(r: Result<(), Error>) -> super::sgs_status {
    match r {
        Ok(()) => super::sgs_status::SGS_OK,
        Err(e) => e.into(),
    }
}

/// The byte range of a caller buffer (empty for NULL).
#[derive(Clone, Copy)]
pub(crate) struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// `len` elements of `T` at `p`.
    pub(crate) fn of<T>(p: *const T, len: usize) -> Span {
        let start = p as usize;
        let bytes = if p.is_null() {
            0
        } else {
            len.saturating_mul(size_of::<T>())
        };
        Span {
            start,
            end: start.saturating_add(bytes),
        }
    }
}

/// `true` when two of the spans intersect (empty spans intersect nothing).
pub(crate) fn any_overlap(spans: &[Span]) -> bool {
    spans.iter().enumerate().any(|(i, a)| {
        spans
            .iter()
            .skip(i + 1)
            .any(|b| a.start < a.end && b.start < b.end && a.start < b.end && b.start < a.end)
    })
}

/// Writes through an optional out-pointer (NULL: nothing is written).
///
/// # Safety
/// A non-null `p` must be valid for writes (alignment is checked by the caller).
pub(crate) unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-null, checked aligned, valid per the contract.
        unsafe { p.write(v) }
    }
}

/// An optional out-pointer: NULL is fine, misaligned is not.
pub(crate) fn check_opt<T>(p: *const T) -> Result<(), Error> {
    if p.is_null() {
        Ok(())
    } else {
        check_ptr(p)
    }
}
