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

/// The values in `n` rows of `d`: [`Error::ZeroDimension`] for d = 0, [`Error::ZeroParticles`]
/// for n = 0, [`Error::InvalidArgument`] when n·d overflows (the shape checks of the functions
/// that take a caller's draws or particles, in that order).
pub(crate) fn rows_len(n: usize, d: usize) -> Result<usize, Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    if n == 0 {
        return Err(Error::ZeroParticles);
    }
    n.checked_mul(d).ok_or(Error::InvalidArgument)
}

/// `true` when the byte ranges of two caller buffers intersect.
pub(crate) fn overlap<A, B>(a: *const A, a_len: usize, b: *const B, b_len: usize) -> bool {
    let (a0, b0) = (a as usize, b as usize);
    let a1 = a0.saturating_add(a_len.saturating_mul(size_of::<A>()));
    let b1 = b0.saturating_add(b_len.saturating_mul(size_of::<B>()));
    a0 < b1 && b0 < a1
}

/// The first three words of every sampler state in caller memory.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Header {
    /// The sampler and float type (0 before `init` in a zeroed state).
    pub(crate) tag: u64,
    /// Non-zero while a `step` or `run` on this state is under way (re-entrancy guard).
    pub(crate) busy: u32,
    /// [`token`] of the fixed fields (and of what the sampler adds, such as the dimension).
    pub(crate) token: u32,
    /// The address of the state when `init` (or `copy`) filled it.
    pub(crate) home: usize,
}

/// The part of a stored state that stays fixed from `init` on: the header, then the buffers,
/// sizes and callbacks the pointers depend on. Every bit pattern must be a valid value (integers,
/// raw pointers, `Option`s of function pointers), so a corrupted state can be read and judged.
pub(crate) trait Fixed: Copy {
    /// The header (first field).
    fn header(&self) -> &Header;
    /// The header, mutably.
    fn header_mut(&mut self) -> &mut Header;
    /// Feeds every field after the header to `h`.
    fn fields(&self, h: &mut Hasher);
    /// Cheap consistency of the fields among themselves (dimension non-zero, lengths that agree).
    fn consistent(&self) -> bool;
}

/// A 64-bit mixing checksum (not cryptographic: it detects accidents, not adversaries).
pub(crate) struct Hasher(pub(crate) u64);

