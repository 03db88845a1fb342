#!/usr/bin/env bash
# The C/C++ examples (examples-c/): build them all against the no_std static library with
# -Wall -Wextra -Werror, then run each in its quick mode. Every example checks its own numbers
# against the truth (tolerances from its Monte Carlo error) and exits non-zero when they are off,
# so a pass here means the numbers agree, not merely that the programs ran.
set -uo pipefail
cd "$(dirname "$0")/.."
build=examples-c/build/werror
mkdir -p "$build"
passed=0
failed=0

check() {
  local name=$1
  shift
  local t0=$SECONDS
  if "$@" >"$build/$name.log" 2>&1; then
    echo "ok   $name ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
  else
    echo "FAIL $name (log: $build/$name.log)"
    tail -n 20 "$build/$name.log" | sed 's/^/     | /'
    failed=$((failed + 1))
  fi
}

check build-capi cargo build -q --release -p sgsample-capi
check build-examples-werror make -s -C examples-c all BUILD="$PWD/$build" WARN="-Wall -Wextra -Werror"
for e in double_well gaussian_mixture double_banana logistic_regression ode_calibration minimal openmp_svgd openmp_shard \
  stein_thinning annealed_svgd tunamh_logistic; do
  check "$e-quick" "$build/$e" --quick
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
