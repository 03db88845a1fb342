#!/usr/bin/env bash
# The Rust tests: unit, integration (statistical, core vs reference) and doc tests, with the std
# reference build on. Release mode: the statistical tests draw millions of samples.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p sgsample --features std