impl Hasher {
    /// Mixes one word in.
    pub(crate) fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

/// The checksum of the tag, the home address, the fixed fields and `extra` (what the sampler
/// adds from its core, such as the dimension).
pub(crate) fn token<F: Fixed>(f: &F, extra: u64) -> u32 {
    let mut h = Hasher(0x7367_7353_7461_7465);
    h.word(f.header().tag);
    h.word(f.header().home as u64);
    f.fields(&mut h);
    h.word(extra);
    (h.0 ^ (h.0 >> 32)) as u32
}

/// Marks fixed fields as belonging to a state stored at address `at`: tagged, not busy, home
/// `at`, and the checksum.
pub(crate) fn seal<F: Fixed>(f: &mut F, tag: u64, at: usize, extra: u64) {
    let hd = f.header_mut();
    hd.tag = tag;
    hd.busy = 0;
    hd.home = at;
    hd.token = 0;
    let t = token(f, extra);
    f.header_mut().token = t;
}

/// The first checks on every entry: the pointer (`NullPointer`, misaligned: `InvalidArgument`),
/// the tag (`NotInitialised`) and the busy flag (`Busy`). Returns a copy of the fixed fields, to
/// be judged by [`check_sealed`]; no reference to the state is created.
///
/// # Safety
/// `p`, when non-null and aligned, must point to a readable `S` whose first bytes are an `F`.
pub(crate) unsafe fn validate<S, F: Fixed>(p: *const S, tag: u64) -> Result<F, Error> {
    debug_assert!(size_of::<F>() <= size_of::<S>() && align_of::<F>() <= align_of::<S>());
    check_ptr(p)?;
    let h = p.cast::<Header>();
    // SAFETY: `p` is non-null and aligned; the first words of `S` are a header.
    if unsafe { core::ptr::addr_of!((*h).tag).read() } != tag {
        return Err(Error::NotInitialised);
    }
    // SAFETY: as above.
    if unsafe { core::ptr::addr_of!((*h).busy).read() } != 0 {
        return Err(Error::Busy);
    }
    // SAFETY: as above; every bit pattern is a valid `F` (see `Fixed`).
    Ok(unsafe { p.cast::<F>().read() })
}

/// The checksum (with the sampler's `extra`) and the consistency of the fixed fields
/// (`StateCorrupted`), then — unless `allow_moved` — whether the state is still at the address
/// `p` it was filled at (`StateMoved`).
pub(crate) fn check_sealed<S, F: Fixed>(
    f: &F,
    p: *const S,
    extra: u64,
    allow_moved: bool,
) -> Result<(), Error> {
    if token(f, extra) != f.header().token || !f.consistent() {
        return Err(Error::StateCorrupted);
    }
    if !allow_moved && f.header().home != p as usize {
        return Err(Error::StateMoved);
    }
    Ok(())
}

/// Fills the whole opaque struct at `dst` with `v` (an `S` is at least as large and aligned as a
/// `V`). Every byte of `*dst` is zeroed first, so that the tail `v` does not cover holds no stale
/// bytes of what was there before. The padding inside `v` is still uninitialised after the typed
/// write (Rust semantics, which Miri checks); that is why the opaque structs are declared as
/// `MaybeUninit` words, so that a by-value copy of a state (`s2 = s1;`) is defined in Rust too.
///
/// # Safety
/// `dst` non-null, aligned and writable for an `S`; `S` at least as large and aligned as `V`.
pub(crate) unsafe fn store<S, V>(dst: *mut S, v: V) {
    debug_assert!(size_of::<V>() <= size_of::<S>() && align_of::<V>() <= align_of::<S>());
    // SAFETY: contract of the caller.
    unsafe {
        dst.write_bytes(0, 1);
        dst.cast::<V>().write(v);
    }
}

/// `Busy` when `p` holds a state of this `tag` that is in a call (for `init`, `clear` and the
/// destination of `copy`, which may hold anything, initialised or not).
///
/// # Safety
/// `p` must be non-null, aligned, and readable for a header.
pub(crate) unsafe fn refuse_if_busy<S>(p: *const S, tag: u64) -> Result<(), Error> {
    let h = p.cast::<Header>();
    // SAFETY: contract of the caller.
    let (t, busy) = unsafe {
        (
            core::ptr::addr_of!((*h).tag).read(),
            core::ptr::addr_of!((*h).busy).read(),
        )
    };
    if t == tag && busy != 0 {
        Err(Error::Busy)
    } else {
        Ok(())
    }
}

/// `sgs_…_clear`: zeroes a state (so that its later use is `NotInitialised`), unless it is busy.
///
/// # Safety
/// `p`, when non-null and aligned, must point to a writable `S`.
pub(crate) unsafe fn clear<S>(p: *mut S, tag: u64) -> Result<(), Error> {
    check_ptr(p)?;
    // SAFETY: checked non-null and aligned; the caller's contract.
    unsafe {
        refuse_if_busy(p, tag)?;
        p.write_bytes(0, 1);
    }
    Ok(())
}

/// Sets the busy flag of a validated state for the guard's lifetime, so that a callback calling
/// back into the same state gets `Busy`. The flag is written through the raw state pointer, never
/// through a reference, and the sampler's own references cover only the core, not the header.
/// (A callback that `longjmp`s out leaves the flag set: that is outside the callback contract;
/// `clear`/`init` cannot then recover the state, zeroing it with `memset` can.)
pub(crate) struct BusyGuard(*mut Header);

impl BusyGuard {
    /// Marks `p` busy.
    ///
    /// # Safety
    /// `p` must be a validated state, writable.
    pub(crate) unsafe fn new<S>(p: *mut S) -> BusyGuard {
        let h = p.cast::<Header>();
        // SAFETY: contract of the caller.
        unsafe { core::ptr::addr_of_mut!((*h).busy).write(1) };
        BusyGuard(h)
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        // SAFETY: `new`'s pointer, still valid: the guard lives within the call.
        unsafe { core::ptr::addr_of_mut!((*self.0).busy).write(0) };
    }
}

/// Checks a value getter's `out` (non-null, aligned, disjoint from every span of `state`) and
/// writes `v` to it.
///
/// # Safety
/// A non-null, aligned `out` must be valid for writes.
pub(crate) unsafe fn write_out<V>(out: *mut V, spans: &[Span], v: V) -> Result<(), Error> {
    let o = Span::of(out, 1);
    if spans.iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked (by the caller) non-null and aligned, and disjoint from the state.
    unsafe { out.write(v) };
    Ok(())
}

/// The tail of every copying getter: copies `len` elements at `src` into the caller's `out`
/// (capacity `out_len`), refusing an `out` that is not a valid array, that overlaps one of the
/// `spans` (the state and every buffer it records: `InvalidArgument`), or that is too short
/// (`OutputTooSmall`).
///
/// # Safety
/// `src..src + len` must lie in one of the `spans`, checked at init; a valid `out` array must be
/// writable.
pub(crate) unsafe fn copy_to_caller<T>(
    spans: &[Span],
    src: *const T,
    len: usize,
    out: *mut T,
    out_len: usize,
) -> Result<(), Error> {
    check_output(spans, out, out_len, len)?;
    // SAFETY: contract of the caller; `out` is disjoint from every buffer `src` can lie in.
    unsafe { core::ptr::copy_nonoverlapping(src, out, len) };
    Ok(())
}

/// The checks of every copying getter's output: a valid array (`NullPointer`, `InvalidArgument`
/// when misaligned), disjoint from the `spans` (`InvalidArgument`), with room for `len` values
/// (`OutputTooSmall`).
pub(crate) fn check_output<T>(
    spans: &[Span],
    out: *mut T,
    out_len: usize,
    len: usize,
) -> Result<(), Error> {
    check_array(out, out_len)?;
    let o = Span::of(out, out_len);
    if spans.iter().any(|s| Span::overlaps(&o, s)) {
        return Err(Error::InvalidArgument);
    }
    if out_len < len {
        return Err(Error::OutputTooSmall);
    }
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

impl Span {
    /// `true` when both spans are non-empty and intersect.
    pub(crate) fn overlaps(a: &Span, b: &Span) -> bool {
        a.start < a.end && b.start < b.end && a.start < b.end && b.start < a.end
    }
}

/// `true` when two of the spans intersect (empty spans intersect nothing).
pub(crate) fn any_overlap(spans: &[Span]) -> bool {
    spans
        .iter()
        .enumerate()
        .any(|(i, a)| spans.iter().skip(i + 1).any(|b| Span::overlaps(a, b)))
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
