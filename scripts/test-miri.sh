#!/usr/bin/env bash
# Miri (nightly) over (a) a bounded subset of the core's unit tests and (b) tests/capi_miri.rs,
# which drives every sampler kind through the C functions from Rust (extern "C" callbacks,
# user_data, an ABORT). Both under Stacked Borrows (Miri's default) and Tree Borrows. libm's
# portable float code is selected with the `soft-floats` feature: Miri cannot run its asm sqrt.
# Skipped, with one line, without a nightly toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "miri: skipped (no nightly toolchain, which Miri needs: rustup toolchain install nightly)"
  exit 0
fi
installed=$(rustup +nightly component list --installed)
for c in miri rust-src; do
  grep -q "^$c" <<<"$installed" || rustup +nightly component add "$c"
done
cargo +nightly miri setup >/dev/null 2>&1 || cargo +nightly miri setup
# The unit tests whose work is small enough for Miri's interpreter (the whole set takes ~6 min;
# `tables_regenerate_bit_for_bit` recomputes the ziggurat tables and is left to the native run).
unit=(
  # select_matches_sorting: minutes under Miri (sorts many random arrays); native runs cover it
  median_of_medians_pivot_is_central
  batches_split_in_any_order_give_the_serial_result
  codes_are_dense_and_messages_plain
  statuses_are_the_error_codes_with_their_messages
  version_matches_cargo_toml
  r_closes_the_top_layer
)
passed=0
failed=0
run() { # name, MIRIFLAGS, cargo miri test arguments…
  local name=$1 flags=$2
  shift 2
  local log
  log=$(mktemp)
  if MIRIFLAGS="$flags" cargo +nightly miri test -q -p sgsample --features std,ffi,soft-floats "$@" \
    >"$log" 2>&1; then
    local n
    n=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    echo "miri $name: $n tests passed"
    passed=$((passed + 1))
  else
    grep -m1 -A12 -E "Undefined Behavior|error:|panicked" "$log" || tail -20 "$log"
    echo "miri $name: FAILED"
    failed=$((failed + 1))
  fi
  rm -f "$log"
}
for model in stacked tree; do
  flags=""
  [ "$model" = tree ] && flags="-Zmiri-tree-borrows"
  run "unit subset ($model borrows)" "$flags" --lib -- "${unit[@]}"
  run "C API from Rust ($model borrows)" "$flags" --test capi_miri
done
echo "miri: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
