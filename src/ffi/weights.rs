//! Importance weights for SVGD particles through the C ABI: `sgs_particle_weights…`,
//! `sgs_median_bandwidth…`, and the draws from the particles' kernel density estimate with their
//! weights, `sgs_kde_draws…` and `sgs_kde_weights…`, on caller buffers (docs/algorithms.md §2.9).

use super::common::*;
use super::sgs_status;
use crate::error::Error;
use crate::float::Float;
use crate::svgd::{kde_draws, kde_weights, median_bandwidth, particle_weights};

/// # Safety
/// The C contract of `sgs_particle_weights`.
unsafe fn compute_weights<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    energies: *const f64,
    h: f64,
    out: *mut f64,
    ess: *mut f64,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(energies)?;
    check_ptr(out)?;
    let len = rows_len(n, d)?;
    check_array(x, len)?;
    check_array(energies, n)?;
    check_array(out, n)?;
    if !ess.is_null() {
        check_array(ess, 1)?;
    }
    let outs = [Span::of(out, n), Span::of(ess, usize::from(!ess.is_null()))];
    let ins = [Span::of(x, len), Span::of(energies, n)];
    if Span::overlaps(&outs[0], &outs[1])
        || outs
            .iter()
            .any(|o| ins.iter().any(|i| Span::overlaps(o, i)))
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned and in range; the caller's contract. The outputs are
    // disjoint from the inputs and from each other.
    let (xs, vs, ws) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts(energies, n),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    let e = particle_weights(xs, d, vs, h, ws)?;
    if !ess.is_null() {
        // SAFETY: checked above (non-null, aligned, disjoint from the rest).
        unsafe { ess.write(e) };
    }
    Ok(())
}

/// # Safety
/// The C contract of `sgs_median_bandwidth`.
unsafe fn compute_bandwidth<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    scratch: *mut T,
    scratch_len: usize,
    h: *mut f64,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(scratch)?;
    check_ptr(h)?;
    let len = rows_len(n, d)?;
    check_array(x, len)?;
    check_array(scratch, scratch_len)?;
    check_array(h, 1)?;
    let (sx, ss, sh) = (
        Span::of(x, len),
        Span::of(scratch, scratch_len),
        Span::of(h, 1),
    );
    if Span::overlaps(&ss, &sx) || Span::overlaps(&sh, &sx) || Span::overlaps(&sh, &ss) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned, in range and disjoint; the caller's contract.
    let (xs, sc) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts_mut(scratch, scratch_len),
        )
    };
    let v = median_bandwidth(xs, d, sc)?;
    // SAFETY: as above.
    unsafe { h.write(v) };
    Ok(())
}

/// # Safety
/// The C contract of `sgs_kde_draws`.
unsafe fn compute_kde_draws<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    h: f64,
    seed: u64,
    y: *mut T,
    m: usize,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(y)?;
    let len = rows_len(n, d)?;
    let ylen = rows_len(m, d)?;
    check_array(x, len)?;
    check_array(y, ylen)?;
    if Span::overlaps(&Span::of(x, len), &Span::of(y, ylen)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned, in range and disjoint; the caller's contract.
    let (xs, ys) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts_mut(y, ylen),
        )
    };
    kde_draws(xs, d, h, seed, ys)
}

