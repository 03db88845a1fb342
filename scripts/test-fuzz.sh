#!/usr/bin/env bash
# A short, bounded libFuzzer run (nightly, AddressSanitizer, debug assertions) of the C-API fuzz
# target fuzz/fuzz_targets/c_api.rs over the committed seed corpus fuzz/seeds/c_api, from a
# scratch corpus each time (the long run and its figures: docs/fuzzing.md). Skipped, with one
# line saying why, without a nightly toolchain; builds cargo-fuzz (~1 min) if it is missing.
#
#   FUZZ_SECONDS=60 scripts/test-fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: skipped (no nightly toolchain, which cargo fuzz needs: rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo +nightly install cargo-fuzz --locked
fi
# A scratch corpus under fuzz/target (ignored), so the committed seeds stay as they are.
work=fuzz/target/test-fuzz
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/log"
status=0
(cd fuzz && cargo +nightly fuzz run --debug-assertions c_api \
  "../$work/corpus" seeds/c_api -- \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="../$work/artifacts/") \
  >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
crashes=$(find "$work/artifacts" -type f | wc -l)
if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ] || [ -z "$execs" ]; then
  grep -m1 -A3 -E "panicked|ERROR: AddressSanitizer|ERROR: libFuzzer|^error" "$log" || tail -20 "$log"
  echo "fuzz: reproducers in $work/artifacts (save them under fuzz/artifacts-found/)"
  echo "fuzz: ${execs:-0} executions in ${seconds} s, ${crashes} crashes"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
echo "fuzz: $execs executions in $seconds s, 0 crashes"
echo "fuzz: 1 passed, 0 failed"
