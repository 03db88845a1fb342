//! The C library: the `sgsample` crate's C API (`sgsample::ffi`) linked into a staticlib and a
//! cdylib, plus the panic handler a `no_std` library artifact needs.
//!
//! This crate exists because the core crate must stay an rlib: cargo builds every crate type of a
//! dependency, and a `no_std` staticlib must carry a `#[panic_handler]`, which would collide with
//! the handler of any firmware that links the rlib.
//!
//! # `rust_eh_personality` on hosted targets
//!
//! The host's precompiled `core` is built for unwinding, and its object code references the
//! unwinding personality routine `rust_eh_personality`, which only `std` defines. The C library
//! is shipped from the workspace's release profile (`panic = "abort"`, `lto = true`,
//! `codegen-units = 1`): fat LTO recompiles `core` together with this crate under
//! `panic = "abort"`, so no reference survives and a C program links `libsgsample.a` with `-lm`
//! alone (`scripts/test-ffi.sh` checks both). We deliberately do not define a stub
//! `rust_eh_personality` here: a C program that also links a Rust `std` library (which defines
//! the real one) would get a duplicate symbol or, worse, our stub in place of the real routine.
//! A build without LTO does reference the symbol; link such a build with `-Wl,--gc-sections`.
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