/// # Safety
/// The C contract of `sgs_kde_weights`.
#[allow(clippy::too_many_arguments)]
unsafe fn compute_kde_weights<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    h: f64,
    y: *const T,
    m: usize,
    energies: *const f64,
    out: *mut f64,
    ess: *mut f64,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(y)?;
    check_ptr(energies)?;
    check_ptr(out)?;
    let len = rows_len(n, d)?;
    let ylen = rows_len(m, d)?;
    check_array(x, len)?;
    check_array(y, ylen)?;
    check_array(energies, m)?;
    check_array(out, m)?;
    if !ess.is_null() {
        check_array(ess, 1)?;
    }
    let outs = [Span::of(out, m), Span::of(ess, usize::from(!ess.is_null()))];
    let ins = [Span::of(x, len), Span::of(y, ylen), Span::of(energies, m)];
    if Span::overlaps(&outs[0], &outs[1])
        || outs
            .iter()
            .any(|o| ins.iter().any(|i| Span::overlaps(o, i)))
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned and in range; the caller's contract. The outputs are
    // disjoint from the inputs and from each other.
    let (xs, ys, vs, ws) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts(y, ylen),
            core::slice::from_raw_parts(energies, m),
            core::slice::from_raw_parts_mut(out, m),
        )
    };
    let e = kde_weights(xs, d, h, ys, vs, ws)?;
    if !ess.is_null() {
        // SAFETY: checked above (non-null, aligned, disjoint from the rest).
        unsafe { ess.write(e) };
    }
    Ok(())
}

