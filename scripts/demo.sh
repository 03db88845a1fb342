#!/usr/bin/env bash
# The demos: AMAGOLD and SGHMC on the double well, moments against the truth (Rust); then the
# C/C++ examples of examples-c/ (the papers' experiments through the C API), each printing its
# table against the known truth.
set -euo pipefail
cd "$(dirname "$0")/.."
# The C/C++ examples need the host C and C++ compilers: installed here if missing (or, without
# root, one line saying what to run under sudo).
scripts/install-deps.sh --check demo >/dev/null || scripts/install-deps.sh demo
cargo run --release -q -p sgsample --features std --example double_well
make -C examples-c demo
