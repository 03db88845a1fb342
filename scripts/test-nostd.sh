#!/usr/bin/env bash
# The core without std on bare-metal targets, and the C library built for them: it must not
# reference an allocator.
set -euo pipefail
cd "$(dirname "$0")/.."
for target in thumbv7em-none-eabihf thumbv7m-none-eabi; do
  cargo build --release -p sgsample --target "$target"
  cargo build --release -p sgsample-capi --target "$target"
  lib="target/$target/release/libsgsample.a"
  # The check below means something only if the C API is in the archive.
  syms=$(nm "$lib" 2>/dev/null)
  grep -q ' T sgs_amagold_step$' <<<"$syms" || { echo "sgs_amagold_step missing from $lib" >&2; exit 1; }
  # Undefined or defined allocator entry points would mean something allocates.
  if grep -E '__rust_alloc|__rg_alloc|__rust_no_alloc_shim|__rdl_alloc| malloc$| calloc$| realloc$| free$' <<<"$syms"; then
    echo "allocator symbol referenced by $lib" >&2
    exit 1
  fi
  echo "$target: core and C library build, no allocator symbol in $lib"
done
