//! One name for "the target has vector units the SVGD pair loop is tiled for" (`sgs_vector`), so
//! the inline/tiling choices in `fastexp` and `svgd` test one cfg instead of repeating the target
//! list. Cortex-M and other scalar targets do not get it.
fn main() {
    println!("cargo:rustc-check-cfg=cfg(sgs_vector)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let simd128 = features.split(',').any(|f| f == "simd128");
    if arch == "x86_64" || arch == "aarch64" || (arch == "wasm32" && simd128) {
        println!("cargo:rustc-cfg=sgs_vector");
    }
}
