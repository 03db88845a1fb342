#!/usr/bin/env bash
# Everything `make test` and `make demo` need beyond the Rust toolchain. Idempotent.
set -euo pipefail
rustup target add thumbv7em-none-eabihf thumbv7m-none-eabi
pkgs=(qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi gcc g++ binutils)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
