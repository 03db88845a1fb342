#!/usr/bin/env bash
# The Rust tests: unit, integration (statistical, core vs the reference build in reference/) and
# doc tests, with the C API on. Release mode: the statistical tests draw millions of samples.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh clone's plain commands build every test target (no flags; the oracle is the dev-only
# crate in reference/, not a feature). Checked rather than run: the release runs below run the
# same tests, whose statistical ones draw millions of samples (slow in a debug build).
cargo check -q --tests
cargo check -q --tests --all-features
# The release tests build without fat LTO and with 16 codegen units, in a target directory of
# their own: building the 35 test binaries with LTO and one codegen unit each took most of this
# suite, and LTO changes no result (Rust neither contracts nor reassociates floating point; the
# inlining is all it adds). The library as shipped (LTO) is compared bit for bit with the Rust
# reference output by scripts/test-ffi.sh, and with the firmware under QEMU by test-firmware.sh.
fast=(env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)
"${fast[@]}" CARGO_TARGET_DIR=target/tests cargo test --release -p sgsample --features std,ffi
# Without the default `ksd` feature (as bare-metal builds with default-features = false): a
# configuration asking for the in-iteration KSD is refused.
cargo test -q -p sgsample --no-default-features --features std --lib ksd
# Likewise without the default `svgd-scale` feature: the scale option is refused.
cargo test -q -p sgsample --no-default-features --features std --lib scale
# The rayon-backed `parallel` feature: SVGD on the pool and multi-chain runs, serial bits.
"${fast[@]}" CARGO_TARGET_DIR=target/tests cargo test --release -p sgsample --features parallel --test parallel
# The declared minimum compiler (rust-version in Cargo.toml) builds the library and passes its
# unit tests. It differs from a current compiler in what build.rs enables: before rustc 1.89 the
# SVGD pair loop has no AVX-512 copy (its target feature was not stable yet).
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
if cargo "+$msrv" --version >/dev/null 2>&1; then
  "${fast[@]}" cargo "+$msrv" test -q --release -p sgsample --features std,ffi --lib --target-dir target/msrv
  echo "rust $msrv (rust-version): library unit tests passed"
else
  echo "rust $msrv (rust-version) not installed: not checked (scripts/install-deps.sh installs it)"
fi
# Formatting (the toolchain's rustfmt; skipped with a note where the component is absent).
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "rustfmt not installed: formatting not checked"
fi
# The API docs build without a warning (broken or ambiguous links), with and without std.
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample-reference
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample --features std,ffi
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample --features parallel,ffi
echo "rust docs: 4 passed, 0 failed"
# Clippy with warnings as errors, which includes the MSRV check (clippy::incompatible_msrv against
# rust-version in Cargo.toml) and undocumented unsafe blocks ([lints.clippy] in Cargo.toml):
#   * the no_std builds as shipped: the core alone, and the C library (the core with `ffi`);
#   * every target with no flags, as a fresh clone runs it;
#   * every package and target (lib, tests, benches, examples) with std and the C API on; the
#     capi crate gets its `std` feature from the same flag.
cargo clippy -q -p sgsample --lib -- -D warnings
cargo clippy -q --all-targets -- -D warnings
cargo clippy -q -p sgsample-capi --lib -- -D warnings
cargo clippy -q --workspace --all-targets --features std,ffi -- -D warnings
cargo clippy -q -p sgsample --lib --tests --features parallel,ffi -- -D warnings
echo "clippy: 5 passed, 0 failed"
