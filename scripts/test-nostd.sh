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

# No panic path is reachable from the C API of the Cortex-M4F C library (the host's is checked by
# test-ffi.sh): a program referencing every sgs_ function, linked with --gc-sections.
bash scripts/no-panic-linked.sh target/thumbv7em-none-eabihf/release/libsgsample.a \
  target/thumbv7em-none-eabihf/no-panic arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb \
  -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nosys.specs -O2 -Wl,--no-warn-execstack

# Clippy on the firmware crate (its own workspace, bare-metal only, so not in test-rust.sh):
# warnings are errors, and incompatible_msrv checks its rust-version.
for feats in "" fp-amagold,fp-ksd,fp-stats,fp-f64,fp-anneal fp-thin,fp-tunamh,fp-weights,fp-kde,fp-f64; do
  (cd examples-embedded && cargo clippy -q --bins --target thumbv7em-none-eabihf ${feats:+--features "$feats"} -- -D warnings)
done
echo "examples-embedded: clippy clean"
# The library itself on the bare-metal targets, warnings as errors (as a dependency of the firmware
# crate above its warnings are capped, and test-rust.sh lints it for the host only): code that only
# x86-64 uses must not leave dead code behind on Cortex-M.
for t in thumbv7em-none-eabihf thumbv7m-none-eabi; do
  cargo clippy -q -p sgsample --lib --target "$t" -- -D warnings
  cargo clippy -q -p sgsample --lib --features ffi --target "$t" -- -D warnings
done
echo "sgsample on thumbv7em/thumbv7m: clippy clean"

# No panic path is reachable from the samplers: the footprint probe, which links AMAGOLD (both
# variants, warm-up) and RBM-SVGD (every kernel, step rule and batching, chosen at run time through
# black_box) and the streaming diagnostics, in f32 and f64, must contain no panic machinery at all. An index, slice or length
# check the compiler cannot prove away would link `panic_bounds_check`, `slice_index_fail`,
# `len_mismatch_fail` and `panic_fmt`.
# fp-ksd: RBM-SVGD with sgsample's `ksd` feature, so the KSD's code is linked and checked too.
for feats in fp-amagold,fp-ksd,fp-stats fp-amagold,fp-ksd,fp-stats,fp-f64; do
  (cd examples-embedded && cargo build --release -q --bin footprint --target thumbv7em-none-eabihf --features "$feats")
  elf=examples-embedded/target/thumbv7em-none-eabihf/release/footprint
  syms=$(arm-none-eabi-nm -C "$elf")
  grep -q 'sgsample' <<<"$syms" || { echo "the probe does not link sgsample ($feats)" >&2; exit 1; }
  if grep -iE 'panic|slice_index|len_mismatch|bounds_check|rust_begin_unwind' <<<"$syms"; then
    echo "a panic path is linked into the footprint probe ($feats)" >&2
    exit 1
  fi
  echo "footprint probe ($feats): no panic path linked"
  # Stack budgets: the worst stack of one `step` over every call path of the linked code (the
  # KSD's included: linked by fp-ksd, chosen at run time), callbacks excluded, on the Cortex-M4F.
  # RBM-SVGD: 776 bytes (unchanged since 0.2). AMAGOLD: 1216 bytes; 0.4's warm-up (approach,
  # curvature, metric windows, report) and the dense trajectory live in frames of their own, so one
  # step costs 1052 B (f32) / 1180 B (f64) against 660 / 764 in 0.3 (docs/footprint.md).
  # `tools/stack-paths.py ELF ROOT --path` shows the path if it fails.
  for root in amagold_probe::five_steps:1216 svgd_probe::three_steps:776; do
    budget=${root##*:}
    root=${root%:*}
    worst=$(python3 tools/stack-paths.py "$elf" "$root")
    if [ "$worst" -gt "$budget" ]; then
      echo "stack of $root ($feats): $worst bytes over some call path, budget $budget" >&2
      python3 tools/stack-paths.py "$elf" "$root" --path >&2
      exit 1
    fi
    echo "stack of $root ($feats): worst path $worst bytes (budget $budget)"
  done
done

# The same no-panic check for the probes of the functions the loop above does not link: Stein
# thinning, TunaMH, the particles' importance weights (with the median bandwidth) and the KDE
# draws with their weights, in f32 and
# f64. Their stacks are measured by scripts/footprint.sh (docs/footprint.md), not budgeted here.
for feats in fp-thin,fp-tunamh,fp-weights,fp-kde fp-thin,fp-tunamh,fp-weights,fp-kde,fp-f64; do
  (cd examples-embedded && cargo build --release -q --bin footprint --target thumbv7em-none-eabihf --features "$feats")
  elf=examples-embedded/target/thumbv7em-none-eabihf/release/footprint
  syms=$(arm-none-eabi-nm -C "$elf")
  for probe in thin_probe tunamh_probe weights_probe kde_probe; do
    grep -q "$probe" <<<"$syms" || { echo "the probe does not link $probe ($feats)" >&2; exit 1; }
  done
  if grep -iE 'panic|slice_index|len_mismatch|bounds_check|rust_begin_unwind' <<<"$syms"; then
    echo "a panic path is linked into the footprint probe ($feats)" >&2
    exit 1
  fi
  echo "footprint probe ($feats): no panic path linked"
done
