//! The minibatch helper through the C ABI.

use super::common::{check_array, to_status};
use super::sgs_status;
use crate::error::Error;

/// Fills `out[0..len]` with `len` distinct indices drawn uniformly from `0..n`, in random order,
/// as a pure function of `(seed, n, len)`: the indices a gradient callback should use for the
/// minibatch seed it was given. Identical to the Rust `sgsample::minibatch`.
///
/// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`out` NULL, even when `len` is 0),
/// `SGS_ERR_INVALID_ARGUMENT` (misaligned `out`, or `len` so large that `len` indices would
/// not fit in the address space: checked first) or `SGS_ERR_INVALID_MINIBATCH` (`len > n` or
/// `n = 0`; `out` is not modified).
///
/// # Safety
/// `out` must be valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn sgs_minibatch(seed: u64, n: u64, out: *mut u64, len: usize) -> sgs_status {
    to_status((|| -> Result<(), Error> {
        check_array(out, len)?;
        // SAFETY: checked non-null, aligned and of representable length; valid per the contract.
        let out = unsafe { core::slice::from_raw_parts_mut(out, len) };
        crate::minibatch(seed, n, out)
    })())
}
