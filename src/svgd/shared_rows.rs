//! Rows of a buffer that several ranges of an iteration read and write at the same time, each
//! only the rows of its own particles (the moves in place of the phases' ranges): a pointer and
//! a length instead of a slice, so that no range holds a reference to rows another range writes.

use core::marker::PhantomData;

/// A row-major buffer of `d`-coordinate rows, taken one row at a time. Rows outside it are
/// empty (no panic path), as with [`row_mut`](super::rows::row_mut).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedRows<'a, T> {
    ptr: *mut T,
    len: usize,
    d: usize,
    buffer: PhantomData<&'a mut [T]>,
}

impl<'a, T> SharedRows<'a, T> {
    /// The rows of a buffer this call owns for `'a`.
    pub(crate) fn new(buffer: &'a mut [T], d: usize) -> Self {
        SharedRows {
            ptr: buffer.as_mut_ptr(),
            len: buffer.len(),
            d,
            buffer: PhantomData,
        }
    }

    /// The rows of `len` values at `ptr`.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `len` values, aligned, for `'a`, and every row is
    /// accessed as [`row_mut`](Self::row_mut) requires.
    #[cfg(feature = "ffi")]
    pub(crate) unsafe fn from_raw(ptr: *mut T, len: usize, d: usize) -> Self {
        SharedRows {
            ptr,
            len,
            d,
            buffer: PhantomData,
        }
    }

    /// Row `i`, mutable; empty when it lies outside.
    ///
    /// # Safety
    /// While the row is borrowed no other reference to it exists and no other thread accesses
    /// it: each range touches only the rows of its own particles, one row at a time.
    #[inline(always)]
    pub(crate) unsafe fn row_mut(&self, i: usize) -> &'a mut [T] {
        let span = i
            .checked_mul(self.d)
            .and_then(|start| Some((start, start.checked_add(self.d)?)));
        match span {
            // SAFETY: inside the buffer (checked), which is valid (`new`/`from_raw`); exclusive
            // by the caller's contract.
            Some((start, end)) if end <= self.len => unsafe {
                core::slice::from_raw_parts_mut(self.ptr.add(start), self.d)
            },
            _ => &mut [],
        }
    }
}
