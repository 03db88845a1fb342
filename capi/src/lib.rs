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
//! alone (`scripts/test-ffi.sh` checks both).
//!
//! A build without LTO (the dev profile, `cargo build -p sgsample-capi`) keeps the reference. For
//! it this crate defines the symbol **weak**, on x86_64 and aarch64 hosts: the link succeeds, and a
//! program that also links a Rust `std` library gets that library's real (strong) routine, with
//! no duplicate-symbol error. The weak body traps: with `panic = "abort"` nothing in the library
//! unwinds, and callbacks must not unwind through it, so a personality routine is never called.
//! The cdylib's export list hides the symbol; other hosts link a dev build with
//! `-Wl,--gc-sections` or use the release build.
#![no_std]

#[cfg(all(not(feature = "std"), not(target_os = "none"), target_arch = "x86_64"))]
core::arch::global_asm!(
    ".pushsection .text.rust_eh_personality,\"ax\",@progbits",
    ".weak rust_eh_personality",
    ".type rust_eh_personality,@function",
    "rust_eh_personality:",
    "ud2",
    ".size rust_eh_personality, . - rust_eh_personality",
    ".popsection",
);

#[cfg(all(not(feature = "std"), not(target_os = "none"), target_arch = "aarch64"))]
core::arch::global_asm!(
    ".pushsection .text.rust_eh_personality,\"ax\",@progbits",
    ".weak rust_eh_personality",
    ".type rust_eh_personality,%function",
    "rust_eh_personality:",
    "brk #1",
    ".size rust_eh_personality, . - rust_eh_personality",
    ".popsection",
);

pub use sgsample::*;

/// Nothing exported can panic: every index is checked before use, and `scripts/test-ffi.sh` and
/// `scripts/test-nostd.sh` check that no panic machinery is linked into the shipped libraries. If
/// a panic were reached anyway it would be a bug, and the library must neither unwind into C nor
/// hang its host: on hosted targets it calls the C library's `abort()` (the C library is always
/// linked with a libc there), which raises SIGABRT like a failed `assert`.
#[cfg(all(not(feature = "std"), not(target_os = "none")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    extern "C" {
        fn abort() -> !;
    }
    // SAFETY: `abort` is the C standard library's, takes nothing and never returns.
    unsafe { abort() }
}

/// On bare metal there is no `abort()`: stop in place (a debugger or the watchdog sees it). As on
/// hosted targets, the tests check that no panic path is linked at all.
#[cfg(all(not(feature = "std"), target_os = "none"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
