#!/usr/bin/env bash
# Runs every test suite in order; stops at the first failure. Each suite is a script of its own
# in scripts/ so that it can be run alone while working on one part.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh machine needs no set-up step: install what is missing (the bare-metal Rust targets, QEMU,
# the ARM and host C toolchains). Takes a fraction of a second when nothing is; without root and
# with apt packages missing, it stops here with one line saying what to run under sudo.
scripts/install-deps.sh --check >/dev/null || scripts/install-deps.sh test
suites=(
  scripts/test-rust.sh
  scripts/test-mutants.sh
  scripts/test-nostd.sh
  scripts/test-firmware.sh
  scripts/test-ffi.sh
  scripts/test-install.sh
  scripts/test-mpi.sh
  scripts/test-examples.sh
  scripts/test-docs.sh
  scripts/test-matlab.sh
  scripts/test-python.sh
  scripts/test-miri.sh
  scripts/test-fuzz.sh
)
# A suite that cannot run here (fuzz and Miri need a nightly toolchain, which install-deps.sh
# does not install) prints one line `<name>: skipped (why)` and exits 0: those lines are
# repeated in the summary, so that a green run says what it did not run.
passed=0
skipped=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for s in "${suites[@]}"; do
  echo "==> $s"
  status=0
  "$s" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    echo "suite $s FAILED"
    echo "suites: $passed passed, 1 failed"
    exit 1
  fi
  if line=$(grep -m1 -E '^[a-z]+: skipped' "$log"); then
    skipped+=("$line")
  else
    passed=$((passed + 1))
  fi
done
echo "suites: $passed passed, 0 failed, ${#skipped[@]} skipped"
for line in "${skipped[@]}"; do
  echo "  $line"
done
