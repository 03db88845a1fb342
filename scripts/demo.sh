#!/usr/bin/env bash
# The demos: AMAGOLD and SGHMC on the double well, moments against the truth.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p sgsample --features std --example double_well
