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
