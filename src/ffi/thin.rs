//! Stein thinning through the C ABI: `sgs_stein_thin…` and `sgs_stein_thin_scales…` on caller
//! buffers (docs/algorithms.md §6).

use super::common::*;
use super::sgs_status;
use crate::error::Error;
use crate::float::Float;
use crate::svgd::SteinImq;
use crate::thin::{stein_thin, thin_scales, ThinKernel};

/// An optional caller array of `len` values: NULL gives `None`.
///
/// # Safety
/// Non-null `p` valid for `len` reads.
unsafe fn optional<'a>(p: *const f64, len: usize) -> Result<Option<&'a [f64]>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    check_array(p, len)?;
    // SAFETY: checked non-null, aligned, in range; the caller's contract.
    Ok(Some(unsafe { core::slice::from_raw_parts(p, len) }))
}

/// # Safety
/// The C contract of `sgs_stein_thin`.
#[allow(clippy::too_many_arguments)]
unsafe fn thin<T: Float>(
    x: *const T,
    grad: *const T,
    n: usize,
    d: usize,
    scale: *const f64,
    precond: *const f64,
    c: f64,
    beta: f64,
    selected: *mut usize,
    m: usize,
    scratch: *mut f64,
    scratch_len: usize,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(grad)?;
    check_ptr(selected)?;
    check_ptr(scratch)?;
    let len = rows_len(n, d)?;
    check_array(x, len)?;
    check_array(grad, len)?;
    check_array(selected, m)?;
    check_array(scratch, scratch_len)?;
    // SAFETY: the caller's contract (checked inside).
    let (scale_v, precond_v) = unsafe { (optional(scale, d)?, optional(precond, d)?) };
    let outs = [Span::of(selected, m), Span::of(scratch, scratch_len)];
    let ins = [
        Span::of(x, len),
        Span::of(grad, len),
        Span::of(scale, d),
        Span::of(precond, d),
    ];
    if Span::overlaps(&outs[0], &outs[1])
        || outs
            .iter()
            .any(|o| ins.iter().any(|i| Span::overlaps(o, i)))
    {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned and in range; the caller's contract. The outputs are
    // disjoint from the inputs and from each other.
    let (xs, gs, sel, sc) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts(grad, len),
            core::slice::from_raw_parts_mut(selected, m),
            core::slice::from_raw_parts_mut(scratch, scratch_len),
        )
    };
    let kernel = ThinKernel {
        imq: SteinImq { c, beta },
        scale: scale_v,
        precond: precond_v,
    };
    stein_thin(xs, gs, d, &kernel, sel, sc)
}

/// # Safety
/// The C contract of `sgs_stein_thin_scales`.
unsafe fn column_scales<T: Float>(
    x: *const T,
    n: usize,
    d: usize,
    out: *mut f64,
) -> Result<(), Error> {
    check_ptr(x)?;
    check_ptr(out)?;
    let len = rows_len(n, d)?;
    check_array(x, len)?;
    check_array(out, d)?;
    if overlap(out, d, x, len) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null, aligned, in range and disjoint; the caller's contract.
    let (xs, o) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts_mut(out, d),
        )
    };
    thin_scales(xs, d, o)
}

macro_rules! thin_api {
    ($T:ty, $ctype:literal, $thin:ident, $scales:ident) => {
        #[doc = concat!(" Stein thinning (docs/algorithms.md §6): chooses `m` of the `n` draws `x` (`", $ctype, "`,")]
        /// `n·d` values row by row) whose gradients of V = −log π are `grad` (same layout: what
        /// the gradient callbacks return), greedily minimising the kernelized Stein discrepancy
        /// of the chosen set, and writes their row indices to `selected` in the order chosen (a
        /// draw may be chosen more than once). The kernel is the IMQ `(c² + r²)^β` in
        /// standardised, preconditioned coordinates: draws divided and gradients multiplied by
        /// `scale[l]`, squared distances weighted by `precond[l]` (each NULL for all ones, or d
        /// finite positive values; `…_scales` computes the mean-absolute-deviation scales the
        /// `stein-thinning` package standardises with). O(n·m·d) time; `scratch` holds n
        /// doubles. Nothing is random.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`x`, `grad`, `selected`, `scratch`),
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES` (n = 0),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned, n·d overflowing, `selected` or `scratch`
        /// overlapping each other or an input, a scale or preconditioner value not finite and
        /// positive), `SGS_ERR_INVALID_KERNEL` (c not finite and positive, β ∉ (−1, 0)),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL` (`scratch_len` < n), `SGS_ERR_NON_FINITE` (a draw or
        /// gradient not finite: nothing written; or a kernel value overflowed: `selected` holds
        /// the draws chosen before). `m = 0` succeeds and writes nothing.
        ///
        /// # Safety
        /// `x` and `grad` valid for `n·d` reads, `scale` and `precond` (unless NULL) for d,
        /// `selected` for `m` writes and `scratch` for `scratch_len`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $thin(
            x: *const $T,
            grad: *const $T,
            n: usize,
            d: usize,
            scale: *const f64,
            precond: *const f64,
            c: f64,
            beta: f64,
            selected: *mut usize,
            m: usize,
            scratch: *mut f64,
            scratch_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                thin(
                    x, grad, n, d, scale, precond, c, beta, selected, m, scratch, scratch_len,
                )
            })
        }

        #[doc = concat!(" The column scales of `n` draws `x` (`", $ctype, "`, row by row) that the `stein-thinning`")]
        /// package standardises with: each column's mean absolute deviation from its mean,
        /// written to `scales` (d values). Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`,
        /// `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_ARGUMENT`
        /// (misaligned, n·d overflowing, `scales` overlapping `x`, a column whose draws are all
        /// equal), `SGS_ERR_NON_FINITE`; nothing written on error.
        ///
        /// # Safety
        /// `x` valid for `n·d` reads, `scales` for d writes.
        #[no_mangle]
        pub unsafe extern "C" fn $scales(
            x: *const $T,
            n: usize,
            d: usize,
            scales: *mut f64,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { column_scales(x, n, d, scales) })
        }
    };
}

thin_api!(f64, "double", sgs_stein_thin, sgs_stein_thin_scales);
thin_api!(f32, "float", sgs_stein_thin_f32, sgs_stein_thin_scales_f32);
