#!/usr/bin/env bash
# The Rust tests: unit, integration (statistical, core vs reference) and doc tests, with the std
# reference build on. Release mode: the statistical tests draw millions of samples.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p sgsample --features std
# Formatting (the toolchain's rustfmt; skipped with a note where the component is absent).
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "rustfmt not installed: formatting not checked"
fi
# The API docs build without a warning (broken or ambiguous links), with and without std.
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p sgsample --features std,ffi
echo "rust docs: 2 passed, 0 failed"
