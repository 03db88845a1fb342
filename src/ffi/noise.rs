//! Seed-derived noise through the C ABI: what a callback turns its minibatch seed into when its
//! gradient is itself random, reproducibly and at native speed.

use super::common::{check_array, to_status};
use super::sgs_status;
use crate::error::Error;
use crate::float::Float;

/// The body of the four fill functions: checks `out`, then fills it.
///
/// # Safety
/// `out` valid for `n` writes.
unsafe fn fill<T: Float>(out: *mut T, n: usize, f: fn(u64, &mut [T]), seed: u64) -> sgs_status {
    to_status((|| -> Result<(), Error> {
        check_array(out, n)?;
        // SAFETY: checked non-null, aligned and of representable length; valid per the contract.
        f(seed, unsafe { core::slice::from_raw_parts_mut(out, n) });
        Ok(())
    })())
}

/// Fills `out[0..n]` with standard normals as a pure function of `(seed, n)`, identical to the
/// Rust `sgsample::noise::normal_from_seed`: the generator PCG64-DXSM seeded with `(seed, stream
/// 0x676175737369616e)` (`"gaussian"`), one exact Ziggurat normal (the chains' own) per value in
/// index order (docs/algorithms.md, "Seed-derived noise"). A prefix of a longer fill is the
/// shorter fill.
///
/// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`out` NULL, even when `n` is 0) or
/// `SGS_ERR_INVALID_ARGUMENT` (misaligned `out`, or `n` values would not fit in the address
/// space; nothing written).
///
/// # Safety
/// `out` must be valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_normal(seed: u64, out: *mut f64, n: usize) -> sgs_status {
    // SAFETY: forwarded contract.
    unsafe { fill(out, n, crate::noise::normal_from_seed::<f64>, seed) }
}

/// `sgs_normal` rounded to `float`: the same draws, each rounded once.
///
/// # Safety
/// `out` must be valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_normal_f32(seed: u64, out: *mut f32, n: usize) -> sgs_status {
    // SAFETY: forwarded contract.
    unsafe { fill(out, n, crate::noise::normal_from_seed::<f32>, seed) }
}

/// Fills `out[0..n]` with uniforms in [0, 1) as a pure function of `(seed, n)`, identical to
/// the Rust `sgsample::noise::uniform_from_seed`: the generator seeded with `(seed, stream
/// 0x756e69666f726d73)` (`"uniforms"`), one 64-bit word per value in index order, its top 53
/// bits times 2⁻⁵³. Statuses as for `sgs_normal`.
///
/// # Safety
/// `out` must be valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_uniform(seed: u64, out: *mut f64, n: usize) -> sgs_status {
    // SAFETY: forwarded contract.
    unsafe { fill(out, n, crate::noise::uniform_from_seed::<f64>, seed) }
}

/// `sgs_uniform` with 24 bits: the top 24 bits of the same words times 2⁻²⁴ (the `double`
/// values truncated to `float`'s precision, never rounded up to 1).
///
/// # Safety
/// `out` must be valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_uniform_f32(seed: u64, out: *mut f32, n: usize) -> sgs_status {
    // SAFETY: forwarded contract.
    unsafe { fill(out, n, crate::noise::uniform_from_seed::<f32>, seed) }
}
