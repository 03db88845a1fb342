//! One name for "the target has vector units the SVGD pair loop is tiled for" (`sgs_vector`), so
//! the inline/tiling choices in `fastexp` and `svgd` test one cfg instead of repeating the target
//! list. Cortex-M and other scalar targets do not get it. Also `sgs_avx512` (below).
fn main() {
    println!("cargo:rustc-check-cfg=cfg(sgs_vector)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let simd128 = features.split(',').any(|f| f == "simd128");
    if arch == "x86_64" || arch == "aarch64" || (arch == "wasm32" && simd128) {
        println!("cargo:rustc-cfg=sgs_vector");
    }
    // `sgs_avx512`: the SVGD blocked pair loop gets an AVX-512F copy, chosen at run time on CPUs
    // that have it. `#[target_feature(enable = "avx512f")]` is stable from rustc 1.89; the
    // crate's rust-version is older, so older compilers build without that copy (AVX2 stays).
    println!("cargo:rustc-check-cfg=cfg(sgs_avx512)");
    if arch == "x86_64" && rustc_minor().is_some_and(|minor| minor >= 89) {
        println!("cargo:rustc-cfg=sgs_avx512");
    }
}

/// The minor version of the compiler building the crate (`rustc 1.MINOR.PATCH …`).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}
