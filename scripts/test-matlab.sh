#!/usr/bin/env bash
# The MATLAB/Octave binding (bindings/matlab), tested with GNU Octave: the MEX gateway builds
# against the static C library, the C program of the bit-for-bit test runs, then the Octave test
# script (statistics, RBM-SVGD, minibatch, bit-for-bit vs C, bad inputs, callback errors, the
# step-wise sgs.* objects, Ctrl-C in a child Octave that interrupts itself; tests/test_brief.m:
# K chains per call, seed-derived noise, sgs.Svgd, nothing lost, warm-up apart, save/load; the
# gateway fuzzed with 3000 random argument lists in a child Octave) and the headless double-well
# example (PNG, written under build/). Octave comes from scripts/install-deps.sh (octave,
# liboctave-dev). About 1.5 minutes on 2 quiet cores (3 under load).
set -uo pipefail
cd "$(dirname "$0")/.."
m=bindings/matlab
build=$m/build
mkdir -p "$build"
lib=target/release/libsgsample.a
octave=(octave-cli --no-gui --no-history --quiet --no-window-system)
passed=0
failed=0

check() {
  local name=$1
  shift
  if "$@" >"$build/$name.log" 2>&1; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (log: $build/$name.log)"
    tail -n 20 "$build/$name.log" | sed 's/^/     | /'
    failed=$((failed + 1))
  fi
}

octave_tests() {
  "${octave[@]}" --eval "addpath('$m/tests'); exit(test_sgsample('$build/bitexact_c.txt') > 0)"
}

example() {
  rm -f "$build/double_well.png"
  SGS_QUICK=1 SGS_PNG="$PWD/$build/double_well.png" "${octave[@]}" --eval "run('$m/examples/double_well.m')" &&
    [ -s "$build/double_well.png" ] && file "$build/double_well.png" | grep -q 'PNG image'
}

check build-capi cargo build -q --release -p sgsample-capi
check build-mex make -s -C "$m"
check build-bitexact-c gcc -std=c99 -O2 -ffp-contract=off -Wall -Wextra -Werror -Iinclude \
  "$m/tests/bitexact.c" "$lib" -lm -o "$build/bitexact"
check run-bitexact-c sh -c "'$build/bitexact' > '$build/bitexact_c.txt'"
check octave-tests octave_tests
grep -E '^(ok  |FAIL)' "$build/octave-tests.log" | sed 's/^/     /'
inner=$(sed -n 's/^octave: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$build/octave-tests.log")
if [ -n "$inner" ]; then
  read -r ip if_ <<<"$inner"
  passed=$((passed + ip))
  failed=$((failed + if_))
fi
check example-double-well-png example
echo "matlab: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
