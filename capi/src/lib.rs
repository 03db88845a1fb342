//! The C library: the `sgsample` crate's C API (`sgsample::ffi`) linked into a staticlib and a
//! cdylib, plus the panic handler a `no_std` library artifact needs.
//!
//! This crate exists because the core crate must stay an rlib: cargo builds every crate type of a
//! dependency, and a `no_std` staticlib must carry a `#[panic_handler]`, which would collide with
//! the handler of any firmware that links the rlib.
#![no_std]

pub use sgsample::*;

/// Nothing exported can panic (every index is checked before use), so reaching this handler is a
/// bug; it stops in place rather than unwinding into C code.
#[cfg(not(feature = "std"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
