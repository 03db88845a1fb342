//! The shared library's soname: `libsgsample.so.0.MINOR` while the major version is 0 (a 0.x minor
//! release may change the ABI, so the minor is part of the ABI's name), `libsgsample.so.MAJOR`
//! from 1.0 on. A program linked against one ABI then refuses, at load time, a library of another
//! instead of misreading its structs (docs/abi.md). ELF targets only: elsewhere the name is the
//! linker's default.
fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let mut parts = version.split('.');
    let major = parts.next().unwrap_or("0");
    let minor = parts.next().unwrap_or("0");
    let abi = if major == "0" {
        format!("0.{minor}")
    } else {
        major.to_string()
    };
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    if family == "unix" && os != "macos" && os != "ios" && os != "none" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsgsample.so.{abi}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
