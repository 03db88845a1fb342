#!/usr/bin/env bash
# The demos: AMAGOLD and SGHMC on the double well, moments against the truth (Rust); then the
# C/C++ examples of examples-c/ (the papers' experiments through the C API), each printing its
# table against the known truth.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p sgsample --features std --example double_well
make -C examples-c demo