macro_rules! weights_api {
    ($T:ty, $ctype:literal, $weights:ident, $median:ident, $draws:ident, $kdew:ident) => {
        #[doc = concat!(" Importance weights for `n` SVGD particles `x` (`", $ctype, "`, `n·d` values row by row)")]
        /// (docs/algorithms.md §2.9): `w_i ∝ π(x_i) / q̂(x_i)`, with `energies[i] = V(x_i) =
        /// −ln π(x_i) + const` (any constant, the same for all) and `q̂` the Gaussian kernel
        /// density estimate of the particles with bandwidth `h`, `exp(−r²/(2h))` (the SVGD
        /// kernel's convention; `sgs_median_bandwidth` gives the median-heuristic h). They
        /// correct how many particles each region holds, e.g. the modes' shares that SVGD and
        /// annealed SVGD get wrong, but put no weight where there are no particles. Writes the n
        /// weights (summing to 1) to `weights` and, unless `ess` is NULL, their effective sample
        /// size `1/Σ w_i²` to `*ess`. O(n²·d) time, no memory beyond the outputs. An energy of
        /// `+∞` gives weight 0. Nothing is random.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`x`, `energies`, `weights`),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_ARGUMENT`
        /// (misaligned, n·d overflowing, an output overlapping an input or the other output),
        /// `SGS_ERR_INVALID_BANDWIDTH` (h not finite and positive), `SGS_ERR_NON_FINITE` (a
        /// coordinate not finite, an energy NaN or `−∞`, or every energy `+∞`); nothing written
        /// on error.
        ///
        /// # Safety
        /// `x` valid for `n·d` reads, `energies` for n, `weights` for n writes, `ess` (unless
        /// NULL) for one.
        #[no_mangle]
        pub unsafe extern "C" fn $weights(
            x: *const $T,
            n: usize,
            d: usize,
            energies: *const f64,
            h: f64,
            weights: *mut f64,
            ess: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { compute_weights(x, n, d, energies, h, weights, ess) })
        }

        #[doc = concat!(" The median-heuristic bandwidth of `n` particles `x` (`", $ctype, "`, row by row):")]
        /// `h = med²/(2 ln n)`, med the median pairwise distance, the bits the median kernel
        /// (`SGS_KERNEL_GAUSSIAN_MEDIAN`) would use for an iteration starting from these
        /// particles (1 for one particle or a zero median). `scratch` holds at least
        /// `n(n−1)/2` coordinates of the particles' type; writes h to `*h`.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_ZERO_DIMENSION`,
        /// `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, n·d overflowing,
        /// buffers overlapping), `SGS_ERR_WORKSPACE_TOO_SMALL` (`scratch_len` < n(n−1)/2),
        /// `SGS_ERR_NON_FINITE` (a coordinate not finite); `*h` unchanged on error.
        ///
        /// # Safety
        /// `x` valid for `n·d` reads, `scratch` for `scratch_len` writes, `h` for one.
        #[no_mangle]
        pub unsafe extern "C" fn $median(
            x: *const $T,
            n: usize,
            d: usize,
            scratch: *mut $T,
            scratch_len: usize,
            h: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { compute_bandwidth(x, n, d, scratch, scratch_len, h) })
        }

        #[doc = concat!(" Draws `m` points from the Gaussian kernel density estimate of `n` particles `x` (`", $ctype, "`, row by row)")]
        /// with bandwidth `h` (kernel `exp(−r²/(2h))`, covariance `h·I`) into `y` (`m·d`
        /// values, row by row): each draw a particle chosen uniformly plus `√h` times a standard
        /// normal vector, from the generator seeded with `(seed, stream "kdedraws")`, in the
        /// order docs/algorithms.md §2.9 states (the particle index, then the d normals). A pure
        /// function of `(x, h, seed)`; a prefix of a longer fill is the shorter fill. With
        /// `sgs_kde_weights` this is importance sampling with the particles as the proposal,
        /// which recovers π's mode masses where the particles hold them in the wrong proportions.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`x`, `y`), `SGS_ERR_ZERO_DIMENSION`,
        /// `SGS_ERR_ZERO_PARTICLES` (n or m = 0), `SGS_ERR_INVALID_ARGUMENT` (misaligned, a length overflowing, `y` overlapping `x`),
        /// `SGS_ERR_INVALID_BANDWIDTH` (h not finite and positive), `SGS_ERR_NON_FINITE` (a
        /// coordinate not finite); nothing written on error.
        ///
        /// # Safety
        /// `x` valid for `n·d` reads, `y` for `m·d` writes.
        #[no_mangle]
        pub unsafe extern "C" fn $draws(
            x: *const $T,
            n: usize,
            d: usize,
            h: f64,
            seed: u64,
            y: *mut $T,
            m: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { compute_kde_draws(x, n, d, h, seed, y, m) })
        }

        #[doc = concat!(" Importance weights of `m` draws `y` (`", $ctype, "`, row by row, e.g. from `sgs_kde_draws`) for the target with")]
        /// energies `energies[k] = V(y_k) = −ln π(y_k) + const`, with the Gaussian kernel
        /// density estimate of the particles `x` (n of them, bandwidth `h`: those the draws
        /// came from) as the proposal: `w_k ∝ π(y_k)/q̂(y_k)` (docs/algorithms.md §2.9), so
        /// that `Σ w_k f(y_k)` estimates `E_π f`. Writes the m weights (summing to 1) to
        /// `weights` and, unless `ess` is NULL, their effective sample size `1/Σ w_k²` to
        /// `*ess`. O(m·n·d) time, no memory beyond the outputs. An energy of `+∞` gives weight
        /// 0. Nothing is random.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`x`, `y`, `energies`, `weights`),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES` (n or m = 0),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, a length overflowing, an output overlapping
        /// an input or the other output), `SGS_ERR_INVALID_BANDWIDTH`, `SGS_ERR_NON_FINITE` (a
        /// coordinate not finite, an energy NaN or `−∞`, or every energy `+∞`); nothing
        /// written on error.
        ///
        /// # Safety
        /// `x` valid for `n·d` reads, `y` for `m·d`, `energies` for m, `weights` for m writes,
        /// `ess` (unless NULL) for one.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $kdew(
            x: *const $T,
            n: usize,
            d: usize,
            h: f64,
            y: *const $T,
            m: usize,
            energies: *const f64,
            weights: *mut f64,
            ess: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { compute_kde_weights(x, n, d, h, y, m, energies, weights, ess) })
        }
    };
}

weights_api!(
    f64,
    "double",
    sgs_particle_weights,
    sgs_median_bandwidth,
    sgs_kde_draws,
    sgs_kde_weights
);
weights_api!(
    f32,
    "float",
    sgs_particle_weights_f32,
    sgs_median_bandwidth_f32,
    sgs_kde_draws_f32,
    sgs_kde_weights_f32
);
