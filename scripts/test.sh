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
  scripts/test-nostd.sh
  scripts/test-firmware.sh
  scripts/test-ffi.sh
  scripts/test-examples.sh
  scripts/test-docs.sh
  scripts/test-matlab.sh
  scripts/test-python.sh
  scripts/test-miri.sh
)
passed=0
for s in "${suites[@]}"; do
  echo "==> $s"
  if ! "$s"; then
    echo "suite $s FAILED"
    echo "suites: $passed passed, 1 failed"
    exit 1
  fi
  passed=$((passed + 1))
done
echo "suites: $passed passed, 0 failed"
